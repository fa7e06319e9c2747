package phases

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/hbgkit/hbgkit/trace"
)

// CounterNames are the kernel counters E2 and E3 append to a bind
// segment, in the order they are written (docs/formats.md "Evidence:
// counters and work attributes"): deltas over the
// segment of faults (minflt process-wide, tminflt the bind thread's),
// context switches (nivcsw involuntary, nvcsw voluntary) and thread CPU
// time (cpu_ns the bind thread's, rec_cpu_ns the recorder threads').
var CounterNames = []string{"minflt", "tminflt", "nivcsw", "nvcsw", "cpu_ns", "rec_cpu_ns"}

// WorkNames are the segment attributes that count the work a bind did
// (docs/formats.md "Evidence: counters and work attributes"): tasks and
// heap_used of host_orch, defs and
// submissions of graph_upload, ntensor of args, copied of arena_h2d,
// count of host_view_close, and bytes of several segments. Two arms that
// disagree on them did not do the same work.
var WorkNames = []string{"tasks", "submissions", "defs", "bytes", "ntensor", "heap_used", "copied", "count"}

// An OrchOp is one `host-orch phase=<kind> total_ns= count=` line: the
// time the orchestrator spent in operations of one kind during a pass,
// and how many there were.
type OrchOp struct {
	TotalNs int64
	Count   int64
	// Other holds the line's other numeric attributes (detail_sum=,
	// dropped=, whatever a runtime adds): open evidence, each a metric
	// of its own. nil when there are none.
	Other map[string]int64
	Pos   trace.Pos
}

// SegmentEvidence is what one bind segment's attributes say beyond its
// interval. A name absent from a map was not written (or was no valid
// value): missing is never 0.
type SegmentEvidence struct {
	Counters map[string]int64 // CounterNames
	Work     map[string]int64 // WorkNames
	// Other holds every other attribute whose value is a non-negative
	// integer (staged=, nt=, hblkhd=, an RSS a runtime appends): open
	// evidence, with a unit from its name (EvidenceUnit). A value that
	// is no integer (dev=model, args=3465/5627/838) is a label, not a
	// number, and is not read.
	Other map[string]int64
	Pos   trace.Pos // the segment's line ({} when the source has none)
}

// PassEvidence is the evidence of one pass: per canonical segment its
// counters and work attributes (a segment written several times, such as
// per-layer h2d_graph spans, sums them), and per orchestrator operation
// kind its host-orch line.
type PassEvidence struct {
	Segments map[string]*SegmentEvidence
	Orch     map[string]OrchOp
	// incomplete names the counters whose pass total is unknown because a
	// segment that writes them in other passes lacks them in this one.
	incomplete map[string]bool
}

// Counter returns the pass total of a counter: its sum over the
// segments that wrote it. It is absent when no segment wrote it, or when a
// segment that writes it in other passes lacks it in this one.
func (e *PassEvidence) Counter(name string) (int64, bool) {
	if e.incomplete[name] {
		return 0, false
	}
	return e.sum(name, func(s *SegmentEvidence) map[string]int64 { return s.Counters })
}

// SegmentCounter returns a counter of one segment.
func (e *PassEvidence) SegmentCounter(seg, name string) (int64, bool) {
	s, ok := e.Segments[seg]
	if !ok {
		return 0, false
	}
	v, ok := s.Counters[name]
	return v, ok
}

// OtherAttr returns an open attribute (SegmentEvidence.Other) of one
// segment.
func (e *PassEvidence) OtherAttr(seg, name string) (int64, bool) {
	s, ok := e.Segments[seg]
	if !ok {
		return 0, false
	}
	v, ok := s.Other[name]
	return v, ok
}

// Work returns a work attribute of one segment.
func (e *PassEvidence) Work(seg, name string) (int64, bool) {
	s, ok := e.Segments[seg]
	if !ok {
		return 0, false
	}
	v, ok := s.Work[name]
	return v, ok
}

func (e *PassEvidence) sum(name string, of func(*SegmentEvidence) map[string]int64) (int64, bool) {
	var total int64
	has := false
	for _, s := range e.Segments {
		if v, ok := of(s)[name]; ok {
			total += v
			has = true
		}
	}
	return total, has
}

