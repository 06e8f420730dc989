/* url.c - see url.h.
 *
 * uriparser does the RFC 3986 parsing and reference resolution. It is strict where pages are not
 * (spaces, raw UTF-8, backslashes, stray '%'), so the input is first repaired the way browsers do
 * (WHATWG URL pre-processing), and the result is serialised by hand from the parsed parts so every
 * normalisation rule lives in one place and costs one pass. */
#include "url.h"

#include "util.h"

#include <idn2.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <uriparser/Uri.h>

/* Input (before the fragment, after escaping) longer than this is refused without parsing: only
 * dot segments, userinfo and needless escapes shrink a URL, never by half in real pages. */
#define PREP_MAX (2 * RC_URL_MAX)
#define HOST_MAX 253
#define LABEL_MAX 63
/* Room for a percent-decoded UTF-8 host before IDNA turns it into (at most HOST_MAX) ASCII. */
#define HOST_RAW_MAX 1024

enum { SCHEME_NONE = 0, SCHEME_HTTP, SCHEME_HTTPS };

/* A URL text made acceptable to uriparser. */
struct prep {
    size_t len;
    int scheme; /* SCHEME_NONE for a relative reference */
    char buf[PREP_MAX + 1];
};

/* A bounded output buffer; once full it only records that it overflowed. */
struct out {
    char *p;
    size_t len;
    size_t cap;
    bool overflow;
};

/* uriparser allocates a node per path segment; a stack arena makes parse + resolve malloc-free.
 * Blocks past the arena fall back to malloc, so nothing has a hard limit. */
struct arena {
    UriMemoryManager mm;
    size_t used;
    _Alignas(16) char mem[4096];
};

static const char hexdig[] = "0123456789ABCDEF";

/* Byte classes. C_PASS: what uriparser accepts unencoded outside the host (RFC 3986 unreserved,
 * sub-delims, ':' '@' '/' '?'). C_UNRES: unreserved (ALPHA DIGIT - . _ ~). C_CLEAN: bytes clean()
 * must look at (tab CR LF '#' '?' '\'). Non-ASCII bytes are in no class. */
enum { C_PASS = 1, C_UNRES = 2, C_CLEAN = 4 };
static const unsigned char cls[256] = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 4, 4, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 1, 0, 4, 1, 0, 1, 1, 1, 1, 1, 1, 1, 3, 3, 1, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 1, 1, 0, 1, 0, 5,
    1, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 0, 4, 0, 0, 3,
    0, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 0, 0, 0, 3, 0,
};

