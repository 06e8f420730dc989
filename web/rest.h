/* rest.h - redcrawl-web's HTTP server: the REST API (the Kafka control requests over HTTP) and
 * the dashboard, with Debian's libmicrohttpd.
 *
 * API (deploy/openapi.yaml): POST /api/request takes any control request exactly as on Kafka;
 * POST /api/crawl, /api/info, /api/stop, /api/stats, /api/domain take one kind each and fill in
 * what a REST client should not have to invent (a "uuid" when absent, "action" for info and
 * stop). Every request goes through rc_msg_parse and rc_control_apply / rc_control_reject, as in
 * redcrawl-monitor, so the answer JSON is the one Kafka carries: 200 with it, 400 with the
 * validator's field and reason, 409 for a crawl refused (job stopped or expired), 503 when Redis
 * is unreachable. GET /api/status is the dashboard's data (shared/fleet.h). Anything else under
 * /api is 404; other paths are the dashboard's files. With --shards K a request goes through
 * rc_control_shards_handle (shared/control_shards.h) as in redcrawl-monitor, the status is every
 * shard's merged (shared/fleet_shards.h), and a drain goes to the shard the worker is in.
 *
 * Safety: POST bodies must be sent as application/json (a browser cannot send that cross-site
 * without a CORS preflight, which is never granted); without a token, the Host header must name
 * a loopback address or localhost (DNS rebinding); with a token (--token-file), every /api call
 * needs "Authorization: Bearer TOKEN".
 *
 * Threads: microhttpd answers on one thread of its own (MHD_USE_INTERNAL_POLLING_THREAD), which
 * alone uses the Redis connection and the previous snapshot (for rates): requests are served one
 * at a time, each a few Redis round trips. The main thread only starts and stops it. */
#ifndef RC_WEB_REST_H
#define RC_WEB_REST_H

#include <stddef.h>
#include <stdint.h>

typedef struct rc_web_conf {
    char *redis;
    char *prefix;
    int64_t shards;   /* shards of the keyspace (ARCHITECTURE.md "Shards"), 1: one keyspace */
    char *addr;       /* IPv4 or IPv6 literal */
    int64_t port;     /* 0 = a free one */
    char *token_file; /* required when addr is not loopback */
    char *log_level;
} rc_web_conf;

typedef struct rc_web rc_web;

/* Connects to Redis, reads the token, listens. NULL with a message on failure. C borrowed. */
rc_web *rc_web_start(const rc_web_conf *c, char *err, size_t cap);
int rc_web_port(const rc_web *w);
void rc_web_stop(rc_web *w); /* accepts NULL; joins microhttpd's thread */

/* 1 when ADDR (a literal) is in 127.0.0.0/8 or is ::1. */
int rc_web_addr_loopback(const char *addr);

#endif
