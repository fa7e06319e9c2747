package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hbgkit/hbgkit/internal/golden"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// consoleExample is one fenced console block of a document: a
// `$ hbgtrace …` line, then the output it printed.
type consoleExample struct {
	line   int // 1-based line of the command in the README
	args   []string
	output string // the block's text after the command line
	start  int    // byte offset of the output in the document
	end    int    // byte offset of the closing fence
}

// consoleExamples finds every ```console block whose first line starts with
// "$ hbgtrace ".
func consoleExamples(text string) []consoleExample {
	var out []consoleExample
	const open = "```console\n"
	pos := 0
	for {
		i := strings.Index(text[pos:], open)
		if i < 0 {
			return out
		}
		bodyStart := pos + i + len(open)
		j := strings.Index(text[bodyStart:], "```")
		if j < 0 {
			return out
		}
		bodyEnd := bodyStart + j
		body := text[bodyStart:bodyEnd]
		pos = bodyEnd + 3
		first, rest, _ := strings.Cut(body, "\n")
		cmdline, ok := strings.CutPrefix(first, "$ hbgtrace ")
		if !ok {
			continue
		}
		out = append(out, consoleExample{
			line:   strings.Count(text[:bodyStart], "\n") + 1,
			args:   strings.Fields(cmdline),
			output: rest,
			start:  bodyStart + len(first) + 1,
			end:    bodyEnd,
		})
	}
}

// TestDocExamples runs every `$ hbgtrace …` example of the README and of
// docs/*.md from the repository root and checks that each document shows
// the command's real stdout. With -update it rewrites the quoted outputs.
func TestDocExamples(t *testing.T) {
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	require.NoError(t, err)
	docs = append([]string{filepath.Join(root, "README.md")}, docs...)
	t.Chdir(root)
	for _, path := range docs {
		rel, _ := filepath.Rel(root, path)
		t.Run(rel, func(t *testing.T) { checkConsoleExamples(t, path) })
	}
}

// TestREADMEHasExamples keeps the README's examples from disappearing.
func TestREADMEHasExamples(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	assert.GreaterOrEqual(t, len(consoleExamples(string(b))), 5, "one example per command")
}

// checkConsoleExamples runs the examples of one document (the working
// directory is the repository root) and compares or, with -update,
// rewrites their outputs.
func checkConsoleExamples(t *testing.T, path string) {
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	text := string(b)
	examples := consoleExamples(text)
	var rewritten strings.Builder
	last := 0
	for _, ex := range examples {
		var stdout, stderr bytes.Buffer
		code := run(ex.args, strings.NewReader(""), &stdout, &stderr)
		require.Equal(t, 0, code, "%s line %d: %v: %s", path, ex.line, ex.args, stderr.String())
		if golden.Update() {
			rewritten.WriteString(text[last:ex.start])
			rewritten.WriteString(stdout.String())
			last = ex.end
			continue
		}
		assert.Equal(t, stdout.String(), ex.output, "%s line %d: hbgtrace %s", path, ex.line, strings.Join(ex.args, " "))
	}
	if golden.Update() && len(examples) > 0 {
		rewritten.WriteString(text[last:])
		require.NoError(t, os.WriteFile(path, []byte(rewritten.String()), 0o644))
	}
}
