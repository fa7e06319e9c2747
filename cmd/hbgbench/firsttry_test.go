package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hbgkit/hbgkit/abtest/campaign"
	"github.com/hbgkit/hbgkit/abtest/journal"
	"github.com/hbgkit/hbgkit/internal/gittest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// outScript is a run.sh as simpler's cases are driven: `run.sh ROUNDS OUT`
// writes the runtime's log into OUT (here as OUT/host.run.log, which a
// campaign reads beside the block's output), with the given busy delay.
func outScript(delayUS string) string {
	return "#!/bin/sh\nexec env " + mainEnv + "=1 \"$HBGBENCH_TEST_BIN\" harness --mirror retained --delay-us " +
		delayUS + " --rounds \"$1\" -o \"$2/host.run.log\"\n"
}

// outRepo is testRepo with run.sh scripts that write into their OUT
// argument, committed on both branches; the checkout is clean.
func outRepo(t *testing.T) string {
	t.Helper()
	repo, _, _ := testRepo(t)
	write := func(body string) {
		require.NoError(t, os.WriteFile(filepath.Join(repo, "run.sh"), []byte(body), 0o755))
	}
	write(outScript(headDelayUS))
	gittest.Git(t, repo, "commit", "-q", "-am", "pr writes into OUT")
	gittest.Git(t, repo, "checkout", "-q", "main")
	write(outScript("0"))
	gittest.Git(t, repo, "commit", "-q", "-am", "main writes into OUT")
	gittest.Git(t, repo, "checkout", "-q", "pr")
	return repo
}

// campaignHome returns the one journal a campaign left in dir's
// .hbgbench, and checks the lock file is gone.
func campaignHome(t *testing.T, dir string) string {
	t.Helper()
	js, err := filepath.Glob(filepath.Join(dir, campaign.HomeDir, "hbgbench-*.jsonl"))
	require.NoError(t, err)
	require.Len(t, js, 1, "one journal in %s", campaign.HomeDir)
	_, err = os.Stat(journal.LockPath(js[0]))
	assert.True(t, os.IsNotExist(err), "the journal's lock file is removed when the campaign ends")
	return js[0]
}

// TestAbFirstTryInsideRepo is the README's first real use: from inside a
// repository (a subdirectory, even), the default journal, and a run.sh
// that writes its log into {out}. The campaign reaches its verdict and
// git status is clean afterwards.
func TestAbFirstTryInsideRepo(t *testing.T) {
	repo := outRepo(t)
	sub := filepath.Join(repo, "docs")
	require.NoError(t, os.Mkdir(sub, 0o755))
	t.Chdir(sub)
	cache := t.TempDir()
	code, out, errText := runCLI("ab", "--base", "main", "--head", "pr", "--run", "./run.sh {rounds} {out}",
		"--rounds", "8", "--block", "5", "--cache", cache, "--seed", "4")
	require.Equal(t, 0, code, errText)
	assert.Contains(t, out, "SLOWER: ControlPlane")
	j := campaignHome(t, repo)
	assert.Contains(t, errText, "journal "+j, "the start line names the journal to --resume")
	assert.Empty(t, gittest.Git(t, repo, "status", "--porcelain", "--untracked-files=all"), "the campaign's files show in git status")
	assert.NotContains(t, errText, "uncommitted changes")

	// Block logs are kept compressed, and nothing the campaign does not
	// read is kept.
	var logs, plain []string
	require.NoError(t, filepath.Walk(strings.TrimSuffix(j, ".jsonl")+".d", func(p string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		switch {
		case strings.HasSuffix(p, ".gz"):
			logs = append(logs, p)
		case !info.IsDir():
			plain = append(plain, p)
		}
		return nil
	}))
	assert.NotEmpty(t, logs)
	assert.Empty(t, plain, "files kept uncompressed")

	// A second campaign from the repository root: no warning about the
	// first one's files, and report with no argument reads the newest.
	t.Chdir(repo)
	code, rep, errText := runCLI("report", "--format", "markdown")
	require.Equal(t, 0, code, errText)
	assert.Contains(t, rep, "SLOWER: ControlPlane")
}

