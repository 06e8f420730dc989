/* insched.c - see insched.h. */
#include "insched.h"

#include <errno.h>
#include <ev.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "log.h"
#include "sched_conf.h"
#include "util.h"

enum { STARTING, RUNNING, FAILED };

struct rc_insched {
    pthread_t thread;
    struct ev_loop *loop; /* the thread's own: libev's default loop is the process' (SIGCHLD) */
    ev_async quit;
    rc_sched_conf conf;
    int fd; /* logs/scheduler.log */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int state; /* under mu: STARTING until the thread says RUNNING or FAILED (why in err) */
    char err[512];
};

static void on_quit(struct ev_loop *loop, ev_async *w, int revents)
{
    (void)w;
    (void)revents;
    ev_break(loop, EVBREAK_ALL);
}

static void set_state(rc_insched *in, int state, const char *err)
{
    pthread_mutex_lock(&in->mu);
    in->state = state;
    if (err)
        snprintf(in->err, sizeof in->err, "%s", err);
    pthread_cond_signal(&in->cv);
    pthread_mutex_unlock(&in->mu);
}

/* The thread: what redcrawl-scheduler's main does between its option parsing and its exit. */
static void *run(void *arg)
{
    rc_insched *in = arg;
    char err[512];
    rc_log_to_fd(in->fd);
    rc_scheduler *s = rc_scheduler_new(in->loop, &in->conf, NULL, err, sizeof err);
    if (!s) {
        rc_error("scheduler", "cannot start: %s", err);
        set_state(in, FAILED, err);
        return NULL;
    }
    rc_scheduler_start(s);
    set_state(in, RUNNING, NULL);
    ev_run(in->loop, 0);
    rc_scheduler_stop(s);
    rc_scheduler_free(s);
    return NULL;
}

/* The options as redcrawl-scheduler would read them from opts ("name", "value", ..., NULL)
 * after its defaults and environment. 0, or -EINVAL with a message. */
static int read_options(rc_insched *in, const char *const opts[], char *err, size_t cap)
{
    size_t n;
    const rc_conf_row *rows = rc_sched_conf_rows(&n);
    if (rc_conf_init(rows, n, &in->conf, err, cap) < 0)
        return -EINVAL;
    for (size_t i = 0; opts[i] && opts[i + 1]; i += 2)
        if (rc_conf_set(rows, n, &in->conf, opts[i], opts[i + 1], err, cap) < 0)
            return -EINVAL;
    if (!in->conf.redis) {
        snprintf(err, cap, "no Redis URL");
        return -EINVAL;
    }
    if (rc_log_set_level(in->conf.log_level) < 0) {
        snprintf(err, cap, "--log-level: '%s' is not debug, info, warn or error", in->conf.log_level);
        return -EINVAL;
    }
    return 0;
}

/* The thread, started with every signal blocked: SIGINT and SIGTERM are the CLI's to handle
 * (its main thread polls the flag its handler sets). */
static int start_thread(rc_insched *in, char *err, size_t cap)
{
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int r = pthread_create(&in->thread, NULL, run, in);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (r != 0) {
        snprintf(err, cap, "cannot start its thread: %s", strerror(r));
        return -r;
    }
    pthread_setname_np(in->thread, "rc-scheduler");
    pthread_mutex_lock(&in->mu);
    while (in->state == STARTING)
        pthread_cond_wait(&in->cv, &in->mu);
    pthread_mutex_unlock(&in->mu);
    if (in->state == FAILED) {
        pthread_join(in->thread, NULL);
        snprintf(err, cap, "%s", in->err);
        return -EIO;
    }
    return 0;
}

static void free_insched(rc_insched *in)
{
    size_t n;
    const rc_conf_row *rows = rc_sched_conf_rows(&n);
    if (in->loop)
        ev_loop_destroy(in->loop);
    if (in->fd >= 0)
        close(in->fd);
    rc_conf_release(rows, n, &in->conf);
    pthread_cond_destroy(&in->cv);
    pthread_mutex_destroy(&in->mu);
    free(in);
}

rc_insched *rc_insched_start(const char *const opts[], const char *log_path, char *err, size_t cap)
{
    rc_insched *in = rc_xcalloc(1, sizeof *in);
    pthread_mutex_init(&in->mu, NULL);
    pthread_cond_init(&in->cv, NULL);
    in->fd = open(log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (in->fd < 0) {
        snprintf(err, cap, "cannot open %s: %s", log_path, strerror(errno));
        free_insched(in);
        return NULL;
    }
    if (read_options(in, opts, err, cap) < 0) {
        free_insched(in);
        return NULL;
    }
    /* No signal watchers here, and the mask is the thread's (start_thread). */
    in->loop = ev_loop_new(EVFLAG_AUTO | EVFLAG_NOSIGMASK);
    if (!in->loop) {
        snprintf(err, cap, "cannot create an event loop");
        free_insched(in);
        return NULL;
    }
    ev_async_init(&in->quit, on_quit);
    ev_async_start(in->loop, &in->quit);
    if (start_thread(in, err, cap) < 0) {
        free_insched(in);
        return NULL;
    }
    return in;
}

void rc_insched_stop(rc_insched *in)
{
    if (!in)
        return;
    ev_async_send(in->loop, &in->quit);
    pthread_join(in->thread, NULL);
    free_insched(in);
}
