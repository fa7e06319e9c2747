package phases

import (
	"sort"
	"strings"

	"github.com/hbgkit/hbgkit/trace"
)

// Metrics of the reference rounds table, in column order (REFERENCE §3.4).
const (
	MetricHost      = "Host"
	MetricDevice    = "Device"
	MetricEffective = "Effective"
	MetricOrch      = "Orch"
	MetricSched     = "Sched"
)

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
// (BindPassesForRows, ComputeAccounting), because its cells can be "not
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

// Column returns the column named metric, or nil.
func (r *Rounds) Column(metric string) *Column {
	for i := range r.Columns {
		if r.Columns[i].Name == metric {
			return &r.Columns[i]
		}
	}
	return nil
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

// roundsSpans is what one invocation contributes to a row: the earliest
// span of each name the table reads, current names before legacy ones.
type roundsSpans struct {
	run, device, orch, sched *trace.Span
}

// roundsLookup finds, in one pass over iv, the spans the rounds table reads.
// Like Invocation.ByName, the earliest span of a name wins (ties: the first
// seen); a chip.run-prefixed name wins over its simpler_run equivalent.
func roundsLookup(iv *trace.Invocation) roundsSpans {
	var cur, old [4]*trace.Span
	keep := func(slot **trace.Span, s *trace.Span) {
		if *slot == nil || s.Ts < (*slot).Ts {
			*slot = s
		}
	}
	for _, s := range iv.Spans {
		var set *[4]*trace.Span
		var rest string
		switch {
		case len(s.Name) >= len(roundsRunName) && s.Name[:len(roundsRunName)] == roundsRunName:
			set, rest = &cur, s.Name[len(roundsRunName):]
		case len(s.Name) >= len(roundsLegacyRunName) && s.Name[:len(roundsLegacyRunName)] == roundsLegacyRunName:
			set, rest = &old, s.Name[len(roundsLegacyRunName):]
		default:
			continue
		}
		switch rest {
		case "":
			keep(&set[0], s)
		case roundsDeviceSuffix:
			keep(&set[1], s)
		case roundsOrchSuffix:
			keep(&set[2], s)
		case roundsSchedSuffix:
			keep(&set[3], s)
		}
	}
	pick := func(i int) *trace.Span {
		if cur[i] != nil {
			return cur[i]
		}
		return old[i]
	}
	return roundsSpans{run: pick(0), device: pick(1), orch: pick(2), sched: pick(3)}
}

// HasRun reports whether iv has a run span (chip.run, or the legacy
// simpler_run), which makes it a round of the rounds table.
func HasRun(iv *trace.Invocation) bool {
	for _, s := range iv.Spans {
		if s.Name == roundsRunName || s.Name == roundsLegacyRunName {
			return true
		}
	}
	return false
}

// RoundInvocations returns the invocations a rounds table is computed over:
// those with a run span (see HasRun), then the busiest callable's, sorted by
// inv (stable, so equal inv of different pids keep pid order). It returns
// the callable's hid, and "" with no invocations when none has a run span.
func RoundInvocations(invs []*trace.Invocation) (string, []*trace.Invocation) {
	kept := make([]*trace.Invocation, 0, len(invs))
	for _, iv := range invs {
		if HasRun(iv) {
			kept = append(kept, iv)
		}
	}
	buckets := trace.BucketByHid(kept)
	i := trace.Busiest(buckets)
	if i < 0 {
		return "", nil
	}
	return buckets[i].Hid, buckets[i].Invs
}

// ComputeRounds builds the rounds table of invocations (trace.GroupInvocations
// over trace.InvocationSpans): the rows of RoundInvocations. With no rows it
// returns a table without rows or columns.
func ComputeRounds(invs []*trace.Invocation) *Rounds {
	hid, rows := RoundInvocations(invs)
	return NewRounds(hid, rows)
}

// A RankRounds is the rounds table of one process.
type RankRounds struct {
	Pid    int64
	Rounds *Rounds
}

// ComputeRoundsPerRank builds one rounds table per pid (ascending), each
// over that pid's invocations of the busiest callable of all pids.
func ComputeRoundsPerRank(invs []*trace.Invocation) []RankRounds {
	hid, rows := RoundInvocations(invs)
	byPid := map[int64][]*trace.Invocation{}
	var pids []int64
	for _, iv := range rows {
		if _, ok := byPid[iv.Pid]; !ok {
			pids = append(pids, iv.Pid)
		}
		byPid[iv.Pid] = append(byPid[iv.Pid], iv)
	}
	sort.Slice(pids, func(i, j int) bool { return pids[i] < pids[j] })
	out := make([]RankRounds, 0, len(pids))
	for _, p := range pids {
		out = append(out, RankRounds{Pid: p, Rounds: NewRounds(hid, byPid[p])})
	}
	return out
}

// NewRounds builds the table of rows, in the given order: one row per
// invocation, the reference columns (Host always, each other column when
// some row has a value above 0), their averages and the trimmed line.
func NewRounds(hid string, rows []*trace.Invocation) *Rounds {
	r := &Rounds{Hid: hid}
	if len(rows) == 0 {
		return r
	}
	n := len(rows)
	vals := map[string][]float64{}
	for _, m := range []string{MetricHost, MetricDevice, MetricEffective, MetricOrch, MetricSched} {
		vals[m] = make([]float64, n)
	}
	for i, iv := range rows {
		r.Rows = append(r.Rows, RoundRow{Round: i, Pid: iv.Pid, Inv: iv.Inv})
		sp := roundsLookup(iv)
		vals[MetricHost][i] = roundsMicros(sp.run)
		vals[MetricDevice][i] = roundsMicros(sp.device)
		vals[MetricOrch][i] = roundsMicros(sp.orch)
		vals[MetricSched][i] = roundsMicros(sp.sched)
		vals[MetricEffective][i] = roundsEffective(sp.orch, sp.sched)
	}
	for _, m := range []string{MetricHost, MetricDevice, MetricEffective, MetricOrch, MetricSched} {
		v := vals[m]
		if m != MetricHost && len(roundsNonZero(v)) == 0 {
			continue
		}
		r.Columns = append(r.Columns, Column{Name: m, Unit: UnitMicros, Values: v})
	}
	for _, c := range r.Columns {
		v := c.Values
		if c.Name != MetricHost {
			v = roundsNonZero(v)
		}
		r.Averages = append(r.Averages, Average{Metric: c.Name, Value: roundsMean(v), Unit: c.Unit, N: len(v), Of: n})
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

// roundsMicros returns a span's duration in µs, 0 for no span.
func roundsMicros(s *trace.Span) float64 {
	if s == nil {
		return 0
	}
	return float64(s.Dur) / 1000
}

// roundsEffective is the device-domain extent of orch and sched together,
// in µs: over whichever of the two exist, 0 when neither does.
func roundsEffective(orch, sched *trace.Span) float64 {
	var lo, hi int64
	have := false
	for _, s := range []*trace.Span{orch, sched} {
		if s == nil {
			continue
		}
		if !have || s.Ts < lo {
			lo = s.Ts
		}
		if !have || s.End() > hi {
			hi = s.End()
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

// roundsMean is sum(v)/len(v) summed left to right, as the reference's
// Python does, so that the printed one-decimal values agree byte for byte.
func roundsMean(v []float64) float64 {
	return mean(v)
}

// roundsTrimmedMean is the mean of v sorted, without its RoundsTrim lowest
// and RoundsTrim highest values; v must hold more than 2*RoundsTrim values.
func roundsTrimmedMean(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	return roundsMean(s[RoundsTrim : len(s)-RoundsTrim])
}
