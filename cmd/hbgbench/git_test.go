package main

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hbgkit/hbgkit/abtest/campaign"
	"github.com/hbgkit/hbgkit/abtest/journal"
	"github.com/hbgkit/hbgkit/internal/gittest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runScript drives `hbgbench harness` (this test binary as hbgbench) with
// the retained mirror and the given busy delay in host_orch.
func runScript(delayUS string) string {
	return "#!/bin/sh\nexec env " + mainEnv + "=1 \"$HBGBENCH_TEST_BIN\" harness --mirror retained --delay-us " + delayUS + " --rounds \"$1\"\n"
}

// headDelayUS is the busy delay c2's run.sh adds to every bind: 60 ms, so
// that the head is found slower even while `go test ./...` loads both
// cores with other packages' tests (a retained bind takes about 1.5 ms of
// CPU). 20 ms was found inconclusive once at load 19, where waiting for a
// CPU stretched the base's binds to tens of ms (σ_d 143%).
const headDelayUS = "60000"

// testRepo makes a repository with two commits: c1 (main) whose run.sh
// adds no delay, and c2 (pr, checked out) whose run.sh adds headDelayUS

// commitRecipe commits recipe as the hbgbench.toml of repo's checked-out
// branch.
func commitRecipe(t *testing.T, repo, recipe string) {
	t.Helper()
	require.NoError(t, os.WriteFile(filepath.Join(repo, campaign.RecipeFile), []byte(recipe), 0o644))
	gittest.Git(t, repo, "add", campaign.RecipeFile)
	gittest.Git(t, repo, "commit", "-q", "-m", "recipe")
}

// per bind. It returns the repo and the two shas.
func testRepo(t *testing.T) (string, string, string) {
	t.Helper()
	repo := t.TempDir()
	gittest.Git(t, repo, "init", "-q", "-b", "main")
	write := func(name, body string) {
		require.NoError(t, os.WriteFile(filepath.Join(repo, name), []byte(body), 0o755))
	}
	write("run.sh", runScript("0"))
	write("README", "a repository under test\n")
	gittest.Git(t, repo, "add", ".")
	gittest.Git(t, repo, "commit", "-q", "-m", "c1")
	c1 := gittest.Git(t, repo, "rev-parse", "HEAD")
	gittest.Git(t, repo, "checkout", "-q", "-b", "pr")
	write("run.sh", runScript(headDelayUS))
	gittest.Git(t, repo, "commit", "-q", "-am", "c2")
	c2 := gittest.Git(t, repo, "rev-parse", "HEAD")
	return repo, c1, c2
}

// checkoutState is everything of the user's checkout a campaign must not
// change: HEAD, status, stash, branches and every file's bytes.
func checkoutState(t *testing.T, repo string) string {
	t.Helper()
	var b strings.Builder
	for _, args := range [][]string{{"rev-parse", "HEAD"}, {"status", "--porcelain"}, {"stash", "list"},
		{"branch", "-a", "-v"}, {"symbolic-ref", "HEAD"}} {
		b.WriteString(gittest.Git(t, repo, args...) + "\n")
	}
	var files []string
	require.NoError(t, filepath.WalkDir(repo, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(repo, p)
		if d.IsDir() && rel == ".git" {
			return filepath.SkipDir
		}
		if !d.IsDir() {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			h := sha256.Sum256(data)
			files = append(files, rel+" "+hex.EncodeToString(h[:]))
		}
		return nil
	}))
	sort.Strings(files)
	b.WriteString(strings.Join(files, "\n"))
	return b.String()
}

func worktreeCount(t *testing.T, repo string) int {
	return strings.Count(gittest.Git(t, repo, "worktree", "list", "--porcelain"), "worktree ")
}

func cacheEntries(t *testing.T, cache string) []string {
	ents, err := os.ReadDir(cache)
	if os.IsNotExist(err) {
		return nil
	}
	require.NoError(t, err)
	var out []string
	for _, e := range ents {
		if e.IsDir() {
			out = append(out, e.Name())
		}
	}
	return out
}

