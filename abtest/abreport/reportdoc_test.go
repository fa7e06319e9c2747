package abreport

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/hbgkit/hbgkit/abtest/analysis"
	"github.com/hbgkit/hbgkit/abtest/journal"
	"github.com/hbgkit/hbgkit/abtest/journal/journaltest"
	"github.com/hbgkit/hbgkit/abtest/stats"
	"github.com/hbgkit/hbgkit/internal/document"
	"github.com/hbgkit/hbgkit/internal/report/terminal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReportNamesTheAliasesOfARow: a row that stands for identical metrics
// says which, in every format; metrics that differ keep rows of their own
// and no note.
func TestReportNamesTheAliasesOfARow(t *testing.T) {
	for _, tc := range []struct {
		name    string
		tweak   func(round, arm, rank, pass int, v map[string]float64)
		want    []string // in the text, markdown or csv reports
		not     []string // in none of them
		aliases map[string][]string
	}{
		{
			name: "identical twins",
			want: []string{"ControlPlane * = Gate", "HostOrch = phase.host_orch",
				",Gate\n", ",phase.host_orch\n"},
			not:     []string{"| Gate |", "| phase.host_orch |", "metrics,Gate,", "metrics,phase.host_orch,"},
			aliases: map[string][]string{"ControlPlane": {"Gate"}, "HostOrch": {"phase.host_orch"}},
		},
		{
			name: "gate differs",
			tweak: func(round, arm, _, pass int, v map[string]float64) {
				if round == 3 && arm == journal.Head && pass == 2 {
					v["Gate"]++
				}
			},
			want:    []string{"HostOrch = phase.host_orch", "| Gate |", "metrics,Gate,"},
			not:     []string{"= Gate", ",Gate\n"},
			aliases: map[string][]string{"HostOrch": {"phase.host_orch"}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j := journaltest.Twin(t, 1, tc.tweak)
			a := analysis.Analyze(j)
			text, md, csv, js := renderAll(t, a, j)
			all := strings.Join([]string{text.String(), md.String(), csv.String()}, "\n")
			for _, w := range tc.want {
				assert.Contains(t, all, w)
			}
			for _, n := range tc.not {
				assert.NotContains(t, all, n)
			}
			// The text and markdown tables both carry the note.
			for _, s := range []string{text.String(), md.String()} {
				assert.Contains(t, s, "HostOrch = phase.host_orch")
			}
			// The json names the aliases of each row, and no alias has a
			// row of its own.
			var back analysis.Analysis
			require.NoError(t, json.Unmarshal(js.Bytes(), &back))
			got := map[string][]string{}
			names := map[string]bool{}
			for _, m := range back.Metrics {
				names[m.Name] = true
				if m.Aliases != nil {
					got[m.Name] = m.Aliases
				}
			}
			assert.Equal(t, tc.aliases, got)
			for _, as := range got {
				for _, n := range as {
					assert.False(t, names[n], "%s is an alias and a row", n)
				}
			}
		})
	}
}

// fasterJournal is a campaign of rounds rounds in which head takes about
// 10% less than base, every round.
func fasterJournal(t *testing.T, rounds int) *journal.Journal {
	t.Helper()
	var vals [][2][]float64
	for i := range rounds {
		d := float64(i)
		vals = append(vals, [2][]float64{{1000, 1010, 995}, {900 - d, 905 - d, 898 - d}})
	}
	return journaltest.Synth(t, vals)
}

// TestHeadlinePBelowOneInAThousand: a p below 0.001 reads "p<0.001" in
// the headline, never "p=<0.001".
func TestHeadlinePBelowOneInAThousand(t *testing.T) {
	a := analysis.Analyze(fasterJournal(t, 12))
	m := a.PrimaryResult()
	require.NotNil(t, m)
	require.Less(t, float64(m.P), 0.001)
	hl := For(a).Headline()
	assert.Contains(t, hl, "sign 12/12, t-test p<0.001)")
	assert.NotContains(t, hl, "p=<")
}

// TestEnvLinesNameTheToolchainOnce: the version line of a campaign whose
// hbgkit string already ends with the toolchain does not repeat it; one
// without build information still names it.
func TestEnvLinesNameTheToolchainOnce(t *testing.T) {
	a := analysis.Analyze(fasterJournal(t, 6))
	a.Header.Env.Toolchain = "go1.26.8"
	for hbgkit, want := range map[string]string{
		"hbgkit (devel) go1.26.8": "hbgkit (devel) go1.26.8",
		"hbgkit (devel)":          "hbgkit (devel), go1.26.8",
	} {
		a.Header.Hbgkit = hbgkit
		lines := For(a).EnvLines()
		assert.Equal(t, want, lines[len(lines)-1])
	}
}

