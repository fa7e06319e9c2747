package analysis_test

import (
	"math"
	"strings"
	"testing"

	"github.com/hbgkit/hbgkit/abtest/analysis"
	"github.com/hbgkit/hbgkit/abtest/journal"
	"github.com/hbgkit/hbgkit/abtest/journal/journaltest"
	"github.com/hbgkit/hbgkit/abtest/stats"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestQuantile: the p90 interpolates between order statistics (type 7).
func TestQuantile(t *testing.T) {
	assert.InDelta(t, 9.1, analysis.Quantile([]float64{10, 1, 2, 3, 4, 5, 6, 7, 8, 9}, 0.9), 1e-12)
	assert.Equal(t, 5.0, analysis.Quantile([]float64{5}, 0.9))
	assert.Equal(t, 7.0, analysis.Quantile([]float64{3, 7}, 1))
	assert.True(t, math.IsNaN(analysis.Quantile(nil, 0.9)))
}

// ceilingBlock is a block of 11 warm passes whose minimum is lo, whose
// p90 (the 10th of 11 sorted, exactly) is p90 and whose maximum is hi:
// the rest sit at mid.
func ceilingBlock(lo, mid, p90, hi float64) []float64 {
	v := []float64{lo}
	for range 8 {
		v = append(v, mid)
	}
	return append(v, p90, hi)
}

// TestDeltaP90ByHand: Δp90 is the paired analysis of the blocks' p90s,
// the per-arm p90 and max are those of the pooled warm passes.
func TestDeltaP90ByHand(t *testing.T) {
	// Head's block p90 is 1.2× base's with log-ratio noise symmetric
	// about ln 1.2, so the trimmed mean of the log-ratios is ln 1.2.
	noise := []float64{-0.02, 0.01, 0, 0.02, -0.01, 0}
	var vals [][2][]float64
	var hb, hh []float64
	for i, e := range noise {
		b := 200 + float64(i)
		h := b * 1.2 * math.Exp(e)
		hb, hh = append(hb, b), append(hh, h)
		vals = append(vals, [2][]float64{ceilingBlock(100, 150, b, 300), ceilingBlock(100, 150, h, 300+float64(i))})
	}
	a := analysis.Analyze(journaltest.Synth(t, vals))
	m := a.PrimaryResult()
	require.NotNil(t, m)
	require.NotNil(t, m.P90Verdict)
	assert.InDelta(t, 0.2, float64(m.DeltaP90), 1e-9, "exp(ln 1.2) − 1")
	want, err := stats.Paired(hb, hh, stats.PairedOptions{})
	require.NoError(t, err)
	assert.InDelta(t, want.CI.Lo, float64(m.P90CILo), 1e-12)
	assert.InDelta(t, want.CI.Hi, float64(m.P90CIHi), 1e-12)
	assert.Greater(t, float64(m.P90CILo), 0.15)
	assert.Equal(t, "slower", m.P90Verdict.String())
	assert.Equal(t, "no change", m.Verdict.String(), "the medians did not move: the verdict stays the block statistic's")

	// Per arm over all 66 warm passes: base's p90 is the 60th of 66
	// sorted (position 0.9·65 = 58.5: between 150 and the smallest p90s),
	// its max 300; head's max is 305.
	var pooled []float64
	for _, r := range vals {
		pooled = append(pooled, r[journal.Base]...)
	}
	assert.InDelta(t, analysis.Quantile(pooled, 0.9), float64(m.Arms[journal.Base].P90), 1e-9)
	assert.Equal(t, 300.0, float64(m.Arms[journal.Base].Max))
	assert.Equal(t, 305.0, float64(m.Arms[journal.Head].Max))
	assert.Equal(t, 100.0, float64(m.Arms[journal.Head].Min))
}

// ceilingJournal is 8 rounds of blocks whose floor moves by floor× and
// p90 by ceil× from base to head, with a little noise per round.
func ceilingJournal(t *testing.T, floor, ceil float64) *journal.Journal {
	var vals [][2][]float64
	for i := range 8 {
		e := 1 + 0.004*float64(i%4)
		vals = append(vals, [2][]float64{ceilingBlock(100*e, 150*e, 200*e, 210*e), ceilingBlock(100*floor*e, 150*e, 200*ceil*e, 260*e)})
	}
	return journaltest.Synth(t, vals)
}

// TestCeilingLine: a lower floor and a higher ceiling, both decided on
// their intervals, is said among the qualifiers; a floor and a ceiling
// that move the same way, or a ceiling that did not move, are not.
func TestCeilingLine(t *testing.T) {
	a := analysis.Analyze(ceilingJournal(t, 0.8, 1.2))
	m := a.PrimaryResult()
	require.NotNil(t, m)
	assert.InDelta(t, -0.2, float64(m.DeltaMin), 0.01)
	assert.InDelta(t, 0.2, float64(m.DeltaP90), 0.01)
	line := m.CeilingLine()
	assert.Contains(t, line, "ControlPlane: lower floor, higher ceiling: head's minimum is 20.")
	assert.Contains(t, line, "% lower and its p90 20.")
	assert.Contains(t, line, "% higher (paired over 8 rounds: block minima -20.")
	assert.Contains(t, a.Qualifiers, line)

	a = analysis.Analyze(ceilingJournal(t, 1.2, 0.8))
	assert.Contains(t, a.PrimaryResult().CeilingLine(), "higher floor, lower ceiling: head's minimum is 20.")

	for name, j := range map[string]*journal.Journal{
		"both lower":      ceilingJournal(t, 0.8, 0.9),
		"both higher":     ceilingJournal(t, 1.2, 1.1),
		"ceiling unmoved": ceilingJournal(t, 0.8, 1),
		"floor unmoved":   ceilingJournal(t, 1, 1.2),
	} {
		a := analysis.Analyze(j)
		assert.Empty(t, a.PrimaryResult().CeilingLine(), name)
		for _, q := range a.Qualifiers {
			assert.NotContains(t, q, "floor,", name)
		}
	}

	// Too few rounds for an interval: no line, whatever the estimates.
	j := ceilingJournal(t, 0.8, 1.2)
	j.Header.Config.Rounds, j.Rounds = 2, j.Rounds[:2]
	assert.False(t, strings.Contains(strings.Join(analysis.Analyze(j).Qualifiers, "\n"), "ceiling"))
}

// TestCeilingLineNamesTheArm: in a comparison of a campaign of more than
// two arms the line names the arm, not "head".
func TestCeilingLineNamesTheArm(t *testing.T) {
	j := ceilingJournal(t, 0.8, 1.2)
	j.Header.Arms[journal.Head].Name = "retained"
	a := analysis.Analyze(j)
	require.NotEmpty(t, a.Qualifiers)
	assert.Contains(t, a.Qualifiers[len(a.Qualifiers)-1], "lower floor, higher ceiling: retained's minimum is 20.")
}
