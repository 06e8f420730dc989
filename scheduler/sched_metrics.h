/* sched_metrics.h - the scheduler's Prometheus metrics (README "Metrics" says what each means).
 *
 * Ownership: redcrawl-scheduler's main declares the families, serves reg (shared/metrics_http.c,
 * whose thread only renders, under the registry's mutex) and frees them after the loop; the
 * scheduler's loop updates them (counters as dispatch, reaping and lease expiry happen; gauges at
 * each once-a-second refresh, by the leader only: a standby shows leader 0 and its last values).
 * Serving is the program's, not the scheduler's: the one inside `redcrawl crawl` has no
 * metrics, and that program does not link the HTTP server (libmicrohttpd and its TLS stack). */
#ifndef RC_SCHED_METRICS_H
#define RC_SCHED_METRICS_H

#include <stddef.h>

struct rc_metrics;
struct rc_metric;

typedef struct rc_sched_metrics {
    struct rc_metrics *reg;
    struct rc_metric *leader;        /* gauge: 1 while this process holds the leader lock */
    struct rc_metric *workers;       /* gauge: live workers */
    struct rc_metric *frontier;      /* gauge: URLs in the frontier, not yet dispatched */
    struct rc_metric *queued;        /* gauge{worker}: URLs queued on a worker */
    struct rc_metric *domains;       /* gauge{worker}: hosts a worker owns */
    struct rc_metric *rate;          /* gauge{worker}: pages/s lately */
    struct rc_metric *dispatched;    /* counter: URLs handed to workers */
    struct rc_metric *dropped;       /* counter: frontier URLs dropped (stopped job, too deep, ...) */
    struct rc_metric *reclaimed;     /* counter{reason}: URLs back to the frontier: expired, reaped */
    struct rc_metric *reaped;        /* counter: workers reaped (heartbeat timeout) */
    struct rc_metric *moved;         /* counter: hosts moved between workers (rebalancing) */
    struct rc_metric *round_seconds; /* histogram: one dispatch round (read, decide, assign.lua) */
} rc_sched_metrics;

/* The families, in a registry of their own (reg). */
rc_sched_metrics *rc_sched_metrics_new(void);
void rc_sched_metrics_free(rc_sched_metrics *m);

#endif