static bool is_alnum(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static unsigned char lower(unsigned char c)
{
    return c >= 'A' && c <= 'Z' ? (unsigned char)(c + 32) : c;
}

static bool arena_owns(const struct arena *a, const void *p)
{
    return (uintptr_t)p - (uintptr_t)a->mem < sizeof a->mem;
}

static void *arena_malloc(UriMemoryManager *mm, size_t n)
{
    struct arena *a = mm->userData;
    size_t need = (n + 15) & ~(size_t)15;
    if (n && need <= sizeof a->mem - a->used) {
        void *p = a->mem + a->used;
        a->used += need;
        return p;
    }
    return rc_xmalloc(n);
}

static void *arena_calloc(UriMemoryManager *mm, size_t nmemb, size_t size)
{
    return uriEmulateCalloc(mm, nmemb, size);
}

/* Arena blocks carry no size, so a grown copy takes whatever follows the old block up to the
 * arena's end: the old contents plus harmless bytes (the new block may overlap them). */
static void *arena_realloc(UriMemoryManager *mm, void *p, size_t n)
{
    struct arena *a = mm->userData;
    if (!p || !arena_owns(a, p))
        return p ? rc_xrealloc(p, n) : arena_malloc(mm, n);
    void *q = arena_malloc(mm, n);
    memmove(q, p, RC_MIN(n, (size_t)(a->mem + sizeof a->mem - (char *)p)));
    return q;
}

static void *arena_reallocarray(UriMemoryManager *mm, void *p, size_t nmemb, size_t size)
{
    return uriEmulateReallocarray(mm, p, nmemb, size);
}

static void arena_free(UriMemoryManager *mm, void *p)
{
    if (!arena_owns(mm->userData, p))
        free(p); /* arena blocks go when the arena goes out of scope */
}

static void arena_init(struct arena *a)
{
    a->mm.malloc = arena_malloc;
    a->mm.calloc = arena_calloc;
    a->mm.realloc = arena_realloc;
    a->mm.reallocarray = arena_reallocarray;
    a->mm.free = arena_free;
    a->mm.userData = a;
    a->used = 0;
}

static void out_put(struct out *o, const char *s, size_t n)
{
    if (o->overflow || n > o->cap - o->len) {
        o->overflow = true;
        return;
    }
    memcpy(o->p + o->len, s, n);
    o->len += n;
}

static void out_putc(struct out *o, char c)
{
    if (o->overflow || o->len == o->cap) {
        o->overflow = true;
        return;
    }
    o->p[o->len++] = c;
}

static void out_putu(struct out *o, unsigned v)
{
    char tmp[12];
    size_t i = sizeof tmp;
    do {
        tmp[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    out_put(o, tmp + i, sizeof tmp - i);
}

/* Copies S with escapes in canonical form: upper-case hex, unreserved characters decoded. */
static void out_put_pct(struct out *o, const char *s, const char *end)
{
    while (s < end) {
        const char *run = s;
        while (s < end && *s != '%')
            s++;
        out_put(o, run, (size_t)(s - run));
        if (s == end)
            break;
        int hi = end - s > 2 ? rc_hexval((unsigned char)s[1]) : -1;
        int lo = hi >= 0 ? rc_hexval((unsigned char)s[2]) : -1;
        if (lo < 0) {
            out_put(o, "%25", 3); /* cannot happen after prep(); stay safe anyway */
            s++;
            continue;
        }
        unsigned char c = (unsigned char)(hi << 4 | lo);
        if ((cls[c] & C_UNRES)) {
            out_putc(o, (char)c);
        } else {
            char esc[3] = {'%', hexdig[hi], hexdig[lo]};
            out_put(o, esc, 3);
        }
        s += 3;
    }
}

/* SCHEME_HTTP/HTTPS for "http"/"https" in any case, -1 for any other scheme. */
static int scheme_id(const char *s, size_t n)
{
    if ((n == 4 || n == 5) && lower((unsigned char)s[0]) == 'h' && lower((unsigned char)s[1]) == 't' &&
        lower((unsigned char)s[2]) == 't' && lower((unsigned char)s[3]) == 'p') {
        if (n == 4)
            return SCHEME_HTTP;
        if (lower((unsigned char)s[4]) == 's')
            return SCHEME_HTTPS;
    }
    return -1;
}

/* Length of the scheme S starts with (the ':' excluded), or 0 when S has none (RFC 3986 3.1). */
static size_t scheme_len(const char *s, size_t n)
{
    if (n == 0 || !((s[0] | 0x20) >= 'a' && (s[0] | 0x20) <= 'z'))
        return 0;
    for (size_t i = 1; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == ':')
            return i;
        if (!is_alnum(c) && c != '+' && c != '-' && c != '.')
            return 0;
    }
    return 0;
}

/* WHATWG pre-processing: trim C0 controls and spaces at both ends, drop tab/CR/LF anywhere, cut the
 * fragment (never part of the result), and read '\' as '/' before the query as browsers do for
 * http(s). Returns the length written to OUT, or RC_URL_ETOOLONG. */
static long clean(const char *s, size_t n, char *out)
{
    while (n && (unsigned char)s[0] <= 0x20) {
        s++;
        n--;
    }
    while (n && (unsigned char)s[n - 1] <= 0x20)
        n--;
    bool query = false;
    size_t len = 0;
    for (size_t i = 0; i < n; i++) {
        size_t run = i; /* copy plain runs in one go: most URLs are one run */
        while (i < n && !(cls[(unsigned char)s[i]] & C_CLEAN))
            i++;
        if (i - run > PREP_MAX - len)
            return RC_URL_ETOOLONG;
        memcpy(out + len, s + run, i - run);
        len += i - run;
        if (i == n)
            break;
        char c = s[i];
        if (c == '\t' || c == '\n' || c == '\r')
            continue;
        if (c == '#')
            break;
        if (c == '?')
            query = true;
        else if (c == '\\' && !query)
            c = '/';
        if (len == PREP_MAX)
            return RC_URL_ETOOLONG;
        out[len++] = c;
    }
    return (long)len;
}

/* Appends S percent-encoding what uriparser would reject; AUTHORITY says S starts with one. In
 * the authority '[' ']' stay for IPv6 and only the last '@' separates userinfo (as in browsers). */
static int encode(struct prep *p, const char *s, size_t n, bool authority)
{
    size_t auth_end = 0, last_at = SIZE_MAX;
    if (authority) {
        while (auth_end < n && s[auth_end] != '/' && s[auth_end] != '?') {
            if (s[auth_end] == '@')
                last_at = auth_end;
            auth_end++;
        }
    }
    char *o = p->buf + p->len;
    char *end = p->buf + PREP_MAX;
    for (size_t i = 0; i < n; i++) {
        if (i >= auth_end) { /* copy runs that need no encoding in one go */
            size_t run = i;
            while (i < n && (cls[(unsigned char)s[i]] & C_PASS))
                i++;
            if (i - run > (size_t)(end - o))
                return RC_URL_ETOOLONG;
            memcpy(o, s + run, i - run);
            o += i - run;
            if (i == n)
                break;
        }
        unsigned char c = (unsigned char)s[i];
        bool keep;
        if (c == '%')
            keep = i + 2 < n && rc_hexval((unsigned char)s[i + 1]) >= 0 && rc_hexval((unsigned char)s[i + 2]) >= 0;
        else if (i < auth_end)
            keep = ((cls[c] & C_PASS) && (c != '@' || i == last_at)) || c == '[' || c == ']';
        else
            keep = false;
        if (keep) {
            if (o == end)
                return RC_URL_ETOOLONG;
            *o++ = (char)c;
        } else {
            if (end - o < 3)
                return RC_URL_ETOOLONG;
            *o++ = '%';
            *o++ = hexdig[c >> 4];
            *o++ = hexdig[c & 15];
        }
    }
    p->len = (size_t)(o - p->buf);
    return 0;
}

/* Makes S (N bytes) parseable by uriparser into P. With RELATIVE_OK it may be a reference resolved
 * against a base of scheme BASE_SCHEME. TMP is scratch of PREP_MAX bytes. */
static int prep(const char *s, size_t n, bool relative_ok, int base_scheme, struct prep *p, char *tmp)
{
    long m = clean(s, n, tmp);
    if (m < 0)
        return (int)m;
    const char *c = tmp, *end = tmp + m;
    bool authority = false;
    p->len = 0;
    p->scheme = SCHEME_NONE;

    size_t sl = scheme_len(c, (size_t)m);
    if (sl) {
        int id = scheme_id(c, sl);
        if (id < 0)
            return RC_URL_ESCHEME; /* javascript:, mailto:, data:, ftp: ... */
        const char *rest = c + sl + 1;
        if (relative_ok && id == base_scheme && (rest == end || *rest != '/')) {
            c = rest; /* "http:foo" against an http base is relative, as in browsers */
        } else {
            /* Browsers read any number of slashes after a special scheme, "http:/a" included. */
            while (rest < end && *rest == '/')
                rest++;
            memcpy(p->buf, id == SCHEME_HTTPS ? "https://" : "http://", id == SCHEME_HTTPS ? 8 : 7);
            p->len = id == SCHEME_HTTPS ? 8 : 7;
            p->scheme = id;
            c = rest;
            authority = true;
        }
    } else if (!relative_ok) {
        return RC_URL_EINVAL;
    }

    if (p->scheme == SCHEME_NONE) {
        if (end - c >= 2 && c[0] == '/' && c[1] == '/') {
            while (c < end && *c == '/') /* "///host" is "//host" for http(s) */
                c++;
            memcpy(p->buf, "//", 2);
            p->len = 2;
            authority = true;
        } else if (c < end && *c != '/' && *c != '?') {
            /* A ':' in the first segment would read as a scheme to uriparser ("1a:b"). */
            const char *q = c;
            while (q < end && *q != '/' && *q != '?' && *q != ':')
                q++;
            if (q < end && *q == ':') {
                memcpy(p->buf, "./", 2);
                p->len = 2;
            }
        }
    }
    return encode(p, c, (size_t)(end - c), authority);
}

/* The scheme BASE starts with, cheaply: only needed to tell "http:foo" references apart. */
static int base_scheme_of(const char *base)
{
    while ((unsigned char)*base <= 0x20 && *base)
        base++;
    size_t sl = scheme_len(base, strnlen(base, 6));
    int id = sl ? scheme_id(base, sl) : -1;
    return id < 0 ? SCHEME_NONE : id;
}

/* WHATWG IPv4 number: decimal, 0x hex or 0-prefixed octal. -1 when invalid. */
static int64_t ipv4_part(const char *s, size_t n)
{
    int base = 10;
    if (n >= 2 && s[0] == '0' && s[1] == 'x') {
        base = 16;
        s += 2;
        n -= 2;
    } else if (n >= 2 && s[0] == '0') {
        base = 8;
        s++;
        n--;
    }
    int64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        int d = rc_hexval((unsigned char)s[i]);
        if (d < 0 || d >= base)
            return -1;
        v = v * base + d;
        if (v > 0xffffffffLL)
            return -1;
    }
    return v;
}

/* Browsers read a host whose last label is a number as IPv4 ("0x7f.1" is 127.0.0.1, "2130706433"
 * too). Returns 1 and the address, 0 when H does not end in a number, EHOST when it does but is
 * not a valid address. */
static int ipv4_parse(const char *h, size_t n, uint32_t *ret)
{
    const char *last = h + n;
    while (last > h && last[-1] != '.')
        last--;
    size_t ln = (size_t)(h + n - last);
    bool hex = ln >= 2 && last[0] == '0' && last[1] == 'x';
    if (ln == 0)
        return 0;
    for (size_t i = hex ? 2 : 0; i < ln; i++) {
        unsigned char c = (unsigned char)last[i];
        if (hex ? rc_hexval(c) < 0 : !(c >= '0' && c <= '9'))
            return 0;
    }
    int64_t parts[4];
    size_t np = 0;
    const char *s = h;
    for (;;) {
        const char *dot = memchr(s, '.', (size_t)(h + n - s));
        const char *e = dot ? dot : h + n;
        if (np == 4 || e == s)
            return RC_URL_EHOST;
        parts[np] = ipv4_part(s, (size_t)(e - s));
        if (parts[np] < 0)
            return RC_URL_EHOST;
        np++;
        if (!dot)
            break;
        s = dot + 1;
    }
    uint64_t v = 0;
    for (size_t k = 0; k + 1 < np; k++) {
        if (parts[k] > 255)
            return RC_URL_EHOST;
        v |= (uint64_t)parts[k] << (8 * (3 - k));
    }
    if ((uint64_t)parts[np - 1] >= (uint64_t)1 << (8 * (5 - np)))
        return RC_URL_EHOST;
    *ret = (uint32_t)(v | (uint64_t)parts[np - 1]);
    return 1;
}

static void out_ipv4(struct out *o, uint32_t a)
{
    for (int k = 3; k >= 0; k--) {
        out_putu(o, (a >> (8 * k)) & 255);
        if (k)
            out_putc(o, '.');
    }
}

/* RFC 5952 / WHATWG form: lower-case hex, longest run of two or more zero groups as "::". */
static void out_ipv6(struct out *o, const unsigned char *b)
{
    unsigned g[8];
    int best = -1, best_len = 1;
    for (int i = 0; i < 8; i++)
        g[i] = (unsigned)b[2 * i] << 8 | b[2 * i + 1];
    for (int i = 0; i < 8;) {
        int j = i;
        while (j < 8 && g[j] == 0)
            j++;
        if (j - i > best_len) {
            best = i;
            best_len = j - i;
        }
        i = j > i ? j : i + 1;
    }
    out_putc(o, '[');
    for (int i = 0; i < 8; i++) {
        if (i == best) {
            out_put(o, "::", i == 0 ? 2 : 1);
            i += best_len - 1;
            if (i == 7)
                break;
            continue;
        }
        char tmp[4];
        int n = 0;
        for (int sh = 12; sh >= 0; sh -= 4)
            if ((g[i] >> sh) || sh == 0 || n)
                tmp[n++] = "0123456789abcdef"[(g[i] >> sh) & 15];
        out_put(o, tmp, (size_t)n);
        if (i < 7)
            out_putc(o, ':');
    }
    out_putc(o, ']');
}

/* Every "xn--" label of the ASCII host [h, h+n) must decode to a non-empty Unicode label:
 * "xn--", "xn--zz" and the like name nothing and no resolver will take them. */
static bool punycode_ok(const char *h, size_t n)
{
    for (size_t i = 0; i < n;) {
        size_t len = strcspn(h + i, ".");
        len = len > n - i ? n - i : len;
        if (len >= 4 && strncasecmp(h + i, "xn--", 4) == 0) {
            char label[LABEL_MAX + 1];
            char *u = NULL;
            if (len > LABEL_MAX)
                return false;
            memcpy(label, h + i, len);
            label[len] = '\0';
            bool ok = idn2_to_unicode_8z8z(label, &u, 0) == IDN2_OK && u && u[0];
            idn2_free(u);
            if (!ok)
                return false;
        }
        i += len + 1;
    }
    return true;
}

/* The host as written, %-escapes decoded and lower-cased, into raw (HOST_RAW_MAX + 1 bytes);
 * *ret_ascii says whether it is all ASCII. Its length, or RC_URL_EHOST. */
static int decode_host(const UriUriA *u, char *raw, bool *ret_ascii)
{
    size_t n = 0;
    bool ascii = true;
    const char *s = u->hostText.first, *end = u->hostText.afterLast;
    if (!s || s == end)
        return RC_URL_EHOST;
    while (s < end) {
        unsigned char c = (unsigned char)*s++;
        if (c == '%') {
            int hi = end - s >= 2 ? rc_hexval((unsigned char)s[0]) : -1;
            int lo = hi >= 0 ? rc_hexval((unsigned char)s[1]) : -1;
            if (lo < 0)
                return RC_URL_EHOST;
            c = (unsigned char)(hi << 4 | lo);
            s += 2;
        }
        if (n == HOST_RAW_MAX || c == 0)
            return RC_URL_EHOST;
        ascii &= c < 0x80;
        raw[n++] = (char)lower(c);
    }
    raw[n] = '\0';
    *ret_ascii = ascii;
    return (int)n;
}

/* 0 when H (n bytes, A-labels) is DNS-shaped: labels of 1..LABEL_MAX letters, digits, '-' and
 * '_', at most HOST_MAX bytes, Punycode labels that decode; else RC_URL_EHOST. */
static int check_dns_name(const char *h, size_t n)
{
    size_t label = 0;
    if (n == 0 || n > HOST_MAX)
        return RC_URL_EHOST;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)h[i];
        if (c == '.') {
            if (label == 0)
                return RC_URL_EHOST;
            label = 0;
        } else if (is_alnum(c) || c == '-' || c == '_') {
            if (++label > LABEL_MAX)
                return RC_URL_EHOST;
        } else {
            return RC_URL_EHOST;
        }
    }
    if (label == 0)
        return RC_URL_EHOST; /* "a.." leaves an empty last label */
    return punycode_ok(h, n) ? 0 : RC_URL_EHOST;
}

