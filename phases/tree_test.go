package phases

import (
	"strconv"
	"testing"

	"github.com/hbgkit/hbgkit/trace"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// treeShape is a node reduced to what the tests compare.
type treeShape struct {
	Name     string
	Leaf     string
	Device   bool
	MedianNs float64
	N        int
	Kids     []treeShape
	Orch     float64 // Concurrent.Orch.MedianNs
	Sched    float64 // Concurrent.Sched.MedianNs
}

func shapeOf(nodes []*TreeNode) []treeShape {
	var out []treeShape
	for _, n := range nodes {
		s := treeShape{Name: n.Name, Leaf: n.Leaf, Device: n.Device, MedianNs: n.MedianNs, N: n.N, Kids: shapeOf(n.Children)}
		if n.Concurrent != nil {
			s.Orch, s.Sched = n.Concurrent.Orch.MedianNs, n.Concurrent.Sched.MedianNs
		}
		out = append(out, s)
	}
	return out
}

func TestComputeTree(t *testing.T) {
	dw := "chip.run.runner_run.device_wall"
	tests := []struct {
		name  string
		spans []trace.Span
		want  []treeShape
	}{
		{
			name: "medians over invocations, structure from the last one, children by ts",
			spans: []trace.Span{
				viewsSpan(1, 1, "h", 0, "chip.run", 0, 100, ""),
				viewsSpan(1, 1, "h", 1, "chip.run.bind", 10, 10, ""),
				viewsSpan(1, 1, "h", 1, "chip.run.gone", 5, 10, ""),
				viewsSpan(1, 2, "h", 0, "chip.run", 0, 200, ""),
				viewsSpan(1, 2, "h", 1, "chip.run.validate", 90, 30, ""),
				viewsSpan(1, 2, "h", 1, "chip.run.bind", 10, 20, ""),
				viewsSpan(1, 2, "h", 2, "chip.run.bind.args", 11, 5, ""),
				viewsSpan(1, 2, "h", 2, "orphan.leaf", 1, 5, ""),
			},
			want: []treeShape{
				{Name: "chip.run", Leaf: "run", MedianNs: 150, N: 2, Kids: []treeShape{
					{Name: "chip.run.bind", Leaf: "bind", MedianNs: 15, N: 2, Kids: []treeShape{
						{Name: "chip.run.bind.args", Leaf: "args", MedianNs: 5, N: 1},
					}},
					{Name: "chip.run.validate", Leaf: "validate", MedianNs: 30, N: 1},
				}},
				{Name: "orphan.leaf", Leaf: "leaf", MedianNs: 5, N: 1},
			},
		},
		{
			name: "orch and sched become one Effective node in orch's place",
			spans: []trace.Span{
				viewsSpan(1, 1, "h", 0, dw, 0, 1000, "clk=dev"),
				viewsSpan(1, 1, "h", 1, dw+".sched", 100, 800, "clk=dev"),
				viewsSpan(1, 1, "h", 1, dw+".pre", 10, 5, "clk=dev"),
				viewsSpan(1, 1, "h", 1, dw+".orch", 50, 300, "clk=dev"),
				viewsSpan(1, 1, "h", 2, dw+".orch.inner", 60, 1, "clk=dev"),
				viewsSpan(1, 2, "h", 0, dw, 0, 2000, "clk=dev"),
				viewsSpan(1, 2, "h", 1, dw+".orch", 50, 500, "clk=dev"),
				viewsSpan(1, 3, "h", 0, dw, 0, 1500, "clk=dev"),
				viewsSpan(1, 3, "h", 1, dw+".pre", 10, 7, "clk=dev"),
				viewsSpan(1, 3, "h", 1, dw+".sched", 100, 900, "clk=dev"),
				viewsSpan(1, 3, "h", 1, dw+".orch", 40, 400, "clk=dev"),
				viewsSpan(1, 3, "h", 2, dw+".orch.inner", 60, 1, "clk=dev"),
			},
			want: []treeShape{
				{Name: dw, Leaf: "device_wall", Device: true, MedianNs: 1500, N: 3, Kids: []treeShape{
					{Name: dw + ".pre", Leaf: "pre", Device: true, MedianNs: 6, N: 2},
					// Extents: inv 1 = 900-50 = 850, inv 3 = 1000-40 = 960.
					{Name: dw + ".Effective", Leaf: "Effective", Device: true, MedianNs: 905, N: 2, Orch: 400, Sched: 850},
				}},
			},
		},
		{
			name: "orch without sched is an ordinary node",
			spans: []trace.Span{
				viewsSpan(1, 1, "h", 0, "a", 0, 10, ""),
				viewsSpan(1, 1, "h", 1, "a.orch", 1, 4, "clk=dev"),
			},
			want: []treeShape{
				{Name: "a", Leaf: "a", MedianNs: 10, N: 1, Kids: []treeShape{
					{Name: "a.orch", Leaf: "orch", Device: true, MedianNs: 4, N: 1},
				}},
			},
		},
		{
			name: "duplicated names print as many identical nodes",
			spans: []trace.Span{
				viewsSpan(1, 1, "h", 0, "a", 0, 10, ""),
				viewsSpan(1, 1, "h", 0, "a", 20, 30, ""),
				viewsSpan(1, 1, "h", 1, "a.b", 1, 4, ""),
			},
			want: []treeShape{
				{Name: "a", Leaf: "a", MedianNs: 10, N: 1, Kids: []treeShape{{Name: "a.b", Leaf: "b", MedianNs: 4, N: 1}}},
				{Name: "a", Leaf: "a", MedianNs: 10, N: 1, Kids: []treeShape{{Name: "a.b", Leaf: "b", MedianNs: 4, N: 1}}},
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := ComputeTree(viewsInvs(tc.spans))
			require.Len(t, got.Callables, 1)
			assert.Equal(t, tc.want, shapeOf(got.Callables[0].Roots))
		})
	}
}

func TestComputeTreeLabels(t *testing.T) {
	var spans []trace.Span
	add := func(hid string, invs ...uint64) {
		for _, inv := range invs {
			spans = append(spans, viewsSpan(1, inv, hid, 0, "chip.run", 0, 1, ""))
		}
	}
	add("0123456789abcdef", 1, 2)
	add("single", 3)
	add("busy", 4, 5, 6)
	got := ComputeTree(viewsInvs(spans))
	var labels, hids []string
	var counts []int
	for _, c := range got.Callables {
		labels = append(labels, c.Label)
		hids = append(hids, c.Hid)
		counts = append(counts, c.Invocations)
	}
	assert.Equal(t, []string{"busy", "0123456789abcdef", "single"}, hids)
	assert.Equal(t, []string{"decode", "01234567", "prefill"}, labels)
	assert.Equal(t, []int{3, 2, 1}, counts)
	assert.Empty(t, ComputeTree(nil).Callables)
}

// TestMedianIntRoundsOnce pins strace_timing's _median for integer
// durations: the two middle values are added exactly and the sum rounded
// once ((a + b) / 2.0), not each rounded to a float64 first. The second
// case is fixtures/conformance/109-tree-median-past-2p53, which the
// reference prints as 10036271871502.4 us.
func TestMedianIntRoundsOnce(t *testing.T) {
	tests := []struct {
		name string
		v    []int64
		want float64
	}{
		{"empty", nil, 0},
		{"odd count: the middle value", []int64{3, 1, 2}, 2},
		{"even count below 2^53", []int64{1, 2}, 1.5},
		{"even count past 2^53", []int64{10927082410724494, 9145461332280407}, 10036271871502450},
		{"sum past int64", []int64{1<<63 - 1, 1<<63 - 1}, 1 << 63},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, medianInt(tc.v))
		})
	}
	spans := []trace.Span{
		viewsSpan(1, 1, "h", 0, "chip.run", 1000, 9145461332280407, ""),
		viewsSpan(1, 2, "h", 0, "chip.run", 1000, 10927082410724494, ""),
	}
	tr := ComputeTree(viewsInvs(spans))
	require.Len(t, tr.Callables, 1)
	require.Len(t, tr.Callables[0].Roots, 1)
	assert.Equal(t, "10036271871502.4", strconv.FormatFloat(tr.Callables[0].Roots[0].MedianNs/1000, 'f', 1, 64))
}

