package analysis

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/hbgkit/hbgkit/abtest/journal"
	"github.com/hbgkit/hbgkit/abtest/journal/journaltest"
	"github.com/hbgkit/hbgkit/abtest/metric"
	"github.com/hbgkit/hbgkit/abtest/stats"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tuneJournal is an A/A campaign of 12 rounds of blocks of one cold and
// 39 warm passes, each pass 1000 µs plus noise that is wide in a pass but
// has a floor: a block's minimum is steadier than its median, and a longer
// block's steadier than a shorter one's. Every block takes 1 s of wall
// time around passes whose chip.run walls are 10 ms each; rec sets each
// warm pass's rec_cpu_ns (NaN: absent).
func tuneJournal(t *testing.T, rec float64) *journal.Journal {
	t.Helper()
	rng := rand.New(rand.NewPCG(7, 11))
	var vals [][2][]float64
	for range 12 {
		var r [2][]float64
		for arm := range 2 {
			for range 39 {
				r[arm] = append(r[arm], 1000+200*rng.ExpFloat64())
			}
		}
		vals = append(vals, r)
	}
	j := journaltest.Synth(t, vals)
	j.Header.Config.Block = 40
	for i := range j.Blocks {
		b := &j.Blocks[i]
		b.WallNS = int64(time.Second) + 40*int64(10*time.Millisecond)
		for k := range b.Passes {
			b.Passes[k].Values[metric.MetricHost] = float64(10 * time.Millisecond)
			if !math.IsNaN(rec) && k > 0 {
				b.Passes[k].Values[metric.MetricRecCPU] = rec
			}
		}
	}
	return j
}

func TestTuneEvaluatesTruncatedBlocks(t *testing.T) {
	t.Parallel()
	j := tuneJournal(t, math.NaN())
	tu, err := Tune(j, 0.05)
	require.NoError(t, err)
	assert.InDelta(t, 1.0, float64(tu.Overhead), 1e-9)
	assert.InDelta(t, 0.010, float64(tu.PassSeconds), 1e-12)
	require.Len(t, tu.Candidates, 8, "blocks 5, 10, 20, 40 × min, median")
	byKey := map[[2]any]TuneCandidate{}
	for _, c := range tu.Candidates {
		byKey[[2]any{c.Block, c.BlockStat}] = c
		assert.Equal(t, 12, c.Rounds)
		assert.InDelta(t, 2*(1+float64(c.Block)*0.010), float64(c.RoundSeconds), 1e-9)
		assert.InDelta(t, float64(c.Need)*float64(c.RoundSeconds), float64(c.Seconds), 1e-9)
		assert.Equal(t, stats.TrimmedRoundsFor(c.Sw, 0.05), c.Need)
		assert.LessOrEqual(t, float64(c.SigmaLo), float64(c.SigmaT))
		assert.GreaterOrEqual(t, float64(c.SigmaHi), float64(c.SigmaT))
	}
	// A longer block's minimum is the steadier.
	assert.Less(t, float64(byKey[[2]any{40, journal.BlockMin}].SigmaT), float64(byKey[[2]any{5, journal.BlockMin}].SigmaT))
	require.GreaterOrEqual(t, tu.Best, 0)
	best := tu.Candidates[tu.Best]
	for _, c := range tu.Candidates {
		assert.GreaterOrEqual(t, float64(c.Seconds), float64(best.Seconds))
	}
	ok, _ := tu.Threads.Pinnable()
	assert.Equal(t, "unknown", ok)
	assert.Empty(t, tu.PinRefused)

	_, err = Tune(j, 0)
	assert.ErrorContains(t, err, "effect 0")
	short := tuneJournal(t, math.NaN())
	short.Rounds, short.Blocks = short.Rounds[:3], short.Blocks[:6]
	_, err = Tune(short, 0.1)
	assert.ErrorContains(t, err, "3 complete rounds")
}

// A pinned tuning of an arm whose recorder threads spent CPU during its
// binds recommends nothing and says why; one whose log shows none is
// pinnable.
func TestTuneRefusesToPinRecorderThreads(t *testing.T) {
	t.Parallel()
	busy := tuneJournal(t, 4.6e6)
	busy.Header.Config.CPUs = "0"
	tu, err := Tune(busy, 0.1)
	require.NoError(t, err)
	assert.Equal(t, -1, tu.Best)
	assert.Contains(t, tu.PinRefused, "measured pinned (--cpus 0), and pinning is not recommended: the recorder threads spent CPU during 936 of 936 warm binds")

	idle := tuneJournal(t, 0)
	idle.Header.Config.CPUs = "0"
	tu, err = Tune(idle, 0.1)
	require.NoError(t, err)
	ok, _ := tu.Threads.Pinnable()
	assert.Equal(t, "yes", ok)
	assert.GreaterOrEqual(t, tu.Best, 0)
	assert.Empty(t, tu.PinRefused)
}
