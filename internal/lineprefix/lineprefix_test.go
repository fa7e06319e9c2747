package lineprefix

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// recorder keeps every Write it is given, to check that lines arrive whole.
type recorder struct {
	writes []string
}

func (r *recorder) Write(p []byte) (int, error) {
	r.writes = append(r.writes, string(p))
	return len(p), nil
}

func (r *recorder) String() string { return strings.Join(r.writes, "") }

func TestWriter(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		writes []string // in order; "" stands for a Flush
		want   string   // all that reached the writer beneath
		calls  []string // each Write it got, when the test pins them
	}{
		{name: "one line", writes: []string{"round 3 dropped\n"}, want: "hbgbench: round 3 dropped\n"},
		{name: "several lines in one write",
			writes: []string{"first\nsecond\nthird\n"},
			want:   "hbgbench: first\nhbgbench: second\nhbgbench: third\n",
			calls:  []string{"hbgbench: first\nhbgbench: second\nhbgbench: third\n"}},
		{name: "a line in pieces gets one prefix",
			writes: []string{"round ", "3 ", "dropped", "\n"},
			want:   "hbgbench: round 3 dropped\n",
			calls:  []string{"hbgbench: round 3 dropped\n"}},
		{name: "a write that ends one line and starts the next",
			writes: []string{"look 1 af", "ter 4 rounds\nlook 2", " after 8 rounds\n"},
			want:   "hbgbench: look 1 after 4 rounds\nhbgbench: look 2 after 8 rounds\n",
			calls:  []string{"hbgbench: look 1 after 4 rounds\n", "hbgbench: look 2 after 8 rounds\n"}},
		{name: "indented lines continue the message above",
			writes: []string{"block r001-base-a1-t1 failed: block exited with status 3\n", "  its log /d/r001.log.gz ends:\n    | panic\n\t| more\n"},
			want:   "hbgbench: block r001-base-a1-t1 failed: block exited with status 3\n  its log /d/r001.log.gz ends:\n    | panic\n\t| more\n"},
		{name: "an empty line stays empty", writes: []string{"a\n\nb\n"}, want: "hbgbench: a\n\nhbgbench: b\n"},
		{name: "a final line without newline waits for Flush",
			writes: []string{"done\nno newline", ""},
			want:   "hbgbench: done\nhbgbench: no newline",
			calls:  []string{"hbgbench: done\n", "hbgbench: no newline"}},
		{name: "a continued final line on Flush", writes: []string{"  tail", ""}, want: "  tail"},
		{name: "Flush with nothing held writes nothing", writes: []string{"x\n", "", ""}, want: "hbgbench: x\n", calls: []string{"hbgbench: x\n"}},
		{name: "nothing written", writes: []string{""}, want: ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var rec recorder
			w := New(&rec, "hbgbench: ")
			for _, s := range tc.writes {
				if s == "" {
					require.NoError(t, w.Flush())
					continue
				}
				n, err := w.Write([]byte(s))
				require.NoError(t, err)
				assert.Equal(t, len(s), n, "Write reports all of p written")
			}
			assert.Equal(t, tc.want, rec.String())
			if tc.calls != nil {
				assert.Equal(t, tc.calls, rec.writes)
			}
		})
	}
}

// TestWriterHoldsUntilNewline: nothing reaches the writer beneath before a
// line is complete, so a message written in pieces is never cut by another.
func TestWriterHoldsUntilNewline(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	w := New(&buf, "p: ")
	fmt.Fprint(w, "half")
	assert.Empty(t, buf.String())
	fmt.Fprintln(w, " whole")
	assert.Equal(t, "p: half whole\n", buf.String())
}

func TestWriterClose(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	w := New(&buf, "p: ")
	fmt.Fprint(w, "one\ntwo")
	require.NoError(t, w.Close())
	assert.Equal(t, "p: one\np: two", buf.String())
	require.NoError(t, w.Close(), "a second Close has nothing to write")
	assert.Equal(t, "p: one\np: two", buf.String())
}

type failing struct{}

func (failing) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }

func TestWriterErrors(t *testing.T) {
	t.Parallel()
	w := New(failing{}, "p: ")
	n, err := w.Write([]byte("held"))
	require.NoError(t, err, "a held line writes nothing yet")
	assert.Equal(t, 4, n)
	n, err = w.Write([]byte(" line\n"))
	assert.EqualError(t, err, "broken pipe")
	assert.Zero(t, n)
	fmt.Fprint(w, "tail")
	assert.EqualError(t, w.Flush(), "broken pipe")
}

// TestWriterConcurrent: lines written from several goroutines arrive
// whole, each with its prefix (go test -race checks the locking).
func TestWriterConcurrent(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	w := New(&buf, "p: ")
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 50 {
				fmt.Fprintf(w, "goroutine %d line %d\n", g, i)
			}
		})
	}
	wg.Wait()
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	require.Len(t, lines, 200)
	for _, l := range lines {
		assert.Regexp(t, `^p: goroutine \d line \d+$`, l)
	}
}
