package campaign

import (
	"fmt"
	"slices"

	"github.com/hbgkit/hbgkit/abtest/journal"
)

// anyGit reports whether an arm is a git ref.
func anyGit(arms []journal.Arm) bool {
	for _, a := range arms {
		if a.Kind == journal.KindGit {
			return true
		}
	}
	return false
}

// armsDiffer says how arms g, given again to resume, differ from the
// journal's arms j (both base first), or "" when they are the same
// campaign's. Named arms are matched by name, so they may be given in
// another order as long as the base is the same (the journal's order is
// the one the campaign keeps); unnamed arms (--base and --head) by place.
// Each pair is compared by sameArm, so a git arm's build, run and env
// count only when given again, in a campaign of any number of arms.
func (o *Options) armsDiffer(j, g []journal.Arm) string {
	named := len(j) > 0 && len(g) > 0
	for _, a := range append(slices.Clip(j), g...) {
		named = named && a.Name != ""
	}
	same := len(j) == len(g)
	for i := 0; same && i < len(j); i++ {
		k := i
		if named {
			k = slices.IndexFunc(g, func(a journal.Arm) bool { return a.Name == j[i].Name })
		}
		same = k >= 0 && o.sameArm(j[i], g[k])
	}
	label := func(a journal.Arm) string {
		if a.Name != "" {
			return a.Name + "=" + armLabel(a)
		}
		return armLabel(a)
	}
	switch {
	case !same && len(j) == 2 && len(g) == 2:
		return fmt.Sprintf("arms: journal %s vs %s, given %s vs %s", label(j[0]), label(j[1]), label(g[0]), label(g[1]))
	case !same:
		return fmt.Sprintf("arms: journal %s, given %s", armSpecs(j), armSpecs(g))
	case named && j[0].Name != g[0].Name:
		return fmt.Sprintf("base: the journal's is %s, given %s: a campaign's base arm is set when it starts (give --baseline %s, or the arms in the journal's order)", j[0].Name, g[0].Name, j[0].Name)
	}
	return ""
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
		if a.Load != nil {
			out += " under " + a.Sweep
		}
	}
	return out
}
