package swimlane

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"math/big"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/hbgkit/hbgkit/internal/perflog"
	"github.com/hbgkit/hbgkit/trace"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestJSONStrings(t *testing.T) {
	tests := []struct {
		name, in, out, decoded string
	}{
		{"plain", "chip.run", `"chip.run"`, "chip.run"},
		{"quotes and backslash", `a"b\c`, `"a\"b\\c"`, `a"b\c`},
		{"control characters", "a\nb\rc\td\x00e\x1f", `"a\nb\rc\td\u0000e\u001f"`, "a\nb\rc\td\x00e\x1f"},
		{"Latin-1 decoded name", "caf\u00c3\u00a9", "\"caf\u00c3\u00a9\"", "caf\u00c3\u00a9"},
		{"invalid UTF-8", "a\xffb\xc3", "\"a\ufffdb\ufffd\"", "a\ufffdb\ufffd"},
		{"line separators", "a\u2028b\u2029", `"a\u2028b\u2029"`, "a\u2028b\u2029"},
		{"DEL stays", "a\x7f", "\"a\x7f\"", "a\x7f"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			j := newJSONWriter(&buf)
			j.str(tc.in)
			require.NoError(t, j.flush())
			assert.Equal(t, tc.out, buf.String())
			var got string
			require.NoError(t, json.Unmarshal(buf.Bytes(), &got))
			assert.Equal(t, tc.decoded, got)
		})
	}
}

func TestMicros(t *testing.T) {
	for _, ns := range []int64{0, 1, 20, 999, 1250, 1000000000, -5, 734510112000,
		1 << 53, 1<<53 + 1, 9007199254740993123, -9223372036854775808, 9223372036854775807} {
		t.Run(strconv.FormatInt(ns, 10), func(t *testing.T) {
			var buf bytes.Buffer
			j := newJSONWriter(&buf)
			j.micros(ns)
			require.NoError(t, j.flush())
			got, err := strconv.ParseFloat(buf.String(), 64)
			require.NoError(t, err)
			// Python's int / int is the correctly rounded quotient.
			want, _ := new(big.Rat).SetFrac64(ns, 1000).Float64()
			assert.Equal(t, want, got)
			assert.NotContains(t, buf.String(), "e", "plain decimal notation")
		})
	}
}

// FuzzMicros holds appendMicros' integer path to strconv's shortest
// formatting of the float64 quotient, which it replaces below 10^15 ns.
func FuzzMicros(f *testing.F) {
	for _, ns := range []int64{0, 1, -1, 10, 100, 999, 1000, 1001, 1010, 1100, -1100, 880000294066,
		1e15 - 1, -1e15 + 1, 1e15, 999999999999999, 123456789012345, 1 << 53, -9223372036854775808} {
		f.Add(ns)
	}
	f.Fuzz(func(t *testing.T, ns int64) {
		// Folded into the integer path too: most int64s are past it.
		for _, v := range []int64{ns, ns % 1e15, ns % 1e9} {
			got := string(appendMicros(nil, v))
			want := strconv.FormatFloat(nsToMicros(v), 'f', -1, 64)
			if got != want {
				t.Fatalf("appendMicros(%d) = %s, want %s", v, got, want)
			}
		}
	})
}

func TestArgsAndNesting(t *testing.T) {
	var a args
	a.setUint("inv", 18446744073709551615)
	a.setStr("hid", "abc")
	a.setInt("depth", -1)
	a.setAttrs(trace.ParseAttrs("depth=7 x=%41 big=-000123456789012345678901234567890 hid=5"))
	a.setStr("x", "last")

	var buf bytes.Buffer
	j := newJSONWriter(&buf)
	j.beginObject()
	j.key("list")
	j.beginArray()
	j.object(a)
	j.beginArray()
	j.endArray()
	j.int(3)
	j.endArray()
	j.key("empty")
	j.beginObject()
	j.endObject()
	j.endObject()
	require.NoError(t, j.flush())
	assert.Equal(t, `{"list": [{"inv": 18446744073709551615, "hid": 5, "depth": 7, "x": "last", `+
		`"big": -123456789012345678901234567890}, [], 3], "empty": {}}`, buf.String())
	assert.True(t, json.Valid(buf.Bytes()))
}

type failWriter struct{ n int }

func (f *failWriter) Write(p []byte) (int, error) {
	if f.n -= len(p); f.n < 0 {
		return 0, assert.AnError
	}
	return len(p), nil
}

func TestWriteErrors(t *testing.T) {
	l := &trace.Log{Spans: threeRuns()}
	_, err := WriteChromeTrace(&failWriter{n: 10}, l)
	assert.ErrorIs(t, err, assert.AnError)
	assert.ErrorContains(t, err, "writing chrome trace")
	err = Build(l, nil).WriteJSON(&failWriter{n: 10})
	assert.ErrorIs(t, err, assert.AnError)
	assert.ErrorContains(t, err, "writing host swimlane")
}

