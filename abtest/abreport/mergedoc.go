package abreport

import (
	"fmt"
	"math"
	"strings"

	"github.com/hbgkit/hbgkit/abtest/analysis"
	"github.com/hbgkit/hbgkit/abtest/journal"
	"github.com/hbgkit/hbgkit/abtest/metric"
	"github.com/hbgkit/hbgkit/internal/document"
)

// The merged report of a campaign's shards (merge.go) in every format.

// Headline is the merged report's first line: what was merged and how.
func (m MergedReport) Headline() string {
	return fmt.Sprintf("MERGED: campaign %s, %d of %d shard(s), %d of %d rounds, stratified by shard (rounds paired within their shard)",
		m.Campaign, len(m.Shards), m.ShardCount, m.Pooled.Complete, m.Pooled.Planned)
}

// ShardTable is one row per shard: its host and card, rounds, and its own
// paired analysis of the primary metric.
func (m MergedReport) ShardTable() *document.Table {
	t := &document.Table{Title: "shards (" + m.primaryLabel() + ", each shard alone)",
		Header: []string{"shard", "host", "card", "rounds", "Δ", "95% CI", "p", "verdict", "weight", "journal"},
		Align: []document.Align{document.Left, document.Left, document.Left, document.Right, document.Right, document.Right, document.Right,
			document.Left, document.Right, document.Left}}
	for _, r := range m.Shards {
		card := r.Shard.Card
		if card == "" {
			card = "-"
		}
		verdict := r.Verdict.String()
		if r.Outlier {
			verdict += " (!)"
		}
		weight := "-"
		if w := float64(r.Weight); !math.IsNaN(w) {
			weight = fmt.Sprintf("%.0f%%", 100*w)
		}
		t.Rows = append(t.Rows, []string{fmt.Sprintf("%d/%d", r.Shard.Index, r.Shard.Count), r.Shard.Host, card,
			fmt.Sprintf("%d/%d", r.Rounds, r.Planned), analysis.Pct(r.Delta), analysis.Ci(r.CILo, r.CIHi), analysis.Pval(r.P), verdict, weight, analysis.ShardName(r)})
	}
	return t
}

func (m MergedReport) primaryLabel() string {
	if p := m.Pooled.PrimaryResult(); p != nil {
		return p.Label
	}
	return m.Pooled.Primary.String()
}

// heterogeneityLine says how far the shards' primary estimates disagree.
func (m MergedReport) heterogeneityLine() string {
	h := m.Heterogeneity
	if math.IsNaN(float64(h.Q)) {
		return "heterogeneity: one shard, none to compare"
	}
	return fmt.Sprintf("heterogeneity of %s over the shards: Cochran's Q %.2f on %d df, p %s, I² %.0f%% ((!) marks a shard whose 95%% CI excludes the pooled Δ)",
		m.primaryLabel(), float64(h.Q), h.DF, analysis.Pval(h.P), 100*float64(h.I2))
}

// methodLines describe the merged analysis.
func (m MergedReport) methodLines() []string {
	c := m.Pooled.Header.Config
	first, trim := For(m.Pooled).coldAndTrim()
	return append(For(m.Pooled).armLines(),
		fmt.Sprintf("%d shard(s) × %d rounds × %d passes per block, %d warm-up block(s) per arm and shard; order %s, campaign seed %d, each shard's schedule from its own seed stream",
			len(m.Shards), c.Rounds, c.Block, c.Warmup, c.Order, m.Journals[0].Header.Shard.CampaignSeed),
		fmt.Sprintf("per pass: %s; block statistic: %s of warm passes; per shard d = ln(head/base) per round", first, c.BlockStat),
		"pooled Δ: "+m.Method+"; p: the pooled t test of Δ = 0 (secondary rows Holm-adjusted within their family)",
		fmt.Sprintf("per-arm columns (descriptive): every shard's warm passes together, trimmed mean dropping %s at each end, median, min, n passes; margin ±%s", trim, analysis.AbsPct(c.Margin)),
		m.heterogeneityLine(),
	)
}

// envLines name each shard's host.
func (m MergedReport) envLines() []string {
	var out []string
	for k, j := range m.Journals {
		e := j.Header.Env
		out = append(out, fmt.Sprintf("shard %s: %s, %d CPUs, kernel %s; load average at start %s; journal %s",
			m.Shards[k].Shard.Label(), e.CPUModel, e.NCPU, e.Kernel, e.LoadAvg, m.Shards[k].Journal))
	}
	return append(out, rulerLine(&m.Pooled.Header), version(&m.Pooled.Header))
}

func (m MergedReport) open() *document.Document {
	d := &document.Document{}
	if l := For(m.Pooled).CheckLine(); l != "" {
		d.Add(&document.Paragraph{Text: l})
	}
	d.Add(&document.Paragraph{Text: m.Headline()})
	for _, h := range For(m.Pooled).Headlines() {
		d.Add(&document.Paragraph{Text: "pooled: " + h})
	}
	if p := cpusLine(&m.Pooled.Header); p != "" {
		d.Add(&document.Paragraph{Text: p})
	}
	if m.Pooled.Partial {
		d.Add(&document.Paragraph{Text: fmt.Sprintf("PARTIAL: %d of %d rounds complete; the verdict covers only those.", m.Pooled.Complete, m.Pooled.Planned)})
	}
	// What qualifies the pooled verdict (a sick shard, the shards
	// disagreeing) is read before any table, as a campaign's warnings are.
	d.Add(warningList(m.Warnings)...)
	d.Add(m.ShardTable())
	return d
}

