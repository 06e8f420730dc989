/* seen.c - see seen.h. Hash 0 is the empty marker, so it is stored as 1. Slots are read and
 * written with relaxed atomics: the worker's parse thread looks up while its loop adds. A slot
 * only ever holds 0 or a hash that was added, so a racing reader can miss (costs a bloom check)
 * but never finds a URL that was not seen.
 *
 * The table starts small (SEEN_CAP0 slots, 32 KiB) and doubles as it fills, up to the cap that
 * max_entries asks for; only then does it start over. A small crawl so costs kilobytes, not the
 * 16 MiB of the default million entries. A reader may hold the previous table while the loop
 * grows it (it loaded the pointer before the switch): so the older tables are freed only when
 * the caller says no reader can be on them (rc_seen_drop_older), else by rc_seen_free. Kept,
 * they add at most what the last one costs (a geometric sum). */
#include "seen.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

#define SEEN_CAP0 4096 /* slots of the first table */

typedef struct table {
    uint64_t *slots;
    size_t cap;
    struct table *older; /* kept for readers that may still be on it */
} table;

struct rc_seen {
    table *t; /* the current table: loaded with acquire by readers, stored with release */
    size_t n, limit, max_cap;
    uint64_t resets, grows;
};

static table *table_new(size_t cap, table *older)
{
    table *t = rc_xcalloc(1, sizeof *t);
    t->slots = rc_xcalloc(cap, sizeof(uint64_t));
    t->cap = cap;
    t->older = older;
    return t;
}

rc_seen *rc_seen_new(size_t max_entries)
{
    rc_seen *s = rc_xcalloc(1, sizeof *s);
    size_t cap = 64;
    while (cap * 3 / 4 < max_entries)
        cap *= 2;
    s->max_cap = cap;
    size_t cap0 = cap < SEEN_CAP0 ? cap : SEEN_CAP0;
    s->t = table_new(cap0, NULL);
    s->limit = cap0 * 3 / 4;
    return s;
}

static void tables_free(table *t)
{
    for (table *next; t; t = next) {
        next = t->older;
        free(t->slots);
        free(t);
    }
}

void rc_seen_free(rc_seen *s)
{
    if (!s)
        return;
    tables_free(s->t);
    free(s);
}

void rc_seen_drop_older(rc_seen *s)
{
    tables_free(s->t->older);
    s->t->older = NULL;
}

uint64_t rc_seen_grows(const rc_seen *s)
{
    return s->grows;
}

static int probe_has(const table *t, uint64_t h)
{
    for (size_t i = (size_t)h & (t->cap - 1);; i = (i + 1) & (t->cap - 1)) {
        uint64_t v = __atomic_load_n(&t->slots[i], __ATOMIC_RELAXED);
        if (v == h)
            return 1;
        if (v == 0)
            return 0;
    }
}

int rc_seen_has(const rc_seen *s, uint64_t h)
{
    return probe_has(__atomic_load_n(&s->t, __ATOMIC_ACQUIRE), h ? h : 1);
}

/* Loop thread only. 1 when h was new in t. */
static int probe_add(table *t, uint64_t h)
{
    for (size_t i = (size_t)h & (t->cap - 1);; i = (i + 1) & (t->cap - 1)) {
        if (t->slots[i] == h)
            return 0;
        if (t->slots[i] == 0) {
            __atomic_store_n(&t->slots[i], h, __ATOMIC_RELAXED);
            return 1;
        }
    }
}

/* Twice the slots, the hashes moved over, then published: a reader sees the old table or the
 * full new one, never a half-filled one. */
static void grow(rc_seen *s)
{
    table *old = s->t, *t = table_new(old->cap * 2, old);
    for (size_t i = 0; i < old->cap; i++)
        if (old->slots[i])
            probe_add(t, old->slots[i]);
    __atomic_store_n(&s->t, t, __ATOMIC_RELEASE);
    s->limit = t->cap * 3 / 4;
    s->grows++;
}

void rc_seen_add(rc_seen *s, uint64_t h)
{
    h = h ? h : 1;
    if (s->n >= s->limit) {
        if (s->t->cap < s->max_cap) {
            grow(s);
        } else {
            for (size_t i = 0; i < s->t->cap; i++)
                __atomic_store_n(&s->t->slots[i], 0, __ATOMIC_RELAXED);
            s->n = 0;
            s->resets++;
        }
    }
    s->n += (size_t)probe_add(s->t, h);
}

size_t rc_seen_count(const rc_seen *s)
{
    return s->n;
}

uint64_t rc_seen_resets(const rc_seen *s)
{
    return s->resets;
}

size_t rc_seen_bytes(const rc_seen *s)
{
    size_t b = sizeof *s;
    for (const table *t = s->t; t; t = t->older)
        b += sizeof *t + t->cap * sizeof(uint64_t);
    return b;
}
