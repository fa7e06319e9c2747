package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hbgkit/hbgkit/phases"
	"github.com/hbgkit/hbgkit/swimlane"
	"github.com/hbgkit/hbgkit/trace"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// harnessLog runs `hbgbench harness args...` into a file and reads it with
// the engine under hbgtrace.
func harnessLog(t *testing.T, args ...string) *trace.Log {
	t.Helper()
	log := filepath.Join(t.TempDir(), "harness.log")
	code, _, stderr := runCLI(append(append([]string{"harness"}, args...), "-o", log)...)
	require.Equal(t, 0, code, stderr)
	srcs, err := trace.Inputs([]string{log}, nil)
	require.NoError(t, err)
	l, err := trace.ReadLog(srcs)
	require.NoError(t, err)
	assert.Empty(t, l.Warnings())
	return l
}

// TestHarnessEagerPinnedAccounting checks the accounting's nested-H2D rule
// end to end: with eager_pinned in e3 (and pr1870) the per-layer h2d_graph
// spans lie inside host_orch, and the accounting `hbgtrace rounds` prints
// reports HostOrch exclusive of them and H2dGraph as their sum; with
// current nothing is subtracted.
func TestHarnessEagerPinnedAccounting(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		epoch, pod string
		nested     bool
	}{
		{"e3", "eager_pinned", true},
		{"pr1870", "eager_pinned", true},
		{"e3", "current", false},
		{"e3", "deferred_pageable", false},
	} {
		t.Run(tc.epoch+"/"+tc.pod, func(t *testing.T) {
			l := harnessLog(t, "--epoch", tc.epoch, "--graph-pod", tc.pod, "--rounds", "3")
			passes := phases.CollectBindPasses(l, nil)
			require.Len(t, passes, 3)
			for i, p := range passes {
				var orch, h2d, inOrch int64
				var orchSeg phases.Segment
				for _, s := range p.Segments {
					if s.Name == trace.SegHostOrch {
						orchSeg = s
						orch += s.Dur
					}
				}
				for _, s := range p.Segments {
					if s.Name == trace.SegH2dGraph && s.Ts >= orchSeg.Ts && s.End() <= orchSeg.End() {
						inOrch += s.Dur
						h2d += s.Dur
					}
				}
				m := phases.ComputePassMetrics(p)
				gotOrch, ok := m.Get(phases.StageHostOrch)
				require.True(t, ok)
				assert.Equal(t, orch-inOrch, gotOrch, "pass %d: HostOrch exclusive of nested uploads", i)
				gotH2d, rec := m.Get(phases.StageH2dGraph)
				if tc.nested {
					assert.Positive(t, inOrch, "pass %d has uploads inside host_orch", i)
					assert.Equal(t, h2d, gotH2d, "pass %d: H2dGraph is the nested uploads", i)
					gate, _ := m.Get(phases.StageGate)
					img, _ := m.Get(phases.StageH2dImage)
					assert.Equal(t, gotOrch+img, gate)
					assert.GreaterOrEqual(t, img, gotH2d)
				} else {
					assert.Zero(t, inOrch)
					if tc.pod == "current" {
						assert.False(t, rec, "current uploads nothing as h2d_graph in e3")
					} else {
						assert.Positive(t, gotH2d, "the vectors' upload after host_orch")
					}
				}
			}
		})
	}
}

// TestHarnessTwoRanksReadAsTheFixture: ranks=2 gives two pids and two
// anchors; every bind-phase pass attaches to the chip.run.bind of its own
// rank; the swimlane draws every bind phase in its rank's process inside
// that rank's chip.run.bind; `phases --ranks 2` drops one cold pass per
// rank; the rounds table has three rounds per rank.
func TestHarnessTwoRanksReadAsTheFixture(t *testing.T) {
	t.Parallel()
	const rounds = 3
	l := harnessLog(t, "--ranks", "2", "--rounds", fmt.Sprint(rounds), "--workload", "qwen3-14b-decode")
	require.Len(t, l.Anchors, 2)
	pids := map[int64]int{}
	for _, s := range l.Spans {
		if s.Name == "chip.run.bind" {
			pids[s.Pid]++
		}
	}
	require.Len(t, pids, 2)
	for _, a := range l.Anchors {
		assert.Equal(t, rounds, pids[a.Pid], "anchor pid %d has its binds", a.Pid)
	}

	passes := trace.GroupPasses(l.BindPhases)
	trace.AttachPasses(passes, l.Spans)
	require.Len(t, passes, 2*rounds)
	perPid := map[int64]int{}
	for i, p := range passes {
		require.NotNil(t, p.Bind, "pass %d", i)
		perPid[p.Bind.Pid]++
	}
	for pid := range pids {
		assert.Equal(t, rounds, perPid[pid])
	}
	assert.NotEqual(t, passes[0].Bind.Pid, passes[1].Bind.Pid,
		"the first two passes in log order are one per rank (the reference's cold rule)")

	sc := phases.NewSpreadCollector(false)
	for i := range l.BindPhases {
		sc.BindPhase(&l.BindPhases[i])
	}
	spread, err := sc.Spread(phases.BindSpreadOptions{Ranks: 2, RanksSet: true})
	require.NoError(t, err)
	assert.Equal(t, 2*rounds, spread.Passes)
	assert.Equal(t, 2, spread.Cold, "one cold pass per rank")
	assert.Equal(t, 2*rounds-2, spread.Warm)

	rc := phases.NewRoundsCollector()
	for i := range l.Spans {
		rc.Add(&l.Spans[i])
	}
	per := rc.RoundsPerRank()
	require.Len(t, per, 2)

	var buf bytes.Buffer
	require.NoError(t, swimlane.Build(l, nil).WriteJSON(&buf))
	var doc struct {
		TraceEvents []struct {
			Name string         `json:"name"`
			Ph   string         `json:"ph"`
			Ts   float64        `json:"ts"`
			Dur  float64        `json:"dur"`
			Pid  int64          `json:"pid"`
			Args map[string]any `json:"args"`
		} `json:"traceEvents"`
	}
	require.NoError(t, json.Unmarshal(buf.Bytes(), &doc))
	type key struct {
		pid int64
		inv float64
	}
	binds := map[key][2]float64{}
	for _, e := range doc.TraceEvents {
		if e.Ph == "X" && e.Name == "chip.run.bind" {
			binds[key{e.Pid, e.Args["inv"].(float64)}] = [2]float64{e.Ts, e.Ts + e.Dur}
		}
	}
	seen := 0
	for _, e := range doc.TraceEvents {
		if e.Ph != "X" || e.Args["src"] != "bind_phase" {
			continue
		}
		seen++
		b, ok := binds[key{e.Pid, e.Args["inv"].(float64)}]
		require.True(t, ok, "%s in pid %d has no chip.run.bind of its rank", e.Name, e.Pid)
		assert.True(t, e.Ts >= b[0]-0.001 && e.Ts+e.Dur <= b[1]+0.001, "%s outside its rank's bind", e.Name)
		assert.True(t, strings.HasPrefix(e.Name, "chip.run.bind."), e.Name)
	}
	assert.Equal(t, 2*rounds*10, seen, "ten bind phases per pass")
}
