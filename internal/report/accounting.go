package report

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/hbgkit/hbgkit/phases"
)

// The HBG bind accounting as the rounds views show it (docs/accounting.md):
// the HBG columns, the share blocks and their json document.

// accountingColumnLabels returns the header labels of the HBG columns of
// the rounds table, "<Label> (us)" for every visible stage (see
// phases.Accounting.Visible).
func accountingColumnLabels(a *phases.Accounting) []string {
	vis := a.Visible()
	out := make([]string, len(vis))
	for i, s := range vis {
		out[i] = s.Label() + " (us)"
	}
	return out
}

// accountingRowValues returns row r's values of the visible stages in µs,
// and whether each was recorded in that round.
func accountingRowValues(a *phases.Accounting, r int) (us []float64, recorded []bool) {
	vis := a.Visible()
	us = make([]float64, len(vis))
	recorded = make([]bool, len(vis))
	for i, s := range vis {
		v, ok := a.Metrics[r].Get(s)
		us[i], recorded[i] = float64(v)/1000, ok
	}
	return us, recorded
}

// accountingCells returns row r's cells of the visible stages: µs with one
// decimal, or "-" for a stage the round did not record (a recorded 0
// prints 0.0).
func accountingCells(a *phases.Accounting, r int) []string {
	us, rec := accountingRowValues(a, r)
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

// Widths of the share blocks, as docs/accounting.md "What `hbgtrace
// rounds` prints" states them:
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
)

// gateLabel is the Gate stage as the share blocks name it, with what it
// sums.
const gateLabel = "Gate(HostOrch+H2dImage)"

// sharesText returns the share blocks (docs/accounting.md "What `hbgtrace
// rounds` prints"): a blank line, the
// blocks all rounds, cold and warm, each over its own common round set
// with its size, and the cold-vs-warm line. Rounds left out are not named
// here: phases.Accounting.Warnings names them, for stderr.
func sharesText(a *phases.Accounting) string {
	var b strings.Builder
	b.WriteString("\n")
	for _, blk := range a.Blocks() {
		writeBlockText(&b, blk)
	}
	b.WriteString("  " + coldVsWarm(a) + "\n")
	return b.String()
}

