package analysis

import (
	"fmt"
	"math"

	"github.com/hbgkit/hbgkit/abtest/journal"
	"github.com/hbgkit/hbgkit/abtest/stats"
)

// MinIntervalRounds is the fewest rounds (compare: logs on each arm) a
// report gives a 95% interval from. From 2, the spread of the interval
// rests on one degree of freedom: the trimmed t's quantile t(0.975, 1) is
// 12.7, against 4.3 with 3 rounds and 1.96 for a known spread, and the
// log-scale bound that follows maps through exp to numbers such as
// [−100.0%, +258213224135.4%]. Yuen's interval on 2 logs per arm has at
// most 2 degrees of freedom and fares no better. From 3 on an interval is
// wide but means what it says.
const MinIntervalRounds = 3

// MinEstimateRounds is the fewest rounds a report estimates more rounds
// from (an inconclusive row's extra rounds, the rounds the margin needs).
// Both estimates scale with the square of a spread measured on these
// rounds; below stats.MinRounds, where no Wilcoxon p can fall below 0.05
// anyway, the estimate is noise (2 logs per arm once asked for "about
// 114272 more"), so the report says how many it needs instead.
const MinEstimateRounds = stats.MinRounds

// MinEstimateLogs is MinEstimateRounds for compare: logs on each arm, the
// fewest whose rank-sum p can fall below 0.05.
const MinEstimateLogs = 4

// tooFewForInterval returns why an analysis of n rounds (unpaired: logs
// on the smaller arm) has no interval, "" when it has one.
func tooFewForInterval(n int, unpaired bool) string {
	if n >= MinIntervalRounds {
		return ""
	}
	if unpaired {
		return fmt.Sprintf("too few logs for an interval (%d on an arm; needs ≥ %d per arm)", n, MinIntervalRounds)
	}
	return fmt.Sprintf("too few rounds for an interval (%d; needs ≥ %d)", n, MinIntervalRounds)
}

// tooFewForEstimate returns why an analysis of n rounds (unpaired: logs
// on the smaller arm) estimates no rounds needed, "" when it does.
func tooFewForEstimate(n int, unpaired bool) string {
	if unpaired && n < MinEstimateLogs {
		return fmt.Sprintf("no estimate from fewer than %d logs per arm", MinEstimateLogs)
	}
	if !unpaired && n < MinEstimateRounds {
		return fmt.Sprintf("no estimate from fewer than %d rounds", MinEstimateRounds)
	}
	return ""
}

// withholdInterval drops the intervals of m, and what is computed from
// their width (the MDE), when its rounds are too few for one (NoInterval
// says why): a null in JSON and "-" in a table, never a number that means
// nothing.
func withholdInterval(m *MetricResult, unpaired bool) {
	why := tooFewForInterval(m.Rounds, unpaired)
	if why == "" || m.Error != "" {
		return
	}
	nan := journal.Num(math.NaN())
	m.CILo, m.CIHi, m.BootLo, m.BootHi, m.MinCILo, m.MinCIHi, m.MDE = nan, nan, nan, nan, nan, nan, nan
	m.NoInterval = why
}

// withholdEstimates drops the rounds-needed estimates of rows and of the
// noise footer that rest on too few rounds, saying why (NoEstimate).
func withholdEstimates(a *Analysis) {
	unpaired := a.Design != DesignInterleaved
	for i := range a.Metrics {
		m := &a.Metrics[i]
		if why := tooFewForEstimate(m.Rounds, unpaired); why != "" && m.Verdict.IsInconclusive() && !m.Gated {
			m.Extra, m.NoEstimate = 0, why
		}
	}
	if p := a.PrimaryResult(); p != nil {
		if why := tooFewForEstimate(p.Rounds, unpaired); why != "" {
			a.Noise.RoundsForMargin, a.Noise.NoEstimate = 0, why
		}
	}
}

// intervalWarning ends the warning about a small campaign: what its
// interval is worth with n rounds (logs on the smaller arm).
func intervalWarning(n int) string {
	if n < MinIntervalRounds {
		return fmt.Sprintf("with fewer than %d no interval is given", MinIntervalRounds)
	}
	return "the interval is wide"
}
