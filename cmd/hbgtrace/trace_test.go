package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// laneLog is a small E1 log: a facade and a scheduler thread with one
// submit->dispatch handoff, one phased run whose bind has `bind phase=`
// lines, a device span and a clock anchor.
const laneLog = `[mono_ns=900][T0x7f00][TIMING] clock_anchor: [CLOCK_ANCHOR] v=1 pid=9 mono_ns=800 wall_ns=1700000000000000000
[mono_ns=1000][T0x7f00][TIMING] emit_host_span: [STRACE] v=1 pid=41 tid=410 inv=7 hid=0 depth=0 name=node.submit ts=1100 dur=100 run_id=7 task_slot=12 role=facade
[mono_ns=1001][T0x7f01][TIMING] emit_host_span: [STRACE] v=1 pid=41 tid=411 inv=7 hid=0 depth=0 name=node.dispatch ts=1400 dur=80 run_id=7 task_slot=12 dispatch_id=1 role=scheduler
[mono_ns=2250][T0x7f00][TIMING] emit_host_span: [STRACE] v=1 pid=9 tid=9 inv=5 hid=abc depth=1 name=chip.run.bind ts=900 dur=1000 
[mono_ns=2000][T0x7f00][TIMING] host_phase_trace_end: [host_phase_trace.cpp:393] bind phase=args start_ns=1000 dur_ns=100 ntensor=2
[mono_ns=2001][T0x7f00][TIMING] host_phase_trace_end: [host_phase_trace.cpp:393] bind phase=host_orch start_ns=1200 dur_ns=300 tasks=3
[mono_ns=2500][T0x7f00][TIMING] emit_host_span: [STRACE] v=1 pid=9 tid=9 inv=5 hid=abc depth=2 name=chip.run.runner_run.device_wall ts=0 dur=500 clk=dev
[mono_ns=2550][T0x7f00][TIMING] emit_host_span: [STRACE] v=1 pid=9 tid=9 inv=5 hid=abc depth=0 name=chip.run ts=800 dur=1400 run_id=0 dispatch_id=0 slot_id=0 generation=1 run_epoch=5
`

// laneExec runs hbgtrace in a temporary directory holding files and
// returns stdout, stderr, the exit status and the directory.
func laneExec(t *testing.T, files map[string]string, stdin string, args ...string) (string, string, int, string) {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
	t.Chdir(dir)
	var stdout, stderr bytes.Buffer
	code := run(args, strings.NewReader(stdin), &stdout, &stderr)
	return stdout.String(), stderr.String(), code, dir
}

// laneReadDoc decodes a written document, gunzipping .gz files.
func laneReadDoc(t *testing.T, path string) map[string]any {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(path, ".gz") {
		zr, err := gzip.NewReader(f)
		require.NoError(t, err)
		r = zr
	}
	b, err := io.ReadAll(r)
	require.NoError(t, err)
	require.True(t, json.Valid(b), "invalid JSON in %s", path)
	var doc map[string]any
	require.NoError(t, json.Unmarshal(b, &doc))
	return doc
}

func laneEvents(doc map[string]any, ph string) []map[string]any {
	var out []map[string]any
	for _, e := range doc["traceEvents"].([]any) {
		m := e.(map[string]any)
		if m["ph"] == ph {
			out = append(out, m)
		}
	}
	return out
}

func TestTraceCommand(t *testing.T) {
	torn := "[STRACE] v=1 pid=9 tid=9 inv=6 hid=abc depth=1 name=chip.run.bind\n"
	tests := []struct {
		name       string
		files      map[string]string
		stdin      string
		args       []string
		out        string
		wantCode   int
		wantStdout string
		wantStderr string
		events     int // X events in the document
	}{
		{
			name: "invocation spans only", files: map[string]string{"run.log": laneLog},
			args: []string{"run.log", "-o", "trace.json"}, out: "trace.json",
			wantStdout: "Wrote Chrome trace: trace.json (3 spans)\n", events: 3,
		},
		{
			name: "gzip and warnings", files: map[string]string{"run.log": torn + laneLog},
			args: []string{"run.log", "--out", "sub/trace.json.gz"}, out: "sub/trace.json.gz",
			wantStdout: "Wrote Chrome trace: sub/trace.json.gz (3 spans)\n",
			wantStderr: "warning: 1 of 6 [STRACE] records are incomplete and are excluded from the timing below\n",
			events:     3,
		},
		{
			name: "stdin and an empty log", stdin: "",
			args: []string{"-", "-o", "empty.json"}, out: "empty.json",
			wantStdout: "Wrote Chrome trace: empty.json (0 spans)\n",
		},
		{
			name: "no -o", files: map[string]string{"run.log": laneLog},
			args: []string{"run.log"}, wantCode: 2,
		},
		{
			name: "missing log", args: []string{"absent.log", "-o", "trace.json"}, wantCode: 1,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.out != "" && strings.Contains(tc.out, "/") {
				if tc.files == nil {
					tc.files = map[string]string{}
				}
				tc.files[filepath.Dir(tc.out)+"/.keep"] = ""
			}
			stdout, stderr, code, dir := laneExec(t, tc.files, tc.stdin, append([]string{"trace"}, tc.args...)...)
			assert.Equal(t, tc.wantCode, code, stderr)
			switch tc.wantCode {
			case 0:
				assert.Equal(t, tc.wantStdout, stdout)
				assert.Equal(t, tc.wantStderr, stderr)
				doc := laneReadDoc(t, filepath.Join(dir, tc.out))
				assert.Len(t, laneEvents(doc, "X"), tc.events)
			case 1:
				assert.Empty(t, stdout)
				assert.Contains(t, stderr, "hbgtrace: ")
				assert.Contains(t, stderr, "absent.log")
			case 2:
				assert.Contains(t, stderr, "-o OUT.json is required")
				assert.Contains(t, stderr, "Usage:")
				_, err := os.Stat(filepath.Join(dir, "trace.json"))
				assert.True(t, os.IsNotExist(err))
			}
		})
	}
}

