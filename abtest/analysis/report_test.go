package analysis_test

import (
	"bytes"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hbgkit/hbgkit/abtest/abreport"
	"github.com/hbgkit/hbgkit/abtest/analysis"
	"github.com/hbgkit/hbgkit/abtest/journal"
	"github.com/hbgkit/hbgkit/abtest/journal/journaltest"
	"github.com/hbgkit/hbgkit/abtest/metric"
	"github.com/hbgkit/hbgkit/abtest/stats"
	"github.com/hbgkit/hbgkit/internal/document"
	"github.com/hbgkit/hbgkit/internal/golden"
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
		a = append(a, analysis.BlockStat(base, journal.BlockMedian))
		b = append(b, analysis.BlockStat(head, journal.BlockMedian))
	}
	j := journaltest.Synth(t, vals)
	an := analysis.Analyze(j)
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
	assert.Equal(t, "faster", m.Verdict.String())
	// Per arm: 24 warm passes each (the cold ones dropped); min is the
	// smallest warm pass, not the cold one.
	assert.Equal(t, 24, m.Arms[journal.Base].N)
	assert.InDelta(t, 990, float64(m.Arms[journal.Base].Min), 1e-9)
	assert.InDelta(t, 890, float64(m.Arms[journal.Head].Min), 1e-9)
	assert.Equal(t, 24*20/100, m.Arms[journal.Base].Trim)
	// Δ is a ratio to base's block statistic over rounds (geometric mean),
	// given in µs.
	logSum := 0.0
	for _, x := range a {
		logSum += math.Log(x)
	}
	assert.InDelta(t, math.Exp(logSum/float64(len(a))), m.BaseLevel(), 1e-9)
	assert.Contains(t, abreport.For(an).Headline(), "FASTER: ControlPlane: head takes")
	// A constant phase: every d is 0, no change.
	var args *analysis.MetricResult
	for i := range an.Metrics {
		if an.Metrics[i].Name == "phase.args" {
			args = &an.Metrics[i]
		}
	}
	require.NotNil(t, args)
	assert.Equal(t, "no change", args.Verdict.String())
	assert.Equal(t, 8, args.Zeros)
}

// TestPerRankHeadlinesEveryRank: under --per-rank the headline has a line
// per rank, rank 1's regression is called (its p Holm-adjusted over the
// ranks), and with too few rounds for the adjusted p the call is gated and
// says why.
func TestPerRankHeadlinesEveryRank(t *testing.T) {
	a := analysis.Analyze(analysis.PerRankJournal(t, 8))
	ps := a.PrimaryResults()
	require.Len(t, ps, 2)
	assert.Equal(t, "ControlPlane@rank0", ps[0].Name)
	assert.Equal(t, "ControlPlane@rank1", ps[1].Name)
	assert.Equal(t, "no change", ps[0].Verdict.String())
	assert.Equal(t, "slower", ps[1].Verdict.String())
	// Holm over two p: the smaller one doubled.
	assert.InDelta(t, 2*float64(ps[1].P), float64(ps[1].HolmP), 1e-12)
	hl := abreport.For(a).Headlines()
	require.Len(t, hl, 2)
	assert.Contains(t, hl[0], "NO CHANGE: ControlPlane@rank0")
	assert.Contains(t, hl[1], "SLOWER: ControlPlane@rank1")
	assert.Equal(t, hl[0]+"\n"+hl[1], abreport.For(a).Headline())
	var md strings.Builder
	require.NoError(t, document.WriteMarkdown(&md, abreport.For(a).MarkdownDocument()))
	assert.Contains(t, md.String(), "NO CHANGE: ControlPlane@rank0")
	assert.Contains(t, md.String(), "SLOWER: ControlPlane@rank1")

	// 6 rounds all one way: p = 2/64 = 0.031, adjusted 0.0625.
	a = analysis.Analyze(analysis.PerRankJournal(t, 6))
	ps = a.PrimaryResults()
	require.Len(t, ps, 2)
	assert.InDelta(t, 0.03125, float64(ps[1].P), 1e-9)
	assert.Equal(t, "inconclusive", ps[1].Verdict.String())
	assert.True(t, ps[1].Gated)
	assert.Contains(t, abreport.For(a).Headlines()[1], "INCONCLUSIVE: ControlPlane@rank1: Δ +10.")
	assert.Contains(t, abreport.For(a).Headlines()[1], "clears the ±1.0% margin, but its p Holm-adjusted over the ranks is not below 0.05 (6 rounds, sign 6/6, t-test p<0.001, Wilcoxon p=0.031, Holm-adjusted over the ranks 0.062)")
}

