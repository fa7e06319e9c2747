package phases

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hbgkit/hbgkit/trace"
)

// spreadLine builds a `bind phase=` line of thread th.
func spreadLine(th, phase string, start, dur int64) trace.BindPhase {
	return trace.BindPhase{Phase: phase, StartNs: start, DurNs: dur, Thread: th, Enveloped: true}
}

// spreadPassLines writes one pass of thread th in enum order, as the
// runtime does: args, host_orch, graph_upload, arena_h2d, host_view_close,
// with durations base+1..base+5 µs.
func spreadPassLines(th string, start, base int64) []trace.BindPhase {
	var out []trace.BindPhase
	for i, ph := range []string{"args", "host_orch", "graph_upload", "arena_h2d", "host_view_close"} {
		out = append(out, spreadLine(th, ph, start+int64(i)*1000, (base+int64(i)+1)*1000))
	}
	return out
}

func spreadPhasesOf(passes []SpreadPass) [][]string {
	var out [][]string
	for _, p := range passes {
		var names []string
		for _, ph := range append(trace.BindSegments(), "mystery", "graph_pack") {
			if _, ok := p.Ms[ph]; ok {
				names = append(names, ph)
			}
		}
		out = append(out, names)
	}
	return out
}

func TestSnapshotBindPasses(t *testing.T) {
	full := []string{"args", "host_orch", "graph_upload", "arena_h2d", "host_view_close"}
	var interleaved []trace.BindPhase
	a, b := spreadPassLines("aa", 1000, 0), spreadPassLines("bb", 2000, 10)
	for i := range a {
		interleaved = append(interleaved, a[i], b[i])
	}
	tests := []struct {
		name        string
		lines       []trace.BindPhase
		wantPhases  [][]string
		wantThreads []string
	}{
		{
			name:        "host_view_close stays in its own pass",
			lines:       append(spreadPassLines("aa", 1000, 0), spreadPassLines("aa", 9000, 0)...),
			wantPhases:  [][]string{full, full},
			wantThreads: []string{"aa", "aa"},
		},
		{
			name:        "two threads interleaved",
			lines:       interleaved,
			wantPhases:  [][]string{full, full},
			wantThreads: []string{"aa", "bb"},
		},
		{
			name: "unknown phase joins the open pass",
			lines: []trace.BindPhase{
				spreadLine("aa", "args", 1, 1), spreadLine("aa", "mystery", 2, 1),
				spreadLine("aa", "host_orch", 3, 1), spreadLine("aa", "mystery", 4, 1),
				spreadLine("aa", "args", 5, 1), spreadLine("aa", "host_orch", 6, 1),
			},
			wantPhases:  [][]string{{"args", "host_orch", "mystery"}, {"args", "host_orch"}},
			wantThreads: []string{"aa", "aa"},
		},
		{
			name: "a pass without host_orch is dropped",
			lines: []trace.BindPhase{
				spreadLine("aa", "args", 1, 1), spreadLine("aa", "arena_h2d", 2, 1),
				spreadLine("aa", "args", 5, 1), spreadLine("aa", "host_orch", 6, 1),
			},
			wantPhases:  [][]string{{"args", "host_orch"}},
			wantThreads: []string{"aa"},
		},
		{
			name: "equal enum index starts a pass",
			lines: []trace.BindPhase{
				spreadLine("", "host_orch", 1, 1), spreadLine("", "host_orch", 2, 1),
			},
			wantPhases:  [][]string{{"host_orch"}, {"host_orch"}},
			wantThreads: []string{"", ""},
		},
		{name: "no lines", lines: nil, wantPhases: nil, wantThreads: nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := SnapshotBindPasses(tc.lines)
			assert.Equal(t, tc.wantPhases, spreadPhasesOf(got))
			var threads []string
			for _, p := range got {
				threads = append(threads, p.Thread)
			}
			assert.Equal(t, tc.wantThreads, threads)
		})
	}
}

