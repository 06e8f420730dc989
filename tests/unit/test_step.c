/* test_step.c - step.lua, a worker's round trip in one call (shared/step.c builds its
 * arguments), against a real redis-server (started here on a unix socket in a temp dir,
 * stopped by pid): a batch of completes with links, a lost lease in the middle of it, a
 * heartbeat and a take riding along, and the reply's shape, each part what the single script
 * (complete.lua, take.lua, hb.lua) answers. */
#include <hiredis/hiredis.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "argv.h"
#include "rc_test.h"
#include "redis.h"
#include "scripts.h"
#include "seeds.h"
#include "rc_test_redis.h"
#include "step.h"
#include "util.h"

#define FAR 9999999999999ull /* a lease deadline that never passes here */
#define K 16                 /* bloom hash values per link (one group) */

static rc_test_redis redis;

/* A running job J with three URLs leased by w1 (on host h, lease members "h<TAB>record"), w1
 * registered, and host h2 ready for w1 with one URL queued. */
static void seed(rc_redis *r)
{
    RC_REDIS_OK(r, "HSET rc:job:J state running pending 4 bloom %s spiderid %s%s", "sbf:1024:1e-06:1", "link", "");
    RC_REDIS_OK(r, "ZADD rc:workers 1 %s%s%s", "w1", "", "");
    const char *leased[] = {"J 0 1 0 http://h/a", "J 0 1 0 http://h/c"};
    for (size_t i = 0; i < 2; i++) {
        char lm[64];
        snprintf(lm, sizeof lm, "h\t%s", leased[i]);
        RC_REDIS_OK(r, "ZADD rc:lease:w1 9999999999999 %s%s%s", lm, "", "");
    }
    RC_REDIS_OK(r, "ZADD rc:ready:w1 0 %s%s%s", "h2", "", "");
    RC_REDIS_OK(r, "ZADD rc:hjobs:h2 0 %s%s%s", "J", "", "");
    RC_REDIS_OK(r, "ZADD rc:q:J:h2 1 %s%s%s", "J 1 1 0 http://h2/x", "", "");
}

/* The completes added to steps, packed as a worker keeps them: released at the end. */
static rc_argv_packed packed[4 * RC_STEP_MAX];
static int n_packed;

static void step_add(rc_step *s, const rc_argv *complete)
{
    if (n_packed == (int)(sizeof packed / sizeof packed[0]))
        abort();
    rc_argv_pack(complete, &packed[n_packed]);
    rc_step_add(s, &packed[n_packed++]);
}

/* step.lua run on s, as a worker sends it: the completes added go from the second argument on. */
static redisReply *step_eval(rc_redis *r, uint64_t now_ms, const rc_step *s)
{
    rc_argv flat;
    rc_step_flatten(s, &flat);
    redisReply *rep = rc_redis_eval(r, RC_LUA_STEP, now_ms, &flat);
    rc_argv_release(&flat);
    return rep;
}

/* complete.lua's vector for lease "h<TAB>record" with n links (each K hash values). */
static void complete_args(rc_argv *a, const char *record, int n_links, int salt)
{
    char lm[64];
    snprintf(lm, sizeof lm, "h\t%s", record);
    rc_argv_init(a);
    rc_argv_set(a, RC_COMPLETE_WORKER, "w1");
    rc_argv_set(a, RC_COMPLETE_LEASE, lm);
    rc_argv_set(a, RC_COMPLETE_HOST, "h");
    rc_argv_setu(a, RC_COMPLETE_NEXT_MS, 1000);
    rc_argv_set(a, RC_COMPLETE_OUTCOME, "done");
    rc_argv_set(a, RC_COMPLETE_REASON, "");
    rc_argv_seti(a, RC_COMPLETE_STATUS, 200);
    rc_argv_seti(a, RC_COMPLETE_ITEMS, 0);
    rc_argv_seti(a, RC_COMPLETE_ITEMS_DROPPED, 0);
    rc_argv_seti(a, RC_COMPLETE_REFRESH_AT, 0);
    rc_argv_set(a, RC_COMPLETE_REVISIT, "");
    rc_argv_seti(a, RC_COMPLETE_K, K);
    rc_argv_seti(a, RC_COMPLETE_N, n_links);
    rc_argv_seti(a, RC_COMPLETE_DENIED, 0);
    rc_argv_seti(a, RC_COMPLETE_AWAY, 0);
    for (int l = 0; l < n_links; l++) {
        char link[64];
        snprintf(link, sizeof link, "J 1 1 0 http://h/%d-%d", salt, l);
        rc_argv_add(a, link);
        for (int j = 0; j < K; j++)
            rc_argv_addu(a, (uint64_t)(salt * 100003 + l * 7919 + j * 104729 + 17));
    }
}

