package campaign

import "github.com/hbgkit/hbgkit/abtest/journal"

// anyGit reports whether an arm is a git ref.
func anyGit(arms []journal.Arm) bool {
	for _, a := range arms {
		if a.Kind == journal.KindGit {
			return true
		}
	}
	return false
}

// armsEqual reports whether two arm lists are the same arms, names
// included.
func armsEqual(a, b []journal.Arm) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !a[i].Equal(b[i]) || a[i].Name != b[i].Name {
			return false
		}
	}
	return true
}

// armList returns the arms of the options, base first: AllArms when
// there are more than two, else Arms.
func (o *Options) armList() []journal.Arm {
	if len(o.AllArms) > 2 {
		return o.AllArms
	}
	return o.Arms[:]
}

// armSpecs lists arms for a message: "name=spec" or the spec alone.
func armSpecs(arms []journal.Arm) string {
	out := ""
	for i, a := range arms {
		if i > 0 {
			out += ", "
		}
		if a.Name != "" {
			out += a.Name + "="
		}
		out += a.Spec
	}
	return out
}
