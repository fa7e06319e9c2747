package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/hbgkit/hbgkit/abtest/abreport"
	"github.com/hbgkit/hbgkit/abtest/analysis"
	"github.com/hbgkit/hbgkit/abtest/campaign"
	"github.com/hbgkit/hbgkit/abtest/journal"
	"github.com/hbgkit/hbgkit/abtest/metric"
	"github.com/hbgkit/hbgkit/internal/termsafe"
	"github.com/spf13/cobra"
)

// ReportOptions are the settings of one `hbgbench report` run.
type ReportOptions struct {
	Out, Err io.Writer
	Journal  string
	// Journals are two or more journals, or one directory of them, to
	// merge as the shards of one campaign.
	Journals []string
	Format   string
	Redact   bool
	Full     bool
	// Derive are --derive NAME=EXPR metrics added to the journal's own
	// (journal.Config.Derive) for this report.
	Derive []string
}

// NewCmdReport builds the report command. runF replaces reportRun in
// tests; nil means reportRun.
func NewCmdReport(runF func(*ReportOptions) error) *cobra.Command {
	opts := &ReportOptions{}
	cmd := &cobra.Command{
		Use:   "report [JOURNAL... | DIR] [--format FORMAT] [--redact]",
		Short: "Re-analyse a campaign's journal and print its report",
		Long: `report re-reads the journal of an ab or aa campaign and prints the report
ab prints, in any format. With no JOURNAL it reads the newest journal in
the campaign home (.hbgbench/ at the repository root, or in the current
directory outside a repository). It only reads the journal (no lock), so
it also reports a campaign that is still running; a torn last line is a
warning. --format markdown gives the pull-request report (a headline, one
table, a <details> block); json the whole analysis (schema in
docs/ab-reference.md); csv one row per (metric, arm) and every pass;
benchfmt Go benchmark lines for benchstat -col /arm. --redact drops host
names, absolute paths and --env values.

Given two or more journals, or a directory of them, report merges the
shards of one campaign (ab --shard I/N --campaign ID): it refuses journals
whose campaign, config, arms or ruler differ, or one shard given twice,
and reports the pooled Δ of a stratified analysis (rounds paired within
their shard) with one row per shard, warning when the shards disagree
beyond their intervals (docs/ab-operations.md "Shards: one campaign
over many cards and hosts"). benchfmt is per journal.`,
		Example: `  hbgbench report
  hbgbench report .hbgbench/hbgbench-20261202T010000Z.jsonl
  hbgbench report c.jsonl --format markdown --redact
  hbgbench report c.jsonl --format benchfmt > c.txt
  benchstat -col /arm c.txt
  hbgbench report .hbgbench/nightly/             # merge a campaign's shards
  hbgbench report shard-0of2-a.jsonl shard-1of2-b.jsonl --format markdown`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Out, opts.Err = cmd.OutOrStdout(), cmd.ErrOrStderr()
			if len(args) == 1 {
				opts.Journal = args[0]
			}
			if len(args) > 1 || len(args) == 1 && isDir(args[0]) {
				opts.Journal, opts.Journals = "", args
			}
			if err := abreport.CheckFormat(opts.Format); err != nil {
				return usagef(cmd, "%w", err)
			}
			if _, err := metric.ParseDerivations(opts.Derive); err != nil {
				return usagef(cmd, "%w", err)
			}
			if runF != nil {
				return runF(opts)
			}
			return reportRun(opts)
		},
	}
	cmd.Flags().StringVar(&opts.Format, "format", "text", "text|markdown|json|csv|benchfmt")
	cmd.Flags().BoolVar(&opts.Redact, "redact", false, "drop host names, absolute paths, --env values")
	cmd.Flags().BoolVar(&opts.Full, "full-table", false, "markdown: the full table inline, not the short one")
	cmd.Flags().StringArrayVar(&opts.Derive, "derive", nil, "derived metric `NAME=EXPR` (+ - * / of metrics)")
	return cmd
}

// reportRun reads the journal, analyses it and writes the report.
func reportRun(opts *ReportOptions) error {
	if len(opts.Journals) > 0 {
		return mergeRun(opts)
	}
	if opts.Journal == "" {
		home, err := campaign.Home("")
		if err != nil {
			return err
		}
		var which string
		if opts.Journal, which, err = campaign.NewestWithRounds(home); err != nil {
			return err
		}
		fmt.Fprintf(opts.Err, "hbgbench: %s\n", termsafe.Escape(which))
	}
	j, err := journal.ReadJournal(opts.Journal)
	if err != nil {
		return err
	}
	j.Header.Config.Derive = append(j.Header.Config.Derive, opts.Derive...)
	a := analysis.Analyze(j)
	// Inside the repository, a git arm whose ref has moved since the
	// campaign is said to be stale, in every format.
	for _, s := range campaign.StaleRefs(&j.Header, ".") {
		a.Warnings = append(a.Warnings, s.Text())
	}
	// The journal's warnings lead the analysis's (Analyze copies them).
	ws := j.Warnings
	if opts.Redact {
		ws = abreport.Redacted(a).Warnings[:len(j.Warnings)]
	}
	for _, w := range ws {
		fmt.Fprintf(opts.Err, "hbgbench: warning: %s\n", termsafe.Escape(w))
	}
	return abreport.Write(opts.Out, abreport.WriteOptions{Format: opts.Format, Redact: opts.Redact, AA: a.AA, FullTable: opts.Full}, a, j)
}

// isDir reports whether path is a directory.
func isDir(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.IsDir()
}

// mergeRun reads the shards' journals, merges them and writes the merged
// report.
func mergeRun(opts *ReportOptions) error {
	if opts.Format == "benchfmt" {
		return &usageError{err: errors.New("report: --format benchfmt is per journal: run report --format benchfmt on each shard's journal")}
	}
	js, err := journal.ReadShards(opts.Journals)
	if err != nil {
		return err
	}
	m, err := analysis.Merge(js)
	if err != nil {
		return err
	}
	if opts.Redact {
		m = abreport.RedactedMerged(m)
	}
	for _, w := range m.Warnings {
		fmt.Fprintf(opts.Err, "hbgbench: warning: %s\n", termsafe.Escape(w))
	}
	return abreport.WriteMerged(opts.Out, opts.Format, m)
}
