// Package abreport turns an analysis into the documents hbgbench prints:
// the headline, the verdict tables, the noise footer, the method and the
// environment, for a two-arm, an N-arm, a merged or a sequential
// campaign, in the internal/document model every format writes, and the
// Go benchmark format. Its opinion: every figure a report prints can be
// traced to the analysis; nothing is recomputed here.
package abreport

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/hbgkit/hbgkit/abtest/analysis"
	"github.com/hbgkit/hbgkit/abtest/journal"
	"github.com/hbgkit/hbgkit/abtest/metric"
	"github.com/hbgkit/hbgkit/abtest/stats"
	"github.com/hbgkit/hbgkit/internal/document"
)

// shownP is the p a report prints for m: the Holm-adjusted one, which is
// the Wilcoxon p itself for a lone primary metric (under --per-rank the
// primary rows are adjusted over the ranks, the secondary ones within
// their family).
func shownP(m *analysis.MetricResult) journal.Num { return m.HolmP }

// shownVerdict is m's verdict as printed; "(p)" marks a row the interval
// alone would have called but whose Holm-adjusted p did not.
func shownVerdict(m *analysis.MetricResult) string {
	if m.Gated {
		return m.Verdict.String() + " (p)"
	}
	return m.Verdict.String()
}

// medianWords is the csv cell of m's verdict on block medians: "" when
// the row has none.
func medianWords(m *analysis.MetricResult) string {
	if m.MedianVerdict == nil {
		return ""
	}
	return m.MedianVerdict.String()
}

// decidingLook returns, for a primary row of an --until-decided campaign
// whose looks decided it, the look that decided: the verdict is on its
// repeated interval. nil otherwise (a fixed design; an undecided
// sequential campaign, whose headline is sequentialHeadline's).
func (a Report) decidingLook(m *analysis.MetricResult) *journal.LookRecord {
	if s := a.Sequential; s != nil && m.Primary {
		return analysis.DecidedLook(s.Looks)
	}
	return nil
}

// orNone is s, or what to print in its place when it is empty: a report
// never prints a blank field.
func orNone(s, none string) string {
	if s == "" {
		return none
	}
	return s
}

// verdictP is the p a headline prints: the trimmed t test's, the test
// the 95% CI and so the verdict rest on (below 0.05 exactly when the CI
// excludes 0), or the Wilcoxon p of an analysis from before it was kept.
func verdictP(m *analysis.MetricResult) string {
	if math.IsNaN(float64(m.TP)) {
		return analysis.PIs(m.P)
	}
	return "t-test " + analysis.PIs(m.TP)
}

// aliasNote is what a row's name is followed by when the row stands for
// other metrics as well (they carried the same values): " = Gate", or
// " = phase.args = Host" for several.
func aliasNote(m *analysis.MetricResult) string {
	if len(m.Aliases) == 0 {
		return ""
	}
	return " = " + strings.Join(m.Aliases, " = ")
}

// Headline returns the verdict on the primary metric: one line, or under
// --per-rank one line per rank.
func (a Report) Headline() string { return strings.Join(a.Headlines(), "\n") }

// Headlines returns the verdict lines of the primary rows: one, or under
// --per-rank one per rank (each rank's verdict is gated by its p,
// Holm-adjusted over the ranks).
func (a Report) Headlines() []string {
	ms := a.PrimaryResults()
	if len(ms) == 0 {
		return []string{"no verdict: no primary metric was measured"}
	}
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = a.headlineOf(m)
	}
	return out
}

