// Package phases turns parsed spans and bind-phase lines into the numbers
// people compare: per-round rows, per-callable stage means, median span
// trees, bind-phase spreads and the HBG bind accounting. Its opinion: every
// number says which rounds it was computed over, and nothing is averaged
// across different round sets.
package phases

import "sort"

// median returns the median of v (the mean of the two middle values for an
// even count, as Python's statistics.median); v is not modified. It returns
// 0 for an empty slice.
func median(v []float64) float64 {
	n := len(v)
	if n == 0 {
		return 0
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// mean returns the arithmetic mean of v, 0 for an empty slice.
func mean(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	var sum float64
	for _, x := range v {
		sum += x
	}
	return sum / float64(len(v))
}

// minMax returns the smallest and largest value of a non-empty v.
func minMax(v []float64) (lo, hi float64) {
	lo, hi = v[0], v[0]
	for _, x := range v[1:] {
		if x < lo {
			lo = x
		}
		if x > hi {
			hi = x
		}
	}
	return lo, hi
}
