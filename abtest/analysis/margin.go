package analysis

import (
	"math"

	"github.com/hbgkit/hbgkit/abtest/stats"
)

// SuggestedMargin is the --margin an A/A campaign suggests: its minimum
// detectable effect rounded up to the next half percent; a smaller margin
// asks for more than this host can resolve in as many rounds.
func (a *Analysis) SuggestedMargin() float64 {
	m := float64(a.Noise.MDE)
	if math.IsNaN(m) || m <= 0 {
		return math.NaN()
	}
	return math.Ceil(m*200) / 200
}

// PinFactor is how closely MarginUncertainty asks an A/A campaign to pin
// its spread: the true spread at most 25% above the measured one.
const PinFactor = 1.25

// MarginUncertainty says how far SuggestedMargin can be trusted: the 95%
// interval of the MDE that follows from the uncertainty of the spread it
// rests on (stats.TrimmedMDEInterval: chi-square on the trimmed-t's h − 1
// degrees of freedom), each bound rounded up to the next half percent as
// the margin is, and the rounds an A/A campaign needs to pin the spread
// within PinFactor. ok is false when there is no suggested margin.
func (a *Analysis) MarginUncertainty() (iv stats.Interval, df, pinRounds int, ok bool) {
	p := a.PrimaryResult()
	if p == nil || math.IsNaN(a.SuggestedMargin()) || !(p.Sw > 0) {
		return iv, 0, 0, false
	}
	mi := stats.TrimmedMDEInterval(p.Sw, p.Rounds)
	up := func(x float64) float64 { return math.Ceil(x*200) / 200 }
	return stats.Interval{Lo: up(mi.Lo), Hi: up(mi.Hi)}, stats.TrimmedDF(p.Rounds), stats.RoundsToPinSpread(PinFactor), true
}
