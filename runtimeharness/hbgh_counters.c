//go:build cgo

/*
 * hbgh_counters.c - clocks and the readings that need no model: the
 * monotonic and thread CPU clocks, mallinfo2, /proc/self/statm and
 * /proc/self/task. A segment's snapshot (getrusage of the process and the
 * thread, and the recorders' CPU time) is taken in hbgh_segment.c.
 */
#define _GNU_SOURCE
#include "hbgh_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
#define HBGH_HAVE_MALLINFO2 1
#endif

/*
 * CLOCK_MONOTONIC and CLOCK_THREAD_CPUTIME_ID are checked once in hbgh_run
 * (hbgh_clocks_ok); on Linux they cannot fail afterwards, so the hot paths
 * below do not test the return value again.
 */
int64_t hbgh_now(void)
{
    struct timespec ts;
    (void)clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t hbgh_thread_cpu(void)
{
    struct timespec ts;
    (void)clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int32_t hbgh_gettid(void)
{
    return (int32_t)syscall(SYS_gettid);
}

void hbgh_busy_wait(int64_t ns)
{
    if (ns <= 0) {
        return;
    }
    int64_t end = hbgh_now() + ns;
    while (hbgh_now() < end) {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#elif defined(__aarch64__)
        __asm__ __volatile__("yield");
#endif
    }
}

int64_t hbgh_hblkhd(void)
{
#ifdef HBGH_HAVE_MALLINFO2
    struct mallinfo2 mi = mallinfo2();
    return (int64_t)mi.hblkhd;
#else
    return -1;
#endif
}

int64_t hbgh_heap_bytes(void)
{
#ifdef HBGH_HAVE_MALLINFO2
    struct mallinfo2 mi = mallinfo2();
    return (int64_t)(mi.uordblks + mi.hblkhd);
#else
    return -1;
#endif
}

int64_t hbgh_rss_bytes(void)
{
    char buf[128];
    int fd = open("/proc/self/statm", O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        return -1;
    }
    ssize_t n;
    do {
        n = read(fd, buf, sizeof(buf) - 1);
    } while (n < 0 && errno == EINTR);
    if (close(fd) != 0 || n <= 0) {
        return -1;
    }
    buf[n] = '\0';
    unsigned long long size = 0, resident = 0;
    if (sscanf(buf, "%llu %llu", &size, &resident) != 2) {
        return -1;
    }
    long page = sysconf(_SC_PAGESIZE);
    if (page <= 0) {
        return -1;
    }
    return (int64_t)resident * page;
}

int hbgh_task_exists(int32_t tid)
{
    char path[64];
    struct stat st;
    snprintf(path, sizeof(path), "/proc/self/task/%d", (int)tid);
    return stat(path, &st) == 0;
}

int32_t hbgh_count_named_threads(const char *prefix)
{
    DIR *d = opendir("/proc/self/task");
    if (d == NULL) {
        return -1;
    }
    int32_t n = 0;
    size_t plen = strlen(prefix);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9') {
            continue;
        }
        char path[300];
        char comm[64];
        snprintf(path, sizeof(path), "/proc/self/task/%s/comm", e->d_name);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) {
            continue; /* the thread exited while we looked */
        }
        ssize_t r = read(fd, comm, sizeof(comm) - 1);
        (void)close(fd);
        if (r > 0) {
            comm[r] = '\0';
            if (strncmp(comm, prefix, plen) == 0) {
                n++;
            }
        }
    }
    if (closedir(d) != 0) {
        return -1;
    }
    return n;
}
