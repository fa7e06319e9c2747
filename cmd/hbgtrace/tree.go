package main

import (
	"fmt"

	"github.com/hbgkit/hbgkit/internal/report"
	"github.com/spf13/cobra"
)

// treeOptions are the flags and arguments of `hbgtrace tree`.
type treeOptions struct {
	logInput
	format string
}

// newTreeCmd builds the tree command. runF replaces treeRun in tests; nil
// means treeRun.
func newTreeCmd(runF func(*treeOptions) error) *cobra.Command {
	opts := &treeOptions{}
	cmd := &cobra.Command{
		Use:   "tree LOG...",
		Short: "Median span tree per callable (= strace_timing --tree)",
		Long: `tree prints, for every callable (hid) in descending invocation count, the
spans of its last invocation as a tree (a span's parent is its name minus
the last dotted segment), each with the median duration of its name over
all the callable's invocations, as strace_timing --tree does. Device spans
are tagged [dev]. When a span has both an orch and a sched child, the two
are shown as one Effective line (the median of their combined extent over
the invocations that have both) and a line with both medians, marked
concurrent.

Output formats (--format):
  text      the reference layout, byte for byte
  markdown  per callable, a title line and a GitHub table of its spans
            (an Effective row is followed by its orch and sched rows,
            marked "(concurrent)")
  json      {"callables": [{"hid", "label", "invocations", "roots": [node]}]}
            with node = {"name", "leaf", "device", "median_us", "n",
            "children": [node]} and, on an Effective node, "concurrent":
            {"orch": node, "sched": node}; n is the number of invocations
            a median is over
  csv       header hid,label,invocations,depth,name,leaf,device,median_us,n;
            one line per span in tree order (an Effective line is followed
            by its orch and sched lines one level deeper)`,
		Example: `  hbgtrace tree host.log
  hbgtrace tree --format json spool/ > tree.json`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(cmd, opts.format); err != nil {
				return err
			}
			return runWith(cmd, args, &opts.logInput, opts, runF, treeRun)
		},
	}
	addFormatFlag(cmd, &opts.format)
	return cmd
}

func treeRun(opts *treeOptions) error {
	c, err := summariseInvocations(opts.ioStreams, opts.logs, true)
	if err != nil {
		return err
	}
	tr := c.Tree()
	// Streamed, not through writeView's buffer: the output can be
	// quadratic in the input (report.WriteTree).
	if err := report.WriteTree(opts.Stdout, opts.format, tr); err != nil {
		return fmt.Errorf("tree: %w", err)
	}
	return nil
}
