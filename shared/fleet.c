/* fleet.c - see fleet.h. */
#include "fleet.h"

#include <hiredis/hiredis.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "argv.h"
#include "sbloom.h"
#include "redis.h"
#include "scripts.h"
#include "seeds.h"
#include "util.h"

#define HOSTS_EXAMINED 20000 /* hosts.lua looks at no more per snapshot */

static redisReply *cmd_ok(redisReply *rep, int type)
{
    if (rep && rep->type == type)
        return rep;
    if (rep)
        freeReplyObject(rep);
    return NULL;
}

/* A hash as a JSON object of strings (numbers where the value is a whole number). */
static json_t *hash_object(rc_redis *r, const char *key)
{
    json_t *o = json_object();
    redisReply *rep = cmd_ok(rc_redis_cmd(r, "HGETALL %s", key), REDIS_REPLY_ARRAY);
    for (size_t i = 0; rep && i + 1 < rep->elements; i += 2) {
        const char *v = rep->element[i + 1]->str;
        int64_t n;
        if (rc_parse_i64(v, INT64_MIN, INT64_MAX, &n) == 0)
            json_object_set_new(o, rep->element[i]->str, json_integer(n));
        else
            json_object_set_new(o, rep->element[i]->str, json_string(v));
    }
    if (rep)
        freeReplyObject(rep);
    return o;
}

static int64_t jint(const json_t *o, const char *k)
{
    return json_integer_value(json_object_get(o, k));
}

static const char *jstr(const json_t *o, const char *k, const char *def)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : def;
}

/* From the worker's completions per minute (wstat:{w}): the average over the last 10 minutes it
 * has lived (the scheduler's measure for workers that report no slots), and pages/s over the
 * current and the previous minute's buckets (what a first frame shows before it has a rate of
 * its own). */
static double per_minute(rc_redis *r, const char *wid, uint64_t now_ms, uint64_t started_ms, double *ret_per_s)
{
    char key[256];
    json_t *h = hash_object(r, rc_redis_key(r, key, sizeof key, "wstat:%s", wid));
    int64_t cur = (int64_t)(now_ms / 60000), total = 0, recent = 0;
    const char *minute;
    json_t *v;
    json_object_foreach (h, minute, v) {
        int64_t m;
        if (rc_parse_i64(minute, 0, INT64_MAX, &m) < 0)
            continue;
        if (m > cur - 10 && m <= cur)
            total += json_integer_value(v);
        if (m >= cur - 1 && m <= cur)
            recent += json_integer_value(v);
    }
    json_decref(h);
    double alive_s = started_ms && now_ms > started_ms ? (double)(now_ms - started_ms) / 1000.0 : 60.0;
    double span_s = RC_MIN(60.0 + (double)(now_ms % 60000) / 1000.0, alive_s);
    *ret_per_s = span_s > 0 ? (double)recent / span_s : 0;
    return (double)total / RC_MAX(RC_MIN(alive_s / 60.0, 10.0), 1.0 / 6);
}

static json_t *snap_workers(rc_redis *r, uint64_t now)
{
    char key[256];
    json_t *arr = json_array();
    redisReply *rep = cmd_ok(rc_redis_cmd(r, "ZRANGE %s 0 -1 WITHSCORES", rc_redis_key(r, key, sizeof key, "workers")),
                             REDIS_REPLY_ARRAY);
    for (size_t i = 0; rep && i + 1 < rep->elements; i += 2) {
        const char *wid = rep->element[i]->str;
        json_t *h = hash_object(r, rc_redis_key(r, key, sizeof key, "worker:%s", wid));
        uint64_t hb = (uint64_t)rc_reply_int(rep->element[i + 1], 0);
        redisReply *d = rc_redis_cmd(r, "SCARD %s", rc_redis_key(r, key, sizeof key, "wdoms:%s", wid));
        int64_t domains = rc_reply_int(d, 0), slots = jint(h, "slots");
        if (d)
            freeReplyObject(d);
        redisReply *dr = rc_redis_cmd(r, "SISMEMBER %s %s", rc_redis_key(r, key, sizeof key, "draining"), wid);
        int draining = rc_reply_int(dr, 0) == 1;
        if (dr)
            freeReplyObject(dr);
        double per_s;
        double pm = per_minute(r, wid, now, (uint64_t)jint(h, "started_ms"), &per_s);
        /* The scheduler's weight for new hosts: free transfer slots (README "Scheduling"). */
        int64_t weight = slots > 0 ? 100 * (slots > domains ? slots - domains : 1) : (int64_t)(100 * RC_MAX(pm, 1));
        if (draining)
            weight = 0; /* out of the rotation */
        json_t *w =
            json_pack("{s:s, s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:f, s:f, s:f}", "id", wid, "host",
                      jstr(h, "host", "?"), "ip", jstr(h, "ip", "?"), "pid", (json_int_t)jint(h, "pid"), "weight",
                      (json_int_t)weight, "slots", (json_int_t)slots, "domains", (json_int_t)domains, "queued",
                      (json_int_t)jint(h, "queued"), "inflight", (json_int_t)jint(h, "inflight"), "fetched",
                      (json_int_t)jint(h, "fetched"), "errors", (json_int_t)jint(h, "errors"), "pages_per_s", per_s,
                      "per_minute", pm, "heartbeat_age_s", now > hb ? (double)(now - hb) / 1000.0 : 0.0);
        json_object_set_new(w, "draining", json_boolean(draining));
        json_array_append_new(arr, w);
        json_decref(h);
    }
    if (rep)
        freeReplyObject(rep);
    return arr;
}

