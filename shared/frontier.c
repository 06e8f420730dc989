/* frontier.c - see frontier.h. */
#include "frontier.h"

#include <errno.h>
#include <hiredis/hiredis.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job.h"
#include "record.h"
#include "redis.h"
#include "util.h"

void rc_frontier_bloom_args(rc_argv *a, const rc_sbloom_params *bp, const char *url, size_t len)
{
    uint32_t h[RC_SBLOOM_MAX_K];
    char hex[RC_SBLOOM_HEX_MAX];
    rc_sbloom_hashes(bp, url, len, h);
    rc_sbloom_hex(bp, h, hex);
    rc_argv_addn(a, hex, 8 * rc_sbloom_nhash(bp));
}

int rc_frontier_job_bloom(rc_redis *r, const char *crawlid, rc_sbloom_params *ret)
{
    char key[128];
    redisReply *rep = rc_redis_cmd(r, "HGET %s bloom", rc_redis_key(r, key, sizeof key, "job:%s", crawlid));
    if (!rep)
        return -EIO;
    int res = -ENOENT;
    if (rep->type == REDIS_REPLY_STRING)
        res = rc_sbloom_params_parse(rep->str, ret) == 0 ? 0 : -EINVAL;
    freeReplyObject(rep);
    return res;
}

/* The job's filter: the one it has in Redis, else sized from what it expects. */
static int job_bloom(rc_redis *r, const rc_job *job, rc_sbloom_params *bp, char *err, size_t cap)
{
    int res = rc_frontier_job_bloom(r, job->crawlid, bp);
    if (res == -EIO) {
        snprintf(err, cap, "Redis at %s does not answer", rc_redis_url(r));
        return -EIO;
    }
    if (res == 0)
        return 0;
    if (res == -EINVAL) {
        snprintf(err, cap, "job %s has bloom parameters this version does not read (made by an older redcrawl?)",
                 job->crawlid);
        return -EINVAL;
    }
    /* A new job: its filter starts small (or at expected_urls) and grows; with h groups each
     * filter is h groups of k/h hash functions (thesis 4.2.3). */
    uint64_t n = job->expected_urls > 0 ? (uint64_t)job->expected_urls : 0;
    double fp = job->bloom_fp > 0 ? job->bloom_fp : RC_BLOOM_DEFAULT_FP;
    uint32_t h = job->bloom_groups > 1 ? (uint32_t)job->bloom_groups : 1;
    if (rc_sbloom_params_for(n, fp, h, bp) < 0) {
        snprintf(err, cap, "cannot size a bloom filter at %g with %u groups", fp, h);
        return -EINVAL;
    }
    return 0;
}

/* One submit.lua call for urls[0..n): the job's spec rides along, so the first call creates it;
 * hold is submit.lua's (NULL: none). */
static int submit_batch(rc_redis *r, const rc_job *job, const char *spec, const rc_sbloom_params *bp, const char *hold,
                        const char *const *urls, size_t n, int64_t *ret_added, char *err, size_t cap)
{
    char bloom[96];
    rc_sbloom_params_encode(bp, bloom, sizeof bloom);
    rc_argv a;
    rc_argv_init(&a);
    rc_argv_set(&a, RC_SUBMIT_CRAWLID, job->crawlid);
    rc_argv_set(&a, RC_SUBMIT_SPEC, spec);
    rc_argv_seti(&a, RC_SUBMIT_MAX_PAGES, job->max_pages);
    rc_argv_set(&a, RC_SUBMIT_BLOOM, bloom);
    if (hold)
        rc_argv_set(&a, RC_SUBMIT_HOLD, hold);
    rc_argv_setu(&a, RC_SUBMIT_K, RC_FRONTIER_BLOOM_K);
    rc_argv_setu(&a, RC_SUBMIT_N, n);
    for (size_t i = 0; i < n; i++) {
        rc_record rec = {.url = (char *)urls[i], .crawlid = job->crawlid, .depth = 0, .priority = job->priority};
        char *m = rc_record_encode(&rec);
        rc_argv_add(&a, m);
        free(m);
        rc_frontier_bloom_args(&a, bp, urls[i], strlen(urls[i]));
    }
    redisReply *rep = rc_redis_eval(r, RC_LUA_SUBMIT, rc_now_ms(), &a);
    rc_argv_release(&a);
    if (!rep || rep->type != REDIS_REPLY_ARRAY || rep->elements < 2) {
        snprintf(err, cap, "submit to Redis at %s failed: %s", rc_redis_url(r),
                 rep && rep->type == REDIS_REPLY_ERROR ? rep->str : "no reply");
        if (rep)
            freeReplyObject(rep);
        return -EIO;
    }
    int64_t added = rc_reply_int(rep->element[0], 0);
    if (added < 0) {
        snprintf(err, cap, "job %s is %s: it takes no new URLs", job->crawlid,
                 rep->element[1]->type == REDIS_REPLY_STRING ? rep->element[1]->str : "closed");
        freeReplyObject(rep);
        return -EPERM;
    }
    freeReplyObject(rep);
    *ret_added = added;
    return 0;
}

int rc_frontier_submit(rc_redis *r, const rc_job *job, int64_t *ret_added, char *err, size_t cap)
{
    return rc_frontier_submit_list(r, job, NULL, 0, 0, NULL, NULL, ret_added, err, cap);
}

int rc_frontier_submit_list(rc_redis *r, const rc_job *job, const char *const *urls, size_t n, int64_t hold_ms,
                            rc_frontier_progress_fn progress, void *ud, int64_t *ret_added, char *err, size_t cap)
{
    rc_sbloom_params bp;
    int res = job_bloom(r, job, &bp, err, cap);
    if (res < 0)
        return res;
    char *spec = rc_job_encode(job);
    char hold[24];
    snprintf(hold, sizeof hold, "%lld", (long long)hold_ms);
    const char *h = hold_ms > 0 && n > 0 ? hold : NULL;
    int64_t added = 0, got = 0;
    res = submit_batch(r, job, spec, &bp, h, (const char *const *)job->seeds, job->n_seeds, &got, err, cap);
    added += got;
    for (size_t i = 0; res == 0 && i < n; i += RC_FRONTIER_BATCH) {
        size_t m = n - i < RC_FRONTIER_BATCH ? n - i : RC_FRONTIER_BATCH;
        res = submit_batch(r, job, spec, &bp, h, urls + i, m, &got, err, cap);
        added += got;
        if (res == 0 && progress)
            progress(ud, i + m, n, added);
    }
    /* The hold ends even after a failed batch (what went in is crawled); if this call fails too,
     * hold_until runs out by itself. */
    char ignored[256];
    if (h && (res == 0 || res == -EIO))
        submit_batch(r, job, spec, &bp, "0", NULL, 0, &got, ignored, sizeof ignored);
    free(spec);
    if (res == 0)
        *ret_added = added;
    return res;
}
