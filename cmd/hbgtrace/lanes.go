package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hbgkit/hbgkit/internal/report"
	"github.com/hbgkit/hbgkit/swimlane"
	"github.com/hbgkit/hbgkit/trace"
	"github.com/spf13/cobra"
)

// sideOptions are the flags gaps and lanes share: the sides to compare
// and the assertions.
type sideOptions struct {
	base, head []string
	asserts    []string
	parsed     []*swimlane.Assertion
}

func addSideFlags(cmd *cobra.Command, o *sideOptions) {
	cmd.Flags().StringArrayVar(&o.base, "base", nil, "base side: a LOG or run DIR (repeatable)")
	cmd.Flags().StringArrayVar(&o.head, "head", nil, "head side: a LOG or run DIR (repeatable)")
	cmd.Flags().StringArrayVar(&o.asserts, "assert", nil, "check EXPR; exit 1 if it fails (repeatable)")
}

// check validates the side flags against the positional args and the
// --records flag, and parses the assertions.
func (o *sideOptions) check(cmd *cobra.Command, args, records []string) error {
	switch {
	case len(o.base) > 0 && len(records) > 0:
		return &usageError{cmd: cmd, err: errors.New("--records applies to one log; with --base and --head give each side as a run DIR holding its host_phase_records.jsonl")}
	case (len(o.base) == 0) != (len(o.head) == 0):
		return &usageError{cmd: cmd, err: errors.New("--base and --head go together")}
	case len(o.base) > 0 && len(args) > 0:
		return &usageError{cmd: cmd, err: errors.New("give either LOG arguments or --base and --head, not both")}
	case len(o.base) == 0 && len(args) == 0:
		return &usageError{cmd: cmd, err: errors.New("requires at least 1 arg(s): a LOG or run DIR, or --base and --head")}
	}
	for _, s := range o.asserts {
		a, err := swimlane.ParseAssertion(s)
		if err != nil {
			return &usageError{cmd: cmd, err: err}
		}
		o.parsed = append(o.parsed, a)
	}
	return nil
}

// dirRecords returns records plus the host_phase_records.jsonl of every
// directory among logs that holds one and is not named already; a
// directory with neither host.*.log files nor that artifact is an error
// naming it.
func dirRecords(logs, records []string) ([]string, error) {
	out := append([]string(nil), records...)
	for _, l := range logs {
		st, err := os.Stat(l)
		if err != nil || !st.IsDir() {
			continue
		}
		r := trace.DirRecords(l)
		logsIn, _ := filepath.Glob(filepath.Join(l, "host.*.log*"))
		if r == "" && len(logsIn) == 0 {
			return nil, fmt.Errorf("%s holds neither host.*.log files nor %s", l, trace.RecordsFile)
		}
		if r != "" && !contains(out, r) {
			out = append(out, r)
		}
	}
	return out, nil
}

func contains(v []string, s string) bool {
	for _, x := range v {
		if x == s {
			return true
		}
	}
	return false
}

// aSide is one log argument (or side) read into its swimlane and lane
// report.
type aSide struct {
	name  string
	sw    *swimlane.Swimlane
	rep   *swimlane.LaneReport
	round func(int64, uint64) (int, bool)
}

// readSide reads logs (files or run directories, as one stream) with
// their records and summarises their lanes.
func readSide(in logInput, name string, logs, records []string, minGap int64) (*aSide, error) {
	recs, err := dirRecords(logs, records)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	in.logs = logs
	log, sw, err := readSwimlane(in, name, recs)
	if err != nil {
		return nil, err
	}
	round := roundIndex(log)
	rep := sw.Lanes(swimlane.GapOptions{MinGap: minGap, Round: round})
	return &aSide{name: strings.Join(logs, " "), sw: sw, rep: rep, round: round}, nil
}

