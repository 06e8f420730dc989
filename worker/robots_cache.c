/* robots_cache.c - see robots_cache.h. */
#include "robots_cache.h"

#include <curl/curl.h>
#include <hiredis/async.h>
#include <hiredis/hiredis.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fetch.h"
#include "log.h"
#include "robots.h"
#include "strmap.h"
#include "util.h"

#define MOD "robots"
#define REREAD_MS (3600 * 1000) /* rules read from Redis are re-read at most hourly */
#define UNREACHABLE_MS (600 * 1000)
#define BLOCKED_MS (60 * 1000) /* an origin the guard refused: robots.txt asked again after this */

enum entry_state { ENTRY_NONE, ENTRY_LOADING, ENTRY_FETCHING, ENTRY_READY };

typedef struct waiter {
    struct waiter *next;
    rc_robots_cache_cb cb;
    void *ud;
} waiter;

typedef struct entry {
    rc_robots_cache *c;
    char *origin;
    enum entry_state state;
    rc_robots *rules;
    uint64_t expires_ms;
    waiter *waiting;
    int notifying;               /* its waiters are being called: it stays, their rules with it */
    struct entry *newer, *older; /* the recency list: what goes first when the cache is full */
    struct entry *next_load;     /* the loads a batching cache has still to ask Redis for */
} entry;

/* A SET a batching cache has still to send: robots.txt rules for the fleet. */
typedef struct store {
    struct store *next;
    char *key, *value;
    uint64_t ttl_ms;
} store;

/* The entries one MGET loads, in its keys' order. */
typedef struct load_batch {
    size_t n;
    entry *e[];
} load_batch;

struct rc_robots_cache {
    rc_fetcher *fetcher;
    redisAsyncContext *ac;
    char *prefix;
    char *agent;
    uint64_t ttl_ms;
    rc_strmap *entries;     /* origin -> entry */
    entry *newest, *oldest; /* every entry, by last use */
    size_t max_entries;
    int full_said; /* the bound was reached and the log said so */
    int batching;  /* Redis reads and writes wait for rc_robots_cache_flush */
    entry *loads, **loads_tail;
    store *stores, **stores_tail;
};

static void flush_stores(rc_robots_cache *c);
static void flush_loads(rc_robots_cache *c);

static void free_entry(void *p)
{
    entry *e = p;
    if (!e)
        return;
    while (e->waiting) {
        waiter *wt = e->waiting;
        e->waiting = wt->next;
        free(wt);
    }
    rc_robots_free(e->rules);
    free(e->origin);
    free(e);
}

rc_robots_cache *rc_robots_cache_new(rc_fetcher *fetcher, const char *prefix, const char *agent, double ttl_s,
                                     size_t max_entries)
{
    rc_robots_cache *c = rc_xcalloc(1, sizeof *c);
    c->fetcher = fetcher;
    c->max_entries = max_entries ? max_entries : RC_ROBOTS_CACHE_DEFAULT;
    c->prefix = rc_xstrdup(prefix);
    c->agent = rc_xstrdup(agent);
    c->ttl_ms = (uint64_t)(ttl_s * 1000);
    c->entries = rc_strmap_new();
    c->loads_tail = &c->loads;
    c->stores_tail = &c->stores;
    return c;
}

static void free_stores(store *s)
{
    while (s) {
        store *next = s->next;
        free(s->key);
        free(s->value);
        free(s);
        s = next;
    }
}

void rc_robots_cache_free(rc_robots_cache *c)
{
    if (!c)
        return;
    free_stores(c->stores);
    rc_strmap_free(c->entries, free_entry);
    free(c->prefix);
    free(c->agent);
    free(c);
}

static void unlink_entry(rc_robots_cache *c, entry *e)
{
    if (e->newer)
        e->newer->older = e->older;
    else
        c->newest = e->older;
    if (e->older)
        e->older->newer = e->newer;
    else
        c->oldest = e->newer;
    e->newer = e->older = NULL;
}

/* Marks e as just used. */
static void touch(rc_robots_cache *c, entry *e)
{
    if (c->newest == e)
        return;
    if (e->newer || e->older || c->oldest == e)
        unlink_entry(c, e);
    e->older = c->newest;
    if (c->newest)
        c->newest->newer = e;
    c->newest = e;
    if (!c->oldest)
        c->oldest = e;
}

/* Drops the least recently used entries over the bound. Only settled ones go: an entry that
 * is loading or fetching has a Redis reply or a transfer pointing at it, and waiters. A few
 * are looked at per call, so a burst of loads costs no scan (the bound holds again later). */
static void evict(rc_robots_cache *c)
{
    entry *e = c->oldest;
    if (!c->full_said && rc_strmap_count(c->entries) > c->max_entries) {
        c->full_said = 1; /* once: a crawl of many hosts passes the bound for good */
        rc_info(MOD,
                "robots.txt rules kept for the %zu origins used last, older ones read from Redis again "
                "when needed (--robots-cache)",
                c->max_entries);
    }
    for (int looked = 0; e && looked < 8 && rc_strmap_count(c->entries) > c->max_entries; looked++) {
        entry *newer = e->newer;
        if (e->state == ENTRY_READY && !e->waiting && !e->notifying) {
            unlink_entry(c, e);
            rc_strmap_del(c->entries, e->origin);
            free_entry(e);
        }
        e = newer;
    }
}

