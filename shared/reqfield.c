/* reqfield.c - see reqfield.h.
 *
 * The crawl table started as Scrapy Cluster's scraper_schema.json (JSON Schema draft 4 with
 * "additionalProperties": false, defaults filled in for absent properties) and now holds every field
 * of a job spec. String lengths count characters (code points), as JSON Schema does.
 *
 * Where redcrawl is stricter than Scrapy Cluster, and why:
 * - appid, crawlid, spiderid: letters, digits, '.', '_' and '-', not starting with '.' (they become
 *   parts of file paths, Redis keys and Kafka topic names: rc_id_check).
 * - url: must be an absolute http(s) URL that rc_url_normalize accepts (SC: any string).
 * - allowed_domains, domain: host names (IDNA allowed), checked by normalising them.
 * - allow_regex, deny_regex, data_pages, jump_links: must compile with PCRE2.
 * - useragent, cookie: printable ASCII, they are sent as HTTP header values.
 * - null is a type error, as in SC: defaults apply only to absent fields.
 * - integers must be JSON integers (5.0 is refused, as draft 4 does).
 * - list sizes, regex lengths, expires and the other counts have upper bounds (SC had none).
 * Where redcrawl is looser: maxdepth takes -1 (no limit) to 1000 and domain_max_pages up to
 * MAX_PAGES_MAX (SC capped them at 3 and 2,000), as the embedded mode always did. */
#include "reqfield.h"

#define PCRE2_CODE_UNIT_WIDTH 8

#include <arpa/inet.h>
#include <errno.h>
#include <jansson.h>
#include <pcre2.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recent.h"
#include "url.h"
#include "util.h"

#define LIST_MAX 1000                     /* allowed_domains, deny_extensions, urls */
#define REGEX_LIST_MAX 100                /* allow_regex, deny_regex, data_pages, jump_links */
#define REGEX_MAX_BYTES 1024              /* one pattern */
#define EXT_MAX_BYTES 32                  /* one extension */
#define HOST_RAW_MAX 1024                 /* a host as sent, before IDNA */
#define EXPIRES_MAX INT64_C(253402300799) /* 9999-12-31T23:59:59Z */
#define MAX_PAGES_MAX INT64_C(1000000000000)
#define EXPECTED_URLS_MAX INT64_C(100000000000) /* bloom sizing: 1e11 URLs is ~360 GB of bits at 1e-6 */
#define YEAR_SECONDS 31536000
#define BODY_MAX_MAX (64 * 1024 * 1024) /* a record's body; larger pages go to WARC only */
#define ECHO_MAX 48                     /* bytes of a bad value quoted back in a reason */

#define ID RC_REQFIELD_ID_MAX

/* The page layer names the methods (shared/maintext.h); this layer only checks the name, so that
 * a job with a method no worker knows is refused when it is submitted. */
static const char *const text_methods[] = {"article", "density", "lineblock", NULL};

/* clang-format off */
/* name, type, flags, min, max, lo, hi, choices, default, note. Scrapy Cluster's fields first, in its
 * schema's order, then redcrawl's. */
