/* test_robots_cache.c - the worker's robots.txt cache stays within its bound: the origins used
 * least recently go (a worker meeting a million hosts held every one's rules before), one in
 * use stays, and a dropped origin comes back from Redis, not from a new robots.txt fetch.
 * Against a real redis-server (unix socket in a temp dir, stopped by pid); the rules are put
 * in Redis first, so the cache never fetches (its fetcher has no server to reach). */
#include <ev.h>
#include <hiredis/adapters/libev.h>
#include <hiredis/async.h>
#include <hiredis/hiredis.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fetch.h"
#include "rc_test.h"
#include "rc_test_redis.h"
#include "redis.h"
#include "robots.h"
#include "robots_cache.h"

typedef struct call {
    int done;
    int just_fetched;
    int allowed;           /* the rules' verdict on /private/x, read inside the callback */
    struct call *next_get; /* another get to make from inside the callback, or NULL */
    rc_robots_cache *c;
    const char *next_origin;
} call;

static void on_rules(void *ud, const rc_robots *rules, int just_fetched)
{
    call *k = ud;
    k->done = 1;
    k->just_fetched = just_fetched;
    k->allowed = rules ? rc_robots_allowed_url(rules, "http://x.test/private/x") : -1;
    if (k->next_get)
        rc_robots_cache_get(k->c, k->next_origin, on_rules, k->next_get);
}

static struct ev_loop *loop;

/* Runs the loop until k has its answer (at most ~5 s). */
static void wait_for(call *k)
{
    for (int i = 0; i < 5000 && !k->done; i++)
        ev_run(loop, EVRUN_ONCE);
    RC_CHECK(k->done);
}

/* The rules of origin, loaded through the cache. */
static void load(rc_robots_cache *c, const char *origin)
{
    call k = {0};
    if (rc_robots_cache_get(c, origin, on_rules, &k))
        return;
    wait_for(&k);
    RC_CHECK_INT_EQ(k.just_fetched, 0);
    RC_CHECK_INT_EQ(k.allowed, 0);
}

static void put_rules(rc_redis *r, int n)
{
    rc_robots *rules = rc_robots_parse("User-agent: *\nDisallow: /private/\n", 34, "redcrawl");
    char *ser = rc_robots_serialize(rules);
    for (int i = 0; i < n; i++) {
        redisReply *rep = rc_redis_cmd(r, "SET rc:robots:http://h%d.test %s", i, ser);
        RC_CHECK(rep && rep->type == REDIS_REPLY_STATUS);
        freeReplyObject(rep);
    }
    free(ser);
    rc_robots_free(rules);
}

static rc_robots_cache *cache_new(rc_fetcher *f, redisAsyncContext *ac, size_t max)
{
    rc_robots_cache *c = rc_robots_cache_new(f, "rc:", "redcrawl", 3600, max);
    rc_robots_cache_set_redis(c, ac);
    return c;
}

/* Ten origins through a cache of four: never more than four held, the first ones gone. */
static void test_bound(rc_fetcher *f, redisAsyncContext *ac)
{
    rc_robots_cache *c = cache_new(f, ac, 4);
    char origin[64];
    for (int i = 0; i < 10; i++) {
        snprintf(origin, sizeof origin, "http://h%d.test", i);
        load(c, origin);
        RC_CHECK(rc_robots_cache_count(c) <= 4);
    }
    RC_CHECK(rc_robots_cache_peek(c, "http://h0.test") == NULL);
    RC_CHECK(rc_robots_cache_peek(c, "http://h9.test") != NULL);
    rc_robots_cache_free(c);
}

/* The one used last stays: a, b, c loaded, a used again, d loaded: b goes, not a. A dropped
 * origin comes back from Redis (just_fetched 0: no request to the site). */
static void test_recency(rc_fetcher *f, redisAsyncContext *ac)
{
    rc_robots_cache *c = cache_new(f, ac, 3);
    load(c, "http://h1.test");
    load(c, "http://h2.test");
    load(c, "http://h3.test");
    RC_CHECK(rc_robots_cache_fresh(c, "http://h1.test") != NULL);
    load(c, "http://h4.test");
    RC_CHECK(rc_robots_cache_peek(c, "http://h2.test") == NULL);
    RC_CHECK(rc_robots_cache_peek(c, "http://h1.test") != NULL);
    load(c, "http://h2.test");
    RC_CHECK(rc_robots_cache_peek(c, "http://h2.test") != NULL);
    rc_robots_cache_free(c);
}

/* Two pages wait for one origin; the first one's callback loads another origin, which would
 * push the first out of a cache of one: the second waiter must still get live rules (ASan
 * reports a use after free otherwise). */
