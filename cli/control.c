/* control.c - `redcrawl submit | info | stop | stats | domain`: builds a Scrapy Cluster request,
 * validates it with rc_msg_parse and either
 * - produces it to <topic-prefix>.incoming and waits for the answer carrying its uuid on
 *   <topic-prefix>.outbound_firehose (--kafka BROKERS or REDCRAWL_KAFKA), or
 * - applies it to Redis directly through rc_control (embedded mode: REDCRAWL_REDIS),
 * so both ways validate alike and print the same answer. The answer is printed readably, or as
 * the JSON received with --json (one line per request).
 *
 * `submit` with several URLs sends one crawl request per URL (same crawlid; the first creates the
 * job). --maxdepth takes -1 (no limit) to 1000 over Kafka and in embedded mode alike. */
#include <errno.h>
#include <fcntl.h>
#include <hiredis/hiredis.h>
#include <signal.h>
#include <jansson.h>
#include <librdkafka/rdkafka.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "kafka_conf.h"
#include "config.h"
#include "control.h"
#include "control_shards.h"
#include "domain.h"
#include "msg.h"
#include "progress.h"
#include "redis.h"
#include "shard.h"
#include "url.h"
#include "util.h"

typedef struct ctl_conf {
    char *redis;
    char *prefix;
    int64_t shards;
    char *kafka;
    char *topic_prefix;
    double timeout;
    int json;
    char *appid;
    char *uuid;
    char *spiderid;
    char *crawlid;
    char *priority;
    char *maxdepth;
    char *max_pages;
    char *expires;
    char *useragent;
    rc_strlist allowed;
    char *raw;
    char *hits;
    char *window;
    char *scale;
    int wait;
} ctl_conf;

/* The common rows, aligned by hand: */
/* clang-format off */
#define ROW_STR(name, field, def, env, help) {name, RC_CONF_STR, offsetof(ctl_conf, field), def, 0, 0, env, help}
#define COMMON_ROWS                                                                                                \
    ROW_STR("kafka", kafka, NULL, "REDCRAWL_KAFKA", "Kafka brokers (host:port,...): send the request there"),       \
        ROW_STR("topic-prefix", topic_prefix, RC_TOPIC_PREFIX_DEFAULT, "REDCRAWL_TOPIC_PREFIX",                     \
                "topics are PREFIX.incoming and PREFIX.outbound_firehose"),                                         \
        {"timeout", RC_CONF_DOUBLE, offsetof(ctl_conf, timeout), "30", 0.1, 3600, NULL,                             \
         "seconds to wait for the answer (Kafka)"},                                                                 \
        ROW_STR("redis", redis, NULL, "REDCRAWL_REDIS", "Redis URL, used without --kafka (embedded mode)"),         \
        ROW_STR("prefix", prefix, RC_DEFAULT_PREFIX, "REDCRAWL_PREFIX", "Redis key prefix (embedded mode)"),        \
        {"shards", RC_CONF_INT, offsetof(ctl_conf, shards), "1", 1, RC_SHARDS_MAX, "REDCRAWL_SHARDS",               \
         "shards of the keyspace (embedded mode): a seed goes to its host's, anything else to every one"},          \
        {"json", RC_CONF_BOOL, offsetof(ctl_conf, json), "0", 0, 1, NULL, "print the answer as JSON"},              \
        ROW_STR("appid", appid, "redcrawl-cli", NULL, "application id (3-40 characters)"),                          \
        ROW_STR("uuid", uuid, NULL, NULL, "request id (default: a random UUID)")
/* clang-format on */

static const rc_conf_row submit_rows[] = {
    COMMON_ROWS,
    ROW_STR("crawlid", crawlid, NULL, NULL, "job id (1-40 characters, required)"),
    ROW_STR("spiderid", spiderid, NULL, NULL, "spider type (default link)"),
    ROW_STR("priority", priority, NULL, NULL, "1-100 (default 1)"),
    ROW_STR("maxdepth", maxdepth, NULL, NULL, "follow links this deep, -1 (no limit) to 1000 (default 0)"),
    ROW_STR("max-pages", max_pages, NULL, NULL, "stop the job after this many pages"),
    ROW_STR("expires", expires, NULL, NULL, "unix time when the job expires, or +SECONDS from now"),
    ROW_STR("useragent", useragent, NULL, NULL, "User-Agent for this job"),
    {"allowed-domain", RC_CONF_LIST, offsetof(ctl_conf, allowed), NULL, 0, 0, NULL,
     "follow links only into this domain (default: the seeds' registrable domains)"},
    ROW_STR("raw", raw, NULL, NULL, "send this JSON request as it is (a uuid is added to a crawl without one)"),
};

static const rc_conf_row info_rows[] = {
    COMMON_ROWS,
    ROW_STR("spiderid", spiderid, "link", NULL, "spider type"),
};

static const rc_conf_row stop_rows[] = {
    COMMON_ROWS,
    ROW_STR("spiderid", spiderid, "link", NULL, "spider type"),
    {"wait", RC_CONF_BOOL, offsetof(ctl_conf, wait), "0", 0, 1, NULL,
     "then wait (up to --timeout more) until the job's pages in flight are done; reads --redis"},
};

