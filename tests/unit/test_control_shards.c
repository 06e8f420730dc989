/* test_control_shards.c - one control request over 3 shards of a real redis-server (started here,
 * stopped by pid; on a plain Redis the shards are 3 prefixes side by side): a crawl request makes
 * its job in its seed's host's shard only, an info of the job sums every shard's part, a stop
 * reaches every shard, domain settings are written to every shard, an info of an unknown job
 * says "no crawl" once, a stats request answers for every shard (pages, workers, queues and
 * requests summed, each request counted once), and a shard that cannot be reached fails the
 * request. */
#include <errno.h>
#include <hiredis/hiredis.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "control_shards.h"
#include "rc_test.h"
#include "rc_test_redis.h"
#include "redis.h"
#include "shard.h"
#include "util.h"

#define K 3

static rc_test_redis redis;
static rc_redis *shards[K];
static char prefixes[K][64];

static rc_redis *conn(void *ud, int i, char *err, size_t cap)
{
    if (!shards[i])
        snprintf(err, cap, "shard %d: no connection", i);
    return shards[i];
}

static json_t *run(const char *req, int *ret_rc)
{
    char *answer = NULL, err[512] = "";
    int rc = rc_control_shards_handle(K, conn, NULL, req, strlen(req), &answer, err, sizeof err);
    if (ret_rc)
        *ret_rc = rc;
    else if (rc != 0)
        fprintf(stderr, "request %s failed: %s\n", req, err);
    json_t *a = answer ? json_loads(answer, 0, NULL) : NULL;
    RC_CHECK(!answer || a);
    free(answer);
    return a;
}

static json_int_t geti(const json_t *o, const char *k)
{
    return json_integer_value(json_object_get(o, k));
}

static const char *gets_(const json_t *o, const char *k)
{
    return json_string_value(json_object_get(o, k));
}

/* Shard S's key NAME exists (the prefix added by hand: one connection reads them all). */
static int exists(int s, const char *name)
{
    redisReply *rep = rc_redis_cmd(shards[0], "EXISTS %s%s", prefixes[s], name);
    long long v = rc_reply_int(rep, -1);
    if (rep)
        freeReplyObject(rep);
    return (int)v;
}

/* A host of each shard: h0.test, h1.test, ... tried in turn. */
static void hosts_by_shard(char hosts[K][32])
{
    int found = 0;
    for (int n = 0; found < K && n < 1000; n++) {
        char h[32];
        snprintf(h, sizeof h, "h%d.test", n);
        int s = rc_shard_of_host(h, K);
        if (!hosts[s][0]) {
            snprintf(hosts[s], sizeof hosts[s], "%s", h);
            found++;
        }
    }
    RC_CHECK_INT_EQ(found, K);
}

static void test_crawl_info_stop(void)
{
    char hosts[K][32] = {{0}}, req[512];
    hosts_by_shard(hosts);
    /* seeds in shards 1 and 2 (two URLs in 2), none in shard 0 */
    const char *seeds[3] = {hosts[1], hosts[2], hosts[2]};
    for (int i = 0; i < 3; i++) {
        snprintf(req, sizeof req, "{\"uuid\":\"c%d\",\"appid\":\"app\",\"crawlid\":\"j\",\"url\":\"http://%s/%d\"}", i,
                 seeds[i], i);
        json_t *a = run(req, NULL);
        RC_CHECK_STR_EQ(gets_(a, "status"), "accepted");
        RC_CHECK_INT_EQ(geti(a, "added"), 1);
        json_decref(a);
    }
    RC_CHECK_INT_EQ(exists(0, "job:j"), 0);
    RC_CHECK_INT_EQ(exists(1, "job:j"), 1);
    RC_CHECK_INT_EQ(exists(2, "job:j"), 1);

    json_t *a =
        run("{\"uuid\":\"i1\",\"appid\":\"app\",\"action\":\"info\",\"spiderid\":\"link\",\"crawlid\":\"j\"}", NULL);
    RC_CHECK_STR_EQ(gets_(a, "uuid"), "i1");
    RC_CHECK_STR_EQ(gets_(a, "state"), "running");
    RC_CHECK_INT_EQ(geti(a, "pending"), 3);
    RC_CHECK_INT_EQ(geti(a, "total_pending"), 3);
    RC_CHECK_INT_EQ(geti(a, "total_domains"), 2);
    RC_CHECK(json_object_get(json_object_get(a, "domains"), hosts[1]) != NULL);
    RC_CHECK(json_object_get(json_object_get(a, "domains"), hosts[2]) != NULL);
    RC_CHECK(json_object_get(a, "error") == NULL);
    json_decref(a);

    /* every job of the app: j once, its counts summed */
    a = run("{\"uuid\":\"i3\",\"appid\":\"app\",\"action\":\"info\",\"spiderid\":\"link\"}", NULL);
    RC_CHECK_INT_EQ(geti(a, "total_crawlids"), 1);
    RC_CHECK_INT_EQ(geti(a, "total_pending"), 3);
    RC_CHECK_INT_EQ(geti(a, "total_domains"), 2);
    json_t *j = json_object_get(json_object_get(a, "crawlids"), "j");
    RC_CHECK_INT_EQ(geti(j, "total"), 3);
    RC_CHECK_INT_EQ(geti(j, "pending"), 3);
    RC_CHECK_INT_EQ(geti(j, "distinct_domains"), 2);
    RC_CHECK_STR_EQ(gets_(j, "state"), "running");
    json_decref(a);

    a = run("{\"uuid\":\"i2\",\"appid\":\"app\",\"action\":\"info\",\"spiderid\":\"link\",\"crawlid\":\"none\"}", NULL);
    RC_CHECK(json_is_string(json_object_get(a, "error")));
    json_decref(a);

    a = run("{\"uuid\":\"s1\",\"appid\":\"app\",\"action\":\"stop\",\"spiderid\":\"link\",\"crawlid\":\"j\"}", NULL);
    RC_CHECK_STR_EQ(gets_(a, "action"), "stop");
    RC_CHECK_INT_EQ(geti(a, "total_purged"), 3);
    json_decref(a);
    /* stopped everywhere: a new seed in any shard is refused */
    snprintf(req, sizeof req, "{\"uuid\":\"c9\",\"appid\":\"app\",\"crawlid\":\"j\",\"url\":\"http://%s/9\"}",
             hosts[1]);
    a = run(req, NULL);
    RC_CHECK_STR_EQ(gets_(a, "status"), "refused");
    json_decref(a);
}

