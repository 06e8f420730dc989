/* test_move.c - rebalancing (move.lua) against a real redis-server (started here on a unix
 * socket in a temp dir, stopped by pid): which of a worker's hosts move, with what state. Hosts
 * with work go first and only up to n; a host with a fetch in flight never moves; idle hosts
 * fill up when too few have work; a moved host keeps its next allowed time and its backlog. */
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
static void cmd(rc_redis *r, const char *fmt, const char *a)
{
    redisReply *rep = rc_redis_cmd(r, fmt, a);
    RC_CHECK(rep && rep->type != REDIS_REPLY_ERROR);
    if (rep)
        freeReplyObject(rep);
}

static int64_t int_reply(rc_redis *r, const char *fmt, const char *a)
{
    redisReply *rep = rc_redis_cmd(r, fmt, a);
    int64_t v = rc_reply_int(rep, -1);
    if (rep)
        freeReplyObject(rep);
    return v;
}

/* move.lua from w1 to w2, n hosts: how many moved; each moved host must have been eligible. */
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
    for (size_t i = 0; i < moved; i++) {
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
    cmd(r, "FLUSHALL%s", "");
    cmd(r, "ZADD rc:workers 1 w1 1 %s", "w2");
    for (int i = 0; i < 20; i++) {
        char h[16];
        snprintf(h, sizeof h, "h%d", i);
        cmd(r, "SADD rc:wdoms:w1 %s", h);
        cmd(r, "HSET rc:owner %s w1", h);
        if (i < 10)
            cmd(r, "ZADD rc:hjobs:%s 0 job", h);
    }
    cmd(r, "SADD rc:busy:w1 h0 %s", "h10");
    cmd(r, "ZADD rc:ready:w1 123456 %s", "h3");
}

static void test_move(rc_redis *r)
{
    const char *work[] = {"h1", "h2", "h3", "h4", "h5", "h6", "h7", "h8", "h9"};
    const char *any[] = {"h1",  "h2",  "h3",  "h4",  "h5",  "h6",  "h7",  "h8",  "h9",
                         "h11", "h12", "h13", "h14", "h15", "h16", "h17", "h18", "h19"};
    /* fewer than the hosts with work: only hosts with work, none in flight */
    setup(r);
    RC_CHECK_INT_EQ(move(r, 4, work, 9), 4);
    RC_CHECK_INT_EQ(int_reply(r, "SCARD rc:wdoms:%s", "w1"), 16);
    RC_CHECK_INT_EQ(int_reply(r, "SCARD rc:wdoms:%s", "w2"), 4);
    /* all with work and then idle ones, never the two in flight */
    setup(r);
    RC_CHECK_INT_EQ(move(r, 12, any, 18), 12);
    setup(r);
    RC_CHECK_INT_EQ(move(r, 100, any, 18), 18);
    RC_CHECK_INT_EQ(int_reply(r, "SISMEMBER rc:wdoms:w1 %s", "h0"), 1);
    RC_CHECK_INT_EQ(int_reply(r, "SISMEMBER rc:wdoms:w1 %s", "h10"), 1);
    /* a moved host is the other's, with its next allowed time */
    RC_CHECK_INT_EQ(int_reply(r, "ZSCORE rc:ready:w2 %s", "h3"), 123456);
    redisReply *rep = rc_redis_cmd(r, "HGET rc:owner %s", "h3");
    RC_CHECK(rep && rep->type == REDIS_REPLY_STRING && strcmp(rep->str, "w2") == 0);
    if (rep)
        freeReplyObject(rep);
}

int main(void)
{
    rc_redis *r = rc_test_redis_open(&redis, "move");
    if (!r)
        return 1;
    test_move(r);
    rc_redis_free(r);
    rc_test_redis_cleanup(&redis);
    return rc_test_done("test_move");
}
