/* cluster.h - what redcrawl needs to run its keyspace on a Redis Cluster: every key of a
 * deployment carries one hash tag (the prefix's), so the whole keyspace is one slot on one
 * master and every script's keys share that slot; this module names the tag, computes its slot,
 * finds the master serving it in a CLUSTER SLOTS reply and reads where a MOVED error points.
 * Parsing only: the connections that use it are redis.c's, the worker's and wake.c's.
 *
 * One tag per keyspace is the first phase; shards later are several tagged keyspaces ("{rc:0}",
 * "{rc:1}", ...) with the hosts partitioned over them, each found by the same functions. */
#ifndef RC_CLUSTER_H
#define RC_CLUSTER_H

#include <stddef.h>

struct redisReply;

#define RC_CLUSTER_SLOTS 16384

/* 1 when KEY carries a hash tag as Redis reads one: a '{', then a '}' later with at least one
 * byte between (only the first '{' counts). */
int rc_cluster_has_tag(const char *key, size_t len);

/* The prefix a cluster keyspace uses into buf: PREFIX as given when it carries a tag, else
 * PREFIX wrapped as one ("rc:" -> "{rc:}"). 1 when wrapped, 0 as given, -ENAMETOOLONG. */
int rc_cluster_tag_prefix(const char *prefix, char *buf, size_t cap);

/* The slot of KEY (CLUSTER KEYSLOT): CRC16 of its tag, or of the whole key without one. */
unsigned rc_cluster_keyslot(const char *key, size_t len);

/* 1 when an INFO (cluster) text says cluster_enabled:1, else 0. */
int rc_cluster_enabled(const char *info);

/* The master serving SLOT in a CLUSTER SLOTS reply into host/port. host is "" when the node
 * does not know its own address (an empty or "?" endpoint): then it is the node asked.
 * 0, -ENOENT when no range covers the slot (not assigned), -EPROTO for an unreadable reply. */
int rc_cluster_slot_master(const struct redisReply *slots, unsigned slot, char *host, size_t cap, int *port);

typedef struct rc_cluster_node {
    char host[256]; /* "" = the node asked */
    int port;
} rc_cluster_node;

/* Every node a CLUSTER SLOTS reply names, masters and replicas, each once, into out (at most
 * max): where to ask again when the node in use is gone. How many, or -EPROTO. */
int rc_cluster_nodes(const struct redisReply *slots, rc_cluster_node *out, int max);

/* 1 when ERR is a MOVED error reply (the key's slot is served elsewhere). */
int rc_cluster_is_moved(const char *err);

/* Where "MOVED <slot> <host>:<port>" points (host "" when the reply leaves it out: the node
 * asked). 0, or -EINVAL when ERR is not such a reply. */
int rc_cluster_parse_moved(const char *err, unsigned *slot, char *host, size_t cap, int *port);

#endif
