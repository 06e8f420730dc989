/* benchfile.h - a benchmark's page read from the file its command line names. */
#ifndef RC_BENCHFILE_H
#define RC_BENCHFILE_H

#include <stdio.h>
#include <stdlib.h>

#include "util.h"

/* Appends the whole file PATH to PAGE: 0, or -1 after saying why. */
static inline int bench_read_page(rc_buf *page, const char *path)
{
    size_t n;
    char *data = rc_read_file(path, 0, &n);
    if (!data) {
        perror(path);
        return -1;
    }
    rc_buf_append(page, data, n);
    free(data);
    return 0;
}

#endif
