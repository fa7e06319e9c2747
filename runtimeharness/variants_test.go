//go:build cgo

package runtimeharness

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// podRun is one graph_pod variant's run: its log, result and, per pass,
// the sum of the Definition images (from the current variant's e1 line).
type podRun struct {
	text string
	res  *ModelResult
}

func runPod(t *testing.T, wl Workload, pod GraphPod, epoch Epoch, rounds int, dir string) podRun {
	t.Helper()
	cfg := DefaultConfig()
	cfg.Workload, cfg.GraphPod, cfg.Epoch = wl, pod, epoch
	text, res := runInProcess(t, cfg, rounds, dir)
	return podRun{text, res}
}

// TestGraphPodVariants: the three graph_pod variants move the same Graph
// POD bytes to the device; only where and when the copies happen differs,
// and each epoch shows it in its own vocabulary.
func TestGraphPodVariants(t *testing.T) {
	for _, wl := range []Workload{WorkloadDSV4Pair, WorkloadDSV4Blocks7} {
		want := published[wl]
		base := runPod(t, wl, GraphPodCurrent, EpochE1, 2, "")
		bp := checkLog(t, base.text, wantLog{binds: 2, firstInv: base.res.Stats[0].Inv})
		up, ok := find(bp.passes[1].phases, "graph_upload")
		require.True(t, ok)
		images := attrInt(t, up, "bytes")
		h2d, _ := find(bp.passes[1].phases, "arena_h2d")
		for _, epoch := range []Epoch{EpochE1, EpochE3, EpochPR1870} {
			for _, pod := range []GraphPod{GraphPodCurrent, GraphPodDeferredPageable, GraphPodEagerPinned} {
				t.Run(fmt.Sprintf("%s/%s/%s", wl, epoch, pod), func(t *testing.T) {
					dir := t.TempDir()
					r := runPod(t, wl, pod, epoch, 2, dir)
					for _, st := range r.res.Stats {
						assert.Equal(t, images, st.GraphH2DBytes, "Graph POD bytes on the device")
						copies := map[GraphPod]int64{GraphPodCurrent: want.defs,
							GraphPodDeferredPageable: want.subs, GraphPodEagerPinned: want.subs}[pod]
						if epoch == EpochE3 && pod == GraphPodCurrent {
							copies = 1 // packed into the arena upload
						}
						assert.Equal(t, copies, st.GraphH2DCopies)
					}
					recs := loadRecords(t, filepath.Join(dir, RecordsFile))
					phasesSeen := map[string]bool{}
					for _, rl := range recs {
						for _, rec := range rl.Records {
							phasesSeen[rec.Phase] = true
						}
					}
					switch epoch {
					case EpochE1:
						p := checkLog(t, r.text, wantLog{binds: 2, firstInv: r.res.Stats[0].Inv}).passes[1]
						orch, _ := find(p.phases, "host_orch")
						g, hasUpload := find(p.phases, "graph_upload")
						a, _ := find(p.phases, "arena_h2d")
						assert.Equal(t, h2d.attrs, a.attrs, "arena_h2d moves the same bytes")
						if pod == GraphPodEagerPinned {
							assert.False(t, hasUpload, "eager_pinned leaves nothing to graph_upload")
							assert.Equal(t, "model", orch.kv["dev"], "host_orch holds the modelled copies")
						} else {
							require.True(t, hasUpload)
							assert.Equal(t, up.attrs, g.attrs)
							assert.NotContains(t, orch.kv, "dev")
						}
						assert.True(t, phasesSeen["record_node"])
					case EpochE3:
						p := checkSpanLog(t, r.text, EpochE3, wantLog{binds: 2, firstInv: r.res.Stats[0].Inv})[1]
						orch := p.named("chip.run.bind.host_orch")[0]
						pack := p.named("chip.run.bind.graph_pack")[0]
						arena := p.named("chip.run.bind.arena_h2d")[0]
						var nested, after int64
						var layers int
						for _, s := range p.named("chip.run.bind.h2d_graph") {
							b := attrInt(t, s, "bytes")
							if s.depth == 3 {
								assert.True(t, inside(s, orch))
								nested += b
								layers++
							} else {
								after += b
							}
						}
						packed := attrInt(t, pack, "bytes")
						assert.Equal(t, images, nested+after+packed)
						assert.Equal(t, attrInt(t, h2d, "bytes")+packed, attrInt(t, arena, "bytes"),
							"e3 ships the graph pack with the arena")
						switch pod {
						case GraphPodCurrent:
							assert.Equal(t, images, packed)
						case GraphPodDeferredPageable:
							assert.Equal(t, images, after)
						case GraphPodEagerPinned:
							assert.Equal(t, images, nested)
							assert.Equal(t, int(want.subs/want.defs), layers, "one h2d_graph per layer")
						}
						assert.True(t, phasesSeen["record_sub_task"])
						assert.True(t, phasesSeen["graph_pack"])
						assert.False(t, phasesSeen["record_node"])
					case EpochPR1870:
						p := checkSpanLog(t, r.text, EpochPR1870, wantLog{binds: 2, firstInv: r.res.Stats[0].Inv})[1]
						byDepth := map[int]int64{}
						count := map[int]int{}
						for _, s := range p.named("simpler_run.bind.h2d_graph") {
							byDepth[s.depth] += attrInt(t, s, "bytes")
							count[s.depth]++
						}
						switch pod {
						case GraphPodCurrent:
							assert.Equal(t, map[int]int64{3: images}, byDepth)
						case GraphPodDeferredPageable:
							assert.Equal(t, map[int]int64{3: images, 4: images}, byDepth)
							assert.Equal(t, int(want.subs), count[4], "one child per submission vector")
						case GraphPodEagerPinned:
							assert.Equal(t, map[int]int64{5: images}, byDepth)
							assert.Equal(t, int(want.subs/want.defs), count[5])
						}
						sm := p.named("simpler_run.bind.h2d_sm")[0]
						ar := p.named("simpler_run.bind.h2d_arena")[0]
						assert.Equal(t, attrInt(t, h2d, "bytes"), attrInt(t, sm, "bytes")+attrInt(t, ar, "bytes"),
							"h2d_sm + h2d_arena move arena_h2d's bytes")
					}
				})
			}
		}
	}
}

