//go:build cgo

package runtimeharness

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// recArenaPages is the recording arena of a recorder in 4 KiB pages
// (HBGH_REC_ARENA_BYTES; docs/harness.md "Recorder threads").
const recArenaPages = 1 << 20 / 4096

// commitWaits returns, per bind, the end of its last build_definition
// record minus the end of its last graph_submit record on the bind
// thread, in ns: the commit wait `hbgtrace gaps` reports, unclamped.
func commitWaits(t *testing.T, records []recordLine, bindTid int) []int64 {
	t.Helper()
	var out []int64
	for _, rl := range records {
		var lastSubmit, lastBuild int64
		for _, r := range rl.Records {
			switch {
			case r.Phase == "graph_submit" && r.Tid == bindTid:
				lastSubmit = max(lastSubmit, r.EndNS)
			case r.Phase == "build_definition":
				lastBuild = max(lastBuild, r.EndNS)
			}
		}
		require.Positive(t, lastSubmit, "bind inv=%d has graph_submit records", rl.Inv)
		require.Positive(t, lastBuild, "bind inv=%d has build_definition records", rl.Inv)
		out = append(out, lastBuild-lastSubmit)
	}
	return out
}

// TestCreatedRecordersMakeTheCommitWait: on dsv4-blocks7 with four
// prewarmed recorders for seven Definitions, the three recorders created
// mid-bind first-touch their recording arenas during their recordings
// (page faults counted by the process, deterministic), and since the bind
// submits the last Definitions late, the last recording ends after the
// last graph_submit: the commit waits for it. With eight prewarmed
// recorders neither happens. Before the recording arena and the block
// order, every Definition was recorded in the bind's first layer, so
// both medians were 0 and the fault counts equal.
func TestCreatedRecordersMakeTheCommitWait(t *testing.T) {
	run := func(prewarm int) (faults, waits []int64) {
		cfg := DefaultConfig()
		cfg.Workload = WorkloadDSV4Blocks7
		cfg.Mirror = MirrorRetained // no SM mirror faults in host_orch
		cfg.Prewarm = prewarm
		dir := t.TempDir()
		const rounds = 12
		_, res := runInProcess(t, cfg, rounds, dir)
		records := loadRecords(t, filepath.Join(dir, RecordsFile))
		require.Len(t, records, rounds)
		// Warm binds: from the third on (docs/harness.md "Cold binds").
		for _, st := range res.Stats[2:] {
			s, ok := st.Segment("host_orch")
			require.True(t, ok)
			faults = append(faults, s.MinFlt)
		}
		return faults, commitWaits(t, records[2:], res.BindTid)
	}
	f4, w4 := run(4)
	f8, w8 := run(8)
	t.Logf("host_orch minor faults (process), warm binds: prewarm=4 %v, prewarm=8 %v", f4, f8)
	t.Logf("commit wait ns (last build_definition end - last graph_submit end): prewarm=4 %v, prewarm=8 %v", w4, w8)

	// Counted, not timed: three created recorders touch a fresh arena
	// each (768 faults; the medians leave out a bind where the Go runtime
	// of this process faulted too), prewarmed ones none.
	assert.GreaterOrEqual(t, median(f4), int64(3*recArenaPages),
		"prewarm=4: the created recorders' arenas are first touched in host_orch")
	assert.Less(t, median(f8), int64(recArenaPages), "prewarm=8: every arena was touched at prewarm")
	// Timed: the median commit wait over ten warm binds. The created
	// recorder of the last Definition records it while the bind submits
	// its last 14 Graph submissions, faulting 256 pages; a prewarmed one
	// records it in tens of µs.
	m4, m8 := median(w4), median(w8)
	assert.Positive(t, m4, "prewarm=4: the last recording ends after the last graph_submit")
	assert.Greater(t, m4, m8, "the commit wait falls with eight prewarmed recorders")
}
