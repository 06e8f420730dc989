/* test_control.c - the control plane's effects against a real redis-server (started here on a unix
 * socket in a temp dir, stopped by pid): crawl (idempotent), info (high/low counts), stop (twice),
 * stats windows summed from minute and hour buckets, domain settings, refusals counted, expiry
 * notifications, and the two failure kinds (-EIO outage, -EPROTO refusal). */
#include <errno.h>
#include <hiredis/hiredis.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "control.h"
#include "msg.h"
#include "rc_test.h"
#include "rc_test_redis.h"
#include "redis.h"
#include "util.h"

static rc_test_redis redis;

/* Parses, applies, returns the answer as JSON (NULL when none); *ret_rc gets the result. */
static json_t *run(rc_redis *r, const char *req, int *ret_rc)
{
    char *answer = NULL, err[512] = "";
    int rc = rc_control_handle(r, req, strlen(req), &answer, err, sizeof err);
    if (ret_rc)
        *ret_rc = rc;
    else if (rc != 0)
        fprintf(stderr, "request %s failed: %s\n", req, err);
    json_t *a = answer ? json_loads(answer, 0, NULL) : NULL;
    RC_CHECK(!answer || a);
    free(answer);
    return a;
}

static json_int_t geti(const json_t *o, const char *path)
{
    /* "a.b.c" */
    char buf[256];
    snprintf(buf, sizeof buf, "%s", path);
    const json_t *v = o;
    char *save = NULL;
    for (char *t = strtok_r(buf, ".", &save); t && v; t = strtok_r(NULL, ".", &save))
        v = json_object_get(v, t);
    return json_integer_value(v);
}

