// Package metric is the vocabulary of what a campaign measures and how a
// block's log becomes numbers: the known metrics with their families,
// kinds and units, and ReadBlockLog, which reads a block's log through
// trace and phases (and its host_phase_records.jsonl through swimlane,
// for the lane metrics) into per-pass values. Its opinion: a metric a log
// does not carry is missing, never 0.
package metric

import (
	"fmt"
	"os"
	"runtime"
	"sort"
	"strings"

	"github.com/hbgkit/hbgkit/phases"
	"github.com/hbgkit/hbgkit/trace"
)

// The metric families, one report table each.
const (
	FamilyControlPlane = "control plane" // the HBG bind accounting stages
	FamilyCPU          = "cpu"           // thread CPU time: stage twins and pass totals
	FamilyPhases       = "phases"        // raw bind segments, summed per pass
	FamilyOrch         = "orchestrator"  // host-orch lines: time per operation kind
	FamilyCounters     = "counters"      // faults and context switches per pass
	FamilyWork         = "work"          // what a bind did: tasks, submissions, bytes
	FamilyHost         = "host"          // the chip.run host wall
	FamilyBind         = "bind"          // the chip.run.bind wall, a Holm family of its own
)

// Families lists the metric families in report order.
func Families() []string {
	return []string{FamilyControlPlane, FamilyCPU, FamilyPhases, FamilyOrch, FamilyCounters, FamilyWork, FamilyLanes, FamilyAttrs, FamilyHost, FamilyBind, FamilyDerived}
}

// A MetricKind says what a metric measures, and so its unit and the
// words a report may use for a change in it.
type MetricKind string

// The metric kinds.
const (
	KindTime  MetricKind = "time"  // wall time, stored in ns, shown in µs
	KindCPU   MetricKind = "cpu"   // thread CPU time, stored in ns, shown in µs
	KindCount MetricKind = "count" // events or items, stored and shown as counted
	KindBytes MetricKind = "bytes" // bytes, stored and shown as counted
)

// Unit returns the unit a report prints a value of the kind in.
func (k MetricKind) Unit() string {
	switch k {
	case KindCPU:
		return "µs CPU"
	case KindCount:
		return "count"
	case KindBytes:
		return "bytes"
	}
	return "µs"
}

// scale is what a stored value is divided by to be shown in the unit.
func (k MetricKind) Scale() float64 {
	if k == KindTime || k == KindCPU || k == "" {
		return NsPerUs
	}
	return 1
}

// ChangeWords are the verdict words for a decrease and an increase beyond
// the margin: only time is faster or slower.
func (k MetricKind) ChangeWords() (down, up string) {
	switch k {
	case KindCPU:
		return "less CPU", "more CPU"
	case KindCount:
		return "fewer", "more"
	case KindBytes:
		return "fewer bytes", "more bytes"
	}
	return "faster", "slower"
}

// Prefixes of the evidence metrics' names.
const (
	cpuPrefix   = "cpu."  // "cpu.ControlPlane": a stage's CPU-time twin
	WorkPrefix  = "work." // "work.host_orch.tasks"
	orchPrefix  = "orch." // "orch.record_node", "orch.record_node.per_op"
	perOpSuffix = ".per_op"
)

// workMetrics are the work attributes a pass's segments write
// (docs/formats.md "Evidence: counters and work attributes", and
// graph_pack's in E3), with their kinds.
var workMetrics = []struct {
	seg, attr string
	kind      MetricKind
}{
	{trace.SegArgs, "ntensor", KindCount}, {trace.SegArgs, "bytes", KindBytes},
	{trace.SegArenaBuild, "bytes", KindBytes}, {trace.SegSharedMem, "bytes", KindBytes},
	{trace.SegHostOrch, "tasks", KindCount}, {trace.SegHostOrch, "heap_used", KindBytes},
	{trace.SegGraphPack, "defs", KindCount}, {trace.SegGraphPack, "bytes", KindBytes},
	{trace.SegGraphUpload, "defs", KindCount}, {trace.SegGraphUpload, "submissions", KindCount},
	{trace.SegGraphUpload, "bytes", KindBytes},
	{trace.SegArenaH2d, "bytes", KindBytes}, {trace.SegArenaH2d, "copied", KindBytes},
	{trace.SegHostViewClose, "count", KindCount}, {trace.SegHostViewClose, "bytes", KindBytes},
}

