package report

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/hbgkit/hbgkit/internal/document"
	"github.com/hbgkit/hbgkit/phases"
)

// The views of `hbgtrace rounds`: strace_timing --rounds-table's layout,
// with the HBG columns and share blocks when the log records HBG binds,
// and its markdown, csv and json forms.

// A RoundsTable is one table of `hbgtrace rounds` and the HBG bind
// accounting of its rows.
type RoundsTable struct {
	pid *int64 // the rank of a --per-rank table
	r   *phases.Rounds
	// acct is the accounting, one pass per row; nil when no pass records
	// HostOrch, and the table is then the reference's.
	acct *phases.Accounting
	// ev is the counters and work of the rows' passes; nil when not asked
	// for (NewRoundsTable's evidence).
	ev *phases.EvidenceTable
	// Counters adds the counters block to the text format (--counters);
	// the other formats carry the evidence whenever the table has it.
	Counters bool
}

// NewRoundsTable pairs r with the accounting of the bind passes of its
// rows and, with evidence, their counters and work (the collector must
// keep them: BindPassCollector.KeepEvidence); pid names the rank of a
// --per-rank table, nil for the one table.
func NewRoundsTable(r *phases.Rounds, passes *phases.BindPassCollector, pid *int64, evidence bool) *RoundsTable {
	t := &RoundsTable{pid: pid, r: r}
	if len(r.Rows) > 0 {
		if a := passes.Accounting(r.Rows); a.Active() {
			t.acct = a
		}
		if evidence {
			t.ev = passes.Evidence(r.Rows)
		}
	}
	return t
}

// EvidenceWarnings returns the counted warnings of the rows' counters and
// work (for stderr, after Warnings).
func (t *RoundsTable) EvidenceWarnings() []string {
	if t.ev == nil {
		return nil
	}
	return evidenceWarningsDoc(t.ev)
}

// hasEvidence reports whether some row's pass has a counter or work
// attribute.
func (t *RoundsTable) hasEvidence() bool { return t.ev != nil && !t.ev.Empty() }

// Warnings returns the accounting's warnings (for stderr), the block
// named with the pid in a per-rank table.
func (t *RoundsTable) Warnings() []string {
	if t.acct == nil {
		return nil
	}
	if t.pid != nil {
		return t.acct.WarningsIn(fmt.Sprintf("pid %d", *t.pid))
	}
	return t.acct.Warnings()
}

// WriteRounds writes one rounds table in format.
func WriteRounds(w io.Writer, format string, t *RoundsTable) error {
	switch format {
	case FormatJSON:
		return document.WriteJSON(w, roundsDoc(t))
	case FormatCSV:
		return writeGridCSV(w, roundsCSV([]*RoundsTable{t}))
	case FormatMarkdown:
		return writeRoundsMarkdown(w, "", t)
	}
	if len(t.r.Rows) == 0 {
		return writeNoMarkers(w)
	}
	return WriteRoundsText(w, t)
}

// WriteRoundsPerRank writes the tables of --per-rank, one per rank, in
// format.
func WriteRoundsPerRank(w io.Writer, format string, tables []*RoundsTable) error {
	switch format {
	case FormatJSON:
		doc := roundsRanksJSON{Ranks: []roundsJSON{}}
		for _, t := range tables {
			doc.Ranks = append(doc.Ranks, roundsDoc(t))
		}
		return document.WriteJSON(w, doc)
	case FormatCSV:
		return writeGridCSV(w, roundsCSV(tables))
	}
	if len(tables) == 0 {
		return writeNoMarkers(w)
	}
	for i, t := range tables {
		if i > 0 {
			if _, err := io.WriteString(w, "\n"); err != nil {
				return err
			}
		}
		title := fmt.Sprintf("pid %d:", *t.pid)
		if format == FormatMarkdown {
			if err := writeRoundsMarkdown(w, title, t); err != nil {
				return err
			}
			continue
		}
		if _, err := fmt.Fprintln(w, title); err != nil {
			return err
		}
		if err := WriteRoundsText(w, t); err != nil {
			return err
		}
	}
	return nil
}

// roundsLabel is a column's header label, "<Name> (<Unit>)".
func roundsLabel(c phases.Column) string {
	return c.Name + " (" + c.Unit + ")"
}

