package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hbgkit/hbgkit/internal/golden"
	"github.com/hbgkit/hbgkit/internal/report"
	"github.com/hbgkit/hbgkit/phases"
	"github.com/hbgkit/hbgkit/trace"
)

// phasesTestdata is the absolute testdata directory: the command tests
// change into a temporary directory.
var phasesTestdata = func() string {
	p, err := filepath.Abs("testdata")
	if err != nil {
		panic(err)
	}
	return p
}()

// phasesSegs are the segments of the reference's synthetic passes (of
// its hbg_bind_phases tests) with their pass-0 durations in ns; pass i
// adds 50 µs to each.
var phasesSegs = []struct {
	name string
	dur  int64
}{
	{"args", 200000}, {"host_orch", 206000}, {"graph_upload", 207000},
	{"arena_h2d", 208000}, {"host_view_close", 109000},
}

// phasesLines returns n synthetic passes of thread th as bind-phase lines.
func phasesLines(th string, n int) []trace.BindPhase {
	var out []trace.BindPhase
	for i := int64(0); i < int64(n); i++ {
		for k, s := range phasesSegs {
			out = append(out, trace.BindPhase{
				Phase: s.name, StartNs: 1000000*i + int64(k)*1000, DurNs: s.dur + 50000*i, Thread: th,
			})
		}
	}
	return out
}

func phasesThreeReport(t *testing.T) *report.BindPhases {
	t.Helper()
	sc := phases.NewSpreadCollector(false)
	lines := phasesLines("7f3c", 3)
	for i := range lines {
		sc.BindPhase(&lines[i])
	}
	sp, err := sc.Spread(phases.BindSpreadOptions{Rounds: 3})
	require.NoError(t, err)
	return &report.BindPhases{
		Logs:   []string{"bind.log"},
		Stamp:  &trace.Stamp{Text: "abc1234 env SIMPLER_HBG_BIND_BREAKDOWN_ENABLE=1 python examples/x/test_q.py --rounds 3"},
		Spread: sp,
	}
}

// phasesWrite returns rep as report.WriteBindPhases writes it in format.
func phasesWrite(t *testing.T, format string, rep *report.BindPhases) string {
	t.Helper()
	var b strings.Builder
	require.NoError(t, report.WriteBindPhases(&b, format, rep))
	return b.String()
}

func TestPhasesReportText(t *testing.T) {
	t.Parallel()
	// The reference's observed output (hbg_bind_phases), with each pass's
	// host_view_close in its own pass and only the phases the log has.
	want := `bind.log
  abc1234 env SIMPLER_HBG_BIND_BREAKDOWN_ENABLE=1 python examples/x/test_q.py --rounds 3
  3 passes, 2 warm (1 cold dropped, ranks=1)

  phase                    min    median       max   n
  args                   0.250     0.275     0.300    2
 *host_orch              0.256     0.281     0.306    2
 *graph_upload           0.257     0.282     0.307    2
 *arena_h2d              0.258     0.283     0.308    2
  host_view_close        0.159     0.184     0.209    2

  * = control plane, summed within each pass and then:
    total                  0.771     0.846     0.921    2   (ms)
    over 3 of 5 phases; absent from every
    pass: relocate, sm_h2d

  Compare by min, over the same phase set, against a log with the same
  stamp; see docs/dfx/hbg-bind-phases.md 'Comparing two branches'.
`
	assert.Equal(t, want, phasesWrite(t, formatText, phasesThreeReport(t)))
}