static const rc_conf_row stats_rows[] = {COMMON_ROWS};

static const rc_conf_row domain_rows[] = {
    COMMON_ROWS,
    ROW_STR("hits", hits, NULL, NULL, "update: requests allowed per window"),
    ROW_STR("window", window, NULL, NULL, "update: the window, seconds"),
    ROW_STR("scale", scale, NULL, NULL, "update: scale the hits by this factor, 0-1 (default 1)"),
};

struct cmd {
    const char *name;
    const char *usage;
    const rc_conf_row *rows;
    size_t nrows;
};

/* One request to send, with what the command line adds. */
struct req {
    char *json; /* the request as sent */
    char uuid[RC_MSG_ID_BUF];
    char *answer; /* the answer received */
};

/* ---- arguments ----------------------------------------------------------------------------- */

/* Options anywhere among the positional arguments ("--" ends the options). Returns the number
 * of positional arguments stored in pos (at most maxpos), or -1 after printing an error. */
static int parse_args(const struct cmd *cmd, ctl_conf *c, int argc, char **argv, char **pos, int maxpos)
{
    char err[512];
    int oi = 0, n = 0;
    if (rc_conf_init(cmd->rows, cmd->nrows, c, err, sizeof err) < 0)
        goto fail;
    if (rc_conf_argv(cmd->rows, cmd->nrows, c, argc, argv, &oi, err, sizeof err) < 0)
        goto fail;
    for (int at = oi; at < argc; at++) {
        if (n == maxpos)
            goto too_many;
        pos[n++] = argv[at];
    }
    return n;
too_many:
    snprintf(err, sizeof err, "too many arguments (see --help)");
fail:
    fprintf(stderr, "redcrawl %s: %s\n", cmd->name, err);
    return -1;
}

static int want_help(int argc, char **argv, const struct cmd *cmd)
{
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0)
            break;
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            printf("usage: redcrawl %s %s\n\n", cmd->name, cmd->usage);
            rc_conf_usage(stdout, cmd->rows, cmd->nrows);
            return 1;
        }
    }
    return 0;
}

static void new_uuid(char out[37])
{
    unsigned char b[16];
    if (getrandom(b, sizeof b, 0) != (ssize_t)sizeof b) {
        uint64_t t = rc_now_us() ^ ((uint64_t)getpid() << 32);
        for (size_t i = 0; i < sizeof b; i++)
            b[i] = (unsigned char)(t >> ((i % 8) * 8)) ^ (unsigned char)(i * 37);
    }
    b[6] = (unsigned char)((b[6] & 0x0f) | 0x40);
    b[8] = (unsigned char)((b[8] & 0x3f) | 0x80);
    snprintf(out, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1], b[2], b[3],
             b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
}

/* A number as typed becomes a JSON number; anything else is sent as a string, so that the
 * request's validation names the field and the reason, as it would for any client. */
static json_t *number_or_string(const char *s)
{
    int64_t i;
    double d;
    if (rc_parse_i64(s, INT64_MIN, INT64_MAX, &i) == 0)
        return json_integer(i);
    if (rc_parse_double(s, -1e300, 1e300, &d) == 0)
        return json_real(d);
    return json_string(s);
}

static void set_opt_number(json_t *o, const char *field, const char *value)
{
    if (value)
        json_object_set_new(o, field, number_or_string(value));
}

static void req_init(struct req *r, json_t *doc, const ctl_conf *c, int index)
{
    memset(r, 0, sizeof *r);
    json_t *u = json_object_get(doc, "uuid");
    if (json_is_string(u)) {
        snprintf(r->uuid, sizeof r->uuid, "%s", json_string_value(u));
    } else if (!u) {
        if (c->uuid && index == 0)
            snprintf(r->uuid, sizeof r->uuid, "%s", c->uuid);
        else
            new_uuid(r->uuid);
        json_object_set_new(doc, "uuid", json_string(r->uuid));
    }
    r->json = json_dumps(doc, JSON_COMPACT | JSON_PRESERVE_ORDER);
    if (!r->json)
        abort();
}

static void reqs_free(struct req *rs, int n)
{
    if (!rs)
        return;
    for (int i = 0; i < n; i++) {
        free(rs[i].json);
        free(rs[i].answer);
    }
    free(rs);
}

/* ---- Kafka --------------------------------------------------------------------------------- */

struct kstate {
    char last_error[512];
    int delivered, failed;
};

static void k_error_cb(rd_kafka_t *rk, int err, const char *reason, void *opaque)
{
    struct kstate *ks = opaque;
    snprintf(ks->last_error, sizeof ks->last_error, "%s: %s", rd_kafka_err2name((rd_kafka_resp_err_t)err), reason);
}

static void k_log_cb(const rd_kafka_t *rk, int level, const char *fac, const char *buf)
{
    /* Quiet: errors reach the user through error_cb and the timeout message. */
}

static void k_dr_cb(rd_kafka_t *rk, const rd_kafka_message_t *m, void *opaque)
{
    struct kstate *ks = opaque;
    if (m->err) {
        ks->failed++;
        snprintf(ks->last_error, sizeof ks->last_error, "delivery failed: %s", rd_kafka_err2str(m->err));
    } else {
        ks->delivered++;
    }
}

