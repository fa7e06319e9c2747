package swimlane

import (
	"math"
	"strings"

	"github.com/hbgkit/hbgkit/trace"
)

// bindSegments are the phases drawn as chip.run.bind.<phase> on the bind's
// own thread: the segments the runtime writes under their own names
// (trace.RuntimeSegments: the snapshot's twelve HostPhaseKind bind kinds,
// and graph_pack, which replaces graph_upload in upstream 04c88e9).
var bindSegments = func() map[string]bool {
	m := map[string]bool{}
	for _, s := range trace.RuntimeSegments() {
		m[s] = true
	}
	return m
}()

// recorderPhases are the orchestrator phases that run on recorder threads:
// record_node (snapshot), record_in_graph_task (fork ba892918, upstream
// 16de3988), record_sub_task (04c88e9), and build_definition.
var recorderPhases = map[string]bool{
	"record_node": true, "record_in_graph_task": true, "record_sub_task": true,
	"build_definition": true,
}

// recordMerge is what merging an artifact into a log gives.
type recordMerge struct {
	spans    []trace.Span
	orphaned int // passes with no chip.run.bind in the log
	skipped  int // segments already in the log as spans
	// outOfRange counts records whose end_ns − start_ns is past int64:
	// left out, where the reference's Python integers would draw them.
	outOfRange int
	covered    map[invKey]bool // binds the artifact covers
}

// mergeRecords builds the spans of the artifact's passes under their
// chip.run.bind (docs/swimlanes.md "4. The bind's prepare path", with the
// newer reference versions' rules): a bind
// segment becomes chip.run.bind.<phase> on the bind's thread unless the log
// already has that span for the same bind; any other phase becomes
// chip.run.bind.host_orch.<phase> on the record's own thread, tagged as a
// recorder worker or the graph submitting thread where it is one.
func mergeRecords(spans []trace.Span, passes []trace.RecordPass) recordMerge {
	parents := make(map[invKey]*trace.Span)
	type segKey struct {
		invKey
		seg string
	}
	present := make(map[segKey]bool)
	for i := range spans {
		s := &spans[i]
		if s.IsDevice() {
			continue
		}
		k := invKey{s.Pid, s.Inv}
		if s.Name == "chip.run.bind" {
			parents[k] = s // the last one wins
			continue
		}
		if seg, ok := strings.CutPrefix(s.Name, "chip.run.bind."); ok && bindSegments[seg] {
			present[segKey{k, seg}] = true
		}
	}

	m := recordMerge{covered: make(map[invKey]bool)}
	for _, p := range passes {
		pid, inv, ok := p.Key()
		k := invKey{pid, inv}
		parent := parents[k]
		if !ok || parent == nil {
			m.orphaned++
			continue
		}
		for _, r := range p.Records {
			phase, start, end, ok := r.Interval()
			if !ok {
				continue
			}
			if start < 0 && end > math.MaxInt64+start {
				m.outOfRange++
				continue
			}
			s := trace.Span{
				Pid: parent.Pid, Inv: parent.Inv, Hid: parent.Hid,
				Ts: start, Dur: max(0, end-start),
				Thread: parent.Thread, Pos: p.Pos,
			}
			tag := "host_main"
			if bindSegments[phase] {
				m.covered[k] = true
				if present[segKey{k, phase}] {
					m.skipped++
					continue
				}
				s.Name = "chip.run.bind." + phase
				s.Depth = parent.Depth + 1
				s.Tid = parent.Tid
			} else {
				tid, worker := r.Tid(parent.Tid)
				s.Name = "chip.run.bind.host_orch." + phase
				s.Depth = parent.Depth + 2
				s.Tid = tid
				switch {
				case recorderPhases[phase] && worker:
					tag = "graph_record_worker"
				case phase == "graph_submit":
					tag = "graph_submit_main"
				}
			}
			s.Attrs = "detail=" + r.Detail() + " src=host_phase_records host_phase_thread=" + tag
			m.spans = append(m.spans, s)
		}
	}
	return m
}
