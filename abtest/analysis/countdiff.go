package analysis

import (
	"github.com/hbgkit/hbgkit/abtest/journal"
	"github.com/hbgkit/hbgkit/abtest/stats"
)

// countDiff analyses a lane metric whose block statistic was 0 in some
// round (lanes.gaps_with_birth: three threads born in gaps per bind
// against none; a commit wait of 0 when recording finished first), which
// no log-ratio takes, on the differences of its block
// statistics (stats.PairedCountDiff): Δ is the ratio of the arms' mean
// block statistics (the row's mean Levels) minus 1, with the t interval
// of the mean difference, and p the Wilcoxon signed-rank p of the
// differences, decided as any row (Decide). It reports false, leaving m,
// when base's mean is 0 (no ratio to it) or there are too few rounds.
// Only the lanes family takes it (docs/ab-method.md "Counts that are
// zero"): the counters' and attributes' discrete events keep their "k of
// N" lines and no Δ, as their calibration was measured.
func countDiff(m *MetricResult, stat [2][]float64) bool {
	r, err := stats.PairedCountDiff(stat[journal.Base], stat[journal.Head], 0)
	if err != nil {
		return false
	}
	m.CountDiff = true
	m.Delta, m.CILo, m.CIHi = journal.Num(r.Delta), journal.Num(r.CI.Lo), journal.Num(r.CI.Hi)
	m.SignK, m.SignN, m.SignP = r.Sign.Agree, r.Sign.N, journal.Num(r.Sign.P)
	m.P, m.HolmP, m.Zeros = journal.Num(r.Wilcoxon.P), journal.Num(r.Wilcoxon.P), r.Wilcoxon.Zeros
	withholdInterval(m, false)
	return true
}

// unpairedCountDiff is countDiff for compare's logs, independent samples
// (stats.UnpairedCountDiff): Δ the ratio of the arms' mean block
// statistics minus 1 with Welch's interval of their difference, p the
// rank-sum p. The row's levels become those means (LevelMean), the
// figures Δ is a ratio of.
func unpairedCountDiff(m *MetricResult, stat [2][]float64) bool {
	d, ci, rs, err := stats.UnpairedCountDiff(stat[journal.Base], stat[journal.Head], 0)
	if err != nil {
		return false
	}
	m.CountDiff = true
	m.Delta, m.CILo, m.CIHi = journal.Num(d), journal.Num(ci.Lo), journal.Num(ci.Hi)
	m.P, m.HolmP = journal.Num(rs.P), journal.Num(rs.P)
	withholdInterval(m, true)
	return true
}
