package main

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAbLongLineIsTheArms: an arm that prints a line longer than the
// 64 MiB a block log's line may hold fails its block as the arm's fault,
// like a failing command: the error names the kept log, the line and the
// limit, and says what to change; it is never "this host's failure", which
// --resume would only repeat.
func TestAbLongLineIsTheArms(t *testing.T) {
	t.Chdir(t.TempDir())
	require.NoError(t, os.WriteFile("run.sh", []byte(outScript("0")), 0o755))
	// 65 MiB of x on one line, then an ordinary block.
	long := "head -c 68157440 /dev/zero | tr '\\0' x; echo; ./run.sh {rounds} {out}"
	code, _, errText := runCLI("ab", "--base-cmd", long, "--head-cmd", "./run.sh {rounds} {out}",
		"--rounds", "3", "--block", "3", "--warmup", "1", "--retries", "0")
	require.Equal(t, 1, code, errText)
	assert.Less(t, len(errText), 8<<10, "the long line is not echoed: %.2000s", errText)
	assert.Regexp(t, `w01-base-t1\.log\.gz: line \d+ is longer than 64 MiB, the longest line hbgbench reads`, errText)
	assert.Contains(t, errText, "the arm's output is the cause: make the arm print shorter lines")
	assert.Contains(t, errText, "warm-up block 1 of base failed")
	assert.NotContains(t, errText, "this host's failure")
	assert.NotContains(t, errText, "--resume runs the round again")
}
