/* test_frontier.c - the job frontier in Redis (common.lua: a list per bucket of priority and
 * depth, indexed by seedb:{crawlid}), through the scripts that use it against a real
 * redis-server (a unix socket in a temp dir, stopped by pid): submit.lua fills it, window.lua
 * reads it in order, assign.lua moves what it read to the host queues with the crawlid put back
 * (and moves nothing another scheduler took first), stop.lua deletes it, and the zset an older
 * version kept is drained first. */
#include <hiredis/hiredis.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "argv.h"
#include "frontier.h"
#include "rc_test.h"
#include "rc_test_redis.h"
#include "redis.h"
#include "sbloom.h"
#include "scripts.h"
#include "seeds.h"
#include "util.h"

#define K 16 /* bloom hash values per record (one group) */
#define NOW 5000

static rc_test_redis redis;

/* submit.lua with the records recs[0..n) (their bloom values made from salt and index). */
static long long submit(rc_redis *r, const char *crawlid, const char *const *recs, int n, int salt)
{
    rc_argv a;
    rc_argv_init(&a);
    rc_argv_set(&a, RC_SUBMIT_CRAWLID, crawlid);
    rc_argv_set(&a, RC_SUBMIT_SPEC, "{}");
    rc_argv_seti(&a, RC_SUBMIT_MAX_PAGES, 0);
    rc_argv_set(&a, RC_SUBMIT_BLOOM, "sbf:1024:1e-06:1");
    rc_argv_seti(&a, RC_SUBMIT_K, K);
    rc_argv_seti(&a, RC_SUBMIT_N, n);
    for (int i = 0; i < n; i++) {
        rc_argv_add(&a, recs[i]);
        for (int j = 0; j < K; j++)
            rc_argv_addu(&a, (uint64_t)(salt * 100003 + i * 7919 + j * 104729 + 17));
    }
    redisReply *rep = rc_redis_eval(r, RC_LUA_SUBMIT, NOW, &a);
    rc_argv_release(&a);
    long long added = rep && rep->type == REDIS_REPLY_ARRAY ? rep->element[0]->integer : -1;
    if (rep && rep->type == REDIS_REPLY_ERROR)
        fprintf(stderr, "  submit.lua: %s\n", rep->str);
    if (rep)
        freeReplyObject(rep);
    return added;
}

/* window.lua for one job: its first n records. */
static redisReply *window(rc_redis *r, const char *crawlid, int n)
{
    rc_argv a;
    rc_argv_init(&a);
    rc_argv_add(&a, crawlid);
    rc_argv_addi(&a, n);
    redisReply *rep = rc_redis_eval(r, RC_LUA_WINDOW, NOW, &a);
    rc_argv_release(&a);
    RC_CHECK(rep && rep->type == REDIS_REPLY_ARRAY && rep->elements == 1);
    return rep;
}

static void check_window(rc_redis *r, const char *crawlid, const char *const *want, size_t n)
{
    redisReply *rep = window(r, crawlid, 100);
    const redisReply *w = rep && rep->type == REDIS_REPLY_ARRAY && rep->elements == 1 ? rep->element[0] : NULL;
    RC_CHECK(w != NULL && w->elements == n);
    for (size_t i = 0; w && i < n && i < w->elements; i++)
        RC_CHECK_STR_EQ(w->element[i]->str, want[i]);
    if (rep)
        freeReplyObject(rep);
}

/* assign.lua with the window win of one job, every record to host h and worker index code
 * (codes[i] when codes is given) of workers {w1, w9}. Returns how many were assigned. */
