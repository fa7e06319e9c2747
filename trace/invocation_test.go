package trace

import (
	"math/rand/v2"
	"sort"
	"testing"
)

// TestGroupInvocationsMatchesAMap holds GroupInvocations (one shared
// array, a cache of recent invocations in front of the map) to the
// plain grouping by a map, on spans of up to 40 invocations interleaved
// at random, so that the cache misses, hits and evicts.
func TestGroupInvocationsMatchesAMap(t *testing.T) {
	for seed := range uint64(30) {
		r := rand.New(rand.NewPCG(seed, 3))
		keys := 1 + r.IntN(40)
		spans := make([]Span, r.IntN(400))
		ptrs := make([]*Span, len(spans))
		for i := range spans {
			k := r.IntN(keys)
			if r.IntN(3) > 0 && i > 0 { // runs of one invocation
				k = int(spans[i-1].Inv) % keys
			}
			spans[i] = Span{Pid: int64(k % 3), Inv: uint64(k), Hid: "h", Pos: Pos{Line: i}}
			ptrs[i] = &spans[i]
		}

		want := map[invKey][]*Span{}
		var order []invKey
		for _, s := range ptrs {
			k := invKey{s.Pid, s.Inv}
			if _, ok := want[k]; !ok {
				order = append(order, k)
			}
			want[k] = append(want[k], s)
		}
		sort.SliceStable(order, func(i, j int) bool {
			if order[i].pid != order[j].pid {
				return order[i].pid < order[j].pid
			}
			return order[i].inv < order[j].inv
		})

		got := GroupInvocations(ptrs)
		if len(got) != len(order) {
			t.Fatalf("seed %d: %d invocations, want %d", seed, len(got), len(order))
		}
		for i, iv := range got {
			k := order[i]
			if iv.Pid != k.pid || iv.Inv != k.inv {
				t.Fatalf("seed %d: invocation %d is (%d, %d), want (%d, %d)", seed, i, iv.Pid, iv.Inv, k.pid, k.inv)
			}
			w := want[k]
			if len(iv.Spans) != len(w) {
				t.Fatalf("seed %d: (%d, %d) has %d spans, want %d", seed, k.pid, k.inv, len(iv.Spans), len(w))
			}
			for j := range w {
				if iv.Spans[j] != w[j] {
					t.Fatalf("seed %d: (%d, %d) span %d is line %d, want line %d", seed, k.pid, k.inv, j, iv.Spans[j].Pos.Line, w[j].Pos.Line)
				}
			}
			// A caller appending to one invocation's spans must not
			// write into the next one's.
			if len(iv.Spans) != cap(iv.Spans) {
				t.Fatalf("seed %d: (%d, %d) spans have room past their length", seed, k.pid, k.inv)
			}
		}
	}
}
