package abreport

import (
	"fmt"
	"strings"

	"github.com/hbgkit/hbgkit/abtest/analysis"
	"github.com/hbgkit/hbgkit/internal/document"
)

// CheckLine is a report's first line when an arm's correctness check
// failed: which arm, which command, how it ended, and that no verdict is
// given; "" when every check passed or none ran.
func (a Report) CheckLine() string {
	if a.CheckFailed == "" {
		return ""
	}
	line := "CHECK FAILED: " + strings.TrimPrefix(a.CheckFailed, "correctness check failed: ")
	for _, c := range a.FailedChecks() {
		if len(c.Tail) > 0 {
			line += "; " + c.Arm + "'s check output ends: " + strings.Join(c.Tail[max(0, len(c.Tail)-3):], " / ")
		}
	}
	return line
}

// checkLines are the method lines of the arms' correctness checks: what
// ran where, and how it ended.
func (a Report) checkLines() []string {
	var out []string
	for _, c := range a.Checks {
		verdict := "passed"
		if !c.OK() {
			verdict = "FAILED (" + c.Status() + ")"
		}
		out = append(out, fmt.Sprintf("correctness check of %s, before the blocks of %d rounds: `%s` in %s: %s in %.1f s",
			c.Arm, c.Rounds, c.Command, c.Dir, verdict, float64(c.WallNS)/1e9))
	}
	return out
}

// checkCSV is the first row of the csv report's warnings table when a
// check failed.
func checkRows(a *analysis.Analysis) [][]string {
	if l := For(a).CheckLine(); l != "" {
		return [][]string{{l}}
	}
	return nil
}

// benchfmtCheck writes the first configuration line of a benchfmt
// report when a check failed.
func benchfmtCheck(ew *document.ErrWriter, a *analysis.Analysis, oneLine func(string) string) {
	if l := For(a).CheckLine(); l != "" {
		ew.Printf("check-failed: %s\n", oneLine(strings.TrimPrefix(l, "CHECK FAILED: ")))
	}
}
