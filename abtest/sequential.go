package abtest

import (
	"fmt"
	"math"

	"github.com/hbgkit/hbgkit/abtest/stats"
	"github.com/hbgkit/hbgkit/internal/report"
)

// Stop when decided (--until-decided, docs/ab.md): a campaign whose
// Config.LookEvery is K > 0 looks at its primary metric after every K-th
// round and after its last (Config.Rounds is then the most rounds it may
// run), and stops at the first look whose repeated confidence interval
// decides (stats.SequentialLook). Every look is journaled as a "look" line
// with its boundary and decision, so a resumed campaign does not look
// twice and a report takes the decision from the journal.

// lineLook is the journal line of a look.
const lineLook = "look"

// A LookRecord is one look of a sequential campaign, as journaled.
type LookRecord struct {
	Type  string `json:"type"`
	Round int    `json:"round"` // the look came after this round of the schedule
	Look  int    `json:"look"`  // 1, 2, …: its place among the campaign's looks
	N     int    `json:"n"`     // counted rounds analysed
	// MaxRounds is the design's most rounds when the look was made: the
	// information fraction is N/MaxRounds.
	MaxRounds int `json:"max_rounds"`
	// Stat is the trimmed-t statistic T/SE of the log-ratios; Boundary
	// the O'Brien–Fleming-type boundary c_k on the z scale (null when the
	// look could spend nothing) and Crit its t-scale multiplier of SE.
	Stat     Num `json:"stat"`
	Boundary Num `json:"boundary"`
	Crit     Num `json:"crit"`
	// Delta and the repeated CI [RCILo, RCIHi] of the primary metric.
	Delta Num `json:"delta"`
	RCILo Num `json:"rci_lo"`
	RCIHi Num `json:"rci_hi"`
	// Decision is the verdict on the RCI (faster, slower, no change,
	// ~ small, inconclusive); Decided says the campaign stopped here.
	Decision string `json:"decision"`
	Decided  bool   `json:"decided"`
	// Extra is, for an inconclusive look, Decide's estimate of the rounds
	// that would settle it.
	Extra int `json:"extra_rounds,omitempty"`
}

// lookDue reports whether a sequential campaign looks after round i.
func (c Config) lookDue(i int) bool {
	return c.LookEvery > 0 && (i%c.LookEvery == 0 || i == c.Rounds)
}

// validateSequential is Validate's part for --until-decided.
func (c Config) validateSequential() error {
	switch {
	case c.LookEvery < 0:
		return fmt.Errorf("--look-every %d: want 1 or more rounds between looks", c.LookEvery)
	case c.LookEvery == 0:
		return nil
	case c.Rounds < stats.MinLookRounds:
		return fmt.Errorf("--max-rounds %d: a look needs %d rounds, so --until-decided needs --max-rounds %d or more", c.Rounds, stats.MinLookRounds, stats.MinLookRounds)
	case c.LookEvery > c.Rounds:
		return fmt.Errorf("--look-every %d with --max-rounds %d: the first look would come after the last round; use --look-every %d or less", c.LookEvery, c.Rounds, c.Rounds)
	case c.PerRank:
		return fmt.Errorf("--until-decided with --per-rank: a sequential design decides on one primary row, and --per-rank has one per rank")
	}
	return nil
}

// lookRatios returns the primary metric's paired log-ratios d of the
// rounds up to round upTo that closed ok, as Analyze pairs them.
func lookRatios(h Header, hist *History, upTo int) ([]float64, error) {
	cfg := h.Config
	var a, b []float64
	for i := 1; i <= upTo; i++ {
		ba, bb := hist.countedBlock(i, armNames[Base]), hist.countedBlock(i, armNames[Head])
		if ba == nil || bb == nil {
			continue
		}
		va, vb := warmValues(ba, h.Primary, cfg.Cold), warmValues(bb, h.Primary, cfg.Cold)
		if len(va) == 0 || len(vb) == 0 {
			continue
		}
		a = append(a, blockStat(va, cfg.BlockStat))
		b = append(b, blockStat(vb, cfg.BlockStat))
	}
	return stats.LogRatios(a, b)
}

