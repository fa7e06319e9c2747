package journal

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestShellJoinRoundTrips: /bin/sh splits a joined command line back into
// the same argv, plain words stay unquoted, and the rest are quoted.
func TestShellJoinRoundTrips(t *testing.T) {
	t.Parallel()
	argv := []string{"hbgbench", "ab", "--run", "./run.sh {rounds} {out}", "--env", "MSG=it's $HOME", "",
		"--base-cmd=cat *.log", `back\slash "q"`, "--margin", "1%", "a\nb", "--journal", "c.jsonl"}
	line := ShellJoin(argv)
	assert.True(t, strings.HasPrefix(line, "hbgbench ab --run './run.sh {rounds} {out}' --env 'MSG=it'\\''s $HOME' '' '--base-cmd=cat *.log'"), line)
	assert.True(t, strings.HasSuffix(line, " --margin 1% 'a\nb' --journal c.jsonl"), line)
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	out, err := exec.Command(sh, "-c", "set -- "+line+`; for a in "$@"; do printf '%s\0' "$a"; done`).Output()
	require.NoError(t, err)
	got := strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
	assert.Equal(t, argv, got)
}
