/* msg.c - see msg.h.
 *
 * Each request kind is a table of fields, taken from Scrapy Cluster's kafka-monitor schemas
 * (JSON Schema draft 4 with "additionalProperties": false and defaults filled in for absent
 * properties). Checks run in table order, after the unknown-field check, so the error named is
 * deterministic. String lengths count characters (code points), as JSON Schema does.
 *
 * Where redcrawl is stricter than Scrapy Cluster, and why:
 * - appid, crawlid, spiderid: letters, digits, '.', '_' and '-', not starting with '.' (they become
 *   parts of file paths, Redis keys and Kafka topic names: rc_id_check, shared with job.c).
 * - url: must be an absolute http(s) URL that rc_url_normalize accepts (SC: any string).
 * - allowed_domains, domain: host names (IDNA allowed), checked by normalising them.
 * - allow_regex, deny_regex: must compile with PCRE2 (SC compiled them only in the spider).
 * - useragent, cookie: printable ASCII, they are sent as HTTP header values.
 * - null is a type error, as in SC: defaults apply only to absent fields.
 * - integers must be JSON integers (5.0 is refused, as draft 4 does).
 * - list sizes, regex lengths, expires, hits and window have upper bounds (SC had none).
 * - action "stop" needs a crawlid (SC silently ignored a stop without one); domain-update needs
 *   hits and window >= 1 (SC's handler dropped it with a log line). */
#include "msg.h"

#define PCRE2_CODE_UNIT_WIDTH 8

#include <errno.h>
#include <jansson.h>
#include <pcre2.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "url.h"
#include "util.h"

#define ID_MAX_CHARS 40
#define LIST_MAX 1000                     /* allowed_domains, deny_extensions */
#define REGEX_LIST_MAX 100                /* allow_regex, deny_regex */
#define REGEX_MAX_BYTES 1024              /* one pattern */
#define EXT_MAX_BYTES 32                  /* one extension */
#define HOST_RAW_MAX 1024                 /* a host as sent, before IDNA */
#define EXPIRES_MAX INT64_C(253402300799) /* 9999-12-31T23:59:59Z */
#define MAX_PAGES_MAX INT64_C(1000000000000)
#define HITS_MAX 100000
#define WINDOW_MAX 86400
#define ECHO_MAX 48 /* bytes of a bad value quoted back in a reason */

enum ftype {
    T_UUID,    /* string, any characters */
    T_ID,      /* string, restricted characters (appid, crawlid, spiderid) */
    T_URL,     /* absolute http(s) URL */
    T_INT,     /* integer in [min, max] */
    T_SCALE,   /* number in [0, 1] */
    T_ENUM,    /* one of choices */
    T_HOST,    /* a host name */
    T_HOSTS,   /* unique host names, at most max */
    T_REGEXES, /* unique PCRE2 patterns, at most max */
    T_EXTS,    /* unique file extensions, at most max */
    T_HEADER,  /* printable ASCII, min..max characters */
    T_OBJECT,  /* any JSON object nested at most RC_MSG_MAX_DEPTH deep */
    T_BOOL,    /* true or false */
};

struct field {
    const char *name;
    enum ftype type;
    bool required;
    int64_t min, max;           /* characters (strings), value (numbers) or items (lists) */
    const char *const *choices; /* T_ENUM, NULL-terminated */
    const char *def;            /* JSON text of the default for an absent field; NULL: none */
};

static const char *const action_choices[] = {"info", "stop", NULL};
static const char *const domain_choices[] = {"domain-update", "domain-remove", "blacklist-update", "blacklist-remove",
                                             NULL};
static const char *const text_method_choices[] = {"article", "density", "lineblock", NULL};
static const char *const stats_choices[] = {"all",     "kafka-monitor", "redis-monitor", "crawler", "spider",
                                            "machine", "queue",         "rest",          NULL};

