package phases

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hbgkit/hbgkit/trace"
)

// acctSeg builds a segment with the interval [ts, ts+dur].
func acctSeg(name string, ts, dur int64) Segment {
	return Segment{Name: name, Ts: ts, Dur: dur}
}

// acctPass builds a known pass of pid/inv from segments.
func acctPass(pid int64, inv uint64, segs ...Segment) BindPass {
	return BindPass{Pid: pid, Inv: inv, Known: true, Segments: segs}
}

// acctSpan builds a host span for the accounting tests.
func acctSpan(pid int64, inv uint64, depth int64, name string, ts, dur int64, attrs string) trace.Span {
	return trace.Span{Pid: pid, Tid: pid, Inv: inv, Hid: "abc", Depth: depth, Name: name, Ts: ts, Dur: dur, Attrs: attrs}
}

// acctUS returns the value of s in µs and whether it was recorded.
func acctUS(m PassMetrics, s BindStage) (float64, bool) {
	v, ok := m.Get(s)
	return float64(v) / 1000, ok
}

// acctWant is a set of expected values in µs; a stage missing from the map
// must not be recorded.
type acctWant map[BindStage]float64

func acctCheck(t *testing.T, m PassMetrics, want acctWant) {
	t.Helper()
	for s := BindStage(0); int(s) < NumBindStages; s++ {
		got, rec := acctUS(m, s)
		w, ok := want[s]
		if !ok {
			assert.False(t, rec, "%s should not be recorded (value %.1f)", s, got)
			continue
		}
		if assert.True(t, rec, "%s should be recorded", s) {
			assert.InDelta(t, w, got, 1e-9, "%s", s)
		}
	}
}

// acctPR1870Spans is the first test of PR #1870 (docs/accounting.md "4.1
// Eager per-layer uploads inside host_orch") as the PR
// runtime wrote it: simpler_run.bind.* spans, per-layer uploads inside
// host_orch.entry, a leftover upload after host_orch inside orch_h2d_pipe.
func acctPR1870Spans() []trace.Span {
	return []trace.Span{
		acctSpan(7, 3, 5, "simpler_run.bind.h2d_graph", 10_000, 100_000, ""),
		acctSpan(7, 3, 5, "simpler_run.bind.h2d_graph", 200_000, 200_000, ""),
		acctSpan(7, 3, 4, "simpler_run.bind.host_orch.setup", 1000, 8000, ""),
		acctSpan(7, 3, 4, "simpler_run.bind.host_orch.entry", 9000, 990_000, ""),
		acctSpan(7, 3, 3, "simpler_run.bind.host_orch", 1000, 1_000_000, ""),
		acctSpan(7, 3, 3, "simpler_run.bind.h2d_graph", 1_100_000, 50_000, ""),
		acctSpan(7, 3, 2, "simpler_run.bind.orch_h2d_pipe", 1000, 1_150_000, ""),
		acctSpan(7, 3, 2, "simpler_run.bind.h2d_sm", 1_200_000, 30_000, ""),
		acctSpan(7, 3, 2, "simpler_run.bind.h2d_arena", 1_300_000, 20_000, ""),
		acctSpan(7, 3, 1, "simpler_run.bind", 0, 1_400_000, ""),
		acctSpan(7, 3, 0, "simpler_run", 0, 5_000_000, ""),
	}
}