static void test_domain_everywhere(void)
{
    json_t *a = run("{\"uuid\":\"d1\",\"appid\":\"app\",\"domain\":\"example.com\",\"action\":\"domain-update\","
                    "\"hits\":5,\"window\":60}",
                    NULL);
    RC_CHECK_STR_EQ(gets_(a, "domain"), "example.com");
    json_decref(a);
    a = run("{\"uuid\":\"d2\",\"appid\":\"app\",\"domain\":\"bad.test\",\"action\":\"blacklist-update\"}", NULL);
    json_decref(a);
    for (int s = 0; s < K; s++) {
        RC_CHECK_INT_EQ(exists(s, "domainconf"), 1);
        RC_CHECK_INT_EQ(exists(s, "blacklist"), 1);
    }
}

static void test_unreachable_shard(void)
{
    rc_redis *keep = shards[1];
    shards[1] = NULL;
    int rc = 0;
    json_t *a = run("{\"uuid\":\"d3\",\"appid\":\"app\",\"domain\":\"x.test\",\"action\":\"blacklist-update\"}", &rc);
    RC_CHECK_INT_EQ(rc, -EIO);
    RC_CHECK(a == NULL);
    shards[1] = keep;
}

/* A command on shard S's keys: FMT's first %s is the shard's prefix. */
#define CMD(s, fmt, ...)                                                                                               \
    do {                                                                                                               \
        redisReply *rep_ = rc_redis_cmd(shards[0], fmt, prefixes[s], __VA_ARGS__);                                     \
        RC_CHECK(rep_ && rep_->type != REDIS_REPLY_ERROR);                                                             \
        if (rep_)                                                                                                      \
            freeReplyObject(rep_);                                                                                     \
    } while (0)

static json_int_t lifetime(const json_t *counter)
{
    return geti(counter, "lifetime");
}

static json_int_t requests_total(void)
{
    json_t *a = run("{\"uuid\":\"k\",\"appid\":\"app\",\"stats\":\"kafka-monitor\"}", NULL);
    json_int_t n = lifetime(json_object_get(a, "total"));
    json_decref(a);
    return n;
}

/* One worker registered in each shard, pages counted in shards 1 and 2, a frontier URL in each:
 * the answers are the keyspace's, not the last shard's. */
