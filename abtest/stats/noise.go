package stats

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat"
)

// Lag1 returns the lag-1 autocorrelation of x in time order,
// r₁ = Σ(x_t − x̄)(x_{t+1} − x̄) / Σ(x_t − x̄)² (Box, Jenkins, Reinsel &
// Ljung 2015, Time Series Analysis, 5th ed., eq. 2.1.12). Applied to the
// pass totals of a campaign it says whether consecutive passes are
// independent (near 0) or share state (positive): the reason passes are not
// the unit of inference. Under independence r₁ is about 0 ± 2/√n.
//
// It returns NaN and an error wrapping ErrTooFew for fewer than 3 values,
// ErrNotFinite for a NaN or infinite one, and ErrBadArg when all values are
// equal (the ratio is 0/0).
func Lag1(x []float64) (float64, error) {
	const op = "lag-1 autocorrelation"
	if len(x) < 3 {
		return math.NaN(), fmt.Errorf("%s: %w: need 3 values, have %d", op, ErrTooFew, len(x))
	}
	if err := checkFinite(op, x); err != nil {
		return math.NaN(), err
	}
	x = scaled(x, powerScale(x)) // r₁ is scale-free; scaling keeps the sums finite
	m := stat.Mean(x, nil)
	var num, den float64
	for t, v := range x {
		den += (v - m) * (v - m)
		if t+1 < len(x) {
			num += (v - m) * (x[t+1] - m)
		}
	}
	if den == 0 {
		return math.NaN(), fmt.Errorf("%s: %w: all %d values are equal", op, ErrBadArg, len(x))
	}
	return num / den, nil
}

// DriftSlope returns the least-squares slope of y against its position
// 0, 1, …, n−1, in units of y per step: the linear drift of a campaign.
// Pass the logarithms of block statistics in time order to read it as a
// relative change per block. It uses gonum's stat.LinearRegression.
//
// It returns NaN and an error wrapping ErrTooFew for fewer than 2 values
// and ErrNotFinite for a NaN or infinite one (or a slope beyond float64).
func DriftSlope(y []float64) (float64, error) {
	const op = "drift slope"
	if len(y) < 2 {
		return math.NaN(), fmt.Errorf("%s: %w: need 2 values, have %d", op, ErrTooFew, len(y))
	}
	if err := checkFinite(op, y); err != nil {
		return math.NaN(), err
	}
	x := make([]float64, len(y))
	for i := range x {
		x[i] = float64(i)
	}
	sc := powerScale(y) // the slope scales with y; scaling keeps the sums finite
	_, beta := stat.LinearRegression(x, scaled(y, sc), nil, false)
	if beta /= sc; math.IsInf(beta, 0) {
		return math.NaN(), fmt.Errorf("%s: %w: the slope overflows", op, ErrNotFinite)
	}
	return beta, nil
}
