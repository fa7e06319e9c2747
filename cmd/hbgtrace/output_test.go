package main

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOutputNeverDestroysAnInput: an -o (or --html) that names an input,
// however spelled, or the other output, is refused with exit 1 before
// anything is written, and every file is left as it was.
func TestOutputNeverDestroysAnInput(t *testing.T) {
	log, err := os.ReadFile("../../fixtures/hbg-e1.log")
	require.NoError(t, err)
	cases := []struct {
		name string
		args []string
		err  string // on stderr
	}{
		{"swimlane onto its log", []string{"swimlane", "x.log", "-o", "x.log"}, "writing x.log: it is the input x.log"},
		{"html onto its log", []string{"swimlane", "x.log", "--html", "./x.log"}, "writing ./x.log: it is the input x.log"},
		{"trace onto its gzipped log", []string{"trace", "x.log.gz", "-o", "x.log.gz"}, "writing x.log.gz: it is the input x.log.gz"},
		{"pprof onto its log", []string{"pprof", "x.log", "-o", "x.log"}, "writing x.log: it is the input x.log"},
		{"through a link", []string{"trace", "link.log", "-o", "x.log"}, "writing x.log: it is the input link.log"},
		{"a relative spelling", []string{"trace", "x.log", "-o", "spool/../x.log"}, "writing spool/../x.log: it is the input x.log"},
		{"a file of a log directory", []string{"trace", "spool", "-o", "spool/host.1.log"}, "it is the input spool/host.1.log"},
		{"a records artifact", []string{"swimlane", "x.log", "--records", "r.jsonl", "-o", "r.jsonl"}, "writing r.jsonl: it is the input r.jsonl"},
		{"-o and --html alike", []string{"swimlane", "x.log", "-o", "a", "--html", "a"}, "writing a: it is also the output a"},
		{"-o and --html respelled", []string{"swimlane", "x.log", "-o", "old.json", "--html", "./spool/../old.json"}, "it is also the output old.json"},
		{"-o and --html through a dangling link", []string{"swimlane", "x.log", "-o", "dangling", "--html", "new.json"}, "writing new.json: it is also the output dangling"},
		{"-o and --html both stdout", []string{"swimlane", "x.log", "-o", "-", "--html", "-"}, "two outputs are standard output"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			files := map[string]string{
				"x.log": string(log), "spool/host.1.log": string(log),
				"r.jsonl": "", "old.json": "old",
			}
			for name, text := range files {
				require.NoError(t, os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755))
				require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644))
			}
			gz := gzipped(t, log)
			require.NoError(t, os.WriteFile(filepath.Join(dir, "x.log.gz"), gz, 0o644))
			files["x.log.gz"] = string(gz)
			require.NoError(t, os.Symlink("x.log", filepath.Join(dir, "link.log")))
			require.NoError(t, os.Symlink("new.json", filepath.Join(dir, "dangling")))
			inDir(t, dir)

			var stdout, stderr bytes.Buffer
			code := run(tc.args, strings.NewReader(""), &stdout, &stderr)
			assert.Equal(t, 1, code, "stderr: %s", stderr.String())
			assert.Contains(t, stderr.String(), tc.err)
			assert.Empty(t, stdout.String(), "nothing is written")
			for name, text := range files {
				got, err := os.ReadFile(filepath.Join(dir, name))
				require.NoError(t, err)
				assert.True(t, string(got) == text, "%s is left as it was", name)
			}
			for _, name := range []string{"a", "new.json"} {
				assert.NoFileExists(t, filepath.Join(dir, name))
			}
		})
	}
}

// TestOutputReadOnlyFileAsTheShellWould: a 0444 -o target is refused
// (exit 1, named) where the shell's > is refused, and replaced, mode kept,
// where > would write it: as root.
func TestOutputReadOnlyFileAsTheShellWould(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	log := filepath.Join(dir, "x.log")
	require.NoError(t, os.WriteFile(log, []byte("[STRACE] x\n"), 0o644))
	out := filepath.Join(dir, "ro.json")
	require.NoError(t, os.WriteFile(out, []byte("old"), 0o444))
	require.NoError(t, os.Chmod(out, 0o444))

	var stdout, stderr bytes.Buffer
	code := run([]string{"trace", log, "-o", out}, strings.NewReader(""), &stdout, &stderr)
	got, err := os.ReadFile(out)
	require.NoError(t, err)
	st, err := os.Stat(out)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o444), st.Mode().Perm())
	if os.Geteuid() == 0 {
		assert.Equal(t, 0, code, "root writes a 0444 file, as > does: %s", stderr.String())
		assert.NotEqual(t, "old", string(got))
		return
	}
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr.String(), "hbgtrace: trace: writing "+out+": the file may not be written (permission denied)")
	assert.Equal(t, "old", string(got))
}

func gzipped(t *testing.T, b []byte) []byte {
	t.Helper()
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	_, err := zw.Write(b)
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	return z.Bytes()
}

// inDir runs the rest of the test in dir.
func inDir(t *testing.T, dir string) {
	t.Helper()
	t.Chdir(dir)
}
