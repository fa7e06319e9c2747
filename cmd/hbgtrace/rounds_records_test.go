package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// recordsRoundsLog is two rounds of pid 7 with chip.run and chip.run.bind
// spans; with lines, round 1's bind also writes `bind phase=` lines for
// host_orch (600 µs) and graph_upload.
func recordsRoundsLog(lines bool) string {
	var b strings.Builder
	for i := 0; i < 2; i++ {
		base := int64(i) * 100_000_000
		b.WriteString(viewsSpanLine(7, i+1, "abc", 1, "chip.run.bind", base+1_000, 10_000_000, ""))
		if lines && i == 1 {
			fmt.Fprintf(&b, "[mono_ns=1][T0x7][TIMING] host_phase_trace_end: [host_phase_trace.cpp:393] bind phase=host_orch start_ns=%d dur_ns=600000 tasks=3 heap_used=1\n", base+2_000)
			fmt.Fprintf(&b, "[mono_ns=1][T0x7][TIMING] host_phase_trace_end: [host_phase_trace.cpp:393] bind phase=graph_upload start_ns=%d dur_ns=100000 defs=1 bytes=8 submissions=1\n", base+700_000)
		}
		b.WriteString(viewsSpanLine(7, i+1, "abc", 0, "chip.run", base, 20_000_000, ""))
	}
	return b.String()
}

// recordsArtifact is one artifact line per round: host_orch 800 µs and
// arena_h2d 50 µs inside the round's bind, and an orchestrator record.
func recordsArtifact() string {
	var b strings.Builder
	for i := 0; i < 2; i++ {
		base := int64(i) * 100_000_000
		fmt.Fprintf(&b, `{"pid": 7, "inv": %d, "clock": "host_monotonic_ns", "dropped": 0, "records": [`+
			`{"phase": "host_orch", "start_ns": %d, "end_ns": %d, "detail": 0, "tid": 7}, `+
			`{"phase": "submit_task", "start_ns": %d, "end_ns": %d, "detail": 1, "tid": 7}, `+
			`{"phase": "arena_h2d", "start_ns": %d, "end_ns": %d, "detail": 64, "tid": 7}]}`+"\n",
			i+1, base+2_000, base+802_000, base+3_000, base+4_000, base+900_000, base+950_000)
	}
	return b.String()
}

// TestRoundsRecords checks that --records feeds the HBG accounting: an
// artifact alone makes the HBG columns, and where the log writes a segment
// too, the log's value wins while the artifact fills in the rest.
func TestRoundsRecords(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	art := filepath.Join(dir, "host_phase_records.jsonl")
	require.NoError(t, os.WriteFile(art, []byte(recordsArtifact()), 0o644))

	t.Run("without the artifact, no accounting", func(t *testing.T) {
		code, out, errs := viewsRun(t, recordsRoundsLog(false), "rounds", "-")
		require.Equal(t, 0, code, errs)
		assert.NotContains(t, out, "HostOrch")
	})
	t.Run("the artifact alone", func(t *testing.T) {
		code, out, errs := viewsRun(t, recordsRoundsLog(false), "rounds", "--format", "csv", "--records", art, "-")
		require.Equal(t, 0, code, errs)
		lines := strings.Split(strings.TrimSpace(out), "\n")
		require.Len(t, lines, 3, out)
		assert.Contains(t, lines[0], "hostorch_us")
		assert.Contains(t, lines[0], "h2darena_us")
		assert.Contains(t, lines[1], ",800,", "round 0 HostOrch from the record")
		assert.Contains(t, lines[2], ",800,", "round 1 HostOrch from the record")
	})
	t.Run("the log wins, the artifact fills in", func(t *testing.T) {
		code, out, errs := viewsRun(t, recordsRoundsLog(true), "rounds", "--format", "json", "--records", art, "-")
		require.Equal(t, 0, code, errs)
		assert.Contains(t, out, `"hostorch_us": 600`, "round 1 HostOrch from its bind phase= line")
		assert.Contains(t, out, `"hostorch_us": 800`, "round 0 HostOrch from the record")
		assert.Contains(t, out, `"h2dgraph_us": 100`, "graph_upload only in the log")
		assert.Equal(t, 2, strings.Count(out, `"h2darena_us": 50`), "arena_h2d only in the artifact")
	})
	t.Run("missing artifact", func(t *testing.T) {
		code, _, errs := viewsRun(t, recordsRoundsLog(false), "rounds", "--records", filepath.Join(dir, "nope.jsonl"), "-")
		assert.Equal(t, 1, code)
		assert.Contains(t, errs, "nope.jsonl")
	})
}
