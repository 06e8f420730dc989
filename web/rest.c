/* rest.c - see rest.h. */
#include "rest.h"

#include <arpa/inet.h>
#include <errno.h>
#include <hiredis/hiredis.h>
#include <jansson.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>

#include "assets.h"
#include "control.h"
#include "control_shards.h"
#include "drain.h"
#include "fleet.h"
#include "fleet_shards.h"
#include "json.h"
#include "log.h"
#include "msg.h"
#include "redis.h"
#include "shard.h"
#include "util.h"

#define TOKEN_MAX 256
#define STATUS_TOP 15      /* busiest hosts on the dashboard */
#define STATUS_MINUTES 60  /* throughput chart */
#define STATUS_FAILURES 20 /* recent failures */
#define RATE_MIN_MS 1000   /* rates over at least this long */

struct rc_web {
    struct MHD_Daemon *d;
    rc_redis *r;                     /* shard 0's; microhttpd's thread only */
    rc_redis *shards[RC_SHARDS_MAX]; /* every shard's (--shards K; one: r) */
    int nshards;
    json_t *prev;          /* previous snapshot, for rates; microhttpd's thread only */
    char token[TOKEN_MAX]; /* "" = none */
    int port;
};

/* One connection's request body, gathered across microhttpd's calls. */
typedef struct body {
    rc_buf b;
    size_t seen; /* bytes received, kept past the limit so an oversized body is refused as such */
} body;

/* The typed endpoints; kind -1 = any (/api/request). */
typedef struct route {
    const char *path;
    int kind;
    const char *action; /* info / stop: set when absent, must match when present */
} route;

static const route routes[] = {
    {"/api/request", -1, NULL},           {"/api/crawl", RC_MSG_CRAWL, NULL}, {"/api/info", RC_MSG_ACTION, "info"},
    {"/api/stop", RC_MSG_ACTION, "stop"}, {"/api/stats", RC_MSG_STATS, NULL}, {"/api/domain", RC_MSG_DOMAIN, NULL},
};

int rc_web_addr_loopback(const char *addr)
{
    struct in_addr a4;
    struct in6_addr a6;
    if (inet_pton(AF_INET, addr, &a4) == 1)
        return (ntohl(a4.s_addr) >> 24) == 127;
    return inet_pton(AF_INET6, addr, &a6) == 1 && IN6_IS_ADDR_LOOPBACK(&a6);
}

/* ---------- answering ---------- */

static enum MHD_Result reply(struct MHD_Connection *c, unsigned code, char *text, const char *type)
{
    size_t len = strlen(text);
    struct MHD_Response *r = MHD_create_response_from_buffer(len, text, MHD_RESPMEM_MUST_FREE);
    if (!r) {
        free(text);
        return MHD_NO;
    }
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
    MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
    if (code == MHD_HTTP_UNAUTHORIZED)
        MHD_add_response_header(r, MHD_HTTP_HEADER_WWW_AUTHENTICATE, "Bearer");
    enum MHD_Result ret = MHD_queue_response(c, code, r);
    MHD_destroy_response(r);
    return ret;
}

static enum MHD_Result reply_json(struct MHD_Connection *c, unsigned code, char *json)
{
    return reply(c, code, json, "application/json");
}

/* An error of the web layer itself (not a request's validation): {"error": WHY}. */
static enum MHD_Result reply_error(struct MHD_Connection *c, unsigned code, const char *why)
{
    json_t *o = json_pack("{s:s}", "error", why);
    char *text = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    return reply_json(c, code, text);
}

static enum MHD_Result reply_static(struct MHD_Connection *c, const char *url)
{
    for (const rc_web_asset *a = rc_web_assets; a->path; a++) {
        if (strcmp(a->path, url) != 0)
            continue;
        struct MHD_Response *r = MHD_create_response_from_buffer(a->len, (void *)a->data, MHD_RESPMEM_PERSISTENT);
        if (!r)
            return MHD_NO;
        MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, a->type);
        MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-cache");
        MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
        MHD_add_response_header(r, "Content-Security-Policy", "default-src 'self'");
        enum MHD_Result ret = MHD_queue_response(c, MHD_HTTP_OK, r);
        MHD_destroy_response(r);
        return ret;
    }
    return reply(c, MHD_HTTP_NOT_FOUND, rc_xstrdup("not found\n"), "text/plain");
}

