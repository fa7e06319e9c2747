package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hbgkit/hbgkit/abtest/abreport"
	"github.com/hbgkit/hbgkit/abtest/analysis"
	"github.com/hbgkit/hbgkit/abtest/journal"
	"github.com/hbgkit/hbgkit/abtest/metric"
	"github.com/hbgkit/hbgkit/abtest/stats"
	"github.com/hbgkit/hbgkit/internal/buildinfo"
	"github.com/hbgkit/hbgkit/internal/document"
	"github.com/hbgkit/hbgkit/internal/golden"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	extast "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchmath"
	"golang.org/x/perf/benchproc"
)

// campaignJournal is the journal of a real 6-round campaign (abtest's
// golden input).
var campaignJournal = filepath.Join("..", "..", "abtest", "journal", "testdata", "campaign.jsonl")

// compareSets are the inputs of the compare goldens: 4 logs of the
// embedded model per arm (retained mirror, delay_us 0 against 3000), and
// one fixture log per arm.
var compareSets = map[string][]string{
	"compare-4v4": {"--base", "testdata/compare/delay0-1.log.gz", "testdata/compare/delay0-2.log.gz",
		"testdata/compare/delay0-3.log.gz", "testdata/compare/delay0-4.log.gz",
		"--head", "testdata/compare/delay3000-1.log.gz", "testdata/compare/delay3000-2.log.gz",
		"testdata/compare/delay3000-3.log.gz", "testdata/compare/delay3000-4.log.gz"},
	"compare-1v1": {"--base", "../../fixtures/hbg-e1.log", "--head", "../../fixtures/hbg-e1-two-ranks-shared-t0x.log"},
}

// normalize replaces the running binary's version, which compare writes,
// so that the goldens do not depend on the toolchain.
func normalize(s string) string {
	return strings.ReplaceAll(s, buildinfo.Read().String(), "hbgkit VERSION")
}

// TestReportGolden prints every format of the campaign journal, of a
// redacted report, and of compare on both fixture sets: each byte for byte
// as its golden file.
func TestReportGolden(t *testing.T) {
	t.Parallel()
	type run struct {
		name string
		args []string
	}
	var runs []run
	for _, f := range abreport.Formats {
		runs = append(runs, run{"campaign." + f, []string{"report", campaignJournal, "--format", f}})
		for set, args := range compareSets {
			runs = append(runs, run{set + "." + f, append(append([]string{"compare"}, args...), "--format", f)})
		}
	}
	runs = append(runs, run{"campaign.redact.markdown", []string{"report", campaignJournal, "--format", "markdown", "--redact"}})
	for _, r := range runs {
		t.Run(r.name, func(t *testing.T) {
			code, out, errText := runCLI(r.args...)
			require.Equal(t, 0, code, errText)
			golden.Check(t, filepath.Join("testdata", "report", r.name), normalize(out))
		})
	}
}

// markdownShape parses a markdown report as GitHub does and returns the
// tables a reader sees without unfolding anything (before the first
// <details>) and those inside <details> blocks, failing on a <details>
// block left open or a table after the last one.
func markdownShape(t *testing.T, md string) (visible, folded []*extast.Table) {
	t.Helper()
	src := []byte(md)
	doc := goldmark.New(goldmark.WithExtensions(extension.Table)).Parser().Parse(text.NewReader(src))
	inDetails, sawDetails := false, false
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		switch v := n.(type) {
		case *extast.Table:
			switch {
			case inDetails:
				folded = append(folded, v)
			case sawDetails:
				t.Errorf("a table between or after the <details> blocks")
			default:
				visible = append(visible, v)
			}
		case *ast.HTMLBlock:
			var b strings.Builder
			for i := 0; i < v.Lines().Len(); i++ {
				seg := v.Lines().At(i)
				b.Write(seg.Value(src))
			}
			if strings.Contains(b.String(), "<details>") {
				assert.False(t, inDetails, "a <details> block inside another")
				inDetails, sawDetails = true, true
			}
			if strings.Contains(b.String(), "</details>") {
				inDetails = false
			}
		}
	}
	assert.True(t, sawDetails, "no <details> block")
	assert.False(t, inDetails, "a <details> block left open")
	return visible, folded
}