// TestAbGitRefs is the campaign a simpler engineer runs: two commits of a
// repository, built and run in worktrees, the head slower by 60 ms per
// bind; the user's checkout is untouched and no worktree is left.
func TestAbGitRefs(t *testing.T) {
	t.Parallel()
	repo, c1, c2 := testRepo(t)
	// A stash and an uncommitted change in the user's checkout: both must
	// survive, and the dirty tree is reported, not measured.
	require.NoError(t, os.WriteFile(filepath.Join(repo, "README"), []byte("stashed\n"), 0o644))
	gittest.Git(t, repo, "stash", "-q")
	require.NoError(t, os.WriteFile(filepath.Join(repo, "notes.txt"), []byte("work in progress\n"), 0o644))
	// What an earlier hbgbench left in the checkout is not the user's
	// change: the warning does not count it.
	require.NoError(t, os.WriteFile(filepath.Join(repo, "hbgbench-20261101T000000Z.jsonl"), []byte("{}\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(repo, "hbgbench-20261101T000000Z.jsonl.lock"), []byte("1\n"), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(repo, "hbgbench-20261101T000000Z.d"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(repo, "hbgbench-20261101T000000Z.d", "w01-base-t1.log"), nil, 0o644))
	before := checkoutState(t, repo)

	cache := t.TempDir()
	j := filepath.Join(t.TempDir(), "git.jsonl")
	code, out, errText := runCLI("ab", "--repo", repo, "--base", c1[:10], "--head", "pr", "--build", "echo built > build.txt",
		"--run", "./run.sh {rounds} {out}", "--rounds", "8", "--block", "5", "--format", "markdown",
		"--journal", j, "--cache", cache, "--seed", "4")
	require.Equal(t, 0, code, errText)
	t.Logf("markdown report:\n%s", out)
	assert.Contains(t, out, "SLOWER: ControlPlane")
	assert.Regexp(t, `\| ControlPlane \*( = [^|]+)? \|`, out) // " = Gate" when the two carried the same values
	assert.Contains(t, out, "<details>")
	assert.Contains(t, errText, "has uncommitted changes; they are not measured: the arms are base "+c1[:10]+" ("+c1[:12]+") and head pr ("+c2[:12]+"); uncommitted: ?? notes.txt\n")
	assert.Contains(t, errText, "building "+c1[:12])

	assert.Equal(t, before, checkoutState(t, repo), "the user's checkout changed")
	assert.Equal(t, 1, worktreeCount(t, repo), "a worktree was left")
	assert.Empty(t, cacheEntries(t, cache))

	jr, err := journal.ReadJournal(j)
	require.NoError(t, err)
	assert.Equal(t, c1, jr.Header.Arms[journal.Base].Sha)
	assert.Equal(t, c2, jr.Header.Arms[journal.Head].Sha)
	assert.Equal(t, "echo built > build.txt", jr.Header.Env.Build)
	// The ruler set aside the shas, refs and worktree paths.
	assert.NotContains(t, jr.Header.Ruler, c1[:7])
	assert.NotContains(t, jr.Header.Ruler, cache)
}

func TestAbGitFaults(t *testing.T) {
	t.Parallel()
	repo, c1, _ := testRepo(t)
	cache := t.TempDir()
	base := []string{"ab", "--repo", repo, "--cache", cache, "--rounds", "3", "--block", "3", "--warmup", "0"}
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"missing ref", []string{"--base", "nope", "--head", "pr", "--run", "./run.sh {rounds} {out}"}, 2, `ref "nope" names no commit in ` + repo},
		{"run without out", []string{"--base", "main", "--head", "pr", "--run", "./run.sh {rounds}"}, 2, "a run template needs {rounds} (the passes of a block) and {out}"},
		{"failing build", []string{"--base", "main", "--head", "pr", "--run", "./run.sh {rounds} {out}", "--build", "echo compiling widget.c; exit 4"},
			1, "building " + c1[:12] + ` with "echo compiling widget.c; exit 4" failed (exit status 4); its output ends:` + "\n  compiling widget.c"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			j := filepath.Join(t.TempDir(), "j.jsonl")
			code, _, errText := runCLI(append(append(base, "--journal", j), tc.args...)...)
			assert.Equal(t, tc.code, code, errText)
			assert.Contains(t, errText, tc.want)
			_, err := os.Stat(j)
			assert.True(t, os.IsNotExist(err), "no journal before a block runs")
			assert.Equal(t, 1, worktreeCount(t, repo))
			assert.Empty(t, cacheEntries(t, cache))
		})
	}
}

