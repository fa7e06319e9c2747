package main

import (
	"bytes"
	"fmt"
	"io"
	"runtime"

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
// summarise, not the log.
func streamLog(st ioStreams, args []string, opts trace.ReadOptions, v trace.Visitors) (*trace.Log, error) {
	srcs, err := inputs(st, args)
	if err != nil {
		return nil, err
	}
	opts.Workers = runtime.GOMAXPROCS(0)
	pr := startRead(st.Stderr, srcs)
	opts.Progress = pr.counter()
	defer pr.finish()
	return trace.StreamLog(srcs, opts, v)
}

// warningKinds are the records behind trace.Log.Warnings.
var warningKinds = trace.Kinds(trace.KindTorn, trace.KindAnchor, trace.KindDrops)

// summariseInvocations streams the invocation spans of the logs into a
// per-invocation summary (the earliest span of each name; with tree set,
// what the median tree needs too) and prints the log's warnings. The log
// itself is not kept.
func summariseInvocations(st ioStreams, logs []string, tree bool) (*phases.InvocationsCollector, error) {
	c := phases.NewInvocationsCollector(tree)
	l, err := streamLog(st, logs, trace.ReadOptions{
		Kinds:    warningKinds | trace.Kinds(trace.KindSpan),
		KeepSpan: phases.RoundsSpan,
	}, trace.Visitors{Span: c.Add})
	if err != nil {
		return nil, err
	}
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
