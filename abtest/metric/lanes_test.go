package metric

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hbgkit/hbgkit/trace"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// gapsRunDir makes a run directory of swimlane's gaps fixture: its log as
// host.0.log and, with records, its host_phase_records.jsonl (two binds of
// pid 9; in each, a 300 µs gap in which a recorder lane is born, two
// recordings at once, and a commit wait of 37 µs).
func gapsRunDir(t *testing.T, records bool) string {
	t.Helper()
	dir := t.TempDir()
	src := filepath.Join("..", "..", "swimlane", "testdata", "gaps")
	copyFile(t, filepath.Join(src, "run.log"), filepath.Join(dir, "host.0.log"))
	if records {
		copyFile(t, filepath.Join(src, trace.RecordsFile), filepath.Join(dir, trace.RecordsFile))
	}
	return dir
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(to, b, 0o644))
}

// TestReadBlockLogLanes reads a run directory with its records: each
// bind gets the lane numbers `hbgtrace lanes` prints for it, the lane
// births only in the warm bind; without the records none of them is there
// (missing, not 0).
func TestReadBlockLogLanes(t *testing.T) {
	t.Parallel()
	bp, err := ReadBlockLog([]string{gapsRunDir(t, true)})
	require.NoError(t, err)
	require.Len(t, bp.Passes, 2)
	cold, warm := bp.Passes[0].Values, bp.Passes[1].Values
	assert.Equal(t, 37_000.0, cold[MetricCommitWait])
	assert.Equal(t, 2.0, cold[MetricConcurrent])
	assert.NotContains(t, cold, MetricGapsWithBirth, "a cold bind's births cannot be told from prewarmed recorders'")
	assert.NotContains(t, cold, MetricBornInGaps)
	assert.Equal(t, 37_000.0, warm[MetricCommitWait])
	assert.Equal(t, 2.0, warm[MetricConcurrent])
	assert.Equal(t, 1.0, warm[MetricGapsWithBirth])
	assert.Equal(t, 1.0, warm[MetricBornInGaps])
	assert.Empty(t, bp.Warnings)

	bare, err := ReadBlockLog([]string{gapsRunDir(t, false)})
	require.NoError(t, err)
	require.Len(t, bare.Passes, 2)
	for _, p := range bare.Passes {
		for n := range p.Values {
			assert.False(t, strings.HasPrefix(n, "lanes."), "pass inv=%d has %s without records", p.Inv, n)
		}
	}
}

// TestOutFiles: a campaign block's files are its output, the host.*.log
// of {out} and the records there; a block without them has none.
func TestOutFiles(t *testing.T) {
	t.Parallel()
	out := gapsRunDir(t, true)
	log := filepath.Join(t.TempDir(), "b1.log")
	require.NoError(t, os.WriteFile(log, []byte("hello\n"), 0o644))
	f := OutFiles(log, out)
	assert.Equal(t, []string{log, filepath.Join(out, "host.0.log")}, f.Logs)
	assert.Equal(t, []string{filepath.Join(out, trace.RecordsFile)}, f.Records)
	bp, err := ReadBlock(f)
	require.NoError(t, err)
	require.Len(t, bp.Passes, 2)
	assert.Equal(t, 1.0, bp.Passes[1].Values[MetricGapsWithBirth])

	none := OutFiles(log, filepath.Join(t.TempDir(), "absent"))
	assert.Equal(t, BlockFiles{Logs: []string{log}}, none)
}

// TestReadBlockLogLanesTruncatedRecords: a records file cut mid-line (a
// run killed while writing) keeps the lane metrics of the passes before
// the cut and says which line it left out.
func TestReadBlockLogLanesTruncatedRecords(t *testing.T) {
	t.Parallel()
	dir := gapsRunDir(t, true)
	r := filepath.Join(dir, trace.RecordsFile)
	b, err := os.ReadFile(r)
	require.NoError(t, err)
	lines := strings.SplitAfter(string(b), "\n")
	require.GreaterOrEqual(t, len(lines), 2)
	require.NoError(t, os.WriteFile(r, []byte(lines[0]+lines[1][:len(lines[1])/2]), 0o644))
	bp, err := ReadBlockLog([]string{dir})
	require.NoError(t, err)
	require.Len(t, bp.Passes, 2)
	assert.Contains(t, bp.Passes[0].Values, MetricCommitWait)
	assert.NotContains(t, bp.Passes[1].Values, MetricCommitWait)
	require.NotEmpty(t, bp.Warnings)
	assert.Contains(t, strings.Join(bp.Warnings, "\n"), r+":2: 1 host_phase_records line(s) are not a pass")
}

// TestLaneMetricsKnown: the lane metrics are known, in their family, and
// --metric finds them.
func TestLaneMetricsKnown(t *testing.T) {
	t.Parallel()
	for _, n := range []string{MetricCommitWait, MetricConcurrent, MetricGapsWithBirth, MetricBornInGaps} {
		m, ok := LookupMetric(n)
		require.True(t, ok, n)
		assert.Equal(t, FamilyLanes, m.Family, n)
	}
	m, _ := LookupMetric(MetricCommitWait)
	assert.Equal(t, KindTime, m.Kind)
	assert.Contains(t, Families(), FamilyLanes)
}

// TestReadBlockRecordsTooLarge: records past MaxRecordsBytes (a sparse
// file, so nothing is written) are refused before they are read, naming
// the file.
func TestReadBlockRecordsTooLarge(t *testing.T) {
	t.Parallel()
	dir := gapsRunDir(t, false)
	r := filepath.Join(dir, trace.RecordsFile)
	f, err := os.Create(r)
	require.NoError(t, err)
	require.NoError(t, f.Truncate(MaxRecordsBytes+1))
	require.NoError(t, f.Close())
	_, err = ReadBlockLog([]string{dir})
	var big *RecordsTooLargeError
	require.ErrorAs(t, err, &big)
	assert.Equal(t, r, big.File)
	assert.Contains(t, err.Error(), r+": the host_phase_records.jsonl files of the block hold 536870913 bytes, more than the 512 MiB")
}

// TestReadBlockCompressedRecordsTooLarge: a block's gzip-compressed
// records that expand past what is read fail the block as records too
// large (the run's fault), naming the file, not as a read error a
// --resume would meet again. Not parallel: it lowers a package bound.
func TestReadBlockCompressedRecordsTooLarge(t *testing.T) {
	old := trace.MaxRecordsBytes
	trace.MaxRecordsBytes = 1 << 20
	defer func() { trace.MaxRecordsBytes = old }()
	dir := gapsRunDir(t, false)
	r := filepath.Join(dir, trace.RecordsFile+".gz")
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	_, err := zw.Write(bytes.Repeat([]byte(`{"pid": 1, "inv": 1, "records": []}`+"\n"), 60_000))
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	require.NoError(t, os.WriteFile(r, b.Bytes(), 0o644))
	_, err = ReadBlockLog([]string{dir})
	var big *RecordsTooLargeError
	require.ErrorAs(t, err, &big)
	assert.Equal(t, r, big.File)
	assert.Contains(t, err.Error(), r+": the gzip-compressed records expand past 1 MiB, the most hbgbench reads for the lane metrics")
}