// roundsKey is a column's key in json rows and its csv header, e.g. host_us.
func roundsKey(c phases.Column) string {
	return c.Key()
}

// WriteRoundsText writes t in the reference layout (docs/accounting.md
// "What `hbgtrace rounds` prints"); t
// must have rows. The HBG columns follow the reference columns, each cell
// right-aligned under the end of its label: the reference's own cells
// keep their width of 12 even under a longer label (Effective (us)), so
// the HBG cells are placed by the header, not by a fixed width. The Avg
// and trimmed lines are the reference columns' alone; the share blocks
// follow them.
func WriteRoundsText(w io.Writer, t *RoundsTable) error {
	r := t.r
	b := bufio.NewWriterSize(w, 64<<10)
	header := "  " + ljust("Round", 6)
	for _, c := range r.Columns {
		header += "  " + rjust(roundsLabel(c), 12)
	}
	var ends []int // where each HBG label ends in the header, in runes
	if t.acct != nil {
		for _, l := range accountingColumnLabels(t.acct) {
			header += "  " + rjust(l, 12)
			ends = append(ends, utf8.RuneCountInString(header))
		}
	}
	b.WriteString(header)
	b.WriteString("\n  ")
	b.WriteString(strings.Repeat("-", len(header)-2))
	b.WriteString("\n")
	// One row at a time into a reused buffer, numbers appended in place:
	// the same bytes as ljust, rjust(fixed1(...)) and Accounting.Cells,
	// without a string per cell (a long log has 10^5 rows).
	var vis []phases.BindStage
	if t.acct != nil {
		vis = t.acct.Visible()
	}
	var line, cell []byte
	for i, row := range r.Rows {
		line = append(append(line[:0], "  "...), ljust(strconv.Itoa(row.Round), 6)...)
		for _, c := range r.Columns {
			cell = appendFixed1(cell[:0], c.Values[i])
			line = appendPadded(append(line, "  "...), cell, 12)
		}
		for j, s := range vis {
			cell = cell[:0]
			if v, ok := t.acct.Metrics[i].Get(s); ok {
				cell = appendNsMicros1(cell, v)
			} else {
				cell = append(cell, '-')
			}
			// A row is ASCII (digits, '.', '-', spaces): bytes are runes.
			pad := max(2, ends[j]-len(line)-len(cell))
			line = appendPadded(line, cell, pad+len(cell))
		}
		line = append(line, '\n')
		b.Write(line)
	}
	for i, a := range r.Averages {
		sep := "  |  "
		if i == 0 {
			sep = "  "
		}
		fmt.Fprintf(b, "%sAvg %s: %s %s", sep, a.Metric, fixed1(a.Value), a.Unit)
		if a.Metric == phases.MetricDevice {
			fmt.Fprintf(b, " [%d/%d]", a.N, a.Of)
		}
	}
	fmt.Fprintf(b, "  (%d rounds)\n", len(r.Rows))
	if tr := r.Trimmed; tr != nil {
		for i, a := range tr.Averages {
			sep := "  |  "
			if i == 0 {
				sep = "  "
			}
			fmt.Fprintf(b, "%sTrimmed Avg %s: %s %s", sep, a.Metric, fixed1(a.Value), a.Unit)
		}
		fmt.Fprintf(b, "  (dropped %d low + %d high, %d rounds used)\n", tr.Low, tr.High, tr.Used)
	}
	if t.acct != nil {
		b.WriteString(sharesText(t.acct))
	}
	if t.Counters && t.ev != nil {
		b.WriteString(evidenceText(t.ev, t.evidenceRows(), nil, roundsWhat))
	}
	return b.Flush()
}

// appendPadded appends cell (ASCII) to dst right-justified in width, as
// rjust does.
func appendPadded(dst, cell []byte, width int) []byte {
	for n := len(cell); n < width; n++ {
		dst = append(dst, ' ')
	}
	return append(dst, cell...)
}

