package trace

// An Anchor is a [CLOCK_ANCHOR] record (docs/formats.md): it maps the
// monotonic clock of one process to wall time, wall(t) = WallNs + t − MonoNs.
type Anchor struct {
	Pid    int64
	MonoNs int64
	WallNs int64
	Pos    Pos
}

// A BindPhase is one `bind phase=` line (docs/formats.md): one segment of one
// bind pass in E1/E2 logs, which carry no pid and no inv.
type BindPhase struct {
	Phase   string // segment name (word characters)
	StartNs int64
	DurNs   int64
	Attrs   string // the rest of the line after dur_ns=, whitespace stripped
	// Thread is the hex digits of the [T0x…] of the envelope this line was
	// written with ("" when the line has none).
	Thread string
	// Enveloped reports whether the line also matches strace_timing's
	// stricter pattern (complete envelope with level TIMING, func, `:`, a
	// bracketed [file:line] token). hbg_bind_phases needs no envelope;
	// the swimlane recovers only enveloped lines.
	Enveloped bool
	// Spaced reports whether some field is separated from the one before
	// by other whitespace than one space (a tab, two spaces). strace_timing
	// reads such a line; hbg_bind_phases' pattern does not match it.
	Spaced bool
	Pos    Pos
}

// End returns StartNs + DurNs.
func (b *BindPhase) End() int64 { return b.StartNs + b.DurNs }

// A HostOrchPhase is one `host-orch phase=` line: an orchestrator cost share
// (total, count), not an interval.
type HostOrchPhase struct {
	Phase  string
	Attrs  string // everything after the phase name, stripped (total_ns=… count=… …)
	Thread string
	Pos    Pos
}

// A Stamp is a `[stamp] ` line: the command and commit behind a log.
type Stamp struct {
	Text string // everything after "[stamp] ", without the line terminator
	Pos  Pos
}

// An Autoload is a torch_backend_autoload record (docs/formats.md): the
// backend-autoload state of a run, which newer bind_phases tools echo so
// that two logs are compared only under the same state.
type Autoload struct {
	// Text is the record from `torch_backend_autoload` through its
	// torch_npu_loaded= value.
	Text string
	Pos  Pos
}

// Drops is a [HOSTLOG_DROPS] summary (docs/formats.md "[HOSTLOG_DROPS]").
type Drops struct {
	Pid            int64
	New            int64
	Total          int64
	QueueFull      int64
	ClaimExhausted int64
	OutputFailed   int64
	NotAdmitted    int64
	Pos            Pos
}
