package phases

import (
	"math"
	"sort"
)

// A TPOT is the per-callable table of strace_timing's default view
// (`hbgtrace tpot`, README.md "tpot"): for each callable, the root
// durations and the mean of
// every named stage.
type TPOT struct {
	// Callables come in descending invocation count; ties keep the order
	// in which the callables first appear.
	Callables []TPOTCallable
}

// A TPOTCallable is one callable (hid) of a TPOT table.
type TPOTCallable struct {
	Hid         string
	Invocations int
	// Root summarises the durations of each invocation's root (its first
	// depth-0 span, whatever its name); nil when no invocation has one.
	Root *TPOTStat
	// Stages are the spans of each invocation chosen by name (the earliest
	// span of each name) that are not at depth 0, sorted by descending
	// sample count, then name.
	Stages []TPOTStat
}

// A TPOTStat summarises the durations of one span name over the invocations
// of a callable that have it.
type TPOTStat struct {
	Name string
	N    int // invocations the durations come from
	// MeanNs is the mean duration as the reference computes it: the
	// exact integer sum divided with one rounding to a float64, then
	// truncated to an integer number of ns (int(sum / n)). A mean that
	// rounds to 2^63 is held as the largest int64, whose float64 is 2^63.
	MeanNs int64
	MinNs  int64
	MaxNs  int64
}

// tpotAcc accumulates one name's durations without keeping them. The sum
// is 128 bits wide, so no count of int64 durations overflows it.
type tpotAcc struct {
	n        int
	sum      int128
	min, max int64
}

func (a *tpotAcc) add(d int64) {
	if a.n == 0 || d < a.min {
		a.min = d
	}
	if a.n == 0 || d > a.max {
		a.max = d
	}
	a.n++
	a.sum = a.sum.add(d)
}

func (a *tpotAcc) stat(name string) TPOTStat {
	// int(sum / n): Python divides the exact integers with one rounding
	// and truncates the float. Past 2^53 that is not the integer quotient
	// (which is never rounded up to the next float).
	mean := math.Trunc(quoInt128(a.sum, a.n))
	m := int64(math.MaxInt64)
	if mean < math.MaxInt64 { // float64(MaxInt64) is 2^63
		m = int64(mean)
	}
	return TPOTStat{Name: name, N: a.n, MeanNs: m, MinNs: a.min, MaxNs: a.max}
}

// tpotOf builds the TPOT table of invocation summaries sorted by (pid, inv).
func tpotOf(sm *summaries) *TPOT {
	out := &TPOT{}
	for _, b := range bucketsBySize(sm.buckets()) {
		out.Callables = append(out.Callables, tpotCallable(sm, b))
	}
	return out
}

func tpotCallable(sm *summaries, b *summaryBucket) TPOTCallable {
	c := TPOTCallable{Hid: b.hid, Invocations: len(b.invs)}
	var root tpotAcc
	stages := map[int32]*tpotAcc{}
	for _, is := range b.invs {
		if is.hasRoot {
			root.add(is.root)
		}
		for _, ns := range is.names {
			if ns.top {
				continue
			}
			a := stages[ns.name]
			if a == nil {
				a = &tpotAcc{}
				stages[ns.name] = a
			}
			a.add(ns.dur)
		}
	}
	if root.n > 0 {
		st := root.stat("chip.run")
		c.Root = &st
	}
	for name, a := range stages {
		c.Stages = append(c.Stages, a.stat(sm.names[name]))
	}
	sort.Slice(c.Stages, func(i, j int) bool {
		if c.Stages[i].N != c.Stages[j].N {
			return c.Stages[i].N > c.Stages[j].N
		}
		return c.Stages[i].Name < c.Stages[j].Name
	})
	return c
}
