package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/hbgkit/hbgkit/internal/hugeheap"
	"github.com/hbgkit/hbgkit/swimlane"
	"github.com/hbgkit/hbgkit/trace"
	"github.com/spf13/cobra"
)

// traceOptions are the flags of `hbgtrace trace`.
type traceOptions struct {
	logInput
	out string
}

// newTraceCmd builds the trace command. runF replaces traceRun in tests; nil
// means traceRun.
func newTraceCmd(runF func(*traceOptions) error) *cobra.Command {
	opts := &traceOptions{}
	cmd := &cobra.Command{
		Use:   "trace LOG... -o OUT.json",
		Short: "Write a per-invocation Chrome trace for Perfetto",
		Long: `trace writes the invocation-keyed spans of a log as a Chrome trace
(Trace Event Format) that Perfetto and chrome://tracing open: one process
per invocation (pid, inv), labelled decode, prefill or the callable's hid,
with a host lane and a device lane (clk=dev spans, on their own clock).
Host events gain wall_ts_ns and wall_time where the process wrote a
[CLOCK_ANCHOR]. It is strace_timing --trace-out.

node.* and ext.* spans are not invocations and are left out; use
hbgtrace swimlane for the real threads. OUT ending in .gz is written
gzip-compressed. The file is replaced only once it is complete; -o -
writes to standard output, and a device or FIFO is written in place.
An output that is one of the logs is refused.`,
		Example: `  hbgtrace trace run.log -o trace.json
  hbgtrace trace spool/ -o trace.json.gz`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.out == "" {
				return &usageError{cmd: cmd, err: errors.New("trace: -o OUT.json is required")}
			}
			return runWith(cmd, args, &opts.logInput, opts, runF, traceRun)
		},
	}
	cmd.Flags().StringVarP(&opts.out, "out", "o", "", "the trace file to write (.gz: gzip)")
	addMaxSpansFlag(cmd, &opts.logInput)
	return cmd
}

func traceRun(opts *traceOptions) error {
	if err := checkOutputs(opts.ioStreams, opts.logs, nil, opts.out); err != nil {
		return fmt.Errorf("trace: %w", err)
	}
	// Only the invocations' spans are drawn: node and ext spans, and the
	// phase lines, are parsed (for the warnings) but not kept. The spans
	// stay in the blocks they are read into (trace.SpanBlocks).
	skip := func(*trace.BindPhase) {}
	spans := &trace.SpanBlocks{Max: opts.maxSpans}
	log, err := streamLog(opts.ioStreams, opts.logs, hugeheap.Whole, trace.ReadOptions{
		KeepSpan: invocationSpan,
	}, trace.Visitors{Span: spans.Add, Err: spans.Err, BindPhase: skip, HostOrch: func(*trace.HostOrchPhase) {}})
	if err != nil {
		return tooManySpans(err, "--max-spans")
	}
	printWarnings(opts.Stderr, log)
	var n int
	err = writeOutput(opts.Stdout, opts.out, func(w io.Writer) error {
		var err error
		n, err = swimlane.WriteChromeTraceSpans(w, log, spans.InvocationSpans())
		return err
	})
	if err != nil {
		return fmt.Errorf("trace: %w", err)
	}
	wrote(opts.ioStreams, opts.out, "Wrote Chrome trace: %s (%d spans)\n", opts.out, n)
	return nil
}

// invocationSpan reports whether a span of this name belongs to an
// invocation (trace.InvocationSpans): its family is neither node nor
// external.
func invocationSpan(name string) bool {
	switch trace.Family(name) {
	case trace.FamilyNode, trace.FamilyExternal:
		return false
	}
	return true
}
