/* wake.h - pub/sub nudges: a component sleeping between polls is woken the moment there is
 * work for it (the scheduler when seeds arrive, a worker when hosts are assigned to it), so a
 * request into an idle fleet waits for neither the scheduler's tick nor the worker's take poll.
 * A nudge carries no data and may be lost (a reconnect, a slow subscriber): the pollers stay,
 * as the fallback that keeps correctness; the nudge only cuts latency.
 *
 * Threads: everything runs on the caller's libev loop. */
#ifndef RC_WAKE_H
#define RC_WAKE_H

#include <stddef.h>

#include "redis.h"

struct ev_loop;
typedef struct rc_wake rc_wake;
typedef void (*rc_wake_fn)(void *ud);

/* Subscribes to CHANNEL (the full name, prefix included: pub/sub ignores the database) on a
 * connection of its own, reconnecting every second while Redis is away; fn(ud) runs on each
 * message. NULL with a message in err when addr cannot be used at all. */
rc_wake *rc_wake_new(struct ev_loop *loop, const rc_redis_addr *addr, const char *channel, rc_wake_fn fn, void *ud,
                     char *err, size_t cap);
/* Listens on CHANNEL instead (a worker's id changes when it registers again). */
void rc_wake_follow(rc_wake *wk, const char *channel);
/* Subscribes at ADDR from now on (a Redis Cluster's keyspace moved to another node): the
 * connection to the old one closes. Nothing when the host and port are the same. NULL wk is
 * fine. Any node of a cluster would do (PUBLISH reaches every node); following the keyspace
 * keeps the subscriber off nodes that are gone. */
void rc_wake_retarget(rc_wake *wk, const rc_redis_addr *addr);
/* NULL is fine. */
void rc_wake_free(rc_wake *wk);

#endif