/* Writes the canonical host of U: escapes decoded, lower-cased, IDN to A-labels, trailing dot
 * dropped, IPv4/IPv6 in canonical form. Only DNS-shaped names pass: a crawler cannot fetch others. */
static int out_host(struct out *o, const UriUriA *u)
{
    if (u->hostData.ip6) {
        out_ipv6(o, u->hostData.ip6->data);
        return 0;
    }
    if (u->hostData.ipFuture.first)
        return RC_URL_EHOST;
    if (u->hostData.ip4) {
        const unsigned char *b = u->hostData.ip4->data;
        out_ipv4(o, (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3]);
        return 0;
    }
    char raw[HOST_RAW_MAX + 1];
    bool ascii;
    int len = decode_host(u, raw, &ascii);
    if (len < 0)
        return len;
    const char *h = raw;
    size_t n = (size_t)len;
    uint8_t *idn = NULL;
    if (!ascii) {
        /* UTS #46 non-transitional processing, as current browsers do ("faß.de" keeps its ß). */
        if (idn2_lookup_u8((const uint8_t *)raw, &idn, IDN2_NFC_INPUT | IDN2_NONTRANSITIONAL) != IDN2_OK)
            return RC_URL_EHOST;
        h = (const char *)idn;
        n = strlen(h);
    }
    if (n && h[n - 1] == '.')
        n--;
    int err = check_dns_name(h, n);
    uint32_t a;
    int v4 = err ? 0 : ipv4_parse(h, n, &a);
    if (v4 < 0)
        err = v4;
    else if (v4 == 1)
        out_ipv4(o, a);
    else if (!err)
        out_put(o, h, n);
    idn2_free(idn);
    return err;
}

