package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hbgkit/hbgkit/abtest/campaign"
	"github.com/hbgkit/hbgkit/abtest/journal"
	"github.com/hbgkit/hbgkit/abtest/journal/journaltest"
)

// writeHarnessLogs runs `hbgbench harness` once per name into dir, with
// args, and returns the logs' paths.
func writeHarnessLogs(t *testing.T, dir string, args []string, names ...string) []string {
	t.Helper()
	var out []string
	for _, n := range names {
		p := filepath.Join(dir, n)
		code, _, errText := runCLI(append(append([]string{"harness"}, args...), "-o", p)...)
		require.Equal(t, 0, code, errText)
		out = append(out, p)
	}
	return out
}

// TestCompareSeesOneDemotedPass: one warm pass of one base log edited
// from tasks=129 to tasks=465 leaves every median at 129; compare names
// the pass all the same, and --expect-same-work exits 3 on it.
func TestCompareSeesOneDemotedPass(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	args := []string{"--workload", "dsv4-blocks7", "--rounds", "5"}
	base := writeHarnessLogs(t, dir, args, "a1.log", "a2.log")
	head := writeHarnessLogs(t, dir, args, "b1.log", "b2.log")
	cmp := append(append(append([]string{"compare", "--base"}, base...), "--head"), head...)

	code, out, errText := runCLI(append(cmp, "--expect-same-work")...)
	require.Equal(t, 0, code, errText)
	require.NotContains(t, out, "DIFFERENT WORK", "the harness does the same work on every pass")

	// The fourth pass of a2.log (the second warm one) is demoted.
	b, err := os.ReadFile(base[1])
	require.NoError(t, err)
	lines := strings.SplitAfter(string(b), "\n")
	seen := 0
	for i, l := range lines {
		if strings.Contains(l, "bind phase=host_orch ") && strings.Contains(l, " tasks=129 ") {
			if seen++; seen == 4 {
				lines[i] = strings.Replace(l, " tasks=129 ", " tasks=465 ", 1)
			}
		}
	}
	require.Equal(t, 5, seen)
	require.NoError(t, os.WriteFile(base[1], []byte(strings.Join(lines, "")), 0o644))

	want := "work.host_orch.tasks: base 129 on 5 of 6 passes, 465 on 1 (pass 4 of log 2 (a2.log)); head 129 on 6 of 6 passes"
	code, out, errText = runCLI(append(cmp, "--expect-same-work")...)
	require.Equal(t, exitFailOn, code, errText)
	first, _, _ := strings.Cut(out, "\n")
	assert.Contains(t, first, "DIFFERENT WORK: not every warm pass did the same work")
	assert.Contains(t, first, want)
	assert.Contains(t, errText, "hbgbench: --expect-same-work: DIFFERENT WORK")

	// Without the flag it is said, and the run succeeds; json has it too.
	code, out, errText = runCLI(append(cmp, "--format", "json")...)
	require.Equal(t, 0, code, errText)
	var doc struct {
		WorkDiffs []struct {
			Metric string `json:"metric"`
			Text   string `json:"text"`
		} `json:"work_differs"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	require.Len(t, doc.WorkDiffs, 1)
	assert.Equal(t, want, doc.WorkDiffs[0].Text)
}

// TestCompareCallsADeterministicCount: 1131 against 129 host tasks on
// every pass of two logs per arm is fewer, not inconclusive, and the row
// says the count decided it.
func TestCompareCallsADeterministicCount(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	base := writeHarnessLogs(t, dir, []string{"--workload", "dsv4-pair", "--rounds", "4"}, "a1.log", "a2.log")
	head := writeHarnessLogs(t, dir, []string{"--workload", "dsv4-blocks7", "--rounds", "4"}, "b1.log", "b2.log")
	args := append(append(append([]string{"compare", "--format", "json", "--base"}, base...), "--head"), head...)
	code, out, errText := runCLI(args...)
	require.Equal(t, 0, code, errText)
	var doc struct {
		Metrics []struct {
			Name       string `json:"name"`
			Verdict    string `json:"verdict"`
			Determined bool   `json:"determined"`
		} `json:"metrics"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	found := false
	for _, m := range doc.Metrics {
		if m.Name == "work.host_orch.tasks" {
			found = true
			assert.Equal(t, "fewer", m.Verdict)
			assert.True(t, m.Determined)
		}
	}
	require.True(t, found, out)
	code, _, errText = runCLI(append(args, "--expect-same-work")...)
	assert.Equal(t, exitFailOn, code, errText)
}

// TestAbSeesOneDemotedPass runs abRun over a fake session that journaled
// a synthetic campaign in which one warm pass of base did 465 host tasks
// where every other pass did 129: the report's first line names it, and
// --expect-same-work exits 3 on it.
func TestAbSeesOneDemotedPass(t *testing.T) {
	t.Parallel()
	for _, expect := range []bool{false, true} {
		j := journaltest.Twin(t, 1, func(round, arm, _, pass int, v map[string]float64) {
			v["work.host_orch.tasks"] = 129
			if round == 5 && arm == journal.Base && pass == 2 {
				v["work.host_orch.tasks"] = 465
			}
		})
		s := &fakeSession{j: j}
		var out, errb bytes.Buffer
		opts := newAbOptions([]string{"hbgbench", "ab"})
		opts.Out, opts.Err, opts.Format, opts.ExpectSameWork = &out, &errb, "text", expect
		opts.Context = func() (context.Context, context.CancelFunc) { return context.WithCancel(context.Background()) }
		opts.Open = func(context.Context, campaign.Options) (Session, error) { return s, nil }
		err := abRun(opts)
		first, _, _ := strings.Cut(out.String(), "\n")
		assert.Equal(t, "DIFFERENT WORK: not every warm pass did the same work, so the verdict below compares different jobs: "+
			"work.host_orch.tasks: base 129 on 23 of 24 passes, 465 on 1 (pass 3 of round 5); head 129 on 24 of 24 passes", first)
		if !expect {
			require.NoError(t, err)
			continue
		}
		require.Error(t, err)
		assert.Equal(t, (&exitError{code: exitFailOn}).Error(), err.Error())
		assert.Contains(t, errb.String(), "hbgbench: --expect-same-work: DIFFERENT WORK: not every warm pass")
	}
}

// TestCompareWarnsOfASwitchInTheStamp: logs whose [stamp] says they were
// taken with --skip-golden are warned about in every format; harness logs
// (no switch in their stamps) are not.
func TestCompareWarnsOfASwitchInTheStamp(t *testing.T) {
	t.Parallel()
	e1 := fixtureLog(t, "hbg-e1.log")
	plain := writeHarnessLogs(t, t.TempDir(), []string{"--rounds", "4"}, "a.log")[0]
	for _, f := range []string{"text", "markdown", "json", "csv", "benchfmt"} {
		code, out, errText := runCLI("compare", "--base", e1, "--head", e1, "--format", f)
		require.Equal(t, 0, code, errText)
		assert.Contains(t, out, "--skip-golden", f)
		code, out, errText = runCLI("compare", "--base", plain, "--head", plain, "--format", f)
		require.Equal(t, 0, code, errText)
		assert.NotContains(t, out, "correctness", f)
	}
}