// TestTreeRowsAndMaxSpans: Rows counts what a tree prints, shared children
// once per parent span, and stops at limit+1; the collector keeps at most
// MaxSpans spans of the invocations trees are drawn from and says which
// span went past.
func TestTreeRowsAndMaxSpans(t *testing.T) {
	var spans []trace.Span
	spans = append(spans, viewsSpan(1, 1, "h", 0, "chip.run", 0, 1000000, ""))
	for i := range int64(30) {
		spans = append(spans, viewsSpan(1, 1, "h", 1, "chip.run.step", 10*i+1, 5, ""))
		spans = append(spans, viewsSpan(1, 1, "h", 2, "chip.run.step.sub", 10*i+2, 1, ""))
	}
	for i := range spans {
		spans[i].Pos = trace.Pos{File: "s.log", Line: i + 1}
	}
	tr := ComputeTree(viewsInvs(spans))
	assert.Equal(t, 1+30+30*30, tr.Rows(1<<20))
	assert.Equal(t, 101, tr.Rows(100))
	assert.Equal(t, 1, tr.Rows(0))

	c := NewInvocationsCollector(true)
	c.MaxSpans = 20
	for i := range spans {
		c.Add(&spans[i])
	}
	var tm *trace.TooManySpansError
	require.ErrorAs(t, c.Err(), &tm)
	assert.Equal(t, trace.Pos{File: "s.log", Line: 21}, tm.Pos)
}
