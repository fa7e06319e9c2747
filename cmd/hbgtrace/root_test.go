package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestExitCodes pins the exit-status contract (README.md "hbgtrace") on the
// command line: 1 for a clear error naming the file, 2 for usage errors (with
// the usage printed), never a panic.
func TestExitCodes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		args   []string
		code   int
		stderr []string
	}{
		{"missing file", []string{"rounds", "no-such.log"}, 1,
			[]string{"hbgtrace: reading no-such.log: open no-such.log: no such file or directory"}},
		{"no log argument", []string{"rounds"}, 2,
			[]string{"hbgtrace: requires at least 1 arg(s)", "Usage:\n  hbgtrace rounds LOG..."}},
		{"unknown command", []string{"bogus"}, 2,
			[]string{`hbgtrace: unknown command "bogus"`, "Usage:"}},
		{"unknown flag", []string{"tpot", "--bogus", "x.log"}, 2,
			[]string{"hbgtrace: unknown flag: --bogus", "Usage:\n  hbgtrace tpot"}},
		{"mistyped flag", []string{"gaps", "--min-gp", "20us", "x.log"}, 2,
			[]string{"hbgtrace: unknown flag: --min-gp (did you mean --min-gap?)"}},
		{"bad format", []string{"tpot", "--format", "xml", "x.log"}, 2,
			[]string{`invalid --format "xml"`}},
		{"directory without host logs", []string{"tpot", t.TempDir()}, 1,
			[]string{"is a directory but holds no host.*.log or host.*.log.gz files"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(tc.args, strings.NewReader(""), &stdout, &stderr)
			assert.Equal(t, tc.code, code, stderr.String())
			for _, want := range tc.stderr {
				assert.Contains(t, stderr.String(), want)
			}
		})
	}
}

// TestHelpHygiene walks every command: Short, Long and
// Example set, no tabs, lines under 80 columns, in the help text and in the
// usage cobra prints.
func TestHelpHygiene(t *testing.T) {
	t.Parallel()
	root := newRootCmd()
	cmds := []*cobra.Command{root}
	for _, c := range root.Commands() {
		if c.Name() == "help" || c.Name() == "completion" {
			continue
		}
		cmds = append(cmds, c)
	}
	require.Greater(t, len(cmds), 7)
	for _, c := range cmds {
		t.Run(c.Name(), func(t *testing.T) {
			assert.NotEmpty(t, c.Short)
			assert.NotEmpty(t, c.Long)
			assert.NotEmpty(t, c.Example)
			for _, text := range []string{c.Short, c.Long, c.Example, c.UsageString()} {
				assert.NotContains(t, text, "\t")
				for _, line := range strings.Split(text, "\n") {
					assert.Less(t, len([]rune(line)), 80, "line too long: %q", line)
				}
			}
		})
	}
}
