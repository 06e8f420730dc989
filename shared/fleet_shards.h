/* fleet_shards.h - one fleet snapshot (fleet.h) of a sharded keyspace (ARCHITECTURE.md "Shards"),
 * made of every shard's: what `redcrawl status --shards K` draws. Each worker is listed with its
 * "shard"; a job once, its counts summed over the shards it is in (each shard's hash counts its
 * part), its state the one that says most (running, then stopped or expired, then done), its
 * bloom's bits and URLs summed; the busiest hosts of every shard, the top TOP of them; the HTTP
 * statuses, backlog and Redis memory summed (on one plain Redis holding every shard, its memory
 * is counted once per shard). "scheduler" names each shard's leading scheduler ("-" for none),
 * and "shards" lists each one's: [{"shard", "scheduler", "redis"}]. */
#ifndef RC_FLEET_SHARDS_H
#define RC_FLEET_SHARDS_H

#include <stdint.h>

struct json_t;

/* Folds shard I's snapshot SNAP (borrowed) into ACC (NULL for the first: a new snapshot is
 * returned; else ACC, changed). TOP: the busiest hosts kept. */
struct json_t *rc_fleet_merge_shard(struct json_t *acc, const struct json_t *snap, int i, int64_t top);

#endif
