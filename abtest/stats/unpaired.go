package stats

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// An UnpairedResult is the analysis of two independent samples of block
// statistics, one value per captured log: Δ of B against A and its
// interval on the log scale, and the rank-sum test. It is what is left
// when the blocks of the two arms were not run in rounds: no pairing, so
// drift and machine state between the captures are not cancelled.
type UnpairedResult struct {
	NA, NB   int      // values (logs) per arm
	Delta    float64  // exp(T_B − T_A) − 1, T the 20%-trimmed mean of the log values
	CI       Interval // Yuen's trimmed-t interval of Δ at Level
	Level    float64
	LogDelta float64 // T_B − T_A, ln(1 + Delta)
	SE       float64 // Yuen's standard error of T_B − T_A
	DF       float64 // Welch–Satterthwaite degrees of freedom of Yuen's t
	SigmaA   float64 // sample SD of ln a: the noise of one log of A
	SigmaB   float64 // sample SD of ln b
	MDE      float64 // the Δ this interval excludes 0 for with 80% power
	RankSum  RankSumResult
}

// Unpaired analyses two independent samples of positive block statistics
// a and b (one per log). On x = ln a and y = ln b it computes:
//
//   - Δ = exp(T_y − T_x) − 1, T the 20%-trimmed mean (g = ⌊0.2n⌋ per arm),
//     so that Δ is a ratio of geometric trimmed means, like the paired Δ;
//   - Yuen's (1974) interval for the difference of trimmed means, as Wilcox
//     2012 (Introduction to Robust Estimation and Hypothesis Testing, 3rd
//     ed., §5.3) gives it: d_j = (n_j−1)·s²_wj / (h_j(h_j−1)) with s_wj the
//     20%-winsorized SD and h_j = n_j − 2g_j, SE = √(d_x+d_y), degrees of
//     freedom (d_x+d_y)² / (d_x²/(h_x−1) + d_y²/(h_y−1)), half-width
//     t(1−α/2, df)·SE, mapped through exp(·) − 1; with fewer than 5 values
//     per arm nothing is trimmed and it is Welch's interval;
//   - the Wilcoxon rank-sum test (RankSum) on the values;
//   - the MDE exp((t(1−α/2, df) + t(0.80, df))·SE) − 1.
//
// It needs 2 values per arm (an interval from one value per arm would
// rest on no estimate of the spread); it returns an error wrapping
// ErrTooFew for fewer, ErrBadArg for a level outside (0, 1), and
// ErrNotFinite or ErrNonPositive for a value that has no logarithm. When
// both arms have no spread at all, SE is 0 and the interval is the point.
func Unpaired(a, b []float64, level float64) (UnpairedResult, error) {
	const op = "unpaired analysis"
	if level == 0 {
		level = DefaultLevel
	}
	nan := math.NaN()
	res := UnpairedResult{NA: len(a), NB: len(b), Delta: nan, CI: nanInterval(), Level: level,
		LogDelta: nan, SE: nan, DF: nan, SigmaA: nan, SigmaB: nan, MDE: nan,
		RankSum: RankSumResult{W: nan, U: nan, Z: nan, P: nan}}
	if !(level > 0 && level < 1) {
		return res, fmt.Errorf("%s: %w: confidence level %v is outside (0, 1)", op, ErrBadArg, level)
	}
	if err := checkPositive(op+", arm A", a); err != nil {
		return res, err
	}
	if err := checkPositive(op+", arm B", b); err != nil {
		return res, err
	}
	if len(a) < 2 || len(b) < 2 {
		return res, fmt.Errorf("%s: %w: need 2 values per arm, have %d and %d", op, ErrTooFew, len(a), len(b))
	}
	x, y := logs(a), logs(b)
	tx, dx, hx := yuenPart(x)
	ty, dy, hy := yuenPart(y)
	res.LogDelta = ty - tx
	res.Delta = math.Expm1(res.LogDelta)
	res.SigmaA, res.SigmaB = stat.StdDev(x, nil), stat.StdDev(y, nil)
	res.SE = math.Sqrt(dx + dy)
	if res.SE == 0 {
		res.DF = math.Inf(1)
		res.CI = Interval{res.Delta, res.Delta}
		res.MDE = 0
	} else {
		res.DF = (dx + dy) * (dx + dy) / (dx*dx/float64(hx-1) + dy*dy/float64(hy-1))
		t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: res.DF}
		half := t.Quantile(1-(1-level)/2) * res.SE
		res.CI = Interval{math.Expm1(res.LogDelta - half), math.Expm1(res.LogDelta + half)}
		res.MDE = math.Expm1((t.Quantile(1-(1-level)/2) + t.Quantile(Power)) * res.SE)
	}
	rs, err := RankSum(a, b)
	if err != nil {
		return res, fmt.Errorf("%s: %w", op, err)
	}
	res.RankSum = rs
	return res, nil
}

func logs(v []float64) []float64 {
	out := make([]float64, len(v))
	for i, x := range v {
		out[i] = math.Log(x)
	}
	return out
}

// yuenPart returns the trimmed mean of x, Yuen's d = (n−1)s²_w/(h(h−1))
// and h. It requires len(x) ≥ 2 (so h ≥ 2).
func yuenPart(x []float64) (tm, d float64, h int) {
	s := sortedCopy(x)
	n := len(s)
	g := trimCount(n)
	h = n - 2*g
	sw := winsorizedSD(s, g)
	return trimmedMean(s, g), float64(n-1) * sw * sw / float64(h*(h-1)), h
}
