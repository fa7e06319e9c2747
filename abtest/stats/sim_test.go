package stats

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/hbgkit/hbgkit/internal/golden"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The seeded simulations of docs/ab-method.md "Calibration by
// simulation": lognormal per-pass
// noise with σ_d = 1% per round, 5% outlier passes, R = 20. Rerun them and
// print the figures with
//
//	go test ./abtest/stats -run Simulation -v
//
// and rewrite the table in docs/ab-method.md with
//
//	go test ./abtest/stats -run SimulationFiguresInDocs -update
//
// Every scenario runs simCampaigns campaigns (the bootstrap one fewer), all
// computed once and shared by the tests that assert on them.

// simCampaigns is the number of campaigns per model and scenario.
const simCampaigns = 4000

// order is a campaign's schedule of the two arms within rounds, as
// hbgbench's --order flag chooses it.
type order int

const (
	orderRMIT order = iota // each round A-then-B or B-then-A at random
	orderABBA              // AB, BA, AB, BA, …: counterbalances linear drift
	orderABAB              // AB in every round: today's habit
)

func (o order) String() string { return [...]string{"rmit", "abba", "abab"}[o] }

// simCampaign is the seeded model of a campaign. Each pass of arm X in
// block position t (in blocks since the start) takes
//
//	(1 + effect if X is B) · exp(σ_p·Z) · (U(outlierLo, outlierHi) with probability outlierRate) · exp(drift·t)
//
// with Z standard normal and σ_p chosen so that, outliers and drift aside,
// the round log-ratio d of the block statistic has SD sigmaD.
type simCampaign struct {
	name        string
	rounds      int     // R
	block       int     // warm passes per block
	sigmaD      float64 // SD of d from the lognormal noise alone
	outlierRate float64 // share of passes that are outliers
	outlierLo   float64 // an outlier pass is multiplied by U(outlierLo, outlierHi)
	outlierHi   float64
	effect      float64 // true Δ: every B pass is (1 + effect) times an A pass
	order       order
	drift       float64 // drift of ln(pass time) per block of elapsed time
	stat        func(passes []float64) float64
}

// calibration is the model of docs/ab-method.md "Calibration by
// simulation" with blocks of r warm passes summarised by
// stat: σ_d = 1% per round, 5% outlier passes 20% to 100% slower (a
// preempted pass), R = 20, random order per round.
func calibration(name string, r int, stat func([]float64) float64) simCampaign {
	return simCampaign{
		name: name, rounds: 20, block: r, sigmaD: 0.01,
		outlierRate: 0.05, outlierLo: 1.2, outlierHi: 2.0,
		order: orderRMIT, stat: stat,
	}
}

// The models: one pass per block (the round analysis alone), and hbgbench's
// default block of 5 passes less the cold one summarised by its median or
// by its mean (--block-stat).
var (
	modelOnePass     = calibration("1 pass per block", 1, blockMean)
	modelBlockMedian = calibration("4 warm passes, block median", 4, blockMedian)
	modelBlockMean   = calibration("4 warm passes, block mean", 4, blockMean)
)

func blockMean(p []float64) float64   { return meanOf(p) }
func blockMedian(p []float64) float64 { return median(sortedCopy(p)) }

func meanOf(p []float64) float64 {
	var s float64
	for _, v := range p {
		s += v
	}
	return s / float64(len(p))
}

// passSigma returns σ_p such that the block statistic's log has SD
// sigmaD/√2, so that d, a difference of two of them, has SD sigmaD. For
// small σ_p, ln stat(exp(σ_p·Z)) ≈ σ_p·stat(Z) for the mean and the median,
// so the SD of stat over standard normal blocks is measured once (seeded).
func (c simCampaign) passSigma() float64 {
	rng := rand.New(rand.NewPCG(7, 7))
	const draws = 20000
	z := make([]float64, c.block)
	s := make([]float64, draws)
	for i := range s {
		for j := range z {
			z[j] = rng.NormFloat64()
		}
		s[i] = c.stat(z)
	}
	m := meanOf(s)
	var v float64
	for _, x := range s {
		v += (x - m) * (x - m)
	}
	return c.sigmaD / (math.Sqrt2 * math.Sqrt(v/(draws-1)))
}

