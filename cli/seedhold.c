/* seedhold.c - see seedhold.h. */
#include "seedhold.h"

#include <hiredis/hiredis.h>
#include <string.h>

#include "argv.h"
#include "scripts.h"
#include "util.h"

#define OWNER "redcrawl-crawl-seeding"
#define TTL_MS 10000 /* a batch takes milliseconds; a crawl killed meanwhile holds it this long */

int rc_seedhold_take(rc_redis *r)
{
    rc_argv a;
    rc_argv_init(&a);
    rc_argv_set(&a, RC_LOCK_OWNER, OWNER);
    rc_argv_setu(&a, RC_LOCK_TTL_MS, TTL_MS);
    redisReply *rep = rc_redis_eval(r, RC_LUA_LOCK, rc_now_ms(), &a);
    rc_argv_release(&a);
    int held = rep && rep->type == REDIS_REPLY_INTEGER && rep->integer == 1;
    if (rep)
        freeReplyObject(rep);
    return held;
}

void rc_seedhold_release(rc_redis *r)
{
    char key[256];
    rc_redis_key(r, key, sizeof key, "lock:scheduler");
    redisReply *rep = rc_redis_cmd(r, "GET %s", key);
    /* Still ours (not expired and taken by the scheduler): a GET then a DEL, as nothing but an
     * expiry can change it between them. */
    int ours = rep && rep->type == REDIS_REPLY_STRING && strcmp(rep->str, OWNER) == 0;
    if (rep)
        freeReplyObject(rep);
    rep = ours ? rc_redis_cmd(r, "DEL %s", key) : NULL;
    if (rep)
        freeReplyObject(rep);
    rep = rc_redis_cmd(r, "PUBLISH %s 1", rc_redis_key(r, key, sizeof key, "wake:sched"));
    if (rep)
        freeReplyObject(rep);
}
