package swimlane

import (
	"testing"

	"github.com/hbgkit/hbgkit/trace"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// gapFixture is one bind (pid 9, inv 5, tid 9) with six graph_submit
// records 10 µs long and 1 µs apart, except for one injected 300 µs gap
// after the third, inside which recorder tid 43 writes its first record;
// recorder tid 42 started before it. The last build_definition ends
// 37 µs after the last graph_submit: the commit wait.
func gapFixture() (*trace.Log, string) {
	l := &trace.Log{Spans: []trace.Span{
		sp(9, 9, 5, 0, "chip.run", 0, 2_000_000, "run_id=0"),
		sp(9, 9, 5, 1, "chip.run.bind", 1000, 1_900_000, ""),
	}}
	var recs []string
	ts := int64(100_000)
	var gapStart, gapEnd int64
	for i := 0; i < 6; i++ {
		recs = append(recs, rec("graph_submit", ts, ts+10_000, i, 9))
		ts += 10_000
		if i == 2 {
			gapStart, gapEnd = ts, ts+300_000
			ts += 300_000
		} else {
			ts += 1_000
		}
	}
	lastSubmitEnd := ts - 1_000
	// Submission #3 closes the gap and runs gapEnd..gapEnd+10 µs; #4 runs
	// from gapEnd+11 µs.
	recs = append(recs,
		rec("record_node", gapEnd+4_000, gapEnd+5_000, 1, 45),   // inside the closing submission: created in the gap
		rec("record_node", gapEnd+12_000, gapEnd+13_000, 1, 46), // inside the next one: not
		rec("record_node", 105_000, 106_000, 1, 42),
		rec("record_node", gapStart+50_000, gapStart+60_000, 1, 43),
		rec("record_node", gapEnd+5_000, gapEnd+6_000, 1, 42),
		rec("build_definition", 200_000, 250_000, 0, 42),
		rec("build_definition", lastSubmitEnd+20_000, lastSubmitEnd+37_000, 0, 43),
	)
	return l, pass(9, 5, recs...)
}

func TestGapsInjected(t *testing.T) {
	l, jsonl := gapFixture()
	sw := Build(l, loadPasses(t, jsonl))
	gs := sw.Gaps(GapOptions{Round: func(pid int64, inv uint64) (int, bool) { return 3, pid == 9 && inv == 5 }})
	require.Len(t, gs, 1)
	g := gs[0]
	assert.Equal(t, int64(9), g.Pid)
	assert.Equal(t, uint64(5), g.Inv)
	require.NotNil(t, g.Round)
	assert.Equal(t, 3, *g.Round)
	assert.Equal(t, 6, g.Submits)
	assert.Equal(t, int64(1_000), g.MedianGap)
	assert.Equal(t, int64(DefaultMinGapFloor), g.MinGap, "4x1us < 20us")
	require.Len(t, g.Gaps, 1)
	assert.Equal(t, 2, g.Gaps[0].After)
	assert.Equal(t, int64(300_000), g.Gaps[0].Dur())
	assert.Equal(t, int64(132_000), g.Gaps[0].Start)
	require.Len(t, g.Gaps[0].Created, 2, "tid 42 recorded before the gap, tid 46 after the closing submission")
	assert.Equal(t, RecorderLane{Name: "graph record worker (tid 43)", Tid: 43, First: 182_000}, g.Gaps[0].Created[0])
	assert.Equal(t, RecorderLane{Name: "graph record worker (tid 45)", Tid: 45, First: 436_000}, g.Gaps[0].Created[1])
	assert.Equal(t, int64(442_000), g.Gaps[0].NextEnd)
	require.True(t, g.HasCommit)
	assert.Equal(t, int64(37_000), g.CommitWait)
	assert.Equal(t, g.LastSubmitEnd+37_000, g.LastBuildEnd)
	assert.Equal(t, "bind pid=9 inv=5 round=3", g.Label())
}

func TestGapsThreshold(t *testing.T) {
	l, jsonl := gapFixture()
	sw := Build(l, loadPasses(t, jsonl))
	tests := []struct {
		name   string
		minGap int64
		want   int
	}{
		{"explicit below every gap", 500, 5},
		{"explicit equal to the injected gap excludes it", 300_000, 0},
		{"explicit just below the injected gap", 299_999, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			gs := sw.Gaps(GapOptions{MinGap: tc.minGap})
			require.Len(t, gs, 1)
			assert.Len(t, gs[0].Gaps, tc.want)
			assert.Equal(t, tc.minGap, gs[0].MinGap)
		})
	}
}

func TestGapsDefaultIsFourTimesMedian(t *testing.T) {
	// Gaps of 10 µs and one of 45 µs: 4 × 10 µs = 40 µs > 20 µs is the
	// threshold, so only the 45 µs gap is reported.
	l := &trace.Log{Spans: []trace.Span{sp(1, 1, 1, 1, "chip.run.bind", 0, 10_000_000, "")}}
	var recs []string
	ts := int64(1000)
	for i := 0; i < 5; i++ {
		recs = append(recs, rec("graph_submit", ts, ts+1000, i, 1))
		ts += 1000 + 10_000
		if i == 3 {
			ts += 35_000
		}
	}
	gs := Build(l, loadPasses(t, pass(1, 1, recs...))).Gaps(GapOptions{})
	require.Len(t, gs, 1)
	assert.Equal(t, int64(10_000), gs[0].MedianGap)
	assert.Equal(t, int64(40_000), gs[0].MinGap)
	require.Len(t, gs[0].Gaps, 1)
	assert.Equal(t, int64(45_000), gs[0].Gaps[0].Dur())
	assert.False(t, gs[0].HasCommit)
}

func TestGapsNeedRecords(t *testing.T) {
	l, _ := gapFixture()
	assert.Nil(t, Build(l, nil).Gaps(GapOptions{}))
}

func TestMedian(t *testing.T) {
	assert.Equal(t, int64(0), median(nil))
	assert.Equal(t, int64(3), median([]int64{5, 3, 1}))
	assert.Equal(t, int64(2), median([]int64{1, 3}))
	assert.Equal(t, int64(-2), median([]int64{-1, -3}))
}