// runner draws campaigns of c from a seeded PRNG.
type runner struct {
	c      simCampaign
	sigmaP float64
	rng    *rand.Rand
	passes []float64
}

func newRunner(c simCampaign, seed uint64) *runner {
	return &runner{c: c, sigmaP: c.passSigma(), rng: rand.New(rand.NewPCG(seed, 1)), passes: make([]float64, c.block)}
}

// next draws one campaign and returns the block statistics of A and B per
// round.
func (r *runner) next() (a, b []float64) {
	c := r.c
	a = make([]float64, c.rounds)
	b = make([]float64, c.rounds)
	pos := 0 // block position in time
	block := func(isB bool) float64 {
		for j := range r.passes {
			v := math.Exp(r.sigmaP * r.rng.NormFloat64())
			if r.rng.Float64() < c.outlierRate {
				v *= c.outlierLo + (c.outlierHi-c.outlierLo)*r.rng.Float64()
			}
			if isB {
				v *= 1 + c.effect
			}
			t := float64(pos) + (float64(j)+0.5)/float64(c.block)
			v *= math.Exp(c.drift * t)
			r.passes[j] = v
		}
		pos++
		return c.stat(r.passes)
	}
	for i := range c.rounds {
		bFirst := false
		switch c.order {
		case orderRMIT:
			bFirst = r.rng.IntN(2) == 1
		case orderABBA:
			bFirst = i%2 == 1
		}
		if bFirst {
			b[i] = block(true)
			a[i] = block(false)
		} else {
			a[i] = block(false)
			b[i] = block(true)
		}
	}
	return a, b
}

// rates are the outcomes of the campaigns of one scenario.
type rates struct {
	n         int
	errs      int     // campaigns whose analysis failed (must be 0)
	wilcoxon  float64 // share with Wilcoxon p < Alpha
	faster    float64 // share called faster
	slower    float64 // share called slower
	coverage  float64 // share whose CI contains the true Δ
	excludes0 float64 // share whose CI lies above 0 (detection of a slowdown)
	bootCover float64 // share whose bootstrap interval contains the true Δ, when asked
	meanLog   float64 // mean over campaigns of ln(1 + Δ): the bias check
	medSigmaD float64 // median σ_d
	medHalfCI float64 // median half-width of the CI
	medMDE    float64 // median PairedResult.MDE
}

// simulate runs n campaigns of c drawn from seed.
func simulate(c simCampaign, n int, seed uint64, opts PairedOptions) rates {
	r := newRunner(c, seed)
	out := rates{n: n}
	sig := make([]float64, 0, n)
	half := make([]float64, 0, n)
	mde := make([]float64, 0, n)
	for i := range n {
		a, b := r.next()
		o := opts
		o.Seed = uint64(i)
		p, err := Paired(a, b, o)
		if err != nil {
			out.errs++
			continue
		}
		if p.Wilcoxon.P < Alpha {
			out.wilcoxon++
		}
		switch Decide(p.Delta, p.CI, p.R, DefaultMargin).Call {
		case Faster:
			out.faster++
		case Slower:
			out.slower++
		}
		if p.CI.Contains(c.effect) {
			out.coverage++
		}
		if p.CI.Lo > 0 {
			out.excludes0++
		}
		if p.Boot.Contains(c.effect) {
			out.bootCover++
		}
		out.meanLog += p.LogMean
		sig = append(sig, p.SigmaD)
		half = append(half, (p.CI.Hi-p.CI.Lo)/2)
		mde = append(mde, p.MDE)
	}
	fn := float64(n)
	for _, v := range []*float64{&out.wilcoxon, &out.faster, &out.slower, &out.coverage, &out.excludes0, &out.bootCover, &out.meanLog} {
		*v /= fn
	}
	if len(sig) > 0 {
		slices.Sort(sig)
		slices.Sort(half)
		slices.Sort(mde)
		out.medSigmaD, out.medHalfCI, out.medMDE = median(sig), median(half), median(mde)
	}
	return out
}

