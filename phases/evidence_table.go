package phases

import (
	"slices"
	"sort"
	"strings"
)

// The evidence of the passes of a table (the rows of `hbgtrace rounds`,
// the summarised passes of `hbgtrace phases --accounting`) in columns:
// the counters and work attributes of each segment, and each counter's
// pass total, with units, and on how many binds a discrete event
// happened ("k of N").

// Units of evidence values.
const (
	UnitCount = "count"  // events or items
	UnitCPUNs = "ns CPU" // thread CPU time
	UnitBytes = "bytes"
	UnitNs    = "ns" // wall time (an open attribute named *_ns)
)

// EvidenceUnit returns the unit of a counter, work attribute or open
// attribute: ns CPU for cpu_ns and rec_cpu_ns, bytes for bytes, heap_used
// and copied, count for the other known names (faults, context switches,
// tasks, submissions, definitions, tensors). An open attribute's unit
// comes from its name (docs/formats.md "Open attributes"): a name ending
// in _ns is ns (ns CPU when it says cpu), one containing bytes is bytes,
// any other a count.
func EvidenceUnit(name string) string {
	switch name {
	case "cpu_ns", "rec_cpu_ns":
		return UnitCPUNs
	case "bytes", "heap_used", "copied":
		return UnitBytes
	}
	switch {
	case strings.HasSuffix(name, "_ns") && strings.Contains(name, "cpu"):
		return UnitCPUNs
	case strings.HasSuffix(name, "_ns"):
		return UnitNs
	case strings.Contains(name, "bytes"):
		return UnitBytes
	}
	return UnitCount
}

// DiscreteCounters are the counters that count events (faults, context
// switches): the ones a table says "> 0 on k of N binds" of.
var DiscreteCounters = []string{"minflt", "tminflt", "nivcsw", "nvcsw"}

// PassTotal is the Segment of an EvidenceColumn that holds a counter's
// pass total (the sum over the pass's segments; see PassEvidence.Counter).
const PassTotal = "pass"

// An EvidenceColumn is one quantity of an EvidenceTable: a counter or
// work attribute of one segment, or a counter's pass total.
type EvidenceColumn struct {
	Segment string // canonical segment name, or PassTotal
	Name    string // a CounterNames or WorkNames member
}

// Unit returns the column's unit (EvidenceUnit).
func (c EvidenceColumn) Unit() string { return EvidenceUnit(c.Name) }

// Key returns the column's key in csv headers: "host_orch.minflt",
// "pass.cpu_ns".
func (c EvidenceColumn) Key() string { return c.Segment + "." + c.Name }

// IsCounter reports whether the column is a kernel counter (not a work
// attribute).
func (c EvidenceColumn) IsCounter() bool { return isCounter(c.Name) }

// IsOther reports whether the column is an open attribute
// (SegmentEvidence.Other): neither a counter nor a work attribute.
func (c EvidenceColumn) IsOther() bool { return !isCounter(c.Name) && !isWork(c.Name) }

// EvidenceAttrs reduces a segment's raw attributes to the tokens evidence
// reads (every key=value, in their order: counters, work and the open
// attributes), so that a collector can keep them without the rest of the
// line. capped says the attributes fill a `bind phase=` line's buffer
// (Segment.Capped); the last token, the one that may be cut, then stays
// last whatever it is, and capped is returned as given. Evidence reads a
// segment with the reduced text as it reads the whole.
func EvidenceAttrs(attrs string, capped bool) (string, bool) {
	tail := ""
	if capped {
		// As passEvidence reads a capped segment (cutTail): the last
		// token, whatever it is, stays last.
		cut := strings.LastIndexAny(attrs, " \t")
		attrs, tail = attrs[:max(cut, 0)], attrs[cut+1:]
	}
	var b strings.Builder
	for _, tok := range strings.Fields(attrs) {
		if strings.Contains(tok, "=") {
			if b.Len() > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(tok)
		}
	}
	if capped {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(tail)
	}
	return b.String(), capped
}

// An EvidenceTable is the evidence of n passes, one per row, in columns:
// only the columns some row has, a missing value being missing, never 0.
type EvidenceTable struct {
	// Columns are the pass totals (CounterNames order), then each
	// segment's counters and work attributes (segments in the runtime's
	// enum order, names in CounterNames then WorkNames order).
	Columns []EvidenceColumn
	// Cold[i] says row i is the first pass of its pid (passes without a
	// pid count as one pid); all false for a table of chosen passes.
	Cold []bool
	// Warnings are Evidence's counted warnings over the rows' passes.
	Warnings []EvidenceWarning

	n     int
	vals  []int64 // row-major, n × len(Columns)
	has   []bool
	lost  []bool  // a pass total the row's segments wrote but cut or lacked
	pid   []int64 // the pass's pid, -1 when unknown
	byPid bool    // Cold and the heap event follow pids
}

