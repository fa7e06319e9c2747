package phases

import (
	"cmp"
	"slices"
	"sort"
	"strings"

	"github.com/hbgkit/hbgkit/trace"
)

// Metrics of the reference rounds table, in column order (docs/accounting.md
// "What `hbgtrace rounds` prints").
const (
	MetricHost      = "Host"
	MetricDevice    = "Device"
	MetricEffective = "Effective"
	MetricOrch      = "Orch"
	MetricSched     = "Sched"
)

// roundsMetrics are the metrics of the reference columns, in column order.
var roundsMetrics = [...]string{MetricHost, MetricDevice, MetricEffective, MetricOrch, MetricSched}

// RoundsMetrics returns the metrics of the reference rounds table, in
// column order (a copy).
func RoundsMetrics() []string {
	m := roundsMetrics
	return m[:]
}

// UnitMicros is the unit of every rounds column: microseconds, as ns / 1000.
const UnitMicros = "us"

// RoundsTrim is how many values the trimmed averages drop at each end; the
// trimmed line exists only when there are more than 2*RoundsTrim rounds.
const RoundsTrim = 10

// A Rounds is a per-round table (strace_timing --rounds-table): one row per
// invocation of the busiest callable, the columns shown for them and the
// averages of the reference columns.
//
// Columns, Averages and Trimmed are the reference columns only. The HBG
// bind accounting is computed beside the table, one pass per row
// (BindPassCollector.Accounting), because its cells can be "not
// recorded", which a Column, 0 for a missing value, cannot say.
type Rounds struct {
	Hid     string     // the callable the rows belong to
	Rows    []RoundRow // in table order (by inv, stable in pid order)
	Columns []Column   // the shown columns, Host first
	// Averages is the Avg line: Host over all rows, every other column
	// over its non-zero values.
	Averages []Average
	// Trimmed is the trimmed-average line; nil unless len(Rows) > 2*RoundsTrim.
	Trimmed *Trimmed
}

// A RoundRow names the invocation a row of a Rounds table was computed from.
type RoundRow struct {
	Round int // 0-based position in the table (not the inv)
	Pid   int64
	Inv   uint64
}

// A Column is one metric of a Rounds table.
type Column struct {
	Name   string    // the metric (header "<Name> (<Unit>)")
	Unit   string    // UnitMicros for the reference columns
	Values []float64 // one per row; 0 when the row lacks the metric
}

// Key returns the column's key in json rows and csv headers: the name in
// lower case, an underscore and the unit ("host_us").
func (c Column) Key() string { return strings.ToLower(c.Name) + "_" + c.Unit }

// An Average is one part of an Avg line: the mean of a column over N of Of
// rounds.
type Average struct {
	Metric string
	Value  float64
	Unit   string
	N      int // values averaged
	Of     int // rounds in the table
}

// Trimmed is the trimmed-average line of a Rounds table.
type Trimmed struct {
	Low, High int // values dropped at each end of every trimmed column
	// Used is the number of Host values left after trimming; the reference
	// prints this count even when Device was trimmed from fewer values.
	Used int
	// Averages holds Host, then Device when more than 2*RoundsTrim rows
	// have a non-zero Device.
	Averages []Average
}

// Span names the rounds view looks up, relative to the run span. The run
// span is chip.run, or simpler_run in logs written before the rename (the
// printed names stay as written; only look-ups accept both).
const (
	roundsRunName       = "chip.run"
	roundsLegacyRunName = "simpler_run"
	roundsDeviceSuffix  = ".runner_run.device_wall"
	roundsOrchSuffix    = ".runner_run.device_wall.orch"
	roundsSchedSuffix   = ".runner_run.device_wall.sched"
)

// roundsSpan is one span a row reads: its start and duration.
type roundsSpan struct {
	ts, dur int64
	ok      bool
}

// roundsInv is what the rounds table reads of one invocation: its key, its
// hid (that of its first span) and, per name looked up, the earliest span
// of that name (ties: the first seen), current names apart from legacy
// ones. It is all a row needs, so a stream can keep one per invocation
// instead of the invocation's spans.
type roundsInv struct {
	pid int64
	inv uint64
	hid string
	cur [4][2]int64  // ts, dur of chip.run, its device_wall, orch, sched
	old *[4][2]int64 // the same under simpler_run; nil when none
	has uint8        // bit i: cur[i] is set; bit 4+i: old[i] is set
}

