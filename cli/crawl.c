/* crawl.c - `redcrawl crawl`: the embedded single-machine run. Starts a private Redis (unless
 * --redis), submits the job, runs the scheduler on a thread of this process (insched.h) and N
 * workers as child processes, restarts a worker that dies, shows progress, stops when the job
 * has nothing pending, prints a summary. */
#include <errno.h>
#include <fcntl.h>
#include <hiredis/hiredis.h>
#include <jansson.h>
#include <malloc.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "config.h"
#include "frontier.h"
#include "insched.h"
#include "job.h"
#include "log.h"
#include "netguard.h"
#include "page.h"
#include "proc.h"
#include "recpeek.h"
#include "progress.h"
#include "reaper.h"
#include "recheck.h"
#include "redis.h"
#include "reqfield.h"
#include "resume.h"
#include "rules.h"
#include "seedlist.h"
#include "seeds.h"
#include "util.h"

typedef struct crawl_conf {
    int64_t workers;
    int64_t parse_threads;
    int64_t max_pages;
    int64_t maxdepth;
    int64_t concurrency;
    int64_t priority;
    double delay;
    double robots_delay; /* < 0: unset, the workers' default (the host's delay) */
    double delay_factor;
    double timeout;
    char *out;
    char *redis;
    char *prefix;
    char *crawlid;
    char *useragent;
    char *log_level;
    char *rules;
    char *seeds;
    char *mongo;
    char *fsync;
    double retention;
    int text;
    char *text_method;
    int dedup_content;
    int warc;
    int64_t warc_size;
    int body;
    int64_t body_max;
    int64_t meta_refresh_max;
    int sitemaps;
    int dedup_canonical;
    int64_t skip_recent_hours;
    double bloom_fp;
    char *cacert;
    rc_strlist jump_links;
    int mark_recent;
    int64_t refresh;
    rc_strlist data_pages;
    rc_strlist connect_to;
    rc_strlist resolve;
    int64_t dns_cache;
    rc_strlist allow_net;
    rc_strlist allow_port;
    rc_strlist allowed_domains;
    int quiet;
    int64_t web_port;
    double redis_wait;
    char *resume;
    int resumable;
} crawl_conf;

/* Options that are job fields take any number here: their ranges and messages are the crawl request
 * table's (reqfield.c), checked by rc_job_parse as for Kafka, submit and the REST API. */
#define JOB_CHECKS -1e15, 1e15

static const rc_conf_row rows[] = {
    {"workers", RC_CONF_INT, offsetof(crawl_conf, workers), "1", 1, 256, NULL,
     "worker processes (one parses on every core; more share the cores)"},
    {"parse-threads", RC_CONF_INT, offsetof(crawl_conf, parse_threads), "-1", -1, RC_PAGE_THREADS_MAX, NULL,
     "threads parsing pages in each worker (-1 = the CPUs shared by the workers: CPUs / --workers, at least 1; 0 = "
     "on each worker's event loop)"},
    {"max-pages", RC_CONF_INT, offsetof(crawl_conf, max_pages), "0", JOB_CHECKS, NULL,
     "stop after this many pages (0 = no limit)"},
    {"maxdepth", RC_CONF_INT, offsetof(crawl_conf, maxdepth), "5", JOB_CHECKS, NULL,
     "follow links this deep (-1 = no limit)"},
    {"concurrency", RC_CONF_INT, offsetof(crawl_conf, concurrency), "64", 1, 10000, NULL,
     "transfers at once per worker"},
    {"priority", RC_CONF_INT, offsetof(crawl_conf, priority), "50", JOB_CHECKS, NULL,
     "job priority, 1-100 as for submit"},
    {"delay", RC_CONF_DOUBLE, offsetof(crawl_conf, delay), "1.0", 0, 3600, "REDCRAWL_DELAY",
     "seconds between hits on one domain"},
    {"delay-factor", RC_CONF_DOUBLE, offsetof(crawl_conf, delay_factor), "2", 0, 100, "REDCRAWL_DELAY_FACTOR",
     "wait at least this many times a host's last response time between its hits (0 = --delay alone)"},
    {"robots-delay", RC_CONF_DOUBLE, offsetof(crawl_conf, robots_delay), NULL, 0, 3600, "REDCRAWL_ROBOTS_DELAY",
     "seconds from a host's robots.txt fetch to its first page, when shorter than --delay (default: --delay)"},
    {"timeout", RC_CONF_DOUBLE, offsetof(crawl_conf, timeout), "30", 0.1, 3600, NULL,
     "whole-transfer timeout, seconds (one moving under 100 B/s for 15 s, a slow first byte included, fails sooner: "
     "the workers' --low-speed-time)"},
    {"out", RC_CONF_STR, offsetof(crawl_conf, out), NULL, 0, 0, NULL,
     "output directory (default ./redcrawl-out/CRAWLID; {crawlid} in it is replaced by the job's id)"},
    {"redis", RC_CONF_STR, offsetof(crawl_conf, redis), NULL, 0, 0, NULL, "use this Redis instead of a private one"},
    {"redis-wait", RC_CONF_DOUBLE, offsetof(crawl_conf, redis_wait), "30", 0, 3600, NULL,
     "seconds to wait for --redis to answer (starting, loading its data)"},
    {"prefix", RC_CONF_STR, offsetof(crawl_conf, prefix), RC_DEFAULT_PREFIX, 0, 0, "REDCRAWL_PREFIX",
     "Redis key prefix"},
    {"crawlid", RC_CONF_STR, offsetof(crawl_conf, crawlid), NULL, 0, 0, NULL, "job id (default crawl-TIMESTAMP)"},
    {"useragent", RC_CONF_STR, offsetof(crawl_conf, useragent), NULL, 0, 0, "REDCRAWL_USERAGENT", "User-Agent header"},
    {"log-level", RC_CONF_STR, offsetof(crawl_conf, log_level), "info", 0, 0, "REDCRAWL_LOG_LEVEL",
     "daemons' log level"},
    {"connect-to", RC_CONF_LIST, offsetof(crawl_conf, connect_to), NULL, 0, 0, NULL,
     "HOST:PORT:ADDR:PORT (curl's semantics; empty HOST or PORT matches any)"},
    {"resolve", RC_CONF_LIST, offsetof(crawl_conf, resolve), NULL, 0, 0, NULL,
     "HOST:PORT:ADDR[,ADDR...] (curl's --resolve): the workers use this address for HOST:PORT"},
    {"dns-cache", RC_CONF_INT, offsetof(crawl_conf, dns_cache), "100000", 0, 100000000, NULL,
     "hosts in each worker's own DNS cache (0 = libcurl's, scanned on every transfer)"},
    {"allow-net", RC_CONF_LIST, offsetof(crawl_conf, allow_net), NULL, 0, 0, NULL,
     "CIDR let through the SSRF guard (loopback, private, link-local... are refused otherwise; REDCRAWL_ALLOW_NET)"},
    {"allow-port", RC_CONF_LIST, offsetof(crawl_conf, allow_port), NULL, 0, 0, NULL,
     "the only ports fetched (default any)"},
    {"allowed-domain", RC_CONF_LIST, offsetof(crawl_conf, allowed_domains), NULL, 0, 0, NULL,
     "follow links only into this domain (default: the seeds' registrable domains)"},
    {"seeds", RC_CONF_STR, offsetof(crawl_conf, seeds), NULL, 0, 0, NULL,
     "also read seed URLs from this file, one a line (- = stdin; any number; bad lines are reported and skipped)"},
    {"rules", RC_CONF_STR, offsetof(crawl_conf, rules), NULL, 0, 0, NULL,
     "extraction rules (JSON file); items go to OUT/items.jsonl"},
    {"refresh", RC_CONF_INT, offsetof(crawl_conf, refresh), "0", JOB_CHECKS, NULL,
     "fetch navigation pages again every N seconds (runs until --max-pages or Ctrl-C)"},
    {"jump-link", RC_CONF_LIST, offsetof(crawl_conf, jump_links), NULL, 0, 0, NULL,
     "regex of jump links (a search engine's redirecting result links): their redirect chains may leave the scope, and "
     "the link's record gets the final URL"},
    {"data-pages", RC_CONF_LIST, offsetof(crawl_conf, data_pages), NULL, 0, 0, NULL,
     "regex of data (article) pages, fetched once even with --refresh"},
    {"mongo", RC_CONF_STR, offsetof(crawl_conf, mongo), NULL, 0, 0, "REDCRAWL_MONGO",
     "also upsert page records and items into this MongoDB"},
    {"fsync", RC_CONF_STR, offsetof(crawl_conf, fsync), "none", 0, 0, "REDCRAWL_FSYNC",
     "JSON Lines durability: none, batch (pages acknowledged once a shared fdatasync covers them) or record "
     "(fdatasync each record)"},
    {"retention", RC_CONF_DOUBLE, offsetof(crawl_conf, retention), "-1", -1, 1e9, NULL,
     "seconds a finished job's bloom, digests and per-host counts stay in Redis: sets conf:retention (0 = for "
     "ever; -1 = leave it: a day unless set)"},
    {"text", RC_CONF_BOOL, offsetof(crawl_conf, text), "0", 0, 1, NULL, "store each page's main text in its record"},
    {"text-method", RC_CONF_STR, offsetof(crawl_conf, text_method), NULL, 0, 0, NULL,
     "main-text method: article (the default), density or lineblock"},
    {"dedup-content", RC_CONF_BOOL, offsetof(crawl_conf, dedup_content), "1", 0, 1, NULL,
     "record pages whose main text was seen before as duplicate_of (--dedup-content=0: off; with no --text and no "
     "rules pages are then tokenized, not parsed into a tree, the link-only fast path)"},
    {"warc", RC_CONF_BOOL, offsetof(crawl_conf, warc), "0", 0, 1, NULL,
     "keep every response in WARC/1.1 files under OUT/warc/ (page records name file and offset)"},
    {"warc-size", RC_CONF_INT, offsetof(crawl_conf, warc_size), "1000000000", 1024, 1099511627776, NULL,
     "a WARC file is closed for the next one past this many bytes"},
    {"body", RC_CONF_BOOL, offsetof(crawl_conf, body), "0", 0, 1, NULL,
     "store each HTML page's decoded body (UTF-8) in its record, up to --body-max bytes"},
    {"body-max", RC_CONF_INT, offsetof(crawl_conf, body_max), "1048576", JOB_CHECKS, NULL,
     "bytes of body kept in a record at most (larger: only in WARC, body_omitted says so)"},
    {"meta-refresh-max", RC_CONF_INT, offsetof(crawl_conf, meta_refresh_max), "5", JOB_CHECKS, NULL,
     "follow a <meta http-equiv=refresh> like a redirect when its delay is at most this many seconds (-1: never)"},
    {"sitemaps", RC_CONF_BOOL, offsetof(crawl_conf, sitemaps), "0", 0, 1, NULL,
     "read each seed host's sitemaps (robots.txt Sitemap: lines and /sitemap.xml, indexes and gzip expanded); their "
     "URLs enter like links"},
    {"cacert", RC_CONF_STR, offsetof(crawl_conf, cacert), NULL, 0, 0, "REDCRAWL_CACERT",
     "CA bundle (PEM) that verifies HTTPS servers (default: the system's)"},
    {"dedup-canonical", RC_CONF_BOOL, offsetof(crawl_conf, dedup_canonical), "0", 0, 1, NULL,
     "a page whose <link rel=canonical> names another URL is recorded as its duplicate (no text) and the canonical URL "
     "fetched instead"},
    {"skip-recent-hours", RC_CONF_INT, offsetof(crawl_conf, skip_recent_hours), "0", JOB_CHECKS, NULL,
     "do not fetch a URL that any job fetched within this many hours (fleet-wide, through Redis)"},
    {"bloom-fp", RC_CONF_DOUBLE, offsetof(crawl_conf, bloom_fp), "1e-9", JOB_CHECKS, NULL,
     "bound on the URL dedup filter's false-positive rate: a URL wrongly taken for one already seen is not fetched "
     "(1e-12 to 0.5)"},
    {"mark-recent", RC_CONF_BOOL, offsetof(crawl_conf, mark_recent), "0", 0, 1, "REDCRAWL_MARK_RECENT",
     "this crawl's workers record every fetch for --skip-recent-hours (rc:recent: 16 MiB in Redis)"},
    {"quiet", RC_CONF_BOOL, offsetof(crawl_conf, quiet), "0", 0, 1, NULL, "no progress line"},
    {"web-port", RC_CONF_INT, offsetof(crawl_conf, web_port), "0", -1, 65535, NULL,
     "serve the dashboard and REST API (redcrawl-web) on this 127.0.0.1 port (0 = a free one, -1 = none)"},
    {"resume", RC_CONF_STR, offsetof(crawl_conf, resume), NULL, 0, 0, NULL,
     "go on with the interrupted crawl of this output directory: its seeds and settings are saved there (options "
     "given now override how it runs; the job's own are refused)"},
    {"resumable", RC_CONF_BOOL, offsetof(crawl_conf, resumable), "1", 0, 1, NULL,
     "keep the private Redis' data in OUT/redis (append-only) so that an interrupted or killed crawl goes on with "
     "--resume, and Ctrl-C pauses; --resumable=0: nothing kept, Ctrl-C stops (CPU-bound crawls 6-7 % faster)"},
};
#define NROWS (sizeof rows / sizeof rows[0])