/* A host as serialize wrote it, with the host text it came from: a relative reference resolved
 * against a kept base points at the base's host text, so that host is checked and written once
 * for the page's links. */
struct host_memo {
    const char *first, *after; /* NULL: nothing kept yet */
    int err;
    size_t len;
    char out[HOST_MAX + 64];
};

/* Serialises absolute U in normal form into a malloc'd *ret_url; MEMO (may be NULL) keeps the
 * host. */
static int serialize(const UriUriA *u, char **ret_url, struct host_memo *memo)
{
    char buf[RC_URL_MAX];
    struct out o = {buf, 0, sizeof buf, false};

    int scheme = u->scheme.first ? scheme_id(u->scheme.first, (size_t)(u->scheme.afterLast - u->scheme.first)) : -1;
    if (scheme < 0)
        return RC_URL_ESCHEME;
    out_put(&o, scheme == SCHEME_HTTPS ? "https://" : "http://", scheme == SCHEME_HTTPS ? 8 : 7);
    size_t host_at = o.len;
    int err;
    if (memo && memo->first && u->hostText.first == memo->first && u->hostText.afterLast == memo->after) {
        err = memo->err;
        if (!err)
            out_put(&o, memo->out, memo->len);
    } else {
        err = out_host(&o, u);
        if (memo && u->hostText.first && !o.overflow && (err || o.len - host_at <= sizeof memo->out)) {
            memo->first = u->hostText.first;
            memo->after = u->hostText.afterLast;
            memo->err = err;
            memo->len = err ? 0 : o.len - host_at;
            memcpy(memo->out, buf + host_at, memo->len);
        }
    }
    if (err)
        return err;

    /* uriparser only lets digits through; an empty port means the default (WHATWG). */
    unsigned port = 0;
    for (const char *p = u->portText.first; p && p < u->portText.afterLast; p++) {
        port = port * 10 + (unsigned)(*p - '0');
        if (port > 65535)
            return RC_URL_EINVAL;
    }
    if (u->portText.first != u->portText.afterLast && port != (scheme == SCHEME_HTTPS ? 443u : 80u)) {
        out_putc(&o, ':');
        out_putu(&o, port);
    }

    /* Dot segments are judged after escapes are normalised, so "%2e%2E" is ".." as in browsers;
     * the path is kept ending in '/' before each segment so ".." can cut back to the previous one. */
    size_t path_start = o.len;
    out_putc(&o, '/');
    for (const UriPathSegmentA *seg = u->pathHead; seg && !o.overflow; seg = seg->next) {
        size_t start = o.len;
        out_put_pct(&o, seg->text.first, seg->text.afterLast);
        size_t n = o.len - start;
        if (n == 1 && buf[start] == '.') {
            o.len = start;
        } else if (n == 2 && buf[start] == '.' && buf[start + 1] == '.') {
            o.len = start;
            if (o.len > path_start + 1) {
                o.len--;
                while (buf[o.len - 1] != '/')
                    o.len--;
            }
        } else if (seg->next) {
            out_putc(&o, '/');
        }
    }
    if (u->query.first && u->query.afterLast > u->query.first) {
        out_putc(&o, '?');
        out_put_pct(&o, u->query.first, u->query.afterLast);
    }
    if (o.overflow)
        return RC_URL_ETOOLONG;
    *ret_url = rc_xstrndup(buf, o.len);
    return 0;
}

