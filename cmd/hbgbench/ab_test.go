package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hbgkit/hbgkit/abtest/analysis"
	"github.com/hbgkit/hbgkit/abtest/campaign"
	"github.com/hbgkit/hbgkit/abtest/journal"
	"github.com/hbgkit/hbgkit/abtest/metric"
	"github.com/hbgkit/hbgkit/internal/ptytest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fixtureLog is an absolute path to a fixture log, for command arms.
func fixtureLog(t *testing.T, name string) string {
	t.Helper()
	p, err := filepath.Abs(filepath.Join("..", "..", "fixtures", name))
	require.NoError(t, err)
	return p
}

// catArm is a command arm that prints a fixture log: a real process whose
// log has real passes, fast.
func catArm(t *testing.T) string { return "cat " + fixtureLog(t, "hbg-e1.log") }

// readJSONL checks that every line of a journal is one JSON object and
// returns their "type" fields.
func readJSONL(t *testing.T, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	var out []map[string]any
	s := bufio.NewScanner(f)
	s.Buffer(nil, 64<<20)
	for s.Scan() {
		var m map[string]any
		require.NoError(t, json.Unmarshal(s.Bytes(), &m), "journal line %d is not JSON", len(out)+1)
		out = append(out, m)
	}
	require.NoError(t, s.Err())
	return out
}

// roundsOK returns, per round, how many "ok" round lines the journal has.
func roundsOK(t *testing.T, path string) map[int]int {
	got := map[int]int{}
	for _, m := range readJSONL(t, path) {
		if m["type"] == "round" && m["status"] == "ok" {
			got[int(m["round"].(float64))]++
		}
	}
	return got
}

// TestAbDefaultPairEndToEnd runs the default campaign small: per_bind
// (base) against retained (head) on the embedded model.
func TestAbDefaultPairEndToEnd(t *testing.T) {
	t.Parallel()
	j := filepath.Join(t.TempDir(), "c.jsonl")
	code, out, errText := runCLI("ab", "--rounds", "4", "--block", "4", "--journal", j, "--seed", "11")
	require.Equal(t, 0, code, errText)
	assert.Contains(t, out, "ControlPlane *")
	assert.Contains(t, out, "HBG bind accounting (per pass, µs)")
	assert.Contains(t, out, "only 4 rounds")
	assert.Contains(t, errText, "embedded:workload=dsv4-pair,mirror=per_bind")
	// The default arms write E2: the report has the kernel counters and
	// the thread CPU time, each row with its unit. The pass total of the
	// bind thread's CPU is missing, not a sum without arena_h2d's: that
	// line's counters from tminflt on are cut by the 95-character buffer.
	assert.Contains(t, errText, "epoch=e2")
	for _, want := range []string{"kernel counters (per pass, counts)", "minor faults (minflt)", "thread CPU time (per pass, µs of CPU)",
		"HostOrch CPU", "orchestrator operations", "work done", "other attributes of bind and host-orch lines"} {
		assert.Contains(t, out, want)
	}
	assert.NotContains(t, out, "bind thread CPU (cpu_ns)")
	assert.Regexp(t, `pass totals known only for [^\n]*cpu_ns on 0 of \d+ passes`, out)
	assert.Regexp(t, `minor faults \(minflt\) +count +base`, out)

	assert.Equal(t, map[int]int{1: 1, 2: 1, 3: 1, 4: 1}, roundsOK(t, j))
	lines := readJSONL(t, j)
	assert.Equal(t, "header", lines[0]["type"])
	blocks := 0
	for _, m := range lines {
		if m["type"] == "block" {
			blocks++
		}
	}
	assert.Equal(t, 2+8, blocks, "one warm-up per arm and two blocks per round")

	jr, err := journal.ReadJournal(j)
	require.NoError(t, err)
	a := analysis.Analyze(jr)
	p := a.PrimaryResult()
	require.NotNil(t, p)
	require.Equal(t, "ControlPlane", p.Name)
	// The retained mirror saves the per-bind 82 MB allocation and its
	// faults. Its time is logged, not asserted: 4 rounds of 2 warm passes
	// gave the wrong sign twice at load 18. The faults are asserted: they
	// do not depend on the load (docs/ab.md "Noise of wall time, CPU time
	// and faults, measured").
	var faults *analysis.MetricResult
	for i := range a.Metrics {
		if a.Metrics[i].Name == "minflt" {
			faults = &a.Metrics[i]
		}
	}
	require.NotNil(t, faults, "a minflt row")
	assert.Less(t, float64(faults.Delta), -0.9, "head (retained) should fault on under a tenth of base's (per_bind) pages")
	assert.Equal(t, 8, p.Arms[journal.Base].N, "4 rounds × 2 warm passes")
	t.Logf("per_bind vs retained, 4 rounds × 4: Δ %.1f%%, CI [%.1f%%, %.1f%%], verdict %s",
		100*float64(p.Delta), 100*float64(p.CILo), 100*float64(p.CIHi), p.Verdict)

	// Resuming the finished campaign re-analyses it: deterministic, in
	// every format.
	for _, format := range []string{"text", "markdown", "json", "csv"} {
		var first string
		for i := range 2 {
			code, out, errText := runCLI("ab", "--resume", "--journal", j, "--format", format)
			require.Equal(t, 0, code, errText)
			if i == 0 {
				first = out
			} else {
				assert.Equal(t, first, out, format)
			}
		}
		if format == "json" {
			var doc map[string]any
			require.NoError(t, json.Unmarshal([]byte(first), &doc))
			assert.Equal(t, "ControlPlane", doc["primary"])
		}
	}
}

func TestAbUsageErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"rounds 0", []string{"--rounds", "0"}, "--rounds 0: want at least 1 round"},
		{"rounds 1", []string{"--rounds", "1"}, "--rounds 1: a campaign of fewer than 3 rounds can reach no verdict"},
		{"rounds 2", []string{"--rounds", "2"}, "--rounds 2: a campaign of fewer than 3 rounds can reach no verdict"},
		{"block 1", []string{"--block", "1", "--cold", "1"}, "--block 1: its only pass is the cold one"},
		{"block 2", []string{"--block", "2"}, "--block 2 with --cold 2"},
		{"cold and keep-first", []string{"--cold", "1", "--keep-first"}, "not both"},
		{"unknown metric", []string{"--metric", "latency"}, `--metric "latency": unknown metric; known: ControlPlane`},
		{"a metric E1 does not write", []string{"--base", "embedded:epoch=e1", "--head", "embedded:epoch=e1,mirror=retained", "--metric", "minflt"},
			"--metric minflt: no warm pass of embedded:workload=dsv4-pair,mirror=per_bind,"},
		{"metrics that exist are named", []string{"--base", "embedded:epoch=e1", "--head", "embedded:epoch=e1", "--metric", "cpu.ControlPlane"},
			"records it (a probe block of 4 passes); the metrics it records: ControlPlane, Args,"},
		{"format", []string{"--format", "xml"}, `--format "xml": want one of text, markdown, json, csv, benchfmt`},
		{"margin", []string{"--margin", "abc"}, "--margin"},
		{"one arm", []string{"--base", "embedded:"}, "give both arms"},
		{"git ref without --run", []string{"--base", "main", "--head", "pr"}, "is a git ref: give --run"},
		{"both arm kinds", []string{"--base", "embedded:", "--base-cmd", "x", "--head", "embedded:"}, "not both"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assertAbRefused(t, tc.args, tc.want)
		})
	}
}

func TestAbOptionsFromFlags(t *testing.T) {
	t.Parallel()
	var got *AbOptions
	cmd := NewCmdAb(nil, func(o *AbOptions) error { got = o; return nil })
	cmd.SetArgs([]string{"--trials", "40", "--block", "4", "--order", "abab", "--trim", "10",
		"--margin", "2%", "--max-fail", "0.2", "--timeout", "90s", "--metric", "Gate", "--seed", "9",
		"--keep-first", "--per-rank", "--block-stat", "mean"})
	require.NoError(t, cmd.Execute())
	c := got.Config
	assert.Equal(t, 10, c.Rounds, "--trials 40 with blocks of 4 is 10 rounds")
	assert.Equal(t, 4, c.Block)
	assert.Equal(t, journal.OrderABAB, c.Order)
	assert.Equal(t, 10, c.Trim)
	assert.InDelta(t, 0.02, c.Margin, 1e-12)
	assert.InDelta(t, 0.2, c.MaxFail, 1e-12)
	assert.Equal(t, 90*time.Second, c.Timeout)
	assert.Equal(t, "Gate", c.Metric)
	assert.Equal(t, 0, c.Cold, "--keep-first drops no pass")
	assert.True(t, c.PerRank)
	assert.Equal(t, journal.BlockMean, c.BlockStat)
	assert.Equal(t, uint64(9), got.Seed)
	assert.True(t, got.SeedSet)

	cmd = NewCmdAb(nil, func(o *AbOptions) error { got = o; return nil })
	cmd.SetArgs([]string{}) // not nil: cobra then parses os.Args, the test binary's flags (-update)
	require.NoError(t, cmd.Execute())
	assert.Equal(t, journal.DefaultConfig(), got.Config)
	require.NoError(t, got.ArmSpecs.Resolve(&got.Options))
	assert.Contains(t, got.Arms[0].Spec, "mirror=per_bind")
	assert.Contains(t, got.Arms[1].Spec, "mirror=retained")
}

