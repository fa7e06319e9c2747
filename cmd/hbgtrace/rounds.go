package main

import (
	"bufio"
	"fmt"

	"github.com/hbgkit/hbgkit/internal/hugeheap"
	"github.com/hbgkit/hbgkit/internal/report"
	"github.com/hbgkit/hbgkit/phases"
	"github.com/hbgkit/hbgkit/trace"
	"github.com/spf13/cobra"
)

// roundsOptions are the flags and arguments of `hbgtrace rounds`.
type roundsOptions struct {
	logInput
	perRank bool
	format  string
	records []string // host_phase_records.jsonl artifacts
	// counters adds the counters block to the text format; the other
	// formats carry the counters and work whenever the log has them.
	counters bool
}

// newRoundsCmd builds the rounds command. runF replaces roundsRun in tests; nil
// means roundsRun.
func newRoundsCmd(runF func(*roundsOptions) error) *cobra.Command {
	opts := &roundsOptions{}
	cmd := &cobra.Command{
		Use:   "rounds LOG...",
		Short: "Per-round table of the busiest callable (= --rounds-table)",
		Long: `rounds prints one row per invocation (round) of the busiest callable,
as strace_timing --rounds-table does: Host is chip.run, Device is
chip.run.runner_run.device_wall, Orch and Sched its .orch and .sched
children, Effective the span of orch and sched together. Host is always
shown and averaged over every round; another column is shown when some
round has it and is averaged over the rounds that have it ([k/n] after
Device). With more than 20 rounds a trimmed line drops the 10 lowest and
10 highest values.

Invocations without a chip.run span (such as a lone chip.prewarm.build)
are left out before the busiest callable is chosen. Logs written before
the rename are read too: simpler_run names count as chip.run names.

With --per-rank, one table per process (titled "pid <pid>:"), each over
that process's invocations of the busiest callable.

HBG bind accounting (docs/accounting.md): when some round's bind records
host_orch (bind phase= lines, chip.run.bind.<segment> or
simpler_run.bind.* spans), the table gains the columns Args, Prebuilt,
HostOrch, GraphPack, Relocate, H2dImage, H2dGraph, H2dSm, H2dArena,
ViewClose, Gate and ControlPlane (those some round records; "-" where a
round did not record the stage, 0.0 is a recorded 0). With --records, the
bind segments of host_phase_records.jsonl artifacts fill in what the log
lacks (a segment the log has wins). The Avg lines keep
the reference columns. Then three share blocks, all rounds, cold (the
first round of each pid) and warm, each over the rounds that record every
stage the block has ("n=K of M"), and the cold-vs-warm line. Rounds a
block leaves out are named on stderr, after the log's warnings. Without
HBG data the output is the reference's.

Counters and work (docs/formats.md): the kernel counters E2 and E3 logs
write per segment (minflt tminflt nivcsw nvcsw: count; cpu_ns
rec_cpu_ns: ns CPU) and the work attributes (tasks submissions defs
ntensor count: count; bytes heap_used copied: bytes), per round and
segment, each counter's pass total, and for the discrete counters on how
many warm binds they are > 0 ("minflt > 0 in host_orch on 2 of 6 warm
binds"); heap_used higher than in the pid's previous bind is counted
the same way. A value a pass does not write is missing, never 0; a
value that is not a non-negative integer is left out with a counted
warning naming its file and line. json, csv and markdown carry them
whenever the log has them; text only with --counters, as a block after
the reference output, which stays byte for byte.

Output formats (--format):
  text      the reference layout, byte for byte without HBG data
  markdown  a GitHub table of the rounds, then a table of the averages;
            with HBG data, a table per share block
  json      {"callable", "columns": [{"name", "unit", "key"}],
            "rows": [{"round", "pid", "inv", "<key>": value}],
            "averages": [{"metric", "value", "unit", "n", "of"}],
            "trimmed": null or {"dropped_low", "dropped_high",
            "rounds_used", "averages": [...]}}; keys are like "host_us";
            with HBG data also "hbg_accounting": {"columns", "rows"
            (null: not recorded), "blocks": [{"name", "n", "of",
            "rounds", "rounds_used", "left_out", "lacking", "stages":
            [{"stage", "mean", "unit", "n", "of", "share_pct"}], "top"}],
            "cold_vs_warm", "warnings"};
            with --per-rank: {"ranks": [{"pid", ...the same fields}]}
  csv       header round,pid,inv,host_us,...; one line per round (per
            rank with --per-rank, rounds counted per rank); with HBG
            data the HBG columns (empty: not recorded) and cold; with
            counters or work one column per <segment>.<name> and
            pass.<counter> (empty: not written)
  json and markdown add the counters: json "evidence": {"columns":
            [{"segment", "name", "unit", "key"}], "rows": [{"round",
            "pid", "inv", "cold", "<key>": value or null}], "events":
            [{"segment", "name", "event", "k", "n", "text"}], "warnings"}`,
		Example: `  hbgtrace rounds host.log
  hbgtrace rounds --per-rank spool/
  hbgtrace rounds --format json host.log.gz
  hbgtrace rounds host.log --records out/host_phase_records.jsonl
  hbgtrace rounds --counters bind.log`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(cmd, opts.format); err != nil {
				return err
			}
			return runWith(cmd, args, &opts.logInput, opts, runF, roundsRun)
		},
	}
	addFormatFlag(cmd, &opts.format)
	cmd.Flags().BoolVar(&opts.perRank, "per-rank", false, "one table per pid")
	cmd.Flags().StringArrayVar(&opts.records, "records", nil,
		"a host_phase_records.jsonl `FILE` (repeatable)")
	cmd.Flags().BoolVar(&opts.counters, "counters", false,
		"text: add the counters, work and k-of-N block")
	addMaxHeldFlag(cmd, &opts.logInput)
	return cmd
}