/* ---------- guarding ---------- */

static bool token_ok(const rc_web *w, struct MHD_Connection *c)
{
    const char *h = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
    if (!h || strncmp(h, "Bearer ", 7) != 0)
        return false;
    h += 7;
    size_t n = strlen(w->token);
    if (strlen(h) != n)
        return false;
    unsigned char diff = 0; /* constant time: no early exit on the first wrong byte */
    for (size_t i = 0; i < n; i++)
        diff |= (unsigned char)(h[i] ^ w->token[i]);
    return diff == 0;
}

/* Host: 127.x.x.x, [::1] or localhost, with or without a port. */
static bool host_loopback(const char *host)
{
    char h[128];
    if (!host || strlen(host) >= sizeof h)
        return false;
    snprintf(h, sizeof h, "%s", host);
    if (h[0] == '[') {
        char *end = strchr(h, ']');
        if (!end)
            return false;
        *end = '\0';
        return rc_web_addr_loopback(h + 1);
    }
    char *colon = strchr(h, ':');
    if (colon)
        *colon = '\0';
    return strcmp(h, "localhost") == 0 || rc_web_addr_loopback(h);
}

/* ---------- the control requests ---------- */

/* The body a typed endpoint validates: BODY with "uuid" added when absent and, for info and
 * stop, "action" when absent; malloc'd. NULL when the body is to be validated as it came (the
 * generic endpoint, or not a JSON object: the validator refuses it as it would on Kafka). */
static char *complete_body(const route *rt, const char *data, size_t len)
{
    json_t *o = rt->kind < 0 || len > RC_MSG_MAX_BYTES ? NULL : json_loadb(data, len, JSON_REJECT_DUPLICATES, NULL);
    if (!json_is_object(o)) {
        json_decref(o);
        return NULL;
    }
    if (!json_object_get(o, "uuid")) {
        unsigned char b[16];
        char id[33];
        if (getrandom(b, sizeof b, 0) != (ssize_t)sizeof b) {
            uint64_t t = rc_now_us();
            for (size_t i = 0; i < sizeof b; i++)
                b[i] = (unsigned char)(t >> ((i % 8) * 8)) ^ (unsigned char)(i * 37);
        }
        for (size_t i = 0; i < sizeof b; i++)
            snprintf(id + 2 * i, 3, "%02x", b[i]);
        json_object_set_new(o, "uuid", json_string(id));
    }
    if (rt->action && !json_object_get(o, "action"))
        json_object_set_new(o, "action", json_string(rt->action));
    char *text = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    return text;
}

/* A request of another kind sent to a typed endpoint: refused like a validation error. */
static bool wrong_kind(const route *rt, bool known, rc_msg_kind kind, const rc_msg *m, rc_msg_error *e)
{
    if (rt->kind < 0 || !known)
        return false;
    bool bad = (int)kind != rt->kind || (m && rt->action && strcmp(rc_msg_action_name(m->action), rt->action) != 0);
    if (!bad)
        return false;
    const char *name = m && kind == RC_MSG_ACTION ? rc_msg_action_name(m->action) : rc_msg_kind_name(kind);
    snprintf(e->field, sizeof e->field, "(root)");
    snprintf(e->reason, sizeof e->reason, "this is %s %s request; %s takes %s requests only (any kind: /api/request)",
             strchr("aeiou", name[0]) ? "an" : "a", name, rt->path,
             rt->action ? rt->action : rc_msg_kind_name((rc_msg_kind)rt->kind));
    return true;
}

/* An answer refusing the request as invalid (it names the field), as a crawl whose rules do not
 * compile is: a validation failure found past the validator. */
