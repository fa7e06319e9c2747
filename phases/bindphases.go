package phases

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/hbgkit/hbgkit/trace"
)

// The bind-phase spread of `hbgtrace phases` (README.md "phases"): per
// segment the min / median / max over the warm binds, and the control-plane
// total as the spread of per-pass sums, never a sum of per-phase minima.

// A BindPhaseSet is the vocabulary of one generation of hbg_bind_phases: the
// display order of the segments it knows and its control-plane segments.
type BindPhaseSet struct {
	Order        []string
	ControlPlane []string
}

// snapshotPhaseSet is the vocabulary of the line-based hbg_bind_phases
// (snapshot 6ebaf77) for E1/E2 logs: its PHASE_ORDER is the HostPhaseKind
// enum order (trace.BindSegments). relocate and sm_h2d stay in the control
// plane so older logs total correctly. snapshotPhases returns a copy.
var snapshotPhaseSet = BindPhaseSet{
	Order:        trace.BindSegments(),
	ControlPlane: []string{trace.SegHostOrch, trace.SegGraphUpload, trace.SegRelocate, trace.SegSmH2d, trace.SegArenaH2d},
}

// spanPhaseSet is the vocabulary of the span-based hbg/bind_phases.py at
// upstream 04c88e9 for E3 logs, where graph_pack replaced graph_upload.
//
// Unlike that tool, hbgkit also knows graph_upload, in graph_pack's place of
// the display order: hbgkit reads every generation, and an E3-style log of
// the 5f9208d9 era still writes graph_upload. See SpanPhaseSetFor.
var spanPhaseSet = BindPhaseSet{
	Order: []string{
		trace.SegArgs, trace.SegArenaBuild, trace.SegRuntimeInit, trace.SegHostOrch, trace.SegGraphPack, trace.SegGraphUpload,
		trace.SegStaticArena, trace.SegSharedMem, trace.SegGmHeap, trace.SegArenaH2d, trace.SegHostViewClose,
	},
	ControlPlane: []string{trace.SegHostOrch, trace.SegGraphPack, trace.SegArenaH2d},
}

// spanPhaseSetUpload is the 5f9208d9 vocabulary: graph_upload is the
// control-plane upload and graph_pack does not exist yet.
var spanPhaseSetUpload = BindPhaseSet{
	Order: []string{
		trace.SegArgs, trace.SegArenaBuild, trace.SegRuntimeInit, trace.SegHostOrch, trace.SegGraphUpload,
		trace.SegStaticArena, trace.SegSharedMem, trace.SegGmHeap, trace.SegArenaH2d, trace.SegHostViewClose,
	},
	ControlPlane: []string{trace.SegHostOrch, trace.SegGraphUpload, trace.SegArenaH2d},
}

// SpanPhaseSetFor picks the span-based vocabulary for binds: the 5f9208d9 one
// (graph_upload in the control plane) when some bind writes graph_upload and
// none writes graph_pack, else the 04c88e9 one (graph_pack in graph_upload's
// place). Either way each generation's log totals the segments its own tool
// totalled. The set is the caller's.
func SpanPhaseSetFor(binds []SpreadPass) BindPhaseSet {
	upload, pack := false, false
	for _, b := range binds {
		_, u := b.Ms[trace.SegGraphUpload]
		_, p := b.Ms[trace.SegGraphPack]
		upload, pack = upload || u, pack || p
	}
	if upload && !pack {
		return spanPhaseSetUpload.clone()
	}
	return spanPhaseSet.clone()
}

// snapshotPhases returns the vocabulary of the line-based hbg_bind_phases
// (snapshot 6ebaf77) for E1/E2 logs. The set is the caller's.
func snapshotPhases() BindPhaseSet { return snapshotPhaseSet.clone() }

// clone returns a copy of s that shares no slice with it.
func (s BindPhaseSet) clone() BindPhaseSet {
	return BindPhaseSet{
		Order:        append([]string(nil), s.Order...),
		ControlPlane: append([]string(nil), s.ControlPlane...),
	}
}