static void test_waiters_keep_entry(rc_fetcher *f, redisAsyncContext *ac)
{
    rc_robots_cache *c = cache_new(f, ac, 1);
    call other = {0}, second = {0};
    call first = {.c = c, .next_get = &other, .next_origin = "http://h6.test"};
    RC_CHECK(rc_robots_cache_get(c, "http://h5.test", on_rules, &second) == NULL);
    RC_CHECK(rc_robots_cache_get(c, "http://h5.test", on_rules, &first) == NULL);
    wait_for(&first);
    RC_CHECK(second.done);
    RC_CHECK_INT_EQ(second.allowed, 0);
    wait_for(&other);
    RC_CHECK_INT_EQ(other.allowed, 0);
    RC_CHECK(rc_robots_cache_count(c) <= 1);
    rc_robots_cache_free(c);
}

/* Batching: gets ask Redis nothing until the flush, which reads their three keys in one MGET
 * (the rules come from Redis: just_fetched 0); the SET after a robots.txt fetch (port 1 of
 * loopback refuses: "unreachable", kept ten minutes) waits for the next flush too. */
static void test_batch(rc_fetcher *f, redisAsyncContext *ac, rc_redis *r)
{
    rc_robots_cache *c = cache_new(f, ac, 100);
    rc_robots_cache_batch(c, 1);
    call k[3] = {{0}};
    const char *origins[] = {"http://h1.test", "http://h2.test", "http://h3.test"};
    for (int i = 0; i < 3; i++)
        RC_CHECK(rc_robots_cache_get(c, origins[i], on_rules, &k[i]) == NULL);
    RC_CHECK_INT_EQ(rc_robots_cache_held(c), 1);
    for (int i = 0; i < 50; i++) /* nothing was sent: no answer can come */
        ev_run(loop, EVRUN_NOWAIT);
    RC_CHECK_INT_EQ(k[0].done + k[1].done + k[2].done, 0);
    rc_robots_cache_flush(c);
    RC_CHECK_INT_EQ(rc_robots_cache_held(c), 0);
    for (int i = 0; i < 3; i++) {
        wait_for(&k[i]);
        RC_CHECK_INT_EQ(k[i].just_fetched, 0);
        RC_CHECK_INT_EQ(k[i].allowed, 0);
    }

    const char *down = "http://127.0.0.1:1";
    call f1 = {0};
    RC_CHECK(rc_robots_cache_get(c, down, on_rules, &f1) == NULL);
    rc_robots_cache_flush(c); /* a GET alone: a miss, so robots.txt is fetched */
    wait_for(&f1);
    RC_CHECK_INT_EQ(f1.just_fetched, 1);
    RC_CHECK_INT_EQ(f1.allowed, 0);              /* unreachable: nothing allowed */
    RC_CHECK_INT_EQ(rc_robots_cache_held(c), 1); /* its SET */
    redisReply *rep = rc_redis_cmd(r, "EXISTS rc:robots:%s", down);
    RC_CHECK(rep && rep->type == REDIS_REPLY_INTEGER && rep->integer == 0);
    freeReplyObject(rep);
    rc_robots_cache_flush(c);
    for (int i = 0; i < 200; i++) { /* the SET reaches Redis (the blocking client asks after it) */
        ev_run(loop, EVRUN_NOWAIT);
        rep = rc_redis_cmd(r, "PTTL rc:robots:%s", down);
        int there = rep && rep->type == REDIS_REPLY_INTEGER && rep->integer > 0;
        freeReplyObject(rep);
        if (there)
            break;
        RC_CHECK(i < 199);
    }
    rc_robots_cache_free(c);
}

/* Without a connection a batching get answers at once, with no rules (the waiter retries). */
static void test_batch_no_redis(rc_fetcher *f)
{
    rc_robots_cache *c = cache_new(f, NULL, 10);
    rc_robots_cache_batch(c, 1);
    call k = {0};
    RC_CHECK(rc_robots_cache_get(c, "http://h1.test", on_rules, &k) == NULL);
    RC_CHECK_INT_EQ(k.done, 1);
    RC_CHECK_INT_EQ(k.allowed, -1);
    RC_CHECK_INT_EQ(rc_robots_cache_held(c), 0);
    rc_robots_cache_free(c);
}

int main(void)
{
    rc_test_redis redis;
    rc_redis *r = rc_test_redis_open(&redis, "robots-cache");
    if (!r)
        return 1;
    put_rules(r, 10);
    loop = ev_loop_new(EVFLAG_AUTO);
    char path[128];
    snprintf(path, sizeof path, "%s/redis.sock", redis.dir);
    redisAsyncContext *ac = redisAsyncConnectUnix(path);
    RC_CHECK(ac && !ac->err);
    redisLibevAttach(loop, ac);
    rc_fetcher *f = rc_fetcher_new(loop, NULL);
    RC_CHECK(f != NULL);
    test_bound(f, ac);
    test_recency(f, ac);
    test_waiters_keep_entry(f, ac);
    test_batch(f, ac, r);
    test_batch_no_redis(f);
    redisAsyncFree(ac);
    rc_fetcher_free(f);
    ev_loop_destroy(loop);
    rc_redis_free(r);
    rc_test_redis_cleanup(&redis);
    return rc_test_done("test_robots_cache");
}
