/* monitor.c - see monitor.h.
 *
 * A message's life: consumer_poll -> cur (stage APPLY) -> rc_control_handle; Redis failed: cur is
 * held and retried every second, nothing else is consumed -> stage PRODUCE: an entry in the commit
 * FIFO, the answer produced to the firehose and the app topic (queue full: held, retried) -> the
 * entry is sealed -> delivery reports count its copies down -> the longest done prefix of the FIFO
 * is committed (async; a failed commit is retried every second until a later one succeeds).
 * A rebalance starts a new generation: offsets of the old one are no longer ours to commit.
 *
 * The librdkafka queues (the consumer's, which also carries the main queue, and the producer's
 * main queue) write one byte to a non-blocking pipe when they go from empty to non-empty; the
 * ev_io on the pipe drains them. Since a queue that is not drained to empty is not signalled again,
 * a 250 ms timer drains too, and an ev_idle continues a drain that stopped at --batch. */
#include "monitor.h"
#include "kafka_conf.h"
#include "metrics.h"
#include "metrics_http.h"

#include <errno.h>
#include <ev.h>
#include <fcntl.h>
#include <hiredis/hiredis.h>
#include <jansson.h>
#include <librdkafka/rdkafka.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "control.h"
#include "control_shards.h"
#include "log.h"
#include "redis.h"
#include "shard.h"
#include "util.h"

#define MOD "monitor"
#define TICK_S 1.0
#define POLL_S 0.25
#define RETRY_S 1.0
#define STALE_MONITOR_MS 60000 /* registry entries without a heartbeat this long are removed */
#define FLUSH_MS 10000         /* at shutdown: answers in flight get this long */
#define GIVE_UP 3              /* attempts at a request Redis refuses (script error) before answering an error */

enum stage { STAGE_APPLY, STAGE_PRODUCE };

/* The message being handled. */
struct cur {
    rd_kafka_message_t *msg; /* NULL when none */
    enum stage stage;
    char *answer;  /* NULL: nothing to answer */
    char app[300]; /* the app topic, "" for none */
    unsigned sent; /* 1: firehose copy produced, 2: app copy produced */
    uint64_t seq;  /* its commit FIFO entry */
    int failures;  /* consecutive Redis failures, for the log */
};

/* A consumed message waiting for its commit. */
struct pend {
    uint64_t seq;
    uint64_t gen;
    int32_t partition;
    int64_t offset;
    int remaining; /* answer copies not yet delivered */
    bool sealed;   /* every copy produced */
};

struct part {
    int32_t partition;
    int64_t want;      /* next offset to commit */
    int64_t committed; /* last offset the broker confirmed */
};

struct rc_monitor {
    struct ev_loop *loop;
    const rc_monitor_conf *conf;
    rc_redis *r;                     /* shard 0's: the registry of monitors */
    rc_redis *shards[RC_SHARDS_MAX]; /* every shard's (--shards K; one: r) */
    rd_kafka_t *cons;
    rd_kafka_t *prod;
    rd_kafka_queue_t *cq; /* consumer queue (main queue forwarded into it) */
    rd_kafka_queue_t *pq; /* producer main queue */
    int pipefd[2];
    ev_io wake;
    ev_timer tick;
    ev_timer poll;
    ev_timer retry;
    ev_idle more;
    char id[300];
    char host[256];
    char ip[64];
    char in_topic[300];
    char fire_topic[300];
    uint64_t started_ms;
    struct cur cur;
    struct pend *fifo;
    size_t head, tail, cap;
    uint64_t seq, gen;
    struct part *parts;
    size_t nparts;
    bool started, stopping;
    uint64_t handled, answered, lost, expired;
    /* Prometheus (--metrics-port): the loop thread updates, microhttpd's thread renders, both
     * under the registry's mutex (shared/metrics.h). NULL when off. */
    rc_metrics *reg;
    rc_metrics_http *http;
    rc_metric *m_requests, *m_answers, *m_expired, *m_lag, *m_held;
};

/* ---- small helpers ------------------------------------------------------------------------- */

/* A Kafka topic name: [A-Za-z0-9._-], at most 249 characters. */
static bool legal_topic(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 249)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
              c == '-'))
            return false;
    }
    return true;
}

/* The per-app topic of an answer's appid, or "". */
static void app_topic(const rc_monitor *m, const char *appid, char *buf, size_t cap)
{
    buf[0] = '\0';
    if (!m->conf->app_topics || !appid || !appid[0])
        return;
    char t[600];
    snprintf(t, sizeof t, "%s.%s%s", m->conf->topic_prefix, RC_TOPIC_APP, appid);
    if (legal_topic(t) && strlen(t) < cap)
        snprintf(buf, cap, "%s", t);
}