// headlineOf returns the one-line verdict on a primary row.
func (a Report) headlineOf(m *analysis.MetricResult) string {
	if a.Design == analysis.DesignDescriptive && !math.IsNaN(float64(m.Delta)) {
		return fmt.Sprintf("NO VERDICT: %s: head's block %s is %s against base's (descriptive only: %d base log(s), %d head log(s); no interval can be computed honestly)",
			m.Label, a.Header.Config.BlockStat, analysis.Pct(m.Delta), len(a.Logs[journal.Base]), len(a.Logs[journal.Head]))
	}
	if m.Error != "" {
		return fmt.Sprintf("%s: no verdict: %s", m.Label, m.Error)
	}
	d, lo, hi := float64(m.Delta), float64(m.CILo), float64(m.CIHi)
	facts := fmt.Sprintf("%d rounds, sign %d/%d, %s", m.Rounds, m.SignK, m.SignN, verdictP(m))
	ciWord := "95% CI"
	if l := a.decidingLook(m); l != nil {
		// --until-decided: the verdict is the look's, on its repeated
		// interval; the headline quotes that interval, and only it.
		d, lo, hi = float64(l.Delta), float64(l.RCILo), float64(l.RCIHi)
		ciWord = fmt.Sprintf("repeated 95%% CI of look %d", l.Look)
		facts = fmt.Sprintf("%d rounds at look %d, sign %d/%d over %d", l.N, l.Look, m.SignK, m.SignN, m.Rounds)
	}
	dN, loN, hiN := journal.Num(d), journal.Num(lo), journal.Num(hi)
	if a.AA && a.Header.Artifact != "" && a.Header.Arms[journal.Base].Sha != a.Header.Arms[journal.Head].Sha {
		return fmt.Sprintf("A/A (identical binaries): no change can be claimed, %s; %s measured Δ %s, 95%% CI %s (%s)",
			a.AAReason, m.Label, analysis.Pct(m.Delta), analysis.Ci(m.CILo, m.CIHi), facts)
	}
	if a.Design == analysis.DesignUnpaired {
		facts = fmt.Sprintf("%d base logs, %d head logs, unpaired, rank-sum %s", m.Arms[journal.Base].Blocks, m.Arms[journal.Head].Blocks, analysis.PIs(m.P))
	}
	if len(a.PrimaryResults()) > 1 && !math.IsNaN(float64(m.HolmP)) {
		if a.Design == analysis.DesignUnpaired {
			facts += fmt.Sprintf(", Holm-adjusted over the ranks %s", analysis.Pval(m.HolmP))
		} else {
			facts += fmt.Sprintf(", Wilcoxon %s, Holm-adjusted over the ranks %s", analysis.PIs(m.P), analysis.Pval(m.HolmP))
		}
	}
	if m.Kind != "" && m.Kind != metric.KindTime && m.Verdict.IsChange() {
		// Only time is faster or slower: a count, bytes or CPU time is
		// fewer or more.
		less, beyond := "less", "lower"
		if m.Verdict.IsIncrease() {
			less, beyond = "more", "higher"
		}
		lo, hi := analysis.AbsPct(hi), analysis.AbsPct(lo)
		if m.Verdict.IsIncrease() {
			lo, hi = analysis.AbsPct(float64(loN)), analysis.AbsPct(float64(hiN))
		}
		return fmt.Sprintf("%s: %s: head's %s is %s %s than base's (%s %s to %s %s; %s)",
			strings.ToUpper(m.Verdict.String()), m.Label, m.Kind.Unit(), analysis.AbsPct(d), beyond, ciWord, lo, hi, less, facts)
	}
	switch {
	case m.Verdict.IsDecrease():
		return fmt.Sprintf("FASTER: %s: head takes %s less time than base (%s %s to %s less; %s)",
			m.Label, analysis.AbsPct(d), ciWord, analysis.AbsPct(hi), analysis.AbsPct(lo), facts)
	case m.Verdict.IsIncrease():
		return fmt.Sprintf("SLOWER: %s: head takes %s more time than base (%s %s to %s more; %s)",
			m.Label, analysis.AbsPct(d), ciWord, analysis.AbsPct(lo), analysis.AbsPct(hi), facts)
	case !m.Verdict.NA && m.Verdict.Call == stats.NoChange:
		return fmt.Sprintf("NO CHANGE: %s: Δ %s, its %s %s lies within the ±%s margin (%s)",
			m.Label, analysis.Pct(dN), ciWord, analysis.Ci(loN, hiN), analysis.AbsPct(a.Margin), facts)
	case m.Verdict.IsSmall():
		return fmt.Sprintf("SMALL CHANGE: %s: Δ %s (%s %s), real but inside the ±%s margin (%s)",
			m.Label, analysis.Pct(dN), ciWord, analysis.Ci(loN, hiN), analysis.AbsPct(a.Margin), facts)
	case m.Verdict.IsBounded():
		return a.boundedHeadline(m, facts)
	}
	if m.Gated {
		return fmt.Sprintf("INCONCLUSIVE: %s: Δ %s, its 95%% CI %s clears the ±%s margin, but its p Holm-adjusted over the ranks is not below 0.05 (%s)",
			m.Label, analysis.Pct(m.Delta), analysis.Ci(m.CILo, m.CIHi), analysis.AbsPct(a.Margin), facts)
	}
	if l := a.sequentialHeadline(m); l != "" {
		return l
	}
	unit := "rounds"
	if a.Design == analysis.DesignUnpaired {
		unit = "logs per arm"
	}
	more := "more " + unit + " would settle it"
	switch {
	case m.Extra > 0:
		more = fmt.Sprintf("about %d more %s would settle it if Δ stayed there", m.Extra, unit)
	case m.NoEstimate != "":
		more += "; how many: " + m.NoEstimate
	}
	if m.NoInterval != "" {
		return fmt.Sprintf("INCONCLUSIVE: %s: Δ %s, %s; %s (%s)",
			m.Label, analysis.Pct(m.Delta), m.NoInterval, more, facts)
	}
	return fmt.Sprintf("INCONCLUSIVE: %s: Δ %s, 95%% CI %s straddles the ±%s margin; %s (%s)",
		m.Label, analysis.Pct(m.Delta), analysis.Ci(m.CILo, m.CIHi), analysis.AbsPct(a.Margin), more, facts)
}

// familyTitles are the table titles of the metric families.
var familyTitles = map[string]string{
	metric.FamilyControlPlane: "HBG bind accounting (per pass, µs)",
	metric.FamilyCPU:          "thread CPU time (per pass, µs of CPU)",
	metric.FamilyPhases:       "bind phases (per pass, µs)",
	metric.FamilyOrch:         "orchestrator operations, host-orch lines (per pass, µs)",
	metric.FamilyCounters:     "kernel counters (per pass, counts)",
	metric.FamilyWork:         "work done (per pass, counts and bytes)",
	metric.FamilyLanes:        "lanes, from host_phase_records.jsonl (per bind; unit on each row)",
	metric.FamilyAttrs:        "other attributes of bind and host-orch lines (per pass; unit on each row)",
	metric.FamilyBind:         "bind wall, chip.run.bind (per pass, µs)",
	metric.FamilyDerived:      "derived metrics, --derive (per pass; unit on each row)",
	metric.FamilyHost:         "host wall (per pass, µs)",
}

// minPrimary reports whether the block statistic is the minimum: then Δ
// is already the floor's, and the column beside it (Δmin elsewhere) is
// Δmedian, the typical pass (medianBeside).
func (a Report) minPrimary() bool {
	return a.Design == analysis.DesignInterleaved && a.Header.Config.BlockStat == journal.BlockMin
}

// besideHeader is the header of the column after the 95% CI.
func (a Report) besideHeader() string {
	if a.minPrimary() {
		return "Δmedian"
	}
	return "Δmin"
}

// beside is m's value in that column; "-" under the minimum for a row
// without a median analysis (a merged campaign's pooled rows).
func (a Report) beside(m *analysis.MetricResult) string {
	if a.minPrimary() {
		if m.MedianVerdict == nil {
			return "-"
		}
		return analysis.Pct(m.DeltaMedian)
	}
	return analysis.Pct(m.DeltaMin)
}

// withBeside returns header with its "Δmin" column named besideHeader.
func (a Report) withBeside(header []string) []string {
	h := slices.Clone(header)
	h[slices.Index(h, "Δmin")] = a.besideHeader()
	return h
}

// FloorLines, under --block-stat min, say when the typical pass did not
// move as the floor did: for each primary row whose Δ and Δmedian each lie
// outside the other's 95% interval, one line with both; none otherwise.
// Two noisy estimates that merely differ in sign, or a floor decided where
// the noisier median is not, are not a divergence: the table shows them;
// nor is a constant added to every pass, which moves the floor by a larger
// share of a smaller base (sameAddedTime).
func (a Report) FloorLines() []string {
	if !a.minPrimary() {
		return nil
	}
	var out []string
	for _, m := range a.PrimaryResults() {
		if m.Error != "" || m.MedianVerdict == nil {
			continue
		}
		floor := stats.Interval{Lo: float64(m.CILo), Hi: float64(m.CIHi)}
		typical := stats.Interval{Lo: float64(m.MedCILo), Hi: float64(m.MedCIHi)}
		if math.IsNaN(floor.Lo) || math.IsNaN(typical.Lo) || floor.Contains(float64(m.DeltaMedian)) || typical.Contains(float64(m.Delta)) {
			continue
		}
		if m.SameAddedTime() {
			continue
		}
		out = append(out, fmt.Sprintf("FLOOR AND TYPICAL PASS DIFFER: %s: the verdict is on block minima (--block-stat min), Δ %s, 95%% CI %s (%s); the block medians moved %s, 95%% CI %s (%s): neither lies in the other's interval, so the fastest passes and the typical one changed differently",
			m.Label, analysis.Pct(m.Delta), analysis.Ci(m.CILo, m.CIHi), m.Verdict, analysis.Pct(m.DeltaMedian), analysis.Ci(m.MedCILo, m.MedCIHi), m.MedianVerdict))
	}
	return out
}

