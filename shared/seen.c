/* seen.c - see seen.h. Hash 0 is the empty marker, so it is stored as 1. Slots are read and
 * written with relaxed atomics: the worker's parse thread looks up while its loop adds. A slot
 * only ever holds 0 or a hash that was added, so a racing reader can miss (costs a bloom check)
 * but never finds a URL that was not seen. */
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
        uint64_t v = __atomic_load_n(&s->slots[i], __ATOMIC_RELAXED);
        if (v == h)
            return 1;
        if (v == 0)
            return 0;
    }
}

void rc_seen_add(rc_seen *s, uint64_t h)
{
    h = h ? h : 1;
    if (s->n >= s->limit) {
        for (size_t i = 0; i < s->cap; i++)
            __atomic_store_n(&s->slots[i], 0, __ATOMIC_RELAXED);
        s->n = 0;
        s->resets++;
    }
    for (size_t i = (size_t)h & (s->cap - 1);; i = (i + 1) & (s->cap - 1)) {
        if (s->slots[i] == h)
            return;
        if (s->slots[i] == 0) {
            __atomic_store_n(&s->slots[i], h, __ATOMIC_RELAXED);
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