// gitAnalysis is the analysis of a campaign between two git refs whose
// build, run and env came from the command line (cmdline) or from
// hbgbench.toml.
func gitAnalysis(t *testing.T, command ...string) *analysis.Analysis {
	t.Helper()
	j := fasterJournal(t, 6)
	const run = "cd {out} && /home/alice/src/run.sh {rounds} {out}"
	base, err := journal.GitArm("main", "1111111111111111111111111111111111111111", "make -C /home/alice/src", run, []string{"MODE=fast"})
	require.NoError(t, err)
	head, err := journal.GitArm("pr", "2222222222222222222222222222222222222222", "make -C /home/alice/src", run, []string{"MODE=fast"})
	require.NoError(t, err)
	j.Header.Arms = [2]journal.Arm{base, head}
	j.Header.Command = command
	return analysis.Analyze(j)
}

// TestGitArmsShowWhatRan: a campaign of git refs names, beside the
// command as typed, the build, run and env its arms were given, and where
// they came from; --redact drops the paths in them; the command is quoted
// for a shell.
func TestGitArmsShowWhatRan(t *testing.T) {
	a := gitAnalysis(t, "hbgbench", "ab", "--base", "main", "--head", "pr")
	lines := For(a).MethodLines()
	assert.Contains(t, lines, "base: git main (111111111111)")
	assert.Contains(t, lines, "head: git pr (222222222222)")
	assert.Contains(t, lines, "build (once per commit, in its worktree) of both arms, from hbgbench.toml: make -C /home/alice/src")
	assert.Contains(t, lines, "run (once per block, in the arm's worktree) of both arms, from hbgbench.toml: cd {out} && /home/alice/src/run.sh {rounds} {out}")
	assert.Contains(t, lines, "env (added to the arm's command) of both arms, from hbgbench.toml: MODE=fast")

	a = gitAnalysis(t, "hbgbench", "ab", "--base", "main", "--head", "pr", "--build", "make -C /home/alice/src",
		"--run=cd {out} && /home/alice/src/run.sh {rounds} {out}", "--env", "MODE=fast")
	lines = For(a).MethodLines()
	assert.Contains(t, lines, "build (once per commit, in its worktree) of both arms: make -C /home/alice/src")
	assert.Contains(t, lines, "env (added to the arm's command) of both arms: MODE=fast")
	var code string
	for _, b := range For(a).Document().Blocks {
		if d, ok := b.(*document.Details); ok {
			for _, c := range d.Blocks {
				if cb, ok := c.(*document.Code); ok {
					code = cb.Text
				}
			}
		}
	}
	assert.Equal(t, "hbgbench ab --base main --head pr --build 'make -C /home/alice/src' '--run=cd {out} && /home/alice/src/run.sh {rounds} {out}' --env MODE=fast", code)

	r := Redacted(a)
	assert.Equal(t, "make -C <path>/src", r.Header.Arms[journal.Base].Build)
	assert.Equal(t, "cd {out} && <path>/run.sh {rounds} {out}", r.Header.Arms[journal.Head].Run)
	assert.Equal(t, "make -C /home/alice/src", a.Header.Arms[journal.Base].Build, "the original is left alone")
}

// TestRulerLineSaysWhatItCompared: the ruler line says what was set aside
// and what was left; for git arms with nothing else in their stamps, that
// nothing was compared.
func TestRulerLineSaysWhatItCompared(t *testing.T) {
	a := gitAnalysis(t, "hbgbench", "ab")
	a.Header.Ruler, a.Header.RulerHash = "{arm} {arm}", journal.RulerHash("{arm} {arm}")
	line := rulerLine(&a.Header)
	assert.Contains(t, line, "the [stamp] line of each block with what names its arm (its commit, ref, worktree and run command) replaced by {arm}, the same in every block: {arm} {arm}; nothing else was in the stamps")
	assert.Contains(t, For(a).EnvLines(), line)

	a.Header.Ruler = "{arm} env MODE=fast {arm}"
	assert.NotContains(t, rulerLine(&a.Header), "nothing else")

	a = analysis.Analyze(fasterJournal(t, 6))
	a.Header.Ruler, a.Header.RulerHash = "hbgkit-harness {arm} rounds=3", journal.RulerHash("hbgkit-harness {arm} rounds=3")
	assert.Contains(t, rulerLine(&a.Header), "(its embedded spec) replaced by {arm}, the same in every block: hbgkit-harness {arm} rounds=3")

	// No ruler hash: no block completed, and the line says so.
	a.Header.Ruler, a.Header.RulerHash = "", ""
	assert.Equal(t, "ruler: none yet: no block completed, so no [stamp] line was compared", rulerLine(&a.Header))
}

