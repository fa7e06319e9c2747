package phases

import (
	"strconv"
	"testing"

	"github.com/hbgkit/hbgkit/trace"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestComputeTPOT(t *testing.T) {
	tests := []struct {
		name  string
		spans []trace.Span
		want  []TPOTCallable
	}{
		{
			name:  "no spans, no callables",
			spans: nil,
			want:  nil,
		},
		{
			name: "mean is truncated to integer ns (1950, 1951 -> 1950)",
			spans: []trace.Span{
				viewsSpan(1, 1, "h", 0, "chip.run", 0, 3000, ""),
				viewsSpan(1, 1, "h", 1, "chip.run.bind", 0, 1950, ""),
				viewsSpan(1, 2, "h", 0, "chip.run", 0, 3001, ""),
				viewsSpan(1, 2, "h", 1, "chip.run.bind", 0, 1951, ""),
			},
			want: []TPOTCallable{{
				Hid: "h", Invocations: 2,
				Root:   &TPOTStat{Name: "chip.run", N: 2, MeanNs: 3000, MinNs: 3000, MaxNs: 3001},
				Stages: []TPOTStat{{Name: "chip.run.bind", N: 2, MeanNs: 1950, MinNs: 1950, MaxNs: 1951}},
			}},
		},
		{
			name: "stages by descending count then name; depth 0 is not a stage",
			spans: []trace.Span{
				viewsSpan(1, 1, "h", 0, "chip.run", 0, 10, ""),
				viewsSpan(1, 1, "h", 1, "chip.run.z", 0, 1, ""),
				viewsSpan(1, 1, "h", 1, "chip.run.b", 0, 2, ""),
				viewsSpan(1, 1, "h", 0, "chip.prewarm.build", 0, 3, ""),
				viewsSpan(1, 2, "h", 0, "chip.run", 0, 20, ""),
				viewsSpan(1, 2, "h", 1, "chip.run.z", 0, 3, ""),
				viewsSpan(1, 2, "h", 1, "chip.run.a", 0, 4, ""),
			},
			want: []TPOTCallable{{
				Hid: "h", Invocations: 2,
				Root: &TPOTStat{Name: "chip.run", N: 2, MeanNs: 15, MinNs: 10, MaxNs: 20},
				Stages: []TPOTStat{
					{Name: "chip.run.z", N: 2, MeanNs: 2, MinNs: 1, MaxNs: 3},
					{Name: "chip.run.a", N: 1, MeanNs: 4, MinNs: 4, MaxNs: 4},
					{Name: "chip.run.b", N: 1, MeanNs: 2, MinNs: 2, MaxNs: 2},
				},
			}},
		},
		{
			name: "the earliest span of a name is the stage; no root without depth 0",
			spans: []trace.Span{
				viewsSpan(1, 1, "h", 1, "chip.run.bind", 50, 7, ""),
				viewsSpan(1, 1, "h", 1, "chip.run.bind", 10, 9, ""),
			},
			want: []TPOTCallable{{
				Hid: "h", Invocations: 1,
				Stages: []TPOTStat{{Name: "chip.run.bind", N: 1, MeanNs: 9, MinNs: 9, MaxNs: 9}},
			}},
		},
		{
			name: "callables by descending invocation count, ties in first-seen order",
			spans: []trace.Span{
				viewsSpan(1, 1, "one", 0, "chip.run", 0, 1, ""),
				viewsSpan(1, 2, "two", 0, "chip.run", 0, 1, ""),
				viewsSpan(1, 3, "three", 0, "chip.run", 0, 1, ""),
				viewsSpan(1, 4, "three", 0, "chip.run", 0, 1, ""),
				viewsSpan(1, 5, "node", 0, "node.dispatch", 0, 1, ""),
			},
			want: []TPOTCallable{
				{Hid: "three", Invocations: 2, Root: &TPOTStat{Name: "chip.run", N: 2, MeanNs: 1, MinNs: 1, MaxNs: 1}},
				{Hid: "one", Invocations: 1, Root: &TPOTStat{Name: "chip.run", N: 1, MeanNs: 1, MinNs: 1, MaxNs: 1}},
				{Hid: "two", Invocations: 1, Root: &TPOTStat{Name: "chip.run", N: 1, MeanNs: 1, MinNs: 1, MaxNs: 1}},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := ComputeTPOT(viewsInvs(tc.spans))
			require.NotNil(t, got)
			assert.Equal(t, tc.want, got.Callables)
		})
	}
}

// TestTPOTMeanDoesNotOverflow pins that durations near int64's limit give
// the reference's mean, not a wrapped (negative) one: (3·big − 3)/3 is
// big − 1, which Python's int(sum / n) rounds to the float 2^63 before
// truncating; MeanNs holds that as the largest int64, whose float64 is
// the same 2^63, so the table prints what the reference prints.
func TestTPOTMeanDoesNotOverflow(t *testing.T) {
	const big = 1<<63 - 1
	var a tpotAcc
	for _, d := range []int64{big, big, big - 3} {
		a.add(d)
	}
	st := a.stat("x")
	assert.Equal(t, int64(big), st.MeanNs)
	assert.Equal(t, float64(1<<63), float64(st.MeanNs))
	assert.Equal(t, int64(big-3), st.MinNs)
	spans := []trace.Span{
		viewsSpan(1, 1, "h", 0, "chip.run", 0, big, ""),
		viewsSpan(1, 2, "h", 0, "chip.run", 0, big-1, ""),
	}
	got := ComputeTPOT(trace.GroupInvocations(trace.InvocationSpans(spans)))
	require.Len(t, got.Callables, 1)
	assert.Equal(t, int64(big), got.Callables[0].Root.MeanNs)
}

// TestTPOTMeanPast2p53 pins strace_timing's int(sum / n) for durations past
// 2^53 ns (values from fixtures/conformance/110-tpot-mean-past-2p53, whose
// expected output the reference printed): the exact sum is divided with one
// rounding, then truncated, which is not the integer quotient.
func TestTPOTMeanPast2p53(t *testing.T) {
	tests := []struct {
		name string
		durs []int64
		want int64
	}{
		{"below 2^53: the integer quotient", []int64{10, 11}, 10},
		{"rounds up past 2^53", []int64{9657399402883172, 10545162859581438, 9518363383171539}, 9906975215212050},
		{"one value keeps its float", []int64{1<<53 + 1}, 1 << 53},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var a tpotAcc
			for _, d := range tc.durs {
				a.add(d)
			}
			assert.Equal(t, tc.want, a.stat("x").MeanNs)
		})
	}
}

