package analysis

import (
	"math"
	"slices"
	"strings"

	"github.com/hbgkit/hbgkit/abtest/journal"
	"github.com/hbgkit/hbgkit/abtest/stats"
)

// A campaign of more than two arms (--arm NAME=SPEC, --sweep) journals
// every arm, named, in Header.AllArms (base first) and tags each block
// with its arm's name; each round runs one block of every arm, in the
// order its schedule draws (Schedule.Orders). Its analysis is one
// two-arm analysis per other arm, base against that arm over the same
// rounds, with the primary metric's p Holm-adjusted over the arms
// (AnalyzeArms). Two arms keep the two-arm journal and report.

// analyzeArms analyses a campaign of more than two arms: for each other
// arm, the two-arm analysis of base against it over the campaign's rounds
// (armView), then the primary rows' p Holm-adjusted over the arms, which
// gates their faster and slower verdicts (holmArms).
func analyzeArms(j *journal.Journal) *Analysis {
	h := j.Header
	a := &Analysis{
		Schema: AnalysisSchema, Design: DesignInterleaved, Test: "wilcoxon signed-rank",
		Header: h, Planned: h.Config.Rounds, Primary: h.Primary, Margin: h.Config.Margin,
		Metrics: []MetricResult{},
	}
	a.Warnings = append(a.Warnings, j.Warnings...)
	for k := 1; k < len(h.AllArms); k++ {
		a.Comparisons = append(a.Comparisons, Analyze(ArmView(j, k)))
	}
	holmArms(a.Comparisons, a.Margin)
	var failed []string
	for _, c := range a.Comparisons {
		if c.CheckFailed != "" && !slices.Contains(failed, c.CheckFailed) {
			failed = append(failed, c.CheckFailed)
		}
	}
	a.CheckFailed = strings.Join(failed, "; ")
	first := a.Comparisons[0]
	a.Complete, a.Partial, a.Primary = first.Complete, first.Partial, first.Primary
	// The noise figures are per comparison; here only the failed blocks
	// (base's, and the other arms' together) and the dropped rounds.
	a.Noise = Noise{SigmaD: nan(), MDE: nan(), Lag1: [2]journal.Num{nan(), nan()}, Drift: [2]journal.Num{nan(), nan()}, Dropped: first.Noise.Dropped}
	a.Noise.Failures[journal.Base] = first.Noise.Failures[journal.Base]
	for _, c := range a.Comparisons {
		a.Noise.Failures[journal.Head] += c.Noise.Failures[journal.Head]
	}
	// What the campaign cost is over every arm's blocks.
	a.Cost = costOf(a, j)
	seen := map[string]bool{}
	for _, w := range a.Warnings {
		seen[w] = true
	}
	for _, c := range a.Comparisons {
		for _, w := range c.Warnings {
			if !seen[w] {
				seen[w] = true
				a.Warnings = append(a.Warnings, w)
			}
		}
	}
	return a
}

// armView is the two-arm journal of base against arm k of a campaign of
// more than two arms: the same rounds, with the blocks of base and of arm
// k as base and head.
func ArmView(j *journal.Journal, k int) *journal.Journal {
	h := j.Header
	names := h.ArmNames()
	v := &journal.Journal{Path: j.Path, Header: h, Rounds: j.Rounds, Good: j.Good}
	// The view's arms are base and head: the base and arm k, renamed.
	rename := func(arm string) (string, bool) {
		switch arm {
		case names[journal.Base]:
			return journal.ArmNames[journal.Base], true
		case names[k]:
			return journal.ArmNames[journal.Head], true
		}
		return "", false
	}
	for _, c := range j.Checks {
		var ok bool
		if c.Arm, ok = rename(c.Arm); ok {
			v.Checks = append(v.Checks, c)
		}
	}
	v.Header.AllArms = nil
	v.Header.Arms = [2]journal.Arm{h.AllArms[journal.Base], h.AllArms[k]}
	v.Header.Schedule.Arms, v.Header.Schedule.Orders = 0, nil
	for _, b := range j.Blocks {
		var ok bool
		if b.Arm, ok = rename(b.Arm); ok {
			v.Blocks = append(v.Blocks, b)
		}
	}
	return v
}

// holmArms adjusts the p of the primary rows of every comparison with
// the base by Holm over all of them (one per arm, or per arm and rank),
// and calls their verdicts again: faster or slower needs the adjusted p
// below 0.05 as well as the interval beyond the margin.
func holmArms(cs []*Analysis, margin float64) {
	var rows []*MetricResult
	var ps []float64
	for _, c := range cs {
		for _, m := range c.PrimaryResults() {
			if m.Error == "" && !math.IsNaN(float64(m.P)) {
				rows = append(rows, m)
				ps = append(ps, float64(m.P))
			}
		}
	}
	if len(ps) == 0 {
		return
	}
	for i, p := range stats.Holm(ps) {
		m := rows[i]
		m.HolmP, m.Extra, m.Gated = journal.Num(p), 0, false
		Decide(m, margin, true)
	}
	for _, c := range cs {
		withholdEstimates(c)
	}
}

// Views returns the two-arm analyses of a campaign: for more than two
// arms its comparisons of each arm with the base, else itself.
func (a *Analysis) Views() []*Analysis {
	if len(a.Comparisons) > 0 {
		return a.Comparisons
	}
	return []*Analysis{a}
}
