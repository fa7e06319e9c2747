package abreport

import (
	"cmp"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/hbgkit/hbgkit/abtest/analysis"
	"github.com/hbgkit/hbgkit/abtest/journal"
	"github.com/hbgkit/hbgkit/abtest/metric"
	"github.com/hbgkit/hbgkit/abtest/stats"
	"github.com/hbgkit/hbgkit/internal/document"
)

// MaxPRRows is the most rows the table for a pull request shows; the rest
// of what changed is named under it and the full table is one click away.
const MaxPRRows = 15

// prHeader is the header of the table for a pull request: its change
// cell carries the row's unit, so that the table has no unit column and
// fits a pull request's column. fullHeader is the full table's, which
// has one.
var (
	prHeader   = []string{"metric", "base", "head", "change", "Δ", "95% CI", "verdict"}
	prAlign    = []document.Align{document.Left, document.Right, document.Right, document.Right, document.Right, document.Right, document.Left}
	fullHeader = []string{"metric", "unit", "base", "head", "change", "Δ", "95% CI"}
	fullAlign  = []document.Align{document.Left, document.Left, document.Right, document.Right, document.Right, document.Right, document.Right}
)

// A rowClass is what a row of the analysis says, for the table for a pull
// request.
type rowClass int

const (
	classChanged rowClass = iota // a change called beyond the margin, or a count that moved
	classInconclusive
	classSmall    // a real change inside the margin
	classNoChange // within the margin, or a count that did not move
	classSameWork // a work count identical on every warm pass of both arms
	classSameAttr // an open attribute identical on every warm pass of both arms
	classPerOp    // a per-op row that moved as its total
)

// classOf returns what row m says.
func classOf(m *analysis.MetricResult) rowClass {
	switch {
	case m.Family == metric.FamilyWork && m.Constant:
		return classSameWork
	case m.Family == metric.FamilyAttrs && m.Constant:
		return classSameAttr
	case m.Verdict.IsChange():
		return classChanged
	case m.Verdict.IsSmall():
		return classSmall
	case !m.Verdict.NA && m.Verdict.Call == stats.NoChange:
		return classNoChange
	case noDelta(m):
		if levelsDiffer(m) && m.SignN > 0 && m.SignK == m.SignN && float64(m.SignP) < stats.Alpha {
			return classChanged
		}
		return classNoChange
	}
	return classInconclusive
}

// noDelta reports whether m has no paired or unpaired Δ of its own (a
// count that was 0 in a block has no logarithm).
func noDelta(m *analysis.MetricResult) bool {
	return math.IsNaN(float64(m.Delta)) && m.LevelOf == analysis.LevelMean
}

// levelsDiffer reports whether m's arms' levels differ as the table
// prints them.
func levelsDiffer(m *analysis.MetricResult) bool {
	return analysis.Value(m.Level[journal.Base], m.Kind) != analysis.Value(m.Level[journal.Head], m.Kind)
}

// rowDelta is the Δ a row of the table prints: the analysis's, or for a
// row with no Δ of its own the ratio of its levels, so that head/base − 1
// always has its sign.
func rowDelta(m *analysis.MetricResult) journal.Num {
	if !noDelta(m) {
		return m.Delta
	}
	b, h := float64(m.Level[journal.Base]), float64(m.Level[journal.Head])
	if !(b > 0) || math.IsNaN(h) {
		return journal.Num(math.NaN())
	}
	return journal.Num(h/b - 1)
}

// rowName is a row's metric cell: its label (phase rows by their metric
// name), * on a primary row, and its aliases when short enough not to
// widen the table (the full table names them all).
func rowName(m *analysis.MetricResult, full bool) string {
	name := m.Label
	if i := strings.Index(name, " ("); !full && i > 0 && strings.HasSuffix(name, ")") {
		// "bind thread minor faults (tminflt)": the short table names the
		// quantity; the full table adds the metric's name.
		name = name[:i]
	}
	if m.Family == metric.FamilyPhases {
		name = m.Name
	}
	if m.Primary {
		name += " *"
	}
	if full {
		return name + aliasNote(m)
	}
	if a := aliasNote(m); utf8.RuneCountInString(name+a) <= 22 {
		name += a
	}
	if utf8.RuneCountInString(name) <= 26 {
		// A short name stays on one line; a long one may wrap at its
		// spaces rather than widen the table past the column.
		name = nbsp(name)
	}
	return name
}

