package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hbgkit/hbgkit/internal/buildinfo"
	"github.com/hbgkit/hbgkit/trace"
)

// These tests pin issue 11 §2: every bad input gives the right number or
// a counted warning naming the file and line, never a silent wrong number.

const badHead = "[STRACE] v=1 pid=1 tid=1 inv=%d hid=a depth=0 name=chip.run ts=100 dur="

func badRun(inv int, dur string) string {
	return strings.Replace(badHead, "%d", string(rune('0'+inv)), 1) + dur
}

func TestTornLastLineIsNotASpan(t *testing.T) {
	// Two complete runs of 10 µs and 20 µs, then a run cut right after
	// dur=44: the mean is 15 µs, not (10+20+0.044)/3.
	log := badRun(1, "10000 \n") + badRun(2, "20000 \n") + badRun(3, "44")
	stdout, stderr, code := phasesExec(t, map[string]string{"run.log": log}, "", "tpot", "run.log")
	assert.Equal(t, 0, code)
	assert.Equal(t, "callable hid=a — 2 invocation(s)\n  chip.run: mean=15.0us min=10.0us max=20.0us\n\n", stdout)
	assert.Equal(t, "warning: 1 of 3 [STRACE] records are incomplete and are excluded from the timing below\n"+
		"warning: incomplete [STRACE] records: run.log:3 (unterminated last line)\n", stderr)
}

func TestNonIntegerDurationsAreTorn(t *testing.T) {
	log := badRun(1, "10000 \n") + badRun(2, "9e30 \n") + badRun(3, "9223372036854775807 \n")
	stdout, stderr, _ := phasesExec(t, map[string]string{"run.log": log}, "", "tpot", "run.log")
	assert.Equal(t, "callable hid=a — 1 invocation(s)\n  chip.run: mean=10.0us min=10.0us max=10.0us\n\n", stdout)
	assert.Equal(t, "warning: 2 of 3 [STRACE] records are incomplete and are excluded from the timing below\n"+
		"warning: incomplete [STRACE] records: run.log:2 (dur is not an integer), run.log:3 (ts+dur overflows int64)\n", stderr)
}

func TestEveryRecordTornSaysWhy(t *testing.T) {
	log := badRun(1, "-5 \n") + badRun(2, "-6 \n")
	stdout, stderr, code := phasesExec(t, map[string]string{"run.log": log}, "", "tpot", "run.log")
	assert.Equal(t, 0, code)
	assert.Equal(t, "No [STRACE] markers found.\n", stdout)
	assert.Contains(t, stderr, "warning: incomplete [STRACE] records: run.log:1 (negative dur), run.log:2 (negative dur)\n")
}

func TestPhasesCountsMalformedBindLines(t *testing.T) {
	good := phasesE1Text("s", []string{"7f3c"}, 3)
	lines := strings.SplitAfter(good, "\n")
	// Line 3 (the first pass's second segment) gets a dur_ns that is no
	// integer: one pass fewer is not silent.
	lines[2] = strings.Replace(lines[2], "dur_ns=", "dur_ns=9e", 1)
	_, stderr, _ := phasesExec(t, map[string]string{"bind.log": strings.Join(lines, "")}, "", "phases", "bind.log", "--keep-first")
	assert.Equal(t, "warning: 1 `bind phase=` line(s) did not parse and are left out: bind.log:3 (dur_ns is not an integer)\n", stderr)

	// Every line bad: the reference's refusal, in its words, after the
	// counted warning that names the lines left out.
	all := strings.ReplaceAll(good, "dur_ns=", "dur_ns=x")
	_, stderr, code := phasesExec(t, map[string]string{"bind.log": all}, "", "phases", "bind.log")
	assert.Equal(t, 1, code)
	warn, refusal, ok := strings.Cut(stderr, "\nbind.log: ")
	require.True(t, ok, stderr)
	assert.Contains(t, warn, "did not parse and are left out: bind.log:2 (dur_ns is not an integer)")
	assert.Equal(t, phasesNoLines+"\n", refusal)
}

