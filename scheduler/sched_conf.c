/* sched_conf.c - see sched_conf.h. */
#include "sched_conf.h"

#include <stddef.h>

#include "config.h"
#include "redis.h"
#include "scheduler.h"
#include "shard.h"

static const rc_conf_row rows[] = {
    {"redis", RC_CONF_STR, offsetof(rc_sched_conf, redis), NULL, 0, 0, "REDCRAWL_REDIS",
     "Redis URL (redis://HOST:PORT, rediss://HOST:PORT for TLS, or unix:///PATH)"},
    {"prefix", RC_CONF_STR, offsetof(rc_sched_conf, prefix), RC_DEFAULT_PREFIX, 0, 0, "REDCRAWL_PREFIX", "key prefix"},
    {"shards", RC_CONF_INT, offsetof(rc_sched_conf, shards), "1", 1, RC_SHARDS_MAX, "REDCRAWL_SHARDS",
     "shards of the keyspace (ARCHITECTURE.md \"Shards\"): one scheduler per shard"},
    {"shard", RC_CONF_INT, offsetof(rc_sched_conf, shard), "0", 0, RC_SHARDS_MAX - 1, "REDCRAWL_SHARD",
     "the shard this scheduler dispatches, and forwards the links of (0 .. --shards - 1)"},
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

const rc_conf_row *rc_sched_conf_rows(size_t *n)
{
    *n = sizeof rows / sizeof rows[0];
    return rows;
}
