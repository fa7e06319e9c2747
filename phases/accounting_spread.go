package phases

import (
	"fmt"
	"slices"
)

// The HBG accounting of `hbgtrace phases --accounting`: Gate, GraphPack and
// ControlPlane spread over a set of passes.

// GateTargetUS is the Gate target the share blocks print, in µs.
const GateTargetUS = 1000.0

// An AccountingSpreadRow is one row of `hbgtrace phases --accounting`: the spread of
// one stage over passes, in ms, each value a per-pass value (so the
// ControlPlane minimum is the minimum of per-pass sums, never a sum of
// minima).
type AccountingSpreadRow struct {
	Stage            BindStage
	Min, Median, Max float64 // ms
	N                int
}

// An AccountingSpread is the Gate, GraphPack and ControlPlane rows over a set of
// passes (the warm passes of `phases`), computed over their common set:
// the passes that record every control-plane stage (HostOrch, the H2D
// stages, GraphPack, Relocate) any of them records.
type AccountingSpread struct {
	Rows    []AccountingSpreadRow
	Passes  int   // passes given
	Common  []int // indexes (into the passes given) of the passes used
	LeftOut []int
	Lacking []BindStage
}

// acctSpreadStages are the stages whose presence decides an AccountingSpread's
// common set: the parts of ControlPlane.
var acctSpreadStages = []BindStage{StageHostOrch, StageGraphPack, StageRelocate, StageH2dImage, StageH2dGraph, StageH2dSm, StageH2dArena}

// ComputeAccountingSpread computes the Gate, GraphPack and ControlPlane rows over passes
// (the metrics of docs/accounting.md "2. Per-pass stages", per pass, then
// min/median/max). A row is present
// when its stage is recorded in some pass; GraphPack is absent from logs
// before E3.
func ComputeAccountingSpread(passes []BindPass) AccountingSpread {
	ms := make([]PassMetrics, len(passes))
	for i, p := range passes {
		ms[i] = ComputePassMetrics(p)
	}
	return ComputeAccountingSpreadOf(ms)
}

// ComputeAccountingSpreadOf is ComputeAccountingSpread over the metrics of
// the passes (ComputePassMetrics), for a caller that kept only those.
func ComputeAccountingSpreadOf(ms []PassMetrics) AccountingSpread {
	sp := AccountingSpread{Passes: len(ms)}
	var present [NumBindStages]bool
	for i := range ms {
		for s := range NumBindStages {
			present[s] = present[s] || ms[i].Recorded[s]
		}
	}
	all := make([]int, len(ms))
	for i := range all {
		all[i] = i
	}
	sp.Common, sp.LeftOut, sp.Lacking = commonRoundSet(all, ms, func(s BindStage) bool {
		return present[s] && slices.Contains(acctSpreadStages, s)
	})
	if len(sp.Common) == 0 {
		return sp
	}
	for _, s := range []BindStage{StageGate, StageGraphPack, StageControlPlane} {
		if !present[s] {
			continue
		}
		v := make([]float64, len(sp.Common))
		for j, i := range sp.Common {
			v[j] = float64(ms[i].Value[s]) / 1e6
		}
		lo, hi := minMax(v)
		sp.Rows = append(sp.Rows, AccountingSpreadRow{Stage: s, Min: lo, Median: median(v), Max: hi, N: len(v)})
	}
	return sp
}

// Warning returns the stderr warning for passes the spread left out, or ""
// when it used them all:
//
//	warning: HBG accounting, <what>: left out <k> of <M> passes that lack <stages>: passes <i>, <j>
//
// what names the passes ("warm passes"); the indexes are positions in the
// passes given to ComputeAccountingSpread.
func (sp *AccountingSpread) Warning(what string) string {
	if len(sp.LeftOut) == 0 {
		return ""
	}
	lacking, passes := leftOutLists(sp.Lacking, sp.LeftOut)
	return fmt.Sprintf("warning: HBG accounting, %s: left out %d of %d passes that lack %s: passes %s",
		what, len(sp.LeftOut), sp.Passes, lacking, passes)
}