static bool invalid(const char *answer)
{
    json_t *a = json_loads(answer, 0, NULL);
    bool r = json_is_string(json_object_get(a, "field")) && json_is_string(json_object_get(a, "reason"));
    json_decref(a);
    return r;
}

/* A crawl answered "status": "refused" (its job was stopped or has expired). */
static bool refused(const char *answer)
{
    json_t *a = json_loads(answer, 0, NULL);
    const char *st = json_string_value(json_object_get(a, "status"));
    bool r = st && strcmp(st, "refused") == 0;
    json_decref(a);
    return r;
}

static rc_redis *shard_conn(void *ud, int i, char *err, size_t cap)
{
    rc_web *w = ud;
    return w->shards[i];
}

static enum MHD_Result control(rc_web *w, struct MHD_Connection *c, const route *rt, const body *bd)
{
    /* An oversized body was kept to RC_MSG_MAX_BYTES + 1 bytes only, but its whole length is
     * passed: rc_msg_parse refuses any message over RC_MSG_MAX_BYTES unread, naming its size,
     * as on Kafka. */
    const char *data = bd->b.ptr ? bd->b.ptr : "";
    size_t len = bd->seen;
    char *text = complete_body(rt, data, len);
    if (text) {
        data = text;
        len = strlen(text);
    }
    rc_msg m;
    rc_msg_error e;
    char err[512], *answer = NULL;
    int res;
    unsigned code = MHD_HTTP_OK;
    memset(&e, 0, sizeof e);
    if (rc_msg_parse(data, len, &m, &e) < 0) {
        wrong_kind(rt, e.kind_known, e.kind, NULL, &e);
        res = rc_control_reject(w->r, &e, &answer, err, sizeof err);
        code = MHD_HTTP_BAD_REQUEST;
    } else {
        e.kind_known = true;
        e.kind = m.kind;
        snprintf(e.uuid, sizeof e.uuid, "%s", m.uuid);
        snprintf(e.appid, sizeof e.appid, "%s", m.appid);
        snprintf(e.crawlid, sizeof e.crawlid, "%s", m.crawlid);
        if (wrong_kind(rt, true, m.kind, &m, &e)) {
            res = rc_control_reject(w->r, &e, &answer, err, sizeof err);
            code = MHD_HTTP_BAD_REQUEST;
        } else {
            res = rc_control_shards_handle(w->nshards, shard_conn, w, data, len, &answer, err, sizeof err);
        }
        rc_msg_release(&m);
    }
    if (res == -EIO) {
        free(text);
        return reply_error(c, MHD_HTTP_SERVICE_UNAVAILABLE, err);
    }
    if (res < 0) {
        rc_error("web", "%s %s: %s", "POST", rt->path, err);
        answer = rc_control_failure_answer(data, text ? len : bd->b.len, err); /* only the bytes kept */
        code = MHD_HTTP_INTERNAL_SERVER_ERROR;
    }
    free(text);
    if (!answer) /* a crawl without a uuid (/api/request): Kafka answers nothing either */
        return reply_json(c, MHD_HTTP_ACCEPTED, rc_xstrdup("{\"status\":\"accepted\"}"));
    if (code == MHD_HTTP_OK && invalid(answer))
        code = MHD_HTTP_BAD_REQUEST;
    else if (code == MHD_HTTP_OK && refused(answer))
        code = MHD_HTTP_CONFLICT;
    return reply_json(c, code, answer);
}

/* POST /api/drain {"worker": ID, "undo": false}: shared/drain.h. 200 with the worker's state,
 * 400 for a body that is not a drain request, 404 for a worker that is not live. */
