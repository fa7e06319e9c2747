package main

import (
	"bytes"
	"encoding/json"
	"math"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	extast "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"

	"github.com/hbgkit/hbgkit/abtest/abreport"
	"github.com/hbgkit/hbgkit/abtest/analysis"
	"github.com/hbgkit/hbgkit/abtest/journal"
	"github.com/hbgkit/hbgkit/abtest/metric"
)

// A prView is what a reviewer sees of a markdown report before unfolding
// anything, as goldmark (GitHub flavour) parses it: the paragraphs and
// list items above the short table, the table's header and rows, and the
// lines under it up to the first <details>.
type prView struct {
	above  []string
	header []string
	rows   [][]string
	under  []string
}

// visiblePR parses md and returns its visible part, failing when the
// visible part has no table or more than one.
func visiblePR(t *testing.T, md string) prView {
	t.Helper()
	src := []byte(md)
	doc := goldmark.New(goldmark.WithExtensions(extension.GFM)).Parser().Parse(text.NewReader(src))
	var v prView
	tables := 0
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		if h, ok := n.(*ast.HTMLBlock); ok && strings.Contains(string(h.Lines().Value(src)), "<details>") {
			break
		}
		switch x := n.(type) {
		case *extast.Table:
			tables++
			for r := x.FirstChild(); r != nil; r = r.NextSibling() {
				cells := cellTexts(src, r)
				for i, c := range cells {
					cells[i] = strings.ReplaceAll(c, "\u00a0", " ") // the no-break spaces that keep a cell on one line
				}
				if _, ok := r.(*extast.TableHeader); ok {
					v.header = cells
				} else {
					v.rows = append(v.rows, cells)
				}
			}
		default:
			var lines []string
			if l, ok := x.(*ast.List); ok {
				for it := l.FirstChild(); it != nil; it = it.NextSibling() {
					lines = append(lines, nodeText(src, it))
				}
			} else {
				lines = strings.Split(nodeText(src, x), "\n")
			}
			if tables == 0 {
				v.above = append(v.above, lines...)
			} else {
				v.under = append(v.under, lines...)
			}
		}
	}
	require.Equal(t, 1, tables, "one table before <details>:\n%s", md)
	return v
}

// nodeText is the text of a block node, its lines joined by newlines.
func nodeText(src []byte, n ast.Node) string {
	var b strings.Builder
	var walk func(ast.Node)
	walk = func(n ast.Node) {
		for c := n.FirstChild(); c != nil; c = c.NextSibling() {
			switch x := c.(type) {
			case *ast.Text:
				b.Write(x.Segment.Value(src))
				if x.SoftLineBreak() || x.HardLineBreak() {
					b.WriteByte('\n')
				}
			case *ast.String:
				b.Write(x.Value)
			default:
				walk(c)
			}
		}
	}
	walk(n)
	return b.String()
}

// halfULP is half the last printed digit of a number cell: 0.05 for
// "17456.8", 0.5 for "17457".
func halfULP(cell string) float64 {
	cell, _, _ = strings.Cut(cell, " ")
	if _, frac, ok := strings.Cut(cell, "."); ok {
		return 0.5 * math.Pow(10, -float64(len(strings.TrimRight(frac, "%"))))
	}
	return 0.5
}

// number reads a cell of the table: "-13730.9", "+8.7%", "1390", a
// change with its unit ("-13730.9 µs", "+4096 bytes") and a factor
// "×63.0" as the percentage it stands for (+6200%).
func number(cell string) (float64, bool) {
	cell, _, _ = strings.Cut(cell, " ")
	if k, ok := strings.CutPrefix(cell, "×"); ok {
		x, err := strconv.ParseFloat(k, 64)
		return 100 * (x - 1), err == nil
	}
	s := strings.TrimSuffix(strings.TrimPrefix(cell, "+"), "%")
	s = strings.ReplaceAll(s, "−", "-")
	x, err := strconv.ParseFloat(s, 64)
	return x, err == nil
}