/* The options that are job fields: the job is built from them, and a message of the job validator
 * names the option back. The seeds (URL arguments) are "urls", --rules is read from its file. */
static const struct job_option {
    const char *option, *field;
} job_options[] = {
    {"crawlid", "crawlid"},
    {"maxdepth", "maxdepth"},
    {"max-pages", "max_pages"},
    {"priority", "priority"},
    {"allowed-domain", "allowed_domains"},
    {"text", "text"},
    {"text-method", "text_method"},
    {"dedup-content", "dedup_content"},
    {"warc", "warc"},
    {"sitemaps", "sitemaps"},
    {"dedup-canonical", "dedup_canonical"},
    {"skip-recent-hours", "skip_recent_hours"},
    {"bloom-fp", "bloom_fp"},
    {"meta-refresh-max", "meta_refresh_max"},
    {"body", "body"},
    {"body-max", "body_max"},
    {"refresh", "refresh_seconds"},
    {"jump-link", "jump_links"},
    {"data-pages", "data_pages"},
    {"rules", "rules"},
};

static volatile sig_atomic_t interrupted; /* set by SIGINT/SIGTERM: the only thing a handler may do */

static void on_signal(int sig)
{
    interrupted++;
}

typedef struct crawl_run {
    crawl_conf *c;
    rc_redis *r;
    char *worker_bin;
    char logdir[600];
    rc_insched *sched; /* the scheduler's thread */
    pid_t web;         /* redcrawl-web, 0 = none (not wanted, not found, or it exited: not restarted) */
    pid_t *workers;
    uint64_t *seen_ms;   /* per worker: when its registration was last seen (0 = not since it started) */
    uint64_t watched_ms; /* the last watch_workers */
    int restarts;
    int unregistered_exits; /* workers in a row that exited without ever registering */
    char gave_up[400];      /* why the crawl gave up on its workers ("" = it did not) */
    rc_private_redis *pr;   /* the private Redis, or NULL (--redis) */
    char redis_gone[64];    /* how the private Redis ended under the crawl ("" = it did not) */
    char **wargv;
    rc_seedlist *seeds; /* --seeds: the list, submitted by batches; NULL = the URL arguments only */
    int64_t added;      /* seeds new to the job */
    const char *outdir;
    rc_resume saved;   /* OUT/crawl.json as this run found (--resume) or wrote it */
    int resuming;      /* --resume: the job is in Redis already */
    int pausable;      /* a private Redis keeping its data in OUT: Ctrl-C pauses, not stops */
    int64_t fetched0;  /* the job's pages when this run began (a resumed job has some) */
    const char *ended; /* how this run ended, for crawl.json (RC_RESUME_*) */
    int lock_fd;       /* OUT locked (a private Redis' data is there), or -1 */
    char *pages_path;  /* the job's pages.jsonl, whose mark goes to Redis (recheck.h); NULL: not resumable */
    char *recheck;     /* OUT/recheck-CRAWLID.ids: pages the workers look up before storing them (recheck.h) */
    int64_t mark;      /* the mark last noted */
    off_t pages_from;  /* OUT/pages.jsonl's size when a new job began: records of crawls before */
} crawl_run;

typedef struct job_stats {
    char state[16];
    int64_t pending, started, fetched, errors, failed, dropped, retries, denied, items, items_dropped, duplicates,
        unchanged, recent_skipped, seeds, queued;
    int64_t unreachable; /* URLs not fetched because their host's robots.txt could not be read */
    int64_t store_errors, store_failed;
} job_stats;

/* 0, or -EIO when Redis could not be asked (st then holds zeros and no state). */
static int read_stats(crawl_run *run, const char *crawlid, job_stats *st)
{
    char key[200];
    memset(st, 0, sizeof *st);
    redisReply *rep = rc_redis_cmd(run->r,
                                   "HMGET %s state pending started fetched errors failed dropped retries "
                                   "robots_denied items items_dropped duplicates store_errors store_failed unchanged "
                                   "recent_skipped robots_unreachable",
                                   rc_redis_key(run->r, key, sizeof key, "job:%s", crawlid));
    int r = rep && rep->type == REDIS_REPLY_ARRAY ? 0 : -EIO;
    int64_t *f[] = {&st->pending,      &st->started,       &st->fetched,        &st->errors,
                    &st->failed,       &st->dropped,       &st->retries,        &st->denied,
                    &st->items,        &st->items_dropped, &st->duplicates,     &st->store_errors,
                    &st->store_failed, &st->unchanged,     &st->recent_skipped, &st->unreachable};
    if (rep && rep->type == REDIS_REPLY_ARRAY && rep->elements == 1 + RC_ARRAY_LEN(f)) {
        if (rep->element[0]->type == REDIS_REPLY_STRING)
            snprintf(st->state, sizeof st->state, "%s", rep->element[0]->str);
        for (size_t i = 0; i < RC_ARRAY_LEN(f); i++)
            *f[i] = rc_reply_int(rep->element[i + 1], 0);
    }
    if (rep)
        freeReplyObject(rep);
    st->seeds = rc_seeds_count(run->r, crawlid);
    if (st->seeds < 0)
        st->seeds = 0;
    /* Queued in workers' domain queues: their `queued` counters, kept by the Lua scripts. */
    rep = rc_redis_cmd(run->r, "ZRANGE %s 0 -1", rc_redis_key(run->r, key, sizeof key, "workers"));
    if (rep && rep->type == REDIS_REPLY_ARRAY) {
        for (size_t i = 0; i < rep->elements; i++) {
            redisReply *q = rc_redis_cmd(run->r, "HGET %s queued",
                                         rc_redis_key(run->r, key, sizeof key, "worker:%s", rep->element[i]->str));
            st->queued += rc_reply_int(q, 0);
            if (q)
                freeReplyObject(q);
        }
    }
    if (rep)
        freeReplyObject(rep);
    return r;
}

/* GnuTLS comes into a worker with libcurl (through librtmp and libldap, for rtmp:// and ldap://
 * URLs; a worker fetches only http and https, over OpenSSL), and its library constructor set it
 * up at load all the same: ~0.6 MB of its pages touched in every worker for nothing. With
 * GNUTLS_NO_IMPLICIT_INIT=1 it stays unset until used: librtmp and libldap call
 * gnutls_global_init() themselves first. An environment that sets the variable wins. */
static const char *const worker_env[] = {"GNUTLS_NO_IMPLICIT_INIT=1", NULL};

static pid_t start_worker(crawl_run *run, int i)
{
    char logf[700];
    snprintf(logf, sizeof logf, "%s/worker-%d.log", run->logdir, i + 1);
    return rc_proc_spawn_env((const char *const *)run->wargv, worker_env, logf);
}

static void add_arg(char ***v, size_t *n, const char *s)
{
    *v = rc_xrealloc(*v, (*n + 2) * sizeof(char *));
    (*v)[(*n)++] = rc_xstrdup(s);
    (*v)[*n] = NULL;
}

static void free_args(char **v)
{
    for (size_t i = 0; v && v[i]; i++)
        free(v[i]);
    free(v);
}

/* The workers' --delay and --delay-factor, and --robots-delay only when given: unset, they
 * wait the delay. */
static void add_politeness(crawl_run *run, size_t *n)
{
    char num[64];
    add_arg(&run->wargv, n, "--delay");
    snprintf(num, sizeof num, "%.6f", run->c->delay);
    add_arg(&run->wargv, n, num);
    add_arg(&run->wargv, n, "--delay-factor");
    snprintf(num, sizeof num, "%.6f", run->c->delay_factor);
    add_arg(&run->wargv, n, num);
    if (run->c->robots_delay >= 0) {
        add_arg(&run->wargv, n, "--robots-delay");
        snprintf(num, sizeof num, "%.6f", run->c->robots_delay);
        add_arg(&run->wargv, n, num);
    }
}

static void build_argv(crawl_run *run, const char *redis_url, const char *outdir)
{
    crawl_conf *c = run->c;
    char num[64];
    size_t n = 0;
    add_arg(&run->wargv, &n, run->worker_bin);
    /* Secrets reach the children through the environment, never argv (which ps shows). */
    setenv("REDCRAWL_REDIS", redis_url, 1);
    /* Several children on one machine cannot share one metrics port. */
    unsetenv("REDCRAWL_METRICS_PORT");
    if (c->mongo)
        setenv("REDCRAWL_MONGO", c->mongo, 1);
    const char *common[] = {"--prefix", c->prefix, "--log-level", c->log_level}; /* scheduler too */
    for (size_t i = 0; i < RC_ARRAY_LEN(common); i++)
        add_arg(&run->wargv, &n, common[i]);
    add_arg(&run->wargv, &n, "--out");
    add_arg(&run->wargv, &n, outdir);
    add_arg(&run->wargv, &n, "--fsync");
    add_arg(&run->wargv, &n, c->fsync);
    if (run->recheck && access(run->recheck, F_OK) == 0) {
        add_arg(&run->wargv, &n, "--recheck");
        add_arg(&run->wargv, &n, run->recheck);
    }
    if (c->mark_recent)
        add_arg(&run->wargv, &n, "--mark-recent");
    if (c->cacert) {
        add_arg(&run->wargv, &n, "--cacert");
        add_arg(&run->wargv, &n, c->cacert);
    }
    add_arg(&run->wargv, &n, "--warc-size");
    snprintf(num, sizeof num, "%lld", (long long)c->warc_size);
    add_arg(&run->wargv, &n, num);
    add_politeness(run, &n);
    add_arg(&run->wargv, &n, "--timeout");
    snprintf(num, sizeof num, "%.3f", c->timeout);
    add_arg(&run->wargv, &n, num);
    add_arg(&run->wargv, &n, "--concurrency");
    snprintf(num, sizeof num, "%lld", (long long)c->concurrency);
    add_arg(&run->wargv, &n, num);
    /* The workers share this machine: together they parse on every core, not each on all. */
    add_arg(&run->wargv, &n, "--parse-threads");
    snprintf(num, sizeof num, "%lld",
             c->parse_threads >= 0 ? (long long)c->parse_threads : (long long)RC_MAX(1, rc_cpus() / c->workers));
    add_arg(&run->wargv, &n, num);
    /* Crawl-local workers heartbeat often so a dead one is noticed quickly. */
    add_arg(&run->wargv, &n, "--heartbeat");
    add_arg(&run->wargv, &n, "0.5");
    if (c->useragent) {
        add_arg(&run->wargv, &n, "--useragent");
        add_arg(&run->wargv, &n, c->useragent);
    }
    for (size_t i = 0; i < c->connect_to.n; i++) {
        add_arg(&run->wargv, &n, "--connect-to");
        add_arg(&run->wargv, &n, c->connect_to.v[i]);
    }
    char dns[32];
    snprintf(dns, sizeof dns, "%lld", (long long)c->dns_cache);
    add_arg(&run->wargv, &n, "--dns-cache");
    add_arg(&run->wargv, &n, dns);
    for (size_t i = 0; i < c->resolve.n; i++) {
        add_arg(&run->wargv, &n, "--resolve");
        add_arg(&run->wargv, &n, c->resolve.v[i]);
    }
    for (size_t i = 0; i < c->allow_net.n; i++) {
        add_arg(&run->wargv, &n, "--allow-net");
        add_arg(&run->wargv, &n, c->allow_net.v[i]);
    }
    for (size_t i = 0; i < c->allow_port.n; i++) {
        add_arg(&run->wargv, &n, "--allow-port");
        add_arg(&run->wargv, &n, c->allow_port.v[i]);
    }
}

