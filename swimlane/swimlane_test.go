package swimlane

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/hbgkit/hbgkit/trace"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runs are three phased runs on tid 7 with slots 0, 1, 0, overlapping
// (the reference's own test of pipeline-slot lanes).
func threeRuns() []trace.Span {
	var out []trace.Span
	for _, r := range []struct {
		inv              uint64
		slot             string
		start, end       int64
		devStart, devDur int64
	}{{1, "0", 50, 210, 100, 100}, {2, "1", 150, 350, 240, 100}, {3, "0", 300, 490, 380, 100}} {
		out = append(out,
			sp(7, 7, r.inv, 1, "chip.run.bind", r.start, 20, ""),
			sp(7, 7, r.inv, 1, "chip.run.runner_run", r.devStart, r.devDur, ""),
			sp(7, 7, r.inv, 0, "chip.run", r.start, r.end-r.start, "run_id=0 dispatch_id=0 slot_id="+r.slot+" generation=1 run_epoch=1"))
	}
	return out
}

func TestLaneNames(t *testing.T) {
	tests := []struct {
		name  string
		spans []trace.Span
		lanes map[[2]int64]string
		procs map[int64]string
	}{
		{
			name: "facade and scheduler",
			spans: []trace.Span{
				sp(41, 410, 7, 0, "node.graph_build", 1000, 900, "run_id=7 role=facade"),
				sp(41, 410, 7, 0, "node.submit", 1100, 100, "run_id=7 task_slot=12 group_index=0 worker_id=3 role=facade"),
				sp(41, 411, 7, 0, "node.dispatch", 1400, 80, "run_id=7 task_slot=12 group_index=0 worker_id=3 dispatch_id=99 role=scheduler"),
			},
			lanes: map[[2]int64]string{{41, 410}: "orchestrator / facade", {41, 411}: "scheduler"},
			procs: map[int64]string{41: "simpler node (pid=41)"},
		},
		{
			name: "scheduler wins over worker whatever comes first",
			spans: []trace.Span{
				sp(41, 411, 7, 0, "node.frame_submit", 1410, 40, "run_id=7 worker_id=3 role=worker"),
				sp(41, 411, 7, 0, "node.dispatch", 1400, 80, "run_id=7 role=scheduler"),
				sp(41, 411, 7, 0, "node.complete", 2000, 30, "run_id=7 worker_id=3 role=worker"),
			},
			lanes: map[[2]int64]string{{41, 411}: "scheduler"},
		},
		{
			name: "worker ids",
			spans: []trace.Span{
				sp(41, 1, 7, 0, "node.activate", 1, 1, "role=worker worker_id=3"),
				sp(41, 1, 7, 0, "node.complete", 2, 1, "role=worker worker_id=3"),
				sp(41, 2, 7, 0, "node.activate", 1, 1, "role=worker worker_id=1"),
				sp(41, 2, 7, 0, "node.complete", 2, 1, "role=worker worker_id=2"),
				sp(41, 3, 7, 0, "node.complete", 1, 1, "outcome=0"),
				sp(41, 4, 7, 0, "node.activate", 1, 1, "role=worker"),
				sp(41, 5, 7, 0, "node.activate", 1, 1, "role=worker worker_id=3"),
				sp(41, 5, 7, 0, "node.activate", 2, 1, "role=worker"),
			},
			lanes: map[[2]int64]string{{41, 1}: "worker 3", {41, 2}: "worker", {41, 3}: "worker", {41, 4}: "worker", {41, 5}: "worker"},
		},
		{
			name: "graph_build leaf is facade whatever its role",
			spans: []trace.Span{
				sp(41, 415, 7, 0, "network2.graph_build", 1, 1, "role=scheduler"),
			},
			lanes: map[[2]int64]string{{41, 415}: "orchestrator / facade"},
		},
		{
			name: "chip child, unknown and core families",
			spans: []trace.Span{
				sp(41, 416, 2, 0, "chip.run", 1, 10, ""),
				sp(41, 416, 0, 0, "ext.pypto.step", 2, 3, ""),
				sp(41, 417, 2, 0, "something_else.foo", 1, 1, ""),
				sp(41, 418, 2, 0, "core.pipe", 1, 1, ""),
			},
			lanes: map[[2]int64]string{{41, 416}: "chip child", {41, 417}: "tid 417", {41, 418}: "tid 418"},
			procs: map[int64]string{41: "simpler chip child (pid=41)"},
		},
		{
			name: "external producers",
			spans: []trace.Span{
				sp(90, 900, 0, 0, "ext.pypto.decode_layer", 100, 50, ""),
				sp(90, 900, 0, 1, "ext.pypto.attention.qk", 110, 5, "role=facade"),
				sp(91, 910, 0, 0, "ext.pypto", 100, 5, ""),
				sp(91, 913, 0, 0, "ext.host.foo", 100, 5, "role=scheduler worker_id=3"),
				sp(91, 913, 0, 0, "ext.app.bar", 101, 5, ""),
				sp(92, 920, 0, 0, "ext.", 100, 5, ""),
			},
			lanes: map[[2]int64]string{{90, 900}: "ext pypto", {91, 910}: "tid 910", {91, 913}: "ext app/host", {92, 920}: "tid 920"},
			procs: map[int64]string{
				90: "external producer pypto (pid=90)",
				91: "external producer app/host (pid=91)",
				92: "external producer unattributed (pid=92)",
			},
		},
		{
			name: "node process with an ext lane",
			spans: []trace.Span{
				sp(41, 410, 7, 0, "node.graph_build", 1, 1, "role=facade"),
				sp(41, 411, 0, 0, "ext.pypto.x", 1, 1, ""),
			},
			lanes: map[[2]int64]string{{41, 410}: "orchestrator / facade", {41, 411}: "ext pypto"},
			procs: map[int64]string{41: "simpler node (pid=41)"},
		},
		{
			name: "device chip span makes a chip child process",
			spans: []trace.Span{
				sp(41, 411, 0, 0, "ext.pypto.x", 1, 1, ""),
				sp(41, 412, 7, 0, "chip.run.runner_run.device_wall", 0, 1, "clk=dev"),
			},
			lanes: map[[2]int64]string{{41, 411}: "ext pypto"},
			procs: map[int64]string{41: "simpler chip child (pid=41)"},
		},
		{
			name:  "pipeline slots split one thread",
			spans: append(threeRuns(), sp(8, 900, 1, 0, "chip.run", 10, 5, "")),
			lanes: map[[2]int64]string{{7, 901}: "pipeline slot 0 (tid 7)", {7, 902}: "pipeline slot 1 (tid 7)", {8, 900}: "chip child"},
		},
		{
			name: "no split without overlap",
			spans: []trace.Span{
				sp(7, 7, 1, 0, "chip.run", 0, 10, "slot_id=0"),
				sp(7, 7, 2, 0, "chip.run", 20, 10, "slot_id=1"),
			},
			lanes: map[[2]int64]string{{7, 7}: "chip child"},
		},
		{
			name: "no split when one slot's runs overlap",
			spans: []trace.Span{
				sp(7, 7, 1, 0, "chip.run", 0, 10, "slot_id=0"),
				sp(7, 7, 2, 0, "chip.run", 5, 10, "slot_id=1"),
				sp(7, 7, 3, 0, "chip.run", 8, 10, "slot_id=1"),
			},
			lanes: map[[2]int64]string{{7, 7}: "chip child"},
		},
		{
			name: "no split when a span has no slot",
			spans: []trace.Span{
				sp(7, 7, 1, 0, "chip.run", 0, 10, "slot_id=0"),
				sp(7, 7, 2, 0, "chip.run", 5, 10, "slot_id=1"),
				sp(7, 7, 3, 1, "chip.run.bind", 5, 1, ""),
			},
			lanes: map[[2]int64]string{{7, 7}: "chip child"},
		},
		{
			name: "split thread keeps its ext spans on the real tid",
			spans: append(threeRuns(),
				sp(7, 7, 0, 0, "ext.pypto.step", 60, 5, "run_id=0 task_slot=12 slot_id=99 role=facade")),
			lanes: map[[2]int64]string{{7, 7}: "ext pypto", {7, 8}: "pipeline slot 0 (tid 7)", {7, 9}: "pipeline slot 1 (tid 7)"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, _ := swimlaneDoc(t, &trace.Log{Spans: tc.spans}, nil)
			checkInvariants(t, d)
			assert.Equal(t, tc.lanes, d.threadNames())
			if tc.procs != nil {
				assert.Equal(t, tc.procs, d.processNames())
			}
		})
	}
}

