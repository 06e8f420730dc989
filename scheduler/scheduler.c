/* scheduler.c - see scheduler.h.
 * Each second: refresh the worker table (heartbeats, weights, budgets; reap the dead, expire hung
 * leases), give orphaned hosts new owners, rebalance. Each tick: move one batch of the frontier
 * into the per-job, per-host queues with a single `assign` Lua call. The Redis
 * client is synchronous: this process talks only to Redis, on loopback or a LAN, and every
 * step is one round trip. */
#include "scheduler.h"

#include <errno.h>
#include <ev.h>
#include <hiredis/hiredis.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "argv.h"
#include "job.h"
#include "log.h"
#include "record.h"
#include "recpeek.h"
#include "redis.h"
#include "seeds.h"
#include "strmap.h"
#include "url.h"
#include "util.h"
#include "wake.h"
#include "wrr.h"
#include "metrics.h"
#include "budget.h"
#include "forward.h"
#include "pace.h"
#include "sched_metrics.h"
#include "shard.h"

#define MOD "scheduler"

typedef struct worker_info {
    char *id;
    int64_t domains; /* hosts it owns */
    int64_t queued;
    double per_minute; /* measured completions per minute */
    int64_t budget;    /* URLs it may still hold before it is passed over for new hosts */
    int64_t slots;     /* transfers it runs at once (its heartbeat), 0 = not reported */
    int64_t fetched;   /* pages done, from its heartbeat */
    uint64_t seen_ms;  /* when fetched was read */
    double rate;       /* pages/s lately: an average over the last refreshes (half-life 1 s) */
    int idx;           /* its number in the current assign.lua call */
    double cpu_free;   /* its CPU headroom, 0..1, from its heartbeat; -1 = not reported */
    int64_t weight;    /* its weight in the rotation (worker_weight) */
} worker_info;

typedef struct job_info {
    int running;
    int maxdepth;
    int priority; /* its share of each dispatch round */
    int64_t expires;
    uint64_t loaded_ms;
} job_info;

/* The leader lock as lock.lua last answered; UNKNOWN when it could not be asked. */
typedef enum lock_state { LOCK_NOT_ASKED, LOCK_HELD, LOCK_OTHER, LOCK_UNKNOWN } lock_state;

struct rc_scheduler {
    struct ev_loop *loop;
    const rc_sched_conf *conf;
    rc_redis *r;
    char id[128];
    int leader;
    lock_state lock; /* the last lock.lua answer, for logging its changes */
    ev_timer tick;
    rc_wrr *wrr;
    rc_strmap *owners;    /* host -> worker id (char *, owned) */
    rc_strmap *workers;   /* id -> worker_info */
    rc_strmap *jobs;      /* crawlid -> job_info */
    rc_strmap *blacklist; /* domain -> (void *)1 */
    rc_strmap *draining;  /* worker id -> worker_info: live workers an operator drains (drain.c) */
    uint64_t last_refresh_ms;
    uint64_t dispatched, dropped;
    int refused;               /* Redis refuses writes (OOM, ...): dispatch waits, said once */
    int mem_full;              /* INFO memory shows maxmemory reached under noeviction */
    char run_id[48];           /* Redis' run_id: a change means it restarted */
    rc_sched_metrics *metrics; /* borrowed; NULL = none; see sched_metrics.h for threads */
    uint64_t moved_ms;         /* rc_redis_moved_ms when last seen: a new node's run_id is no restart */
    rc_wake *wake;             /* nudged when seeds arrive in an empty frontier; NULL = poll only */
    uint64_t last_dispatch_ms;
    int nudged;        /* a nudge came since the last tick: the worker set may have changed */
    rc_forward *fwd;   /* a sharded keyspace: this shard's outboxes to the others; NULL = one keyspace */
    rc_budget *budget; /* a sharded keyspace: its jobs' max_pages allowances; NULL = one keyspace */
    rc_pace *pace;     /* when this scheduler did not run: no worker's silence is counted then */
    uint64_t away_ms;  /* the delay the tick timer was last set to */
};

/* Said once when Redis starts refusing the dispatch (at maxmemory: assign.lua is refused
 * whole), once when it accepts again. Leader lock, reaping and lease expiry are flagged
 * allow-oom and go on. */
static void note_refusal(rc_scheduler *s, const char *err)
{
    if (s->refused)
        return;
    s->refused = 1;
    rc_error(MOD,
             "Redis refuses writes: %s -- dispatching paused (retried every second); heartbeats, reaping "
             "and stop go on; free memory or raise maxmemory (README: Redis sizing)",
             err);
}

/* Redis at maxmemory refuses every write the fleet makes, but the scheduler may have nothing
 * to dispatch and so no write to be refused: INFO memory tells it anyway, once a second. */
static void check_memory(rc_scheduler *s)
{
    char why[160];
    int full = rc_redis_memory_full(s->r, why, sizeof why);
    if (full == 1) {
        note_refusal(s, why);
        s->mem_full = 1;
    } else if (full == 0 && s->mem_full) {
        s->mem_full = 0;
        if (s->refused)
            rc_info(MOD, "Redis is under maxmemory again: dispatching");
        s->refused = 0;
    }
}

/* A restart of Redis shows as a new run_id; without persistence the jobs and queues went with
 * it, and only the operator can resubmit them. */
static void check_run_id(rc_scheduler *s)
{
    char id[sizeof s->run_id];
    if (rc_redis_run_id(s->r, id, sizeof id) < 0)
        return;
    if (s->moved_ms != rc_redis_moved_ms(s->r)) {
        s->moved_ms = rc_redis_moved_ms(s->r);
        rc_info(MOD, "the keyspace is on Redis Cluster node %s:%d now (a failover)", rc_redis_node(s->r)->host,
                rc_redis_node(s->r)->port);
    } else if (s->run_id[0] && strcmp(id, s->run_id) != 0) {
        char key[128];
        redisReply *rep = rc_redis_cmd(s->r, "SCARD %s", rc_redis_key(s->r, key, sizeof key, "jobs"));
        int64_t jobs = rc_reply_int(rep, -1);
        if (rep)
            freeReplyObject(rep);
        rc_warn(MOD, "Redis restarted (run_id %s -> %s) and holds %lld jobs%s", s->run_id, id, (long long)jobs,
                jobs == 0 ? ": its data was lost (no persistence?): resubmit the jobs, and run Redis with "
                            "appendonly yes"
                          : "");
    }
    snprintf(s->run_id, sizeof s->run_id, "%s", id);
}

