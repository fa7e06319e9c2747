package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/hbgkit/hbgkit/abtest/abreport"
	"github.com/hbgkit/hbgkit/abtest/analysis"
	"github.com/hbgkit/hbgkit/abtest/journal"
	"github.com/hbgkit/hbgkit/internal/buildinfo"
	"github.com/spf13/cobra"
)

// CompareOptions are the settings of one `hbgbench compare` run.
type CompareOptions struct {
	Out, Err   io.Writer
	Argv       []string
	Base, Head []string // logs, one block each
	Config     journal.Config
	Format     string
	Redact     bool
	FullTable  bool
}

// NewCmdCompare builds the compare command; argv is the command line, for
// the report. runF replaces compareRun in tests; nil means compareRun.
//
// Its flag parsing is its own: --base and --head each take every argument
// up to the next flag, so that `--base old/*.log --head new/*.log` works as
// the shell expands it. The other flags are cobra's.
func NewCmdCompare(argv []string, runF func(*CompareOptions) error) *cobra.Command {
	opts := &CompareOptions{Argv: argv, Config: journal.DefaultConfig()}
	var margin string
	var keepFirst bool
	var baseHelp, headHelp []string
	cmd := &cobra.Command{
		Use:   "compare --base LOG... --head LOG... [flags]",
		Short: "Compare logs captured elsewhere, unpaired, with a verdict",
		Long: `compare applies the analysis of ab to logs already captured (on an
Ascend box, say). Each LOG is one block: its first --cold passes per pid
are dropped and the median of the rest is the log's block statistic.
Logs are not rounds, so the analysis is unpaired: Δ is the ratio of the
arms' trimmed geometric means of block statistics with Yuen's 95% CI on
the log scale, and p the Wilcoxon rank-sum (Mann–Whitney) test. It is
weaker than an interleaved campaign: drift and machine state between the
captures are not cancelled. With one log on an arm it describes the
passes only: no interval can be computed honestly.`,
		Example: `  hbgbench compare --base main-*.log --head pr-*.log
  hbgbench compare --base a1.log a2.log a3.log a4.log \
      --head b1.log b2.log b3.log b4.log --format markdown
  hbgbench compare --base old.log --head new.log --metric Host`,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			base, head, rest, err := splitLogArgs(args)
			if err != nil {
				return usagef(cmd, "%v", err)
			}
			if err := cmd.Flags().Parse(rest); err != nil {
				return usagef(cmd, "%v", err)
			}
			if help, _ := cmd.Flags().GetBool("help"); help {
				return cmd.Help()
			}
			if opts.Config.Metric == metricList {
				if logs := append(base, head...); len(logs) > 0 {
					return listLogMetrics(cmd.OutOrStdout(), logs)
				}
				return listMetrics(cmd.OutOrStdout())
			}
			if cmd.Flags().NArg() > 0 {
				return usagef(cmd, "unexpected argument %q: logs follow --base or --head", cmd.Flags().Arg(0))
			}
			opts.Base = append(base, baseHelp...)
			opts.Head = append(head, headHelp...)
			if len(opts.Base) == 0 || len(opts.Head) == 0 {
				return usagef(cmd, "give at least one log after --base and one after --head")
			}
			if keepFirst {
				if cmd.Flags().Changed("cold") {
					return usagef(cmd, "give --cold or --keep-first, not both")
				}
				opts.Config.Cold = 0
			}
			if opts.Config.Margin, err = journal.ParseShare(margin); err != nil {
				return usagef(cmd, "--margin %v", err)
			}
			if err := abreport.CheckFormat(opts.Format); err != nil {
				return usagef(cmd, "%v", err)
			}
			c := opts.Config
			c.Block = c.Cold + 1 // Validate asks for a warm pass per block
			if err := c.Validate(); err != nil {
				return usagef(cmd, "%v", err)
			}
			opts.Out, opts.Err = cmd.OutOrStdout(), cmd.ErrOrStderr()
			if runF != nil {
				return runF(opts)
			}
			return compareRun(opts)
		},
	}
	f := cmd.Flags()
	def := journal.DefaultConfig()
	// --base and --head are consumed by splitLogArgs; they are declared
	// for the help text and for --base=LOG.
	f.StringArrayVar(&baseHelp, "base", nil, "base `LOG` files (every argument up to the next flag)")
	f.StringArrayVar(&headHelp, "head", nil, "head `LOG` files (every argument up to the next flag)")
	f.IntVar(&opts.Config.Cold, "cold", def.Cold, "`N` first passes per pid dropped")
	f.BoolVar(&keepFirst, "keep-first", false, "keep every pass (--cold 0)")
	f.StringVar(&opts.Config.Metric, "metric", "", "primary `metric` (default ControlPlane; list: all)")
	f.StringArrayVar(&opts.Config.Derive, "derive", nil, "derived metric `NAME=EXPR` (+ - * / of metrics)")
	f.StringVar((*string)(&opts.Config.BlockStat), "block-stat", string(journal.BlockMedian), "`stat` of a log: median, mean, min")
	f.BoolVar(&opts.Config.PerRank, "per-rank", false, "analyse each rank (pid) separately")
	f.IntVar(&opts.Config.Trim, "trim", -1, "`K` passes cut at each end (-1: 20%)")
	f.StringVar(&margin, "margin", "1%", "equivalence `margin` (1% or 0.01)")
	f.StringVar(&opts.Format, "format", "text", "text|markdown|json|csv|benchfmt")
	f.BoolVar(&opts.Redact, "redact", false, "drop host names, absolute paths, --env values")
	f.BoolVar(&opts.FullTable, "full-table", false, "markdown: the full table inline, not the short one")
	f.BoolP("help", "h", false, "help for compare")
	return cmd
}