static rd_kafka_conf_t *k_conf(const ctl_conf *c, struct kstate *ks, char *err, size_t cap)
{
    rd_kafka_conf_t *kc = rd_kafka_conf_new();
    if (rd_kafka_conf_set(kc, "bootstrap.servers", c->kafka, err, cap) != RD_KAFKA_CONF_OK ||
        rd_kafka_conf_set(kc, "client.id", "redcrawl-cli", err, cap) != RD_KAFKA_CONF_OK ||
        rc_kafka_conf_from_env(kc, err, cap) < 0) {
        rd_kafka_conf_destroy(kc);
        return NULL;
    }
    rd_kafka_conf_set_opaque(kc, ks);
    rd_kafka_conf_set_error_cb(kc, k_error_cb);
    rd_kafka_conf_set_log_cb(kc, k_log_cb);
    return kc;
}

static int remaining_ms(uint64_t deadline)
{
    uint64_t now = rc_mono_ms();
    return now >= deadline ? 0 : (int)RC_MIN(deadline - now, (uint64_t)INT32_MAX);
}

/* The answers consumer: assigned (no group membership) to every partition of the firehose at its
 * current end, so that it sees exactly what comes after the requests. A firehose that does not
 * exist yet is read from its beginning once it does. */
static rd_kafka_t *answers_consumer(const ctl_conf *c, struct kstate *ks, const char *topic, uint64_t deadline,
                                    char *err, size_t cap)
{
    rd_kafka_conf_t *kc = k_conf(c, ks, err, cap);
    if (!kc)
        return NULL;
    char group[64], id[37];
    new_uuid(id);
    snprintf(group, sizeof group, "redcrawl-cli-%s", id);
    if (rd_kafka_conf_set(kc, "group.id", group, err, cap) != RD_KAFKA_CONF_OK ||
        rd_kafka_conf_set(kc, "enable.auto.commit", "false", err, cap) != RD_KAFKA_CONF_OK ||
        rd_kafka_conf_set(kc, "enable.auto.offset.store", "false", err, cap) != RD_KAFKA_CONF_OK ||
        rd_kafka_conf_set(kc, "topic.metadata.refresh.interval.ms", "1000", err, cap) != RD_KAFKA_CONF_OK) {
        rd_kafka_conf_destroy(kc);
        return NULL;
    }
    rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_CONSUMER, kc, err, cap);
    if (!rk) {
        rd_kafka_conf_destroy(kc);
        return NULL;
    }
    rd_kafka_topic_t *rkt = rd_kafka_topic_new(rk, topic, NULL);
    const struct rd_kafka_metadata *md = NULL;
    rd_kafka_resp_err_t e = rd_kafka_metadata(rk, 0, rkt, &md, RC_MAX(remaining_ms(deadline), 1));
    rd_kafka_topic_destroy(rkt);
    if (e) {
        rd_kafka_poll(rk, 0); /* serves the error callback: e.g. why authentication failed */
        snprintf(err, cap, "Kafka at %s: no metadata for %s: %s%s%s", c->kafka, topic, rd_kafka_err2str(e),
                 ks->last_error[0] ? "; " : "", ks->last_error);
        rd_kafka_destroy(rk);
        return NULL;
    }
    rd_kafka_topic_partition_list_t *parts = rd_kafka_topic_partition_list_new(4);
    int nparts = md->topic_cnt == 1 && !md->topics[0].err ? md->topics[0].partition_cnt : 0;
    for (int i = 0; i < nparts; i++) {
        int32_t p = md->topics[0].partitions[i].id;
        int64_t lo = 0, hi = 0;
        e = rd_kafka_query_watermark_offsets(rk, topic, p, &lo, &hi, RC_MAX(remaining_ms(deadline), 1));
        if (e) {
            snprintf(err, cap, "Kafka at %s: cannot read the end of %s [%d]: %s", c->kafka, topic, (int)p,
                     rd_kafka_err2str(e));
            rd_kafka_metadata_destroy(md);
            rd_kafka_topic_partition_list_destroy(parts);
            rd_kafka_destroy(rk);
            return NULL;
        }
        rd_kafka_topic_partition_list_add(parts, topic, p)->offset = hi;
    }
    if (nparts == 0)
        rd_kafka_topic_partition_list_add(parts, topic, 0)->offset = RD_KAFKA_OFFSET_BEGINNING;
    rd_kafka_metadata_destroy(md);
    e = rd_kafka_assign(rk, parts);
    rd_kafka_topic_partition_list_destroy(parts);
    if (e) {
        snprintf(err, cap, "Kafka: assign %s: %s", topic, rd_kafka_err2str(e));
        rd_kafka_destroy(rk);
        return NULL;
    }
    return rk;
}

/* A wait for answers longer than a second says so on a terminal, once a second, on one line.
 * Returns when it last drew (0: not yet). */
static uint64_t show_wait(const char *cmdname, int missing, uint64_t start, double timeout, uint64_t shown)
{
    uint64_t now = rc_mono_ms();
    if (now - start < 1000 || (shown && now - shown < 1000) || !isatty(STDERR_FILENO))
        return shown;
    fprintf(stderr, "\rredcrawl %s: waiting for %d answer%s from redcrawl-monitor: %.0f s of %.0f s", cmdname, missing,
            missing == 1 ? "" : "s", (double)(now - start) / 1000.0, timeout);
    fflush(stderr);
    return now;
}

