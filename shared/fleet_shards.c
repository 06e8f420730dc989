/* fleet_shards.c - see fleet_shards.h. */
#include "fleet_shards.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "util.h"

static int64_t jint(const json_t *o, const char *k)
{
    return json_integer_value(json_object_get(o, k));
}

static void add_int(json_t *o, const char *k, int64_t v)
{
    json_object_set_new(o, k, json_integer(jint(o, k) + v));
}

/* A state's weight when the shards meet: a job runs if it runs in any shard. */
static int state_rank(const char *s)
{
    return !s ? 0 : strcmp(s, "done") == 0 ? 1 : strcmp(s, "running") == 0 ? 3 : strcmp(s, "?") == 0 ? 0 : 2;
}

static void merge_bloom(json_t *job, const json_t *b)
{
    json_t *a = json_object_get(job, "bloom");
    if (!json_is_object(b))
        return;
    if (!json_is_object(a)) {
        json_object_set_new(job, "bloom", json_deep_copy(b));
        return;
    }
    static const char *const sums[] = {"bits", "bits_set", "filters", "urls"};
    for (size_t i = 0; i < RC_ARRAY_LEN(sums); i++)
        add_int(a, sums[i], jint(b, sums[i]));
    double bits = (double)jint(a, "bits");
    json_object_set_new(a, "fill", json_real(bits > 0 ? (double)jint(a, "bits_set") / bits : 0));
    double fp = json_real_value(json_object_get(b, "est_fp"));
    if (fp > json_real_value(json_object_get(a, "est_fp")))
        json_object_set_new(a, "est_fp", json_real(fp));
}

static void merge_job(json_t *jobs, const json_t *j)
{
    static const char *const sums[] = {"pending",       "fetched",           "items", "errors", "failed",
                                       "robots_denied", "robots_unreachable"};
    const char *cid = json_string_value(json_object_get(j, "crawlid"));
    size_t i;
    json_t *have = NULL, *x;
    json_array_foreach (jobs, i, x) {
        if (cid && strcmp(json_string_value(json_object_get(x, "crawlid")), cid) == 0)
            have = x;
    }
    if (!have) {
        json_array_append_new(jobs, json_deep_copy(j));
        return;
    }
    for (size_t k = 0; k < RC_ARRAY_LEN(sums); k++)
        add_int(have, sums[k], jint(j, sums[k]));
    int64_t c = jint(j, "created_ms");
    if (c && (!jint(have, "created_ms") || c < jint(have, "created_ms")))
        json_object_set_new(have, "created_ms", json_integer(c));
    json_object_set_new(have, "finished_ms", json_integer(RC_MAX(jint(have, "finished_ms"), jint(j, "finished_ms"))));
    const char *st = json_string_value(json_object_get(j, "state"));
    if (state_rank(st) > state_rank(json_string_value(json_object_get(have, "state"))))
        json_object_set_new(have, "state", json_string(st));
    if (strcmp(json_string_value(json_object_get(have, "state")), "done") != 0)
        json_object_set_new(have, "finished_ms", json_integer(0)); /* not over while a shard runs it */
    if (strcmp(json_string_value(json_object_get(have, "appid")), "?") == 0)
        json_object_set(have, "appid", json_object_get(j, "appid"));
    merge_bloom(have, json_object_get(j, "bloom"));
}

static int by_backlog(const json_t *a, const json_t *b)
{
    int64_t x = jint(a, "backlog"), y = jint(b, "backlog");
    return x < y ? 1 : x > y ? -1 : 0;
}

static void merge_hosts(json_t *acc, const json_t *h, int64_t top)
{
    add_int(acc, "examined", jint(h, "examined"));
    add_int(acc, "total_backlog", jint(h, "total_backlog"));
    json_t *list = json_object_get(acc, "top");
    json_array_extend(list, json_object_get(h, "top"));
    rc_json_array_top(list, by_backlog, top > 0 ? (size_t)top : 0);
}

static void merge_statuses(json_t *acc, const json_t *st)
{
    const char *win, *code;
    json_t *w, *v;
    json_object_foreach ((json_t *)st, win, w) {
        json_t *aw = json_object_get(acc, win);
        if (!aw)
            json_object_set_new(acc, win, aw = json_object());
        json_object_foreach (w, code, v)
            add_int(aw, code, json_integer_value(v));
    }
}

static json_t *empty_snapshot(void)
{
    return json_pack("{s:I, s:s, s:[], s:[], s:{s:I, s:I, s:[]}, s:{s:I, s:I, s:I, s:I}, s:{}, s:[]}", "time_ms",
                     (json_int_t)0, "scheduler", "", "workers", "jobs", "hosts", "examined", (json_int_t)0,
                     "total_backlog", (json_int_t)0, "top", "redis", "used_memory", (json_int_t)0, "peak_memory",
                     (json_int_t)0, "maxmemory", (json_int_t)0, "frontier", (json_int_t)0, "statuses", "shards");
}

json_t *rc_fleet_merge_shard(json_t *acc, const json_t *snap, int i, int64_t top)
{
    if (!acc)
        acc = empty_snapshot();
    json_object_set_new(acc, "time_ms", json_integer(RC_MAX(jint(acc, "time_ms"), jint(snap, "time_ms"))));
    const char *sched = json_string_value(json_object_get(snap, "scheduler"));
    const char *was = json_string_value(json_object_get(acc, "scheduler"));
    char *joined = rc_xasprintf("%s%s%s", was, was[0] ? " " : "", sched ? sched : "-");
    json_object_set_new(acc, "scheduler", json_string(joined));
    free(joined);
    size_t k;
    json_t *x;
    json_array_foreach (json_object_get(snap, "workers"), k, x) {
        json_t *w = json_deep_copy(x);
        json_object_set_new(w, "shard", json_integer(i));
        json_array_append_new(json_object_get(acc, "workers"), w);
    }
    json_array_foreach (json_object_get(snap, "jobs"), k, x)
        merge_job(json_object_get(acc, "jobs"), x);
    merge_hosts(json_object_get(acc, "hosts"), json_object_get(snap, "hosts"), top);
    const json_t *rd = json_object_get(snap, "redis");
    static const char *const mem[] = {"used_memory", "peak_memory", "maxmemory", "frontier"};
    for (size_t m = 0; m < RC_ARRAY_LEN(mem); m++)
        add_int(json_object_get(acc, "redis"), mem[m], RC_MAX(jint(rd, mem[m]), 0));
    merge_statuses(json_object_get(acc, "statuses"), json_object_get(snap, "statuses"));
    json_array_append_new(json_object_get(acc, "shards"),
                          json_pack("{s:i, s:O, s:O}", "shard", i, "scheduler", json_object_get(snap, "scheduler"),
                                    "redis", rd ? rd : json_null()));
    return acc;
}
