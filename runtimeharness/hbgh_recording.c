//go:build cgo

/*
 * hbgh_recording.c - the recordings a recorder thread makes: a Definition's
 * nodes (hazard-map insert and lookup, edges, growing containers), its
 * image, and the binding of every later submission's boundary tensors and
 * Graph POD. The recorder that owns a recording is the only thread that
 * touches it until the commit (hbgh_recorder.c).
 */
#define _GNU_SOURCE
#include "hbgh_internal.h"

#include <stdlib.h>
#include <string.h>

/* ---- growing containers ---- */

static int grow(void **ptr, uint32_t *cap, uint32_t need, size_t elem)
{
    if (need <= *cap) {
        return 0;
    }
    uint32_t c = *cap ? *cap : 16;
    while (c < need) {
        c *= 2;
    }
    void *p = realloc(*ptr, (size_t)c * elem);
    if (p == NULL) {
        return -1;
    }
    *ptr = p;
    *cap = c;
    return 0;
}

static uint32_t hmap_slot(const hbgh_hmap *h, uint64_t key)
{
    uint64_t x = key * 0x9E3779B97F4A7C15ull;
    return (uint32_t)(x >> 32) & (h->cap - 1);
}

static int hmap_put(hbgh_hmap *h, uint64_t key, uint32_t val);

static int hmap_grow(hbgh_hmap *h)
{
    uint32_t ncap = h->cap ? h->cap * 2 : 64;
    hbgh_hmap n = {.cap = ncap};
    n.keys = calloc(ncap, sizeof(*n.keys));
    n.vals = calloc(ncap, sizeof(*n.vals));
    if (n.keys == NULL || n.vals == NULL) {
        free(n.keys);
        free(n.vals);
        return -1;
    }
    for (uint32_t i = 0; i < h->cap; i++) {
        if (h->keys[i] != 0) {
            (void)hmap_put(&n, h->keys[i], h->vals[i]);
        }
    }
    free(h->keys);
    free(h->vals);
    *h = n;
    return 0;
}

static int hmap_put(hbgh_hmap *h, uint64_t key, uint32_t val)
{
    if ((h->len + 1) * 2 > h->cap && hmap_grow(h) != 0) {
        return -1;
    }
    uint32_t i = hmap_slot(h, key);
    while (h->keys[i] != 0 && h->keys[i] != key) {
        i = (i + 1) & (h->cap - 1);
    }
    if (h->keys[i] == 0) {
        h->keys[i] = key;
        h->len++;
    }
    h->vals[i] = val;
    return 0;
}

static int hmap_get(const hbgh_hmap *h, uint64_t key, uint32_t *val)
{
    if (h->cap == 0) {
        return 0;
    }
    uint32_t i = hmap_slot(h, key);
    while (h->keys[i] != 0) {
        if (h->keys[i] == key) {
            *val = h->vals[i];
            return 1;
        }
        i = (i + 1) & (h->cap - 1);
    }
    return 0;
}

void hbgh_defrec_free(hbgh_defrec *d)
{
    for (uint32_t i = 0; i < d->nvec; i++) {
        free(d->vec[i]);
    }
    free(d->vec);
    free(d->vec_len);
    free(d->pin_off);
    free(d->nodes);
    free(d->edges);
    free(d->binds);
    free(d->haz.keys);
    free(d->haz.vals);
    free(d->image);
    memset(d, 0, sizeof(*d));
    d->recorder = -1;
}

/* ---- the recording work ---- */

#define BOUNDARY_BASE 0x100000000ull
#define NODE_OUT_BASE 0x200000000ull
#define EXTERNAL UINT32_MAX

/* hbgh_record_definition records Definition def on recorder r: its nodes
 * (hazard map, edges), then its image. 0, or -1 on an allocation failure. */