static void test_stats_over_shards(void)
{
    char hosts[K][32] = {{0}}, req[512], now[32];
    hosts_by_shard(hosts);
    snprintf(now, sizeof now, "%llu", (unsigned long long)rc_now_ms());
    for (int s = 0; s < K; s++) {
        char id[16], fetched[16];
        snprintf(id, sizeof id, "w%d", s);
        snprintf(fetched, sizeof fetched, "%d", 10 * (s + 1));
        CMD(s, "ZADD %sworkers %s %s", now, id);
        CMD(s, "HSET %sworker:%s host box fetched %s", id, fetched);
        snprintf(req, sizeof req, "{\"uuid\":\"q%d\",\"appid\":\"app\",\"crawlid\":\"q\",\"url\":\"http://%s/q\"}", s,
                 hosts[s]);
        json_decref(run(req, NULL));
    }
    CMD(1, "HSET %sstats:pages:link:200 total %s", "5");
    CMD(1, "SADD %sstats:names %s", "pages:link:200");
    CMD(2, "HSET %sstats:pages:link:200 total %s", "7");
    CMD(2, "HSET %sstats:pages:link:404 total %s", "1");
    CMD(2, "SADD %sstats:names %s %s", "pages:link:200", "pages:link:404");

    json_t *a = run("{\"uuid\":\"t1\",\"appid\":\"app\",\"stats\":\"spider\"}", NULL);
    json_t *sp = json_object_get(a, "spiders"), *link = json_object_get(sp, "link");
    RC_CHECK_INT_EQ(lifetime(json_object_get(link, "200")), 12);
    RC_CHECK_INT_EQ(lifetime(json_object_get(link, "404")), 1);
    RC_CHECK_INT_EQ(geti(link, "count"), K);
    RC_CHECK_INT_EQ(geti(sp, "unique_spider_count"), 1);
    RC_CHECK_INT_EQ(geti(sp, "total_spider_count"), K);
    json_decref(a);

    a = run("{\"uuid\":\"t2\",\"appid\":\"app\",\"stats\":\"machine\"}", NULL);
    json_t *box = json_object_get(json_object_get(a, "machines"), "box");
    RC_CHECK_INT_EQ(geti(box, "workers"), K);
    RC_CHECK_INT_EQ(geti(box, "fetched"), 60);
    RC_CHECK_INT_EQ((json_int_t)json_array_size(json_object_get(box, "ids")), K);
    RC_CHECK_INT_EQ(geti(json_object_get(a, "machines"), "count"), 1);
    RC_CHECK_INT_EQ((json_int_t)json_array_size(json_object_get(json_object_get(a, "processes"), "workers")), K);
    json_decref(a);

    a = run("{\"uuid\":\"t3\",\"appid\":\"app\",\"stats\":\"queue\"}", NULL);
    RC_CHECK_INT_EQ(geti(json_object_get(a, "queues"), "frontier_backlog"), K);
    RC_CHECK_INT_EQ(geti(json_object_get(a, "queues"), "total_backlog"), K);
    json_decref(a);

    /* every part of "all" too */
    a = run("{\"uuid\":\"t4\",\"appid\":\"app\",\"stats\":\"all\"}", NULL);
    json_t *crawler = json_object_get(a, "crawler");
    RC_CHECK_INT_EQ(lifetime(json_object_get(json_object_get(json_object_get(crawler, "spiders"), "link"), "200")), 12);
    RC_CHECK_INT_EQ(geti(json_object_get(json_object_get(crawler, "machines"), "box"), "workers"), K);
    RC_CHECK_INT_EQ(geti(json_object_get(a, "queues"), "frontier_backlog"), K);
    RC_CHECK(json_is_object(json_object_get(json_object_get(a, "redis-monitor"), "dropped")));
    json_decref(a);

    /* requests: each counted once, whichever shards it went to (a stats request to all, a crawl
     * request to its seed's shard only) */
    json_int_t before = requests_total();
    json_decref(run("{\"uuid\":\"i9\",\"appid\":\"app\",\"action\":\"info\",\"spiderid\":\"link\"}", NULL));
    snprintf(req, sizeof req, "{\"uuid\":\"q9\",\"appid\":\"app\",\"crawlid\":\"q\",\"url\":\"http://%s/q9\"}",
             hosts[1]);
    json_decref(run(req, NULL));
    RC_CHECK_INT_EQ(requests_total() - before, 3); /* the first stats request, the info and the crawl */
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    if (rc_test_redis_start(&redis, "control_shards") < 0)
        return 1;
    for (int i = 0; i < K; i++) {
        char err[256];
        RC_CHECK_INT_EQ(rc_shard_prefix("rc:", i, K, prefixes[i], sizeof prefixes[i]), 0);
        shards[i] = rc_redis_new(redis.url, prefixes[i], err, sizeof err);
        if (!shards[i]) {
            fprintf(stderr, "%s\n", err);
            rc_test_redis_cleanup(&redis);
            return 1;
        }
    }
    test_crawl_info_stop();
    test_domain_everywhere();
    test_stats_over_shards();
    test_unreachable_shard();
    for (int i = 0; i < K; i++)
        rc_redis_free(shards[i]);
    rc_test_redis_cleanup(&redis);
    return rc_test_done("test_control_shards");
}