/* scraper_schema.json, then redcrawl's extensions (uuid, rules, max_pages, text, text_method, dedup_content,
 * data_pages, refresh_seconds, expected_urls, bloom_fp, bloom_groups). */
static const struct field crawl_fields[] = {
    {"appid", T_ID, true, 3, ID_MAX_CHARS, NULL, NULL},
    {"crawlid", T_ID, true, 1, ID_MAX_CHARS, NULL, NULL},
    {"url", T_URL, true, 0, 0, NULL, NULL},
    {"spiderid", T_ID, false, 1, ID_MAX_CHARS, NULL, "\"link\""},
    {"priority", T_INT, false, 1, 100, NULL, "1"},
    {"maxdepth", T_INT, false, -1, 1000, NULL, "0"}, /* as embedded mode: -1 = no limit (SC capped at 3) */
    {"domain_max_pages", T_INT, false, 0, MAX_PAGES_MAX, NULL, "null"}, /* SC capped at 2,000 */
    {"allowed_domains", T_HOSTS, false, 0, LIST_MAX, NULL, "null"},
    {"allow_regex", T_REGEXES, false, 0, REGEX_LIST_MAX, NULL, "null"},
    {"deny_regex", T_REGEXES, false, 0, REGEX_LIST_MAX, NULL, "null"},
    {"deny_extensions", T_EXTS, false, 0, LIST_MAX, NULL, "null"},
    {"expires", T_INT, false, 0, EXPIRES_MAX, NULL, "0"},
    {"useragent", T_HEADER, false, 3, 1000, NULL, "null"},
    {"cookie", T_HEADER, false, 3, 1000, NULL, "null"},
    {"attrs", T_OBJECT, false, 0, 0, NULL, "null"},
    {"uuid", T_UUID, false, 1, ID_MAX_CHARS, NULL, NULL},
    {"rules", T_OBJECT, false, 0, 0, NULL, "null"},
    {"max_pages", T_INT, false, 0, MAX_PAGES_MAX, NULL, "0"},
    {"text", T_BOOL, false, 0, 0, NULL, "null"},
    {"text_method", T_ENUM, false, 0, 0, text_method_choices, "null"},
    {"dedup_content", T_BOOL, false, 0, 0, NULL, "null"},
    {"data_pages", T_REGEXES, false, 0, REGEX_LIST_MAX, NULL, "null"},
    {"refresh_seconds", T_INT, false, 0, 31536000, NULL, "null"},
    {"expected_urls", T_INT, false, 1000, INT64_C(100000000000), NULL, "null"},
    {"bloom_fp", T_SCALE, false, 0, 1, NULL, "null"},
    {"bloom_groups", T_INT, false, 1, 4, NULL, "null"},
};

/* action_schema.json */
static const struct field action_fields[] = {
    {"uuid", T_UUID, true, 1, ID_MAX_CHARS, NULL, NULL},   {"appid", T_ID, true, 3, ID_MAX_CHARS, NULL, NULL},
    {"crawlid", T_ID, false, 1, ID_MAX_CHARS, NULL, NULL}, {"spiderid", T_ID, true, 1, ID_MAX_CHARS, NULL, NULL},
    {"action", T_ENUM, true, 0, 0, action_choices, NULL},
};

/* stats_schema.json */
static const struct field stats_fields[] = {
    {"uuid", T_UUID, true, 1, ID_MAX_CHARS, NULL, NULL},
    {"appid", T_ID, true, 3, ID_MAX_CHARS, NULL, NULL},
    {"stats", T_ENUM, false, 0, 0, stats_choices, "\"all\""},
};

/* zookeeper_schema.json */
static const struct field domain_fields[] = {
    {"uuid", T_UUID, true, 1, ID_MAX_CHARS, NULL, NULL}, {"appid", T_ID, true, 3, ID_MAX_CHARS, NULL, NULL},
    {"domain", T_HOST, true, 0, 0, NULL, NULL},          {"action", T_ENUM, true, 0, 0, domain_choices, NULL},
    {"hits", T_INT, false, 0, HITS_MAX, NULL, "0"},      {"window", T_INT, false, 0, WINDOW_MAX, NULL, "0"},
    {"scale", T_SCALE, false, 0, 1, NULL, "1.0"},
};

