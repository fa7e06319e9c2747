package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hbgkit/hbgkit/abtest/metric"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSplitLogArgs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name             string
		args             []string
		base, head, rest []string
		err              string
	}{
		{"globs", []string{"--base", "a1", "a2", "--head", "b1", "b2", "b3"}, []string{"a1", "a2"}, []string{"b1", "b2", "b3"}, nil, ""},
		{"flags between", []string{"--format", "markdown", "--base", "a", "--cold", "1", "--head", "b", "--redact"},
			[]string{"a"}, []string{"b"}, []string{"--format", "markdown", "--cold", "1", "--redact"}, ""},
		{"bool flag ends a list", []string{"--base", "a", "--keep-first", "--head", "b"}, []string{"a"}, []string{"b"}, []string{"--keep-first"}, ""},
		{"repeated", []string{"--base", "a", "--head", "b", "--base", "c"}, []string{"a", "c"}, []string{"b"}, nil, ""},
		{"stdin", []string{"--base", "-", "--head", "b"}, []string{"-"}, []string{"b"}, nil, ""},
		{"equals form is the parser's", []string{"--base=a", "--head", "b"}, nil, []string{"b"}, []string{"--base=a"}, ""},
		{"double dash", []string{"--head", "b", "--base", "--", "-odd.log"}, nil, nil, nil, "--base needs at least one LOG"},
		{"double dash ok", []string{"--head", "b", "--base", "a", "--", "-odd.log"}, []string{"a", "-odd.log"}, []string{"b"}, nil, ""},
		{"empty base", []string{"--base", "--head", "b"}, nil, nil, nil, "--base needs at least one LOG"},
		{"trailing head", []string{"--base", "a", "--head"}, nil, nil, nil, "--head needs at least one LOG"},
		{"stray", []string{"x.log", "--base", "a"}, []string{"a"}, nil, []string{"x.log"}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			base, head, rest, err := splitLogArgs(tc.args)
			if tc.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.base, base)
			assert.Equal(t, tc.head, head)
			assert.Equal(t, tc.rest, rest)
		})
	}
}

// FuzzSplitLogArgs: every argument but the --base, --head and -- markers
// lands in exactly one of base, head and rest, in its order.
func FuzzSplitLogArgs(f *testing.F) {
	f.Add("--base a b --head c --format json")
	f.Add("--head - --base -- -x")
	f.Add("--cold 1 --base a --keep-first x --head")
	f.Fuzz(func(t *testing.T, line string) {
		args := strings.Fields(line)
		base, head, rest, err := splitLogArgs(args)
		if err != nil {
			return
		}
		var kept []string
		dd := false
		for _, a := range args {
			if dd {
				kept = append(kept, a)
				continue
			}
			switch a {
			case "--base", "--head":
				continue
			case "--":
				dd = true
				continue
			}
			kept = append(kept, a)
		}
		got := append(append(slices.Clone(base), head...), rest...)
		slices.Sort(got)
		slices.Sort(kept)
		if !slices.Equal(got, kept) {
			t.Fatalf("args %q: base %q head %q rest %q", args, base, head, rest)
		}
	})
}

func compareArgs(extra ...string) []string {
	return append(append([]string{"compare"}, compareSets["compare-4v4"]...), extra...)
}

// TestCompareFlags captures the options compare parses.
func TestCompareFlags(t *testing.T) {
	t.Parallel()
	var got *CompareOptions
	cmd := NewCmdCompare(nil, func(o *CompareOptions) error { got = o; return nil })
	cmd.SetArgs([]string{"--cold", "1", "--base", "a.log", "b.log", "--block-stat", "min", "--head", "c.log", "--margin", "2%", "--format", "benchfmt", "--redact", "--head=d.log"})
	require.NoError(t, cmd.Execute())
	assert.Equal(t, []string{"a.log", "b.log"}, got.Base)
	assert.Equal(t, []string{"c.log", "d.log"}, got.Head)
	assert.Equal(t, 1, got.Config.Cold)
	assert.Equal(t, "min", string(got.Config.BlockStat))
	assert.InDelta(t, 0.02, got.Config.Margin, 1e-12)
	assert.Equal(t, "benchfmt", got.Format)
	assert.True(t, got.Redact)

	cmd = NewCmdCompare(nil, func(o *CompareOptions) error { got = o; return nil })
	cmd.SetArgs([]string{"--keep-first", "--base", "a", "--head", "b"})
	require.NoError(t, cmd.Execute())
	assert.Equal(t, 0, got.Config.Cold)
}