static void check_complete(const redisReply *c, long long ok, long long added, long long pending)
{
    RC_CHECK_INT_EQ(c->element[0]->integer, ok);
    RC_CHECK_INT_EQ(c->element[1]->integer, added);
    if (ok == 1)
        RC_CHECK_INT_EQ(c->element[2]->integer, pending);
}

/* One call: a beat, a (two links), b (never leased: lost), c (no links), then a take. */
static void test_batch(rc_redis *r)
{
    seed(r);
    rc_step s;
    rc_step_init(&s, "w1");
    const char *fields[] = {"inflight", "5", "fetched", "7"};
    rc_step_beat(&s, "beat", fields, 4);
    rc_argv a, b, c;
    complete_args(&a, "J 0 1 0 http://h/a", 2, 1);
    complete_args(&b, "J 0 1 0 http://h/b", 3, 2);
    complete_args(&c, "J 0 1 0 http://h/c", 0, 3);
    step_add(&s, &a);
    step_add(&s, &b);
    step_add(&s, &c);
    rc_step_take(&s, 4, 60000, "127.0.0.1");
    redisReply *rep = step_eval(r, 5000, &s);
    RC_CHECK(rep != NULL);
    if (rep && rep->type == REDIS_REPLY_ERROR)
        fprintf(stderr, "  step.lua: %s\n", rep->str);
    RC_CHECK_INT_EQ(rc_step_reply_check(&s, rep), 0);
    if (rep && rc_step_reply_check(&s, rep) == 0) {
        RC_CHECK_INT_EQ(rc_step_reply_beat(rep), 1);
        check_complete(rc_step_reply_complete(rep, 0), 1, 2, 5); /* 4 + 2 links - a */
        check_complete(rc_step_reply_complete(rep, 1), -1, 0, 0);
        check_complete(rc_step_reply_complete(rep, 2), 1, 0, 4); /* the lost one changed nothing */
        const redisReply *t = rc_step_reply_take(rep);
        RC_CHECK(t != NULL && t->element[0]->elements == 1);
        if (t && t->element[0]->elements == 1)
            RC_CHECK_STR_EQ(t->element[0]->element[0]->str, "h2\tJ 1 1 0 http://h2/x");
        /* h2's one URL was its last queued one: the take says so (its connection need not stay) */
        RC_CHECK(t != NULL && t->element[2]->elements == 1);
        if (t && t->element[2]->elements == 1)
            RC_CHECK_INT_EQ(t->element[2]->element[0]->integer, 1);
    }
    if (rep)
        freeReplyObject(rep);
    /* What the parts did in Redis: the heartbeat's fields, the leases acked, the links queued
     * (b's three links never reached the bloom), the take's lease. */
    RC_CHECK_INT_EQ(RC_REDIS_INT(r, "HGET rc:worker:%s %s", "w1", "fetched"), 7);
    RC_CHECK_INT_EQ(RC_REDIS_INT(r, "ZSCORE rc:workers %s%s", "w1", ""), 5000);
    RC_CHECK_INT_EQ(rc_seeds_count(r, "J"), 2);
    RC_CHECK_INT_EQ(RC_REDIS_INT(r, "HGET rc:job:%s %s", "J", "fetched"), 2);
    RC_CHECK_INT_EQ(RC_REDIS_INT(r, "ZCARD rc:lease:%s%s", "w1", ""), 1); /* h2's, from the take */
    RC_CHECK_INT_EQ(RC_REDIS_INT(r, "SISMEMBER rc:busy:w1 %s%s", "h2", ""), 1);

    /* The same completes again (an ack whose reply was lost, resent): every lease is gone, so
     * each is {-1} and nothing changes; no heartbeat, no take: {-1, [...], []}. */
    rc_step again;
    rc_step_init(&again, "w1");
    step_add(&again, &a);
    step_add(&again, &c);
    rep = step_eval(r, 6000, &again);
    RC_CHECK_INT_EQ(rc_step_reply_check(&again, rep), 0);
    if (rep && rc_step_reply_check(&again, rep) == 0) {
        RC_CHECK_INT_EQ(rc_step_reply_beat(rep), -1);
        check_complete(rc_step_reply_complete(rep, 0), -1, 0, 0);
        check_complete(rc_step_reply_complete(rep, 1), -1, 0, 0);
        RC_CHECK(rc_step_reply_take(rep) == NULL);
    }
    if (rep)
        freeReplyObject(rep);
    RC_CHECK_INT_EQ(RC_REDIS_INT(r, "HGET rc:job:%s %s", "J", "pending"), 4);
    RC_CHECK_INT_EQ(rc_seeds_count(r, "J"), 2);
    rc_step_release(&again);
    rc_step_release(&s);
    rc_argv_release(&a);
    rc_argv_release(&b);
    rc_argv_release(&c);
}

