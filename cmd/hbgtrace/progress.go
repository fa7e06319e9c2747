package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hbgkit/hbgkit/internal/hugeheap"
	"github.com/hbgkit/hbgkit/trace"
)

// Long reads show how far they are: after progressAfter, every
// progressEvery, "read X of Y MB" on stderr, when stderr is a terminal.
const (
	progressAfter = 2 * time.Second
	progressEvery = 500 * time.Millisecond
)

// A progress reports a long read on a terminal. The zero value and a nil
// *progress report nothing.
type progress struct {
	n     atomic.Int64
	stop  chan struct{}
	done  sync.WaitGroup
	w     io.Writer
	total int64 // bytes of the inputs, 0 when unknown (stdin, gzip)
	shown bool
}

// startRead readies a read of srcs: huge pages under the heap it will fill
// (internal/hugeheap), and its progress on stderr (startProgress). Call
// finish on the result when the read ends.
func startRead(stderr io.Writer, srcs []trace.Source) *progress {
	hugeheap.Prepare(hugeheap.ForRead(inputBytes(srcs)))
	return startProgress(stderr, srcs)
}

// startProgress starts reporting the read of srcs on stderr when stderr is
// a terminal; it returns nil otherwise. Call finish when the read ends.
func startProgress(stderr io.Writer, srcs []trace.Source) *progress {
	f, ok := stderr.(*os.File)
	if !ok {
		return nil
	}
	if st, err := f.Stat(); err != nil || st.Mode()&os.ModeCharDevice == 0 {
		return nil
	}
	return newProgress(f, srcs, progressAfter, progressEvery)
}

func newProgress(w io.Writer, srcs []trace.Source, after, every time.Duration) *progress {
	p := &progress{stop: make(chan struct{}), w: w, total: inputBytes(srcs)}
	p.done.Add(1)
	go p.run(after, every)
	return p
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
func (p *progress) counter() *atomic.Int64 {
	if p == nil {
		return nil
	}
	return &p.n
}

func (p *progress) run(after, every time.Duration) {
	defer p.done.Done()
	select {
	case <-p.stop:
		return
	case <-time.After(after):
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		p.show()
		select {
		case <-p.stop:
			return
		case <-t.C:
		}
	}
}

func (p *progress) show() {
	const mb = 1 << 20
	n := p.n.Load()
	if p.total > 0 {
		fmt.Fprintf(p.w, "\rhbgtrace: read %d of %d MB (%d%%)", n/mb, p.total/mb, n*100/p.total)
	} else {
		fmt.Fprintf(p.w, "\rhbgtrace: read %d MB", n/mb)
	}
	p.shown = true
}

// finish stops the report and clears its line.
func (p *progress) finish() {
	if p == nil {
		return
	}
	close(p.stop)
	p.done.Wait()
	if p.shown {
		fmt.Fprint(p.w, "\r\x1b[K")
	}
}
