package main

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hbgkit/hbgkit/internal/golden"
	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

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
	t.Parallel()
	tests := []struct {
		name     string
		log      string
		args     []string
		want     string   // exact stdout when set
		contains []string // else: substrings of stdout
		absent   []string
	}{
		{
			// The reference's own test of the Host and Device columns.
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
	t.Parallel()
	log := "[STRACE] v=1 pid=7 tid=7 inv=1 hid=abc depth=0 name=chip.run\n" +
		viewsSpanLine(7, 1, "abc", 0, "chip.run", 0, 1_000, "")
	code, out, errs := viewsRun(t, log, "rounds", "-")
	require.Equal(t, 0, code)
	assert.Equal(t, "warning: 1 of 2 [STRACE] records are incomplete and are excluded from the timing below\n", errs)
	assert.Contains(t, out, "Avg Host: 1.0 us")
}

func TestViewsErrors(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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
				golden.Check(t, filepath.Join("testdata", tc.name+"."+f), out)
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
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
	for _, args := range [][]string{{"rounds", "--format", "csv", "-"}, {"rounds", "--per-rank", "--format", "csv", "-"}} {
		code, out, _ := viewsRun(t, "", args...)
		require.Equal(t, 0, code)
		assert.Equal(t, "round,pid,inv,host_us\n", out)
	}
}

// TestTableHelpFormats checks that each table command documents its
// --format schemas (the general help hygiene is TestHelpHygiene).
func TestTableHelpFormats(t *testing.T) {
	t.Parallel()
	for _, c := range []*cobra.Command{newTpotCmd(nil), newTreeCmd(nil), newRoundsCmd(nil)} {
		assert.Contains(t, c.Long, "Output formats (--format):", c.Name())
	}
}

// Fixtures of every log generation with HBG bind data.
var roundsHBGFixtures = []struct{ name, path string }{
	{"e1", "../../fixtures/hbg-e1.log"},
	{"e2", "../../fixtures/hbg-e2.log"},
	{"e3-spool", "../../fixtures/hbg-e3-spool.log"},
	{"pr1870", "../../fixtures/hbg-pr1870.log"},
}

// roundsE3Dropped is the warning the E3 fixture's [HOSTLOG_DROPS] record
// gives: a log warning, printed before any accounting warning.
const roundsE3Dropped = "warning: pid 71234 dropped 3 host-log record(s) before they reached the destination " +
	"(queue_full=3 claim_exhausted=0 output_failed=0 not_admitted=0); the timing below is computed from an incomplete log\n"

// TestRoundsHBGGolden runs `hbgtrace rounds` on the fixture of each log
// generation in every format, and per rank on the two-rank E1 fixture,
// and compares stdout with testdata/rounds_hbg-<fixture>[_per-rank].<format>.
func TestRoundsHBGGolden(t *testing.T) {
	t.Parallel()
	type run struct {
		name string
		args []string
	}
	var runs []run
	for _, fx := range roundsHBGFixtures {
		runs = append(runs, run{"rounds_hbg-" + fx.name, []string{"rounds", fx.path}})
	}
	runs = append(runs, run{"rounds_hbg-e1_per-rank", []string{"rounds", "--per-rank", roundsHBGFixtures[0].path}})
	for _, tc := range runs {
		for _, f := range viewsFormats {
			t.Run(tc.name+"."+f, func(t *testing.T) {
				code, out, errs := viewsRun(t, "", append(tc.args, "--format", f)...)
				require.Equal(t, 0, code, errs)
				if strings.Contains(tc.name, "e3") {
					assert.Equal(t, roundsE3Dropped, errs)
				} else {
					assert.Empty(t, errs, "every round of the fixture records every stage")
				}
				golden.Check(t, filepath.Join("testdata", tc.name+"."+f), out)
				switch f {
				case formatText, formatMarkdown:
					assert.Contains(t, out, "HBG bind accounting, all rounds (n=")
					assert.Contains(t, out, "Cold vs warm: ")
				case formatJSON:
					assert.Contains(t, out, `"hbg_accounting"`)
				case formatCSV:
					recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
					require.NoError(t, err)
					assert.Contains(t, recs[0], "hostorch_us")
					assert.Contains(t, recs[0], "cold")
					assert.Contains(t, recs[0], "host_orch.tasks", "the work of every generation")
				}
			})
		}
	}
}

// TestRoundsCountersGolden runs `hbgtrace rounds --counters` (text) on the
// fixture of each generation and the two-rank E1 fixture: the reference
// output, byte for byte as without the flag, then the counters block.
// E1 and PR-1870 write no counters: their block has work only, no
// counter column and no k-of-N table.
func TestRoundsCountersGolden(t *testing.T) {
	t.Parallel()
	fixtures := append(roundsHBGFixtures[:len(roundsHBGFixtures):len(roundsHBGFixtures)],
		struct{ name, path string }{"e1-two-ranks", "../../fixtures/hbg-e1-two-ranks-shared-t0x.log"})
	for _, fx := range fixtures {
		t.Run(fx.name, func(t *testing.T) {
			code, plain, _ := viewsRun(t, "", "rounds", fx.path)
			require.Equal(t, 0, code)
			code, out, errs := viewsRun(t, "", "rounds", "--counters", fx.path)
			require.Equal(t, 0, code, errs)
			assert.NotContains(t, errs, "evidence:", "the fixtures' values are all good")
			require.True(t, strings.HasPrefix(out, plain), "the reference output comes first, unchanged")
			golden.Check(t, filepath.Join("testdata", "rounds_hbg-"+fx.name+"_counters.text"), out)
			block := out[len(plain):]
			if fx.name != "e2" && fx.name != "e3-spool" {
				assert.NotContains(t, block, "minflt", "E1 and PR-1870 have no counters: no column, not 0")
				assert.NotContains(t, block, "Discrete events")
				assert.Contains(t, block, "Work per pass and segment")
			} else {
				assert.Contains(t, block, "Counters per pass and segment (minflt tminflt nivcsw nvcsw: count; cpu_ns rec_cpu_ns: ns CPU")
			}
			for _, f := range []string{formatJSON, formatCSV, formatMarkdown} {
				code, o, _ := viewsRun(t, "", "rounds", "--counters", "--format", f, fx.path)
				require.Equal(t, 0, code)
				_, want, _ := viewsRun(t, "", "rounds", "--format", f, fx.path)
				assert.Equal(t, want, o, "--counters changes the text format only")
			}
		})
	}
}

// TestRoundsHBGText pins what the accounting adds to the reference layout
// and what it leaves alone, on the fixture of each generation.
func TestRoundsHBGText(t *testing.T) {
	t.Parallel()
	for _, fx := range roundsHBGFixtures {
		t.Run(fx.name, func(t *testing.T) {
			_, out, _ := viewsRun(t, "", "rounds", fx.path)
			lines := strings.Split(out, "\n")
			header := lines[0]
			require.True(t, strings.HasPrefix(header, "  Round      Host (us)   Device (us)     Args (us)"), header)
			assert.True(t, strings.HasSuffix(header, "     Gate (us)  ControlPlane (us)"), header)
			assert.Equal(t, "  "+strings.Repeat("-", len(header)-2), lines[1])

			// Each HBG cell ends in the column its label ends in.
			var ends []int
			for _, l := range []string{"Args (us)", "HostOrch (us)", "ControlPlane (us)"} {
				i := strings.Index(header, l)
				require.Positive(t, i, l)
				ends = append(ends, i+len(l))
			}
			rows := 0
			for _, line := range lines[2:] {
				if strings.HasPrefix(line, "  Avg ") {
					break
				}
				rows++
				for _, end := range ends {
					require.GreaterOrEqual(t, len(line), end, line)
					assert.NotEqual(t, byte(' '), line[end-1], "a cell ends at %d: %q", end, line)
					if end < len(line) {
						assert.Equal(t, byte(' '), line[end], "a cell ends at %d: %q", end, line)
					}
				}
			}
			assert.Positive(t, rows)

			// The Avg line is the reference's: reference columns only.
			avg := lines[2+rows]
			assert.True(t, strings.HasPrefix(avg, "  Avg Host: "), avg)
			assert.NotContains(t, avg, "HostOrch")
			assert.Regexp(t, `^  Avg Host: [0-9.]+ us  \|  Avg Device: [0-9.]+ us \[\d+/\d+\]  \(\d+ rounds\)$`, avg)

			// Then a blank line, the three blocks and the verdict.
			assert.Equal(t, "", lines[3+rows])
			rest := strings.Join(lines[4+rows:], "\n")
			all := strings.Index(rest, "  HBG bind accounting, all rounds (n=")
			cold := strings.Index(rest, "  HBG bind accounting, cold: first pass of each pid (n=")
			warm := strings.Index(rest, "  HBG bind accounting, warm (n=")
			verdict := strings.Index(rest, "  Cold vs warm: ")
			assert.True(t, all == 0 && all < cold && cold < warm && warm < verdict, rest)
			assert.Equal(t, 3, strings.Count(rest, "<-- top"))
		})
	}
}

// roundsHBGLog is an E3-style log: per pid and inv a chip.run with a bind
// of args, host_orch (500+inv µs) and arena_h2d (200 µs); the rounds of
// pid listed in noArena lack arena_h2d.
func roundsHBGLog(pids []int, invs int, noArena map[[2]int]bool) string {
	var b strings.Builder
	for inv := 1; inv <= invs; inv++ {
		for _, pid := range pids {
			ts := int64(inv) * 10_000_000
			b.WriteString(viewsSpanLine(pid, inv, "abc", 0, "chip.run", ts, 5_000_000, ""))
			b.WriteString(viewsSpanLine(pid, inv, "abc", 1, "chip.run.bind", ts, 2_000_000, ""))
			b.WriteString(viewsSpanLine(pid, inv, "abc", 2, "chip.run.bind.args", ts, 100_000, ""))
			b.WriteString(viewsSpanLine(pid, inv, "abc", 2, "chip.run.bind.host_orch", ts+100_000, int64(500+inv)*1000, ""))
			if !noArena[[2]int{pid, inv}] {
				b.WriteString(viewsSpanLine(pid, inv, "abc", 2, "chip.run.bind.arena_h2d", ts+1_000_000, 200_000, ""))
			}
		}
	}
	return b.String()
}

func TestRoundsHBGLeftOut(t *testing.T) {
	t.Parallel()
	torn := "[STRACE] v=1 pid=7 tid=7 inv=1 hid=abc depth=0 name=chip.run\n"
	log := torn + roundsHBGLog([]int{7}, 4, map[[2]int]bool{{7, 3}: true})
	code, out, errs := viewsRun(t, log, "rounds", "-")
	require.Equal(t, 0, code)
	assert.Equal(t, "warning: 1 of 20 [STRACE] records are incomplete and are excluded from the timing below\n"+
		"warning: HBG accounting, all rounds: left out 1 of 4 rounds that lack H2dImage, H2dArena: rounds 2\n"+
		"warning: HBG accounting, warm: left out 1 of 3 rounds that lack H2dImage, H2dArena: rounds 2\n",
		errs, "the log's warnings first, then the accounting's")
	assert.Equal(t, `  Round      Host (us)     Args (us)  HostOrch (us)  H2dImage (us)  H2dArena (us)     Gate (us)  ControlPlane (us)
  ----------------------------------------------------------------------------------------------------------------
  0             5000.0         100.0          501.0          200.0          200.0         701.0              701.0
  1             5000.0         100.0          502.0          200.0          200.0         702.0              702.0
  2             5000.0         100.0          503.0              -              -         503.0              503.0
  3             5000.0         100.0          504.0          200.0          200.0         704.0              704.0
  Avg Host: 5000.0 us  (4 rounds)

  HBG bind accounting, all rounds (n=3 of 4):
    Args          100.0 us  ( 12.5%)
    HostOrch      502.3 us  ( 62.6%)  <-- top
    H2dImage      200.0 us  ( 24.9%)
    Gate(HostOrch+H2dImage)    702.3 us  (target <= 1000 us)
    ControlPlane               702.3 us
  HBG bind accounting, cold: first pass of each pid (n=1 of 1):
    Args          100.0 us  ( 12.5%)
    HostOrch      501.0 us  ( 62.5%)  <-- top
    H2dImage      200.0 us  ( 25.0%)
    Gate(HostOrch+H2dImage)    701.0 us  (target <= 1000 us)
    ControlPlane               701.0 us
  HBG bind accounting, warm (n=2 of 3):
    Args          100.0 us  ( 12.5%)
    HostOrch      503.0 us  ( 62.6%)  <-- top
    H2dImage      200.0 us  ( 24.9%)
    Gate(HostOrch+H2dImage)    703.0 us  (target <= 1000 us)
    ControlPlane               703.0 us
  Cold vs warm: same top stage (HostOrch)
`, out)

	// json: the same numbers, each with its unit and its round set.
	code, out, errs = viewsRun(t, log, "rounds", "--format", "json", "-")
	require.Equal(t, 0, code)
	assert.Contains(t, errs, "warning: HBG accounting, all rounds: left out 1 of 4")
	var doc struct {
		roundsDocJSON
		HBG struct {
			Columns []map[string]string `json:"columns"`
			Rows    []map[string]any    `json:"rows"`
			Blocks  []struct {
				Name       string   `json:"name"`
				N          int      `json:"n"`
				Of         int      `json:"of"`
				Rounds     []int    `json:"rounds"`
				RoundsUsed []int    `json:"rounds_used"`
				LeftOut    []int    `json:"left_out"`
				Lacking    []string `json:"lacking"`
				Stages     []struct {
					Stage    string   `json:"stage"`
					Mean     float64  `json:"mean"`
					Unit     string   `json:"unit"`
					N        int      `json:"n"`
					Of       int      `json:"of"`
					SharePct *float64 `json:"share_pct"`
				} `json:"stages"`
				Top *string `json:"top"`
			} `json:"blocks"`
			ColdVsWarm string   `json:"cold_vs_warm"`
			Warnings   []string `json:"warnings"`
		} `json:"hbg_accounting"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &doc))
	checkRoundsDoc(t, doc.roundsDocJSON)
	require.Len(t, doc.Columns, 1, "the reference columns stay Host alone")
	require.Len(t, doc.HBG.Rows, 4)
	for _, c := range doc.HBG.Columns {
		assert.Equal(t, "us", c["unit"])
		for _, row := range doc.HBG.Rows {
			assert.Contains(t, row, c["key"])
		}
	}
	assert.Nil(t, doc.HBG.Rows[2]["h2darena_us"], "not recorded is null")
	assert.Equal(t, 503.0, doc.HBG.Rows[2]["hostorch_us"])
	assert.Equal(t, true, doc.HBG.Rows[0]["cold"])
	require.Len(t, doc.HBG.Blocks, 3)
	all := doc.HBG.Blocks[0]
	assert.Equal(t, 3, all.N)
	assert.Equal(t, 4, all.Of)
	assert.Equal(t, []int{0, 1, 2, 3}, all.Rounds)
	assert.Equal(t, []int{0, 1, 3}, all.RoundsUsed)
	assert.Equal(t, []int{2}, all.LeftOut)
	assert.Equal(t, []string{"H2dImage", "H2dArena"}, all.Lacking)
	for _, blk := range doc.HBG.Blocks {
		assert.Len(t, blk.RoundsUsed, blk.N, blk.Name)
		assert.Len(t, blk.Rounds, blk.Of, blk.Name)
		for _, s := range blk.Stages {
			assert.Equal(t, "us", s.Unit, s.Stage)
			assert.Equal(t, blk.N, s.N, s.Stage)
			assert.Equal(t, blk.Of, s.Of, s.Stage)
		}
	}
	assert.InDelta(t, (701.0+702+704)/3, all.Stages[len(all.Stages)-1].Mean, 1e-9, "ControlPlane over rounds 0, 1, 3")
	assert.Len(t, doc.HBG.Warnings, 2)

	// csv: one row per round, the HBG columns after the reference ones,
	// an empty cell where the round did not record the stage.
	code, out, _ = viewsRun(t, log, "rounds", "--format", "csv", "-")
	require.Equal(t, 0, code)
	assert.Equal(t, "round,pid,inv,host_us,args_us,hostorch_us,h2dimage_us,h2darena_us,gate_us,controlplane_us,cold\n"+
		"0,7,1,5000,100,501,200,200,701,701,true\n"+
		"1,7,2,5000,100,502,200,200,702,702,false\n"+
		"2,7,3,5000,100,503,,,503,503,false\n"+
		"3,7,4,5000,100,504,200,200,704,704,false\n", out)

	// markdown: "-" where not recorded, a table per block.
	code, out, _ = viewsRun(t, log, "rounds", "--format", "markdown", "-")
	require.Equal(t, 0, code)
	assert.Contains(t, out, "| 2 | 7 | 3 | 5000.0 | 100.0 | 503.0 | - | - | 503.0 | 503.0 |\n")
	assert.Contains(t, out, "HBG bind accounting, all rounds (n=3 of 4)\n\n| Stage | Mean (us) | Share | Note |\n")
	assert.Contains(t, out, "| HostOrch | 502.3 | 62.6% | top |\n")
	assert.Contains(t, out, "| Gate(HostOrch+H2dImage) | 702.3 |  | target <= 1000 us |\n")
	assert.True(t, strings.HasSuffix(out, "\nCold vs warm: same top stage (HostOrch)\n"), out)
}

func TestRoundsHBGPerRank(t *testing.T) {
	t.Parallel()
	// Two ranks, rows interleaved by inv; pid 7 misses arena_h2d in its
	// inv 2, pid 9 records everything.
	log := roundsHBGLog([]int{7, 9}, 3, map[[2]int]bool{{7, 2}: true})

	code, out, errs := viewsRun(t, log, "rounds", "-")
	require.Equal(t, 0, code)
	assert.Equal(t, "warning: HBG accounting, all rounds: left out 1 of 6 rounds that lack H2dImage, H2dArena: rounds 2\n"+
		"warning: HBG accounting, warm: left out 1 of 4 rounds that lack H2dImage, H2dArena: rounds 2\n", errs,
		"row 2 is pid 7's inv 2: rows are interleaved by inv")
	assert.Contains(t, out, "  HBG bind accounting, cold: first pass of each pid (n=2 of 2):\n")

	code, out, errs = viewsRun(t, log, "rounds", "--per-rank", "-")
	require.Equal(t, 0, code)
	assert.Equal(t, "warning: HBG accounting, pid 7, all rounds: left out 1 of 3 rounds that lack H2dImage, H2dArena: rounds 1\n"+
		"warning: HBG accounting, pid 7, warm: left out 1 of 2 rounds that lack H2dImage, H2dArena: rounds 1\n", errs,
		"per rank, rounds are counted per rank")
	parts := strings.Split(out, "\npid 9:\n")
	require.Len(t, parts, 2, out)
	assert.True(t, strings.HasPrefix(parts[0], "pid 7:\n"), out)
	for _, p := range parts {
		assert.Contains(t, p, "  HBG bind accounting, cold: first pass of each pid (n=1 of 1):\n")
		assert.Contains(t, p, "  Cold vs warm: same top stage (HostOrch)\n")
	}
	assert.Contains(t, parts[0], "  HBG bind accounting, all rounds (n=2 of 3):\n")
	assert.Contains(t, parts[1], "  HBG bind accounting, all rounds (n=3 of 3):\n")

	code, out, _ = viewsRun(t, log, "rounds", "--per-rank", "--format", "json", "-")
	require.Equal(t, 0, code)
	var ranks struct {
		Ranks []struct {
			Pid *int64 `json:"pid"`
			HBG struct {
				Rows     []map[string]any `json:"rows"`
				Warnings []string         `json:"warnings"`
			} `json:"hbg_accounting"`
		} `json:"ranks"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &ranks))
	require.Len(t, ranks.Ranks, 2)
	assert.Len(t, ranks.Ranks[0].HBG.Warnings, 2)
	assert.Contains(t, ranks.Ranks[0].HBG.Warnings[0], "pid 7, all rounds")
	assert.Empty(t, ranks.Ranks[1].HBG.Warnings)
	for _, r := range ranks.Ranks {
		require.Len(t, r.HBG.Rows, 3)
		for i, row := range r.HBG.Rows {
			assert.EqualValues(t, *r.Pid, row["pid"])
			assert.Equal(t, i == 0, row["cold"])
		}
	}

	code, out, _ = viewsRun(t, log, "rounds", "--per-rank", "--format", "csv", "-")
	require.Equal(t, 0, code)
	recs, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	require.NoError(t, err)
	require.Len(t, recs, 7)
	assert.Equal(t, []string{"1", "7", "2", "5000", "100", "502", "", "", "502", "502", "false"}, recs[2])
	assert.Equal(t, []string{"0", "9", "1", "5000", "100", "501", "200", "200", "701", "701", "true"}, recs[4])

	code, out, _ = viewsRun(t, log, "rounds", "--per-rank", "--format", "markdown", "-")
	require.Equal(t, 0, code)
	assert.Equal(t, 2, strings.Count(out, "HBG bind accounting, warm (n="))
}