func TestPhasesReportTextVariants(t *testing.T) {
	t.Parallel()
	pass := func(ms map[string]float64) phases.SpreadPass { return phases.SpreadPass{Ms: ms} }
	tests := []struct {
		name     string
		spans    bool
		stamp    bool
		passes   []phases.SpreadPass
		contains []string
		absent   []string
	}{
		{
			name: "no stamp, partial and unknown phases",
			passes: []phases.SpreadPass{
				pass(map[string]float64{"host_orch": 9}),
				pass(map[string]float64{"host_orch": 1, "graph_upload": 2, "zz": 1, "aa": 1}),
				pass(map[string]float64{"host_orch": 3}),
			},
			contains: []string{
				"  (no `[stamp]` line: the command and commit behind these numbers have\n" +
					"   to be established by hand before comparing them to anything)\n",
				"\n  phases this tool does not know about: aa, zz\n" +
					"  (add them to PHASE_ORDER, and to CONTROL_PLANE if a dispatch change can move them)\n",
				"    total                  3.000     3.000     3.000    1   (ms)\n" +
					"    over 2 of 5 phases; absent from every\n    pass: relocate, sm_h2d, arena_h2d\n" +
					"    WARNING: graph_upload is missing from some passes but not all;\n" +
					"    those passes are excluded, and the total may not describe the run\n",
			},
		},
		{
			name: "no complete pass",
			passes: []phases.SpreadPass{
				pass(map[string]float64{"host_orch": 9}),
				pass(map[string]float64{"host_orch": 1, "graph_upload": 2}),
				pass(map[string]float64{"host_orch": 3, "arena_h2d": 2}),
			},
			stamp: true,
			contains: []string{
				"\n  no pass carries any of ('host_orch', 'graph_upload', 'relocate', 'sm_h2d', 'arena_h2d'); " +
					"the control-plane total is not computable\n",
			},
			absent: []string{"Compare by min", "(no `[stamp]`"},
		},
		{
			name:  "span-based wording",
			spans: true,
			passes: []phases.SpreadPass{
				{Pid: 7, Ms: map[string]float64{"host_orch": 1}},
				{Pid: 7, Ms: map[string]float64{"host_orch": 2, "mystery": 1}},
				{Pid: 7, Ms: map[string]float64{"host_orch": 3, "arena_h2d": 1}},
			},
			contains: []string{
				"  3 binds, 2 warm (1 cold dropped, ranks=1)\n",
				"  segments this tool does not know about: mystery\n",
				"  * = control plane, summed within each bind and then:\n",
				"    over 2 of 3 segments; absent from every\n    bind: graph_pack\n",
				"    WARNING: arena_h2d is missing from some binds but not all;\n" +
					"    those binds are excluded, and the total may not describe the run\n",
				"  stamp and torch autoload state; see docs/dfx/hbg-bind-phases.md 'Comparing two branches'.\n",
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rep := &report.BindPhases{Logs: []string{"a.log", "b.log"}, Spans: tc.spans}
			if tc.stamp {
				rep.Stamp = &trace.Stamp{Text: "s"}
			}
			var err error
			if tc.spans {
				rep.Spread, err = phases.SpanBindSpread(tc.passes, false)
			} else {
				rep.Spread, err = phases.SnapshotBindSpread(tc.passes, phases.BindSpreadOptions{})
			}
			require.NoError(t, err)
			got := phasesWrite(t, formatText, rep)
			assert.True(t, strings.HasPrefix(got, "a.log b.log\n"), got)
			for _, s := range tc.contains {
				assert.Contains(t, got, s)
			}
			for _, s := range tc.absent {
				assert.NotContains(t, got, s)
			}
		})
	}
}

func TestPhasesReportFormats(t *testing.T) {
	t.Parallel()
	rep := phasesThreeReport(t)
	for _, format := range []string{formatText, formatMarkdown, formatJSON, formatCSV} {
		t.Run(format, func(t *testing.T) {
			golden.Check(t, filepath.Join(phasesTestdata, "phases_three_passes."+format), phasesWrite(t, format, rep))
		})
	}
}

func TestPhasesReportJSON(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString(phasesWrite(t, formatJSON, phasesThreeReport(t)))
	var doc struct {
		Logs         []string
		Stamp        *string
		Source       string
		Passes, Warm int
		ColdDropped  int `json:"cold_dropped"`
		Phases       []struct {
			Phase        string
			ControlPlane bool `json:"control_plane"`
			Min, Median  float64
			N            int
		}
		ControlPlane struct {
			Retired []string
			Total   *struct{ Min, Median, Max float64 }
		} `json:"control_plane"`
	}
	require.NoError(t, json.Unmarshal([]byte(b.String()), &doc))
	assert.Equal(t, []string{"bind.log"}, doc.Logs)
	require.NotNil(t, doc.Stamp)
	assert.Equal(t, "bind_phase_lines", doc.Source)
	assert.Equal(t, 3, doc.Passes)
	assert.Equal(t, 2, doc.Warm)
	assert.Equal(t, 1, doc.ColdDropped)
	require.Len(t, doc.Phases, 5)
	assert.Equal(t, "host_orch", doc.Phases[1].Phase)
	assert.True(t, doc.Phases[1].ControlPlane)
	assert.InDelta(t, 0.256, doc.Phases[1].Min, 1e-12)
	assert.Equal(t, []string{"relocate", "sm_h2d"}, doc.ControlPlane.Retired)
	require.NotNil(t, doc.ControlPlane.Total)
	assert.InDelta(t, 0.771, doc.ControlPlane.Total.Min, 1e-12)
}

