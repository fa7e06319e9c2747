package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
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

// TestEveryHelpValueRuns runs one bind with each value the harness help
// lists (placeholders N skipped); ascend runs against the ACL stub of
// runtimeharness/testdata, built here.
func TestEveryHelpValueRuns(t *testing.T) {
	long := NewCmdHarness(nil).Long
	_, block, ok := strings.Cut(long, "Switches (values, default first):\n")
	require.True(t, ok)
	text := map[string]string{}
	var order []string
	last := ""
	for _, line := range strings.Split(block, "\n") {
		switch {
		case strings.HasPrefix(line, "  --"):
			f := strings.Fields(line)
			last = strings.TrimPrefix(f[0], "--")
			order = append(order, last)
			text[last] = strings.Join(f[1:], " ")
		case strings.HasPrefix(line, "                ") && last != "":
			text[last] += " " + strings.TrimSpace(line)
		}
	}
	values := map[string][]string{}
	paren := regexp.MustCompile(`\([^)]*\)|\[[^\]]*\]`)
	for flag, line := range text {
		for _, v := range strings.Split(paren.ReplaceAllString(line, ""), ",") {
			v = strings.TrimSpace(v)
			if v == "" || v == "N" || strings.HasSuffix(v, "=N") {
				continue
			}
			values[flag] = append(values[flag], v)
		}
	}
	require.Len(t, order, 9, "every switch in the help")
	assert.Equal(t, []string{"model", "ascend"}, values["device"])
	assert.Equal(t, []string{"e1", "e2", "e3", "pr1870"}, values["epoch"])

	home := t.TempDir()
	lib := filepath.Join(home, "lib64", "libascendcl.so")
	require.NoError(t, os.MkdirAll(filepath.Dir(lib), 0o755))
	out, err := exec.Command("gcc", "-shared", "-fPIC", "-o", lib,
		"../../runtimeharness/testdata/ascendstub/acl_stub.c").CombinedOutput()
	require.NoError(t, err, "%s", out)
	t.Setenv("ASCEND_HOME_PATH", home)
	for _, flag := range order {
		for _, v := range values[flag] {
			t.Run(flag+"="+v, func(t *testing.T) {
				code, out, errText := runCLI("harness", "--"+flag, v, "--rounds", "2",
					"--workload", pick(flag, v, "qwen3-14b-decode"))
				require.Equal(t, 0, code, errText)
				binds := 2
				if flag == "ranks" && v == "2" {
					binds = 4 // two binds per rank
				}
				assert.Equal(t, binds, strings.Count(out, " depth=0 name="))
			})
		}
	}
}

// pick keeps the value under test when the flag is the workload.
func pick(flag, v, def string) string {
	if flag == "workload" {
		return v
	}
	return def
}
