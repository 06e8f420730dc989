/* step.c - see step.h. */
#include "step.h"

#include <errno.h>
#include <hiredis/hiredis.h>
#include <stdlib.h>

#include "redis.h"
#include "scripts.h"
#include "util.h"

/* A group is the complete's vector from its second argument on: the worker goes once. */
_Static_assert(RC_COMPLETE_WORKER == 0, "complete.lua's worker must come first");

void rc_step_init(rc_step *s, const char *worker)
{
    *s = (rc_step){0};
    rc_argv_init(&s->args);
    rc_argv_set(&s->args, RC_STEP_WORKER, worker);
    rc_argv_set(&s->args, RC_STEP_HB, "");
    rc_argv_seti(&s->args, RC_STEP_HB_N, 0);
    rc_argv_seti(&s->args, RC_STEP_TAKE_MAX, 0);
    rc_argv_seti(&s->args, RC_STEP_LEASE_MS, 0);
    rc_argv_set(&s->args, RC_STEP_IP, "");
    rc_argv_seti(&s->args, RC_STEP_N, 0);
}

void rc_step_release(rc_step *s)
{
    rc_argv_release(&s->args);
    free(s->group);
}

void rc_step_beat(rc_step *s, const char *mode, const char *const *fields, size_t n_fields)
{
    if (s->n > 0 || s->hb)
        return; /* a bug in the caller: the fields must lead the tail */
    s->hb = 1;
    rc_argv_set(&s->args, RC_STEP_HB, mode);
    rc_argv_seti(&s->args, RC_STEP_HB_N, (int64_t)n_fields);
    for (size_t i = 0; i < n_fields; i++)
        rc_argv_add(&s->args, fields[i]);
}

void rc_step_add(rc_step *s, const rc_argv_packed *complete)
{
    s->group = rc_xrealloc(s->group, (size_t)(s->n + 1) * sizeof *s->group);
    s->group[s->n] = complete;
    rc_argv_seti(&s->args, RC_STEP_N, ++s->n);
}

void rc_step_flatten(const rc_step *s, rc_argv *out)
{
    rc_argv_init(out);
    for (int i = 0; i < s->args.n; i++)
        rc_argv_addn(out, s->args.v[i], s->args.len[i]);
    for (int g = 0; g < s->n; g++)
        rc_argv_unpack(s->group[g], RC_COMPLETE_WORKER + 1, out);
}

void rc_step_take(rc_step *s, int64_t max, uint64_t lease_ms, const char *ip)
{
    s->take = max > 0;
    rc_argv_seti(&s->args, RC_STEP_TAKE_MAX, max);
    rc_argv_setu(&s->args, RC_STEP_LEASE_MS, lease_ms);
    rc_argv_set(&s->args, RC_STEP_IP, ip);
}

int rc_step_reply_check(const rc_step *s, const redisReply *rep)
{
    if (!rep || rep->type != REDIS_REPLY_ARRAY || rep->elements != 3 || rep->element[0]->type != REDIS_REPLY_INTEGER)
        return -EPROTO;
    const redisReply *done = rep->element[1];
    if (done->type != REDIS_REPLY_ARRAY || done->elements != (size_t)s->n)
        return -EPROTO;
    for (size_t i = 0; i < done->elements; i++)
        if (done->element[i]->type != REDIS_REPLY_ARRAY || done->element[i]->elements < 3)
            return -EPROTO;
    const redisReply *took = rep->element[2];
    if (took->type != REDIS_REPLY_ARRAY || took->elements != (s->take ? 3u : 0u))
        return -EPROTO;
    return 0;
}

int64_t rc_step_reply_beat(const redisReply *rep)
{
    return rep->element[0]->integer;
}

const redisReply *rc_step_reply_complete(const redisReply *rep, int i)
{
    return rep->element[1]->element[i];
}

const redisReply *rc_step_reply_take(const redisReply *rep)
{
    return rep->element[2]->elements == 3 ? rep->element[2] : NULL;
}