// orchKinds are the orchestrator operation kinds of host-orch lines, in
// the runtime's enum order, the order `hbgtrace orch` prints them in
// (docs/formats.md "host-orch phase= lines").
var orchKinds = []string{"submit_task", "alloc_tensors", "record_node", "graph_submit", "build_definition"}

// MetricHost is the name of the chip.run host wall metric.
const MetricHost = "Host"

// MetricRecCPU is the name of the recorder threads' CPU time of a pass
// (rec_cpu_ns).
const MetricRecCPU = "rec_cpu_ns"

// MetricBind is the name of the chip.run.bind wall metric: the whole
// bind span of a pass, its segments and what lies between them.
const MetricBind = "Bind"

// phasePrefix starts the name of a raw segment metric: "phase.host_orch".
const phasePrefix = "phase."

// A MetricInfo describes one metric a block can yield, or under
// --per-rank one rank's row of it (AtRank).
type MetricInfo struct {
	Key    Key    // the metric and, under --per-rank, the rank
	Name   string // Key as --metric takes it and the journal stores it
	Family string
	Label  string     // as the report prints it
	Kind   MetricKind // what it measures; its unit
}

// phaseOrder is the order of the raw segments in the phases table: the
// runtime's enum order of the canonical names of docs/accounting.md "1.
// From any log to passes of canonical segments".
var phaseOrder = []string{
	trace.SegArgs, trace.SegArenaBuild, trace.SegStaticArena, trace.SegGmHeap,
	trace.SegSharedMem, trace.SegRuntimeInit, trace.SegPrebuilt, trace.SegHostOrch,
	trace.SegHostOrchSetup, trace.SegHostOrchEntry, trace.SegGraphPack,
	trace.SegGraphUpload, trace.SegRelocate, trace.SegSmH2d, trace.SegArenaH2d,
	trace.SegH2dGraph, trace.SegH2dImage, trace.SegHostViewClose,
}

// KnownMetrics returns every metric a block can yield, in report order:
// ControlPlane first (the default primary metric), then the other stages of
// the accounting, their CPU-time twins, the raw segments, the
// orchestrator's operation kinds, the kernel counters, the work
// attributes, the lane metrics, and the host wall.
func KnownMetrics() []MetricInfo {
	return knownMetrics
}

var knownMetrics = func() []MetricInfo {
	out := knownMetricList()
	for i := range out {
		out[i].Key = PooledKey(out[i].Name)
	}
	return out
}()

