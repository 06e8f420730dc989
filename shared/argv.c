/* argv.c - see argv.h. */
#include "argv.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

void rc_argv_init(rc_argv *a)
{
    memset(a, 0, sizeof *a);
}

void rc_argv_reset(rc_argv *a)
{
    for (int i = 0; i < a->n; i++)
        free(a->v[i]);
    a->n = 0;
}

void rc_argv_release(rc_argv *a)
{
    rc_argv_reset(a);
    free(a->v);
    free(a->len);
    rc_argv_init(a);
}

void rc_argv_addn(rc_argv *a, const char *s, size_t n)
{
    if (a->n == a->cap) {
        a->cap = a->cap ? a->cap * 2 : 16;
        a->v = rc_xrealloc(a->v, (size_t)a->cap * sizeof(char *));
        a->len = rc_xrealloc(a->len, (size_t)a->cap * sizeof(size_t));
    }
    a->v[a->n] = rc_xstrndup(s, n);
    a->len[a->n] = n;
    a->n++;
}

void rc_argv_add(rc_argv *a, const char *s)
{
    rc_argv_addn(a, s, strlen(s));
}

void rc_argv_addi(rc_argv *a, int64_t x)
{
    char b[24];
    int n = snprintf(b, sizeof b, "%" PRId64, x);
    rc_argv_addn(a, b, (size_t)n);
}

void rc_argv_addu(rc_argv *a, uint64_t x)
{
    char b[24];
    int n = snprintf(b, sizeof b, "%" PRIu64, x);
    rc_argv_addn(a, b, (size_t)n);
}

void rc_argv_setn(rc_argv *a, int i, const char *s, size_t n)
{
    while (a->n <= i)
        rc_argv_addn(a, "", 0);
    free(a->v[i]);
    a->v[i] = rc_xstrndup(s, n);
    a->len[i] = n;
}

void rc_argv_set(rc_argv *a, int i, const char *s)
{
    rc_argv_setn(a, i, s, strlen(s));
}

void rc_argv_seti(rc_argv *a, int i, int64_t x)
{
    char b[24];
    int n = snprintf(b, sizeof b, "%" PRId64, x);
    rc_argv_setn(a, i, b, (size_t)n);
}

void rc_argv_setu(rc_argv *a, int i, uint64_t x)
{
    char b[24];
    int n = snprintf(b, sizeof b, "%" PRIu64, x);
    rc_argv_setn(a, i, b, (size_t)n);
}
