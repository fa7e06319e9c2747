package main

import (
	"runtime"

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
	return trace.StreamLog(srcs, opts, v)
}

// warningKinds are the records behind trace.Log.Warnings.
var warningKinds = trace.Kinds(trace.KindTorn, trace.KindAnchor, trace.KindDrops)
