package main

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// harnessDocCommands returns the `go run ./cmd/hbgbench harness …` lines of
// the fenced code blocks of a document (of the README's "hbgbench harness"
// section only).
func harnessDocCommands(t *testing.T, path, section string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	text := string(b)
	if section != "" {
		_, rest, ok := strings.Cut(text, section)
		require.True(t, ok, "%s has no %q", path, section)
		text, _, _ = strings.Cut(rest, "\n## ")
	}
	var out []string
	fenced := false
	s := bufio.NewScanner(strings.NewReader(text))
	for s.Scan() {
		line := strings.TrimSpace(s.Text())
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
			continue
		}
		if cmd, ok := strings.CutPrefix(line, "go run ./cmd/hbgbench "); fenced && ok {
			cmd, _, _ = strings.Cut(cmd, "#")
			out = append(out, strings.TrimSpace(cmd))
		}
	}
	return out
}

// TestHarnessDocExamples is the harness-complete check of the docs: every
// `hbgbench harness` command of docs/harness.md and of the README's
// harness section runs (in a scratch directory, /tmp paths moved into it)
// and writes the log it names.
func TestHarnessDocExamples(t *testing.T) {
	cmds := append(harnessDocCommands(t, "../../docs/harness.md", ""),
		harnessDocCommands(t, "../../README.md", "## hbgbench harness")...)
	require.GreaterOrEqual(t, len(cmds), 8)
	dir := t.TempDir()
	t.Chdir(dir)
	for _, c := range cmds {
		t.Run(c, func(t *testing.T) {
			args := strings.Fields(strings.ReplaceAll(c, "/tmp/", dir+"/"))
			require.Equal(t, "harness", args[0])
			code, out, errText := runCLI(args...)
			require.Equal(t, 0, code, errText)
			for i, a := range args {
				if a == "-o" {
					path := args[i+1]
					if !filepath.IsAbs(path) {
						path = filepath.Join(dir, path)
					}
					b, err := os.ReadFile(path)
					require.NoError(t, err)
					assert.True(t, strings.HasPrefix(string(b), "[stamp] hbgkit-harness "))
					return
				}
			}
			assert.True(t, strings.HasPrefix(out, "[stamp] hbgkit-harness "))
		})
	}
}
