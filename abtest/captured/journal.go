package captured

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hbgkit/hbgkit/abtest/analysis"
	"github.com/hbgkit/hbgkit/abtest/journal"
	"github.com/hbgkit/hbgkit/abtest/metric"
)

// Options are Journal's settings besides the plan.
type Options struct {
	// Config supplies Cold, BlockStat ("" chooses as ab does from the
	// smallest block), Trim, Margin, Metric, PerRank, and for a sequential
	// analysis LookEvery, StopWithin and Rounds (the most rounds).
	Config  journal.Config
	Version string   // hbgkit version, for the report
	Command []string // the command line, for the report
}

// Journal reads the plan's logs, one block per arm and round (a block of
// several logs holds their passes, each process's first --cold passes
// dropped as ab drops them), into the journal of a campaign of those
// rounds: every block counted, the rounds in the plan's order, each
// round's order the one the plan knows (base first otherwise). A log that
// cannot be read, or holds no pass, is an error naming it.
func Journal(p *Plan, o Options) (*journal.Journal, error) {
	cfg := o.Config
	if cfg.LookEvery == 0 {
		cfg.Rounds = len(p.Rounds)
	}
	cfg.Warmup, cfg.Order = 0, ""
	j := &journal.Journal{}
	var arms []journal.Arm
	for _, a := range p.Arms {
		var logs []string
		for _, r := range p.Rounds {
			logs = append(logs, r.Logs[a]...)
		}
		spec := fmt.Sprintf("%d logs (%s … %s)", len(logs), logs[0], logs[len(logs)-1])
		if len(logs) == 1 {
			spec = "1 log (" + logs[0] + ")"
		}
		arms = append(arms, journal.Arm{Kind: analysis.KindLogs, Name: a, Spec: spec})
	}
	j.Header = journal.Header{
		Type: journal.LineHeader, Format: journal.JournalFormat, Hbgkit: o.Version,
		Command: o.Command, Shards: []string{},
		Arms:     [2]journal.Arm{arms[0], arms[1]},
		Schedule: journal.Schedule{Stream: "captured by hand, paired by " + p.Source, Rounds: cfg.Rounds},
	}
	if len(arms) > 2 {
		j.Header.AllArms = arms
		j.Header.Schedule.Arms = len(arms)
	}
	var all []metric.Pass
	smallest := 0
	for _, r := range p.Rounds {
		order := orderOf(r, p.Arms)
		switch {
		case len(r.Order) == 0:
			// The order within the round is not known: none is recorded.
		case len(arms) > 2:
			var idx []int
			for _, a := range order {
				idx = append(idx, slices.Index(p.Arms, a))
			}
			j.Header.Schedule.Orders = append(j.Header.Schedule.Orders, idx)
		default:
			j.Header.Schedule.Firsts = append(j.Header.Schedule.Firsts, journal.ArmNames[slices.Index(p.Arms, order[0])])
		}
		for pos, a := range order {
			bp, err := metric.ReadBlockLog(r.Logs[a])
			if err != nil {
				return nil, fmt.Errorf("round %d, %s: %w", r.N, a, err)
			}
			if len(bp.Passes) == 0 {
				return nil, fmt.Errorf("round %d, %s: %s: no passes (no chip.run span and no bind phase= line)", r.N, a, strings.Join(r.Logs[a], " "))
			}
			for _, w := range bp.Warnings {
				j.Warnings = append(j.Warnings, fmt.Sprintf("round %d, %s: %s", r.N, a, w))
			}
			name := a
			if len(arms) == 2 {
				name = journal.ArmNames[slices.Index(p.Arms, a)]
			}
			j.Blocks = append(j.Blocks, journal.BlockRecord{Type: journal.LineBlock, Round: len(j.Rounds) + 1, Arm: name, Attempt: 1, Try: 1,
				Pos: pos, Seq: len(j.Blocks) + 1, Stamp: bp.Stamp, Log: strings.Join(r.Logs[a], " "), Passes: bp.Passes, Warnings: bp.Warnings})
			all = append(all, bp.Passes...)
			if n := passesPerPid(bp.Passes); smallest == 0 || n < smallest {
				smallest = n
			}
		}
		j.Rounds = append(j.Rounds, journal.RoundRecord{Type: journal.LineRound, Round: len(j.Rounds) + 1, Attempt: 1, Status: journal.RoundOK})
	}
	cfg.Block = max(smallest, cfg.Cold+1)
	if cfg.BlockStat == "" {
		cfg.BlockStat = journal.DefaultBlockStat(smallest, cfg.Cold)
	}
	j.Header.Config = cfg
	if err := analysis.LogsHeader(j, all, cfg.Metric); err != nil {
		return nil, err
	}
	if cfg.LookEvery > 0 {
		if err := look(j); err != nil {
			return nil, err
		}
	}
	return j, nil
}

// look makes the looks of a sequential analysis of the rounds present:
// after every LookEvery-th round and after the last of the most rounds,
// as ab --until-decided makes them, stopping at the first that decides.
// They are computed afresh from the logs on every run: a look's boundary
// depends only on its round count and the most rounds, so a run on more
// logs makes the same earlier looks (docs/ab-method.md "Captured logs:
// looks").
func look(j *journal.Journal) error {
	hist := j.History()
	for i := 1; i <= len(j.Rounds); i++ {
		if !j.Header.Config.LookDue(i) {
			continue
		}
		l, ok, err := analysis.NextLook(j.Header, hist, j.Looks, i)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		j.Looks = append(j.Looks, l)
		if l.Decided {
			// What follows the stop was never due.
			j.Rounds, j.Blocks = j.Rounds[:i], blocksUpTo(j.Blocks, i)
			return nil
		}
	}
	return nil
}

func blocksUpTo(bs []journal.BlockRecord, round int) []journal.BlockRecord {
	var out []journal.BlockRecord
	for _, b := range bs {
		if b.Round <= round {
			out = append(out, b)
		}
	}
	return out
}

// orderOf is the order r's arms ran in: the plan's, then any arm it does
// not name in arm order.
func orderOf(r Round, arms []string) []string {
	out := append([]string{}, r.Order...)
	for _, a := range arms {
		if !slices.Contains(out, a) {
			out = append(out, a)
		}
	}
	return out
}

// passesPerPid is the fewest passes any process of a block wrote.
func passesPerPid(ps []metric.Pass) int {
	n := map[int64]int{}
	for _, p := range ps {
		n[p.Pid]++
	}
	least := 0
	for _, k := range n {
		if least == 0 || k < least {
			least = k
		}
	}
	return least
}