func roundsRun(opts *roundsOptions) error {
	// The table keeps per invocation only what a row reads, and the
	// accounting the bind passes' segments (with the counters, their
	// evidence attributes): the log streams through.
	rc := phases.NewRoundsCollector()
	bc := phases.NewBindPassCollector()
	held := tableBound(opts.logInput)
	rc.Bound(held)
	bc.Bound(held)
	// The counters and work are read when a format shows them: the text
	// format only with --counters. Without them the lines' attributes
	// are not kept.
	evidence := opts.counters || opts.format != report.FormatText
	noAttrs := trace.Kinds(trace.KindBindPhase)
	if evidence {
		bc.KeepEvidence()
		noAttrs = 0
	}
	if len(opts.records) > 0 {
		rps, err := loadRecords(opts.logInput, opts.records, false)
		if err != nil {
			return err
		}
		bc.Records(rps)
	}
	l, err := streamLog(opts.ioStreams, opts.logs, hugeheap.Summary, trace.ReadOptions{
		Kinds:      warningKinds | trace.Kinds(trace.KindSpan, trace.KindBindPhase),
		KeepSpan:   phases.RoundsReads,
		FirstSpans: phases.RoundsSpan,
		// The passes keep each line's phase and times, never its text.
		NoAttrs: noAttrs,
	}, trace.Visitors{
		Span:      func(s *trace.Span) { rc.Add(s); bc.Span(s) },
		BindPhase: bc.BindPhase,
		Err:       held.Err,
	})
	if err != nil {
		return tooManySpans(err, "--max-spans")
	}
	printWarnings(opts.Stderr, l)
	// The passes are attached to their binds while the rows are built.
	attached := make(chan struct{})
	go func() { bc.Finish(); close(attached) }()
	var tables []*report.RoundsTable
	if opts.perRank {
		ranks := rc.RoundsPerRank()
		<-attached
		for _, rr := range ranks {
			pid := rr.Pid
			tables = append(tables, report.NewRoundsTable(rr.Rounds, bc, &pid, evidence))
		}
	} else {
		r := rc.Rounds()
		<-attached
		tables = append(tables, report.NewRoundsTable(r, bc, nil, evidence))
	}
	for _, t := range tables {
		for _, w := range t.Warnings() {
			fmt.Fprintln(opts.Stderr, w)
		}
		for _, w := range t.EvidenceWarnings() {
			fmt.Fprintln(opts.Stderr, w)
		}
		t.Counters = opts.counters
	}
	// Tables of a long log run to megabytes: write them through a buffer
	// rather than build them in memory.
	b := bufio.NewWriterSize(opts.Stdout, 64<<10)
	if opts.perRank {
		err = report.WriteRoundsPerRank(b, opts.format, tables)
	} else {
		err = report.WriteRounds(b, opts.format, tables[0])
	}
	if err != nil {
		return fmt.Errorf("rounds: %w", err)
	}
	return b.Flush()
}
