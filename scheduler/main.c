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
#include "metrics_http.h"
#include "sched_conf.h"
#include "sched_metrics.h"
#include "scheduler.h"

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

/* --metrics-port: the scheduler's families served on their own thread. 0 (nothing asked, or
 * served), or -1 with a message in err. */
static int serve_metrics(const rc_sched_conf *conf, rc_sched_metrics **m, rc_metrics_http **h, char *err, size_t cap)
{
    if (conf->metrics_port < 0)
        return 0;
    *m = rc_sched_metrics_new();
    if (!(*h = rc_metrics_http_start((*m)->reg, conf->metrics_addr, (int)conf->metrics_port, err, cap)))
        return -1;
    return 0;
}

int main(int argc, char **argv)
{
    rc_sched_conf conf;
    char err[512];
    int optind = 0, rc;
    size_t nrows;
    const rc_conf_row *rows = rc_sched_conf_rows(&nrows);
    memset(&conf, 0, sizeof conf);
    if (rc_conf_cmdline(rows, nrows, &conf, argc, argv, "redcrawl-scheduler",
                        "usage: redcrawl-scheduler [options]\n\nDispatches the frontier to workers.\n\n", &optind, &rc))
        return rc;
    if (usage_error(&conf, argc, argv, optind)) {
        rc_conf_release(rows, nrows, &conf);
        return 2;
    }
    /* A Redis that went away is an error to reconnect from, not a way to die: a write to its
     * closed connection (or the TLS relay's socket) must fail with EPIPE. */
    signal(SIGPIPE, SIG_IGN);
    struct ev_loop *loop = EV_DEFAULT;
    rc_sched_metrics *metrics = NULL;
    rc_metrics_http *http = NULL;
    rc_scheduler *s = NULL;
    if (serve_metrics(&conf, &metrics, &http, err, sizeof err) < 0 ||
        !(s = rc_scheduler_new(loop, &conf, metrics, err, sizeof err))) {
        fprintf(stderr, "redcrawl-scheduler: %s\n", err);
        rc_metrics_http_stop(http);
        rc_sched_metrics_free(metrics);
        rc_conf_release(rows, nrows, &conf);
        return 1;
    }
    ev_signal sigterm, sigint;
    ev_signal_init(&sigterm, on_signal, SIGTERM);
    ev_signal_init(&sigint, on_signal, SIGINT);
    ev_signal_start(loop, &sigterm);
    ev_signal_start(loop, &sigint);
    rc_scheduler_start(s);
    if (http)
        rc_info("scheduler", "metrics on http://%s:%d/metrics", conf.metrics_addr, rc_metrics_http_port(http));
    ev_run(loop, 0);
    rc_scheduler_stop(s);
    rc_scheduler_free(s);
    rc_metrics_http_stop(http);
    rc_sched_metrics_free(metrics);
    rc_conf_release(rows, nrows, &conf);
    return 0;
}
