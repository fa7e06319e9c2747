package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/hbgkit/hbgkit/internal/document"
	"github.com/hbgkit/hbgkit/phases"
	"github.com/hbgkit/hbgkit/trace"
)

// The views of `hbgtrace phases`: hbg_bind_phases' table (line-based and
// span-based), with the HBG accounting rows of --accounting, and its
// markdown, csv and json forms.

// A BindPhases is what `hbgtrace phases` reports.
type BindPhases struct {
	Logs  []string // the LOG arguments as given
	Stamp *trace.Stamp
	// Autoloads are the distinct torch_backend_autoload records; the
	// span-based (E3) text echoes them.
	Autoloads []string
	Spans     bool // E3: computed from chip.run.bind.<segment> spans
	Spread    *phases.BindSpread
	// Acct is the HBG accounting of the summarised passes (--accounting);
	// nil without the flag.
	Acct *phases.AccountingSpread
	// AcctWarning is Acct's stderr warning, "" when it used every pass.
	AcctWarning string
	// Evidence is the counters and work of the summarised passes
	// (--accounting); nil without the flag. EvidenceWhat names those
	// passes ("warm passes", phases.BindSource.AccountingWhat).
	Evidence     *phases.EvidenceTable
	EvidenceWhat string
}

// WriteBindPhases writes r in format; FormatText is hbg_bind_phases'
// layout, byte for byte without accounting rows.
func WriteBindPhases(w io.Writer, format string, r *BindPhases) error {
	switch format {
	case FormatJSON:
		return document.WriteJSON(w, r.json())
	case FormatCSV:
		return writeGrid(w, format, r.table(format))
	case FormatMarkdown:
		if err := writeGrid(w, format, r.table(format)); err != nil {
			return err
		}
		if r.Evidence == nil {
			return nil
		}
		s, err := evidenceMarkdown(r.Evidence, nil, evidenceSpreadTable(r.Evidence, shortest1), r.EvidenceWhat)
		if err != nil {
			return err
		}
		_, err = io.WriteString(w, s)
		return err
	}
	text := r.text()
	if r.Evidence != nil {
		text += evidenceText(r.Evidence, nil, evidenceSpreadTable(r.Evidence, shortest1), r.EvidenceWhat)
	}
	_, err := io.WriteString(w, text)
	return err
}

// accountingSpreadRowText is an accounting row in the layout of the
// phases table: a space, a space for the control-plane mark, the name
// left-justified in 18, min, median and max right-justified in 10 with
// three decimals, two spaces and N right-justified in 3.
func accountingSpreadRowText(r phases.AccountingSpreadRow) string {
	return fmt.Sprintf("  %-18s%10.3f%10.3f%10.3f  %3d", r.Stage.Label(), r.Min, r.Median, r.Max, r.N)
}

// phasesWords are the words that differ between the line-based reference
// (passes, phases) and the span-based one (binds, segments).
type phasesWords struct {
	pass, passes, phases, compare string
}

func (r *BindPhases) words() phasesWords {
	if r.Spans {
		return phasesWords{"bind", "binds", "segments", "stamp and torch autoload state"}
	}
	return phasesWords{"pass", "passes", "phases", "stamp"}
}

