package abreport

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/hbgkit/hbgkit/abtest/analysis"
	"github.com/hbgkit/hbgkit/internal/document"
)

// warningsCSV is the csv report's first table when anything qualifies the
// verdict: a failed correctness check first (CheckLine), then every line
// the text report lists as a WARNING (the qualifiers, then the
// warnings), one a row; nil when there is none.
func (a Report) warningsCSV() *document.Table {
	rows := checkRows(a.Analysis)
	for _, g := range [][]string{a.Qualifiers, a.Warnings} {
		for _, w := range g {
			rows = append(rows, []string{w})
		}
	}
	if len(rows) == 0 {
		return nil
	}
	return &document.Table{Title: "warnings", Header: []string{"warning"}, Rows: rows}
}

// benchfmtWarnings writes the configuration lines of a benchfmt report
// that benchstat repeats above its tables: one "correctness-switch" line
// per arm that runs with a switch known to turn a correctness check off
// (keys are per arm, since a later line of one key replaces an earlier).
func benchfmtWarnings(ew *document.ErrWriter, a *analysis.Analysis, oneLine func(string) string) {
	for _, s := range a.Switches {
		advice := "run it with --check, without the switch"
		if s.Checked {
			advice = "its --check checks its results apart"
		}
		ew.Printf("correctness-switch-%s: %s (a faster arm may be wrong: %s)\n",
			s.Arm, oneLine(strings.Join(s.Switches, ", ")), advice)
	}
}

// foldEvidence folds the evidence warnings of a pull request's report
// (analysis.EvidenceCount: what the logs left out, one line per counter
// and segment, which on a runtime whose attribute buffer cuts counters
// can be most of the list) into one WARNING above the table and a
// <details> list under it, so that what qualifies the verdict is not
// lost among them. A warning that names the primary metric stays above,
// as do all of them when there is only one. It returns the warnings to
// show above and the blocks to add under the table.
func foldEvidence(ws []string, primary string) ([]string, []document.Block) {
	var above, folded []string
	names := regexp.MustCompile(`(^|[^\w.])` + regexp.QuoteMeta(primary) + `($|[^\w.])`)
	n := 0
	for _, w := range ws {
		if k := analysis.EvidenceCount(w); k > 0 && (primary == "" || !names.MatchString(w)) {
			folded = append(folded, w)
			n += k
			continue
		}
		above = append(above, w)
	}
	if len(folded) < 2 {
		return ws, nil
	}
	about := ""
	if primary != "" {
		about = fmt.Sprintf("; none names %s, the verdict's metric", primary)
	}
	above = append(above, fmt.Sprintf("evidence: %d warnings that the blocks' logs left values out (counters cut or unreadable, pass totals missing)%s; they are listed under the table", n, about))
	return above, []document.Block{&document.Details{
		Summary: fmt.Sprintf("evidence: what the blocks' logs left out (%d warnings)", n),
		Blocks:  []document.Block{&document.List{Items: folded}},
	}}
}
