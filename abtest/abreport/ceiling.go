package abreport

import (
	"github.com/hbgkit/hbgkit/abtest/analysis"
	"github.com/hbgkit/hbgkit/abtest/journal"
)

// ceilingCell is the Δp90 a table prints on a head row: the paired
// analysis of the blocks' p90s (analysis.MetricResult.DeltaP90), "-" where
// none ran. Its interval and verdict are in csv and json.
func ceilingCell(m *analysis.MetricResult) string {
	if m.P90Verdict == nil {
		return "-"
	}
	return analysis.Pct(m.DeltaP90)
}

// ceilingWords is the Δp90's verdict as csv writes it; "" where none ran.
func ceilingWords(m *analysis.MetricResult) string {
	if m.P90Verdict == nil {
		return ""
	}
	return m.P90Verdict.String()
}

// ceilingMethod and ceilingLegend say what the Δp90 column holds, after
// besideMethod and besideLegend: a paired analysis, so an unpaired or
// merged report's column is "-" and says why.
func (a Report) ceilingMethod() string {
	if !a.anyCeiling() {
		return "; Δp90: a paired analysis of each block's p90, - here: no rounds were paired"
	}
	return "; Δp90: the same paired analysis on each block's p90 of its warm passes, the ceiling"
}

func (a Report) ceilingLegend() string {
	if !a.anyCeiling() {
		return "; Δp90: paired rounds only"
	}
	return "; Δp90: the same on each block's p90 (the ceiling)"
}

// anyCeiling reports whether some row has a Δp90.
func (a Report) anyCeiling() bool {
	for i := range a.Metrics {
		if a.Metrics[i].P90Verdict != nil {
			return true
		}
	}
	for _, c := range a.Comparisons {
		if For(c).anyCeiling() {
			return true
		}
	}
	return false
}

// ceilingArms is one of an arm's ceiling figures (p90 or max of its warm
// passes) for base and head, in one cell of the markdown full table:
// "1212.4→1034.7".
func ceilingArms(m *analysis.MetricResult, base, head journal.Num) string {
	return analysis.Value(base, m.Kind) + "→" + analysis.Value(head, m.Kind)
}
