// Package phases turns parsed spans and bind-phase lines into the numbers
// people compare: per-round rows, per-callable stage means, median span
// trees, bind-phase spreads and the HBG bind accounting. Its opinion: every
// number says which rounds it was computed over, and nothing is averaged
// across different round sets.
package phases

import (
	"math/big"
	"math/bits"
	"slices"
	"sort"
)

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

// medianInt returns the median of the integers v as strace_timing's
// _median does: the middle value, or for an even count the exact sum of the
// two middle values rounded once to a float64 and halved. Adding them as
// float64s would round each first, which past 2^53 ns moves the printed
// median. v is not modified; 0 for an empty slice.
func medianInt(v []int64) float64 {
	n := len(v)
	if n == 0 {
		return 0
	}
	s := append([]int64(nil), v...)
	slices.Sort(s)
	if n%2 == 1 {
		return float64(s[n/2])
	}
	return roundInt128(sum128(s[n/2-1:n/2+1])) / 2
}

// int128 is a signed 128-bit integer, hi:lo in two's complement: wide
// enough for the sum of any count of int64 values a log can hold.
type int128 struct {
	hi int64
	lo uint64
}

// add returns s + x.
func (s int128) add(x int64) int128 {
	var carry uint64
	s.lo, carry = bits.Add64(s.lo, uint64(x), 0)
	s.hi += int64(carry)
	if x < 0 {
		s.hi--
	}
	return s
}

// sum128 returns the exact sum of v.
func sum128(v []int64) int128 {
	var s int128
	for _, x := range v {
		s = s.add(x)
	}
	return s
}

// big returns s as a big.Int.
func (s int128) big() *big.Int {
	b := new(big.Int).SetInt64(s.hi)
	b.Lsh(b, 64)
	return b.Add(b, new(big.Int).SetUint64(s.lo))
}

// exactFloat is the largest magnitude below which every integer is a
// float64.
const exactFloat = 1 << 53

// small reports whether s is an int64 of magnitude below 2^53, which a
// float64 holds exactly.
func (s int128) small() (int64, bool) {
	x := int64(s.lo)
	if (s.hi == 0 && x >= 0 || s.hi == -1 && x < 0) && x > -exactFloat && x < exactFloat {
		return x, true
	}
	return 0, false
}

// roundInt128 returns the float64 nearest to s (ties to even), as Python's
// float() of an int rounds it: once.
func roundInt128(s int128) float64 {
	if x, ok := s.small(); ok {
		return float64(x)
	}
	f, _ := new(big.Float).SetInt(s.big()).Float64()
	return f
}

// quoInt128 returns the float64 nearest to s / n (ties to even), as
// Python's true division of two ints rounds the exact quotient once.
func quoInt128(s int128, n int) float64 {
	if x, ok := s.small(); ok && n < exactFloat {
		// Both operands are exact, so IEEE division rounds once.
		return float64(x) / float64(n)
	}
	f, _ := new(big.Rat).SetFrac(s.big(), big.NewInt(int64(n))).Float64()
	return f
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