struct kind_table {
    const char *name;
    const char *a_name; /* with its article, for sentences */
    const struct field *fields;
    size_t n;
};

static const struct kind_table kinds[] = {
    [RC_MSG_CRAWL] = {"crawl", "a crawl", crawl_fields, RC_ARRAY_LEN(crawl_fields)},
    [RC_MSG_ACTION] = {"action", "an action", action_fields, RC_ARRAY_LEN(action_fields)},
    [RC_MSG_STATS] = {"stats", "a stats", stats_fields, RC_ARRAY_LEN(stats_fields)},
    [RC_MSG_DOMAIN] = {"domain", "a domain", domain_fields, RC_ARRAY_LEN(domain_fields)},
};

/* ---- UTF-8 helpers ---------------------------------------------------------------------------- */

/* Length of the valid UTF-8 sequence at s (n bytes left), 0 if invalid. */
static size_t utf8_seq(const unsigned char *s, size_t n)
{
    unsigned char c = s[0];
    size_t len;
    uint32_t cp;
    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf) {
        len = 2;
        cp = c & 0x1f;
    } else if (c >= 0xe0 && c <= 0xef) {
        len = 3;
        cp = c & 0x0f;
    } else if (c >= 0xf0 && c <= 0xf4) {
        len = 4;
        cp = c & 0x07;
    } else {
        return 0;
    }
    if (n < len)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3f);
    }
    if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return len;
}

/* Characters (code points) in a valid UTF-8 string. */
static size_t utf8_chars(const char *s, size_t n)
{
    size_t chars = 0;
    for (size_t i = 0; i < n; i++)
        chars += ((unsigned char)s[i] & 0xc0) != 0x80;
    return chars;
}

/* Copies valid UTF-8 SRC (n bytes) into dst (cap bytes), cut at a character boundary. Returns true
 * when all of it fit. */
static bool copy_utf8(char *dst, size_t cap, const char *src, size_t n)
{
    size_t k = n < cap - 1 ? n : cap - 1;
    while (k > 0 && k < n && ((unsigned char)src[k] & 0xc0) == 0x80)
        k--;
    memcpy(dst, src, k);
    dst[k] = '\0';
    return k == n;
}

/* Copies arbitrary bytes into dst as valid UTF-8 without control characters ('?' for each bad byte). */
static void copy_sanitized(char *dst, size_t cap, const char *src)
{
    size_t o = 0, n = strlen(src);
    for (size_t i = 0; i < n && o + 1 < cap;) {
        size_t k = utf8_seq((const unsigned char *)src + i, n - i);
        if (k == 0 || (k == 1 && ((unsigned char)src[i] < 0x20 || src[i] == 0x7f))) {
            dst[o++] = '?';
            i++;
            continue;
        }
        if (o + k >= cap)
            break;
        memcpy(dst + o, src + i, k);
        o += k;
        i += k;
    }
    dst[o] = '\0';
}

/* ---- errors ---------------------------------------------------------------------------------- */

static int fail(rc_msg_error *e, const char *field, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int fail(rc_msg_error *e, const char *field, const char *fmt, ...)
{
    char tmp[RC_MSG_REASON_BUF];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    /* vsnprintf may have cut a quoted value mid-character; callers quote only valid UTF-8. */
    copy_sanitized(e->reason, sizeof e->reason, tmp);
    copy_utf8(e->field, sizeof e->field, field, strlen(field));
    return -EINVAL;
}

/* A bad value quoted back: at most ECHO_MAX bytes, cut at a character boundary, "..." if cut. */
struct echo {
    char s[ECHO_MAX + 4];
};

static const char *echo(struct echo *buf, const char *s)
{
    size_t n = strlen(s);
    if (!copy_utf8(buf->s, ECHO_MAX + 1, s, n))
        memcpy(buf->s + strlen(buf->s), "...", 4);
    return buf->s;
}

static const char *type_name(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT:
        return "an object";
    case JSON_ARRAY:
        return "an array";
    case JSON_STRING:
        return "a string";
    case JSON_INTEGER:
        return "an integer";
    case JSON_REAL:
        return "a real number";
    case JSON_TRUE:
    case JSON_FALSE:
        return "a boolean";
    case JSON_NULL:
    default:
        return "null";
    }
}

