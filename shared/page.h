/* page.h - from a fetched response to what gets stored and followed: the page is decoded to
 * UTF-8 and parsed once; the same tree gives the title, metadata, main text, the items of the
 * job's extraction rules and the links to follow (filtered, through the seen-cache, each with
 * its bloom hash values). A job with no rules, no stored text and no content dedup needs no tree:
 * its pages go through the streaming tokenizer (htmltok.h), which gives the same title,
 * metadata, robots flags, <base> and links. Pure: no I/O, so it is tested without servers. Runs
 * on the worker's parse threads, several pages at once: everything in the context is only read
 * (the job, its filter: urlfilter.h), by atomics (the seen-cache), or is the calling thread's
 * own (its copy of the rules, rc_page_job_rules; the record and response of its page). */
#ifndef RC_PAGE_H
#define RC_PAGE_H

#include <stddef.h>
#include <stdint.h>

#include "argv.h"
#include "sbloom.h"
#include "job.h"

struct json_t;
struct rc_job;
struct rc_rules;
struct rc_urlfilter;
struct rc_seen;
struct rc_record;
struct rc_fetch_result;
struct rc_maintext_opts;

/* Parse threads a job's pages may be processed on at once (the worker's --parse-threads). */
#define RC_PAGE_THREADS_MAX 64

/* A job as the pipeline needs it: the spec parsed, its URL filter built and its rules compiled
 * once, kept together for every page of the job (worker and `redcrawl extract` alike).
 * Threads: built by one thread (the worker's loop), then read by the parse threads; the spec,
 * filter and bloom parameters are never written again. The compiled rules are the exception:
 * libxml2 (2.9 to 2.13) writes into a compiled XPath while it evaluates it (a union's branches
 * are swapped in place, function lookups cached), so each parse thread evaluates a copy of its
 * own: thread 0 RULES, thread i THREAD_RULES[i], compiled by thread i on its first page and
 * touched by no other thread (rc_page_job_rules). */
typedef struct rc_page_job {
    rc_job job;
    struct rc_urlfilter *filter;
    struct rc_rules *rules; /* NULL = no extraction; parse thread 0's copy */
    rc_sbloom_params bp;
    struct rc_rules *thread_rules[RC_PAGE_THREADS_MAX]; /* [i]: parse thread i's copy (i >= 1) */
} rc_page_job;

/* Parses the spec (JSON), builds the filter and compiles the rules; bloom is the job's bloom
 * parameters as stored in Redis (NULL: a small bloom, for offline use). -EINVAL with a message
 * naming what is wrong; nothing to release then. */
int rc_page_job_init(rc_page_job *pj, const char *spec, size_t len, const char *bloom, char *err, size_t cap);
/* After every thread that used pj is done with it. */
void rc_page_job_release(rc_page_job *pj);
/* The compiled rules parse thread THREAD (0 .. RC_PAGE_THREADS_MAX - 1) evaluates: called by that
 * thread only, it compiles the thread's copy on the first call. NULL when the job has no rules
 * (or, which cannot happen with rules that compiled once, when the copy fails: logged). */
const struct rc_rules *rc_page_job_rules(rc_page_job *pj, int thread);
typedef struct rc_page_ctx { /* all borrowed */
    const struct rc_job *job;
    const struct rc_rules *rules; /* NULL = no extraction */
    const struct rc_urlfilter *filter;
    const rc_sbloom_params *bp;
    const struct rc_seen *seen;  /* links already sent by this worker */
    const struct rc_record *rec; /* the URL that was fetched */
    const char *worker_id;
    const char *const *sitemaps; /* a seed's origin's robots.txt Sitemap: lines (may be NULL) */
    size_t n_sitemaps;
    size_t max_links;
    uint64_t now_ms;
    const struct rc_maintext_opts *text_opts; /* NULL = the crawler's method */
    int tree; /* RC_HTML_TREE_* (html.h) of a job without rules; with rules always gumbo, whose exact
                 HTML5 tree the XPath conversion needs */
} rc_page_ctx;

typedef struct rc_page_result {
    struct json_t *doc;       /* the page record (owned) */
    struct json_t *first_doc; /* the last hop of a redirect chain: the chain's first URL's record
                                 again, with final_url and the chain (owned), else NULL */
    struct json_t *items;     /* array of items to store (owned; empty when none) */
    rc_argv links;            /* per link to push: record JSON, then its bloom hash values */
    size_t n_links;
    uint64_t *hashes; /* seen-cache hashes of the links pushed */
    size_t n_hashes;
    char digest[33];      /* digest of the normalised main text; "" when the page has none */
    size_t items_dropped; /* items missing a required field (logged with the rule) */
    int is_data;          /* the URL is a data page of the job (fetched once, never refreshed) */
    char dropped_rule[320];
} rc_page_result;

/* Processes one final response (any status). Never fails: what cannot be parsed yields a
 * record without title/items/links. */
void rc_page_process(const rc_page_ctx *ctx, const struct rc_fetch_result *res, rc_page_result *out);
void rc_page_result_release(rc_page_result *r);
/* The _id of item number pos of a page (pos < 0: the page's single item, which shares the page
 * record's id). */
void rc_page_item_id(const char *crawlid, const char *url, long pos, char out[33]);

#endif