func TestAbRecipe(t *testing.T) {
	t.Parallel()
	repo, _, _ := testRepo(t)
	cache := t.TempDir()
	recipe := `# simpler's recipe, as a repository keeps it
build = "echo same > artifact.bin"
run = "./run.sh {rounds} {out}"
rounds = 3
block = 3
warmup = 0
margin = "2%"
artifact = "artifact.bin"

[env]
SIMPLER_LOG_LEVEL = "TIMING"
`
	commitRecipe(t, repo, recipe)
	j := filepath.Join(t.TempDir(), "j.jsonl")
	code, out, errText := runCLI("ab", "--repo", repo, "--base", "main", "--head", "pr", "--journal", j, "--cache", cache)
	require.Equal(t, 0, code, errText)
	// Both builds wrote the same artifact: the report says A/A instead of
	// claiming the change the run scripts make.
	assert.Contains(t, out, "A/A (identical binaries): no change can be claimed")
	jr, err := journal.ReadJournal(j)
	require.NoError(t, err)
	assert.Equal(t, 3, jr.Header.Config.Rounds)
	assert.InDelta(t, 0.02, jr.Header.Config.Margin, 1e-12)
	assert.Equal(t, []string{"SIMPLER_LOG_LEVEL=TIMING"}, jr.Header.Arms[0].Env)
	assert.Contains(t, jr.Header.Ruler, "env SIMPLER_LOG_LEVEL=TIMING")
	assert.Equal(t, 1, worktreeCount(t, repo))

	// A flag overrides the recipe.
	j2 := filepath.Join(t.TempDir(), "j.jsonl")
	code, _, errText = runCLI("ab", "--repo", repo, "--base", "main", "--head", "pr", "--journal", j2, "--cache", cache, "--rounds", "4")
	require.Equal(t, 0, code, errText)
	jr, err = journal.ReadJournal(j2)
	require.NoError(t, err)
	assert.Equal(t, 4, jr.Header.Config.Rounds)
}

func TestRecipeErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, body, want string
	}{
		{"unknown key", "run = \"x {rounds} {out}\"\nroundz = 3\n", "hbgbench.toml:2: roundz: unknown key (known: build, run, env, rounds, block, cold, warmup, metric, margin, order, block_stat, trim, timeout, retries, max_fail, artifact, lock, cpus, load, load_cmd, check, tuned)"},
		{"wrong type", "rounds = \"ten\"\n", "hbgbench.toml:1: "},
		{"syntax", "rounds = \n", "hbgbench.toml:1: "},
		{"bad margin", "margin = [1]\n", "hbgbench.toml:1: margin: want a share"},
		{"bad duration", "timeout = \"soon\"\n", "hbgbench.toml:1: timeout: \"soon\" is not a duration"},
		{"load too large", "rounds = 3\nload = 100000\n", "hbgbench.toml:2: load: 100000: want 0 to 256 busy processes"},
		{"load negative", "load = -1\n", "hbgbench.toml:1: load: -1: want 0 to 256 busy processes"},
		{"load and load_cmd", "load = 2\nload_cmd = \"stress\"\n", "hbgbench.toml:2: load_cmd: beside load: give one load"},
		{"too large", "# " + strings.Repeat("x", campaign.MaxRecipeBytes) + "\nrounds = 3\n", "hbgbench.toml: file: longer than 1 MiB, the largest recipe hbgbench reads"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, campaign.RecipeFile)
			require.NoError(t, os.WriteFile(p, []byte(tc.body), 0o644))
			_, err := campaign.LoadRecipe(p)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.True(t, strings.HasPrefix(err.Error(), p), err.Error())
		})
	}
	// Through the command: refused before any work, exit 2 is not
	// required, but a clear error and no journal.
	repo, _, _ := testRepo(t)
	require.NoError(t, os.WriteFile(filepath.Join(repo, campaign.RecipeFile), []byte("blocks = 3\n"), 0o644))
	j := filepath.Join(t.TempDir(), "j.jsonl")
	code, _, errText := runCLI("ab", "--repo", repo, "--base", "main", "--head", "pr", "--journal", j)
	assert.NotEqual(t, 0, code)
	assert.Contains(t, errText, "hbgbench.toml:1: blocks: unknown key")
	_, err := os.Stat(j)
	assert.True(t, os.IsNotExist(err))
}

