package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// exampleInputs maps the file names the Example texts use to the fixtures
// (relative to the repository root) that stand in for them. run.log and
// the records files are one matched pair: the swimlane gap fixture, whose
// artifact records belong to its log.
var exampleInputs = map[string]string{
	"host.log":                     "fixtures/hbg-e1.log",
	"host.log.gz":                  "fixtures/hbg-e1.log", // gzip-compressed when copied
	"log.txt":                      "fixtures/hbg-e1.log",
	"bind.log":                     "fixtures/hbg-e1.log",
	"run.log":                      "swimlane/testdata/gaps/run.log",
	"out/host_phase_records.jsonl": "swimlane/testdata/gaps/host_phase_records.jsonl",
	"r.jsonl":                      "swimlane/testdata/gaps/host_phase_records.jsonl",
	"spool/host.71234.log":         "fixtures/hbg-e3-spool.log",
	// Run directories (a log beside its records), for gaps and lanes.
	"out/host.0.log":                  "swimlane/testdata/gaps/run.log",
	"before/host.0.log":               "swimlane/testdata/gaps/run.log",
	"before/host_phase_records.jsonl": "swimlane/testdata/gaps/host_phase_records.jsonl",
	"after/host.0.log":                "swimlane/testdata/gaps/run.log",
	"after/host_phase_records.jsonl":  "swimlane/testdata/gaps/host_phase_records.jsonl",
}

// exampleOverrides are the inputs of commands that need other content
// under the same names: overlap's examples succeed only on a log that
// proves the overlap.
var exampleOverrides = map[string]map[string]string{
	"overlap": {
		"run.log":          "fixtures/conformance/031-overlap-pass-two-runs/input.log",
		"spool/host.1.log": "fixtures/conformance/031-overlap-pass-two-runs/input.log",
	},
}

// exampleDir writes the example inputs of command name into a new
// temporary directory and returns it.
func exampleDir(t *testing.T, root, name string) string {
	t.Helper()
	files := map[string]string{}
	for k, v := range exampleInputs {
		files[k] = v
	}
	if o, ok := exampleOverrides[name]; ok {
		delete(files, "spool/host.71234.log")
		for k, v := range o {
			files[k] = v
		}
	}
	dir := t.TempDir()
	for dst, src := range files {
		b, err := os.ReadFile(filepath.Join(root, src))
		require.NoError(t, err)
		if strings.HasSuffix(dst, ".gz") {
			var z bytes.Buffer
			zw := gzip.NewWriter(&z)
			_, err = zw.Write(b)
			require.NoError(t, err)
			require.NoError(t, zw.Close())
			b = z.Bytes()
		}
		p := filepath.Join(dir, dst)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, b, 0o644))
	}
	return dir
}

// exampleLine is one line of an Example text, split the way a shell
// would for the forms the examples use: `cat F | hbgtrace ...` and
// `hbgtrace ... > F`.
type exampleLine struct {
	args   []string // the command's words, the program first
	stdin  string   // file piped in by cat, or ""
	stdout string   // file stdout is redirected to, or ""
}

func parseExampleLine(t *testing.T, line string) exampleLine {
	t.Helper()
	var ex exampleLine
	words := shellWords(t, line)
	for i, w := range words {
		if w == "|" {
			require.Equal(t, 1, i-1, "only `cat FILE |` pipes: %q", line)
			require.Equal(t, "cat", words[0], line)
			ex.stdin, words = words[1], words[i+1:]
			break
		}
	}
	for i, w := range words {
		if w == ">" {
			require.Len(t, words[i+1:], 1, "one redirect target: %q", line)
			ex.stdout, words = words[i+1], words[:i]
			break
		}
	}
	ex.args = words
	require.NotEmpty(t, ex.args, line)
	return ex
}