const rc_reqfield rc_reqfield_crawl[] = {
    {"appid", RC_REQFIELD_ID, RC_REQFIELD_WIRE_REQUIRED, 3, ID, 0, 0, NULL, "\"redcrawl\"", NULL},
    {"crawlid", RC_REQFIELD_ID, RC_REQFIELD_REQUIRED, 1, ID, 0, 0, NULL, NULL, NULL},
    {"url", RC_REQFIELD_URL, RC_REQFIELD_WIRE_REQUIRED, 0, 0, 0, 0, NULL, NULL, NULL},
    {"spiderid", RC_REQFIELD_ID, 0, 1, ID, 0, 0, NULL, "\"link\"", NULL},
    {"priority", RC_REQFIELD_INT, 0, 1, 100, 0, 0, NULL, "1", NULL},
    {"maxdepth", RC_REQFIELD_INT, 0, -1, 1000, 0, 0, NULL, "0", "-1: no limit"},
    {"domain_max_pages", RC_REQFIELD_INT, 0, 0, MAX_PAGES_MAX, 0, 0, NULL, "null", "pages per host, 0: no limit"},
    {"allowed_domains", RC_REQFIELD_HOSTS, 0, 0, LIST_MAX, 0, 0, NULL, "null", NULL},
    {"allow_regex", RC_REQFIELD_REGEXES, 0, 0, REGEX_LIST_MAX, 0, 0, NULL, "null", NULL},
    {"deny_regex", RC_REQFIELD_REGEXES, 0, 0, REGEX_LIST_MAX, 0, 0, NULL, "null", NULL},
    {"deny_extensions", RC_REQFIELD_EXTS, 0, 0, LIST_MAX, 0, 0, NULL, "null", NULL},
    {"expires", RC_REQFIELD_INT, 0, 0, EXPIRES_MAX, 0, 0, NULL, "0", "unix seconds, 0: never"},
    {"useragent", RC_REQFIELD_HEADER, 0, 3, 1000, 0, 0, NULL, "null", NULL},
    {"cookie", RC_REQFIELD_HEADER, 0, 3, 1000, 0, 0, NULL, "null", NULL},
    {"attrs", RC_REQFIELD_OBJECT, 0, 0, 0, 0, 0, NULL, "null", "copied into every page record and item"},
    {"uuid", RC_REQFIELD_UUID, RC_REQFIELD_WIRE_ONLY, 1, ID, 0, 0, NULL, NULL, NULL},
    {"rules", RC_REQFIELD_OBJECT, 0, 0, 0, 0, 0, NULL, "null", "the extraction rule document"},
    {"max_pages", RC_REQFIELD_INT, 0, 0, MAX_PAGES_MAX, 0, 0, NULL, "0", "0: no limit"},
    {"text", RC_REQFIELD_BOOL, 0, 0, 0, 0, 0, NULL, "false", NULL},
    {"text_method", RC_REQFIELD_ENUM, 0, 0, 0, 0, 0, text_methods, "null", "the main-text method, article by default"},
    {"dedup_content", RC_REQFIELD_BOOL, 0, 0, 0, 0, 0, NULL, "true", NULL},
    {"data_pages", RC_REQFIELD_REGEXES, 0, 0, REGEX_LIST_MAX, 0, 0, NULL, "null", NULL},
    {"refresh_seconds", RC_REQFIELD_INT, 0, 0, YEAR_SECONDS, 0, 0, NULL, "0", "0: never"},
    {"expected_urls", RC_REQFIELD_INT, 0, 1000, EXPECTED_URLS_MAX, 0, 0, NULL, "null", "the bloom's first filter holds them all; unset: it starts small and grows"},
    {"bloom_fp", RC_REQFIELD_NUMBER, 0, 0, 0, 1e-12, 0.5, NULL, "1e-9", "the dedup filter's false-positive rate"},
    {"bloom_groups", RC_REQFIELD_INT, 0, 1, 4, 0, 0, NULL, "1", NULL},
    {"urls", RC_REQFIELD_URLS, RC_REQFIELD_SPEC_ONLY, 0, LIST_MAX, 0, 0, NULL, "null", NULL},
    {"jump_links", RC_REQFIELD_REGEXES, 0, 0, REGEX_LIST_MAX, 0, 0, NULL, "null", NULL},
    {"warc", RC_REQFIELD_BOOL, 0, 0, 0, 0, 0, NULL, "false", NULL},
    {"body", RC_REQFIELD_BOOL, 0, 0, 0, 0, 0, NULL, "false", NULL},
    {"body_max", RC_REQFIELD_INT, 0, 1, BODY_MAX_MAX, 0, 0, NULL, "1048576", NULL},
    {"sitemaps", RC_REQFIELD_BOOL, 0, 0, 0, 0, 0, NULL, "false", NULL},
    {"dedup_canonical", RC_REQFIELD_BOOL, 0, 0, 0, 0, 0, NULL, "false", NULL},
    {"skip_recent_hours", RC_REQFIELD_INT, 0, 0, RC_RECENT_MAX_HOURS, 0, 0, NULL, "0", "0: off"},
    {"meta_refresh_max", RC_REQFIELD_INT, 0, -1, 86400, 0, 0, NULL, "5", "seconds, -1: never"},
};
/* clang-format on */
const size_t rc_reqfield_crawl_len = RC_ARRAY_LEN(rc_reqfield_crawl);

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
bool rc_reqfield_copy_utf8(char *dst, size_t cap, const char *src, size_t n)
{
    size_t k = n < cap - 1 ? n : cap - 1;
    while (k > 0 && k < n && ((unsigned char)src[k] & 0xc0) == 0x80)
        k--;
    memcpy(dst, src, k);
    dst[k] = '\0';
    return k == n;
}