func TestSnapshotBindPassesValues(t *testing.T) {
	lines := []trace.BindPhase{
		spreadLine("aa", "args", 500, 250000),
		spreadLine("aa", "host_orch", 300, 1234567),
	}
	got := SnapshotBindPasses(lines)
	require.Len(t, got, 1)
	assert.Equal(t, 0.25, got[0].Ms["args"])
	assert.Equal(t, 1.234567, got[0].Ms["host_orch"])
	assert.EqualValues(t, 300, got[0].Ts)
}

// spreadThreePasses is the reference's synthetic three-pass log (of its
// hbg_bind_phases tests): pass i has args 0.2+0.05i ms, host_orch
// 0.206+0.05i, graph_upload 0.207+0.05i, arena_h2d 0.208+0.05i,
// host_view_close 0.109+0.05i.
func spreadThreePasses() []SpreadPass {
	var out []SpreadPass
	for i := int64(0); i < 3; i++ {
		out = append(out, SpreadPass{Ms: map[string]float64{
			"args":            float64(200000+50000*i) / 1e6,
			"host_orch":       float64(206000+50000*i) / 1e6,
			"graph_upload":    float64(207000+50000*i) / 1e6,
			"arena_h2d":       float64(208000+50000*i) / 1e6,
			"host_view_close": float64(109000+50000*i) / 1e6,
		}})
	}
	return out
}

func spreadFmt(r BindSpreadRow) string {
	return fmt.Sprintf("%s %.3f %.3f %.3f %d", r.Phase, r.Min, r.Median, r.Max, r.N)
}

func TestSnapshotBindSpread(t *testing.T) {
	nine := make([]SpreadPass, 9)
	for i := range nine {
		nine[i] = SpreadPass{Ms: map[string]float64{"host_orch": float64(i)}}
	}
	tests := []struct {
		name      string
		passes    []SpreadPass
		opts      BindSpreadOptions
		wantCold  int
		wantRanks int
		wantWarm  int
		wantErr   error
	}{
		{name: "rounds 3 drops one", passes: spreadThreePasses(), opts: BindSpreadOptions{Rounds: 3}, wantCold: 1, wantRanks: 1, wantWarm: 2},
		{name: "no flags drops one", passes: spreadThreePasses(), wantCold: 1, wantRanks: 1, wantWarm: 2},
		{name: "keep first", passes: spreadThreePasses(), opts: BindSpreadOptions{KeepFirst: true}, wantCold: 0, wantRanks: 1, wantWarm: 3},
		{name: "ranks 0 keeps every pass", passes: spreadThreePasses(), opts: BindSpreadOptions{RanksSet: true}, wantCold: 0, wantRanks: 0, wantWarm: 3},
		{name: "ranks beat rounds", passes: spreadThreePasses(), opts: BindSpreadOptions{Rounds: 1, Ranks: 2, RanksSet: true}, wantCold: 2, wantRanks: 2, wantWarm: 1},
		{name: "rounds inference 9 // 4", passes: nine, opts: BindSpreadOptions{Rounds: 4}, wantCold: 2, wantRanks: 2, wantWarm: 7},
		{name: "rounds larger than passes", passes: spreadThreePasses(), opts: BindSpreadOptions{Rounds: 6}, wantCold: 1, wantRanks: 1, wantWarm: 2},
		{
			name: "rounds 1 with 3 passes is all cold", passes: spreadThreePasses(), opts: BindSpreadOptions{Rounds: 1},
			wantErr: &AllColdError{Passes: 3, Ranks: 3},
		},
		{
			name: "more ranks than passes", passes: spreadThreePasses(), opts: BindSpreadOptions{Ranks: 5, RanksSet: true},
			wantErr: &AllColdError{Passes: 3, Ranks: 5},
		},
		{name: "no passes", passes: nil, wantErr: ErrNoBindPasses},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sp, err := SnapshotBindSpread(tc.passes, tc.opts)
			if tc.wantErr != nil {
				assert.Equal(t, tc.wantErr, err)
				assert.Nil(t, sp)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, len(tc.passes), sp.Passes)
			assert.Equal(t, tc.wantCold, sp.Cold)
			assert.Equal(t, tc.wantRanks, sp.Ranks)
			assert.Equal(t, tc.wantWarm, sp.Warm)
		})
	}
}