func TestRoundsCountsMalformedBindLines(t *testing.T) {
	log := `[STRACE] v=1 pid=1 tid=1 inv=1 hid=a depth=0 name=chip.run ts=0 dur=1000 
[STRACE] v=1 pid=1 tid=1 inv=1 hid=a depth=1 name=chip.run.bind ts=0 dur=900 
[mono_ns=1][T0x1][TIMING] host_phase_trace_end: [f.cpp:1] bind phase=host_orch start_ns=10 dur_ns=30
`
	_, stderr, _ := phasesExec(t, map[string]string{"r.log": strings.TrimSuffix(log, "\n")}, "", "rounds", "r.log")
	assert.Equal(t, "warning: 1 `bind phase=` line(s) did not parse and are left out: r.log:3 (unterminated last line)\n", stderr)
}

func TestBinaryInputIsNamed(t *testing.T) {
	bin := string([]byte{0x7f, 'E', 'L', 'F', 2, 1, 1, 0, 0, 0, 0, 0, 3, 0, 0x3e, 0})
	stdout, stderr, _ := phasesExec(t, map[string]string{"a.out": bin}, "", "tpot", "a.out")
	assert.Equal(t, "No [STRACE] markers found.\n", stdout)
	assert.Equal(t, "warning: a.out does not look like a text log (it holds binary data); nothing in it can be read as records\n", stderr)
}

func TestRecordsFileWithoutPassesIsNamed(t *testing.T) {
	files := map[string]string{"run.log": laneLog, "empty.jsonl": "", "random.jsonl": "not json\n"}
	for _, name := range []string{"empty.jsonl", "random.jsonl"} {
		_, stderr, _ := phasesExec(t, files, "", "rounds", "run.log", "--records", name)
		assert.Contains(t, stderr, "warning: "+name+" holds no host_phase_records pass")
		_, stderr, _, _ = laneExec(t, files, "", "swimlane", "run.log", "-o", "s.json", "--records", name)
		assert.Contains(t, stderr, "warning: "+name+" holds no host_phase_records pass")
	}
}

func TestSwimlaneRecordDetailIsPythonStr(t *testing.T) {
	// A pass for the bind of laneLog (pid 9, inv 5) with one record per
	// detail spelling; the span attrs carry str(record.get('detail', 0)).
	recs := `{"pid": 9, "inv": 5, "records": [` +
		`{"phase": "submit_task", "start_ns": 1000, "end_ns": 1001, "detail": null, "tid": 9}, ` +
		`{"phase": "submit_task", "start_ns": 1002, "end_ns": 1003, "detail": true, "tid": 9}, ` +
		`{"phase": "submit_task", "start_ns": 1004, "end_ns": 1005, "detail": 1e20, "tid": 9}, ` +
		`{"phase": "submit_task", "start_ns": 1006, "end_ns": 1007, "tid": 9}, ` +
		`{"phase": "submit_task", "start_ns": 1008, "end_ns": 1009, "detail": 1.5, "tid": 9}]}` + "\n"
	_, _, code, dir := laneExec(t, map[string]string{"run.log": laneLog, "r.jsonl": recs}, "", "swimlane", "run.log", "-o", "s.json", "--records", "r.jsonl")
	require.Equal(t, 0, code)
	doc, err := os.ReadFile(filepath.Join(dir, "s.json"))
	require.NoError(t, err)
	for _, d := range []string{"detail=None ", "detail=True ", "detail=1e+20 ", "detail=0 ", "detail=1.5 "} {
		assert.Contains(t, string(doc), d)
	}
}