// TestAbGitKilledResumes: SIGKILL mid-campaign leaves the worktrees;
// --resume reuses them (no second build) and still removes them at the end.
func TestAbGitKilledResumes(t *testing.T) {
	repo, _, _ := testRepo(t)
	// Slow blocks: 150 ms of delay per bind on both sides.
	require.NoError(t, os.WriteFile(filepath.Join(repo, "run.sh"), []byte(runScript("150000")), 0o755))
	gittest.Git(t, repo, "commit", "-q", "-am", "slow")
	gittest.Git(t, repo, "checkout", "-q", "main")
	require.NoError(t, os.WriteFile(filepath.Join(repo, "run.sh"), []byte(runScript("150000")), 0o755))
	gittest.Git(t, repo, "commit", "-q", "-am", "slow")
	cache := t.TempDir()
	j := filepath.Join(t.TempDir(), "c.jsonl")
	cmd := exec.Command(os.Args[0], "ab", "--repo", repo, "--base", "main", "--head", "pr", "--build", "echo built; date +%N > build.txt",
		"--run", "./run.sh {rounds} {out}", "--rounds", "3", "--block", "3", "--warmup", "0", "--journal", j, "--cache", cache, "--seed", "8")
	cmd.Env = append(os.Environ(), mainEnv+"=1")
	require.NoError(t, cmd.Start())
	waitJournal(t, j, midRound)
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	_, _ = cmd.Process.Wait()
	left := cacheEntries(t, cache)
	require.Len(t, left, 2, "the killed campaign leaves its two worktrees")
	stamp, err := os.ReadFile(filepath.Join(cache, left[0], "build.txt"))
	require.NoError(t, err)

	// --resume without --cache: the journal names the cache.
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	code, _, errText := runCLI("ab", "--resume", "--journal", j)
	require.Equal(t, 0, code, errText)
	assert.NotContains(t, errText, "hbgbench: building", "the worktrees and their builds were reused")
	assert.Equal(t, map[int]int{1: 1, 2: 1, 3: 1}, roundsOK(t, j))
	assert.Empty(t, cacheEntries(t, cache), "the resumed campaign removes the worktrees")
	assert.Equal(t, 1, worktreeCount(t, repo))
	t.Logf("the killed run's build stamp %s was reused", strings.TrimSpace(string(stamp)))
}

// TestAbCleansWhatAKilledRunLeft: a new campaign removes the worktrees of
// a campaign that was killed and never resumed.
func TestAbCleansWhatAKilledRunLeft(t *testing.T) {
	t.Parallel()
	repo, c1, _ := testRepo(t)
	cache := t.TempDir()
	// What a killed campaign leaves: its worktree of c1 in the cache, and
	// the worktree's lock file, which no process holds any more.
	path := campaign.NewWorktrees(repo, cache).Path(c1)
	gittest.Git(t, repo, "worktree", "add", "--detach", path, c1)
	require.NoError(t, os.WriteFile(path+".lock", nil, 0o644))
	require.Len(t, cacheEntries(t, cache), 1)
	j := filepath.Join(t.TempDir(), "j.jsonl")
	code, _, errText := runCLI("ab", "--repo", repo, "--base", "main", "--head", "pr", "--run", "./run.sh {rounds} {out}",
		"--rounds", "3", "--block", "3", "--warmup", "0", "--journal", j, "--cache", cache)
	require.Equal(t, 0, code, errText)
	assert.Empty(t, cacheEntries(t, cache))
	assert.Equal(t, 1, worktreeCount(t, repo))
}

