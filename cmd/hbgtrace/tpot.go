package main

import (
	"io"

	"github.com/hbgkit/hbgkit/internal/report"
	"github.com/spf13/cobra"
)

// tpotOptions are the flags and arguments of `hbgtrace tpot`.
type tpotOptions struct {
	logInput
	format string
}

// newTpotCmd builds the tpot command. runF replaces tpotRun in tests; nil
// means tpotRun.
func newTpotCmd(runF func(*tpotOptions) error) *cobra.Command {
	opts := &tpotOptions{}
	cmd := &cobra.Command{
		Use:   "tpot LOG...",
		Short: "Per-callable stage means (= strace_timing's default table)",
		Long: `tpot prints, for every callable (hid) in descending invocation count,
the mean, minimum and maximum duration of each invocation's root span,
then the mean of every named stage, as strace_timing does by default.
Each invocation contributes its earliest span of each name; stages come
in descending sample count, then by name, indented by their dots. Means
are truncated to whole nanoseconds before printing, as the reference
does.

Output formats (--format):
  text      the reference layout, byte for byte
  markdown  per callable, a title line and a GitHub table of its spans
  json      {"callables": [{"hid", "invocations",
            "root": null or {"name", "n", "mean_us", "min_us", "max_us"},
            "stages": [{"name", "n", "mean_us", "min_us", "max_us"}]}]};
            n is the number of invocations each number is over
  csv       header hid,invocations,span,n,mean_us,min_us,max_us; one
            line per root and stage`,
		Example: `  hbgtrace tpot host.log
  hbgtrace tpot --format markdown spool/
  cat host.log | hbgtrace tpot -`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(cmd, opts.format); err != nil {
				return err
			}
			return runWith(cmd, args, &opts.logInput, opts, runF, tpotRun)
		},
	}
	addFormatFlag(cmd, &opts.format)
	addMaxHeldFlag(cmd, &opts.logInput)
	return cmd
}

func tpotRun(opts *tpotOptions) error {
	c, err := summariseInvocations(opts.logInput, false)
	if err != nil {
		return err
	}
	tp := c.TPOT()
	return writeView(opts.Stdout, "tpot", func(w io.Writer) error { return report.WriteTPOT(w, opts.format, tp) })
}