func TestPipelineSlotSplitEvents(t *testing.T) {
	d, _ := swimlaneDoc(t, &trace.Log{Spans: threeRuns()}, nil)
	roots := make(map[int64]int)
	for _, e := range d.xEvents() {
		assert.Equal(t, json.Number("7"), e.Args["os_tid"], "os_tid keeps the real tid")
		if e.Name == "chip.run" {
			roots[e.Tid]++
		}
	}
	assert.Equal(t, map[int64]int{8: 2, 9: 1}, roots)
}

func TestDispatchFlows(t *testing.T) {
	spans := []trace.Span{
		sp(41, 410, 7, 0, "node.submit", 100, 20, "run_id=7 task_slot=12 group_index=0 worker_id=3 role=facade"),
		sp(41, 411, 7, 0, "node.dispatch", 200, 10, "run_id=7 task_slot=12 group_index=0 worker_id=3 dispatch_id=1 role=scheduler"),
		sp(41, 410, 7, 0, "node.submit", 300, 20, "run_id=7 task_slot=12 group_index=0 worker_id=3 role=facade"),
		sp(41, 411, 7, 0, "node.dispatch", 400, 10, "run_id=7 task_slot=12 group_index=0 worker_id=3 dispatch_id=2 role=scheduler"),
		// No flow: dispatch before any submit, no run_id, another pid, ext.
		sp(41, 411, 9, 0, "node.dispatch", 50, 10, "run_id=9 task_slot=1 role=scheduler"),
		sp(41, 410, 9, 0, "node.submit", 60, 10, "run_id=9 task_slot=1 role=facade"),
		sp(41, 411, 10, 0, "node.dispatch", 600, 10, "task_slot=1 role=scheduler"),
		sp(42, 420, 10, 0, "node.submit", 590, 5, "run_id=10 task_slot=1 role=facade"),
		sp(41, 421, 10, 0, "node.dispatch", 610, 10, "run_id=10 task_slot=1 role=scheduler"),
		sp(41, 412, 0, 0, "ext.node.submit", 700, 5, "run_id=11 task_slot=2"),
		sp(41, 412, 0, 0, "ext.node.dispatch", 710, 5, "run_id=11 task_slot=2"),
		// slot instead of task_slot, defaults in the key; the string "8"
		// differs from the integer 8.
		sp(41, 410, 8, 0, "network1.submit", 500, 50, "run_id=8 slot=5 role=facade"),
		sp(41, 411, 8, 0, "node.dispatch", 520, 10, "run_id=8 slot=5 role=scheduler"),
		sp(41, 411, 8, 0, "node.dispatch", 530, 10, "run_id=%38 slot=5 role=scheduler"),
	}
	d, _ := swimlaneDoc(t, &trace.Log{Spans: spans}, nil)
	checkInvariants(t, d)
	type end struct {
		ph, id, key string
		ts          float64
		tid         int64
	}
	var got []end
	for _, e := range d.TraceEvents {
		if e.Ph == "s" || e.Ph == "f" {
			require.Equal(t, "task dispatch", e.Name)
			require.Equal(t, "host.scheduler", e.Cat)
			got = append(got, end{e.Ph, e.ID.String(), e.Args["dispatch_key"].(string), e.Ts, e.Tid})
		}
	}
	assert.Equal(t, []end{
		{"s", "1", "dispatch:41:7:12:0:3:1", 0.12, 410},
		{"f", "1", "dispatch:41:7:12:0:3:1", 0.2, 411},
		{"s", "2", "dispatch:41:7:12:0:3:2", 0.32, 410},
		{"f", "2", "dispatch:41:7:12:0:3:2", 0.4, 411},
		{"s", "3", "dispatch:41:8:5:-1:-1:0", 0.52, 410},
		{"f", "3", "dispatch:41:8:5:-1:-1:0", 0.52, 411},
	}, got)
}