func TestComputePassMetrics(t *testing.T) {
	tests := []struct {
		name string
		pass BindPass
		want acctWant
	}{
		{
			name: "eager per-layer uploads inside host_orch and a leftover upload after it",
			pass: acctPass(7, 3,
				acctSeg(trace.SegHostOrch, 1000, 1_000_000),
				acctSeg(trace.SegH2dGraph, 10_000, 100_000),
				acctSeg(trace.SegH2dGraph, 200_000, 200_000),
				acctSeg(trace.SegH2dGraph, 1_100_000, 50_000),
				acctSeg(trace.SegSmH2d, 1_200_000, 30_000),
				acctSeg(trace.SegArenaH2d, 1_300_000, 20_000)),
			want: acctWant{
				StageHostOrch: 700, StageH2dGraph: 350, StageH2dSm: 30, StageH2dArena: 20,
				StageH2dImage: 400, StageGate: 1100, StageControlPlane: 1100,
			},
		},
		{
			name: "leftover upload parent with same-name children counts once",
			pass: acctPass(7, 3,
				acctSeg(trace.SegH2dGraph, 10_000, 500_000),
				acctSeg(trace.SegH2dGraph, 20_000, 100_000),
				acctSeg(trace.SegH2dGraph, 200_000, 100_000)),
			want: acctWant{StageH2dGraph: 500, StageH2dImage: 500, StageGate: 500, StageControlPlane: 500},
		},
		{
			name: "the same parent and children inside host_orch are subtracted once",
			pass: acctPass(7, 3,
				acctSeg(trace.SegHostOrch, 0, 1_000_000),
				acctSeg(trace.SegH2dGraph, 10_000, 500_000),
				acctSeg(trace.SegH2dGraph, 20_000, 100_000),
				acctSeg(trace.SegH2dGraph, 200_000, 100_000)),
			want: acctWant{StageHostOrch: 500, StageH2dGraph: 500, StageH2dImage: 500, StageGate: 1000, StageControlPlane: 1000},
		},
		{
			name: "clock skew: overlapping sibling uploads longer than host_orch clamp at 0",
			pass: acctPass(7, 3,
				acctSeg(trace.SegHostOrch, 0, 1_000_000),
				acctSeg(trace.SegH2dGraph, 0, 700_000),
				acctSeg(trace.SegH2dGraph, 300_000, 700_000)),
			want: acctWant{StageHostOrch: 0, StageH2dGraph: 1400, StageH2dImage: 1400, StageGate: 1400, StageControlPlane: 1400},
		},
		{
			name: "no host_orch: setup + entry, exclusive of the upload inside entry",
			pass: acctPass(7, 3,
				acctSeg(trace.SegHostOrchSetup, 0, 200_000),
				acctSeg(trace.SegHostOrchEntry, 200_000, 800_000),
				acctSeg(trace.SegH2dGraph, 300_000, 100_000)),
			want: acctWant{StageHostOrch: 900, StageH2dGraph: 100, StageH2dImage: 100, StageGate: 1000, StageControlPlane: 1000},
		},
		{
			name: "h2d_image wrapping sm and arena counts once, parts keep their columns",
			pass: acctPass(7, 3,
				acctSeg(trace.SegH2dImage, 0, 100_000),
				acctSeg(trace.SegSmH2d, 0, 30_000),
				acctSeg(trace.SegArenaH2d, 40_000, 50_000)),
			want: acctWant{StageH2dImage: 100, StageH2dSm: 30, StageH2dArena: 50, StageGate: 100, StageControlPlane: 100},
		},
		{
			name: "E1 pass: nothing nests, ControlPlane is the per-pass sum",
			pass: acctPass(0, 0,
				acctSeg(trace.SegArgs, 303_071, 416_520),
				acctSeg(trace.SegArenaBuild, 723_056, 3_091_527),
				acctSeg(trace.SegStaticArena, 3_816_293, 97_768_189),
				acctSeg(trace.SegGmHeap, 101_588_089, 2158),
				acctSeg(trace.SegSharedMem, 116_335_127, 5958),
				acctSeg(trace.SegRuntimeInit, 101_592_051, 70_494),
				acctSeg(trace.SegHostOrch, 101_665_127, 4_919_026),
				acctSeg(trace.SegGraphUpload, 106_585_271, 9_747_628),
				acctSeg(trace.SegArenaH2d, 116_342_629, 649_845),
				acctSeg(trace.SegHostViewClose, 116_996_079, 19_213)),
			want: acctWant{
				StageArgs: 416.52, StagePrebuilt: 3091.527 + 97768.189 + 2.158 + 5.958 + 70.494,
				StageHostOrch: 4919.026, StageH2dGraph: 9747.628, StageH2dArena: 649.845,
				StageH2dImage: 9747.628 + 649.845, StageViewClose: 19.213,
				StageGate:         4919.026 + 9747.628 + 649.845,
				StageControlPlane: 4919.026 + 9747.628 + 649.845,
			},
		},
		{
			name: "prebuilt span wins over its parts; relocate and graph_pack join ControlPlane",
			pass: acctPass(7, 3,
				acctSeg(trace.SegPrebuilt, 0, 300_000),
				acctSeg(trace.SegRuntimeInit, 10_000, 50_000),
				acctSeg(trace.SegHostOrch, 400_000, 1_000_000),
				acctSeg(trace.SegGraphPack, 1_500_000, 200_000),
				acctSeg(trace.SegRelocate, 1_800_000, 1000)),
			want: acctWant{StagePrebuilt: 300, StageHostOrch: 1000, StageGraphPack: 200, StageRelocate: 1, StageGate: 1000, StageControlPlane: 1201},
		},
		{
			name: "empty pass records nothing",
			pass: acctPass(7, 3),
			want: acctWant{},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			acctCheck(t, ComputePassMetrics(tc.pass), tc.want)
		})
	}
}

