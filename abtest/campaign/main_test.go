package campaign

import (
	"os"
	"testing"

	"github.com/hbgkit/hbgkit/runtimeharness"
)

// exitEnv makes the test binary exit at once: the cheapest Go process, for
// measuring what spawning a block costs.
const exitEnv = "ABTEST_EXIT_AT_ONCE"

// TestMain lets the test binary serve as an embedded arm's child (the
// EmbeddedRunner re-executes it with ChildCommand) and as an empty process.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == runtimeharness.ChildCommand {
		os.Exit(runtimeharness.ChildMain(os.Args[2:], os.Stdout, os.Stderr))
	}
	if os.Getenv(exitEnv) == "1" {
		os.Exit(0)
	}
	os.Exit(m.Run())
}
