package swimlane

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hbgkit/hbgkit/trace"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// bound is a bind of pid 9 / inv 5 on tid 9, inside its chip.run.
func bound() []trace.Span {
	return []trace.Span{
		sp(9, 9, 5, 0, "chip.run", 800, 1400, "run_id=0 dispatch_id=0 slot_id=0 generation=1 run_epoch=5"),
		sp(9, 9, 5, 1, "chip.run.bind", 900, 1000, ""),
	}
}

func TestMergeRecords(t *testing.T) {
	type span struct {
		name  string
		tid   int64
		depth int64
		ts    float64
		tag   string
	}
	tests := []struct {
		name     string
		spans    []trace.Span
		passes   string // host_phase_records.jsonl
		want     []span // the X events the artifact added, in event order
		lanes    map[[2]int64]string
		sum      Summary
		warnings int
	}{
		{
			name:  "segments on the bind thread, orchestrator ops on their own",
			spans: bound(),
			passes: pass(9, 5, rec("args", 1000, 1100, 0, 9), rec("record_node", 1200, 1250, 3, 42),
				rec("graph_submit", 1300, 1400, 4294967300, 9)),
			want: []span{
				{"chip.run.bind.args", 9, 2, 1.0, "host_main"},
				{"chip.run.bind.host_orch.record_node", 42, 3, 1.2, "graph_record_worker"},
				{"chip.run.bind.host_orch.graph_submit", 9, 3, 1.3, "graph_submit_main"},
			},
			lanes: map[[2]int64]string{{9, 9}: "graph submit main", {9, 42}: "graph record worker"},
			sum:   Summary{HostSpans: 2, Records: 3},
		},
		{
			name:  "records without tid stay on the bind thread",
			spans: bound(),
			passes: pass(9, 5, rec("args", 1000, 1100, 0, -1), rec("record_node", 1200, 1250, 3, -1),
				rec("graph_submit", 1300, 1400, 4294967300, -1)),
			want: []span{
				{"chip.run.bind.args", 9, 2, 1.0, "host_main"},
				{"chip.run.bind.host_orch.record_node", 9, 3, 1.2, "host_main"},
				{"chip.run.bind.host_orch.graph_submit", 9, 3, 1.3, "graph_submit_main"},
			},
			lanes: map[[2]int64]string{{9, 9}: "graph submit main"},
			sum:   Summary{HostSpans: 2, Records: 3},
		},
		{
			name:  "a pass from another run is dropped with a warning",
			spans: bound(),
			passes: pass(9, 999, rec("args", 1000, 1100, 0, 9)) +
				pass(`"9"`, 5, rec("args", 1000, 1100, 0, 9)),
			lanes:    map[[2]int64]string{{9, 9}: "chip child"},
			sum:      Summary{HostSpans: 2, Orphaned: 2},
			warnings: 1,
		},
		{
			name:  "newer recorder phase names and graph_pack",
			spans: bound(),
			passes: pass(9, 5, rec("graph_pack", 1000, 1100, 0, 9), rec("record_in_graph_task", 1200, 1210, 1, 42),
				rec("record_sub_task", 1220, 1230, 1, 43), rec("build_definition", 1240, 1250, 1, 9)),
			want: []span{
				{"chip.run.bind.graph_pack", 9, 2, 1.0, "host_main"},
				{"chip.run.bind.host_orch.record_in_graph_task", 42, 3, 1.2, "graph_record_worker"},
				{"chip.run.bind.host_orch.record_sub_task", 43, 3, 1.22, "graph_record_worker"},
				{"chip.run.bind.host_orch.build_definition", 9, 3, 1.24, "host_main"},
			},
			lanes: map[[2]int64]string{{9, 9}: "chip child", {9, 42}: "graph record worker", {9, 43}: "graph record worker"},
			sum:   Summary{HostSpans: 2, Records: 4},
		},
		{
			name:   "a segment already in the log is not drawn twice",
			spans:  append(bound(), sp(9, 9, 5, 2, "chip.run.bind.args", 1000, 100, "bytes=4096")),
			passes: pass(9, 5, rec("args", 1000, 1100, 0, 9), rec("graph_submit", 1300, 1400, 1, 9)),
			want:   []span{{"chip.run.bind.host_orch.graph_submit", 9, 3, 1.3, "graph_submit_main"}},
			lanes:  map[[2]int64]string{{9, 9}: "graph submit main"},
			sum:    Summary{HostSpans: 3, Records: 1, Skipped: 1},
		},
		{
			name:   "negative duration, non-positive tid",
			spans:  bound(),
			passes: pass(9.0, 5, rec("record_node", 1300, 1200, `"x y"`, 0)),
			want:   []span{{"chip.run.bind.host_orch.record_node", 9, 3, 1.3, "host_main"}},
			lanes:  map[[2]int64]string{{9, 9}: "chip child"},
			sum:    Summary{HostSpans: 2, Records: 1},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, sw := swimlaneDoc(t, &trace.Log{Spans: tc.spans}, loadPasses(t, tc.passes))
			checkInvariants(t, d)
			var got []span
			for _, e := range d.xEvents() {
				if e.Args["src"] != "host_phase_records" {
					continue
				}
				depth, err := e.Args["depth"].(json.Number).Int64()
				require.NoError(t, err)
				got = append(got, span{e.Name, e.Tid, depth, e.Ts, e.Args["host_phase_thread"].(string)})
				assert.GreaterOrEqual(t, e.Dur, 0.0)
			}
			assert.Equal(t, tc.want, got)
			assert.Equal(t, tc.lanes, d.threadNames())
			assert.Equal(t, tc.sum, sw.Summary())
			assert.Len(t, sw.Warnings(), tc.warnings)
			for _, w := range sw.Warnings() {
				assert.True(t, strings.HasPrefix(w, "warning: "), w)
				assert.Contains(t, w, "is the log from the same run as the artifact?")
			}
		})
	}
}

