package stats

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestDecide(t *testing.T) {
	t.Parallel()
	nan := math.NaN()
	tests := []struct {
		name   string
		delta  float64
		ci     Interval
		rounds int
		margin float64
		want   Verdict
	}{
		{"faster", -0.03, Interval{-0.04, -0.02}, 10, 0.01, Verdict{Call: Faster}},
		{"slower", 0.03, Interval{0.02, 0.04}, 10, 0.01, Verdict{Call: Slower}},
		{"no change", 0.001, Interval{-0.005, 0.007}, 10, 0.01, Verdict{Call: NoChange}},
		{"no change at the margins", 0, Interval{-0.01, 0.01}, 10, 0.01, Verdict{Call: NoChange}},
		{"small slowdown", 0.005, Interval{0.002, 0.008}, 10, 0.01, Verdict{Call: Small}},
		{"small speedup", -0.005, Interval{-0.008, -0.002}, 10, 0.01, Verdict{Call: Small}},
		// 80% power against the margin: R* = R·(f·(U−L)/(2w))² with
		// f = (t₀.₉₇₅ + t₀.₈)/t₀.₉₇₅ on the trimmed t's h − 1 df. R = 10:
		// df 5, t 2.5706 and 0.9195, f² = 1.8433.
		{"U on −M is not faster", -0.015, Interval{-0.02, -0.01}, 10, 0.01,
			// w = 0.005, ((U−L)/(2w))² = 1: 10·1.8433 − 10 = 8.43 → 9.
			Verdict{Call: Inconclusive, ExtraRounds: 9}},
		// Δ = 1.5%, CI [0.5%, 2.5%], R = 10, M = 1%: w = 0.5%,
		// (U−L)/(2w) = 2, so 10·4·1.8433 − 10 = 63.7 → 64 more rounds.
		{"inconclusive above", 0.015, Interval{0.005, 0.025}, 10, 0.01, Verdict{Call: Inconclusive, ExtraRounds: 64}},
		// Δ = 0, CI [−2%, 2%], R = 20 (df 11, t 2.2010 and 0.8755,
		// f² = 1.9537): w = M, 20·4·1.9537 − 20 = 136.3 → 137 more.
		{"inconclusive wide", 0, Interval{-0.02, 0.02}, 20, 0.01, Verdict{Call: Inconclusive, ExtraRounds: 137}},
		// Non-integer: Δ = −0.4%, CI [−1.3%, 0.5%], R = 7 (df 4, t 2.7764
		// and 0.9410, f² = 1.7927): w = 0.6%, (0.018/0.012)² = 2.25,
		// 7·2.25·1.7927 − 7 = 21.2 → 22.
		{"rounded up", -0.004, Interval{-0.013, 0.005}, 7, 0.01, Verdict{Call: Inconclusive, ExtraRounds: 22}},
		{"Δ on the margin", 0.01, Interval{0.0, 0.02}, 10, 0.01, Verdict{Call: Inconclusive, ExtraRounds: -1}},
		{"zero margin, exact zero", 0, Interval{0, 0}, 10, 0, Verdict{Call: NoChange}},
		{"zero margin, slower", 0.001, Interval{0.0005, 0.002}, 10, 0, Verdict{Call: Slower}},
		{"NaN Δ", nan, Interval{0, 1}, 10, 0.01, Verdict{Call: Inconclusive, ExtraRounds: -1}},
		{"NaN bound", 0, Interval{nan, 1}, 10, 0.01, Verdict{Call: Inconclusive, ExtraRounds: -1}},
		{"NaN margin", 0, Interval{0, 0}, 10, nan, Verdict{Call: Inconclusive, ExtraRounds: -1}},
		{"negative margin", 0, Interval{0, 0}, 10, -0.01, Verdict{Call: Inconclusive, ExtraRounds: -1}},
		{"no rounds", 0.03, Interval{0.02, 0.04}, 0, 0.01, Verdict{Call: Inconclusive, ExtraRounds: -1}},
		{"hopeless", 0.0100001, Interval{-1, 5}, 10, 0.01, Verdict{Call: Inconclusive, ExtraRounds: -1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, Decide(tc.delta, tc.ci, tc.rounds, tc.margin))
		})
	}
}

func TestVerdictGate(t *testing.T) {
	t.Parallel()
	gated := Verdict{Call: Inconclusive, ExtraRounds: -1, Gated: true}
	tests := []struct {
		name string
		v    Verdict
		adjP float64
		want Verdict
	}{
		{"slower and significant", Verdict{Call: Slower}, 0.01, Verdict{Call: Slower}},
		{"faster and significant", Verdict{Call: Faster}, 0.049, Verdict{Call: Faster}},
		{"slower, p at alpha", Verdict{Call: Slower}, 0.05, gated},
		{"faster, p large", Verdict{Call: Faster}, 0.3, gated},
		{"faster, p NaN", Verdict{Call: Faster}, math.NaN(), gated},
		{"no change passes", Verdict{Call: NoChange}, 0.9, Verdict{Call: NoChange}},
		{"small passes", Verdict{Call: Small}, 0.9, Verdict{Call: Small}},
		{"inconclusive passes", Verdict{Call: Inconclusive, ExtraRounds: 4}, 0.01, Verdict{Call: Inconclusive, ExtraRounds: 4}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, tc.v.Gate(tc.adjP))
		})
	}
}

func TestCallString(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "faster", Faster.String())
	assert.Equal(t, "slower", Slower.String())
	assert.Equal(t, "no change", NoChange.String())
	assert.Equal(t, "~ small", Small.String())
	assert.Equal(t, "inconclusive", Inconclusive.String())
	assert.Equal(t, "inconclusive", Call(99).String())
	assert.Equal(t, "slower", Verdict{Call: Slower}.String())
	var zero Verdict
	assert.Equal(t, "inconclusive", zero.String(), "the zero Verdict concludes nothing")
}

func TestMDE(t *testing.T) {
	t.Parallel()
	// z(0.975) + z(0.80) = 1.959964 + 0.841621 = 2.801585 ("≈ 2.8").
	assert.InDelta(t, math.Expm1(2.801585*0.01/math.Sqrt(20)), MDE(0.01, 20), 1e-8)
	assert.InDelta(t, 0.0062842, MDE(0.01, 20), 1e-7)
	assert.Equal(t, 0.0, MDE(0, 10))
	for _, bad := range []struct {
		s float64
		r int
	}{{-0.01, 10}, {math.NaN(), 10}, {math.Inf(1), 10}, {0.01, 0}, {0.01, -3}} {
		assert.True(t, math.IsNaN(MDE(bad.s, bad.r)), "MDE(%v, %d)", bad.s, bad.r)
	}
}

func TestMinRounds(t *testing.T) {
	t.Parallel()
	// MinRounds is the first R whose smallest exact p is below Alpha.
	assert.GreaterOrEqual(t, signedRankP(MinRounds-1, 0), Alpha)
	assert.Less(t, signedRankP(MinRounds, 0), Alpha)
}

// TestCallText: every call's word is its text form, read back to the
// same call; another word is refused.
func TestCallText(t *testing.T) {
	for _, c := range Calls() {
		b, err := c.MarshalText()
		assert.NoError(t, err)
		assert.Equal(t, c.String(), string(b))
		var back Call
		assert.NoError(t, back.UnmarshalText(b))
		assert.Equal(t, c, back)
	}
	var c Call
	assert.Error(t, c.UnmarshalText([]byte("more CPU")), "a kind's word is no call")
}