/* A base URL, prepared and parsed when a relative reference first needs it, then kept for the
 * page's other links. */
struct rc_url_base {
    const char *text;      /* the base (rc_url_base_new's copy, rc_url_resolve's caller's) */
    int scheme;            /* base_scheme_of(text) */
    int state;             /* 0: not parsed yet; 1: parsed into bu; < 0: the RC_URL_E* it failed with */
    UriUriA bu;            /* its parts point into b.buf; its nodes are in arena */
    struct host_memo host; /* its host, as the links resolved against it have it */
    struct arena arena;
    struct prep b;
};

static void base_init(struct rc_url_base *rb, const char *base)
{
    rb->text = base;
    rb->scheme = base_scheme_of(base);
    rb->state = 0;
    rb->host.first = NULL;
}

/* RB parsed (once), or the error its preparation or parse gave. TMP as prep's. */
static int base_parsed(struct rc_url_base *rb, char *tmp)
{
    if (rb->state == 0) {
        arena_init(&rb->arena);
        rb->state = prep(rb->text, strlen(rb->text), false, SCHEME_NONE, &rb->b, tmp);
        if (rb->state == 0)
            rb->state =
                uriParseSingleUriExMmA(&rb->bu, rb->b.buf, rb->b.buf + rb->b.len, NULL, &rb->arena.mm) == URI_SUCCESS
                    ? 1
                    : RC_URL_EINVAL;
    }
    return rb->state < 0 ? rb->state : 0;
}