// phasesE1Text writes passes of phasesSegs as enveloped `bind phase=` lines;
// with several threads, their passes' lines interleave line by line, as
// forked ranks writing to one fd can.
func phasesE1Text(stamp string, threads []string, passes int) string {
	var b strings.Builder
	if stamp != "" {
		b.WriteString("[stamp] " + stamp + "\n")
	}
	per := make([][]trace.BindPhase, len(threads))
	for k, th := range threads {
		per[k] = phasesLines(th, passes)
		for i := range per[k] {
			per[k][i].DurNs += int64(k) * 1000000 // thread k is k ms slower
		}
	}
	for i := range per[0] {
		for k := range threads {
			l := per[k][i]
			fmt.Fprintf(&b, "[mono_ns=%d][T0x%s][TIMING] host_phase_trace_end: [host_phase_trace.cpp:393] bind phase=%s start_ns=%d dur_ns=%d \n",
				l.StartNs+l.DurNs, l.Thread, l.Phase, l.StartNs, l.DurNs)
		}
	}
	return b.String()
}

// Two torch_backend_autoload records (docs/formats.md).
const (
	phasesAutoloadA = `torch_backend_autoload setting=0 raw="0" raw_truncated=false effective=disabled torch_imported=true torch_npu_loaded=false`
	phasesAutoloadB = `torch_backend_autoload setting=1 effective=enabled torch_imported=true torch_npu_loaded=true`
)

// phasesE3Text writes E3 binds: for each pid, `binds` binds of args,
// host_orch, graph_pack and arena_h2d spans with kernel counters, plus an
// orchestrator operation and the bind span itself, which are not segments.
func phasesE3Text(pids []int64, binds int) string {
	var b strings.Builder
	for _, pid := range pids {
		for inv := int64(1); inv <= int64(binds); inv++ {
			ts := pid*1000000000 + inv*10000000
			for k, seg := range []string{"args", "host_orch", "graph_pack", "arena_h2d"} {
				dur := (int64(k)+1)*100000 + inv*10000 + pid
				fmt.Fprintf(&b, "[mono_ns=%d][T0x%x][TIMING] emit_host_span: [STRACE] v=1 pid=%d tid=%d inv=%d hid=abc depth=2 name=chip.run.bind.%s ts=%d dur=%d minflt=1 tminflt=0 nivcsw=0 nvcsw=1 cpu_ns=%d rec_cpu_ns=0\n",
					ts, pid, pid, pid, inv, seg, ts+int64(k)*1000000, dur, dur)
			}
			fmt.Fprintf(&b, "[mono_ns=%d][T0x%x][TIMING] emit_host_span: [STRACE] v=1 pid=%d tid=%d inv=%d hid=abc depth=3 name=chip.run.bind.host_orch.record_node ts=%d dur=5 \n",
				ts, pid, pid, pid, inv, ts)
			fmt.Fprintf(&b, "[mono_ns=%d][T0x%x][TIMING] emit_host_span: [STRACE] v=1 pid=%d tid=%d inv=%d hid=abc depth=1 name=chip.run.bind ts=%d dur=9000000 \n",
				ts, pid, pid, pid, inv, ts)
		}
	}
	return b.String()
}

// phasesExec runs hbgtrace with args in a temporary directory holding
// files, and returns stdout, stderr and the exit status.
func phasesExec(t *testing.T, files map[string]string, stdin string, args ...string) (string, string, int) {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644))
	}
	t.Chdir(dir)
	var stdout, stderr bytes.Buffer
	code := run(args, strings.NewReader(stdin), &stdout, &stderr)
	return stdout.String(), stderr.String(), code
}

