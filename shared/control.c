/* control.c - see control.h.
 *
 * Every Redis call goes through q()/eval(): a connection error or an error reply marks the
 * request as failed (-EIO, nothing answered) so that the caller can retry it; the effects are
 * idempotent (submit through the bloom, stop purges what is left, HSET/HDEL/SADD/SREM of the same
 * values), only the counters count a retried request twice.
 *
 * Answers stay well under Kafka's default 1 MB message limit: lists are capped (domains per
 * crawl, crawlids per app, domains of the queue stats) and say so with "..._truncated": true. */
#include "control.h"

#include <errno.h>
#include <hiredis/hiredis.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "argv.h"
#include "frontier.h"
#include "job.h"
#include "msg.h"
#include "record.h"
#include "redis.h"
#include "rules.h"
#include "url.h"
#include "util.h"

#define KEY_MAX 1024
#define INFO_ONE_MAX_DOMAINS 2000 /* domains listed for one crawlid */
#define INFO_APP_MAX_CRAWLS 200   /* crawlids listed for an app */
#define INFO_APP_MAX_DOMAINS 20   /* domains listed per crawlid in an app's listing */
#define QUEUE_MAX_DOMAINS 1000    /* domains listed by the queue stats */
#define EXPIRE_BATCH "100"
#define SCAN_COUNT "1000"

/* The rolling windows of Scrapy Cluster's stats, in seconds. Up to a day they are summed from
 * per-minute buckets, beyond from per-hour buckets (common.lua's stat_incr keeps both). */
static const int64_t windows[] = {900, 3600, 21600, 43200, 86400, 604800};
#define N_WIN RC_ARRAY_LEN(windows)

struct ctx {
    rc_redis *r;
    char *err;
    size_t cap;
    int failed;
    uint64_t now_ms;
    int lost; /* a failure was a lost connection (else: error replies only) */
    /* A sharded keyspace (rc_control_handle_shard): every shard's connection, which a stats
     * answer reads (r is one of them); nall 0: r alone. */
    rc_redis *const *all;
    int nall;
    bool uncounted; /* the request is counted elsewhere: no requests:* counter here */
};

/* -EIO when the connection failed (retry), -EPROTO when Redis refused a command (a bug: retrying
 * will not help), 0 otherwise. */
static int result(const struct ctx *c)
{
    return !c->failed ? 0 : c->lost ? -EIO : -EPROTO;
}

static void set_err(struct ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void set_err(struct ctx *c, const char *fmt, ...)
{
    if (c->failed++ || !c->err || !c->cap)
        return; /* keep the first error */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->err, c->cap, fmt, ap);
    va_end(ap);
}

/* Checks a reply: NULL (connection lost) and error replies fail the request and yield NULL. */
static redisReply *checked(struct ctx *c, redisReply *rep, const char *what)
{
    if (!rep) {
        set_err(c, "Redis at %s does not answer (%s)", rc_redis_url(c->r), what);
        c->lost = 1;
        return NULL;
    }
    if (rep->type == REDIS_REPLY_ERROR) {
        set_err(c, "Redis at %s: %s: %s", rc_redis_url(c->r), what, rep->str);
        if (rc_redis_refusal(rep->str))
            c->lost = 1; /* at maxmemory, loading, ...: retried like an outage, not answered as a bug */
        freeReplyObject(rep);
        return NULL;
    }
    return rep;
}

/* One command from NULL-terminated string arguments (copied). */
static redisReply *q(struct ctx *c, const char *first, ...) __attribute__((sentinel));

static redisReply *q(struct ctx *c, const char *first, ...)
{
    rc_argv a;
    rc_argv_init(&a);
    va_list ap;
    va_start(ap, first);
    for (const char *s = first; s; s = va_arg(ap, const char *))
        rc_argv_add(&a, s);
    va_end(ap);
    redisReply *rep = checked(c, rc_redis_cmdv(c->r, &a), first);
    rc_argv_release(&a);
    return rep;
}

static redisReply *eval(struct ctx *c, rc_lua_id id, const rc_argv *args)
{
    return checked(c, rc_redis_eval(c->r, id, c->now_ms, args), rc_lua_scripts[id].name);
}

