package phases

import (
	"slices"
	"sort"

	"github.com/hbgkit/hbgkit/trace"
)

// An OrchRow summarises one orchestrator operation kind over a log's
// passes: from its `host-orch phase=` lines (one per pass: a total and a
// count) or from the records of host_phase_records.jsonl (one per
// operation).
type OrchRow struct {
	Kind string
	// Passes is how many warm passes wrote the kind, of Warm warm passes
	// in all: "k of N".
	Passes, Warm int
	// CountPerPass is the median number of operations per warm pass
	// that wrote the kind.
	CountPerPass float64
	// Count and TotalNs are the operations and their time summed over
	// every pass, cold ones included.
	Count   int64
	TotalNs int64
	// PerOp are the min, median and max of the time per operation (ns)
	// over the warm passes: per pass total/count for lines, per record
	// for records. NaN-free: a kind with no warm operation has Passes 0
	// and zeros here.
	PerOpMin, PerOpMedian, PerOpMax float64
}

// warmFlags marks the passes that are warm: all but the first pass of each
// pid in (pid, inv) order; the passes without a pid count as one pid.
func warmFlags(n int, key func(i int) (pid int64, inv uint64)) []bool {
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		pa, ia := key(idx[a])
		pb, ib := key(idx[b])
		if pa != pb {
			return pa < pb
		}
		return ia < ib
	})
	warm := make([]bool, n)
	for k, i := range idx {
		if k > 0 {
			pp, _ := key(idx[k-1])
			p, _ := key(i)
			warm[i] = pp == p
		}
	}
	return warm
}

type orchAcc struct {
	passes      int
	counts      []float64
	perOp       []float64
	count, time int64
}

func (a *orchAcc) row(kind string, warm int) OrchRow {
	r := OrchRow{Kind: kind, Passes: a.passes, Warm: warm, Count: a.count, TotalNs: a.time}
	if len(a.counts) > 0 {
		r.CountPerPass = median(a.counts)
	}
	if len(a.perOp) > 0 {
		r.PerOpMin, r.PerOpMax = slices.Min(a.perOp), slices.Max(a.perOp)
		r.PerOpMedian = median(a.perOp)
	}
	return r
}

// orchRows returns the rows of the accumulated kinds, in the runtime's
// enum order of the orchestrator kinds, then others by name.
func orchRows(acc map[string]*orchAcc, warm int) []OrchRow {
	kinds := make([]string, 0, len(acc))
	for k := range acc {
		kinds = append(kinds, k)
	}
	sort.Slice(kinds, func(i, j int) bool {
		a, b := orchIndex(kinds[i]), orchIndex(kinds[j])
		if a != b {
			return a < b
		}
		return kinds[i] < kinds[j]
	})
	out := make([]OrchRow, 0, len(kinds))
	for _, k := range kinds {
		out = append(out, acc[k].row(k, warm))
	}
	return out
}

// OrchKinds are the orchestrator operation kinds in the runtime's enum
// order, the order `hbgtrace orch` prints them in (docs/formats.md
// "host-orch phase= lines").
var OrchKinds = []string{"submit_task", "alloc_tensors", "record_node", "graph_submit", "build_definition"}

// orchIndex orders kinds: the orchestrator's, then bind segments in enum
// order, then the rest.
func orchIndex(kind string) int {
	if i := slices.Index(OrchKinds, kind); i >= 0 {
		return i
	}
	if i := trace.SegmentIndex(kind); i >= 0 {
		return len(OrchKinds) + i
	}
	return 1 << 20
}

// OrchFromLines summarises the host-orch lines of passes (CollectEvidence),
// one row per operation kind. Every pass counts in N, whether or not it
// wrote host-orch lines.
func OrchFromLines(passes []BindPass, ev []PassEvidence) []OrchRow {
	warm := warmFlags(len(passes), func(i int) (int64, uint64) {
		if !passes[i].Known {
			return -1, uint64(i)
		}
		return passes[i].Pid, passes[i].Inv
	})
	nWarm := 0
	acc := map[string]*orchAcc{}
	for i := range ev {
		if warm[i] {
			nWarm++
		}
		for k, op := range ev[i].Orch {
			a := acc[k]
			if a == nil {
				a = &orchAcc{}
				acc[k] = a
			}
			a.count += op.Count
			a.time = satAdd(a.time, op.TotalNs)
			if !warm[i] {
				continue
			}
			a.passes++
			a.counts = append(a.counts, float64(op.Count))
			if op.Count > 0 {
				a.perOp = append(a.perOp, float64(op.TotalNs)/float64(op.Count))
			}
		}
	}
	return orchRows(acc, nWarm)
}

// OrchFromRecords summarises host_phase_records.jsonl lines per record
// kind (every phase, bind segments included): the operations per pass,
// and the duration of each record. Lines without a usable (pid, inv)
// and records without an interval are left out.
func OrchFromRecords(rps []trace.RecordPass) []OrchRow {
	var keep []trace.RecordPass
	for _, rp := range rps {
		if _, _, ok := rp.Key(); ok {
			keep = append(keep, rp)
		}
	}
	warm := warmFlags(len(keep), func(i int) (int64, uint64) {
		pid, inv, _ := keep[i].Key()
		return pid, inv
	})
	nWarm := 0
	acc := map[string]*orchAcc{}
	for i, rp := range keep {
		if warm[i] {
			nWarm++
		}
		perPass := map[string]int{}
		for _, r := range rp.Records {
			phase, start, end, ok := r.Interval()
			if !ok {
				continue
			}
			a := acc[phase]
			if a == nil {
				a = &orchAcc{}
				acc[phase] = a
			}
			d := max(0, end-start)
			a.count++
			a.time = satAdd(a.time, d)
			perPass[phase]++
			if warm[i] {
				a.perOp = append(a.perOp, float64(d))
			}
		}
		if !warm[i] {
			continue
		}
		for k, n := range perPass {
			acc[k].passes++
			acc[k].counts = append(acc[k].counts, float64(n))
		}
	}
	return orchRows(acc, nWarm)
}
