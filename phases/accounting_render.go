package phases

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Renderers of the HBG bind accounting. They return text and structures;
// the commands decide where it goes.

// ColumnLabels returns the header labels of the HBG columns of the rounds
// table, "<Label> (us)" for every visible stage (see Visible).
func (a *Accounting) ColumnLabels() []string {
	vis := a.Visible()
	out := make([]string, len(vis))
	for i, s := range vis {
		out[i] = s.Label() + " (us)"
	}
	return out
}

// RowValues returns row r's values of the visible stages in µs, and
// whether each was recorded in that round.
func (a *Accounting) RowValues(r int) (us []float64, recorded []bool) {
	vis := a.Visible()
	us = make([]float64, len(vis))
	recorded = make([]bool, len(vis))
	for i, s := range vis {
		v, ok := a.Metrics[r].Get(s)
		us[i], recorded[i] = float64(v)/1000, ok
	}
	return us, recorded
}

// Cells returns row r's cells of the visible stages: µs with one decimal,
// or "-" for a stage the round did not record (a recorded 0 prints 0.0).
func (a *Accounting) Cells(r int) []string {
	us, rec := a.RowValues(r)
	out := make([]string, len(us))
	for i := range us {
		if rec[i] {
			out[i] = strconv.FormatFloat(us[i], 'f', 1, 64)
		} else {
			out[i] = "-"
		}
	}
	return out
}

// Widths of the share blocks, read off the example in DESIGN §4:
//
//	"    Args          500.0 us  ( 16.6%)"
//	"    Gate(HostOrch+H2dImage)   2055.0 us  (target <= 1000 us)"
//	"    ControlPlane              2056.0 us"
//
// A share line is four spaces, the label left-justified in 12, the mean
// right-justified in 7 with one decimal, " us  (", the share
// right-justified in 5 with one decimal, "%)", and "  <-- top" on the top
// stage. ("Args" + 8 spaces + "  500.0" gives the example's ten spaces;
// a label of 12 and a value of 8 would give eleven.) The Gate and
// ControlPlane lines are four spaces, the label left-justified in 23 (the
// length of "Gate(HostOrch+H2dImage)"), one space and the value
// right-justified in 8 with one decimal, then " us", and for Gate
// "  (target <= 1000 us)".
const (
	acctShareLine = "    %-12s%7.1f us  (%5.1f%%)"
	acctTotalLine = "    %-23s %8.1f us"
	acctGateLabel = "Gate(HostOrch+H2dImage)"
)

// SharesText returns the share blocks of DESIGN §4: a blank line, the
// blocks all rounds, cold and warm, each over its own common round set
// with its size, and the cold-vs-warm line. Rounds left out are not named
// here: Warnings names them, for stderr.
func (a *Accounting) SharesText() string {
	var b strings.Builder
	b.WriteString("\n")
	for _, blk := range a.Blocks() {
		blk.writeText(&b)
	}
	b.WriteString("  " + a.ColdVsWarm() + "\n")
	return b.String()
}

func (blk *AccountingBlock) writeText(b *strings.Builder) {
	fmt.Fprintf(b, "  HBG bind accounting, %s (n=%d of %d):\n", blk.Title, blk.K(), blk.M())
	switch {
	case blk.M() == 0:
		b.WriteString("    (no rounds)\n")
		return
	case blk.K() == 0:
		b.WriteString("    (no round records every stage the block records)\n")
		return
	}
	top, hasTop := blk.Top()
	for _, s := range ShareStages {
		if !blk.Present[s] {
			continue
		}
		pct, _ := blk.Share(s)
		fmt.Fprintf(b, acctShareLine, s.Label(), blk.Mean[s], pct)
		if hasTop && s == top {
			b.WriteString("  <-- top")
		}
		b.WriteString("\n")
	}
	if blk.Present[StageGate] {
		fmt.Fprintf(b, acctTotalLine+"  (target <= %.0f us)\n", acctGateLabel, blk.Mean[StageGate], GateTargetUS)
	}
	if blk.Present[StageControlPlane] {
		fmt.Fprintf(b, acctTotalLine+"\n", StageControlPlane.Label(), blk.Mean[StageControlPlane])
	}
}

