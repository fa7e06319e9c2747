package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// overlapRunText writes the four records of one phased run as the
// reference tests' _run_records fixture does: bind, runner_run and
// claim_release at depth 1, then the root from prepare start to release+10.
func overlapRunText(prefix string, pid, epoch, prepTs, prepDur, devTs, devDur, release int64) string {
	rec := func(depth int64, name string, ts, dur int64, attrs string) string {
		return fmt.Sprintf("[mono_ns=%d][T0x7f3c][TIMING] emit_host_span: [STRACE] v=1 pid=%d tid=%d inv=%d hid=abc depth=%d name=%s ts=%d dur=%d %s\n",
			ts+dur, pid, pid, epoch, depth, name, ts, dur, attrs)
	}
	return rec(1, prefix+".bind", prepTs, prepDur, "") +
		rec(1, prefix+".runner_run", devTs, devDur, "") +
		rec(1, prefix+".claim_release", release, 10, "") +
		rec(0, prefix, prepTs, release+10-prepTs,
			fmt.Sprintf("run_id=0 dispatch_id=0 slot_id=0 generation=1 run_epoch=%d", epoch))
}

func TestOverlapCommand(t *testing.T) {
	pass := overlapRunText("chip.run", 7, 1, 50, 20, 100, 100, 200) +
		overlapRunText("chip.run", 7, 2, 150, 30, 240, 100, 340)
	late := overlapRunText("chip.run", 7, 1, 50, 20, 100, 100, 200) +
		overlapRunText("chip.run", 7, 2, 190, 40, 240, 100, 340)
	legacy := overlapRunText("simpler_run", 7, 1, 50, 20, 100, 100, 200) +
		overlapRunText("simpler_run", 7, 2, 150, 30, 240, 100, 340)
	torn := "[STRACE] v=1 pid=7 tid=7 inv=9 hid=abc depth=1 name=chip.run.bind\n"
	tests := []struct {
		name       string
		log        string
		args       []string
		wantCode   int
		wantStdout string
		wantStderr string
	}{
		{
			name: "verified", log: pass, wantStdout: "Native overlap verified for 1 adjacent dispatch pair(s).\n",
		},
		{
			name: "legacy names", log: legacy, wantStdout: "Native overlap verified for 1 adjacent dispatch pair(s).\n",
		},
		{
			name: "prepare outlasts device", log: late, wantStdout: "Native overlap verified for 1 adjacent dispatch pair(s).\n",
		},
		{
			name: "not fully hidden", log: late, args: []string{"--require-hidden"}, wantCode: 2,
			wantStderr: "native overlap assertion failed: preparation was not fully hidden: " +
				"sequence=2 prepare_end=230 predecessor_device_end=200\n",
		},
		{
			name: "warnings come first", log: torn + overlapRunText("chip.run", 7, 1, 50, 20, 100, 100, 200), wantCode: 2,
			wantStderr: "warning: 1 of 5 [STRACE] records are incomplete and are excluded from the timing below\n" +
				"native overlap assertion failed: need at least two complete native runs on one process lane\n",
		},
		{
			name: "no spans", log: "", wantCode: 2,
			wantStderr: "native overlap assertion failed: need at least two complete native runs on one process lane\n",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"overlap", "run.log"}, tc.args...)
			stdout, stderr, code := phasesExec(t, map[string]string{"run.log": tc.log}, "", args...)
			assert.Equal(t, tc.wantCode, code)
			assert.Equal(t, tc.wantStdout, stdout)
			assert.Equal(t, tc.wantStderr, stderr)
		})
	}
}

func TestOverlapCommandMissingFile(t *testing.T) {
	stdout, stderr, code := phasesExec(t, nil, "", "overlap", "absent.log")
	assert.Equal(t, 1, code)
	assert.Empty(t, stdout)
	assert.True(t, strings.HasPrefix(stderr, "hbgtrace: "), stderr)
	assert.Contains(t, stderr, "absent.log")
}
