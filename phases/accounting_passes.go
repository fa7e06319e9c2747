package phases

import (
	"cmp"
	"slices"
	"sort"
	"strings"

	"github.com/hbgkit/hbgkit/trace"
)

// acctBindPrefixes are the span-name prefixes under which bind segments are
// written: upstream/E3 and, before the 2026-08-18 rename, PR-1870.
var acctBindPrefixes = []string{"chip.run.bind.", "simpler_run.bind."}

// CanonicalSpanSegment returns the canonical segment a span stands for, and false
// when the span is no bind segment: a device span, a name outside
// chip.run.bind.* / simpler_run.bind.*, or a non-segment such as
// orch_h2d_pipe (a wrapper of host_orch and the leftover upload, which
// would count both twice) or an orchestrator operation
// chip.run.bind.host_orch.<op>.
func CanonicalSpanSegment(s *trace.Span) (string, bool) {
	for _, p := range acctBindPrefixes {
		if rest, ok := strings.CutPrefix(s.Name, p); ok {
			if s.IsDevice() {
				return "", false
			}
			return trace.CanonicalSegment(rest)
		}
	}
	return "", false
}

// A Segment is one interval of a bind pass, under its canonical name.
type Segment struct {
	Name  string // canonical (see trace.CanonicalSegment)
	Ts    int64  // ns, host monotonic
	Dur   int64  // ns
	Attrs string // raw attributes as written, "" when the source has none
	// Pos is the line the segment was written on ({} when the source
	// keeps none: records, the streaming collector).
	Pos trace.Pos
	// Capped is set for a `bind phase=` line whose attributes are exactly
	// as long as the runtime's buffer holds (95 characters): its last
	// value may have been cut. Longer attributes were not cut by it (the
	// counters a runtime appends after them).
	Capped bool
}

// lineAttrCap is how many characters of attributes a `bind phase=` line
// can carry: the runtime copies them into a 96-byte buffer
// (docs/formats.md "Evidence: counters and work attributes"), without a
// marker when it cuts.
const lineAttrCap = 95

// End returns Ts + Dur.
func (s Segment) End() int64 { return s.Ts + s.Dur }

// A BindPass is one bind of one callable: the canonical segments of one
// (pid, inv), from whichever generation wrote them. Known is false for an
// E1/E2 pass no chip.run.bind span contains; it then has no pid and no inv.
type BindPass struct {
	Pid      int64
	Inv      uint64
	Known    bool
	Segments []Segment
	// Orch are the `host-orch phase=` lines the pass's thread wrote after
	// its `bind phase=` lines (E1/E2); nil for other generations.
	Orch []trace.HostOrchPhase
}

// Has reports whether the pass has a segment named name (canonical).
func (p *BindPass) Has(name string) bool {
	for i := range p.Segments {
		if p.Segments[i].Name == name {
			return true
		}
	}
	return false
}

type acctKey struct {
	pid int64
	inv uint64
}

// BindPassesFromSpans builds the passes of E3 (chip.run.bind.<segment>) and
// PR-1870 (simpler_run.bind.*, also chip.run.bind.* with those names)
// logs: the non-device segment spans grouped by (pid, inv), segments in
// span order. Passes come sorted by (pid, inv). Spans that are no bind
// segment are ignored (see CanonicalSpanSegment).
func BindPassesFromSpans(spans []trace.Span) []BindPass {
	idx := make(map[acctKey]int)
	var out []BindPass
	for i := range spans {
		s := &spans[i]
		name, ok := CanonicalSpanSegment(s)
		if !ok {
			continue
		}
		k := acctKey{s.Pid, s.Inv}
		j, ok := idx[k]
		if !ok {
			j = len(out)
			idx[k] = j
			out = append(out, BindPass{Pid: s.Pid, Inv: s.Inv, Known: true})
		}
		out[j].Segments = append(out[j].Segments, Segment{Name: name, Ts: s.Ts, Dur: s.Dur, Attrs: s.Attrs, Pos: s.Pos})
	}
	acctSortPasses(out)
	return out
}

