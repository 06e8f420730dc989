/* redis.c - see redis.h. */
#include "redis.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <hiredis/hiredis.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cluster.h"
#include "log.h"
#include "tls_relay.h"
#include "util.h"

#define MOD "redis"
#define RC_REDIS_NODES 16        /* cluster nodes remembered to ask when the one in use is gone */
#define RC_REDIS_TIMEOUT_MS 5000 /* connect, and each reply */

struct rc_redis {
    redisContext *c;
    rc_tls_relay *relay; /* rediss://: the TLS connection c talks through */
    char *url;
    char *prefix;
    rc_redis_addr addr;
    char sha[RC_LUA_COUNT][41];
    char ip[64];
    char err[320];                         /* why the last reconnect failed, "" once one succeeds */
    rc_redis_addr seed;                    /* the URL's: asked again when the node in addr is gone (cluster) */
    int cluster;                           /* a Redis Cluster: addr is the master of the keyspace's slot */
    int tagged;                            /* cluster: the prefix had no hash tag, so it got one here */
    unsigned slot;                         /* the keyspace's slot: its prefix's hash tag's */
    uint64_t moved_ms;                     /* when a reconnect last found the keyspace on another node, 0 = never */
    rc_cluster_node nodes[RC_REDIS_NODES]; /* the cluster's nodes at the last CLUSTER SLOTS */
    int n_nodes;
    int locate_ms; /* a reconnect's timeout per node it tries: connect, each reply until ready */
};

/* unix:///absolute/path.sock (or unix:/path). */
static int parse_unix_url(const char *url, rc_redis_addr *a, char *err, size_t cap)
{
    const char *p = url + (strncmp(url, "unix://", 7) == 0 ? 7 : 5);
    if (*p != '/' || strlen(p) >= sizeof a->path) {
        snprintf(err, cap, "redis URL %s: want unix:///absolute/path.sock", url);
        return -EINVAL;
    }
    snprintf(a->path, sizeof a->path, "%s", p);
    return 0;
}

/* [USER]:PASSWORD@ at H, else the environment's REDCRAWL_REDIS_PASSWORD(_FILE) and
 * REDCRAWL_REDIS_USER. The host part's start into *ret_host. */
static int parse_credentials(const char *h, rc_redis_addr *a, const char **ret_host, char *err, size_t cap)
{
    const char *at = memchr(h, '@', strcspn(h, "/"));
    *ret_host = h;
    if (!at) {
        char *pw = rc_secret_env("REDCRAWL_REDIS_PASSWORD");
        const char *user = getenv("REDCRAWL_REDIS_USER");
        if (pw)
            snprintf(a->password, sizeof a->password, "%s", pw);
        if (pw && user)
            snprintf(a->user, sizeof a->user, "%s", user);
        free(pw);
        return 0;
    }
    const char *colon = memchr(h, ':', (size_t)(at - h));
    size_t ul = colon ? (size_t)(colon - h) : 0, pl = colon ? (size_t)(at - colon - 1) : (size_t)(at - h);
    if (ul >= sizeof a->user || pl >= sizeof a->password || pl == 0) {
        snprintf(err, cap, "redis URL: credentials must be [USER]:PASSWORD@ (at most 127 and 255 bytes)");
        return -EINVAL;
    }
    memcpy(a->user, h, ul);
    memcpy(a->password, colon ? colon + 1 : h, pl);
    *ret_host = at + 1;
    return 0;
}

/* HOST[:PORT][/DB] at H; SHOWN is the URL with its password hidden, for messages. */
static int parse_host_port_db(const char *h, const char *shown, rc_redis_addr *a, char *err, size_t cap)
{
    size_t hl = strcspn(h, ":/");
    if (hl == 0 || hl >= sizeof a->host) {
        snprintf(err, cap, "redis URL %s: missing host", shown);
        return -EINVAL;
    }
    memcpy(a->host, h, hl);
    const char *p = h + hl;
    if (*p == ':') {
        char num[16];
        size_t pl = strcspn(p + 1, "/");
        int64_t port;
        if (pl == 0 || pl >= sizeof num) {
            snprintf(err, cap, "redis URL %s: bad port", shown);
            return -EINVAL;
        }
        memcpy(num, p + 1, pl);
        num[pl] = '\0';
        if (rc_parse_i64(num, 1, 65535, &port) < 0) {
            snprintf(err, cap, "redis URL %s: bad port", shown);
            return -EINVAL;
        }
        a->port = (int)port;
        p += 1 + pl;
    }
    if (*p == '/' && p[1]) {
        int64_t db;
        if (rc_parse_i64(p + 1, 0, 15, &db) < 0) {
            snprintf(err, cap, "redis URL %s: bad database number", shown);
            return -EINVAL;
        }
        a->db = (int)db;
    }
    return 0;
}

