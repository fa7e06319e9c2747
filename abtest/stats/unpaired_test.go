package stats

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/gonum/stat/distuv"
)

func exps(x ...float64) []float64 {
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = math.Exp(v)
	}
	return out
}

func TestUnpairedIsWelchBelowFivePerArm(t *testing.T) {
	t.Parallel()
	// With 4 values per arm nothing is trimmed: Yuen is Welch. On the log
	// scale x = 1..4 (mean 2.5, variance 5/3) and y = 2, 4, 6, 8 (mean 5,
	// variance 20/3): SE² = 5/12 + 20/12 = 25/12, and the
	// Welch–Satterthwaite df = (25/12)² / ((5/12)²/3 + (20/12)²/3) = 75/17.
	got, err := Unpaired(exps(1, 2, 3, 4), exps(2, 4, 6, 8), 0)
	require.NoError(t, err)
	assert.InDelta(t, 2.5, got.LogDelta, 1e-12)
	assert.InDelta(t, math.Expm1(2.5), got.Delta, 1e-9)
	assert.InDelta(t, math.Sqrt(25.0/12), got.SE, 1e-12)
	assert.InDelta(t, 75.0/17, got.DF, 1e-12)
	tq := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: 75.0 / 17}.Quantile(0.975)
	assert.InDelta(t, math.Expm1(2.5-tq*math.Sqrt(25.0/12)), got.CI.Lo, 1e-9)
	assert.InDelta(t, math.Expm1(2.5+tq*math.Sqrt(25.0/12)), got.CI.Hi, 1e-9)
	// U counts the pairs with y > x, ties ½: 1.5 + 3.5 + 4 + 4.
	assert.Equal(t, 13.0, got.RankSum.U)
}

func TestUnpairedTrimsTwentyPercent(t *testing.T) {
	t.Parallel()
	// With 10 values per arm, 2 are trimmed at each end: an outlier
	// changes neither Δ nor the interval as long as it stays an extreme.
	a := exps(0, 0.01, 0.02, 0.03, 0.04, 0.05, 0.06, 0.07, 0.08, 0.09)
	b := exps(0.1, 0.11, 0.12, 0.13, 0.14, 0.15, 0.16, 0.17, 0.18, 0.19)
	got, err := Unpaired(a, b, 0)
	require.NoError(t, err)
	assert.InDelta(t, 0.1, got.LogDelta, 1e-12)
	b[9] = math.Exp(5) // a wild outlier
	out, err := Unpaired(a, b, 0)
	require.NoError(t, err)
	assert.InDelta(t, got.LogDelta, out.LogDelta, 1e-12)
	assert.InDelta(t, got.CI.Lo, out.CI.Lo, 1e-12)
	assert.InDelta(t, got.CI.Hi, out.CI.Hi, 1e-12)
	// h = 6 per arm, winsorized SD of 0..0.09 with 2 winsorized each end.
	w := []float64{0.02, 0.02, 0.02, 0.03, 0.04, 0.05, 0.06, 0.07, 0.07, 0.07}
	var m, ss float64
	for _, v := range w {
		m += v / 10
	}
	for _, v := range w {
		ss += (v - m) * (v - m)
	}
	d := ss / 9 * 9 / (6 * 5)
	assert.InDelta(t, math.Sqrt(2*d), got.SE, 1e-12)
	assert.InDelta(t, 10.0, got.DF, 1e-9, "equal parts: df = 2(h−1)")
}

func TestUnpairedSymmetryAndScale(t *testing.T) {
	t.Parallel()
	a := []float64{10, 11, 12, 10.5, 13}
	b := []float64{12, 12.5, 14, 13, 15, 16}
	ab, err := Unpaired(a, b, 0)
	require.NoError(t, err)
	ba, err := Unpaired(b, a, 0)
	require.NoError(t, err)
	assert.InDelta(t, 1, (1+ab.Delta)*(1+ba.Delta), 1e-12)
	assert.InDelta(t, 1, (1+ab.CI.Lo)*(1+ba.CI.Hi), 1e-12)
	scale := func(v []float64, c float64) []float64 {
		out := make([]float64, len(v))
		for i := range v {
			out[i] = v[i] * c
		}
		return out
	}
	sc, err := Unpaired(scale(a, 1e3), scale(b, 1e3), 0)
	require.NoError(t, err)
	assert.InDelta(t, ab.Delta, sc.Delta, 1e-12)
	assert.InDelta(t, ab.CI.Hi, sc.CI.Hi, 1e-12)
	assert.Equal(t, ab.RankSum.P, sc.RankSum.P)
}

func TestUnpairedErrors(t *testing.T) {
	t.Parallel()
	_, err := Unpaired([]float64{1}, []float64{1, 2}, 0)
	assert.ErrorIs(t, err, ErrTooFew)
	_, err = Unpaired([]float64{1, 0}, []float64{1, 2}, 0)
	assert.ErrorIs(t, err, ErrNonPositive)
	_, err = Unpaired([]float64{1, 2}, []float64{1, 2}, 1.5)
	assert.ErrorIs(t, err, ErrBadArg)
	same, err := Unpaired([]float64{3, 3}, []float64{3, 3, 3}, 0)
	require.NoError(t, err)
	assert.Equal(t, 0.0, same.Delta)
	assert.Equal(t, Interval{0, 0}, same.CI)
}

func TestUnpairedCoverage(t *testing.T) {
	t.Parallel()
	// Lognormal logs (σ = 2% per log) with a true Δ of +3%, 8 logs per
	// arm: the 95% interval covers the truth in 93–97% of 2000 samples.
	rng := rand.New(rand.NewPCG(5, 6))
	const reps = 2000
	truth := 0.03
	cover := 0
	for range reps {
		var a, b []float64
		for range 8 {
			a = append(a, 1000*math.Exp(0.02*rng.NormFloat64()))
			b = append(b, 1000*(1+truth)*math.Exp(0.02*rng.NormFloat64()))
		}
		r, err := Unpaired(a, b, 0)
		require.NoError(t, err)
		if r.CI.Contains(truth) {
			cover++
		}
	}
	assert.InDelta(t, 0.95, float64(cover)/reps, 0.02)
}
