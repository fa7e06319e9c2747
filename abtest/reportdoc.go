package abtest

import (
	"fmt"
	"math"
	"strings"

	"github.com/hbgkit/hbgkit/internal/report"
)

// pct formats a relative change as a signed percentage: "+3.1%".
func pct(x Num) string {
	f := float64(x)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "-"
	}
	return fmt.Sprintf("%+.1f%%", 100*f)
}

// absPct formats the size of a relative change: "3.1%".
func absPct(x float64) string { return fmt.Sprintf("%.1f%%", 100*math.Abs(x)) }

func us(x Num) string {
	f := float64(x)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return "-"
	}
	return fmt.Sprintf("%.1f", f)
}

func pval(x Num) string {
	f := float64(x)
	switch {
	case math.IsNaN(f):
		return "-"
	case f < 0.001:
		return "<0.001"
	}
	return fmt.Sprintf("%.3f", f)
}

func ci(lo, hi Num) string {
	if math.IsNaN(float64(lo)) || math.IsNaN(float64(hi)) {
		return "-"
	}
	return "[" + pct(lo) + ", " + pct(hi) + "]"
}

// Headline returns the one-line verdict on the primary metric.
func (a *Analysis) Headline() string {
	m := a.PrimaryResult()
	if m == nil {
		return "no verdict: no primary metric was measured"
	}
	if m.Error != "" {
		return fmt.Sprintf("%s: no verdict: %s", m.Label, m.Error)
	}
	d, lo, hi := float64(m.Delta), float64(m.CILo), float64(m.CIHi)
	facts := fmt.Sprintf("%d rounds, sign %d/%d, p=%s", m.Rounds, m.SignK, m.SignN, pval(m.P))
	if a.AA && a.Header.Artifact != "" && a.Header.Arms[Base].Sha != a.Header.Arms[Head].Sha {
		return fmt.Sprintf("A/A (identical binaries): no change can be claimed, %s; %s measured Δ %s, 95%% CI %s (%s)",
			a.AAReason, m.Label, pct(m.Delta), ci(m.CILo, m.CIHi), facts)
	}
	switch m.Verdict {
	case "faster":
		return fmt.Sprintf("FASTER: %s: head takes %s less time than base (95%% CI %s to %s less; %s)",
			m.Label, absPct(d), absPct(hi), absPct(lo), facts)
	case "slower":
		return fmt.Sprintf("SLOWER: %s: head takes %s more time than base (95%% CI %s to %s more; %s)",
			m.Label, absPct(d), absPct(lo), absPct(hi), facts)
	case "no change":
		return fmt.Sprintf("NO CHANGE: %s: Δ %s, its 95%% CI %s lies within the ±%s margin (%s)",
			m.Label, pct(m.Delta), ci(m.CILo, m.CIHi), absPct(a.Margin), facts)
	case "~ small":
		return fmt.Sprintf("SMALL CHANGE: %s: Δ %s (95%% CI %s), real but inside the ±%s margin (%s)",
			m.Label, pct(m.Delta), ci(m.CILo, m.CIHi), absPct(a.Margin), facts)
	}
	more := "more rounds would settle it"
	if m.Extra > 0 {
		more = fmt.Sprintf("about %d more rounds would settle it if Δ stayed there", m.Extra)
	}
	return fmt.Sprintf("INCONCLUSIVE: %s: Δ %s, 95%% CI %s straddles the ±%s margin; %s (%s)",
		m.Label, pct(m.Delta), ci(m.CILo, m.CIHi), absPct(a.Margin), more, facts)
}

// familyTitles are the table titles of the metric families.
var familyTitles = map[string]string{
	FamilyControlPlane: "HBG bind accounting (per pass, µs)",
	FamilyPhases:       "bind phases (per pass, µs)",
	FamilyHost:         "host wall (per pass, µs)",
}

var resultHeader = []string{"metric", "arm", "n", "trimmed", "median", "min", "Δ", "95% CI", "Δmin", "sign", "p", "verdict"}

var resultAlign = []report.Align{report.Left, report.Left, report.Right, report.Right, report.Right,
	report.Right, report.Right, report.Right, report.Right, report.Right, report.Right, report.Left}

