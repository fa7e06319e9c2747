package analysis_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hbgkit/hbgkit/abtest/analysis"
	"github.com/hbgkit/hbgkit/abtest/journal"
	"github.com/hbgkit/hbgkit/abtest/journal/journaltest"
)

// TestWorkDiffsSeeEveryPass: one warm pass of base that did other work
// (tasks=465 where every other pass had 129) leaves both arms' medians at
// 129, yet the same-work check names it, its value and where it ran; the
// arms agree on the median, so nothing is called deterministic.
func TestWorkDiffsSeeEveryPass(t *testing.T) {
	t.Parallel()
	j := journaltest.Twin(t, 1, func(round, arm, _, pass int, v map[string]float64) {
		v["work.host_orch.tasks"] = 129
		if round == 3 && arm == journal.Base && pass == 2 {
			v["work.host_orch.tasks"] = 465
		}
	})
	a := analysis.Analyze(j)
	require.Len(t, a.WorkDiffs, 1)
	d := a.WorkDiffs[0]
	assert.Equal(t, "work.host_orch.tasks: base 129 on 23 of 24 passes, 465 on 1 (pass 3 of round 3); head 129 on 24 of 24 passes", d.Text)
	assert.False(t, d.Deterministic)
	assert.Equal(t, journal.Num(129), d.Base)
	require.Len(t, d.Passes, 2)
	assert.Equal(t, "base", d.Passes[0].Arm)
	assert.Equal(t, []string{"pass 3 of round 3"}, d.Passes[0].Values[1].Where)
	for _, m := range a.Metrics {
		assert.False(t, m.Determined, m.Name)
	}
}

// TestDeterministicCountIsCalled: 1131 against 129 tasks on every pass
// is called fewer at 2 rounds, where the test can call nothing; a count
// that varies keeps the test's verdict; one that never varies, on either
// arm, is no change.
func TestDeterministicCountIsCalled(t *testing.T) {
	t.Parallel()
	j := journaltest.Synth(t, [][2][]float64{{{1000, 1001, 1002}, {1000, 1003, 1001}}, {{1001, 1002, 1000}, {1002, 1000, 1001}}})
	for b := range j.Blocks {
		for p := range j.Blocks[b].Passes {
			tasks, subs := 1131.0, 20.0+float64(p%2)
			if j.Blocks[b].Arm == "head" {
				tasks, subs = 129, 21-float64(p%2)
			}
			j.Blocks[b].Passes[p].Values["work.host_orch.tasks"] = tasks
			j.Blocks[b].Passes[p].Values["work.graph_upload.submissions"] = subs
			j.Blocks[b].Passes[p].Values["work.args.ntensor"] = 118
		}
	}
	a := analysis.Analyze(j)
	var tasks, subs, same *analysis.MetricResult
	for i := range a.Metrics {
		switch a.Metrics[i].Name {
		case "work.host_orch.tasks":
			tasks = &a.Metrics[i]
		case "work.graph_upload.submissions":
			subs = &a.Metrics[i]
		case "work.args.ntensor":
			same = &a.Metrics[i]
		}
	}
	require.NotNil(t, tasks)
	require.NotNil(t, subs)
	assert.True(t, tasks.Verdict.IsDecrease(), tasks.Verdict.String())
	assert.Equal(t, "fewer", tasks.Verdict.String())
	assert.True(t, tasks.Verdict.FailsOn("change"), "--fail-on change sees it")
	assert.True(t, tasks.Determined)
	assert.False(t, subs.Determined, "a count that varies is the test's to call")
	require.NotNil(t, same)
	assert.Equal(t, "no change", same.Verdict.String(), "one value on every pass of both arms")
	assert.True(t, same.Determined)
	require.Len(t, a.WorkDiffs, 2)
	var texts []string
	for _, d := range a.WorkDiffs {
		texts = append(texts, d.Text)
	}
	assert.Contains(t, texts, "head submits 129 host tasks per bind, base 1131 on every pass")
}

// TestWorkDiffsCompareWithinARank: ranks may do different work (rank 1
// records one task fewer than rank 0, as in the E1 fixture); that is no
// difference, but one demoted pass of rank 1 is, named by its rank.
func TestWorkDiffsCompareWithinARank(t *testing.T) {
	t.Parallel()
	tasks := func(demote bool) func(round, arm, rank, pass int, v map[string]float64) {
		return func(round, arm, rank, pass int, v map[string]float64) {
			v["work.host_orch.tasks"] = 1131 - float64(rank)
			if demote && round == 2 && arm == journal.Head && rank == 1 && pass == 3 {
				v["work.host_orch.tasks"] = 2000
			}
		}
	}
	assert.Empty(t, analysis.Analyze(journaltest.Twin(t, 2, tasks(false))).WorkDiffs)
	d := analysis.Analyze(journaltest.Twin(t, 2, tasks(true))).WorkDiffs
	require.Len(t, d, 1)
	assert.Contains(t, d[0].Text, "; head rank 1 1130 on 23 of 24 passes, 2000 on 1 (pass 4 of round 2)")
	assert.Contains(t, d[0].Text, "base rank 0 1131 on 24 of 24 passes")
}

// TestWorkDiffsNameAtMostFivePasses: a value many passes took is named by
// its first five passes and "...".
func TestWorkDiffsNameAtMostFivePasses(t *testing.T) {
	t.Parallel()
	j := journaltest.Twin(t, 1, func(round, arm, _, pass int, v map[string]float64) {
		v["work.host_orch.tasks"] = 129
		if arm == journal.Head && round <= 3 {
			v["work.host_orch.tasks"] = 465
		}
	})
	d := analysis.Analyze(j).WorkDiffs
	require.Len(t, d, 1)
	assert.Contains(t, d[0].Text, "; head 129 on 15 of 24 passes, 465 on 9 (pass 2 of round 1, pass 3 of round 1, pass 4 of round 1, pass 2 of round 2, pass 3 of round 2, ...)")
	assert.Len(t, d[0].Passes[1].Values[1].Where, 5)
}
