/* status.c - `redcrawl status`: the fleet at a glance, read from Redis alone (no daemon is
 * asked): workers, jobs, the busiest hosts, each job's bloom filter, Redis memory and HTTP
 * statuses over the last minute, hour and day. A live view redrawn every --interval seconds
 * (top-like, until Ctrl-C or --count frames), or one JSON document with --json.
 *
 * One frame is a snapshot (a JSON object built by rc_fleet_snapshot, shared/fleet.h, which the
 * web dashboard shows too); rates (pages/s of a worker, of a job) are the differences between
 * two snapshots, so --json takes two, --interval apart. The text view is rendered from the same
 * object, so the two never disagree. With --shards K a snapshot is every shard's merged
 * (shared/fleet_shards.h): each worker with its shard, each job once with its counts summed. */
#include <jansson.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "config.h"
#include "fleet.h"
#include "fleet_shards.h"
#include "redis.h"
#include "shard.h"
#include "util.h"

typedef struct status_conf {
    char *redis;
    char *prefix;
    int64_t shards;
    int json;
    double interval;
    int64_t count;
    int64_t top;
} status_conf;

static const rc_conf_row rows[] = {
    {"redis", RC_CONF_STR, offsetof(status_conf, redis), NULL, 0, 0, "REDCRAWL_REDIS", "Redis URL"},
    {"prefix", RC_CONF_STR, offsetof(status_conf, prefix), RC_DEFAULT_PREFIX, 0, 0, "REDCRAWL_PREFIX", "key prefix"},
    {"shards", RC_CONF_INT, offsetof(status_conf, shards), "1", 1, RC_SHARDS_MAX, "REDCRAWL_SHARDS",
     "shards of the keyspace: every shard's workers, jobs and hosts, a job's counts summed"},
    {"json", RC_CONF_BOOL, offsetof(status_conf, json), "0", 0, 1, NULL, "print one JSON document and exit"},
    {"interval", RC_CONF_DOUBLE, offsetof(status_conf, interval), "1", 0.1, 3600, NULL,
     "seconds between frames (and between the two samples of --json)"},
    {"count", RC_CONF_INT, offsetof(status_conf, count), "0", 0, 1000000, NULL, "frames to draw, 0 = until Ctrl-C"},
    {"top", RC_CONF_INT, offsetof(status_conf, top), "10", 1, 1000, NULL, "busiest hosts shown"},
};
#define NROWS (sizeof rows / sizeof rows[0])

static volatile sig_atomic_t interrupted;