// abCmd runs a campaign of two command arms, fast (no warm-up).
func abCmd(t *testing.T, journal, base, head string, extra ...string) (int, string, string) {
	args := append([]string{"ab", "--journal", journal, "--base-cmd", base, "--head-cmd", head,
		"--rounds", "3", "--block", "3", "--warmup", "0", "--seed", "3"}, extra...)
	return runCLI(args...)
}

func TestAbFaults(t *testing.T) {
	t.Parallel()
	cat := catArm(t)
	tests := []struct {
		name  string
		head  string
		extra []string
		want  []string
	}{
		{"failing arm", "echo boom >&2; exit 3", []string{"--retries", "1"},
			[]string{"block exited with status 3", "failed after 2 tries", "campaign aborted"}},
		{"hanging arm", "sleep 60", []string{"--timeout", "500ms", "--retries", "0"},
			[]string{"timed out after", "campaign aborted"}},
		{"arm without passes", "echo hello", []string{"--retries", "0"},
			[]string{"has no passes", "campaign aborted"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			j := filepath.Join(t.TempDir(), "j.jsonl")
			start := time.Now()
			code, _, errText := abCmd(t, j, cat, tc.head, tc.extra...)
			assert.Equal(t, 1, code, errText)
			for _, w := range tc.want {
				assert.Contains(t, errText, w)
			}
			assert.Less(t, time.Since(start), 30*time.Second, "a hanging arm must be killed by --timeout")
			// The journal says what failed.
			lines := readJSONL(t, j)
			require.NotEmpty(t, lines)
			assert.Equal(t, "header", lines[0]["type"])
			failed := 0
			for _, m := range lines {
				if m["type"] == "block" && m["error"] != nil {
					failed++
				}
			}
			assert.Positive(t, failed)
		})
	}
}

func TestAbCommandArmsAA(t *testing.T) {
	t.Parallel()
	j := filepath.Join(t.TempDir(), "j.jsonl")
	cat := catArm(t)
	code, out, errText := abCmd(t, j, cat, cat)
	require.Equal(t, 0, code, errText)
	// The same log on both sides: every log-ratio is 0.
	assert.Contains(t, out, "NO CHANGE: ControlPlane")
	assert.Equal(t, map[int]int{1: 1, 2: 1, 3: 1}, roundsOK(t, j))
	// The kept logs hold the block's own [stamp] line.
	b := readGz(t, filepath.Join(campaign.BlockDir(j), "r001-base-a1-t1.log.gz"))
	assert.True(t, strings.HasPrefix(b, "[stamp] cat "))
}

func TestAbStampMismatch(t *testing.T) {
	t.Parallel()
	j := filepath.Join(t.TempDir(), "j.jsonl")
	code, _, errText := runCLI("ab", "--journal", j, "--base", "embedded:", "--head", "embedded:device=model:call_ns=1",
		"--rounds", "3", "--block", "3", "--warmup", "0", "--order", "abab")
	assert.Equal(t, 1, code, errText)
	assert.Contains(t, errText, "stamp mismatch")
	assert.Contains(t, errText, "  - call_ns=5000")
	assert.Contains(t, errText, "  + call_ns=1")
	assert.NotContains(t, errText, "before it was resumed")

	// Resumed, the same mismatch says it stopped the campaign before and
	// what to change: a resume on this host only repeats it.
	code, _, errText = runCLI("ab", "--journal", j, "--resume")
	assert.Equal(t, 1, code, errText)
	assert.Contains(t, errText, "  + call_ns=1")
	assert.Regexp(t, `the same error stopped this campaign before it was resumed \(its log \S+\): --resume repeats it until what it names is changed`, errText)
}