static void base_release(struct rc_url_base *rb)
{
    if (rb->state == 1)
        uriFreeUriMembersMmA(&rb->bu, &rb->arena.mm);
}

/* Shared body of normalize (RB NULL) and resolve. */
static int resolve(struct rc_url_base *rb, const char *ref, size_t ref_len, char **ret_url)
{
    char tmp[PREP_MAX];
    struct prep r;
    struct arena arena;
    UriUriA ru, abs;
    bool have_ru = false, have_abs = false;
    int err;

    arena_init(&arena);
    err = prep(ref, ref_len, rb != NULL, rb ? rb->scheme : SCHEME_NONE, &r, tmp);
    if (err)
        goto out;
    err = RC_URL_EINVAL;
    if (uriParseSingleUriExMmA(&ru, r.buf, r.buf + r.len, NULL, &arena.mm) != URI_SUCCESS)
        goto out;
    have_ru = true;
    if (r.scheme != SCHEME_NONE) {
        err = serialize(&ru, ret_url, NULL);
        goto out;
    }

    err = base_parsed(rb, tmp);
    if (err)
        goto out;
    err = RC_URL_EINVAL;
    if (uriAddBaseUriExMmA(&abs, &ru, &rb->bu, URI_RESOLVE_STRICTLY, &arena.mm) != URI_SUCCESS)
        goto out;
    have_abs = true;
    err = serialize(&abs, ret_url, &rb->host);

out:
    if (have_abs)
        uriFreeUriMembersMmA(&abs, &arena.mm);
    if (have_ru)
        uriFreeUriMembersMmA(&ru, &arena.mm);
    return err;
}

