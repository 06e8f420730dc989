/* worker_metrics.h - the worker's Prometheus metrics (README "Metrics" says what each means).
 *
 * Ownership: the worker's loop thread declares the families (rc_worker_metrics_new), updates
 * them (counters as things happen, gauges once per heartbeat) and frees them after the loop;
 * the HTTP server's thread (shared/metrics_http.c) only renders. Values are guarded by the
 * registry's mutex (shared/metrics.h), so neither thread ever sees a half-made update. */
#ifndef RC_WORKER_METRICS_H
#define RC_WORKER_METRICS_H

#include <stddef.h>

struct rc_metrics;
struct rc_metric;
struct rc_metrics_http;

typedef struct rc_worker_metrics {
    struct rc_metrics *reg;
    struct rc_metrics_http *http;
    struct rc_metric *pages;         /* counter{status}: pages stored (final outcome) */
    struct rc_metric *bytes;         /* counter: body bytes received, as sent (before decoding) */
    struct rc_metric *errors;        /* counter{kind}: failed attempts and stores */
    struct rc_metric *retries;       /* counter: attempts that will be retried */
    struct rc_metric *robots_denied; /* counter */
    struct rc_metric *links;         /* counter: links sent to the bloom */
    struct rc_metric *links_new;     /* counter: of them, new to the job */
    struct rc_metric *fetch_seconds; /* histogram: one transfer, redirects not followed */
    struct rc_metric *store_seconds; /* histogram: fetched to stored in every sink (sink lag) */
    struct rc_metric *in_flight;     /* gauge: leased URLs in this worker */
    struct rc_metric *slots;         /* gauge: --concurrency */
    struct rc_metric *sink_pending;  /* gauge{sink}: documents queued in an asynchronous sink */
    struct rc_metric *held;          /* gauge{what}: pages waiting for the fence or for Redis */
} rc_worker_metrics;

/* port < 0: metrics off (NULL, no error). Otherwise serves addr:port (0 = a free port) and
 * returns the families; NULL with a message in err when the server cannot start. */
rc_worker_metrics *rc_worker_metrics_new(const char *addr, int port, char *err, size_t cap);
int rc_worker_metrics_port(const rc_worker_metrics *m);
void rc_worker_metrics_free(rc_worker_metrics *m); /* stops the server first; accepts NULL */

#endif
