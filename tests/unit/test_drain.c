/* test_drain.c - draining a worker (shared/drain.c, drain.lua) against a real redis-server
 * (started here on a unix socket in a temp dir, stopped by pid): the REST body's validation,
 * table-driven; on/off/show of a live worker with the state drain.lua reports; a worker that is
 * not live refused and left unflagged; reap.lua ending the flag with the registration. */
#include <errno.h>
#include <hiredis/hiredis.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "argv.h"
#include "drain.h"
#include "rc_test.h"
#include "rc_test_redis.h"
#include "redis.h"
#include "scripts.h"
#include "util.h"

static rc_test_redis redis;

static const struct {
    const char *body;
    int ok;
    const char *worker, *field;
    int undo;
} parse_cases[] = {
    {"{\"worker\":\"w0\"}", 1, "w0", NULL, 0},
    {"{\"worker\":\"vm-1.example-2\",\"undo\":true}", 1, "vm-1.example-2", NULL, 1},
    {"{\"worker\":\"w0\",\"undo\":false}", 1, "w0", NULL, 0},
    {"{}", 0, NULL, "worker", 0},
    {"{\"worker\":7}", 0, NULL, "worker", 0},
    {"{\"worker\":\"../x\"}", 0, NULL, "worker", 0},
    {"{\"worker\":\"\"}", 0, NULL, "worker", 0},
    {"{\"worker\":\"w0\",\"undo\":1}", 0, NULL, "undo", 0},
    {"{\"worker\":\"w0\",\"appid\":\"x\"}", 0, NULL, "appid", 0},
    {"{\"worker\":\"w0\",\"worker\":\"w1\"}", 0, NULL, "(root)", 0},
    {"[\"w0\"]", 0, NULL, "(root)", 0},
    {"{", 0, NULL, "(root)", 0},
    {"", 0, NULL, "(root)", 0},
};

static void test_parse(void)
{
    size_t n = 0;
    for (size_t i = 0; i < sizeof parse_cases / sizeof parse_cases[0]; i++, n++) {
        char id[RC_DRAIN_ID_MAX + 1] = "", field[128] = "", reason[384] = "";
        bool undo = false;
        const char *b = parse_cases[i].body;
        int rc = rc_drain_parse(b, strlen(b), id, sizeof id, &undo, field, sizeof field, reason, sizeof reason);
        RC_CHECK_INT_EQ(rc == 0, parse_cases[i].ok);
        if (parse_cases[i].ok) {
            RC_CHECK_STR_EQ(id, parse_cases[i].worker);
            RC_CHECK_INT_EQ(undo, parse_cases[i].undo);
        } else {
            RC_CHECK_STR_EQ(field, parse_cases[i].field);
            RC_CHECK(reason[0] != '\0');
        }
    }
    RC_CHECK_INT_EQ(n, 13); /* the table was read */
    /* A worker that is there but not a string is not "required": say what it is. */
    char id[RC_DRAIN_ID_MAX + 1] = "", field[128] = "", reason[384] = "";
    bool undo = false;
    const char *b = "{\"worker\":7}";
    RC_CHECK_INT_EQ(rc_drain_parse(b, strlen(b), id, sizeof id, &undo, field, sizeof field, reason, sizeof reason),
                    -EINVAL);
    RC_CHECK_STR_EQ(field, "worker");
    if (!strstr(reason, "must be a string") || strstr(reason, "required")) {
        rc_test_failures++;
        fprintf(stderr, "{\"worker\":7}: reason \"%s\", want \"must be a string ...\"\n", reason);
    }
}

static int64_t sismember(rc_redis *r, const char *w)
{
    redisReply *rep = rc_redis_cmd(r, "SISMEMBER rc:draining %s", w);
    int64_t v = rc_reply_int(rep, -1);
    if (rep)
        freeReplyObject(rep);
    return v;
}