// TestOutputTargets pins issue 11 §3 for the commands that write -o.
func TestOutputTargets(t *testing.T) {
	for _, view := range []string{"trace", "swimlane"} {
		t.Run(view+" -o - writes stdout, the summary goes to stderr", func(t *testing.T) {
			stdout, stderr, code, dir := laneExec(t, map[string]string{"run.log": laneLog}, "", view, "run.log", "-o", "-")
			require.Equal(t, 0, code, stderr)
			assert.True(t, strings.HasPrefix(stdout, "{"), "the JSON document is on stdout")
			assert.Contains(t, stderr, "Wrote ")
			_, err := os.Stat(filepath.Join(dir, "-"))
			assert.True(t, os.IsNotExist(err), "no file named -")
		})
		t.Run(view+" -o DIR is a clear error", func(t *testing.T) {
			_, stderr, code, _ := laneExec(t, map[string]string{"run.log": laneLog, "d/x": ""}, "", view, "run.log", "-o", "d")
			assert.Equal(t, 1, code)
			assert.Contains(t, stderr, "d: it is a directory")
		})
		t.Run(view+" -o /dev/full reports the failure and keeps the device", func(t *testing.T) {
			if fi, err := os.Stat("/dev/full"); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
				t.Skip("no /dev/full")
			}
			_, stderr, code, _ := laneExec(t, map[string]string{"run.log": laneLog}, "", view, "run.log", "-o", "/dev/full")
			assert.Equal(t, 1, code)
			assert.Contains(t, stderr, "/dev/full")
			fi, err := os.Lstat("/dev/full")
			require.NoError(t, err)
			assert.True(t, fi.Mode()&os.ModeCharDevice != 0)
		})
		t.Run(view+" -o FIFO writes into the pipe", func(t *testing.T) {
			dir := t.TempDir()
			fifo := filepath.Join(dir, "p")
			require.NoError(t, syscall.Mkfifo(fifo, 0o600))
			got := make(chan int)
			go func() {
				b, _ := os.ReadFile(fifo)
				got <- len(b)
			}()
			_, stderr, code, _ := laneExec(t, map[string]string{"run.log": laneLog}, "", view, "run.log", "-o", fifo)
			require.Equal(t, 0, code, stderr)
			assert.Greater(t, <-got, 10)
			fi, err := os.Lstat(fifo)
			require.NoError(t, err)
			assert.True(t, fi.Mode()&os.ModeNamedPipe != 0)
		})
	}
}

// TestAccountingIgnoresLinePermutations: rounds and phases --accounting
// print the same numbers whatever the order of a pass's lines, on E3
// passes whose host_orch and upload spans share intervals.
func TestAccountingIgnoresLinePermutations(t *testing.T) {
	pass := func(inv, base int) []string {
		sp := func(depth int, name string, ts, dur int) string {
			return fmt.Sprintf("[STRACE] v=1 pid=7 tid=7 inv=%d hid=abc depth=%d name=%s ts=%d dur=%d \n", inv, depth, name, base+ts, dur)
		}
		return []string{
			sp(2, "chip.run.bind.args", 0, 50_000),
			sp(2, "chip.run.bind.host_orch", 100_000, 200_000),
			sp(2, "chip.run.bind.h2d_graph", 100_000, 200_000),
			sp(2, "chip.run.bind.graph_upload", 100_000, 200_000),
			sp(2, "chip.run.bind.arena_h2d", 320_000, 40_000),
			sp(2, "chip.run.bind.graph_pack", 400_000, 10_000),
		}
	}
	rng := rand.New(rand.NewPCG(3, 11))
	var first [2]string
	for k := range 8 {
		var b strings.Builder
		for inv := 1; inv <= 3; inv++ {
			base := inv * 10_000_000
			lines := pass(inv, base)
			if k > 0 {
				rng.Shuffle(len(lines), func(i, j int) { lines[i], lines[j] = lines[j], lines[i] })
			}
			fmt.Fprintf(&b, "[STRACE] v=1 pid=7 tid=7 inv=%d hid=abc depth=0 name=chip.run ts=%d dur=900000 \n", inv, base)
			for _, l := range lines {
				b.WriteString(l)
			}
			fmt.Fprintf(&b, "[STRACE] v=1 pid=7 tid=7 inv=%d hid=abc depth=1 name=chip.run.bind ts=%d dur=800000 \n", inv, base)
		}
		files := map[string]string{"e3.log": b.String()}
		rounds, stderr, code := phasesExec(t, files, "", "rounds", "e3.log", "--format", "json")
		require.Equal(t, 0, code, stderr)
		acct, stderr, code := phasesExec(t, files, "", "phases", "e3.log", "--accounting", "--keep-first", "--format", "json")
		require.Equal(t, 0, code, stderr)
		if k == 0 {
			first = [2]string{rounds, acct}
			// By hand: HostOrch 200 − 200 = 0, H2dImage 200 + 40, Gate 240.
			assert.Contains(t, rounds, `"gate_us": 240,`)
			assert.Contains(t, rounds, `"hostorch_us": 0,`)
			continue
		}
		assert.Equal(t, first[0], rounds, "rounds, permutation %d", k)
		assert.Equal(t, first[1], acct, "phases --accounting, permutation %d", k)
	}
}