// TestSummaryOfManyNames: an invocation of thousands of distinct names
// (a hostile log's) is indexed past linearNames and grows by doubling, so
// summarising it is linear; every name keeps its earliest span.
func TestSummaryOfManyNames(t *testing.T) {
	const n = 5000
	sm := newSummaries()
	is := &invSummary{pid: 1, inv: 1, hid: "h"}
	grows := 0
	for i := range n {
		s := viewsSpan(1, 1, "h", 1, "chip.run.s"+strconv.Itoa(i), int64(2*i+10), 5, "")
		c := cap(is.names)
		sm.add(is, &s)
		if cap(is.names) != c {
			grows++
		}
	}
	for i := range n {
		s := viewsSpan(1, 1, "h", 1, "chip.run.s"+strconv.Itoa(i), int64(i), int64(i), "")
		sm.add(is, &s) // earlier: replaces
	}
	require.Len(t, is.names, n)
	require.NotNil(t, is.index)
	assert.Less(t, grows, linearNames/4+20, "growth by doubling past linearNames")
	for i := range n {
		ns := is.lookup(sm.nameIdx["chip.run.s"+strconv.Itoa(i)])
		require.NotNil(t, ns)
		assert.Equal(t, int64(i), ns.ts)
		assert.Equal(t, int64(i), ns.dur)
	}
	assert.Nil(t, is.lookup(-1))
}
