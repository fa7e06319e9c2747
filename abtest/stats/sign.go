package stats

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// SignTest returns the exact two-sided p-value of the sign test: k of n
// rounds agreeing in sign when, under the null, each agrees with
// probability ½. It is min(1, 2·P(X ≥ max(k, n−k))) for X ~ Binomial(n, ½)
// (Conover 1999, Practical Nonparametric Statistics, 3rd ed., §3.4). Five
// unanimous rounds give 0.0625, six give 0.03125: a unanimous 5/5 is not a
// 5% test.
//
// n = 0 gives 1. SignTest returns NaN for n < 0 or k outside [0, n].
func SignTest(k, n int) float64 {
	if n < 0 || k < 0 || k > n {
		return math.NaN()
	}
	if n == 0 {
		return 1
	}
	// P(X ≥ hi) = P(X ≤ n − hi) by symmetry of Binomial(n, ½).
	lo := n - max(k, n-k)
	if n > exactSignMaxN {
		return math.Min(1, 2*distuv.Binomial{N: float64(n), P: 0.5}.CDF(float64(lo)))
	}
	// Up to 62 rounds, count in integers: Σ_{i ≤ lo} C(n, i) < 2⁶², and the
	// p-value is that count over 2^(n−1), exact but for the final rounding.
	var count, c uint64 = 0, 1 // c = C(n, i)
	for i := 0; i <= lo; i++ {
		count += c
		c = c * uint64(n-i) / uint64(i+1)
	}
	return math.Min(1, float64(count)/math.Ldexp(1, n-1))
}

// exactSignMaxN is the largest n for which SignTest counts binomial
// coefficients in uint64 (C(n, i)·(n−i) stays below 2⁶⁴); above it the tail
// comes from gonum's regularized incomplete beta.
const exactSignMaxN = 62

// A SignResult is the sign agreement of the paired differences: Agree of
// N non-zero rounds have the sign of Δ, with the SignTest p-value. Rounds
// whose difference is exactly zero agree with neither sign and are left out
// of N, as the sign test requires (Conover 1999 §3.4); Zeros counts them.
type SignResult struct {
	Agree int     // rounds whose difference has Δ's sign (the larger side when Δ is 0)
	N     int     // rounds with a non-zero difference
	Zeros int     // rounds with a zero difference
	P     float64 // SignTest(Agree, N)
}

// signAgreement counts the rounds of d that agree in sign with est.
func signAgreement(d []float64, est float64) SignResult {
	var pos, neg, zero int
	for _, v := range d {
		switch {
		case v > 0:
			pos++
		case v < 0:
			neg++
		default:
			zero++
		}
	}
	k := max(pos, neg)
	switch {
	case est > 0:
		k = pos
	case est < 0:
		k = neg
	}
	return SignResult{Agree: k, N: pos + neg, Zeros: zero, P: SignTest(k, pos+neg)}
}
