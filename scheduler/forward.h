/* forward.h - a sharded keyspace's links on their way to their shard (ARCHITECTURE.md
 * "Shards"). The links a worker of this shard found on hosts another shard holds wait in this
 * shard's outbox for it (out:{t}, complete.lua), counted in the job's pending here. The shard's
 * leading scheduler puts them into their shard through submit.lua (the bloom there decides what
 * is new; the job is made there from this shard's spec when these are its first URLs there),
 * then takes them off here with forward.lua, which counts them off the job's pending here: up
 * there before down here, so a job's pending summed over its shards never passes 0 while links
 * travel. Stopped there between the two, they are forwarded again, and the bloom drops them. */
#ifndef RC_FORWARD_H
#define RC_FORWARD_H

#include <stddef.h>
#include <stdint.h>

struct rc_redis;
typedef struct rc_forward rc_forward;

/* For shard SHARD of SHARDS under the base prefix BASE at the Redis URL: one connection per
 * other shard, made now. OWN (this shard's connection) is borrowed for the lifetime. NULL with a
 * message in err when a shard cannot be reached. */
rc_forward *rc_forward_new(const char *url, const char *base, int shard, int shards, struct rc_redis *own, char *err,
                           size_t cap);

/* Forwards up to MAX lines of each outbox. The lines forwarded, or -1 when some shard could not
 * take them now: they stay in the outbox (said once until it works again) for the next call. */
int64_t rc_forward_run(rc_forward *f, int64_t max);

/* The connection to shard SHARD (this shard's own for its number). */
struct rc_redis *rc_forward_conn(rc_forward *f, int shard);

void rc_forward_free(rc_forward *f);

#endif
