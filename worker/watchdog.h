/* watchdog.h - a worker whose event loop stops turning is ended, so that whatever supervises it
 * (docker compose's restart policy, systemd's Restart=, `redcrawl crawl`) starts a fresh one.
 *
 * A loop blocked for good (a write() or flock() on a hung disk or NFS mount, a lock that is never
 * released, a bug) sends no heartbeat: the scheduler reaps the worker and hands its URLs to
 * others, but the process lives on, holding its memory and a place in the fleet, and nothing
 * restarts a process that has not exited. The loop feeds the watchdog from a timer; a thread of
 * its own checks once a second and, after RC_WATCHDOG_EXIT seconds unfed, logs why and calls
 * _exit(RC_WATCHDOG_EXIT). A stop of the whole process or machine (SIGSTOP, a paused VM) stops
 * the watchdog's thread too: it notices its own late wake-up and starts counting again, so such
 * a pause is never taken for a hang.
 * Threading: feed() from any thread (an atomic store); new/free from the loop thread. */
#ifndef RC_WATCHDOG_H
#define RC_WATCHDOG_H

#include <stddef.h>

/* The exit status of a worker ended by its watchdog (EX_SOFTWARE). */
#define RC_WATCHDOG_EXIT 70

typedef struct rc_watchdog rc_watchdog;

/* Starts the watchdog's thread; the loop counts as fed now. limit_s <= 0: no watchdog (NULL, no
 * error). NULL with a message in err when the thread cannot be started. */
rc_watchdog *rc_watchdog_new(double limit_s, char *err, size_t cap);
void rc_watchdog_feed(rc_watchdog *d);
/* Stops and joins the thread (NULL: nothing). */
void rc_watchdog_free(rc_watchdog *d);

#endif
