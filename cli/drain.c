/* drain.c - `redcrawl drain WORKER`: the worker takes no new URLs and the scheduler moves its
 * hosts to other workers (shared/drain.h); the command waits, showing progress, until the worker
 * holds nothing (no host, nothing in flight) or --timeout passes. `--undo` puts it back to work.
 * Reads and writes Redis directly, like `status`. */
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "config.h"
#include "drain.h"
#include "progress.h"
#include "redis.h"
#include "util.h"

typedef struct drain_conf {
    char *redis;
    char *prefix;
    int undo;
    int no_wait;
    int json;
    double timeout;
} drain_conf;

static const rc_conf_row rows[] = {
    {"redis", RC_CONF_STR, offsetof(drain_conf, redis), NULL, 0, 0, "REDCRAWL_REDIS", "Redis URL"},
    {"prefix", RC_CONF_STR, offsetof(drain_conf, prefix), RC_DEFAULT_PREFIX, 0, 0, "REDCRAWL_PREFIX", "key prefix"},
    {"undo", RC_CONF_BOOL, offsetof(drain_conf, undo), "0", 0, 1, NULL, "the worker takes URLs and hosts again"},
    {"no-wait", RC_CONF_BOOL, offsetof(drain_conf, no_wait), "0", 0, 1, NULL,
     "set the flag and return without waiting for the worker to empty"},
    {"timeout", RC_CONF_DOUBLE, offsetof(drain_conf, timeout), "300", 0.1, 86400, NULL,
     "seconds to wait for the worker to hold nothing"},
    {"json", RC_CONF_BOOL, offsetof(drain_conf, json), "0", 0, 1, NULL, "print the final state as JSON"},
};
#define NROWS (sizeof rows / sizeof rows[0])

static volatile sig_atomic_t interrupted;

static void on_sigint(int sig)
{
    interrupted = 1;
}

static void print_state(const drain_conf *c, const char *id, rc_drain_mode mode, const rc_drain_state *st)
{
    if (c->json) {
        char *text = rc_drain_answer(id, mode, st);
        printf("%s\n", text);
        free(text);
    } else if (mode == RC_DRAIN_OFF) {
        printf("redcrawl drain: %s takes new URLs and hosts again%s\n", id, st->live ? "" : " (it is not live)");
    } else if (!st->live) {
        printf("redcrawl drain: %s left the fleet (stopped or reaped): what it held went back to the queues\n", id);
    } else if (rc_drain_done(st)) {
        printf("redcrawl drain: %s is drained: no hosts, nothing in flight; it stays registered and idle "
               "until `redcrawl drain --undo %s` or it is stopped\n",
               id, id);
    } else {
        printf("redcrawl drain: %s is draining: %lld hosts (%lld with queued URLs), %lld in flight\n", id,
               (long long)st->hosts, (long long)st->backlog_hosts, (long long)st->inflight);
    }
}

/* Polls the worker's state every 200 ms until it holds nothing, leaves, or the time is up.
 * 0 when drained (or gone), 1 on timeout or interruption, -1 on a Redis failure. */
static int wait_drained(rc_redis *r, const drain_conf *c, const char *id, rc_drain_state *st)
{
    rc_progress p;
    char err[512];
    rc_progress_init(&p, "redcrawl drain", c->timeout);
    while (st->live && !rc_drain_done(st)) {
        if (interrupted || rc_progress_elapsed(&p) >= c->timeout) {
            rc_progress_end(&p);
            fprintf(stderr,
                    "redcrawl drain: %s %s after %.0f s: it still holds %lld hosts (%lld with queued URLs) and "
                    "%lld URLs in flight. %s It stays draining (`redcrawl drain --undo %s` puts it back).\n",
                    id, interrupted ? "interrupted" : "timed out", rc_progress_elapsed(&p), (long long)st->hosts,
                    (long long)st->backlog_hosts, (long long)st->inflight,
                    st->inflight ? "Fetches in flight end within the worker's --timeout."
                                 : "Hosts move only while a scheduler runs and another worker takes them.",
                    id);
            return 1;
        }
        rc_progress_show(&p, "waiting for %s to hand over %lld hosts (%lld with queued URLs) and finish %lld in flight",
                         id, (long long)st->hosts, (long long)st->backlog_hosts, (long long)st->inflight);
        struct timespec ts = {0, 200 * 1000000};
        nanosleep(&ts, NULL);
        if (rc_drain_apply(r, id, RC_DRAIN_SHOW, st, err, sizeof err) < 0) {
            rc_progress_end(&p);
            fprintf(stderr, "redcrawl drain: %s\n", err);
            return -1;
        }
    }
    rc_progress_end(&p);
    return 0;
}

int rc_cli_drain(int argc, char **argv)
{
    drain_conf c;
    char err[512];
    int optind = 0, rc = 2;
    rc_redis *r = NULL;
    memset(&c, 0, sizeof c);
    if (rc_conf_cmdline(rows, NROWS, &c, argc, argv, "redcrawl drain",
                        "usage: redcrawl drain [options] WORKER\n\nThe worker takes no new URLs and the scheduler "
                        "gives its hosts to other workers;\nwaits until it holds nothing. It then stays idle "
                        "until --undo. Worker ids: `redcrawl status`.\n\n",
                        &optind, &rc))
        goto out;
    if (optind != argc - 1) {
        fprintf(stderr, "redcrawl drain: give one WORKER id (see --help; `redcrawl status` lists them)\n");
        goto out;
    }
    if (!c.redis) {
        fprintf(stderr, "redcrawl drain: no Redis: pass --redis URL or set REDCRAWL_REDIS\n");
        goto out;
    }
    const char *id = argv[optind];
    rc = 1;
    if (!(r = rc_redis_new(c.redis, c.prefix, err, sizeof err))) {
        fprintf(stderr, "redcrawl drain: %s\n", err);
        goto out;
    }
    rc_drain_mode mode = c.undo ? RC_DRAIN_OFF : RC_DRAIN_ON;
    rc_drain_state st;
    int res = rc_drain_apply(r, id, mode, &st, err, sizeof err);
    if (res < 0) {
        fprintf(stderr, "redcrawl drain: %s\n", err);
        rc = res == -EINVAL ? 2 : 1;
        goto out;
    }
    signal(SIGINT, on_sigint);
    signal(SIGTERM, on_sigint);
    if (mode == RC_DRAIN_ON && !c.no_wait) {
        res = wait_drained(r, &c, id, &st);
        if (res < 0)
            goto out;
        rc = res;
    } else {
        rc = 0;
    }
    print_state(&c, id, mode, &st);
out:
    rc_redis_free(r);
    rc_conf_release(rows, NROWS, &c);
    return rc;
}
