/* record.h - the frontier record: one URL to fetch, as it sits in Redis (seeds:*, q:*, lease:*).
 * A plain record (a link or a seed: url, crawlid, depth, priority, attempt) is the compact line
 * "crawlid depth priority attempt url" (a crawlid holds no space, the URL comes last): about 40
 * bytes less than its JSON per pending URL, and under Redis' 64-byte limit for small zsets kept
 * as listpacks. In its job's frontier (seeds:{crawlid}:{priority}:{depth}) the crawlid, implied
 * by the key, is left out: "depth priority attempt url" (told apart by the fourth field, an
 * integer in the long form, the URL in the short one); the scripts put it back before a record
 * moves on to a host queue. A record with anything more (a callback, an item, a redirect chain, refresh
 * validators, a lost lease...) is compact JSON. Both read readably in redis-cli; the Lua
 * scripts read both (common.lua's rec_decode). */
#ifndef RC_RECORD_H
#define RC_RECORD_H

#include <stddef.h>

#define RC_RECORD_MAX 8192 /* bytes of JSON; a URL is at most RC_URL_MAX */

typedef struct rc_record {
    char *url;     /* normalised absolute URL */
    char *crawlid; /* job id */
    int depth;     /* 0 for a seed */
    int priority;  /* 0..1000, higher first */
    int attempt;   /* fetch attempts already made */
    char *cb;      /* the field set that extracts this page (a link rule's callback), NULL = top level */
    char *item;    /* second page: the list item (JSON) its fields are merged into, NULL = none */
    int nofollow;  /* do not follow this page's links (a link rule with follow: false) */
    int redirects; /* redirects that led here (a redirect target keeps its source's depth) */
    int redeliver; /* an earlier try may have stored it: sinks check for the _id first */
    int refresh;   /* a navigation page come back for its refresh (complete.lua sets it) ... */
    char *etag;    /* ... with the validators of its last 200 (NULL = none): conditional GET */
    char *lastmod;
    char *digest;         /* ... and the text digest it had then (NULL = none) */
    long long visited_ms; /* ... and, for a sitemap, when it was read then (0 = unknown) */
    int sitemap;          /* a sitemap to read, not a page: 1 from robots.txt or /sitemap.xml, 2 listed
                             by a sitemap index (whose entries are not indexes again) */
    char *chain;          /* a redirect target: the hops that led here, JSON [{url, status}, ...] from
                             the chain's first URL (NULL = not reached by a redirect) */
} rc_record;

#define RC_RECORD_MAX_REDIRECTS 5

/* Parses a record, either form; on success fills *ret with malloc'd strings
 * (rc_record_release them). -EINVAL when it is not a record. */
int rc_record_parse(const char *json, size_t len, rc_record *ret);
/* The same for a record read from its job's frontier (seeds:{crawlid}:*), where a compact record
 * omits its crawlid ("depth priority attempt url"): such a record gets CRAWLID. */
int rc_record_parse_in(const char *json, size_t len, const char *crawlid, rc_record *ret);
/* Encodes in the compact form when plain, else as compact JSON; malloc'd. */
char *rc_record_encode(const rc_record *r);
void rc_record_release(rc_record *r);
/* The deterministic document id of (crawlid, url): 32 hex digits of XXH3-128, so a page that
 * is stored twice (redelivery) lands on the same _id. */
void rc_record_doc_id(const char *crawlid, const char *url, char out[33]);

#endif