func knownMetricList() []MetricInfo {
	var out []MetricInfo
	stages := []phases.BindStage{phases.StageControlPlane}
	for s := phases.BindStage(0); int(s) < phases.NumBindStages; s++ {
		if s != phases.StageControlPlane {
			stages = append(stages, s)
		}
	}
	for _, s := range stages {
		out = append(out, MetricInfo{Name: s.Label(), Family: FamilyControlPlane, Label: s.Label(), Kind: KindTime})
	}
	for _, s := range stages {
		out = append(out, MetricInfo{Name: cpuPrefix + s.Label(), Family: FamilyCPU, Label: s.Label() + " CPU", Kind: KindCPU})
	}
	out = append(out,
		MetricInfo{Name: "cpu_ns", Family: FamilyCPU, Label: "bind thread CPU (cpu_ns)", Kind: KindCPU},
		MetricInfo{Name: "rec_cpu_ns", Family: FamilyCPU, Label: "recorder threads CPU (rec_cpu_ns)", Kind: KindCPU})
	for _, p := range phaseOrder {
		out = append(out, MetricInfo{Name: phasePrefix + p, Family: FamilyPhases, Label: p, Kind: KindTime})
	}
	for _, k := range orchKinds {
		out = append(out,
			MetricInfo{Name: orchPrefix + k, Family: FamilyOrch, Label: orchPrefix + k, Kind: KindTime},
			MetricInfo{Name: orchPrefix + k + perOpSuffix, Family: FamilyOrch, Label: orchPrefix + k + " per op", Kind: KindTime})
	}
	for _, c := range []struct{ name, label string }{
		{"minflt", "minor faults (minflt)"}, {"tminflt", "bind thread minor faults (tminflt)"},
		{"nvcsw", "voluntary switches (nvcsw)"}, {"nivcsw", "involuntary switches (nivcsw)"},
	} {
		out = append(out, MetricInfo{Name: c.name, Family: FamilyCounters, Label: c.label, Kind: KindCount})
	}
	for _, w := range workMetrics {
		n := WorkPrefix + w.seg + "." + w.attr
		out = append(out, MetricInfo{Name: n, Family: FamilyWork, Label: n, Kind: w.kind})
	}
	out = append(out, laneMetricList...)
	out = append(out, MetricInfo{Name: MetricHost, Family: FamilyHost, Label: "chip.run host wall", Kind: KindTime},
		// Its own family: beside Host in one Holm family, two walls that
		// move together would halve each other's power.
		MetricInfo{Name: MetricBind, Family: FamilyBind, Label: "chip.run.bind wall", Kind: KindTime})
	return out
}

// LookupMetric returns the metric called name, matched without regard to
// case ("controlplane" is ControlPlane; "host_orch" is phase.host_orch when
// no stage has that name), and false for an unknown name. A name may end
// in a rank ("HostOrch@rank1"): the metric of that rank's passes.
func LookupMetric(name string) (MetricInfo, bool) {
	k, ok := ParseKey(name)
	base, rest := k.Name, ""
	if !ok {
		// A suffix that is no rank names no pass's metric; the name is
		// kept as given, as it always was.
		base, rest, _ = strings.Cut(name, RankSep)
		rest = RankSep + rest
	}
	at := func(m MetricInfo) MetricInfo {
		switch {
		case rest != "":
			m.Name += rest
			m.Label += rest
			m.Key = PooledKey(m.Name)
		case k.Ranked:
			m = m.AtRank(k.Rank)
		}
		return m
	}
	for _, m := range KnownMetrics() {
		if strings.EqualFold(m.Name, base) {
			return at(m), true
		}
	}
	for _, m := range KnownMetrics() {
		if strings.EqualFold(m.Name, phasePrefix+base) {
			return at(m), true
		}
	}
	if m, ok := Describe(base); ok { // an open metric: its name as written
		return at(m), true
	}
	return MetricInfo{}, false
}

// AtRank returns m as the row of the passes of rank r (--per-rank): its
// Key carries the rank, and its Name and Label say it ("ControlPlane@rank1").
func (m MetricInfo) AtRank(r int) MetricInfo {
	m.Key = RankKey(m.Key.Name, r)
	m.Name = m.Key.String()
	m.Label += RankSep + rankWord(r)
	return m
}

// MetricNames lists the names of the known metrics and the forms of the
// open ones, for error messages.
func MetricNames() string {
	var names []string
	for _, m := range KnownMetrics() {
		names = append(names, m.Name)
	}
	names = append(names, "orch.<kind>", "orch.<kind>.per_op", "orch.<kind>.<attribute>", "attr.<segment>.<attribute>")
	return strings.Join(names, ", ")
}

// MetricList returns the known metrics as `hbgbench ab --metric list`
// prints them: one line each, name, unit and family; then the forms of
// the open metrics' names (Describe), whose unit comes from the name.
func MetricList() []string {
	return append(formatMetricList(KnownMetrics()), openMetricForms...)
}

// RankSep joins a metric and a rank under --per-rank: "ControlPlane@rank1".
const RankSep = "@"