/* Copies arbitrary bytes into dst as valid UTF-8 without control characters ('?' for each bad byte). */
void rc_reqfield_sanitize(char *dst, size_t cap, const char *src)
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

int rc_reqfield_vset(char *field_out, size_t fcap, char *reason_out, size_t rcap, const char *field, const char *fmt,
                     va_list ap)
{
    char tmp[RC_REQFIELD_REASON_BUF];
    vsnprintf(tmp, sizeof tmp, fmt, ap);
    /* vsnprintf may have cut a quoted value mid-character; callers quote only valid UTF-8. */
    rc_reqfield_sanitize(reason_out, rcap, tmp);
    rc_reqfield_copy_utf8(field_out, fcap, field, strlen(field));
    return -EINVAL;
}

int rc_reqfield_fail(rc_reqfield_error *e, const char *field, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int r = rc_reqfield_vset(e->field, sizeof e->field, e->reason, sizeof e->reason, field, fmt, ap);
    va_end(ap);
    return r;
}

/* A bad value quoted back: at most ECHO_MAX bytes, cut at a character boundary, "..." if cut. */
struct echo {
    char s[ECHO_MAX + 4];
};

static const char *echo(struct echo *buf, const char *s)
{
    size_t n = strlen(s);
    if (!rc_reqfield_copy_utf8(buf->s, ECHO_MAX + 1, s, n))
        memcpy(buf->s + strlen(buf->s), "...", 4);
    return buf->s;
}

const char *rc_reqfield_type_name(const json_t *v)
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

static int want_string(rc_reqfield_error *e, const char *path, const json_t *v)
{
    if (json_is_string(v))
        return 0;
    return rc_reqfield_fail(e, path, "must be a string, not %s", rc_reqfield_type_name(v));
}

static int check_chars_len(rc_reqfield_error *e, const char *path, const json_t *v, int64_t min, int64_t max)
{
    size_t chars = utf8_chars(json_string_value(v), json_string_length(v));
    if ((int64_t)chars < min || (int64_t)chars > max)
        return rc_reqfield_fail(e, path, "must be %lld to %lld characters long, not %zu", (long long)min,
                                (long long)max, chars);
    return 0;
}

static int check_id(rc_reqfield_error *e, const char *path, const json_t *v, int64_t min, int64_t max)
{
    int r;
    char why[160];
    if ((r = want_string(e, path, v)) < 0 || (r = check_chars_len(e, path, v, min, max)) < 0)
        return r;
    /* One rule for every entry point (rc_id_check): ids become paths, keys and topic names. */
    if (rc_id_check(json_string_value(v), (size_t)max, why, sizeof why) < 0)
        return rc_reqfield_fail(e, path, "%s", why);
    return 0;
}