static void free_worker(void *p)
{
    worker_info *w = p;
    if (w) {
        free(w->id);
        free(w);
    }
}

static uint64_t lock_ttl_ms(const rc_scheduler *s)
{
    return (uint64_t)(s->conf->lock_ttl * 1000);
}

/* What lock.lua's reply says. Only a 0 means another scheduler holds the lock: without a reply
 * (Redis unreachable) or with an error nobody can tell who leads, and why goes into why. */
static lock_state read_lock_reply(rc_redis *r, const redisReply *rep, char *why, size_t cap)
{
    if (rep && rep->type == REDIS_REPLY_INTEGER)
        return rep->integer == 1 ? LOCK_HELD : LOCK_OTHER;
    if (!rep)
        snprintf(why, cap, "Redis unreachable: %s",
                 rc_redis_error(r)[0] ? rc_redis_error(r) : "no reply (connection lost)");
    else
        snprintf(why, cap, "Redis error: %s",
                 rep->type == REDIS_REPLY_ERROR && rep->str ? rep->str : "unexpected reply");
    return LOCK_UNKNOWN;
}

/* Says when the lease changes hands; a scheduler that cannot ask Redis stands by too (it
 * cannot renew a lease it may still hold), but says why instead of blaming another leader. */
static void log_lock(rc_scheduler *s, lock_state st, const char *why)
{
    if (st == s->lock)
        return;
    if (st == LOCK_HELD)
        rc_info(MOD, "leading: this scheduler dispatches id=%s", s->id);
    else if (st == LOCK_OTHER)
        rc_info(MOD, "standby: another scheduler leads id=%s", s->id);
    else
        rc_warn(MOD, "standby: cannot %s the leader lock id=%s error=%s", s->leader ? "renew" : "take", s->id, why);
    s->lock = st;
}

/* Leader lease: take or renew; a standby polls until the lock is free. */
static int hold_lock(rc_scheduler *s)
{
    rc_argv a;
    rc_argv_init(&a);
    rc_argv_set(&a, RC_LOCK_OWNER, s->id);
    rc_argv_setu(&a, RC_LOCK_TTL_MS, lock_ttl_ms(s));
    redisReply *rep = rc_redis_eval(s->r, RC_LUA_LOCK, rc_now_ms(), &a);
    rc_argv_release(&a);
    char why[400] = "";
    lock_state st = read_lock_reply(s->r, rep, why, sizeof why);
    if (rep)
        freeReplyObject(rep);
    log_lock(s, st, why);
    s->leader = st == LOCK_HELD;
    return s->leader;
}

/* rc_strmap_del_if's test for the owners map: the host's owner is worker ctx. */
static int owned_by(const char *host, void *owner, const void *wid)
{
    (void)host;
    return strcmp(owner, wid) == 0;
}

static void reap(rc_scheduler *s, const char *wid, const char *why)
{
    rc_argv a;
    rc_argv_init(&a);
    rc_argv_set(&a, RC_REAP_WORKER, wid);
    rc_argv_seti(&a, RC_REAP_MAX_ATTEMPTS, s->conf->max_attempts);
    redisReply *rep = rc_redis_eval(s->r, RC_LUA_REAP, rc_now_ms(), &a);
    rc_argv_release(&a);
    if (rep && rep->type == REDIS_REPLY_ARRAY && rep->elements == 2) {
        int64_t queued = rc_reply_int(rep->element[0], 0), inflight = rc_reply_int(rep->element[1], 0);
        rc_warn(MOD, "worker gone: its work goes back to the frontier worker=%s reason=%s queued=%lld inflight=%lld",
                wid, why, (long long)queued, (long long)inflight);
        if (s->metrics) {
            rc_metric_add(s->metrics->reaped, NULL, 1);
            rc_metric_add(s->metrics->reclaimed, "reaped", (double)(queued + inflight));
        }
    } else
        rc_error(MOD, "reap failed worker=%s error=%s", wid, rep && rep->str ? rep->str : "no reply");
    if (rep)
        freeReplyObject(rep);
    /* Forget the domains it owned: they get new owners on their next URL. */
    rc_strmap_del_if(s->owners, owned_by, wid, free);
}

static void expire_leases(rc_scheduler *s, const char *wid)
{
    rc_argv a;
    rc_argv_init(&a);
    rc_argv_set(&a, RC_EXPIRE_WORKER, wid);
    rc_argv_seti(&a, RC_EXPIRE_MAX_ATTEMPTS, s->conf->max_attempts);
    redisReply *rep = rc_redis_eval(s->r, RC_LUA_EXPIRE, rc_now_ms(), &a);
    rc_argv_release(&a);
    if (rep && rep->type == REDIS_REPLY_INTEGER && rep->integer > 0) {
        rc_warn(MOD, "leases expired: URLs go back to the frontier worker=%s count=%lld", wid, rep->integer);
        if (s->metrics)
            rc_metric_add(s->metrics->reclaimed, "expired", (double)rep->integer);
    }
    if (rep)
        freeReplyObject(rep);
}

/* Completions per minute averaged over the last k minutes the worker has lived. */
static double worker_rate(rc_scheduler *s, const char *wid, uint64_t now_ms, uint64_t started_ms)
{
    char key[256];
    redisReply *rep = rc_redis_cmd(s->r, "HGETALL %s", rc_redis_key(s->r, key, sizeof key, "wstat:%s", wid));
    if (!rep || rep->type != REDIS_REPLY_ARRAY) {
        if (rep)
            freeReplyObject(rep);
        return 0;
    }
    int64_t cur = (int64_t)(now_ms / 60000), k = s->conf->weight_minutes;
    int64_t total = 0;
    for (size_t i = 0; i + 1 < rep->elements; i += 2) {
        int64_t minute = rc_reply_int(rep->element[i], -1);
        if (minute > cur - k && minute <= cur)
            total += rc_reply_int(rep->element[i + 1], 0);
    }
    freeReplyObject(rep);
    double alive_min = started_ms && now_ms > started_ms ? (double)(now_ms - started_ms) / 60000.0 : 1.0;
    double window = alive_min < (double)k ? alive_min : (double)k;
    if (window < 1.0 / 6) /* ten seconds: too young to measure */
        window = 1.0 / 6;
    return (double)total / window;
}

#define CPU_FLOOR 0.05 /* the least share of its weight a worker out of CPU keeps */

