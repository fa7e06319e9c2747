package stats

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// TrimPercent is the share of rounds trimmed from each tail by the paired
// analysis (docs/ab-method.md "The paired analysis over rounds"). The
// count trimmed from each end
// of R rounds is ⌊0.2·R⌋, computed in integers as R·TrimPercent/100.
const TrimPercent = 20

// trimCount returns ⌊TrimPercent·n/100⌋, the number of values trimmed from
// each tail of n.
func trimCount(n int) int { return n * TrimPercent / 100 }

// sortedCopy returns x sorted ascending, leaving x alone.
func sortedCopy(x []float64) []float64 {
	s := slices.Clone(x)
	slices.Sort(s)
	return s
}

// powerScale returns a power of two 2^−e that brings the largest |x| near
// [0.5, 1), or 1 when x is all zero; e is kept within ±1000 so that the
// scale itself is a normal float64 (subnormal inputs come up to about
// 2⁻⁷⁴). Multiplying by a power of two is exact (short of subnormal
// underflow), so a statistic computed on scaled values and scaled back
// equals the unscaled one, except that sums of squares of values near the
// float64 limits neither overflow nor underflow.
func powerScale(x []float64) float64 {
	var m float64
	for _, v := range x {
		m = math.Max(m, math.Abs(v))
	}
	if m == 0 {
		return 1
	}
	_, e := math.Frexp(m)
	return math.Ldexp(1, -min(max(e, -1000), 1000))
}

// scaled returns x times sc.
func scaled(x []float64, sc float64) []float64 {
	y := make([]float64, len(x))
	for i, v := range x {
		y[i] = v * sc
	}
	return y
}

// median returns the middle of sorted, the mean of the two middle values
// when len(sorted) is even. gonum's stat.Quantile returns an order statistic
// (Empirical) or Hyndman–Fan type 4 (LinInterp) at p = 0.5, neither of which
// is the textbook median of an even sample, hence this helper.
func median(sorted []float64) float64 {
	n := len(sorted)
	return (sorted[(n-1)/2] + sorted[n/2]) / 2
}

// trimmedMean returns the mean of sorted without its g lowest and g highest
// values. It requires 2g < len(sorted).
func trimmedMean(sorted []float64, g int) float64 {
	return stat.Mean(sorted[g:len(sorted)-g], nil)
}

// winsorize returns a copy of sorted whose g lowest values are replaced by
// the (g+1)-th lowest and whose g highest by the (g+1)-th highest
// (Wilcox 2012, Introduction to Robust Estimation and Hypothesis Testing,
// 3rd ed., §3.3.2). It requires 2g < len(sorted).
func winsorize(sorted []float64, g int) []float64 {
	n := len(sorted)
	w := slices.Clone(sorted)
	for i := range g {
		w[i] = sorted[g]
		w[n-1-i] = sorted[n-1-g]
	}
	return w
}

// winsorizedSD returns the sample standard deviation (n−1 denominator) of
// the g-winsorized sample, Wilcox 2012 §3.3.2's s_w. It requires 2g < n and
// n ≥ 2; it returns NaN otherwise.
func winsorizedSD(sorted []float64, g int) float64 {
	if len(sorted) < 2 || 2*g >= len(sorted) {
		return math.NaN()
	}
	return stat.StdDev(winsorize(sorted, g), nil)
}

// trimT is a Tukey–McLaughlin trimmed-t estimate on the log scale.
type trimT struct {
	est    float64 // 20%-trimmed mean
	lo, hi float64 // confidence bounds
	sw     float64 // 20%-winsorized SD
	se     float64 // s_w / (0.6·√n)
	df     int     // h − 1
}

// tQuantile returns the p quantile of Student's t with r.df degrees of
// freedom.
// p returns the two-sided p of the trimmed t test of a zero mean: below
// 1 − level exactly when the interval at level excludes 0. 1 when the
// spread is 0 and the mean is 0; 0 when the spread is 0 and it is not.
func (r trimT) p() float64 {
	if r.se == 0 || math.IsNaN(r.se) {
		if r.est == 0 {
			return 1
		}
		if math.IsNaN(r.est) {
			return math.NaN()
		}
		return 0
	}
	t := math.Abs(r.est / r.se)
	return 2 * distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(r.df)}.Survival(t)
}

func (r trimT) tQuantile(p float64) float64 {
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(r.df)}.Quantile(p)
}

// trimmedSE is the trimmed mean's standard error s_w / ((1 − 2γ)·√n).
func trimmedSE(sw float64, n int) float64 {
	return sw / ((1 - 2*TrimPercent/100.0) * math.Sqrt(float64(n)))
}

// mde returns the Δ an interval of this standard error and degrees of
// freedom at level excludes 0 for with 80% power:
// exp((t(1−α/2, df) + t(Power, df))·se) − 1.
func (r trimT) mde(level float64) float64 {
	return math.Expm1((r.tQuantile(1-(1-level)/2) + r.tQuantile(Power)) * r.se)
}

// trimmedT returns the 20%-trimmed mean of x with the Tukey–McLaughlin
// (1963) confidence interval, as given by Wilcox 2012 §4.4.1 and
// docs/ab-method.md "The paired analysis over rounds":
// g = ⌊0.2n⌋, h = n − 2g, standard error s_w / (0.6·√n) with s_w the
// 20%-winsorized SD, and half-width t(1−α/2, h−1) times it. It needs h ≥ 2
// (n ≥ 2), and x finite.
func trimmedT(op string, x []float64, level float64) (trimT, error) {
	n := len(x)
	if n < 2 {
		return trimT{}, fmt.Errorf("%s: %w: a trimmed-t interval needs 2 values, have %d", op, ErrTooFew, n)
	}
	s := sortedCopy(x)
	g := trimCount(n)
	h := n - 2*g
	r := trimT{est: trimmedMean(s, g), sw: winsorizedSD(s, g), df: h - 1}
	r.se = trimmedSE(r.sw, n)
	t := r.tQuantile(1 - (1-level)/2)
	r.lo, r.hi = r.est-t*r.se, r.est+t*r.se
	return r, nil
}
