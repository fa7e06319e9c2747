package analysis

import (
	"math"

	"github.com/hbgkit/hbgkit/abtest/metric"
	"github.com/hbgkit/hbgkit/abtest/stats"
)

// callDetermined calls the rows of the work counts that differ
// deterministically (WorkDiff.Deterministic: one value on every warm pass
// of each arm, another between the arms) on that evidence alone: fewer
// or more, or "~ small" when the ratio lies inside the margin. A p-value
// cannot call them, for it asks whether noise explains a difference that
// has no noise; 1131 against 129 tasks on every pass is fewer at any
// number of rounds. A work count with one value on every warm pass of
// both arms is, likewise, no change. The row's Determined says so.
func callDetermined(a *Analysis, margin float64) {
	for i := range a.Metrics {
		m := &a.Metrics[i]
		if m.Family == metric.FamilyWork && m.Constant && m.Error == "" && !sameWorkExempt[m.Name] {
			m.Verdict, m.Gated, m.Extra, m.NoEstimate = VerdictOf(stats.NoChange, m.Kind), false, 0, ""
			m.Determined = true
		}
	}
	for _, d := range a.WorkDiffs {
		if !d.Deterministic {
			continue
		}
		for i := range a.Metrics {
			m := &a.Metrics[i]
			if m.Name != d.Metric || m.Error != "" || !(d.Base > 0) {
				continue
			}
			ratio := float64(d.Head)/float64(d.Base) - 1
			call := stats.Faster
			switch {
			case math.Abs(ratio) <= margin:
				call = stats.Small
			case ratio > 0:
				call = stats.Slower
			}
			m.Verdict, m.Gated, m.Extra, m.NoEstimate = VerdictOf(call, m.Kind), false, 0, ""
			m.Determined = true
		}
	}
}
