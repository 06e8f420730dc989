/* robots_cache.h - robots.txt for a worker: one entry per origin (scheme://host[:port]), read
 * from Redis (robots:{origin}, shared by the fleet with a TTL) or, when no worker has it yet,
 * fetched once (RFC 9309: 2xx parsed, 4xx allow all, 5xx or unreachable disallow all for ten
 * minutes, redirects followed) and stored there for the others. Parsed once per worker, and
 * kept for the max_entries origins used last: a worker that meets millions of hosts holds no
 * more (a dropped origin is read from Redis again when it comes back). */
#ifndef RC_ROBOTS_CACHE_H
#define RC_ROBOTS_CACHE_H

struct rc_fetcher;
struct rc_robots;
struct redisAsyncContext;

#include <stddef.h>

typedef struct rc_robots_cache rc_robots_cache;

#define RC_ROBOTS_CACHE_DEFAULT 20000 /* origins kept: a few MB of rules at most for most sites */

/* rules: borrowed for the call; NULL when they could not be loaded (Redis went away: ask again
 * later). just_fetched: this worker fetched robots.txt itself, i.e. it just hit the host. */
typedef void (*rc_robots_cache_cb)(void *ud, const struct rc_robots *rules, int just_fetched);

/* fetcher is borrowed; prefix, agent (the User-Agent, whose product token picks the group)
 * are copied; ttl_s: how long a fetched robots.txt is shared; max_entries: origins kept (0 =
 * RC_ROBOTS_CACHE_DEFAULT; one being loaded is never dropped, so a burst may pass it briefly). */
rc_robots_cache *rc_robots_cache_new(struct rc_fetcher *fetcher, const char *prefix, const char *agent, double ttl_s,
                                     size_t max_entries);
void rc_robots_cache_free(rc_robots_cache *c);
/* The Redis connection to use, or NULL while there is none. */
void rc_robots_cache_set_redis(rc_robots_cache *c, struct redisAsyncContext *ac);
/* Fresh rules of origin at once (borrowed until the next call into the cache), or NULL: then cb
 * runs exactly once, from the loop, or before get returns when there is no Redis connection. */
const struct rc_robots *rc_robots_cache_get(rc_robots_cache *c, const char *origin, rc_robots_cache_cb cb, void *ud);
/* The rules of origin if loaded, without loading them (for Crawl-delay); NULL otherwise.
 * Borrowed like get's: a later call may drop them. */
const struct rc_robots *rc_robots_cache_peek(rc_robots_cache *c, const char *origin);

/* The origin's rules when they are loaded and not yet due to be read again, else NULL: what a
 * fetch would be checked against now, without asking Redis. */
const struct rc_robots *rc_robots_cache_fresh(rc_robots_cache *c, const char *origin);

/* Batching (on): the Redis reads and writes of a get (GET robots:{origin}, and the SET after a
 * fetch) wait for rc_robots_cache_flush, which sends the reads as one MGET and the writes
 * pipelined, so that they ride in the same write as the owner's own next call and their
 * answers come back with its answer: no round trip, and no wake-up of the loop, of their own
 * (a new host's GET was one each). The owner must flush before the loop waits for anything
 * they could hold up. Turning it off flushes. Off by default. */
void rc_robots_cache_batch(rc_robots_cache *c, int on);
/* Sends what batching holds; a load without a connection gets its callback with NULL rules
 * (from here), a SET without one is dropped. */
void rc_robots_cache_flush(rc_robots_cache *c);
/* 1 when batching holds anything to send. */
int rc_robots_cache_held(const rc_robots_cache *c);

/* Origins held now. */
size_t rc_robots_cache_count(const rc_robots_cache *c);

#endif
