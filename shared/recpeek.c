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

/* v..end is a JSON integer (no fraction or exponent): its value into *ret. */
static int int_value(const char *v, const char *end, long long *ret)
{
    int neg = v < end && *v == '-';
    long long n = 0;
    const char *d = v + neg;
    if (d >= end || end - d > 18)
        return -1;
    for (; d < end; d++) {
        if (*d < '0' || *d > '9')
            return -1;
        n = n * 10 + (*d - '0');
    }
    *ret = neg ? -n : n;
    return 0;
}

/* The member at p (after '{' or ','): its key as written (between the quotes) and its value's
 * first character, returned; NULL when malformed. */
static const char *member_key(const char *p, const char *e, const char **k, size_t *klen)
{
    int esc = 0;
    p = skip_ws(p, e);
    if (p >= e || *p != '"')
        return NULL;
    *k = p + 1;
    p = skip_string(p, e, &esc);
    if (!p)
        return NULL;
    *klen = (size_t)(p - 1 - *k);
    p = skip_ws(p, e);
    if (p >= e || *p++ != ':')
        return NULL;
    return skip_ws(p, e);
}

/* After a member's value: 1 at a ',' (*pp moved past it), 0 at the object's end with nothing
 * after it, -1 when malformed. */
static int member_next(const char **pp, const char *e)
{
    const char *p = skip_ws(*pp, e);
    if (p < e && *p == ',') {
        *pp = p + 1;
        return 1;
    }
    return p < e && *p == '}' && skip_ws(p + 1, e) == e ? 0 : -1;
}

/* The object's opening brace: the first member's position, NULL when json is not an object;
 * *empty tells whether it is {}. */
static const char *object_open(const char *p, const char *e, int *empty)
{
    p = skip_ws(p, e);
    if (p >= e || *p++ != '{')
        return NULL;
    const char *q = skip_ws(p, e);
    *empty = q < e && *q == '}' && skip_ws(q + 1, e) == e;
    return p;
}

int rc_record_peek(const char *json, size_t len, char *url, size_t cap, int *depth)
{
    const char *e = json + len, *k;
    size_t klen;
    int have_url = 0, have_depth = 0, empty, more;
    if (len > 0 && json[0] != '{')
        return peek_compact(json, e, url, cap, depth);
    const char *p = object_open(json, e, &empty);
    if (!p || empty)
        return -EINVAL;
    do {
        const char *v = member_key(p, e, &k, &klen);
        if (!v)
            return -EINVAL;
        p = v;
        if (klen == 3 && memcmp(k, "url", 3) == 0) {
            int esc = 0;
            if (p >= e || *p != '"' || !(p = skip_string(p, e, &esc)))
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
    } while ((more = member_next(&p, e)) == 1);
    return more == 0 && have_url && have_depth ? 0 : -EINVAL;
}

/* The value of KEY's first member in the object JSON (LEN bytes) as [*AT, *END), the whole object
 * checked: 0, -ENOENT (no such member) or -EINVAL (not an object). */
static int find_member(const char *json, size_t len, const char *key, const char **at, const char **end)
{
    const char *e = json + len, *k;
    size_t klen, want = strlen(key);
    int empty, more;
    const char *p = object_open(json, e, &empty);
    if (!p)
        return -EINVAL;
    *at = NULL;
    if (empty)
        return -ENOENT;
    do {
        const char *v = member_key(p, e, &k, &klen);
        if (!v || !(p = skip_value(v, e)) || p == v)
            return -EINVAL;
        if (!*at && klen == want && memcmp(k, key, want) == 0) {
            *at = v;
            *end = p;
        }
    } while ((more = member_next(&p, e)) == 1);
    if (more < 0)
        return -EINVAL;
    return *at ? 0 : -ENOENT;
}

int rc_json_peek_int(const char *json, size_t len, const char *key, long long *ret)
{
    const char *at, *end;
    int rc = find_member(json, len, key, &at, &end);
    if (rc < 0)
        return rc;
    return int_value(at, end, ret) == 0 ? 0 : -EDOM;
}

int rc_json_peek_str(const char *json, size_t len, const char *key, char *out, size_t cap)
{
    const char *at, *end;
    int rc = find_member(json, len, key, &at, &end);
    if (rc < 0)
        return rc;
    if (*at != '"')
        return -EDOM;
    size_t n = (size_t)(end - at - 2);
    if (memchr(at + 1, '\\', n))
        return -EAGAIN;
    if (n >= cap)
        return -ENOSPC;
    memcpy(out, at + 1, n);
    out[n] = '\0';
    return 0;
}

int rc_json_peek_has(const char *json, size_t len, const char *key)
{
    const char *at, *end;
    int rc = find_member(json, len, key, &at, &end);
    return rc == 0 ? 1 : rc == -ENOENT ? 0 : rc;
}
