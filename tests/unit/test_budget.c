/* test_budget.c - one max_pages for a job over a sharded keyspace's shards, against a real
 * redis-server (started here on a unix socket in a temp dir, stopped by pid), two shards'
 * prefixes side by side as on a plain Redis: submit.lua makes a sharded job's allowance 0 with
 * the job's total as its budget (and an unsharded job as ever), take.lua holds a URL over the
 * allowance while it may grow and drops it once the budget is gone, shard 0's pool (budget.lua)
 * never gives out more than the total, gives small shares near the end, takes back what a
 * shard gives back and says gone only when no shard holds allowance it did not use, and
 * budgets.lua / allow.lua list, trim and set a shard's allowances. */
#include <hiredis/hiredis.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "argv.h"
#include "rc_test.h"
#include "rc_test_redis.h"
#include "redis.h"
#include "scripts.h"
#include "util.h"

#define S0 "rc:{s0.1}:"
#define S1 "rc:{s1.1}:"

static rc_test_redis redis;

/* submit.lua for job J without seeds, with max_pages. */
static void submit(rc_redis *r, int max_pages)
{
    rc_argv a;
    rc_argv_init(&a);
    rc_argv_set(&a, RC_SUBMIT_CRAWLID, "J");
    rc_argv_set(&a, RC_SUBMIT_SPEC, "{}");
    rc_argv_seti(&a, RC_SUBMIT_MAX_PAGES, max_pages);
    rc_argv_set(&a, RC_SUBMIT_BLOOM, "sbf:1024:1e-06:1");
    rc_argv_seti(&a, RC_SUBMIT_K, 16);
    rc_argv_seti(&a, RC_SUBMIT_N, 0);
    redisReply *rep = rc_redis_eval(r, RC_LUA_SUBMIT, 1000, &a);
    RC_CHECK(rep && rep->type == REDIS_REPLY_ARRAY);
    if (rep)
        freeReplyObject(rep);
    rc_argv_release(&a);
}

/* A sharded job's max_pages is an allowance from 0, its total kept as budget and the job
 * listed for its scheduler; an unsharded job's max_pages is as ever. */
static void test_submit(rc_redis *plain, rc_redis *s1)
{
    submit(plain, 40);
    RC_CHECK_INT_EQ(RC_REDIS_INT(plain, "HGET rc:job:J %s%s", "max_pages", ""), 40);
    RC_CHECK_INT_EQ(RC_REDIS_INT(plain, "HEXISTS rc:job:J %s%s", "budget", ""), 0);
    RC_CHECK_INT_EQ(RC_REDIS_INT(plain, "EXISTS rc:budgets%s%s", "", ""), 0);
    submit(s1, 40);
    RC_CHECK_INT_EQ(RC_REDIS_INT(s1, "HGET " S1 "job:J %s%s", "max_pages", ""), 0);
    RC_CHECK_INT_EQ(RC_REDIS_INT(s1, "HGET " S1 "job:J %s%s", "budget", ""), 40);
    RC_CHECK_INT_EQ(RC_REDIS_INT(s1, "SISMEMBER " S1 "budgets %s%s", "J", ""), 1);
    RC_REDIS_OK(s1, "DEL " S1 "job:J " S1 "budgets " S1 "jobs%s%s%s", "", "", "");
    submit(s1, 0); /* no cap: nothing shared */
    RC_CHECK_INT_EQ(RC_REDIS_INT(s1, "HEXISTS " S1 "job:J %s%s", "budget", ""), 0);
    RC_REDIS_OK(s1, "FLUSHALL%s%s%s", "", "", "");
}

/* take.lua for w1 at now: the leases it gave. */
static size_t take(rc_redis *r, uint64_t now)
{
    rc_argv a;
    rc_argv_init(&a);
    rc_argv_set(&a, RC_TAKE_WORKER, "w1");
    rc_argv_seti(&a, RC_TAKE_MAX, 10);
    rc_argv_seti(&a, RC_TAKE_LEASE_MS, 60000);
    redisReply *rep = rc_redis_eval(r, RC_LUA_TAKE, now, &a);
    rc_argv_release(&a);
    size_t n = rep && rep->type == REDIS_REPLY_ARRAY && rep->elements == 3 ? rep->element[0]->elements : 999;
    RC_CHECK(n != 999);
    if (rep)
        freeReplyObject(rep);
    return n;
}

