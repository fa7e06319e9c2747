package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hbgkit/hbgkit/abtest/journal"
	"github.com/hbgkit/hbgkit/abtest/metric"
	"github.com/hbgkit/hbgkit/swimlane"
	"github.com/hbgkit/hbgkit/trace"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The arms of #1936's change on the embedded model: seven Definitions
// with four prewarmed recorders (three threads created mid-burst in every
// bind) against eight (none created after the first bind).
const (
	lanesBase = "embedded:workload=dsv4-blocks7,recorders=prewarm=4"
	lanesHead = "embedded:workload=dsv4-blocks7,recorders=prewarm=8"
)

// lanesRow is a metric row of the json report, as these tests read it.
type lanesRow struct {
	Name    string  `json:"name"`
	Family  string  `json:"family"`
	Unit    string  `json:"unit"`
	Verdict string  `json:"verdict"`
	Delta   float64 `json:"delta"`
	CILo    float64 `json:"ci_lo"`
	CIHi    float64 `json:"ci_hi"`
	Diff    bool    `json:"count_diff"`
	NonZero []int   `json:"nonzero"`
	Arms    [2]struct {
		N      int     `json:"n"`
		Median float64 `json:"median_us"`
	} `json:"arms"`
}

func lanesRows(t *testing.T, js string) map[string]lanesRow {
	t.Helper()
	var doc struct {
		Metrics []lanesRow `json:"metrics"`
	}
	require.NoError(t, json.Unmarshal([]byte(js), &doc), js)
	out := map[string]lanesRow{}
	for _, m := range doc.Metrics {
		out[m.Name] = m
	}
	return out
}

// TestAbLaneMetrics runs #1936's change as a real embedded campaign with
// --records: every bind gets the lane metrics, the created threads show as
// gaps with a lane birth in the base arm's warm binds and never in the
// head's, so the row is called fewer, Δ −100% with its interval (on the
// differences: a count of 0 has no log-ratio), and the text report has the
// lanes table. Ten rounds, so that the Holm-adjusted p of the row (over
// at most four lane rows) is below 0.05 whatever the ties. The commit wait
// per bind is called faster. Without --records the same campaign has no
// lane metric at all.
func TestAbLaneMetrics(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	j := filepath.Join(dir, "c.jsonl")
	code, out, errText := runCLI("ab", "--records", "--base", lanesBase, "--head", lanesHead,
		"--rounds", "10", "--block", "3", "--cold", "1", "--warmup", "0", "--seed", "7", "--journal", j)
	require.Equal(t, 0, code, errText)
	assert.Contains(t, out, "lanes, from host_phase_records.jsonl (per bind; unit on each row)")
	assert.Regexp(t, `(?m)^ gaps with a lane birth.* +count +base +20 `, out)
	assert.Regexp(t, `(?m)^ +head +20 +0 +0 +0 +0 +0 +-100\.0% +\[-100\.0%, -\d+\.\d%\] .* fewer$`, out)
	assert.Regexp(t, `(?m)^ commit wait per bind +µs +base +20 `, out)
	assert.Contains(t, out, "gaps with a lane birth: a lane metric that was 0 in some block has no log-ratio")

	code, js, errText := runCLI("report", j, "--format", "json")
	require.Equal(t, 0, code, errText)
	rows := lanesRows(t, js)
	for _, n := range []string{metric.MetricCommitWait, metric.MetricConcurrent, metric.MetricGapsWithBirth} {
		require.Contains(t, rows, n, js)
		assert.Equal(t, metric.FamilyLanes, rows[n].Family)
		assert.Equal(t, [2]int{20, 20}, [2]int{rows[n].Arms[0].N, rows[n].Arms[1].N}, n)
	}
	births := rows[metric.MetricGapsWithBirth]
	require.Len(t, births.NonZero, 2, "prewarm=8 creates no thread in a warm bind: its count is 0")
	assert.Positive(t, births.NonZero[journal.Base], "prewarm=4 creates three threads in every bind")
	assert.Equal(t, 0, births.NonZero[journal.Head])
	assert.Equal(t, 0.0, births.Arms[journal.Head].Median)
	assert.Positive(t, rows[metric.MetricConcurrent].Arms[journal.Base].Median)
	assert.Equal(t, "fewer", births.Verdict)
	assert.True(t, births.Diff)
	assert.InDelta(t, -1.0, births.Delta, 1e-9)
	assert.InDelta(t, -1.0, births.CILo, 1e-9)
	// The model's created recorders are cold (docs/harness.md, Recorder
	// threads): the commit waits milliseconds for them with prewarm=4 and
	// hardly at all with prewarm=8, far beyond a loaded host's noise.
	wait := rows[metric.MetricCommitWait]
	assert.Equal(t, "faster", wait.Verdict, "commit wait per bind, prewarm=4 -> 8")
	assert.Less(t, wait.CIHi, 0.0)

	// The records are kept beside the block's log, compressed, and read
	// as they are (what hbgtrace lanes --records does with one).
	kept, err := filepath.Glob(filepath.Join(dir, "c.d", "*", trace.RecordsFile+".gz"))
	require.NoError(t, err)
	require.Len(t, kept, 20)
	passes, err := trace.LoadPhaseRecords(kept[:1])
	require.NoError(t, err)
	assert.Len(t, passes, 3, "a 3-pass block's records")

	code, out, errText = runCLI("ab", "--base", lanesBase, "--head", lanesHead,
		"--rounds", "3", "--block", "2", "--cold", "1", "--warmup", "0", "--seed", "7", "--journal", filepath.Join(dir, "bare.jsonl"))
	require.Equal(t, 0, code, errText)
	assert.NotContains(t, out, "lanes, from host_phase_records.jsonl")
	assert.NotContains(t, out, "commit wait per bind")
}

