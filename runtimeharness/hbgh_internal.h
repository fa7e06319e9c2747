/*
 * hbgh_internal.h - shared declarations of the C model's translation units.
 * Nothing here is visible to Go.
 */
#ifndef HBGH_INTERNAL_H
#define HBGH_INTERNAL_H

#include "hbgh.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* ---- model constants (documented in docs/harness.md) ---- */

#define HBGH_TASK_WINDOW 16384u
#define HBGH_SLOT_BYTES 5033u           /* SM mirror bytes per task slot */
#define HBGH_SLOT_LIVE 4969u            /* live bytes of a slot in the SM image */
#define HBGH_SM_HEADER 256u
#define HBGH_MIRROR_BYTES \
    ((uint64_t)HBGH_SM_HEADER + (uint64_t)HBGH_TASK_WINDOW * HBGH_SLOT_BYTES)
#define HBGH_HOST_ARENA_BYTES 11515648u
#define HBGH_DEVICE_ARENA_BYTES 2242048u
#define HBGH_STATIC_ARENA_BYTES 2242048u
#define HBGH_GM_HEAP_BYTES 2147483648ull
#define HBGH_TMAP_CAP 32768u            /* tensormap buckets (16 B each) */
#define HBGH_POOL_BUFS 24
#define HBGH_POOL_RECS 512
#define HBGH_SUB_HEADER 64u             /* submission block header */
#define HBGH_SUB_RECORD 128u            /* one Graph submission */
#define HBGH_DEF_HEADER 128u            /* Definition image header */
#define HBGH_NODE_DESC 64u              /* node descriptor in the image */
#define HBGH_NODE_ARGS 832u             /* kernel argument blob per node */
#define HBGH_EDGE_BYTES 8u
#define HBGH_MAX_DEFS 8
#define HBGH_MAX_PREWARM 64
#define HBGH_MAX_RECORDERS (HBGH_MAX_PREWARM + HBGH_MAX_DEFS)
/* Each recorder's recording arena (docs/harness.md "Recorder threads"): a
 * prewarmed recorder touches it when the model starts, a created one
 * during its first recording. */
#define HBGH_REC_ARENA_BYTES (1024u * 1024u)
#define HBGH_PAGE_BYTES 4096u
#define HBGH_ATTR_CAP 96                /* runtime's attribute buffer */

/* Host arena layout (offsets into the 11.5 MB arena). */
#define HBGH_ARENA_HEADER 4096u
#define HBGH_TMAP_OFF HBGH_ARENA_HEADER
#define HBGH_TMAP_BYTES (HBGH_TMAP_CAP * 16u)
#define HBGH_GM_META_OFF (HBGH_TMAP_OFF + HBGH_TMAP_BYTES)
#define HBGH_GM_META_BYTES 4096u
#define HBGH_RT_OFF (HBGH_GM_META_OFF + HBGH_GM_META_BYTES)
#define HBGH_RT_BYTES 65536u
#define HBGH_STATIC_OFF (HBGH_RT_OFF + HBGH_RT_BYTES)
#define HBGH_DESC_OFF (HBGH_STATIC_OFF + HBGH_STATIC_ARENA_BYTES)
#define HBGH_DESC_BYTES 128u

/* The task id written in SM mirror slot `slot`. */
#define HBGH_TASK_ID(slot) ((1ull << 32) | (uint64_t)(slot))

/* HostPhaseKind */
enum {
    HBGH_K_ARGS = 0,
    HBGH_K_ARENA_BUILD = 1,
    HBGH_K_STATIC_ARENA = 2,
    HBGH_K_GM_HEAP = 3,
    HBGH_K_SHARED_MEM = 4,
    HBGH_K_RUNTIME_INIT = 5,
    HBGH_K_HOST_ORCH = 6,
    HBGH_K_GRAPH_UPLOAD = 7,
    HBGH_K_RELOCATE = 8,
    HBGH_K_SM_H2D = 9,
    HBGH_K_ARENA_H2D = 10,
    HBGH_K_HOST_VIEW_CLOSE = 11,
    HBGH_K_SUBMIT_TASK = 12,
    HBGH_K_ALLOC_TENSORS = 13,
    HBGH_K_RECORD_NODE = 14,
    HBGH_K_GRAPH_SUBMIT = 15,
    HBGH_K_BUILD_DEFINITION = 16
};

