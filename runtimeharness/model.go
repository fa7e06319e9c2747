//go:build cgo

package runtimeharness

/*
#cgo CFLAGS: -O2 -std=gnu11 -Wall -Wextra
#cgo LDFLAGS: -lpthread -ldl
#include <stdlib.h>
#include <features.h>
#ifdef __GLIBC__
#include <gnu/libc-version.h>
#endif
#include "hbgh.h"

static const char *hbgh_libc_version(void)
{
#ifdef __GLIBC__
    return gnu_get_libc_version();
#else
    return "unknown";
#endif
}
*/
import "C"

import (
	"errors"
	"sync"
	"syscall"
	"unsafe"

	"github.com/hbgkit/hbgkit/trace"
)

// cgoAvailable reports whether this build has the C model.
const cgoAvailable = true

func glibcVersion() string { return C.GoString(C.hbgh_libc_version()) }

// modelMu serialises runs: the model counts its threads by name in
// /proc/self/task, which two concurrent runs would confuse.
var modelMu sync.Mutex

var (
	workloadIDs = map[Workload]C.int32_t{
		WorkloadDSV4Pair: C.HBGH_WL_DSV4_PAIR, WorkloadQwen3Decode: C.HBGH_WL_QWEN3_14B_DECODE,
		WorkloadDSV4Blocks7: C.HBGH_WL_DSV4_BLOCKS7,
	}
	mirrorIDs = map[Mirror]C.int32_t{
		MirrorPerBind: C.HBGH_MIRROR_PER_BIND, MirrorRetained: C.HBGH_MIRROR_RETAINED,
	}
	podIDs = map[GraphPod]C.int32_t{
		GraphPodCurrent: C.HBGH_POD_CURRENT, GraphPodDeferredPageable: C.HBGH_POD_DEFERRED_PAGEABLE,
		GraphPodEagerPinned: C.HBGH_POD_EAGER_PINNED,
	}
	epochIDs = map[Epoch]C.int32_t{
		EpochE1: C.HBGH_EPOCH_E1, EpochE2: C.HBGH_EPOCH_E2, EpochE3: C.HBGH_EPOCH_E3,
		EpochPR1870: C.HBGH_EPOCH_PR1870,
	}
	deviceIDs = map[string]C.int32_t{
		"model": C.HBGH_DEV_MODEL, "ascend": C.HBGH_DEV_ASCEND,
	}
)

// runModel is the one call into the C model: rounds binds of cfg, the log
// written to fd, records appended to recordsPath when it is not empty.
func runModel(cfg Config, rounds int, fd uintptr, stamp, recordsPath string, keepStats bool) (*ModelResult, error) {
	c := C.hbgh_config{
		workload:            workloadIDs[cfg.Workload],
		mirror:              mirrorIDs[cfg.Mirror],
		prewarm:             C.int32_t(cfg.Prewarm),
		graph_pod:           podIDs[cfg.GraphPod],
		epoch:               epochIDs[cfg.Epoch],
		device:              deviceIDs[cfg.Device.Kind],
		ranks:               C.int32_t(cfg.Ranks),
		rounds:              C.int32_t(rounds),
		delay_ns:            C.int64_t(cfg.DelayUS * 1000),
		args_bytes:          C.int64_t(cfg.ArgsBytes),
		dev_call_ns:         C.int64_t(cfg.Device.CallNS),
		dev_pin_ns:          C.int64_t(cfg.Device.PinNS),
		dev_dma_bytes_per_s: C.int64_t(cfg.Device.DMABytesPerSec),
		dev_bounce_bytes:    C.int64_t(cfg.Device.BounceBytes),
		log_fd:              C.int32_t(fd),
	}
	cstamp := C.CString("[stamp] " + stamp)
	defer C.free(unsafe.Pointer(cstamp))
	c.stamp = cstamp
	if cfg.Device.Kind == "ascend" {
		clib := C.CString(ascendLibrary())
		defer C.free(unsafe.Pointer(clib))
		c.ascend_lib = clib
	}
	if recordsPath != "" {
		cpath := C.CString(recordsPath)
		defer C.free(unsafe.Pointer(cpath))
		c.records_path = cpath
	}
	var out C.hbgh_result
	nstats := rounds * cfg.Ranks // rank-major: rank 0's binds, then rank 1's
	if keepStats {
		c.keep_stats = 1
		out.binds = (*C.hbgh_bind_stats)(C.calloc(C.size_t(nstats), C.size_t(unsafe.Sizeof(C.hbgh_bind_stats{}))))
		if out.binds == nil {
			return nil, errors.New("allocating bind statistics failed")
		}
		defer C.free(unsafe.Pointer(out.binds))
	}

	modelMu.Lock()
	rc := C.hbgh_run(&c, &out)
	modelMu.Unlock()

	res := &ModelResult{
		Stamp:          stamp,
		Binds:          int(out.binds_done),
		Pid:            int(out.pid),
		BindTid:        int(out.bind_tid),
		ThreadsCreated: int(out.threads_created),
		ThreadsLeft:    int(out.threads_left),
		RecordersSeen:  int(out.recorders_seen),
	}
	if cfg.Ranks > 1 {
		res.RankPids = []int{int(out.rank_pids[0]), int(out.rank_pids[1])}
	}
	if keepStats {
		for i, b := range unsafe.Slice(out.binds, nstats) {
			// Each rank fills its own rounds entries; a rank that stopped
			// early leaves the rest zero (inv 0).
			if cfg.Ranks > 1 && b.inv == 0 || cfg.Ranks == 1 && i >= int(out.binds_done) {
				continue
			}
			res.Stats = append(res.Stats, bindStats(&b))
		}
	}
	if rc != 0 {
		if out.dev_error != 0 {
			return res, &DeviceError{Msg: C.GoString(&out.error[0]), Code: int(out.dev_error)}
		}
		if out.log_errno != 0 {
			// Keep the errno so callers can tell a closed pipe (EPIPE).
			return res, &logWriteError{msg: C.GoString(&out.error[0]), errno: syscall.Errno(out.log_errno)}
		}
		return res, errors.New(C.GoString(&out.error[0]))
	}
	return res, nil
}