// nextLook makes the look after round i of a campaign whose earlier looks
// are prior. It reports false when no look is made: fewer than
// stats.MinLookRounds counted rounds, or none counted since the last look.
func nextLook(h Header, hist *History, prior []LookRecord, i int) (LookRecord, bool, error) {
	d, err := lookRatios(h, hist, i)
	if err != nil {
		return LookRecord{}, false, fmt.Errorf("look after round %d: %w", i, err)
	}
	ns := make([]int, 0, len(prior)+1)
	for _, l := range prior {
		ns = append(ns, l.N)
	}
	if len(d) < stats.MinLookRounds || len(ns) > 0 && len(d) <= ns[len(ns)-1] {
		return LookRecord{}, false, nil
	}
	ns = append(ns, len(d))
	l, err := stats.SequentialLook(d, ns, h.Config.Rounds, stats.Alpha, h.Config.Margin)
	if err != nil {
		return LookRecord{}, false, fmt.Errorf("look after round %d: %w", i, err)
	}
	rec := LookRecord{
		Type: lineLook, Round: i, Look: len(ns), N: l.N, MaxRounds: h.Config.Rounds,
		Stat: Num(l.Stat), Boundary: Num(l.Boundary), Crit: Num(l.Crit),
		Delta: Num(l.Delta), RCILo: Num(l.RCI.Lo), RCIHi: Num(l.RCI.Hi),
		Decision: l.Verdict.Call.String(), Decided: l.Decided(),
	}
	if l.Verdict.ExtraRounds > 0 {
		rec.Extra = l.Verdict.ExtraRounds
	}
	return rec, true, nil
}

// lookAfter returns the journaled look after round i, or nil.
func lookAfter(looks []LookRecord, i int) *LookRecord {
	for k := range looks {
		if looks[k].Round == i {
			return &looks[k]
		}
	}
	return nil
}

// decidedLook returns the look that stopped the campaign, or nil.
func decidedLook(looks []LookRecord) *LookRecord {
	for k := range looks {
		if looks[k].Decided {
			return &looks[k]
		}
	}
	return nil
}

// look makes and journals the look due after round i, unless the journal
// has it. It reports whether the campaign stops there.
func (st *state) look(i int) (bool, error) {
	h := st.c.Header
	if !h.Config.lookDue(i) {
		return false, nil
	}
	if l := lookAfter(st.looks, i); l != nil {
		return l.Decided, nil
	}
	rec, ok, err := nextLook(h, st.h, st.looks, i)
	if err != nil || !ok {
		return false, err
	}
	if err := st.append(rec); err != nil {
		return false, err
	}
	st.looks = append(st.looks, rec)
	fmt.Fprintf(st.c.Warn, "hbgbench: look %d after %d rounds (%d counted, at most %d): %s; statistic %s, boundary %s, repeated CI %s\n",
		rec.Look, i, rec.N, h.Config.Rounds, rec.Decision, num2(rec.Stat), num2(rec.Boundary), rciText(rec.RCILo, rec.RCIHi))
	return rec.Decided, nil
}

// A Sequential is the part of an Analysis a sequential campaign adds:
// its design, its looks, where it stopped, and what a fixed design of
// equal power would have needed.
type Sequential struct {
	LookEvery int `json:"look_every"`
	MaxRounds int `json:"max_rounds"`
	// Looks are the journaled looks; the last one decides the primary
	// metric's verdict.
	Looks []LookRecord `json:"looks"`
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
	FixedRounds int `json:"fixed_rounds,omitempty"`
	FixedPower  Num `json:"fixed_power,omitempty"`
}

