package main

import (
	"io"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/hbgkit/hbgkit/internal/hugeheap"
	"github.com/hbgkit/hbgkit/internal/progress"
	"github.com/hbgkit/hbgkit/trace"
)

// Long reads show how far they are: after progressAfter, every
// progressEvery, "read X of Y MB" on stderr, when stderr is a terminal
// (internal/progress, the display hbgbench uses too).
const (
	progressAfter = 2 * time.Second
	progressEvery = 500 * time.Millisecond
)

// A readProgress reports a long read on a terminal. A nil *readProgress reports
// nothing.
type readProgress struct {
	line  *progress.Line
	total int64 // bytes of the inputs, 0 when unknown (stdin, gzip)
}

// startRead readies a read of srcs that keeps k: huge pages under the
// heap it will fill (internal/hugeheap), and its progress on stderr
// (startProgress). Call finish on the result when the read ends.
func startRead(stderr io.Writer, srcs []trace.Source, k hugeheap.Keep) *readProgress {
	hugeheap.Prepare(hugeheap.ForRead(inputBytes(srcs), k))
	return startProgress(stderr, srcs)
}

// startProgress starts reporting the read of srcs on stderr when stderr is
// a terminal; it returns nil otherwise. Call finish when the read ends.
func startProgress(stderr io.Writer, srcs []trace.Source) *readProgress {
	if !progress.Terminal(stderr) {
		return nil
	}
	return newProgress(stderr, srcs, progressAfter, progressEvery)
}

func newProgress(w io.Writer, srcs []trace.Source, after, every time.Duration) *readProgress {
	total := inputBytes(srcs)
	return &readProgress{total: total, line: progress.StartOn(w, progress.Options{
		Program: "hbgtrace", Verb: "read", Unit: progress.Bytes, Total: total, After: after, Every: every})}
}

// inputBytes is the total size of srcs when every one is a plain file, 0
// when one is stdin or gzip-compressed (its decompressed size is unknown).
func inputBytes(srcs []trace.Source) int64 {
	var total int64
	for _, s := range srcs {
		if s.Name == "-" || strings.HasSuffix(s.Name, ".gz") {
			return 0
		}
		st, err := os.Stat(s.Name)
		if err != nil || !st.Mode().IsRegular() {
			return 0
		}
		total += st.Size()
	}
	return total
}

// counter is where the Reader counts the bytes it has read.
func (p *readProgress) counter() *atomic.Int64 {
	if p == nil {
		return nil
	}
	return p.line.Counter()
}

// finish stops the report and clears its line.
func (p *readProgress) finish() {
	if p == nil {
		return
	}
	p.line.Finish()
}
