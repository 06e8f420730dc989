/* worker.c - see worker.h. */
#include "worker.h"

#include <curl/curl.h>
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <arpa/inet.h>
#include <ev.h>
#include <hiredis/adapters/libev.h>
#include <hiredis/async.h>
#include <hiredis/hiredis.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "argv.h"
#include "control.h"
#include "cpu.h"
#include "sbloom.h"
#include "fetch.h"
#include "netguard.h"
#include "offload.h"
#include "page.h"
#include "rules.h"
#include "frontier.h"
#include "html.h"
#include "job.h"
#include "cluster.h"
#include "log.h"
#include "recent.h"
#include "recpeek.h"
#include "record.h"
#include "redis.h"
#include "robots.h"
#include "wake.h"
#include "robots_cache.h"
#include "notes.h"
#include "scripts.h"
#include "seen.h"
#include "shard.h"
#include "step.h"
#include "sink.h"
#include "sink_kafka.h"
#include "sink_mongo.h"
#include "sink_warc.h"
#include "strmap.h"
#include "tailids.h"
#include "tls_relay.h"
#include "url.h"
#include "urlfilter.h"
#include "util.h"
#include "metrics.h"
#include "worker_metrics.h"
#include "watchdog.h"

#define MOD "worker"

/* step.lua calls in flight at most. */
#define RC_STEPS_IN_FLIGHT 4
#define RC_ROBOTS_HOLD_S 0.002 /* robots.txt reads and writes wait this long at most for a step */

enum job_state { JOB_LOADING, JOB_READY, JOB_MISSING };

typedef struct task task;

/* Built and freed on the loop. Once READY, the parse threads read pj (page.h says what each
 * thread owns in it: its compiled rules); the loop never changes it again, and it lives until
 * rc_worker_free, after the threads stopped. */
typedef struct job_entry {
    enum job_state state;
    rc_page_job pj; /* parsed, filter built and rules compiled once per worker (when READY) */
    task *waiting;  /* tasks parked until the spec arrives */
} job_entry;

/* One leased URL from take to the ack of its complete. Threads: the loop's, but between
 * rc_offload_submit and on_parsed, when one parse thread has it: that thread writes page, lines
 * and pctx and reads res, rec, job, sitemaps and worker_id, and the loop touches none of the task. */
struct task {
    rc_worker *w;
    task *next;
    char *lease; /* "host<TAB>record", exactly as in lease:{w} */
    char *host;
    rc_record rec;
    job_entry *job;
    rc_argv complete;     /* complete's arguments after prefix and now, while built */
    rc_argv_packed acked; /* the same once sent, kept packed for resends until acked */
    uint64_t *hashes;     /* seen-cache hashes of the links sent, added once Redis took them */
    size_t n_hashes;
    rc_page_result *page; /* between processing and storing */
    char **lines;         /* page's n_lines documents serialised by the parse thread
                             (store_page's order), or NULL; doc_changed: lines[0] is stale */
    size_t n_lines;
    int doc_changed;
    rc_fetch_result *res;       /* owned copy while the parse thread works on it */
    rc_page_ctx pctx;           /* what the parse thread reads (job entry and seen-cache borrowed) */
    char *worker_id;            /* w->id when the fetch ended, for the parse thread: reregister()
                                   rewrites w->id on the loop meanwhile */
    uint64_t delay_ms, park_ms; /* the host's next delay, decided when the fetch ended */
    int sink_waits;             /* sinks still to answer */
    int sink_status;            /* first failure: -EINVAL for good, else transient */
    char sink_err[600];
    int duplicate;
    int stored_somewhere; /* a sink may hold the page: a failed store requeues it as a redelivery */
    int adopted;          /* its take's reply was lost (adopt_orphans): an earlier process may have stored it */
    int last_on_host;     /* its take said it was its host's last queued URL (rc_fetch_req's) */
    long status;
    int ok;
    char *error;
    uint64_t next_ms;
    unsigned epoch;        /* the worker's registration when the lease was taken: its fence token */
    uint64_t lease_end_ms; /* monotonic: when the scheduler may hand the URL out again */
    char *dup_of;          /* held for the fence: the page this one duplicates, or NULL */
    uint64_t fetched_us;   /* monotonic: when the final fetch ended (the store-lag histogram) */
    char *revisit;         /* refreshing jobs: {etag, lm, digest} for the next visit (JSON), or NULL */
    char **sitemaps;       /* a seed's robots.txt Sitemap: lines, copied for the parse thread */
    uint64_t seen_grows;   /* rc_seen_grows when it went to a parse thread */
};

/* Consecutive connection failures of a host this worker owns. */
typedef struct host_health {
    int64_t fails;
} host_health;

struct rc_worker {
    struct ev_loop *loop;
    const rc_worker_conf *conf;
    int tree; /* RC_HTML_TREE_* for pages of jobs without rules */
    char id[160];
    rc_redis *sync; /* startup, shutdown and script SHAs */
    rc_redis_addr addr;
    redisAsyncContext *ac;
    struct rc_tls_relay *relay; /* rediss://: ac's TLS connection (or the one being made) */
    ev_io relay_watcher;        /* its handshake's end */
    rc_fetcher *fetcher;
    rc_netguard *guard; /* the SSRF guard, read by the fetcher */
    rc_store stores[3]; /* every sink, the asynchronous ones first (MongoDB, Kafka
                           firehose, then JSON Lines): a full queue then costs nothing
                           but a later retry */
    size_t n_stores;
    rc_warc_sink *warc;  /* WARC files, for the jobs that ask (written on the loop) */
    rc_sink *jsonl;      /* the JSON Lines sink (owned by its store), or NULL */
    rc_seen *seen;       /* the loop adds; the parse threads look up (atomics, seen.h) */
    int64_t parsing;     /* tasks on a parse thread (rc_offload_submit to on_parsed) */
    uint64_t seen_grows; /* rc_seen_grows at the last grow seen */
    int64_t old_readers; /* tasks that went to a parse thread before it: the older tables wait */
    rc_offload *parse;   /* pages are parsed there, so the loop never waits on a big page */
    rc_strmap *jobs;     /* crawlid -> job_entry */
    rc_robots_cache *robots;
    rc_notes *notes;    /* counter writes nobody waits for, held over a failover */
    rc_strmap *health;  /* host -> host_health */
    rc_strmap *held;    /* lease member -> its task, for every task alive (adopt_orphans) */
    rc_strmap *recheck; /* --recheck: _ids stored before a crash lost their takes, or NULL */
    char ip[64];        /* this worker's address, for the per-ip throttles */
    char hostname[64];
    task *resend; /* completes waiting for Redis to come back (or to accept writes again) */
    task *fenced; /* pages waiting for a heartbeat to prove this worker still holds its leases */
    /* --step-batch > 1: completes wait here (oldest first) for the next step.lua call, which
     * also carries the take and the heartbeat when they are due; RC_STEPS_IN_FLIGHT at most. */
    task *batch, *batch_last;
    int batch_n;
    int steps_out;     /* step calls in flight */
    int64_t in_steps;  /* tasks whose completes ride in those calls */
    int hb_want;       /* a heartbeat waits for the next step */
    int64_t take_want; /* a take of this many URLs waits for the next step, 0 = none */
    ev_timer batch_timer;
    ev_timer robots_timer; /* robots.txt reads and writes held for a step go alone (robots_turn) */
    ev_prepare turn_end;   /* stores that buffer write what this loop turn gave them */
    char base_id[150];
    unsigned epoch; /* registration: bumped when this worker finds it was reaped */
    int registered; /* the first heartbeat went through */
    int hb_outstanding;
    uint64_t hb_ok_ms; /* monotonic: the last heartbeat Redis accepted */
    int refused;       /* Redis refuses writes (OOM, ...): no new work until it accepts again */
    char run_id[48];   /* Redis' INFO run_id: a change means it restarted */
    uint64_t rng;      /* xorshift64 state for retry jitter */
    ev_timer pump_timer, hb_timer, reconnect_timer, drain_timer, resend_timer, lag_timer;
    rc_wake *wake;   /* nudged when hosts are assigned to this worker; NULL = poll only */
    double lag_last; /* ev_time() of the last lag probe */
    double lag_max;  /* worst stall of the loop seen, seconds */
    int take_outstanding;
    int woken;             /* a nudge came while a take was out: that take may have missed the new hosts */
    uint64_t take_sent_ms; /* monotonic, for the local view of lease deadlines */
    uint64_t hb_sent_ms;
    int draining;
    int64_t active;     /* tasks alive */
    double max_rate;    /* pages/s started at most, 0 = none (conf, or rc:ratecap at run time) */
    double tokens;      /* rate cap: pages that may start now (a bucket of one second) */
    uint64_t tokens_ms; /* when tokens was last refilled */
    rc_cpu *cpu;        /* CPU headroom for the heartbeat; the --cpu-cores cap */
    rc_watchdog *dog;   /* fed by the lag probe; NULL with --watchdog 0 */
    uint64_t fetched, errors, links_sent, links_new, started_ms, denied;
    char **connect_to;
    const char *prefix;         /* the keys' prefix: the sync client's (hash-tagged on a cluster) */
    rc_worker_metrics *metrics; /* NULL = --metrics-port off; see worker_metrics.h for threads */
};

/* ---------- Redis plumbing ---------- */

typedef void (*eval_cb)(rc_worker *w, redisReply *rep, void *ud);

/* A script's call in flight. Its arguments are not copied: they are parts of vectors that live
 * until the callback (a task's complete, a step's own), or one the request owns (own). A step
 * of 64 pages is megabytes: copied, it was held twice while out. */
typedef struct eval_part {
    const rc_argv *a;
    const rc_argv_packed *packed; /* or this one's */
    int from;                     /* the arguments from this one on (packed: 0 or 1) */
} eval_part;

typedef struct eval_req {
    rc_worker *w;
    rc_lua_id id;
    eval_cb cb;
    void *ud;
    int resent;
    uint64_t now_ms;
    rc_argv own;
    eval_part *parts;
    int n_parts;
} eval_req;

static void on_eval_reply(redisAsyncContext *ac, void *reply, void *privdata);
static void set_ac(rc_worker *w, redisAsyncContext *ac);

static int part_n(const eval_part *e)
{
    return (e->packed ? e->packed->n : e->a->n) - e->from;
}

static size_t part_len(const eval_part *e)
{
    if (!e->packed)
        return rc_argv_resp_len(e->a, e->from);
    return e->packed->len - (e->from ? e->packed->first : 0);
}

static char *part_put(const eval_part *e, char *p)
{
    if (!e->packed)
        return rc_argv_resp_put(e->a, e->from, p);
    size_t skip = e->from ? e->packed->first : 0;
    memcpy(p, e->packed->data + skip, e->packed->len - skip);
    return p + e->packed->len - skip;
}

/* EVALSHA sha 1 prefix prefix now parts..., or EVAL with the source once Redis lost the script,
 * formatted here from the parts (hiredis copies the command into its output buffer). */
static int send_req(rc_worker *w, eval_req *q)
{
    if (!w->ac)
        return -ENOTCONN;
    const char *head[5] = {q->resent ? "EVAL" : "EVALSHA",
                           q->resent ? rc_lua_scripts[q->id].source : rc_redis_sha(w->sync, q->id), "1", w->prefix,
                           w->prefix};
    char now[24];
    int now_len = snprintf(now, sizeof now, "%" PRIu64, q->now_ms);
    size_t size = 32 + (size_t)now_len + 32, argc = 6; /* 32 bytes an argument over its data: rc_argv_resp_bulk */
    for (size_t i = 0; i < 5; i++)
        size += strlen(head[i]) + 32;
    for (int i = 0; i < q->n_parts; i++) {
        size += part_len(&q->parts[i]);
        argc += (size_t)part_n(&q->parts[i]);
    }
    char *cmd = rc_xmalloc(size), *p = cmd;
    p += snprintf(p, 32, "*%zu\r\n", argc);
    for (size_t i = 0; i < 5; i++)
        p = rc_argv_resp_bulk(p, head[i], strlen(head[i]));
    p = rc_argv_resp_bulk(p, now, (size_t)now_len);
    for (int i = 0; i < q->n_parts; i++)
        p = part_put(&q->parts[i], p);
    int r = redisAsyncFormattedCommand(w->ac, on_eval_reply, q, cmd, (size_t)(p - cmd));
    free(cmd);
    return r == REDIS_OK ? 0 : -EIO;
}

static void eval_req_free(eval_req *q)
{
    rc_argv_release(&q->own);
    free(q->parts);
    free(q);
}

/* Cluster: the keyspace's slot is served by another node now (a failover). The script did not
 * run there: its caller sees a lost connection (holds its work, sends it again) while this
 * connection closes and the next one goes where the keyspace is. */
static int moved(rc_worker *w, redisAsyncContext *ac, const redisReply *rep)
{
    if (!rep || rep->type != REDIS_REPLY_ERROR || !rc_cluster_is_moved(rep->str))
        return 0;
    if (w->ac == ac) {
        rc_warn(MOD, "Redis Cluster: %s -- reconnecting to the keyspace's master", rep->str);
        rc_redis_follow(w->sync, rep->str);
        set_ac(w, NULL);
        redisAsyncDisconnect(ac); /* after the replies still due: each its caller's */
    }
    return 1;
}

static void on_eval_reply(redisAsyncContext *ac, void *reply, void *privdata)
{
    eval_req *q = privdata;
    redisReply *rep = reply;
    if (moved(q->w, ac, rep))
        rep = NULL;
    if (rep && rep->type == REDIS_REPLY_ERROR && strncmp(rep->str, "NOSCRIPT", 8) == 0 && !q->resent) {
        /* Redis restarted and lost the script cache: send the source once, it caches it again. */
        q->resent = 1;
        if (send_req(q->w, q) == 0)
            return;
        rep = NULL;
    }
    if (rep && rep->type == REDIS_REPLY_ERROR && !rc_redis_refusal(rep->str))
        rc_error(MOD, "script %s failed: %s", rc_lua_scripts[q->id].name, rep->str);
    q->cb(q->w, rep, q->ud);
    eval_req_free(q);
}

/* Runs script id with ARGV = prefix, now, then the arguments of parts (each from its from on),
 * which must stay as they are until the callback; own (or NULL) is taken over by the request
 * (left empty) and goes after them. The callback always runs, with NULL when the connection is
 * gone; -ENOTCONN (callback not called) when there is no connection now. */
