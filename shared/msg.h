/* msg.h - control requests from Kafka (or the embedded Redis list): classify, validate, answer errors.
 *
 * Wire-compatible with Scrapy Cluster's kafka-monitor: the same four request kinds, field names,
 * types, limits, defaults and "no unknown fields" rule as its JSON schemas (scraper_schema.json,
 * action_schema.json, stats_schema.json, zookeeper_schema.json), so an existing client works
 * unchanged. A crawl request's fields are the job spec's (reqfield.h: one table of names, types,
 * limits, defaults and messages for every entry point); redcrawl's extensions include "uuid" (then
 * the request gets an answer), "rules" (extraction rules: only checked to be an object here,
 * compiled by rules.c), "max_pages" and every other job option. Where Scrapy Cluster was loose,
 * redcrawl is stricter only when the value would otherwise break something later (ids used in
 * Redis keys, header values, regexes that do not compile, URLs that cannot be fetched): see
 * reqfield.c. */
#ifndef RC_MSG_H
#define RC_MSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "reqfield.h"

struct json_t;

#define RC_MSG_MAX_BYTES (1024 * 1024)         /* a larger message is refused unparsed */
#define RC_MSG_MAX_DEPTH RC_REQFIELD_MAX_DEPTH /* nesting of arrays/objects, the request is level 1 */
#define RC_MSG_ID_BUF 161                      /* 40 characters of UTF-8 (at most 160 bytes) + NUL */
#define RC_MSG_HOST_BUF RC_REQFIELD_HOST_BUF
#define RC_MSG_FIELD_BUF RC_REQFIELD_PATH_BUF
#define RC_MSG_REASON_BUF RC_REQFIELD_REASON_BUF

typedef enum { RC_MSG_CRAWL, RC_MSG_ACTION, RC_MSG_STATS, RC_MSG_DOMAIN } rc_msg_kind;

/* action requests ("action": "info" | "stop"). */
typedef enum { RC_MSG_ACTION_INFO, RC_MSG_ACTION_STOP } rc_msg_action;

/* domain requests (Scrapy Cluster's "zookeeper" requests). */
typedef enum {
    RC_MSG_DOMAIN_UPDATE,    /* "domain-update": throttle to hits per window (x scale) */
    RC_MSG_DOMAIN_REMOVE,    /* "domain-remove" */
    RC_MSG_BLACKLIST_UPDATE, /* "blacklist-update" */
    RC_MSG_BLACKLIST_REMOVE, /* "blacklist-remove" */
} rc_msg_domain_action;

/* stats requests ("stats", default "all"). */
typedef enum {
    RC_MSG_STATS_ALL,
    RC_MSG_STATS_KAFKA_MONITOR,
    RC_MSG_STATS_REDIS_MONITOR,
    RC_MSG_STATS_CRAWLER,
    RC_MSG_STATS_SPIDER,
    RC_MSG_STATS_MACHINE,
    RC_MSG_STATS_QUEUE,
    RC_MSG_STATS_REST,
} rc_msg_stats;

/* A validated request. Embedded: filled by rc_msg_parse, emptied by rc_msg_release. The common
 * fields are copied out for convenience; everything else (regexes, attrs, rules, ...) is read from
 * doc, which holds the request as sent plus Scrapy Cluster's defaults for absent fields (crawl:
 * the defaults of reqfield.c's table, e.g. spiderid "link", priority 1, maxdepth 0, expires 0, the
 * optional lists/strings/attrs/rules null; stats: "all"; domain: hits 0, window 0, scale 1.0). */