// A scenario is one model, effect and option set, with its own seed.
type scenario struct {
	key  string
	c    simCampaign
	n    int
	seed uint64
	opts PairedOptions
}

// driftPerBlock is the drift of the order scenarios: ln(pass time) grows
// 0.5% per block, 20% over a 20-round campaign.
const driftPerBlock = 0.005

// The orders of the drift scenarios, in the order the docs list them.
var driftOrders = []order{orderABAB, orderRMIT, orderABBA}

// outlierFree is the block-median model without outliers, for the noise
// footer.
func outlierFree() simCampaign {
	c := modelBlockMedian
	c.name = "4 warm passes, block median, no outliers"
	c.outlierRate = 0
	return c
}

// scenarios lists every simulation but the two that depend on another's
// result (the detection at the measured MDEs, see allFigures).
func scenarios() []scenario {
	with := func(c simCampaign, effect float64) simCampaign { c.effect = effect; return c }
	var list []scenario
	for i, m := range []simCampaign{modelOnePass, modelBlockMedian, modelBlockMean} {
		list = append(list,
			scenario{key: m.name + "/aa", c: m, n: simCampaigns, seed: uint64(100 + i)},
			scenario{key: m.name + "/+2%", c: with(m, 0.02), n: simCampaigns, seed: uint64(200 + i)})
	}
	for i, o := range driftOrders {
		c := modelBlockMedian
		c.order, c.drift = o, driftPerBlock
		list = append(list, scenario{key: "drift/" + o.String(), c: c, n: simCampaigns, seed: uint64(400 + i)})
	}
	list = append(list,
		scenario{key: "clean/aa", c: outlierFree(), n: simCampaigns, seed: 300},
		scenario{key: "bootstrap/+2%", c: with(modelBlockMedian, 0.02), n: 1000, seed: 500, opts: PairedOptions{Bootstrap: 1000}})
	return list
}

// figures are the results of every scenario, by key.
type figures map[string]rates

// runAll simulates list on all CPUs.
func runAll(list []scenario, into figures) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	for _, sc := range list {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			r := simulate(sc.c, sc.n, sc.seed, sc.opts)
			mu.Lock()
			into[sc.key] = r
			mu.Unlock()
		})
	}
	wg.Wait()
}

// allFigures runs every scenario once per test binary. The detection
// scenarios put the true effect at the MDE measured on clean/aa (the
// campaign's own, median over campaigns) and at the normal rule MDE(1%,
// 20) of docs/ab-method.md "The noise footer".
var allFigures = sync.OnceValue(func() figures {
	f := figures{}
	runAll(scenarios(), f)
	with := func(effect float64) simCampaign { c := outlierFree(); c.effect = effect; return c }
	runAll([]scenario{
		{key: "clean/at own MDE", c: with(f["clean/aa"].medMDE), n: simCampaigns, seed: 301},
		{key: "clean/at rule MDE", c: with(MDE(0.01, 20)), n: simCampaigns, seed: 302},
	}, f)
	return f
})

// figure returns the rates of key, failing t when a campaign's analysis
// failed.
func figure(t *testing.T, key string) rates {
	t.Helper()
	r, ok := allFigures()[key]
	require.True(t, ok, "no scenario %q", key)
	require.Zero(t, r.errs, "%s: analyses failed", key)
	return r
}

