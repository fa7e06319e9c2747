//go:build cgo

/*
 * hbgh_device.c - the device backend.
 *
 * model (default): every call busy-waits for its modelled duration, so the
 * calling thread's CPU time stays faithful to a synchronous driver call.
 * Constants come from the config (docs/harness.md): a driver call costs
 * dev_call_ns; a pageable copy goes through bounce chunks of
 * dev_bounce_bytes, each pinned for dev_pin_ns; bytes move at
 * dev_dma_bytes_per_s; a pinned host allocation pins every chunk once.
 * Device pointers are tokens that are never dereferenced.
 *
 * ascend: ACL loaded with dlopen from cfg->ascend_lib (the Go side derives
 * it from ASCEND_HOME_PATH), so one binary builds everywhere. aclInit and
 * aclrtSetDevice(0) when the model opens the device, aclFinalize when it
 * closes; aclrtMalloc/aclrtFree for device buffers, aclrtMallocHost/
 * aclrtFreeHost for the pinned arena, aclrtMemcpy(HOST_TO_DEVICE) for every
 * upload. A failing call fails the bind with its aclError.
 */
#define _GNU_SOURCE
#include "hbgh_internal.h"

#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>

#define ACL_MEM_MALLOC_HUGE_FIRST 0
#define ACL_MEMCPY_HOST_TO_DEVICE 1

static int64_t transfer_ns(const hbgh_config *c, uint64_t bytes)
{
    if (c->dev_dma_bytes_per_s <= 0) {
        return 0;
    }
    unsigned __int128 ns = (unsigned __int128)bytes * 1000000000u;
    return (int64_t)(ns / (uint64_t)c->dev_dma_bytes_per_s);
}

static uint64_t chunks(const hbgh_config *c, uint64_t bytes)
{
    return (bytes + (uint64_t)c->dev_bounce_bytes - 1) / (uint64_t)c->dev_bounce_bytes;
}

int hbgh_dev_models(const hbgh_model *m)
{
    return m->cfg.device == HBGH_DEV_MODEL;
}

static int acl_fail(hbgh_model *m, const char *call, int err)
{
    if (m->out->dev_error == 0) {
        m->out->dev_error = err;
    }
    return hbgh_fail(m, "%s failed: ACL error %d", call, err);
}

int hbgh_dev_open(hbgh_model *m)
{
    if (m->cfg.device != HBGH_DEV_ASCEND) {
        return 0;
    }
    hbgh_acl *a = &m->acl;
    const char *path = m->cfg.ascend_lib;
    if (path == NULL || path[0] == '\0') {
        return hbgh_fail(m, "device ascend: no libascendcl.so (set ASCEND_HOME_PATH)");
    }
    a->lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (a->lib == NULL) {
        const char *why = dlerror();
        return hbgh_fail(m, "device ascend: loading %s (from ASCEND_HOME_PATH): %s", path,
                         why ? why : "unknown error");
    }
    struct {
        const char *name;
        void **dst;
    } syms[] = {
        {"aclInit", (void **)&a->init},
        {"aclFinalize", (void **)&a->finalize},
        {"aclrtSetDevice", (void **)&a->set_device},
        {"aclrtMalloc", (void **)&a->malloc_dev},
        {"aclrtFree", (void **)&a->free_dev},
        {"aclrtMallocHost", (void **)&a->malloc_host},
        {"aclrtFreeHost", (void **)&a->free_host},
        {"aclrtMemcpy", (void **)&a->memcpy_},
    };
    for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
        *syms[i].dst = dlsym(a->lib, syms[i].name);
        if (*syms[i].dst == NULL) {
            return hbgh_fail(m, "device ascend: %s has no %s", path, syms[i].name);
        }
    }
    int err = a->init(NULL);
    if (err != 0) {
        return acl_fail(m, "aclInit", err);
    }
    a->inited = 1;
    err = a->set_device(0);
    if (err != 0) {
        return acl_fail(m, "aclrtSetDevice(0)", err);
    }
    a->device_set = 1;
    return 0;
}

void hbgh_dev_close(hbgh_model *m)
{
    hbgh_acl *a = &m->acl;
    if (a->inited) {
        int err = a->finalize();
        if (err != 0) {
            (void)acl_fail(m, "aclFinalize", err);
        }
        a->inited = 0;
    }
    if (a->lib != NULL) {
        (void)dlclose(a->lib);
        a->lib = NULL;
    }
}

int hbgh_dev_alloc(hbgh_model *m, uint64_t bytes, void **dptr)
{
    if (m->cfg.device == HBGH_DEV_ASCEND) {
        int err = m->acl.malloc_dev(dptr, (size_t)bytes, ACL_MEM_MALLOC_HUGE_FIRST);
        if (err != 0) {
            *dptr = NULL;
            return acl_fail(m, "aclrtMalloc", err);
        }
        return 0;
    }
    hbgh_busy_wait(m->cfg.dev_call_ns);
    *dptr = (void *)(uintptr_t)(++m->dev_tokens);
    return 0;
}

void hbgh_dev_free(hbgh_model *m, void *dptr)
{
    if (dptr == NULL) {
        return;
    }
    if (m->cfg.device == HBGH_DEV_ASCEND) {
        int err = m->acl.free_dev(dptr);
        if (err != 0) {
            (void)acl_fail(m, "aclrtFree", err);
        }
    }
}

int hbgh_dev_host_alloc(hbgh_model *m, uint64_t bytes, void **hptr)
{
    if (m->cfg.device == HBGH_DEV_ASCEND) {
        int err = m->acl.malloc_host(hptr, (size_t)bytes);
        if (err != 0) {
            *hptr = NULL;
            return acl_fail(m, "aclrtMallocHost", err);
        }
        return 0;
    }
    /* Page-locked host memory: real memory, modelled pinning. */
    *hptr = malloc(bytes ? bytes : 1);
    if (*hptr == NULL) {
        return hbgh_fail(m, "allocating %llu bytes of pinned host memory failed",
                         (unsigned long long)bytes);
    }
    hbgh_busy_wait(m->cfg.dev_call_ns + (int64_t)chunks(&m->cfg, bytes) * m->cfg.dev_pin_ns);
    return 0;
}

void hbgh_dev_host_free(hbgh_model *m, void *hptr)
{
    if (hptr == NULL) {
        return;
    }
    if (m->cfg.device == HBGH_DEV_ASCEND) {
        int err = m->acl.free_host(hptr);
        if (err != 0) {
            (void)acl_fail(m, "aclrtFreeHost", err);
        }
        return;
    }
    free(hptr);
}

int hbgh_dev_h2d(hbgh_model *m, void *dst, uint64_t dst_cap, const void *src, uint64_t bytes,
                 int32_t pageable)
{
    if (m->cfg.device == HBGH_DEV_ASCEND) {
        int err = m->acl.memcpy_(dst, (size_t)dst_cap, src, (size_t)bytes,
                                 ACL_MEMCPY_HOST_TO_DEVICE);
        if (err != 0) {
            return acl_fail(m, "aclrtMemcpy", err);
        }
        return 0;
    }
    const hbgh_config *c = &m->cfg;
    int64_t ns = c->dev_call_ns + transfer_ns(c, bytes);
    if (pageable) {
        ns += (int64_t)chunks(c, bytes) * c->dev_pin_ns;
    }
    hbgh_busy_wait(ns);
    return 0;
}
