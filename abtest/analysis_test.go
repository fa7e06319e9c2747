package abtest

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/hbgkit/hbgkit/abtest/stats"
	"github.com/hbgkit/hbgkit/internal/report"
	"github.com/hbgkit/hbgkit/internal/report/terminal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

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
	// Δ is a ratio to base's block statistic over rounds (geometric mean),
	// given in µs.
	logSum := 0.0
	for _, x := range a {
		logSum += math.Log(x)
	}
	assert.InDelta(t, math.Exp(logSum/float64(len(a))), m.BaseLevel(), 1e-9)
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
	h := jtHeader(t)
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
		design   string
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
			families: map[string]int{FamilyControlPlane: 1, FamilyPhases: 2},
		},
		{
			name: "gate differs in one warm pass", design: DesignInterleaved, ranks: 1,
			tweak:    bump("Gate", 3, Head, 0, 2),
			rows:     []string{"ControlPlane", "HostOrch", "Gate", "phase.args", "phase.shared_mem"},
			aliases:  map[string][]string{"HostOrch": {"phase.host_orch"}},
			families: map[string]int{FamilyControlPlane: 2, FamilyPhases: 2},
		},
		{
			name: "both twins differ", design: DesignInterleaved, ranks: 1,
			tweak: func(r, a, rk, k int, v map[string]float64) {
				bump("Gate", 1, Base, 0, 1)(r, a, rk, k, v)
				bump("phase.host_orch", 8, Head, 0, 3)(r, a, rk, k, v)
			},
			rows:     []string{"ControlPlane", "HostOrch", "Gate", "phase.args", "phase.shared_mem", "phase.host_orch"},
			aliases:  map[string][]string{},
			families: map[string]int{FamilyControlPlane: 2, FamilyPhases: 3},
		},
		{
			name: "a cold pass is not analysed", design: DesignInterleaved, ranks: 1,
			tweak:    bump("Gate", 2, Base, 0, 0),
			rows:     []string{"ControlPlane", "HostOrch", "phase.args", "phase.shared_mem"},
			aliases:  map[string][]string{"ControlPlane": {"Gate"}, "HostOrch": {"phase.host_orch"}},
			families: map[string]int{FamilyControlPlane: 1, FamilyPhases: 2},
		},
		{
			name: "the primary keeps its row", design: DesignInterleaved, ranks: 1, primary: "Gate",
			rows:     []string{"HostOrch", "Gate", "phase.args", "phase.shared_mem"},
			aliases:  map[string][]string{"Gate": {"ControlPlane"}, "HostOrch": {"phase.host_orch"}},
			families: map[string]int{FamilyControlPlane: 1, FamilyPhases: 2},
		},
		{
			name: "per rank: twins on rank 0 only", design: DesignInterleaved, ranks: 2,
			tweak: bump("Gate", 5, Head, 1, 1),
			rows: []string{"ControlPlane@rank0", "ControlPlane@rank1", "HostOrch@rank0", "HostOrch@rank1", "Gate@rank1",
				"phase.args@rank0", "phase.args@rank1", "phase.shared_mem@rank0", "phase.shared_mem@rank1"},
			aliases: map[string][]string{"ControlPlane@rank0": {"Gate@rank0"},
				"HostOrch@rank0": {"phase.host_orch@rank0"}, "HostOrch@rank1": {"phase.host_orch@rank1"}},
			families: map[string]int{FamilyControlPlane: 3, FamilyPhases: 4},
		},
		{
			name: "compare: identical twins merge", design: DesignUnpaired, ranks: 1,
			rows:     []string{"ControlPlane", "HostOrch", "phase.args", "phase.shared_mem"},
			aliases:  map[string][]string{"ControlPlane": {"Gate"}, "HostOrch": {"phase.host_orch"}},
			families: map[string]int{FamilyControlPlane: 1, FamilyPhases: 2},
		},
		{
			name: "compare: gate differs", design: DesignUnpaired, ranks: 1,
			tweak:    bump("Gate", 4, Base, 0, 3),
			rows:     []string{"ControlPlane", "HostOrch", "Gate", "phase.args", "phase.shared_mem"},
			aliases:  map[string][]string{"HostOrch": {"phase.host_orch"}},
			families: map[string]int{FamilyControlPlane: 2, FamilyPhases: 2},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j := twinJournal(t, tc.ranks, tc.tweak)
			if tc.primary != "" {
				j.Header.Primary = tc.primary
			}
			var a *Analysis
			if tc.design == DesignUnpaired {
				j.unpaired = true
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

// TestRoundsForMarginAgreesWithTheMDE: the footer's "resolving the margin
// would take about N rounds" and its MDE come from one spread. One round
// of 12 is three times slower: the raw σ_d is about 30%, the winsorized
// spread the interval uses about 2%, and the N of the raw σ_d (over 5,000
// rounds) disagreed with the MDE beside it.
func TestRoundsForMarginAgreesWithTheMDE(t *testing.T) {
	var vals [][2][]float64
	for i := range 12 {
		d := 0.02 * float64(i%3-1) * (1 + 0.1*float64(i))
		if i == 7 {
			d = math.Log(3)
		}
		h := 1000 * math.Exp(d)
		vals = append(vals, [2][]float64{{1000, 1000, 1000}, {h, h, h}})
	}
	a := Analyze(synthJournal(t, vals))
	p := a.PrimaryResult()
	require.NotNil(t, p)
	require.Greater(t, float64(p.SigmaD), 0.25, "the outlier inflates the raw σ_d")
	n, r, margin, mde := a.Noise.RoundsForMargin, p.Rounds, a.Margin, float64(a.Noise.MDE)
	require.Positive(t, n)
	// The MDE falls as 1/√R (give or take the t quantiles, which shrink
	// with R): the N at which it would be the margin is at most the plain
	// scaling of the MDE at R, and not far below it.
	scaled := float64(r) * math.Pow(math.Log1p(mde)/math.Log1p(margin), 2)
	assert.LessOrEqual(t, float64(n), scaled, "N %d against the MDE's %.0f", n, scaled)
	assert.Greater(t, float64(n), 0.6*scaled, "N %d against the MDE's %.0f", n, scaled)
	// Exactly: N is the fewest rounds whose MDE, of the same spread, is
	// within the margin.
	sw := math.Log1p(mde) / (math.Log1p(stats.TrimmedMDE(1, r)))
	assert.LessOrEqual(t, stats.TrimmedMDE(sw, n), margin*(1+1e-9))
	assert.Greater(t, stats.TrimmedMDE(sw, n-1), margin)
	assert.Contains(t, strings.Join(a.NoiseLines(), "\n"), fmt.Sprintf("would take about %d rounds", n))
}

// TestCountsZeroInSomePassSayKOfN: a count that was 0 in some warm pass
// (a discrete event) carries on how many warm passes of each arm it was
// above 0, and the text and markdown reports say it; a count above 0 in
// every pass, and a time, carry nothing.
func TestCountsZeroInSomePassSayKOfN(t *testing.T) {
	j := twinJournal(t, 1, func(round, arm, rank, pass int, v map[string]float64) {
		v["minflt"] = 1390 // above 0 in every pass: no line
		v["tminflt"] = 0
		if arm == Base {
			v["tminflt"] = 1390 // base faults on every pass, head never
		}
		v["nvcsw"] = 0
		if arm == Head && pass == 2 && round <= 5 {
			v["nvcsw"] = 1 // head switched on 5 of its 24 warm passes
		}
	})
	a := Analyze(j)
	byName := map[string]*MetricResult{}
	for i := range a.Metrics {
		byName[a.Metrics[i].Name] = &a.Metrics[i]
	}
	for name, want := range map[string][]int{"tminflt": {24, 0}, "nvcsw": {0, 5}, "minflt": nil, "ControlPlane": nil} {
		m := byName[name]
		if m == nil {
			t.Fatalf("no row %s", name)
		}
		if !slices.Equal(m.NonZero, want) {
			t.Errorf("%s: NonZero %v, want %v", name, m.NonZero, want)
		}
	}
	lines := strings.Join(a.EventLines(), "\n")
	for _, want := range []string{
		"bind thread minor faults (tminflt) > 0 on 24 of 24 warm passes of base, 0 of 24 of head",
		"voluntary switches (nvcsw) > 0 on 0 of 24 warm passes of base, 5 of 24 of head",
	} {
		if !strings.Contains(lines, want) {
			t.Errorf("event lines lack %q:\n%s", want, lines)
		}
	}
	if strings.Contains(lines, "(minflt)") {
		t.Errorf("minflt was above 0 in every pass, yet has a line:\n%s", lines)
	}
	// Named arms (--arm NAME=SPEC, and each arm of an N-arm campaign
	// against its base) are named in the lines.
	j.Header.Arms[Base].Name, j.Header.Arms[Head].Name = "old", "new"
	assert.Contains(t, strings.Join(Analyze(j).EventLines(), "\n"),
		"voluntary switches (nvcsw) > 0 on 0 of 24 warm passes of old, 5 of 24 of new")
	var text, md strings.Builder
	require.NoError(t, terminal.WriteText(&text, a.Document()))
	require.NoError(t, report.WriteMarkdown(&md, a.MarkdownDocument()))
	for name, out := range map[string]string{"text": text.String(), "markdown": md.String()} {
		if !strings.Contains(out, "5 of 24 of head") {
			t.Errorf("%s report lacks the k of N line:\n%s", name, out)
		}
	}
}