func writeBlockText(b *strings.Builder, blk *phases.AccountingBlock) {
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
	for _, s := range phases.ShareStageList() {
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
	if blk.Present[phases.StageGate] {
		fmt.Fprintf(b, acctTotalLine+"  (target <= %.0f us)\n", gateLabel, blk.Mean[phases.StageGate], phases.GateTargetUS)
	}
	if blk.Present[phases.StageControlPlane] {
		fmt.Fprintf(b, acctTotalLine+"\n", phases.StageControlPlane.Label(), blk.Mean[phases.StageControlPlane])
	}
}

// coldVsWarm returns the verdict line without its indentation: "Cold vs
// warm: same top stage (HostOrch)", "Cold vs warm: TOP DIFFERS,
// cold=Args warm=HostOrch", or, when a block has no top stage, "Cold vs
// warm: not compared, <block> has no top stage".
func coldVsWarm(a *phases.Accounting) string {
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

// accountingDoc is the accounting as data, for --format json. Every
// number comes with its unit, and every mean with the round set it was
// taken over.
type accountingDoc struct {
	Columns []accountingColumnDoc `json:"columns"` // the visible stages, column order
	// Rows are the rounds, in the row order of the rounds table; a stage
	// the round did not record is null, a recorded 0 is 0.
	Rows       []accountingRowDoc   `json:"rows"`
	Blocks     []accountingBlockDoc `json:"blocks"` // all rounds, cold, warm
	ColdVsWarm string               `json:"cold_vs_warm"`
	Warnings   []string             `json:"warnings"` // as printed on stderr
}

// accountingColumnDoc is one HBG column: the stage's label, its unit and
// its key in the rows.
type accountingColumnDoc struct {
	Name string `json:"name"`
	Unit string `json:"unit"`
	Key  string `json:"key"`
}

// accountingRowDoc is one round (one row of the rounds table): round, pid,
// inv, cold, then one key per column ("hostorch_us"), null when the round
// did not record the stage.
type accountingRowDoc struct {
	Round int
	Pid   int64
	Inv   uint64
	Cold  bool
	Keys  []string
	US    []*float64
}

// MarshalJSON writes the row with its keys in column order.
func (r accountingRowDoc) MarshalJSON() ([]byte, error) {
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

// accountingBlockDoc is one share block: its rounds, the common round set
// its means are taken over (n of them, of the block's rounds), and the
// means.
type accountingBlockDoc struct {
	Name       string               `json:"name"`
	Title      string               `json:"title"`
	N          int                  `json:"n"`           // size of the common round set
	Of         int                  `json:"of"`          // rounds in the block
	Rounds     []int                `json:"rounds"`      // the block's rounds (row indexes)
	RoundsUsed []int                `json:"rounds_used"` // the common round set
	LeftOut    []int                `json:"left_out"`
	Lacking    []string             `json:"lacking"` // stages some left-out round does not record
	Stages     []accountingStageDoc `json:"stages"`  // present stages, column order; empty when n is 0
	Top        *string              `json:"top"`     // the largest share stage; null when none
}

// accountingStageDoc is a stage's mean over a block's common round set.
// SharePct is set for share stages, TargetUS for Gate.
type accountingStageDoc struct {
	Stage    string   `json:"stage"`
	Mean     float64  `json:"mean"`
	Unit     string   `json:"unit"`
	N        int      `json:"n"`
	Of       int      `json:"of"`
	SharePct *float64 `json:"share_pct,omitempty"` // percent of the block's share total
	TargetUS *float64 `json:"target_us,omitempty"`
}

// newAccountingDoc returns the accounting as data.
func newAccountingDoc(a *phases.Accounting) accountingDoc {
	vis := a.Visible()
	d := accountingDoc{
		Columns:    make([]accountingColumnDoc, len(vis)),
		Rows:       make([]accountingRowDoc, len(a.Passes)),
		Blocks:     []accountingBlockDoc{},
		ColdVsWarm: coldVsWarm(a),
		Warnings:   a.Warnings(),
	}
	if d.Warnings == nil {
		d.Warnings = []string{}
	}
	keys := make([]string, len(vis))
	for i, s := range vis {
		keys[i] = s.Key()
		d.Columns[i] = accountingColumnDoc{Name: s.Label(), Unit: phases.UnitMicros, Key: keys[i]}
	}
	for r, p := range a.Passes {
		us, rec := accountingRowValues(a, r)
		rd := accountingRowDoc{Round: r, Pid: p.Pid, Inv: p.Inv, Cold: a.Cold[r], Keys: keys, US: make([]*float64, len(us))}
		for i := range us {
			if rec[i] {
				v := us[i]
				rd.US[i] = &v
			}
		}
		d.Rows[r] = rd
	}
	for _, blk := range a.Blocks() {
		bd := accountingBlockDoc{
			Name: blk.Name, Title: blk.Title, N: blk.K(), Of: blk.M(),
			Rounds: nonNilInts(blk.Rounds), RoundsUsed: nonNilInts(blk.Common), LeftOut: nonNilInts(blk.LeftOut),
			Lacking: []string{}, Stages: []accountingStageDoc{},
		}
		for _, s := range blk.Lacking {
			bd.Lacking = append(bd.Lacking, s.Label())
		}
		if blk.K() > 0 {
			for s := phases.BindStage(0); int(s) < phases.NumBindStages; s++ {
				if !blk.Present[s] {
					continue
				}
				sd := accountingStageDoc{Stage: s.Label(), Mean: blk.Mean[s], Unit: phases.UnitMicros, N: blk.K(), Of: blk.M()}
				if pct, ok := blk.Share(s); ok {
					sd.SharePct = &pct
				}
				if s == phases.StageGate {
					target := phases.GateTargetUS
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

// nonNilInts returns v, or an empty slice for nil (json [] rather than
// null).
func nonNilInts(v []int) []int {
	if v == nil {
		return []int{}
	}
	return v
}

// nonNilStrings returns v, or an empty slice for nil.
func nonNilStrings(v []string) []string {
	if v == nil {
		return []string{}
	}
	return v
}
