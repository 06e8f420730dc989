/* redis.h - the synchronous Redis client used by the scheduler and the command line:
 * connects by URL, loads the Lua scripts and runs them by SHA (reloading after a Redis restart).
 * The worker uses hiredis' async API on its libev loop instead (worker/frontier.c). */
#ifndef RC_REDIS_H
#define RC_REDIS_H

#include <stddef.h>
#include <stdint.h>

#include "argv.h"
#include "scripts.h"

struct redisContext;
struct redisReply;

#define RC_DEFAULT_PREFIX "rc:"

/* A parsed Redis address: redis://[[USER]:PASSWORD@]HOST:PORT[/DB], the same with rediss://
 * for TLS, or unix:///PATH (unix:PATH). Without a password in the URL,
 * REDCRAWL_REDIS_PASSWORD_FILE (its first line) or REDCRAWL_REDIS_PASSWORD gives it (and
 * REDCRAWL_REDIS_USER an ACL user): then AUTH. With rediss://, REDCRAWL_REDIS_CACERT names the
 * CA file (default the system's), REDCRAWL_REDIS_CERT and REDCRAWL_REDIS_KEY a client
 * certificate and its key, REDCRAWL_REDIS_SERVERNAME the name the server's certificate must
 * carry (default HOST). */
typedef struct rc_redis_addr {
    char host[256];
    int port;
    char path[512];
    int db;
    char user[128];     /* ACL user, "" = default */
    char password[256]; /* "" = no AUTH */
    int tls;            /* rediss:// */
    char cacert[512];   /* "" = the system's CAs */
    char cert[512];     /* "" = no client certificate */
    char key[512];
    char servername[256]; /* "" = host */
} rc_redis_addr;

struct rc_tls_relay;
/* For a rediss:// address: starts a TLS relay to it (shared/tls_relay.h), whose unix socket
 * the hiredis context then connects to. 0, or negative errno with a message in err. */
int rc_redis_tls_start(const rc_redis_addr *addr, int timeout_ms, struct rc_tls_relay **ret, char *err, size_t cap);

/* Sends AUTH when addr has a password: synchronously on c. 0, or -EACCES with a message. */
struct redisContext;
int rc_redis_auth(struct redisContext *c, const rc_redis_addr *addr, char *err, size_t cap);

/* -EINVAL with a message in err when the URL is not one of the forms above. Messages and
 * rc_redis_url() show the URL with its password replaced by "***". */
int rc_redis_parse_url(const char *url, rc_redis_addr *ret, char *err, size_t errcap);

typedef struct rc_redis rc_redis;

/* Connects and loads every script. NULL with a message in err on failure. On a Redis Cluster
 * (INFO cluster_enabled:1) the prefix gets a hash tag unless it has one ("rc:" -> "{rc:}",
 * shared/cluster.h), so the whole keyspace is one slot, and the connection goes to the master
 * serving that slot; a MOVED of it (a failover) is followed, and a lost node makes the URL's
 * node be asked again. */
rc_redis *rc_redis_new(const char *url, const char *prefix, char *err, size_t errcap);
void rc_redis_free(rc_redis *r);
const char *rc_redis_prefix(const rc_redis *r);
const char *rc_redis_url(const rc_redis *r);
/* 1 when the server is a Redis Cluster. */
int rc_redis_cluster(const rc_redis *r);
/* Cluster, when the prefix got its hash tag from rc_redis_new: says at info which tag the keys
 * are under. rc_redis_new itself says nothing: a long-running process (scheduler, worker,
 * monitor, web) calls this once at its start; a one-shot command (redcrawl status, submit)
 * stays quiet on every call. */
void rc_redis_say_tag(const rc_redis *r);
/* The address of the node the connection talks to: the URL's, or on a cluster the keyspace's
 * master (with the URL's credentials and TLS settings). Borrowed; changes on a failover. */
const rc_redis_addr *rc_redis_node(const rc_redis *r);
/* Cluster: ERR from another connection (the worker's async one) is a MOVED of the keyspace's
 * slot: reconnects to where it points (scripts loaded there). 1 followed, 0 not such a MOVED
 * (or no cluster), -EIO when that node cannot be reached now. */