// TestCompareLaneMetricsOnRunDirs: compare on run directories (a
// harness run's host.0.log and host_phase_records.jsonl) has the lane
// metrics, each pass's value the one the swimlane of its log and records
// gives, and the births Δ −100% with Welch's interval; a run directory
// without records has none.
func TestCompareLaneMetricsOnRunDirs(t *testing.T) {
	t.Parallel()
	tmp := t.TempDir()
	run := func(name, recorders string, records bool) string {
		d := filepath.Join(tmp, name)
		require.NoError(t, os.MkdirAll(d, 0o755))
		args := []string{"harness", "--workload", "dsv4-blocks7", "--recorders", recorders, "--rounds", "4", "-o", filepath.Join(d, "host.0.log")}
		if records {
			args = append(args, "--records-dir", d)
		}
		code, _, errText := runCLI(args...)
		require.Equal(t, 0, code, errText)
		return d
	}
	var base, head []string
	for i := range 3 {
		base = append(base, run("b"+string(rune('0'+i)), "prewarm=4", true))
		head = append(head, run("h"+string(rune('0'+i)), "prewarm=8", true))
	}
	args := []string{"compare", "--cold", "1", "--format", "json"}
	for _, b := range base {
		args = append(args, "--base", b)
	}
	for _, h := range head {
		args = append(args, "--head", h)
	}
	code, js, errText := runCLI(args...)
	require.Equal(t, 0, code, errText)
	rows := lanesRows(t, js)
	births := rows[metric.MetricGapsWithBirth]
	require.Len(t, births.NonZero, 2, js)
	assert.Positive(t, births.NonZero[journal.Base])
	assert.Equal(t, 0, births.NonZero[journal.Head])
	assert.True(t, births.Diff, "a count of 0 is compared on the difference of the means")
	assert.InDelta(t, -1.0, births.Delta, 1e-9)
	assert.InDelta(t, -1.0, births.CILo, 1e-9)
	require.Contains(t, rows, metric.MetricCommitWait)
	assert.Equal(t, 9, rows[metric.MetricCommitWait].Arms[journal.Base].N)

	// Each pass's values are the swimlane's of that directory.
	bp, err := metric.ReadBlockLog([]string{base[0]})
	require.NoError(t, err)
	srcs, err := trace.Inputs([]string{filepath.Join(base[0], "host.0.log")}, nil)
	require.NoError(t, err)
	l, err := trace.ReadLog(srcs)
	require.NoError(t, err)
	recs, err := trace.LoadPhaseRecords([]string{filepath.Join(base[0], trace.RecordsFile)})
	require.NoError(t, err)
	rep := swimlane.Build(l, recs).Lanes(swimlane.GapOptions{})
	require.Len(t, rep.Binds, len(bp.Passes))
	for i, b := range rep.Binds {
		p := bp.Passes[i]
		require.Equal(t, [2]uint64{uint64(b.Pid), b.Inv}, [2]uint64{uint64(p.Pid), p.Inv})
		assert.Equal(t, float64(b.CommitWait), p.Values[metric.MetricCommitWait], b.Label())
		assert.Equal(t, float64(b.MaxConcurrent), p.Values[metric.MetricConcurrent], b.Label())
		if b.Warm {
			assert.Equal(t, float64(b.LaneBirths), p.Values[metric.MetricGapsWithBirth], b.Label())
		}
	}

	// Without the records, no lane metric.
	bare := run("bare", "prewarm=4", false)
	code, js, errText = runCLI("compare", "--format", "json", "--base", bare, "--head", bare)
	require.Equal(t, 0, code, errText)
	for n := range lanesRows(t, js) {
		assert.False(t, strings.HasPrefix(n, "lanes."), "%s without the base's records", n)
	}
}