// roundsSlot returns the slot a span name fills (0 run, 1 device, 2 orch,
// 3 sched) and whether it is a legacy simpler_run name; -1 for a name the
// table does not read.
func roundsSlot(name string) (slot int, legacy bool) {
	var rest string
	switch {
	case len(name) >= len(roundsRunName) && name[:len(roundsRunName)] == roundsRunName:
		rest = name[len(roundsRunName):]
	case len(name) >= len(roundsLegacyRunName) && name[:len(roundsLegacyRunName)] == roundsLegacyRunName:
		rest, legacy = name[len(roundsLegacyRunName):], true
	default:
		return -1, false
	}
	switch rest {
	case "":
		return 0, legacy
	case roundsDeviceSuffix:
		return 1, legacy
	case roundsOrchSuffix:
		return 2, legacy
	case roundsSchedSuffix:
		return 3, legacy
	}
	return -1, false
}

// RunSpan reports whether a span of this name is an invocation's run span,
// the host wall the rounds table reads: chip.run or its legacy name
// simpler_run.
func RunSpan(name string) bool {
	slot, _ := roundsSlot(name)
	return slot == 0
}

// add takes the next span of the invocation, in log order. Like
// Invocation.ByName, the earliest span of a name wins (ties: the first).
func (ri *roundsInv) add(s *trace.Span) {
	slot, legacy := roundsSlot(s.Name)
	if slot < 0 {
		return
	}
	set, bit := &ri.cur, uint8(1)<<slot
	if legacy {
		if ri.old == nil {
			ri.old = new([4][2]int64)
		}
		set, bit = ri.old, bit<<4
	}
	if sp := &set[slot]; ri.has&bit == 0 || s.Ts < sp[0] {
		*sp = [2]int64{s.Ts, s.Dur}
		ri.has |= bit
	}
}

// pick returns slot i: the chip.run-prefixed span, else the simpler_run one.
func (ri *roundsInv) pick(i int) roundsSpan {
	switch {
	case ri.has&(1<<i) != 0:
		return roundsSpan{ri.cur[i][0], ri.cur[i][1], true}
	case ri.has&(1<<(4+i)) != 0:
		return roundsSpan{ri.old[i][0], ri.old[i][1], true}
	}
	return roundsSpan{}
}

// hasRun reports whether the invocation has a run span (chip.run, or the
// legacy simpler_run), which makes it a round of the rounds table.
func (ri *roundsInv) hasRun() bool { return ri.has&(1|1<<4) != 0 }

// newRoundsInv reduces an invocation to what the table reads.
func newRoundsInv(iv *trace.Invocation) *roundsInv {
	ri := &roundsInv{pid: iv.Pid, inv: iv.Inv, hid: iv.Hid}
	for _, s := range iv.Spans {
		ri.add(s)
	}
	return ri
}

// roundsRows picks from reduced invocations, given sorted by (pid, inv),
// the rows of a rounds table: the busiest callable's invocations with a run span, sorted
// by inv (stable).
func roundsRows(invs []*roundsInv) (string, []*roundsInv) {
	type bucket struct {
		hid  string
		rows []*roundsInv
	}
	idx := make(map[string]int)
	var buckets []bucket
	for _, ri := range invs {
		if !ri.hasRun() {
			continue
		}
		i, ok := idx[ri.hid]
		if !ok {
			i = len(buckets)
			idx[ri.hid] = i
			buckets = append(buckets, bucket{hid: ri.hid})
		}
		buckets[i].rows = append(buckets[i].rows, ri)
	}
	best := -1
	for i := range buckets {
		if best < 0 || len(buckets[i].rows) > len(buckets[best].rows) {
			best = i
		}
	}
	if best < 0 {
		return "", nil
	}
	rows := buckets[best].rows
	slices.SortStableFunc(rows, func(a, b *roundsInv) int { return cmp.Compare(a.inv, b.inv) })
	return buckets[best].hid, rows
}

func reduceInvocations(invs []*trace.Invocation) []*roundsInv {
	out := make([]*roundsInv, len(invs))
	for i, iv := range invs {
		out[i] = newRoundsInv(iv)
	}
	return out
}

// ComputeRounds builds the rounds table of invocations (trace.GroupInvocations
// over trace.InvocationSpans): the busiest callable's invocations with a
// run span, by inv. With no rows it
// returns a table without rows or columns.
func ComputeRounds(invs []*trace.Invocation) *Rounds {
	return roundsTable(reduceInvocations(invs))
}

