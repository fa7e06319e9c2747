package analysis

import (
	"encoding/json"
	"math"
	"slices"
	"testing"

	"github.com/hbgkit/hbgkit/abtest/journal"
	"github.com/hbgkit/hbgkit/abtest/journal/journaltest"
	"github.com/hbgkit/hbgkit/abtest/metric"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAnalyzeDroppedAndUnfinishedRounds(t *testing.T) {
	var vals [][2][]float64
	for range 6 {
		vals = append(vals, [2][]float64{{100, 101}, {100, 99}})
	}
	j := journaltest.Synth(t, vals)
	// Round 2 was dropped, round 6 never closed (the campaign was killed
	// in it): neither is analysed.
	j.Rounds[1].Status = journal.RoundDropped
	j.Rounds = j.Rounds[:5]
	j.Blocks = append(j.Blocks, journal.BlockRecord{Type: journal.LineBlock, Round: 2, Arm: "head", Attempt: 1, Try: 2, Error: "block exited with status 1"})
	an := Analyze(j)
	assert.Equal(t, 4, an.Complete)
	assert.True(t, an.Partial)
	assert.Equal(t, 1, an.Noise.Dropped)
	assert.Equal(t, [2]int{0, 1}, an.Noise.Failures)
	assert.Contains(t, an.Warnings[len(an.Warnings)-1], "only 4 rounds")
	m := an.PrimaryResult()
	assert.Equal(t, 4, m.Rounds)
}

func TestAnalyzeOnlyTheLastAttemptCounts(t *testing.T) {
	var vals [][2][]float64
	for range 6 {
		vals = append(vals, [2][]float64{{100, 100}, {110, 110}})
	}
	j := journaltest.Synth(t, vals)
	// Round 3's first attempt was interrupted after its base block; the
	// rerun (attempt 2) is what counts, and its head is slower still.
	j.Rounds[2].Attempt = 2
	for k := range j.Blocks {
		if j.Blocks[k].Round == 3 {
			j.Blocks[k].Attempt = 2
			if j.Blocks[k].Arm == "head" {
				for p := range j.Blocks[k].Passes {
					j.Blocks[k].Passes[p].Values["ControlPlane"] = 200 * metric.NsPerUs
				}
			}
		}
	}
	j.Blocks = append(j.Blocks, journal.BlockRecord{Type: journal.LineBlock, Round: 3, Arm: "base", Attempt: 1, Try: 1,
		Passes: []metric.Pass{{Pid: 1, Inv: 2, Index: 1, Values: map[string]float64{"ControlPlane": 1}}}})
	an := Analyze(j)
	m := an.PrimaryResult()
	require.Equal(t, 6, m.Rounds)
	// With the stale base block (1 ns) counted, the base min would be 0.001 µs.
	assert.InDelta(t, 100, float64(m.Arms[journal.Base].Min), 1e-9)
	assert.Equal(t, 12, m.Arms[journal.Base].N)
	assert.Positive(t, float64(m.Delta), "head's rerun block (200 µs) is the one analysed")
}

func TestNumEncodesNaNAsNull(t *testing.T) {
	b, err := json.Marshal(struct{ A, B journal.Num }{journal.Num(math.NaN()), 1.5})
	require.NoError(t, err)
	assert.JSONEq(t, `{"A":null,"B":1.5}`, string(b))
	var back struct{ A, B journal.Num }
	require.NoError(t, json.Unmarshal(b, &back))
	assert.True(t, math.IsNaN(float64(back.A)))
}

func TestBlockStat(t *testing.T) {
	v := []float64{5, 1, 3, 100}
	assert.Equal(t, 4.0, BlockStat(v, journal.BlockMedian))
	assert.Equal(t, 27.25, BlockStat(v, journal.BlockMean))
	assert.Equal(t, 1.0, BlockStat(v, journal.BlockMin))
	assert.True(t, slices.Equal(v, []float64{5, 1, 3, 100}), "blockStat must not reorder its input")
}

func TestAnalyzeChoosesThePrimaryWhenTheHeaderLacksIt(t *testing.T) {
	var vals [][2][]float64
	for range 3 {
		vals = append(vals, [2][]float64{{100, 101}, {90, 91}})
	}
	j := journaltest.Synth(t, vals)
	j.Header.Primary = metric.Key{}
	a := Analyze(j)
	assert.Equal(t, "ControlPlane", a.Primary.String())
	require.NotNil(t, a.PrimaryResult())
	assert.Equal(t, "faster", a.PrimaryResult().Verdict.String())
}

// perRankJournal is a --per-rank campaign of two ranks over rounds rounds:
// rank 0's head equals its base, rank 1's head takes 10% more. The base
// moves from round to round so that the intervals have a width.
func PerRankJournal(t *testing.T, rounds int) *journal.Journal {
	t.Helper()
	h := journaltest.Header(t)
	h.Config.Rounds, h.Config.Cold, h.Config.PerRank = rounds, 1, true
	j := &journal.Journal{Header: h}
	for i := range rounds {
		round := i + 1
		base := 1000 + 7*float64(i%3)
		for arm := range 2 {
			b := journal.BlockRecord{Type: journal.LineBlock, Round: round, Arm: journal.ArmNames[arm], Attempt: 1, Try: 1}
			for rank := range 2 {
				v := base
				if rank == 1 && arm == journal.Head {
					v *= 1.10 + 0.002*float64(i%2)
				} else if rank == 0 && arm == journal.Head {
					v *= 1 + 0.001*float64(i%2*2-1)
				}
				pid := int64(100 + rank)
				b.Passes = append(b.Passes, metric.Pass{Pid: pid, Inv: 1, Rank: rank, Cold: true, Values: map[string]float64{"ControlPlane": 10 * v * metric.NsPerUs}})
				for k := range 3 {
					b.Passes = append(b.Passes, metric.Pass{Pid: pid, Inv: uint64(k + 2), Rank: rank, Index: k + 1,
						Values: map[string]float64{"ControlPlane": (v + float64(k)) * metric.NsPerUs}})
				}
			}
			j.Blocks = append(j.Blocks, b)
		}
		j.Rounds = append(j.Rounds, journal.RoundRecord{Type: journal.LineRound, Round: round, Attempt: 1, Status: journal.RoundOK})
	}
	return j
}

// TestIdenticalMetricsAreTestedOnce: two metrics with the same value in
// every warm pass of both arms are one quantity: one row, which names the
// other, counted once in its Holm family; metrics that differ in a single
// warm pass keep their rows. Every metric of twinJournal has the same p, so
// each secondary row's Holm-adjusted p is its family's size times p.
func TestIdenticalMetricsAreTestedOnce(t *testing.T) {
	bump := func(metric string, round, arm, rank, pass int) func(int, int, int, int, map[string]float64) {
		return func(r, a, rk, k int, v map[string]float64) {
			if r == round && a == arm && rk == rank && k == pass {
				v[metric]++
			}
		}
	}
	for _, tc := range []struct {
		name     string
		design   Design
		ranks    int
		primary  string
		tweak    func(round, arm, rank, pass int, v map[string]float64)
		rows     []string
		aliases  map[string][]string
		families map[string]int // secondary rows per Holm family
	}{
		{
			name: "identical twins merge", design: DesignInterleaved, ranks: 1,
			rows:     []string{"ControlPlane", "HostOrch", "phase.args", "phase.shared_mem"},
			aliases:  map[string][]string{"ControlPlane": {"Gate"}, "HostOrch": {"phase.host_orch"}},
			families: map[string]int{metric.FamilyControlPlane: 1, metric.FamilyPhases: 2},
		},
		{
			name: "gate differs in one warm pass", design: DesignInterleaved, ranks: 1,
			tweak:    bump("Gate", 3, journal.Head, 0, 2),
			rows:     []string{"ControlPlane", "HostOrch", "Gate", "phase.args", "phase.shared_mem"},
			aliases:  map[string][]string{"HostOrch": {"phase.host_orch"}},
			families: map[string]int{metric.FamilyControlPlane: 2, metric.FamilyPhases: 2},
		},
		{
			name: "both twins differ", design: DesignInterleaved, ranks: 1,
			tweak: func(r, a, rk, k int, v map[string]float64) {
				bump("Gate", 1, journal.Base, 0, 1)(r, a, rk, k, v)
				bump("phase.host_orch", 8, journal.Head, 0, 3)(r, a, rk, k, v)
			},
			rows:     []string{"ControlPlane", "HostOrch", "Gate", "phase.args", "phase.shared_mem", "phase.host_orch"},
			aliases:  map[string][]string{},
			families: map[string]int{metric.FamilyControlPlane: 2, metric.FamilyPhases: 3},
		},
		{
			name: "a cold pass is not analysed", design: DesignInterleaved, ranks: 1,
			tweak:    bump("Gate", 2, journal.Base, 0, 0),
			rows:     []string{"ControlPlane", "HostOrch", "phase.args", "phase.shared_mem"},
			aliases:  map[string][]string{"ControlPlane": {"Gate"}, "HostOrch": {"phase.host_orch"}},
			families: map[string]int{metric.FamilyControlPlane: 1, metric.FamilyPhases: 2},
		},
		{
			name: "the primary keeps its row", design: DesignInterleaved, ranks: 1, primary: "Gate",
			rows:     []string{"HostOrch", "Gate", "phase.args", "phase.shared_mem"},
			aliases:  map[string][]string{"Gate": {"ControlPlane"}, "HostOrch": {"phase.host_orch"}},
			families: map[string]int{metric.FamilyControlPlane: 1, metric.FamilyPhases: 2},
		},
		{
			name: "per rank: twins on rank 0 only", design: DesignInterleaved, ranks: 2,
			tweak: bump("Gate", 5, journal.Head, 1, 1),
			rows: []string{"ControlPlane@rank0", "ControlPlane@rank1", "HostOrch@rank0", "HostOrch@rank1", "Gate@rank1",
				"phase.args@rank0", "phase.args@rank1", "phase.shared_mem@rank0", "phase.shared_mem@rank1"},
			aliases: map[string][]string{"ControlPlane@rank0": {"Gate@rank0"},
				"HostOrch@rank0": {"phase.host_orch@rank0"}, "HostOrch@rank1": {"phase.host_orch@rank1"}},
			families: map[string]int{metric.FamilyControlPlane: 3, metric.FamilyPhases: 4},
		},
		{
			name: "compare: identical twins merge", design: DesignUnpaired, ranks: 1,
			rows:     []string{"ControlPlane", "HostOrch", "phase.args", "phase.shared_mem"},
			aliases:  map[string][]string{"ControlPlane": {"Gate"}, "HostOrch": {"phase.host_orch"}},
			families: map[string]int{metric.FamilyControlPlane: 1, metric.FamilyPhases: 2},
		},
		{
			name: "compare: gate differs", design: DesignUnpaired, ranks: 1,
			tweak:    bump("Gate", 4, journal.Base, 0, 3),
			rows:     []string{"ControlPlane", "HostOrch", "Gate", "phase.args", "phase.shared_mem"},
			aliases:  map[string][]string{"HostOrch": {"phase.host_orch"}},
			families: map[string]int{metric.FamilyControlPlane: 2, metric.FamilyPhases: 2},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j := journaltest.Twin(t, tc.ranks, tc.tweak)
			if tc.primary != "" {
				j.Header.Primary = metric.PooledKey(tc.primary)
			}
			var a *Analysis
			if tc.design == DesignUnpaired {
				j.Unpaired = true
				a = AnalyzeUnpaired(j)
			} else {
				a = Analyze(j)
			}
			require.Equal(t, tc.design, a.Design)
			var rows []string
			aliases := map[string][]string{}
			size := map[string]int{}
			for _, m := range a.Metrics {
				rows = append(rows, m.Name)
				if len(m.Aliases) > 0 {
					aliases[m.Name] = m.Aliases
				}
				if !m.Primary {
					size[m.Family]++
				}
			}
			require.Equal(t, tc.rows, rows)
			assert.Equal(t, tc.aliases, aliases)
			assert.Equal(t, tc.families, size)
			for _, m := range a.Metrics {
				require.Empty(t, m.Error, m.Name)
				if m.Primary {
					continue
				}
				// Every row has the same p: Holm multiplies it by the
				// number of rows in the family.
				assert.InDelta(t, math.Min(1, float64(tc.families[m.Family])*float64(m.P)), float64(m.HolmP), 1e-12, m.Name)
			}
		})
	}
}
