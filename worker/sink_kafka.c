/* sink_kafka.c - see sink_kafka.h. librdkafka's delivery reports arrive on its main queue,
 * which wakes the libev loop through a pipe (rd_kafka_queue_io_event_enable), as the monitor
 * does for its consumer. */
#include "sink_kafka.h"
#include "kafka_conf.h"

#include <errno.h>
#include <ev.h>
#include <fcntl.h>
#include <librdkafka/rdkafka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "util.h"

#define MOD "sink-kafka"

typedef struct group {
    struct group *prev, *next;
    size_t left; /* messages not yet acknowledged */
    int status;
    char err[256];
    void (*done)(void *ud, int status, const char *err);
    void *ud;
} group;

struct rc_kafka_sink {
    struct ev_loop *loop;
    rd_kafka_t *rk;
    rd_kafka_topic_t *topic;
    rd_kafka_queue_t *mainq;
    int pipefd[2];
    ev_io pipe_watcher;
    group *groups; /* in flight, for cancellation at free */
    size_t pending;
};

static void group_unlink(rc_kafka_sink *s, group *g)
{
    if (g->prev)
        g->prev->next = g->next;
    else
        s->groups = g->next;
    if (g->next)
        g->next->prev = g->prev;
}

static void on_delivery(rd_kafka_t *rk, const rd_kafka_message_t *m, void *opaque)
{
    rc_kafka_sink *s = opaque;
    group *g = m->_private;
    if (!g)
        return;
    if (m->err && g->status == 0) {
        g->status = -EIO;
        snprintf(g->err, sizeof g->err, "kafka delivery failed: %s", rd_kafka_err2str(m->err));
    }
    s->pending--;
    if (--g->left == 0) {
        group_unlink(s, g);
        g->done(g->ud, g->status, g->status ? g->err : NULL);
        free(g);
    }
}

static void drain(rc_kafka_sink *s)
{
    rd_kafka_poll(s->rk, 0); /* serves delivery reports */
}

static void on_pipe(struct ev_loop *loop, ev_io *w, int revents)
{
    rc_kafka_sink *s = w->data;
    char buf[64];
    while (read(s->pipefd[0], buf, sizeof buf) > 0)
        ;
    drain(s);
}

static void on_log(const rd_kafka_t *rk, int level, const char *fac, const char *buf)
{
    rc_log(level <= 3 ? RC_LOG_ERROR : level <= 5 ? RC_LOG_WARN : RC_LOG_DEBUG, MOD, "%s: %s", fac, buf);
}

rc_kafka_sink *rc_kafka_sink_new(struct ev_loop *loop, const char *brokers, const char *topic, char *err, size_t cap)
{
    rc_kafka_sink *s = rc_xcalloc(1, sizeof *s);
    s->loop = loop;
    s->pipefd[0] = s->pipefd[1] = -1;
    char kerr[256];
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    /* No loss: wait for all in-sync replicas, retry forever, and keep order per partition. */
    const char *settings[][2] = {
        {"bootstrap.servers", brokers},   {"acks", "all"},    {"enable.idempotence", "true"},
        {"message.timeout.ms", "0"},      {"linger.ms", "5"}, {"queue.buffering.max.messages", "100000"},
        {"client.id", "redcrawl-worker"},
    };
    for (size_t i = 0; i < RC_ARRAY_LEN(settings); i++) {
        if (rd_kafka_conf_set(conf, settings[i][0], settings[i][1], kerr, sizeof kerr) != RD_KAFKA_CONF_OK) {
            snprintf(err, cap, "kafka setting %s: %s", settings[i][0], kerr);
            rd_kafka_conf_destroy(conf);
            goto fail;
        }
    }
    if (rc_kafka_conf_from_env(conf, err, cap) < 0) {
        rd_kafka_conf_destroy(conf);
        goto fail;
    }
    rd_kafka_conf_set_dr_msg_cb(conf, on_delivery);
    rd_kafka_conf_set_log_cb(conf, on_log);
    rd_kafka_conf_set_opaque(conf, s);
    s->rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, kerr, sizeof kerr);
    if (!s->rk) {
        snprintf(err, cap, "kafka producer: %s", kerr);
        rd_kafka_conf_destroy(conf);
        goto fail;
    }
    s->topic = rd_kafka_topic_new(s->rk, topic, NULL);
    if (!s->topic) {
        snprintf(err, cap, "kafka topic %s: %s", topic, rd_kafka_err2str(rd_kafka_last_error()));
        goto fail;
    }
    if (pipe2(s->pipefd, O_NONBLOCK | O_CLOEXEC) < 0) {
        snprintf(err, cap, "pipe: %s", strerror(errno));
        goto fail;
    }
    s->mainq = rd_kafka_queue_get_main(s->rk);
    rd_kafka_queue_io_event_enable(s->mainq, s->pipefd[1], "d", 1);
    ev_io_init(&s->pipe_watcher, on_pipe, s->pipefd[0], EV_READ);
    s->pipe_watcher.data = s;
    ev_io_start(loop, &s->pipe_watcher);
    return s;
