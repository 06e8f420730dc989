/* redcrawl-monitor: Kafka control requests -> Redis, answers -> Kafka. See monitor.h. */
#include <ev.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "control.h"
#include "log.h"
#include "monitor.h"
#include "redis.h"
#include "shard.h"

static const rc_conf_row rows[] = {
    {"kafka", RC_CONF_STR, offsetof(rc_monitor_conf, kafka), NULL, 0, 0, "REDCRAWL_KAFKA",
     "Kafka brokers, host:port[,host:port...]"},
    {"redis", RC_CONF_STR, offsetof(rc_monitor_conf, redis), NULL, 0, 0, "REDCRAWL_REDIS",
     "Redis URL (redis://HOST:PORT, rediss://HOST:PORT for TLS, or unix:///PATH)"},
    {"prefix", RC_CONF_STR, offsetof(rc_monitor_conf, prefix), RC_DEFAULT_PREFIX, 0, 0, "REDCRAWL_PREFIX",
     "Redis key prefix"},
    {"shards", RC_CONF_INT, offsetof(rc_monitor_conf, shards), "1", 1, RC_SHARDS_MAX, "REDCRAWL_SHARDS",
     "shards of the keyspace: a crawl request goes to its seed's host's, anything else to every one"},
    {"topic-prefix", RC_CONF_STR, offsetof(rc_monitor_conf, topic_prefix), RC_TOPIC_PREFIX_DEFAULT, 0, 0,
     "REDCRAWL_TOPIC_PREFIX", "topics: PREFIX.incoming, PREFIX.outbound_firehose, PREFIX.outbound_APPID"},
    {"group", RC_CONF_STR, offsetof(rc_monitor_conf, group), "redcrawl-monitor", 0, 0, "REDCRAWL_GROUP",
     "consumer group id"},
    {"session-timeout", RC_CONF_INT, offsetof(rc_monitor_conf, session_timeout_ms), "10000", 1000, 3600000, NULL,
     "consumer group session timeout, ms"},
    {"app-topics", RC_CONF_BOOL, offsetof(rc_monitor_conf, app_topics), "1", 0, 1, NULL,
     "also answer on PREFIX.outbound_APPID (--app-topics=0: firehose only)"},
    {"batch", RC_CONF_INT, offsetof(rc_monitor_conf, batch), "500", 1, 1000000, NULL,
     "requests handled per loop turn at most"},
    {"metrics-port", RC_CONF_INT, offsetof(rc_monitor_conf, metrics_port), "-1", -1, 65535, "REDCRAWL_METRICS_PORT",
     "serve Prometheus metrics on this port (-1 = off, 0 = a free one, logged)"},
    {"metrics-addr", RC_CONF_STR, offsetof(rc_monitor_conf, metrics_addr), "127.0.0.1", 0, 0, "REDCRAWL_METRICS_ADDR",
     "address the metrics port binds (0.0.0.0 in a container)"},
    {"id", RC_CONF_STR, offsetof(rc_monitor_conf, id), NULL, 0, 0, NULL,
     "this monitor's id in Redis (default HOST-PID-RANDOM)"},
    {"log-level", RC_CONF_STR, offsetof(rc_monitor_conf, log_level), "info", 0, 0, "REDCRAWL_LOG_LEVEL",
     "debug|info|warn|error"},
};
#define NROWS (sizeof rows / sizeof rows[0])

static void on_signal(struct ev_loop *loop, ev_signal *w, int revents)
{
    ev_break(loop, EVBREAK_ALL);
}

int main(int argc, char **argv)
{
    rc_monitor_conf conf;
    char err[512];
    int optind = 0, rc = 1;
    rc_monitor *m = NULL;
    memset(&conf, 0, sizeof conf);
    if (rc_conf_cmdline(rows, NROWS, &conf, argc, argv, "redcrawl-monitor",
                        "usage: redcrawl-monitor [options]\n\nConsumes control requests (Scrapy Cluster's format) from "
                        "Kafka, applies them to Redis, answers on Kafka.\n\n",
                        &optind, &rc))
        goto out;
    if (optind < argc) {
        fprintf(stderr, "redcrawl-monitor: unexpected argument '%s' (see --help)\n", argv[optind]);
        rc = 2;
        goto out;
    }
    if (!conf.kafka || !conf.redis) {
        fprintf(stderr, "redcrawl-monitor: pass --kafka BROKERS and --redis URL, or set REDCRAWL_KAFKA and "
                        "REDCRAWL_REDIS (scripts/services.sh start kafka|redis prints them)\n");
        rc = 2;
        goto out;
    }
    if (rc_log_set_level(conf.log_level) < 0) {
        fprintf(stderr, "redcrawl-monitor: --log-level: '%s' is not debug, info, warn or error\n", conf.log_level);
        rc = 2;
        goto out;
    }
    struct ev_loop *loop = EV_DEFAULT;
    m = rc_monitor_new(loop, &conf, err, sizeof err);
    if (!m || rc_monitor_start(m, err, sizeof err) < 0) {
        fprintf(stderr, "redcrawl-monitor: %s\n", err);
        goto out;
    }
    ev_signal sigterm, sigint;
    ev_signal_init(&sigterm, on_signal, SIGTERM);
    ev_signal_init(&sigint, on_signal, SIGINT);
    ev_signal_start(loop, &sigterm);
    ev_signal_start(loop, &sigint);
    signal(SIGPIPE, SIG_IGN);
    ev_run(loop, 0);
    rc_monitor_stop(m);
    rc = 0;
out:
    rc_monitor_free(m);
    rc_conf_release(rows, NROWS, &conf);
    return rc;
}