// FamilyTable returns the table of one metric family: two rows per metric
// (base, head), the paired results on the head row. nil when the family
// has no metric.
func (a *Analysis) FamilyTable(family string) *report.Table {
	t := &report.Table{Title: familyTitles[family], Header: resultHeader, Align: resultAlign, Merge: []int{0}}
	for _, m := range a.Metrics {
		if m.Family != family {
			continue
		}
		name := m.Label
		if m.Primary {
			name += " *"
		}
		for arm := range 2 {
			s := m.Arms[arm]
			row := []string{name, armNames[arm], fmt.Sprint(s.N), us(s.TrimmedMean), us(s.Median), us(s.Min)}
			if arm == Base {
				row = append(row, "", "", "", "", "", "")
			} else {
				sign := "-"
				if m.SignN > 0 || m.Rounds > 0 {
					sign = fmt.Sprintf("%d/%d", m.SignK, m.SignN)
				}
				p := m.P
				if !m.Primary {
					p = m.HolmP
				}
				verdict := m.Verdict
				if m.Gated {
					verdict += " (p)"
				}
				row = append(row, pct(m.Delta), ci(m.CILo, m.CIHi), pct(m.DeltaMin), sign, pval(p), verdict)
			}
			t.Rows = append(t.Rows, row)
		}
	}
	if len(t.Rows) == 0 {
		return nil
	}
	return t
}

// NoiseLines returns the noise footer.
func (a *Analysis) NoiseLines() []string {
	n := a.Noise
	var out []string
	if p := a.PrimaryResult(); p != nil && !math.IsNaN(float64(n.SigmaD)) {
		out = append(out, fmt.Sprintf("noise of %s: σ_d %.1f%% per round; minimum detectable effect at 80%% power in %d rounds: %s",
			p.Label, 100*float64(n.SigmaD), p.Rounds, absPct(float64(n.MDE))))
		if float64(n.MDE) > a.Margin && n.RoundsForMargin > 0 {
			out = append(out, fmt.Sprintf("a change smaller than about %s cannot be told from noise here; resolving the ±%s margin would take about %d rounds",
				absPct(float64(n.MDE)), absPct(a.Margin), n.RoundsForMargin))
		}
	}
	out = append(out, fmt.Sprintf("lag-1 autocorrelation of passes: base %s, head %s; drift per round: base %s, head %s",
		num2(n.Lag1[Base]), num2(n.Lag1[Head]), pct(n.Drift[Base]), pct(n.Drift[Head])))
	out = append(out, fmt.Sprintf("failed blocks: base %d, head %d; rounds dropped: %d", n.Failures[Base], n.Failures[Head], n.Dropped))
	if a.AA {
		out = append(out, "A/A: "+a.AAReason)
	}
	return out
}

func num2(x Num) string {
	if math.IsNaN(float64(x)) {
		return "-"
	}
	return fmt.Sprintf("%.2f", float64(x))
}

// MethodLines describes how the campaign ran and was analysed.
func (a *Analysis) MethodLines() []string {
	h, c := a.Header, a.Header.Config
	first := fmt.Sprintf("the first %d (cold) passes of each pid dropped", c.Cold)
	if c.Cold == 0 {
		first = "every pass kept (--keep-first)"
	}
	trim := "20% of each arm's passes"
	if c.Trim >= 0 {
		trim = fmt.Sprintf("%d passes", c.Trim)
	}
	return []string{
		fmt.Sprintf("base: %s", h.Arms[Base].Label()),
		fmt.Sprintf("head: %s", h.Arms[Head].Label()),
		fmt.Sprintf("%d of %d rounds × %d passes per block, %d warm-up block(s) per arm; order %s, seed %d", a.Complete, a.Planned, c.Block, c.Warmup, c.Order, h.Schedule.Seed),
		fmt.Sprintf("per pass: %s; block statistic: %s of warm passes; Δ = exp(20%%-trimmed mean of ln(head/base)) − 1 with a trimmed-t 95%% CI; p: Wilcoxon signed-rank (phase rows Holm-adjusted)", first, c.BlockStat),
		fmt.Sprintf("per-arm columns (descriptive): trimmed mean dropping %s at each end, median, min, n passes; margin ±%s", trim, absPct(c.Margin)),
		fmt.Sprintf("primary metric: %s (* in the tables); Δmin: the same paired analysis on block minima", h.Primary),
	}
}

