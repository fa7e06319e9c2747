package main

import (
	"bytes"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

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

Output formats (--format):
  text      the reference layout, byte for byte
  markdown  a GitHub table of the rounds, then a table of the averages
  json      {"callable", "columns": [{"name", "unit", "key"}],
            "rows": [{"round", "pid", "inv", "<key>": value}],
            "averages": [{"metric", "value", "unit", "n", "of"}],
            "trimmed": null or {"dropped_low", "dropped_high",
            "rounds_used", "averages": [...]}}; keys are like "host_us";
            with --per-rank: {"ranks": [{"pid", ...the same fields}]}
  csv       header round,pid,inv,host_us,...; one line per round (per
            rank with --per-rank, rounds counted per rank)`,
		Example: `  hbgtrace rounds host.log
  hbgtrace rounds --per-rank spool/
  hbgtrace rounds --format json host.log.gz`,
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
	return cmd
}

func roundsRun(cmd *cobra.Command, opts *roundsOptions) error {
	l, err := readLog(cmd, opts.logs)
	if err != nil {
		return err
	}
	printWarnings(cmd, l)
	invs := trace.GroupInvocations(trace.InvocationSpans(l.Spans))
	var b bytes.Buffer
	if opts.perRank {
		err = writeRoundsPerRank(&b, opts.format, phases.ComputeRoundsPerRank(invs))
	} else {
		err = writeRounds(&b, opts.format, phases.ComputeRounds(invs))
	}
	if err != nil {
		return fmt.Errorf("rounds: %w", err)
	}
	_, err = cmd.OutOrStdout().Write(b.Bytes())
	return err
}

// writeRounds writes one rounds table in format.
func writeRounds(w io.Writer, format string, r *phases.Rounds) error {
	switch format {
	case formatJSON:
		return writeJSON(w, roundsDoc(r, nil))
	case formatCSV:
		return writeCSVTable(w, roundsCSV([]*phases.Rounds{r}))
	case formatMarkdown:
		return writeRoundsMarkdown(w, "", r)
	}
	if len(r.Rows) == 0 {
		_, err := fmt.Fprintln(w, noMarkers)
		return err
	}
	return writeRoundsText(w, r, r.Columns)
}

// writeRoundsPerRank writes one table per rank in format.
func writeRoundsPerRank(w io.Writer, format string, ranks []phases.RankRounds) error {
	switch format {
	case formatJSON:
		doc := roundsRanksJSON{Ranks: []roundsJSON{}}
		for _, rr := range ranks {
			pid := rr.Pid
			doc.Ranks = append(doc.Ranks, roundsDoc(rr.Rounds, &pid))
		}
		return writeJSON(w, doc)
	case formatCSV:
		var rs []*phases.Rounds
		for _, rr := range ranks {
			rs = append(rs, rr.Rounds)
		}
		return writeCSVTable(w, roundsCSV(rs))
	}
	if len(ranks) == 0 {
		_, err := fmt.Fprintln(w, noMarkers)
		return err
	}
	for i, rr := range ranks {
		if i > 0 {
			if _, err := io.WriteString(w, "\n"); err != nil {
				return err
			}
		}
		title := fmt.Sprintf("pid %d:", rr.Pid)
		if format == formatMarkdown {
			if err := writeRoundsMarkdown(w, title, rr.Rounds); err != nil {
				return err
			}
			continue
		}
		if _, err := fmt.Fprintln(w, title); err != nil {
			return err
		}
		if err := writeRoundsText(w, rr.Rounds, rr.Rounds.Columns); err != nil {
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
	return strings.ToLower(c.Name) + "_" + c.Unit
}

// writeRoundsText writes r in the reference layout (REFERENCE §3.4) with
// the given columns; the Avg and trimmed lines are r's, whatever columns
// are printed. r must have rows.
func writeRoundsText(w io.Writer, r *phases.Rounds, cols []phases.Column) error {
	var b strings.Builder
	header := "  " + ljust("Round", 6)
	for _, c := range cols {
		header += "  " + rjust(roundsLabel(c), 12)
	}
	b.WriteString(header)
	b.WriteString("\n  ")
	b.WriteString(strings.Repeat("-", len(header)-2))
	b.WriteString("\n")
	for i, row := range r.Rows {
		b.WriteString("  ")
		b.WriteString(ljust(strconv.Itoa(row.Round), 6))
		for _, c := range cols {
			b.WriteString("  ")
			b.WriteString(rjust(fixed1(c.Values[i]), 12))
		}
		b.WriteString("\n")
	}
	for i, a := range r.Averages {
		sep := "  |  "
		if i == 0 {
			sep = "  "
		}
		fmt.Fprintf(&b, "%sAvg %s: %s %s", sep, a.Metric, fixed1(a.Value), a.Unit)
		if a.Metric == phases.MetricDevice {
			fmt.Fprintf(&b, " [%d/%d]", a.N, a.Of)
		}
	}
	fmt.Fprintf(&b, "  (%d rounds)\n", len(r.Rows))
	if t := r.Trimmed; t != nil {
		for i, a := range t.Averages {
			sep := "  |  "
			if i == 0 {
				sep = "  "
			}
			fmt.Fprintf(&b, "%sTrimmed Avg %s: %s %s", sep, a.Metric, fixed1(a.Value), a.Unit)
		}
		fmt.Fprintf(&b, "  (dropped %d low + %d high, %d rounds used)\n", t.Low, t.High, t.Used)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeRoundsMarkdown writes the rounds of r as a GitHub table, then its
// averages as a second table; with no rows, the no-markers line.
func writeRoundsMarkdown(w io.Writer, title string, r *phases.Rounds) error {
	if len(r.Rows) == 0 {
		_, err := fmt.Fprintln(w, noMarkers)
		return err
	}
	t := &table{Title: title, Header: []string{"Round", "pid", "inv"}, Right: []bool{true, true, true}}
	for _, c := range r.Columns {
		t.Header = append(t.Header, roundsLabel(c))
		t.Right = append(t.Right, true)
	}
	for i, row := range r.Rows {
		cells := []string{strconv.Itoa(row.Round), strconv.FormatInt(row.Pid, 10), strconv.FormatUint(row.Inv, 10)}
		for _, c := range r.Columns {
			cells = append(cells, fixed1(c.Values[i]))
		}
		t.addRow(cells...)
	}
	if err := writeMarkdownTable(w, t); err != nil {
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
	return writeMarkdownTable(w, avg)
}

// roundsJSON is the json document of one rounds table.
type roundsJSON struct {
	Pid      *int64              `json:"pid,omitempty"`
	Callable string              `json:"callable"`
	Columns  []roundsColumnJSON  `json:"columns"`
	Rows     []roundsRowJSON     `json:"rows"`
	Averages []roundsAverageJSON `json:"averages"`
	Trimmed  *roundsTrimmedJSON  `json:"trimmed"`
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

// roundsDoc is the json document of r; pid is set for a per-rank table.
func roundsDoc(r *phases.Rounds, pid *int64) roundsJSON {
	doc := roundsJSON{
		Pid:      pid,
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
	if t := r.Trimmed; t != nil {
		doc.Trimmed = &roundsTrimmedJSON{
			DroppedLow:  t.Low,
			DroppedHigh: t.High,
			RoundsUsed:  t.Used,
			Averages:    roundsAveragesJSON(t.Averages),
		}
	}
	return doc
}

// roundsCSV is the csv table of one or several rounds tables: the header
// of the first table with columns (Host alone when none has rows), then
// every row. Tables of different columns (per rank) leave cells empty.
func roundsCSV(rs []*phases.Rounds) *table {
	var keys []string
	seen := map[string]bool{}
	for _, r := range rs {
		for _, c := range r.Columns {
			if k := roundsKey(c); !seen[k] {
				seen[k] = true
				keys = append(keys, k)
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
	t := &table{Header: append([]string{"round", "pid", "inv"}, keys...)}
	for _, r := range rs {
		for i, row := range r.Rows {
			cells := []string{strconv.Itoa(row.Round), strconv.FormatInt(row.Pid, 10), strconv.FormatUint(row.Inv, 10)}
			for _, k := range keys {
				cell := ""
				for _, c := range r.Columns {
					if roundsKey(c) == k {
						cell = shortest(c.Values[i])
					}
				}
				cells = append(cells, cell)
			}
			t.addRow(cells...)
		}
	}
	return t
}
