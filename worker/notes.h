/* notes.h - the worker's writes to Redis that nobody waits for: a job's counters (HINCRBY
 * duplicates, unchanged, store_errors, store_failed) and a parked host (ZADD parked). Each is
 * sent on the connection when there is one; it is held, and sent again once a connection is up
 * (every second while any is held), when it is known not to have run: there was no connection,
 * it was queued on a connection that never came up, or Redis answered MOVED (a cluster's
 * failover) or refused for now (OOM, CLUSTERDOWN, READONLY, ...: rc_redis_refusal). One lost
 * with its connection after it went out is not sent again: it may have run, and a counter
 * counts at most once. */
#ifndef RC_NOTES_H
#define RC_NOTES_H

struct ev_loop;
struct redisAsyncContext;

#define RC_NOTES_MAX 10000 /* held at most; past that a new one is dropped, and said once */

typedef struct rc_notes rc_notes;

/* loop is borrowed (the retry timer runs on it). */
rc_notes *rc_notes_new(struct ev_loop *loop);
/* Held notes are dropped. Call after the connection is freed (its callbacks reach the notes). */
void rc_notes_free(rc_notes *n);
/* The Redis connection to use (borrowed), or NULL while there is none. */
void rc_notes_set_redis(rc_notes *n, struct redisAsyncContext *ac);
/* Sends one command, hiredis format (rc_notes_send(n, "HINCRBY %s %s 1", key, field)). */
void rc_notes_send(rc_notes *n, const char *fmt, ...);

#endif