// writeRoundsMarkdown writes the rounds of t as a GitHub table (the HBG
// columns after the reference ones, "-" where a round did not record the
// stage), then its averages as a second table, then, with HBG data, one
// table per share block and the cold-vs-warm line; with no rows, the
// no-markers line.
func writeRoundsMarkdown(w io.Writer, title string, t *RoundsTable) error {
	r := t.r
	if len(r.Rows) == 0 {
		return writeNoMarkers(w)
	}
	tb := &document.Table{Title: title, Header: []string{"Round", "pid", "inv"}, Align: rightAligned(3)}
	for _, c := range r.Columns {
		tb.Header = append(tb.Header, roundsLabel(c))
		tb.Align = append(tb.Align, document.Right)
	}
	if t.acct != nil {
		for _, l := range accountingColumnLabels(t.acct) {
			tb.Header = append(tb.Header, l)
			tb.Align = append(tb.Align, document.Right)
		}
	}
	for i, row := range r.Rows {
		cells := []string{strconv.Itoa(row.Round), strconv.FormatInt(row.Pid, 10), strconv.FormatUint(row.Inv, 10)}
		for _, c := range r.Columns {
			cells = append(cells, fixed1(c.Values[i]))
		}
		if t.acct != nil {
			cells = append(cells, accountingCells(t.acct, i)...)
		}
		tb.AddRow(cells...)
	}
	if err := writeGridMarkdown(w, tb); err != nil {
		return err
	}
	avg := &document.Table{Header: []string{"Average", "Value", "Unit", "Rounds"}, Align: []document.Align{document.Left, document.Right, document.Left, document.Right}}
	for _, a := range r.Averages {
		avg.AddRow(a.Metric, fixed1(a.Value), a.Unit, fmt.Sprintf("%d of %d", a.N, a.Of))
	}
	if tr := r.Trimmed; tr != nil {
		for _, a := range tr.Averages {
			avg.AddRow("Trimmed "+a.Metric, fixed1(a.Value), a.Unit,
				fmt.Sprintf("%d of %d (dropped %d low + %d high)", a.N, a.Of, tr.Low, tr.High))
		}
	}
	if _, err := io.WriteString(w, "\n"); err != nil {
		return err
	}
	if err := writeGridMarkdown(w, avg); err != nil {
		return err
	}
	if t.acct != nil {
		for _, blk := range t.acct.Blocks() {
			if err := writeRoundsBlockMarkdown(w, blk); err != nil {
				return err
			}
		}
		if _, err := fmt.Fprintf(w, "\n%s\n", coldVsWarm(t.acct)); err != nil {
			return err
		}
	}
	if !t.hasEvidence() {
		return nil
	}
	s, err := evidenceMarkdown(t.ev, t.evidenceRows(), nil, roundsWhat)
	if err != nil {
		return err
	}
	_, err = io.WriteString(w, s)
	return err
}

// evidenceRows is the rows table of the counters block, rows named by
// their round.
func (t *RoundsTable) evidenceRows() []evidenceRows {
	return evidenceRowsTables(t.ev, "Round", func(i int) string { return strconv.Itoa(t.r.Rows[i].Round) })
}

// writeRoundsBlockMarkdown writes one share block as a titled table:
// Stage, Mean (us), Share and a note ("top", the Gate target).
func writeRoundsBlockMarkdown(w io.Writer, blk *phases.AccountingBlock) error {
	title := fmt.Sprintf("HBG bind accounting, %s (n=%d of %d)", blk.Title, blk.K(), blk.M())
	switch {
	case blk.M() == 0:
		_, err := fmt.Fprintf(w, "\n%s: no rounds\n", title)
		return err
	case blk.K() == 0:
		_, err := fmt.Fprintf(w, "\n%s: no round records every stage the block records\n", title)
		return err
	}
	tb := &document.Table{Title: title, Header: []string{"Stage", "Mean (us)", "Share", "Note"}, Align: []document.Align{document.Left, document.Right, document.Right, document.Left}}
	top, hasTop := blk.Top()
	for _, s := range phases.ShareStageList() {
		if !blk.Present[s] {
			continue
		}
		share := ""
		if pct, ok := blk.Share(s); ok {
			share = fmt.Sprintf("%.1f%%", pct)
		}
		note := ""
		if hasTop && s == top {
			note = "top"
		}
		tb.AddRow(s.Label(), fixed1(blk.Mean[s]), share, note)
	}
	if blk.Present[phases.StageGate] {
		tb.AddRow(gateLabel, fixed1(blk.Mean[phases.StageGate]), "",
			fmt.Sprintf("target <= %.0f us", phases.GateTargetUS))
	}
	if blk.Present[phases.StageControlPlane] {
		tb.AddRow(phases.StageControlPlane.Label(), fixed1(blk.Mean[phases.StageControlPlane]), "", "")
	}
	if _, err := io.WriteString(w, "\n"); err != nil {
		return err
	}
	return writeGridMarkdown(w, tb)
}