static int async_eval_parts(rc_worker *w, rc_lua_id id, const eval_part *parts, int n_parts, rc_argv *own, eval_cb cb,
                            void *ud)
{
    int argc = own ? own->n : 0;
    for (int i = 0; i < n_parts; i++)
        argc += part_n(&parts[i]);
    rc_lua_require(id, argc);
    if (!w->ac)
        return -ENOTCONN;
    eval_req *q = rc_xcalloc(1, sizeof *q);
    q->w = w;
    q->id = id;
    q->cb = cb;
    q->ud = ud;
    q->now_ms = rc_now_ms();
    rc_argv_init(&q->own);
    q->parts = rc_xcalloc((size_t)n_parts + 1, sizeof *q->parts);
    if (n_parts)
        memcpy(q->parts, parts, (size_t)n_parts * sizeof *parts);
    q->n_parts = n_parts;
    if (own) {
        q->own = *own;
        rc_argv_init(own);
        q->parts[q->n_parts++] = (eval_part){&q->own, NULL, 0};
    }
    int r = send_req(w, q);
    if (r < 0)
        eval_req_free(q);
    return r;
}

/* Runs script id with ARGV = prefix, now, args: args stays as it is until the callback. */
static int async_eval(rc_worker *w, rc_lua_id id, const rc_argv_packed *args, eval_cb cb, void *ud)
{
    eval_part part = {NULL, args, 0};
    return async_eval_parts(w, id, &part, 1, NULL, cb, ud);
}

/* The same with a vector built for this one call: the request takes it over (left empty). */
static int async_eval_own(rc_worker *w, rc_lua_id id, rc_argv *args, eval_cb cb, void *ud)
{
    return async_eval_parts(w, id, NULL, 0, args, cb, ud);
}

static void connect_redis(rc_worker *w);
static void drop_relay(rc_worker *w);

/* One-shot timers must be re-armed with ev_timer_set: after firing, a plain restart would fire
 * at once (libev keeps the absolute time). */
static void start_reconnect(rc_worker *w)
{
    ev_timer_stop(w->loop, &w->reconnect_timer);
    ev_timer_set(&w->reconnect_timer, 1.0, 0);
    ev_timer_start(w->loop, &w->reconnect_timer);
}

static void pump(rc_worker *w);
static void adopt_orphans(rc_worker *w);
static void send_complete(rc_worker *w, task *t);
static void heartbeat(rc_worker *w);
static void send_steps(rc_worker *w);
static void step_soon(rc_worker *w);

/* Runs fn on every task of a list, detached first (fn may put a task back on it). */
static void each_detached(rc_worker *w, task **list, void (*fn)(rc_worker *, task *))
{
    task *t = *list;
    *list = NULL;
    while (t) {
        task *next = t->next;
        t->next = NULL;
        fn(w, t);
        t = next;
    }
}

static void resend_all(rc_worker *w)
{
    each_detached(w, &w->resend, send_complete);
}

/* Redis restarted when its run_id changes; if it had no persistence the jobs, queues and this
 * worker's registration are gone (the next heartbeat finds out and registers again). */
static void on_info_reply(redisAsyncContext *ac, void *reply, void *privdata)
{
    rc_worker *w = ac->data;
    redisReply *rep = reply;
    if (!w || !rep || rep->type != REDIS_REPLY_STRING)
        return;
    char id[sizeof w->run_id];
    rc_redis_parse_run_id(rep->str, id, sizeof id);
    if (w->run_id[0] && id[0] && strcmp(id, w->run_id) != 0)
        rc_warn(MOD,
                "Redis restarted (run_id %s -> %s): if it ran without persistence its jobs, queues and "
                "leases are gone and must be resubmitted; run it with appendonly yes",
                w->run_id, id);
    snprintf(w->run_id, sizeof w->run_id, "%s", id);
}

/* Redis refuses writes (at maxmemory, loading, a read-only replica): said once; no new work
 * is taken and completes are held and retried every second; heartbeats go on (hb.lua is
 * flagged allow-oom). Said again when it accepts writes. */
static void note_refusal(rc_worker *w, const char *err)
{
    if (w->refused)
        return;
    w->refused = 1;
    rc_error(MOD,
             "Redis refuses writes: %s -- taking no new work, %lld pages in flight held and retried every "
             "second, heartbeats go on; free memory or raise maxmemory (README: Redis sizing)",
             err, (long long)w->active);
}

static void note_accepted(rc_worker *w)
{
    if (!w->refused)
        return;
    w->refused = 0;
    rc_info(MOD, "Redis accepts writes again: resuming");
}

static void hold_complete(rc_worker *w, task *t)
{
    t->next = w->resend;
    w->resend = t;
    if (!ev_is_active(&w->resend_timer)) {
        ev_timer_set(&w->resend_timer, 1.0, 0);
        ev_timer_start(w->loop, &w->resend_timer);
    }
}

static void on_resend_timer(struct ev_loop *loop, ev_timer *t, int revents)
{
    rc_worker *w = t->data;
    if (w->ac)
        resend_all(w);
}

/* The one place the connection changes, so every user of it (the robots cache) follows. */
static void set_ac(rc_worker *w, redisAsyncContext *ac)
{
    w->ac = ac;
    rc_robots_cache_set_redis(w->robots, ac);
    rc_notes_set_redis(w->notes, ac);
}

static void on_connect(const redisAsyncContext *ac, int status)
{
    rc_worker *w = ac->data;
    if (status != REDIS_OK) {
        rc_warn(MOD, "cannot reach Redis: %s (retrying every second)", ac->errstr);
        set_ac(w, NULL); /* hiredis frees the context after this callback */
        drop_relay(w);
        start_reconnect(w);
        return;
    }
    rc_info(MOD, "connected to Redis");
    redisAsyncCommand(w->ac, on_info_reply, NULL, "INFO server");
    adopt_orphans(w);
    heartbeat(w);
    /* Completes that could not be delivered go first: their pages are already stored. */
    resend_all(w);
    pump(w);
}

static void on_disconnect(const redisAsyncContext *ac, int status)
{
    rc_worker *w = ac->data;
    set_ac(w, NULL);
    drop_relay(w); /* hiredis closes its end after this callback; the relay's goes now */
    if (status != REDIS_OK)
        rc_warn(MOD, "lost Redis: %s (reconnecting)", ac->errstr);
    if (!w->draining || w->active > 0)
        start_reconnect(w);
}

static void on_reconnect_timer(struct ev_loop *loop, ev_timer *t, int revents)
{
    connect_redis(t->data);
}

/* rediss://: the TLS relay of the current connection attempt or connection, if any. */
static void drop_relay(rc_worker *w)
{
    if (!w->relay)
        return;
    ev_io_stop(w->loop, &w->relay_watcher);
    rc_tls_relay_free(w->relay);
    w->relay = NULL;
}

/* path: the TLS relay's socket, or NULL for the address itself. */
static void attach_redis(rc_worker *w, const char *path)
{
    redisAsyncContext *ac = path              ? redisAsyncConnectUnix(path)
                            : w->addr.path[0] ? redisAsyncConnectUnix(w->addr.path)
                                              : redisAsyncConnect(w->addr.host, w->addr.port);
    if (!ac || ac->err) {
        rc_warn(MOD, "cannot connect to Redis: %s", ac ? ac->errstr : "out of memory");
        if (ac)
            redisAsyncFree(ac);
        drop_relay(w);
        start_reconnect(w);
        return;
    }
    rc_fd_cloexec(ac->c.fd);
    ac->data = w;
    redisLibevAttach(w->loop, ac);
    redisAsyncSetConnectCallback(ac, on_connect);
    redisAsyncSetDisconnectCallback(ac, on_disconnect);
    /* Queued before anything else on the connection, so every command runs authenticated. */
    if (w->addr.password[0] && w->addr.user[0])
        redisAsyncCommand(ac, NULL, NULL, "AUTH %s %s", w->addr.user, w->addr.password);
    else if (w->addr.password[0])
        redisAsyncCommand(ac, NULL, NULL, "AUTH %s", w->addr.password);
    if (w->addr.db)
        redisAsyncCommand(ac, NULL, NULL, "SELECT %d", w->addr.db);
    set_ac(w, ac);
}

/* The relay's handshake ended (on its thread: the loop went on meanwhile). */
static void on_relay_ready(struct ev_loop *loop, ev_io *io, int revents)
{
    rc_worker *w = io->data;
    char err[512];
    ev_io_stop(loop, io);
    if (rc_tls_relay_wait(w->relay, 0, err, sizeof err) < 0) {
        rc_warn(MOD, "cannot reach Redis: %s (retrying every second)", err);
        drop_relay(w);
        start_reconnect(w);
        return;
    }
    attach_redis(w, rc_tls_relay_path(w->relay));
}

/* Cluster: each connection goes to the keyspace's master as the cluster tells it now (the sync
 * client asks; the other nodes when the last one is gone), and the nudges follow. */
static void locate_keyspace(rc_worker *w)
{
    if (!rc_redis_cluster(w->sync))
        return;
    if (rc_redis_relocate(w->sync) < 0)
        rc_warn(MOD, "Redis Cluster: cannot locate the keyspace's master now: %s", rc_redis_error(w->sync));
    const rc_redis_addr *n = rc_redis_node(w->sync);
    if (strcmp(n->host, w->addr.host) != 0 || n->port != w->addr.port) {
        rc_info(MOD, "Redis Cluster: the keyspace's master is %s:%d", n->host, n->port);
        w->addr = *n;
        w->run_id[0] = '\0'; /* another node's run_id: no restart */
    }
    rc_wake_retarget(w->wake, &w->addr);
}

static void connect_redis(rc_worker *w)
{
    char err[512];
    locate_keyspace(w);
    if (!w->addr.tls) {
        attach_redis(w, NULL);
        return;
    }
    drop_relay(w);
    if (rc_redis_tls_start(&w->addr, 5000, &w->relay, err, sizeof err) < 0) {
        rc_warn(MOD, "cannot reach Redis: %s (retrying every second)", err);
        start_reconnect(w);
        return;
    }
    ev_io_init(&w->relay_watcher, on_relay_ready, rc_tls_relay_ready_fd(w->relay), EV_READ);
    w->relay_watcher.data = w;
    ev_io_start(w->loop, &w->relay_watcher);
}

/* ---------- tasks ---------- */

/* Frees a page's serialised documents (store_page's order: page, first URL's, items). */
static void lines_free(char **lines, size_t n)
{
    for (size_t i = 0; lines && i < n; i++)
        free(lines[i]);
    free(lines);
}

/* A task's page, made by the parse thread (its record's JSON tree, links, serialised
 * documents: a few dozen allocations) and given back to a parse thread to free
 * (rc_offload_dispose): freed on the loop, each went back to the parse thread's arena under
 * its lock. */
typedef struct page_box {
    rc_offload_trash trash; /* first: the box is its trash item */
    rc_page_result pg;
    char **lines; /* the documents store_page wrote (freed with the page) */
    size_t n_lines;
} page_box;

static rc_page_result *page_new(void)
{
    page_box *b = rc_xcalloc(1, sizeof *b);
    return &b->pg;
}

static page_box *box_of(rc_page_result *pg)
{
    return (page_box *)(void *)((char *)pg - offsetof(page_box, pg));
}

static void page_box_free(rc_offload_trash *item)
{
    page_box *b = (page_box *)(void *)item;
    rc_page_result_release(&b->pg);
    lines_free(b->lines, b->n_lines);
    free(b);
}

/* The page's serialised documents go with it. */
static void page_keep_lines(rc_page_result *pg, char **lines, size_t n)
{
    page_box *b = box_of(pg);
    lines_free(b->lines, b->n_lines);
    b->lines = lines;
    b->n_lines = n;
}

/* How many documents a page stores: its record, at a redirect chain's end its first URL's
 * record again, then its items. */
static size_t page_docs(const rc_page_result *pg)
{
    return (pg->first_doc ? 2 : 1) + json_array_size(pg->items);
}

static char *dump_doc(const rc_page_result *pg, size_t i)
{
    size_t npages = pg->first_doc ? 2 : 1;
    if (i == 0)
        return json_dumps(pg->doc, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(6));
    if (i < npages)
        return json_dumps(pg->first_doc, JSON_COMPACT | JSON_PRESERVE_ORDER);
    return json_dumps(json_array_get(pg->items, i - npages),
                      JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(9));
}

static void task_free(task *t)
{
    lines_free(t->lines, t->n_lines);
    free(t->dup_of);
    free(t->worker_id);
    rc_fetch_result_free(t->res);
    rc_strv_free(t->sitemaps);
    free(t->revisit);
    if (t->page)
        page_box_free(&box_of(t->page)->trash);
    free(t->error);
    free(t->lease);
    free(t->host);
    rc_record_release(&t->rec);
    rc_argv_release(&t->complete);
    rc_argv_packed_release(&t->acked);
    free(t->hashes);
    free(t);
}

static void task_done(rc_worker *w, task *t)
{
    rc_strmap_del(w->held, t->lease);
    task_free(t);
    w->active--;
    pump(w);
}

/* The seen-cache's replaced tables are freed once no parse thread can be on one: when every
 * page that was being parsed at its last grow has come back (one that started since reads the
 * new table). At 1,000 x 20 they were 0.5 MB, kept for the whole crawl. */
static void seen_grown(rc_worker *w)
{
    if (rc_seen_grows(w->seen) == w->seen_grows)
        return;
    w->seen_grows = rc_seen_grows(w->seen);
    w->old_readers = w->parsing;
    if (w->old_readers == 0)
        rc_seen_drop_older(w->seen);
}

static void seen_reader_done(rc_worker *w, const task *t)
{
    w->parsing--;
    if (t->seen_grows != w->seen_grows && --w->old_readers == 0)
        rc_seen_drop_older(w->seen);
}

