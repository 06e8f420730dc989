/* fleet.h - the fleet read from Redis alone (no daemon is asked), as JSON: what `redcrawl
 * status` draws and the web dashboard (web/) shows. Synchronous client; every function reads
 * only and tolerates missing keys (an empty fleet is an empty snapshot).
 *
 * A snapshot: {"time_ms", "scheduler" (lock holder or null), "workers": [{id, host, ip, pid,
 * weight, slots, domains, queued, inflight, fetched, errors, pages_per_s, per_minute,
 * heartbeat_age_s, draining (drain.h; weight 0 then)}], "jobs": [{crawlid, appid, state, pending, fetched, items,
 * errors, failed, robots_denied, robots_unreachable, created_ms, finished_ms, bloom: {bits, bits_set, filters, k,
 * groups, urls, fill, est_fp} or null}], "hosts": {examined, total_backlog, top: [{host, worker, backlog, state,
 * due_in_s, rate}]} (hosts.lua), "redis": {used_memory, peak_memory, maxmemory, frontier}, "statuses":
 * {"1m"|"1h"|"1d"|"total": {status: pages}}}. */
#ifndef RC_FLEET_H
#define RC_FLEET_H

#include <stdint.h>

struct json_t;
struct rc_redis;

/* One snapshot; TOP busiest hosts. New reference. */
struct json_t *rc_fleet_snapshot(struct rc_redis *r, int64_t top);

/* Rates from the previous snapshot (NULL: none yet): a worker's pages_per_s from its fetched
 * counter, each job's "pages_per_s" from its own (its average since created without PREV). */
void rc_fleet_add_rates(struct json_t *cur, const struct json_t *prev);

/* Pages fetched per minute over the last MINUTES minutes, all spiders and statuses, from the
 * rolling counters pages:{spiderid}:{status}: [{"minute": unix minute, "pages": n}], oldest
 * first, the current (partial) minute last. New reference. */
struct json_t *rc_fleet_throughput(struct rc_redis *r, uint64_t now_ms, int minutes);

/* The N most recent permanent failures (the failed zset): [{"time_ms", "url", "crawlid",
 * "reason", "attempts"}], newest first. New reference. */
struct json_t *rc_fleet_failures(struct rc_redis *r, int n);

#endif
