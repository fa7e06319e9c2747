package abreport

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/hbgkit/hbgkit/abtest/analysis"
	"github.com/hbgkit/hbgkit/abtest/journal"
	"github.com/hbgkit/hbgkit/abtest/metric"
	"github.com/hbgkit/hbgkit/internal/document"
)

// The report of a campaign of more than two arms: a verdict line per arm,
// one table of the primary metric with a row per arm, then each arm's
// families of tables against the base (the two-arm tables, their arm
// column naming the arms), the noise per arm, and the method.

// baseName is the name of the base arm of a campaign of more than two.
func (a Report) baseName() string { return a.Header.ArmNames()[journal.Base] }

// otherArms is the number of arms compared with the base.
func (a Report) otherArms() int { return len(a.Comparisons) }

// armHeadlines are the verdict lines of a campaign of more than two arms:
// one per arm (and rank) against the base.
func (a Report) ArmHeadlines() []string {
	names := a.Header.ArmNames()
	var out []string
	for k, c := range a.Comparisons {
		ms := c.PrimaryResults()
		if len(ms) == 0 {
			out = append(out, fmt.Sprintf("NO VERDICT: %s against %s: no primary metric was measured", names[k+1], names[journal.Base]))
		}
		for _, m := range ms {
			out = append(out, a.armHeadline(names[k+1], m))
		}
	}
	return out
}

// armHeadline is the verdict line of one arm's primary row.
func (a Report) armHeadline(name string, m *analysis.MetricResult) string {
	who := fmt.Sprintf("%s against %s: %s", name, a.baseName(), m.Label)
	if m.Error != "" {
		return fmt.Sprintf("NO VERDICT: %s: %s", who, m.Error)
	}
	call := strings.ToUpper(m.Verdict.String())
	switch {
	case m.Verdict.IsSmall():
		call = "SMALL CHANGE"
	case m.Gated:
		call = "INCONCLUSIVE (p)"
	}
	interval := "95% CI " + analysis.Ci(m.CILo, m.CIHi)
	if m.NoInterval != "" {
		interval = m.NoInterval
	}
	more := ""
	if m.Extra > 0 {
		more = fmt.Sprintf("; about %d more rounds would settle it if Δ stayed there", m.Extra)
	}
	return fmt.Sprintf("%s: %s: Δ %s, %s (%d rounds, sign %d/%d, p %s, Holm-adjusted over the %d arms %s)%s",
		call, who, analysis.Pct(m.Delta), interval, m.Rounds, m.SignK, m.SignN, analysis.Pval(m.P), a.otherArms(), analysis.Pval(m.HolmP), more)
}

// armsRule states how the arms' verdicts are reached.
func (a Report) armsRule() string {
	return fmt.Sprintf("Rule: each arm is compared with base %s, paired by round; its verdict is the 95%% CI of Δ against the ±%s margin, "+
		"and faster or slower needs as well the Wilcoxon p of %s, Holm-adjusted over the %d arms, below 0.05.",
		a.baseName(), analysis.AbsPct(a.Margin), a.Primary, a.otherArms())
}

// openArmsDocument starts the report of more than two arms: the arms'
// different work, their verdicts, the rule and whether it is partial.
func (a Report) openArmsDocument() *document.Document {
	d := &document.Document{}
	if l := a.CheckLine(); l != "" {
		d.Add(&document.Paragraph{Text: l})
	}
	names := a.Header.ArmNames()
	for k, c := range a.Comparisons {
		if w := For(c).SameWorkLine(); w != "" {
			d.Add(&document.Paragraph{Text: fmt.Sprintf("%s against %s: %s", names[k+1], names[journal.Base], w)})
		}
	}
	d.Add(&document.Paragraph{Text: strings.Join(a.ArmHeadlines(), "\n")})
	d.Add(&document.Paragraph{Text: a.armsRule()})
	if l := loadLine(&a.Header); l != "" {
		d.Add(&document.Paragraph{Text: l})
	}
	if a.Partial {
		d.Add(&document.Paragraph{Text: fmt.Sprintf("PARTIAL: %d of %d rounds complete; the verdicts cover only those.", a.Complete, a.Planned)})
	}
	return d
}

