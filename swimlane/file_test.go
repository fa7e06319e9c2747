package swimlane

import (
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWriteFile(t *testing.T) {
	tests := []struct {
		name string
		file string
		gz   bool
	}{
		{"plain", "out.json", false},
		{"gzip", "out.json.gz", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, tc.file)
			require.NoError(t, os.WriteFile(path, []byte("old"), 0o600))
			require.NoError(t, WriteFile(path, func(w io.Writer) error {
				_, err := io.WriteString(w, `{"traceEvents": []}`)
				return err
			}))
			f, err := os.Open(path)
			require.NoError(t, err)
			defer f.Close()
			var r io.Reader = f
			if tc.gz {
				zr, err := gzip.NewReader(f)
				require.NoError(t, err)
				r = zr
			}
			b, err := io.ReadAll(r)
			require.NoError(t, err)
			assert.Equal(t, `{"traceEvents": []}`, string(b))
			fi, err := os.Stat(path)
			require.NoError(t, err)
			assert.Equal(t, os.FileMode(0o644), fi.Mode().Perm())
			entries, err := os.ReadDir(dir)
			require.NoError(t, err)
			assert.Len(t, entries, 1, "no temporary file left behind")
		})
	}
}

func TestWriteFileFailureKeepsOldFile(t *testing.T) {
	for _, file := range []string{"out.json", "out.json.gz"} {
		t.Run(file, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, file)
			require.NoError(t, os.WriteFile(path, []byte("old"), 0o644))
			boom := errors.New("boom")
			err := WriteFile(path, func(w io.Writer) error {
				_, _ = io.WriteString(w, `{"traceEvents": [`)
				return boom
			})
			assert.ErrorIs(t, err, boom)
			b, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.Equal(t, "old", string(b))
			entries, err := os.ReadDir(dir)
			require.NoError(t, err)
			assert.Len(t, entries, 1, "the temporary file is removed")
		})
	}
}

func TestWriteFileBadPath(t *testing.T) {
	dir := t.TempDir()
	err := WriteFile(filepath.Join(dir, "missing", "out.json"), func(io.Writer) error { return nil })
	assert.ErrorContains(t, err, "out.json")
	err = WriteFile(dir, func(io.Writer) error { return nil })
	assert.Error(t, err, "a directory is not replaced")
}