/* What clears the progress line before a message on a terminal; nothing in a file. */
static const char *clear_line(void)
{
    return isatty(STDERR_FILENO) ? "\r\033[K" : "";
}

/* The crawl gives up on its workers when this many in a row exit without having registered
 * (they cannot start: a bad value in the environment, say), or after this many restarts. */
#define UNREGISTERED_EXITS_MAX 3
#define RESTARTS_MAX 100

/* The last line of the file at path (at most cap - 1 bytes of it), or "" when there is none. */
static void last_line(const char *path, char *buf, size_t cap)
{
    char tail[2048];
    buf[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    if (fseek(f, -(long)(sizeof tail - 1), SEEK_END) < 0)
        rewind(f);
    size_t n = fread(tail, 1, sizeof tail - 1, f);
    fclose(f);
    while (n > 0 && (tail[n - 1] == '\n' || tail[n - 1] == '\r'))
        n--;
    tail[n] = '\0';
    const char *nl = strrchr(tail, '\n'), *from = nl ? nl + 1 : tail;
    size_t len = strlen(from) < cap ? strlen(from) : cap - 1;
    memcpy(buf, from, len);
    buf[len] = '\0';
}

/* A URL is tried this many times (the scheduler's --max-attempts, also when this process reaps). */
#define CRAWL_MAX_ATTEMPTS 3

/* The work worker process pid held goes back at once (reaper.h), said in msg. The number of
 * registrations reaped: 0 when it never registered, -1 when Redis could not tell. */
static int reap_worker(crawl_run *run, pid_t pid, char *msg, size_t cap)
{
    char err[400];
    int64_t urls = 0;
    int n = rc_reap_process(run->r, pid, CRAWL_MAX_ATTEMPTS, &urls, err, sizeof err);
    if (n > 0)
        snprintf(msg, cap, "; its %lld URLs handed back", (long long)urls);
    else if (n < 0)
        snprintf(msg, cap, "; its URLs come back after the worker timeout (%s)", err);
    else
        msg[0] = '\0';
    return n;
}

/* Whether to give up on the workers after worker idx exited (said, and kept in run->gave_up):
 * too many restarts, or too many workers in a row that exited by themselves without ever
 * registering (registered 0; -1 = not such an exit). */
static int give_up(crawl_run *run, int idx, int registered)
{
    char logf[700], line[300];
    run->unregistered_exits = registered == 0 ? run->unregistered_exits + 1 : 0;
    if (run->restarts < RESTARTS_MAX && run->unregistered_exits < UNREGISTERED_EXITS_MAX)
        return 0;
    snprintf(logf, sizeof logf, "%s/worker-%d.log", run->logdir, idx + 1);
    last_line(logf, line, sizeof line);
    snprintf(run->gave_up, sizeof run->gave_up, "%s%s%s%s",
             run->restarts >= RESTARTS_MAX ? "its workers were restarted too often"
                                           : "its workers exit before they start",
             line[0] ? " (the last one said: " : "", line, line[0] ? ")" : "");
    fprintf(stderr, "%sredcrawl: giving up: %s; see %s\n", clear_line(), run->gave_up, logf);
    return 1;
}

/* Children that exited: a worker's work is handed back at once and it is restarted. */
static void check_children(crawl_run *run)
{
    int status;
    pid_t pid;
    while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
        int idx = -1;
        for (int i = 0; i < run->c->workers; i++)
            if (run->workers[i] == pid)
                idx = i;
        if (pid == run->web)
            run->web = 0;                     /* the dashboard is a convenience: the crawl goes on without it */
        if (run->pr && pid == run->pr->pid) { /* the crawl cannot go on without it */
            run->pr->pid = 0;                 /* reaped: not to be stopped again */
            if (WIFSIGNALED(status))
                snprintf(run->redis_gone, sizeof run->redis_gone, "was killed by signal %d", WTERMSIG(status));
            else
                snprintf(run->redis_gone, sizeof run->redis_gone, "exited with status %d", WEXITSTATUS(status));
        }
        if (idx < 0)
            continue;
        char how[64];
        if (WIFSIGNALED(status))
            snprintf(how, sizeof how, "killed by signal %d", WTERMSIG(status));
        else
            snprintf(how, sizeof how, "exited with status %d", WEXITSTATUS(status));
        run->workers[idx] = 0;
        if (interrupted || run->gave_up[0])
            continue;
        char reaped[500];
        int registered = reap_worker(run, pid, reaped, sizeof reaped);
        /* one that exits by itself, never registered, cannot start; not one killed (hung) */
        if (give_up(run, idx, WIFEXITED(status) ? registered : -1))
            continue;
        run->restarts++;
        fprintf(stderr, "%sredcrawl: worker %s%s; restarting it (logs in %s)\n", clear_line(), how, reaped,
                run->logdir);
        run->workers[idx] = start_worker(run, idx);
        run->seen_ms[idx] = 0;
    }
}

/* A worker whose registration stayed gone this long is taken for hung: the scheduler reaped it
 * (no heartbeat for its worker timeout) and it did not register again (a worker that wakes from
 * a stall does so at its next heartbeat). */
#define HUNG_MS 5000

/* Once a second: a worker that registered, then lost its registration for HUNG_MS, is killed
 * (check_children starts it again); a crawl with one worker would otherwise wait for good. */
static void watch_workers(crawl_run *run)
{
    uint64_t now = rc_mono_ms();
    if (interrupted || now - run->watched_ms < 1000)
        return;
    run->watched_ms = now;
    for (int i = 0; i < run->c->workers; i++) {
        char err[300];
        pid_t pid = run->workers[i];
        int n = pid > 0 ? rc_reaper_registered(run->r, pid, err, sizeof err) : -1;
        if (n > 0)
            run->seen_ms[i] = now;
        if (n != 0 || !run->seen_ms[i] || now - run->seen_ms[i] < HUNG_MS)
            continue;
        fprintf(stderr,
                "%sredcrawl: worker %d (pid %d) stopped beating: the scheduler handed its work to others; "
                "killing it to start it again\n",
                clear_line(), i + 1, (int)pid);
        kill(pid, SIGKILL);
        run->seen_ms[i] = 0;
    }
}

/* The dashboard and REST API (redcrawl-web) on a loopback port, its URL printed once it
 * listens (it prints "redcrawl-web: http://ADDR:PORT/"). Optional: a missing program or a busy
 * port costs only the dashboard. Redis reaches it through REDCRAWL_REDIS (build_argv). */
static pid_t start_dashboard(crawl_run *run)
{
    crawl_conf *c = run->c;
    char *bin = c->web_port >= 0 ? rc_proc_find("redcrawl-web") : NULL;
    if (!bin) {
        if (c->web_port >= 0)
            fprintf(stderr, "redcrawl: no dashboard: redcrawl-web not found next to this program or on PATH\n");
        return 0;
    }
    char port[32], logf[700], line[256];
    snprintf(port, sizeof port, "%lld", (long long)c->web_port);
    snprintf(logf, sizeof logf, "%s/web.log", run->logdir);
    unlink(logf); /* a previous run's URL is not this one's */
    const char *argv[] = {bin,        "--addr",  "127.0.0.1",   "--port",     port,
                          "--prefix", c->prefix, "--log-level", c->log_level, NULL};
    pid_t pid = rc_proc_spawn(argv, logf);
    free(bin);
    for (int i = 0; pid > 0 && i < 100; i++) { /* 5 s at most */
        FILE *f = fopen(logf, "r");
        while (f && fgets(line, sizeof line, f)) {
            if (strncmp(line, "redcrawl-web: http://", 21) == 0) {
                line[strcspn(line, "\n")] = '\0';
                fprintf(stderr, "redcrawl: dashboard and REST API at %s\n", line + 14);
                fclose(f);
                return pid;
            }
        }
        if (f)
            fclose(f);
        if (waitpid(pid, NULL, WNOHANG) == pid) {
            fprintf(stderr, "redcrawl: no dashboard: redcrawl-web exited (see %s)\n", logf);
            return 0;
        }
        struct timespec ts = {0, 50 * 1000000};
        nanosleep(&ts, NULL);
    }
    fprintf(stderr, "redcrawl: no dashboard yet (see %s)\n", logf);
    return pid > 0 ? pid : 0;
}

/* A Redis given with --redis may be starting or loading its data: tried every 200 ms for up to
 * WAIT_S seconds, the wait shown on a terminal. A URL that does not parse, or a Redis that
 * answers with another refusal (a wrong password, ...), fails at once. */
static int worth_waiting(const char *err)
{
    return strncmp(err, "cannot connect to Redis", 23) == 0 || strstr(err, "LOADING") != NULL;
}

static rc_redis *wait_for_redis(const char *url, const char *prefix, double wait_s, char *err, size_t cap)
{
    rc_redis_addr addr;
    if (rc_redis_parse_url(url, &addr, err, cap) < 0)
        return NULL;
    memset(&addr, 0, sizeof addr); /* it may hold the password */
    rc_progress p;
    rc_progress_init(&p, "redcrawl crawl", wait_s);
    rc_redis *r;
    while (!(r = rc_redis_new(url, prefix, err, cap)) && worth_waiting(err) && !interrupted &&
           rc_progress_elapsed(&p) < wait_s) {
        rc_progress_show(&p, "waiting for Redis (%.80s)", err);
        struct timespec ts = {0, 200 * 1000000};
        nanosleep(&ts, NULL);
    }
    rc_progress_end(&p);
    if (!r && worth_waiting(err)) {
        char last[320];
        snprintf(last, sizeof last, "%.300s", err);
        snprintf(err, cap, "no Redis after %.0f s (--redis-wait): %.300s", rc_progress_elapsed(&p), last);
    }
    return r;
}

/* Stops the workers together (SIGTERM: each finishes its pages in flight), showing the wait on
 * a terminal; one still running after TIMEOUT_MS is killed, and said so. */
static void stop_workers(crawl_run *run, int n, int timeout_ms)
{
    rc_progress p;
    rc_progress_init(&p, "redcrawl", timeout_ms / 1000.0);
    int left = 0;
    sig_atomic_t at = interrupted; /* one more Ctrl-C: kill them now */
    for (int i = 0; i < n; i++)
        if (run->workers[i] > 0 && kill(run->workers[i], SIGTERM) == 0)
            left++;
    while (left > 0 && rc_progress_elapsed(&p) * 1000 < timeout_ms && interrupted == at) {
        rc_progress_show(&p, "waiting for %d worker%s to finish their pages in flight (Ctrl-C to kill)", left,
                         left == 1 ? "" : "s");
        struct timespec ts = {0, 5 * 1000000};
        nanosleep(&ts, NULL);
        left = 0;
        for (int i = 0; i < n; i++) {
            if (run->workers[i] > 0 && waitpid(run->workers[i], NULL, WNOHANG) == run->workers[i])
                run->workers[i] = 0;
            left += run->workers[i] > 0;
        }
    }
    rc_progress_end(&p);
    for (int i = 0; i < n; i++) {
        if (run->workers[i] <= 0)
            continue;
        fprintf(stderr, "redcrawl: worker pid %d %s after %.0f s: killed (its pages in flight were not stored)\n",
                (int)run->workers[i], interrupted == at ? "did not stop" : "was still stopping",
                rc_progress_elapsed(&p));
        rc_proc_stop(run->workers[i], SIGKILL, 1000);
        run->workers[i] = 0;
    }
}