static rd_kafka_resp_err_t produce(rc_monitor *m, const char *topic, const char *json, uint64_t seq)
{
    return rd_kafka_producev(m->prod, RD_KAFKA_V_TOPIC(topic), RD_KAFKA_V_VALUE((void *)json, strlen(json)),
                             RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_OPAQUE((void *)(uintptr_t)seq),
                             RD_KAFKA_V_END);
}

/* ---- commits ------------------------------------------------------------------------------- */

static struct part *part_get(rc_monitor *m, int32_t partition)
{
    for (size_t i = 0; i < m->nparts; i++)
        if (m->parts[i].partition == partition)
            return &m->parts[i];
    m->parts = rc_xrealloc(m->parts, (m->nparts + 1) * sizeof *m->parts);
    struct part *p = &m->parts[m->nparts++];
    p->partition = partition;
    p->want = p->committed = -1;
    return p;
}

/* Commits every partition whose wanted offset is ahead of the confirmed one. SYNC at shutdown. */
static void commit_wanted(rc_monitor *m, bool sync)
{
    rd_kafka_topic_partition_list_t *l = rd_kafka_topic_partition_list_new((int)m->nparts + 1);
    for (size_t i = 0; i < m->nparts; i++)
        if (m->parts[i].want > m->parts[i].committed)
            rd_kafka_topic_partition_list_add(l, m->in_topic, m->parts[i].partition)->offset = m->parts[i].want;
    if (l->cnt > 0) {
        rd_kafka_resp_err_t e = rd_kafka_commit(m->cons, l, sync ? 0 : 1);
        if (e && e != RD_KAFKA_RESP_ERR__NO_OFFSET)
            rc_warn(MOD, "offset commit failed: %s (will retry)", rd_kafka_err2str(e));
        if (sync && !e)
            for (size_t i = 0; i < m->nparts; i++)
                m->parts[i].committed = RC_MAX(m->parts[i].committed, m->parts[i].want);
    }
    rd_kafka_topic_partition_list_destroy(l);
}

/* Moves the done prefix of the FIFO into the wanted offsets and commits them. */
static void try_commit(rc_monitor *m)
{
    bool any = false;
    while (m->head < m->tail && m->fifo[m->head].sealed && m->fifo[m->head].remaining <= 0) {
        const struct pend *p = &m->fifo[m->head++];
        if (p->gen != m->gen)
            continue;
        struct part *pt = part_get(m, p->partition);
        pt->want = RC_MAX(pt->want, p->offset + 1);
        any = true;
    }
    if (m->head == m->tail)
        m->head = m->tail = 0;
    if (any && !m->stopping)
        commit_wanted(m, false);
}

static struct pend *fifo_push(rc_monitor *m, const rd_kafka_message_t *msg)
{
    if (m->tail == m->cap) {
        if (m->head > 0) {
            memmove(m->fifo, m->fifo + m->head, (m->tail - m->head) * sizeof *m->fifo);
            m->tail -= m->head;
            m->head = 0;
        } else {
            m->cap = m->cap ? m->cap * 2 : 256;
            m->fifo = rc_xrealloc(m->fifo, m->cap * sizeof *m->fifo);
        }
    }
    struct pend *p = &m->fifo[m->tail++];
    p->seq = ++m->seq;
    p->gen = m->gen;
    p->partition = msg->partition;
    p->offset = msg->offset;
    p->remaining = 0;
    p->sealed = false;
    return p;
}

static struct pend *fifo_find(rc_monitor *m, uint64_t seq)
{
    for (size_t i = m->head; i < m->tail; i++)
        if (m->fifo[i].seq == seq)
            return &m->fifo[i];
    return NULL;
}

/* ---- librdkafka callbacks (served on the loop's thread by the polls, except the log) ------- */

static void on_log(const rd_kafka_t *rk, int level, const char *fac, const char *buf)
{
    if (strcmp(fac, "FAIL") == 0)
        return; /* connection failures also reach on_error: log them once */
    int l = level <= 2 ? RC_LOG_ERROR : level <= 4 ? RC_LOG_WARN : level <= 6 ? RC_LOG_INFO : RC_LOG_DEBUG;
    rc_log(l, "rdkafka", "%s: %s: %s", rd_kafka_name(rk), fac, buf);
}

static void on_error(rd_kafka_t *rk, int err, const char *reason, void *opaque)
{
    if (rd_kafka_fatal_error(rk, NULL, 0))
        rc_error(MOD, "%s: fatal Kafka error: %s", rd_kafka_name(rk), reason);
    else
        rc_warn(MOD, "%s: Kafka error %s: %s (librdkafka retries by itself)", rd_kafka_name(rk),
                rd_kafka_err2name((rd_kafka_resp_err_t)err), reason);
}