/* The job's growing bloom filter: its filters, the bits they have and have set (BITCOUNT of
 * each), the URLs it holds, the newest filter's hash count, the fill of all bits together and
 * the chance that a URL never seen finds all its bits set in some filter: the sum over filters
 * of fill_i ^ (k_i x groups). */
static json_t *snap_bloom(rc_redis *r, const char *crawlid, const json_t *h)
{
    rc_sbloom_params bp;
    const char *params = jstr(h, "bloom", NULL);
    if (!params || rc_sbloom_params_parse(params, &bp) < 0)
        return json_null();
    int64_t nf = jint(h, "bloom_filters"), count = jint(h, "bloom_count");
    if (nf < 1)
        nf = 1;
    char key[256];
    int64_t set = 0, bits = 0;
    double est = 0;
    rc_sbloom_filter f;
    for (uint32_t i = 0; i < (uint32_t)nf; i++) {
        rc_sbloom_filter_at(&bp, i, &f);
        redisReply *rep = rc_redis_cmd(r, "BITCOUNT %s", rc_redis_key(r, key, sizeof key, "bloom:%s:%u", crawlid, i));
        int64_t s = rc_reply_int(rep, 0);
        if (rep)
            freeReplyObject(rep);
        int64_t m = (int64_t)(f.mg * bp.groups);
        set += s;
        bits += m;
        est += pow((double)s / (double)m, (double)(f.k * bp.groups));
    }
    double fill = bits ? (double)set / (double)bits : 0;
    return json_pack("{s:I, s:I, s:i, s:i, s:i, s:I, s:f, s:f}", "bits", (json_int_t)bits, "bits_set", (json_int_t)set,
                     "filters", (int)nf, "k", (int)f.k, "groups", (int)bp.groups, "urls",
                     (json_int_t)rc_sbloom_count(&bp, (uint32_t)nf, (uint64_t)count), "fill", fill, "est_fp", est);
}

static json_t *snap_jobs(rc_redis *r)
{
    char key[256];
    json_t *arr = json_array();
    redisReply *rep =
        cmd_ok(rc_redis_cmd(r, "SMEMBERS %s", rc_redis_key(r, key, sizeof key, "jobs")), REDIS_REPLY_ARRAY);
    for (size_t i = 0; rep && i < rep->elements; i++) {
        const char *cid = rep->element[i]->str;
        json_t *h = hash_object(r, rc_redis_key(r, key, sizeof key, "job:%s", cid));
        json_t *j = json_pack("{s:s, s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "crawlid", cid, "appid",
                              jstr(h, "appid", "?"), "state", jstr(h, "state", "?"), "pending",
                              (json_int_t)jint(h, "pending"), "fetched", (json_int_t)jint(h, "fetched"), "items",
                              (json_int_t)jint(h, "items"), "errors", (json_int_t)jint(h, "errors"), "failed",
                              (json_int_t)jint(h, "failed"), "robots_denied", (json_int_t)jint(h, "robots_denied"),
                              "robots_unreachable", (json_int_t)jint(h, "robots_unreachable"), "created_ms",
                              (json_int_t)jint(h, "created_ms"), "finished_ms", (json_int_t)jint(h, "finished_ms"));
        json_object_set_new(j, "bloom", snap_bloom(r, cid, h));
        json_array_append_new(arr, j);
        json_decref(h);
    }
    if (rep)
        freeReplyObject(rep);
    return arr;
}

