/* seeds.c - see seeds.h. */
#include "seeds.h"

#include <hiredis/hiredis.h>

#include "argv.h"
#include "redis.h"
#include "util.h"

int64_t rc_seeds_count(struct rc_redis *r, const char *crawlid)
{
    rc_argv a;
    rc_argv_init(&a);
    rc_argv_set(&a, RC_FRONTIER_CRAWLID, crawlid ? crawlid : "");
    redisReply *rep = rc_redis_eval(r, RC_LUA_FRONTIER, rc_now_ms(), &a);
    rc_argv_release(&a);
    int64_t n = rep && rep->type == REDIS_REPLY_INTEGER ? rep->integer : -1;
    if (rep)
        freeReplyObject(rep);
    return n;
}