typedef struct rc_msg {
    rc_msg_kind kind;
    struct json_t *doc;           /* owned */
    char uuid[RC_MSG_ID_BUF];     /* "" when absent (only crawl requests may omit it) */
    char appid[RC_MSG_ID_BUF];    /* always set */
    char crawlid[RC_MSG_ID_BUF];  /* crawl: always; action: "" when absent; stats, domain: "" */
    char spiderid[RC_MSG_ID_BUF]; /* crawl (default "link") and action; "" otherwise */
    /* crawl */
    char *url;                /* the seed, normalised (rc_url_normalize); owned. doc keeps it as sent */
    int priority;             /* 1..100 */
    int maxdepth;             /* -1 (no limit)..1000 */
    int64_t expires;          /* unix seconds, 0 = never */
    int64_t max_pages;        /* 0 = unlimited */
    int64_t domain_max_pages; /* 0.., -1 when absent */
    /* action */
    rc_msg_action action;
    /* stats */
    rc_msg_stats stats;
    /* domain */
    rc_msg_domain_action domain_action;
    char domain[RC_MSG_HOST_BUF]; /* normalised: lower case, IDNA (punycode) */
    int64_t hits;                 /* >= 1 for domain-update, else as sent (default 0) */
    int64_t window;               /* seconds; >= 1 for domain-update */
    double scale;                 /* 0..1, default 1.0 */
} rc_msg;

/* Why a message was refused, enough to answer it. Strings are NUL-terminated valid UTF-8. */
typedef struct rc_msg_error {
    bool kind_known;
    rc_msg_kind kind;               /* meaningful when kind_known */
    char uuid[RC_MSG_ID_BUF];       /* copied from the message when it was a string that fits, else "" */
    char appid[RC_MSG_ID_BUF];      /* likewise */
    char crawlid[RC_MSG_ID_BUF];    /* likewise */
    char field[RC_MSG_FIELD_BUF];   /* JSON path: "url", "allow_regex[2]", "(root)" for the whole message */
    char reason[RC_MSG_REASON_BUF]; /* a sentence for people */
} rc_msg_error;

/* Classifies and validates one raw message (DATA, LEN bytes, borrowed, any content, need not be
 * NUL-terminated). On success fills *ret (release it with rc_msg_release) and returns 0. On failure
 * returns -EINVAL, leaves *ret untouched and, when ERR is not NULL, fills it in: the field and reason,
 * the kind when it could be determined, and uuid/appid/crawlid when present so the answer can carry
 * them. Kinds: "url" -> crawl; "domain", or an "action" that is one of the domain actions -> domain;
 * other "action" -> action; "stats", or only "uuid" and "appid" (Scrapy Cluster's stats default) ->
 * stats. */
int rc_msg_parse(const char *data, size_t len, rc_msg *ret, rc_msg_error *err);
void rc_msg_release(rc_msg *m);

/* The error answer, Scrapy Cluster style with redcrawl's fields:
 * {"uuid": ..., "appid": ..., ["crawlid": ...,] ["kind": "crawl",] "error": "invalid crawl request: url
 *  must be ...", "field": ..., "reason": ..., "server_time": <unix seconds>}; uuid and appid are null
 * when unknown, crawlid and kind absent. The reason is a predicate of the field ("must be ...",
 * "is required ...") or, for "(root)", a sentence of its own. malloc'd, compact JSON. */
char *rc_msg_error_answer(const rc_msg_error *err);

/* The crawl job spec (job.h) for a validated crawl request: crawlid, appid, spiderid, url (normalised),
 * maxdepth, priority, max_pages, expires, allowed_domains (normalised hosts), then every other field
 * of reqfield.c's table that is set (not null) but uuid. malloc'd; NULL when M is not a crawl
 * request. */
char *rc_msg_crawl_to_job_json(const rc_msg *m);

/* Names as on the wire ("crawl", "info", "domain-update", "kafka-monitor", ...). Static strings. */
const char *rc_msg_kind_name(rc_msg_kind kind);
const char *rc_msg_action_name(rc_msg_action a);
const char *rc_msg_domain_action_name(rc_msg_domain_action a);
const char *rc_msg_stats_name(rc_msg_stats s);

#endif
