package phases

import (
	"github.com/hbgkit/hbgkit/trace"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// acctDesignPass is one round with the means of the example the share
// blocks' layout was taken from (internal/report's TestSharesTextLayout):
// Args 500, Prebuilt 450, HostOrch 900, Relocate 1, H2dImage 1155 µs.
func acctDesignPass(pid int64, inv uint64) BindPass {
	return acctPass(pid, inv,
		acctSeg(trace.SegArgs, 0, 500_000),
		acctSeg(trace.SegPrebuilt, 500_000, 450_000),
		acctSeg(trace.SegHostOrch, 1_000_000, 900_000),
		acctSeg(trace.SegRelocate, 2_000_000, 1000),
		acctSeg(trace.SegArenaH2d, 2_100_000, 1_155_000))
}

func TestCommonSetEmpty(t *testing.T) {
	// Each round records a stage the other lacks: no round is common.
	a := ComputeAccounting([]BindPass{
		acctPass(1, 1, acctSeg(trace.SegHostOrch, 200_000, 100_000)),
		acctPass(1, 2, acctSeg(trace.SegArgs, 0, 100_000), acctSeg(trace.SegHostOrch, 200_000, 100_000)),
		acctPass(1, 3, acctSeg(trace.SegHostOrch, 200_000, 100_000), acctSeg(trace.SegArenaH2d, 400_000, 10_000)),
	})
	assert.Equal(t, 0, a.WarmBlock.K())
	assert.Equal(t, []int{1, 2}, a.WarmBlock.LeftOut)
	assert.Equal(t, []BindStage{StageArgs, StageH2dImage, StageH2dArena}, a.WarmBlock.Lacking)
	assert.Equal(t, 0, a.All.K())
	assert.Equal(t, []string{
		"warning: HBG accounting, all rounds: left out 3 of 3 rounds that lack Args, H2dImage, H2dArena: rounds 0, 1, 2",
		"warning: HBG accounting, warm: left out 2 of 2 rounds that lack Args, H2dImage, H2dArena: rounds 1, 2",
	}, a.Warnings())
}

func TestStageKeys(t *testing.T) {
	assert.Equal(t, "hostorch_us", StageHostOrch.Key())
	assert.Equal(t, "controlplane_us", StageControlPlane.Key())
}

func TestVisibleHidesUnrecordedStages(t *testing.T) {
	a := ComputeAccounting([]BindPass{acctPass(1, 1, acctSeg(trace.SegHostOrch, 0, 1000))})
	assert.Equal(t, []BindStage{StageHostOrch, StageGate, StageControlPlane}, a.Visible())
	assert.True(t, a.Active())
	none := ComputeAccounting([]BindPass{acctPass(1, 1, acctSeg(trace.SegArgs, 0, 1000)), acctPass(1, 2)})
	assert.False(t, none.Active(), "no HostOrch: no HBG columns")
}

func TestAccountingSpread(t *testing.T) {
	// Per pass: HostOrch, H2dImage, GraphPack (µs) and the sums.
	pass := func(inv uint64, orch, arena, pack int64) BindPass {
		p := acctPass(5, inv,
			acctSeg(trace.SegHostOrch, 0, orch*1000),
			acctSeg(trace.SegArenaH2d, orch*1000+10, arena*1000))
		if pack > 0 {
			p.Segments = append(p.Segments, acctSeg(trace.SegGraphPack, (orch+arena)*1000+20, pack*1000))
		}
		return p
	}
	warm := []BindPass{
		pass(2, 1000, 900, 300), // ControlPlane 2200
		pass(3, 1500, 100, 100), // 1700: the smallest sum, though neither smallest part
		pass(4, 900, 1000, 0),   // no graph_pack: left out
		pass(5, 1200, 800, 200), // 2200
	}
	sp := ComputeAccountingSpread(warm)
	assert.Equal(t, []int{0, 1, 3}, sp.Common)
	assert.Equal(t, []int{2}, sp.LeftOut)
	require.Len(t, sp.Rows, 3)
	assert.Equal(t, AccountingSpreadRow{Stage: StageGate, Min: 1.6, Median: 1.9, Max: 2.0, N: 3}, acctRound3(sp.Rows[0]))
	assert.Equal(t, AccountingSpreadRow{Stage: StageGraphPack, Min: 0.1, Median: 0.2, Max: 0.3, N: 3}, acctRound3(sp.Rows[1]))
	assert.Equal(t, AccountingSpreadRow{Stage: StageControlPlane, Min: 1.7, Median: 2.2, Max: 2.2, N: 3}, acctRound3(sp.Rows[2]))
	assert.Equal(t, "warning: HBG accounting, warm passes: left out 1 of 4 passes that lack GraphPack: passes 2", sp.Warning("warm passes"))

	e1 := ComputeAccountingSpread([]BindPass{pass(2, 1000, 900, 0)})
	require.Len(t, e1.Rows, 2, "no GraphPack row before E3")
	assert.Equal(t, StageControlPlane, e1.Rows[1].Stage)
	assert.Empty(t, e1.Warning("warm passes"))
	assert.Empty(t, ComputeAccountingSpread(nil).Rows)
}

// acctRound3 rounds a spread row's values to the µs, as printed.
func acctRound3(r AccountingSpreadRow) AccountingSpreadRow {
	round := func(v float64) float64 { return math.Round(v*1000) / 1000 }
	r.Min, r.Median, r.Max = round(r.Min), round(r.Median), round(r.Max)
	return r
}

func TestWarningsIn(t *testing.T) {
	a := ComputeAccounting(acctFourRounds())
	assert.Equal(t, a.Warnings(), a.WarningsIn(""))
	assert.Equal(t, []string{
		"warning: HBG accounting, pid 42, all rounds: left out 1 of 4 rounds that lack H2dArena: rounds 2",
		"warning: HBG accounting, pid 42, warm: left out 1 of 3 rounds that lack H2dArena: rounds 2",
	}, a.WarningsIn("pid 42"))
	assert.Empty(t, ComputeAccounting([]BindPass{acctDesignPass(1, 1)}).WarningsIn("pid 1"))
}
