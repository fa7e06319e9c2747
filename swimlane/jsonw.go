package swimlane

import (
	"io"
	"math"
	"math/big"
	"runtime"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/hbgkit/hbgkit/trace"
)

// jsonWriter writes JSON by hand, in the order the caller writes it: the
// documents are streamed event by event, and their objects keep the key
// order of the reference. The first write error sticks; later writes do
// nothing. Commas and ": " separators are placed automatically. Values
// are appended to one buffer, written out when it passes jsonFlushAt: a
// bufio.Writer call per token was a third of writing a swimlane.
type jsonWriter struct {
	w   io.Writer
	b   []byte
	err error
	// first[i] reports whether the container at nesting level i is still
	// empty (no comma before its next element).
	first []bool
	// afterKey reports that a key was just written: the next value is its
	// value, not a new element.
	afterKey bool
	// The text of the whole second wallSec, kept by appendWallText.
	wallSec   int64
	wallText  []byte
	wallValid bool
	// Scratch of the event writers, reused event after event: an event's
	// args and its span's parsed attributes.
	args  args
	attrs trace.Attrs
}

// jsonFlushAt is how much a jsonWriter buffers before it writes.
const jsonFlushAt = 64 << 10

func newJSONWriter(w io.Writer) *jsonWriter {
	return &jsonWriter{w: w, b: make([]byte, 0, jsonFlushAt+4<<10)}
}

func (j *jsonWriter) raw(s string) { j.b = append(j.b, s...) }

// spill writes the buffer out once it is full.
func (j *jsonWriter) spill() {
	if len(j.b) >= jsonFlushAt {
		j.writeOut()
	}
}

func (j *jsonWriter) writeOut() {
	if j.w == nil { // a piece of parallelElems: kept whole
		return
	}
	if j.err == nil && len(j.b) > 0 {
		_, j.err = j.w.Write(j.b)
	}
	j.b = j.b[:0]
}

// elem starts a value: after a key nothing is needed, otherwise a comma
// unless it is the first element of its container.
func (j *jsonWriter) elem() {
	if j.afterKey {
		j.afterKey = false
		return
	}
	n := len(j.first)
	if n == 0 {
		return
	}
	if j.first[n-1] {
		j.first[n-1] = false
		return
	}
	j.raw(", ")
}

func (j *jsonWriter) beginObject() { j.elem(); j.raw("{"); j.first = append(j.first, true) }
func (j *jsonWriter) endObject() {
	j.first = j.first[:len(j.first)-1]
	j.raw("}")
	j.spill()
}
func (j *jsonWriter) beginArray() { j.elem(); j.raw("["); j.first = append(j.first, true) }
func (j *jsonWriter) endArray()   { j.first = j.first[:len(j.first)-1]; j.raw("]"); j.spill() }

// key writes an object key; the next value written is its value.
func (j *jsonWriter) key(k string) {
	j.elem()
	j.quote(k)
	j.raw(": ")
	j.afterKey = true
}

// str writes s as a JSON string value.
func (j *jsonWriter) str(s string) {
	j.elem()
	j.quote(s)
}

// quote writes s as a JSON string (appendQuote).
func (j *jsonWriter) quote(s string) {
	j.b = appendQuote(j.b, s)
	if len(s) > jsonFlushAt {
		j.spill()
	}
}

// appendQuote appends s as a JSON string. Invalid UTF-8 becomes U+FFFD;
// control characters are escaped; other characters are written as they
// are.
func appendQuote(b []byte, s string) []byte {
	b = append(b, '"')
	if plainJSON(s) {
		b = append(b, s...)
		return append(b, '"')
	}
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"':
				b = append(b, '\\', '"')
			case c == '\\':
				b = append(b, '\\', '\\')
			case c == '\n':
				b = append(b, '\\', 'n')
			case c == '\r':
				b = append(b, '\\', 'r')
			case c == '\t':
				b = append(b, '\\', 't')
			case c < 0x20:
				b = append(b, '\\', 'u', '0', '0', hexDigit(c>>4), hexDigit(c&0xf))
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, "\ufffd"...)
		} else if r == '\u2028' || r == '\u2029' {
			// Valid JSON either way; escaped so the output is also valid
			// JavaScript, as chrome://tracing evaluates it.
			b = append(b, '\\', 'u', '2', '0', '2', hexDigit(byte(r&0xf)))
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return append(b, '"')
}

