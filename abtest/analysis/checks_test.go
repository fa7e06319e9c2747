package analysis_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hbgkit/hbgkit/abtest/analysis"
	"github.com/hbgkit/hbgkit/abtest/journal"
	"github.com/hbgkit/hbgkit/abtest/journal/journaltest"
)

// TestFailedCheckWithholdsEveryVerdict: head is faster on every round,
// but its correctness check exited 1: no row has a verdict, and the
// analysis says first why. A check that passed, or a failure that a later
// check of the same arm (after an extension) superseded, changes nothing.
func TestFailedCheckWithholdsEveryVerdict(t *testing.T) {
	t.Parallel()
	check := func(arm string, rounds, exit int) journal.CheckRecord {
		return journal.CheckRecord{Type: journal.LineCheck, Arm: arm, Command: "./golden.sh", Rounds: rounds, Exit: exit}
	}
	for _, tc := range []struct {
		name   string
		checks []journal.CheckRecord
		failed bool
	}{
		{"no check", nil, false},
		{"both pass", []journal.CheckRecord{check("base", 8, 0), check("head", 8, 0)}, false},
		{"head fails", []journal.CheckRecord{check("base", 8, 0), check("head", 8, 1)}, true},
		{"head fails after an extension", []journal.CheckRecord{check("head", 6, 0), check("head", 8, 1)}, true},
		{"head mended after an extension", []journal.CheckRecord{check("head", 6, 1), check("head", 8, 0)}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j := journaltest.Twin(t, 1, nil)
			j.Checks = tc.checks
			a := analysis.Analyze(j)
			p := a.PrimaryResult()
			require.NotNil(t, p)
			if !tc.failed {
				assert.Empty(t, a.CheckFailed)
				assert.True(t, p.Verdict.IsDecrease(), p.Verdict.String())
				assert.Empty(t, a.NoVerdict())
				return
			}
			assert.Equal(t, "correctness check failed: head's check `./golden.sh` ended with exit 1; no verdict, for a faster arm may be wrong", a.CheckFailed)
			for _, m := range a.Metrics {
				assert.Equal(t, analysis.NoVerdict, m.Verdict, m.Name)
			}
			assert.Contains(t, a.NoVerdict(), "the correctness check failed")
			require.Len(t, a.FailedChecks(), 1)
		})
	}
}