static long long assign(rc_redis *r, const char *crawlid, const redisReply *win, const char *host,
                        const char *const *codes)
{
    rc_argv a;
    rc_argv_init(&a);
    rc_argv_addi(&a, 2);
    rc_argv_add(&a, "w1");
    rc_argv_add(&a, "w9");
    rc_argv_addi(&a, 1);
    rc_argv_add(&a, crawlid);
    rc_argv_addu(&a, win->elements);
    for (size_t i = 0; i < win->elements; i++) {
        rc_argv_addn(&a, win->element[i]->str, win->element[i]->len);
        rc_argv_add(&a, host);
        rc_argv_add(&a, codes ? codes[i] : "1");
    }
    rc_argv_addi(&a, 0);
    redisReply *rep = rc_redis_eval(r, RC_LUA_ASSIGN, NOW, &a);
    rc_argv_release(&a);
    long long got = rep && rep->type == REDIS_REPLY_ARRAY ? rep->element[0]->integer : -1;
    if (rep && rep->type == REDIS_REPLY_ERROR)
        fprintf(stderr, "  assign.lua: %s\n", rep->str);
    if (rep)
        freeReplyObject(rep);
    return got;
}

/* The host queue q:{crawlid}:{host} in its order. */
static void check_queue(rc_redis *r, const char *crawlid, const char *host, const char *const *want, size_t n)
{
    redisReply *rep = rc_redis_cmd(r, "ZRANGE rc:q:%s:%s 0 -1", crawlid, host);
    RC_CHECK(rep && rep->type == REDIS_REPLY_ARRAY && rep->elements == n);
    for (size_t i = 0; rep && rep->type == REDIS_REPLY_ARRAY && i < n && i < rep->elements; i++)
        RC_CHECK_STR_EQ(rep->element[i]->str, want[i]);
    if (rep)
        freeReplyObject(rep);
}

/* Priority first, then depth, then FIFO, across buckets; stored without the crawlid. */
static void test_order(rc_redis *r)
{
    const char *recs[] = {"J 1 5 0 http://a/d1p5-1", "J 0 5 0 http://a/d0p5-1", "J 0 9 0 http://a/d0p9-1",
                          "J 1 5 0 http://a/d1p5-2", "J 0 5 0 http://a/d0p5-2", "J 2 9 0 http://a/d2p9-1"};
    RC_CHECK_INT_EQ(submit(r, "J", recs, 6, 1), 6);
    const char *want[] = {"0 9 0 http://a/d0p9-1", "2 9 0 http://a/d2p9-1", "0 5 0 http://a/d0p5-1",
                          "0 5 0 http://a/d0p5-2", "1 5 0 http://a/d1p5-1", "1 5 0 http://a/d1p5-2"};
    check_window(r, "J", want, 6);
    RC_CHECK_INT_EQ(rc_seeds_count(r, "J"), 6);
    RC_CHECK_INT_EQ(rc_seeds_count(r, NULL), 6);
    RC_CHECK_INT_EQ(RC_REDIS_INT(r, "ZCARD rc:seedb:%s%s", "J", ""), 4);
    RC_CHECK_INT_EQ(RC_REDIS_INT(r, "LLEN rc:seeds:%s%s", "J", ":5:0"), 2);
    RC_CHECK_INT_EQ(RC_REDIS_INT(r, "SISMEMBER rc:frontier %s%s", "J", ""), 1);
}

/* What assign moves gets its crawlid back and leaves the frontier; a stale window moves
 * nothing; a bucket that came in front meanwhile does not stop the rest; a record whose worker
 * is gone stays at the head. */