func TestSnapshotBindSpreadRows(t *testing.T) {
	// The reference's observed output (hbg_bind_phases), with
	// host_view_close in its own pass: the warm passes are passes 2 and 3.
	sp, err := SnapshotBindSpread(spreadThreePasses(), BindSpreadOptions{Rounds: 3})
	require.NoError(t, err)
	var rows []string
	for _, r := range sp.Rows {
		rows = append(rows, spreadFmt(r))
	}
	assert.Equal(t, []string{
		"args 0.250 0.275 0.300 2",
		"host_orch 0.256 0.281 0.306 2",
		"graph_upload 0.257 0.282 0.307 2",
		"arena_h2d 0.258 0.283 0.308 2",
		"host_view_close 0.159 0.184 0.209 2",
	}, rows)
	var control []string
	for _, r := range sp.Rows {
		if r.Control {
			control = append(control, r.Phase)
		}
	}
	assert.Equal(t, []string{"host_orch", "graph_upload", "arena_h2d"}, control)
	require.NotNil(t, sp.Total)
	assert.Equal(t, "total 0.771 0.846 0.921 2", spreadFmt(*sp.Total))
	assert.Equal(t, []string{"host_orch", "graph_upload", "arena_h2d"}, sp.Present)
	assert.Equal(t, []string{"relocate", "sm_h2d"}, sp.Retired)
	assert.Empty(t, sp.Partial)
	assert.Empty(t, sp.Unknown)
}

func TestBindSpreadControlPlane(t *testing.T) {
	pass := func(ms map[string]float64) SpreadPass { return SpreadPass{Ms: ms} }
	tests := []struct {
		name        string
		warm        []SpreadPass
		wantPartial []string
		wantRetired []string
		wantTotal   string // "" when none
		wantUnknown []string
	}{
		{
			name: "partial phase excludes passes",
			warm: []SpreadPass{
				pass(map[string]float64{"host_orch": 1, "graph_upload": 2}),
				pass(map[string]float64{"host_orch": 3}),
				pass(map[string]float64{"host_orch": 5, "graph_upload": 4}),
			},
			wantPartial: []string{"graph_upload"},
			wantRetired: []string{"relocate", "sm_h2d", "arena_h2d"},
			wantTotal:   "total 3.000 6.000 9.000 2",
		},
		{
			name: "no complete pass",
			warm: []SpreadPass{
				pass(map[string]float64{"host_orch": 1, "graph_upload": 2}),
				pass(map[string]float64{"host_orch": 3, "arena_h2d": 2}),
			},
			wantPartial: []string{"graph_upload", "arena_h2d"},
			wantRetired: []string{"relocate", "sm_h2d"},
		},
		{
			name: "unknown phases sorted",
			warm: []SpreadPass{
				pass(map[string]float64{"host_orch": 1, "zeta": 1, "alpha": 2}),
				pass(map[string]float64{"host_orch": 1, "graph_pack": 1}),
			},
			wantRetired: []string{"graph_upload", "relocate", "sm_h2d", "arena_h2d"},
			wantTotal:   "total 1.000 1.000 1.000 2",
			wantUnknown: []string{"alpha", "graph_pack", "zeta"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sp := spreadBindPasses(tc.warm, snapshotPhases())
			assert.Equal(t, tc.wantPartial, sp.Partial)
			assert.Equal(t, tc.wantRetired, sp.Retired)
			assert.Equal(t, tc.wantUnknown, sp.Unknown)
			if tc.wantTotal == "" {
				assert.Nil(t, sp.Total)
				return
			}
			require.NotNil(t, sp.Total)
			assert.Equal(t, tc.wantTotal, spreadFmt(*sp.Total))
		})
	}
}

func spreadSpan(pid int64, inv uint64, name string, ts, dur int64, attrs string) trace.Span {
	return trace.Span{Pid: pid, Tid: pid, Inv: inv, Hid: "abc", Depth: 2, Name: name, Ts: ts, Dur: dur, Attrs: attrs}
}

