package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// readmeExample is one fenced console block of the README: a `$ hbgtrace …`
// line, then the output it printed.
type readmeExample struct {
	line   int // 1-based line of the command in the README
	args   []string
	output string // the block's text after the command line
	start  int    // byte offset of the output in the README
	end    int    // byte offset of the closing fence
}

// readmeExamples finds every ```console block whose first line starts with
// "$ hbgtrace ".
func readmeExamples(text string) []readmeExample {
	var out []readmeExample
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
		out = append(out, readmeExample{
			line:   strings.Count(text[:bodyStart], "\n") + 1,
			args:   strings.Fields(cmdline),
			output: rest,
			start:  bodyStart + len(first) + 1,
			end:    bodyEnd,
		})
	}
}

// TestREADME runs every `$ hbgtrace …` example of the README from the
// repository root and checks that the README shows its real stdout. With
// -update it rewrites the outputs in the README.
func TestREADME(t *testing.T) {
	path, err := filepath.Abs("../../README.md")
	require.NoError(t, err)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	text := string(b)
	examples := readmeExamples(text)
	require.NotEmpty(t, examples, "the README shows no hbgtrace example")

	t.Chdir(filepath.Dir(path))
	var rewritten strings.Builder
	last := 0
	for _, ex := range examples {
		var stdout, stderr bytes.Buffer
		code := run(ex.args, strings.NewReader(""), &stdout, &stderr)
		require.Equal(t, 0, code, "README line %d: %v: %s", ex.line, ex.args, stderr.String())
		if *update {
			rewritten.WriteString(text[last:ex.start])
			rewritten.WriteString(stdout.String())
			last = ex.end
			continue
		}
		assert.Equal(t, stdout.String(), ex.output, "README line %d: hbgtrace %s", ex.line, strings.Join(ex.args, " "))
	}
	if *update {
		rewritten.WriteString(text[last:])
		require.NoError(t, os.WriteFile(path, []byte(rewritten.String()), 0o644))
	}
}