// ColdVsWarm returns the verdict line without its indentation: "Cold vs
// warm: same top stage (HostOrch)", "Cold vs warm: TOP DIFFERS,
// cold=Args warm=HostOrch", or, when a block has no top stage, "Cold vs
// warm: not compared, <block> has no top stage".
func (a *Accounting) ColdVsWarm() string {
	ct, cok := a.ColdBlock.Top()
	wt, wok := a.WarmBlock.Top()
	switch {
	case !cok && !wok:
		return "Cold vs warm: not compared, neither block has a top stage"
	case !cok:
		return "Cold vs warm: not compared, the cold block has no top stage"
	case !wok:
		return "Cold vs warm: not compared, the warm block has no top stage"
	case ct == wt:
		return "Cold vs warm: same top stage (" + ct.Label() + ")"
	}
	return "Cold vs warm: TOP DIFFERS, cold=" + ct.Label() + " warm=" + wt.Label()
}

// AccountingDoc is the accounting as data, for --format json. Every number
// comes with its unit, and every mean with the round set it was taken
// over.
type AccountingDoc struct {
	Columns []AccountingColumnDoc `json:"columns"` // the visible stages, column order
	// Rows are the rounds, in the row order of the rounds table; a stage
	// the round did not record is null, a recorded 0 is 0.
	Rows       []AccountingRowDoc   `json:"rows"`
	Blocks     []AccountingBlockDoc `json:"blocks"` // all rounds, cold, warm
	ColdVsWarm string               `json:"cold_vs_warm"`
	Warnings   []string             `json:"warnings"` // as printed on stderr
}

// AccountingColumnDoc is one HBG column: the stage's label, its unit and
// its key in the rows.
type AccountingColumnDoc struct {
	Name string `json:"name"`
	Unit string `json:"unit"`
	Key  string `json:"key"`
}

// AccountingRowDoc is one round (one row of the rounds table): round, pid,
// inv, cold, then one key per column ("hostorch_us"), null when the round
// did not record the stage.
type AccountingRowDoc struct {
	Round int
	Pid   int64
	Inv   uint64
	Cold  bool
	Keys  []string
	US    []*float64
}

// MarshalJSON writes the row with its keys in column order.
func (r AccountingRowDoc) MarshalJSON() ([]byte, error) {
	var b strings.Builder
	fmt.Fprintf(&b, `{"round":%d,"pid":%d,"inv":%d,"cold":%t`, r.Round, r.Pid, r.Inv, r.Cold)
	for i, k := range r.Keys {
		v := "null"
		if i < len(r.US) && r.US[i] != nil {
			v = strconv.FormatFloat(*r.US[i], 'g', -1, 64)
		}
		fmt.Fprintf(&b, `,%q:%s`, k, v)
	}
	b.WriteString("}")
	return []byte(b.String()), nil
}

// AccountingBlockDoc is one share block: its rounds, the common round set
// its means are taken over (n of them, of the block's rounds), and the
// means.
type AccountingBlockDoc struct {
	Name       string               `json:"name"`
	Title      string               `json:"title"`
	N          int                  `json:"n"`           // size of the common round set
	Of         int                  `json:"of"`          // rounds in the block
	Rounds     []int                `json:"rounds"`      // the block's rounds (row indexes)
	RoundsUsed []int                `json:"rounds_used"` // the common round set
	LeftOut    []int                `json:"left_out"`
	Lacking    []string             `json:"lacking"` // stages some left-out round does not record
	Stages     []AccountingStageDoc `json:"stages"`  // present stages, column order; empty when n is 0
	Top        *string              `json:"top"`     // the largest share stage; null when none
}

// AccountingStageDoc is a stage's mean over a block's common round set.
// SharePct is set for share stages, TargetUS for Gate.
type AccountingStageDoc struct {
	Stage    string   `json:"stage"`
	Mean     float64  `json:"mean"`
	Unit     string   `json:"unit"`
	N        int      `json:"n"`
	Of       int      `json:"of"`
	SharePct *float64 `json:"share_pct,omitempty"` // percent of the block's share total
	TargetUS *float64 `json:"target_us,omitempty"`
}

