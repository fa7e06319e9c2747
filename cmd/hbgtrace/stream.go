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

// streamLog reads the logs named by args (see trace.Inputs) as one stream
// on every processor, handing the records v takes to v as they come (see
// trace.StreamLog): the table views keep what they summarise, not the log.
func streamLog(cmd *cobra.Command, args []string, opts trace.ReadOptions, v trace.Visitors) (*trace.Log, error) {
	srcs, err := trace.Inputs(args, cmd.InOrStdin())
	if err != nil {
		return nil, err
	}
	opts.Workers = runtime.GOMAXPROCS(0)
	pr := startProgress(cmd.ErrOrStderr(), srcs)
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
func summariseInvocations(cmd *cobra.Command, logs []string, tree bool) (*phases.InvocationsCollector, error) {
	c := phases.NewInvocationsCollector(tree)
	l, err := streamLog(cmd, logs, trace.ReadOptions{
		Kinds:    warningKinds | trace.Kinds(trace.KindSpan),
		KeepSpan: phases.RoundsSpan,
	}, trace.Visitors{Span: c.Add})
	if err != nil {
		return nil, err
	}
	printWarnings(cmd, l)
	return c, nil
}

// writeView renders a view into memory first, so that a rendering error
// leaves stdout untouched, then writes it.
func writeView(cmd *cobra.Command, name string, render func(io.Writer) error) error {
	var b bytes.Buffer
	if err := render(&b); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	_, err := cmd.OutOrStdout().Write(b.Bytes())
	return err
}