extern const char *const hbgh_kind_names[HBGH_NKIND];

/* ---- workloads ---- */

typedef struct hbgh_workload {
    const char *name;
    uint32_t submit_tasks;
    uint32_t alloc_tensors;
    uint32_t ndefs;
    uint32_t def_nodes[HBGH_MAX_DEFS];
    uint32_t layers;      /* each layer submits every Definition once */
    uint32_t arg_tensors; /* caller tensors staged by `args` */
    uint32_t sub_tensors; /* boundary tensors of one Graph submission */
    uint32_t sub_scalars; /* boundary scalars of one Graph submission */
    uint64_t hid;         /* callable hash printed in [STRACE] */
} hbgh_workload;

enum { HBGH_OP_ALLOC = 0, HBGH_OP_SUBMIT = 1, HBGH_OP_GRAPH = 2, HBGH_OP_SCOPE_END = 3 };

typedef struct hbgh_op {
    int32_t type;
    int32_t def; /* HBGH_OP_GRAPH */
} hbgh_op;

const hbgh_workload *hbgh_workload_get(int32_t id);
/* hbgh_workload_ops returns the host operation sequence of one bind. */
int hbgh_workload_ops(const hbgh_workload *wl, hbgh_op **ops, int32_t *nops);

/* Deterministic generator (xorshift64*). */
static inline uint64_t hbgh_rand(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 0x2545F4914F6CDD1Dull;
}

/* ---- records (host_phase_records pool) ---- */

typedef struct hbgh_rec {
    int64_t start_ns;
    int64_t end_ns;
    uint64_t detail;
    int32_t tid;
    int32_t kind;
} hbgh_rec;

typedef struct hbgh_pool {
    int32_t armed;
    hbgh_rec *recs; /* HBGH_POOL_BUFS * HBGH_POOL_RECS */
    int32_t count[HBGH_POOL_BUFS];
    atomic_int next;
    atomic_llong dropped;
} hbgh_pool;

/* A producer is one thread's view of the pool plus its own aggregates. */
typedef struct hbgh_producer {
    int32_t tid;
    int32_t buf;       /* claimed buffer, -1 none, -2 pool exhausted */
    int32_t n;
    hbgh_orch_stats orch[HBGH_NORCH];
} hbgh_producer;

/* records.c */
void hbgh_producer_reset(hbgh_producer *p);
void hbgh_record(hbgh_pool *pool, hbgh_producer *p, int32_t kind, int64_t start_ns,
                 int64_t end_ns, uint64_t detail);

/* ---- recordings (one Definition recorded in one bind) ---- */

typedef struct hbgh_node {
    uint32_t kernel;
    uint32_t n_in;
    uint32_t n_out;
    uint32_t edge_begin;
    uint32_t edge_count;
    uint32_t pad;
    uint64_t in[4];
    uint64_t out[2];
} hbgh_node;

typedef struct hbgh_hmap {
    uint64_t *keys; /* 0 = empty */
    uint32_t *vals;
    uint32_t cap;
    uint32_t len;
} hbgh_hmap;

typedef struct hbgh_defrec {
    int32_t recorder;   /* recorder index this bind, -1 none */
    int32_t recorded;   /* nodes recorded and image built */
    hbgh_node *nodes;
    uint32_t nn, ncap;
    uint32_t *edges;
    uint32_t ne, ecap;
    uint64_t *binds;    /* boundary bindings of every submission */
    uint32_t nb, bcap;
    uint32_t subs;      /* submissions bound */
    hbgh_hmap haz;      /* hazard map: tensor -> last writer node */
    uint8_t *image;
    uint64_t image_bytes;
    uint64_t checksum;
    int32_t failed;     /* allocation failure on the recorder */
    /* Graph PODs of the submissions (occurrence k = the k-th submission of
     * this Definition in the bind): deferred_pageable keeps one zero-filled
     * vector each, eager_pinned a slice of the pinned arena. */
    uint8_t **vec;
    uint64_t *vec_len;
    uint64_t *pin_off;
    uint32_t nvec, vcap;
    uint32_t bound;     /* submissions bound so far; read under the model's mu */
} hbgh_defrec;

