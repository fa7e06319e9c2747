package analysis

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/hbgkit/hbgkit/abtest/journal"
	"github.com/hbgkit/hbgkit/abtest/metric"
	"github.com/hbgkit/hbgkit/trace"
)

// A WorkDiff is a work count on which the warm passes disagree: the arms
// differ, or some pass of one arm differs from the others of that arm and
// rank (a demoted pass, a fallback to another path). Two arms that do
// different work are not a comparison of one job done two ways, whatever
// their times say; nor is an arm whose passes did not all do one job.
// Ranks may rightly differ from each other: passes are compared within a
// rank.
type WorkDiff struct {
	Metric string `json:"metric"`
	// Base and Head are the medians of each arm's warm passes.
	Base journal.Num `json:"base"`
	Head journal.Num `json:"head"`
	// Passes are the values the warm passes of each arm and rank took,
	// base first, ranks in order.
	Passes []WorkSpread `json:"passes"`
	// Deterministic says every warm pass of each arm and rank had one
	// value, and the arms' values differ, in the same direction on every
	// rank: a difference no noise can explain.
	Deterministic bool   `json:"deterministic,omitempty"`
	Text          string `json:"text"` // "head submits 79 Graphs per bind, base 82"
}

// WithinAnArm reports whether the difference is only within an arm: the
// arms' medians agree, and some arm and rank's passes took several values.
func (d WorkDiff) WithinAnArm() bool {
	if d.Base != d.Head {
		return false
	}
	for _, s := range d.Passes {
		if !s.Uniform() {
			return true
		}
	}
	return false
}

// A WorkSpread is the values the warm passes of one arm and rank took of
// a work count, the most common first.
type WorkSpread struct {
	Arm    string      `json:"arm"`
	Rank   int         `json:"rank"`
	N      int         `json:"n"`
	Values []WorkValue `json:"values"`
}

// A WorkValue is one value of a work count and the warm passes that had
// it; Where names them ("pass 5 of round 3") for a value that is not the
// most common, at most maxWhere of them.
type WorkValue struct {
	Value  journal.Num `json:"value"`
	Passes int         `json:"passes"`
	Where  []string    `json:"where,omitempty"`
}

// maxWhere is how many passes a report names for one unusual value.
const maxWhere = 5

// Uniform reports whether every warm pass had the same value.
func (s WorkSpread) Uniform() bool { return len(s.Values) == 1 }

// workPhrases say what a work count is, as "<verb> %s <things> per bind".
// host_orch's tasks are the tasks the host orchestration submits;
// recorded graph nodes are orch.record_node.
var workPhrases = map[string]string{
	metric.WorkPrefix + trace.SegGraphUpload + ".submissions": "submits %s Graphs",
	metric.WorkPrefix + trace.SegGraphUpload + ".defs":        "uploads %s Definitions",
	metric.WorkPrefix + trace.SegGraphPack + ".defs":          "packs %s Definitions",
	metric.WorkPrefix + trace.SegHostOrch + ".tasks":          "submits %s host tasks",
	metric.WorkPrefix + trace.SegArgs + ".ntensor":            "passes %s tensors",
	metric.WorkPrefix + trace.SegHostViewClose + ".count":     "closes %s host views",
}

// sameWorkExempt are work attributes that are state rather than work:
// heap_used is what the heap holds, which a change may rightly move.
var sameWorkExempt = map[string]bool{metric.WorkPrefix + trace.SegHostOrch + ".heap_used": true}

// WorkDiffs compares the work counts of every warm pass of the arms
// (logs: per arm, per block or log, its passes; where: per arm, what each
// block or log is called in a report, "round 3") and returns those on
// which a pass differs from another of its arm and rank, or the arms'
// medians differ, in report order. A count only one arm records is not
// compared.
func WorkDiffs(logs [2][][]metric.Pass, where [2][]string, cold int) []WorkDiff {
	var out []WorkDiff
	for _, m := range metric.KnownMetrics() {
		if m.Family != metric.FamilyWork || sameWorkExempt[m.Name] {
			continue
		}
		var d WorkDiff
		var med [2]float64
		var byRank [2]map[int]WorkSpread
		ok := true
		for arm := range 2 {
			var v []float64
			var spreads []WorkSpread
			spreads, v = spreadsOf(logs[arm], where[arm], m.Key, cold)
			if len(v) == 0 {
				ok = false
				break
			}
			byRank[arm] = map[int]WorkSpread{}
			for _, sp := range spreads {
				sp.Arm = journal.ArmNames[arm]
				byRank[arm][sp.Rank] = sp
				d.Passes = append(d.Passes, sp)
			}
			med[arm] = BlockStat(v, journal.BlockMedian)
		}
		if !ok {
			continue
		}
		uniform := true
		for _, sp := range d.Passes {
			uniform = uniform && sp.Uniform()
		}
		if uniform && med[journal.Base] == med[journal.Head] {
			continue
		}
		d.Metric, d.Base, d.Head = m.Name, journal.Num(med[journal.Base]), journal.Num(med[journal.Head])
		d.Deterministic = uniform && oneDirection(byRank)
		if uniform {
			d.Text = workText(m.Name, med) + " on every pass"
		} else {
			d.Text = spreadText(m.Name, d.Passes, len(byRank[journal.Base]) > 1 || len(byRank[journal.Head]) > 1)
		}
		out = append(out, d)
	}
	return out
}

