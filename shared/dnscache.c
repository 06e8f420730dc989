/* dnscache.c - see dnscache.h. Eviction order is a FIFO ring of keys: a slot whose entry was
 * deleted or replaced since is skipped (its sequence number no longer matches). */
#include "dnscache.h"

#include <stdlib.h>
#include <string.h>

#include "strmap.h"
#include "util.h"

typedef struct entry {
    char *addrs;
    uint64_t expires_ms; /* 0 = never */
    uint64_t seq;        /* matches its ring slot */
} entry;

typedef struct slot {
    char *key;
    uint64_t seq;
} slot;

struct rc_dnscache {
    rc_strmap *map; /* key -> entry */
    size_t max;
    slot *ring; /* capacity 2 x max: stale slots are skipped */
    size_t ring_cap, head, len;
    uint64_t seq, evictions;
};

static void entry_free(void *p)
{
    entry *e = p;
    if (e) {
        free(e->addrs);
        free(e);
    }
}

rc_dnscache *rc_dnscache_new(size_t max_entries)
{
    if (max_entries < 1)
        return NULL;
    rc_dnscache *c = rc_xcalloc(1, sizeof *c);
    c->map = rc_strmap_new();
    c->max = max_entries;
    c->ring_cap = 2 * max_entries;
    c->ring = rc_xcalloc(c->ring_cap, sizeof *c->ring);
    return c;
}

void rc_dnscache_free(rc_dnscache *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->len; i++)
        free(c->ring[(c->head + i) % c->ring_cap].key);
    free(c->ring);
    rc_strmap_free(c->map, entry_free);
    free(c);
}

/* Drops ring slots from the front until one still names its entry; evicts that entry when
 * evict is set. */
static void ring_pop(rc_dnscache *c, int evict)
{
    while (c->len > 0) {
        slot *s = &c->ring[c->head];
        c->head = (c->head + 1) % c->ring_cap;
        c->len--;
        entry *e = rc_strmap_get(c->map, s->key);
        int live = e && e->seq == s->seq;
        if (live && evict) {
            entry_free(rc_strmap_del(c->map, s->key));
            c->evictions++;
        }
        free(s->key);
        s->key = NULL;
        if (live)
            return;
    }
}

/* A full ring (2 x max slots, at most max of them live) keeps only its live slots, in order:
 * O(max) once every max puts at least. */
static void compact(rc_dnscache *c)
{
    size_t n = 0;
    slot *ring = rc_xcalloc(c->ring_cap, sizeof *ring);
    for (size_t i = 0; i < c->len; i++) {
        slot *s = &c->ring[(c->head + i) % c->ring_cap];
        entry *e = rc_strmap_get(c->map, s->key);
        if (e && e->seq == s->seq)
            ring[n++] = *s;
        else
            free(s->key);
    }
    free(c->ring);
    c->ring = ring;
    c->head = 0;
    c->len = n;
}

void rc_dnscache_del(rc_dnscache *c, const char *key)
{
    entry_free(rc_strmap_del(c->map, key));
}

const char *rc_dnscache_get(rc_dnscache *c, const char *key, uint64_t now_ms)
{
    entry *e = rc_strmap_get(c->map, key);
    if (!e)
        return NULL;
    if (e->expires_ms && e->expires_ms <= now_ms) {
        rc_dnscache_del(c, key);
        return NULL;
    }
    return e->addrs;
}

int rc_dnscache_permanent(const rc_dnscache *c, const char *key)
{
    const entry *e = rc_strmap_get(c->map, key);
    return e && e->expires_ms == 0;
}

void rc_dnscache_put(rc_dnscache *c, const char *key, const char *addrs, uint64_t expires_ms)
{
    entry *e = rc_strmap_get(c->map, key);
    if (!e) {
        if (rc_strmap_count(c->map) >= c->max)
            ring_pop(c, 1);
        e = rc_xcalloc(1, sizeof *e);
        rc_strmap_put(c->map, key, e);
    }
    free(e->addrs);
    e->addrs = rc_xstrdup(addrs);
    e->expires_ms = expires_ms;
    e->seq = ++c->seq;
    if (c->len == c->ring_cap)
        compact(c);
    slot *s = &c->ring[(c->head + c->len) % c->ring_cap];
    s->key = rc_xstrdup(key);
    s->seq = e->seq;
    c->len++;
}

size_t rc_dnscache_count(const rc_dnscache *c)
{
    return rc_strmap_count(c->map);
}

uint64_t rc_dnscache_evictions(const rc_dnscache *c)
{
    return c->evictions;
}
