package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/hbgkit/hbgkit/abtest/campaign"
	"github.com/hbgkit/hbgkit/internal/gittest"
	"github.com/hbgkit/hbgkit/internal/procgroup"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// assertNothingActs fails when text holds a character a terminal acts on
// (an escape, a carriage return, a bidirectional control).
func assertNothingActs(t *testing.T, what, text string) {
	t.Helper()
	for _, c := range []string{"\x1b", "\r", "\u202e", "\a"} {
		assert.NotContains(t, text, c, "%s holds %q", what, c)
	}
}

// TestRecipeCannotHideWhatItRuns: a recipe whose build and [env] hold
// terminal escapes that would erase the line and print "build = make"
// over it is shown as it is, escaped, in the "applying" notice, the
// "building" line, every report format and the error line; nothing a
// terminal acts on reaches stdout or stderr.
func TestRecipeCannotHideWhatItRuns(t *testing.T) {
	t.Parallel()
	repo, _, _ := testRepo(t)
	recipe := "build = \"true hidden-payload \\u001b[2K\\u001b[1A\\u001b[2K\\rbuild = make\"\n" +
		"run = \"./run.sh {rounds} {out}\"\nrounds = 3\nblock = 3\nwarmup = 0\n\n[env]\nEVIL = \"x\\u001b]0;owned\\u0007\\u202eevil\"\n"
	commitRecipe(t, repo, recipe)
	j := filepath.Join(t.TempDir(), "j.jsonl")
	code, out, errText := runCLI("ab", "--repo", repo, "--base", "main", "--head", "pr", "--journal", j, "--cache", t.TempDir())
	require.Equal(t, 0, code, errText)
	shown := `true hidden-payload \x1b[2K\x1b[1A\x1b[2K\rbuild = make`
	assert.Contains(t, errText, "  build = "+shown+"\n", "the applying notice")
	assert.Contains(t, errText, ": "+shown+"\n", "the building line")
	assert.Contains(t, errText, `env EVIL=x\x1b]0;owned\x07\u202eevil (git arms only)`)
	assertNothingActs(t, "stderr", errText)
	assertNothingActs(t, "the text report", out)
	assert.Contains(t, out, shown)
	for _, f := range []string{"markdown", "benchfmt", "text"} {
		code, rep, errText := runCLI("report", j, "--format", f)
		require.Equal(t, 0, code, errText)
		assertNothingActs(t, f, rep)
		assertNothingActs(t, f+" stderr", errText)
		if f != "benchfmt" { // benchfmt names the arms by ref, not by command
			assert.Contains(t, rep, `\x1b[2K`, f)
		}
	}
	for _, f := range []string{"json", "csv"} {
		code, rep, _ := runCLI("report", j, "--format", f)
		require.Equal(t, 0, code)
		assertNothingActs(t, f, rep)
	}
}

// An error that quotes what a recipe or a command line gave is printed
// escaped too.
func TestErrorLineEscaped(t *testing.T) {
	t.Parallel()
	code, _, errText := runCLI("ab", "--base", "embedded:mirror=\x1b[2Kretained", "--rounds", "3")
	assert.NotEqual(t, 0, code)
	assertNothingActs(t, "stderr", errText)
	assert.True(t, strings.Contains(errText, `\x1b[2K`), errText)
}

// A recipe's artifact and lock stay inside the repository; a link in the
// worktree to files outside it is not hashed as the build; a committed
// .hbgbench link is refused before anything is written through it;
// settings that would never end are refused.
func TestRecipeStaysInTheRepository(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, recipe, want string }{
		{"artifact", "run = \"./run.sh {rounds} {out}\"\nartifact = \"../../../../../../../../../../etc/*\"\n", "hbgbench.toml:2: artifact: \"../../../../../../../../../../etc/*\" reaches outside the repository"},
		{"absolute artifact", "artifact = \"/etc/passwd\"\n", "hbgbench.toml:1: artifact: \"/etc/passwd\" reaches outside the repository"},
		{"lock", "lock = \"../../../victim.txt\"\n", "hbgbench.toml:1: lock: \"../../../victim.txt\" reaches outside the repository"},
		{"block", "run = \"./run.sh {rounds} {out}\"\nblock = 1000000000\n", "--block 1000000000: at most 100000 passes a block"},
		{"retries", "run = \"./run.sh {rounds} {out}\"\nretries = 1000000000\n", "--retries 1000000000: at most 100 more tries"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			repo, _, _ := testRepo(t)
			require.NoError(t, os.WriteFile(filepath.Join(repo, campaign.RecipeFile), []byte(tc.recipe), 0o644))
			outside := filepath.Join(filepath.Dir(repo), "victim.txt")
			j := filepath.Join(t.TempDir(), "j.jsonl")
			code, _, errText := runCLI("ab", "--repo", repo, "--base", "main", "--head", "pr", "--journal", j, "--cache", t.TempDir())
			assert.NotEqual(t, 0, code)
			assert.Contains(t, errText, tc.want)
			_, err := os.Stat(j)
			assert.True(t, os.IsNotExist(err), "no journal")
			_, err = os.Stat(outside)
			assert.True(t, os.IsNotExist(err), "nothing written outside")
		})
	}

	// An artifact glob inside the worktree that matches a link to a file
	// outside it is refused, not hashed as the build.
	repo, _, _ := testRepo(t)
	require.NoError(t, os.Symlink("/etc/hostname", filepath.Join(repo, "lib.so")))
	gittest.Git(t, repo, "add", "lib.so")
	gittest.Git(t, repo, "commit", "-q", "-m", "a link")
	gittest.Git(t, repo, "branch", "-f", "pr2")
	code, _, errText := runCLI("ab", "--repo", repo, "--base", "main", "--head", "pr2", "--run", "./run.sh {rounds} {out}", "--artifact", "lib.so",
		"--rounds", "3", "--block", "3", "--warmup", "0", "--journal", filepath.Join(t.TempDir(), "j.jsonl"), "--cache", t.TempDir())
	assert.NotEqual(t, 0, code)
	assert.Contains(t, errText, "is a link to /etc/hostname, outside the worktree")
}