// BindPassesFromLines turns grouped and attached E1/E2 passes
// (trace.GroupPasses, then trace.AttachPasses) into BindPasses: the pid and
// inv come from the bind span, and a pass without one stays a pass of its
// own with Known false. Lines whose phase is no bind segment are dropped.
// The order of the input is kept.
func BindPassesFromLines(passes []trace.Pass) []BindPass {
	out := make([]BindPass, 0, len(passes))
	for _, p := range passes {
		bp := BindPass{}
		if p.Bind != nil {
			bp.Pid, bp.Inv, bp.Known = p.Bind.Pid, p.Bind.Inv, true
		}
		for i := range p.Segments {
			l := &p.Segments[i]
			name, ok := trace.CanonicalSegment(l.Phase)
			if !ok {
				continue
			}
			bp.Segments = append(bp.Segments, Segment{Name: name, Ts: l.StartNs, Dur: l.DurNs, Attrs: l.Attrs, Pos: l.Pos, Capped: len(l.Attrs) == lineAttrCap})
		}
		out = append(out, bp)
	}
	return out
}

// BindPassesFromRecords builds passes from host_phase_records.jsonl lines
// (trace.LoadPhaseRecords): per line whose (pid, inv) is usable, the
// records whose phase is a bind segment, dur = max(0, end − start).
// Orchestrator operations and records the reference would skip are
// dropped; lines are kept in order, so two lines of one key stay two
// passes until MergeBindPasses joins them.
func BindPassesFromRecords(rps []trace.RecordPass) []BindPass {
	var out []BindPass
	for _, rp := range rps {
		pid, inv, ok := rp.Key()
		if !ok {
			continue
		}
		bp := BindPass{Pid: pid, Inv: inv, Known: true}
		for _, r := range rp.Records {
			phase, start, end, ok := r.Interval()
			if !ok {
				continue
			}
			name, ok := trace.CanonicalSegment(phase)
			if !ok {
				continue
			}
			bp.Segments = append(bp.Segments, Segment{Name: name, Ts: start, Dur: max(0, end-start)})
		}
		out = append(out, bp)
	}
	return out
}

// CollectBindPasses returns the bind passes of a log from every
// generation, merged by MergeBindPasses in the order spans (E3, PR-1870),
// `bind phase=` lines (E1/E2, grouped and attached as docs/accounting.md
// "1. From any log to passes of canonical segments" says),
// records (nil when there is no artifact). A pass of lines carries the
// host-orch lines its thread wrote after it (BindPass.Orch).
func CollectBindPasses(l *trace.Log, records []trace.RecordPass) []BindPass {
	passes, _ := collectBindPasses(l, records)
	return passes
}

// collectBindPasses is CollectBindPasses; it also returns the host-orch
// lines no pass of lines precedes.
func collectBindPasses(l *trace.Log, records []trace.RecordPass) ([]BindPass, []trace.HostOrchPhase) {
	lines := trace.GroupPasses(l.BindPhases)
	trace.AttachPasses(lines, l.Spans)
	fromLines := BindPassesFromLines(lines)
	orch, orphans := attachOrch(lines, l.HostOrch, l.Sources)
	// A writer either cuts attributes at 95 characters or does not: one
	// longer line shows that a line of exactly 95 is whole.
	uncut := false
	for i := range l.BindPhases {
		uncut = uncut || len(l.BindPhases[i].Attrs) > lineAttrCap
	}
	for i := range fromLines {
		fromLines[i].Orch = orch[i]
		for j := range fromLines[i].Segments {
			fromLines[i].Segments[j].Capped = fromLines[i].Segments[j].Capped && !uncut
		}
	}
	return MergeBindPasses(BindPassesFromSpans(l.Spans), fromLines, BindPassesFromRecords(records)), orphans
}