// nbsp keeps a cell of the table for a pull request on one line: its
// spaces become no-break spaces, so a narrow column never splits "µs CPU"
// or "inconclusive (p)" over two lines.
func nbsp(s string) string { return strings.ReplaceAll(s, " ", "\u00a0") }

// shortValue is a level as the short table prints it: a tenth is noise
// on 10 ms and more, so from 10000 on it is left out and the column stays
// narrow when a loaded machine stretches the binds.
func shortValue(x journal.Num, k metric.MetricKind) string {
	if f := float64(x); math.Abs(f) >= 10000 && !math.IsInf(f, 0) {
		return analysis.Fixed(f, 0, false)
	}
	return analysis.Value(x, k)
}

// change is head − base in the row's unit, signed; "-" when a level is
// unknown.
func change(m *analysis.MetricResult) string {
	b, h := float64(m.Level[journal.Base]), float64(m.Level[journal.Head])
	if math.IsNaN(b) || math.IsNaN(h) {
		return "-"
	}
	d := h - b
	s := analysis.Value(journal.Num(math.Abs(d)), m.Kind)
	switch {
	case s == analysis.Value(0, m.Kind):
		return s
	case d < 0:
		return "-" + s
	}
	return "+" + s
}

// ciCell is a 95% CI in one unbreakable cell: "-95.2…-94.5%", or
// "×57.2…×68.3" when both bounds are a doubling or more.
func ciCell(lo, hi journal.Num) string {
	if math.IsNaN(float64(lo)) || math.IsNaN(float64(hi)) {
		return "-"
	}
	if float64(lo) >= 1 {
		return timesCell(lo) + wj + "…" + wj + timesCell(hi)
	}
	return strings.TrimSuffix(boundCell(lo), "%") + wj + "…" + wj + boundCell(hi)
}

// boundCell is a bound of an interval that is not all doublings: whole
// percents from +100% on, where a tenth only widens the column.
func boundCell(x journal.Num) string {
	if f := float64(x); f >= 1 && !math.IsInf(f, 0) {
		return analysis.Fixed(100*f, 0, true) + "%"
	}
	return analysis.Pct(x)
}

// wj is the word joiner (U+2060): no line break on either side of the
// interval's ellipsis.
const wj = "\u2060"

// pctCell is a Δ as the table for a pull request prints it: a percentage
// with one decimal below +100% ("-94.8%"), and from a doubling on the
// factor head is of base ("×63.0"), which reads at a glance where
// "+6203.2%" does not and keeps the column narrow.
func pctCell(x journal.Num) string {
	if f := float64(x); f >= 1 && !math.IsInf(f, 0) {
		return timesCell(x)
	}
	return analysis.Pct(x)
}

// timesCell is 1 + x as a factor: "×2.6", "×154".
func timesCell(x journal.Num) string {
	k := 1 + float64(x)
	if k >= 100 {
		return "×" + analysis.Fixed(k, 0, false)
	}
	return "×" + analysis.Fixed(k, 1, false)
}

// verdictCell is a row's verdict as the table for a pull request prints
// it: the analysis's word, or for a count with no Δ on how many warm
// passes it was above 0 (1390 → 0 reads "180→0 of 180"), never "n/a".
func verdictCell(m *analysis.MetricResult) string {
	if noDelta(m) {
		if len(m.NonZero) == 2 && m.Arms[journal.Base].N == m.Arms[journal.Head].N {
			return fmt.Sprintf("%d→%d of %d", m.NonZero[journal.Base], m.NonZero[journal.Head], m.Arms[journal.Base].N)
		}
		if len(m.NonZero) == 2 {
			return fmt.Sprintf("%d of %d→%d of %d", m.NonZero[journal.Base], m.Arms[journal.Base].N, m.NonZero[journal.Head], m.Arms[journal.Head].N)
		}
		return "-"
	}
	if m.Error != "" || m.Verdict.NA {
		return "no verdict"
	}
	return shownVerdict(m)
}