/* The share of new hosts a worker gets. A host takes one transfer slot at a time, so what a
 * worker can still absorb is its free slots: concurrency less the hosts it owns (at least 1, so
 * that a full fleet still spreads). Completions per minute would measure hosts owned, not
 * capacity, under politeness; they remain the weight of workers that report no slots. Free
 * slots are no capacity when the CPU is what a worker lacks (parsing, a shared machine): the
 * weight is scaled by its CPU headroom, down to CPU_FLOOR of it. */
static int64_t worker_weight(const worker_info *w)
{
    double wt = w->slots > 0 ? 100.0 * (double)(w->slots > w->domains ? w->slots - w->domains : 1)
                             : 100.0 * (w->per_minute > 1 ? w->per_minute : 1);
    if (w->cpu_free >= 0)
        wt *= w->cpu_free > CPU_FLOOR ? (w->cpu_free < 1 ? w->cpu_free : 1) : CPU_FLOOR;
    return wt >= 1 ? (int64_t)wt : 1;
}

/* A worker's weight in the rotation, said (debug) when it changes: what dispatch follows. */
static void set_weight(rc_scheduler *s, worker_info *w)
{
    w->weight = worker_weight(w);
    const worker_info *prev = rc_strmap_get(s->workers, w->id);
    if (!prev || prev->weight != w->weight)
        rc_debug(MOD, "weight worker=%s weight=%lld slots=%lld domains=%lld cpu_free=%.2f", w->id, (long long)w->weight,
                 (long long)w->slots, (long long)w->domains, w->cpu_free);
    rc_wrr_set(s->wrr, w->id, w->weight);
}

/* The worker's recent pages/s from its heartbeat's `fetched`, smoothed with the last value, so
 * that a change of speed shows within seconds (completions per minute take minutes). */
static void follow_rate(worker_info *w, const worker_info *prev)
{
    if (!prev || !prev->seen_ms || w->seen_ms <= prev->seen_ms || w->fetched < prev->fetched) {
        w->rate = prev ? prev->rate : 0;
        return;
    }
    double now = (double)(w->fetched - prev->fetched) * 1000.0 / (double)(w->seen_ms - prev->seen_ms);
    w->rate = prev->rate > 0 ? (prev->rate + now) / 2 : now;
}

/* The ids of the workers an operator drains (rc:draining, written by drain.lua): id -> 1. */
static rc_strmap *read_draining(rc_scheduler *s)
{
    char key[128];
    rc_strmap *m = rc_strmap_new();
    redisReply *rep = rc_redis_cmd(s->r, "SMEMBERS %s", rc_redis_key(s->r, key, sizeof key, "draining"));
    if (rep && rep->type == REDIS_REPLY_ARRAY)
        for (size_t i = 0; i < rep->elements; i++)
            rc_strmap_put(m, rep->element[i]->str, (void *)1);
    if (rep)
        freeReplyObject(rep);
    return m;
}

/* A draining worker (its id in IDS) is kept out of s->workers and the rotation, in DRAINED, so
 * that no choice (new hosts, orphans, rebalancing) gives it anything; give_away_drained moves its
 * hosts off. Takes W and returns 1 when it is draining. */
static int set_aside_draining(rc_scheduler *s, const rc_strmap *ids, rc_strmap *drained, worker_info *w)
{
    if (!rc_strmap_get(ids, w->id))
        return 0;
    if (!rc_strmap_get(s->draining, w->id))
        rc_info(MOD, "worker draining: no new hosts, its hosts go to other workers worker=%s hosts=%lld", w->id,
                (long long)w->domains);
    rc_wrr_remove(s->wrr, w->id);
    rc_strmap_put(drained, w->id, w);
    return 1;
}

/* What the worker's hash says of it (queue, slots, rate, CPU headroom) and its budget of
 * queued URLs. */
static worker_info *read_worker(rc_scheduler *s, const char *wid, uint64_t now)
{
    char key[256];
    redisReply *h = rc_redis_cmd(s->r, "HMGET %s queued started_ms slots fetched cpu_free",
                                 rc_redis_key(s->r, key, sizeof key, "worker:%s", wid));
    worker_info *w = rc_xcalloc(1, sizeof *w);
    w->id = rc_xstrdup(wid);
    redisReply *d = rc_redis_cmd(s->r, "SCARD %s", rc_redis_key(s->r, key, sizeof key, "wdoms:%s", wid));
    w->domains = rc_reply_int(d, 0);
    if (d)
        freeReplyObject(d);
    w->cpu_free = -1;
    if (h && h->type == REDIS_REPLY_ARRAY && h->elements == 5) {
        w->queued = rc_reply_int(h->element[0], 0);
        if (h->element[4]->type == REDIS_REPLY_STRING)
            w->cpu_free = strtod(h->element[4]->str, NULL);
        w->per_minute = worker_rate(s, wid, now, (uint64_t)rc_reply_int(h->element[1], 0));
        w->slots = rc_reply_int(h->element[2], 0);
        w->fetched = rc_reply_int(h->element[3], 0);
        w->seen_ms = now;
        follow_rate(w, rc_strmap_get(s->workers, wid));
    }
    if (h)
        freeReplyObject(h);
    double cap = w->per_minute * s->conf->backlog_seconds / 60.0;
    if (cap < (double)s->conf->backlog_floor)
        cap = (double)s->conf->backlog_floor;
    w->budget = (int64_t)cap - w->queued;
    return w;
}

/* Workers that left the table (deregistered or reaped) leave the rotation. */
static void forget_gone(rc_scheduler *s, const rc_strmap *fresh, const rc_strmap *drained)
{
    size_t it = 0;
    const char *wid;
    while (rc_strmap_next(s->workers, &it, &wid, NULL)) {
        if (!rc_strmap_get(fresh, wid) && !rc_strmap_get(drained, wid)) {
            rc_info(MOD, "worker left worker=%s", wid);
            rc_wrr_remove(s->wrr, wid);
        }
    }
}

/* The blacklist is small and changes rarely: reloaded with the worker table. */
static void reload_blacklist(rc_scheduler *s)
{
    char key[128];
    rc_strmap_free(s->blacklist, NULL);
    s->blacklist = rc_strmap_new();
    redisReply *rep = rc_redis_cmd(s->r, "SMEMBERS %s", rc_redis_key(s->r, key, sizeof key, "blacklist"));
    if (rep && rep->type == REDIS_REPLY_ARRAY)
        for (size_t i = 0; i < rep->elements; i++)
            rc_strmap_put(s->blacklist, rep->element[i]->str, (void *)1);
    if (rep)
        freeReplyObject(rep);
}