func TestComputePassMetricsFromPR1870Spans(t *testing.T) {
	passes := BindPassesFromSpans(acctPR1870Spans())
	require.Len(t, passes, 1)
	assert.Equal(t, int64(7), passes[0].Pid)
	assert.Equal(t, uint64(3), passes[0].Inv)
	assert.False(t, passes[0].Has("orch_h2d_pipe"), "orch_h2d_pipe is a wrapper, not a segment")
	acctCheck(t, ComputePassMetrics(passes[0]), acctWant{
		StageHostOrch: 700, StageH2dGraph: 350, StageH2dSm: 30, StageH2dArena: 20,
		StageH2dImage: 400, StageGate: 1100, StageControlPlane: 1100,
	})
}

func TestClockSkewRoundStillCounts(t *testing.T) {
	skewed := acctPass(7, 2,
		acctSeg(trace.SegHostOrch, 0, 1_000_000),
		acctSeg(trace.SegH2dGraph, 0, 700_000),
		acctSeg(trace.SegH2dGraph, 300_000, 700_000))
	normal := acctPass(7, 3,
		acctSeg(trace.SegHostOrch, 0, 1_000_000),
		acctSeg(trace.SegH2dGraph, 1_100_000, 100_000))
	a := ComputeAccounting([]BindPass{normal, skewed})
	assert.Equal(t, []int{0, 1}, a.All.Common)
	assert.Empty(t, a.Warnings())
	assert.InDelta(t, 500.0, a.All.Mean[StageHostOrch], 1e-9, "(1000 + 0) / 2")
}

// acctFourRounds are four rounds of one pid; round 2 lacks arena_h2d. The
// per-round Gates are 1000, 1200, (700), 1400.
func acctFourRounds() []BindPass {
	round := func(inv uint64, orch, graph, arena int64) BindPass {
		p := acctPass(42, inv,
			acctSeg(trace.SegArgs, 0, 100_000),
			acctSeg(trace.SegHostOrch, 100_000, orch),
			acctSeg(trace.SegH2dGraph, 100_000+orch, graph))
		if arena > 0 {
			p.Segments = append(p.Segments, acctSeg(trace.SegArenaH2d, 200_000+orch+graph, arena))
		}
		return p
	}
	return []BindPass{
		round(1, 600_000, 300_000, 100_000),
		round(2, 700_000, 400_000, 100_000),
		round(3, 500_000, 200_000, 0),
		round(4, 900_000, 400_000, 100_000),
	}
}

