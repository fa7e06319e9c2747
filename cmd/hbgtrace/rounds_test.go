package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// update rewrites the golden files under testdata/: go test -update.
var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// Fixtures of the golden tests: inputs of conformance cases.
const (
	viewsTwoCallables = "../../fixtures/conformance/001-tpot-two-callables/input.log"
	viewsTMR25        = "../../fixtures/conformance/012-rounds-tmr-25/input.log"
	viewsDSV4TwoRanks = "../../fixtures/conformance/022-rounds-dsv4-two-ranks/input.log"
	viewsTreeTMR      = "../../fixtures/conformance/023-tree-tmr/input.log"
)

var viewsFormats = []string{formatText, formatMarkdown, formatJSON, formatCSV}

// viewsRun runs hbgtrace in-process.
func viewsRun(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

// viewsGolden compares got with testdata/<name>, rewriting it with -update.
func viewsGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		require.NoError(t, os.MkdirAll("testdata", 0o755))
		require.NoError(t, os.WriteFile(path, []byte(got), 0o644))
		return
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "golden file missing; run go test -update")
	assert.Equal(t, string(want), got, "golden %s (refresh with go test -update)", name)
}

// viewsSpanLine is one bare [STRACE] record.
func viewsSpanLine(pid, inv int, hid string, depth int, name string, ts, dur int64, attrs string) string {
	return fmt.Sprintf("[STRACE] v=1 pid=%d tid=%d inv=%d hid=%s depth=%d name=%s ts=%d dur=%d %s\n",
		pid, pid, inv, hid, depth, name, ts, dur, attrs)
}

// viewsRoundsLog is a log of n rounds of pid 7: Host 1000+i µs, and Device
// 500+i µs in the first withDevice rounds.
func viewsRoundsLog(n, withDevice int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteString(viewsSpanLine(7, i+1, "abc", 0, "chip.run", int64(i)*10_000_000, int64(1000+i)*1000, ""))
		if i < withDevice {
			b.WriteString(viewsSpanLine(7, i+1, "abc", 2, "chip.run.runner_run.device_wall", 0, int64(500+i)*1000, "clk=dev"))
		}
	}
	return b.String()
}

func TestRoundsText(t *testing.T) {
	tests := []struct {
		name     string
		log      string
		args     []string
		want     string   // exact stdout when set
		contains []string // else: substrings of stdout
		absent   []string
	}{
		{
			// REFERENCE §7.1 item 21.
			name: "host and device columns",
			log: viewsSpanLine(7, 1, "abc", 0, "chip.run", 0, 100_000, "") +
				viewsSpanLine(7, 1, "abc", 2, "chip.run.runner_run.device_wall", 0, 20_000, "clk=dev") +
				viewsSpanLine(7, 2, "abc", 0, "chip.run", 500_000, 120_000, "") +
				viewsSpanLine(7, 2, "abc", 2, "chip.run.runner_run.device_wall", 0, 24_000, "clk=dev"),
			want: "  Round      Host (us)   Device (us)\n" +
				"  ----------------------------------\n" +
				"  0              100.0          20.0\n" +
				"  1              120.0          24.0\n" +
				"  Avg Host: 110.0 us  |  Avg Device: 22.0 us [2/2]  (2 rounds)\n",
		},
		{
			name:     "21 rounds have a trimmed line",
			log:      viewsRoundsLog(21, 21),
			contains: []string{"  Trimmed Avg Host: 1010.0 us  |  Trimmed Avg Device: 510.0 us  (dropped 10 low + 10 high, 1 rounds used)\n"},
		},
		{
			name:     "20 rounds have none",
			log:      viewsRoundsLog(20, 20),
			contains: []string{"(20 rounds)\n"},
			absent:   []string{"Trimmed"},
		},
		{
			name: "device in 19 of 25 rounds is not trimmed",
			log:  viewsRoundsLog(25, 19),
			contains: []string{
				"  |  Avg Device: 509.0 us [19/25]  (25 rounds)\n",
				"  Trimmed Avg Host: 1012.0 us  (dropped 10 low + 10 high, 5 rounds used)\n",
			},
			absent: []string{"Trimmed Avg Device"},
		},
		{
			name: "legacy names count, printed labels stay",
			log: viewsSpanLine(7, 1, "abc", 0, "simpler_run", 0, 2_000, "") +
				viewsSpanLine(7, 1, "abc", 3, "simpler_run.runner_run.device_wall.sched", 10, 1_000, "clk=dev"),
			contains: []string{"  Avg Host: 2.0 us  |  Avg Effective: 1.0 us  |  Avg Sched: 1.0 us  (1 rounds)\n"},
		},
		{
			name: "per rank: one titled table per pid",
			log: viewsSpanLine(9, 1, "abc", 0, "chip.run", 0, 3_000, "") +
				viewsSpanLine(7, 1, "abc", 0, "chip.run", 0, 1_000, "") +
				viewsSpanLine(7, 2, "abc", 0, "chip.run", 0, 2_000, ""),
			args: []string{"--per-rank"},
			want: "pid 7:\n" +
				"  Round      Host (us)\n" +
				"  --------------------\n" +
				"  0                1.0\n" +
				"  1                2.0\n" +
				"  Avg Host: 1.5 us  (2 rounds)\n" +
				"\n" +
				"pid 9:\n" +
				"  Round      Host (us)\n" +
				"  --------------------\n" +
				"  0                3.0\n" +
				"  Avg Host: 3.0 us  (1 rounds)\n",
		},
		{
			name: "only a prewarm invocation",
			log:  viewsSpanLine(7, 1, "abc", 0, "chip.prewarm.build", 0, 3_000, ""),
			want: "No [STRACE] markers found.\n",
		},
		{
			name: "per rank with nothing to show",
			log:  "",
			args: []string{"--per-rank"},
			want: "No [STRACE] markers found.\n",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"rounds", "-"}, tc.args...)
			code, out, errs := viewsRun(t, tc.log, args...)
			require.Equal(t, 0, code, errs)
			assert.Empty(t, errs)
			if tc.want != "" {
				assert.Equal(t, tc.want, out)
			}
			for _, s := range tc.contains {
				assert.Contains(t, out, s)
			}
			for _, s := range tc.absent {
				assert.NotContains(t, out, s)
			}
		})
	}
}