static void test_assign(rc_redis *r)
{
    RC_REDIS_OK(r, "ZADD rc:workers 1 %s%s", "w1", "");
    redisReply *win = window(r, "J", 3);
    RC_CHECK_INT_EQ(assign(r, "J", win->element[0], "a", NULL), 3);
    const char *queued[] = {"J 0 9 0 http://a/d0p9-1", "J 2 9 0 http://a/d2p9-1", "J 0 5 0 http://a/d0p5-1"};
    check_queue(r, "J", "a", queued, 3);
    const char *left[] = {"0 5 0 http://a/d0p5-2", "1 5 0 http://a/d1p5-1", "1 5 0 http://a/d1p5-2"};
    check_window(r, "J", left, 3);
    RC_CHECK_INT_EQ(RC_REDIS_INT(r, "ZCARD rc:seedb:%s%s", "J", ""), 2); /* the 9:* buckets emptied */
    RC_CHECK_INT_EQ(RC_REDIS_INT(r, "EXISTS rc:seeds:%s%s", "J", ":9:0"), 0);
    /* the same window again (another scheduler's, say): all of it already gone */
    RC_CHECK_INT_EQ(assign(r, "J", win->element[0], "a", NULL), 0);
    RC_CHECK_INT_EQ(rc_seeds_count(r, "J"), 3);
    freeReplyObject(win);

    win = window(r, "J", 2);
    const char *front[] = {"J 0 9 0 http://a/new"};
    RC_CHECK_INT_EQ(submit(r, "J", front, 1, 2), 1);
    RC_CHECK_INT_EQ(assign(r, "J", win->element[0], "a", NULL), 2);
    freeReplyObject(win);
    const char *left2[] = {"0 9 0 http://a/new", "1 5 0 http://a/d1p5-2"};
    check_window(r, "J", left2, 2);

    win = window(r, "J", 2);
    const char *codes[] = {"2", "1"}; /* w9 is not a live worker: host b gets no owner */
    RC_CHECK_INT_EQ(assign(r, "J", win->element[0], "b", codes), 1);
    freeReplyObject(win);
    const char *left3[] = {"0 9 0 http://a/new"};
    check_window(r, "J", left3, 1);
    const char *qb[] = {"J 1 5 0 http://a/d1p5-2"};
    check_queue(r, "J", "b", qb, 1);
    win = window(r, "J", 5);
    RC_CHECK_INT_EQ(assign(r, "J", win->element[0], "a", NULL), 1);
    freeReplyObject(win);
    RC_CHECK_INT_EQ(rc_seeds_count(r, "J"), 0);
    RC_CHECK_INT_EQ(RC_REDIS_INT(r, "EXISTS rc:seedb:%s%s", "J", ""), 0);
    RC_CHECK_INT_EQ(RC_REDIS_INT(r, "SISMEMBER rc:frontier %s%s", "J", ""), 0);
    /* host a's queue in frontier order, the new one (priority 9) first */
    RC_CHECK_INT_EQ(RC_REDIS_INT(r, "ZCARD rc:q:J:%s%s", "a", ""), 6);
    redisReply *q = rc_redis_cmd(r, "ZRANGE rc:q:J:a 0 0");
    RC_CHECK(q && q->type == REDIS_REPLY_ARRAY && q->elements == 1);
    if (q && q->type == REDIS_REPLY_ARRAY && q->elements == 1)
        RC_CHECK_STR_EQ(q->element[0]->str, "J 0 9 0 http://a/d0p9-1");
    if (q)
        freeReplyObject(q);
}

/* A frontier kept by an older version (one zset, members with their crawlid) drains first,
 * then the buckets. */
static void test_legacy(rc_redis *r)
{
    const char *recs[] = {"L 0 1 0 http://l/3"};
    RC_CHECK_INT_EQ(submit(r, "L", recs, 1, 3), 1);
    RC_REDIS_OK(r, "ZADD rc:seeds:L 1 %s 2 %s", "L 0 1 0 http://l/1", "L 0 1 0 http://l/2");
    const char *want[] = {"L 0 1 0 http://l/1", "L 0 1 0 http://l/2", "0 1 0 http://l/3"};
    check_window(r, "L", want, 3);
    RC_CHECK_INT_EQ(rc_seeds_count(r, "L"), 3);
    redisReply *win = window(r, "L", 2);
    RC_CHECK_INT_EQ(assign(r, "L", win->element[0], "l", NULL), 2);
    freeReplyObject(win);
    RC_CHECK_INT_EQ(RC_REDIS_INT(r, "EXISTS rc:seeds:%s%s", "L", ""), 0);
    RC_CHECK_INT_EQ(RC_REDIS_INT(r, "SISMEMBER rc:frontier %s%s", "L", ""), 1);
    win = window(r, "L", 10);
    RC_CHECK_INT_EQ(assign(r, "L", win->element[0], "l", NULL), 1);
    freeReplyObject(win);
    const char *queued[] = {"L 0 1 0 http://l/1", "L 0 1 0 http://l/2", "L 0 1 0 http://l/3"};
    check_queue(r, "L", "l", queued, 3);
    RC_CHECK_INT_EQ(RC_REDIS_INT(r, "SISMEMBER rc:frontier %s%s", "L", ""), 0);
}