// oneDirection reports whether, on every rank both arms have, head's one
// value differs from base's the same way.
func oneDirection(byRank [2]map[int]WorkSpread) bool {
	sign := 0
	for r, b := range byRank[journal.Base] {
		h, ok := byRank[journal.Head][r]
		if !ok {
			continue
		}
		var s int
		switch bv, hv := b.Values[0].Value, h.Values[0].Value; {
		case hv > bv:
			s = 1
		case hv < bv:
			s = -1
		}
		if s == 0 || (sign != 0 && s != sign) {
			return false
		}
		sign = s
	}
	return sign != 0
}

// spreadsOf returns, rank by rank, the values the warm passes of one
// arm's blocks took of metric k, and the values themselves.
func spreadsOf(blocks [][]metric.Pass, where []string, k metric.Key, cold int) ([]WorkSpread, []float64) {
	var all []float64
	type group struct {
		s       WorkSpread
		byValue map[float64]int
	}
	groups := map[int]*group{}
	var ranks []int
	for i, ps := range blocks {
		for _, p := range ps {
			if p.Index < cold {
				continue
			}
			v, ok := p.Value(k)
			if !ok {
				continue
			}
			all = append(all, v)
			g := groups[p.Rank]
			if g == nil {
				g = &group{s: WorkSpread{Rank: p.Rank}, byValue: map[float64]int{}}
				groups[p.Rank] = g
				ranks = append(ranks, p.Rank)
			}
			g.s.N++
			j, seen := g.byValue[v]
			if !seen {
				j = len(g.s.Values)
				g.byValue[v] = j
				g.s.Values = append(g.s.Values, WorkValue{Value: journal.Num(v)})
			}
			g.s.Values[j].Passes++
			if len(g.s.Values[j].Where) < maxWhere { // a report names no more
				g.s.Values[j].Where = append(g.s.Values[j].Where, passWhere(p, where, i))
			}
		}
	}
	slices.Sort(ranks)
	var out []WorkSpread
	for _, r := range ranks {
		s := groups[r].s
		slices.SortStableFunc(s.Values, func(a, b WorkValue) int { return cmp.Compare(b.Passes, a.Passes) })
		s.Values[0].Where = nil // the arm's usual value
		out = append(out, s)
	}
	return out, all
}

// passWhere names a pass for a report: "pass 5 of round 3" (passes
// counted from 1, the cold pass included).
func passWhere(p metric.Pass, where []string, block int) string {
	of := fmt.Sprintf("block %d", block+1)
	if block < len(where) && where[block] != "" {
		of = where[block]
	}
	return fmt.Sprintf("pass %d of %s", p.Index+1, of)
}

// workText says how the arms differ on one work count.
func workText(metric string, med [2]float64) string {
	if p, ok := workPhrases[metric]; ok {
		return fmt.Sprintf("head "+p+" per bind, base %s", workNum(med[journal.Head]), workNum(med[journal.Base]))
	}
	return fmt.Sprintf("head's %s is %s per bind, base's %s", metric, workNum(med[journal.Head]), workNum(med[journal.Base]))
}

// spreadText says which passes of which arm (and rank, when ranks is
// set) took which values of a work count: "work.host_orch.tasks: base 129
// on 7 of 8 passes, 465 on 1 (pass 5 of round 3); head 129 on 8 of 8
// passes".
func spreadText(metric string, spreads []WorkSpread, ranks bool) string {
	var parts []string
	for _, s := range spreads {
		var vals []string
		for i, v := range s.Values {
			switch {
			case i == 0:
				vals = append(vals, fmt.Sprintf("%s on %d of %d passes", workNum(float64(v.Value)), v.Passes, s.N))
			case v.Passes > len(v.Where):
				vals = append(vals, fmt.Sprintf("%s on %d (%s, ...)", workNum(float64(v.Value)), v.Passes, strings.Join(v.Where, ", ")))
			default:
				vals = append(vals, fmt.Sprintf("%s on %d (%s)", workNum(float64(v.Value)), v.Passes, strings.Join(v.Where, ", ")))
			}
		}
		who := s.Arm
		if ranks {
			who += fmt.Sprintf(" rank %d", s.Rank)
		}
		parts = append(parts, who+" "+strings.Join(vals, ", "))
	}
	return metric + ": " + strings.Join(parts, "; ")
}

// workNum writes a work count: whole when it is, else to one decimal.
func workNum(x float64) string {
	if x == math.Trunc(x) {
		return Fixed(x, 0, false)
	}
	return Fixed(x, 1, false)
}