// ArmsTable is the primary metric's table of a campaign of more than two
// arms: the base's row, then one row per other arm (and rank) with its
// paired results against the base; md keeps the markdown columns (the
// trimmed mean only).
func (a Report) ArmsTable(md bool) *document.Table {
	names := a.Header.ArmNames()
	base := a.Comparisons[0].PrimaryResults()
	if len(base) == 0 {
		return nil
	}
	unit := unitOf(base[0])
	t := &document.Table{
		Title:  fmt.Sprintf("%s, every arm against base %s (per pass, %s; p Holm-adjusted over the %d arms)", base[0].Label, names[journal.Base], unit, a.otherArms()),
		Header: []string{"arm", "metric", "n", "trimmed", "median", "min", "p90", "max", "Δ", "95% CI", For(a.Comparisons[0]).besideHeader(), "Δp90", "sign", "p", "verdict"},
		Align: []document.Align{document.Left, document.Left, document.Right, document.Right, document.Right, document.Right, document.Right, document.Right, document.Right,
			document.Right, document.Right, document.Right, document.Right, document.Right, document.Left},
	}
	row := func(c *analysis.Analysis, name string, m *analysis.MetricResult, arm int) []string {
		s := m.Arms[arm]
		r := []string{name, m.Label, fmt.Sprint(s.N), analysis.Value(s.TrimmedMean, m.Kind), analysis.Value(s.Median, m.Kind), analysis.Value(s.Min, m.Kind),
			analysis.Value(s.P90, m.Kind), analysis.Value(s.Max, m.Kind)}
		if arm == journal.Base {
			return append(r, "", "", "", "", "", "", "base")
		}
		return append(r, analysis.Pct(m.Delta), analysis.Ci(m.CILo, m.CIHi), For(c).beside(m), ceilingCell(m), fmt.Sprintf("%d/%d", m.SignK, m.SignN), analysis.Pval(m.HolmP), shownVerdict(m))
	}
	for _, m := range base {
		t.Rows = append(t.Rows, row(a.Comparisons[0], names[journal.Base], m, journal.Base))
	}
	for k, c := range a.Comparisons {
		for _, m := range c.PrimaryResults() {
			t.Rows = append(t.Rows, row(c, names[k+1], m, journal.Head))
		}
	}
	if md {
		// The markdown table: arm, metric, trimmed, Δ, CI, Δmin (Δmedian
		// under the minimum), sign, p, verdict.
		keep := []int{0, 1, 3, 8, 9, 10, 12, 13, 14}
		t.Header, t.Align = pick(t.Header, keep), pickAlign(t.Align, keep)
		for i, r := range t.Rows {
			t.Rows[i] = pick(r, keep)
		}
		t.Header[2] = "trimmed " + unit
	}
	return t
}

func pick(s []string, idx []int) []string {
	out := make([]string, len(idx))
	for i, k := range idx {
		out[i] = s[k]
	}
	return out
}

func pickAlign(s []document.Align, idx []int) []document.Align {
	out := make([]document.Align, len(idx))
	for i, k := range idx {
		out[i] = s[k]
	}
	return out
}

// armTables are arm k's tables against the base, titled with the arms'
// names and their arm column naming them.
func (a Report) armTables(k int, tables []*document.Table, armCol int) []*document.Table {
	names := a.Header.ArmNames()
	for _, t := range tables {
		title := fmt.Sprintf("%s against %s", names[k+1], names[journal.Base])
		if t.Title != "" {
			title += ": " + t.Title
		}
		t.Title = title
		if armCol < 0 {
			continue
		}
		for _, r := range t.Rows {
			switch r[armCol] {
			case journal.ArmNames[journal.Base]:
				r[armCol] = names[journal.Base]
			case journal.ArmNames[journal.Head]:
				r[armCol] = names[k+1]
			}
		}
	}
	return tables
}

// armLinesN name the arms of a campaign of more than two.
func (a Report) armLinesN() []string {
	var out []string
	for i, x := range a.Header.AllArms {
		role := "arm"
		if i == journal.Base {
			role = "base"
		}
		what := x.Spec
		switch x.Kind {
		case journal.KindGit:
			what = "git " + x.Label()
		case journal.KindCommand:
			what = "command " + x.Spec
		}
		line := fmt.Sprintf("%s %s: %s%s", role, x.Name, what, armLoad(x))
		if len(x.Env) > 0 {
			line += "; env " + strings.Join(x.Env, " ")
		}
		if i > journal.Base {
			if d := specDiff(a.Header.AllArms[journal.Base], x); d != "" {
				line += " (differs from base in " + d + ")"
			}
		}
		out = append(out, line)
	}
	return out
}