// EnvLines describe the host and the ruler.
func (a *Analysis) EnvLines() []string {
	e := a.Header.Env
	return []string{
		fmt.Sprintf("host %s: %s, %d CPUs, kernel %s, governor %s, boost %s, SMT %s, THP %s", e.Host, e.CPUModel, e.NCPU, e.Kernel, e.Governor, e.Boost, e.SMT, e.THP),
		fmt.Sprintf("at start: load average %s; CPU pressure %s", e.LoadAvg, e.CPUPressure),
		fmt.Sprintf("ruler %s: %s", a.Header.RulerHash, a.Header.Ruler),
		fmt.Sprintf("%s, %s", a.Header.Hbgkit, e.Toolchain),
	}
}

// Document returns the campaign's report: the headline, one table per
// metric family, the noise footer, warnings, and the method, host and
// command.
func (a *Analysis) Document() *report.Document {
	d := &report.Document{}
	d.Add(&report.Paragraph{Text: a.Headline()})
	if a.Partial {
		d.Add(&report.Paragraph{Text: fmt.Sprintf("PARTIAL: %d of %d rounds complete; the verdict covers only those.", a.Complete, a.Planned)})
	}
	for _, f := range Families() {
		if t := a.FamilyTable(f); t != nil {
			d.Add(t)
		}
	}
	d.Add(&report.List{Items: a.NoiseLines()})
	if len(a.Warnings) > 0 {
		d.Add(&report.Paragraph{Text: "warnings:"}, &report.List{Items: a.Warnings})
	}
	det := &report.Details{Summary: "method, noise, ruler, host and command"}
	det.Blocks = append(det.Blocks, &report.List{Items: append(a.MethodLines(), a.EnvLines()...)})
	if len(a.Header.Command) > 0 {
		det.Blocks = append(det.Blocks, &report.Code{Text: strings.Join(a.Header.Command, " ")})
	}
	d.Add(det)
	return d
}

// SuggestedMargin is the --margin an A/A campaign suggests: its minimum
// detectable effect rounded up to the next half percent; a smaller margin
// asks for more than this host can resolve in as many rounds.
func (a *Analysis) SuggestedMargin() float64 {
	m := float64(a.Noise.MDE)
	if math.IsNaN(m) || m <= 0 {
		return math.NaN()
	}
	return math.Ceil(m*200) / 200
}

// CSVTables returns the tables of a csv report: one row per (metric, arm)
// and then the raw passes of every counted block.
func (a *Analysis) CSVTables(j *Journal) []*report.Table {
	m := &report.Table{Title: "metrics", Header: []string{"metric", "family", "primary", "arm", "n", "trimmed_us", "median_us", "min_us",
		"delta", "ci_lo", "ci_hi", "delta_min", "sign_agree", "sign_n", "p", "holm_p", "verdict"}}
	f := func(x Num) string {
		if math.IsNaN(float64(x)) {
			return ""
		}
		return fmt.Sprint(float64(x))
	}
	for _, r := range a.Metrics {
		for arm := range 2 {
			s := r.Arms[arm]
			m.Rows = append(m.Rows, []string{r.Name, r.Family, fmt.Sprint(r.Primary), armNames[arm], fmt.Sprint(s.N),
				f(s.TrimmedMean), f(s.Median), f(s.Min), f(r.Delta), f(r.CILo), f(r.CIHi), f(r.DeltaMin),
				fmt.Sprint(r.SignK), fmt.Sprint(r.SignN), f(r.P), f(r.HolmP), r.Verdict})
		}
	}
	passes := &report.Table{Title: "passes", Header: []string{"round", "arm", "pid", "inv", "cold", "metric", "ns"}}
	for i := 1; i <= a.Planned; i++ {
		for arm := range 2 {
			b := j.countedBlock(i, armNames[arm])
			if b == nil {
				continue
			}
			for _, p := range b.Passes {
				for _, mi := range KnownMetrics() {
					if v, ok := p.Values[mi.Name]; ok {
						passes.Rows = append(passes.Rows, []string{fmt.Sprint(i), armNames[arm], fmt.Sprint(p.Pid), fmt.Sprint(p.Inv),
							fmt.Sprint(p.Cold), mi.Name, fmt.Sprint(v)})
					}
				}
			}
		}
	}
	return []*report.Table{m, passes}
}
