package trace

// Canonical bind segment names (docs/accounting.md "1. From any log to
// passes of canonical segments"): the vocabulary every package
// of hbgkit uses for the segments of a bind. Every log generation is mapped
// onto these before any accounting: E1/E2 `bind phase=` lines, E3
// `chip.run.bind.<segment>` spans, PR-1870 `simpler_run.bind.*` spans and
// host_phase_records.jsonl records (CanonicalSegment).
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

// bindSegments are the bind segment kinds in HostPhaseKind enum order, the
// order the runtime writes one pass's `bind phase=` lines in
// (docs/formats.md "bind phase= lines, E1 and E2", Passes).
var bindSegments = [...]string{
	SegArgs, SegArenaBuild, SegStaticArena, SegGmHeap, SegSharedMem, SegRuntimeInit,
	SegHostOrch, SegGraphUpload, SegRelocate, SegSmH2d, SegArenaH2d, SegHostViewClose,
}

// BindSegments returns the bind segment kinds in HostPhaseKind enum order,
// the order the runtime writes one pass's `bind phase=` lines in
// (docs/formats.md "bind phase= lines, E1 and E2", Passes). The slice is
// the caller's.
func BindSegments() []string { return append([]string(nil), bindSegments[:]...) }

// RuntimeSegments returns the segments the runtime writes under their own
// names as `bind phase=` lines or chip.run.bind.<segment> spans, in any
// generation from E1 to E3: the enum kinds of BindSegments, then
// graph_pack, which replaces graph_upload in upstream 04c88e9. The slice is
// the caller's.
func RuntimeSegments() []string { return append(BindSegments(), SegGraphPack) }

// SegmentIndex returns the enum index of a bind segment name, or -1 for a
// name outside the enum.
func SegmentIndex(phase string) int {
	for i, s := range bindSegments {
		if s == phase {
			return i
		}
	}
	return -1
}

// segmentAliases maps every accepted spelling of a segment to its canonical
// name. PR-1870 wrote h2d_sm and h2d_arena; everything else is spelled the
// same in every generation.
var segmentAliases = map[string]string{
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
	c, ok := segmentAliases[name]
	return c, ok
}

// IsH2D reports whether a canonical segment is a host-to-device copy, an
// H2D copy of docs/accounting.md "2. Per-pass stages": graph_upload,
// h2d_graph, sm_h2d, arena_h2d, h2d_image.
func IsH2D(canonical string) bool {
	switch canonical {
	case SegGraphUpload, SegH2dGraph, SegSmH2d, SegArenaH2d, SegH2dImage:
		return true
	}
	return false
}
