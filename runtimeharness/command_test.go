package runtimeharness

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hbgkit/hbgkit/internal/procgroup"
)

func blockIn(t *testing.T, rounds int) BlockSpec {
	dir := t.TempDir()
	return BlockSpec{Rounds: rounds, Out: filepath.Join(dir, "out"), Log: filepath.Join(dir, "block.log")}
}

func firstLine(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	s := bufio.NewScanner(f)
	require.True(t, s.Scan())
	return s.Text()
}

func TestCommandRunnerSuccess(t *testing.T) {
	spec := blockIn(t, 3)
	wt := filepath.Join(t.TempDir(), "work tree")
	require.NoError(t, os.MkdirAll(wt, 0o755))
	r := &CommandRunner{
		Template: `echo "rounds={rounds} out={out}"; echo "to stderr" >&2; echo "x=$HBG_X"; cd {worktree} && pwd; touch {out}/host.1.log`,
		Worktree: wt,
		Env:      []string{"HBG_X=1", "SIMPLER_LOG_LEVEL=TIMING"},
		Commit:   "6ebaf77",
	}
	res, err := r.Run(context.Background(), spec)
	require.NoError(t, err)
	assert.Equal(t, 0, res.ExitCode)
	assert.Zero(t, res.Signal)
	assert.False(t, res.TimedOut)
	assert.Positive(t, res.Wall)

	b, err := os.ReadFile(spec.Log)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	require.Len(t, lines, 5)
	assert.Equal(t, "[stamp] 6ebaf77 env HBG_X=1 SIMPLER_LOG_LEVEL=TIMING "+r.Command(spec), lines[0])
	assert.Equal(t, "[stamp] "+res.Stamp, lines[0])
	assert.Equal(t, "rounds=3 out="+spec.Out, lines[1])
	assert.Equal(t, "to stderr", lines[2])
	assert.Equal(t, "x=1", lines[3])
	assert.Equal(t, wt, lines[4])
	// The path with a space was quoted for the shell.
	assert.Contains(t, r.Command(spec), "'"+wt+"'")
	assert.FileExists(t, filepath.Join(spec.Out, "host.1.log"))
}

func TestCommandRunnerFailure(t *testing.T) {
	spec := blockIn(t, 1)
	res, err := (&CommandRunner{Template: "echo partial; exit 3"}).Run(context.Background(), spec)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "exited with status 3")
	assert.Equal(t, 3, res.ExitCode)
	assert.Zero(t, res.Signal)
	assert.False(t, res.TimedOut)
	b, err := os.ReadFile(spec.Log)
	require.NoError(t, err)
	assert.Equal(t, "[stamp] echo partial; exit 3\npartial\n", string(b))
}

func TestCommandRunnerSignal(t *testing.T) {
	spec := blockIn(t, 1)
	res, err := (&CommandRunner{Template: "kill -TERM $$"}).Run(context.Background(), spec)
	require.Error(t, err)
	assert.Equal(t, -1, res.ExitCode)
	assert.Equal(t, syscall.SIGTERM, res.Signal)
	assert.Contains(t, err.Error(), "signal 15")
}

func waitGone(pid int) bool {
	for range 200 {
		if !procgroup.Running(pid) {
			return true
		}
		time.Sleep(10 * time.Millisecond)
	}
	return !procgroup.Running(pid)
}

func TestCommandRunnerTimeoutKillsGrandchild(t *testing.T) {
	spec := blockIn(t, 1)
	spec.Timeout = 300 * time.Millisecond
	r := &CommandRunner{
		Template: `sleep 1000 & echo $! > {out}/grandchild.pid; echo $$ > {out}/shell.pid; wait`,
	}
	res, err := r.Run(context.Background(), spec)
	require.Error(t, err)
	assert.True(t, res.TimedOut)
	assert.Equal(t, syscall.SIGKILL, res.Signal)
	assert.Contains(t, err.Error(), "timed out")
	for _, name := range []string{"grandchild.pid", "shell.pid"} {
		b, err := os.ReadFile(filepath.Join(spec.Out, name))
		require.NoError(t, err)
		pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
		require.NoError(t, err)
		assert.True(t, waitGone(pid), "%s %d survived the timeout", name, pid)
	}
}