// TestTraceSwimlaneExamples runs every line of the commands' Example text
// against small fixtures named as the examples name them.
func TestTraceSwimlaneExamples(t *testing.T) {
	files := map[string]string{
		"run.log":                      laneLog,
		"spool/host.9.log":             laneLog,
		"spool/host.10.log":            strings.ReplaceAll(laneLog, "pid=9 ", "pid=10 "),
		"out/host_phase_records.jsonl": `{"pid": 9, "inv": 5, "records": [{"phase": "args", "start_ns": 1000, "end_ns": 1100, "detail": 0, "tid": 9}]}` + "\n",
	}
	for _, c := range []*cobra.Command{newTraceCmd(nil), newSwimlaneCmd(nil)} {
		for _, line := range strings.Split(c.Example, "\n") {
			args := strings.Fields(line)
			require.Equal(t, "hbgtrace", args[0], line)
			t.Run(strings.Join(args[1:], " "), func(t *testing.T) {
				stdout, stderr, code, dir := laneExec(t, files, "", args[1:]...)
				require.Equal(t, 0, code, stderr)
				assert.Empty(t, stderr)
				assert.True(t, strings.HasPrefix(stdout, "Wrote "), stdout)
				var out string
				for i, a := range args {
					if a == "-o" {
						out = args[i+1]
					}
				}
				require.NotEmpty(t, out, "every example names its output")
				laneReadDoc(t, filepath.Join(dir, out))
			})
		}
	}
}

// TestSwimlaneDocExamples runs the hbgtrace command lines of
// docs/swimlanes.md (those naming no placeholder) against fixtures.
func TestSwimlaneDocExamples(t *testing.T) {
	b, err := os.ReadFile("../../docs/swimlanes.md")
	require.NoError(t, err)
	files := map[string]string{
		"run.log":                      laneLog,
		"out/host_phase_records.jsonl": `{"pid": 9, "inv": 5, "records": []}` + "\n",
	}
	n := 0
	for _, line := range strings.Split(string(b), "\n") {
		args := strings.Fields(line)
		if !strings.HasPrefix(line, "    hbgtrace ") || strings.Contains(line, "<") {
			continue
		}
		n++
		t.Run(strings.Join(args[1:], " "), func(t *testing.T) {
			stdout, stderr, code, _ := laneExec(t, files, "", args[1:]...)
			assert.Equal(t, 0, code, stderr)
			assert.True(t, strings.HasPrefix(stdout, "Wrote "), stdout)
		})
	}
	assert.NotZero(t, n, "no examples found")
}

// TestTraceHoldsOnlyInvocations: trace keeps only the spans it draws, the
// invocations' (node and ext spans, bind phase= and host-orch phase= lines
// are parsed for the warnings, not kept), so --max-spans counts those: a
// log of 5 chip spans among 40 node spans and phase lines is drawn with
// --max-spans 5, and refused at the fifth chip span with --max-spans 4.
func TestTraceHoldsOnlyInvocations(t *testing.T) {
	const env = "[mono_ns=1][T0x7f3c9a302c80][TIMING] emit_host_span: "
	var b strings.Builder
	for i := range 5 {
		for j := range 4 {
			fmt.Fprintf(&b, env+"[STRACE] v=1 pid=7 tid=8 inv=0 hid=0 depth=0 name=node.worker_run ts=%d dur=10 role=worker\n", 100*i+j)
			fmt.Fprintf(&b, env+"[STRACE] v=1 pid=7 tid=9 inv=0 hid=0 depth=0 name=ext.pypto.step ts=%d dur=10 \n", 100*i+j)
		}
		fmt.Fprintf(&b, "[mono_ns=1][T0xab][TIMING] host_phase_trace_end: [f.cpp:1] bind phase=args start_ns=%d dur_ns=2 x=1\n", 100*i)
		fmt.Fprintf(&b, "[mono_ns=1][T0xab][TIMING] host_phase_trace_end: [f.cpp:2] host-orch phase=record_node total_ns=5 count=1\n")
		fmt.Fprintf(&b, env+"[STRACE] v=1 pid=7 tid=7 inv=%d hid=abc depth=0 name=chip.run ts=%d dur=50 \n", i+1, 100*i)
	}
	files := map[string]string{"mixed.log": b.String()}
	stdout, stderr, code := phasesExec(t, files, "", "trace", "--max-spans", "5", "mixed.log", "-o", "-")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, 5, strings.Count(stdout, `"name": "chip.run"`))
	_, stderr, code = phasesExec(t, files, "", "trace", "--max-spans", "4", "mixed.log", "-o", "-")
	assert.Equal(t, 1, code)
	assert.Equal(t, "hbgtrace: reading mixed.log: line 55: more than 4 spans and phase lines to hold in memory; --max-spans raises the bound\n", stderr)
}
