package abtest

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
	FamilyPhases       = "phases"        // raw bind segments, summed per pass
	FamilyHost         = "host"          // the chip.run host wall
)

// Families lists the metric families in report order.
func Families() []string {
	return []string{FamilyControlPlane, FamilyPhases, FamilyHost}
}

// MetricHost is the name of the chip.run host wall metric.
const MetricHost = "Host"

// phasePrefix starts the name of a raw segment metric: "phase.host_orch".
const phasePrefix = "phase."

// A MetricInfo describes one metric a block can yield.
type MetricInfo struct {
	Name   string // as --metric takes it and the journal stores it
	Family string
	Label  string // as the report prints it
}

// phaseOrder is the order of the raw segments in the phases table: the
// runtime's enum order of DESIGN §4's canonical names.
var phaseOrder = []string{
	trace.SegArgs, trace.SegArenaBuild, trace.SegStaticArena, trace.SegGmHeap,
	trace.SegSharedMem, trace.SegRuntimeInit, trace.SegPrebuilt, trace.SegHostOrch,
	trace.SegHostOrchSetup, trace.SegHostOrchEntry, trace.SegGraphPack,
	trace.SegGraphUpload, trace.SegRelocate, trace.SegSmH2d, trace.SegArenaH2d,
	trace.SegH2dGraph, trace.SegH2dImage, trace.SegHostViewClose,
}

// KnownMetrics returns every metric a block can yield, in report order:
// ControlPlane first (the default primary metric), then the other stages of
// the accounting, the raw segments, and the host wall.
func KnownMetrics() []MetricInfo {
	var out []MetricInfo
	out = append(out, MetricInfo{Name: phases.StageControlPlane.Label(), Family: FamilyControlPlane, Label: phases.StageControlPlane.Label()})
	for s := phases.BindStage(0); int(s) < phases.NumBindStages; s++ {
		if s == phases.StageControlPlane {
			continue
		}
		out = append(out, MetricInfo{Name: s.Label(), Family: FamilyControlPlane, Label: s.Label()})
	}
	for _, p := range phaseOrder {
		out = append(out, MetricInfo{Name: phasePrefix + p, Family: FamilyPhases, Label: p})
	}
	out = append(out, MetricInfo{Name: MetricHost, Family: FamilyHost, Label: "chip.run host wall"})
	return out
}

// LookupMetric returns the metric called name, matched without regard to
// case ("controlplane" is ControlPlane; "host_orch" is phase.host_orch when
// no stage has that name), and false for an unknown name.
func LookupMetric(name string) (MetricInfo, bool) {
	base, rank, hasRank := strings.Cut(name, rankSep)
	for _, m := range KnownMetrics() {
		if strings.EqualFold(m.Name, base) || strings.EqualFold(m.Name, phasePrefix+base) {
			if hasRank {
				m.Name += rankSep + rank
				m.Label += rankSep + rank
			}
			return m, true
		}
	}
	return MetricInfo{}, false
}

// metricNames lists the names of the known metrics, for error messages.
func metricNames() string {
	var names []string
	for _, m := range KnownMetrics() {
		names = append(names, m.Name)
	}
	return strings.Join(names, ", ")
}

// rankSep joins a metric and a rank under --per-rank: "ControlPlane@rank1".
const rankSep = "@"

// A Pass is one bind of a block: its identity and its metric values in ns.
// Values holds only what the pass recorded.
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
// pass into its metrics: the accounting stages of DESIGN §4, the raw
// segments summed per pass, and the chip.run host wall. The first pass of
// each pid is marked cold.
func ReadBlockLog(paths []string) (*BlockPasses, error) {
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
	l, err := trace.ReadLogOptions(srcs, trace.ReadOptions{Workers: workers})
	if err != nil {
		return nil, err
	}
	return blockPasses(l), nil
}

// parallelReadBytes is the log size above which a block's log is parsed
// on every processor.
const parallelReadBytes = 8 << 20

type passKey struct {
	pid int64
	inv uint64
}

func blockPasses(l *trace.Log) *BlockPasses {
	out := &BlockPasses{Warnings: l.Warnings()}
	if l.Stamp != nil {
		out.Stamp = l.Stamp.Text
	}
	byKey := map[passKey]*Pass{}
	get := func(k passKey) *Pass {
		p := byKey[k]
		if p == nil {
			p = &Pass{Pid: k.pid, Inv: k.inv, Values: map[string]float64{}}
			byKey[k] = p
		}
		return p
	}
	for i := range l.Spans {
		s := &l.Spans[i]
		if s.IsDevice() || !phases.RunSpan(s.Name) {
			continue
		}
		p := get(passKey{s.Pid, s.Inv})
		if _, seen := p.Values[MetricHost]; !seen {
			p.Values[MetricHost] = float64(s.Dur)
		}
	}
	unknown := uint64(0)
	for _, bp := range phases.CollectBindPasses(l, nil) {
		k := passKey{bp.Pid, bp.Inv}
		if !bp.Known {
			// A pass no chip.run.bind contains has no pid: it is a pass of
			// its own, numbered in log order under pid -1.
			unknown++
			k = passKey{-1, unknown}
		}
		p := get(k)
		m := phases.ComputePassMetrics(bp)
		for s := phases.BindStage(0); int(s) < phases.NumBindStages; s++ {
			if v, ok := m.Get(s); ok {
				p.Values[s.Label()] = float64(v)
			}
		}
		for _, seg := range bp.Segments {
			p.Values[phasePrefix+seg.Name] += float64(seg.Dur)
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
	return out
}

// value returns the pass's value of metric, which may carry a rank suffix
// (--per-rank): "ControlPlane@rank1" is ControlPlane of the passes of rank 1.
func (p *Pass) value(metric string) (float64, bool) {
	base, rank, ok := strings.Cut(metric, rankSep)
	if ok && rank != fmt.Sprintf("rank%d", p.Rank) {
		return 0, false
	}
	v, has := p.Values[base]
	return v, has
}