// HasCounters reports whether any segment of the pass wrote a counter.
func (e *PassEvidence) HasCounters() bool {
	for _, s := range e.Segments {
		if len(s.Counters) > 0 {
			return true
		}
	}
	return false
}

// SegmentNames returns the names of the pass's segments with evidence, in
// the runtime's enum order (others after, by name).
func (e *PassEvidence) SegmentNames() []string {
	return sortedSegments(e.Segments)
}

func sortedSegments[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := trace.SegmentIndex(out[i]), trace.SegmentIndex(out[j])
		if a < 0 {
			a = 1 << 20
		}
		if b < 0 {
			b = 1 << 20
		}
		if a != b {
			return a < b
		}
		return out[i] < out[j]
	})
	return out
}

// An EvidenceWarning is a counted problem with the evidence of a log: a
// value that is not a non-negative integer, a counter some passes lack,
// a host-orch line that belongs to no pass. Pos is the first line it was
// seen on, Count how many times.
type EvidenceWarning struct {
	Pos   trace.Pos
	Msg   string
	Count int
}

// String returns the warning as printed: "evidence: FILE:LINE: MSG (N
// times)".
func (w EvidenceWarning) String() string {
	at := ""
	if w.Pos.File != "" || w.Pos.Line > 0 {
		at = fmt.Sprintf("%s:%d: ", w.Pos.File, w.Pos.Line)
	}
	s := "evidence: " + at + w.Msg
	if w.Count > 1 {
		s += fmt.Sprintf(" (%d times)", w.Count)
	}
	return s
}

// evidenceWarnings counts warnings by message, keeping the first position.
type evidenceWarnings struct {
	list []EvidenceWarning
	idx  map[string]int
}

func (ws *evidenceWarnings) add(pos trace.Pos, msg string) {
	if ws.idx == nil {
		ws.idx = map[string]int{}
	}
	if i, ok := ws.idx[msg]; ok {
		ws.list[i].Count++
		return
	}
	ws.idx[msg] = len(ws.list)
	ws.list = append(ws.list, EvidenceWarning{Pos: pos, Msg: msg, Count: 1})
}

// parseCount reads a counter or work value: ASCII digits that fit an
// int64. why says what is wrong with any other value.
func parseCount(v string) (n int64, why string) {
	if v == "" {
		return 0, "is empty"
	}
	neg := false
	d := v
	if d[0] == '-' {
		neg, d = true, d[1:]
	}
	if d == "" {
		return 0, "is not an integer"
	}
	for i := 0; i < len(d); i++ {
		if d[i] < '0' || d[i] > '9' {
			return 0, "is not an integer"
		}
	}
	if neg {
		if strings.Trim(d, "0") == "" {
			return 0, ""
		}
		return 0, "is negative"
	}
	for i := 0; i < len(d); i++ {
		c := int64(d[i] - '0')
		if n > (1<<63-1-c)/10 {
			return 0, "does not fit 64 bits"
		}
		n = n*10 + c
	}
	return n, ""
}

// isCounter and isWork tell the evidence keys apart.
func isCounter(k string) bool { return slices.Contains(CounterNames, k) }
func isWork(k string) bool    { return slices.Contains(WorkNames, k) }

// ParseSegmentEvidence reads the counters and work attributes of one
// segment's raw attribute text (as written: split on whitespace, a key
// up to the first '=', a later duplicate replacing an earlier one). A
// value that is no non-negative integer is left out and reported through
// bad, with the key.
func ParseSegmentEvidence(attrs string, bad func(key, value, why string)) (counters, work map[string]int64) {
	seen := map[string]bool{}
	for _, tok := range strings.Fields(attrs) {
		k, v, ok := strings.Cut(tok, "=")
		if !ok {
			continue
		}
		c, w := isCounter(k), isWork(k)
		if !c && !w {
			continue
		}
		n, why := parseCount(v)
		m := &work
		if c {
			m = &counters
		}
		if why != "" {
			if *m != nil {
				delete(*m, k) // a later bad duplicate replaces a good value
			}
			seen[k] = true
			if bad != nil {
				bad(k, v, why)
			}
			continue
		}
		if *m == nil {
			*m = map[string]int64{}
		}
		(*m)[k] = n
		seen[k] = true
	}
	return counters, work
}

