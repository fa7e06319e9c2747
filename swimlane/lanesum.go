package swimlane

import (
	"fmt"
	"sort"
	"strings"
)

// Lane roles, as `hbgtrace lanes` and the lanes(role=R) assertion name
// them (docs/swimlanes.md "9. Lanes"): a short word for each lane name of
// assignLanes.
const (
	RoleSubmit       = "submit"       // graph submit main
	RoleWorker       = "worker"       // graph record worker
	RoleOrchestrator = "orchestrator" // orchestrator / facade
	RoleScheduler    = "scheduler"
	RoleNodeWorker   = "node-worker" // worker N: a simpler node's worker
	RoleChip         = "chip"        // chip child
	RoleExternal     = "external"    // ext <producer>
	RoleSlot         = "slot"        // pipeline slot N
	RoleOther        = "other"       // tid N: the bind's own thread, and the rest
)

// Roles lists every role, for the assertion parser's messages.
var Roles = []string{RoleSubmit, RoleWorker, RoleOrchestrator, RoleScheduler, RoleNodeWorker,
	RoleChip, RoleExternal, RoleSlot, RoleOther}

// roleOf maps a lane name to its role.
func roleOf(name string) string {
	switch {
	case name == submitMainLane:
		return RoleSubmit
	case name == recordWorkerLane:
		return RoleWorker
	case name == "orchestrator / facade":
		return RoleOrchestrator
	case name == "scheduler":
		return RoleScheduler
	case name == "worker" || strings.HasPrefix(name, "worker "):
		return RoleNodeWorker
	case name == "chip child":
		return RoleChip
	case strings.HasPrefix(name, "ext "):
		return RoleExternal
	case strings.HasPrefix(name, "pipeline slot "):
		return RoleSlot
	}
	return RoleOther
}

// A Stat is the min, median and max of one quantity over N binds, in ns.
type Stat struct {
	N      int   `json:"n"`
	Min    int64 `json:"min_ns"`
	Median int64 `json:"median_ns"`
	Max    int64 `json:"max_ns"`
}

func statOf(v []int64) Stat {
	if len(v) == 0 {
		return Stat{}
	}
	s := Stat{N: len(v), Min: v[0], Max: v[0], Median: median(v)}
	for _, x := range v {
		s.Min, s.Max = min(s.Min, x), max(s.Max, x)
	}
	return s
}

// A NameCount is how many spans of one name a lane holds.
type NameCount struct {
	Name  string `json:"name"`
	Count int    `json:"count"`
}

// A LaneSummary is one lane of the swimlane: its role, the spans on it
// by leaf name, and its busy time per bind (the union of its spans'
// intervals within the bind) over the binds it has spans in.
type LaneSummary struct {
	Pid   int64       `json:"pid"`
	Lane  uint64      `json:"lane"` // the tid, or a synthetic pipeline-slot lane id
	Name  string      `json:"name"`
	Role  string      `json:"role"`
	Spans []NameCount `json:"spans"`
	Busy  Stat        `json:"busy_per_bind"`
}

// A BindLanes is what `hbgtrace lanes` shows of one bind.
type BindLanes struct {
	Pid   int64  `json:"pid"`
	Inv   uint64 `json:"inv"`
	Round *int   `json:"round"`
	// Warm is false for the first bind of each process (its lowest inv;
	// rounds interleave the processes of a multi-rank run, so round 0
	// would name only one of them).
	Warm bool `json:"warm"`
	// Recorders is the number of worker lanes with a recorder span
	// (record_node, record_in_graph_task, record_sub_task,
	// build_definition) in the bind; MaxConcurrent the most whose
	// recording windows (first such span start to last one's end in the
	// bind) overlap at one instant.
	Recorders     int `json:"recorder_lanes"`
	MaxConcurrent int `json:"max_concurrent_recordings"`
	// LaneBirths counts the gaps of the bind that have a lane born inside
	// them, and BornLanes those lanes.
	//
	// ColdBirths: in the first bind of a process (not Warm) a prewarmed
	// recorder's first record is its first in the log too, and cannot be
	// told from a created one's birth, so whether it lands in a gap
	// depends on the scheduler. The comparison (Side) and the
	// assertion `no lane-start in gap(submit)` count warm binds only.
	LaneBirths int `json:"gaps_with_lane_birth"`
	BornLanes  int `json:"lanes_born_in_gaps"`
	// HasCommit and CommitWait as BindGaps'.
	HasCommit  bool  `json:"has_commit"`
	CommitWait int64 `json:"commit_wait_ns"`
}

// Label names the bind as BindGaps.Label does.
func (b *BindLanes) Label() string { return bindLabel(b.Pid, b.Inv, b.Round) }

func bindLabel(pid int64, inv uint64, round *int) string {
	l := fmt.Sprintf("bind pid=%d inv=%d", pid, inv)
	if round != nil {
		l += fmt.Sprintf(" round=%d", *round)
	}
	return l
}

// A LaneReport is the lane summary of one log (or of several read as one
// stream: the passes of one arm).
type LaneReport struct {
	Lanes []LaneSummary `json:"lanes"`
	Binds []BindLanes   `json:"binds"`
	Gaps  []BindGaps    `json:"gaps"`
	// CommitWait and Concurrent are over the warm binds that have a commit
	// (build_definition records) and recorder lanes respectively;
	// Concurrent's values are counts, not ns.
	CommitWait Stat `json:"commit_wait_warm"`
	Concurrent Stat `json:"max_concurrent_recordings_warm"`
}