static const char *key(const struct ctx *c, char *buf, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static const char *key(const struct ctx *c, char *buf, const char *fmt, ...)
{
    char tail[KEY_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tail, sizeof tail, fmt, ap);
    va_end(ap);
    return rc_redis_key(c->r, buf, KEY_MAX, "%s", tail);
}

static void stat_add(struct ctx *c, const char *name, int64_t n)
{
    if (c->uncounted && strncmp(name, "requests:", 9) == 0)
        return;
    rc_argv a;
    rc_argv_init(&a);
    rc_argv_add(&a, name);
    rc_argv_addi(&a, n);
    redisReply *rep = eval(c, RC_LUA_STAT, &a);
    rc_argv_release(&a);
    if (rep)
        freeReplyObject(rep);
}

/* ---- answers ------------------------------------------------------------------------------- */

static json_t *base_answer(const rc_msg *m)
{
    json_t *o = json_object();
    json_object_set_new(o, "uuid", m->uuid[0] ? json_string(m->uuid) : json_null());
    json_object_set_new(o, "appid", json_string(m->appid));
    return o;
}

static char *finish(json_t *o, uint64_t now_ms)
{
    json_object_set_new(o, "server_time", json_integer((json_int_t)(now_ms / 1000)));
    char *s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(o);
    if (!s)
        abort();
    return s;
}

static int64_t str_i64(const char *s, int64_t def)
{
    int64_t v;
    return s && rc_parse_i64(s, INT64_MIN, INT64_MAX, &v) == 0 ? v : def;
}

static void inc(json_t *obj, const char *field, int64_t n)
{
    json_t *v = json_object_get(obj, field);
    if (v)
        json_integer_set(v, json_integer_value(v) + n);
    else
        json_object_set_new(obj, field, json_integer(n));
}

/* ---- jobs ---------------------------------------------------------------------------------- */

static const char *const job_counters[] = {"pending", "fetched", "items",   "errors",
                                           "failed",  "dropped", "retries", "purged"};

typedef struct jobinfo {
    bool exists;
    char state[32];
    char appid[RC_MSG_ID_BUF];
    char spiderid[RC_MSG_ID_BUF];
    int64_t priority; /* from the spec */
    int64_t expires;  /* from the spec, 0 = never */
    int64_t counters[RC_ARRAY_LEN(job_counters)];
} jobinfo;

static void read_spec(const char *spec, size_t len, int64_t *priority, int64_t *expires)
{
    json_t *s = json_loadb(spec, len, 0, NULL);
    json_t *p = json_object_get(s, "priority"), *e = json_object_get(s, "expires");
    if (json_is_integer(p))
        *priority = json_integer_value(p);
    if (json_is_integer(e))
        *expires = json_integer_value(e);
    json_decref(s);
}

/* Reads job:{crawlid}; ji->exists says whether it is there. -EIO on Redis failure. */
static int read_job(struct ctx *c, const char *crawlid, jobinfo *ji)
{
    char k[KEY_MAX];
    memset(ji, 0, sizeof *ji);
    redisReply *rep = q(c, "HGETALL", key(c, k, "job:%s", crawlid), NULL);
    if (!rep)
        return -EIO;
    if (rep->type == REDIS_REPLY_ARRAY && rep->elements >= 2) {
        ji->exists = true;
        for (size_t i = 0; i + 1 < rep->elements; i += 2) {
            const redisReply *f = rep->element[i], *v = rep->element[i + 1];
            if (f->type != REDIS_REPLY_STRING || v->type != REDIS_REPLY_STRING)
                continue;
            if (strcmp(f->str, "state") == 0)
                snprintf(ji->state, sizeof ji->state, "%s", v->str);
            else if (strcmp(f->str, "appid") == 0)
                snprintf(ji->appid, sizeof ji->appid, "%s", v->str);
            else if (strcmp(f->str, "spiderid") == 0)
                snprintf(ji->spiderid, sizeof ji->spiderid, "%s", v->str);
            else if (strcmp(f->str, "spec") == 0)
                read_spec(v->str, v->len, &ji->priority, &ji->expires);
            else
                for (size_t j = 0; j < RC_ARRAY_LEN(job_counters); j++)
                    if (strcmp(f->str, job_counters[j]) == 0)
                        ji->counters[j] = str_i64(v->str, 0);
        }
    }
    freeReplyObject(rep);
    return 0;
}

static void job_to_json(const jobinfo *ji, json_t *o)
{
    json_object_set_new(o, "state", ji->exists ? json_string(ji->state) : json_null());
    for (size_t j = 0; j < RC_ARRAY_LEN(job_counters); j++)
        json_object_set_new(o, job_counters[j], json_integer(ji->counters[j]));
    if (ji->expires > 0)
        json_object_set_new(o, "expires", json_integer(ji->expires));
}

/* ---- crawl --------------------------------------------------------------------------------- */

/* Rules that do not compile (WHY: "rules: PATH: what"), refused as the validator refuses any
 * invalid value: field "rules", the reason naming the rule, counted as rejected. */
static char *refuse_rules(struct ctx *c, const rc_msg *m, const char *why)
{
    rc_msg_error e;
    memset(&e, 0, sizeof e);
    e.kind_known = true;
    e.kind = RC_MSG_CRAWL;
    snprintf(e.uuid, sizeof e.uuid, "%s", m->uuid);
    snprintf(e.appid, sizeof e.appid, "%s", m->appid);
    snprintf(e.crawlid, sizeof e.crawlid, "%s", m->crawlid);
    snprintf(e.field, sizeof e.field, "rules");
    if (strncmp(why, "rules: ", 7) == 0)
        why += 7;
    snprintf(e.reason, sizeof e.reason, "must be a rule document that compiles: %s", why);
    stat_add(c, "requests:crawl:rejected", 1);
    return c->failed ? NULL : rc_msg_error_answer(&e);
}

static char *apply_crawl(struct ctx *c, const rc_msg *m)
{
    char *spec = rc_msg_crawl_to_job_json(m);
    char why[512] = "";
    const char *status = "accepted";
    int64_t added = 0;
    rc_job job;
    if (rc_job_parse(spec, strlen(spec), &job, why, sizeof why) < 0) {
        status = "refused"; /* msg.c and job.c disagree: report it rather than loop on it */
    } else if (job.rules && rc_rules_check(job.rules, why, sizeof why) < 0) {
        rc_job_release(&job);
        free(spec);
        return refuse_rules(c, m, why);
    } else {
        int r = rc_frontier_submit(c->r, &job, &added, why, sizeof why);
        if (r == -EPERM) {
            status = "refused";
        } else if (r < 0) {
            set_err(c, "%s", why);
            redisReply *pong = rc_redis_cmd(c->r, "PING");
            if (!pong || pong->type == REDIS_REPLY_ERROR)
                c->lost = 1; /* an outage, not a refusal */
            if (pong)
                freeReplyObject(pong);
        } else {
            /* The stored spec is the first request's: list its expiry, if any. */
            jobinfo ji;
            if (read_job(c, m->crawlid, &ji) == 0 && ji.expires > 0) {
                char k[KEY_MAX], ts[32];
                snprintf(ts, sizeof ts, "%lld", (long long)ji.expires);
                redisReply *rep = q(c, "ZADD", key(c, k, "expires"), "NX", ts, m->crawlid, NULL);
                if (rep)
                    freeReplyObject(rep);
            }
        }
        rc_job_release(&job);
    }
    free(spec);
    if (c->failed)
        return NULL;
    /* A crawl the job parser refused counts as rejected. */
    stat_add(c, strcmp(status, "accepted") == 0 ? "requests:crawl:accepted" : "requests:crawl:rejected", 1);
    if (c->failed || !m->uuid[0])
        return NULL;
    json_t *o = base_answer(m);
    json_object_set_new(o, "crawlid", json_string(m->crawlid));
    json_object_set_new(o, "spiderid", json_string(m->spiderid));
    json_object_set_new(o, "action", json_string("crawl"));
    json_object_set_new(o, "url", json_string(m->url));
    json_object_set_new(o, "added", json_integer(added));
    json_object_set_new(o, "status", json_string(status));
    if (strcmp(status, "accepted") != 0)
        json_object_set_new(o, "error", json_string(why));
    return finish(o, c->now_ms);
}

/* ---- info ---------------------------------------------------------------------------------- */

struct scan {
    const char *only; /* count this crawlid only, or every crawlid when NULL */
    json_t *crawls;   /* crawlid -> {"total": n, "domains": {host: {total, high_priority, low_priority}}} */
    json_t *prio;     /* crawlid -> the job's priority (cache) */
};

static int64_t job_priority(struct ctx *c, struct scan *s, const char *crawlid, int64_t fallback)
{
    json_t *p = json_object_get(s->prio, crawlid);
    if (p)
        return json_integer_value(p);
    jobinfo ji;
    int64_t prio = fallback;
    if (read_job(c, crawlid, &ji) == 0 && ji.exists)
        prio = ji.priority;
    json_object_set_new(s->prio, crawlid, json_integer(prio));
    return prio;
}

/* CRAWLID: the job whose key held the record (its frontier's compact records leave it out). */
static void count_record(struct ctx *c, struct scan *s, const char *member, size_t len, const char *crawlid_in,
                         const char *host)
{
    rc_record rec;
    if (rc_record_parse_in(member, len, crawlid_in, &rec) < 0)
        return;
    const char *crawlid = rec.crawlid;
    char hbuf[RC_MSG_HOST_BUF + 8];
    if (s->only && strcmp(crawlid, s->only) != 0)
        goto out;
    if (!host) {
        if (rc_url_host_key(rec.url, hbuf, sizeof hbuf) != 0)
            goto out;
        host = hbuf;
    }
    int64_t prio = rec.priority;
    int64_t jprio = job_priority(c, s, crawlid, prio);
    json_t *cr = json_object_get(s->crawls, crawlid);
    if (!cr) {
        cr = json_pack("{s:I, s:o}", "total", (json_int_t)0, "domains", json_object());
        json_object_set_new(s->crawls, crawlid, cr);
    }
    inc(cr, "total", 1);
    json_t *doms = json_object_get(cr, "domains");
    json_t *d = json_object_get(doms, host);
    if (!d) {
        d = json_pack("{s:I, s:I, s:I}", "total", (json_int_t)0, "high_priority", (json_int_t)0, "low_priority",
                      (json_int_t)0);
        json_object_set_new(doms, host, d);
    }
    inc(d, "total", 1);
    inc(d, prio >= jprio ? "high_priority" : "low_priority", 1);
out:
    rc_record_release(&rec);
}

/* ZSCANs one queue (a zset of frontier records) of job CRAWLID. HOST: the queue's host, NULL to
 * take it from each record's URL (the unassigned frontier). */
static int scan_queue(struct ctx *c, struct scan *s, const char *k, const char *crawlid, const char *host)
{
    char cursor[32] = "0";
    do {
        redisReply *rep = q(c, "ZSCAN", k, cursor, "COUNT", SCAN_COUNT, NULL);
        if (!rep)
            return -EIO;
        if (rep->type != REDIS_REPLY_ARRAY || rep->elements != 2 || rep->element[0]->type != REDIS_REPLY_STRING) {
            freeReplyObject(rep);
            set_err(c, "Redis: unexpected ZSCAN reply");
            return -EIO;
        }
        snprintf(cursor, sizeof cursor, "%s", rep->element[0]->str);
        const redisReply *items = rep->element[1];
        for (size_t i = 0; items->type == REDIS_REPLY_ARRAY && i + 1 < items->elements; i += 2)
            if (items->element[i]->type == REDIS_REPLY_STRING)
                count_record(c, s, items->element[i]->str, items->element[i]->len, crawlid, host);
        freeReplyObject(rep);
    } while (strcmp(cursor, "0") != 0 && !c->failed);
    return c->failed ? -EIO : 0;
}

/* A list of frontier records of job CRAWLID, read by pages. */
static int scan_list(struct ctx *c, struct scan *s, const char *k, const char *crawlid)
{
    long step = strtol(SCAN_COUNT, NULL, 10);
    for (long at = 0; !c->failed; at += step) {
        char from[24], to[24];
        snprintf(from, sizeof from, "%ld", at);
        snprintf(to, sizeof to, "%ld", at + step - 1);
        redisReply *rep = q(c, "LRANGE", k, from, to, NULL);
        if (!rep)
            return -EIO;
        size_t n = rep->type == REDIS_REPLY_ARRAY ? rep->elements : 0;
        for (size_t i = 0; i < n; i++)
            if (rep->element[i]->type == REDIS_REPLY_STRING)
                count_record(c, s, rep->element[i]->str, rep->element[i]->len, crawlid, NULL);
        freeReplyObject(rep);
        if ((long)n < step)
            break;
    }
    return c->failed ? -EIO : 0;
}

/* A job's frontier (common.lua): the zset an older version kept, then a list per bucket, listed
 * in seedb:{crawlid}. */
static int scan_frontier(struct ctx *c, struct scan *s, const char *crawlid)
{
    char k[KEY_MAX];
    if (scan_queue(c, s, key(c, k, "seeds:%s", crawlid), crawlid, NULL) < 0)
        return -EIO;
    redisReply *bs = q(c, "ZRANGE", key(c, k, "seedb:%s", crawlid), "0", "-1", NULL);
    if (!bs)
        return -EIO;
    for (size_t i = 0; bs->type == REDIS_REPLY_ARRAY && i < bs->elements && !c->failed; i++)
        scan_list(c, s, key(c, k, "seeds:%s:%s", crawlid, bs->element[i]->str), crawlid);
    freeReplyObject(bs);
    return c->failed ? -EIO : 0;
}

/* One job's queues: q:{crawlid}:{host} for each host in jq:{crawlid}. */
static int scan_job(struct ctx *c, struct scan *s, const char *crawlid)
{
    char k[KEY_MAX];
    redisReply *hosts = q(c, "SMEMBERS", key(c, k, "jq:%s", crawlid), NULL);
    if (!hosts)
        return -EIO;
    for (size_t j = 0; hosts->type == REDIS_REPLY_ARRAY && j < hosts->elements && !c->failed; j++) {
        const char *h = hosts->element[j]->str;
        scan_queue(c, s, key(c, k, "q:%s:%s", crawlid, h), crawlid, h);
    }
    freeReplyObject(hosts);
    return c->failed ? -EIO : 0;
}

/* Every queued URL: the frontier (seeds) and the per-job, per-host queues of every job (or of
 * the one asked about). */
static int scan_all(struct ctx *c, struct scan *s)
{
    char k[KEY_MAX];
    if (s->only) {
        if (scan_frontier(c, s, s->only) < 0)
            return -EIO;
        return scan_job(c, s, s->only);
    }
    redisReply *fr = q(c, "SMEMBERS", key(c, k, "frontier"), NULL);
    if (!fr)
        return -EIO;
    for (size_t i = 0; fr->type == REDIS_REPLY_ARRAY && i < fr->elements && !c->failed; i++)
        scan_frontier(c, s, fr->element[i]->str);
    freeReplyObject(fr);
    if (c->failed)
        return -EIO;
    redisReply *jobs = q(c, "SMEMBERS", key(c, k, "jobs"), NULL);
    if (!jobs)
        return -EIO;
    for (size_t i = 0; jobs->type == REDIS_REPLY_ARRAY && i < jobs->elements && !c->failed; i++)
        scan_job(c, s, jobs->element[i]->str);
    freeReplyObject(jobs);
    return c->failed ? -EIO : 0;
}

/* Copies at most max domains of a scanned crawl into dst (with the totals); returns the number
 * of distinct domains. */
static size_t put_domains(json_t *dst, const json_t *cr, size_t max)
{
    json_t *doms = json_object_get(cr, "domains");
    json_t *out = json_object();
    size_t n = 0;
    const char *h;
    json_t *d;
    json_object_foreach (doms, h, d) {
        if (n++ < max)
            json_object_set(out, h, d);
    }
    json_object_set_new(dst, "domains", out);
    if (n > max)
        json_object_set_new(dst, "domains_truncated", json_true());
    return n;
}

static void add_domains(json_t *set, const json_t *cr)
{
    const char *h;
    json_t *d;
    json_object_foreach (json_object_get(cr, "domains"), h, d) {
        json_object_set_new(set, h, json_true());
    }
}

/* info with a crawlid: that job's queued URLs by domain and its counters. -1 when Redis failed. */
static int info_one(struct ctx *c, const rc_msg *m, const struct scan *s, json_t *o)
{
    jobinfo ji;
    if (read_job(c, m->crawlid, &ji) < 0)
        return -1;
    json_t *cr = json_object_get(s->crawls, m->crawlid);
    json_object_set_new(o, "crawlid", json_string(m->crawlid));
    json_object_set_new(o, "total_pending", json_integer(cr ? json_integer_value(json_object_get(cr, "total")) : 0));
    json_t *tmp = json_object();
    size_t nd = cr ? put_domains(tmp, cr, INFO_ONE_MAX_DOMAINS) : 0;
    json_object_set_new(o, "total_domains", json_integer((json_int_t)nd));
    json_object_update(o, tmp);
    json_decref(tmp);
    if (!json_object_get(o, "domains"))
        json_object_set_new(o, "domains", json_object());
    job_to_json(&ji, o);
    if (!ji.exists) {
        char *e = rc_xasprintf("no crawl with crawlid \"%s\"", m->crawlid);
        json_object_set_new(o, "error", json_string(e));
        free(e);
    }
    return 0;
}

/* info without a crawlid: every job of the appid and spiderid (at most INFO_APP_MAX_CRAWLS
 * listed), with totals over all of them. -1 when Redis failed. */
static int info_app(struct ctx *c, const rc_msg *m, const struct scan *s, json_t *o)
{
    char k[KEY_MAX];
    redisReply *jobs = q(c, "SMEMBERS", key(c, k, "jobs"), NULL);
    if (!jobs)
        return -1;
    json_t *crawlids = json_object(), *alldoms = json_object();
    int64_t total = 0, listed = 0;
    for (size_t i = 0; jobs->type == REDIS_REPLY_ARRAY && i < jobs->elements && !c->failed; i++) {
        const char *cid = jobs->element[i]->str;
        jobinfo ji;
        if (read_job(c, cid, &ji) < 0 || !ji.exists)
            continue;
        if (strcmp(ji.appid, m->appid) != 0 || strcmp(ji.spiderid, m->spiderid) != 0)
            continue;
        json_t *cr = json_object_get(s->crawls, cid);
        int64_t queued = cr ? json_integer_value(json_object_get(cr, "total")) : 0;
        total += queued;
        if (cr)
            add_domains(alldoms, cr);
        if (listed++ >= INFO_APP_MAX_CRAWLS)
            continue;
        json_t *e = json_object();
        json_object_set_new(e, "total", json_integer(queued));
        size_t nd = cr ? put_domains(e, cr, INFO_APP_MAX_DOMAINS) : 0;
        if (!cr)
            json_object_set_new(e, "domains", json_object());
        json_object_set_new(e, "distinct_domains", json_integer((json_int_t)nd));
        job_to_json(&ji, e);
        json_object_set_new(crawlids, cid, e);
    }
    freeReplyObject(jobs);
    json_object_set_new(o, "total_crawlids", json_integer(listed));
    json_object_set_new(o, "total_pending", json_integer(total));
    json_object_set_new(o, "total_domains", json_integer((json_int_t)json_object_size(alldoms)));
    json_object_set_new(o, "crawlids", crawlids);
    if (listed > INFO_APP_MAX_CRAWLS)
        json_object_set_new(o, "crawlids_truncated", json_true());
    json_decref(alldoms);
    return 0;
}

static char *apply_info(struct ctx *c, const rc_msg *m)
{
    struct scan s = {m->crawlid[0] ? m->crawlid : NULL, json_object(), json_object()};
    json_t *o = NULL;
    if (scan_all(c, &s) < 0)
        goto out;
    o = base_answer(m);
    json_object_set_new(o, "spiderid", json_string(m->spiderid));
    json_object_set_new(o, "action", json_string("info"));
    if ((m->crawlid[0] ? info_one(c, m, &s, o) : info_app(c, m, &s, o)) < 0)
        goto out;
    if (!c->failed)
        stat_add(c, "requests:action:accepted", 1);
out:
    json_decref(s.crawls);
    json_decref(s.prio);
    if (c->failed) {
        json_decref(o);
        return NULL;
    }
    return finish(o, c->now_ms);
}

/* ---- stop ---------------------------------------------------------------------------------- */

static char *apply_stop(struct ctx *c, const rc_msg *m)
{
    rc_argv a;
    rc_argv_init(&a);
    rc_argv_set(&a, RC_STOP_CRAWLID, m->crawlid);
    rc_argv_set(&a, RC_STOP_STATE, "stopped");
    redisReply *rep = eval(c, RC_LUA_STOP, &a);
    rc_argv_release(&a);
    if (!rep)
        return NULL;
    int64_t purged = rep->type == REDIS_REPLY_ARRAY && rep->elements >= 1 ? rc_reply_int(rep->element[0], -1) : -1;
    freeReplyObject(rep);
    char k[KEY_MAX];
    if (purged >= 0) {
        rep = q(c, "ZREM", key(c, k, "expires"), m->crawlid, NULL);
        if (rep)
            freeReplyObject(rep);
        stat_add(c, "jobs:stopped", 1);
    }
    stat_add(c, "requests:action:accepted", 1);
    if (c->failed)
        return NULL;
    json_t *o = base_answer(m);
    json_object_set_new(o, "action", json_string("stop"));
    json_object_set_new(o, "spiderid", json_string(m->spiderid));
    json_object_set_new(o, "crawlid", json_string(m->crawlid));
    json_object_set_new(o, "total_purged", json_integer(purged < 0 ? 0 : purged));
    if (purged < 0) {
        char *e = rc_xasprintf("no crawl with crawlid \"%s\"", m->crawlid);
        json_object_set_new(o, "error", json_string(e));
        free(e);
    }
    return finish(o, c->now_ms);
}

/* ---- stats --------------------------------------------------------------------------------- */

typedef struct wcount {
    int64_t v[N_WIN];
    int64_t life;
} wcount;

/* The shards a stats answer reads: c->r switched to each in turn by shard_at, put back by
 * shard_done. */
static int shard_count(const struct ctx *c)
{
    return c->nall > 0 ? c->nall : 1;
}

static void shard_at(struct ctx *c, int s)
{
    if (c->nall > 0)
        c->r = c->all[s];
}

static void shard_done(struct ctx *c, rc_redis *r)
{
    c->r = r;
}

static int read_wcount(struct ctx *c, const char *name, wcount *w)
{
    char k[KEY_MAX];
    memset(w, 0, sizeof *w);
    redisReply *rep = q(c, "HGETALL", key(c, k, "stats:%s", name), NULL);
    if (!rep)
        return -EIO;
    int64_t minute = (int64_t)(c->now_ms / 60000), hour = (int64_t)(c->now_ms / 3600000);
    for (size_t i = 0; rep->type == REDIS_REPLY_ARRAY && i + 1 < rep->elements; i += 2) {
        const char *f = rep->element[i]->str;
        int64_t n = str_i64(rep->element[i + 1]->str, 0), b;
        if (strcmp(f, "total") == 0) {
            w->life = n;
        } else if (f[0] == 'm' && f[1] == ':' && rc_parse_i64(f + 2, 0, INT64_MAX, &b) == 0) {
            for (size_t j = 0; j < N_WIN; j++)
                if (windows[j] <= 86400 && b > minute - windows[j] / 60 && b <= minute)
                    w->v[j] += n;
        } else if (f[0] == 'h' && f[1] == ':' && rc_parse_i64(f + 2, 0, INT64_MAX, &b) == 0) {
            for (size_t j = 0; j < N_WIN; j++)
                if (windows[j] > 86400 && b > hour - windows[j] / 3600 && b <= hour)
                    w->v[j] += n;
        }
    }
    freeReplyObject(rep);
    return 0;
}

static void wcount_add(wcount *a, const wcount *b)
{
    for (size_t j = 0; j < N_WIN; j++)
        a->v[j] += b->v[j];
    a->life += b->life;
}

static json_t *wcount_json(const wcount *w)
{
    json_t *o = json_object();
    for (size_t j = 0; j < N_WIN; j++) {
        char name[24];
        snprintf(name, sizeof name, "%lld", (long long)windows[j]);
        json_object_set_new(o, name, json_integer(w->v[j]));
    }
    json_object_set_new(o, "lifetime", json_integer(w->life));
    return o;
}

/* A counter summed over the shards (each counts its part). */
static void read_wcount_all(struct ctx *c, const char *name, wcount *w)
{
    rc_redis *r = c->r;
    memset(w, 0, sizeof *w);
    for (int s = 0; s < shard_count(c) && !c->failed; s++) {
        wcount one;
        shard_at(c, s);
        read_wcount(c, name, &one);
        wcount_add(w, &one);
    }
    shard_done(c, r);
}

static json_t *counter_json(struct ctx *c, const char *name)
{
    wcount w;
    read_wcount_all(c, name, &w);
    return wcount_json(&w);
}

/* "HOST-PID-SUFFIX" ids (workers, schedulers): the host and pid. */
static bool split_id(const char *id, char *host, size_t cap, int64_t *ret_pid)
{
    const char *last = strrchr(id, '-');
    if (!last || last == id)
        return false;
    const char *p = last - 1;
    while (p > id && *p != '-')
        p--;
    if (p == id)
        return false;
    char num[24];
    size_t nl = (size_t)(last - p - 1);
    if (nl == 0 || nl >= sizeof num)
        return false;
    memcpy(num, p + 1, nl);
    num[nl] = '\0';
    if (rc_parse_i64(num, 1, INT64_MAX, ret_pid) < 0)
        return false;
    snprintf(host, cap, "%.*s", (int)(p - id), id);
    return true;
}

static json_t *or_null(json_t *v)
{
    return v ? json_incref(v) : json_null();
}

/* The members of a registry zset (id -> heartbeat ms) with their hashes: workers or monitors,
 * every shard's. */
static void registry_one(struct ctx *c, const char *set, const char *hash, json_t *list)
{
    char k[KEY_MAX];
    redisReply *ids = q(c, "ZRANGE", key(c, k, "%s", set), "0", "-1", "WITHSCORES", NULL);
    for (size_t i = 0; ids && ids->type == REDIS_REPLY_ARRAY && i + 1 < ids->elements && !c->failed; i += 2) {
        const char *id = ids->element[i]->str;
        int64_t hb = str_i64(ids->element[i + 1]->str, 0);
        redisReply *h = q(c, "HGETALL", key(c, k, "%s:%s", hash, id), NULL);
        json_t *e = json_object();
        json_object_set_new(e, "id", json_string(id));
        json_t *fields = json_object();
        for (size_t j = 0; h && h->type == REDIS_REPLY_ARRAY && j + 1 < h->elements; j += 2) {
            const char *f = h->element[j]->str, *v = h->element[j + 1]->str;
            int64_t n;
            json_object_set_new(fields, f,
                                rc_parse_i64(v, INT64_MIN, INT64_MAX, &n) == 0 ? json_integer(n) : json_string(v));
        }
        if (h)
            freeReplyObject(h);
        int64_t pid = json_integer_value(json_object_get(fields, "pid")), idpid;
        char host[256];
        if (!json_object_get(fields, "host") && split_id(id, host, sizeof host, &idpid) && idpid == pid)
            json_object_set_new(fields, "host", json_string(host));
        json_object_set_new(e, "host", or_null(json_object_get(fields, "host")));
        json_object_set_new(e, "ip", or_null(json_object_get(fields, "ip")));
        json_object_set_new(e, "pid", pid ? json_integer(pid) : json_null());
        json_object_set_new(e, "heartbeat_age", json_real((double)((int64_t)c->now_ms - hb) / 1000.0));
        json_object_del(fields, "host");
        json_object_del(fields, "ip");
        json_object_del(fields, "pid");
        json_object_del(fields, "hb");
        json_object_update(e, fields);
        json_decref(fields);
        json_array_append_new(list, e);
    }
    if (ids)
        freeReplyObject(ids);
}

static json_t *registry(struct ctx *c, const char *set, const char *hash)
{
    rc_redis *r = c->r;
    json_t *list = json_array();
    for (int s = 0; s < shard_count(c) && !c->failed; s++) {
        shard_at(c, s);
        registry_one(c, set, hash, list);
    }
    shard_done(c, r);
    return list;
}

static json_t *scheduler_info(struct ctx *c)
{
    char k[KEY_MAX];
    key(c, k, "lock:scheduler");
    redisReply *id = q(c, "GET", k, NULL);
    redisReply *ttl = q(c, "PTTL", k, NULL);
    json_t *o = json_null();
    if (id && id->type == REDIS_REPLY_STRING) {
        char host[256];
        int64_t pid;
        o = json_object();
        json_object_set_new(o, "id", json_string(id->str));
        json_object_set_new(o, "role", json_string("leader"));
        if (split_id(id->str, host, sizeof host, &pid)) {
            json_object_set_new(o, "host", json_string(host));
            json_object_set_new(o, "pid", json_integer(pid));
        }
        json_object_set_new(o, "lease_left_ms", json_integer(rc_reply_int(ttl, -1)));
    }
    if (id)
        freeReplyObject(id);
    if (ttl)
        freeReplyObject(ttl);
    return o;
}

static json_t *processes(struct ctx *c, json_t *workers)
{
    json_t *o = json_object();
    json_object_set(o, "workers", workers);
    json_object_set_new(o, "monitors", registry(c, "monitors", "monitor"));
    json_object_set_new(o, "scheduler", scheduler_info(c));
    return o;
}

static const char *const request_kinds[] = {"crawl", "action", "stats", "domain", "unknown"};

/* kafka-monitor: the redcrawl-monitor processes and the requests they handled. */
static json_t *kafka_monitor_stats(struct ctx *c)
{
    json_t *o = json_object(), *plugins = json_object(), *req = json_object();
    wcount total, fail;
    memset(&total, 0, sizeof total);
    memset(&fail, 0, sizeof fail);
    for (size_t i = 0; i < RC_ARRAY_LEN(request_kinds); i++) {
        char name[64];
        wcount acc, rej;
        snprintf(name, sizeof name, "requests:%s:accepted", request_kinds[i]);
        read_wcount_all(c, name, &acc);
        snprintf(name, sizeof name, "requests:%s:rejected", request_kinds[i]);
        read_wcount_all(c, name, &rej);
        wcount_add(&total, &acc);
        wcount_add(&total, &rej);
        wcount_add(&fail, &rej);
        if (strcmp(request_kinds[i], "unknown") != 0)
            json_object_set_new(plugins, request_kinds[i], wcount_json(&acc));
        json_object_set_new(req, request_kinds[i],
                            json_pack("{s:o, s:o}", "accepted", wcount_json(&acc), "rejected", wcount_json(&rej)));
    }
    json_object_set_new(o, "total", wcount_json(&total));
    json_object_set_new(o, "fail", wcount_json(&fail));
    json_object_set_new(o, "plugins", plugins);
    json_object_set_new(o, "requests", req);
    json_object_set_new(o, "processes", registry(c, "monitors", "monitor"));
    return o;
}

/* redis-monitor: the scheduler (it moderates the Redis queues), what it dropped, and the jobs
 * stopped and expired. */
static json_t *redis_monitor_stats(struct ctx *c)
{
    char k[KEY_MAX];
    json_t *o = json_object();
    json_object_set_new(o, "scheduler", scheduler_info(c));
    json_object_set_new(
        o, "plugins",
        json_pack("{s:o, s:o}", "stop", counter_json(c, "jobs:stopped"), "expire", counter_json(c, "jobs:expired")));
    json_t *dropped = json_object();
    rc_redis *r = c->r;
    for (int s = 0; s < shard_count(c) && !c->failed; s++) {
        shard_at(c, s);
        redisReply *rep = q(c, "HGETALL", key(c, k, "stats:dropped"), NULL);
        for (size_t i = 0; rep && rep->type == REDIS_REPLY_ARRAY && i + 1 < rep->elements; i += 2)
            inc(dropped, rep->element[i]->str, str_i64(rep->element[i + 1]->str, 0));
        if (rep)
            freeReplyObject(rep);
    }
    shard_done(c, r);
    json_object_set_new(o, "dropped", dropped);
    return o;
}

/* spider: pages per HTTP status per spider type (counters pages:{spiderid}:{status}). Every
 * redcrawl worker runs every spider type, so each spider's "count" is the number of live workers. */
static json_t *spider_stats(struct ctx *c, const json_t *names, size_t live_workers)
{
    json_t *spiders = json_object();
    const char *n;
    json_t *unused;
    json_object_foreach ((json_t *)names, n, unused) {
        if (strncmp(n, "pages:", 6) != 0)
            continue;
        const char *colon = strrchr(n + 6, ':');
        if (!colon || colon == n + 6)
            continue;
        char spider[RC_MSG_ID_BUF];
        snprintf(spider, sizeof spider, "%.*s", (int)(colon - (n + 6)), n + 6);
        json_t *sp = json_object_get(spiders, spider);
        if (!sp) {
            sp = json_pack("{s:I}", "count", (json_int_t)live_workers);
            json_object_set_new(spiders, spider, sp);
        }
        json_object_set_new(sp, colon + 1, counter_json(c, n));
    }
    size_t unique = json_object_size(spiders);
    json_object_set_new(spiders, "unique_spider_count", json_integer((json_int_t)unique));
    json_object_set_new(spiders, "total_spider_count", json_integer((json_int_t)(unique * live_workers)));
    return spiders;
}

/* machine: the live workers grouped by host, with their counters. */
static json_t *machine_stats(const json_t *workers)
{
    json_t *machines = json_object();
    size_t i;
    json_t *w;
    json_array_foreach (workers, i, w) {
        const char *host = json_string_value(json_object_get(w, "host"));
        if (!host)
            host = "unknown";
        json_t *m = json_object_get(machines, host);
        if (!m) {
            m = json_pack("{s:I, s:I, s:I, s:I, s:o}", "workers", (json_int_t)0, "fetched", (json_int_t)0, "errors",
                          (json_int_t)0, "inflight", (json_int_t)0, "ids", json_array());
            json_object_set_new(machines, host, m);
        }
        inc(m, "workers", 1);
        inc(m, "fetched", json_integer_value(json_object_get(w, "fetched")));
        inc(m, "errors", json_integer_value(json_object_get(w, "errors")));
        inc(m, "inflight", json_integer_value(json_object_get(w, "inflight")));
        json_array_append(json_object_get(m, "ids"), json_object_get(w, "id"));
    }
    json_object_set_new(machines, "count", json_integer((json_int_t)json_object_size(machines)));
    return machines;
}

static int cmp_backlog(const void *a, const void *b)
{
    json_int_t x = json_integer_value(json_object_get(*(json_t *const *)a, "backlog"));
    json_int_t y = json_integer_value(json_object_get(*(json_t *const *)b, "backlog"));
    return x < y ? 1 : x > y ? -1 : 0;
}

/* URLs queued on a host, all jobs: its jobs (hjobs:{host}) and each one's queue there. */
static int64_t host_backlog(struct ctx *c, const char *host)
{
    char k[KEY_MAX];
    int64_t n = 0;
    redisReply *jobs = q(c, "ZRANGE", key(c, k, "hjobs:%s", host), "0", "-1", NULL);
    for (size_t i = 0; jobs && jobs->type == REDIS_REPLY_ARRAY && i < jobs->elements && !c->failed; i++) {
        redisReply *zc = q(c, "ZCARD", key(c, k, "q:%s:%s", jobs->element[i]->str, host), NULL);
        n += rc_reply_int(zc, 0);
        if (zc)
            freeReplyObject(zc);
    }
    if (jobs)
        freeReplyObject(jobs);
    return n;
}

/* queue: backlogs of the unassigned frontier and of every live worker's hosts (all jobs). */
/* The domains of a shard's workers, each with its backlog (JSON, for the stats answer). */
typedef struct domlist {
    json_t **v;
    size_t n, cap;
} domlist;

/* The shard's frontier backlog (URLs not yet given to a worker). */
static int64_t frontier_backlog(struct ctx *c)
{
    rc_argv none;
    rc_argv_init(&none);
    redisReply *rep = eval(c, RC_LUA_FRONTIER, &none);
    rc_argv_release(&none);
    int64_t n = rc_reply_int(rep, 0);
    if (rep)
        freeReplyObject(rep);
    return n;
}

/* The shard's workers' domains added to d; their backlogs' sum. */
static int64_t shard_domains(struct ctx *c, domlist *d)
{
    char k[KEY_MAX];
    int64_t total = 0;
    redisReply *ws = q(c, "ZRANGE", key(c, k, "workers"), "0", "-1", NULL);
    for (size_t i = 0; ws && ws->type == REDIS_REPLY_ARRAY && i < ws->elements && !c->failed; i++) {
        const char *w = ws->element[i]->str;
        redisReply *hosts = q(c, "SMEMBERS", key(c, k, "wdoms:%s", w), NULL);
        for (size_t j = 0; hosts && hosts->type == REDIS_REPLY_ARRAY && j < hosts->elements && !c->failed; j++) {
            const char *h = hosts->element[j]->str;
            int64_t backlog = host_backlog(c, h);
            total += backlog;
            if (d->n == d->cap) {
                d->cap = d->cap ? d->cap * 2 : 64;
                d->v = rc_xrealloc(d->v, d->cap * sizeof *d->v);
            }
            d->v[d->n++] = json_pack("{s:s, s:s, s:I}", "domain", h, "worker", w, "backlog", (json_int_t)backlog);
        }
        if (hosts)
            freeReplyObject(hosts);
    }
    if (ws)
        freeReplyObject(ws);
    return total;
}

static json_t *queue_stats(struct ctx *c)
{
    json_t *o = json_object();
    int64_t frontier = 0, total = 0;
    domlist d = {NULL, 0, 0};
    rc_redis *r = c->r;
    for (int s = 0; s < shard_count(c) && !c->failed; s++) {
        shard_at(c, s);
        int64_t f = frontier_backlog(c);
        frontier += f;
        total += f + shard_domains(c, &d);
    }
    shard_done(c, r);
    if (d.n > 1)
        qsort(d.v, d.n, sizeof *d.v, cmp_backlog);
    json_t *list = json_array();
    for (size_t i = 0; i < d.n; i++) {
        if (i < QUEUE_MAX_DOMAINS)
            json_array_append(list, d.v[i]);
        json_decref(d.v[i]);
    }
    free(d.v);
    json_t *queues = json_object();
    json_object_set_new(queues, "frontier_backlog", json_integer(frontier));
    json_object_set_new(queues, "num_domains", json_integer((json_int_t)d.n));
    json_object_set_new(queues, "domains", list);
    if (d.n > QUEUE_MAX_DOMAINS)
        json_object_set_new(queues, "domains_truncated", json_true());
    json_object_set_new(queues, "total_backlog", json_integer(total));
    json_object_set_new(o, "queues", queues);
    return o;
}

static char *apply_stats(struct ctx *c, const rc_msg *m)
{
    char k[KEY_MAX];
    json_t *o = base_answer(m);
    json_object_set_new(o, "stats", json_string(rc_msg_stats_name(m->stats)));
    json_t *names = json_object(); /* every shard's counter names, as a set */
    rc_redis *r = c->r;
    for (int s = 0; s < shard_count(c) && !c->failed; s++) {
        shard_at(c, s);
        redisReply *rep = q(c, "SMEMBERS", key(c, k, "stats:names"), NULL);
        for (size_t i = 0; rep && rep->type == REDIS_REPLY_ARRAY && i < rep->elements; i++)
            if (rep->element[i]->type == REDIS_REPLY_STRING)
                json_object_set_new(names, rep->element[i]->str, json_true());
        if (rep)
            freeReplyObject(rep);
    }
    shard_done(c, r);
    json_t *workers = registry(c, "workers", "worker");
    size_t live = json_array_size(workers);
    switch (m->stats) {
    case RC_MSG_STATS_ALL:
        json_object_set_new(o, "kafka-monitor", kafka_monitor_stats(c));
        json_object_set_new(o, "redis-monitor", redis_monitor_stats(c));
        json_object_set_new(
            o, "crawler",
            json_pack("{s:o, s:o}", "spiders", spider_stats(c, names, live), "machines", machine_stats(workers)));
        json_object_update_missing_new(o, queue_stats(c));
        json_object_set_new(o, "processes", processes(c, workers));
        break;
    case RC_MSG_STATS_KAFKA_MONITOR:
        json_object_update_missing_new(o, kafka_monitor_stats(c));
        break;
    case RC_MSG_STATS_REDIS_MONITOR:
        json_object_update_missing_new(o, redis_monitor_stats(c));
        break;
    case RC_MSG_STATS_CRAWLER:
        json_object_set_new(o, "spiders", spider_stats(c, names, live));
        json_object_set_new(o, "machines", machine_stats(workers));
        json_object_set_new(o, "processes", processes(c, workers));
        break;
    case RC_MSG_STATS_SPIDER:
        json_object_set_new(o, "spiders", spider_stats(c, names, live));
        break;
    case RC_MSG_STATS_MACHINE:
        json_object_set_new(o, "machines", machine_stats(workers));
        json_object_set_new(o, "processes", processes(c, workers));
        break;
    case RC_MSG_STATS_QUEUE:
        json_object_update_missing_new(o, queue_stats(c));
        break;
    case RC_MSG_STATS_REST:
        json_object_set_new(o, "note",
                            json_string("redcrawl-web keeps no statistics of its own: its requests are counted with "
                                        "the monitor's (stats kafka-monitor)"));
        break;
    }
    json_decref(workers);
    json_decref(names);
    if (!c->failed)
        stat_add(c, "requests:stats:accepted", 1);
    if (c->failed) {
        json_decref(o);
        return NULL;
    }
    return finish(o, c->now_ms);
}

/* ---- domain -------------------------------------------------------------------------------- */

static char *apply_domain(struct ctx *c, const rc_msg *m)
{
    char k[KEY_MAX];
    const char *action = rc_msg_domain_action_name(m->domain_action);
    redisReply *rep = NULL;
    switch (m->domain_action) {
    case RC_MSG_DOMAIN_UPDATE: {
        json_t *conf = json_pack("{s:I, s:I, s:f}", "hits", (json_int_t)m->hits, "window", (json_int_t)m->window,
                                 "scale", m->scale);
        char *s = json_dumps(conf, JSON_COMPACT | JSON_PRESERVE_ORDER);
        json_decref(conf);
        rep = q(c, "HSET", key(c, k, "domainconf"), m->domain, s, NULL);
        free(s);
        break;
    }
    case RC_MSG_DOMAIN_REMOVE:
        rep = q(c, "HDEL", key(c, k, "domainconf"), m->domain, NULL);
        break;
    case RC_MSG_BLACKLIST_UPDATE:
        rep = q(c, "SADD", key(c, k, "blacklist"), m->domain, NULL);
        break;
    case RC_MSG_BLACKLIST_REMOVE:
        rep = q(c, "SREM", key(c, k, "blacklist"), m->domain, NULL);
        break;
    }
    if (!rep)
        return NULL;
    /* HSET answers 0 when it overwrote a field: an update changes something either way. */
    bool changed = m->domain_action == RC_MSG_DOMAIN_UPDATE || rc_reply_int(rep, 0) > 0;
    freeReplyObject(rep);

    json_t *ev = json_pack("{s:s, s:s}", "event", action, "domain", m->domain);
    if (m->domain_action == RC_MSG_DOMAIN_UPDATE) {
        json_object_set_new(ev, "hits", json_integer(m->hits));
        json_object_set_new(ev, "window", json_integer(m->window));
        json_object_set_new(ev, "scale", json_real(m->scale));
    }
    json_object_set_new(ev, "time_ms", json_integer((json_int_t)c->now_ms));
    char *evs = json_dumps(ev, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(ev);
    rep = q(c, "PUBLISH", key(c, k, "events"), evs, NULL);
    free(evs);
    if (rep)
        freeReplyObject(rep);
    stat_add(c, "requests:domain:accepted", 1);
    if (c->failed)
        return NULL;
    json_t *o = base_answer(m);
    json_object_set_new(o, "action", json_string(action));
    json_object_set_new(o, "domain", json_string(m->domain));
    if (m->domain_action == RC_MSG_DOMAIN_UPDATE) {
        json_object_set_new(o, "hits", json_integer(m->hits));
        json_object_set_new(o, "window", json_integer(m->window));
        json_object_set_new(o, "scale", json_real(m->scale));
    }
    json_object_set_new(o, "changed", json_boolean(changed));
    return finish(o, c->now_ms);
}

/* ---- entry points -------------------------------------------------------------------------- */

/* rc_control_apply with C made by the caller. */
static int apply(struct ctx *cp, const rc_msg *m, char **ret_answer)
{
    struct ctx c = *cp;
    char *answer = NULL;
    switch (m->kind) {
    case RC_MSG_CRAWL:
        answer = apply_crawl(&c, m);
        break;
    case RC_MSG_ACTION:
        answer = m->action == RC_MSG_ACTION_STOP ? apply_stop(&c, m) : apply_info(&c, m);
        break;
    case RC_MSG_STATS:
        answer = apply_stats(&c, m);
        break;
    case RC_MSG_DOMAIN:
        answer = apply_domain(&c, m);
        break;
    }
    if (c.failed) {
        free(answer);
        return result(&c);
    }
    *ret_answer = answer;
    return 0;
}

int rc_control_apply(rc_redis *r, const rc_msg *m, char **ret_answer, char *err, size_t cap)
{
    struct ctx c = {r, err, cap, 0, rc_now_ms(), 0, NULL, 0, false};
    return apply(&c, m, ret_answer);
}

int rc_control_handle_shard(rc_redis *const *rs, int k, int s, bool count, const char *data, size_t len,
                            char **ret_answer, char *err, size_t cap)
{
    rc_msg m;
    rc_msg_error e;
    if (rc_msg_parse(data, len, &m, &e) < 0)
        return rc_control_reject(rs[s], &e, ret_answer, err, cap);
    struct ctx c = {rs[s], err, cap, 0, rc_now_ms(), 0, rs, k, !count};
    int res = apply(&c, &m, ret_answer);
    rc_msg_release(&m);
    return res;
}

int rc_control_reject(rc_redis *r, const rc_msg_error *e, char **ret_answer, char *err, size_t cap)
{
    struct ctx c = {r, err, cap, 0, rc_now_ms(), 0, NULL, 0, false};
    char name[64];
    snprintf(name, sizeof name, "requests:%s:rejected", e->kind_known ? rc_msg_kind_name(e->kind) : "unknown");
    stat_add(&c, name, 1);
    if (c.failed)
        return result(&c);
    *ret_answer = rc_msg_error_answer(e);
    return 0;
}

int rc_control_handle(rc_redis *r, const char *data, size_t len, char **ret_answer, char *err, size_t cap)
{
    rc_msg m;
    rc_msg_error e;
    if (rc_msg_parse(data, len, &m, &e) < 0)
        return rc_control_reject(r, &e, ret_answer, err, cap);
    int res = rc_control_apply(r, &m, ret_answer, err, cap);
    rc_msg_release(&m);
    return res;
}

int rc_control_expire_due(rc_redis *r, int64_t now_s, rc_control_notify_fn notify, void *ud, char *err, size_t cap)
{
    struct ctx c = {r, err, cap, 0, rc_now_ms(), 0, NULL, 0, false};
    char k[KEY_MAX], now[32];
    snprintf(now, sizeof now, "%lld", (long long)now_s);
    key(&c, k, "expires");
    redisReply *due = q(&c, "ZRANGEBYSCORE", k, "-inf", now, "LIMIT", "0", EXPIRE_BATCH, NULL);
    if (!due)
        return -EIO;
    int expired = 0;
    for (size_t i = 0; due->type == REDIS_REPLY_ARRAY && i < due->elements && !c.failed; i++) {
        const char *cid = due->element[i]->str;
        jobinfo ji;
        if (read_job(&c, cid, &ji) < 0)
            break;
        int64_t purged = -1;
        if (ji.exists && strcmp(ji.state, "running") == 0) {
            rc_argv a;
            rc_argv_init(&a);
            rc_argv_set(&a, RC_STOP_CRAWLID, cid);
            rc_argv_set(&a, RC_STOP_STATE, "expired");
            redisReply *rep = eval(&c, RC_LUA_STOP, &a);
            rc_argv_release(&a);
            if (!rep)
                break;
            purged = rep->type == REDIS_REPLY_ARRAY && rep->elements >= 1 ? rc_reply_int(rep->element[0], -1) : -1;
            freeReplyObject(rep);
        }
        redisReply *rep = q(&c, "ZREM", k, cid, NULL);
        if (!rep)
            break;
        freeReplyObject(rep);
        if (purged < 0)
            continue;
        stat_add(&c, "jobs:expired", 1);
        expired++;
        json_t *o = json_object();
        json_object_set_new(o, "appid", ji.appid[0] ? json_string(ji.appid) : json_null());
        json_object_set_new(o, "spiderid", json_string(ji.spiderid[0] ? ji.spiderid : "link"));
        json_object_set_new(o, "crawlid", json_string(cid));
        json_object_set_new(o, "action", json_string("expired"));
        json_object_set_new(o, "total_expired", json_integer(purged));
        json_object_set_new(o, "expires", json_integer(ji.expires));
        char *s = finish(o, c.now_ms);
        if (notify)
            notify(ji.appid, s, ud);
        free(s);
    }
    freeReplyObject(due);
    return c.failed ? result(&c) : expired;
}

char *rc_control_failure_answer(const char *data, size_t len, const char *why)
{
    rc_msg m;
    rc_msg_error e;
    json_t *o;
    if (rc_msg_parse(data, len, &m, &e) == 0) {
        o = base_answer(&m);
        if (m.crawlid[0])
            json_object_set_new(o, "crawlid", json_string(m.crawlid));
        rc_msg_release(&m);
    } else {
        o = json_pack("{s:o, s:o}", "uuid", e.uuid[0] ? json_string(e.uuid) : json_null(), "appid",
                      e.appid[0] ? json_string(e.appid) : json_null());
    }
    char *text = rc_xasprintf("internal error: the request could not be applied: %s", why);
    json_object_set_new(o, "error", json_string(text));
    free(text);
    return finish(o, rc_now_ms());
}
