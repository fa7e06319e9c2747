package analysis

import (
	"fmt"
	"math"

	"github.com/hbgkit/hbgkit/abtest/journal"
	"github.com/hbgkit/hbgkit/abtest/metric"
	"github.com/hbgkit/hbgkit/trace"
)

// A WorkDiff is a work count the arms disagree on: the median of each
// arm's warm passes. Two arms that do different work are not a
// comparison of one job done two ways, whatever their times say.
type WorkDiff struct {
	Metric string      `json:"metric"`
	Base   journal.Num `json:"base"`
	Head   journal.Num `json:"head"`
	Text   string      `json:"text"` // "head submits 79 Graphs per bind, base 82"
}

// workPhrases say what a work count is, as "<verb> %s <things> per bind".
var workPhrases = map[string]string{
	metric.WorkPrefix + trace.SegGraphUpload + ".submissions": "submits %s Graphs",
	metric.WorkPrefix + trace.SegGraphUpload + ".defs":        "uploads %s Definitions",
	metric.WorkPrefix + trace.SegGraphPack + ".defs":          "packs %s Definitions",
	metric.WorkPrefix + trace.SegHostOrch + ".tasks":          "records %s tasks",
	metric.WorkPrefix + trace.SegArgs + ".ntensor":            "passes %s tensors",
	metric.WorkPrefix + trace.SegHostViewClose + ".count":     "closes %s host views",
}

// sameWorkExempt are work attributes that are state rather than work:
// heap_used is what the heap holds, which a change may rightly move.
var sameWorkExempt = map[string]bool{metric.WorkPrefix + trace.SegHostOrch + ".heap_used": true}

// workDiffs compares the work counts of the arms' warm passes (logs:
// per arm, per block or log, its passes) and returns those whose medians
// differ, in report order. A count only one arm records is not compared.
func WorkDiffs(logs [2][][]metric.Pass, cold int) []WorkDiff {
	var out []WorkDiff
	for _, m := range metric.KnownMetrics() {
		if m.Family != metric.FamilyWork || sameWorkExempt[m.Name] {
			continue
		}
		var med [2]float64
		ok := true
		for arm := range 2 {
			var v []float64
			for _, ps := range logs[arm] {
				v = append(v, warmOf(ps, m.Key, cold)...)
			}
			if len(v) == 0 {
				ok = false
				break
			}
			med[arm] = BlockStat(v, journal.BlockMedian)
		}
		if !ok || med[journal.Base] == med[journal.Head] {
			continue
		}
		out = append(out, WorkDiff{Metric: m.Name, Base: journal.Num(med[journal.Base]), Head: journal.Num(med[journal.Head]), Text: workText(m.Name, med)})
	}
	return out
}

// workText says how the arms differ on one work count.
func workText(metric string, med [2]float64) string {
	num := func(x float64) string {
		if x == math.Trunc(x) {
			return Fixed(x, 0, false)
		}
		return Fixed(x, 1, false)
	}
	if p, ok := workPhrases[metric]; ok {
		return fmt.Sprintf("head "+p+" per bind, base %s", num(med[journal.Head]), num(med[journal.Base]))
	}
	return fmt.Sprintf("head's %s is %s per bind, base's %s", metric, num(med[journal.Head]), num(med[journal.Base]))
}