static void on_complete_reply(rc_worker *w, redisReply *rep, void *ud)
{
    task *t = ud;
    if (!rep) {
        /* Connection lost before the ack: keep the task and resend after reconnecting. The
         * script is idempotent per lease (a second run finds no lease and does nothing). */
        t->next = w->resend;
        w->resend = t;
        return;
    }
    if (rep->type == REDIS_REPLY_ERROR && rc_redis_refusal(rep->str)) {
        /* complete.lua is refused whole (no allow-oom flag): nothing of it happened; retry. */
        note_refusal(w, rep->str);
        hold_complete(w, t);
        return;
    }
    if (rep->type == REDIS_REPLY_ARRAY && rep->elements >= 3) {
        int64_t ok = rc_reply_int(rep->element[0], -1);
        note_accepted(w);
        if (ok == 1) {
            for (size_t i = 0; i < t->n_hashes; i++)
                rc_seen_add(w->seen, t->hashes[i]);
            seen_grown(w);
            int64_t fresh = rc_reply_int(rep->element[1], 0);
            int64_t refused = rep->elements > 3 ? rc_reply_int(rep->element[3], 0) : 0;
            /* Links robots.txt forbids, new to the job: new links, denied at once. */
            w->links_new += (uint64_t)(fresh + refused);
            w->denied += (uint64_t)refused;
            if (w->metrics) {
                rc_metric_add(w->metrics->links_new, NULL, (double)(fresh + refused));
                rc_metric_add(w->metrics->robots_denied, "disallowed", (double)refused);
            }
        } else {
            if (w->metrics)
                rc_metric_add(w->metrics->errors, "lease_lost", 1);
            rc_warn(MOD, "lease lost before completion url=%s (the URL went back to the frontier)", t->rec.url);
        }
    }
    task_done(w, t);
}

/* A task whose lease belongs to an earlier registration of this worker (reaped since) has no
 * effect any more: neither stored nor acked. */
static int stale(rc_worker *w, task *t)
{
    if (t->epoch == w->epoch)
        return 0;
    rc_debug(MOD, "dropping a page of a void registration url=%s", t->rec.url);
    task_done(w, t);
    return 1;
}

/* Completes, takes and heartbeats go through step.lua, many pages to a call. */
static int stepping(const rc_worker *w)
{
    return w->conf->step_batch > 1;
}

/* A page's complete waits for the next step: sent when the batch is full, else as step_soon
 * says, or sooner with a heartbeat. */
static void batch_complete(rc_worker *w, task *t)
{
    t->next = NULL;
    if (w->batch_last)
        w->batch_last->next = t;
    else
        w->batch = t;
    w->batch_last = t;
    w->batch_n++;
    if (w->batch_n >= w->conf->step_batch)
        send_steps(w);
    else
        step_soon(w);
}

/* A complete just built is packed once, before it is first sent: it is then only read (sent,
 * resent), and packed it takes less than half the bytes while it waits. */
static void pack_complete(task *t)
{
    if (t->complete.n == 0)
        return;
    rc_argv_packed_release(&t->acked);
    rc_argv_pack(&t->complete, &t->acked);
    rc_argv_release(&t->complete);
}

static void send_complete(rc_worker *w, task *t)
{
    if (stale(w, t))
        return;
    pack_complete(t);
    if (stepping(w)) {
        batch_complete(w, t);
        return;
    }
    if (async_eval(w, RC_LUA_COMPLETE, &t->acked, on_complete_reply, t) < 0) {
        t->next = w->resend;
        w->resend = t;
    }
}

/* ---------- page processing (worker/page.c does the work) ---------- */

/* Retry-After: delay-seconds or an HTTP date; capped at an hour. */
static uint64_t retry_after_ms(const char *v, uint64_t now_ms)
{
    if (!v)
        return 0;
    int64_t secs;
    if (rc_parse_i64(v, 0, 3600, &secs) == 0)
        return (uint64_t)secs * 1000;
    time_t when = curl_getdate(v, NULL);
    if (when > 0 && (uint64_t)when * 1000 > now_ms)
        return RC_MIN((uint64_t)when * 1000 - now_ms, 3600000u);
    return 0;
}

static void add_complete_head(task *t, uint64_t next_ms, const char *outcome, const char *reason, long status,
                              int64_t items, int64_t items_dropped, uint64_t refresh_at)
{
    rc_argv *a = &t->complete;
    rc_argv_set(a, RC_COMPLETE_WORKER, t->w->id);
    rc_argv_set(a, RC_COMPLETE_LEASE, t->lease);
    rc_argv_set(a, RC_COMPLETE_HOST, t->host);
    rc_argv_setu(a, RC_COMPLETE_NEXT_MS, next_ms);
    rc_argv_set(a, RC_COMPLETE_OUTCOME, outcome);
    rc_argv_set(a, RC_COMPLETE_REASON, reason ? reason : "");
    rc_argv_seti(a, RC_COMPLETE_STATUS, status);
    rc_argv_seti(a, RC_COMPLETE_ITEMS, items);
    rc_argv_seti(a, RC_COMPLETE_ITEMS_DROPPED, items_dropped);
    rc_argv_setu(a, RC_COMPLETE_REFRESH_AT, refresh_at);
    rc_argv_set(a, RC_COMPLETE_REVISIT, t->revisit ? t->revisit : "");
}

/* A complete that carries no links (k is then unread: 1) and goes at once. */
static void complete_no_links(rc_worker *w, task *t, uint64_t next_ms, const char *outcome, const char *reason,
                              long status)
{
    add_complete_head(t, next_ms, outcome, reason, status, 0, 0, 0);
    rc_argv_setu(&t->complete, RC_COMPLETE_K, 1);
    rc_argv_setu(&t->complete, RC_COMPLETE_N, 0);
    rc_argv_setu(&t->complete, RC_COMPLETE_DENIED, 0);
    rc_argv_setu(&t->complete, RC_COMPLETE_AWAY, 0);
    send_complete(w, t);
}

static void origin_of(const char *url, const char *host, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s://%s", strncmp(url, "https:", 6) == 0 ? "https" : "http", host);
}

/* The wait before the next hit on this host: the configured delay, the site's Crawl-delay
 * (capped), and delay_factor x the last response time (servers that slow down get more room). */
static uint64_t host_delay_ms(rc_worker *w, const task *t, double fetch_ms)
{
    const rc_worker_conf *conf = w->conf;
    double d = conf->delay * 1000;
    char origin[320];
    origin_of(t->rec.url, t->host, origin, sizeof origin);
    const rc_robots *rules = rc_robots_cache_peek(w->robots, origin);
    if (rules) {
        double cd = rc_robots_crawl_delay(rules);
        if (cd > 0)
            d = RC_MAX(d, RC_MIN(cd, conf->max_crawl_delay) * 1000);
    }
    d = RC_MAX(d, RC_MIN(conf->delay_factor * fetch_ms, conf->max_delay * 1000));
    return (uint64_t)d;
}

/* The wait between a host's robots.txt fetch and its first page: its delay, or --robots-delay
 * when that is shorter (a request's latency on a new host is mostly this wait). Only this one
 * gap: the page's own fetch sets the next one by host_delay_ms, Crawl-delay included. */
static uint64_t robots_gap_ms(rc_worker *w, const task *t)
{
    uint64_t d = host_delay_ms(w, t, 0);
    if (w->conf->robots_delay < 0)
        return d;
    return RC_MIN(d, (uint64_t)(w->conf->robots_delay * 1000));
}

/* A host that refuses connections again and again is parked: its next fetch waits
 * delay x 2^fails (capped by max_delay). Returns the back-off in ms, 0 when healthy. */
static uint64_t host_failed(rc_worker *w, const char *host, int failed)
{
    host_health *h = rc_strmap_get(w->health, host);
    if (!failed) {
        if (h)
            free(rc_strmap_del(w->health, host));
        return 0;
    }
    if (!h) {
        h = rc_xcalloc(1, sizeof *h);
        rc_strmap_put(w->health, host, h);
    }
    h->fails++;
    if (h->fails < w->conf->park_after)
        return 0;
    double back = RC_MAX(w->conf->delay, 1.0) * 1000 * (double)(1ull << RC_MIN(h->fails, 20));
    back = RC_MIN(back, w->conf->max_delay * 1000);
    if (h->fails == w->conf->park_after)
        rc_warn(MOD, "host parked after %lld connection failures host=%s backoff_ms=%.0f", (long long)h->fails, host,
                back);
    char key[200];
    snprintf(key, sizeof key, "%sparked", w->prefix);
    rc_notes_send(w->notes, "ZADD %s %llu %s", key, (unsigned long long)(rc_now_ms() + back), host);
    return (uint64_t)back;
}

static void store_page(rc_worker *w, task *t, const char *duplicate_of);
static void release_task(rc_worker *w, task *t, const char *why);

static uint64_t fence_ms(const rc_worker *w)
{
    return (uint64_t)(w->conf->fence * 1000);
}

/* The fence: a page is stored only while this worker's registration is proven (a heartbeat
 * sent less than --fence seconds ago was accepted; --fence is below the scheduler's
 * --worker-timeout, so the worker cannot have been reaped) and its lease has more than that
 * left. Otherwise it waits for a heartbeat: one that finds the worker reaped voids the task
 * (re-registration bumps the epoch), so a stalled worker that wakes stores nothing. */
static void store_fenced(rc_worker *w, task *t, const char *dup_of)
{
    if (stale(w, t))
        return;
    uint64_t now = rc_mono_ms();
    if (now + fence_ms(w) > t->lease_end_ms) {
        release_task(w, t, "lease nearly over");
        return;
    }
    if (w->registered && now < w->hb_ok_ms + fence_ms(w)) {
        store_page(w, t, dup_of);
        return;
    }
    t->dup_of = dup_of ? rc_xstrdup(dup_of) : NULL;
    t->next = w->fenced;
    w->fenced = t;
    heartbeat(w);
}

static void store_held(rc_worker *w, task *t)
{
    char *dup_of = t->dup_of;
    t->dup_of = NULL;
    store_fenced(w, t, dup_of);
    free(dup_of);
}

static void release_fenced(rc_worker *w)
{
    each_detached(w, &w->fenced, store_held);
}

/* Content dedup: the first URL to store a main text owns its digest (HSETNX); a later page with
 * the same text is recorded as a duplicate of it (counted in the job's `duplicates`), its text
 * not stored again; its items are. The same
 * URL seen again (a redelivery) finds itself and is not a duplicate. */
static void on_digest_reply(redisAsyncContext *ac, void *reply, void *privdata)
{
    task *t = privdata;
    rc_worker *w = t->w;
    redisReply *rep = reply;
    const char *first = rep && rep->type == REDIS_REPLY_STRING ? rep->str : NULL;
    store_fenced(w, t, first && strcmp(first, t->rec.url) != 0 ? first : NULL);
}

static void check_digest(rc_worker *w, task *t)
{
    char key[200];
    snprintf(key, sizeof key, "%sdigest:%s", w->prefix, t->rec.crawlid);
    if (!w->ac ||
        redisAsyncCommand(w->ac, NULL, NULL, "HSETNX %s %s %s", key, t->page->digest, t->rec.url) != REDIS_OK ||
        redisAsyncCommand(w->ac, on_digest_reply, t, "HGET %s %s", key, t->page->digest) != REDIS_OK)
        store_fenced(w, t, NULL); /* no Redis now: the fence decides; the complete waits anyway */
}

/* The job's store_errors (writes that failed and were retried) and store_failed (pages that
 * could not be stored at all): the crawl's summary and exit status tell from them. */
static void count_store_failure(rc_worker *w, const task *t, int permanent)
{
    char key[200];
    snprintf(key, sizeof key, "%sjob:%s", w->prefix, t->rec.crawlid);
    rc_notes_send(w->notes, "HINCRBY %s %s 1", key, permanent ? "store_failed" : "store_errors");
}

/* Whether a link is one robots.txt forbids, by rules this worker holds fresh for its origin (no
 * lookup, no wait: a link of a site not at hand goes to the frontier like any, and is checked
 * when taken). Not by rules that say robots.txt could not be read: such a URL is denied when
 * taken, its reason kept by host. */
static int link_denied(rc_worker *w, const char *record, size_t len)
{
    char url[RC_URL_MAX + 1], host[300], origin[320];
    int depth;
    if (!w->conf->robots || rc_record_peek(record, len, url, sizeof url, &depth) < 0 ||
        rc_url_host_key(url, host, sizeof host) < 0)
        return 0;
    origin_of(url, host, origin, sizeof origin);
    const rc_robots *rules = rc_robots_cache_fresh(w->robots, origin);
    return rules && !rc_robots_unreachable_why(rules) && !rc_robots_allowed_url(rules, url);
}

/* The shard of a link's host (shard.h); this worker's own when the keyspace is one, or when
 * the record cannot be read (the link then goes the way it always went). */
static int link_shard(const rc_worker *w, const char *record, size_t len)
{
    char url[RC_URL_MAX + 1];
    int depth, own = (int)w->conf->shard;
    if (w->conf->shards <= 1 || rc_record_peek(record, len, url, sizeof url, &depth) < 0)
        return own;
    int s = rc_shard_of_url(url, (int)w->conf->shards);
    return s < 0 ? own : s;
}

enum { LINK_FOLLOW, LINK_DENIED, LINK_AWAY };

/* The page's links into its complete, each with its hash values: those to follow, then those
 * robots.txt forbids (link_denied), which complete.lua only counts, once per job: a disallowed
 * link costs no frontier entry, dispatch, queue, lease, take and complete of its own. On a site
 * of a few pages the disallowed links of its pages are as many as its pages. Then, in a sharded
 * keyspace, those whose host another shard holds, each after its shard's number: complete.lua
 * puts them into this shard's outbox for the scheduler to forward. */
static void add_links(rc_worker *w, task *t, const rc_page_result *pg)
{
    size_t k = RC_FRONTIER_BLOOM_K, per = 1 + k, n = pg->n_links;
    int whole = (size_t)pg->links.n == n * per; /* else every link goes as one to follow */
    char *kind = rc_xcalloc((size_t)pg->links.n + 1, 1);
    int *shard = rc_xcalloc((size_t)pg->links.n + 1, sizeof *shard);
    size_t count[3] = {0, 0, 0};
    for (size_t l = 0; whole && l < n; l++) {
        const char *rec = pg->links.v[l * per];
        size_t len = pg->links.len[l * per];
        shard[l] = link_shard(w, rec, len);
        kind[l] = shard[l] != (int)w->conf->shard ? LINK_AWAY : link_denied(w, rec, len) ? LINK_DENIED : LINK_FOLLOW;
        count[(int)kind[l]]++;
    }
    if (!whole)
        count[LINK_FOLLOW] = n;
    rc_argv_setu(&t->complete, RC_COMPLETE_K, k);
    rc_argv_setu(&t->complete, RC_COMPLETE_N, count[LINK_FOLLOW]);
    rc_argv_setu(&t->complete, RC_COMPLETE_DENIED, count[LINK_DENIED]);
    rc_argv_setu(&t->complete, RC_COMPLETE_AWAY, count[LINK_AWAY]);
    for (char pass = LINK_FOLLOW; pass <= LINK_AWAY; pass++)
        for (int l = 0; l < pg->links.n; l++) {
            size_t link = whole ? (size_t)l / per : (size_t)l;
            if (kind[link] != pass)
                continue;
            if (pass == LINK_AWAY && (size_t)l % per == 0)
                rc_argv_addi(&t->complete, shard[link]);
            rc_argv_addn(&t->complete, pg->links.v[l], pg->links.len[l]);
        }
    free(kind);
    free(shard);
}

