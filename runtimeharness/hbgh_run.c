//go:build cgo

/*
 * hbgh_run.c - hbgh_run: the configuration check, the model's setup and
 * teardown, and the binds of each rank. With ranks=2 the run forks one
 * process per rank; the ranks meet at a barrier before every bind.
 */
#define _GNU_SOURCE
#include "hbgh_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int check_config(hbgh_model *m)
{
    const hbgh_config *c = &m->cfg;
    if (hbgh_workload_get(c->workload) == NULL) {
        return hbgh_fail(m, "unknown workload %d", c->workload);
    }
    if (c->mirror != HBGH_MIRROR_PER_BIND && c->mirror != HBGH_MIRROR_RETAINED) {
        return hbgh_fail(m, "unknown mirror policy %d", c->mirror);
    }
    if (c->prewarm < 0 || c->prewarm > HBGH_MAX_PREWARM) {
        return hbgh_fail(m, "prewarm %d out of range 0..%d", c->prewarm, HBGH_MAX_PREWARM);
    }
    if (c->graph_pod < HBGH_POD_CURRENT || c->graph_pod > HBGH_POD_EAGER_PINNED) {
        return hbgh_fail(m, "unknown graph_pod %d", c->graph_pod);
    }
    if (c->epoch < HBGH_EPOCH_E1 || c->epoch > HBGH_EPOCH_PR1870) {
        return hbgh_fail(m, "unknown epoch %d", c->epoch);
    }
    if (c->device != HBGH_DEV_MODEL && c->device != HBGH_DEV_ASCEND) {
        return hbgh_fail(m, "unknown device %d", c->device);
    }
    if (c->ranks != 1 && c->ranks != 2) {
        return hbgh_fail(m, "ranks=%d: want 1 or 2", c->ranks);
    }
    if (c->rounds < 1 || c->delay_ns < 0 || c->args_bytes < 0 || c->dev_call_ns < 0 ||
        c->dev_pin_ns < 0 || c->dev_dma_bytes_per_s <= 0 || c->dev_bounce_bytes <= 0 ||
        c->log_fd < 0) {
        return hbgh_fail(m, "invalid numeric setting");
    }
    struct timespec ts;
    if (clock_gettime(CLOCK_MONOTONIC, &ts) != 0 ||
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) {
        return hbgh_fail(m, "clock_gettime: %s", strerror(errno));
    }
    return 0;
}

/* pod_bound is an upper bound of one bind's Graph POD bytes: every image
 * with at most four edges per node. */
static uint64_t pod_bound(const hbgh_workload *wl)
{
    uint64_t n = 0;
    for (uint32_t d = 0; d < wl->ndefs; d++) {
        n += HBGH_DEF_HEADER + (uint64_t)wl->def_nodes[d] *
                                   (HBGH_NODE_DESC + HBGH_NODE_ARGS + 4 * HBGH_EDGE_BYTES);
    }
    return n;
}

