package phases

import (
	"math"
	"sort"
	"strings"
)

// A Tree is the median span tree of strace_timing --tree (`hbgtrace tree`,
// README.md "tree"), one per callable.
type Tree struct {
	// Callables come in descending invocation count; ties keep the order
	// in which the callables first appear.
	Callables []TreeCallable
}

// A TreeCallable is the median tree of one callable.
type TreeCallable struct {
	Hid         string
	Label       string // "decode", "prefill" or the first 8 characters of the hid
	Invocations int
	// Roots are the top spans of the callable's last invocation (highest
	// inv), in ascending start time.
	Roots []*TreeNode
}

// A TreeNode is one span of a callable's last invocation, with the median
// duration of its name over the callable's invocations.
type TreeNode struct {
	Name   string // full dotted name
	Leaf   string // last dotted segment ("Effective" for an orch/sched pair)
	Device bool   // the span is on the device clock
	// MedianNs is the median over the invocations that have the name
	// (each invocation's earliest span of that name).
	MedianNs float64
	N        int // invocations the median is over
	// Children are the spans named Name + ".<segment>", in ascending start
	// time. An orch/sched pair is replaced by one Effective node.
	Children []*TreeNode
	// Concurrent is set on an Effective node: it stands for the sibling
	// spans <parent>.orch and <parent>.sched, which run concurrently.
	// MedianNs is then the median over the N invocations that have both
	// of (latest end − earliest start).
	Concurrent *Concurrent
}

// Concurrent holds the two spans an Effective node stands for. Their
// children are not part of the tree.
type Concurrent struct {
	Orch, Sched *TreeNode
}

// A refSpan is what the tree reads of a span of the invocation it is
// drawn from: 16 bytes and no pointer, where a trace.Span is over a
// hundred with five strings for the collector to scan.
type refSpan struct {
	ts   int64
	name int32 // index into the summaries' name table
	dev  bool  // Span.IsDevice
}

// treeOf builds the median tree of invocation summaries sorted by (pid,
// inv); refSpans returns the spans, in log order, of the invocation each
// callable's tree is drawn from (its last).
func treeOf(sm *summaries, refSpans func(*invSummary) []refSpan) *Tree {
	buckets := sm.buckets()
	labels := make(map[*summaryBucket]string, len(buckets))
	busiest := busiestSummary(buckets)
	for i, b := range buckets {
		labels[b] = bucketLabelAt(b, i == busiest)
	}
	out := &Tree{}
	for _, b := range bucketsBySize(buckets) {
		out.Callables = append(out.Callables, treeCallable(sm, b, labels[b], refSpans(b.invs[len(b.invs)-1])))
	}
	return out
}

// treeBuilder holds one callable's per-name samples and the structure of
// its reference invocation.
type treeBuilder struct {
	sm       *summaries
	invs     []*invSummary
	durs     map[string][]int64
	children map[string][]*refSpan
	// built memoises the child nodes of a name: spans that share a name
	// share their children, which keeps memory linear when names repeat.
	built map[string][]*TreeNode
}

func treeCallable(sm *summaries, b *summaryBucket, label string, refs []refSpan) TreeCallable {
	tb := &treeBuilder{
		sm:       sm,
		invs:     b.invs,
		durs:     map[string][]int64{},
		children: map[string][]*refSpan{},
		built:    map[string][]*TreeNode{},
	}
	for _, is := range b.invs {
		for _, ns := range is.names {
			name := sm.names[ns.name]
			tb.durs[name] = append(tb.durs[name], ns.dur)
		}
	}
	names := make(map[string]bool, len(refs))
	for i := range refs {
		names[tb.name(&refs[i])] = true
	}
	var roots []*refSpan
	for i := range refs {
		s := &refs[i]
		if p, ok := treeParent(tb.name(s)); ok && names[p] {
			tb.children[p] = append(tb.children[p], s)
			continue
		}
		roots = append(roots, s)
	}
	c := TreeCallable{Hid: b.hid, Label: label, Invocations: len(b.invs)}
	c.Roots = tb.nodes(roots, false)
	return c
}

// treeParent returns the name minus its last dotted segment.
func treeParent(name string) (string, bool) {
	i := strings.LastIndexByte(name, '.')
	if i < 0 {
		return "", false
	}
	return name[:i], true
}