int hbgh_record_definition(hbgh_model *m, hbgh_recorder *r, int32_t def)
{
    const hbgh_workload *wl = m->wl;
    hbgh_defrec *d = &m->defs[def];
    uint64_t seed = wl->hid ^ (0x9E3779B97F4A7C15ull * (uint64_t)(def + 1));
    uint32_t nodes = wl->def_nodes[def];
    uint64_t produced = 0;

    /* Boundary tensors are known to the recording from the start. */
    for (uint32_t i = 0; i < wl->sub_tensors; i++) {
        if (hmap_put(&d->haz, BOUNDARY_BASE + i, EXTERNAL) != 0) {
            return -1;
        }
    }
    for (uint32_t i = 0; i < nodes; i++) {
        int64_t t0 = hbgh_now();
        if (grow((void **)&d->nodes, &d->ncap, d->nn + 1, sizeof(*d->nodes)) != 0) {
            return -1;
        }
        hbgh_node *n = &d->nodes[d->nn];
        memset(n, 0, sizeof(*n));
        n->kernel = (uint32_t)(hbgh_rand(&seed) % 64);
        n->n_in = 1 + (uint32_t)(hbgh_rand(&seed) % 4);
        n->n_out = 1 + (hbgh_rand(&seed) % 4 == 0);
        n->edge_begin = d->ne;
        uint64_t ops = 0;
        for (uint32_t k = 0; k < n->n_in; k++) {
            uint64_t x = hbgh_rand(&seed);
            if (produced == 0 || x % 10 < 3) {
                n->in[k] = BOUNDARY_BASE + (wl->sub_tensors ? (x >> 8) % wl->sub_tensors : 0);
            } else {
                n->in[k] = NODE_OUT_BASE + (x >> 8) % produced;
            }
            uint32_t writer;
            ops++;
            if (hmap_get(&d->haz, n->in[k], &writer) && writer != EXTERNAL) {
                if (grow((void **)&d->edges, &d->ecap, d->ne + 1, sizeof(*d->edges)) != 0) {
                    return -1;
                }
                d->edges[d->ne++] = writer;
                n->edge_count++;
            }
        }
        for (uint32_t k = 0; k < n->n_out; k++) {
            n->out[k] = NODE_OUT_BASE + produced++;
            ops++;
            if (hmap_put(&d->haz, n->out[k], d->nn) != 0) {
                return -1;
            }
        }
        /* The recording is laid out in the recorder's arena: node i of
         * nodes writes its record to each page of its share of it, so one
         * recording writes every page once (first touches on a recorder
         * created in this bind; docs/harness.md "Recorder threads"). */
        uint32_t pages = HBGH_REC_ARENA_BYTES / HBGH_PAGE_BYTES;
        for (uint32_t pg = (uint32_t)((uint64_t)pages * i / nodes);
             pg < (uint32_t)((uint64_t)pages * (i + 1) / nodes); pg++) {
            memcpy(r->arena + (size_t)pg * HBGH_PAGE_BYTES, n, sizeof(*n));
        }
        d->nn++;
        hbgh_record(&m->pool, &r->prod, HBGH_K_RECORD_NODE, t0, hbgh_now(), ops);
        if (!r->started) {
            hbgh_pool_started(m, r);
        }
    }

    /* Build the Definition image: header, node descriptors with their
     * kernel argument blobs, then the edge list. */
    int64_t t0 = hbgh_now();
    uint64_t bytes = HBGH_DEF_HEADER + (uint64_t)d->nn * (HBGH_NODE_DESC + HBGH_NODE_ARGS) +
                     (uint64_t)d->ne * HBGH_EDGE_BYTES;
    uint8_t *img = malloc(bytes);
    if (img == NULL) {
        return -1;
    }
    memset(img, 0, HBGH_DEF_HEADER);
    uint64_t hdr[4] = {0x4842474445460001ull, d->nn, d->ne, wl->hid};
    memcpy(img, hdr, sizeof(hdr));
    uint8_t *p = img + HBGH_DEF_HEADER;
    uint64_t sum = 0xcbf29ce484222325ull;
    for (uint32_t i = 0; i < d->nn; i++) {
        const hbgh_node *n = &d->nodes[i];
        memcpy(p, n, sizeof(*n) < HBGH_NODE_DESC ? sizeof(*n) : HBGH_NODE_DESC);
        if (sizeof(*n) < HBGH_NODE_DESC) {
            memset(p + sizeof(*n), 0, HBGH_NODE_DESC - sizeof(*n));
        }
        memset(p + HBGH_NODE_DESC, (int)(n->kernel + i), HBGH_NODE_ARGS);
        memcpy(p + HBGH_NODE_DESC, &n->in[0], sizeof(n->in[0]));
        sum = (sum ^ (n->kernel + ((uint64_t)n->edge_count << 8))) * 0x100000001b3ull;
        p += HBGH_NODE_DESC + HBGH_NODE_ARGS;
    }
    for (uint32_t i = 0; i < d->ne; i++) {
        uint64_t e = d->edges[i];
        memcpy(p, &e, HBGH_EDGE_BYTES);
        p += HBGH_EDGE_BYTES;
    }
    d->image = img;
    d->image_bytes = bytes;
    d->checksum = sum;
    d->recorded = 1;
    hbgh_record(&m->pool, &r->prod, HBGH_K_BUILD_DEFINITION, t0, hbgh_now(), d->nn);
    return 0;
}

