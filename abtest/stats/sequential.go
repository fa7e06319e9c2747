package stats

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// The group-sequential design of `hbgbench ab --until-decided`.
//
// A campaign looks at its paired log-ratios d after some of its rounds
// (n_1 < n_2 < … counted rounds, at most nMax) and stops as soon as the
// look's repeated confidence interval (RCI) decides. The looks are paid
// for with the Lan–DeMets spending function of O'Brien–Fleming type
// (Lan & DeMets 1983, Biometrika 70:659–663):
//
//	α(t) = 2 − 2·Φ(z(1−α/2) / √t),   t = n_k / nMax (1 at the last round)
//
// Look k spends α(t_k) − α(t_{k−1}): its two-sided boundary c_k on the z
// scale solves
//
//	P₀(|Z_1| < c_1, …, |Z_{k−1}| < c_{k−1}, |Z_k| ≥ c_k) = α(t_k) − α(t_{k−1})
//
// for the Brownian motion of the cumulative sum S_n ~ N(θn, n) with
// Z_k = S_{n_k}/√n_k, by the recursive numerical integration of Armitage,
// McPherson & Rowe (1969) as Jennison & Turnbull (2000, Group Sequential
// Methods with Applications to Clinical Trials, §19.2) give it. The
// boundaries depend only on the looks' round counts and nMax, so a resumed
// or re-analysed campaign computes the same ones.
//
// The RCI of look k (Jennison & Turnbull 2000, ch. 9) is the trimmed-t
// interval of docs/ab-method.md "The paired analysis over rounds" with the
// boundary in place of 1.96: T ± q_k·SE,
// where T is the 20%-trimmed mean of d, SE = s_w/(0.6·√n) and q_k the
// quantile of Student's t with h − 1 degrees of freedom at the same tail
// probability as c_k, Φ(c_k) (the significance-level matching of
// Jennison & Turnbull 2000, §11.2, for an estimated variance). The RCIs
// cover θ at every look at once with probability 1 − α, so the verdict of
// Decide on the RCI of the look the campaign stops at — faster, slower, no
// change or ~ small — is wrong with probability at most α, however the
// stopping time was reached (Jennison & Turnbull 1993 for equivalence).

// MinLookRounds is the fewest counted rounds a look needs: a trimmed-t
// interval on fewer has one or two degrees of freedom, and an
// O'Brien–Fleming boundary that early is out of reach anyway.
const MinLookRounds = 5

// SpendOBF is the Lan–DeMets O'Brien–Fleming-type spending function:
// the type I error spent by information fraction t, 2 − 2Φ(z(1−α/2)/√t);
// 0 for t ≤ 0 and alpha for t ≥ 1.
func SpendOBF(t, alpha float64) float64 {
	switch {
	case !(t > 0):
		return 0
	case t >= 1:
		return alpha
	}
	z := distuv.UnitNormal.Quantile(1 - alpha/2)
	return 2 - 2*distuv.UnitNormal.CDF(z/math.Sqrt(t))
}

// gridPoints is the number of points (odd, for Simpson's rule) of the
// numerical integration over a look's continuation region.
const gridPoints = 401

// tail is how many SDs beyond its mean the integration follows S_n.
const tail = 10.0

// seqState is the sub-density of S_n at the last look on the event that
// no earlier look stopped, on a grid with Simpson weights.
type seqState struct {
	n   int
	s   []float64 // grid points
	w   []float64 // Simpson weights times the density
	nil bool      // no look yet
}

// simpson returns n (odd) points from lo to hi and their Simpson weights.
func simpson(lo, hi float64, n int) (x, w []float64) {
	x = make([]float64, n)
	w = make([]float64, n)
	h := (hi - lo) / float64(n-1)
	for i := range x {
		x[i] = lo + float64(i)*h
		switch {
		case i == 0 || i == n-1:
			w[i] = h / 3
		case i%2 == 1:
			w[i] = 4 * h / 3
		default:
			w[i] = 2 * h / 3
		}
	}
	return x, w
}

