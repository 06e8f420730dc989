/* wake.c - see wake.h. */
#include "wake.h"

#include <ev.h>
#include <hiredis/adapters/libev.h>
#include <hiredis/async.h>
#include <hiredis/hiredis.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "tls_relay.h"
#include "util.h"

#define MOD "wake"

struct rc_wake {
    struct ev_loop *loop;
    rc_redis_addr addr;
    char channel[256];
    rc_wake_fn fn;
    void *ud;
    redisAsyncContext *ac;
    rc_tls_relay *relay; /* rediss://: ac's TLS connection (or the one being made) */
    ev_io relay_ready;
    ev_timer retry;
    int quiet; /* said once that Redis is away; said again when it is back */
};

static void connect_wake(rc_wake *wk);

/* The next attempt a second from now. The interval is set again each time: a one-shot libev
 * timer that has fired keeps only the time it had left (~0), so starting it as it is retried
 * at once, thousands of times a second while Redis was away. */
static void retry_later(rc_wake *wk)
{
    ev_timer_stop(wk->loop, &wk->retry);
    ev_timer_set(&wk->retry, 1.0, 0);
    ev_timer_start(wk->loop, &wk->retry);
}

static void drop_relay(rc_wake *wk)
{
    if (!wk->relay)
        return;
    ev_io_stop(wk->loop, &wk->relay_ready);
    rc_tls_relay_free(wk->relay);
    wk->relay = NULL;
}

static void on_message(redisAsyncContext *ac, void *reply, void *privdata)
{
    rc_wake *wk = privdata;
    redisReply *r = reply;
    (void)ac;
    /* ["message", channel, payload]; the subscribe confirmations are arrays too. */
    if (r && r->type == REDIS_REPLY_ARRAY && r->elements == 3 && r->element[0]->type == REDIS_REPLY_STRING &&
        strcmp(r->element[0]->str, "message") == 0)
        wk->fn(wk->ud);
}

static void subscribe(rc_wake *wk)
{
    if (wk->ac)
        redisAsyncCommand(wk->ac, on_message, wk, "SUBSCRIBE %s", wk->channel);
}

static void on_connect(const redisAsyncContext *ac, int status)
{
    rc_wake *wk = ac->data;
    if (!wk)
        return;
    if (status != REDIS_OK) {
        wk->ac = NULL; /* hiredis frees it after this callback */
        drop_relay(wk);
        retry_later(wk);
        return;
    }
    if (wk->quiet)
        rc_info(MOD, "nudges back channel=%s", wk->channel);
    wk->quiet = 0;
}

static void on_disconnect(const redisAsyncContext *ac, int status)
{
    rc_wake *wk = ac->data;
    if (!wk)
        return; /* rc_wake_free */
    wk->ac = NULL;
    drop_relay(wk);
    if (status != REDIS_OK && !wk->quiet) {
        rc_debug(MOD, "subscriber lost Redis: %s (polling meanwhile; reconnecting)", ac->errstr);
        wk->quiet = 1;
    }
    retry_later(wk);
}

static void on_retry(struct ev_loop *loop, ev_timer *t, int revents)
{
    (void)loop, (void)revents;
    ev_timer_stop(((rc_wake *)t->data)->loop, t);
    connect_wake(t->data);
}

/* path: the TLS relay's socket, or NULL for the address itself. */
static void attach(rc_wake *wk, const char *path)
{
    const rc_redis_addr *a = &wk->addr;
    redisAsyncContext *ac = path         ? redisAsyncConnectUnix(path)
                            : a->path[0] ? redisAsyncConnectUnix(a->path)
                                         : redisAsyncConnect(a->host, a->port);
    if (!ac || ac->err) {
        if (ac)
            redisAsyncFree(ac);
        drop_relay(wk);
        retry_later(wk);
        return;
    }
    rc_fd_cloexec(ac->c.fd);
    ac->data = wk;
    redisLibevAttach(wk->loop, ac);
    redisAsyncSetConnectCallback(ac, on_connect);
    redisAsyncSetDisconnectCallback(ac, on_disconnect);
    if (a->password[0] && a->user[0])
        redisAsyncCommand(ac, NULL, NULL, "AUTH %s %s", a->user, a->password);
    else if (a->password[0])
        redisAsyncCommand(ac, NULL, NULL, "AUTH %s", a->password);
    wk->ac = ac;
    subscribe(wk);
}

