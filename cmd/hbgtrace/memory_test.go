package main

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"hash"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A peakWriter counts what is written to it, hashes it, and samples the
// live heap every sampleEvery bytes: the peak a command reached while its
// output streamed out. Nothing written is kept.
type peakWriter struct {
	n, next  int64
	peak     uint64
	sum      hash.Hash
	lines    int64
	sampling bool
}

const sampleEvery = 1 << 20

func newPeakWriter() *peakWriter {
	return &peakWriter{next: sampleEvery, sum: sha256.New(), sampling: true}
}

func (w *peakWriter) Write(p []byte) (int, error) {
	w.n += int64(len(p))
	w.lines += int64(bytes.Count(p, []byte{'\n'}))
	w.sum.Write(p)
	if w.sampling && w.n >= w.next {
		w.next = w.n + sampleEvery
		w.sample()
	}
	return len(p), nil
}

func (w *peakWriter) sample() {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	w.peak = max(w.peak, ms.HeapInuse)
}

// heapBaseline is the live heap after a collection.
func heapBaseline() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapInuse
}

// treeStepsLog is one chip.run with n × (chip.run.step + chip.run.step.sub):
// strace_timing --tree prints every step.sub under every step, n² + n + 3
// lines in all.
func treeStepsLog(n int) string {
	var b strings.Builder
	const env = "[mono_ns=%d][T0x7f3c9a302c80][TIMING] emit_host_span: "
	t := int64(1000)
	for range n {
		fmt.Fprintf(&b, env+"[STRACE] v=1 pid=7 tid=7 inv=1 hid=abc depth=1 name=chip.run.step ts=%d dur=900 \n", t+900, t)
		fmt.Fprintf(&b, env+"[STRACE] v=1 pid=7 tid=7 inv=1 hid=abc depth=2 name=chip.run.step.sub ts=%d dur=400 \n", t+500, t+100)
		t += 1000
	}
	fmt.Fprintf(&b, env+"[STRACE] v=1 pid=7 tid=7 inv=1 hid=abc depth=0 name=chip.run ts=0 dur=%d \n", t, t)
	return b.String()
}

// TestTreeStreamsQuadraticOutput: a log of a few hundred KB whose tree is
// 1,002,003 lines (50 MB) is printed with a live heap bounded by the input,
// not the output (the text used to be built whole, twice), when
// --max-rows 0 lifts the bound on its rows.
func TestTreeStreamsQuadraticOutput(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 50 MB of output")
	}
	const n = 1000
	path := filepath.Join(t.TempDir(), "steps.log")
	require.NoError(t, os.WriteFile(path, []byte(treeStepsLog(n)), 0o644))
	for _, format := range []string{"text", "markdown", "csv", "json"} {
		t.Run(format, func(t *testing.T) {
			base := heapBaseline()
			w := newPeakWriter()
			var stderr bytes.Buffer
			code := run([]string{"tree", "--format", format, "--max-rows", "0", path}, nil, w, &stderr)
			require.Equal(t, 0, code, stderr.String())
			require.Greater(t, w.n, int64(30<<20), "the output is large")
			if format == "text" {
				assert.Equal(t, int64(n*n+n+3), w.lines)
			}
			grown := int64(w.peak) - int64(base)
			assert.Less(t, grown, int64(24<<20), "live heap grew by %d MB while %d MB were written", grown>>20, w.n>>20)
		})
	}
}

