package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hbgkit/hbgkit/abtest/campaign"
	"github.com/hbgkit/hbgkit/abtest/journal"
	"github.com/hbgkit/hbgkit/internal/gittest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hbgbench.toml's load runs --load's busy processes beside every block,
// announced and journaled as the recipe's; the command line's --load-cmd
// or --sweep load= replaces it; its load_cmd is shown escaped.
func TestRecipeLoad(t *testing.T) {
	t.Parallel()
	repo, _, _ := testRepo(t)
	recipe := "run = \"./run.sh {rounds} {out}\"\nrounds = 3\nblock = 3\nwarmup = 0\nload = 1\n"
	require.NoError(t, os.WriteFile(filepath.Join(repo, campaign.RecipeFile), []byte(recipe), 0o644))
	gittest.Git(t, repo, "add", campaign.RecipeFile)
	gittest.Git(t, repo, "commit", "-q", "-m", "recipe loads the host")
	cache := t.TempDir()
	ab := func(extra ...string) (string, string, *journal.Journal) {
		t.Helper()
		j := filepath.Join(t.TempDir(), "j.jsonl")
		code, out, errText := runCLI(append([]string{"ab", "--repo", repo, "--journal", j, "--cache", cache}, extra...)...)
		require.Equal(t, 0, code, errText)
		jr, err := journal.ReadJournal(j)
		require.NoError(t, err)
		return out, errText, jr
	}

	out, errText, jr := ab("--base", "main", "--head", "pr")
	assert.Contains(t, errText, "applying "+filepath.Join(repo, campaign.RecipeFile))
	assert.Contains(t, errText, "\n  load = 1\n")
	assert.Equal(t, 1, jr.Header.Config.Load)
	assert.Contains(t, jr.Header.RecipeSet, "load = 1")
	for _, b := range jr.Blocks {
		assert.Len(t, b.LoadPids, 1, "round %d %s", b.Round, b.Arm)
		assert.Contains(t, b.Stamp, " load=1 ")
	}
	assert.Contains(t, out, "Under load (--load 1, from hbgbench.toml): 1 busy process(es) ran beside every block")

	// The command line's load replaces the recipe's.
	_, errText, jr = ab("--base", "main", "--head", "pr", "--load-cmd", "exec sleep 30 # \x1b[2K")
	assert.NotContains(t, errText, "load = 1")
	assert.Equal(t, 0, jr.Header.Config.Load)
	assert.Contains(t, jr.Blocks[0].Stamp, ` load-cmd='exec sleep 30 # `)
	assertNothingActs(t, "stderr", errText)
	_, errText, jr = ab("--arm", "pr=pr", "--sweep", "load=0,2")
	assert.NotContains(t, errText, "load = 1")
	assert.Equal(t, 0, jr.Header.Config.Load)
	for _, b := range jr.Blocks {
		assert.Len(t, b.LoadPids, map[string]int{"base": 0, "head": 2}[b.Arm], "round %d %s", b.Round, b.Arm)
	}
}

// A recipe's load_cmd is the repository's content: announced escaped
// before anything runs, and escaped in the report.
func TestRecipeLoadCmdShownEscaped(t *testing.T) {
	t.Parallel()
	repo, _, _ := testRepo(t)
	recipe := "run = \"./run.sh {rounds} {out}\"\nrounds = 3\nblock = 3\nwarmup = 0\nload_cmd = \"exec sleep 30 \\u001b[2K\\u001b[1A\"\n"
	commitRecipe(t, repo, recipe)
	j := filepath.Join(t.TempDir(), "j.jsonl")
	code, out, errText := runCLI("ab", "--repo", repo, "--base", "main", "--head", "pr", "--journal", j, "--cache", t.TempDir())
	require.Equal(t, 0, code, errText)
	assert.Contains(t, errText, `  load_cmd = exec sleep 30 \x1b[2K\x1b[1A`)
	assertNothingActs(t, "stderr", errText)
	assertNothingActs(t, "the text report", out)
	assert.Contains(t, out, "Under load (--load-cmd, from hbgbench.toml): `exec sleep 30 \\x1b[2K\\x1b[1A`")
	for _, f := range []string{"markdown", "text", "json", "csv", "benchfmt"} {
		code, rep, errText := runCLI("report", j, "--format", f)
		require.Equal(t, 0, code, errText)
		assertNothingActs(t, f, rep)
	}
}
