package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hbgkit/hbgkit/abtest/campaign"
	"github.com/hbgkit/hbgkit/internal/gittest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAaTuneWritesTheRecipe: aa --tune on the default embedded arm prints the
// candidate table and a recommendation, and --write puts it into the
// repository's hbgbench.toml, which then reads as a recipe naming where
// the design came from.
func TestAaTuneWritesTheRecipe(t *testing.T) {
	t.Parallel()
	repo := t.TempDir()
	gittest.Git(t, repo, "init", "-q")
	j := filepath.Join(t.TempDir(), "tune.jsonl")
	code, out, errText := runCLI("aa", "--tune", "--rounds", "6", "--block", "10", "--journal", j, "--repo", repo, "--write", "--seed", "5")
	require.Equal(t, 0, code, errText)
	assert.Contains(t, out, "A/A calibration of ControlPlane")
	assert.Regexp(t, `design for detecting 10\.0% on ControlPlane: --block (5|10) --block-stat (min|median), about [0-9]+ rounds`, out)
	assert.Contains(t, out, "candidates, measured on the same 6 A/A rounds")
	assert.Regexp(t, `(?m)^\s+10  median\s`, out)
	assert.Contains(t, out, "← recommended")
	assert.Contains(t, out, "pinning: the log carries no rec_cpu_ns")
	path := filepath.Join(repo, campaign.RecipeFile)
	assert.Contains(t, errText, "hbgbench: wrote block = ")
	r, err := campaign.LoadRecipe(path)
	require.NoError(t, err)
	require.NotNil(t, r.Block)
	assert.Contains(t, []int{5, 10}, *r.Block)
	assert.Contains(t, []string{"min", "median"}, r.BlockStat)
	assert.Regexp(t, `^hbgbench aa --tune, [0-9-]+ [0-9:]+ UTC, on .+ \([0-9]+ CPUs\): σ_t [0-9.]+% over 6 A/A rounds; 10\.0% in about [0-9]+ rounds, `, r.Tuned)
}

// TestAaTuneRefusesToPinRecorderThreads: a pinned tuning of dsv4-blocks7,
// whose seven recorder threads spend CPU in every bind (E3 logs carry
// rec_cpu_ns), recommends nothing and says why; --write then fails and
// writes nothing.
func TestAaTuneRefusesToPinRecorderThreads(t *testing.T) {
	t.Parallel()
	repo := t.TempDir()
	gittest.Git(t, repo, "init", "-q")
	j := filepath.Join(t.TempDir(), "pin.jsonl")
	code, out, errText := runCLI("aa", "embedded:workload=dsv4-blocks7,epoch=e3", "--tune", "--cpus", "0", "--rounds", "6", "--block", "10",
		"--journal", j, "--repo", repo, "--write", "--seed", "6")
	assert.Equal(t, 1, code, errText)
	assert.Contains(t, out, "none recommended: measured pinned (--cpus 0), and pinning is not recommended: the recorder threads spent CPU during")
	assert.Contains(t, out, "one CPU would serialise them with the bind thread")
	assert.Contains(t, errText, "--write: no design to write")
	_, err := os.Stat(filepath.Join(repo, campaign.RecipeFile))
	assert.True(t, os.IsNotExist(err), "nothing written")
}

func TestAaTuneUsage(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"aa", "--write"}, "--write needs --tune"},
		{[]string{"aa", "--effect", "5%"}, "--effect needs --tune"},
		{[]string{"aa", "--tune", "--effect", "0"}, "--effect 0: want a change between 0 and 100%"},
		{[]string{"aa", "--tune", "--until-decided"}, "--tune with --until-decided"},
	} {
		code, _, errText := runCLI(tc.args...)
		assert.Equal(t, 2, code, "%v: %s", tc.args, errText)
		assert.Contains(t, errText, tc.want, "%v", tc.args)
	}
}
