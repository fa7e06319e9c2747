package abreport

import (
	"strings"
)

// SameWorkLine is the line a report prints above the verdict when the
// arms did different work, or some warm pass did other work than the
// rest of its arm; "" when every pass did the same (or the logs say
// nothing of it).
func (a Report) SameWorkLine() string {
	if len(a.WorkDiffs) == 0 {
		return ""
	}
	var parts []string
	within := true
	for _, d := range a.WorkDiffs {
		parts = append(parts, d.Text)
		within = within && d.WithinAnArm()
	}
	if within {
		return "DIFFERENT WORK: not every warm pass did the same work, so the verdict below compares different jobs: " + strings.Join(parts, "; ")
	}
	return "DIFFERENT WORK: the arms did not do the same work, so the verdict below compares different jobs: " + strings.Join(parts, "; ")
}
