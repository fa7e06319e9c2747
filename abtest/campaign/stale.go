package campaign

import (
	"fmt"

	"github.com/hbgkit/hbgkit/abtest/journal"
)

// A StaleRef is a git arm whose ref now names another commit than the one
// its campaign measured: the report is of code the ref no longer points
// at (a branch pushed again, a base that moved on).
type StaleRef struct {
	Arm      string // the arm's name in the report: base, head or its own
	Ref      string
	Measured string // the sha the campaign measured
	Now      string // the sha the ref names now
}

// Text says it as a report's warning: "pr (head) is now 21acf53…,
// measured 4b37496…: the report is of the measured commit".
func (s StaleRef) Text() string {
	return fmt.Sprintf("%s (%s) is now %s…, measured %s…: this report is of the commit measured, not of what %s names now; run the campaign again to measure it",
		s.Ref, s.Arm, short(s.Now), short(s.Measured), s.Ref)
}

func short(sha string) string { return sha[:min(7, len(sha))] }

// StaleRefs returns the git arms of header h whose ref names another
// commit in the repository holding dir than the one measured. Only a
// repository that has the measured commit is asked (another repository's
// refs say nothing of this campaign); outside a repository, or for a ref
// that names nothing now, there is nothing to say.
func StaleRefs(h *journal.Header, dir string) []StaleRef {
	root, err := RepoRoot(dir)
	if err != nil {
		return nil
	}
	var out []StaleRef
	names := h.ArmNames()
	seen := map[string]bool{}
	for i, a := range h.ArmList() {
		if a.Kind != journal.KindGit || a.Sha == "" || seen[a.Spec+a.Sha] {
			continue
		}
		if _, err := git(root, "cat-file", "-e", a.Sha+"^{commit}"); err != nil {
			continue
		}
		now, err := ResolveRef(root, a.Spec)
		if err != nil || now == a.Sha {
			continue
		}
		seen[a.Spec+a.Sha] = true
		out = append(out, StaleRef{Arm: names[i], Ref: a.Spec, Measured: a.Sha, Now: now})
	}
	return out
}