static int send_kafka(const ctl_conf *c, const char *cmdname, struct req *rs, int n)
{
    char err[1024], in_topic[300], out_topic[300];
    struct kstate ks;
    memset(&ks, 0, sizeof ks);
    snprintf(in_topic, sizeof in_topic, "%s.%s", c->topic_prefix, RC_TOPIC_INCOMING);
    snprintf(out_topic, sizeof out_topic, "%s.%s", c->topic_prefix, RC_TOPIC_FIREHOSE);
    uint64_t deadline = rc_mono_ms() + (uint64_t)(c->timeout * 1000);
    int rc = 1, answered = 0;
    rd_kafka_t *prod = NULL;
    rd_kafka_t *cons = answers_consumer(c, &ks, out_topic, deadline, err, sizeof err);
    if (!cons) {
        fprintf(stderr, "redcrawl %s: %s\n", cmdname, err);
        return 1;
    }
    rd_kafka_conf_t *kc = k_conf(c, &ks, err, sizeof err);
    if (kc) {
        rd_kafka_conf_set_dr_msg_cb(kc, k_dr_cb);
        prod = rd_kafka_new(RD_KAFKA_PRODUCER, kc, err, sizeof err);
        if (!prod)
            rd_kafka_conf_destroy(kc);
    }
    if (!prod) {
        fprintf(stderr, "redcrawl %s: Kafka producer: %s\n", cmdname, err);
        goto out;
    }
    for (int i = 0; i < n; i++) {
        rd_kafka_resp_err_t e =
            rd_kafka_producev(prod, RD_KAFKA_V_TOPIC(in_topic), RD_KAFKA_V_VALUE(rs[i].json, strlen(rs[i].json)),
                              RD_KAFKA_V_MSGFLAGS(RD_KAFKA_MSG_F_COPY), RD_KAFKA_V_END);
        if (e) {
            fprintf(stderr, "redcrawl %s: cannot produce to %s: %s\n", cmdname, in_topic, rd_kafka_err2str(e));
            goto out;
        }
    }
    rd_kafka_flush(prod, RC_MAX(remaining_ms(deadline), 1));
    if (ks.delivered < n) {
        fprintf(stderr, "redcrawl %s: the request did not reach Kafka at %s within %.1f s%s%s\n", cmdname, c->kafka,
                c->timeout, ks.last_error[0] ? ": " : "", ks.last_error);
        goto out;
    }
    uint64_t wait_start = deadline - (uint64_t)(c->timeout * 1000), shown = 0; /* the command's start */
    while (answered < n && remaining_ms(deadline) > 0) {
        shown = show_wait(cmdname, n - answered, wait_start, c->timeout, shown);
        rd_kafka_message_t *m = rd_kafka_consumer_poll(cons, RC_MIN(remaining_ms(deadline), 200));
        if (!m)
            continue;
        if (!m->err && m->payload) {
            json_t *doc = json_loadb(m->payload, m->len, 0, NULL);
            const char *u = json_string_value(json_object_get(doc, "uuid"));
            for (int i = 0; u && i < n; i++) {
                if (!rs[i].answer && strcmp(rs[i].uuid, u) == 0) {
                    rs[i].answer = rc_xstrndup(m->payload, m->len);
                    answered++;
                    break;
                }
            }
            json_decref(doc);
        }
        rd_kafka_message_destroy(m);
    }
    if (shown)
        fputs("\r\033[K", stderr); /* the progress line goes; what follows starts clean */
    if (answered < n) {
        fprintf(stderr, "redcrawl %s: no answer on %s within %.1f s (is redcrawl-monitor running?)%s%s\n", cmdname,
                out_topic, c->timeout, ks.last_error[0] ? "; last Kafka error: " : "", ks.last_error);
        goto out;
    }
    rc = 0;
out:
    if (prod)
        rd_kafka_destroy(prod);
    rd_kafka_consumer_close(cons);
    rd_kafka_destroy(cons);
    return rc;
}

/* ---- embedded ------------------------------------------------------------------------------ */

/* The connections to the shards, each made on first use. */
struct shard_conns {
    const ctl_conf *c;
    rc_redis *conns[RC_SHARDS_MAX];
};

/* The connection to shard i, made on first use. NULL with a message in err. */
static rc_redis *shard_conn(const ctl_conf *c, rc_redis **conns, int i, char *err, size_t cap)
{
    char prefix[256];
    if (!conns[i] && rc_shard_prefix(c->prefix, i, (int)c->shards, prefix, sizeof prefix) < 0) {
        snprintf(err, cap, "--prefix '%s' has a hash tag: a sharded keyspace makes its own", c->prefix);
        return NULL;
    }
    if (!conns[i])
        conns[i] = rc_redis_new(c->redis, prefix, err, cap);
    return conns[i];
}

static rc_redis *conn_of(void *ud, int i, char *err, size_t cap)
{
    struct shard_conns *sc = ud;
    return shard_conn(sc->c, sc->conns, i, err, cap);
}