// analyseSequential fills a.Sequential from the journal's looks and sets
// the primary row's verdict to the last look's decision: the verdict a
// sequential campaign reached is the one its boundaries allowed, never the
// fixed-design interval of the rounds it ran.
func analyseSequential(a *Analysis, j *Journal) {
	cfg := j.Header.Config
	if cfg.LookEvery == 0 {
		return
	}
	s := &Sequential{LookEvery: cfg.LookEvery, MaxRounds: cfg.Rounds, Looks: append([]LookRecord{}, j.Looks...)}
	a.Sequential = s
	p := a.PrimaryResult()
	if len(s.Looks) == 0 {
		if p != nil && p.Error == "" {
			p.Verdict, p.Extra, p.Gated = stats.Inconclusive.String(), 0, false
		}
		return
	}
	last := s.Looks[len(s.Looks)-1]
	if d := decidedLook(s.Looks); d != nil {
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
	p.Verdict, p.Extra, p.Gated = last.Decision, last.Extra, false
	down, up := p.Kind.changeWords()
	switch last.Decision {
	case stats.Faster.String():
		p.Verdict = down
	case stats.Slower.String():
		p.Verdict = up
	}
	if last.Decision == stats.Faster.String() || last.Decision == stats.Slower.String() {
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
				s.FixedRounds, s.FixedPower = n, Num(power)
			}
		}
	}
}

// SequentialLines are the report's lines on a sequential campaign: where
// it stopped and on what, and the fixed design of equal power; nil for a
// fixed design.
func (a *Analysis) SequentialLines() []string {
	s := a.Sequential
	if s == nil {
		return nil
	}
	design := fmt.Sprintf("looks every %d rounds, at most %d; Lan–DeMets O'Brien–Fleming-type boundaries at 5%%", s.LookEvery, s.MaxRounds)
	if len(s.Looks) == 0 {
		return []string{fmt.Sprintf("UNTIL DECIDED (%s): no look yet (%d rounds complete); the verdict waits for the first look", design, a.Complete)}
	}
	last := s.Looks[len(s.Looks)-1]
	if d := decidedLook(s.Looks); d != nil {
		last = *d
	}
	where := fmt.Sprintf("ran to --max-rounds: look %d after %d rounds", last.Look, last.Round)
	switch {
	case s.Stopped:
		where = fmt.Sprintf("stopped early at look %d after %d rounds", last.Look, last.Round)
	case last.Round < s.MaxRounds:
		where = fmt.Sprintf("not finished: look %d after %d rounds", last.Look, last.Round)
	}
	out := []string{fmt.Sprintf("UNTIL DECIDED (%s): %s: %s; statistic %s against boundary ±%s, repeated 95%% CI %s (%d rounds counted)",
		design, where, last.Decision, num2(last.Stat), num2(last.Boundary), rciText(last.RCILo, last.RCIHi), last.N)}
	if s.FixedRounds > 0 {
		out = append(out, fmt.Sprintf("a fixed design of equal power (%.1f%% at Δ %s) needs about %d rounds; this campaign used %d",
			100*float64(s.FixedPower), pct(last.Delta), s.FixedRounds, last.Round))
	}
	return out
}

// LooksTable is the csv table of a sequential campaign's looks; nil for
// a fixed design.
func (a *Analysis) LooksTable() *report.Table {
	if a.Sequential == nil {
		return nil
	}
	t := &report.Table{Title: "looks", Header: []string{"look", "round", "n", "max_rounds", "stat", "boundary", "crit", "delta", "rci_lo", "rci_hi", "decision", "decided"}}
	for _, l := range a.Sequential.Looks {
		t.Rows = append(t.Rows, []string{fmt.Sprint(l.Look), fmt.Sprint(l.Round), fmt.Sprint(l.N), fmt.Sprint(l.MaxRounds),
			csvNum(l.Stat), csvNum(l.Boundary), csvNum(l.Crit), csvNum(l.Delta), csvNum(l.RCILo), csvNum(l.RCIHi), l.Decision, fmt.Sprint(l.Decided)})
	}
	return t
}

// csvNum is a number as csv writes it: empty when not finite.
func csvNum(x Num) string {
	f := float64(x)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return ""
	}
	return fmt.Sprint(f)
}

