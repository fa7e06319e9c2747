package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"

	"github.com/hbgkit/hbgkit/internal/hugeheap"
	"github.com/hbgkit/hbgkit/phases"
	"github.com/hbgkit/hbgkit/trace"
	"github.com/spf13/cobra"
)

// ioStreams are a command's standard input, output and error. RunE takes
// them from cobra (cmd.InOrStdin and friends) into the command's options,
// and the run function writes nowhere else, so tests run it in-process
// with buffers.
type ioStreams struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
}

// streamsOf returns the streams of cmd.
func streamsOf(cmd *cobra.Command) ioStreams {
	return ioStreams{Stdin: cmd.InOrStdin(), Stdout: cmd.OutOrStdout(), Stderr: cmd.ErrOrStderr()}
}

// A logInput is what every hbgtrace command reads: its streams and the
// LOG arguments it was given.
type logInput struct {
	ioStreams
	logs []string
	// maxSpans bounds the spans and phase lines a view holds in memory
	// (--max-spans; views that stream keep no spans and have no bound).
	maxSpans int
}

// defaultMaxSpans is --max-spans' default: 4 million spans and phase
// lines. The 1 GB log of docs/performance.md holds 3.6 million (its
// 100 MB log 362 thousand); at about 0.4, 0.6 and 0.5 KB a record, trace,
// swimlane and pprof stop a bomb at 1.5, 2.5 and 2 GB (docs/performance.md,
// "Hostile logs").
const defaultMaxSpans = 4_000_000

// defaultMaxHeld is --max-spans' default in the table views: a million
// invocations and bind passes. The 1 GB log holds about 100,000 of each;
// at 0.3–0.8 KB a row, rounds, tpot and phases stop a bomb by 0.8 GB
// (docs/performance.md, "Every reader's bound").
const defaultMaxHeld = 1_000_000

// addMaxSpansFlag adds --max-spans to a view that holds the log's spans.
func addMaxSpansFlag(cmd *cobra.Command, in *logInput) {
	cmd.Flags().IntVar(&in.maxSpans, "max-spans", defaultMaxSpans,
		"spans held at most (0: none)")
}

// addMaxHeldFlag adds --max-spans to a table view, which holds no spans
// but a row per invocation and bind pass: a hostile log of millions of
// them is refused at the bound (tableBound), as a view that holds spans
// refuses millions of spans.
func addMaxHeldFlag(cmd *cobra.Command, in *logInput) {
	cmd.Flags().IntVar(&in.maxSpans, "max-spans", defaultMaxHeld,
		"invocations and passes held (0: none)")
}

// tableBound is the bound of what a table view's collectors hold
// (--max-spans): invocations, bind passes, and the names and segments of
// one past a real one's tens.
func tableBound(in logInput) *trace.Bound {
	return &trace.Bound{Max: in.maxSpans, What: "invocations, bind passes and the names in them"}
}

// tooManySpans adds to err, when it is a bound's, the flag that raises it.
func tooManySpans(err error, flag string) error {
	var tm *trace.TooManySpansError
	if errors.As(err, &tm) {
		return fmt.Errorf("%w; %s raises the bound", err, flag)
	}
	return err
}

// runWith takes cmd's streams and its LOG arguments args into in (the
// logInput of opts), then runs opts: with runF in tests, else with run.
func runWith[O any](cmd *cobra.Command, args []string, in *logInput, opts *O, runF, run func(*O) error) error {
	in.ioStreams, in.logs = streamsOf(cmd), args
	if runF != nil {
		return runF(opts)
	}
	return run(opts)
}

// streamLog reads the logs named by args (see trace.Inputs; "-" is
// st.Stdin) as one stream on every processor, handing the records v takes
// to v as they come (see trace.StreamLog): the table views keep what they
// summarise, not the log (keep is hugeheap.Summary); trace and pprof keep
// every span they write (hugeheap.Whole).
func streamLog(st ioStreams, args []string, keep hugeheap.Keep, opts trace.ReadOptions, v trace.Visitors) (*trace.Log, error) {
	srcs, err := inputs(st, args)
	if err != nil {
		return nil, err
	}
	opts.Workers = runtime.GOMAXPROCS(0)
	pr := startRead(st.Stderr, srcs, keep)
	opts.Progress = pr.counter()
	defer pr.finish()
	return trace.StreamLog(srcs, opts, v)
}

// warningKinds are the records behind trace.Log.Warnings.
var warningKinds = trace.Kinds(trace.KindTorn, trace.KindAnchor, trace.KindDrops)

// summariseInvocations streams the invocation spans of the logs into a
// per-invocation summary (the earliest span of each name; with tree set,
// what the median tree needs too, bounded by in.maxSpans) and prints the
// log's warnings. The log itself is not kept.
func summariseInvocations(in logInput, tree bool) (*phases.InvocationsCollector, error) {
	c := phases.NewInvocationsCollector(tree)
	c.MaxSpans = in.maxSpans
	c.Bound(tableBound(in))
	l, err := streamLog(in.ioStreams, in.logs, hugeheap.Summary, trace.ReadOptions{
		Kinds:    warningKinds | trace.Kinds(trace.KindSpan),
		KeepSpan: phases.RoundsSpan,
	}, trace.Visitors{Span: c.Add, Err: c.Err})
	if err != nil {
		return nil, tooManySpans(err, "--max-spans")
	}
	st := in.ioStreams
	printWarnings(st.Stderr, l)
	return c, nil
}

// writeView renders a view into memory first, so that a rendering error
// leaves stdout untouched, then writes it to stdout.
func writeView(stdout io.Writer, name string, render func(io.Writer) error) error {
	var b bytes.Buffer
	if err := render(&b); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	_, err := stdout.Write(b.Bytes())
	return err
}