func TestCommonRoundSet(t *testing.T) {
	a := ComputeAccounting(acctFourRounds())
	tests := []struct {
		name       string
		blk        *AccountingBlock
		k, m       int
		leftOut    []int
		gate       float64
		hostOrchUS float64
	}{
		{name: "all rounds", blk: &a.All, k: 3, m: 4, leftOut: []int{2}, gate: (1000 + 1200 + 1400) / 3.0, hostOrchUS: (600 + 700 + 900) / 3.0},
		{name: "cold", blk: &a.ColdBlock, k: 1, m: 1, gate: 1000, hostOrchUS: 600},
		{name: "warm", blk: &a.WarmBlock, k: 2, m: 3, leftOut: []int{2}, gate: (1200 + 1400) / 2.0, hostOrchUS: (700 + 900) / 2.0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.k, tc.blk.K())
			assert.Equal(t, tc.m, tc.blk.M())
			assert.Equal(t, tc.leftOut, tc.blk.LeftOut)
			assert.InDelta(t, tc.gate, tc.blk.Mean[StageGate], 1e-9)
			assert.InDelta(t, tc.hostOrchUS, tc.blk.Mean[StageHostOrch], 1e-9)
			assert.InDelta(t, tc.blk.Mean[StageHostOrch]+tc.blk.Mean[StageH2dImage], tc.blk.Mean[StageGate], 1e-9,
				"over one round set Gate is also the sum of the means")
		})
	}
	assert.Equal(t, []string{
		"warning: HBG accounting, all rounds: left out 1 of 4 rounds that lack H2dArena: rounds 2",
		"warning: HBG accounting, warm: left out 1 of 3 rounds that lack H2dArena: rounds 2",
	}, a.Warnings())
	assert.Equal(t, [2]int{3, 4}, [2]int{a.All.K(), a.All.M()}, "all rounds: n=3 of 4")
	assert.Equal(t, [2]int{2, 3}, [2]int{a.WarmBlock.K(), a.WarmBlock.M()}, "warm: n=2 of 3")
}

// acctFixture reads a fixture log.
func acctFixture(t *testing.T, name string) *trace.Log {
	t.Helper()
	srcs, err := trace.Inputs([]string{"../fixtures/" + name}, nil)
	require.NoError(t, err)
	l, err := trace.ReadLog(srcs)
	require.NoError(t, err)
	return l
}

func TestE3GraphPackIsNoUpload(t *testing.T) {
	const counters = " minflt=12 tminflt=3 nivcsw=0 nvcsw=1 cpu_ns=1890000 rec_cpu_ns=0"
	spans := []trace.Span{
		acctSpan(71, 5, 2, "chip.run.bind.args", 0, 300_000, "ntensor=92 staged=1 bytes=8"+counters),
		acctSpan(71, 5, 2, "chip.run.bind.host_orch", 400_000, 2_000_000, "tasks=47 heap_used=106399744"+counters),
		acctSpan(71, 5, 3, "chip.run.bind.host_orch.record_sub_task", 500_000, 1_000, "detail=3"),
		acctSpan(71, 5, 2, "chip.run.bind.graph_pack", 2_500_000, 300_000, "defs=2 bytes=4112 spilled=0"+counters),
		acctSpan(71, 5, 2, "chip.run.bind.arena_h2d", 2_900_000, 100_000, "nt=47 bytes=3904"+counters),
		acctSpan(71, 5, 2, "chip.run.bind.graph_pack", 9_000_000, 1, "clk=dev"),
		acctSpan(71, 5, 1, "chip.run.bind", 0, 3_100_000, ""),
	}
	passes := BindPassesFromSpans(spans)
	require.Len(t, passes, 1)
	m := ComputePassMetrics(passes[0])
	acctCheck(t, m, acctWant{
		StageArgs: 300, StageHostOrch: 2000, StageGraphPack: 300, StageH2dArena: 100,
		StageH2dImage: 100, StageGate: 2100, StageControlPlane: 2400,
	})
	// Upstream's control plane: host_orch + graph_pack + arena_h2d.
	cp, _ := acctUS(m, StageControlPlane)
	assert.InDelta(t, 2000.0+300+100, cp, 1e-9)
}