// ParseOrchAttrs reads total_ns= and count= of a host-orch line's
// attributes; a value absent or no non-negative integer is reported
// through bad and ok is false.
func ParseOrchAttrs(attrs string, bad func(key, value, why string)) (op OrchOp, ok bool) {
	var total, count string
	var hasTotal, hasCount bool
	for _, tok := range strings.Fields(attrs) {
		k, v, found := strings.Cut(tok, "=")
		if !found {
			continue
		}
		switch k {
		case "total_ns":
			total, hasTotal = v, true
		case "count":
			count, hasCount = v, true
		default:
			if n, why := parseCount(v); why == "" {
				if op.Other == nil {
					op.Other = map[string]int64{}
				}
				op.Other[k] = n
			} else if op.Other != nil {
				delete(op.Other, k) // a later duplicate replaces an earlier one
			}
		}
	}
	ok = true
	for _, f := range []struct {
		key, v string
		has    bool
		dst    *int64
	}{{"total_ns", total, hasTotal, &op.TotalNs}, {"count", count, hasCount, &op.Count}} {
		if !f.has {
			if bad != nil {
				bad(f.key, "", "is missing")
			}
			ok = false
			continue
		}
		n, why := parseCount(f.v)
		if why != "" {
			if bad != nil {
				bad(f.key, f.v, why)
			}
			ok = false
			continue
		}
		*f.dst = n
	}
	return op, ok
}

// Evidence returns the evidence of each pass (in the order of passes)
// and the counted warnings: values that are no non-negative integer,
// counters a segment writes in some passes and lacks in others (the pass
// that lacks one has no total of it), host-orch lines that are no number.
// Segments from host_phase_records.jsonl carry no attributes and give no
// evidence.
func Evidence(passes []BindPass) ([]PassEvidence, []EvidenceWarning) {
	var ws evidenceWarnings
	out := make([]PassEvidence, len(passes))
	segs := make([][]evSeg, len(passes))
	for i := range passes {
		out[i] = passEvidence(&passes[i], &ws)
		segs[i] = evSegsOf(&out[i])
	}
	for i, lacks := range lackingCounters(segs, &ws) {
		for c := range CounterNames {
			if lacks&(1<<c) == 0 {
				continue
			}
			if out[i].incomplete == nil {
				out[i].incomplete = map[string]bool{}
			}
			out[i].incomplete[CounterNames[c]] = true
		}
	}
	totalsWarning(out, &ws)
	return out, ws.list
}

// totalsWarning adds one warning naming each counter some pass has no
// total of although a segment of it wrote the counter or had it cut, with
// on how many of those passes the total is known ("k of N").
func totalsWarning(evs []PassEvidence, ws *evidenceWarnings) {
	var parts []string
	var pos trace.Pos
	for _, name := range CounterNames {
		k, n := 0, 0
		for i := range evs {
			e := &evs[i]
			_, has := e.sum(name, func(s *SegmentEvidence) map[string]int64 { return s.Counters })
			if !has && !e.incomplete[name] {
				continue
			}
			n++
			if _, ok := e.Counter(name); ok {
				k++
			} else if pos == (trace.Pos{}) {
				for _, seg := range sortedSegments(e.Segments) {
					pos = e.Segments[seg].Pos
					break
				}
			}
		}
		if k < n {
			parts = append(parts, fmt.Sprintf("%s on %d of %d passes", name, k, n))
		}
	}
	if len(parts) > 0 {
		ws.add(pos, "pass totals known only for "+strings.Join(parts, ", ")+"; on the others they are missing, not 0")
	}
}