// A BindPassCollector is CollectBindPasses over a stream
// of records: give it every span and every `bind phase=` line of a log in
// log order, then ask for Passes, or for the Accounting of a rounds
// table's rows. It keeps the host bind spans and the segments of the
// passes of lines in a compact form (a name code, start and duration),
// never the log. Its segments carry no Attrs: the accounting reads none,
// and keeping them would keep the text of the log.
type BindPassCollector struct {
	spanIdx    map[acctKey]int
	spanPasses []BindPass
	grouper    *trace.PassGrouper
	lines      []bpcLinePass      // by pass index
	binds      []trace.BindExtent // the host bind spans
	bindKeys   []acctKey          // and their keys
	block      *bpcBlock          // where the next pass's segments go
	done       bool               // the passes are complete and attached
	byKey      []int32            // indexes of known line passes, sorted by key
	// records are the passes of host_phase_records.jsonl artifacts, by
	// key; they rank below spans and lines.
	records    map[acctKey][]BindPass
	recordList []BindPass
	// evidence keeps each segment's evidence attributes (EvidenceAttrs)
	// and line, for Evidence; uncut is set by a `bind phase=` line longer
	// than the runtime's buffer (collectBindPasses).
	evidence bool
	uncut    bool
	bound    *trace.Bound
}

// bpcLinePass is a pass of lines: its extent (for FindBinds), its key once
// attached, and where its canonical segments are.
type bpcLinePass struct {
	thread     string
	start, end int64
	pid        int64
	inv        uint64
	blk        *bpcBlock
	off, n     int32
	known      bool
	empty      bool
}

// A bpcBlock holds the segments of many passes in 17 bytes each: start
// and duration, and the canonical name as an index into bpcSegNames.
type bpcBlock struct {
	td    []int64
	names []uint8
	// With evidence kept: per segment its evidence attributes, whether
	// they filled the line's buffer, and its line.
	attrs  []string
	capped []bool
	pos    []trace.Pos
}

const bpcBlockSegs = 4096

// bpcSegNames are the canonical segment names, indexed by bpcBlock.names.
var bpcSegNames = [...]string{
	trace.SegArgs, trace.SegArenaBuild, trace.SegStaticArena, trace.SegGmHeap, trace.SegSharedMem, trace.SegRuntimeInit, trace.SegPrebuilt,
	trace.SegHostOrch, trace.SegHostOrchSetup, trace.SegHostOrchEntry, trace.SegGraphPack, trace.SegGraphUpload, trace.SegRelocate,
	trace.SegSmH2d, trace.SegArenaH2d, trace.SegH2dGraph, trace.SegH2dImage, trace.SegHostViewClose,
}

var bpcSegCode = func() map[string]uint8 {
	m := make(map[string]uint8, len(bpcSegNames))
	for i, n := range bpcSegNames {
		m[n] = uint8(i)
	}
	return m
}()

// NewBindPassCollector returns an empty BindPassCollector.
func NewBindPassCollector() *BindPassCollector {
	c := &BindPassCollector{spanIdx: make(map[acctKey]int)}
	c.grouper = trace.NewPassGrouper(c.linePass)
	return c
}

// segmentsFree is how many segment spans of a bind a Bound does not count:
// a real bind has tens.
const segmentsFree = 64

// Bound makes the collector count in b the binds and passes it holds (and
// the segments of a pass past a real pass's size); b.Err reports the
// record past it.
func (c *BindPassCollector) Bound(b *trace.Bound) {
	c.bound = b
	c.grouper.Bound = b
}

// KeepEvidence makes the collector keep, per segment, the attributes
// evidence reads (counters and work, not the rest of the line) and its
// line, for Evidence. Call it before the first record; the reader must
// then keep the attributes of bind-phase lines and spans.
func (c *BindPassCollector) KeepEvidence() { c.evidence = true }

