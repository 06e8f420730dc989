/* redcrawl-worker: fetches, parses and stores pages. See worker.h. */
#include <curl/curl.h>
#include <ev.h>
#include <malloc.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "log.h"
#include "shard.h"
#include "netguard.h"
#include "page.h"
#include "redis.h"
#include "util.h"
#include "worker.h"

static const rc_conf_row rows[] = {
    {"redis", RC_CONF_STR, offsetof(rc_worker_conf, redis), NULL, 0, 0, "REDCRAWL_REDIS",
     "Redis URL (redis://HOST:PORT, rediss://HOST:PORT for TLS, or unix:///PATH)"},
    {"redis-locate-timeout", RC_CONF_DOUBLE, offsetof(rc_worker_conf, redis_locate_timeout), "0.5", 0.05, 5, NULL,
     "seconds each Redis node a reconnect tries may take to connect and answer (on a Redis Cluster, the nodes asked "
     "where the keyspace's master is after a failover): the event loop waits meanwhile, so a node that does not "
     "answer costs this, not 5 s"},
    {"prefix", RC_CONF_STR, offsetof(rc_worker_conf, prefix), RC_DEFAULT_PREFIX, 0, 0, "REDCRAWL_PREFIX", "key prefix"},
    {"shards", RC_CONF_INT, offsetof(rc_worker_conf, shards), "1", 1, RC_SHARDS_MAX, "REDCRAWL_SHARDS",
     "shards of the keyspace (ARCHITECTURE.md \"Shards\"): links of other shards' hosts go to them"},
    {"shard", RC_CONF_INT, offsetof(rc_worker_conf, shard), "0", 0, RC_SHARDS_MAX - 1, "REDCRAWL_SHARD",
     "the shard this worker takes its URLs from (0 .. --shards - 1)"},
    {"log-level", RC_CONF_STR, offsetof(rc_worker_conf, log_level), "info", 0, 0, "REDCRAWL_LOG_LEVEL",
     "debug|info|warn|error"},
    {"id", RC_CONF_STR, offsetof(rc_worker_conf, id), NULL, 0, 0, "REDCRAWL_WORKER_ID",
     "worker id (default HOST-PID-RANDOM)"},
    {"out", RC_CONF_STR, offsetof(rc_worker_conf, out), NULL, 0, 0, "REDCRAWL_OUT",
     "JSON Lines output directory; {crawlid} is replaced (default redcrawl-out/{crawlid} unless --mongo or "
     "--firehose)"},
    {"warc-dir", RC_CONF_STR, offsetof(rc_worker_conf, warc_dir), NULL, 0, 0, "REDCRAWL_WARC_DIR",
     "WARC files of jobs with \"warc\": true; {crawlid} is replaced (default OUT/warc, else "
     "redcrawl-out/{crawlid}/warc)"},
    {"warc-size", RC_CONF_INT, offsetof(rc_worker_conf, warc_size), "1000000000", 1024, 1099511627776, NULL,
     "a WARC file is closed for the next one past this many bytes"},
    {"warc-gzip", RC_CONF_INT, offsetof(rc_worker_conf, warc_gzip), "1", 1, 9, NULL,
     "gzip level of WARC records (1: fastest; 6 saves about 14% for 2.5x the CPU)"},
    {"mongo", RC_CONF_STR, offsetof(rc_worker_conf, mongo), NULL, 0, 0, "REDCRAWL_MONGO",
     "MongoDB URI: page records and items are upserted there"},
    {"mongo-db", RC_CONF_STR, offsetof(rc_worker_conf, mongo_db), NULL, 0, 0, NULL,
     "MongoDB database (default: the URI's, else redcrawl)"},
    {"mongo-pages", RC_CONF_STR, offsetof(rc_worker_conf, mongo_pages), "pages", 0, 0, NULL,
     "MongoDB collection of page records"},
    {"mongo-items", RC_CONF_STR, offsetof(rc_worker_conf, mongo_items), "items_{spiderid}", 0, 0, NULL,
     "MongoDB collection of items ({spiderid} is replaced)"},
    {"kafka", RC_CONF_STR, offsetof(rc_worker_conf, kafka), NULL, 0, 0, "REDCRAWL_KAFKA",
     "Kafka brokers (for --firehose)"},
    {"topic-prefix", RC_CONF_STR, offsetof(rc_worker_conf, topic_prefix), "redcrawl", 0, 0, "REDCRAWL_TOPIC_PREFIX",
     "Kafka topic prefix"},
    {"firehose", RC_CONF_BOOL, offsetof(rc_worker_conf, firehose), "0", 0, 1, NULL,
     "also produce every stored document to <prefix>.crawled_firehose"},
    {"useragent", RC_CONF_STR, offsetof(rc_worker_conf, useragent), NULL, 0, 0, "REDCRAWL_USERAGENT",
     "User-Agent header"},
    {"poll-only", RC_CONF_BOOL, offsetof(rc_worker_conf, poll_only), "0", 0, 1, NULL,
     "ignore pub/sub nudges: take new work only on the poll timer (for latency comparisons)"},
    {"mark-recent", RC_CONF_BOOL, offsetof(rc_worker_conf, mark_recent), "0", 0, 1, "REDCRAWL_MARK_RECENT",
     "record every fetch in the fleet's \"fetched recently\" slots (rc:recent, 16 MiB in Redis), which "
     "skip_recent_hours reads; one BITFIELD per page"},
    {"cacert", RC_CONF_STR, offsetof(rc_worker_conf, cacert), NULL, 0, 0, "REDCRAWL_CACERT",
     "CA bundle (PEM) that verifies HTTPS servers (default: the system's; verification is never off)"},
    {"max-rate", RC_CONF_DOUBLE, offsetof(rc_worker_conf, max_rate), "0", 0, 1000000, "REDCRAWL_MAX_RATE",
     "pages/s started at most, 0 = no cap (HSET rc:ratecap ID N changes it at run time)"},
    {"cpu-cores", RC_CONF_DOUBLE, offsetof(rc_worker_conf, cpu_cores), "0", 0, 1024, "REDCRAWL_CPU_CORES",
     "CPU this worker may use, in cores: it takes no new URLs while it used more over the last second, and its "
     "heartbeat's CPU headroom is measured against it (0 = the CPUs it may run on, no cap)"},
    {"concurrency", RC_CONF_INT, offsetof(rc_worker_conf, concurrency), "64", 1, 10000, "REDCRAWL_CONCURRENCY",
     "transfers at once"},
    {"keep-connections", RC_CONF_INT, offsetof(rc_worker_conf, keep_connections), "1024", 0, 1000000,
     "REDCRAWL_KEEP_CONNECTIONS",
     "connections kept open for reuse, at least --concurrency and at most half the open-file limit: a host is "
     "fetched again over its connection while fewer other hosts were fetched meanwhile (with --connect-to to a "
     "host name or with --resolve: --concurrency)"},
    {"max-body", RC_CONF_INT, offsetof(rc_worker_conf, max_body), "10485760", 1024, 1073741824, NULL,
     "bytes kept of a body"},
    {"max-links", RC_CONF_INT, offsetof(rc_worker_conf, max_links), "2000", 0, 1000000, NULL,
     "links taken from one page"},
    {"seen-cache", RC_CONF_INT, offsetof(rc_worker_conf, seen_cache), "1000000", 1024, 1000000000, NULL,
     "URLs remembered locally in front of the Redis bloom"},
    {"parse-threads", RC_CONF_INT, offsetof(rc_worker_conf, parse_threads), "-1", -1, RC_PAGE_THREADS_MAX,
     "REDCRAWL_PARSE_THREADS",
     "threads that parse pages, several at once, off the event loop so a huge page never stalls transfers and "
     "heartbeats (-1 = one per CPU it may run on, 0 = on the event loop)"},
    {"max-attempts", RC_CONF_INT, offsetof(rc_worker_conf, max_attempts), "3", 1, 100, NULL,
     "fetch attempts before a URL fails"},
    {"delay", RC_CONF_DOUBLE, offsetof(rc_worker_conf, delay), "1.0", 0, 3600, "REDCRAWL_DELAY",
     "seconds between hits on one domain"},
    {"robots-delay", RC_CONF_DOUBLE, offsetof(rc_worker_conf, robots_delay), NULL, 0, 3600, "REDCRAWL_ROBOTS_DELAY",
     "seconds from a host's robots.txt fetch to its first page, when shorter than the host's delay (default: the "
     "host's delay, as between pages; Crawl-delay still spaces the pages)"},
    {"connect-timeout", RC_CONF_DOUBLE, offsetof(rc_worker_conf, connect_timeout), "10", 0.1, 600, NULL,
     "connect timeout, seconds"},
    {"timeout", RC_CONF_DOUBLE, offsetof(rc_worker_conf, timeout), "30", 0.1, 3600, NULL,
     "whole-transfer timeout, seconds"},
    {"low-speed-limit", RC_CONF_INT, offsetof(rc_worker_conf, low_speed_limit), "100", 0, 100000000, NULL,
     "bytes/s under which a transfer, for --low-speed-time, fails (0 = off)"},
    {"low-speed-time", RC_CONF_DOUBLE, offsetof(rc_worker_conf, low_speed_time), "15", 1, 3600, NULL,
     "seconds below --low-speed-limit before a transfer fails"},
    {"lease-seconds", RC_CONF_DOUBLE, offsetof(rc_worker_conf, lease_seconds), "120", 5, 86400, NULL,
     "in-flight lease before a URL is handed out again"},
    {"step-batch", RC_CONF_INT, offsetof(rc_worker_conf, step_batch), "64", 1, 64, "REDCRAWL_STEP_BATCH",
     "completes sent together in one Redis call (step.lua, with the take and the heartbeat; at most 4 such calls in "
     "flight); 1 = one complete.lua call per page, take.lua and hb.lua on their own"},
    {"step-wait", RC_CONF_DOUBLE, offsetof(rc_worker_conf, step_wait), "0", 0, 0.1, "REDCRAWL_STEP_WAIT",
     "seconds a busy worker's finished pages and take wait for others to share their Redis call (0: those finished "
     "in one turn of the loop, or while 4 calls are in flight, go together; a worker with nothing else being "
     "fetched or parsed sends at once)"},
    {"heartbeat", RC_CONF_DOUBLE, offsetof(rc_worker_conf, heartbeat), "1", 0.1, 60, NULL, "heartbeat period, seconds"},
    {"watchdog", RC_CONF_DOUBLE, offsetof(rc_worker_conf, watchdog), "60", 0, 86400, "REDCRAWL_WATCHDOG",
     "seconds the event loop may be blocked (a hung disk, a lock, a bug) before the worker exits with status 70 "
     "for its supervisor to start a fresh one; a stop of the whole process (SIGSTOP, a paused VM) does not count "
     "(0 = never)"},
    {"tree", RC_CONF_STR, offsetof(rc_worker_conf, tree), "light", 0, 0, "REDCRAWL_TREE",
     "the tree of a page whose job has no XPath rules (main text, content dedup): light (htmltree.c, a tree "
     "builder on the streaming tokenizer) or gumbo; jobs with rules always use gumbo"},
    {"fsync", RC_CONF_STR, offsetof(rc_worker_conf, fsync), "none", 0, 0, "REDCRAWL_FSYNC",
     "JSON Lines: fdatasync none, batch (a sync thread's, shared by the pages written meanwhile, before their "
     "acknowledgement) or per record"},
    {"recheck", RC_CONF_STR, offsetof(rc_worker_conf, recheck), NULL, 0, 0, NULL,
     "a file of _ids, one a line: a page with one of them is looked up in the sinks before it is stored, as a "
     "redelivery is (redcrawl crawl --resume after a crash that lost Redis' last writes)"},
    {"fence", RC_CONF_DOUBLE, offsetof(rc_worker_conf, fence), "2", 0.2, 3600, NULL,
     "store a page only within this many seconds of an accepted heartbeat (keep it below the scheduler's "
     "--worker-timeout)"},
    {"robots", RC_CONF_BOOL, offsetof(rc_worker_conf, robots), "1", 0, 1, "REDCRAWL_ROBOTS",
     "obey robots.txt (--robots=0 to ignore it)"},
    {"robots-ttl", RC_CONF_DOUBLE, offsetof(rc_worker_conf, robots_ttl), "86400", 60, 2592000, NULL,
     "seconds a robots.txt is cached in Redis"},
    {"robots-cache", RC_CONF_INT, offsetof(rc_worker_conf, robots_cache), "20000", 16, 100000000, NULL,
     "origins whose robots.txt rules the worker keeps in memory (the least recently used go; Redis holds them "
     "all)"},
    {"max-crawl-delay", RC_CONF_DOUBLE, offsetof(rc_worker_conf, max_crawl_delay), "30", 0, 3600, NULL,
     "cap on a site's Crawl-delay, seconds"},
    {"delay-factor", RC_CONF_DOUBLE, offsetof(rc_worker_conf, delay_factor), "2", 0, 100, NULL,
     "wait at least this many times the last response time between hits"},
    {"max-delay", RC_CONF_DOUBLE, offsetof(rc_worker_conf, max_delay), "60", 0.1, 86400, NULL,
     "cap on adaptive delays and back-offs, seconds"},
    {"park-after", RC_CONF_INT, offsetof(rc_worker_conf, park_after), "3", 1, 1000, NULL,
     "connection failures in a row before a host is parked"},
    {"connect-to", RC_CONF_LIST, offsetof(rc_worker_conf, connect_to), NULL, 0, 0, "REDCRAWL_CONNECT_TO",
     "HOST:PORT:ADDR:PORT, curl's --connect-to (empty HOST or PORT matches any)"},
    {"resolve", RC_CONF_LIST, offsetof(rc_worker_conf, resolve), NULL, 0, 0, NULL,
     "HOST:PORT:ADDR[,ADDR...], curl's --resolve: this host's address, never looked up (the SSRF guard still "
     "checks it)"},
    {"dns-cache", RC_CONF_INT, offsetof(rc_worker_conf, dns_cache), "100000", 0, 100000000, NULL,
     "hosts in the worker's own DNS cache (0 = libcurl's, scanned on every transfer; not used with --connect-to)"},
    {"dns-ttl", RC_CONF_DOUBLE, offsetof(rc_worker_conf, dns_ttl), "300", 1, 86400, NULL,
     "seconds an address the worker learnt for a host is used before it is looked up again"},
    {"allow-net", RC_CONF_LIST, offsetof(rc_worker_conf, allow_net), NULL, 0, 0, "REDCRAWL_ALLOW_NET",
     "CIDR let through the SSRF guard (loopback, private, link-local... are refused otherwise)"},
    {"metrics-port", RC_CONF_INT, offsetof(rc_worker_conf, metrics_port), "-1", -1, 65535, "REDCRAWL_METRICS_PORT",
     "serve Prometheus metrics on this port (-1 = off, 0 = a free one, logged)"},
    {"metrics-addr", RC_CONF_STR, offsetof(rc_worker_conf, metrics_addr), "127.0.0.1", 0, 0, "REDCRAWL_METRICS_ADDR",
     "address the metrics port binds (0.0.0.0 in a container)"},
    {"allow-port", RC_CONF_LIST, offsetof(rc_worker_conf, allow_port), NULL, 0, 0, "REDCRAWL_ALLOW_PORT",
     "the only ports fetched (default any)"},
};
#define NROWS (sizeof rows / sizeof rows[0])

