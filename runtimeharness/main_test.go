package runtimeharness

import (
	"os"
	"testing"
)

// TestMain lets the test binary serve as an EmbeddedRunner's child: the
// runner re-executes os.Args[0] with ChildCommand and childEnv set.
func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" && len(os.Args) > 1 && os.Args[1] == ChildCommand {
		os.Exit(ChildMain(os.Args[2:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// testRunner returns an EmbeddedRunner that re-executes this test binary.
func testRunner(cfg Config) *EmbeddedRunner {
	return &EmbeddedRunner{Config: cfg, Exe: os.Args[0], Args: []string{ChildCommand}}
}