/* A reaped worker's beat is refused: its take is skipped (it must register again first). */
static void test_reaped(rc_redis *r)
{
    RC_REDIS_OK(r, "ZADD rc:ready:w9 0 %s%s%s", "h2", "", "");
    rc_step s;
    rc_step_init(&s, "w9");
    rc_step_beat(&s, "beat", NULL, 0);
    rc_step_take(&s, 4, 60000, "127.0.0.1");
    redisReply *rep = step_eval(r, 7000, &s);
    RC_CHECK_INT_EQ(rc_step_reply_check(&s, rep), 0);
    if (rep && rc_step_reply_check(&s, rep) == 0) {
        RC_CHECK_INT_EQ(rc_step_reply_beat(rep), 0);
        const redisReply *t = rc_step_reply_take(rep);
        RC_CHECK(t != NULL && t->element[0]->elements == 0);
    }
    if (rep)
        freeReplyObject(rep);
    RC_CHECK_INT_EQ(RC_REDIS_INT(r, "ZSCORE rc:workers %s%s", "w9", ""), -1);
    rc_step_release(&s);
}

/* The same page through complete.lua and through a one-complete step: the same answer. */
static void test_same_as_complete(rc_redis *r)
{
    RC_REDIS_OK(r, "ZADD rc:lease:w1 9999999999999 %s%s%s", "h\tJ 0 1 0 http://h/d", "", "");
    RC_REDIS_OK(r, "ZADD rc:lease:w1 9999999999999 %s%s%s", "h\tJ 0 1 0 http://h/e", "", "");
    RC_REDIS_OK(r, "HINCRBY rc:job:J pending %s%s%s", "2", "", "");
    rc_argv d, e;
    complete_args(&d, "J 0 1 0 http://h/d", 2, 4);
    complete_args(&e, "J 0 1 0 http://h/e", 2, 5);
    redisReply *one = rc_redis_eval(r, RC_LUA_COMPLETE, 8000, &d);
    rc_step s;
    rc_step_init(&s, "w1");
    step_add(&s, &e);
    redisReply *rep = step_eval(r, 8000, &s);
    RC_CHECK(one && one->type == REDIS_REPLY_ARRAY && one->elements == 4);
    RC_CHECK_INT_EQ(rc_step_reply_check(&s, rep), 0);
    if (one && one->elements == 3 && rep && rc_step_reply_check(&s, rep) == 0) {
        const redisReply *c = rc_step_reply_complete(rep, 0);
        RC_CHECK_INT_EQ(one->element[0]->integer, 1);
        RC_CHECK_INT_EQ(c->element[0]->integer, 1);
        RC_CHECK_INT_EQ(c->element[1]->integer, one->element[1]->integer);
        /* e's links counted, then e done */
        RC_CHECK_INT_EQ(c->element[2]->integer, one->element[2]->integer + c->element[1]->integer - 1);
    }
    if (one)
        freeReplyObject(one);
    if (rep)
        freeReplyObject(rep);
    rc_step_release(&s);
    rc_argv_release(&d);
    rc_argv_release(&e);
}

