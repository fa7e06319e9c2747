package stats

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// MDE returns the minimum detectable effect, as a relative change like Δ,
// of a two-sided 5% test with 80% power over rounds rounds of per-round
// noise sigmaD (the SD of the log-ratios):
// exp((z(0.975) + z(0.80))·σ_d/√R) − 1 ≈ 2.8·σ_d/√R (the normal-theory
// sample-size formula, e.g. Chow, Shao & Wang 2008, Sample Size
// Calculations in Clinical Research, §3.1). It is STATS.md's rule for
// planning a campaign from an A/A run's σ_d; it assumes normal noise and a
// known variance, so it is optimistic for the trimmed-t of R = 20 rounds
// (an effect of this size is found about 70% of the time, not 80%).
// PairedResult.MDE is the campaign's own. It returns NaN for a NaN,
// infinite or negative sigmaD or rounds < 1.
func MDE(sigmaD float64, rounds int) float64 {
	if !(sigmaD >= 0) || math.IsInf(sigmaD, 0) || rounds < 1 {
		return math.NaN()
	}
	z := distuv.UnitNormal.Quantile(1-Alpha/2) + distuv.UnitNormal.Quantile(Power)
	return math.Expm1(z * sigmaD / math.Sqrt(float64(rounds)))
}