static void on_sigint(int sig)
{
    interrupted = 1;
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

/* ---------- the text view ---------- */

static void human_bytes(char *buf, size_t cap, int64_t n)
{
    static const char *const units[] = {"B", "KB", "MB", "GB", "TB"};
    double v = (double)n;
    size_t u = 0;
    while (v >= 1024 && u + 1 < RC_ARRAY_LEN(units)) {
        v /= 1024;
        u++;
    }
    snprintf(buf, cap, n < 0 ? "-" : u ? "%.1f %s" : "%.0f %s", v, units[u]);
}

static void render_statuses(FILE *f, const json_t *st)
{
    fprintf(f, "\nHTTP status   %10s %10s %10s %10s\n", "1 min", "1 hour", "1 day", "total");
    const char *code;
    json_t *v;
    json_object_foreach (json_object_get(st, "total"), code, v) {
        fprintf(f, "  %-11s %10lld %10lld %10lld %10lld\n", code, (long long)jint(json_object_get(st, "1m"), code),
                (long long)jint(json_object_get(st, "1h"), code), (long long)jint(json_object_get(st, "1d"), code),
                (long long)json_integer_value(v));
    }
}

static void render(FILE *f, const json_t *s)
{
    const json_t *rd = json_object_get(s, "redis"), *hosts = json_object_get(s, "hosts");
    char used[32], max[32], tbuf[32];
    human_bytes(used, sizeof used, jint(rd, "used_memory"));
    human_bytes(max, sizeof max, jint(rd, "maxmemory"));
    time_t t = (time_t)(jint(s, "time_ms") / 1000);
    strftime(tbuf, sizeof tbuf, "%H:%M:%S", localtime(&t));
    fprintf(f, "redcrawl status  %s  scheduler %s  redis %s of %s  frontier %lld  backlog %lld\n", tbuf,
            jstr(s, "scheduler", "(none)"), used, jint(rd, "maxmemory") > 0 ? max : "no limit",
            (long long)jint(rd, "frontier"), (long long)jint(hosts, "total_backlog"));
    fprintf(f, "\nWORKERS %-28s %-15s %6s %7s %6s %6s %8s %6s %5s %s\n", "id", "ip", "weight", "pages/s", "infl",
            "queue", "fetched", "errors", "hb s", "state");
    size_t i;
    json_t *x;
    json_array_foreach (json_object_get(s, "workers"), i, x) {
        char shard[32] = ""; /* --shards: the one it serves */
        if (json_object_get(x, "shard"))
            snprintf(shard, sizeof shard, ", shard %lld", (long long)jint(x, "shard"));
        fprintf(f, "  %-34.34s %-15.15s %6lld %7.1f %6lld %6lld %8lld %6lld %5.1f %s%s\n", jstr(x, "id", "?"),
                jstr(x, "ip", "?"), (long long)jint(x, "weight"), json_real_value(json_object_get(x, "pages_per_s")),
                (long long)jint(x, "inflight"), (long long)jint(x, "queued"), (long long)jint(x, "fetched"),
                (long long)jint(x, "errors"), json_real_value(json_object_get(x, "heartbeat_age_s")),
                json_is_true(json_object_get(x, "draining")) ? "draining" : "active", shard);
    }
    fprintf(f, "\nJOBS    %-26s %-8s %8s %8s %7s %6s %6s %7s %7s %9s %9s\n", "crawlid", "state", "pending", "fetched",
            "items", "errors", "denied", "unreach", "pages/s", "bloom", "est fp");
    json_array_foreach (json_object_get(s, "jobs"), i, x) {
        const json_t *b = json_object_get(x, "bloom");
        fprintf(f, "  %-32.32s %-8.8s %8lld %8lld %7lld %6lld %6lld %7lld %7.1f %8.4f%% %9.2g\n",
                jstr(x, "crawlid", "?"), jstr(x, "state", "?"), (long long)jint(x, "pending"),
                (long long)jint(x, "fetched"), (long long)jint(x, "items"), (long long)jint(x, "errors"),
                (long long)jint(x, "robots_denied"), (long long)jint(x, "robots_unreachable"),
                json_real_value(json_object_get(x, "pages_per_s")), 100 * json_real_value(json_object_get(b, "fill")),
                json_real_value(json_object_get(b, "est_fp")));
    }
    fprintf(f, "\nHOSTS   %-32s %-28s %7s %-9s %6s %s\n", "host (largest backlog)", "worker", "backlog", "state",
            "due s", "rate");
    json_array_foreach (json_object_get(hosts, "top"), i, x) {
        fprintf(f, "  %-38.38s %-28.28s %7lld %-9s %6.1f %s\n", jstr(x, "host", "?"), jstr(x, "worker", "?"),
                (long long)jint(x, "backlog"), jstr(x, "state", "?"), json_real_value(json_object_get(x, "due_in_s")),
                jstr(x, "rate", ""));
    }
    render_statuses(f, json_object_get(s, "statuses"));
}

/* ---------- the command ---------- */

static void sleep_s(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    while (!interrupted && nanosleep(&ts, &ts) < 0)
        ;
}

/* One snapshot: the keyspace's, or every shard's merged. */
static json_t *snapshot(rc_redis **conns, const status_conf *c)
{
    if (c->shards <= 1)
        return rc_fleet_snapshot(conns[0], c->top);
    json_t *acc = NULL;
    for (int i = 0; i < (int)c->shards; i++) {
        json_t *one = rc_fleet_snapshot(conns[i], c->top);
        acc = rc_fleet_merge_shard(acc, one, i, c->top);
        json_decref(one);
    }
    return acc;
}

static int run(rc_redis **r, const status_conf *c)
{
    json_t *prev = NULL;
    int tty = isatty(STDOUT_FILENO);
    if (c->json) {
        prev = snapshot(r, c);
        sleep_s(c->interval);
        json_t *cur = snapshot(r, c);
        rc_fleet_add_rates(cur, prev);
        char *text = json_dumps(cur, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
        printf("%s\n", text);
        free(text);
        json_decref(cur);
        json_decref(prev);
        return 0;
    }
    for (int64_t frame = 0; !interrupted && (c->count == 0 || frame < c->count); frame++) {
        if (frame)
            sleep_s(c->interval);
        json_t *cur = snapshot(r, c);
        rc_fleet_add_rates(cur, prev);
        if (tty)
            fputs("\033[H\033[2J", stdout); /* home and clear: redraw in place */
        else if (frame)
            fputs("\n", stdout);
        render(stdout, cur);
        fflush(stdout);
        json_decref(prev);
        prev = cur;
    }
    json_decref(prev);
    return 0;
}

int rc_cli_status(int argc, char **argv)
{
    status_conf c;
    char err[512];
    int optind = 0, rc = 2;
    rc_redis *r[RC_SHARDS_MAX] = {NULL};
    memset(&c, 0, sizeof c);
    if (rc_conf_cmdline(rows, NROWS, &c, argc, argv, "redcrawl status",
                        "usage: redcrawl status [options]\n\nThe fleet from Redis: workers, jobs, busiest hosts, bloom "
                        "filters, Redis memory, HTTP statuses;\nredrawn every --interval seconds until Ctrl-C, or once "
                        "as JSON with --json.\n\n",
                        &optind, &rc))
        goto out;
    if (optind < argc) {
        fprintf(stderr, "redcrawl status: unexpected argument '%s' (see --help)\n", argv[optind]);
        goto out;
    }
    if (!c.redis) {
        fprintf(stderr, "redcrawl status: no Redis: pass --redis URL or set REDCRAWL_REDIS\n");
        goto out;
    }
    for (int i = 0; i < (int)c.shards; i++) {
        char prefix[256];
        if (rc_shard_prefix(c.prefix, i, (int)c.shards, prefix, sizeof prefix) < 0) {
            fprintf(stderr, "redcrawl status: --prefix '%s' has a hash tag: a sharded keyspace makes its own\n",
                    c.prefix);
            goto out;
        }
        if (!(r[i] = rc_redis_new(c.redis, prefix, err, sizeof err))) {
            fprintf(stderr, "redcrawl status: %s\n", err);
            rc = 1;
            goto out;
        }
    }
    signal(SIGINT, on_sigint);
    signal(SIGTERM, on_sigint);
    signal(SIGPIPE, SIG_IGN); /* Redis going away is shown and retried, not a way to die */
    rc = run(r, &c);
out:
    for (int i = 0; i < RC_SHARDS_MAX; i++)
        rc_redis_free(r[i]);
    rc_conf_release(rows, NROWS, &c);
    return rc;
}
