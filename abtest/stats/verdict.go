package stats

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// Alpha is the significance level of the Wilcoxon gate on phase rows.
const Alpha = 0.05

// Power is the power at which MDE is computed.
const Power = 0.80

// DefaultMargin is the equivalence margin M of the verdict when none is
// given or taken from an A/A run: 1%.
const DefaultMargin = 0.01

// MinRounds is the fewest rounds whose Wilcoxon p can fall below Alpha:
// with 5 rounds the smallest exact two-sided p is 2/2⁵ = 0.0625. A campaign
// with fewer rounds should warn.
const MinRounds = 6

// A Call is the outcome of a verdict.
type Call int

// The calls, in the order docs/ab-method.md "The verdict" evaluates them
// (Inconclusive is the
// zero value: a verdict not yet reached concludes nothing).
const (
	Inconclusive Call = iota // the interval straddles a margin: more rounds needed
	Faster                   // U < −M: B is faster by more than the margin
	Slower                   // L > M: B is slower by more than the margin
	NoChange                 // −M ≤ L, U ≤ M and the interval contains 0
	Small                    // −M ≤ L, U ≤ M and the interval excludes 0: real but below the margin
	// Bounded is a sequential look's call only (StopWithin): the repeated
	// interval straddles a margin but lies within ±W, the bound the
	// campaign stops for "no change" at: no change of W or more.
	Bounded
)

// String returns the word a report prints for c: "faster", "slower",
// "no change", "~ small", "bounded" or "inconclusive".
func (c Call) String() string {
	switch c {
	case Faster:
		return "faster"
	case Slower:
		return "slower"
	case NoChange:
		return "no change"
	case Small:
		return "~ small"
	case Bounded:
		return "bounded"
	default:
		return "inconclusive"
	}
}

// Calls returns every call, in the order of their constants.
func Calls() []Call { return []Call{Inconclusive, Faster, Slower, NoChange, Small, Bounded} }

// MarshalText writes c's word (String), as a journal's look line holds it.
func (c Call) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// UnmarshalText reads the word MarshalText writes.
func (c *Call) UnmarshalText(b []byte) error {
	for _, k := range Calls() {
		if k.String() == string(b) {
			*c = k
			return nil
		}
	}
	return fmt.Errorf("call %q: want faster, slower, no change, ~ small, bounded or inconclusive", b)
}

// A Verdict is the call on one metric with, for an inconclusive one, an
// estimate of the rounds that would settle it.
type Verdict struct {
	Call Call
	// ExtraRounds, for Inconclusive, estimates the rounds to add for 80%
	// power to clear the margin if Δ stayed where it is, the power the MDE
	// line uses: ⌈R·(f·(U−L)/(2w))² − R⌉ with w = | |Δ| − M | and
	// f = (t₀.₉₇₅ + t₀.₈)/t₀.₉₇₅ on the trimmed t's degrees of freedom, at
	// least 1. (Without f it would be the rounds that bring the expected
	// interval to the margin: a coin flip, not advice.) It is −1 when
	// no estimate exists (Δ sits on the margin, an input is NaN, or the
	// interval alone did not make the row inconclusive, see Gated), and 0 for
	// the other calls.
	ExtraRounds int
	// Gated reports that the interval alone called the row faster or
	// slower but its Holm-adjusted Wilcoxon p was not below Alpha (see
	// Verdict.Gate).
	Gated bool
}

// String returns v.Call.String().
func (v Verdict) String() string { return v.Call.String() }

