//go:build cgo

/*
 * hbgh_recorder.c - the recorder thread pool; the recordings themselves are
 * in hbgh_recording.c.
 *
 * Each Definition submitted in a bind is recorded by one recorder thread,
 * which owns that recording until the commit: it records the Definition's
 * nodes (hazard-map insert and lookup, edges, growing containers), builds
 * the Definition image, and binds every later submission's boundary tensors.
 * `prewarm` threads are created when the model starts; when a bind needs
 * more recordings than free threads, the submitting thread creates one with
 * pthread_create in the middle of its burst, and that thread is joined at
 * the commit. The submission that hands a created thread its first job
 * waits until the thread has written its first record: so the created
 * lane's first record always starts inside the gap or the submission that
 * closes it, however loaded the machine; the thread goes on with the
 * recording only once that submission's record is written. Every recorder
 * owns a recording arena (HBGH_REC_ARENA_BYTES, its own mmap) that each
 * recording writes to page by page; a prewarmed thread first-touches it
 * when the model starts, a created one during its first recording, after
 * the submission that created it: real page faults that make a cold
 * recorder's recording finish late, which the commit waits for
 * (docs/harness.md "Recorder threads").
 *
 * pthread_mutex_unlock, pthread_cond_wait/signal/broadcast and
 * pthread_cond_destroy can only fail on an invalid or unowned object, which
 * would be a bug here; their results are deliberately ignored. Every call
 * that can fail at run time (create, join, lock, allocations) is checked.
 */
#define _GNU_SOURCE
#include "hbgh_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* ---- the pool ---- */

static void *recorder_main(void *arg)
{
    hbgh_recorder *r = arg;
    hbgh_model *m = r->m;
    /* Thread names are how tests find leftover threads; a failure to name
     * the thread is harmless for the model itself. */
    (void)pthread_setname_np(pthread_self(), "hbgh-rec");
    r->prod.tid = hbgh_gettid();
    if (!r->overflow) {
        /* Prewarm: first-touch the recording arena before the first bind. */
        for (uint32_t off = 0; off < HBGH_REC_ARENA_BYTES; off += HBGH_PAGE_BYTES) {
            r->arena[off] = 1;
        }
    }
    atomic_store(&r->cpu_ns, hbgh_thread_cpu());
    if (pthread_mutex_lock(&m->mu) != 0) {
        abort();
    }
    atomic_store(&r->tid, r->prod.tid);
    (void)pthread_cond_broadcast(&m->done_cv);
    for (;;) {
        while (!r->stop && r->qlen == 0) {
            (void)pthread_cond_wait(&r->cv, &m->mu);
        }
        if (r->qlen == 0) {
            break; /* stop requested and nothing left */
        }
        hbgh_job job = r->q[r->qhead];
        r->qhead = (r->qhead + 1) % r->qcap;
        r->qlen--;
        (void)pthread_mutex_unlock(&m->mu);

        int rc;
        if (job.type == HBGH_JOB_RECORD) {
            rc = hbgh_record_definition(m, r, job.def);
        } else {
            rc = hbgh_bind_submission(m, job.def, job.sub);
        }
        atomic_store(&r->cpu_ns, hbgh_thread_cpu());

        if (pthread_mutex_lock(&m->mu) != 0) {
            abort();
        }
        if (rc != 0) {
            m->failed = 1;
        }
        if (job.type == HBGH_JOB_BIND) {
            m->defs[job.def].bound++;
        }
        if (--m->pending == 0 || m->waiters > 0) {
            (void)pthread_cond_broadcast(&m->done_cv);
        }
    }
    m->retired_cpu_ns += hbgh_thread_cpu();
    atomic_store(&r->cpu_ns, 0);
    r->exited = 1;
    (void)pthread_mutex_unlock(&m->mu);
    return NULL;
}

static int note_tid(hbgh_model *m, int32_t tid)
{
    if (m->ntids == m->tids_cap) {
        int32_t c = m->tids_cap ? m->tids_cap * 2 : 32;
        int32_t *t = realloc(m->tids, (size_t)c * sizeof(*t));
        if (t == NULL) {
            return hbgh_fail(m, "allocating the thread list failed");
        }
        m->tids = t;
        m->tids_cap = c;
    }
    m->tids[m->ntids++] = tid;
    return 0;
}