// A SpreadPass is one bind pass: the durations of its segments.
type SpreadPass struct {
	// Pid and Inv identify a span-based bind; both are 0 for a pass of
	// `bind phase=` lines, which carry neither.
	Pid int64
	Inv uint64
	// Thread is the log thread (T0x… hex) that wrote a line-based pass.
	Thread string
	// Ts is the earliest segment start, in ns.
	Ts int64
	// Ms maps each segment to its duration in ms (dur_ns / 1e6); a segment
	// written twice keeps the last value.
	Ms map[string]float64
	// Bind is the same pass as intervals under canonical names, every
	// segment written (a segment written twice is there twice): what the
	// HBG accounting of `phases --accounting` reads. Its Pid and Inv are
	// the pass's; Known is false for a pass of lines.
	Bind BindPass
}

func (p *SpreadPass) add(phase string, start, durNs int64, attrs string, pos trace.Pos) {
	if p.Ms == nil || start < p.Ts {
		p.Ts = start
	}
	if p.Ms == nil {
		p.Ms = make(map[string]float64)
	}
	p.Ms[phase] = float64(durNs) / 1e6
	if name, ok := trace.CanonicalSegment(phase); ok {
		p.Bind.Segments = append(p.Bind.Segments, Segment{Name: name, Ts: start, Dur: durNs, Attrs: attrs, Pos: pos})
	}
}

// bindPassHasOrch reports whether a pass is a bind pass at all: a group
// without host_orch is not one.
func bindPassHasOrch(p *SpreadPass) bool {
	_, ok := p.Ms[trace.SegHostOrch]
	return ok
}

// SpanBindPasses groups E3 bind segments, spans named
// chip.run.bind.<segment> with no further dot and not on the device clock,
// by (pid, inv). It returns the binds that have host_orch, sorted by
// (pid, Ts).
func SpanBindPasses(spans []trace.Span) []SpreadPass {
	type key struct {
		pid int64
		inv uint64
	}
	idx := make(map[key]int)
	var out []SpreadPass
	for i := range spans {
		s := &spans[i]
		seg, ok := SpanBindSegment(s)
		if !ok {
			continue
		}
		k := key{s.Pid, s.Inv}
		j, ok := idx[k]
		if !ok {
			j = len(out)
			idx[k] = j
			out = append(out, SpreadPass{Pid: s.Pid, Inv: s.Inv, Bind: BindPass{Pid: s.Pid, Inv: s.Inv, Known: true}})
		}
		out[j].add(seg, s.Ts, s.Dur, s.Attrs, s.Pos)
	}
	kept := out[:0]
	for i := range out {
		if bindPassHasOrch(&out[i]) {
			kept = append(kept, out[i])
		}
	}
	sort.SliceStable(kept, func(i, j int) bool {
		if kept[i].Pid != kept[j].Pid {
			return kept[i].Pid < kept[j].Pid
		}
		return kept[i].Ts < kept[j].Ts
	})
	return kept
}

// SpanBindSegment returns the segment of an E3 bind-segment span
// (chip.run.bind.<segment>, no further dot, host clock).
func SpanBindSegment(s *trace.Span) (string, bool) {
	seg, ok := strings.CutPrefix(s.Name, "chip.run.bind.")
	if !ok || seg == "" || strings.Contains(seg, ".") || s.IsDevice() {
		return "", false
	}
	return seg, true
}

// ErrNoBindPasses reports that a log has no bind pass: no `bind phase=`
// lines (or E3 segment spans) with host_orch.
var ErrNoBindPasses = errors.New("no bind passes")

// An AllColdError reports that every pass was cold, so no warm pass is
// left to summarise.
type AllColdError struct {
	Passes, Ranks int
}

func (e *AllColdError) Error() string {
	return fmt.Sprintf("%d pass(es) over %d rank(s), all of them cold", e.Passes, e.Ranks)
}

