/* msg.c - see msg.h.
 *
 * Each request kind is a table of fields (rc_reqfield rows), taken from Scrapy Cluster's kafka-monitor
 * schemas (JSON Schema draft 4 with "additionalProperties": false and defaults filled in for absent
 * properties). A crawl request's table is reqfield.c's, the one the job spec parser uses too (it says
 * where redcrawl is stricter than Scrapy Cluster and why); action, stats and domain requests have
 * theirs here. Checks run in table order, after the unknown-field check, so the error named is
 * deterministic. Rules across fields: action "stop" needs a crawlid (SC silently ignored a stop
 * without one); domain-update needs hits and window >= 1 (SC's handler dropped it with a log line). */
#include "msg.h"

#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reqfield.h"
#include "util.h"

#define HITS_MAX 100000
#define WINDOW_MAX 86400
#define ID RC_REQFIELD_ID_MAX
#define UUID RC_REQFIELD_UUID
#define TID RC_REQFIELD_ID
#define REQ RC_REQFIELD_REQUIRED

static const char *const action_choices[] = {"info", "stop", NULL};
static const char *const domain_choices[] = {"domain-update", "domain-remove", "blacklist-update", "blacklist-remove",
                                             NULL};
static const char *const stats_choices[] = {"all",     "kafka-monitor", "redis-monitor", "crawler", "spider",
                                            "machine", "queue",         "rest",          NULL};

/* clang-format off */
/* action_schema.json */
static const rc_reqfield action_fields[] = {
    {"uuid", UUID, REQ, 1, ID, 0, 0, NULL, NULL, NULL},
    {"appid", TID, REQ, 3, ID, 0, 0, NULL, NULL, NULL},
    {"crawlid", TID, 0, 1, ID, 0, 0, NULL, NULL, NULL},
    {"spiderid", TID, REQ, 1, ID, 0, 0, NULL, NULL, NULL},
    {"action", RC_REQFIELD_ENUM, REQ, 0, 0, 0, 0, action_choices, NULL, NULL},
};

/* stats_schema.json */
static const rc_reqfield stats_fields[] = {
    {"uuid", UUID, REQ, 1, ID, 0, 0, NULL, NULL, NULL},
    {"appid", TID, REQ, 3, ID, 0, 0, NULL, NULL, NULL},
    {"stats", RC_REQFIELD_ENUM, 0, 0, 0, 0, 0, stats_choices, "\"all\"", NULL},
};

/* zookeeper_schema.json */
static const rc_reqfield domain_fields[] = {
    {"uuid", UUID, REQ, 1, ID, 0, 0, NULL, NULL, NULL},
    {"appid", TID, REQ, 3, ID, 0, 0, NULL, NULL, NULL},
    {"domain", RC_REQFIELD_HOST, REQ, 0, 0, 0, 0, NULL, NULL, NULL},
    {"action", RC_REQFIELD_ENUM, REQ, 0, 0, 0, 0, domain_choices, NULL, NULL},
    {"hits", RC_REQFIELD_INT, 0, 0, HITS_MAX, 0, 0, NULL, "0", NULL},
    {"window", RC_REQFIELD_INT, 0, 0, WINDOW_MAX, 0, 0, NULL, "0", NULL},
    {"scale", RC_REQFIELD_NUMBER, 0, 0, 0, 0, 1, NULL, "1.0", NULL},
};
/* clang-format on */

struct kind_table {
    const char *name;
    const char *a_name; /* with its article, for sentences */
    const rc_reqfield *fields;
    size_t n;
};

/* The crawl kind's rows are rc_reqfield_crawl[] (its length is not a constant: set in rc_msg_parse). */
static const struct kind_table kinds[] = {
    [RC_MSG_CRAWL] = {"crawl", "a crawl", NULL, 0},
    [RC_MSG_ACTION] = {"action", "an action", action_fields, RC_ARRAY_LEN(action_fields)},
    [RC_MSG_STATS] = {"stats", "a stats", stats_fields, RC_ARRAY_LEN(stats_fields)},
    [RC_MSG_DOMAIN] = {"domain", "a domain", domain_fields, RC_ARRAY_LEN(domain_fields)},
};

