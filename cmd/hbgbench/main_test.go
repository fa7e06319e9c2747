package main

import (
	"os"
	"testing"

	"github.com/hbgkit/hbgkit/runtimeharness"
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