static void stop_job(crawl_run *run, const char *crawlid)
{
    rc_argv a;
    rc_argv_init(&a);
    rc_argv_set(&a, RC_STOP_CRAWLID, crawlid);
    rc_argv_set(&a, RC_STOP_STATE, "stopped");
    redisReply *rep = rc_redis_eval(run->r, RC_LUA_STOP, rc_now_ms(), &a);
    rc_argv_release(&a);
    if (rep)
        freeReplyObject(rep);
}

/* The statuses of the job's records in pages from byte from on: an OUT's file may hold the
 * records of crawls before (a finished crawl's OUT takes a new one). One a fetch, as the pages
 * count: a seed's record stored again with final_url (page.c end_of_chain) is not one. */
static void summary_statuses(const char *pages, const char *crawlid, off_t from, rc_buf *out)
{
    FILE *f = fopen(pages, "r");
    if (!f)
        return;
    if (from > 0 && fseeko(f, from, SEEK_SET) < 0)
        rewind(f);
    int64_t counts[600] = {0}, other = 0;
    char *line = NULL, id[RC_REQFIELD_ID_MAX + 1];
    size_t cap = 0;
    ssize_t n;
    /* Only each record's status: a scan, not a parse (a tree per record was ~80 ms at the end of
     * a 12,000-page crawl). A record without one (null) counts as 0, as before. */
    while ((n = getline(&line, &cap, f)) > 0) {
        long long s = 0;
        int r = rc_json_peek_str(line, (size_t)n, "crawlid", id, sizeof id);
        if (r == 0 && strcmp(id, crawlid) != 0)
            continue; /* another job's */
        if (rc_json_peek_has(line, (size_t)n, "final_url") == 1)
            continue; /* a seed's record again, at its redirect chain's end: counted when first stored */
        r = rc_json_peek_int(line, (size_t)n, "status_code", &s);
        if (r == -EINVAL)
            s = -1;
        else if (r < 0)
            s = 0;
        if (s >= 0 && s < 600)
            counts[s]++;
        else
            other++;
    }
    free(line);
    fclose(f);
    for (int s = 0; s < 600; s++)
        if (counts[s])
            rc_buf_printf(out, "%s%d: %lld", out->len ? ", " : "", s, (long long)counts[s]);
    if (other)
        rc_buf_printf(out, "%sunreadable: %lld", out->len ? ", " : "", (long long)other);
}

/* ---- the job -------------------------------------------------------------------------------- */

/* An option's value as JSON; NULL for an unset string or an empty list. */
static json_t *option_json(const crawl_conf *c, const char *name)
{
    const rc_conf_row *row = NULL;
    for (size_t i = 0; i < NROWS && !row; i++)
        if (strcmp(rows[i].name, name) == 0)
            row = &rows[i];
    if (!row)
        return NULL;
    if (row->type != RC_CONF_LIST)
        return rc_resume_row_json(row, c);
    /* A value given twice on a command line counts once (a request's lists must be unique). */
    const rc_strlist *l = (const rc_strlist *)((const char *)c + row->offset);
    json_t *a = l->n ? json_array() : NULL;
    for (size_t i = 0; i < l->n; i++) {
        size_t k = 0;
        while (k < i && strcmp(l->v[k], l->v[i]) != 0)
            k++;
        if (k == i)
            json_array_append_new(a, json_string(l->v[i]));
    }
    return a;
}

/* The job request: the job options, the URL arguments as "urls", the rules file's document, and a
 * crawlid made from the time (crawl-YYYYMMDD-HHMMSS, UTC) when --crawlid is not given. NULL after
 * printing why when the rules file cannot be read. */
#define SCOPE_DOMAINS_MAX 1000 /* allowed_domains' limit in the request table (reqfield.c) */
#define SEEDS_SIZE_BLOOM 1000  /* seeds that size the bloom (expected_urls' least, reqfield.c) */

static json_t *job_request(const crawl_conf *c, char **urls, int n, rc_seedlist *seeds)
{
    json_t *req = json_object();
    json_object_set_new(req, "appid", json_string("redcrawl-cli"));
    for (size_t i = 0; i < RC_ARRAY_LEN(job_options); i++) {
        json_t *v = strcmp(job_options[i].field, "rules") != 0 ? option_json(c, job_options[i].option) : NULL;
        if (v)
            json_object_set_new(req, job_options[i].field, v);
    }
    if (!c->crawlid) {
        char cid[64];
        time_t now = time(NULL);
        struct tm tm;
        gmtime_r(&now, &tm);
        snprintf(cid, sizeof cid, "crawl-%04d%02d%02d-%02d%02d%02d", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                 tm.tm_hour, tm.tm_min, tm.tm_sec);
        json_object_set_new(req, "crawlid", json_string(cid));
    }
    json_t *a = json_array();
    for (int i = 0; i < n; i++)
        json_array_append_new(a, json_string(urls[i]));
    if (n == 0 && seeds) /* the job's spec names one seed; the list goes in by batches */
        json_array_append_new(a, json_string(rc_seedlist_urls(seeds)[0]));
    json_object_set_new(req, "urls", a);
    if (seeds && rc_seedlist_count(seeds) >= SEEDS_SIZE_BLOOM)
        /* The job holds at least its seeds: its bloom's first filter holds them all, so a seed
         * is not read in every filter that a growing bloom fills with the others (100,000
         * seeds took 7 filters, their submission ~12 GETBITs each). A job that exists already
         * keeps its bloom. */
        json_object_set_new(req, "expected_urls", json_integer((json_int_t)rc_seedlist_count(seeds)));
    if (seeds && !c->allowed_domains.n) {
        /* The default scope, the seeds' registrable domains, from the whole list. */
        json_t *ad = json_array();
        for (size_t i = 0; i < rc_seedlist_ndomains(seeds); i++)
            json_array_append_new(ad, json_string(rc_seedlist_domain(seeds, i)));
        json_object_set_new(req, "allowed_domains", ad);
    }
    if (c->rules) {
        json_error_t jerr;
        json_t *rules = json_load_file(c->rules, JSON_REJECT_DUPLICATES, &jerr);
        if (!rules) {
            fprintf(stderr, "redcrawl crawl: --rules %s: %s (line %d)\n", c->rules, jerr.text, jerr.line);
            json_decref(req);
            return NULL;
        }
        json_object_set_new(req, "rules", rules);
    }
    return req;
}

/* --seeds: bad lines are reported with their number (the first few) and skipped. */
typedef struct seed_read {
    const char *name;
    size_t bad;
} seed_read;

#define SEEDS_BAD_SHOWN 20

static void on_bad_seed(void *ud, size_t line, const char *text, const char *why)
{
    seed_read *sr = ud;
    if (++sr->bad <= SEEDS_BAD_SHOWN)
        fprintf(stderr, "redcrawl crawl: %s line %zu skipped: %s%s%.200s\n", sr->name, line, why, *text ? ": " : "",
                text);
}

/* Reads --seeds into s (CLI URLs are added too, for the scope). 0, or 2 (usage error). */
static int read_seeds(const crawl_conf *c, rc_seedlist *s, char **cli, int ncli)
{
    char why[160];
    for (int i = 0; i < ncli; i++)
        rc_seedlist_add(s, cli[i], why, sizeof why); /* rc_job_parse reports a bad one */
    int stdin_ = strcmp(c->seeds, "-") == 0;
    FILE *f = stdin_ ? stdin : fopen(c->seeds, "r");
    if (!f) {
        fprintf(stderr, "redcrawl crawl: --seeds %s: %s\n", c->seeds, strerror(errno));
        return 2;
    }
    seed_read sr = {stdin_ ? "stdin" : c->seeds, 0};
    size_t before = rc_seedlist_count(s);
    int r = rc_seedlist_read(s, f, on_bad_seed, &sr);
    if (!stdin_)
        fclose(f);
    if (r < 0) {
        fprintf(stderr, "redcrawl crawl: --seeds %s: %s\n", sr.name, strerror(-r));
        return 2;
    }
    if (sr.bad > SEEDS_BAD_SHOWN)
        fprintf(stderr, "redcrawl crawl: %s: %zu more bad lines skipped\n", sr.name, sr.bad - SEEDS_BAD_SHOWN);
    if (rc_seedlist_count(s) == before) {
        fprintf(stderr, "redcrawl crawl: --seeds %s holds no valid URL (%zu bad lines)\n", sr.name, sr.bad);
        return 2;
    }
    if (sr.bad)
        fprintf(stderr, "redcrawl crawl: %s: %zu URLs read, %zu bad lines skipped\n", sr.name,
                rc_seedlist_count(s) - before, sr.bad);
    return 0;
}

/* Whether to show a seed list going in. */
static void on_seed_progress(void *ud, size_t done, size_t n, int64_t added)
{
    if (*(int *)ud)
        fprintf(stderr, "\rredcrawl: seeds %zu/%zu sent, %lld new%s", done, n, (long long)added, done == n ? "\n" : "");
}

/* A job validator's message ("maxdepth must be ...") with the option it is about in front. */
static void print_job_error(const char *err)
{
    size_t n = strcspn(err, " [");
    bool seeds = (n == 3 && strncmp(err, "url", 3) == 0) || (n == 4 && strncmp(err, "urls", 4) == 0);
    const char *option = seeds ? "URL" : NULL;
    for (size_t i = 0; i < RC_ARRAY_LEN(job_options) && !option; i++)
        if (strlen(job_options[i].field) == n && strncmp(err, job_options[i].field, n) == 0)
            option = job_options[i].option;
    if (option)
        fprintf(stderr, "redcrawl crawl: %s%s: %s\n", strcmp(option, "URL") ? "--" : "", option, err);
    else
        fprintf(stderr, "redcrawl crawl: %s\n", err);
}

/* The job from the options, validated as a submitted request is (rc_job_parse, the rules compiled
 * once to check them). 0, or -EINVAL after printing why. */
static int build_job(const crawl_conf *c, char **urls, int n, rc_seedlist *seeds, rc_job *job)
{
    char err[512];
    json_t *req = job_request(c, urls, n, seeds);
    if (!req)
        return -EINVAL;
    char *s = json_dumps(req, JSON_COMPACT);
    json_decref(req);
    int r = rc_job_parse(s, strlen(s), job, err, sizeof err);
    free(s);
    if (r == 0 && job->rules && (r = rc_rules_check(job->rules, err, sizeof err)) < 0)
        rc_job_release(job);
    if (r < 0)
        print_job_error(err);
    return r < 0 ? -EINVAL : 0;
}

/* The network options, --redis' form, --fsync and --log-level, checked before anything starts:
 * the workers would refuse them later, each one started. The level is this process' too, where the
 * scheduler runs (insched.h). */
static int check_options(const crawl_conf *c)
{
    char err[512];
    if (rc_log_set_level(c->log_level) < 0) {
        fprintf(stderr, "redcrawl crawl: --log-level: '%s' is not debug, info, warn or error\n", c->log_level);
        return -EINVAL;
    }
    if (c->redis) { /* a URL that cannot name a Redis: no OUT made, no wait */
        rc_redis_addr addr;
        int bad = rc_redis_parse_url(c->redis, &addr, err, sizeof err) < 0;
        memset(&addr, 0, sizeof addr); /* it may hold the password */
        if (bad) {
            fprintf(stderr, "redcrawl crawl: --redis: %s\n", err);
            return -EINVAL;
        }
    }
    if (strcmp(c->fsync, "none") != 0 && strcmp(c->fsync, "batch") != 0 && strcmp(c->fsync, "record") != 0) {
        fprintf(stderr, "redcrawl crawl: --fsync: '%s' is not none, batch or record\n", c->fsync);
        return -EINVAL;
    }
    for (size_t i = 0; i < c->connect_to.n; i++)
        if (rc_netguard_check_connect_to(c->connect_to.v[i], err, sizeof err) < 0) {
            fprintf(stderr, "redcrawl crawl: --connect-to: %s\n", err);
            return -EINVAL;
        }
    for (size_t i = 0; i < c->resolve.n; i++)
        if (rc_netguard_check_resolve(c->resolve.v[i], err, sizeof err) < 0) {
            fprintf(stderr, "redcrawl crawl: --resolve: %s\n", err);
            return -EINVAL;
        }
    for (size_t i = 0; i < c->allow_net.n; i++)
        if (rc_netguard_check_cidr(c->allow_net.v[i], err, sizeof err) < 0) {
            fprintf(stderr, "redcrawl crawl: --allow-net: %s\n", err);
            return -EINVAL;
        }
    rc_netguard *guard =
        rc_netguard_new(NULL, 0, (const char *const *)c->allow_port.v, c->allow_port.n, err, sizeof err);
    if (!guard) {
        fprintf(stderr, "redcrawl crawl: --allow-port: %s\n", err);
        return -EINVAL;
    }
    rc_netguard_free(guard); /* built only to validate: the workers build their own */
    return 0;
}

