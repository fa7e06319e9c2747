package metric

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/hbgkit/hbgkit/swimlane"
	"github.com/hbgkit/hbgkit/trace"
)

// FamilyLanes holds the lane summary's numbers per bind (docs/ab.md
// "Lanes as metrics"): what `hbgtrace lanes` shows of a bind, read from
// the block's host_phase_records.jsonl. A block without that artifact
// has none of them: missing, never 0, since the log alone cannot tell a
// bind with no recordings from one whose recordings were not written.
const FamilyLanes = "lanes"

// The lane metrics, per bind (swimlane.BindLanes).
const (
	// MetricCommitWait is the commit wait: the last build_definition's
	// end after the last graph_submit's end, 0 when recording finished
	// first; only in a bind with build_definition records.
	MetricCommitWait = "lanes.commit_wait"
	// MetricConcurrent is the most recordings running at once on the
	// recorder lanes.
	MetricConcurrent = "lanes.concurrent_recordings"
	// MetricGapsWithBirth counts the gaps on the submitting thread with a
	// recorder lane born inside them, and MetricBornInGaps those lanes.
	// Both are missing in the first bind of each process, where a
	// prewarmed recorder's first record cannot be told from a created
	// thread's birth (docs/swimlanes.md).
	MetricGapsWithBirth = "lanes.gaps_with_birth"
	MetricBornInGaps    = "lanes.born_in_gaps"
)

// laneMetricList is the lanes family in report order.
var laneMetricList = []MetricInfo{
	{Name: MetricCommitWait, Family: FamilyLanes, Label: "commit wait per bind", Kind: KindTime},
	{Name: MetricConcurrent, Family: FamilyLanes, Label: "max concurrent recordings", Kind: KindCount},
	{Name: MetricGapsWithBirth, Family: FamilyLanes, Label: "gaps with a lane birth", Kind: KindCount},
	{Name: MetricBornInGaps, Family: FamilyLanes, Label: "lanes born in gaps", Kind: KindCount},
}

// BlockFiles are the files one block is read from: its logs, in order
// (read as one stream), and the host_phase_records.jsonl artifacts of
// its run.
type BlockFiles struct {
	Logs    []string
	Records []string
}

// OutFiles returns the files of a campaign's block whose captured output
// is log and whose output directory ({out}) is out: log, then every
// out/host.*.log, and out/host_phase_records.jsonl when the run left one
// (trace.DirRecords).
// It is the one place that says which files of {out} a block is.
func OutFiles(log, out string) BlockFiles {
	f := BlockFiles{Logs: []string{log}}
	if more, _ := filepath.Glob(filepath.Join(out, "host.*.log")); len(more) > 0 {
		f.Logs = append(f.Logs, more...)
	}
	if r := trace.DirRecords(out); r != "" {
		f.Records = []string{r}
	}
	return f
}

// FilesOf returns the files of a block given as paths (hbgbench compare's
// sides, compare --paired's logs): the paths as its logs (a directory is
// its host.*.log files, trace.Inputs), and the host_phase_records.jsonl
// of each path that is a run directory holding one (trace.DirRecords: a
// kept block's .gz too).
func FilesOf(paths []string) BlockFiles {
	f := BlockFiles{Logs: paths}
	for _, p := range paths {
		if st, err := os.Stat(p); err != nil || !st.IsDir() {
			continue
		}
		if r := trace.DirRecords(p); r != "" {
			f.Records = append(f.Records, r)
		}
	}
	return f
}

// MaxRecordsBytes bounds the size of a block's host_phase_records.jsonl
// files together: they are read whole. A 20-pass dsv4-pair block writes
// 4.2 MB. Tests lower it.
var MaxRecordsBytes int64 = 512 << 20

// A RecordsTooLargeError is a block's host_phase_records.jsonl past
// MaxRecordsBytes: the run's output, not this host's failure.
type RecordsTooLargeError struct {
	File    string
	Size    int64 // the files' size so far, this one included
	Limit   int64
	Expands bool // a gzip-compressed file whose content runs past Limit (trace.MaxRecordsBytes)
}

func (e *RecordsTooLargeError) Error() string {
	if e.Expands {
		return fmt.Sprintf("%s: the gzip-compressed records expand past %d MiB, the most hbgbench reads for the lane metrics", e.File, e.Limit>>20)
	}
	return fmt.Sprintf("%s: the host_phase_records.jsonl files of the block hold %d bytes, more than the %d MiB hbgbench reads for the lane metrics", e.File, e.Size, e.Limit>>20)
}

// laneValues reads the records of a block whose log is l and returns per
// bind its lane metrics, and the warnings of the read (an artifact that
// holds no pass, lines left out, records of binds the log lacks).
func laneValues(l *trace.Log, records []string) (map[passKey]map[string]float64, []string, error) {
	var size int64
	for _, r := range records {
		st, err := os.Stat(r)
		if err != nil {
			return nil, nil, fmt.Errorf("reading %s: %w", r, err)
		}
		if size += st.Size(); size > MaxRecordsBytes {
			return nil, nil, &RecordsTooLargeError{File: r, Size: size, Limit: MaxRecordsBytes}
		}
	}
	passes, warns, skipped, err := trace.LoadPhaseRecordsMax(records, MaxBlockLogSpans*trace.RecordValuesPerSpan)
	var expand *trace.RecordsExpandError
	if errors.As(err, &expand) {
		// A compressed file's size says nothing of its content: the
		// reader's bound is what the file ran past, the run's fault.
		return nil, nil, &RecordsTooLargeError{File: expand.File, Limit: expand.Limit, Expands: true}
	}
	if err != nil {
		return nil, nil, err
	}
	if len(skipped) > 0 {
		warns = append(warns, fmt.Sprintf("warning: %s:%d: %d host_phase_records line(s) are not a pass (truncated?) and are left out, with the lane metrics of their binds",
			skipped[0].File, skipped[0].Line, len(skipped)))
	}
	sw := swimlane.Build(l, passes)
	warns = append(warns, sw.Warnings()...)
	rep := sw.Lanes(swimlane.GapOptions{})
	// A bind has lane metrics when the records hold its graph_submits:
	// without them it has no gaps, and its recorder lanes may be absent
	// for want of records rather than of recordings.
	submits := make(map[passKey]bool, len(rep.Gaps))
	for _, g := range rep.Gaps {
		submits[passKey{g.Pid, g.Inv}] = true
	}
	out := make(map[passKey]map[string]float64)
	for _, b := range rep.Binds {
		k := passKey{b.Pid, b.Inv}
		if !submits[k] {
			continue
		}
		v := map[string]float64{MetricConcurrent: float64(b.MaxConcurrent)}
		if b.HasCommit {
			v[MetricCommitWait] = float64(b.CommitWait)
		}
		if b.Warm {
			v[MetricGapsWithBirth] = float64(b.LaneBirths)
			v[MetricBornInGaps] = float64(b.BornLanes)
		}
		out[k] = v
	}
	return out, warns, nil
}