// TestBoundsRefuseHostileLogs: with small bounds, every view that holds
// spans refuses a log that goes past --max-spans, and tree one whose rows
// go past --max-rows, with exit 1, an error naming the file (and the line
// that went past), and nothing on stdout. The bound is hit before what it
// guards is spent: the error names the record right after it.
func TestBoundsRefuseHostileLogs(t *testing.T) {
	steps := treeStepsLog(20) // 41 spans; a tree of 20·20 + 20 + 1 rows
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"tree spans", []string{"tree", "--max-spans", "10", "steps.log"},
			"hbgtrace: reading steps.log: line 11: more than 10 spans in the invocations the tree is drawn from to hold in memory; --max-spans raises the bound\n"},
		{"tree rows", []string{"tree", "--max-rows", "420", "steps.log"},
			"hbgtrace: tree: steps.log: the tree has more than 420 rows (spans that share a name share their children); --max-rows raises the bound\n"},
		{"tree rows, json", []string{"tree", "--format", "json", "--max-rows", "100", "steps.log"},
			"hbgtrace: tree: steps.log: the tree has more than 100 rows (spans that share a name share their children); --max-rows raises the bound\n"},
	}
	for _, cmd := range []string{"trace", "swimlane", "pprof", "gaps", "overlap", "orch"} {
		args := []string{cmd, "--max-spans", "40", "steps.log"}
		switch cmd {
		case "trace", "swimlane":
			args = append(args, "-o", "out.json")
		case "pprof":
			args = append(args, "-o", "out.pb.gz")
		}
		tests = append(tests, struct {
			name string
			args []string
			want string
		}{cmd, args, "hbgtrace: reading steps.log: line 41: more than 40 spans and phase lines to hold in memory; --max-spans raises the bound\n"})
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := phasesExec(t, map[string]string{"steps.log": steps}, "", tc.args...)
			assert.Equal(t, 1, code)
			assert.Empty(t, stdout)
			assert.Equal(t, tc.want, stderr)
			_, err := os.Stat("out.json")
			assert.True(t, os.IsNotExist(err), "no output file is written")
		})
	}
	// At the bound, each view runs.
	for _, args := range [][]string{
		{"tree", "--max-spans", "41", "--max-rows", "421", "steps.log"},
		{"trace", "--max-spans", "41", "steps.log", "-o", "out.json"},
	} {
		_, stderr, code := phasesExec(t, map[string]string{"steps.log": steps}, "", args...)
		assert.Equal(t, 0, code, stderr)
	}
}

// TestBoundsRefuseHostileRecords: a --records artifact holds at most 16
// JSON values per span of --max-spans; a line past that ends every view
// that reads artifacts before it is decoded (a 60 MB line of 20 million
// empty records took 1.8 GB), with exit 1 and an error naming the file,
// the line and the bound. Within it, the view runs.
func TestBoundsRefuseHostileRecords(t *testing.T) {
	files := map[string]string{
		"steps.log": treeStepsLog(20),
		"r.jsonl":   `{"pid":1,"inv":1,"records":[]}` + "\n" + `{"pid":1,"inv":2,"records":[` + strings.TrimSuffix(strings.Repeat(`{},`, 1000), ",") + "]}\n",
	}
	for _, cmd := range []string{"swimlane", "pprof", "gaps", "orch", "rounds"} {
		t.Run(cmd, func(t *testing.T) {
			args := []string{cmd, "--max-spans", "50", "steps.log", "--records", "r.jsonl"}
			switch cmd {
			case "swimlane":
				args = append(args, "-o", "out.json")
			case "pprof":
				args = append(args, "-o", "out.pb.gz")
			}
			stdout, stderr, code := phasesExec(t, files, "", args...)
			assert.Equal(t, 1, code)
			assert.Empty(t, stdout)
			assert.Contains(t, stderr, "reading r.jsonl: line 2: more than 800 JSON values of host_phase_records to hold in memory; --max-spans raises the bound\n")

			args[2] = "200" // 3,200 values: the artifact's 2,013 fit
			_, stderr, code = phasesExec(t, files, "", args...)
			assert.NotContains(t, stderr, "JSON values", "within the bound")
			if cmd == "swimlane" || cmd == "pprof" { // gaps and orch want other lines
				assert.Equal(t, 0, code, stderr)
			}
		})
	}
}