/* ---- field checks ---------------------------------------------------------------------------- */

static int want_string(rc_msg_error *e, const char *path, const json_t *v)
{
    if (json_is_string(v))
        return 0;
    return fail(e, path, "must be a string, not %s", type_name(v));
}

static int check_chars_len(rc_msg_error *e, const char *path, const json_t *v, int64_t min, int64_t max)
{
    size_t chars = utf8_chars(json_string_value(v), json_string_length(v));
    if ((int64_t)chars < min || (int64_t)chars > max)
        return fail(e, path, "must be %lld to %lld characters long, not %zu", (long long)min, (long long)max, chars);
    return 0;
}

static int check_id(rc_msg_error *e, const char *path, const json_t *v, int64_t min, int64_t max)
{
    int r;
    char why[160];
    if ((r = want_string(e, path, v)) < 0 || (r = check_chars_len(e, path, v, min, max)) < 0)
        return r;
    /* One rule for every entry point (rc_id_check): ids become paths, keys and topic names. */
    if (rc_id_check(json_string_value(v), (size_t)max, why, sizeof why) < 0)
        return fail(e, path, "%s", why);
    return 0;
}

static int check_header(rc_msg_error *e, const char *path, const json_t *v, int64_t min, int64_t max)
{
    int r;
    if ((r = want_string(e, path, v)) < 0 || (r = check_chars_len(e, path, v, min, max)) < 0)
        return r;
    const char *s = json_string_value(v);
    for (size_t i = 0; s[i]; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x20 || c >= 0x7f)
            return fail(e, path,
                        "must be printable ASCII because it is sent as an HTTP header (found byte 0x%02X at "
                        "offset %zu)",
                        c, i);
    }
    return 0;
}

static int check_url(rc_msg_error *e, const char *path, const json_t *v, char **ret_norm)
{
    int r;
    if ((r = want_string(e, path, v)) < 0)
        return r;
    const char *s = json_string_value(v);
    struct echo eb;
    if (json_string_length(v) == 0)
        return fail(e, path, "must be an absolute http(s) URL, not an empty string");
    if (json_string_length(v) > 2 * RC_URL_MAX)
        return fail(e, path, "is %zu bytes long; URLs of at most %d bytes are accepted", json_string_length(v),
                    RC_URL_MAX);
    char *norm = NULL;
    if (rc_url_has_userinfo(s))
        return fail(e, path, "must not carry credentials (user:password@): they would be dropped");
    r = rc_url_normalize(s, &norm);
    if (r == RC_URL_ESCHEME) {
        size_t sl = strcspn(s, ":/?#");
        char scheme[24];
        if (s[sl] == ':' && sl > 0 && sl < sizeof scheme) {
            memcpy(scheme, s, sl);
            scheme[sl] = '\0';
            return fail(e, path, "must be an http or https URL, not a \"%s:\" URL", echo(&eb, scheme));
        }
        return fail(e, path, "must be an absolute http or https URL: \"%s\" has no such scheme", echo(&eb, s));
    }
    if (r < 0)
        return fail(e, path, "is not a usable http(s) URL (%s): \"%s\"", rc_url_strerror(r), echo(&eb, s));
    *ret_norm = norm;
    return 0;
}