static enum MHD_Result drain(rc_web *w, struct MHD_Connection *c, const body *bd)
{
    char id[RC_DRAIN_ID_MAX + 1], field[128], reason[384], err[512];
    bool undo = false;
    if (bd->seen > RC_MSG_MAX_BYTES || rc_drain_parse(bd->b.ptr ? bd->b.ptr : "", bd->b.len, id, sizeof id, &undo,
                                                      field, sizeof field, reason, sizeof reason) < 0) {
        if (bd->seen > RC_MSG_MAX_BYTES) {
            snprintf(field, sizeof field, "(root)");
            snprintf(reason, sizeof reason, "the body is over %d bytes", RC_MSG_MAX_BYTES);
        }
        json_t *o =
            json_pack("{s:s, s:s, s:s, s:I}", "error", strcmp(field, "(root)") == 0 ? reason : "invalid drain request",
                      "field", field, "reason", reason, "server_time", (json_int_t)time(NULL));
        if (strcmp(field, "(root)") != 0) {
            char *text = rc_xasprintf("invalid drain request: %s %s", field, reason);
            json_object_set_new(o, "error", json_string(text));
            free(text);
        }
        char *text = json_dumps(o, JSON_COMPACT);
        json_decref(o);
        return reply_json(c, MHD_HTTP_BAD_REQUEST, text);
    }
    rc_drain_state st;
    rc_drain_mode mode = undo ? RC_DRAIN_OFF : RC_DRAIN_ON;
    int res = -ENOENT; /* a worker is registered in its shard only */
    for (int i = 0; i < w->nshards && res == -ENOENT; i++)
        res = rc_drain_apply(w->shards[i], id, mode, &st, err, sizeof err);
    if (res == -EIO)
        return reply_error(c, MHD_HTTP_SERVICE_UNAVAILABLE, err);
    if (res == -ENOENT)
        return reply_error(c, MHD_HTTP_NOT_FOUND, err);
    if (res < 0) {
        rc_error("web", "POST /api/drain: %s", err);
        return reply_error(c, MHD_HTTP_INTERNAL_SERVER_ERROR, err);
    }
    return reply_json(c, MHD_HTTP_OK, rc_drain_answer(id, mode, &st));
}

/* ---------- the dashboard's data ---------- */

static int by_time_desc(const json_t *a, const json_t *b)
{
    json_int_t x = json_integer_value(json_object_get(a, "time_ms"));
    json_int_t y = json_integer_value(json_object_get(b, "time_ms"));
    return x < y ? 1 : x > y ? -1 : 0;
}

/* The snapshot, throughput and failures: the keyspace's, or every shard's merged
 * (shared/fleet_shards.h; pages per minute summed, the newest failures of all). */
static json_t *snapshot(rc_web *w)
{
    json_t *cur = NULL, *thr = NULL, *fails = json_array();
    uint64_t now = rc_now_ms();
    for (int i = 0; i < w->nshards; i++) {
        json_t *one = rc_fleet_snapshot(w->shards[i], STATUS_TOP);
        cur = w->nshards == 1 ? json_incref(one) : rc_fleet_merge_shard(cur, one, i, STATUS_TOP);
        json_decref(one);
        json_t *t = rc_fleet_throughput(w->shards[i], now, STATUS_MINUTES);
        for (size_t k = 0; thr && k < json_array_size(t) && k < json_array_size(thr); k++) {
            json_t *mine = json_array_get(thr, k);
            json_int_t n = json_integer_value(json_object_get(json_array_get(t, k), "pages"));
            json_object_set_new(mine, "pages", json_integer(json_integer_value(json_object_get(mine, "pages")) + n));
        }
        if (!thr)
            thr = json_incref(t);
        json_decref(t);
        json_t *f = rc_fleet_failures(w->shards[i], STATUS_FAILURES);
        json_array_extend(fails, f);
        json_decref(f);
    }
    rc_json_array_top(fails, by_time_desc, STATUS_FAILURES);
    json_object_set_new(cur, "throughput", thr);
    json_object_set_new(cur, "failures", fails);
    return cur;
}

