package phases

import (
	"github.com/hbgkit/hbgkit/trace"
)

// A SpreadCollector makes the line-based spread of `hbgtrace phases`
// (the tests' SnapshotBindPasses, then SnapshotBindSpread) from a stream of `bind
// phase=` lines: give it every line in log order, then ask for Spread. It
// keeps per pass only the durations of its segments (and, when asked for
// the accounting, the pass's metrics), never the lines: about 140 bytes a
// pass instead of a map and the segments of a SpreadPass.
type SpreadCollector struct {
	grouper    *trace.PassGrouper
	vecs       []spreadVec // by pass index
	accounting bool
	// seen maps a pass's trace.PassKey to its index: a pass that repeats
	// an earlier one exactly (the same log given twice) is counted in
	// duplicates and used once, the copy with the lower index.
	seen       map[string]int
	duplicates int
	// uncut is set by a line longer than the runtime's buffer of `bind
	// phase=` attributes (collectBindPasses).
	uncut bool
}

// spreadVec is one pass of lines as the spread reads it: the duration in
// ms of each segment (the last written of a name), the common segments in
// an array, any other in a list.
type spreadVec struct {
	ms      [len(spreadKnown)]float64
	has     uint16
	other   []spreadMs
	metrics *PassMetrics
	// evidence are the pass's canonical segments with their evidence
	// attributes (EvidenceAttrs) and lines, kept with accounting.
	evidence []Segment
}

type spreadMs struct {
	phase string
	ms    float64
}

// spreadKnown are the segments of every vocabulary (snapshotPhases,
// SpanPhaseSetFor): the ones a spreadVec keeps in its array, those the
// runtime writes under their own names (trace.RuntimeSegments).
var spreadKnown = func() (k [spreadKnownN]string) {
	copy(k[:], trace.RuntimeSegments())
	return k
}()

// spreadKnownN is len(trace.RuntimeSegments()), a constant for the array
// of a spreadVec (TestSpreadKnownIsRuntimeSegments keeps the two equal).
const spreadKnownN = 13

func spreadKnownIndex(phase string) int {
	for i, k := range spreadKnown {
		if k == phase {
			return i
		}
	}
	return -1
}

var spreadHostOrch = spreadKnownIndex(trace.SegHostOrch)

// NewSpreadCollector returns an empty SpreadCollector; with accounting it
// also keeps each pass's PassMetrics, for BindSpread.AccountingSpread.
func NewSpreadCollector(accounting bool) *SpreadCollector {
	c := &SpreadCollector{accounting: accounting, seen: make(map[string]int)}
	c.grouper = trace.NewPassGrouper(c.pass)
	return c
}

// Bound makes the collector count the passes it holds in b (and the lines
// of a pass past a real pass's size); b.Err reports the line past it.
func (c *SpreadCollector) Bound(b *trace.Bound) { c.grouper.Bound = b }

// BindPhase takes the next `bind phase=` line of the log.
func (c *SpreadCollector) BindPhase(l *trace.BindPhase) {
	c.uncut = c.uncut || len(l.Attrs) > lineAttrCap
	c.grouper.Add(l)
}

// pass keeps a complete pass as a spreadVec, as SpreadPass.add reads it.
func (c *SpreadCollector) pass(i int, p trace.Pass) {
	for len(c.vecs) <= i {
		c.vecs = append(c.vecs, spreadVec{})
	}
	key := trace.PassKey(p)
	if j, ok := c.seen[key]; ok {
		c.duplicates++
		if j < i {
			return // an empty vec is no pass
		}
		c.vecs[j] = spreadVec{}
	}
	c.seen[key] = i
	v := &c.vecs[i]
	var bind BindPass
	for j := range p.Segments {
		l := &p.Segments[j]
		ms := float64(l.DurNs) / 1e6
		if k := spreadKnownIndex(l.Phase); k >= 0 {
			v.ms[k] = ms
			v.has |= 1 << k
		} else {
			found := false
			for o := range v.other {
				if v.other[o].phase == l.Phase {
					v.other[o].ms, found = ms, true
				}
			}
			if !found {
				v.other = append(v.other, spreadMs{l.Phase, ms})
			}
		}
		if c.accounting {
			if name, ok := trace.CanonicalSegment(l.Phase); ok {
				bind.Segments = append(bind.Segments, Segment{Name: name, Ts: l.StartNs, Dur: l.DurNs})
				attrs, capped := EvidenceAttrs(l.Attrs, len(l.Attrs) == lineAttrCap)
				v.evidence = append(v.evidence, Segment{Name: name, Attrs: attrs, Capped: capped, Pos: l.Pos})
			}
		}
	}
	if c.accounting && v.has&(1<<spreadHostOrch) != 0 {
		m := ComputePassMetrics(bind)
		v.metrics = &m
	}
}

