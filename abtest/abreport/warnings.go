package abreport

import (
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