static enum MHD_Result status(rc_web *w, struct MHD_Connection *c)
{
    /* The snapshot reads tolerate missing keys, so an unreachable Redis would look like an
     * empty fleet: ask first. */
    redisReply *ping = rc_redis_cmd(w->r, "PING");
    if (!ping)
        return reply_error(c, MHD_HTTP_SERVICE_UNAVAILABLE, "Redis is unreachable");
    freeReplyObject(ping);
    json_t *cur = snapshot(w);
    int64_t now = json_integer_value(json_object_get(cur, "time_ms"));
    int64_t then = w->prev ? json_integer_value(json_object_get(w->prev, "time_ms")) : 0;
    rc_fleet_add_rates(cur, w->prev);
    if (!w->prev || now - then >= RATE_MIN_MS) {
        json_decref(w->prev);
        w->prev = json_deep_copy(cur);
    }
    char *text = json_dumps(cur, JSON_COMPACT);
    json_decref(cur);
    return reply_json(c, MHD_HTTP_OK, text);
}

/* ---------- microhttpd's callbacks (its thread) ---------- */

/* Why a request to a POST endpoint is refused before its body is read (and the status in *code),
 * or NULL. */
static const char *not_json_post(struct MHD_Connection *c, const char *method, unsigned *code)
{
    const char *type = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_TYPE);
    *code = strcmp(method, "POST") != 0                               ? MHD_HTTP_METHOD_NOT_ALLOWED
            : !type || strncasecmp(type, "application/json", 16) != 0 ? MHD_HTTP_UNSUPPORTED_MEDIA_TYPE
                                                                      : 0;
    return *code == MHD_HTTP_METHOD_NOT_ALLOWED       ? "POST only"
           : *code == MHD_HTTP_UNSUPPORTED_MEDIA_TYPE ? "send the request as Content-Type: application/json"
                                                      : NULL;
}

static enum MHD_Result api(rc_web *w, struct MHD_Connection *c, const char *url, const char *method, const body *bd)
{
    if (w->token[0] && !token_ok(w, c))
        return reply_error(c, MHD_HTTP_UNAUTHORIZED, "missing or wrong bearer token (Authorization: Bearer TOKEN)");
    if (strcmp(url, "/api/status") == 0) {
        if (strcmp(method, "GET") != 0)
            return reply_error(c, MHD_HTTP_METHOD_NOT_ALLOWED, "GET only");
        return status(w, c);
    }
    unsigned code;
    const char *why;
    if (strcmp(url, "/api/drain") == 0)
        return (why = not_json_post(c, method, &code)) ? reply_error(c, code, why) : drain(w, c, bd);
    for (size_t i = 0; i < RC_ARRAY_LEN(routes); i++) {
        if (strcmp(url, routes[i].path) != 0)
            continue;
        if ((why = not_json_post(c, method, &code)))
            return reply_error(c, code, why);
        return control(w, c, &routes[i], bd);
    }
    return reply_error(c, MHD_HTTP_NOT_FOUND, "no such endpoint (see deploy/openapi.yaml)");
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                                  const char *version, const char *upload_data, size_t *upload_data_size,
                                  void **con_cls)
{
    rc_web *w = cls;
    body *bd = *con_cls;
    if (!bd) { /* the headers: the body, if any, comes in the next calls */
        bd = rc_xcalloc(1, sizeof *bd);
        rc_buf_init(&bd->b);
        *con_cls = bd;
        return MHD_YES;
    }
    if (*upload_data_size) {
        size_t room = bd->seen <= RC_MSG_MAX_BYTES ? RC_MSG_MAX_BYTES + 1 - bd->seen : 0;
        rc_buf_append(&bd->b, upload_data, RC_MIN(room, *upload_data_size));
        bd->seen += *upload_data_size;
        *upload_data_size = 0;
        return MHD_YES;
    }
    if (!w->token[0] && !host_loopback(MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_HOST)))
        return reply_error(c, MHD_HTTP_FORBIDDEN, "the Host header must name a loopback address");
    if (strncmp(url, "/api/", 5) == 0 || strcmp(url, "/api") == 0)
        return api(w, c, url, method, bd);
    if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
        return reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, rc_xstrdup("GET only\n"), "text/plain");
    return reply_static(c, url);
}

static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls, enum MHD_RequestTerminationCode toe)
{
    body *bd = *con_cls;
    if (!bd)
        return;
    rc_buf_release(&bd->b);
    free(bd);
    *con_cls = NULL;
}

/* ---------- start, stop ---------- */

