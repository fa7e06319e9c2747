package campaign

import (
	"fmt"
	"github.com/hbgkit/hbgkit/abtest/analysis"
)

// look makes and journals the look due after round i, unless the journal
// has it. It reports whether the campaign stops there.
func (st *state) look(i int) (bool, error) {
	h := st.c.Header
	if !h.Config.LookDue(i) {
		return false, nil
	}
	if l := analysis.LookAfter(st.looks, i); l != nil {
		return l.Decided, nil
	}
	rec, ok, err := analysis.NextLook(h, st.h, st.looks, i)
	if err != nil || !ok {
		return false, err
	}
	if err := st.append(rec); err != nil {
		return false, err
	}
	st.looks = append(st.looks, rec)
	fmt.Fprintf(st.c.Warn, "look %d after %d rounds (%d counted, at most %d): %s; statistic %s, boundary %s, repeated CI %s\n",
		rec.Look, i, rec.N, h.Config.Rounds, rec.Decision, analysis.Num2(rec.Stat), analysis.Num2(rec.Boundary), analysis.RciText(rec.RCILo, rec.RCIHi))
	return rec.Decided, nil
}
