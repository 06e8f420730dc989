/* seen.c - see seen.h. Hash 0 is the empty marker, so it is stored as 1. */
#include "seen.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

struct rc_seen {
    uint64_t *slots;
    size_t cap, n, limit;
    uint64_t resets;
};

rc_seen *rc_seen_new(size_t max_entries)
{
    rc_seen *s = rc_xcalloc(1, sizeof *s);
    size_t cap = 64;
    while (cap * 3 / 4 < max_entries)
        cap *= 2;
    s->cap = cap;
    s->limit = cap * 3 / 4;
    s->slots = rc_xcalloc(cap, sizeof(uint64_t));
    return s;
}

void rc_seen_free(rc_seen *s)
{
    if (!s)
        return;
    free(s->slots);
    free(s);
}

int rc_seen_has(const rc_seen *s, uint64_t h)
{
    h = h ? h : 1;
    for (size_t i = (size_t)h & (s->cap - 1);; i = (i + 1) & (s->cap - 1)) {
        if (s->slots[i] == h)
            return 1;
        if (s->slots[i] == 0)
            return 0;
    }
}

void rc_seen_add(rc_seen *s, uint64_t h)
{
    h = h ? h : 1;
    if (s->n >= s->limit) {
        memset(s->slots, 0, s->cap * sizeof(uint64_t));
        s->n = 0;
        s->resets++;
    }
    for (size_t i = (size_t)h & (s->cap - 1);; i = (i + 1) & (s->cap - 1)) {
        if (s->slots[i] == h)
            return;
        if (s->slots[i] == 0) {
            s->slots[i] = h;
            s->n++;
            return;
        }
    }
}

size_t rc_seen_count(const rc_seen *s)
{
    return s->n;
}

uint64_t rc_seen_resets(const rc_seen *s)
{
    return s->resets;
}
