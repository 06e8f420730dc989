/* offload.c - see offload.h. A mutex-guarded FIFO of jobs to do and a list of jobs done; the
 * threads sleep on a condition variable and wake the loop with ev_async_send (async-signal and
 * thread safe by libev's contract). */
#include "offload.h"

#include <ev.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

typedef struct job {
    struct job *next;
    rc_offload_work_fn work;
    rc_offload_fn done;
    void *arg;
} job;

/* What one thread starts with: the shared queue and its index (its work's state slot). */
typedef struct thread_arg {
    struct rc_offload *o;
    int index;
} thread_arg;

struct rc_offload {
    struct ev_loop *loop;
    ev_async wake;       /* loop thread */
    ev_prepare turn_end; /* wakes threads for the jobs of the loop's turn (loop thread) */
    int owed;            /* jobs submitted this turn, no thread woken for them yet (loop only) */
    pthread_mutex_t mu;  /* guards cv, waiting, finished and stopping */
    pthread_cond_t cv;
    job *waiting, *waiting_tail; /* FIFO: oldest first */
    job *finished;               /* done() still to run on the loop (any order) */
    rc_offload_trash *trash;     /* to free on a thread (any order) */
    int n_trash;
    int stopping;
    long pending;        /* submitted, done() not yet run: read and written on the loop only */
    rc_offload_fn after; /* once the done()s of a wake-up have run (NULL: none) */
    void *after_arg;
    int n_threads;
    pthread_t *threads;
    thread_arg *args; /* [i]: thread i's, read by it alone */
};

static void empty_trash(rc_offload_trash *list)
{
    while (list) {
        rc_offload_trash *item = list;
        list = item->next;
        item->fn(item);
    }
}

/* Takes the trash along with a job (o->mu held): freed after the job, whose result the loop
 * waits for. */
static rc_offload_trash *take_trash(rc_offload *o)
{
    rc_offload_trash *list = o->trash;
    o->trash = NULL;
    o->n_trash = 0;
    return list;
}

static void *thread_main(void *p)
{
    const thread_arg *ta = p;
    rc_offload *o = ta->o;
    pthread_mutex_lock(&o->mu);
    for (;;) {
        while (!o->waiting && !o->stopping && o->n_trash < RC_OFFLOAD_TRASH_WAKE)
            pthread_cond_wait(&o->cv, &o->mu);
        if (o->stopping)
            break;
        job *j = o->waiting;
        if (j) {
            o->waiting = j->next;
            if (!o->waiting)
                o->waiting_tail = NULL;
        }
        rc_offload_trash *trash = take_trash(o);
        pthread_mutex_unlock(&o->mu);
        if (j)
            j->work(j->arg, ta->index);
        empty_trash(trash);
        pthread_mutex_lock(&o->mu);
        if (j) {
            j->next = o->finished;
            o->finished = j;
            ev_async_send(o->loop, &o->wake);
        }
    }
    pthread_mutex_unlock(&o->mu);
    return NULL;
}

static void on_wake(struct ev_loop *loop, ev_async *a, int revents)
{
    (void)loop;
    (void)revents;
    rc_offload *o = a->data;
    pthread_mutex_lock(&o->mu);
    job *list = o->finished;
    o->finished = NULL;
    pthread_mutex_unlock(&o->mu);
    while (list) {
        job *j = list;
        list = j->next;
        o->pending--;
        j->done(j->arg);
        free(j);
    }
    if (o->after)
        o->after(o->after_arg);
}

/* The jobs a turn of the loop submitted get their threads woken once, when the turn ends (just
 * before the loop waits): a wake-up per page was a futex call and a context switch each, and
 * the pages that finish together (one read of several sockets) now wake a thread once. */
static void on_turn_end(struct ev_loop *loop, ev_prepare *p, int revents)
{
    (void)loop;
    (void)revents;
    rc_offload *o = p->data;
    if (!o->owed)
        return;
    /* Without the mutex: the jobs were queued under it, so a thread that found none is a
     * waiter already; signalled under it, the woken thread would block on it at once. */
    if (o->owed >= o->n_threads)
        pthread_cond_broadcast(&o->cv);
    else
        for (int i = 0; i < o->owed; i++)
            pthread_cond_signal(&o->cv);
    o->owed = 0;
}

