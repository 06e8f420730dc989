/* test_move.c - rebalancing (move.lua) against a real redis-server (started here on a unix
 * socket in a temp dir, stopped by pid): which of a worker's hosts move, with what state. Hosts
 * with work go first and only up to n; a host with a fetch in flight never moves; idle hosts
 * fill up when too few have work; a moved host keeps its next allowed time and its backlog; the
 * hosts of a worker holding thousands are scanned only as far as the move needs. */
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

static rc_test_redis redis;

/* A command with one string argument (hiredis' format: each space separates arguments). */
/* move.lua from w1 to w2, n hosts: how many moved; each moved host must have been eligible (one
 * of may, unless may is NULL: any). */
static size_t move(rc_redis *r, int64_t n, const char *const *may, size_t n_may)
{
    rc_argv a;
    rc_argv_init(&a);
    rc_argv_set(&a, RC_MOVE_FROM, "w1");
    rc_argv_set(&a, RC_MOVE_TO, "w2");
    rc_argv_seti(&a, RC_MOVE_N, n);
    redisReply *rep = rc_redis_eval(r, RC_LUA_MOVE, rc_now_ms(), &a);
    rc_argv_release(&a);
    RC_CHECK(rep && rep->type == REDIS_REPLY_ARRAY);
    size_t moved = rep && rep->type == REDIS_REPLY_ARRAY ? rep->elements : 0;
    for (size_t i = 0; i < moved && may; i++) {
        int ok = 0;
        for (size_t j = 0; j < n_may; j++)
            ok |= strcmp(rep->element[i]->str, may[j]) == 0;
        RC_CHECK(ok);
        if (!ok)
            fprintf(stderr, "  moved %s, not one of those that may move\n", rep->element[i]->str);
    }
    if (rep)
        freeReplyObject(rep);
    return moved;
}

/* w1 holds 20 hosts: h0..h9 with work (h0 in flight), h10..h19 idle (h10 in flight). */
static void setup(rc_redis *r)
{
    RC_REDIS_OK(r, "FLUSHALL%s", "");
    RC_REDIS_OK(r, "ZADD rc:workers 1 w1 1 %s", "w2");
    for (int i = 0; i < 20; i++) {
        char h[16];
        snprintf(h, sizeof h, "h%d", i);
        RC_REDIS_OK(r, "SADD rc:wdoms:w1 %s", h);
        RC_REDIS_OK(r, "HSET rc:owner %s w1", h);
        if (i < 10)
            RC_REDIS_OK(r, "ZADD rc:hjobs:%s 0 job", h);
    }
    RC_REDIS_OK(r, "SADD rc:busy:w1 h0 %s", "h10");
    RC_REDIS_OK(r, "ZADD rc:ready:w1 123456 %s", "h3");
}

static void test_move(rc_redis *r)
{
    const char *work[] = {"h1", "h2", "h3", "h4", "h5", "h6", "h7", "h8", "h9"};
    const char *any[] = {"h1",  "h2",  "h3",  "h4",  "h5",  "h6",  "h7",  "h8",  "h9",
                         "h11", "h12", "h13", "h14", "h15", "h16", "h17", "h18", "h19"};
    /* fewer than the hosts with work: only hosts with work, none in flight */
    setup(r);
    RC_CHECK_INT_EQ(move(r, 4, work, 9), 4);
    RC_CHECK_INT_EQ(RC_REDIS_INT(r, "SCARD rc:wdoms:%s", "w1"), 16);
    RC_CHECK_INT_EQ(RC_REDIS_INT(r, "SCARD rc:wdoms:%s", "w2"), 4);
    /* all with work and then idle ones, never the two in flight */
    setup(r);
    RC_CHECK_INT_EQ(move(r, 12, any, 18), 12);
    setup(r);
    RC_CHECK_INT_EQ(move(r, 100, any, 18), 18);
    RC_CHECK_INT_EQ(RC_REDIS_INT(r, "SISMEMBER rc:wdoms:w1 %s", "h0"), 1);
    RC_CHECK_INT_EQ(RC_REDIS_INT(r, "SISMEMBER rc:wdoms:w1 %s", "h10"), 1);
    /* a moved host is the other's, with its next allowed time */
    RC_CHECK_INT_EQ(RC_REDIS_INT(r, "ZSCORE rc:ready:w2 %s", "h3"), 123456);
    redisReply *rep = rc_redis_cmd(r, "HGET rc:owner %s", "h3");
    RC_CHECK(rep && rep->type == REDIS_REPLY_STRING && strcmp(rep->str, "w2") == 0);
    if (rep)
        freeReplyObject(rep);
}

/* The calls of a command since the last CONFIG RESETSTAT (INFO commandstats), 0 for none. */
static int64_t calls_of(rc_redis *r, const char *name)
{
    redisReply *rep = rc_redis_cmd(r, "INFO %s", "commandstats");
    char key[64];
    snprintf(key, sizeof key, "cmdstat_%s:calls=", name);
    const char *at = rep && rep->type == REDIS_REPLY_STRING ? strstr(rep->str, key) : NULL;
    int64_t n = at ? strtoll(at + strlen(key), NULL, 10) : 0;
    if (rep)
        freeReplyObject(rep);
    return n;
}

/* w1 holds 3,000 hosts (a hashtable set), those in `work` with work. */
static void setup_many(rc_redis *r, int work)
{
    char n[16];
    snprintf(n, sizeof n, "%d", work);
    RC_REDIS_OK(r, "FLUSHALL%s", "");
    RC_REDIS_OK(r, "ZADD rc:workers 1 w1 1 %s", "w2");
    RC_REDIS_OK(r, "EVAL %s 0",
                "for i = 0, 2999 do local h = 'h' .. i; redis.call('SADD', 'rc:wdoms:w1', h); "
                "redis.call('HSET', 'rc:owner', h, 'w1') end");
    redisReply *rep =
        rc_redis_cmd(r, "EVAL %s 0 %s",
                     "for i = 0, tonumber(ARGV[1]) - 1 do redis.call('ZADD', 'rc:hjobs:h' .. i, 0, 'job') end", n);
    RC_CHECK(rep && rep->type != REDIS_REPLY_ERROR);
    if (rep)
        freeReplyObject(rep);
    RC_REDIS_OK(r, "CONFIG RESETSTAT%s", "");
}

static void test_move_many(rc_redis *r)
{
    /* Every host with work: the scan stops after a page, not after 3,000 hosts. */
    setup_many(r, 3000);
    RC_CHECK_INT_EQ(move(r, 4, NULL, 0), 4);
    RC_CHECK_INT_EQ(calls_of(r, "sscan"), 1);
    RC_CHECK(calls_of(r, "exists") < 300);
    RC_CHECK_INT_EQ(RC_REDIS_INT(r, "SCARD rc:wdoms:%s", "w2"), 4);
    /* Ten hosts with work among 3,000: the scan goes on until it has found n of them. */
    setup_many(r, 10);
    const char *work[] = {"h0", "h1", "h2", "h3", "h4", "h5", "h6", "h7", "h8", "h9"};
    RC_CHECK_INT_EQ(move(r, 5, work, 10), 5);
    RC_CHECK(calls_of(r, "sscan") > 1);
}

int main(void)
{
    rc_redis *r = rc_test_redis_open(&redis, "move");
    if (!r)
        return 1;
    test_move(r);
    test_move_many(r);
    rc_redis_free(r);
    rc_test_redis_cleanup(&redis);
    return rc_test_done("test_move");
}
