/* rules.h - the extraction rule document of issue 5, parsed and compiled once (when a crawl request
 * arrives) so that a rule that cannot run is rejected up front with the path of the bad key:
 *
 *   {"list_from": XPATH, "fields": {NAME: FIELD, ...}, "second_page_url": XPATH | FIELD,
 *    "continue": BOOL, "second_page": {"fields": {NAME: FIELD, ...}},
 *    "links": [{"allow": [RE], "deny": [RE], "allow_domains": [D], "deny_domains": [D],
 *               "restrict_xpaths": [XPATH], "follow": BOOL, "callback": NAME}],
 *    "field_sets": {NAME: {"list_from": XPATH, "fields": {...}}}}
 *
 * FIELD is an XPath string or {"xpath": XPATH, "re": RE, "all": BOOL, "required": BOOL,
 * "default": VALUE}. XPath is XPath 1.0 (libxml2), compiled with variables forbidden; function
 * names and arities are checked at compile time (libxml2 only finds `contain()` when it runs), and
 * brackets must balance (libxml2 accepts "string("). RE is PCRE2 with UTF. Where the document says
 * [RE], [D] or [XPATH] a single string is accepted too. Extensions: `second_page_url` may be a
 * FIELD object (to apply a regex), and a field set may have its own `list_from`.
 *
 * Rejected besides syntax errors: unknown keys, wrong JSON types, empty XPaths, field names that
 * are empty, "url", "crawlid", or start with '_' or '$' or contain '.' (they would clash with
 * the item's own keys or MongoDB's), `required` together with `default`, `list_from` or
 * `restrict_xpaths` that do not select nodes, `second_page` without `second_page_url`, a
 * second-page field that is also a list field, and a link `callback` that names no field set.
 *
 * Threads: one thread at a time evaluates a compiled rule set. Each evaluation has its own
 * libxml2 context and PCRE2 match data, but libxml2 (2.9 to 2.13) writes into the compiled XPath
 * itself as it evaluates (xmlXPathCompSwap reorders a union's branches, a function's lookup is
 * cached in its step): two threads on one copy can evaluate one branch twice and skip the other,
 * and can leave both branches the same for good. So a thread evaluates its own copy (page.h,
 * rc_page_job_rules). The PCRE2 codes and match context are only read. extract.h evaluates the
 * rules; the structs below are visible for it and for the crawler (continue, link callbacks). */
#ifndef RC_RULES_H
#define RC_RULES_H

#include <stddef.h>

struct json_t;
struct _xmlXPathCompExpr;
struct pcre2_real_code_8;
struct pcre2_real_match_context_8;

/* Limits on a rule document (the crawl request comes from the network). */
#define RC_RULES_MAX_LEN ((size_t)1024 * 1024) /* bytes of JSON */
#define RC_RULES_MAX_FIELDS 256                /* fields per field set */
#define RC_RULES_MAX_SETS 64                   /* field sets */
#define RC_RULES_MAX_LINKS 64                  /* link rules */
#define RC_RULES_MAX_LIST 256                  /* entries of one allow/deny/... list */
#define RC_RULES_MAX_EXPR 8192                 /* bytes of one XPath or regex */

typedef struct rc_rules_field {
    char *name; /* key in the item */
    char *path; /* "fields.price", "field_sets.post.fields.author": for messages and drop stats */
    struct _xmlXPathCompExpr *xpath;
    struct pcre2_real_code_8 *re; /* NULL = none */
    int all;                      /* a list of every value instead of the first */
    int required;                 /* an item without a value is dropped */
    struct json_t *def;           /* the value when there is none; NULL = leave the key out. Owned */
} rc_rules_field;

typedef struct rc_rules_set {
    char *name;                          /* NULL for the top level and second_page */
    char *path;                          /* "", "second_page.", "field_sets.NAME." */
    struct _xmlXPathCompExpr *list_from; /* NULL = the page is one item */
    rc_rules_field *fields;
    size_t nfields;
} rc_rules_set;

typedef struct rc_rules_link {
    struct pcre2_real_code_8 **allow, **deny; /* on the absolute normalised URL, unanchored */
    size_t nallow, ndeny;
    char **allow_domains, **deny_domains; /* normalised hosts (lower case, punycode) */
    size_t nallow_domains, ndeny_domains;
    struct _xmlXPathCompExpr **restrict_xpaths; /* links only under the nodes they select */
    size_t nrestrict;
    int follow;     /* default: 1 without a callback, 0 with one (Scrapy's CrawlSpider) */
    char *callback; /* a field_sets name, NULL = none */
} rc_rules_link;

typedef struct rc_rules {
    rc_rules_set page;               /* top-level list_from and fields */
    rc_rules_field *second_page_url; /* NULL = none; evaluated like a field, per item */
    int cont;                        /* "continue" as given (default 0); the crawler's meaning */
    int has_second_page;
    rc_rules_set second_page; /* fields of the detail page */
    rc_rules_link *links;
    size_t nlinks;
    rc_rules_set *sets; /* field_sets, in document order */
    size_t nsets;
    struct pcre2_real_match_context_8 *mctx; /* match/depth/heap limits for every regex */
} rc_rules;

/* Parses and compiles LEN bytes of JSON (need not be NUL-terminated). On error returns NULL and
 * writes "PATH: reason" into err (e.g. "fields.price.re: missing closing parenthesis at offset
 * 4", "links[1].alow: unknown key"); err may be NULL when cap is 0. */
rc_rules *rc_rules_parse(const char *json, size_t len, char *err, size_t cap);
/* Accepts NULL. */
void rc_rules_free(rc_rules *rules);
/* A job's rule document (compact JSON) compiles: 0, or -EINVAL with "rules: <path>: <why>" in
 * err, the message every entry point (Kafka, CLI) answers with. */
int rc_rules_check(const char *json, char *err, size_t cap);

/* The field set called NAME, NULL when there is none. NAME NULL = the top level. Borrowed. */
const rc_rules_set *rc_rules_set_get(const rc_rules *rules, const char *name);

#endif