// plainJSON reports whether s is printable ASCII without '"' or '\\', so
// that it can be written between quotes as it is.
func plainJSON(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= utf8.RuneSelf || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

func hexDigit(c byte) byte { return "0123456789abcdef"[c&0xf] }

func (j *jsonWriter) int(v int64) {
	j.elem()
	j.b = strconv.AppendInt(j.b, v, 10)
}

func (j *jsonWriter) uint(v uint64) {
	j.elem()
	j.b = strconv.AppendUint(j.b, v, 10)
}

// micros writes ns/1000 as a JSON number, the reference's float division:
// exact below 2^53 ns, correctly rounded above.
func (j *jsonWriter) micros(ns int64) {
	j.elem()
	j.b = appendMicros(j.b, ns)
}

// appendMicros appends ns/1000 as micros writes it: the shortest decimal
// of the float64 quotient. Below 10^15 ns in magnitude that is the exact
// quotient (at most 15 significant digits, which a float64 tells apart,
// so no shorter decimal has the same float64), written here with integer
// arithmetic; strconv's shortest formatting was a tenth of writing a
// swimlane.
func appendMicros(b []byte, ns int64) []byte {
	const fast = 1e15
	if ns <= -fast || ns >= fast {
		return strconv.AppendFloat(b, nsToMicros(ns), 'f', -1, 64)
	}
	if ns < 0 {
		b = append(b, '-')
		ns = -ns
	}
	b = strconv.AppendInt(b, ns/1000, 10)
	if f := ns % 1000; f != 0 {
		b = append(b, '.', byte('0'+f/100), byte('0'+f/10%10), byte('0'+f%10))
		for b[len(b)-1] == '0' {
			b = b[:len(b)-1]
		}
	}
	return b
}

func nsToMicros(ns int64) float64 {
	const exact = 1 << 53
	if ns > -exact && ns < exact {
		return float64(ns) / 1000
	}
	f, _ := new(big.Rat).SetFrac64(ns, 1000).Float64()
	if math.IsInf(f, 0) {
		return 0
	}
	return f
}

// flush writes what is buffered and returns the first write error.
func (j *jsonWriter) flush() error {
	j.writeOut()
	return j.err
}

// argKind says how an arg's value is written.
type argKind uint8

const (
	argString    argKind = iota // s, quoted
	argInt                      // i
	argUint                     // u
	argNumber                   // s, a decimal integer written bare
	argIntString                // i, its decimal quoted
	argWallTime                 // i, wall ns written as UTC text, quoted (appendWallText)
)

// An arg is one key of an event's args object.
type arg struct {
	key  string
	kind argKind
	s    string
	i    int64
	u    uint64
}

// args is an ordered JSON object with Python dict semantics: setting a key
// that exists replaces its value in place, a new key goes last.
type args []arg

func (a *args) set(x arg) {
	for i := range *a {
		if (*a)[i].key == x.key {
			(*a)[i] = x
			return
		}
	}
	*a = append(*a, x)
}

func (a *args) setStr(k, v string)       { a.set(arg{key: k, kind: argString, s: v}) }
func (a *args) setInt(k string, v int64) { a.set(arg{key: k, kind: argInt, i: v}) }
func (a *args) setUint(k string, v uint64) {
	a.set(arg{key: k, kind: argUint, u: v})
}

// setAttrs sets every parsed attribute, integers as bare numbers.
func (a *args) setAttrs(attrs trace.Attrs) {
	for _, x := range attrs {
		if x.IsInt {
			a.set(arg{key: x.Key, kind: argNumber, s: x.Value})
		} else {
			a.setStr(x.Key, x.Value)
		}
	}
}

// object writes a as a JSON object value.
func (j *jsonWriter) object(a args) {
	j.elem()
	j.b = j.appendObject(j.b, a)
	j.spill()
}

// appendObject appends a as a JSON object, as beginObject, key and the
// value writers would write it.
func (j *jsonWriter) appendObject(b []byte, a args) []byte {
	b = append(b, '{')
	for n, x := range a {
		if n > 0 {
			b = append(b, ", "...)
		}
		b = appendQuote(b, x.key)
		b = append(b, ": "...)
		switch x.kind {
		case argString:
			b = appendQuote(b, x.s)
		case argInt:
			b = strconv.AppendInt(b, x.i, 10)
		case argUint:
			b = strconv.AppendUint(b, x.u, 10)
		case argNumber:
			b = append(b, x.s...)
		case argIntString:
			b = append(b, '"')
			b = strconv.AppendInt(b, x.i, 10)
			b = append(b, '"')
		case argWallTime:
			b = append(b, '"')
			b = j.appendWallText(b, x.i)
			b = append(b, '"')
		}
	}
	return append(b, '}')
}

// appendWallText appends wall time ns (since the Unix epoch, UTC) as
// trace.WallTime writes it, YYYY-MM-DDTHH:MM:SS.nnnnnnnnnZ. The text of
// the whole second is kept from the last call: consecutive events are
// mostly in the same second.
func (j *jsonWriter) appendWallText(b []byte, ns int64) []byte {
	sec, frac := ns/1e9, ns%1e9
	if frac < 0 {
		sec, frac = sec-1, frac+1e9
	}
	if !j.wallValid || sec != j.wallSec {
		j.wallSec, j.wallValid = sec, true
		j.wallText = time.Unix(sec, 0).UTC().AppendFormat(j.wallText[:0], "2006-01-02T15:04:05")
	}
	b = append(b, j.wallText...)
	b = append(b, '.')
	var d [9]byte
	for i := 8; i >= 0; i-- {
		d[i] = byte('0' + frac%10)
		frac /= 10
	}
	b = append(b, d[:]...)
	return append(b, 'Z')
}

// elemChunk is how many array elements parallelElems formats in one piece.
const elemChunk = 2048

// parallelElems writes n elements of the array j is in, the i-th written
// by format(w, i) into a jsonWriter w of its own, in order: pieces of
// elemChunk elements are formatted on every processor and written by j
// as they complete, in order, at most two pieces a processor ahead of
// the write. format must only read what is shared. The bytes are those
// of calling format(j, i) for each i in turn.
func (j *jsonWriter) parallelElems(n int, format func(w *jsonWriter, i int)) {
	workers := min(runtime.GOMAXPROCS(0), (n+elemChunk-1)/elemChunk)
	if workers <= 1 {
		for i := range n {
			format(j, i)
		}
		return
	}
	level := len(j.first) - 1
	empty := j.first[level]
	pieces := (n + elemChunk - 1) / elemChunk
	done := make([]chan []byte, pieces)
	for p := range done {
		done[p] = make(chan []byte, 1)
	}
	// A piece takes a buffer from free before it is formatted and gives
	// it back once written: that bounds how far formatting runs ahead.
	free := make(chan []byte, 2*workers)
	for range cap(free) {
		free <- nil
	}
	next := make(chan int)
	go func() {
		defer close(next)
		for p := range pieces {
			next <- p
		}
	}()
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			w := &jsonWriter{first: []bool{false}} // w nil: it keeps what it is given
			for {
				// The buffer first: a piece taken is then always
				// formatted, so the write waits for nothing that
				// waits for it.
				w.b = (<-free)[:0]
				p, ok := <-next
				if !ok {
					return
				}
				w.first[0] = p == 0 && empty
				for i := p * elemChunk; i < min(n, (p+1)*elemChunk); i++ {
					format(w, i)
				}
				done[p] <- w.b
			}
		})
	}
	j.writeOut()
	for p := range pieces {
		b := <-done[p]
		if j.err == nil {
			_, j.err = j.w.Write(b)
		}
		free <- b
	}
	wg.Wait()
	j.first[level] = empty && n == 0
}
