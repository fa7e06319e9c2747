package abreport

import (
	"strings"
)

// SameWorkLine is the line a report prints above the verdict when the
// arms did different work, "" when they did the same (or the logs say
// nothing of it).
func (a Report) SameWorkLine() string {
	if len(a.WorkDiffs) == 0 {
		return ""
	}
	var parts []string
	for _, d := range a.WorkDiffs {
		parts = append(parts, d.Text)
	}
	return "DIFFERENT WORK: the arms did not do the same work, so the verdict below compares different jobs: " + strings.Join(parts, "; ")
}
