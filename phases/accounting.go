package phases

import (
	"fmt"
	"math"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/hbgkit/hbgkit/trace"
)

// A BindStage is one quantity of the HBG bind accounting
// (docs/accounting.md "2. Per-pass stages"). The
// constants are in the column order of `hbgtrace rounds`.
type BindStage int

// The stages of the accounting, in column order.
const (
	StageArgs BindStage = iota
	StagePrebuilt
	StageHostOrch
	StageGraphPack
	StageRelocate
	StageH2dImage
	StageH2dGraph
	StageH2dSm
	StageH2dArena
	StageViewClose
	StageGate
	StageControlPlane
	NumBindStages int = iota
)

var acctStageLabels = [NumBindStages]string{
	"Args", "Prebuilt", "HostOrch", "GraphPack", "Relocate", "H2dImage",
	"H2dGraph", "H2dSm", "H2dArena", "ViewClose", "Gate", "ControlPlane",
}

// Label returns the stage's label as the table header and the share
// blocks print it ("HostOrch").
func (s BindStage) Label() string {
	if s < 0 || int(s) >= NumBindStages {
		return "BindStage(" + strconv.Itoa(int(s)) + ")"
	}
	return acctStageLabels[s]
}

// Key returns the stage's key in json rows and csv headers, the label in
// lower case with the unit: "hostorch_us" (as Column.Key spells the
// reference columns).
func (s BindStage) Key() string { return strings.ToLower(s.Label()) + "_" + UnitMicros }

// String returns the stage's label, so that %v prints it.
func (s BindStage) String() string { return s.Label() }

// derived reports whether the stage is a sum of other stages (Gate,
// ControlPlane); derived stages take no part in choosing the common round
// set, their parts do.
func (s BindStage) derived() bool { return s == StageGate || s == StageControlPlane }

// shareStages are the stages of a share block, in print order. H2dGraph,
// H2dSm and H2dArena are inside H2dImage and would be counted twice.
var shareStages = [...]BindStage{StageArgs, StagePrebuilt, StageHostOrch, StageGraphPack, StageRelocate, StageH2dImage, StageViewClose}

// ShareStageList returns the stages of a share block, in print order
// (H2dGraph, H2dSm and H2dArena are inside H2dImage and would be counted
// twice). The slice is the caller's.
func ShareStageList() []BindStage { return append([]BindStage(nil), shareStages[:]...) }

// PassMetrics are the stage values of one pass, in ns. Recorded[s] says
// whether a segment that feeds s was written in the pass; a recorded stage
// may be 0 (a clamped HostOrch, a zero-length segment).
type PassMetrics struct {
	Value    [NumBindStages]int64
	Recorded [NumBindStages]bool
}

// Get returns the value of s in ns and whether it was recorded.
func (m *PassMetrics) Get(s BindStage) (int64, bool) { return m.Value[s], m.Recorded[s] }

// acctKind returns the kind a segment is deduplicated against: the two
// spellings of a Graph upload are one kind, every other segment is its own.
func acctKind(name string) string {
	if name == trace.SegGraphUpload {
		return trace.SegH2dGraph
	}
	return name
}

// segmentCode returns the code of a segment name (bpcSegNames' index of
// its canonical name). Canonical names, what the passes of lines and
// spans carry, take one map lookup; an alias takes two.
func segmentCode(name string) (uint8, bool) {
	if c, ok := bpcSegCode[name]; ok {
		return c, true
	}
	if canon, ok := trace.CanonicalSegment(name); ok {
		return bpcSegCode[canon], true
	}
	return 0, false
}

