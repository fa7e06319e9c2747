package abreport

import (
	"fmt"

	"github.com/hbgkit/hbgkit/abtest/analysis"
	"github.com/hbgkit/hbgkit/abtest/journal"
	"github.com/hbgkit/hbgkit/abtest/stats"
)

// CapturedNext is what `compare --paired --until-decided` tells the
// engineer when its looks have not decided: how many more pairs to
// capture before the next look, and to run it again on all of them; ""
// when decided, not sequential, or not captured logs.
func (a Report) CapturedNext() string {
	s := a.Sequential
	if s == nil || a.Header.Arms[journal.Base].Kind != analysis.KindLogs || analysis.DecidedLook(s.Looks) != nil {
		return ""
	}
	done := a.Complete
	if done >= s.MaxRounds {
		return fmt.Sprintf("not decided after %d pairs, the most --max-rounds allows: capture more only with a larger --max-rounds, whose later looks are paid for as ab --resume --rounds N pays for them", done)
	}
	next := (done/s.LookEvery + 1) * s.LookEvery
	next = min(max(next, stats.MinLookRounds), s.MaxRounds)
	return fmt.Sprintf("not decided after %d pairs: capture %d more (the next look is after pair %d, at most %d) and run compare --paired again on all of them",
		done, next-done, next, s.MaxRounds)
}

// Captured reports whether the analysis is of logs captured by hand and
// paired as rounds (compare --paired).
func (a Report) Captured() bool {
	return a.Design == analysis.DesignInterleaved && a.Header.Arms[journal.Base].Kind == analysis.KindLogs
}

// capturedRounds is the method's line on the rounds of captured logs:
// how many, how they were paired, the smallest block, and the order the
// arms ran in.
func (a Report) capturedRounds() string {
	h := a.Header
	first, n := 0, len(h.Schedule.Firsts)
	for _, f := range h.Schedule.Firsts {
		if f == journal.ArmNames[journal.Base] {
			first++
		}
	}
	order := fmt.Sprintf("base ran first in %d of %d rounds", first, n)
	switch {
	case len(h.Schedule.Orders) > 0:
		order = fmt.Sprintf("the arms' order as captured in each of %d rounds", len(h.Schedule.Orders))
	case n == 0:
		order = "the order within a round is not recorded (a manifest records it)"
	}
	return fmt.Sprintf("%d of %d rounds of logs %s; a block is an arm's logs of a round, %d passes per process or more; %s",
		a.Complete, a.Planned, h.Schedule.Stream, h.Config.Block, order)
}
