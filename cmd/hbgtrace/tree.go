package main

import (
	"fmt"
	"strings"

	"github.com/hbgkit/hbgkit/internal/report"
	"github.com/spf13/cobra"
)

// treeOptions are the flags and arguments of `hbgtrace tree`.
type treeOptions struct {
	logInput
	format  string
	maxRows int
}

// defaultMaxRows is --max-rows' default: a real log's tree prints tens to
// hundreds of rows; a million is about 60 MB of text.
const defaultMaxRows = 1_000_000

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

Spans that share a name share their children, so the tree can be
quadratic in the spans (2,000 spans named step, each with 2,000 step.sub
children, print 4,000,000 rows, as the reference does). tree refuses,
before writing anything, a tree of more than --max-rows rows, and a log
whose reference invocations hold more than --max-spans spans, or that
holds more than --max-spans invocations.

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
	addMaxHeldFlag(cmd, &opts.logInput)
	cmd.Flags().IntVar(&opts.maxRows, "max-rows", defaultMaxRows,
		"rows printed at most (0: none)")
	return cmd
}

func treeRun(opts *treeOptions) error {
	c, err := summariseInvocations(opts.logInput, true)
	if err != nil {
		return err
	}
	tr := c.Tree()
	if n := tr.Rows(opts.maxRows); opts.maxRows > 0 && n > opts.maxRows {
		return fmt.Errorf("tree: %s: the tree has more than %d rows (spans that share a name share their children); --max-rows raises the bound",
			strings.Join(opts.logs, " "), opts.maxRows)
	}
	// Streamed, not through writeView's buffer: the output can be
	// quadratic in the input (report.WriteTree).
	if err := report.WriteTree(opts.Stdout, opts.format, tr); err != nil {
		return fmt.Errorf("tree: %w", err)
	}
	return nil
}
