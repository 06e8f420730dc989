/* budget.h - one max_pages for a job over a sharded keyspace's shards (ARCHITECTURE.md
 * "Shards"). The job's total is a pool in shard 0 (budget.lua); each shard's part of the job may
 * start at most its allowance of pages (its job hash's max_pages, which take enforces, holding
 * the URLs over it while the allowance may grow). The shard's leading scheduler settles its
 * jobs' allowances with the pool: more when started nears it, what a job done here did not use
 * given back, and, once the pool is empty with no shard holding allowance it did not use, the
 * budget gone for good: take drops what it held, and the job can end. */
#ifndef RC_BUDGET_H
#define RC_BUDGET_H

#include <stdint.h>

#include "forward.h"

/* Pages a shard asks for at once (the pool hands out less near the end); it asks again when
 * its started comes within half of this of its allowance. */
#define RC_BUDGET_CHUNK 256
/* How often the leading scheduler settles with the pool, at most. */
#define RC_BUDGET_EVERY_MS 100

typedef struct rc_budget rc_budget;

/* For shard SHARD of SHARDS, through FWD's connections (borrowed for the lifetime). */
rc_budget *rc_budget_new(rc_forward *fwd, int shard, int shards);

/* Settles this shard's jobs' allowances with the pool, when RC_BUDGET_EVERY_MS passed since the
 * last time. The jobs settled, or -1 when a shard could not be asked (retried next time). */
int rc_budget_run(rc_budget *b, uint64_t now_ms);

void rc_budget_free(rc_budget *b);

#endif