func TestE3FixtureGraphPack(t *testing.T) {
	l := acctFixture(t, "hbg-e3-spool.log")
	passes := BindPassesFromSpans(l.Spans)
	require.GreaterOrEqual(t, len(passes), 4)
	for _, p := range passes {
		m := ComputePassMetrics(p)
		image, _ := m.Get(StageH2dImage)
		arena, _ := m.Get(StageH2dArena)
		pack, packRec := m.Get(StageGraphPack)
		orch, _ := m.Get(StageHostOrch)
		cp, _ := m.Get(StageControlPlane)
		require.True(t, packRec, "inv %d has graph_pack", p.Inv)
		assert.Equal(t, arena, image, "inv %d: graph_pack is no upload", p.Inv)
		assert.Equal(t, orch+pack+arena, cp, "inv %d: upstream's control plane", p.Inv)
	}
}

func TestAccountingProperties(t *testing.T) {
	names := []string{trace.SegHostOrch, trace.SegH2dGraph, trace.SegGraphUpload, trace.SegSmH2d, trace.SegArenaH2d, trace.SegH2dImage, trace.SegRelocate, trace.SegGraphPack}
	rng := rand.New(rand.NewPCG(1870, 4))
	// randomPass builds a pass whose segments nest at random: each new
	// segment is either placed inside an earlier one or after the end of
	// everything so far.
	randomPass := func(nest bool) BindPass {
		p := acctPass(1, 1)
		var end int64
		for range 1 + rng.IntN(16) {
			name := names[rng.IntN(len(names))]
			if nest && len(p.Segments) > 0 && rng.IntN(2) == 0 {
				out := p.Segments[rng.IntN(len(p.Segments))]
				if out.Dur > 0 {
					ts := out.Ts + rng.Int64N(out.Dur)
					if rng.IntN(2) == 0 { // early and long: siblings that overlap
						ts = out.Ts + rng.Int64N(out.Dur/4+1)
					}
					dur := rng.Int64N(out.End() - ts + 1)
					if rng.IntN(4) == 0 { // a clock-skewed copy running past its parent
						dur += rng.Int64N(out.Dur + 1)
					}
					p.Segments = append(p.Segments, acctSeg(name, ts, dur))
					end = max(end, ts+dur)
					continue
				}
			}
			ts := end + 1 + rng.Int64N(1000)
			dur := rng.Int64N(1_000_000)
			p.Segments = append(p.Segments, acctSeg(name, ts, dur))
			end = ts + dur
		}
		return p
	}
	for i := range 2000 {
		nest := i%2 == 0
		p := randomPass(nest)
		m := ComputePassMetrics(p)
		var h2d, perPassSum int64
		for _, s := range p.Segments {
			if trace.IsH2D(s.Name) {
				h2d += s.Dur
			}
			if s.Name != trace.SegHostViewClose && s.Name != trace.SegArgs {
				perPassSum += s.Dur // hbg_bind_phases' control plane, with graph_pack and h2d_image
			}
		}
		orch, _ := m.Get(StageHostOrch)
		image, _ := m.Get(StageH2dImage)
		cp, _ := m.Get(StageControlPlane)
		require.GreaterOrEqual(t, orch, int64(0), "pass %d: %+v", i, p.Segments)
		require.LessOrEqual(t, image, h2d, "pass %d: %+v", i, p.Segments)
		if !nest {
			require.Equal(t, perPassSum, cp, "pass %d: %+v", i, p.Segments)
		}
	}
}

