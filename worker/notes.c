/* notes.c - see notes.h. */
#include "notes.h"

#include <ev.h>
#include <hiredis/async.h>
#include <hiredis/hiredis.h>
#include <stdarg.h>
#include <stdlib.h>

#include "cluster.h"
#include "log.h"
#include "redis.h"
#include "util.h"

#define MOD "worker"

typedef struct note {
    struct note *next;
    rc_notes *owner;
    char *cmd; /* the command as RESP (redisFormatCommand) */
    int len;
    int sent_up; /* sent on a connection that was up: lost with it, it may have run */
} note;

struct rc_notes {
    struct ev_loop *loop;
    redisAsyncContext *ac;
    ev_timer retry;
    note *head, *tail; /* held, oldest first */
    size_t n_held;
    int warned; /* the drop past RC_NOTES_MAX was said since the list last emptied */
};

static void note_free(note *t)
{
    redisFreeCommand(t->cmd);
    free(t);
}

static void hold(rc_notes *n, note *t)
{
    if (n->n_held >= RC_NOTES_MAX) {
        if (!n->warned)
            rc_warn(MOD, "%d counter writes held for Redis already: dropping the newer ones", RC_NOTES_MAX);
        n->warned = 1;
        note_free(t);
        return;
    }
    t->next = NULL;
    if (n->tail)
        n->tail->next = t;
    else
        n->head = t;
    n->tail = t;
    n->n_held++;
    if (!ev_is_active(&n->retry))
        ev_timer_again(n->loop, &n->retry);
}

/* Held again when it cannot have run; else done with. */
static void on_reply(redisAsyncContext *ac, void *reply, void *privdata)
{
    note *t = privdata;
    const redisReply *rep = reply;
    int not_run = rep ? rep->type == REDIS_REPLY_ERROR && (rc_cluster_is_moved(rep->str) || rc_redis_refusal(rep->str))
                      : !t->sent_up;
    if (not_run)
        hold(t->owner, t);
    else
        note_free(t);
}

static void send_note(rc_notes *n, note *t)
{
    t->sent_up = (n->ac->c.flags & REDIS_CONNECTED) != 0;
    if (redisAsyncFormattedCommand(n->ac, on_reply, t, t->cmd, (size_t)t->len) != REDIS_OK)
        hold(n, t); /* the connection is closing: not sent */
}

static void on_retry(struct ev_loop *loop, ev_timer *w, int revents)
{
    rc_notes *n = w->data;
    if (!n->ac || !(n->ac->c.flags & REDIS_CONNECTED))
        return; /* still held: the timer repeats */
    note *t = n->head;
    n->head = n->tail = NULL;
    n->n_held = 0;
    n->warned = 0;
    ev_timer_stop(loop, w);
    while (t) {
        note *next = t->next;
        send_note(n, t);
        t = next;
    }
}

rc_notes *rc_notes_new(struct ev_loop *loop)
{
    rc_notes *n = rc_xcalloc(1, sizeof *n);
    n->loop = loop;
    ev_init(&n->retry, on_retry);
    n->retry.repeat = 1.0;
    n->retry.data = n;
    return n;
}

void rc_notes_free(rc_notes *n)
{
    if (!n)
        return;
    ev_timer_stop(n->loop, &n->retry);
    while (n->head) {
        note *t = n->head;
        n->head = t->next;
        note_free(t);
    }
    free(n);
}

void rc_notes_set_redis(rc_notes *n, redisAsyncContext *ac)
{
    n->ac = ac;
}

void rc_notes_send(rc_notes *n, const char *fmt, ...)
{
    note *t = rc_xcalloc(1, sizeof *t);
    va_list ap;
    va_start(ap, fmt);
    t->len = redisvFormatCommand(&t->cmd, fmt, ap);
    va_end(ap);
    t->owner = n;
    if (t->len < 0) {
        rc_error(MOD, "cannot format a Redis command (%s)", fmt);
        free(t);
        return;
    }
    if (n->ac)
        send_note(n, t);
    else
        hold(n, t);
}