// Lanes summarises the swimlane's lanes and binds. opts are Gaps'.
func (sw *Swimlane) Lanes(opts GapOptions) *LaneReport {
	rep := &LaneReport{Gaps: sw.Gaps(opts)}
	type lb struct {
		laneKey
		inv uint64
	}
	laneName := make(map[laneKey]string, len(sw.lanes))
	for _, ln := range sw.lanes {
		laneName[laneKey{ln.pid, ln.id}] = ln.name
	}
	counts := make(map[laneKey]map[string]int)
	ivs := make(map[lb][][2]int64)
	recs := make(map[lb][2]int64)
	binds := make(map[invKey]bool)
	for i := range sw.hosts {
		h := &sw.hosts[i]
		s := h.span
		lk := laneKey{s.Pid, h.lane}
		if counts[lk] == nil {
			counts[lk] = make(map[string]int)
		}
		counts[lk][leafName(s.Name)]++
		k := lb{lk, s.Inv}
		ivs[k] = append(ivs[k], [2]int64{s.Ts, s.End()})
		binds[invKey{s.Pid, s.Inv}] = true
		if laneName[lk] == recordWorkerLane && recorderPhases[leafName(s.Name)] {
			w, ok := recs[k]
			if !ok {
				w = [2]int64{s.Ts, s.End()}
			}
			recs[k] = [2]int64{min(w[0], s.Ts), max(w[1], s.End())}
		}
	}
	busy := make(map[laneKey][]int64)
	for k, v := range ivs {
		busy[k.laneKey] = append(busy[k.laneKey], busyLen(v))
	}
	for _, ln := range sw.lanes {
		lk := laneKey{ln.pid, ln.id}
		ls := LaneSummary{Pid: ln.pid, Lane: ln.id, Name: ln.name, Role: roleOf(ln.name), Busy: statOf(busy[lk])}
		for n, c := range counts[lk] {
			ls.Spans = append(ls.Spans, NameCount{n, c})
		}
		sort.Slice(ls.Spans, func(i, j int) bool {
			if ls.Spans[i].Count != ls.Spans[j].Count {
				return ls.Spans[i].Count > ls.Spans[j].Count
			}
			return ls.Spans[i].Name < ls.Spans[j].Name
		})
		rep.Lanes = append(rep.Lanes, ls)
	}

	gaps := make(map[invKey]*BindGaps, len(rep.Gaps))
	for i := range rep.Gaps {
		g := &rep.Gaps[i]
		gaps[invKey{g.Pid, g.Inv}] = g
	}
	windows := make(map[invKey][][2]int64)
	for k, w := range recs {
		ik := invKey{k.pid, k.inv}
		windows[ik] = append(windows[ik], w)
	}
	var keys []invKey
	for k := range binds {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].pid != keys[j].pid {
			return keys[i].pid < keys[j].pid
		}
		return keys[i].inv < keys[j].inv
	})
	var waits, conc []int64
	firstOf := make(map[int64]bool)
	for _, k := range keys {
		b := BindLanes{Pid: k.pid, Inv: k.inv}
		if opts.Round != nil {
			if r, ok := opts.Round(k.pid, k.inv); ok {
				b.Round = &r
			}
		}
		b.Warm = firstOf[k.pid]
		firstOf[k.pid] = true
		b.Recorders = len(windows[k])
		b.MaxConcurrent = maxOverlap(windows[k])
		if g := gaps[k]; g != nil {
			for _, p := range g.Gaps {
				if len(p.Created) > 0 {
					b.LaneBirths++
					b.BornLanes += len(p.Created)
				}
			}
			b.HasCommit, b.CommitWait = g.HasCommit, g.CommitWait
		}
		if b.Round == nil && gaps[k] == nil && b.Recorders == 0 {
			continue // a bind with nothing of this view: no round, no record
		}
		if b.Warm && b.HasCommit {
			waits = append(waits, b.CommitWait)
		}
		if b.Warm && b.Recorders > 0 {
			conc = append(conc, int64(b.MaxConcurrent))
		}
		rep.Binds = append(rep.Binds, b)
	}
	rep.CommitWait = statOf(waits)
	rep.Concurrent = statOf(conc)
	return rep
}

// leafName is the last dot-separated component of a span name.
func leafName(name string) string {
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		return name[i+1:]
	}
	return name
}

// busyLen is the length of the union of the intervals.
func busyLen(v [][2]int64) int64 {
	s := append([][2]int64(nil), v...)
	sort.Slice(s, func(i, j int) bool { return s[i][0] < s[j][0] })
	var total int64
	var cur [2]int64
	for i, x := range s {
		if i == 0 || x[0] > cur[1] {
			if i > 0 {
				total += cur[1] - cur[0]
			}
			cur = x
			continue
		}
		cur[1] = max(cur[1], x[1])
	}
	if len(s) > 0 {
		total += cur[1] - cur[0]
	}
	return total
}

// maxOverlap is the most intervals open at one instant; an interval that
// ends where another starts does not overlap it.
func maxOverlap(v [][2]int64) int {
	type ev struct {
		t int64
		d int
	}
	evs := make([]ev, 0, 2*len(v))
	for _, x := range v {
		evs = append(evs, ev{x[0], 1}, ev{x[1], -1})
	}
	sort.Slice(evs, func(i, j int) bool {
		if evs[i].t != evs[j].t {
			return evs[i].t < evs[j].t
		}
		return evs[i].d < evs[j].d
	})
	n, best := 0, 0
	for _, e := range evs {
		n += e.d
		best = max(best, n)
	}
	return best
}
