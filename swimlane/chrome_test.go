package swimlane

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/hbgkit/hbgkit/trace"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWriteChromeTrace(t *testing.T) {
	anchored := &trace.Log{
		Spans: []trace.Span{
			sp(41, 410, 7, 0, "chip.run", 1250, 20, ""),
			sp(41, 410, 7, 1, "chip.run.runner_run.device_wall", 300, 40, "clk=dev"),
			sp(41, 410, 8, 0, "chip.run", 900, 30, "early=1"),
			sp(52, 520, 7, 0, "chip.run", 1500, 10, ""),
			sp(41, 411, 7, 0, "node.dispatch", 1300, 5, "run_id=7"),
			sp(41, 412, 0, 0, "ext.pypto.step", 1300, 5, ""),
		},
		Anchors: []trace.Anchor{
			{Pid: 41, MonoNs: 1, WallNs: 5},
			{Pid: 41, MonoNs: 1000, WallNs: 1_700_000_000_000_000_000},
		},
	}
	tests := []struct {
		name     string
		log      *trace.Log
		spans    int
		procs    map[int64]string
		x        []string
		wall     []string // wall_ts_ns per X event, "" for none
		anchored bool
	}{
		{
			name:     "invocations, device lane, wall time from the last anchor",
			log:      anchored,
			spans:    4,
			procs:    map[int64]string{1: "decode inv=7 (pid=41)", 2: "decode inv=8 (pid=41)", 3: "decode inv=7 (pid=52)"},
			x:        []string{"chip.run", "chip.run.runner_run.device_wall", "chip.run", "chip.run"},
			wall:     []string{"1700000000000000250", "", "", ""},
			anchored: true,
		},
		{
			name: "labels: prefill and hid prefix",
			log: &trace.Log{Spans: []trace.Span{
				{Pid: 1, Inv: 1, Hid: "0123456789abcdef", Name: "chip.run", Ts: 1, Dur: 1},
				{Pid: 1, Inv: 2, Hid: "fedcba9876543210", Name: "chip.run", Ts: 2, Dur: 1},
				{Pid: 1, Inv: 3, Hid: "fedcba9876543210", Name: "chip.run", Ts: 3, Dur: 1},
				{Pid: 1, Inv: 4, Hid: "0123456789abcdef", Name: "chip.run", Ts: 4, Dur: 1},
				{Pid: 1, Inv: 5, Hid: "0123456789abcdef", Name: "chip.run", Ts: 5, Dur: 1},
				{Pid: 1, Inv: 6, Hid: "77", Name: "chip.prewarm.build", Ts: 6, Dur: 1},
			}},
			spans: 6,
			procs: map[int64]string{
				1: "decode inv=1 (pid=1)", 2: "fedcba98 inv=2 (pid=1)", 3: "fedcba98 inv=3 (pid=1)",
				4: "decode inv=4 (pid=1)", 5: "decode inv=5 (pid=1)", 6: "prefill inv=6 (pid=1)",
			},
			x:    []string{"chip.run", "chip.run", "chip.run", "chip.run", "chip.run", "chip.prewarm.build"},
			wall: []string{"", "", "", "", "", ""},
		},
		{
			name:  "empty log",
			log:   &trace.Log{},
			procs: map[int64]string{},
		},
		{
			name:     "anchors only",
			log:      &trace.Log{Anchors: []trace.Anchor{{Pid: 9, MonoNs: 1, WallNs: 2}, {Pid: 3, MonoNs: 1, WallNs: 2}}},
			procs:    map[int64]string{},
			anchored: true,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			n, err := WriteChromeTrace(&buf, tc.log)
			require.NoError(t, err)
			assert.Equal(t, tc.spans, n)
			d := decodeDoc(t, buf.Bytes())
			checkInvariants(t, d)
			assert.NotNil(t, d.TraceEvents)
			assert.Equal(t, "ms", d.DisplayTimeUnit)
			assert.Equal(t, tc.procs, d.processNames())
			var x, wall []string
			for _, e := range d.xEvents() {
				x = append(x, e.Name)
				w, _ := e.Args["wall_ts_ns"].(string)
				wall = append(wall, w)
				assert.Contains(t, []int64{0, 1}, e.Tid)
				assert.Equal(t, e.Name == "chip.run.runner_run.device_wall", e.Tid == 1)
				assert.NotContains(t, e.Args, "os_tid")
			}
			assert.Equal(t, tc.x, x)
			assert.Equal(t, tc.wall, wall)
			assert.NotContains(t, d.raw, "unalignedDeviceSpans")
			if !tc.anchored {
				assert.NotContains(t, d.raw, "clockAnchors")
				return
			}
			require.NotEmpty(t, d.ClockAnchors)
			var pids []json.Number
			for _, a := range d.ClockAnchors {
				pids = append(pids, a["pid"].(json.Number))
			}
			assert.IsIncreasing(t, pids)
		})
	}
}

func TestChromeTraceLastAnchorWins(t *testing.T) {
	var buf bytes.Buffer
	l := &trace.Log{Anchors: []trace.Anchor{{Pid: 41, MonoNs: 1, WallNs: 5}, {Pid: 41, MonoNs: 1000, WallNs: 7}}}
	_, err := WriteChromeTrace(&buf, l)
	require.NoError(t, err)
	d := decodeDoc(t, buf.Bytes())
	require.Len(t, d.ClockAnchors, 1)
	assert.Equal(t, map[string]any{"pid": json.Number("41"), "mono_ns": "1000", "wall_ns": "7"}, d.ClockAnchors[0])
}
