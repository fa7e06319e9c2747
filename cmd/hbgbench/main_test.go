package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/hbgkit/hbgkit/internal/buildinfo"
	"github.com/hbgkit/hbgkit/internal/procgroup"
	"github.com/hbgkit/hbgkit/runtimeharness"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// mainEnv makes the test binary run as hbgbench itself, for tests that
// need a real hbgbench process to kill.
const mainEnv = "HBGBENCH_TEST_AS_MAIN"

// testBinEnv names this test binary for the scripts of git and command
// arms (runScript, outScript).
const testBinEnv = "HBGBENCH_TEST_BIN"

// TestMain lets the test binary serve as the embedded arms' child (an
// EmbeddedRunner re-executes os.Executable() with ChildCommand) and, with
// mainEnv set, as the hbgbench binary.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == runtimeharness.ChildCommand {
		writeCPUsStatus()
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	if os.Getenv(mainEnv) == "1" {
		_ = procgroup.EnableSubreaper() // as main does
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	// The run.sh scripts of the git and command arms run this binary as
	// hbgbench. Set once here, not with t.Setenv, so that the tests that
	// use it may run in parallel.
	if err := os.Setenv(testBinEnv, os.Args[0]); err != nil {
		panic(err)
	}
	os.Exit(m.Run())
}

// cpusStatusEnv names a directory where the test binary, serving as an
// embedded block's child, writes the Cpus_allowed_list line of its own
// /proc/PID/status, in a file named by its pid (TestAbCpusPinsEmbeddedBlocks).
const cpusStatusEnv = "HBGBENCH_TEST_CPUS_STATUS"

func writeCPUsStatus() {
	dir := os.Getenv(cpusStatusEnv)
	if dir == "" {
		return
	}
	pid := strconv.Itoa(os.Getpid())
	status, err := os.ReadFile("/proc/" + pid + "/status")
	if err != nil {
		status = []byte(err.Error())
	}
	for line := range strings.Lines(string(status)) {
		if strings.HasPrefix(line, "Cpus_allowed_list:") {
			status = []byte(line)
		}
	}
	_ = os.WriteFile(filepath.Join(dir, pid), status, 0o644)
}

// TestVersion: hbgbench names itself as hbgtrace does (cmd/hbgtrace
// TestVersionFlag): "hbgbench (hbgkit) VERSION go1.x".
func TestVersion(t *testing.T) {
	t.Parallel()
	code, out, _ := runCLI("--version")
	require.Equal(t, 0, code)
	assert.Regexp(t, `^hbgbench \(hbgkit\) \S+( rev [0-9a-f]+(\+dirty)?)? go\S+\n$`, out)
	assert.Equal(t, buildinfo.Read().Program("hbgbench")+"\n", out)
}
