package stats

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPairedLevelsRatioIsDelta: the levels' ratio is Paired's Δ, to the
// last bits, with outlier rounds the trimming drops (and ties).
func TestPairedLevelsRatioIsDelta(t *testing.T) {
	tests := map[string]struct{ a, b []float64 }{
		"ten rounds, outliers": {
			a: []float64{100, 101, 99, 100, 300, 100, 102, 98, 100, 101},
			b: []float64{90, 92, 89, 91, 20, 90, 93, 88, 400, 91},
		},
		"ties":       {a: []float64{5, 5, 5, 5, 5}, b: []float64{5, 5, 6, 5, 4}},
		"two rounds": {a: []float64{10, 20}, b: []float64{11, 19}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			pr, err := Paired(tc.a, tc.b, PairedOptions{})
			require.NoError(t, err)
			la, lb, err := PairedLevels(tc.a, tc.b)
			require.NoError(t, err)
			assert.InDelta(t, pr.Delta, lb/la-1, 1e-12)
		})
	}
	_, _, err := PairedLevels([]float64{1}, []float64{2})
	assert.ErrorIs(t, err, ErrTooFew)
	_, _, err = PairedLevels([]float64{1, 0}, []float64{2, 3})
	assert.Error(t, err)
}

// TestTrimmedGeoMeanRatioIsUnpairedDelta: the arms' trimmed geometric
// means give Unpaired's Δ.
func TestTrimmedGeoMeanRatioIsUnpairedDelta(t *testing.T) {
	a := []float64{100, 104, 98, 250, 101, 99}
	b := []float64{80, 83, 79, 81, 300, 82, 80}
	ur, err := Unpaired(a, b, 0)
	require.NoError(t, err)
	assert.InDelta(t, ur.Delta, TrimmedGeoMean(b)/TrimmedGeoMean(a)-1, 1e-12)
	assert.True(t, math.IsNaN(TrimmedGeoMean(nil)))
	assert.True(t, math.IsNaN(TrimmedGeoMean([]float64{1, 0})))
}

// TestTrimmedTPAgreesWithItsInterval: the trimmed-t p is below 0.05
// exactly when the 95% CI excludes Δ = 0.
func TestTrimmedTPAgreesWithItsInterval(t *testing.T) {
	base := []float64{100, 101, 99, 100, 102, 98, 100, 101, 99, 100}
	for _, shift := range []float64{0, 0.3, 0.6, 1, 2, 5} {
		b := make([]float64, len(base))
		for i, v := range base {
			b[i] = v * (1 + shift/100) * (1 + 0.01*float64(i%3-1))
		}
		pr, err := Paired(base, b, PairedOptions{})
		require.NoError(t, err)
		excludes := !pr.CI.Contains(0)
		assert.Equal(t, excludes, pr.TP < 0.05, "shift %v%%: CI %v, p %v", shift, pr.CI, pr.TP)
	}
}