/* allow.lua with answer number seq: its reply (1 applied, 2 an old answer). */
static long long allow_seq(rc_redis *r, int allowance, int gone, long long seq)
{
    rc_argv a;
    rc_argv_init(&a);
    rc_argv_set(&a, RC_ALLOW_CRAWLID, "J");
    rc_argv_seti(&a, RC_ALLOW_ALLOWANCE, allowance);
    rc_argv_seti(&a, RC_ALLOW_USED, 0);
    rc_argv_seti(&a, RC_ALLOW_GONE, gone);
    rc_argv_seti(&a, RC_ALLOW_SEQ, seq);
    redisReply *rep = rc_redis_eval(r, RC_LUA_ALLOW, 1000, &a);
    rc_argv_release(&a);
    long long v = rep && rep->type == REDIS_REPLY_INTEGER ? rep->integer : -1;
    if (rep)
        freeReplyObject(rep);
    return v;
}

static void allow(rc_redis *r, int allowance, int gone)
{
    static long long seq;
    RC_CHECK_INT_EQ(allow_seq(r, allowance, gone, ++seq), 1);
}

/* Over its allowance a sharded job's URL stays queued (its host due again later) while the
 * allowance may grow; within it, it is taken; once the budget is gone, it is dropped. */
static void test_take_holds(rc_redis *s1)
{
    submit(s1, 5);
    RC_REDIS_OK(s1, "HSET " S1 "job:J state running pending %s%s%s", "2", "", "");
    RC_REDIS_OK(s1, "ZADD " S1 "workers 1 %s%s%s", "w1", "", "");
    RC_REDIS_OK(s1, "ZADD " S1 "ready:w1 0 %s 0 %s%s", "h1", "h2", "");
    RC_REDIS_OK(s1, "ZADD " S1 "hjobs:h1 0 %s%s%s", "J", "", "");
    RC_REDIS_OK(s1, "ZADD " S1 "hjobs:h2 0 %s%s%s", "J", "", "");
    RC_REDIS_OK(s1, "ZADD " S1 "q:J:h1 1 %s%s%s", "J 0 1 0 http://h1/a", "", "");
    RC_REDIS_OK(s1, "ZADD " S1 "q:J:h2 1 %s%s%s", "J 0 1 0 http://h2/a", "", "");
    RC_CHECK_INT_EQ(take(s1, 1000), 0); /* allowance 0: both held */
    RC_CHECK_INT_EQ(RC_REDIS_INT(s1, "ZCARD " S1 "q:J:%s%s", "h1", ""), 1);
    RC_CHECK_INT_EQ(RC_REDIS_INT(s1, "ZCARD " S1 "q:J:%s%s", "h2", ""), 1);
    RC_CHECK_INT_EQ(RC_REDIS_INT(s1, "ZSCORE " S1 "ready:w1 %s%s", "h1", ""), 1500);
    RC_CHECK_INT_EQ(RC_REDIS_INT(s1, "HGET " S1 "job:J %s%s", "dropped", ""), 0);
    RC_CHECK_INT_EQ(take(s1, 1200), 0); /* not due yet */
    allow(s1, 1, 0);
    RC_CHECK_INT_EQ(take(s1, 2000), 1); /* one within the allowance, the other held */
    RC_CHECK_INT_EQ(RC_REDIS_INT(s1, "HGET " S1 "job:J %s%s", "started", ""), 1);
    RC_CHECK_INT_EQ(RC_REDIS_INT(s1, "HGET " S1 "job:J %s%s", "dropped", ""), 0);
    RC_CHECK_INT_EQ(RC_REDIS_INT(s1, "HGET " S1 "job:J %s%s", "pending", ""), 2);
    allow(s1, 1, 1); /* gone for good: dropped as a job over its max_pages */
    RC_CHECK_INT_EQ(RC_REDIS_INT(s1, "SISMEMBER " S1 "budgets %s%s", "J", ""), 0);
    RC_CHECK_INT_EQ(take(s1, 3000), 0);
    RC_CHECK_INT_EQ(RC_REDIS_INT(s1, "HGET " S1 "job:J %s%s", "dropped", ""), 1);
    RC_CHECK_INT_EQ(RC_REDIS_INT(s1, "HGET " S1 "job:J %s%s", "pending", ""), 1);
    RC_CHECK_INT_EQ(
        RC_REDIS_INT(s1, "EXISTS " S1 "q:J:%s%s", "h1", "") + RC_REDIS_INT(s1, "EXISTS " S1 "q:J:%s%s", "h2", ""), 0);
    RC_REDIS_OK(s1, "FLUSHALL%s%s%s", "", "", "");
}

/* budget.lua at time now: shard's ask of the pool; *gone and the answer's number *seq (NULL:
 * not wanted) set from the reply. Returns its allowance. */