// specDiff lists the settings of embedded arm x that differ from base's,
// "" when either is not embedded.
func specDiff(base, x journal.Arm) string {
	if base.Kind != journal.KindEmbedded || x.Kind != journal.KindEmbedded {
		return ""
	}
	b := map[string]string{}
	for _, kv := range strings.Split(strings.TrimPrefix(base.Spec, "embedded:"), ",") {
		k, v, _ := strings.Cut(kv, "=")
		b[k] = v
	}
	var out []string
	for _, kv := range strings.Split(strings.TrimPrefix(x.Spec, "embedded:"), ",") {
		k, v, _ := strings.Cut(kv, "=")
		if b[k] != v {
			out = append(out, kv)
		}
	}
	if len(out) == 0 {
		return "nothing: the same spec"
	}
	return strings.Join(out, ",")
}

// armsNoise is the noise footer of more than two arms: each arm's σ_d and
// MDE against the base, then every arm's lag-1, drift and failures.
func (a Report) armsNoise() []string {
	names := a.Header.ArmNames()
	var out []string
	lag, drift, fails := []string{}, []string{}, []string{}
	for k, c := range a.Comparisons {
		n := c.Noise
		if p := c.PrimaryResult(); p != nil && !math.IsNaN(float64(n.SigmaD)) {
			mde := analysis.AbsPct(float64(n.MDE))
			if math.IsNaN(float64(n.MDE)) {
				mde = "none, " + p.NoInterval
			}
			out = append(out, fmt.Sprintf("noise of %s, %s against %s: σ_d %.1f%% per round; minimum detectable effect at 80%% power in %d rounds: %s",
				p.Label, names[k+1], names[journal.Base], 100*float64(n.SigmaD), p.Rounds, mde))
		}
		if k == 0 {
			lag = append(lag, names[journal.Base]+" "+analysis.Num2(n.Lag1[journal.Base]))
			drift = append(drift, names[journal.Base]+" "+analysis.Pct(n.Drift[journal.Base]))
			fails = append(fails, fmt.Sprintf("%s %d", names[journal.Base], n.Failures[journal.Base]))
		}
		lag = append(lag, names[k+1]+" "+analysis.Num2(n.Lag1[journal.Head]))
		drift = append(drift, names[k+1]+" "+analysis.Pct(n.Drift[journal.Head]))
		fails = append(fails, fmt.Sprintf("%s %d", names[k+1], n.Failures[journal.Head]))
	}
	out = append(out,
		fmt.Sprintf("lag-1 autocorrelation of passes: %s; drift per round: %s", strings.Join(lag, ", "), strings.Join(drift, ", ")),
		fmt.Sprintf("failed blocks: %s; rounds dropped: %d", strings.Join(fails, ", "), a.Noise.Dropped))
	if l := a.CostLine(); l != "" {
		out = append(out, l)
	}
	return out
}

// armsMethod is the method of a campaign of more than two arms: the
// arms, then the two-arm method less its arm lines, and how the arms are
// compared.
func (a Report) armsMethod(md bool) []string {
	c := a.Comparisons[0]
	out := append(a.armLinesN(), For(c).methodLines(md)[len(For(c).armLines()):]...)
	if !md && !For(c).anyGated() && slices.ContainsFunc(a.Comparisons, func(c *analysis.Analysis) bool { return For(c).anyGated() }) {
		out = append(out, a.gatedNote())
	}
	return append(out, fmt.Sprintf("%d arms: each round runs one block of every arm, in the order the schedule draws from the seed for that round; "+
		"each arm is compared with base %s over the rounds, paired by round; the primary metric's p is Holm-adjusted over the %d arms, secondary rows within their family of each comparison",
		len(a.Header.AllArms), a.baseName(), a.otherArms()))
}

// armsDetails is the closing block of method, noise, ruler, host and
// command.
func (a Report) armsDetails(items []string) *document.Details {
	det := &document.Details{Summary: "method, noise, ruler, host and command"}
	det.Blocks = append(det.Blocks, &document.List{Items: append(items, For(a.Comparisons[0]).EnvLines()...)})
	if len(a.Header.Command) > 0 {
		det.Blocks = append(det.Blocks, &document.Code{Text: journal.ShellJoin(a.Header.Command)})
	}
	return det
}

// armsDocument is Document for more than two arms.
func (a Report) armsDocument() *document.Document {
	d := a.openArmsDocument()
	if t := a.ArmsTable(false); t != nil {
		d.Add(t)
	}
	for k, c := range a.Comparisons {
		var ts []*document.Table
		for _, f := range metric.Families() {
			if t := For(c).FamilyTable(f); t != nil {
				ts = append(ts, t)
			}
		}
		for _, t := range a.armTables(k, ts, 2) {
			d.Add(t)
		}
		d.Add(For(c).eventBlocks()...)
	}
	d.Add(&document.List{Items: a.armsNoise()})
	if len(a.Warnings) > 0 {
		d.Add(&document.Paragraph{Text: "warnings:"}, &document.List{Items: a.Warnings})
	}
	d.Add(a.armsDetails(a.armsMethod(false)))
	return d
}