/* This scheduler ran at now after meaning to be away expect_ms: a longer absence is said, and
 * kept out of the workers' silence (pace.h). */
static void pace_mark(rc_scheduler *s, uint64_t now, uint64_t expect_ms)
{
    uint64_t stall = rc_pace_mark(s->pace, now, expect_ms);
    if (stall)
        rc_warn(MOD,
                "this scheduler did not run for %.1f s (its thread starved of CPU, the machine paused, or Redis "
                "held its calls): workers' heartbeats missed then are not held against them",
                (double)stall / 1000.0);
}

/* A worker silent this many worker timeouts by the wall clock is reaped whatever this
 * scheduler's own stalls: one that never keeps up (every tick held over a second) still gives a
 * dead worker's URLs back. */
#define RC_SILENCE_WALL_CAP 10

/* How long a worker was silent by its heartbeat hb: only the time this scheduler itself ran
 * counts, since a pause of the machine or a starved scheduler held the heartbeats as well. */
static uint64_t silence_ms(rc_scheduler *s, uint64_t hb, uint64_t now)
{
    if (now <= hb)
        return 0;
    uint64_t wall = now - hb;
    if ((double)wall > RC_SILENCE_WALL_CAP * s->conf->worker_timeout * 1000)
        return wall;
    return wall - rc_pace_stalled(s->pace, hb, now);
}

static void refresh_workers(rc_scheduler *s)
{
    char key[256];
    uint64_t now = rc_now_ms();
    pace_mark(s, now, 0);
    redisReply *rep = rc_redis_cmd(s->r, "ZRANGE %s 0 -1 WITHSCORES", rc_redis_key(s->r, key, sizeof key, "workers"));
    if (!rep || rep->type != REDIS_REPLY_ARRAY) {
        rc_error(MOD, "cannot read workers from Redis at %s", rc_redis_url(s->r));
        if (rep)
            freeReplyObject(rep);
        return;
    }
    rc_strmap *fresh = rc_strmap_new();
    rc_strmap *drain_ids = read_draining(s), *drained = rc_strmap_new();
    for (size_t i = 0; i + 1 < rep->elements; i += 2) {
        const char *wid = rep->element[i]->str;
        uint64_t hb = (uint64_t)rc_reply_int(rep->element[i + 1], 0);
        /* A cluster's failover held every heartbeat: no worker is judged by that time. */
        hb = RC_MAX(hb, rc_redis_moved_ms(s->r));
        if ((double)silence_ms(s, hb, now) > s->conf->worker_timeout * 1000) {
            reap(s, wid, "heartbeat timeout");
            continue;
        }
        expire_leases(s, wid);
        worker_info *w = read_worker(s, wid, now);
        if (set_aside_draining(s, drain_ids, drained, w))
            continue;
        set_weight(s, w);
        if (rc_strmap_get(s->draining, wid))
            rc_info(MOD, "worker resumed: takes hosts again worker=%s", wid);
        else if (!rc_strmap_get(s->workers, wid))
            rc_info(MOD, "worker joined worker=%s", wid);
        rc_strmap_put(fresh, wid, w);
    }
    freeReplyObject(rep);
    forget_gone(s, fresh, drained);
    rc_strmap_free(s->workers, free_worker);
    s->workers = fresh;
    rc_strmap_free(drain_ids, NULL);
    rc_strmap_free(s->draining, free_worker);
    s->draining = drained;
    reload_blacklist(s);
    s->last_refresh_ms = now;
}

/* A worker that joins late, or one with more transfer slots than its share of hosts, gets hosts
 * from the most loaded worker (hosts per slot), up to 50 a second, hosts with a backlog first
 * (move.lua). Hosts with a fetch in flight never move, and a moved host keeps its next allowed
 * time, so politeness holds across the move. */
/* move.lua: up to n of from's hosts (backlogged first, none in flight) to to. Returns how many. */
static int64_t move_hosts(rc_scheduler *s, worker_info *from, worker_info *to, int64_t n)
{
    rc_argv a;
    rc_argv_init(&a);
    rc_argv_set(&a, RC_MOVE_FROM, from->id);
    rc_argv_set(&a, RC_MOVE_TO, to->id);
    rc_argv_seti(&a, RC_MOVE_N, n);
    redisReply *rep = rc_redis_eval(s->r, RC_LUA_MOVE, rc_now_ms(), &a);
    rc_argv_release(&a);
    int64_t moved = 0;
    if (rep && rep->type == REDIS_REPLY_ARRAY) {
        for (size_t i = 0; i < rep->elements; i++)
            free(rc_strmap_put(s->owners, rep->element[i]->str, rc_xstrdup(to->id)));
        moved = (int64_t)rep->elements;
        if (s->metrics)
            rc_metric_add(s->metrics->moved, NULL, (double)moved);
        if (moved)
            rc_info(MOD, "rebalanced hosts=%lld from=%s to=%s", (long long)moved, from->id, to->id);
        from->domains -= moved;
        to->domains += moved;
    }
    if (rep)
        freeReplyObject(rep);
    return moved;
}

static int64_t capacity(const worker_info *w)
{
    return w->slots > 0 ? w->slots : 1;
}

#define DRAIN_MOVES_MAX 200 /* hosts a draining worker gives away per second */

/* Each draining worker gives its hosts (those with a backlog first; none with a fetch in flight,
 * which follow once it completes) to the least loaded other workers by hosts per slot, a share at
 * a time so that they spread. With no other worker they stay. */
static void give_away_drained(rc_scheduler *s)
{
    size_t it = 0;
    void *v;
    while (rc_strmap_next(s->draining, &it, NULL, &v)) {
        worker_info *d = v;
        int64_t budget = DRAIN_MOVES_MAX, takers = (int64_t)rc_strmap_count(s->workers);
        while (d->domains > 0 && budget > 0 && takers > 0) {
            worker_info *least = NULL;
            size_t jt = 0;
            void *u;
            while (rc_strmap_next(s->workers, &jt, NULL, &u)) {
                worker_info *w = u;
                if (!least || w->domains * capacity(least) < least->domains * capacity(w))
                    least = w;
            }
            int64_t n = RC_MIN(budget, d->domains / takers + 1);
            if (move_hosts(s, d, least, n) < n)
                break; /* what is left is in flight */
            budget -= n;
        }
    }
}