/* OUT/logs made, the output files writable, the daemons' programs found. */
static int prepare_run(crawl_run *run, const char *outdir)
{
    snprintf(run->logdir, sizeof run->logdir, "%s/logs", outdir);
    int mk = rc_mkdirs(run->logdir);
    if (mk < 0) {
        fprintf(stderr, "redcrawl crawl: cannot create %s: %s\n", run->logdir, strerror(-mk));
        return mk;
    }
    /* The workers hand a page they cannot store back to its queue, to try again a second later
     * (a full disk may free): an output file that cannot be written at all would take every
     * page round for ever. */
    const char *files[] = {"pages.jsonl", run->c->rules ? "items.jsonl" : NULL};
    for (size_t i = 0; i < RC_ARRAY_LEN(files) && files[i]; i++) {
        char *path = rc_xasprintf("%s/%s", outdir, files[i]);
        int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
        int e = errno;
        if (fd >= 0)
            close(fd);
        else
            fprintf(stderr, "redcrawl crawl: cannot write %s: %s\n", path, strerror(e));
        free(path);
        if (fd < 0)
            return -e;
    }
    /* Storing to JSON Lines only, the workers need no MongoDB or Kafka client: the lean build
     * does not map those libraries (~1 MB of each worker's memory). */
    run->worker_bin = run->c->mongo ? NULL : rc_proc_find("redcrawl-worker-lean");
    if (!run->worker_bin)
        run->worker_bin = rc_proc_find("redcrawl-worker");
    if (!run->worker_bin) {
        fprintf(stderr, "redcrawl crawl: cannot find redcrawl-worker next to this program or on PATH (build with "
                        "scripts/setup.sh)\n");
        return -ENOENT;
    }
    return 0;
}

/* Redis (--redis, else a private one started in PR), connected, conf:retention set. The URL
 * the children use goes to *ret_url. */
static int open_redis(crawl_run *run, rc_private_redis *pr, const char **ret_url)
{
    char err[512];
    const crawl_conf *c = run->c;
    const char *redis_url = c->redis;
    if (!redis_url) {
        /* Its data in OUT/redis, append-only: a crawl interrupted, even killed, goes on from
         * there (--resume), and so Ctrl-C pauses it. --resumable=0: kept nowhere, Ctrl-C stops. */
        char *data = c->resumable ? rc_resume_redis_dir(run->outdir) : NULL;
        int r = rc_private_redis_start(pr, data, err, sizeof err);
        free(data);
        if (r < 0) {
            fprintf(stderr, "redcrawl crawl: %s\n", err);
            return -EIO;
        }
        redis_url = pr->url;
        run->pausable = (int)c->resumable;
        run->pr = pr;
    }
    run->r = c->redis ? wait_for_redis(redis_url, c->prefix, c->redis_wait, err, sizeof err)
                      : rc_redis_new(redis_url, c->prefix, err, sizeof err);
    if (!run->r) {
        fprintf(stderr, "redcrawl crawl: %s\n", err);
        return -EIO;
    }
    if (c->retention >= 0) {
        redisReply *rep = rc_redis_cmd(run->r, "SET %s %lld", rc_redis_key(run->r, err, sizeof err, "conf:retention"),
                                       (long long)c->retention);
        if (rep)
            freeReplyObject(rep);
    }
    *ret_url = redis_url;
    return 0;
}

/* A seed list's hold on its job (submit.lua): renewed by each batch of RC_FRONTIER_BATCH seeds,
 * which takes milliseconds; a crawl killed while its list goes in holds the job this long. */
#define SEED_HOLD_MS 10000

/* The job and its seeds into the frontier, once the scheduler and the workers run. A list goes
 * in whole before any of it is dispatched (the job held: rc_frontier_submit_list). */
static int submit_job(crawl_run *run, const rc_job *job)
{
    char err[512];
    int tty = isatty(STDERR_FILENO) && !run->c->quiet;
    rc_seedlist *s = run->seeds;
    if (rc_frontier_submit_list(run->r, job, s ? rc_seedlist_urls(s) : NULL, s ? rc_seedlist_count(s) : 0, SEED_HOLD_MS,
                                on_seed_progress, &tty, &run->added, err, sizeof err) < 0) {
        fprintf(stderr, "redcrawl crawl: %s\n", err);
        return -EIO;
    }
#ifdef __GLIBC__
    /* The submission's buffers are free now (for 1,000 seeds ~3 MB at once: the seeds' command,
     * formatted twice by hiredis, and the children's argv) but glibc keeps their pages under
     * what is still allocated; this process then only watches the job, for the whole crawl. */
    malloc_trim(0);
#endif
    return 0;
}

/* The scheduler, on a thread of this process with its own Redis connection (insched.h): as the
 * redcrawl-scheduler process it was. A dead worker's URLs come back at once (check_children), so
 * its worker timeout only has to catch a worker alive but hung, and is long: a worker stalled for
 * seconds (swapped out, starved of CPU) keeps its pages rather than have them fetched again.
 * Its lines go to logs/scheduler.log. 0, or -EIO when it could not start (said). */
static int start_scheduler(crawl_run *run, const char *redis_url)
{
    char logf[700], err[600], attempts[16];
    snprintf(attempts, sizeof attempts, "%d", CRAWL_MAX_ATTEMPTS);
    const char *opts[] = {"redis",          redis_url, "prefix",       run->c->prefix, "log-level", run->c->log_level,
                          "worker-timeout", "10",      "max-attempts", attempts,       NULL};
    snprintf(logf, sizeof logf, "%s/scheduler.log", run->logdir);
    run->sched = rc_insched_start(opts, logf, err, sizeof err);
    if (!run->sched) {
        fprintf(stderr, "redcrawl crawl: the scheduler cannot start: %s (see %s)\n", err, logf);
        return -EIO;
    }
    return 0;
}

/* Waits (at most 5 s) until every worker has registered, before the seeds go in, so the
 * scheduler's first assignment spreads their hosts over all of them: a host stays with its
 * worker while it has work, so a worker registering after the first assignment got nothing on a
 * small crawl. A worker slower still only joins later (rebalancing gives it idle hosts). */
static void wait_workers_registered(crawl_run *run)
{
    char key[200];
    rc_redis_key(run->r, key, sizeof key, "workers");
    for (int i = 0; i < 250; i++) {
        redisReply *rep = rc_redis_cmd(run->r, "ZCARD %s", key);
        long long n = rep && rep->type == REDIS_REPLY_INTEGER ? rep->integer : -1;
        if (rep)
            freeReplyObject(rep);
        if (n < 0 || n >= run->c->workers)
            return;
        struct timespec ts = {0, 20 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
}

/* Signals caught, then the scheduler and the workers started, and their registration waited
 * for (the seeds and the dashboard come after). 0, or -EIO when the scheduler could not start. */
static int start_children(crawl_run *run, const char *redis_url, const char *outdir)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);

    build_argv(run, redis_url, outdir);
    if (start_scheduler(run, redis_url) < 0)
        return -EIO;
    run->workers = rc_xcalloc((size_t)run->c->workers, sizeof(pid_t));
    run->seen_ms = rc_xcalloc((size_t)run->c->workers, sizeof(uint64_t));
    for (int i = 0; i < run->c->workers; i++)
        run->workers[i] = start_worker(run, i);
    wait_workers_registered(run);
    return 0;
}

/* How a crawl ended, and its counters then. */
typedef struct crawl_end {
    job_stats st;
    int lost; /* the job hash vanished from Redis */
    int stopped_by_user;
    int paused;     /* by the user, the job left running in a Redis that keeps it (--resume) */
    int gave_up;    /* on the workers (run->gave_up says why): paused as by Ctrl-C, exit status 1 */
    int redis_gone; /* the private Redis died (run->redis_gone): exit status 1, resumable from OUT */
    int hit_max;
} crawl_end;

/* A job hash that is gone (Redis restarted without persistence, or someone deleted it) never
 * finishes: after this many reads (200 ms apart) without it the crawl says so and ends. */
#define MISSING_POLLS 5

/* Between two reads of the job's counters its state alone is polled this often, so a crawl's
 * end is seen at once (with a read every 200 ms a short crawl spent ~100 ms noticing it). */
#define STATE_POLL_MS 25

/* Whether the job's state (one HGET) says it ended: done, stopped or expired. */
static int job_ending(crawl_run *run, const char *crawlid)
{
    char key[200];
    redisReply *rep = rc_redis_cmd(run->r, "HGET %s state", rc_redis_key(run->r, key, sizeof key, "job:%s", crawlid));
    int ending =
        rep && rep->type == REDIS_REPLY_STRING &&
        (strcmp(rep->str, "done") == 0 || strcmp(rep->str, "stopped") == 0 || strcmp(rep->str, "expired") == 0);
    if (rep)
        freeReplyObject(rep);
    return ending;
}

/* The progress line: on a terminal redrawn each poll, else one line every 5 s. Its errors are
 * the summary's fetch errors (a fetch that failed for good counts in errors and failed both). */
static void show_progress(const crawl_run *run, const job_stats *st, uint64_t t0, int tty, uint64_t *last_line)
{
    uint64_t now = rc_mono_ms();
    if (!tty && (run->c->quiet || now - *last_line < 5000))
        return;
    double secs = (double)(now - t0) / 1000.0;
    int64_t inflight = st->pending - st->seeds - st->queued;
    if (inflight < 0)
        inflight = 0;
    fprintf(stderr, "%spages %lld (%.1f/s) | queued %lld | in flight %lld | errors %lld | %.0fs%s",
            tty ? "\r\033[K" : "", (long long)st->fetched,
            secs > 0 ? (double)(st->fetched - run->fetched0) / secs : 0.0, (long long)(st->seeds + st->queued),
            (long long)inflight, (long long)st->errors, secs, tty ? "" : "\n");
    *last_line = now;
}

/* Ctrl-C: a crawl whose Redis keeps its data pauses (the job stays as it is, the workers finish
 * their pages in flight: 1, stop watching), another stops its job (0). */
static int on_interrupt(crawl_run *run, const rc_job *job, int tty, crawl_end *end)
{
    end->stopped_by_user = 1;
    end->paused = run->pausable;
    if (end->paused) {
        fprintf(stderr,
                "%sredcrawl: pausing: finishing pages in flight (Ctrl-C again to quit at once); go on with: "
                "redcrawl crawl --resume %s\n",
                tty ? "\r\033[K" : "", run->outdir);
        return 1;
    }
    fprintf(stderr, "%sredcrawl: stopping: finishing pages in flight (Ctrl-C again to quit at once)\n",
            tty ? "\r\033[K" : "");
    stop_job(run, job->crawlid);
    return 0;
}

/* Polls the job until it is done, stopped and drained, lost, or the user insists; restarts dead
 * children, shows progress, pauses or stops the job on Ctrl-C, stops it at --max-pages. */
