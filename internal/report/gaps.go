package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/hbgkit/hbgkit/swimlane"
)

// The views of `hbgtrace gaps` and `hbgtrace overlap`.

// WriteGaps writes the gap reports in format: text and markdown as
// swimlane lays them out (the same tables the HTML view shows), json as
// the reports themselves. Unlike the table views' json, this one escapes
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
		swimlane.WriteGapsMarkdown(&b, gs)
	default:
		swimlane.WriteGapsText(&b, gs)
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