/* The TLS settings of a rediss:// address, from the environment (file names, not secrets). */
static int tls_env(rc_redis_addr *a, char *err, size_t cap)
{
    static const struct {
        const char *var;
        size_t off, size;
    } vars[] = {
        {"REDCRAWL_REDIS_CACERT", offsetof(rc_redis_addr, cacert), sizeof a->cacert},
        {"REDCRAWL_REDIS_CERT", offsetof(rc_redis_addr, cert), sizeof a->cert},
        {"REDCRAWL_REDIS_KEY", offsetof(rc_redis_addr, key), sizeof a->key},
        {"REDCRAWL_REDIS_SERVERNAME", offsetof(rc_redis_addr, servername), sizeof a->servername},
    };
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i].var);
        if (v && strlen(v) >= vars[i].size) {
            snprintf(err, cap, "%s is too long (at most %zu bytes)", vars[i].var, vars[i].size - 1);
            return -EINVAL;
        }
        snprintf((char *)a + vars[i].off, vars[i].size, "%s", v ? v : "");
    }
    return 0;
}

int rc_redis_tls_start(const rc_redis_addr *addr, int timeout_ms, rc_tls_relay **ret, char *err, size_t cap)
{
    rc_tls_opts o = {
        .host = addr->host,
        .port = addr->port,
        .cacert = addr->cacert[0] ? addr->cacert : NULL,
        .cert = addr->cert[0] ? addr->cert : NULL,
        .key = addr->key[0] ? addr->key : NULL,
        .servername = addr->servername[0] ? addr->servername : NULL,
        .timeout_ms = timeout_ms,
    };
    return rc_tls_relay_new(&o, ret, err, cap);
}

int rc_redis_parse_url(const char *url, rc_redis_addr *ret, char *err, size_t cap)
{
    rc_redis_addr a;
    memset(&a, 0, sizeof a);
    a.port = 6379;
    if (!url) {
        snprintf(err, cap, "no Redis URL: pass --redis URL or set REDCRAWL_REDIS");
        return -EINVAL;
    }
    char shown[600];
    rc_url_redact(url, shown, sizeof shown); /* the URL in messages: never its password */
    if (strncmp(url, "unix://", 7) == 0 || strncmp(url, "unix:", 5) == 0) {
        if (parse_unix_url(url, &a, err, cap) < 0)
            return -EINVAL;
        *ret = a;
        return 0;
    }
    a.tls = strncmp(url, "rediss://", 9) == 0;
    if (!a.tls && strncmp(url, "redis://", 8) != 0) {
        snprintf(err, cap, "redis URL %s: want redis://HOST:PORT[/DB], rediss://HOST:PORT[/DB] or unix:///PATH", shown);
        return -EINVAL;
    }
    if (a.tls && tls_env(&a, err, cap) < 0)
        return -EINVAL;
    const char *h;
    if (parse_credentials(url + (a.tls ? 9 : 8), &a, &h, err, cap) < 0 ||
        parse_host_port_db(h, shown, &a, err, cap) < 0)
        return -EINVAL;
    *ret = a;
    return 0;
}

/* rediss://: a new relay (the old one goes with the old context); c then connects to its
 * socket. The handshake's failure is the error, naming its cause. */
static int start_tls(rc_redis *r, int ms, char *err, size_t cap)
{
    char why[400];
    int e = rc_redis_tls_start(&r->addr, ms, &r->relay, why, sizeof why);
    if (e == 0)
        e = rc_tls_relay_wait(r->relay, ms + 1000, why, sizeof why);
    if (e < 0)
        snprintf(err, cap, "cannot connect to Redis at %s: %s%s", r->url, why,
                 e == -EPROTO         ? " (REDCRAWL_REDIS_CACERT names the CA file, REDCRAWL_REDIS_SERVERNAME the name)"
                 : e == -ECONNREFUSED ? " (is redis-server running with --tls-port? see scripts/services.sh)"
                                      : "");
    return e;
}

