package swimlane

import (
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/hbgkit/hbgkit/trace"
	"github.com/stretchr/testify/require"
)

// tiedSpans are n spans drawn from few values of every sort key, so that
// most of them tie on some keys and many on all.
func tiedSpans(n int, seed uint64) []trace.Span {
	r := rand.New(rand.NewPCG(seed, 7))
	names := []string{"a", "b", "chip.run", "chip.run.bind"}
	spans := make([]trace.Span, n)
	for i := range spans {
		spans[i] = trace.Span{Ts: int64(r.IntN(4)) - 1, Pid: int64(r.IntN(3)), Tid: int64(r.IntN(3)),
			Inv: uint64(r.IntN(3)), Name: names[r.IntN(len(names))], Attrs: "clk=dev", Pos: trace.Pos{Line: i}}
	}
	return spans
}

// TestEventOrderIsTheStableOrder holds eventOrder and sortDevices, which
// sort copied keys, to the stable sorts by the spans' fields they
// replace, on spans that tie on every key.
func TestEventOrderIsTheStableOrder(t *testing.T) {
	for seed := range uint64(20) {
		spans := tiedSpans(500, seed)
		hosts := make([]hostEntry, len(spans))
		devices := make([]*trace.Span, len(spans))
		for i := range spans {
			hosts[i].span = &spans[i]
			devices[i] = &spans[i]
		}

		want := make([]int, len(hosts))
		for i := range want {
			want[i] = i
		}
		sort.SliceStable(want, func(a, b int) bool {
			x, y := hosts[want[a]].span, hosts[want[b]].span
			switch {
			case x.Ts != y.Ts:
				return x.Ts < y.Ts
			case x.Pid != y.Pid:
				return x.Pid < y.Pid
			case x.Tid != y.Tid:
				return x.Tid < y.Tid
			}
			return x.Name < y.Name
		})
		require.Equal(t, want, eventOrder(hosts), "seed %d", seed)

		wantDev := append([]*trace.Span(nil), devices...)
		sort.SliceStable(wantDev, func(a, b int) bool {
			x, y := wantDev[a], wantDev[b]
			switch {
			case x.Pid != y.Pid:
				return x.Pid < y.Pid
			case x.Inv != y.Inv:
				return x.Inv < y.Inv
			case x.Ts != y.Ts:
				return x.Ts < y.Ts
			case x.Tid != y.Tid:
				return x.Tid < y.Tid
			}
			return x.Name < y.Name
		})
		sortDevices(devices)
		for i := range devices {
			require.Same(t, wantDev[i], devices[i], "seed %d, device %d", seed, i)
		}
	}
}
