/* drain.h - draining a worker: an operator's request that a live worker take no new URLs
 * (take.lua) and give its hosts to the other workers (the scheduler), or the undoing of it.
 * `redcrawl drain` and redcrawl-web's POST /api/drain both call this, so they answer alike.
 * A drained worker stays registered and idle (heartbeats go on) until undone or stopped; its
 * flag (set `draining`) ends with its registration (reap.lua). */
#ifndef RC_DRAIN_H
#define RC_DRAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rc_redis;

#define RC_DRAIN_ID_MAX 200 /* a worker id: host-pid-random, maybe ".EPOCH" */

typedef enum { RC_DRAIN_SHOW, RC_DRAIN_ON, RC_DRAIN_OFF } rc_drain_mode;

/* A worker as drain.lua saw it. */
typedef struct rc_drain_state {
    bool live;             /* registered in workers */
    bool draining;         /* in the draining set */
    int64_t hosts;         /* hosts it owns */
    int64_t backlog_hosts; /* of those, hosts with queued URLs */
    int64_t inflight;      /* URLs it is fetching (leases) */
    int64_t queued;        /* URLs queued on its hosts */
} rc_drain_state;

/* Drained: draining and holding nothing (no lease, no host). */
bool rc_drain_done(const rc_drain_state *st);

/* A REST body {"worker": ID, "undo": false}: "undo" optional (default false), no other field.
 * 0 with the id copied into worker (cap >= RC_DRAIN_ID_MAX + 1) and *undo set; -EINVAL with
 * the offending field and a reason (a predicate: "must be ...") otherwise. DATA borrowed. */
int rc_drain_parse(const char *data, size_t len, char *worker, size_t cap, bool *undo, char *field, size_t fcap,
                   char *reason, size_t rcap);

/* drain.lua for WORKER: MODE on/off/show, then its state in *ret. -EINVAL for an id that is not
 * one (err says why), -ENOENT when turning on a worker that is not live (nothing changed, *ret
 * filled), -EIO when Redis did not answer or refused (maxmemory, loading ...), -EPROTO for a
 * script error. */
int rc_drain_apply(struct rc_redis *r, const char *worker, rc_drain_mode mode, rc_drain_state *ret, char *err,
                   size_t cap);

/* The answer as JSON: {"action": "drain"|"undrain"|"show", "worker", "live", "draining", "done",
 * "hosts", "backlog_hosts", "inflight", "queued", "server_time"}. malloc'd, compact. */
char *rc_drain_answer(const char *worker, rc_drain_mode mode, const rc_drain_state *st);

#endif