func TestPhasesCommand(t *testing.T) {
	three := phasesE1Text("abc1234 env X=1 python t.py --rounds 3", []string{"7f3c"}, 3)
	tests := []struct {
		name       string
		files      map[string]string
		stdin      string
		args       []string
		wantCode   int
		wantStderr string
		golden     string   // testdata file holding the expected stdout
		contains   []string // else: pieces of stdout
	}{
		{
			name: "two threads interleaved", golden: "phases_two_threads.text",
			files: map[string]string{"bind.log": phasesE1Text("", []string{"aa", "bb"}, 3)},
			args:  []string{"phases", "bind.log", "--rounds", "3"},
		},
		{
			name: "E3 span log", golden: "phases_e3_spans.text",
			files: map[string]string{"host.7.log": phasesE3Text([]int64{7}, 3), "host.8.log": phasesE3Text([]int64{8}, 2)},
			args:  []string{"phases", "host.7.log", "host.8.log"},
		},
		{
			name: "E3 span log with autoload records",
			files: map[string]string{"host.7.log": "[mono_ns=5][T0xa][INFO] load: " + phasesAutoloadA + "\n" +
				phasesE3Text([]int64{7}, 3) + phasesAutoloadB + "\n" + phasesAutoloadA + "\n"},
			args: []string{"phases", "host.7.log"},
			contains: []string{"host.7.log\n  (no `[stamp]` line: the command and commit behind these numbers have\n" +
				"   to be established by hand before comparing them to anything)\n" +
				"  " + phasesAutoloadA + "\n  " + phasesAutoloadB + "\n  3 binds, 2 warm"},
		},
		{
			name:  "stdin",
			stdin: three, args: []string{"phases", "-", "--rounds", "3"},
			contains: []string{"-\n  abc1234 env X=1 python t.py --rounds 3\n  3 passes, 2 warm (1 cold dropped, ranks=1)\n"},
		},
		{
			name:  "ranks 0 keeps every pass",
			files: map[string]string{"bind.log": three}, args: []string{"phases", "bind.log", "--ranks", "0"},
			contains: []string{"  3 passes, 3 warm (0 cold dropped, ranks=0)\n", " *host_orch              0.206     0.256     0.306    3\n"},
		},
		{
			name:  "host_view_close counted in its own pass",
			files: map[string]string{"bind.log": three}, args: []string{"phases", "bind.log", "--keep-first"},
			contains: []string{"  host_view_close        0.109     0.159     0.209    3\n"},
		},
		{
			name:  "rounds 1 with 3 passes is all cold",
			files: map[string]string{"bind.log": three}, args: []string{"phases", "bind.log", "--rounds", "1"},
			wantCode: 1,
			wantStderr: "bind.log: 3 pass(es) over 3 rank(s), all of them cold. The first pass of each rank is warm-up, " +
				"so a warm pass needs --rounds 2 or more; --keep-first reports the cold passes instead.\n",
		},
		{
			name:  "E3 all cold",
			files: map[string]string{"host.7.log": phasesE3Text([]int64{7}, 1)}, args: []string{"phases", "host.7.log"},
			wantCode: 1,
			wantStderr: "host.7.log: 1 bind(s) over 1 rank(s), all of them cold. The first bind of each rank is warm-up, " +
				"so a warm bind needs --rounds 2 or more on the run; --keep-first reports the cold binds instead.\n",
		},
		{
			name:  "no bind lines, several logs",
			files: map[string]string{"a.log": "nothing\n", "b.log": "[stamp] x\n"}, args: []string{"phases", "a.log", "b.log"},
			wantCode: 1,
			wantStderr: "a.log b.log: no `bind phase=` lines. SIMPLER_HBG_BIND_BREAKDOWN_ENABLE=1 and SIMPLER_LOG_LEVEL=TIMING " +
				"must both be set, and a multi-device case must be invoked as its own child command -- see docs/dfx/hbg-bind-phases.md.\n",
		},
		{
			name:  "negative rounds",
			files: map[string]string{"bind.log": three}, args: []string{"phases", "bind.log", "--rounds", "-1"},
			wantCode: 2, contains: []string{},
		},
		{
			name:  "bad format",
			files: map[string]string{"bind.log": three}, args: []string{"phases", "bind.log", "--format", "xml"},
			wantCode: 2, contains: []string{},
		},
		{
			name:  "csv",
			files: map[string]string{"bind.log": three}, args: []string{"phases", "bind.log", "--format", "csv"},
			contains: []string{"kind,phase,control_plane,min_ms,median_ms,max_ms,n\n", "total,host_orch+graph_upload+arena_h2d,true,0.771,0.8460000000000001,0.921,2\n"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := phasesExec(t, tc.files, tc.stdin, tc.args...)
			require.Equal(t, tc.wantCode, code, "stderr: %s", stderr)
			switch {
			case tc.wantCode == 2:
				assert.Contains(t, stderr, "hbgtrace: ")
				assert.Empty(t, stdout)
			default:
				assert.Equal(t, tc.wantStderr, stderr)
			}
			if tc.golden != "" {
				golden.Check(t, filepath.Join(phasesTestdata, tc.golden), stdout)
			}
			for _, s := range tc.contains {
				assert.Contains(t, stdout, s)
			}
			if tc.wantCode == 1 {
				assert.Empty(t, stdout)
			}
		})
	}
}

