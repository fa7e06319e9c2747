package analysis

import (
	"fmt"
	"math"

	"github.com/hbgkit/hbgkit/abtest/journal"
	"github.com/hbgkit/hbgkit/abtest/stats"
)

// Stop when decided (--until-decided, docs/ab.md): a campaign whose
// Config.LookEvery is K > 0 looks at its primary metric after every K-th
// round and after its last (Config.Rounds is then the most rounds it may
// run), and stops at the first look whose repeated confidence interval
// decides (stats.SequentialLook). Every look is journaled as a "look" line
// with its boundary and decision, so a resumed campaign does not look
// twice and a report takes the decision from the journal.

// lookRatios returns the primary metric's paired log-ratios d of the
// rounds up to round upTo that closed ok, as Analyze pairs them.
func lookRatios(h journal.Header, hist *journal.History, upTo int) ([]float64, error) {
	cfg := h.Config
	var a, b []float64
	for i := 1; i <= upTo; i++ {
		ba, bb := hist.CountedBlock(i, journal.ArmNames[journal.Base]), hist.CountedBlock(i, journal.ArmNames[journal.Head])
		if ba == nil || bb == nil {
			continue
		}
		va, vb := WarmValues(ba, h.Primary, cfg.Cold), WarmValues(bb, h.Primary, cfg.Cold)
		if len(va) == 0 || len(vb) == 0 {
			continue
		}
		a = append(a, BlockStat(va, cfg.BlockStat))
		b = append(b, BlockStat(vb, cfg.BlockStat))
	}
	return stats.LogRatios(a, b)
}

// nextLook makes the look after round i of a campaign whose earlier looks
// are prior. It reports false when no look is made: fewer than
// stats.MinLookRounds counted rounds, or none counted since the last look.
func NextLook(h journal.Header, hist *journal.History, prior []journal.LookRecord, i int) (journal.LookRecord, bool, error) {
	d, err := lookRatios(h, hist, i)
	if err != nil {
		return journal.LookRecord{}, false, fmt.Errorf("look after round %d: %w", i, err)
	}
	ns := make([]int, 0, len(prior)+1)
	for _, l := range prior {
		ns = append(ns, l.N)
	}
	if len(d) < stats.MinLookRounds || len(ns) > 0 && len(d) <= ns[len(ns)-1] {
		return journal.LookRecord{}, false, nil
	}
	ns = append(ns, len(d))
	l, err := stats.SequentialLook(d, ns, h.Config.Rounds, stats.Alpha, h.Config.Margin, float64(h.Config.StopWithin))
	if err != nil {
		return journal.LookRecord{}, false, fmt.Errorf("look after round %d: %w", i, err)
	}
	rec := journal.LookRecord{
		Type: journal.LineLook, Round: i, Look: len(ns), N: l.N, MaxRounds: h.Config.Rounds,
		Stat: journal.Num(l.Stat), Boundary: journal.Num(l.Boundary), Crit: journal.Num(l.Crit),
		Delta: journal.Num(l.Delta), RCILo: journal.Num(l.RCI.Lo), RCIHi: journal.Num(l.RCI.Hi),
		Decision: l.Verdict.Call, Decided: l.Decided(),
	}
	if l.Verdict.ExtraRounds > 0 {
		rec.Extra = l.Verdict.ExtraRounds
	}
	if l.EqRCI != (stats.Interval{}) {
		rec.EqLo, rec.EqHi = journal.Num(l.EqRCI.Lo), journal.Num(l.EqRCI.Hi)
	}
	return rec, true, nil
}

// lookAfter returns the journaled look after round i, or nil.
func LookAfter(looks []journal.LookRecord, i int) *journal.LookRecord {
	for k := range looks {
		if looks[k].Round == i {
			return &looks[k]
		}
	}
	return nil
}

// decidedLook returns the look that stopped the campaign, or nil.
func DecidedLook(looks []journal.LookRecord) *journal.LookRecord {
	for k := range looks {
		if looks[k].Decided {
			return &looks[k]
		}
	}
	return nil
}

// A Sequential is the part of an Analysis a sequential campaign adds:
// its design, its looks, where it stopped, and what a fixed design of
// equal power would have needed.
type Sequential struct {
	LookEvery int `json:"look_every"`
	MaxRounds int `json:"max_rounds"`
	// StopWithin is the design's --stop-within bound W (0: off).
	StopWithin journal.Num `json:"stop_within,omitempty"`
	// Looks are the journaled looks; the last one decides the primary
	// metric's verdict.
	Looks []journal.LookRecord `json:"looks"`
	// Stopped says the campaign stopped early, at look StopLook after
	// StopRound rounds of the schedule; otherwise it ran (or is running)
	// to MaxRounds.
	Stopped   bool `json:"stopped_early"`
	StopLook  int  `json:"stop_look,omitempty"`
	StopRound int  `json:"stop_round,omitempty"`
	// FixedRounds is the rounds a fixed design of power FixedPower needs,
	// FixedPower being this design's power at the last look's Δ and noise
	// (stats.EqualPowerRounds); 0 when the last look did not call faster
	// or slower.
	FixedRounds int         `json:"fixed_rounds,omitempty"`
	FixedPower  journal.Num `json:"fixed_power,omitempty"`
}

// analyseSequential fills a.Sequential from the journal's looks and sets
// the primary row's verdict to the last look's decision: the verdict a
// sequential campaign reached is the one its boundaries allowed, never the
// fixed-design interval of the rounds it ran.
func analyseSequential(a *Analysis, j *journal.Journal) {
	cfg := j.Header.Config
	if cfg.LookEvery == 0 {
		return
	}
	s := &Sequential{LookEvery: cfg.LookEvery, MaxRounds: cfg.Rounds, StopWithin: cfg.StopWithin, Looks: append([]journal.LookRecord{}, j.Looks...)}
	a.Sequential = s
	p := a.PrimaryResult()
	if len(s.Looks) == 0 {
		if p != nil && p.Error == "" {
			p.Verdict, p.Extra, p.Gated = VerdictOf(stats.Inconclusive, p.Kind), 0, false
		}
		return
	}
	last := s.Looks[len(s.Looks)-1]
	if d := DecidedLook(s.Looks); d != nil {
		last = *d
		s.Stopped = d.Round < cfg.Rounds
		if s.Stopped {
			s.StopLook, s.StopRound = d.Look, d.Round
			// The rounds after the stop were never due.
			a.Partial = false
		}
	}
	if p == nil || p.Error != "" {
		return
	}
	p.Verdict, p.Extra, p.Gated = VerdictOf(last.Decision, p.Kind), last.Extra, false
	if p.Verdict.IsChange() {
		var planned []int
		for r := cfg.LookEvery; r < cfg.Rounds; r += cfg.LookEvery {
			planned = append(planned, r)
		}
		planned = append(planned, cfg.Rounds)
		if c, err := stats.Boundaries(planned, cfg.Rounds, stats.Alpha); err == nil {
			// σ of one round as the trimmed-t sees it: SE·√n, with SE
			// recovered from the statistic T/SE.
			logD := math.Log1p(float64(last.Delta))
			sigma := math.Abs(logD/float64(last.Stat)) * math.Sqrt(float64(last.N))
			power, n := stats.EqualPowerRounds(planned, c, logD, sigma, cfg.Margin, stats.Alpha)
			if n > 0 {
				s.FixedRounds, s.FixedPower = n, journal.Num(power)
			}
		}
	}
}