func TestAbLockedJournal(t *testing.T) {
	t.Parallel()
	j := filepath.Join(t.TempDir(), "j.jsonl")
	f, err := os.OpenFile(journal.LockPath(j), os.O_RDWR|os.O_CREATE, 0o644)
	require.NoError(t, err)
	defer f.Close()
	require.NoError(t, syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB))
	// The holder named is a process that runs (this one), so the lock is
	// refused after the 0.5 s a lock of this very process is given to
	// settle (a child forked before a release), not the 3 s an exited
	// holder's is.
	_, err = f.WriteString(strconv.Itoa(os.Getpid()) + "\n")
	require.NoError(t, err)
	cat := catArm(t)
	code, _, errText := abCmd(t, j, cat, cat)
	assert.Equal(t, 1, code)
	assert.Contains(t, errText, "journal is in use by another hbgbench ("+journal.LockPath(j)+": pid "+strconv.Itoa(os.Getpid())+" holds it)")
}

func TestAbResumeChecks(t *testing.T) {
	t.Parallel()
	j := filepath.Join(t.TempDir(), "j.jsonl")
	cat := catArm(t)
	code, _, errText := abCmd(t, j, cat, cat)
	require.Equal(t, 0, code, errText)

	// Another config is refused, naming the flag (a larger --rounds
	// extends the campaign instead: TestAbExtend; a smaller one is a
	// shrink: TestAbResumeFinishedGitCampaign).
	code, _, errText = runCLI("ab", "--resume", "--journal", j, "--block", "4")
	assert.Equal(t, 1, code)
	assert.Contains(t, errText, "is a journal of another campaign")
	assert.Contains(t, errText, "--block: journal 3, given 4")

	// A crash mid-write of the last line: ignored with a warning, and the
	// round it closed is run again.
	data, err := os.ReadFile(j)
	require.NoError(t, err)
	cut := strings.LastIndex(strings.TrimSuffix(string(data), "\n"), "\n") + 10
	require.NoError(t, os.WriteFile(j, data[:cut], 0o644))
	code, _, errText = runCLI("ab", "--resume", "--journal", j)
	require.Equal(t, 0, code, errText)
	assert.Contains(t, errText, "ignoring a torn last line")
	assert.Contains(t, errText, "round 3 was interrupted; running it again whole (attempt 2)")
	assert.Equal(t, map[int]int{1: 1, 2: 1, 3: 1}, roundsOK(t, j))

	// Resuming a finished campaign runs nothing and reports it again.
	code, out, errText := runCLI("ab", "--resume", "--journal", j)
	require.Equal(t, 0, code, errText)
	assert.Contains(t, out, "NO CHANGE")
	assert.Equal(t, map[int]int{1: 1, 2: 1, 3: 1}, roundsOK(t, j))
}

func TestAbFailOn(t *testing.T) {
	t.Parallel()
	j := filepath.Join(t.TempDir(), "j.jsonl")
	cat := catArm(t)
	// Head's log is the fixture with every bind segment ten times as
	// long (a 9 appended to each dur_ns).
	slow := fmt.Sprintf("sed 's/dur_ns=\\([0-9]*\\)/dur_ns=\\19/' %s", fixtureLog(t, "hbg-e1.log"))
	code, out, errText := abCmd(t, j, cat, slow, "--fail-on", "slower", "--rounds", "6")
	assert.Equal(t, 3, code, errText)
	assert.Contains(t, out, "SLOWER: ControlPlane")
}

func TestAbPerRank(t *testing.T) {
	t.Parallel()
	j := filepath.Join(t.TempDir(), "j.jsonl")
	cat := catArm(t)
	// The E1 fixture has two ranks (pids) of four passes each.
	code, out, errText := abCmd(t, j, cat, cat, "--per-rank")
	require.Equal(t, 0, code, errText)
	assert.Contains(t, out, "ControlPlane@rank0 *")
	assert.Contains(t, out, "ControlPlane@rank1")
	assert.Contains(t, out, "NO CHANGE: ControlPlane@rank0")
}

func TestAACommand(t *testing.T) {
	t.Parallel()
	j := filepath.Join(t.TempDir(), "j.jsonl")
	code, out, errText := runCLI("aa", "--cmd", catArm(t), "--journal", j, "--rounds", "3", "--block", "3", "--warmup", "0")
	require.Equal(t, 0, code, errText)
	assert.True(t, strings.HasPrefix(out, "A/A calibration of ControlPlane: verdict no change"), out)
	assert.Contains(t, out, "A/A: both arms are the same")
	jr, err := journal.ReadJournal(j)
	require.NoError(t, err)
	assert.Equal(t, jr.Header.Arms[0], jr.Header.Arms[1])

	code, _, errText = runCLI("aa", "embedded:", "--cmd", "x")
	assert.Equal(t, 2, code)
	assert.Contains(t, errText, "give ARM or --cmd, not both")
}