// passEvidence reads the evidence of one pass, its bad values counted in
// ws.
func passEvidence(p *BindPass, ws *evidenceWarnings) PassEvidence {
	e := PassEvidence{Segments: map[string]*SegmentEvidence{}}
	for j := range p.Segments {
		s := &p.Segments[j]
		attrs := s.Attrs
		var cut []string
		if s.Capped {
			var left string
			attrs, left, cut = cutTail(attrs)
			if msg := cutMessage(s.Name, left, cut); msg != "" {
				ws.add(s.Pos, msg)
			}
		}
		c, w := ParseSegmentEvidence(attrs, func(k, v, why string) {
			ws.add(s.Pos, fmt.Sprintf("%s %s=%q %s; left out", s.Name, k, v, why))
		})
		se := e.Segments[s.Name]
		if se == nil {
			se = &SegmentEvidence{Pos: s.Pos}
			e.Segments[s.Name] = se
		}
		se.Counters = addCounts(se.Counters, c)
		se.Work = addCounts(se.Work, w)
		se.Other = addCounts(se.Other, otherAttrs(attrs))
		for _, k := range cut {
			if e.incomplete == nil {
				e.incomplete = map[string]bool{}
			}
			e.incomplete[k] = true
		}
	}
	for _, l := range p.Orch {
		op, ok := ParseOrchAttrs(l.Attrs, func(k, v, why string) {
			ws.add(l.Pos, fmt.Sprintf("host-orch phase=%s %s=%q %s; left out", l.Phase, k, v, why))
		})
		if !ok {
			continue
		}
		op.Pos = l.Pos
		if e.Orch == nil {
			e.Orch = map[string]OrchOp{}
		}
		if _, dup := e.Orch[l.Phase]; dup {
			ws.add(l.Pos, fmt.Sprintf("host-orch phase=%s written twice in one pass; the first kept", l.Phase))
			continue
		}
		e.Orch[l.Phase] = op
	}
	return e
}

// cutTail reads the attributes of a segment whose line fills the
// runtime's 95-character buffer (Segment.Capped). The last token may be
// cut short (minflt=137 of minflt=1374, or rec_c of rec_cpu_ns=…): it is
// dropped from attrs, and left names its key when it has one. The
// counters follow the other attributes in a fixed order (CounterNames),
// so when the line carries counters, or its cut tail begins one, every
// counter after the last one read whole was cut: cut lists them. A pass
// with such a segment has no total of them (PassEvidence.Counter):
// missing, never a sum of the segments that were not cut.
func cutTail(attrs string) (rest, left string, cut []string) {
	i := strings.LastIndexAny(attrs, " \t")
	tail := attrs[i+1:]
	rest = attrs[:max(i, 0)]
	k, v, hasEq := strings.Cut(tail, "=")
	if _, why := parseCount(v); hasEq && (isCounter(k) || isWork(k) || why == "") {
		left = k // a number, maybe cut short; a label's cut is no loss
	}
	last := -1
	for _, tok := range strings.Fields(rest) {
		if key, _, ok := strings.Cut(tok, "="); ok {
			if ci := slices.Index(CounterNames, key); ci > last {
				last = ci
			}
		}
	}
	begins := false
	for _, n := range CounterNames {
		if k != "" && strings.HasPrefix(n, k) {
			begins = true
		}
	}
	if last < 0 && !begins {
		return rest, left, nil
	}
	return rest, left, slices.Clone(CounterNames[last+1:])
}

// cutMessage says what a capped segment lost (cutTail), "" when nothing.
func cutMessage(seg, left string, cut []string) string {
	var parts []string
	if left != "" && (len(cut) == 0 || left != cut[0]) {
		parts = append(parts, fmt.Sprintf("their last value (%s) may be cut and is left out", left))
	}
	if len(cut) > 0 {
		what := "the counters %s were cut, or may be, and are left out: such a pass has no total of them"
		if len(cut) == 1 {
			what = "the counter %s was cut, or may be, and is left out: such a pass has no total of it"
		}
		parts = append(parts, fmt.Sprintf(what, counterRange(cut)))
	}
	if len(parts) == 0 {
		return ""
	}
	return seg + ": attributes fill the 95-character buffer of `bind phase=` lines; " + strings.Join(parts, "; ")
}