func TestVersionFlag(t *testing.T) {
	stdout, stderr, code := phasesExec(t, nil, "", "--version")
	assert.Equal(t, 0, code, stderr)
	// The same form as hbgbench --version (cmd/hbgbench TestVersion).
	assert.Regexp(t, `^hbgtrace \(hbgkit\) \S+( rev [0-9a-f]+(\+dirty)?)? go\S+\n$`, stdout)
	assert.Equal(t, buildinfo.Read().Program("hbgtrace")+"\n", stdout)
}

// TestAccountingDocStderr checks that docs/accounting.md quotes the stderr
// the E3-spool example really prints.
func TestAccountingDocStderr(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "accounting.md"))
	require.NoError(t, err)
	fixture, err := filepath.Abs(filepath.Join("..", "..", "fixtures", "hbg-e3-spool.log"))
	require.NoError(t, err)
	_, stderr, code := phasesExec(t, nil, "", "rounds", fixture)
	require.Equal(t, 0, code)
	require.NotEmpty(t, stderr)
	for _, w := range strings.SplitAfter(strings.TrimSuffix(stderr, "\n"), "\n") {
		assert.Contains(t, string(doc), "    "+strings.TrimSuffix(w, "\n")+"\n")
	}
}

// TestExitStatusOnNoData pins the README's exit-status rule on an empty log
// and on a log whose every record is torn.
func TestExitStatusOnNoData(t *testing.T) {
	for _, log := range []string{"", badRun(1, "-5 \n")} {
		for _, tc := range []struct {
			args []string
			code int
		}{
			{[]string{"tpot", "x.log"}, 0},
			{[]string{"rounds", "x.log"}, 0},
			{[]string{"tree", "x.log"}, 0},
			{[]string{"trace", "x.log", "-o", "t.json"}, 0},
			{[]string{"swimlane", "x.log", "-o", "s.json"}, 0},
			{[]string{"phases", "x.log"}, 1},  // refuses: no bind phase= lines
			{[]string{"overlap", "x.log"}, 2}, // a failed assertion
		} {
			_, stderr, code := phasesExec(t, map[string]string{"x.log": log}, "", tc.args...)
			assert.Equal(t, tc.code, code, "%v on %q: %s", tc.args, log, stderr)
		}
	}
}

// TestProgressOnLongReads: a read that outlasts the delay shows "read X of
// Y MB" and clears its line; a short one and a non-terminal show nothing.
func TestProgressOnLongReads(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := filepath.Join(dir, "big.log")
	require.NoError(t, os.WriteFile(p, make([]byte, 3<<20), 0o644))
	srcs := []trace.Source{trace.FileSource(p)}

	var long strings.Builder
	pr := newProgress(&long, srcs, time.Millisecond, time.Millisecond)
	pr.counter().Store(1 << 20)
	time.Sleep(20 * time.Millisecond)
	pr.finish()
	assert.Contains(t, long.String(), "\rhbgtrace: read 1 of 3 MB (33%)")
	assert.True(t, strings.HasSuffix(long.String(), "\r\x1b[K"), "the line is cleared")

	var short strings.Builder
	pr = newProgress(&short, srcs, time.Hour, time.Millisecond)
	pr.finish()
	assert.Empty(t, short.String())

	assert.Equal(t, int64(0), inputBytes([]trace.Source{trace.ReaderSource("-", strings.NewReader(""))}), "stdin: no total")
	var buf strings.Builder
	assert.Nil(t, startProgress(&buf, srcs), "not a terminal: no progress")
}