/* A full batch: RC_STEP_MAX completes with links in one call. */
static void test_full_batch(rc_redis *r)
{
    rc_step s;
    rc_step_init(&s, "w2");
    static rc_argv all[RC_STEP_MAX];
    RC_REDIS_OK(r, "HINCRBY rc:job:J pending %s%s%s", "64", "", "");
    for (int i = 0; i < RC_STEP_MAX; i++) {
        char rec[64], lm[80];
        snprintf(rec, sizeof rec, "J 0 1 0 http://h/f%d", i);
        snprintf(lm, sizeof lm, "h\t%s", rec);
        RC_REDIS_OK(r, "ZADD rc:lease:w2 9999999999999 %s%s%s", lm, "", "");
        complete_args(&all[i], rec, 3, 10 + i);
        rc_argv_set(&all[i], RC_COMPLETE_WORKER, "w2");
        step_add(&s, &all[i]); /* borrowed until the step is answered */
    }
    long long before = rc_seeds_count(r, "J");
    redisReply *rep = step_eval(r, 9000, &s);
    RC_CHECK_INT_EQ(rc_step_reply_check(&s, rep), 0);
    int acked = 0;
    long long added = 0;
    for (int i = 0; rep && rc_step_reply_check(&s, rep) == 0 && i < RC_STEP_MAX; i++) {
        acked += rc_step_reply_complete(rep, i)->element[0]->integer == 1;
        added += rc_step_reply_complete(rep, i)->element[1]->integer;
    }
    RC_CHECK_INT_EQ(acked, RC_STEP_MAX);
    RC_CHECK_INT_EQ(added, 3 * RC_STEP_MAX);
    RC_CHECK_INT_EQ(rc_seeds_count(r, "J") - before, 3 * RC_STEP_MAX);
    RC_CHECK_INT_EQ(RC_REDIS_INT(r, "ZCARD rc:lease:%s%s", "w2", ""), 0);
    if (rep)
        freeReplyObject(rep);
    rc_step_release(&s);
    for (int i = 0; i < RC_STEP_MAX; i++)
        rc_argv_release(&all[i]);
}

/* Links the worker found robots.txt forbids (the last `denied` of a complete's links) go into
 * the bloom only: each new one counts in robots_denied and robots_denied_links, none enters the
 * frontier; the same links on a later page count no more. Two completes in one step, so the
 * second is read past the first's denied links. */
static void test_denied_links(rc_redis *r)
{
    RC_REDIS_OK(r, "ZADD rc:lease:w1 9999999999999 %s%s%s", "h\tJ 0 1 0 http://h/f", "", "");
    RC_REDIS_OK(r, "ZADD rc:lease:w1 9999999999999 %s%s%s", "h\tJ 0 1 0 http://h/g", "", "");
    RC_REDIS_OK(r, "HINCRBY rc:job:J pending %s%s%s", "2", "", "");
    long long pending = RC_REDIS_INT(r, "HGET rc:job:%s %s", "J", "pending");
    long long before = rc_seeds_count(r, "J");
    rc_argv f, g;
    complete_args(&f, "J 0 1 0 http://h/f", 3, 6); /* 1 to follow, 2 denied */
    rc_argv_seti(&f, RC_COMPLETE_N, 1);
    rc_argv_seti(&f, RC_COMPLETE_DENIED, 2);
    complete_args(&g, "J 0 1 0 http://h/g", 3, 6); /* the same links: all seen */
    rc_argv_seti(&g, RC_COMPLETE_N, 1);
    rc_argv_seti(&g, RC_COMPLETE_DENIED, 2);
    rc_step s;
    rc_step_init(&s, "w1");
    step_add(&s, &f);
    step_add(&s, &g);
    redisReply *rep = step_eval(r, 9500, &s);
    if (rep && rep->type == REDIS_REPLY_ERROR)
        fprintf(stderr, "  step.lua: %s\n", rep->str);
    RC_CHECK_INT_EQ(rc_step_reply_check(&s, rep), 0);
    if (rep && rc_step_reply_check(&s, rep) == 0) {
        const redisReply *c1 = rc_step_reply_complete(rep, 0), *c2 = rc_step_reply_complete(rep, 1);
        check_complete(c1, 1, 1, pending);     /* + 1 link - f */
        check_complete(c2, 1, 0, pending - 1); /* - g */
        RC_CHECK(c1->elements == 4 && c1->element[3]->integer == 2);
        RC_CHECK(c2->elements == 4 && c2->element[3]->integer == 0);
    }
    if (rep)
        freeReplyObject(rep);
    RC_CHECK_INT_EQ(rc_seeds_count(r, "J") - before, 1);
    RC_CHECK_INT_EQ(RC_REDIS_INT(r, "HGET rc:job:%s %s", "J", "robots_denied"), 2);
    RC_CHECK_INT_EQ(RC_REDIS_INT(r, "HGET rc:job:%s %s", "J", "robots_denied_links"), 2);
    rc_step_release(&s);
    rc_argv_release(&f);
    rc_argv_release(&g);
}

