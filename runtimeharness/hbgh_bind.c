//go:build cgo

/*
 * hbgh_bind.c - one bind, segment by segment, in the runtime's execution
 * order: args, arena_build, static_arena, gm_heap, runtime_init, host_orch
 * (hbgh_orch.c), graph_upload (hbgh_graph.c), shared_mem, arena_h2d,
 * host_view_close. E1/E2 write the segment lines at the end of each pass in
 * enum order, then the host-orch lines; E3 and PR-1870 write each segment's
 * span as it closes (hbgh_segment.c). Then the records and the chip.run
 * (simpler_run) spans.
 */
#define _GNU_SOURCE
#include "hbgh_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Process-wide invocation counter, from 1 like the runtime's. */
static atomic_ullong g_inv;

/* hbgh_rank_led, with ranks=2, is rank_sync's led: rank 0 counts a bind
 * once its first segment has begun (rank_stagger in hbgh_run.c). NULL with
 * one rank. */
atomic_int *hbgh_rank_led;

/* ---- one bind ---- */

static int run_segments(hbgh_model *m, hbgh_bind *b)
{
    const hbgh_workload *wl = m->wl;
    uint64_t nt = wl->arg_tensors;
    uint64_t abytes = (uint64_t)m->cfg.args_bytes;
    int pr1870 = m->cfg.epoch == HBGH_EPOCH_PR1870;

    /* args: stage the caller tensors. */
    if (hbgh_seg_begin(m, b) != 0) {
        return -1;
    }
    if (hbgh_rank_led != NULL && m->rank == 0) {
        atomic_fetch_add(hbgh_rank_led, 1); /* rank 1 may begin its bind (rank_stagger) */
    }
    b->args = malloc(abytes ? abytes : 1);
    if (b->args == NULL) {
        return hbgh_fail(m, "allocating %llu bytes of staged args failed",
                         (unsigned long long)abytes);
    }
    uint64_t per = abytes / nt;
    for (uint64_t i = 0, off = 0; i < nt; i++) {
        uint64_t len = i + 1 == nt ? abytes - off : per;
        memcpy(b->args + off, m->args_src + off, len);
        off += len;
    }
    if ((pr1870 ? hbgh_seg_end(m, b, HBGH_K_ARGS, 0, 0, "reuse=0")
               : hbgh_seg_end(m, b, HBGH_K_ARGS, 0, 0, "ntensor=%llu staged=%llu bytes=%llu",
                              (unsigned long long)nt, (unsigned long long)nt,
                              (unsigned long long)abytes)) != 0) {
        return -1;
    }

    /* arena_build: one host arena, one device arena. */
    if (hbgh_seg_begin(m, b) != 0) {
        return -1;
    }
    b->prebuilt_start = b->open.t;
    b->arena = malloc(HBGH_HOST_ARENA_BYTES);
    if (b->arena == NULL) {
        return hbgh_fail(m, "allocating the host arena failed");
    }
    memset(b->arena, 0, HBGH_ARENA_HEADER);
    if (hbgh_dev_alloc(m, HBGH_DEVICE_ARENA_BYTES, &b->dev_arena) != 0) {
        return -1;
    }
    if (hbgh_seg_end(m, b, HBGH_K_ARENA_BUILD, 0, 1, "bytes=%u device=%u", HBGH_HOST_ARENA_BYTES,
                     HBGH_DEVICE_ARENA_BYTES) != 0) {
        return -1;
    }

    /* static_arena: carve the static arena and the GM heap. */
    if (hbgh_seg_begin(m, b) != 0) {
        return -1;
    }
    memset(b->arena + HBGH_STATIC_OFF, 0, 4096);
    uint64_t layout[4] = {HBGH_STATIC_OFF, HBGH_STATIC_ARENA_BYTES, HBGH_DESC_OFF,
                          HBGH_GM_HEAP_BYTES};
    memcpy(b->arena + 64, layout, sizeof(layout));
    if (hbgh_seg_end(m, b, HBGH_K_STATIC_ARENA, 0, 0, "heap=%llu arena=%u", HBGH_GM_HEAP_BYTES,
                     HBGH_STATIC_ARENA_BYTES) != 0) {
        return -1;
    }

    /* gm_heap: the heap allocator's bookkeeping. */
    if (hbgh_seg_begin(m, b) != 0) {
        return -1;
    }
    memset(b->arena + HBGH_GM_META_OFF, 0, HBGH_GM_META_BYTES);
    uint64_t heap[2] = {HBGH_GM_HEAP_BYTES, 0};
    memcpy(b->arena + HBGH_GM_META_OFF, heap, sizeof(heap));
    if (hbgh_seg_end(m, b, HBGH_K_GM_HEAP, 0, 0, "%s", "") != 0) {
        return -1;
    }

    /* runtime_init: reset the tensormap and the runtime state. */
    if (hbgh_seg_begin(m, b) != 0) {
        return -1;
    }
    memset(b->arena + HBGH_TMAP_OFF, 0, HBGH_TMAP_BYTES);
    memset(b->arena + HBGH_RT_OFF, 0, HBGH_RT_BYTES);
    if (hbgh_seg_end(m, b, HBGH_K_RUNTIME_INIT, 0, 0, "%s", "") != 0) {
        return -1;
    }

    /* host_orch */
    if (hbgh_seg_begin(m, b) != 0 || hbgh_host_orch(m, b) != 0) {
        return -1;
    }
    int orch_dev = m->cfg.graph_pod == HBGH_POD_EAGER_PINNED && !pr1870 &&
                   m->cfg.epoch != HBGH_EPOCH_E3;
    if (hbgh_seg_end(m, b, HBGH_K_HOST_ORCH, 0, orch_dev, "tasks=%llu heap_used=%llu",
                     (unsigned long long)b->tasks, (unsigned long long)b->heap_used) != 0) {
        return -1;
    }
    int64_t orch_ts = b->st->seg[HBGH_K_HOST_ORCH].start_ns;

    /* The Graph PODs left after orchestration. */
    if (hbgh_graph_step(m, b) != 0) {
        return -1;
    }
    if (pr1870 &&
        hbgh_bind_span(m, b, 2, "orch_h2d_pipe", orch_ts, hbgh_now() - orch_ts, "") != 0) {
        return -1;
    }

    /* shared_mem: lay out the SM image over the live prefix. */
    if (hbgh_seg_begin(m, b) != 0) {
        return -1;
    }
    for (uint32_t s = 0; s < (uint32_t)b->tasks; s++) {
        uint64_t id;
        memcpy(&id, hbgh_slot_ptr(m, s), sizeof(id));
        if (id != HBGH_TASK_ID(s)) {
            return hbgh_fail(m, "SM slot %u holds task %llx", s, (unsigned long long)id);
        }
    }
    b->sm_bytes = HBGH_SM_HEADER + b->tasks * HBGH_SLOT_LIVE;
    if (hbgh_seg_end(m, b, HBGH_K_SHARED_MEM, b->sm_bytes, 0, "bytes=%llu",
                     (unsigned long long)b->sm_bytes) != 0) {
        return -1;
    }

    /* arena_h2d: compact the live SM prefix, stage the submission block
     * and the fanin table (and, in e3, the graph pack), one upload. PR-1870
     * uploads the SM prefix (h2d_sm) and the rest (h2d_arena) apart. */
    if (hbgh_seg_begin(m, b) != 0) {
        return -1;
    }
    uint64_t nsubs = (uint64_t)b->st->submissions;
    uint64_t subs_bytes = HBGH_SUB_HEADER + nsubs * HBGH_SUB_RECORD;
    uint64_t copied = (uint64_t)b->nfanin * 4;
    uint64_t total = b->sm_bytes + subs_bytes + copied + b->pack_bytes;
    uint8_t *stage = malloc(total);
    if (stage == NULL) {
        return hbgh_fail(m, "allocating %llu bytes of upload staging failed",
                         (unsigned long long)total);
    }
    memcpy(stage, m->mirror, HBGH_SM_HEADER);
    for (uint64_t s = 0; s < b->tasks; s++) {
        memcpy(stage + HBGH_SM_HEADER + s * HBGH_SLOT_LIVE, hbgh_slot_ptr(m, (uint32_t)s),
               HBGH_SLOT_LIVE);
    }
    if (pr1870) {
        int rc = hbgh_dev_h2d(m, m->dev_upload, m->dev_upload_cap, stage, b->sm_bytes, 1);
        if (rc == 0) {
            rc = hbgh_seg_end(m, b, HBGH_K_SM_H2D, b->sm_bytes, 1, "bytes=%llu",
                              (unsigned long long)b->sm_bytes);
        }
        if (rc != 0 || hbgh_seg_begin(m, b) != 0) {
            free(stage);
            return -1;
        }
    }
    memcpy(stage + b->sm_bytes, b->subs, subs_bytes);
    if (copied) {
        memcpy(stage + b->sm_bytes + subs_bytes, b->fanin, copied);
    }
    if (b->pack_bytes) {
        memcpy(stage + b->sm_bytes + subs_bytes + copied, b->pack, b->pack_bytes);
    }
    uint64_t from = pr1870 ? b->sm_bytes : 0;
    int rc = hbgh_dev_h2d(m, m->dev_upload, m->dev_upload_cap, stage + from, total - from, 1);
    free(stage);
    if (rc != 0) {
        return -1;
    }
    if (b->pack_bytes) {
        b->st->graph_h2d_bytes += (int64_t)b->pack_bytes;
        b->st->graph_h2d_copies++;
    }
    if (pr1870) {
        rc = hbgh_seg_end(m, b, HBGH_K_ARENA_H2D, total - from, 1, "nt=%llu bytes=%llu",
                          (unsigned long long)b->tasks, (unsigned long long)(total - from));
    } else {
        rc = hbgh_seg_end(m, b, HBGH_K_ARENA_H2D, total, 1,
                          "nt=%llu bytes=%llu copied=%llu sm=%llu subs=%llu args=%u/%llu/%llu",
                          (unsigned long long)b->tasks, (unsigned long long)total,
                          (unsigned long long)copied, (unsigned long long)b->sm_bytes,
                          (unsigned long long)subs_bytes, b->nfanin,
                          (unsigned long long)b->ntensor_args, (unsigned long long)b->nscalar_args);
    }
    if (rc != 0) {
        return -1;
    }

    /* host_view_close: release the staged views and the bind's buffers
     * (deferred_pageable's per-submission vectors with the recordings). */
    if (hbgh_seg_begin(m, b) != 0) {
        return -1;
    }
    free(b->args);
    b->args = NULL;
    if (m->cfg.mirror == HBGH_MIRROR_PER_BIND) {
        free(m->mirror);
        m->mirror = NULL;
    }
    free(b->arena);
    b->arena = NULL;
    free(b->subs);
    b->subs = NULL;
    free(b->fanin);
    b->fanin = NULL;
    free(b->pack);
    b->pack = NULL;
    hbgh_dev_free(m, b->dev_arena);
    b->dev_arena = NULL;
    for (uint32_t d = 0; d < wl->ndefs; d++) {
        hbgh_defrec_free(&m->defs[d]);
    }
    return hbgh_seg_end(m, b, HBGH_K_HOST_VIEW_CLOSE, 0, 0, "count=%llu bytes=%llu",
                        (unsigned long long)nt, (unsigned long long)abytes);
}