/* A Redis Cluster refuses SELECT: it has database 0 only. */
static int select_db(rc_redis *r, char *err, size_t cap)
{
    redisReply *rep = redisCommand(r->c, "SELECT %d", r->addr.db);
    int bad = !rep || rep->type == REDIS_REPLY_ERROR;
    if (bad)
        snprintf(err, cap, "Redis at %s: SELECT %d failed: %s%s", r->url, r->addr.db, rep ? rep->str : r->c->errstr,
                 rep && strstr(rep->str, "cluster")
                     ? " (a Redis Cluster has database 0 only: drop the /DB from the URL)"
                     : "");
    if (rep)
        freeReplyObject(rep);
    return bad ? -EIO : 0;
}

/* Connects to addr, authenticates and selects the database: no scripts yet. MS bounds the
 * connect and each reply (the caller restores the usual reply timeout once ready). */
static int open_node(rc_redis *r, int ms, char *err, size_t cap)
{
    struct timeval tv = {ms / 1000, ms % 1000 * 1000};
    if (r->c)
        redisFree(r->c);
    r->c = NULL;
    rc_tls_relay_free(r->relay);
    r->relay = NULL;
    if (r->addr.tls) {
        int e = start_tls(r, ms, err, cap);
        if (e < 0)
            return e;
    }
    const char *path = r->relay ? rc_tls_relay_path(r->relay) : r->addr.path;
    r->c = path[0] ? redisConnectUnixWithTimeout(path, tv) : redisConnectWithTimeout(r->addr.host, r->addr.port, tv);
    if (!r->c || r->c->err) {
        char node[300] = "";
        if (r->cluster)
            snprintf(node, sizeof node, " (cluster node %s:%d)", r->addr.host, r->addr.port);
        snprintf(err, cap, "cannot connect to Redis at %s%s: %s (is redis-server running? see scripts/services.sh)",
                 r->url, node, r->c ? r->c->errstr : "out of memory");
        return -ECONNREFUSED;
    }
    rc_fd_cloexec(r->c->fd);
    redisSetTimeout(r->c, tv);
    int ar = rc_redis_auth(r->c, &r->addr, err, cap);
    if (ar < 0)
        return ar;
    return r->addr.db ? select_db(r, err, cap) : 0;
}

static int load_scripts(rc_redis *r, char *err, size_t cap)
{
    for (int i = 0; i < RC_LUA_COUNT; i++) {
        redisReply *rep = redisCommand(r->c, "SCRIPT LOAD %s", rc_lua_scripts[i].source);
        if (!rep || rep->type != REDIS_REPLY_STRING || rep->len != 40) {
            snprintf(err, cap, "Redis at %s: loading script %s failed: %s", r->url, rc_lua_scripts[i].name,
                     rep && rep->type == REDIS_REPLY_ERROR ? rep->str : "no reply");
            if (rep)
                freeReplyObject(rep);
            return -EIO;
        }
        memcpy(r->sha[i], rep->str, 41);
        freeReplyObject(rep);
    }
    return 0;
}

/* The nodes a CLUSTER SLOTS reply names (an unknown host: the node asked), kept unless the
 * reply is unreadable. */
static void remember_nodes(rc_redis *r, const redisReply *slots)
{
    rc_cluster_node n[RC_REDIS_NODES];
    int k = rc_cluster_nodes(slots, n, RC_REDIS_NODES);
    if (k <= 0)
        return;
    for (int i = 0; i < k; i++)
        if (!n[i].host[0])
            snprintf(n[i].host, sizeof n[i].host, "%s", r->addr.host);
    memcpy(r->nodes, n, sizeof n[0] * (size_t)k);
    r->n_nodes = k;
}

/* Cluster: asks the connected node which master serves the keyspace's slot and moves the
 * connection there (host "" in the answer: the node asked). */