func cellTexts(src []byte, row ast.Node) []string {
	var out []string
	for c := row.FirstChild(); c != nil; c = c.NextSibling() {
		var b strings.Builder
		for k := c.FirstChild(); k != nil; k = k.NextSibling() {
			if tx, ok := k.(*ast.Text); ok {
				b.Write(tx.Segment.Value(src))
			} else if s, ok := k.(*ast.String); ok {
				b.Write(s.Value)
			}
		}
		out = append(out, b.String())
	}
	return out
}

// TestReportMarkdownIsOneTableAndDetails parses the markdown reports of a
// campaign and of compare: exactly one table, with a row per analysed
// metric and the columns of docs/ab-reference.md "The table for a pull
// request", then the <details> block.
func TestReportMarkdownIsOneTableAndDetails(t *testing.T) {
	t.Parallel()
	cases := map[string][]string{
		"report":      {"report", campaignJournal, "--format", "markdown"},
		"compare-4v4": append([]string{"compare", "--format", "markdown"}, compareSets["compare-4v4"]...),
		"compare-1v1": append([]string{"compare", "--format", "markdown"}, compareSets["compare-1v1"]...),
	}
	for name, args := range cases {
		t.Run(name, func(t *testing.T) {
			code, out, errText := runCLI(args...)
			require.Equal(t, 0, code, errText)
			visible, folded := markdownShape(t, out)
			require.Len(t, visible, 1, "one short table for the pull request")
			head := visible[0].FirstChild()
			assert.Equal(t, []string{"metric", "base", "head", "change", "Δ", "95% CI", "verdict"}, cellTexts([]byte(out), head))
			for r := head.NextSibling(); r != nil; r = r.NextSibling() {
				assert.Len(t, cellTexts([]byte(out), r), 7)
			}
			// The full table, one click away: one row per metric of the
			// JSON analysis.
			require.NotEmpty(t, folded)
			full := folded[0].FirstChild()
			assert.Equal(t, []string{"metric", "unit", "base", "head", "change", "Δ", "95% CI"}, cellTexts([]byte(out), full)[:7])
			rows := 0
			for r := full.NextSibling(); r != nil; r = r.NextSibling() {
				rows++
				assert.Len(t, cellTexts([]byte(out), r), 14)
			}
			var a analysis.Analysis
			jargs := append([]string{}, args...)
			for i := range jargs {
				if jargs[i] == "markdown" {
					jargs[i] = "json"
				}
			}
			code, js, errText := runCLI(jargs...)
			require.Equal(t, 0, code, errText)
			require.NoError(t, json.Unmarshal([]byte(js), &a))
			assert.Equal(t, len(a.Metrics), rows)
			assert.Regexp(t, `^(FASTER|SLOWER|NO CHANGE|SMALL CHANGE|INCONCLUSIVE|NO VERDICT): `, out, "a headline sentence first")
		})
	}
}

// TestMarkdownTableEscapesPipes puts a | into a metric label: the table
// still has 7 cells per row and the cell reads a|b.
func TestMarkdownTableEscapesPipes(t *testing.T) {
	t.Parallel()
	j, err := journal.ReadJournal(campaignJournal)
	require.NoError(t, err)
	a := analysis.Analyze(j)
	a.Metrics[0].Label = "a|b"
	var md bytes.Buffer
	require.NoError(t, document.WriteMarkdown(&md, abreport.For(a).MarkdownDocument()))
	tables, _ := markdownShape(t, md.String())
	require.Len(t, tables, 1)
	row := tables[0].FirstChild().NextSibling()
	require.Len(t, cellTexts(md.Bytes(), row), 7)
	var html bytes.Buffer
	require.NoError(t, goldmark.New(goldmark.WithExtensions(extension.Table)).Convert(md.Bytes(), &html))
	assert.Contains(t, strings.ReplaceAll(html.String(), "\u00a0", " "), "<td>a|b * = Gate</td>")
}