static void watch_job(crawl_run *run, const rc_job *job, uint64_t t0, int tty, crawl_end *end)
{
    const crawl_conf *c = run->c;
    uint64_t last_line = 0, stop_sent = 0, last_read = rc_mono_ms();
    int missing = 0;
    for (;;) {
        struct timespec ts = {0, STATE_POLL_MS * 1000000};
        nanosleep(&ts, NULL);
        if (rc_mono_ms() - last_read < 200 && !interrupted && !job_ending(run, job->crawlid))
            continue;
        last_read = rc_mono_ms();
        check_children(run);
        if (run->redis_gone[0]) {
            end->redis_gone = 1;
            break;
        }
        if (run->gave_up[0]) {
            end->gave_up = 1;
            end->paused = run->pausable;
            if (!end->paused)
                stop_job(run, job->crawlid);
            break;
        }
        watch_workers(run);
        job_stats st;
        int read = read_stats(run, job->crawlid, &st);
        if (read == 0) /* else the last counters read stay (Redis away for a moment) */
            end->st = st;
        missing = read == 0 && !st.state[0] ? missing + 1 : 0;
        if (missing >= MISSING_POLLS) {
            end->lost = 1;
            break;
        }
        show_progress(run, &end->st, t0, tty, &last_line);
        /* Only while the job is there (an HSET would make its hash again); one not noted, the next poll. */
        if (end->st.state[0] && run->pages_path)
            rc_recheck_note(run->r, job->crawlid, run->pages_path, &run->mark);
        const char *state = end->st.state;
        if (strcmp(state, "done") == 0)
            break;
        if ((strcmp(state, "stopped") == 0 || strcmp(state, "expired") == 0) && end->st.pending <= 0)
            break;
        uint64_t now = rc_mono_ms();
        if (interrupted && !stop_sent) {
            if (on_interrupt(run, job, tty, end))
                break;
            stop_sent = now;
        }
        if (c->max_pages > 0 && end->st.started >= c->max_pages && !stop_sent) {
            end->hit_max = 1;
            stop_job(run, job->crawlid);
            stop_sent = now;
        }
        if (interrupted > 1 || (stop_sent && now - stop_sent > (uint64_t)(c->timeout * 1000) + 10000))
            break;
    }
}

/* Every child stopped (workers get their transfer timeout to finish pages in flight; without
 * their Redis, which they cannot complete them in, 2 s). */
#define NO_REDIS_STOP_MS 2000

static void stop_children(crawl_run *run)
{
    interrupted = interrupted ? interrupted : 1; /* children exiting now are not restarted */
    stop_workers(run, (int)run->c->workers,
                 run->redis_gone[0] ? NO_REDIS_STOP_MS : (int)(run->c->timeout * 1000) + 5000);
    rc_insched_stop(run->sched);
    run->sched = NULL;
    if (run->web > 0)
        rc_proc_stop(run->web, SIGTERM, 5000);
}

/* The URLs not fetched because robots.txt could not be read, and why, for a few hosts: RFC 9309
 * keeps us off such a site, which must not read as "the site disallows us". */
static void print_unreachable(const crawl_run *run, const char *crawlid, int64_t urls)
{
    char key[200];
    redisReply *rep =
        rc_redis_cmd(run->r, "HGETALL %s", rc_redis_key(run->r, key, sizeof key, "robotsdown:%s", crawlid));
    size_t hosts = rep && rep->type == REDIS_REPLY_ARRAY ? rep->elements / 2 : 0;
    printf("  robots.txt %lld URL(s) not fetched: robots.txt unreachable for %zu host(s) (", (long long)urls, hosts);
    for (size_t i = 0; i < hosts && i < 3; i++) {
        const char *why = rep->element[2 * i + 1]->str;
        if (strncmp(why, "robots.txt unreachable: ", 24) == 0)
            why += 24;
        printf("%s%s: %s", i ? "; " : "", rep->element[2 * i]->str, why);
    }
    printf("%s); a site whose robots.txt cannot be read is not crawled (RFC 9309): check that the site is up "
           "and the address right\n",
           hosts > 3 ? "; ..." : "");
    if (rep)
        freeReplyObject(rep);
}

/* The reasons of the job's URLs that failed for good (the frontier's `failed` list, its last
 * FAILED_READ entries), the commonest FAILED_SHOWN: "2 x blocked: loopback address ...". */
#define FAILED_READ 1000
#define FAILED_SHOWN 3

static void print_failures(const crawl_run *run, const char *crawlid)
{
    char key[200];
    redisReply *rep =
        rc_redis_cmd(run->r, "ZREVRANGE %s 0 %d", rc_redis_key(run->r, key, sizeof key, "failed"), FAILED_READ - 1);
    json_t *counts = json_object();
    for (size_t i = 0; rep && rep->type == REDIS_REPLY_ARRAY && i < rep->elements; i++) {
        json_t *f = rep->element[i]->type == REDIS_REPLY_STRING ? json_loads(rep->element[i]->str, 0, NULL) : NULL;
        const char *cid = json_string_value(json_object_get(f, "crawlid"));
        const char *why = json_string_value(json_object_get(f, "reason"));
        if (cid && why && strcmp(cid, crawlid) == 0)
            json_object_set_new(counts, why, json_integer(json_integer_value(json_object_get(counts, why)) + 1));
        json_decref(f);
    }
    if (rep)
        freeReplyObject(rep);
    for (int shown = 0; shown < FAILED_SHOWN && json_object_size(counts); shown++) {
        const char *k, *best = NULL;
        json_t *v;
        json_int_t most = 0;
        json_object_foreach (counts, k, v) {
            if (json_integer_value(v) > most) {
                most = json_integer_value(v);
                best = k;
            }
        }
        if (!best)
            break;
        printf("             %lld x %.300s\n", (long long)most, best);
        json_object_del(counts, best);
    }
    json_decref(counts);
}

static void print_summary(const crawl_run *run, const rc_job *job, const crawl_end *end, const char *outdir,
                          double secs)
{
    const job_stats *st = &end->st;
    char *pages = rc_xasprintf("%s/pages.jsonl", outdir);
    rc_buf statuses;
    rc_buf_init(&statuses);
    summary_statuses(pages, job->crawlid, run->pages_from, &statuses);
    int64_t now = st->fetched - run->fetched0;
    printf("\nredcrawl: job %s %s%s\n", job->crawlid,
           end->lost              ? "LOST: its job vanished from Redis"
           : end->redis_gone      ? "stopped: its Redis "
           : end->gave_up         ? (end->paused ? "paused: " : "stopped: ")
           : end->paused          ? "paused by user"
           : end->stopped_by_user ? "stopped by user"
           : end->hit_max         ? "reached --max-pages"
                                  : "finished",
           end->gave_up      ? run->gave_up
           : end->redis_gone ? run->redis_gone
                             : "");
    printf("  pages      %lld in %.1f s (%.1f pages/s)", (long long)now, secs, secs > 0 ? (double)now / secs : 0.0);
    if (run->fetched0)
        printf(", %lld in the job with the runs before", (long long)st->fetched);
    putchar('\n');
    printf("  statuses   %s\n", statuses.len ? statuses.ptr : "-");
    printf("  errors     %lld fetch errors, %lld retries, %lld dropped", (long long)st->errors, (long long)st->retries,
           (long long)st->dropped);
    /* failed: the fetch errors, and the URLs lost with their worker too often (common.lua) */
    if (st->failed > st->errors)
        printf(", %lld given up: their workers died with them %d times", (long long)(st->failed - st->errors),
               CRAWL_MAX_ATTEMPTS * 4);
    putchar('\n');
    if (st->failed > 0)
        print_failures(run, job->crawlid);
    if (st->denied || !st->unreachable)
        printf("  robots.txt %lld URL(s) disallowed, not fetched\n", (long long)st->denied);
    if (st->unreachable)
        print_unreachable(run, job->crawlid, st->unreachable);
    if (st->recent_skipped)
        printf("  recent %lld URL(s) not fetched: fetched by some job within --skip-recent-hours\n",
               (long long)st->recent_skipped);
    if (st->unchanged)
        printf("  unchanged %lld refresh(es): a 304 to a conditional GET (not stored again) or the same text\n",
               (long long)st->unchanged);
    if (st->duplicates)
        printf("  duplicates %lld page(s) with a main text seen before (duplicate_of; text not stored again)\n",
               (long long)st->duplicates);
    printf("  restarts   %d\n", run->restarts);
    if (st->store_errors || st->store_failed)
        printf("  STORE      %lld write(s) failed and were retried; %lld page(s) could NOT be stored (see the "
               "worker logs)\n",
               (long long)st->store_errors, (long long)st->store_failed);
    printf("  output     %s\n", pages);
    if (run->c->rules) {
        char *items_path = rc_xasprintf("%s/items.jsonl", outdir);
        printf("  items      %lld in %s (%lld dropped for a missing required field)\n", (long long)st->items,
               items_path, (long long)st->items_dropped);
        free(items_path);
    }
    printf("  logs       %s/\n", run->logdir);
    if (end->paused || (end->redis_gone && run->pausable))
        printf("  resume     redcrawl crawl --resume %s\n", outdir);
    rc_buf_release(&statuses);
    free(pages);
}

/* --seeds: the list read whole (the job's default scope is every seed's domain). 0, or 2. */
static int load_seeds(const crawl_conf *c, crawl_run *run, char **cli, int ncli)
{
    run->seeds = rc_seedlist_new();
    int rc = read_seeds(c, run->seeds, cli, ncli);
    if (rc == 0 && !c->allowed_domains.n && rc_seedlist_ndomains(run->seeds) > SCOPE_DOMAINS_MAX) {
        fprintf(stderr,
                "redcrawl crawl: the seeds span %zu registrable domains, more than a job's scope holds (%d): "
                "give --allowed-domain\n",
                rc_seedlist_ndomains(run->seeds), SCOPE_DOMAINS_MAX);
        rc = 2;
    }
    return rc;
}

/* Something to crawl, and no shards: 0, or -EINVAL (said). */
static int check_invocation(const crawl_conf *c, int nurls)
{
    if (nurls <= 0 && !c->seeds) {
        fprintf(stderr, "redcrawl crawl: give at least one URL or --seeds FILE (see --help)\n");
        return -EINVAL;
    }
    /* Its workers and scheduler would read it and wait on shards nobody runs. */
    const char *shards = getenv("REDCRAWL_SHARDS");
    if (shards && *shards && strcmp(shards, "1") != 0) {
        fprintf(stderr,
                "redcrawl crawl: REDCRAWL_SHARDS=%s: a crawl on this machine is one keyspace; unset it "
                "(shards are for a fleet: README \"On a Redis Cluster\")\n",
                shards);
        return -EINVAL;
    }
    return 0;
}

/* The dashboard, the job watched to its end with progress, the children stopped, the summary.
 * The exit status: 0 done, 3 the job vanished, 130 Ctrl-C, 1 given up on the workers, 4 a page not stored, 5 nothing
 * reachable. */