// TestTableViewsBoundWhatTheyHold: the table views keep no spans, but a
// row per invocation and per bind pass, so a log of millions of them (a
// gzip bomb of distinct invocations or of `bind phase=` passes) made them
// hold millions of rows: `phases` took 855 MB for 1,000,000 passes of one
// line, `rounds` 506 MB for 1,000,000 invocations of one span, with no
// bound. --max-spans now bounds what they hold: invocations, bind passes,
// E3 bind segment spans, and the names of an invocation, the lines of a
// pass and the segment spans of a bind past a real one's 64. Past it they
// stop at the record, with exit 1 and the error naming file, line and
// bound; at it they run. The bound's default is a million.
func TestTableViewsBoundWhatTheyHold(t *testing.T) {
	const span = "[mono_ns=1][T0x7f3c9a302c80][TIMING] emit_host_span: [STRACE] v=1 pid=7 tid=7 inv=%d hid=abc depth=%d name=%s ts=%d dur=900\n"
	const line = "[mono_ns=1][T0x7f3cb1408c80][TIMING] host_phase_trace_end: [host_phase_trace.cpp:393] bind phase=%s start_ns=%d dur_ns=413 bytes=8\n"
	var invocations, names, passes, longPass, e3 strings.Builder
	for i := 1; i <= 30; i++ {
		fmt.Fprintf(&invocations, span, i, 0, "chip.run", 1000*i)
		fmt.Fprintf(&passes, line, "args", 1000*i)
		fmt.Fprintf(&e3, span, i, 2, "chip.run.bind.args", 1000*i)
	}
	fmt.Fprintf(&names, span, 1, 0, "chip.run", 0)
	for i := 1; i <= 100; i++ {
		fmt.Fprintf(&names, span, 1, 1, fmt.Sprintf("chip.run.n%d", i), 1000*i)
		fmt.Fprintf(&longPass, line, fmt.Sprintf("x%d", i), 1000*i)
	}
	files := map[string]string{
		"invocations.log": invocations.String(), // 30 invocations
		"names.log":       names.String(),       // one invocation of 101 names
		"passes.log":      passes.String(),      // 30 passes of one line
		"long.log":        longPass.String(),    // one pass of 100 lines
		"e3.log":          e3.String(),          // 30 E3 bind segment spans
	}
	refused := func(file string, line int) string {
		return fmt.Sprintf("hbgtrace: reading %s: line %d: more than 20 invocations, bind passes and the names in them to hold in memory; --max-spans raises the bound\n", file, line)
	}
	for _, tc := range []struct {
		view, file string
		line       int // of the record past the bound of 20
	}{
		{"rounds", "invocations.log", 21},
		{"tpot", "invocations.log", 21},
		{"tree", "invocations.log", 21},
		{"tpot", "names.log", 84}, // the invocation, then names 65 to 84
		{"rounds", "passes.log", 21},
		{"phases", "passes.log", 21},
		{"phases", "long.log", 84}, // the pass, then lines 65 to 84
		{"phases", "e3.log", 21},
		{"rounds", "e3.log", 11}, // each span an invocation and a bind's pass
	} {
		t.Run(tc.view+" "+tc.file, func(t *testing.T) {
			stdout, stderr, code := phasesExec(t, files, "", tc.view, "--max-spans", "20", tc.file)
			assert.Equal(t, 1, code, stderr)
			assert.Empty(t, stdout)
			assert.Equal(t, refused(tc.file, tc.line), stderr)
			// Within the bound the view reads the whole log (phases may
			// then refuse the log as the reference does, not for its size).
			_, stderr, _ = phasesExec(t, files, "", tc.view, "--max-spans", "200", tc.file)
			assert.NotContains(t, stderr, "to hold in memory")
		})
	}
	// The default: a million rows, ten times the 1 GB log's.
	for _, view := range []string{"rounds", "phases", "tpot", "tree"} {
		stdout, _, code := phasesExec(t, nil, "", view, "--help")
		assert.Equal(t, 0, code)
		assert.Regexp(t, `--max-spans int +invocations and passes held \(0: none\) \(default 1000000\)`, stdout, view)
	}
}

// TestOrchBoundsItsPasses: orch makes a bind pass of each pass of lines,
// about 1.3 KB each (1,000,000 one-line passes took it 1.3 GB and 7.8 s,
// inside --max-spans), so it holds at most a sixteenth of --max-spans of
// them (trace.PassesOf), counted before they are made: past it, exit 1
// naming the file, the line and the bound; at it, the view runs.
func TestOrchBoundsItsPasses(t *testing.T) {
	const line = "[mono_ns=1][T0x7f3cb1408c80][TIMING] host_phase_trace_end: [host_phase_trace.cpp:393] %s start_ns=%d dur_ns=413 bytes=8\n"
	var b strings.Builder
	for i := 1; i <= 30; i++ {
		fmt.Fprintf(&b, line, "bind phase=args", 1000*i)
		fmt.Fprintf(&b, line, "host-orch phase=submit", 1000*i+10)
	}
	files := map[string]string{"passes.log": b.String()}
	stdout, stderr, code := phasesExec(t, files, "", "orch", "--max-spans", "320", "passes.log")
	assert.Equal(t, 1, code, stderr)
	assert.Empty(t, stdout)
	assert.Equal(t, "hbgtrace: reading passes.log: line 41: more than 20 bind passes to hold in memory; --max-spans raises the bound\n", stderr)
	_, stderr, _ = phasesExec(t, files, "", "orch", "--max-spans", "480", "passes.log")
	assert.NotContains(t, stderr, "to hold in memory")
}