static int check_int(rc_msg_error *e, const char *path, const json_t *v, int64_t min, int64_t max)
{
    if (json_is_real(v))
        return fail(e, path, "must be an integer from %lld to %lld, not the real number %g", (long long)min,
                    (long long)max, json_real_value(v));
    if (!json_is_integer(v))
        return fail(e, path, "must be an integer from %lld to %lld, not %s", (long long)min, (long long)max,
                    type_name(v));
    json_int_t x = json_integer_value(v);
    if (x < min || x > max)
        return fail(e, path, "must be an integer from %lld to %lld, not %lld", (long long)min, (long long)max,
                    (long long)x);
    return 0;
}

static int check_scale(rc_msg_error *e, const char *path, const json_t *v)
{
    if (!json_is_number(v))
        return fail(e, path, "must be a number from 0 to 1, not %s", type_name(v));
    double x = json_number_value(v);
    if (!(x >= 0.0 && x <= 1.0))
        return fail(e, path, "must be a number from 0 to 1, not %g", x);
    return 0;
}

static int check_bool(rc_msg_error *e, const char *path, const json_t *v)
{
    if (!json_is_boolean(v))
        return fail(e, path, "must be true or false, not %s", type_name(v));
    return 0;
}

static int check_enum(rc_msg_error *e, const char *path, const json_t *v, const char *const *choices)
{
    char list[160] = "";
    size_t o = 0;
    for (size_t i = 0; choices[i] && o < sizeof list; i++)
        o += (size_t)snprintf(list + o, sizeof list - o, "%s\"%s\"", i ? ", " : "", choices[i]);
    if (!json_is_string(v))
        return fail(e, path, "must be one of %s, not %s", list, type_name(v));
    for (size_t i = 0; choices[i]; i++)
        if (strcmp(json_string_value(v), choices[i]) == 0 && strlen(choices[i]) == json_string_length(v))
            return 0;
    struct echo eb;
    return fail(e, path, "must be one of %s, not \"%s\"", list, echo(&eb, json_string_value(v)));
}

/* Normalises a host name as sent (IDNA, case) into out. */
static int check_host(rc_msg_error *e, const char *path, const json_t *v, char *out, size_t cap)
{
    int r;
    if ((r = want_string(e, path, v)) < 0)
        return r;
    const char *s = json_string_value(v);
    size_t n = json_string_length(v);
    struct echo eb;
    if (n == 0)
        return fail(e, path, "must be a host name like example.com, not an empty string");
    if (n > HOST_RAW_MAX)
        return fail(e, path, "is %zu bytes long, too long for a host name", n);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
              c == '_' || c >= 0x80))
            return fail(e, path,
                        "must be a bare host name like example.com, without scheme, port, path or "
                        "wildcard: \"%s\"",
                        echo(&eb, s));
    }
    if (s[0] == '.' || strstr(s, ".."))
        return fail(e, path, "has an empty label: \"%s\"", echo(&eb, s));
    char *url = rc_xasprintf("http://%s/", s);
    char *norm = NULL;
    r = rc_url_normalize(url, &norm);
    free(url);
    if (r == 0)
        r = rc_url_host(norm, out, cap);
    free(norm);
    if (r < 0)
        return fail(e, path, "is not a valid host name: \"%s\"", echo(&eb, s));
    return 0;
}

/* The common part of the list types: an array of at most max unique strings. */
static int check_list(rc_msg_error *e, const char *path, const json_t *v, int64_t max, const char *what)
{
    if (!json_is_array(v))
        return fail(e, path, "must be an array of %s, not %s", what, type_name(v));
    size_t n = json_array_size(v);
    if ((int64_t)n > max)
        return fail(e, path, "has %zu items; at most %lld are allowed", n, (long long)max);
    for (size_t i = 0; i < n; i++) {
        json_t *item = json_array_get(v, i);
        char ipath[RC_MSG_FIELD_BUF];
        snprintf(ipath, sizeof ipath, "%s[%zu]", path, i);
        if (!json_is_string(item))
            return fail(e, ipath, "must be a string, not %s", type_name(item));
        for (size_t j = 0; j < i; j++)
            if (json_equal(item, json_array_get(v, j)))
                return fail(e, ipath, "repeats %s[%zu]: the items must be unique", path, j);
    }
    return 0;
}