/* recording.c: hbgh_defrec_free releases a recording's buffers. */
void hbgh_defrec_free(hbgh_defrec *d);

/* ---- recorder pool ---- */

enum { HBGH_JOB_RECORD = 0, HBGH_JOB_BIND = 1 };

typedef struct hbgh_job {
    int32_t type;
    int32_t def;
    int32_t sub;
} hbgh_job;

/* hbgh_pod_slice returns the byte range of occurrence k of a Definition's
 * image when its Graph POD is cut into one piece per submission. */
static inline void hbgh_pod_slice(uint64_t image_bytes, uint32_t k, uint32_t n, uint64_t *off,
                                  uint64_t *len)
{
    uint64_t a = image_bytes * k / n, b = image_bytes * (k + 1) / n;
    *off = a;
    *len = b - a;
}

struct hbgh_model;

typedef struct hbgh_recorder {
    struct hbgh_model *m;
    pthread_t thread;
    int32_t index;
    int32_t overflow;  /* created mid-burst, joined at commit */
    int32_t busy;      /* owns a recording in this bind */
    int32_t stop;
    int32_t exited;
    int32_t started;   /* has written its first record_node (under m->mu) */
    int32_t released;  /* created: its creating submission is over (under m->mu) */
    uint8_t *arena;    /* recording arena, HBGH_REC_ARENA_BYTES, mmapped */
    atomic_int tid;
    pthread_cond_t cv;
    hbgh_job *q;
    int32_t qcap, qhead, qlen;
    atomic_llong cpu_ns;
    hbgh_producer prod;
} hbgh_recorder;

/* ---- counters ---- */

typedef struct hbgh_snap {
    int64_t t;
    int64_t minflt;
    int64_t tminflt;
    int64_t nivcsw;
    int64_t nvcsw;
    int64_t cpu_ns;
    int64_t rec_cpu_ns;
    int64_t heap;
} hbgh_snap;

int64_t hbgh_now(void);
int64_t hbgh_thread_cpu(void);
int64_t hbgh_hblkhd(void);
int64_t hbgh_heap_bytes(void);
int64_t hbgh_rss_bytes(void);
int32_t hbgh_gettid(void);
int hbgh_task_exists(int32_t tid);
int32_t hbgh_count_named_threads(const char *prefix);
void hbgh_busy_wait(int64_t ns);

/* ---- the model (one hbgh_run) ---- */

typedef struct hbgh_bind {
    hbgh_bind_stats *st;
    hbgh_snap open;
    char attrs[HBGH_NSEG][HBGH_ATTR_CAP];
    /* per-bind buffers */
    uint8_t *args;
    uint8_t *arena;
    uint8_t *subs;       /* submission block */
    uint32_t *fanin;     /* fanin table (copied by arena_h2d) */
    uint32_t nfanin, fanin_cap;
    uint64_t ntensor_args, nscalar_args;
    uint64_t heap_used;
    uint64_t tasks;
    uint64_t sm_bytes;
    uint64_t desc_off;   /* bump pointer for tensor descriptors in the arena */
    void *dev_arena;     /* device arena of this bind */
    int64_t orch_setup_end; /* host_orch.setup / host_orch.entry boundary */
    int64_t orch_start;
    uint8_t *pack;       /* e3: the graph pack */
    uint64_t pack_bytes; /* e3: Definition images packed by graph_pack */
    int64_t prebuilt_start;
} hbgh_bind;