// phasesAcctLog writes E1 passes of one thread, each a map of segment to
// duration in µs, as enveloped `bind phase=` lines in enum order.
func phasesAcctLog(passes []map[string]int64) string {
	var b strings.Builder
	for i, p := range passes {
		start := int64(i+1) * 100_000_000
		for _, ph := range []string{"args", "host_orch", "graph_upload", "relocate", "sm_h2d", "arena_h2d", "host_view_close"} {
			us, ok := p[ph]
			if !ok {
				continue
			}
			fmt.Fprintf(&b, "[mono_ns=%d][T0xaa][TIMING] host_phase_trace_end: [host_phase_trace.cpp:393] bind phase=%s start_ns=%d dur_ns=%d \n",
				start+us*1000, ph, start, us*1000)
			start += us*1000 + 1000
		}
	}
	return b.String()
}

func TestPhasesAccounting(t *testing.T) {
	// Three warm passes whose control-plane sums are 2600, 2000 and 2400
	// µs: the smallest sum (1000 + 900 + 100) is not the sum of the
	// smallest parts (500 + 100 + 100 = 700 µs).
	minOfSums := phasesAcctLog([]map[string]int64{
		{"args": 50, "host_orch": 9000, "graph_upload": 9000, "arena_h2d": 9000}, // cold
		{"args": 50, "host_orch": 500, "graph_upload": 2000, "arena_h2d": 100},
		{"args": 50, "host_orch": 1000, "graph_upload": 900, "arena_h2d": 100},
		{"args": 50, "host_orch": 2000, "graph_upload": 100, "arena_h2d": 300},
	})
	// The second warm pass lacks arena_h2d.
	lacking := phasesAcctLog([]map[string]int64{
		{"host_orch": 900, "arena_h2d": 100},
		{"host_orch": 1000, "arena_h2d": 100},
		{"host_orch": 1000},
		{"host_orch": 2000, "arena_h2d": 300},
	})
	t.Run("minimum of per-pass sums", func(t *testing.T) {
		stdout, stderr, code := phasesExec(t, map[string]string{"bind.log": minOfSums}, "", "phases", "bind.log", "--rounds", "4", "--accounting")
		require.Equal(t, 0, code, stderr)
		assert.Empty(t, stderr)
		assert.Contains(t, stdout, " *arena_h2d              0.100     0.100     0.300    3\n"+
			"  Gate                   2.000     2.400     2.600    3\n"+
			"  ControlPlane           2.000     2.400     2.600    3\n"+
			"\n  * = control plane, summed within each pass and then:\n"+
			"    total                  2.000     2.400     2.600    3   (ms)\n")
		assert.NotContains(t, stdout, "GraphPack", "no graph_pack before E3")
	})
	t.Run("a warm pass lacking a stage", func(t *testing.T) {
		stdout, stderr, code := phasesExec(t, map[string]string{"bind.log": lacking}, "", "phases", "bind.log", "--rounds", "4", "--accounting")
		require.Equal(t, 0, code, stderr)
		assert.Equal(t, "warning: HBG accounting, warm passes: left out 1 of 3 passes that lack H2dImage, H2dArena: passes 1\n", stderr)
		assert.Contains(t, stdout, "  Gate                   1.100     1.700     2.300    2\n"+
			"  ControlPlane           1.100     1.700     2.300    2\n")
	})
	t.Run("E3 binds", func(t *testing.T) {
		stdout, stderr, code := phasesExec(t, map[string]string{"host.7.log": phasesE3Text([]int64{7}, 3)}, "", "phases", "host.7.log", "--accounting", "--keep-first")
		require.Equal(t, 0, code, stderr)
		assert.Empty(t, stderr)
		assert.Contains(t, stdout, " *arena_h2d              0.410     0.420     0.430    3\n"+
			"  Gate                   0.620     0.640     0.660    3\n"+
			"  GraphPack              0.310     0.320     0.330    3\n"+
			"  ControlPlane           0.930     0.960     0.990    3\n",
			"ControlPlane = host_orch + graph_pack + arena_h2d, upstream's total")
	})
	t.Run("without the flag", func(t *testing.T) {
		stdout, _, code := phasesExec(t, map[string]string{"bind.log": minOfSums}, "", "phases", "bind.log", "--rounds", "4")
		require.Equal(t, 0, code)
		for _, s := range []string{"Gate", "ControlPlane", "GraphPack", "HBG"} {
			assert.NotContains(t, stdout, s)
		}
		_, _, code = phasesExec(t, map[string]string{"bind.log": minOfSums}, "", "phases", "bind.log", "--rounds", "4", "--format", "json")
		require.Equal(t, 0, code)
	})
	t.Run("json", func(t *testing.T) {
		stdout, _, code := phasesExec(t, map[string]string{"bind.log": lacking}, "", "phases", "bind.log", "--rounds", "4", "--accounting", "--format", "json")
		require.Equal(t, 0, code)
		var doc struct {
			Accounting struct {
				Unit       string
				N, Of      int
				PassesUsed []int `json:"passes_used"`
				LeftOut    []int `json:"left_out"`
				Lacking    []string
				Rows       []struct {
					Stage            string
					Min, Median, Max float64
					N                int
				}
				Warning *string
			}
		}
		require.NoError(t, json.Unmarshal([]byte(stdout), &doc))
		a := doc.Accounting
		assert.Equal(t, "ms", a.Unit)
		assert.Equal(t, 2, a.N)
		assert.Equal(t, 3, a.Of)
		assert.Equal(t, []int{0, 2}, a.PassesUsed)
		assert.Equal(t, []int{1}, a.LeftOut)
		assert.Equal(t, []string{"H2dImage", "H2dArena"}, a.Lacking)
		require.Len(t, a.Rows, 2)
		assert.Equal(t, "ControlPlane", a.Rows[1].Stage)
		assert.InDelta(t, 1.1, a.Rows[1].Min, 1e-12)
		assert.Equal(t, 2, a.Rows[1].N)
		require.NotNil(t, a.Warning)
		assert.Contains(t, *a.Warning, "left out 1 of 3 passes")

		plain, _, _ := phasesExec(t, map[string]string{"bind.log": lacking}, "", "phases", "bind.log", "--rounds", "4", "--format", "json")
		assert.NotContains(t, plain, `"accounting"`, "no accounting without the flag")
	})
	t.Run("csv", func(t *testing.T) {
		stdout, _, code := phasesExec(t, map[string]string{"bind.log": minOfSums}, "", "phases", "bind.log", "--rounds", "4", "--accounting", "--format", "csv")
		require.Equal(t, 0, code)
		assert.Contains(t, stdout, "\naccounting,Gate,false,2,2.4,2.6,3\naccounting,ControlPlane,false,2,2.4,2.6,3\ntotal,")
	})
}

