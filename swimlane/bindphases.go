package swimlane

import (
	"strings"

	"github.com/hbgkit/hbgkit/trace"
)

// bindKindOrder is the HostPhaseKind enum order in which the runtime writes
// one pass's `bind phase=` lines (REFERENCE §1.4).
var bindKindOrder = map[string]int{
	"args": 0, "arena_build": 1, "static_arena": 2, "gm_heap": 3,
	"shared_mem": 4, "runtime_init": 5, "host_orch": 6, "graph_upload": 7,
	"relocate": 8, "sm_h2d": 9, "arena_h2d": 10, "host_view_close": 11,
}

// bindPhaseSpans recovers chip.run.bind.<phase> spans from the log's
// `bind phase=` lines (REFERENCE §3.8b), taking only the lines that match
// strace_timing's strict pattern (Enveloped).
//
// A line goes under a host chip.run.bind that contains its interval
// (inclusive). Unlike the reference, which takes the first containing bind
// of any process, a bind written by the same log thread ([T0x…]) is
// preferred, so that forked ranks with overlapping binds keep their own
// lines (DESIGN §3). When several binds of that thread contain the line
// (forked ranks can share a T0x value), the one whose start is closest to
// the earliest segment of the line's pass wins; a pass is a run of one
// thread's lines in enum order. With no bind of its thread, the first
// containing bind decides. A bind the artifact covers takes no lines.
func bindPhaseSpans(spans []trace.Span, lines []trace.BindPhase, covered map[invKey]bool) []trace.Span {
	var binds []*trace.Span
	for i := range spans {
		if spans[i].Name == "chip.run.bind" && !spans[i].IsDevice() {
			binds = append(binds, &spans[i])
		}
	}
	if len(binds) == 0 {
		return nil
	}
	passStart := passStarts(lines)

	var out []trace.Span
	for i := range lines {
		bp := &lines[i]
		if !bp.Enveloped {
			continue
		}
		parent := chooseBind(binds, bp, passStart[i])
		if parent == nil || covered[invKey{parent.Pid, parent.Inv}] {
			continue
		}
		attrs := strings.TrimSpace(strings.TrimSpace(bp.Attrs) + " log_thread=0x" + bp.Thread + " src=bind_phase")
		out = append(out, trace.Span{
			Pid: parent.Pid, Tid: parent.Tid, Inv: parent.Inv, Hid: parent.Hid,
			Depth: parent.Depth + 1,
			Name:  "chip.run.bind." + bp.Phase,
			Ts:    bp.StartNs, Dur: bp.DurNs,
			Attrs:  attrs,
			Thread: bp.Thread,
			Pos:    bp.Pos,
		})
	}
	return out
}

// chooseBind picks the parent bind of one line, or nil.
func chooseBind(binds []*trace.Span, bp *trace.BindPhase, passStart int64) *trace.Span {
	var first, own *trace.Span
	for _, b := range binds {
		if b.Ts > bp.StartNs || bp.End() > b.End() {
			continue
		}
		if first == nil {
			first = b
		}
		if b.Thread != bp.Thread {
			continue
		}
		if own == nil || absDiff(b.Ts, passStart) < absDiff(own.Ts, passStart) {
			own = b
		}
	}
	if own != nil {
		return own
	}
	return first
}

func absDiff(a, b int64) uint64 {
	if a > b {
		return uint64(a) - uint64(b)
	}
	return uint64(b) - uint64(a)
}

// passStarts groups the enveloped lines into passes, one log thread's lines
// in enum order, a new pass starting where the enum index does not increase
// (a phase outside the enum joins the current pass), and returns for each
// line the earliest start of its pass.
func passStarts(lines []trace.BindPhase) []int64 {
	type cur struct {
		last  int
		pass  int
		valid bool
	}
	threads := make(map[string]*cur)
	passOf := make([]int, len(lines))
	var starts []int64
	for i := range lines {
		bp := &lines[i]
		if !bp.Enveloped {
			passOf[i] = -1
			continue
		}
		c := threads[bp.Thread]
		idx, known := bindKindOrder[bp.Phase]
		if c == nil || !c.valid || (known && idx <= c.last) {
			if c == nil {
				c = &cur{}
				threads[bp.Thread] = c
			}
			c.pass, c.valid, c.last = len(starts), true, -1
			starts = append(starts, bp.StartNs)
		}
		if known {
			c.last = idx
		}
		passOf[i] = c.pass
		starts[c.pass] = min(starts[c.pass], bp.StartNs)
	}
	out := make([]int64, len(lines))
	for i, p := range passOf {
		if p >= 0 {
			out[i] = starts[p]
		}
	}
	return out
}
