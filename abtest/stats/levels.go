package stats

import (
	"fmt"
	"math"
	"slices"
)

// PairedLevels returns the level of each arm that the paired Δ compares:
// the geometric means of a and of b over the rounds the 20%-trimmed mean
// of the log-ratios ln(b/a) keeps. Their ratio is exp of that trimmed
// mean, so lb/la − 1 is Paired's Δ exactly, and a report that prints the
// two levels beside Δ cannot contradict it. Ties among the log-ratios keep
// the earlier rounds. It needs the inputs Paired needs.
func PairedLevels(a, b []float64) (la, lb float64, err error) {
	const op = "paired levels"
	d, err := LogRatios(a, b)
	if err != nil {
		return math.NaN(), math.NaN(), fmt.Errorf("%s: %w", op, err)
	}
	if len(d) < 2 {
		return math.NaN(), math.NaN(), fmt.Errorf("%s: %w: need 2 rounds, have %d", op, ErrTooFew, len(d))
	}
	idx := make([]int, len(d))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(i, j int) int {
		switch {
		case d[i] < d[j]:
			return -1
		case d[i] > d[j]:
			return 1
		}
		return 0
	})
	g := trimCount(len(d))
	var sa, sb float64
	kept := idx[g : len(idx)-g]
	for _, i := range kept {
		sa += math.Log(a[i])
		sb += math.Log(b[i])
	}
	n := float64(len(kept))
	return math.Exp(sa / n), math.Exp(sb / n), nil
}

// TrimmedGeoMean returns exp of the 20%-trimmed mean of ln(x): the level
// Unpaired's Δ compares for one arm, so that TrimmedGeoMean(b) /
// TrimmedGeoMean(a) − 1 is its Δ. NaN when a value is not above 0 or x is
// empty.
func TrimmedGeoMean(x []float64) float64 {
	if len(x) == 0 {
		return math.NaN()
	}
	l := make([]float64, len(x))
	for i, v := range x {
		if !(v > 0) || math.IsInf(v, 0) {
			return math.NaN()
		}
		l[i] = math.Log(v)
	}
	slices.Sort(l)
	return math.Exp(trimmedMean(l, trimCount(len(l))))
}
