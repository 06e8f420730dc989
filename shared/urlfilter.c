/* urlfilter.c - see urlfilter.h. Works on normalised URLs, so it can scan bytes. */
#include "urlfilter.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <ctype.h>
#include <errno.h>
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "util.h"

/* Limits of every regex match (crawl requests write the regexes, sites the links they run on;
 * the extraction rules take them too): a runaway pattern gives up after about 2 ms of CPU per
 * link instead of PCRE2's default 10,000,000 steps (about 20-50 ms, times --max-links per page). */
#define MATCH_LIMIT 1000000 /* backtracking steps */
#define DEPTH_LIMIT 10000

/* Scrapy's IGNORED_EXTENSIONS, the usual list for an HTML crawl. */
static const char *const default_ext[] = {
    "7z",   "7zip", "bz2", "rar", "tar",  "tar.gz", "xz",   "zip",   "gz",  "tgz", "mng",  "pct",  "bmp", "gif", "jpg",
    "jpeg", "png",  "pst", "psp", "tif",  "tiff",   "ai",   "drw",   "dxf", "eps", "ps",   "svg",  "cdr", "ico", "webp",
    "avif", "heic", "mp3", "wma", "ogg",  "wav",    "ra",   "aac",   "mid", "au",  "aiff", "flac", "m4a", "3gp", "asf",
    "asx",  "avi",  "mov", "mp4", "mpg",  "qt",     "rm",   "swf",   "wmv", "m4v", "flv",  "webm", "mkv", "xls", "xlsx",
    "ppt",  "pptx", "pps", "doc", "docx", "odt",    "ods",  "odg",   "odp", "css", "pdf",  "exe",  "bin", "rss", "dmg",
    "iso",  "apk",  "jar", "msi", "deb",  "rpm",    "woff", "woff2", "ttf", "eot",
};

static const char *const session_params[] = {
    "jsessionid", "phpsessid", "sid", "sessionid", "session_id", "aspsessionid", "cfid", "cftoken", "zenid",
};

struct rc_urlfilter {
    rc_urlfilter_conf c;
    char **ext;
    size_t *ext_len; /* strlen of each */
    size_t n_ext, max_ext_len;
    size_t *ext_set; /* open addressing over ext (index + 1; 0 = empty), ext_cap slots: a link's
                        extension is looked up, not compared with each of the ~90 */
    size_t ext_cap;
    pcre2_code **allow, **deny, **data, **jump; /* JIT-compiled: PCRE2 lets threads share them */
    size_t n_allow, n_deny, n_data, n_jump;
    pcre2_match_context *mctx; /* the limits above; only read by a match, so threads share it too */
    int this_year;
};

void rc_urlfilter_conf_init(rc_urlfilter_conf *c)
{
    memset(c, 0, sizeof *c);
    c->max_url_len = 2048;
    c->max_path_depth = 16;
    c->max_segment_repeats = 2;
    c->max_query_params = 16;
    c->max_years_away = 3;
    c->strip_session_ids = 1;
}

static char tolower_ascii(char c)
{
    return c >= 'A' && c <= 'Z' ? (char)(c + 32) : c;
}

/* FNV-1a of S[0..n) lower-cased (ASCII). */
static uint32_t ext_hash(const char *s, size_t n)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)tolower_ascii(s[i])) * 16777619u;
    return h;
}

/* The slot of the extension S[0..n) (any case) in f->ext_set: its entry, or the empty slot. */
static size_t *ext_slot(const rc_urlfilter *f, const char *s, size_t n)
{
    for (size_t i = ext_hash(s, n) & (f->ext_cap - 1);; i = (i + 1) & (f->ext_cap - 1)) {
        size_t k = f->ext_set[i];
        if (!k || (f->ext_len[k - 1] == n && strncasecmp(f->ext[k - 1], s, n) == 0))
            return &f->ext_set[i];
    }
}

