/* worker.h - a stateless crawl worker: one libev loop drives the Redis client (hiredis async),
 * the fetcher (libcurl multi) and the timers. It takes ready domains from its queues, fetches,
 * parses each page once, writes the page record to the sink, and completes the page (ack,
 * links through the bloom into the frontier) in one Lua call. */
#ifndef RC_WORKER_H
#define RC_WORKER_H

#include <stddef.h>
#include <stdint.h>

#include "config.h"

struct ev_loop;

typedef struct rc_worker_conf {
    char *redis;
    double redis_locate_timeout; /* seconds each node a Redis reconnect tries may take (the loop waits) */
    char *prefix;
    int64_t shards; /* the keyspace's shards (shard.h); 1 = one keyspace */
    int64_t shard;  /* the one this worker takes from: 0 .. shards - 1 */
    char *log_level;
    char *id;
    char *out;
    char *fsync;       /* JSON Lines durability: none, batch (group commit), record */
    char *recheck;     /* a list of _ids (tailids.h) whose pages are looked up before being stored */
    char *tree;        /* the tree of a page without XPath rules: "light" (htmltree.c) or "gumbo" */
    char *warc_dir;    /* WARC files of jobs with "warc": true; {crawlid} is replaced */
    int64_t warc_size; /* a WARC file is closed for the next one past this many bytes */
    int64_t warc_gzip; /* gzip level of WARC records */
    char *mongo;       /* MongoDB URI: page records and items upserted there */
    char *mongo_db;
    char *mongo_pages; /* collection of page records */
    char *mongo_items; /* collection of items; "{spiderid}" is replaced */
    char *kafka;       /* brokers, for the crawled firehose */
    char *topic_prefix;
    int firehose; /* produce every stored document to <prefix>.crawled_firehose */
    char *useragent;
    char *cacert;
    int mark_recent;
    int poll_only; /* no pub/sub nudges: take only on the poll timer */
    /* write every fetch into the fleet's "fetched recently" slots */ /* CA bundle verifying HTTPS servers (default:
                                                                         the system's) */
    int64_t concurrency;
    int64_t keep_connections; /* idle connections kept for reuse (bounded by the descriptor limit) */
    int64_t max_body;
    int64_t max_links;
    int64_t seen_cache;
    int64_t parse_threads; /* threads parsing pages, 0 = on the loop (main.c turns -1 into the CPUs) */
    int64_t max_attempts;
    double delay;
    double robots_delay; /* seconds from a host's robots.txt fetch to its first page, at most its
                            delay; < 0 (unset) = the host's delay, as between pages */
    double connect_timeout;
    double timeout;
    int64_t low_speed_limit; /* bytes/s under which ... */
    double low_speed_time;   /* ... for this long a transfer fails (trickling servers) */
    double lease_seconds;
    double heartbeat;
    double watchdog;        /* seconds the event loop may not run before the worker exits; 0 = never */
    int64_t step_batch;     /* completes sent in one step.lua call at most; 1 = a complete.lua per page */
    double step_wait;       /* seconds a busy worker's completes and take wait for others to join them */
    double fence;           /* store only within this long of an accepted heartbeat (< worker timeout) */
    int robots;             /* obey robots.txt */
    double robots_ttl;      /* seconds a fetched robots.txt is trusted (shared through Redis) */
    int64_t robots_cache;   /* origins whose rules stay in memory */
    double max_crawl_delay; /* cap on a site's Crawl-delay, seconds */
    double delay_factor;    /* adaptive delay: at least this many times the last response time */
    double max_delay;       /* cap on the adaptive delay and on back-offs, seconds */
    double max_rate;        /* pages/s this worker starts at most, 0 = no cap; the field with its
                               id in rc:ratecap overrides it at run time */
    double cpu_cores;       /* cores it counts as its own, and a cap on them; 0 = its CPUs, no cap */
    int64_t park_after;     /* consecutive connection failures before a host is parked */
    rc_strlist connect_to;
    rc_strlist resolve;    /* HOST:PORT:ADDR, curl's --resolve */
    int64_t dns_cache;     /* hosts in the fetcher's DNS cache, 0 = libcurl's */
    double dns_ttl;        /* seconds an address learnt is used */
    rc_strlist allow_net;  /* CIDRs let through the SSRF guard */
    rc_strlist allow_port; /* the only ports fetched; empty = any */
    int64_t metrics_port;  /* Prometheus endpoint: -1 off, 0 a free port (logged) */
    char *metrics_addr;    /* its address (default loopback) */
} rc_worker_conf;

typedef struct rc_worker rc_worker;

/* Registers with Redis. NULL with a message in err on failure. conf is borrowed. */
rc_worker *rc_worker_new(struct ev_loop *loop, const rc_worker_conf *conf, char *err, size_t cap);
void rc_worker_start(rc_worker *w);
/* Stops taking work; the loop ends once in-flight pages are completed (or after a grace time). */
void rc_worker_drain(rc_worker *w);
/* Deregisters (its queued URLs go back to the frontier) and frees. */
void rc_worker_free(rc_worker *w);

#endif
