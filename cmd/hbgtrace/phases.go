package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/hbgkit/hbgkit/internal/hugeheap"
	"github.com/hbgkit/hbgkit/internal/report"
	"github.com/hbgkit/hbgkit/phases"
	"github.com/hbgkit/hbgkit/trace"
	"github.com/spf13/cobra"
)

// phasesOptions are the flags of `hbgtrace phases`.
type phasesOptions struct {
	logInput
	rounds    int
	ranks     int
	ranksSet  bool
	keepFirst bool
	format    string
	// accounting adds the Gate, GraphPack and ControlPlane rows of the HBG
	// bind accounting (docs/accounting.md "`hbgtrace phases --accounting`")
	// over the passes the table summarises.
	accounting bool
}

// newPhasesCmd builds the phases command. runF replaces phasesRun in tests; nil
// means phasesRun.
func newPhasesCmd(runF func(*phasesOptions) error) *cobra.Command {
	opts := &phasesOptions{}
	cmd := &cobra.Command{
		Use:   "phases LOG...",
		Short: "Per-segment min/median/max of the warm bind passes",
		Long: `phases prints, per bind segment, the min, median and max duration in ms
over the warm bind passes of a --rounds N run, and the control-plane total
as the spread of per-pass sums (never a sum of per-phase minima). It is
simpler's hbg_bind_phases.

Logs with "bind phase=" lines (E1/E2): a pass is the run of lines one log
thread wrote in segment order, so host_view_close stays in its own pass.
The cold passes are the first R passes in log order, R being --ranks, else
passes / --rounds (at least 1), else 1; --keep-first keeps them.

Logs with chip.run.bind.<segment> spans instead (E3): a bind is the
segments of one (pid, inv), the cold bind is the first of each process,
and the rank count is the number of processes; --rounds and --ranks are
not used.

--accounting adds three rows of the HBG bind accounting
(docs/accounting.md) after the segments: Gate (HostOrch + H2dImage,
HostOrch exclusive of the copies inside it), GraphPack (E3 logs) and
ControlPlane (Gate + GraphPack + Relocate). Each is the min, median and
max of per-pass values over the passes of the table that record every
control-plane stage, so the ControlPlane min is the minimum of per-pass
sums, never a sum of minima. Passes left out are named on stderr. After
the table, the counters and work attributes the passes' segments write
(docs/formats.md: faults, context switches and CPU ns of E2/E3; tasks,
submissions, defs, bytes, ...): per segment and name, with its unit, the
min, median and max over the same passes, each counter's pass total,
and for the discrete counters on how many passes they are > 0 ("k of
N"). A value a pass does not write is missing, never 0; a bad value is
left out with a counted warning naming its file and line. Without
--accounting the output is hbg_bind_phases'.

Output formats (--format):
  text      hbg_bind_phases' layout, byte for byte without --accounting
  markdown  a GitHub table: kind (phase, accounting, total), phase,
            control_plane, min_ms, median_ms, max_ms, n
  csv       the same rows, with a header line
  json      {"logs", "stamp", "source", "unit": "ms", "passes", "warm",
            "cold_dropped", "ranks", "phases": [{"phase",
            "control_plane", "min", "median", "max", "n"}], "unknown",
            "control_plane": {"phases", "present", "partial", "retired",
            "total"}}; with --accounting also "accounting": {"unit",
            "n", "of", "passes_used", "left_out", "lacking", "rows":
            [{"stage", "min", "median", "max", "n"}], "warning"} and
            "evidence": {"columns": [{"segment", "name", "unit", "key",
            "min", "median", "max", "n"}], "events": [{"segment",
            "name", "event", "k", "n", "text"}], "warnings"}; csv rows
            of kind evidence fill the columns name, unit, min, median,
            max`,
		Example: `  hbgtrace phases --rounds 6 bind.log
  hbgtrace phases --rounds 4 --accounting bind.log
  hbgtrace phases --rounds 4 --keep-first bind.log
  hbgtrace phases --format markdown spool/`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(cmd, opts.format); err != nil {
				return err
			}
			if opts.rounds < 0 || opts.ranks < 0 {
				return &usageError{cmd: cmd, err: errors.New("--rounds and --ranks must not be negative")}
			}
			opts.ranksSet = cmd.Flags().Changed("ranks")
			return runWith(cmd, args, &opts.logInput, opts, runF, phasesRun)
		},
	}
	f := cmd.Flags()
	f.IntVar(&opts.rounds, "rounds", 0, "rounds per rank of the run, to infer the rank count")
	f.IntVar(&opts.ranks, "ranks", 0, "ranks of the run: the first this many passes are cold")
	f.BoolVar(&opts.keepFirst, "keep-first", false, "keep the cold passes")
	f.BoolVar(&opts.accounting, "accounting", false, "add the HBG rows Gate, GraphPack and ControlPlane")
	addFormatFlag(cmd, &opts.format)
	addMaxHeldFlag(cmd, &opts.logInput)
	return cmd
}

// The refusals of hbg_bind_phases, printed verbatim after "<log>: ".
const (
	phasesNoLines = "no `bind phase=` lines. SIMPLER_HBG_BIND_BREAKDOWN_ENABLE=1 and " +
		"SIMPLER_LOG_LEVEL=TIMING must both be set, and a multi-device case must be " +
		"invoked as its own child command -- see docs/dfx/hbg-bind-phases.md."
	phasesAllColdLines = "%d pass(es) over %d rank(s), all of them cold. The first pass " +
		"of each rank is warm-up, so a warm pass needs --rounds 2 or more; " +
		"--keep-first reports the cold passes instead."
	phasesAllColdSpans = "%d bind(s) over %d rank(s), all of them cold. The first bind " +
		"of each rank is warm-up, so a warm bind needs --rounds 2 or more on the run; " +
		"--keep-first reports the cold binds instead."
)