/* ACL entry points (docs/harness.md, "Device backends"). */
typedef struct hbgh_acl {
    void *lib;
    int (*init)(const char *);
    int (*finalize)(void);
    int (*set_device)(int32_t);
    int (*malloc_dev)(void **, size_t, int);
    int (*free_dev)(void *);
    int (*malloc_host)(void **, size_t);
    int (*free_host)(void *);
    int (*memcpy_)(void *, size_t, const void *, size_t, int);
    int inited;
    int device_set;
} hbgh_acl;

typedef struct hbgh_model {
    hbgh_config cfg;
    const hbgh_workload *wl;
    hbgh_op *ops;
    int32_t nops;
    int32_t pid;
    int32_t bind_tid;
    int records_fd;
    uint8_t *args_src;   /* caller tensors, allocated once */
    uint8_t *mirror;     /* SM mirror (kept across binds when retained) */
    hbgh_pool pool;
    hbgh_producer main_prod;
    pthread_mutex_t mu;
    pthread_cond_t done_cv;
    int32_t pending;     /* jobs handed out and not finished */
    int32_t failed;      /* a recorder failed (allocation) */
    hbgh_recorder *rec[HBGH_MAX_RECORDERS];
    int32_t nrec;
    int64_t retired_cpu_ns;
    int32_t *tids;       /* every thread the model created */
    int32_t ntids, tids_cap;
    hbgh_defrec defs[HBGH_MAX_DEFS];
    hbgh_orch_stats pass_orch[HBGH_NORCH]; /* recorders' aggregates, this pass */
    int32_t threads_created;
    hbgh_result *out;
    int32_t rank;
    int32_t waiters;     /* bind thread waits for a binding (eager_pinned) */
    /* eager_pinned: the retained pinned arena and device buffers per
     * (Definition, occurrence) */
    uint8_t *pinned;
    uint64_t pinned_cap;
    atomic_ullong pinned_off;
    void **dev_pod;      /* HBGH_MAX_DEFS x layers */
    void *dev_upload;    /* retained upload destination (SM image, arena, Definitions) */
    uint64_t dev_upload_cap;
    uint64_t dev_tokens; /* model device: fake handles */
    hbgh_acl acl;
} hbgh_model;

/* hbgh_slot_ptr is task slot `slot` of the SM mirror. */
static inline uint8_t *hbgh_slot_ptr(hbgh_model *m, uint32_t slot)
{
    return m->mirror + HBGH_SM_HEADER + (uint64_t)slot * HBGH_SLOT_BYTES;
}

/* fail.c: hbgh_fail records the first error of a run in out->error and
 * returns -1. */
