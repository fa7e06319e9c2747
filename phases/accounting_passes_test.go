package phases

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hbgkit/hbgkit/trace"
)

func TestCanonicalSpanSegment(t *testing.T) {
	tests := []struct {
		name, attrs string
		want        string
		ok          bool
	}{
		{name: "chip.run.bind.host_orch", want: trace.SegHostOrch, ok: true},
		{name: "chip.run.bind.graph_pack", want: trace.SegGraphPack, ok: true},
		{name: "chip.run.bind.host_orch.setup", want: trace.SegHostOrchSetup, ok: true},
		{name: "simpler_run.bind.h2d_sm", want: trace.SegSmH2d, ok: true},
		{name: "simpler_run.bind.h2d_arena", want: trace.SegArenaH2d, ok: true},
		{name: "chip.run.bind.h2d_arena", want: trace.SegArenaH2d, ok: true},
		{name: "simpler_run.bind.h2d_image", want: trace.SegH2dImage, ok: true},
		{name: "simpler_run.bind.orch_h2d_pipe"},
		{name: "chip.run.bind.host_orch.record_sub_task"},
		{name: "chip.run.bind.compatibility"},
		{name: "chip.run.bind"},
		{name: "chip.run.bind.args", attrs: "clk=dev"},
		{name: "chip.run.runner_run"},
		{name: "node.bind.args"},
	}
	for _, tc := range tests {
		t.Run(tc.name+" "+tc.attrs, func(t *testing.T) {
			s := trace.Span{Name: tc.name, Attrs: tc.attrs}
			got, ok := CanonicalSpanSegment(&s)
			assert.Equal(t, tc.ok, ok)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestBindPassesFromSpans(t *testing.T) {
	spans := []trace.Span{
		acctSpan(8, 2, 2, "chip.run.bind.args", 100, 10, ""),
		acctSpan(7, 5, 2, "chip.run.bind.host_orch", 100, 10, "tasks=3"),
		acctSpan(7, 5, 2, "chip.run.bind.arena_h2d", 200, 10, ""),
		acctSpan(7, 5, 1, "chip.run.bind", 0, 300, ""),
		acctSpan(7, 4, 2, "chip.run.bind.host_orch", 50, 10, ""),
	}
	got := BindPassesFromSpans(spans)
	require.Len(t, got, 3)
	assert.Equal(t, []acctKey{{7, 4}, {7, 5}, {8, 2}}, []acctKey{{got[0].Pid, got[0].Inv}, {got[1].Pid, got[1].Inv}, {got[2].Pid, got[2].Inv}})
	assert.Equal(t, []Segment{{Name: trace.SegHostOrch, Ts: 100, Dur: 10, Attrs: "tasks=3"}, {Name: trace.SegArenaH2d, Ts: 200, Dur: 10}}, got[1].Segments)
	assert.True(t, got[1].Known)
}

func TestBindPassesFromLines(t *testing.T) {
	bind := acctSpan(7, 5, 1, "chip.run.bind", 0, 10_000, "")
	passes := []trace.Pass{
		{Thread: "a", Bind: &bind, Segments: []trace.BindPhase{
			{Phase: "host_orch", StartNs: 100, DurNs: 200, Attrs: "tasks=3"},
			{Phase: "mystery", StartNs: 400, DurNs: 1},
			{Phase: "arena_h2d", StartNs: 500, DurNs: 50},
		}},
		{Thread: "a", Segments: []trace.BindPhase{{Phase: "host_orch", StartNs: 90_000, DurNs: 200}}},
	}
	got := BindPassesFromLines(passes)
	require.Len(t, got, 2)
	assert.Equal(t, BindPass{Pid: 7, Inv: 5, Known: true, Segments: []Segment{
		{Name: trace.SegHostOrch, Ts: 100, Dur: 200, Attrs: "tasks=3"},
		{Name: trace.SegArenaH2d, Ts: 500, Dur: 50},
	}}, got[0])
	assert.False(t, got[1].Known, "no bind contains it: no pid")
	assert.Len(t, got[1].Segments, 1)
}

func TestBindPassesFromRecords(t *testing.T) {
	path := filepath.Join(t.TempDir(), "host_phase_records.jsonl")
	data := `{"pid": 81234, "inv": 12, "clock": "host_monotonic_ns", "dropped": 0, "records": [{"phase": "args", "start_ns": 1000, "end_ns": 3000, "detail": 0, "tid": 81240}, {"phase": "submit_task", "start_ns": 3100, "end_ns": 3200, "detail": 4294967300, "tid": 81240}, {"phase": "host_orch", "start_ns": 3000, "end_ns": 2000, "detail": 0, "tid": 81240}, {"phase": "arena_h2d", "start_ns": "5000", "end_ns": 5500.7, "detail": 64}]}
{"pid": "81234", "inv": 13, "records": [{"phase": "args", "start_ns": 1, "end_ns": 2}]}
{"pid": 81234, "inv": 14, "records": [{"phase": "args", "start_ns": 1}]}
`
	require.NoError(t, os.WriteFile(path, []byte(data), 0o644))
	rps, err := trace.LoadPhaseRecords([]string{path})
	require.NoError(t, err)
	got := BindPassesFromRecords(rps)
	require.Len(t, got, 2, "a string pid matches no span")
	assert.Equal(t, BindPass{Pid: 81234, Inv: 12, Known: true, Segments: []Segment{
		{Name: trace.SegArgs, Ts: 1000, Dur: 2000},
		{Name: trace.SegHostOrch, Ts: 3000, Dur: 0},
		{Name: trace.SegArenaH2d, Ts: 5000, Dur: 500},
	}}, got[0])
	assert.Empty(t, got[1].Segments, "a record without end_ns is skipped")
}

func TestMergeBindPasses(t *testing.T) {
	spans := []BindPass{acctPass(7, 1, acctSeg(trace.SegHostOrch, 0, 100))}
	lines := []BindPass{
		acctPass(7, 1, acctSeg(trace.SegHostOrch, 0, 999), acctSeg(trace.SegArgs, 0, 5)),
		{Segments: []Segment{acctSeg(trace.SegHostOrch, 0, 1)}},
		acctPass(6, 3, acctSeg(trace.SegArgs, 0, 7)),
	}
	records := []BindPass{
		acctPass(7, 1, acctSeg(trace.SegArenaH2d, 200, 10)),
		acctPass(7, 1, acctSeg(trace.SegArenaH2d, 300, 10)), // a second line of the same key
		acctPass(6, 3, acctSeg(trace.SegArgs, 0, 8)),
	}
	got := MergeBindPasses(spans, lines, records)
	require.Len(t, got, 3)
	assert.Equal(t, acctPass(6, 3, acctSeg(trace.SegArgs, 0, 7)), got[0], "lines win over records")
	assert.Equal(t, acctPass(7, 1,
		acctSeg(trace.SegHostOrch, 0, 100), // spans win over lines
		acctSeg(trace.SegArgs, 0, 5),
		acctSeg(trace.SegArenaH2d, 200, 10),
		acctSeg(trace.SegArenaH2d, 300, 10)), got[1])
	assert.False(t, got[2].Known, "passes without a pid come last")
}

func TestBindPassesForRows(t *testing.T) {
	passes := []BindPass{
		acctPass(7, 2, acctSeg(trace.SegHostOrch, 0, 100)),
		acctPass(7, 1, acctSeg(trace.SegHostOrch, 0, 50)),
		{Segments: []Segment{acctSeg(trace.SegHostOrch, 0, 1)}},
	}
	rows := []RoundRow{{Round: 0, Pid: 7, Inv: 1}, {Round: 1, Pid: 8, Inv: 1}, {Round: 2, Pid: 7, Inv: 2}}
	got := BindPassesForRows(passes, rows)
	require.Len(t, got, 3)
	assert.Equal(t, passes[1], got[0])
	assert.Equal(t, BindPass{Pid: 8, Inv: 1, Known: true}, got[1], "a row without bind data is an empty pass")
	assert.Equal(t, passes[0], got[2])
}

// Every canonical segment name is its own canonical name, so segmentCode's
// one-lookup path gives what CanonicalSegment then bpcSegCode gave.
func TestSegmentCodeOfCanonicalAndAliasNames(t *testing.T) {
	for i, n := range bpcSegNames {
		canon, ok := trace.CanonicalSegment(n)
		require.True(t, ok, n)
		require.Equal(t, n, canon)
		c, ok := segmentCode(n)
		require.True(t, ok, n)
		require.Equal(t, uint8(i), c, n)
	}
	c, ok := segmentCode("graph_pack")
	require.True(t, ok)
	canon, _ := trace.CanonicalSegment("graph_pack")
	require.Equal(t, bpcSegCode[canon], c)
	_, ok = segmentCode("no_such_segment")
	require.False(t, ok)
}