// TestReportJSONSchema checks the json format's documented fields.
func TestReportJSONSchema(t *testing.T) {
	t.Parallel()
	code, out, errText := runCLI("report", campaignJournal, "--format", "json")
	require.Equal(t, 0, code, errText)
	var m map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &m))
	assert.Equal(t, float64(analysis.AnalysisSchema), m["schema"])
	assert.Equal(t, string(analysis.DesignInterleaved), m["design"])
	assert.Equal(t, "wilcoxon signed-rank", m["test"])
	for _, k := range []string{"header", "planned_rounds", "complete_rounds", "partial", "aa", "primary", "margin", "metrics", "noise", "warnings"} {
		assert.Contains(t, m, k)
	}
	metric := m["metrics"].([]any)[0].(map[string]any)
	for _, k := range []string{"name", "label", "family", "primary", "rounds", "arms", "delta", "ci_lo", "ci_hi",
		"delta_min", "delta_min_global", "sign_agree", "sign_n", "sign_p", "p", "holm_p", "sigma_d", "mde", "verdict"} {
		assert.Contains(t, metric, k)
	}
	code, out, errText = runCLI(append([]string{"compare", "--format", "json"}, compareSets["compare-4v4"]...)...)
	require.Equal(t, 0, code, errText)
	require.NoError(t, json.Unmarshal([]byte(out), &m))
	assert.Equal(t, string(analysis.DesignUnpaired), m["design"])
	assert.Equal(t, "wilcoxon rank-sum", m["test"])
	logs := m["logs"].([]any)
	assert.Len(t, logs[0], 4)
	assert.Len(t, logs[1], 4)
}

// TestReportBenchfmt parses the benchfmt report with x/perf's reader,
// groups it by /arm as benchstat -col /arm does, and checks each arm's
// sample against the analysis: as many passes, the same median.
func TestReportBenchfmt(t *testing.T) {
	t.Parallel()
	for name, args := range map[string][]string{
		"report":  {"report", campaignJournal},
		"compare": append([]string{"compare"}, compareSets["compare-4v4"]...),
	} {
		t.Run(name, func(t *testing.T) {
			code, out, errText := runCLI(append(args, "--format", "benchfmt")...)
			require.Equal(t, 0, code, errText)
			code, js, errText := runCLI(append(args, "--format", "json")...)
			require.Equal(t, 0, code, errText)
			var a analysis.Analysis
			require.NoError(t, json.Unmarshal([]byte(js), &a))

			var filter benchproc.ProjectionParser
			byArm, err := filter.Parse("/arm", nil)
			require.NoError(t, err)
			byName, err := filter.Parse(".name", nil)
			require.NoError(t, err)
			samples := map[string]map[string][]float64{}
			units := map[string]string{}
			r := benchfmt.NewReader(strings.NewReader(out), name+".txt")
			n := 0
			for r.Scan() {
				res, ok := r.Result().(*benchfmt.Result)
				require.True(t, ok, "%v", r.Result())
				if n == 0 {
					assert.NotEmpty(t, res.GetConfig("hbgkit"))
					assert.Equal(t, a.Primary.String(), res.GetConfig("primary"))
				}
				n++
				arm := byArm.Project(res).StringValues()
				bench := byName.Project(res).StringValues()
				// Time is ns/op (read as sec/op); the other kinds keep
				// their units, one per line.
				require.Len(t, res.Values, 1)
				v, unit := res.Values[0].Value, res.Values[0].Unit
				if unit == "sec/op" {
					v *= 1e6 // µs, as the analysis
				} else if unit == "cpu-ns/op" {
					v /= 1e3
				}
				units[bench] = unit
				if samples[bench] == nil {
					samples[bench] = map[string][]float64{}
				}
				samples[bench][arm] = append(samples[bench][arm], v)
			}
			require.NoError(t, r.Err())
			require.NotZero(t, n)
			for _, m := range a.Metrics {
				bench := strings.TrimPrefix(abreport.BenchName(m.Name), "Benchmark")
				require.Contains(t, samples, bench)
				for arm, armName := range []string{"base", "head"} {
					s := samples[bench][armName]
					require.Len(t, s, m.Arms[arm].N, "%s %s", m.Name, armName)
					sum := benchmath.AssumeNothing.Summary(benchmath.NewSample(s, &benchmath.DefaultThresholds), 0.95)
					assert.InDelta(t, float64(m.Arms[arm].Median), sum.Center, 1e-6*float64(m.Arms[arm].Median), "%s %s", m.Name, armName)
				}
				want := map[metric.MetricKind]string{metric.KindTime: "sec/op", metric.KindCPU: "cpu-ns/op", metric.KindCount: "count/op", metric.KindBytes: "B/op"}
				assert.Equal(t, want[m.Kind], units[bench], m.Name)
			}
		})
	}
}