// checkPRTable asserts what a reviewer who doubts the result checks of
// the short table: head/base − 1 has Δ's sign on every row and is Δ to
// the printed digits, the change in the row's unit is printed and is
// head − base, no cell reads n/a, at most maxRows rows, and every term
// the legend under it explains is one the table uses.
func checkPRTable(t *testing.T, md string, maxRows int) prView {
	t.Helper()
	v := visiblePR(t, md)
	require.Equal(t, []string{"metric", "base", "head", "change", "Δ", "95% CI", "verdict"}, v.header)
	assert.LessOrEqual(t, len(v.rows), maxRows, "visible rows")
	col := func(name string) int {
		for i, h := range v.header {
			if h == name {
				return i
			}
		}
		t.Fatalf("no column %q", name)
		return -1
	}
	ib, ih, ic, id := col("base"), col("head"), col("change"), col("Δ")
	for _, r := range v.rows {
		for _, c := range r {
			assert.NotContains(t, strings.ToLower(c), "n/a", "row %v", r)
		}
		base, okb := number(r[ib])
		head, okh := number(r[ih])
		require.True(t, okb && okh, "base and head are numbers: %v", r)
		change, ok := number(r[ic])
		require.True(t, ok, "the change in the row's unit: %v", r)
		// The cells are rounded to 0.1, or to 1 for counts and from
		// 10000 on.
		assert.InDelta(t, head-base, change, halfULP(r[ib])+halfULP(r[ih])+halfULP(r[ic])+1e-9, "change is head − base: %v", r)
		delta, ok := number(r[id])
		require.True(t, ok, "Δ: %v", r)
		if base > 0 && math.Abs(delta) >= 0.05 {
			ratio := head/base - 1
			assert.Equal(t, math.Signbit(delta), math.Signbit(ratio), "head/base − 1 = %+.2f%% against Δ %s: %v", 100*ratio, r[id], r)
			if base >= 10 && head >= 10 {
				// Both levels carry three or more digits: their ratio is Δ
				// to the rounding of the cells.
				// The Δ cell's own rounding too: "+148%" is whole percent
				// from +100% on (a CI run had 147.3% printed as it).
				tol := 100*(halfULP(r[ib])/base+halfULP(r[ih])/head)*(1+math.Abs(ratio)) + halfULP(r[id]) + 0.001
				if strings.HasPrefix(r[id], "×") {
					// A factor of one decimal (none from ×100): its
					// rounding in percent.
					tol += 5
					if delta >= 9900 {
						tol += 45
					}
				}
				assert.InDelta(t, delta, 100*ratio, tol, "head/base − 1 against Δ: %v", r)
			}
		}
	}
	// The legend: its lines start "base, head:", "Δ, 95% CI:" and "*:"
	// and each "; " item names terms before its colon.
	start := -1
	for i, l := range v.under {
		if strings.HasPrefix(l, "base, head:") {
			start = i
		}
	}
	require.GreaterOrEqual(t, start, 0, "no legend under the table: %q", v.under)
	legend := v.under[start:]
	assert.LessOrEqual(t, len(legend), 3, "the legend is at most three lines: %q", legend)
	table := strings.Join(v.header, " | ")
	for _, r := range v.rows {
		table += "\n" + strings.Join(r, " | ")
	}
	for _, line := range legend {
		for _, item := range strings.Split(strings.TrimSuffix(line, "."), "; ") {
			terms, _, ok := strings.Cut(item, ": ")
			require.True(t, ok, "legend item without a term: %q", item)
			for _, term := range strings.Split(terms, ", ") {
				term = strings.ReplaceAll(term, `\*`, "*") // goldmark keeps the escape in the text
				re := regexp.QuoteMeta(term)
				re = strings.NewReplacer(`\*`, `\*`, "k", `\d+`, "N", `\d+`).Replace(re)
				switch term {
				case "k→k of N":
					re = `\d+→\d+ of \d+`
				case "×k":
					re = `×\d`
				}
				assert.Regexp(t, re, table, "the legend explains %q, which the table does not use", term)
			}
		}
	}
	return v
}

// TestPRTableOfTheDefaultCampaign: the default campaign's markdown, as a
// reviewer reads it on GitHub: its short table passes checkPRTable with
// at most 15 rows, and counts that moved read what moved.
func TestPRTableOfTheDefaultCampaign(t *testing.T) {
	// Not parallel: the widths of its cells follow the measured values,
	// and the table was found 3 px too wide for GitHub's column when it
	// ran beside the parallel campaigns.
	j := filepath.Join(t.TempDir(), "default.jsonl")
	code, out, errText := runCLI("ab", "--format", "markdown", "--journal", j)
	require.Equal(t, 0, code, errText)
	t.Logf("markdown report:\n%s", out)
	v := checkPRTable(t, out, 15)
	found := false
	for _, r := range v.rows {
		// The bind thread's faults (tminflt) have no pass total on the
		// harness's E2 lines: arena_h2d's are cut by the 95-character
		// buffer. The process-wide ones (minflt) come before the cut.
		if strings.HasPrefix(r[0], "minor faults") {
			found = true
			assert.Regexp(t, `^\d+→\d+ of \d+$`, r[len(r)-1])
		}
	}
	assert.True(t, found, "the faults that went away are in the short table")
	assert.Contains(t, strings.Join(v.under, "\n"), "same work: ")
	assertFitsGitHub(t, out)
}

// TestPRTableOfAGitRefCampaign: a git-ref campaign whose head adds 60 ms
// to host_orch: the short table passes checkPRTable and shows the
// regression in µs per bind.
func TestPRTableOfAGitRefCampaign(t *testing.T) {
	t.Parallel()
	repo, c1, _ := testRepo(t)
	j := filepath.Join(t.TempDir(), "git.jsonl")
	code, out, errText := runCLI("ab", "--repo", repo, "--base", c1[:10], "--head", "pr", "--run", "./run.sh {rounds} {out}",
		"--rounds", "6", "--block", "5", "--format", "markdown", "--journal", j, "--cache", t.TempDir(), "--seed", "4")
	require.Equal(t, 0, code, errText)
	t.Logf("markdown report:\n%s", out)
	v := checkPRTable(t, out, abreport.MaxPRRows)
	require.NotEmpty(t, v.rows)
	assert.True(t, strings.HasPrefix(v.rows[0][0], "ControlPlane *"), v.rows[0])
	change, ok := number(v.rows[0][3])
	require.Equal(t, "change", v.header[3])
	require.True(t, ok)
	assert.Greater(t, change, 30000.0, "60 ms per bind reads as tens of thousands of µs: %v", v.rows[0])
	assertFitsGitHub(t, out)
}