// TestAbLaneMetricNeedsRecords: a lane metric as --metric of embedded
// arms without --records is refused before the campaign, saying what
// gives it.
func TestAbLaneMetricNeedsRecords(t *testing.T) {
	t.Parallel()
	assertAbRefused(t, []string{"--metric", metric.MetricGapsWithBirth, "--base", lanesBase, "--head", lanesHead, "--rounds", "3", "--block", "3", "--cold", "1"},
		"records it (a probe block of 3 passes); the lane metrics need host_phase_records.jsonl, which an embedded arm writes under --records")
}

// TestAbRecordsTooLarge: a command arm whose run leaves a records file
// past what hbgbench reads (600 MB, sparse) fails its block with the file
// named, as an arm printing too long a line does, and the file is left
// as written, not compressed.
func TestAbRecordsTooLarge(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	j := filepath.Join(dir, "j.jsonl")
	code, _, errText := abCmd(t, j, catArm(t)+"; truncate -s 600M {out}/"+trace.RecordsFile, catArm(t), "--retries", "0")
	assert.Equal(t, 1, code, errText)
	assert.Contains(t, errText, "/"+trace.RecordsFile+": the host_phase_records.jsonl files of the block hold 629145600 bytes, more than the 512 MiB hbgbench reads for the lane metrics; the arm's output is the cause")
	left, err := filepath.Glob(filepath.Join(dir, "j.d", "*", trace.RecordsFile))
	require.NoError(t, err)
	assert.NotEmpty(t, left)
	gz, _ := filepath.Glob(filepath.Join(dir, "j.d", "*", trace.RecordsFile+".gz"))
	assert.Empty(t, gz)
}

// TestAbRecordsResume: --records is journaled, so a resumed campaign
// keeps writing records without it, and refuses --records=false.
func TestAbRecordsResume(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	j := filepath.Join(dir, "c.jsonl")
	common := []string{"--rounds", "3", "--block", "2", "--cold", "1", "--warmup", "0", "--seed", "7", "--journal", j}
	code, _, errText := runCLI(append([]string{"ab", "--records", "--base", lanesBase, "--head", lanesHead}, common...)...)
	require.Equal(t, 0, code, errText)
	code, _, errText = runCLI("ab", "--resume", "--journal", j, "--rounds", "4")
	require.Equal(t, 0, code, errText)
	kept, err := filepath.Glob(filepath.Join(dir, "c.d", "*", trace.RecordsFile+".gz"))
	require.NoError(t, err)
	assert.Len(t, kept, 8, "the fourth round's blocks wrote records too")
	code, _, errText = runCLI("ab", "--resume", "--journal", j, "--rounds", "5", "--records=false")
	assert.Equal(t, 1, code, errText)
	assert.Contains(t, errText, "is a journal of another campaign:\n  --records: journal true, given false")
}

// TestAbKeepsCompressedRecordsAsTheyAre: a command arm whose run leaves
// its records gzip-compressed (host_phase_records.jsonl.gz, found by
// trace.DirRecords) has them read and kept as they are, not compressed a
// second time into a .gz.gz no reader opens.
func TestAbKeepsCompressedRecordsAsTheyAre(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	j := filepath.Join(dir, "j.jsonl")
	write := catArm(t) + `; printf '%s\n' '{"pid": 1, "inv": 1, "records": []}' | gzip > {out}/` + trace.RecordsFile + ".gz"
	code, _, errText := abCmd(t, j, write, catArm(t))
	require.Equal(t, 0, code, errText)
	kept, err := filepath.Glob(filepath.Join(dir, "j.d", "*", trace.RecordsFile+".gz"))
	require.NoError(t, err)
	assert.Len(t, kept, 3, "one per base block")
	twice, _ := filepath.Glob(filepath.Join(dir, "j.d", "*", "*.gz.gz"))
	assert.Empty(t, twice)
	for _, k := range kept {
		passes, err := trace.LoadPhaseRecords([]string{k})
		require.NoError(t, err)
		assert.Len(t, passes, 1, k)
	}
}
