package analysis

import (
	"fmt"
	"strings"

	"github.com/hbgkit/hbgkit/abtest/journal"
)

// applyChecks sets a's Checks to each arm's latest correctness check in
// journal j, and withholds every verdict when one of them failed: a
// faster arm that computes the wrong result is no win, so its rows read
// n/a (NoVerdict, with Error saying why) and CheckFailed says which arm
// failed how; the numbers stay for a reader to see.
func applyChecks(a *Analysis, j *journal.Journal) {
	a.Checks = journal.LastChecks(j.Checks, j.Header.ArmNames())
	var failed []string
	for _, c := range a.Checks {
		if !c.OK() {
			failed = append(failed, fmt.Sprintf("%s's check `%s` ended with %s", armLabel(&j.Header, c.Arm), c.Command, c.Status()))
		}
	}
	if len(failed) == 0 {
		return
	}
	withhold(a, "correctness check failed: "+strings.Join(failed, "; ")+"; no verdict, for a faster arm may be wrong")
}

// mergeChecks withholds the verdicts of the pooled analysis of shards js
// (analysed as shardAs) when a shard's check failed: a check that failed
// on one card fails the campaign.
func mergeChecks(pooled *Analysis, js []*journal.Journal, shardAs []*Analysis) {
	var failed []string
	for k, a := range shardAs {
		if a.CheckFailed != "" {
			failed = append(failed, "shard "+js[k].Header.Shard.Label()+": "+strings.TrimPrefix(a.CheckFailed, "correctness check failed: "))
			pooled.Checks = append(pooled.Checks, a.Checks...)
		}
	}
	if len(failed) > 0 {
		withhold(pooled, "correctness check failed: "+strings.Join(failed, "; "))
	}
}

// withhold sets a's CheckFailed to why and makes every row's verdict
// n/a, the numbers kept.
func withhold(a *Analysis, why string) {
	a.CheckFailed = why
	for i := range a.Metrics {
		m := &a.Metrics[i]
		m.Verdict, m.Extra, m.Gated, m.Determined = NoVerdict, 0, false, false
		if m.Error == "" {
			m.Error = "the correctness check failed"
		}
	}
}

// armLabel is how a report names arm (its journal name): a named arm's
// name, else base or head.
func armLabel(h *journal.Header, arm string) string {
	for i, n := range journal.ArmNames {
		if n == arm && h.Arms[i].Name != "" {
			return h.Arms[i].Name
		}
	}
	return arm
}

// FailedChecks returns the checks of a (or of its comparisons, for a
// campaign of more than two arms) that failed, each once.
func (a *Analysis) FailedChecks() []journal.CheckRecord {
	var out []journal.CheckRecord
	seen := map[string]bool{}
	for _, v := range append([]*Analysis{a}, a.Comparisons...) {
		for _, c := range v.Checks {
			key := armLabel(&v.Header, c.Arm) + "\x00" + c.Command
			if !c.OK() && !seen[key] {
				seen[key] = true
				c.Arm = armLabel(&v.Header, c.Arm)
				out = append(out, c)
			}
		}
	}
	return out
}
