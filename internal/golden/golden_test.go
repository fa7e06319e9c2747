package golden

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// recorder is a testing.TB that records failures instead of failing.
type recorder struct {
	testing.TB
	errors, fatals int
}

func (r *recorder) Helper()                           {}
func (r *recorder) Errorf(format string, args ...any) { r.errors++ }
func (r *recorder) Fatalf(format string, args ...any) { r.fatals++ }

// TestCheck: equal output passes and leaves no .got; a difference fails
// and writes .got; a missing golden file is fatal; -update writes the
// file, and the next check passes. It sets the -update flag, so it does
// not run in parallel.
func TestCheck(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "a.txt")

	r := &recorder{TB: t}
	Check(r, path, "x\n")
	assert.Equal(t, 1, r.fatals, "missing golden file")

	*update = true
	Check(r, path, []byte("x\n"))
	*update = false
	assert.False(t, Update())
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "x\n", string(data))

	r = &recorder{TB: t}
	Check(r, path, "y\n")
	assert.Equal(t, 1, r.errors)
	got, err := os.ReadFile(path + ".got")
	require.NoError(t, err)
	assert.Equal(t, "y\n", string(got))

	r = &recorder{TB: t}
	Check(r, path, "x\n")
	assert.Zero(t, r.errors+r.fatals)
	assert.NoFileExists(t, path+".got", "a passing check removes a stale .got")
}