/* A complete whose host has nothing queued and no delay left lets the host go at once (owner,
 * worker's hosts and ready all without it); with a delay still to run, or another URL queued,
 * the host waits in ready for its next allowed time. */
static void test_complete_lets_go(rc_redis *r)
{
    const char *hosts[] = {"h", "h", "h"};
    const char *next[] = {"9000", "9500", "9000"}; /* the call runs at 9000 */
    const long long next_ms[] = {9000, 9500, 9000};
    for (int i = 0; i < 3; i++) {
        RC_REDIS_OK(r, "FLUSHALL%s%s%s", "", "", "");
        RC_REDIS_OK(r, "HSET rc:job:J state running pending %s%s%s", "1", "", "");
        RC_REDIS_OK(r, "ZADD rc:workers 1 %s%s%s", "w1", "", "");
        RC_REDIS_OK(r, "HSET rc:owner %s w1%s%s", hosts[i], "", "");
        RC_REDIS_OK(r, "SADD rc:wdoms:w1 %s%s%s", hosts[i], "", "");
        RC_REDIS_OK(r, "ZADD rc:lease:w1 9999999999999 %s%s%s", "h\tJ 0 1 0 http://h/a", "", "");
        if (i == 2) {
            RC_REDIS_OK(r, "ZADD rc:hjobs:h 0 %s%s%s", "J", "", "");
            RC_REDIS_OK(r, "ZADD rc:q:J:h 1 %s%s%s", "J 0 1 0 http://h/b", "", "");
        }
        rc_argv a;
        complete_args(&a, "J 0 1 0 http://h/a", 0, 1);
        rc_argv_set(&a, RC_COMPLETE_NEXT_MS, next[i]);
        redisReply *rep = rc_redis_eval(r, RC_LUA_COMPLETE, 9000, &a);
        RC_CHECK(rep && rep->type == REDIS_REPLY_ARRAY && rep->element[0]->integer == 1);
        if (rep)
            freeReplyObject(rep);
        int kept = i > 0;
        RC_CHECK_INT_EQ(RC_REDIS_INT(r, "ZSCORE rc:ready:w1 %s%s", "h", ""), kept ? next_ms[i] : -1);
        RC_CHECK_INT_EQ(RC_REDIS_INT(r, "SISMEMBER rc:wdoms:w1 %s%s", "h", ""), kept);
        RC_CHECK_INT_EQ(RC_REDIS_INT(r, "HEXISTS rc:owner %s%s", "h", ""), kept);
        rc_argv_release(&a);
    }
}

/* The take names the members that were their host's last queued URL: not h3's first of two, nor
 * h5's, whose host another job still has work on; h4's one URL. */
static void test_take_last(rc_redis *r)
{
    RC_REDIS_OK(r, "FLUSHALL%s%s%s", "", "", "");
    RC_REDIS_OK(r, "HSET rc:job:J state running pending %s%s%s", "5", "", "");
    RC_REDIS_OK(r, "HSET rc:job:J2 state running pending %s%s%s", "1", "", "");
    RC_REDIS_OK(r, "ZADD rc:workers 1 %s%s%s", "w1", "", "");
    RC_REDIS_OK(r, "ZADD rc:ready:w1 1 h3 2 h4 3 %s%s%s", "h5", "", "");
    RC_REDIS_OK(r, "ZADD rc:hjobs:h3 0 %s%s%s", "J", "", "");
    RC_REDIS_OK(r, "ZADD rc:q:J:h3 1 %s 2 %s%s", "J 1 1 0 http://h3/a", "J 1 1 0 http://h3/b", "");
    RC_REDIS_OK(r, "ZADD rc:hjobs:h4 0 %s%s%s", "J", "", "");
    RC_REDIS_OK(r, "ZADD rc:q:J:h4 1 %s%s%s", "J 1 1 0 http://h4/a", "", "");
    RC_REDIS_OK(r, "ZADD rc:hjobs:h5 0 J 1 %s%s%s", "J2", "", "");
    RC_REDIS_OK(r, "ZADD rc:q:J:h5 1 %s%s%s", "J 1 1 0 http://h5/a", "", "");
    RC_REDIS_OK(r, "ZADD rc:q:J2:h5 1 %s%s%s", "J2 1 1 0 http://h5/b", "", "");
    rc_step s;
    rc_step_init(&s, "w1");
    rc_step_take(&s, 3, 60000, "127.0.0.1");
    redisReply *rep = step_eval(r, 10000, &s);
    RC_CHECK_INT_EQ(rc_step_reply_check(&s, rep), 0);
    const redisReply *t = rep && rc_step_reply_check(&s, rep) == 0 ? rc_step_reply_take(rep) : NULL;
    RC_CHECK(t != NULL && t->element[0]->elements == 3 && t->element[2]->elements == 1);
    if (t && t->element[0]->elements == 3 && t->element[2]->elements == 1) {
        RC_CHECK_STR_EQ(t->element[0]->element[1]->str, "h4\tJ 1 1 0 http://h4/a");
        RC_CHECK_INT_EQ(t->element[2]->element[0]->integer, 2);
    }
    if (rep)
        freeReplyObject(rep);
    rc_step_release(&s);
}

