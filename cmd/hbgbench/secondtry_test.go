package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hbgkit/hbgkit/abtest/metric"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAbLongLineIsTheArms: an arm that prints a line longer than the
// 64 MiB a block log's line may hold fails its block as the arm's fault,
// like a failing command: the error names the kept log, the line and the
// limit, and says what to change; it is never "this host's failure", which
// --resume would only repeat.
func TestAbLongLineIsTheArms(t *testing.T) {
	t.Chdir(t.TempDir())
	require.NoError(t, os.WriteFile("run.sh", []byte(outScript("0")), 0o755))
	// 65 MiB of x on one line, then an ordinary block.
	long := "head -c 68157440 /dev/zero | tr '\\0' x; echo; ./run.sh {rounds} {out}"
	code, _, errText := runCLI("ab", "--base-cmd", long, "--head-cmd", "./run.sh {rounds} {out}",
		"--rounds", "3", "--block", "3", "--warmup", "1", "--retries", "0")
	require.Equal(t, 1, code, errText)
	assert.Less(t, len(errText), 8<<10, "the long line is not echoed: %.2000s", errText)
	assert.Regexp(t, `w01-base-t1\.log\.gz: line \d+ is longer than 64 MiB, the longest line hbgbench reads`, errText)
	assert.Contains(t, errText, "the arm's output is the cause: make the arm print shorter lines")
	assert.Contains(t, errText, "warm-up block 1 of base failed")
	assert.NotContains(t, errText, "this host's failure")
	assert.NotContains(t, errText, "--resume runs the round again")

	// Resumed unchanged, the campaign fails the same way, and says so.
	code, _, errText = runCLI("ab", "--resume")
	require.Equal(t, 1, code, errText)
	assert.Regexp(t, `line \d+ is longer than 64 MiB`, errText)
	assert.Contains(t, errText, "the same error stopped this campaign before it was resumed (its log ")
	assert.Contains(t, errText, "--resume repeats it until what it names is changed")
}

// lineCount is the number of lines of a file, 0 when it does not exist.
func lineCount(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return 0
	}
	require.NoError(t, err)
	return strings.Count(string(b), "\n")
}

// TestAbResumeFinishedGitCampaign: --resume of a finished campaign of two
// commits prints its report again and neither checks out (a post-checkout
// hook counts the checkouts) nor builds (the build appends to a file).
// Given the same arms again, --resume is accepted, and a --rounds below
// the journal's is refused as a shrink.
func TestAbResumeFinishedGitCampaign(t *testing.T) {
	t.Parallel()
	repo, _, _ := testRepo(t)
	tmp := t.TempDir()
	builds, checkouts := filepath.Join(tmp, "builds"), filepath.Join(tmp, "checkouts")
	hook := filepath.Join(repo, ".git", "hooks", "post-checkout")
	require.NoError(t, os.WriteFile(hook, []byte("#!/bin/sh\necho checkout >> "+checkouts+"\n"), 0o755))
	build := "echo built >> " + builds
	j := filepath.Join(tmp, "c.jsonl")
	args := []string{"ab", "--repo", repo, "--base", "main", "--head", "pr", "--build", build,
		"--run", "./run.sh {rounds} {out}", "--journal", j, "--cache", filepath.Join(tmp, "cache")}
	code, _, errText := runCLI(append(args, "--rounds", "3", "--block", "3", "--warmup", "0", "--seed", "4")...)
	require.Equal(t, 0, code, errText)
	require.Equal(t, 2, lineCount(t, builds), "one build per commit")
	nCheckouts := lineCount(t, checkouts)
	require.NotZero(t, nCheckouts, "the hook counts checkouts")

	code, out, errText := runCLI("ab", "--resume", "--journal", j)
	require.Equal(t, 0, code, errText)
	assert.Contains(t, errText, "finished: nothing to check out, build or run")
	assert.Contains(t, out, "ControlPlane")
	assert.Equal(t, 2, lineCount(t, builds), "a finished campaign is not built again")
	assert.Equal(t, nCheckouts, lineCount(t, checkouts), "a finished campaign is not checked out again")

	// The same arms again, as the first command line gave them.
	code, _, errText = runCLI(append(args, "--resume")...)
	require.Equal(t, 0, code, errText)
	assert.Equal(t, 2, lineCount(t, builds))

	code, _, errText = runCLI(append(args, "--resume", "--rounds", "2")...)
	assert.Equal(t, exitUsage, code, errText)
	assert.Contains(t, errText, "--resume --rounds 2: the campaign has 3 rounds, and a campaign is never shrunk")
	assert.NotContains(t, errText, "another campaign")
}

// TestAbIgnoredLogIsNamed: a block that writes its log into {out} as
// run.log (not host.*.log) fails as a block with no passes, and the error
// names the file that was not read and the name to give it.
func TestAbIgnoredLogIsNamed(t *testing.T) {
	t.Chdir(t.TempDir())
	script := strings.Replace(outScript("0"), `$2/host.run.log`, `$2/run.log`, 1)
	require.NotEqual(t, outScript("0"), script)
	require.NoError(t, os.WriteFile("run.sh", []byte(script), 0o755))
	code, _, errText := runCLI("ab", "--base-cmd", "./run.sh {rounds} {out}", "--head-cmd", "./run.sh {rounds} {out}",
		"--rounds", "3", "--block", "3", "--warmup", "1", "--retries", "0")
	require.Equal(t, 1, code, errText)
	assert.Regexp(t, `has no passes \(no chip.run span and no bind phase= line\); \{out\} holds \S+/w01-base-t1/run\.log, which is not read: `+
		`hbgbench reads the block's output and \{out\}/host\.\*\.log, so name it host\.NAME\.log`, errText)
}

