package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/hbgkit/hbgkit/internal/hugeheap"
	"github.com/hbgkit/hbgkit/swimlane"
	"github.com/hbgkit/hbgkit/trace"
	"github.com/spf13/cobra"
)

// pprofOptions are the flags of `hbgtrace pprof`.
type pprofOptions struct {
	logInput
	out           string
	records       []string
	perInvocation bool
}

// newPprofCmd builds the pprof command. runF replaces pprofRun in tests; nil
// means pprofRun.
func newPprofCmd(runF func(*pprofOptions) error) *cobra.Command {
	opts := &pprofOptions{}
	cmd := &cobra.Command{
		Use:   "pprof LOG... -o OUT.pb.gz [--records R.jsonl]...",
		Short: "Write the spans as a pprof profile (self time, ancestry stacks)",
		Long: `pprof writes the spans' self times: a span's duration minus the spans
nested in it on the same thread and invocation, decided by interval as
the HBG accounting decides it (so host_orch's self time excludes the
uploads inside it). The stack is the span's ancestry by the same nesting;
labels are pid, tid and lane (as in the swimlane). Spans with one stack
and one label set are one sample, their self times summed and counted in
the sample type spans. --per-invocation adds the labels inv and round
(the row of hbgtrace rounds), to pick out one bind with -tagfocus.
Device spans (clk=dev) are the sample type device, host spans host (the
default). bind phase= lines and --records artifacts become spans as in
the swimlane.
Read it with go tool pprof -top OUT.pb.gz. See docs/swimlanes.md.`,
		Example: `  hbgtrace pprof run.log -o spans.pb.gz
  hbgtrace pprof run.log --records r.jsonl -o spans.pb.gz
  hbgtrace pprof run.log --per-invocation -o spans.pb.gz
  go tool pprof -top -sample_index=device spans.pb.gz`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.out == "" {
				return &usageError{cmd: cmd, err: errors.New("pprof: -o OUT.pb.gz is required")}
			}
			return runWith(cmd, args, &opts.logInput, opts, runF, pprofRun)
		},
	}
	cmd.Flags().StringVarP(&opts.out, "out", "o", "", "the profile to write (gzip-compressed protobuf)")
	cmd.Flags().StringArrayVar(&opts.records, "records", nil,
		"a host_phase_records.jsonl to merge (repeatable)")
	cmd.Flags().BoolVar(&opts.perInvocation, "per-invocation", false,
		"label samples with inv and round (else merged)")
	addMaxSpansFlag(cmd, &opts.logInput)
	return cmd
}

func pprofRun(opts *pprofOptions) error {
	if err := checkOutputs(opts.ioStreams, opts.logs, opts.records, opts.out); err != nil {
		return fmt.Errorf("pprof: %w", err)
	}
	p, err := pprofProfile(opts)
	if err != nil {
		return err
	}
	if p.Truncated > 0 {
		fmt.Fprintf(opts.Stderr, "warning: %d span(s) nest deeper than %d; their stacks keep the %d innermost spans and one frame %q for the rest\n",
			p.Truncated, swimlane.MaxStackDepth, swimlane.MaxStackDepth-1, swimlane.TruncatedFrame)
	}
	// A profile is always gzip-compressed; writeOutput compresses a .gz
	// path itself, so that one gets the uncompressed encoding.
	write := p.Write
	if strings.HasSuffix(opts.out, ".gz") {
		write = p.WriteUncompressed
	}
	if err := writeOutput(opts.Stdout, opts.out, func(w io.Writer) error { return write(w) }); err != nil {
		return fmt.Errorf("pprof: %w", err)
	}
	wrote(opts.ioStreams, opts.out, "Wrote span profile: %s (%d spans in %d samples)\n", opts.out, p.Spans, len(p.Samples))
	return nil
}

// pprofProfile reads the logs into the profile. Merged, the profile is
// built as the log streams (swimlane.LogProfile: 40 bytes a span, not the
// log and its swimlane); --per-invocation's round labels need the log's
// invocations, so it reads the whole log and its swimlane.
func pprofProfile(opts *pprofOptions) (*swimlane.Profile, error) {
	st := opts.ioStreams
	if opts.perInvocation {
		log, sw, err := readSwimlane(opts.logInput, "pprof", opts.records)
		if err != nil {
			return nil, err
		}
		return sw.Profile(swimlane.ProfileOptions{Round: roundIndex(log), PerInvocation: true}), nil
	}
	lp := swimlane.NewLogProfile()
	lp.MaxSpans = opts.maxSpans
	log, err := streamLog(st, opts.logs, hugeheap.Whole, trace.ReadOptions{}, trace.Visitors{
		Span:      lp.AddSpan,
		BindPhase: lp.AddBindPhase,
		HostOrch:  func(*trace.HostOrchPhase) {}, // not drawn: not kept
		Err:       lp.Err,
	})
	if err != nil {
		return nil, tooManySpans(err, "--max-spans")
	}
	printWarnings(st.Stderr, log)
	passes, err := loadRecords(opts.logInput, opts.records, true)
	if err != nil {
		return nil, fmt.Errorf("pprof: %w", err)
	}
	p, warns := lp.Profile(passes, swimlane.ProfileOptions{})
	for _, w := range warns {
		fmt.Fprintln(st.Stderr, w)
	}
	return p, nil
}
