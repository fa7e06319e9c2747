//go:build cgo

/*
 * hbgh_segment.c - a bind's segments: each opens with the counters taken
 * (hbgh_seg_begin) and closes (hbgh_seg_end) adding their deltas to the
 * bind's stats, keeping the attribute string of the E1/E2 lines and
 * writing the segment's span in E3 and PR-1870.
 */
#define _GNU_SOURCE
#include "hbgh_internal.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

/* snap_take reads the counters of a segment: the kernel's, the thread CPU
 * clock and the recorders' CPU time. At a segment's end (end != 0) the clock
 * is read first, at its start last, so the reading stays outside. */
static int snap_take(hbgh_model *m, hbgh_snap *s, int end)
{
    struct rusage self, thr;
    if (end) {
        s->t = hbgh_now();
    }
    if (getrusage(RUSAGE_SELF, &self) != 0) {
        return hbgh_fail(m, "getrusage(RUSAGE_SELF): %s", strerror(errno));
    }
    if (getrusage(RUSAGE_THREAD, &thr) != 0) {
        return hbgh_fail(m, "getrusage(RUSAGE_THREAD): %s", strerror(errno));
    }
    s->minflt = self.ru_minflt;
    s->tminflt = thr.ru_minflt;
    s->nivcsw = thr.ru_nivcsw;
    s->nvcsw = thr.ru_nvcsw;
    s->cpu_ns = hbgh_thread_cpu();
    s->rec_cpu_ns = hbgh_pool_cpu(m);
    s->heap = m->cfg.keep_stats ? hbgh_heap_bytes() : 0;
    if (!end) {
        s->t = hbgh_now();
    }
    return 0;
}

/* hbgh_seg_begin opens a segment: it takes the counters at its start. */
int hbgh_seg_begin(hbgh_model *m, hbgh_bind *b)
{
    return snap_take(m, &b->open, 0);
}

/* counters formats the six kernel counters of a segment (E2/E3 order). */
static int counters(char *buf, size_t cap, const hbgh_seg_stats *s, int lead)
{
    return snprintf(buf, cap, "%sminflt=%lld tminflt=%lld nivcsw=%lld nvcsw=%lld cpu_ns=%lld rec_cpu_ns=%lld",
                    lead ? " " : "", (long long)s->minflt, (long long)s->tminflt,
                    (long long)s->nivcsw, (long long)s->nvcsw, (long long)s->cpu_ns,
                    (long long)s->rec_cpu_ns);
}

/* span_name writes <prefix>.bind.<rest> into buf. */
static const char *span_name(const hbgh_model *m, char *buf, size_t cap, const char *rest)
{
    snprintf(buf, cap, "%s.bind.%s", hbgh_span_prefix(m), rest);
    return buf;
}

/* hbgh_bind_span writes the span <prefix>.bind.<rest> of the bind. */
int hbgh_bind_span(hbgh_model *m, hbgh_bind *b, int depth, const char *rest, int64_t ts,
                   int64_t dur, const char *attrs)
{
    char name[64];
    return hbgh_log_span(m, b->st->inv, depth, span_name(m, name, sizeof(name), rest), ts, dur,
                         attrs);
}

/* emit_pr1870 writes the span a segment becomes in PR-1870's set
 * (REFERENCE §5.2); kinds that set has no span of their own write none. */
static int emit_pr1870(hbgh_model *m, hbgh_bind *b, int kind, int64_t t0, int64_t t1,
                       const char *attrs)
{
    switch (kind) {
    case HBGH_K_ARGS:
        return hbgh_bind_span(m, b, 2, "args", t0, t1 - t0, attrs);
    case HBGH_K_RUNTIME_INIT:
        /* prebuilt: arena commit, static arena, GM heap, runtime init */
        return hbgh_bind_span(m, b, 2, "prebuilt", b->prebuilt_start, t1 - b->prebuilt_start, "");
    case HBGH_K_HOST_ORCH:
        return hbgh_bind_span(m, b, 3, "host_orch", t0, t1 - t0, attrs);
    case HBGH_K_GRAPH_UPLOAD:
        return hbgh_bind_span(m, b, 3, "h2d_graph", t0, t1 - t0, attrs);
    case HBGH_K_SHARED_MEM:
        return hbgh_bind_span(m, b, 2, "relocate", t0, t1 - t0, "");
    case HBGH_K_SM_H2D:
        return hbgh_bind_span(m, b, 2, "h2d_sm", t0, t1 - t0, attrs);
    case HBGH_K_ARENA_H2D:
        return hbgh_bind_span(m, b, 2, "h2d_arena", t0, t1 - t0, attrs);
    default:
        return 0;
    }
}