static int crawl_and_report(crawl_run *run, const rc_job *job, const char *outdir, uint64_t t0)
{
    const crawl_conf *c = run->c;
    run->web = start_dashboard(run); /* once the job is there to show */
    int tty = isatty(STDERR_FILENO) && !c->quiet;
    if (run->resuming)
        fprintf(stderr, "redcrawl: resuming job %s (%lld pages stored before) with %lld worker%s, output in %s/\n",
                job->crawlid, (long long)run->fetched0, (long long)c->workers, c->workers == 1 ? "" : "s", outdir);
    else
        fprintf(stderr, "redcrawl: crawling %lld seed(s) as job %s with %lld worker%s, output in %s/\n",
                (long long)run->added, job->crawlid, (long long)c->workers, c->workers == 1 ? "" : "s", outdir);

    crawl_end end;
    memset(&end, 0, sizeof end);
    watch_job(run, job, t0, tty, &end);
    if (tty)
        fputc('\n', stderr);
    if (end.lost)
        fprintf(stderr,
                "redcrawl: error: job %s vanished from Redis (%s): it restarted without persistence or "
                "lost its data; what was stored is in %s/, the rest is lost. Run Redis with appendonly yes "
                "and submit the job again.\n",
                job->crawlid, c->redis ? c->redis : "private Redis", outdir);
    stop_children(run);
    if (!end.lost && !end.redis_gone && run->pages_path) /* every page stored: a resume rechecks none */
        rc_recheck_note(run->r, job->crawlid, run->pages_path, &run->mark);
    job_stats st;
    if (!end.redis_gone && read_stats(run, job->crawlid, &st) == 0)
        end.st = st;
    if (c->max_pages > 0 && end.st.started >= c->max_pages)
        end.hit_max = 1; /* the cap may also show as "done": the takes dropped what was left */
    print_summary(run, job, &end, outdir, (double)(rc_mono_ms() - t0) / 1000.0);
    /* Nothing stored because the seeds' sites could not be reached: a script must see it. */
    int nothing = end.st.fetched == 0 && end.st.unreachable > 0;
    run->ended = end.lost || end.redis_gone           ? NULL /* resuming it says it is lost, or goes on */
                 : end.paused                         ? RC_RESUME_PAUSED
                 : end.stopped_by_user || end.gave_up ? RC_RESUME_STOPPED
                                                      : RC_RESUME_FINISHED;
    return end.lost                        ? 3
           : end.gave_up || end.redis_gone ? 1
           : end.stopped_by_user           ? 130
           : end.st.store_failed > 0       ? 4
           : nothing                       ? 5
                                           : 0;
}

/* ---- resuming ------------------------------------------------------------------------------ */

/* Options that make the job what it is (and where its state lives): a resume cannot change
 * them. Every other one (workers, politeness, network, ...) is how this run goes about it. */
static int fixed_on_resume(const char *name)
{
    static const char *const more[] = {"seeds", "prefix", "out", "resumable"};
    for (size_t i = 0; i < RC_ARRAY_LEN(more); i++)
        if (strcmp(name, more[i]) == 0)
            return 1;
    for (size_t i = 0; i < RC_ARRAY_LEN(job_options); i++)
        if (strcmp(name, job_options[i].option) == 0)
            return 1;
    return 0;
}

/* Whether the saved crawl ran with --redis (its URL saved, or left out for its password). */
static int run_had_redis(const crawl_run *run)
{
    const char *ns = run->saved.not_saved;
    return json_object_get(run->saved.options, "redis") || (ns && strstr(ns, "redis"));
}

/* The options given with --resume over the saved ones in merged: a job's own setting with
 * another value than saved is refused. 0, or -EINVAL (said). */
static int merge_given(const crawl_run *run, const crawl_conf *given, crawl_conf *merged, int optind, char **argv)
{
    for (size_t i = 0; i < NROWS; i++) {
        const char *name = rows[i].name;
        if (strcmp(name, "resume") == 0 || !rc_resume_given(rows, NROWS, optind, argv, name))
            continue;
        if (fixed_on_resume(name) && !rc_resume_same(&run->saved, rows, NROWS, name, given)) {
            fprintf(stderr,
                    "redcrawl crawl: --%s: the job's own setting cannot change when it resumes (its settings are in "
                    "%s/crawl.json; options such as --workers or --delay can)\n",
                    name, given->resume);
            return -EINVAL;
        }
        if (strcmp(name, "redis") == 0 && !run_had_redis(run)) {
            fprintf(stderr,
                    "redcrawl crawl: --redis: this crawl's state is in its private Redis (%s/redis): it "
                    "resumes there\n",
                    given->resume);
            return -EINVAL;
        }
        rc_resume_copy_option(rows, NROWS, name, given, merged);
    }
    return 0;
}

/* Options that held credentials were not saved: they must come again (option or environment). */
static int check_not_saved(const crawl_run *run, const crawl_conf *c, const char *out)
{
    const char *ns = run->saved.not_saved;
    if ((!ns || !strstr(ns, "redis") || c->redis) && (!ns || !strstr(ns, "mongo") || c->mongo))
        return 0;
    fprintf(stderr,
            "redcrawl crawl: --resume %s: the crawl's %s held a password, which is not saved in the output "
            "directory: give it again (the option, or REDCRAWL_MONGO for --mongo)\n",
            out, ns);
    return -EINVAL;
}

/* --resume OUT: *c becomes the saved crawl's settings with the options given now over them. 0,
 * or the exit status: 2 for a bad OUT or a refused option (said). */
static int resume_settings(crawl_conf *c, crawl_run *run, int argc, char **argv, int optind)
{
    char err[600];
    if (optind < argc) {
        fprintf(stderr, "redcrawl crawl: --resume: no URL may be given: the crawl's seeds are saved in %s\n",
                c->resume);
        return 2;
    }
    if (rc_resume_load(c->resume, &run->saved, err, sizeof err) < 0) {
        fprintf(stderr, "redcrawl crawl: --resume %s: no crawl to resume there: %s\n", c->resume, err);
        return 2;
    }
    crawl_conf merged;
    memset(&merged, 0, sizeof merged);
    merged.robots_delay = -1;
    int bad = rc_conf_init(rows, NROWS, &merged, err, sizeof err) < 0 ||
              rc_resume_apply(&run->saved, rows, NROWS, &merged, err, sizeof err) < 0;
    if (bad)
        fprintf(stderr, "redcrawl crawl: --resume %s: crawl.json: %s\n", c->resume, err);
    if (bad || merge_given(run, c, &merged, optind, argv) < 0 || check_not_saved(run, &merged, c->resume) < 0) {
        rc_conf_release(rows, NROWS, &merged);
        return 2;
    }
    merged.out = rc_xstrdup(c->resume);
    merged.resume = rc_xstrdup(c->resume);
    if (merged.seeds) { /* the list as it was read, kept in OUT */
        free(merged.seeds);
        merged.seeds = rc_xasprintf("%s/seeds.txt", c->resume);
    }
    rc_conf_release(rows, NROWS, c);
    *c = merged;
    run->resuming = 1;
    return 0;
}

/* A crawl.json that says the job ended: nothing to resume (1, said), else 0. */
static int nothing_to_resume(const crawl_run *run, const char *out)
{
    const char *state = run->saved.state;
    if (json_is_false(json_object_get(run->saved.options, "resumable"))) {
        fprintf(stderr,
                "redcrawl crawl: nothing to resume in %s: job %s ran with --resumable=0, so its state was not kept; "
                "its pages are in %s/pages.jsonl\n",
                out, run->saved.crawlid, out);
        return 1;
    }
    if (strcmp(state, RC_RESUME_RUNNING) == 0 || strcmp(state, RC_RESUME_PAUSED) == 0)
        return 0;
    fprintf(stderr, "redcrawl crawl: nothing to resume in %s: job %s %s; its pages are in %s/pages.jsonl\n", out,
            run->saved.crawlid,
            strcmp(state, RC_RESUME_STOPPED) == 0 ? "was stopped (Ctrl-C stops the job with --redis or --resumable=0)"
                                                  : "finished",
            out);
    return 1;
}

/* A new crawl may not write where an interrupted crawl of a private Redis waits to be resumed
 * (it would load that crawl's jobs, and lose its settings); one with --redis keeps nothing in
 * OUT/redis and gives way (a second crawl adding seeds to a fleet's job may share its OUT). An
 * ended crawl's Redis data is dropped. 0, or -EEXIST (said). */
static int check_out_free(const char *out)
{
    char err[600];
    rc_resume old;
    char *redis_dir = rc_resume_redis_dir(out);
    int has_redis = access(redis_dir, F_OK) == 0, r = rc_resume_load(out, &old, err, sizeof err), rc = 0;
    if (r == 0 && has_redis &&
        (strcmp(old.state, RC_RESUME_RUNNING) == 0 || strcmp(old.state, RC_RESUME_PAUSED) == 0)) {
        fprintf(stderr,
                "redcrawl crawl: %s holds job %s, interrupted: go on with it with `redcrawl crawl --resume %s`, or "
                "give another --out\n",
                out, old.crawlid, out);
        rc = -EEXIST;
    } else if (r < 0 && has_redis) {
        fprintf(stderr,
                "redcrawl crawl: %s holds a crawl's Redis data (%s) but no state to resume it: %s; give "
                "another --out\n",
                out, redis_dir, err);
        rc = -EEXIST;
    } else if (has_redis) {
        rc = rc_resume_drop_redis(out);
    }
    if (r == 0)
        rc_resume_release(&old);
    free(redis_dir);
    return rc;
}

/* OUT/seeds.txt: the --seeds list as read (normalised), for a resume that has to send it again. */
static int save_seeds(rc_seedlist *s, const char *out)
{
    char *path = rc_xasprintf("%s/seeds.txt", out);
    FILE *f = fopen(path, "w");
    const char *const *urls = rc_seedlist_urls(s);
    for (size_t i = 0; f && i < rc_seedlist_count(s); i++)
        fprintf(f, "%s\n", urls[i]);
    int rc = f && fclose(f) == 0 ? 0 : -errno;
    if (rc < 0)
        fprintf(stderr, "redcrawl crawl: cannot write %s: %s\n", path, strerror(-rc));
    free(path);
    return rc;
}

/* A new crawl takes OUT: its settings and seeds saved there for a resume. 0, or -errno (said). */
static int claim_out(crawl_run *run, const char *out, const rc_job *job, char **urls, int nurls)
{
    char err[600];
    int rc = check_out_free(out);
    if (rc < 0)
        return rc;
    if ((rc = rc_mkdirs(out)) < 0) {
        fprintf(stderr, "redcrawl crawl: cannot create %s: %s\n", out, strerror(-rc));
        return rc;
    }
    if (run->seeds && (rc = save_seeds(run->seeds, out)) < 0)
        return rc;
    rc_resume_capture(&run->saved, rows, NROWS, run->c, job->crawlid, urls, (size_t)nurls);
    if (run->c->robots_delay < 0) /* unset, which no value of the option says */
        json_object_del(run->saved.options, "robots-delay");
    json_object_set_new(run->saved.options, "crawlid", json_string(job->crawlid));
    rc = rc_resume_save(out, &run->saved, err, sizeof err);
    if (rc < 0)
        fprintf(stderr, "redcrawl crawl: %s\n", err);
    return rc;
}

/* crawl.json says how this run is or ended, or that its seeds are in (state NULL: unchanged). */
static void note_state(crawl_run *run, const char *state, int seeds_sent)
{
    char err[600];
    if (!run->outdir || !run->saved.crawlid)
        return;
    if (state && state != run->saved.state) {
        free(run->saved.state);
        run->saved.state = rc_xstrdup(state);
    }
    if (rc_resume_mark(run->outdir, run->saved.state, seeds_sent, err, sizeof err) < 0)
        fprintf(stderr, "redcrawl crawl: %s (a resume may not find this crawl's state)\n", err);
}

/* The job's state (empty: no such job) and pages fetched, in st and *fetched. 0, or -EIO. */
static int read_job_state(crawl_run *run, const char *crawlid, char *st, size_t cap, int64_t *fetched)
{
    char key[300];
    redisReply *rep =
        rc_redis_cmd(run->r, "HMGET %s state fetched", rc_redis_key(run->r, key, sizeof key, "job:%s", crawlid));
    int ok = rep && rep->type == REDIS_REPLY_ARRAY && rep->elements == 2;
    if (ok) {
        snprintf(st, cap, "%s", rep->element[0]->type == REDIS_REPLY_STRING ? rep->element[0]->str : "");
        *fetched = rc_reply_int(rep->element[1], 0);
    } else {
        fprintf(stderr, "redcrawl crawl: --resume: cannot read job %s: %s\n", crawlid,
                rep && rep->str ? rep->str : rc_redis_url(run->r));
    }
    if (rep)
        freeReplyObject(rep);
    return ok ? 0 : -EIO;
}

/* The workers and the scheduler of the interrupted run are gone: their leases go back to the
 * frontier and the scheduler's lock is freed now, not after their timeouts. A private Redis
 * served that run alone: everything in it is stale. */