// checkLook refuses a look line that cannot belong after the journal's
// lines so far: a journal edited by hand gives an error naming its line,
// never a silently different decision.
func (j *Journal) checkLook(l LookRecord) error {
	cfg := j.Header.Config
	calls := map[string]bool{}
	for _, c := range []stats.Call{stats.Inconclusive, stats.Faster, stats.Slower, stats.NoChange, stats.Small} {
		calls[c.String()] = true
	}
	prevN := 0
	if k := len(j.Looks); k > 0 {
		prevN = j.Looks[k-1].N
		if j.Looks[k-1].Decided {
			return fmt.Errorf("look %d after look %d decided the campaign", l.Look, j.Looks[k-1].Look)
		}
	}
	switch {
	case cfg.LookEvery == 0:
		return fmt.Errorf("the campaign is a fixed design (no --until-decided)")
	case l.Look != len(j.Looks)+1:
		return fmt.Errorf("look %d: want look %d", l.Look, len(j.Looks)+1)
	case l.Round < 1 || l.Round > cfg.Rounds || l.MaxRounds < l.Round:
		return fmt.Errorf("look %d after round %d of %d: want a round from 1 to %d", l.Look, l.Round, l.MaxRounds, cfg.Rounds)
	case l.N < stats.MinLookRounds || l.N <= prevN || l.N > l.Round:
		return fmt.Errorf("look %d on %d rounds: want %d to %d, more than the last look's %d", l.Look, l.N, max(stats.MinLookRounds, prevN+1), l.Round, prevN)
	case !calls[l.Decision]:
		return fmt.Errorf("look %d: decision %q", l.Look, l.Decision)
	case l.Decided != (l.Decision != stats.Inconclusive.String()):
		return fmt.Errorf("look %d: decision %q with decided %v", l.Look, l.Decision, l.Decided)
	}
	return nil
}

// sequentialHeadline is the headline of an inconclusive primary row of a
// sequential campaign: its verdict is the last look's, on the repeated CI,
// which the fixed interval of the rounds run may not show; "" otherwise.
func (a *Analysis) sequentialHeadline(m *MetricResult) string {
	s := a.Sequential
	if s == nil {
		return ""
	}
	if len(s.Looks) == 0 {
		return fmt.Sprintf("INCONCLUSIVE: %s: Δ %s after %d rounds; no look yet (the first comes after round %d)", m.Label, pct(m.Delta), a.Complete, s.LookEvery)
	}
	last := s.Looks[len(s.Looks)-1]
	more := fmt.Sprintf("about %d more rounds would settle it if Δ stayed there: --resume --rounds N extends it", last.Extra)
	if last.Extra <= 0 {
		more = "more rounds would settle it: --resume --rounds N extends it"
	}
	return fmt.Sprintf("INCONCLUSIVE: %s: Δ %s, the repeated 95%% CI %s of look %d (%d rounds) straddles the ±%s margin; %s",
		m.Label, pct(last.Delta), rciText(last.RCILo, last.RCIHi), last.Look, last.N, absPct(a.Margin), more)
}

// benchLine is the benchfmt configuration value of a sequential campaign.
func (s *Sequential) benchLine() string {
	if len(s.Looks) == 0 {
		return fmt.Sprintf("look-every=%d max-rounds=%d looks=0", s.LookEvery, s.MaxRounds)
	}
	last := s.Looks[len(s.Looks)-1]
	return fmt.Sprintf("look-every=%d max-rounds=%d looks=%d stopped-early=%v rounds=%d decision=%q fixed-rounds=%d",
		s.LookEvery, s.MaxRounds, len(s.Looks), s.Stopped, last.Round, last.Decision, s.FixedRounds)
}

// rciText formats a repeated interval; a bound beyond reach (the first
// looks' multiplier can overflow exp) reads ∞.
func rciText(lo, hi Num) string {
	b := func(x Num, inf string) string {
		if f := float64(x); math.IsNaN(f) || math.IsInf(f, 0) {
			return inf
		}
		return pct(x)
	}
	return "[" + b(lo, "-∞") + ", " + b(hi, "+∞") + "]"
}
