/* redcrawl-scheduler: dispatches the frontier to workers. See scheduler.h. */
#include <ev.h>
#include <stdbool.h>
#include <stddef.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "log.h"
#include "redis.h"
#include "scheduler.h"

static const rc_conf_row rows[] = {
    {"redis", RC_CONF_STR, offsetof(rc_sched_conf, redis), NULL, 0, 0, "REDCRAWL_REDIS",
     "Redis URL (redis://HOST:PORT, rediss://HOST:PORT for TLS, or unix:///PATH)"},
    {"prefix", RC_CONF_STR, offsetof(rc_sched_conf, prefix), RC_DEFAULT_PREFIX, 0, 0, "REDCRAWL_PREFIX", "key prefix"},
    {"log-level", RC_CONF_STR, offsetof(rc_sched_conf, log_level), "info", 0, 0, "REDCRAWL_LOG_LEVEL",
     "debug|info|warn|error"},
    {"tick-ms", RC_CONF_INT, offsetof(rc_sched_conf, tick_ms), "50", 1, 10000, NULL, "dispatch period when idle, ms"},
    {"batch", RC_CONF_INT, offsetof(rc_sched_conf, batch), "1000", 1, 100000, NULL, "frontier records per dispatch"},
    {"worker-timeout", RC_CONF_DOUBLE, offsetof(rc_sched_conf, worker_timeout), "10", 1, 3600, NULL,
     "seconds without heartbeat before a worker is dead"},
    {"weight-minutes", RC_CONF_INT, offsetof(rc_sched_conf, weight_minutes), "10", 1, 60, NULL,
     "minutes of completions averaged for a worker's weight"},
    {"backlog-seconds", RC_CONF_DOUBLE, offsetof(rc_sched_conf, backlog_seconds), "120", 1, 3600, NULL,
     "new hosts go to workers holding less than this much of their throughput"},
    {"backlog-floor", RC_CONF_INT, offsetof(rc_sched_conf, backlog_floor), "500", 1, 10000000, NULL,
     "but at least this many URLs"},
    {"max-attempts", RC_CONF_INT, offsetof(rc_sched_conf, max_attempts), "3", 1, 100, NULL,
     "fetch attempts before a URL fails"},
    {"metrics-port", RC_CONF_INT, offsetof(rc_sched_conf, metrics_port), "-1", -1, 65535, "REDCRAWL_METRICS_PORT",
     "serve Prometheus metrics on this port (-1 = off, 0 = a free one, logged)"},
    {"metrics-addr", RC_CONF_STR, offsetof(rc_sched_conf, metrics_addr), "127.0.0.1", 0, 0, "REDCRAWL_METRICS_ADDR",
     "address the metrics port binds (0.0.0.0 in a container)"},
    {"poll-only", RC_CONF_BOOL, offsetof(rc_sched_conf, poll_only), "0", 0, 1, NULL,
     "ignore pub/sub nudges: dispatch only every --tick-ms (for latency comparisons)"},
    {"lock-ttl", RC_CONF_DOUBLE, offsetof(rc_sched_conf, lock_ttl), "10", 2, 600, NULL, "leader lease, seconds"},
};
#define NROWS (sizeof rows / sizeof rows[0])

static void on_signal(struct ev_loop *loop, ev_signal *w, int revents)
{
    ev_break(loop, EVBREAK_ALL);
}

/* What is wrong with the command line besides the options themselves: said, and true when so. */
static bool usage_error(const rc_sched_conf *conf, int argc, char **argv, int optind)
{
    if (optind < argc) {
        fprintf(stderr, "redcrawl-scheduler: unexpected argument '%s' (see --help)\n", argv[optind]);
        return true;
    }
    if (!conf->redis) {
        fprintf(stderr, "redcrawl-scheduler: no Redis: pass --redis URL or set REDCRAWL_REDIS\n");
        return true;
    }
    if (rc_log_set_level(conf->log_level) < 0) {
        fprintf(stderr, "redcrawl-scheduler: --log-level: '%s' is not debug, info, warn or error\n", conf->log_level);
        return true;
    }
    return false;
}

int main(int argc, char **argv)
{
    rc_sched_conf conf;
    char err[512];
    int optind = 0, rc;
    memset(&conf, 0, sizeof conf);
    if (rc_conf_cmdline(rows, NROWS, &conf, argc, argv, "redcrawl-scheduler",
                        "usage: redcrawl-scheduler [options]\n\nDispatches the frontier to workers.\n\n", &optind, &rc))
        return rc;
    if (usage_error(&conf, argc, argv, optind)) {
        rc_conf_release(rows, NROWS, &conf);
        return 2;
    }
    /* A Redis that went away is an error to reconnect from, not a way to die: a write to its
     * closed connection (or the TLS relay's socket) must fail with EPIPE. */
    signal(SIGPIPE, SIG_IGN);
    struct ev_loop *loop = EV_DEFAULT;
    rc_scheduler *s = rc_scheduler_new(loop, &conf, err, sizeof err);
    if (!s) {
        fprintf(stderr, "redcrawl-scheduler: %s\n", err);
        rc_conf_release(rows, NROWS, &conf);
        return 1;
    }
    ev_signal sigterm, sigint;
    ev_signal_init(&sigterm, on_signal, SIGTERM);
    ev_signal_init(&sigint, on_signal, SIGINT);
    ev_signal_start(loop, &sigterm);
    ev_signal_start(loop, &sigint);
    rc_scheduler_start(s);
    ev_run(loop, 0);
    rc_scheduler_stop(s);
    rc_scheduler_free(s);
    rc_conf_release(rows, NROWS, &conf);
    return 0;
}
