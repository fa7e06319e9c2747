//go:build cgo

/*
 * hbgh_device.c - the modelled device. Every call busy-waits for its
 * modelled duration, so the calling thread's CPU time stays faithful to a
 * synchronous driver call. Constants come from the config (docs/harness.md):
 * a driver call costs dev_call_ns; a pageable copy goes through bounce
 * chunks of dev_bounce_bytes, each pinned for dev_pin_ns; bytes move at
 * dev_dma_bytes_per_s. Real backends (ascend, cuda) will sit behind the same
 * two functions.
 */
#include "hbgh_internal.h"

static int64_t transfer_ns(const hbgh_config *c, uint64_t bytes)
{
    if (c->dev_dma_bytes_per_s <= 0) {
        return 0;
    }
    unsigned __int128 ns = (unsigned __int128)bytes * 1000000000u;
    return (int64_t)(ns / (uint64_t)c->dev_dma_bytes_per_s);
}

int64_t hbgh_dev_alloc(hbgh_model *m, uint64_t bytes)
{
    (void)bytes;
    int64_t ns = m->cfg.dev_call_ns;
    hbgh_busy_wait(ns);
    return ns;
}

int64_t hbgh_dev_h2d(hbgh_model *m, uint64_t bytes, int32_t pageable)
{
    const hbgh_config *c = &m->cfg;
    int64_t ns = c->dev_call_ns + transfer_ns(c, bytes);
    if (pageable && c->dev_bounce_bytes > 0) {
        uint64_t chunks = (bytes + (uint64_t)c->dev_bounce_bytes - 1) / (uint64_t)c->dev_bounce_bytes;
        ns += (int64_t)chunks * c->dev_pin_ns;
    }
    hbgh_busy_wait(ns);
    return ns;
}
