package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hbgkit/hbgkit/abtest/campaign"
	"github.com/hbgkit/hbgkit/abtest/journal"
	"github.com/hbgkit/hbgkit/internal/gittest"
	"github.com/hbgkit/hbgkit/runtimeharness"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pinnable skips a test of --cpus 0 where pinning could not be told from
// no pinning (CPU 0 is all this process has) or CPU 0 is not its to use;
// it returns the CPUs this process may use.
func pinnable(t *testing.T) string {
	t.Helper()
	allowed, err := runtimeharness.AllowedCPUs()
	require.NoError(t, err)
	if _, err := runtimeharness.CheckCPUList("0"); err != nil || allowed == "0" {
		t.Skipf("this process runs on CPUs %s: pinning to CPU 0 cannot be told apart", allowed)
	}
	return allowed
}

// cpusArm is a command arm that appends the Cpus_allowed_list line of
// its own shell's /proc/PID/status to dir/self and that of a process it
// forks (the subshell's grep) to dir/child, then prints a fixture log.
func cpusArm(t *testing.T, dir string) string {
	q := runtimeharness.ShellQuote
	return fmt.Sprintf("grep Cpus_allowed_list /proc/$$/status >> %s; (grep Cpus_allowed_list /proc/self/status) >> %s; %s",
		q(filepath.Join(dir, "self")), q(filepath.Join(dir, "child")), catArm(t))
}

// statusLines returns the lines of a file cpusArm appends to.
func statusLines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

// allOn asserts that there are n lines, each saying the process ran on
// CPUs list.
func allOn(t *testing.T, lines []string, n int, list string) {
	t.Helper()
	assert.Len(t, lines, n)
	for _, l := range lines {
		assert.Equal(t, "Cpus_allowed_list:\t"+list, l)
	}
}

// TestAbCpusPinsCommandBlocks: with --cpus 0 every block's process and a
// process it forks run on CPU 0 only, read back from their
// /proc/PID/status; without it they run on every CPU this process has.
// The journal, the stamps (and so the ruler) and every report format say
// so; a resume keeps the set and refuses another.
func TestAbCpusPinsCommandBlocks(t *testing.T) {
	t.Parallel()
	allowed := pinnable(t)
	tmp := t.TempDir()

	free := filepath.Join(tmp, "free")
	require.NoError(t, os.Mkdir(free, 0o755))
	arm := cpusArm(t, free)
	code, out, errText := abCmd(t, filepath.Join(tmp, "free.jsonl"), arm, arm)
	require.Equal(t, 0, code, errText)
	allOn(t, statusLines(t, filepath.Join(free, "self")), 6, allowed)
	allOn(t, statusLines(t, filepath.Join(free, "child")), 6, allowed)
	assert.NotContains(t, out, "Pinned")
	assert.NotContains(t, readRaw(t, filepath.Join(tmp, "free.jsonl")), `"cpus"`, "a journal without --cpus has no cpus field")

	pinned := filepath.Join(tmp, "pinned")
	require.NoError(t, os.Mkdir(pinned, 0o755))
	j := filepath.Join(tmp, "pinned.jsonl")
	arm = cpusArm(t, pinned)
	code, out, errText = abCmd(t, j, arm, arm, "--cpus", "0")
	require.Equal(t, 0, code, errText)
	allOn(t, statusLines(t, filepath.Join(pinned, "self")), 6, "0")
	allOn(t, statusLines(t, filepath.Join(pinned, "child")), 6, "0")
	assert.Contains(t, out, "Pinned (--cpus 0): every block of both arms, and every process it forked, ran on CPUs 0 only")

	jr, err := journal.ReadJournal(j)
	require.NoError(t, err)
	assert.Equal(t, "0", jr.Header.Config.CPUs)
	assert.Equal(t, "cpus=0 {arm}", jr.Header.Ruler)
	require.Len(t, jr.Blocks, 6)
	for _, b := range jr.Blocks {
		assert.True(t, strings.HasPrefix(b.Stamp, "cpus=0 grep "), b.Stamp)
	}
	for format, want := range map[string]string{
		"text":     "Pinned (--cpus 0)",
		"markdown": "Pinned (--cpus 0)",
		"json":     `"cpus": "0"`,
		"benchfmt": "\ncpus: 0\n",
	} {
		code, out, errText := runCLI("report", j, "--format", format)
		require.Equal(t, 0, code, errText)
		assert.Contains(t, out, want, format)
	}

	// A resume refuses another set, naming the flag; the same set in
	// another spelling is the same set.
	code, _, errText = runCLI("ab", "--resume", "--journal", j, "--cpus", allowed)
	assert.Equal(t, 1, code)
	assert.Contains(t, errText, "--cpus: journal 0, given "+allowed)
	code, _, errText = runCLI("ab", "--resume", "--journal", j, "--cpus", "0-0")
	require.Equal(t, 0, code, errText)

	// Extended without --cpus, the new blocks are pinned as the journal
	// says.
	code, _, errText = runCLI("ab", "--resume", "--journal", j, "--rounds", "4")
	require.Equal(t, 0, code, errText)
	allOn(t, statusLines(t, filepath.Join(pinned, "self")), 8, "0")
	allOn(t, statusLines(t, filepath.Join(pinned, "child")), 8, "0")
}