func TestCompareUsageErrors(t *testing.T) {
	t.Parallel()
	empty := filepath.Join(t.TempDir(), "empty.log")
	require.NoError(t, os.WriteFile(empty, []byte("no passes\n"), 0o644))
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no head", []string{"compare", "--base", "a.log"}, 2, "one after --head"},
		{"empty base", []string{"compare", "--base", "--head", "b.log"}, 2, "--base needs at least one LOG"},
		{"stray", []string{"compare", "x.log", "--base", "a", "--head", "b"}, 2, `unexpected argument "x.log"`},
		{"format", compareArgs("--format", "xml"), 2, `--format "xml"`},
		{"block-stat", compareArgs("--block-stat", "max"), 2, `--block-stat "max"`},
		{"cold and keep-first", compareArgs("--cold", "1", "--keep-first"), 2, "not both"},
		{"unknown flag", compareArgs("--rounds", "3"), 2, "unknown flag"},
		{"metric", compareArgs("--metric", "latency"), 2, `--metric "latency"`},
		{"no passes", []string{"compare", "--base", empty, "--head", empty}, 1, "empty.log has no passes"},
		{"missing log", []string{"compare", "--base", "nope.log", "--head", "nope.log"}, 1, "nope.log"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errText := runCLI(tc.args...)
			assert.Equal(t, tc.code, code, errText)
			assert.Contains(t, errText, tc.want)
		})
	}
}

// TestCompareErrorNamesTheFileOnce: a log that cannot be read is named
// once in the error, after compare's own prefix; a glob the shell did not
// expand says so.
func TestCompareErrorNamesTheFileOnce(t *testing.T) {
	t.Parallel()
	missing := filepath.Join(t.TempDir(), "main-*.log")
	code, _, errText := runCLI("compare", "--base", missing, "--head", "../../fixtures/hbg-e1.log")
	assert.Equal(t, 1, code)
	assert.Equal(t, 1, strings.Count(errText, "reading "+missing), errText)
	assert.True(t, strings.HasPrefix(errText, "hbgbench: compare: reading "+missing+": open "), errText)
	assert.Contains(t, errText, "no file matches the pattern")
}

func TestCompareHelp(t *testing.T) {
	t.Parallel()
	code, out, errText := runCLI("compare", "--help")
	require.Equal(t, 0, code, errText)
	assert.Contains(t, out, "--base LOG... --head LOG...")
	assert.Contains(t, out, "Wilcoxon rank-sum")
	assert.Contains(t, out, "--block-stat")
}

// TestCompareFindsTheDelay: 4 logs of delay_us=3000 against 4 of none
// (retained mirror, ControlPlane about 1.7 ms): slower, with the rank-sum
// p the exact minimum for 4 against 4 (2/70), and the report says it is
// unpaired and weaker than a campaign.
func TestCompareFindsTheDelay(t *testing.T) {
	t.Parallel()
	code, out, errText := runCLI(compareArgs()...)
	require.Equal(t, 0, code, errText)
	assert.Regexp(t, `^SLOWER: ControlPlane: head takes \d+\.\d% more time than base .*4 base logs, 4 head logs, unpaired, rank-sum p=0\.029\)`, out)
	assert.Contains(t, out, "weaker than an interleaved campaign")
	assert.Contains(t, out, "Wilcoxon rank-sum")
	assert.Contains(t, out, "drift and machine state between the captures are not cancelled")
}