// TestReportBenchstatTool builds x/perf's benchstat and runs it with
// -col /arm on the benchfmt report: it reads every line and puts base
// and head side by side.
func TestReportBenchstatTool(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds benchstat")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "benchstat")
	if out, err := exec.Command(goTool, "build", "-o", bin, "golang.org/x/perf/cmd/benchstat").CombinedOutput(); err != nil {
		t.Skipf("cannot build benchstat: %v\n%s", err, out)
	}
	code, out, errText := runCLI("report", campaignJournal, "--format", "benchfmt")
	require.Equal(t, 0, code, errText)
	file := filepath.Join(dir, "c.txt")
	require.NoError(t, os.WriteFile(file, []byte(out), 0o644))
	got, err := exec.Command(bin, "-col", "/arm", file).CombinedOutput()
	require.NoError(t, err, "%s", got)
	s := string(got)
	assert.Regexp(t, `(?m)^\s+│\s+base\s+│\s+head`, s)
	assert.Contains(t, s, "sec/op")
	assert.Regexp(t, `(?m)^ControlPlane\s+\S+`, s)
	assert.NotContains(t, s, "parsing")
}

// redactJournal writes a copy of the campaign journal whose header names
// a host and absolute paths.
func redactJournal(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(campaignJournal)
	require.NoError(t, err)
	lines := strings.SplitAfter(string(data), "\n")
	var h map[string]any
	require.NoError(t, json.Unmarshal([]byte(lines[0]), &h))
	h["command"] = []string{"/home/alice/bin/hbgbench", "ab", "--journal", "/home/alice/work/c.jsonl"}
	env := h["env"].(map[string]any)
	env["host"] = "secret-box-17"
	env["build"] = "make -C /home/alice/src/simpler"
	h["ruler"] = "hbgkit-harness {arm} host=secret-box-17 out=/home/alice/out"
	arms := h["arms"].([]any)
	arms[0].(map[string]any)["kind"] = journal.KindCommand
	arms[0].(map[string]any)["spec"] = "/home/alice/old/run.sh {rounds} {out}"
	arms[0].(map[string]any)["env"] = []string{"DATA=/home/alice/data"}
	// A token passed with --env, in every place it lands: the command
	// line, the arm, the ruler; the repository and the recipe's path.
	arms[1].(map[string]any)["kind"] = journal.KindCommand
	arms[1].(map[string]any)["spec"] = "./run.sh {rounds} {out}"
	arms[1].(map[string]any)["env"] = []string{"TOKEN=tok-9f8e7d6c"}
	h["command"] = append(h["command"].([]string), "--env", "TOKEN=tok-9f8e7d6c")
	h["ruler"] = h["ruler"].(string) + " env TOKEN=tok-9f8e7d6c"
	h["repo"] = "/home/alice/src/simpler"
	h["recipe"] = "/home/alice/src/simpler/hbgbench.toml"
	h["recipe_set"] = []string{"rounds = 6", "env DATA=/home/alice/data (git arms only)"}
	b, err := json.Marshal(h)
	require.NoError(t, err)
	lines[0] = string(b) + "\n"
	path := filepath.Join(t.TempDir(), "c.jsonl")
	require.NoError(t, os.WriteFile(path, []byte(strings.Join(lines, "")+`{"type":"blo`), 0o644))
	return path
}

