//go:build cgo

/*
 * hbgh_orch.c - host_orch: the workload's operations in order. Each task's
 * descriptor is written into its SM mirror slot (init-on-write), inputs are
 * looked up in the tensormap of the host arena for the fanin, tensor
 * descriptors are carved from the arena, scopes are closed, and Graph
 * submissions are handed to the recorder pool; the commit waits for every
 * recording.
 */
#define _GNU_SOURCE
#include "hbgh_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CALLER_BASE 1ull
#define PRODUCED_BASE (1ull << 20)
#define RING 64u

/* ---- tensormap (host arena) ---- */

typedef struct tmap_entry {
    uint64_t key;
    uint32_t task;
    uint32_t pad;
} tmap_entry;

static tmap_entry *tmap(hbgh_bind *b)
{
    return (tmap_entry *)(void *)(b->arena + HBGH_TMAP_OFF);
}

static uint32_t tmap_slot(uint64_t key)
{
    return (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> 40) & (HBGH_TMAP_CAP - 1);
}

static void tmap_put(hbgh_bind *b, uint64_t key, uint32_t task)
{
    tmap_entry *t = tmap(b);
    uint32_t i = tmap_slot(key);
    while (t[i].key != 0 && t[i].key != key) {
        i = (i + 1) & (HBGH_TMAP_CAP - 1);
    }
    t[i].key = key;
    t[i].task = task;
}

static int tmap_get(hbgh_bind *b, uint64_t key, uint32_t *task)
{
    const tmap_entry *t = tmap(b);
    uint32_t i = tmap_slot(key);
    while (t[i].key != 0) {
        if (t[i].key == key) {
            *task = t[i].task;
            return 1;
        }
        i = (i + 1) & (HBGH_TMAP_CAP - 1);
    }
    return 0;
}

/* ---- host_orch ---- */

typedef struct slot_header {
    uint64_t task_id;
    uint32_t kind;
    uint32_t nfanin;
    uint32_t ntensor;
    uint32_t nscalar;
    uint32_t scope;
    uint32_t flags;
    uint64_t def;
    uint8_t pad[24];
} slot_header;

typedef struct orch_state {
    uint64_t seed;
    uint64_t ring[RING];
    uint32_t ringlen;
    uint64_t next_tensor;
    uint32_t scope;
    uint32_t scope_begin;
    uint32_t subs;
    int32_t first_sub[HBGH_MAX_DEFS];
    uint32_t occ[HBGH_MAX_DEFS]; /* submissions of each Definition so far */
    /* This layer's Graph submissions: Definition and occurrence. */
    int32_t layer_def[HBGH_MAX_DEFS];
    uint32_t layer_occ[HBGH_MAX_DEFS];
    uint32_t nlayer;
} orch_state;

/* slot_write initialises a task slot when it is written (init-on-write)
 * and fills the descriptor, its fanin and its tensor arguments. */
static int slot_write(hbgh_model *m, hbgh_bind *b, orch_state *os, uint32_t kind,
                      const uint32_t *fanin, uint32_t nf, const uint64_t *tens, uint32_t nt,
                      uint32_t nscal, int32_t def, uint32_t *slot_out)
{
    uint32_t slot = (uint32_t)b->tasks;
    if (slot >= HBGH_TASK_WINDOW) {
        return hbgh_fail(m, "task window of %u slots exceeded", HBGH_TASK_WINDOW);
    }
    if (sizeof(slot_header) + (uint64_t)nf * 4 + (uint64_t)nt * 8 > HBGH_SLOT_LIVE) {
        return hbgh_fail(m, "task descriptor larger than a slot");
    }
    uint8_t *p = hbgh_slot_ptr(m, slot);
    memset(p, 0, HBGH_SLOT_BYTES);
    slot_header h = {
        .task_id = HBGH_TASK_ID(slot),
        .kind = kind,
        .nfanin = nf,
        .ntensor = nt,
        .nscalar = nscal,
        .scope = os->scope,
        .def = (uint64_t)(int64_t)def,
    };
    memcpy(p, &h, sizeof(h));
    if (nf > 0) {
        memcpy(p + sizeof(h), fanin, (size_t)nf * 4);
    }
    if (nt > 0) {
        memcpy(p + sizeof(h) + (size_t)nf * 4, tens, (size_t)nt * 8);
    }
    b->tasks++;
    *slot_out = slot;
    return 0;
}