// counterRange writes consecutive counters: "rec_cpu_ns", "cpu_ns and
// rec_cpu_ns", "minflt to rec_cpu_ns".
func counterRange(cs []string) string {
	switch len(cs) {
	case 1:
		return cs[0]
	case 2:
		return cs[0] + " and " + cs[1]
	}
	return cs[0] + " to " + cs[len(cs)-1]
}

// otherAttrs returns the attributes of a segment that are neither
// counters nor work and whose value is a non-negative integer
// (SegmentEvidence.Other), a later duplicate replacing an earlier one.
func otherAttrs(attrs string) map[string]int64 {
	var out map[string]int64
	for _, tok := range strings.Fields(attrs) {
		k, v, ok := strings.Cut(tok, "=")
		if !ok || k == "" || isCounter(k) || isWork(k) {
			continue
		}
		n, why := parseCount(v)
		if why != "" {
			delete(out, k)
			continue
		}
		if out == nil {
			out = map[string]int64{}
		}
		out[k] = n
	}
	return out
}

// evSeg is what the check of lacking counters reads of one segment of a
// pass: its name, which CounterNames it wrote (bit i for CounterNames[i])
// and its line.
type evSeg struct {
	name string
	mask uint8
	pos  trace.Pos
}

// evSegsOf returns the segments of a pass's evidence, by name.
func evSegsOf(e *PassEvidence) []evSeg {
	out := make([]evSeg, 0, len(e.Segments))
	for name, se := range e.Segments {
		var m uint8
		for c, n := range CounterNames {
			if _, ok := se.Counters[n]; ok {
				m |= 1 << c
			}
		}
		out = append(out, evSeg{name: name, mask: m, pos: se.Pos})
	}
	return out
}

// lackingCounters applies the rule that a counter a segment writes in
// some passes must be in all of them: it returns, per pass, the counters
// (bit i for CounterNames[i]) whose pass total is unknown, and counts one
// warning per segment and counter at the first pass that lacks it.
func lackingCounters(segs [][]evSeg, ws *evidenceWarnings) []uint8 {
	type segCounter struct {
		seg     string
		counter int
	}
	written := map[segCounter]int{}
	withSeg := map[string]int{}
	for _, ss := range segs {
		for _, s := range ss {
			withSeg[s.name]++
			for c := range CounterNames {
				if s.mask&(1<<c) != 0 {
					written[segCounter{s.name, c}]++
				}
			}
		}
	}
	keys := make([]segCounter, 0, len(written))
	for k, n := range written {
		if n < withSeg[k.seg] {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		if keys[i].seg != keys[j].seg {
			return keys[i].seg < keys[j].seg
		}
		return keys[i].counter < keys[j].counter
	})
	out := make([]uint8, len(segs))
	for _, k := range keys {
		name := CounterNames[k.counter]
		msg := fmt.Sprintf("%s lacks %s in %d of %d passes that have it; those passes have no %s total",
			k.seg, name, withSeg[k.seg]-written[k], withSeg[k.seg], name)
		for i, ss := range segs {
			for _, s := range ss {
				if s.name == k.seg && s.mask&(1<<k.counter) == 0 {
					out[i] |= 1 << k.counter
					ws.add(s.pos, msg)
				}
			}
		}
	}
	return out
}

// addCounts adds b into a (allocating a when needed) and returns a.
func addCounts(a, b map[string]int64) map[string]int64 {
	if len(b) == 0 {
		return a
	}
	if a == nil {
		a = make(map[string]int64, len(b))
	}
	for k, v := range b {
		a[k] += v
	}
	return a
}