// TestReportRedact: without --redact every format that carries them
// shows the host and the paths; with it none does.
func TestReportRedact(t *testing.T) {
	t.Parallel()
	path := redactJournal(t)
	secret := regexp.MustCompile(`secret-box-17|/home/alice|tok-9f8e7d6c|` + regexp.QuoteMeta(filepath.Dir(path)))
	for _, f := range abreport.Formats {
		t.Run(f, func(t *testing.T) {
			code, out, errText := runCLI("report", path, "--format", f)
			require.Equal(t, 0, code, errText)
			if f != "csv" { // csv has no header fields
				assert.Regexp(t, secret, out)
			}
			code, out, errText = runCLI("report", path, "--format", f, "--redact")
			require.Equal(t, 0, code, errText)
			assert.NotRegexp(t, secret, out)
			assert.NotRegexp(t, secret, errText)
			if f == "markdown" || f == "json" || f == "text" {
				assert.Contains(t, out, "<path>/run.sh")
				assert.Contains(t, out, abreport.RedactedHost)
			}
		})
	}
}

// TestRedactedMarkdownRenders: rendered as GitHub renders it, the
// redacted markdown report still shows its placeholders (<host> is not
// taken for an HTML tag), the command arm's --env switch, and the command
// in its code block quoted for a shell.
func TestRedactedMarkdownRenders(t *testing.T) {
	t.Parallel()
	path := redactJournal(t)
	code, out, errText := runCLI("report", path, "--format", "markdown", "--redact")
	require.Equal(t, 0, code, errText)
	var html bytes.Buffer
	require.NoError(t, goldmark.New(goldmark.WithExtensions(extension.GFM)).Convert([]byte(out), &html))
	assert.Contains(t, html.String(), "host &lt;host&gt;: AMD EPYC")
	assert.Contains(t, html.String(), "base: command &lt;path&gt;/run.sh {rounds} {out}")
	assert.Contains(t, html.String(), "env (added to the arm's command) of base, from hbgbench.toml: DATA=&lt;redacted&gt;")
	assert.Contains(t, html.String(), "env (added to the arm's command) of head: TOKEN=&lt;redacted&gt;")
	assert.Contains(t, html.String(), "<code>'&lt;path&gt;/hbgbench' ab --journal '&lt;path&gt;/c.jsonl' --env 'TOKEN=&lt;redacted&gt;'\n</code>")
}

// TestReportReadOnly: report reads a journal another hbgbench holds and
// whose last line is torn, warns, and leaves the file as it was.
func TestReportReadOnly(t *testing.T) {
	t.Parallel()
	path := redactJournal(t) // ends in a torn line
	before, err := os.ReadFile(path)
	require.NoError(t, err)
	// Hold the journal's lock as a running campaign does.
	lock, err := os.OpenFile(journal.LockPath(path), os.O_RDWR|os.O_CREATE, 0o644)
	require.NoError(t, err)
	defer lock.Close()
	require.NoError(t, flock(lock))
	code, out, errText := runCLI("report", path)
	require.Equal(t, 0, code, errText)
	assert.Contains(t, errText, "ignoring a torn last line")
	assert.Contains(t, out, "FASTER: ControlPlane")
	after, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, before, after)
}

