package main

import (
	"os"
	"testing"

	"github.com/hbgkit/hbgkit/internal/buildinfo"
	"github.com/hbgkit/hbgkit/runtimeharness"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// mainEnv makes the test binary run as hbgbench itself, for tests that
// need a real hbgbench process to kill.
const mainEnv = "HBGBENCH_TEST_AS_MAIN"

// TestMain lets the test binary serve as the embedded arms' child (an
// EmbeddedRunner re-executes os.Executable() with ChildCommand) and, with
// mainEnv set, as the hbgbench binary.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == runtimeharness.ChildCommand {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	if os.Getenv(mainEnv) == "1" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// TestVersion: hbgbench names itself as hbgtrace does (cmd/hbgtrace
// TestVersionFlag): "hbgbench (hbgkit) VERSION go1.x".
func TestVersion(t *testing.T) {
	code, out, _ := runCLI("--version")
	require.Equal(t, 0, code)
	assert.Regexp(t, `^hbgbench \(hbgkit\) \S+( rev [0-9a-f]+(\+dirty)?)? go\S+\n$`, out)
	assert.Equal(t, buildinfo.Read().Program("hbgbench")+"\n", out)
}