// crossing returns the probability that the walk continuing from st
// reaches look n outside (−b, b) on the S scale, with drift theta per
// round: P(S_n ≤ −b) + P(S_n ≥ b), and separately the upper part.
func (st seqState) crossing(n int, b, theta float64) (both, upper float64) {
	if st.nil {
		sd := math.Sqrt(float64(n))
		m := theta * float64(n)
		up := 1 - distuv.UnitNormal.CDF((b-m)/sd)
		return distuv.UnitNormal.CDF((-b-m)/sd) + up, up
	}
	dn := float64(n - st.n)
	sd := math.Sqrt(dn)
	for i, u := range st.s {
		m := u + theta*dn
		up := 1 - distuv.UnitNormal.CDF((b-m)/sd)
		both += st.w[i] * (distuv.UnitNormal.CDF((-b-m)/sd) + up)
		upper += st.w[i] * up
	}
	return both, upper
}

// advance returns the sub-density at look n on (−b, b) (b may be +Inf).
func (st seqState) advance(n int, b, theta float64) seqState {
	sd := math.Sqrt(float64(n))
	m := theta * float64(n)
	lo, hi := math.Max(-b, m-tail*sd), math.Min(b, m+tail*sd)
	next := seqState{n: n}
	if !(hi > lo) {
		// Nothing continues: every path stopped.
		next.s, next.w = []float64{0}, []float64{0}
		return next
	}
	x, w := simpson(lo, hi, gridPoints)
	next.s, next.w = x, w
	for j, s := range x {
		var f float64
		if st.nil {
			f = normPDF((s-m)/sd) / sd
		} else {
			dn := float64(n - st.n)
			dsd := math.Sqrt(dn)
			for i, u := range st.s {
				f += st.w[i] * normPDF((s-u-theta*dn)/dsd) / dsd
			}
		}
		next.w[j] = w[j] * f
	}
	return next
}

func normPDF(z float64) float64 { return math.Exp(-z*z/2) / math.Sqrt(2*math.Pi) }

// maxBoundary is the largest finite boundary Boundaries returns; a look
// that may spend nothing gets +Inf.
const maxBoundary = 30.0

// Boundaries returns the two-sided z-scale boundaries c_k of looks after
// n[0] < n[1] < … counted rounds of a design of at most nMax rounds, with
// the Lan–DeMets O'Brien–Fleming-type spending of alpha (see SpendOBF).
// A look at n ≥ nMax spends what is left. A look whose increment of α(t)
// is not positive (after a re-plan to a larger nMax, see docs/ab.md) gets
// +Inf: it cannot stop on efficacy. It returns an error wrapping ErrBadArg
// for rounds that do not increase, a look below 1 round, nMax < 1 or alpha
// outside (0, 1).
func Boundaries(n []int, nMax int, alpha float64) ([]float64, error) {
	const op = "sequential boundaries"
	if nMax < 1 || !(alpha > 0 && alpha < 1) {
		return nil, fmt.Errorf("%s: %w: at most %d rounds, alpha %v", op, ErrBadArg, nMax, alpha)
	}
	c := make([]float64, len(n))
	st := seqState{nil: true}
	spent := 0.0
	for k, nk := range n {
		if nk < 1 || k > 0 && nk <= n[k-1] {
			return nil, fmt.Errorf("%s: %w: looks at %v rounds do not increase", op, ErrBadArg, n)
		}
		target := SpendOBF(float64(nk)/float64(nMax), alpha) - spent
		if !(target > 1e-15) {
			c[k] = math.Inf(1)
		} else {
			// Bisection: the crossing probability falls as c grows.
			lo, hi := 0.0, maxBoundary
			for range 100 {
				mid := (lo + hi) / 2
				p, _ := st.crossing(nk, mid*math.Sqrt(float64(nk)), 0)
				if p > target {
					lo = mid
				} else {
					hi = mid
				}
				if hi-lo < 1e-9 {
					break
				}
			}
			c[k] = (lo + hi) / 2
			p, _ := st.crossing(nk, c[k]*math.Sqrt(float64(nk)), 0)
			spent += p
		}
		st = st.advance(nk, c[k]*math.Sqrt(float64(nk)), 0)
	}
	return c, nil
}