/* Seconds of work a worker holds at its recent speed. */
static double backlog_s(const worker_info *w)
{
    return (double)w->queued / (w->rate > 0.5 ? w->rate : 0.5);
}

#define OVERLOADED_S 30.0 /* a worker holding this much work at its speed gives hosts ... */
#define IDLE_S 5.0        /* ... to one holding less than half of its load less this, with free slots */

/* Gives hosts with a backlog from the worker with the most work for its speed to the one with
 * the least, while the first holds over OVERLOADED_S and the second under half as much (a worker
 * slowed down, or one that got hosts faster than it fetches). A worker gives its last host only
 * to a faster one: one host's backlog alone would otherwise swap sides every second. 1 when it
 * moved any. */
static int relieve_overloaded(rc_scheduler *s)
{
    worker_info *busy = NULL, *idle = NULL;
    size_t it = 0;
    void *v;
    while (rc_strmap_next(s->workers, &it, NULL, &v)) {
        worker_info *w = v;
        if (!busy || backlog_s(w) > backlog_s(busy))
            busy = w;
        if ((!idle || backlog_s(w) < backlog_s(idle)) && w->domains < capacity(w))
            idle = w;
    }
    if (!busy || !idle || busy == idle || backlog_s(busy) < OVERLOADED_S ||
        backlog_s(idle) > backlog_s(busy) / 2 - IDLE_S || busy->domains < 1 ||
        (busy->domains == 1 && busy->rate >= idle->rate))
        return 0;
    return move_hosts(s, busy, idle, RC_MIN(busy->domains / 4 + 1, capacity(idle) - idle->domains)) > 0;
}

static void rebalance(rc_scheduler *s)
{
    if (relieve_overloaded(s))
        return;
    /* Load = hosts held per transfer slot: equal counts would starve a fast worker and swamp a
     * slow one. The most loaded worker gives hosts to the least loaded while that lowers the
     * larger of the two loads (cross-multiplied to stay in integers). */
    worker_info *most = NULL, *fewest = NULL;
    size_t it = 0;
    void *v;
    while (rc_strmap_next(s->workers, &it, NULL, &v)) {
        worker_info *w = v;
        if (!most || w->domains * capacity(most) > most->domains * capacity(w))
            most = w;
        if (!fewest || w->domains * capacity(fewest) < fewest->domains * capacity(w))
            fewest = w;
    }
    if (!most || most == fewest || (fewest->domains + 1) * capacity(most) >= most->domains * capacity(fewest))
        return;
    if (backlog_s(fewest) > IDLE_S && backlog_s(fewest) >= backlog_s(most))
        return; /* fewer hosts but more work for its speed (a slow worker): not a taker */
    /* Hosts to move so that both loads meet: fewest ends with its share of the two's hosts. */
    int64_t total = most->domains + fewest->domains;
    int64_t n = total * capacity(fewest) / (capacity(most) + capacity(fewest)) - fewest->domains;
    n = n < 1 ? 1 : n > 50 ? 50 : n;
    move_hosts(s, most, fewest, n);
}

/* Navigation pages due for their refresh go back into the frontier, at most this many a second
 * (one call stays short; a larger backlog drains over the next seconds). */
#define REFRESH_BATCH 10000

static void refresh_due(rc_scheduler *s)
{
    rc_argv a;
    rc_argv_init(&a);
    rc_argv_seti(&a, RC_REFRESH_MAX, REFRESH_BATCH);
    redisReply *rep = rc_redis_eval(s->r, RC_LUA_REFRESH, rc_now_ms(), &a);
    rc_argv_release(&a);
    if (rep && rep->type == REDIS_REPLY_ARRAY && rep->elements == 2 && rc_reply_int(rep->element[0], 0) > 0)
        rc_debug(MOD, "refresh moved=%lld dropped=%lld", (long long)rc_reply_int(rep->element[0], 0),
                 (long long)rc_reply_int(rep->element[1], 0));
    if (rep)
        freeReplyObject(rep);
}

static job_info *job_get(rc_scheduler *s, const char *crawlid)
{
    uint64_t now = rc_now_ms();
    job_info *j = rc_strmap_get(s->jobs, crawlid);
    if (j && now - j->loaded_ms < 1000)
        return j;
    char key[128];
    redisReply *rep = rc_redis_cmd(s->r, "HMGET %s state spec", rc_redis_key(s->r, key, sizeof key, "job:%s", crawlid));
    if (!rep || rep->type != REDIS_REPLY_ARRAY || rep->elements != 2 || rep->element[0]->type != REDIS_REPLY_STRING) {
        if (rep)
            freeReplyObject(rep);
        return NULL;
    }
    if (!j) {
        j = rc_xcalloc(1, sizeof *j);
        rc_strmap_put(s->jobs, crawlid, j);
    }
    j->running = strcmp(rep->element[0]->str, "running") == 0;
    j->loaded_ms = now;
    rc_job spec;
    char err[256];
    if (rep->element[1]->type == REDIS_REPLY_STRING &&
        rc_job_parse(rep->element[1]->str, rep->element[1]->len, &spec, err, sizeof err) == 0) {
        j->maxdepth = spec.maxdepth;
        j->priority = spec.priority;
        j->expires = spec.expires;
        rc_job_release(&spec);
    }
    freeReplyObject(rep);
    return j;
}

/* A host is blacklisted when it or one of its parent domains is. */
static int blacklisted(const rc_scheduler *s, const char *host)
{
    for (const char *p = host; p; p = strchr(p, '.')) {
        if (*p == '.')
            p++;
        if (rc_strmap_get(s->blacklist, p))
            return 1;
    }
    return 0;
}

#define OWNERS_MAX 1000000 /* remembered hosts; past that the map starts over (ownership is a preference) */

/* Picks the worker for a host: its owner while the owner lives (whatever its budget:
 * the host's politeness lives there), else the next by SWRR among the workers whose backlog has
 * room, so a new host never waits behind a busy worker; when none has room, the next by SWRR
 * all the same (a URL never waits in the frontier while a worker lives: the weights are spare
 * slots, and rebalancing moves hosts off a worker that holds too much). NULL with no worker. */
