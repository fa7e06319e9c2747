package analysis

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/hbgkit/hbgkit/abtest/journal"
	"github.com/hbgkit/hbgkit/abtest/metric"
	"github.com/hbgkit/hbgkit/abtest/stats"
)

// Tuning the design to the host (`hbgbench aa --tune`, docs/ab.md "Tuning
// the design to the host"): an A/A campaign of long blocks is measured
// once, and each candidate design — a shorter block and a block statistic
// — is evaluated on the same rounds, because the first k passes of a
// block of n are exactly what a block of k passes measures (the same
// process start, the same cold passes dropped). For each candidate, the
// trimmed spread s_w of its log-ratios gives the rounds a fixed design
// needs to detect the stated effect with 80% power (stats.TrimmedRoundsFor,
// the rule the report's MDE uses), and the time a round of it costs gives
// its card time; the recommendation is the candidate of least card time.

// A TuneCandidate is one design evaluated by Tune.
type TuneCandidate struct {
	Block     int               `json:"block"` // passes per block
	BlockStat journal.BlockStat `json:"block_stat"`
	Rounds    int               `json:"rounds"` // A/A rounds it was measured on
	// Sw is the 20%-winsorized SD of the log-ratios, SigmaT = Sw/0.6 and
	// SigmaTCI its 95% interval from the chi-square on the trimmed t's
	// degrees of freedom (stats.SpreadInterval).
	Sw       float64        `json:"-"`
	SigmaT   journal.Num    `json:"sigma_t"`
	SigmaTCI stats.Interval `json:"-"`
	SigmaLo  journal.Num    `json:"sigma_t_lo"`
	SigmaHi  journal.Num    `json:"sigma_t_hi"`
	// Need is the rounds that detect the effect with 80% power (0: more
	// than 2²⁴), RoundSeconds a round's card time (both arms), Seconds
	// their product.
	Need         int         `json:"rounds_needed"`
	RoundSeconds journal.Num `json:"round_seconds"`
	Seconds      journal.Num `json:"card_seconds"`
}

// A Tuning is Tune's result.
type Tuning struct {
	Effect     float64         `json:"effect"`
	Metric     string          `json:"metric"`
	Candidates []TuneCandidate `json:"candidates"`
	// Best indexes Candidates: the least card time; -1 when no candidate
	// could be evaluated.
	Best int `json:"best"`
	// Overhead is the mean time of a block outside its passes' chip.run
	// walls (process start, setup, exit), PassSeconds the mean chip.run
	// wall of a warm pass: a round of k-pass blocks costs
	// 2·(Overhead + k·PassSeconds).
	Overhead    journal.Num `json:"overhead_seconds"`
	PassSeconds journal.Num `json:"pass_seconds"`
	// Threads is what the log says of the arm's threads, which decides
	// whether pinning it to one CPU may be recommended.
	Threads Threads `json:"threads"`
	// CPUs is the campaign's --cpus ("" unpinned); PinRefused, when the
	// campaign was pinned and the arm's threads would be serialised by
	// it, says why no recommendation is made from it.
	CPUs       string `json:"cpus,omitempty"`
	PinRefused string `json:"pin_refused,omitempty"`
}

// Threads is the runtime's own evidence of threads working beside the
// bind thread: rec_cpu_ns, the CPU time its recorder threads spent during
// a bind (E2 and E3 logs), on the warm passes that carry it.
type Threads struct {
	Passes int `json:"passes"`      // warm passes carrying rec_cpu_ns
	Busy   int `json:"busy_passes"` // of them, those with rec_cpu_ns > 0
}

// Pinnable says whether pinning the arm to one CPU may be recommended,
// and why: "yes" when every warm pass carries rec_cpu_ns and none spent
// any, "no" when some did (one CPU would serialise the recorder threads
// with the bind thread and change what is measured), "unknown" when the
// log does not say (E1 logs, git or command arms without the counters).
func (t Threads) Pinnable() (string, string) {
	switch {
	case t.Passes == 0:
		return "unknown", "the log carries no rec_cpu_ns (recorder threads' CPU), so hbgbench cannot tell whether the arm works on several threads at once"
	case t.Busy > 0:
		return "no", fmt.Sprintf("the recorder threads spent CPU during %d of %d warm binds (rec_cpu_ns > 0): one CPU would serialise them with the bind thread and change what is measured", t.Busy, t.Passes)
	}
	return "yes", fmt.Sprintf("rec_cpu_ns is 0 on all %d warm binds: no recorder thread works beside the bind thread", t.Passes)
}

// TuneBlocks are the block lengths Tune tries, up to the campaign's.
var TuneBlocks = []int{5, 10, 20, 40}