static int fanin_append(hbgh_model *m, hbgh_bind *b, uint32_t v)
{
    if (b->nfanin == b->fanin_cap) {
        uint32_t c = b->fanin_cap ? b->fanin_cap * 2 : 256;
        uint32_t *p = realloc(b->fanin, (size_t)c * sizeof(*p));
        if (p == NULL) {
            return hbgh_fail(m, "growing the fanin table failed");
        }
        b->fanin = p;
        b->fanin_cap = c;
    }
    b->fanin[b->nfanin++] = v;
    return 0;
}

static uint64_t pick_input(hbgh_model *m, orch_state *os)
{
    uint64_t x = hbgh_rand(&os->seed);
    if (os->ringlen == 0 || x % 5 == 0) {
        return CALLER_BASE + (x >> 8) % m->wl->arg_tensors;
    }
    return os->ring[(x >> 8) % os->ringlen];
}

static void ring_push(orch_state *os, uint64_t id)
{
    os->ring[os->ringlen < RING ? os->ringlen : (uint32_t)(id % RING)] = id;
    if (os->ringlen < RING) {
        os->ringlen++;
    }
}

/* lookup_inputs looks each input up in the tensormap and appends the
 * producers found to the task's fanin and the bind's fanin table. */
static int lookup_inputs(hbgh_model *m, hbgh_bind *b, const uint64_t *in, uint32_t nin,
                         uint32_t *fanin, uint32_t *nf)
{
    *nf = 0;
    for (uint32_t i = 0; i < nin; i++) {
        uint32_t task;
        if (tmap_get(b, in[i], &task)) {
            fanin[(*nf)++] = task;
            if (fanin_append(m, b, task) != 0) {
                return -1;
            }
        }
    }
    return 0;
}

static int op_alloc(hbgh_model *m, hbgh_bind *b, orch_state *os)
{
    int64_t t0 = hbgh_now();
    uint64_t tens[3];
    uint32_t n = 1 + (uint32_t)(hbgh_rand(&os->seed) % 3);
    uint32_t slot = (uint32_t)b->tasks;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t size = (262144 + hbgh_rand(&os->seed) % (6291456 - 262144)) & ~511ull;
        if (b->heap_used + size > HBGH_GM_HEAP_BYTES) {
            return hbgh_fail(m, "GM heap of %llu bytes exhausted", HBGH_GM_HEAP_BYTES);
        }
        if (HBGH_DESC_OFF + b->desc_off + HBGH_DESC_BYTES > HBGH_HOST_ARENA_BYTES) {
            return hbgh_fail(m, "host arena exhausted");
        }
        uint64_t id = PRODUCED_BASE + os->next_tensor++;
        uint64_t desc[HBGH_DESC_BYTES / 8] = {id, b->heap_used, size, slot};
        memcpy(b->arena + HBGH_DESC_OFF + b->desc_off, desc, sizeof(desc));
        b->desc_off += HBGH_DESC_BYTES;
        b->heap_used += size;
        tens[i] = id;
        tmap_put(b, id, slot);
        ring_push(os, id);
    }
    if (slot_write(m, b, os, HBGH_K_ALLOC_TENSORS, NULL, 0, tens, n, 0, -1, &slot) != 0) {
        return -1;
    }
    b->ntensor_args += n;
    hbgh_record(&m->pool, &m->main_prod, HBGH_K_ALLOC_TENSORS, t0, hbgh_now(), HBGH_TASK_ID(slot));
    return 0;
}