// TestAbGitInterruptDuringBuild: Ctrl-C while a build runs kills the
// build's process group, removes the worktrees and exits 130.
func TestAbGitInterruptDuringBuild(t *testing.T) {
	t.Parallel()
	repo, _, _ := testRepo(t)
	cache := t.TempDir()
	marker := filepath.Join(t.TempDir(), "build-started")
	j := filepath.Join(t.TempDir(), "j.jsonl")
	// A sleep of its own length, so that another test's sleep (or this
	// test run beside itself) is not taken for this build's.
	sleep := fmt.Sprintf("sleep %d", 400+rand.IntN(50000))
	t.Cleanup(func() { _ = exec.Command("pkill", "-f", "^"+sleep).Run() })
	cmd := exec.Command(os.Args[0], "ab", "--repo", repo, "--base", "main", "--head", "pr",
		"--build", "touch "+marker+"; "+sleep, "--run", "./run.sh {rounds} {out}", "--journal", j, "--cache", cache)
	cmd.Env = append(os.Environ(), mainEnv+"=1")
	var errb strings.Builder
	cmd.Stderr = &errb
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := os.Stat(marker); err == nil {
			break
		}
		require.True(t, time.Now().Before(deadline), "the build never started: %s", errb.String())
		time.Sleep(20 * time.Millisecond)
	}
	require.NoError(t, cmd.Process.Signal(syscall.SIGINT))
	err := cmd.Wait()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee)
	assert.Equal(t, 130, ee.ExitCode(), errb.String())
	assert.Contains(t, errb.String(), "interrupted while building the worktrees")
	assert.Empty(t, cacheEntries(t, cache))
	assert.Equal(t, 1, worktreeCount(t, repo))
	assert.Empty(t, pgrepGone("^"+sleep), "the build's sleep outlived it")
}

// TestAaGitRef: aa's help says ARM may be a git ref run with --run, and it
// is: both sides are that ref's commit, built once and run in its worktree.
func TestAaGitRef(t *testing.T) {
	t.Parallel()
	aa := NewCmdAA(nil, nil)
	assert.Contains(t, aa.Long, "a git ref of --repo built\nwith --build and run with --run")
	assert.Contains(t, aa.Example, "hbgbench aa main --build make --run './run.sh {rounds} {out}'")

	repo, c1, _ := testRepo(t)
	j := filepath.Join(t.TempDir(), "aa.jsonl")
	code, out, errText := runCLI("aa", "main", "--repo", repo, "--build", "echo built > build.txt",
		"--run", "./run.sh {rounds} {out}", "--rounds", "3", "--block", "3", "--warmup", "0",
		"--journal", j, "--cache", t.TempDir(), "--seed", "1")
	require.Equal(t, 0, code, errText)
	assert.Contains(t, out, "A/A calibration of ControlPlane")
	jr, err := journal.ReadJournal(j)
	require.NoError(t, err)
	for _, arm := range jr.Header.Arms {
		assert.Equal(t, journal.KindGit, arm.Kind)
		assert.Equal(t, c1, arm.Sha)
		assert.Equal(t, "./run.sh {rounds} {out}", arm.Run)
	}
}

// pgrepGone waits up to 15 s for no process to match pattern, and
// returns what still matches.
func pgrepGone(pattern string) string {
	var left string
	for range 150 {
		out, _ := exec.Command("pgrep", "-f", pattern).Output()
		if left = strings.TrimSpace(string(out)); left == "" {
			return ""
		}
		time.Sleep(100 * time.Millisecond)
	}
	return left
}