/* The relay's handshake ended (on its thread: the loop went on meanwhile). */
static void on_relay_ready(struct ev_loop *loop, ev_io *io, int revents)
{
    rc_wake *wk = io->data;
    char err[512];
    (void)revents;
    ev_io_stop(loop, io);
    if (rc_tls_relay_wait(wk->relay, 0, err, sizeof err) < 0) {
        rc_debug(MOD, "subscriber cannot reach Redis: %s (polling meanwhile)", err);
        drop_relay(wk);
        retry_later(wk);
        return;
    }
    attach(wk, rc_tls_relay_path(wk->relay));
}

static void connect_wake(rc_wake *wk)
{
    char err[512];
    if (!wk->addr.tls) {
        attach(wk, NULL);
        return;
    }
    drop_relay(wk);
    if (rc_redis_tls_start(&wk->addr, 5000, &wk->relay, err, sizeof err) < 0) {
        rc_debug(MOD, "subscriber cannot reach Redis: %s (polling meanwhile)", err);
        retry_later(wk);
        return;
    }
    ev_io_init(&wk->relay_ready, on_relay_ready, rc_tls_relay_ready_fd(wk->relay), EV_READ);
    wk->relay_ready.data = wk;
    ev_io_start(wk->loop, &wk->relay_ready);
}

rc_wake *rc_wake_new(struct ev_loop *loop, const rc_redis_addr *addr, const char *channel, rc_wake_fn fn, void *ud,
                     char *err, size_t cap)
{
    if (strlen(channel) >= sizeof((rc_wake *)0)->channel) {
        snprintf(err, cap, "wake channel name too long: %s", channel);
        return NULL;
    }
    rc_wake *wk = rc_xcalloc(1, sizeof *wk);
    wk->loop = loop;
    wk->addr = *addr;
    wk->fn = fn;
    wk->ud = ud;
    snprintf(wk->channel, sizeof wk->channel, "%s", channel);
    ev_timer_init(&wk->retry, on_retry, 1.0, 0);
    wk->retry.data = wk;
    connect_wake(wk);
    return wk;
}

void rc_wake_follow(rc_wake *wk, const char *channel)
{
    if (!wk || strcmp(channel, wk->channel) == 0)
        return;
    if (wk->ac)
        redisAsyncCommand(wk->ac, NULL, NULL, "UNSUBSCRIBE %s", wk->channel);
    snprintf(wk->channel, sizeof wk->channel, "%s", channel);
    subscribe(wk);
}

void rc_wake_retarget(rc_wake *wk, const rc_redis_addr *addr)
{
    if (!wk || (strcmp(addr->host, wk->addr.host) == 0 && addr->port == wk->addr.port))
        return;
    wk->addr = *addr;
    if (wk->ac) {
        /* Detached first: hiredis calls no disconnect callback for a connection not yet made. */
        redisAsyncContext *ac = wk->ac;
        wk->ac = NULL;
        ac->data = NULL;
        redisAsyncDisconnect(ac);
    }
    drop_relay(wk);
    retry_later(wk);
}

void rc_wake_free(rc_wake *wk)
{
    if (!wk)
        return;
    ev_timer_stop(wk->loop, &wk->retry);
    if (wk->ac) {
        wk->ac->data = NULL; /* its disconnect callback, run by the free, finds no wake */
        redisAsyncFree(wk->ac);
    }
    drop_relay(wk);
    free(wk);
}