// TestAbPerRankGatesOnEveryRank: under --per-rank the headline has a line
// per rank and --fail-on looks at every rank: the head's rank 1 (the E1
// fixture's thread 0x7f3cb1409d40) spends 20% less in its bind phases,
// rank 0 is unchanged, and the gate fires. Rank 0 alone said no change.
func TestAbPerRankGatesOnEveryRank(t *testing.T) {
	t.Parallel()
	fast := rank1FasterLog(t)
	j := filepath.Join(t.TempDir(), "j.jsonl")
	code, out, errText := abCmd(t, j, catArm(t), "cat "+fast, "--per-rank", "--rounds", "8", "--fail-on", "change")
	assert.Equal(t, 3, code, errText)
	assert.True(t, strings.HasPrefix(out, "NO CHANGE: ControlPlane@rank0"), out)
	assert.Contains(t, out, "\nFASTER: ControlPlane@rank1: head takes 20.0% less time")
	assert.Contains(t, out, "Holm-adjusted over the ranks")
}

// rank1FasterLog writes the E1 fixture with the bind phases of rank 1
// (thread 0x7f3cb1409d40) 20% shorter and returns its path.
func rank1FasterLog(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(fixtureLog(t, "hbg-e1.log"))
	require.NoError(t, err)
	dur := regexp.MustCompile(`dur_ns=(\d+)`)
	lines := strings.Split(string(b), "\n")
	for i, l := range lines {
		if strings.Contains(l, "[T0x7f3cb1409d40]") && strings.Contains(l, "bind phase=") {
			lines[i] = dur.ReplaceAllStringFunc(l, func(m string) string {
				n, err := strconv.ParseInt(m[len("dur_ns="):], 10, 64)
				require.NoError(t, err)
				return "dur_ns=" + strconv.FormatInt(n*4/5, 10)
			})
		}
	}
	fast := filepath.Join(t.TempDir(), "rank1-faster.log")
	require.NoError(t, os.WriteFile(fast, []byte(strings.Join(lines, "\n")), 0o644))
	return fast
}

// readGz returns the text of a gzip-compressed file.
func readGz(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	zr, err := gzip.NewReader(f)
	require.NoError(t, err)
	b, err := io.ReadAll(zr)
	require.NoError(t, err)
	return string(b)
}

// TestAbProgressOnATerminal: with stderr on a terminal (a pty) ab shows
// the one progress line of internal/progress (as hbgtrace does) and
// clears it at the end; the report goes to stdout as ever.
func TestAbProgressOnATerminal(t *testing.T) {
	t.Parallel()
	master, tty := ptytest.Open(t)
	var seen bytes.Buffer
	read := make(chan struct{})
	go func() {
		defer close(read)
		_, _ = io.Copy(&seen, master)
	}()
	var out bytes.Buffer
	code := run([]string{"ab", "--journal", filepath.Join(t.TempDir(), "j.jsonl"), "--rounds", "3", "--block", "3",
		"--warmup", "0", "--base", "embedded:delay_us=50000", "--head", "embedded:delay_us=50000,mirror=retained"}, &out, tty)
	tty.Close()
	master.Close()
	<-read
	require.Equal(t, 0, code, seen.String())
	assert.Contains(t, out.String(), "ControlPlane *")
	assert.Regexp(t, `\rhbgbench: [1-6] of 6 blocks \(\d+%\) r00[123]-(base|head)-a1-t1`, seen.String())
	assert.True(t, strings.HasSuffix(seen.String(), "\r\x1b[K"), "the line is cleared: %q", seen.String())
	assert.NotContains(t, seen.String(), "round 1 of 3", "a terminal gets the line, not round lines")
}

// TestAbMetricList: --metric list prints every metric with its unit, and
// every name it prints is one --metric takes.
func TestAbMetricList(t *testing.T) {
	t.Parallel()
	for _, cmd := range [][]string{{"ab"}, {"aa"}, {"compare"}} {
		t.Run(cmd[0], func(t *testing.T) {
			code, out, errText := runCLI(append(cmd, "--metric", "list")...)
			require.Equal(t, 0, code, errText)
			lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
			// The known metrics, then the forms of the open ones' names.
			require.Len(t, lines, len(metric.KnownMetrics())+3)
			assert.True(t, strings.HasPrefix(lines[len(lines)-1], "attr.<segment>.<attribute> "), lines[len(lines)-1])
			units := map[string]string{}
			for _, l := range lines[:len(lines)-3] {
				f := strings.Fields(l)
				require.GreaterOrEqual(t, len(f), 3, l)
				m, ok := metric.LookupMetric(f[0])
				require.True(t, ok, f[0])
				units[m.Name] = m.Kind.Unit()
				assert.Contains(t, l, m.Kind.Unit())
			}
			for name, unit := range map[string]string{"ControlPlane": "µs", "cpu.ControlPlane": "µs CPU", "minflt": "count",
				"nvcsw": "count", "work.graph_upload.submissions": "count", "work.args.bytes": "bytes", "orch.record_node.per_op": "µs"} {
				assert.Equal(t, unit, units[name], name)
			}
		})
	}
}