// Tune evaluates the candidate designs on the A/A campaign j for an
// effect of effect (a share, 0.1 for 10%). It returns an error when j is
// not a two-arm campaign with rounds, or the effect is not in (0, 1).
func Tune(j *journal.Journal, effect float64) (*Tuning, error) {
	if !(effect > 0 && effect < 1) {
		return nil, fmt.Errorf("tune: effect %v: want a share between 0 and 100%%", effect)
	}
	h := j.Header
	if len(h.AllArms) > 2 {
		return nil, fmt.Errorf("tune: a campaign of %d arms; tune one arm against itself (hbgbench aa ARM --tune)", len(h.AllArms))
	}
	hist := j.History()
	cfg := h.Config
	type pair struct{ a, b *journal.BlockRecord }
	var rounds []pair
	for i := 1; i <= cfg.Rounds; i++ {
		a, b := hist.CountedBlock(i, journal.ArmNames[journal.Base]), hist.CountedBlock(i, journal.ArmNames[journal.Head])
		if a != nil && b != nil {
			rounds = append(rounds, pair{a, b})
		}
	}
	if len(rounds) < stats.MinLookRounds {
		return nil, fmt.Errorf("tune: %d complete rounds; the spreads need %d or more", len(rounds), stats.MinLookRounds)
	}
	t := &Tuning{Effect: effect, Metric: h.Primary.Name, Best: -1, CPUs: cfg.CPUs}
	t.Overhead, t.PassSeconds = blockTimes(j, cfg.Cold)
	for _, r := range rounds {
		for _, b := range []*journal.BlockRecord{r.a, r.b} {
			for k := range b.Passes {
				if v, ok := b.Passes[k].Values[metric.MetricRecCPU]; ok && b.Passes[k].Index >= cfg.Cold {
					t.Threads.Passes++
					if v > 0 {
						t.Threads.Busy++
					}
				}
			}
		}
	}
	for _, k := range TuneBlocks {
		if k > cfg.Block || k <= cfg.Cold {
			continue
		}
		for _, st := range []journal.BlockStat{journal.BlockMin, journal.BlockMedian} {
			var a, b []float64
			for _, r := range rounds {
				va, vb := WarmValues(truncated(r.a, k), h.Primary, cfg.Cold), WarmValues(truncated(r.b, k), h.Primary, cfg.Cold)
				if len(va) == 0 || len(vb) == 0 {
					continue
				}
				a, b = append(a, BlockStat(va, st)), append(b, BlockStat(vb, st))
			}
			c := TuneCandidate{Block: k, BlockStat: st, Rounds: len(a), SigmaT: nan(), SigmaLo: nan(), SigmaHi: nan(), RoundSeconds: nan(), Seconds: nan()}
			if pr, err := stats.Paired(a, b, stats.PairedOptions{}); err == nil {
				c.Sw = pr.SW
				c.SigmaT = journal.Num(pr.SW / 0.6)
				iv := stats.SpreadInterval(pr.SW/0.6, stats.TrimmedDF(len(a)), stats.DefaultLevel)
				c.SigmaTCI, c.SigmaLo, c.SigmaHi = iv, journal.Num(iv.Lo), journal.Num(iv.Hi)
				c.Need = stats.TrimmedRoundsFor(pr.SW, effect)
			}
			if !math.IsNaN(float64(t.Overhead)) {
				c.RoundSeconds = journal.Num(2 * (float64(t.Overhead) + float64(k)*float64(t.PassSeconds)))
				if c.Need > 0 {
					c.Seconds = journal.Num(float64(c.Need) * float64(c.RoundSeconds))
				}
			}
			t.Candidates = append(t.Candidates, c)
		}
	}
	if ok, why := t.Threads.Pinnable(); cfg.CPUs != "" && ok != "yes" {
		t.PinRefused = fmt.Sprintf("measured pinned (--cpus %s), and pinning is not recommended: %s; tune without --cpus", cfg.CPUs, why)
		return t, nil
	}
	for i, c := range t.Candidates {
		if math.IsNaN(float64(c.Seconds)) {
			continue
		}
		if t.Best < 0 || cmp.Or(cmp.Compare(c.Seconds, t.Candidates[t.Best].Seconds), cmp.Compare(c.Need, t.Candidates[t.Best].Need)) < 0 {
			t.Best = i
		}
	}
	return t, nil
}

// truncated returns b with only the first k passes of each pid: the
// block a run of k passes would have measured.
func truncated(b *journal.BlockRecord, k int) *journal.BlockRecord {
	c := *b
	c.Passes = slices.DeleteFunc(slices.Clone(b.Passes), func(p metric.Pass) bool { return p.Index >= k })
	return &c
}

// blockTimes returns the mean time of a counted timed block outside its
// passes' chip.run walls, and the mean chip.run wall of a warm pass, in
// seconds; NaN when the blocks carry no wall time or no pass has one.
func blockTimes(j *journal.Journal, cold int) (overhead, pass journal.Num) {
	var over, walls time.Duration
	blocks, passes := 0, 0
	for i := range j.Blocks {
		b := &j.Blocks[i]
		if b.Round == 0 || !b.OK() || b.WallNS <= 0 {
			continue
		}
		var in time.Duration
		for k := range b.Passes {
			p := &b.Passes[k]
			v, ok := p.Values[metric.MetricHost]
			if !ok {
				continue
			}
			in += time.Duration(v)
			if p.Index >= cold {
				walls += time.Duration(v)
				passes++
			}
		}
		over += max(0, time.Duration(b.WallNS)-in)
		blocks++
	}
	if blocks == 0 || passes == 0 {
		return nan(), nan()
	}
	return journal.Num(over.Seconds() / float64(blocks)), journal.Num(walls.Seconds() / float64(passes))
}