static rc_worker *the_worker;

static void on_signal(struct ev_loop *loop, ev_signal *s, int revents)
{
    rc_worker_drain(the_worker);
}

/* Every page's body (tens of KB) is allocated on the loop, freed after its parse, and is often
 * the chunk at the top of the heap: with glibc's default 128 KB trim threshold that free gave the
 * memory back (brk, and a TLB shootdown on the parse threads' cores) and the next body faulted
 * it in again, page by page: a tenth of the loop thread's CPU in a link-only crawl. Up to
 * RC_HEAP_TOP_KEEP of free heap stays mapped instead. Setting it turns off glibc's dynamic mmap
 * threshold (which rose past the largest body freed), so it is set too: bodies up to
 * RC_HEAP_MMAP_FROM come from the heap, larger ones are mapped for themselves. */
#define RC_HEAP_TOP_KEEP (4 * 1024 * 1024)
#define RC_HEAP_MMAP_FROM (1024 * 1024)
static void keep_heap_top(void)
{
    mallopt(M_MMAP_THRESHOLD, RC_HEAP_MMAP_FROM);
    mallopt(M_TRIM_THRESHOLD, RC_HEAP_TOP_KEEP);
}

int main(int argc, char **argv)
{
    rc_worker_conf conf;
    char err[512];
    int optind = 0, rc;
    memset(&conf, 0, sizeof conf);
    conf.robots_delay = -1; /* unset: the host's own delay; the table only accepts 0 and up */
    if (rc_conf_cmdline(
            rows, NROWS, &conf, argc, argv, "redcrawl-worker",
            "usage: redcrawl-worker [options]\n\nFetches, parses and stores pages from its Redis queues.\n\n", &optind,
            &rc))
        return rc;
    rc = 2;
    if (optind < argc) {
        fprintf(stderr, "redcrawl-worker: unexpected argument '%s' (see --help)\n", argv[optind]);
        goto out;
    }
    if (!conf.redis) {
        fprintf(stderr, "redcrawl-worker: no Redis: pass --redis URL or set REDCRAWL_REDIS\n");
        goto out;
    }
    if (rc_log_set_level(conf.log_level) < 0) {
        fprintf(stderr, "redcrawl-worker: --log-level: '%s' is not debug, info, warn or error\n", conf.log_level);
        goto out;
    }
    for (size_t i = 0; i < conf.allow_net.n; i++) {
        if (rc_netguard_check_cidr(conf.allow_net.v[i], err, sizeof err) < 0) {
            fprintf(stderr, "redcrawl-worker: --allow-net: %s\n", err);
            goto out;
        }
    }
    for (size_t i = 0; i < conf.connect_to.n; i++) {
        if (rc_netguard_check_connect_to(conf.connect_to.v[i], err, sizeof err) < 0) {
            fprintf(stderr, "redcrawl-worker: --connect-to: %s\n", err);
            goto out;
        }
    }
    for (size_t i = 0; i < conf.resolve.n; i++) {
        if (rc_netguard_check_resolve(conf.resolve.v[i], err, sizeof err) < 0) {
            fprintf(stderr, "redcrawl-worker: --resolve: %s\n", err);
            goto out;
        }
    }
    if (conf.parse_threads < 0) /* every core parses; more threads than that would only wait */
        conf.parse_threads = RC_MIN(rc_cpus(), RC_PAGE_THREADS_MAX);
    signal(SIGPIPE, SIG_IGN);
    keep_heap_top();
    struct ev_loop *loop = EV_DEFAULT;
    the_worker = rc_worker_new(loop, &conf, err, sizeof err);
    if (!the_worker) {
        fprintf(stderr, "redcrawl-worker: %s\n", err);
        rc = 1;
        goto out;
    }
    ev_signal sigterm, sigint;
    ev_signal_init(&sigterm, on_signal, SIGTERM);
    ev_signal_init(&sigint, on_signal, SIGINT);
    ev_signal_start(loop, &sigterm);
    ev_signal_start(loop, &sigint);
    rc_worker_start(the_worker);
    ev_run(loop, 0);
    rc_worker_free(the_worker);
    rc = 0;
out:
    rc_conf_release(rows, NROWS, &conf);
    return rc;
}