static int locate_master(rc_redis *r, int ms, char *err, size_t cap)
{
    char host[sizeof r->addr.host];
    int port = 0;
    redisReply *rep = redisCommand(r->c, "CLUSTER SLOTS");
    int e = rc_cluster_slot_master(rep, r->slot, host, sizeof host, &port);
    remember_nodes(r, rep);
    if (rep)
        freeReplyObject(rep);
    if (e < 0) {
        snprintf(err, cap, "Redis Cluster at %s: %s", r->url,
                 e == -ENOENT ? "no master serves the keyspace's slot (cluster_state not ok?)"
                              : "unreadable CLUSTER SLOTS reply");
        return e == -ENOENT ? -EAGAIN : -EPROTO;
    }
    if ((!host[0] || strcmp(host, r->addr.host) == 0) && port == r->addr.port)
        return 0;
    if (host[0])
        snprintf(r->addr.host, sizeof r->addr.host, "%s", host);
    r->addr.port = port;
    return open_node(r, ms, err, cap);
}

/* Connects with MS as the connect and reply timeout until the scripts are loaded; the commands
 * that follow wait the usual RC_REDIS_TIMEOUT_MS. */
static int do_connect(rc_redis *r, int ms, char *err, size_t cap)
{
    struct timeval tv = {RC_REDIS_TIMEOUT_MS / 1000, 0};
    int e = open_node(r, ms, err, cap);
    if (e == 0 && r->cluster)
        e = locate_master(r, ms, err, cap);
    if (e == 0)
        e = load_scripts(r, err, cap);
    if (e == 0 && ms != RC_REDIS_TIMEOUT_MS)
        redisSetTimeout(r->c, tv);
    return e;
}

/* Whether the server is a cluster node; if so the prefix gets a hash tag (rc_redis_say_tag
 * says which); the caller then moves the connection to the master of its slot. */
static int detect_cluster(rc_redis *r, char *err, size_t cap)
{
    redisReply *rep = redisCommand(r->c, "INFO cluster");
    r->cluster = rep && rep->type == REDIS_REPLY_STRING && rc_cluster_enabled(rep->str);
    if (rep)
        freeReplyObject(rep);
    if (!r->cluster)
        return 0;
    if (r->addr.path[0]) {
        snprintf(err, cap,
                 "Redis at %s is a cluster: reach it by redis:// or rediss:// (its nodes announce TCP addresses)",
                 r->url);
        return -EINVAL;
    }
    char tagged[256];
    int w = rc_cluster_tag_prefix(r->prefix, tagged, sizeof tagged);
    if (w < 0) {
        snprintf(err, cap, "prefix %s is too long for a cluster hash tag", r->prefix);
        return -EINVAL;
    }
    r->tagged = w;
    free(r->prefix);
    r->prefix = rc_xstrdup(tagged);
    r->slot = rc_cluster_keyslot(tagged, strlen(tagged));
    return 0;
}

int rc_redis_auth(redisContext *c, const rc_redis_addr *addr, char *err, size_t cap)
{
    if (!addr->password[0])
        return 0;
    redisReply *rep = addr->user[0] ? redisCommand(c, "AUTH %s %s", addr->user, addr->password)
                                    : redisCommand(c, "AUTH %s", addr->password);
    int bad = !rep || rep->type == REDIS_REPLY_ERROR;
    if (bad)
        snprintf(err, cap,
                 "Redis refused the credentials%s%s: %s (check the URL's [USER]:PASSWORD@ or "
                 "REDCRAWL_REDIS_PASSWORD[_FILE])",
                 addr->user[0] ? " of user " : "", addr->user, rep ? rep->str : c->errstr);
    if (rep)
        freeReplyObject(rep);
    return bad ? -EACCES : 0;
}

rc_redis *rc_redis_new(const char *url, const char *prefix, char *err, size_t cap)
{
    rc_redis *r = rc_xcalloc(1, sizeof *r);
    char shown[600];
    if (rc_redis_parse_url(url, &r->seed, err, cap) < 0) {
        rc_redis_free(r);
        return NULL;
    }
    rc_url_redact(url, shown, sizeof shown);
    r->url = rc_xstrdup(shown); /* for messages: the password never leaves rc_redis_addr */
    r->prefix = rc_xstrdup(prefix ? prefix : RC_DEFAULT_PREFIX);
    r->locate_ms = RC_REDIS_TIMEOUT_MS;
    if (rc_redis_parse_url(url, &r->addr, err, cap) < 0 || open_node(r, RC_REDIS_TIMEOUT_MS, err, cap) < 0 ||
        detect_cluster(r, err, cap) < 0 || (r->cluster && locate_master(r, RC_REDIS_TIMEOUT_MS, err, cap) < 0) ||
        load_scripts(r, err, cap) < 0) {
        rc_redis_free(r);
        return NULL;
    }
    return r;
}

