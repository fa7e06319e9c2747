package trace

import (
	"bytes"
	"errors"
	"io"
	"unsafe"
)

var errLineTooLong = errors.New("line too long")

// lineReader splits an io.Reader into physical lines without a token limit
// short of MaxLineBytes. It owns one buffer that grows to fit the longest
// line; a returned line is valid until the next call.
type lineReader struct {
	r          io.Reader
	buf        []byte
	start, end int // unread bytes are buf[start:end]
	scanned    int // buf[start:start+scanned] is known to hold no '\n'
	err        error
	maxLine    int // the longest line accepted; MaxLineBytes when zero
}

const lineBufInitial = 256 << 10

func (lr *lineReader) reset(r io.Reader) {
	lr.r = r
	lr.start, lr.end, lr.scanned = 0, 0, 0
	lr.err = nil
	if lr.buf == nil {
		lr.buf = make([]byte, lineBufInitial)
	}
}

// next returns the next line without its terminator: a LF, with a CR right
// before it, or a lone CR at the very end of the input. eol reports whether
// a terminator was there. At the end of the input it returns io.EOF; a
// read error is returned as is, after the lines before it.
func (lr *lineReader) next() (line []byte, eol bool, err error) {
	for {
		if k := bytes.IndexByte(lr.buf[lr.start+lr.scanned:lr.end], '\n'); k >= 0 {
			e := lr.start + lr.scanned + k
			line = lr.buf[lr.start:e]
			lr.start = e + 1
			lr.scanned = 0
			if n := len(line); n > 0 && line[n-1] == '\r' {
				line = line[:n-1]
			}
			return line, true, nil
		}
		lr.scanned = lr.end - lr.start
		if lr.err != nil {
			if lr.start < lr.end && lr.err == io.EOF {
				line = lr.buf[lr.start:lr.end]
				lr.start, lr.scanned = lr.end, 0
				eol = false
				if n := len(line); n > 0 && line[n-1] == '\r' {
					line, eol = line[:n-1], true
				}
				return line, eol, nil
			}
			return nil, false, lr.err
		}
		if lr.scanned > lr.limit() {
			return nil, false, errLineTooLong
		}
		lr.fill()
	}
}

func (lr *lineReader) limit() int {
	if lr.maxLine > 0 {
		return lr.maxLine
	}
	return MaxLineBytes
}

// fill reads more input, making room first by moving the unread bytes down
// or by growing the buffer.
func (lr *lineReader) fill() {
	if lr.start > 0 && (lr.end == len(lr.buf) || lr.start == lr.end) {
		n := copy(lr.buf, lr.buf[lr.start:lr.end])
		lr.start, lr.end = 0, n
	}
	if lr.end == len(lr.buf) {
		size := 2 * len(lr.buf)
		if max := lr.limit() + lineBufInitial; size > max {
			size = max
		}
		nb := make([]byte, size)
		copy(nb, lr.buf[lr.start:lr.end])
		lr.end -= lr.start
		lr.start = 0
		lr.buf = nb
	}
	for tries := 0; tries < 100; tries++ {
		n, err := lr.r.Read(lr.buf[lr.end:])
		lr.end += n
		if err != nil {
			lr.err = err
			return
		}
		if n > 0 {
			return
		}
	}
	lr.err = io.ErrNoProgress
}

// strTable makes the strings of records. Names, hids, phases and threads
// repeat endlessly and are interned; other text is copied into large shared
// chunks, so a record costs no allocation of its own. Strings are never
// modified once made.
type strTable struct {
	interned map[string]string
	chunk    []byte
}

const (
	strChunkSize  = 64 << 10
	maxInterned   = 1 << 14
	maxInternSize = 128
)

func newStrTable() strTable {
	return strTable{interned: make(map[string]string, 256)}
}

// bytes returns b as a string.
func (t *strTable) bytes(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if len(b) > strChunkSize/8 {
		return string(b)
	}
	if cap(t.chunk)-len(t.chunk) < len(b) {
		t.chunk = make([]byte, 0, strChunkSize)
	}
	n := len(t.chunk)
	t.chunk = append(t.chunk, b...)
	s := t.chunk[n:len(t.chunk):len(t.chunk)]
	return unsafe.String(&s[0], len(s))
}

// intern returns b as a string, shared with earlier equal ones.
func (t *strTable) intern(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if s, ok := t.interned[string(b)]; ok {
		return s
	}
	s := t.bytes(b)
	if len(b) <= maxInternSize && len(t.interned) < maxInterned {
		t.interned[s] = s
	}
	return s
}

// hid returns a hid in lowercase.
func (t *strTable) hid(b []byte) string {
	for _, c := range b {
		if c >= 'A' && c <= 'F' {
			return t.intern(bytes.ToLower(b))
		}
	}
	return t.intern(b)
}

// name returns a percent-decoded span name.
func (t *strTable) name(b []byte) string {
	if bytes.IndexByte(b, '%') < 0 {
		return t.intern(b)
	}
	// The decoded form is interned under the raw bytes' key with a prefix
	// that no raw name can carry (a raw name holds no space).
	key := append(append(make([]byte, 0, len(b)+1), ' '), b...)
	if s, ok := t.interned[string(key)]; ok {
		return s
	}
	s := Decode(string(b))
	if len(key) <= maxInternSize && len(t.interned) < maxInterned {
		t.interned[string(key)] = s
	}
	return s
}
