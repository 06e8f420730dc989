/* strmap.c - see strmap.h. Linear probing with backward-shift deletion (no tombstones). */
#include "strmap.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "util.h"

typedef struct slot {
    char *key; /* NULL = empty */
    uint64_t hash;
    void *value;
} slot;

struct rc_strmap {
    slot *slots;
    size_t cap; /* power of two */
    size_t n;
};

rc_strmap *rc_strmap_new(void)
{
    rc_strmap *m = rc_xcalloc(1, sizeof *m);
    m->cap = 16;
    m->slots = rc_xcalloc(m->cap, sizeof(slot));
    return m;
}

void rc_strmap_free(rc_strmap *m, void (*free_value)(void *))
{
    if (!m)
        return;
    for (size_t i = 0; i < m->cap; i++) {
        if (m->slots[i].key) {
            free(m->slots[i].key);
            if (free_value)
                free_value(m->slots[i].value);
        }
    }
    free(m->slots);
    free(m);
}

static size_t find(const rc_strmap *m, const char *key, uint64_t h)
{
    size_t mask = m->cap - 1, i = (size_t)h & mask;
    while (m->slots[i].key && (m->slots[i].hash != h || strcmp(m->slots[i].key, key) != 0))
        i = (i + 1) & mask;
    return i;
}

/* Moves a member into a table being rebuilt (grown or filtered); its hash is kept. */
static void place(slot *slots, size_t cap, slot s)
{
    size_t j = (size_t)s.hash & (cap - 1);
    while (slots[j].key)
        j = (j + 1) & (cap - 1);
    slots[j] = s;
}

static void grow(rc_strmap *m)
{
    slot *old = m->slots;
    size_t oldcap = m->cap;
    m->cap *= 2;
    m->slots = rc_xcalloc(m->cap, sizeof(slot));
    for (size_t i = 0; i < oldcap; i++) {
        if (old[i].key)
            place(m->slots, m->cap, old[i]);
    }
    free(old);
}

void *rc_strmap_get(const rc_strmap *m, const char *key)
{
    size_t i = find(m, key, XXH3_64bits(key, strlen(key)));
    return m->slots[i].key ? m->slots[i].value : NULL;
}

void *rc_strmap_put(rc_strmap *m, const char *key, void *value)
{
    if ((m->n + 1) * 4 > m->cap * 3)
        grow(m);
    uint64_t h = XXH3_64bits(key, strlen(key));
    size_t i = find(m, key, h);
    if (m->slots[i].key) {
        void *prev = m->slots[i].value;
        m->slots[i].value = value;
        return prev;
    }
    m->slots[i] = (slot){.key = rc_xstrdup(key), .hash = h, .value = value};
    m->n++;
    return NULL;
}

void *rc_strmap_del(rc_strmap *m, const char *key)
{
    size_t mask = m->cap - 1, i = find(m, key, XXH3_64bits(key, strlen(key)));
    if (!m->slots[i].key)
        return NULL;
    void *value = m->slots[i].value;
    free(m->slots[i].key);
    m->slots[i].key = NULL;
    m->n--;
    /* Backward shift: pull later members of the cluster into the hole if it is on their path. */
    size_t j = i;
    for (;;) {
        j = (j + 1) & mask;
        if (!m->slots[j].key)
            break;
        size_t home = (size_t)m->slots[j].hash & mask;
        int between = i <= j ? (home > i && home <= j) : (home > i || home <= j);
        if (!between) {
            m->slots[i] = m->slots[j];
            m->slots[j].key = NULL;
            i = j;
        }
    }
    return value;
}

/* One pass that rebuilds the table from its survivors: deleting them one by one while iterating
 * would have to restart the scan after each backward shift (quadratic for a worker's 20,000
 * hosts: seconds per reap at 100,000 hosts). */
size_t rc_strmap_del_if(rc_strmap *m, int (*drop)(const char *key, void *value, const void *ctx), const void *ctx,
                        void (*free_value)(void *))
{
    slot *old = m->slots;
    size_t gone = 0;
    m->slots = rc_xcalloc(m->cap, sizeof(slot));
    for (size_t i = 0; i < m->cap; i++) {
        if (!old[i].key)
            continue;
        if (drop(old[i].key, old[i].value, ctx)) {
            if (free_value)
                free_value(old[i].value);
            free(old[i].key);
            gone++;
        } else
            place(m->slots, m->cap, old[i]);
    }
    free(old);
    m->n -= gone;
    return gone;
}

size_t rc_strmap_count(const rc_strmap *m)
{
    return m->n;
}

int rc_strmap_next(const rc_strmap *m, size_t *it, const char **ret_key, void **ret_value)
{
    while (*it < m->cap) {
        slot *s = &m->slots[(*it)++];
        if (s->key) {
            if (ret_key)
                *ret_key = s->key;
            if (ret_value)
                *ret_value = s->value;
            return 1;
        }
    }
    return 0;
}
