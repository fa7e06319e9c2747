//go:build cgo

/*
 * hbgh_log.c - the runtime's log text: the record envelope, the clock
 * anchor, [STRACE] spans, field encoding, and host_phase_records.jsonl.
 * Every record is one write(2), like HostLogger::emit.
 */
#define _GNU_SOURCE
#include "hbgh_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

const char *const hbgh_kind_names[HBGH_NKIND] = {
    "args", "arena_build", "static_arena", "gm_heap", "shared_mem", "runtime_init",
    "host_orch", "graph_upload", "relocate", "sm_h2d", "arena_h2d", "host_view_close",
    "submit_task", "alloc_tensors", "record_node", "graph_submit", "build_definition",
};

const char *hbgh_kind_name(const hbgh_model *m, int kind)
{
    if (m->cfg.epoch == HBGH_EPOCH_E3) {
        if (kind == HBGH_K_GRAPH_UPLOAD) {
            return "graph_pack";
        }
        if (kind == HBGH_K_RECORD_NODE) {
            return "record_sub_task";
        }
    }
    return hbgh_kind_names[kind];
}

const char *hbgh_span_prefix(const hbgh_model *m)
{
    return m->cfg.epoch == HBGH_EPOCH_PR1870 ? "simpler_run" : "chip.run";
}

int hbgh_write_all(int fd, const char *buf, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, buf, len);
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            return -1;
        }
        buf += n;
        len -= (size_t)n;
    }
    return 0;
}

static int format_record(char *buf, size_t cap, const char *func, const char *fmt, va_list ap)
{
    int pre = snprintf(buf, cap, "[mono_ns=%lld][T0x%lx][TIMING] %s: ", (long long)hbgh_now(),
                       (unsigned long)pthread_self(), func);
    if (pre < 0) {
        return -1;
    }
    size_t off = (size_t)pre < cap ? (size_t)pre : cap;
    int msg = vsnprintf(buf + off, cap - off, fmt, ap);
    if (msg < 0) {
        return -1;
    }
    return pre + msg;
}

int hbgh_log(hbgh_model *m, const char *func, const char *fmt, ...)
{
    char stack[2048];
    char *buf = stack;
    va_list ap;
    va_start(ap, fmt);
    int len = format_record(stack, sizeof(stack) - 1, func, fmt, ap);
    va_end(ap);
    if (len < 0) {
        return hbgh_fail(m, "formatting a log record failed");
    }
    if ((size_t)len >= sizeof(stack) - 1) {
        /* Longer records are heap-formatted, still one write. */
        buf = malloc((size_t)len + 2);
        if (buf == NULL) {
            return hbgh_fail(m, "allocating a %d-byte log record failed", len);
        }
        va_start(ap, fmt);
        len = format_record(buf, (size_t)len + 1, func, fmt, ap);
        va_end(ap);
        if (len < 0) {
            free(buf);
            return hbgh_fail(m, "formatting a log record failed");
        }
    }
    if (len == 0 || buf[len - 1] != '\n') {
        buf[len++] = '\n';
    }
    int rc = hbgh_write_all(m->cfg.log_fd, buf, (size_t)len);
    int err = errno;
    if (buf != stack) {
        free(buf);
    }
    if (rc != 0) {
        m->out->log_errno = err;
        return hbgh_fail(m, "writing the log: %s", strerror(err));
    }
    return 0;
}

/* The process that has written its anchor; one [CLOCK_ANCHOR] per process. */
static atomic_int anchor_pid;

int hbgh_log_anchor(hbgh_model *m)
{
    int pid = (int)getpid();
    if (m->cfg.epoch == HBGH_EPOCH_E3) {
        return 0; /* upstream 04c88e9 removed the anchor */
    }
    if (atomic_exchange(&anchor_pid, pid) == pid) {
        return 0;
    }
    struct timespec wall;
    int64_t mono = hbgh_now();
    if (clock_gettime(CLOCK_REALTIME, &wall) != 0) {
        return hbgh_fail(m, "clock_gettime(CLOCK_REALTIME): %s", strerror(errno));
    }
    int64_t wall_ns = (int64_t)wall.tv_sec * 1000000000 + wall.tv_nsec;
    return hbgh_log(m, "clock_anchor", "[CLOCK_ANCHOR] v=1 pid=%d mono_ns=%lld wall_ns=%lld", pid,
                    (long long)mono, (long long)wall_ns);
}

static int safe_byte(unsigned char c, int attributes)
{
    if (c < 0x20 || c > 0x7e || c == '%' || c == '[' || c == ']') {
        return 0;
    }
    if (!attributes && (c == ' ' || c == '=')) {
        return 0;
    }
    return 1;
}

/*
 * hbgh_encode_field percent-encodes in into out (capacity cap, plus a NUL)
 * by the rules of REFERENCE §1.2.2: unsafe bytes become %XX, and a value
 * that does not fit is cut at a whole unit and marked with '~'.
 */