static int check_header(rc_reqfield_error *e, const char *path, const json_t *v, int64_t min, int64_t max)
{
    int r;
    if ((r = want_string(e, path, v)) < 0 || (r = check_chars_len(e, path, v, min, max)) < 0)
        return r;
    const char *s = json_string_value(v);
    for (size_t i = 0; s[i]; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x20 || c >= 0x7f)
            return rc_reqfield_fail(
                e, path,
                "must be printable ASCII because it is sent as an HTTP header (found byte 0x%02X at "
                "offset %zu)",
                c, i);
    }
    return 0;
}

int rc_reqfield_url(rc_reqfield_error *e, const char *path, const json_t *v, char **ret_norm)
{
    int r;
    if ((r = want_string(e, path, v)) < 0)
        return r;
    const char *s = json_string_value(v);
    struct echo eb;
    if (json_string_length(v) == 0)
        return rc_reqfield_fail(e, path, "must be an absolute http(s) URL, not an empty string");
    if (json_string_length(v) > 2 * RC_URL_MAX)
        return rc_reqfield_fail(e, path, "is %zu bytes long; URLs of at most %d bytes are accepted",
                                json_string_length(v), RC_URL_MAX);
    char *norm = NULL;
    if (rc_url_has_userinfo(s))
        return rc_reqfield_fail(e, path, "must not carry credentials (user:password@): they would be dropped");
    r = rc_url_normalize(s, &norm);
    if (r == RC_URL_ESCHEME) {
        size_t sl = strcspn(s, ":/?#");
        char scheme[24];
        if (s[sl] == ':' && sl > 0 && sl < sizeof scheme) {
            memcpy(scheme, s, sl);
            scheme[sl] = '\0';
            return rc_reqfield_fail(e, path, "must be an http or https URL, not a \"%s:\" URL", echo(&eb, scheme));
        }
        return rc_reqfield_fail(e, path, "must be an absolute http or https URL: \"%s\" has no such scheme",
                                echo(&eb, s));
    }
    if (r < 0)
        return rc_reqfield_fail(e, path, "is not a usable http(s) URL (%s): \"%s\"", rc_url_strerror(r), echo(&eb, s));
    *ret_norm = norm;
    return 0;
}

static int check_int(rc_reqfield_error *e, const char *path, const json_t *v, int64_t min, int64_t max)
{
    if (json_is_real(v))
        return rc_reqfield_fail(e, path, "must be an integer from %lld to %lld, not the real number %g", (long long)min,
                                (long long)max, json_real_value(v));
    if (!json_is_integer(v))
        return rc_reqfield_fail(e, path, "must be an integer from %lld to %lld, not %s", (long long)min, (long long)max,
                                rc_reqfield_type_name(v));
    json_int_t x = json_integer_value(v);
    if (x < min || x > max)
        return rc_reqfield_fail(e, path, "must be an integer from %lld to %lld, not %lld", (long long)min,
                                (long long)max, (long long)x);
    return 0;
}

static int check_number(rc_reqfield_error *e, const char *path, const json_t *v, double lo, double hi)
{
    if (!json_is_number(v))
        return rc_reqfield_fail(e, path, "must be a number from %g to %g, not %s", lo, hi, rc_reqfield_type_name(v));
    double x = json_number_value(v);
    if (!(x >= lo && x <= hi))
        return rc_reqfield_fail(e, path, "must be a number from %g to %g, not %g", lo, hi, x);
    return 0;
}

static int check_bool(rc_reqfield_error *e, const char *path, const json_t *v)
{
    if (!json_is_boolean(v))
        return rc_reqfield_fail(e, path, "must be true or false, not %s", rc_reqfield_type_name(v));
    return 0;
}

static int check_enum(rc_reqfield_error *e, const char *path, const json_t *v, const char *const *choices)
{
    char list[160] = "";
    size_t o = 0;
    for (size_t i = 0; choices[i] && o < sizeof list; i++)
        o += (size_t)snprintf(list + o, sizeof list - o, "%s\"%s\"", i ? ", " : "", choices[i]);
    if (!json_is_string(v))
        return rc_reqfield_fail(e, path, "must be one of %s, not %s", list, rc_reqfield_type_name(v));
    for (size_t i = 0; choices[i]; i++)
        if (strcmp(json_string_value(v), choices[i]) == 0 && strlen(choices[i]) == json_string_length(v))
            return 0;
    struct echo eb;
    return rc_reqfield_fail(e, path, "must be one of %s, not \"%s\"", list, echo(&eb, json_string_value(v)));
}