// armsMarkdown is MarkdownDocument for more than two arms.
func (a Report) armsMarkdown() *document.Document {
	d := a.openArmsDocument()
	// What qualifies the verdicts comes before any table, as in a
	// two-arm report: each comparison's qualifiers (the host's load is
	// the same in each, named once) and the warnings.
	var qs []string
	for _, c := range a.Comparisons {
		for _, q := range c.Qualifiers {
			if !slices.Contains(qs, q) {
				qs = append(qs, q)
			}
		}
	}
	warnings, evidence := foldEvidence(a.Warnings, a.Primary.Name)
	d.Add(warningList(qs, warnings)...)
	e := a.Header.Env
	d.Add(&document.Paragraph{Text: fmt.Sprintf("%s; on %s, %d CPUs (host %s)", strings.Join(a.armLinesN(), "; "), orNone(e.CPUModel, "an unrecorded CPU"), e.NCPU, orNone(e.Host, "unrecorded"))})
	if t := a.ArmsTable(true); t != nil {
		d.Add(t)
	}
	var legend []string
	for k, c := range a.Comparisons {
		t, folds := For(c).PRTable()
		if t == nil {
			continue
		}
		t.Header = append([]string(nil), t.Header...)
		t.Header[1], t.Header[2] = a.baseName(), a.Header.ArmNames()[k+1]
		d.Add(a.armTables(k, []*document.Table{t}, -1)[0])
		if len(folds) > 0 {
			d.Add(&document.List{Items: folds})
		}
		if legend == nil {
			legend = For(c).PRLegend(t)
		}
	}
	if legend != nil {
		legend[0] = strings.Replace(legend[0], "base, head: ", "the base's and the arm's columns: ", 1)
		d.Add(&document.Paragraph{Text: strings.Join(legend, "\n") + fmt.Sprintf(
			"\nIn each arm's table the arm is head and %s is base; the first table's p is Holm-adjusted over the %d arms.", a.baseName(), a.otherArms())})
	}
	d.Add(evidence...)
	d.Add(a.armsDetails(append(a.armsNoise(), a.armsMethod(true)...)))
	return d
}

// armsCSV is CSVTables's metrics table for more than two arms: the
// two-arm rows of each comparison, led by the arm compared, their arm
// column naming the arms.
func (a Report) armsCSV(metrics *document.Table) {
	names := a.Header.ArmNames()
	metrics.Header = append([]string{"against_" + names[journal.Base]}, metrics.Header...)
	for k, c := range a.Comparisons {
		one := &document.Table{}
		For(c).csvMetricRows(one)
		for _, r := range one.Rows {
			if r[4] == journal.ArmNames[journal.Base] {
				r[4] = names[journal.Base]
			} else {
				r[4] = names[k+1]
			}
			metrics.Rows = append(metrics.Rows, append([]string{names[k+1]}, r...))
		}
	}
}

// benchfmtMetrics are the metrics the benchfmt lines carry: the
// analysis's, or for more than two arms those of any comparison.
func (a Report) benchfmtMetrics() []analysis.MetricResult {
	if len(a.Comparisons) == 0 {
		return a.Metrics
	}
	var out []analysis.MetricResult
	seen := map[string]bool{}
	for _, c := range a.Comparisons {
		for _, m := range c.Metrics {
			if !seen[m.Name] {
				seen[m.Name] = true
				out = append(out, m)
			}
		}
	}
	return out
}

// benchfmtArms writes benchfmt's configuration lines naming the arms:
// base and head, or for more than two arms the base's name and each
// arm's spec.
func (a Report) benchfmtArms(ew *document.ErrWriter, oneLine func(string) string) {
	h := a.Header
	// An arm of --sweep load= differs from the others only in its load:
	// the line says it after the spec.
	spec := func(x journal.Arm) string {
		if x.Load != nil {
			return oneLine(x.Spec) + " " + x.Sweep
		}
		return oneLine(x.Spec)
	}
	if len(h.AllArms) == 0 {
		ew.Printf("base: %s\n", spec(h.Arms[journal.Base]))
		ew.Printf("head: %s\n", spec(h.Arms[journal.Head]))
		return
	}
	ew.Printf("base: %s\n", h.AllArms[journal.Base].Name)
	for _, x := range h.AllArms {
		ew.Printf("arm-%s: %s\n", x.Name, spec(x))
	}
	ew.Printf("arms: %s\n", strconv.Itoa(len(h.AllArms)))
}