static int compile_all(const char *const *src, size_t n, pcre2_code ***out, const char *what, char *err, size_t cap)
{
    *out = rc_xcalloc(n ? n : 1, sizeof(pcre2_code *));
    for (size_t i = 0; i < n; i++) {
        int code;
        PCRE2_SIZE off;
        (*out)[i] = pcre2_compile((PCRE2_SPTR)src[i], PCRE2_ZERO_TERMINATED, PCRE2_UTF, &code, &off, NULL);
        if (!(*out)[i]) {
            PCRE2_UCHAR msg[160];
            pcre2_get_error_message(code, msg, sizeof msg);
            snprintf(err, cap, "%s[%zu]: %s at offset %zu", what, i, (const char *)msg, (size_t)off);
            return -EINVAL;
        }
        pcre2_jit_compile((*out)[i], PCRE2_JIT_COMPLETE); /* optional speed-up; falls back silently */
    }
    return 0;
}

rc_urlfilter *rc_urlfilter_new(const rc_urlfilter_conf *c, char *err, size_t cap)
{
    rc_urlfilter *f = rc_xcalloc(1, sizeof *f);
    f->c = *c;
    f->c.allow_re = f->c.deny_re = f->c.deny_ext = f->c.data_re = f->c.jump_re = NULL;
    const char *const *ext = c->deny_ext ? c->deny_ext : default_ext;
    size_t n_ext = c->deny_ext ? c->n_deny_ext : RC_ARRAY_LEN(default_ext);
    f->ext = rc_xcalloc(n_ext ? n_ext : 1, sizeof(char *));
    f->ext_len = rc_xcalloc(n_ext ? n_ext : 1, sizeof(size_t));
    for (size_t i = 0; i < n_ext; i++) {
        const char *e = ext[i][0] == '.' ? ext[i] + 1 : ext[i];
        f->ext[f->n_ext] = rc_xstrdup(e);
        f->ext_len[f->n_ext] = strlen(e);
        rc_ascii_lower(f->ext[f->n_ext], f->ext_len[f->n_ext]);
        f->max_ext_len = RC_MAX(f->max_ext_len, f->ext_len[f->n_ext]);
        f->n_ext++;
    }
    for (f->ext_cap = 16; f->ext_cap < 2 * f->n_ext;)
        f->ext_cap *= 2;
    f->ext_set = rc_xcalloc(f->ext_cap, sizeof *f->ext_set);
    for (size_t i = 0; i < f->n_ext; i++) {
        size_t *slot = ext_slot(f, f->ext[i], f->ext_len[i]);
        if (!*slot)
            *slot = i + 1;
    }
    f->mctx = rc_urlfilter_match_limits();
    f->n_allow = c->n_allow_re;
    f->n_deny = c->n_deny_re;
    f->n_data = c->n_data_re;
    f->n_jump = c->n_jump_re;
    if (compile_all(c->allow_re, c->n_allow_re, &f->allow, "allow_regex", err, cap) < 0 ||
        compile_all(c->deny_re, c->n_deny_re, &f->deny, "deny_regex", err, cap) < 0 ||
        compile_all(c->data_re, c->n_data_re, &f->data, "data_pages", err, cap) < 0 ||
        compile_all(c->jump_re, c->n_jump_re, &f->jump, "jump_links", err, cap) < 0) {
        rc_urlfilter_free(f);
        return NULL;
    }
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    f->this_year = tm.tm_year + 1900;
    return f;
}

pcre2_match_context *rc_urlfilter_match_limits(void)
{
    pcre2_match_context *m = pcre2_match_context_create(NULL);
    if (!m) {
        fprintf(stderr, "redcrawl: out of memory in PCRE2\n");
        abort();
    }
    pcre2_set_match_limit(m, MATCH_LIMIT);
    pcre2_set_depth_limit(m, DEPTH_LIMIT);
    return m;
}

