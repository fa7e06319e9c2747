package procgroup

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// helperEnv makes the test binary the parent process of TestMain: it
// starts a group whose shell leaves a background sleep (a grandchild),
// watches the group unless told not to, says so, and waits to be killed.
const helperEnv = "PROCGROUP_TEST_PARENT"

func TestMain(m *testing.M) {
	if dir := os.Getenv(helperEnv); dir != "" {
		parent(dir)
		return
	}
	os.Exit(m.Run())
}

func parent(dir string) {
	cmd := exec.Command("/bin/sh", "-c", `sleep 60 & echo $! > "$1/grandchild.tmp"; mv "$1/grandchild.tmp" "$1/grandchild"; wait`, "sh", dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		os.Exit(3)
	}
	if os.Getenv("PROCGROUP_TEST_NOWATCH") == "" {
		if _, err := Watch(cmd.Process.Pid); err != nil {
			os.Exit(4)
		}
	}
	_ = os.WriteFile(filepath.Join(dir, "ready"), nil, 0o644)
	time.Sleep(time.Hour)
}

// killedParent runs the parent, kills it with SIGKILL once its group is
// up, and returns the grandchild's pid.
func killedParent(t *testing.T, watch bool) int {
	t.Helper()
	dir := t.TempDir()
	p := exec.Command(os.Args[0], "-test.run=^$")
	p.Env = append(os.Environ(), helperEnv+"="+dir)
	if !watch {
		p.Env = append(p.Env, "PROCGROUP_TEST_NOWATCH=1")
	}
	require.NoError(t, p.Start())
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, e1 := os.Stat(filepath.Join(dir, "ready"))
		_, e2 := os.Stat(filepath.Join(dir, "grandchild"))
		if e1 == nil && e2 == nil {
			break
		}
		require.True(t, time.Now().Before(deadline), "the parent never came up")
		time.Sleep(10 * time.Millisecond)
	}
	b, err := os.ReadFile(filepath.Join(dir, "grandchild"))
	require.NoError(t, err)
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	require.NoError(t, err)
	require.True(t, Running(pid))
	require.NoError(t, p.Process.Signal(syscall.SIGKILL))
	_, _ = p.Process.Wait()
	return pid
}

// gone waits up to 10 s for pid to end.
func gone(pid int) bool {
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if !Running(pid) {
			return true
		}
	}
	return false
}

// TestWatchKillsTheGroupOfAKilledParent: with a watchdog, the background
// grandchild of a SIGKILLed parent's group dies; without one it lives on
// (the leader alone gets Pdeathsig), which is what the watchdog is for.
func TestWatchKillsTheGroupOfAKilledParent(t *testing.T) {
	pid := killedParent(t, true)
	require.True(t, gone(pid), "the grandchild %d outlived its killed parent", pid)

	pid = killedParent(t, false)
	time.Sleep(200 * time.Millisecond)
	lived := Running(pid)
	_ = syscall.Kill(pid, syscall.SIGKILL)
	require.True(t, lived, "without a watchdog the grandchild should have lived on; the test shows nothing")
}

// TestStopLeavesTheGroupAlone: a watchdog stopped normally signals nothing.
func TestStopLeavesTheGroupAlone(t *testing.T) {
	cmd := exec.Command("sleep", "60")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	require.NoError(t, cmd.Start())
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	d, err := Watch(cmd.Process.Pid)
	require.NoError(t, err)
	d.Stop()
	time.Sleep(100 * time.Millisecond)
	require.True(t, Running(cmd.Process.Pid), "Stop killed the group")
	var nilDog *Watchdog
	nilDog.Stop() // a nil watchdog is a no-op
	_, err = Watch(0)
	require.Error(t, err)
}

// BenchmarkWatch is what starting a watchdog costs the caller, the time
// Watch takes while the block it watches starts; the watchdog's own start
// and exit run off the clock, 20 ms apart, as they are a block apart.
func BenchmarkWatch(b *testing.B) {
	cmd := exec.Command("sleep", "600")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	for range b.N {
		d, err := Watch(cmd.Process.Pid)
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		time.Sleep(20 * time.Millisecond)
		d.Stop()
		time.Sleep(20 * time.Millisecond)
		b.StartTimer()
	}
}

// TestRunning: this process runs; a child that has exited is not running
// before it is reaped (a zombie) nor after; pid 0 is no process.
func TestRunning(t *testing.T) {
	require.True(t, Running(os.Getpid()))
	c := exec.Command("true")
	require.NoError(t, c.Start())
	for deadline := time.Now().Add(10 * time.Second); Running(c.Process.Pid); time.Sleep(5 * time.Millisecond) {
		require.True(t, time.Now().Before(deadline), "the exited child still runs")
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(c.Process.Pid) + "/stat")
	require.NoError(t, err, "not reaped yet, the zombie is still in /proc")
	require.Contains(t, string(b), ") Z ")
	require.NoError(t, c.Wait())
	require.False(t, Running(c.Process.Pid))
	require.False(t, Running(0))
}
