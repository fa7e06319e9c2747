package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/hbgkit/hbgkit/internal/document"
	"github.com/hbgkit/hbgkit/phases"
)

// Orch is what `hbgtrace orch` prints: the orchestrator operation kinds of
// the log's host-orch lines and, with --records, the record kinds of
// host_phase_records.jsonl artifacts.
type Orch struct {
	Lines   []phases.OrchRow
	Records []phases.OrchRow // nil without --records
}

var orchHeader = []string{"kind", "passes", "count/pass", "total us", "us/op min", "us/op median", "us/op max"}

// orchTitles name the two tables and their source in csv.
const (
	orchLinesTitle   = "host-orch lines (per pass; warm: all but the first pass of each pid)"
	orchRecordsTitle = "host_phase_records.jsonl records (per record kind; warm passes)"
)

func orchCells(r phases.OrchRow) []string {
	return []string{r.Kind, fmt.Sprintf("%d of %d", r.Passes, r.Warm), shortest1(r.CountPerPass),
		fixed1(float64(r.TotalNs) / 1e3), fixed3(r.PerOpMin / 1e3), fixed3(r.PerOpMedian / 1e3), fixed3(r.PerOpMax / 1e3)}
}

func fixed3(x float64) string { return fmt.Sprintf("%.3f", x) }

// shortest1 prints a whole number without decimals, else with one.
func shortest1(x float64) string {
	if x == float64(int64(x)) {
		return fmt.Sprintf("%d", int64(x))
	}
	return fixed1(x)
}

func (o *Orch) tables() []*document.Table {
	var out []*document.Table
	for _, s := range []struct {
		title string
		rows  []phases.OrchRow
	}{{orchLinesTitle, o.Lines}, {orchRecordsTitle, o.Records}} {
		if s.rows == nil {
			continue
		}
		t := &document.Table{Title: s.title, Header: orchHeader, Align: append([]document.Align{document.Left}, rightAligned(len(orchHeader)-1)...)}
		for _, r := range s.rows {
			t.AddRow(orchCells(r)...)
		}
		out = append(out, t)
	}
	return out
}

// orchJSON is the json form of one row.
type orchJSON struct {
	Kind         string  `json:"kind"`
	Passes       int     `json:"passes"`
	Warm         int     `json:"warm_passes"`
	CountPerPass float64 `json:"count_per_pass"`
	Count        int64   `json:"count"`
	TotalUS      float64 `json:"total_us"`
	PerOpMinUS   float64 `json:"per_op_min_us"`
	PerOpMedUS   float64 `json:"per_op_median_us"`
	PerOpMaxUS   float64 `json:"per_op_max_us"`
}

func orchJSONRows(rows []phases.OrchRow) []orchJSON {
	out := make([]orchJSON, 0, len(rows))
	for _, r := range rows {
		out = append(out, orchJSON{Kind: r.Kind, Passes: r.Passes, Warm: r.Warm, CountPerPass: r.CountPerPass, Count: r.Count,
			TotalUS: float64(r.TotalNs) / 1e3, PerOpMinUS: r.PerOpMin / 1e3, PerOpMedUS: r.PerOpMedian / 1e3, PerOpMaxUS: r.PerOpMax / 1e3})
	}
	return out
}

// WriteOrch writes o in format: text (aligned tables, each under its
// title), markdown (GitHub tables), json ({"host_orch": [...], "records":
// [...]}; records only with --records) or csv (a first column "source",
// lines or records).
func WriteOrch(w io.Writer, format string, o *Orch) error {
	switch format {
	case FormatJSON:
		doc := struct {
			Lines   []orchJSON `json:"host_orch"`
			Records []orchJSON `json:"records,omitempty"`
		}{Lines: orchJSONRows(o.Lines)}
		if o.Records != nil {
			doc.Records = orchJSONRows(o.Records)
		}
		return document.WriteJSON(w, doc)
	case FormatCSV:
		t := &document.Table{Header: append([]string{"source"}, "kind", "passes", "warm_passes", "count_per_pass", "count", "total_us",
			"per_op_min_us", "per_op_median_us", "per_op_max_us")}
		for _, s := range []struct {
			name string
			rows []phases.OrchRow
		}{{"host-orch", o.Lines}, {"records", o.Records}} {
			for _, r := range orchJSONRows(s.rows) {
				t.AddRow(s.name, r.Kind, fmt.Sprint(r.Passes), fmt.Sprint(r.Warm), shortest(r.CountPerPass), fmt.Sprint(r.Count),
					shortest(r.TotalUS), shortest(r.PerOpMinUS), shortest(r.PerOpMedUS), shortest(r.PerOpMaxUS))
			}
		}
		return writeGridCSV(w, t)
	case FormatMarkdown:
		for i, t := range o.tables() {
			if i > 0 {
				if _, err := io.WriteString(w, "\n"); err != nil {
					return err
				}
			}
			if err := writeGridMarkdown(w, t); err != nil {
				return err
			}
		}
		return nil
	}
	var b strings.Builder
	for i, t := range o.tables() {
		if i > 0 {
			b.WriteString("\n")
		}
		writeAligned(&b, t)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeAligned writes t's title, then its header and rows in columns two
// spaces apart, aligned as t.Align says.
func writeAligned(b *strings.Builder, t *document.Table) {
	width := make([]int, len(t.Header))
	for _, r := range append([][]string{t.Header}, t.Rows...) {
		for i, c := range r {
			width[i] = max(width[i], len([]rune(c)))
		}
	}
	if t.Title != "" {
		b.WriteString(t.Title + "\n")
	}
	for _, r := range append([][]string{t.Header}, t.Rows...) {
		cells := make([]string, len(r))
		for i, c := range r {
			if i < len(t.Align) && t.Align[i] == document.Right {
				cells[i] = rjust(c, width[i])
			} else {
				cells[i] = ljust(c, width[i])
			}
		}
		b.WriteString(strings.TrimRight("  "+strings.Join(cells, "  "), " ") + "\n")
	}
}