int rc_redis_follow(rc_redis *r, const char *err);
/* Cluster: connects again to the keyspace's master, asking where it is now (the URL's node
 * when the current one is gone). 0 (at once without a cluster), or negative errno. */
int rc_redis_relocate(rc_redis *r);
/* The timeout of each node a reconnect tries (rc_redis_relocate, rc_redis_follow, a lost
 * connection): its connect and each reply until the scripts are loaded there, after which
 * commands wait the usual 5 s. A node that does not answer (hung, its packets dropped) then
 * costs MS, not 5 s per connect and reply: for a caller on an event loop (the worker). MS <= 0:
 * the default, 5 s. rc_redis_new's first connect always allows 5 s. */
void rc_redis_set_locate_timeout(rc_redis *r, int ms);
/* When (rc_now_ms) a reconnect last found the keyspace on another node than before: a
 * cluster's failover, which held every write (heartbeats too) meanwhile, and after which the
 * run_id differs without anything lost. 0 = never. */
uint64_t rc_redis_moved_ms(const rc_redis *r);
/* The SHA1 of a loaded script (hex, 40 chars). */
const char *rc_redis_sha(const rc_redis *r, rc_lua_id id);

/* Runs a command; returns the reply (freeReplyObject it) or NULL on a connection error, after
 * one reconnect attempt. Error replies are returned as replies. */
struct redisReply *rc_redis_cmd(rc_redis *r, const char *fmt, ...);
struct redisReply *rc_redis_cmdv(rc_redis *r, const rc_argv *args);
/* Why the last reconnect failed ("cannot connect to Redis at ...: Connection refused"), for the
 * message of a NULL reply; "" when none has failed since one succeeded. Borrowed. */
const char *rc_redis_error(const rc_redis *r);
/* Runs script id with KEYS[1] = prefix and ARGV = prefix, now_ms, then args. NULL on
 * connection error. */
struct redisReply *rc_redis_eval(rc_redis *r, rc_lua_id id, uint64_t now_ms, const rc_argv *args);
/* Formats a key under the prefix into buf: rc_redis_key(r, buf, cap, "job:%s", id). */
const char *rc_redis_key(const rc_redis *r, char *buf, size_t cap, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* The local address of the connection ("127.0.0.1", or "local" over a unix socket; over TLS
 * the relay's TCP connection's): the
 * worker's ip for per-ip throttles. Borrowed, valid until the next call. */
const char *rc_redis_local_ip(rc_redis *r);

/* 1 when err (an error reply) is Redis refusing for now rather than a script failing: OOM
 * (at maxmemory), BUSY, LOADING, READONLY, MASTERDOWN, MISCONF, TRYAGAIN, NOREPLICAS,
 * CLUSTERDOWN (a cluster in a failover). The
 * caller holds its work and retries; it does not drop it. */
int rc_redis_refusal(const char *err);
/* The run_id line of an INFO server text into buf ("" when absent). A new run_id means Redis
 * restarted: without persistence its data is gone. */
void rc_redis_parse_run_id(const char *info, char *buf, size_t cap);
/* INFO server's run_id of the connected Redis into buf; -EIO when it cannot be read. */
int rc_redis_run_id(rc_redis *r, char *buf, size_t cap);

/* Whether an INFO memory text shows Redis refusing writes for memory: maxmemory set,
 * used_memory at or over it and the policy noeviction (other policies evict instead). Writes
 * why into buf ("OOM used_memory ... over maxmemory ... (noeviction)") when it does. Returns
 * 1 full, 0 not, -EINVAL when the text lacks the fields. */
int rc_redis_parse_memory_full(const char *info, char *buf, size_t cap);
/* The same, asked of the connected Redis (INFO memory); -EIO when it cannot be read. */
int rc_redis_memory_full(rc_redis *r, char *buf, size_t cap);

/* Reply helpers: integer value of an integer or numeric string reply, else def. */
int64_t rc_reply_int(const struct redisReply *rep, int64_t def);

#endif