void rc_urlfilter_free(rc_urlfilter *f)
{
    if (!f)
        return;
    for (size_t i = 0; i < f->n_ext; i++)
        free(f->ext[i]);
    free(f->ext);
    free(f->ext_len);
    free(f->ext_set);
    for (size_t i = 0; f->allow && i < f->n_allow; i++)
        pcre2_code_free(f->allow[i]);
    for (size_t i = 0; f->deny && i < f->n_deny; i++)
        pcre2_code_free(f->deny[i]);
    for (size_t i = 0; f->data && i < f->n_data; i++)
        pcre2_code_free(f->data[i]);
    for (size_t i = 0; f->jump && i < f->n_jump; i++)
        pcre2_code_free(f->jump[i]);
    pcre2_match_context_free(f->mctx);
    free(f->jump);
    free(f->allow);
    free(f->deny);
    free(f->data);
    free(f);
}

/* Whether one of N regexes matches URL. The match data is the call's own: a match writes into it
 * (offsets, the interpreter's backtracking frames) and a filter is used by several parse threads
 * at once. One small allocation per URL checked, next to the regexes' own work. */
static int any_match(const rc_urlfilter *f, pcre2_code *const *re, size_t n, const char *url)
{
    if (n == 0)
        return 0;
    pcre2_match_data *md = pcre2_match_data_create(1, NULL);
    if (!md) {
        fprintf(stderr, "redcrawl: out of memory in PCRE2\n");
        abort();
    }
    int hit = 0;
    for (size_t i = 0; !hit && i < n; i++)
        hit = pcre2_match(re[i], (PCRE2_SPTR)url, PCRE2_ZERO_TERMINATED, 0, 0, md, f->mctx) >= 0;
    pcre2_match_data_free(md);
    return hit;
}

/* The path of a normalised absolute URL: from the first '/' after "scheme://". */
static const char *path_of(const char *url)
{
    const char *p = strstr(url, "://");
    p = p ? strchr(p + 3, '/') : NULL;
    return p ? p : "/";
}

static int bad_extension(const rc_urlfilter *f, const char *path, size_t plen)
{
    const char *last = path;
    for (size_t i = 0; i < plen; i++)
        if (path[i] == '/')
            last = path + i + 1;
    size_t llen = plen - (size_t)(last - path);
    /* An extension follows a dot inside the last segment (not its first byte): what follows each
     * such dot, lower-cased, is looked up ("tar.gz" has two dots). */
    size_t lo = llen > f->max_ext_len + 1 ? llen - f->max_ext_len - 1 : 1;
    for (size_t j = llen; j-- > lo;)
        if (last[j] == '.' && *ext_slot(f, last + j + 1, llen - j - 1))
            return 1;
    return 0;
}

static int repeated_segments(const char *path, size_t plen, int max)
{
    /* Each segment counted against those before it as it is found; paths are short (depth is
     * capped first) and only the first 64 segments are looked at. */
    const char *seg[64];
    size_t len[64];
    int n = 0;
    for (size_t i = 0; i < plen && n < 64;) {
        while (i < plen && path[i] == '/')
            i++;
        size_t s = i;
        while (i < plen && path[i] != '/')
            i++;
        if (i == s)
            continue;
        int count = 1;
        for (int b = 0; b < n; b++)
            count += len[b] == i - s && memcmp(seg[b], path + s, i - s) == 0;
        if (count > max)
            return 1;
        seg[n] = path + s;
        len[n] = i - s;
        n++;
    }
    return 0;
}

/* A calendar trap walks years: any 4-digit 19xx/20xx number delimited by non-digits that is
 * more than max years from now. */
static int far_year(const char *s, int this_year, int max)
{
    for (const char *p = s; *p; p++) {
        if (!isdigit((unsigned char)*p) || (p > s && isdigit((unsigned char)p[-1])))
            continue;
        if (isdigit((unsigned char)p[1]) && isdigit((unsigned char)p[2]) && isdigit((unsigned char)p[3]) &&
            !isdigit((unsigned char)p[4]) && (p[0] == '1' || p[0] == '2') && (p[1] == '9' || p[1] == '0')) {
            int y = (p[0] - '0') * 1000 + (p[1] - '0') * 100 + (p[2] - '0') * 10 + (p[3] - '0');
            if (y >= 1900 && y <= 2099 && abs(y - this_year) > max)
                return 1;
        }
    }
    return 0;
}

