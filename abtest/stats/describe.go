package stats

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat"
)

// A Summary describes one arm's passes: the columns the community reads
// ("drop the 10 highest and 10 lowest, then average"; "the minimum
// decides") next to robust ones. It is descriptive only: passes are not
// independent, so no test is run on them.
type Summary struct {
	N            int     // number of passes
	Trim         int     // passes dropped from each end for TrimmedMean and winsorized for WinsorizedSD
	Mean         float64 // arithmetic mean
	Median       float64 // middle value, the mean of the two middle ones when N is even
	Min          float64 // smallest pass
	Max          float64 // largest pass
	TrimmedMean  float64 // mean after dropping the Trim highest and Trim lowest passes
	WinsorizedSD float64 // SD (N−1 denominator) after winsorizing Trim passes at each end; NaN when N < 2
}

// Describe summarises the passes of one arm, trimming trim passes from each
// end (the community's "drop 10 and 10 of 50" is trim = 10).
//
// It returns an error wrapping ErrTooFew for no passes, ErrNotFinite for a
// NaN or infinite pass, and ErrBadArg for a negative trim. A trim that
// leaves no pass (2·trim ≥ N) also wraps ErrTooFew; the Summary returned
// with that error still holds N, Mean, Median, Min and Max, with
// TrimmedMean and WinsorizedSD NaN.
func Describe(passes []float64, trim int) (Summary, error) {
	const op = "describing passes"
	nan := math.NaN()
	s := Summary{N: len(passes), Trim: trim, Mean: nan, Median: nan, Min: nan, Max: nan, TrimmedMean: nan, WinsorizedSD: nan}
	if len(passes) == 0 {
		return s, fmt.Errorf("%s: %w: no passes", op, ErrTooFew)
	}
	if err := checkFinite(op, passes); err != nil {
		return s, err
	}
	if trim < 0 {
		return s, fmt.Errorf("%s: %w: trim %d is negative", op, ErrBadArg, trim)
	}
	// Work on values scaled by a power of two so that sums cannot overflow.
	sc := powerScale(passes)
	sorted := sortedCopy(scaled(passes, sc))
	s.Mean = stat.Mean(sorted, nil) / sc
	s.Median = median(sorted) / sc
	s.Min, s.Max = sorted[0]/sc, sorted[len(sorted)-1]/sc
	if 2*trim >= len(passes) {
		return s, fmt.Errorf("%s: %w: trimming %d from each end of %d passes leaves none", op, ErrTooFew, trim, len(passes))
	}
	s.TrimmedMean = trimmedMean(sorted, trim) / sc
	s.WinsorizedSD = winsorizedSD(sorted, trim) / sc
	return s, nil
}
