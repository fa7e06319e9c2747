package abreport

import (
	"strings"
	"testing"

	"github.com/hbgkit/hbgkit/abtest/analysis"
	"github.com/hbgkit/hbgkit/abtest/journal"
	"github.com/hbgkit/hbgkit/abtest/metric"
	"github.com/stretchr/testify/assert"
)

// TestVerdictWordsByKind: only time is faster or slower; the headline of
// a count says fewer or more.
func TestVerdictWordsByKind(t *testing.T) {
	tests := []struct {
		kind       metric.MetricKind
		lo, hi     float64
		want, head string
	}{
		{metric.KindTime, -0.3, -0.1, "faster", "FASTER"},
		{metric.KindTime, 0.1, 0.3, "slower", "SLOWER"},
		{metric.KindCount, -0.3, -0.1, "fewer", "FEWER: minflt: head's count is"},
		{metric.KindCount, 0.1, 0.3, "more", "MORE: minflt: head's count is"},
		{metric.KindBytes, -0.3, -0.1, "fewer bytes", "FEWER BYTES"},
		{metric.KindCPU, 0.1, 0.3, "more CPU", "MORE CPU"},
		{metric.KindCount, -0.005, 0.005, "no change", "NO CHANGE"},
	}
	for _, tc := range tests {
		t.Run(string(tc.kind)+" "+tc.want, func(t *testing.T) {
			m := analysis.MetricResult{Name: "minflt", Label: "minflt", Kind: tc.kind, Primary: true, Rounds: 12,
				Delta: journal.Num((tc.lo + tc.hi) / 2), CILo: journal.Num(tc.lo), CIHi: journal.Num(tc.hi), P: 0.001, HolmP: 0.001}
			analysis.Decide(&m, 0.01, false)
			assert.Equal(t, tc.want, m.Verdict.String())
			a := &analysis.Analysis{Design: analysis.DesignInterleaved, Margin: 0.01}
			h := For(a).headlineOf(&m)
			assert.True(t, strings.HasPrefix(h, tc.head), h)
			if tc.kind != metric.KindTime {
				assert.NotContains(t, strings.ToLower(h), "faster")
				assert.NotContains(t, strings.ToLower(h), "slower")
			}
		})
	}
}