func TestBindPhaseLines(t *testing.T) {
	line := func(thread, phase string, start, dur int64, attrs string) trace.BindPhase {
		return trace.BindPhase{Phase: phase, StartNs: start, DurNs: dur, Attrs: attrs, Thread: thread, Enveloped: true}
	}
	bind := func(pid, tid int64, inv uint64, ts, dur int64, thread string) trace.Span {
		s := sp(pid, tid, inv, 1, "chip.run.bind", ts, dur, "")
		s.Thread = thread
		return s
	}
	type got struct {
		name  string
		pid   int64
		inv   float64
		attrs string
	}
	tests := []struct {
		name   string
		spans  []trace.Span
		lines  []trace.BindPhase
		passes string
		want   []got
	}{
		{
			name:  "contained lines only, inclusive ends",
			spans: []trace.Span{bind(7, 70, 1, 10000, 5000, "a"), sp(7, 70, 1, 1, "chip.run.bind", 30000, 5000, "clk=dev")},
			lines: []trace.BindPhase{
				line("a", "args", 10000, 500, "ntensor=2 "),
				line("a", "arena_h2d", 14900, 200, ""),
				line("a", "host_view_close", 14000, 1000, ""),
				line("a", "runtime_init", 30100, 10, ""),
				{Phase: "relocate", StartNs: 10100, DurNs: 1, Thread: "a"},
			},
			want: []got{
				{"chip.run.bind.args", 7, 1, "ntensor=2 log_thread=0xa src=bind_phase"},
				{"chip.run.bind.host_view_close", 7, 1, "log_thread=0xa src=bind_phase"},
			},
		},
		{
			name: "overlapping binds of two ranks: each line goes to its own thread's bind",
			spans: []trace.Span{
				bind(7, 70, 1, 10000, 10000, "a"),
				bind(8, 80, 1, 12000, 10000, "b"),
			},
			lines: []trace.BindPhase{
				line("b", "args", 12500, 100, ""),
				line("a", "args", 12600, 100, ""),
				line("c", "args", 12700, 100, ""),
			},
			want: []got{
				{"chip.run.bind.args", 8, 1, "log_thread=0xb src=bind_phase"},
				{"chip.run.bind.args", 7, 1, "log_thread=0xa src=bind_phase"},
				{"chip.run.bind.args", 7, 1, "log_thread=0xc src=bind_phase"},
			},
		},
		{
			name: "forked ranks sharing a log thread: the pass's closest bind",
			spans: []trace.Span{
				bind(7, 70, 1, 10000, 10000, "a"),
				bind(8, 80, 1, 11000, 10000, "a"),
			},
			lines: []trace.BindPhase{
				line("a", "args", 11000, 100, ""),
				line("a", "host_orch", 12000, 100, ""),
				line("a", "args", 10000, 100, ""),
				line("a", "host_orch", 11500, 100, ""),
			},
			want: []got{
				{"chip.run.bind.args", 8, 1, "log_thread=0xa src=bind_phase"},
				{"chip.run.bind.host_orch", 8, 1, "log_thread=0xa src=bind_phase"},
				{"chip.run.bind.args", 7, 1, "log_thread=0xa src=bind_phase"},
				{"chip.run.bind.host_orch", 7, 1, "log_thread=0xa src=bind_phase"},
			},
		},
		{
			name:  "a bind the artifact covers takes no lines",
			spans: []trace.Span{bind(7, 70, 1, 10000, 5000, "a"), bind(7, 70, 2, 20000, 5000, "a")},
			lines: []trace.BindPhase{
				line("a", "host_orch", 11000, 100, ""),
				line("a", "host_orch", 21000, 100, ""),
			},
			passes: pass(7, 1, rec("args", 10000, 10500, 0, 70)),
			want:   []got{{"chip.run.bind.host_orch", 7, 2, "log_thread=0xa src=bind_phase"}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, sw := swimlaneDoc(t, &trace.Log{Spans: tc.spans, BindPhases: tc.lines}, loadPasses(t, tc.passes))
			checkInvariants(t, d)
			var g []got
			for _, e := range d.xEvents() {
				if e.Args["src"] == "bind_phase" {
					inv, err := e.Args["inv"].(json.Number).Float64()
					require.NoError(t, err)
					g = append(g, got{e.Name, e.Pid, inv, e.Args["attrs"].(string)})
					assert.Equal(t, "0x"+strings.TrimPrefix(e.Args["log_thread"].(string), "0x"), e.Args["log_thread"])
				}
			}
			assert.ElementsMatch(t, tc.want, g)
			assert.Equal(t, len(tc.want), sw.Summary().BindPhases)
		})
	}
}

