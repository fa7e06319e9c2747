package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/hbgkit/hbgkit/swimlane"
)

// The views of `hbgtrace gaps` and `hbgtrace overlap`.

// WriteGaps writes the gap reports in format: text (per bind a heading
// line, one line per gap, the commit wait), markdown (one table per bind)
// or json (the reports themselves). Unlike the table views' json, this one escapes
// <, > and & as \u003c, \u003e and \u0026 (lane names such as
// "ext <producer>"), as it always has.
func WriteGaps(w io.Writer, format string, gs []swimlane.BindGaps) error {
	var b strings.Builder
	switch format {
	case FormatJSON:
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(gs)
	case FormatMarkdown:
		writeGapsMarkdown(&b, gs)
	default:
		writeGapsText(&b, gs)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteOverlap writes the verdict of a passed overlap assertion over
// pairs adjacent dispatch pairs.
func WriteOverlap(w io.Writer, pairs int) error {
	_, err := fmt.Fprintf(w, "Native overlap verified for %d adjacent dispatch pair(s).\n", pairs)
	return err
}

func gapUS(ns int64) string { return fixed1(float64(ns) / 1e3) }

// writeGapsText renders gap reports as text: per bind a heading line, one
// line per gap (its length, the submission it follows, its offset from the
// bind's start and the recorder lanes created inside it), and the commit
// wait.
func writeGapsText(b *strings.Builder, gs []swimlane.BindGaps) {
	for i := range gs {
		g := &gs[i]
		fmt.Fprintf(b, "%s (tid %d): %d graph_submit, median gap %s us, threshold %s us, %d gap(s) longer\n",
			g.Label(), g.Tid, g.Submits, gapUS(g.MedianGap), gapUS(g.MinGap), len(g.Gaps))
		for _, p := range g.Gaps {
			fmt.Fprintf(b, "  gap %10s us  after graph_submit #%d  at +%s us  created: %s\n",
				gapUS(p.Dur()), p.After, gapUS(p.Start-g.BindTs), swimlane.LaneNames(p.Created))
		}
		if g.HasCommit {
			fmt.Fprintf(b, "  commit wait %s us (last graph_submit end -> last build_definition end)\n", gapUS(g.CommitWait))
		} else {
			fmt.Fprintf(b, "  commit wait: no build_definition record\n")
		}
	}
}

// writeGapsMarkdown renders gap reports as one markdown table per bind.
func writeGapsMarkdown(b *strings.Builder, gs []swimlane.BindGaps) {
	for i := range gs {
		g := &gs[i]
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(b, "**%s** (tid %d): %d graph_submit, median gap %s us, threshold %s us", g.Label(), g.Tid, g.Submits, gapUS(g.MedianGap), gapUS(g.MinGap))
		if g.HasCommit {
			fmt.Fprintf(b, ", commit wait %s us", gapUS(g.CommitWait))
		}
		b.WriteString("\n\n| gap (us) | after graph_submit | at (us from bind start) | recorder lanes created inside |\n|---:|---:|---:|---|\n")
		for _, p := range g.Gaps {
			fmt.Fprintf(b, "| %s | %d | %s | %s |\n", gapUS(p.Dur()), p.After, gapUS(p.Start-g.BindTs), swimlane.LaneNames(p.Created))
		}
	}
}
