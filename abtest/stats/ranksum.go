package stats

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"
)

// RankSumExactMax is the largest size of either sample for which RankSum
// computes the exact null distribution (when the pooled values have no
// ties); from it on, or with ties, it uses the normal approximation. R's
// wilcox.test uses the same bound (exact when both samples have fewer than
// 50 values).
const RankSumExactMax = 50

// A RankSumResult is the outcome of a two-sided Wilcoxon rank-sum
// (Mann–Whitney) test of the hypothesis that two independent samples come
// from the same distribution, against a shift of one against the other.
type RankSumResult struct {
	NA, NB int     // sizes of the samples
	W      float64 // sum of the ranks of sample B in the pooled sample (midranks for ties)
	U      float64 // Mann–Whitney U of B: W − NB(NB+1)/2, the pairs (a, b) with b > a (ties count ½)
	Ties   bool    // whether two pooled values are equal
	Exact  bool    // P comes from the exact null distribution
	Z      float64 // the continuity-corrected normal score; NaN when Exact
	P      float64 // two-sided p-value
}

// RankSum runs the two-sided Wilcoxon rank-sum test (Mann–Whitney U test)
// of samples a and b (Wilcoxon 1945; Mann & Whitney 1947; Hollander, Wolfe
// & Chicken 2014, Nonparametric Statistical Methods, 3rd ed., §4.1).
//
// The pooled values are ranked, ties getting midranks; W is the rank sum
// of b and U = W − n_b(n_b+1)/2. With both samples smaller than
// RankSumExactMax and no ties, P is exact: twice the smaller tail of the
// null distribution of U (every choice of n_b of the n_a+n_b ranks equally
// likely), capped at 1, as R's wilcox.test computes it. Otherwise P uses the
// normal approximation with mean n_a·n_b/2, variance
// n_a·n_b/12·((N+1) − Σ(t³−t)/(N(N−1))) over tie groups of size t (N =
// n_a+n_b), and a continuity correction of 0.5 toward the mean (Hollander,
// Wolfe & Chicken §4.1, "Large-sample approximation" and "Ties").
//
// It returns an error wrapping ErrTooFew when a sample is empty and
// ErrNotFinite for a NaN or infinite value.
func RankSum(a, b []float64) (RankSumResult, error) {
	const op = "wilcoxon rank-sum test"
	nan := math.NaN()
	r := RankSumResult{NA: len(a), NB: len(b), W: nan, U: nan, Z: nan, P: nan}
	if len(a) == 0 || len(b) == 0 {
		return r, fmt.Errorf("%s: %w: %d values in A, %d in B", op, ErrTooFew, len(a), len(b))
	}
	if err := checkFinite(op+", sample A", a); err != nil {
		return r, err
	}
	if err := checkFinite(op+", sample B", b); err != nil {
		return r, err
	}
	type obs struct {
		v   float64
		inB bool
	}
	pool := make([]obs, 0, len(a)+len(b))
	for _, v := range a {
		pool = append(pool, obs{v, false})
	}
	for _, v := range b {
		pool = append(pool, obs{v, true})
	}
	slices.SortFunc(pool, func(x, y obs) int {
		switch {
		case x.v < y.v:
			return -1
		case x.v > y.v:
			return 1
		}
		return 0
	})
	var tieTerm float64 // Σ(t³ − t) over tie groups
	r.W = 0
	for i := 0; i < len(pool); {
		j := i + 1
		for j < len(pool) && pool[j].v == pool[i].v {
			j++
		}
		rank := float64(i+1+j) / 2
		for _, o := range pool[i:j] {
			if o.inB {
				r.W += rank
			}
		}
		if t := float64(j - i); t > 1 {
			r.Ties = true
			tieTerm += t*t*t - t
		}
		i = j
	}
	na, nb := float64(r.NA), float64(r.NB)
	r.U = r.W - nb*(nb+1)/2
	if r.NA < RankSumExactMax && r.NB < RankSumExactMax && !r.Ties {
		r.Exact = true
		r.P = rankSumP(r.NA, r.NB, int(math.Round(r.U)))
		return r, nil
	}
	mean := na * nb / 2
	variance := rankSumVariance(na, nb, tieTerm)
	diff := r.U - mean
	diff -= math.Copysign(math.Min(math.Abs(diff), 0.5), diff)
	if !(variance > 0) {
		// Every pooled value equal: the ranks carry no information.
		r.Z = 0
		r.P = 1
		return r, nil
	}
	r.Z = diff / math.Sqrt(variance)
	r.P = math.Min(1, 2*distuv.UnitNormal.Survival(math.Abs(r.Z)))
	return r, nil
}

// rankSumVariance is the null variance of U for samples of sizes na and nb
// with tie term Σ(t³ − t): na·nb/12·((N+1) − Σ(t³−t)/(N(N−1))).
func rankSumVariance(na, nb, tieTerm float64) float64 {
	n := na + nb
	return na * nb / 12 * ((n + 1) - tieTerm/(n*(n-1)))
}

// rankSumCounts returns c with c[u] the number of ways of choosing nb of
// the ranks 1..na+nb whose U = (sum − nb(nb+1)/2) is u, for u = 0..na·nb:
// the exact null distribution of U times C(na+nb, nb). It runs the subset
// recursion over the ranks, tracking (subset size, U) (Hollander, Wolfe &
// Chicken 2014 §4.1, Comment 9). Counts beyond 2⁵³ are rounded, which
// leaves the p-value's relative error near 1e-16.
func rankSumCounts(na, nb int) []float64 {
	n := na + nb
	// c[k][s]: subsets of size k of the ranks seen so far with rank sum s.
	maxS := nb*n - nb*(nb-1)/2
	c := make([][]float64, nb+1)
	for k := range c {
		c[k] = make([]float64, maxS+1)
	}
	c[0][0] = 1
	for rank := 1; rank <= n; rank++ {
		for k := min(rank, nb); k >= 1; k-- {
			for s := maxS; s >= rank; s-- {
				c[k][s] += c[k-1][s-rank]
			}
		}
	}
	minS := nb * (nb + 1) / 2
	return c[nb][minS : minS+na*nb+1]
}

// rankSumP returns the exact two-sided p-value of U = u for untied
// samples of sizes na and nb: min(1, 2·min(P(U ≤ u), P(U ≥ u))).
func rankSumP(na, nb, u int) float64 {
	c := rankSumCounts(na, nb)
	var lower, upper, total float64
	for s, k := range c {
		total += k
		if s <= u {
			lower += k
		}
		if s >= u {
			upper += k
		}
	}
	return math.Min(1, 2*math.Min(lower, upper)/total)
}
