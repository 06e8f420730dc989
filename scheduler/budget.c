/* budget.c - see budget.h. */
#include "budget.h"

#include <hiredis/hiredis.h>
#include <stdlib.h>

#include "argv.h"
#include "log.h"
#include "redis.h"
#include "scripts.h"
#include "util.h"

#define MOD "budget"

struct rc_budget {
    rc_forward *fwd;
    int shard, shards;
    uint64_t last_ms;
    int failing; /* the last run could not settle: said once */
};

rc_budget *rc_budget_new(rc_forward *fwd, int shard, int shards)
{
    rc_budget *b = rc_xcalloc(1, sizeof *b);
    b->fwd = fwd;
    b->shard = shard;
    b->shards = shards;
    return b;
}

void rc_budget_free(rc_budget *b)
{
    free(b);
}

/* The pool's answer for one job (e: crawlid, total, allowance, started, wants) becomes its
 * allowance here. 0, or -1 when either shard could not be asked. */
static int settle(rc_budget *b, redisReply *const *e)
{
    rc_argv a;
    rc_argv_init(&a);
    rc_argv_setn(&a, RC_BUDGET_CRAWLID, e[0]->str, e[0]->len);
    rc_argv_seti(&a, RC_BUDGET_SHARD, b->shard);
    rc_argv_seti(&a, RC_BUDGET_SHARDS, b->shards);
    rc_argv_seti(&a, RC_BUDGET_TOTAL, rc_reply_int(e[1], 0));
    rc_argv_seti(&a, RC_BUDGET_ALLOWANCE, rc_reply_int(e[2], 0));
    rc_argv_seti(&a, RC_BUDGET_USED, rc_reply_int(e[3], 0));
    rc_argv_seti(&a, RC_BUDGET_WANT, rc_reply_int(e[4], 0) ? RC_BUDGET_CHUNK : 0);
    redisReply *rep = rc_redis_eval(rc_forward_conn(b->fwd, 0), RC_LUA_BUDGET, rc_now_ms(), &a);
    rc_argv_release(&a);
    if (!rep || rep->type != REDIS_REPLY_ARRAY || rep->elements != 3) {
        if (!b->failing)
            rc_warn(MOD, "shard 0 does not settle job %.*s's max_pages now (retried): %s", (int)e[0]->len, e[0]->str,
                    rep && rep->type == REDIS_REPLY_ERROR ? rep->str : "no reply");
        if (rep)
            freeReplyObject(rep);
        return -1;
    }
    rc_argv_init(&a);
    rc_argv_setn(&a, RC_ALLOW_CRAWLID, e[0]->str, e[0]->len);
    rc_argv_seti(&a, RC_ALLOW_ALLOWANCE, rc_reply_int(rep->element[0], 0));
    rc_argv_seti(&a, RC_ALLOW_USED, rc_reply_int(e[3], 0));
    rc_argv_seti(&a, RC_ALLOW_GONE, rc_reply_int(rep->element[1], 0));
    rc_argv_seti(&a, RC_ALLOW_SEQ, rc_reply_int(rep->element[2], 0));
    freeReplyObject(rep);
    rep = rc_redis_eval(rc_forward_conn(b->fwd, b->shard), RC_LUA_ALLOW, rc_now_ms(), &a);
    rc_argv_release(&a);
    int ok = rep && rep->type == REDIS_REPLY_INTEGER;
    if (ok && rep->integer == 2)
        rc_debug(MOD, "job %.*s: a newer max_pages answer is applied already", (int)e[0]->len, e[0]->str);
    if (rep)
        freeReplyObject(rep);
    return ok ? 0 : -1;
}

/* Whether a budgets.lua row is (crawlid, total, allowance, started, wants). */
static int row_ok(const redisReply *row)
{
    if (row->type != REDIS_REPLY_ARRAY || row->elements != 5 || row->element[0]->type != REDIS_REPLY_STRING)
        return 0;
    for (size_t i = 1; i < 5; i++)
        if (row->element[i]->type != REDIS_REPLY_INTEGER)
            return 0;
    return 1;
}

int rc_budget_run(rc_budget *b, uint64_t now_ms)
{
    if (now_ms - b->last_ms < RC_BUDGET_EVERY_MS)
        return 0;
    b->last_ms = now_ms;
    rc_argv a;
    rc_argv_init(&a);
    rc_argv_seti(&a, RC_BUDGETS_LOW, RC_BUDGET_CHUNK / 2);
    redisReply *rep = rc_redis_eval(rc_forward_conn(b->fwd, b->shard), RC_LUA_BUDGETS, now_ms, &a);
    rc_argv_release(&a);
    int n = 0, failed = !rep || rep->type != REDIS_REPLY_ARRAY;
    for (size_t i = 0; !failed && i < rep->elements; i++) {
        if (!row_ok(rep->element[i]))
            continue;
        if (settle(b, rep->element[i]->element) < 0)
            failed = 1;
        else
            n++;
    }
    if (rep)
        freeReplyObject(rep);
    if (b->failing && !failed)
        rc_info(MOD, "jobs' max_pages settle with shard 0 again");
    b->failing = failed;
    return failed ? -1 : n;
}
