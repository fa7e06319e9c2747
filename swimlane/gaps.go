package swimlane

import (
	"fmt"
	"sort"
	"strings"
)

// DefaultMinGapFloor is the smallest default gap threshold, 20 µs: the
// default is the larger of this and 4× the bind's median gap.
const DefaultMinGapFloor = 20_000

// Names of the merged artifact spans the gap finder reads.
const (
	graphSubmitSpan     = "chip.run.bind.host_orch.graph_submit"
	buildDefinitionSpan = "chip.run.bind.host_orch.build_definition"
	submitMainLane      = "graph submit main"
	recordWorkerLane    = "graph record worker"
)

// GapOptions are the knobs of Gaps.
type GapOptions struct {
	// MinGap is the gap threshold in ns; 0 means the default, the larger
	// of 4× the bind's median gap and DefaultMinGapFloor.
	MinGap int64
	// Round maps a bind to its row index in `hbgtrace rounds`; nil, or
	// false, when it has none.
	Round func(pid int64, inv uint64) (int, bool)
}

// A BindGaps is what Gaps finds in one bind: the gaps on its graph submit
// main lane between consecutive graph_submit records that are longer than
// the threshold, and its commit wait.
type BindGaps struct {
	Pid     int64  `json:"pid"`
	Inv     uint64 `json:"inv"`
	Round   *int   `json:"round"` // row of `hbgtrace rounds`, nil when none
	Tid     int64  `json:"tid"`   // the submitting thread
	BindTs  int64  `json:"bind_ts_ns"`
	Submits int    `json:"graph_submits"`
	// MedianGap is the median of all the bind's gaps between consecutive
	// graph_submit records, in ns; MinGap the threshold applied.
	// Overlaps counts the graph_submit records that start before the
	// ones before them end (duplicated or reversed records): they make
	// no gap, and the median leaves them out, so it is never negative.
	MedianGap int64 `json:"median_gap_ns"`
	Overlaps  int   `json:"overlapping_submits"`
	MinGap    int64 `json:"min_gap_ns"`
	Gaps      []Gap `json:"gaps"`
	// LastSubmitEnd and LastBuildEnd are the ends of the bind's last
	// graph_submit and last build_definition records; CommitWait is
	// max(0, LastBuildEnd − LastSubmitEnd), and all three are meaningful
	// only when HasCommit (the bind has build_definition records).
	HasCommit     bool  `json:"has_commit"`
	LastSubmitEnd int64 `json:"last_submit_end_ns"`
	LastBuildEnd  int64 `json:"last_build_definition_end_ns"`
	CommitWait    int64 `json:"commit_wait_ns"`
}

// A Gap is one wait on the submitting thread between two graph_submit
// records.
type Gap struct {
	After int   `json:"after_submit"` // 0-based index of the graph_submit it follows
	Start int64 `json:"start_ns"`     // end of that graph_submit
	End   int64 `json:"end_ns"`       // start of the next one
	// NextEnd is the end of the graph_submit that closes the gap.
	NextEnd int64 `json:"next_submit_end_ns"`
	// Created are the recorder lanes whose first record in the whole log
	// starts inside the gap or inside the graph_submit that closes it: a
	// recorder created while the submitting thread waited gets its first
	// job from that submission, so it cannot record earlier. This is the
	// signature of a pthread_create on the submitting thread.
	Created []RecorderLane `json:"created_lanes"`
}

// Dur returns the gap's length in ns.
func (g Gap) Dur() int64 { return g.End - g.Start }

// A RecorderLane is a graph record worker lane and the start of its first
// record.
type RecorderLane struct {
	Name  string `json:"name"` // as in the swimlane, with the tid
	Tid   int64  `json:"tid"`
	First int64  `json:"first_record_ns"`
}

