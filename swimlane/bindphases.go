package swimlane

import (
	"strings"

	"github.com/hbgkit/hbgkit/trace"
)

// bindPhaseSpans recovers chip.run.bind.<phase> spans from the log's
// `bind phase=` lines (docs/swimlanes.md "4. The bind's prepare path"),
// taking only the lines that match
// strace_timing's strict pattern (Enveloped).
//
// A line goes under a host chip.run.bind that contains its interval
// (inclusive). Unlike the reference, which takes the first containing bind
// of any process, a bind written by the same log thread ([T0x…]) is
// preferred, so that forked ranks with overlapping binds keep their own
// lines (docs/formats.md "bind phase= lines, E1 and E2", Attaching
// passes). When several binds of that thread contain the line
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

// passStarts returns, for each enveloped line, the earliest segment start
// of its pass (trace.GroupPasses: one log thread's lines in enum order);
// lines that are not enveloped get 0.
func passStarts(lines []trace.BindPhase) []int64 {
	var env []trace.BindPhase
	for _, bp := range lines {
		if bp.Enveloped {
			env = append(env, bp)
		}
	}
	passes := trace.GroupPasses(env)
	// GroupPasses gives each thread's lines to that thread's passes in
	// log order, so walking the lines again with one cursor per thread
	// finds each line's pass.
	byThread := make(map[string][]int)
	for p := range passes {
		byThread[passes[p].Thread] = append(byThread[passes[p].Thread], p)
	}
	type cursor struct{ k, used int }
	cur := make(map[string]*cursor)
	out := make([]int64, len(lines))
	for i := range lines {
		if !lines[i].Enveloped {
			continue
		}
		th := lines[i].Thread
		c := cur[th]
		if c == nil {
			c = &cursor{}
			cur[th] = c
		}
		if c.used == len(passes[byThread[th][c.k]].Segments) {
			c.k, c.used = c.k+1, 0
		}
		c.used++
		out[i], _ = passes[byThread[th][c.k]].Span()
	}
	return out
}