func roundsTable(invs []*roundsInv) *Rounds {
	hid, rows := roundsRows(invs)
	return newRounds(hid, rows)
}

// A RankRounds is the rounds table of one process.
type RankRounds struct {
	Pid    int64
	Rounds *Rounds
}

func roundsPerRank(invs []*roundsInv) []RankRounds {
	hid, rows := roundsRows(invs)
	byPid := map[int64][]*roundsInv{}
	var pids []int64
	for _, ri := range rows {
		if _, ok := byPid[ri.pid]; !ok {
			pids = append(pids, ri.pid)
		}
		byPid[ri.pid] = append(byPid[ri.pid], ri)
	}
	sort.Slice(pids, func(i, j int) bool { return pids[i] < pids[j] })
	out := make([]RankRounds, 0, len(pids))
	for _, p := range pids {
		out = append(out, RankRounds{Pid: p, Rounds: newRounds(hid, byPid[p])})
	}
	return out
}

func newRounds(hid string, rows []*roundsInv) *Rounds {
	r := &Rounds{Hid: hid}
	if len(rows) == 0 {
		return r
	}
	n := len(rows)
	vals := map[string][]float64{}
	for _, m := range roundsMetrics {
		vals[m] = make([]float64, n)
	}
	r.Rows = make([]RoundRow, 0, n)
	for i, ri := range rows {
		r.Rows = append(r.Rows, RoundRow{Round: i, Pid: ri.pid, Inv: ri.inv})
		run, dev, orch, sched := ri.pick(0), ri.pick(1), ri.pick(2), ri.pick(3)
		vals[MetricHost][i] = roundsMicros(run)
		vals[MetricDevice][i] = roundsMicros(dev)
		vals[MetricOrch][i] = roundsMicros(orch)
		vals[MetricSched][i] = roundsMicros(sched)
		vals[MetricEffective][i] = roundsEffective(orch, sched)
	}
	for _, m := range roundsMetrics {
		v := vals[m]
		if m != MetricHost && !slices.ContainsFunc(v, func(x float64) bool { return x > 0 }) {
			continue
		}
		r.Columns = append(r.Columns, Column{Name: m, Unit: UnitMicros, Values: v})
	}
	for _, c := range r.Columns {
		mean, k := roundsMean(c.Values), n
		if c.Name != MetricHost {
			mean, k = roundsMeanNonZero(c.Values)
		}
		r.Averages = append(r.Averages, Average{Metric: c.Name, Value: mean, Unit: c.Unit, N: k, Of: n})
	}
	if n > 2*RoundsTrim {
		host := vals[MetricHost]
		t := &Trimmed{Low: RoundsTrim, High: RoundsTrim, Used: n - 2*RoundsTrim}
		t.Averages = append(t.Averages, Average{Metric: MetricHost, Value: roundsTrimmedMean(host), Unit: UnitMicros, N: n - 2*RoundsTrim, Of: n})
		if dev := roundsNonZero(vals[MetricDevice]); len(dev) > 2*RoundsTrim {
			t.Averages = append(t.Averages, Average{Metric: MetricDevice, Value: roundsTrimmedMean(dev), Unit: UnitMicros, N: len(dev) - 2*RoundsTrim, Of: n})
		}
		r.Trimmed = t
	}
	return r
}

// A RoundsCollector builds rounds tables from a stream of spans, keeping
// per invocation only what a row reads (roundsInv), never the spans: Add
// every span of a log in log order, then ask for the table. The tables are
// those ComputeRounds and its per-rank batch twin (a test oracle) make of
// trace.GroupInvocations(trace.InvocationSpans(spans)).
type RoundsCollector struct {
	idx   map[roundsKey]*roundsInv
	invs  []*roundsInv
	last  *roundsInv
	bound *trace.Bound
}

// Bound makes the collector count the invocations it holds in b; b.Err
// reports the span past it.
func (c *RoundsCollector) Bound(b *trace.Bound) { c.bound = b }

type roundsKey struct {
	pid int64
	inv uint64
}

// NewRoundsCollector returns an empty RoundsCollector.
func NewRoundsCollector() *RoundsCollector {
	return &RoundsCollector{idx: make(map[roundsKey]*roundsInv)}
}