// prRow is the table-for-a-pull-request row of m.
func prRow(m *analysis.MetricResult, full bool) []string {
	d := rowDelta(m)
	ci := ciCell(m.CILo, m.CIHi)
	if noDelta(m) {
		ci = "-"
	}
	dc := pctCell(d)
	if lo := float64(m.CILo); !noDelta(m) && !(lo >= 1) && float64(d) >= 1 {
		// The interval is in percent (its lower bound is below a
		// doubling): Δ reads in percent beside it, not as a factor.
		dc = boundCell(d)
	}
	base, head := analysis.Value(m.Level[journal.Base], m.Kind), analysis.Value(m.Level[journal.Head], m.Kind)
	if full {
		return []string{rowName(m, full), unitOf(m), base, head, change(m), dc, ci, nbsp(verdictCell(m))}
	}
	base, head = shortValue(m.Level[journal.Base], m.Kind), shortValue(m.Level[journal.Head], m.Kind)
	ch := change(m)
	if d := float64(m.Level[journal.Head] - m.Level[journal.Base]); math.Abs(d) >= 10000 {
		ch = analysis.Fixed(d, 0, true)
	}
	if u := unitOf(m); ch != "-" && m.Kind != metric.KindCount {
		ch += " " + u
	}
	return []string{rowName(m, full), base, head, nbsp(ch), dc, ci, nbsp(verdictCell(m))}
}

// perOpMovedAsTotal reports whether m is a per-op row whose Δ is its
// total's: the op counts were the same, so the row says nothing its total
// does not.
func perOpMovedAsTotal(m *analysis.MetricResult, ms []analysis.MetricResult) bool {
	total, ok := strings.CutSuffix(m.Name, ".per_op")
	if !ok {
		return false
	}
	i := slices.IndexFunc(ms, func(x analysis.MetricResult) bool { return x.Name == total })
	if i < 0 {
		return false
	}
	t := &ms[i]
	return math.Abs(float64(t.Delta)-float64(m.Delta)) < 0.0005 && classOf(t) == classOf(m)
}

// tier orders the rows that may show in the table for a pull request: the
// primary, then the Gate stages a reader of this runtime always wants,
// then counts that moved, the host wall, and the rest by the size of
// their change.
func tier(m *analysis.MetricResult) int {
	switch {
	case m.Primary:
		return 0
	case m.Family == metric.FamilyControlPlane:
		return 1
	case m.Kind == metric.KindCount:
		return 2
	case m.Family == metric.FamilyHost:
		return 3
	}
	return 4
}

// A prPlan is which rows the table for a pull request shows and what the
// sentences under it fold.
type prPlan struct {
	rows  []*analysis.MetricResult // in the order of the full table
	folds []string
}

// plan decides the table for a pull request: every primary row; the Gate
// stages and other rows that changed or are inconclusive up to MaxPRRows;
// and one sentence each for what else changed, what changed inside the
// margin, what did not change, what is inconclusive, the identical work
// counts and the per-op rows that moved as their totals.
func (a Report) plan() prPlan {
	var cand []*analysis.MetricResult
	var small, same, inconclusive, also []string
	work, attrs, perOp := 0, 0, 0
	ms := a.Metrics
	for i := range ms {
		m := &ms[i]
		c := classOf(m)
		switch {
		case m.Primary:
			cand = append(cand, m)
		case c == classSameWork:
			work++
		case c == classSameAttr:
			attrs++
		case perOpMovedAsTotal(m, ms):
			perOp++
		case c == classChanged:
			cand = append(cand, m)
		case c == classInconclusive && m.Family == metric.FamilyControlPlane:
			cand = append(cand, m)
		case c == classInconclusive:
			inconclusive = append(inconclusive, fmt.Sprintf("%s %s", rowName(m, false), analysis.Pct(m.Delta)))
		case c == classSmall:
			small = append(small, fmt.Sprintf("%s %s", rowName(m, false), analysis.Pct(m.Delta)))
		default:
			same = append(same, rowName(m, false))
		}
	}
	order := slices.Clone(cand)
	slices.SortStableFunc(order, func(x, y *analysis.MetricResult) int {
		if c := cmp.Compare(tier(x), tier(y)); c != 0 {
			return c
		}
		if tier(x) < 4 {
			return 0
		}
		return cmp.Compare(math.Abs(float64(rowDelta(y))), math.Abs(float64(rowDelta(x))))
	})
	keep := map[*analysis.MetricResult]bool{}
	for i, m := range order {
		if i < MaxPRRows || m.Primary {
			keep[m] = true
		} else {
			also = append(also, fmt.Sprintf("%s %s", rowName(m, false), analysis.Pct(rowDelta(m))))
		}
	}
	var p prPlan
	for _, m := range cand {
		if keep[m] {
			p.rows = append(p.rows, m)
		}
	}
	margin := analysis.AbsPct(a.Margin)
	if len(also) > 0 {
		p.folds = append(p.folds, fmt.Sprintf("also changed (in the full table): %s", strings.Join(also, ", ")))
	}
	switch {
	case len(inconclusive) > 0 && a.Design == analysis.DesignDescriptive:
		p.folds = append(p.folds, fmt.Sprintf("described, with no interval (one log on an arm): %s", strings.Join(inconclusive, ", ")))
	case len(inconclusive) > 0:
		p.folds = append(p.folds, fmt.Sprintf("inconclusive, the CI straddles the ±%s margin: %s", margin, strings.Join(inconclusive, ", ")))
	}
	if len(small) > 0 {
		p.folds = append(p.folds, fmt.Sprintf("a real change inside the ±%s margin: %s", margin, strings.Join(small, ", ")))
	}
	if len(same) > 0 {
		p.folds = append(p.folds, fmt.Sprintf("no change: %s", strings.Join(same, ", ")))
	}
	if work > 0 {
		p.folds = append(p.folds, fmt.Sprintf("same work: %s identical on every warm pass of both arms", plural(work, "count")))
	}
	if attrs > 0 {
		p.folds = append(p.folds, fmt.Sprintf("other attributes: %s identical on every warm pass of both arms (in the full table)", plural(attrs, "value")))
	}
	if perOp > 0 {
		p.folds = append(p.folds, fmt.Sprintf("per op: %s moved as their totals (the op counts were the same)", plural(perOp, "per-op row")))
	}
	return p
}