/* ---- errors ---------------------------------------------------------------------------------- */

static int fail(rc_msg_error *e, const char *field, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int fail(rc_msg_error *e, const char *field, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int r = rc_reqfield_vset(e->field, sizeof e->field, e->reason, sizeof e->reason, field, fmt, ap);
    va_end(ap);
    return r;
}

/* A field check's refusal, into the message's error. */
static int field_fail(rc_msg_error *e, const rc_reqfield_error *fe)
{
    snprintf(e->field, sizeof e->field, "%s", fe->field);
    snprintf(e->reason, sizeof e->reason, "%s", fe->reason);
    return -EINVAL;
}

/* ---- parse ----------------------------------------------------------------------------------- */

static bool is_domain_action(const json_t *a)
{
    for (size_t i = 0; domain_choices[i]; i++)
        if (json_is_string(a) && strcmp(json_string_value(a), domain_choices[i]) == 0)
            return true;
    return false;
}

/* The request kind, or -1. */
static int classify(const json_t *root)
{
    json_t *action = json_object_get(root, "action");
    if (json_object_get(root, "url"))
        return RC_MSG_CRAWL;
    if (json_object_get(root, "domain") || is_domain_action(action))
        return RC_MSG_DOMAIN;
    if (action)
        return RC_MSG_ACTION;
    if (json_object_get(root, "stats"))
        return RC_MSG_STATS;
    /* Scrapy Cluster's stats schema makes "stats" optional (default "all"): {"uuid", "appid"} alone
     * validates as a stats request and nothing else. */
    if (json_object_get(root, "uuid")) {
        const char *k;
        json_t *x;
        json_object_foreach ((json_t *)root, k, x) {
            if (strcmp(k, "uuid") != 0 && strcmp(k, "appid") != 0)
                return -1;
        }
        return RC_MSG_STATS;
    }
    return -1;
}

static void copy_id(char *dst, const json_t *root, const char *key)
{
    json_t *v = json_object_get(root, key);
    if (json_is_string(v) && !rc_reqfield_copy_utf8(dst, RC_MSG_ID_BUF, json_string_value(v), json_string_length(v)))
        dst[0] = '\0'; /* a cut id would match nothing: better none */
}

static void not_json(rc_msg_error *e, const json_error_t *jerr)
{
    const char *what;
    switch (json_error_code(jerr)) {
    case json_error_invalid_utf8:
        what = "the message is not valid UTF-8";
        break;
    case json_error_duplicate_key:
        what = "the message repeats a key";
        break;
    case json_error_end_of_input_expected:
        what = "trailing data after the JSON value";
        break;
    case json_error_numeric_overflow:
        what = "a number is out of range";
        break;
    case json_error_null_character:
    case json_error_null_byte_in_key:
        fail(e, "(root)", "a string holds \\u0000, which requests may not contain (line %d, column %d)", jerr->line,
             jerr->column);
        return;
    case json_error_premature_end_of_input:
        what = "the JSON text is cut short";
        break;
    default:
        what = "not valid JSON";
        break;
    }
    char text[JSON_ERROR_TEXT_LENGTH];
    rc_reqfield_sanitize(text, sizeof text, jerr->text);
    fail(e, "(root)", "%s: %s (line %d, column %d)", what, text, jerr->line, jerr->column);
}

/* Checks one present field; the crawl url and a domain request's domain are kept normalised in m. */
static int check_field(rc_msg_error *e, const rc_reqfield *f, const json_t *v, rc_msg *m)
{
    rc_reqfield_error fe;
    int r;
    if (f->type == RC_REQFIELD_URL)
        r = rc_reqfield_url(&fe, f->name, v, &m->url);
    else if (f->type == RC_REQFIELD_HOST)
        r = rc_reqfield_host(&fe, f->name, v, m->domain, sizeof m->domain);
    else
        r = rc_reqfield_check(f, v, &fe);
    return r < 0 ? field_fail(e, &fe) : 0;
}

static int choice_index(const char *const *choices, const char *s)
{
    for (int i = 0; choices[i]; i++)
        if (strcmp(choices[i], s) == 0)
            return i;
    return 0;
}

static int64_t get_int(const json_t *doc, const char *key, int64_t def)
{
    json_t *v = json_object_get(doc, key);
    return json_is_integer(v) ? json_integer_value(v) : def;
}

static void set_str(char *dst, const json_t *doc, const char *key)
{
    json_t *v = json_object_get(doc, key);
    dst[0] = '\0';
    if (json_is_string(v))
        rc_reqfield_copy_utf8(dst, RC_MSG_ID_BUF, json_string_value(v), json_string_length(v));
}

/* The message as a JSON object, or NULL with e filled: size, emptiness, syntax and type first. */
static json_t *load_object(const char *data, size_t len, rc_msg_error *e)
{
    json_error_t jerr;
    if (len > RC_MSG_MAX_BYTES) {
        fail(e, "(root)", "the message is %zu bytes, larger than the limit of %d bytes", len, RC_MSG_MAX_BYTES);
        return NULL;
    }
    size_t ws = 0;
    while (ws < len && (data[ws] == ' ' || data[ws] == '\t' || data[ws] == '\n' || data[ws] == '\r'))
        ws++;
    if (ws == len) {
        fail(e, "(root)", len ? "the message holds only whitespace, not a JSON object" : "the message is empty");
        return NULL;
    }
    json_t *root = json_loadb(data, len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &jerr);
    if (!root) {
        not_json(e, &jerr);
        return NULL;
    }
    if (!json_is_object(root)) {
        fail(e, "(root)", "the request must be a JSON object, not %s", rc_reqfield_type_name(root));
        json_decref(root);
        return NULL;
    }
    return root;
}

/* The kind's table; a crawl request's is the job spec's (reqfield.c). */
static struct kind_table table_of(rc_msg_kind kind)
{
    struct kind_table t = kinds[kind];
    if (kind == RC_MSG_CRAWL) {
        t.fields = rc_reqfield_crawl;
        t.n = rc_reqfield_crawl_len;
    }
    return t;
}

/* Fields a message may carry: all but those only a job spec has (urls). */
static bool on_wire(const rc_reqfield *f)
{
    return !(f->flags & RC_REQFIELD_SPEC_ONLY);
}

/* additionalProperties: false */
static int check_known(rc_msg_error *e, const struct kind_table *t, json_t *root)
{
    const char *key;
    json_t *v;
    json_object_foreach (root, key, v) {
        const rc_reqfield *f = rc_reqfield_find(t->fields, t->n, key);
        if (f && on_wire(f))
            continue;
        /* Every name, whole: a reason cut mid-list would hide the very field one mistyped. */
        char allowed[RC_MSG_REASON_BUF];
        size_t o = 0;
        for (size_t k = 0; k < t->n && o < sizeof allowed; k++)
            if (on_wire(&t->fields[k]))
                o += (size_t)snprintf(allowed + o, sizeof allowed - o, "%s%s", o ? ", " : "", t->fields[k].name);
        return fail(e, key, "is an unknown field in %s request (known: %s)", t->a_name, allowed);
    }
    return 0;
}

static int check_fields(rc_msg_error *e, const struct kind_table *t, const json_t *root, rc_msg *m)
{
    for (size_t i = 0; i < t->n; i++) {
        const rc_reqfield *f = &t->fields[i];
        if (!on_wire(f))
            continue;
        json_t *v = json_object_get(root, f->name);
        if (!v && (f->flags & (RC_REQFIELD_REQUIRED | RC_REQFIELD_WIRE_REQUIRED)))
            return fail(e, f->name, "is required in %s request", t->a_name);
        if (v && check_field(e, f, v, m) < 0)
            return -EINVAL;
    }
    return 0;
}

static int check_across(rc_msg_error *e, rc_msg_kind kind, const json_t *root)
{
    const char *action = json_string_value(json_object_get(root, "action"));
    if (kind == RC_MSG_ACTION && strcmp(action, "stop") == 0 && !json_object_get(root, "crawlid"))
        return fail(e, "crawlid", "is required for the stop action: it names the crawl to stop");
    if (kind == RC_MSG_DOMAIN && strcmp(action, "domain-update") == 0) {
        if (get_int(root, "hits", 0) < 1)
            return fail(e, "hits", "must be at least 1 for domain-update: the requests allowed per window");
        if (get_int(root, "window", 0) < 1)
            return fail(e, "window", "must be at least 1 for domain-update: the window in seconds");
    }
    return 0;
}

/* Defaults, as Scrapy Cluster's validator fills them. */
static void fill_defaults(const struct kind_table *t, json_t *root)
{
    for (size_t i = 0; i < t->n; i++) {
        const rc_reqfield *f = &t->fields[i];
        if (on_wire(f) && !json_object_get(root, f->name)) {
            json_t *d = rc_reqfield_default(f);
            if (d)
                json_object_set_new(root, f->name, d);
        }
    }
}

/* The common fields of a valid request (root, defaults filled) copied out into m. */
static void copy_out(rc_msg *m, const json_t *root)
{
    const char *action = json_string_value(json_object_get(root, "action"));
    set_str(m->uuid, root, "uuid");
    set_str(m->appid, root, "appid");
    set_str(m->crawlid, root, "crawlid");
    set_str(m->spiderid, root, "spiderid");
    m->domain_max_pages = -1;
    m->scale = 1.0;
    switch (m->kind) {
    case RC_MSG_CRAWL:
        m->priority = (int)get_int(root, "priority", 1);
        m->maxdepth = (int)get_int(root, "maxdepth", 0);
        m->expires = get_int(root, "expires", 0);
        m->max_pages = get_int(root, "max_pages", 0);
        m->domain_max_pages = get_int(root, "domain_max_pages", -1);
        break;
    case RC_MSG_ACTION:
        m->action = (rc_msg_action)choice_index(action_choices, action);
        break;
    case RC_MSG_STATS:
        m->stats = (rc_msg_stats)choice_index(stats_choices, json_string_value(json_object_get(root, "stats")));
        break;
    case RC_MSG_DOMAIN:
        m->domain_action = (rc_msg_domain_action)choice_index(domain_choices, action);
        m->hits = get_int(root, "hits", 0);
        m->window = get_int(root, "window", 0);
        m->scale = json_number_value(json_object_get(root, "scale"));
        break;
    }
}

int rc_msg_parse(const char *data, size_t len, rc_msg *ret, rc_msg_error *err)
{
    rc_msg_error scratch = {0};
    rc_msg_error *e = err ? err : &scratch;
    rc_msg m;

    memset(e, 0, sizeof *e);
    memset(&m, 0, sizeof m);
    json_t *root = load_object(data, len, e);
    if (!root)
        goto fail;
    copy_id(e->uuid, root, "uuid");
    copy_id(e->appid, root, "appid");
    copy_id(e->crawlid, root, "crawlid");
    int kind = classify(root);
    if (kind < 0) {
        fail(e, "(root)",
             "unknown request kind: a request has \"url\" (crawl), \"action\" (info, stop), "
             "\"action\" and \"domain\" (domain settings) or \"stats\" (stats)");
        goto fail;
    }
    e->kind_known = true;
    e->kind = (rc_msg_kind)kind;
    m.kind = (rc_msg_kind)kind;
    struct kind_table t = table_of(m.kind);
    if (check_known(e, &t, root) < 0 || check_fields(e, &t, root, &m) < 0 || check_across(e, m.kind, root) < 0)
        goto fail;
    fill_defaults(&t, root);
    copy_out(&m, root);
    m.doc = root;
    *ret = m;
    return 0;
fail:
    json_decref(root);
    free(m.url);
    return -EINVAL;
}

void rc_msg_release(rc_msg *m)
{
    if (!m)
        return;
    json_decref(m->doc);
    free(m->url);
    memset(m, 0, sizeof *m);
}

/* ---- answers --------------------------------------------------------------------------------- */

static json_t *str_or_null(const char *s)
{
    return s[0] ? json_string(s) : json_null();
}

char *rc_msg_error_answer(const rc_msg_error *err)
{
    json_t *o = json_object();
    json_object_set_new(o, "uuid", str_or_null(err->uuid));
    json_object_set_new(o, "appid", str_or_null(err->appid));
    if (err->crawlid[0])
        json_object_set_new(o, "crawlid", json_string(err->crawlid));
    if (err->kind_known)
        json_object_set_new(o, "kind", json_string(rc_msg_kind_name(err->kind)));
    /* Reasons are predicates of the field ("must be ...", "is required ..."), or whole sentences
     * about the message when the field is "(root)". */
    char *text;
    const char *kind = err->kind_known ? rc_msg_kind_name(err->kind) : NULL;
    if (strcmp(err->field, "(root)") == 0)
        text = rc_xasprintf("invalid %s%srequest: %s", kind ? kind : "", kind ? " " : "", err->reason);
    else
        text = rc_xasprintf("invalid %s%srequest: %s %s", kind ? kind : "", kind ? " " : "", err->field, err->reason);
    json_object_set_new(o, "error", json_string(text));
    free(text);
    json_object_set_new(o, "field", json_string(err->field));
    json_object_set_new(o, "reason", json_string(err->reason));
    json_object_set_new(o, "server_time", json_integer((json_int_t)(rc_now_ms() / 1000)));
    char *s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(o);
    if (!s)
        abort();
    return s;
}

static void copy_if_set(json_t *dst, const json_t *doc, const char *key)
{
    json_t *v = json_object_get(doc, key);
    if (v && !json_is_null(v))
        json_object_set(dst, key, v);
}

char *rc_msg_crawl_to_job_json(const rc_msg *m)
{
    if (m->kind != RC_MSG_CRAWL || !m->doc)
        return NULL;
    const json_t *d = m->doc;
    json_t *o = json_object();
    json_object_set_new(o, "crawlid", json_string(m->crawlid));
    json_object_set_new(o, "appid", json_string(m->appid));
    json_object_set_new(o, "spiderid", json_string(m->spiderid));
    json_object_set_new(o, "url", json_string(m->url));
    json_object_set_new(o, "maxdepth", json_integer(m->maxdepth));
    json_object_set_new(o, "priority", json_integer(m->priority));
    json_object_set_new(o, "max_pages", json_integer(m->max_pages));
    json_object_set_new(o, "expires", json_integer(m->expires));
    json_t *ad = json_object_get(d, "allowed_domains");
    if (json_array_size(ad) > 0) {
        json_t *hosts = json_array();
        size_t i;
        json_t *h;
        json_array_foreach (ad, i, h) {
            char host[RC_REQFIELD_HOST_BUF];
            rc_reqfield_error scratch;
            if (rc_reqfield_host(&scratch, "allowed_domains", h, host, sizeof host) == 0)
                json_array_append_new(hosts, json_string(host));
        }
        json_object_set_new(o, "allowed_domains", hosts);
    }
    /* The rest as sent (with defaults), the table's order: the job spec parser checks them again. */
    for (size_t i = 0; i < rc_reqfield_crawl_len; i++) {
        const rc_reqfield *f = &rc_reqfield_crawl[i];
        if (!(f->flags & RC_REQFIELD_WIRE_ONLY) && !json_object_get(o, f->name))
            copy_if_set(o, d, f->name);
    }
    char *s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(o);
    if (!s)
        abort();
    return s;
}

/* ---- names ----------------------------------------------------------------------------------- */

const char *rc_msg_kind_name(rc_msg_kind kind)
{
    return (unsigned)kind < RC_ARRAY_LEN(kinds) ? kinds[kind].name : "unknown";
}

const char *rc_msg_action_name(rc_msg_action a)
{
    return (unsigned)a < RC_ARRAY_LEN(action_choices) - 1 ? action_choices[a] : "unknown";
}

const char *rc_msg_domain_action_name(rc_msg_domain_action a)
{
    return (unsigned)a < RC_ARRAY_LEN(domain_choices) - 1 ? domain_choices[a] : "unknown";
}

const char *rc_msg_stats_name(rc_msg_stats s)
{
    return (unsigned)s < RC_ARRAY_LEN(stats_choices) - 1 ? stats_choices[s] : "unknown";
}
