package swimlane

import (
	"math"
	"sort"
	"strings"

	"github.com/hbgkit/hbgkit/trace"
)

// bindPhaseSpans recovers chip.run.bind.<phase> spans from the log's
// `bind phase=` lines (docs/swimlanes.md "4. The bind's prepare path"),
// taking only the lines that match
// strace_timing's strict pattern (Enveloped).
//
// A line goes under a host chip.run.bind that contains its interval
// (inclusive). Unlike the reference, which takes the first containing bind
// of any process, a bind written by the same log thread ([T0x…]) is
// preferred, so that forked ranks with overlapping binds keep their own
// lines (docs/formats.md "bind phase= lines, E1 and E2", Attaching
// passes). When several binds of that thread contain the line
// (forked ranks can share a T0x value), the one whose start is closest to
// the earliest segment of the line's pass wins; a pass is a run of one
// thread's lines in enum order. With no bind of its thread, the first
// containing bind decides. A bind the artifact covers takes no lines.
func bindPhaseSpans(spans []trace.Span, lines []trace.BindPhase, covered map[invKey]bool) []trace.Span {
	var out []trace.Span
	eachBindPhaseSpan(spans, lines, covered, func(s *trace.Span) {
		if out == nil {
			// At most one span a line: room for them all at once, up
			// to 131,072 (18 MB), rather than doubling from one
			// (copying 136-byte spans under the collector's write
			// barrier cost a tenth of the 100 MB log's swimlane); past
			// that, doubling, so that a log of many lines that few binds
			// take costs what it takes.
			out = make([]trace.Span, 0, min(len(lines), 1<<17))
		}
		out = append(out, *s)
	})
	return out
}

// eachBindPhaseSpan calls yield with each span bindPhaseSpans returns, in
// its order, without holding them; the span is valid during the call.
func eachBindPhaseSpan(spans []trace.Span, lines []trace.BindPhase, covered map[invKey]bool, yield func(*trace.Span)) {
	var binds []*trace.Span
	for i := range spans {
		if spans[i].Name == "chip.run.bind" && !spans[i].IsDevice() {
			binds = append(binds, &spans[i])
		}
	}
	if len(binds) == 0 {
		return
	}
	passStart := passStarts(lines)
	idx := newBindIndex(binds)
	names := make(map[string]string) // phase → span name, made once

	var s trace.Span // reused: yield gets it for the call only
	for i := range lines {
		bp := &lines[i]
		if !bp.Enveloped {
			continue
		}
		parent := idx.choose(bp, passStart[i])
		if parent == nil || covered[invKey{parent.Pid, parent.Inv}] {
			continue
		}
		attrs := strings.TrimSpace(strings.TrimSpace(bp.Attrs) + " log_thread=0x" + bp.Thread + " src=bind_phase")
		name, ok := names[bp.Phase]
		if !ok {
			name = "chip.run.bind." + bp.Phase
			names[bp.Phase] = name
		}
		s = trace.Span{
			Pid: parent.Pid, Tid: parent.Tid, Inv: parent.Inv, Hid: parent.Hid,
			Depth: parent.Depth + 1,
			Name:  name,
			Ts:    bp.StartNs, Dur: bp.DurNs,
			Attrs:  attrs,
			Thread: bp.Thread,
			Pos:    bp.Pos,
		}
		yield(&s)
	}
}

// A bindIndex finds the binds that contain an interval without looking at
// every bind: a line used to scan all of them, which made the 100 MB log's
// 96,000 lines against 9,600 binds two thirds of swimlane's time.
type bindIndex struct {
	binds  []*trace.Span
	byTs   []int   // indices into binds of the regular binds, by Ts
	ts     []int64 // their Ts, in that order
	maxDur int64   // the longest regular bind
	odd    []int   // binds with a negative duration or an end past int64: always looked at
}

func newBindIndex(binds []*trace.Span) *bindIndex {
	x := &bindIndex{binds: binds}
	for i, b := range binds {
		if b.Dur < 0 || b.End() < b.Ts {
			x.odd = append(x.odd, i)
			continue
		}
		x.byTs = append(x.byTs, i)
		x.maxDur = max(x.maxDur, b.Dur)
	}
	sort.SliceStable(x.byTs, func(a, b int) bool { return binds[x.byTs[a]].Ts < binds[x.byTs[b]].Ts })
	x.ts = make([]int64, len(x.byTs))
	for k, i := range x.byTs {
		x.ts[k] = binds[i].Ts
	}
	return x
}

// choose picks the parent bind of one line, or nil: of the binds that
// contain it, the one of its own log thread whose start is closest to
// passStart (the first in log order of equals), else the first in log
// order. A regular bind that contains the line starts at most maxDur
// before the line's end, so only the binds starting in [end-maxDur, start]
// are candidates.
func (x *bindIndex) choose(bp *trace.BindPhase, passStart int64) *trace.Span {
	end := bp.End()
	lo := end - x.maxDur
	if lo > end { // past the int64 range
		lo = math.MinInt64
	}
	from := sort.Search(len(x.ts), func(k int) bool { return x.ts[k] >= lo })
	first, own := -1, -1
	consider := func(i int) {
		b := x.binds[i]
		if b.Ts > bp.StartNs || end > b.End() {
			return
		}
		if first < 0 || i < first {
			first = i
		}
		if b.Thread != bp.Thread {
			return
		}
		if own < 0 {
			own = i
			return
		}
		d, od := absDiff(b.Ts, passStart), absDiff(x.binds[own].Ts, passStart)
		if d < od || d == od && i < own {
			own = i
		}
	}
	for k := from; k < len(x.ts) && x.ts[k] <= bp.StartNs; k++ {
		consider(x.byTs[k])
	}
	for _, i := range x.odd {
		consider(i)
	}
	if own >= 0 {
		return x.binds[own]
	}
	if first >= 0 {
		return x.binds[first]
	}
	return nil
}

func absDiff(a, b int64) uint64 {
	if a > b {
		return uint64(a) - uint64(b)
	}
	return uint64(b) - uint64(a)
}

// passStarts returns, for each enveloped line, the earliest segment start
// of its pass (trace.GroupPasses: one log thread's lines in enum order);
// lines that are not enveloped get 0. It keeps of each pass its thread,
// its size and its start, not a copy of its lines.
func passStarts(lines []trace.BindPhase) []int64 {
	type pass struct {
		thread string
		n      int
		start  int64
	}
	var passes []pass
	g := trace.NewPassGrouper(func(i int, p trace.Pass) {
		for len(passes) <= i {
			passes = append(passes, pass{})
		}
		start, _ := p.Span()
		passes[i] = pass{p.Thread, len(p.Segments), start}
	})
	for i := range lines {
		if lines[i].Enveloped {
			g.Add(&lines[i])
		}
	}
	g.Close()
	// The grouper gives each thread's lines to that thread's passes in
	// log order, so walking the lines again with one cursor per thread
	// finds each line's pass.
	byThread := make(map[string][]int)
	for p := range passes {
		byThread[passes[p].thread] = append(byThread[passes[p].thread], p)
	}
	type cursor struct{ k, used int }
	cur := make(map[string]*cursor)
	out := make([]int64, len(lines))
	for i := range lines {
		if !lines[i].Enveloped {
			continue
		}
		th := lines[i].Thread
		c := cur[th]
		if c == nil {
			c = &cursor{}
			cur[th] = c
		}
		if c.used == passes[byThread[th][c.k]].n {
			c.k, c.used = c.k+1, 0
		}
		c.used++
		out[i] = passes[byThread[th][c.k]].start
	}
	return out
}