// TestAbSameWorkGuard: two workloads do different work, and the report
// says so above the verdict; --expect-same-work turns that into exit 3.
// One arm against itself does the same work: nothing is said.
func TestAbSameWorkGuard(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"different workloads", []string{"ab", "--base", "embedded:workload=dsv4-pair", "--head", "embedded:workload=dsv4-blocks7"}, 3,
			"head submits 105 Graphs per bind, base 20"},
		{"aa", []string{"aa", "embedded:workload=dsv4-blocks7"}, 0, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			j := filepath.Join(t.TempDir(), "c.jsonl")
			args := append(tc.args, "--rounds", "3", "--block", "3", "--warmup", "0", "--journal", j, "--seed", "3", "--expect-same-work")
			code, out, errText := runCLI(args...)
			require.Equal(t, tc.code, code, errText)
			if tc.want == "" {
				assert.NotContains(t, out, "DIFFERENT WORK")
				assert.NotContains(t, errText, "--expect-same-work")
				return
			}
			require.True(t, strings.HasPrefix(out, "DIFFERENT WORK: "), out)
			first, _, _ := strings.Cut(out, "\n")
			assert.Contains(t, first, tc.want)
			assert.Contains(t, first, "head submits 129 host tasks per bind, base 1131")
			assert.Contains(t, errText, "hbgbench: --expect-same-work: DIFFERENT WORK")
			// Without the flag the report still says so, and exits 0.
			code, out, errText = runCLI("ab", "--resume", "--journal", j)
			require.Equal(t, 0, code, errText)
			assert.True(t, strings.HasPrefix(out, "DIFFERENT WORK: "), out)
		})
	}
}

// TestAbCommunityRecipeKeepsItsMethod: the defaults moved to 20-pass
// blocks and their minimum (issue 24), but the community recipe's flags
// still mean 10 rounds of 5 passes reduced by their median; a block of 6
// warm passes or more takes the minimum unless --block-stat says.
func TestAbCommunityRecipeKeepsItsMethod(t *testing.T) {
	t.Parallel()
	parse := func(args ...string) journal.Config {
		var got *AbOptions
		cmd := NewCmdAb(nil, func(o *AbOptions) error { got = o; return nil })
		cmd.SetArgs(args)
		require.NoError(t, cmd.Execute())
		return got.Config
	}
	c := parse("--rounds", "10", "--block", "5", "--keep-first", "--trim", "10", "--order", "abab", "--warmup", "0")
	assert.Equal(t, journal.Config{Rounds: 10, Block: 5, Warmup: 0, Order: "abab", Cold: 0, BlockStat: "median", Trim: 10,
		Margin: 0.01, Retries: 1, MaxFail: 0.10}, c)
	assert.Equal(t, journal.BlockMin, parse().BlockStat)
	assert.Equal(t, 20, parse().Block)
	assert.Equal(t, journal.BlockMedian, parse("--block", "5").BlockStat)
	assert.Equal(t, journal.BlockMin, parse("--block", "10").BlockStat)
	assert.Equal(t, journal.BlockMedian, parse("--block", "40", "--block-stat", "median").BlockStat)
}

// assertAbRefused runs `hbgbench ab ARGS` with a journal of its own and
// checks it is a usage error (exit 2) saying want, with no journal
// written.
func assertAbRefused(t *testing.T, args []string, want string) {
	t.Helper()
	dir := t.TempDir()
	code, _, errText := runCLI(append([]string{"ab", "--journal", filepath.Join(dir, "j.jsonl")}, args...)...)
	assert.Equal(t, 2, code, errText)
	assert.Contains(t, errText, want)
	_, err := os.Stat(filepath.Join(dir, "j.jsonl"))
	assert.True(t, os.IsNotExist(err), "a refused campaign writes no journal")
}
