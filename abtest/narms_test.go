package abtest

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// armsJournal builds the journal of a campaign of three arms whose blocks
// hold ControlPlane values: vals[i][arm] the warm passes of round i.
func armsJournal(t *testing.T, vals [][3][]float64) *Journal {
	t.Helper()
	h := jtArmsHeader(t, "a", "b", "c")
	h.Config.Rounds, h.Config.Cold = len(vals), 1
	require.NoError(t, h.extend(len(vals)+1))
	h.Config.Rounds = len(vals)
	j := &Journal{Header: h}
	for i, r := range vals {
		round := i + 1
		for pos, arm := range h.Schedule.RoundOrder(round) {
			b := BlockRecord{Type: lineBlock, Round: round, Arm: h.AllArms[arm].Name, Attempt: 1, Try: 1, Pos: pos}
			b.Passes = append(b.Passes, Pass{Pid: 1, Inv: 1, Cold: true, Values: map[string]float64{"ControlPlane": 10 * r[arm][0] * nsPerUs}})
			for k, v := range r[arm] {
				b.Passes = append(b.Passes, Pass{Pid: 1, Inv: uint64(k + 2), Index: k + 1, Values: map[string]float64{"ControlPlane": v * nsPerUs}})
			}
			j.Blocks = append(j.Blocks, b)
		}
		j.Rounds = append(j.Rounds, RoundRecord{Type: lineRound, Round: round, Attempt: 1, Status: RoundOK})
	}
	return j
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
	j := armsJournal(t, vals)
	a := Analyze(j)
	require.Len(t, a.Comparisons, 2)
	assert.Empty(t, a.Metrics)
	assert.Equal(t, 6, a.Complete)
	for k, c := range a.Comparisons {
		p := c.PrimaryResult()
		require.NotNil(t, p)
		assert.InDelta(t, 0.03125, float64(p.P), 1e-9)
		assert.InDelta(t, 0.0625, float64(p.HolmP), 1e-9)
		assert.Equal(t, "inconclusive", p.Verdict, "arm %d", k+1)
		assert.True(t, p.Gated)
		assert.Greater(t, float64(p.Delta), 0.25)
		// The same pair analysed as a two-arm campaign calls it slower.
		two := Analyze(armView(j, k+1))
		assert.Equal(t, "slower", two.PrimaryResult().Verdict)
		assert.Equal(t, two.PrimaryResult().Delta, p.Delta)
	}
	text := a.Document()
	assert.NotNil(t, text)
	assert.Equal(t, []string{
		"INCONCLUSIVE (p): b against a: ControlPlane: Δ +30.0%, 95% CI [+29.9%, +30.2%] (6 rounds, sign 6/6, p 0.031, Holm-adjusted over the 2 arms 0.062)",
		"INCONCLUSIVE (p): c against a: ControlPlane: Δ +30.5%, 95% CI [+30.4%, +30.7%] (6 rounds, sign 6/6, p 0.031, Holm-adjusted over the 2 arms 0.062)",
	}, a.armHeadlines())

	// One arm far slower (p 0.031) and one unchanged (p 1): Holm leaves
	// the slower one's p below 0.05 only with 7 rounds or more.
	vals = append(vals, [3][]float64{{1000, 1001, 999}, {1301, 1300, 1302}, {1310, 1304, 1306}})
	a = Analyze(armsJournal(t, vals))
	for _, c := range a.Comparisons {
		assert.Equal(t, "slower", c.PrimaryResult().Verdict)
	}
}