// visibleMarkdown is the markdown report up to its <details> block: what
// a reviewer sees without unfolding it.
func visibleMarkdown(t *testing.T, a *analysis.Analysis) string {
	t.Helper()
	var b strings.Builder
	require.NoError(t, document.WriteMarkdown(&b, For(a).MarkdownDocument()))
	vis, _, ok := strings.Cut(b.String(), "<details>")
	require.True(t, ok)
	return vis
}

// TestMarkdownVisiblePartNamesArmsMachineColumns: before <details> the
// markdown report names base and head (ref and short sha of git arms),
// the machine, and what its columns are; (p) is explained only when a row
// carries it.
func TestMarkdownVisiblePartNamesArmsMachineColumns(t *testing.T) {
	a := gitAnalysis(t, "hbgbench", "ab")
	a.Header.Env.CPUModel, a.Header.Env.NCPU, a.Header.Env.Host = "AMD EPYC", 2, "vm"
	vis := visibleMarkdown(t, a)
	assert.Contains(t, vis, "base: main (111111111111); head: pr (222222222222); on AMD EPYC, 2 CPUs (host vm)")
	assert.Contains(t, vis, "base, head: each arm's block median, geometric mean over the rounds Δ keeps, so head/base − 1 is Δ; change: head − base, in the row's unit (a count's is plain).")
	assert.Contains(t, vis, `\*: the primary metric`)
	assert.NotContains(t, vis, "| sign |", "the short table has no sign column; the full table is in the details")
	assert.NotContains(t, vis, "(p):", "no row is gated")
	assert.NotContains(t, vis, "median, min, n passes", "the markdown table has no such columns")

	a.Metrics[0].Gated = true
	assert.Contains(t, visibleMarkdown(t, a), "(p): the CI clears the margin but the Holm-adjusted Wilcoxon p is not below 0.05")
	var b strings.Builder
	require.NoError(t, document.WriteMarkdown(&b, For(a).MarkdownDocument()))
	assert.NotContains(t, b.String(), "median, min, n passes", "the details describe only columns that exist")
}

// TestRuleLineWhenPAndVerdictDisagree: when the headline's p and its
// verdict point different ways (p < 0.05 but inconclusive; p ≥ 0.05 but
// slower), the line under the headline states the rule, in text and
// markdown; when they agree, it does not.
func TestRuleLineWhenPAndVerdictDisagree(t *testing.T) {
	for _, tc := range []struct {
		name    string
		verdict stats.Call
		p       float64
		want    bool
	}{
		{"inconclusive with p=0.031", stats.Inconclusive, 0.031, true},
		{"slower with p=0.094", stats.Slower, 0.094, true},
		{"no change with p=0.01", stats.NoChange, 0.01, true},
		{"faster with p=0.002", stats.Faster, 0.002, false},
		{"inconclusive with p=0.4", stats.Inconclusive, 0.4, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := analysis.Analyze(fasterJournal(t, 6))
			m := a.PrimaryResult()
			m.Verdict, m.P, m.HolmP = analysis.VerdictOf(tc.verdict, m.Kind), journal.Num(tc.p), journal.Num(tc.p)
			var text, md strings.Builder
			require.NoError(t, terminal.WriteText(&text, For(a).Document()))
			require.NoError(t, document.WriteMarkdown(&md, For(a).MarkdownDocument()))
			for _, out := range []string{text.String(), md.String()} {
				lines := strings.Split(out, "\n")
				require.GreaterOrEqual(t, len(lines), 3)
				if !tc.want {
					assert.NotContains(t, out, "Rule:")
					continue
				}
				assert.Equal(t, "", lines[1], "a paragraph of its own")
				assert.True(t, strings.HasPrefix(lines[2], "Rule: the verdict is the 95% CI of Δ against the ±1.0% margin"), lines[2])
				assert.Contains(t, lines[2], "p (Wilcoxon signed-rank) tests only Δ = 0 and does not decide")
			}
		})
	}
}

