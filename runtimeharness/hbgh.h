/*
 * hbgh.h - the C model of one host_build_graph (HBG) bind, as seen from Go.
 *
 * One entry point, hbgh_run, runs cfg->rounds binds in the calling process
 * and writes every log record with one write(2) to cfg->log_fd, like the
 * runtime's host logger. Only the device is modelled; every host step is
 * real work at realistic sizes. See docs/harness.md.
 */
#ifndef HBGH_H
#define HBGH_H

#include <stdint.h>

/* Workload presets (HARNESS.md). */
enum {
    HBGH_WL_DSV4_PAIR = 0,
    HBGH_WL_QWEN3_14B_DECODE = 1,
    HBGH_WL_DSV4_BLOCKS7 = 2,
    HBGH_WL_COUNT = 3
};

/* SM mirror policy. */
enum { HBGH_MIRROR_PER_BIND = 0, HBGH_MIRROR_RETAINED = 1 };

/* Graph POD upload policy (docs/harness.md, "Graph PODs"). */
enum {
    HBGH_POD_CURRENT = 0,
    HBGH_POD_DEFERRED_PAGEABLE = 1,
    HBGH_POD_EAGER_PINNED = 2
};

/* Output generation (DESIGN §3). */
enum { HBGH_EPOCH_E1 = 0, HBGH_EPOCH_E2 = 1, HBGH_EPOCH_E3 = 2, HBGH_EPOCH_PR1870 = 3 };

/* Device backend: the model, or ACL loaded with dlopen. */
enum { HBGH_DEV_MODEL = 0, HBGH_DEV_ASCEND = 1 };

/* Bind segment kinds 0..11 and orchestrator kinds 12..16 (HostPhaseKind). */
#define HBGH_NSEG 12
#define HBGH_NORCH 5
#define HBGH_NKIND (HBGH_NSEG + HBGH_NORCH)

/* Thread creations remembered per bind (more are counted, not kept). */
#define HBGH_MAX_CREATES 16

typedef struct hbgh_config {
    int32_t workload;
    int32_t mirror;
    int32_t prewarm;   /* recorder threads created when the model starts */
    int32_t graph_pod;
    int32_t epoch;
    int32_t device;
    int32_t ranks;
    int32_t rounds;    /* binds to run */
    int64_t delay_ns;  /* busy delay injected into host_orch */
    int64_t args_bytes;
    int64_t dev_call_ns;         /* modelled cost of one driver call */
    int64_t dev_pin_ns;          /* modelled cost of pinning one chunk */
    int64_t dev_dma_bytes_per_s; /* modelled DMA rate */
    int64_t dev_bounce_bytes;    /* driver bounce-buffer chunk (pageable) */
    int32_t log_fd;
    int32_t keep_stats;          /* fill out->binds, rounds x ranks entries */
    const char *stamp;           /* first log line, without newline; or NULL */
    const char *records_path;    /* host_phase_records.jsonl, or NULL */
    const char *ascend_lib;      /* libascendcl.so path for HBGH_DEV_ASCEND */
} hbgh_config;

/* Measured counters of one bind segment (deltas over the segment). */
typedef struct hbgh_seg_stats {
    int64_t start_ns;
    int64_t dur_ns;
    int64_t minflt;   /* getrusage(RUSAGE_SELF) */
    int64_t tminflt;  /* getrusage(RUSAGE_THREAD), bind thread */
    int64_t nivcsw;   /* getrusage(RUSAGE_THREAD), bind thread */
    int64_t nvcsw;    /* getrusage(RUSAGE_THREAD), bind thread */
    int64_t cpu_ns;   /* CLOCK_THREAD_CPUTIME_ID, bind thread */
    int64_t rec_cpu_ns; /* CPU time of all recorder threads */
    int64_t heap_delta; /* mallinfo2 uordblks + hblkhd change */
    int32_t recorded;
    int32_t dev_model;  /* contains modelled device time */
} hbgh_seg_stats;

/* Aggregate of one orchestrator kind in one bind. */
typedef struct hbgh_orch_stats {
    int64_t count;
    int64_t total_ns;
    uint64_t detail_sum;
    int64_t dropped;
} hbgh_orch_stats;

typedef struct hbgh_bind_stats {
    uint64_t inv;
    int64_t bind_ts;
    int64_t bind_dur;
    hbgh_seg_stats seg[HBGH_NSEG];
    hbgh_orch_stats orch[HBGH_NORCH];
    int64_t hblkhd_before; /* mallinfo2().hblkhd just before the bind */
    int64_t hblkhd_after;  /* ... and just after it */
    int64_t rss_after;     /* resident bytes after the bind (/proc/self/statm) */
    int64_t tasks;
    int64_t defs;
    int64_t submissions;
    int64_t upload_bytes;  /* graph_upload bytes */
    int64_t graph_h2d_bytes;  /* Graph POD bytes that reached the device, any variant */
    int64_t graph_h2d_copies; /* device copies that carried them */
    int64_t graph_h2d_ns;     /* wall time of those copies */
    int32_t rank;             /* 0, or 1 for the second of ranks=2 */
    int32_t pid;              /* the rank's process */
    int64_t records_dropped;
    int32_t threads_created; /* recorder threads created during this bind */
    int32_t creates_kept;
    int64_t create_start_ns[HBGH_MAX_CREATES];
    int64_t create_end_ns[HBGH_MAX_CREATES];
} hbgh_bind_stats;

typedef struct hbgh_result {
    hbgh_bind_stats *binds; /* caller's array of rounds x ranks entries (rank-major), or NULL */
    int32_t binds_done;
    int32_t threads_created;  /* every thread the model created */
    int32_t threads_left;     /* of those, still in /proc/self/task at return */
    int32_t recorders_seen;   /* named recorder threads seen after prewarm */
    int32_t pid;
    int32_t bind_tid;
    int32_t rank_pids[2];     /* ranks=2: the two rank processes */
    int32_t dev_error;        /* ascend: the failing ACL call's aclError, else 0 */
    int32_t aborted;          /* ranks=2: stopped because the other rank failed */
    int32_t log_errno; /* errno of a failed log write, else 0 */
    char error[256];
} hbgh_result;

/*
 * hbgh_run runs cfg->rounds binds and returns 0, or -1 with out->error set.
 * Everything it creates (threads, buffers) is released before it returns.
 */
int hbgh_run(const hbgh_config *cfg, hbgh_result *out);

#endif
