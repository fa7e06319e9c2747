package stats

import (
	"errors"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPairedCountDiff: three, three, three and two births against none
// is Δ −100%, its t interval's low end held at −100% (a count has no
// fewer than none), the high end (−2.75 + t(3)·0.5/2)/2.75.
func TestPairedCountDiff(t *testing.T) {
	t.Parallel()
	r, err := PairedCountDiff([]float64{3, 3, 3, 2}, []float64{0, 0, 0, 0}, 0)
	require.NoError(t, err)
	assert.Equal(t, 4, r.R)
	assert.InDelta(t, -1.0, r.Delta, 1e-12)
	assert.Equal(t, -1.0, r.CI.Lo)
	assert.InDelta(t, (-2.75+3.182446305284263*0.5/2)/2.75, r.CI.Hi, 1e-9)
	assert.Equal(t, 4, r.Sign.Agree)
	assert.Equal(t, 4, r.Wilcoxon.N)
	assert.Less(t, r.Wilcoxon.P, 0.2)

	// One more than base in every round: Δ is the ratio of the means.
	r, err = PairedCountDiff([]float64{0, 2, 4}, []float64{1, 3, 5}, 0)
	require.NoError(t, err)
	assert.InDelta(t, 0.5, r.Delta, 1e-12)
	assert.InDelta(t, 0.5, r.CI.Lo, 1e-12, "no spread: the interval is the point")
	assert.InDelta(t, 0.5, r.CI.Hi, 1e-12)
}

func TestPairedCountDiffErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		a, b []float64
		want error
	}{
		{"base never counted", []float64{0, 0}, []float64{1, 2}, ErrNonPositive},
		{"one round", []float64{3}, []float64{0}, ErrTooFew},
		{"lengths", []float64{3, 3}, []float64{0}, ErrBadArg},
		{"NaN", []float64{3, math.NaN()}, []float64{0, 0}, ErrNotFinite},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := PairedCountDiff(tc.a, tc.b, 0)
			assert.True(t, errors.Is(err, tc.want), "%v", err)
			assert.True(t, math.IsNaN(r.Delta))
		})
	}
}

// TestUnpairedCountDiff: three logs of 3, 3 and 2 births against three of
// none is Δ −100%, the low end held there, the high end Welch's
// (−8/3 + t(2)·sd/√3)/(8/3); base never counting has no ratio.
func TestUnpairedCountDiff(t *testing.T) {
	t.Parallel()
	d, ci, rs, err := UnpairedCountDiff([]float64{3, 3, 2}, []float64{0, 0, 0}, 0)
	require.NoError(t, err)
	assert.InDelta(t, -1.0, d, 1e-12)
	assert.Equal(t, -1.0, ci.Lo)
	sd := math.Sqrt(1.0 / 3)
	assert.InDelta(t, (-8.0/3+4.302652729911275*sd/math.Sqrt(3))/(8.0/3), ci.Hi, 1e-9)
	assert.Equal(t, 3, rs.NA)
	assert.Less(t, rs.P, 0.2)

	_, _, _, err = UnpairedCountDiff([]float64{0, 0}, []float64{1, 2}, 0)
	assert.True(t, errors.Is(err, ErrNonPositive), "%v", err)
	_, _, _, err = UnpairedCountDiff([]float64{3}, []float64{0, 0}, 0)
	assert.True(t, errors.Is(err, ErrTooFew), "%v", err)
}