// A BindSpreadRow is the spread of one segment, or of the control-plane
// total, over the warm passes that have it; values in ms.
type BindSpreadRow struct {
	Phase            string
	Control          bool // a control-plane segment
	Min, Median, Max float64
	N                int
}

// A BindSpread is the result of hbg_bind_phases over one log.
type BindSpread struct {
	Set    BindPhaseSet
	Passes int // bind passes (with host_orch)
	Warm   int
	Cold   int // cold passes dropped
	Ranks  int
	Rows   []BindSpreadRow // segments of Set.Order seen in some warm pass, in that order
	// Unknown are the segments of warm passes outside Set.Order, sorted.
	Unknown []string
	// Present are the control-plane segments seen in some warm pass,
	// Partial those of them missing from some warm pass, Retired the
	// control-plane segments in no warm pass; all in Set.ControlPlane order.
	Present, Partial, Retired []string
	// Total is the spread of the per-pass sums of the Present segments over
	// the warm passes that have all of them; nil when there is none.
	Total *BindSpreadRow
	// WarmPasses are the passes summarised (the warm ones, or every pass
	// with KeepFirst), in the order the spread took them; nil in a spread
	// of a SpreadCollector.
	WarmPasses []SpreadPass

	warmMetrics []PassMetrics // a SpreadCollector's, for AccountingSpread
	// warmEvidence are a SpreadCollector's warm passes' segments with
	// their evidence attributes, for EvidenceTable.
	warmEvidence [][]Segment
}

// WarmBinds returns the summarised passes as BindPasses, for
// ComputeAccountingSpread.
func (sp *BindSpread) WarmBinds() []BindPass {
	out := make([]BindPass, len(sp.WarmPasses))
	for i := range sp.WarmPasses {
		out[i] = sp.WarmPasses[i].Bind
	}
	return out
}

// BindSpreadOptions are hbg_bind_phases' flags for line-based logs.
type BindSpreadOptions struct {
	Rounds    int  // --rounds; 0 when not given
	Ranks     int  // --ranks, when RanksSet
	RanksSet  bool // --ranks was given (any value, even 0)
	KeepFirst bool // keep the cold passes
}

// BindSpreadRanks infers the rank count as the reference does: --ranks when
// given, else max(1, passes / --rounds) when --rounds is non-zero, else 1.
func BindSpreadRanks(passes int, opts BindSpreadOptions) int {
	switch {
	case opts.RanksSet:
		return opts.Ranks
	case opts.Rounds != 0:
		return max(1, passes/opts.Rounds)
	}
	return 1
}

// snapshotColdPasses applies the line-based reference's rule to n passes in
// log order: it returns how many leading passes are cold and the rank count,
// or ErrNoBindPasses / *AllColdError when nothing warm is left.
func snapshotColdPasses(n int, opts BindSpreadOptions) (dropped, ranks int, err error) {
	if n == 0 {
		return 0, 0, ErrNoBindPasses
	}
	ranks = BindSpreadRanks(n, opts)
	if !opts.KeepFirst {
		dropped = min(ranks, n)
	}
	if dropped == n {
		return 0, 0, &AllColdError{Passes: n, Ranks: ranks}
	}
	return dropped, ranks, nil
}

// SnapshotBindSpread is the line-based hbg_bind_phases: the cold passes are
// the first `ranks` passes in log order (the reference's rule: it assumes
// every rank's first pass precedes every rank's second), none with
// KeepFirst. opts.Rounds and opts.Ranks must not be negative.
func SnapshotBindSpread(passes []SpreadPass, opts BindSpreadOptions) (*BindSpread, error) {
	dropped, ranks, err := snapshotColdPasses(len(passes), opts)
	if err != nil {
		return nil, err
	}
	sp := spreadBindPasses(passes[dropped:], snapshotPhases())
	sp.Passes, sp.Cold, sp.Ranks = len(passes), dropped, ranks
	return sp, nil
}