static void test_apply(rc_redis *r)
{
    char err[256];
    rc_drain_state st;
    /* a live worker with two hosts (one with a queue) and one URL in flight */
    RC_REDIS_OK(r, "ZADD rc:workers 1 %s%s", "w0", "");
    RC_REDIS_OK(r, "SADD rc:wdoms:w0 %s %s", "a.test", "b.test");
    RC_REDIS_OK(r, "ZADD rc:hjobs:a.test 0 %s%s", "job", "");
    RC_REDIS_OK(r, "ZADD rc:lease:w0 1 %s%s", "a.test\trec", "");
    RC_REDIS_OK(r, "HSET rc:worker:w0 queued %s%s", "4", "");
    RC_CHECK_INT_EQ(rc_drain_apply(r, "w0", RC_DRAIN_ON, &st, err, sizeof err), 0);
    RC_CHECK(st.live && st.draining && !rc_drain_done(&st));
    RC_CHECK_INT_EQ(st.hosts, 2);
    RC_CHECK_INT_EQ(st.backlog_hosts, 1);
    RC_CHECK_INT_EQ(st.inflight, 1);
    RC_CHECK_INT_EQ(st.queued, 4);
    RC_CHECK_INT_EQ(sismember(r, "w0"), 1);
    char *a = rc_drain_answer("w0", RC_DRAIN_ON, &st);
    json_t *o = json_loads(a, 0, NULL);
    RC_CHECK_STR_EQ(json_string_value(json_object_get(o, "action")), "drain");
    RC_CHECK(json_is_true(json_object_get(o, "draining")) && json_is_false(json_object_get(o, "done")));
    json_decref(o);
    free(a);
    /* it empties: done */
    RC_REDIS_OK(r, "DEL rc:wdoms:w0 %s%s", "rc:lease:w0", "");
    RC_CHECK_INT_EQ(rc_drain_apply(r, "w0", RC_DRAIN_SHOW, &st, err, sizeof err), 0);
    RC_CHECK(rc_drain_done(&st));
    /* undo */
    RC_CHECK_INT_EQ(rc_drain_apply(r, "w0", RC_DRAIN_OFF, &st, err, sizeof err), 0);
    RC_CHECK(st.live && !st.draining && !rc_drain_done(&st));
    RC_CHECK_INT_EQ(sismember(r, "w0"), 0);
    /* not live: refused, nothing flagged; a bad id refused before Redis */
    RC_CHECK_INT_EQ(rc_drain_apply(r, "ghost", RC_DRAIN_ON, &st, err, sizeof err), -ENOENT);
    RC_CHECK(strstr(err, "no live worker 'ghost'") != NULL && !st.live);
    RC_CHECK_INT_EQ(sismember(r, "ghost"), 0);
    RC_CHECK_INT_EQ(rc_drain_apply(r, "a/b", RC_DRAIN_ON, &st, err, sizeof err), -EINVAL);
    /* the flag ends with the registration */
    RC_CHECK_INT_EQ(rc_drain_apply(r, "w0", RC_DRAIN_ON, &st, err, sizeof err), 0);
    rc_argv args;
    rc_argv_init(&args);
    rc_argv_set(&args, RC_REAP_WORKER, "w0");
    rc_argv_seti(&args, RC_REAP_MAX_ATTEMPTS, 3);
    redisReply *rep = rc_redis_eval(r, RC_LUA_REAP, rc_now_ms(), &args);
    rc_argv_release(&args);
    RC_CHECK(rep && rep->type == REDIS_REPLY_ARRAY);
    if (rep)
        freeReplyObject(rep);
    RC_CHECK_INT_EQ(sismember(r, "w0"), 0);
}

int main(void)
{
    test_parse();
    rc_redis *r = rc_test_redis_open(&redis, "drain");
    if (!r)
        return 1;
    test_apply(r);
    rc_redis_free(r);
    rc_test_redis_cleanup(&redis);
    return rc_test_done("test_drain");
}