/* spawn creates one recorder thread; the caller holds no lock. */
static hbgh_recorder *spawn(hbgh_model *m, int32_t overflow)
{
    if (m->nrec >= HBGH_MAX_RECORDERS) {
        hbgh_fail(m, "more than %d recorder threads", HBGH_MAX_RECORDERS);
        return NULL;
    }
    hbgh_recorder *r = calloc(1, sizeof(*r));
    if (r == NULL) {
        hbgh_fail(m, "allocating a recorder failed");
        return NULL;
    }
    r->m = m;
    r->index = m->nrec;
    r->overflow = overflow;
    r->qcap = (int32_t)(m->wl->layers * 2 + 4);
    r->q = calloc((size_t)r->qcap, sizeof(*r->q));
    if (r->q == NULL) {
        free(r);
        hbgh_fail(m, "allocating a recorder queue failed");
        return NULL;
    }
    hbgh_producer_reset(&r->prod);
    /* A fresh mapping: no page of it is resident until written. Huge
     * pages are refused so that the first touch costs a fault per page
     * whatever the THP mode (a failed madvise only changes that cost). */
    void *arena = mmap(NULL, HBGH_REC_ARENA_BYTES, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (arena == MAP_FAILED) {
        int e = errno;
        free(r->q);
        free(r);
        hbgh_fail(m, "mmap of a %u-byte recording arena: %s", HBGH_REC_ARENA_BYTES, strerror(e));
        return NULL;
    }
    (void)madvise(arena, HBGH_REC_ARENA_BYTES, MADV_NOHUGEPAGE);
    r->arena = arena;
    int err = pthread_cond_init(&r->cv, NULL);
    if (err != 0) {
        (void)munmap(r->arena, HBGH_REC_ARENA_BYTES);
        free(r->q);
        free(r);
        hbgh_fail(m, "pthread_cond_init: %s", strerror(err));
        return NULL;
    }
    err = pthread_create(&r->thread, NULL, recorder_main, r);
    if (err != 0) {
        (void)pthread_cond_destroy(&r->cv);
        (void)munmap(r->arena, HBGH_REC_ARENA_BYTES);
        free(r->q);
        free(r);
        hbgh_fail(m, "pthread_create: %s", strerror(err));
        return NULL;
    }
    m->rec[m->nrec++] = r;
    m->threads_created++;
    return r;
}

/* join stops recorder r, waits for it and releases it. */
static int join(hbgh_model *m, hbgh_recorder *r)
{
    if (pthread_mutex_lock(&m->mu) != 0) {
        return hbgh_fail(m, "pthread_mutex_lock failed");
    }
    /* Its tid is needed for the leak check; wait until it has started. */
    while (atomic_load(&r->tid) == 0) {
        (void)pthread_cond_wait(&m->done_cv, &m->mu);
    }
    r->stop = 1;
    (void)pthread_cond_signal(&r->cv);
    (void)pthread_mutex_unlock(&m->mu);
    int err = pthread_join(r->thread, NULL);
    if (err != 0) {
        return hbgh_fail(m, "pthread_join: %s", strerror(err));
    }
    int rc = note_tid(m, atomic_load(&r->tid));
    (void)pthread_cond_destroy(&r->cv);
    (void)munmap(r->arena, HBGH_REC_ARENA_BYTES);
    free(r->q);
    free(r);
    return rc;
}

int hbgh_pool_start(hbgh_model *m)
{
    for (int32_t i = 0; i < m->cfg.prewarm; i++) {
        if (spawn(m, 0) == NULL) {
            return -1;
        }
    }
    /* Wait until every prewarmed thread runs (and carries its name). */
    if (pthread_mutex_lock(&m->mu) != 0) {
        return hbgh_fail(m, "pthread_mutex_lock failed");
    }
    for (int32_t i = 0; i < m->nrec; i++) {
        while (atomic_load(&m->rec[i]->tid) == 0) {
            (void)pthread_cond_wait(&m->done_cv, &m->mu);
        }
    }
    (void)pthread_mutex_unlock(&m->mu);
    return 0;
}

int hbgh_pool_acquire(hbgh_model *m, int32_t def, hbgh_bind_stats *st)
{
    hbgh_defrec *d = &m->defs[def];
    if (d->recorder >= 0) {
        return 0;
    }
    for (int32_t i = 0; i < m->nrec; i++) {
        if (!m->rec[i]->busy) {
            m->rec[i]->busy = 1;
            d->recorder = i;
            return 0;
        }
    }
    int64_t t0 = hbgh_now();
    hbgh_recorder *r = spawn(m, 1);
    int64_t t1 = hbgh_now();
    if (r == NULL) {
        return -1;
    }
    r->busy = 1;
    d->recorder = r->index;
    st->threads_created++;
    if (st->creates_kept < HBGH_MAX_CREATES) {
        st->create_start_ns[st->creates_kept] = t0;
        st->create_end_ns[st->creates_kept] = t1;
        st->creates_kept++;
    }
    return 0;
}

static int enqueue(hbgh_model *m, hbgh_recorder *r, hbgh_job job)
{
    if (r->qlen == r->qcap) {
        return hbgh_fail(m, "recorder queue overflow");
    }
    r->q[(r->qhead + r->qlen) % r->qcap] = job;
    r->qlen++;
    m->pending++;
    return 0;
}

int hbgh_pool_submit(hbgh_model *m, int32_t def, int32_t sub, int32_t first)
{
    hbgh_recorder *r = m->rec[m->defs[def].recorder];
    if (pthread_mutex_lock(&m->mu) != 0) {
        return hbgh_fail(m, "pthread_mutex_lock failed");
    }
    int rc = 0;
    if (first) {
        rc = enqueue(m, r, (hbgh_job){.type = HBGH_JOB_RECORD, .def = def, .sub = sub});
    }
    if (rc == 0) {
        rc = enqueue(m, r, (hbgh_job){.type = HBGH_JOB_BIND, .def = def, .sub = sub});
    }
    (void)pthread_cond_signal(&r->cv);
    (void)pthread_mutex_unlock(&m->mu);
    return rc;
}

int hbgh_pool_commit(hbgh_model *m)
{
    if (pthread_mutex_lock(&m->mu) != 0) {
        return hbgh_fail(m, "pthread_mutex_lock failed");
    }
    while (m->pending > 0) {
        (void)pthread_cond_wait(&m->done_cv, &m->mu);
    }
    int failed = m->failed;
    (void)pthread_mutex_unlock(&m->mu);
    if (failed) {
        return hbgh_fail(m, "a recorder thread ran out of memory");
    }
    /* Collect the recorders' aggregates of this pass; then threads created
     * mid-burst are joined and the prewarmed ones stay. */
    int rc = 0;
    int32_t keep = 0;
    for (int32_t i = 0; i < m->nrec; i++) {
        hbgh_recorder *r = m->rec[i];
        for (int k = 0; k < HBGH_NORCH; k++) {
            m->pass_orch[k].count += r->prod.orch[k].count;
            m->pass_orch[k].total_ns += r->prod.orch[k].total_ns;
            m->pass_orch[k].detail_sum += r->prod.orch[k].detail_sum;
            m->pass_orch[k].dropped += r->prod.orch[k].dropped;
        }
        hbgh_producer_reset(&r->prod);
        if (r->overflow) {
            if (join(m, r) != 0) {
                rc = -1;
            }
        } else {
            r->busy = 0;
            r->index = keep;
            m->rec[keep++] = r;
        }
    }
    m->nrec = keep;
    return rc;
}

int hbgh_pool_wait_bound(hbgh_model *m, int32_t def, uint32_t n)
{
    if (pthread_mutex_lock(&m->mu) != 0) {
        return hbgh_fail(m, "pthread_mutex_lock failed");
    }
    m->waiters++;
    while (m->defs[def].bound < n && !m->failed) {
        (void)pthread_cond_wait(&m->done_cv, &m->mu);
    }
    m->waiters--;
    int failed = m->failed;
    (void)pthread_mutex_unlock(&m->mu);
    if (failed) {
        return hbgh_fail(m, "a recorder thread failed (out of memory or pinned arena)");
    }
    return 0;
}

int hbgh_pool_wait_started(hbgh_model *m, int32_t def)
{
    hbgh_recorder *r = m->rec[m->defs[def].recorder];
    if (pthread_mutex_lock(&m->mu) != 0) {
        return hbgh_fail(m, "pthread_mutex_lock failed");
    }
    while (!r->started && !m->failed) {
        (void)pthread_cond_wait(&m->done_cv, &m->mu);
    }
    int failed = m->failed;
    (void)pthread_mutex_unlock(&m->mu);
    if (failed) {
        return hbgh_fail(m, "a recorder thread failed (out of memory)");
    }
    return 0;
}

void hbgh_pool_started(hbgh_model *m, hbgh_recorder *r)
{
    if (pthread_mutex_lock(&m->mu) != 0) {
        abort();
    }
    r->started = 1;
    (void)pthread_cond_broadcast(&m->done_cv);
    while (r->overflow && !r->released) {
        (void)pthread_cond_wait(&r->cv, &m->mu);
    }
    (void)pthread_mutex_unlock(&m->mu);
}

void hbgh_pool_release(hbgh_model *m, int32_t def)
{
    hbgh_recorder *r = m->rec[m->defs[def].recorder];
    if (pthread_mutex_lock(&m->mu) != 0) {
        abort();
    }
    r->released = 1;
    (void)pthread_cond_signal(&r->cv);
    (void)pthread_mutex_unlock(&m->mu);
}

void hbgh_pool_drain(hbgh_model *m)
{
    if (pthread_mutex_lock(&m->mu) != 0) {
        return;
    }
    while (m->pending > 0) {
        (void)pthread_cond_wait(&m->done_cv, &m->mu);
    }
    (void)pthread_mutex_unlock(&m->mu);
}

void hbgh_pool_stop(hbgh_model *m)
{
    for (int32_t i = 0; i < m->nrec; i++) {
        (void)join(m, m->rec[i]);
    }
    m->nrec = 0;
}

int64_t hbgh_pool_cpu(hbgh_model *m)
{
    if (pthread_mutex_lock(&m->mu) != 0) {
        return 0;
    }
    int64_t sum = m->retired_cpu_ns;
    for (int32_t i = 0; i < m->nrec; i++) {
        sum += atomic_load(&m->rec[i]->cpu_ns);
    }
    (void)pthread_mutex_unlock(&m->mu);
    return sum;
}