// TestSimulationCalibration checks the claims of docs/ab-method.md
// "Calibration by simulation" on the
// models where the per-round analysis sees outliers it can trim: A/A
// Wilcoxon rejections 2–8%, A/A verdict faster or slower ≤ 5%, a true 2%
// slowdown called slower ≥ 80%, CI coverage of the true Δ 93–97%.
func TestSimulationCalibration(t *testing.T) {
	t.Parallel()
	for _, m := range []simCampaign{modelOnePass, modelBlockMedian} {
		t.Run(m.name, func(t *testing.T) {
			aa, ab := figure(t, m.name+"/aa"), figure(t, m.name+"/+2%")
			t.Logf("A/A: Wilcoxon p<0.05 %.1f%%, faster %.1f%%, slower %.1f%%, CI covers 0 %.1f%%, median σ_d %.2f%%, median CI half-width %.2f%%",
				100*aa.wilcoxon, 100*aa.faster, 100*aa.slower, 100*aa.coverage, 100*aa.medSigmaD, 100*aa.medHalfCI)
			t.Logf("Δ = +2%%: slower %.1f%%, Wilcoxon p<0.05 %.1f%%, CI covers 2%% %.1f%%",
				100*ab.slower, 100*ab.wilcoxon, 100*ab.coverage)
			assert.GreaterOrEqual(t, aa.n, 1000)
			assert.GreaterOrEqual(t, aa.wilcoxon, 0.02, "A/A Wilcoxon rejection rate")
			assert.LessOrEqual(t, aa.wilcoxon, 0.08, "A/A Wilcoxon rejection rate")
			assert.LessOrEqual(t, aa.faster+aa.slower, 0.05, "A/A verdict faster or slower")
			assert.GreaterOrEqual(t, ab.slower, 0.80, "a true 2% effect called slower")
			for _, cov := range []float64{aa.coverage, ab.coverage} {
				assert.GreaterOrEqual(t, cov, 0.93, "CI coverage of the true Δ")
				assert.LessOrEqual(t, cov, 0.97, "CI coverage of the true Δ")
			}
		})
	}
}

// TestSimulationBlockMean measures what the block mean costs under outlier
// passes: one slow pass moves the mean of its block, so a third of the
// rounds (1 − 0.95⁸) carry an outlier, close to the 40% that 20% trimming
// removes; the winsorized SD and with it the interval double. The test
// stays valid (A/A rates hold, coverage is conservative) but its power
// falls far below the block median's, whose blocks shrug one slow pass off.
func TestSimulationBlockMean(t *testing.T) {
	t.Parallel()
	m := modelBlockMean
	aa, ab := figure(t, m.name+"/aa"), figure(t, m.name+"/+2%")
	abMedian := figure(t, modelBlockMedian.name+"/+2%")
	t.Logf("A/A: Wilcoxon p<0.05 %.1f%%, faster %.1f%%, slower %.1f%%, CI covers 0 %.1f%%, median σ_d %.2f%%, median CI half-width %.2f%%",
		100*aa.wilcoxon, 100*aa.faster, 100*aa.slower, 100*aa.coverage, 100*aa.medSigmaD, 100*aa.medHalfCI)
	t.Logf("Δ = +2%%: slower %.1f%% (block median: %.1f%%), CI covers 2%% %.1f%%",
		100*ab.slower, 100*abMedian.slower, 100*ab.coverage)
	assert.GreaterOrEqual(t, aa.wilcoxon, 0.02, "A/A Wilcoxon rejection rate")
	assert.LessOrEqual(t, aa.wilcoxon, 0.08, "A/A Wilcoxon rejection rate")
	assert.LessOrEqual(t, aa.faster+aa.slower, 0.05, "A/A verdict faster or slower")
	assert.GreaterOrEqual(t, aa.coverage, 0.93, "CI coverage of 0")
	assert.GreaterOrEqual(t, ab.coverage, 0.93, "CI coverage of 2%")
	assert.Less(t, ab.slower, abMedian.slower-0.2, "the block mean loses power to outlier passes")
}

