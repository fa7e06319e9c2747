package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hbgkit/hbgkit/abtest/journal"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAbTemplateRefusedBeforeAnyBlock: a placeholder inside single quotes
// is a usage error (exit 2) naming it and the template, before any
// journal or worktree exists.
func TestAbTemplateRefusedBeforeAnyBlock(t *testing.T) {
	t.Parallel()
	cat := catArm(t)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"base command", []string{"--base-cmd", "cp x '{out}/host.1.log'", "--head-cmd", cat},
			`command template "cp x '{out}/host.1.log'": {out} stands inside single quotes`},
		{"head command", []string{"--base-cmd", cat, "--head-cmd", "ls `echo {out}`"},
			`command template "ls ` + "`echo {out}`" + `": {out} stands inside backquotes`},
		{"aa command", []string{"--cmd", "run.sh '{rounds}' {out}"}, `{rounds} stands inside single quotes`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			j := filepath.Join(t.TempDir(), "j.jsonl")
			verb := "ab"
			if tc.name == "aa command" {
				verb = "aa"
			}
			code, _, errText := runCLI(append([]string{verb, "--journal", j}, tc.args...)...)
			assert.Equal(t, 2, code, errText)
			assert.Contains(t, errText, tc.want)
			if strings.Contains(tc.want, "single quotes") {
				assert.Contains(t, errText, `write it bare`)
			}
			assert.NoFileExists(t, j, "no journal before a block runs")
		})
	}

	repo, _, _ := testRepo(t)
	cache := t.TempDir()
	j := filepath.Join(t.TempDir(), "j.jsonl")
	code, _, errText := runCLI("ab", "--repo", repo, "--cache", cache, "--journal", j, "--base", "main", "--head", "pr",
		"--run", "./run.sh {rounds} '{out}'")
	assert.Equal(t, 2, code, errText)
	assert.Contains(t, errText, `--run: command template "./run.sh {rounds} '{out}'": {out} stands inside single quotes`)
	assert.NoFileExists(t, j)
	assert.Empty(t, cacheEntries(t, cache))
}

// TestAbHostileCampaignDirectory: a campaign whose journal directory is
// named to run commands, with {out} bare in one arm and inside double
// quotes in the other, runs every block on the exact directory and runs
// nothing else; the ruler still sets the two commands aside.
func TestAbHostileCampaignDirectory(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	dir := filepath.Join(root, "inj$(touch${IFS}PWNED1) 'q\" `touch${IFS}PWNED2`")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	j := filepath.Join(dir, "j.jsonl")
	fix := fixtureLog(t, "hbg-e1.log")
	base := "cp " + fix + " {out}/host.1.log"
	head := "cp " + fix + ` "{out}/host.1.log"`
	code, out, errText := abCmd(t, j, base, head)
	assert.Equal(t, 0, code, "%s\n%s", out, errText)
	for _, d := range []string{root, dir, "."} {
		for _, f := range []string{"PWNED1", "PWNED2"} {
			assert.NoFileExists(t, filepath.Join(d, f))
		}
	}
	jr, err := journal.ReadJournal(j)
	require.NoError(t, err)
	require.NotEmpty(t, jr.Blocks)
	for _, b := range jr.Blocks {
		assert.Empty(t, b.Error)
		assert.NotEmpty(t, b.Passes, "the block read the host log it left in {out}")
	}
	assert.False(t, strings.Contains(jr.Header.Ruler, "host.1.log"), "the commands are set aside: %s", jr.Header.Ruler)
}