// TestArtifactBadInput feeds artifacts a real run can leave behind: lines
// that are not pass objects, a truncated last line, records with missing or
// odd fields. Each gives the reference's result, never a failure.
func TestArtifactBadInput(t *testing.T) {
	tests := []struct {
		name  string
		text  string
		want  []string // names of the spans the artifact added
		attrs []string
		sum   Summary
	}{
		{
			name: "non-objects, records not a list, truncated last line, empty lines",
			text: pass(9, 5, rec("args", 1000, 1100, 0, 9)) + "null\n[1, 2, 3]\n42\n\"a string\"\n" +
				`{"pid": 9, "inv": 5, "records": {"phase": "host_orch"}}` + "\n\n" +
				`{"pid": 9, "inv": 5}` + "\n" +
				`{"pid": 9, "inv": 5, "records": [{"phase": "gm_heap", "start_ns": 10`,
			want:  []string{"chip.run.bind.args"},
			attrs: []string{"detail=0 src=host_phase_records host_phase_thread=host_main"},
			sum:   Summary{HostSpans: 2, Records: 1},
		},
		{
			name: "records with missing or odd fields",
			text: pass(9, 5,
				`{"start_ns": 1000, "end_ns": 1001}`,
				`{"phase": "args", "end_ns": 1001}`,
				`{"phase": "args", "start_ns": null, "end_ns": 1001}`,
				`{"phase": "args", "start_ns": "x", "end_ns": 1001}`,
				`"not a record"`,
				`{"phase": 7, "start_ns": " 1_000 ", "end_ns": 1020.9, "detail": "big", "tid": "abc"}`,
				`{"phase": "record_node", "start_ns": 1000, "end_ns": 1002, "detail": 1.5, "tid": -3}`,
				`{"phase": "submit_task", "start_ns": true, "end_ns": 1003, "detail": [1, 2]}`,
			),
			want: []string{"chip.run.bind.host_orch.submit_task", "chip.run.bind.host_orch.7", "chip.run.bind.host_orch.record_node"},
			attrs: []string{
				"detail=[1, 2] src=host_phase_records host_phase_thread=host_main",
				"detail=big src=host_phase_records host_phase_thread=host_main",
				"detail=1.5 src=host_phase_records host_phase_thread=host_main",
			},
			sum: Summary{HostSpans: 2, Records: 3},
		},
		{
			name: "an artifact from another run",
			text: pass(9, 6, rec("args", 1000, 1100, 0, 9)) + pass(10, 5, rec("args", 1000, 1100, 0, 9)),
			sum:  Summary{HostSpans: 2, Orphaned: 2},
		},
		{
			name: "an empty artifact",
			sum:  Summary{HostSpans: 2},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, sw := swimlaneDoc(t, &trace.Log{Spans: bound()}, loadPasses(t, tc.text))
			checkInvariants(t, d)
			var names, attrs []string
			for _, e := range d.xEvents() {
				if e.Args["src"] == "host_phase_records" {
					names = append(names, e.Name)
					attrs = append(attrs, e.Args["attrs"].(string))
				}
			}
			assert.Equal(t, tc.want, names)
			assert.Equal(t, tc.attrs, attrs)
			assert.Equal(t, tc.sum, sw.Summary())
			if tc.sum.Orphaned > 0 {
				assert.Equal(t, []string{"warning: 2 phase-record pass(es) had no matching chip.run.bind span in this log and were dropped — is the log from the same run as the artifact?"}, sw.Warnings())
			} else {
				assert.Empty(t, sw.Warnings())
			}
		})
	}
}
