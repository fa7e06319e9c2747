package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hbgkit/hbgkit/abtest/campaign"
	"github.com/hbgkit/hbgkit/abtest/journal"
	"github.com/hbgkit/hbgkit/internal/gittest"
)

// assertCheckFailedFirst reports the campaign of journal j in every
// format and checks that each says first that want's check failed.
func assertCheckFailedFirst(t *testing.T, j, want string) {
	t.Helper()
	for _, f := range []string{"text", "markdown", "json", "csv", "benchfmt"} {
		code, out, errText := runCLI("report", j, "--format", f)
		require.Equal(t, 0, code, errText)
		lines := strings.SplitN(out, "\n", 3)
		require.Len(t, lines, 3, f)
		first := lines[0]
		switch f {
		case "json", "csv": // the line after "{" and after the header row
			first = lines[1]
		}
		assert.Contains(t, first, want, "%s: the first line says so", f)
		assert.Regexp(t, `CHECK FAILED: |^check-failed: |^  "check_failed": `, first, f)
	}
}

// TestAbFailedCheckWithholdsTheVerdict: on the embedded harness, a check
// that exits 1 for head (and passes for base) leaves head without a
// verdict: the campaign exits 5, every report says so on its first line,
// and the journal holds both checks, run once each before the blocks.
// A check that passes changes nothing.
func TestAbFailedCheckWithholdsTheVerdict(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	j := filepath.Join(dir, "c.jsonl")
	check := `echo "checking $HBGBENCH_ARM in $(pwd)"; test "$HBGBENCH_ARM" != head`
	code, out, errText := runCLI("ab", "--base", "embedded:delay_us=0", "--head", "embedded:delay_us=2000",
		"--rounds", "3", "--block", "3", "--warmup", "0", "--seed", "3", "--journal", j, "--check", check)
	require.Equal(t, exitCheckFailed, code, errText)
	first, _, _ := strings.Cut(out, "\n")
	assert.True(t, strings.HasPrefix(first, "CHECK FAILED: head's check "), first)
	assert.Contains(t, first, "ended with exit 1")
	assert.Contains(t, first, "checking head in "+campaign.BlockDir(j))
	assert.Contains(t, out, "the correctness check failed")
	assert.NotContains(t, out, "SLOWER", "a 2000 µs delay is no verdict when the check failed")
	assert.Contains(t, errText, "hbgbench: correctness check failed: head's check")
	assert.Contains(t, errText, "the correctness check of head failed (exit 1): head gets no verdict")

	jr, err := journal.ReadJournal(j)
	require.NoError(t, err)
	require.Len(t, jr.Checks, 2)
	assert.True(t, jr.Checks[0].OK())
	assert.Equal(t, "base", jr.Checks[0].Arm)
	assert.Equal(t, 1, jr.Checks[1].Exit)
	assert.Equal(t, []string{"checking head in " + campaign.BlockDir(j)}, jr.Checks[1].Tail)
	assertCheckFailedFirst(t, j, "head's check")

	// The same campaign with a check that passes: a verdict, exit 0.
	j2 := filepath.Join(dir, "ok.jsonl")
	code, out, errText = runCLI("ab", "--base", "embedded:delay_us=0", "--head", "embedded:delay_us=2000",
		"--rounds", "3", "--block", "3", "--warmup", "0", "--seed", "3", "--journal", j2, "--check", "true")
	require.Equal(t, 0, code, errText)
	assert.NotContains(t, out, "CHECK FAILED")
	jr, err = journal.ReadJournal(j2)
	require.NoError(t, err)
	assert.Len(t, jr.Checks, 2)
}

// TestAbCommandArmCheckRunsInItsDirectory: command arms' check runs in
// --dir with the arm's --env; a script there that fails for head gives
// exit 5 and no verdict on a campaign of real processes.
func TestAbCommandArmCheckRunsInItsDirectory(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	script := "#!/bin/sh\necho \"golden comparison of $HBGBENCH_ARM with MODE=$MODE\"\n[ \"$HBGBENCH_ARM\" = base ] || { echo 'output 3 differs from golden'; exit 1; }\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "check.sh"), []byte(script), 0o755))
	j := filepath.Join(dir, "c.jsonl")
	code, out, errText := abCmd(t, j, catArm(t), catArm(t), "--dir", dir, "--check", "./check.sh", "--env", "MODE=x")
	require.Equal(t, exitCheckFailed, code, errText)
	assert.True(t, strings.HasPrefix(out, "CHECK FAILED: head's check `./check.sh` ended with exit 1"), out)
	assert.Contains(t, out, "output 3 differs from golden")
	jr, err := journal.ReadJournal(j)
	require.NoError(t, err)
	require.Len(t, jr.Checks, 2)
	assert.Equal(t, []string{"golden comparison of base with MODE=x"}, jr.Checks[0].Tail)
	assert.Equal(t, dir, jr.Checks[1].Dir)
}