static void on_delivery(rd_kafka_t *rk, const rd_kafka_message_t *km, void *opaque)
{
    rc_monitor *m = opaque;
    uint64_t seq = (uint64_t)(uintptr_t)km->_private;
    rc_metric_add(m->m_answers, km->err ? "lost" : "delivered", 1);
    if (km->err) {
        m->lost++;
        rc_error(MOD, "an answer was not delivered to %s: %s", rd_kafka_topic_name(km->rkt), rd_kafka_err2str(km->err));
    } else {
        m->answered++;
    }
    if (seq == 0)
        return; /* a notification: nothing to commit */
    struct pend *p = fifo_find(m, seq);
    if (p)
        p->remaining--;
    try_commit(m);
}

static void on_commit(rd_kafka_t *rk, rd_kafka_resp_err_t err, rd_kafka_topic_partition_list_t *offsets, void *opaque)
{
    rc_monitor *m = opaque;
    if (err && err != RD_KAFKA_RESP_ERR__NO_OFFSET)
        rc_warn(MOD, "offset commit failed: %s (retried every second)", rd_kafka_err2str(err));
    for (int i = 0; offsets && i < offsets->cnt; i++) {
        const rd_kafka_topic_partition_t *tp = &offsets->elems[i];
        if (tp->err) {
            rc_warn(MOD, "offset commit of %s [%d] @ %lld failed: %s", tp->topic, (int)tp->partition,
                    (long long)tp->offset, rd_kafka_err2str(tp->err));
            continue;
        }
        if (err || tp->offset < 0 || strcmp(tp->topic, m->in_topic) != 0)
            continue;
        for (size_t j = 0; j < m->nparts; j++)
            if (m->parts[j].partition == tp->partition)
                m->parts[j].committed = RC_MAX(m->parts[j].committed, tp->offset);
        rc_debug(MOD, "committed %s [%d] @ %lld", tp->topic, (int)tp->partition, (long long)tp->offset);
    }
}

static void log_parts(const char *what, const rd_kafka_topic_partition_list_t *parts)
{
    char buf[512];
    size_t o = 0;
    buf[0] = '\0';
    for (int i = 0; parts && i < parts->cnt && o < sizeof buf; i++)
        o += (size_t)snprintf(buf + o, sizeof buf - o, "%s%s[%d]", i ? " " : "", parts->elems[i].topic,
                              (int)parts->elems[i].partition);
    rc_info(MOD, "%s: %s", what, buf[0] ? buf : "(none)");
}

static void on_rebalance(rd_kafka_t *rk, rd_kafka_resp_err_t err, rd_kafka_topic_partition_list_t *parts, void *opaque)
{
    rc_monitor *m = opaque;
    bool coop = strcmp(rd_kafka_rebalance_protocol(rk), "COOPERATIVE") == 0;
    rd_kafka_error_t *e = NULL;
    if (err == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS) {
        log_parts("partitions assigned", parts);
        if (coop)
            e = rd_kafka_incremental_assign(rk, parts);
        else
            rd_kafka_assign(rk, parts);
    } else {
        log_parts("partitions revoked", parts);
        try_commit(m);
        /* What is still in flight belongs to the next owner now (it will be redelivered). */
        m->gen++;
        m->nparts = 0;
        if (coop)
            e = rd_kafka_incremental_unassign(rk, parts);
        else
            rd_kafka_assign(rk, NULL);
    }
    if (e) {
        rc_warn(MOD, "rebalance: %s", rd_kafka_error_string(e));
        rd_kafka_error_destroy(e);
    }
}

/* ---- handling messages --------------------------------------------------------------------- */

static void cur_reset(rc_monitor *m)
{
    if (m->cur.msg)
        rd_kafka_message_destroy(m->cur.msg);
    free(m->cur.answer);
    memset(&m->cur, 0, sizeof m->cur);
}

/* requests_total{kind,result} from the answer: kind is its action ("stats" for a stats answer,
 * the request's kind for a refusal), result accepted or rejected (the answer has an error). */
static void count_request(rc_monitor *m, const json_t *answer)
{
    if (!m->reg)
        return;
    const char *kind = json_string_value(json_object_get(answer, "action"));
    if (!kind)
        kind = json_object_get(answer, "stats") ? "stats" : json_string_value(json_object_get(answer, "kind"));
    char values[96];
    snprintf(values, sizeof values, "%s,%s", kind && !strchr(kind, ',') ? kind : "unknown",
             json_object_get(answer, "error") ? "rejected" : "accepted");
    rc_metric_add(m->m_requests, values, 1);
}

/* Advances the current message; true when it is done (and released), false when it must wait. */
static rc_redis *shard_conn(void *ud, int i, char *err, size_t cap)
{
    rc_monitor *m = ud;
    return m->shards[i];
}