// TestTooFewRoundsForAnInterval: with 2 rounds no interval, MDE or
// rounds-needed estimate is printed or written, and the report says why;
// with 3 the interval is back but the estimates wait for 6 rounds.
func TestTooFewRoundsForAnInterval(t *testing.T) {
	a := analysis.Analyze(fasterJournal(t, 2))
	m := a.PrimaryResult()
	require.NotNil(t, m)
	assert.True(t, math.IsNaN(float64(m.CILo)) && math.IsNaN(float64(m.CIHi)) && math.IsNaN(float64(m.MDE)))
	assert.Equal(t, "too few rounds for an interval (2; needs ≥ 3)", m.NoInterval)
	assert.Equal(t, "inconclusive", m.Verdict.String())
	assert.Zero(t, m.Extra)
	assert.Zero(t, a.Noise.RoundsForMargin)
	assert.Equal(t, "no estimate from fewer than 6 rounds", a.Noise.NoEstimate)
	assert.Contains(t, For(a).Headline(), "INCONCLUSIVE: ControlPlane: Δ -10.")
	assert.Contains(t, For(a).Headline(), "too few rounds for an interval (2; needs ≥ 3); more rounds would settle it; how many: no estimate from fewer than 6 rounds (2 rounds")
	assert.Contains(t, For(a).NoiseLines()[0], "minimum detectable effect at 80% power in 2 rounds: none, too few rounds for an interval")
	assert.Contains(t, For(a).NoiseLines()[1], "rounds to resolve the ±1.0% margin: no estimate from fewer than 6 rounds")

	var js strings.Builder
	require.NoError(t, document.WriteJSON(&js, a))
	var back map[string]any
	require.NoError(t, json.Unmarshal([]byte(js.String()), &back))
	row := back["metrics"].([]any)[0].(map[string]any)
	assert.Nil(t, row["ci_lo"])
	assert.Nil(t, row["ci_hi"])
	assert.Nil(t, row["mde"])
	assert.Equal(t, "too few rounds for an interval (2; needs ≥ 3)", row["no_interval"])
	assert.Equal(t, "no estimate from fewer than 6 rounds", back["noise"].(map[string]any)["no_estimate"])

	a = analysis.Analyze(fasterJournal(t, 3))
	m = a.PrimaryResult()
	assert.False(t, math.IsNaN(float64(m.CILo)), "3 rounds give an interval")
	assert.Empty(t, m.NoInterval)
	assert.Equal(t, "no estimate from fewer than 6 rounds", a.Noise.NoEstimate)

	a = analysis.Analyze(fasterJournal(t, 6))
	assert.Empty(t, a.Noise.NoEstimate)
	assert.Empty(t, a.PrimaryResult().NoInterval)
}