/* A sharded keyspace: a page's links of another shard's hosts (away) skip this shard's bloom
 * and frontier, wait in its outbox for that shard (one line each: crawlid, record, hash values)
 * and count in the job's pending until forward.lua takes them off, after the scheduler put them
 * into their shard: pending rises before the page's own end lowers it, and falls only then. */
static void test_away_links(rc_redis *r)
{
    RC_REDIS_OK(r, "ZADD rc:lease:w1 9999999999999 %s%s%s", "h\tJ 0 1 0 http://h/away", "", "");
    RC_REDIS_OK(r, "HSET rc:job:J state running pending %s%s%s", "1", "", "");
    long long pending = 1, before = rc_seeds_count(r, "J");
    rc_argv f;
    complete_args(&f, "J 0 1 0 http://h/away", 3, 9); /* 1 to follow, then 2 for shard 2 */
    rc_argv_seti(&f, RC_COMPLETE_N, 1);
    rc_argv_seti(&f, RC_COMPLETE_AWAY, 2);
    rc_argv a; /* the same links with the shard's number before each of the last two */
    rc_argv_init(&a);
    for (int i = 0; i < f.n; i++) {
        if (i == RC_COMPLETE_NARGS + 1 + K || i == RC_COMPLETE_NARGS + 2 * (1 + K))
            rc_argv_add(&a, "2");
        rc_argv_addn(&a, f.v[i], f.len[i]);
    }
    rc_step s;
    rc_step_init(&s, "w1");
    step_add(&s, &a);
    redisReply *rep = step_eval(r, 9600, &s);
    RC_CHECK_INT_EQ(rc_step_reply_check(&s, rep), 0);
    if (rep && rc_step_reply_check(&s, rep) == 0)
        check_complete(rc_step_reply_complete(rep, 0), 1, 1, pending + 2); /* + 1 + 2 away - the page */
    if (rep)
        freeReplyObject(rep);
    RC_CHECK_INT_EQ(rc_seeds_count(r, "J"), before + 1);
    RC_CHECK_INT_EQ(RC_REDIS_INT(r, "LLEN rc:out:%s%s", "2", ""), 2);
    redisReply *out = rc_redis_cmd(r, "LRANGE rc:out:2 0 -1");
    RC_CHECK(out && out->type == REDIS_REPLY_ARRAY && out->elements == 2);
    if (!out || out->type != REDIS_REPLY_ARRAY || out->elements != 2)
        return;
    RC_CHECK(strncmp(out->element[0]->str, "J\tJ 1 1 0 http://h/9-1\t", 23) == 0);
    rc_argv fw;
    rc_argv_init(&fw);
    rc_argv_set(&fw, RC_FORWARD_TARGET, "2");
    rc_argv_set(&fw, RC_FORWARD_N, "2");
    rc_argv_set(&fw, RC_FORWARD_FIRST, out->element[1]->str); /* not the head: another took it */
    rc_argv_set(&fw, RC_FORWARD_LAST, out->element[1]->str);
    rep = rc_redis_eval(r, RC_LUA_FORWARD, 9700, &fw);
    RC_CHECK(rep && rep->type == REDIS_REPLY_INTEGER && rep->integer == -1);
    if (rep)
        freeReplyObject(rep);
    RC_CHECK_INT_EQ(RC_REDIS_INT(r, "LLEN rc:out:%s%s", "2", ""), 2);
    RC_CHECK_INT_EQ(RC_REDIS_INT(r, "HGET rc:job:%s %s", "J", "pending"), pending + 2);
    rc_argv_set(&fw, RC_FORWARD_FIRST, out->element[0]->str);
    rep = rc_redis_eval(r, RC_LUA_FORWARD, 9700, &fw);
    RC_CHECK(rep && rep->type == REDIS_REPLY_INTEGER && rep->integer == 0);
    if (rep)
        freeReplyObject(rep);
    freeReplyObject(out);
    RC_CHECK_INT_EQ(RC_REDIS_INT(r, "HGET rc:job:%s %s", "J", "pending"), pending);
    RC_CHECK_INT_EQ(RC_REDIS_INT(r, "EXISTS rc:out:%s%s", "2", ""), 0);
    rc_argv_release(&fw);
    rc_argv_release(&a);
    rc_argv_release(&f);
    rc_step_release(&s);
}