// spreadE3Bind writes one E3 bind: args, host_orch, graph_pack, arena_h2d.
func spreadE3Bind(pid int64, inv uint64, ts, base int64) []trace.Span {
	var out []trace.Span
	for i, seg := range []string{"args", "host_orch", "graph_pack", "arena_h2d"} {
		out = append(out, spreadSpan(pid, inv, "chip.run.bind."+seg, ts+int64(i)*100, (base+int64(i)+1)*1000, "minflt=1"))
	}
	return out
}

func TestSpanBindPasses(t *testing.T) {
	var spans []trace.Span
	// pid 8's bind is written first but sorts after pid 7's.
	spans = append(spans, spreadE3Bind(8, 1, 5000, 0)...)
	spans = append(spans, spreadE3Bind(7, 2, 9000, 10)...)
	spans = append(spans, spreadE3Bind(7, 1, 1000, 20)...)
	spans = append(spans,
		spreadSpan(7, 1, "chip.run.bind.host_orch.record_node", 1, 99, ""), // an operation
		spreadSpan(7, 1, "chip.run.bind.args", 1, 99, "clk=dev"),           // device clock
		spreadSpan(7, 1, "chip.run.bind", 1, 99, ""),                       // the bind itself
		spreadSpan(7, 3, "chip.run.bind.args", 1, 99, ""),                  // no host_orch
	)
	got := SpanBindPasses(spans)
	require.Len(t, got, 3)
	type id struct {
		pid int64
		inv uint64
		ts  int64
	}
	var ids []id
	for _, b := range got {
		ids = append(ids, id{b.Pid, b.Inv, b.Ts})
	}
	assert.Equal(t, []id{{7, 1, 1000}, {7, 2, 9000}, {8, 1, 5000}}, ids)
	assert.Equal(t, map[string]float64{"args": 0.021, "host_orch": 0.022, "graph_pack": 0.023, "arena_h2d": 0.024}, got[0].Ms)
}

func TestSpanBindSpread(t *testing.T) {
	var spans []trace.Span
	spans = append(spans, spreadE3Bind(7, 1, 1000, 100)...) // cold of pid 7
	spans = append(spans, spreadE3Bind(7, 2, 9000, 0)...)
	spans = append(spans, spreadE3Bind(7, 3, 19000, 10)...)
	spans = append(spans, spreadE3Bind(8, 1, 2000, 100)...) // cold of pid 8
	spans = append(spans, spreadE3Bind(8, 2, 12000, 20)...)
	binds := SpanBindPasses(spans)

	sp, err := SpanBindSpread(binds, false)
	require.NoError(t, err)
	assert.Equal(t, 5, sp.Passes)
	assert.Equal(t, 3, sp.Warm)
	assert.Equal(t, 2, sp.Cold)
	assert.Equal(t, 2, sp.Ranks)
	assert.Equal(t, spanPhaseSet.ControlPlane, sp.Set.ControlPlane)
	var rows []string
	for _, r := range sp.Rows {
		rows = append(rows, spreadFmt(r))
	}
	assert.Equal(t, []string{
		"args 0.001 0.011 0.021 3",
		"host_orch 0.002 0.012 0.022 3",
		"graph_pack 0.003 0.013 0.023 3",
		"arena_h2d 0.004 0.014 0.024 3",
	}, rows)
	require.NotNil(t, sp.Total)
	assert.Equal(t, "total 0.009 0.039 0.069 3", spreadFmt(*sp.Total))
	assert.Empty(t, sp.Retired)

	kept, err := SpanBindSpread(binds, true)
	require.NoError(t, err)
	assert.Equal(t, 5, kept.Warm)
	assert.Equal(t, 0, kept.Cold)

	_, err = SpanBindSpread(SpanBindPasses(spreadE3Bind(7, 1, 0, 0)), false)
	assert.Equal(t, &AllColdError{Passes: 1, Ranks: 1}, err)
	_, err = SpanBindSpread(nil, false)
	assert.Equal(t, ErrNoBindPasses, err)
}