// UpperPower returns the probability that a design with looks after n
// rounds and boundaries c (Boundaries) stops above its upper boundary at
// some look when S_n has drift theta per round in units of the round SD
// (an effect beyond the margin divided by σ of one round).
func UpperPower(n []int, c []float64, theta float64) float64 {
	st := seqState{nil: true}
	var p float64
	for k, nk := range n {
		b := c[k] * math.Sqrt(float64(nk))
		_, up := st.crossing(nk, b, theta)
		p += up
		st = st.advance(nk, b, theta)
	}
	return math.Min(p, 1)
}

// FixedRounds returns the rounds of a fixed design — one trimmed-t
// interval at level 1 − alpha — with power power for an effect of theta
// round SDs: the fewest n ≥ 2 with (t(1−α/2, ν) + t(power, ν))/√n ≤ θ,
// ν = h − 1 the trimmed t's degrees of freedom (Chow, Shao & Wang 2008
// §3.1 with Student's t, as Paired's MDE); past 10,000 rounds the normal
// rule ⌈((z(1−α/2) + z(power))/θ)²⌉. It returns 0 when theta is not
// positive or power is not in (alpha/2, 1).
func FixedRounds(theta, alpha, power float64) int {
	if !(theta > 0) || math.IsInf(theta, 0) || !(power > alpha/2 && power < 1) {
		return 0
	}
	z := distuv.UnitNormal.Quantile(1-alpha/2) + distuv.UnitNormal.Quantile(power)
	if z <= 0 {
		return 0
	}
	r := math.Pow(z/theta, 2)
	if r > math.MaxInt32 {
		return 0
	}
	normal := int(math.Ceil(r - 1e-6))
	if normal > 10000 {
		return normal
	}
	for n := max(2, normal); ; n++ {
		g := trimCount(n)
		t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(n - 2*g - 1)}
		if (t.Quantile(1-alpha/2)+t.Quantile(power))/math.Sqrt(float64(n)) <= theta {
			return n
		}
	}
}

// A Look is the analysis of one look at the paired log-ratios.
type Look struct {
	N        int      // counted rounds
	Boundary float64  // c_k, z scale; +Inf when the look spends nothing
	Crit     float64  // q_k, the t-scale multiplier of SE; +Inf with Boundary
	Stat     float64  // T/SE, the trimmed-t statistic
	Delta    float64  // exp(T) − 1
	RCI      Interval // exp(T ± q_k·SE) − 1
	SE       float64  // s_w/(0.6·√N), log scale
	Verdict  Verdict  // Decide on the RCI, or Bounded (StopWithin)
	// EqRCI is the look's repeated CI at level 1 − 2α, the equivalence
	// test of StopWithin; zero when it was not tested.
	EqRCI Interval
}

// Decided reports whether the look stops the campaign: its verdict is
// anything but inconclusive.
func (l Look) Decided() bool { return l.Verdict.Call != Inconclusive }

// SequentialLook analyses the log-ratios d at the last of the looks after
// n rounds (n[len(n)−1] = len(d)) of a design of at most nMax rounds at
// level alpha, against the equivalence margin: the boundary (Boundaries)
// and then LookAt; with a stop-within bound w > 0, an inconclusive look
// is then tested for "no change of w or more" (StopWithin). It returns an
// error wrapping ErrBadArg or ErrTooFew when the looks are invalid or d
// has fewer than MinLookRounds values.
func SequentialLook(d []float64, n []int, nMax int, alpha, margin, w float64) (Look, error) {
	const op = "sequential look"
	if len(n) == 0 || n[len(n)-1] != len(d) {
		return Look{}, fmt.Errorf("%s: %w: the last look is not at the %d rounds given", op, ErrBadArg, len(d))
	}
	c, err := Boundaries(n, nMax, alpha)
	if err != nil {
		return Look{}, err
	}
	l, err := LookAt(d, c[len(c)-1], margin)
	if err != nil || l.Verdict.Call != Inconclusive || !(w > 0) {
		return l, err
	}
	ceq, err := Boundaries(n, nMax, 2*alpha)
	if err != nil {
		return Look{}, err
	}
	eq, err := LookAt(d, ceq[len(ceq)-1], margin)
	if err != nil {
		return Look{}, err
	}
	return StopWithin(l, eq.RCI, w), nil
}