fail:
    rc_kafka_sink_free(s);
    return NULL;
}

int rc_kafka_sink_put(rc_kafka_sink *s, const rc_kafka_doc *docs, size_t n,
                      void (*done)(void *ud, int status, const char *err), void *ud)
{
    if (n == 0)
        return -EINVAL;
    group *g = rc_xcalloc(1, sizeof *g);
    g->done = done;
    g->ud = ud;
    for (size_t i = 0; i < n; i++) {
        size_t len = docs[i].len ? docs[i].len : strlen(docs[i].json);
        if (rd_kafka_produce(s->topic, RD_KAFKA_PARTITION_UA, RD_KAFKA_MSG_F_COPY, (void *)docs[i].json, len,
                             docs[i].key, docs[i].key ? strlen(docs[i].key) : 0, g) < 0) {
            rd_kafka_resp_err_t e = rd_kafka_last_error();
            if (i == 0) {
                free(g);
                return e == RD_KAFKA_RESP_ERR__QUEUE_FULL ? -EAGAIN : -EIO;
            }
            /* Part of the group is queued: it fails as a whole when the rest is delivered. */
            g->status = -EIO;
            snprintf(g->err, sizeof g->err, "kafka produce failed: %s", rd_kafka_err2str(e));
            break;
        }
        g->left++;
        s->pending++;
    }
    g->next = s->groups;
    if (s->groups)
        s->groups->prev = g;
    s->groups = g;
    return 0;
}

size_t rc_kafka_sink_pending(const rc_kafka_sink *s)
{
    return s->pending;
}

void rc_kafka_sink_free(rc_kafka_sink *s)
{
    if (!s)
        return;
    if (s->rk) {
        rd_kafka_flush(s->rk, 10000); /* serves the remaining delivery reports */
        drain(s);
    }
    while (s->groups) { /* never acknowledged: their pages stay leased and come back */
        group *g = s->groups;
        group_unlink(s, g);
        g->done(g->ud, -ECANCELED, "kafka sink closed before delivery");
        free(g);
    }
    if (s->pipefd[0] >= 0) {
        ev_io_stop(s->loop, &s->pipe_watcher);
        close(s->pipefd[0]);
        close(s->pipefd[1]);
    }
    if (s->mainq) {
        rd_kafka_queue_io_event_enable(s->mainq, -1, NULL, 0);
        rd_kafka_queue_destroy(s->mainq);
    }
    if (s->topic)
        rd_kafka_topic_destroy(s->topic);
    if (s->rk)
        rd_kafka_destroy(s->rk);
    free(s);
}

/* ---- as an rc_store ------------------------------------------------------------------------ */

static int kafka_put(void *impl, const rc_write_group *g, rc_store_done done, void *ud, char *err, size_t cap)
{
    rc_kafka_doc *docs = rc_xcalloc(g->n, sizeof *docs);
    for (size_t i = 0; i < g->n; i++)
        docs[i] = (rc_kafka_doc){.key = g->docs[i].id, .json = g->docs[i].json, .len = g->docs[i].len};
    int r = rc_kafka_sink_put(impl, docs, g->n, done, ud);
    free(docs);
    if (r < 0)
        snprintf(err, cap, "kafka firehose %s (%s)", r == -EAGAIN ? "busy" : "refused the group", strerror(-r));
    return r;
}

static size_t kafka_pending(const void *impl)
{
    return rc_kafka_sink_pending(impl);
}

static void kafka_free(void *impl)
{
    rc_kafka_sink_free(impl);
}

static const rc_store_ops kafka_ops = {"kafka", kafka_put, kafka_pending, kafka_free, NULL};

rc_store rc_kafka_sink_store(rc_kafka_sink *s)
{
    return (rc_store){.ops = &kafka_ops, .impl = s, .busy_at = 50000};
}
