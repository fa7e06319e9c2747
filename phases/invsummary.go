package phases

import (
	"sort"

	"github.com/hbgkit/hbgkit/trace"
)

// invSummary is what the TPOT table and the median tree read of one
// invocation: its key, its hid (that of its first span), the duration of
// its root (Invocation.Root) and, per span name, the earliest span of that
// name (Invocation.ByName). A stream keeps one per invocation instead of
// its spans.
type invSummary struct {
	pid     int64
	inv     uint64
	hid     string
	root    int64 // duration of the first depth-0 span, when hasRoot
	hasRoot bool
	names   []nameSpan // earliest span of each name, in order of first sight
	// index maps a name to its entry in names, once there are more than
	// linearNames: an invocation has tens of names, looked up in a list;
	// one of a hostile log's has millions, which a list makes quadratic.
	index map[int32]int32
}

// linearNames is how many names an invocation looks up in its list.
const linearNames = 64

// nameSpan is the earliest span of one name in an invocation; name is an
// index into the summaries' name table.
type nameSpan struct {
	ts, dur int64
	name    int32
	top     bool // depth 0
}

func (ns *nameSpan) end() int64 { return ns.ts + ns.dur }

// summaries holds invocation summaries and the names they refer to.
type summaries struct {
	invs    []*invSummary
	names   []string
	nameIdx map[string]int32
}

func newSummaries() *summaries {
	return &summaries{nameIdx: make(map[string]int32)}
}

func (sm *summaries) nameIndex(name string) int32 {
	i, ok := sm.nameIdx[name]
	if !ok {
		i = int32(len(sm.names))
		sm.names = append(sm.names, name)
		sm.nameIdx[name] = i
	}
	return i
}

// add takes the next span of invocation is, in log order, and returns the
// index of its name.
func (sm *summaries) add(is *invSummary, s *trace.Span) int32 {
	if s.Depth == 0 && !is.hasRoot {
		is.root, is.hasRoot = s.Dur, true
	}
	n := sm.nameIndex(s.Name)
	if ns := is.lookup(n); ns != nil {
		if s.Ts < ns.ts {
			*ns = nameSpan{ts: s.Ts, dur: s.Dur, name: n, top: s.Depth == 0}
		}
		return n
	}
	if len(is.names) == cap(is.names) && len(is.names) < linearNames {
		// Grow by a few: an invocation has tens of names, and doubling
		// would leave a third of a long log's summaries empty. Past
		// linearNames append doubles, or growing by a few would copy
		// a hostile invocation's names quadratically often.
		grown := make([]nameSpan, len(is.names), len(is.names)+4)
		copy(grown, is.names)
		is.names = grown
	}
	is.names = append(is.names, nameSpan{ts: s.Ts, dur: s.Dur, name: n, top: s.Depth == 0})
	switch {
	case is.index != nil:
		is.index[n] = int32(len(is.names) - 1)
	case len(is.names) > linearNames:
		is.index = make(map[int32]int32, 2*len(is.names))
		for i := range is.names {
			is.index[is.names[i].name] = int32(i)
		}
	}
	return n
}

// lookup returns the earliest span of name n, or nil.
func (is *invSummary) lookup(n int32) *nameSpan {
	if is.index != nil {
		if i, ok := is.index[n]; ok {
			return &is.names[i]
		}
		return nil
	}
	for i := range is.names {
		if is.names[i].name == n {
			return &is.names[i]
		}
	}
	return nil
}

// summaryBucket is the invocations of one callable, sorted by inv (stable),
// as trace.BucketByHid makes them.
type summaryBucket struct {
	hid  string
	invs []*invSummary
}

// buckets groups the summaries (sorted by (pid, inv)) by hid, in order of
// first appearance.
func (sm *summaries) buckets() []*summaryBucket {
	idx := make(map[string]*summaryBucket)
	var out []*summaryBucket
	for _, is := range sm.invs {
		b, ok := idx[is.hid]
		if !ok {
			b = &summaryBucket{hid: is.hid}
			idx[is.hid] = b
			out = append(out, b)
		}
		b.invs = append(b.invs, is)
	}
	for _, b := range out {
		sort.SliceStable(b.invs, func(i, j int) bool { return b.invs[i].inv < b.invs[j].inv })
	}
	return out
}

// bucketsBySize returns the buckets in descending size, ties in order.
func bucketsBySize(bs []*summaryBucket) []*summaryBucket {
	out := append([]*summaryBucket(nil), bs...)
	sort.SliceStable(out, func(i, j int) bool { return len(out[i].invs) > len(out[j].invs) })
	return out
}

// busiestSummary is trace.Busiest over summary buckets.
func busiestSummary(bs []*summaryBucket) int {
	busiest := -1
	for k, b := range bs {
		if busiest < 0 || len(b.invs) > len(bs[busiest].invs) {
			busiest = k
		}
	}
	return busiest
}