// TestDelayRaisesHostOrchOnly: delay_us=N adds at least N µs to host_orch
// on top of the bind thread's own orchestration records (disjoint from the
// busy wait), and changes no byte count or other attribute.
func TestDelayRaisesHostOrchOnly(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Workload = WorkloadQwen3Decode
	plain, pres := runInProcess(t, cfg, 2, "")
	cfg.DelayUS = 2500
	text, res := runInProcess(t, cfg, 2, "")
	pp := checkLog(t, plain, wantLog{binds: 2, firstInv: pres.Stats[0].Inv})
	dp := checkLog(t, text, wantLog{binds: 2, firstInv: res.Stats[0].Inv})
	for i := range dp.passes {
		orch, _ := find(dp.passes[i].phases, "host_orch")
		own := int64(0)
		for _, k := range []string{"submit_task", "alloc_tensors", "graph_submit"} {
			l, ok := find(dp.passes[i].orch, k)
			require.True(t, ok)
			own += l.total
		}
		assert.GreaterOrEqual(t, orch.dur, 2_500_000+own, "pass %d", i)
		for j, l := range dp.passes[i].phases {
			assert.Equal(t, pp.passes[i].phases[j].attrs, l.attrs, "%s attributes", l.name)
		}
		for j, l := range dp.passes[i].orch {
			assert.Equal(t, pp.passes[i].orch[j].count, l.count)
			assert.Equal(t, pp.passes[i].orch[j].detailSum, l.detailSum)
		}
	}
}

// TestTwoRanks runs ranks=2 in a fresh child: two forked processes, each
// with its own pid, anchor, inv from 1 and records, interleaved in one log
// so that every rank's pass k comes before any rank's pass k+1.
func TestTwoRanks(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Workload = WorkloadQwen3Decode
	cfg.Ranks = 2
	spec := blockIn(t, 3)
	res, err := testRunner(cfg).Run(context.Background(), spec)
	require.NoError(t, err)
	require.NotNil(t, res.Model)
	assert.Equal(t, 6, res.Model.Binds)
	require.Len(t, res.Model.RankPids, 2)
	pids := res.Model.RankPids
	assert.NotEqual(t, pids[0], pids[1])
	assert.NotContains(t, pids, res.Model.Pid, "ranks are processes of their own")
	assert.Zero(t, res.Model.ThreadsLeft)
	assert.Equal(t, 16, res.Model.ThreadsCreated, "8 prewarmed recorders per rank")

	b, err := os.ReadFile(spec.Log)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	anchors := map[int]int{}
	var rootOrder []int
	for _, l := range lines[1:] {
		if m := anchorRE.FindStringSubmatch(l); m != nil {
			anchors[int(num(m[3]))]++
			continue
		}
		if m := spanRE.FindStringSubmatch(l); m != nil && m[8] == "chip.run" {
			rootOrder = append(rootOrder, int(num(m[3])))
		}
	}
	assert.Equal(t, map[int]int{pids[0]: 1, pids[1]: 1}, anchors, "one anchor per rank")
	// The ranks meet before every bind: pass k of both before pass k+1.
	require.Len(t, rootOrder, 6)
	for k := 0; k < 3; k++ {
		assert.ElementsMatch(t, pids, rootOrder[2*k:2*k+2], "round %d", k)
	}
	recs := loadRecords(t, filepath.Join(spec.Out, RecordsFile))
	got := map[int][]uint64{}
	for _, rl := range recs {
		got[rl.Pid] = append(got[rl.Pid], rl.Inv)
	}
	assert.Equal(t, map[int][]uint64{pids[0]: {1, 2, 3}, pids[1]: {1, 2, 3}}, got)
}