static bool process(rc_monitor *m)
{
    struct cur *c = &m->cur;
    if (c->stage == STAGE_APPLY) {
        char err[512];
        char *answer = NULL;
        const char *data = c->msg->payload ? (const char *)c->msg->payload : "";
        int res =
            rc_control_shards_handle((int)m->conf->shards, shard_conn, m, data, c->msg->len, &answer, err, sizeof err);
        if (res == -EPROTO && c->failures + 1 >= GIVE_UP) {
            /* Redis refuses it every time (a script error): holding it would stop the control plane. */
            rc_error(MOD, "giving up on %s [%d] @ %lld after %d attempts: %s", rd_kafka_topic_name(c->msg->rkt),
                     (int)c->msg->partition, (long long)c->msg->offset, c->failures + 1, err);
            answer = rc_control_failure_answer(data, c->msg->len, err);
            res = 0;
        }
        if (res < 0) {
            if (c->failures++ == 0)
                rc_error(MOD, "cannot apply %s [%d] @ %lld: %s; retrying every %.0f s, nothing else is consumed",
                         rd_kafka_topic_name(c->msg->rkt), (int)c->msg->partition, (long long)c->msg->offset, err,
                         RETRY_S);
            return false;
        }
        if (c->failures)
            rc_info(MOD, "applied %s [%d] @ %lld after %d failed attempt(s)", rd_kafka_topic_name(c->msg->rkt),
                    (int)c->msg->partition, (long long)c->msg->offset, c->failures);
        m->handled++;
        c->answer = answer;
        c->stage = STAGE_PRODUCE;
        c->seq = fifo_push(m, c->msg)->seq;
        if (answer) {
            json_t *doc = json_loads(answer, 0, NULL);
            app_topic(m, json_string_value(json_object_get(doc, "appid")), c->app, sizeof c->app);
            count_request(m, doc);
            json_decref(doc);
        } else {
            rc_metric_add(m->m_requests, "crawl,accepted", 1); /* a crawl without uuid: never answered */
        }
        rc_debug(MOD, "applied %s [%d] @ %lld", rd_kafka_topic_name(c->msg->rkt), (int)c->msg->partition,
                 (long long)c->msg->offset);
    }
    struct pend *p = fifo_find(m, c->seq);
    const char *topics[2] = {m->fire_topic, c->app};
    for (unsigned i = 0; c->answer && i < 2; i++) {
        if ((c->sent & (1u << i)) || !topics[i][0])
            continue;
        rd_kafka_resp_err_t e = produce(m, topics[i], c->answer, c->seq);
        if (e == RD_KAFKA_RESP_ERR__QUEUE_FULL) {
            rc_warn(MOD, "producer queue full: waiting before answering");
            return false;
        }
        if (e)
            rc_error(MOD, "cannot produce the answer to %s: %s", topics[i], rd_kafka_err2str(e));
        else if (p)
            p->remaining++;
        c->sent |= 1u << i;
    }
    if (p)
        p->sealed = true;
    cur_reset(m);
    try_commit(m);
    return true;
}

/* Holds the current message: retried in RETRY_S (a stopped one-shot timer must be set again). */
static void hold(rc_monitor *m)
{
    ev_idle_stop(m->loop, &m->more);
    if (!ev_is_active(&m->retry)) {
        ev_timer_set(&m->retry, RETRY_S, 0);
        ev_timer_start(m->loop, &m->retry);
    }
}

static void drain(rc_monitor *m)
{
    rd_kafka_poll(m->prod, 0);
    if (m->stopping || !m->started)
        return;
    if (m->cur.msg) {
        if (ev_is_active(&m->retry))
            return;
        if (!process(m)) {
            hold(m);
            return;
        }
    }
    for (int64_t n = 0; n < m->conf->batch; n++) {
        rd_kafka_message_t *msg = rd_kafka_consumer_poll(m->cons, 0);
        if (!msg) {
            ev_idle_stop(m->loop, &m->more);
            return;
        }
        if (msg->err) {
            if (msg->err != RD_KAFKA_RESP_ERR__PARTITION_EOF)
                rc_warn(MOD, "consumer: %s%s%s", rd_kafka_message_errstr(msg), msg->rkt ? " on " : "",
                        msg->rkt ? rd_kafka_topic_name(msg->rkt) : "");
            rd_kafka_message_destroy(msg);
            continue;
        }
        m->cur.msg = msg;
        m->cur.stage = STAGE_APPLY;
        if (!process(m)) {
            hold(m);
            return;
        }
        if (n % 64 == 63)
            rd_kafka_poll(m->prod, 0);
    }
    ev_idle_start(m->loop, &m->more); /* maybe more: continue after the other watchers had a turn */
}

/* ---- watchers ------------------------------------------------------------------------------ */

static void on_wake(struct ev_loop *loop, ev_io *w, int revents)
{
    rc_monitor *m = w->data;
    char buf[256];
    while (read(m->pipefd[0], buf, sizeof buf) > 0)
        ;
    drain(m);
}

static void on_poll(struct ev_loop *loop, ev_timer *t, int revents)
{
    drain(t->data);
}

static void on_retry(struct ev_loop *loop, ev_timer *t, int revents)
{
    drain(t->data);
}

static void on_more(struct ev_loop *loop, ev_idle *w, int revents)
{
    drain(w->data);
}