// Decide returns the verdict for the estimate delta with interval ci over
// rounds rounds against the equivalence margin margin (a fraction: 0.01 is
// 1%), in the order of docs/ab-method.md "The verdict": ci.Hi < −M is
// Faster; ci.Lo > M is Slower;
// −M ≤ ci.Lo and ci.Hi ≤ M is NoChange when ci contains 0, else Small;
// anything else is Inconclusive with ExtraRounds set. The comparisons are on
// the Δ scale, as that page writes them.
//
// A NaN delta or bound, a NaN or negative margin, or rounds < 1 give
// Inconclusive with ExtraRounds −1: nothing can be concluded.
func Decide(delta float64, ci Interval, rounds int, margin float64) Verdict {
	unknown := Verdict{Call: Inconclusive, ExtraRounds: -1}
	if math.IsNaN(delta) || math.IsNaN(ci.Lo) || math.IsNaN(ci.Hi) || !(margin >= 0) || rounds < 1 {
		return unknown
	}
	lo, hi, m := ci.Lo, ci.Hi, margin
	switch {
	case hi < -m:
		return Verdict{Call: Faster}
	case lo > m:
		return Verdict{Call: Slower}
	case -m <= lo && hi <= m:
		if ci.Contains(0) {
			return Verdict{Call: NoChange}
		}
		return Verdict{Call: Small}
	}
	w := math.Abs(math.Abs(delta) - m)
	r := float64(rounds)
	// The interval's half-width is t₀.₉₇₅·σ_t/√R; 80% power against the
	// margin at this Δ needs (t₀.₉₇₅ + t₀.₈)·σ_t/√R* = w.
	tt := trimT{df: max(1, rounds-2*trimCount(rounds)-1)}
	t975, t80 := tt.tQuantile(1-Alpha/2), tt.tQuantile(Power)
	extra := r*math.Pow((t975+t80)/t975*(hi-lo)/(2*w), 2) - r
	if w == 0 || math.IsNaN(extra) || extra > math.MaxInt32 {
		return unknown
	}
	// Round up, forgiving the last bits of floating-point error so that an
	// exact 30 is not read as 30.000000000000018 and reported as 31.
	return Verdict{Call: Inconclusive, ExtraRounds: max(1, int(math.Ceil(extra-1e-9)))}
}

// Gate applies the rule of docs/ab-method.md "The verdict" for secondary
// rows: a secondary metric is called
// faster or slower only when its Holm-adjusted Wilcoxon p (see Holm) is
// below Alpha as well; otherwise it reads inconclusive, with Gated set and
// ExtraRounds −1. Other calls pass unchanged. A NaN adjP never passes.
func (v Verdict) Gate(adjP float64) Verdict {
	if (v.Call == Faster || v.Call == Slower) && !(adjP < Alpha) {
		return Verdict{Call: Inconclusive, ExtraRounds: -1, Gated: true}
	}
	return v
}

// detectZ is z(1 − Alpha/2) + z(Power), about 2.80: the normal-theory
// factor of a two-sided 5% test with 80% power.
func detectZ() float64 {
	return distuv.UnitNormal.Quantile(1-Alpha/2) + distuv.UnitNormal.Quantile(Power)
}

// RoundsFor returns the rounds a campaign with per-round noise sigmaD (the
// SD of the log-ratios) needs to detect a relative change of effect with
// 80% power: ⌈(detectZ·σ_d / ln(1 + effect))²⌉, the inverse of MDE's rule.
// It returns 0 when sigmaD or effect is not positive and finite.
func RoundsFor(sigmaD, effect float64) int {
	if !(sigmaD > 0) || !(effect > 0) || math.IsInf(sigmaD, 0) || math.IsInf(effect, 0) {
		return 0
	}
	return int(math.Ceil(math.Pow(detectZ()*sigmaD/math.Log1p(effect), 2)))
}

// TrimmedMDE returns the minimum detectable effect of the paired trimmed-t
// procedure over rounds rounds whose log-ratios have the 20%-winsorized SD
// sw: exp((t(1−α/2, h−1) + t(Power, h−1))·sw/(0.6·√R)) − 1 with
// h = R − 2⌊0.2R⌋ (see Paired). sw is the one spread of a campaign: the
// interval, the MDE and TrimmedRoundsFor all rest on it, so the rounds a
// report asks for are the rounds at which its MDE would be the margin. It
// returns NaN for rounds < 2 or a negative, NaN or infinite sw.
func TrimmedMDE(sw float64, rounds int) float64 {
	if rounds < 2 || !(sw >= 0) || math.IsInf(sw, 0) {
		return math.NaN()
	}
	r := trimT{df: rounds - 2*trimCount(rounds) - 1, se: trimmedSE(sw, rounds)}
	return r.mde(DefaultLevel)
}

// maxRoundsFor bounds TrimmedRoundsFor's answer: beyond it the answer is
// "more than any campaign would run", reported as 0 (no estimate).
const maxRoundsFor = 1 << 24