static void stat_at(rc_redis *r, uint64_t now_ms, const char *name, long long n)
{
    rc_argv a;
    rc_argv_init(&a);
    rc_argv_add(&a, name);
    rc_argv_addi(&a, n);
    redisReply *rep = rc_redis_eval(r, RC_LUA_STAT, now_ms, &a);
    RC_CHECK(rep && rep->type == REDIS_REPLY_INTEGER && rep->integer == 1);
    if (rep)
        freeReplyObject(rep);
    rc_argv_release(&a);
}

/* Rolling counters: the first count of a minute drops the bucket a day old (and the hour's 8
 * days old) and lists the name; the next counts of that minute add up as ever. A worker's
 * per-minute wstat keeps an hour the same way. */
static void test_counters_trimmed(rc_redis *r)
{
    RC_REDIS_OK(r, "FLUSHALL%s%s%s", "", "", "");
    const uint64_t m0 = 30000000ull; /* a minute number */
    stat_at(r, m0 * 60000, "pages:link:200", 3);
    RC_CHECK_INT_EQ(RC_REDIS_INT(r, "HGET rc:stats:pages:link:200 %s%s", "m:30000000", ""), 3);
    RC_CHECK_INT_EQ(RC_REDIS_INT(r, "SISMEMBER rc:stats:names %s%s", "pages:link:200", ""), 1);
    uint64_t later = (m0 + 1441) * 60000;
    stat_at(r, later, "pages:link:200", 2);
    stat_at(r, later + 1000, "pages:link:200", 5);
    RC_CHECK_INT_EQ(RC_REDIS_INT(r, "HEXISTS rc:stats:pages:link:200 %s%s", "m:30000000", ""), 0);
    RC_CHECK_INT_EQ(RC_REDIS_INT(r, "HGET rc:stats:pages:link:200 %s%s", "m:30001441", ""), 7);
    RC_CHECK_INT_EQ(RC_REDIS_INT(r, "HGET rc:stats:pages:link:200 %s%s", "total", ""), 10);

    RC_REDIS_OK(r, "HSET rc:job:J state running pending %s%s%s", "3", "", "");
    RC_REDIS_OK(r, "ZADD rc:workers 1 %s%s%s", "w1", "", "");
    RC_REDIS_OK(r, "HSET rc:wstat:w1 %s 4%s%s", "29999940", "", ""); /* an hour before m0 */
    const char *urls[] = {"J 0 1 0 http://h/a", "J 0 1 0 http://h/b"};
    for (int i = 0; i < 2; i++) {
        char lm[64];
        snprintf(lm, sizeof lm, "h\t%s", urls[i]);
        RC_REDIS_OK(r, "ZADD rc:lease:w1 9999999999999 %s%s%s", lm, "", "");
        rc_argv a;
        complete_args(&a, urls[i], 0, 1);
        redisReply *rep = rc_redis_eval(r, RC_LUA_COMPLETE, m0 * 60000 + (uint64_t)i, &a);
        RC_CHECK(rep && rep->type == REDIS_REPLY_ARRAY && rep->element[0]->integer == 1);
        if (rep)
            freeReplyObject(rep);
        rc_argv_release(&a);
    }
    RC_CHECK_INT_EQ(RC_REDIS_INT(r, "HEXISTS rc:wstat:w1 %s%s", "29999940", ""), 0);
    RC_CHECK_INT_EQ(RC_REDIS_INT(r, "HGET rc:wstat:w1 %s%s", "30000000", ""), 2);
}

/* Buckets a counter left behind while idle (no count in the minute that drops them) go all at
 * once when the hash holds more fields than its window can: stats keep a day of minutes and 8
 * days of hours, wstat an hour. Without the sweep they stayed for good. */