// TestPhasesAccountingGolden runs `phases --accounting` on the E1 and E3
// fixtures in every format against testdata/phases_hbg-<fixture>_accounting.<format>.
func TestPhasesAccountingGolden(t *testing.T) {
	t.Parallel()
	fixtures, err := filepath.Abs("../../fixtures")
	require.NoError(t, err)
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"e1", []string{"--rounds", "4", filepath.Join(fixtures, "hbg-e1.log")}},
		{"e2", []string{"--rounds", "5", filepath.Join(fixtures, "hbg-e2.log")}},
		{"e3-spool", []string{filepath.Join(fixtures, "hbg-e3-spool.log")}},
		{"e1-two-ranks", []string{"--rounds", "4", filepath.Join(fixtures, "hbg-e1-two-ranks-shared-t0x.log")}},
	} {
		for _, f := range []string{formatText, formatMarkdown, formatJSON, formatCSV} {
			t.Run(tc.name+"."+f, func(t *testing.T) {
				var stdout, stderr bytes.Buffer
				args := append([]string{"phases", "--accounting", "--format", f}, tc.args...)
				code := run(args, strings.NewReader(""), &stdout, &stderr)
				require.Equal(t, 0, code, stderr.String())
				assert.NotContains(t, stderr.String(), "HBG accounting", "every warm pass records every stage")
				// The log names are absolute paths: keep the golden files
				// independent of the checkout.
				got := strings.ReplaceAll(stdout.String(), fixtures+string(filepath.Separator), "fixtures/")
				golden.Check(t, filepath.Join(phasesTestdata, "phases_hbg-"+tc.name+"_accounting."+f), got)
			})
		}
	}
}
