package main

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hbgkit/hbgkit/phases"
	"github.com/hbgkit/hbgkit/trace"
)

// phasesGoldenUpdate reports whether golden files are to be rewritten:
// `go test -update` when the package defines that flag, or
// HBGKIT_UPDATE_GOLDEN=1.
func phasesGoldenUpdate() bool {
	if f := flag.Lookup("update"); f != nil && f.Value.String() == "true" {
		return true
	}
	return os.Getenv("HBGKIT_UPDATE_GOLDEN") == "1"
}

// phasesGolden compares got with testdata/<name>, rewriting it on update;
// on a mismatch it writes testdata/<name>.got for inspection.
func phasesGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if phasesGoldenUpdate() {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "golden file missing; run with HBGKIT_UPDATE_GOLDEN=1")
	if !assert.Equal(t, string(want), got) {
		_ = os.WriteFile(path+".got", []byte(got), 0o644)
	}
}

// phasesSegs are the segments of the reference's synthetic passes (§4.1)
// with their pass-0 durations in ns; pass i adds 50 µs to each.
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

func phasesThreeReport(t *testing.T) *phasesReport {
	t.Helper()
	sp, err := phases.SnapshotBindSpread(phases.SnapshotBindPasses(phasesLines("7f3c", 3)),
		phases.BindSpreadOptions{Rounds: 3})
	require.NoError(t, err)
	return &phasesReport{
		logs:   []string{"bind.log"},
		stamp:  &trace.Stamp{Text: "abc1234 env SIMPLER_HBG_BIND_BREAKDOWN_ENABLE=1 python examples/x/test_q.py --rounds 3"},
		spread: sp,
	}
}

func TestPhasesReportText(t *testing.T) {
	// The reference's observed output (REFERENCE §4.1), with each pass's
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
	assert.Equal(t, want, phasesThreeReport(t).text())
}

func TestPhasesReportTextVariants(t *testing.T) {
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
			rep := &phasesReport{logs: []string{"a.log", "b.log"}, spans: tc.spans}
			if tc.stamp {
				rep.stamp = &trace.Stamp{Text: "s"}
			}
			var err error
			if tc.spans {
				rep.spread, err = phases.SpanBindSpread(tc.passes, false)
			} else {
				rep.spread, err = phases.SnapshotBindSpread(tc.passes, phases.BindSpreadOptions{})
			}
			require.NoError(t, err)
			got := rep.text()
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
	rep := phasesThreeReport(t)
	for _, format := range []string{formatText, formatMarkdown, formatJSON, formatCSV} {
		t.Run(format, func(t *testing.T) {
			var b strings.Builder
			switch format {
			case formatText:
				b.WriteString(rep.text())
			case formatJSON:
				require.NoError(t, writeJSON(&b, rep.json()))
			default:
				require.NoError(t, writeTable(&b, format, rep.table(format)))
			}
			phasesGolden(t, "phases_three_passes."+format, b.String())
		})
	}
}

func TestPhasesReportJSON(t *testing.T) {
	var b strings.Builder
	require.NoError(t, writeJSON(&b, phasesThreeReport(t).json()))
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