// TestOnePrimaryIsNotGated: without --per-rank the single primary row is
// called on its interval alone (docs/ab-method.md), and HolmP is its p.
func TestOnePrimaryIsNotGated(t *testing.T) {
	j := analysis.PerRankJournal(t, 6)
	j.Header.Config.PerRank = false
	a := analysis.Analyze(j)
	ps := a.PrimaryResults()
	require.Len(t, ps, 1)
	assert.False(t, ps[0].Gated)
	assert.Len(t, abreport.For(a).Headlines(), 1)
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
	a := analysis.Analyze(journaltest.Synth(t, vals))
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
	assert.Contains(t, strings.Join(abreport.For(a).NoiseLines(), "\n"), fmt.Sprintf("would take about %d rounds", n))
}

// TestCountsZeroInSomePassSayKOfN: a count that was 0 in some warm pass
// (a discrete event) carries on how many warm passes of each arm it was
// above 0, and the text and markdown reports say it; a count above 0 in
// every pass, and a time, carry nothing.
func TestCountsZeroInSomePassSayKOfN(t *testing.T) {
	j := journaltest.Twin(t, 1, func(round, arm, rank, pass int, v map[string]float64) {
		v["minflt"] = 1390 // above 0 in every pass: no line
		v["tminflt"] = 0
		if arm == journal.Base {
			v["tminflt"] = 1390 // base faults on every pass, head never
		}
		v["nvcsw"] = 0
		if arm == journal.Head && pass == 2 && round <= 5 {
			v["nvcsw"] = 1 // head switched on 5 of its 24 warm passes
		}
	})
	a := analysis.Analyze(j)
	byName := map[string]*analysis.MetricResult{}
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
	lines := strings.Join(abreport.For(a).EventLines(), "\n")
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
	j.Header.Arms[journal.Base].Name, j.Header.Arms[journal.Head].Name = "old", "new"
	assert.Contains(t, strings.Join(abreport.For(analysis.Analyze(j)).EventLines(), "\n"),
		"voluntary switches (nvcsw) > 0 on 0 of 24 warm passes of old, 5 of 24 of new")
	var text, md strings.Builder
	require.NoError(t, terminal.WriteText(&text, abreport.For(a).Document()))
	require.NoError(t, document.WriteMarkdown(&md, abreport.For(a).MarkdownDocument()))
	for name, out := range map[string]string{"text": text.String(), "markdown": md.String()} {
		if !strings.Contains(out, "5 of 24 of head") {
			t.Errorf("%s report lacks the k of N line:\n%s", name, out)
		}
	}
}