// A Key names one metric row: a known metric, pooled over every pid or,
// under --per-rank, of the passes of one rank. It stays typed through the
// analysis; String and the text form write "ControlPlane" or
// "ControlPlane@rank1" where a report or a JSON form shows it. The zero
// Key names no metric.
type Key struct {
	Name   string // a known metric's name
	Rank   int    // the rank of the passes, when Ranked
	Ranked bool   // a row of one rank (--per-rank), not the pooled one
}

// PooledKey returns the key of metric name over every pid.
func PooledKey(name string) Key { return Key{Name: name} }

// RankKey returns the key of metric name over the passes of rank r.
func RankKey(name string, r int) Key { return Key{Name: name, Rank: r, Ranked: true} }

// rankWord is how a rank is written after RankSep: "rank1".
func rankWord(r int) string { return fmt.Sprintf("rank%d", r) }

// String returns k as reports and the JSON forms write it.
func (k Key) String() string {
	if !k.Ranked {
		return k.Name
	}
	return k.Name + RankSep + rankWord(k.Rank)
}

// IsZero reports whether k names no metric (a header written before
// the first counted block chose one).
func (k Key) IsZero() bool { return k == Key{} }

// MarshalText writes String.
func (k Key) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText reads what MarshalText writes, as ParseKey does.
func (k *Key) UnmarshalText(b []byte) error {
	*k, _ = ParseKey(string(b))
	return nil
}

// ParseKey reads a key as String writes it, or as --metric takes it: a
// name, then optionally RankSep and "rankN". It reports false, with the
// whole text as the name, when what follows RankSep is no rank; such a
// key names no metric's passes.
func ParseKey(s string) (Key, bool) {
	name, rank, ok := strings.Cut(s, RankSep)
	if !ok {
		return PooledKey(s), true
	}
	var r int
	if n, err := fmt.Sscanf(rank, "rank%d", &r); err != nil || n != 1 || rankWord(r) != rank {
		return PooledKey(s), false
	}
	return RankKey(name, r), true
}

// A Pass is one bind of a block: its identity and its metric values, time
// in ns and counts and bytes as counted. Values holds only what the pass
// recorded.
type Pass struct {
	Pid    int64              `json:"pid"`
	Inv    uint64             `json:"inv"`
	Rank   int                `json:"rank"`           // index of Pid among the block's pids, in pid order
	Index  int                `json:"index"`          // position among its pid's passes, 0 first
	Cold   bool               `json:"cold,omitempty"` // the first pass of its pid
	Values map[string]float64 `json:"ns"`
}

// BlockPasses is what a block's log yields: its passes in (pid, inv)
// order, the [stamp] text, and the reader's warnings.
type BlockPasses struct {
	Passes   []Pass
	Stamp    string // "" when the log has none
	Warnings []string
}

// ReadBlockLog reads one block's log files (the captured output first,
// then any host.*.log the block left) with the trace engine and turns every
// pass into its metrics: the accounting stages of docs/accounting.md "2.
// Per-pass stages", the raw
// segments summed per pass, and the chip.run host wall; a path that is a
// run directory holding host_phase_records.jsonl adds the lane metrics
// (FilesOf, ReadBlock). The first pass of
// each pid is marked cold. It holds at most MaxBlockLogSpans spans and
// phase lines: past them it returns a *trace.TooManySpansError naming the
// file, the line and the bound.
func ReadBlockLog(paths []string) (*BlockPasses, error) {
	return ReadBlock(FilesOf(paths))
}

// ReadBlock is ReadBlockLog over a block's files: its logs, and its
// host_phase_records.jsonl, which add the lane metrics (FamilyLanes) to
// the binds whose graph_submit records it holds. The records are held
// within trace.RecordValuesPerSpan JSON values per span of MaxBlockLogSpans.
func ReadBlock(f BlockFiles) (*BlockPasses, error) {
	paths := f.Logs
	srcs, err := trace.Inputs(paths, nil)
	if err != nil {
		return nil, err
	}
	// A block's log is small (a few hundred KB for the embedded model):
	// parsing it on the calling goroutine is cheaper than starting workers.
	workers := 1
	var size int64
	for _, p := range paths {
		if st, err := os.Stat(p); err == nil {
			size += st.Size()
		}
	}
	if size > parallelReadBytes {
		workers = runtime.GOMAXPROCS(0)
	}
	l, err := trace.ReadLogOptions(srcs, trace.ReadOptions{Workers: workers, MaxSpans: MaxBlockLogSpans})
	if err != nil {
		return nil, err
	}
	var lanes map[passKey]map[string]float64
	var warns []string
	if len(f.Records) > 0 {
		if lanes, warns, err = laneValues(l, f.Records); err != nil {
			return nil, err
		}
	}
	bp, err := blockPasses(l, lanes)
	if err != nil {
		return nil, err
	}
	bp.Warnings = append(bp.Warnings, warns...)
	return bp, nil
}