// TrimmedRoundsFor returns the fewest rounds R ≥ 2 at which TrimmedMDE(sw,
// R) ≤ effect: the campaign length that detects a relative change of
// effect with 80% power, by the procedure the report runs and from the
// spread its interval uses (not the raw σ_d, which one outlying round can
// inflate several times over). It returns 0 when sw or effect is not
// positive and finite, or when more than 2²⁴ rounds would be needed.
func TrimmedRoundsFor(sw, effect float64) int {
	if !(sw > 0) || !(effect > 0) || math.IsInf(sw, 0) || math.IsInf(effect, 0) {
		return 0
	}
	// TrimmedMDE is not monotone below 6 rounds (at R = 5 the first trim
	// costs a degree of freedom: MDE(5) > MDE(4)), so scan those; from 6 on
	// it falls with R (TestTrimmedMDEFallsFromSixRounds), so bracket and
	// bisect.
	for r := 2; r <= 6; r++ {
		if TrimmedMDE(sw, r) <= effect {
			return r
		}
	}
	lo, hi := 6, 12 // MDE(lo) > effect
	for TrimmedMDE(sw, hi) > effect {
		if hi >= maxRoundsFor {
			return 0
		}
		lo, hi = hi, min(2*hi, maxRoundsFor)
	}
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if TrimmedMDE(sw, mid) <= effect {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

// SpreadInterval returns the level confidence interval of a standard
// deviation σ estimated as s with df degrees of freedom, by the chi-square
// pivot df·s²/σ² ~ χ²(df) of normal theory (Sheskin 2011, Handbook of
// Parametric and Nonparametric Statistical Procedures, 5th ed., Test 3):
// [s·√(df/χ²(1−α/2)), s·√(df/χ²(α/2))]. Heavy-tailed rounds spread more
// than it says; it is a floor on the uncertainty, not a ceiling. NaN
// bounds for df < 1, a level outside (0, 1) or s not finite and ≥ 0.
func SpreadInterval(s float64, df int, level float64) Interval {
	if df < 1 || !(level > 0 && level < 1) || !(s >= 0) || math.IsInf(s, 0) {
		return nanInterval()
	}
	c := distuv.ChiSquared{K: float64(df)}
	a := (1 - level) / 2
	return Interval{s * math.Sqrt(float64(df)/c.Quantile(1-a)), s * math.Sqrt(float64(df)/c.Quantile(a))}
}

// TrimmedDF returns the degrees of freedom of the trimmed-t over rounds
// rounds, h − 1 with h = R − 2⌊0.2R⌋: those its spread s_w rests on.
func TrimmedDF(rounds int) int { return rounds - 2*trimCount(rounds) - 1 }

// TrimmedMDEInterval returns the 95% interval of TrimmedMDE(sw, rounds)
// that follows from the uncertainty of sw itself (SpreadInterval on
// TrimmedDF(rounds) degrees of freedom): the range of MDEs, and so of
// margins, that an A/A campaign of this many rounds is consistent with.
func TrimmedMDEInterval(sw float64, rounds int) Interval {
	iv := SpreadInterval(sw, TrimmedDF(rounds), DefaultLevel)
	return Interval{TrimmedMDE(iv.Lo, rounds), TrimmedMDE(iv.Hi, rounds)}
}

// RoundsToPinSpread returns the fewest rounds whose trimmed spread's 95%
// upper bound (SpreadInterval) is within factor times the estimate:
// factor 1.25 asks that the true spread, and so the MDE's log, be at most
// 25% above what was measured. It returns 0 for factor ≤ 1 or beyond
// 2²⁴ rounds.
func RoundsToPinSpread(factor float64) int {
	if !(factor > 1) || math.IsInf(factor, 0) {
		return 0
	}
	ok := func(r int) bool { return SpreadInterval(1, TrimmedDF(r), DefaultLevel).Hi <= factor }
	// The bound falls with the degrees of freedom, 3k − 1 at R = 5k (a
	// local minimum) and at most 3k at the four rounds before: bisect on
	// the multiples of 5, then scan from the four rounds below the last
	// one that failed.
	hi := 5
	for !ok(hi) {
		if hi >= maxRoundsFor {
			return 0
		}
		hi *= 2
	}
	lo := hi / 2
	for hi-lo > 5 {
		mid := (lo + (hi-lo)/2) / 5 * 5
		if mid <= lo {
			break
		}
		if ok(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	for r := max(2, lo-4); r <= hi; r++ {
		if ok(r) {
			return r
		}
	}
	return hi
}