static int op_submit(hbgh_model *m, hbgh_bind *b, orch_state *os)
{
    static const uint32_t nin_dist[10] = {0, 1, 1, 2, 2, 2, 3, 3, 4, 4};
    int64_t t0 = hbgh_now();
    uint64_t tens[5];
    uint32_t fanin[4];
    uint32_t nin = nin_dist[hbgh_rand(&os->seed) % 10];
    for (uint32_t i = 0; i < nin; i++) {
        tens[i] = pick_input(m, os);
    }
    uint32_t nf;
    if (lookup_inputs(m, b, tens, nin, fanin, &nf) != 0) {
        return -1;
    }
    uint64_t out = PRODUCED_BASE + os->next_tensor++;
    tens[nin] = out;
    uint32_t nscal = hbgh_rand(&os->seed) % 4 == 0 ? 1 : 0;
    uint32_t slot;
    if (slot_write(m, b, os, HBGH_K_SUBMIT_TASK, fanin, nf, tens, nin + 1, nscal, -1, &slot) != 0) {
        return -1;
    }
    tmap_put(b, out, slot);
    ring_push(os, out);
    b->ntensor_args += nin + 1;
    b->nscalar_args += nscal;
    hbgh_record(&m->pool, &m->main_prod, HBGH_K_SUBMIT_TASK, t0, hbgh_now(), HBGH_TASK_ID(slot));
    return 0;
}

static int op_graph(hbgh_model *m, hbgh_bind *b, orch_state *os, int32_t def)
{
    const hbgh_workload *wl = m->wl;
    /* Acquiring a recorder happens before the submission itself: a thread
     * created here shows as a gap between graph_submit records. */
    int32_t created = b->st->threads_created;
    if (hbgh_pool_acquire(m, def, b->st) != 0) {
        return -1;
    }
    created = b->st->threads_created != created;
    int64_t t0 = hbgh_now();
    uint64_t tens[128];
    uint32_t fanin[128];
    uint32_t nin = wl->sub_tensors;
    if (nin + 2 > 128) {
        return hbgh_fail(m, "too many boundary tensors");
    }
    for (uint32_t i = 0; i < nin; i++) {
        tens[i] = pick_input(m, os);
    }
    uint32_t nf;
    if (lookup_inputs(m, b, tens, nin, fanin, &nf) != 0) {
        return -1;
    }
    tens[nin] = PRODUCED_BASE + os->next_tensor++;
    tens[nin + 1] = PRODUCED_BASE + os->next_tensor++;
    uint32_t slot;
    if (slot_write(m, b, os, HBGH_K_GRAPH_SUBMIT, fanin, nf, tens, nin + 2, wl->sub_scalars, def,
                   &slot) != 0) {
        return -1;
    }
    for (uint32_t i = nin; i < nin + 2; i++) {
        tmap_put(b, tens[i], slot);
        ring_push(os, tens[i]);
    }
    uint32_t sub = os->subs++;
    uint64_t rec[HBGH_SUB_RECORD / 8] = {(uint64_t)def, HBGH_TASK_ID(slot), nin, wl->sub_scalars,
                                         tens[nin], tens[nin + 1]};
    memcpy(b->subs + HBGH_SUB_HEADER + (uint64_t)sub * HBGH_SUB_RECORD, rec, sizeof(rec));
    int32_t first = os->first_sub[def] < 0;
    if (first) {
        os->first_sub[def] = (int32_t)sub;
    }
    if (os->nlayer >= HBGH_MAX_DEFS) {
        return hbgh_fail(m, "more than %d Graph submissions in a layer", HBGH_MAX_DEFS);
    }
    os->layer_def[os->nlayer] = def;
    os->layer_occ[os->nlayer++] = os->occ[def]++;
    /* A thread created for this submission writes its first record inside
     * it, and goes on with the recording once the submission is over
     * (hbgh_recorder.c): it is released whatever happens here, a failed
     * hand-over included (its record job may be queued without its bind
     * job), or the commit's join would wait for it for ever. */
    if (hbgh_pool_submit(m, def, (int32_t)sub, first) != 0) {
        if (created && first) {
            hbgh_pool_release(m, def);
        }
        return -1;
    }
    int rc = 0;
    if (created && first) {
        rc = hbgh_pool_wait_started(m, def);
    }
    if (rc == 0) {
        b->ntensor_args += nin + 2;
        b->nscalar_args += wl->sub_scalars;
        hbgh_record(&m->pool, &m->main_prod, HBGH_K_GRAPH_SUBMIT, t0, hbgh_now(),
                    HBGH_TASK_ID(slot));
    }
    if (created && first) {
        hbgh_pool_release(m, def);
    }
    return rc;
}

