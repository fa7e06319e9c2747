package abreport

import (
	"bytes"
	"strings"
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

// TestPREvidenceWarningsFolded: the blocks' evidence warnings, most of a
// pull request's WARNING list on a runtime whose attribute buffer cuts
// counters, are folded into one line above the table and listed in a
// <details> under it; one that names the primary metric stays above, and
// the text report lists them all as before.
func TestPREvidenceWarningsFolded(t *testing.T) {
	t.Parallel()
	j := journaltest.Twin(t, 1, nil)
	a0 := analysis.Analyze(j)
	primary := a0.Primary.Name
	require.NotEmpty(t, primary)
	for i := range j.Blocks {
		j.Blocks[i].Warnings = []string{"evidence: /tmp/b.log:2: " + primary + ": a value is cut"}
		for _, seg := range []string{"arena_build", "host_orch", "graph_upload", "args", "prebuilt", "view_close"} {
			j.Blocks[i].Warnings = append(j.Blocks[i].Warnings, "evidence: /tmp/b.log:9: "+seg+": the counter rec_cpu_ns was cut")
		}
	}
	a := analysis.Analyze(j)
	var md, text bytes.Buffer
	require.NoError(t, Write(&md, WriteOptions{Format: "markdown"}, a, j))
	require.NoError(t, Write(&text, WriteOptions{Format: "text"}, a, j))
	top, under, ok := strings.Cut(md.String(), "| metric |")
	require.True(t, ok, md.String())
	assert.Equal(t, 2, strings.Count(top, "WARNING: evidence"), top)
	assert.Contains(t, top, "WARNING: evidence: "+primary+": a value is cut")
	assert.Contains(t, top, "WARNING: evidence: 6 warnings that the blocks' logs left values out (counters cut or unreadable, pass totals missing); none names "+primary+", the verdict's metric; they are listed under the table")
	assert.NotContains(t, top, "rec_cpu_ns")
	assert.Contains(t, under, "<summary>evidence: what the blocks' logs left out (6 warnings)</summary>")
	assert.Contains(t, under, "- evidence: host_orch: the counter rec_cpu_ns was cut")
	assert.Contains(t, under, "- and 3 more evidence warnings")
	assert.Equal(t, 4, strings.Count(text.String(), "WARNING: evidence"), "the text report lists them as before")
	assert.Contains(t, text.String(), "WARNING: and 3 more evidence warnings")
}