func TestRoundsWarningsFirst(t *testing.T) {
	log := "[STRACE] v=1 pid=7 tid=7 inv=1 hid=abc depth=0 name=chip.run\n" +
		viewsSpanLine(7, 1, "abc", 0, "chip.run", 0, 1_000, "")
	code, out, errs := viewsRun(t, log, "rounds", "-")
	require.Equal(t, 0, code)
	assert.Equal(t, "warning: 1 of 2 [STRACE] records are incomplete and are excluded from the timing below\n", errs)
	assert.Contains(t, out, "Avg Host: 1.0 us")
}

func TestViewsErrors(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantErr  string
	}{
		{"bad format", []string{"rounds", "--format", "xml", "-"}, 2, `invalid --format "xml"`},
		{"bad format tpot", []string{"tpot", "--format", "yaml", "-"}, 2, `invalid --format "yaml"`},
		{"no log", []string{"tree"}, 2, "requires at least 1 arg"},
		{"missing file", []string{"tpot", "does-not-exist.log"}, 1, "does-not-exist.log"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := viewsRun(t, "", tc.args...)
			assert.Equal(t, tc.wantCode, code)
			assert.Empty(t, out)
			assert.Contains(t, errs, tc.wantErr)
			assert.True(t, strings.HasPrefix(errs, "hbgtrace: "), errs)
		})
	}
}

// TestViewsGolden runs tpot, tree and rounds on realistic fixtures in every
// format and compares stdout with testdata/<view>_<fixture>.<format>.
func TestViewsGolden(t *testing.T) {
	tests := []struct {
		name string
		args []string
	}{
		{"tpot_two-callables", []string{"tpot", viewsTwoCallables}},
		{"tree_tmr", []string{"tree", viewsTreeTMR}},
		{"rounds_tmr-25", []string{"rounds", viewsTMR25}},
		{"rounds_dsv4-two-ranks", []string{"rounds", viewsDSV4TwoRanks}},
		{"rounds_dsv4-two-ranks_per-rank", []string{"rounds", "--per-rank", viewsDSV4TwoRanks}},
	}
	for _, tc := range tests {
		for _, f := range viewsFormats {
			t.Run(tc.name+"."+f, func(t *testing.T) {
				code, out, errs := viewsRun(t, "", append(tc.args, "--format", f)...)
				require.Equal(t, 0, code, errs)
				assert.Empty(t, errs)
				viewsGolden(t, tc.name+"."+f, out)
				switch f {
				case formatJSON:
					assert.True(t, json.Valid([]byte(out)), "valid json")
				case formatCSV:
					recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
					require.NoError(t, err)
					assert.NotEmpty(t, recs)
				}
			})
		}
	}
}

// TestViewsTextMatchesConformance pins that --format text is the default and
// is the reference's output.
func TestViewsTextMatchesConformance(t *testing.T) {
	for _, tc := range []struct{ args []string }{
		{[]string{"tpot", viewsTwoCallables}},
		{[]string{"tree", viewsTreeTMR}},
		{[]string{"rounds", viewsTMR25}},
	} {
		t.Run(tc.args[0], func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join(filepath.Dir(tc.args[1]), "expected.stdout"))
			require.NoError(t, err)
			_, def, _ := viewsRun(t, "", tc.args...)
			_, text, _ := viewsRun(t, "", append(tc.args, "--format", "text")...)
			assert.Equal(t, string(want), def)
			assert.Equal(t, def, text)
		})
	}
}

// roundsDocJSON decodes the rounds json schema.
type roundsDocJSON struct {
	Pid      *int64           `json:"pid"`
	Callable string           `json:"callable"`
	Columns  []map[string]any `json:"columns"`
	Rows     []map[string]any `json:"rows"`
	Averages []struct {
		Metric string  `json:"metric"`
		Value  float64 `json:"value"`
		Unit   string  `json:"unit"`
		N      int     `json:"n"`
		Of     int     `json:"of"`
	} `json:"averages"`
	Trimmed *struct {
		DroppedLow  int              `json:"dropped_low"`
		DroppedHigh int              `json:"dropped_high"`
		RoundsUsed  int              `json:"rounds_used"`
		Averages    []map[string]any `json:"averages"`
	} `json:"trimmed"`
}