// TestAbKilledDuringCheckout: kill -9 of hbgbench while `git worktree
// add` runs a slow post-checkout hook takes git and the hook along (the
// watchdog covers the checkout as it does a build).
func TestAbKilledDuringCheckout(t *testing.T) {
	t.Parallel()
	repo, _, _ := testRepo(t)
	marker := filepath.Join(t.TempDir(), "hook-started")
	// A sleep of its own length, so that a run of this test beside
	// another (a shared machine) never sees or kills the other's.
	sleep := fmt.Sprintf("sleep %d", 400+rand.IntN(50000))
	hook := "#!/bin/sh\ntouch " + marker + "\nexec " + sleep + "\n"
	require.NoError(t, os.WriteFile(filepath.Join(repo, ".git", "hooks", "post-checkout"), []byte(hook), 0o755))
	t.Cleanup(func() { _ = exec.Command("pkill", "-f", "^"+sleep).Run() })
	cmd := exec.Command(os.Args[0], "ab", "--repo", repo, "--base", "main", "--head", "pr",
		"--run", "./run.sh {rounds} {out}", "--journal", filepath.Join(t.TempDir(), "j.jsonl"), "--cache", t.TempDir())
	cmd.Env = append(os.Environ(), mainEnv+"=1")
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	deadline := time.Now().Add(60 * time.Second)
	for {
		if _, err := os.Stat(marker); err == nil {
			break
		}
		require.True(t, time.Now().Before(deadline), "the checkout's hook never started")
		time.Sleep(20 * time.Millisecond)
	}
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	_, _ = cmd.Process.Wait()
	assert.Empty(t, pgrepGone("^"+sleep), "the checkout's hook outlived hbgbench")
}

// TestRecipeScope: hbgbench.toml configures campaigns on its
// repository's git refs, says what it set (on stderr and in the report),
// keeps its [env] to the git arms, is ignored with --no-recipe, and is not
// applied to a campaign of embedded or command arms run inside the
// repository.
func TestRecipeScope(t *testing.T) {
	repo, _, _ := testRepo(t)
	recipe := "run = \"./run.sh {rounds} {out}\"\nrounds = 3\nblock = 3\nwarmup = 0\n\n[env]\nLD_PRELOAD_TEST = \"/evil/lib.so\"\n"
	commitRecipe(t, repo, recipe)
	cat := catArm(t)
	t.Chdir(repo)
	cache := t.TempDir()

	// Git arms: applied, and said.
	j := filepath.Join(t.TempDir(), "git.jsonl")
	code, out, errText := runCLI("ab", "--base", "main", "--head", "pr", "--journal", j, "--cache", cache, "--format", "markdown")
	require.Equal(t, 0, code, errText)
	assert.Contains(t, errText, "hbgbench: applying "+filepath.Join(repo, campaign.RecipeFile)+" (--no-recipe ignores it):\n  run = ./run.sh {rounds} {out}\n  rounds = 3\n")
	assert.Contains(t, errText, "  env LD_PRELOAD_TEST=/evil/lib.so (git arms only)\n")
	assert.Contains(t, errText, "hbgbench: each base block runs in its worktree: ./run.sh {rounds} {out}\n")
	assert.Contains(t, out, "recipe "+filepath.Join(repo, campaign.RecipeFile)+" set: run = ./run.sh {rounds} {out}; rounds = 3")
	jr, err := journal.ReadJournal(j)
	require.NoError(t, err)
	assert.Equal(t, []string{"LD_PRELOAD_TEST=/evil/lib.so"}, jr.Header.Arms[journal.Base].Env)

	// --no-recipe: the recipe's rounds and env are not taken.
	j = filepath.Join(t.TempDir(), "no.jsonl")
	code, _, errText = runCLI("ab", "--no-recipe", "--base", "main", "--head", "pr", "--run", "./run.sh {rounds} {out}",
		"--rounds", "3", "--block", "3", "--warmup", "0", "--journal", j, "--cache", cache)
	require.Equal(t, 0, code, errText)
	assert.NotContains(t, errText, "applying")
	jr, err = journal.ReadJournal(j)
	require.NoError(t, err)
	assert.Empty(t, jr.Header.Arms[journal.Base].Env)
	assert.Empty(t, jr.Header.Recipe)

	// Command arms run inside the repository: not applied, and said.
	j = filepath.Join(t.TempDir(), "cmd.jsonl")
	code, _, errText = runCLI("ab", "--base-cmd", cat, "--head-cmd", cat, "--rounds", "4", "--block", "3",
		"--warmup", "0", "--journal", j)
	require.Equal(t, 0, code, errText)
	assert.Contains(t, errText, campaign.RecipeFile+" not applied: it configures campaigns on this repository's git refs, and no arm is one")
	jr, err = journal.ReadJournal(j)
	require.NoError(t, err)
	assert.Empty(t, jr.Header.Arms[journal.Base].Env, "the recipe's env reached a command arm")
	assert.Equal(t, 4, jr.Header.Config.Rounds)
}
