/* insched.h - the scheduler inside `redcrawl crawl`'s process: scheduler/scheduler.c's loop on
 * a thread of its own, with an event loop of its own and its own Redis connection, so that an
 * embedded crawl runs one process fewer (the scheduler's was 2.6-3.6 MB of PSS: its relocated
 * library pages and its heap). Its log lines go to a file of their own (logs/scheduler.log), as
 * the process' did. It serves no metrics (--metrics-port is redcrawl-scheduler's,
 * sched_metrics.h).
 *
 * Threads: rc_insched_start and rc_insched_stop are called from one thread (the CLI's); the
 * scheduler's state is touched only by its own thread. It is not restarted: its loop ends only
 * when stopped (it rides out a Redis that goes away, reconnecting, as the process does), so
 * what could end it early is a failure to start, reported by rc_insched_start. */
#ifndef RC_INSCHED_H
#define RC_INSCHED_H

#include <stddef.h>

#include "scheduler.h"

typedef struct rc_insched rc_insched;

/* Starts the thread and waits until its scheduler runs. Its options are redcrawl-scheduler's
 * (sched_conf.h: defaults, then the environment), then OPTS: "name", "value", ..., NULL, as the
 * process took them on its command line (borrowed). --log-level sets the process' level (log.h:
 * the only level there is). log_path is appended to. NULL with a message in err when an option,
 * the log, the thread or the scheduler (its Redis) cannot start. */
rc_insched *rc_insched_start(const char *const opts[], const char *log_path, char *err, size_t cap);

/* Stops the loop (the scheduler hands over its leader lock and logs its totals), joins the
 * thread and frees everything. NULL is accepted. */
void rc_insched_stop(rc_insched *in);

#endif
