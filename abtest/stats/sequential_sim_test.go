package stats

import (
	"math"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The seeded simulations of `hbgbench ab --until-decided` (docs/ab.md
// "Stop when decided"): the calibration model of sim_test.go with
// σ_d = 5% per round, looks every 5 rounds up to 40, the default 1%
// margin. Print the figures with
//
//	go test ./abtest/stats -run SimulationSequential -v

// seqCampaigns is the number of campaigns per sequential scenario.
const seqCampaigns = 2000

// seqModel is the model of the sequential scenarios: sim_test.go's block
// median of 4 warm passes with 5% outlier passes, σ_d = 5%.
func seqModel(effect float64) simCampaign {
	c := calibration("sequential, σ_d 5%", 4, blockMedian)
	c.sigmaD, c.effect = 0.05, effect
	return c
}

const (
	seqMaxRounds = 40
	seqLookEvery = 5
)

// seqLooks are the looks' round counts: 5, 10, …, 40.
func seqLooks() []int {
	var n []int
	for r := seqLookEvery; r <= seqMaxRounds; r += seqLookEvery {
		n = append(n, r)
	}
	return n
}

// seqRates are the outcomes of the sequential campaigns of one scenario.
type seqRates struct {
	n          int
	errs       int
	faster     float64 // share stopped faster
	slower     float64 // share stopped slower
	decided    float64 // share stopped before the last look or decided at it
	meanRounds float64 // mean rounds used
	medRounds  float64 // median rounds used
	bounded    float64 // share stopped for "no change" (StopWithin)
	// boundedWrong is the share stopped for "no change of W or more"
	// whose true Δ is W or more away.
	boundedWrong float64
	rciCover     float64 // share whose RCI at the stopping look contains the true Δ
	ciCover      float64 // share whose fixed-sample 95% CI at the stopping look contains it
	// fixedRounds is the fewest rounds a fixed design (one 95% trimmed-t
	// interval, the same margin rule) needs to call slower in as many of
	// the same campaigns as the sequential one did.
	fixedRounds int
}

// fixedZ is z(0.975): LookAt with it is the fixed design's interval.
const fixedZ = 1.959963984540054

// seqDraw draws n campaigns of c and returns their log-ratios, seqGenRounds
// rounds each: the sequential design uses the first seqMaxRounds, the
// fixed designs it is compared with up to all.
func seqDraw(c simCampaign, n int, seed uint64) ([][]float64, error) {
	c.rounds = seqGenRounds
	r := newRunner(c, seed)
	out := make([][]float64, n)
	for i := range out {
		a, b := r.next()
		d, err := LogRatios(a, b)
		if err != nil {
			return nil, err
		}
		out[i] = d
	}
	return out, nil
}

const seqGenRounds = 80

// seqSimulate runs the campaigns ds looking after seqLooks rounds with
// boundaries c_k (the sequential design) or 1.96 at every look (naive
// peeking), stopping for "no change" within ±within (0: never): each
// stops at the first look whose verdict is not inconclusive, and
// otherwise runs to the last. truth is the true Δ.
func seqSimulate(ds [][]float64, truth float64, bounds, eqBounds []float64, within float64) seqRates {
	looks := seqLooks()
	out := seqRates{n: len(ds)}
	var used []float64
	for _, d := range ds {
		var l Look
		var err error
		for k, nk := range looks {
			if l, err = LookAt(d[:nk], bounds[k], DefaultMargin); err != nil {
				break
			}
			if within > 0 && !l.Decided() {
				eq, err := LookAt(d[:nk], eqBounds[k], DefaultMargin)
				if err != nil {
					break
				}
				l = StopWithin(l, eq.RCI, within)
			}
			if l.Decided() {
				break
			}
		}
		if err != nil {
			out.errs++
			continue
		}
		switch l.Verdict.Call {
		case Faster:
			out.faster++
		case Slower:
			out.slower++
		}
		if l.Decided() {
			out.decided++
		}
		if l.Verdict.Call == Bounded {
			out.bounded++
			if math.Abs(truth) >= within {
				out.boundedWrong++
			}
		}
		out.meanRounds += float64(l.N)
		used = append(used, float64(l.N))
		if l.RCI.Contains(truth) {
			out.rciCover++
		}
		if fixed, err := LookAt(d[:l.N], fixedZ, DefaultMargin); err == nil && fixed.RCI.Contains(truth) {
			out.ciCover++
		}
	}
	fn := float64(len(ds))
	for _, v := range []*float64{&out.faster, &out.slower, &out.decided, &out.meanRounds, &out.rciCover, &out.ciCover, &out.bounded, &out.boundedWrong} {
		*v /= fn
	}
	if len(used) > 0 {
		out.medRounds = median(sortedCopy(used))
	}
	out.fixedRounds = fixedRoundsFor(ds, out.slower)
	return out
}

// fixedRoundsFor returns the fewest rounds (MinLookRounds to seqGenRounds)
// at which a fixed design calls slower in at least the share power of the
// campaigns ds, or 0 if none does. The share grows with the rounds, so it
// is found by bisection.
func fixedRoundsFor(ds [][]float64, power float64) int {
	reaches := func(n int) bool {
		slower := 0
		for _, d := range ds {
			if l, err := LookAt(d[:n], fixedZ, DefaultMargin); err == nil && l.Verdict.Call == Slower {
				slower++
			}
		}
		return float64(slower)/float64(len(ds)) >= power
	}
	lo, hi := MinLookRounds, seqGenRounds
	if !reaches(hi) {
		return 0
	}
	for lo < hi {
		mid := (lo + hi) / 2
		if reaches(mid) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}

// seqFigures are the sequential scenarios, run once per test binary.
var seqFigures = sync.OnceValues(func() (map[string]seqRates, error) {
	looks := seqLooks()
	obf, err := Boundaries(looks, seqMaxRounds, Alpha)
	if err != nil {
		return nil, err
	}
	eq, err := Boundaries(looks, seqMaxRounds, 2*Alpha)
	if err != nil {
		return nil, err
	}
	naive := make([]float64, len(looks))
	for k := range naive {
		naive[k] = fixedZ
	}
	aa, err := seqDraw(seqModel(0), seqCampaigns, 900)
	if err != nil {
		return nil, err
	}
	slow, err := seqDraw(seqModel(0.05), seqCampaigns, 901)
	if err != nil {
		return nil, err
	}
	slow10, err := seqDraw(seqModel(0.10), seqCampaigns, 902)
	if err != nil {
		return nil, err
	}
	out := map[string]seqRates{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for key, run := range map[string]func() seqRates{
		"aa/sequential":   func() seqRates { return seqSimulate(aa, 0, obf, eq, 0) },
		"aa/naive":        func() seqRates { return seqSimulate(aa, 0, naive, eq, 0) },
		"+5%/sequential":  func() seqRates { return seqSimulate(slow, 0.05, obf, eq, 0) },
		"+10%/sequential": func() seqRates { return seqSimulate(slow10, 0.10, obf, eq, 0) },
		"aa/within":       func() seqRates { return seqSimulate(aa, 0, obf, eq, 0.05) },
		"+5%/within":      func() seqRates { return seqSimulate(slow, 0.05, obf, eq, 0.05) },
		"+10%/within":     func() seqRates { return seqSimulate(slow10, 0.10, obf, eq, 0.05) },
		"aa/default":      func() seqRates { return seqSimulate(aa, 0, obf, eq, DefaultStopWithin) },
		"+5%/default":     func() seqRates { return seqSimulate(slow, 0.05, obf, eq, DefaultStopWithin) },
		"+10%/default":    func() seqRates { return seqSimulate(slow10, 0.10, obf, eq, DefaultStopWithin) },
	} {
		wg.Go(func() {
			r := run()
			mu.Lock()
			out[key] = r
			mu.Unlock()
		})
	}
	wg.Wait()
	return out, nil
})

func seqFigure(t *testing.T, key string) seqRates {
	t.Helper()
	f, err := seqFigures()
	require.NoError(t, err)
	r := f[key]
	require.Zero(t, r.errs, "%s: campaigns whose analysis failed", key)
	t.Logf("%-16s faster %.2f%% slower %.2f%% bounded %.1f%% (wrong %.2f%%) decided %.1f%% rounds mean %.1f median %.0f RCI cover %.1f%% CI cover %.1f%%",
		key, 100*r.faster, 100*r.slower, 100*r.bounded, 100*r.boundedWrong, 100*r.decided, r.meanRounds, r.medRounds, 100*r.rciCover, 100*r.ciCover)
	return r
}

// With the O'Brien–Fleming-type looks, identical arms are called faster or
// slower in at most 5% of campaigns; calling the fixed-design interval at
// the same looks (naive peeking) does so in more.
func TestSimulationSequentialAA(t *testing.T) {
	t.Parallel()
	seq := seqFigure(t, "aa/sequential")
	naive := seqFigure(t, "aa/naive")
	assert.LessOrEqual(t, seq.faster+seq.slower, 0.05, "sequential A/A faster/slower rate")
	assert.Greater(t, naive.faster+naive.slower, 0.05, "naive peeking A/A faster/slower rate")
	assert.Greater(t, naive.faster+naive.slower, seq.faster+seq.slower)
}

// A 5% slowdown at σ_d = 5% is called slower in at least 30% fewer rounds
// on average than a fixed design of equal power needs: the fewest rounds
// at which one trimmed-t interval with the same margin rule calls slower
// in as many of the same campaigns.
func TestSimulationSequentialSaves(t *testing.T) {
	t.Parallel()
	r := seqFigure(t, "+5%/sequential")
	require.Greater(t, r.slower, 0.5)
	require.NotZero(t, r.fixedRounds, "no fixed design up to %d rounds reaches power %.3f", seqGenRounds, r.slower)
	t.Logf("power %.1f%%: sequential %.1f rounds on average, fixed design %d", 100*r.slower, r.meanRounds, r.fixedRounds)
	assert.LessOrEqual(t, r.meanRounds, 0.7*float64(r.fixedRounds))
}

// The intervals at the stopping look: the RCI the verdict is called on
// covers the true Δ in at least 95% (its simultaneous level), and the
// fixed-sample 95% interval of the rounds run, which the report's CI
// column shows, in 93–97%.
func TestSimulationSequentialCoverage(t *testing.T) {
	t.Parallel()
	for _, key := range []string{"aa/sequential", "+5%/sequential"} {
		r := seqFigure(t, key)
		assert.GreaterOrEqual(t, r.rciCover, 0.95, key)
		assert.GreaterOrEqual(t, r.ciCover, 0.93, key)
		assert.LessOrEqual(t, r.ciCover, 0.97, key)
	}
}

// Stopping for "no change" within ±W (StopWithin), at the simulation's
// σ_d of 5%: with W = 5%, A/A campaigns stop in a median of at most 20 of
// the 40 rounds, none wrongly (an A/A Δ is 0, inside any bound), with no
// more faster or slower calls than without the stop; a 10% slowdown is
// called slower as often as without it, to within one campaign in a
// hundred; a stop for "no change of W or more" on a true Δ of W or more
// happens in at most α of campaigns. With the default W (7.5%, chosen on
// the harness, whose A/A spread is larger) A/A campaigns stop sooner and
// +10% is still found as often.
func TestSimulationSequentialStopsForNoChange(t *testing.T) {
	t.Parallel()
	aa, aaOff := seqFigure(t, "aa/within"), seqFigure(t, "aa/sequential")
	assert.LessOrEqual(t, aa.medRounds, 20.0, "A/A median rounds with the stop for no change")
	assert.Equal(t, float64(seqMaxRounds), aaOff.medRounds, "A/A median rounds without it")
	assert.LessOrEqual(t, aa.faster+aa.slower, aaOff.faster+aaOff.slower)
	assert.LessOrEqual(t, aa.faster+aa.slower, 0.05)
	assert.Zero(t, aa.boundedWrong)
	slow, slowOff := seqFigure(t, "+10%/within"), seqFigure(t, "+10%/sequential")
	assert.GreaterOrEqual(t, slow.slower, slowOff.slower-0.01, "+10% found with the stop for no change")
	assert.LessOrEqual(t, slow.boundedWrong, 0.05)
	five := seqFigure(t, "+5%/within")
	assert.LessOrEqual(t, five.boundedWrong, 0.05, "+5% called no change of 5% or more")
	def, defSlow := seqFigure(t, "aa/default"), seqFigure(t, "+10%/default")
	assert.LessOrEqual(t, def.medRounds, aa.medRounds)
	assert.GreaterOrEqual(t, defSlow.slower, slowOff.slower-0.01)
	for _, key := range []string{"aa/within", "+5%/within", "+10%/within", "aa/default", "+5%/default", "+10%/default"} {
		assert.GreaterOrEqual(t, seqFigure(t, key).rciCover, 0.95, key)
	}
}