/* An IPv6 literal, bracketed or bare ("::1": a seed's host as the URL parser gives it, so the
 * scope derived from an IPv6 seed reads back), in the URL host's own form. */
static int ipv6_host(rc_reqfield_error *e, const char *path, const char *s, char *out, size_t cap)
{
    char inner[64];
    struct in6_addr a;
    size_t n = strlen(s);
    int bracketed = s[0] == '[' && n > 2 && s[n - 1] == ']';
    struct echo eb;
    if ((s[0] == '[' && !bracketed) || n - 2 * (size_t)bracketed >= sizeof inner)
        return rc_reqfield_fail(e, path, "is not a valid host name: \"%s\"", echo(&eb, s));
    snprintf(inner, sizeof inner, "%.*s", (int)(n - 2 * (size_t)bracketed), s + bracketed);
    if (inet_pton(AF_INET6, inner, &a) != 1)
        return rc_reqfield_fail(e, path,
                                "must be a bare host name like example.com or an IPv6 address, without scheme, "
                                "port, path or wildcard: \"%s\"",
                                echo(&eb, s));
    char *url = rc_xasprintf("http://[%s]/", inner), *norm = NULL;
    int r = rc_url_normalize(url, &norm);
    free(url);
    if (r == 0)
        r = rc_url_host(norm, out, cap);
    free(norm);
    return r < 0 ? rc_reqfield_fail(e, path, "is not a valid host name: \"%s\"", echo(&eb, s)) : 0;
}

/* Normalises a host name as sent (IDNA, case) into out. */
int rc_reqfield_host(rc_reqfield_error *e, const char *path, const json_t *v, char *out, size_t cap)
{
    int r;
    if ((r = want_string(e, path, v)) < 0)
        return r;
    const char *s = json_string_value(v);
    size_t n = json_string_length(v);
    struct echo eb;
    if (n == 0)
        return rc_reqfield_fail(e, path, "must be a host name like example.com, not an empty string");
    if (n > HOST_RAW_MAX)
        return rc_reqfield_fail(e, path, "is %zu bytes long, too long for a host name", n);
    if (s[0] == '[' || strchr(s, ':'))
        return ipv6_host(e, path, s, out, cap);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
              c == '_' || c >= 0x80))
            return rc_reqfield_fail(e, path,
                                    "must be a bare host name like example.com, without scheme, port, path or "
                                    "wildcard: \"%s\"",
                                    echo(&eb, s));
    }
    if (s[0] == '.' || strstr(s, ".."))
        return rc_reqfield_fail(e, path, "has an empty label: \"%s\"", echo(&eb, s));
    char *url = rc_xasprintf("http://%s/", s);
    char *norm = NULL;
    r = rc_url_normalize(url, &norm);
    free(url);
    if (r == 0)
        r = rc_url_host(norm, out, cap);
    free(norm);
    if (r < 0)
        return rc_reqfield_fail(e, path, "is not a valid host name: \"%s\"", echo(&eb, s));
    return 0;
}

