package main

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// badCountersLog is the E2 fixture with three bad counters: round 0's
// host_orch minflt negative (line 15), its arena_h2d cpu_ns not an
// integer (line 17), and round 1's host_orch without minflt (line 35).
func badCountersLog(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../../fixtures/hbg-e2.log")
	require.NoError(t, err)
	lines := strings.Split(string(b), "\n")
	edit := func(n int, old, new string) {
		require.Contains(t, lines[n-1], old)
		lines[n-1] = strings.Replace(lines[n-1], old, new, 1)
	}
	edit(15, "minflt=22 ", "minflt=-3 ")
	edit(17, "cpu_ns=409777 ", "cpu_ns=12x ")
	edit(35, " minflt=31 ", " ")
	path := filepath.Join(t.TempDir(), "bad.log")
	require.NoError(t, os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644))
	return path
}

// TestCountersBadInput: a counter that is not an integer, negative, or
// missing on some passes is a counted warning naming file and line, in
// rounds (every format, text with --counters) and phases --accounting,
// and never a value: json null, csv empty, text "-".
func TestCountersBadInput(t *testing.T) {
	t.Parallel()
	path := badCountersLog(t)
	wantWarnings := []string{
		"warning: evidence: " + path + `:15: host_orch minflt="-3" is negative; left out`,
		"warning: evidence: " + path + `:17: arena_h2d cpu_ns="12x" is not an integer; left out`,
		"warning: evidence: " + path + ":17: arena_h2d lacks cpu_ns in 1 of 5 passes that have it; those passes have no cpu_ns total",
		"warning: evidence: " + path + ":15: host_orch lacks minflt in 2 of 5 passes that have it; those passes have no minflt total (2 times)",
		"warning: evidence: " + path + ":9: pass totals known only for minflt on 3 of 5 passes, cpu_ns on 4 of 5 passes; on the others they are missing, not 0",
	}
	stderrWarnings := func(errs string) []string {
		var out []string
		for _, l := range strings.Split(strings.TrimSpace(errs), "\n") {
			if strings.Contains(l, "evidence:") {
				out = append(out, l)
			}
		}
		return out
	}

	code, out, errs := viewsRun(t, "", "rounds", "--format", "json", path)
	require.Equal(t, 0, code, errs)
	assert.Equal(t, wantWarnings, stderrWarnings(errs))
	var doc struct {
		Evidence struct {
			Rows     []map[string]any `json:"rows"`
			Warnings []string         `json:"warnings"`
		} `json:"evidence"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	assert.Equal(t, wantWarnings, doc.Evidence.Warnings)
	rows := doc.Evidence.Rows
	require.Len(t, rows, 5)
	for _, k := range []string{"host_orch.minflt", "arena_h2d.cpu_ns", "pass.minflt", "pass.cpu_ns"} {
		v, ok := rows[0][k]
		assert.True(t, ok, k)
		assert.Nil(t, v, "round 0 %s: null, never a value", k)
	}
	assert.Nil(t, rows[1]["pass.minflt"], "round 1 lacks host_orch minflt: no pass total")
	assert.Equal(t, 22.0, rows[2]["pass.nvcsw"], "an untouched counter keeps its total")
	assert.Equal(t, 375098.0, rows[0]["args.cpu_ns"])

	code, out, _ = viewsRun(t, "", "rounds", "--format", "csv", path)
	require.Equal(t, 0, code)
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	require.NoError(t, err)
	col := func(k string) int {
		for i, h := range recs[0] {
			if h == k {
				return i
			}
		}
		t.Fatalf("no column %s", k)
		return -1
	}
	assert.Equal(t, "", recs[1][col("host_orch.minflt")])
	assert.Equal(t, "", recs[1][col("pass.minflt")])
	assert.Equal(t, "1131", recs[1][col("host_orch.tasks")])

	code, out, errs = viewsRun(t, "", "rounds", "--counters", path)
	require.Equal(t, 0, code)
	assert.Equal(t, wantWarnings, stderrWarnings(errs))
	assert.Regexp(t, `(?m)^  0      pass +- +31 +13 +22 +- +18095462$`, out)
	assert.Regexp(t, `(?m)^  0      host_orch +- +2 +1 +3 +2923965 +274477$`, out)

	code, _, errs = viewsRun(t, "", "rounds", path)
	require.Equal(t, 0, code)
	assert.NotContains(t, errs, "evidence:", "text without --counters reads no counter")

	code, out, errs = viewsRun(t, "", "phases", "--accounting", "--rounds", "5", path)
	require.Equal(t, 0, code)
	assert.Equal(t, []string{
		"warning: evidence: " + path + ":35: host_orch lacks minflt in 1 of 4 passes that have it; those passes have no minflt total",
		"warning: evidence: " + path + ":29: pass totals known only for minflt on 3 of 4 passes; on the others they are missing, not 0",
	},
		stderrWarnings(errs), "phases reads the warm passes: round 0's bad values are not among them")
	assert.Regexp(t, `(?m)^  host_orch +minflt +count +0 +27 +33 +3$`, out, "three warm passes have host_orch minflt")
	assert.Regexp(t, `(?m)^  pass +minflt +count +\S+ +\S+ +\S+  3 of 4$`, out, "the pass total says on how many warm passes it is known")
}

// TestCountersOnHarness: a log and records artifact written by the
// embedded harness (E2, counters appended): rounds --records carries the
// counters and work of every round, the harness's cut `bind phase=`
// values are warnings, not values, and the k-of-N events count the warm
// binds.
func TestCountersOnHarness(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bench := buildBench(t)
	log, recs := filepath.Join(dir, "run.log"), filepath.Join(dir, "recs")
	outb, err := exec.Command(bench, "harness", "--epoch", "e2", "--rounds", "4", "--records-dir", recs, "-o", log).CombinedOutput()
	require.NoError(t, err, "%s", outb)
	art := filepath.Join(recs, "host_phase_records.jsonl")

	code, out, errs := viewsRun(t, "", "rounds", "--format", "json", log, "--records", art)
	require.Equal(t, 0, code, errs)
	var doc struct {
		Evidence struct {
			Columns []struct{ Segment, Name, Unit, Key string } `json:"columns"`
			Rows    []map[string]any                            `json:"rows"`
			Events  []struct {
				Segment, Name, Event, Text string
				K, N                       int
			} `json:"events"`
			Warnings []string `json:"warnings"`
		} `json:"evidence"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	ev := doc.Evidence
	require.Len(t, ev.Rows, 4)
	units := map[string]string{}
	for _, c := range ev.Columns {
		units[c.Key] = c.Unit
	}
	assert.Equal(t, "ns CPU", units["host_orch.cpu_ns"])
	assert.Equal(t, "count", units["host_orch.tasks"])
	assert.Equal(t, "bytes", units["graph_upload.bytes"])
	for i, r := range ev.Rows {
		assert.Equal(t, 1131.0, r["host_orch.tasks"], "round %d", i)
		assert.Positive(t, r["graph_upload.cpu_ns"], "round %d", i)
		assert.Equal(t, i == 0, r["cold"], "round %d", i)
	}
	for _, e := range ev.Events {
		assert.LessOrEqual(t, e.N, 3, "%s: three warm binds", e.Text)
		assert.LessOrEqual(t, e.K, e.N)
	}
	require.NotEmpty(t, ev.Events)
	for _, w := range ev.Warnings {
		assert.Contains(t, w, log+":", "a warning names the log's line")
	}
	assert.Equal(t, strings.Count(errs, "warning: evidence: "), len(ev.Warnings), "stderr has the same warnings")

	code, out, _ = viewsRun(t, "", "rounds", "--counters", log, "--records", art)
	require.Equal(t, 0, code)
	assert.Regexp(t, `(?m)^  host_orch +\d of 3 +`, out)
	assert.Contains(t, out, "heap_used of host_orch higher than in the pid's previous bind on ")
}