static void free_bind(hbgh_model *m, hbgh_bind *b)
{
    free(b->args);
    free(b->arena);
    free(b->subs);
    free(b->fanin);
    free(b->pack);
    hbgh_dev_free(m, b->dev_arena);
    for (uint32_t d = 0; d < m->wl->ndefs; d++) {
        hbgh_defrec_free(&m->defs[d]);
    }
}

/* trace_end writes one pass's lines in enum order (E1/E2; spans of the
 * later generations were written as each closed). */
/* hbgh_rank_burst, with ranks=2, is the process-shared flag (in the ranks'
 * rank_sync) that makes one rank's burst of bind phase= and host-orch
 * phase= lines contiguous in the common output. The E1 reader groups a
 * pass by its log thread, and forked ranks write the same [T0x...]: two
 * bursts interleaved line by line could not be told apart. NULL with one
 * rank. */
atomic_flag *hbgh_rank_burst;

static int trace_end_lines(hbgh_model *m, hbgh_bind *b);

static int trace_end(hbgh_model *m, hbgh_bind *b)
{
    if (hbgh_rank_burst == NULL) {
        return trace_end_lines(m, b);
    }
    while (atomic_flag_test_and_set(hbgh_rank_burst)) {
        struct timespec d = {0, 10000};
        (void)nanosleep(&d, NULL);
    }
    int rc = trace_end_lines(m, b);
    atomic_flag_clear(hbgh_rank_burst);
    return rc;
}

