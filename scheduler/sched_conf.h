/* sched_conf.h - the scheduler's options: one table for redcrawl-scheduler's command line and
 * for the scheduler that `redcrawl crawl` runs in its own process (cli/insched.c), so both get
 * the same defaults. */
#ifndef RC_SCHED_CONF_H
#define RC_SCHED_CONF_H

#include <stddef.h>

#include "config.h"

/* The rows of rc_sched_conf (scheduler.h); *n gets their number. Static, read-only. */
const rc_conf_row *rc_sched_conf_rows(size_t *n);

#endif
