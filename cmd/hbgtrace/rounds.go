package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/hbgkit/hbgkit/phases"
	"github.com/hbgkit/hbgkit/trace"
	"github.com/spf13/cobra"
)

// noMarkers is what the table views print when the log has nothing to show.
const noMarkers = "No [STRACE] markers found."

// roundsOptions are the flags and arguments of `hbgtrace rounds`.
type roundsOptions struct {
	logs    []string
	perRank bool
	format  string
	records []string // host_phase_records.jsonl artifacts
}

func newRoundsCmd() *cobra.Command {
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
            data the HBG columns (empty: not recorded) and cold`,
		Example: `  hbgtrace rounds host.log
  hbgtrace rounds --per-rank spool/
  hbgtrace rounds --format json host.log.gz
  hbgtrace rounds host.log --records out/host_phase_records.jsonl`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.logs = args
			if err := checkFormat(cmd, opts.format); err != nil {
				return err
			}
			return roundsRun(cmd, opts)
		},
	}
	addFormatFlag(cmd, &opts.format)
	cmd.Flags().BoolVar(&opts.perRank, "per-rank", false, "one table per pid")
	cmd.Flags().StringArrayVar(&opts.records, "records", nil,
		"a host_phase_records.jsonl `FILE` (repeatable)")
	return cmd
}

func roundsRun(cmd *cobra.Command, opts *roundsOptions) error {
	// The table keeps per invocation only what a row reads, and the
	// accounting the bind passes' segments: the log streams through.
	rc := phases.NewRoundsCollector()
	bc := phases.NewBindPassCollector()
	if len(opts.records) > 0 {
		rps, warns, err := trace.LoadPhaseRecordsWarn(opts.records)
		if err != nil {
			return err
		}
		for _, w := range warns {
			fmt.Fprintln(cmd.ErrOrStderr(), w)
		}
		bc.Records(rps)
	}
	l, err := streamLog(cmd, opts.logs, trace.ReadOptions{
		Kinds:      warningKinds | trace.Kinds(trace.KindSpan, trace.KindBindPhase),
		KeepSpan:   phases.RoundsReads,
		FirstSpans: phases.RoundsSpan,
	}, trace.Visitors{
		Span:      func(s *trace.Span) { rc.Add(s); bc.Span(s) },
		BindPhase: bc.BindPhase,
	})
	if err != nil {
		return err
	}
	printWarnings(cmd, l)
	var tables []*roundsTable
	if opts.perRank {
		for _, rr := range rc.RoundsPerRank() {
			pid := rr.Pid
			tables = append(tables, newRoundsTable(rr.Rounds, bc, &pid))
		}
	} else {
		tables = append(tables, newRoundsTable(rc.Rounds(), bc, nil))
	}
	for _, t := range tables {
		for _, w := range t.warnings() {
			fmt.Fprintln(cmd.ErrOrStderr(), w)
		}
	}
	// Tables of a long log run to megabytes: write them through a buffer
	// rather than build them in memory.
	b := bufio.NewWriterSize(cmd.OutOrStdout(), 64<<10)
	if opts.perRank {
		err = writeRoundsPerRank(b, opts.format, tables)
	} else {
		err = writeRounds(b, opts.format, tables[0])
	}
	if err != nil {
		return fmt.Errorf("rounds: %w", err)
	}
	return b.Flush()
}

// A roundsTable is one rounds table and the HBG bind accounting of its
// rows.
type roundsTable struct {
	pid *int64 // the rank of a --per-rank table
	r   *phases.Rounds
	// acct is the accounting, one pass per row; nil when no pass records
	// HostOrch, and the table is then the reference's.
	acct *phases.Accounting
}

// newRoundsTable pairs r with the accounting of the bind passes of its
// rows.
func newRoundsTable(r *phases.Rounds, passes *phases.BindPassCollector, pid *int64) *roundsTable {
	t := &roundsTable{pid: pid, r: r}
	if len(r.Rows) > 0 {
		if a := passes.Accounting(r.Rows); a.Active() {
			t.acct = a
		}
	}
	return t
}

// warnings returns the accounting's warnings, the block named with the
// pid in a per-rank table.
func (t *roundsTable) warnings() []string {
	if t.acct == nil {
		return nil
	}
	if t.pid != nil {
		return t.acct.WarningsIn(fmt.Sprintf("pid %d", *t.pid))
	}
	return t.acct.Warnings()
}

// writeRounds writes one rounds table in format.
func writeRounds(w io.Writer, format string, t *roundsTable) error {
	switch format {
	case formatJSON:
		return writeJSON(w, roundsDoc(t))
	case formatCSV:
		return writeCSVTable(w, roundsCSV([]*roundsTable{t}))
	case formatMarkdown:
		return writeRoundsMarkdown(w, "", t)
	}
	if len(t.r.Rows) == 0 {
		_, err := fmt.Fprintln(w, noMarkers)
		return err
	}
	return writeRoundsText(w, t)
}

// writeRoundsPerRank writes one table per rank in format.
func writeRoundsPerRank(w io.Writer, format string, tables []*roundsTable) error {
	switch format {
	case formatJSON:
		doc := roundsRanksJSON{Ranks: []roundsJSON{}}
		for _, t := range tables {
			doc.Ranks = append(doc.Ranks, roundsDoc(t))
		}
		return writeJSON(w, doc)
	case formatCSV:
		return writeCSVTable(w, roundsCSV(tables))
	}
	if len(tables) == 0 {
		_, err := fmt.Fprintln(w, noMarkers)
		return err
	}
	for i, t := range tables {
		if i > 0 {
			if _, err := io.WriteString(w, "\n"); err != nil {
				return err
			}
		}
		title := fmt.Sprintf("pid %d:", *t.pid)
		if format == formatMarkdown {
			if err := writeRoundsMarkdown(w, title, t); err != nil {
				return err
			}
			continue
		}
		if _, err := fmt.Fprintln(w, title); err != nil {
			return err
		}
		if err := writeRoundsText(w, t); err != nil {
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

// writeRoundsText writes t in the reference layout (REFERENCE §3.4); t
// must have rows. The HBG columns follow the reference columns, each cell
// right-aligned under the end of its label: the reference's own cells
// keep their width of 12 even under a longer label (Effective (us)), so
// the HBG cells are placed by the header, not by a fixed width. The Avg
// and trimmed lines are the reference columns' alone; the share blocks
// follow them.
func writeRoundsText(w io.Writer, t *roundsTable) error {
	r := t.r
	b := bufio.NewWriterSize(w, 64<<10)
	header := "  " + ljust("Round", 6)
	for _, c := range r.Columns {
		header += "  " + rjust(roundsLabel(c), 12)
	}
	var ends []int // where each HBG label ends in the header, in runes
	if t.acct != nil {
		for _, l := range t.acct.ColumnLabels() {
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
			cell = strconv.AppendFloat(cell[:0], c.Values[i], 'f', 1, 64)
			line = appendPadded(append(line, "  "...), cell, 12)
		}
		for j, s := range vis {
			cell = cell[:0]
			if v, ok := t.acct.Metrics[i].Get(s); ok {
				cell = strconv.AppendFloat(cell, float64(v)/1000, 'f', 1, 64)
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
		b.WriteString(t.acct.SharesText())
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
func writeRoundsMarkdown(w io.Writer, title string, t *roundsTable) error {
	r := t.r
	if len(r.Rows) == 0 {
		_, err := fmt.Fprintln(w, noMarkers)
		return err
	}
	tb := &table{Title: title, Header: []string{"Round", "pid", "inv"}, Right: []bool{true, true, true}}
	for _, c := range r.Columns {
		tb.Header = append(tb.Header, roundsLabel(c))
		tb.Right = append(tb.Right, true)
	}
	if t.acct != nil {
		for _, l := range t.acct.ColumnLabels() {
			tb.Header = append(tb.Header, l)
			tb.Right = append(tb.Right, true)
		}
	}
	for i, row := range r.Rows {
		cells := []string{strconv.Itoa(row.Round), strconv.FormatInt(row.Pid, 10), strconv.FormatUint(row.Inv, 10)}
		for _, c := range r.Columns {
			cells = append(cells, fixed1(c.Values[i]))
		}
		if t.acct != nil {
			cells = append(cells, t.acct.Cells(i)...)
		}
		tb.addRow(cells...)
	}
	if err := writeMarkdownTable(w, tb); err != nil {
		return err
	}
	avg := &table{Header: []string{"Average", "Value", "Unit", "Rounds"}, Right: []bool{false, true, false, true}}
	for _, a := range r.Averages {
		avg.addRow(a.Metric, fixed1(a.Value), a.Unit, fmt.Sprintf("%d of %d", a.N, a.Of))
	}
	if tr := r.Trimmed; tr != nil {
		for _, a := range tr.Averages {
			avg.addRow("Trimmed "+a.Metric, fixed1(a.Value), a.Unit,
				fmt.Sprintf("%d of %d (dropped %d low + %d high)", a.N, a.Of, tr.Low, tr.High))
		}
	}
	if _, err := io.WriteString(w, "\n"); err != nil {
		return err
	}
	if err := writeMarkdownTable(w, avg); err != nil {
		return err
	}
	if t.acct == nil {
		return nil
	}
	for _, blk := range t.acct.Blocks() {
		if err := writeRoundsBlockMarkdown(w, blk); err != nil {
			return err
		}
	}
	_, err := fmt.Fprintf(w, "\n%s\n", t.acct.ColdVsWarm())
	return err
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
	tb := &table{Title: title, Header: []string{"Stage", "Mean (us)", "Share", "Note"}, Right: []bool{false, true, true, false}}
	top, hasTop := blk.Top()
	for _, s := range phases.ShareStages {
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
		tb.addRow(s.Label(), fixed1(blk.Mean[s]), share, note)
	}
	if blk.Present[phases.StageGate] {
		tb.addRow("Gate(HostOrch+H2dImage)", fixed1(blk.Mean[phases.StageGate]), "",
			fmt.Sprintf("target <= %.0f us", phases.GateTargetUS))
	}
	if blk.Present[phases.StageControlPlane] {
		tb.addRow(phases.StageControlPlane.Label(), fixed1(blk.Mean[phases.StageControlPlane]), "", "")
	}
	if _, err := io.WriteString(w, "\n"); err != nil {
		return err
	}
	return writeMarkdownTable(w, tb)
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
	HBG *phases.AccountingDoc `json:"hbg_accounting,omitempty"`
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
func roundsDoc(t *roundsTable) roundsJSON {
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
		d := t.acct.Doc()
		if w := t.warnings(); w != nil {
			d.Warnings = w
		}
		doc.HBG = &d
	}
	return doc
}

// roundsCSV is the csv table of one or several rounds tables: the header
// of the first table with columns (Host alone when none has rows), then
// every row. Tables of different columns (per rank) leave cells empty.
// With HBG data in some table, the HBG columns follow (an empty cell: the
// round did not record the stage), then cold.
func roundsCSV(ts []*roundsTable) *table {
	var keys []string
	seen := map[string]bool{}
	var hbg [phases.NumBindStages]bool
	anyHBG := false
	for _, t := range ts {
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
	rank := func(k string) int {
		for i, m := range []string{phases.MetricHost, phases.MetricDevice, phases.MetricEffective, phases.MetricOrch, phases.MetricSched} {
			if k == roundsKey(phases.Column{Name: m, Unit: phases.UnitMicros}) {
				return i
			}
		}
		return 5
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
	out := &table{Header: header}
	for _, t := range ts {
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
			out.addRow(cells...)
		}
	}
	return out
}
