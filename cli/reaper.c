/* reaper.c - see reaper.h. */
#include "reaper.h"

#include <errno.h>
#include <hiredis/hiredis.h>
#include <signal.h>
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

/* Which registrations each_worker acts on. */
typedef int (*pick_fn)(rc_redis *r, const char *wid, const void *ud);

/* fn (when not NULL) on every registration in the worker table that pick takes: their number,
 * or -1 (err). */
static int each_worker(rc_redis *r, pick_fn pick, const void *pick_ud, on_registration fn, void *ud, char *err,
                       size_t cap)
{
    char key[256];
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
        if (!wid || !pick(r, wid, pick_ud))
            continue;
        n = fn && fn(r, wid, ud, err, cap) < 0 ? -1 : n + 1;
    }
    freeReplyObject(rep);
    return n;
}

/* A registration of process *ud: its id's "HOST-PID-" head, and its hash naming the pid. */
static int by_pid(rc_redis *r, const char *wid, const void *ud)
{
    pid_t pid = *(const pid_t *)ud;
    char head[128];
    rc_process_id_head(head, sizeof head, (int)pid);
    return strncmp(wid, head, strlen(head)) == 0 && registered_by(r, wid, pid);
}

/* fn (when not NULL) on every registration of pid: their number, or -1 (err). */
static int each_registration(rc_redis *r, pid_t pid, on_registration fn, void *ud, char *err, size_t cap)
{
    return each_worker(r, by_pid, &pid, fn, ud, err, cap);
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

/* Whether process pid is gone: no such process, or a zombie nobody has reaped yet (an orphan
 * whose adoptive parent is slow to wait for it still answers kill(pid, 0)). */
static int process_gone(pid_t pid)
{
    if (kill(pid, 0) < 0)
        return errno == ESRCH;
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f)
        fclose(f);
    buf[n] = '\0';
    const char *paren = strrchr(buf, ')');
    return paren && (paren[2] == 'Z' || paren[2] == 'X');
}

int rc_reaper_id_gone(const char *id)
{
    const char *last = strrchr(id, '-'), *p = last;
    while (p && p > id && p[-1] >= '0' && p[-1] <= '9')
        p--;
    int64_t pid = 0;
    char digits[16], head[128];
    if (!last || p == last || p == id || p[-1] != '-' || (size_t)(last - p) >= sizeof digits)
        return 0;
    snprintf(digits, sizeof digits, "%.*s", (int)(last - p), p);
    if (rc_parse_i64(digits, 1, INT32_MAX, &pid) < 0)
        return 0;
    rc_process_id_head(head, sizeof head, (int)pid);
    return strncmp(id, head, strlen(head)) == 0 && process_gone((pid_t)pid);
}

int rc_reap_stale_lock(rc_redis *r)
{
    char key[256];
    rc_redis_key(r, key, sizeof key, "lock:scheduler");
    redisReply *rep = rc_redis_cmd(r, "WATCH %s", key);
    if (rep)
        freeReplyObject(rep);
    rep = rc_redis_cmd(r, "GET %s", key);
    int gone = rep && rep->type == REDIS_REPLY_STRING && rc_reaper_id_gone(rep->str);
    if (rep)
        freeReplyObject(rep);
    const char *const cmds[] = {"MULTI", "DEL %s", "EXEC"};
    for (size_t i = 0; i < RC_ARRAY_LEN(cmds) && gone; i++) {
        rep = rc_redis_cmd(r, cmds[i], key); /* EXEC does nothing if the lock changed meanwhile */
        if (rep)
            freeReplyObject(rep);
    }
    if (!gone && (rep = rc_redis_cmd(r, "UNWATCH")))
        freeReplyObject(rep);
    return gone;
}

/* Every registration when *ud, else those of this host's processes that are gone. */
static int stale(rc_redis *r, const char *wid, const void *ud)
{
    (void)r;
    return *(const int *)ud || rc_reaper_id_gone(wid);
}

int rc_reap_stale(rc_redis *r, int all, int max_attempts, int64_t *urls, char *err, size_t cap)
{
    reaping rp = {max_attempts, 0};
    int n = each_worker(r, stale, &all, reap_one, &rp, err, cap);
    *urls = rp.urls;
    return n;
}

int rc_reaper_registered(rc_redis *r, pid_t pid, char *err, size_t cap)
{
    return each_registration(r, pid, NULL, NULL, err, cap);
}
