package analysis

import (
	"testing"
	"time"

	"github.com/hbgkit/hbgkit/abtest/journal/journaltest"
	"github.com/hbgkit/hbgkit/abtest/stats"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The cost sums the wall time of the timed blocks (failed tries
// included, and apart), the warm-ups apart, and gives the mean of a
// counted round and the changes detectable in 10, 20 and 40 rounds.
func TestCostOfACampaign(t *testing.T) {
	t.Parallel()
	var vals [][2][]float64
	for i := range 6 {
		d := float64(i % 3)
		vals = append(vals, [2][]float64{{1000 + d, 1004 - d, 998}, {1010 + d, 1003, 1001 - d}})
	}
	j := journaltest.Synth(t, vals)
	for i := range j.Blocks {
		j.Blocks[i].WallNS = int64(2 * time.Second) // 4 s a round
	}
	failed := j.Blocks[0]
	failed.Error, failed.WallNS = "exit status 1", int64(time.Second)
	warm := j.Blocks[0]
	warm.Round, warm.Warmup, warm.WallNS = 0, 1, int64(3*time.Second)
	j.Blocks = append(j.Blocks, failed, warm)

	a := Analyze(j)
	c := a.Cost
	require.NotNil(t, c)
	assert.Equal(t, 13, c.Blocks)
	assert.InDelta(t, 25, float64(c.BlockSeconds), 1e-9)
	assert.Equal(t, 1, c.Failed)
	assert.InDelta(t, 1, float64(c.FailedSeconds), 1e-9)
	assert.Equal(t, 1, c.Warmups)
	assert.InDelta(t, 3, float64(c.WarmupSeconds), 1e-9)
	assert.InDelta(t, 4, float64(c.RoundSeconds), 1e-9)
	assert.Zero(t, c.FixedSeconds, "a fixed design")
	require.Len(t, c.Detectable, 3)
	p := a.PrimaryResult()
	for k, r := range []int{10, 20, 40} {
		assert.Equal(t, r, c.Detectable[k].Rounds)
		assert.InDelta(t, stats.TrimmedMDE(p.Sw, r), float64(c.Detectable[k].MDE), 1e-12)
	}
	assert.Greater(t, float64(c.Detectable[0].MDE), float64(c.Detectable[2].MDE))

	// Blocks without wall time (compare's logs) have no cost.
	for i := range j.Blocks {
		j.Blocks[i].WallNS = 0
	}
	assert.Nil(t, Analyze(j).Cost)
}

// A campaign of more than two arms states what all its arms' blocks
// cost, not only a comparison's two: 3 arms of 2 s blocks are 6 s a round.
func TestCostOfThreeArms(t *testing.T) {
	t.Parallel()
	var vals [][3][]float64
	for i := range 6 {
		x := 1000 + float64(i)
		vals = append(vals, [3][]float64{{x, x + 1, x + 2}, {x * 0.9, x*0.9 + 1, x*0.9 + 2}, {x, x + 2, x + 1}})
	}
	j := ArmsJournal(t, vals)
	for i := range j.Blocks {
		j.Blocks[i].WallNS = int64(2 * time.Second)
	}
	a := Analyze(j)
	require.Len(t, a.Comparisons, 2)
	require.NotNil(t, a.Cost)
	assert.Equal(t, 18, a.Cost.Blocks)
	assert.InDelta(t, 36, float64(a.Cost.BlockSeconds), 1e-9)
	assert.InDelta(t, 6, float64(a.Cost.RoundSeconds), 1e-9)
	assert.InDelta(t, 4, float64(a.Comparisons[0].Cost.RoundSeconds), 1e-9, "a comparison's own two arms")
}