static void test_idle_buckets_swept(rc_redis *r)
{
    RC_REDIS_OK(r, "FLUSHALL%s%s%s", "", "", "");
    const uint64_t m0 = 30000000ull, h0 = m0 / 60;
    char f[32];
    for (int i = 0; i < 1700; i++) { /* two jobs' worth of minutes, days ago */
        snprintf(f, sizeof f, "m:%llu", (unsigned long long)(m0 - 5000 - (uint64_t)i));
        RC_REDIS_OK(r, "HSET rc:stats:pages:link:200 %s 1%s%s", f, "", "");
    }
    snprintf(f, sizeof f, "m:%llu", (unsigned long long)(m0 - 10));
    RC_REDIS_OK(r, "HSET rc:stats:pages:link:200 %s 4%s%s", f, "", ""); /* inside the day */
    snprintf(f, sizeof f, "h:%llu", (unsigned long long)(h0 - 300));
    RC_REDIS_OK(r, "HSET rc:stats:pages:link:200 %s 9%s%s", f, "", ""); /* past 8 days */
    snprintf(f, sizeof f, "h:%llu", (unsigned long long)(h0 - 100));
    RC_REDIS_OK(r, "HSET rc:stats:pages:link:200 %s 6%s%s", f, "", "");
    stat_at(r, m0 * 60000, "pages:link:200", 1);
    /* m0, m0 - 10, the hour of m0, h0 - 100, total */
    RC_CHECK_INT_EQ(RC_REDIS_INT(r, "HLEN rc:stats:pages:link:200%s%s%s", "", "", ""), 5);
    snprintf(f, sizeof f, "m:%llu", (unsigned long long)(m0 - 10));
    RC_CHECK_INT_EQ(RC_REDIS_INT(r, "HGET rc:stats:pages:link:200 %s%s", f, ""), 4);
    snprintf(f, sizeof f, "h:%llu", (unsigned long long)(h0 - 100));
    RC_CHECK_INT_EQ(RC_REDIS_INT(r, "HGET rc:stats:pages:link:200 %s%s", f, ""), 6);

    RC_REDIS_OK(r, "HSET rc:job:J state running pending %s%s%s", "3", "", "");
    RC_REDIS_OK(r, "ZADD rc:workers 1 %s%s%s", "w1", "", "");
    for (int i = 0; i < 70; i++) {
        snprintf(f, sizeof f, "%llu", (unsigned long long)(m0 - 200 - (uint64_t)i));
        RC_REDIS_OK(r, "HSET rc:wstat:w1 %s 1%s%s", f, "", "");
    }
    snprintf(f, sizeof f, "%llu", (unsigned long long)(m0 - 5));
    RC_REDIS_OK(r, "HSET rc:wstat:w1 %s 3%s%s", f, "", "");
    RC_REDIS_OK(r, "ZADD rc:lease:w1 9999999999999 %s%s%s", "h\tJ 0 1 0 http://h/a", "", "");
    rc_argv a;
    complete_args(&a, "J 0 1 0 http://h/a", 0, 1);
    redisReply *rep = rc_redis_eval(r, RC_LUA_COMPLETE, m0 * 60000, &a);
    RC_CHECK(rep && rep->type == REDIS_REPLY_ARRAY && rep->element[0]->integer == 1);
    if (rep)
        freeReplyObject(rep);
    rc_argv_release(&a);
    RC_CHECK_INT_EQ(RC_REDIS_INT(r, "HLEN rc:wstat:w1%s%s%s", "", "", ""), 2); /* m0 - 5 and m0 */
    RC_CHECK_INT_EQ(RC_REDIS_INT(r, "HGET rc:wstat:w1 %s%s", f, ""), 3);
}

int main(void)
{
    rc_redis *r = rc_test_redis_open(&redis, "step");
    if (!r)
        return 1;
    test_batch(r);
    test_reaped(r);
    test_same_as_complete(r);
    test_full_batch(r);
    test_denied_links(r);
    test_take_last(r);
    test_complete_lets_go(r);
    test_away_links(r);
    test_counters_trimmed(r);
    test_idle_buckets_swept(r);
    rc_redis_free(r);
    rc_test_redis_cleanup(&redis);
    for (int i = 0; i < n_packed; i++)
        rc_argv_packed_release(&packed[i]);
    return rc_test_done("test_step");
}
