package stats

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLag1(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		x    []float64
		want float64
		err  error
	}{
		// 1..5: mean 3, deviations −2 −1 0 1 2, Σ products of neighbours
		// 2 + 0 + 0 + 2 = 4, Σ squares 10.
		{name: "trend", x: []float64{1, 2, 3, 4, 5}, want: 0.4},
		// Alternating: mean 0, Σ products −3, Σ squares 4.
		{name: "alternating", x: []float64{1, -1, 1, -1}, want: -0.75},
		{name: "three", x: []float64{1, 2, 4}, want: ((-4.0/3)*(-1.0/3) + (-1.0/3)*(5.0/3)) / (16.0/9 + 1.0/9 + 25.0/9)},
		{name: "two", x: []float64{1, 2}, want: math.NaN(), err: ErrTooFew},
		{name: "empty", x: nil, want: math.NaN(), err: ErrTooFew},
		{name: "constant", x: []float64{3, 3, 3}, want: math.NaN(), err: ErrBadArg},
		{name: "NaN", x: []float64{1, math.NaN(), 3}, want: math.NaN(), err: ErrNotFinite},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Lag1(tc.x)
			if tc.err != nil {
				require.ErrorIs(t, err, tc.err)
				assert.Contains(t, err.Error(), "lag-1 autocorrelation: ")
			} else {
				require.NoError(t, err)
			}
			assertSame(t, tc.want, got, "Lag1")
		})
	}
}

func TestDriftSlope(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		y    []float64
		want float64
		err  error
	}{
		{name: "line", y: []float64{2, 5, 8, 11}, want: 3},
		{name: "two", y: []float64{1, 0}, want: -1},
		{name: "flat", y: []float64{4, 4, 4}, want: 0},
		// y = 0 2 1 3 over x = 0 1 2 3: Σ(x−1.5)(y−1.5) = 2.5 + (−0.25) ... = 2, Σ(x−1.5)² = 5.
		{name: "noisy", y: []float64{0, 2, 1, 3}, want: 0.8},
		{name: "one", y: []float64{1}, want: math.NaN(), err: ErrTooFew},
		{name: "Inf", y: []float64{1, math.Inf(1)}, want: math.NaN(), err: ErrNotFinite},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := DriftSlope(tc.y)
			if tc.err != nil {
				require.ErrorIs(t, err, tc.err)
				assert.Contains(t, err.Error(), "drift slope: ")
			} else {
				require.NoError(t, err)
			}
			assertSame(t, tc.want, got, "DriftSlope")
		})
	}
}
