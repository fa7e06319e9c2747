package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hbgkit/hbgkit/internal/gittest"
)

// reportIn runs `hbgbench report args...` as a real process (this test
// binary as main) in dir, and returns its stdout.
func reportIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"report"}, args...)...)
	cmd.Env = append(os.Environ(), mainEnv+"=1")
	cmd.Dir = dir
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	require.NoError(t, cmd.Run(), errb.String())
	return out.String()
}

// TestReportSaysARefMoved: a campaign measured pr at one commit; pr then
// gets a new commit. `hbgbench report` inside the repository says pr is
// now another commit than the one measured, in text and json; before the
// commit, or outside the repository, it says nothing of it.
func TestReportSaysARefMoved(t *testing.T) {
	t.Parallel()
	repo, _, c2 := testRepo(t)
	j := filepath.Join(t.TempDir(), "j.jsonl")
	code, _, errText := runCLI("ab", "--repo", repo, "--base", "main", "--head", "pr", "--run", "./run.sh {rounds} {out}",
		"--rounds", "3", "--block", "3", "--warmup", "0", "--journal", j, "--cache", t.TempDir(), "--seed", "4")
	require.Equal(t, 0, code, errText)
	assert.NotContains(t, reportIn(t, repo, j), "is now")

	require.NoError(t, os.WriteFile(filepath.Join(repo, "README"), []byte("pushed again\n"), 0o644))
	gittest.Git(t, repo, "commit", "-q", "-am", "c3")
	c3 := gittest.Git(t, repo, "rev-parse", "HEAD")
	want := "pr (head) is now " + c3[:7] + "…, measured " + c2[:7] + "…"
	assert.Contains(t, reportIn(t, repo, j), "WARNING: "+want)
	assert.Contains(t, reportIn(t, filepath.Join(repo), j, "--format", "json"), want)
	assert.NotContains(t, reportIn(t, t.TempDir(), j), "is now", "outside the repository nothing is known of its refs")
}
