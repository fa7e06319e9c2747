package runtimeharness

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseCPUList(t *testing.T) {
	good := map[string]string{
		"0":           "0",
		"1":           "1",
		"0-1":         "0-1",
		"0,2-3":       "0,2-3",
		"3,2,0":       "0,2-3",
		"0-0":         "0",
		" 0 , 1 ":     "0-1",
		"0-3,2-5":     "0-5",
		"1023":        "1023",
		"0,2,4,5,6,8": "0,2,4-6,8",
		"007":         "7",
	}
	for in, want := range good {
		got, err := ParseCPUList(in)
		if assert.NoError(t, err, in) {
			assert.Equal(t, want, got, in)
		}
	}
	bad := map[string]string{
		"":                     "empty CPU list",
		"  ":                   "empty CPU list",
		"x":                    `"x" is not a CPU number`,
		"-1":                   `"" is not a CPU number`,
		"1-0":                  "range 1-0: its end is below its start",
		"0,,1":                 `"" is not a CPU number`,
		"0,":                   `"" is not a CPU number`,
		"1024":                 "CPU 1024: beyond the 1024 CPUs",
		"0-99999":              "CPU 99999: beyond the 1024 CPUs",
		"0-7:2":                `"7:2" is not a CPU number`,
		"0 1":                  `"0 1" is not a CPU number`,
		"1-2-3":                `"2-3" is not a CPU number`,
		"+1":                   `"+1" is not a CPU number`,
		"99999999999999999999": "beyond the 1024 CPUs",
	}
	for in, want := range bad {
		_, err := ParseCPUList(in)
		if assert.Error(t, err, in) {
			assert.Contains(t, err.Error(), want, in)
		}
	}
}

// FuzzParseCPUList feeds arbitrary CPU lists to the parser: it never
// panics, and a list it accepts is canonical after one pass (parsing the
// canonical form gives it back).
func FuzzParseCPUList(f *testing.F) {
	for _, s := range []string{"0", "0-1", "0,2-3", "3,2,0", "1-0", "0,,1", "1023", "1024", "0-7:2", " 1 ", "-", ",", "0-", "00-01"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		list, err := ParseCPUList(s)
		if err != nil {
			return
		}
		again, err := ParseCPUList(list)
		if err != nil || again != list {
			t.Fatalf("ParseCPUList(%q) = %q, whose own parse is %q, %v", s, list, again, err)
		}
	})
}

// pinnable skips a test of pinning to CPU 0 where pinning could not be
// told from no pinning (CPU 0 is all this process has) or CPU 0 is not
// this process's to use.
func pinnable(t *testing.T) string {
	t.Helper()
	allowed, err := AllowedCPUs()
	require.NoError(t, err)
	if _, err := CheckCPUList("0"); err != nil || allowed == "0" {
		t.Skipf("this process runs on CPUs %s: pinning to CPU 0 cannot be told apart", allowed)
	}
	return allowed
}

func TestCheckCPUList(t *testing.T) {
	allowed := pinnable(t)
	got, err := CheckCPUList(allowed)
	require.NoError(t, err)
	assert.Equal(t, allowed, got)
	_, err = CheckCPUList("1023")
	if !strings.Contains(allowed, "1023") {
		require.Error(t, err)
		assert.Contains(t, err.Error(), "CPU 1023 is not one this process may use (it may use "+allowed+")")
	}
}

// TestCommandRunnerPinned: a pinned block's shell and a process it forks
// run on CPU 0 only, read back from /proc/PID/status; the stamp says so;
// and this process's threads are not left pinned.
func TestCommandRunnerPinned(t *testing.T) {
	allowed := pinnable(t)
	dir := t.TempDir()
	r := &CommandRunner{Template: `grep Cpus_allowed_list /proc/$$/status > {out}/self; (grep Cpus_allowed_list /proc/self/status) > {out}/child`}
	spec := BlockSpec{Rounds: 1, Out: filepath.Join(dir, "out"), Log: filepath.Join(dir, "log"), CPUs: "0"}
	res, err := r.Run(context.Background(), spec)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(res.Stamp, "cpus=0 grep "), res.Stamp)
	for _, f := range []string{"self", "child"} {
		b, err := os.ReadFile(filepath.Join(spec.Out, f))
		require.NoError(t, err)
		assert.Equal(t, "Cpus_allowed_list:\t0\n", string(b), f)
	}
	// No thread of this process is left pinned: the one that started
	// the block got its mask back.
	tasks, err := filepath.Glob("/proc/self/task/*/status")
	require.NoError(t, err)
	require.NotEmpty(t, tasks)
	for _, task := range tasks {
		b, err := os.ReadFile(task)
		if err != nil {
			continue // a thread that ended
		}
		assert.Contains(t, string(b), "\nCpus_allowed_list:\t"+allowed+"\n", task)
	}

	// Unpinned, the same block runs on every CPU this process has.
	spec = BlockSpec{Rounds: 1, Out: filepath.Join(dir, "out2"), Log: filepath.Join(dir, "log2")}
	res, err = r.Run(context.Background(), spec)
	require.NoError(t, err)
	assert.False(t, strings.Contains(res.Stamp, "cpus="), res.Stamp)
	b, err := os.ReadFile(filepath.Join(spec.Out, "child"))
	require.NoError(t, err)
	assert.Equal(t, "Cpus_allowed_list:\t"+allowed+"\n", string(b))

	_, err = r.Run(context.Background(), BlockSpec{Rounds: 1, Out: filepath.Join(dir, "out3"), Log: filepath.Join(dir, "log3"), CPUs: "1-0"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), `block spec: CPUs "1-0": range 1-0`)
}

// TestChildRefusesAnUnpinnedRun: the embedded child reads its own
// affinity back and refuses to run a block that is not pinned as the
// parent asked (this test process is not pinned to CPU 0).
func TestChildRefusesAnUnpinnedRun(t *testing.T) {
	allowed := pinnable(t)
	var stdout, stderr bytes.Buffer
	code := ChildMain([]string{"--spec", "embedded:", "--rounds", "1", "--cpus", "0"}, &stdout, &stderr)
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr.String(), "--cpus 0: this process runs on CPUs "+allowed+", not pinned as asked")
}