static json_t *snap_hosts(rc_redis *r, uint64_t now, int64_t top)
{
    rc_argv a;
    rc_argv_init(&a);
    rc_argv_seti(&a, RC_HOSTS_TOP, top);
    rc_argv_seti(&a, RC_HOSTS_CAP, HOSTS_EXAMINED);
    redisReply *rep = cmd_ok(rc_redis_eval(r, RC_LUA_HOSTS, now, &a), REDIS_REPLY_ARRAY);
    rc_argv_release(&a);
    json_t *list = json_array();
    json_t *o = json_pack("{s:I, s:I, s:o}", "examined", (json_int_t)(rep ? rc_reply_int(rep->element[0], 0) : 0),
                          "total_backlog", (json_int_t)(rep ? rc_reply_int(rep->element[1], 0) : 0), "top", list);
    for (size_t i = 2; rep && i + 5 < rep->elements; i += 6) {
        int64_t due = rc_reply_int(rep->element[i + 4], 0);
        json_array_append_new(list, json_pack("{s:s, s:s, s:I, s:s, s:f, s:s}", "host", rep->element[i]->str, "worker",
                                              rep->element[i + 1]->str, "backlog",
                                              (json_int_t)rc_reply_int(rep->element[i + 2], 0), "state",
                                              rep->element[i + 3]->str, "due_in_s",
                                              due > (int64_t)now ? (double)(due - (int64_t)now) / 1000.0 : 0.0, "rate",
                                              rep->element[i + 5]->str));
    }
    if (rep)
        freeReplyObject(rep);
    return o;
}

/* A field of INFO's text as a number, -1 when absent. */
static int64_t info_field(const char *info, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = info; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
        if (strncmp(p, name, n) == 0 && p[n] == ':')
            return strtoll(p + n + 1, NULL, 10);
    }
    return -1;
}

static json_t *snap_redis(rc_redis *r)
{
    redisReply *rep = cmd_ok(rc_redis_cmd(r, "INFO memory"), REDIS_REPLY_STRING);
    const char *info = rep ? rep->str : "";
    json_t *o = json_pack("{s:I, s:I, s:I}", "used_memory", (json_int_t)info_field(info, "used_memory"), "peak_memory",
                          (json_int_t)info_field(info, "used_memory_peak"), "maxmemory",
                          (json_int_t)info_field(info, "maxmemory"));
    if (rep)
        freeReplyObject(rep);
    int64_t frontier = rc_seeds_count(r, NULL);
    json_object_set_new(o, "frontier", json_integer(frontier > 0 ? frontier : 0));
    return o;
}

/* Pages per HTTP status (all spiders) in the rolling counters pages:{spiderid}:{status}:
 * "1m" the current minute's bucket and the one before (so 60 to 120 s), "1h" the last 60
 * minute buckets, "1d" the last 24 hour buckets, "total" since the counters began. */
static json_t *snap_statuses(rc_redis *r, uint64_t now)
{
    static const char *const win[] = {"1m", "1h", "1d", "total"};
    char key[256];
    json_t *o = json_object();
    for (size_t i = 0; i < RC_ARRAY_LEN(win); i++)
        json_object_set_new(o, win[i], json_object());
    redisReply *names =
        cmd_ok(rc_redis_cmd(r, "SMEMBERS %s", rc_redis_key(r, key, sizeof key, "stats:names")), REDIS_REPLY_ARRAY);
    int64_t minute = (int64_t)(now / 60000), hour = (int64_t)(now / 3600000);
    for (size_t i = 0; names && i < names->elements; i++) {
        const char *name = names->element[i]->str;
        const char *status = strrchr(name, ':');
        if (strncmp(name, "pages:", 6) != 0 || !status)
            continue;
        status++;
        json_t *h = hash_object(r, rc_redis_key(r, key, sizeof key, "stats:%s", name));
        int64_t sums[4] = {0, 0, 0, jint(h, "total")};
        const char *field;
        json_t *v;
        json_object_foreach (h, field, v) {
            int64_t b;
            if (field[1] != ':' || rc_parse_i64(field + 2, INT64_MIN, INT64_MAX, &b) < 0)
                continue;
            if (field[0] == 'm' && b >= minute - 1 && b <= minute)
                sums[0] += json_integer_value(v);
            if (field[0] == 'm' && b > minute - 60 && b <= minute)
                sums[1] += json_integer_value(v);
            if (field[0] == 'h' && b > hour - 24 && b <= hour)
                sums[2] += json_integer_value(v);
        }
        for (size_t k = 0; k < RC_ARRAY_LEN(win); k++) {
            json_t *w = json_object_get(o, win[k]);
            json_object_set_new(w, status, json_integer(jint(w, status) + sums[k]));
        }
        json_decref(h);
    }
    if (names)
        freeReplyObject(names);
    return o;
}

