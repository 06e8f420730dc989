/* step.h - one round trip of a worker (step.lua): a heartbeat, up to RC_STEP_MAX completes
 * and a take in one EVALSHA. Builds the script's argument vector in the layout its header
 * documents (named arguments, then the heartbeat's fields, then one group per complete: the
 * complete's own vector without its worker) and reads the reply's parts back. The completes are
 * not copied: a step of 64 pages is megabytes, and each page's complete is kept anyway (for
 * resends, packed); the command is formatted from the parts. */
#ifndef RC_STEP_H
#define RC_STEP_H

#include <stddef.h>
#include <stdint.h>

#include "argv.h"

struct redisReply;

/* Completes in one step at most: a step holds the script (and Redis) for their sum, so the
 * bound keeps any one call short. */
#define RC_STEP_MAX 64

typedef struct rc_step {
    rc_argv args;                 /* step.lua's arguments after prefix and now, up to the first group */
    const rc_argv_packed **group; /* the completes added (borrowed), each sent from its second
                                     argument on */
    int n;                        /* completes added */
    int hb, take;                 /* whether a heartbeat, a take were asked */
} rc_step;

/* An empty step of worker: no heartbeat, no complete, no take. */
void rc_step_init(rc_step *s, const char *worker);
void rc_step_release(rc_step *s);

/* The heartbeat (hb.lua's mode and field/value pairs). Before any complete: its fields come
 * first in the tail. */
void rc_step_beat(rc_step *s, const char *mode, const char *const *fields, size_t n_fields);

/* complete: complete.lua's argument vector as the single call would send it (RC_COMPLETE_*),
 * packed, sent without its worker. Borrowed: it must stay as it is until the step is answered. */
void rc_step_add(rc_step *s, const rc_argv_packed *complete);

/* The whole argument vector copied into out (initialised here): for a synchronous call. */
void rc_step_flatten(const rc_step *s, rc_argv *out);

void rc_step_take(rc_step *s, int64_t max, uint64_t lease_ms, const char *ip);

/* Whether rep is step.lua's answer to s: {hb, n complete results, take}. 0 or -EPROTO. */
int rc_step_reply_check(const rc_step *s, const struct redisReply *rep);
/* Its parts (rep checked): the heartbeat's verdict (1, 0 reaped, -1 none), the i-th complete's
 * result ({1, added, pending} or {-1, 0, 0}), the take's {leases, due, last} (NULL when none). */
int64_t rc_step_reply_beat(const struct redisReply *rep);
const struct redisReply *rc_step_reply_complete(const struct redisReply *rep, int i);
const struct redisReply *rc_step_reply_take(const struct redisReply *rep);

#endif