/* The common part of the list types: an array of at most max unique strings. */
static int check_list(rc_reqfield_error *e, const char *path, const json_t *v, int64_t max, const char *what)
{
    if (!json_is_array(v))
        return rc_reqfield_fail(e, path, "must be an array of %s, not %s", what, rc_reqfield_type_name(v));
    size_t n = json_array_size(v);
    if ((int64_t)n > max)
        return rc_reqfield_fail(e, path, "has %zu items; at most %lld are allowed", n, (long long)max);
    for (size_t i = 0; i < n; i++) {
        json_t *item = json_array_get(v, i);
        char ipath[RC_REQFIELD_PATH_BUF];
        snprintf(ipath, sizeof ipath, "%s[%zu]", path, i);
        if (!json_is_string(item))
            return rc_reqfield_fail(e, ipath, "must be a string, not %s", rc_reqfield_type_name(item));
        for (size_t j = 0; j < i; j++)
            if (json_equal(item, json_array_get(v, j)))
                return rc_reqfield_fail(e, ipath, "repeats %s[%zu]: the items must be unique", path, j);
    }
    return 0;
}

static int check_hosts(rc_reqfield_error *e, const char *path, const json_t *v, int64_t max)
{
    int r = check_list(e, path, v, max, "host names");
    if (r < 0)
        return r;
    for (size_t i = 0; i < json_array_size(v); i++) {
        char ipath[RC_REQFIELD_PATH_BUF], host[RC_REQFIELD_HOST_BUF];
        snprintf(ipath, sizeof ipath, "%s[%zu]", path, i);
        if ((r = rc_reqfield_host(e, ipath, json_array_get(v, i), host, sizeof host)) < 0)
            return r;
    }
    return 0;
}

static int check_regexes(rc_reqfield_error *e, const char *path, const json_t *v, int64_t max)
{
    int r = check_list(e, path, v, max, "regular expressions");
    if (r < 0)
        return r;
    for (size_t i = 0; i < json_array_size(v); i++) {
        json_t *item = json_array_get(v, i);
        char ipath[RC_REQFIELD_PATH_BUF];
        snprintf(ipath, sizeof ipath, "%s[%zu]", path, i);
        size_t n = json_string_length(item);
        if (n > REGEX_MAX_BYTES)
            return rc_reqfield_fail(e, ipath, "is %zu bytes long; patterns of at most %d bytes are accepted", n,
                                    REGEX_MAX_BYTES);
        int code;
        PCRE2_SIZE off;
        pcre2_code *re = pcre2_compile((PCRE2_SPTR)json_string_value(item), n, PCRE2_UTF, &code, &off, NULL);
        if (!re) {
            PCRE2_UCHAR msg[160];
            if (pcre2_get_error_message(code, msg, sizeof msg) < 0)
                snprintf((char *)msg, sizeof msg, "error %d", code);
            return rc_reqfield_fail(e, ipath, "is not a valid regular expression: %s at offset %zu", (const char *)msg,
                                    (size_t)off);
        }
        pcre2_code_free(re);
    }
    return 0;
}

static int check_exts(rc_reqfield_error *e, const char *path, const json_t *v, int64_t max)
{
    int r = check_list(e, path, v, max, "file extensions");
    if (r < 0)
        return r;
    for (size_t i = 0; i < json_array_size(v); i++) {
        json_t *item = json_array_get(v, i);
        const char *s = json_string_value(item);
        size_t n = json_string_length(item);
        char ipath[RC_REQFIELD_PATH_BUF];
        struct echo eb;
        snprintf(ipath, sizeof ipath, "%s[%zu]", path, i);
        bool ok = n >= 1 && n <= EXT_MAX_BYTES;
        for (size_t k = 0; ok && k < n; k++) {
            unsigned char c = (unsigned char)s[k];
            ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-' ||
                 c == '_' || c == '+';
        }
        if (!ok)
            return rc_reqfield_fail(e, ipath,
                                    "must be a file extension like \"pdf\" (1 to %d letters, digits, '.', '-', '_' "
                                    "or '+'), not \"%s\"",
                                    EXT_MAX_BYTES, echo(&eb, s));
    }
    return 0;
}

