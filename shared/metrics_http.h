/* metrics_http.h - serves a metrics registry (shared/metrics.h) over HTTP for Prometheus:
 * GET /metrics (any other path is 404), with Debian's libmicrohttpd.
 *
 * Threads: microhttpd answers on one thread of its own (MHD_USE_INTERNAL_POLLING_THREAD, at
 * most 16 connections, 10 s idle timeout: a scrape every few seconds needs no more); that thread
 * only calls rc_metrics_render, which takes the registry's lock for the time of one rendering.
 * The owner's loop never waits for a slow scraper. The registry must outlive the server: stop
 * the server first. */
#ifndef RC_METRICS_HTTP_H
#define RC_METRICS_HTTP_H

#include <stddef.h>

struct rc_metrics;
typedef struct rc_metrics_http rc_metrics_http;

/* Listens on addr (an IPv4 or IPv6 literal; the programs default to 127.0.0.1) and port (0 = a
 * free one, see rc_metrics_http_port). m is borrowed. NULL with a message on failure. */
rc_metrics_http *rc_metrics_http_start(struct rc_metrics *m, const char *addr, int port, char *err, size_t cap);
int rc_metrics_http_port(const rc_metrics_http *h);
void rc_metrics_http_stop(rc_metrics_http *h); /* accepts NULL; joins the server's thread */

#endif