static int check_hosts(rc_msg_error *e, const char *path, const json_t *v, int64_t max)
{
    int r = check_list(e, path, v, max, "host names");
    if (r < 0)
        return r;
    for (size_t i = 0; i < json_array_size(v); i++) {
        char ipath[RC_MSG_FIELD_BUF], host[RC_MSG_HOST_BUF];
        snprintf(ipath, sizeof ipath, "%s[%zu]", path, i);
        if ((r = check_host(e, ipath, json_array_get(v, i), host, sizeof host)) < 0)
            return r;
    }
    return 0;
}

static int check_regexes(rc_msg_error *e, const char *path, const json_t *v, int64_t max)
{
    int r = check_list(e, path, v, max, "regular expressions");
    if (r < 0)
        return r;
    for (size_t i = 0; i < json_array_size(v); i++) {
        json_t *item = json_array_get(v, i);
        char ipath[RC_MSG_FIELD_BUF];
        snprintf(ipath, sizeof ipath, "%s[%zu]", path, i);
        size_t n = json_string_length(item);
        if (n > REGEX_MAX_BYTES)
            return fail(e, ipath, "is %zu bytes long; patterns of at most %d bytes are accepted", n, REGEX_MAX_BYTES);
        int code;
        PCRE2_SIZE off;
        pcre2_code *re = pcre2_compile((PCRE2_SPTR)json_string_value(item), n, PCRE2_UTF, &code, &off, NULL);
        if (!re) {
            PCRE2_UCHAR msg[160];
            if (pcre2_get_error_message(code, msg, sizeof msg) < 0)
                snprintf((char *)msg, sizeof msg, "error %d", code);
            return fail(e, ipath, "is not a valid regular expression: %s at offset %zu", (const char *)msg,
                        (size_t)off);
        }
        pcre2_code_free(re);
    }
    return 0;
}

static int check_exts(rc_msg_error *e, const char *path, const json_t *v, int64_t max)
{
    int r = check_list(e, path, v, max, "file extensions");
    if (r < 0)
        return r;
    for (size_t i = 0; i < json_array_size(v); i++) {
        json_t *item = json_array_get(v, i);
        const char *s = json_string_value(item);
        size_t n = json_string_length(item);
        char ipath[RC_MSG_FIELD_BUF];
        struct echo eb;
        snprintf(ipath, sizeof ipath, "%s[%zu]", path, i);
        bool ok = n >= 1 && n <= EXT_MAX_BYTES;
        for (size_t k = 0; ok && k < n; k++) {
            unsigned char c = (unsigned char)s[k];
            ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-' ||
                 c == '_' || c == '+';
        }
        if (!ok)
            return fail(e, ipath,
                        "must be a file extension like \"pdf\" (1 to %d letters, digits, '.', '-', '_' "
                        "or '+'), not \"%s\"",
                        EXT_MAX_BYTES, echo(&eb, s));
    }
    return 0;
}

/* True when v (at nesting level `level`) nests deeper than RC_MSG_MAX_DEPTH. */
static bool too_deep(const json_t *v, int level)
{
    if (level > RC_MSG_MAX_DEPTH)
        return true;
    if (json_is_object(v)) {
        const char *k;
        json_t *x;
        json_object_foreach ((json_t *)v, k, x) {
            if (too_deep(x, level + 1))
                return true;
        }
    } else if (json_is_array(v)) {
        size_t i;
        json_t *x;
        json_array_foreach (v, i, x) {
            if (too_deep(x, level + 1))
                return true;
        }
    }
    return false;
}