void rc_robots_cache_set_redis(rc_robots_cache *c, redisAsyncContext *ac)
{
    c->ac = ac;
}

/* Hands the outcome to everyone waiting (the list is detached first: a callback may ask again). */
static void notify(entry *e, const rc_robots *rules, int just_fetched)
{
    waiter *wt = e->waiting;
    e->waiting = NULL;
    e->notifying++;
    while (wt) {
        waiter *next = wt->next;
        wt->cb(wt->ud, rules, just_fetched);
        free(wt);
        wt = next;
    }
    e->notifying--;
}

static void ready(entry *e, rc_robots *rules, uint64_t ttl_ms, int just_fetched)
{
    rc_robots_free(e->rules);
    e->rules = rules;
    e->state = ENTRY_READY;
    e->expires_ms = rc_now_ms() + ttl_ms;
    notify(e, e->rules, just_fetched);
    evict(e->c); /* what its waiters loaded meanwhile (it was kept for them) */
}

static void on_fetched(void *ud, const rc_fetch_result *res)
{
    entry *e = ud;
    rc_robots_cache *c = e->c;
    rc_robots *rules;
    uint64_t ttl_ms = c->ttl_ms;
    /* RFC 9309 2.3.1: 2xx parse; 4xx (and too many redirects) "unavailable": allow all;
     * 5xx or unreachable: "unreachable", disallow all for a while. */
    if ((res->blocked || res->curl_code == CURLE_PEER_FAILED_VERIFICATION) && res->redirects == 0) {
        /* The SSRF guard refused the origin itself, or its certificate does not verify: so
         * will every page there fail, which is then recorded with that reason rather than as
         * "disallowed". Kept in this worker only (another worker may allow other networks or
         * trust other CAs) and briefly. */
        ready(e, rc_robots_allow_all(), BLOCKED_MS, 0);
        return;
    }
    if (res->ok && res->status >= 200 && res->status < 300)
        rules = rc_robots_parse(res->body, res->body_len, c->agent);
    else if ((res->ok && res->status >= 400 && res->status < 500) || res->curl_code == CURLE_TOO_MANY_REDIRECTS)
        rules = rc_robots_allow_all();
    else {
        /* The reason travels with the rules: a URL denied for it is reported as such, not as
         * "disallowed" (the site may well allow us; it just could not be asked). */
        char why[300];
        if (res->ok)
            snprintf(why, sizeof why, "robots.txt answered %ld", res->status);
        else
            snprintf(why, sizeof why, "robots.txt unreachable: %s", res->error ? res->error : "fetch failed");
        rules = rc_robots_unreachable(why);
        ttl_ms = RC_MIN(ttl_ms, UNREACHABLE_MS);
        rc_warn(MOD, "robots.txt unreachable, the site is off limits for %llu s origin=%s status=%ld error=%s",
                (unsigned long long)(ttl_ms / 1000), e->origin, res->status, res->error ? res->error : "-");
    }
    char *ser = rc_robots_serialize(rules);
    if (c->ac && ser) { /* batching: sent with the worker's next call, no round trip of its own */
        store *st = rc_xcalloc(1, sizeof *st);
        *st = (store){.key = rc_xasprintf("%srobots:%s", c->prefix, e->origin), .value = ser, .ttl_ms = ttl_ms};
        *c->stores_tail = st;
        c->stores_tail = &st->next;
        ser = NULL;
        if (!c->batching)
            flush_stores(c);
    }
    free(ser);
    ready(e, rules, ttl_ms, 1);
}

/* What Redis answered for e's key (NULL: no connection). */
static void loaded(entry *e, const redisReply *rep)
{
    rc_robots *rules = NULL;
    if (rep && rep->type == REDIS_REPLY_STRING)
        rules = rc_robots_deserialize(rep->str, rep->len);
    if (rules) {
        ready(e, rules, REREAD_MS, 0);
        return;
    }
    if (!rep) { /* Redis went away: the waiters try again later */
        e->state = ENTRY_NONE;
        notify(e, NULL, 0);
        return;
    }
    e->state = ENTRY_FETCHING;
    char *url = rc_xasprintf("%s/robots.txt", e->origin);
    /* Follows redirects; the page that asked usually follows on its connection at once. */
    rc_fetch_req req = {.url = url, .follow = 1, .next_same_host = 1};
    int r = rc_fetch_start_req(e->c->fetcher, &req, on_fetched, e);
    free(url);
    if (r < 0) {
        rc_fetch_result fake = {.ok = 0, .error = "cannot start the robots.txt fetch"};
        on_fetched(e, &fake);
    }
}

