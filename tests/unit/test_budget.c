/* test_budget.c - one max_pages for a job over a sharded keyspace's shards, against a real
 * redis-server (started here on a unix socket in a temp dir, stopped by pid), two shards'
 * prefixes side by side as on a plain Redis: shard 0's pool (budget.lua) never gives out more
 * than the total, gives small shares near the end, takes back what a shard gives back and says
 * gone only when no shard holds allowance it did not use, and budgets.lua lists and trims a
 * shard's allowances. */
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

static void cmd(rc_redis *r, const char *fmt, const char *a, const char *b, const char *c)
{
    redisReply *rep = rc_redis_cmd(r, fmt, a, b, c);
    RC_CHECK(rep != NULL && rep->type != REDIS_REPLY_ERROR);
    if (rep)
        freeReplyObject(rep);
}

static long long get_int(rc_redis *r, const char *fmt, const char *a, const char *b)
{
    redisReply *rep = rc_redis_cmd(r, fmt, a, b);
    long long v = rep && rep->type == REDIS_REPLY_STRING    ? strtoll(rep->str, NULL, 10)
                  : rep && rep->type == REDIS_REPLY_INTEGER ? rep->integer
                                                            : -1;
    if (rep)
        freeReplyObject(rep);
    return v;
}

/* budget.lua: shard's ask of the pool; *gone set from the reply. Returns its allowance. */
static long long ask(rc_redis *s0, int shard, long long allowance, long long used, int want, int *gone)
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
    redisReply *rep = rc_redis_eval(s0, RC_LUA_BUDGET, 1000, &a);
    rc_argv_release(&a);
    long long v = -1;
    *gone = -1;
    if (rep && rep->type == REDIS_REPLY_ARRAY && rep->elements == 2) {
        v = rep->element[0]->integer;
        *gone = (int)rep->element[1]->integer;
    }
    RC_CHECK(v >= 0);
    if (rep)
        freeReplyObject(rep);
    return v;
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
    RC_CHECK_INT_EQ(ask(s0, 0, 9, 9, 256, &gone), 9);
    RC_CHECK_INT_EQ(gone, 1);
    RC_CHECK_INT_EQ(get_int(s0, "HGET " S0 "budget:J %s%s", "total", ""), 10);
    RC_CHECK(get_int(s0, "PTTL " S0 "budget:%s%s", "J", "") > 0);
    cmd(s0, "FLUSHALL%s%s%s", "", "", "");
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
    cmd(s1, "HSET " S1 "job:A state running budget 10 max_pages 5 started %s%s%s", "4", "", "");
    cmd(s1, "HSET " S1 "job:B state done budget 10 max_pages 6 started %s%s%s", "2", "", "");
    cmd(s1, "HSET " S1 "job:C state stopped budget 10 max_pages 6 started %s%s%s", "2", "", "");
    cmd(s1, "HSET " S1 "job:D state running budget 1000 max_pages 300 started %s%s%s", "0", "", "");
    cmd(s1, "SADD " S1 "budgets A B %s %s%s", "C", "D", "");
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
    RC_CHECK_INT_EQ(get_int(s1, "HGET " S1 "job:B %s%s", "max_pages", ""), 2);
    RC_CHECK_INT_EQ(get_int(s1, "SISMEMBER " S1 "budgets %s%s", "C", ""), 0);
    cmd(s1, "HSET " S1 "job:B budget_told %s%s%s", "2", "", ""); /* as allow.lua does */
    cmd(s1, "HSET " S1 "job:A budget_gone %s%s%s", "1", "", "");
    rep = budgets(s1);
    RC_CHECK_INT_EQ(rep ? rep->elements : 9, 0);
    if (rep)
        freeReplyObject(rep);
    RC_CHECK_INT_EQ(get_int(s1, "SCARD " S1 "budgets%s%s", "", ""), 2); /* B and D */
    cmd(s1, "FLUSHALL%s%s%s", "", "", "");
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
        test_pool(s0);
        test_budgets(s1);
    }
    rc_redis_free(s0);
    rc_redis_free(s1);
    rc_redis_free(plain);
    rc_test_redis_cleanup(&redis);
    return rc_test_done("test_budget");
}