void rc_redis_free(rc_redis *r)
{
    if (!r)
        return;
    if (r->c)
        redisFree(r->c);
    rc_tls_relay_free(r->relay);
    free(r->url);
    free(r->prefix);
    free(r);
}

const char *rc_redis_prefix(const rc_redis *r)
{
    return r->prefix;
}

const char *rc_redis_url(const rc_redis *r)
{
    return r->url;
}

int rc_redis_cluster(const rc_redis *r)
{
    return r->cluster;
}

void rc_redis_say_tag(const rc_redis *r)
{
    if (r->cluster && r->tagged) /* "{P}": the prefix given was P */
        rc_info(MOD, "Redis Cluster: keys under the hash tag %s (prefix %.*s has none; redis-cli -c finds them)",
                r->prefix, (int)strlen(r->prefix) - 2, r->prefix + 1);
}

const rc_redis_addr *rc_redis_node(const rc_redis *r)
{
    return &r->addr;
}

const char *rc_redis_sha(const rc_redis *r, rc_lua_id id)
{
    return r->sha[id];
}

static int same_node(const rc_cluster_node *n, const char *host, int port)
{
    return n->port == port && strcmp(n->host, host) == 0;
}

/* Cluster: connects through the URL's node, else through each node the cluster named last
 * (each asked once, the URL's and the failed one not again), until one says where the
 * keyspace's master is and that master answers. When none does, addr stays the failed node's:
 * the last known place, not whichever node was tried last. */
static int connect_via_others(rc_redis *r, const char *failed_host, int failed_port)
{
    rc_cluster_node ask[RC_REDIS_NODES + 1] = {{.port = r->seed.port}};
    int n = r->n_nodes, e = -ECONNREFUSED;
    snprintf(ask[0].host, sizeof ask[0].host, "%s", r->seed.host);
    memcpy(ask + 1, r->nodes, sizeof ask[0] * (size_t)n); /* a copy: each connect renews r->nodes */
    for (int i = 0; i <= n && e < 0; i++) {
        if (same_node(&ask[i], failed_host, failed_port) || (i > 0 && same_node(&ask[i], ask[0].host, ask[0].port)))
            continue;
        _Static_assert(sizeof r->addr.host == sizeof ask[i].host, "host fields differ");
        memcpy(r->addr.host, ask[i].host, sizeof r->addr.host);
        r->addr.port = ask[i].port;
        e = do_connect(r, r->locate_ms, r->err, sizeof r->err);
    }
    if (e < 0) {
        snprintf(r->addr.host, sizeof r->addr.host, "%s", failed_host);
        r->addr.port = failed_port;
    }
    return e;
}

/* On a cluster the node in addr may be gone (a failover): then the others are asked where the
 * keyspace's master is now. */
static int reconnect(rc_redis *r)
{
    char host[sizeof r->addr.host];
    int port = r->addr.port;
    snprintf(host, sizeof host, "%s", r->addr.host);
    int e = do_connect(r, r->locate_ms, r->err, sizeof r->err);
    if (e < 0 && r->cluster)
        e = connect_via_others(r, host, port);
    if (e == 0)
        r->err[0] = '\0';
    if (e == 0 && (strcmp(host, r->addr.host) != 0 || port != r->addr.port))
        r->moved_ms = rc_now_ms();
    return e;
}

uint64_t rc_redis_moved_ms(const rc_redis *r)
{
    return r->moved_ms;
}

const char *rc_redis_error(const rc_redis *r)
{
    return r->err;
}

int rc_redis_follow(rc_redis *r, const char *err)
{
    char host[sizeof r->addr.host];
    int port;
    unsigned slot;
    if (!r->cluster || rc_cluster_parse_moved(err, &slot, host, sizeof host, &port) < 0 || slot != r->slot)
        return 0;
    rc_info(MOD, "the keyspace moved (%s): following it", err);
    if (host[0])
        snprintf(r->addr.host, sizeof r->addr.host, "%s", host);
    r->addr.port = port;
    if (reconnect(r) < 0)
        return -EIO;
    r->moved_ms = rc_now_ms();
    return 1;
}