static worker_info *owner_for(rc_scheduler *s, const char *host)
{
    if (rc_strmap_count(s->owners) > OWNERS_MAX) {
        rc_strmap_free(s->owners, free);
        s->owners = rc_strmap_new();
    }
    const char *owner = rc_strmap_get(s->owners, host);
    worker_info *w = owner ? rc_strmap_get(s->workers, owner) : NULL;
    if (w)
        return w;
    for (size_t tries = rc_wrr_count(s->wrr); tries > 0 && !w; tries--) {
        const char *pick = rc_wrr_next(s->wrr);
        worker_info *c = pick ? rc_strmap_get(s->workers, pick) : NULL;
        if (c && c->budget > 0)
            w = c;
    }
    if (!w) {
        const char *pick = rc_wrr_next(s->wrr);
        w = pick ? rc_strmap_get(s->workers, pick) : NULL;
    }
    if (w) {
        free(rc_strmap_put(s->owners, host, rc_xstrdup(w->id)));
        w->domains++;
    }
    return w;
}

/* Numbers the live workers for one assign.lua call (its records name a worker by index) and
 * puts their ids at the head of its arguments. */
static void add_workers(rc_scheduler *s, rc_argv *a)
{
    rc_argv_addi(a, (int64_t)rc_strmap_count(s->workers));
    size_t it = 0;
    int idx = 0;
    const char *wid;
    void *v;
    while (rc_strmap_next(s->workers, &it, &wid, &v)) {
        ((worker_info *)v)->idx = ++idx;
        rc_argv_add(a, wid);
    }
}

/* Why a whole job's window is dropped (no job, stopped, expired), or NULL. */
static const char *job_refusal(const job_info *j)
{
    if (!j)
        return "nojob";
    if (!j->running)
        return "stopped";
    if (j->expires && (int64_t)(rc_now_ms() / 1000) > j->expires)
        return "expired";
    return NULL;
}

/* The assign.lua code of one record: the index of the worker for its host, or why it is
 * dropped. */
static void code_record(rc_scheduler *s, const job_info *j, const redisReply *m, rc_argv *a)
{
    char url[RC_URL_MAX + 1], host[300];
    int depth = 0;
    const char *reason = NULL;
    int r = rc_record_peek(m->str, m->len, url, sizeof url, &depth);
    if (r == -EAGAIN) { /* an escaped URL: the full parse */
        rc_record rec;
        r = rc_record_parse(m->str, m->len, &rec);
        if (r == 0) {
            snprintf(url, sizeof url, "%s", rec.url);
            depth = rec.depth;
            rc_record_release(&rec);
        }
    }
    if (r < 0)
        reason = r == -ENOSPC ? "badurl" : "invalid";
    else if (rc_url_host_key(url, host, sizeof host) < 0)
        reason = "badurl";
    else if (j->maxdepth >= 0 && depth > j->maxdepth)
        reason = "depth";
    else if (blacklisted(s, host))
        reason = "blacklist";
    if (reason) {
        rc_argv_add(a, "");
        rc_argv_add(a, reason);
        return;
    }
    /* Every URL goes to its job's queue on its host at once: fairness between jobs is the
     * host's turns (take.lua), so nothing waits here behind another job. */
    worker_info *w = owner_for(s, host);
    if (w)
        w->budget--;
    rc_argv_add(a, host);
    rc_argv_addi(a, w ? w->idx : 0); /* 0: the host's recorded owner, if it lives */
}

/* One job's section of the assign.lua arguments: its crawlid, its window's records and theirs
 * codes. */
static void code_job(rc_scheduler *s, const char *crawlid, const redisReply *win, rc_argv *a)
{
    const job_info *j = job_get(s, crawlid);
    const char *refusal = job_refusal(j);
    rc_argv_add(a, crawlid);
    rc_argv_addu(a, win->elements);
    for (size_t i = 0; i < win->elements; i++) {
        const redisReply *m = win->element[i];
        rc_argv_addn(a, m->str, m->len);
        if (refusal) {
            rc_argv_add(a, "");
            rc_argv_add(a, refusal);
        } else
            code_record(s, j, m, a);
    }
}

/* Runs one assign.lua call (arguments built by the caller after add_workers); returns how many
 * records took (assigned + dropped). */
static int64_t apply_round(rc_scheduler *s, const rc_argv *a)
{
    int64_t handled = 0;
    redisReply *res = rc_redis_eval(s->r, RC_LUA_ASSIGN, rc_now_ms(), a);
    if (res && res->type == REDIS_REPLY_ARRAY && res->elements == 3) {
        int64_t as = rc_reply_int(res->element[0], 0), dr = rc_reply_int(res->element[1], 0);
        int64_t gr = rc_reply_int(res->element[2], 0);
        s->dispatched += (uint64_t)as;
        s->dropped += (uint64_t)dr;
        if (s->metrics) {
            rc_metric_add(s->metrics->dispatched, NULL, (double)as);
            rc_metric_add(s->metrics->dropped, NULL, (double)dr);
        }
        handled = as + dr;
        rc_debug(MOD, "dispatch assigned=%lld dropped=%lld", (long long)as, (long long)dr);
        if (gr)
            rc_info(MOD, "orphaned hosts got new owners hosts=%lld", (long long)gr);
        if (s->refused)
            rc_info(MOD, "Redis accepts writes again: dispatching");
        s->refused = 0;
    } else if (res && res->type == REDIS_REPLY_ERROR && rc_redis_refusal(res->str)) {
        note_refusal(s, res->str);
    } else {
        rc_error(MOD, "assign failed: %s", res && res->str ? res->str : "no reply");
    }
    if (res)
        freeReplyObject(res);
    return handled;
}

#define ORPHANS_MAX 1000 /* orphaned hosts given new owners per second */

/* Hosts whose owner was reaped keep their queues (rc:orphans, host -> next allowed time):
 * each gets a new owner like a new host, its queues and delay with it. Once a second. */
static void grant_orphans(rc_scheduler *s)
{
    char key[128];
    redisReply *rep =
        rc_redis_cmd(s->r, "ZRANGE %s 0 %d", rc_redis_key(s->r, key, sizeof key, "orphans"), ORPHANS_MAX - 1);
    if (!rep || rep->type != REDIS_REPLY_ARRAY || rep->elements == 0 || rc_strmap_count(s->workers) == 0) {
        if (rep)
            freeReplyObject(rep);
        return;
    }
    rc_argv a;
    rc_argv_init(&a);
    add_workers(s, &a);
    rc_argv_addi(&a, 0); /* no job */
    rc_argv grant;
    rc_argv_init(&grant);
    int64_t no = 0;
    for (size_t i = 0; i < rep->elements; i++) {
        const char *host = rep->element[i]->str;
        char *old = rc_strmap_del(s->owners, host); /* its owner is gone */
        free(old);
        worker_info *w = owner_for(s, host);
        if (!w)
            continue;
        rc_argv_add(&grant, host);
        rc_argv_addi(&grant, w->idx);
        no++;
    }
    freeReplyObject(rep);
    rc_argv_addi(&a, no);
    for (int i = 0; i < grant.n; i++)
        rc_argv_addn(&a, grant.v[i], grant.len[i]);
    if (no)
        apply_round(s, &a);
    rc_argv_release(&grant);
    rc_argv_release(&a);
}