func phasesRun(opts *phasesOptions) error {
	// The lines stream into per-pass durations; E3 bind spans and the
	// warnings matter only to a log without `bind phase=` lines, so a
	// chunk of the log that has such lines is not searched for them.
	lines := phases.NewSpreadCollector(opts.accounting)
	held := tableBound(opts.logInput)
	lines.Bound(held)
	e3 := phases.SpanBindSpans{Bound: held}
	nlines := 0
	// hbg_bind_phases matches only fields one space apart; a line whose
	// only record has a tab or two spaces between them (which
	// strace_timing reads) is not one of its lines, and is named in a
	// warning. A record glued after such a one is read, as it reads it.
	var spaced []trace.Pos
	nspaced := 0
	log, err := streamLog(opts.ioStreams, opts.logs, hugeheap.Summary, trace.ReadOptions{
		Kinds:            warningKinds | trace.Kinds(trace.KindSpan, trace.KindBindPhase, trace.KindStamp, trace.KindAutoload),
		KeepSpan:         phases.SpanBindName,
		SkipIfBindPhases: warningKinds | trace.Kinds(trace.KindSpan, trace.KindAutoload),
		HBGBindPhases:    true,
	}, trace.Visitors{
		Span: e3.Add,
		BindPhase: func(l *trace.BindPhase) {
			if l.Spaced {
				if len(spaced) < 5 {
					spaced = append(spaced, l.Pos)
				}
				nspaced++
				return
			}
			nlines++
			lines.BindPhase(l)
		},
		Err: held.Err,
	})
	if err != nil {
		return tooManySpans(err, "--max-spans")
	}
	if nspaced > 0 {
		fmt.Fprintf(opts.Stderr, "warning: %d `bind phase=` line(s) with other whitespace than one space between fields are left out, as hbg_bind_phases does: %s\n",
			nspaced, posList(spaced, nspaced))
	}
	// As hbg_bind_phases, the first stamp line decides, and one of empty
	// text is no stamp.
	stamp := log.Stamp
	if stamp != nil && stamp.Text == "" {
		stamp = nil
	}
	rep := &report.BindPhases{Logs: opts.logs, Stamp: stamp, Autoloads: log.Autoloads}
	name := strings.Join(opts.logs, " ")
	refuse := func(format string, a ...any) error {
		return &exitError{code: 1, text: name + ": " + fmt.Sprintf(format, a...) + "\n"}
	}
	var allCold *phases.AllColdError
	src := phases.ChooseBindSource(nlines, lines, &e3)
	if !src.Spans {
		// The line-based tool's stderr holds nothing but its refusals,
		// and hbgkit's count of the bind-phase lines it left out: one
		// bad line changes the pass and rank counts.
		for _, w := range log.MalformedWarnings(trace.Kinds(trace.KindBindPhase)) {
			fmt.Fprintln(opts.Stderr, w)
		}
	} else {
		printWarnings(opts.Stderr, log)
	}
	rep.Spans = src.Spans
	rep.Spread, err = src.Spread(phases.BindSpreadOptions{
		Rounds: opts.rounds, Ranks: opts.ranks, RanksSet: opts.ranksSet, KeepFirst: opts.keepFirst,
	})
	if n := lines.Duplicates(); !src.Spans && n > 0 {
		fmt.Fprintf(opts.Stderr, "warning: %d bind pass(es) repeat an earlier pass line for line (the same log given twice?) and are used once\n", n)
	}
	switch {
	case !src.Spans && errors.Is(err, phases.ErrNoBindPasses):
		// The reference's refusal, even when lines were left out as
		// malformed: the counted warning above says which.
		return refuse("%s", phasesNoLines)
	case !src.Spans && errors.As(err, &allCold):
		return refuse(phasesAllColdLines, allCold.Passes, allCold.Ranks)
	case errors.As(err, &allCold):
		return refuse(phasesAllColdSpans, allCold.Passes, allCold.Ranks)
	case err != nil:
		return fmt.Errorf("phases: %w", err)
	}
	if opts.accounting {
		acct := rep.Spread.AccountingSpread()
		rep.Acct = &acct
		rep.AcctWarning = acct.Warning(src.AccountingWhat(opts.keepFirst))
		if rep.AcctWarning != "" {
			fmt.Fprintln(opts.Stderr, rep.AcctWarning)
		}
		rep.Evidence = rep.Spread.EvidenceTable()
		rep.EvidenceWhat = src.AccountingWhat(opts.keepFirst)
		for _, w := range rep.Evidence.Warnings {
			fmt.Fprintln(opts.Stderr, "warning: "+w.String())
		}
	}
	return report.WriteBindPhases(opts.Stdout, opts.format, rep)
}

// posList names up to len(ps) positions, "file:line, file:line", and says
// how many more of n there are.
func posList(ps []trace.Pos, n int) string {
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = fmt.Sprintf("%s:%d", p.File, p.Line)
	}
	s := strings.Join(parts, ", ")
	if n > len(ps) {
		s += fmt.Sprintf(" and %d more", n-len(ps))
	}
	return s
}