// TestAnalyzeUnpairedOneLogPerArm: one log per arm gives descriptives
// only, no interval, no p, no verdict.
func TestAnalyzeUnpairedOneLogPerArm(t *testing.T) {
	j, err := analysis.ReadLogs(analysis.CompareOptions{Base: []string{journaltest.Fixture("hbg-e1.log")}, Head: []string{journaltest.Fixture("hbg-e1-two-ranks-shared-t0x.log")}, Config: analysis.CompareConfig()})
	require.NoError(t, err)
	a := analysis.AnalyzeUnpaired(j)
	assert.Equal(t, analysis.DesignDescriptive, a.Design)
	assert.Empty(t, a.Test)
	p := a.PrimaryResult()
	require.NotNil(t, p)
	assert.True(t, math.IsNaN(float64(p.CILo)) && math.IsNaN(float64(p.P)))
	assert.Equal(t, "n/a", p.Verdict.String())
	// One log an arm: Δ is the ratio of the two logs' block statistics
	// (compare's default, the median of the warm passes), the levels the
	// table prints.
	assert.InDelta(t, float64(p.Arms[journal.Head].Median)/float64(p.Arms[journal.Base].Median)-1, float64(p.Delta), 1e-12)
	assert.InDelta(t, float64(p.Arms[journal.Base].Median), float64(p.Level[journal.Base]), 1e-9)
	assert.InDelta(t, float64(p.Arms[journal.Head].Median), float64(p.Level[journal.Head]), 1e-9)
	assert.Contains(t, abreport.For(a).Headline(), "no interval can be computed honestly")
	assert.Equal(t, 4, p.Arms[journal.Base].N, "2 pids × (4 binds − 2 cold)")
}

func TestMergeWarnsOfASickCard(t *testing.T) {
	m, err := analysis.Merge([]*journal.Journal{analysis.SynthShard(t, 1, "node-b", 1.5), analysis.SynthShard(t, 0, "node-a", 1.5)})
	require.NoError(t, err)
	require.Len(t, m.Shards, 2)
	assert.Equal(t, 0, m.Shards[0].Shard.Index, "shards in index order")
	p := m.Pooled.PrimaryResult()
	assert.Equal(t, "slower", p.Verdict.String())
	assert.Equal(t, 20, p.Rounds)
	assert.Empty(t, m.Warnings)

	m, err = analysis.Merge([]*journal.Journal{analysis.SynthShard(t, 0, "node-a", 1.5), analysis.SynthShard(t, 1, "node-b", 1.1)})
	require.NoError(t, err)
	require.Len(t, m.Warnings, 1)
	assert.Contains(t, m.Warnings[0], "the shards disagree beyond their intervals (Cochran's Q")
	assert.Contains(t, m.Warnings[0], "shard 1/2 node-b card 1 Δ +10.")
	var text bytes.Buffer
	require.NoError(t, terminal.WriteText(&text, abreport.ForMerged(m).Document()))
	assert.Contains(t, text.String(), "slower (!)")
	assert.Contains(t, text.String(), "WARNING: the shards disagree beyond their intervals")
	w, table := strings.Index(text.String(), "WARNING: "), strings.Index(text.String(), "node-b")
	assert.True(t, w >= 0 && w < table, "the warning is read before the shard table")

	// --redact: no host name or absolute path in any format.
	r := abreport.RedactedMerged(m)
	var all bytes.Buffer
	require.NoError(t, terminal.WriteText(&all, abreport.ForMerged(r).Document()))
	require.NoError(t, document.WriteMarkdown(&all, abreport.ForMerged(r).MarkdownDocument()))
	require.NoError(t, document.WriteCSV(&all, abreport.ForMerged(r).CSVTables()...))
	require.NoError(t, document.WriteJSON(&all, r))
	for _, secret := range []string{"node-a", "node-b", "/home/me"} {
		assert.NotContains(t, all.String(), secret)
	}
	assert.Contains(t, all.String(), "shard-0of2-<host>.jsonl")
	// The original is untouched.
	assert.Equal(t, "node-a", m.Shards[0].Shard.Host)
}