// GateTargetUS is the Gate target the share blocks print, in µs.
const GateTargetUS = 1000.0

// Doc returns the accounting as data.
func (a *Accounting) Doc() AccountingDoc {
	vis := a.Visible()
	d := AccountingDoc{
		Columns:    make([]AccountingColumnDoc, len(vis)),
		Rows:       make([]AccountingRowDoc, len(a.Passes)),
		Blocks:     []AccountingBlockDoc{},
		ColdVsWarm: a.ColdVsWarm(),
		Warnings:   a.Warnings(),
	}
	if d.Warnings == nil {
		d.Warnings = []string{}
	}
	keys := make([]string, len(vis))
	for i, s := range vis {
		keys[i] = s.Key()
		d.Columns[i] = AccountingColumnDoc{Name: s.Label(), Unit: UnitMicros, Key: keys[i]}
	}
	for r, p := range a.Passes {
		us, rec := a.RowValues(r)
		rd := AccountingRowDoc{Round: r, Pid: p.Pid, Inv: p.Inv, Cold: a.Cold[r], Keys: keys, US: make([]*float64, len(us))}
		for i := range us {
			if rec[i] {
				v := us[i]
				rd.US[i] = &v
			}
		}
		d.Rows[r] = rd
	}
	for _, blk := range a.Blocks() {
		bd := AccountingBlockDoc{
			Name: blk.Name, Title: blk.Title, N: blk.K(), Of: blk.M(),
			Rounds: acctNonNil(blk.Rounds), RoundsUsed: acctNonNil(blk.Common), LeftOut: acctNonNil(blk.LeftOut),
			Lacking: []string{}, Stages: []AccountingStageDoc{},
		}
		for _, s := range blk.Lacking {
			bd.Lacking = append(bd.Lacking, s.Label())
		}
		if blk.K() > 0 {
			for s := BindStage(0); int(s) < NumBindStages; s++ {
				if !blk.Present[s] {
					continue
				}
				sd := AccountingStageDoc{Stage: s.Label(), Mean: blk.Mean[s], Unit: UnitMicros, N: blk.K(), Of: blk.M()}
				if pct, ok := blk.Share(s); ok {
					sd.SharePct = &pct
				}
				if s == StageGate {
					target := GateTargetUS
					sd.TargetUS = &target
				}
				bd.Stages = append(bd.Stages, sd)
			}
		}
		if top, ok := blk.Top(); ok {
			label := top.Label()
			bd.Top = &label
		}
		d.Blocks = append(d.Blocks, bd)
	}
	return d
}

func acctNonNil(v []int) []int {
	if v == nil {
		return []int{}
	}
	return v
}

// An AccountingSpreadRow is one row of `hbgtrace phases --accounting`: the spread of
// one stage over passes, in ms, each value a per-pass value (so the
// ControlPlane minimum is the minimum of per-pass sums, never a sum of
// minima).
type AccountingSpreadRow struct {
	Stage            BindStage
	Min, Median, Max float64 // ms
	N                int
}

// Format returns the row in the layout of the phases table: a space, a
// space for the control-plane mark, the name left-justified in 18, min,
// median and max right-justified in 10 with three decimals, two spaces and
// N right-justified in 3.
func (r AccountingSpreadRow) Format() string {
	return fmt.Sprintf("  %-18s%10.3f%10.3f%10.3f  %3d", r.Stage.Label(), r.Min, r.Median, r.Max, r.N)
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
// (DESIGN §4's metrics, per pass, then min/median/max). A row is present
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
	labels := make([]string, len(sp.Lacking))
	for i, s := range sp.Lacking {
		labels[i] = s.Label()
	}
	idx := make([]string, len(sp.LeftOut))
	for i, r := range sp.LeftOut {
		idx[i] = strconv.Itoa(r)
	}
	return fmt.Sprintf("warning: HBG accounting, %s: left out %d of %d passes that lack %s: passes %s",
		what, len(sp.LeftOut), sp.Passes, strings.Join(labels, ", "), strings.Join(idx, ", "))
}
