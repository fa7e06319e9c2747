//go:build cgo

/*
 * hbgh_graph.c - the Graph POD variants: where each Definition's image or
 * each submission's POD goes to the device. current uploads each image
 * once in graph_upload (graph_pack in e3); deferred_pageable uploads the
 * per-submission vectors after orchestration; eager_pinned uploads each
 * layer from the pinned arena inside host_orch.
 */
#define _GNU_SOURCE
#include "hbgh_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* graph_h2d uploads one Graph POD piece and counts it in the bind's
 * Graph POD totals. */
static int graph_h2d(hbgh_model *m, hbgh_bind *b, void *dst, uint64_t cap, const void *src,
                     uint64_t bytes, int pageable)
{
    int64_t t0 = hbgh_now();
    if (hbgh_dev_h2d(m, dst, cap, src, bytes, pageable) != 0) {
        return -1;
    }
    b->st->graph_h2d_ns += hbgh_now() - t0;
    b->st->graph_h2d_bytes += (int64_t)bytes;
    b->st->graph_h2d_copies++;
    return 0;
}

/* hbgh_eager_layer uploads the Graph PODs of one layer from the pinned
 * arena, inside host_orch, synchronously: it waits until the recorders
 * have bound the layer's n submissions (occurrence occ[i] of Definition
 * def[i]), then copies each into the device buffer kept for its
 * (Definition, occurrence), allocated on first use and retained. */
int hbgh_eager_layer(hbgh_model *m, hbgh_bind *b, uint32_t layer, const int32_t *def,
                     const uint32_t *occ, uint32_t n)
{
    const hbgh_workload *wl = m->wl;
    /* The wait for the recorder is orchestration; the span is the copy. */
    for (uint32_t i = 0; i < n; i++) {
        if (hbgh_pool_wait_bound(m, def[i], occ[i] + 1) != 0) {
            return -1;
        }
    }
    int64_t t0 = hbgh_now();
    uint64_t bytes = 0;
    for (uint32_t i = 0; i < n; i++) {
        hbgh_defrec *r = &m->defs[def[i]];
        uint32_t k = occ[i];
        uint64_t len = r->vec_len[k];
        void **dst = &m->dev_pod[(uint32_t)def[i] * wl->layers + k];
        if (*dst == NULL && hbgh_dev_alloc(m, len ? len : 1, dst) != 0) {
            return -1;
        }
        if (graph_h2d(m, b, *dst, len, m->pinned + r->pin_off[k], len, 0) != 0) {
            return -1;
        }
        bytes += len;
    }
    int64_t t1 = hbgh_now();
    char attrs[96];
    snprintf(attrs, sizeof(attrs), "layer=%u bytes=%llu%s", layer, (unsigned long long)bytes,
             hbgh_dev_models(m) ? " dev=model" : "");
    switch (m->cfg.epoch) {
    case HBGH_EPOCH_E3:
        return hbgh_bind_span(m, b, 3, "h2d_graph", t0, t1 - t0, attrs);
    case HBGH_EPOCH_PR1870:
        return hbgh_bind_span(m, b, 5, "h2d_graph", t0, t1 - t0, attrs);
    default:
        return 0; /* E1/E2 cannot itemise it: it is part of host_orch */
    }
}

/* hbgh_graph_step is the Graph POD step after orchestration (segment kind
 * 7: graph_upload, graph_pack in e3, the leftover h2d_graph in pr1870). */
