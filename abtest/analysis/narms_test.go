package analysis

import (
	"path/filepath"
	"testing"

	"github.com/hbgkit/hbgkit/abtest/journal"
	"github.com/hbgkit/hbgkit/abtest/journal/journaltest"
	"github.com/hbgkit/hbgkit/abtest/metric"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// armsJournal builds the journal of a campaign of three arms whose blocks
// hold ControlPlane values: vals[i][arm] the warm passes of round i.
func ArmsJournal(t *testing.T, vals [][3][]float64) *journal.Journal {
	t.Helper()
	h := journaltest.ArmsHeader(t, "a", "b", "c")
	h.Config.Rounds, h.Config.Cold = len(vals), 1
	require.NoError(t, h.Extend(len(vals)+1))
	h.Config.Rounds = len(vals)
	j := &journal.Journal{Header: h}
	for i, r := range vals {
		round := i + 1
		for pos, arm := range h.Schedule.RoundOrder(round) {
			b := journal.BlockRecord{Type: journal.LineBlock, Round: round, Arm: h.AllArms[arm].Name, Attempt: 1, Try: 1, Pos: pos}
			b.Passes = append(b.Passes, metric.Pass{Pid: 1, Inv: 1, Cold: true, Values: map[string]float64{"ControlPlane": 10 * r[arm][0] * metric.NsPerUs}})
			for k, v := range r[arm] {
				b.Passes = append(b.Passes, metric.Pass{Pid: 1, Inv: uint64(k + 2), Index: k + 1, Values: map[string]float64{"ControlPlane": v * metric.NsPerUs}})
			}
			j.Blocks = append(j.Blocks, b)
		}
		j.Rounds = append(j.Rounds, journal.RoundRecord{Type: journal.LineRound, Round: round, Attempt: 1, Status: journal.RoundOK})
	}
	return j
}

// TestTwoArmJournalHasNoComparisons: a journal with no arm list is a
// two-arm campaign, analysed without per-arm comparisons.
func TestTwoArmJournalHasNoComparisons(t *testing.T) {
	old, err := journal.ReadJournal(filepath.Join("..", "journal", "testdata", "campaign.jsonl"))
	require.NoError(t, err)
	assert.Empty(t, Analyze(old).Comparisons)
}