// MaxBlockLogSpans bounds the spans and phase lines ReadBlockLog holds
// (hbgbench compare's logs and a campaign's block logs), as hbgtrace's
// --max-spans default does: the 1 GB log of docs/performance.md holds 3.6
// million, and a block's log a few thousand. Without it a 6.9 MB gzip
// file of 26 million identical spans took the process past its memory
// (Go's fatal "out of memory", exit 2); at the bound a log costs about
// 0.55 KB a span (docs/performance.md). Tests lower it.
var MaxBlockLogSpans = 4_000_000

// MaxBlockLogPasses bounds the passes ReadBlockLog makes of a log (its
// invocations and bind passes), trace.PassesOf(MaxBlockLogSpans): a
// pass's values cost about 3 KB, so a log of a million one-line bind
// passes, inside MaxBlockLogSpans, took hbgbench compare 3 GB and 35 s.
// The 1 GB log of docs/performance.md makes about 100,000. Past it
// ReadBlockLog returns a *trace.TooManySpansError naming the line of the
// pass past it. Tests lower it.
var MaxBlockLogPasses = trace.PassesOf(MaxBlockLogSpans)

// passesHeld names what MaxBlockLogPasses counts, in its error.
const passesHeld = "passes (invocations and bind passes)"

// parallelReadBytes is the log size above which a block's log is parsed
// on every processor.
const parallelReadBytes = 8 << 20

type passKey struct {
	pid int64
	inv uint64
}

// blockPasses makes the passes of l, adding to each the values extra
// holds for its bind (the lane metrics).
func blockPasses(l *trace.Log, extra map[passKey]map[string]float64) (*BlockPasses, error) {
	out := &BlockPasses{Warnings: l.Warnings()}
	if l.Stamp != nil {
		out.Stamp = l.Stamp.Text
	}
	byKey := map[passKey]*Pass{}
	made := &trace.Bound{Max: MaxBlockLogPasses, What: passesHeld}
	// get returns the pass of k, made when new; nil past
	// MaxBlockLogPasses, the record at pos the first past it (made.Err).
	get := func(k passKey, pos trace.Pos) *Pass {
		p := byKey[k]
		if p == nil {
			if !made.Hold(pos) {
				return nil
			}
			p = &Pass{Pid: k.pid, Inv: k.inv, Values: map[string]float64{}}
			byKey[k] = p
		}
		return p
	}
	for i := range l.Spans {
		s := &l.Spans[i]
		name := ""
		switch {
		case s.IsDevice():
			continue
		case phases.RunSpan(s.Name):
			name = MetricHost
		case trace.IsBindSpan(s):
			name = MetricBind
		default:
			continue
		}
		p := get(passKey{s.Pid, s.Inv}, s.Pos)
		if p == nil {
			return nil, made.Err()
		}
		if _, seen := p.Values[name]; !seen {
			p.Values[name] = float64(s.Dur)
		}
	}
	// The bind passes are counted before they are made: making a million
	// one-line passes took 1.2 GB before the bound below could see them.
	if err := trace.BoundPasses(l.BindPhases, &trace.Bound{Max: MaxBlockLogPasses, What: passesHeld}); err != nil {
		return nil, err
	}
	unknown := uint64(0)
	bps, evs, ews := phases.CollectEvidence(l, nil)
	for _, w := range ews {
		out.Warnings = append(out.Warnings, w.String())
	}
	for i, bp := range bps {
		k := passKey{bp.Pid, bp.Inv}
		if !bp.Known {
			// A pass no chip.run.bind contains has no pid: it is a pass of
			// its own, numbered in log order under pid -1.
			unknown++
			k = passKey{-1, unknown}
		}
		var pos trace.Pos
		if len(bp.Segments) > 0 {
			pos = bp.Segments[0].Pos
		}
		p := get(k, pos)
		if p == nil {
			return nil, made.Err()
		}
		m := phases.ComputePassMetrics(bp)
		for s := phases.BindStage(0); int(s) < phases.NumBindStages; s++ {
			if v, ok := m.Get(s); ok {
				p.Values[s.Label()] = float64(v)
			}
		}
		for _, seg := range bp.Segments {
			p.Values[phasePrefix+seg.Name] += float64(seg.Dur)
		}
		evidenceValues(p.Values, bp, evs[i])
	}
	for k, vs := range extra {
		p := get(k, trace.Pos{})
		if p == nil {
			return nil, made.Err()
		}
		for n, v := range vs {
			p.Values[n] = v
		}
	}
	keys := make([]passKey, 0, len(byKey))
	for k := range byKey {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].pid != keys[j].pid {
			return keys[i].pid < keys[j].pid
		}
		return keys[i].inv < keys[j].inv
	})
	rank, index := -1, 0
	for i, k := range keys {
		p := byKey[k]
		if i == 0 || keys[i-1].pid != k.pid {
			rank++
			index = 0
			p.Cold = true
		}
		p.Index = index
		index++
		p.Rank = rank
		out.Passes = append(out.Passes, *p)
	}
	return out, nil
}