func TestCommandRunnerLeftoverBackgroundJobIsKilled(t *testing.T) {
	spec := blockIn(t, 1)
	r := &CommandRunner{Template: `sleep 1000 & echo $! > {out}/bg.pid`}
	_, err := r.Run(context.Background(), spec)
	require.NoError(t, err)
	b, err := os.ReadFile(filepath.Join(spec.Out, "bg.pid"))
	require.NoError(t, err)
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	require.NoError(t, err)
	assert.True(t, waitGone(pid), "background job %d outlived its block", pid)
}

func TestCommandRunnerCancel(t *testing.T) {
	spec := blockIn(t, 1)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(200 * time.Millisecond); cancel() }()
	res, err := (&CommandRunner{Template: "sleep 1000"}).Run(ctx, spec)
	require.ErrorIs(t, err, context.Canceled)
	assert.False(t, res.TimedOut)
}

func TestCommandRunner100MBOfOutput(t *testing.T) {
	spec := blockIn(t, 1)
	const n = 100_000_000
	r := &CommandRunner{Template: "head -c " + strconv.Itoa(n) + " /dev/zero | tr '\\0' x; echo; echo done >&2"}
	res, err := r.Run(context.Background(), spec)
	require.NoError(t, err)
	st, err := os.Stat(spec.Log)
	require.NoError(t, err)
	stamp := "[stamp] " + res.Stamp + "\n"
	assert.Equal(t, int64(len(stamp)+n+1+len("done\n")), st.Size())
	assert.Equal(t, strings.TrimSuffix(stamp, "\n"), firstLine(t, spec.Log))
}

func TestCommandRunnerRefusesBeforeRunning(t *testing.T) {
	for _, tc := range []struct {
		name string
		r    CommandRunner
		spec func(BlockSpec) BlockSpec
		want string
	}{
		{name: "empty template", r: CommandRunner{}, want: "empty command template"},
		{name: "bad env", r: CommandRunner{Template: "true", Env: []string{"NOEQUALS"}}, want: "want KEY=VALUE"},
		{name: "zero rounds", r: CommandRunner{Template: "true"},
			spec: func(s BlockSpec) BlockSpec { s.Rounds = 0; return s }, want: "rounds 0"},
		{name: "no out", r: CommandRunner{Template: "true"},
			spec: func(s BlockSpec) BlockSpec { s.Out = ""; return s }, want: "no output directory"},
		{name: "out not empty", r: CommandRunner{Template: "true"},
			spec: func(s BlockSpec) BlockSpec {
				require.NoError(t, os.MkdirAll(s.Out, 0o755))
				require.NoError(t, os.WriteFile(filepath.Join(s.Out, "old"), nil, 0o644))
				return s
			}, want: "is not empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec := blockIn(t, 2)
			if tc.spec != nil {
				spec = tc.spec(spec)
			}
			_, err := tc.r.Run(context.Background(), spec)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.NoFileExists(t, spec.Log, "nothing may run before the checks")
		})
	}
}

func TestShellQuote(t *testing.T) {
	assert.Equal(t, "/a/b-c_d.e", ShellQuote("/a/b-c_d.e"))
	assert.Equal(t, "'/a b'", ShellQuote("/a b"))
	assert.Equal(t, `'it'\''s'`, ShellQuote("it's"))
	assert.Equal(t, "''", ShellQuote(""))
}

// TestCommandRunnerDiesWithParent kills a parent (this test binary,
// re-executed) in the middle of a block: Pdeathsig must take the block's
// command with it.
func TestCommandRunnerDiesWithParent(t *testing.T) {
	dir := t.TempDir()
	parent := exec.Command(os.Args[0], "-test.run=^$")
	parent.Env = append(os.Environ(), orphanEnv+"="+dir)
	require.NoError(t, parent.Start())
	pidFile := filepath.Join(dir, "out", "child.pid")
	var child int
	for range 500 {
		if b, err := os.ReadFile(pidFile); err == nil && strings.HasSuffix(string(b), "\n") {
			child, _ = strconv.Atoi(strings.TrimSpace(string(b)))
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	require.Positive(t, child, "the block never started")
	require.False(t, !procgroup.Running(child))
	require.NoError(t, parent.Process.Kill())
	_ = parent.Wait()
	assert.True(t, waitGone(child), "block command %d outlived its parent", child)
}
