/* watchdog.c - see watchdog.h. */
#include "watchdog.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "util.h"

#define MOD "watchdog"
#define TICK_MS 1000
/* A wake-up this much later than asked means the thread itself did not run: the process or the
 * machine was stopped, not the loop alone. */
#define LATE_MS 1000

struct rc_watchdog {
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv; /* on CLOCK_MONOTONIC */
    int stop;          /* under mu */
    uint64_t limit_ms;
    _Atomic uint64_t fed_ms; /* rc_mono_ms() of the loop's last feed */
};

void rc_watchdog_feed(rc_watchdog *d)
{
    if (d)
        atomic_store_explicit(&d->fed_ms, rc_mono_ms(), memory_order_relaxed);
}

static void bite(const rc_watchdog *d, uint64_t unfed_ms)
{
    rc_error(MOD,
             "the event loop has not run for %.1f s (--watchdog %.0f): exiting with status %d so that a fresh "
             "worker is started (its URLs come back when the scheduler reaps it); the loop may be blocked on a "
             "hung disk, a lock or a bug",
             (double)unfed_ms / 1000, (double)d->limit_ms / 1000, RC_WATCHDOG_EXIT);
    _exit(RC_WATCHDOG_EXIT);
}

/* Sleeps a tick unless stopped; returns nonzero when stopped. */
static int nap(rc_watchdog *d)
{
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_sec += TICK_MS / 1000;
    pthread_mutex_lock(&d->mu);
    while (!d->stop && pthread_cond_timedwait(&d->cv, &d->mu, &until) != ETIMEDOUT)
        ;
    int stop = d->stop;
    pthread_mutex_unlock(&d->mu);
    return stop;
}

static void *watch(void *arg)
{
    rc_watchdog *d = arg;
    uint64_t woke = rc_mono_ms(), resumed = 0;
    while (!nap(d)) {
        uint64_t now = rc_mono_ms();
        if (now > woke + TICK_MS + LATE_MS)
            resumed = now; /* the whole process was stopped: count the loop's silence from here */
        woke = now;
        uint64_t fed = atomic_load_explicit(&d->fed_ms, memory_order_relaxed);
        uint64_t since = RC_MAX(fed, resumed);
        if (now > since + d->limit_ms)
            bite(d, now - fed);
    }
    return NULL;
}

rc_watchdog *rc_watchdog_new(double limit_s, char *err, size_t cap)
{
    if (limit_s <= 0)
        return NULL;
    rc_watchdog *d = rc_xcalloc(1, sizeof *d);
    d->limit_ms = (uint64_t)(limit_s * 1000);
    rc_watchdog_feed(d);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&d->cv, &ca);
    pthread_condattr_destroy(&ca);
    pthread_mutex_init(&d->mu, NULL);
    int rc = pthread_create(&d->thread, NULL, watch, d);
    if (rc != 0) {
        snprintf(err, cap, "cannot start the watchdog thread: %s", strerror(rc));
        pthread_cond_destroy(&d->cv);
        pthread_mutex_destroy(&d->mu);
        free(d);
        return NULL;
    }
    return d;
}

void rc_watchdog_free(rc_watchdog *d)
{
    if (!d)
        return;
    pthread_mutex_lock(&d->mu);
    d->stop = 1;
    pthread_cond_signal(&d->cv);
    pthread_mutex_unlock(&d->mu);
    pthread_join(d->thread, NULL);
    pthread_cond_destroy(&d->cv);
    pthread_mutex_destroy(&d->mu);
    free(d);
}