// acctTasks returns the tasks= attribute of a pass's host_orch segment,
// which the E1 fixtures set per rank.
func acctTasks(p BindPass) string {
	for _, s := range p.Segments {
		if s.Name == trace.SegHostOrch {
			if a, ok := trace.ParseAttrs(s.Attrs).Get("tasks"); ok {
				return a.Value
			}
		}
	}
	return ""
}

func TestE1TwoRanksSharedThread(t *testing.T) {
	l := acctFixture(t, "hbg-e1-two-ranks-shared-t0x.log")
	lines := trace.GroupPasses(l.BindPhases)
	trace.AttachPasses(lines, l.Spans)
	passes := BindPassesFromLines(lines)
	require.Len(t, passes, 8, "2 ranks x 4 rounds")
	rankOf := map[string]int64{"1131": 90244, "1130": 90245}
	perPid := map[int64]int{}
	for i, p := range passes {
		require.True(t, p.Known, "pass %d has a bind", i)
		assert.Equal(t, rankOf[acctTasks(p)], p.Pid, "pass %d (tasks=%s) lands in its own rank", i, acctTasks(p))
		perPid[p.Pid]++
	}
	assert.Equal(t, map[int64]int{90244: 4, 90245: 4}, perPid)

	// The fixture is a real trap: both ranks write with one T0x, and the
	// reference's rule (the first containing bind in span order) files some
	// pass into the other rank.
	misfiled := 0
	for i := range lines {
		start, end := lines[i].Span()
		for j := range l.Spans {
			s := &l.Spans[j]
			if trace.IsBindSpan(s) && s.Ts <= start && end <= s.End() {
				if s.Pid != rankOf[acctTasks(passes[i])] {
					misfiled++
				}
				break
			}
		}
	}
	assert.Positive(t, misfiled, "the first containing bind would misfile a pass")

	// Cold is per pid: the first pass of each rank in row order.
	invs := trace.GroupInvocations(trace.InvocationSpans(l.Spans))
	rounds := ComputeRounds(invs)
	rows := BindPassesForRows(passes, rounds.Rows)
	a := ComputeAccounting(rows)
	assert.Equal(t, 2, a.ColdBlock.M())
	for _, r := range a.ColdBlock.Rounds {
		assert.Equal(t, uint64(1), a.Passes[r].Inv)
	}
	assert.Equal(t, 8, a.All.K())
	assert.Empty(t, a.Warnings())
}

func TestGenerationFixtures(t *testing.T) {
	tests := []struct {
		file    string
		rounds  int
		visible []BindStage
	}{
		{file: "hbg-e1.log", rounds: 8, visible: []BindStage{StageArgs, StagePrebuilt, StageHostOrch, StageH2dImage,
			StageH2dGraph, StageH2dArena, StageViewClose, StageGate, StageControlPlane}},
		{file: "hbg-e2.log", rounds: 5, visible: []BindStage{StageArgs, StagePrebuilt, StageHostOrch, StageH2dImage,
			StageH2dGraph, StageH2dArena, StageViewClose, StageGate, StageControlPlane}},
		{file: "hbg-e3-spool.log", rounds: 5, visible: []BindStage{StageArgs, StagePrebuilt, StageHostOrch, StageGraphPack,
			StageH2dImage, StageH2dArena, StageViewClose, StageGate, StageControlPlane}},
		{file: "hbg-pr1870.log", rounds: 4, visible: []BindStage{StageArgs, StagePrebuilt, StageHostOrch, StageRelocate,
			StageH2dImage, StageH2dGraph, StageH2dSm, StageH2dArena, StageGate, StageControlPlane}},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			l := acctFixture(t, tc.file)
			rounds := ComputeRounds(trace.GroupInvocations(trace.InvocationSpans(l.Spans)))
			require.Len(t, rounds.Rows, tc.rounds)
			a := ComputeAccounting(BindPassesForRows(CollectBindPasses(l, nil), rounds.Rows))
			assert.True(t, a.Active())
			assert.Equal(t, tc.visible, a.Visible())
			assert.Equal(t, tc.rounds, a.All.K(), "every round records every stage")
			assert.Empty(t, a.Warnings())
			for r := range a.Metrics {
				orch, _ := a.Metrics[r].Get(StageHostOrch)
				assert.Positive(t, orch, "round %d", r)
			}
		})
	}
}

