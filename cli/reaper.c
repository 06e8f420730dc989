/* reaper.c - see reaper.h. */
#include "reaper.h"

#include <hiredis/hiredis.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "argv.h"
#include "scripts.h"
#include "util.h"

/* What to do with each registration found: 0, or -1 with a message in err. */
typedef int (*on_registration)(rc_redis *r, const char *wid, void *ud, char *err, size_t cap);

/* 1 when worker wid's hash names pid: the id's "HOST-PID-" head is a recycled pid's too when a
 * restarted worker got its dead predecessor's number. */
static int registered_by(rc_redis *r, const char *wid, pid_t pid)
{
    char key[512];
    redisReply *rep = rc_redis_cmd(r, "HGET %s pid", rc_redis_key(r, key, sizeof key, "worker:%s", wid));
    int64_t v = -1;
    int yes = rep && rep->type == REDIS_REPLY_STRING && rc_parse_i64(rep->str, 0, INT32_MAX, &v) == 0 && v == pid;
    if (rep)
        freeReplyObject(rep);
    return yes;
}

/* fn (when not NULL) on every registration of pid: their number, or -1 (err). */
static int each_registration(rc_redis *r, pid_t pid, on_registration fn, void *ud, char *err, size_t cap)
{
    char key[256], head[128];
    rc_process_id_head(head, sizeof head, (int)pid);
    redisReply *rep = rc_redis_cmd(r, "ZRANGE %s 0 -1", rc_redis_key(r, key, sizeof key, "workers"));
    if (!rep || rep->type != REDIS_REPLY_ARRAY) {
        snprintf(err, cap, "cannot read the worker table: %s", rep && rep->str ? rep->str : rc_redis_url(r));
        if (rep)
            freeReplyObject(rep);
        return -1;
    }
    int n = 0;
    for (size_t i = 0; i < rep->elements && n >= 0; i++) {
        const char *wid = rep->element[i]->str;
        if (!wid || strncmp(wid, head, strlen(head)) != 0 || !registered_by(r, wid, pid))
            continue;
        n = fn && fn(r, wid, ud, err, cap) < 0 ? -1 : n + 1;
    }
    freeReplyObject(rep);
    return n;
}

typedef struct reaping {
    int max_attempts;
    int64_t urls;
} reaping;

/* reap.lua on one registration. */
static int reap_one(rc_redis *r, const char *wid, void *ud, char *err, size_t cap)
{
    reaping *rp = ud;
    rc_argv a;
    rc_argv_init(&a);
    rc_argv_set(&a, RC_REAP_WORKER, wid);
    rc_argv_seti(&a, RC_REAP_MAX_ATTEMPTS, rp->max_attempts);
    redisReply *rep = rc_redis_eval(r, RC_LUA_REAP, rc_now_ms(), &a);
    rc_argv_release(&a);
    int ok = rep && rep->type == REDIS_REPLY_ARRAY && rep->elements == 2;
    if (ok)
        rp->urls += rc_reply_int(rep->element[0], 0) + rc_reply_int(rep->element[1], 0);
    else
        snprintf(err, cap, "reaping %s: %s", wid, rep && rep->str ? rep->str : rc_redis_url(r));
    if (rep)
        freeReplyObject(rep);
    return ok ? 0 : -1;
}

int rc_reap_process(rc_redis *r, pid_t pid, int max_attempts, int64_t *urls, char *err, size_t cap)
{
    reaping rp = {max_attempts, 0};
    int n = each_registration(r, pid, reap_one, &rp, err, cap);
    *urls = rp.urls;
    if (n > 0) {
        char key[256];
        redisReply *pub = rc_redis_cmd(r, "PUBLISH %s 1", rc_redis_key(r, key, sizeof key, "wake:sched"));
        if (pub)
            freeReplyObject(pub);
    }
    return n;
}

int rc_reaper_registered(rc_redis *r, pid_t pid, char *err, size_t cap)
{
    return each_registration(r, pid, NULL, NULL, err, cap);
}