// ComputePassMetrics computes the stage values of one pass
// (docs/accounting.md "2. Per-pass stages"), in ns.
//
//   - H2dGraph, H2dSm, H2dArena: Σ of the copies of that kind that no copy
//     of the same kind contains (h2d_graph and graph_upload are one kind), so
//     a leftover-upload parent with same-name children counts once.
//   - H2dImage: Σ of the copies no other copy contains (an h2d_image
//     wrapping its parts counts once; the parts still show in their columns).
//   - HostOrch: max(0, Σ host_orch − Σ top-level copies contained in a
//     host_orch segment); without host_orch, host_orch.setup and
//     host_orch.entry the same way. Exclusive in both cases, never negative.
//   - Prebuilt: the prebuilt segment, else arena_build + static_arena +
//     gm_heap + shared_mem + runtime_init.
//   - Args, GraphPack, Relocate, ViewClose: their segment.
//   - Gate = HostOrch + H2dImage; ControlPlane = Gate + GraphPack + Relocate.
//
// Every Σ is over segments no segment of the same kind contains.
// Names are canonicalised (h2d_sm is sm_h2d); segments that are no bind
// segment are ignored.
func ComputePassMetrics(p BindPass) PassMetrics {
	// Segments are handled by code (bpcSegNames' index of the canonical
	// name): a pass is summed per code once, not per stage and name. Every
	// sum is of integers, so the order of addition does not matter.
	var m PassMetrics
	var buf [32]acctSegCode
	segs := buf[:0]
	for _, s := range p.Segments {
		if c, ok := segmentCode(s.Name); ok {
			segs = append(segs, acctSegCode{ts: s.Ts, end: s.End(), dur: s.Dur, code: c, kind: acctKindCode[c], h2d: acctH2DCode[c]})
		}
	}
	// contains reports whether segment o contains segment i: inclusive
	// interval containment, nothing else (names and depths play no part).
	// Two segments with the same interval would contain each other, so
	// a rule that log order plays no part in picks one
	// (docs/accounting.md "2. Per-pass stages"): a
	// host_orch (or setup/entry) segment contains an H2D copy with its
	// interval; otherwise the lower segment code is the container, and
	// between two segments of one code and one interval — which are
	// interchangeable, so it changes no number — the earlier one.
	contains := func(o, i int) bool {
		if o == i {
			return false
		}
		a, b := &segs[o], &segs[i]
		if a.ts > b.ts || b.end > a.end {
			return false
		}
		if a.ts == b.ts && a.end == b.end {
			ao, bo := acctOrchCode[a.code], acctOrchCode[b.code]
			if ao != bo && (a.h2d || b.h2d) {
				return ao
			}
			if a.code != b.code {
				return a.code < b.code
			}
			return o < i
		}
		return true
	}
	var sum [len(bpcSegNames)]int64 // Σ dur of the top-of-kind segments of a code
	var rec [len(bpcSegNames)]bool  // a segment of the code was written
	var image int64
	imageRec := false
	var topBuf [32]bool
	topH2D := topBuf[:0] // an H2D copy no other H2D copy contains
	for i := range segs {
		topKind, top := true, segs[i].h2d
		for o := range segs {
			if !contains(o, i) {
				continue
			}
			if segs[o].kind == segs[i].kind {
				topKind = false
			}
			if segs[o].h2d {
				top = false
			}
		}
		c := segs[i].code
		rec[c] = true
		if topKind {
			sum[c] = satAdd(sum[c], segs[i].dur)
		}
		if segs[i].h2d {
			imageRec = true
			if top {
				image = satAdd(image, segs[i].dur)
			}
		}
		topH2D = append(topH2D, top)
	}
	set := func(s BindStage, v int64, r bool) { m.Value[s], m.Recorded[s] = v, r }
	// put sets s from the segments named in names and reports whether any
	// was written.
	put := func(s BindStage, names ...string) bool {
		var v int64
		r := false
		for _, nm := range names {
			c := bpcSegCode[nm]
			v = satAdd(v, sum[c])
			r = r || rec[c]
		}
		set(s, v, r)
		return r
	}
	put(StageArgs, trace.SegArgs)
	if !put(StagePrebuilt, trace.SegPrebuilt) {
		put(StagePrebuilt, trace.SegArenaBuild, trace.SegStaticArena, trace.SegGmHeap, trace.SegSharedMem, trace.SegRuntimeInit)
	}
	put(StageGraphPack, trace.SegGraphPack)
	put(StageRelocate, trace.SegRelocate)
	put(StageH2dGraph, trace.SegH2dGraph, trace.SegGraphUpload)
	put(StageH2dSm, trace.SegSmH2d)
	put(StageH2dArena, trace.SegArenaH2d)
	put(StageViewClose, trace.SegHostViewClose)
	set(StageH2dImage, image, imageRec)

	orchCodes := []uint8{bpcSegCode[trace.SegHostOrch]}
	orch, orchRec := sum[orchCodes[0]], rec[orchCodes[0]]
	if !orchRec {
		orchCodes = []uint8{bpcSegCode[trace.SegHostOrchSetup], bpcSegCode[trace.SegHostOrchEntry]}
		orch = satAdd(sum[orchCodes[0]], sum[orchCodes[1]])
		orchRec = rec[orchCodes[0]] || rec[orchCodes[1]]
	}
	if orchRec {
		var inside int64
		for i := range segs {
			if !topH2D[i] {
				continue
			}
			for o := range segs {
				if acctCodeIn(segs[o].code, orchCodes) && contains(o, i) {
					inside = satAdd(inside, segs[i].dur)
					break
				}
			}
		}
		set(StageHostOrch, max(0, orch-inside), true)
	}

	gate := satAdd(m.Value[StageHostOrch], m.Value[StageH2dImage])
	set(StageGate, gate, m.Recorded[StageHostOrch] || m.Recorded[StageH2dImage])
	set(StageControlPlane, satAdd(satAdd(gate, m.Value[StageGraphPack]), m.Value[StageRelocate]),
		m.Recorded[StageGate] || m.Recorded[StageGraphPack] || m.Recorded[StageRelocate])
	return m
}