// TestAnalyzeArmsHolm: two arms each 30% slower than the base in all 6
// rounds have a Wilcoxon p of 0.031 each, which alone would call them
// slower; Holm over the two arms makes it 0.062, and neither is called
// slower (inconclusive (p)). The comparisons are the two-arm analyses of
// base against each arm.
func TestAnalyzeArmsHolm(t *testing.T) {
	var vals [][3][]float64
	for i := range 6 {
		d := float64(i)
		vals = append(vals, [3][]float64{{1000 + d, 1002, 998}, {1300 + d, 1302 + d, 1299}, {1310, 1305 + d, 1300 + d}})
	}
	j := analysis.ArmsJournal(t, vals)
	a := analysis.Analyze(j)
	require.Len(t, a.Comparisons, 2)
	assert.Empty(t, a.Metrics)
	assert.Equal(t, 6, a.Complete)
	for k, c := range a.Comparisons {
		p := c.PrimaryResult()
		require.NotNil(t, p)
		assert.InDelta(t, 0.03125, float64(p.P), 1e-9)
		assert.InDelta(t, 0.0625, float64(p.HolmP), 1e-9)
		assert.Equal(t, "inconclusive", p.Verdict.String(), "arm %d", k+1)
		assert.True(t, p.Gated)
		assert.Greater(t, float64(p.Delta), 0.25)
		// The same pair analysed as a two-arm campaign calls it slower.
		two := analysis.Analyze(analysis.ArmView(j, k+1))
		assert.Equal(t, "slower", two.PrimaryResult().Verdict.String())
		assert.Equal(t, two.PrimaryResult().Delta, p.Delta)
	}
	text := abreport.For(a).Document()
	assert.NotNil(t, text)
	assert.Equal(t, []string{
		"INCONCLUSIVE (p): b against a: ControlPlane: Δ +30.0%, 95% CI [+29.9%, +30.2%] (6 rounds, sign 6/6, p 0.031, Holm-adjusted over the 2 arms 0.062)",
		"INCONCLUSIVE (p): c against a: ControlPlane: Δ +30.5%, 95% CI [+30.4%, +30.7%] (6 rounds, sign 6/6, p 0.031, Holm-adjusted over the 2 arms 0.062)",
	}, abreport.For(a).ArmHeadlines())

	// One arm far slower (p 0.031) and one unchanged (p 1): Holm leaves
	// the slower one's p below 0.05 only with 7 rounds or more.
	vals = append(vals, [3][]float64{{1000, 1001, 999}, {1301, 1300, 1302}, {1310, 1304, 1306}})
	a = analysis.Analyze(analysis.ArmsJournal(t, vals))
	for _, c := range a.Comparisons {
		assert.Equal(t, "slower", c.PrimaryResult().Verdict.String())
	}
}

func TestWorkDiffs(t *testing.T) {
	passes := func(vals map[string]float64, n int) []metric.Pass {
		var out []metric.Pass
		for i := range n {
			v := map[string]float64{}
			for k, x := range vals {
				v[k] = x
			}
			out = append(out, metric.Pass{Index: i, Cold: i == 0, Values: v})
		}
		return out
	}
	tests := []struct {
		name       string
		base, head map[string]float64
		want       []string
	}{
		{
			name: "same work",
			base: map[string]float64{"work.graph_upload.submissions": 82, "work.host_orch.tasks": 1131},
			head: map[string]float64{"work.graph_upload.submissions": 82, "work.host_orch.tasks": 1131},
		},
		{
			name: "fewer submissions",
			base: map[string]float64{"work.graph_upload.submissions": 82, "work.host_orch.tasks": 1131},
			head: map[string]float64{"work.graph_upload.submissions": 79, "work.host_orch.tasks": 1131},
			want: []string{"head submits 79 Graphs per bind, base 82 on every pass"},
		},
		{
			name: "a count without a phrase, heap_used exempt, one-sided counts ignored",
			base: map[string]float64{"work.arena_h2d.copied": 704, "work.host_orch.heap_used": 1, "work.args.bytes": 8},
			head: map[string]float64{"work.arena_h2d.copied": 960, "work.host_orch.heap_used": 2},
			want: []string{"head's work.arena_h2d.copied is 960 per bind, base's 704 on every pass"},
		},
		{
			name: "no work counts at all",
			base: map[string]float64{"ControlPlane": 5},
			head: map[string]float64{"ControlPlane": 9},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			logs := [2][][]metric.Pass{{passes(tc.base, 4), passes(tc.base, 4)}, {passes(tc.head, 4)}}
			var got []string
			for _, d := range analysis.WorkDiffs(logs, [2][]string{}, 2) {
				got = append(got, d.Text)
			}
			assert.Equal(t, tc.want, got)
			a := &analysis.Analysis{WorkDiffs: analysis.WorkDiffs(logs, [2][]string{}, 2)}
			if len(tc.want) == 0 {
				assert.Empty(t, abreport.For(a).SameWorkLine())
			} else {
				assert.Contains(t, abreport.For(a).SameWorkLine(), "DIFFERENT WORK: ")
				first, ok := abreport.For(a).Document().Blocks[0].(*document.Paragraph)
				require.True(t, ok)
				assert.Contains(t, first.Text, tc.want[0], "above the verdict")
			}
		})
	}
}

