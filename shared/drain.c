/* drain.c - see drain.h. */
#include "drain.h"

#include <errno.h>
#include <hiredis/hiredis.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "argv.h"
#include "redis.h"
#include "scripts.h"
#include "util.h"

bool rc_drain_done(const rc_drain_state *st)
{
    return st->draining && st->inflight == 0 && st->hosts == 0;
}

int rc_drain_parse(const char *data, size_t len, char *worker, size_t cap, bool *undo, char *field, size_t fcap,
                   char *reason, size_t rcap)
{
    json_error_t je;
    json_t *o = json_loadb(data, len, JSON_REJECT_DUPLICATES, &je);
    int rc = -EINVAL;
    const char *key;
    json_t *v;
    char why[256];
    snprintf(field, fcap, "(root)");
    if (!json_is_object(o)) {
        snprintf(reason, rcap, "the body must be a JSON object {\"worker\": ID, \"undo\": false}%s%s", o ? "" : ": ",
                 o ? "" : je.text);
        goto out;
    }
    json_object_foreach (o, key, v) {
        if (strcmp(key, "worker") != 0 && strcmp(key, "undo") != 0) {
            snprintf(field, fcap, "%.100s", key);
            snprintf(reason, rcap, "is not a field of a drain request (worker, undo)");
            goto out;
        }
    }
    json_t *wv = json_object_get(o, "worker");
    const char *id = json_string_value(wv);
    json_t *u = json_object_get(o, "undo");
    snprintf(field, fcap, "worker");
    if (!id) {
        snprintf(reason, rcap, "%s: a worker id as `redcrawl status` lists it",
                 wv ? "must be a string" : "is required");
        goto out;
    }
    if (rc_id_check(id, RC_DRAIN_ID_MAX, why, sizeof why) < 0 || strlen(id) >= cap) {
        snprintf(reason, rcap, "%s", why);
        goto out;
    }
    if (u && !json_is_boolean(u)) {
        snprintf(field, fcap, "undo");
        snprintf(reason, rcap, "must be true or false");
        goto out;
    }
    snprintf(worker, cap, "%s", id);
    *undo = u && json_is_true(u);
    rc = 0;
out:
    json_decref(o);
    return rc;
}

int rc_drain_apply(struct rc_redis *r, const char *worker, rc_drain_mode mode, rc_drain_state *ret, char *err,
                   size_t cap)
{
    char why[256];
    if (rc_id_check(worker, RC_DRAIN_ID_MAX, why, sizeof why) < 0) {
        snprintf(err, cap, "worker id '%.200s': %s", worker, why);
        return -EINVAL;
    }
    static const char *const modes[] = {[RC_DRAIN_SHOW] = "show", [RC_DRAIN_ON] = "on", [RC_DRAIN_OFF] = "off"};
    rc_argv a;
    rc_argv_init(&a);
    rc_argv_set(&a, RC_DRAIN_WORKER, worker);
    rc_argv_set(&a, RC_DRAIN_MODE, modes[mode]);
    redisReply *rep = rc_redis_eval(r, RC_LUA_DRAIN, rc_now_ms(), &a);
    rc_argv_release(&a);
    int rc = 0;
    if (!rep) {
        snprintf(err, cap, "Redis at %s does not answer", rc_redis_url(r));
        return -EIO;
    }
    if (rep->type == REDIS_REPLY_ERROR) {
        snprintf(err, cap, "Redis at %s: drain: %s", rc_redis_url(r), rep->str);
        rc = rc_redis_refusal(rep->str) ? -EIO : -EPROTO;
    } else if (rep->type != REDIS_REPLY_ARRAY || rep->elements != 6) {
        snprintf(err, cap, "Redis at %s: drain: an unexpected reply", rc_redis_url(r));
        rc = -EPROTO;
    } else {
        rc_drain_state st = {
            .live = rc_reply_int(rep->element[0], 0) == 1,
            .draining = rc_reply_int(rep->element[1], 0) == 1,
            .hosts = rc_reply_int(rep->element[2], 0),
            .backlog_hosts = rc_reply_int(rep->element[3], 0),
            .inflight = rc_reply_int(rep->element[4], 0),
            .queued = rc_reply_int(rep->element[5], 0),
        };
        *ret = st;
        if (mode == RC_DRAIN_ON && !st.live) {
            snprintf(err, cap, "no live worker '%s' (`redcrawl status` lists them)", worker);
            rc = -ENOENT;
        }
    }
    freeReplyObject(rep);
    return rc;
}

char *rc_drain_answer(const char *worker, rc_drain_mode mode, const rc_drain_state *st)
{
    static const char *const actions[] = {
        [RC_DRAIN_SHOW] = "show", [RC_DRAIN_ON] = "drain", [RC_DRAIN_OFF] = "undrain"};
    json_t *o =
        json_pack("{s:s, s:s, s:b, s:b, s:b, s:I, s:I, s:I, s:I, s:I}", "action", actions[mode], "worker", worker,
                  "live", st->live, "draining", st->draining, "done", rc_drain_done(st), "hosts", (json_int_t)st->hosts,
                  "backlog_hosts", (json_int_t)st->backlog_hosts, "inflight", (json_int_t)st->inflight, "queued",
                  (json_int_t)st->queued, "server_time", (json_int_t)time(NULL));
    char *text = json_dumps(o, JSON_COMPACT);
    json_decref(o);
    return text;
}