const char *rc_urlfilter_check(const rc_urlfilter *f, const char *url)
{
    size_t ulen = strlen(url);
    if (f->c.max_url_len && ulen > f->c.max_url_len)
        return "too-long";
    const char *path = path_of(url);
    size_t plen = strcspn(path, "?#");
    const char *query = path[plen] == '?' ? path + plen + 1 : NULL;
    int depth = 0;
    for (size_t i = 0; i < plen; i++)
        depth += path[i] == '/' && i + 1 < plen;
    if (f->c.max_path_depth && depth > f->c.max_path_depth)
        return "path-depth";
    if (f->c.max_segment_repeats && repeated_segments(path, plen, f->c.max_segment_repeats))
        return "repeated-segments";
    if (query && f->c.max_query_params) {
        int params = 1;
        for (const char *q = query; *q && *q != '#'; q++)
            params += *q == '&';
        if (params > f->c.max_query_params)
            return "query-params";
    }
    if (f->c.max_years_away && far_year(path, f->this_year, f->c.max_years_away))
        return "calendar";
    if (bad_extension(f, path, plen))
        return "extension";
    if (any_match(f, f->deny, f->n_deny, url))
        return "denied";
    if (f->n_allow && !any_match(f, f->allow, f->n_allow, url))
        return "not-allowed";
    return NULL;
}

int rc_urlfilter_is_data(const rc_urlfilter *f, const char *url)
{
    return f && any_match(f, f->data, f->n_data, url);
}

int rc_urlfilter_is_jump(const rc_urlfilter *f, const char *url)
{
    return any_match(f, f->jump, f->n_jump, url);
}

static int is_session_param(const char *name, size_t len)
{
    for (size_t i = 0; i < RC_ARRAY_LEN(session_params); i++)
        if (strlen(session_params[i]) == len && strncasecmp(name, session_params[i], len) == 0)
            return 1;
    return len > 12 && strncasecmp(name, "aspsessionid", 12) == 0;
}

char *rc_urlfilter_strip_session(const rc_urlfilter *f, const char *url)
{
    if (!f->c.strip_session_ids)
        return NULL;
    /* strcasestr sets up its search on every call: most URLs have no ';' to look at */
    const char *semi = strchr(url, ';') ? strcasestr(url, ";jsessionid=") : NULL;
    const char *q = strchr(url, '?');
    if (!semi && !q)
        return NULL;
    rc_buf b;
    rc_buf_init(&b);
    int changed = 0;
    const char *end_path = q ? q : url + strlen(url);
    if (semi && semi < end_path) {
        /* ";jsessionid=..." runs to the end of the path segment. */
        rc_buf_append(&b, url, (size_t)(semi - url));
        const char *rest = semi + 1;
        rest += strcspn(rest, "/?");
        if (*rest == '/')
            rc_buf_append(&b, rest, (size_t)(end_path - rest));
        changed = 1;
    } else {
        rc_buf_append(&b, url, (size_t)(end_path - url));
    }
    if (q) {
        const char *p = q + 1;
        int first = 1;
        while (*p) {
            size_t plen = strcspn(p, "&");
            size_t nlen = strcspn(p, "=&");
            if (is_session_param(p, nlen)) {
                changed = 1;
            } else if (plen) {
                rc_buf_append(&b, first ? "?" : "&", 1);
                rc_buf_append(&b, p, plen);
                first = 0;
            }
            p += plen;
            if (*p == '&')
                p++;
        }
    }
    if (!changed) {
        rc_buf_release(&b);
        return NULL;
    }
    return rc_buf_steal(&b);
}
