/* forward.c - see forward.h. */
#include "forward.h"

#include <errno.h>
#include <hiredis/hiredis.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "argv.h"
#include "log.h"
#include "recpeek.h"
#include "redis.h"
#include "scripts.h"
#include "shard.h"
#include "url.h"
#include "util.h"

#define MOD "forward"

struct rc_forward {
    rc_redis *own;
    rc_redis *to[RC_SHARDS_MAX]; /* NULL for this shard */
    int shards;
    int failing; /* the last call could not forward: said once */
};

rc_forward *rc_forward_new(const char *url, const char *base, int shard, int shards, rc_redis *own, char *err,
                           size_t cap)
{
    rc_forward *f = rc_xcalloc(1, sizeof *f);
    f->own = own;
    f->shards = shards;
    for (int t = 0; t < shards; t++) {
        char prefix[256];
        if (t == shard)
            continue;
        if (rc_shard_prefix(base, t, shards, prefix, sizeof prefix) < 0) {
            snprintf(err, cap, "no prefix for shard %d of %d under '%s'", t, shards, base);
            rc_forward_free(f);
            return NULL;
        }
        if (!(f->to[t] = rc_redis_new(url, prefix, err, cap))) {
            rc_forward_free(f);
            return NULL;
        }
    }
    return f;
}

void rc_forward_free(rc_forward *f)
{
    if (!f)
        return;
    for (int t = 0; t < f->shards; t++)
        rc_redis_free(f->to[t]);
    free(f);
}

/* The crawlid a line starts with (up to its first TAB) and its length. */
static size_t line_job(const redisReply *line)
{
    const char *tab = memchr(line->str, '\t', line->len);
    return tab ? (size_t)(tab - line->str) : line->len;
}

/* TABs in a line: its hash values' form (one hex text, or a decimal value each from workers
 * before it), which one submit.lua call must not mix. */
static size_t line_tabs(const redisReply *line)
{
    size_t n = 0;
    for (const char *p = line->str, *end = p + line->len; (p = memchr(p, '\t', (size_t)(end - p))) != NULL; p++)
        n++;
    return n;
}

/* Appends a line's record and hash values to a submit vector; how many hash values it had. */
static int add_line(rc_argv *a, const redisReply *line)
{
    const char *p = line->str + line_job(line), *end = line->str + line->len;
    int fields = 0;
    while (p < end) {
        p++; /* the TAB before the field */
        const char *tab = memchr(p, '\t', (size_t)(end - p));
        const char *stop = tab ? tab : end;
        rc_argv_addn(a, p, (size_t)(stop - p));
        fields++;
        p = stop;
    }
    return fields - 1;
}

/* The job's spec, max_pages and bloom here, for submit.lua there (which makes the job there
 * with them when new): its max_pages the job's whole budget (budget), not this shard's
 * allowance. 0, 1 when the job is no longer running here (its links are dropped), -1 when this
 * shard cannot be read. */
static int job_fields(rc_forward *f, const char *crawlid, rc_argv *a)
{
    char key[300];
    redisReply *rep = rc_redis_cmd(f->own, "HMGET %s spec max_pages bloom state budget",
                                   rc_redis_key(f->own, key, sizeof key, "job:%s", crawlid));
    if (!rep || rep->type != REDIS_REPLY_ARRAY || rep->elements != 5) {
        if (rep)
            freeReplyObject(rep);
        return -1;
    }
    const redisReply *const *e = (const redisReply *const *)rep->element;
    int gone = e[0]->type != REDIS_REPLY_STRING || e[3]->type != REDIS_REPLY_STRING ||
               strcmp(e[3]->str, "stopped") == 0 || strcmp(e[3]->str, "expired") == 0;
    if (!gone) {
        rc_argv_set(a, RC_SUBMIT_CRAWLID, crawlid);
        rc_argv_set(a, RC_SUBMIT_SPEC, e[0]->str);
        const redisReply *max = e[4]->type == REDIS_REPLY_STRING ? e[4] : e[1];
        rc_argv_set(a, RC_SUBMIT_MAX_PAGES, max->type == REDIS_REPLY_STRING ? max->str : "0");
        rc_argv_set(a, RC_SUBMIT_BLOOM, e[2]->type == REDIS_REPLY_STRING ? e[2]->str : "");
    }
    freeReplyObject(rep);
    return gone;
}

/* Whether a line is "crawlid TAB record TAB hash..." with a record a worker would write (a
 * URL and a depth) and at least one hash value. */
static int line_ok(const redisReply *line)
{
    const char *end = line->str + line->len, *rec = line->str + line_job(line) + 1;
    const char *tab = rec < end ? memchr(rec, '\t', (size_t)(end - rec)) : NULL;
    char url[RC_URL_MAX + 1];
    int depth;
    if (!tab || tab + 1 >= end)
        return 0;
    int r = rc_record_peek(rec, (size_t)(tab - rec), url, sizeof url, &depth);
    return r == 0 || r == -EAGAIN;
}

/* Lines submit.lua fails on (not a refusal: a bug, or lines not made by a worker) would hold
 * the outbox for ever: they are said, counted in the job's dropped here, and taken off. */
static void drop_run(rc_forward *f, const char *crawlid, int t, size_t n, const char *why)
{
    char key[300];
    rc_error(MOD, "shard %d fails on %zu links of job %s, dropped: %s", t, n, crawlid, why);
    redisReply *rep = rc_redis_cmd(f->own, "HINCRBY %s dropped %lld",
                                   rc_redis_key(f->own, key, sizeof key, "job:%s", crawlid), (long long)n);
    if (rep)
        freeReplyObject(rep);
}