// text renders the report byte for byte as hbg_bind_phases does.
func (r *BindPhases) text() string {
	sp, w := r.Spread, r.words()
	var b strings.Builder
	b.WriteString(strings.Join(r.Logs, " ") + "\n")
	if r.Stamp != nil {
		b.WriteString("  " + r.Stamp.Text + "\n")
	} else {
		b.WriteString("  (no `[stamp]` line: the command and commit behind these numbers have\n")
		b.WriteString("   to be established by hand before comparing them to anything)\n")
	}
	if r.Spans {
		// The span-based tool (upstream's bind_phases) echoes the
		// backend-autoload state.
		for _, a := range r.Autoloads {
			b.WriteString("  " + a + "\n")
		}
		if len(r.Autoloads) == 0 {
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
	if r.Acct != nil {
		for _, row := range r.Acct.Rows {
			b.WriteString(accountingSpreadRowText(row) + "\n")
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
	// Evidence is the counters and work over the summarised passes;
	// present with --accounting when some pass writes any.
	Evidence *phasesEvidenceDoc `json:"evidence,omitempty"`
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

func (r *BindPhases) json() phasesJSON {
	sp := r.Spread
	nonNil := nonNilStrings
	doc := phasesJSON{
		Logs: r.Logs, Source: "bind_phase_lines", Unit: "ms",
		Passes: sp.Passes, Warm: sp.Warm, ColdDropped: sp.Cold, Ranks: sp.Ranks,
		Phases:  []phasesJSONRow{},
		Unknown: nonNil(sp.Unknown),
		ControlPlane: phasesJSONControl{
			Phases: nonNil(sp.Set.ControlPlane), Present: nonNil(sp.Present),
			Partial: nonNil(sp.Partial), Retired: nonNil(sp.Retired),
		},
	}
	if r.Spans {
		doc.Source = "bind_segment_spans"
		doc.Autoloads = nonNil(r.Autoloads)
	}
	if r.Stamp != nil {
		doc.Stamp = &r.Stamp.Text
	}
	for _, row := range sp.Rows {
		doc.Phases = append(doc.Phases, phasesJSONRow{row.Phase, row.Control, row.Min, row.Median, row.Max, row.N})
	}
	if t := sp.Total; t != nil {
		doc.ControlPlane.Total = &phasesJSONSpread{t.Min, t.Median, t.Max, t.N}
	}
	if a := r.Acct; a != nil {
		ints := nonNilInts
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
		if r.AcctWarning != "" {
			ja.Warning = &r.AcctWarning
		}
		doc.Accounting = ja
	}
	if r.Evidence != nil && !r.Evidence.Empty() {
		doc.Evidence = newPhasesEvidenceDoc(r.Evidence, r.EvidenceWhat)
	}
	return doc
}

// table renders the report for --format markdown and csv: one row per
// segment, the accounting rows with --accounting (kind "accounting"), then
// the control-plane total (kind "total").
func (r *BindPhases) table(format string) *document.Table {
	sp, w := r.Spread, r.words()
	// The number rule of every view: markdown rounds as the text does
	// (here 0.001 ms); csv and json carry the unrounded value.
	ms := shortest
	if format == FormatMarkdown {
		ms = func(x float64) string { return strconv.FormatFloat(x, 'f', 3, 64) }
	}
	t := &document.Table{
		Header: []string{"kind", "phase", "control_plane", "min_ms", "median_ms", "max_ms", "n"},
		Align:  []document.Align{document.Left, document.Left, document.Left, document.Right, document.Right, document.Right, document.Right},
	}
	if format == FormatMarkdown {
		t.Title = fmt.Sprintf("%s: %d %s, %d warm (%d cold dropped, ranks=%d)",
			strings.Join(r.Logs, " "), sp.Passes, w.passes, sp.Warm, sp.Cold, sp.Ranks)
	}
	for _, row := range sp.Rows {
		t.AddRow("phase", row.Phase, strconv.FormatBool(row.Control), ms(row.Min), ms(row.Median), ms(row.Max), strconv.Itoa(row.N))
	}
	if r.Acct != nil {
		for _, row := range r.Acct.Rows {
			t.AddRow("accounting", row.Stage.Label(), "false", ms(row.Min), ms(row.Median), ms(row.Max), strconv.Itoa(row.N))
		}
	}
	if tot := sp.Total; tot != nil {
		t.AddRow("total", strings.Join(sp.Present, "+"), "true", ms(tot.Min), ms(tot.Median), ms(tot.Max), strconv.Itoa(tot.N))
	}
	if format == FormatCSV && r.Evidence != nil && !r.Evidence.Empty() {
		// The counters and work as rows of kind "evidence" in columns of
		// their own: name, unit, and their min, median and max (in that
		// unit); the *_ms cells of those rows, and their columns' cells
		// in the other rows, are empty.
		t.Header = append(t.Header, "name", "unit", "min", "median", "max")
		for i := range t.Rows {
			t.Rows[i] = append(t.Rows[i], "", "", "", "", "")
		}
		ev := evidenceSpreadTable(r.Evidence, shortest)
		for _, row := range ev.Rows {
			// segment, name, unit, min, median, max, n
			t.AddRow("evidence", row[0], "", "", "", "", row[6], row[1], row[2], row[3], row[4], row[5])
		}
	}
	return t
}