// shellWords splits an example line into words as a shell would for the
// forms the examples use: blanks separate words, 'single quotes' keep
// blanks and > inside one word, and | and > outside quotes are words of
// their own.
func shellWords(t *testing.T, line string) []string {
	t.Helper()
	var words []string
	var cur strings.Builder
	inWord, quoted := false, false
	flush := func() {
		if inWord {
			words = append(words, cur.String())
			cur.Reset()
			inWord = false
		}
	}
	for _, r := range line {
		switch {
		case quoted && r == '\'':
			quoted = false
		case quoted:
			cur.WriteRune(r)
		case r == '\'':
			quoted, inWord = true, true
		case r == ' ' || r == '\t':
			flush()
		case r == '|' || r == '>':
			flush()
			words = append(words, string(r))
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	require.False(t, quoted, "unclosed quote: %q", line)
	flush()
	return words
}

// TestEveryExampleRuns runs every line of the Example text of hbgtrace and
// of each of its commands, in order, in a scratch
// directory holding fixtures under the names the examples use. Each line
// must exit 0 and produce output: its stdout, its redirect target, or
// every file it names with -o or --html (JSON outputs must parse). The
// `go tool pprof` line reads the profile the line before it wrote.
func TestEveryExampleRuns(t *testing.T) {
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	top := newRootCmd()
	cmds := []*cobra.Command{top}
	for _, c := range top.Commands() {
		if c.Name() != "help" && c.Name() != "completion" {
			cmds = append(cmds, c)
		}
	}
	require.Greater(t, len(cmds), 9, "the root and every command")
	for _, c := range cmds {
		t.Run(c.Name(), func(t *testing.T) {
			dir := exampleDir(t, root, c.Name())
			t.Chdir(dir)
			lines := strings.Split(c.Example, "\n")
			require.NotEmpty(t, lines)
			for _, line := range lines {
				ex := parseExampleLine(t, line)
				t.Run(strings.Join(strings.Fields(line), " "), func(t *testing.T) {
					runExampleLine(t, ex)
				})
			}
		})
	}
}

// runExampleLine runs one parsed Example line in the working directory
// and checks what it wrote.
func runExampleLine(t *testing.T, ex exampleLine) {
	var stdout, stderr bytes.Buffer
	switch ex.args[0] {
	case "hbgtrace":
		stdin := ""
		if ex.stdin != "" {
			b, err := os.ReadFile(ex.stdin)
			require.NoError(t, err)
			stdin = string(b)
		}
		code := run(ex.args[1:], strings.NewReader(stdin), &stdout, &stderr)
		require.Equal(t, 0, code, stderr.String())
	case "go":
		require.Equal(t, []string{"go", "tool", "pprof"}, ex.args[:3], "the only other program an example runs")
		goBin, err := exec.LookPath("go")
		if err != nil {
			t.Skip("no go on PATH to run go tool pprof")
		}
		cmd := exec.Command(goBin, ex.args[1:]...)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		require.NoError(t, cmd.Run(), stderr.String())
	default:
		t.Fatalf("example runs %s, which this test does not know", ex.args[0])
	}

	var outputs []string
	for i, a := range ex.args {
		if (a == "-o" || a == "--html") && i+1 < len(ex.args) {
			outputs = append(outputs, ex.args[i+1])
		}
	}
	if ex.stdout != "" {
		require.NoError(t, os.WriteFile(ex.stdout, stdout.Bytes(), 0o644))
		outputs = append(outputs, ex.stdout)
	}
	if len(outputs) == 0 {
		assert.NotEmpty(t, stdout.String(), "the example prints something")
	}
	for _, out := range outputs {
		b, err := os.ReadFile(out)
		require.NoError(t, err, "the example writes %s", out)
		require.NotEmpty(t, b, out)
		if strings.HasSuffix(out, ".gz") {
			zr, err := gzip.NewReader(bytes.NewReader(b))
			require.NoError(t, err, out)
			var plain bytes.Buffer
			_, err = plain.ReadFrom(zr)
			require.NoError(t, err, out)
			b = plain.Bytes()
			out = strings.TrimSuffix(out, ".gz")
		}
		if strings.HasSuffix(out, ".json") {
			assert.True(t, json.Valid(b), "%s is JSON", out)
		}
	}
}