// TestMinPrimaryShowsTheMedian: under --block-stat min the verdict is on
// block minima and every format shows the block medians' Δ beside it; when
// the floor and the typical pass move apart the report says so, and not
// when they agree.
func TestMinPrimaryShowsTheMedian(t *testing.T) {
	build := func(headMedian float64) *journal.Journal {
		var vals [][2][]float64
		for i := range 8 {
			e, f := 1+0.002*float64(i%3), 1+0.003*float64(i%4)
			// Head's fastest pass is 20% slower than base's; its median
			// pass is headMedian× base's.
			vals = append(vals, [2][]float64{{800 * e, 1200 * e, 1210 * e}, {960 * f, 1200 * headMedian * f, 1210 * headMedian * f}})
		}
		j := journaltest.Synth(t, vals)
		j.Header.Config.BlockStat = journal.BlockMin
		return j
	}
	a := analysis.Analyze(build(0.85))
	m := a.PrimaryResult()
	require.NotNil(t, m)
	assert.Equal(t, "slower", m.Verdict.String(), "the floor rose 20%%: %v", m.Delta)
	assert.InDelta(t, -0.15, float64(m.DeltaMedian), 0.01)
	require.NotNil(t, m.MedianVerdict)
	assert.Equal(t, "faster", m.MedianVerdict.String())
	require.Len(t, For(a).FloorLines(), 1)
	assert.Contains(t, For(a).FloorLines()[0], "FLOOR AND TYPICAL PASS DIFFER: ControlPlane: the verdict is on block minima (--block-stat min), Δ +20.")
	assert.Contains(t, For(a).FloorLines()[0], "(slower); the block medians moved -14.")
	assert.Contains(t, For(a).FloorLines()[0], "(faster): neither lies in the other's interval")

	text, md, csv, js := renderAll(t, a, build(0.85))
	for name, out := range map[string]string{"text": text.String(), "markdown": md.String()} {
		assert.Contains(t, out, "FLOOR AND TYPICAL PASS DIFFER", name)
		assert.Contains(t, out, "Δmedian", name)
		assert.NotContains(t, out, "Δmin", name)
		assert.Contains(t, out, "-14.", name)
	}
	assert.Contains(t, text.String(), "Δmedian: the same paired analysis on block medians")
	assert.Contains(t, md.String(), "Δmedian: the same on block medians (the verdict is on block minima)")
	lines := strings.Split(csv.String(), "\n")
	assert.True(t, strings.HasSuffix(lines[0], ",aliases,delta_median,delta_median_ci_lo,delta_median_ci_hi,verdict_median"), lines[0])
	assert.True(t, strings.HasSuffix(lines[2], ",faster"), lines[2])
	var back map[string]any
	require.NoError(t, json.Unmarshal(js.Bytes(), &back))
	row := back["metrics"].([]any)[0].(map[string]any)
	assert.InDelta(t, -0.15, row["delta_median"], 0.01)
	assert.Equal(t, "faster", row["verdict_median"])

	// Noisy medians whose interval holds the floor's Δ, though their own
	// Δ has the other sign: no divergence, no note.
	noisy := build(1.2)
	for i := range noisy.Blocks {
		if b := &noisy.Blocks[i]; b.Arm == "head" {
			f := []float64{0.81, 1.2}[b.Round%2]
			for k := 2; k < len(b.Passes); k++ {
				b.Passes[k].Values["ControlPlane"] *= f / 1.2
			}
		}
	}
	a = analysis.Analyze(noisy)
	require.Less(t, float64(a.PrimaryResult().DeltaMedian)*float64(a.PrimaryResult().Delta), 0.0, "signs differ: %v %v", a.PrimaryResult().DeltaMedian, a.PrimaryResult().Delta)
	assert.Empty(t, For(a).FloorLines())

	// A constant added to every pass of head (a 300 µs delay) moves the
	// floor (800 µs) by 37.5% and the median (1200 µs) by 25%: the ratios
	// part, each outside the other's interval, but the time added is the
	// same, so there is no divergence to report.
	var added [][2][]float64
	for i := range 8 {
		e, f := 1+0.002*float64(i%3), 1+0.003*float64(i%4)
		added = append(added, [2][]float64{{800 * e, 1200 * e, 1210 * e}, {800*f + 300, 1200*f + 300, 1210*f + 300}})
	}
	ja := journaltest.Synth(t, added)
	ja.Header.Config.BlockStat = journal.BlockMin
	a = analysis.Analyze(ja)
	m = a.PrimaryResult()
	require.False(t, stats.Interval{Lo: float64(m.MedCILo), Hi: float64(m.MedCIHi)}.Contains(float64(m.Delta)),
		"the ratios part: Δ %v, Δmedian %v [%v, %v]", m.Delta, m.DeltaMedian, m.MedCILo, m.MedCIHi)
	assert.Empty(t, For(a).FloorLines(), "the same 300 µs added to the floor and the typical pass")

	// Both moved the same way: the median is still shown, without the note.
	a = analysis.Analyze(build(1.2))
	require.NotNil(t, a.PrimaryResult().MedianVerdict)
	assert.Equal(t, "slower", a.PrimaryResult().MedianVerdict.String())
	assert.Empty(t, For(a).FloorLines())
	assert.Contains(t, For(a).Document().Blocks[1].(*document.Table).Header, "Δmedian")

	// Under the median no median columns or fields appear.
	j := build(0.85)
	j.Header.Config.BlockStat = journal.BlockMedian
	a = analysis.Analyze(j)
	assert.Empty(t, For(a).FloorLines())
	assert.Nil(t, a.PrimaryResult().MedianVerdict)
	_, _, csv, js = renderAll(t, a, j)
	assert.NotContains(t, csv.String(), "delta_median")
	assert.NotContains(t, js.String(), "delta_median")
}

// TestWhatRanNamesTheSettingsTheEmbeddedArmsDifferIn: two embedded arms
// read as the settings they differ in, not two 130-character specs; the
// details keep the full specs.
func TestWhatRanNamesTheSettingsTheEmbeddedArmsDifferIn(t *testing.T) {
	a := analysis.Analyze(fasterJournal(t, 6))
	a.Header.Env.CPUModel, a.Header.Env.NCPU, a.Header.Env.Host = "AMD EPYC", 2, "vm"
	assert.Equal(t, "base: embedded mirror=per_bind; head: embedded mirror=retained (the same otherwise: the full specs are in the details); on AMD EPYC, 2 CPUs (host vm)",
		For(a).WhatRan())
	var b strings.Builder
	require.NoError(t, document.WriteMarkdown(&b, For(a).MarkdownDocument()))
	_, details, _ := strings.Cut(b.String(), "<details>")
	assert.Contains(t, details, "- base: "+a.Header.Arms[journal.Base].Spec)
}