// TestCompareWarnsFewLogs: 3 logs per arm cannot reach p < 0.05.
func TestCompareWarnsFewLogs(t *testing.T) {
	t.Parallel()
	set := compareSets["compare-4v4"]
	args := []string{"compare", "--base", set[1], set[2], set[3], "--head", set[6], set[7], set[8]}
	code, out, errText := runCLI(args...)
	require.Equal(t, 0, code, errText)
	assert.Contains(t, errText, "only 3 base and 3 head logs")
	assert.Contains(t, out, "rank-sum p=0.100")
}

// TestCompareTwoLogsPerArmPrintsNoInterval: 2 logs per arm give no
// interval and no estimate of the logs needed (once "about 114272 more
// logs per arm"); the report says why, and the JSON has nulls and the
// reasons.
func TestCompareTwoLogsPerArmPrintsNoInterval(t *testing.T) {
	t.Parallel()
	set := compareSets["compare-4v4"]
	args := []string{"compare", "--base", set[1], set[2], "--head", set[6], set[7]}
	code, out, errText := runCLI(args...)
	require.Equal(t, 0, code, errText)
	head, _, _ := strings.Cut(out, "\n")
	assert.Contains(t, head, "too few logs for an interval (2 on an arm; needs ≥ 3 per arm); more logs per arm would settle it; how many: no estimate from fewer than 4 logs per arm")
	assert.NotRegexp(t, `about \d+ more logs`, out)
	assert.NotContains(t, out, "resolving the ±1.0% margin would take")
	assert.Contains(t, errText, "with fewer than 3 no interval is given")

	code, js, errText := runCLI(append(args, "--format", "json")...)
	require.Equal(t, 0, code, errText)
	var a map[string]any
	require.NoError(t, json.Unmarshal([]byte(js), &a))
	row := a["metrics"].([]any)[0].(map[string]any)
	assert.Nil(t, row["ci_lo"])
	assert.Nil(t, row["mde"])
	assert.NotContains(t, row, "extra_rounds")
	assert.Equal(t, "too few logs for an interval (2 on an arm; needs ≥ 3 per arm)", row["no_interval"])
	assert.Equal(t, "no estimate from fewer than 4 logs per arm", row["no_estimate"])
	assert.Equal(t, float64(0), a["noise"].(map[string]any)["rounds_for_margin"])
}

// exampleLines returns the commands of a help Example: continuation lines
// joined, the part before a pipe or &&, split into fields with shell globs
// expanded in dir.
func exampleLines(t *testing.T, example, dir string) [][]string {
	t.Helper()
	var out [][]string
	joined := strings.ReplaceAll(example, "\\\n", " ")
	for _, line := range strings.Split(joined, "\n") {
		line, _, _ = strings.Cut(line, "|")
		line, _, _ = strings.Cut(line, "&&")
		line, _, _ = strings.Cut(line, ">")
		line, _, _ = strings.Cut(line, " #")
		var args []string
		for _, f := range strings.Fields(line) {
			if strings.ContainsAny(f, "*?[") {
				m, err := filepath.Glob(filepath.Join(dir, f))
				for i := range m {
					m[i], _ = filepath.Rel(dir, m[i])
				}
				require.NoError(t, err)
				require.NotEmpty(t, m, "glob %s", f)
				args = append(args, m...)
				continue
			}
			args = append(args, f)
		}
		if len(args) > 0 && args[0] == "hbgbench" {
			out = append(out, args[1:])
		}
	}
	return out
}

