/* frontier.h - client side of the frontier shared by the command line, the scheduler and the
 * worker: the bloom arguments of a URL and job submission. */
#ifndef RC_FRONTIER_H
#define RC_FRONTIER_H

#include <stddef.h>
#include <stdint.h>

#include "argv.h"
#include "sbloom.h"

struct rc_redis;
struct rc_job;

/* Default bound on a job's bloom false-positive rate (all its filters together). */
#define RC_BLOOM_DEFAULT_FP 1e-9

/* Arguments rc_frontier_bloom_args appends per URL: the k that complete.lua and submit.lua are
 * given. Their older form, k > 1 decimal values (one per hash value), is still read. */
#define RC_FRONTIER_BLOOM_K 1

/* Appends url's hash values as one argument, rc_sbloom_hex's (what bloom_add in common.lua
 * takes when k is RC_FRONTIER_BLOOM_K). */
void rc_frontier_bloom_args(rc_argv *a, const rc_sbloom_params *bp, const char *url, size_t len);

/* Creates the job (or extends one with that crawlid) and puts its seeds in the frontier.
 * *ret_added = seeds that were new. -EPERM when the job was stopped, -EIO on Redis errors;
 * err says why. */
int rc_frontier_submit(struct rc_redis *r, const struct rc_job *job, int64_t *ret_added, char *err, size_t cap);

/* Seeds per submit.lua call of rc_frontier_submit_list: one round trip per batch, each call
 * short enough (a few ms) not to stall Redis for the fleet. */
#define RC_FRONTIER_BATCH 1000

/* After each batch: URLs of the list sent so far, of n, and how many were new. */
typedef void (*rc_frontier_progress_fn)(void *ud, size_t done, size_t n, int64_t added);

/* rc_frontier_submit, then urls[0..n) (normalised; borrowed) in batches of RC_FRONTIER_BATCH,
 * so a list of any length goes in without one round trip per URL. The job's own seeds go
 * first and create it. progress (may be NULL) is called after each batch of the list. With
 * hold_ms > 0 and a list, nothing of the job is dispatched until the whole list is in (each
 * call renews a hold of hold_ms, the last ends it: submit.lua): no seed is first met as the
 * link of an earlier seed's page, at depth 1. */
int rc_frontier_submit_list(struct rc_redis *r, const struct rc_job *job, const char *const *urls, size_t n,
                            int64_t hold_ms, rc_frontier_progress_fn progress, void *ud, int64_t *ret_added, char *err,
                            size_t cap);

/* The bloom params of a job as stored in Redis; -ENOENT when the job does not exist. */
int rc_frontier_job_bloom(struct rc_redis *r, const char *crawlid, rc_sbloom_params *ret);

#endif
