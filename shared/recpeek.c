/* recpeek.c - see recpeek.h. A small scanner of the top-level object: nested values (item,
 * chain) are skipped by counting brackets outside strings. */
#include "recpeek.h"

#include <errno.h>
#include <string.h>

static const char *skip_ws(const char *p, const char *e)
{
    while (p < e && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
        p++;
    return p;
}

/* p at an opening quote: the character after the closing one, NULL when unterminated. *esc
 * tells whether a backslash was seen. */
static const char *skip_string(const char *p, const char *e, int *esc)
{
    for (p++; p < e; p++) {
        if (*p == '\\') {
            *esc = 1;
            p++;
        } else if (*p == '"')
            return p + 1;
    }
    return NULL;
}

/* Any value: a string, an object or array (brackets counted outside strings), or a scalar up to
 * the next delimiter. NULL when it does not end. */
static const char *skip_value(const char *p, const char *e)
{
    int esc = 0, nest = 0;
    if (p < e && *p == '"')
        return skip_string(p, e, &esc);
    while (p < e) {
        if (*p == '"') {
            p = skip_string(p, e, &esc);
            if (!p)
                return NULL;
            continue;
        }
        if (*p == '{' || *p == '[')
            nest++;
        else if (*p == '}' || *p == ']') {
            if (nest == 0)
                return p;
            if (--nest == 0)
                return p + 1;
        } else if (nest == 0 && (*p == ',' || *p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
            return p;
        p++;
    }
    return nest ? NULL : p;
}

/* The string at s..end (quotes excluded) into out; only \/ is unescaped (what Lua's cjson
 * writes in a URL). */
static int copy_url(const char *s, const char *end, char *out, size_t cap)
{
    size_t n = 0;
    for (; s < end; s++) {
        char c = *s;
        if (c == '\\') {
            if (s + 1 >= end || s[1] != '/')
                return -EAGAIN;
            c = *++s;
        }
        if (n + 1 >= cap)
            return -ENOSPC;
        out[n++] = c;
    }
    out[n] = '\0';
    return 0;
}

static int parse_int(const char *p, const char *e, int *ret)
{
    int neg = p < e && *p == '-';
    long v = 0;
    const char *d = p + neg;
    if (d >= e || *d < '0' || *d > '9')
        return -EINVAL;
    for (; d < e && *d >= '0' && *d <= '9' && v < 1000000000; d++)
        v = v * 10 + (*d - '0');
    *ret = (int)(neg ? -v : v);
    return 0;
}

/* Whether p..e is a decimal integer. */
static int all_int(const char *p, const char *e)
{
    int d;
    if (parse_int(p, e, &d) < 0)
        return 0;
    for (p += *p == '-'; p < e; p++)
        if (*p < '0' || *p > '9')
            return 0;
    return 1;
}

/* The compact form: "crawlid depth priority attempt url", or "depth priority attempt url" in its
 * job's frontier (record.h): the fourth field is an integer in the first, the URL in the other. */
static int peek_compact(const char *p, const char *e, char *url, size_t cap, int *depth)
{
    const char *field[4];
    int nf = 0;
    while (nf < 4) {
        const char *sp = memchr(p, ' ', (size_t)(e - p));
        if (!sp || sp == p)
            break;
        field[nf++] = p;
        p = sp + 1;
    }
    if (nf < 3)
        return -EINVAL;
    const char *d = field[1], *d_end = field[2] - 1;
    if (nf < 4 || !all_int(field[3], p - 1)) { /* no crawlid */
        d = field[0];
        d_end = field[1] - 1;
        if (nf == 4)
            p = field[3];
    }
    if (parse_int(d, d_end, depth) < 0 || p >= e)
        return -EINVAL;
    if ((size_t)(e - p) >= cap)
        return -ENOSPC;
    memcpy(url, p, (size_t)(e - p));
    url[e - p] = '\0';
    return 0;
}

int rc_record_peek(const char *json, size_t len, char *url, size_t cap, int *depth)
{
    const char *p = json, *e = json + len;
    int have_url = 0, have_depth = 0, esc;
    if (len > 0 && json[0] != '{')
        return peek_compact(p, e, url, cap, depth);
    p = skip_ws(p, e);
    if (p >= e || *p++ != '{')
        return -EINVAL;
    for (;;) {
        p = skip_ws(p, e);
        if (p < e && *p == '}' && !have_url && !have_depth)
            return -EINVAL;
        if (p >= e || *p != '"')
            return -EINVAL;
        const char *k = p + 1;
        esc = 0;
        p = skip_string(p, e, &esc);
        if (!p)
            return -EINVAL;
        size_t klen = (size_t)(p - 1 - k);
        p = skip_ws(p, e);
        if (p >= e || *p++ != ':')
            return -EINVAL;
        p = skip_ws(p, e);
        const char *v = p;
        if (klen == 3 && memcmp(k, "url", 3) == 0) {
            if (p >= e || *p != '"')
                return -EINVAL;
            esc = 0;
            p = skip_string(p, e, &esc);
            if (!p)
                return -EINVAL;
            int r = copy_url(v + 1, p - 1, url, cap);
            if (r < 0)
                return r;
            have_url = 1;
        } else {
            if (klen == 5 && memcmp(k, "depth", 5) == 0) {
                if (parse_int(v, e, depth) < 0)
                    return -EINVAL;
                have_depth = 1;
            }
            p = skip_value(p, e);
            if (!p || p == v)
                return -EINVAL;
        }
        p = skip_ws(p, e);
        if (p < e && *p == ',') {
            p++;
            continue;
        }
        if (p < e && *p == '}' && skip_ws(p + 1, e) == e)
            return have_url && have_depth ? 0 : -EINVAL;
        return -EINVAL;
    }
}
