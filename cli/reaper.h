/* reaper.h - `redcrawl crawl` looks after its workers' registrations: the work of a worker
 * process that died goes back at once, and a worker that stopped beating is found.
 *
 * The scheduler reaps a worker whose heartbeats stop for --worker-timeout, which cannot tell a
 * dead worker from a stalled one; the crawl, being the parent, knows from waitpid which one died
 * and reaps it (reap.lua, as the scheduler would) the moment it does. So the crawl's scheduler can
 * wait long for heartbeats: a worker stalled for seconds keeps its pages instead of having them
 * fetched a second time by another, and a dead one's hosts and pages move on at once.
 *
 * A process' registrations are this host's "HOST-PID-..." ids (its first, and any it registered
 * under after being reaped) whose worker hash names its pid. */
#ifndef RC_CLI_REAPER_H
#define RC_CLI_REAPER_H

#include <stdint.h>
#include <sys/types.h>

#include "redis.h"

/* Reaps every registration of process pid and nudges the scheduler to give the hosts new
 * owners. The number reaped (0: it never registered), or -1 on a Redis error (in err). *urls:
 * queued and in-flight URLs handed back. */
int rc_reap_process(rc_redis *r, pid_t pid, int max_attempts, int64_t *urls, char *err, size_t cap);

/* Reaps the registrations left by processes that are gone: every one when all (a private
 * Redis whose crawl died: none of its workers runs), else this host's whose pid is no process.
 * The number reaped, or -1 on a Redis error (in err); *urls as above. */
int rc_reap_stale(rc_redis *r, int all, int max_attempts, int64_t *urls, char *err, size_t cap);

/* Whether a process id of a worker or a scheduler ("HOST-PID-...") is this host's and its process
 * is gone (or a zombie). */
int rc_reaper_id_gone(const char *id);

/* Frees the scheduler's leader lock when a process of this host that is gone holds it (a crawl
 * killed before it could give it back): 1 when it did. */
int rc_reap_stale_lock(rc_redis *r);

/* The number of registrations process pid holds (0: none, or reaped), or -1 on a Redis error
 * (in err). */
int rc_reaper_registered(rc_redis *r, pid_t pid, char *err, size_t cap);

#endif
