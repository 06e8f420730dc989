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

/* A parsed Redis address: redis://[[USER]:PASSWORD@]HOST:PORT[/DB] or unix:///PATH (unix:PATH).
 * Without a password in the URL, REDCRAWL_REDIS_PASSWORD_FILE (its first line) or
 * REDCRAWL_REDIS_PASSWORD gives it (and REDCRAWL_REDIS_USER an ACL user): then AUTH. */
typedef struct rc_redis_addr {
    char host[256];
    int port;
    char path[512];
    int db;
    char user[128];     /* ACL user, "" = default */
    char password[256]; /* "" = no AUTH */
} rc_redis_addr;

/* Sends AUTH when addr has a password: synchronously on c. 0, or -EACCES with a message. */
struct redisContext;
int rc_redis_auth(struct redisContext *c, const rc_redis_addr *addr, char *err, size_t cap);

/* -EINVAL with a message in err when the URL is not one of the forms above. Messages and
 * rc_redis_url() show the URL with its password replaced by "***". */
int rc_redis_parse_url(const char *url, rc_redis_addr *ret, char *err, size_t errcap);

typedef struct rc_redis rc_redis;

/* Connects and loads every script. NULL with a message in err on failure. */
rc_redis *rc_redis_new(const char *url, const char *prefix, char *err, size_t errcap);
void rc_redis_free(rc_redis *r);
const char *rc_redis_prefix(const rc_redis *r);
const char *rc_redis_url(const rc_redis *r);
/* The SHA1 of a loaded script (hex, 40 chars). */
const char *rc_redis_sha(const rc_redis *r, rc_lua_id id);

/* Runs a command; returns the reply (freeReplyObject it) or NULL on a connection error, after
 * one reconnect attempt. Error replies are returned as replies. */
struct redisReply *rc_redis_cmd(rc_redis *r, const char *fmt, ...);
struct redisReply *rc_redis_cmdv(rc_redis *r, const rc_argv *args);
/* Runs script id with ARGV = prefix, now_ms, then args. NULL on connection error. */
struct redisReply *rc_redis_eval(rc_redis *r, rc_lua_id id, uint64_t now_ms, const rc_argv *args);
/* Formats a key under the prefix into buf: rc_redis_key(r, buf, cap, "job:%s", id). */
const char *rc_redis_key(const rc_redis *r, char *buf, size_t cap, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* The local address of the connection ("127.0.0.1", or "local" over a unix socket): the
 * worker's ip for per-ip throttles. Borrowed, valid until the next call. */
const char *rc_redis_local_ip(rc_redis *r);

/* 1 when err (an error reply) is Redis refusing for now rather than a script failing: OOM
 * (at maxmemory), BUSY, LOADING, READONLY, MASTERDOWN, MISCONF, TRYAGAIN, NOREPLICAS. The
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