// TestSimulationNoise checks the noise footer on outlier-free campaigns:
// σ_d reads the 1% the model puts in, and an effect of the campaign's own
// MDE is detected (CI above 0) about 80% of the time. The normal rule
// MDE(σ_d, R) of docs/ab-method.md "The noise footer" is measured too: the
// trimmed-t finds it less often.
func TestSimulationNoise(t *testing.T) {
	t.Parallel()
	aa, own, rule := figure(t, "clean/aa"), figure(t, "clean/at own MDE"), figure(t, "clean/at rule MDE")
	t.Logf("outlier-free: median σ_d %.3f%%; median PairedResult.MDE %.3f%%, detected there in %.1f%%; MDE(1%%, 20) = %.3f%%, detected there in %.1f%%",
		100*aa.medSigmaD, 100*aa.medMDE, 100*own.excludes0, 100*MDE(0.01, 20), 100*rule.excludes0)
	assert.InDelta(t, 0.01, aa.medSigmaD, 0.0005, "median σ_d")
	assert.InDelta(t, 0.80, own.excludes0, 0.05, "power at the campaign's MDE")
	assert.Less(t, rule.excludes0, own.excludes0, "the normal rule is optimistic for the trimmed-t")
}

// TestSimulationOrderUnderDrift measures the bias of Δ under a linear drift
// of ln(pass time) of 0.5% per block with no true effect. ABAB runs B one
// block after A in every round, so Δ reads one block of drift (half a
// round); RMIT and ABBA cancel it.
func TestSimulationOrderUnderDrift(t *testing.T) {
	t.Parallel()
	for _, o := range driftOrders {
		t.Run(o.String(), func(t *testing.T) {
			got := figure(t, "drift/"+o.String())
			t.Logf("drift %.1f%%/block: mean ln(1+Δ) %+.3f%% (bias %.2f blocks), Wilcoxon p<0.05 %.1f%%, faster %.1f%%, slower %.1f%%, CI covers 0 %.1f%%",
				100*driftPerBlock, 100*got.meanLog, got.meanLog/driftPerBlock, 100*got.wilcoxon, 100*got.faster, 100*got.slower, 100*got.coverage)
			if o == orderABAB {
				assert.InDelta(t, driftPerBlock, got.meanLog, 0.1*driftPerBlock, "ABAB bias is one block of drift")
				assert.Greater(t, got.wilcoxon, 0.3, "ABAB finds the drift significant")
				return
			}
			assert.InDelta(t, 0, got.meanLog, 0.1*driftPerBlock, "%v is unbiased under linear drift", o)
			assert.LessOrEqual(t, got.wilcoxon, 0.08, "%v A/A Wilcoxon rejection rate under drift", o)
			assert.GreaterOrEqual(t, got.coverage, 0.93, "%v CI coverage of 0 under drift", o)
		})
	}
}

// TestSimulationBootstrap measures the percentile bootstrap interval's
// coverage on the calibration model.
func TestSimulationBootstrap(t *testing.T) {
	t.Parallel()
	got := figure(t, "bootstrap/+2%")
	t.Logf("bootstrap (1000 resamples): covers 2%% in %.1f%% of %d campaigns (trimmed-t: %.1f%%)", 100*got.bootCover, got.n, 100*got.coverage)
	assert.GreaterOrEqual(t, got.bootCover, 0.90, "bootstrap coverage")
	assert.LessOrEqual(t, got.bootCover, 0.98, "bootstrap coverage")
}

