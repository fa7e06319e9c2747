package phases

import (
	"fmt"
	"strconv"
	"strings"
)

// Renderers of the HBG bind accounting. They return text and structures;
// the commands decide where it goes.

// Columns returns the visible stages as columns of a rounds table, to be
// appended to Rounds.Columns: one value per row in µs, 0 where the round
// did not record the stage (the table's convention for a missing value;
// Cells and Doc tell a recorded 0 from a missing one). Rounds.Averages is
// not touched: the Avg lines keep the reference columns only.
func (a *Accounting) Columns() []Column {
	vis := a.Visible()
	out := make([]Column, len(vis))
	for i, s := range vis {
		v := make([]float64, len(a.Metrics))
		for r := range a.Metrics {
			v[r] = float64(a.Metrics[r].Value[s]) / 1000
		}
		out[i] = Column{Name: s.Label(), Unit: UnitMicros, Values: v}
	}
	return out
}

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

// HeaderSuffix returns the text the HBG columns add to the rounds table's
// header line: per visible stage, two spaces and the label right-justified
// in 12, as the reference columns are laid out.
func (a *Accounting) HeaderSuffix() string {
	var b strings.Builder
	for _, l := range a.ColumnLabels() {
		fmt.Fprintf(&b, "  %12s", l)
	}
	return b.String()
}

// RowSuffix returns the text the HBG columns add to row r of the rounds
// table: per visible stage, two spaces and the cell right-justified in 12.
func (a *Accounting) RowSuffix(r int) string {
	var b strings.Builder
	for _, c := range a.Cells(r) {
		fmt.Fprintf(&b, "  %12s", c)
	}
	return b.String()
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
		fmt.Fprintf(b, acctTotalLine+"  (target <= 1000 us)\n", acctGateLabel, blk.Mean[StageGate])
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

// AccountingDoc is the accounting as data, for --format json (and the
// source of the csv and markdown tables).
type AccountingDoc struct {
	Columns    []string             `json:"columns"` // stage labels of the visible columns, without " (us)"
	Rounds     []AccountingRoundDoc `json:"rounds"`
	Blocks     []AccountingBlockDoc `json:"blocks"`
	ColdVsWarm string               `json:"cold_vs_warm"`
	Warnings   []string             `json:"warnings"`
}

// AccountingRoundDoc is one round (one row of the rounds table).
type AccountingRoundDoc struct {
	Round int    `json:"round"`
	Pid   int64  `json:"pid"`
	Inv   uint64 `json:"inv"`
	Known bool   `json:"known"` // false: an E1 pass no bind span contains (no pid, no inv)
	Cold  bool   `json:"cold"`
	// US holds the value of each column in µs, null when not recorded.
	US []*float64 `json:"us"`
}

// AccountingBlockDoc is one share block.
type AccountingBlockDoc struct {
	Name    string               `json:"name"`
	Title   string               `json:"title"`
	Rounds  int                  `json:"rounds"` // M
	N       int                  `json:"n"`      // K, the size of the common round set
	Common  []int                `json:"common"`
	LeftOut []int                `json:"left_out"`
	Lacking []string             `json:"lacking"`
	Stages  []AccountingStageDoc `json:"stages"` // present stages, column order
	Top     string               `json:"top,omitempty"`
}

// AccountingStageDoc is a stage's mean over a block's common round set;
// SharePct is set for share stages.
type AccountingStageDoc struct {
	Stage    string   `json:"stage"`
	MeanUS   float64  `json:"mean_us"`
	SharePct *float64 `json:"share_pct,omitempty"`
}

// Doc returns the accounting as data.
func (a *Accounting) Doc() AccountingDoc {
	vis := a.Visible()
	d := AccountingDoc{
		Columns:    make([]string, len(vis)),
		Rounds:     make([]AccountingRoundDoc, len(a.Passes)),
		ColdVsWarm: a.ColdVsWarm(),
		Warnings:   a.Warnings(),
	}
	if d.Warnings == nil {
		d.Warnings = []string{}
	}
	for i, s := range vis {
		d.Columns[i] = s.Label()
	}
	for r, p := range a.Passes {
		us, rec := a.RowValues(r)
		rd := AccountingRoundDoc{Round: r, Pid: p.Pid, Inv: p.Inv, Known: p.Known, Cold: a.Cold[r], US: make([]*float64, len(us))}
		for i := range us {
			if rec[i] {
				v := us[i]
				rd.US[i] = &v
			}
		}
		d.Rounds[r] = rd
	}
	for _, blk := range a.Blocks() {
		bd := AccountingBlockDoc{
			Name: blk.Name, Title: blk.Title, Rounds: blk.M(), N: blk.K(),
			Common: acctNonNil(blk.Common), LeftOut: acctNonNil(blk.LeftOut),
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
				sd := AccountingStageDoc{Stage: s.Label(), MeanUS: blk.Mean[s]}
				if pct, ok := blk.Share(s); ok {
					sd.SharePct = &pct
				}
				bd.Stages = append(bd.Stages, sd)
			}
		}
		if top, ok := blk.Top(); ok {
			bd.Top = top.Label()
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

// RoundsTable returns the per-round accounting as a header and string
// rows (Round, then the visible columns; "" for a stage not recorded), for
// csv and markdown.
func (d *AccountingDoc) RoundsTable() (header []string, rows [][]string) {
	header = append([]string{"Round"}, d.Columns...)
	for i := range header[1:] {
		header[i+1] += " (us)"
	}
	for _, r := range d.Rounds {
		row := []string{strconv.Itoa(r.Round)}
		for _, v := range r.US {
			if v == nil {
				row = append(row, "")
			} else {
				row = append(row, strconv.FormatFloat(*v, 'f', 1, 64))
			}
		}
		rows = append(rows, row)
	}
	return header, rows
}

// BlocksTable returns the share blocks as a header and string rows, one
// per block and present stage (block, n, of, stage, mean_us, share_pct),
// for csv and markdown.
func (d *AccountingDoc) BlocksTable() (header []string, rows [][]string) {
	header = []string{"block", "n", "of", "stage", "mean_us", "share_pct"}
	for _, b := range d.Blocks {
		for _, s := range b.Stages {
			share := ""
			if s.SharePct != nil {
				share = strconv.FormatFloat(*s.SharePct, 'f', 1, 64)
			}
			rows = append(rows, []string{b.Name, strconv.Itoa(b.N), strconv.Itoa(b.Rounds), s.Stage,
				strconv.FormatFloat(s.MeanUS, 'f', 1, 64), share})
		}
	}
	return header, rows
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
	sp := AccountingSpread{Passes: len(passes)}
	ms := make([]PassMetrics, len(passes))
	var present [NumBindStages]bool
	for i, p := range passes {
		ms[i] = ComputePassMetrics(p)
		for s := range NumBindStages {
			present[s] = present[s] || ms[i].Recorded[s]
		}
	}
	var lacking [NumBindStages]bool
	for i := range ms {
		ok := true
		for _, s := range acctSpreadStages {
			if present[s] && !ms[i].Recorded[s] {
				ok = false
				lacking[s] = true
			}
		}
		if ok {
			sp.Common = append(sp.Common, i)
		} else {
			sp.LeftOut = append(sp.LeftOut, i)
		}
	}
	for s := range NumBindStages {
		if lacking[s] {
			sp.Lacking = append(sp.Lacking, BindStage(s))
		}
	}
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
