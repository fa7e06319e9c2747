package abtest

import (
	"fmt"
	"math"

	"github.com/hbgkit/hbgkit/trace"
)

// A WorkDiff is a work count the arms disagree on: the median of each
// arm's warm passes. Two arms that do different work are not a
// comparison of one job done two ways, whatever their times say.
type WorkDiff struct {
	Metric string `json:"metric"`
	Base   Num    `json:"base"`
	Head   Num    `json:"head"`
	Text   string `json:"text"` // "head submits 79 Graphs per bind, base 82"
}

// workPhrases say what a work count is, as "<verb> %s <things> per bind".
var workPhrases = map[string]string{
	workPrefix + trace.SegGraphUpload + ".submissions": "submits %s Graphs",
	workPrefix + trace.SegGraphUpload + ".defs":        "uploads %s Definitions",
	workPrefix + trace.SegGraphPack + ".defs":          "packs %s Definitions",
	workPrefix + trace.SegHostOrch + ".tasks":          "records %s tasks",
	workPrefix + trace.SegArgs + ".ntensor":            "passes %s tensors",
	workPrefix + trace.SegHostViewClose + ".count":     "closes %s host views",
}

// sameWorkExempt are work attributes that are state rather than work:
// heap_used is what the heap holds, which a change may rightly move.
var sameWorkExempt = map[string]bool{workPrefix + trace.SegHostOrch + ".heap_used": true}

// workDiffs compares the work counts of the arms' warm passes (logs:
// per arm, per block or log, its passes) and returns those whose medians
// differ, in report order. A count only one arm records is not compared.
func workDiffs(logs [2][][]Pass, cold int) []WorkDiff {
	var out []WorkDiff
	for _, m := range KnownMetrics() {
		if m.Family != FamilyWork || sameWorkExempt[m.Name] {
			continue
		}
		var med [2]float64
		ok := true
		for arm := range 2 {
			var v []float64
			for _, ps := range logs[arm] {
				v = append(v, warmOf(ps, m.Name, cold)...)
			}
			if len(v) == 0 {
				ok = false
				break
			}
			med[arm] = blockStat(v, BlockMedian)
		}
		if !ok || med[Base] == med[Head] {
			continue
		}
		out = append(out, WorkDiff{Metric: m.Name, Base: Num(med[Base]), Head: Num(med[Head]), Text: workText(m.Name, med)})
	}
	return out
}

// workText says how the arms differ on one work count.
func workText(metric string, med [2]float64) string {
	num := func(x float64) string {
		if x == math.Trunc(x) {
			return fmt.Sprintf("%.0f", x)
		}
		return fmt.Sprintf("%.1f", x)
	}
	if p, ok := workPhrases[metric]; ok {
		return fmt.Sprintf("head "+p+" per bind, base %s", num(med[Head]), num(med[Base]))
	}
	return fmt.Sprintf("head's %s is %s per bind, base's %s", metric, num(med[Head]), num(med[Base]))
}
