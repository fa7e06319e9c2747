//go:build cgo

/*
 * hbgh_fail.c - the error path every translation unit of the model shares.
 * It depends on nothing but the model's result, so no file has to call
 * into another's to report an error.
 */
#include "hbgh_internal.h"

#include <stdio.h>

int hbgh_fail(hbgh_model *m, const char *fmt, ...)
{
    if (m->out->error[0] == '\0') {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(m->out->error, sizeof(m->out->error), fmt, ap);
        va_end(ap);
    }
    return -1;
}