/* A compact record of another job (never, in practice) is kept as JSON, with its crawlid. */
static void test_other_job(rc_redis *r)
{
    const char *recs[] = {"Other 0 1 0 http://m/1"};
    RC_CHECK_INT_EQ(submit(r, "M", recs, 1, 5), 1);
    redisReply *rep = rc_redis_cmd(r, "LRANGE rc:seeds:M:1:0 0 -1");
    RC_CHECK(rep && rep->type == REDIS_REPLY_ARRAY && rep->elements == 1);
    if (rep && rep->type == REDIS_REPLY_ARRAY && rep->elements == 1)
        RC_CHECK(rep->element[0]->str[0] == '{' && strstr(rep->element[0]->str, "\"crawlid\":\"Other\"") != NULL);
    if (rep)
        freeReplyObject(rep);
    redisReply *win = window(r, "M", 5);
    RC_CHECK_INT_EQ(assign(r, "M", win->element[0], "m", NULL), 1);
    freeReplyObject(win);
    RC_CHECK_INT_EQ(RC_REDIS_INT(r, "ZCARD rc:q:M:%s%s", "m", ""), 1);
}

/* The calls of a command since the last CONFIG RESETSTAT (INFO commandstats), 0 for none. */
static long long calls_of(rc_redis *r, const char *name)
{
    redisReply *rep = rc_redis_cmd(r, "INFO commandstats");
    char key[64];
    snprintf(key, sizeof key, "cmdstat_%s:calls=", name);
    const char *at = rep && rep->type == REDIS_REPLY_STRING ? strstr(rep->str, key) : NULL;
    long long n = at ? strtoll(at + strlen(key), NULL, 10) : 0;
    if (rep)
        freeReplyObject(rep);
    return n;
}

/* A new host (no owner, no orphans anywhere) is set up in full without asking whether it is an
 * orphan, busy or already has the job in its turns; a second job joins its turns at the lowest
 * pass, and a job already there is not added again. */
static void test_new_host(rc_redis *r)
{
    const char *recs[] = {"N 0 1 0 http://n1/a"};
    RC_CHECK_INT_EQ(submit(r, "N", recs, 1, 6), 1);
    redisReply *win = window(r, "N", 5);
    RC_REDIS_OK(r, "CONFIG RESETSTAT%s%s", "", "");
    RC_CHECK_INT_EQ(assign(r, "N", win->element[0], "n1", NULL), 1);
    freeReplyObject(win);
    RC_CHECK_INT_EQ(calls_of(r, "zscore"), 1); /* w1's liveness only */
    RC_CHECK_INT_EQ(calls_of(r, "sismember"), 0);
    /* nor whether its queue exists or which jobs are in its turns: a host without an owner that
     * is no orphan has none (the one ZRANGE reads the job's buckets) */
    RC_CHECK_INT_EQ(calls_of(r, "zrange"), 1);
    RC_CHECK_INT_EQ(calls_of(r, "exists"), 6); /* 7 with the queue's */
    RC_CHECK_INT_EQ(RC_REDIS_INT(r, "ZSCORE rc:hjobs:n1 %s%s", "N", ""), 0);
    RC_CHECK_INT_EQ(RC_REDIS_INT(r, "SISMEMBER rc:jq:N %s%s", "n1", ""), 1);
    RC_CHECK_INT_EQ(RC_REDIS_INT(r, "SISMEMBER rc:wdoms:w1 %s%s", "n1", ""), 1);
    RC_CHECK_INT_EQ(RC_REDIS_INT(r, "ZSCORE rc:ready:w1 %s%s", "n1", ""), NOW);
    redisReply *o = rc_redis_cmd(r, "HGET rc:owner n1");
    RC_CHECK(o && o->type == REDIS_REPLY_STRING && strcmp(o->str, "w1") == 0);
    if (o)
        freeReplyObject(o);
    /* another job on the host joins at the lowest pass; the first job's next URL adds no turn */
    RC_REDIS_OK(r, "ZADD rc:hjobs:n1 3 %s%s", "N", "");
    const char *more[] = {"P 0 1 0 http://n1/b"};
    RC_CHECK_INT_EQ(submit(r, "P", more, 1, 7), 1);
    win = window(r, "P", 5);
    RC_CHECK_INT_EQ(assign(r, "P", win->element[0], "n1", NULL), 1);
    freeReplyObject(win);
    RC_CHECK_INT_EQ(RC_REDIS_INT(r, "ZSCORE rc:hjobs:n1 %s%s", "P", ""), 3);
    const char *again[] = {"P 0 1 0 http://n1/c"};
    RC_CHECK_INT_EQ(submit(r, "P", again, 1, 8), 1);
    RC_REDIS_OK(r, "ZINCRBY rc:hjobs:n1 1 %s%s", "P", "");
    RC_REDIS_OK(r, "DEL rc:q:P:n1%s%s", "", ""); /* its queue emptied, its turn not yet left */
    win = window(r, "P", 5);
    RC_CHECK_INT_EQ(assign(r, "P", win->element[0], "n1", NULL), 1);
    freeReplyObject(win);
    RC_CHECK_INT_EQ(RC_REDIS_INT(r, "ZSCORE rc:hjobs:n1 %s%s", "P", ""), 4);
    RC_CHECK_INT_EQ(RC_REDIS_INT(r, "ZCARD rc:hjobs:n1%s%s", "", ""), 2);
}