// attachOrch gives each pass of lines the host-orch lines its thread wrote
// after its last segment and before the thread's next pass (the runtime
// writes them at the end of a pass, after the bind lines). It returns
// the lines no pass precedes.
func attachOrch(lines []trace.Pass, orch []trace.HostOrchPhase, sources []string) (byPass [][]trace.HostOrchPhase, orphans []trace.HostOrchPhase) {
	fileIdx := map[string]int{}
	for i, s := range sources {
		if _, ok := fileIdx[s]; !ok {
			fileIdx[s] = i
		}
	}
	less := func(a, b trace.Pos) bool {
		fa, fb := fileIdx[a.File], fileIdx[b.File]
		if fa != fb {
			return fa < fb
		}
		return a.Line < b.Line
	}
	type end struct {
		pass int
		pos  trace.Pos
	}
	byThread := map[string][]end{}
	for i := range lines {
		p := &lines[i]
		if len(p.Segments) == 0 {
			continue
		}
		last := p.Segments[0].Pos
		for _, s := range p.Segments[1:] {
			if less(last, s.Pos) {
				last = s.Pos
			}
		}
		byThread[p.Thread] = append(byThread[p.Thread], end{i, last})
	}
	for _, ends := range byThread {
		sort.SliceStable(ends, func(i, j int) bool { return less(ends[i].pos, ends[j].pos) })
	}
	byPass = make([][]trace.HostOrchPhase, len(lines))
	for _, l := range orch {
		ends := byThread[l.Thread]
		k := sort.Search(len(ends), func(i int) bool { return !less(ends[i].pos, l.Pos) }) - 1
		if k < 0 {
			orphans = append(orphans, l)
			continue
		}
		byPass[ends[k].pass] = append(byPass[ends[k].pass], l)
	}
	return byPass, orphans
}

// CollectEvidence returns the bind passes of a log (CollectBindPasses,
// with each pass of lines given its host-orch lines) and their evidence,
// in the same order, with the counted warnings of Evidence and one for
// host-orch lines that follow no pass of their thread.
func CollectEvidence(l *trace.Log, records []trace.RecordPass) ([]BindPass, []PassEvidence, []EvidenceWarning) {
	passes, orphans := collectBindPasses(l, records)
	ev, ws := Evidence(passes)
	if len(orphans) > 0 {
		w := EvidenceWarning{Pos: orphans[0].Pos, Msg: "host-orch line follows no bind pass of its thread; left out", Count: len(orphans)}
		ws = append(ws, w)
	}
	return passes, ev, ws
}

// CPUPassMetrics returns the CPU-time twin of ComputePassMetrics: each
// stage as the bind thread's CPU time (cpu_ns) of the segments that feed
// it, summed as the stage sums their durations. It is defined only for a
// flat pass, where no segment's interval contains another's (E2 lines, E3
// spans): a nested upload's CPU time cannot be told apart from its
// container's; ok is false for a nested pass. A stage fed by a segment
// that lacks cpu_ns is not recorded in the twin.
func CPUPassMetrics(p BindPass, e PassEvidence) (m PassMetrics, ok bool) {
	if len(p.Segments) == 0 {
		return m, false
	}
	for i := range p.Segments {
		a := &p.Segments[i]
		for j := range p.Segments {
			b := &p.Segments[j]
			if i != j && a.Ts <= b.Ts && b.End() <= a.End() {
				return m, false
			}
		}
	}
	// One segment per name, its CPU time as duration, laid end to end so
	// that none contains another: ComputePassMetrics then sums exactly
	// the segments each stage sums. A segment without cpu_ns is given 0
	// and then a large value: a stage that moves depends on it.
	twin := func(missing int64) PassMetrics {
		var t BindPass
		var ts int64
		for _, name := range segmentNamesOf(p) {
			v, has := e.SegmentCounter(name, "cpu_ns")
			if !has {
				v = missing
			}
			t.Segments = append(t.Segments, Segment{Name: name, Ts: ts, Dur: v})
			ts = satAdd(ts, satAdd(v, 1))
		}
		return ComputePassMetrics(t)
	}
	m = twin(0)
	probe := twin(1 << 40)
	any := false
	for s := range m.Value {
		if m.Value[s] != probe.Value[s] {
			m.Value[s], m.Recorded[s] = 0, false
		}
		any = any || m.Recorded[s]
	}
	return m, any
}

// segmentNamesOf returns the canonical names of a pass's segments, each
// once, in the runtime's enum order.
func segmentNamesOf(p BindPass) []string {
	set := map[string]bool{}
	for _, s := range p.Segments {
		set[s.Name] = true
	}
	return sortedSegments(set)
}
