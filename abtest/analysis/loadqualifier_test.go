package analysis

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/hbgkit/hbgkit/abtest/journal"
	"github.com/hbgkit/hbgkit/abtest/journal/journaltest"
)

// TestLoadedFixedDesignQualifier: an inconclusive verdict of a fixed
// design whose rounds closed on a loaded machine is qualified (a fixed
// design misses real changes under load: docs/ab.md's load table); not
// when the machine was idle, not a decided verdict, not a sequential
// design.
func TestLoadedFixedDesignQualifier(t *testing.T) {
	t.Parallel()
	noisy := func(load float64, tweak func(*journal.Journal)) *Analysis {
		var vals [][2][]float64
		for i := range 8 {
			d := []float64{+3, -2, +1, -4, +2, -1, +4, -3}[i]
			vals = append(vals, [2][]float64{{1000, 1001, 1002}, {1000 + 10*d, 1001 + 10*d, 1002 + 10*d}})
		}
		j := journaltest.Synth(t, vals)
		j.Header.Env.NCPU = 2
		for i := range j.Rounds {
			j.Rounds[i].Load = &journal.Load{Avg1: load}
		}
		if tweak != nil {
			tweak(j)
		}
		return Analyze(j)
	}
	a := noisy(6, nil)
	assert.True(t, a.PrimaryResult().Verdict.IsInconclusive(), a.PrimaryResult().Verdict.String())
	assert.Contains(t, a.Qualifiers, LoadedFixedDesign)
	assert.NotContains(t, noisy(0.2, nil).Qualifiers, LoadedFixedDesign, "an idle machine")
	assert.NotContains(t, noisy(6, func(j *journal.Journal) { j.Header.Config.LookEvery = 4 }).Qualifiers,
		LoadedFixedDesign, "a sequential design")
	decided := noisy(6, func(j *journal.Journal) {
		for i := range j.Blocks {
			if j.Blocks[i].Arm == "head" {
				for k := range j.Blocks[i].Passes {
					j.Blocks[i].Passes[k].Values["ControlPlane"] *= 2
				}
			}
		}
	})
	assert.True(t, decided.PrimaryResult().Verdict.IsIncrease())
	assert.NotContains(t, decided.Qualifiers, LoadedFixedDesign, "a decided verdict")
}
