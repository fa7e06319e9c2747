package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/hbgkit/hbgkit/internal/report"
	"github.com/hbgkit/hbgkit/phases"
	"github.com/hbgkit/hbgkit/trace"
)

// orchOptions are the flags and arguments of `hbgtrace orch`.
type orchOptions struct {
	logInput
	records []string // host_phase_records.jsonl artifacts
	format  string
}

// newOrchCmd builds the orch command. runF replaces orchRun in tests; nil
// means orchRun.
func newOrchCmd(runF func(*orchOptions) error) *cobra.Command {
	opts := &orchOptions{}
	cmd := &cobra.Command{
		Use:   "orch LOG... [--records R.jsonl]...",
		Short: "Orchestrator operations per kind: count, total, time per op",
		Long: `orch prints one row per orchestrator operation kind of the log's
host-orch phase= lines (E1, E2: one line per kind and pass, a total and
a count): in how many warm passes it was written ("k of N"), the median
count per pass, the total time over every pass, and the time per
operation (total/count) min, median and max over the warm passes. Warm
passes are all but the first pass of each pid. E3 logs write no
host-orch lines.

With --records, a second table does the same per record kind of
host_phase_records.jsonl artifacts, from each record's duration.

Output formats (--format):
  text      a titled table per source
  markdown  the same as GitHub tables
  json      {"host_orch": [{"kind", "passes", "warm_passes",
            "count_per_pass", "count", "total_us", "per_op_min_us",
            "per_op_median_us", "per_op_max_us"}], "records": [...]}
  csv       header source,kind,passes,warm_passes,count_per_pass,count,
            total_us,per_op_min_us,per_op_median_us,per_op_max_us`,
		Example: `  hbgtrace orch host.log
  hbgtrace orch --format json bind.log
  hbgtrace orch run.log --records out/host_phase_records.jsonl`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(cmd, opts.format); err != nil {
				return err
			}
			return runWith(cmd, args, &opts.logInput, opts, runF, orchRun)
		},
	}
	addFormatFlag(cmd, &opts.format)
	cmd.Flags().StringArrayVar(&opts.records, "records", nil,
		"host_phase_records.jsonl `FILE` (repeatable)")
	addMaxSpansFlag(cmd, &opts.logInput)
	return cmd
}

// errNoOrch is orch's error for a log without host-orch lines.
var errNoOrch = errors.New("orch: no `host-orch phase=` lines (E3 logs write none; --records reads host_phase_records.jsonl)")

func orchRun(opts *orchOptions) error {
	log, err := readLog(opts.logInput)
	if err != nil {
		return err
	}
	printWarnings(opts.Stderr, log)
	// A bind pass costs about 1.3 KB here: a sixteenth of --max-spans of
	// them, counted before they are made.
	held := &trace.Bound{Max: trace.PassesOf(opts.maxSpans), What: "bind passes"}
	if err := trace.BoundPasses(log.BindPhases, held); err != nil {
		return tooManySpans(err, "--max-spans")
	}
	passes, ev, ws := phases.CollectEvidence(log, nil)
	for _, w := range ws {
		fmt.Fprintln(opts.Stderr, "warning: "+w.String())
	}
	o := &report.Orch{Lines: phases.OrchFromLines(passes, ev)}
	if len(opts.records) > 0 {
		rps, err := loadRecords(opts.logInput, opts.records, true)
		if err != nil {
			return fmt.Errorf("orch: %w", err)
		}
		o.Records = phases.OrchFromRecords(rps)
	}
	if len(o.Lines) == 0 && len(o.Records) == 0 {
		return errNoOrch
	}
	return writeView(opts.Stdout, "orch", func(w io.Writer) error { return report.WriteOrch(w, opts.format, o) })
}