// TestPRTableWarnsOfLoadAboveIt: a campaign run beside two busy loops
// says so above its table, where the reviewer looks.
func TestPRTableWarnsOfLoadAboveIt(t *testing.T) {
	busyLoops(t, 2)
	j := filepath.Join(t.TempDir(), "busy.jsonl")
	code, out, errText := runCLI("ab", "--format", "markdown", "--journal", j, "--rounds", "3", "--block", "6")
	require.Equal(t, 0, code, errText)
	v := visiblePR(t, out)
	above := strings.Join(v.above, "\n")
	assert.Regexp(t, `WARNING: (at start|during the campaign): .*(load average|CPU pressure)`, above, "markdown:\n%s", out)
}

// renderGFM renders markdown as GitHub does.
func renderGFM(t *testing.T, md string) string {
	t.Helper()
	var b bytes.Buffer
	require.NoError(t, goldmark.New(goldmark.WithExtensions(extension.GFM)).Convert([]byte(md), &b))
	return b.String()
}

// TestCompareBlockStatMinIsThePerPhaseMinimumTable: one captured log per
// arm with --block-stat min gives #1936's table in markdown: every row's
// base and head are that arm's fastest warm pass (its minimum over the
// warm passes, as json's min_us says), and Δ is their ratio.
func TestCompareBlockStatMinIsThePerPhaseMinimumTable(t *testing.T) {
	t.Parallel()
	args := append([]string{"compare", "--block-stat", "min"}, compareSets["compare-4v4"][0:2]...)
	args = append(args, "--head", compareSets["compare-4v4"][6])
	code, md, errText := runCLI(append(args, "--format", "markdown")...)
	require.Equal(t, 0, code, errText)
	code, js, errText := runCLI(append(args, "--format", "json")...)
	require.Equal(t, 0, code, errText)
	var a analysis.Analysis
	require.NoError(t, json.Unmarshal([]byte(js), &a))
	_, folded := markdownShape(t, md)
	require.NotEmpty(t, folded)
	src := []byte(md)
	full := folded[0]
	rows := map[string][]string{}
	for r := full.FirstChild().NextSibling(); r != nil; r = r.NextSibling() {
		c := cellTexts(src, r)
		rows[strings.ReplaceAll(c[0], "\u00a0", " ")] = c
	}
	checked := 0
	for _, m := range a.Metrics {
		if m.Family != metric.FamilyControlPlane && m.Family != metric.FamilyPhases {
			continue
		}
		name := m.Label
		if m.Family == metric.FamilyPhases {
			name = m.Name
		}
		if len(m.Aliases) > 0 {
			name += " = " + strings.Join(m.Aliases, " = ")
		}
		if m.Primary {
			name = strings.Replace(name, m.Label, m.Label+" *", 1)
		}
		r, ok := rows[name]
		require.True(t, ok, "row %q in %v", name, rows)
		assert.Equal(t, analysis.Value(m.Arms[journal.Base].Min, m.Kind), r[2], "%s: base is its fastest warm pass", name)
		assert.Equal(t, analysis.Value(m.Arms[journal.Head].Min, m.Kind), r[3], "%s: head is its fastest warm pass", name)
		checked++
	}
	assert.GreaterOrEqual(t, checked, 8, "the Gate stages and the phases")
	assert.Contains(t, md, "each arm's block minimum (its fastest warm pass)")
}

// TestFullTableInline: --full-table puts every row inline, with its unit,
// Δmin, sign and p, where the short table would be.
func TestFullTableInline(t *testing.T) {
	t.Parallel()
	code, md, errText := runCLI("report", campaignJournal, "--format", "markdown", "--full-table")
	require.Equal(t, 0, code, errText)
	code, js, errText := runCLI("report", campaignJournal, "--format", "json")
	require.Equal(t, 0, code, errText)
	var a analysis.Analysis
	require.NoError(t, json.Unmarshal([]byte(js), &a))
	visible, _ := markdownShape(t, md)
	require.Len(t, visible, 1)
	head := visible[0].FirstChild()
	assert.Equal(t, []string{"metric", "unit", "base", "head", "change", "Δ", "95% CI", "Δmin", "Δp90", "p90", "max", "sign", "p", "verdict"}, cellTexts([]byte(md), head))
	rows := 0
	for r := head.NextSibling(); r != nil; r = r.NextSibling() {
		rows++
	}
	assert.Equal(t, len(a.Metrics), rows)
}