json_t *rc_fleet_snapshot(rc_redis *r, int64_t top)
{
    uint64_t now = rc_now_ms();
    char key[256];
    json_t *s = json_object();
    json_object_set_new(s, "time_ms", json_integer((json_int_t)now));
    redisReply *rep = rc_redis_cmd(r, "GET %s", rc_redis_key(r, key, sizeof key, "lock:scheduler"));
    json_object_set_new(s, "scheduler", rep && rep->type == REDIS_REPLY_STRING ? json_string(rep->str) : json_null());
    if (rep)
        freeReplyObject(rep);
    json_object_set_new(s, "workers", snap_workers(r, now));
    json_object_set_new(s, "jobs", snap_jobs(r));
    json_object_set_new(s, "hosts", snap_hosts(r, now, top));
    json_object_set_new(s, "redis", snap_redis(r));
    json_object_set_new(s, "statuses", snap_statuses(r, now));
    return s;
}

/* Rates from the previous snapshot: a worker's pages/s from its heartbeat's fetched counter,
 * a job's from its fetched counter. Without one, a worker keeps its rate over the last one or
 * two minutes and a job its average since it was created. */
void rc_fleet_add_rates(json_t *cur, const json_t *prev)
{
    double dt = prev ? (double)(jint(cur, "time_ms") - jint(prev, "time_ms")) / 1000.0 : 0;
    size_t i, j;
    json_t *w, *pw, *job, *pj;
    json_array_foreach (json_object_get(cur, "workers"), i, w) {
        json_array_foreach (prev &&dt > 0 ? json_object_get(prev, "workers") : NULL, j, pw) {
            if (strcmp(jstr(w, "id", ""), jstr(pw, "id", "")) == 0)
                json_object_set_new(w, "pages_per_s",
                                    json_real((double)(jint(w, "fetched") - jint(pw, "fetched")) / dt));
        }
    }
    json_array_foreach (json_object_get(cur, "jobs"), i, job) {
        int64_t end = jint(job, "finished_ms") ? jint(job, "finished_ms") : jint(cur, "time_ms");
        double age = (double)(end - jint(job, "created_ms")) / 1000.0;
        double rate = age > 0 ? (double)jint(job, "fetched") / age : 0;
        json_array_foreach (prev &&dt > 0 ? json_object_get(prev, "jobs") : NULL, j, pj) {
            if (strcmp(jstr(job, "crawlid", ""), jstr(pj, "crawlid", "")) == 0)
                rate = (double)(jint(job, "fetched") - jint(pj, "fetched")) / dt;
        }
        json_object_set_new(job, "pages_per_s", json_real(rate));
    }
}

json_t *rc_fleet_throughput(rc_redis *r, uint64_t now_ms, int minutes)
{
    char key[256];
    int64_t cur = (int64_t)(now_ms / 60000);
    int64_t *sums = rc_xcalloc((size_t)minutes, sizeof *sums);
    redisReply *names =
        cmd_ok(rc_redis_cmd(r, "SMEMBERS %s", rc_redis_key(r, key, sizeof key, "stats:names")), REDIS_REPLY_ARRAY);
    for (size_t i = 0; names && i < names->elements; i++) {
        const char *name = names->element[i]->str;
        if (strncmp(name, "pages:", 6) != 0)
            continue;
        json_t *h = hash_object(r, rc_redis_key(r, key, sizeof key, "stats:%s", name));
        const char *field;
        json_t *v;
        json_object_foreach (h, field, v) {
            int64_t b;
            if (field[0] != 'm' || field[1] != ':' || rc_parse_i64(field + 2, 0, INT64_MAX, &b) < 0)
                continue;
            if (b > cur - minutes && b <= cur)
                sums[minutes - 1 - (cur - b)] += json_integer_value(v);
        }
        json_decref(h);
    }
    if (names)
        freeReplyObject(names);
    json_t *arr = json_array();
    for (int i = 0; i < minutes; i++)
        json_array_append_new(
            arr, json_pack("{s:I, s:I}", "minute", (json_int_t)(cur - minutes + 1 + i), "pages", (json_int_t)sums[i]));
    free(sums);
    return arr;
}

json_t *rc_fleet_failures(rc_redis *r, int n)
{
    char key[256];
    json_t *arr = json_array();
    redisReply *rep =
        cmd_ok(rc_redis_cmd(r, "ZREVRANGE %s 0 %d WITHSCORES", rc_redis_key(r, key, sizeof key, "failed"), n - 1),
               REDIS_REPLY_ARRAY);
    for (size_t i = 0; rep && i + 1 < rep->elements; i += 2) {
        json_t *f = json_loads(rep->element[i]->str, 0, NULL);
        if (!json_is_object(f)) {
            json_decref(f);
            continue;
        }
        json_object_set_new(f, "time_ms", json_integer(rc_reply_int(rep->element[i + 1], 0)));
        json_array_append_new(arr, f);
    }
    if (rep)
        freeReplyObject(rep);
    return arr;
}