// Duplicates returns how many passes repeated an earlier pass exactly,
// line for line, and were left out; valid after Spread.
func (c *SpreadCollector) Duplicates() int { return c.duplicates }

// spreadVecs are passes as a spreadSource.
type spreadVecs []spreadVec

func (l spreadVecs) n() int { return len(l) }

func (l spreadVecs) ms(i int, phase string) (float64, bool) {
	v := &l[i]
	if k := spreadKnownIndex(phase); k >= 0 {
		return v.ms[k], v.has&(1<<k) != 0
	}
	for _, o := range v.other {
		if o.phase == phase {
			return o.ms, true
		}
	}
	return 0, false
}

func (l spreadVecs) phases(i int, f func(string)) {
	v := &l[i]
	for k, ph := range spreadKnown {
		if v.has&(1<<k) != 0 {
			f(ph)
		}
	}
	for _, o := range v.other {
		f(o.phase)
	}
}

// EvidenceTable returns the evidence of the summarised passes, one row
// per pass in the order the spread took them, none of them cold
// (NewEvidenceTable): from the segments a SpreadCollector kept with
// accounting, or those of WarmBinds.
func (sp *BindSpread) EvidenceTable() *EvidenceTable {
	if sp.WarmPasses == nil && sp.warmEvidence != nil {
		return NewEvidenceTable(len(sp.warmEvidence), func(i int) BindPass {
			return BindPass{Segments: sp.warmEvidence[i]}
		}, false)
	}
	binds := sp.WarmBinds()
	return NewEvidenceTable(len(binds), func(i int) BindPass { return binds[i] }, false)
}

// Spread returns SnapshotBindSpread(SnapshotBindPasses(lines), opts) of
// the lines given. The spread's WarmPasses are nil: the collector keeps no
// SpreadPass; AccountingSpread gives the accounting rows instead. Call it
// once, at the end.
func (c *SpreadCollector) Spread(opts BindSpreadOptions) (*BindSpread, error) {
	c.grouper.Close()
	passes := make(spreadVecs, 0, len(c.vecs))
	for i := range c.vecs {
		if c.vecs[i].has&(1<<spreadHostOrch) != 0 {
			passes = append(passes, c.vecs[i])
		}
	}
	c.vecs, c.seen = nil, nil
	dropped, ranks, err := snapshotColdPasses(len(passes), opts)
	if err != nil {
		return nil, err
	}
	warm := passes[dropped:]
	sp := spreadOver(warm, snapshotPhases())
	sp.Passes, sp.Cold, sp.Ranks = len(passes), dropped, ranks
	if c.accounting {
		sp.warmMetrics = make([]PassMetrics, len(warm))
		sp.warmEvidence = make([][]Segment, len(warm))
		for i := range warm {
			sp.warmMetrics[i] = *warm[i].metrics
			sp.warmEvidence[i] = warm[i].evidence
			for j := range sp.warmEvidence[i] {
				sp.warmEvidence[i][j].Capped = sp.warmEvidence[i][j].Capped && !c.uncut
			}
		}
	}
	return sp, nil
}

// AccountingSpread returns the accounting rows over the summarised passes:
// ComputeAccountingSpread(sp.WarmBinds()), or for a spread made by a
// SpreadCollector (with accounting) the same from the metrics it kept.
func (sp *BindSpread) AccountingSpread() AccountingSpread {
	if sp.WarmPasses == nil && sp.warmMetrics != nil {
		return ComputeAccountingSpreadOf(sp.warmMetrics)
	}
	return ComputeAccountingSpread(sp.WarmBinds())
}

// SpanBindSpans keeps, from a stream, the spans SpanBindPasses reads: E3
// bind segments (SpanBindSegment), their attributes reduced to the
// evidence (EvidenceAttrs) so that they do not keep the log's text.
type SpanBindSpans struct {
	Spans []trace.Span
	// Bound, when set, counts the spans kept; a span past it is not.
	Bound *trace.Bound
}

// SpanBindName reports whether a span of this name may be an E3 bind
// segment (chip.run.bind.<segment>); a reader may skip the others
// (trace.ReadOptions.KeepSpan).
func SpanBindName(name string) bool {
	s := trace.Span{Name: name}
	_, ok := SpanBindSegment(&s)
	return ok
}

// Add takes the next span of the log.
func (k *SpanBindSpans) Add(s *trace.Span) {
	if _, ok := SpanBindSegment(s); !ok || !k.Bound.Hold(s.Pos) {
		return
	}
	c := *s
	c.Attrs, _ = EvidenceAttrs(s.Attrs, false)
	k.Spans = append(k.Spans, c)
}