static long long ask_at(uint64_t now, rc_redis *s0, int shard, long long allowance, long long used, int want, int *gone,
                        long long *seq)
{
    rc_argv a;
    rc_argv_init(&a);
    rc_argv_set(&a, RC_BUDGET_CRAWLID, "J");
    rc_argv_seti(&a, RC_BUDGET_SHARD, shard);
    rc_argv_seti(&a, RC_BUDGET_SHARDS, 2);
    rc_argv_seti(&a, RC_BUDGET_TOTAL, 10);
    rc_argv_seti(&a, RC_BUDGET_ALLOWANCE, allowance);
    rc_argv_seti(&a, RC_BUDGET_USED, used);
    rc_argv_seti(&a, RC_BUDGET_WANT, want);
    redisReply *rep = rc_redis_eval(s0, RC_LUA_BUDGET, now, &a);
    rc_argv_release(&a);
    long long v = -1;
    *gone = -1;
    if (rep && rep->type == REDIS_REPLY_ARRAY && rep->elements == 3) {
        v = rep->element[0]->integer;
        *gone = (int)rep->element[1]->integer;
        if (seq)
            *seq = rep->element[2]->integer;
    }
    RC_CHECK(v >= 0);
    if (rep)
        freeReplyObject(rep);
    return v;
}

static long long ask(rc_redis *s0, int shard, long long allowance, long long used, int want, int *gone)
{
    return ask_at(1000, s0, shard, allowance, used, want, gone, NULL);
}

/* The pool of 10 over 2 shards: shares of what is left over 4, never more than 10 in all, what
 * shard 1 gives back handed to shard 0, and gone once nothing is left and shard 1 used all it
 * holds. */
static void test_pool(rc_redis *s0)
{
    int gone;
    RC_CHECK_INT_EQ(ask(s0, 0, 0, 0, 256, &gone), 3); /* ceil(10 / 4) */
    RC_CHECK_INT_EQ(ask(s0, 1, 0, 0, 256, &gone), 2); /* ceil(7 / 4) */
    long long a0 = 3;
    for (int i = 0; i < 20; i++)
        a0 = ask(s0, 0, a0, a0, 256, &gone);
    RC_CHECK_INT_EQ(a0, 8);
    RC_CHECK_INT_EQ(gone, 0); /* shard 1 holds 2 it did not use */
    RC_CHECK_INT_EQ(ask(s0, 0, 8, 8, 1, &gone), 8);
    RC_CHECK_INT_EQ(gone, 0);
    RC_CHECK_INT_EQ(ask(s0, 1, 1, 1, 0, &gone), 1); /* done with 1 of 2: one back */
    RC_CHECK_INT_EQ(gone, 0);
    RC_CHECK_INT_EQ(ask(s0, 0, 8, 8, 256, &gone), 9);
    RC_CHECK_INT_EQ(gone, 0);
    RC_CHECK_INT_EQ(ask(s0, 0, 9, 8, 256, &gone), 9); /* it has 1 of its own to use first */
    RC_CHECK_INT_EQ(gone, 0);
    RC_CHECK_INT_EQ(ask(s0, 0, 9, 9, 256, &gone), 9);
    RC_CHECK_INT_EQ(gone, 1);
    RC_CHECK_INT_EQ(ask(s0, 1, 1, 0, 256, &gone), 1); /* gone stays gone, for every shard */
    RC_CHECK_INT_EQ(gone, 1);
    RC_CHECK_INT_EQ(ask(s0, 1, 0, 0, 0, &gone), 0); /* a give-back after it: not handed out again */
    RC_CHECK_INT_EQ(ask(s0, 0, 9, 9, 256, &gone), 9);
    RC_CHECK_INT_EQ(gone, 1);
    RC_CHECK_INT_EQ(RC_REDIS_INT(s0, "HGET " S0 "budget:J %s%s", "total", ""), 10);
    RC_CHECK(RC_REDIS_INT(s0, "PTTL " S0 "budget:%s%s", "J", "") > 0);
    RC_REDIS_OK(s0, "FLUSHALL%s%s%s", "", "", "");
}

/* A shard's leader asks, stalls before applying the answer, and a new leader asks and applies
 * its own: the old answer arriving late changes nothing (its allowance would no longer be the
 * pool's), and answers count up even when the pool is lost and made again. */
static void test_late_answer(rc_redis *s0, rc_redis *s1)
{
    int gone;
    long long old_seq, new_seq, lost_seq;
    submit(s1, 10);
    RC_CHECK_INT_EQ(ask_at(1000, s0, 1, 0, 0, 256, &gone, &old_seq), 3); /* the stalled leader's */
    RC_CHECK_INT_EQ(ask_at(1000, s0, 1, 0, 0, 1, &gone, &new_seq), 1);   /* the new one's: 3 taken back, 1 */
    RC_CHECK(new_seq > old_seq);
    RC_CHECK_INT_EQ(allow_seq(s1, 1, 0, new_seq), 1);
    RC_CHECK_INT_EQ(allow_seq(s1, 3, 0, old_seq), 2);
    RC_CHECK_INT_EQ(RC_REDIS_INT(s1, "HGET " S1 "job:J %s%s", "max_pages", ""), 1);
    RC_CHECK_INT_EQ(allow_seq(s1, 1, 0, new_seq), 2); /* a repeat is old too, and harmless */
    RC_REDIS_OK(s0, "DEL " S0 "budget:%s%s", "J", "");
    ask_at(5000, s0, 1, 1, 0, 1, &gone, &lost_seq); /* made again later: its numbers from NOW */
    RC_CHECK(lost_seq > new_seq);
    RC_CHECK_INT_EQ(allow_seq(s1, 2, 0, lost_seq), 1);
    RC_REDIS_OK(s0, "FLUSHALL%s%s%s", "", "", "");
}