// FuzzWallText holds the wall times the writers format as they write
// (trace.WallNs, appendWallText with its cached second) to
// trace.WallTime's strings, for one time and for the next one after it.
func FuzzWallText(f *testing.F) {
	f.Add(int64(879991000000), int64(1787212805000000000), int64(880000186381), int64(5))
	f.Add(int64(0), int64(-1), int64(0), int64(1))
	f.Add(int64(-5), int64(-1_000_000_000), int64(7), int64(999_999_999))
	f.Add(int64(0), int64(math.MaxInt64-10), int64(5), int64(1))
	f.Add(int64(math.MinInt64), int64(0), int64(math.MaxInt64), int64(0))
	f.Fuzz(func(t *testing.T, mono, wall, ts, step int64) {
		an := trace.Anchor{Pid: 1, MonoNs: mono, WallNs: wall}
		j := newJSONWriter(io.Discard)
		for _, t0 := range []int64{ts, ts + step} {
			ns, text, ok := trace.WallTime(an, t0)
			n, fast := trace.WallNs(an, t0)
			if !ok {
				require.False(t, fast, "WallNs without a WallTime at %d", t0)
				continue
			}
			if !fast {
				continue // past int64: written through WallTime's strings
			}
			require.Equal(t, ns, strconv.FormatInt(n, 10))
			require.Equal(t, text, string(j.appendWallText(nil, n)), "wall ns %d", n)
		}
	})
}

// slowWriter is a bytes.Buffer whose writes take a millisecond, as a
// disk's do behind formatting: every buffer of parallelElems is then in
// use, and the pieces wait for them.
type slowWriter struct{ bytes.Buffer }

func (w *slowWriter) Write(p []byte) (int, error) {
	time.Sleep(time.Millisecond)
	return w.Buffer.Write(p)
}

// elemsDoc writes an array of n objects {"i": i, "w": wall text} through
// parallelElems, after meta leading elements written in order, and
// returns the document.
func elemsDoc(t *testing.T, w io.Writer, n, meta int, slow func(i int)) error {
	t.Helper()
	j := newJSONWriter(w)
	j.beginArray()
	for i := range meta {
		j.beginObject()
		j.key("meta")
		j.int(int64(i))
		j.endObject()
	}
	j.parallelElems(n, func(j *jsonWriter, i int) {
		slow(i)
		j.beginObject()
		j.key("i")
		j.int(int64(i))
		j.key("w")
		j.elem()
		j.b = j.appendWallText(append(j.b, '"'), 1787212805000000000+int64(i)*7_000_000)
		j.b = append(j.b, '"')
		j.endObject()
	})
	j.beginObject()
	j.key("after")
	j.int(1)
	j.endObject()
	j.endArray()
	return j.flush()
}

// TestParallelElems: the elements formatted on several processors are the
// bytes of formatting them in turn, with or without elements before them,
// across pieces and at their edges, when the pieces finish out of order
// (some slow) and the write is slow, and when the write fails (the
// error, not a hang).
func TestParallelElems(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	for _, n := range []int{0, 1, elemChunk - 1, elemChunk, elemChunk + 1, 7*elemChunk + 3} {
		for _, meta := range []int{0, 2} {
			for _, slowly := range []bool{false, true} {
				slow := func(i int) {
					// Every third piece's first element is slow, so
					// later pieces finish first.
					if slowly && i%(3*elemChunk) == 0 {
						time.Sleep(5 * time.Millisecond)
					}
				}
				var par slowWriter
				require.NoError(t, elemsDoc(t, &par, n, meta, slow))
				runtime.GOMAXPROCS(1)
				var seq bytes.Buffer
				require.NoError(t, elemsDoc(t, &seq, n, meta, slow))
				runtime.GOMAXPROCS(4)
				require.Equal(t, seq.String(), par.String(), "n=%d meta=%d", n, meta)
				var v []map[string]any
				require.NoError(t, json.Unmarshal(par.Bytes(), &v), "n=%d meta=%d", n, meta)
				assert.Len(t, v, n+meta+1)
			}
		}
	}
	err := elemsDoc(t, &failWriter{n: 100_000}, 7*elemChunk, 1, func(int) {})
	assert.ErrorIs(t, err, assert.AnError)
}

// TestWriteJSONOnEveryProcessorIsOneWritersBytes: a swimlane of a
// generated log, thousands of host events and device spans (pieces of
// parallelElems on both sides of every edge), is written byte for byte
// alike on four processors and on one.
func TestWriteJSONOnEveryProcessorIsOneWritersBytes(t *testing.T) {
	l, err := trace.ReadLog([]trace.Source{trace.ReaderSource("in.log", bytes.NewReader(perflog.Generate(8<<20)))})
	require.NoError(t, err)
	sw := Build(l, nil)
	require.Greater(t, sw.Summary().HostSpans, 2*elemChunk)
	require.Greater(t, sw.Summary().DeviceSpans, 2*elemChunk)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	var par, seq bytes.Buffer
	require.NoError(t, sw.WriteJSON(&par))
	runtime.GOMAXPROCS(1)
	require.NoError(t, sw.WriteJSON(&seq))
	require.Equal(t, seq.Len(), par.Len())
	require.True(t, bytes.Equal(seq.Bytes(), par.Bytes()), "the documents differ")
}