func TestPR1870FixtureExclusiveHostOrch(t *testing.T) {
	l := acctFixture(t, "hbg-pr1870.log")
	passes := CollectBindPasses(l, nil)
	require.Len(t, passes, 4)
	for _, p := range passes {
		m := ComputePassMetrics(p)
		var orch, inside, graphTop int64
		var parent *Segment
		for i, s := range p.Segments {
			switch {
			case s.Name == trace.SegHostOrch:
				orch = s.Dur
			case s.Name == trace.SegH2dGraph && strings.Contains(s.Attrs, "leftover="):
				parent = &p.Segments[i]
			}
		}
		for _, s := range p.Segments {
			if s.Name != trace.SegH2dGraph {
				continue
			}
			if parent != nil && s != *parent && parent.Ts <= s.Ts && s.End() <= parent.End() {
				continue // a leftover child: its parent covers it
			}
			graphTop += s.Dur
			if s.Ts < p.Segments[0].Ts { // never: keeps the loop honest
				t.Fatal("segment before args")
			}
		}
		for _, s := range p.Segments {
			if s.Name == trace.SegH2dGraph && !strings.Contains(s.Attrs, "leftover=") && (parent == nil || s.Ts < parent.Ts) {
				inside += s.Dur // the eager per-layer uploads, all inside host_orch
			}
		}
		got, _ := m.Get(StageHostOrch)
		assert.Equal(t, orch-inside, got, "inv %d", p.Inv)
		g, _ := m.Get(StageH2dGraph)
		assert.Equal(t, graphTop, g, "inv %d", p.Inv)
		assert.Equal(t, p.Inv == 1, parent != nil, "the leftover upload is in round 0 only")
	}
}

func TestE1FixtureControlPlaneIsPerPassSum(t *testing.T) {
	for _, f := range []string{"hbg-e1.log", "hbg-e2.log"} {
		t.Run(f, func(t *testing.T) {
			l := acctFixture(t, f)
			lines := trace.GroupPasses(l.BindPhases)
			trace.AttachPasses(lines, l.Spans)
			passes := BindPassesFromLines(lines)
			require.Len(t, passes, len(lines))
			require.GreaterOrEqual(t, len(passes), 4)
			for i, p := range passes {
				// hbg_bind_phases' control plane, summed within the pass.
				var sum int64
				for _, l := range lines[i].Segments {
					switch l.Phase {
					case "host_orch", "graph_upload", "relocate", "sm_h2d", "arena_h2d":
						sum += l.DurNs
					}
				}
				m := ComputePassMetrics(p)
				cp, ok := m.Get(StageControlPlane)
				require.True(t, ok)
				assert.Equal(t, sum, cp, "pass %d", i)
			}
		})
	}
}

