/* control_shards.h - one control request over a sharded keyspace (ARCHITECTURE.md "Shards"): a
 * crawl request goes to its seed's shard (rc_shard_of_url), which makes the job there; any other
 * request to every shard: an info or stop answered by the shards' answers merged, a domain update
 * by the last shard's, a stats request by one answer read from every shard. Each request is
 * counted once (requests:{kind}:*, in the first shard it went to). The command line's
 * embedded mode (cli/control.c) and redcrawl-monitor (scheduler/monitor.c) both call this, so a
 * request over Kafka and one applied directly do the same. K = 1 is rc_control_handle. */
#ifndef RC_CONTROL_SHARDS_H
#define RC_CONTROL_SHARDS_H

#include <stddef.h>

struct rc_redis;

/* The connection to shard I (0 .. k-1), made when asked if the caller likes. NULL with a message
 * in err. */
typedef struct rc_redis *(*rc_control_conn_fn)(void *ud, int i, char *err, size_t cap);

#define RC_CONTROL_MERGE_ACTION 1 /* an info or stop: the shards' answers merged */
#define RC_CONTROL_MERGE_STATS 2  /* a stats request: answered once, from every shard */

/* The shard a raw request goes to: a crawl request's, by its seed's host (0 when it has none or
 * cannot be parsed: it is then refused there); -1 for any other (every shard). *merge: 0, or
 * RC_CONTROL_MERGE_ACTION / _STATS as above. */
int rc_control_shard_of(const char *data, size_t len, int k, int *merge);

/* One shard's answer to an info or stop folded into the answer so far (both JSON texts; ACC may
 * be NULL; the result malloc'd, ACC freed): counts summed (each shard's is its part), domains
 * joined, the state that says most (running, then stopped or expired, then done), and "no
 * crawl" only when no shard has the job. An info of every job: each job in "crawlids" merged
 * so, listed once and counted once in total_crawlids (unless a shard's list was truncated). */
char *rc_control_merge_answer(char *acc, const char *answer);

/* rc_control_handle over K shards as above, each shard's connection from CONN. Same results as
 * rc_control_handle: the first shard that fails stops it (retrying it all is safe: every effect
 * is idempotent). */
int rc_control_shards_handle(int k, rc_control_conn_fn conn, void *ud, const char *data, size_t len, char **ret_answer,
                             char *err, size_t cap);

#endif