/* Each request applied as rc_control_shards_handle routes it (shared/control_shards.h): over
 * --shards K a crawl request to its seed's shard, anything else to every shard. */
static int send_embedded(const ctl_conf *c, const char *cmdname, struct req *rs, int n)
{
    char err[512];
    if (!c->redis) {
        fprintf(stderr,
                "redcrawl %s: neither Kafka nor Redis: pass --kafka BROKERS or --redis URL, or set REDCRAWL_KAFKA "
                "or REDCRAWL_REDIS (eval \"$(scripts/services.sh start redis)\")\n",
                cmdname);
        return 2;
    }
    struct shard_conns sc = {.c = c};
    int rc = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        if (rc_control_shards_handle((int)c->shards, conn_of, &sc, rs[i].json, strlen(rs[i].json), &rs[i].answer, err,
                                     sizeof err) < 0) {
            fprintf(stderr, "redcrawl %s: %s\n", cmdname, err);
            rc = 1;
        }
    }
    for (int s = 0; s < (int)c->shards; s++)
        rc_redis_free(sc.conns[s]);
    return rc;
}

/* ---- printing ------------------------------------------------------------------------------ */

static json_int_t jint(const json_t *o, const char *k)
{
    return json_integer_value(json_object_get(o, k));
}

static const char *jstr(const json_t *o, const char *k, const char *def)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : def;
}

static void print_domains(const json_t *doms)
{
    const char *h;
    json_t *d;
    if (json_object_size(doms) == 0)
        return;
    printf("  %-40s %8s %8s %8s\n", "DOMAIN", "QUEUED", "HIGH", "LOW");
    json_object_foreach ((json_t *)doms, h, d) {
        printf("  %-40s %8lld %8lld %8lld\n", h, (long long)jint(d, "total"), (long long)jint(d, "high_priority"),
               (long long)jint(d, "low_priority"));
    }
}

static void print_counters(const json_t *o)
{
    printf("  pending %lld, fetched %lld, items %lld, errors %lld, failed %lld, dropped %lld, retries %lld, purged "
           "%lld\n",
           (long long)jint(o, "pending"), (long long)jint(o, "fetched"), (long long)jint(o, "items"),
           (long long)jint(o, "errors"), (long long)jint(o, "failed"), (long long)jint(o, "dropped"),
           (long long)jint(o, "retries"), (long long)jint(o, "purged"));
    if (jint(o, "expires") > 0) {
        time_t t = (time_t)jint(o, "expires");
        struct tm tm;
        char buf[64];
        gmtime_r(&t, &tm);
        strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
        printf("  expires %s\n", buf);
    }
}

