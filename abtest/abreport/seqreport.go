package abreport

import (
	"fmt"

	"github.com/hbgkit/hbgkit/abtest/analysis"
	"github.com/hbgkit/hbgkit/internal/document"
)

// SequentialLines are the report's lines on a sequential campaign: where
// it stopped and on what, and the fixed design of equal power; nil for a
// fixed design.
func (a Report) SequentialLines() []string {
	s := a.Sequential
	if s == nil {
		return nil
	}
	design := fmt.Sprintf("looks every %d rounds, at most %d; Lan–DeMets O'Brien–Fleming-type boundaries at 5%%", s.LookEvery, s.MaxRounds)
	if s.StopWithin > 0 {
		design += fmt.Sprintf("; stops for no change of %s or more", analysis.AbsPct(float64(s.StopWithin)))
	}
	if len(s.Looks) == 0 {
		return []string{fmt.Sprintf("UNTIL DECIDED (%s): no look yet (%d rounds complete); the verdict waits for the first look", design, a.Complete)}
	}
	last := s.Looks[len(s.Looks)-1]
	if d := analysis.DecidedLook(s.Looks); d != nil {
		last = *d
	}
	where := fmt.Sprintf("ran to --max-rounds: look %d after %d rounds", last.Look, last.Round)
	switch {
	case s.Stopped:
		where = fmt.Sprintf("stopped early at look %d after %d rounds", last.Look, last.Round)
	case last.Round < s.MaxRounds:
		where = fmt.Sprintf("not finished: look %d after %d rounds", last.Look, last.Round)
	}
	rci := fmt.Sprintf(", repeated 95%% CI %s", analysis.RciText(last.RCILo, last.RCIHi))
	if analysis.DecidedLook(s.Looks) != nil {
		rci = " (the headline quotes its repeated CI)"
	}
	out := []string{fmt.Sprintf("UNTIL DECIDED (%s): %s: %s; statistic %s against boundary ±%s%s (%d rounds counted)",
		design, where, last.Decision, analysis.Num2(last.Stat), analysis.Num2(last.Boundary), rci, last.N)}
	if s.FixedRounds > 0 {
		l := fmt.Sprintf("a fixed design of equal power (%.1f%% at Δ %s) needs about %d rounds; this campaign used %d",
			100*float64(s.FixedPower), analysis.Pct(last.Delta), s.FixedRounds, last.Round)
		if c := a.Cost; c != nil && c.FixedSeconds > 0 {
			l += fmt.Sprintf(" (about %s of card time against %s)", seconds(float64(c.FixedSeconds)), seconds(float64(c.RoundSeconds)*float64(last.Round)))
		}
		out = append(out, l)
	}
	return out
}

// LooksTable is the csv table of a sequential campaign's looks; nil for
// a fixed design.
func (a Report) LooksTable() *document.Table {
	if a.Sequential == nil {
		return nil
	}
	t := &document.Table{Title: "looks", Header: []string{"look", "round", "n", "max_rounds", "stat", "boundary", "crit", "delta", "rci_lo", "rci_hi", "decision", "decided"}}
	for _, l := range a.Sequential.Looks {
		t.Rows = append(t.Rows, []string{fmt.Sprint(l.Look), fmt.Sprint(l.Round), fmt.Sprint(l.N), fmt.Sprint(l.MaxRounds),
			analysis.CsvNum(l.Stat), analysis.CsvNum(l.Boundary), analysis.CsvNum(l.Crit), analysis.CsvNum(l.Delta), analysis.CsvNum(l.RCILo), analysis.CsvNum(l.RCIHi), l.Decision.String(), fmt.Sprint(l.Decided)})
	}
	return t
}

// boundedHeadline is the headline of a primary row whose campaign stopped
// for "no change" (--stop-within): the equivalence interval it stopped on,
// what it rules out and what it does not.
func (a Report) boundedHeadline(m *analysis.MetricResult, facts string) string {
	l := a.decidingLook(m)
	if l == nil || a.Sequential == nil {
		return fmt.Sprintf("NO CHANGE BEYOND THE BOUND: %s: Δ %s (%s)", m.Label, analysis.Pct(m.Delta), facts)
	}
	w := analysis.AbsPct(float64(a.Sequential.StopWithin))
	return fmt.Sprintf("NO CHANGE OF %s OR MORE: %s: Δ %s; the 90%% repeated CI %s of look %d (%d rounds) lies within ±%s, "+
		"so a change of %s or more either way is ruled out (at 5%% each way); one inside ±%s is not, and the ±%s margin was not reached (stopped by --stop-within; %s)",
		w, m.Label, analysis.Pct(l.Delta), analysis.RciText(l.EqLo, l.EqHi), l.Look, l.N, w, w, w, analysis.AbsPct(a.Margin), facts)
}

// sequentialHeadline is the headline of an inconclusive primary row of a
// sequential campaign: its verdict is the last look's, on the repeated CI,
// which the fixed interval of the rounds run may not show; "" otherwise.
func (a Report) sequentialHeadline(m *analysis.MetricResult) string {
	s := a.Sequential
	if s == nil {
		return ""
	}
	if len(s.Looks) == 0 {
		return fmt.Sprintf("INCONCLUSIVE: %s: Δ %s after %d rounds; no look yet (the first comes after round %d)", m.Label, analysis.Pct(m.Delta), a.Complete, s.LookEvery)
	}
	last := s.Looks[len(s.Looks)-1]
	more := fmt.Sprintf("about %d more rounds would settle it if Δ stayed there: --resume --rounds N extends it", last.Extra)
	if last.Extra <= 0 {
		more = "more rounds would settle it: --resume --rounds N extends it"
	}
	return fmt.Sprintf("INCONCLUSIVE: %s: Δ %s, the repeated 95%% CI %s of look %d (%d rounds) straddles the ±%s margin; %s",
		m.Label, analysis.Pct(last.Delta), analysis.RciText(last.RCILo, last.RCIHi), last.Look, last.N, analysis.AbsPct(a.Margin), more)
}

// benchLine is the benchfmt configuration value of a sequential campaign.
func benchLine(s *analysis.Sequential) string {
	if len(s.Looks) == 0 {
		return fmt.Sprintf("look-every=%d max-rounds=%d looks=0", s.LookEvery, s.MaxRounds)
	}
	last := s.Looks[len(s.Looks)-1]
	return fmt.Sprintf("look-every=%d max-rounds=%d looks=%d stopped-early=%v rounds=%d decision=%q fixed-rounds=%d",
		s.LookEvery, s.MaxRounds, len(s.Looks), s.Stopped, last.Round, last.Decision, s.FixedRounds)
}
