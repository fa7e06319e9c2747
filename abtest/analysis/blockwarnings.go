package analysis

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/hbgkit/hbgkit/abtest/journal"
)

// evidencePos and evidenceTimes are the parts of a block's evidence
// warning ("evidence: LOG:12: host_orch: … (4 times)") that differ from
// block to block: its log and line, and its count.
var (
	evidencePos   = regexp.MustCompile(`^evidence: .*?:\d+: `)
	evidenceTimes = regexp.MustCompile(` \(\d+ times\)$`)
)

// totalsWarning starts phases' warning of the pass totals some passes
// lack.
const totalsWarning = "evidence: pass totals known only for"

// moreEvidence is the line that stands for the evidence warnings past
// maxBlockWarnings.
const moreEvidence = "and %d more evidence warnings of the blocks' logs (their block records in the journal)"

// EvidenceCount is how many evidence warnings (what a log left out: a
// counter's value cut or bad, a pass total missing) warning w of an
// Analysis stands for: 1 for one, K for the line standing for K more, 0
// for a warning of another kind.
func EvidenceCount(w string) int {
	var k int
	if n, err := fmt.Sscanf(w, moreEvidence, &k); err == nil && n == 1 {
		return k
	}
	if strings.HasPrefix(w, "evidence: ") {
		return 1
	}
	return 0
}

// maxBlockWarnings bounds the distinct evidence warnings a report lists.
const maxBlockWarnings = 4

// blockEvidenceWarnings returns the evidence warnings of the counted
// blocks' logs (journal.BlockRecord.Warnings: a value cut or bad, a pass
// total missing), each once with on how many blocks it was seen, so that
// a campaign's report names what its logs left out (docs/formats.md
// "Evidence: counters and work attributes").
func blockEvidenceWarnings(j *journal.Journal) []string {
	var order []string
	count := map[string]int{}
	blocks := 0
	for _, cb := range j.Counted() {
		blocks++
		seen := map[string]bool{}
		for _, w := range cb.Block.Warnings {
			if !evidencePos.MatchString(w) {
				continue
			}
			m := evidenceTimes.ReplaceAllString(evidencePos.ReplaceAllString(w, "evidence: "), "")
			if seen[m] {
				continue
			}
			seen[m] = true
			if count[m] == 0 {
				order = append(order, m)
			}
			count[m]++
		}
	}
	// What the cuts cost (the pass totals left missing) first; the cuts
	// themselves, segment by segment, after.
	sort.SliceStable(order, func(a, b int) bool {
		return strings.HasPrefix(order[a], totalsWarning) && !strings.HasPrefix(order[b], totalsWarning)
	})
	var out []string
	for i, m := range order {
		if i == maxBlockWarnings {
			out = append(out, fmt.Sprintf(moreEvidence, len(order)-i))
			break
		}
		out = append(out, fmt.Sprintf("%s (in %d of %d blocks' logs)", m, count[m], blocks))
	}
	return out
}