/* A stop deletes every bucket, the index and a legacy zset, and counts them all. */
static void test_stop(rc_redis *r)
{
    const char *recs[] = {"S 0 1 0 http://s/1", "S 1 1 0 http://s/2", "S 0 7 0 http://s/3", "S 0 1 0 http://s/4"};
    RC_CHECK_INT_EQ(submit(r, "S", recs, 4, 4), 4);
    RC_REDIS_OK(r, "ZADD rc:seeds:S 1 %s%s", "S 0 1 0 http://s/0", "");
    RC_CHECK_INT_EQ(rc_seeds_count(r, "S"), 5);
    rc_argv a;
    rc_argv_init(&a);
    rc_argv_set(&a, RC_STOP_CRAWLID, "S");
    rc_argv_set(&a, RC_STOP_STATE, "stopped");
    redisReply *rep = rc_redis_eval(r, RC_LUA_STOP, NOW, &a);
    rc_argv_release(&a);
    RC_CHECK(rep && rep->type == REDIS_REPLY_ARRAY && rep->elements == 2);
    if (rep && rep->type == REDIS_REPLY_ARRAY && rep->elements == 2)
        RC_CHECK_INT_EQ(rep->element[0]->integer, 5);
    if (rep)
        freeReplyObject(rep);
    rep = rc_redis_cmd(r, "KEYS rc:seed*:S*");
    RC_CHECK(rep && rep->type == REDIS_REPLY_ARRAY && rep->elements == 0);
    if (rep)
        freeReplyObject(rep);
    RC_CHECK_INT_EQ(RC_REDIS_INT(r, "SISMEMBER rc:frontier %s%s", "S", ""), 0);
    RC_CHECK_INT_EQ(rc_seeds_count(r, NULL), 0);
}

/* submit.lua with URLs http://HOST/at .. at+n-1 of job crawlid (bloom params bp) and their hash
 * values in one form: k = 1, rc_frontier_bloom_args's hex text, or the older decimal values
 * (k = nhash). The reply's added, -1 on an error reply. */