/* hbgh_seg_end closes a segment of the runtime's enum: it adds the counters
 * since hbgh_seg_begin to the bind's stats, keeps the attributes for the
 * E1/E2 lines, records it, and writes its span (E3, PR-1870). */
int hbgh_seg_end(hbgh_model *m, hbgh_bind *b, int kind, uint64_t detail, int dev_model,
                 const char *fmt, ...)
{
    hbgh_snap e;
    if (snap_take(m, &e, 1) != 0) {
        return -1;
    }
    const hbgh_snap *o = &b->open;
    hbgh_seg_stats *s = &b->st->seg[kind];
    if (!s->recorded || o->t < s->start_ns) {
        s->start_ns = o->t;
    }
    dev_model = dev_model && hbgh_dev_models(m);
    s->recorded = 1;
    s->dev_model |= dev_model;
    s->dur_ns += e.t - o->t;
    s->minflt += e.minflt - o->minflt;
    s->tminflt += e.tminflt - o->tminflt;
    s->nivcsw += e.nivcsw - o->nivcsw;
    s->nvcsw += e.nvcsw - o->nvcsw;
    s->cpu_ns += e.cpu_ns - o->cpu_ns;
    s->rec_cpu_ns += e.rec_cpu_ns - o->rec_cpu_ns;
    s->heap_delta += e.heap - o->heap;

    /* The attribute string captured when the segment closes. */
    char full[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(full, sizeof(full), fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof(full)) {
        return hbgh_fail(m, "segment %s: attributes too long", hbgh_kind_names[kind]);
    }
    if (dev_model) {
        n += snprintf(full + n, sizeof(full) - (size_t)n, "%sdev=model", n ? " " : "");
    }
    if (m->cfg.epoch == HBGH_EPOCH_E2 || m->cfg.epoch == HBGH_EPOCH_E3) {
        n += counters(full + n, sizeof(full) - (size_t)n, s, n > 0);
    }
    if (n < 0 || (size_t)n >= sizeof(full)) {
        return hbgh_fail(m, "segment %s: attributes too long", hbgh_kind_names[kind]);
    }
    /* E1/E2 copy it into the runtime's 96-byte buffer (95 characters, no
     * marker); spans encode it with their own 192-byte cap. */
    size_t keep = (size_t)n < HBGH_ATTR_CAP - 1 ? (size_t)n : HBGH_ATTR_CAP - 1;
    memcpy(b->attrs[kind], full, keep);
    b->attrs[kind][keep] = '\0';
    hbgh_record(&m->pool, &m->main_prod, kind, o->t, e.t, detail);
    switch (m->cfg.epoch) {
    case HBGH_EPOCH_E3:
        return hbgh_bind_span(m, b, 2, hbgh_kind_name(m, kind), o->t, e.t - o->t, full);
    case HBGH_EPOCH_PR1870:
        return emit_pr1870(m, b, kind, o->t, e.t, full);
    default:
        return 0;
    }
}

/* hbgh_span_seg closes a span that is no bind segment kind of the runtime's enum
 * (an e3 h2d_graph upload after host_orch), with the segment counters. */
int hbgh_span_seg(hbgh_model *m, hbgh_bind *b, const char *rest, int depth, const char *attrs)
{
    hbgh_snap e;
    if (snap_take(m, &e, 1) != 0) {
        return -1;
    }
    const hbgh_snap *o = &b->open;
    hbgh_seg_stats d = {
        .minflt = e.minflt - o->minflt,
        .tminflt = e.tminflt - o->tminflt,
        .nivcsw = e.nivcsw - o->nivcsw,
        .nvcsw = e.nvcsw - o->nvcsw,
        .cpu_ns = e.cpu_ns - o->cpu_ns,
        .rec_cpu_ns = e.rec_cpu_ns - o->rec_cpu_ns,
    };
    char full[512];
    int n = snprintf(full, sizeof(full), "%s", attrs);
    counters(full + n, sizeof(full) - (size_t)n, &d, n > 0);
    return hbgh_bind_span(m, b, depth, rest, o->t, e.t - o->t, full);
}
