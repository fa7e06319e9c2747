package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func runOrch(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(append([]string{"orch"}, args...), strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

// TestOrch: one row per host-orch kind of an E2 log, in every format,
// from the fixture's lines (hbg-e2.log: 5 passes of one pid, the first
// cold; record_node is 1108 operations per pass).
func TestOrch(t *testing.T) {
	t.Parallel()
	e2 := filepath.Join("..", "..", "fixtures", "hbg-e2.log")
	tests := []struct {
		format string
		check  func(t *testing.T, out string)
	}{
		{"text", func(t *testing.T, out string) {
			lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
			require.Len(t, lines, 7, out)
			assert.Equal(t, "host-orch lines (per pass; warm: all but the first pass of each pid)", lines[0])
			assert.Regexp(t, `^  kind +passes +count/pass +total us +us/op min +us/op median +us/op max$`, lines[1])
			assert.Regexp(t, `^  submit_task +4 of 4 +1088 +3369\.1 +0\.527 +0\.544 +0\.580$`, lines[2])
			assert.Regexp(t, `^  record_node +4 of 4 +1108 `, lines[4])
			assert.Regexp(t, `^  build_definition +4 of 4 +1 `, lines[6])
		}},
		{"markdown", func(t *testing.T, out string) {
			assert.Contains(t, out, "| kind | passes | count/pass | total us | us/op min | us/op median | us/op max |\n| --- | ---: |")
			assert.Contains(t, out, "| submit_task | 4 of 4 | 1088 | 3369.1 | 0.527 | 0.544 | 0.580 |")
		}},
		{"json", func(t *testing.T, out string) {
			var doc struct {
				HostOrch []map[string]any `json:"host_orch"`
				Records  []map[string]any `json:"records"`
			}
			require.NoError(t, json.Unmarshal([]byte(out), &doc))
			require.Len(t, doc.HostOrch, 5)
			assert.Nil(t, doc.Records, "no --records: no records table")
			r := doc.HostOrch[2]
			assert.Equal(t, "record_node", r["kind"])
			assert.Equal(t, 4.0, r["passes"])
			assert.Equal(t, 4.0, r["warm_passes"])
			assert.Equal(t, 1108.0, r["count_per_pass"])
			assert.InDelta(t, 1.356, r["per_op_min_us"], 0.001)
		}},
		{"csv", func(t *testing.T, out string) {
			rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
			require.NoError(t, err)
			require.Len(t, rows, 6)
			assert.Equal(t, []string{"source", "kind", "passes", "warm_passes", "count_per_pass", "count", "total_us",
				"per_op_min_us", "per_op_median_us", "per_op_max_us"}, rows[0])
			assert.Equal(t, []string{"host-orch", "submit_task", "4", "4", "1088", "5440", "3369.094"}, rows[1][:7])
		}},
	}
	for _, tc := range tests {
		t.Run(tc.format, func(t *testing.T) {
			code, out, errText := runOrch(t, e2, "--format", tc.format)
			require.Equal(t, 0, code, errText)
			assert.Empty(t, errText)
			tc.check(t, out)
		})
	}
}

func TestOrchRecordsAndErrors(t *testing.T) {
	t.Parallel()
	dir := filepath.Join("..", "..", "fixtures", "conformance", "071-swimlane-qwen-records")
	code, out, errText := runOrch(t, filepath.Join(dir, "input.log"), "--records", filepath.Join(dir, "host_phase_records.jsonl"))
	require.Equal(t, 0, code, errText)
	_, recs, ok := strings.Cut(out, "host_phase_records.jsonl records (per record kind; warm passes)\n")
	require.True(t, ok, out)
	assert.Regexp(t, `(?m)^  record_node +2 of 2 +277 `, recs)
	assert.Less(t, strings.Index(recs, "build_definition"), strings.Index(recs, "  args"), "orchestrator kinds first")
	assert.Less(t, strings.Index(recs, "  args"), strings.Index(recs, "host_view_close"), "then segments in enum order")

	e3 := filepath.Join("..", "..", "fixtures", "hbg-e3-spool.log")
	code, _, errText = runOrch(t, e3)
	assert.Equal(t, 1, code)
	assert.Contains(t, errText, "hbgtrace: orch: no `host-orch phase=` lines (E3 logs write none")
}