/* After every sink has the page (or one failed): complete it. Nothing is acknowledged that was
 * not stored: a transient failure hands the URL back untouched, a permanent one fails it. */
static void finish_store(rc_worker *w, task *t)
{
    rc_page_result *pg = t->page;
    if (t->sink_status < 0) {
        int permanent = t->sink_status == -EINVAL;
        rc_error(MOD, "storing failed url=%s error=%s (%s)", t->rec.url, t->sink_err,
                 permanent ? "the page fails" : "the URL goes back to its queue");
        count_store_failure(w, t, permanent);
        if (w->metrics)
            rc_metric_add(w->metrics->errors, "store", 1);
        if (permanent)
            complete_no_links(w, t, t->next_ms, "fail", t->sink_err, t->status);
        else
            complete_no_links(w, t, rc_now_ms() + 1000, t->stored_somewhere ? "requeue" : "release", t->sink_err, 0);
        return;
    }
    w->fetched++;
    if (!t->ok)
        w->errors++;
    w->links_sent += pg->n_links;
    if (w->metrics) {
        char status[24];
        snprintf(status, sizeof status, "%ld", t->ok ? t->status : 0L);
        rc_metric_add(w->metrics->pages, status, 1);
        rc_metric_add(w->metrics->links, NULL, (double)pg->n_links);
        rc_metric_observe(w->metrics->store_seconds, (double)(rc_mono_us() - t->fetched_us) / 1e6);
    }
    /* Navigation pages of a refreshing job come back; data pages are fetched once. */
    const rc_job *job = &t->job->pj.job;
    uint64_t refresh_at = 0;
    if (job->refresh_seconds > 0 && t->ok && !t->duplicate && !t->rec.item && !pg->is_data)
        refresh_at = rc_now_ms() + (uint64_t)job->refresh_seconds * 1000;
    add_complete_head(t, t->next_ms, t->ok ? "done" : "fail", t->error, t->status, (int64_t)json_array_size(pg->items),
                      (int64_t)pg->items_dropped, refresh_at);
    add_links(w, t, pg);
    /* The hashes go into the seen-cache once Redis has the links (on_complete_reply). */
    t->hashes = pg->hashes;
    t->n_hashes = pg->n_hashes;
    pg->hashes = NULL;
    pg->n_hashes = 0;
    rc_offload_dispose(w->parse, &box_of(pg)->trash, page_box_free);
    t->page = NULL;
    send_complete(w, t);
}

/* A sink's verdict on the task's write-group (runs on the loop thread). */
static void on_sink_done(void *ud, int status, const char *err)
{
    task *t = ud;
    if (status < 0 && t->sink_status == 0) {
        t->sink_status = status;
        snprintf(t->sink_err, sizeof t->sink_err, "%s", err ? err : "store failed");
    }
    if (--t->sink_waits == 0)
        finish_store(t->w, t);
}

/* A page stored before a crash whose Redis writes were lost may come back as a first attempt
 * (--recheck, ARCHITECTURE "Pausing and resuming a crawl"): looked up like a redelivery. */
static int rechecked(const rc_worker *w, const char *id)
{
    return w->recheck && id && rc_strmap_get(w->recheck, id);
}

/* Writes the page record and its items to every sink: JSON Lines at once, MongoDB and the Kafka
 * firehose asynchronously; finish_store runs when all have answered. */
static void store_page(rc_worker *w, task *t, const char *duplicate_of)
{
    rc_page_result *pg = t->page;
    char err[512];
    if (duplicate_of) {
        /* Only the text is not stored twice: the page's items are what the user asked for. */
        t->duplicate = 1;
        json_object_set_new(pg->doc, "duplicate_of", json_string(duplicate_of));
        json_object_del(pg->doc, "text");
        json_object_del(pg->doc, "text_method");
        rc_notes_send(w->notes, "HINCRBY %sjob:%s duplicates 1", w->prefix, t->rec.crawlid);
    }
    /* The page record, then (at a redirect chain's end) its first URL's record again, then items. */
    size_t npages = pg->first_doc ? 2 : 1;
    size_t n = page_docs(pg);
    char **lines = t->lines && t->n_lines == n ? t->lines : rc_xcalloc(n, sizeof(char *));
    if (lines != t->lines)
        lines_free(t->lines, t->n_lines);
    t->lines = NULL;
    t->n_lines = 0;
    if (duplicate_of || t->doc_changed || !lines[0]) { /* changed since the parse thread wrote it */
        free(lines[0]);
        lines[0] = dump_doc(pg, 0);
    }
    const char **ids = rc_xcalloc(n, sizeof(char *));
    ids[0] = json_string_value(json_object_get(pg->doc, "_id"));
    if (pg->first_doc)
        ids[1] = json_string_value(json_object_get(pg->first_doc, "_id"));
    for (size_t i = npages; i < n; i++)
        ids[i] = json_string_value(json_object_get(json_array_get(pg->items, i - npages), "_id"));
    for (size_t i = 1; i < n; i++)
        if (!lines[i])
            lines[i] = dump_doc(pg, i);
    t->sink_waits = 1; /* held until every sink was asked */
    t->sink_status = 0;
    t->stored_somewhere = 0;
    rc_store_doc *docs = rc_xcalloc(n, sizeof *docs);
    for (size_t i = 0; i < n; i++) {
        docs[i] = (rc_store_doc){.id = ids[i],
                                 .json = lines[i],
                                 .len = lines[i] ? strlen(lines[i]) : 0,
                                 .supersedes = pg->first_doc && i == 1};
        if (!lines[i] || !ids[i]) {
            t->sink_status = -EINVAL;
            snprintf(t->sink_err, sizeof t->sink_err, "a document could not be serialised");
        }
    }
    rc_write_group g = {.crawlid = t->rec.crawlid,
                        .spiderid = t->job->pj.job.spiderid,
                        .docs = docs,
                        .n = n,
                        .n_pages = npages,
                        .maybe_dup = t->rec.attempt > 0 || t->rec.redeliver || t->adopted || rechecked(w, ids[0])};
    for (size_t k = 0; t->sink_status == 0 && k < w->n_stores; k++) {
        t->sink_waits++;
        int r = w->stores[k].ops->put(w->stores[k].impl, &g, on_sink_done, t, err, sizeof err);
        if (r != -EAGAIN)
            t->stored_somewhere = 1;
        if (r < 0) {
            t->sink_waits--;
            t->sink_status = r == -EAGAIN ? -EAGAIN : -EIO;
            snprintf(t->sink_err, sizeof t->sink_err, "%s", err);
        }
    }
    page_keep_lines(pg, lines, n); /* the sinks copied them: freed with the page */
    free(ids);
    free(docs);
    on_sink_done(t, 0, NULL); /* drop the hold */
}

/* "Equal jitter" on an exponential back-off: between half and all of it, so that hosts (and
 * workers) that failed together do not all come back in the same instant. Retry-After is not
 * jittered (the caller caps it at --max-delay). */
static uint64_t jitter(rc_worker *w, uint64_t back_ms)
{
    w->rng ^= w->rng << 13; /* xorshift64 */
    w->rng ^= w->rng >> 7;
    w->rng ^= w->rng << 17;
    return back_ms / 2 + (back_ms > 1 ? w->rng % (back_ms / 2 + 1) : 0);
}

/* On parse thread THREAD (several run at once, each on its own task): reads the task's copy of
 * the response, its record, its job (read-only but for the thread's own compiled rules) and the
 * seen-cache (atomics); writes only t->page and t->pctx. */
static void parse_task(void *arg, int thread)
{
    task *t = arg;
    t->page = page_new(); /* in this thread's arena, like all it will hold */
    t->pctx.rules = rc_page_job_rules(&t->job->pj, thread);
    rc_page_process(&t->pctx, t->res, t->page);
    /* Serialised here, off the loop (json_dumps was a tenth of its time); the loop writes the
     * page's record again only if it changes it (a duplicate, an unchanged refresh). */
    size_t n = page_docs(t->page);
    t->lines = rc_xcalloc(n, sizeof(char *));
    t->n_lines = n;
    for (size_t i = 0; i < n; i++)
        t->lines[i] = dump_doc(t->page, i);
}

static void mark_recent(rc_worker *w, const char *url);

/* The response as received goes to the job's WARC file before the page is stored, so that the
 * page record can name it. A WARC that cannot be written is noted in the record (the crawl goes
 * on; the log says why). */
static void keep_warc(rc_worker *w, task *t, const rc_fetch_result *res, uint64_t now)
{
    char err[400], *meta;
    rc_warc_where where;
    meta = rc_xasprintf("crawlid: %s\r\nhopsFromSeed: %d\r\nfetchTimeMs: %.0f\r\nworker: %s\r\n", t->rec.crawlid,
                        t->rec.depth, res->total_ms, w->id);
    json_t *doc = t->page ? t->page->doc : NULL;
    t->doc_changed |= doc != NULL; /* the record the parse thread serialised lacks what follows */
    if (rc_warc_sink_write(w->warc, t->rec.crawlid, res, meta, now, &where, err, sizeof err) < 0) {
        rc_error(MOD, "WARC write failed url=%s error=%s", t->rec.url, err);
        if (doc)
            json_object_set_new(doc, "warc_error", json_string(err));
    } else if (doc) {
        json_object_set_new(doc, "warc_file", json_string(where.file));
        json_object_set_new(doc, "warc_offset", json_integer((json_int_t)where.offset));
        json_object_set_new(doc, "warc_length", json_integer((json_int_t)where.length));
    }
    free(meta);
}

/* What a refreshed page's next visit needs: the validators of this 200 (a conditional GET) and
 * its text digest (the unchanged check). Values too long to be sane are not kept. */
static char *revisit_of(const rc_fetch_result *res, const char *digest, uint64_t sitemap_at)
{
    json_t *o = json_object();
    if (sitemap_at) /* a sitemap's next reading compares its <lastmod>s with this */
        json_object_set_new(o, "at", json_integer((json_int_t)sitemap_at));
    int ok2xx = res->ok && res->status >= 200 && res->status < 300;
    if (ok2xx && res->etag && strlen(res->etag) <= 256)
        json_object_set_new(o, "etag", json_string(res->etag));
    if (ok2xx && res->last_modified && strlen(res->last_modified) <= 64)
        json_object_set_new(o, "lm", json_string(res->last_modified));
    if (digest && digest[0])
        json_object_set_new(o, "digest", json_string(digest));
    char *s = json_object_size(o) ? json_dumps(o, JSON_COMPACT) : NULL;
    json_decref(o);
    return s;
}

static void count_unchanged(rc_worker *w, const task *t)
{
    rc_notes_send(w->notes, "HINCRBY %sjob:%s unchanged 1", w->prefix, t->rec.crawlid);
}

/* A 304 to a refresh's conditional GET: nothing new to parse or store. The page is completed
 * as done (its refresh goes on with the same validators) and counted unchanged; WARC gets a
 * revisit record. */
static void keep_unchanged(rc_worker *w, task *t, const rc_fetch_result *res, uint64_t now, uint64_t next_ms)
{
    rc_debug(MOD, "unchanged (304) url=%s", t->rec.url);
    rc_fetch_result old = {.ok = 1, .status = 200, .etag = t->rec.etag, .last_modified = t->rec.lastmod};
    t->revisit = revisit_of(&old, t->rec.digest, t->rec.sitemap ? (uint64_t)t->rec.visited_ms : 0);
    if (t->job->pj.job.warc)
        keep_warc(w, t, res, now);
    t->page = page_new();
    t->page->items = json_array();
    rc_argv_init(&t->page->links);
    t->ok = 1;
    t->status = res->status;
    t->next_ms = next_ms;
    count_unchanged(w, t);
    finish_store(w, t);
}

/* Back on the loop: the page is ready to be stored. */
static void on_parsed(void *arg)
{
    task *t = arg;
    rc_worker *w = t->w;
    seen_reader_done(w, t);
    const rc_fetch_result *res = t->res;
    uint64_t now = t->pctx.now_ms;
    if (t->job->pj.job.warc && res->ok && res->status > 0)
        keep_warc(w, t, res, now);
    if (res->ok && res->status > 0)
        mark_recent(w, t->rec.url);
    if (t->job->pj.job.refresh_seconds > 0) {
        t->revisit = revisit_of(res, t->page->digest, t->rec.sitemap ? now : 0);
        if (t->rec.refresh && t->rec.digest && strcmp(t->rec.digest, t->page->digest) == 0) {
            /* Fetched whole (no validators, or the server ignored them) but its text is the same. */
            json_object_set_new(t->page->doc, "unchanged", json_true());
            t->doc_changed = 1;
            count_unchanged(w, t);
        }
    }
    t->ok = res->ok;
    t->status = res->status;
    t->error = res->error ? rc_xstrdup(res->error) : NULL;
    t->next_ms = t->pctx.now_ms + RC_MAX(t->delay_ms, t->park_ms);
    t->fetched_us = rc_mono_us();
    rc_fetch_result_free(t->res);
    t->res = NULL;
    rc_strv_free(t->sitemaps);
    t->sitemaps = NULL;
    if (t->page->items_dropped)
        rc_warn(MOD, "items dropped: a required field is missing url=%s rule=%s count=%zu", t->rec.url,
                t->page->dropped_rule, t->page->items_dropped);
    if (t->page->digest[0])
        check_digest(w, t);
    else
        store_fenced(w, t, NULL);
}