static long long submit_batch(rc_redis *r, const char *crawlid, const char *params, const char *host, int at, int n,
                              int hex)
{
    rc_sbloom_params bp;
    rc_sbloom_params_parse(params, &bp);
    rc_argv a;
    rc_argv_init(&a);
    rc_argv_set(&a, RC_SUBMIT_CRAWLID, crawlid);
    rc_argv_set(&a, RC_SUBMIT_SPEC, "{}");
    rc_argv_seti(&a, RC_SUBMIT_MAX_PAGES, 0);
    rc_argv_set(&a, RC_SUBMIT_BLOOM, params);
    rc_argv_setu(&a, RC_SUBMIT_K, hex ? RC_FRONTIER_BLOOM_K : rc_sbloom_nhash(&bp));
    rc_argv_seti(&a, RC_SUBMIT_N, n);
    for (int i = at; i < at + n; i++) {
        char rec[80], url[40];
        snprintf(url, sizeof url, "http://%s/%d", host, i);
        snprintf(rec, sizeof rec, "%s 0 5 0 %s", crawlid, url);
        rc_argv_add(&a, rec);
        if (hex) {
            rc_frontier_bloom_args(&a, &bp, url, strlen(url));
            continue;
        }
        uint32_t h[RC_SBLOOM_MAX_K];
        rc_sbloom_hashes(&bp, url, strlen(url), h);
        for (uint32_t j = 0; j < rc_sbloom_nhash(&bp); j++)
            rc_argv_addu(&a, h[j]);
    }
    redisReply *rep = rc_redis_eval(r, RC_LUA_SUBMIT, NOW, &a);
    rc_argv_release(&a);
    long long added = rep && rep->type == REDIS_REPLY_ARRAY ? rep->element[0]->integer : -1;
    if (rep)
        freeReplyObject(rep);
    return added;
}

/* submit.lua with n URLs of job crawlid whose bloom params are params, hashed as a worker
 * hashed them before the hex form, in batches of 500. */
static long long submit_hashed(rc_redis *r, const char *crawlid, const char *params, int n)
{
    rc_sbloom_params bp;
    RC_CHECK_INT_EQ(rc_sbloom_params_parse(params, &bp), 0);
    long long added = 0;
    for (int at = 0; at < n; at += 500) {
        long long got = submit_batch(r, crawlid, params, "b.test", at, n - at < 500 ? n - at : 500, 0);
        RC_CHECK(got >= 0);
        added += got > 0 ? got : 0;
    }
    return added;
}

/* The Lua grows a job's bloom exactly as shared/sbloom.c says, in both forms of the params: the
 * filters' count, the newest's count and every bitmap's length. */
static void check_bloom_sizes(rc_redis *r, const char *crawlid, const char *params, int n, uint32_t want_filters)
{
    RC_CHECK_INT_EQ(submit_hashed(r, crawlid, params, n), n);
    rc_sbloom_params bp;
    rc_sbloom_params_parse(params, &bp);
    uint32_t nf = 1;
    uint64_t left = (uint64_t)n;
    for (rc_sbloom_filter f;; nf++) {
        rc_sbloom_filter_at(&bp, nf - 1, &f);
        if (left < f.cap)
            break;
        left -= f.cap;
    }
    RC_CHECK_INT_EQ(nf, want_filters);
    redisReply *rep = rc_redis_cmd(r, "HMGET rc:job:%s bloom_filters bloom_count", crawlid);
    RC_CHECK(rep && rep->type == REDIS_REPLY_ARRAY && rep->elements == 2 && rep->element[0]->str);
    if (rep && rep->type == REDIS_REPLY_ARRAY && rep->element[0]->str) {
        int64_t got_n = -1, got_count = -1;
        rc_parse_i64(rep->element[0]->str, 0, INT64_MAX, &got_n);
        rc_parse_i64(rep->element[1]->str, 0, INT64_MAX, &got_count);
        RC_CHECK_INT_EQ(got_n, nf);
        RC_CHECK_INT_EQ(got_count, left);
    }
    if (rep)
        freeReplyObject(rep);
    for (uint32_t i = 0; i < nf; i++) {
        rc_sbloom_filter f;
        rc_sbloom_filter_at(&bp, i, &f);
        char key[64];
        snprintf(key, sizeof key, "rc:bloom:%s:%u", crawlid, i);
        RC_CHECK_INT_EQ(RC_REDIS_INT(r, "STRLEN %s%s", key, ""), (long long)(f.mg / 8));
    }
}

static void test_bloom_sizes(rc_redis *r)
{
    /* 3,000 URLs: doubling from 1,024 bits, 7 filters; jumping to 65,536 at filter 1, 3. */
    check_bloom_sizes(r, "BOLD", "sbf:1024:1e-06:1", 3000, 7);
    check_bloom_sizes(r, "BNEW", "sbf:1024:1e-06:1:65536", 3000, 3);
}