int rc_url_has_userinfo(const char *url)
{
    const char *p = strstr(url, "://");
    if (!p)
        return 0;
    p += 3;
    return memchr(p, '@', strcspn(p, "/?#\\")) != NULL;
}

int rc_url_normalize(const char *url, char **ret_url)
{
    return resolve(NULL, url, strlen(url), ret_url);
}

int rc_url_resolve(const char *base, const char *ref, size_t ref_len, char **ret_url)
{
    struct rc_url_base rb;
    base_init(&rb, base);
    int err = resolve(&rb, ref, ref_len, ret_url);
    base_release(&rb);
    return err;
}

rc_url_base *rc_url_base_new(const char *base)
{
    rc_url_base *rb = rc_xmalloc(sizeof *rb);
    base_init(rb, rc_xstrdup(base));
    return rb;
}

int rc_url_resolve_at(rc_url_base *rb, const char *ref, size_t ref_len, char **ret_url)
{
    return resolve(rb, ref, ref_len, ret_url);
}

void rc_url_base_free(rc_url_base *rb)
{
    if (!rb)
        return;
    base_release(rb);
    free((char *)rb->text);
    free(rb);
}

/* Host and port text of URL, found without a full parse: enough for normalised URLs, which is what
 * the host functions are documented for; still skips userinfo and a default port. */