func treeLeaf(name string) string {
	return name[strings.LastIndexByte(name, '.')+1:]
}

// nodes turns sibling spans into nodes in ascending start time. Among
// children (not roots), an orch/sched pair becomes one Effective node in
// orch's place.
func (tb *treeBuilder) nodes(spans []*refSpan, children bool) []*TreeNode {
	sorted := append([]*refSpan(nil), spans...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].ts < sorted[j].ts })
	var orch, sched *refSpan
	if children {
		for _, s := range sorted {
			switch treeLeaf(tb.name(s)) {
			case "orch":
				if orch == nil {
					orch = s
				}
			case "sched":
				if sched == nil {
					sched = s
				}
			}
		}
	}
	pair := orch != nil && sched != nil
	out := make([]*TreeNode, 0, len(sorted))
	for _, s := range sorted {
		if pair {
			switch treeLeaf(tb.name(s)) {
			case "orch":
				out = append(out, tb.effective(s, sched))
				continue
			case "sched":
				continue
			}
		}
		n := tb.node(s)
		kids, ok := tb.built[tb.name(s)]
		if !ok {
			kids = tb.nodes(tb.children[tb.name(s)], true)
			tb.built[tb.name(s)] = kids
		}
		n.Children = kids
		out = append(out, n)
	}
	return out
}

func (tb *treeBuilder) node(s *refSpan) *TreeNode {
	name := tb.name(s)
	d := tb.durs[name]
	return &TreeNode{Name: name, Leaf: treeLeaf(name), Device: s.dev, MedianNs: medianInt(d), N: len(d)}
}

// name returns the name of s.
func (tb *treeBuilder) name(s *refSpan) string { return tb.sm.names[s.name] }

// effective builds the Effective node standing for orch and its sibling
// sched.
func (tb *treeBuilder) effective(orch, sched *refSpan) *TreeNode {
	parent, _ := treeParent(tb.name(orch))
	orchName, schedName := parent+".orch", parent+".sched"
	var ext []int64
	on, ook := tb.sm.nameIdx[orchName]
	sn, sok := tb.sm.nameIdx[schedName]
	for _, is := range tb.invs {
		if !ook || !sok {
			break
		}
		o, s := is.lookup(on), is.lookup(sn)
		if o == nil || s == nil {
			continue
		}
		ext = append(ext, max(o.end(), s.end())-min(o.ts, s.ts))
	}
	od, sd := tb.durs[orchName], tb.durs[schedName]
	return &TreeNode{
		Name:     parent + ".Effective",
		Leaf:     "Effective",
		Device:   true,
		MedianNs: medianInt(ext),
		N:        len(ext),
		Concurrent: &Concurrent{
			Orch:  &TreeNode{Name: orchName, Leaf: "orch", Device: orch.dev, MedianNs: medianInt(od), N: len(od)},
			Sched: &TreeNode{Name: schedName, Leaf: "sched", Device: sched.dev, MedianNs: medianInt(sd), N: len(sd)},
		},
	}
}

// Rows returns how many rows tr prints: one a span, three for an Effective
// node (itself, orch and sched; the text layout puts the last two on one
// line), counted up to limit+1 and no further. Spans that share a name
// share their children (TreeNode.Children), so the rows can be quadratic
// in the spans, or worse with deeper repeats: a caller checks them against
// a bound before writing anything.
func (tr *Tree) Rows(limit int) int {
	limit = min(max(limit, 0), math.MaxInt/4) // n+k below cannot overflow
	memo := map[*TreeNode]int{}
	var rows func(nodes []*TreeNode) int
	rows = func(nodes []*TreeNode) int {
		if len(nodes) == 0 {
			return 0
		}
		if n, ok := memo[nodes[0]]; ok {
			return n
		}
		n := 0
		for _, c := range nodes {
			k := 3
			if c.Concurrent == nil {
				k = 1 + rows(c.Children)
			}
			n = min(n+k, limit+1)
		}
		memo[nodes[0]] = n
		return n
	}
	n := 0
	for _, c := range tr.Callables {
		n = min(n+rows(c.Roots), limit+1)
	}
	return n
}