static int check_object(rc_msg_error *e, const char *path, const json_t *v)
{
    if (!json_is_object(v))
        return fail(e, path, "must be an object, not %s", type_name(v));
    if (too_deep(v, 2))
        return fail(e, path, "is nested too deeply: a request may nest objects and arrays at most %d levels",
                    RC_MSG_MAX_DEPTH);
    return 0;
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
    if (json_is_string(v) && !copy_utf8(dst, RC_MSG_ID_BUF, json_string_value(v), json_string_length(v)))
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
    copy_sanitized(text, sizeof text, jerr->text);
    fail(e, "(root)", "%s: %s (line %d, column %d)", what, text, jerr->line, jerr->column);
}

static int check_field(rc_msg_error *e, const struct field *f, const json_t *v, rc_msg *m)
{
    switch (f->type) {
    case T_UUID: {
        int r = want_string(e, f->name, v);
        return r < 0 ? r : check_chars_len(e, f->name, v, f->min, f->max);
    }
    case T_ID:
        return check_id(e, f->name, v, f->min, f->max);
    case T_URL:
        return check_url(e, f->name, v, &m->url);
    case T_INT:
        return check_int(e, f->name, v, f->min, f->max);
    case T_SCALE:
        return check_scale(e, f->name, v);
    case T_BOOL:
        return check_bool(e, f->name, v);
    case T_ENUM:
        return check_enum(e, f->name, v, f->choices);
    case T_HOST:
        return check_host(e, f->name, v, m->domain, sizeof m->domain);
    case T_HOSTS:
        return check_hosts(e, f->name, v, f->max);
    case T_REGEXES:
        return check_regexes(e, f->name, v, f->max);
    case T_EXTS:
        return check_exts(e, f->name, v, f->max);
    case T_HEADER:
        return check_header(e, f->name, v, f->min, f->max);
    case T_OBJECT:
        return check_object(e, f->name, v);
    }
    return fail(e, f->name, "internal error: unknown field type");
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
        copy_utf8(dst, RC_MSG_ID_BUF, json_string_value(v), json_string_length(v));
}