static void notify_expired(const char *appid, const char *json, void *ud)
{
    rc_monitor *m = ud;
    char app[300];
    m->expired++;
    rc_metric_add(m->m_expired, NULL, 1);
    rc_info(MOD, "job expired: %s", json);
    app_topic(m, appid, app, sizeof app);
    const char *topics[2] = {m->fire_topic, app};
    for (int i = 0; i < 2; i++) {
        if (!topics[i][0])
            continue;
        rd_kafka_resp_err_t e = produce(m, topics[i], json, 0);
        if (e)
            rc_error(MOD, "cannot produce the expired notification to %s: %s", topics[i], rd_kafka_err2str(e));
    }
}

static void heartbeat(rc_monitor *m)
{
    char k1[512], k2[512];
    uint64_t now = rc_now_ms();
    rc_redis_key(m->r, k1, sizeof k1, "monitors");
    rc_redis_key(m->r, k2, sizeof k2, "monitor:%s", m->id);
    redisReply *rep = rc_redis_cmd(m->r, "ZADD %s %llu %s", k1, (unsigned long long)now, m->id);
    if (rep)
        freeReplyObject(rep);
    rep = rc_redis_cmd(m->r,
                       "HSET %s hb %llu started_ms %llu pid %d host %s ip %s kafka %s group %s topic_prefix %s "
                       "handled %llu answered %llu lost %llu expired %llu",
                       k2, (unsigned long long)now, (unsigned long long)m->started_ms, (int)getpid(), m->host, m->ip,
                       m->conf->kafka, m->conf->group, m->conf->topic_prefix, (unsigned long long)m->handled,
                       (unsigned long long)m->answered, (unsigned long long)m->lost, (unsigned long long)m->expired);
    if (rep)
        freeReplyObject(rep);
    /* Monitors that died without deregistering. */
    rep = rc_redis_cmd(m->r, "ZRANGEBYSCORE %s -inf %llu", k1, (unsigned long long)(now - STALE_MONITOR_MS));
    for (size_t i = 0; rep && rep->type == REDIS_REPLY_ARRAY && i < rep->elements; i++) {
        char k3[512];
        rc_redis_key(m->r, k3, sizeof k3, "monitor:%s", rep->element[i]->str);
        redisReply *r2 = rc_redis_cmd(m->r, "DEL %s", k3);
        if (r2)
            freeReplyObject(r2);
        r2 = rc_redis_cmd(m->r, "ZREM %s %s", k1, rep->element[i]->str);
        if (r2)
            freeReplyObject(r2);
        rc_info(MOD, "removed stale monitor %s from the registry", rep->element[i]->str);
    }
    if (rep)
        freeReplyObject(rep);
}

/* Consumer lag: messages on our partitions not consumed yet (high watermark - position), from
 * librdkafka's cached watermarks (updated by every fetch): no request to the broker. */
static void sample_lag(rc_monitor *m)
{
    rd_kafka_topic_partition_list_t *parts = NULL;
    if (!m->reg || rd_kafka_assignment(m->cons, &parts) != RD_KAFKA_RESP_ERR_NO_ERROR || !parts)
        return;
    int64_t lag = 0;
    rd_kafka_position(m->cons, parts);
    for (int i = 0; i < parts->cnt; i++) {
        const rd_kafka_topic_partition_t *p = &parts->elems[i];
        int64_t lo = -1, hi = -1;
        if (rd_kafka_get_watermark_offsets(m->cons, p->topic, p->partition, &lo, &hi) != RD_KAFKA_RESP_ERR_NO_ERROR ||
            hi < 0)
            continue;
        int64_t pos = p->offset >= 0 ? p->offset : lo; /* nothing consumed yet: from the start */
        if (pos >= 0 && hi > pos)
            lag += hi - pos;
    }
    rd_kafka_topic_partition_list_destroy(parts);
    rc_metric_set(m->m_lag, NULL, (double)lag);
    rc_metric_set(m->m_held, NULL, m->cur.msg ? 1 : 0);
}

static void on_tick(struct ev_loop *loop, ev_timer *t, int revents)
{
    rc_monitor *m = t->data;
    char err[512];
    heartbeat(m);
    sample_lag(m);
    for (int s = 0; s < (int)m->conf->shards; s++) /* a job expires in every shard it is in */
        if (rc_control_expire_due(m->shards[s], (int64_t)(rc_now_ms() / 1000), notify_expired, m, err, sizeof err) < 0)
            rc_warn(MOD, "expiring jobs in shard %d: %s", s, err);
    commit_wanted(m, false); /* retries commits that failed (e.g. while the broker restarted) */
    drain(m);
}

/* ---- setup --------------------------------------------------------------------------------- */

