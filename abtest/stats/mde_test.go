package stats

import (
	"math"
	"testing"
)

// MDE returns the minimum detectable effect, as a relative change like Δ,
// of a two-sided 5% test with 80% power over rounds rounds of per-round
// noise sigmaD (the SD of the log-ratios):
// exp((z(0.975) + z(0.80))·σ_d/√R) − 1 ≈ 2.8·σ_d/√R (the normal-theory
// sample-size formula, e.g. Chow, Shao & Wang 2008, Sample Size
// Calculations in Clinical Research, §3.1). It is the rule of thumb of
// docs/ab-method.md "The noise footer" for
// planning a campaign from an A/A run's σ_d; it assumes normal noise and a
// known variance, so it is optimistic for the trimmed-t of R = 20 rounds
// (an effect of this size is found about 70% of the time, not 80%).
// PairedResult.MDE is the campaign's own. It returns NaN for a NaN,
// infinite or negative sigmaD or rounds < 1.
func MDE(sigmaD float64, rounds int) float64 {
	if !(sigmaD >= 0) || math.IsInf(sigmaD, 0) || rounds < 1 {
		return math.NaN()
	}
	return math.Expm1(detectZ() * sigmaD / math.Sqrt(float64(rounds)))
}

// TestRoundsForInvertsMDE: the rounds RoundsFor asks for detect exactly the
// effect MDE says those rounds detect.
func TestRoundsForInvertsMDE(t *testing.T) {
	t.Parallel()
	for _, sd := range []float64{0.01, 0.05, 0.2} {
		for _, r := range []int{6, 10, 20, 50} {
			if got := RoundsFor(sd, MDE(sd, r)*(1+1e-9)); got != r {
				t.Errorf("RoundsFor(%v, MDE(%v, %d)) = %d", sd, sd, r, got)
			}
		}
	}
	if RoundsFor(0, 0.01) != 0 || RoundsFor(0.1, 0) != 0 || RoundsFor(math.NaN(), 0.01) != 0 {
		t.Error("RoundsFor of a non-positive or NaN input is not 0")
	}
}