void rc_redis_set_locate_timeout(rc_redis *r, int ms)
{
    r->locate_ms = ms > 0 ? ms : RC_REDIS_TIMEOUT_MS;
}

int rc_redis_relocate(rc_redis *r)
{
    return r->cluster ? reconnect(r) : 0;
}

typedef redisReply *(*send_fn)(redisContext *c, void *ud);

/* Sends with fn; after a lost connection reconnects once and sends again; after a MOVED of
 * the keyspace (a failover) follows it and sends again, a few hops at most. */
static redisReply *send_cmd(rc_redis *r, send_fn fn, void *ud)
{
    int reconnected = 0;
    for (int hop = 0; hop < 4; hop++) {
        /* No context at all when the last reconnect failed before hiredis (TLS). */
        redisReply *rep = r->c ? fn(r->c, ud) : NULL;
        if (!rep) {
            if (reconnected++ || reconnect(r) < 0)
                return NULL;
            continue;
        }
        if (rep->type != REDIS_REPLY_ERROR || !rc_cluster_is_moved(rep->str))
            return rep;
        int f = rc_redis_follow(r, rep->str);
        if (f == 0)
            return rep; /* a key outside the keyspace: the caller's error */
        freeReplyObject(rep);
        if (f < 0)
            return NULL;
    }
    return NULL;
}

static redisReply *send_argv(redisContext *c, void *ud)
{
    const rc_argv *a = ud;
    return redisCommandArgv(c, a->n, (const char **)a->v, a->len);
}

redisReply *rc_redis_cmdv(rc_redis *r, const rc_argv *a)
{
    return send_cmd(r, send_argv, (void *)a);
}

struct fmt_call {
    const char *fmt;
    va_list ap;
};

static redisReply *send_fmt(redisContext *c, void *ud)
{
    struct fmt_call *f = ud;
    va_list ap;
    va_copy(ap, f->ap); /* each send reads the arguments afresh */
    redisReply *rep = redisvCommand(c, f->fmt, ap);
    va_end(ap);
    return rep;
}

redisReply *rc_redis_cmd(rc_redis *r, const char *fmt, ...)
{
    struct fmt_call f = {.fmt = fmt};
    va_start(f.ap, fmt);
    redisReply *rep = send_cmd(r, send_fmt, &f);
    va_end(f.ap);
    return rep;
}

/* EVALSHA sha 1 prefix prefix now args: the prefix is declared as the script's key, so a
 * cluster node that does not serve the keyspace answers MOVED instead of running it. */
redisReply *rc_redis_eval(rc_redis *r, rc_lua_id id, uint64_t now_ms, const rc_argv *args)
{
    rc_lua_require(id, args->n);
    rc_argv a;
    rc_argv_init(&a);
    rc_argv_add(&a, "EVALSHA");
    rc_argv_add(&a, r->sha[id]);
    rc_argv_add(&a, "1");
    rc_argv_add(&a, r->prefix);
    rc_argv_add(&a, r->prefix);
    rc_argv_addu(&a, now_ms);
    for (int i = 0; i < args->n; i++)
        rc_argv_addn(&a, args->v[i], args->len[i]);
    redisReply *rep = rc_redis_cmdv(r, &a);
    /* NOSCRIPT: Redis restarted without our scripts; reload them (reconnect does) and retry. */
    if (rep && rep->type == REDIS_REPLY_ERROR && strncmp(rep->str, "NOSCRIPT", 8) == 0) {
        freeReplyObject(rep);
        rep = reconnect(r) == 0 ? rc_redis_cmdv(r, &a) : NULL;
    }
    rc_argv_release(&a);
    return rep;
}

const char *rc_redis_key(const rc_redis *r, char *buf, size_t cap, const char *fmt, ...)
{
    int n = snprintf(buf, cap, "%s", r->prefix);
    va_list ap;
    va_start(ap, fmt);
    if (n >= 0 && (size_t)n < cap)
        vsnprintf(buf + n, cap - (size_t)n, fmt, ap);
    va_end(ap);
    return buf;
}