static void op_scope_end(hbgh_model *m, hbgh_bind *b, orch_state *os)
{
    /* Scope bookkeeping: mark the scope's tasks as closed. */
    for (uint32_t s = os->scope_begin; s < (uint32_t)b->tasks; s++) {
        uint8_t *p = hbgh_slot_ptr(m, s) + offsetof(slot_header, flags);
        uint32_t flags = 1;
        memcpy(p, &flags, sizeof(flags));
    }
    os->scope_begin = (uint32_t)b->tasks;
    os->scope++;
}

/* hbgh_host_orch is the host_orch segment's work: the bind's operations in
 * order, each task written into the SM mirror, then the recorders' commit. */
int hbgh_host_orch(hbgh_model *m, hbgh_bind *b)
{
    const hbgh_workload *wl = m->wl;
    b->orch_start = hbgh_now();
    if (m->mirror == NULL) {
        m->mirror = malloc(HBGH_MIRROR_BYTES);
        if (m->mirror == NULL) {
            return hbgh_fail(m, "allocating the %llu-byte SM mirror failed",
                             (unsigned long long)HBGH_MIRROR_BYTES);
        }
    }
    memset(m->mirror, 0, HBGH_SM_HEADER);
    uint64_t nsubs = (uint64_t)wl->layers * wl->ndefs;
    b->subs = malloc(HBGH_SUB_HEADER + nsubs * HBGH_SUB_RECORD);
    if (b->subs == NULL) {
        return hbgh_fail(m, "allocating the submission block failed");
    }
    memset(b->subs, 0, HBGH_SUB_HEADER);

    orch_state os;
    memset(&os, 0, sizeof(os));
    os.seed = wl->hid | 1;
    for (int i = 0; i < HBGH_MAX_DEFS; i++) {
        os.first_sub[i] = -1;
    }
    if (m->cfg.epoch == HBGH_EPOCH_PR1870) {
        b->orch_setup_end = hbgh_now();
        if (hbgh_bind_span(m, b, 4, "host_orch.setup", b->orch_start,
                           b->orch_setup_end - b->orch_start, "") != 0) {
            return -1;
        }
    }
    int64_t entry = hbgh_now();
    for (int32_t i = 0; i < m->nops; i++) {
        const hbgh_op *op = &m->ops[i];
        int rc = 0;
        switch (op->type) {
        case HBGH_OP_ALLOC:
            rc = op_alloc(m, b, &os);
            break;
        case HBGH_OP_SUBMIT:
            rc = op_submit(m, b, &os);
            break;
        case HBGH_OP_GRAPH:
            rc = op_graph(m, b, &os, op->def);
            break;
        default:
            op_scope_end(m, b, &os);
            if (m->cfg.graph_pod == HBGH_POD_EAGER_PINNED) {
                rc = hbgh_eager_layer(m, b, os.scope - 1, os.layer_def, os.layer_occ, os.nlayer);
            }
            os.nlayer = 0;
            break;
        }
        if (rc != 0) {
            return -1;
        }
    }
    hbgh_busy_wait(m->cfg.delay_ns);
    if (hbgh_pool_commit(m) != 0) {
        return -1;
    }
    uint64_t hdr[4] = {0x48424753484d0001ull, b->tasks, os.subs, HBGH_TASK_WINDOW};
    memcpy(m->mirror, hdr, sizeof(hdr));
    uint64_t shdr[2] = {os.subs, HBGH_SUB_RECORD};
    memcpy(b->subs, shdr, sizeof(shdr));
    b->st->tasks = (int64_t)b->tasks;
    if (m->cfg.epoch == HBGH_EPOCH_PR1870 &&
        hbgh_bind_span(m, b, 4, "host_orch.entry", entry, hbgh_now() - entry, "") != 0) {
        return -1;
    }
    return 0;
}