static const char *gets_(const json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

static long long cmd_int(rc_redis *r, const char *fmt, const char *arg)
{
    redisReply *rep = rc_redis_cmd(r, fmt, arg);
    long long v = rc_reply_int(rep, -1);
    if (rep)
        freeReplyObject(rep);
    return v;
}

static void test_crawl_info_stop(rc_redis *r)
{
    const char *req =
        "{\"uuid\":\"u1\",\"appid\":\"app\",\"crawlid\":\"c1\",\"url\":\"http://A.test/x\",\"priority\":50}";
    json_t *a = run(r, req, NULL);
    RC_CHECK_STR_EQ(gets_(a, "uuid"), "u1");
    RC_CHECK_STR_EQ(gets_(a, "appid"), "app");
    RC_CHECK_STR_EQ(gets_(a, "action"), "crawl");
    RC_CHECK_STR_EQ(gets_(a, "status"), "accepted");
    RC_CHECK_STR_EQ(gets_(a, "url"), "http://a.test/x");
    RC_CHECK_INT_EQ(geti(a, "added"), 1);
    RC_CHECK(geti(a, "server_time") > 1600000000);
    json_decref(a);
    a = run(r, req, NULL); /* redelivered: nothing new */
    RC_CHECK_INT_EQ(geti(a, "added"), 0);
    json_decref(a);
    a = run(r, "{\"appid\":\"app\",\"crawlid\":\"c1\",\"url\":\"http://b.test/\",\"priority\":50}",
            NULL); /* no uuid: no answer */
    RC_CHECK(a == NULL);
    RC_CHECK_INT_EQ(cmd_int(r, "LLEN %s", "rc:seeds:c1:50:0"), 2); /* the bucket priority 50, depth 0 */

    /* a retried URL with a lower priority counts as low (here in the zset an older version kept
     * the frontier in: counted too) */
    redisReply *rep = rc_redis_cmd(r, "ZADD rc:seeds:c1 1 %s",
                                   "{\"url\":\"http://b.test/low\",\"crawlid\":\"c1\",\"depth\":1,\"priority\":10}");
    freeReplyObject(rep);
    a = run(r, "{\"uuid\":\"u2\",\"appid\":\"other\",\"spiderid\":\"link\",\"action\":\"info\",\"crawlid\":\"c1\"}",
            NULL);
    RC_CHECK_STR_EQ(gets_(a, "appid"), "other");
    RC_CHECK_STR_EQ(gets_(a, "state"), "running");
    RC_CHECK_INT_EQ(geti(a, "total_pending"), 3);
    RC_CHECK_INT_EQ(geti(a, "total_domains"), 2);
    json_t *b = json_object_get(json_object_get(a, "domains"), "b.test");
    RC_CHECK_INT_EQ(geti(b, "total"), 2);
    RC_CHECK_INT_EQ(geti(b, "high_priority"), 1);
    RC_CHECK_INT_EQ(geti(b, "low_priority"), 1);
    RC_CHECK_INT_EQ(geti(a, "pending"), 2); /* the job counter: the hand-made record is not in it */
    RC_CHECK_INT_EQ(geti(a, "items"), 0);
    json_decref(a);
    a = run(r, "{\"uuid\":\"u3\",\"appid\":\"app\",\"spiderid\":\"link\",\"action\":\"info\"}", NULL);
    RC_CHECK_INT_EQ(geti(a, "total_crawlids"), 1);
    RC_CHECK_INT_EQ(geti(json_object_get(json_object_get(a, "crawlids"), "c1"), "total"), 3);
    json_decref(a);
    a = run(r, "{\"uuid\":\"u4\",\"appid\":\"app\",\"spiderid\":\"link\",\"action\":\"info\",\"crawlid\":\"none\"}",
            NULL);
    RC_CHECK(json_is_string(json_object_get(a, "error")));
    RC_CHECK(json_is_null(json_object_get(a, "state")));
    json_decref(a);

    const char *stop =
        "{\"uuid\":\"u5\",\"appid\":\"app\",\"spiderid\":\"link\",\"action\":\"stop\",\"crawlid\":\"c1\"}";
    a = run(r, stop, NULL);
    RC_CHECK_STR_EQ(gets_(a, "action"), "stop");
    RC_CHECK_INT_EQ(geti(a, "total_purged"), 3);
    json_decref(a);
    a = run(r, stop, NULL); /* again: nothing left (Lua's -0 once broke this) */
    RC_CHECK_INT_EQ(geti(a, "total_purged"), 0);
    RC_CHECK(json_object_get(a, "error") == NULL);
    json_decref(a);
    a = run(r, req, NULL);
    RC_CHECK_STR_EQ(gets_(a, "status"), "refused");
    json_decref(a);
}

static void test_stats_windows(rc_redis *r)
{
    long long minute = (long long)(rc_now_ms() / 60000), hour = (long long)(rc_now_ms() / 3600000);
    redisReply *rep = rc_redis_cmd(r,
                                   "HSET rc:stats:requests:domain:accepted m:%lld 1 m:%lld 10 m:%lld 50 h:%lld 100 "
                                   "h:%lld 7 total 1000",
                                   minute - 5, minute - 20, minute - 1500, hour - 30, hour - 200);
    freeReplyObject(rep);
    json_t *a = run(r, "{\"uuid\":\"s1\",\"appid\":\"app\",\"stats\":\"kafka-monitor\"}", NULL);
    json_t *w = json_object_get(json_object_get(a, "plugins"), "domain");
    RC_CHECK_INT_EQ(geti(w, "900"), 1);
    RC_CHECK_INT_EQ(geti(w, "3600"), 11);
    RC_CHECK_INT_EQ(geti(w, "43200"), 11);
    RC_CHECK_INT_EQ(geti(w, "86400"), 11);
    RC_CHECK_INT_EQ(geti(w, "604800"), 100);
    RC_CHECK_INT_EQ(geti(w, "lifetime"), 1000);
    RC_CHECK(json_is_array(json_object_get(a, "processes")));
    json_decref(a);
    a = run(r, "{\"uuid\":\"s2\",\"appid\":\"app\"}", NULL); /* Scrapy Cluster's default: all */
    RC_CHECK_STR_EQ(gets_(a, "stats"), "all");
    RC_CHECK(json_object_get(a, "kafka-monitor") && json_object_get(a, "redis-monitor") &&
             json_object_get(a, "crawler") && json_object_get(a, "queues") && json_object_get(a, "processes"));
    json_decref(a);
}

static void test_domain_and_rejects(rc_redis *r)
{
    json_t *a = run(r,
                    "{\"uuid\":\"d1\",\"appid\":\"app\",\"domain\":\"EXAMPLE.com\",\"action\":\"domain-update\","
                    "\"hits\":5,\"window\":60,\"scale\":0.5}",
                    NULL);
    RC_CHECK_STR_EQ(gets_(a, "domain"), "example.com");
    json_decref(a);
    redisReply *rep = rc_redis_cmd(r, "HGET rc:domainconf example.com");
    RC_CHECK(rep && rep->type == REDIS_REPLY_STRING);
    if (rep && rep->type == REDIS_REPLY_STRING)
        RC_CHECK_STR_EQ(rep->str, "{\"hits\":5,\"window\":60,\"scale\":0.5}");
    if (rep)
        freeReplyObject(rep);
    a = run(r, "{\"uuid\":\"d2\",\"appid\":\"app\",\"domain\":\"bad.test\",\"action\":\"blacklist-update\"}", NULL);
    RC_CHECK(json_is_true(json_object_get(a, "changed")));
    json_decref(a);
    RC_CHECK_INT_EQ(cmd_int(r, "SISMEMBER rc:blacklist %s", "bad.test"), 1);
    a = run(r, "{\"uuid\":\"d3\",\"appid\":\"app\",\"domain\":\"bad.test\",\"action\":\"blacklist-remove\"}", NULL);
    json_decref(a);
    RC_CHECK_INT_EQ(cmd_int(r, "SISMEMBER rc:blacklist %s", "bad.test"), 0);

    a = run(r, "{\"uuid\":\"x1\",\"appid\":\"app\",\"stats\":\"nope\"}", NULL);
    RC_CHECK_STR_EQ(gets_(a, "field"), "stats");
    RC_CHECK_STR_EQ(gets_(a, "uuid"), "x1");
    json_decref(a);
    a = run(r, "not json", NULL);
    RC_CHECK_STR_EQ(gets_(a, "field"), "(root)");
    json_decref(a);
    RC_CHECK_INT_EQ(cmd_int(r, "HGET %s total", "rc:stats:requests:stats:rejected"), 1);
    RC_CHECK_INT_EQ(cmd_int(r, "HGET %s total", "rc:stats:requests:unknown:rejected"), 1);
    RC_CHECK_INT_EQ(cmd_int(r, "SISMEMBER rc:stats:names %s", "requests:unknown:rejected"), 1);
}

struct notes {
    int n;
    char appid[64];
    json_t *last;
};

static void on_note(const char *appid, const char *json, void *ud)
{
    struct notes *n = ud;
    n->n++;
    snprintf(n->appid, sizeof n->appid, "%s", appid);
    json_decref(n->last);
    n->last = json_loads(json, 0, NULL);
}

static void test_expire(rc_redis *r)
{
    char req[256], err[256];
    long long now = (long long)(rc_now_ms() / 1000);
    snprintf(req, sizeof req,
             "{\"uuid\":\"e1\",\"appid\":\"expapp\",\"crawlid\":\"exp\",\"url\":\"http://e.test/\","
             "\"expires\":%lld}",
             now + 100);
    json_decref(run(r, req, NULL));
    struct notes n = {0, "", NULL};
    RC_CHECK_INT_EQ(rc_control_expire_due(r, now, on_note, &n, err, sizeof err), 0);
    RC_CHECK_INT_EQ(rc_control_expire_due(r, now + 100, on_note, &n, err, sizeof err), 1);
    RC_CHECK_INT_EQ(n.n, 1);
    RC_CHECK_STR_EQ(n.appid, "expapp");
    RC_CHECK_STR_EQ(gets_(n.last, "action"), "expired");
    RC_CHECK_STR_EQ(gets_(n.last, "crawlid"), "exp");
    RC_CHECK_INT_EQ(geti(n.last, "total_expired"), 1);
    RC_CHECK_INT_EQ(rc_control_expire_due(r, now + 200, on_note, &n, err, sizeof err), 0);
    RC_CHECK_INT_EQ(n.n, 1);
    json_decref(n.last);
}

static void test_failures(rc_redis *r)
{
    /* Redis refuses (a key of the wrong type): -EPROTO, and the give-up answer keeps the uuid. */
    redisReply *rep = rc_redis_cmd(r, "SET rc:job:wrong x");
    freeReplyObject(rep);
    const char *req =
        "{\"uuid\":\"f1\",\"appid\":\"app\",\"spiderid\":\"link\",\"action\":\"stop\",\"crawlid\":\"wrong\"}";
    int rc = 0;
    json_t *a = run(r, req, &rc);
    RC_CHECK_INT_EQ(rc, -EPROTO);
    RC_CHECK(a == NULL);
    char *ans = rc_control_failure_answer(req, strlen(req), "boom");
    a = json_loads(ans, 0, NULL);
    RC_CHECK_STR_EQ(gets_(a, "uuid"), "f1");
    RC_CHECK(strstr(gets_(a, "error"), "internal error") != NULL);
    json_decref(a);
    free(ans);
    /* Redis gone: -EIO */
    rc_test_redis_stop(&redis);
    a = run(r, "{\"uuid\":\"f2\",\"appid\":\"app\",\"stats\":\"queue\"}", &rc);
    RC_CHECK_INT_EQ(rc, -EIO);
    RC_CHECK(a == NULL);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN); /* writes to the stopped redis-server must fail, not kill us */
    rc_redis *r = rc_test_redis_open(&redis, "control");
    if (!r)
        return 1;
    test_crawl_info_stop(r);
    test_stats_windows(r);
    test_domain_and_rejects(r);
    test_expire(r);
    test_failures(r);
    rc_redis_free(r);
    rc_test_redis_cleanup(&redis);
    return rc_test_done("test_control");
}
