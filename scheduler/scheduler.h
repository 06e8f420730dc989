/* scheduler.h - the dispatcher: frontier -> per-worker, per-domain queues. One active at a time
 * (a Redis lease lock); it owns nothing that Redis does not also hold, so a restart or a
 * standby taking over loses no work. */
#ifndef RC_SCHEDULER_H
#define RC_SCHEDULER_H

#include <stddef.h>
#include <stdint.h>

struct ev_loop;
struct rc_sched_metrics;

typedef struct rc_sched_conf {
    char *redis;
    char *prefix;
    int64_t shards; /* the keyspace's shards (shard.h); <= 1: one keyspace */
    int64_t shard;  /* the one this scheduler dispatches: 0 .. shards - 1 */
    char *log_level;
    int64_t tick_ms;        /* dispatch period when idle */
    int64_t batch;          /* frontier records examined per dispatch */
    double worker_timeout;  /* seconds without heartbeat before a worker is dead */
    int64_t weight_minutes; /* k: completions per minute averaged over the last k minutes */
    double backlog_seconds; /* hand a worker at most this much of its measured throughput */
    int64_t backlog_floor;  /* ... but at least this many URLs (new workers) */
    int64_t max_attempts;   /* fetch attempts before a URL lands in failed */
    double lock_ttl;        /* seconds: leader lease */
    int poll_only;          /* no pub/sub nudges: dispatch on the tick only */
    int64_t metrics_port;   /* Prometheus endpoint: -1 off, 0 a free port (logged); served by the */
    char *metrics_addr;     /* program (redcrawl-scheduler's main), at this address (loopback) */
} rc_sched_conf;

typedef struct rc_scheduler rc_scheduler;

/* NULL with a message in err when Redis is unreachable. conf and metrics (the families it
 * updates, sched_metrics.h; NULL = none) are borrowed for the lifetime. */
rc_scheduler *rc_scheduler_new(struct ev_loop *loop, const rc_sched_conf *conf, struct rc_sched_metrics *metrics,
                               char *err, size_t cap);
void rc_scheduler_start(rc_scheduler *s);
void rc_scheduler_stop(rc_scheduler *s);
void rc_scheduler_free(rc_scheduler *s);

#endif
