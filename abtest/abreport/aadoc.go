package abreport

import (
	"fmt"
	"math"
	"strings"

	"github.com/hbgkit/hbgkit/abtest/analysis"
	"github.com/hbgkit/hbgkit/abtest/journal"
	"github.com/hbgkit/hbgkit/internal/document"
)

// designFlags returns the flags of c's design that a campaign must repeat
// for aa's margin to hold there: its --block, --block-stat and --cold when
// they are not the defaults, and its --cpus. Each changes the noise the
// margin was measured on.
func designFlags(c journal.Config) string {
	def := journal.DefaultConfig()
	var f strings.Builder
	if c.Block != def.Block {
		fmt.Fprintf(&f, " --block %d", c.Block)
	}
	if c.Cold != def.Cold {
		fmt.Fprintf(&f, " --cold %d", c.Cold)
	}
	if c.BlockStat != journal.DefaultBlockStat(c.Block, c.Cold) {
		fmt.Fprintf(&f, " --block-stat %s", c.BlockStat)
	}
	if c.CPUs != "" {
		fmt.Fprintf(&f, " --cpus %s", c.CPUs)
	}
	return f.String()
}

// aaDocument is the calibration report: the campaign's report full with
// the noise figures and the suggested margin in place of its headline.
func aaDocument(a *analysis.Analysis, full *document.Document) *document.Document {
	d := &document.Document{}
	if l := For(a).CheckLine(); l != "" {
		d.Add(&document.Paragraph{Text: l})
	}
	p := a.PrimaryResult()
	lines := []string{}
	if p != nil && p.Error == "" {
		verdict := p.Verdict.String()
		if p.Verdict.IsBounded() && a.Sequential != nil {
			verdict += fmt.Sprintf(": no change of %s or more", analysis.AbsPct(float64(a.Sequential.StopWithin)))
		}
		lines = append(lines, fmt.Sprintf("A/A calibration of %s: verdict %s (an A/A campaign should not be faster or slower)", p.Label, verdict))
		mde := fmt.Sprintf("%.1f%%", 100*float64(a.Noise.MDE))
		if math.IsNaN(float64(a.Noise.MDE)) {
			mde = "none, " + p.NoInterval
		}
		lines = append(lines, fmt.Sprintf("σ_d %.2f%% per round; minimum detectable effect at 80%% power in %d rounds: %s",
			100*float64(a.Noise.SigmaD), p.Rounds, mde))
		if l := For(a).DetectableLine(); l != "" {
			lines = append(lines, l)
		}
		if m := a.SuggestedMargin(); m == m {
			lines = append(lines, fmt.Sprintf("suggested: hbgbench ab --margin %.1f%% --rounds %d%s (smaller changes cannot be resolved in as many rounds here)", 100*m, p.Rounds, designFlags(a.Header.Config)))
			if iv, df, pin, ok := a.MarginUncertainty(); ok {
				lines = append(lines, fmt.Sprintf("how sure: the spread behind it rests on %d degrees of freedom, so these rounds are consistent with a margin from %.1f%% to %.1f%% (95%%, chi-square; more if the rounds are heavy-tailed); an aa of %d rounds pins the spread within %.0f%%",
					df, 100*iv.Lo, 100*iv.Hi, pin, 100*(analysis.PinFactor-1)))
			}
		}
	} else {
		lines = append(lines, "A/A calibration: "+For(a).Headline())
	}
	// full opens with the failed-check line and the different-work line,
	// when there are, and the headline this replaces.
	skip := 1
	if For(a).CheckLine() != "" {
		skip++
	}
	if w := For(a).SameWorkLine(); w != "" {
		lines = append([]string{w}, lines...)
		skip++
	}
	d.Add(&document.Paragraph{Text: strings.Join(lines, "\n")})
	d.Add(full.Blocks[skip:]...)
	return d
}
