package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/hbgkit/hbgkit/swimlane"
	"github.com/stretchr/testify/assert"
)

func TestSwimlaneCommand(t *testing.T) {
	records := `{"pid": 9, "inv": 5, "records": [{"phase": "args", "start_ns": 1000, "end_ns": 1100, "detail": 0, "tid": 9}, ` +
		`{"phase": "record_node", "start_ns": 1200, "end_ns": 1250, "detail": 3, "tid": 42}]}` + "\n" +
		`{"pid": 9, "inv": 6, "records": []}` + "\n" +
		`{"pid": 9, "inv": 5, "records": [{"phase": "gm_heap", "start_`
	other := `{"pid": 9, "inv": 6, "records": [{"phase": "args", "start_ns": 1000, "end_ns": 1100}]}` + "\n"
	tests := []struct {
		name       string
		files      map[string]string
		stdin      string
		args       []string
		out        string
		wantCode   int
		wantStdout string
		wantStderr string
		events     int // X events
		flows      int // s and f events
	}{
		{
			name: "bind phase lines", files: map[string]string{"run.log": laneLog},
			args: []string{"run.log", "-o", "sw.json"}, out: "sw.json",
			wantStdout: "Wrote host swimlane: sw.json (4 host spans, 1 unaligned device spans, 2 bind phases)\n",
			events:     6, flows: 2,
		},
		{
			name:  "an artifact covers the bind",
			files: map[string]string{"run.log": laneLog, "r.jsonl": records, "empty.jsonl": ""},
			args:  []string{"run.log", "-o", "sw.json.gz", "--records", "r.jsonl", "--records", "empty.jsonl"},
			out:   "sw.json.gz",
			wantStdout: "Wrote host swimlane: sw.json.gz (4 host spans, 1 unaligned device spans, " +
				"2 host phase records)\n",
			wantStderr: "warning: empty.jsonl holds no host_phase_records pass: it is empty\n" +
				"warning: 1 phase-record pass(es) had no matching chip.run.bind span in this log " +
				"and were dropped — is the log from the same run as the artifact?\n",
			events: 6, flows: 2,
		},
		{
			name:  "an artifact from another run",
			files: map[string]string{"run.log": laneLog, "r.jsonl": other},
			args:  []string{"run.log", "-o", "sw.json", "--records", "r.jsonl"}, out: "sw.json",
			wantStdout: "Wrote host swimlane: sw.json (4 host spans, 1 unaligned device spans, 2 bind phases)\n",
			wantStderr: "" +
				"warning: 1 phase-record pass(es) had no matching chip.run.bind span in this log " +
				"and were dropped — is the log from the same run as the artifact?\n",
			events: 6, flows: 2,
		},
		{
			name: "an empty log gives a valid document", stdin: "",
			args: []string{"-", "-o", "sw.json"}, out: "sw.json",
			wantStdout: "Wrote host swimlane: sw.json (0 host spans, 0 unaligned device spans)\n",
		},
		{
			name: "no -o", files: map[string]string{"run.log": laneLog},
			args: []string{"run.log"}, wantCode: 2,
			wantStderr: "-o OUT.json is required",
		},
		{
			name: "missing artifact", files: map[string]string{"run.log": laneLog},
			args: []string{"run.log", "-o", "sw.json", "--records", "absent.jsonl"}, wantCode: 1,
			wantStderr: "absent.jsonl",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code, dir := laneExec(t, tc.files, tc.stdin, append([]string{"swimlane"}, tc.args...)...)
			assert.Equal(t, tc.wantCode, code, stderr)
			if tc.wantCode != 0 {
				assert.Empty(t, stdout)
				assert.Contains(t, stderr, tc.wantStderr)
				_, err := os.Stat(filepath.Join(dir, "sw.json"))
				assert.True(t, os.IsNotExist(err), "nothing written")
				return
			}
			assert.Equal(t, tc.wantStdout, stdout)
			assert.Equal(t, tc.wantStderr, stderr)
			doc := laneReadDoc(t, filepath.Join(dir, tc.out))
			assert.Len(t, laneEvents(doc, "X"), tc.events)
			assert.Len(t, append(laneEvents(doc, "s"), laneEvents(doc, "f")...), tc.flows)
			assert.Contains(t, doc, "unalignedDeviceSpans")
		})
	}
}

func TestSwimlaneCounts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		sum         swimlane.Summary
		withRecords bool
		want        string
	}{
		{"reference counts", swimlane.Summary{HostSpans: 2, DeviceSpans: 0}, false,
			"2 host spans, 0 unaligned device spans"},
		{"bind phases and records", swimlane.Summary{HostSpans: 3, BindPhases: 5, Records: 2, Skipped: 1}, false,
			"3 host spans, 0 unaligned device spans, 5 bind phases, 2 host phase records"},
		{"segments already in the log", swimlane.Summary{HostSpans: 3, Records: 1, Skipped: 2}, true,
			"3 host spans, 0 unaligned device spans, 1 host phase records, 2 segment(s) already in the log"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, swimlaneCounts(tc.sum, tc.withRecords))
		})
	}
}