// DefaultStopWithin is --stop-within's default bound W: a campaign of
// --until-decided stops for "no change" once it can rule out a change of
// 7.5% or more. Chosen on the harness (docs/ab-measurements.md
// "--stop-within on the harness, measured"): the smallest bound measured
// at which A/A campaigns of the default model stop in a median of at most
// 20 rounds; +10% was found in every campaign at every bound tried.
const DefaultStopWithin = 0.075

// StopWithin is the stop for "no change" of `--until-decided` (docs/ab.md
// "Stop when decided"): an inconclusive look l whose equivalence interval
// eq lies within ±w (−w ≤ L and U ≤ w, on Δ's scale as Decide compares
// the margin) is called Bounded, "no change of w or more", and stops the
// campaign; l keeps eq as EqRCI either way.
//
// eq is the repeated CI of the same looks at level 1 − 2α, two one-sided
// α tests of Δ ≤ −w and Δ ≥ w (Schuirmann 1987's TOST, in its repeated
// form, Jennison & Turnbull 1993): the claim is wrong only when the true
// Δ lies beyond one bound and eq's bound on that side misses it, which
// happens at any look with probability at most α. The stop is
// non-binding: a campaign that stops here forgoes later chances to call
// faster or slower, which can only lower the rate of false ones, so the
// efficacy boundaries are computed as if it did not exist. A look already
// decided, or w ≤ 0 (off), returns l unchanged.
func StopWithin(l Look, eq Interval, w float64) Look {
	if l.Verdict.Call != Inconclusive || !(w > 0) {
		return l
	}
	l.EqRCI = eq
	if -w <= eq.Lo && eq.Hi <= w {
		l.Verdict = Verdict{Call: Bounded}
	}
	return l
}

// LookAt analyses the log-ratios d at a look with z-scale boundary c
// against the equivalence margin: the trimmed-t statistic, the RCI
// exp(T ± q·SE) − 1 with q the t quantile at Φ(c), and Decide's verdict on
// it. An infinite c gives the RCI (−1, +Inf). It returns an error wrapping
// ErrTooFew when d has fewer than MinLookRounds values, ErrNotFinite for a
// NaN or infinite one.
func LookAt(d []float64, c, margin float64) (Look, error) {
	const op = "sequential look"
	if len(d) < MinLookRounds {
		return Look{}, fmt.Errorf("%s: %w: a look needs %d rounds, have %d", op, ErrTooFew, MinLookRounds, len(d))
	}
	if err := checkFinite(op, d); err != nil {
		return Look{}, err
	}
	tt, err := trimmedT(op, d, DefaultLevel)
	if err != nil {
		return Look{}, err
	}
	l := Look{N: len(d), Boundary: c, Delta: math.Expm1(tt.est), SE: tt.se, Crit: math.Inf(1), Stat: math.NaN()}
	if tt.se > 0 {
		l.Stat = tt.est / tt.se
	}
	if !math.IsInf(c, 1) {
		if q := tt.tQuantile(distuv.UnitNormal.CDF(c)); !math.IsNaN(q) && !math.IsInf(q, 0) {
			l.Crit = q
		}
	}
	l.RCI = Interval{-1, math.Inf(1)}
	if !math.IsInf(l.Crit, 1) {
		l.RCI = Interval{math.Expm1(tt.est - l.Crit*tt.se), math.Expm1(tt.est + l.Crit*tt.se)}
	}
	l.Verdict = Decide(l.Delta, l.RCI, l.N, margin)
	return l, nil
}

// EqualPowerRounds returns the power of a design with looks after n
// rounds and boundaries c to call a change of log size logDelta beyond the
// margin (|logDelta| − ln(1 + margin)) when one round's log-ratio has SD
// sigma, and the rounds a fixed design of that power needs
// (FixedRounds). Power is capped at 0.999. It returns 0 rounds when the
// effect does not exceed the margin or sigma is not positive.
func EqualPowerRounds(n []int, c []float64, logDelta, sigma, margin, alpha float64) (power float64, rounds int) {
	theta := (math.Abs(logDelta) - math.Log1p(margin)) / sigma
	if !(theta > 0) || math.IsInf(theta, 0) || len(n) == 0 {
		return math.NaN(), 0
	}
	power = math.Min(UpperPower(n, c, theta), 0.999)
	return power, FixedRounds(theta, alpha, power)
}
