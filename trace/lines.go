package trace

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
)

// chunkSize is how many bytes a feeder reads into one chunk: big enough
// that a read, a hand-over between goroutines and a batch cost little per
// byte, small enough that a chunk and its records stay in the L2 cache and
// that the pipeline's chunks touch few fresh pages (a page fault costs
// 12 µs on some VMs; 256 KiB measured better than 512 and 128).
const chunkSize = 256 << 10

// A feeder cuts the sources of a stream into chunks of whole lines: every
// chunk ends right after a LF, except the last chunk of a source, which
// ends where the source ends. It opens each source when it gets to it and
// recognises gzip by its magic bytes. One goroutine uses it.
type feeder struct {
	srcs    []Source
	si      int // index of the source being read
	src     io.ReadCloser
	in      io.Reader
	carry   []byte // the start of a line the last chunk did not hold
	pending *fed   // an error to return after the chunk just returned
	maxLine int    // the longest line accepted; MaxLineBytes when zero
	size    int    // bytes per chunk; chunkSize when zero
	fresh   bool   // no chunk of the open source returned yet
}

// take marks c as its source's first chunk when it is.
func (f *feeder) take(c fed) fed {
	c.first, f.fresh = f.fresh, false
	return c
}

// A fed chunk: data holds whole lines of source src. final says data ends
// its source (so its last line may lack a LF). err, when set, ends the
// stream after the chunks before it, and data is empty.
type fed struct {
	data  []byte
	src   int
	final bool
	first bool // data starts its source
	err   error
}

// lineTooLong is the error of a line longer than limit in source name; it
// becomes the Reader's error once the Reader knows the line's number.
type lineTooLong struct {
	name  string
	limit int
}

func (e *lineTooLong) Error() string { return "reading " + e.name + ": line too long" }

func (e *lineTooLong) at(line int) error {
	return &LineTooLongError{File: e.name, Line: line, Limit: e.limit}
}

// A LineTooLongError is a Reader's error for a physical line longer than
// Limit bytes (MaxLineBytes): the line is not read, nor anything after it.
// Callers tell it from an I/O error with errors.As: it is the content's
// fault, and reading the same input again fails the same way.
type LineTooLongError struct {
	File  string // the source's name
	Line  int    // the long line's number, 1 first
	Limit int    // the longest line accepted, in bytes
}

func (e *LineTooLongError) Error() string {
	return fmt.Sprintf("reading %s: line %d is longer than %d MiB", e.File, e.Line, e.Limit>>20)
}

// lineDoublingUpTo is how far a buffer grows by doubling for a long line;
// past it, it grows to the longest line at once.
const lineDoublingUpTo = 8 << 20

func (f *feeder) limit() int {
	if f.maxLine > 0 {
		return f.maxLine
	}
	return MaxLineBytes
}

func (f *feeder) chunkSize() int {
	if f.size > 0 {
		return f.size
	}
	return chunkSize
}

// next reads the next chunk into buf, or into a larger buffer when a line
// does not fit, and returns the chunk and the buffer it is in. ok is
// false at the end of the stream.
func (f *feeder) next(buf []byte) (c fed, used []byte, ok bool) {
	if f.pending != nil {
		c, f.pending = *f.pending, nil
		return c, buf, true
	}
	for f.si < len(f.srcs) {
		if f.in == nil {
			if err := f.open(); err != nil {
				src := f.si
				f.si = len(f.srcs)
				return fed{err: err, src: src}, buf, true
			}
		}
		if size := f.chunkSize(); cap(buf) < size || cap(buf)-len(f.carry) < size/2 {
			buf = make([]byte, max(size, len(f.carry)+size))
		}
		buf = buf[:cap(buf)]
		n := copy(buf, f.carry)
		f.carry = f.carry[:0]
		lf := false // buf[:n] holds a LF
		var rerr error
		for rerr == nil {
			if n == len(buf) {
				if lf {
					break
				}
				// A line longer than the buffer: grow it, up to the limit.
				if n > f.limit() {
					src, name := f.si, f.srcs[f.si].Name
					f.closeSrc()
					f.si = len(f.srcs)
					return fed{err: &lineTooLong{name: name, limit: f.limit()}, src: src}, buf, true
				}
				grow := 2 * len(buf)
				if grow > lineDoublingUpTo {
					// A line this long is hostile or nearly so: one
					// buffer of the limit, not every doubling on the
					// way (200 MB for a line refused at 64 MiB).
					grow = f.limit() + f.chunkSize()
				}
				nb := make([]byte, min(grow, f.limit()+f.chunkSize()))
				copy(nb, buf[:n])
				buf = nb
			}
			m, err := f.read(buf[n:])
			if !lf && m > 0 && bytes.IndexByte(buf[n:n+m], '\n') >= 0 {
				lf = true
			}
			n += m
			rerr = err
		}
		src := f.si
		if rerr == io.EOF {
			// The rest of the source is in buf.
			f.closeSrc()
			f.si++
			if n == 0 {
				continue
			}
			return f.take(fed{data: buf[:n], src: src, final: true}), buf, true
		}
		// A full buffer, or a read error: the whole lines now, the rest later.
		k := bytes.LastIndexByte(buf[:n], '\n')
		if rerr != nil {
			err := fmt.Errorf("reading %s: %w", f.srcs[f.si].Name, rerr)
			f.closeSrc()
			f.si = len(f.srcs)
			if k < 0 {
				return fed{err: err, src: src}, buf, true
			}
			f.pending = &fed{err: err, src: src}
			return f.take(fed{data: buf[:k+1], src: src}), buf, true
		}
		f.carry = append(f.carry, buf[k+1:n]...)
		return f.take(fed{data: buf[:k+1], src: src}), buf, true
	}
	return fed{}, buf, false
}

// read reads into p, retrying a reader that returns no bytes and no error.
func (f *feeder) read(p []byte) (int, error) {
	for tries := 0; tries < 100; tries++ {
		n, err := f.in.Read(p)
		if n > 0 || err != nil {
			if n > 0 && err == io.EOF {
				// Hand the bytes over now and the end on the next read.
				return n, nil
			}
			return n, err
		}
	}
	return 0, io.ErrNoProgress
}

// open opens source f.si, looking through gzip.
func (f *feeder) open() error {
	s := f.srcs[f.si]
	if s.Open == nil {
		return fmt.Errorf("reading %s: no way to open it", s.Name)
	}
	rc, err := s.Open()
	if err != nil {
		return fmt.Errorf("reading %s: %w", s.Name, err)
	}
	if file, ok := rc.(*os.File); ok {
		if st, err := file.Stat(); err == nil && st.Mode().IsRegular() {
			rc = &sizedFile{File: file, size: st.Size()}
		}
	}
	br := bufio.NewReaderSize(rc, 64<<10)
	var in io.Reader = br
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			rc.Close()
			return fmt.Errorf("reading %s: %w", s.Name, err)
		}
		in = zr
	}
	f.src, f.in, f.fresh = rc, in, true
	return nil
}

// A sizedFile is a regular file that must yield the size it had when it
// was opened: a file that shrinks while it is read (a log rotated with
// copytruncate) ends the stream with an error rather than quietly early.
type sizedFile struct {
	*os.File
	size, got int64
}

var errShrank = errors.New("the file shrank while it was read")

func (f *sizedFile) Read(p []byte) (int, error) {
	n, err := f.File.Read(p)
	f.got += int64(n)
	if err == io.EOF && f.got < f.size {
		err = errShrank
	}
	return n, err
}

func (f *feeder) closeSrc() {
	if f.src != nil {
		f.src.Close()
	}
	f.src, f.in = nil, nil
}
