package abreport

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/hbgkit/hbgkit/abtest/analysis"
	"github.com/hbgkit/hbgkit/abtest/journal"
	"github.com/hbgkit/hbgkit/internal/document"
	"github.com/hbgkit/hbgkit/internal/report/terminal"
)

// Formats are the report formats of hbgbench's ab, aa, report and compare.
var Formats = []string{"text", "markdown", "json", "csv", "benchfmt"}

// CheckFormat refuses a format Write does not write.
func CheckFormat(f string) error {
	if slices.Contains(Formats, f) {
		return nil
	}
	return fmt.Errorf("--format %q: want one of %s", f, strings.Join(Formats, ", "))
}

// WriteOptions say how Write writes a report.
type WriteOptions struct {
	Format string // one of Formats
	Redact bool   // drop host names and absolute paths
	AA     bool   // the calibration report of aa
	// FullTable puts markdown's full table inline in place of the short
	// table for a pull request (--full-table).
	FullTable bool
}

// Write writes the analysis of journal j in the chosen format: text and
// markdown documents, the Analysis as JSON, CSV tables, or Go benchmark
// lines.
func Write(w io.Writer, o WriteOptions, a *analysis.Analysis, j *journal.Journal) error {
	if o.Redact {
		a, j = Redacted(a), RedactedJournal(j)
	}
	switch o.Format {
	case "markdown":
		doc := For(a).MarkdownDocument()
		if o.FullTable {
			doc = For(a).FullMarkdownDocument()
		}
		if o.AA {
			doc = aaDocument(a, doc)
		}
		return document.WriteMarkdown(w, doc)
	case "json":
		return document.WriteJSON(w, a)
	case "csv":
		return document.WriteCSV(w, For(a).CSVTables(j)...)
	case "benchfmt":
		return WriteBenchfmt(w, a, j)
	}
	doc := For(a).Document()
	if o.AA {
		doc = aaDocument(a, doc)
	}
	return terminal.WriteText(w, doc)
}

// WriteMerged writes the merged analysis of a campaign's shards in format
// (any of Formats but benchfmt, which is per journal).
func WriteMerged(w io.Writer, format string, m *analysis.Merged) error {
	switch format {
	case "markdown":
		return document.WriteMarkdown(w, ForMerged(m).MarkdownDocument())
	case "json":
		return document.WriteJSON(w, m)
	case "csv":
		return document.WriteCSV(w, ForMerged(m).CSVTables()...)
	}
	return terminal.WriteText(w, ForMerged(m).Document())
}