// PRTable returns the table for a pull request: one line per row that
// changed, is inconclusive on a Gate stage, or is primary (MaxPRRows at
// most), with each arm's level Δ is computed on, the change in the row's
// unit, Δ, its 95% CI and the verdict; and the sentences that fold the
// rest. nil when no metric was analysed.
func (a Report) PRTable() (*document.Table, []string) {
	p := a.plan()
	if len(p.rows) == 0 {
		return nil, p.folds
	}
	t := &document.Table{Header: prHeader, Align: prAlign}
	for _, m := range p.rows {
		t.Rows = append(t.Rows, prRow(m, false))
	}
	return t, p.folds
}

// FullTable returns every row in the columns of the table for a pull
// request, with Δmin (or, when the verdict is on block minima, Δmedian),
// sign and p beside them: the table for the record.
func (a Report) FullTable() *document.Table {
	header := append(slices.Clone(fullHeader), a.besideHeader(), "Δp90", "p90", "max", "sign", "p", "verdict")
	align := append(slices.Clone(fullAlign), document.Right, document.Right, document.Right, document.Right, document.Right, document.Right, document.Left)
	t := &document.Table{Header: header, Align: align}
	for _, f := range metric.Families() {
		for i := range a.Metrics {
			m := &a.Metrics[i]
			if m.Family != f {
				continue
			}
			r := prRow(m, true)
			sign := "-"
			if m.SignN > 0 {
				sign = fmt.Sprintf("%d/%d", m.SignK, m.SignN)
			}
			t.Rows = append(t.Rows, append(r[:len(r)-1:len(r)-1], a.beside(m), ceilingCell(m), ceilingArms(m, m.Arms[0].P90, m.Arms[1].P90), ceilingArms(m, m.Arms[0].Max, m.Arms[1].Max),
				sign, analysis.Pval(shownP(m)), r[len(r)-1]))
		}
	}
	if len(t.Rows) == 0 {
		return nil
	}
	return t
}

// levelWords says what base and head are in the table.
func (a Report) levelWords() string {
	c := a.Header.Config
	stat := map[journal.BlockStat]string{journal.BlockMin: "block minimum (its fastest warm pass)", journal.BlockMedian: "block median", journal.BlockMean: "block mean"}[c.BlockStat]
	if stat == "" {
		stat = "block " + string(c.BlockStat)
	}
	switch a.Design {
	case analysis.DesignStratified:
		return fmt.Sprintf("each arm's %s over the rounds each shard's Δ keeps, pooled over the shards with the weights Δ is pooled with, so head/base − 1 is Δ", stat)
	case analysis.DesignDescriptive:
		return fmt.Sprintf("each arm's %s (over several logs, their trimmed geometric mean), whose ratio is Δ", stat)
	case analysis.DesignUnpaired:
		return fmt.Sprintf("each arm's 20%%-trimmed geometric mean of its logs' %s, whose ratio is Δ", stat)
	}
	return fmt.Sprintf("each arm's %s, geometric mean over the rounds Δ keeps, so head/base − 1 is Δ", stat)
}

// passesRE matches a verdict cell of a count with no Δ.
var passesRE = regexp.MustCompile(`\d+(\x{a0}of\x{a0}\d+)?→\d+\x{a0}of\x{a0}\d+`)

