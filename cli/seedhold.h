/* seedhold.h - `redcrawl crawl` keeps its scheduler from dispatching while a seed list goes in.
 *
 * A --seeds list goes into the job over several script calls (RC_FRONTIER_BATCH seeds each). Were
 * the scheduler dispatching meanwhile, a page of an early seed could link to a later one before
 * that one's call: the link goes into the job first, at depth 1, and the seed, found in the bloom,
 * is not added at depth 0, so with --maxdepth its own links are cut. So the crawl holds the
 * scheduler's leader lock (lock.lua, under an owner of its own) from before the scheduler starts
 * until the list is in: the scheduler waits on standby, as behind another scheduler. Then the
 * lock is freed and the scheduler woken (wake:sched), which takes it at once. If another
 * scheduler holds the lock (a fleet's, on --redis) nothing is held and the list goes in as
 * before. A crawl that dies holding it frees it by its time to live. */
#ifndef RC_CLI_SEEDHOLD_H
#define RC_CLI_SEEDHOLD_H

#include "redis.h"

/* Takes the lock, or renews it (after each batch): 1 when held, 0 when another holds it or
 * Redis did not answer. */
int rc_seedhold_take(rc_redis *r);

/* Frees the lock if it is still this crawl's, then wakes the scheduler. */
void rc_seedhold_release(rc_redis *r);

#endif
