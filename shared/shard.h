/* shard.h - one crawl keyspace split into K shards, each a keyspace of its own under its own hash
 * tag, so that on a Redis Cluster each lives on a master of its own (ARCHITECTURE.md "Shards").
 * A URL belongs to the shard of its host: every URL of a host, its queues, owner, leases,
 * politeness state, robots.txt rules and bloom entries live in one shard. K = 1 is the single
 * keyspace, its prefix unchanged. */
#ifndef RC_SHARD_H
#define RC_SHARD_H

#include <stddef.h>

#define RC_SHARDS_MAX 64

/* The shard (0 .. k-1) of HOST (a politeness key, host[:port]; the port does not count): XXH3-64
 * of the lower-case host modulo k, so the answer depends on nothing but the host and k. 0 when
 * k <= 1 or HOST is empty. */
int rc_shard_of_host(const char *host, int k);

/* The shard of a normalised URL, by its host. -EINVAL when the URL has no host to read. */
int rc_shard_of_url(const char *url, int k);

/* Shard I of K's key prefix into buf: BASE itself when k == 1; else BASE followed by a hash tag
 * "{sI.N}:" whose slot lies well inside the I-th K-th of the slot space, N the smallest that does:
 * a cluster of K masters made by `redis-cli --cluster create` (which splits the slots evenly in
 * that order) serves each shard from another master, and every process computes the same tags
 * with no coordination. A BASE that carries a tag already is refused when k > 1 (its keys would
 * all hash to that one tag). 0, -EINVAL (i or k out of range, tagged BASE), -ENAMETOOLONG. */
int rc_shard_prefix(const char *base, int i, int k, char *buf, size_t cap);
/* The same for a long-running process's --shard and --shards (k < 2: one keyspace), saying in
 * err what is wrong with them. */
int rc_shard_prefix_conf(const char *base, long long shard, long long shards, char *buf, size_t cap, char *err,
                         size_t errcap);

/* A sharded job's end (ARCHITECTURE.md "Shards"): read every shard's pending and arrived in
 * turn, again and again, and give each round to rc_shard_end_round. It is over when two rounds
 * in a row find pending 0 in every shard and no shard's arrived changed between them: within a
 * shard only submit.lua raises pending from 0, counting it in arrived, so every shard was 0 at
 * the instant between the two rounds, with no page in flight and no link travelling. One round
 * summing to 0 is not enough: links forwarded into a shard already read, and counted off one
 * not yet read, vanish from that sum. Embedded: zero it to begin. */
typedef struct rc_shard_end {
    int rounds;                       /* rounds read so far */
    int zero;                         /* the last round found pending 0 everywhere */
    long long arrived[RC_SHARDS_MAX]; /* the last round's */
} rc_shard_end;

/* One round of k shards' pending and arrived counts (a shard without the job reads 0, 0): 1 when
 * the job is over, 0 when not yet. */
int rc_shard_end_round(rc_shard_end *e, const long long *pending, const long long *arrived, int k);

#endif