// PRLegend says what the table for a pull request's columns and marks are,
// in at most three lines, and only those the table uses.
func (a Report) PRLegend(t *document.Table) []string {
	used := func(s string) bool {
		for _, r := range t.Rows {
			if slices.ContainsFunc(r, func(c string) bool { return strings.Contains(strings.ReplaceAll(c, "\u00a0", " "), s) }) {
				return true
			}
		}
		return false
	}
	first := fmt.Sprintf("base, head: %s; change: head − base, in the row's unit (a count's is plain).", a.levelWords())
	var second string
	switch a.Design {
	case analysis.DesignDescriptive:
		second = "Δ: head/base − 1; no 95% CI and no verdict (one log on an arm)."
	case analysis.DesignUnpaired:
		second = fmt.Sprintf("Δ, 95%% CI: head against base over unpaired logs (Yuen's trimmed t); verdict: the CI against the ±%s margin.", analysis.AbsPct(a.Margin))
	case analysis.DesignStratified:
		second = fmt.Sprintf("Δ, 95%% CI: the shards' paired Δ pooled with inverse-variance weights (t on the summed df) over %d rounds; verdict: the CI against the ±%s margin.", a.Complete, analysis.AbsPct(a.Margin))
	default:
		second = fmt.Sprintf("Δ, 95%% CI: head against base, 20%%-trimmed over %d paired rounds (trimmed t); verdict: the CI against the ±%s margin.", a.Complete, analysis.AbsPct(a.Margin))
	}
	var third []string
	if used(" *") {
		third = append(third, "*: the primary metric, the headline's")
	}
	if used("bounded") && a.Sequential != nil {
		third = append(third, fmt.Sprintf("bounded: --until-decided stopped for no change: its 90%% repeated CI lies within ±%s, which rules out a change of that size, not a smaller one", analysis.AbsPct(float64(a.Sequential.StopWithin))))
	}
	if used("(p)") {
		third = append(third, "(p): the CI clears the margin but the Holm-adjusted Wilcoxon p is not below 0.05, which a secondary row also needs")
	}
	if slices.ContainsFunc(t.Rows, func(r []string) bool {
		return slices.ContainsFunc(r, func(c string) bool { return strings.HasPrefix(c, "×") })
	}) {
		third = append(third, "×k: head is k times base (a Δ of +100% or more)")
	}
	if passesRE.MatchString(strings.Join(slices.Concat(t.Rows...), "\n")) {
		third = append(third, "k→k of N: warm passes on which the count was above 0, base → head (a count that was 0 has no Δ interval)")
	}
	out := []string{first, second}
	if len(third) > 0 {
		out = append(out, strings.Join(third, "; ")+".")
	}
	return out
}

// RoundsTable is the primary metric round by round: each arm's block
// statistic, ln(head/base) and its sign; nil when nothing paired.
func (a Report) RoundsTable() *document.Table {
	p := a.PrimaryResult()
	if p == nil || len(a.RoundTable) == 0 {
		return nil
	}
	unit := unitOf(p)
	t := &document.Table{Title: fmt.Sprintf("%s by round (block %s, %s)", p.Label, a.Header.Config.BlockStat, unit),
		Header: []string{"round", "base", "head", "ln(head/base)", "sign"},
		Align:  []document.Align{document.Right, document.Right, document.Right, document.Right, document.Left}}
	for _, r := range a.RoundTable {
		sign := "0"
		switch lr := float64(r.LogRatio); {
		case math.IsNaN(lr):
			sign = "-"
		case lr > 0:
			sign = "+"
		case lr < 0:
			sign = "−"
		}
		t.Rows = append(t.Rows, []string{fmt.Sprint(r.Round), analysis.Value(r.Stat[journal.Base], p.Kind), analysis.Value(r.Stat[journal.Head], p.Kind),
			analysis.Num2(r.LogRatio) + fmt.Sprintf(" (%s)", analysis.Pct(journal.Num(math.Expm1(float64(r.LogRatio))))), sign})
	}
	return t
}

// plural is "1 count", "11 counts"; "1 failed try", "2 failed tries".
func plural(n int, word string) string {
	switch {
	case n == 1:
		return "1 " + word
	case strings.HasSuffix(word, "ry"):
		return fmt.Sprintf("%d %sies", n, strings.TrimSuffix(word, "y"))
	}
	return fmt.Sprintf("%d %ss", n, word)
}