// TestAbKilledDuringACheckResumes: hbgbench killed (SIGKILL) while head's
// check runs keeps base's completed check and runs head's again on
// --resume; an extension runs both again, before its new rounds.
func TestAbKilledDuringACheckResumes(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	j := filepath.Join(dir, "c.jsonl")
	count := filepath.Join(dir, "count")
	// Each run of a check appends its arm to count; head's first run
	// hangs until it is killed.
	check := `echo "$HBGBENCH_ARM" >> ` + count + `; if [ "$HBGBENCH_ARM" = head ] && [ ! -e ` + count + `.hung ]; then touch ` + count + `.hung; exec sleep 60; fi`
	cmd := exec.Command(os.Args[0], "ab", "--journal", j, "--base-cmd", catArm(t), "--head-cmd", catArm(t),
		"--rounds", "3", "--block", "3", "--warmup", "0", "--seed", "3", "--check", check)
	cmd.Env = append(os.Environ(), mainEnv+"=1")
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _, _ = cmd.Process.Wait() })
	deadline := time.Now().Add(60 * time.Second)
	for {
		if _, err := os.Stat(count + ".hung"); err == nil {
			break
		}
		require.True(t, time.Now().Before(deadline), "head's check never started")
		time.Sleep(20 * time.Millisecond)
	}
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	_, _ = cmd.Process.Wait()

	jr, err := journal.ReadJournal(j)
	require.NoError(t, err)
	require.Len(t, jr.Checks, 1, "base's check completed and is journaled; head's was killed")
	assert.Equal(t, "base", jr.Checks[0].Arm)

	code, out, errText := runCLI("ab", "--resume", "--journal", j)
	require.Equal(t, 0, code, errText)
	assert.NotContains(t, out, "CHECK FAILED")
	runs, err := os.ReadFile(count)
	require.NoError(t, err)
	assert.Equal(t, "base\nhead\nhead\n", string(runs), "base's check is not run again; head's is")

	code, _, errText = runCLI("ab", "--resume", "--journal", j, "--rounds", "4")
	require.Equal(t, 0, code, errText)
	runs, err = os.ReadFile(count)
	require.NoError(t, err)
	assert.Equal(t, "base\nhead\nhead\nbase\nhead\n", string(runs), "an extension checks both arms again")
	jr, err = journal.ReadJournal(j)
	require.NoError(t, err)
	require.Len(t, jr.Checks, 4)
	assert.Equal(t, 4, jr.Checks[3].Rounds)

	// The journal's check is the campaign's: another one is refused.
	code, _, errText = runCLI("ab", "--resume", "--journal", j, "--check", "true")
	assert.Equal(t, 1, code)
	assert.Contains(t, errText, "--check: journal echo")
}

// TestRecipeCheckRunsInTheWorktrees: hbgbench.toml's check runs in each
// git arm's worktree (run.sh is there) with the arm's ref as
// HBGBENCH_SPEC; pr's fails, so the campaign exits 5.
func TestRecipeCheckRunsInTheWorktrees(t *testing.T) {
	t.Parallel()
	repo, _, _ := testRepo(t)
	recipe := "run = \"./run.sh {rounds} {out}\"\nrounds = 3\nblock = 3\nwarmup = 0\ncheck = \"test -x ./run.sh && test \\\"$HBGBENCH_SPEC\\\" = main\"\n"
	require.NoError(t, os.WriteFile(filepath.Join(repo, campaign.RecipeFile), []byte(recipe), 0o644))
	gittest.Git(t, repo, "add", campaign.RecipeFile)
	gittest.Git(t, repo, "commit", "-q", "-m", "recipe with a check")
	j := filepath.Join(t.TempDir(), "j.jsonl")
	code, out, errText := runCLI("ab", "--repo", repo, "--base", "main", "--head", "pr", "--journal", j, "--cache", t.TempDir())
	require.Equal(t, exitCheckFailed, code, errText)
	assert.True(t, strings.HasPrefix(out, "CHECK FAILED: head's check `test -x ./run.sh"), out)
	jr, err := journal.ReadJournal(j)
	require.NoError(t, err)
	require.Len(t, jr.Checks, 2)
	assert.True(t, jr.Checks[0].OK(), "main's check passes in its worktree")
	assert.NotEqual(t, repo, jr.Checks[0].Dir, "a worktree, not the user's checkout")
	assert.Equal(t, 1, jr.Checks[1].Exit)
	assert.Contains(t, jr.Header.RecipeSet, `check = test -x ./run.sh && test "$HBGBENCH_SPEC" = main`)
}

// --check-arm gives one arm its own check: the head's fails, the base's
// passes, and only the head is named; an arm no one has is refused.
func TestAbCheckArm(t *testing.T) {
	t.Parallel()
	j := filepath.Join(t.TempDir(), "j.jsonl")
	cat := catArm(t)
	code, out, errText := runCLI("ab", "--journal", j, "--base-cmd", cat, "--head-cmd", cat, "--rounds", "3", "--block", "3", "--warmup", "0",
		"--check-arm", "base=true", "--check-arm", "head=exit 1")
	assert.Equal(t, 5, code, errText)
	assert.True(t, strings.HasPrefix(out, "CHECK FAILED: head's check `exit 1` ended with exit 1"), out)
	assert.NotContains(t, out, "base's check")

	code, _, errText = runCLI("ab", "--journal", filepath.Join(t.TempDir(), "k.jsonl"), "--base-cmd", cat, "--head-cmd", cat, "--rounds", "3",
		"--check-arm", "other=true")
	assert.NotEqual(t, 0, code)
	assert.Contains(t, errText, "--check-arm other: no arm is named other")
}
