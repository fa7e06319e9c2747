package report

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/hbgkit/hbgkit/internal/document"
	"github.com/hbgkit/hbgkit/phases"
)

// The counters and work attributes of a table's passes (docs/formats.md,
// "Counters and work"): per pass and segment in `hbgtrace rounds`, as a
// spread in `hbgtrace phases --accounting`, and the discrete events "k of
// N".

// The groups of evidence columns, one table each in `hbgtrace rounds`.
const (
	groupCounters = iota // kernel counters
	groupWork            // work attributes
	groupOther           // open attributes (any other numeric key=value)
)

// evidenceNames returns the names of t's columns of group g, each once:
// counters in CounterNames order, work in WorkNames order, open
// attributes by name.
func evidenceNames(t *phases.EvidenceTable, g int) []string {
	var list []string
	switch g {
	case groupCounters:
		list = phases.CounterNames
	case groupWork:
		list = phases.WorkNames
	default:
		set := map[string]bool{}
		for _, c := range t.Columns {
			if c.IsOther() && !set[c.Name] {
				set[c.Name] = true
				list = append(list, c.Name)
			}
		}
		sort.Strings(list)
		return list
	}
	var out []string
	for _, n := range list {
		for _, c := range t.Columns {
			if c.Name == n {
				out = append(out, n)
				break
			}
		}
	}
	return out
}

// evidenceSegments returns the segments of t's columns (PassTotal first),
// each once, in column order.
func evidenceSegments(t *phases.EvidenceTable) []string {
	var out []string
	for _, c := range t.Columns {
		if len(out) == 0 || out[len(out)-1] != c.Segment {
			out = append(out, c.Segment)
		}
	}
	return out
}

// unitsNote says the units of names: "minflt tminflt: count; cpu_ns: ns
// CPU", units in the order first met.
func unitsNote(names []string) string {
	var units []string
	by := map[string][]string{}
	for _, n := range names {
		u := phases.EvidenceUnit(n)
		if _, ok := by[u]; !ok {
			units = append(units, u)
		}
		by[u] = append(by[u], n)
	}
	parts := make([]string, len(units))
	for i, u := range units {
		parts[i] = strings.Join(by[u], " ") + ": " + u
	}
	return strings.Join(parts, "; ")
}

// An evidenceRows is the counters or the work of each row of a table:
// one line per row and segment with a value (the pass totals first), one
// column per name, "-" where the segment does not have it.
type evidenceRows struct {
	title string
	table *document.Table
}

// evidenceRowsTables returns the counters table and the work table of t
// (those t has); label names a row ("0", the round).
func evidenceRowsTables(t *phases.EvidenceTable, labelHeader string, label func(i int) string) []evidenceRows {
	col := map[phases.EvidenceColumn]int{}
	for j, c := range t.Columns {
		col[c] = j
	}
	segs := evidenceSegments(t)
	var out []evidenceRows
	for _, g := range []int{groupCounters, groupWork, groupOther} {
		names := evidenceNames(t, g)
		if len(names) == 0 {
			continue
		}
		tb := &document.Table{Header: append([]string{labelHeader, "segment"}, names...), Align: append([]document.Align{document.Left, document.Left}, rightAligned(len(names))...)}
		for i := range t.Rows() {
			for _, s := range segs {
				cells := []string{label(i), s}
				found := false
				for _, n := range names {
					cell := "-"
					if j, ok := col[phases.EvidenceColumn{Segment: s, Name: n}]; ok {
						if v, has := t.Value(i, j); has {
							cell, found = strconv.FormatInt(v, 10), true
						}
					}
					cells = append(cells, cell)
				}
				if found {
					tb.AddRow(cells...)
				}
			}
		}
		what := [...]string{"Counters", "Work", "Other attributes"}[g]
		out = append(out, evidenceRows{title: what + " per pass and segment (" + unitsNote(names) + "; - : not written)", table: tb})
	}
	return out
}

