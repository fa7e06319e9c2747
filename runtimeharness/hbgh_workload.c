//go:build cgo

/*
 * hbgh_workload.c - the workload presets and the host operation sequence of
 * one bind. Sizes come from simpler's published measurements (HARNESS.md);
 * the order of operations within a layer is the model's own choice.
 */
#include "hbgh_internal.h"

#include <stdlib.h>

static const hbgh_workload workloads[HBGH_WL_COUNT] = {
    [HBGH_WL_DSV4_PAIR] = {
        .name = "dsv4-pair",
        .submit_tasks = 839,
        .alloc_tensors = 272,
        .ndefs = 1,
        .def_nodes = {743},
        .layers = 20,
        .arg_tensors = 118,
        .sub_tensors = 118,
        .sub_scalars = 31,
        .hid = 0x5e0d7c9b3a214f68ull,
    },
    [HBGH_WL_QWEN3_14B_DECODE] = {
        .name = "qwen3-14b-decode",
        .submit_tasks = 5,
        .alloc_tensors = 2,
        .ndefs = 1,
        .def_nodes = {277},
        .layers = 40,
        .arg_tensors = 26,
        .sub_tensors = 26,
        .sub_scalars = 0,
        .hid = 0x9c1e4f03a2b7d655ull,
    },
    [HBGH_WL_DSV4_BLOCKS7] = {
        .name = "dsv4-blocks7",
        .submit_tasks = 18,
        .alloc_tensors = 6,
        .ndefs = 7,
        .def_nodes = {107, 106, 106, 106, 106, 106, 106},
        .layers = 15,
        .arg_tensors = 118,
        .sub_tensors = 24,
        .sub_scalars = 5,
        .hid = 0x7b3f0a51c2d94e86ull,
    },
};

const hbgh_workload *hbgh_workload_get(int32_t id)
{
    if (id < 0 || id >= HBGH_WL_COUNT) {
        return NULL;
    }
    return &workloads[id];
}

/* share returns the part of total that falls to layer l of n (even split). */
static uint32_t share(uint32_t total, uint32_t l, uint32_t n)
{
    return (uint32_t)(((uint64_t)total * (l + 1)) / n - ((uint64_t)total * l) / n);
}

int hbgh_workload_ops(const hbgh_workload *wl, hbgh_op **ops, int32_t *nops)
{
    uint64_t total = (uint64_t)wl->submit_tasks + wl->alloc_tensors +
                     (uint64_t)wl->layers * wl->ndefs + wl->layers;
    hbgh_op *o = calloc(total, sizeof(*o));
    if (o == NULL) {
        return -1;
    }
    uint64_t k = 0;
    for (uint32_t l = 0; l < wl->layers; l++) {
        uint32_t na = share(wl->alloc_tensors, l, wl->layers);
        uint32_t ns = share(wl->submit_tasks, l, wl->layers);
        for (uint32_t i = 0; i < na; i++) {
            o[k++] = (hbgh_op){.type = HBGH_OP_ALLOC, .def = -1};
        }
        for (uint32_t i = 0; i < ns; i++) {
            o[k++] = (hbgh_op){.type = HBGH_OP_SUBMIT, .def = -1};
        }
        /* The layer's Graph submissions come back to back: the burst.
         * The bind walks its Definitions in order, each one's `layers`
         * submissions together (a model of DSv4's layers, walked in
         * order, as seven blocks), so Graph submission s of the bind is
         * of Definition s / layers: Definition d is first submitted at
         * s = d * layers, and the last Definitions come into the bind
         * late (docs/harness.md "Workloads"). */
        for (uint32_t d = 0; d < wl->ndefs; d++) {
            uint32_t s = l * wl->ndefs + d;
            o[k++] = (hbgh_op){.type = HBGH_OP_GRAPH, .def = (int32_t)(s / wl->layers)};
        }
        o[k++] = (hbgh_op){.type = HBGH_OP_SCOPE_END, .def = -1};
    }
    *ops = o;
    *nops = (int32_t)k;
    return 0;
}