size_t hbgh_encode_field(const char *in, char *out, size_t cap, int attributes)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t n = 0;
    size_t last_unit = 0;
    int truncated = 0;
    for (const unsigned char *p = (const unsigned char *)in; *p != '\0'; p++) {
        size_t unit = safe_byte(*p, attributes) ? 1 : 3;
        if (n + unit > cap) {
            truncated = 1;
            break;
        }
        if (unit == 1) {
            out[n] = (char)*p;
        } else {
            out[n] = '%';
            out[n + 1] = hex[*p >> 4];
            out[n + 2] = hex[*p & 0xf];
        }
        n += unit;
        last_unit = unit;
    }
    if (truncated && cap > 0) {
        if (n == cap) {
            n -= last_unit;
        }
        out[n++] = '~';
    }
    out[n] = '\0';
    return n;
}

int hbgh_log_span(hbgh_model *m, uint64_t inv, int32_t depth, const char *name, int64_t ts,
                  int64_t dur, const char *attrs)
{
    char ename[64 + 1];
    char eattrs[192 + 1];
    hbgh_encode_field(name, ename, 64, 0);
    hbgh_encode_field(attrs, eattrs, 192, 1);
    return hbgh_log(m, "emit_host_span",
                    "[STRACE] v=1 pid=%d tid=%d inv=%llu hid=%llx depth=%d name=%s ts=%lld dur=%lld %s",
                    m->pid, m->bind_tid, (unsigned long long)inv, (unsigned long long)m->wl->hid,
                    depth, ename, (long long)ts, (long long)dur, eattrs);
}

static int cmp_rec(const void *a, const void *b)
{
    const hbgh_rec *x = *(const hbgh_rec *const *)a;
    const hbgh_rec *y = *(const hbgh_rec *const *)b;
    if (x->start_ns != y->start_ns) {
        return x->start_ns < y->start_ns ? -1 : 1;
    }
    /* Stable across buffers: storage order is claim order. */
    return x < y ? -1 : (x > y ? 1 : 0);
}

int hbgh_write_records(hbgh_model *m, uint64_t inv)
{
    hbgh_pool *pool = &m->pool;
    if (!pool->armed || m->records_fd < 0) {
        return 0;
    }
    int nb = atomic_load(&pool->next);
    if (nb > HBGH_POOL_BUFS) {
        nb = HBGH_POOL_BUFS;
    }
    size_t total = 0;
    for (int b = 0; b < nb; b++) {
        total += (size_t)pool->count[b];
    }
    long long dropped = atomic_load(&pool->dropped);
    if (total == 0 && dropped == 0) {
        return 0;
    }
    const hbgh_rec **idx = malloc((total > 0 ? total : 1) * sizeof(*idx));
    size_t cap = 256 + total * 200;
    char *buf = malloc(cap);
    if (idx == NULL || buf == NULL) {
        free(idx);
        free(buf);
        return hbgh_fail(m, "allocating the records of one pass failed");
    }
    size_t k = 0;
    for (int b = 0; b < nb; b++) {
        for (int32_t i = 0; i < pool->count[b]; i++) {
            idx[k++] = &pool->recs[(size_t)b * HBGH_POOL_RECS + (size_t)i];
        }
    }
    qsort(idx, total, sizeof(*idx), cmp_rec);
    /* Each record fits in 200 bytes (the longest phase name and 20-digit
     * numbers); the checks below keep that an assumption, not a risk. */
    size_t n = 0;
    int w = snprintf(buf, cap,
                     "{\"pid\": %d, \"inv\": %llu, \"clock\": \"host_monotonic_ns\", "
                     "\"dropped\": %lld, \"records\": [",
                     m->pid, (unsigned long long)inv, dropped);
    for (size_t i = 0; w >= 0 && (size_t)w < cap - n && i < total; i++) {
        n += (size_t)w;
        const hbgh_rec *r = idx[i];
        w = snprintf(buf + n, cap - n,
                     "%s{\"phase\": \"%s\", \"start_ns\": %lld, \"end_ns\": %lld, "
                     "\"detail\": %llu, \"tid\": %d}",
                     i == 0 ? "" : ", ", hbgh_kind_name(m, r->kind), (long long)r->start_ns,
                     (long long)r->end_ns, (unsigned long long)r->detail, r->tid);
    }
    if (w >= 0 && (size_t)w < cap - n) {
        n += (size_t)w;
        w = snprintf(buf + n, cap - n, "]}\n");
    }
    if (w >= 0 && (size_t)w < cap - n) {
        n += (size_t)w;
    } else {
        n = cap;
    }
    int rc = 0;
    if (n >= cap) {
        rc = hbgh_fail(m, "host_phase_records line overflowed its buffer");
    } else if (hbgh_write_all(m->records_fd, buf, n) != 0) {
        rc = hbgh_fail(m, "writing host_phase_records.jsonl: %s", strerror(errno));
    }
    free(idx);
    free(buf);
    return rc;
}
