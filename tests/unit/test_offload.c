/* test_offload.c - the worker's offload (worker/offload.c): work runs on the threads with the
 * index of the thread running it, never two jobs on one index at once, and every job's done()
 * runs back on the loop; with no threads, work and done run inline with index 0. The threads
 * are named rc-parse-N. */
#include "offload.h"

#include <dirent.h>
#include <ev.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "rc_test.h"

#define THREADS 4
#define JOBS 400

typedef struct state {
    atomic_int busy[THREADS]; /* jobs running on each index now */
    atomic_int used[THREADS]; /* jobs each index ran */
    atomic_int shared;        /* times an index ran two jobs at once, or was out of range */
    int done;                 /* loop thread only */
    struct ev_loop *loop;
} state;

static state st;

static void work(void *arg, int thread)
{
    (void)arg;
    if (thread < 0 || thread >= THREADS) {
        atomic_fetch_add(&st.shared, 1);
        return;
    }
    if (atomic_fetch_add(&st.busy[thread], 1) != 0)
        atomic_fetch_add(&st.shared, 1);
    struct timespec ts = {0, 200000}; /* long enough for the others to take jobs meanwhile */
    nanosleep(&ts, NULL);
    atomic_fetch_add(&st.used[thread], 1);
    atomic_fetch_sub(&st.busy[thread], 1);
}

static void done(void *arg)
{
    (void)arg;
    if (++st.done == JOBS)
        ev_break(st.loop, EVBREAK_ALL);
}

static void on_timeout(struct ev_loop *loop, ev_timer *t, int revents)
{
    (void)t;
    (void)revents;
    ev_break(loop, EVBREAK_ALL);
}

/* How many of this process's threads carry the name (top -H, perf and ps show it). */
static int threads_named(const char *want)
{
    DIR *d = opendir("/proc/self/task");
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d))) {
        char path[300], name[32] = "";
        snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
        FILE *f = e->d_name[0] != '.' ? fopen(path, "r") : NULL;
        if (f && fgets(name, sizeof name, f))
            n += strncmp(name, want, strlen(want)) == 0 && name[strlen(want)] == '\n';
        if (f)
            fclose(f);
    }
    if (d)
        closedir(d);
    return n;
}

static void test_threads(void)
{
    char err[200];
    st.loop = ev_loop_new(0);
    rc_offload *o = rc_offload_new(st.loop, THREADS, err, sizeof err);
    RC_CHECK(o != NULL);
    RC_CHECK_INT_EQ(rc_offload_threads(o), THREADS);
    RC_CHECK_INT_EQ(threads_named("rc-parse-0"), 1);
    RC_CHECK_INT_EQ(threads_named("rc-parse-3"), 1);
    for (int i = 0; i < JOBS; i++)
        rc_offload_submit(o, work, done, NULL);
    ev_timer guard;
    ev_timer_init(&guard, on_timeout, 60, 0);
    ev_timer_start(st.loop, &guard);
    ev_run(st.loop, 0);
    RC_CHECK_INT_EQ(st.done, JOBS);
    RC_CHECK_INT_EQ(rc_offload_pending(o), 0);
    RC_CHECK_INT_EQ(atomic_load(&st.shared), 0);
    int total = 0, indexes = 0;
    for (int i = 0; i < THREADS; i++) {
        total += atomic_load(&st.used[i]);
        indexes += atomic_load(&st.used[i]) > 0;
    }
    RC_CHECK_INT_EQ(total, JOBS);
    RC_CHECK(indexes >= 2); /* the jobs did spread over the threads */
    rc_offload_free(o);
    ev_loop_destroy(st.loop);
}

static int inline_thread = -1, inline_done;

static void inline_work(void *arg, int thread)
{
    (void)arg;
    inline_thread = thread;
}

static void inline_fin(void *arg)
{
    (void)arg;
    inline_done++;
}

