/* monitor.h - redcrawl-monitor: the Kafka side of the control plane (Scrapy Cluster's
 * kafka-monitor and redis-monitor in one process).
 *
 * Consumes <prefix>.incoming in a consumer group, applies each request to Redis (shared/control.c),
 * answers on <prefix>.outbound_firehose and on <prefix>.outbound_<appid> (when the appid is a legal
 * topic name), and commits a message's offset only once its effect is in Redis and its answers are
 * delivered (at-least-once; every effect is idempotent). While Redis fails, the message is held
 * and retried every second; nothing after it is consumed or committed (a request that Redis
 * itself refuses, a script error, is answered with an internal error after 3 attempts instead,
 * so that one bad message cannot stop the control plane). Every second it expires
 * the running jobs whose "expires" has passed (notification "expired" on the same topics),
 * heartbeats into Redis (monitors zset + monitor:{id} hash) and re-commits offsets whose commit
 * failed. One libev loop: librdkafka's queues wake it through a pipe (rd_kafka_queue_io_event_enable);
 * Redis is the synchronous client (loopback, one round trip per step). A broker restart is
 * survived by librdkafka's reconnects; errors are logged, never fatal. */
#ifndef RC_MONITOR_H
#define RC_MONITOR_H

#include <stddef.h>
#include <stdint.h>

struct ev_loop;

typedef struct rc_monitor_conf {
    char *kafka;        /* bootstrap brokers */
    char *redis;        /* Redis URL */
    char *prefix;       /* Redis key prefix */
    int64_t shards;     /* shards of the keyspace (shared/control_shards.h), 1: one keyspace */
    char *topic_prefix; /* topics are <topic_prefix>.incoming, ... */
    char *group;        /* consumer group id */
    char *id;           /* this monitor's id in Redis (default HOST-PID-RANDOM) */
    char *log_level;
    int64_t session_timeout_ms; /* consumer group session timeout */
    int app_topics;             /* also answer on <prefix>.outbound_<appid> */
    int64_t batch;              /* messages handled per loop iteration at most */
    int64_t metrics_port;       /* Prometheus endpoint: -1 off, 0 a free port (logged) */
    char *metrics_addr;         /* its address (default loopback) */
} rc_monitor_conf;

typedef struct rc_monitor rc_monitor;

/* Connects to Redis, creates the Kafka clients (and the incoming and firehose topics when they do
 * not exist). NULL with a message in err. conf is borrowed for the monitor's lifetime. */
rc_monitor *rc_monitor_new(struct ev_loop *loop, const rc_monitor_conf *conf, char *err, size_t cap);
/* Subscribes and starts the watchers. 0 or -EIO with a message in err. */
int rc_monitor_start(rc_monitor *m, char *err, size_t cap);
/* Stops consuming, delivers the answers in flight (bounded), commits what is done, leaves the
 * group and deregisters. */
void rc_monitor_stop(rc_monitor *m);
void rc_monitor_free(rc_monitor *m);

#endif