func TestReportUsage(t *testing.T) {
	campaign, err := filepath.Abs(campaignJournal)
	require.NoError(t, err)
	// No JOURNAL: the newest of the campaign home, and a clear error when
	// it has none.
	dir := t.TempDir()
	t.Chdir(dir)
	code, _, errText := runCLI("report")
	assert.Equal(t, 1, code, errText)
	assert.Contains(t, errText, "no campaign journal in "+filepath.Join(dir, ".hbgbench"))
	require.NoError(t, os.Mkdir(".hbgbench", 0o755))
	data, err := os.ReadFile(campaign)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(".hbgbench/hbgbench-20261201T000000Z.jsonl", []byte("not a journal\n"), 0o644))
	require.NoError(t, os.WriteFile(".hbgbench/hbgbench-20261202T000000Z.jsonl", data, 0o644))
	code, out, errText := runCLI("report")
	assert.Equal(t, 0, code, errText)
	assert.Contains(t, errText, "report of "+filepath.Join(dir, ".hbgbench", "hbgbench-20261202T000000Z.jsonl"))
	assert.Contains(t, out, "FASTER: ControlPlane")
	// Two journals are the shards of a campaign to merge (shard_test.go).
	code, _, errText = runCLI("report", "a.jsonl", "b.jsonl")
	assert.Equal(t, 1, code, errText)
	assert.Contains(t, errText, "a.jsonl: reading journal")
	code, _, errText = runCLI("report", campaign, "--format", "xml")
	assert.Equal(t, 2, code)
	assert.Contains(t, errText, `--format "xml"`)
	code, _, errText = runCLI("report", filepath.Join(t.TempDir(), "none.jsonl"))
	assert.Equal(t, 1, code)
	assert.Contains(t, errText, "reading journal")
}

// TestAbFormatsBenchfmtAndRedacts: ab itself prints benchfmt, which x/perf
// reads, and --redact keeps the arms' absolute paths out of it; aa prints
// its calibration report as markdown with one table.
func TestAbFormatsBenchfmtAndRedacts(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cat := catArm(t) // cat /abs/path/fixtures/hbg-e1.log
	code, out, errText := abCmd(t, filepath.Join(dir, "a.jsonl"), cat, cat, "--format", "benchfmt", "--redact")
	require.Equal(t, 0, code, errText)
	assert.NotContains(t, out, fixtureLog(t, "hbg-e1.log"))
	assert.Contains(t, out, "base: cat <path>/hbg-e1.log")
	r := benchfmt.NewReader(strings.NewReader(out), "ab.txt")
	arms := map[string]int{}
	for r.Scan() {
		res, ok := r.Result().(*benchfmt.Result)
		require.True(t, ok, "%v", r.Result())
		if string(res.Name.Base()) == "ControlPlane" {
			_, cfg := res.Name.Parts()
			require.Len(t, cfg, 1)
			arms[string(cfg[0])]++
		}
	}
	require.NoError(t, r.Err())
	// 3 rounds × 2 pids × (4 binds − 2 cold) per arm.
	assert.Equal(t, map[string]int{"/arm=base": 12, "/arm=head": 12}, arms)

	code, out, errText = runCLI("aa", "--cmd", cat, "--journal", filepath.Join(dir, "aa.jsonl"), "--rounds", "3",
		"--block", "3", "--warmup", "0", "--format", "markdown")
	require.Equal(t, 0, code, errText)
	assert.True(t, strings.HasPrefix(out, "A/A calibration of ControlPlane"), out)
	visible, _ := markdownShape(t, out)
	assert.Len(t, visible, 1)
	// report prints an A/A journal as aa did.
	code, again, errText := runCLI("report", filepath.Join(dir, "aa.jsonl"), "--format", "markdown")
	require.Equal(t, 0, code, errText)
	assert.Equal(t, out, again)
}

