package runtimeharness

// OrchNames are the orchestrator kinds 12..16, the order of `host-orch
// phase=` lines.
var OrchNames = [5]string{
	"submit_task", "alloc_tensors", "record_node", "graph_submit", "build_definition",
}

// SegmentStats are the measured counters of one bind segment, deltas over
// the segment (summed when a kind is recorded more than once in a pass).
type SegmentStats struct {
	Name      string `json:"name"`
	Recorded  bool   `json:"recorded"`
	StartNS   int64  `json:"start_ns"` // CLOCK_MONOTONIC
	DurNS     int64  `json:"dur_ns"`
	MinFlt    int64  `json:"minflt"`     // getrusage(RUSAGE_SELF)
	TMinFlt   int64  `json:"tminflt"`    // getrusage(RUSAGE_THREAD), bind thread
	NIvCsw    int64  `json:"nivcsw"`     // getrusage(RUSAGE_THREAD), bind thread
	NVCsw     int64  `json:"nvcsw"`      // getrusage(RUSAGE_THREAD), bind thread
	CPUNS     int64  `json:"cpu_ns"`     // CLOCK_THREAD_CPUTIME_ID, bind thread
	RecCPUNS  int64  `json:"rec_cpu_ns"` // CPU time of the recorder threads
	HeapDelta int64  `json:"heap_delta"` // mallinfo2 uordblks+hblkhd change
	DevModel  bool   `json:"dev_model"`  // contains modelled device time
}

// OrchStats aggregate one orchestrator kind over a bind, as its
// `host-orch phase=` line prints them.
type OrchStats struct {
	Name      string `json:"name"`
	Count     int64  `json:"count"`
	TotalNS   int64  `json:"total_ns"`
	DetailSum uint64 `json:"detail_sum"`
	Dropped   int64  `json:"dropped"`
}

// Interval is a [Start, End) span of CLOCK_MONOTONIC nanoseconds.
type Interval struct {
	Start int64 `json:"start_ns"`
	End   int64 `json:"end_ns"`
}

// BindStats are the counters of one bind.
type BindStats struct {
	Inv            uint64         `json:"inv"`
	StartNS        int64          `json:"start_ns"`
	DurNS          int64          `json:"dur_ns"`
	Segments       []SegmentStats `json:"segments"` // trace.BindSegments order
	Orch           []OrchStats    `json:"orch"`     // OrchNames order
	HblkhdBefore   int64          `json:"hblkhd_before"`
	HblkhdAfter    int64          `json:"hblkhd_after"`
	RSSAfter       int64          `json:"rss_after"`
	Tasks          int64          `json:"tasks"`
	Defs           int64          `json:"defs"`
	Submissions    int64          `json:"submissions"`
	UploadBytes    int64          `json:"upload_bytes"`
	RecordsDropped int64          `json:"records_dropped"`
	ThreadsCreated int            `json:"threads_created"` // recorder threads created mid-burst
	Creates        []Interval     `json:"creates,omitempty"`
	// Graph POD bytes that reached the device in this bind, wherever the
	// variant put the copies (graph_upload, per-layer h2d_graph inside
	// host_orch, or packed into arena_h2d), the copies and their wall time.
	GraphH2DBytes  int64 `json:"graph_h2d_bytes"`
	GraphH2DCopies int64 `json:"graph_h2d_copies"`
	GraphH2DNS     int64 `json:"graph_h2d_ns"`
	Rank           int   `json:"rank"` // 0, or 1 for the second rank of ranks=2
	Pid            int   `json:"pid"`  // the process that ran the bind
}

// Segment returns the stats of the named segment, or false.
func (b BindStats) Segment(name string) (SegmentStats, bool) {
	for _, s := range b.Segments {
		if s.Name == name {
			return s, s.Recorded
		}
	}
	return SegmentStats{}, false
}

// ModelResult is what one run of the model reports besides its log.
type ModelResult struct {
	Stamp          string      `json:"stamp"`
	Binds          int         `json:"binds"`
	Pid            int         `json:"pid"`
	BindTid        int         `json:"bind_tid"`
	ThreadsCreated int         `json:"threads_created"`     // every thread the model created
	ThreadsLeft    int         `json:"threads_left"`        // of those, still alive at return
	RecordersSeen  int         `json:"recorders_seen"`      // named recorder threads after prewarm
	Stats          []BindStats `json:"stats,omitempty"`     // with ModelOptions.BindStats; rank-major
	RankPids       []int       `json:"rank_pids,omitempty"` // ranks=2: the forked rank processes
}

// A DeviceError is a failed call of a real device backend (ascend): the
// message names the call, Code is its aclError.
type DeviceError struct {
	Msg  string
	Code int
}

func (e *DeviceError) Error() string { return e.Msg }
