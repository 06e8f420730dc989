/* control.c - `redcrawl submit | info | stop` against Redis directly (embedded mode): the same
 * validation and the same Lua scripts the scheduler uses. */
#include <hiredis/hiredis.h>
#include <jansson.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "config.h"
#include "frontier.h"
#include "job.h"
#include "redis.h"
#include "util.h"

typedef struct ctl_conf {
    char *redis;
    char *prefix;
    char *crawlid;
    char *appid;
    int64_t maxdepth;
    int64_t priority;
    int64_t max_pages;
    int json;
} ctl_conf;

static const rc_conf_row rows[] = {
    {"redis", RC_CONF_STR, offsetof(ctl_conf, redis), NULL, 0, 0, "REDCRAWL_REDIS", "Redis URL"},
    {"prefix", RC_CONF_STR, offsetof(ctl_conf, prefix), RC_DEFAULT_PREFIX, 0, 0, "REDCRAWL_PREFIX", "key prefix"},
    {"crawlid", RC_CONF_STR, offsetof(ctl_conf, crawlid), NULL, 0, 0, NULL, "job id"},
    {"appid", RC_CONF_STR, offsetof(ctl_conf, appid), "redcrawl-cli", 0, 0, NULL, "application id"},
    {"maxdepth", RC_CONF_INT, offsetof(ctl_conf, maxdepth), "0", -1, 1000, NULL, "follow links this deep"},
    {"priority", RC_CONF_INT, offsetof(ctl_conf, priority), "50", 0, 1000, NULL, "priority"},
    {"max-pages", RC_CONF_INT, offsetof(ctl_conf, max_pages), "0", 0, 1e12, NULL, "page cap"},
    {"json", RC_CONF_BOOL, offsetof(ctl_conf, json), "0", 0, 1, NULL, "print JSON"},
};
#define NROWS (sizeof rows / sizeof rows[0])

static int setup(int argc, char **argv, ctl_conf *c, int *optind, rc_redis **r, const char *usage)
{
    char err[512];
    memset(c, 0, sizeof *c);
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            printf("usage: redcrawl %s\n\n", usage);
            rc_conf_usage(stdout, rows, NROWS);
            return 0;
        }
    if (rc_conf_init(rows, NROWS, c, err, sizeof err) < 0 ||
        rc_conf_argv(rows, NROWS, c, argc, argv, optind, err, sizeof err) < 0) {
        fprintf(stderr, "redcrawl %s: %s\n", argv[0], err);
        return 2;
    }
    if (!c->redis) {
        fprintf(stderr, "redcrawl %s: no Redis: pass --redis URL or set REDCRAWL_REDIS "
                        "(eval \"$(scripts/services.sh start redis)\")\n", argv[0]);
        return 2;
    }
    *r = rc_redis_new(c->redis, c->prefix, err, sizeof err);
    if (!*r) {
        fprintf(stderr, "redcrawl %s: %s\n", argv[0], err);
        return 1;
    }
    return -1;
}

int rc_cli_submit(int argc, char **argv)
{
    ctl_conf c;
    rc_redis *r = NULL;
    int optind = 0;
    int rc = setup(argc, argv, &c, &optind, &r, "submit [--crawlid ID] [--maxdepth N] URL...");
    if (rc >= 0)
        goto out;
    rc = 2;
    if (optind >= argc || !c.crawlid) {
        fprintf(stderr, "redcrawl submit: give --crawlid ID and at least one URL\n");
        goto out;
    }
    json_t *req = json_pack("{s:s, s:s, s:I, s:I, s:I}", "crawlid", c.crawlid, "appid", c.appid, "maxdepth",
                            (json_int_t)c.maxdepth, "priority", (json_int_t)c.priority, "max_pages",
                            (json_int_t)c.max_pages);
    json_t *urls = json_array();
    for (int i = optind; i < argc; i++)
        json_array_append_new(urls, json_string(argv[i]));
    json_object_set_new(req, "urls", urls);
    char *s = json_dumps(req, JSON_COMPACT);
    json_decref(req);
    rc_job job;
    char err[512];
    int64_t added = 0;
    if (rc_job_parse(s, strlen(s), &job, err, sizeof err) < 0) {
        fprintf(stderr, "redcrawl submit: %s\n", err);
        free(s);
        goto out;
    }
    free(s);
    rc = rc_frontier_submit(r, &job, &added, err, sizeof err) < 0 ? 1 : 0;
    if (rc)
        fprintf(stderr, "redcrawl submit: %s\n", err);
    else if (c.json)
        printf("{\"crawlid\":\"%s\",\"added\":%lld}\n", job.crawlid, (long long)added);
    else
        printf("job %s: %lld new URL(s) in the frontier\n", job.crawlid, (long long)added);
    rc_job_release(&job);
out:
    rc_redis_free(r);
    rc_conf_release(rows, NROWS, &c);
    return rc;
}

