package analysis

import (
	"strings"
	"testing"

	"github.com/hbgkit/hbgkit/abtest/journal/journaltest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAnalyzeDerived: a --derive metric of the journal's config is a row
// of its own, analysed paired as any metric (here a constant 100 µs
// subtracted from ControlPlane keeps its direction: head faster), and the
// journal's passes are not changed.
func TestAnalyzeDerived(t *testing.T) {
	t.Parallel()
	vals := make([][2][]float64, 8)
	for i := range vals {
		vals[i] = [2][]float64{{2000 + float64(i), 2010, 2020}, {1000 + float64(i), 1010, 1020}}
	}
	j := journaltest.Synth(t, vals)
	j.Header.Config.Derive = []string{"cp_minus_args=ControlPlane - phase.args"}
	a := Analyze(j)
	var got *MetricResult
	for i := range a.Metrics {
		if a.Metrics[i].Name == "cp_minus_args" {
			got = &a.Metrics[i]
		}
	}
	require.NotNil(t, got, "the derived row")
	assert.Equal(t, "derived", got.Family)
	assert.Equal(t, 8, got.Rounds)
	assert.Less(t, float64(got.Delta), -0.4, "(1010-100)/(2010-100) − 1 ≈ −52%")
	assert.True(t, got.Verdict.IsChange(), got.Verdict.String())
	assert.NotContains(t, j.Blocks[0].Passes[1].Values, "cp_minus_args", "the journal is not changed")
}

// TestBlockEvidenceWarnings: the blocks' evidence warnings reach the
// report once each, with on how many blocks, their logs and lines
// dropped, the missing pass totals first.
func TestBlockEvidenceWarnings(t *testing.T) {
	t.Parallel()
	j := journaltest.Synth(t, [][2][]float64{{{1, 1}, {1, 1}}, {{1, 1}, {1, 1}}})
	for i := range j.Blocks {
		j.Blocks[i].Warnings = []string{
			"evidence: /tmp/b" + string(rune('0'+i)) + ".log:9: host_orch: the counter rec_cpu_ns was cut (4 times)",
			"evidence: /tmp/b" + string(rune('0'+i)) + ".log:3: pass totals known only for rec_cpu_ns on 0 of 4 passes; on the others they are missing, not 0",
			"torn record at line 7",
		}
	}
	ws := blockEvidenceWarnings(j)
	assert.Equal(t, []string{
		"evidence: pass totals known only for rec_cpu_ns on 0 of 4 passes; on the others they are missing, not 0 (in 4 of 4 blocks' logs)",
		"evidence: host_orch: the counter rec_cpu_ns was cut (in 4 of 4 blocks' logs)",
	}, ws)
	a := Analyze(j)
	assert.Contains(t, strings.Join(a.Warnings, "\n"), "rec_cpu_ns on 0 of 4 passes")
}
