package stats

import (
	"errors"
	"fmt"
	"math"
)

// ErrTooFew reports that a sample is too small for the statistic asked of
// it, for example a paired analysis of one round or a trim that leaves no
// value.
var ErrTooFew = errors.New("too few values")

// ErrNotFinite reports a NaN or infinite value in the input.
var ErrNotFinite = errors.New("value is NaN or infinite")

// ErrNonPositive reports a zero or negative value where a log-ratio needs a
// positive one.
var ErrNonPositive = errors.New("value is not positive")

// ErrBadArg reports an argument outside its domain: a negative trim, a
// confidence level outside (0, 1), slices of different lengths.
var ErrBadArg = errors.New("invalid argument")

// checkFinite returns an error naming the first NaN or infinite value of x.
func checkFinite(op string, x []float64) error {
	for i, v := range x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("%s: %w: index %d is %v", op, ErrNotFinite, i, v)
		}
	}
	return nil
}

// checkPositive returns an error naming the first value of x that is not
// finite and strictly positive.
func checkPositive(op string, x []float64) error {
	if err := checkFinite(op, x); err != nil {
		return err
	}
	for i, v := range x {
		if v <= 0 {
			return fmt.Errorf("%s: %w: index %d is %v", op, ErrNonPositive, i, v)
		}
	}
	return nil
}
