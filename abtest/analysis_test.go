package abtest

import (
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/hbgkit/hbgkit/abtest/stats"
	"github.com/hbgkit/hbgkit/internal/report"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// synthJournal builds the journal of a campaign whose blocks hold the
// given ControlPlane values in µs (one cold pass of 10× first), round by
// round: vals[i][arm] are the warm passes of that block.
func synthJournal(t *testing.T, vals [][2][]float64) *Journal {
	t.Helper()
	h := testHeader(t)
	h.Config.Rounds = len(vals)
	h.Config.Cold = 1
	j := &Journal{Header: h}
	for i, r := range vals {
		round := i + 1
		for arm := range 2 {
			b := BlockRecord{Type: lineBlock, Round: round, Arm: armNames[arm], Attempt: 1, Try: 1}
			b.Passes = append(b.Passes, Pass{Pid: 1, Inv: 1, Cold: true, Values: map[string]float64{"ControlPlane": 10 * r[arm][0] * nsPerUs}})
			for k, v := range r[arm] {
				b.Passes = append(b.Passes, Pass{Pid: 1, Inv: uint64(k + 2), Index: k + 1, Values: map[string]float64{
					"ControlPlane": v * nsPerUs, "phase.args": 100 * nsPerUs,
				}})
			}
			j.Blocks = append(j.Blocks, b)
		}
		j.Rounds = append(j.Rounds, RoundRecord{Type: lineRound, Round: round, Attempt: 1, Status: RoundOK})
	}
	return j
}

func TestAnalyzeMatchesThePairedStatistics(t *testing.T) {
	var vals [][2][]float64
	var a, b []float64
	for i := range 8 {
		base := []float64{1000 + float64(i), 1010, 990 + float64(i)}
		head := []float64{900, 905 + float64(i), 890}
		vals = append(vals, [2][]float64{base, head})
		a = append(a, blockStat(base, BlockMedian))
		b = append(b, blockStat(head, BlockMedian))
	}
	j := synthJournal(t, vals)
	an := Analyze(j)
	require.Equal(t, 8, an.Complete)
	assert.False(t, an.Partial)
	m := an.PrimaryResult()
	require.NotNil(t, m)
	assert.Equal(t, "ControlPlane", m.Name)
	want, err := stats.Paired(a, b, stats.PairedOptions{})
	require.NoError(t, err)
	assert.InDelta(t, want.Delta, float64(m.Delta), 1e-12)
	assert.InDelta(t, want.CI.Lo, float64(m.CILo), 1e-12)
	assert.InDelta(t, want.Wilcoxon.P, float64(m.P), 1e-12)
	assert.Equal(t, 8, m.SignK)
	assert.Equal(t, "faster", m.Verdict)
	// Per arm: 24 warm passes each (the cold ones dropped); min is the
	// smallest warm pass, not the cold one.
	assert.Equal(t, 24, m.Arms[Base].N)
	assert.InDelta(t, 990, float64(m.Arms[Base].Min), 1e-9)
	assert.InDelta(t, 890, float64(m.Arms[Head].Min), 1e-9)
	assert.Equal(t, 24*20/100, m.Arms[Base].Trim)
	assert.Contains(t, an.Headline(), "FASTER: ControlPlane: head takes")
	// A constant phase: every d is 0, no change.
	var args *MetricResult
	for i := range an.Metrics {
		if an.Metrics[i].Name == "phase.args" {
			args = &an.Metrics[i]
		}
	}
	require.NotNil(t, args)
	assert.Equal(t, "no change", args.Verdict)
	assert.Equal(t, 8, args.Zeros)
}

func TestAnalyzeDroppedAndUnfinishedRounds(t *testing.T) {
	var vals [][2][]float64
	for range 6 {
		vals = append(vals, [2][]float64{{100, 101}, {100, 99}})
	}
	j := synthJournal(t, vals)
	// Round 2 was dropped, round 6 never closed (the campaign was killed
	// in it): neither is analysed.
	j.Rounds[1].Status = RoundDropped
	j.Rounds = j.Rounds[:5]
	j.Blocks = append(j.Blocks, BlockRecord{Type: lineBlock, Round: 2, Arm: "head", Attempt: 1, Try: 2, Error: "block exited with status 1"})
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
	j := synthJournal(t, vals)
	// Round 3's first attempt was interrupted after its base block; the
	// rerun (attempt 2) is what counts, and its head is slower still.
	j.Rounds[2].Attempt = 2
	for k := range j.Blocks {
		if j.Blocks[k].Round == 3 {
			j.Blocks[k].Attempt = 2
			if j.Blocks[k].Arm == "head" {
				for p := range j.Blocks[k].Passes {
					j.Blocks[k].Passes[p].Values["ControlPlane"] = 200 * nsPerUs
				}
			}
		}
	}
	j.Blocks = append(j.Blocks, BlockRecord{Type: lineBlock, Round: 3, Arm: "base", Attempt: 1, Try: 1,
		Passes: []Pass{{Pid: 1, Inv: 2, Index: 1, Values: map[string]float64{"ControlPlane": 1}}}})
	an := Analyze(j)
	m := an.PrimaryResult()
	require.Equal(t, 6, m.Rounds)
	// With the stale base block (1 ns) counted, the base min would be 0.001 µs.
	assert.InDelta(t, 100, float64(m.Arms[Base].Min), 1e-9)
	assert.Equal(t, 12, m.Arms[Base].N)
	assert.Positive(t, float64(m.Delta), "head's rerun block (200 µs) is the one analysed")
}

func TestNumEncodesNaNAsNull(t *testing.T) {
	b, err := json.Marshal(struct{ A, B Num }{Num(math.NaN()), 1.5})
	require.NoError(t, err)
	assert.JSONEq(t, `{"A":null,"B":1.5}`, string(b))
	var back struct{ A, B Num }
	require.NoError(t, json.Unmarshal(b, &back))
	assert.True(t, math.IsNaN(float64(back.A)))
}

func TestBlockStat(t *testing.T) {
	v := []float64{5, 1, 3, 100}
	assert.Equal(t, 4.0, blockStat(v, BlockMedian))
	assert.Equal(t, 27.25, blockStat(v, BlockMean))
	assert.Equal(t, 1.0, blockStat(v, BlockMin))
	assert.True(t, slices.Equal(v, []float64{5, 1, 3, 100}), "blockStat must not reorder its input")
}

func TestAnalyzeChoosesThePrimaryWhenTheHeaderLacksIt(t *testing.T) {
	var vals [][2][]float64
	for range 3 {
		vals = append(vals, [2][]float64{{100, 101}, {90, 91}})
	}
	j := synthJournal(t, vals)
	j.Header.Primary = ""
	a := Analyze(j)
	assert.Equal(t, "ControlPlane", a.Primary)
	require.NotNil(t, a.PrimaryResult())
	assert.Equal(t, "faster", a.PrimaryResult().Verdict)
}

// perRankJournal is a --per-rank campaign of two ranks over rounds rounds:
// rank 0's head equals its base, rank 1's head takes 10% more. The base
// moves from round to round so that the intervals have a width.
func perRankJournal(t *testing.T, rounds int) *Journal {
	t.Helper()
	h := testHeader(t)
	h.Config.Rounds, h.Config.Cold, h.Config.PerRank = rounds, 1, true
	j := &Journal{Header: h}
	for i := range rounds {
		round := i + 1
		base := 1000 + 7*float64(i%3)
		for arm := range 2 {
			b := BlockRecord{Type: lineBlock, Round: round, Arm: armNames[arm], Attempt: 1, Try: 1}
			for rank := range 2 {
				v := base
				if rank == 1 && arm == Head {
					v *= 1.10 + 0.002*float64(i%2)
				} else if rank == 0 && arm == Head {
					v *= 1 + 0.001*float64(i%2*2-1)
				}
				pid := int64(100 + rank)
				b.Passes = append(b.Passes, Pass{Pid: pid, Inv: 1, Rank: rank, Cold: true, Values: map[string]float64{"ControlPlane": 10 * v * nsPerUs}})
				for k := range 3 {
					b.Passes = append(b.Passes, Pass{Pid: pid, Inv: uint64(k + 2), Rank: rank, Index: k + 1,
						Values: map[string]float64{"ControlPlane": (v + float64(k)) * nsPerUs}})
				}
			}
			j.Blocks = append(j.Blocks, b)
		}
		j.Rounds = append(j.Rounds, RoundRecord{Type: lineRound, Round: round, Attempt: 1, Status: RoundOK})
	}
	return j
}

// TestPerRankHeadlinesEveryRank: under --per-rank the headline has a line
// per rank, rank 1's regression is called (its p Holm-adjusted over the
// ranks), and with too few rounds for the adjusted p the call is gated and
// says why.
func TestPerRankHeadlinesEveryRank(t *testing.T) {
	a := Analyze(perRankJournal(t, 8))
	ps := a.PrimaryResults()
	require.Len(t, ps, 2)
	assert.Equal(t, "ControlPlane@rank0", ps[0].Name)
	assert.Equal(t, "ControlPlane@rank1", ps[1].Name)
	assert.Equal(t, "no change", ps[0].Verdict)
	assert.Equal(t, "slower", ps[1].Verdict)
	// Holm over two p: the smaller one doubled.
	assert.InDelta(t, 2*float64(ps[1].P), float64(ps[1].HolmP), 1e-12)
	hl := a.Headlines()
	require.Len(t, hl, 2)
	assert.Contains(t, hl[0], "NO CHANGE: ControlPlane@rank0")
	assert.Contains(t, hl[1], "SLOWER: ControlPlane@rank1")
	assert.Equal(t, hl[0]+"\n"+hl[1], a.Headline())
	var md strings.Builder
	require.NoError(t, report.WriteMarkdown(&md, a.MarkdownDocument()))
	assert.Contains(t, md.String(), "NO CHANGE: ControlPlane@rank0")
	assert.Contains(t, md.String(), "SLOWER: ControlPlane@rank1")

	// 6 rounds all one way: p = 2/64 = 0.031, adjusted 0.0625.
	a = Analyze(perRankJournal(t, 6))
	ps = a.PrimaryResults()
	require.Len(t, ps, 2)
	assert.InDelta(t, 0.03125, float64(ps[1].P), 1e-9)
	assert.Equal(t, "inconclusive", ps[1].Verdict)
	assert.True(t, ps[1].Gated)
	assert.Contains(t, a.Headlines()[1], "INCONCLUSIVE: ControlPlane@rank1: Δ +10.")
	assert.Contains(t, a.Headlines()[1], "clears the ±1.0% margin, but its p Holm-adjusted over the ranks is not below 0.05 (6 rounds, sign 6/6, p=0.031, Holm-adjusted over the ranks 0.062)")
}

// TestOnePrimaryIsNotGated: without --per-rank the single primary row is
// called on its interval alone, as STATS.md says, and HolmP is its p.
func TestOnePrimaryIsNotGated(t *testing.T) {
	j := perRankJournal(t, 6)
	j.Header.Config.PerRank = false
	a := Analyze(j)
	ps := a.PrimaryResults()
	require.Len(t, ps, 1)
	assert.False(t, ps[0].Gated)
	assert.Len(t, a.Headlines(), 1)
}