func TestSpanPhaseSetFor(t *testing.T) {
	upload := SpreadPass{Ms: map[string]float64{"host_orch": 1, "graph_upload": 1}}
	pack := SpreadPass{Ms: map[string]float64{"host_orch": 1, "graph_pack": 1}}
	tests := []struct {
		name        string
		binds       []SpreadPass
		wantControl []string
	}{
		{"graph_pack", []SpreadPass{pack}, []string{"host_orch", "graph_pack", "arena_h2d"}},
		{"graph_upload only", []SpreadPass{upload}, []string{"host_orch", "graph_upload", "arena_h2d"}},
		{"both", []SpreadPass{upload, pack}, []string{"host_orch", "graph_pack", "arena_h2d"}},
		{"neither", []SpreadPass{{Ms: map[string]float64{"host_orch": 1}}}, []string{"host_orch", "graph_pack", "arena_h2d"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			set := SpanPhaseSetFor(tc.binds)
			assert.Equal(t, tc.wantControl, set.ControlPlane)
			assert.Contains(t, set.Order, "graph_upload", "graph_upload is always known")
		})
	}
}

func TestWarmBinds(t *testing.T) {
	t.Run("lines", func(t *testing.T) {
		var lines []trace.BindPhase
		for i := int64(0); i < 3; i++ {
			lines = append(lines, spreadPassLines("7f3c", i*1_000_000, i*10)...)
		}
		sp, err := SnapshotBindSpread(SnapshotBindPasses(lines), BindSpreadOptions{Rounds: 3})
		require.NoError(t, err)
		binds := sp.WarmBinds()
		require.Len(t, binds, 2, "the warm passes, not the cold one")
		first := binds[0]
		assert.False(t, first.Known, "lines carry no pid")
		assert.Equal(t, []Segment{
			{Name: trace.SegArgs, Ts: 1_000_000, Dur: 11_000},
			{Name: trace.SegHostOrch, Ts: 1_001_000, Dur: 12_000},
			{Name: trace.SegGraphUpload, Ts: 1_002_000, Dur: 13_000},
			{Name: trace.SegArenaH2d, Ts: 1_003_000, Dur: 14_000},
			{Name: trace.SegHostViewClose, Ts: 1_004_000, Dur: 15_000},
		}, first.Segments)
		assert.Len(t, binds[1].Segments, 5)
	})
	t.Run("spans", func(t *testing.T) {
		var spans []trace.Span
		spans = append(spans, spreadE3Bind(7, 1, 1000, 100)...)
		spans = append(spans, spreadE3Bind(7, 2, 9000, 0)...)
		spans = append(spans, spreadSpan(7, 2, "chip.run.bind.host_orch.record_node", 9100, 5, ""))
		// A segment written twice: Ms keeps the last, Bind keeps both.
		spans = append(spans, spreadSpan(7, 2, "chip.run.bind.arena_h2d", 20_000, 7000, ""))
		spans = append(spans, spreadE3Bind(8, 1, 2000, 100)...)
		spans = append(spans, spreadE3Bind(8, 2, 12000, 20)...)
		sp, err := SpanBindSpread(SpanBindPasses(spans), false)
		require.NoError(t, err)
		binds := sp.WarmBinds()
		require.Len(t, binds, 2)
		for i, want := range []struct {
			pid int64
			inv uint64
		}{{7, 2}, {8, 2}} {
			assert.True(t, binds[i].Known)
			assert.Equal(t, want.pid, binds[i].Pid)
			assert.Equal(t, want.inv, binds[i].Inv)
			var names []string
			for _, s := range binds[i].Segments {
				names = append(names, s.Name)
			}
			want := []string{trace.SegArgs, trace.SegHostOrch, trace.SegGraphPack, trace.SegArenaH2d}
			if i == 0 {
				want = append(want, trace.SegArenaH2d)
			}
			assert.Equal(t, want, names, "no orchestrator operation")
		}
		assert.Equal(t, 0.007, sp.WarmPasses[0].Ms["arena_h2d"])
		assert.Equal(t, int64(4000), binds[0].Segments[3].Dur)
		kept, err := SpanBindSpread(SpanBindPasses(spans), true)
		require.NoError(t, err)
		assert.Len(t, kept.WarmBinds(), 4)
	})
}