var resultHeader = []string{"metric", "unit", "arm", "n", "trimmed", "median", "min", "p90", "max", "Δ", "95% CI", "Δmin", "Δp90", "sign", "p", "verdict"}

var resultAlign = []document.Align{document.Left, document.Left, document.Left, document.Right, document.Right, document.Right,
	document.Right, document.Right, document.Right, document.Right, document.Right, document.Right, document.Right, document.Right, document.Right, document.Left}

// unitOf returns the unit of a row: µs for a row of an analysis older
// than metric kinds.
func unitOf(m *analysis.MetricResult) string {
	if m.Unit != "" {
		return m.Unit
	}
	return m.Kind.Unit()
}

// FamilyTable returns the table of one metric family: two rows per metric
// (base, head), the paired results on the head row. nil when the family
// has no metric.
func (a Report) FamilyTable(family string) *document.Table {
	t := &document.Table{Title: familyTitles[family], Header: a.withBeside(resultHeader), Align: resultAlign, Merge: []int{0}}
	for _, m := range a.Metrics {
		if m.Family != family {
			continue
		}
		name := m.Label
		if m.Primary {
			name += " *"
		}
		name += aliasNote(&m)
		for arm := range 2 {
			s := m.Arms[arm]
			unit := ""
			if arm == journal.Base {
				unit = unitOf(&m)
			}
			row := []string{name, unit, journal.ArmNames[arm], fmt.Sprint(s.N), analysis.Value(s.TrimmedMean, m.Kind), analysis.Value(s.Median, m.Kind), analysis.Value(s.Min, m.Kind),
				analysis.Value(s.P90, m.Kind), analysis.Value(s.Max, m.Kind)}
			if arm == journal.Base {
				row = append(row, "", "", "", "", "", "", "")
			} else {
				sign := "-"
				if m.SignN > 0 || (m.Rounds > 0 && a.Design != analysis.DesignUnpaired && a.Design != analysis.DesignDescriptive) {
					sign = fmt.Sprintf("%d/%d", m.SignK, m.SignN)
				}
				row = append(row, analysis.Pct(m.Delta), analysis.Ci(m.CILo, m.CIHi), a.beside(&m), ceilingCell(&m), sign, analysis.Pval(shownP(&m)), shownVerdict(&m))
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
func (a Report) NoiseLines() []string {
	n := a.Noise
	var out []string
	unpaired := a.Design == analysis.DesignUnpaired || a.Design == analysis.DesignDescriptive
	if p := a.PrimaryResult(); p != nil && !math.IsNaN(float64(n.SigmaD)) {
		mde := analysis.AbsPct(float64(n.MDE))
		if math.IsNaN(float64(n.MDE)) {
			mde = "none, " + p.NoInterval
		}
		if unpaired {
			out = append(out, fmt.Sprintf("noise of %s: σ %.1f%% between one base log and one head log (the spreads of ln(block statistic) of both arms combined); minimum detectable effect at 80%% power with these logs: %s",
				p.Label, 100*float64(n.SigmaD), mde))
		} else {
			spread := fmt.Sprintf("σ_d %.1f%% per round", 100*float64(n.SigmaD))
			if t := float64(n.SigmaT); !math.IsNaN(t) {
				spread += fmt.Sprintf(" (σ_t %.1f%%, the trimmed spread s_w/0.6 of the log-ratios the interval rests on)", 100*t)
			}
			out = append(out, fmt.Sprintf("noise of %s: %s; minimum detectable effect at 80%% power in %d rounds: %s, exp((t₀.₉₇₅ + t₀.₈)·σ_t/√%d) − 1",
				p.Label, spread, p.Rounds, mde, p.Rounds))
		}
		unit := "rounds"
		if unpaired {
			unit = "logs per arm"
		}
		switch {
		case float64(n.MDE) > a.Margin && n.RoundsForMargin > 0:
			out = append(out, fmt.Sprintf("a change smaller than about %s cannot be told from noise here; resolving the ±%s margin would take about %d %s",
				analysis.AbsPct(float64(n.MDE)), analysis.AbsPct(a.Margin), n.RoundsForMargin, unit))
		case n.NoEstimate != "":
			out = append(out, fmt.Sprintf("%s to resolve the ±%s margin: %s", unit, analysis.AbsPct(a.Margin), n.NoEstimate))
		}
	}
	if unpaired {
		out = append(out, fmt.Sprintf("lag-1 autocorrelation of passes: base %s, head %s; drift: not measurable (the logs carry no common clock)",
			analysis.Num2(n.Lag1[journal.Base]), analysis.Num2(n.Lag1[journal.Head])))
		return out
	}
	out = append(out, fmt.Sprintf("lag-1 autocorrelation of passes: base %s, head %s; drift per round: base %s, head %s",
		analysis.Num2(n.Lag1[journal.Base]), analysis.Num2(n.Lag1[journal.Head]), analysis.Pct(n.Drift[journal.Base]), analysis.Pct(n.Drift[journal.Head])))
	out = append(out, fmt.Sprintf("failed blocks: base %d, head %d; rounds dropped: %d", n.Failures[journal.Base], n.Failures[journal.Head], n.Dropped))
	if l := a.CostLine(); l != "" {
		out = append(out, l)
	}
	if a.AA {
		out = append(out, "A/A: "+a.AAReason)
	}
	return out
}

// EventLines returns "k of N" for the counts that were 0 in some warm
// pass (discrete events: a fault, a switch): on how many warm passes of
// each arm they happened. nil when there is none.
func (a Report) EventLines() []string {
	var out []string
	names := [2]string{journal.ArmNames[journal.Base], journal.ArmNames[journal.Head]}
	for arm := range 2 {
		if n := a.Header.Arms[arm].Name; n != "" {
			names[arm] = n
		}
	}
	for _, m := range a.Metrics {
		if len(m.NonZero) != 2 {
			continue
		}
		out = append(out, fmt.Sprintf("%s > 0 on %d of %d warm passes of %s, %d of %d of %s",
			m.Label, m.NonZero[journal.Base], m.Arms[journal.Base].N, names[journal.Base], m.NonZero[journal.Head], m.Arms[journal.Head].N, names[journal.Head]))
	}
	return out
}

// eventBlocks returns the "k of N" lines under a heading, or nothing.
func (a Report) eventBlocks() []document.Block {
	lines := a.EventLines()
	if len(lines) == 0 {
		return nil
	}
	return []document.Block{&document.Paragraph{Text: "discrete events (counts that were 0 in some warm pass): on how many warm passes each happened"}, &document.List{Items: lines}}
}

// MethodLines describes how the campaign ran and was analysed, as the
// text report prints it.
func (a Report) MethodLines() []string { return a.methodLines(false) }

// coldAndTrim say which passes are warm and what an arm's trimmed mean
// drops.
func (a Report) coldAndTrim() (first, trim string) {
	c := a.Header.Config
	first = fmt.Sprintf("the first %d (cold) passes of each pid dropped", c.Cold)
	if c.Cold == 0 {
		first = "every pass kept (--keep-first)"
	}
	trim = "20% of each arm's passes"
	if c.Trim >= 0 {
		trim = fmt.Sprintf("%d passes", c.Trim)
	}
	return first, trim
}

// methodLines is MethodLines; for markdown (md), whose table has only the
// arms' trimmed means and whose legend under it says so, without the
// description of the text tables' per-arm columns.
func (a Report) methodLines(md bool) []string {
	h, c := a.Header, a.Header.Config
	first, trim := a.coldAndTrim()
	perArm := fmt.Sprintf("per-arm columns (descriptive): trimmed mean dropping %s at each end, median, min, p90, max of warm passes, n passes; margin ±%s", trim, analysis.AbsPct(c.Margin))
	if md {
		perArm = fmt.Sprintf("margin ±%s (the verdict's equivalence margin)", analysis.AbsPct(c.Margin))
	}
	if a.Design == analysis.DesignUnpaired || a.Design == analysis.DesignDescriptive {
		return a.unpairedMethod(first, trim, perArm, md)
	}
	rounds := fmt.Sprintf("%d of %d rounds × %d passes per block, %d warm-up block(s) per arm; order %s, seed %d", a.Complete, a.Planned, c.Block, c.Warmup, c.Order, h.Schedule.Seed)
	if a.Captured() {
		rounds = a.capturedRounds()
	}
	out := append(a.armLines(),
		rounds,
		fmt.Sprintf("per pass: %s; block statistic: %s of warm passes; Δ = exp(20%%-trimmed mean of ln(head/base)) − 1 with a trimmed-t 95%% CI; p: Wilcoxon signed-rank (secondary rows Holm-adjusted within their family)", first, c.BlockStat),
		perArm,
		fmt.Sprintf("primary metric: %s (* in the tables); %s", orNone(h.Primary.String(), "none yet: no block recorded one"), a.besideMethod()),
	)
	out = append(out, a.checkLines()...)
	if !md && a.anyGated() {
		out = append(out, a.gatedNote())
	}
	if l := a.countDiffNote(); l != "" {
		out = append(out, l)
	}
	return out
}

// countDiffNote says which rows' Δ is of differences, not log-ratios
// (analysis.MetricResult.CountDiff); "" when none is.
func (a Report) countDiffNote() string {
	var names []string
	for _, m := range a.Metrics {
		if m.CountDiff {
			names = append(names, m.Label)
		}
	}
	if len(names) == 0 {
		return ""
	}
	how := "with the t 95% CI of their paired differences and the Wilcoxon p of those"
	if a.Design == analysis.DesignUnpaired {
		how = "with Welch's t 95% CI of the difference of the means and the rank-sum p"
	}
	return fmt.Sprintf("%s: a lane metric that was 0 in some block has no log-ratio; its Δ = mean(head)/mean(base) − 1 of the block statistics, %s (docs/ab-method.md, Counts that are zero)",
		strings.Join(names, ", "), how)
}

// besideMethod says what the column after the 95% CI holds.
func (a Report) besideMethod() string {
	if a.minPrimary() {
		return "Δmedian: the same paired analysis on block medians, the typical pass beside the floor the verdict is on" + a.ceilingMethod()
	}
	return "Δmin: the same paired analysis on block minima" + a.ceilingMethod()
}

// besideLegend is besideMethod for the markdown legend.
func (a Report) besideLegend() string {
	if a.minPrimary() {
		return "Δmedian: the same on block medians (the verdict is on block minima)" + a.ceilingLegend()
	}
	return "Δmin: the same on block minima" + a.ceilingLegend()
}

// anyGated reports whether a row reads "inconclusive (p)".
func (a Report) anyGated() bool {
	return slices.ContainsFunc(a.Metrics, func(m analysis.MetricResult) bool { return m.Gated })
}

// gatedNote says what "(p)" after a verdict means.
func (a Report) gatedNote() string {
	return fmt.Sprintf("(p) after a verdict: the row's 95%% CI lies beyond the ±%s margin but its Holm-adjusted p is not below 0.05, so it is not called faster or slower",
		analysis.AbsPct(a.Margin))
}

// WhatRan is the line under a markdown report's headline naming the arms
// and the machine.
func (a Report) WhatRan() string {
	h := &a.Header
	if a.Design == analysis.DesignUnpaired || a.Design == analysis.DesignDescriptive {
		return fmt.Sprintf("base: %d log(s); head: %d log(s); the machine is not recorded (the logs were captured elsewhere)",
			len(a.Logs[journal.Base]), len(a.Logs[journal.Head]))
	}
	name := func(x journal.Arm) string {
		if x.Kind == journal.KindCommand {
			return "command " + x.Spec + armLoad(x)
		}
		return x.Label() + armLoad(x)
	}
	b, x := h.Arms[journal.Base], h.Arms[journal.Head]
	arms := fmt.Sprintf("base: %s; head: %s", name(b), name(x))
	switch d, e := specDiff(x, b), specDiff(b, x); {
	case b.Kind == journal.KindEmbedded && x.Kind == journal.KindEmbedded && b.Spec != x.Spec:
		// Two embedded specs differ in a setting or two: name those, and
		// leave the full specs to the details.
		arms = fmt.Sprintf("base: embedded %s; head: embedded %s (the same otherwise: the full specs are in the details)", d, e)
	case b.Spec == x.Spec && b.Kind == x.Kind && armLoad(b) != armLoad(x):
		// One arm under two loads (--sweep load=): the load is what differs.
		under := func(x journal.Arm) string {
			return strings.Replace(strings.TrimPrefix(armLoad(x), "; "), ": ", ", ", 1)
		}
		lb, lx := under(b), under(x)
		b.Load = nil
		arms = fmt.Sprintf("base and head: the same arm, %s; base under %s; head under %s", name(b), lb, lx)
	}
	if a.Captured() {
		return arms + "; logs captured by hand, paired as rounds (the host is not recorded)"
	}
	return fmt.Sprintf("%s; on %s, %d CPUs (host %s)",
		arms, orNone(h.Env.CPUModel, "an unrecorded CPU"), h.Env.NCPU, orNone(h.Env.Host, "unrecorded"))
}

// testWord names the Wilcoxon test of the p column.
func (a Report) testWord() string {
	if a.Design == analysis.DesignUnpaired {
		return "rank-sum"
	}
	return "signed-rank"
}

// rankP adds to the legend's p how the primary rows' p is adjusted under
// --per-rank.
func (a Report) rankP() string {
	if len(a.PrimaryResults()) > 1 {
		return ", and over the ranks on the * rows"
	}
	return ""
}

// cpusLine says where the blocks ran when --cpus pinned them, "" when it
// did not.
func cpusLine(h *journal.Header) string {
	if h.Config.CPUs == "" {
		return ""
	}
	return fmt.Sprintf("Pinned (--cpus %s): every block of both arms, and every process it forked, ran on CPUs %s only; the ruler's cpus= says so for each block.",
		h.Config.CPUs, h.Config.CPUs)
}

// armLines name the arms of a campaign and, for command and git arms,
// what they ran: the command, the build and run templates and the --env
// switches as the journal recorded them, whether they came from the
// command line or from hbgbench.toml.
func (a Report) armLines() []string {
	h := &a.Header
	var out []string
	for arm, x := range h.Arms {
		line := journal.ArmNames[arm] + ": "
		switch x.Kind {
		case journal.KindGit:
			line += "git " + x.Label()
		case journal.KindCommand:
			line += "command " + x.Spec
		default:
			line += x.Spec
		}
		out = append(out, line+armLoad(x))
	}
	setting := func(what, flag string, get func(journal.Arm) string, kinds ...journal.ArmKind) {
		var vals [2]string
		var has [2]bool
		for arm, x := range h.Arms {
			has[arm] = slices.Contains(kinds, x.Kind)
			if has[arm] {
				vals[arm] = get(x)
			}
		}
		if vals[journal.Base] == "" && vals[journal.Head] == "" {
			return
		}
		src := func(v string) string {
			if v != "" && fromRecipe(h, flag, v) {
				return ", from hbgbench.toml"
			}
			return ""
		}
		if has[journal.Base] && has[journal.Head] && vals[journal.Base] == vals[journal.Head] {
			out = append(out, fmt.Sprintf("%s of both arms%s: %s", what, src(vals[journal.Base]), vals[journal.Base]))
			return
		}
		for arm, v := range vals {
			if !has[arm] {
				continue
			}
			where := src(v)
			if v == "" {
				v = "none"
			}
			out = append(out, fmt.Sprintf("%s of %s%s: %s", what, journal.ArmNames[arm], where, v))
		}
	}
	setting("build (once per commit, in its worktree)", "build", func(x journal.Arm) string { return x.Build }, journal.KindGit)
	setting("run (once per block, in the arm's worktree)", "run", func(x journal.Arm) string { return x.Run }, journal.KindGit)
	setting("env (added to the arm's command)", "env", func(x journal.Arm) string { return strings.Join(x.Env, " ") }, journal.KindGit, journal.KindCommand)
	if h.Recipe != "" && len(h.RecipeSet) > 0 {
		out = append(out, fmt.Sprintf("recipe %s set: %s", h.Recipe, strings.Join(h.RecipeSet, "; ")))
	}
	return out
}

// fromRecipe reports whether hbgbench.toml gave --flag the value an arm
// has: what the journal says the recipe
// set (for env, each of the arm's switches), or, in a journal from before
// it said so, a setting the command line did not give (the only other
// source).
func fromRecipe(h *journal.Header, flag, value string) bool {
	if h.Recipe == "" {
		return !onCommandLine(h, flag)
	}
	if flag == "env" {
		for _, kv := range strings.Fields(value) {
			if !slices.Contains(h.RecipeSet, "env "+kv+" (git arms only)") {
				return false
			}
		}
		return true
	}
	return slices.ContainsFunc(h.RecipeSet, func(s string) bool { return strings.HasPrefix(s, flag+" = ") })
}

// onCommandLine reports whether the campaign's command line gave --flag.
// A git arm's build, run or env it did not give came from hbgbench.toml,
// the only other source.
func onCommandLine(h *journal.Header, flag string) bool {
	return slices.ContainsFunc(h.Command, func(w string) bool {
		return w == "--"+flag || strings.HasPrefix(w, "--"+flag+"=")
	})
}

// unpairedMethod is methodLines for compare; perArm is methodLines's line
// on the per-arm columns and the margin.
func (a Report) unpairedMethod(first, trim, perArm string, md bool) []string {
	c := a.Header.Config
	out := []string{
		fmt.Sprintf("base: %d log(s): %s", len(a.Logs[journal.Base]), a.Header.Arms[journal.Base].Spec),
		fmt.Sprintf("head: %d log(s): %s", len(a.Logs[journal.Head]), a.Header.Arms[journal.Head].Spec),
		fmt.Sprintf("per log: %s; each log is one block, its statistic the %s of its warm passes", first, c.BlockStat),
	}
	if a.Design == analysis.DesignDescriptive {
		delta := fmt.Sprintf("Δ: ratio of the arms' block %ss (over several logs, their trimmed geometric mean) − 1; Δmin: min(head)/min(base) − 1; per-arm columns: trimmed mean dropping %s at each end, median, min, p90, max, n passes", c.BlockStat, trim)
		if md {
			delta = fmt.Sprintf("Δ: ratio of the arms' block %ss (over several logs, their trimmed geometric mean) − 1; Δmin: min(head)/min(base) − 1", c.BlockStat)
		}
		return append(out,
			"descriptive only: with one log on an arm there is one block statistic, so no spread between logs to build an interval or a test on; the passes of one process share its state and are not independent, so a pass-level test would be dishonest",
			delta,
			fmt.Sprintf("primary metric: %s (* in the tables)", a.Primary))
	}
	if l := a.countDiffNote(); l != "" {
		out = append(out, l)
	}
	return append(out,
		"Δ = exp(T_head − T_base) − 1, T the 20%-trimmed mean of ln(block statistic) over an arm's logs, with Yuen's trimmed-t 95% CI (Welch–Satterthwaite df) on the log scale",
		"p: Wilcoxon rank-sum (Mann–Whitney) test of the block statistics, exact without ties below 50 logs per arm, else the normal approximation with tie and continuity correction; secondary rows Holm-adjusted within their family",
		"why unpaired: captured logs are not rounds; nothing pairs a base log with a head log, so a paired test would invent the pairs; the rank-sum test assumes only independent logs and is robust to outliers",
		"weaker than an interleaved campaign (hbgbench ab): without pairing, drift and machine state between the captures are not cancelled and land in Δ; logs that were captured interleaved, base and head in turn, are analysed as paired rounds by compare --paired",
		perArm,
		fmt.Sprintf("primary metric: %s (* in the tables); Δmin: the same unpaired analysis on block minima%s", a.Primary, a.ceilingMethod()))
}

// EnvLines describe the host and the ruler.
func (a Report) EnvLines() []string {
	if a.Design == analysis.DesignUnpaired || a.Design == analysis.DesignDescriptive {
		return a.logEnvLines()
	}
	if a.Captured() {
		return []string{"host: not recorded (the logs were captured by hand elsewhere; their [stamp] lines name what ran)", rulerLine(&a.Header), version(&a.Header)}
	}
	e := a.Header.Env
	return []string{
		fmt.Sprintf("host %s: %s, %d CPUs, kernel %s, governor %s, boost %s, SMT %s, THP %s", e.Host, e.CPUModel, e.NCPU, e.Kernel, e.Governor, e.Boost, e.SMT, e.THP),
		fmt.Sprintf("at start: load average %s; CPU pressure %s", e.LoadAvg, e.CPUPressure),
		rulerLine(&a.Header),
		version(&a.Header),
	}
}

// namingWords say what Ruler sets aside in the stamp of an arm of each
// kind (Arm.namingStrings).
var namingWords = map[journal.ArmKind]string{
	journal.KindEmbedded: "its embedded spec",
	journal.KindCommand:  "its command as run",
	journal.KindGit:      "its commit, ref, worktree and run command",
}

// rulerLine says what the campaign's ruler compared: each block's [stamp]
// with what names its arm replaced by {arm}, and what was left of it.
func rulerLine(h *journal.Header) string {
	if h.Ruler == "" {
		return "ruler: none yet: no block completed, so no [stamp] line was compared"
	}
	naming := namingWords[h.Arms[journal.Base].Kind]
	if h.Arms[journal.Head].Kind != h.Arms[journal.Base].Kind {
		naming = "base: " + naming + "; head: " + namingWords[h.Arms[journal.Head].Kind]
	}
	if h.Arms[journal.Base].Load != nil {
		naming += ", and its load=N of --sweep load="
	}
	line := fmt.Sprintf("ruler %s: the [stamp] line of each block with what names its arm (%s) replaced by %s, the same in every block: %s",
		h.RulerHash, naming, journal.ArmPlaceholder, h.Ruler)
	rest := slices.DeleteFunc(strings.Fields(h.Ruler), func(w string) bool { return w == journal.ArmPlaceholder })
	if len(rest) == 0 {
		line += "; nothing else was in the stamps, so the ruler compared nothing beyond the arms themselves (a command's stamp holds no host facts; see the host line)"
	}
	return line
}

// version is the hbgkit that ran the campaign, with the Go toolchain that
// built it named once: the version string already ends with it when the
// binary carries build information.
func version(h *journal.Header) string {
	t := h.Env.Toolchain
	if t == "" || strings.HasSuffix(h.Hbgkit, " "+t) {
		return h.Hbgkit
	}
	return h.Hbgkit + ", " + t
}

// logEnvLines are compare's host and ruler lines: the stamps of the logs,
// and the words in which the first base and head stamps differ.
func (a Report) logEnvLines() []string {
	out := []string{"host: not recorded (the logs were captured elsewhere; a [stamp] line names what ran)"}
	var first [2]string
	for arm := range 2 {
		stamps := map[string]bool{}
		for _, l := range a.Logs[arm] {
			if !stamps[l.Stamp] {
				stamps[l.Stamp] = true
				s := l.Stamp
				if s == "" {
					s = "(none)"
				}
				out = append(out, fmt.Sprintf("%s stamp: %s", journal.ArmNames[arm], s))
			}
		}
		if len(a.Logs[arm]) > 0 {
			first[arm] = a.Logs[arm][0].Stamp
		}
	}
	if first[journal.Base] != "" && first[journal.Head] != "" {
		if first[journal.Base] == first[journal.Head] {
			out = append(out, "ruler: base and head stamps are identical")
		} else {
			out = append(out, "ruler: the stamps differ in "+stampWords(first[journal.Base], first[journal.Head]))
		}
	}
	return append(out, a.Header.Hbgkit)
}

// stampWords lists the words only a has (-w) and only b has (+w).
func stampWords(a, b string) string {
	var parts []string
	for _, l := range strings.Split(journal.RulerDiff(a, b), "\n") {
		l = strings.TrimSpace(l)
		if w, ok := strings.CutPrefix(l, "- "); ok {
			parts = append(parts, "-"+w)
		} else if w, ok := strings.CutPrefix(l, "+ "); ok {
			parts = append(parts, "+"+w)
		}
	}
	if len(parts) == 0 {
		return "spacing only"
	}
	return strings.Join(parts, " ")
}

// RuleLine is the line under the headline that states how the verdict is
// reached, when a primary row's p and its verdict point different ways: a
// p below 0.05 with no change or an inconclusive verdict, or a p of 0.05
// or more with a change called (faster, slower or a small change). "" when
// they agree. The verdict reads the CI against the margin (docs/ab-method.md),
// and p is a test of Δ = 0 that does not decide it, except that under
// --per-rank a faster or slower call needs the p Holm-adjusted over the
// ranks below 0.05 as well.
func (a Report) RuleLine() string {
	if a.Design == analysis.DesignDescriptive {
		return ""
	}
	ps := a.PrimaryResults()
	apart := false
	for _, m := range ps {
		p := float64(shownP(m))
		if m.Error != "" || math.IsNaN(p) {
			continue
		}
		change := m.Verdict.IsChange() || m.Verdict.IsSmall()
		apart = apart || change != (p < stats.Alpha)
	}
	if !apart {
		return ""
	}
	test := "Wilcoxon signed-rank"
	if a.Design == analysis.DesignUnpaired {
		test = "Wilcoxon rank-sum"
	}
	gate := ""
	if len(ps) > 1 {
		gate = " and its p, Holm-adjusted over the ranks, is below 0.05"
	}
	return fmt.Sprintf("Rule: the verdict is the 95%% CI of Δ against the ±%s margin (faster or slower when the whole CI lies beyond it%s; "+
		"no change or small change when it lies within it; inconclusive when it straddles it); p (%s) tests only Δ = 0 and does not decide, "+
		"so p < 0.05 can go with inconclusive and p ≥ 0.05 with a verdict.", analysis.AbsPct(a.Margin), gate, test)
}

// designNote is the paragraph under the headline of a compare report.
func (a Report) designNote() string {
	switch a.Design {
	case analysis.DesignUnpaired:
		return fmt.Sprintf("UNPAIRED: %d base logs against %d head logs, captured outside a campaign; each log is one block. "+
			"Δ is the ratio of the arms' trimmed geometric means with Yuen's 95%% CI and p the Wilcoxon rank-sum test, because nothing pairs a base log with a head log. "+
			"This is weaker than an interleaved campaign (hbgbench ab): drift and machine state between the captures are not cancelled.",
			len(a.Logs[journal.Base]), len(a.Logs[journal.Head]))
	case analysis.DesignDescriptive:
		return fmt.Sprintf("DESCRIPTIVE ONLY: %d base log(s), %d head log(s). With one log on an arm there is no spread between logs, and the passes of one process are not independent, "+
			"so no interval or test can be computed honestly; Δ is the ratio of the arms' block %ss. Capture 4 or more logs per arm, or run an interleaved campaign (hbgbench ab).",
			len(a.Logs[journal.Base]), len(a.Logs[journal.Head]), a.Header.Config.BlockStat)
	}
	return ""
}

// openDocument starts a report with what every format says first:
// whether the arms did different work, the headline, the note on an
// unpaired design, whether the campaign is partial, and what qualifies the
// verdict: the qualifiers and warnings (the pull request's with its
// evidence warnings folded, foldEvidence).
func (a Report) openDocument(warnings []string) *document.Document {
	d := &document.Document{}
	if l := a.CheckLine(); l != "" {
		d.Add(&document.Paragraph{Text: l})
	}
	if w := a.SameWorkLine(); w != "" {
		d.Add(&document.Paragraph{Text: w})
	}
	for _, h := range a.Headlines() {
		d.Add(&document.Paragraph{Text: h})
	}
	for _, f := range a.FloorLines() {
		d.Add(&document.Paragraph{Text: f})
	}
	if r := a.RuleLine(); r != "" {
		d.Add(&document.Paragraph{Text: r})
	}
	if p := cpusLine(&a.Header); p != "" {
		d.Add(&document.Paragraph{Text: p})
	}
	if l := loadLine(&a.Header); l != "" {
		d.Add(&document.Paragraph{Text: l})
	}
	if n := a.designNote(); n != "" {
		d.Add(&document.Paragraph{Text: n})
	}
	for _, l := range a.SequentialLines() {
		d.Add(&document.Paragraph{Text: l})
	}
	if a.Partial {
		d.Add(&document.Paragraph{Text: fmt.Sprintf("PARTIAL: %d of %d rounds complete; the verdict covers only those.", a.Complete, a.Planned)})
	}
	d.Add(warningList(a.Qualifiers, warnings)...)
	return d
}

// warningList is the list of what qualifies a verdict, shown above the
// tables in every format: each line of each group as a "WARNING:" item,
// in order; nothing when there is none.
func warningList(groups ...[]string) []document.Block {
	var items []string
	for _, g := range groups {
		for _, w := range g {
			items = append(items, "WARNING: "+w)
		}
	}
	if len(items) == 0 {
		return nil
	}
	return []document.Block{&document.List{Items: items}}
}

// Document returns the campaign's report: the headline, one table per
// metric family, the noise footer, warnings, and the method, host and
// command.
func (a Report) Document() *document.Document {
	if len(a.Comparisons) > 0 {
		return a.armsDocument()
	}
	d := a.openDocument(a.Warnings)
	for _, f := range metric.Families() {
		if t := a.FamilyTable(f); t != nil {
			d.Add(t)
		}
	}
	d.Add(a.eventBlocks()...)
	if t := a.RoundsTable(); t != nil {
		d.Add(t)
	}
	d.Add(&document.List{Items: a.NoiseLines()})
	det := &document.Details{Summary: "method, noise, ruler, host and command"}
	det.Blocks = append(det.Blocks, &document.List{Items: append(a.MethodLines(), a.EnvLines()...)})
	if len(a.Header.Command) > 0 {
		det.Blocks = append(det.Blocks, &document.Code{Text: journal.ShellJoin(a.Header.Command)})
	}
	d.Add(det)
	return d
}

// MarkdownDocument returns the report for a pull request (the table of
// docs/ab-reference.md): the headline and what qualifies it, the arms and the
// machine, the short table (PRTable) with the sentences that fold the
// rest and its legend, and <details> blocks with the full table, the
// primary metric round by round, and the method, the noise, the ruler,
// the host and the exact command. With full, the full table is inline
// in place of the short one.
func (a Report) MarkdownDocument() *document.Document { return a.markdown(false) }

// FullMarkdownDocument is MarkdownDocument with the full table inline.
func (a Report) FullMarkdownDocument() *document.Document { return a.markdown(true) }

func (a Report) markdown(full bool) *document.Document {
	if len(a.Comparisons) > 0 {
		return a.armsMarkdown()
	}
	warnings, evidence := foldEvidence(a.Warnings, a.Primary.Name)
	d := a.openDocument(warnings)
	d.Add(&document.Paragraph{Text: a.WhatRan()})
	short, folds := a.PRTable()
	all := a.FullTable()
	if full {
		short, folds = all, nil
	}
	if short != nil {
		d.Add(short)
		if len(folds) > 0 {
			d.Add(&document.List{Items: folds})
		}
		d.Add(&document.Paragraph{Text: strings.Join(a.PRLegend(short), "\n")})
	}
	d.Add(evidence...)
	if all != nil && !full {
		d.Add(&document.Details{Summary: fmt.Sprintf("full table: all %d rows, with sign and p", len(all.Rows)), Blocks: []document.Block{all,
			&document.Paragraph{Text: a.besideLegend() + "; sign: rounds whose change has Δ's sign, of those that changed; p: Wilcoxon " + a.testWord() + " test of Δ = 0, Holm-adjusted within its family on the rows without *" + a.rankP() + "; a secondary row is called faster or slower only when that p is below 0.05 as well."}}})
	}
	if t := a.RoundsTable(); t != nil {
		d.Add(&document.Details{Summary: "the primary metric round by round", Blocks: []document.Block{t}})
	}
	if ev := a.eventBlocks(); len(ev) > 0 {
		d.Add(&document.Details{Summary: "discrete events", Blocks: ev})
	}
	det := &document.Details{Summary: "method, noise, ruler, host and command"}
	items := append(a.NoiseLines(), a.methodLines(true)...)
	det.Blocks = append(det.Blocks, &document.List{Items: append(items, a.EnvLines()...)})
	if len(a.Header.Command) > 0 {
		det.Blocks = append(det.Blocks, &document.Code{Text: journal.ShellJoin(a.Header.Command)})
	}
	d.Add(det)
	return d
}

// CSVTables returns the tables of a csv report: one row per (metric, arm)
// and then the raw passes of every counted block.
func (a Report) CSVTables(j *journal.Journal) []*document.Table {
	m := &document.Table{Title: "metrics", Header: []string{"metric", "family", "unit", "primary", "arm", "n", "trimmed_us", "median_us", "min_us", "p90_us", "max_us",
		"delta", "ci_lo", "ci_hi", "delta_min", "delta_p90", "delta_p90_ci_lo", "delta_p90_ci_hi", "verdict_p90", "sign_agree", "sign_n", "p", "holm_p", "verdict", "aliases"}}
	if len(a.Comparisons) > 0 {
		a.armsCSV(m)
	} else {
		a.csvMetricRows(m)
	}
	if a.minPrimary() {
		// The typical pass beside the floor (csvMetricRows): columns of
		// their own, only when the verdict is on block minima.
		m.Header = append(m.Header, "delta_median", "delta_median_ci_lo", "delta_median_ci_hi", "verdict_median")
	}
	names := a.Header.ArmNames()
	passes := &document.Table{Title: "passes", Header: []string{"round", "arm", "pid", "inv", "cold", "metric", "ns"}}
	for _, cb := range j.Counted() {
		b := cb.Block
		for _, p := range b.Passes {
			for _, mi := range metric.PassMetrics(p) {
				if v, ok := p.Values[mi.Name]; ok {
					passes.Rows = append(passes.Rows, []string{fmt.Sprint(b.Round), names[cb.Arm], fmt.Sprint(p.Pid), fmt.Sprint(p.Inv),
						fmt.Sprint(p.Cold), mi.Name, fmt.Sprint(v)})
				}
			}
		}
	}
	out := []*document.Table{m, passes}
	if t := a.warningsCSV(); t != nil {
		out = append([]*document.Table{t}, out...)
	}
	if t := a.roundsCSV(); t != nil {
		out = append(out, t)
	}
	if t := a.LooksTable(); t != nil {
		out = append(out, t)
	}
	return out
}

// roundsCSV is the primary metric round by round as csv writes it: plain
// numbers, empty when unknown.
func (a Report) roundsCSV() *document.Table {
	p := a.PrimaryResult()
	if p == nil || len(a.RoundTable) == 0 {
		return nil
	}
	t := &document.Table{Title: "rounds", Header: []string{"round", "metric", "unit", "base", "head", "log_ratio"}}
	for _, r := range a.RoundTable {
		t.Rows = append(t.Rows, []string{fmt.Sprint(r.Round), p.Name, unitOf(p), analysis.CsvNum(r.Stat[journal.Base]), analysis.CsvNum(r.Stat[journal.Head]), analysis.CsvNum(r.LogRatio)})
	}
	return t
}

// csvMetricRows adds the csv rows of a's metrics to m, one per (metric,
// arm).
func (a Report) csvMetricRows(m *document.Table) {
	f := func(x journal.Num) string {
		if math.IsNaN(float64(x)) {
			return ""
		}
		return fmt.Sprint(float64(x))
	}
	for _, r := range a.Metrics {
		for arm := range 2 {
			s := r.Arms[arm]
			m.Rows = append(m.Rows, []string{r.Name, r.Family, unitOf(&r), fmt.Sprint(r.Primary), journal.ArmNames[arm], fmt.Sprint(s.N),
				f(s.TrimmedMean), f(s.Median), f(s.Min), f(s.P90), f(s.Max), f(r.Delta), f(r.CILo), f(r.CIHi), f(r.DeltaMin),
				f(r.DeltaP90), f(r.P90CILo), f(r.P90CIHi), ceilingWords(&r),
				fmt.Sprint(r.SignK), fmt.Sprint(r.SignN), f(r.P), f(r.HolmP), r.Verdict.String(), strings.Join(r.Aliases, " ")})
			if a.minPrimary() {
				row := &m.Rows[len(m.Rows)-1]
				*row = append(*row, f(r.DeltaMedian), f(r.MedCILo), f(r.MedCIHi), medianWords(&r))
			}
		}
	}
}

// A Report is an analysis as its report documents read it: its methods
// turn the analysis into the headline, the tables and the documents every
// format writes.
type Report struct{ *analysis.Analysis }

// A MergedReport is a merged analysis of a campaign's shards as its
// report reads it.
type MergedReport struct{ *analysis.Merged }

// ForMerged returns m's report.
func ForMerged(m *analysis.Merged) MergedReport { return MergedReport{m} }

// docOf returns a's report view.
func For(a *analysis.Analysis) Report { return Report{a} }