// satAdd adds two durations, which are never negative (the readers take
// unsigned digits only), stopping at the largest int64 instead of wrapping
// to a negative sum: a log of absurd durations shows an absurd number, not
// a plausible wrong one.
func satAdd(a, b int64) int64 {
	if b > 0 && a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

// acctSegCode is a canonical segment of a pass as ComputePassMetrics reads
// it: its interval, its code, the code of its kind, whether it is H2D.
type acctSegCode struct {
	ts, end, dur int64
	code, kind   uint8
	h2d          bool
}

// acctKindCode maps a segment code to the code of its kind (acctKind);
// acctH2DCode says whether the code is an H2D copy (trace.IsH2D).
var acctKindCode, acctH2DCode = func() (kind [len(bpcSegNames)]uint8, h2d [len(bpcSegNames)]bool) {
	for c, name := range bpcSegNames {
		kind[c] = bpcSegCode[acctKind(name)]
		h2d[c] = trace.IsH2D(name)
	}
	return kind, h2d
}()

// acctOrchCode says whether a segment code is host_orch, host_orch.setup
// or host_orch.entry: the segments HostOrch subtracts contained copies from.
var acctOrchCode = func() (orch [len(bpcSegNames)]bool) {
	for _, name := range []string{trace.SegHostOrch, trace.SegHostOrchSetup, trace.SegHostOrchEntry} {
		orch[bpcSegCode[name]] = true
	}
	return orch
}()

func acctCodeIn(c uint8, codes []uint8) bool {
	for _, x := range codes {
		if x == c {
			return true
		}
	}
	return false
}

// Block names of the accounting.
const (
	BlockAll  = "all rounds"
	BlockCold = "cold"
	BlockWarm = "warm"
)

// An AccountingBlock summarises a set of rounds over its common round set:
// the rounds in which every stage present in the block is recorded.
type AccountingBlock struct {
	Name  string // BlockAll, BlockCold or BlockWarm, as warnings name it
	Title string // as the share block's heading names it
	// Rounds are the block's rounds (row indexes into the accounting);
	// Common the rounds summarised; LeftOut the others. M = len(Rounds),
	// K = len(Common).
	Rounds  []int
	Common  []int
	LeftOut []int
	// Present[s]: s is recorded in at least one round of the block.
	Present [NumBindStages]bool
	// Lacking are the present stages some left-out round does not record,
	// in column order.
	Lacking []BindStage
	// Mean[s] is the mean of s over Common, in µs; valid when Present[s]
	// and len(Common) > 0. Gate and ControlPlane are means of per-round
	// sums, never sums of means.
	Mean [NumBindStages]float64
}

// K returns the size of the common round set.
func (b *AccountingBlock) K() int { return len(b.Common) }

// M returns the number of rounds in the block.
func (b *AccountingBlock) M() int { return len(b.Rounds) }

// Share returns the share of s (a ShareStageList member) in percent of the
// block's share total, and false when s is not present or the total is 0.
func (b *AccountingBlock) Share(s BindStage) (float64, bool) {
	total := b.shareTotal()
	if !b.Present[s] || total <= 0 || len(b.Common) == 0 || !acctIsShare(s) {
		return 0, false
	}
	return 100 * b.Mean[s] / total, true
}

func (b *AccountingBlock) shareTotal() float64 {
	var t float64
	for _, s := range shareStages {
		if b.Present[s] {
			t += b.Mean[s]
		}
	}
	return t
}

func acctIsShare(s BindStage) bool {
	for _, x := range shareStages {
		if x == s {
			return true
		}
	}
	return false
}

// Top returns the share stage with the largest mean (ties: the first in
// ShareStageList order), and false when the block has no common round or no
// share time at all.
func (b *AccountingBlock) Top() (BindStage, bool) {
	if len(b.Common) == 0 || b.shareTotal() <= 0 {
		return 0, false
	}
	best, found := BindStage(0), false
	for _, s := range shareStages {
		if !b.Present[s] {
			continue
		}
		if !found || b.Mean[s] > b.Mean[best] {
			best, found = s, true
		}
	}
	return best, found
}

// Accounting is the HBG bind accounting of the rounds of one table: one
// pass per row, in row order.
type Accounting struct {
	Passes  []BindPass
	Metrics []PassMetrics
	// Cold[i] reports whether row i is the first pass of its pid (passes
	// without a pid count as one pid).
	Cold []bool
	// All, ColdBlock and WarmBlock are the three summaries.
	All, ColdBlock, WarmBlock AccountingBlock

	vis     []BindStage // Visible, once computed
	visDone bool
}

// ComputeAccountingOf computes the accounting of n passes given in the row
// order of the rounds table: each pass is one round, named by its index;
// the cold rounds are the first pass of each pid in that order, the warm
// rounds the rest. pass makes the passes one at a time, for a caller that
// keeps them in a more compact form than BindPass: the segments of all
// rows need never exist at once. The
// Accounting's Passes then hold each pass's key (Pid, Inv, Known) without
// its segments. pass is called from several goroutines at once, in no
// particular order. buf is scratch of the calling goroutine that pass may
// build the segments in (append(buf, ...)): they are read before the next
// call on that goroutine and never kept, so the rows cost no allocation.
func ComputeAccountingOf(n int, pass func(i int, buf []Segment) BindPass) *Accounting {
	return computeAccounting(nil, n, pass)
}

// acctEach calls f(i, buf) for i in [0, n), on every processor when n is
// large (the metrics of passes are independent of each other); buf is
// empty scratch of f's goroutine.
func acctEach(n int, f func(i int, buf []Segment)) {
	workers := min(runtime.GOMAXPROCS(0), n/1024)
	each := func(lo, hi int) {
		buf := make([]Segment, 0, 64)
		for i := lo; i < hi; i++ {
			f(i, buf[:0])
		}
	}
	if workers < 2 {
		each(0, n)
		return
	}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			each(w*n/workers, (w+1)*n/workers)
		}()
	}
	wg.Wait()
}

