package abreport

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hbgkit/hbgkit/abtest/analysis"
	"github.com/hbgkit/hbgkit/abtest/journal"
	"github.com/hbgkit/hbgkit/abtest/journal/journaltest"
)

// TestSwitchIsWarnedInEveryFormat: an arm run with
// SIMPLER_SKIP_TENSOR_COPY_BACK=1 is named with its switch, and --check
// recommended, in every format a report is written in; an arm without
// one is warned about in none.
func TestSwitchIsWarnedInEveryFormat(t *testing.T) {
	t.Parallel()
	for _, env := range []string{"SIMPLER_SKIP_TENSOR_COPY_BACK=1", "SIMPLER_LOG_LEVEL=1"} {
		j := journaltest.Twin(t, 1, nil)
		j.Header.Arms[journal.Head] = journal.Arm{Kind: journal.KindCommand, Spec: "./run {rounds} {out}", Env: []string{env}}
		a := analysis.Analyze(j)
		for _, f := range Formats {
			var b bytes.Buffer
			require.NoError(t, Write(&b, WriteOptions{Format: f}, a, j))
			if env == "SIMPLER_LOG_LEVEL=1" {
				assert.NotContains(t, b.String(), "correctness", f)
				continue
			}
			assert.Contains(t, b.String(), "head", f)
			assert.Contains(t, b.String(), "SIMPLER_SKIP_TENSOR_COPY_BACK", f)
			assert.Contains(t, b.String(), "--check", f)
			if f == "csv" {
				assert.Contains(t, b.String(), "table,warning\nwarnings,\"head runs with SIMPLER_SKIP_TENSOR_COPY_BACK", "the csv's first table")
			}
			if f == "json" {
				assert.Contains(t, b.String(), `"correctness_switches"`)
			}
		}
	}
}