// logWriteError is the model's failure to write its log; it unwraps to the
// errno, so errors.Is(err, syscall.EPIPE) tells a reader that went away.
type logWriteError struct {
	msg   string
	errno syscall.Errno
}

func (e *logWriteError) Error() string { return e.msg }
func (e *logWriteError) Unwrap() error { return e.errno }

func bindStats(b *C.hbgh_bind_stats) BindStats {
	s := BindStats{
		Inv:            uint64(b.inv),
		StartNS:        int64(b.bind_ts),
		DurNS:          int64(b.bind_dur),
		HblkhdBefore:   int64(b.hblkhd_before),
		HblkhdAfter:    int64(b.hblkhd_after),
		RSSAfter:       int64(b.rss_after),
		Tasks:          int64(b.tasks),
		Defs:           int64(b.defs),
		Submissions:    int64(b.submissions),
		UploadBytes:    int64(b.upload_bytes),
		RecordsDropped: int64(b.records_dropped),
		ThreadsCreated: int(b.threads_created),
		GraphH2DBytes:  int64(b.graph_h2d_bytes),
		GraphH2DCopies: int64(b.graph_h2d_copies),
		GraphH2DNS:     int64(b.graph_h2d_ns),
		Rank:           int(b.rank),
		Pid:            int(b.pid),
	}
	for i, name := range trace.BindSegments() {
		g := &b.seg[i]
		s.Segments = append(s.Segments, SegmentStats{
			Name: name, Recorded: g.recorded != 0, StartNS: int64(g.start_ns),
			DurNS: int64(g.dur_ns), MinFlt: int64(g.minflt), TMinFlt: int64(g.tminflt),
			NIvCsw: int64(g.nivcsw), NVCsw: int64(g.nvcsw), CPUNS: int64(g.cpu_ns),
			RecCPUNS: int64(g.rec_cpu_ns), HeapDelta: int64(g.heap_delta),
			DevModel: g.dev_model != 0,
		})
	}
	for i, name := range OrchNames {
		o := &b.orch[i]
		s.Orch = append(s.Orch, OrchStats{Name: name, Count: int64(o.count),
			TotalNS: int64(o.total_ns), DetailSum: uint64(o.detail_sum), Dropped: int64(o.dropped)})
	}
	for i := 0; i < int(b.creates_kept); i++ {
		s.Creates = append(s.Creates, Interval{Start: int64(b.create_start_ns[i]), End: int64(b.create_end_ns[i])})
	}
	return s
}
