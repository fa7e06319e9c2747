package abtest

import (
	"fmt"
)

// look makes and journals the look due after round i, unless the journal
// has it. It reports whether the campaign stops there.
func (st *state) look(i int) (bool, error) {
	h := st.c.Header
	if !h.Config.lookDue(i) {
		return false, nil
	}
	if l := lookAfter(st.looks, i); l != nil {
		return l.Decided, nil
	}
	rec, ok, err := nextLook(h, st.h, st.looks, i)
	if err != nil || !ok {
		return false, err
	}
	if err := st.append(rec); err != nil {
		return false, err
	}
	st.looks = append(st.looks, rec)
	fmt.Fprintf(st.c.Warn, "hbgbench: look %d after %d rounds (%d counted, at most %d): %s; statistic %s, boundary %s, repeated CI %s\n",
		rec.Look, i, rec.N, h.Config.Rounds, rec.Decision, num2(rec.Stat), num2(rec.Boundary), rciText(rec.RCILo, rec.RCIHi))
	return rec.Decided, nil
}