// roundsJSON is the json document of one rounds table.
type roundsJSON struct {
	Pid      *int64              `json:"pid,omitempty"`
	Callable string              `json:"callable"`
	Columns  []roundsColumnJSON  `json:"columns"`
	Rows     []roundsRowJSON     `json:"rows"`
	Averages []roundsAverageJSON `json:"averages"`
	Trimmed  *roundsTrimmedJSON  `json:"trimmed"`
	// HBG is the HBG bind accounting of the rows; absent without HBG data.
	HBG *accountingDoc `json:"hbg_accounting,omitempty"`
	// Evidence is the counters and work of the rows' passes; absent when
	// no pass has any.
	Evidence *roundsEvidenceDoc `json:"evidence,omitempty"`
}

type roundsRanksJSON struct {
	Ranks []roundsJSON `json:"ranks"`
}

type roundsColumnJSON struct {
	Name string `json:"name"`
	Unit string `json:"unit"`
	Key  string `json:"key"`
}

type roundsAverageJSON struct {
	Metric string  `json:"metric"`
	Value  float64 `json:"value"`
	Unit   string  `json:"unit"`
	N      int     `json:"n"`
	Of     int     `json:"of"`
}

type roundsTrimmedJSON struct {
	DroppedLow  int                 `json:"dropped_low"`
	DroppedHigh int                 `json:"dropped_high"`
	RoundsUsed  int                 `json:"rounds_used"`
	Averages    []roundsAverageJSON `json:"averages"`
}

// roundsRowJSON is one row: round, pid, inv, then one key per column, in
// column order.
type roundsRowJSON struct {
	round int
	pid   int64
	inv   uint64
	keys  []string
	vals  []float64
}

func (r roundsRowJSON) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	fmt.Fprintf(&b, `{"round":%d,"pid":%d,"inv":%d`, r.round, r.pid, r.inv)
	for i, k := range r.keys {
		fmt.Fprintf(&b, `,%q:%s`, k, strconv.FormatFloat(r.vals[i], 'g', -1, 64))
	}
	b.WriteString("}")
	return b.Bytes(), nil
}

func roundsAveragesJSON(as []phases.Average) []roundsAverageJSON {
	out := []roundsAverageJSON{}
	for _, a := range as {
		out = append(out, roundsAverageJSON{Metric: a.Metric, Value: a.Value, Unit: a.Unit, N: a.N, Of: a.Of})
	}
	return out
}

// roundsDoc is the json document of t.
func roundsDoc(t *RoundsTable) roundsJSON {
	r := t.r
	doc := roundsJSON{
		Pid:      t.pid,
		Callable: r.Hid,
		Columns:  []roundsColumnJSON{},
		Rows:     []roundsRowJSON{},
		Averages: roundsAveragesJSON(r.Averages),
	}
	var keys []string
	for _, c := range r.Columns {
		keys = append(keys, roundsKey(c))
		doc.Columns = append(doc.Columns, roundsColumnJSON{Name: c.Name, Unit: c.Unit, Key: roundsKey(c)})
	}
	for i, row := range r.Rows {
		jr := roundsRowJSON{round: row.Round, pid: row.Pid, inv: row.Inv, keys: keys}
		for _, c := range r.Columns {
			jr.vals = append(jr.vals, c.Values[i])
		}
		doc.Rows = append(doc.Rows, jr)
	}
	if tr := r.Trimmed; tr != nil {
		doc.Trimmed = &roundsTrimmedJSON{
			DroppedLow:  tr.Low,
			DroppedHigh: tr.High,
			RoundsUsed:  tr.Used,
			Averages:    roundsAveragesJSON(tr.Averages),
		}
	}
	if t.acct != nil {
		d := newAccountingDoc(t.acct)
		if w := t.Warnings(); w != nil {
			d.Warnings = w
		}
		doc.HBG = &d
	}
	if t.hasEvidence() {
		doc.Evidence = newRoundsEvidenceDoc(t.ev, r.Rows)
	}
	return doc
}

