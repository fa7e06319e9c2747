package analysis

import (
	"encoding/json"
	"testing"

	"github.com/hbgkit/hbgkit/abtest/metric"
	"github.com/hbgkit/hbgkit/abtest/stats"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestVerdictWords: every word a report or a JSON form has written is
// one verdict; String and the JSON form write it and read it back to the
// same typed value, and the predicates answer from the call alone.
func TestVerdictWords(t *testing.T) {
	tests := []struct {
		word           string
		v              Verdict
		increase, decr bool
		small, inconc  bool
	}{
		{"faster", VerdictOf(stats.Faster, metric.KindTime), false, true, false, false},
		{"slower", VerdictOf(stats.Slower, metric.KindTime), true, false, false, false},
		{"less CPU", VerdictOf(stats.Faster, metric.KindCPU), false, true, false, false},
		{"more CPU", VerdictOf(stats.Slower, metric.KindCPU), true, false, false, false},
		{"fewer", VerdictOf(stats.Faster, metric.KindCount), false, true, false, false},
		{"more", VerdictOf(stats.Slower, metric.KindCount), true, false, false, false},
		{"fewer bytes", VerdictOf(stats.Faster, metric.KindBytes), false, true, false, false},
		{"more bytes", VerdictOf(stats.Slower, metric.KindBytes), true, false, false, false},
		{"no change", VerdictOf(stats.NoChange, metric.KindBytes), false, false, false, false},
		{"~ small", VerdictOf(stats.Small, metric.KindCPU), false, false, true, false},
		{"inconclusive", VerdictOf(stats.Inconclusive, metric.KindCount), false, false, false, true},
		{"n/a", NoVerdict, false, false, false, false},
	}
	for _, tc := range tests {
		t.Run(tc.word, func(t *testing.T) {
			assert.Equal(t, tc.word, tc.v.String())
			b, err := json.Marshal(tc.v)
			require.NoError(t, err)
			assert.Equal(t, `"`+tc.word+`"`, string(b))
			var back Verdict
			require.NoError(t, json.Unmarshal(b, &back))
			assert.Equal(t, tc.v, back)
			assert.Equal(t, tc.increase, tc.v.IsIncrease(), "IsIncrease")
			assert.Equal(t, tc.decr, tc.v.IsDecrease(), "IsDecrease")
			assert.Equal(t, tc.increase || tc.decr, tc.v.IsChange(), "IsChange")
			assert.Equal(t, tc.small, tc.v.IsSmall(), "IsSmall")
			assert.Equal(t, tc.inconc, tc.v.IsInconclusive(), "IsInconclusive")
		})
	}
}

// TestVerdictOfTimeByDefault: a metric of no kind (an older analysis) is
// time, faster or slower; a call that is no change in either direction
// carries no kind, so one word is one value.
func TestVerdictOfTimeByDefault(t *testing.T) {
	assert.Equal(t, VerdictOf(stats.Slower, metric.KindTime), VerdictOf(stats.Slower, ""))
	assert.Equal(t, "faster", VerdictOf(stats.Faster, "").String())
	assert.Equal(t, VerdictOf(stats.NoChange, metric.KindTime), VerdictOf(stats.NoChange, metric.KindBytes))
	assert.Equal(t, "inconclusive", Verdict{}.String(), "the zero verdict concludes nothing")
}

// TestVerdictUnknownWordRefused: a word no verdict writes is an error,
// never a verdict.
func TestVerdictUnknownWordRefused(t *testing.T) {
	for _, w := range []string{"", "SLOWER", "inconclusive (p)", "less", "maybe"} {
		var v Verdict
		assert.Error(t, json.Unmarshal([]byte(`"`+w+`"`), &v), w)
	}
}

// TestMetricResultJSONVerdicts: a row's verdict and its verdict on block
// medians are the words in the analysis JSON, and the median one is
// absent when the row has none.
func TestMetricResultJSONVerdicts(t *testing.T) {
	m := MetricResult{Name: "minflt", Kind: metric.KindCount, Verdict: VerdictOf(stats.Slower, metric.KindCount)}
	b, err := json.Marshal(m)
	require.NoError(t, err)
	assert.Contains(t, string(b), `"verdict":"more"`)
	assert.NotContains(t, string(b), `verdict_median`)
	med := VerdictOf(stats.Small, metric.KindCount)
	m.MedianVerdict = &med
	b, err = json.Marshal(m)
	require.NoError(t, err)
	assert.Contains(t, string(b), `"verdict_median":"~ small"`)
	var back MetricResult
	require.NoError(t, json.Unmarshal(b, &back))
	assert.Equal(t, m.Verdict, back.Verdict)
	require.NotNil(t, back.MedianVerdict)
	assert.Equal(t, med, *back.MedianVerdict)
}
