package journal

import (
	"encoding/json"
	"fmt"

	"github.com/hbgkit/hbgkit/abtest/stats"
)

// lineLook is the journal line of a look.
const LineLook = "look"

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
	// EqLo and EqHi are the equivalence interval of --stop-within (the
	// repeated CI at level 1 − 2α); absent when the look did not test it.
	EqLo Num `json:"eq_lo,omitempty"`
	EqHi Num `json:"eq_hi,omitempty"`
	// Decision is the verdict on the RCI (faster, slower, no change,
	// ~ small, bounded, inconclusive); Decided says the campaign stopped
	// here.
	Decision stats.Call `json:"decision"`
	Decided  bool       `json:"decided"`
	// Extra is, for an inconclusive look, Decide's estimate of the rounds
	// that would settle it.
	Extra int `json:"extra_rounds,omitempty"`

	// badDecision is a decision word UnmarshalJSON found no call for,
	// for checkLook to refuse in its turn.
	badDecision string
}

// UnmarshalJSON reads a look line. A decision that is no call is kept
// aside for checkLook, which refuses it naming the look.
func (l *LookRecord) UnmarshalJSON(b []byte) error {
	type plain LookRecord
	var raw struct {
		plain
		Decision string `json:"decision"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	*l = LookRecord(raw.plain)
	if err := l.Decision.UnmarshalText([]byte(raw.Decision)); err != nil {
		l.badDecision = raw.Decision
	}
	return nil
}

// lookDue reports whether a sequential campaign looks after round i.
func (c Config) LookDue(i int) bool {
	return c.LookEvery > 0 && (i%c.LookEvery == 0 || i == c.Rounds)
}

// validateSequential is Validate's part for --until-decided.
func (c Config) validateSequential() error {
	switch {
	case c.LookEvery < 0:
		return fmt.Errorf("--look-every %d: want 1 or more rounds between looks", c.LookEvery)
	case !(c.StopWithin >= 0 && c.StopWithin < 1):
		return fmt.Errorf("--stop-within %v: want a bound from 0 (off) to below 100%%", float64(c.StopWithin))
	case c.LookEvery == 0 && c.StopWithin > 0:
		return fmt.Errorf("--stop-within needs --until-decided")
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

// checkLook refuses a look line that cannot belong after the journal's
// lines so far: a journal edited by hand gives an error naming its line,
// never a silently different decision.
func (j *Journal) checkLook(l LookRecord) error {
	cfg := j.Header.Config
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
	case l.badDecision != "":
		return fmt.Errorf("look %d: decision %q", l.Look, l.badDecision)
	case l.Decided != (l.Decision != stats.Inconclusive):
		return fmt.Errorf("look %d: decision %q with decided %v", l.Look, l.Decision, l.Decided)
	}
	return nil
}