// TestAbResumeSameArmsWithRecipe: a campaign whose arms took their build,
// run and [env] from the repository's hbgbench.toml is resumed with its
// first command line again (the same --base and --head, which alone do
// not say the recipe's settings): accepted, not refused as another
// campaign, and nothing is built again.
func TestAbResumeSameArmsWithRecipe(t *testing.T) {
	t.Parallel()
	repo, _, _ := testRepo(t)
	tmp := t.TempDir()
	builds := filepath.Join(tmp, "builds")
	recipe := "build = \"echo built >> " + builds + "\"\nrun = \"./run.sh {rounds} {out}\"\nrounds = 3\nblock = 3\nwarmup = 0\n\n[env]\nSIMPLER_LOG_LEVEL = \"TIMING\"\n"
	commitRecipe(t, repo, recipe)
	j := filepath.Join(tmp, "j.jsonl")
	args := []string{"ab", "--repo", repo, "--base", "main", "--head", "pr", "--journal", j, "--cache", filepath.Join(tmp, "cache")}
	code, _, errText := runCLI(args...)
	require.Equal(t, 0, code, errText)
	require.Equal(t, 2, lineCount(t, builds))

	code, out, errText := runCLI(append(args, "--resume")...)
	require.Equal(t, 0, code, errText)
	assert.NotContains(t, errText, "another campaign")
	assert.Contains(t, out, "ControlPlane")
	assert.Equal(t, 2, lineCount(t, builds))

	// Another commit is another campaign, named by its commit.
	other := []string{"ab", "--repo", repo, "--base", "main", "--head", "main", "--journal", j, "--resume"}
	code, _, errText = runCLI(other...)
	assert.Equal(t, 1, code, errText)
	assert.Regexp(t, `is a journal of another campaign:\n  arms: journal main \(\w{12}\) vs pr \(\w{12}\), given main \(\w{12}\) vs main \(\w{12}\)`, errText)
}

// TestAbResumeNamedArmsInAnotherOrder: named arms are matched by name on
// --resume, in a campaign of any number of arms, with the recipe's build
// and run counting only when given again: the same three git arms given
// in another order with the same base are the same campaign (nothing is
// built again); without --baseline the first given is another base,
// refused as that, naming the journal's.
func TestAbResumeNamedArmsInAnotherOrder(t *testing.T) {
	t.Parallel()
	repo, _, c2 := testRepo(t)
	tmp := t.TempDir()
	builds := filepath.Join(tmp, "builds")
	recipe := "build = \"echo built >> " + builds + "\"\nrun = \"./run.sh {rounds} {out}\"\nrounds = 3\nblock = 3\nwarmup = 0\n"
	commitRecipe(t, repo, recipe)
	j := filepath.Join(tmp, "j.jsonl")
	common := []string{"ab", "--repo", repo, "--journal", j, "--cache", filepath.Join(tmp, "cache")}
	code, _, errText := runCLI(append(common, "--arm", "m=main", "--arm", "p=pr", "--arm", "o="+c2)...)
	require.Equal(t, 0, code, errText)
	require.Equal(t, 3, lineCount(t, builds))

	code, out, errText := runCLI(append(common, "--resume", "--arm", "o="+c2, "--arm", "p=pr", "--arm", "m=main", "--baseline", "m")...)
	require.Equal(t, 0, code, errText)
	assert.NotContains(t, errText, "another campaign")
	assert.Contains(t, out, "ControlPlane")
	assert.Equal(t, 3, lineCount(t, builds))

	code, _, errText = runCLI(append(common, "--resume", "--arm", "o="+c2, "--arm", "p=pr", "--arm", "m=main")...)
	assert.Equal(t, 1, code, errText)
	assert.Contains(t, errText, "base: the journal's is m, given o: a campaign's base arm is set when it starts (give --baseline m")
}

// TestAbTooManyPassesIsTheArms: a block log of more passes than a block
// log may hold (metric.MaxBlockLogPasses, lowered here from its 250,000)
// fails its block as the arm's fault, as a line past 64 MiB does, naming
// the kept log, the line and the bound; before, the bound's error stopped
// the campaign as "reading its log … --resume runs the round again", which
// a resume only repeated. Not parallel: it lowers a package bound.
func TestAbTooManyPassesIsTheArms(t *testing.T) {
	defer func(n int) { metric.MaxBlockLogPasses = n }(metric.MaxBlockLogPasses)
	metric.MaxBlockLogPasses = 50
	t.Chdir(t.TempDir())
	require.NoError(t, os.WriteFile("run.sh", []byte(outScript("0")), 0o755))
	// 60 invocations of one span each, then an ordinary block.
	many := `awk 'BEGIN { for (i = 1; i <= 60; i++) printf "[STRACE] v=1 pid=9 tid=9 inv=%d hid=abc depth=0 name=chip.run ts=%d dur=5\n", i, 10 * i }'; ./run.sh {rounds} {out}`
	code, _, errText := runCLI("ab", "--base-cmd", many, "--head-cmd", "./run.sh {rounds} {out}",
		"--rounds", "3", "--block", "3", "--warmup", "1", "--retries", "0")
	require.Equal(t, 1, code, errText)
	assert.Regexp(t, `w01-base-t1\.log\.gz: line \d+: more than 50 passes \(invocations and bind passes\), the most hbgbench holds of a block's log`, errText)
	assert.Contains(t, errText, "the arm's output is the cause")
	assert.NotContains(t, errText, "this host's failure")
	assert.NotContains(t, errText, "--resume runs the round again")
}