// evCell is a value of a row before the columns are known.
type evCell struct {
	col int
	v   int64
}

// NewEvidenceTable reads the evidence of n passes, made one at a time by
// pass (with their segments' Attrs and Pos: see EvidenceAttrs), into a
// table; host-orch lines are not read (`hbgtrace orch` shows them). With
// byPid the first pass of each pid is cold (as the rounds
// table's accounting says), and a heap_used that grew over the pid's
// previous pass is an event; without it every row is a pass chosen as
// warm already.
func NewEvidenceTable(n int, pass func(i int) BindPass, byPid bool) *EvidenceTable {
	t := &EvidenceTable{n: n, Cold: make([]bool, n), pid: make([]int64, n), byPid: byPid}
	var ws evidenceWarnings
	colIdx := map[EvidenceColumn]int{}
	var cols []EvidenceColumn
	colOf := func(c EvidenceColumn) int {
		j, ok := colIdx[c]
		if !ok {
			j = len(cols)
			colIdx[c] = j
			cols = append(cols, c)
		}
		return j
	}
	cells := make([][]evCell, n)
	segs := make([][]evSeg, n)
	evs := make([]PassEvidence, n)
	seen := map[int64]bool{}
	for i := range n {
		p := pass(i)
		t.pid[i] = -1
		if p.Known {
			t.pid[i] = p.Pid
		}
		if byPid {
			t.Cold[i] = !seen[t.pid[i]]
			seen[t.pid[i]] = true
		}
		p.Orch = nil // the table shows no host-orch line
		evs[i] = passEvidence(&p, &ws)
		e := &evs[i]
		segs[i] = evSegsOf(e)
		for name, se := range e.Segments {
			for _, m := range []map[string]int64{se.Counters, se.Work, se.Other} {
				for k, v := range m {
					cells[i] = append(cells[i], evCell{colOf(EvidenceColumn{name, k}), v})
				}
			}
		}
	}
	lacks := lackingCounters(segs, &ws)
	for i, l := range lacks {
		for k, name := range CounterNames {
			if l&(1<<k) != 0 {
				if evs[i].incomplete == nil {
					evs[i].incomplete = map[string]bool{}
				}
				evs[i].incomplete[name] = true
			}
		}
	}
	totalsWarning(evs, &ws)
	t.Warnings = ws.list
	lostCells := make([][]int, n)
	// Pass totals, as PassEvidence.Counter has them: missing when a
	// segment lacks the counter or had it cut. The column is there when
	// some pass has it or lost it, so that a table says "k of N".
	for i := range n {
		for _, name := range CounterNames {
			v, ok := evs[i].Counter(name)
			switch {
			case ok:
				cells[i] = append(cells[i], evCell{colOf(EvidenceColumn{PassTotal, name}), v})
			case evs[i].incomplete[name]:
				lostCells[i] = append(lostCells[i], colOf(EvidenceColumn{PassTotal, name}))
			}
		}
	}
	order := make([]int, len(cols))
	for j := range order {
		order[j] = j
	}
	sort.Slice(order, func(a, b int) bool { return cols[order[a]].Less(cols[order[b]]) })
	remap := make([]int, len(cols))
	for j, o := range order {
		remap[o] = j
		t.Columns = append(t.Columns, cols[o])
	}
	m := len(t.Columns)
	t.vals, t.has, t.lost = make([]int64, n*m), make([]bool, n*m), make([]bool, n*m)
	for i, cs := range cells {
		for _, c := range cs {
			t.vals[i*m+remap[c.col]], t.has[i*m+remap[c.col]] = c.v, true
		}
		for _, c := range lostCells[i] {
			t.lost[i*m+remap[c]] = true
		}
	}
	return t
}

// Less orders columns as an EvidenceTable does: pass totals first, then
// segments in the runtime's enum order (evidenceSegmentIndex; others by name), names in
// CounterNames then WorkNames order.
func (a EvidenceColumn) Less(b EvidenceColumn) bool {
	if a.Segment != b.Segment {
		if a.Segment == PassTotal || b.Segment == PassTotal {
			return a.Segment == PassTotal
		}
		ia, ib := evidenceSegmentIndex(a.Segment), evidenceSegmentIndex(b.Segment)
		if ia != ib {
			return ia < ib
		}
		return a.Segment < b.Segment
	}
	ia, ib := evidenceNameIndex(a.Name), evidenceNameIndex(b.Name)
	if ia != ib {
		return ia < ib
	}
	return a.Name < b.Name
}