/* A bitmap's bytes as hex, to compare two (malloc'd; "" when the key is absent). */
static char *bitmap_of(rc_redis *r, const char *crawlid, uint32_t i)
{
    redisReply *rep = rc_redis_cmd(r, "GET rc:bloom:%s:%u", crawlid, i);
    size_t len = rep && rep->type == REDIS_REPLY_STRING ? rep->len : 0;
    char *out = rc_xcalloc(2 * len + 1, 1);
    for (size_t j = 0; j < len; j++)
        snprintf(out + 2 * j, 3, "%02x", (unsigned char)rep->str[j]);
    if (rep)
        freeReplyObject(rep);
    return out;
}

/* The hex text sets exactly the bits the decimal values set, in every filter and with groups
 * (a wrong decoding puts bits elsewhere, and the URLs would be found again as new). */
static void test_bloom_hex(rc_redis *r)
{
    const char *params[] = {"sbf:1024:1e-06:1:65536", "sbf:1024:0.001:3:65536"};
    for (int p = 0; p < 2; p++) {
        char dec[16], hex[16];
        snprintf(dec, sizeof dec, "HDEC%d", p);
        snprintf(hex, sizeof hex, "HHEX%d", p);
        /* The same URLs new in both (a false positive or two at 1e-3 alike). */
        long long d = submit_batch(r, dec, params[p], "f.test", 0, 1500, 0);
        RC_CHECK(d >= 1490);
        RC_CHECK_INT_EQ(submit_batch(r, hex, params[p], "f.test", 0, 1500, 1), d);
        RC_CHECK_INT_EQ(submit_batch(r, hex, params[p], "f.test", 0, 1500, 1), 0); /* all seen, in either form */
        RC_CHECK_INT_EQ(submit_batch(r, hex, params[p], "f.test", 0, 1500, 0), 0);
        long long nf = RC_REDIS_INT(r, "HGET rc:job:%s %s", dec, "bloom_filters");
        RC_CHECK(nf >= 2); /* older filters read, the newest set */
        RC_CHECK_INT_EQ(RC_REDIS_INT(r, "HGET rc:job:%s %s", hex, "bloom_filters"), nf);
        for (uint32_t i = 0; i < (uint32_t)nf; i++) {
            char *a = bitmap_of(r, dec, i), *b = bitmap_of(r, hex, i);
            RC_CHECK(strlen(a) > 0 && strcmp(a, b) == 0);
            free(a);
            free(b);
        }
    }
    /* A text of the wrong length is an error, not bits set somewhere. */
    rc_argv a;
    rc_argv_init(&a);
    rc_argv_set(&a, RC_SUBMIT_CRAWLID, "HBAD");
    rc_argv_set(&a, RC_SUBMIT_SPEC, "{}");
    rc_argv_seti(&a, RC_SUBMIT_MAX_PAGES, 0);
    rc_argv_set(&a, RC_SUBMIT_BLOOM, params[0]);
    rc_argv_setu(&a, RC_SUBMIT_K, RC_FRONTIER_BLOOM_K);
    rc_argv_seti(&a, RC_SUBMIT_N, 1);
    rc_argv_add(&a, "HBAD 0 5 0 http://f.test/bad");
    rc_argv_add(&a, "deadbeef");
    redisReply *rep = rc_redis_eval(r, RC_LUA_SUBMIT, NOW, &a);
    rc_argv_release(&a);
    RC_CHECK(rep && rep->type == REDIS_REPLY_ERROR);
    if (rep)
        freeReplyObject(rep);
}

int main(void)
{
    rc_redis *r = rc_test_redis_open(&redis, "frontier");
    if (!r)
        return 1;
    test_order(r);
    test_assign(r);
    test_legacy(r);
    test_other_job(r);
    test_stop(r);
    test_bloom_sizes(r);
    test_bloom_hex(r);
    test_new_host(r);
    rc_redis_free(r);
    rc_test_redis_cleanup(&redis);
    return rc_test_done("test_frontier");
}