// Value returns the pass's value of the metric k names; a key of another
// rank than the pass's (--per-rank) has none.
func (p *Pass) Value(k Key) (float64, bool) {
	if k.Ranked && k.Rank != p.Rank {
		return 0, false
	}
	v, has := p.Values[k.Name]
	return v, has
}

// evidenceValues adds a pass's evidence metrics to values: CPU-time twins
// of the stages (flat passes with cpu_ns everywhere), the counters' pass
// totals, the work attributes, and per host-orch kind its total and its
// time per operation. What the pass did not write stays absent.
func evidenceValues(values map[string]float64, bp phases.BindPass, e phases.PassEvidence) {
	if m, ok := phases.CPUPassMetrics(bp, e); ok {
		for s := phases.BindStage(0); int(s) < phases.NumBindStages; s++ {
			if v, ok := m.Get(s); ok {
				values[cpuPrefix+s.Label()] = float64(v)
			}
		}
	}
	for _, c := range phases.CounterNames {
		if v, ok := e.Counter(c); ok {
			values[c] = float64(v)
		}
	}
	for _, w := range workMetrics {
		if v, ok := e.Work(w.seg, w.attr); ok {
			values[WorkPrefix+w.seg+"."+w.attr] = float64(v)
		}
	}
	for k, op := range e.Orch {
		values[orchPrefix+k] = float64(op.TotalNs)
		if op.Count > 0 {
			values[orchPrefix+k+perOpSuffix] = float64(op.TotalNs) / float64(op.Count)
		}
		for a, v := range op.Other {
			values[orchPrefix+k+"."+a] = float64(v)
		}
	}
	// Open attributes of the segments (docs/formats.md "Open
	// attributes"): every numeric one, under its segment.
	for seg, se := range e.Segments {
		for a, v := range se.Other {
			values[AttrMetric(seg, a)] = float64(v)
		}
	}
}

const NsPerUs = 1000

// ChoosePrimary is the default primary metric (docs/ab-reference.md "What
// a block yields"): ControlPlane when the block's log
// has HBG bind data, else the chip.run host wall.
func ChoosePrimary(ps []Pass) Key {
	cp := phases.StageControlPlane.Label()
	for _, p := range ps {
		if _, ok := p.Values[cp]; ok {
			return PooledKey(cp)
		}
	}
	return PooledKey(MetricHost)
}