// evidenceSpreadTable is the table of `phases --accounting`: per column,
// the min, median and max over the table's warm rows and how many have
// it; num formats a value.
func evidenceSpreadTable(t *phases.EvidenceTable, num func(float64) string) *document.Table {
	tb := &document.Table{Header: []string{"segment", "name", "unit", "min", "median", "max", "n"},
		Align: []document.Align{document.Left, document.Left, document.Left, document.Right, document.Right, document.Right, document.Right}}
	for j, c := range t.Columns {
		lo, med, hi, n := t.Spread(j)
		if c.Segment == phases.PassTotal {
			// A pass total some warm pass lacks (a segment's value cut or
			// missing) says on how many it is known: missing, not 0.
			if w := t.WarmWith(j); n < w {
				cells := []string{"-", "-", "-"}
				if n > 0 {
					cells = []string{num(lo), num(med), num(hi)}
				}
				tb.AddRow(append(append([]string{c.Segment, c.Name, c.Unit()}, cells...), fmt.Sprintf("%d of %d", n, w))...)
				continue
			}
		}
		if n == 0 {
			continue
		}
		tb.AddRow(c.Segment, c.Name, c.Unit(), num(lo), num(med), num(hi), strconv.Itoa(n))
	}
	return tb
}

// eventText says an event in words: "minflt > 0 in host_orch on 2 of 6
// warm binds", "heap_used of host_orch higher than in the pid's previous
// bind on 0 of 4 warm binds"; what names the rows ("warm binds").
func eventText(ev phases.EvidenceEvent, what string) string {
	where := "in " + ev.Column.Segment
	if ev.Column.Segment == phases.PassTotal {
		where = "in the pass"
	}
	if ev.Kind == phases.EventGrew {
		return fmt.Sprintf("%s of %s higher than in the pid's previous bind on %d of %d %s", ev.Column.Name, ev.Column.Segment, ev.K, ev.N, what)
	}
	return fmt.Sprintf("%s > 0 %s on %d of %d %s", ev.Column.Name, where, ev.K, ev.N, what)
}

// eventsTable is the k-of-N table of the discrete counters: one line per
// segment (the pass first), one column per counter, "k of N" where the
// segment writes it. The heap events are not in it (eventLines).
func eventsTable(evs []phases.EvidenceEvent) *document.Table {
	var counters, segs []string
	cell := map[phases.EvidenceColumn]string{}
	for _, ev := range evs {
		if ev.Kind != phases.EventNonZero {
			continue
		}
		if !contains(counters, ev.Column.Name) {
			counters = append(counters, ev.Column.Name)
		}
		if !contains(segs, ev.Column.Segment) {
			segs = append(segs, ev.Column.Segment)
		}
		cell[ev.Column] = fmt.Sprintf("%d of %d", ev.K, ev.N)
	}
	if len(counters) == 0 {
		return nil
	}
	// Counters in CounterNames order.
	var ordered []string
	for _, n := range phases.CounterNames {
		if contains(counters, n) {
			ordered = append(ordered, n)
		}
	}
	tb := &document.Table{Header: []string{"segment"}, Align: []document.Align{document.Left}}
	for _, n := range ordered {
		tb.Header = append(tb.Header, n+" > 0")
		tb.Align = append(tb.Align, document.Right)
	}
	for _, s := range segs {
		cells := []string{s}
		for _, n := range ordered {
			c, ok := cell[phases.EvidenceColumn{Segment: s, Name: n}]
			if !ok {
				c = "-"
			}
			cells = append(cells, c)
		}
		tb.AddRow(cells...)
	}
	return tb
}

