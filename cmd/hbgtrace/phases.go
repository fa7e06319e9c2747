package main

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/hbgkit/hbgkit/phases"
	"github.com/hbgkit/hbgkit/trace"
	"github.com/spf13/cobra"
)

// phasesOptions are the flags of `hbgtrace phases`.
type phasesOptions struct {
	rounds    int
	ranks     int
	ranksSet  bool
	keepFirst bool
	format    string
	// accounting adds the Gate, GraphPack and ControlPlane rows of the HBG
	// bind accounting (DESIGN §4) over the passes the table summarises.
	accounting bool
}

func newPhasesCmd() *cobra.Command {
	var opts phasesOptions
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
sums, never a sum of minima. Passes left out are named on stderr. Without
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
            [{"stage", "min", "median", "max", "n"}], "warning"}`,
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
			return phasesRun(cmd, args, opts)
		},
	}
	f := cmd.Flags()
	f.IntVar(&opts.rounds, "rounds", 0, "rounds per rank of the run, to infer the rank count")
	f.IntVar(&opts.ranks, "ranks", 0, "ranks of the run: the first this many passes are cold")
	f.BoolVar(&opts.keepFirst, "keep-first", false, "keep the cold passes")
	f.BoolVar(&opts.accounting, "accounting", false, "add the HBG rows Gate, GraphPack and ControlPlane")
	addFormatFlag(cmd, &opts.format)
	return cmd
}

// The refusals of hbg_bind_phases, printed verbatim after "<log>: ".
const (
	phasesNoLines = "no `bind phase=` lines. SIMPLER_HBG_BIND_BREAKDOWN_ENABLE=1 and " +
		"SIMPLER_LOG_LEVEL=TIMING must both be set, and a multi-device case must be " +
		"invoked as its own child command -- see docs/dfx/hbg-bind-phases.md."
	// hbgkit's own: the log has bind-phase lines, but none parses.
	phasesNoGoodLines = "no usable `bind phase=` lines: %d were found and none parses " +
		"(see the warning above), so there is no pass to report."
	phasesAllColdLines = "%d pass(es) over %d rank(s), all of them cold. The first pass " +
		"of each rank is warm-up, so a warm pass needs --rounds 2 or more; " +
		"--keep-first reports the cold passes instead."
	phasesAllColdSpans = "%d bind(s) over %d rank(s), all of them cold. The first bind " +
		"of each rank is warm-up, so a warm bind needs --rounds 2 or more on the run; " +
		"--keep-first reports the cold binds instead."
)

// A phasesReport is what `phases` prints.
type phasesReport struct {
	logs  []string // the LOG arguments as given
	stamp *trace.Stamp
	// autoloads are the distinct torch_backend_autoload records; the
	// span-based (E3) text echoes them.
	autoloads []string
	spans     bool // E3: computed from chip.run.bind.<segment> spans
	spread    *phases.BindSpread
	// acct is the HBG accounting of the summarised passes (--accounting);
	// nil without the flag.
	acct *phases.AccountingSpread
	// acctWarning is acct's stderr warning, "" when it used every pass.
	acctWarning string
}

func phasesRun(cmd *cobra.Command, args []string, opts phasesOptions) error {
	// The lines stream into per-pass durations; E3 bind spans and the
	// warnings matter only to a log without `bind phase=` lines, so a
	// chunk of the log that has such lines is not searched for them.
	lines := phases.NewSpreadCollector(opts.accounting)
	var e3 phases.SpanBindSpans
	nlines := 0
	log, err := streamLog(cmd, args, trace.ReadOptions{
		Kinds:            warningKinds | trace.Kinds(trace.KindSpan, trace.KindBindPhase, trace.KindStamp, trace.KindAutoload),
		KeepSpan:         phases.SpanBindName,
		SkipIfBindPhases: warningKinds | trace.Kinds(trace.KindSpan, trace.KindAutoload),
	}, trace.Visitors{
		Span:      e3.Add,
		BindPhase: func(l *trace.BindPhase) { nlines++; lines.BindPhase(l) },
	})
	if err != nil {
		return err
	}
	rep := &phasesReport{logs: args, stamp: log.Stamp, autoloads: log.Autoloads}
	name := strings.Join(args, " ")
	refuse := func(format string, a ...any) error {
		return &exitError{code: 1, text: name + ": " + fmt.Sprintf(format, a...) + "\n"}
	}
	var allCold *phases.AllColdError
	// E3 when the log has no `bind phase=` line but span binds with
	// host_orch. Any other log, even one with a few chip.run.bind.<segment>
	// spans that make no bind (a TMR log writes args and prebuilt), gets
	// the line-based tool and its refusal, as conformance case 079 pins;
	// so the span-based tool's own "no spans" refusal is never printed.
	binds := phases.SpanBindPasses(e3.Spans)
	if nlines > 0 || len(binds) == 0 {
		// The line-based tool's stderr holds nothing but its refusals,
		// and hbgkit's count of the bind-phase lines it left out: one
		// bad line changes the pass and rank counts.
		for _, w := range log.MalformedWarnings(trace.Kinds(trace.KindBindPhase)) {
			fmt.Fprintln(cmd.ErrOrStderr(), w)
		}
		rep.spread, err = lines.Spread(phases.BindSpreadOptions{
			Rounds: opts.rounds, Ranks: opts.ranks, RanksSet: opts.ranksSet, KeepFirst: opts.keepFirst,
		})
		switch {
		case errors.Is(err, phases.ErrNoBindPasses) && log.MalformedCount[trace.KindBindPhase] > 0:
			// The lines are there, so the environment is not to blame.
			return refuse(phasesNoGoodLines, log.MalformedCount[trace.KindBindPhase])
		case errors.Is(err, phases.ErrNoBindPasses):
			return refuse("%s", phasesNoLines)
		case errors.As(err, &allCold):
			return refuse(phasesAllColdLines, allCold.Passes, allCold.Ranks)
		case err != nil:
			return fmt.Errorf("phases: %w", err)
		}
	} else {
		printWarnings(cmd, log)
		rep.spans = true
		rep.spread, err = phases.SpanBindSpread(binds, opts.keepFirst)
		switch {
		case errors.As(err, &allCold):
			return refuse(phasesAllColdSpans, allCold.Passes, allCold.Ranks)
		case err != nil:
			return fmt.Errorf("phases: %w", err)
		}
	}
	if opts.accounting {
		acct := rep.spread.AccountingSpread()
		rep.acct = &acct
		what := "warm passes"
		if opts.keepFirst {
			what = "passes (cold kept)"
		}
		if rep.spans {
			what = strings.Replace(what, "passes", "binds", 1)
		}
		rep.acctWarning = acct.Warning(what)
		if rep.acctWarning != "" {
			fmt.Fprintln(cmd.ErrOrStderr(), rep.acctWarning)
		}
	}
	w := cmd.OutOrStdout()
	switch opts.format {
	case formatJSON:
		return writeJSON(w, rep.json())
	case formatMarkdown, formatCSV:
		return writeTable(w, opts.format, rep.table(opts.format))
	}
	_, err = io.WriteString(w, rep.text())
	return err
}

// phasesWords are the words that differ between the line-based reference
// (passes, phases) and the span-based one (binds, segments).
type phasesWords struct {
	pass, passes, phases, compare string
}

func (r *phasesReport) words() phasesWords {
	if r.spans {
		return phasesWords{"bind", "binds", "segments", "stamp and torch autoload state"}
	}
	return phasesWords{"pass", "passes", "phases", "stamp"}
}

// text renders the report byte for byte as hbg_bind_phases does.
func (r *phasesReport) text() string {
	sp, w := r.spread, r.words()
	var b strings.Builder
	b.WriteString(strings.Join(r.logs, " ") + "\n")
	if r.stamp != nil {
		b.WriteString("  " + r.stamp.Text + "\n")
	} else {
		b.WriteString("  (no `[stamp]` line: the command and commit behind these numbers have\n")
		b.WriteString("   to be established by hand before comparing them to anything)\n")
	}
	if r.spans {
		// The span-based tool echoes the backend-autoload state (§4.2).
		for _, a := range r.autoloads {
			b.WriteString("  " + a + "\n")
		}
		if len(r.autoloads) == 0 {
			b.WriteString("  (no `torch_backend_autoload` record: backend-autoload state\n")
			b.WriteString("   must be established before comparing this log)\n")
		}
	}
	fmt.Fprintf(&b, "  %d %s, %d warm (%d cold dropped, ranks=%d)\n\n", sp.Passes, w.passes, sp.Warm, sp.Cold, sp.Ranks)
	fmt.Fprintf(&b, "  %-18s%10s%10s%10s   n\n", "phase", "min", "median", "max")
	for _, row := range sp.Rows {
		mark := " "
		if row.Control {
			mark = "*"
		}
		fmt.Fprintf(&b, " %s%-18s%10.3f%10.3f%10.3f  %3d\n", mark, row.Phase, row.Min, row.Median, row.Max, row.N)
	}
	if r.acct != nil {
		for _, row := range r.acct.Rows {
			b.WriteString(row.Format() + "\n")
		}
	}
	if len(sp.Unknown) > 0 {
		fmt.Fprintf(&b, "\n  %s this tool does not know about: %s\n", w.phases, strings.Join(sp.Unknown, ", "))
		b.WriteString("  (add them to PHASE_ORDER, and to CONTROL_PLANE if a dispatch change can move them)\n")
	}
	if sp.Total == nil {
		quoted := make([]string, len(sp.Set.ControlPlane))
		for i, ph := range sp.Set.ControlPlane {
			quoted[i] = "'" + ph + "'"
		}
		fmt.Fprintf(&b, "\n  no %s carries any of (%s); the control-plane total is not computable\n",
			w.pass, strings.Join(quoted, ", "))
		return b.String()
	}
	t := sp.Total
	fmt.Fprintf(&b, "\n  * = control plane, summed within each %s and then:\n", w.pass)
	fmt.Fprintf(&b, "    total%13s%10.3f%10.3f%10.3f  %3d   (ms)\n", "", t.Min, t.Median, t.Max, t.N)
	if len(sp.Retired) > 0 {
		fmt.Fprintf(&b, "    over %d of %d %s; absent from every\n", len(sp.Present), len(sp.Set.ControlPlane), w.phases)
		fmt.Fprintf(&b, "    %s: %s\n", w.pass, strings.Join(sp.Retired, ", "))
	}
	if len(sp.Partial) > 0 {
		fmt.Fprintf(&b, "    WARNING: %s is missing from some %s but not all;\n", strings.Join(sp.Partial, ", "), w.passes)
		fmt.Fprintf(&b, "    those %s are excluded, and the total may not describe the run\n", w.passes)
	}
	b.WriteString("\n  Compare by min, over the same phase set, against a log with the same\n")
	fmt.Fprintf(&b, "  %s; see docs/dfx/hbg-bind-phases.md 'Comparing two branches'.\n", w.compare)
	return b.String()
}

// phasesJSON is the --format json document; durations are in ms.
type phasesJSON struct {
	Logs   []string `json:"logs"`
	Stamp  *string  `json:"stamp"`
	Source string   `json:"source"` // "bind_phase_lines" or "bind_segment_spans"
	Unit   string   `json:"unit"`
	// Autoloads are the torch_backend_autoload records of a span-based
	// (E3) log; absent for a line-based one, which does not read them.
	Autoloads    []string          `json:"torch_backend_autoload,omitempty"`
	Passes       int               `json:"passes"`
	Warm         int               `json:"warm"`
	ColdDropped  int               `json:"cold_dropped"`
	Ranks        int               `json:"ranks"`
	Phases       []phasesJSONRow   `json:"phases"`
	Unknown      []string          `json:"unknown"`
	ControlPlane phasesJSONControl `json:"control_plane"`
	// Accounting is present with --accounting.
	Accounting *phasesJSONAccounting `json:"accounting,omitempty"`
}

// phasesJSONAccounting is the HBG accounting of --accounting: the spread
// of per-pass Gate, GraphPack and ControlPlane over n of the table's
// passes (passes_used, positions among them).
type phasesJSONAccounting struct {
	Unit       string                    `json:"unit"` // "ms"
	N          int                       `json:"n"`
	Of         int                       `json:"of"`
	PassesUsed []int                     `json:"passes_used"`
	LeftOut    []int                     `json:"left_out"`
	Lacking    []string                  `json:"lacking"`
	Rows       []phasesJSONAccountingRow `json:"rows"`
	Warning    *string                   `json:"warning"`
}

type phasesJSONAccountingRow struct {
	Stage  string  `json:"stage"`
	Min    float64 `json:"min"`
	Median float64 `json:"median"`
	Max    float64 `json:"max"`
	N      int     `json:"n"`
}

type phasesJSONRow struct {
	Phase        string  `json:"phase"`
	ControlPlane bool    `json:"control_plane"`
	Min          float64 `json:"min"`
	Median       float64 `json:"median"`
	Max          float64 `json:"max"`
	N            int     `json:"n"`
}

type phasesJSONSpread struct {
	Min    float64 `json:"min"`
	Median float64 `json:"median"`
	Max    float64 `json:"max"`
	N      int     `json:"n"`
}

type phasesJSONControl struct {
	Phases  []string `json:"phases"`  // the control-plane segments of this log's generation
	Present []string `json:"present"` // seen in some warm pass
	Partial []string `json:"partial"` // present but missing from some warm pass
	Retired []string `json:"retired"` // in no warm pass
	// Total is the spread of per-pass sums of the present segments over
	// the warm passes that have all of them; null when there is none.
	Total *phasesJSONSpread `json:"total"`
}

func (r *phasesReport) json() phasesJSON {
	sp := r.spread
	nonNil := func(s []string) []string {
		if s == nil {
			return []string{}
		}
		return s
	}
	doc := phasesJSON{
		Logs: r.logs, Source: "bind_phase_lines", Unit: "ms",
		Passes: sp.Passes, Warm: sp.Warm, ColdDropped: sp.Cold, Ranks: sp.Ranks,
		Phases:  []phasesJSONRow{},
		Unknown: nonNil(sp.Unknown),
		ControlPlane: phasesJSONControl{
			Phases: nonNil(sp.Set.ControlPlane), Present: nonNil(sp.Present),
			Partial: nonNil(sp.Partial), Retired: nonNil(sp.Retired),
		},
	}
	if r.spans {
		doc.Source = "bind_segment_spans"
		doc.Autoloads = nonNil(r.autoloads)
	}
	if r.stamp != nil {
		doc.Stamp = &r.stamp.Text
	}
	for _, row := range sp.Rows {
		doc.Phases = append(doc.Phases, phasesJSONRow{row.Phase, row.Control, row.Min, row.Median, row.Max, row.N})
	}
	if t := sp.Total; t != nil {
		doc.ControlPlane.Total = &phasesJSONSpread{t.Min, t.Median, t.Max, t.N}
	}
	if a := r.acct; a != nil {
		ints := func(v []int) []int {
			if v == nil {
				return []int{}
			}
			return v
		}
		ja := &phasesJSONAccounting{
			Unit: "ms", N: len(a.Common), Of: a.Passes,
			PassesUsed: ints(a.Common), LeftOut: ints(a.LeftOut),
			Lacking: []string{}, Rows: []phasesJSONAccountingRow{},
		}
		for _, s := range a.Lacking {
			ja.Lacking = append(ja.Lacking, s.Label())
		}
		for _, row := range a.Rows {
			ja.Rows = append(ja.Rows, phasesJSONAccountingRow{row.Stage.Label(), row.Min, row.Median, row.Max, row.N})
		}
		if r.acctWarning != "" {
			ja.Warning = &r.acctWarning
		}
		doc.Accounting = ja
	}
	return doc
}

// table renders the report for --format markdown and csv: one row per
// segment, the accounting rows with --accounting (kind "accounting"), then
// the control-plane total (kind "total").
func (r *phasesReport) table(format string) *table {
	sp, w := r.spread, r.words()
	// The number rule of every view: markdown rounds as the text does
	// (here 0.001 ms); csv and json carry the unrounded value.
	ms := shortest
	if format == formatMarkdown {
		ms = func(x float64) string { return strconv.FormatFloat(x, 'f', 3, 64) }
	}
	t := &table{
		Header: []string{"kind", "phase", "control_plane", "min_ms", "median_ms", "max_ms", "n"},
		Right:  []bool{false, false, false, true, true, true, true},
	}
	if format == formatMarkdown {
		t.Title = fmt.Sprintf("%s: %d %s, %d warm (%d cold dropped, ranks=%d)",
			strings.Join(r.logs, " "), sp.Passes, w.passes, sp.Warm, sp.Cold, sp.Ranks)
	}
	for _, row := range sp.Rows {
		t.addRow("phase", row.Phase, strconv.FormatBool(row.Control), ms(row.Min), ms(row.Median), ms(row.Max), strconv.Itoa(row.N))
	}
	if r.acct != nil {
		for _, row := range r.acct.Rows {
			t.addRow("accounting", row.Stage.Label(), "false", ms(row.Min), ms(row.Median), ms(row.Max), strconv.Itoa(row.N))
		}
	}
	if tot := sp.Total; tot != nil {
		t.addRow("total", strings.Join(sp.Present, "+"), "true", ms(tot.Min), ms(tot.Median), ms(tot.Max), strconv.Itoa(tot.N))
	}
	return t
}