// TestTwoRanksStats: in-process ranks=2 returns both ranks' binds,
// rank-major, each with its rank and pid.
func TestTwoRanksStats(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Workload = WorkloadQwen3Decode
	cfg.Ranks = 2
	res, err := RunModel(cfg, ModelOptions{Rounds: 4, Log: &strings.Builder{}, BindStats: true})
	require.NoError(t, err)
	require.Len(t, res.RankPids, 2)
	require.Len(t, res.Stats, 8)
	assert.Equal(t, 8, res.Binds)
	for i, st := range res.Stats {
		assert.Equal(t, i/4, st.Rank)
		assert.Equal(t, res.RankPids[i/4], st.Pid)
		assert.Equal(t, published[WorkloadQwen3Decode].tasks(), st.Tasks)
	}
}

// TestSecondBindColdnessIsGlibc pins down why the second bind of a fresh
// process still faults (docs/harness.md, "Cold binds"): glibc's dynamic
// mmap threshold. Bind 1 gets the args, arena and staging buffers from
// mmap; freeing them raises the threshold (and the trim threshold to
// twice that), so bind 2 takes them from a heap whose pages are new; from
// bind 3 on they are reused. With both thresholds fixed, only bind 1 is
// cold. Assumes glibc and THP not "always" (4 KiB faults).
func TestSecondBindColdnessIsGlibc(t *testing.T) {
	if Host().Glibc == "unknown" || thpMode() == "always" {
		t.Skip("needs glibc malloc and THP not always")
	}
	argsFaults := func(env []string) []int64 {
		cfg := DefaultConfig()
		cfg.Epoch = EpochE2
		spec := blockIn(t, 5)
		r := testRunner(cfg)
		r.Env = env
		res, err := r.Run(context.Background(), spec)
		require.NoError(t, err)
		b, err := os.ReadFile(spec.Log)
		require.NoError(t, err)
		pl := checkLog(t, string(b), wantLog{pid: res.Model.Pid, anchor: true, firstInv: 1, binds: 5})
		var out []int64
		for _, p := range pl.passes {
			a, _ := find(p.phases, "args")
			out = append(out, attrInt(t, a, "tminflt"))
		}
		return out
	}
	pages := int64(4<<20) / 4096
	dyn := argsFaults(nil)
	t.Logf("args faults per bind, glibc defaults: %v", dyn)
	assert.GreaterOrEqual(t, dyn[0], pages*9/10, "bind 1 maps its args")
	assert.GreaterOrEqual(t, dyn[1], pages/2, "bind 2 takes them from fresh heap")
	for _, f := range dyn[2:] {
		assert.Less(t, f, int64(64), "bind 3+ reuses the heap")
	}
	fixed := argsFaults([]string{"MALLOC_MMAP_THRESHOLD_=33554432", "MALLOC_TRIM_THRESHOLD_=268435456"})
	t.Logf("args faults per bind, thresholds fixed: %v", fixed)
	assert.GreaterOrEqual(t, fixed[0], pages*9/10)
	for _, f := range fixed[1:] {
		assert.Less(t, f, int64(64), "with fixed thresholds only bind 1 is cold")
	}
}

// TestTwoRanksLogFailure closes the log's reader mid-run: both ranks stop
// (neither waits forever at the barrier for the other), and the error
// keeps EPIPE so `hbgbench harness --ranks 2 | head` stops quietly.
func TestTwoRanksLogFailure(t *testing.T) {
	r, w, err := os.Pipe()
	require.NoError(t, err)
	defer w.Close()
	go func() {
		buf := make([]byte, 3000)
		_, _ = io.ReadFull(r, buf)
		r.Close()
	}()
	cfg := DefaultConfig()
	cfg.Workload = WorkloadQwen3Decode
	cfg.Ranks = 2
	res, err := RunModel(cfg, ModelOptions{Rounds: 50, Log: w})
	require.Error(t, err)
	assert.ErrorIs(t, err, syscall.EPIPE)
	assert.Contains(t, err.Error(), "writing the log", "the cause, not the rank that followed")
	assert.NotContains(t, err.Error(), "the other rank failed")
	require.NotNil(t, res)
	assert.Less(t, res.Binds, 100)
	assert.Zero(t, res.ThreadsLeft)
}
