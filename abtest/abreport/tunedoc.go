package abreport

import (
	"fmt"
	"io"
	"math"

	"github.com/hbgkit/hbgkit/abtest/analysis"
	"github.com/hbgkit/hbgkit/internal/document"
	"github.com/hbgkit/hbgkit/internal/report/terminal"
)

// TuneDocument is `hbgbench aa --tune`'s report: the candidate designs
// measured on the A/A campaign, each one's spread and the card time it
// needs to detect the effect, and the recommendation (docs/ab.md "Tuning
// the design to the host").
func TuneDocument(t *analysis.Tuning, rounds int) *document.Document {
	d := &document.Document{}
	head := fmt.Sprintf("design for detecting %s on %s: ", analysis.AbsPct(t.Effect), t.Metric)
	switch {
	case t.PinRefused != "":
		head += "none recommended: " + t.PinRefused
	case t.Best < 0:
		head += "none recommended: no candidate's spread and time could be measured"
	default:
		b := t.Candidates[t.Best]
		head += fmt.Sprintf("--block %d --block-stat %s, about %d rounds, %s of card time (a round %s)",
			b.Block, b.BlockStat, b.Need, seconds(float64(b.Seconds)), seconds(float64(b.RoundSeconds)))
		if t.CPUs != "" {
			head += fmt.Sprintf(", pinned with --cpus %s", t.CPUs)
		}
	}
	d.Add(&document.Paragraph{Text: head})
	tb := &document.Table{Title: fmt.Sprintf("candidates, measured on the same %d A/A rounds (the first k passes of each block are a block of k)", rounds),
		Header: []string{"block", "statistic", "σ_t", "σ_t 95% CI", "rounds for " + analysis.AbsPct(t.Effect), "a round", "card time", ""},
		Align:  []document.Align{document.Right, document.Left, document.Right, document.Right, document.Right, document.Right, document.Right, document.Left}}
	for i, c := range t.Candidates {
		need := "more than 2²⁴"
		if c.Need > 0 {
			need = fmt.Sprint(c.Need)
		}
		mark := ""
		if i == t.Best {
			mark = "← recommended"
		}
		tb.Rows = append(tb.Rows, []string{fmt.Sprint(c.Block), string(c.BlockStat), pct1(float64(c.SigmaT)),
			pct1(float64(c.SigmaLo)) + "…" + pct1(float64(c.SigmaHi)), need, seconds(float64(c.RoundSeconds)), seconds(float64(c.Seconds)), mark})
	}
	d.Add(tb)
	_, why := t.Threads.Pinnable()
	d.Add(&document.List{Items: []string{
		fmt.Sprintf("a round's card time: both arms' blocks, %s of start-up and exit per block and %s per pass, measured on these blocks", seconds(float64(t.Overhead)), seconds(float64(t.PassSeconds))),
		"rounds: the fewest whose trimmed-t MDE at 80% power is the effect (stats.TrimmedRoundsFor); the σ_t interval is chi-square on the trimmed t's degrees of freedom, so a candidate whose interval overlaps the recommended one's may be as good",
		"pinning: " + why,
		"the recommendation comes from this A/A campaign only; a campaign it configures is judged on its own rounds",
	}})
	return d
}

// pct1 is a share as a percentage with one decimal; "–" when unknown.
func pct1(x float64) string {
	if math.IsNaN(x) {
		return "–"
	}
	return fmt.Sprintf("%.1f%%", 100*x)
}

// WriteTuning writes TuneDocument in format: text, markdown or json (the
// Tuning); csv and benchfmt have no form of it and write text.
func WriteTuning(w io.Writer, format string, t *analysis.Tuning, rounds int) error {
	switch format {
	case "json":
		return document.WriteJSON(w, t)
	case "markdown":
		return document.WriteMarkdown(w, TuneDocument(t, rounds))
	}
	return terminal.WriteText(w, TuneDocument(t, rounds))
}

// TunedNote is the recipe's `tuned` value for the recommended design of
// t: where it came from, for the reports of the campaigns it configures.
func TunedNote(t *analysis.Tuning, a *analysis.Analysis) string {
	b := t.Candidates[t.Best]
	return fmt.Sprintf("hbgbench aa --tune, %s, on %s (%d CPUs): σ_t %s over %d A/A rounds; %s in about %d rounds, %s",
		a.Header.Created.UTC().Format("2006-01-02 15:04 UTC"), a.Header.Env.CPUModel, a.Header.Env.NCPU, pct1(float64(b.SigmaT)), b.Rounds,
		analysis.AbsPct(t.Effect), b.Need, seconds(float64(b.Seconds)))
}
