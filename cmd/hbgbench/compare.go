package main

import (
	"cmp"
	"fmt"
	"io"
	"strings"

	"github.com/hbgkit/hbgkit/abtest/abreport"
	"github.com/hbgkit/hbgkit/abtest/analysis"
	"github.com/hbgkit/hbgkit/abtest/captured"
	"github.com/hbgkit/hbgkit/abtest/journal"
	"github.com/hbgkit/hbgkit/internal/buildinfo"
	"github.com/hbgkit/hbgkit/internal/termsafe"
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
	// ExpectSameWork fails the run (exit 3, as ab's) when some warm pass
	// did other work than another.
	ExpectSameWork bool
	// Paired analyses the logs as rounds (--paired): Sources says which
	// pair, the Config's LookEvery, Rounds and StopWithin a sequential
	// look (--until-decided).
	Paired  bool
	Sources captured.Sources
}

// NewCmdCompare builds the compare command; argv is the command line, for
// the report. runF replaces compareRun in tests; nil means compareRun.
//
// Its flag parsing is its own: --base and --head each take every argument
// up to the next flag, so that `--base old/*.log --head new/*.log` works as
// the shell expands it. The other flags are cobra's.
func NewCmdCompare(argv []string, runF func(*CompareOptions) error) *cobra.Command {
	opts := &CompareOptions{Argv: argv, Config: journal.DefaultConfig()}
	var margin, stopWithin string
	var keepFirst, until bool
	var baseHelp, headHelp []string
	cmd := &cobra.Command{
		Use:   "compare --base LOG... --head LOG... [flags]",
		Short: "Compare logs captured elsewhere, unpaired or paired by hand",
		Long: `compare applies the analysis of ab to logs already captured (on an
Ascend box, say). Each LOG is one block: its first --cold passes per pid
are dropped and the median of the rest is the log's block statistic.
Logs are not rounds, so the analysis is unpaired: Δ is the ratio of the
arms' trimmed geometric means of block statistics with Yuen's 95% CI on
the log scale, and p the Wilcoxon rank-sum (Mann–Whitney) test. It is
weaker than an interleaved campaign: drift and machine state between the
captures are not cancelled. With one log on an arm it describes the
passes only: no interval can be computed honestly. With
--expect-same-work it exits 3 when some warm pass did other work (a
work count differs from another pass's, of either arm).

With --paired the logs were captured interleaved by hand and are analysed
as rounds, as ab analyses its blocks: given as --base and --head in the
same order, as files named ARM-ROUND.log (or their directory), or in a
--manifest of ROUND ARM PATH lines (scripts/capture-ab.sh writes one).`,
		Example: `  hbgbench compare --base main-*.log --head pr-*.log
  hbgbench compare --paired captured/
  hbgbench compare --paired --manifest captured/manifest.txt --until-decided
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
				return usagef(cmd, "%v", suggestFlag(cmd, err))
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
			opts.Base = append(base, baseHelp...)
			opts.Head = append(head, headHelp...)
			if err := opts.pairedFlags(cmd, until, stopWithin); err != nil {
				return usagef(cmd, "%v", err)
			}
			if !opts.Paired && cmd.Flags().NArg() > 0 {
				return usagef(cmd, "unexpected argument %q: logs follow --base or --head", cmd.Flags().Arg(0))
			}
			if !opts.Paired && (len(opts.Base) == 0 || len(opts.Head) == 0) {
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
			c.BlockStat = cmp.Or(c.BlockStat, journal.BlockMedian)
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
	f.BoolVar(&opts.ExpectSameWork, "expect-same-work", false, "exit 3 when some pass's work counts differ")
	f.BoolVar(&opts.Paired, "paired", false, "logs interleaved by hand: analyse them as rounds")
	f.StringVar(&opts.Sources.Manifest, "manifest", "", "--paired: `FILE` of ROUND ARM PATH lines")
	f.IntVar(&opts.Sources.DropFirst, "drop-first", 0, "--paired: leave out the first `N` rounds")
	f.IntVar(&opts.Sources.DropLast, "drop-last", 0, "--paired: leave out the last `N` rounds")
	f.BoolVar(&until, "until-decided", false, "--paired: look as ab --until-decided does")
	f.IntVar(&opts.Config.Rounds, "max-rounds", 40, "`N` most rounds of --until-decided")
	f.IntVar(&opts.Config.LookEvery, "look-every", defaultLookEvery, "`K` rounds between looks")
	f.StringVar(&stopWithin, "stop-within", "7.5%", "stop on \"no change of `W` or more\"")
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

// pairedFlags checks --paired and its flags: the sources of the rounds,
// the block statistic (ab's default unless given) and the sequential
// look's settings.
func (opts *CompareOptions) pairedFlags(cmd *cobra.Command, until bool, stopWithin string) error {
	fl := cmd.Flags()
	if !until {
		opts.Config.LookEvery = 0
	}
	if !opts.Paired {
		for _, name := range []string{"manifest", "drop-first", "drop-last", "until-decided", "max-rounds", "look-every", "stop-within"} {
			if fl.Changed(name) {
				return fmt.Errorf("--%s needs --paired", name)
			}
		}
		return nil
	}
	opts.Sources.Base, opts.Sources.Head, opts.Sources.Names = opts.Base, opts.Head, fl.Args()
	if !fl.Changed("block-stat") {
		opts.Config.BlockStat = ""
	}
	if !until {
		for _, name := range []string{"max-rounds", "look-every", "stop-within"} {
			if fl.Changed(name) {
				return fmt.Errorf("--%s needs --until-decided", name)
			}
		}
		return nil
	}
	w, err := journal.ParseShare(stopWithin)
	if err != nil {
		return fmt.Errorf("--stop-within %v", err)
	}
	opts.Config.StopWithin = journal.Num(w)
	return nil
}

// compareRun reads the logs, analyses them (paired as rounds, or
// unpaired) and writes the report.
func compareRun(opts *CompareOptions) error {
	var j *journal.Journal
	var a *analysis.Analysis
	var err error
	if opts.Paired {
		var p *captured.Plan
		if p, err = captured.PlanOf(opts.Sources); err == nil {
			j, err = captured.Journal(p, captured.Options{Config: opts.Config, Version: buildinfo.Read().String(), Command: opts.Argv})
		}
		if err == nil {
			a = analysis.Analyze(j)
		}
	} else if j, err = analysis.ReadLogs(analysis.CompareOptions{Base: opts.Base, Head: opts.Head, Config: opts.Config,
		Version: buildinfo.Read().String(), Command: opts.Argv}); err == nil {
		a = analysis.AnalyzeUnpaired(j)
	}
	if err != nil {
		return err
	}
	ws := a.Warnings
	if opts.Redact {
		ws = abreport.Redacted(a).Warnings
	}
	for _, w := range ws {
		fmt.Fprintf(opts.Err, "hbgbench: warning: %s\n", termsafe.Escape(w))
	}
	if err := abreport.Write(opts.Out, abreport.WriteOptions{Format: opts.Format, Redact: opts.Redact, FullTable: opts.FullTable}, a, j); err != nil {
		return err
	}
	if l := abreport.For(a).CapturedNext(); l != "" {
		fmt.Fprintf(opts.Err, "hbgbench: %s\n", termsafe.Escape(l))
	}
	if opts.ExpectSameWork && len(a.WorkDiffs) > 0 {
		fmt.Fprintf(opts.Err, "hbgbench: --expect-same-work: %s\n", termsafe.Escape(abreport.For(a).SameWorkLine()))
		return &exitError{code: exitFailOn}
	}
	return nil
}