#define WINDOW_MIN 10 /* records read per job and round, whatever its share */

/* The jobs with a frontier (rc:frontier) and the window of each: its share of the batch by
 * priority, so that a job of priority 2 is dispatched twice as fast as one of priority 1, and
 * a new job's first URLs go in the next round whatever another job's backlog. Fills the
 * window.lua arguments; returns the number of jobs, or -1. */
static int64_t plan_windows(rc_scheduler *s, rc_argv *win)
{
    char key[128];
    redisReply *rep = rc_redis_cmd(s->r, "SMEMBERS %s", rc_redis_key(s->r, key, sizeof key, "frontier"));
    if (!rep || rep->type != REDIS_REPLY_ARRAY) {
        if (rep)
            freeReplyObject(rep);
        return -1;
    }
    int64_t total = 0;
    for (size_t i = 0; i < rep->elements; i++) {
        const job_info *j = job_get(s, rep->element[i]->str);
        total += j && j->priority > 1 ? j->priority : 1;
    }
    for (size_t i = 0; i < rep->elements; i++) {
        const job_info *j = job_get(s, rep->element[i]->str);
        int64_t share = s->conf->batch * (j && j->priority > 1 ? j->priority : 1) / (total ? total : 1);
        rc_argv_add(win, rep->element[i]->str);
        rc_argv_addi(win, share > WINDOW_MIN ? share : WINDOW_MIN);
    }
    int64_t n = (int64_t)rep->elements;
    freeReplyObject(rep);
    return n;
}

/* One dispatch round: a window of every job's frontier, in one assign.lua call. Returns 1 when
 * a job's window came back full (more is waiting), else 0. */
static int dispatch(rc_scheduler *s)
{
    uint64_t t0 = rc_mono_us();
    rc_argv win;
    rc_argv_init(&win);
    int64_t nj = plan_windows(s, &win);
    redisReply *rep = nj > 0 ? rc_redis_eval(s->r, RC_LUA_WINDOW, rc_now_ms(), &win) : NULL;
    int more = 0;
    if (rep && rep->type == REDIS_REPLY_ARRAY && (int64_t)rep->elements == nj) {
        rc_argv a;
        rc_argv_init(&a);
        add_workers(s, &a);
        rc_argv_addi(&a, nj);
        size_t records = 0;
        for (size_t i = 0; i < rep->elements; i++) {
            const redisReply *w = rep->element[i];
            if (w->type != REDIS_REPLY_ARRAY)
                continue;
            code_job(s, win.v[2 * i], w, &a);
            records += w->elements;
            more |= (int64_t)w->elements >= strtoll(win.v[2 * i + 1], NULL, 10);
        }
        rc_argv_addi(&a, 0); /* no orphans */
        apply_round(s, &a);
        rc_argv_release(&a);
        if (s->metrics && records > 0)
            rc_metric_observe(s->metrics->round_seconds, (double)(rc_mono_us() - t0) / 1e6);
    } else if (rep && rep->type == REDIS_REPLY_ERROR)
        rc_error(MOD, "window failed: %s", rep->str);
    if (rep)
        freeReplyObject(rep);
    rc_argv_release(&win);
    s->last_dispatch_ms = rc_now_ms();
    return more;
}

/* Gauges, once a second after the worker table was read (one frontier.lua call more). */
static void sample_gauges(rc_scheduler *s)
{
    rc_sched_metrics *m = s->metrics;
    if (!m)
        return;
    rc_metric_set(m->leader, NULL, s->leader);
    if (!s->leader)
        return;
    int64_t frontier = rc_seeds_count(s->r, NULL);
    rc_metric_set(m->frontier, NULL, (double)(frontier > 0 ? frontier : 0));
    rc_metric_set(m->workers, NULL, (double)rc_strmap_count(s->workers));
    size_t it = 0;
    const char *wid;
    void *v;
    while (rc_strmap_next(s->workers, &it, &wid, &v)) {
        const worker_info *w = v;
        rc_metric_set(m->queued, wid, (double)w->queued);
        rc_metric_set(m->domains, wid, (double)w->domains);
        rc_metric_set(m->rate, wid, w->rate);
    }
    /* Workers come and go: the per-worker gauges show only the live ones. */
    rc_metric_sweep(m->queued);
    rc_metric_sweep(m->domains);
    rc_metric_sweep(m->rate);
}

/* A worker registered since the last refresh: the refresh comes now rather than at the next
 * second, so hosts go to every worker that has registered (a one-page crawl waited ~1 s for its
 * first worker; a fleet starting together gave a job's every host to the first to register). A
 * registration nudges the scheduler (work.lua's heartbeat); the tick after a nudge, or every tick
 * while no worker is known (nudges may be lost), compares ZCARD workers with the workers known:
 * one ZCARD, only then. */
static int worker_set_changed(rc_scheduler *s)
{
    size_t known = rc_strmap_count(s->workers);
    int nudged = s->nudged;
    s->nudged = 0;
    if (!s->leader || (known > 0 && !nudged))
        return 0;
    char key[256];
    redisReply *rep = rc_redis_cmd(s->r, "ZCARD %s", rc_redis_key(s->r, key, sizeof key, "workers"));
    int64_t n = rc_reply_int(rep, 0);
    if (rep)
        freeReplyObject(rep);
    return n > 0 && (size_t)n != known + rc_strmap_count(s->draining);
}

/* The next tick in secs; the time until then is an absence this scheduler means. */
static void tick_again(rc_scheduler *s, double secs)
{
    uint64_t now = rc_now_ms();
    pace_mark(s, now, 0);
    s->away_ms = (uint64_t)(secs * 1000);
    ev_timer_set(&s->tick, secs, 0);
    ev_timer_start(s->loop, &s->tick);
}