// TestCompareAndReportExamplesRun runs every example of the compare and
// report help, on copies of fixture logs and of the campaign journal
// under the names the examples use.
func TestCompareAndReportExamplesRun(t *testing.T) {
	src, err := os.ReadFile(fixtureLog(t, "hbg-e1.log"))
	require.NoError(t, err)
	other, err := os.ReadFile(fixtureLog(t, "hbg-e1-two-ranks-shared-t0x.log"))
	require.NoError(t, err)
	journal, err := os.ReadFile(campaignJournal)
	require.NoError(t, err)
	dir := t.TempDir()
	t.Chdir(dir)
	for i, name := range []string{"main-1.log", "main-2.log", "pr-1.log", "pr-2.log", "a1.log", "a2.log", "a3.log", "a4.log",
		"b1.log", "b2.log", "b3.log", "b4.log", "old.log", "new.log"} {
		data := src
		if i%2 == 1 {
			data = other
		}
		require.NoError(t, os.WriteFile(name, data, 0o644))
	}
	// The logs of the --paired examples, named by arm and round, and
	// their manifest.
	require.NoError(t, os.Mkdir("captured", 0o755))
	var manifest strings.Builder
	for i, name := range []string{"base-1.log", "head-1.log", "head-2.log", "base-2.log"} {
		data := src
		if i%2 == 1 {
			data = other
		}
		require.NoError(t, os.WriteFile(filepath.Join("captured", name), data, 0o644))
		fmt.Fprintf(&manifest, "%c %s %s\n", name[5], name[:4], name)
	}
	require.NoError(t, os.WriteFile("captured/manifest.txt", []byte(manifest.String()), 0o644))
	require.NoError(t, os.WriteFile("c.jsonl", journal, 0o644))
	require.NoError(t, os.Mkdir(".hbgbench", 0o755))
	require.NoError(t, os.WriteFile(".hbgbench/hbgbench-20261202T010000Z.jsonl", journal, 0o644))
	// The shards of the merge examples: the campaign as shards 0 and 1
	// of campaign nightly.
	require.NoError(t, os.MkdirAll(".hbgbench/nightly", 0o755))
	for i, name := range []string{"shard-0of2-a.jsonl", "shard-1of2-b.jsonl"} {
		shard := asShard(t, journal, "nightly", i, 2)
		require.NoError(t, os.WriteFile(name, shard, 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(".hbgbench/nightly", name), shard, 0o644))
	}
	var cmds [][]string
	cmds = append(cmds, exampleLines(t, NewCmdCompare(nil, nil).Example, dir)...)
	cmds = append(cmds, exampleLines(t, NewCmdReport(nil).Example, dir)...)
	require.Len(t, cmds, 11)
	for _, args := range cmds {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			code, out, errText := runCLI(args...)
			require.Equal(t, 0, code, errText)
			assert.NotEmpty(t, out)
		})
	}
}

// TestComparePerRank: compare --per-rank analyses each rank, a headline
// line each, their p Holm-adjusted over the ranks. The logs of an arm are
// copies, so the rank-sum p is the tied normal approximation's: 0.013 with
// 4 logs per arm, 0.026 adjusted, and rank 1's faster head is called.
func TestComparePerRank(t *testing.T) {
	t.Parallel()
	base, fast := fixtureLog(t, "hbg-e1.log"), rank1FasterLog(t)
	args := func(n int) []string {
		a := []string{"compare", "--per-rank", "--base"}
		for range n {
			a = append(a, base)
		}
		a = append(a, "--head")
		for range n {
			a = append(a, fast)
		}
		return a
	}
	code, out, errText := runCLI(args(4)...)
	require.Equal(t, 0, code, errText)
	assert.True(t, strings.HasPrefix(out, "NO CHANGE: ControlPlane@rank0"), out)
	assert.Contains(t, out, "\nFASTER: ControlPlane@rank1: head takes 20.0% less time")
	assert.Contains(t, out, "rank-sum p=0.013, Holm-adjusted over the ranks 0.026)")
	// Without --per-rank the ranks are pooled: one headline.
	code, out, errText = runCLI(append([]string{"compare"}, args(4)[2:]...)...)
	require.Equal(t, 0, code, errText)
	assert.NotContains(t, out, "@rank")
}