// TestEqualIntervalsHandBuilt is the equal-interval rule of
// docs/accounting.md "2. Per-pass stages" on a
// hand-built pass: host_orch and an h2d_graph copy share [1000, 201000),
// an arena_h2d copy of 40 µs runs after them. By hand: HostOrch = 200 −
// 200 = 0, H2dGraph 200, H2dArena 40, H2dImage 240, Gate 240, in either
// log order (the old rule gave HostOrch 200 and Gate 440 for one).
func TestEqualIntervalsHandBuilt(t *testing.T) {
	orch := acctSeg(trace.SegHostOrch, 1000, 200_000)
	copy := acctSeg(trace.SegH2dGraph, 1000, 200_000)
	arena := acctSeg(trace.SegArenaH2d, 300_000, 40_000)
	want := acctWant{StageHostOrch: 0, StageH2dGraph: 200, StageH2dArena: 40, StageH2dImage: 240, StageGate: 240, StageControlPlane: 240}
	for _, segs := range [][]Segment{{orch, copy, arena}, {copy, orch, arena}, {arena, copy, orch}} {
		acctCheck(t, ComputePassMetrics(acctPass(1, 1, segs...)), want)
	}
	// Two copies with one interval count once, top-level of their kind
	// and in H2dImage; setup/entry contain a copy of their interval too.
	setup := acctSeg(trace.SegHostOrchSetup, 0, 50_000)
	up := acctSeg(trace.SegGraphUpload, 0, 50_000)
	up2 := acctSeg(trace.SegH2dGraph, 0, 50_000)
	want = acctWant{StageHostOrch: 0, StageH2dGraph: 50, StageH2dImage: 50, StageGate: 50, StageControlPlane: 50}
	for _, segs := range [][]Segment{{setup, up, up2}, {up2, up, setup}, {up, setup, up2}} {
		acctCheck(t, ComputePassMetrics(acctPass(1, 1, segs...)), want)
	}
}

// TestAccountingIgnoresLineOrder is the property of docs/accounting.md "2.
// Per-pass stages" that log order never decides: for random passes rich in
// equal and nested intervals, every permutation of the segments gives the
// same metrics.
func TestAccountingIgnoresLineOrder(t *testing.T) {
	names := []string{trace.SegHostOrch, trace.SegHostOrchSetup, trace.SegHostOrchEntry, trace.SegH2dGraph, trace.SegGraphUpload, trace.SegSmH2d, trace.SegArenaH2d, trace.SegH2dImage, trace.SegRelocate, trace.SegGraphPack, trace.SegArgs}
	rng := rand.New(rand.NewPCG(11, 3))
	for k := range 3000 {
		p := acctPass(1, 1)
		for range 1 + rng.IntN(10) {
			name := names[rng.IntN(len(names))]
			ts, dur := int64(rng.IntN(4))*100, int64(1+rng.IntN(4))*100
			if len(p.Segments) > 0 && rng.IntN(2) == 0 {
				o := p.Segments[rng.IntN(len(p.Segments))]
				ts, dur = o.Ts, o.Dur // an equal interval
			}
			p.Segments = append(p.Segments, acctSeg(name, ts, dur))
		}
		want := ComputePassMetrics(p)
		for range 6 {
			q := acctPass(1, 1, slices.Clone(p.Segments)...)
			rng.Shuffle(len(q.Segments), func(i, j int) { q.Segments[i], q.Segments[j] = q.Segments[j], q.Segments[i] })
			require.Equal(t, want, ComputePassMetrics(q), "pass %d: %+v vs %+v", k, p.Segments, q.Segments)
		}
	}
}

// TestAccountingSumsDoNotWrap: durations near int64's limit saturate
// instead of wrapping into a negative (then clamped to 0) HostOrch.
func TestAccountingSumsDoNotWrap(t *testing.T) {
	// Two copies that overlap without containing each other are both
	// top-level: 2 × 1.25·2^62 does not fit int64.
	const d = 5 << 60
	p := acctPass(1, 1, acctSeg(trace.SegArenaH2d, 0, d), acctSeg(trace.SegSmH2d, 1<<60, d), acctSeg(trace.SegHostOrch, 0, 10))
	m := ComputePassMetrics(p)
	image, ok := m.Get(StageH2dImage)
	require.True(t, ok)
	assert.Equal(t, int64(1<<63-1), image)
	gate, _ := m.Get(StageGate)
	assert.Equal(t, int64(1<<63-1), gate)
	orch, _ := m.Get(StageHostOrch)
	assert.Equal(t, int64(10), orch)
}
