package analysis

import (
	"fmt"
	"slices"
	"strings"

	"github.com/hbgkit/hbgkit/abtest/journal"
)

// qualifiers returns what qualifies a campaign's verdict, one line each,
// for a report to show above its table: the load at the start and while
// the rounds ran, failed blocks and dropped rounds, an extension decided
// after looking, and a switch in an arm that turns a correctness check
// off. Nothing when the campaign ran clean.
func qualifiers(a *Analysis, j *journal.Journal) []string {
	var out []string
	h := &j.Header
	if w := h.Env.Preflight(); len(w) > 0 {
		out = append(out, "at start: "+strings.Join(w, "; "))
	}
	var loads []float64
	for _, r := range j.Rounds {
		if r.Load != nil && r.Load.Avg1 > 0 {
			loads = append(loads, r.Load.Avg1)
		}
	}
	if len(loads) > 0 {
		hi := slices.Max(loads)
		busy := 0
		for _, l := range loads {
			if journal.Loaded(l, h.Env.NCPU) {
				busy++
			}
		}
		if busy > 0 {
			out = append(out, fmt.Sprintf("during the campaign: load average %.2f to %.2f on %d CPUs when rounds closed, above %d on %d of %d rounds: other work competed with the arms",
				slices.Min(loads), hi, h.Env.NCPU, max(1, h.Env.NCPU/2), busy, len(loads)))
		}
	}
	if f, d := a.Noise.Failures, a.Noise.Dropped; f[journal.Base]+f[journal.Head] > 0 || d > 0 {
		out = append(out, fmt.Sprintf("failed blocks: base %d, head %d; rounds dropped: %d (a dropped round is left out of the analysis)", f[journal.Base], f[journal.Head], d))
	}
	for _, e := range j.Extensions {
		out = append(out, fmt.Sprintf("extended: planned %d rounds, extended to %d after %d had run (--resume --rounds); the CI and p are not adjusted for the look that decided to extend",
			e.From, e.To, e.After))
	}
	for arm, x := range h.ArmList() {
		if s := x.Switches(); len(s) > 0 {
			out = append(out, fmt.Sprintf("%s runs with %s, which turns a correctness check off: a faster arm may be wrong; check its results without the switch before trusting its timing",
				h.ArmNames()[arm], strings.Join(s, ", ")))
		}
	}
	return out
}
