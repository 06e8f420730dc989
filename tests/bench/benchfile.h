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

/* The page a bench runs on: the file argv[1] names, if any. 1 when read into PAGE, 0 when no
 * file was given (the bench builds its own), -1 after saying why it could not be read. */
static inline int bench_page_arg(rc_buf *page, int argc, char **argv)
{
    if (argc < 2)
        return 0;
    return bench_read_page(page, argv[1]) < 0 ? -1 : 1;
}

#endif
