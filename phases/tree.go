package phases

import (
	"sort"
	"strings"

	"github.com/hbgkit/hbgkit/trace"
)

// A Tree is the median span tree of strace_timing --tree (REFERENCE §3.5),
// one per callable.
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

// treeOf builds the median tree of invocation summaries sorted by (pid,
// inv); refSpans returns the spans, in log order, of the invocation each
// callable's tree is drawn from (its last).
func treeOf(sm *summaries, refSpans func(*invSummary) []*trace.Span) *Tree {
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
	children map[string][]*trace.Span
	// built memoises the child nodes of a name: spans that share a name
	// share their children, which keeps memory linear when names repeat.
	built map[string][]*TreeNode
}

func treeCallable(sm *summaries, b *summaryBucket, label string, refSpans []*trace.Span) TreeCallable {
	tb := &treeBuilder{
		sm:       sm,
		invs:     b.invs,
		durs:     map[string][]int64{},
		children: map[string][]*trace.Span{},
		built:    map[string][]*TreeNode{},
	}
	for _, is := range b.invs {
		for _, ns := range is.names {
			name := sm.names[ns.name]
			tb.durs[name] = append(tb.durs[name], ns.dur)
		}
	}
	names := make(map[string]bool, len(refSpans))
	for _, s := range refSpans {
		names[s.Name] = true
	}
	var roots []*trace.Span
	for _, s := range refSpans {
		if p, ok := treeParent(s.Name); ok && names[p] {
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
func (tb *treeBuilder) nodes(spans []*trace.Span, children bool) []*TreeNode {
	sorted := append([]*trace.Span(nil), spans...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Ts < sorted[j].Ts })
	var orch, sched *trace.Span
	if children {
		for _, s := range sorted {
			switch treeLeaf(s.Name) {
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
			switch treeLeaf(s.Name) {
			case "orch":
				out = append(out, tb.effective(s, sched))
				continue
			case "sched":
				continue
			}
		}
		n := tb.node(s)
		kids, ok := tb.built[s.Name]
		if !ok {
			kids = tb.nodes(tb.children[s.Name], true)
			tb.built[s.Name] = kids
		}
		n.Children = kids
		out = append(out, n)
	}
	return out
}

func (tb *treeBuilder) node(s *trace.Span) *TreeNode {
	d := tb.durs[s.Name]
	return &TreeNode{Name: s.Name, Leaf: treeLeaf(s.Name), Device: s.IsDevice(), MedianNs: medianInt(d), N: len(d)}
}

// effective builds the Effective node standing for orch and its sibling
// sched.
func (tb *treeBuilder) effective(orch, sched *trace.Span) *TreeNode {
	parent, _ := treeParent(orch.Name)
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
			Orch:  &TreeNode{Name: orchName, Leaf: "orch", Device: orch.IsDevice(), MedianNs: medianInt(od), N: len(od)},
			Sched: &TreeNode{Name: schedName, Leaf: "sched", Device: sched.IsDevice(), MedianNs: medianInt(sd), N: len(sd)},
		},
	}
}