static int setup(hbgh_model *m)
{
    int err = pthread_mutex_init(&m->mu, NULL);
    if (err != 0) {
        return hbgh_fail(m, "pthread_mutex_init: %s", strerror(err));
    }
    err = pthread_cond_init(&m->done_cv, NULL);
    if (err != 0) {
        (void)pthread_mutex_destroy(&m->mu);
        return hbgh_fail(m, "pthread_cond_init: %s", strerror(err));
    }
    m->wl = hbgh_workload_get(m->cfg.workload);
    m->pid = (int32_t)getpid();
    m->bind_tid = hbgh_gettid();
    m->main_prod.tid = m->bind_tid;
    hbgh_producer_reset(&m->main_prod);
    for (int d = 0; d < HBGH_MAX_DEFS; d++) {
        m->defs[d].recorder = -1;
    }
    if (hbgh_workload_ops(m->wl, &m->ops, &m->nops) != 0) {
        return hbgh_fail(m, "allocating the operation sequence failed");
    }
    size_t ab = m->cfg.args_bytes > 0 ? (size_t)m->cfg.args_bytes : 1;
    m->args_src = malloc(ab);
    if (m->args_src == NULL) {
        return hbgh_fail(m, "allocating %zu bytes of caller tensors failed", ab);
    }
    memset(m->args_src, 0x5a, ab);
    if (m->cfg.records_path != NULL) {
        m->records_fd = open(m->cfg.records_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
        if (m->records_fd < 0) {
            return hbgh_fail(m, "opening %s: %s", m->cfg.records_path, strerror(errno));
        }
        m->pool.recs = calloc((size_t)HBGH_POOL_BUFS * HBGH_POOL_RECS, sizeof(hbgh_rec));
        if (m->pool.recs == NULL) {
            return hbgh_fail(m, "allocating the record pool failed");
        }
        m->pool.armed = 1;
    }
    if (hbgh_dev_open(m) != 0) {
        return -1;
    }
    if (m->cfg.device != HBGH_DEV_MODEL) {
        /* One retained destination for every upload after host_orch. */
        uint64_t tasks = (uint64_t)m->wl->submit_tasks + m->wl->alloc_tensors +
                         (uint64_t)m->wl->layers * m->wl->ndefs;
        m->dev_upload_cap = HBGH_SM_HEADER + tasks * HBGH_SLOT_LIVE + HBGH_SUB_HEADER +
                            tasks * HBGH_SUB_RECORD + tasks * 128 * 4 + pod_bound(m->wl);
        if (hbgh_dev_alloc(m, m->dev_upload_cap, &m->dev_upload) != 0) {
            return -1;
        }
    }
    if (m->cfg.graph_pod == HBGH_POD_EAGER_PINNED) {
        m->pinned_cap = pod_bound(m->wl);
        void *p = NULL;
        if (hbgh_dev_host_alloc(m, m->pinned_cap, &p) != 0) {
            return -1;
        }
        m->pinned = p;
        m->dev_pod = calloc((size_t)HBGH_MAX_DEFS * m->wl->layers, sizeof(*m->dev_pod));
        if (m->dev_pod == NULL) {
            return hbgh_fail(m, "allocating the device POD table failed");
        }
    }
    return 0;
}

static void teardown(hbgh_model *m)
{
    hbgh_pool_stop(m);
    free(m->mirror);
    free(m->args_src);
    free(m->ops);
    free(m->pool.recs);
    for (int d = 0; d < HBGH_MAX_DEFS; d++) {
        hbgh_defrec_free(&m->defs[d]);
    }
    if (m->dev_pod != NULL) {
        for (size_t i = 0; i < (size_t)HBGH_MAX_DEFS * m->wl->layers; i++) {
            hbgh_dev_free(m, m->dev_pod[i]);
        }
        free(m->dev_pod);
    }
    hbgh_dev_free(m, m->dev_upload);
    hbgh_dev_host_free(m, m->pinned);
    hbgh_dev_close(m);
    if (m->records_fd >= 0 && close(m->records_fd) != 0) {
        hbgh_fail(m, "closing %s: %s", m->cfg.records_path, strerror(errno));
    }
    (void)pthread_cond_destroy(&m->done_cv);
    (void)pthread_mutex_destroy(&m->mu);

    /* A joined thread can linger in /proc for a moment after pthread_join
     * returns; give each up to 200 ms before counting it as left. */
    int32_t left = 0;
    for (int32_t i = 0; i < m->ntids; i++) {
        int tries = 0;
        while (hbgh_task_exists(m->tids[i]) && tries++ < 200) {
            struct timespec d = {0, 1000000};
            (void)nanosleep(&d, NULL);
        }
        if (hbgh_task_exists(m->tids[i])) {
            left++;
        }
    }
    m->out->threads_left = left;
    m->out->threads_created = m->threads_created;
    free(m->tids);
}

/* ---- ranks ---- */

/* A rank_sync is shared by the ranks of one run (MAP_SHARED): a barrier
 * between binds, as the ranks of one L3 run meet every round, so that
 * every rank's pass k is written before any rank's pass k+1. */
/* The rank results follow it in the same mapping: its size is a multiple
 * of 16 (the alignment of its first member) so that they stay aligned. */
typedef struct rank_sync {
    _Alignas(16) atomic_int arrived; /* binds started, summed over the ranks */
    atomic_int abort;
    atomic_int led;     /* binds of rank 0 whose first segment has begun */
    atomic_flag burst;  /* held while a rank writes its burst of phase lines
                         * (hbgh_rank_burst) */
} rank_sync;

_Static_assert(sizeof(rank_sync) % 8 == 0, "rank results after rank_sync must stay 8-byte aligned");

/* rank_wait sleeps in 20 us steps until *v reaches want, or fails when the
 * other rank has failed. */
static int rank_wait(hbgh_model *m, rank_sync *rs, atomic_int *v, int want)
{
    while (atomic_load(v) < want) {
        if (atomic_load(&rs->abort)) {
            m->out->aborted = 1;
            return hbgh_fail(m, "stopped: the other rank failed");
        }
        struct timespec d = {0, 20000};
        (void)nanosleep(&d, NULL);
    }
    return 0;
}

/* rank_stagger makes rank 1 begin its bind 200 us after rank 0 began the
 * first segment of its own. Without it the barrier releases both ranks in
 * the same few microseconds, and since forked ranks write the same
 * [T0x...] the bind that contains a pass's segments and starts closest to
 * them (DESIGN 3) could be the other rank's: real ranks are never in
 * lockstep, and the log's attribution rule relies on that. Waiting for
 * the first segment, not the bind's start, holds under load too: rank 0's
 * pass then starts before rank 1's bind, which cannot contain it, however
 * long rank 0 was descheduled between the two. */
static int rank_stagger(hbgh_model *m, rank_sync *rs, int32_t round)
{
    if (rs == NULL || m->rank == 0) {
        return 0;
    }
    if (rank_wait(m, rs, &rs->led, round + 1) != 0) {
        return -1;
    }
    struct timespec d = {0, 200000};
    (void)nanosleep(&d, NULL);
    return 0;
}

static int rank_barrier(hbgh_model *m, rank_sync *rs, int32_t round)
{
    if (rs == NULL) {
        return 0;
    }
    atomic_fetch_add(&rs->arrived, 1);
    return rank_wait(m, rs, &rs->arrived, m->cfg.ranks * (round + 1));
}

/* run_rank runs every bind of one rank (one process) and releases all. */
static int run_rank(hbgh_model *m, hbgh_bind_stats *binds, rank_sync *rs)
{
    const hbgh_config *cfg = &m->cfg;
    hbgh_result *out = m->out;
    hbgh_rank_burst = rs != NULL ? &rs->burst : NULL;
    hbgh_rank_led = rs != NULL ? &rs->led : NULL;
    int rc = setup(m);
    if (rc == 0) {
        rc = hbgh_log_anchor(m);
    }
    if (rc == 0) {
        rc = hbgh_pool_start(m);
    }
    if (rc == 0) {
        out->recorders_seen = hbgh_count_named_threads("hbgh-rec");
    }
    for (int32_t i = 0; rc == 0 && i < cfg->rounds; i++) {
        rc = rank_barrier(m, rs, i);
        if (rc == 0) {
            rc = rank_stagger(m, rs, i);
        }
        if (rc != 0) {
            break;
        }
        hbgh_bind_stats local;
        hbgh_bind_stats *st = binds != NULL ? &binds[i] : &local;
        rc = hbgh_run_bind(m, st);
        if (rc == 0) {
            out->binds_done++;
        }
    }
    if (rc != 0 && rs != NULL) {
        atomic_store(&rs->abort, 1);
    }
    teardown(m);
    return rc == 0 && out->error[0] == '\0' ? 0 : -1;
}

static hbgh_model *new_model(const hbgh_config *cfg, hbgh_result *out)
{
    hbgh_model *m = calloc(1, sizeof(*m));
    if (m == NULL) {
        snprintf(out->error, sizeof(out->error), "allocating the model failed");
        return NULL;
    }
    m->cfg = *cfg;
    m->out = out;
    m->records_fd = -1;
    return m;
}

static int write_stamp(hbgh_model *m)
{
    const hbgh_config *cfg = &m->cfg;
    if (cfg->stamp == NULL) {
        return 0;
    }
    size_t n = strlen(cfg->stamp);
    char *line = malloc(n + 2);
    if (line == NULL) {
        return hbgh_fail(m, "allocating the stamp line failed");
    }
    memcpy(line, cfg->stamp, n);
    line[n] = '\n';
    int rc = 0;
    if (hbgh_write_all(cfg->log_fd, line, n + 1) != 0) {
        int err = errno;
        m->out->log_errno = err;
        rc = hbgh_fail(m, "writing the log: %s", strerror(err));
    }
    free(line);
    return rc;
}

/* close_inherited closes every descriptor a rank inherited except the
 * standard ones and the log: a rank must not keep the read end of its own
 * log pipe open (its writes would then block instead of failing with EPIPE
 * when the reader goes away), nor anything else of the parent's. */
static void close_inherited(int keep)
{
    int fds[1024];
    int n = 0;
    DIR *d = opendir("/proc/self/fd");
    if (d == NULL) {
        return;
    }
    int dfd = dirfd(d);
    struct dirent *e;
    while ((e = readdir(d)) != NULL && n < (int)(sizeof(fds) / sizeof(fds[0]))) {
        int fd = atoi(e->d_name);
        if (e->d_name[0] >= '0' && e->d_name[0] <= '9' && fd > 2 && fd != keep && fd != dfd) {
            fds[n++] = fd;
        }
    }
    (void)closedir(d);
    for (int i = 0; i < n; i++) {
        (void)close(fds[i]);
    }
}

/*
 * run_ranks forks one process per rank, as simpler's L3 forks its ranks:
 * each has its own pid, anchor, recorder threads and inv counter, and
 * writes to the same log descriptor. Results come back through shared
 * memory; the parent waits for both.
 */
static int run_ranks(hbgh_model *m)
{
    const hbgh_config *cfg = &m->cfg;
    hbgh_result *out = m->out;
    int32_t ranks = cfg->ranks;
    size_t nb = (size_t)cfg->rounds;
    size_t bytes = sizeof(rank_sync) + (size_t)ranks * (sizeof(hbgh_result) + nb * sizeof(hbgh_bind_stats));
    void *shm = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (shm == MAP_FAILED) {
        return hbgh_fail(m, "mmap of the rank results: %s", strerror(errno));
    }
    memset(shm, 0, bytes);
    rank_sync *rs = shm;
    hbgh_result *res = (hbgh_result *)(void *)((char *)shm + sizeof(rank_sync));
    hbgh_bind_stats *stats = (hbgh_bind_stats *)(void *)(res + ranks);
    pid_t pids[2] = {-1, -1};
    int rc = 0;
    for (int32_t r = 0; r < ranks; r++) {
        pid_t pid = fork();
        if (pid < 0) {
            atomic_store(&rs->abort, 1);
            rc = hbgh_fail(m, "fork: %s", strerror(errno));
            break;
        }
        if (pid == 0) {
            /* The child runs C only, then _exit: no Go code runs here. A
             * reader that went away gives EPIPE, not a signal. */
            (void)signal(SIGPIPE, SIG_IGN);
            close_inherited(cfg->log_fd);
            hbgh_model *cm = new_model(cfg, &res[r]);
            int crc = -1;
            if (cm != NULL) {
                cm->rank = r;
                crc = run_rank(cm, cfg->keep_stats ? stats + (size_t)r * nb : NULL, rs);
                free(cm);
            }
            res[r].pid = (int32_t)getpid();
            _exit(crc == 0 ? 0 : 1);
        }
        pids[r] = pid;
        out->rank_pids[r] = (int32_t)pid;
    }
    int status[2] = {0, 0};
    for (int32_t r = 0; r < ranks; r++) {
        if (pids[r] < 0) {
            continue;
        }
        pid_t w;
        do {
            w = waitpid(pids[r], &status[r], 0);
        } while (w < 0 && errno == EINTR);
        if (w < 0) {
            rc = hbgh_fail(m, "waitpid: %s", strerror(errno));
            pids[r] = -1;
        }
    }
    /* Report the rank that failed for a reason of its own before one that
     * only stopped because the other did (hbgh_fail keeps the first). */
    for (int pass = 0; pass < 2; pass++) {
        for (int32_t r = 0; r < ranks; r++) {
            if (pids[r] < 0 || (WIFEXITED(status[r]) && WEXITSTATUS(status[r]) == 0)) {
                continue;
            }
            int follower = res[r].error[0] == '\0' || res[r].aborted;
            if (follower != pass) {
                continue;
            }
            if (res[r].error[0] != '\0') {
                rc = hbgh_fail(m, "rank %d: %s", r, res[r].error);
            } else {
                rc = hbgh_fail(m, "rank %d exited with status %d", r, status[r]);
            }
            if (res[r].log_errno != 0 && out->log_errno == 0) {
                out->log_errno = res[r].log_errno;
            }
            if (res[r].dev_error != 0 && out->dev_error == 0) {
                out->dev_error = res[r].dev_error;
            }
        }
    }
    out->binds_done = 0;
    for (int32_t r = 0; r < ranks; r++) {
        out->binds_done += res[r].binds_done;
        out->threads_created += res[r].threads_created;
        out->threads_left += res[r].threads_left;
        out->recorders_seen += res[r].recorders_seen;
        if (cfg->keep_stats && out->binds != NULL) {
            memcpy(out->binds + (size_t)r * nb, stats + (size_t)r * nb, nb * sizeof(*stats));
        }
    }
    if (munmap(shm, bytes) != 0 && rc == 0) {
        rc = hbgh_fail(m, "munmap: %s", strerror(errno));
    }
    return rc;
}

int hbgh_run(const hbgh_config *cfg, hbgh_result *out)
{
    out->binds_done = 0;
    out->threads_created = 0;
    out->threads_left = 0;
    out->recorders_seen = 0;
    out->error[0] = '\0';
    out->log_errno = 0;
    out->dev_error = 0;
    out->aborted = 0;
    out->rank_pids[0] = out->rank_pids[1] = 0;
    hbgh_model *m = new_model(cfg, out);
    if (m == NULL) {
        return -1;
    }
    out->pid = (int32_t)getpid();
    out->bind_tid = hbgh_gettid();
    if (check_config(m) != 0) {
        free(m);
        return -1;
    }
    int rc = write_stamp(m);
    if (rc == 0 && cfg->ranks > 1) {
        rc = run_ranks(m);
    } else if (rc == 0) {
        rc = run_rank(m, cfg->keep_stats ? out->binds : NULL, NULL);
    }
    free(m);
    return rc == 0 && out->error[0] == '\0' ? 0 : -1;
}