static int trace_end_lines(hbgh_model *m, hbgh_bind *b)
{
    hbgh_bind_stats *st = b->st;
    int lines = m->cfg.epoch == HBGH_EPOCH_E1 || m->cfg.epoch == HBGH_EPOCH_E2;
    for (int k = 0; lines && k < HBGH_NSEG; k++) {
        const hbgh_seg_stats *s = &st->seg[k];
        if (!s->recorded) {
            continue;
        }
        if (hbgh_log(m, "host_phase_trace_end",
                     "[host_phase_trace.cpp:393] bind phase=%s start_ns=%lld dur_ns=%lld %s",
                     hbgh_kind_names[k], (long long)s->start_ns, (long long)s->dur_ns,
                     b->attrs[k]) != 0) {
            return -1;
        }
    }
    for (int k = 0; k < HBGH_NORCH; k++) {
        hbgh_orch_stats *o = &st->orch[k];
        o->count = m->main_prod.orch[k].count + m->pass_orch[k].count;
        o->total_ns = m->main_prod.orch[k].total_ns + m->pass_orch[k].total_ns;
        o->detail_sum = m->main_prod.orch[k].detail_sum + m->pass_orch[k].detail_sum;
        o->dropped = m->main_prod.orch[k].dropped + m->pass_orch[k].dropped;
    }
    for (int k = 0; lines && k < HBGH_NORCH; k++) {
        const hbgh_orch_stats *o = &st->orch[k];
        if (o->count == 0) {
            continue;
        }
        if (hbgh_log(m, "host_phase_trace_end",
                     "[host_phase_trace.cpp:402] host-orch phase=%s total_ns=%lld count=%lld "
                     "detail_sum=%llu dropped=%lld",
                     hbgh_kind_names[HBGH_NSEG + k], (long long)o->total_ns, (long long)o->count,
                     (unsigned long long)o->detail_sum, (long long)o->dropped) != 0) {
            return -1;
        }
    }
    st->records_dropped = atomic_load(&m->pool.dropped);
    return 0;
}