/* n lines of one job into shard t through submit.lua. 0 (also for a job stopped here: nothing
 * to send; and for lines the script fails on: dropped), -1 when either shard could not be
 * asked or shard t refused. */
static int submit_run(rc_forward *f, int t, redisReply *const *lines, size_t n)
{
    char crawlid[256];
    snprintf(crawlid, sizeof crawlid, "%.*s", (int)line_job(lines[0]), lines[0]->str);
    rc_argv a;
    rc_argv_init(&a);
    int st = job_fields(f, crawlid, &a);
    if (st != 0) {
        rc_argv_release(&a);
        return st > 0 ? 0 : -1;
    }
    int k = 0;
    size_t good = 0;
    rc_argv_setu(&a, RC_SUBMIT_K, 0);
    rc_argv_setu(&a, RC_SUBMIT_N, 0);
    for (size_t i = 0; i < n; i++)
        if (line_ok(lines[i])) {
            k = add_line(&a, lines[i]);
            good++;
        }
    if (good < n) /* checked here: submit.lua failing midway would leave what it did so far */
        drop_run(f, crawlid, t, n - good, "not a frontier record with its hash values");
    rc_argv_seti(&a, RC_SUBMIT_K, k);
    rc_argv_setu(&a, RC_SUBMIT_N, good);
    redisReply *rep = good ? rc_redis_eval(f->to[t], RC_LUA_SUBMIT, rc_now_ms(), &a) : NULL;
    if (!good) {
        rc_argv_release(&a);
        return 0;
    }
    rc_argv_release(&a);
    int ok = rep && rep->type == REDIS_REPLY_ARRAY;
    if (!ok && rep && rep->type == REDIS_REPLY_ERROR && !rc_redis_refusal(rep->str)) {
        drop_run(f, crawlid, t, n, rep->str); /* the script fails on them: it would for ever */
        ok = 1;
    } else if (!f->failing && !ok) {
        rc_warn(MOD, "shard %d does not take job %s's links now (held, retried): %s", t, crawlid,
                rep && rep->type == REDIS_REPLY_ERROR ? rep->str : rc_redis_error(f->to[t]));
    }
    if (rep)
        freeReplyObject(rep);
    return ok ? 0 : -1;
}

/* The first n lines of the outbox for shard t are there: off here (forward.lua), when they are
 * still the outbox's head (another scheduler that led meanwhile may have taken them). */
static int take_off(rc_forward *f, int t, redisReply *const *lines, size_t n)
{
    rc_argv a;
    rc_argv_init(&a);
    rc_argv_seti(&a, RC_FORWARD_TARGET, t);
    rc_argv_setu(&a, RC_FORWARD_N, n);
    rc_argv_setn(&a, RC_FORWARD_FIRST, lines[0]->str, lines[0]->len);
    rc_argv_setn(&a, RC_FORWARD_LAST, lines[n - 1]->str, lines[n - 1]->len);
    redisReply *rep = rc_redis_eval(f->own, RC_LUA_FORWARD, rc_now_ms(), &a);
    rc_argv_release(&a);
    int ok = rep && rep->type == REDIS_REPLY_INTEGER;
    if (ok && rep->integer < 0)
        rc_warn(MOD, "the outbox for shard %d no longer starts with the lines forwarded: another scheduler took them",
                t);
    if (rep)
        freeReplyObject(rep);
    return ok ? 0 : -1;
}

/* Up to max lines of the outbox for shard t, a run of one job (and one form of hash values)
 * per submit.lua call. */
static int64_t forward_to(rc_forward *f, int t, int64_t max)
{
    char key[300];
    redisReply *rep = rc_redis_cmd(f->own, "LRANGE %s 0 %lld", rc_redis_key(f->own, key, sizeof key, "out:%d", t),
                                   (long long)max - 1);
    if (!rep || rep->type != REDIS_REPLY_ARRAY) {
        if (rep)
            freeReplyObject(rep);
        return -1;
    }
    size_t n = rep->elements, i = 0;
    int ok = 1;
    while (ok && i < n) {
        size_t j = i + 1, len = line_job(rep->element[i]), tabs = line_tabs(rep->element[i]);
        while (j < n && line_job(rep->element[j]) == len &&
               memcmp(rep->element[j]->str, rep->element[i]->str, len) == 0 && line_tabs(rep->element[j]) == tabs)
            j++;
        ok = submit_run(f, t, rep->element + i, j - i) == 0;
        i = j;
    }
    ok = ok && (n == 0 || take_off(f, t, rep->element, n) == 0);
    freeReplyObject(rep);
    return ok ? (int64_t)n : -1;
}

rc_redis *rc_forward_conn(rc_forward *f, int shard)
{
    return shard >= 0 && shard < f->shards && f->to[shard] ? f->to[shard] : f->own;
}

int64_t rc_forward_run(rc_forward *f, int64_t max)
{
    int64_t moved = 0;
    int failed = 0;
    for (int t = 0; t < f->shards; t++) {
        if (!f->to[t])
            continue;
        int64_t n = forward_to(f, t, max);
        if (n < 0)
            failed = 1;
        else
            moved += n;
    }
    if (f->failing && !failed)
        rc_info(MOD, "links go to their shards again");
    f->failing = failed;
    return failed ? -1 : moved;
}