func computeAccounting(passes []BindPass, n int, pass func(i int, buf []Segment) BindPass) *Accounting {
	a := &Accounting{
		Passes:  passes,
		Metrics: make([]PassMetrics, n),
		Cold:    make([]bool, n),
	}
	if passes == nil && n > 0 {
		a.Passes = make([]BindPass, n)
	}
	acctEach(n, func(i int, buf []Segment) {
		p := pass(i, buf)
		if passes == nil {
			a.Passes[i] = BindPass{Pid: p.Pid, Inv: p.Inv, Known: p.Known}
		}
		a.Metrics[i] = ComputePassMetrics(p)
	})
	seen := make(map[int64]bool)
	seenUnknown := false
	var all, cold, warm []int
	for i := range n {
		p := &a.Passes[i]
		first := false
		if p.Known {
			first = !seen[p.Pid]
			seen[p.Pid] = true
		} else {
			first = !seenUnknown
			seenUnknown = true
		}
		a.Cold[i] = first
		all = append(all, i)
		if first {
			cold = append(cold, i)
		} else {
			warm = append(warm, i)
		}
	}
	a.All = a.block(BlockAll, "all rounds", all)
	a.ColdBlock = a.block(BlockCold, "cold: first pass of each pid", cold)
	a.WarmBlock = a.block(BlockWarm, "warm", warm)
	return a
}

// Blocks returns the three blocks in print order: all, cold, warm.
func (a *Accounting) Blocks() []*AccountingBlock {
	return []*AccountingBlock{&a.All, &a.ColdBlock, &a.WarmBlock}
}

