/* worker_metrics.c - see worker_metrics.h. */
#include "worker_metrics.h"

#include <stdlib.h>

#include "metrics.h"
#include "metrics_http.h"
#include "util.h"

static const double fetch_bounds[] = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30};
static const double store_bounds[] = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5, 30};

rc_worker_metrics *rc_worker_metrics_new(const char *addr, int port, char *err, size_t cap)
{
    if (port < 0)
        return NULL;
    rc_worker_metrics *m = rc_xcalloc(1, sizeof *m);
    rc_metrics *r = m->reg = rc_metrics_new();
    m->pages = rc_metrics_counter(r, "redcrawl_worker_pages_total",
                                  "Pages stored by this worker, by HTTP status (0: no response).", "status");
    m->bytes = rc_metrics_counter(r, "redcrawl_worker_bytes_total",
                                  "Response body bytes received, as sent (before content decoding).", NULL);
    m->errors = rc_metrics_counter(r, "redcrawl_worker_errors_total",
                                   "Failed attempts by kind: transport, blocked, limit, http_429, http_5xx, "
                                   "store, lease_lost.",
                                   "kind");
    m->retries = rc_metrics_counter(r, "redcrawl_worker_retries_total", "Attempts that will be retried.", NULL);
    m->robots_denied = rc_metrics_counter(r, "redcrawl_worker_robots_denied_total",
                                          "URLs not requested because of robots.txt, by reason: disallowed (its "
                                          "rules), unreachable (it could not be read: disallow all).",
                                          "reason");
    m->links = rc_metrics_counter(r, "redcrawl_worker_links_total",
                                  "Links sent to the job's bloom filter (after the local seen-cache).", NULL);
    m->links_new = rc_metrics_counter(r, "redcrawl_worker_links_new_total",
                                      "Links the bloom filter found new (they entered the frontier).", NULL);
    m->fetch_seconds =
        rc_metrics_histogram(r, "redcrawl_worker_fetch_seconds", "Duration of one transfer (connect to last byte).",
                             fetch_bounds, sizeof fetch_bounds / sizeof fetch_bounds[0]);
    m->store_seconds = rc_metrics_histogram(r, "redcrawl_worker_store_seconds",
                                            "From a page's processing to its storage in every sink.", store_bounds,
                                            sizeof store_bounds / sizeof store_bounds[0]);
    m->in_flight = rc_metrics_gauge(r, "redcrawl_worker_in_flight", "Leased URLs in this worker.", NULL);
    m->slots = rc_metrics_gauge(r, "redcrawl_worker_slots", "Transfers at once (--concurrency).", NULL);
    m->sink_pending = rc_metrics_gauge(r, "redcrawl_worker_sink_pending",
                                       "Documents queued in an asynchronous sink (mongo, kafka).", "sink");
    m->held = rc_metrics_gauge(r, "redcrawl_worker_held",
                               "Pages waiting: fence (for a heartbeat), redis (completes to resend).", "what");
    if (!(m->http = rc_metrics_http_start(r, addr, port, err, cap))) {
        rc_worker_metrics_free(m);
        return NULL;
    }
    return m;
}

int rc_worker_metrics_port(const rc_worker_metrics *m)
{
    return rc_metrics_http_port(m->http);
}

void rc_worker_metrics_free(rc_worker_metrics *m)
{
    if (!m)
        return;
    rc_metrics_http_stop(m->http);
    rc_metrics_free(m->reg);
    free(m);
}