// splitLogArgs takes the logs that follow --base and --head out of args:
// each of those flags takes every following argument up to the next one
// that starts with "-" (a lone "-" is standard input, a log), and "--"
// after them makes every later argument a log. The rest is returned, in
// order, for the flag parser; --base=LOG and --head=LOG are left in it.
func splitLogArgs(args []string) (base, head, rest []string, err error) {
	var into *[]string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			if into == nil {
				return nil, nil, nil, fmt.Errorf("%q before --base or --head", a)
			}
			*into = append(*into, args[i+1:]...)
			return base, head, rest, nil
		case a == "--base" || a == "--head":
			into = &base
			if a == "--head" {
				into = &head
			}
			if i+1 == len(args) || (strings.HasPrefix(args[i+1], "-") && args[i+1] != "-") {
				return nil, nil, nil, fmt.Errorf("%s needs at least one LOG", a)
			}
		case strings.HasPrefix(a, "-") && a != "-":
			// Another flag ends the list; its value, if separate, follows
			// it into rest.
			into = nil
			rest = append(rest, a)
		case into != nil:
			*into = append(*into, a)
		default:
			rest = append(rest, a)
		}
	}
	return base, head, rest, nil
}

// compareRun reads the logs, analyses them unpaired and writes the report.
func compareRun(opts *CompareOptions) error {
	j, err := analysis.ReadLogs(analysis.CompareOptions{Base: opts.Base, Head: opts.Head, Config: opts.Config,
		Version: buildinfo.Read().String(), Command: opts.Argv})
	if err != nil {
		return err
	}
	a := analysis.AnalyzeUnpaired(j)
	ws := a.Warnings
	if opts.Redact {
		ws = abreport.Redacted(a).Warnings
	}
	for _, w := range ws {
		fmt.Fprintf(opts.Err, "hbgbench: warning: %s\n", w)
	}
	return abreport.Write(opts.Out, abreport.WriteOptions{Format: opts.Format, Redact: opts.Redact, FullTable: opts.FullTable}, a, j)
}
