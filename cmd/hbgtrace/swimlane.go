package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/hbgkit/hbgkit/swimlane"
	"github.com/spf13/cobra"
)

// swimlaneOptions are the flags of `hbgtrace swimlane`.
type swimlaneOptions struct {
	logInput
	out     string
	html    string
	records []string
}

// newSwimlaneCmd builds the swimlane command. runF replaces swimlaneRun in tests; nil
// means swimlaneRun.
func newSwimlaneCmd(runF func(*swimlaneOptions) error) *cobra.Command {
	opts := &swimlaneOptions{}
	cmd := &cobra.Command{
		Use:   "swimlane LOG... -o OUT.json [--html OUT.html] [--records R]",
		Short: "Write the host swimlane (real threads) for Perfetto",
		Long: `swimlane writes every host span of a log on the real (pid, tid) that ran
it, as a Chrome trace that Perfetto and chrome://tracing open: lanes named
after what the thread does (orchestrator / facade, scheduler, worker N,
graph submit main, graph record worker, chip child, ext <producer>), a
thread whose pipelined runs overlap split into one lane per pipeline slot,
and submit-to-dispatch flow arrows. Device spans (clk=dev) run on another
clock and are listed in unalignedDeviceSpans instead. It is strace_timing
--swimlane.

--records merges host_phase_records.jsonl artifacts: each pass is drawn
under its chip.run.bind (bind segments on the bind's thread, orchestrator
operations on the recorder threads). A bind no artifact covers takes the
"bind phase=" lines written by its own thread. OUT ending in .gz is
written gzip-compressed; the file is replaced only once it is complete
(-o - writes to standard output; a device or FIFO is written in place).
An output that is an input, or -o and --html naming one file, is refused.

--html writes the same swimlane as one self-contained page to open in a
browser (no network, no Perfetto): zoom and pan, a bind selector, a
utilisation strip and, with --records, the gaps of hbgtrace gaps.
-o and --html may be given together or alone. See docs/swimlanes.md.`,
		Example: `  hbgtrace swimlane run.log -o swimlane.json
  hbgtrace swimlane spool/ -o sw.json.gz
  hbgtrace swimlane run.log -o sw.json --records out/host_phase_records.jsonl
  hbgtrace swimlane run.log -o sw.json --html sw.html`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.out == "" && opts.html == "" {
				return &usageError{cmd: cmd, err: errors.New("swimlane: -o OUT.json is required")}
			}
			return runWith(cmd, args, &opts.logInput, opts, runF, swimlaneRun)
		},
	}
	cmd.Flags().StringVarP(&opts.out, "out", "o", "", "the swimlane file to write (.gz: gzip)")
	cmd.Flags().StringVar(&opts.html, "html", "", "also (or only) write a self-contained HTML view")
	cmd.Flags().StringArrayVar(&opts.records, "records", nil,
		"a host_phase_records.jsonl to merge (repeatable)")
	addMaxSpansFlag(cmd, &opts.logInput)
	return cmd
}

func swimlaneRun(opts *swimlaneOptions) error {
	if err := checkOutputs(opts.ioStreams, opts.logs, opts.records, opts.out, opts.html); err != nil {
		return fmt.Errorf("swimlane: %w", err)
	}
	log, sw, err := readSwimlane(opts.logInput, "swimlane", opts.records)
	if err != nil {
		return err
	}
	if opts.out != "" {
		if err := writeOutput(opts.Stdout, opts.out, func(w io.Writer) error { return sw.WriteJSON(w) }); err != nil {
			return fmt.Errorf("swimlane: %w", err)
		}
		wrote(opts.ioStreams, opts.out, "Wrote host swimlane: %s (%s)\n", opts.out,
			swimlaneCounts(sw.Summary(), len(opts.records) > 0))
	}
	if opts.html != "" {
		return swimlaneHTML(opts, log, sw)
	}
	return nil
}

// swimlaneCounts is the parenthesised part of the summary line: the
// reference's counts, then the segments the artifact had that the log
// already holds as spans (newer versions print these).
func swimlaneCounts(s swimlane.Summary, withRecords bool) string {
	parts := []string{
		fmt.Sprintf("%d host spans", s.HostSpans),
		fmt.Sprintf("%d unaligned device spans", s.DeviceSpans),
	}
	if s.BindPhases > 0 {
		parts = append(parts, fmt.Sprintf("%d bind phases", s.BindPhases))
	}
	if s.Records > 0 {
		parts = append(parts, fmt.Sprintf("%d host phase records", s.Records))
	}
	if withRecords && s.Skipped > 0 {
		parts = append(parts, fmt.Sprintf("%d segment(s) already in the log", s.Skipped))
	}
	return strings.Join(parts, ", ")
}
