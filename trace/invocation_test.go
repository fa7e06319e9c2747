package trace

import (
	"bytes"
	"fmt"
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

// TestSpanBlocksKeepWhatALogKeeps: read through SpanBlocks, a log gives
// the invocation spans a Log's Spans give, across several blocks, and
// the bound stops at the span past it with the error a Log's read gives.
func TestSpanBlocksKeepWhatALogKeeps(t *testing.T) {
	var log []byte
	const n = spanBlock*2 + 100 // three blocks
	for i := range n {
		name := "chip.run.step"
		if i%3 == 0 {
			name = "node.submit" // not an invocation's
		}
		log = fmt.Appendf(log, "[STRACE] v=1 pid=%d tid=1 inv=%d hid=ab depth=1 name=%s ts=%d dur=5 k=%d\n", i%2, i/10, name, i, i)
	}
	src := func() []Source { return []Source{ReaderSource("x.log", bytes.NewReader(log))} }

	l, err := ReadLog(src())
	if err != nil {
		t.Fatal(err)
	}
	want := InvocationSpans(l.Spans)
	b := &SpanBlocks{}
	if _, err := StreamLog(src(), ReadOptions{Workers: 2}, Visitors{Span: b.Add, Err: b.Err}); err != nil {
		t.Fatal(err)
	}
	got := b.InvocationSpans()
	if len(got) != len(want) {
		t.Fatalf("%d invocation spans, want %d", len(got), len(want))
	}
	for i := range want {
		if *got[i] != *want[i] {
			t.Fatalf("span %d is %+v, want %+v", i, *got[i], *want[i])
		}
	}

	_, wantErr := ReadLogOptions(src(), ReadOptions{Workers: 2, MaxSpans: 1000})
	b = &SpanBlocks{Max: 1000}
	_, err = StreamLog(src(), ReadOptions{Workers: 2}, Visitors{Span: b.Add, Err: b.Err})
	if err == nil || wantErr == nil || err.Error() != wantErr.Error() {
		t.Fatalf("past the bound: %v, want %v", err, wantErr)
	}
}
