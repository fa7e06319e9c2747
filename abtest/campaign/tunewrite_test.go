package campaign

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// WriteTuned replaces the keys' lines, adds the missing ones before the
// first table, keeps every other line, and the file reads back.
func TestWriteTunedKeepsTheRecipe(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), RecipeFile)
	old := "# our recipe\nbuild = \"make\"\nblock = 20\n\n[env]\nSIMPLER_LOG_LEVEL = \"TIMING\"\n"
	require.NoError(t, os.WriteFile(path, []byte(old), 0o640))
	require.NoError(t, WriteTuned(path, 10, "median", `hbgbench aa --tune, "quoted"`))
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "# our recipe\nbuild = \"make\"\nblock = 10\nblock_stat = \"median\"\ntuned = \"hbgbench aa --tune, \\\"quoted\\\"\"\n\n[env]\nSIMPLER_LOG_LEVEL = \"TIMING\"\n", string(got))
	r, err := LoadRecipe(path)
	require.NoError(t, err)
	assert.Equal(t, 10, *r.Block)
	assert.Equal(t, "median", r.BlockStat)
	assert.Equal(t, `hbgbench aa --tune, "quoted"`, r.Tuned)
	assert.Equal(t, "TIMING", r.Env["SIMPLER_LOG_LEVEL"])
	st, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o640), st.Mode().Perm())

	// Again: the lines are replaced, not added twice.
	require.NoError(t, WriteTuned(path, 40, "min", "second"))
	r, err = LoadRecipe(path)
	require.NoError(t, err)
	assert.Equal(t, 40, *r.Block)
	assert.Equal(t, "second", r.Tuned)

	// A new file.
	fresh := filepath.Join(t.TempDir(), RecipeFile)
	require.NoError(t, WriteTuned(fresh, 5, "min", "t"))
	got, err = os.ReadFile(fresh)
	require.NoError(t, err)
	assert.Equal(t, "block = 5\nblock_stat = \"min\"\ntuned = \"t\"\n", string(got))
}

// A recipe that does not read (a syntax error of the user's) is left as
// it was: nothing is renamed over it, nothing is left beside it.
func TestWriteTunedLeavesABadRecipeAlone(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, RecipeFile)
	old := "build = \"make\nrounds = 10\n"
	require.NoError(t, os.WriteFile(path, []byte(old), 0o644))
	err := WriteTuned(path, 10, "min", "t")
	require.ErrorContains(t, err, "the tuned recipe would not read back, left as it was")
	got, rerr := os.ReadFile(path)
	require.NoError(t, rerr)
	assert.Equal(t, old, string(got))
	entries, rerr := os.ReadDir(dir)
	require.NoError(t, rerr)
	assert.Len(t, entries, 1)
}