// Gaps finds the gaps of every bind that has at least one graph_submit
// record (those come only from host_phase_records.jsonl), in (pid, inv)
// order. It returns nil when no bind has one.
func (sw *Swimlane) Gaps(opts GapOptions) []BindGaps {
	laneName := make(map[laneKey]string, len(sw.lanes))
	for _, ln := range sw.lanes {
		laneName[laneKey{ln.pid, ln.id}] = ln.name
	}
	type bind struct {
		tid       int64
		ts        int64
		submits   [][2]int64
		lastBuild int64
		hasBuild  bool
	}
	binds := make(map[invKey]*bind)
	get := func(k invKey) *bind {
		b := binds[k]
		if b == nil {
			b = &bind{}
			binds[k] = b
		}
		return b
	}
	// The first record of every recorder lane, over the whole log.
	first := make(map[laneKey]int64)
	for i := range sw.hosts {
		h := &sw.hosts[i]
		s := h.span
		lk := laneKey{s.Pid, h.lane}
		switch {
		case s.Name == "chip.run.bind":
			b := get(invKey{s.Pid, s.Inv})
			b.ts = s.Ts
		case s.Name == graphSubmitSpan && laneName[lk] == submitMainLane:
			b := get(invKey{s.Pid, s.Inv})
			b.submits = append(b.submits, [2]int64{s.Ts, s.End()})
			b.tid = s.Tid
		case s.Name == buildDefinitionSpan:
			b := get(invKey{s.Pid, s.Inv})
			if !b.hasBuild || s.End() > b.lastBuild {
				b.lastBuild = s.End()
			}
			b.hasBuild = true
		}
		if laneName[lk] == recordWorkerLane {
			if f, ok := first[lk]; !ok || s.Ts < f {
				first[lk] = s.Ts
			}
		}
	}
	type firstRec struct {
		pid int64
		RecorderLane
	}
	var firsts []firstRec
	for lk, ts := range first {
		// A recorder lane is never a synthetic pipeline-slot lane, so its
		// id is the thread's tid.
		firsts = append(firsts, firstRec{lk.pid, RecorderLane{
			Name: fmt.Sprintf("%s (tid %d)", recordWorkerLane, lk.lane), Tid: int64(lk.lane), First: ts}})
	}
	sort.Slice(firsts, func(i, j int) bool {
		if firsts[i].First != firsts[j].First {
			return firsts[i].First < firsts[j].First
		}
		return firsts[i].Tid < firsts[j].Tid
	})

	var keys []invKey
	for k, b := range binds {
		if len(b.submits) > 0 {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].pid != keys[j].pid {
			return keys[i].pid < keys[j].pid
		}
		return keys[i].inv < keys[j].inv
	})
	var out []BindGaps
	for _, k := range keys {
		b := binds[k]
		sort.Slice(b.submits, func(i, j int) bool {
			if b.submits[i][0] != b.submits[j][0] {
				return b.submits[i][0] < b.submits[j][0]
			}
			return b.submits[i][1] < b.submits[j][1]
		})
		bg := BindGaps{Pid: k.pid, Inv: k.inv, Tid: b.tid, BindTs: b.ts, Submits: len(b.submits)}
		if opts.Round != nil {
			if r, ok := opts.Round(k.pid, k.inv); ok {
				bg.Round = &r
			}
		}
		var all []int64
		lastEnd := b.submits[0][1]
		for i := 1; i < len(b.submits); i++ {
			if d := b.submits[i][0] - lastEnd; d >= 0 {
				all = append(all, d)
			} else {
				bg.Overlaps++
			}
			lastEnd = max(lastEnd, b.submits[i][1])
		}
		bg.LastSubmitEnd = lastEnd
		bg.MedianGap = median(all)
		bg.MinGap = opts.MinGap
		if bg.MinGap <= 0 {
			bg.MinGap = max(4*bg.MedianGap, DefaultMinGapFloor)
		}
		// A gap runs from the latest end of the submissions so far to the
		// next start, so an overlapping pair never makes a negative gap.
		end := b.submits[0][1]
		for i := 1; i < len(b.submits); i++ {
			g := Gap{After: i - 1, Start: end, End: b.submits[i][0], NextEnd: b.submits[i][1]}
			end = max(end, b.submits[i][1])
			if g.Dur() <= bg.MinGap {
				continue
			}
			for _, f := range firsts {
				if f.pid == k.pid && f.First >= g.Start && f.First <= g.NextEnd {
					g.Created = append(g.Created, f.RecorderLane)
				}
			}
			bg.Gaps = append(bg.Gaps, g)
		}
		if b.hasBuild {
			bg.HasCommit = true
			bg.LastBuildEnd = b.lastBuild
			bg.CommitWait = max(0, b.lastBuild-bg.LastSubmitEnd)
		}
		out = append(out, bg)
	}
	return out
}

// median returns the median of v (the mean of the two middle values for
// an even count), 0 for none.
func median(v []int64) int64 {
	if len(v) == 0 {
		return 0
	}
	s := append([]int64(nil), v...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return s[n/2-1] + (s[n/2]-s[n/2-1])/2
}

// Label names a bind in gap reports and the HTML view: "bind pid=9 inv=5
// round=3".
func (b *BindGaps) Label() string {
	l := fmt.Sprintf("bind pid=%d inv=%d", b.Pid, b.Inv)
	if b.Round != nil {
		l += fmt.Sprintf(" round=%d", *b.Round)
	}
	return l
}

// LaneNames names recorder lanes for a gap table, "-" for none.
func LaneNames(ls []RecorderLane) string {
	if len(ls) == 0 {
		return "-"
	}
	names := make([]string, len(ls))
	for i, l := range ls {
		names[i] = l.Name
	}
	return strings.Join(names, ", ")
}

func us(ns int64) string { return fmt.Sprintf("%.1f", float64(ns)/1e3) }