struct authority {
    const char *host, *host_end; /* brackets of an IPv6 literal excluded */
    bool ipv6;
    unsigned port; /* 0: none or the scheme's default */
};

static int split_authority(const char *url, struct authority *a)
{
    size_t sl = scheme_len(url, strnlen(url, 6));
    int scheme = sl ? scheme_id(url, sl) : -1;
    if (!sl)
        return RC_URL_EINVAL;
    if (scheme < 0)
        return RC_URL_ESCHEME;
    const char *s = url + sl + 1;
    if (s[0] != '/' || s[1] != '/')
        return RC_URL_EINVAL;
    s += 2;
    const char *end = s + strcspn(s, "/?#\\");
    for (const char *p = s; p < end; p++)
        if (*p == '@')
            s = p + 1;
    const char *port = NULL;
    a->ipv6 = *s == '[';
    if (a->ipv6) {
        const char *close = memchr(s, ']', (size_t)(end - s));
        if (!close || (close + 1 < end && close[1] != ':'))
            return RC_URL_EINVAL;
        a->host = s + 1;
        a->host_end = close;
        port = close + 1 < end ? close + 2 : NULL;
    } else {
        const char *colon = memchr(s, ':', (size_t)(end - s));
        a->host = s;
        a->host_end = colon ? colon : end;
        port = colon ? colon + 1 : NULL;
    }
    if (a->host == a->host_end)
        return RC_URL_EHOST;
    a->port = 0;
    for (const char *p = port; p && p < end; p++) {
        if (*p < '0' || *p > '9')
            return RC_URL_EINVAL;
        a->port = a->port * 10 + (unsigned)(*p - '0');
        if (a->port > 65535)
            return RC_URL_EINVAL;
    }
    if (a->port == (scheme == SCHEME_HTTPS ? 443u : 80u))
        a->port = 0;
    return 0;
}

static int host_out(const char *url, char *buf, size_t cap, bool key)
{
    struct authority a;
    int err = split_authority(url, &a);
    if (err)
        return err;
    char tmp[HOST_MAX + 16];
    struct out o = {tmp, 0, sizeof tmp, false};
    bool brackets = key && a.ipv6;
    if (brackets)
        out_putc(&o, '[');
    out_put(&o, a.host, (size_t)(a.host_end - a.host));
    if (brackets)
        out_putc(&o, ']');
    if (key && a.port) {
        out_putc(&o, ':');
        out_putu(&o, a.port);
    }
    if (o.overflow || o.len >= cap)
        return RC_URL_ETOOLONG;
    for (size_t i = 0; i < o.len; i++)
        buf[i] = (char)lower((unsigned char)tmp[i]);
    buf[o.len] = '\0';
    return 0;
}

int rc_url_host_key(const char *url, char *buf, size_t cap)
{
    return host_out(url, buf, cap, true);
}

int rc_url_host(const char *url, char *buf, size_t cap)
{
    return host_out(url, buf, cap, false);
}

const char *rc_url_strerror(int err)
{
    switch (err) {
    case RC_URL_OK:
        return "success";
    case RC_URL_EINVAL:
        return "URL does not parse";
    case RC_URL_ESCHEME:
        return "URL scheme is not http or https";
    case RC_URL_ETOOLONG:
        return "URL too long";
    case RC_URL_EHOST:
        return "URL host is empty or invalid";
    default:
        return "unknown URL error";
    }
}
