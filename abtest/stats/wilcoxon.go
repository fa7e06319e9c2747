package stats

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// ExactMaxN is the largest number of non-zero differences for which
// Wilcoxon computes the exact null distribution (when they have no ties);
// above it, or with ties, it uses the normal approximation. 50 is the
// bound of docs/ab-method.md "The paired analysis over rounds" and the
// usual one (R's wilcox.test, SciPy).
const ExactMaxN = 50

// A WilcoxonResult is the outcome of a two-sided Wilcoxon signed-rank test
// of the hypothesis that differences are symmetric about zero.
type WilcoxonResult struct {
	N      int     // non-zero differences ranked
	Zeros  int     // zero differences dropped before ranking
	Ties   bool    // whether two non-zero |differences| are equal
	WPlus  float64 // sum of the ranks of the positive differences (midranks for ties)
	WMinus float64 // sum of the ranks of the negative differences
	Exact  bool    // P comes from the exact null distribution
	Z      float64 // the continuity-corrected normal score; NaN when Exact
	P      float64 // two-sided p-value; 1 when N is 0 (nothing to rank is no evidence)
}

// Wilcoxon runs the two-sided Wilcoxon signed-rank test on the paired
// differences d (Wilcoxon 1945; Hollander, Wolfe & Chicken 2014,
// Nonparametric Statistical Methods, 3rd ed., §3.1).
//
// Zero differences are dropped and counted (Wilcoxon's own treatment). The
// remaining N are ranked by absolute value, ties getting midranks. With
// N ≤ ExactMaxN and no ties, P is exact: twice the smaller tail of the
// null distribution of W+, enumerated by counting subsets of {1..N} by sum,
// capped at 1 (the convention of R's psignrank-based wilcox.test).
// Otherwise P uses the normal approximation with mean N(N+1)/4, variance
// N(N+1)(2N+1)/24 − Σ(t³−t)/48 over tie groups of size t, and a continuity
// correction of 0.5 toward the mean (Hollander, Wolfe & Chicken §3.1,
// "Large-sample approximation" and "Ties").
//
// It returns an error wrapping ErrTooFew for an empty d and ErrNotFinite
// for a NaN or infinite difference.
func Wilcoxon(d []float64) (WilcoxonResult, error) {
	const op = "wilcoxon signed-rank test"
	nan := math.NaN()
	r := WilcoxonResult{WPlus: nan, WMinus: nan, Z: nan, P: nan}
	if len(d) == 0 {
		return r, fmt.Errorf("%s: %w: no differences", op, ErrTooFew)
	}
	if err := checkFinite(op, d); err != nil {
		return r, err
	}
	nz := make([]float64, 0, len(d))
	for _, v := range d {
		if v == 0 {
			r.Zeros++
			continue
		}
		nz = append(nz, v)
	}
	r.N = len(nz)
	r.WPlus, r.WMinus = 0, 0
	if r.N == 0 {
		r.P = 1
		r.Exact = true
		return r, nil
	}
	slices.SortFunc(nz, func(a, b float64) int { return cmp.Compare(math.Abs(a), math.Abs(b)) })
	// Midranks: a run of equal |d| at 0-based positions i..j-1 all get the
	// mean of ranks i+1..j, (i+1+j)/2.
	var tieTerm float64 // Σ(t³ − t) over tie groups
	for i := 0; i < len(nz); {
		j := i + 1
		for j < len(nz) && math.Abs(nz[j]) == math.Abs(nz[i]) {
			j++
		}
		rank := float64(i+1+j) / 2
		for _, v := range nz[i:j] {
			if v > 0 {
				r.WPlus += rank
			} else {
				r.WMinus += rank
			}
		}
		if t := float64(j - i); t > 1 {
			r.Ties = true
			tieTerm += t*t*t - t
		}
		i = j
	}
	n := float64(r.N)
	if r.N <= ExactMaxN && !r.Ties {
		r.Exact = true
		r.P = signedRankP(r.N, int(r.WPlus))
		return r, nil
	}
	mean := n * (n + 1) / 4
	sd := math.Sqrt(n*(n+1)*(2*n+1)/24 - tieTerm/48)
	diff := r.WPlus - mean
	// Continuity correction: move W+ half a unit toward the mean, never past it.
	diff -= math.Copysign(math.Min(math.Abs(diff), 0.5), diff)
	if sd == 0 {
		// Unreachable for N ≥ 1 (the variance is at least N(N+1)(2N+1)/24 −
		// (N³−N)/48 > 0), kept so a future change cannot divide by zero.
		return r, fmt.Errorf("%s: %w: zero variance", op, ErrTooFew)
	}
	r.Z = diff / sd
	r.P = math.Min(1, 2*distuv.UnitNormal.Survival(math.Abs(r.Z)))
	return r, nil
}

// signedRankCounts returns c with c[s] the number of subsets of {1..n}
// whose sum is s, for s = 0..n(n+1)/2: the exact null distribution of W+
// times 2^n. It is the standard recursion c_k(s) = c_{k−1}(s) + c_{k−1}(s−k)
// (Hollander, Wolfe & Chicken 2014 §3.1, Comment 9). Counts stay below 2^n,
// exact in float64 for n ≤ 53.
func signedRankCounts(n int) []float64 {
	maxS := n * (n + 1) / 2
	c := make([]float64, maxS+1)
	c[0] = 1
	for k := 1; k <= n; k++ {
		for s := k * (k + 1) / 2; s >= k; s-- {
			c[s] += c[s-k]
		}
	}
	return c
}

// signedRankP returns the exact two-sided p-value of W+ = w for n untied
// non-zero differences: min(1, 2·min(P(W+ ≤ w), P(W+ ≥ w))).
func signedRankP(n, w int) float64 {
	c := signedRankCounts(n)
	var lower, upper float64
	for s, k := range c {
		if s <= w {
			lower += k
		}
		if s >= w {
			upper += k
		}
	}
	total := math.Ldexp(1, n)
	return math.Min(1, 2*math.Min(lower, upper)/total)
}
