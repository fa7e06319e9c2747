package phases

import (
	"encoding/json"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hbgkit/hbgkit/trace"
)

// acctDesignPass is one round with the means of DESIGN §4's example:
// Args 500, Prebuilt 450, HostOrch 900, Relocate 1, H2dImage 1155 µs.
func acctDesignPass(pid int64, inv uint64) BindPass {
	return acctPass(pid, inv,
		acctSeg(trace.SegArgs, 0, 500_000),
		acctSeg(trace.SegPrebuilt, 500_000, 450_000),
		acctSeg(trace.SegHostOrch, 1_000_000, 900_000),
		acctSeg(trace.SegRelocate, 2_000_000, 1000),
		acctSeg(trace.SegArenaH2d, 2_100_000, 1_155_000))
}

func TestSharesTextLayout(t *testing.T) {
	a := ComputeAccounting([]BindPass{acctDesignPass(1, 1)})
	text := a.SharesText()
	// The example lines of DESIGN §4, byte for byte.
	for _, line := range []string{
		"    Args          500.0 us  ( 16.6%)\n",
		"    Prebuilt      450.0 us  ( 15.0%)\n",
		"    Gate(HostOrch+H2dImage)   2055.0 us  (target <= 1000 us)\n",
		"    ControlPlane              2056.0 us\n",
	} {
		assert.Contains(t, text, line)
	}
	assert.Equal(t, `
  HBG bind accounting, all rounds (n=1 of 1):
    Args          500.0 us  ( 16.6%)
    Prebuilt      450.0 us  ( 15.0%)
    HostOrch      900.0 us  ( 29.9%)
    Relocate        1.0 us  (  0.0%)
    H2dImage     1155.0 us  ( 38.4%)  <-- top
    Gate(HostOrch+H2dImage)   2055.0 us  (target <= 1000 us)
    ControlPlane              2056.0 us
  HBG bind accounting, cold: first pass of each pid (n=1 of 1):
    Args          500.0 us  ( 16.6%)
    Prebuilt      450.0 us  ( 15.0%)
    HostOrch      900.0 us  ( 29.9%)
    Relocate        1.0 us  (  0.0%)
    H2dImage     1155.0 us  ( 38.4%)  <-- top
    Gate(HostOrch+H2dImage)   2055.0 us  (target <= 1000 us)
    ControlPlane              2056.0 us
  HBG bind accounting, warm (n=0 of 0):
    (no rounds)
  Cold vs warm: not compared, the warm block has no top stage
`, text)
}

func TestSharesTextFourRounds(t *testing.T) {
	a := ComputeAccounting(acctFourRounds())
	assert.Equal(t, `
  HBG bind accounting, all rounds (n=3 of 4):
    Args          100.0 us  (  7.7%)
    HostOrch      733.3 us  ( 56.4%)  <-- top
    H2dImage      466.7 us  ( 35.9%)
    Gate(HostOrch+H2dImage)   1200.0 us  (target <= 1000 us)
    ControlPlane              1200.0 us
  HBG bind accounting, cold: first pass of each pid (n=1 of 1):
    Args          100.0 us  (  9.1%)
    HostOrch      600.0 us  ( 54.5%)  <-- top
    H2dImage      400.0 us  ( 36.4%)
    Gate(HostOrch+H2dImage)   1000.0 us  (target <= 1000 us)
    ControlPlane              1000.0 us
  HBG bind accounting, warm (n=2 of 3):
    Args          100.0 us  (  7.1%)
    HostOrch      800.0 us  ( 57.1%)  <-- top
    H2dImage      500.0 us  ( 35.7%)
    Gate(HostOrch+H2dImage)   1300.0 us  (target <= 1000 us)
    ControlPlane              1300.0 us
  Cold vs warm: same top stage (HostOrch)
`, a.SharesText())
}

func TestColdVsWarm(t *testing.T) {
	cold := acctPass(1, 1, acctSeg(trace.SegArgs, 0, 900_000), acctSeg(trace.SegHostOrch, 1_000_000, 100_000))
	warm := acctPass(1, 2, acctSeg(trace.SegArgs, 0, 100_000), acctSeg(trace.SegHostOrch, 1_000_000, 900_000))
	argsOnly := acctPass(1, 3, acctSeg(trace.SegArgs, 0, 100_000), acctSeg(trace.SegHostOrch, 200_000, 100_000))
	arenaOnly := acctPass(1, 4, acctSeg(trace.SegHostOrch, 200_000, 100_000), acctSeg(trace.SegArenaH2d, 400_000, 10_000))
	tests := []struct {
		name   string
		passes []BindPass
		want   string
	}{
		{name: "same top", passes: []BindPass{warm, warm}, want: "Cold vs warm: same top stage (HostOrch)"},
		{name: "top differs", passes: []BindPass{cold, warm}, want: "Cold vs warm: TOP DIFFERS, cold=Args warm=HostOrch"},
		{name: "no warm round", passes: []BindPass{cold}, want: "Cold vs warm: not compared, the warm block has no top stage"},
		{name: "warm common set empty", passes: []BindPass{cold, argsOnly, arenaOnly}, want: "Cold vs warm: not compared, the warm block has no top stage"},
		{name: "nothing", passes: nil, want: "Cold vs warm: not compared, neither block has a top stage"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, ComputeAccounting(tc.passes).ColdVsWarm())
		})
	}
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
	assert.Contains(t, a.SharesText(), "  HBG bind accounting, warm (n=0 of 2):\n    (no round records every stage the block records)\n")
	assert.Equal(t, []string{
		"warning: HBG accounting, all rounds: left out 3 of 3 rounds that lack Args, H2dImage, H2dArena: rounds 0, 1, 2",
		"warning: HBG accounting, warm: left out 2 of 2 rounds that lack Args, H2dImage, H2dArena: rounds 1, 2",
	}, a.Warnings())
}