static void test_inline(void)
{
    char err[200];
    struct ev_loop *loop = ev_loop_new(0);
    rc_offload *o = rc_offload_new(loop, 0, err, sizeof err);
    RC_CHECK_INT_EQ(rc_offload_threads(o), 0);
    rc_offload_submit(o, inline_work, inline_fin, NULL);
    RC_CHECK_INT_EQ(inline_thread, 0);
    RC_CHECK_INT_EQ(inline_done, 1); /* done() ran inside submit() */
    rc_offload_free(o);
    ev_loop_destroy(loop);
}

/* Disposals: freed on a thread of the pool, never the loop's; the loop is not woken for them;
 * those no thread took yet are freed by rc_offload_free. */
typedef struct trash_item {
    rc_offload_trash trash;
    pthread_t by;
} trash_item;

static atomic_int disposed;

static void dispose_item(rc_offload_trash *item)
{
    ((trash_item *)(void *)item)->by = pthread_self();
    atomic_fetch_add(&disposed, 1);
}

static void test_dispose(void)
{
    char err[200];
    struct ev_loop *loop = ev_loop_new(0);
    rc_offload *o = rc_offload_new(loop, 2, err, sizeof err);
    static trash_item items[RC_OFFLOAD_TRASH_WAKE + 3];
    size_t n = sizeof items / sizeof items[0];
    for (size_t i = 0; i < RC_OFFLOAD_TRASH_WAKE; i++) /* the last of these wakes a thread */
        rc_offload_dispose(o, &items[i].trash, dispose_item);
    for (int tries = 0; tries < 2000 && atomic_load(&disposed) < RC_OFFLOAD_TRASH_WAKE; tries++) {
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    RC_CHECK_INT_EQ(atomic_load(&disposed), RC_OFFLOAD_TRASH_WAKE);
    for (size_t i = RC_OFFLOAD_TRASH_WAKE; i < n; i++) /* too few to wake one: left for free() */
        rc_offload_dispose(o, &items[i].trash, dispose_item);
    rc_offload_free(o);
    RC_CHECK_INT_EQ(atomic_load(&disposed), (int)n);
    int on_pool = 0;
    for (size_t i = 0; i < RC_OFFLOAD_TRASH_WAKE; i++)
        on_pool += !pthread_equal(items[i].by, pthread_self());
    RC_CHECK_INT_EQ(on_pool, RC_OFFLOAD_TRASH_WAKE);
    ev_loop_destroy(loop);
}

/* Threads are woken for the jobs of a turn of the loop when it ends, not at each submit. */
static atomic_int deferred_ran;

static void deferred_work(void *arg, int thread)
{
    (void)arg;
    (void)thread;
    atomic_fetch_add(&deferred_ran, 1);
}

static void deferred_done(void *arg)
{
    struct ev_loop *loop = arg;
    ev_break(loop, EVBREAK_ALL);
}

static void test_wake_at_turn_end(void)
{
    char err[200];
    struct ev_loop *loop = ev_loop_new(0);
    rc_offload *o = rc_offload_new(loop, 1, err, sizeof err);
    struct timespec ts = {0, 20000000};
    nanosleep(&ts, NULL); /* the thread is asleep */
    rc_offload_submit(o, deferred_work, deferred_done, loop);
    nanosleep(&ts, NULL);
    RC_CHECK_INT_EQ(atomic_load(&deferred_ran), 0); /* no turn ended yet: not woken */
    ev_timer guard;
    ev_timer_init(&guard, on_timeout, 5.0, 0);
    ev_timer_start(loop, &guard);
    ev_run(loop, 0);
    RC_CHECK_INT_EQ(atomic_load(&deferred_ran), 1);
    RC_CHECK_INT_EQ(rc_offload_pending(o), 0);
    ev_timer_stop(loop, &guard);
    rc_offload_free(o);
    ev_loop_destroy(loop);
}

int main(void)
{
    test_threads();
    test_inline();
    test_dispose();
    test_wake_at_turn_end();
    return rc_test_done("test_offload");
}
