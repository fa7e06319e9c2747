package main

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/hbgkit/hbgkit/internal/report"
	"github.com/hbgkit/hbgkit/phases"
	"github.com/hbgkit/hbgkit/swimlane"
	"github.com/hbgkit/hbgkit/trace"
	"github.com/spf13/cobra"
)

// gapsOptions are the flags of `hbgtrace gaps`.
type gapsOptions struct {
	logInput
	laneFlags
}

// laneFlags are the flags gaps and lanes share: the sides, the records,
// the gap threshold and the format.
type laneFlags struct {
	sideOptions
	records []string
	minGap  string
	format  string
	// minGapNs is minGap parsed (parseMinGap), 0 for the default.
	minGapNs int64
}

// add registers the flags on cmd; minGapHelp says where --min-gap is
// explained.
func (o *laneFlags) add(cmd *cobra.Command, minGapHelp string) {
	cmd.Flags().StringArrayVar(&o.records, "records", nil,
		"a host_phase_records.jsonl to merge (repeatable)")
	cmd.Flags().StringVar(&o.minGap, "min-gap", "", "gap threshold, e.g. 20us "+minGapHelp)
	cmd.Flags().StringVar(&o.format, "format", formatText, "text|markdown|json")
	addSideFlags(cmd, &o.sideOptions)
}

// check checks the flags against the arguments and parses --min-gap.
func (o *laneFlags) check(cmd *cobra.Command, args []string) error {
	switch o.format {
	case formatText, formatMarkdown, formatJSON:
	default:
		return &usageError{cmd: cmd, err: fmt.Errorf("invalid --format %q: want text, markdown or json", o.format)}
	}
	if err := o.sideOptions.check(cmd, args, o.records); err != nil {
		return err
	}
	minGap, err := parseMinGap(o.minGap)
	if err != nil {
		return &usageError{cmd: cmd, err: err}
	}
	o.minGapNs = minGap
	return nil
}

// newGapsCmd builds the gaps command. runF replaces gapsRun in tests; nil
// means gapsRun.
func newGapsCmd(runF func(*gapsOptions) error) *cobra.Command {
	opts := &gapsOptions{}
	cmd := &cobra.Command{
		Use:   "gaps LOG|DIR... [--records R.jsonl...] | --base A --head B",
		Short: "Find the waits between Graph submissions, annotated",
		Long: `gaps lists, per bind, the gaps on the graph submit main lane between
consecutive graph_submit records that are longer than --min-gap (default:
the larger of 4x the bind's median gap and 20us). Each gap names the
recorder lanes whose first record in the log starts inside it: threads
created while the submitting thread waited, the signature of a
pthread_create mid-burst. Then the commit wait: last graph_submit end to
last build_definition end (0 when recording finished first).

The per-event graph_submit records live only in host_phase_records.jsonl,
so --records is needed, or a run DIR holding host.*.log files and its
host_phase_records.jsonl; without any graph_submit record gaps says so
and exits 1. Binds are labelled with their row of hbgtrace rounds.
--base A --head B compares two sides (as hbgtrace lanes does); --assert
EXPR checks a claim and exits 1 when it fails. See docs/swimlanes.md.`,
		Example: `  hbgtrace gaps run.log --records out/host_phase_records.jsonl
  hbgtrace gaps run.log --records r.jsonl --min-gap 50us --format json
  hbgtrace gaps --base before/ --head after/
  hbgtrace gaps out/ --assert 'every graph_submit on a submit lane'`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := opts.check(cmd, args); err != nil {
				return err
			}
			return runWith(cmd, args, &opts.logInput, opts, runF, gapsRun)
		},
	}
	opts.add(cmd, "(see above)")
	addMaxSpansFlag(cmd, &opts.logInput)
	return cmd
}

// parseMinGap parses a --min-gap value: a Go duration ("20us", "1.5ms",
// "20µs"), or a bare number of µs.
func parseMinGap(s string) (int64, error) {
	if s == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		f, err2 := strconv.ParseFloat(s, 64)
		if err2 != nil || math.IsNaN(f) || math.IsInf(f, 0) || f > 1e12 {
			return 0, fmt.Errorf("invalid --min-gap %q: want a duration such as 20us", s)
		}
		d = time.Duration(f * 1e3)
	}
	if d <= 0 {
		return 0, fmt.Errorf("invalid --min-gap %q: must be positive", s)
	}
	return d.Nanoseconds(), nil
}

func gapsRun(opts *gapsOptions) error {
	if done, err := compareOrAssert(opts.logInput, "gaps", &opts.sideOptions, opts.records, opts.minGapNs, opts.format); done {
		return err
	}
	records, err := dirRecords(opts.logs, opts.records)
	if err != nil {
		return fmt.Errorf("gaps: %w", err)
	}
	log, sw, err := readSwimlane(opts.logInput, "gaps", records)
	if err != nil {
		return err
	}
	gs := sw.Gaps(swimlane.GapOptions{MinGap: opts.minGapNs, Round: roundIndex(log)})
	for _, g := range gs {
		if g.Overlaps > 0 {
			fmt.Fprintf(opts.Stderr, "warning: %s: %d of %d graph_submit records start before the one before them ends (duplicated or reversed records?); they make no gap and the median leaves them out\n",
				g.Label(), g.Overlaps, g.Submits)
		}
	}
	if len(gs) == 0 {
		if len(records) == 0 {
			return errors.New("gaps: no graph_submit records: they live only in host_phase_records.jsonl; pass it with --records, or a run DIR that holds it")
		}
		return errors.New("gaps: no graph_submit records in the artifacts for the binds of this log")
	}
	return report.WriteGaps(opts.Stdout, opts.format, gs)
}

// roundIndex maps each bind to its row of `hbgtrace rounds`.
func roundIndex(l *trace.Log) func(pid int64, inv uint64) (int, bool) {
	r := phases.ComputeRounds(trace.GroupInvocations(trace.InvocationSpans(l.Spans)))
	idx := make(map[[2]uint64]int, len(r.Rows))
	for _, row := range r.Rows {
		idx[[2]uint64{uint64(row.Pid), row.Inv}] = row.Round
	}
	return func(pid int64, inv uint64) (int, bool) {
		n, ok := idx[[2]uint64{uint64(pid), inv}]
		return n, ok
	}
}
