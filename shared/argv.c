/* argv.c - see argv.h. */
#include "argv.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

/* Blocks grow from 512 bytes to 64 KB (below glibc's mmap threshold: they come from the heap
 * and go back to it); an argument longer than that gets a block of its own. */
#define BLOCK_MIN 512
#define BLOCK_MAX 65536

struct rc_argv_block {
    struct rc_argv_block *next;
    size_t size, used;
    char data[];
};

void rc_argv_init(rc_argv *a)
{
    memset(a, 0, sizeof *a);
}

void rc_argv_reset(rc_argv *a)
{
    while (a->blocks) {
        struct rc_argv_block *b = a->blocks;
        a->blocks = b->next;
        free(b);
    }
    a->n = 0;
}

void rc_argv_release(rc_argv *a)
{
    rc_argv_reset(a);
    free(a->v);
    free(a->len);
    rc_argv_init(a);
}

/* A copy of s[0..n) and a NUL in the vector's blocks. */
static char *copy(rc_argv *a, const char *s, size_t n)
{
    struct rc_argv_block *b = a->blocks;
    if (!b || b->size - b->used < n + 1) {
        size_t size = b ? RC_MIN(b->size * 2, (size_t)BLOCK_MAX) : BLOCK_MIN;
        if (size < n + 1)
            size = n + 1;
        b = rc_xmalloc(sizeof *b + size);
        b->size = size;
        b->used = 0;
        b->next = a->blocks;
        a->blocks = b;
    }
    char *p = b->data + b->used;
    if (n)
        memcpy(p, s, n);
    p[n] = '\0';
    b->used += n + 1;
    return p;
}

void rc_argv_addn(rc_argv *a, const char *s, size_t n)
{
    if (a->n == a->cap) {
        a->cap = a->cap ? a->cap * 2 : 16;
        a->v = rc_xrealloc(a->v, (size_t)a->cap * sizeof(char *));
        a->len = rc_xrealloc(a->len, (size_t)a->cap * sizeof(size_t));
    }
    a->v[a->n] = copy(a, s, n);
    a->len[a->n] = n;
    a->n++;
}

void rc_argv_add(rc_argv *a, const char *s)
{
    rc_argv_addn(a, s, strlen(s));
}

/* x in decimal, written backwards to end (a buffer of 21 bytes or more): returns its first digit.
 * A page's complete carries a dozen numbers and each new link 16 hash values: snprintf for each
 * was a few percent of the worker's loop thread. */
static char *digits(uint64_t x, char *end)
{
    do {
        *--end = (char)('0' + x % 10);
        x /= 10;
    } while (x);
    return end;
}

/* x in decimal, signed, as digits() writes it. */
static char *decimal(int64_t x, char *end)
{
    char *p = digits(x < 0 ? 0 - (uint64_t)x : (uint64_t)x, end);
    if (x < 0)
        *--p = '-';
    return p;
}

void rc_argv_addi(rc_argv *a, int64_t x)
{
    char b[24];
    const char *p = decimal(x, b + sizeof b);
    rc_argv_addn(a, p, (size_t)(b + sizeof b - p));
}

void rc_argv_addu(rc_argv *a, uint64_t x)
{
    char b[24];
    const char *p = digits(x, b + sizeof b);
    rc_argv_addn(a, p, (size_t)(b + sizeof b - p));
}

void rc_argv_setn(rc_argv *a, int i, const char *s, size_t n)
{
    while (a->n <= i)
        rc_argv_addn(a, "", 0);
    a->v[i] = copy(a, s, n); /* the old copy stays in its block until reset */
    a->len[i] = n;
}

void rc_argv_set(rc_argv *a, int i, const char *s)
{
    rc_argv_setn(a, i, s, strlen(s));
}

void rc_argv_seti(rc_argv *a, int i, int64_t x)
{
    char b[24];
    const char *p = decimal(x, b + sizeof b);
    rc_argv_setn(a, i, p, (size_t)(b + sizeof b - p));
}

void rc_argv_setu(rc_argv *a, int i, uint64_t x)
{
    char b[24];
    const char *p = digits(x, b + sizeof b);
    rc_argv_setn(a, i, p, (size_t)(b + sizeof b - p));
}

/* The decimal digits of x. */
static size_t n_digits(size_t x)
{
    size_t n = 1;
    while (x >= 10) {
        x /= 10;
        n++;
    }
    return n;
}

size_t rc_argv_resp_len(const rc_argv *a, int from)
{
    size_t n = 0;
    for (int i = from; i < a->n; i++)
        n += 1 + n_digits(a->len[i]) + 2 + a->len[i] + 2;
    return n;
}

char *rc_argv_resp_bulk(char *p, const char *s, size_t n)
{
    char b[24];
    const char *d = digits(n, b + sizeof b);
    *p++ = '$';
    memcpy(p, d, (size_t)(b + sizeof b - d));
    p += b + sizeof b - d;
    *p++ = '\r';
    *p++ = '\n';
    if (n)
        memcpy(p, s, n);
    p += n;
    *p++ = '\r';
    *p++ = '\n';
    return p;
}

char *rc_argv_resp_put(const rc_argv *a, int from, char *p)
{
    for (int i = from; i < a->n; i++)
        p = rc_argv_resp_bulk(p, a->v[i], a->len[i]);
    return p;
}

void rc_argv_pack(const rc_argv *a, rc_argv_packed *out)
{
    out->len = rc_argv_resp_len(a, 0);
    out->first = out->len - rc_argv_resp_len(a, 1);
    out->n = a->n;
    out->data = rc_xmalloc(out->len + 1);
    rc_argv_resp_put(a, 0, out->data);
}

void rc_argv_packed_release(rc_argv_packed *p)
{
    free(p->data);
    memset(p, 0, sizeof *p);
}

void rc_argv_unpack(const rc_argv_packed *p, int from, rc_argv *a)
{
    const char *s = p->data, *end = p->data + p->len;
    for (int i = 0; i < p->n && s < end; i++) {
        char *eol;
        size_t n = strtoull(s + 1, &eol, 10);
        s = eol + 2;
        if (i >= from)
            rc_argv_addn(a, s, n);
        s += n + 2;
    }
}
