/* wrr.c - see wrr.h. A few dozen peers at most: a flat array is the right structure. */
#include "wrr.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

typedef struct wrr_peer {
    char *id;
    int64_t weight;
    int64_t current;
} wrr_peer;

struct rc_wrr {
    wrr_peer *peers;
    size_t n, cap;
};

rc_wrr *rc_wrr_new(void)
{
    return rc_xcalloc(1, sizeof(rc_wrr));
}

void rc_wrr_free(rc_wrr *w)
{
    if (!w)
        return;
    for (size_t i = 0; i < w->n; i++)
        free(w->peers[i].id);
    free(w->peers);
    free(w);
}

static wrr_peer *find(const rc_wrr *w, const char *id)
{
    for (size_t i = 0; i < w->n; i++)
        if (strcmp(w->peers[i].id, id) == 0)
            return &w->peers[i];
    return NULL;
}

void rc_wrr_set(rc_wrr *w, const char *id, int64_t weight)
{
    if (weight < 1)
        weight = 1;
    wrr_peer *p = find(w, id);
    if (p) {
        p->weight = weight;
        return;
    }
    if (w->n == w->cap) {
        w->cap = w->cap ? w->cap * 2 : 8;
        w->peers = rc_xrealloc(w->peers, w->cap * sizeof(wrr_peer));
    }
    w->peers[w->n++] = (wrr_peer){.id = rc_xstrdup(id), .weight = weight, .current = 0};
}

int rc_wrr_remove(rc_wrr *w, const char *id)
{
    wrr_peer *p = find(w, id);
    if (!p)
        return -ENOENT;
    free(p->id);
    *p = w->peers[--w->n];
    return 0;
}

const char *rc_wrr_next(rc_wrr *w)
{
    wrr_peer *best = NULL;
    int64_t total = 0;
    for (size_t i = 0; i < w->n; i++) {
        wrr_peer *p = &w->peers[i];
        p->current += p->weight;
        total += p->weight;
        if (!best || p->current > best->current)
            best = p;
    }
    if (!best)
        return NULL;
    best->current -= total;
    return best->id;
}

size_t rc_wrr_count(const rc_wrr *w)
{
    return w->n;
}

const char *rc_wrr_peer(const rc_wrr *w, size_t i, int64_t *ret_weight)
{
    if (i >= w->n)
        return NULL;
    if (ret_weight)
        *ret_weight = w->peers[i].weight;
    return w->peers[i].id;
}
