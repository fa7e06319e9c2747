package metric

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// openEvidenceLog writes the E2 fixture as today's runtime and a
// reviewer's patch would: recording is record_in_graph_task, and the
// host_orch line carries an hblkhd= the vocabulary has never heard of.
func openEvidenceLog(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(fixture("hbg-e2.log"))
	require.NoError(t, err)
	s := strings.ReplaceAll(string(b), "host-orch phase=record_node", "host-orch phase=record_in_graph_task")
	s = regexp.MustCompile(`(?m)(bind phase=host_orch .*)$`).ReplaceAllString(s, "$1 hblkhd=4096")
	require.Contains(t, s, "hblkhd=4096")
	path := filepath.Join(t.TempDir(), "open.log")
	require.NoError(t, os.WriteFile(path, []byte(s), 0o644))
	return path
}

// TestReadBlockLogOpenEvidence: a host-orch kind outside the old fixed
// list and an unknown numeric attribute become metrics of every pass,
// with families and units from their names; MetricsOf lists them after
// the known ones and MetricListOf prints them.
func TestReadBlockLogOpenEvidence(t *testing.T) {
	t.Parallel()
	bp, err := ReadBlockLog([]string{openEvidenceLog(t)})
	require.NoError(t, err)
	require.NotEmpty(t, bp.Passes)
	for _, p := range bp.Passes {
		assert.Equal(t, 4096.0, p.Values["attr.host_orch.hblkhd"], "pass %d", p.Index)
		assert.Contains(t, p.Values, "orch.record_in_graph_task")
		assert.Contains(t, p.Values, "orch.record_in_graph_task.per_op")
		assert.Contains(t, p.Values, "orch.record_in_graph_task.detail_sum")
		assert.Equal(t, 1.0, p.Values["attr.args.staged"])
	}
	ms, unknown := MetricsOf(PassMetricNames(bp.Passes))
	assert.Empty(t, unknown)
	byName := map[string]MetricInfo{}
	for _, m := range ms {
		byName[m.Name] = m
	}
	assert.Equal(t, FamilyOrch, byName["orch.record_in_graph_task"].Family)
	assert.Equal(t, KindTime, byName["orch.record_in_graph_task"].Kind)
	assert.Equal(t, FamilyAttrs, byName["attr.host_orch.hblkhd"].Family)
	assert.Equal(t, KindCount, byName["attr.host_orch.hblkhd"].Kind)
	assert.Equal(t, "ControlPlane", ms[0].Name, "known metrics first, in their order")
	list := strings.Join(MetricListOf(bp.Passes), "\n")
	assert.Regexp(t, `(?m)^attr\.host_orch\.hblkhd +count +attributes$`, list)
	assert.Regexp(t, `(?m)^orch\.record_in_graph_task +µs +orchestrator$`, list)
}

// TestDescribe: the open names' forms, their units from the name, and
// what is no metric name at all.
func TestDescribe(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		ok     bool
		family string
		kind   MetricKind
	}{
		{"orch.record_in_graph_task", true, FamilyOrch, KindTime},
		{"orch.record_in_graph_task.per_op", true, FamilyOrch, KindTime},
		{"orch.submit_task.dropped", true, FamilyAttrs, KindCount},
		{"attr.host_orch.hblkhd", true, FamilyAttrs, KindCount},
		{"attr.host_orch.rss_bytes", true, FamilyAttrs, KindBytes},
		{"attr.host_orch.wait_ns", true, FamilyAttrs, KindTime},
		{"attr.host_orch.rec_cpu_ns", true, FamilyAttrs, KindCPU},
		{"ControlPlane", true, FamilyControlPlane, KindTime},
		{"attr.host_orch", false, "", ""},
		{"attr..x", false, "", ""},
		{"orch.", false, "", ""},
		{"orch.x.", false, "", ""},
		{"nosuch", false, "", ""},
		{"orch.<kind>,", false, "", ""},
		{"attr.a b.c", false, "", ""},
	}
	for _, tc := range tests {
		m, ok := Describe(tc.name)
		assert.Equal(t, tc.ok, ok, tc.name)
		if ok {
			assert.Equal(t, tc.family, m.Family, tc.name)
			assert.Equal(t, tc.kind, m.Kind, tc.name)
			assert.Equal(t, PooledKey(tc.name), m.Key, tc.name)
		}
	}
	m, ok := LookupMetric("attr.host_orch.hblkhd@rank1")
	require.True(t, ok, "--metric takes an open name")
	assert.Equal(t, RankKey("attr.host_orch.hblkhd", 1), m.Key)
}
