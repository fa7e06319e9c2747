package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestExitCodes pins the exit-status contract of DESIGN §1 on the command
// line: 1 for a clear error naming the file, 2 for usage errors (with the
// usage printed), never a panic.
func TestExitCodes(t *testing.T) {
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
		{"bad format", []string{"tpot", "--format", "xml", "x.log"}, 2,
			[]string{`invalid --format "xml"`}},
		{"directory without host logs", []string{"tpot", t.TempDir()}, 1,
			[]string{"is a directory but holds no host.*.log files"}},
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