func TestXEventArgs(t *testing.T) {
	l := &trace.Log{
		Spans: []trace.Span{
			sp(41, 410, 7, 0, "host.odd name", 100, 10, "reason=submit%20failed%3A%20%5Bfatal%5D depth=9 big=123456789012345678901234567890 n=%31"),
			sp(41, 410, 7, 0, "chip.run", 1250, 20, ""),
			sp(41, 410, 7, 0, "chip.run.runner_run.device_wall", 300, 40, "clk=dev rank=1"),
		},
		Anchors: []trace.Anchor{{Pid: 41, MonoNs: 1000, WallNs: 1_700_000_000_000_000_000}},
	}
	sw := Build(l, nil)
	var buf bytes.Buffer
	require.NoError(t, sw.WriteJSON(&buf))
	d := decodeDoc(t, buf.Bytes())
	checkInvariants(t, d)
	x := d.xEvents()
	require.Len(t, x, 2)
	assert.Equal(t, "host.odd name", x[0].Name)
	assert.Equal(t, "submit failed: [fatal]", x[0].Args["reason"])
	assert.Contains(t, x[0].Args["attrs"], "%5Bfatal%5D", "raw attrs stay encoded")
	assert.Equal(t, json.Number("9"), x[0].Args["depth"], "attributes overwrite the fixed keys")
	assert.Equal(t, json.Number("123456789012345678901234567890"), x[0].Args["big"])
	assert.Equal(t, "1", x[0].Args["n"])
	assert.NotContains(t, x[0].Args, "wall_ts_ns", "span before the anchor")
	assert.Equal(t, "1700000000000000250", x[1].Args["wall_ts_ns"])
	assert.Equal(t, "2023-11-14T22:13:20.000000250Z", x[1].Args["wall_time"])
	assert.Equal(t, 1.25, x[1].Ts)
	// The overwritten depth keeps its place: no duplicate keys.
	assert.Equal(t, 1, strings.Count(buf.String(), `"depth": 9`))
	assert.Equal(t, 0, strings.Count(buf.String(), `"depth": 0, "attrs": "reason`))

	require.Len(t, d.UnalignedDeviceSpans, 1)
	assert.Equal(t, map[string]any{"raw": "clk=dev rank=1", "clk": "dev", "rank": json.Number("1")},
		d.UnalignedDeviceSpans[0]["attrs"])
	assert.Equal(t, json.Number("300"), d.UnalignedDeviceSpans[0]["ts_ns"])
	require.Len(t, d.ClockAnchors, 1)
	assert.Equal(t, map[string]any{"pid": json.Number("41"), "mono_ns": "1000", "wall_ns": "1700000000000000000"}, d.ClockAnchors[0])
	assert.Equal(t, Summary{HostSpans: 2, DeviceSpans: 1}, sw.Summary())
}

