package analysis

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/hbgkit/hbgkit/abtest/journal"
	"github.com/hbgkit/hbgkit/abtest/stats"
)

// CeilingQuantile is the upper quantile a report calls the ceiling: the
// p90 of warm passes, per arm over all of them (ArmSummary.P90) and per
// block for the paired Δp90 (docs/ab-method.md "The ceiling").
const CeilingQuantile = 0.9

// Quantile returns the q-quantile of v (0 ≤ q ≤ 1) by linear
// interpolation between the order statistics (Hyndman and Fan's type 7,
// R's and numpy's default): with n values sorted, position q·(n−1). NaN
// for no values. v is not changed.
func Quantile(v []float64, q float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := slices.Clone(v)
	slices.Sort(s)
	pos := q * float64(len(s)-1)
	lo := int(math.Floor(pos))
	if lo >= len(s)-1 {
		return s[len(s)-1]
	}
	frac := pos - float64(lo)
	return s[lo] + frac*(s[lo+1]-s[lo])
}

// ceilingOf sets the ceiling of an arm's summary from its warm passes v:
// their p90 and their maximum, in the metric's unit (scale as
// describeArm's).
func ceilingOf(s *ArmSummary, v []float64, scale float64) {
	s.P90, s.Max = nan(), nan()
	if len(v) == 0 {
		return
	}
	s.P90, s.Max = journal.Num(Quantile(v, CeilingQuantile)/scale), journal.Num(slices.Max(v)/scale)
}

// ceilingBeside sets m's DeltaP90, its interval and its verdict from the
// per-block p90s of both arms, round by round: the same paired analysis
// as Δ (stats.Paired on the log-ratios of the blocks' statistics), the
// interval against the margin as medianBeside's, without a p gate. A
// secondary statistic: the verdict stays the block statistic's.
func ceilingBeside(m *MetricResult, p90s [2][]float64, margin float64) {
	m.DeltaP90, m.P90CILo, m.P90CIHi, m.P90Verdict = nan(), nan(), nan(), &Verdict{Call: stats.Inconclusive}
	pr, err := stats.Paired(p90s[journal.Base], p90s[journal.Head], stats.PairedOptions{})
	if err != nil {
		return
	}
	m.DeltaP90 = journal.Num(pr.Delta)
	if m.NoInterval != "" {
		return
	}
	m.P90CILo, m.P90CIHi = journal.Num(pr.CI.Lo), journal.Num(pr.CI.Hi)
	*m.P90Verdict = VerdictOf(stats.Decide(pr.Delta, pr.CI, m.Rounds, margin).Call, m.Kind)
}

// CeilingLine says, for a row whose floor and ceiling moved in opposite
// directions, which way each went: "lower floor, higher ceiling: head's
// minimum is 4.1% lower and its p90 12.0% higher". Both are decided on
// 95% intervals, not on point estimates: the block minima's interval
// (Δmin) lies wholly on one side of 0 and the block p90s' (Δp90) wholly on
// the other. "" otherwise, and for a row without both intervals.
func (m *MetricResult) CeilingLine() string {
	if m.Error != "" || m.P90Verdict == nil {
		return ""
	}
	floor := [2]float64{float64(m.MinCILo), float64(m.MinCIHi)}
	ceil := [2]float64{float64(m.P90CILo), float64(m.P90CIHi)}
	for _, x := range append(floor[:], ceil[:]...) {
		if math.IsNaN(x) {
			return ""
		}
	}
	var words string
	switch {
	case floor[1] < 0 && ceil[0] > 0:
		words = "lower floor, higher ceiling: head's minimum is %s lower and its p90 %s higher"
	case floor[0] > 0 && ceil[1] < 0:
		words = "higher floor, lower ceiling: head's minimum is %s higher and its p90 %s lower"
	default:
		return ""
	}
	return fmt.Sprintf("%s: "+words+" (paired over %d rounds: block minima %s, 95%% CI %s; block p90s %s, 95%% CI %s): the fastest passes and the slowest tenth moved apart",
		m.Label, AbsPct(float64(m.DeltaMin)), AbsPct(float64(m.DeltaP90)), m.Rounds,
		Pct(m.DeltaMin), Ci(m.MinCILo, m.MinCIHi), Pct(m.DeltaP90), Ci(m.P90CILo, m.P90CIHi))
}

// ceilingLines are the CeilingLine of each primary row, for the
// qualifiers every report shows above its table; in one comparison of a
// campaign of more than two arms "head" is that arm's name.
func ceilingLines(a *Analysis) []string {
	var out []string
	for _, m := range a.PrimaryResults() {
		if l := m.CeilingLine(); l != "" {
			if n := a.Header.Arms[journal.Head].Name; n != "" {
				l = strings.Replace(l, "head's minimum", n+"'s minimum", 1)
			}
			out = append(out, l)
		}
	}
	return out
}
