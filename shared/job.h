/* job.h - a crawl job: what was asked (seeds, scope, depth, limits). Stored in Redis as the
 * canonical JSON "spec" field of job:{crawlid}; workers and the scheduler parse it from there. */
#ifndef RC_JOB_H
#define RC_JOB_H

#include <stddef.h>
#include <stdint.h>

#define RC_JOB_ID_MAX 40 /* = RC_REQFIELD_ID_MAX: the sinks check crawlids before they name files */

typedef struct rc_job {
    char *crawlid;
    char *appid;
    char *spiderid;
    char **seeds; /* normalised URLs */
    size_t n_seeds;
    char **scope; /* registrable domains links may stay in (from allowed_domains, else the seeds) */
    size_t n_scope;
    int maxdepth;       /* links deeper than this are not followed; -1 = unlimited */
    int priority;       /* 1..100 */
    int64_t max_pages;  /* 0 = unlimited */
    int64_t expires;    /* unix seconds, 0 = never */
    char *useragent;    /* NULL = the worker's */
    char *cookie;       /* NULL = none */
    char **allow_regex; /* links must match one of these (when any) */
    size_t n_allow_regex;
    char **deny_regex; /* links matching one are dropped */
    size_t n_deny_regex;
    char **deny_extensions; /* NULL (n = 0, has_deny_extensions = 0) = the default list */
    size_t n_deny_extensions;
    int has_deny_extensions;
    int64_t domain_max_pages; /* pages per host, 0 = unlimited */
    char *rules;              /* extraction rules (compact JSON), NULL = none; compiled when parsed */
    char *attrs;              /* the request's "attrs" object (compact JSON), copied into every page record
                                 and item; NULL = none */
    int text;                 /* store each page's main text in its record */
    char *text_method;        /* the main-text method: "article", "density" or "lineblock"; NULL = the
                                 default (article); checked when parsed */
    int dedup_content;        /* record pages whose main text was seen before as duplicates (default 1) */
    int warc;                 /* keep every response (request, response, metadata) in WARC files */
    int body;                 /* the decoded HTML in the page record, up to body_max bytes */
    int64_t body_max;         /* bytes of "body" kept at most (default 1 MiB); larger: only in WARC */
    int sitemaps;
    int64_t skip_recent_hours; /* > 0: a URL any job fetched within this many hours is not
                                  fetched (shared/recent.h) */
    int dedup_canonical; /* a page whose <link rel=canonical> names another URL is that URL's
                            duplicate: text not stored, the canonical URL queued instead */      /* read each seed host's sitemaps (robots.txt Sitemap: lines, /sitemap.xml) */
    int64_t meta_refresh_max; /* a <meta http-equiv=refresh> with at most this delay (seconds) is
                                 followed like a redirect (default 5; -1 = never) */
    char **data_pages;        /* regexes of data (article) pages: fetched once, never again */
    size_t n_data_pages;
    char **jump_links; /* regexes of jump links: their redirect chains may leave the scope */
    size_t n_jump_links;
    int64_t refresh_seconds; /* > 0: every other (navigation) page is fetched again this often */
    int64_t expected_urls;   /* bloom: URLs the first filter holds (0, the default: it starts small) */
    double bloom_fp;         /* bloom: bound on the false-positive rate however it grows (default 1e-9) */
    int64_t bloom_groups;    /* h groups of the multi-group bloom (default 1) */
} rc_job;

/* Parses and validates a job spec (JSON object) with the crawl request table (reqfield.h): the same
 * limits, defaults and reasons as a Kafka message. On failure returns -EINVAL and writes "FIELD
 * REASON" into err (e.g. "maxdepth must be an integer from -1 to 1000, not 5000 (-1: no limit)", the
 * words after "invalid crawl request: " in a Kafka answer); *ret is untouched. "url" (string) or
 * "urls" (array) give the seeds; fields the table does not know are ignored. */
int rc_job_parse(const char *json, size_t len, rc_job *ret, char *err, size_t errcap);
/* The canonical spec JSON (scope computed); malloc'd. */
char *rc_job_encode(const rc_job *job);
void rc_job_release(rc_job *job);
/* True when host (lower-case) is inside the job's scope. */
int rc_job_in_scope(const rc_job *job, const char *host);

#endif