func TestEmptyAndDeviceOnlyLogs(t *testing.T) {
	tests := []struct {
		name string
		log  *trace.Log
		dev  int
	}{
		{"empty log", &trace.Log{}, 0},
		{"device spans only", &trace.Log{Spans: []trace.Span{sp(7, 7, 1, 2, "chip.run.runner_run.device_wall", 0, 10, "clk=dev")}}, 1},
		{"bind phase lines but no spans", &trace.Log{BindPhases: []trace.BindPhase{{Phase: "args", StartNs: 1, DurNs: 1, Thread: "1", Enveloped: true}}}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, sw := swimlaneDoc(t, tc.log, loadPasses(t, pass(7, 1, rec("args", 0, 1, 0, 7))))
			checkInvariants(t, d)
			assert.Empty(t, d.xEvents())
			assert.Empty(t, d.TraceEvents)
			assert.NotNil(t, d.TraceEvents, "traceEvents is an array, not null")
			assert.Equal(t, "ms", d.DisplayTimeUnit)
			assert.Len(t, d.UnalignedDeviceSpans, tc.dev)
			assert.NotContains(t, d.raw, "clockAnchors")
			assert.Equal(t, 1, sw.Summary().Orphaned)
			assert.Len(t, sw.Warnings(), 1)
		})
	}
}