static rd_kafka_conf_t *base_conf(rc_monitor *m, const char *client, char *err, size_t cap)
{
    rd_kafka_conf_t *kc = rd_kafka_conf_new();
    char cid[400];
    snprintf(cid, sizeof cid, "redcrawl-monitor-%s-%s", client, m->id);
    if (rd_kafka_conf_set(kc, "bootstrap.servers", m->conf->kafka, err, cap) != RD_KAFKA_CONF_OK ||
        rd_kafka_conf_set(kc, "client.id", cid, err, cap) != RD_KAFKA_CONF_OK ||
        rd_kafka_conf_set(kc, "log.connection.close", "false", err, cap) != RD_KAFKA_CONF_OK ||
        rd_kafka_conf_set(kc, "reconnect.backoff.max.ms", "1000", err, cap) != RD_KAFKA_CONF_OK ||
        rc_kafka_conf_from_env(kc, err, cap) < 0) {
        rd_kafka_conf_destroy(kc);
        return NULL;
    }
    rd_kafka_conf_set_opaque(kc, m);
    rd_kafka_conf_set_log_cb(kc, on_log);
    rd_kafka_conf_set_error_cb(kc, on_error);
    return kc;
}

/* Creates the incoming and firehose topics when they do not exist (broker defaults for partitions
 * and replicas), so that the subscription finds its topic at once. Failures are logged only. */
static void ensure_topics(rc_monitor *m)
{
    char e[256];
    const char *names[2] = {m->in_topic, m->fire_topic};
    rd_kafka_NewTopic_t *nt[2];
    for (int i = 0; i < 2; i++)
        nt[i] = rd_kafka_NewTopic_new(names[i], -1, -1, e, sizeof e);
    rd_kafka_queue_t *q = rd_kafka_queue_new(m->prod);
    rd_kafka_AdminOptions_t *opt = rd_kafka_AdminOptions_new(m->prod, RD_KAFKA_ADMIN_OP_CREATETOPICS);
    rd_kafka_AdminOptions_set_request_timeout(opt, 10000, e, sizeof e);
    rd_kafka_CreateTopics(m->prod, nt, 2, opt, q);
    rd_kafka_event_t *ev = rd_kafka_queue_poll(q, 15000);
    if (!ev) {
        rc_warn(MOD, "creating topics %s, %s: no answer from Kafka at %s", names[0], names[1], m->conf->kafka);
    } else if (rd_kafka_event_error(ev)) {
        rc_warn(MOD, "creating topics: %s", rd_kafka_event_error_string(ev));
    } else {
        size_t n = 0;
        const rd_kafka_topic_result_t **res =
            rd_kafka_CreateTopics_result_topics(rd_kafka_event_CreateTopics_result(ev), &n);
        for (size_t i = 0; i < n; i++) {
            rd_kafka_resp_err_t te = rd_kafka_topic_result_error(res[i]);
            if (!te)
                rc_info(MOD, "created topic %s", rd_kafka_topic_result_name(res[i]));
            else if (te != RD_KAFKA_RESP_ERR_TOPIC_ALREADY_EXISTS)
                rc_warn(MOD, "creating topic %s: %s", rd_kafka_topic_result_name(res[i]),
                        rd_kafka_topic_result_error_string(res[i]));
        }
    }
    if (ev)
        rd_kafka_event_destroy(ev);
    rd_kafka_AdminOptions_destroy(opt);
    rd_kafka_queue_destroy(q);
    rd_kafka_NewTopic_destroy_array(nt, 2);
}

static int start_metrics(rc_monitor *m, char *err, size_t cap)
{
    rc_metrics *r = m->reg = rc_metrics_new();
    m->m_requests = rc_metrics_counter(r, "redcrawl_monitor_requests_total",
                                       "Requests applied, by kind (the answer's action) and result.", "kind,result");
    m->m_answers = rc_metrics_counter(r, "redcrawl_monitor_answers_total",
                                      "Answers and notifications produced: delivered or lost.", "result");
    m->m_expired = rc_metrics_counter(r, "redcrawl_monitor_jobs_expired_total", "Jobs expired by this monitor.", NULL);
    m->m_lag = rc_metrics_gauge(r, "redcrawl_monitor_consumer_lag",
                                "Requests on this monitor's partitions not consumed yet.", NULL);
    m->m_held = rc_metrics_gauge(r, "redcrawl_monitor_held",
                                 "1 while a request waits for Redis (nothing behind it is consumed).", NULL);
    if (!(m->http = rc_metrics_http_start(r, m->conf->metrics_addr, (int)m->conf->metrics_port, err, cap)))
        return -EIO;
    rc_info(MOD, "metrics on http://%s:%d/metrics", m->conf->metrics_addr, rc_metrics_http_port(m->http));
    return 0;
}

/* A connection per shard (--shards K), each under its shard's prefix; shard 0's keeps the
 * registry. One shard: the prefix as given. */