/* budgets.lua over a shard's listed jobs: the jobs in the second element of each row. */
static redisReply *budgets(rc_redis *s1)
{
    rc_argv a;
    rc_argv_init(&a);
    rc_argv_seti(&a, RC_BUDGETS_LOW, 128);
    redisReply *rep = rc_redis_eval(s1, RC_LUA_BUDGETS, 1000, &a);
    rc_argv_release(&a);
    RC_CHECK(rep && rep->type == REDIS_REPLY_ARRAY);
    return rep;
}

/* Listed: a running job near its allowance (wants more), a done job's allowance it did not use
 * (given back here: trimmed to started). Left out: a running job far from it, a done job told
 * already; dropped from the list: a stopped job and one whose budget is gone. */
static void test_budgets(rc_redis *s1)
{
    RC_REDIS_OK(s1, "HSET " S1 "job:A state running budget 10 max_pages 5 started %s%s%s", "4", "", "");
    RC_REDIS_OK(s1, "HSET " S1 "job:B state done budget 10 max_pages 6 started %s%s%s", "2", "", "");
    RC_REDIS_OK(s1, "HSET " S1 "job:C state stopped budget 10 max_pages 6 started %s%s%s", "2", "", "");
    RC_REDIS_OK(s1, "HSET " S1 "job:D state running budget 1000 max_pages 300 started %s%s%s", "0", "", "");
    RC_REDIS_OK(s1, "SADD " S1 "budgets A B %s %s%s", "C", "D", "");
    redisReply *rep = budgets(s1);
    RC_CHECK_INT_EQ(rep ? rep->elements : 0, 2);
    for (size_t i = 0; rep && i < rep->elements; i++) {
        redisReply *const *e = rep->element[i]->element;
        int a = strcmp(e[0]->str, "A") == 0;
        RC_CHECK(a || strcmp(e[0]->str, "B") == 0);
        RC_CHECK_INT_EQ(e[2]->integer, a ? 5 : 2);
        RC_CHECK_INT_EQ(e[4]->integer, a ? 1 : 0);
    }
    if (rep)
        freeReplyObject(rep);
    RC_CHECK_INT_EQ(RC_REDIS_INT(s1, "HGET " S1 "job:B %s%s", "max_pages", ""), 2);
    RC_CHECK_INT_EQ(RC_REDIS_INT(s1, "SISMEMBER " S1 "budgets %s%s", "C", ""), 0);
    RC_REDIS_OK(s1, "HSET " S1 "job:B budget_told 2 budget_used %s%s%s", "1", "", ""); /* told when it had used 1 */
    rep = budgets(s1); /* it used 2 since: the pool must hear it, or others wait for that 1 */
    RC_CHECK_INT_EQ(rep ? rep->elements : 9, 2);
    if (rep)
        freeReplyObject(rep);
    RC_REDIS_OK(s1, "HSET " S1 "job:B budget_told 2 budget_used %s%s%s", "2", "", ""); /* as allow.lua does */
    RC_REDIS_OK(s1, "HSET " S1 "job:A budget_gone %s%s%s", "1", "", "");
    rep = budgets(s1);
    RC_CHECK_INT_EQ(rep ? rep->elements : 9, 0);
    if (rep)
        freeReplyObject(rep);
    RC_CHECK_INT_EQ(RC_REDIS_INT(s1, "SCARD " S1 "budgets%s%s", "", ""), 2); /* B and D */
    RC_REDIS_OK(s1, "FLUSHALL%s%s%s", "", "", "");
}

int main(void)
{
    rc_redis *plain = rc_test_redis_open(&redis, "budget");
    if (!plain)
        return 1;
    char err[256];
    rc_redis *s0 = rc_redis_new(redis.url, S0, err, sizeof err);
    rc_redis *s1 = rc_redis_new(redis.url, S1, err, sizeof err);
    RC_CHECK(s0 && s1);
    if (s0 && s1) {
        test_submit(plain, s1);
        test_take_holds(s1);
        test_pool(s0);
        test_late_answer(s0, s1);
        test_budgets(s1);
    }
    rc_redis_free(s0);
    rc_redis_free(s1);
    rc_redis_free(plain);
    rc_test_redis_cleanup(&redis);
    return rc_test_done("test_budget");
}
