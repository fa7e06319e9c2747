package swimlane

import (
	"sort"
	"strings"

	"github.com/hbgkit/hbgkit/trace"
)

// Nesting follows the HBG accounting's containment rule (docs/accounting.md
// "2. Per-pass stages";
// phases.ComputePassMetrics, whose rule is a closure phases does not
// export): a span contains another when its interval [ts, ts+dur]
// includes the other's, inclusively, and nothing else decides it — not
// names, not depths. Of two spans with the same interval exactly one
// contains the other: one that is no host-to-device copy contains a copy
// (so a host_orch contains an upload with exactly its interval, whatever
// the log order), then the smaller depth, then the earlier one.

// isH2D reports whether a span name's last component is a host-to-device
// copy (the H2D copies of docs/accounting.md "2. Per-pass stages", under
// every spelling a bind segment takes).
func isH2D(name string) bool {
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		name = name[i+1:]
	}
	c, ok := trace.CanonicalSegment(name)
	return ok && trace.IsH2D(c)
}

// A nestSpan is what nesting looks at of a span: its interval, its
// depth and whether it is a host-to-device copy. The profile keeps spans
// in this form (and no more), so that nesting does not need trace.Span.
type nestSpan struct {
	ts, dur, end, depth int64
	h2d                 bool
}

func nestSpanOf(s *trace.Span) nestSpan {
	return nestSpan{ts: s.Ts, dur: s.Dur, end: s.End(), depth: s.Depth, h2d: isH2D(s.Name)}
}

func nestSpans(spans []*trace.Span) []nestSpan {
	out := make([]nestSpan, len(spans))
	for i, s := range spans {
		out[i] = nestSpanOf(s)
	}
	return out
}

// nestOrder sorts idx, indices into spans, so that every container comes
// before what it contains: by start, then by end descending, then by the
// tie-break of equal intervals.
func nestOrder(spans []nestSpan, idx []int) {
	sort.SliceStable(idx, func(a, b int) bool {
		x, y := &spans[idx[a]], &spans[idx[b]]
		if x.ts != y.ts {
			return x.ts < y.ts
		}
		if x.end != y.end {
			return x.end > y.end
		}
		if x.h2d != y.h2d {
			return y.h2d
		}
		if x.depth != y.depth {
			return x.depth < y.depth
		}
		return idx[a] < idx[b]
	})
}

// nestParents returns, for every span of one group (one thread and
// invocation), the index of its parent — the innermost span of the group
// that contains it — or -1, and the order nestOrder gives.
func nestParents(spans []*trace.Span) (parent, order []int) {
	return nestTree(nestSpans(spans))
}

// nestTree is nestParents of spans in their nesting form.
func nestTree(spans []nestSpan) (parent, order []int) {
	order = make([]int, len(spans))
	for i := range order {
		order[i] = i
	}
	nestOrder(spans, order)
	parent = make([]int, len(spans))
	var stack []int
	for _, i := range order {
		// Every span on the stack starts no later than i; it contains i
		// when it ends no earlier.
		for len(stack) > 0 && spans[stack[len(stack)-1]].end < spans[i].end {
			stack = stack[:len(stack)-1]
		}
		parent[i] = -1
		if len(stack) > 0 {
			parent[i] = stack[len(stack)-1]
		}
		stack = append(stack, i)
	}
	return parent, order
}

// selfTimes returns every span's self time: its duration minus the union
// of its children's intervals (children may overlap one another; the
// time is counted once), never negative.
func selfTimes(spans []*trace.Span, parent, order []int) []int64 {
	return nestSelfTimes(nestSpans(spans), parent, order)
}

// nestSelfTimes is selfTimes of spans in their nesting form.
func nestSelfTimes(spans []nestSpan, parent, order []int) []int64 {
	self := make([]int64, len(spans))
	for i := range spans {
		self[i] = spans[i].dur
	}
	// In nest order, a parent's children come by start; merge their
	// intervals as they come.
	covEnd := make([]int64, len(spans))
	for i := range spans {
		covEnd[i] = spans[i].ts
	}
	for _, i := range order {
		p := parent[i]
		if p < 0 {
			continue
		}
		c := &spans[i]
		start := max(c.ts, covEnd[p])
		if c.end > start {
			self[p] -= c.end - start
			covEnd[p] = c.end
		}
	}
	for i := range self {
		self[i] = max(0, self[i])
	}
	return self
}
