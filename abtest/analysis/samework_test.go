package analysis

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hbgkit/hbgkit/abtest/metric"
)

// TestAliasable: equal values make one row only of one quantity: wall
// time of segments across its families, never a count and a CPU time,
// nor two counts of different things.
func TestAliasable(t *testing.T) {
	get := func(name string) metric.MetricInfo {
		m, ok := metric.LookupMetric(name)
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
