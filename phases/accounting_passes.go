package phases

import (
	"sort"
	"strings"

	"github.com/hbgkit/hbgkit/trace"
)

// Canonical bind segment names (DESIGN §4). Every log generation is mapped
// onto these before any accounting: E1/E2 `bind phase=` lines, E3
// `chip.run.bind.<segment>` spans, PR-1870 `simpler_run.bind.*` spans and
// host_phase_records.jsonl records.
const (
	SegArgs          = "args"
	SegArenaBuild    = "arena_build"
	SegStaticArena   = "static_arena"
	SegGmHeap        = "gm_heap"
	SegSharedMem     = "shared_mem"
	SegRuntimeInit   = "runtime_init"
	SegPrebuilt      = "prebuilt"
	SegHostOrch      = "host_orch"
	SegHostOrchSetup = "host_orch.setup"
	SegHostOrchEntry = "host_orch.entry"
	SegGraphPack     = "graph_pack"
	SegGraphUpload   = "graph_upload"
	SegRelocate      = "relocate"
	SegSmH2d         = "sm_h2d"
	SegArenaH2d      = "arena_h2d"
	SegH2dGraph      = "h2d_graph"
	SegH2dImage      = "h2d_image"
	SegHostViewClose = "host_view_close"
)

// acctSegAliases maps every accepted spelling of a segment to its canonical
// name. PR-1870 wrote h2d_sm and h2d_arena; everything else is spelled the
// same in every generation.
var acctSegAliases = map[string]string{
	SegArgs:          SegArgs,
	SegArenaBuild:    SegArenaBuild,
	SegStaticArena:   SegStaticArena,
	SegGmHeap:        SegGmHeap,
	SegSharedMem:     SegSharedMem,
	SegRuntimeInit:   SegRuntimeInit,
	SegPrebuilt:      SegPrebuilt,
	SegHostOrch:      SegHostOrch,
	SegHostOrchSetup: SegHostOrchSetup,
	SegHostOrchEntry: SegHostOrchEntry,
	SegGraphPack:     SegGraphPack,
	SegGraphUpload:   SegGraphUpload,
	SegRelocate:      SegRelocate,
	SegSmH2d:         SegSmH2d,
	"h2d_sm":         SegSmH2d,
	SegArenaH2d:      SegArenaH2d,
	"h2d_arena":      SegArenaH2d,
	SegH2dGraph:      SegH2dGraph,
	SegH2dImage:      SegH2dImage,
	SegHostViewClose: SegHostViewClose,
}

// CanonicalSegment returns the canonical name of a bind segment spelled as
// any generation writes it (h2d_sm → sm_h2d, h2d_arena → arena_h2d), and
// false for a name that is no bind segment (orch_h2d_pipe, compatibility,
// an orchestrator operation such as host_orch.record_node).
func CanonicalSegment(name string) (string, bool) {
	c, ok := acctSegAliases[name]
	return c, ok
}

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
	if s.IsDevice() {
		return "", false
	}
	for _, p := range acctBindPrefixes {
		if rest, ok := strings.CutPrefix(s.Name, p); ok {
			return CanonicalSegment(rest)
		}
	}
	return "", false
}

// A Segment is one interval of a bind pass, under its canonical name.
type Segment struct {
	Name  string // canonical (see CanonicalSegment)
	Ts    int64  // ns, host monotonic
	Dur   int64  // ns
	Attrs string // raw attributes as written, "" when the source has none
}

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
		out[j].Segments = append(out[j].Segments, Segment{Name: name, Ts: s.Ts, Dur: s.Dur, Attrs: s.Attrs})
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
			name, ok := CanonicalSegment(l.Phase)
			if !ok {
				continue
			}
			bp.Segments = append(bp.Segments, Segment{Name: name, Ts: l.StartNs, Dur: l.DurNs, Attrs: l.Attrs})
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
			name, ok := CanonicalSegment(phase)
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
// `bind phase=` lines (E1/E2, grouped and attached as DESIGN §3 says),
// records (nil when there is no artifact).
func CollectBindPasses(l *trace.Log, records []trace.RecordPass) []BindPass {
	lines := trace.GroupPasses(l.BindPhases)
	trace.AttachPasses(lines, l.Spans)
	return MergeBindPasses(BindPassesFromSpans(l.Spans), BindPassesFromLines(lines), BindPassesFromRecords(records))
}

// MergeBindPasses joins passes from several sources into one pass per
// (pid, inv). Sources are given in order of precedence (spans, then
// `bind phase=` lines, then records is the natural order): a segment name
// that an earlier source already gave for a key is not taken from a later
// one, so a bind written both as lines and as records counts once. Passes
// without a pid (Known false) are kept as they are, after the known ones.
// Known passes come sorted by (pid, inv).
func MergeBindPasses(sources ...[]BindPass) []BindPass {
	idx := make(map[acctKey]int)
	var known, unknown []BindPass
	for _, src := range sources {
		// The names each key had before this source, so that a source may
		// repeat a name within itself (per-layer uploads, per-event records).
		before := make(map[acctKey]map[string]bool)
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
			}
			had, ok := before[k]
			if !ok {
				had = make(map[string]bool)
				for _, s := range known[j].Segments {
					had[s.Name] = true
				}
				before[k] = had
			}
			for _, s := range p.Segments {
				if !had[s.Name] {
					known[j].Segments = append(known[j].Segments, s)
				}
			}
		}
	}
	acctSortPasses(known)
	return append(known, unknown...)
}

// BindPassesForRows returns one pass per row of a rounds table, in row
// order: the pass of the row's (pid, inv), or an empty pass with that key
// when the log has no bind segments for it. The result is what
// ComputeAccounting takes.
func BindPassesForRows(passes []BindPass, rows []RoundRow) []BindPass {
	idx := make(map[acctKey]int, len(passes))
	for i, p := range passes {
		if p.Known {
			if _, dup := idx[acctKey{p.Pid, p.Inv}]; !dup {
				idx[acctKey{p.Pid, p.Inv}] = i
			}
		}
	}
	out := make([]BindPass, len(rows))
	for r, row := range rows {
		if i, ok := idx[acctKey{row.Pid, row.Inv}]; ok {
			out[r] = passes[i]
			continue
		}
		out[r] = BindPass{Pid: row.Pid, Inv: row.Inv, Known: true}
	}
	return out
}

func acctSortPasses(ps []BindPass) {
	sort.SliceStable(ps, func(i, j int) bool {
		if ps[i].Pid != ps[j].Pid {
			return ps[i].Pid < ps[j].Pid
		}
		return ps[i].Inv < ps[j].Inv
	})
}