func TestPhasesLeavesOutSpacedBindLines(t *testing.T) {
	good := phasesE1Text("s", []string{"7f3c"}, 3)
	want, _, code := phasesExec(t, map[string]string{"bind.log": good}, "", "phases", "bind.log", "--keep-first")
	require.Equal(t, 0, code)
	// A tab between fields: strace_timing reads the line, hbg_bind_phases
	// does not, so phases leaves it out and says so.
	lines := strings.SplitAfter(good, "\n")
	extra := strings.Replace(lines[2], " dur_ns=", "\tdur_ns=", 1)
	extra = strings.Replace(extra, "dur_ns=", "dur_ns=9", 1)
	spaced := strings.Join(lines[:3], "") + extra + strings.Join(lines[3:], "")
	stdout, stderr, code := phasesExec(t, map[string]string{"bind.log": spaced}, "", "phases", "bind.log", "--keep-first")
	assert.Equal(t, 0, code)
	assert.Equal(t, want, stdout)
	assert.Equal(t, "warning: 1 `bind phase=` line(s) with other whitespace than one space between fields are left out, as hbg_bind_phases does: bind.log:4\n", stderr)
}

// TestGluedBindPhaseOverflowIsLeftOut: a line holding two glued `bind
// phase=` records whose first one ends past int64 has no record: phases
// and swimlane leave it out with a warning naming file and line
// (docs/departures.md), rather than read the second record in its place.
// The reference reads the first one (phases its dur; swimlane attaches it
// to no bind, and its attributes swallow the second).
func TestGluedBindPhaseOverflowIsLeftOut(t *testing.T) {
	env := "[mono_ns=100][T0x7f3c][TIMING] host_phase_trace_end: [host_phase_trace.cpp:393] "
	good := phasesE1Text("s", []string{"7f3c"}, 3)
	lines := strings.SplitAfter(good, "\n")
	glued := strings.TrimSuffix(lines[2], "\n")
	head, rest, _ := strings.Cut(glued, "start_ns=")
	_, rest, _ = strings.Cut(rest, " ")
	glued = head + "start_ns=9223372036854775000 " + rest + env + "bind phase=host_orch start_ns=1 dur_ns=99999000 \n"
	bad := strings.Join(lines[:2], "") + glued + strings.Join(lines[3:], "")
	_, stderr, code := phasesExec(t, map[string]string{"bind.log": bad}, "", "phases", "bind.log", "--keep-first")
	assert.Equal(t, 0, code)
	assert.Equal(t, "warning: 1 `bind phase=` line(s) did not parse and are left out: bind.log:3 (start_ns + dur_ns overflows int64)\n", stderr)

	sw := "[mono_ns=5][T0x7f01][TIMING] emit_host_span: [STRACE] v=1 pid=7 tid=7 inv=1 hid=abc depth=1 name=chip.run.bind ts=1000 dur=10000 \n" +
		env + "bind phase=args start_ns=1000 dur_ns=100 ntensor=1\n" +
		env + "bind phase=host_orch start_ns=9223372036854775000 dur_ns=900 tasks=1 " + env + "bind phase=host_orch start_ns=2000 dur_ns=500 tasks=2\n"
	stdout, stderr, code := phasesExec(t, map[string]string{"sw.log": sw}, "", "swimlane", "sw.log", "-o", "sw.json")
	assert.Equal(t, 0, code)
	assert.Equal(t, "Wrote host swimlane: sw.json (1 host spans, 0 unaligned device spans, 1 bind phases)\n", stdout)
	assert.Equal(t, "warning: 1 `bind phase=` line(s) did not parse and are left out: sw.log:3 (start_ns + dur_ns overflows int64)\n", stderr)
}