// RoundsSpan reports whether the rounds table can read a span of this
// name: one of an invocation family (not node, not external). A reader may
// skip the others (trace.ReadOptions.KeepSpan).
func RoundsSpan(name string) bool {
	switch trace.Family(name) {
	case trace.FamilyNode, trace.FamilyExternal:
		return false
	}
	return true
}

// RoundsReads reports whether the rounds table or its HBG accounting reads
// a span of this name: a run, device, orch or sched span (current or legacy
// name) or a bind span (BindPassSpan). With the first span of each
// invocation (RoundsSpan, for its hid: trace.ReadOptions.FirstSpans), that
// is every span a RoundsCollector and a BindPassCollector need.
func RoundsReads(name string) bool {
	slot, _ := roundsSlot(name)
	return slot >= 0 || BindPassSpan(name)
}

// Add takes the next span of the log. Spans of the node and external
// families are ignored, as trace.InvocationSpans leaves them out.
func (c *RoundsCollector) Add(s *trace.Span) {
	if !RoundsSpan(s.Name) {
		return
	}
	// The spans of one invocation come in runs: remember the last one.
	ri := c.last
	if ri == nil || ri.pid != s.Pid || ri.inv != s.Inv {
		k := roundsKey{s.Pid, s.Inv}
		ri = c.idx[k]
		if ri == nil {
			if !c.bound.Hold(s.Pos) {
				return
			}
			ri = &roundsInv{pid: s.Pid, inv: s.Inv, hid: s.Hid}
			c.idx[k] = ri
			c.invs = appendDoubling(c.invs, ri)
		}
		c.last = ri
	}
	ri.add(s)
}

// sorted returns the invocations sorted by (pid, inv), as
// trace.GroupInvocations orders them.
func (c *RoundsCollector) sorted() []*roundsInv {
	// (pid, inv) is unique, so the order is total.
	slices.SortFunc(c.invs, func(a, b *roundsInv) int {
		if c := cmp.Compare(a.pid, b.pid); c != 0 {
			return c
		}
		return cmp.Compare(a.inv, b.inv)
	})
	return c.invs
}

// Rounds returns the rounds table of the spans added (ComputeRounds).
func (c *RoundsCollector) Rounds() *Rounds { return roundsTable(c.sorted()) }

// RoundsPerRank returns one table per pid, ascending, each over that pid's
// rows of the busiest callable of all pids.
func (c *RoundsCollector) RoundsPerRank() []RankRounds { return roundsPerRank(c.sorted()) }

// roundsMicros returns a span's duration in µs, 0 for no span.
func roundsMicros(s roundsSpan) float64 {
	if !s.ok {
		return 0
	}
	return float64(s.dur) / 1000
}

// roundsEffective is the device-domain extent of orch and sched together,
// in µs: over whichever of the two exist, 0 when neither does.
func roundsEffective(orch, sched roundsSpan) float64 {
	var lo, hi int64
	have := false
	for _, s := range []roundsSpan{orch, sched} {
		if !s.ok {
			continue
		}
		if !have || s.ts < lo {
			lo = s.ts
		}
		if !have || s.ts+s.dur > hi {
			hi = s.ts + s.dur
		}
		have = true
	}
	if !have {
		return 0
	}
	return float64(hi-lo) / 1000
}

func roundsNonZero(v []float64) []float64 {
	out := make([]float64, 0, len(v))
	for _, x := range v {
		if x > 0 {
			out = append(out, x)
		}
	}
	return out
}

// roundsMean is the mean the reference prints: sum(sorted(v))/len(v), the
// values added smallest first, left to right. The order of the additions
// decides the last bit, and with it sometimes the printed decimal (3839.55,
// 4535.956, 2456.144 average to 3610.5 sorted, 3610.6 in table order).
func roundsMean(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	return mean(s)
}

// roundsMeanNonZero is roundsMean(roundsNonZero(v)) and the number of
// values it is over.
func roundsMeanNonZero(v []float64) (float64, int) {
	nz := roundsNonZero(v)
	if len(nz) == 0 {
		return 0, 0
	}
	return roundsMean(nz), len(nz)
}

// roundsTrimmedMean is the mean of v sorted, without its RoundsTrim lowest
// and RoundsTrim highest values; v must hold more than 2*RoundsTrim values.
func roundsTrimmedMean(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	return roundsMean(s[RoundsTrim : len(s)-RoundsTrim])
}
