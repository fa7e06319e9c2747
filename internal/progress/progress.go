// Package progress shows how far a long job has got, on one line of a
// terminal: "hbgtrace: read 40 of 95 MB (42%), about 3s left" or
// "hbgbench: 12 of 22 blocks (55%) r006-head-a1-t1, about 2m left". It is
// the one progress display of hbgtrace and hbgbench: the same terminal
// detection, the same look, nothing at all when the output is not a
// terminal.
package progress

import (
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/term"
)

// Terminal reports whether w is a terminal (a *os.File on a tty).
func Terminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// A Unit says how the counts read: bytes are shown in MB, anything else
// as a number followed by the unit's name.
type Unit string

// Bytes counts bytes, shown in whole MB.
const Bytes Unit = "MB"

// Options set a Line: the program's name first on the line, the verb of
// its work ("read", or "" for none), the unit, the total (0 when unknown),
// how long the job runs before the line first shows (so that short jobs
// show nothing) and how often it is redrawn.
type Options struct {
	Program string
	Verb    string
	Unit    Unit
	Total   int64
	After   time.Duration
	Every   time.Duration
}

// A Line reports a job's progress on a terminal until Finish. The nil
// *Line reports nothing, so a caller need not check.
type Line struct {
	opts  Options
	w     io.Writer
	n     atomic.Int64
	label atomic.Value // string
	start time.Time
	stop  chan struct{}
	done  sync.WaitGroup
	mu    sync.Mutex
	shown bool
}

// Start starts a Line on w when w is a terminal, and returns nil
// otherwise.
func Start(w io.Writer, opts Options) *Line {
	if !Terminal(w) {
		return nil
	}
	return StartOn(w, opts)
}

// StartOn starts a Line on w, terminal or not (tests).
func StartOn(w io.Writer, opts Options) *Line {
	if opts.Every <= 0 {
		opts.Every = 500 * time.Millisecond
	}
	l := &Line{opts: opts, w: w, start: time.Now(), stop: make(chan struct{})}
	l.label.Store("")
	l.done.Add(1)
	go l.run()
	return l
}

// Counter is the count a job may add to directly (a reader's bytes).
func (l *Line) Counter() *atomic.Int64 {
	if l == nil {
		return nil
	}
	return &l.n
}

// Set sets the count done and the label shown after it, and redraws the
// line once it shows.
func (l *Line) Set(n int64, label string) {
	if l == nil {
		return
	}
	l.n.Store(n)
	l.label.Store(label)
	l.mu.Lock()
	shown := l.shown
	l.mu.Unlock()
	if shown {
		l.draw()
	}
}

func (l *Line) run() {
	defer l.done.Done()
	select {
	case <-l.stop:
		return
	case <-time.After(l.opts.After):
	}
	t := time.NewTicker(l.opts.Every)
	defer t.Stop()
	for {
		l.draw()
		select {
		case <-l.stop:
			return
		case <-t.C:
		}
	}
}

// Text is the line as it is drawn for n done of total after elapsed.
func Text(opts Options, n int64, label string, elapsed time.Duration) string {
	scale := func(x int64) int64 {
		if opts.Unit == Bytes {
			return x >> 20
		}
		return x
	}
	s := opts.Program + ":"
	if opts.Verb != "" {
		s += " " + opts.Verb
	}
	if opts.Total > 0 {
		s += fmt.Sprintf(" %d of %d %s (%d%%)", scale(n), scale(opts.Total), opts.Unit, n*100/opts.Total)
	} else {
		s += fmt.Sprintf(" %d %s", scale(n), opts.Unit)
	}
	if label != "" {
		s += " " + label
	}
	if opts.Total > 0 && n > 0 && n < opts.Total && elapsed > time.Second {
		left := time.Duration(float64(elapsed) * float64(opts.Total-n) / float64(n))
		s += ", about " + left.Round(time.Second).String() + " left"
	}
	return s
}

func (l *Line) draw() {
	text := Text(l.opts, l.n.Load(), l.label.Load().(string), time.Since(l.start))
	l.mu.Lock()
	defer l.mu.Unlock()
	fmt.Fprint(l.w, "\r"+text+"\x1b[K")
	l.shown = true
}

// Finish stops the line and clears it.
func (l *Line) Finish() {
	if l == nil {
		return
	}
	close(l.stop)
	l.done.Wait()
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.shown {
		fmt.Fprint(l.w, "\r\x1b[K")
	}
}
