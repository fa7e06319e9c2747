package abtest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hbgkit/hbgkit/internal/report"
)

func TestWorkDiffs(t *testing.T) {
	passes := func(vals map[string]float64, n int) []Pass {
		var out []Pass
		for i := range n {
			v := map[string]float64{}
			for k, x := range vals {
				v[k] = x
			}
			out = append(out, Pass{Index: i, Cold: i == 0, Values: v})
		}
		return out
	}
	tests := []struct {
		name       string
		base, head map[string]float64
		want       []string
	}{
		{
			name: "same work",
			base: map[string]float64{"work.graph_upload.submissions": 82, "work.host_orch.tasks": 1131},
			head: map[string]float64{"work.graph_upload.submissions": 82, "work.host_orch.tasks": 1131},
		},
		{
			name: "fewer submissions",
			base: map[string]float64{"work.graph_upload.submissions": 82, "work.host_orch.tasks": 1131},
			head: map[string]float64{"work.graph_upload.submissions": 79, "work.host_orch.tasks": 1131},
			want: []string{"head submits 79 Graphs per bind, base 82"},
		},
		{
			name: "a count without a phrase, heap_used exempt, one-sided counts ignored",
			base: map[string]float64{"work.arena_h2d.copied": 704, "work.host_orch.heap_used": 1, "work.args.bytes": 8},
			head: map[string]float64{"work.arena_h2d.copied": 960, "work.host_orch.heap_used": 2},
			want: []string{"head's work.arena_h2d.copied is 960 per bind, base's 704"},
		},
		{
			name: "no work counts at all",
			base: map[string]float64{"ControlPlane": 5},
			head: map[string]float64{"ControlPlane": 9},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			logs := [2][][]Pass{{passes(tc.base, 4), passes(tc.base, 4)}, {passes(tc.head, 4)}}
			var got []string
			for _, d := range workDiffs(logs, 2) {
				got = append(got, d.Text)
			}
			assert.Equal(t, tc.want, got)
			a := &Analysis{WorkDiffs: workDiffs(logs, 2)}
			if len(tc.want) == 0 {
				assert.Empty(t, a.SameWorkLine())
			} else {
				assert.Contains(t, a.SameWorkLine(), "DIFFERENT WORK: ")
				first, ok := a.Document().Blocks[0].(*report.Paragraph)
				require.True(t, ok)
				assert.Contains(t, first.Text, tc.want[0], "above the verdict")
			}
		})
	}
}

// TestAliasable: equal values make one row only of one quantity: wall
// time of segments across its families, never a count and a CPU time,
// nor two counts of different things.
func TestAliasable(t *testing.T) {
	get := func(name string) MetricInfo {
		m, ok := LookupMetric(name)
		require.True(t, ok, name)
		return m
	}
	tests := []struct {
		a, b string
		want bool
	}{
		{"Args", "phase.args", true},
		{"ControlPlane", "Gate", true},
		{"Host", "phase.host_orch", true},
		{"rec_cpu_ns", "nivcsw", false},
		{"nvcsw", "work.graph_upload.defs", false},
		{"cpu.HostOrch", "HostOrch", false},
		{"orch.build_definition", "orch.build_definition.per_op", true},
		{"work.args.ntensor", "work.host_view_close.count", true},
	}
	for _, tc := range tests {
		t.Run(tc.a+" "+tc.b, func(t *testing.T) {
			assert.Equal(t, tc.want, aliasable(get(tc.a), get(tc.b)))
		})
	}
}