static void on_tick(struct ev_loop *loop, ev_timer *t, int revents)
{
    rc_scheduler *s = t->data;
    uint64_t now = rc_now_ms();
    double next = (double)s->conf->tick_ms / 1000.0;
    int refreshed = 0;
    pace_mark(s, now, s->away_ms);
    if (now - s->last_refresh_ms >= 1000 || worker_set_changed(s)) {
        if (!hold_lock(s)) {
            sample_gauges(s);
            s->last_refresh_ms = now;
            tick_again(s, 1.0);
            return;
        }
        refreshed = 1;
        rc_wake_retarget(s->wake, rc_redis_node(s->r)); /* a cluster's failover moved the keyspace */
        check_run_id(s);
        check_memory(s);
        refresh_workers(s);
        grant_orphans(s);
        give_away_drained(s);
        rebalance(s);
        refresh_due(s);
        sample_gauges(s);
    }
    if (s->leader && s->fwd && rc_forward_run(s->fwd, s->conf->batch) >= s->conf->batch)
        next = 0; /* an outbox held more: go again at once */
    if (s->leader && s->budget)
        rc_budget_run(s->budget, now);
    if (s->refused && !refreshed) {
        next = 1.0 - (double)(now - s->last_refresh_ms) / 1000.0; /* refused: dispatch once a second */
    } else if (s->leader && rc_strmap_count(s->workers) > 0) {
        if (dispatch(s))
            next = 0; /* more is waiting: go again at once */
    }
    tick_again(s, next);
}

rc_scheduler *rc_scheduler_new(struct ev_loop *loop, const rc_sched_conf *conf, rc_sched_metrics *metrics, char *err,
                               size_t cap)
{
    char prefix[256];
    if (rc_shard_prefix_conf(conf->prefix, (long long)conf->shard, (long long)conf->shards, prefix, sizeof prefix, err,
                             cap) < 0)
        return NULL;
    rc_redis *r = rc_redis_new(conf->redis, prefix, err, cap);
    if (!r)
        return NULL;
    rc_forward *fwd = NULL;
    int shards = conf->shards > 1 ? (int)conf->shards : 1;
    if (shards > 1 && !(fwd = rc_forward_new(conf->redis, conf->prefix, (int)conf->shard, shards, r, err, cap))) {
        rc_redis_free(r);
        return NULL;
    }
    rc_redis_say_tag(r);
    rc_scheduler *s = rc_xcalloc(1, sizeof *s);
    s->loop = loop;
    s->conf = conf;
    s->r = r;
    s->fwd = fwd;
    s->budget = fwd ? rc_budget_new(fwd, (int)conf->shard, shards) : NULL;
    rc_process_id(s->id, sizeof s->id);
    s->wrr = rc_wrr_new();
    s->owners = rc_strmap_new();
    s->workers = rc_strmap_new();
    s->jobs = rc_strmap_new();
    s->blacklist = rc_strmap_new();
    s->draining = rc_strmap_new();
    s->pace = rc_pace_new();
    /* Domain owners survive a scheduler restart: load them. */
    char key[128];
    redisReply *rep = rc_redis_cmd(r, "HGETALL %s", rc_redis_key(r, key, sizeof key, "owner"));
    if (rep && rep->type == REDIS_REPLY_ARRAY)
        for (size_t i = 0; i + 1 < rep->elements; i += 2)
            free(rc_strmap_put(s->owners, rep->element[i]->str, rc_xstrdup(rep->element[i + 1]->str)));
    if (rep)
        freeReplyObject(rep);
    ev_timer_init(&s->tick, on_tick, 0, 0);
    s->tick.data = s;
    s->metrics = metrics;
    return s;
}

#define WAKE_GAP_MS 5 /* nudges closer than this share one dispatch round */

/* Seeds arrived while the frontier was empty: dispatch now instead of at the next tick. */
static void on_wake(void *ud)
{
    rc_scheduler *s = ud;
    if (!s->leader || s->refused)
        return;
    s->nudged = 1;
    uint64_t since = rc_now_ms() - s->last_dispatch_ms;
    double after = since >= WAKE_GAP_MS ? 0 : (double)(WAKE_GAP_MS - since) / 1000.0;
    if (ev_timer_remaining(s->loop, &s->tick) > after) {
        ev_timer_stop(s->loop, &s->tick);
        ev_timer_set(&s->tick, after, 0);
        ev_timer_start(s->loop, &s->tick);
    }
}

/* The nudge channel: without it the scheduler still dispatches every --tick-ms. */
static void start_wake(rc_scheduler *s)
{
    char err[256], channel[160];
    if (s->conf->poll_only)
        return;
    snprintf(channel, sizeof channel, "%swake:sched", rc_redis_prefix(s->r));
    /* The node the client talks to: on a cluster the keyspace's master (the wake follows it). */
    if (!(s->wake = rc_wake_new(s->loop, rc_redis_node(s->r), channel, on_wake, s, err, sizeof err)))
        rc_warn(MOD, "no dispatch nudges (dispatching every %lld ms): %s", (long long)s->conf->tick_ms, err);
}

void rc_scheduler_start(rc_scheduler *s)
{
    rc_info(MOD, "started id=%s redis=%s prefix=%s", s->id, rc_redis_url(s->r), rc_redis_prefix(s->r));
    start_wake(s);
    ev_timer_start(s->loop, &s->tick);
}

void rc_scheduler_stop(rc_scheduler *s)
{
    rc_wake_free(s->wake);
    s->wake = NULL;
    ev_timer_stop(s->loop, &s->tick);
    if (s->leader) {
        /* Hand over at once instead of making a standby wait for the lease to run out. */
        char key[128];
        redisReply *rep = rc_redis_cmd(s->r, "DEL %s", rc_redis_key(s->r, key, sizeof key, "lock:scheduler"));
        if (rep)
            freeReplyObject(rep);
    }
    rc_info(MOD, "stopped dispatched=%llu dropped=%llu", (unsigned long long)s->dispatched,
            (unsigned long long)s->dropped);
}

void rc_scheduler_free(rc_scheduler *s)
{
    if (!s)
        return;
    rc_wrr_free(s->wrr);
    rc_strmap_free(s->owners, free);
    rc_strmap_free(s->workers, free_worker);
    rc_strmap_free(s->jobs, free);
    rc_strmap_free(s->blacklist, NULL);
    rc_strmap_free(s->draining, free_worker);
    rc_wake_free(s->wake);
    rc_budget_free(s->budget);
    rc_forward_free(s->fwd);
    rc_pace_free(s->pace);
    rc_redis_free(s->r);
    free(s);
}