// checkRoundsDoc checks the invariants of one rounds json table.
func checkRoundsDoc(t *testing.T, d roundsDocJSON) {
	t.Helper()
	require.NotEmpty(t, d.Rows)
	require.NotEmpty(t, d.Columns)
	assert.Equal(t, "Host", d.Columns[0]["name"])
	require.Len(t, d.Averages, len(d.Columns))
	for i, row := range d.Rows {
		assert.EqualValues(t, i, row["round"])
		for _, k := range []string{"pid", "inv"} {
			assert.Contains(t, row, k)
		}
		for _, c := range d.Columns {
			assert.Equal(t, "us", c["unit"])
			assert.Contains(t, row, c["key"])
		}
	}
	var sum float64
	for _, row := range d.Rows {
		sum += row["host_us"].(float64)
	}
	host := d.Averages[0]
	assert.Equal(t, "Host", host.Metric)
	assert.Equal(t, len(d.Rows), host.N)
	assert.InDelta(t, sum/float64(len(d.Rows)), host.Value, 1e-6)
	for i, a := range d.Averages {
		assert.Equal(t, d.Columns[i]["name"], a.Metric)
		assert.Equal(t, len(d.Rows), a.Of)
		assert.LessOrEqual(t, a.N, a.Of)
		assert.Equal(t, "us", a.Unit)
	}
	if len(d.Rows) > 20 {
		require.NotNil(t, d.Trimmed)
		assert.Equal(t, 10, d.Trimmed.DroppedLow)
		assert.Equal(t, 10, d.Trimmed.DroppedHigh)
		assert.Equal(t, len(d.Rows)-20, d.Trimmed.RoundsUsed)
		assert.Equal(t, "Host", d.Trimmed.Averages[0]["metric"])
	} else {
		assert.Nil(t, d.Trimmed)
	}
}

func TestRoundsJSON(t *testing.T) {
	for _, fx := range []string{viewsTMR25, viewsDSV4TwoRanks} {
		t.Run(filepath.Base(filepath.Dir(fx)), func(t *testing.T) {
			code, out, _ := viewsRun(t, "", "rounds", "--format", "json", fx)
			require.Equal(t, 0, code)
			var d roundsDocJSON
			require.NoError(t, json.Unmarshal([]byte(out), &d))
			assert.Nil(t, d.Pid)
			assert.NotEmpty(t, d.Callable)
			checkRoundsDoc(t, d)
		})
	}

	code, out, _ := viewsRun(t, "", "rounds", "--per-rank", "--format", "json", viewsDSV4TwoRanks)
	require.Equal(t, 0, code)
	var ranks struct {
		Ranks []roundsDocJSON `json:"ranks"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &ranks))
	require.Len(t, ranks.Ranks, 2)
	assert.Less(t, *ranks.Ranks[0].Pid, *ranks.Ranks[1].Pid)
	total := 0
	for _, r := range ranks.Ranks {
		checkRoundsDoc(t, r)
		for _, row := range r.Rows {
			assert.EqualValues(t, *r.Pid, row["pid"])
		}
		total += len(r.Rows)
	}
	assert.Equal(t, 12, total)

	code, out, _ = viewsRun(t, "", "rounds", "--format", "json", "-")
	require.Equal(t, 0, code)
	var empty roundsDocJSON
	require.NoError(t, json.Unmarshal([]byte(out), &empty))
	assert.Empty(t, empty.Rows)
	assert.NotNil(t, empty.Rows)
	assert.Nil(t, empty.Trimmed)
}

func TestRoundsCSVEmpty(t *testing.T) {
	for _, args := range [][]string{{"rounds", "--format", "csv", "-"}, {"rounds", "--per-rank", "--format", "csv", "-"}} {
		code, out, _ := viewsRun(t, "", args...)
		require.Equal(t, 0, code)
		assert.Equal(t, "round,pid,inv,host_us\n", out)
	}
}

// TestViewsHelp checks the help text of tpot, tree and rounds: Short, Long
// and Example set, an "Output formats" section, no tabs, lines under 80.
func TestViewsHelp(t *testing.T) {
	for _, c := range []*cobra.Command{newTpotCmd(), newTreeCmd(), newRoundsCmd()} {
		t.Run(c.Name(), func(t *testing.T) {
			assert.NotEmpty(t, c.Short)
			assert.NotEmpty(t, c.Long)
			assert.NotEmpty(t, c.Example)
			assert.Contains(t, c.Long, "Output formats (--format):")
			for _, text := range []string{c.Short, c.Long, c.Example} {
				assert.NotContains(t, text, "\t")
				for _, line := range strings.Split(text, "\n") {
					assert.Less(t, len([]rune(line)), 80, line)
				}
			}
		})
	}
}