// TestCompareRefusesAGzipBomb: a small .gz that expands to more spans
// than a block log may hold (metric.MaxBlockLogSpans, lowered here from
// its 4 million) ends compare with exit 1 and an error naming the file,
// the line past the bound and the bound, before the spans past it are
// held: a 6.9 MB bomb of 26 million spans made it die of Go's "out of
// memory" (exit 2). Not parallel: it lowers a package bound.
func TestCompareRefusesAGzipBomb(t *testing.T) {
	defer func(n int) { metric.MaxBlockLogSpans = n }(metric.MaxBlockLogSpans)
	metric.MaxBlockLogSpans = 100
	var log bytes.Buffer
	log.WriteString("[STRACE] v=1 pid=7 tid=7 inv=1 hid=abc depth=0 name=chip.run ts=1 dur=100000\n")
	for range 1000 {
		log.WriteString("[STRACE] v=1 pid=7 tid=7 inv=1 hid=abc depth=1 name=chip.run.step ts=1000 dur=500\n")
	}
	bomb := filepath.Join(t.TempDir(), "bomb.log.gz")
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	_, err := zw.Write(log.Bytes())
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	require.NoError(t, os.WriteFile(bomb, gz.Bytes(), 0o644))

	code, out, errText := runCLI("compare", "--base", bomb, "--head", "../../fixtures/hbg-e1.log")
	assert.Equal(t, 1, code)
	assert.Empty(t, out)
	assert.Equal(t, "hbgbench: compare: reading "+bomb+": line 101: more than 100 spans and phase lines to hold in memory\n", errText)

	// At the bound the log is read.
	metric.MaxBlockLogSpans = 1001
	code, _, errText = runCLI("compare", "--base", bomb, "--head", "../../fixtures/hbg-e1.log")
	assert.Equal(t, 0, code, errText)
}

// TestCompareRefusesManyPasses: a log of more passes than a block log
// may hold (metric.MaxBlockLogPasses, lowered here from its 250,000) —
// invocations of one span, or bind passes of one line — ends compare with
// exit 1 and an error naming the file, the line of the pass past the bound
// and the bound, before the passes are made: 1,000,000 one-line passes,
// inside MaxBlockLogSpans, took it 3 GB and 35 s. Not parallel: it lowers
// a package bound.
func TestCompareRefusesManyPasses(t *testing.T) {
	defer func(n int) { metric.MaxBlockLogPasses = n }(metric.MaxBlockLogPasses)
	metric.MaxBlockLogPasses = 20
	var invocations, passes strings.Builder
	for i := 1; i <= 30; i++ {
		fmt.Fprintf(&invocations, "[STRACE] v=1 pid=7 tid=7 inv=%d hid=abc depth=0 name=chip.run ts=%d dur=500\n", i, 1000*i)
		fmt.Fprintf(&passes, "[mono_ns=1][T0x7f3cb1408c80][TIMING] host_phase_trace_end: [host_phase_trace.cpp:393] bind phase=args start_ns=%d dur_ns=413 bytes=8\n", 1000*i)
	}
	dir := t.TempDir()
	for name, text := range map[string]string{"invocations.log": invocations.String(), "passes.log": passes.String()} {
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
		code, out, errText := runCLI("compare", "--base", path, "--head", "../../fixtures/hbg-e1.log")
		assert.Equal(t, 1, code, name)
		assert.Empty(t, out, name)
		assert.Equal(t, "hbgbench: compare: reading "+path+": line 21: more than 20 passes (invocations and bind passes) to hold in memory\n", errText)

		metric.MaxBlockLogPasses = 30 // at the bound the log is read
		code, _, errText = runCLI("compare", "--base", path, "--head", "../../fixtures/hbg-e1.log")
		assert.NotContains(t, errText, "to hold in memory", name)
		assert.NotEqual(t, 2, code, name)
		metric.MaxBlockLogPasses = 20
	}
}
