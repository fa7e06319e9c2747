package stats

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// A CountDiffResult is the paired analysis of a count on the differences
// of its block statistics, d[i] = b[i] − a[i], for a count that is 0 in
// some round (PairedCountDiff). Δ and the interval bounds are relative to
// A's mean, as PairedResult's are to A: −1 is "B has none".
type CountDiffResult struct {
	R        int            // rounds analysed
	Delta    float64        // Δ = mean(d) / mean(a)
	CI       Interval       // the t interval of mean(d) at Level over mean(a), its low end at −1 or above
	Level    float64        // confidence level of CI
	Wilcoxon WilcoxonResult // signed-rank test on d
	Sign     SignResult     // rounds agreeing with Δ's sign and the exact sign-test p
}

// PairedCountDiff analyses R rounds of a count whose block statistic is 0
// in some round of either arm, where Paired's log-ratio cannot be formed
// (three threads created per bind against none): on d[i] = b[i] − a[i],
// Δ = mean(d)/mean(a), its interval the Student t interval of mean(d)
// (R − 1 degrees of freedom) divided by mean(a), and the Wilcoxon
// signed-rank and sign tests of d (docs/ab-method.md "Counts that are
// zero"). A count has no fewer than none, so the low end stops at −1. It
// returns an error wrapping ErrTooFew for fewer than 2 rounds,
// ErrNonPositive when mean(a) is not above 0 (no ratio to A), ErrBadArg
// for lengths that differ or a level outside (0, 1) and ErrNotFinite for
// NaN or infinite values.
func PairedCountDiff(a, b []float64, level float64) (CountDiffResult, error) {
	const op = "paired count differences"
	nan := math.NaN()
	if level == 0 {
		level = DefaultLevel
	}
	res := CountDiffResult{R: len(a), Delta: nan, CI: nanInterval(), Level: level,
		Wilcoxon: WilcoxonResult{WPlus: nan, WMinus: nan, Z: nan, P: nan}, Sign: SignResult{P: nan}}
	switch {
	case !(level > 0 && level < 1):
		return res, fmt.Errorf("%s: %w: confidence level %v is outside (0, 1)", op, ErrBadArg, level)
	case len(a) != len(b):
		return res, fmt.Errorf("%s: %w: %d rounds of A, %d of B", op, ErrBadArg, len(a), len(b))
	case len(a) < 2:
		return res, fmt.Errorf("%s: %w: need 2 rounds, have %d", op, ErrTooFew, len(a))
	}
	if err := checkFinite(op+", arm A", a); err != nil {
		return res, err
	}
	if err := checkFinite(op+", arm B", b); err != nil {
		return res, err
	}
	d := make([]float64, len(a))
	for i := range a {
		d[i] = b[i] - a[i]
	}
	ma, md := stat.Mean(a, nil), stat.Mean(d, nil)
	if !(ma > 0) {
		return res, fmt.Errorf("%s: %w: arm A's mean is %v", op, ErrNonPositive, ma)
	}
	n := float64(len(d))
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: n - 1}.Quantile(1 - (1-level)/2)
	half := t * stat.StdDev(d, nil) / math.Sqrt(n)
	res.Delta = md / ma
	res.CI = Interval{max(-1, (md-half)/ma), max(-1, (md+half)/ma)}
	w, err := Wilcoxon(d)
	if err != nil {
		return res, fmt.Errorf("%s: %w", op, err)
	}
	res.Wilcoxon = w
	res.Sign = signAgreement(d, md)
	return res, nil
}

// UnpairedCountDiff is PairedCountDiff for two independent samples of
// block statistics (hbgbench compare's logs): Δ = mean(b)/mean(a) − 1,
// its interval Welch's t interval of mean(b) − mean(a) divided by
// mean(a), its low end at −1 or above, and p the Wilcoxon rank-sum test of
// a and b. Two samples without spread give the point as the interval.
// It returns an error wrapping ErrTooFew for fewer than 2 values in a
// sample, ErrNonPositive when mean(a) is not above 0, ErrBadArg for a
// level outside (0, 1) and ErrNotFinite for NaN or infinite values.
func UnpairedCountDiff(a, b []float64, level float64) (delta float64, ci Interval, rs RankSumResult, err error) {
	const op = "unpaired count differences"
	nan := math.NaN()
	if level == 0 {
		level = DefaultLevel
	}
	delta, ci, rs = nan, nanInterval(), RankSumResult{W: nan, U: nan, Z: nan, P: nan}
	switch {
	case !(level > 0 && level < 1):
		return delta, ci, rs, fmt.Errorf("%s: %w: confidence level %v is outside (0, 1)", op, ErrBadArg, level)
	case len(a) < 2 || len(b) < 2:
		return delta, ci, rs, fmt.Errorf("%s: %w: need 2 values per sample, have %d and %d", op, ErrTooFew, len(a), len(b))
	}
	if err := checkFinite(op+", sample A", a); err != nil {
		return delta, ci, rs, err
	}
	if err := checkFinite(op+", sample B", b); err != nil {
		return delta, ci, rs, err
	}
	ma, mb := stat.Mean(a, nil), stat.Mean(b, nil)
	if !(ma > 0) {
		return delta, ci, rs, fmt.Errorf("%s: %w: sample A's mean is %v", op, ErrNonPositive, ma)
	}
	na, nb := float64(len(a)), float64(len(b))
	qa, qb := stat.Variance(a, nil)/na, stat.Variance(b, nil)/nb
	half := 0.0
	if se := math.Sqrt(qa + qb); se > 0 {
		df := (qa + qb) * (qa + qb) / (qa*qa/(na-1) + qb*qb/(nb-1))
		half = distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(1-(1-level)/2) * se
	}
	md := mb - ma
	r, err := RankSum(a, b)
	if err != nil {
		return delta, ci, rs, fmt.Errorf("%s: %w", op, err)
	}
	return md / ma, Interval{max(-1, (md-half)/ma), max(-1, (md+half)/ma)}, r, nil
}
