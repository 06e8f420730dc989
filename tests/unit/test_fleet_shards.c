/* test_fleet_shards.c - two shards' fleet snapshots merged (shared/fleet_shards.h): each worker
 * listed with its shard, a job in both once with its counts and bloom summed and the state that
 * says most, a job in one shard as it is, the busiest hosts of both sorted and cut at TOP, the
 * backlog, HTTP statuses and Redis memory summed, each shard's scheduler named. */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "fleet_shards.h"
#include "rc_test.h"

static const char *shard0 =
    "{\"time_ms\":1000,\"scheduler\":\"s0\",\"workers\":[{\"id\":\"w0\",\"fetched\":5}],"
    "\"jobs\":[{\"crawlid\":\"j\",\"appid\":\"a\",\"state\":\"done\",\"pending\":0,\"fetched\":5,\"items\":1,"
    "\"errors\":0,\"failed\":0,\"robots_denied\":0,\"robots_unreachable\":0,\"created_ms\":300,\"finished_ms\":900,"
    "\"bloom\":{\"bits\":100,\"bits_set\":10,\"filters\":1,\"k\":4,\"groups\":1,\"urls\":5,\"fill\":0.1,"
    "\"est_fp\":0.001}}],"
    "\"hosts\":{\"examined\":2,\"total_backlog\":7,\"top\":[{\"host\":\"a\",\"backlog\":5},{\"host\":\"b\","
    "\"backlog\":2}]},\"redis\":{\"used_memory\":10,\"peak_memory\":20,\"maxmemory\":0,\"frontier\":7},"
    "\"statuses\":{\"1m\":{\"200\":3},\"total\":{\"200\":5}}}";
static const char *shard1 =
    "{\"time_ms\":1100,\"scheduler\":null,\"workers\":[{\"id\":\"w1\",\"fetched\":3}],"
    "\"jobs\":[{\"crawlid\":\"j\",\"appid\":\"a\",\"state\":\"running\",\"pending\":4,\"fetched\":3,\"items\":0,"
    "\"errors\":2,\"failed\":0,\"robots_denied\":0,\"robots_unreachable\":0,\"created_ms\":200,\"finished_ms\":0,"
    "\"bloom\":{\"bits\":100,\"bits_set\":30,\"filters\":1,\"k\":4,\"groups\":1,\"urls\":7,\"fill\":0.3,"
    "\"est_fp\":0.01}},{\"crawlid\":\"k\",\"appid\":\"b\",\"state\":\"done\",\"pending\":0,\"fetched\":1,"
    "\"bloom\":null}],"
    "\"hosts\":{\"examined\":1,\"total_backlog\":4,\"top\":[{\"host\":\"c\",\"backlog\":4}]},"
    "\"redis\":{\"used_memory\":1,\"peak_memory\":2,\"maxmemory\":0,\"frontier\":4},"
    "\"statuses\":{\"1m\":{\"200\":1,\"404\":1},\"total\":{\"200\":2,\"404\":1}}}";

static json_int_t geti(const json_t *o, const char *k)
{
    return json_integer_value(json_object_get(o, k));
}

int main(void)
{
    json_t *a = json_loads(shard0, 0, NULL), *b = json_loads(shard1, 0, NULL);
    RC_CHECK(a && b);
    json_t *m = rc_fleet_merge_shard(NULL, a, 0, 2);
    RC_CHECK(rc_fleet_merge_shard(m, b, 1, 2) == m);
    RC_CHECK_INT_EQ(geti(m, "time_ms"), 1100);
    RC_CHECK_STR_EQ(json_string_value(json_object_get(m, "scheduler")), "s0 -");
    json_t *w = json_object_get(m, "workers");
    RC_CHECK_INT_EQ((long long)json_array_size(w), 2);
    RC_CHECK_INT_EQ(geti(json_array_get(w, 1), "shard"), 1);
    RC_CHECK_STR_EQ(json_string_value(json_object_get(json_array_get(w, 1), "id")), "w1");
    json_t *jobs = json_object_get(m, "jobs");
    RC_CHECK_INT_EQ((long long)json_array_size(jobs), 2);
    json_t *j = json_array_get(jobs, 0);
    RC_CHECK_STR_EQ(json_string_value(json_object_get(j, "state")), "running");
    RC_CHECK_INT_EQ(geti(j, "pending"), 4);
    RC_CHECK_INT_EQ(geti(j, "fetched"), 8);
    RC_CHECK_INT_EQ(geti(j, "errors"), 2);
    RC_CHECK_INT_EQ(geti(j, "items"), 1);
    RC_CHECK_INT_EQ(geti(j, "created_ms"), 200);
    RC_CHECK_INT_EQ(geti(j, "finished_ms"), 0);
    json_t *bl = json_object_get(j, "bloom");
    RC_CHECK_INT_EQ(geti(bl, "bits"), 200);
    RC_CHECK_INT_EQ(geti(bl, "urls"), 12);
    RC_CHECK(json_real_value(json_object_get(bl, "fill")) > 0.199 &&
             json_real_value(json_object_get(bl, "fill")) < 0.201);
    RC_CHECK(json_real_value(json_object_get(bl, "est_fp")) > 0.0099);
    RC_CHECK_STR_EQ(json_string_value(json_object_get(json_array_get(jobs, 1), "crawlid")), "k");
    RC_CHECK_INT_EQ(geti(json_array_get(jobs, 1), "fetched"), 1);
    json_t *h = json_object_get(m, "hosts");
    RC_CHECK_INT_EQ(geti(h, "total_backlog"), 11);
    RC_CHECK_INT_EQ(geti(h, "examined"), 3);
    json_t *top = json_object_get(h, "top");
    RC_CHECK_INT_EQ((long long)json_array_size(top), 2);
    RC_CHECK_STR_EQ(json_string_value(json_object_get(json_array_get(top, 0), "host")), "a");
    RC_CHECK_STR_EQ(json_string_value(json_object_get(json_array_get(top, 1), "host")), "c");
    RC_CHECK_INT_EQ(geti(json_object_get(m, "redis"), "frontier"), 11);
    RC_CHECK_INT_EQ(geti(json_object_get(m, "redis"), "used_memory"), 11);
    json_t *st = json_object_get(m, "statuses");
    RC_CHECK_INT_EQ(geti(json_object_get(st, "1m"), "200"), 4);
    RC_CHECK_INT_EQ(geti(json_object_get(st, "1m"), "404"), 1);
    RC_CHECK_INT_EQ(geti(json_object_get(st, "total"), "200"), 7);
    RC_CHECK_INT_EQ((long long)json_array_size(json_object_get(m, "shards")), 2);
    json_decref(m);
    json_decref(a);
    json_decref(b);
    return rc_test_done("test_fleet_shards");
}
