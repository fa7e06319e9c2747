package runtimeharness

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// orphanEnv makes the test binary a parent that runs one command block and
// waits to be killed (TestCommandRunnerDiesWithParent).
const orphanEnv = "HBGKIT_TEST_ORPHAN_DIR"

// TestMain lets the test binary serve as an EmbeddedRunner's child: the
// runner re-executes os.Args[0] with ChildCommand and childEnv set.
func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" && len(os.Args) > 1 && os.Args[1] == ChildCommand {
		os.Exit(ChildMain(os.Args[2:], os.Stdout, os.Stderr))
	}
	if dir := os.Getenv(orphanEnv); dir != "" {
		r := &CommandRunner{Template: "echo $$ > {out}/child.pid; exec sleep 1000"}
		_, _ = r.Run(context.Background(), BlockSpec{Rounds: 1, Out: filepath.Join(dir, "out"),
			Log: filepath.Join(dir, "block.log")})
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// testRunner returns an EmbeddedRunner that re-executes this test binary
// and writes the records artifact.
func testRunner(cfg Config) *EmbeddedRunner {
	return &EmbeddedRunner{Config: cfg, Exe: os.Args[0], Args: []string{ChildCommand}, Records: true}
}