/* The metrics of one finished attempt (a blocked URL had no transfer). */
static void count_fetch(rc_worker *w, const rc_fetch_result *res, int will_retry)
{
    rc_worker_metrics *m = w->metrics;
    if (!m)
        return;
    const char *kind = res->blocked             ? "blocked"
                       : !res->ok && res->final ? "limit"
                       : !res->ok               ? "transport"
                       : res->status == 429     ? "http_429"
                       : res->status >= 500     ? "http_5xx"
                                                : NULL;
    if (kind)
        rc_metric_add(m->errors, kind, 1);
    if (will_retry)
        rc_metric_add(m->retries, NULL, 1);
    if (!res->blocked) {
        rc_metric_observe(m->fetch_seconds, res->total_ms / 1000.0);
        rc_metric_add(m->bytes, NULL, (double)res->raw_len);
    }
}

static void on_fetched(void *ud, const rc_fetch_result *res)
{
    task *t = ud;
    rc_worker *w = t->w;
    const rc_worker_conf *conf = w->conf;
    uint64_t now = rc_now_ms();
    uint64_t delay_ms = host_delay_ms(w, t, res->total_ms);
    /* A refused address is final: retrying cannot change the answer, and it says nothing about
     * the host's health. */
    uint64_t park_ms = res->blocked ? 0 : host_failed(w, t->host, !res->ok && res->status == 0);
    int can_retry = t->rec.attempt + 1 < conf->max_attempts;
    int transient = !res->blocked && !res->final && (!res->ok || res->status == 429 || res->status >= 500);
    count_fetch(w, res, transient && can_retry);

    if (transient && can_retry) {
        /* Back off this domain: Retry-After when given, else exponential on the delay. */
        uint64_t back = retry_after_ms(res->retry_after, now);
        if (!back)
            back = jitter(w, RC_MAX(delay_ms, 250) << RC_MIN(t->rec.attempt + 1, 6));
        /* --max-delay caps back-offs as its help says, Retry-After included; parking has its own. */
        back = RC_MAX(RC_MIN(back, (uint64_t)(conf->max_delay * 1000)), park_ms);
        rc_info(MOD, "retrying url=%s attempt=%d status=%ld error=%s backoff_ms=%llu", t->rec.url, t->rec.attempt + 1,
                res->status, res->error ? res->error : "-", (unsigned long long)back);
        complete_no_links(w, t, now + back, "retry", res->error ? res->error : "http status", res->status);
        return;
    }

    if (res->ok && res->status == 304 && t->rec.refresh && (t->rec.etag || t->rec.lastmod)) {
        keep_unchanged(w, t, res, now, now + RC_MAX(delay_ms, park_ms));
        return;
    }

    /* Final: parse once (on the parse thread), extract, then store before the frontier hears
     * of it. The fetch result is borrowed only during this callback: the parse gets a copy. */
    t->delay_ms = delay_ms;
    t->park_ms = park_ms;
    free(t->worker_id);
    t->worker_id = rc_xstrdup(w->id);
    t->pctx = (rc_page_ctx){.job = &t->job->pj.job,
                            .filter = t->job->pj.filter,
                            .bp = &t->job->pj.bp,
                            .seen = w->seen,
                            .rec = &t->rec,
                            .worker_id = t->worker_id,
                            .max_links = (size_t)conf->max_links,
                            .tree = w->tree,
                            .now_ms = now};
    if (t->job->pj.job.sitemaps && t->rec.depth == 0 && !t->rec.sitemap) {
        /* A seed's host: robots.txt's Sitemap: lines, when its rules are at hand (they are once
         * robots.txt was checked for this page). Copied: the cache may drop them meanwhile. */
        char origin[320];
        origin_of(t->rec.url, t->host, origin, sizeof origin);
        const rc_robots *rules = w->conf->robots ? rc_robots_cache_peek(w->robots, origin) : NULL;
        const char *const *sm = NULL;
        size_t n = rules ? rc_robots_sitemaps(rules, &sm) : 0;
        t->sitemaps = rc_strv_dup(sm, n);
        t->pctx.sitemaps = (const char *const *)t->sitemaps;
        t->pctx.n_sitemaps = n;
    }
    t->res = rc_fetch_result_move(res, t->job->pj.job.warc);
    t->seen_grows = w->seen_grows;
    w->parsing++;
    rc_offload_submit(w->parse, parse_task, on_parsed, t);
}

/* The URL goes back to its host's queue as it was: this worker could not try it (yet). */
static void release_task_at(rc_worker *w, task *t, uint64_t next_ms, const char *why)
{
    complete_no_links(w, t, next_ms, "release", why, 0);
}

static void release_task(rc_worker *w, task *t, const char *why)
{
    release_task_at(w, t, rc_now_ms() + 1000, why);
}

static void fetch_task(rc_worker *w, task *t);
static void robots_check(rc_worker *w, task *t);

/* The SSRF guard refused the URL's host before any DNS or robots.txt: recorded like a fetch that
 * failed for good, with the reason. */
static void block_task(task *t, const char *why)
{
    char err[240];
    snprintf(err, sizeof err, "blocked: %s", why);
    rc_warn(MOD, "refused url=%s reason=%s", t->rec.url, why);
    rc_fetch_result r = {.url = t->rec.url, .effective_url = t->rec.url, .body = "", .error = err, .blocked = why};
    on_fetched(t, &r);
}

static void start_task(rc_worker *w, task *t)
{
    char why[200];
    if (rc_fetch_check_url(w->fetcher, t->rec.url, why, sizeof why) < 0) {
        block_task(t, why);
        return;
    }
    if (t->job->state == JOB_MISSING) { /* no scope, no rules: nothing to crawl it by */
        block_task(t, "its job's spec is missing or unreadable in Redis (see the error above)");
        return;
    }
    if (t->job->state == JOB_READY && w->conf->robots) {
        robots_check(w, t);
        return;
    }
    fetch_task(w, t);
}

/* A page robots.txt forbids is never requested; the host had no hit, so it is due at once. The
 * reason is "robots.txt" (its rules), or why robots.txt could not be read (work.lua counts those
 * apart, by host, for the summary). */
static void deny_task(rc_worker *w, task *t, const rc_robots *rules)
{
    const char *unreachable = rc_robots_unreachable_why(rules);
    w->denied++;
    if (w->metrics)
        rc_metric_add(w->metrics->robots_denied, unreachable ? "unreachable" : "disallowed", 1);
    rc_debug(MOD, "not fetched url=%s reason=%s", t->rec.url, unreachable ? unreachable : "disallowed by robots.txt");
    complete_no_links(w, t, rc_now_ms(), "denied", unreachable ? unreachable : "robots.txt", 0);
}

/* Fetching robots.txt was a hit on the host: the page waits for the next slot (robots_gap_ms).
 * With no wait due the slot is now, so the page is fetched under the lease it holds (and over
 * robots.txt's connection) rather than going back to its queue to be taken again at once: a
 * release and a take less per new host. */
static void after_robots_fetch(rc_worker *w, task *t)
{
    uint64_t wait_ms = robots_gap_ms(w, t);
    if (wait_ms == 0)
        fetch_task(w, t);
    else
        release_task_at(w, t, rc_now_ms() + wait_ms, "after robots.txt");
}

/* The robots.txt verdict for a task whose rules had to be loaded. */
static void on_robots(void *ud, const rc_robots *rules, int just_fetched)
{
    task *t = ud;
    rc_worker *w = t->w;
    if (!rules)
        release_task(w, t, "robots.txt not loaded");
    else if (!rc_robots_allowed_url(rules, t->rec.url))
        deny_task(w, t, rules);
    else if (just_fetched)
        after_robots_fetch(w, t);
    else
        fetch_task(w, t);
}

static void robots_check(rc_worker *w, task *t)
{
    char origin[320];
    origin_of(t->rec.url, t->host, origin, sizeof origin);
    const rc_robots *rules = rc_robots_cache_get(w->robots, origin, on_robots, t);
    if (rules)
        on_robots(t, rules, 0);
}

static void fetch_now(rc_worker *w, task *t)
{
    const rc_job *j = &t->job->pj.job;
    /* A refresh asks whether the page changed since its last 200 (RFC 9110 13.1). */
    rc_fetch_req req = {.url = t->rec.url,
                        .cookie = j->cookie,
                        .useragent = j->useragent,
                        .keep_request = j->warc,
                        .if_none_match = t->rec.refresh ? t->rec.etag : NULL,
                        .if_modified_since = t->rec.refresh ? t->rec.lastmod : NULL,
                        .last_on_host = t->last_on_host};
    int r = rc_fetch_start_req(w->fetcher, &req, on_fetched, t);
    if (r < 0) {
        rc_error(MOD, "cannot start fetch url=%s error=%s", t->rec.url, strerror(-r));
        release_task(w, t, "fetch start failed");
    }
}

/* BITFIELD arguments on the fleet's "fetched recently" slots of url: GET, or SET to hour. */
static void recent_args(rc_worker *w, const char *url, int set, uint16_t hour, rc_argv *a)
{
    uint32_t slots[RC_RECENT_K];
    char key[200];
    rc_recent_slots(url, slots);
    snprintf(key, sizeof key, "%srecent", w->prefix);
    rc_argv_init(a);
    rc_argv_add(a, "BITFIELD");
    rc_argv_add(a, key);
    for (int i = 0; i < RC_RECENT_K; i++) {
        char off[24];
        snprintf(off, sizeof off, "#%u", (unsigned)slots[i]);
        rc_argv_add(a, set ? "SET" : "GET");
        rc_argv_add(a, "u16");
        rc_argv_add(a, off);
        if (set)
            rc_argv_addu(a, hour);
    }
}

/* Every fetch that got an answer is written down for the fleet (fire and forget). */
static void mark_recent(rc_worker *w, const char *url)
{
    if (!w->conf->mark_recent || !w->ac)
        return;
    rc_argv a;
    recent_args(w, url, 1, rc_recent_hour(rc_now_ms()), &a);
    redisAsyncCommandArgv(w->ac, NULL, NULL, a.n, (const char **)a.v, a.len);
    rc_argv_release(&a);
}

/* Some job fetched it recently: not fetched, not stored, counted; the host had no hit. */
static void skip_task(rc_worker *w, task *t)
{
    rc_debug(MOD, "fetched recently, skipped url=%s", t->rec.url);
    complete_no_links(w, t, rc_now_ms(), "skipped", "fetched recently", 0);
}

static void on_recent_reply(redisAsyncContext *ac, void *reply, void *privdata)
{
    task *t = privdata;
    redisReply *rep = reply;
    uint16_t vals[RC_RECENT_K];
    int ok = rep && rep->type == REDIS_REPLY_ARRAY && rep->elements == RC_RECENT_K;
    for (size_t i = 0; ok && i < RC_RECENT_K; i++) {
        ok = rep->element[i]->type == REDIS_REPLY_INTEGER;
        vals[i] = ok ? (uint16_t)rep->element[i]->integer : 0;
    }
    /* No answer (Redis away): fetch; being polite to the site is the frontier's job. */
    if (ok && rc_recent_within(vals, rc_recent_hour(rc_now_ms()), (unsigned)t->job->pj.job.skip_recent_hours))
        skip_task(t->w, t);
    else
        fetch_now(t->w, t);
}

static void fetch_task(rc_worker *w, task *t)
{
    if (t->job->state != JOB_READY) {
        /* The job is gone: complete without fetching so the frontier stays consistent. */
        complete_no_links(w, t, rc_now_ms(), "fail", "job not found", 0);
        return;
    }
    const rc_job *j = &t->job->pj.job;
    if (j->skip_recent_hours > 0 && !t->rec.refresh && t->rec.attempt == 0 && !t->rec.redeliver && w->ac) {
        /* A refresh is meant to come back; a retry was this job's own fetch. */
        rc_argv a;
        recent_args(w, t->rec.url, 0, 0, &a);
        int r = redisAsyncCommandArgv(w->ac, on_recent_reply, t, a.n, (const char **)a.v, a.len);
        rc_argv_release(&a);
        if (r == REDIS_OK)
            return;
    }
    fetch_now(w, t);
}

static void free_job_entry(void *p)
{
    job_entry *e = p;
    if (!e)
        return;
    if (e->state == JOB_READY)
        rc_page_job_release(&e->pj);
    free(e);
}

static void on_job_reply(redisAsyncContext *ac, void *reply, void *privdata)
{
    rc_worker *w = ac->data;
    const char *crawlid = privdata;
    job_entry *e = rc_strmap_get(w->jobs, crawlid);
    redisReply *rep = reply;
    if (!e)
        return;
    if (!rep || rep->type == REDIS_REPLY_ERROR) {
        /* Connection lost, or Redis refusing (a cluster's MOVED, LOADING): hand the parked URLs
         * back untouched and forget the entry, so the spec is asked for again next time. */
        task *t = e->waiting;
        e->waiting = NULL;
        rc_strmap_del(w->jobs, crawlid);
        free_job_entry(e);
        while (t) {
            task *next = t->next;
            t->next = NULL;
            t->job = NULL;
            release_task(w, t, "job spec not loaded");
            t = next;
        }
        return;
    } else if (rep->type == REDIS_REPLY_ARRAY && rep->elements == 2 && rep->element[0]->type == REDIS_REPLY_STRING &&
               rep->element[1]->type == REDIS_REPLY_STRING) {
        char err[256];
        if (rc_page_job_init(&e->pj, rep->element[0]->str, rep->element[0]->len, rep->element[1]->str, err,
                             sizeof err) == 0)
            e->state = JOB_READY;
        if (e->state != JOB_READY) {
            rc_error(MOD, "job %s has a bad spec in Redis: %s", crawlid, err);
            e->state = JOB_MISSING;
        }
    } else {
        e->state = JOB_MISSING;
    }
    each_detached(w, &e->waiting, start_task);
}

static void dispatch_task(rc_worker *w, task *t)
{
    job_entry *e = rc_strmap_get(w->jobs, t->rec.crawlid);
    if (!e) {
        e = rc_xcalloc(1, sizeof *e);
        e->state = JOB_LOADING;
        rc_strmap_put(w->jobs, t->rec.crawlid, e);
        char key[160];
        snprintf(key, sizeof key, "%sjob:%s", w->prefix, t->rec.crawlid);
        /* privdata: the map's own key copy would move on rehash; pass a stable string. */
        redisAsyncCommand(w->ac, on_job_reply, t->rec.crawlid, "HMGET %s spec bloom", key);
    }
    t->job = e;
    if (e->state == JOB_LOADING) {
        t->next = e->waiting;
        e->waiting = t;
        return;
    }
    start_task(w, t);
}