// readRaw returns a file's text.
func readRaw(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(b)
}

// TestAbCpusPinsEmbeddedBlocks: with --cpus 0 every embedded block's
// child (this test binary, re-executed) runs on CPU 0 only, read back
// from its own /proc/PID/status, and its stamp says cpus=0; aa takes the
// flag too.
func TestAbCpusPinsEmbeddedBlocks(t *testing.T) {
	pinnable(t)
	for _, cmd := range [][]string{
		{"ab", "--base", "embedded:", "--head", "embedded:delay_us=137"},
		{"aa", "embedded:delay_us=139"},
	} {
		t.Run(cmd[0], func(t *testing.T) {
			status := t.TempDir()
			t.Setenv(cpusStatusEnv, status)
			j := filepath.Join(t.TempDir(), "j.jsonl")
			args := append(cmd, "--journal", j, "--rounds", "3", "--block", "3", "--warmup", "0", "--cpus", "0")
			code, _, errText := runCLI(args...)
			require.Equal(t, 0, code, errText)
			files, err := os.ReadDir(status)
			require.NoError(t, err)
			require.Len(t, files, 6, "one child per block")
			for _, f := range files {
				assert.Equal(t, "Cpus_allowed_list:\t0\n", readRaw(t, filepath.Join(status, f.Name())), "child pid %s", f.Name())
			}
			jr, err := journal.ReadJournal(j)
			require.NoError(t, err)
			for _, b := range jr.Blocks {
				assert.Contains(t, b.Stamp, " nproc=1 cpus=0 ")
			}
			assert.Contains(t, jr.Header.Ruler, " cpus=0 ")
		})
	}
}

// TestAbCpusRefused: a --cpus that is not a CPU list, or names a CPU
// this process may not use, is a usage error naming the flag, before any
// journal or block.
func TestAbCpusRefused(t *testing.T) {
	t.Parallel()
	allowed := pinnable(t)
	tests := map[string]string{
		"x":     `--cpus "x": "x" is not a CPU number`,
		"1-0":   `--cpus "1-0": range 1-0: its end is below its start`,
		"0,,1":  `--cpus "0,,1": "" is not a CPU number`,
		"0-7:2": `--cpus "0-7:2"`,
		"5000":  `--cpus "5000": CPU 5000: beyond the 1024 CPUs`,
		" ":     `--cpus " ": empty CPU list`,
	}
	if !strings.Contains(allowed, "1023") {
		tests["1023"] = `--cpus "1023": CPU 1023 is not one this process may use (it may use ` + allowed + ")"
	}
	for list, want := range tests {
		for _, cmd := range []string{"ab", "aa"} {
			t.Run(cmd+" "+list, func(t *testing.T) {
				dir := t.TempDir()
				j := filepath.Join(dir, "j.jsonl")
				code, _, errText := runCLI(cmd, "--journal", j, "--cpus", list)
				assert.Equal(t, 2, code, errText)
				assert.Contains(t, errText, want)
				_, err := os.Stat(j)
				assert.True(t, os.IsNotExist(err), "a refused campaign writes no journal")
			})
		}
	}
}

