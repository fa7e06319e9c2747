package analysis

import (
	"math"
	"time"

	"github.com/hbgkit/hbgkit/abtest/journal"
	"github.com/hbgkit/hbgkit/abtest/stats"
)

// A Cost is the machine time a campaign spent on its arms, from the wall
// time of its block records (docs/ab-reference.md "What it cost"): the
// timed blocks of its rounds (every try, failed ones included), and the
// warm-up blocks apart. Builds, checkouts and checks are not blocks and
// are not in it.
type Cost struct {
	Blocks        int         `json:"blocks"` // timed blocks run, every try
	BlockSeconds  journal.Num `json:"block_seconds"`
	Failed        int         `json:"failed_blocks"` // of Blocks, the tries that did not count
	FailedSeconds journal.Num `json:"failed_seconds"`
	Warmups       int         `json:"warmup_blocks"`
	WarmupSeconds journal.Num `json:"warmup_seconds"`
	// RoundSeconds is the mean wall time of a counted round's blocks.
	RoundSeconds journal.Num `json:"round_seconds"`
	// FixedSeconds is what the fixed design of equal power of a
	// sequential campaign (Sequential.FixedRounds) would have spent at
	// RoundSeconds a round; absent when there is none.
	FixedSeconds journal.Num `json:"fixed_seconds,omitempty"`
	// Detectable is the smallest change the primary metric's spread in
	// this campaign lets a fixed design detect with 80% power in 10, 20
	// and 40 rounds (stats.TrimmedMDE); absent without a spread.
	Detectable []RoundsMDE `json:"detectable,omitempty"`
}

// A RoundsMDE is the change detectable with 80% power in Rounds rounds.
type RoundsMDE struct {
	Rounds int         `json:"rounds"`
	MDE    journal.Num `json:"mde"`
}

// DetectableRounds are the round counts Cost.Detectable is given for.
var DetectableRounds = []int{10, 20, 40}

// costOf returns what the campaign j spent, or nil when its blocks carry
// no wall time (compare's logs).
func costOf(a *Analysis, j *journal.Journal) *Cost {
	c := &Cost{}
	var timed, warm, failed time.Duration
	counted := map[int]time.Duration{}
	for _, b := range j.Blocks {
		d := time.Duration(b.WallNS)
		switch {
		case b.Round == 0:
			c.Warmups++
			warm += d
		default:
			c.Blocks++
			timed += d
			if !b.OK() {
				c.Failed++
				failed += d
			} else {
				counted[b.Round] += d
			}
		}
	}
	if timed+warm == 0 {
		return nil
	}
	c.BlockSeconds, c.WarmupSeconds, c.FailedSeconds = journal.Num(timed.Seconds()), journal.Num(warm.Seconds()), journal.Num(failed.Seconds())
	var sum time.Duration
	n := 0
	for _, r := range j.Rounds {
		if d, ok := counted[r.Round]; ok && r.Status == journal.RoundOK {
			sum += d
			n++
		}
	}
	c.RoundSeconds = journal.Num(math.NaN())
	if n > 0 {
		c.RoundSeconds = journal.Num(sum.Seconds() / float64(n))
	}
	if s := a.Sequential; s != nil && s.FixedRounds > 0 && n > 0 {
		c.FixedSeconds = journal.Num(float64(s.FixedRounds) * float64(c.RoundSeconds))
	}
	if p := a.PrimaryResult(); p != nil && p.Sw > 0 {
		for _, r := range DetectableRounds {
			c.Detectable = append(c.Detectable, RoundsMDE{r, journal.Num(stats.TrimmedMDE(p.Sw, r))})
		}
	}
	return c
}
