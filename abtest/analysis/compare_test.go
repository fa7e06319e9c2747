package analysis

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hbgkit/hbgkit/abtest/journal"
	"github.com/hbgkit/hbgkit/abtest/journal/journaltest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func CompareConfig() journal.Config { return journaltest.Config() } // compare's --block-stat default is the median

func TestReadLogsOneBlockPerLog(t *testing.T) {
	j, err := ReadLogs(CompareOptions{Base: []string{journaltest.Fixture("hbg-e1.log"), journaltest.Fixture("hbg-e2.log")},
		Head: []string{journaltest.Fixture("hbg-e3-spool.log")}, Config: CompareConfig()})
	require.NoError(t, err)
	require.Len(t, j.Blocks, 3)
	c := j.Counted()
	require.Len(t, c, 3)
	assert.Equal(t, []int{journal.Base, journal.Base, journal.Head}, []int{c[0].Arm, c[1].Arm, c[2].Arm})
	assert.Equal(t, []int{1, 2, 1}, []int{c[0].Block.Round, c[1].Block.Round, c[2].Block.Round})
	assert.Equal(t, "ControlPlane", j.Header.Primary.String())
	assert.Equal(t, 8, len(c[0].Block.Passes), "e1: two pids of 4 binds")
	assert.True(t, j.Header.Created.IsZero(), "a report of logs is a function of the logs")
}

func TestReadLogsErrors(t *testing.T) {
	empty := filepath.Join(t.TempDir(), "empty.log")
	require.NoError(t, os.WriteFile(empty, []byte("nothing here\n"), 0o644))
	for name, tc := range map[string]struct {
		opts CompareOptions
		want string
	}{
		"no head":        {CompareOptions{Base: []string{journaltest.Fixture("hbg-e1.log")}}, "at least one --base and one --head"},
		"missing":        {CompareOptions{Base: []string{"nope.log"}, Head: []string{journaltest.Fixture("hbg-e1.log")}}, "nope.log"},
		"no passes":      {CompareOptions{Base: []string{empty}, Head: []string{journaltest.Fixture("hbg-e1.log")}}, "empty.log has no passes"},
		"unknown metric": {CompareOptions{Base: []string{journaltest.Fixture("hbg-e1.log")}, Head: []string{journaltest.Fixture("hbg-e1.log")}, Config: journal.Config{Metric: "latency"}}, `--metric "latency"`},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := ReadLogs(tc.opts)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

// TestAnalyzeUnpairedIdenticalArms: the same logs on both sides give
// Δ = 0, p = 1 and no change.
func TestAnalyzeUnpairedIdenticalArms(t *testing.T) {
	logs := []string{journaltest.Fixture("hbg-e1.log"), journaltest.Fixture("hbg-e2.log"), journaltest.Fixture("hbg-e3-spool.log")}
	j, err := ReadLogs(CompareOptions{Base: logs, Head: logs, Config: CompareConfig()})
	require.NoError(t, err)
	a := AnalyzeUnpaired(j)
	assert.Equal(t, DesignUnpaired, a.Design)
	assert.Equal(t, RankSumTest, a.Test)
	p := a.PrimaryResult()
	assert.InDelta(t, 0, float64(p.Delta), 1e-12)
	assert.InDelta(t, 1, float64(p.P), 1e-12)
	assert.Less(t, float64(p.CILo), 0.0)
	assert.Greater(t, float64(p.CIHi), 0.0)
	assert.Equal(t, 0, p.SignN)
	assert.Contains(t, a.Warnings[len(a.Warnings)-1], "fewer than 4 per arm")
}
