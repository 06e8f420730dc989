/* sched_metrics.c - see sched_metrics.h. */
#include "sched_metrics.h"

#include <stdlib.h>

#include "metrics.h"
#include "util.h"

static const double round_bounds[] = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1};

rc_sched_metrics *rc_sched_metrics_new(void)
{
    rc_sched_metrics *m = rc_xcalloc(1, sizeof *m);
    rc_metrics *r = m->reg = rc_metrics_new();
    m->leader = rc_metrics_gauge(r, "redcrawl_scheduler_leader", "1 while this scheduler holds the leader lock.", NULL);
    m->workers =
        rc_metrics_gauge(r, "redcrawl_scheduler_workers", "Live workers (heartbeat within the timeout).", NULL);
    m->frontier = rc_metrics_gauge(r, "redcrawl_scheduler_frontier", "URLs in the frontier, not yet dispatched.", NULL);
    m->queued = rc_metrics_gauge(r, "redcrawl_scheduler_queued", "URLs queued on a worker.", "worker");
    m->domains = rc_metrics_gauge(r, "redcrawl_scheduler_domains", "Hosts a worker owns.", "worker");
    m->rate = rc_metrics_gauge(r, "redcrawl_scheduler_worker_rate", "A worker's pages per second lately.", "worker");
    m->dispatched = rc_metrics_counter(r, "redcrawl_scheduler_dispatched_total", "URLs handed to workers.", NULL);
    m->dropped = rc_metrics_counter(r, "redcrawl_scheduler_dropped_total",
                                    "Frontier URLs dropped (stopped job, expired, too deep, blacklisted).", NULL);
    m->reclaimed = rc_metrics_counter(r, "redcrawl_scheduler_reclaimed_total",
                                      "URLs sent back to the frontier: expired (a lease ran out), reaped (its "
                                      "worker died: queued and in flight).",
                                      "reason");
    m->reaped = rc_metrics_counter(r, "redcrawl_scheduler_workers_reaped_total",
                                   "Workers removed after missing heartbeats.", NULL);
    m->moved = rc_metrics_counter(r, "redcrawl_scheduler_hosts_moved_total",
                                  "Hosts moved between workers by rebalancing.", NULL);
    m->round_seconds = rc_metrics_histogram(r, "redcrawl_scheduler_round_seconds",
                                            "One dispatch round that handed out or dropped something.", round_bounds,
                                            sizeof round_bounds / sizeof round_bounds[0]);
    return m;
}

void rc_sched_metrics_free(rc_sched_metrics *m)
{
    if (!m)
        return;
    rc_metrics_free(m->reg);
    free(m);
}