// A committed .hbgbench that is a link sends nothing through it.
func TestHomeLinkRefused(t *testing.T) {
	t.Parallel()
	repo, _, _ := testRepo(t)
	elsewhere := t.TempDir()
	require.NoError(t, os.Symlink(elsewhere, filepath.Join(repo, campaign.HomeDir)))
	code, _, errText := runCLI("ab", "--repo", repo, "--base", "main", "--head", "pr", "--run", "./run.sh {rounds} {out}", "--rounds", "3", "--cache", t.TempDir())
	assert.NotEqual(t, 0, code)
	assert.Contains(t, errText, campaign.HomeDir+" is a symbolic link (to "+elsewhere+")")
	ents, err := os.ReadDir(elsewhere)
	require.NoError(t, err)
	assert.Empty(t, ents, "nothing written where the link points")
}

// Dead ends: a lock on the journal, a journal that is a directory, a
// device or a FIFO, a missing --dir: each refused at once with what is
// wrong, nothing written; a mistyped flag names the right one.
func TestDeadEndsSayWhatIsWrong(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	j := filepath.Join(dir, "j.jsonl")
	cat := catArm(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--journal", j, "--lock", j}, "--lock " + j + " is the campaign's journal or its block directory"},
		{[]string{"--journal", dir}, "--journal " + dir + " is a directory: name a file for the journal"},
		{[]string{"--journal", "/dev/null"}, "--journal /dev/null is not a regular file"},
		{[]string{"--journal", fifo}, "--journal " + fifo + " is not a regular file"},
		{[]string{"--journal", j, "--dir", filepath.Join(dir, "missing")}, "--dir " + filepath.Join(dir, "missing") + ": no such file or directory"},
	} {
		args := append([]string{"ab", "--base-cmd", cat, "--head-cmd", cat, "--rounds", "3"}, tc.args...)
		code, _, errText := runCLI(args...)
		assert.NotEqual(t, 0, code, "%v", tc.args)
		assert.Contains(t, errText, tc.want, "%v", tc.args)
		assert.NotContains(t, errText, "resume it", "%v", tc.args)
		_, err := os.Stat(j)
		assert.True(t, os.IsNotExist(err), "%v: nothing at the journal's path", tc.args)
	}
	for _, tc := range [][]string{{"ab", "--roudns", "3"}, {"aa", "--blok=3"}, {"compare", "--base", "a.log", "--head", "b.log", "--metirc", "Host"}} {
		code, _, errText := runCLI(tc...)
		assert.Equal(t, 2, code, "%v", tc)
		want := map[string]string{"--roudns": "--rounds", "--blok=3": "--block", "--metirc": "--metric"}
		for bad, good := range want {
			if slices.Contains(tc, bad) {
				assert.Contains(t, errText, "(did you mean "+good+"?)", "%v", tc)
			}
		}
	}
}

// sleepersOf returns the pids of processes whose command line is exactly
// "sleep " + arg: the marked sleepers a test's arms started.
func sleepersOf(arg string) []int {
	var out []int
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		if strings.TrimRight(string(b), "\x00") == "sleep\x00"+arg {
			if pid, err := strconv.Atoi(e.Name()); err == nil && procgroup.Running(pid) {
				out = append(out, pid)
			}
		}
	}
	return out
}

// TestDaemonisedArmDoesNotOutliveTheCampaign: an arm whose command
// daemonises a process (setsid, its own session and group, which the
// group kill and the watchdog do not reach) leaves nothing running after
// a real hbgbench process ends: the daemon is handed to hbgbench (a child
// subreaper) when its parent ends, and killed after the block, with a
// warning naming it.
func TestDaemonisedArmDoesNotOutliveTheCampaign(t *testing.T) {
	t.Parallel()
	mark := fmt.Sprintf("45.%d", os.Getpid()%100000)
	t.Cleanup(func() {
		for _, pid := range sleepersOf(mark) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	// The second's pause lets the daemon leave the block's group before
	// the block ends: one still in it dies with the group, and leaves
	// nothing for the sweep to name.
	daemon := "setsid sleep " + mark + " </dev/null >/dev/null 2>&1 & sleep 1; " + catArm(t)
	cmd := exec.Command(os.Args[0], "ab", "--base-cmd", daemon, "--head-cmd", catArm(t), "--rounds", "3", "--block", "3", "--warmup", "0",
		"--journal", filepath.Join(t.TempDir(), "j.jsonl"))
	cmd.Env = append(os.Environ(), mainEnv+"=1")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Contains(t, string(out), "left sleep (pid ")
	assert.Contains(t, string(out), "running outside its process group and session (daemonised); killed")
	assert.Empty(t, sleepersOf(mark), "a daemonised sleeper outlived the campaign")
}