// eventLines are the events the k-of-N table does not hold (heap_used
// that grew), in words.
func eventLines(evs []phases.EvidenceEvent, what string) []string {
	var out []string
	for _, ev := range evs {
		if ev.Kind == phases.EventGrew {
			out = append(out, eventText(ev, what))
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// eventsTitle heads the k-of-N table; what names the rows ("warm binds").
func eventsTitle(what string) string {
	return "Discrete events: on how many " + what + " a counter is > 0 (k of N " + what + " that have it)"
}

// writeIndented writes t as writeAligned does, its title indented by two
// spaces like the rows.
func writeIndented(b *strings.Builder, title string, t *document.Table) {
	b.WriteString("  " + title + "\n")
	writeAligned(b, t)
}

// evidenceText is the counters block of the text formats: a blank line,
// the rows table when rows is set (rounds), the spread when spread is
// set (phases), the k-of-N table and the heap lines. A table with no
// evidence says so in one line.
func evidenceText(t *phases.EvidenceTable, rows []evidenceRows, spread *document.Table, what string) string {
	var b strings.Builder
	b.WriteString("\n")
	if t.Empty() {
		b.WriteString("  Counters and work: none written in these passes\n")
		return b.String()
	}
	for i, r := range rows {
		if i > 0 {
			b.WriteString("\n")
		}
		writeIndented(&b, r.title, r.table)
	}
	if spread != nil {
		writeIndented(&b, "Counters and work over the "+strconv.Itoa(t.Warm())+" "+what+" (min / median / max)", spread)
	}
	evs := t.Events()
	if et := eventsTable(evs); et != nil {
		b.WriteString("\n")
		writeIndented(&b, eventsTitle(what), et)
	}
	for _, l := range eventLines(evs, what) {
		b.WriteString("  " + l + "\n")
	}
	return b.String()
}

// evidenceMarkdown is the counters block of markdown: the same tables as
// GitHub tables.
func evidenceMarkdown(t *phases.EvidenceTable, rows []evidenceRows, spread *document.Table, what string) (string, error) {
	var b strings.Builder
	if t.Empty() {
		return "\nCounters and work: none written in these passes\n", nil
	}
	md := func(title string, tb *document.Table) error {
		tb.Title = title
		b.WriteString("\n")
		var s strings.Builder
		if err := writeGridMarkdown(&s, tb); err != nil {
			return err
		}
		b.WriteString(s.String())
		return nil
	}
	for _, r := range rows {
		if err := md(r.title, r.table); err != nil {
			return "", err
		}
	}
	if spread != nil {
		if err := md("Counters and work over the "+strconv.Itoa(t.Warm())+" "+what+" (min / median / max)", spread); err != nil {
			return "", err
		}
	}
	evs := t.Events()
	if et := eventsTable(evs); et != nil {
		if err := md(eventsTitle(what), et); err != nil {
			return "", err
		}
	}
	if lines := eventLines(evs, what); len(lines) > 0 {
		b.WriteString("\n")
		for _, l := range lines {
			b.WriteString(l + "\n")
		}
	}
	return b.String(), nil
}

// evidenceColumnDoc is one column of the json evidence.
type evidenceColumnDoc struct {
	Segment string `json:"segment"` // "pass" for a counter's pass total
	Name    string `json:"name"`
	Unit    string `json:"unit"` // count, ns CPU or bytes
	Key     string `json:"key"`  // its key in the rows: "host_orch.minflt"
}

// evidenceEventDoc is one discrete event: on k of the n warm rows that
// have the value.
type evidenceEventDoc struct {
	Segment string `json:"segment"`
	Name    string `json:"name"`
	Event   string `json:"event"` // nonzero or grew
	K       int    `json:"k"`
	N       int    `json:"n"`
	Text    string `json:"text"`
}

// evidenceWarningsDoc returns the warnings as printed, [] for none.
func evidenceWarningsDoc(t *phases.EvidenceTable) []string {
	out := []string{}
	for _, w := range t.Warnings {
		out = append(out, "warning: "+w.String())
	}
	return out
}

func evidenceColumnsDoc(t *phases.EvidenceTable) []evidenceColumnDoc {
	out := make([]evidenceColumnDoc, 0, len(t.Columns))
	for _, c := range t.Columns {
		out = append(out, evidenceColumnDoc{Segment: c.Segment, Name: c.Name, Unit: c.Unit(), Key: c.Key()})
	}
	return out
}

func evidenceEventsDoc(t *phases.EvidenceTable, what string) []evidenceEventDoc {
	out := []evidenceEventDoc{}
	for _, ev := range t.Events() {
		out = append(out, evidenceEventDoc{Segment: ev.Column.Segment, Name: ev.Column.Name, Event: ev.Kind,
			K: ev.K, N: ev.N, Text: eventText(ev, what)})
	}
	return out
}

// roundsEvidenceDoc is the "evidence" of a rounds table's json: the
// columns, one row per round (null: the pass does not have it), the
// events over the warm rounds and the warnings.
type roundsEvidenceDoc struct {
	Columns  []evidenceColumnDoc `json:"columns"`
	Rows     []evidenceRowDoc    `json:"rows"`
	Events   []evidenceEventDoc  `json:"events"`
	Warnings []string            `json:"warnings"`
}

// evidenceRowDoc is one round: round, pid, inv, cold, then one key per
// column, null when the pass does not have it.
type evidenceRowDoc struct {
	row   phases.RoundRow
	cold  bool
	t     *phases.EvidenceTable
	index int
}

func (r evidenceRowDoc) MarshalJSON() ([]byte, error) {
	var b strings.Builder
	fmt.Fprintf(&b, `{"round":%d,"pid":%d,"inv":%d,"cold":%t`, r.row.Round, r.row.Pid, r.row.Inv, r.cold)
	for j, c := range r.t.Columns {
		v := "null"
		if x, ok := r.t.Value(r.index, j); ok {
			v = strconv.FormatInt(x, 10)
		}
		fmt.Fprintf(&b, `,%q:%s`, c.Key(), v)
	}
	b.WriteString("}")
	return []byte(b.String()), nil
}

// roundsWhat names the rows of a rounds table's events.
const roundsWhat = "warm binds"

func newRoundsEvidenceDoc(t *phases.EvidenceTable, rows []phases.RoundRow) *roundsEvidenceDoc {
	d := &roundsEvidenceDoc{
		Columns: evidenceColumnsDoc(t), Rows: make([]evidenceRowDoc, len(rows)),
		Events: evidenceEventsDoc(t, roundsWhat), Warnings: evidenceWarningsDoc(t),
	}
	for i, r := range rows {
		d.Rows[i] = evidenceRowDoc{row: r, cold: t.Cold[i], t: t, index: i}
	}
	return d
}

// phasesEvidenceDoc is the "evidence" of `phases --accounting --format
// json`: per column its spread over the summarised passes.
type phasesEvidenceDoc struct {
	Columns  []phasesEvidenceColumnDoc `json:"columns"`
	Events   []evidenceEventDoc        `json:"events"`
	Warnings []string                  `json:"warnings"`
}

type phasesEvidenceColumnDoc struct {
	evidenceColumnDoc
	Min    float64 `json:"min"`
	Median float64 `json:"median"`
	Max    float64 `json:"max"`
	N      int     `json:"n"`
}

func newPhasesEvidenceDoc(t *phases.EvidenceTable, what string) *phasesEvidenceDoc {
	d := &phasesEvidenceDoc{Columns: []phasesEvidenceColumnDoc{}, Events: evidenceEventsDoc(t, what), Warnings: evidenceWarningsDoc(t)}
	for j, c := range evidenceColumnsDoc(t) {
		lo, med, hi, n := t.Spread(j)
		if n == 0 {
			continue
		}
		d.Columns = append(d.Columns, phasesEvidenceColumnDoc{c, lo, med, hi, n})
	}
	return d
}