// BindPassSpan reports whether a span named name can matter to a
// BindPassCollector: a bind span or a bind segment span. A reader may
// skip the others (trace.ReadOptions.KeepSpan).
func BindPassSpan(name string) bool {
	for _, p := range []string{"chip.run.bind", "simpler_run.bind"} {
		if strings.HasPrefix(name, p) && (len(name) == len(p) || name[len(p)] == '.') {
			return true
		}
	}
	return false
}

// Span takes the next span of the log.
func (c *BindPassCollector) Span(s *trace.Span) {
	if trace.IsBindSpan(s) {
		if !c.bound.Hold(s.Pos) {
			return
		}
		c.binds = appendDoubling(c.binds, trace.BindExtentOf(s))
		c.bindKeys = appendDoubling(c.bindKeys, acctKey{s.Pid, s.Inv})
		return
	}
	name, ok := CanonicalSpanSegment(s)
	if !ok {
		return
	}
	k := acctKey{s.Pid, s.Inv}
	j, ok := c.spanIdx[k]
	if !ok {
		if !c.bound.Hold(s.Pos) {
			return
		}
		j = len(c.spanPasses)
		c.spanIdx[k] = j
		c.spanPasses = append(c.spanPasses, BindPass{Pid: s.Pid, Inv: s.Inv, Known: true})
	}
	seg := Segment{Name: name, Ts: s.Ts, Dur: s.Dur}
	if c.evidence {
		seg.Attrs, _ = EvidenceAttrs(s.Attrs, false)
		seg.Pos = s.Pos
	}
	if len(c.spanPasses[j].Segments) >= segmentsFree && !c.bound.Hold(s.Pos) {
		return
	}
	c.spanPasses[j].Segments = append(c.spanPasses[j].Segments, seg)
}

// Records adds the passes of host_phase_records.jsonl artifacts
// (trace.LoadPhaseRecords). For each segment name a span or a line of the
// same bind wins over a record (MergeBindPasses); a record fills in what
// the log lacks. Give them before Passes or Accounting.
func (c *BindPassCollector) Records(rps []trace.RecordPass) {
	if c.records == nil {
		c.records = make(map[acctKey][]BindPass)
	}
	for _, p := range BindPassesFromRecords(rps) {
		k := acctKey{p.Pid, p.Inv}
		c.records[k] = append(c.records[k], p)
		c.recordList = append(c.recordList, p)
	}
}

// BindPhase takes the next `bind phase=` line of the log.
func (c *BindPassCollector) BindPhase(l *trace.BindPhase) {
	c.uncut = c.uncut || len(l.Attrs) > lineAttrCap
	c.grouper.Add(l)
}

// linePass keeps a complete pass of lines as its extent and its canonical
// segments, which go into shared blocks rather than an allocation each.
func (c *BindPassCollector) linePass(i int, p trace.Pass) {
	for len(c.lines) <= i {
		c.lines = appendDoubling(c.lines, bpcLinePass{})
	}
	lp := &c.lines[i]
	lp.thread, lp.empty = p.Thread, len(p.Segments) == 0
	lp.start, lp.end = p.Span()
	if c.block == nil || cap(c.block.names)-len(c.block.names) < len(p.Segments) {
		n := max(bpcBlockSegs, len(p.Segments))
		c.block = &bpcBlock{td: make([]int64, 0, 2*n), names: make([]uint8, 0, n)}
	}
	b := c.block
	lp.blk, lp.off = b, int32(len(b.names))
	for j := range p.Segments {
		l := &p.Segments[j]
		if code, ok := segmentCode(l.Phase); ok {
			b.td = append(b.td, l.StartNs, l.DurNs)
			b.names = append(b.names, code)
			if c.evidence {
				a, capped := EvidenceAttrs(l.Attrs, len(l.Attrs) == lineAttrCap)
				b.attrs = append(b.attrs, a)
				b.capped = append(b.capped, capped)
				b.pos = append(b.pos, l.Pos)
			}
		}
	}
	lp.n = int32(len(b.names)) - lp.off
}