// evidenceSegmentIndex is a canonical segment's place in the runtime's
// enum order of every generation (bpcSegNames: graph_pack before
// graph_upload, the PR-1870 copies after arena_h2d); others after.
func evidenceSegmentIndex(seg string) int {
	if c, ok := bpcSegCode[seg]; ok {
		return int(c)
	}
	return 1 << 20
}

func evidenceNameIndex(name string) int {
	if i := slices.Index(CounterNames, name); i >= 0 {
		return i
	}
	if i := slices.Index(WorkNames, name); i >= 0 {
		return len(CounterNames) + i
	}
	return len(CounterNames) + len(WorkNames) // open attributes, by name
}

// Rows returns the number of rows.
func (t *EvidenceTable) Rows() int { return t.n }

// Empty reports whether no row has any evidence.
func (t *EvidenceTable) Empty() bool { return len(t.Columns) == 0 }

// Value returns row i's value of column j, and false when the pass does
// not have it.
func (t *EvidenceTable) Value(i, j int) (int64, bool) {
	k := i*len(t.Columns) + j
	return t.vals[k], t.has[k]
}

// Warm returns the number of rows that are not cold.
func (t *EvidenceTable) Warm() int {
	w := 0
	for _, c := range t.Cold {
		if !c {
			w++
		}
	}
	return w
}

// Spread returns the min, median and max of column j over the rows that
// are not cold and have it, and how many those are (0: no value, and
// zeros).
func (t *EvidenceTable) Spread(j int) (lo, med, hi float64, n int) {
	var v []float64
	for i := range t.n {
		if x, ok := t.Value(i, j); ok && !t.Cold[i] {
			v = append(v, float64(x))
		}
	}
	if len(v) == 0 {
		return 0, 0, 0, 0
	}
	lo, hi = minMax(v)
	return lo, median(v), hi, len(v)
}

// WarmWith returns on how many warm rows the column is known or was lost:
// for a pass total, the warm passes whose segments wrote the counter or
// had it cut (PassEvidence.Counter), so that Spread's n of it reads "k of
// N"; for another column, Spread's n.
func (t *EvidenceTable) WarmWith(j int) int {
	w := 0
	for i := range t.n {
		if t.Cold[i] {
			continue
		}
		if _, ok := t.Value(i, j); ok || t.lost[i*len(t.Columns)+j] {
			w++
		}
	}
	return w
}

// Kinds of EvidenceEvent.
const (
	EventNonZero = "nonzero" // a discrete counter is > 0
	EventGrew    = "grew"    // heap_used is higher than in the pid's previous pass
)

// An EvidenceEvent says on how many warm rows a discrete event happened:
// K of the N warm rows that have the value (and, for EventGrew, whose
// pid's previous pass has it too).
type EvidenceEvent struct {
	Column EvidenceColumn
	Kind   string // EventNonZero or EventGrew
	K, N   int
}

// Events returns the discrete events of the warm rows, in column order:
// for each column of a DiscreteCounters member, on how many rows it is
// > 0; with pids (NewEvidenceTable's byPid), for each heap_used column,
// on how many rows it is higher than in the previous row of the same pid.
// A column no warm row has gives no event.
func (t *EvidenceTable) Events() []EvidenceEvent {
	var out []EvidenceEvent
	for j, c := range t.Columns {
		switch {
		case slices.Contains(DiscreteCounters, c.Name):
			ev := EvidenceEvent{Column: c, Kind: EventNonZero}
			for i := range t.n {
				if v, ok := t.Value(i, j); ok && !t.Cold[i] {
					ev.N++
					if v > 0 {
						ev.K++
					}
				}
			}
			if ev.N > 0 {
				out = append(out, ev)
			}
		case c.Name == "heap_used" && t.byPid:
			ev := EvidenceEvent{Column: c, Kind: EventGrew}
			prev := map[int64]int{}
			for i := range t.n {
				p, had := prev[t.pid[i]]
				prev[t.pid[i]] = i
				if t.Cold[i] || !had {
					continue
				}
				v, ok := t.Value(i, j)
				before, okb := t.Value(p, j)
				if ok && okb {
					ev.N++
					if v > before {
						ev.K++
					}
				}
			}
			if ev.N > 0 {
				out = append(out, ev)
			}
		}
	}
	return out
}