func TestColumnsAndCells(t *testing.T) {
	passes := acctFourRounds()
	passes = append(passes, acctPass(42, 5,
		acctSeg(trace.SegHostOrch, 0, 100_000),
		acctSeg(trace.SegH2dGraph, 0, 70_000),
		acctSeg(trace.SegH2dGraph, 30_000, 70_000))) // skewed: HostOrch is a recorded 0
	a := ComputeAccounting(passes)
	assert.Equal(t, []string{"Args (us)", "HostOrch (us)", "H2dImage (us)", "H2dGraph (us)", "H2dArena (us)", "Gate (us)", "ControlPlane (us)"}, a.ColumnLabels())
	assert.Equal(t, []string{"100.0", "500.0", "200.0", "200.0", "-", "700.0", "700.0"}, a.Cells(2))
	assert.Equal(t, []string{"-", "0.0", "140.0", "140.0", "-", "140.0", "140.0"}, a.Cells(4), "a recorded 0 is 0.0, a missing value -")

	us, rec := a.RowValues(4)
	assert.Equal(t, []float64{0, 0, 140, 140, 0, 140, 140}, us)
	assert.Equal(t, []bool{false, true, true, true, false, true, true}, rec)
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

func TestDoc(t *testing.T) {
	a := ComputeAccounting(acctFourRounds())
	d := a.Doc()
	b, err := json.Marshal(d)
	require.NoError(t, err)
	var back map[string]any
	require.NoError(t, json.Unmarshal(b, &back))
	cols := back["columns"].([]any)
	require.Len(t, cols, 7)
	assert.Equal(t, map[string]any{"name": "HostOrch", "unit": "us", "key": "hostorch_us"}, cols[1])
	rows := back["rows"].([]any)
	require.Len(t, rows, 4)
	r2 := rows[2].(map[string]any)
	assert.Equal(t, float64(2), r2["round"])
	assert.Equal(t, false, r2["cold"])
	assert.Equal(t, 500.0, r2["hostorch_us"])
	v, ok := r2["h2darena_us"]
	assert.True(t, ok, "every column has its key")
	assert.Nil(t, v, "round 2 has no arena_h2d: null, not 0")
	assert.Equal(t, true, rows[0].(map[string]any)["cold"])

	blocks := back["blocks"].([]any)
	require.Len(t, blocks, 3)
	all := blocks[0].(map[string]any)
	assert.Equal(t, "all rounds", all["name"])
	assert.Equal(t, float64(3), all["n"])
	assert.Equal(t, float64(4), all["of"])
	assert.Equal(t, []any{0.0, 1.0, 2.0, 3.0}, all["rounds"])
	assert.Equal(t, []any{0.0, 1.0, 3.0}, all["rounds_used"])
	assert.Equal(t, []any{2.0}, all["left_out"])
	assert.Equal(t, []any{"H2dArena"}, all["lacking"])
	assert.Equal(t, "HostOrch", all["top"])
	assert.Equal(t, "Cold vs warm: same top stage (HostOrch)", back["cold_vs_warm"])
	assert.Len(t, back["warnings"], 2)

	byName := map[string]map[string]any{}
	for _, s := range all["stages"].([]any) {
		m := s.(map[string]any)
		byName[m["stage"].(string)] = m
		assert.Equal(t, "us", m["unit"], m["stage"])
		assert.Equal(t, 3.0, m["n"], m["stage"])
		assert.Equal(t, 4.0, m["of"], m["stage"])
	}
	assert.InDelta(t, 1200.0, byName["Gate"]["mean"], 1e-9)
	assert.Equal(t, 1000.0, byName["Gate"]["target_us"])
	assert.NotContains(t, byName["Gate"], "share_pct", "Gate is no share stage")
	assert.InDelta(t, 56.4, byName["HostOrch"]["share_pct"], 0.05)

	// A block without a common round: no stages, no top.
	empty := ComputeAccounting([]BindPass{acctPass(1, 1, acctSeg(trace.SegHostOrch, 0, 1000))}).Doc()
	warm := empty.Blocks[2]
	assert.Equal(t, 0, warm.N)
	assert.Empty(t, warm.Stages)
	assert.Nil(t, warm.Top)
	b, err = json.Marshal(warm)
	require.NoError(t, err)
	assert.Contains(t, string(b), `"rounds":[]`)
	assert.Contains(t, string(b), `"top":null`)
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
	assert.Equal(t, "  ControlPlane           1.700     2.200     2.200    3", sp.Rows[2].Format())
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
