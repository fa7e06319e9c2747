package analysis

import (
	"testing"

	"github.com/hbgkit/hbgkit/abtest/journal"
	"github.com/hbgkit/hbgkit/abtest/journal/journaltest"
	"github.com/hbgkit/hbgkit/abtest/metric"
	"github.com/hbgkit/hbgkit/abtest/stats"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCountThatIsZeroIsCalled: three lane births per warm bind against
// none in 8 rounds is fewer, Δ −100% with its interval, on the
// differences of the block statistics; a commit wait of 1474 µs against
// 212 µs with one round of 0 is faster the same way; a count 0 in both
// arms stays without an analysis, as before.
func TestCountThatIsZeroIsCalled(t *testing.T) {
	t.Parallel()
	j := journaltest.Twin(t, 1, func(round, arm, rank, pass int, v map[string]float64) {
		v[metric.MetricGapsWithBirth] = 3
		v[metric.MetricConcurrent] = 0
		v[metric.MetricCommitWait] = 1474_000
		if arm == journal.Head {
			v[metric.MetricGapsWithBirth] = 0
			v[metric.MetricCommitWait] = 212_000
			if round == 3 {
				v[metric.MetricCommitWait] = 0
			}
		}
		if arm == journal.Base && round == 2 {
			v[metric.MetricGapsWithBirth] = 2
		}
	})
	a := Analyze(j)
	rows := map[string]MetricResult{}
	for _, m := range a.Metrics {
		rows[m.Name] = m
	}
	births := rows[metric.MetricGapsWithBirth]
	require.Empty(t, births.Error)
	assert.True(t, births.CountDiff)
	assert.InDelta(t, -1.0, float64(births.Delta), 1e-12)
	assert.Equal(t, -1.0, float64(births.CILo))
	assert.InDelta(t, -0.897, float64(births.CIHi), 0.001)
	assert.Equal(t, Verdict{Call: stats.Faster, Kind: metric.KindCount}, births.Verdict)
	assert.Equal(t, "fewer", births.Verdict.String())
	assert.Equal(t, [2]journal.Num{3 - 1.0/8, 0}, births.Level)
	assert.Equal(t, 8, births.SignK)

	wait := rows[metric.MetricCommitWait]
	require.Empty(t, wait.Error)
	assert.True(t, wait.CountDiff)
	assert.InDelta(t, (212.0*7/8)/1474-1, float64(wait.Delta), 1e-9)
	assert.Equal(t, "faster", wait.Verdict.String())

	m := rows[metric.MetricConcurrent]
	assert.NotEmpty(t, m.Error, "0 in both arms: no ratio to base")
	assert.False(t, m.CountDiff)
	assert.Equal(t, NoVerdict, m.Verdict)
}

// TestCountThatIsZeroIsCalledUnpaired: the same births as compare's logs
// (independent samples) are Δ −100% on the difference of the means, with
// Welch's interval and the rank-sum p, fewer.
func TestCountThatIsZeroIsCalledUnpaired(t *testing.T) {
	t.Parallel()
	j := journaltest.Twin(t, 1, func(round, arm, rank, pass int, v map[string]float64) {
		v[metric.MetricGapsWithBirth] = 3
		if arm == journal.Head {
			v[metric.MetricGapsWithBirth] = 0
		}
		if arm == journal.Base && round == 2 {
			v[metric.MetricGapsWithBirth] = 2
		}
	})
	j.Unpaired = true
	a := AnalyzeUnpaired(j)
	var births *MetricResult
	for i := range a.Metrics {
		if a.Metrics[i].Name == metric.MetricGapsWithBirth {
			births = &a.Metrics[i]
		}
	}
	require.NotNil(t, births)
	require.Empty(t, births.Error)
	assert.True(t, births.CountDiff)
	assert.InDelta(t, -1.0, float64(births.Delta), 1e-12)
	assert.Equal(t, -1.0, float64(births.CILo))
	assert.Less(t, float64(births.CIHi), -0.5)
	assert.Equal(t, "fewer", births.Verdict.String())
	assert.Equal(t, LevelMean, births.LevelOf)
}
