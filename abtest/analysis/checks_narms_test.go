package analysis

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hbgkit/hbgkit/abtest/journal"
)

// TestFailedCheckOfOneOfThreeArms: in a campaign of arms a (base), b and
// c, b's failed check withholds b's verdict against a, not c's; the
// campaign's CheckFailed names b.
func TestFailedCheckOfOneOfThreeArms(t *testing.T) {
	t.Parallel()
	var vals [][3][]float64
	for i := range 8 {
		x := 1000 + float64(i)
		vals = append(vals, [3][]float64{{x, x + 1, x + 2}, {x * 0.8, x*0.8 + 1, x*0.8 + 2}, {x * 0.7, x*0.7 + 1, x*0.7 + 2}})
	}
	j := ArmsJournal(t, vals)
	j.Checks = []journal.CheckRecord{
		{Type: journal.LineCheck, Arm: "a", Command: "./golden.sh", Rounds: 8},
		{Type: journal.LineCheck, Arm: "b", Command: "./golden.sh", Rounds: 8, Exit: 1},
		{Type: journal.LineCheck, Arm: "c", Command: "./golden.sh", Rounds: 8},
	}
	a := Analyze(j)
	require.Len(t, a.Comparisons, 2)
	assert.Equal(t, NoVerdict, a.Comparisons[0].PrimaryResult().Verdict, "b against a")
	assert.True(t, a.Comparisons[1].PrimaryResult().Verdict.IsDecrease(), "c against a keeps its verdict")
	assert.Contains(t, a.CheckFailed, "b's check `./golden.sh` ended with exit 1")
	require.Len(t, a.FailedChecks(), 1)
	assert.Equal(t, "b", a.FailedChecks()[0].Arm)
}

// TestFailedCheckOfOneShard: head's check failed on one of two shards;
// the merged report has no verdict either, and says which shard.
func TestFailedCheckOfOneShard(t *testing.T) {
	t.Parallel()
	a, b := SynthShard(t, 0, "node-a", 1.5), SynthShard(t, 1, "node-b", 1.5)
	b.Checks = []journal.CheckRecord{{Type: journal.LineCheck, Arm: "head", Command: "./golden.sh", Rounds: b.Header.Config.Rounds, Exit: 1}}
	m, err := Merge([]*journal.Journal{a, b})
	require.NoError(t, err)
	assert.Contains(t, m.Pooled.CheckFailed, "shard "+b.Header.Shard.Label()+": head's check `./golden.sh` ended with exit 1")
	p := m.Pooled.PrimaryResult()
	require.NotNil(t, p)
	assert.Equal(t, NoVerdict, p.Verdict)

	m, err = Merge([]*journal.Journal{SynthShard(t, 0, "node-a", 1.5), SynthShard(t, 1, "node-b", 1.5)})
	require.NoError(t, err)
	assert.Empty(t, m.Pooled.CheckFailed)
	assert.True(t, m.Pooled.PrimaryResult().Verdict.IsIncrease())
}
