package swimlane

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// elementsPerPiece is about how many events a goroutine of elements
// formats at a time: 100–200 KB of text.
const elementsPerPiece = 512

// elements writes n elements of the array j is in, element i being what
// format(w, i) writes to w, in order i = 0, 1, …, n-1. The elements are
// formatted on every processor Go may use (GOMAXPROCS), per at a time
// into a buffer of their own, and the buffers are written to j in order,
// so the text is the same as from one goroutine. At most a few pieces per
// goroutine are held at once. newFormat is called once per goroutine, so
// that its format may keep scratch state of its own; format must only
// read what it shares with the others.
func (j *jsonWriter) elements(n, per int, newFormat func() func(w *jsonWriter, i int)) {
	workers := runtime.GOMAXPROCS(0)
	if per < 1 {
		per = 1
	}
	if workers < 2 || n <= per {
		format := newFormat()
		for i := 0; i < n; i++ {
			format(j, i)
		}
		return
	}
	top := len(j.first) - 1
	empty := j.first[top] // no comma before the first element
	j.first[top] = false

	type piece struct {
		lo, hi int
		w      *jsonWriter
		done   chan struct{}
	}
	inFlight := workers + 1
	ordered := make(chan *piece, inFlight)
	jobs := make(chan *piece, inFlight)
	free := make(chan *jsonWriter, inFlight+workers+1)
	var stop atomic.Bool // set once a write failed: nothing more is formatted
	go func() {
		defer close(jobs)
		defer close(ordered)
		for lo := 0; lo < n && !stop.Load(); lo += per {
			var w *jsonWriter
			select {
			case w = <-free:
				w.b = w.b[:0]
			default:
				w = &jsonWriter{}
			}
			// Inside an array whose next element needs a comma, except
			// before the very first.
			w.first = append(w.first[:0], lo == 0 && empty)
			p := &piece{lo: lo, hi: min(lo+per, n), w: w, done: make(chan struct{})}
			ordered <- p
			jobs <- p
		}
	}()
	var wg sync.WaitGroup
	wg.Add(workers)
	for range workers {
		go func() {
			defer wg.Done()
			format := newFormat()
			for p := range jobs {
				if !stop.Load() {
					for i := p.lo; i < p.hi; i++ {
						format(p.w, i)
					}
				}
				close(p.done)
			}
		}()
	}
	for p := range ordered {
		<-p.done
		if j.err == nil {
			j.writeOut()
		}
		if j.err == nil && len(p.w.b) > 0 {
			_, j.err = j.w.Write(p.w.b)
		}
		if j.err != nil {
			stop.Store(true)
		}
		select {
		case free <- p.w:
		default:
		}
	}
	wg.Wait()
}