// SpanBindSpread is the span-based hbg/bind_phases.py over binds from
// SpanBindPasses (sorted by pid, then start): the cold bind of each pid is
// its earliest, none with keepFirst, and the rank count is the number of
// distinct pids.
func SpanBindSpread(binds []SpreadPass, keepFirst bool) (*BindSpread, error) {
	if len(binds) == 0 {
		return nil, ErrNoBindPasses
	}
	var warm []SpreadPass
	ranks := 0
	for i := range binds {
		first := i == 0 || binds[i].Pid != binds[i-1].Pid
		if first {
			ranks++
		}
		if keepFirst || !first {
			warm = append(warm, binds[i])
		}
	}
	if len(warm) == 0 {
		return nil, &AllColdError{Passes: len(binds), Ranks: ranks}
	}
	sp := spreadBindPasses(warm, SpanPhaseSetFor(binds))
	sp.Passes, sp.Cold, sp.Ranks = len(binds), len(binds)-len(warm), ranks
	return sp, nil
}

// spreadBindPasses summarises the warm passes.
func spreadBindPasses(warm []SpreadPass, set BindPhaseSet) *BindSpread {
	sp := spreadOver(spreadPassList(warm), set)
	sp.WarmPasses = warm
	return sp
}

// spreadSource is what the spread reads of the warm passes: the duration
// in ms of each of a pass's phases.
type spreadSource interface {
	n() int
	ms(i int, phase string) (float64, bool)
	phases(i int, f func(phase string)) // every phase of pass i, once
}

type spreadPassList []SpreadPass

func (l spreadPassList) n() int { return len(l) }

func (l spreadPassList) ms(i int, phase string) (float64, bool) {
	x, ok := l[i].Ms[phase]
	return x, ok
}

func (l spreadPassList) phases(i int, f func(string)) {
	for ph := range l[i].Ms {
		f(ph)
	}
}

// spreadOver summarises warm passes in the vocabulary set.
func spreadOver(warm spreadSource, set BindPhaseSet) *BindSpread {
	n := warm.n()
	sp := &BindSpread{Set: set, Warm: n}
	control := make(map[string]bool, len(set.ControlPlane))
	for _, ph := range set.ControlPlane {
		control[ph] = true
	}
	for _, ph := range set.Order {
		var v []float64
		for i := range n {
			if x, ok := warm.ms(i, ph); ok {
				v = append(v, x)
			}
		}
		if len(v) > 0 {
			sp.Rows = append(sp.Rows, bindSpreadRow(ph, control[ph], v))
		}
	}
	known := make(map[string]bool, len(set.Order))
	for _, ph := range set.Order {
		known[ph] = true
	}
	unknown := make(map[string]bool)
	for i := range n {
		warm.phases(i, func(ph string) {
			if !known[ph] && !unknown[ph] {
				unknown[ph] = true
				sp.Unknown = append(sp.Unknown, ph)
			}
		})
	}
	sort.Strings(sp.Unknown)

	for _, ph := range set.ControlPlane {
		k := 0
		for i := range n {
			if _, ok := warm.ms(i, ph); ok {
				k++
			}
		}
		switch {
		case k == 0:
			sp.Retired = append(sp.Retired, ph)
		case k < n:
			sp.Present = append(sp.Present, ph)
			sp.Partial = append(sp.Partial, ph)
		default:
			sp.Present = append(sp.Present, ph)
		}
	}
	var totals []float64
	for i := range n {
		total, complete := 0.0, true
		for _, ph := range sp.Present {
			x, ok := warm.ms(i, ph)
			if !ok {
				complete = false
				break
			}
			total += x // in control-plane order, as the reference sums
		}
		if complete {
			totals = append(totals, total)
		}
	}
	if len(totals) > 0 {
		row := bindSpreadRow("total", false, totals)
		sp.Total = &row
	}
	return sp
}

func bindSpreadRow(phase string, control bool, v []float64) BindSpreadRow {
	lo, hi := minMax(v)
	return BindSpreadRow{Phase: phase, Control: control, Min: lo, Median: median(v), Max: hi, N: len(v)}
}