// TestRoundsHBGOnlyWithHostOrch pins that bind segments without host_orch
// (a TMR log writes args and prebuilt) leave the reference table alone.
func TestRoundsHBGOnlyWithHostOrch(t *testing.T) {
	t.Parallel()
	log := viewsSpanLine(7, 1, "abc", 0, "chip.run", 0, 1_000_000, "") +
		viewsSpanLine(7, 1, "abc", 2, "chip.run.bind.args", 0, 100_000, "") +
		viewsSpanLine(7, 1, "abc", 2, "chip.run.bind.prebuilt", 100_000, 100_000, "")
	for _, f := range viewsFormats {
		t.Run(f, func(t *testing.T) {
			code, out, errs := viewsRun(t, log, "rounds", "--format", f, "-")
			require.Equal(t, 0, code)
			assert.Empty(t, errs)
			assert.NotContains(t, out, "HBG")
			assert.NotContains(t, out, "hbg_accounting")
			assert.NotContains(t, out, "Args")
			assert.NotContains(t, out, "args_us")
		})
	}
}

// TestAccountingDocShowsFixtures checks that docs/accounting.md quotes the
// E1 and PR-1870 outputs; TestDocExamples checks that every quote is the
// command's real output.
func TestAccountingDocShowsFixtures(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../../docs/accounting.md")
	require.NoError(t, err)
	var shown []string
	for _, ex := range consoleExamples(string(b)) {
		shown = append(shown, strings.Join(ex.args, " "))
	}
	for _, want := range []string{"rounds fixtures/hbg-e1.log", "rounds fixtures/hbg-pr1870.log"} {
		assert.Contains(t, shown, want)
	}
}