/* ---------- take / pump ---------- */

static void schedule_pump(rc_worker *w, double after)
{
    ev_timer_stop(w->loop, &w->pump_timer);
    ev_timer_set(&w->pump_timer, after, 0);
    ev_timer_start(w->loop, &w->pump_timer);
}

/* A task for one lease member ("host<TAB>record"), fetched at once; lease_end_ms is on the
 * monotonic clock; last: the host's last queued URL (take.lua's answer). */
static void start_leased(rc_worker *w, const char *m, size_t len, uint64_t lease_end_ms, int adopted, int last)
{
    const char *tab = memchr(m, '\t', len);
    task *t = rc_xcalloc(1, sizeof *t);
    t->w = w;
    t->epoch = w->epoch;
    t->lease_end_ms = lease_end_ms;
    t->adopted = adopted;
    t->last_on_host = last;
    rc_argv_init(&t->complete);
    t->lease = rc_xstrndup(m, len);
    rc_strmap_put(w->held, t->lease, t);
    w->active++;
    if (!tab || rc_record_parse(tab + 1, len - (size_t)(tab + 1 - m), &t->rec) < 0) {
        rc_error(MOD, "unreadable lease member, dropping it: %.*s", (int)RC_MIN(len, 200), m);
        task_done(w, t);
        return;
    }
    t->host = rc_xstrndup(m, (size_t)(tab - m));
    dispatch_task(w, t);
}

/* Leases this worker holds in Redis but has no task for: a take ran but its reply was lost with
 * the connection (Redis restarted, the network dropped), or an earlier process with this --id
 * died holding them (a container restarted). Without this they would sit until they expire
 * (--lease-seconds), their hosts busy and the job unfinished meanwhile; adopted, they are
 * fetched now, stored as possible redeliveries. Asked on every (re)connection, before the
 * first take on it, so every lease in the answer was taken by an earlier call. */
static void on_leases_reply(redisAsyncContext *ac, void *reply, void *privdata)
{
    rc_worker *w = ac->data;
    redisReply *rep = reply;
    if (!w || !rep || rep->type != REDIS_REPLY_ARRAY || w->draining)
        return;
    uint64_t now_ms = rc_now_ms(), mono = rc_mono_ms();
    int adopted = 0;
    for (size_t i = 0; i + 1 < rep->elements; i += 2) {
        redisReply *m = rep->element[i];
        if (m->type != REDIS_REPLY_STRING || rc_strmap_get(w->held, m->str))
            continue;
        int64_t end = rc_reply_int(rep->element[i + 1], 0);
        uint64_t left = end > (int64_t)now_ms ? (uint64_t)end - now_ms : 0;
        rc_warn(MOD, "adopting a lease whose take reply was lost: %.*s", (int)RC_MIN(m->len, 200), m->str);
        start_leased(w, m->str, m->len, mono + left, 1, 0);
        adopted++;
    }
    if (adopted)
        rc_info(MOD, "adopted %d leases after reconnecting", adopted);
}

static void adopt_orphans(rc_worker *w)
{
    redisAsyncCommand(w->ac, on_leases_reply, NULL, "ZRANGE %slease:%s 0 -1 WITHSCORES", w->prefix, w->id);
}

static void on_take_reply(rc_worker *w, redisReply *rep, void *ud)
{
    int woken = w->woken;
    w->take_outstanding = 0;
    w->woken = 0;
    if (rep && rep->type == REDIS_REPLY_ERROR && rc_redis_refusal(rep->str)) {
        note_refusal(w, rep->str); /* take.lua refused whole: asked again in a second */
        schedule_pump(w, 1.0);
        return;
    }
    if (!rep || rep->type != REDIS_REPLY_ARRAY || rep->elements != 3) {
        schedule_pump(w, 0.5);
        return;
    }
    note_accepted(w);
    redisReply *list = rep->element[0], *last = rep->element[2];
    size_t got = list->type == REDIS_REPLY_ARRAY ? list->elements : 0;
    size_t n_last = last->type == REDIS_REPLY_ARRAY ? last->elements : 0, next_last = 0;
    if (w->max_rate > 0)
        w->tokens -= (double)got;
    for (size_t i = 0; i < got; i++) {
        /* last lists positions (1-based) in order */
        int is_last = next_last < n_last && rc_reply_int(last->element[next_last], 0) == (int64_t)i + 1;
        next_last += (size_t)is_last;
        start_leased(w, list->element[i]->str, list->element[i]->len,
                     w->take_sent_ms + (uint64_t)(w->conf->lease_seconds * 1000), 0, is_last);
    }
    /* Next take: at once if that filled up or more is due, else when the next domain is due
     * (at most 100 ms, since the scheduler may hand us new domains any time). */
    int64_t due = rc_reply_int(rep->element[1], -1);
    int64_t now = (int64_t)rc_now_ms();
    double after = 0.1;
    if (due >= 0 && due <= now)
        after = got ? 0 : 0.005;
    else if (due > now)
        after = RC_MIN(0.1, (double)(due - now) / 1000.0);
    if (woken) { /* hosts were assigned while it ran: it may have run before they were */
        rc_debug(MOD, "take with a nudge behind it got %zu: taking again", got);
        after = 0;
    }
    schedule_pump(w, after);
}

/* Pages the rate cap lets start now (a token bucket holding one second's worth); when none,
 * the next pump is scheduled for when one will be there. */
static int64_t rate_allowance(rc_worker *w)
{
    if (w->max_rate <= 0)
        return INT64_MAX;
    uint64_t now = rc_mono_ms();
    w->tokens = RC_MIN(w->max_rate, w->tokens + w->max_rate * (double)(now - w->tokens_ms) / 1000.0);
    w->tokens_ms = now;
    if (w->tokens >= 1.0)
        return (int64_t)w->tokens;
    schedule_pump(w, (1.0 - w->tokens) / w->max_rate);
    return 0;
}

static void pump(rc_worker *w)
{
    if (w->draining) {
        if (w->active == 0 && !w->take_outstanding)
            ev_break(w->loop, EVBREAK_ALL);
        return;
    }
    if (w->take_outstanding || w->take_want || !w->ac || !w->registered || w->resend)
        return; /* held completes go first (the resend timer); no lease before registration */
    int64_t free_slots = RC_MIN(w->conf->concurrency - w->active, rate_allowance(w));
    if (free_slots <= 0)
        return;
    double retry_s;
    if (rc_cpu_over(w->cpu, &retry_s)) {
        schedule_pump(w, retry_s); /* --cpu-cores spent for this second */
        return;
    }
    for (size_t k = 0; k < w->n_stores; k++)
        if (w->stores[k].busy_at && w->stores[k].ops->pending(w->stores[k].impl) > w->stores[k].busy_at) {
            schedule_pump(w, 0.1); /* a slow store: take nothing new until it catches up */
            return;
        }
    if (stepping(w)) {
        w->take_want = free_slots; /* rides along with the batched completes */
        step_soon(w);
        return;
    }
    rc_argv a;
    rc_argv_init(&a);
    rc_argv_set(&a, RC_TAKE_WORKER, w->id);
    rc_argv_seti(&a, RC_TAKE_MAX, free_slots);
    rc_argv_setu(&a, RC_TAKE_LEASE_MS, (uint64_t)(w->conf->lease_seconds * 1000));
    rc_argv_set(&a, RC_TAKE_IP, w->ip);
    w->take_sent_ms = rc_mono_ms();
    if (async_eval_own(w, RC_LUA_TAKE, &a, on_take_reply, NULL) == 0)
        w->take_outstanding = 1;
    rc_argv_release(&a);
}

static void on_pump_timer(struct ev_loop *loop, ev_timer *t, int revents)
{
    pump(t->data);
}

/* ---------- heartbeat, lifecycle ---------- */

/* Hosts were assigned to this worker: take now rather than at the next poll (at most 100 ms
 * away). A take in flight schedules the next itself. */
static void on_wake(void *ud)
{
    rc_worker *w = ud;
    if (w->take_outstanding) {
        rc_debug(MOD, "nudged while a take is out: taking again on its reply");
        w->woken = 1; /* its reply takes again at once, not at the next poll */
    } else if (ev_timer_remaining(w->loop, &w->pump_timer) > 0.001)
        schedule_pump(w, 0);
}

static void wake_channel(const rc_worker *w, char *buf, size_t cap)
{
    snprintf(buf, cap, "%swake:%s", w->prefix, w->id);
}

static void follow_wake(rc_worker *w)
{
    char channel[256];
    wake_channel(w, channel, sizeof channel);
    rc_wake_follow(w->wake, channel);
}

/* The nudge channel: without it the worker still polls. */
static void start_wake(rc_worker *w)
{
    char channel[256], err[256];
    if (w->conf->poll_only)
        return;
    wake_channel(w, channel, sizeof channel);
    if (!(w->wake = rc_wake_new(w->loop, &w->addr, channel, on_wake, w, err, sizeof err)))
        rc_warn(MOD, "no nudges from the scheduler (polling): %s", err);
}

/* The scheduler reaped this worker (it stalled past --worker-timeout, or Redis lost its
 * data): its leases are void. What it holds is dropped unstored and unacked (a task of an
 * older epoch has no effect), and it registers again under a new id. */
static void reregister(rc_worker *w)
{
    char old[sizeof w->id];
    snprintf(old, sizeof old, "%s", w->id);
    w->epoch++;
    w->registered = 0;
    snprintf(w->id, sizeof w->id, "%s.%u", w->base_id, w->epoch);
    rc_error(MOD,
             "this worker was reaped (stalled longer than the scheduler's --worker-timeout, or Redis lost "
             "its data): its %lld pages in flight are dropped, neither stored nor acked; registering again "
             "as id=%s (was %s)",
             (long long)w->active, w->id, old);
    release_fenced(w); /* all stale now: dropped */
    resend_all(w);     /* likewise */
    follow_wake(w);
    heartbeat(w);
}

/* hb.lua's answer (alone or in a step): 1 registered, 0 reaped. */
static void hb_verdict(rc_worker *w, int64_t v)
{
    if (v == 0) {
        reregister(w);
        return;
    }
    if (!w->registered)
        rc_info(MOD, "registered id=%s", w->id);
    w->registered = 1;
    w->hb_ok_ms = w->hb_sent_ms;
    release_fenced(w);
    pump(w);
}

static void on_hb_reply(rc_worker *w, redisReply *rep, void *ud)
{
    w->hb_outstanding = 0;
    if (!rep || rep->type != REDIS_REPLY_INTEGER) {
        if (rep && rep->type == REDIS_REPLY_ERROR)
            rc_warn(MOD, "heartbeat refused: %s", rep->str);
        return;
    }
    hb_verdict(w, rep->integer);
}

/* The operator's rate cap for this worker (HSET rc:ratecap ID PAGES_PER_S; HDEL = back to
 * --max-rate), read with every heartbeat, so a change acts within a heartbeat period. */
static void on_ratecap_reply(redisAsyncContext *ac, void *reply, void *privdata)
{
    rc_worker *w = privdata;
    redisReply *rep = reply;
    double rate = w->conf->max_rate;
    if (rep && rep->type == REDIS_REPLY_STRING && rc_parse_double(rep->str, 0, 1e6, &rate) < 0)
        rate = w->conf->max_rate;
    if (!rep || rep->type == REDIS_REPLY_ERROR || rate == w->max_rate)
        return;
    rc_info(MOD, "rate cap %.3g -> %.3g pages/s", w->max_rate, rate);
    w->max_rate = rate;
    w->tokens = RC_MIN(w->tokens, rate);
    schedule_pump(w, 0);
}

static size_t list_len(const task *t)
{
    size_t n = 0;
    for (; t; t = t->next)
        n++;
    return n;
}

/* Gauges are sampled once per heartbeat (counters move as things happen). */
static void sample_gauges(rc_worker *w)
{
    rc_worker_metrics *m = w->metrics;
    if (!m)
        return;
    rc_metric_set(m->in_flight, NULL, (double)w->active);
    rc_metric_set(m->slots, NULL, (double)w->conf->concurrency);
    for (size_t k = 0; k < w->n_stores; k++)
        if (w->stores[k].busy_at) /* the asynchronous ones: JSON Lines never holds anything */
            rc_metric_set(m->sink_pending, w->stores[k].ops->name,
                          (double)w->stores[k].ops->pending(w->stores[k].impl));
    rc_metric_set(m->held, "fence", (double)list_len(w->fenced));
    rc_metric_set(m->held, "redis", (double)list_len(w->resend));
}

/* The fields a heartbeat writes into worker:{w}. */
typedef struct hb_fields {
    char num[10][24];
    const char *v[24];
} hb_fields;

static void hb_fields_fill(rc_worker *w, hb_fields *f)
{
    char(*num)[24] = f->num;
    snprintf(num[0], sizeof num[0], "%llu", (unsigned long long)rc_now_ms());
    snprintf(num[1], sizeof num[1], "%llu", (unsigned long long)w->started_ms);
    snprintf(num[2], sizeof num[2], "%d", (int)getpid());
    snprintf(num[3], sizeof num[3], "%lld", (long long)w->active);
    snprintf(num[4], sizeof num[4], "%llu", (unsigned long long)w->fetched);
    snprintf(num[5], sizeof num[5], "%llu", (unsigned long long)w->errors);
    snprintf(num[6], sizeof num[6], "%llu", (unsigned long long)w->links_new);
    snprintf(num[7], sizeof num[7], "%llu", (unsigned long long)w->denied);
    snprintf(num[8], sizeof num[8], "%lld", (long long)w->conf->concurrency); /* capacity, for the scheduler */
    snprintf(num[9], sizeof num[9], "%.2f", rc_cpu_headroom(w->cpu));         /* and its CPU headroom */
    const char *fields[] = {"hb",        num[0], "started_ms",    num[1], "pid",     num[2], "host",     w->hostname,
                            "ip",        w->ip,  "inflight",      num[3], "fetched", num[4], "errors",   num[5],
                            "links_new", num[6], "robots_denied", num[7], "slots",   num[8], "cpu_free", num[9]};
    _Static_assert(sizeof fields == sizeof f->v, "hb_fields.v holds every field");
    memcpy(f->v, fields, sizeof fields);
}

