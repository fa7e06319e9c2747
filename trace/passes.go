package trace

import (
	"cmp"
	"slices"
	"sort"
	"strconv"
)

// A Pass is one bind pass of E1/E2 logs (docs/formats.md "bind phase=
// lines, E1 and E2", Passes): the `bind phase=`
// lines one log thread wrote for one bind, in log order.
type Pass struct {
	Thread   string // the [T0x…] hex of the lines' envelopes ("" when none)
	Segments []BindPhase
	// Bind is the chip.run.bind span the pass belongs to (see
	// AttachPasses), nil when none contains it; it gives the pass its pid
	// and inv.
	Bind *Span
}

// Span returns the earliest segment start and the latest segment end.
func (p *Pass) Span() (start, end int64) {
	for i, s := range p.Segments {
		if i == 0 || s.StartNs < start {
			start = s.StartNs
		}
		if e := s.End(); i == 0 || e > end {
			end = e
		}
	}
	return start, end
}

// GroupPasses groups bind-phase lines into passes. A pass is a run of lines
// of one log thread in segment-enum order: a line of a known segment whose
// enum index does not increase over the thread's previous known segment
// starts a new pass; a phase outside the enum joins the thread's current
// pass. Threads interleave in the log (forked ranks), so each keeps its own
// open pass. Passes come in the order of their first line.
func GroupPasses(lines []BindPhase) []Pass {
	var out []Pass
	g := NewPassGrouper(func(i int, p Pass) {
		for len(out) <= i {
			out = append(out, Pass{})
		}
		p.Segments = append([]BindPhase(nil), p.Segments...)
		out[i] = p
	})
	for i := range lines {
		g.Add(&lines[i])
	}
	g.Close()
	return out
}

// PassKey identifies a pass by its thread and every segment's phase,
// start and duration, in order: two passes with one key are the same pass
// read twice (one log given twice, or a copy of it), since no two binds of
// a thread start their segments at the same nanosecond.
func PassKey(p Pass) string {
	var b []byte
	b = append(b, p.Thread...)
	for _, s := range p.Segments {
		b = append(b, 0)
		b = append(b, s.Phase...)
		b = append(b, 0)
		b = strconv.AppendInt(b, s.StartNs, 10)
		b = append(b, ' ')
		b = strconv.AppendInt(b, s.DurNs, 10)
	}
	return string(b)
}

// A PassGrouper is GroupPasses over a stream: it groups lines as they are
// read and hands each pass over as soon as it is complete (when its thread
// starts another pass, or at Close), so a reader keeps only what it makes
// of finished passes, never all the lines.
type PassGrouper struct {
	// Bound, when set, counts each pass opened and each line of a pass
	// past its passLinesFree-th (a real pass has tens); a line it
	// refuses is not kept.
	Bound *Bound
	done  func(index int, p Pass)
	open  map[string]*openPass
	last  *openPass // the open pass of the last line's thread
	n     int
}

type openPass struct {
	index int
	last  int // enum index of the last known segment, -1 if none yet
	pass  Pass
}

// NewPassGrouper returns a PassGrouper that calls done with each complete
// pass and its index, the pass's position in GroupPasses' order (the order
// of first lines). Passes of different threads complete out of that order.
// The pass's Segments are the grouper's: done must copy what it keeps.
func NewPassGrouper(done func(index int, p Pass)) *PassGrouper {
	return &PassGrouper{done: done, open: make(map[string]*openPass)}
}

// passLinesFree is how many lines of a pass a Bound does not count: a
// real pass has tens.
const passLinesFree = 64

// Add adds the next line of the log (copied).
func (g *PassGrouper) Add(l *BindPhase) {
	idx := SegmentIndex(l.Phase)
	o := g.last
	if o == nil || o.pass.Thread != l.Thread {
		o = g.open[l.Thread]
	}
	if o == nil || (idx >= 0 && o.last >= 0 && idx <= o.last) {
		if !g.Bound.Hold(l.Pos) {
			return
		}
		var segs []BindPhase
		if o != nil {
			g.done(o.index, o.pass)
			segs = o.pass.Segments
		} else {
			o = &openPass{}
			g.open[l.Thread] = o
		}
		*o = openPass{index: g.n, last: -1, pass: Pass{Thread: l.Thread, Segments: segs[:0]}}
		g.n++
	}
	g.last = o
	if len(o.pass.Segments) >= passLinesFree && !g.Bound.Hold(l.Pos) {
		return
	}
	o.pass.Segments = append(o.pass.Segments, *l)
	if idx >= 0 {
		o.last = idx
	}
}

