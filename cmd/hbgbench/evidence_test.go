package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// openEvidenceLogs writes two copies of the E2 fixture as today's runtime
// and a reviewer's patch write them: recording is record_in_graph_task,
// and host_orch's line carries an hblkhd= no list knows (4096 on base,
// 8192 on head).
func openEvidenceLogs(t *testing.T) (base, head string) {
	t.Helper()
	b, err := os.ReadFile("../../fixtures/hbg-e2.log")
	require.NoError(t, err)
	dir := t.TempDir()
	write := func(name, hblkhd string) string {
		s := strings.ReplaceAll(string(b), "host-orch phase=record_node", "host-orch phase=record_in_graph_task")
		s = regexp.MustCompile(`(?m)(bind phase=host_orch .*)$`).ReplaceAllString(s, "$1 hblkhd="+hblkhd)
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte(s), 0o644))
		return p
	}
	return write("base.log", "4096"), write("head.log", "8192")
}

// TestCompareKeepsOpenEvidence: the recording row of a log whose kind is
// record_in_graph_task, and an unknown hblkhd= attribute, are rows of
// every format of compare (once dropped silently), and --metric list
// with the logs names them.
func TestCompareKeepsOpenEvidence(t *testing.T) {
	t.Parallel()
	base, head := openEvidenceLogs(t)
	args := []string{"compare", "--base", base, "--head", head}

	code, out, errText := runCLI(args...)
	require.Equal(t, 0, code, errText)
	assert.Regexp(t, `(?m)^ orch\.record_in_graph_task +µs +base `, out)
	assert.Regexp(t, `(?m)^ attr\.host_orch\.hblkhd +count +base +\d+ +4096 `, out)
	assert.Contains(t, out, "other attributes of bind and host-orch lines")

	code, out, errText = runCLI(append(args, "--format", "markdown")...)
	require.Equal(t, 0, code, errText)
	assert.Contains(t, out, "orch.record_in_graph_task")
	assert.Contains(t, out, "attr.host_orch.hblkhd")

	code, out, errText = runCLI(append(args, "--format", "csv")...)
	require.Equal(t, 0, code, errText)
	assert.Regexp(t, `(?m)^metrics,attr\.host_orch\.hblkhd,attributes,count,`, out)
	assert.Regexp(t, `(?m)^metrics,orch\.record_in_graph_task,orchestrator,µs,`, out)
	assert.Regexp(t, `(?m)^passes,.*,attr\.host_orch\.hblkhd,4096$`, out)

	code, out, errText = runCLI(append(args, "--format", "json")...)
	require.Equal(t, 0, code, errText)
	var doc struct {
		Metrics []struct {
			Metric string `json:"name"`
			Unit   string `json:"unit"`
		} `json:"metrics"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	units := map[string]string{}
	for _, m := range doc.Metrics {
		units[m.Metric] = m.Unit
	}
	assert.Equal(t, "µs", units["orch.record_in_graph_task"], out)
	assert.Equal(t, "count", units["attr.host_orch.hblkhd"])

	code, out, errText = runCLI("compare", "--metric", "list", "--base", base, "--head", head)
	require.Equal(t, 0, code, errText)
	assert.Regexp(t, `(?m)^orch\.record_in_graph_task +µs +orchestrator$`, out)
	assert.Regexp(t, `(?m)^attr\.host_orch\.hblkhd +count +attributes$`, out)
	assert.NotContains(t, out, "orch.record_node ", "a kind the logs do not write is not listed")

	code, out, errText = runCLI("compare", "--metric", "attr.host_orch.hblkhd", "--base", base, "--head", head)
	require.Equal(t, 0, code, errText)
	assert.Contains(t, strings.SplitN(out, "\n", 2)[0], "attr.host_orch.hblkhd", "an open metric can be the primary one")
}

// TestCompareCutCounterIsMissing: the harness's E2 host_orch line ends in
// a stub of rec_cpu_ns ("rec_c"), cut by the 95-character buffer. The pass
// total of rec_cpu_ns is then missing (and a warning says on how many
// passes it is known), never the "recorder threads CPU 0.0" of the other
// segments' zeros.
func TestCompareCutCounterIsMissing(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the embedded harness")
	}
	dir := t.TempDir()
	var logs []string
	for _, n := range []string{"a.log", "b.log"} {
		p := filepath.Join(dir, n)
		code, _, errText := runCLI("harness", "--epoch", "e2", "--rounds", "4", "-o", p)
		require.Equal(t, 0, code, errText)
		logs = append(logs, p)
	}
	raw, err := os.ReadFile(logs[0])
	require.NoError(t, err)
	require.Regexp(t, `(?m)bind phase=host_orch .* cpu_ns=\d+ r[a-z_]*$`, string(raw), "the harness reproduces the cut")

	code, out, errText := runCLI("compare", "--base", logs[0], "--head", logs[1])
	require.Equal(t, 0, code, errText)
	assert.NotContains(t, out, "recorder threads CPU (rec_cpu_ns)", "no total of a cut counter")
	assert.Regexp(t, `pass totals known only for [^\n]*rec_cpu_ns on 0 of 4 passes`, out)
	assert.Contains(t, errText, "the counter rec_cpu_ns was cut")
}

// TestAbDeriveEndToEnd: --derive on an embedded campaign (the default
// arms, small) gives a derived row analysed as any other, in text, json
// and csv; report --derive adds another to the journal's; the chip.run.bind
// wall is a metric (Bind) an expression can read.
func TestAbDeriveEndToEnd(t *testing.T) {
	t.Parallel()
	j := filepath.Join(t.TempDir(), "d.jsonl")
	code, out, errText := runCLI("ab", "--rounds", "3", "--block", "3", "--journal", j, "--seed", "5",
		"--derive", "bind_minus_args=Bind - phase.args")
	require.Equal(t, 0, code, errText)
	assert.Contains(t, out, "derived metrics, --derive")
	assert.Regexp(t, `(?m)^ bind_minus_args = Bind - phase\.args +µs +base +\d+ `, out)
	assert.Regexp(t, `(?m)^ chip\.run\.bind wall +µs +base `, out)
	assert.Contains(t, out, "bind wall, chip.run.bind (per pass, µs)")

	code, out, errText = runCLI("report", j, "--format", "json", "--derive", "per_sub=work.graph_upload.bytes / work.graph_upload.submissions")
	require.Equal(t, 0, code, errText)
	var doc struct {
		Metrics []struct {
			Name    string `json:"name"`
			Family  string `json:"family"`
			Unit    string `json:"unit"`
			Verdict string `json:"verdict"`
		} `json:"metrics"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	got := map[string]string{}
	for _, m := range doc.Metrics {
		if m.Family == "derived" {
			got[m.Name] = m.Unit
			assert.NotEmpty(t, m.Verdict, m.Name)
		}
	}
	assert.Equal(t, map[string]string{"bind_minus_args": "µs", "per_sub": "bytes"}, got, "the journal's and the report's derivations")

	code, out, errText = runCLI("report", j, "--format", "csv")
	require.Equal(t, 0, code, errText)
	assert.Regexp(t, `(?m)^metrics,bind_minus_args,derived,µs,`, out)

	code, _, errText = runCLI("report", j, "--derive", "x=Bind - (phase.args")
	assert.Equal(t, 2, code)
	assert.Contains(t, errText, `--derive "x=Bind - (phase.args": at column 21: missing ')'`)
}