// Active reports whether any pass records HostOrch: the condition under
// which `hbgtrace rounds` appends the HBG columns and blocks.
func (a *Accounting) Active() bool {
	for i := range a.Metrics {
		if a.Metrics[i].Recorded[StageHostOrch] {
			return true
		}
	}
	return false
}

// Visible returns the stages recorded in at least one round, in column
// order: the HBG columns of the rounds table. Renderers ask once per row,
// so the answer is computed on the first call and kept: change no Metrics
// after it.
func (a *Accounting) Visible() []BindStage {
	if !a.visDone {
		var rec [NumBindStages]bool
		for i := range a.Metrics {
			for s := range NumBindStages {
				rec[s] = rec[s] || a.Metrics[i].Recorded[s]
			}
		}
		for s := range NumBindStages {
			if rec[s] {
				a.vis = append(a.vis, BindStage(s))
			}
		}
		a.visDone = true
	}
	return a.vis
}

// commonRoundSet splits rounds (indexes into ms) into the common round
// set — the rounds that record every stage decides(s) names — and the
// rounds left out, with the stages some left-out round lacks
// (docs/accounting.md "3. Blocks and the common round set").
func commonRoundSet(rounds []int, ms []PassMetrics, decides func(BindStage) bool) (common, leftOut []int, lacking []BindStage) {
	var lacks [NumBindStages]bool
	for _, r := range rounds {
		ok := true
		for s := range NumBindStages {
			if decides(BindStage(s)) && !ms[r].Recorded[s] {
				ok = false
				lacks[s] = true
			}
		}
		if ok {
			common = append(common, r)
		} else {
			leftOut = append(leftOut, r)
		}
	}
	for s := range NumBindStages {
		if lacks[s] {
			lacking = append(lacking, BindStage(s))
		}
	}
	return common, leftOut, lacking
}

func (a *Accounting) block(name, title string, rounds []int) AccountingBlock {
	b := AccountingBlock{Name: name, Title: title, Rounds: rounds}
	for _, r := range rounds {
		for s := range NumBindStages {
			if a.Metrics[r].Recorded[s] {
				b.Present[s] = true
			}
		}
	}
	b.Common, b.LeftOut, b.Lacking = commonRoundSet(rounds, a.Metrics, func(s BindStage) bool {
		return b.Present[s] && !s.derived()
	})
	if len(b.Common) > 0 {
		// One buffer for every stage: the tail of a long log would
		// otherwise take a fresh slice of the rounds per stage and block.
		v := make([]float64, len(b.Common))
		for s := range NumBindStages {
			if !b.Present[s] {
				continue
			}
			for j, r := range b.Common {
				v[j] = float64(a.Metrics[r].Value[s]) / 1000
			}
			b.Mean[s] = mean(v)
		}
	}
	return b
}

// Warnings returns one warning per block that left rounds out, without the
// trailing newline:
//
//	warning: HBG accounting, <block>: left out <k> of <M> rounds that lack <stages>: rounds <i>, <j>
func (a *Accounting) Warnings() []string { return a.WarningsIn("") }

// WarningsIn is Warnings for an accounting that is one of several, scope
// naming which ("pid 90244" for a per-rank table): the block is then
// written "<scope>, <block>". An empty scope gives Warnings.
func (a *Accounting) WarningsIn(scope string) []string {
	var out []string
	for _, b := range a.Blocks() {
		if len(b.LeftOut) == 0 {
			continue
		}
		name := b.Name
		if scope != "" {
			name = scope + ", " + name
		}
		lacking, rounds := leftOutLists(b.Lacking, b.LeftOut)
		out = append(out, fmt.Sprintf("warning: HBG accounting, %s: left out %d of %d rounds that lack %s: rounds %s",
			name, len(b.LeftOut), len(b.Rounds), lacking, rounds))
	}
	return out
}

// leftOutLists spells a left-out warning's lists: the labels of the stages
// lacking and the indexes left out, each comma-separated.
func leftOutLists(lacking []BindStage, leftOut []int) (labels, indexes string) {
	ls := make([]string, len(lacking))
	for i, s := range lacking {
		ls[i] = s.Label()
	}
	is := make([]string, len(leftOut))
	for i, r := range leftOut {
		is[i] = strconv.Itoa(r)
	}
	return strings.Join(ls, ", "), strings.Join(is, ", ")
}