// TestPhasesReadsRecordGluedAfterSpaced: hbg_bind_phases passes over a
// record whose fields are a tab or two spaces apart and reads a
// single-spaced one glued after it on the same line; so does phases
// (fixtures/conformance/111-phases-glued-after-spaced holds the
// reference's output).
func TestPhasesReadsRecordGluedAfterSpaced(t *testing.T) {
	good := phasesE1Text("s", []string{"7f3c"}, 3)
	want, _, code := phasesExec(t, map[string]string{"bind.log": good}, "", "phases", "bind.log", "--keep-first")
	require.Equal(t, 0, code)
	lines := strings.SplitAfter(good, "\n")
	spaced := strings.Replace(strings.TrimSuffix(lines[2], "\n"), " dur_ns=", "\tdur_ns=9", 1)
	glued := strings.Join(lines[:2], "") + spaced + lines[2] + strings.Join(lines[3:], "")
	stdout, stderr, code := phasesExec(t, map[string]string{"bind.log": glued}, "", "phases", "bind.log", "--keep-first")
	assert.Equal(t, 0, code)
	assert.Equal(t, want, stdout)
	assert.Empty(t, stderr)
}

// TestNULBytesSayWhatWasRead: a log with NUL bytes in some records is
// still read; the warning says how much of it was, and what was not,
// rather than that nothing could be.
func TestNULBytesSayWhatWasRead(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= 40; i++ {
		switch {
		case i%10 == 5:
			fmt.Fprintf(&b, "[STRACE] v=1 pid=1 tid=1 inv=%d hid=abc depth=0 name=chip.run ts=%d dur=\x00\n", i, i*100)
		case i%10 == 0:
			fmt.Fprintf(&b, "[STRACE] v=1 pid=1 tid=1 inv=%d hid=abc depth=0 name=chip.\x00run ts=%d dur=50 \n", i, i*100)
		default:
			fmt.Fprintf(&b, "[STRACE] v=1 pid=1 tid=1 inv=%d hid=abc depth=0 name=chip.run ts=%d dur=50 \n", i, i*100)
		}
	}
	_, stderr, code := phasesExec(t, map[string]string{"nul.log": b.String()}, "", "tpot", "nul.log")
	assert.Equal(t, 0, code)
	first, _, _ := strings.Cut(stderr, "\n")
	assert.Equal(t, "warning: nul.log does not look like a text log (it holds binary data); read from it: 36 of 40 [STRACE] record(s) "+
		"(4 with control bytes such as NUL in the span name, printed as they are); not read: 4 [STRACE] record(s), counted below", first)
	assert.Contains(t, stderr, "warning: 4 of 40 [STRACE] records are incomplete")
}

// TestPhasesSameLogTwice: the second copy of a log repeats every pass line
// for line; its passes are counted once, so its cold passes are not warm.
func TestPhasesSameLogTwice(t *testing.T) {
	text := phasesE1Text("s", []string{"7f3c", "7f3d"}, 3)
	files := map[string]string{"a.log": text}
	once, _, code := phasesExec(t, files, "", "phases", "a.log", "--rounds", "3")
	require.Equal(t, 0, code)
	twice, stderr, code := phasesExec(t, files, "", "phases", "a.log", "a.log", "--rounds", "3")
	require.Equal(t, 0, code)
	assert.Contains(t, once, "6 passes, 4 warm (2 cold dropped, ranks=2)")
	assert.Equal(t, strings.Replace(once, "a.log\n", "a.log a.log\n", 1), twice)
	assert.Equal(t, "warning: 6 bind pass(es) repeat an earlier pass line for line (the same log given twice?) and are used once\n", stderr)
}
