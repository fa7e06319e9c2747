package trace

import "sort"

// InvocationSpans returns the spans that belong to invocations: every span
// whose family is neither node nor external (unknown families are kept on
// purpose, as the reference keeps them). TPOT, rounds, tree and the Chrome
// trace use only these; the swimlane uses every span.
func InvocationSpans(spans []Span) []*Span {
	out := make([]*Span, 0, len(spans))
	for i := range spans {
		switch Family(spans[i].Name) {
		case FamilyNode, FamilyExternal:
			continue
		}
		out = append(out, &spans[i])
	}
	return out
}

// An Invocation is the spans of one (pid, inv), in log order.
type Invocation struct {
	Pid   int64
	Inv   uint64
	Hid   string // the hid of its first span
	Spans []*Span
}

// Root returns the first span in log order with depth 0, or nil.
func (iv *Invocation) Root() *Span {
	for _, s := range iv.Spans {
		if s.Depth == 0 {
			return s
		}
	}
	return nil
}

// ByName maps each name to its span with the smallest Ts; ties keep the
// first seen.
func (iv *Invocation) ByName() map[string]*Span {
	m := make(map[string]*Span, len(iv.Spans))
	for _, s := range iv.Spans {
		if cur, ok := m[s.Name]; !ok || s.Ts < cur.Ts {
			m[s.Name] = s
		}
	}
	return m
}

// Lookup returns the span ByName would map name to, without building the map.
func (iv *Invocation) Lookup(name string) *Span {
	var best *Span
	for _, s := range iv.Spans {
		if s.Name == name && (best == nil || s.Ts < best.Ts) {
			best = s
		}
	}
	return best
}

type invKey struct {
	pid int64
	inv uint64
}

// GroupInvocations groups spans by (pid, inv), sorted by (pid, inv); spans
// inside keep their input order. The invocations' span lists share one
// array (each capped at its length), filled in a second pass once the
// invocations are counted, rather than each grown from empty.
func GroupInvocations(spans []*Span) []*Invocation {
	idx := make(map[invKey]int32)
	var out []*Invocation
	var count []int
	of := make([]int32, len(spans)) // the invocation of each span
	// The last few invocations seen, in front of the map: the spans of
	// the ranks' current invocations come interleaved.
	var recent [4]struct {
		k invKey
		i int32
	}
	nrecent := 0
	for n, s := range spans {
		k := invKey{s.Pid, s.Inv}
		i := int32(-1)
		for r := 0; r < nrecent; r++ {
			if recent[r].k == k {
				i = recent[r].i
				break
			}
		}
		if i < 0 {
			j, ok := idx[k]
			if !ok {
				j = int32(len(out))
				idx[k] = j
				out = append(out, &Invocation{Pid: s.Pid, Inv: s.Inv, Hid: s.Hid})
				count = append(count, 0)
			}
			i = j
			copy(recent[1:], recent[:len(recent)-1])
			recent[0].k, recent[0].i = k, i
			nrecent = min(nrecent+1, len(recent))
		}
		of[n] = i
		count[i]++
	}
	all := make([]*Span, len(spans))
	off := 0
	for i, iv := range out {
		iv.Spans = all[off : off : off+count[i]]
		off += count[i]
	}
	for n, s := range spans {
		iv := out[of[n]]
		iv.Spans = append(iv.Spans, s)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Pid != out[j].Pid {
			return out[i].Pid < out[j].Pid
		}
		return out[i].Inv < out[j].Inv
	})
	return out
}

// A Bucket is the invocations of one callable (hid), sorted by inv (stable,
// so equal inv from different pids keep pid order).
type Bucket struct {
	Hid  string
	Invs []*Invocation
	set  *bucketSet // the BucketByHid result the bucket belongs to
}

// bucketSet remembers, for a slice BucketByHid returned, its backing array
// and its busiest bucket, so that labelling every bucket is linear in the
// number of buckets rather than quadratic.
type bucketSet struct {
	first   **Bucket // &out[0]
	n       int
	busiest int
}

// BucketByHid groups invocations by hid; buckets come in order of first
// appearance.
func BucketByHid(invs []*Invocation) []*Bucket {
	idx := make(map[string]*Bucket)
	var out []*Bucket
	for _, iv := range invs {
		b, ok := idx[iv.Hid]
		if !ok {
			b = &Bucket{Hid: iv.Hid}
			idx[iv.Hid] = b
			out = append(out, b)
		}
		b.Invs = append(b.Invs, iv)
	}
	for _, b := range out {
		sort.SliceStable(b.Invs, func(i, j int) bool { return b.Invs[i].Inv < b.Invs[j].Inv })
	}
	if len(out) > 0 {
		set := &bucketSet{first: &out[0], n: len(out), busiest: Busiest(out)}
		for _, b := range out {
			b.set = set
		}
	}
	return out
}

// busiestOf is Busiest, in constant time when buckets is the slice
// BucketByHid returned, as it returned it.
func busiestOf(buckets []*Bucket) int {
	if len(buckets) > 0 {
		if set := buckets[0].set; set != nil && set.n == len(buckets) && set.first == &buckets[0] {
			return set.busiest
		}
	}
	return Busiest(buckets)
}

// Busiest returns the index of the bucket with the most invocations (ties:
// the first), or -1 when there are none.
func Busiest(buckets []*Bucket) int {
	best := -1
	for i, b := range buckets {
		if best < 0 || len(b.Invs) > len(buckets[best].Invs) {
			best = i
		}
	}
	return best
}

// BucketLabel labels bucket i: "decode" for the busiest bucket with more
// than one invocation, else "prefill" for a bucket of exactly one, else the
// first eight characters of the hid.
//
// On the slice BucketByHid returned (not reordered in place) it takes
// constant time; on any other slice, time linear in its length.
func BucketLabel(buckets []*Bucket, i int) string {
	b := buckets[i]
	if len(b.Invs) == 1 {
		return "prefill"
	}
	if len(b.Invs) > 1 && i == busiestOf(buckets) {
		return "decode"
	}
	if len(b.Hid) > 8 {
		return b.Hid[:8]
	}
	return b.Hid
}

// SpanBlocks keeps the spans a StreamLog visitor hands it (Add), in blocks
// that are never copied again: a Log's Spans are joined into one slice
// once the read ends, a second copy of every span, made while the
// collector marks. It bounds what it keeps as ReadOptions.MaxSpans does.
type SpanBlocks struct {
	// Max, when above 0, bounds the spans kept: the span past it is not
	// kept, and Err reports it from then on.
	Max   int
	list  blockList[Span]
	bound Bound
}

// Add keeps a copy of s, unless the bound is passed.
func (b *SpanBlocks) Add(s *Span) {
	b.bound.Max = b.Max
	if b.bound.Hold(s.Pos) {
		b.list.add(s)
	}
}

// Err returns the *TooManySpansError of the span that passed Max, or nil:
// a Visitors.Err.
func (b *SpanBlocks) Err() error { return b.bound.Err() }

// InvocationSpans returns the spans kept that belong to an invocation, as
// the function InvocationSpans does, in order. The pointers are into the
// blocks, which are not copied.
func (b *SpanBlocks) InvocationSpans() []*Span {
	n := 0
	for _, x := range b.list.blocks {
		n += len(x)
	}
	out := make([]*Span, 0, n)
	for _, x := range b.list.blocks {
		out = append(out, InvocationSpans(x)...)
	}
	return out
}