/* validate checks the bind against the workload's numbers. */
static int validate(hbgh_model *m, const hbgh_bind_stats *st)
{
    const hbgh_workload *wl = m->wl;
    int64_t subs = (int64_t)wl->layers * wl->ndefs;
    int64_t nodes = 0;
    for (uint32_t d = 0; d < wl->ndefs; d++) {
        nodes += wl->def_nodes[d];
    }
    if (st->tasks != (int64_t)wl->submit_tasks + wl->alloc_tensors + subs ||
        st->defs != (int64_t)wl->ndefs || st->submissions != subs ||
        st->orch[HBGH_K_RECORD_NODE - HBGH_NSEG].count != nodes ||
        st->orch[HBGH_K_GRAPH_SUBMIT - HBGH_NSEG].count != subs) {
        return hbgh_fail(m, "validate: bind %llu did not do the workload's work",
                         (unsigned long long)st->inv);
    }
    return 0;
}


/* hbgh_run_bind runs one bind and writes its lines, records and spans. */
int hbgh_run_bind(hbgh_model *m, hbgh_bind_stats *st)
{
    hbgh_bind b;
    memset(&b, 0, sizeof(b));
    memset(st, 0, sizeof(*st));
    b.st = st;
    st->inv = atomic_fetch_add(&g_inv, 1) + 1;
    st->rank = m->rank;
    st->pid = m->pid;
    st->hblkhd_before = hbgh_hblkhd();

    atomic_store(&m->pool.next, 0);
    atomic_store(&m->pool.dropped, 0);
    atomic_store(&m->pinned_off, 0);
    memset(m->pool.count, 0, sizeof(m->pool.count));
    hbgh_producer_reset(&m->main_prod);
    memset(m->pass_orch, 0, sizeof(m->pass_orch));

    int64_t ts = hbgh_now();
    if (run_segments(m, &b) != 0) {
        hbgh_pool_drain(m);
        free_bind(m, &b);
        return -1;
    }
    if (trace_end(m, &b) != 0 || hbgh_write_records(m, st->inv) != 0) {
        return -1;
    }
    int64_t bind_end = hbgh_now();
    const char *root = hbgh_span_prefix(m);
    char name[64];
    snprintf(name, sizeof(name), "%s.bind", root);
    if (hbgh_log_span(m, st->inv, 1, name, ts, bind_end - ts, "") != 0) {
        return -1;
    }
    int64_t vts = hbgh_now();
    if (validate(m, st) != 0) {
        return -1;
    }
    int64_t vend = hbgh_now();
    snprintf(name, sizeof(name), "%s.validate", root);
    if (hbgh_log_span(m, st->inv, 1, name, vts, vend - vts, "") != 0) {
        return -1;
    }
    if (hbgh_log_span(m, st->inv, 0, root, ts, hbgh_now() - ts, "") != 0) {
        return -1;
    }
    st->bind_ts = ts;
    st->bind_dur = bind_end - ts;
    st->hblkhd_after = hbgh_hblkhd();
    st->rss_after = hbgh_rss_bytes();
    return 0;
}