static void print_readable(const json_t *a)
{
    const char *action = jstr(a, "action", "");
    if (json_object_get(a, "field") ||
        (json_object_get(a, "error") && !json_object_get(a, "status") && json_is_null(json_object_get(a, "state")))) {
        /* an invalid request, or an info about a crawl that does not exist */
        fprintf(stderr, "redcrawl: %s\n", jstr(a, "error", "invalid request"));
        return;
    }
    if (strcmp(action, "crawl") == 0) {
        if (strcmp(jstr(a, "status", ""), "accepted") == 0)
            printf("job %s: %lld new URL(s) in the frontier: %s\n", jstr(a, "crawlid", "?"),
                   (long long)jint(a, "added"), jstr(a, "url", ""));
        else
            fprintf(stderr, "job %s refused %s: %s\n", jstr(a, "crawlid", "?"), jstr(a, "url", ""),
                    jstr(a, "error", "?"));
    } else if (strcmp(action, "info") == 0 && json_object_get(a, "crawlid")) {
        printf("job %s: %s, %lld queued URL(s) in %lld domain(s)\n", jstr(a, "crawlid", "?"),
               jstr(a, "state", "unknown"), (long long)jint(a, "total_pending"), (long long)jint(a, "total_domains"));
        print_counters(a);
        print_domains(json_object_get(a, "domains"));
    } else if (strcmp(action, "info") == 0) {
        printf("app %s, spider %s: %lld job(s), %lld queued URL(s) in %lld domain(s)\n", jstr(a, "appid", "?"),
               jstr(a, "spiderid", "?"), (long long)jint(a, "total_crawlids"), (long long)jint(a, "total_pending"),
               (long long)jint(a, "total_domains"));
        const char *cid;
        json_t *cr;
        json_object_foreach (json_object_get(a, "crawlids"), cid, cr) {
            printf("job %s: %s, %lld queued URL(s) in %lld domain(s)\n", cid, jstr(cr, "state", "unknown"),
                   (long long)jint(cr, "total"), (long long)jint(cr, "distinct_domains"));
            print_counters(cr);
        }
    } else if (strcmp(action, "stop") == 0) {
        if (!json_object_get(a, "error"))
            printf("job %s stopped: %lld queued URL(s) purged\n", jstr(a, "crawlid", "?"),
                   (long long)jint(a, "total_purged"));
    } else if (json_object_get(a, "domain")) {
        printf("%s %s", action, jstr(a, "domain", "?"));
        if (strcmp(action, "domain-update") == 0)
            printf(": %lld hits per %lld s, scale %g", (long long)jint(a, "hits"), (long long)jint(a, "window"),
                   json_number_value(json_object_get(a, "scale")));
        printf(" (%s)\n", json_is_true(json_object_get(a, "changed")) ? "changed" : "unchanged");
    } else {
        /* stats: the document itself is the most readable form */
        json_t *copy = json_deep_copy(a);
        json_object_del(copy, "uuid");
        char *s = json_dumps(copy, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        printf("%s\n", s ? s : "{}");
        free(s);
        json_decref(copy);
    }
    if (json_object_get(a, "error") && !json_object_get(a, "status"))
        fprintf(stderr, "redcrawl: %s\n", jstr(a, "error", "?"));
}

/* Sends the requests, prints the answers; the exit status. */
static int run(const ctl_conf *c, const char *cmdname, struct req *rs, int n)
{
    signal(SIGPIPE, SIG_IGN); /* a peer that goes away is an error to report, not a way to die */
    /* Validation first, the same both ways: an invalid request is not sent. */
    for (int i = 0; c->kafka && i < n; i++) {
        rc_msg m;
        rc_msg_error e;
        if (rc_msg_parse(rs[i].json, strlen(rs[i].json), &m, &e) < 0) {
            rs[i].answer = rc_msg_error_answer(&e);
            if (c->json) {
                printf("%s\n", rs[i].answer);
            } else {
                json_t *a = json_loads(rs[i].answer, 0, NULL);
                print_readable(a);
                json_decref(a);
            }
            return 1;
        }
        rc_msg_release(&m);
    }
    int rc = c->kafka ? send_kafka(c, cmdname, rs, n) : send_embedded(c, cmdname, rs, n);
    for (int i = 0; i < n; i++) {
        if (!rs[i].answer)
            continue;
        json_t *a = json_loads(rs[i].answer, 0, NULL);
        if (c->json)
            printf("%s\n", rs[i].answer);
        else if (a)
            print_readable(a);
        if (json_object_get(a, "error") && rc == 0)
            rc = 1;
        json_decref(a);
    }
    return rc;
}

/* ---- commands ------------------------------------------------------------------------------ */

static json_t *base_request(const ctl_conf *c)
{
    json_t *o = json_object();
    if (c->appid)
        json_object_set_new(o, "appid", json_string(c->appid));
    return o;
}

#define CMD(name, usage, rows)                                                                                         \
    {                                                                                                                  \
        name, usage, rows, RC_ARRAY_LEN(rows)                                                                          \
    }

/* submit --raw JSON: the request as given (a crawl without a uuid gets one, else no answer). */
static struct req *raw_request(const ctl_conf *c)
{
    struct req *rs = rc_xcalloc(1, sizeof *rs);
    json_t *doc = json_loads(c->raw, JSON_DECODE_ANY, NULL);
    if (json_is_object(doc) && json_object_get(doc, "url") && !json_object_get(doc, "uuid")) {
        req_init(&rs[0], doc, c, 0);
    } else {
        memset(&rs[0], 0, sizeof rs[0]);
        rs[0].json = rc_xstrdup(c->raw);
        snprintf(rs[0].uuid, sizeof rs[0].uuid, "%s", jstr(doc, "uuid", ""));
    }
    json_decref(doc);
    return rs;
}

/* The job's scope: --allowed-domain, else, for several seeds, all their registrable domains, as one
 * request naming them all would have it; NULL for one seed (the job takes its domain). */
static json_t *submit_scope(const ctl_conf *c, char **urls, int n)
{
    json_t *scope = NULL;
    if (c->allowed.n > 0) {
        scope = json_array();
        for (size_t i = 0; i < c->allowed.n; i++)
            json_array_append_new(scope, json_string(c->allowed.v[i]));
        return scope;
    }
    if (n < 2)
        return NULL;
    scope = json_array();
    for (int i = 0; i < n; i++) {
        char *norm = NULL, host[256], reg[256];
        if (rc_url_normalize(urls[i], &norm) == 0 && rc_url_host(norm, host, sizeof host) == 0 &&
            rc_domain_registrable(host, reg, sizeof reg) == 0) {
            bool dup = false;
            size_t k;
            json_t *v;
            json_array_foreach (scope, k, v) {
                dup = dup || strcmp(json_string_value(v), reg) == 0;
            }
            if (!dup)
                json_array_append_new(scope, json_string(reg));
        }
        free(norm);
    }
    return scope;
}

/* The crawl request for one seed; values go as typed (a number when they read as one) so that
 * the validator, not this command, judges them. */
static json_t *crawl_request(const ctl_conf *c, const char *url, json_t *scope)
{
    json_t *o = base_request(c);
    json_object_set_new(o, "crawlid", json_string(c->crawlid));
    json_object_set_new(o, "url", json_string(url));
    if (c->spiderid)
        json_object_set_new(o, "spiderid", json_string(c->spiderid));
    set_opt_number(o, "priority", c->priority);
    set_opt_number(o, "maxdepth", c->maxdepth);
    set_opt_number(o, "max_pages", c->max_pages);
    if (c->expires && c->expires[0] == '+') {
        int64_t rel;
        if (rc_parse_i64(c->expires + 1, 0, INT64_C(1) << 40, &rel) == 0)
            json_object_set_new(o, "expires", json_integer((json_int_t)(rc_now_ms() / 1000) + rel));
        else
            json_object_set_new(o, "expires", json_string(c->expires));
    } else {
        set_opt_number(o, "expires", c->expires);
    }
    if (c->useragent)
        json_object_set_new(o, "useragent", json_string(c->useragent));
    if (scope && json_array_size(scope) > 0)
        json_object_set(o, "allowed_domains", scope);
    return o;
}

int rc_cli_submit(int argc, char **argv)
{
    static const struct cmd cmd = CMD("submit", "--crawlid ID [options] URL...  |  submit --raw JSON", submit_rows);
    ctl_conf c;
    memset(&c, 0, sizeof c);
    if (want_help(argc, argv, &cmd))
        return 0;
    char **pos = rc_xcalloc((size_t)argc + 1, sizeof *pos);
    struct req *rs = NULL;
    int n = 0, rc = 2;
    int npos = parse_args(&cmd, &c, argc, argv, pos, argc);
    if (npos < 0)
        goto out;
    if (c.raw) {
        if (npos > 0) {
            fprintf(stderr, "redcrawl submit: --raw takes no URL arguments\n");
            goto out;
        }
        rs = raw_request(&c);
        n = 1;
        rc = run(&c, "submit", rs, n);
        goto out;
    }
    if (npos == 0 || !c.crawlid) {
        fprintf(stderr, "redcrawl submit: give --crawlid ID and at least one URL (see --help)\n");
        goto out;
    }
    if (c.uuid && npos > 1) {
        fprintf(stderr, "redcrawl submit: --uuid names one request; several URLs make several requests\n");
        goto out;
    }
    json_t *scope = submit_scope(&c, pos, npos);
    rs = rc_xcalloc((size_t)npos, sizeof *rs);
    for (int i = 0; i < npos; i++) {
        json_t *o = crawl_request(&c, pos[i], scope);
        req_init(&rs[i], o, &c, i);
        json_decref(o);
        n++;
    }
    json_decref(scope);
    rc = run(&c, "submit", rs, n);
out:
    reqs_free(rs, n);
    free(pos);
    rc_conf_release(cmd.rows, cmd.nrows, &c);
    return rc;
}

/* One round of the job's pending over the shards (one keyspace: its only shard), read in turn
 * into pending and arrived; the sum, or -1 when a shard did not answer. */
static int64_t read_round(const ctl_conf *c, rc_redis **conns, const char *crawlid, long long *pending,
                          long long *arrived)
{
    char err[512], key[300];
    int64_t sum = 0;
    for (int s = 0; s < (int)c->shards; s++) {
        rc_redis *r = shard_conn(c, conns, s, err, sizeof err);
        redisReply *rep =
            r ? rc_redis_cmd(r, "HMGET %s pending arrived", rc_redis_key(r, key, sizeof key, "job:%s", crawlid)) : NULL;
        int ok = rep && rep->type == REDIS_REPLY_ARRAY && rep->elements == 2;
        pending[s] = ok ? rc_reply_int(rep->element[0], 0) : -1;
        arrived[s] = ok ? rc_reply_int(rep->element[1], 0) : -1;
        if (rep)
            freeReplyObject(rep);
        if (!ok)
            return -1;
        sum += pending[s];
    }
    return sum;
}

/* stop --wait: polls the job until nothing of it is pending (its pages in flight are done: a
 * stop purges what is queued), showing the wait on a terminal; in a sharded keyspace until every
 * shard says so as rc_shard_end_round decides (links still travelling keep it waiting). 0 when
 * done, 1 otherwise. */
static int wait_stopped(const ctl_conf *c, const char *crawlid)
{
    rc_redis *conns[RC_SHARDS_MAX] = {NULL};
    long long pend[RC_SHARDS_MAX], arrived[RC_SHARDS_MAX];
    rc_shard_end end;
    memset(&end, 0, sizeof end);
    rc_progress p;
    rc_progress_init(&p, "redcrawl stop", c->timeout);
    int64_t pending = -1;
    int over = 0;
    for (;;) {
        pending = read_round(c, conns, crawlid, pend, arrived);
        if (pending < 0)
            memset(&end, 0, sizeof end); /* a round not read whole proves nothing */
        else
            over = c->shards <= 1 ? pending == 0 : rc_shard_end_round(&end, pend, arrived, (int)c->shards);
        if (over || rc_progress_elapsed(&p) >= c->timeout)
            break;
        rc_progress_show(&p, "waiting for %lld page%s in flight of job %s", (long long)pending, pending == 1 ? "" : "s",
                         crawlid);
        struct timespec ts = {0, 200 * 1000000};
        nanosleep(&ts, NULL);
    }
    rc_progress_end(&p);
    for (int s = 0; s < (int)c->shards; s++)
        rc_redis_free(conns[s]);
    if (over) {
        if (!c->json)
            printf("job %s: nothing in flight any more\n", crawlid);
        return 0;
    }
    if (pending < 0)
        fprintf(stderr, "redcrawl stop: Redis at %s did not answer while waiting\n", c->redis);
    else
        fprintf(stderr,
                "redcrawl stop: job %s still has %lld page%s pending after %.0f s (--timeout): a worker holding "
                "them may be stalled (the scheduler reaps it after its --worker-timeout), or no scheduler runs "
                "to drop what is left in the frontier\n",
                crawlid, (long long)pending, pending == 1 ? "" : "s", rc_progress_elapsed(&p));
    return 1;
}

/* info [CRAWLID] and stop CRAWLID: Scrapy Cluster's action requests. */
static int action(int argc, char **argv, const char *name, bool need_crawlid)
{
    static const struct cmd info_cmd =
        CMD("info", "[options] [CRAWLID]  (without CRAWLID: every job of --appid)", info_rows);
    static const struct cmd stop_cmd = CMD("stop", "[options] CRAWLID", stop_rows);
    const struct cmd *cmd = need_crawlid ? &stop_cmd : &info_cmd;
    ctl_conf c;
    memset(&c, 0, sizeof c);
    if (want_help(argc, argv, cmd))
        return 0;
    char *pos[2];
    struct req *rs = NULL;
    int rc = 2;
    int npos = parse_args(cmd, &c, argc, argv, pos, 1);
    if (npos < 0)
        goto out;
    if (need_crawlid && npos == 0) {
        fprintf(stderr, "redcrawl %s: give a CRAWLID\n", name);
        goto out;
    }
    json_t *o = base_request(&c);
    json_object_set_new(o, "spiderid", json_string(c.spiderid));
    json_object_set_new(o, "action", json_string(name));
    if (npos > 0)
        json_object_set_new(o, "crawlid", json_string(pos[0]));
    rs = rc_xcalloc(1, sizeof *rs);
    req_init(&rs[0], o, &c, 0);
    json_decref(o);
    if (c.wait && !c.redis) {
        fprintf(stderr, "redcrawl stop: --wait reads the job from Redis: pass --redis URL or set REDCRAWL_REDIS\n");
        goto out;
    }
    rc = run(&c, name, rs, 1);
    if (rc == 0 && c.wait)
        rc = wait_stopped(&c, pos[0]);
out:
    if (rs)
        reqs_free(rs, 1);
    rc_conf_release(cmd->rows, cmd->nrows, &c);
    return rc;
}

int rc_cli_info(int argc, char **argv)
{
    return action(argc, argv, "info", false);
}

int rc_cli_stop(int argc, char **argv)
{
    return action(argc, argv, "stop", true);
}

int rc_cli_stats(int argc, char **argv)
{
    static const struct cmd cmd =
        CMD("stats", "[options] [all|kafka-monitor|redis-monitor|crawler|spider|machine|queue]", stats_rows);
    ctl_conf c;
    memset(&c, 0, sizeof c);
    if (want_help(argc, argv, &cmd))
        return 0;
    char *pos[2];
    struct req *rs = NULL;
    int rc = 2;
    int npos = parse_args(&cmd, &c, argc, argv, pos, 1);
    if (npos < 0)
        goto out;
    json_t *o = base_request(&c);
    json_object_set_new(o, "stats", json_string(npos > 0 ? pos[0] : "all"));
    rs = rc_xcalloc(1, sizeof *rs);
    req_init(&rs[0], o, &c, 0);
    json_decref(o);
    rc = run(&c, "stats", rs, 1);
out:
    reqs_free(rs, 1);
    rc_conf_release(cmd.rows, cmd.nrows, &c);
    return rc;
}

int rc_cli_domain(int argc, char **argv)
{
    static const struct cmd cmd =
        CMD("domain",
            "update DOMAIN --hits N --window S [--scale F] | remove DOMAIN | blacklist DOMAIN | "
            "unblacklist DOMAIN",
            domain_rows);
    static const struct {
        const char *word, *action;
    } verbs[] = {
        {"update", "domain-update"},
        {"remove", "domain-remove"},
        {"blacklist", "blacklist-update"},
        {"unblacklist", "blacklist-remove"},
    };
    ctl_conf c;
    memset(&c, 0, sizeof c);
    if (want_help(argc, argv, &cmd))
        return 0;
    char *pos[3];
    struct req *rs = NULL;
    int rc = 2;
    int npos = parse_args(&cmd, &c, argc, argv, pos, 2);
    if (npos < 0)
        goto out;
    const char *act = NULL;
    for (size_t i = 0; npos == 2 && i < RC_ARRAY_LEN(verbs); i++)
        if (strcmp(pos[0], verbs[i].word) == 0)
            act = verbs[i].action;
    if (!act) {
        fprintf(stderr, "redcrawl domain: give update|remove|blacklist|unblacklist and a DOMAIN (see --help)\n");
        goto out;
    }
    json_t *o = base_request(&c);
    json_object_set_new(o, "action", json_string(act));
    json_object_set_new(o, "domain", json_string(pos[1]));
    set_opt_number(o, "hits", c.hits);
    set_opt_number(o, "window", c.window);
    set_opt_number(o, "scale", c.scale);
    rs = rc_xcalloc(1, sizeof *rs);
    req_init(&rs[0], o, &c, 0);
    json_decref(o);
    rc = run(&c, "domain", rs, 1);
out:
    reqs_free(rs, 1);
    rc_conf_release(cmd.rows, cmd.nrows, &c);
    return rc;
}
