//go:build cgo

/*
 * hbgh_records.c - the host_phase_records producers. Every thread that
 * records (the bind thread, each recorder) is a producer: it claims whole
 * buffers of the pool (HBGH_POOL_BUFS x HBGH_POOL_RECS) with an atomic
 * counter and fills them without a lock. hbgh_log.c writes the pool out.
 */
#include "hbgh_internal.h"

#include <string.h>

/* hbgh_producer_reset empties a producer before a pass. */
void hbgh_producer_reset(hbgh_producer *p)
{
    p->buf = -1;
    p->n = 0;
    memset(p->orch, 0, sizeof(p->orch));
}

/* hbgh_record counts a record in the producer's host-orch aggregates and,
 * with the pool armed, stores it in the producer's claimed buffer, claiming
 * the next one when it is full; once the pool is exhausted the record is
 * counted as dropped. */
void hbgh_record(hbgh_pool *pool, hbgh_producer *p, int32_t kind, int64_t start_ns,
                 int64_t end_ns, uint64_t detail)
{
    hbgh_orch_stats *o = kind >= HBGH_NSEG ? &p->orch[kind - HBGH_NSEG] : NULL;
    if (o != NULL) {
        o->count++;
        o->total_ns += end_ns - start_ns;
        o->detail_sum += detail;
    }
    if (!pool->armed) {
        return;
    }
    if (p->buf == -1 || (p->buf >= 0 && p->n == HBGH_POOL_RECS)) {
        int b = atomic_fetch_add(&pool->next, 1);
        if (b >= HBGH_POOL_BUFS) {
            p->buf = -2;
        } else {
            p->buf = b;
            p->n = 0;
        }
    }
    if (p->buf == -2) {
        atomic_fetch_add(&pool->dropped, 1);
        if (o != NULL) {
            o->dropped++;
        }
        return;
    }
    hbgh_rec *r = &pool->recs[(size_t)p->buf * HBGH_POOL_RECS + (size_t)p->n];
    r->start_ns = start_ns;
    r->end_ns = end_ns;
    r->detail = detail;
    r->tid = p->tid;
    r->kind = kind;
    p->n++;
    pool->count[p->buf] = p->n;
}