int rc_cli_info(int argc, char **argv)
{
    ctl_conf c;
    rc_redis *r = NULL;
    int optind = 0;
    int rc = setup(argc, argv, &c, &optind, &r, "info [--json] CRAWLID");
    if (rc >= 0)
        goto out;
    rc = 2;
    if (optind >= argc) {
        fprintf(stderr, "redcrawl info: give a CRAWLID\n");
        goto out;
    }
    char key[200];
    redisReply *rep = rc_redis_cmd(r, "HGETALL %s", rc_redis_key(r, key, sizeof key, "job:%s", argv[optind]));
    if (!rep || rep->type != REDIS_REPLY_ARRAY || rep->elements == 0) {
        fprintf(stderr, "redcrawl info: no job %s\n", argv[optind]);
        rc = 1;
    } else {
        json_t *o = json_object();
        for (size_t i = 0; i + 1 < rep->elements; i += 2) {
            const char *f = rep->element[i]->str, *v = rep->element[i + 1]->str;
            if (strcmp(f, "spec") == 0 || strcmp(f, "bloom") == 0)
                continue;
            int64_t n;
            json_object_set_new(o, f, rc_parse_i64(v, INT64_MIN, INT64_MAX, &n) == 0 ? json_integer(n) : json_string(v));
        }
        json_object_set_new(o, "crawlid", json_string(argv[optind]));
        char *s = json_dumps(o, c.json ? JSON_COMPACT | JSON_SORT_KEYS : JSON_INDENT(2) | JSON_SORT_KEYS);
        printf("%s\n", s);
        free(s);
        json_decref(o);
        rc = 0;
    }
    if (rep)
        freeReplyObject(rep);
out:
    rc_redis_free(r);
    rc_conf_release(rows, NROWS, &c);
    return rc;
}

int rc_cli_stop(int argc, char **argv)
{
    ctl_conf c;
    rc_redis *r = NULL;
    int optind = 0;
    int rc = setup(argc, argv, &c, &optind, &r, "stop CRAWLID");
    if (rc >= 0)
        goto out;
    rc = 2;
    if (optind >= argc) {
        fprintf(stderr, "redcrawl stop: give a CRAWLID\n");
        goto out;
    }
    rc_argv a;
    rc_argv_init(&a);
    rc_argv_add(&a, argv[optind]);
    rc_argv_add(&a, "stopped");
    redisReply *rep = rc_redis_eval(r, RC_LUA_STOP, rc_now_ms(), &a);
    rc_argv_release(&a);
    if (rep && rep->type == REDIS_REPLY_ARRAY && rep->elements == 2 && rc_reply_int(rep->element[0], -1) >= 0) {
        printf("job %s stopped: %lld queued URL(s) purged\n", argv[optind], (long long)rc_reply_int(rep->element[0], 0));
        rc = 0;
    } else {
        fprintf(stderr, "redcrawl stop: no job %s\n", argv[optind]);
        rc = 1;
    }
    if (rep)
        freeReplyObject(rep);
out:
    rc_redis_free(r);
    rc_conf_release(rows, NROWS, &c);
    return rc;
}