// TestAccountingDocFixtureTable checks the table of docs/accounting.md §5
// against `hbgtrace rounds --format json` on each fixture it names: the
// rounds, the cold rounds, the HBG columns, the warm top and the verdict.
func TestAccountingDocFixtureTable(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../../docs/accounting.md")
	require.NoError(t, err)
	prevCols := ""
	n := 0
	for _, line := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(line, "| `hbg-") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		require.Len(t, cells, 6, line)
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		file := strings.Trim(cells[0], "`")
		cols := cells[3]
		if cols == "as E1" {
			cols = prevCols
		}
		prevCols = cols
		n++
		t.Run(file, func(t *testing.T) {
			code, out, _ := viewsRun(t, "", "rounds", "--format", "json", filepath.Join("../../fixtures", file))
			require.Equal(t, 0, code)
			var doc struct {
				HBG struct {
					Columns []struct{ Name string } `json:"columns"`
					Blocks  []struct {
						N, Of int
						Top   *string
					} `json:"blocks"`
					ColdVsWarm string `json:"cold_vs_warm"`
				} `json:"hbg_accounting"`
			}
			require.NoError(t, json.Unmarshal([]byte(out), &doc))
			require.Len(t, doc.HBG.Blocks, 3)
			var names []string
			for _, c := range doc.HBG.Columns {
				names = append(names, c.Name)
			}
			assert.Equal(t, cols, strings.Join(names, ", "), "HBG columns")
			all, cold, warm := doc.HBG.Blocks[0], doc.HBG.Blocks[1], doc.HBG.Blocks[2]
			assert.Equal(t, fmt.Sprintf("%d (%d)", all.Of, cold.Of), cells[2], "rounds (cold)")
			require.NotNil(t, warm.Top)
			assert.Equal(t, cells[4], *warm.Top, "warm top")
			assert.Contains(t, doc.HBG.ColdVsWarm, cells[5], "verdict")
			assert.Equal(t, all.Of, all.N, "no round left out")
		})
	}
	assert.Equal(t, 4, n, "one row per generation")
}
