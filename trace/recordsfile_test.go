package trace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A kept block's host_phase_records.jsonl.gz reads as its plain copy
// does, and DirRecords finds it in a run directory when the plain file is
// not there (the plain one first when both are).
func TestGzipRecords(t *testing.T) {
	t.Parallel()
	plain := []byte(`{"pid": 7, "inv": 1, "records": [{"phase": "graph_submit", "start_ns": 10, "end_ns": 20}]}` + "\n" +
		`{"pid": 7, "inv": 2, "records": []}` + "\n")
	dir := t.TempDir()
	assert.Equal(t, "", DirRecords(dir))
	gz := filepath.Join(dir, RecordsFile+".gz")
	require.NoError(t, os.WriteFile(gz, gzipped(t, plain), 0o644))
	assert.Equal(t, gz, DirRecords(dir))
	plainPath := filepath.Join(t.TempDir(), "plain.jsonl")
	require.NoError(t, os.WriteFile(plainPath, plain, 0o644))
	want, err := LoadPhaseRecords([]string{plainPath})
	require.NoError(t, err)
	got, warns, err := LoadPhaseRecordsWarn([]string{gz})
	require.NoError(t, err)
	assert.Empty(t, warns)
	require.Len(t, got, 2)
	for i := range want {
		assert.Equal(t, want[i].Records, got[i].Records)
		assert.Equal(t, want[i].Pid, got[i].Pid)
	}
	p := filepath.Join(dir, RecordsFile)
	require.NoError(t, os.WriteFile(p, plain, 0o644))
	assert.Equal(t, p, DirRecords(dir))
	// A directory by that name is not a records file.
	d2 := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(d2, RecordsFile), 0o755))
	assert.Equal(t, "", DirRecords(d2))
}

// A gzip bomb of records stops at MaxRecordsBytes of content with an
// error naming the file, instead of taking the memory it expands to.
func TestGzipRecordsBomb(t *testing.T) {
	old := MaxRecordsBytes
	MaxRecordsBytes = 1 << 20
	defer func() { MaxRecordsBytes = old }()
	line := `{"pid": 7, "inv": 1, "records": []}` + "\n"
	bomb := gzipped(t, []byte(strings.Repeat(line, (2<<20)/len(line))))
	p := filepath.Join(t.TempDir(), "records.jsonl.gz")
	require.NoError(t, os.WriteFile(p, bomb, 0o644))
	_, err := LoadPhaseRecords([]string{p})
	require.Error(t, err)
	assert.Contains(t, err.Error(), p)
	assert.Contains(t, err.Error(), "expands past 1 MiB")
	// A corrupt gzip stream is an error naming the file, not a silent
	// "holds no pass".
	bad := append(append([]byte(nil), bomb[:len(bomb)/2]...), 0xff, 0xff)
	require.NoError(t, os.WriteFile(p, bad, 0o644))
	_, err = LoadPhaseRecords([]string{p})
	require.Error(t, err)
	assert.Contains(t, err.Error(), p)
}