// renderFigures writes the simulation figures as the Markdown that
// docs/ab-method.md carries between its figure markers.
func renderFigures(f figures) string {
	var b strings.Builder
	pct := func(x float64) string { return fmt.Sprintf("%.1f%%", 100*x) }
	fmt.Fprintf(&b, "Calibration: R = 20 rounds, σ_d = 1%% per round from lognormal pass noise, 5%% outlier passes (20–100%% slower), margin 1%%, %d campaigns per cell.\n\n", simCampaigns)
	b.WriteString("| model | A/A: Wilcoxon p < 0.05 | A/A: faster or slower | A/A: CI covers 0 | +2%: called slower | +2%: CI covers 2% | median σ_d |\n")
	b.WriteString("|---|---|---|---|---|---|---|\n")
	for _, m := range []simCampaign{modelOnePass, modelBlockMedian, modelBlockMean} {
		aa, ab := f[m.name+"/aa"], f[m.name+"/+2%"]
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s |\n", m.name,
			pct(aa.wilcoxon), pct(aa.faster+aa.slower), pct(aa.coverage), pct(ab.slower), pct(ab.coverage), fmt.Sprintf("%.2f%%", 100*aa.medSigmaD))
	}
	fmt.Fprintf(&b, "\nOrder under drift: ln(pass time) drifts %.1f%% per block, no true effect, 4 warm passes, block median.\n\n", 100*driftPerBlock)
	b.WriteString("| order | mean ln(1+Δ) | bias in blocks of drift | Wilcoxon p < 0.05 | CI covers 0 |\n")
	b.WriteString("|---|---|---|---|---|\n")
	for _, o := range driftOrders {
		r := f["drift/"+o.String()]
		fmt.Fprintf(&b, "| %s | %+.3f%% | %.2f | %s | %s |\n", o, 100*r.meanLog, r.meanLog/driftPerBlock, pct(r.wilcoxon), pct(r.coverage))
	}
	aa, own, rule, boot := f["clean/aa"], f["clean/at own MDE"], f["clean/at rule MDE"], f["bootstrap/+2%"]
	b.WriteString("\nNoise footer, outlier-free, 4 warm passes, block median:\n\n")
	fmt.Fprintf(&b, "- median σ_d: %.3f%% (the model puts in 1%%)\n", 100*aa.medSigmaD)
	fmt.Fprintf(&b, "- median MDE of the campaign (trimmed-t): %.3f%%; a true effect of that size is detected (CI above 0) in %s\n", 100*aa.medMDE, pct(own.excludes0))
	fmt.Fprintf(&b, "- STATS.md's rule 2.8·σ_d/√R: %.3f%%; detected in %s\n", 100*MDE(0.01, 20), pct(rule.excludes0))
	fmt.Fprintf(&b, "\nBootstrap (1000 round resamples, %d campaigns, +2%%, block median): covers 2%% in %s (the trimmed-t interval: %s).\n",
		boot.n, pct(boot.bootCover), pct(boot.coverage))
	return b.String()
}

// docsPath is docs/ab-method.md from this package's directory.
const docsPath = "../../docs/ab-method.md"

// The markers around the generated figures in docs/ab-method.md.
const (
	figuresBegin = "<!-- simulation figures: generated by go test ./abtest/stats -run SimulationFiguresInDocs -update -->\n"
	figuresEnd   = "<!-- end of simulation figures -->\n"
)

var number = regexp.MustCompile(`[-+]?[0-9]+(\.[0-9]+)?`)

// TestSimulationFiguresInDocs checks that docs/ab-method.md prints the figures
// these simulations measure, and rewrites them with -update. Numbers are
// compared within 0.3 (percentage points) so that an architecture whose
// floating point fuses multiply-adds differently does not fail on a
// campaign that sits on a threshold.
func TestSimulationFiguresInDocs(t *testing.T) {
	t.Parallel()
	want := renderFigures(allFigures())
	doc, err := os.ReadFile(docsPath)
	require.NoError(t, err)
	text := string(doc)
	i, j := strings.Index(text, figuresBegin), strings.Index(text, figuresEnd)
	require.True(t, i >= 0 && j > i, "docs/ab-method.md lacks the figure markers")
	got := text[i+len(figuresBegin) : j]
	if golden.Update() {
		text = text[:i+len(figuresBegin)] + "\n" + want + "\n" + text[j:]
		require.NoError(t, os.WriteFile(docsPath, []byte(text), 0o644))
		return
	}
	got = strings.TrimSpace(got)
	want = strings.TrimSpace(want)
	if got == want {
		return
	}
	// Same words, numbers within tolerance.
	require.Equal(t, number.ReplaceAllString(want, "#"), number.ReplaceAllString(got, "#"),
		"docs/ab-method.md figures differ in text; rerun with -update")
	wn, gn := number.FindAllString(want, -1), number.FindAllString(got, -1)
	for k := range wn {
		w, _ := strconv.ParseFloat(wn[k], 64)
		g, _ := strconv.ParseFloat(gn[k], 64)
		assert.InDelta(t, w, g, 0.3, "figure %d of docs/ab-method.md; rerun with -update", k)
	}
}