// TestAbFirstTryRecipe: the same from hbgbench.toml, with the README's
// `cd {out} && ...` recipe shape: every block finds its log in {out}. (A
// verdict is TestAbFirstTryInsideRepo's; three rounds suffice here.)
func TestAbFirstTryRecipe(t *testing.T) {
	repo := outRepo(t)
	recipe := "run = \"cd {out} && {worktree}/run.sh {rounds} .\"\nrounds = 3\nblock = 4\n"
	for _, br := range []string{"main", "pr"} {
		gittest.Git(t, repo, "checkout", "-q", br)
		commitRecipe(t, repo, recipe)
	}
	t.Chdir(repo)
	code, out, errText := runCLI("ab", "--base", "main", "--head", "pr", "--cache", t.TempDir(), "--seed", "5")
	require.Equal(t, 0, code, errText)
	assert.Contains(t, out, "ControlPlane *")
	j := campaignHome(t, repo)
	assert.Equal(t, map[int]int{1: 1, 2: 1, 3: 1}, roundsOK(t, j))
	assertEveryBlockRead(t, j)
	assert.Empty(t, gittest.Git(t, repo, "status", "--porcelain", "--untracked-files=all"))
}

// assertEveryBlockRead checks that every block of journal j succeeded
// with passes read from its log.
func assertEveryBlockRead(t *testing.T, j string) {
	t.Helper()
	jr, err := journal.ReadJournal(j)
	require.NoError(t, err)
	require.NotEmpty(t, jr.Blocks)
	for _, b := range jr.Blocks {
		assert.Empty(t, b.Error)
		assert.NotEmpty(t, b.Passes, "block %d", b.Seq)
	}
}

// TestAbFirstTryRepoFromOutside: --repo given from another directory, a
// relative --journal: the journal lands where the user named it, relative
// to where hbgbench started.
func TestAbFirstTryRepoFromOutside(t *testing.T) {
	repo := outRepo(t)
	here := t.TempDir()
	t.Chdir(here)
	code, out, errText := runCLI("ab", "--repo", repo, "--base", "main", "--head", "pr", "--run", "./run.sh {rounds} {out}",
		"--rounds", "3", "--block", "4", "--cache", t.TempDir(), "--seed", "6", "--journal", "runs/c.jsonl")
	require.Equal(t, 0, code, errText)
	assert.Contains(t, out, "ControlPlane *")
	j := filepath.Join(here, "runs", "c.jsonl")
	assert.Equal(t, map[int]int{1: 1, 2: 1, 3: 1}, roundsOK(t, j))
	assertEveryBlockRead(t, j)
	assert.Empty(t, gittest.Git(t, repo, "status", "--porcelain", "--untracked-files=all"))
}

// TestAbCommandArmDir: command arms with a relative --dir and a command
// that writes into {out}.
func TestAbCommandArmDir(t *testing.T) {
	here := t.TempDir()
	t.Chdir(here)
	require.NoError(t, os.Mkdir("case", 0o755))
	require.NoError(t, os.WriteFile(filepath.Join("case", "run.sh"), []byte(outScript("0")), 0o755))
	code, _, errText := runCLI("ab", "--base-cmd", "./run.sh {rounds} {out}", "--head-cmd", "./run.sh {rounds} {out}",
		"--dir", "case", "--rounds", "3", "--block", "3", "--warmup", "0", "--seed", "3")
	require.Equal(t, 0, code, errText)
	j := campaignHome(t, here)
	jr, err := journal.ReadJournal(j)
	require.NoError(t, err)
	assert.Len(t, jr.Counted(), 6)

	// --resume alone takes the newest campaign of the home: a finished
	// one runs nothing and prints its report again.
	code, out, errText := runCLI("ab", "--resume", "--format", "markdown")
	require.Equal(t, 0, code, errText)
	assert.Contains(t, errText, "journal "+j)
	assert.Contains(t, out, "| ControlPlane * ")
}

// TestAbResumeWithNothingToResume: --resume where no campaign ran.
func TestAbResumeWithNothingToResume(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	code, _, errText := runCLI("ab", "--resume")
	assert.Equal(t, 1, code, errText)
	assert.Contains(t, errText, "--resume: no campaign journal in "+filepath.Join(dir, campaign.HomeDir))
}

// TestAbFailedBlockShowsItsLog: a block that fails is named with its log
// file and the log's last lines.
func TestAbFailedBlockShowsItsLog(t *testing.T) {
	t.Chdir(t.TempDir())
	code, _, errText := runCLI("ab", "--base-cmd", "echo preparing; echo 'cannot open device 3' >&2; exit 1",
		"--head-cmd", "true {rounds} {out}", "--rounds", "3", "--block", "3", "--warmup", "1", "--retries", "0")
	require.Equal(t, 1, code, errText)
	assert.Contains(t, errText, "block exited with status 1")
	assert.Regexp(t, `w01-base-t1\.log(\.gz)?`, errText)
	assert.Contains(t, errText, "cannot open device 3")
	// --block 3 with the default --cold 2: warned before the start.
	assert.Contains(t, errText, "hbgbench: warning: --block 3 with --cold 2 keeps 1 warm pass per block and process")
}