// runAsserts checks every assertion on every side and writes the
// results; an exit 1 error when any fails.
func runAsserts(st ioStreams, format string, asserts []*swimlane.Assertion, sides map[string][]*aSide) error {
	var rs []report.AssertResult
	failed := 0
	for _, label := range []string{"", "base", "head"} {
		for _, s := range sides[label] {
			for _, a := range asserts {
				f := a.Check(s.sw, s.rep, s.round)
				if len(f) > 0 {
					failed++
				}
				if f == nil {
					f = []swimlane.Failure{}
				}
				rs = append(rs, report.AssertResult{Side: label, Log: s.name, Assertion: a.Text, Failures: f})
			}
		}
	}
	if err := report.WriteAsserts(st.Stdout, format, rs); err != nil {
		return err
	}
	if failed > 0 {
		return &exitError{code: 1, text: fmt.Sprintf("hbgtrace: %d of %d assertion check(s) failed\n", failed, len(rs))}
	}
	return nil
}

// compareOrAssert is the --base/--head and --assert part of gaps and
// lanes: it returns handled=false when neither is asked for.
func compareOrAssert(in logInput, name string, o *sideOptions, records []string, minGap int64, format string) (bool, error) {
	if len(o.base) == 0 && len(o.parsed) == 0 {
		return false, nil
	}
	sides := map[string][]*aSide{}
	if len(o.base) == 0 {
		s, err := readSide(in, name, in.logs, records, minGap)
		if err != nil {
			return true, err
		}
		sides[""] = []*aSide{s}
	} else {
		for _, sd := range []struct {
			label string
			args  []string
		}{{"base", o.base}, {"head", o.head}} {
			for _, a := range sd.args {
				s, err := readSide(in, name, []string{a}, records, minGap)
				if err != nil {
					return true, err
				}
				sides[sd.label] = append(sides[sd.label], s)
			}
		}
	}
	if len(o.parsed) > 0 {
		return true, runAsserts(in.ioStreams, format, o.parsed, sides)
	}
	reps := func(ss []*aSide) []*swimlane.LaneReport {
		var out []*swimlane.LaneReport
		for _, s := range ss {
			out = append(out, s.rep)
		}
		return out
	}
	d := swimlane.CompareLanes(reps(sides["base"]), reps(sides["head"]))
	return true, report.WriteLaneDiff(in.Stdout, format, strings.Join(o.base, " "), strings.Join(o.head, " "), d)
}

// lanesOptions are the flags of `hbgtrace lanes`.
type lanesOptions struct {
	logInput
	laneFlags
}

// newLanesCmd builds the lanes command. runF replaces lanesRun in tests;
// nil means lanesRun.
func newLanesCmd(runF func(*lanesOptions) error) *cobra.Command {
	opts := &lanesOptions{}
	cmd := &cobra.Command{
		Use:   "lanes LOG|DIR... [--records R.jsonl] | --base A --head B",
		Short: "Summarise the host lanes: roles, spans, busy time, gaps",
		Long: `lanes summarises the host swimlane of a log: per lane its role (submit,
worker, orchestrator, ...), the spans on it by name with counts and its
busy time per bind; per bind the recorder lanes, the most recordings
running at once, the gaps on the submitting thread with lanes born inside
them and the commit wait; over the warm binds (all but each process's
first) the commit wait and concurrent recordings min/median/max.

A DIR is a run directory: its host.*.log files (read as passes of one
arm) and its host_phase_records.jsonl. --base A --head B compares two
sides, the commit wait paired over warm binds with a 95% t interval.
--assert EXPR checks a claim on each log or side and exits 1 when it
fails. See docs/swimlanes.md.`,
		Example: `  hbgtrace lanes out/
  hbgtrace lanes run.log --records out/host_phase_records.jsonl
  hbgtrace lanes --base before/ --head after/ --format markdown
  hbgtrace lanes out/ --assert 'lanes(role=worker) >= 2'`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := opts.check(cmd, args); err != nil {
				return err
			}
			return runWith(cmd, args, &opts.logInput, opts, runF, lanesRun)
		},
	}
	opts.add(cmd, "(see gaps)")
	addMaxSpansFlag(cmd, &opts.logInput)
	return cmd
}

func lanesRun(opts *lanesOptions) error {
	if done, err := compareOrAssert(opts.logInput, "lanes", &opts.sideOptions, opts.records, opts.minGapNs, opts.format); done {
		return err
	}
	s, err := readSide(opts.logInput, "lanes", opts.logs, opts.records, opts.minGapNs)
	if err != nil {
		return err
	}
	return report.WriteLanes(opts.Stdout, opts.format, s.rep)
}
