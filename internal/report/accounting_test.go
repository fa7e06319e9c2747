package report

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hbgkit/hbgkit/phases"
	"github.com/hbgkit/hbgkit/trace"
)

// seg is a bind segment of the accounting tests.
// computeAccounting is the accounting of passes, through the streaming
// entry point.
func computeAccounting(passes []phases.BindPass) *phases.Accounting {
	return phases.ComputeAccountingOf(len(passes), func(i int, _ []phases.Segment) phases.BindPass { return passes[i] })
}

func seg(name string, ts, dur int64) phases.Segment {
	return phases.Segment{Name: name, Ts: ts, Dur: dur}
}

// pass builds a known pass of pid/inv from segments.
func pass(pid int64, inv uint64, segs ...phases.Segment) phases.BindPass {
	return phases.BindPass{Pid: pid, Inv: inv, Known: true, Segments: segs}
}

// designPass is one round with the means of the example the share
// blocks' layout was taken from:
// Args 500, Prebuilt 450, HostOrch 900, Relocate 1, H2dImage 1155 µs.
func designPass(pid int64, inv uint64) phases.BindPass {
	return pass(pid, inv,
		seg(trace.SegArgs, 0, 500_000),
		seg(trace.SegPrebuilt, 500_000, 450_000),
		seg(trace.SegHostOrch, 1_000_000, 900_000),
		seg(trace.SegRelocate, 2_000_000, 1000),
		seg(trace.SegArenaH2d, 2_100_000, 1_155_000))
}

// fourRounds are four rounds of pid 42; the third lacks arena_h2d.
func fourRounds() []phases.BindPass {
	round := func(inv uint64, orch, graph, arena int64) phases.BindPass {
		p := pass(42, inv,
			seg(trace.SegArgs, 0, 100_000),
			seg(trace.SegHostOrch, 100_000, orch),
			seg(trace.SegH2dGraph, 100_000+orch, graph))
		if arena > 0 {
			p.Segments = append(p.Segments, seg(trace.SegArenaH2d, 200_000+orch+graph, arena))
		}
		return p
	}
	return []phases.BindPass{
		round(1, 600_000, 300_000, 100_000),
		round(2, 700_000, 400_000, 100_000),
		round(3, 500_000, 200_000, 0),
		round(4, 900_000, 400_000, 100_000),
	}
}

func TestSharesTextLayout(t *testing.T) {
	a := computeAccounting([]phases.BindPass{designPass(1, 1)})
	text := sharesText(a)
	// The example's lines, byte for byte.
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
	a := computeAccounting(fourRounds())
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
`, sharesText(a))
}

func TestColdVsWarm(t *testing.T) {
	cold := pass(1, 1, seg(trace.SegArgs, 0, 900_000), seg(trace.SegHostOrch, 1_000_000, 100_000))
	warm := pass(1, 2, seg(trace.SegArgs, 0, 100_000), seg(trace.SegHostOrch, 1_000_000, 900_000))
	argsOnly := pass(1, 3, seg(trace.SegArgs, 0, 100_000), seg(trace.SegHostOrch, 200_000, 100_000))
	arenaOnly := pass(1, 4, seg(trace.SegHostOrch, 200_000, 100_000), seg(trace.SegArenaH2d, 400_000, 10_000))
	tests := []struct {
		name   string
		passes []phases.BindPass
		want   string
	}{
		{name: "same top", passes: []phases.BindPass{warm, warm}, want: "Cold vs warm: same top stage (HostOrch)"},
		{name: "top differs", passes: []phases.BindPass{cold, warm}, want: "Cold vs warm: TOP DIFFERS, cold=Args warm=HostOrch"},
		{name: "no warm round", passes: []phases.BindPass{cold}, want: "Cold vs warm: not compared, the warm block has no top stage"},
		{name: "warm common set empty", passes: []phases.BindPass{cold, argsOnly, arenaOnly}, want: "Cold vs warm: not compared, the warm block has no top stage"},
		{name: "nothing", passes: nil, want: "Cold vs warm: not compared, neither block has a top stage"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, coldVsWarm(computeAccounting(tc.passes)))
		})
	}
}

func TestDoc(t *testing.T) {
	a := computeAccounting(fourRounds())
	d := newAccountingDoc(a)
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
	empty := newAccountingDoc(computeAccounting([]phases.BindPass{pass(1, 1, seg(trace.SegHostOrch, 0, 1000))}))
	warm := empty.Blocks[2]
	assert.Equal(t, 0, warm.N)
	assert.Empty(t, warm.Stages)
	assert.Nil(t, warm.Top)
	b, err = json.Marshal(warm)
	require.NoError(t, err)
	assert.Contains(t, string(b), `"rounds":[]`)
	assert.Contains(t, string(b), `"top":null`)
}

func TestColumnsAndCells(t *testing.T) {
	passes := fourRounds()
	passes = append(passes, pass(42, 5,
		seg(trace.SegHostOrch, 0, 100_000),
		seg(trace.SegH2dGraph, 0, 70_000),
		seg(trace.SegH2dGraph, 30_000, 70_000))) // skewed: HostOrch is a recorded 0
	a := computeAccounting(passes)
	assert.Equal(t, []string{"Args (us)", "HostOrch (us)", "H2dImage (us)", "H2dGraph (us)", "H2dArena (us)", "Gate (us)", "ControlPlane (us)"}, accountingColumnLabels(a))
	assert.Equal(t, []string{"100.0", "500.0", "200.0", "200.0", "-", "700.0", "700.0"}, accountingCells(a, 2))
	assert.Equal(t, []string{"-", "0.0", "140.0", "140.0", "-", "140.0", "140.0"}, accountingCells(a, 4), "a recorded 0 is 0.0, a missing value -")

	us, rec := accountingRowValues(a, 4)
	assert.Equal(t, []float64{0, 0, 140, 140, 0, 140, 140}, us)
	assert.Equal(t, []bool{false, true, true, true, false, true, true}, rec)
}

func TestSharesTextCommonSetEmpty(t *testing.T) {
	// Each round records a stage the other lacks: no round is common.
	a := computeAccounting([]phases.BindPass{
		pass(1, 1, seg(trace.SegHostOrch, 200_000, 100_000)),
		pass(1, 2, seg(trace.SegArgs, 0, 100_000), seg(trace.SegHostOrch, 200_000, 100_000)),
		pass(1, 3, seg(trace.SegHostOrch, 200_000, 100_000), seg(trace.SegArenaH2d, 400_000, 10_000)),
	})
	assert.Contains(t, sharesText(a), "  HBG bind accounting, warm (n=0 of 2):\n    (no round records every stage the block records)\n")
}

func TestAccountingSpreadRowText(t *testing.T) {
	row := phases.AccountingSpreadRow{Stage: phases.StageControlPlane, Min: 1.7, Median: 2.2, Max: 2.2, N: 3}
	assert.Equal(t, "  ControlPlane           1.700     2.200     2.200    3", accountingSpreadRowText(row))
}