/* True when v (at nesting level `level`) nests deeper than RC_REQFIELD_MAX_DEPTH. */
static bool too_deep(const json_t *v, int level)
{
    if (level > RC_REQFIELD_MAX_DEPTH)
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

static int check_object(rc_reqfield_error *e, const char *path, const json_t *v)
{
    if (!json_is_object(v))
        return rc_reqfield_fail(e, path, "must be an object, not %s", rc_reqfield_type_name(v));
    if (too_deep(v, 2))
        return rc_reqfield_fail(e, path,
                                "is nested too deeply: a request may nest objects and arrays at most %d levels",
                                RC_REQFIELD_MAX_DEPTH);
    return 0;
}
static int check_urls(rc_reqfield_error *e, const char *path, const json_t *v, int64_t max)
{
    if (!json_is_array(v))
        return rc_reqfield_fail(e, path, "must be an array of http(s) URLs, not %s", rc_reqfield_type_name(v));
    size_t n = json_array_size(v);
    if ((int64_t)n > max)
        return rc_reqfield_fail(e, path, "has %zu items; at most %lld are allowed", n, (long long)max);
    for (size_t i = 0; i < n; i++) {
        char ipath[RC_REQFIELD_PATH_BUF], *norm = NULL;
        snprintf(ipath, sizeof ipath, "%s[%zu]", path, i);
        int r = rc_reqfield_url(e, ipath, json_array_get(v, i), &norm);
        free(norm);
        if (r < 0)
            return r;
    }
    return 0;
}

/* ---- the table ------------------------------------------------------------------------------- */

const rc_reqfield *rc_reqfield_find(const rc_reqfield *rows, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(rows[i].name, name) == 0)
            return &rows[i];
    return NULL;
}

static int check_value(const rc_reqfield *f, const json_t *v, rc_reqfield_error *e)
{
    switch (f->type) {
    case RC_REQFIELD_UUID: {
        int r = want_string(e, f->name, v);
        return r < 0 ? r : check_chars_len(e, f->name, v, f->min, f->max);
    }
    case RC_REQFIELD_ID:
        return check_id(e, f->name, v, f->min, f->max);
    case RC_REQFIELD_URL: {
        char *norm = NULL;
        int r = rc_reqfield_url(e, f->name, v, &norm);
        free(norm);
        return r;
    }
    case RC_REQFIELD_URLS:
        return check_urls(e, f->name, v, f->max);
    case RC_REQFIELD_INT:
        return check_int(e, f->name, v, f->min, f->max);
    case RC_REQFIELD_NUMBER:
        return check_number(e, f->name, v, f->lo, f->hi);
    case RC_REQFIELD_BOOL:
        return check_bool(e, f->name, v);
    case RC_REQFIELD_ENUM:
        return check_enum(e, f->name, v, f->choices);
    case RC_REQFIELD_HOST: {
        char host[RC_REQFIELD_HOST_BUF];
        return rc_reqfield_host(e, f->name, v, host, sizeof host);
    }
    case RC_REQFIELD_HOSTS:
        return check_hosts(e, f->name, v, f->max);
    case RC_REQFIELD_REGEXES:
        return check_regexes(e, f->name, v, f->max);
    case RC_REQFIELD_EXTS:
        return check_exts(e, f->name, v, f->max);
    case RC_REQFIELD_HEADER:
        return check_header(e, f->name, v, f->min, f->max);
    case RC_REQFIELD_OBJECT:
        return check_object(e, f->name, v);
    }
    return rc_reqfield_fail(e, f->name, "internal error: unknown field type");
}

int rc_reqfield_check(const rc_reqfield *f, const json_t *v, rc_reqfield_error *e)
{
    int r = check_value(f, v, e);
    if (r < 0 && f->note) {
        size_t n = strlen(e->reason);
        snprintf(e->reason + n, sizeof e->reason - n, " (%s)", f->note);
    }
    return r;
}

json_t *rc_reqfield_default(const rc_reqfield *f)
{
    if (!f->def)
        return NULL;
    json_t *d = json_loads(f->def, JSON_DECODE_ANY, NULL);
    if (!d)
        abort(); /* a bad default in the table above: a bug, caught by every test */
    return d;
}
