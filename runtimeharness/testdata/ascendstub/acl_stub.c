/*
 * acl_stub.c - a stand-in for CANN's libascendcl.so, built by
 * ascend_test.go. It implements the ACL calls the harness's ascend backend
 * makes (prototypes from acl/acl_rt.h, aclError is int, 0 = ACL_SUCCESS),
 * with host memory as "device" memory, and appends one line per call to
 * $HBGH_STUB_LOG: the call name, or "name FAIL code". The n-th
 * aclrtMemcpy fails with 507011 when $HBGH_STUB_FAIL_MEMCPY is n.
 */
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int memcpys;

static void note(const char *what)
{
    const char *path = getenv("HBGH_STUB_LOG");
    if (path == NULL) {
        return;
    }
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (fd < 0) {
        return;
    }
    char line[128];
    int n = snprintf(line, sizeof(line), "%s\n", what);
    if (write(fd, line, (size_t)n) != n) {
        /* the test sees a short log */
    }
    close(fd);
}

int aclInit(const char *config)
{
    (void)config;
    note("aclInit");
    return 0;
}

int aclFinalize(void)
{
    note("aclFinalize");
    return 0;
}

int aclrtSetDevice(int32_t id)
{
    note(id == 0 ? "aclrtSetDevice" : "aclrtSetDevice BADID");
    return 0;
}

int aclrtMalloc(void **p, size_t size, int policy)
{
    (void)policy;
    *p = malloc(size);
    note("aclrtMalloc");
    return *p == NULL ? 207001 : 0;
}

int aclrtFree(void *p)
{
    free(p);
    note("aclrtFree");
    return 0;
}

int aclrtMallocHost(void **p, size_t size)
{
    *p = malloc(size);
    note("aclrtMallocHost");
    return *p == NULL ? 207001 : 0;
}

int aclrtFreeHost(void *p)
{
    free(p);
    note("aclrtFreeHost");
    return 0;
}

int aclrtMemcpy(void *dst, size_t dst_max, const void *src, size_t count, int kind)
{
    memcpys++;
    const char *fail = getenv("HBGH_STUB_FAIL_MEMCPY");
    if (fail != NULL && atoi(fail) == memcpys) {
        note("aclrtMemcpy FAIL 507011");
        return 507011;
    }
    if (kind != 1 || count > dst_max || dst == NULL) {
        note("aclrtMemcpy BADARGS");
        return 107000;
    }
    memcpy(dst, src, count); /* a real copy: the buffers must be valid */
    note("aclrtMemcpy");
    return 0;
}