static int connect_shards(rc_monitor *m, char *err, size_t cap)
{
    for (int s = 0; s < (int)m->conf->shards; s++) {
        char prefix[256];
        if (rc_shard_prefix(m->conf->prefix, s, (int)m->conf->shards, prefix, sizeof prefix) < 0) {
            snprintf(err, cap, "--prefix '%s' has a hash tag: a sharded keyspace makes its own", m->conf->prefix);
            return -EINVAL;
        }
        if (!(m->shards[s] = rc_redis_new(m->conf->redis, prefix, err, cap)))
            return -EIO;
    }
    m->r = m->shards[0];
    return 0;
}

rc_monitor *rc_monitor_new(struct ev_loop *loop, const rc_monitor_conf *conf, char *err, size_t cap)
{
    rc_monitor *m = rc_xcalloc(1, sizeof *m);
    rd_kafka_conf_t *kc = NULL;
    char num[32];
    m->loop = loop;
    m->conf = conf;
    m->pipefd[0] = m->pipefd[1] = -1;
    m->started_ms = rc_now_ms();
    snprintf(m->host, sizeof m->host, "localhost");
    gethostname(m->host, sizeof m->host - 1);
    if (conf->id && conf->id[0])
        snprintf(m->id, sizeof m->id, "%s", conf->id);
    else
        rc_process_id(m->id, sizeof m->id);
    snprintf(m->in_topic, sizeof m->in_topic, "%s.%s", conf->topic_prefix, RC_TOPIC_INCOMING);
    snprintf(m->fire_topic, sizeof m->fire_topic, "%s.%s", conf->topic_prefix, RC_TOPIC_FIREHOSE);
    if (!legal_topic(m->in_topic)) {
        snprintf(err, cap, "--topic-prefix %s: topic names may hold only letters, digits, '.', '_' and '-'",
                 conf->topic_prefix);
        goto fail;
    }
    if (connect_shards(m, err, cap) < 0)
        goto fail;
    /* the address this host reaches Redis from, as workers report theirs */
    snprintf(m->ip, sizeof m->ip, "%s", rc_redis_local_ip(m->r));
    rc_redis_say_tag(m->r);

    /* Producer: answers and notifications. */
    if (!(kc = base_conf(m, "producer", err, cap)))
        goto fail;
    if (rd_kafka_conf_set(kc, "linger.ms", "2", err, cap) != RD_KAFKA_CONF_OK)
        goto fail;
    rd_kafka_conf_set_dr_msg_cb(kc, on_delivery);
    if (!(m->prod = rd_kafka_new(RD_KAFKA_PRODUCER, kc, err, cap)))
        goto fail;
    kc = NULL; /* rd_kafka_new took it */

    /* Consumer: requests, in a group, offsets committed by hand. */
    if (!(kc = base_conf(m, "consumer", err, cap)))
        goto fail;
    snprintf(num, sizeof num, "%lld", (long long)conf->session_timeout_ms);
    char hb[32];
    snprintf(hb, sizeof hb, "%lld", (long long)RC_MAX(conf->session_timeout_ms / 3, 100));
    if (rd_kafka_conf_set(kc, "group.id", conf->group, err, cap) != RD_KAFKA_CONF_OK ||
        rd_kafka_conf_set(kc, "enable.auto.commit", "false", err, cap) != RD_KAFKA_CONF_OK ||
        rd_kafka_conf_set(kc, "enable.auto.offset.store", "false", err, cap) != RD_KAFKA_CONF_OK ||
        rd_kafka_conf_set(kc, "auto.offset.reset", "earliest", err, cap) != RD_KAFKA_CONF_OK ||
        rd_kafka_conf_set(kc, "session.timeout.ms", num, err, cap) != RD_KAFKA_CONF_OK ||
        rd_kafka_conf_set(kc, "heartbeat.interval.ms", hb, err, cap) != RD_KAFKA_CONF_OK ||
        rd_kafka_conf_set(kc, "topic.metadata.refresh.interval.ms", "10000", err, cap) != RD_KAFKA_CONF_OK)
        goto fail;
    rd_kafka_conf_set_rebalance_cb(kc, on_rebalance);
    rd_kafka_conf_set_offset_commit_cb(kc, on_commit);
    if (!(m->cons = rd_kafka_new(RD_KAFKA_CONSUMER, kc, err, cap)))
        goto fail;
    kc = NULL;
    rd_kafka_poll_set_consumer(m->cons);
    m->cq = rd_kafka_queue_get_consumer(m->cons);
    m->pq = rd_kafka_queue_get_main(m->prod);

    if (pipe(m->pipefd) < 0) {
        snprintf(err, cap, "pipe: %s", strerror(errno));
        goto fail;
    }
    for (int i = 0; i < 2; i++)
        fcntl(m->pipefd[i], F_SETFL, fcntl(m->pipefd[i], F_GETFL) | O_NONBLOCK);
    ensure_topics(m);
    if (conf->metrics_port >= 0 && start_metrics(m, err, cap) < 0)
        goto fail;
    return m;
fail:
    if (kc)
        rd_kafka_conf_destroy(kc);
    rc_monitor_free(m);
    return NULL;
}