// Close hands over the passes still open, in index order.
func (g *PassGrouper) Close() {
	open := make([]*openPass, 0, len(g.open))
	for _, o := range g.open {
		open = append(open, o)
	}
	sort.Slice(open, func(i, j int) bool { return open[i].index < open[j].index })
	for _, o := range open {
		g.done(o.index, o.pass)
	}
	clear(g.open)
	g.last = nil
}

// IsBindSpan reports whether s is a host bind span: chip.run.bind, or the
// legacy simpler_run.bind, not on the device clock.
func IsBindSpan(s *Span) bool {
	return (s.Name == "chip.run.bind" || s.Name == "simpler_run.bind") && !s.IsDevice()
}

// AttachPasses sets each pass's Bind: the host bind span (IsBindSpan) that
// contains all its segments, start and end inclusive. Binds written by the
// pass's own thread (same Span.Thread) are preferred; among the candidates
// the one whose start is closest to the pass's earliest segment start wins,
// ties going to the first in span order. A pass that no bind contains keeps
// Bind nil. Bind points into spans.
func AttachPasses(passes []Pass, spans []Span) {
	ext := make([]PassExtent, len(passes))
	for p := range passes {
		passes[p].Bind = nil
		if len(passes[p].Segments) == 0 {
			ext[p].Empty = true
			continue
		}
		ext[p].Thread = passes[p].Thread
		ext[p].Start, ext[p].End = passes[p].Span()
	}
	var binds []BindExtent
	var at []int // index in spans of each bind
	for i := range spans {
		if IsBindSpan(&spans[i]) {
			binds = append(binds, BindExtentOf(&spans[i]))
			at = append(at, i)
		}
	}
	for p, i := range FindBinds(ext, binds) {
		if i >= 0 {
			passes[p].Bind = &spans[at[i]]
		}
	}
}

// A PassExtent is what AttachPasses reads of a pass: its log thread and
// the extent of its segments (Pass.Span). An Empty pass gets no bind.
type PassExtent struct {
	Thread     string
	Start, End int64
	Empty      bool
}

// A BindExtent is what AttachPasses reads of a host bind span (IsBindSpan):
// its log thread and its interval.
type BindExtent struct {
	Thread     string
	Start, End int64
}

// BindExtentOf returns the extent of a bind span.
func BindExtentOf(s *Span) BindExtent { return BindExtent{Thread: s.Thread, Start: s.Ts, End: s.End()} }

// FindBinds returns, for each pass extent, the index in binds of the bind
// AttachPasses would attach to the pass, or -1. binds are the host bind
// spans of a log (IsBindSpan), in log order.
func FindBinds(passes []PassExtent, binds []BindExtent) []int {
	type cand struct {
		ts, end int64
		i       int // index into binds
	}
	all := make([]cand, 0, len(binds))
	byThread := make(map[string][]cand)
	for i := range binds {
		c := cand{binds[i].Start, binds[i].End, i}
		all = append(all, c)
		byThread[binds[i].Thread] = append(byThread[binds[i].Thread], c)
	}
	// Sorted by start; maxEnd[k] is the latest end among the first k+1, so
	// a backward walk stops as soon as nothing earlier can contain the pass.
	type index struct {
		c      []cand
		maxEnd []int64
	}
	build := func(c []cand) index {
		slices.SortStableFunc(c, func(a, b cand) int { return cmp.Compare(a.ts, b.ts) })
		m := make([]int64, len(c))
		for k := range c {
			m[k] = c[k].end
			if k > 0 && m[k-1] > m[k] {
				m[k] = m[k-1]
			}
		}
		return index{c, m}
	}
	find := func(ix index, start, end int64) int {
		// The closest start is the latest start <= start; among equal
		// starts the first in span order.
		k := sort.Search(len(ix.c), func(k int) bool { return ix.c[k].ts > start }) - 1
		best := -1
		var bestTs int64
		for ; k >= 0 && ix.maxEnd[k] >= end; k-- {
			c := ix.c[k]
			if best >= 0 && c.ts < bestTs {
				break
			}
			if c.end >= end && (best < 0 || c.i < best) {
				best, bestTs = c.i, c.ts
			}
		}
		return best
	}
	allIx := build(all)
	threadIx := make(map[string]index, len(byThread))
	for th, c := range byThread {
		threadIx[th] = build(c)
	}
	out := make([]int, len(passes))
	for p := range passes {
		out[p] = -1
		if passes[p].Empty {
			continue
		}
		start, end := passes[p].Start, passes[p].End
		best := -1
		if ix, ok := threadIx[passes[p].Thread]; ok {
			best = find(ix, start, end)
		}
		if best < 0 {
			best = find(allIx, start, end)
		}
		out[p] = best
	}
	return out
}