// appendDoubling is append that doubles a full slice's capacity. append
// grows a large slice by about a quarter, so a slice of n records grown
// one by one was copied about four times its size over, into fresh pages
// each time; doubling copies it at most once over.
func appendDoubling[T any](s []T, v T) []T {
	if len(s) == cap(s) {
		s = slices.Grow(s, max(len(s), 64))
	}
	return append(s, v)
}

// Finish completes the open passes and attaches every pass of lines to
// its bind span, once the stream has ended; Accounting does it when it has
// not been done. It touches nothing but the collector, so it may run on
// another goroutine while the caller builds the rounds table, but not at
// the same time as Accounting.
func (c *BindPassCollector) Finish() { c.finish() }

// finish is Finish.
func (c *BindPassCollector) finish() {
	if c.done {
		return
	}
	c.done = true
	c.grouper.Close()
	ext := make([]trace.PassExtent, len(c.lines))
	for i := range c.lines {
		lp := &c.lines[i]
		ext[i] = trace.PassExtent{Thread: lp.thread, Start: lp.start, End: lp.end, Empty: lp.empty}
	}
	for i, b := range trace.FindBinds(ext, c.binds) {
		if b >= 0 {
			c.lines[i].pid, c.lines[i].inv, c.lines[i].known = c.bindKeys[b].pid, c.bindKeys[b].inv, true
			c.byKey = append(c.byKey, int32(i))
		}
	}
	c.binds, c.bindKeys = nil, nil
	slices.SortStableFunc(c.byKey, func(a, b int32) int {
		x, y := &c.lines[a], &c.lines[b]
		if c := cmp.Compare(x.pid, y.pid); c != 0 {
			return c
		}
		return cmp.Compare(x.inv, y.inv)
	})
	acctSortPasses(c.spanPasses)
	for j, p := range c.spanPasses {
		c.spanIdx[acctKey{p.Pid, p.Inv}] = j
	}
}

// pass returns the pass, its segments appended to buf (nil: a fresh
// slice); uncut says the log's lines were not cut at the buffer's size.
func (lp *bpcLinePass) pass(buf []Segment, uncut bool) BindPass {
	bp := BindPass{Pid: lp.pid, Inv: lp.inv, Known: lp.known}
	if lp.n > 0 {
		if buf == nil {
			buf = make([]Segment, 0, lp.n)
		}
		for k := range int(lp.n) {
			at := int(lp.off) + k
			seg := Segment{Name: bpcSegNames[lp.blk.names[at]], Ts: lp.blk.td[2*at], Dur: lp.blk.td[2*at+1]}
			if lp.blk.attrs != nil {
				seg.Attrs, seg.Capped, seg.Pos = lp.blk.attrs[at], lp.blk.capped[at] && !uncut, lp.blk.pos[at]
			}
			buf = append(buf, seg)
		}
		bp.Segments = buf
	}
	return bp
}

// passFor returns the merged pass of key k (MergeBindPasses), and an empty
// pass with that key when the log has none. The segments of a key with
// one pass of lines and nothing else are appended to buf.
func (c *BindPassCollector) passFor(k acctKey, buf []Segment) BindPass {
	var spans, lines []BindPass
	if j, ok := c.spanIdx[k]; ok {
		spans = c.spanPasses[j : j+1]
	}
	at := sort.Search(len(c.byKey), func(i int) bool {
		lp := &c.lines[c.byKey[i]]
		return lp.pid > k.pid || lp.pid == k.pid && lp.inv >= k.inv
	})
	end := at
	for end < len(c.byKey) {
		lp := &c.lines[c.byKey[end]]
		if lp.pid != k.pid || lp.inv != k.inv {
			break
		}
		end++
	}
	recs := c.records[k]
	if len(spans) == 0 && end-at == 1 && len(recs) == 0 {
		// What MergeBindPasses makes of one pass, in the scratch.
		return c.lines[c.byKey[at]].pass(buf, c.uncut)
	}
	for ; at < end; at++ {
		lines = append(lines, c.lines[c.byKey[at]].pass(nil, c.uncut))
	}
	if merged := MergeBindPasses(spans, lines, recs); len(merged) > 0 {
		return merged[0]
	}
	return BindPass{Pid: k.pid, Inv: k.inv, Known: true}
}

