package stats

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// A Stratum is one stratum's share of a stratified analysis: its paired
// log-ratios' 20%-trimmed mean with its Tukey–McLaughlin interval.
type Stratum struct {
	R       int      // rounds of the stratum
	Delta   float64  // exp(trimmed mean) − 1
	CI      Interval // its trimmed-t interval at the analysis' level
	LogMean float64  // the trimmed mean of d
	SE      float64  // its standard error s_w / (0.6·√R)
	DF      int      // h − 1
	Weight  float64  // 1 / SE², the inverse-variance weight
	// Outlier is set when the stratum's interval excludes the pooled Δ.
	Outlier bool
}

// A StratifiedResult pools the strata of one paired metric
// (docs/ab-operations.md "Merging: hbgbench report J1 J2 … or DIR"): the
// inverse-variance weighted mean of the strata's
// trimmed means, and Cochran's Q for their heterogeneity.
type StratifiedResult struct {
	Strata  []Stratum
	R       int      // rounds over every stratum
	Delta   float64  // exp(pooled log-mean) − 1
	CI      Interval // pooled ± t(1−α/2, ΣDF)·SE, mapped through exp(·) − 1
	LogMean float64
	SE      float64 // 1/√(Σ weights)
	DF      int     // Σ of the strata's DF
	Level   float64
	P       float64 // two-sided t test of a pooled log-mean of 0, ΣDF degrees of freedom
	// Q is Cochran's Q = Σ w_k (m_k − m)², QP its χ²(K−1) upper tail and I2
	// Higgins' I² = max(0, (Q − (K−1))/Q): how much of the strata's
	// spread is beyond their own intervals. NaN for one stratum.
	Q, QP, I2 float64
}

// Stratified pools the paired log-ratios d[k] of K strata (one slice per
// stratum; rounds are paired within their stratum, never across): each
// stratum's 20%-trimmed mean m_k with its trimmed-t standard error se_k
// (as Paired computes them), combined by inverse-variance weighting,
// m = Σ w_k m_k / Σ w_k with w_k = 1/se_k² and SE 1/√Σ w_k (the fixed-effect
// estimate of a meta-analysis; Borenstein et al. 2009, Introduction to
// Meta-Analysis, ch. 11). The interval is m ± t(1−α/2, Σ(h_k − 1))·SE
// and P the matching t test of m = 0. Heterogeneity is Cochran's Q on
// K − 1 degrees of freedom (ch. 16) with I². level 0 means DefaultLevel.
//
// Every stratum needs 2 rounds or more and a nonzero spread (a standard
// error of 0 would take all the weight); it returns an error wrapping
// ErrTooFew or ErrBadArg naming the stratum otherwise.
func Stratified(d [][]float64, level float64) (StratifiedResult, error) {
	const op = "stratified analysis"
	if level == 0 {
		level = DefaultLevel
	}
	nan := math.NaN()
	res := StratifiedResult{Delta: nan, CI: nanInterval(), LogMean: nan, SE: nan, P: nan, Q: nan, QP: nan, I2: nan, Level: level}
	if !(level > 0 && level < 1) {
		return res, fmt.Errorf("%s: %w: confidence level %v is outside (0, 1)", op, ErrBadArg, level)
	}
	if len(d) == 0 {
		return res, fmt.Errorf("%s: %w: no stratum", op, ErrTooFew)
	}
	if r, ok := constantStrata(d, level); ok {
		return r, nil
	}
	var sumW, sumWM float64
	for k, x := range d {
		if err := checkFinite(op, x); err != nil {
			return res, fmt.Errorf("stratum %d: %w", k, err)
		}
		tt, err := trimmedT(op, x, level)
		if err != nil {
			return res, fmt.Errorf("stratum %d: %w", k, err)
		}
		if !(tt.se > 0) {
			return res, fmt.Errorf("%s: %w: stratum %d has no spread between its rounds, so no weight", op, ErrBadArg, k)
		}
		s := Stratum{R: len(x), LogMean: tt.est, SE: tt.se, DF: tt.df, Weight: 1 / (tt.se * tt.se),
			Delta: math.Expm1(tt.est), CI: Interval{math.Expm1(tt.lo), math.Expm1(tt.hi)}}
		res.Strata = append(res.Strata, s)
		res.R += s.R
		res.DF += s.DF
		sumW += s.Weight
		sumWM += s.Weight * s.LogMean
	}
	res.LogMean = sumWM / sumW
	res.SE = 1 / math.Sqrt(sumW)
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(res.DF)}
	half := t.Quantile(1-(1-level)/2) * res.SE
	res.Delta = math.Expm1(res.LogMean)
	res.CI = Interval{math.Expm1(res.LogMean - half), math.Expm1(res.LogMean + half)}
	res.P = math.Min(1, 2*t.Survival(math.Abs(res.LogMean/res.SE)))
	for k := range res.Strata {
		res.Strata[k].Outlier = !res.Strata[k].CI.Contains(res.Delta)
	}
	if k := len(res.Strata); k > 1 {
		q := 0.0
		for _, s := range res.Strata {
			q += s.Weight * (s.LogMean - res.LogMean) * (s.LogMean - res.LogMean)
		}
		res.Q = q
		res.QP = distuv.ChiSquared{K: float64(k - 1)}.Survival(q)
		res.I2 = 0
		if q > 0 {
			res.I2 = math.Max(0, (q-float64(k-1))/q)
		}
	}
	return res, nil
}

// constantStrata is the analysis of strata whose log-ratios are all one
// value (a count both arms did the same of): that value exactly, with a
// zero-width interval, as Paired gives for one such stratum.
func constantStrata(d [][]float64, level float64) (StratifiedResult, bool) {
	if len(d) == 0 || len(d[0]) == 0 {
		return StratifiedResult{}, false
	}
	v := d[0][0]
	res := StratifiedResult{Level: level, LogMean: v, Delta: math.Expm1(v), SE: 0, P: 1, Q: math.NaN(), QP: math.NaN(), I2: math.NaN()}
	for _, x := range d {
		if len(x) < 2 {
			return StratifiedResult{}, false
		}
		for _, y := range x {
			if y != v {
				return StratifiedResult{}, false
			}
		}
		res.Strata = append(res.Strata, Stratum{R: len(x), LogMean: v, Delta: res.Delta, CI: Interval{res.Delta, res.Delta}, DF: len(x) - 2*trimCount(len(x)) - 1})
		res.R += len(x)
		res.DF += res.Strata[len(res.Strata)-1].DF
	}
	res.CI = Interval{res.Delta, res.Delta}
	if v != 0 {
		res.P = 0
	}
	return res, true
}