/* An MGET's answer: each key's value to its entry (an error or a missing reply to all). */
static void on_cached_many(redisAsyncContext *ac, void *reply, void *privdata)
{
    (void)ac;
    load_batch *b = privdata;
    const redisReply *rep = reply;
    for (size_t i = 0; i < b->n; i++) {
        const redisReply *one = rep;
        if (rep && rep->type == REDIS_REPLY_ARRAY && rep->elements == b->n)
            one = rep->element[i];
        loaded(b->e[i], one);
    }
    free(b);
}

/* The entry of origin, marked as used; NULL when there is none. */
static entry *lookup(rc_robots_cache *c, const char *origin)
{
    entry *e = rc_strmap_get(c->entries, origin);
    if (e)
        touch(c, e);
    return e;
}

const rc_robots *rc_robots_cache_get(rc_robots_cache *c, const char *origin, rc_robots_cache_cb cb, void *ud)
{
    entry *e = lookup(c, origin);
    if (e && e->state == ENTRY_READY && e->expires_ms > rc_now_ms())
        return e->rules;
    if (!e) {
        e = rc_xcalloc(1, sizeof *e);
        e->c = c;
        e->origin = rc_xstrdup(origin);
        rc_strmap_put(c->entries, origin, e);
        touch(c, e);
        evict(c);
    }
    waiter *wt = rc_xcalloc(1, sizeof *wt);
    wt->cb = cb;
    wt->ud = ud;
    wt->next = e->waiting;
    e->waiting = wt;
    if (e->state == ENTRY_NONE || e->state == ENTRY_READY) { /* new or expired: ask Redis first */
        e->state = ENTRY_LOADING;
        e->next_load = NULL;
        *c->loads_tail = e;
        c->loads_tail = &e->next_load;
        if (!c->batching || !c->ac) /* at once: a GET of its own, or no connection to ask */
            flush_loads(c);
    }
    return NULL;
}

void rc_robots_cache_batch(rc_robots_cache *c, int on)
{
    c->batching = on;
    if (!on)
        rc_robots_cache_flush(c);
}

/* The queued SETs, as one pipeline (their replies come back with whatever rides with them). */
static void flush_stores(rc_robots_cache *c)
{
    store *list = c->stores;
    c->stores = NULL;
    c->stores_tail = &c->stores;
    for (store *st = list; st && c->ac; st = st->next) {
        const char *argv[] = {"SET", st->key, st->value, "PX", NULL};
        char ttl[24];
        snprintf(ttl, sizeof ttl, "%llu", (unsigned long long)st->ttl_ms);
        argv[4] = ttl;
        size_t len[] = {3, strlen(st->key), strlen(st->value), 2, strlen(ttl)};
        redisAsyncCommandArgv(c->ac, NULL, NULL, 5, argv, len);
    }
    free_stores(list); /* without a connection they are dropped, as an unbatched SET would be */
}

/* The queued loads: one GET, or one MGET for several. Without a connection each gets its
 * "not loaded" (its waiters try again later). */
static void flush_loads(rc_robots_cache *c)
{
    entry *list = c->loads;
    c->loads = NULL;
    c->loads_tail = &c->loads;
    size_t n = 0;
    for (entry *e = list; e; e = e->next_load)
        n++;
    if (n == 0)
        return;
    load_batch *b = rc_xmalloc(sizeof *b + n * sizeof b->e[0]);
    const char **argv = rc_xcalloc(n + 1, sizeof *argv);
    size_t *len = rc_xcalloc(n + 1, sizeof *len);
    char **keys = rc_xcalloc(n, sizeof *keys);
    b->n = n;
    argv[0] = n > 1 ? "MGET" : "GET";
    len[0] = strlen(argv[0]);
    size_t i = 0;
    for (entry *e = list; e; e = e->next_load, i++) {
        b->e[i] = e;
        keys[i] = rc_xasprintf("%srobots:%s", c->prefix, e->origin);
        argv[i + 1] = keys[i];
        len[i + 1] = strlen(keys[i]);
    }
    int ok = c->ac && redisAsyncCommandArgv(c->ac, on_cached_many, b, (int)n + 1, argv, len) == REDIS_OK;
    for (i = 0; i < n; i++)
        free(keys[i]);
    free(keys);
    free(argv);
    free(len);
    if (!ok)
        on_cached_many(NULL, NULL, b);
}

int rc_robots_cache_held(const rc_robots_cache *c)
{
    return c->loads != NULL || c->stores != NULL;
}

void rc_robots_cache_flush(rc_robots_cache *c)
{
    flush_stores(c);
    flush_loads(c);
}

const rc_robots *rc_robots_cache_peek(rc_robots_cache *c, const char *origin)
{
    entry *e = lookup(c, origin);
    return e && e->state == ENTRY_READY ? e->rules : NULL;
}

const rc_robots *rc_robots_cache_fresh(rc_robots_cache *c, const char *origin)
{
    entry *e = lookup(c, origin);
    return e && e->state == ENTRY_READY && e->expires_ms > rc_now_ms() ? e->rules : NULL;
}

size_t rc_robots_cache_count(const rc_robots_cache *c)
{
    return rc_strmap_count(c->entries);
}