// Accounting returns the accounting of a rounds table's rows:
// ComputeAccounting(BindPassesForRows(c.Passes(), rows)) of the tests'
// batch twins (oracles_test.go), making one
// row's pass at a time. Call it at the end; it may be called once per
// table.
func (c *BindPassCollector) Accounting(rows []RoundRow) *Accounting {
	c.finish()
	return ComputeAccountingOf(len(rows), func(i int, buf []Segment) BindPass {
		return c.passFor(acctKey{rows[i].Pid, rows[i].Inv}, buf)
	})
}

// Evidence returns the evidence of a rounds table's rows, one pass per
// row (NewEvidenceTable, the first pass of each pid cold): the counters
// and work attributes of the passes' segments, which KeepEvidence must
// have asked for. Call it at the end, after Finish or Accounting.
func (c *BindPassCollector) Evidence(rows []RoundRow) *EvidenceTable {
	c.finish()
	return NewEvidenceTable(len(rows), func(i int) BindPass {
		return c.passFor(acctKey{rows[i].Pid, rows[i].Inv}, nil)
	}, true)
}

// MergeBindPasses joins passes from several sources into one pass per
// (pid, inv). Sources are given in order of precedence (spans, then
// `bind phase=` lines, then records is the natural order): a segment name
// that an earlier source already gave for a key is not taken from a later
// one, so a bind written both as lines and as records counts once. Passes
// without a pid (Known false) are kept as they are, after the known ones.
// Known passes come sorted by (pid, inv). A key given by one pass only
// shares that pass's segments (capped, so an append copies them).
func MergeBindPasses(sources ...[]BindPass) []BindPass {
	idx := make(map[acctKey]int)
	var known, unknown []BindPass
	// Per known pass: the source that last touched it (1-based) and how
	// many segments it had before that source, so that a source may repeat
	// a name within itself (per-layer uploads, per-event records).
	var touched, before []int
	for si, src := range sources {
		for _, p := range src {
			if !p.Known {
				unknown = append(unknown, p)
				continue
			}
			k := acctKey{p.Pid, p.Inv}
			j, ok := idx[k]
			if !ok {
				j = len(known)
				idx[k] = j
				known = append(known, BindPass{Pid: p.Pid, Inv: p.Inv, Known: true})
				touched, before = append(touched, 0), append(before, 0)
			}
			if known[j].Orch == nil {
				known[j].Orch = p.Orch
			}
			if touched[j] != si+1 {
				touched[j], before[j] = si+1, len(known[j].Segments)
			}
			if len(known[j].Segments) == 0 && len(p.Segments) > 0 {
				known[j].Segments = p.Segments[:len(p.Segments):len(p.Segments)]
				continue
			}
			had := known[j].Segments[:before[j]]
			for _, s := range p.Segments {
				if !acctHasSegment(had, s.Name) {
					known[j].Segments = append(known[j].Segments, s)
				}
			}
		}
	}
	acctSortPasses(known)
	return append(known, unknown...)
}

func acctHasSegment(segs []Segment, name string) bool {
	for i := range segs {
		if segs[i].Name == name {
			return true
		}
	}
	return false
}

func acctSortPasses(ps []BindPass) {
	sort.SliceStable(ps, func(i, j int) bool {
		if ps[i].Pid != ps[j].Pid {
			return ps[i].Pid < ps[j].Pid
		}
		return ps[i].Inv < ps[j].Inv
	})
}