int64_t rc_reply_int(const redisReply *rep, int64_t def)
{
    if (!rep)
        return def;
    if (rep->type == REDIS_REPLY_INTEGER)
        return rep->integer;
    if (rep->type == REDIS_REPLY_STRING) {
        int64_t v;
        if (rc_parse_i64(rep->str, INT64_MIN, INT64_MAX, &v) == 0)
            return v;
        char *end;
        double d = strtod(rep->str, &end);
        if (*end == '\0')
            return (int64_t)d;
    }
    return def;
}

const char *rc_redis_local_ip(rc_redis *r)
{
    struct sockaddr_storage ss;
    socklen_t len = sizeof ss;
    snprintf(r->ip, sizeof r->ip, "local");
    if (r->relay && rc_tls_relay_local_ip(r->relay)[0])
        snprintf(r->ip, sizeof r->ip, "%s", rc_tls_relay_local_ip(r->relay));
    else if (r->c && getsockname(r->c->fd, (struct sockaddr *)&ss, &len) == 0) {
        if (ss.ss_family == AF_INET)
            inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, r->ip, sizeof r->ip);
        else if (ss.ss_family == AF_INET6)
            inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr, r->ip, sizeof r->ip);
    }
    return r->ip;
}

int rc_redis_refusal(const char *err)
{
    static const char *const codes[] = {"OOM ",     "BUSY ",     "LOADING ",    "READONLY ",   "MASTERDOWN ",
                                        "MISCONF ", "TRYAGAIN ", "NOREPLICAS ", "CLUSTERDOWN "};
    for (size_t i = 0; err && i < sizeof codes / sizeof codes[0]; i++)
        if (strncmp(err, codes[i], strlen(codes[i])) == 0)
            return 1;
    return 0;
}

void rc_redis_parse_run_id(const char *info, char *buf, size_t cap)
{
    const char *p = info ? strstr(info, "run_id:") : NULL;
    size_t n = 0;
    if (p) {
        p += 7;
        while (p[n] && p[n] != '\r' && p[n] != '\n')
            n++;
    }
    snprintf(buf, cap, "%.*s", (int)n, p ? p : "");
}

int rc_redis_run_id(rc_redis *r, char *buf, size_t cap)
{
    redisReply *rep = rc_redis_cmd(r, "INFO server");
    int ok = rep && rep->type == REDIS_REPLY_STRING;
    if (ok)
        rc_redis_parse_run_id(rep->str, buf, cap);
    if (rep)
        freeReplyObject(rep);
    return ok && buf[0] ? 0 : -EIO;
}

/* The value of "name:" at a line start of an INFO text into buf; 0, or -ENOENT. */
static int info_field(const char *info, const char *name, char *buf, size_t cap)
{
    size_t n = strlen(name);
    for (const char *p = info; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
        if (strncmp(p, name, n) == 0 && p[n] == ':') {
            size_t len = strcspn(p + n + 1, "\r\n");
            snprintf(buf, cap, "%.*s", (int)len, p + n + 1);
            return 0;
        }
    }
    return -ENOENT;
}

int rc_redis_parse_memory_full(const char *info, char *buf, size_t cap)
{
    char used[32], max[32], policy[32];
    if (!info || info_field(info, "used_memory", used, sizeof used) < 0 ||
        info_field(info, "maxmemory", max, sizeof max) < 0 ||
        info_field(info, "maxmemory_policy", policy, sizeof policy) < 0)
        return -EINVAL;
    unsigned long long u = strtoull(used, NULL, 10), m = strtoull(max, NULL, 10);
    if (m == 0 || u < m || strcmp(policy, "noeviction") != 0)
        return 0;
    snprintf(buf, cap, "OOM used_memory %.1f MB over maxmemory %.1f MB (noeviction)", (double)u / 1048576.0,
             (double)m / 1048576.0);
    return 1;
}

int rc_redis_memory_full(rc_redis *r, char *buf, size_t cap)
{
    redisReply *rep = rc_redis_cmd(r, "INFO memory");
    int full = rep && rep->type == REDIS_REPLY_STRING ? rc_redis_parse_memory_full(rep->str, buf, cap) : -EIO;
    if (rep)
        freeReplyObject(rep);
    return full;
}