void rc_offload_set_after(rc_offload *o, rc_offload_fn after, void *arg)
{
    o->after = after;
    o->after_arg = arg;
}

rc_offload *rc_offload_new(struct ev_loop *loop, int threads, char *err, size_t cap)
{
    rc_offload *o = rc_xcalloc(1, sizeof *o);
    o->loop = loop;
    pthread_mutex_init(&o->mu, NULL);
    pthread_cond_init(&o->cv, NULL);
    ev_async_init(&o->wake, on_wake);
    o->wake.data = o;
    ev_async_start(loop, &o->wake);
    ev_prepare_init(&o->turn_end, on_turn_end);
    o->turn_end.data = o;
    ev_prepare_start(loop, &o->turn_end);
    ev_unref(loop); /* the prepare alone keeps no loop running */
    o->threads = threads > 0 ? rc_xcalloc((size_t)threads, sizeof(pthread_t)) : NULL;
    o->args = threads > 0 ? rc_xcalloc((size_t)threads, sizeof(thread_arg)) : NULL;
    for (int i = 0; i < threads; i++) {
        o->args[i] = (thread_arg){.o = o, .index = i};
        int rc = pthread_create(&o->threads[i], NULL, thread_main, &o->args[i]);
        if (rc) {
            snprintf(err, cap, "cannot start a parse thread: %s", strerror(rc));
            rc_offload_free(o);
            return NULL;
        }
        char name[16];                                          /* the kernel's limit; top -H and perf show it */
        snprintf(name, sizeof name, "rc-parse-%d", i % 100000); /* fits: at most 6 digits */
        pthread_setname_np(o->threads[i], name);
        o->n_threads++;
    }
    return o;
}

void rc_offload_submit(rc_offload *o, rc_offload_work_fn work, rc_offload_fn done, void *arg)
{
    if (o->n_threads == 0) {
        work(arg, 0);
        done(arg);
        return;
    }
    job *j = rc_xcalloc(1, sizeof *j);
    j->work = work;
    j->done = done;
    j->arg = arg;
    o->pending++;
    pthread_mutex_lock(&o->mu);
    if (o->waiting_tail)
        o->waiting_tail->next = j;
    else
        o->waiting = j;
    o->waiting_tail = j;
    pthread_mutex_unlock(&o->mu);
    o->owed++; /* on_turn_end wakes a thread */
}

void rc_offload_dispose(rc_offload *o, rc_offload_trash *item, rc_offload_trash_fn fn)
{
    item->fn = fn;
    if (o->n_threads == 0) {
        fn(item);
        return;
    }
    pthread_mutex_lock(&o->mu);
    item->next = o->trash;
    o->trash = item;
    if (++o->n_trash == RC_OFFLOAD_TRASH_WAKE)
        pthread_cond_signal(&o->cv);
    pthread_mutex_unlock(&o->mu);
}

long rc_offload_pending(const rc_offload *o)
{
    return o->pending;
}

int rc_offload_threads(const rc_offload *o)
{
    return o->n_threads;
}

static void free_list(job *j)
{
    while (j) {
        job *next = j->next;
        free(j);
        j = next;
    }
}

void rc_offload_free(rc_offload *o)
{
    if (!o)
        return;
    pthread_mutex_lock(&o->mu);
    o->stopping = 1;
    pthread_cond_broadcast(&o->cv);
    pthread_mutex_unlock(&o->mu);
    for (int i = 0; i < o->n_threads; i++)
        pthread_join(o->threads[i], NULL);
    ev_async_stop(o->loop, &o->wake);
    ev_ref(o->loop);
    ev_prepare_stop(o->loop, &o->turn_end);
    free_list(o->waiting);
    free_list(o->finished);
    empty_trash(o->trash);
    pthread_mutex_destroy(&o->mu);
    pthread_cond_destroy(&o->cv);
    free(o->threads);
    free(o->args);
    free(o);
}