// TestMergedAndExtendedGoldens: the markdown of a merged report (two
// shards that disagree) and of a fixed campaign extended after its first
// look, as a pull request gets them: the merged report warns of the sick
// shard above its tables and prints the pooled levels Δ is computed on;
// the extended one says from how many rounds to how many, above its table.
func TestMergedAndExtendedGoldens(t *testing.T) {
	m, err := analysis.Merge([]*journal.Journal{analysis.SynthShard(t, 0, "node-a", 1.5), analysis.SynthShard(t, 1, "node-b", 1.1)})
	require.NoError(t, err)
	var md bytes.Buffer
	require.NoError(t, document.WriteMarkdown(&md, abreport.ForMerged(m).MarkdownDocument()))
	golden.Check(t, filepath.Join("testdata", "merged.markdown"), md.String())
	p := m.Pooled.PrimaryResult()
	require.NotNil(t, p)
	assert.Equal(t, analysis.LevelPooled, p.LevelOf)
	assert.InDelta(t, float64(p.Delta), float64(p.Level[1])/float64(p.Level[0])-1, 1e-9, "the pooled levels' ratio is the pooled Δ")

	// A campaign of 4 rounds extended to 6: the journal's own lines.
	var vals [][2][]float64
	for i := range 6 {
		b := 1000 * (1 + 0.01*float64(i%3))
		vals = append(vals, [2][]float64{{b, b, b}, {1.2 * b, 1.21 * b, 1.19 * b}})
	}
	synth := journaltest.Synth(t, vals)
	path := filepath.Join(t.TempDir(), "extended.jsonl")
	w, err := journal.CreateJournal(path)
	require.NoError(t, err)
	cfg := journaltest.Config()
	cfg.Rounds, cfg.Cold = 4, 1
	h, err := journal.NewHeader(cfg, [2]journal.Arm{journal.DefaultBase, journal.DefaultHead}, 5, "hbgkit test", []string{"hbgbench", "ab", "--rounds", "4"}, journal.Env{Host: "h"})
	require.NoError(t, err)
	h.Primary, h.Ruler = synth.Header.Primary, "r"
	require.NoError(t, w.Append(h))
	for _, b := range synth.Blocks {
		if b.Round == 5 && b.Arm == "base" {
			require.NoError(t, w.Append(journal.ExtendRecord{Type: journal.LineExtend, Rounds: 6, Firsts: []string{"base", "base"}}))
		}
		require.NoError(t, w.Append(b))
		if b.Arm == "head" {
			require.NoError(t, w.Append(synth.Rounds[b.Round-1]))
		}
	}
	require.NoError(t, w.Close())
	j, err := journal.ReadJournal(path)
	require.NoError(t, err)
	require.Len(t, j.Extensions, 1)
	a := analysis.Analyze(j)
	md.Reset()
	require.NoError(t, document.WriteMarkdown(&md, abreport.For(a).MarkdownDocument()))
	golden.Check(t, filepath.Join("testdata", "extended.markdown"), md.String())
	vis, _, _ := strings.Cut(md.String(), "| metric |")
	assert.Contains(t, vis, "WARNING: extended: planned 4 rounds, extended to 6 after 4 had run")
}
