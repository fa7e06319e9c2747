/*
 * driver.c - a standalone driver of the C model for sanitizer builds
 * (sanitize_test.go): runs hbgh_run once with the settings of argv and
 * exits 0, or prints the model's error and exits 1.
 *
 *   driver WORKLOAD MIRROR PREWARM GRAPH_POD EPOCH RANKS ROUNDS DEVICE [RECORDS] [ASCEND_LIB]
 *
 * Every argument is the C enum value (hbgh.h); the log goes to /dev/null.
 */
#include "../../hbgh.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 9) {
        fprintf(stderr, "usage: driver WORKLOAD MIRROR PREWARM GRAPH_POD EPOCH RANKS ROUNDS DEVICE [RECORDS] [LIB]\n");
        return 2;
    }
    int fd = open("/dev/null", O_WRONLY);
    if (fd < 0) {
        perror("/dev/null");
        return 2;
    }
    hbgh_config c = {
        .workload = atoi(argv[1]),
        .mirror = atoi(argv[2]),
        .prewarm = atoi(argv[3]),
        .graph_pod = atoi(argv[4]),
        .epoch = atoi(argv[5]),
        .ranks = atoi(argv[6]),
        .rounds = atoi(argv[7]),
        .device = atoi(argv[8]),
        .delay_ns = 0,
        .args_bytes = 1 << 20,
        .dev_call_ns = 5000,
        .dev_pin_ns = 3000,
        .dev_dma_bytes_per_s = 20000000000LL,
        .dev_bounce_bytes = 2 << 20,
        .log_fd = fd,
        .keep_stats = 1,
        .stamp = "[stamp] sanitize",
        .records_path = argc > 9 && argv[9][0] ? argv[9] : NULL,
        .ascend_lib = argc > 10 ? argv[10] : NULL,
    };
    hbgh_bind_stats *binds = calloc((size_t)c.rounds * (size_t)c.ranks, sizeof(*binds));
    hbgh_result out = {.binds = binds};
    int rc = hbgh_run(&c, &out);
    free(binds);
    close(fd);
    if (rc != 0) {
        fprintf(stderr, "hbgh_run: %s\n", out.error);
        return 1;
    }
    if (out.threads_left != 0) {
        fprintf(stderr, "%d threads left\n", out.threads_left);
        return 1;
    }
    return 0;
}