// TestReportPartialJournal reports the first lines of a campaign's
// journal, as a campaign still running has written them: the verdict
// covers the rounds complete, and the report says so.
func TestReportPartialJournal(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(campaignJournal)
	require.NoError(t, err)
	lines := strings.SplitAfter(string(data), "\n")
	path := filepath.Join(t.TempDir(), "running.jsonl")
	// The header, then rounds 1 and 2 (two blocks and a round line each),
	// and the first block of round 3.
	require.NoError(t, os.WriteFile(path, []byte(strings.Join(lines[:8], "")), 0o644))
	code, out, errText := runCLI("report", path)
	require.Equal(t, 0, code, errText)
	assert.Contains(t, out, "PARTIAL: 2 of 6 rounds complete")
	assert.Contains(t, out, "only 2 rounds")
}

// TestJSONSchemaIsDocumented: every field the json format writes, at the
// top level and per metric, is named in docs/ab-reference.md's schema section.
func TestJSONSchemaIsDocumented(t *testing.T) {
	t.Parallel()
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "ab-reference.md"))
	require.NoError(t, err)
	_, sec, ok := strings.Cut(string(doc), "### The json schema")
	require.True(t, ok)
	sec, _, _ = strings.Cut(sec, "\n## ")
	assert.Contains(t, sec, fmt.Sprintf("version, **%d**", analysis.AnalysisSchema))
	seen := map[string]bool{}
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, c := range x {
				if prefix == "" || prefix == "metrics" || prefix == "metrics.arms" || prefix == "noise" || prefix == "logs" {
					seen[k] = true
				}
				walk(strings.TrimPrefix(prefix+"."+k, "."), c)
			}
		case []any:
			for _, c := range x {
				walk(prefix, c)
			}
		}
	}
	for _, args := range [][]string{
		{"report", campaignJournal, "--format", "json"},
		append([]string{"compare", "--format", "json"}, compareSets["compare-4v4"]...),
		append([]string{"compare", "--format", "json"}, compareSets["compare-1v1"]...),
	} {
		code, out, errText := runCLI(args...)
		require.Equal(t, 0, code, errText)
		var v any
		require.NoError(t, json.Unmarshal([]byte(out), &v))
		walk("", v)
	}
	for _, k := range []string{"extra_rounds", "gated", "error"} {
		require.True(t, seen[k], "the fixtures exercise %s", k)
	}
	for k := range seen {
		assert.Contains(t, sec, "`"+k+"`", "docs/ab-reference.md does not document the json field %s", k)
	}
}

// TestAAStatesHowSureItsMarginIs: aa's calibration report gives, beside
// its one suggested margin, the range of margins its rounds are
// consistent with (the spread's chi-square interval) and the rounds that
// would pin the spread, in text and markdown.
func TestAAStatesHowSureItsMarginIs(t *testing.T) {
	t.Parallel()
	j, err := journal.ReadJournal(campaignJournal)
	require.NoError(t, err)
	a := analysis.Analyze(j)
	iv, df, pin, ok := a.MarginUncertainty()
	require.True(t, ok)
	m := a.SuggestedMargin()
	assert.Equal(t, 3, df, "6 rounds: h = 4, h − 1 = 3")
	assert.True(t, iv.Lo <= m && m <= iv.Hi && iv.Hi > 2*m, "margin %v in %v: 3 degrees of freedom leave it unsure by more than 2×", m, iv)
	assert.Equal(t, stats.RoundsToPinSpread(analysis.PinFactor), pin)
	for _, f := range []abreport.WriteOptions{{Format: "text"}, {Format: "markdown"}, {Format: "text", Redact: true}} {
		format := f.Format
		f.AA = true
		var out bytes.Buffer
		require.NoError(t, abreport.Write(&out, f, a, j))
		want := fmt.Sprintf("how sure: the spread behind it rests on 3 degrees of freedom, so these rounds are consistent with a margin from %.1f%% to %.1f%% (95%%, chi-square; more if the rounds are heavy-tailed); an aa of %d rounds pins the spread within 25%%",
			100*iv.Lo, 100*iv.Hi, pin)
		assert.Contains(t, out.String(), want, format)
	}
}