int hbgh_graph_step(hbgh_model *m, hbgh_bind *b)
{
    const hbgh_workload *wl = m->wl;
    hbgh_bind_stats *st = b->st;
    int epoch = m->cfg.epoch, pod = m->cfg.graph_pod;
    uint64_t ubytes = 0, ndefs = 0, nsubs = 0, images = 0;
    for (uint32_t d = 0; d < wl->ndefs; d++) {
        if (m->defs[d].recorded) {
            images += m->defs[d].image_bytes;
            ndefs++;
        }
        nsubs += m->defs[d].subs;
    }
    st->defs = (int64_t)ndefs;
    st->submissions = (int64_t)nsubs;

    if (epoch == HBGH_EPOCH_E3 && pod == HBGH_POD_DEFERRED_PAGEABLE) {
        /* Upstream has no upload after host_orch; the vectors' upload is
         * an h2d_graph span of its own, then graph_pack has nothing. */
        if (hbgh_seg_begin(m, b) != 0) {
            return -1;
        }
        uint64_t bytes = 0;
        for (uint32_t d = 0; d < wl->ndefs; d++) {
            hbgh_defrec *r = &m->defs[d];
            for (uint32_t k = 0; k < r->nvec; k++) {
                if (graph_h2d(m, b, m->dev_upload, m->dev_upload_cap, r->vec[k], r->vec_len[k], 1) != 0) {
                    return -1;
                }
                bytes += r->vec_len[k];
            }
        }
        char attrs[96];
        snprintf(attrs, sizeof(attrs), "subs=%llu bytes=%llu%s", (unsigned long long)nsubs,
                 (unsigned long long)bytes, hbgh_dev_models(m) ? " dev=model" : "");
        if (hbgh_span_seg(m, b, "h2d_graph", 2, attrs) != 0) {
            return -1;
        }
    }
    if (pod == HBGH_POD_EAGER_PINNED && epoch != HBGH_EPOCH_E3) {
        return 0; /* every layer went up inside host_orch: no leftover */
    }
    if (hbgh_seg_begin(m, b) != 0) {
        return -1;
    }
    if (epoch == HBGH_EPOCH_E3) {
        /* graph_pack: host-side packing of the images into the arena
         * upload (current); nothing is left to pack otherwise. */
        if (pod == HBGH_POD_CURRENT) {
            b->pack = malloc(images ? images : 1);
            if (b->pack == NULL) {
                return hbgh_fail(m, "allocating the %llu-byte graph pack failed",
                                 (unsigned long long)images);
            }
            for (uint32_t d = 0; d < wl->ndefs; d++) {
                hbgh_defrec *r = &m->defs[d];
                if (r->recorded) {
                    memcpy(b->pack + b->pack_bytes, r->image, r->image_bytes);
                    b->pack_bytes += r->image_bytes;
                }
            }
            st->upload_bytes = (int64_t)b->pack_bytes;
        }
        return hbgh_seg_end(m, b, HBGH_K_GRAPH_UPLOAD, b->pack_bytes, 0,
                            "defs=%llu bytes=%llu spilled=0", (unsigned long long)ndefs,
                            (unsigned long long)b->pack_bytes);
    }
    uint64_t copies = 0;
    for (uint32_t d = 0; d < wl->ndefs; d++) {
        hbgh_defrec *r = &m->defs[d];
        if (pod == HBGH_POD_CURRENT) {
            if (r->recorded) {
                if (graph_h2d(m, b, m->dev_upload, m->dev_upload_cap, r->image, r->image_bytes, 1) != 0) {
                    return -1;
                }
                ubytes += r->image_bytes;
                copies++;
            }
            continue;
        }
        for (uint32_t k = 0; k < r->nvec; k++) {
            int64_t t0 = hbgh_now();
            if (graph_h2d(m, b, m->dev_upload, m->dev_upload_cap, r->vec[k], r->vec_len[k], 1) != 0) {
                return -1;
            }
            ubytes += r->vec_len[k];
            copies++;
            if (epoch == HBGH_EPOCH_PR1870) {
                char attrs[96];
                snprintf(attrs, sizeof(attrs), "layer=%u bytes=%llu%s", k,
                         (unsigned long long)r->vec_len[k], hbgh_dev_models(m) ? " dev=model" : "");
                if (hbgh_bind_span(m, b, 4, "h2d_graph", t0, hbgh_now() - t0, attrs) != 0) {
                    return -1;
                }
            }
        }
    }
    st->upload_bytes = (int64_t)ubytes;
    if (epoch == HBGH_EPOCH_PR1870) {
        return hbgh_seg_end(m, b, HBGH_K_GRAPH_UPLOAD, ubytes, 1, "leftover=%llu bytes=%llu",
                            (unsigned long long)copies, (unsigned long long)ubytes);
    }
    return hbgh_seg_end(m, b, HBGH_K_GRAPH_UPLOAD, ubytes, 1,
                        "defs=%llu bytes=%llu submissions=%llu", (unsigned long long)ndefs,
                        (unsigned long long)ubytes, (unsigned long long)nsubs);
}