static void reap_interrupted(crawl_run *run)
{
    char key[300], err[400];
    int64_t urls = 0;
    if (rc_reap_stale(run->r, run->pausable, CRAWL_MAX_ATTEMPTS, &urls, err, sizeof err) < 0)
        fprintf(stderr, "redcrawl crawl: %s (the scheduler reaps them after its worker timeout)\n", err);
    if (urls > 0)
        fprintf(stderr, "redcrawl: the interrupted run's workers held %lld URLs: handed back\n", (long long)urls);
    if (!run->pausable) {
        rc_reap_stale_lock(run->r); /* a shared Redis: only a dead scheduler's lock */
        return;
    }
    redisReply *rep = rc_redis_cmd(run->r, "DEL %s", rc_redis_key(run->r, key, sizeof key, "lock:scheduler"));
    if (rep)
        freeReplyObject(rep);
}

/* The resumed job in its Redis: still running, the interrupted run reaped (0); else 1 (nothing
 * to resume: it ended), 3 (lost) or 1 (Redis unreadable), said. */
static int check_resumed_job(crawl_run *run, const char *crawlid)
{
    char state[32];
    if (read_job_state(run, crawlid, state, sizeof state, &run->fetched0) < 0)
        return 1;
    if (!state[0]) {
        fprintf(stderr,
                "redcrawl crawl: --resume: job %s is not in its Redis (%s): its state is lost; what was stored is "
                "in %s/\n",
                crawlid, run->c->redis ? run->c->redis : "the data in OUT/redis", run->outdir);
        return 3;
    }
    if (strcmp(state, "running") != 0) {
        fprintf(stderr, "redcrawl crawl: nothing to resume in %s: job %s is %s\n", run->outdir, crawlid, state);
        run->ended = RC_RESUME_FINISHED;
        return 1;
    }
    reap_interrupted(run);
    return 0;
}

/* How long a crawl waits for a killed crawl's processes to end and free OUT. */
#define LOCK_WAIT_MS 30000

/* One crawl at a time on an OUT whose Redis data it uses: its lock (rc_resume_lock), or -1
 * (said). A crawl killed a moment before may still hold it through processes that are ending
 * (resume.c): waited for, said once, up to LOCK_WAIT_MS; a live crawl's lock is refused at once. */
static int lock_out(const char *out)
{
    char err[600];
    uint64_t until = rc_mono_ms() + LOCK_WAIT_MS;
    int fd, said = 0;
    while ((fd = rc_resume_lock(out, err, sizeof err)) == -EAGAIN && rc_mono_ms() < until) {
        if (!said++)
            fprintf(stderr, "redcrawl crawl: waiting for the killed crawl's processes to end: %s (at most %d s)\n", err,
                    LOCK_WAIT_MS / 1000);
        struct timespec ts = {0, 50 * 1000000};
        nanosleep(&ts, NULL);
    }
    if (fd == -EAGAIN)
        fprintf(stderr, "redcrawl crawl: %s after %d s\n", err, LOCK_WAIT_MS / 1000);
    else if (fd < 0)
        fprintf(stderr, "redcrawl crawl: %s\n", err);
    return fd < 0 ? -1 : fd;
}

/* Whether s can be a JSON string (valid UTF-8): the job request and crawl.json are JSON. */
static int json_ok(const char *s)
{
    json_t *j = json_string(s);
    json_decref(j);
    return j != NULL;
}

/* Every option's value (but --out's and --resume's paths) and URL valid UTF-8: one that is not
 * would be left out of the job request and of crawl.json without a word (the default crawlid,
 * scope ... taken instead).
 * 0, or -EINVAL (said). */
static int check_utf8(const crawl_conf *c, char **urls, int nurls)
{
    for (size_t i = 0; i < NROWS; i++) {
        const void *at = (const char *)c + rows[i].offset;
        const char *bad = NULL;
        if (strcmp(rows[i].name, "out") == 0 || strcmp(rows[i].name, "resume") == 0)
            continue; /* paths that go in no JSON: any bytes */
        if (rows[i].type == RC_CONF_STR && *(char *const *)at && !json_ok(*(char *const *)at))
            bad = rows[i].name;
        for (size_t k = 0; rows[i].type == RC_CONF_LIST && k < ((const rc_strlist *)at)->n && !bad; k++)
            if (!json_ok(((const rc_strlist *)at)->v[k]))
                bad = rows[i].name;
        if (bad) {
            fprintf(stderr, "redcrawl crawl: --%s: not UTF-8 (percent-encode other bytes)\n", bad);
            return -EINVAL;
        }
    }
    for (int i = 0; i < nurls; i++)
        if (!json_ok(urls[i])) {
            fprintf(stderr, "redcrawl crawl: URL %d: not UTF-8 (percent-encode other bytes)\n", i + 1);
            return -EINVAL;
        }
    return 0;
}

/* The job this run crawls, built from the options and seeds and validated as a submitted
 * request is; or, resumed with its seeds all in, only named (its spec is in Redis). 0, or the
 * exit status (2, said). */
static int prepare_job(crawl_conf *c, crawl_run *run, char **urls, int nurls, rc_job *job)
{
    /* A resumed crawl had something to crawl when it began. */
    if (check_invocation(c, run->resuming ? 1 : nurls) < 0 || check_utf8(c, urls, nurls) < 0)
        return 2;
    if (run->resuming && run->saved.seeds_sent) {
        job->crawlid = rc_xstrdup(run->saved.crawlid);
        return check_options(c) < 0 ? 2 : 0;
    }
    int rc = c->seeds ? load_seeds(c, run, urls, nurls) : 0;
    if (rc != 0)
        return rc;
    return check_options(c) < 0 || build_job(c, urls, nurls, run->seeds, job) < 0 ? 2 : 0;
}

/* The job's pages.jsonl and its list OUT/recheck-CRAWLID.ids (recheck.h; one a job: crawls on
 * --redis may share an OUT), for a crawl that can be resumed. */
static void set_recheck_paths(crawl_run *run, const char *crawlid)
{
    if (!run->c->resumable)
        return;
    char *dir = rc_crawlid_subst(run->outdir, crawlid);
    run->pages_path = rc_xasprintf("%s/pages.jsonl", dir);
    free(dir);
    run->recheck = rc_xasprintf("%s/recheck-%s.ids", run->outdir, crawlid);
}

/* A resume: the pages the interrupted run stored past its last mark, which its Redis may not
 * know, go to the job's list (none after a clean end). 0, or -1 (said). */
static int recheck_interrupted(crawl_run *run, const char *crawlid)
{
    char err[800];
    size_t n = 0;
    int unclean = strcmp(run->saved.state, RC_RESUME_RUNNING) == 0;
    if (!run->pages_path)
        return 0;
    int64_t lost = 0;
    if (rc_recheck_collect(run->r, crawlid, run->pages_path, unclean, run->recheck, &n, &lost, err, sizeof err) < 0) {
        fprintf(stderr,
                "redcrawl crawl: --resume: %s (needed to find the pages stored at the interrupted run's end that "
                "its Redis may not know of)\n",
                err);
        return -1;
    }
    if (n > 0)
        fprintf(stderr, "redcrawl: %zu pages stored at the interrupted run's end: looked up if fetched again\n", n);
    if (lost > 0)
        fprintf(stderr,
                "redcrawl: warning: %s lost its last %lld bytes of pages that were stored before the machine "
                "stopped (the system had not written them to disk yet); those pages are counted as fetched and "
                "are not fetched again. Run with --fsync batch to keep every stored page across a crash of the "
                "machine.\n",
                run->pages_path, (long long)lost);
    return 0;
}

/* Redis, the resumed job checked in it, the children, the seeds (unless a run before sent
 * them all), the crawl, and how it ended in crawl.json. The exit status. */
static int run_crawl(crawl_run *run, rc_private_redis *pr, const rc_job *job, uint64_t t0)
{
    const char *redis_url = NULL;
    int rc;
    if (prepare_run(run, run->outdir) < 0 || open_redis(run, pr, &redis_url) < 0)
        return 1;
    set_recheck_paths(run, job->crawlid);
    if (run->resuming && (rc = check_resumed_job(run, job->crawlid)) != 0) {
        if (run->ended)
            note_state(run, run->ended, -1);
        return run->ended ? 0 : rc;
    }
    if (run->resuming && recheck_interrupted(run, job->crawlid) < 0)
        return 1;
    if (run->resuming) /* running again: a crash from now on must not read as a pause */
        note_state(run, RC_RESUME_RUNNING, -1);
    struct stat sb;
    char *pages = rc_xasprintf("%s/pages.jsonl", run->outdir);
    if (!run->resuming && stat(pages, &sb) == 0)
        run->pages_from = sb.st_size; /* the summary counts the records after */
    free(pages);
    if (start_children(run, redis_url, run->outdir) < 0)
        return 1;
    if (!run->saved.seeds_sent) {
        if (submit_job(run, job) < 0) {
            stop_children(run);
            return 1;
        }
        note_state(run, NULL, 1);
    }
    rc = crawl_and_report(run, job, run->outdir, t0);
    if (run->ended)
        note_state(run, run->ended, -1);
    return rc;
}

int rc_cli_crawl(int argc, char **argv)
{
    crawl_conf c;
    int optind = 0, rc = 1;
    memset(&c, 0, sizeof c);
    c.robots_delay = -1; /* unset: the table only accepts 0 and up */
    if (rc_conf_cmdline(
            rows, NROWS, &c, argc, argv, "redcrawl crawl",
            "usage: redcrawl crawl [options] URL...\n       redcrawl crawl --resume OUT [options]\n\nCrawls from the "
            "URLs on this machine: a private Redis, a scheduler (in this process) and N workers;\npage records go "
            "to OUT/pages.jsonl. Ctrl-C pauses it; --resume OUT goes on.\n\n",
            &optind, &rc)) {
        rc_conf_release(rows, NROWS, &c);
        return rc;
    }
    crawl_run run;
    memset(&run, 0, sizeof run);
    run.c = &c;
    run.lock_fd = -1;
    rc_private_redis pr;
    memset(&pr, 0, sizeof pr);
    rc_job job;
    memset(&job, 0, sizeof job);
    char *outdir = NULL, **urls = argv + optind;
    int nurls = argc - optind;
    uint64_t t0 = rc_mono_ms();

    if (c.resume) {
        if ((rc = resume_settings(&c, &run, argc, argv, optind)) != 0 || nothing_to_resume(&run, c.resume))
            goto out;
        urls = run.saved.urls;
        nurls = (int)run.saved.n_urls;
    }
    if ((rc = prepare_job(&c, &run, urls, nurls, &job)) != 0)
        goto out;
    /* 'DIR/{crawlid}', as the workers take --out: the whole crawl's output goes there */
    outdir = c.out ? rc_crawlid_subst(c.out, job.crawlid) : rc_xasprintf("redcrawl-out/%s", job.crawlid);
    run.outdir = outdir;
    if (!c.redis && (run.lock_fd = lock_out(outdir)) < 0) {
        rc = 2;
        goto out;
    }
    if (!run.resuming && claim_out(&run, outdir, &job, urls, nurls) < 0) {
        rc = 2;
        goto out;
    }
    rc = run_crawl(&run, &pr, &job, t0);
out:
    rc_insched_stop(run.sched);
    if (run.r)
        rc_redis_free(run.r);
    if (pr.pid)
        rc_private_redis_stop(&pr);
    if (run.pausable && run.ended && strcmp(run.ended, RC_RESUME_FINISHED) == 0)
        rc_resume_drop_redis(outdir); /* a finished crawl's state: nothing to resume */
    if (run.recheck && run.ended && strcmp(run.ended, RC_RESUME_FINISHED) == 0)
        unlink(run.recheck);
    if (run.lock_fd >= 0)
        rc_resume_unlock(outdir, run.lock_fd); /* the children, gone, held it too */
    free(run.worker_bin);
    free(run.pages_path);
    free(run.recheck);
    free(run.workers);
    free(run.seen_ms);
    free_args(run.wargv);
    free(outdir);
    rc_job_release(&job);
    rc_seedlist_free(run.seeds);
    rc_resume_release(&run.saved);
    rc_conf_release(rows, NROWS, &c);
    return rc;
}