// TestAbCpusPinsGitBlocks: with --cpus 0 the blocks of git arms, and a
// process they fork, run on CPU 0 only; the build, which runs once before
// the rounds and is not measured, is not pinned.
func TestAbCpusPinsGitBlocks(t *testing.T) {
	t.Parallel()
	allowed := pinnable(t)
	status := t.TempDir()
	repo := t.TempDir()
	gittest.Git(t, repo, "init", "-q", "-b", "main")
	q := runtimeharness.ShellQuote
	run := fmt.Sprintf("#!/bin/sh\ngrep Cpus_allowed_list /proc/$$/status >> %s\n(grep Cpus_allowed_list /proc/self/status) >> %s\n%s\n",
		q(filepath.Join(status, "self")), q(filepath.Join(status, "child")), catArm(t))
	require.NoError(t, os.WriteFile(filepath.Join(repo, "run.sh"), []byte(run), 0o755))
	gittest.Git(t, repo, "add", ".")
	gittest.Git(t, repo, "commit", "-q", "-m", "c1")

	j := filepath.Join(t.TempDir(), "aa.jsonl")
	code, _, errText := runCLI("aa", "main", "--repo", repo,
		"--build", "grep Cpus_allowed_list /proc/$$/status >> "+q(filepath.Join(status, "build")),
		"--run", "./run.sh {rounds} {out}", "--rounds", "3", "--block", "3", "--warmup", "0",
		"--journal", j, "--cache", t.TempDir(), "--cpus", "0")
	require.Equal(t, 0, code, errText)
	allOn(t, statusLines(t, filepath.Join(status, "self")), 6, "0")
	allOn(t, statusLines(t, filepath.Join(status, "child")), 6, "0")
	allOn(t, statusLines(t, filepath.Join(status, "build")), 1, allowed)
	jr, err := journal.ReadJournal(j)
	require.NoError(t, err)
	assert.Equal(t, "{arm} cpus=0 {arm}", jr.Header.Ruler)
}

// TestShardsCpus: shards run with --cpus keep it in their journals, and
// their merged report says where the blocks ran.
func TestShardsCpus(t *testing.T) {
	t.Parallel()
	pinnable(t)
	dir := t.TempDir()
	extra := append([]string{"--rounds", "3", "--cpus", "0"}, shardArms...)
	a, aErr := startShard(t, dir, "host-a", "0/2", "c24cpus", extra...)
	b, bErr := startShard(t, dir, "host-b", "1/2", "c24cpus", extra...)
	require.NoError(t, a.Wait(), aErr.String())
	require.NoError(t, b.Wait(), bErr.String())
	home := filepath.Join(dir, campaign.HomeDir, "c24cpus")
	m := mergedReport(t, home)
	assert.Equal(t, "0", m.Pooled.Header.Config.CPUs)
	for _, format := range []string{"text", "markdown"} {
		code, out, errText := runCLI("report", home, "--format", format)
		require.Equal(t, 0, code, errText)
		assert.Contains(t, out, "Pinned (--cpus 0): every block of both arms", format)
	}
}

// TestRecipeCpus: hbgbench.toml's cpus pins the blocks as --cpus does,
// and --cpus on the command line overrides it.
func TestRecipeCpus(t *testing.T) {
	t.Parallel()
	pinnable(t)
	repo, _, _ := testRepo(t)
	recipe := "run = \"./run.sh {rounds} {out}\"\nrounds = 3\nblock = 3\nwarmup = 0\ncpus = \"0\"\n"
	require.NoError(t, os.WriteFile(filepath.Join(repo, campaign.RecipeFile), []byte(recipe), 0o644))
	gittest.Git(t, repo, "add", campaign.RecipeFile)
	gittest.Git(t, repo, "commit", "-q", "-m", "recipe pins CPU 0")
	cache := t.TempDir()
	for _, tc := range []struct {
		args []string
		want string
	}{{nil, "0"}, {[]string{"--cpus", "0-1"}, "0-1"}} {
		j := filepath.Join(t.TempDir(), "j.jsonl")
		args := append([]string{"ab", "--repo", repo, "--base", "main", "--head", "pr", "--journal", j, "--cache", cache}, tc.args...)
		code, _, errText := runCLI(args...)
		require.Equal(t, 0, code, errText)
		jr, err := journal.ReadJournal(j)
		require.NoError(t, err)
		assert.Equal(t, tc.want, jr.Header.Config.CPUs, "args %v", tc.args)
		assert.Contains(t, jr.Header.Ruler, " cpus="+tc.want+" ")
	}
}