static void heartbeat(rc_worker *w)
{
    sample_gauges(w);
    if (!w->ac || w->hb_outstanding || w->hb_want)
        return;
    redisAsyncCommand(w->ac, on_ratecap_reply, w, "HGET %sratecap %s", w->prefix, w->id);
    if (stepping(w) && !w->refused) {
        /* Rides along with the batched completes, sent now. Refused writes (at maxmemory) would
         * refuse the whole step: then it goes alone, as hb.lua (allow-oom). */
        w->hb_want = 1;
        send_steps(w);
        return;
    }
    hb_fields f = {0};
    hb_fields_fill(w, &f);
    rc_argv a;
    rc_argv_init(&a);
    rc_argv_set(&a, RC_HB_WORKER, w->id);
    rc_argv_set(&a, RC_HB_MODE, w->registered ? "beat" : "register");
    for (size_t i = 0; i < sizeof f.v / sizeof f.v[0]; i++)
        rc_argv_add(&a, f.v[i]);
    w->hb_sent_ms = rc_mono_ms();
    if (async_eval_own(w, RC_LUA_HB, &a, on_hb_reply, NULL) == 0)
        w->hb_outstanding = 1;
    rc_argv_release(&a);
}

/* ---------- step: many pages to one Redis call ---------- */

/* One step.lua call in flight: its completes in the order sent, and what else it carries. */
typedef struct step_req {
    task **tasks;
    rc_step s; /* its arguments, each task's complete borrowed (the tasks live until the reply) */
    int hb;
} step_req;

/* Nothing of the step happened (the connection went, or Redis refused writes: step.lua is not
 * allow-oom, so it is refused whole and up front): every complete is held and resent, the
 * heartbeat goes alone (hb.lua goes on at maxmemory), the take is asked again later. */
static void step_undone(rc_worker *w, step_req *q, const redisReply *rep)
{
    if (rep)
        note_refusal(w, rep->str);
    for (int i = 0; i < q->s.n; i++) {
        task *t = q->tasks[i];
        if (rep) {
            hold_complete(w, t);
        } else {
            t->next = w->resend;
            w->resend = t;
        }
    }
    if (q->hb) {
        w->hb_outstanding = 0;
        if (rep)
            heartbeat(w);
    }
    if (q->s.take) {
        w->take_outstanding = 0;
        schedule_pump(w, rep ? 1.0 : 0.5);
    }
}

/* A script error or a reply of the wrong shape: a bug, logged. Like a failed complete.lua,
 * its pages are dropped unacked (their leases expire and the URLs come back). */
static void step_failed(rc_worker *w, step_req *q, const redisReply *rep)
{
    if (rep->type != REDIS_REPLY_ERROR)
        rc_error(MOD, "step.lua answered in an unexpected shape: %d pages dropped unacked", q->s.n);
    w->hb_outstanding = q->hb ? 0 : w->hb_outstanding;
    if (q->s.take) {
        w->take_outstanding = 0;
        schedule_pump(w, 0.5);
    }
    for (int i = 0; i < q->s.n; i++)
        task_done(w, q->tasks[i]);
}

/* Each part as its own script's reply: the heartbeat's verdict first (a reaped worker voids
 * what it holds), then the take, then every complete. */
static void step_done(rc_worker *w, step_req *q, redisReply *rep)
{
    note_accepted(w);
    if (q->hb) {
        w->hb_outstanding = 0;
        hb_verdict(w, rc_step_reply_beat(rep));
    }
    if (q->s.take)
        on_take_reply(w, (redisReply *)rc_step_reply_take(rep), NULL);
    for (int i = 0; i < q->s.n; i++)
        on_complete_reply(w, (redisReply *)rc_step_reply_complete(rep, i), q->tasks[i]);
}

static void on_step_reply(rc_worker *w, redisReply *rep, void *ud)
{
    step_req *q = ud;
    w->steps_out--;
    if (!rep || (rep->type == REDIS_REPLY_ERROR && rc_redis_refusal(rep->str)))
        step_undone(w, q, rep);
    else if (rc_step_reply_check(&q->s, rep) < 0)
        step_failed(w, q, rep);
    else
        step_done(w, q, rep);
    w->in_steps -= q->s.n; /* after its tasks went on: none of them is working meanwhile */
    rc_step_release(&q->s);
    free(q->tasks);
    free(q);
    if (w->batch_n >= w->conf->step_batch)
        send_steps(w);
    else
        step_soon(w);
}

/* The oldest batched completes of the current registration into s (a task of an earlier one
 * is dropped: it has no effect any more), at most --step-batch. */
static void step_fill(rc_worker *w, rc_step *s, step_req *q, task **drop)
{
    while (w->batch && s->n < w->conf->step_batch) {
        task *t = w->batch;
        w->batch = t->next;
        w->batch_n--;
        t->next = NULL;
        if (t->epoch != w->epoch) {
            t->next = *drop;
            *drop = t;
            continue;
        }
        q->tasks[s->n] = t;
        rc_step_add(s, &t->acked);
    }
    if (!w->batch)
        w->batch_last = NULL;
}

/* step.lua with s's arguments, from its own vector and each complete's (no copy of them). */
static int eval_step(rc_worker *w, const rc_step *s, step_req *q)
{
    eval_part *parts = rc_xcalloc((size_t)s->n + 1, sizeof *parts);
    parts[0] = (eval_part){&s->args, NULL, 0};
    for (int i = 0; i < s->n; i++)
        parts[i + 1] = (eval_part){NULL, s->group[i], RC_COMPLETE_WORKER + 1};
    int r = async_eval_parts(w, RC_LUA_STEP, parts, s->n + 1, NULL, on_step_reply, q);
    free(parts);
    return r;
}

static void send_step(rc_worker *w)
{
    step_req *q = rc_xcalloc(1, sizeof *q);
    rc_step *s = &q->s;
    rc_step_init(s, w->id);
    q->tasks = rc_xcalloc((size_t)w->conf->step_batch, sizeof *q->tasks);
    if (w->hb_want) {
        hb_fields f = {0};
        hb_fields_fill(w, &f);
        rc_step_beat(s, w->registered ? "beat" : "register", f.v, sizeof f.v / sizeof f.v[0]);
        q->hb = 1;
        w->hb_want = 0;
        w->hb_outstanding = 1;
        w->hb_sent_ms = rc_mono_ms();
    }
    task *drop = NULL;
    step_fill(w, s, q, &drop);
    if (w->take_want > 0) {
        rc_step_take(s, w->take_want, (uint64_t)(w->conf->lease_seconds * 1000), w->ip);
        w->take_want = 0;
        w->take_outstanding = 1;
        w->take_sent_ms = rc_mono_ms();
    }
    w->steps_out++;
    w->in_steps += s->n;
    if (eval_step(w, s, q) < 0)
        on_step_reply(w, NULL, q);
    while (drop) {
        task *t = drop;
        drop = t->next;
        rc_debug(MOD, "dropping a page of a void registration url=%s", t->rec.url);
        task_done(w, t);
    }
}

/* Sends what waits (completes, a take, a heartbeat) while fewer than RC_STEPS_IN_FLIGHT calls
 * are out; the rest goes when one answers. Without a connection the completes wait with the
 * held ones, resent on reconnect. */
static void send_steps(rc_worker *w)
{
    while (w->ac && w->steps_out < RC_STEPS_IN_FLIGHT && (w->batch || w->hb_want || w->take_want))
        send_step(w);
    if (!w->ac) {
        w->hb_want = 0;
        w->take_want = 0;
        while (w->batch) {
            task *t = w->batch;
            w->batch = t->next;
            t->next = w->resend;
            w->resend = t;
        }
        w->batch_last = NULL;
        w->batch_n = 0;
    }
    if (!w->batch && !w->take_want)
        ev_timer_stop(w->loop, &w->batch_timer);
    /* robots.txt reads and writes of new hosts go in the same write as these calls */
    rc_robots_cache_flush(w->robots);
    ev_timer_stop(w->loop, &w->robots_timer);
}

/* Tasks being fetched, parsed or stored, whose completes are still to come; the others wait in
 * the batch or ride in a step. Completes held for a resend count as working (their own timer
 * sends them). */
static int64_t working(const rc_worker *w)
{
    return w->active - w->batch_n - w->in_steps;
}

/* What waits goes together: a busy worker's completes and take wait up to --step-wait for more
 * to join them (at its page rate a few ms gather many pages, and the take then comes after
 * their completes, so it finds their hosts free again). A worker with nothing working sends at
 * once: no complete can join within the wait, which would only hold its hosts busy and its
 * take back (a single request's page, a host's robots.txt release). */
static void step_soon(rc_worker *w)
{
    if (working(w) <= 0)
        send_steps(w);
    else if ((w->batch || w->take_want) && !ev_is_active(&w->batch_timer)) {
        ev_timer_set(&w->batch_timer, w->conf->step_wait, 0);
        ev_timer_start(w->loop, &w->batch_timer);
    }
}

static void on_batch_timer(struct ev_loop *loop, ev_timer *t, int revents)
{
    send_steps(t->data);
}

/* The robots.txt reads and writes of new hosts (a GET before each one's robots.txt fetch, a SET
 * after it) ride with the next step rather than in round trips of their own: each was a write,
 * a read and a wake-up of this loop and of Redis, a tenth of what a one-page host cost. A step
 * is due when the batch timer runs, and soon while transfers or parses are out (their completes
 * make one); they wait for it at most RC_ROBOTS_HOLD_S. With nothing out they go at once. */
static void robots_turn(rc_worker *w)
{
    if (!rc_robots_cache_held(w->robots) || ev_is_active(&w->batch_timer) || ev_is_active(&w->robots_timer))
        return;
    if (rc_fetch_active(w->fetcher) > 0 || rc_offload_pending(w->parse) > 0) {
        ev_timer_set(&w->robots_timer, RC_ROBOTS_HOLD_S, 0);
        ev_timer_start(w->loop, &w->robots_timer);
    } else
        rc_robots_cache_flush(w->robots);
}

static void on_robots_timer(struct ev_loop *loop, ev_timer *t, int revents)
{
    rc_robots_cache_flush(((rc_worker *)t->data)->robots);
}

/* The stores that buffer write what they took: the JSON Lines sink's pages of a batch of parses
 * in one write per file, and their completes go on from its done callbacks, joining the next
 * step as if each page had been written at once. After every batch of parses (what most pages
 * are stored from) and before the loop waits (the rest). */
static void stores_turn(void *ud)
{
    rc_worker *w = ud;
    for (size_t k = 0; k < w->n_stores; k++)
        if (w->stores[k].ops->turn)
            w->stores[k].ops->turn(w->stores[k].impl);
}

static void on_turn_end(struct ev_loop *loop, ev_prepare *p, int revents)
{
    rc_worker *w = p->data;
    stores_turn(w);
    robots_turn(w);
}

/* A probe that should run every RC_LAG_PROBE s: when it runs late, something held the loop
 * (a page parsed on it, a slow sink call), and transfers and heartbeats waited as long. */
#define RC_LAG_PROBE 0.1
#define RC_LAG_REPORT 0.25
static void on_lag_timer(struct ev_loop *loop, ev_timer *t, int revents)
{
    rc_worker *w = t->data;
    double now = ev_time(), stall = now - w->lag_last - RC_LAG_PROBE;
    w->lag_last = now;
    rc_watchdog_feed(w->dog);
    if (stall > w->lag_max)
        w->lag_max = stall;
    if (stall > RC_LAG_REPORT)
        rc_warn(MOD, "event loop stalled for %.0f ms (worst so far %.0f ms)", stall * 1000, w->lag_max * 1000);
}

static void on_hb_timer(struct ev_loop *loop, ev_timer *t, int revents)
{
    heartbeat(t->data);
}

static void on_drain_timer(struct ev_loop *loop, ev_timer *t, int revents)
{
    rc_worker *w = t->data;
    rc_warn(MOD, "drain grace time over with %lld pages in flight: leaving them to lease recovery",
            (long long)w->active);
    ev_break(loop, EVBREAK_ALL);
}

/* --fsync batch: the JSON Lines sink's sync thread starts a sync at most this often (s). 0: as
 * soon as the previous one ended; the pages written during a sync share the next. An
 * acknowledgement waits for its sync, and one request per host at a time makes a host's cycle
 * (~19 ms on 50 x 200) include it: 20 ms here cost a link-only crawl a third of its pages/s. */
#define RC_COMMIT_INTERVAL 0.0

/* --fsync batch with JSON Lines: a WARC file written joins the sink's next sync, which the
 * page's acknowledgement waits for (the page is put after its WARC records), instead of an
 * fdatasync on the loop per fetch. */
static int warc_to_commit(int fd, void *ud)
{
    return rc_sink_commit_add(ud, fd) < 0 ? (fdatasync(fd) < 0 ? -errno : 0) : 0;
}

/* Every sink the configuration asks for, as rc_stores: MongoDB and the Kafka firehose first
 * (asynchronous), then JSON Lines (the default; with --mongo or --firehose only when --out is
 * given). */
static int open_stores(rc_worker *w, struct ev_loop *loop, const rc_worker_conf *conf, char *err, size_t cap)
{
    rc_sink_fsync policy;
    if (rc_sink_fsync_parse(conf->fsync, &policy) < 0) {
        snprintf(err, cap, "--fsync: '%s' is not none, batch or record", conf->fsync);
        return -1;
    }
    if (conf->firehose && !conf->kafka) {
        snprintf(err, cap, "--firehose needs --kafka BROKERS (or REDCRAWL_KAFKA)");
        return -1;
    }
    if (conf->mongo) {
        rc_mongo_opts mo;
        rc_mongo_opts_init(&mo);
        mo.uri = conf->mongo;
        mo.database = conf->mongo_db ? conf->mongo_db : mo.database;
        mo.pages_collection = conf->mongo_pages ? conf->mongo_pages : mo.pages_collection;
        mo.items_collection = conf->mongo_items ? conf->mongo_items : mo.items_collection;
        rc_mongo_sink *m = rc_mongo_sink_new(loop, &mo, err, cap);
        if (!m)
            return -1;
        w->stores[w->n_stores++] = rc_mongo_sink_store(m);
    }
    if (conf->firehose) {
        char topic[200];
        snprintf(topic, sizeof topic, "%s.%s", conf->topic_prefix, RC_TOPIC_CRAWLED);
        rc_kafka_sink *k = rc_kafka_sink_new(loop, conf->kafka, topic, err, cap);
        if (!k)
            return -1;
        w->stores[w->n_stores++] = rc_kafka_sink_store(k);
    }
    const char *out = conf->out ? conf->out : (conf->mongo || conf->firehose) ? NULL : "redcrawl-out/{crawlid}";
    if (out) {
        rc_sink *j = rc_sink_jsonl_new(out, err, cap);
        if (!j)
            return -1;
        rc_sink_set_fsync(j, policy);
        w->stores[w->n_stores++] = rc_sink_jsonl_store(j);
        if (rc_sink_commit_start(j, loop, RC_COMMIT_INTERVAL, err, cap) < 0)
            return -1;
        w->jsonl = j;
    }
    /* WARC keeps the response as received, for the jobs that ask: not a store of write-groups
     * but of responses, written when the page is parsed (on_parsed). */
    char *wdir =
        conf->warc_dir ? rc_xstrdup(conf->warc_dir) : rc_xasprintf("%s/warc", out ? out : "redcrawl-out/{crawlid}");
    w->warc = rc_warc_sink_new(wdir, (uint64_t)conf->warc_size, (int)conf->warc_gzip, err, cap);
    free(wdir);
    if (!w->warc)
        return -1;
    rc_warc_sink_set_fsync(w->warc, policy != RC_SINK_FSYNC_NONE);
    if (policy == RC_SINK_FSYNC_BATCH && w->jsonl)
        rc_warc_sink_set_sync(w->warc, warc_to_commit, w->jsonl);
    return 0;
}