static int read_token(const char *path, char *buf, size_t cap, char *err, size_t errcap)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errcap, "--token-file %s: %s", path, strerror(errno));
        return -errno;
    }
    if (!fgets(buf, (int)cap, f))
        buf[0] = '\0';
    fclose(f);
    buf[strcspn(buf, "\r\n")] = '\0';
    for (const char *p = buf; *p; p++) {
        if (*p <= ' ' || *p > '~') {
            snprintf(err, errcap, "--token-file %s: the token must be printable ASCII without spaces", path);
            return -EINVAL;
        }
    }
    if (strlen(buf) < 16) {
        snprintf(err, errcap, "--token-file %s: the token (first line) must have at least 16 characters", path);
        return -EINVAL;
    }
    return 0;
}

static int sockaddr_for(const char *addr, int port, struct sockaddr_storage *ss, unsigned *flags, char *err, size_t cap)
{
    struct sockaddr_in *v4 = (struct sockaddr_in *)ss;
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)ss;
    memset(ss, 0, sizeof *ss);
    if (inet_pton(AF_INET, addr, &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons((uint16_t)port);
    } else if (inet_pton(AF_INET6, addr, &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons((uint16_t)port);
        *flags |= MHD_USE_IPv6;
    } else {
        snprintf(err, cap, "--addr '%s' is not an IPv4 or IPv6 address", addr);
        return -EINVAL;
    }
    return 0;
}

rc_web *rc_web_start(const rc_web_conf *c, char *err, size_t cap)
{
    struct sockaddr_storage ss;
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD;
    if (sockaddr_for(c->addr, (int)c->port, &ss, &flags, err, cap) < 0)
        return NULL;
    if (!c->token_file && !rc_web_addr_loopback(c->addr)) {
        snprintf(err, cap,
                 "--addr %s is not loopback: pass --token-file FILE (clients send Authorization: Bearer "
                 "TOKEN)",
                 c->addr);
        return NULL;
    }
    rc_web *w = rc_xcalloc(1, sizeof *w);
    if (c->token_file && read_token(c->token_file, w->token, sizeof w->token, err, cap) < 0)
        goto fail;
    w->nshards = (int)RC_MAX(c->shards, 1);
    for (int i = 0; i < w->nshards; i++) {
        char prefix[256];
        if (rc_shard_prefix(c->prefix, i, w->nshards, prefix, sizeof prefix) < 0) {
            snprintf(err, cap, "--prefix '%s' has a hash tag: a sharded keyspace makes its own", c->prefix);
            goto fail;
        }
        if (!(w->shards[i] = rc_redis_new(c->redis, prefix, err, cap)))
            goto fail;
    }
    w->r = w->shards[0];
    rc_redis_say_tag(w->r);
    w->d = MHD_start_daemon(flags, (uint16_t)c->port, NULL, NULL, on_request, w, MHD_OPTION_SOCK_ADDR,
                            (struct sockaddr *)&ss, MHD_OPTION_NOTIFY_COMPLETED, on_completed, w,
                            MHD_OPTION_CONNECTION_LIMIT, (unsigned)64, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)30,
                            MHD_OPTION_END);
    if (!w->d) {
        snprintf(err, cap, "cannot listen on %s port %lld: %s", c->addr, (long long)c->port,
                 errno ? strerror(errno) : "libmicrohttpd failed");
        goto fail;
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(w->d, MHD_DAEMON_INFO_BIND_PORT);
    w->port = info ? (int)info->port : (int)c->port;
    return w;
fail:
    for (int i = 0; i < RC_SHARDS_MAX; i++)
        rc_redis_free(w->shards[i]); /* w->r among them */
    free(w);
    return NULL;
}

int rc_web_port(const rc_web *w)
{
    return w->port;
}

void rc_web_stop(rc_web *w)
{
    if (!w)
        return;
    MHD_stop_daemon(w->d);
    json_decref(w->prev);
    for (int i = 0; i < RC_SHARDS_MAX; i++)
        rc_redis_free(w->shards[i]); /* w->r among them */
    free(w);
}