// bucketLabelAt is trace.BucketLabel of bucket b, which busiest says is
// (or is not) the busiest of its set: computing that once for every bucket
// keeps labelling linear in the number of callables.
func bucketLabelAt(b *summaryBucket, busiest bool) string {
	if busiest && len(b.invs) > 1 {
		return "decode"
	}
	if len(b.invs) == 1 {
		return "prefill"
	}
	if len(b.hid) > 8 {
		return b.hid[:8]
	}
	return b.hid
}

// An InvocationsCollector builds the TPOT table and the median tree from a
// stream of spans. It keeps per invocation its summary (the earliest span
// of each name, 24 bytes a name), and per callable the spans of the one
// invocation the tree is drawn from, never the log. Add every span in log
// order; the results are those the tests' batch twins ComputeTPOT and
// ComputeTree (oracles_test.go) make of
// trace.GroupInvocations(trace.InvocationSpans(spans)).
type InvocationsCollector struct {
	sm   *summaries
	idx  map[roundsKey]*invSummary
	last *invSummary
	// With the tree: per hid the invocation with the highest (inv, pid)
	// and what the tree reads of its spans.
	tree bool
	refs map[string]*treeRef
	// MaxSpans, when above 0, bounds the spans the tree keeps (those of
	// the reference invocations): the span past it is not kept, and Err
	// reports a *trace.TooManySpansError naming it.
	MaxSpans int
	held     int // spans in refs
	err      error
	bound    *trace.Bound
}

// Bound makes the collector count in b the invocations it holds and the
// names of an invocation past linearNames (a real one has tens); b.Err
// reports the span past it.
func (c *InvocationsCollector) Bound(b *trace.Bound) { c.bound = b }

type treeRef struct {
	is    *invSummary
	spans []refSpan
}

// NewInvocationsCollector returns an empty collector; with tree it also
// keeps what ComputeTree needs.
func NewInvocationsCollector(tree bool) *InvocationsCollector {
	return &InvocationsCollector{sm: newSummaries(), idx: make(map[roundsKey]*invSummary), tree: tree, refs: make(map[string]*treeRef)}
}

// Add takes the next span of the log; spans of the node and external
// families are ignored (trace.InvocationSpans).
func (c *InvocationsCollector) Add(s *trace.Span) {
	if !RoundsSpan(s.Name) {
		return
	}
	is := c.last
	if is == nil || is.pid != s.Pid || is.inv != s.Inv {
		k := roundsKey{s.Pid, s.Inv}
		is = c.idx[k]
		if is == nil {
			if !c.bound.Hold(s.Pos) {
				return
			}
			is = &invSummary{pid: s.Pid, inv: s.Inv, hid: s.Hid}
			c.idx[k] = is
			c.sm.invs = append(c.sm.invs, is)
			if c.tree {
				// The tree's invocation is the bucket's last: the highest
				// inv, among equal invs the highest pid.
				r := c.refs[is.hid]
				if r == nil || is.inv > r.is.inv || is.inv == r.is.inv && is.pid > r.is.pid {
					if r != nil {
						c.held -= len(r.spans)
					}
					c.refs[is.hid] = &treeRef{is: is}
				}
			}
		}
		c.last = is
	}
	names := len(is.names)
	n := c.sm.add(is, s)
	if len(is.names) > max(names, linearNames) && !c.bound.Hold(s.Pos) {
		return
	}
	if c.tree && c.err == nil {
		if r := c.refs[is.hid]; r.is == is {
			if c.held++; c.MaxSpans > 0 && c.held > c.MaxSpans {
				c.err = &trace.TooManySpansError{Max: c.MaxSpans, Pos: s.Pos, What: "spans in the invocations the tree is drawn from"}
				return
			}
			r.spans = append(r.spans, refSpan{ts: s.Ts, name: n, dev: s.IsDevice()})
		}
	}
}

// Err reports the span that went past MaxSpans, nil when none did. Read it
// as trace.Visitors.Err, so the read stops there.
func (c *InvocationsCollector) Err() error {
	if c.err != nil {
		return c.err
	}
	return c.bound.Err()
}

// sorted sorts the summaries by (pid, inv).
func (c *InvocationsCollector) sorted() *summaries {
	sort.Slice(c.sm.invs, func(i, j int) bool {
		a, b := c.sm.invs[i], c.sm.invs[j]
		if a.pid != b.pid {
			return a.pid < b.pid
		}
		return a.inv < b.inv
	})
	return c.sm
}

// TPOT returns the TPOT table of the spans added (ComputeTPOT).
func (c *InvocationsCollector) TPOT() *TPOT { return tpotOf(c.sorted()) }

// Tree returns the median tree of the spans added (ComputeTree); the
// collector must have been made with tree.
func (c *InvocationsCollector) Tree() *Tree {
	return treeOf(c.sorted(), func(is *invSummary) []refSpan { return c.refs[is.hid].spans })
}