int hbgh_fail(hbgh_model *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* segment.c: a bind's segments and spans. Each returns 0, or -1 with the
 * error set. */
int hbgh_seg_begin(hbgh_model *m, hbgh_bind *b);
int hbgh_seg_end(hbgh_model *m, hbgh_bind *b, int kind, uint64_t detail, int dev_model,
                 const char *fmt, ...) __attribute__((format(printf, 6, 7)));
/* hbgh_span_seg closes a span that is no segment kind of the runtime's enum. */
int hbgh_span_seg(hbgh_model *m, hbgh_bind *b, const char *rest, int depth, const char *attrs);
int hbgh_bind_span(hbgh_model *m, hbgh_bind *b, int depth, const char *rest, int64_t ts,
                   int64_t dur, const char *attrs);

/* orch.c: hbgh_host_orch does host_orch's work; 0, or -1 with the error
 * set. */
int hbgh_host_orch(hbgh_model *m, hbgh_bind *b);

/* graph.c: the Graph POD variants. hbgh_eager_layer uploads one layer's
 * PODs inside host_orch (eager_pinned); hbgh_graph_step is the Graph POD
 * segment after orchestration. Each returns 0, or -1 with the error set. */
int hbgh_eager_layer(hbgh_model *m, hbgh_bind *b, uint32_t layer, const int32_t *def,
                     const uint32_t *occ, uint32_t n);
int hbgh_graph_step(hbgh_model *m, hbgh_bind *b);

/* bind.c: hbgh_run_bind runs one bind; 0, or -1 with the error set. With
 * ranks=2, hbgh_run.c points hbgh_rank_led and hbgh_rank_burst into the
 * ranks' shared rank_sync before the first bind; NULL with one rank. */
int hbgh_run_bind(hbgh_model *m, hbgh_bind_stats *st);
extern atomic_int *hbgh_rank_led;
extern atomic_flag *hbgh_rank_burst;

/* recording.c: the work of one recorder job (hbgh_job); 0, or -1 on an
 * allocation failure. */
int hbgh_record_definition(hbgh_model *m, hbgh_recorder *r, int32_t def);
int hbgh_bind_submission(hbgh_model *m, int32_t def, int32_t sub);

/* recorder.c */
int hbgh_pool_start(hbgh_model *m);
int hbgh_pool_acquire(hbgh_model *m, int32_t def, hbgh_bind_stats *st);
int hbgh_pool_submit(hbgh_model *m, int32_t def, int32_t sub, int32_t first);
int hbgh_pool_commit(hbgh_model *m);
/* hbgh_pool_wait_started waits until the recorder of def has written its
 * first record: the submitting thread's wait for a recorder it created.
 * hbgh_pool_started is the recorder's side, after that record; a created
 * recorder then waits there until hbgh_pool_release, which the submitting
 * thread calls once the creating submission's record is written. */
int hbgh_pool_wait_started(hbgh_model *m, int32_t def);
void hbgh_pool_started(hbgh_model *m, hbgh_recorder *r);
void hbgh_pool_release(hbgh_model *m, int32_t def);

/* hbgh_pool_wait_bound waits until n submissions of def are bound. */
int hbgh_pool_wait_bound(hbgh_model *m, int32_t def, uint32_t n);
/* hbgh_pool_drain waits until no job is pending (on an error path, before
 * the recordings the jobs use are freed). */
void hbgh_pool_drain(hbgh_model *m);
void hbgh_pool_stop(hbgh_model *m);
int64_t hbgh_pool_cpu(hbgh_model *m);

/* device.c: the device backend. The model busy-waits for the modelled
 * time and hands out tokens; ascend calls ACL. Each returns 0, or -1 with
 * the error set (and out->dev_error for an ACL failure). */
int hbgh_dev_open(hbgh_model *m);
void hbgh_dev_close(hbgh_model *m);
int hbgh_dev_alloc(hbgh_model *m, uint64_t bytes, void **dptr);
void hbgh_dev_free(hbgh_model *m, void *dptr);
int hbgh_dev_host_alloc(hbgh_model *m, uint64_t bytes, void **hptr);
void hbgh_dev_host_free(hbgh_model *m, void *hptr);
int hbgh_dev_h2d(hbgh_model *m, void *dst, uint64_t dst_cap, const void *src, uint64_t bytes,
                 int32_t pageable);
/* hbgh_dev_models reports whether device time is modelled (dev=model). */
int hbgh_dev_models(const hbgh_model *m);

/* log.c */
int hbgh_write_all(int fd, const char *buf, size_t len);
int hbgh_log(hbgh_model *m, const char *func, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int hbgh_log_anchor(hbgh_model *m);
int hbgh_log_span(hbgh_model *m, uint64_t inv, int32_t depth, const char *name, int64_t ts,
                  int64_t dur, const char *attrs);
size_t hbgh_encode_field(const char *in, char *out, size_t cap, int attributes);
int hbgh_write_records(hbgh_model *m, uint64_t inv);
/* hbgh_kind_name is the kind's name in the configured epoch (e3 renames
 * graph_upload to graph_pack and record_node to record_sub_task). */
const char *hbgh_kind_name(const hbgh_model *m, int kind);
/* hbgh_span_prefix is chip.run, or simpler_run for pr1870. */
const char *hbgh_span_prefix(const hbgh_model *m);

#endif