/* The worker's id (--id, else one made from host and pid) and its random seed. */
static void set_identity(rc_worker *w, const rc_worker_conf *conf)
{
    if (conf->id && *conf->id) {
        snprintf(w->base_id, sizeof w->base_id, "%s", conf->id);
    } else {
        rc_process_id(w->base_id, sizeof w->base_id);
    }
    snprintf(w->id, sizeof w->id, "%s", w->base_id);
    w->rng = rc_now_us() ^ ((uint64_t)getpid() << 32) ^ 0x9e3779b97f4a7c15ull;
}

/* Idle connections kept for reuse: a worker takes each of its hosts in turn, so with fewer than
 * the hosts it crawls at once every page opened a new connection (1,000 hosts x 20 pages: 20,000
 * connections for 21,000 requests). Each one is a descriptor: at most half the open-file limit
 * less the transfers. Not with --connect-to (open_fetcher): curl files every connection under
 * the connect-to target then, one list it scans with a poll per connection at each transfer. */
static int keep_connections(const rc_worker_conf *conf)
{
    int64_t n = conf->keep_connections;
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
        n = RC_MIN(n, (int64_t)rl.rlim_cur / 2 - conf->concurrency);
    return (int)RC_MAX(n, conf->concurrency);
}

/* The network guard and the HTTP fetcher, from the fetch options of conf. */
static int open_fetcher(rc_worker *w, struct ev_loop *loop, const rc_worker_conf *conf, char *err, size_t cap)
{
    rc_fetch_opts fo;
    rc_fetch_opts_init(&fo);
    fo.max_transfers = (int)conf->concurrency;
    fo.max_conns = keep_connections(conf); /* the fetcher keeps fewer under --connect-to rules to one name */
    fo.connect_timeout_ms = (long)(conf->connect_timeout * 1000);
    fo.timeout_ms = (long)(conf->timeout * 1000);
    fo.max_body = (size_t)conf->max_body;
    fo.low_speed_bytes = (long)conf->low_speed_limit;
    fo.low_speed_s = (long)conf->low_speed_time;
    if (conf->useragent)
        fo.useragent = conf->useragent;
    fo.cainfo = conf->cacert;
    w->connect_to = rc_xcalloc(conf->connect_to.n + 1, sizeof(char *));
    for (size_t i = 0; i < conf->connect_to.n; i++)
        w->connect_to[i] = conf->connect_to.v[i];
    fo.connect_to = (const char *const *)w->connect_to;
    fo.n_connect_to = conf->connect_to.n;
    fo.resolve = (const char *const *)conf->resolve.v;
    fo.n_resolve = conf->resolve.n;
    fo.dns_cache = (size_t)conf->dns_cache;
    fo.dns_ttl_s = (long)conf->dns_ttl;
    w->guard = rc_netguard_new((const char *const *)conf->allow_net.v, conf->allow_net.n,
                               (const char *const *)conf->allow_port.v, conf->allow_port.n, err, cap);
    if (!w->guard)
        return -1;
    fo.guard = w->guard;
    w->fetcher = rc_fetcher_new(loop, &fo);
    if (!w->fetcher) {
        snprintf(err, cap, "cannot create the HTTP fetcher (libcurl)");
        return -1;
    }
    return 0;
}

/* The timers, set up here and started later (rc_worker_start, pump, drain). */
static void init_timers(rc_worker *w, const rc_worker_conf *conf)
{
    ev_timer_init(&w->pump_timer, on_pump_timer, 0, 0);
    ev_timer_init(&w->hb_timer, on_hb_timer, 0, conf->heartbeat);
    ev_timer_init(&w->reconnect_timer, on_reconnect_timer, 1.0, 0);
    ev_timer_init(&w->drain_timer, on_drain_timer, conf->timeout + 5, 0);
    ev_timer_init(&w->resend_timer, on_resend_timer, 1.0, 0);
    ev_timer_init(&w->batch_timer, on_batch_timer, conf->step_wait, 0);
    w->batch_timer.data = w;
    ev_timer_init(&w->robots_timer, on_robots_timer, RC_ROBOTS_HOLD_S, 0);
    w->robots_timer.data = w;
    w->pump_timer.data = w->hb_timer.data = w->reconnect_timer.data = w->drain_timer.data = w;
    ev_timer_init(&w->lag_timer, on_lag_timer, RC_LAG_PROBE, RC_LAG_PROBE);
    w->resend_timer.data = w->lag_timer.data = w;
    ev_prepare_init(&w->turn_end, on_turn_end);
    w->turn_end.data = w;
}

static int load_recheck(rc_worker *w, const char *path, char *err, size_t cap)
{
    char why[400];
    int rc = rc_tailids_load(path, &w->recheck, why, sizeof why);
    if (rc < 0)
        snprintf(err, cap, "--recheck: %s", why);
    else
        rc_info(MOD, "%zu pages looked up before they are stored (--recheck %s)", rc_strmap_count(w->recheck), path);
    return rc;
}

rc_worker *rc_worker_new(struct ev_loop *loop, const rc_worker_conf *conf, char *err, size_t cap)
{
    rc_worker *w = rc_xcalloc(1, sizeof *w);
    w->loop = loop;
    w->conf = conf;
    set_identity(w, conf);
    if (conf->fence >= conf->lease_seconds) {
        snprintf(err, cap, "--fence (%.1fs) must be shorter than --lease-seconds (%.1fs)", conf->fence,
                 conf->lease_seconds);
        goto fail;
    }
    if ((w->tree = rc_html_tree_parse(conf->tree)) < 0) {
        snprintf(err, cap, "--tree: '%s' is not light or gumbo", conf->tree);
        goto fail;
    }
    if (rc_redis_parse_url(conf->redis, &w->addr, err, cap) < 0)
        goto fail;
    char prefix[256];
    if (rc_shard_prefix_conf(conf->prefix, (long long)conf->shard, (long long)conf->shards, prefix, sizeof prefix, err,
                             cap) < 0)
        goto fail;
    w->sync = rc_redis_new(conf->redis, prefix, err, cap);
    if (!w->sync)
        goto fail;
    rc_redis_say_tag(w->sync);
    rc_redis_set_locate_timeout(w->sync, (int)(conf->redis_locate_timeout * 1000));
    w->prefix = rc_redis_prefix(w->sync);
    w->addr = *rc_redis_node(w->sync); /* on a cluster the keyspace's master, not the URL's node */
    if (open_stores(w, loop, conf, err, cap) < 0)
        goto fail;
    if (open_fetcher(w, loop, conf, err, cap) < 0)
        goto fail;
    w->seen = rc_seen_new((size_t)conf->seen_cache);
    if (conf->recheck && load_recheck(w, conf->recheck, err, cap) < 0)
        goto fail;
    if (!(w->parse = rc_offload_new(loop, (int)conf->parse_threads, err, cap)))
        goto fail;
    rc_offload_set_after(w->parse, stores_turn, w);
    w->jobs = rc_strmap_new();
    w->notes = rc_notes_new(loop);
    w->robots = rc_robots_cache_new(w->fetcher, w->prefix, conf->useragent ? conf->useragent : RC_FETCH_DEFAULT_UA,
                                    conf->robots_ttl, (size_t)conf->robots_cache);
    rc_robots_cache_batch(w->robots, 1); /* flushed by send_steps and on_turn_end */
    w->health = rc_strmap_new();
    w->held = rc_strmap_new();
    snprintf(w->ip, sizeof w->ip, "%s", rc_redis_local_ip(w->sync));
    if (gethostname(w->hostname, sizeof w->hostname - 1) < 0)
        snprintf(w->hostname, sizeof w->hostname, "unknown");
    if (conf->metrics_port >= 0 &&
        !(w->metrics = rc_worker_metrics_new(conf->metrics_addr, (int)conf->metrics_port, err, cap)))
        goto fail;
    w->started_ms = rc_now_ms();
    w->max_rate = conf->max_rate;
    w->tokens = 1.0;
    w->tokens_ms = rc_mono_ms();
    w->cpu = rc_cpu_new(conf->cpu_cores, 1 + (int)conf->parse_threads);
    init_timers(w, conf);
    err[0] = 0;
    w->dog = rc_watchdog_new(conf->watchdog, err, cap);
    if (!w->dog && err[0])
        goto fail;
    return w;
fail:
    rc_worker_free(w);
    return NULL;
}

void rc_worker_start(rc_worker *w)
{
    char robots_delay[32] = "delay";
    if (w->conf->robots_delay >= 0)
        snprintf(robots_delay, sizeof robots_delay, "%.3fs", w->conf->robots_delay);
    rc_info(MOD, "started id=%s redis=%s concurrency=%lld parse_threads=%d tree=%s delay=%.3fs robots_delay=%s out=%s",
            w->id, rc_redis_url(w->sync), (long long)w->conf->concurrency, rc_offload_threads(w->parse), w->conf->tree,
            w->conf->delay, robots_delay, w->conf->out);
    if (w->metrics)
        rc_info(MOD, "metrics on http://%s:%d/metrics", w->conf->metrics_addr, rc_worker_metrics_port(w->metrics));
    connect_redis(w); /* registers (the first heartbeat) once connected */
    start_wake(w);
    ev_timer_start(w->loop, &w->hb_timer);
    w->lag_last = ev_time();
    ev_timer_start(w->loop, &w->lag_timer);
    ev_prepare_start(w->loop, &w->turn_end);
}

void rc_worker_drain(rc_worker *w)
{
    if (w->draining)
        return;
    w->draining = 1;
    rc_info(MOD, "stopping: finishing %lld pages in flight", (long long)w->active);
    ev_timer_stop(w->loop, &w->pump_timer);
    ev_timer_start(w->loop, &w->drain_timer);
    pump(w);
}

void rc_worker_free(rc_worker *w)
{
    if (!w)
        return;
    rc_watchdog_free(w->dog); /* what follows may wait on Redis with the loop stopped */
    if (w->sync && w->started_ms) {
        /* Deregister: queued URLs return to the frontier for other workers. */
        rc_argv a;
        rc_argv_init(&a);
        rc_argv_set(&a, RC_REAP_WORKER, w->id);
        rc_argv_seti(&a, RC_REAP_MAX_ATTEMPTS, w->conf->max_attempts);
        redisReply *rep = rc_redis_eval(w->sync, RC_LUA_REAP, rc_now_ms(), &a);
        rc_argv_release(&a);
        if (rep)
            freeReplyObject(rep);
        rc_info(MOD, "deregistered id=%s fetched=%llu errors=%llu links_new=%llu worst_loop_stall_ms=%.0f", w->id,
                (unsigned long long)w->fetched, (unsigned long long)w->errors, (unsigned long long)w->links_new,
                w->lag_max * 1000);
    }
    if (w->loop) {
        ev_timer_stop(w->loop, &w->pump_timer);
        ev_timer_stop(w->loop, &w->hb_timer);
        ev_timer_stop(w->loop, &w->reconnect_timer);
        ev_timer_stop(w->loop, &w->drain_timer);
        ev_timer_stop(w->loop, &w->resend_timer);
        ev_timer_stop(w->loop, &w->lag_timer);
        ev_timer_stop(w->loop, &w->batch_timer);
        ev_timer_stop(w->loop, &w->robots_timer);
        ev_prepare_stop(w->loop, &w->turn_end);
    }
    rc_wake_free(w->wake);
    rc_offload_free(w->parse); /* before the jobs its threads read */
    rc_cpu_free(w->cpu);
    rc_fetcher_free(w->fetcher);
    rc_netguard_free(w->guard);
    if (w->ac) {
        redisAsyncContext *ac = w->ac;
        set_ac(w, NULL);
        ac->data = w;
        redisAsyncFree(ac); /* pending callbacks run with NULL replies */
    }
    drop_relay(w);
    /* The stores flush; the groups they could not store hear -ECANCELED, and their verdicts run
     * finish_store, which counts the failure in the notes, reads the jobs and queues the URL's
     * complete: all of that must still be there. Redis is gone, so nothing is sent. A store
     * leaves the list before it is freed, so what runs meanwhile sees live stores only. */
    while (w->n_stores > 0) {
        size_t k = --w->n_stores;
        w->stores[k].ops->free(w->stores[k].impl);
    }
    if (w->loop)
        ev_timer_stop(w->loop, &w->batch_timer); /* which those completes may have set */
    rc_notes_free(w->notes);                     /* after the connection: its callbacks reach the notes */
    task *lists[] = {w->resend, w->fenced, w->batch};
    for (size_t i = 0; i < 3; i++)
        while (lists[i]) {
            task *t = lists[i];
            lists[i] = t->next;
            task_free(t);
        }
    rc_strmap_free(w->jobs, free_job_entry);
    rc_robots_cache_free(w->robots);
    rc_strmap_free(w->health, free);
    rc_strmap_free(w->held, NULL);
    rc_strmap_free(w->recheck, NULL);
    rc_seen_free(w->seen);
    rc_warc_sink_free(w->warc);
    rc_redis_free(w->sync);
    rc_worker_metrics_free(w->metrics);
    free(w->connect_to);
    free(w);
}