// roundsCSV is the csv table of one or several rounds tables: the header
// of the first table with columns (Host alone when none has rows), then
// every row. Tables of different columns (per rank) leave cells empty.
// With HBG data in some table, the HBG columns follow (an empty cell: the
// round did not record the stage), then cold.
func roundsCSV(ts []*RoundsTable) *document.Table {
	var keys []string
	seen := map[string]bool{}
	var hbg [phases.NumBindStages]bool
	anyHBG := false
	var evCols []phases.EvidenceColumn
	for _, t := range ts {
		if t.hasEvidence() {
			for _, c := range t.ev.Columns {
				if !slices.Contains(evCols, c) {
					evCols = append(evCols, c)
				}
			}
		}
		for _, c := range t.r.Columns {
			if k := roundsKey(c); !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
		if t.acct != nil {
			anyHBG = true
			for _, s := range t.acct.Visible() {
				hbg[s] = true
			}
		}
	}
	if len(keys) == 0 {
		keys = []string{roundsKey(phases.Column{Name: phases.MetricHost, Unit: phases.UnitMicros})}
	}
	// Reference columns in their order, then any others as first seen.
	metrics := phases.RoundsMetrics()
	rank := func(k string) int {
		for i, m := range metrics {
			if k == roundsKey(phases.Column{Name: m, Unit: phases.UnitMicros}) {
				return i
			}
		}
		return len(metrics)
	}
	sort.SliceStable(keys, func(i, j int) bool { return rank(keys[i]) < rank(keys[j]) })
	var stages []phases.BindStage
	for s := range phases.NumBindStages {
		if hbg[s] {
			stages = append(stages, phases.BindStage(s))
		}
	}
	header := append([]string{"round", "pid", "inv"}, keys...)
	for _, s := range stages {
		header = append(header, s.Key())
	}
	if anyHBG {
		header = append(header, "cold")
	}
	sort.SliceStable(evCols, func(i, j int) bool { return evCols[i].Less(evCols[j]) })
	for _, c := range evCols {
		header = append(header, c.Key())
	}
	out := &document.Table{Header: header}
	for _, t := range ts {
		// at[j] is the csv place of the table's evidence column j.
		var at []int
		if t.hasEvidence() {
			at = make([]int, len(t.ev.Columns))
			for j, c := range t.ev.Columns {
				at[j] = slices.Index(evCols, c)
			}
		}
		for i, row := range t.r.Rows {
			cells := []string{strconv.Itoa(row.Round), strconv.FormatInt(row.Pid, 10), strconv.FormatUint(row.Inv, 10)}
			for _, k := range keys {
				cell := ""
				for _, c := range t.r.Columns {
					if roundsKey(c) == k {
						cell = shortest(c.Values[i])
					}
				}
				cells = append(cells, cell)
			}
			for _, s := range stages {
				cell := ""
				if t.acct != nil {
					if v, ok := t.acct.Metrics[i].Get(s); ok {
						cell = shortest(float64(v) / 1000)
					}
				}
				cells = append(cells, cell)
			}
			if anyHBG {
				cell := ""
				if t.acct != nil {
					cell = strconv.FormatBool(t.acct.Cold[i])
				}
				cells = append(cells, cell)
			}
			cells = append(cells, evidenceCSVCells(t, i, len(evCols), at)...)
			out.AddRow(cells...)
		}
	}
	return out
}

// evidenceCSVCells are row i's n cells of the csv's evidence columns,
// empty where the pass does not have the value; at[j] is the place of the
// table's column j (nil: the table has no evidence).
func evidenceCSVCells(t *RoundsTable, i, n int, at []int) []string {
	out := make([]string, n)
	for j, k := range at {
		if v, ok := t.ev.Value(i, j); ok {
			out[k] = strconv.FormatInt(v, 10)
		}
	}
	return out
}