func (m MergedReport) details(md bool) *document.Details {
	det := &document.Details{Summary: "method, shards, ruler and command"}
	det.Blocks = append(det.Blocks, &document.List{Items: append(m.methodLines(), m.envLines()...)})
	if len(m.Pooled.Header.Command) > 0 {
		det.Blocks = append(det.Blocks, &document.Code{Text: journal.ShellJoin(m.Pooled.Header.Command)})
	}
	return det
}

// Document is the merged text report: what was merged, the pooled
// verdict, the shard table, the pooled metric tables, warnings and the
// method.
func (m MergedReport) Document() *document.Document {
	d := m.open()
	for _, f := range metric.Families() {
		if t := For(m.Pooled).FamilyTable(f); t != nil {
			d.Add(t)
		}
	}
	d.Add(m.details(false))
	return d
}

// MarkdownDocument is the merged report for a pull request.
func (m MergedReport) MarkdownDocument() *document.Document {
	d := m.open()
	r := For(m.Pooled)
	if t, folds := r.PRTable(); t != nil {
		d.Add(t)
		if len(folds) > 0 {
			d.Add(&document.List{Items: folds})
		}
		d.Add(&document.Paragraph{Text: strings.Join(r.PRLegend(t), "\n")})
	}
	if all := r.FullTable(); all != nil {
		d.Add(&document.Details{Summary: fmt.Sprintf("full table: all %d pooled rows, with sign and p", len(all.Rows)), Blocks: []document.Block{all}})
	}
	d.Add(m.details(true))
	return d
}

// CSVTables are the merged csv report: the shards, the pooled metrics (one
// row per metric and arm, as a campaign's) and every counted pass with
// its shard.
func (m MergedReport) CSVTables() []*document.Table {
	f := func(x journal.Num) string {
		if math.IsNaN(float64(x)) {
			return ""
		}
		return fmt.Sprint(float64(x))
	}
	sh := &document.Table{Title: "shards", Header: []string{"shard", "count", "campaign", "host", "card", "planned", "rounds",
		"delta", "ci_lo", "ci_hi", "p", "verdict", "weight", "outlier", "journal"}}
	for _, r := range m.Shards {
		sh.Rows = append(sh.Rows, []string{fmt.Sprint(r.Shard.Index), fmt.Sprint(r.Shard.Count), r.Shard.Campaign, r.Shard.Host, r.Shard.Card,
			fmt.Sprint(r.Planned), fmt.Sprint(r.Rounds), f(r.Delta), f(r.CILo), f(r.CIHi), f(r.P), r.Verdict.String(), f(r.Weight), fmt.Sprint(r.Outlier), r.Journal})
	}
	metrics := For(m.Pooled).CSVTables(&journal.Journal{})[0]
	passes := &document.Table{Title: "passes", Header: []string{"shard", "round", "arm", "pid", "inv", "cold", "metric", "ns"}}
	for k, j := range m.Journals {
		for _, cb := range j.Counted() {
			b := cb.Block
			for _, p := range b.Passes {
				for _, mi := range metric.PassMetrics(p) {
					if v, ok := p.Values[mi.Name]; ok {
						passes.Rows = append(passes.Rows, []string{fmt.Sprint(m.Shards[k].Shard.Index), fmt.Sprint(b.Round), journal.ArmNames[cb.Arm],
							fmt.Sprint(p.Pid), fmt.Sprint(p.Inv), fmt.Sprint(p.Cold), mi.Name, fmt.Sprint(v)})
					}
				}
			}
		}
	}
	return []*document.Table{sh, metrics, passes}
}

// Redacted returns a copy without host names, absolute paths or --env
// values (Analysis.Redacted), the shards' hosts included.
func RedactedMerged(m *analysis.Merged) *analysis.Merged {
	c := *m
	var hosts []string
	for k, r := range m.Shards {
		hosts = append(hosts, r.Shard.Host, m.Journals[k].Header.Env.Host)
	}
	r := newRedactor(hosts...).envSecrets(&m.Pooled.Header)
	c.Pooled = Redacted(m.Pooled)
	c.Pooled.Header.Shards = r.strs(c.Pooled.Header.Shards)
	c.Pooled.Warnings = r.strs(c.Pooled.Warnings)
	c.Warnings = r.strs(m.Warnings)
	c.Shards = append([]analysis.ShardRow(nil), m.Shards...)
	c.Journals = nil
	for k := range c.Shards {
		s := &c.Shards[k]
		s.Shard.Host = RedactedHost
		s.Journal = r.str(s.Journal)
		j := *m.Journals[k]
		j.Header.Env.Host = RedactedHost
		j.Path = s.Journal
		c.Journals = append(c.Journals, &j)
	}
	return &c
}