int rc_msg_parse(const char *data, size_t len, rc_msg *ret, rc_msg_error *err)
{
    rc_msg_error scratch = {0};
    rc_msg_error *e = err ? err : &scratch;
    rc_msg m;
    json_t *root = NULL;
    json_error_t jerr;

    memset(e, 0, sizeof *e);
    memset(&m, 0, sizeof m);
    if (len > RC_MSG_MAX_BYTES) {
        fail(e, "(root)", "the message is %zu bytes, larger than the limit of %d bytes", len, RC_MSG_MAX_BYTES);
        goto fail;
    }
    size_t ws = 0;
    while (ws < len && (data[ws] == ' ' || data[ws] == '\t' || data[ws] == '\n' || data[ws] == '\r'))
        ws++;
    if (ws == len) {
        fail(e, "(root)", len ? "the message holds only whitespace, not a JSON object" : "the message is empty");
        goto fail;
    }
    root = json_loadb(data, len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &jerr);
    if (!root) {
        not_json(e, &jerr);
        goto fail;
    }
    if (!json_is_object(root)) {
        fail(e, "(root)", "the request must be a JSON object, not %s", type_name(root));
        goto fail;
    }
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
    const struct kind_table *t = &kinds[kind];

    /* additionalProperties: false */
    const char *key;
    json_t *v;
    json_object_foreach (root, key, v) {
        size_t i = 0;
        while (i < t->n && strcmp(t->fields[i].name, key) != 0)
            i++;
        if (i == t->n) {
            char allowed[256];
            size_t o = 0;
            for (size_t k = 0; k < t->n && o < sizeof allowed; k++)
                o += (size_t)snprintf(allowed + o, sizeof allowed - o, "%s%s", k ? ", " : "", t->fields[k].name);
            fail(e, key, "is an unknown field in %s request (known: %s)", t->a_name, allowed);
            goto fail;
        }
    }
    for (size_t i = 0; i < t->n; i++) {
        const struct field *f = &t->fields[i];
        v = json_object_get(root, f->name);
        if (!v) {
            if (f->required) {
                fail(e, f->name, "is required in %s request", t->a_name);
                goto fail;
            }
            continue;
        }
        if (check_field(e, f, v, &m) < 0)
            goto fail;
    }

    /* Rules across fields. */
    const char *action = json_string_value(json_object_get(root, "action"));
    if (kind == RC_MSG_ACTION && strcmp(action, "stop") == 0 && !json_object_get(root, "crawlid")) {
        fail(e, "crawlid", "is required for the stop action: it names the crawl to stop");
        goto fail;
    }
    if (kind == RC_MSG_DOMAIN && strcmp(action, "domain-update") == 0) {
        if (get_int(root, "hits", 0) < 1) {
            fail(e, "hits", "must be at least 1 for domain-update: the requests allowed per window");
            goto fail;
        }
        if (get_int(root, "window", 0) < 1) {
            fail(e, "window", "must be at least 1 for domain-update: the window in seconds");
            goto fail;
        }
    }

    /* Defaults, as Scrapy Cluster's validator fills them. */
    for (size_t i = 0; i < t->n; i++) {
        const struct field *f = &t->fields[i];
        if (f->def && !json_object_get(root, f->name)) {
            json_t *d = json_loads(f->def, JSON_DECODE_ANY, NULL);
            if (!d)
                abort();
            json_object_set_new(root, f->name, d);
        }
    }

    set_str(m.uuid, root, "uuid");
    set_str(m.appid, root, "appid");
    set_str(m.crawlid, root, "crawlid");
    set_str(m.spiderid, root, "spiderid");
    m.domain_max_pages = -1;
    m.scale = 1.0;
    switch (m.kind) {
    case RC_MSG_CRAWL:
        m.priority = (int)get_int(root, "priority", 1);
        m.maxdepth = (int)get_int(root, "maxdepth", 0);
        m.expires = get_int(root, "expires", 0);
        m.max_pages = get_int(root, "max_pages", 0);
        m.domain_max_pages = get_int(root, "domain_max_pages", -1);
        break;
    case RC_MSG_ACTION:
        m.action = (rc_msg_action)choice_index(action_choices, action);
        break;
    case RC_MSG_STATS:
        m.stats = (rc_msg_stats)choice_index(stats_choices, json_string_value(json_object_get(root, "stats")));
        break;
    case RC_MSG_DOMAIN:
        m.domain_action = (rc_msg_domain_action)choice_index(domain_choices, action);
        m.hits = get_int(root, "hits", 0);
        m.window = get_int(root, "window", 0);
        m.scale = json_number_value(json_object_get(root, "scale"));
        break;
    }
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
            char host[RC_MSG_HOST_BUF];
            rc_msg_error scratch;
            if (check_host(&scratch, "allowed_domains", h, host, sizeof host) == 0)
                json_array_append_new(hosts, json_string(host));
        }
        json_object_set_new(o, "allowed_domains", hosts);
    }
    copy_if_set(o, d, "useragent");
    copy_if_set(o, d, "cookie");
    copy_if_set(o, d, "domain_max_pages");
    copy_if_set(o, d, "allow_regex");
    copy_if_set(o, d, "deny_regex");
    copy_if_set(o, d, "deny_extensions");
    copy_if_set(o, d, "attrs");
    copy_if_set(o, d, "rules");
    copy_if_set(o, d, "text");
    copy_if_set(o, d, "text_method");
    copy_if_set(o, d, "dedup_content");
    copy_if_set(o, d, "data_pages");
    copy_if_set(o, d, "refresh_seconds");
    copy_if_set(o, d, "expected_urls");
    copy_if_set(o, d, "bloom_fp");
    copy_if_set(o, d, "bloom_groups");
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