int rc_monitor_start(rc_monitor *m, char *err, size_t cap)
{
    rd_kafka_topic_partition_list_t *l = rd_kafka_topic_partition_list_new(1);
    rd_kafka_topic_partition_list_add(l, m->in_topic, RD_KAFKA_PARTITION_UA);
    rd_kafka_resp_err_t e = rd_kafka_subscribe(m->cons, l);
    rd_kafka_topic_partition_list_destroy(l);
    if (e) {
        snprintf(err, cap, "subscribe %s: %s", m->in_topic, rd_kafka_err2str(e));
        return -EIO;
    }
    rd_kafka_queue_io_event_enable(m->cq, m->pipefd[1], "c", 1);
    rd_kafka_queue_io_event_enable(m->pq, m->pipefd[1], "p", 1);
    ev_io_init(&m->wake, on_wake, m->pipefd[0], EV_READ);
    m->wake.data = m;
    ev_timer_init(&m->tick, on_tick, 0, TICK_S);
    m->tick.data = m;
    ev_timer_init(&m->poll, on_poll, POLL_S, POLL_S);
    m->poll.data = m;
    ev_timer_init(&m->retry, on_retry, RETRY_S, 0);
    m->retry.data = m;
    ev_idle_init(&m->more, on_more);
    m->more.data = m;
    ev_io_start(m->loop, &m->wake);
    ev_timer_start(m->loop, &m->tick);
    ev_timer_start(m->loop, &m->poll);
    m->started = true;
    rc_info(MOD, "monitor %s consuming %s (group %s) from %s, answering on %s%s", m->id, m->in_topic, m->conf->group,
            m->conf->kafka, m->fire_topic, m->conf->app_topics ? " and per-app topics" : "");
    heartbeat(m);
    return 0;
}

void rc_monitor_stop(rc_monitor *m)
{
    if (!m->started || m->stopping)
        return;
    m->stopping = true;
    ev_io_stop(m->loop, &m->wake);
    ev_timer_stop(m->loop, &m->tick);
    ev_timer_stop(m->loop, &m->poll);
    ev_timer_stop(m->loop, &m->retry);
    ev_idle_stop(m->loop, &m->more);
    rd_kafka_queue_io_event_enable(m->cq, -1, NULL, 0);
    rd_kafka_queue_io_event_enable(m->pq, -1, NULL, 0);
    if (m->cur.msg && m->cur.stage == STAGE_APPLY) {
        rc_warn(MOD, "leaving %s [%d] @ %lld unapplied and uncommitted", rd_kafka_topic_name(m->cur.msg->rkt),
                (int)m->cur.msg->partition, (long long)m->cur.msg->offset);
        cur_reset(m);
    } else if (m->cur.msg) {
        process(m);
        cur_reset(m);
    }
    rd_kafka_resp_err_t e = rd_kafka_flush(m->prod, FLUSH_MS);
    if (e)
        rc_warn(MOD, "%d answer(s) still undelivered after %d ms: their requests stay uncommitted",
                rd_kafka_outq_len(m->prod), FLUSH_MS);
    try_commit(m);
    commit_wanted(m, true);
    e = rd_kafka_consumer_close(m->cons);
    if (e)
        rc_warn(MOD, "closing the consumer: %s", rd_kafka_err2str(e));
    char k[512];
    redisReply *rep = rc_redis_cmd(m->r, "ZREM %s %s", rc_redis_key(m->r, k, sizeof k, "monitors"), m->id);
    if (rep)
        freeReplyObject(rep);
    rep = rc_redis_cmd(m->r, "DEL %s", rc_redis_key(m->r, k, sizeof k, "monitor:%s", m->id));
    if (rep)
        freeReplyObject(rep);
    rc_info(MOD, "monitor %s stopped: %llu request(s) handled, %llu answer(s) delivered, %llu lost", m->id,
            (unsigned long long)m->handled, (unsigned long long)m->answered, (unsigned long long)m->lost);
}

void rc_monitor_free(rc_monitor *m)
{
    if (!m)
        return;
    cur_reset(m);
    if (m->cq)
        rd_kafka_queue_destroy(m->cq);
    if (m->pq)
        rd_kafka_queue_destroy(m->pq);
    if (m->cons)
        rd_kafka_destroy(m->cons);
    if (m->prod)
        rd_kafka_destroy(m->prod);
    for (int i = 0; i < 2; i++)
        if (m->pipefd[i] >= 0)
            close(m->pipefd[i]);
    for (int s = 0; s < RC_SHARDS_MAX; s++)
        rc_redis_free(m->shards[s]); /* m->r among them */
    rc_metrics_http_stop(m->http);   /* before the registry it renders */
    rc_metrics_free(m->reg);
    free(m->fifo);
    free(m->parts);
    free(m);
}