/* hbgh_bind_submission binds submission sub of Definition def: its
 * boundary tensors, and its Graph POD unless graph_pod=current. 0, or -1 on
 * an allocation failure. */
int hbgh_bind_submission(hbgh_model *m, int32_t def, int32_t sub)
{
    const hbgh_workload *wl = m->wl;
    hbgh_defrec *d = &m->defs[def];
    for (uint32_t i = 0; i < wl->sub_tensors; i++) {
        uint32_t writer = 0;
        if (!hmap_get(&d->haz, BOUNDARY_BASE + i, &writer)) {
            return -1;
        }
        if (grow((void **)&d->binds, &d->bcap, d->nb + 1, sizeof(*d->binds)) != 0) {
            return -1;
        }
        d->binds[d->nb++] = ((uint64_t)sub << 32) | i;
    }
    if (m->cfg.graph_pod != HBGH_POD_CURRENT) {
        /* This submission's Graph POD: its piece of the Definition image,
         * in a zero-filled vector of its own (deferred_pageable) or in the
         * retained pinned arena, bump-allocated (eager_pinned). */
        uint32_t k = d->subs;
        if (k >= d->vcap) {
            uint32_t c = d->vcap ? d->vcap * 2 : wl->layers;
            uint8_t **v = realloc(d->vec, (size_t)c * sizeof(*v));
            if (v == NULL) {
                return -1;
            }
            d->vec = v;
            uint64_t *l = realloc(d->vec_len, (size_t)c * sizeof(*l));
            if (l == NULL) {
                return -1;
            }
            d->vec_len = l;
            uint64_t *o = realloc(d->pin_off, (size_t)c * sizeof(*o));
            if (o == NULL) {
                return -1;
            }
            d->pin_off = o;
            d->vcap = c;
        }
        uint64_t off, len;
        hbgh_pod_slice(d->image_bytes, k, wl->layers, &off, &len);
        d->vec_len[k] = len;
        d->vec[k] = NULL;
        d->pin_off[k] = 0;
        if (m->cfg.graph_pod == HBGH_POD_DEFERRED_PAGEABLE) {
            uint8_t *v = calloc(1, len ? len : 1);
            if (v == NULL) {
                return -1;
            }
            memcpy(v, d->image + off, len);
            d->vec[k] = v;
        } else {
            uint64_t at = atomic_fetch_add(&m->pinned_off, len);
            if (at + len > m->pinned_cap) {
                return -1;
            }
            memcpy(m->pinned + at, d->image + off, len);
            d->pin_off[k] = at;
        }
        d->nvec = k + 1;
    }
    d->subs++;
    return 0;
}
