/* robots.c - robots.txt parsing and matching (RFC 9309), see robots.h.
 *
 * A pattern is compiled once into its canonical bytes with WILD standing for '*' (WILD is a
 * control character, which canonical paths never hold raw) and a flag for a final '$'. Matching
 * is the classic greedy algorithm for globs with only '*': the first literal segment is a prefix,
 * each middle segment is taken at its leftmost occurrence (memmem), the last one is a suffix when
 * anchored. Leftmost is always safe, so there is no backtracking, and each search resumes where
 * the previous one stopped: time linear in path plus pattern per rule.
 * Rules are sorted by priority (pattern length) with allow first among equals, so the first rule
 * that matches decides. */
#include "robots.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "url.h"
#include "util.h"

#define WILD '\x01'
#define MAX_DELAY 1e9   /* larger crawl-delay values are ignored as nonsense */
#define STACK_PATH 4096 /* paths up to this long are canonicalised on the stack */
#define SERIAL_MAGIC "R1"

struct rule {
    size_t off;  /* compiled pattern at pool + off */
    size_t len;  /* its bytes */
    size_t prio; /* match length: compiled bytes, plus one for a final '$' */
    bool allow;
    bool anchored;
};

/* Rules being collected (for the agent, or for "*") before one list is chosen. */
struct rulelist {
    struct rule *v;
    size_t n, cap;
    rc_buf pool;
    double delay;
};

struct rc_robots {
    struct rule *rules; /* sorted: see rule_cmp */
    size_t nrules;
    char *pool;
    double delay;
    char **sitemaps;
    size_t nsitemaps;
    char *unreachable; /* why robots.txt could not be read (disallow all), or NULL */
};

struct parser {
    const char *token; /* the agent's product token, borrowed */
    size_t token_len;
    bool in_agents;     /* the last group line was user-agent: more agents join the group */
    bool cur_specific;  /* the current group names our agent */
    bool cur_global;    /* the current group names "*" */
    bool ever_specific; /* some group named our agent: "*" groups no longer apply */
    struct rulelist spec, glob;
    rc_robots *r;
};

enum key { KEY_UNKNOWN, KEY_AGENT, KEY_ALLOW, KEY_DISALLOW, KEY_DELAY, KEY_SITEMAP };

static const char hexdig[] = "0123456789ABCDEF";

static bool is_alpha(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* RFC 3986 unreserved: ALPHA DIGIT - . _ ~ */
static bool is_unreserved(unsigned char c)
{
    return is_alpha(c) || (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' || c == '~';
}

/* What a normalised URL carries unencoded in its path and query (url.c's C_PASS): unreserved,
 * sub-delims, ':' '@' '/' '?'. */
static bool is_pass(unsigned char c)
{
    return is_unreserved(c) || (c && strchr("!$&'()*+,;=:@/?", c) != NULL);
}

static bool is_space(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\v' || c == '\f';
}

static unsigned char lower(unsigned char c)
{
    return c >= 'A' && c <= 'Z' ? (unsigned char)(c + 32) : c;
}

/* Length of the product token S starts with: RFC 9309 identifier characters [A-Za-z_-]. */
static size_t token_len(const char *s, size_t n)
{
    size_t i = 0;
    while (i < n && (is_alpha((unsigned char)s[i]) || s[i] == '-' || s[i] == '_'))
        i++;
    return i;
}

/* Writes the canonical form of S (N bytes) to OUT, which has room for 3 * N bytes, and returns
 * its length. PATTERN: '*' becomes WILD and a final '$' is dropped and reported in *ANCHORED.
 * Otherwise S is a path and '*' '$' are literal. Either way an escape of an unreserved character,
 * '*' or '$' is decoded (so "%2A" in a pattern is a literal '*', RFC 9309 2.2.3), other escapes
 * get upper-case hex, a stray '%' becomes "%25" and whatever a URL cannot carry raw is encoded,
 * exactly as rc_url_normalize writes a path. */
static size_t canon(const char *s, size_t n, char *out, bool pattern, bool *anchored)
{
    size_t o = 0;
    if (pattern && anchored) {
        *anchored = n > 0 && s[n - 1] == '$';
        if (*anchored)
            n--;
    }
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '%') {
            int hi = i + 2 < n ? rc_hexval((unsigned char)s[i + 1]) : -1;
            int lo = hi >= 0 ? rc_hexval((unsigned char)s[i + 2]) : -1;
            if (lo < 0) {
                memcpy(out + o, "%25", 3);
                o += 3;
                continue;
            }
            unsigned char d = (unsigned char)(hi << 4 | lo);
            if (is_unreserved(d) || d == '*' || d == '$') {
                out[o++] = (char)d;
            } else {
                out[o++] = '%';
                out[o++] = hexdig[hi];
                out[o++] = hexdig[lo];
            }
            i += 2;
        } else if (c == '*' && pattern) {
            out[o++] = WILD;
        } else if (is_pass(c)) {
            out[o++] = (char)c;
        } else {
            out[o++] = '%';
            out[o++] = hexdig[c >> 4];
            out[o++] = hexdig[c & 15];
        }
    }
    return o;
}

/* Does compiled pattern PAT (LEN bytes) match canonical path P (N bytes)? */
static bool pattern_match(const char *pat, size_t len, bool anchored, const char *p, size_t n)
{
    const char *pend = pat + len;
    const char *w = memchr(pat, WILD, len);
    size_t seg = (size_t)((w ? w : pend) - pat);

    if (seg > n || memcmp(p, pat, seg) != 0)
        return false;
    if (!w)
        return !anchored || seg == n;
    size_t pos = seg;
    pat = w + 1;
    for (;;) {
        while (pat < pend && *pat == WILD)
            pat++;
        w = memchr(pat, WILD, (size_t)(pend - pat));
        seg = (size_t)((w ? w : pend) - pat);
        if (!w) {
            if (anchored)
                return n - pos >= seg && memcmp(p + n - seg, pat, seg) == 0;
            return seg == 0 || memmem(p + pos, n - pos, pat, seg) != NULL;
        }
        const char *f = memmem(p + pos, n - pos, pat, seg);
        if (!f)
            return false;
        pos = (size_t)(f - p) + seg;
        pat = w + 1;
    }
}

static void rulelist_init(struct rulelist *l)
{
    memset(l, 0, sizeof *l);
    rc_buf_init(&l->pool);
    l->delay = -1;
}

static void rulelist_release(struct rulelist *l)
{
    free(l->v);
    rc_buf_release(&l->pool);
}

/* Compiles pattern VALUE (N bytes, not empty) into L. */
static void rulelist_add(struct rulelist *l, bool allow, const char *value, size_t n)
{
    char stack[1024];
    char *tmp = n <= sizeof stack / 3 ? stack : rc_xmalloc(3 * n);
    bool anchored;
    size_t len = canon(value, n, tmp, true, &anchored);

    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 16;
        l->v = rc_xrealloc(l->v, l->cap * sizeof *l->v);
    }
    l->v[l->n++] = (struct rule){l->pool.len, len, len + anchored, allow, anchored};
    rc_buf_append(&l->pool, tmp, len);
    if (tmp != stack)
        free(tmp);
}

/* Longest first; allow before disallow among equals (RFC 9309 2.2.2); then file order. */
static int rule_cmp(const void *a, const void *b)
{
    const struct rule *x = a, *y = b;
    if (x->prio != y->prio)
        return x->prio > y->prio ? -1 : 1;
    if (x->allow != y->allow)
        return x->allow ? -1 : 1;
    return x->off < y->off ? -1 : x->off > y->off;
}

/* Moves list L into R and sorts it. */
static void take_rules(rc_robots *r, struct rulelist *l)
{
    /* Cut to size: the list grew by doubling from 16 rules, and the worker's robots cache keeps
     * one set per host, most of a rule or two (1,000 hosts held 0.5 MB of empty rule slots). */
    r->rules = l->n ? rc_xrealloc(l->v, l->n * sizeof *l->v) : l->v;
    r->nrules = l->n;
    r->pool = rc_buf_steal(&l->pool);
    r->delay = l->delay;
    l->v = NULL;
    l->n = l->cap = 0;
    if (r->nrules > 1)
        qsort(r->rules, r->nrules, sizeof *r->rules, rule_cmp);
}

static rc_robots *robots_new(void)
{
    rc_robots *r = rc_xcalloc(1, sizeof *r);
    r->delay = -1;
    return r;
}

static void add_sitemap(rc_robots *r, const char *v, size_t n)
{
    if (n == 0 || n > RC_URL_MAX || r->nsitemaps >= RC_ROBOTS_MAX_SITEMAPS)
        return;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)v[i] < 0x20 || v[i] == 0x7f)
            return; /* binary junk, and it could not be serialised line by line */
    for (size_t i = 0; i < r->nsitemaps; i++)
        if (strncmp(r->sitemaps[i], v, n) == 0 && r->sitemaps[i][n] == '\0') /* v has no NUL */
            return;
    if ((r->nsitemaps & (r->nsitemaps - 1)) == 0) /* 0, 1, 2, 4...: grow to the next power */
        r->sitemaps = rc_xrealloc(r->sitemaps, (r->nsitemaps ? 2 * r->nsitemaps : 1) * sizeof(char *));
    r->sitemaps[r->nsitemaps++] = rc_xstrndup(v, n);
}

/* Crawl-delay: a non-negative decimal number of seconds ("10", "0.5", ".5"). -1 if not one. */
static double parse_delay(const char *v, size_t n)
{
    char buf[64];
    size_t digits = 0, dots = 0;
    if (n == 0 || n >= sizeof buf)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (v[i] >= '0' && v[i] <= '9')
            digits++;
        else if (v[i] == '.')
            dots++;
        else
            return -1;
    }
    if (digits == 0 || dots > 1)
        return -1;
    memcpy(buf, v, n);
    buf[n] = '\0';
    double d;
    if (rc_parse_double(buf, 0, MAX_DELAY, &d) < 0)
        return -1;
    return d;
}

/* Key names compared case-insensitively with '-', '_' and spaces dropped, so "User-Agent",
 * "user_agent", "useragent" and "User agent" are one key. Misspellings from Google's parser. */
static enum key classify(const char *k, size_t n)
{
    static const struct {
        const char *name;
        enum key key;
    } keys[] = {
        {"useragent", KEY_AGENT},   {"allow", KEY_ALLOW},      {"disallow", KEY_DISALLOW}, {"dissallow", KEY_DISALLOW},
        {"dissalow", KEY_DISALLOW}, {"disalow", KEY_DISALLOW}, {"diasllow", KEY_DISALLOW}, {"disallaw", KEY_DISALLOW},
        {"crawldelay", KEY_DELAY},  {"sitemap", KEY_SITEMAP},  {"sitemaps", KEY_SITEMAP},
    };
    char buf[16];
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)k[i];
        if (c == '-' || c == '_' || is_space(c))
            continue;
        if (c < 0x20 || c >= 0x7f || m == sizeof buf - 1)
            return KEY_UNKNOWN;
        buf[m++] = (char)lower(c);
    }
    buf[m] = '\0';
    for (size_t i = 0; i < RC_ARRAY_LEN(keys); i++)
        if (strcmp(buf, keys[i].name) == 0)
            return keys[i].key;
    return KEY_UNKNOWN;
}

static void handle_agent(struct parser *p, const char *v, size_t n)
{
    if (!p->in_agents) { /* a user-agent line after rules starts a new group */
        p->in_agents = true;
        p->cur_specific = p->cur_global = false;
    }
    /* As Google: "*" followed by nothing or a space is the global agent. */
    if (n >= 1 && v[0] == '*' && (n == 1 || is_space((unsigned char)v[1]))) {
        p->cur_global = true;
        return;
    }
    size_t t = token_len(v, n);
    if (t > 0 && t == p->token_len && strncasecmp(v, p->token, t) == 0)
        p->cur_specific = p->ever_specific = true;
}

/* Splits S (N bytes, trimmed) into exactly two words: key of *KN bytes and value V, *VN. */
static bool two_words(const char *s, size_t n, size_t *kn, const char **v, size_t *vn)
{
    size_t i = 0;
    while (i < n && !is_space((unsigned char)s[i]))
        i++;
    size_t j = i;
    while (j < n && is_space((unsigned char)s[j]))
        j++;
    if (j == n)
        return false;
    for (size_t m = j; m < n; m++)
        if (is_space((unsigned char)s[m]))
            return false;
    *kn = i;
    *v = s + j;
    *vn = n - j;
    return true;
}

/* One line, without its end-of-line, at most RC_ROBOTS_MAX_LINE bytes; may hold any byte. */
static void parse_line(struct parser *p, const char *s, size_t n)
{
    const char *hash = memchr(s, '#', n);
    if (hash)
        n = (size_t)(hash - s);
    while (n && is_space((unsigned char)s[0])) {
        s++;
        n--;
    }
    while (n && is_space((unsigned char)s[n - 1]))
        n--;
    if (n == 0)
        return;

    const char *k = s, *v = NULL;
    size_t kn = 0, vn = 0;
    enum key key = KEY_UNKNOWN;
    const char *colon = memchr(s, ':', n);
    if (colon) {
        kn = (size_t)(colon - s);
        while (kn && is_space((unsigned char)k[kn - 1]))
            kn--;
        key = classify(k, kn);
        v = colon + 1;
        vn = n - (size_t)(v - s);
    }
    if (key == KEY_UNKNOWN && two_words(s, n, &kn, &v, &vn)) {
        /* As Google, a forgotten colon is fine when the line is exactly two words; unlike
         * Google, also when the value holds a colon ("Sitemap https://...", "Disallow /a:b"). */
        key = classify(k, kn);
    }
    while (vn && is_space((unsigned char)v[0])) {
        v++;
        vn--;
    }

    switch (key) {
    case KEY_AGENT:
        handle_agent(p, v, vn);
        return;
    case KEY_SITEMAP:
        add_sitemap(p->r, v, vn);
        return; /* neither ends the agent list nor belongs to a group (RFC 9309 2.2.4) */
    case KEY_UNKNOWN:
        return;
    case KEY_ALLOW:
    case KEY_DISALLOW:
    case KEY_DELAY:
        break;
    }

    p->in_agents = false;
    if (!p->cur_specific && !p->cur_global)
        return; /* before any user-agent line, or a group for other agents */
    struct rulelist *l = p->cur_specific ? &p->spec : &p->glob;
    if (key == KEY_DELAY) {
        double d = parse_delay(v, vn);
        if (d > l->delay)
            l->delay = d;
    } else if (vn > 0) { /* an empty pattern matches nothing (RFC 9309 2.2.2) */
        rulelist_add(l, key == KEY_ALLOW, v, vn);
    }
}

rc_robots *rc_robots_parse(const char *body, size_t len, const char *agent)
{
    struct parser p;
    memset(&p, 0, sizeof p);
    p.r = robots_new();
    rulelist_init(&p.spec);
    rulelist_init(&p.glob);
    if (agent) {
        p.token = agent;
        p.token_len = token_len(agent, strlen(agent));
    }
    if (!body)
        len = 0;

    /* Cut at the limit and drop the line the cut runs through: half a pattern is a different
     * pattern, and a shorter Allow would allow more. */
    if (len > RC_ROBOTS_MAX_BYTES) {
        size_t cut = RC_ROBOTS_MAX_BYTES;
        if (body[cut] != '\n' && body[cut] != '\r') {
            while (cut > 0 && body[cut - 1] != '\n' && body[cut - 1] != '\r')
                cut--;
        }
        len = cut;
    }

    /* A UTF-8 BOM, or the start of one, is skipped (as Google). */
    static const unsigned char bom[3] = {0xEF, 0xBB, 0xBF};
    size_t i = 0;
    while (i < len && i < 3 && (unsigned char)body[i] == bom[i])
        i++;

    while (i < len) {
        size_t start = i;
        while (i < len && body[i] != '\n' && body[i] != '\r')
            i++;
        parse_line(&p, body + start, RC_MIN(i - start, (size_t)RC_ROBOTS_MAX_LINE));
        if (i < len && body[i] == '\r' && i + 1 < len && body[i + 1] == '\n')
            i++;
        i++;
    }

    take_rules(p.r, p.ever_specific ? &p.spec : &p.glob);
    rulelist_release(&p.spec);
    rulelist_release(&p.glob);
    return p.r;
}

rc_robots *rc_robots_allow_all(void)
{
    return robots_new();
}

rc_robots *rc_robots_disallow_all(void)
{
    rc_robots *r = robots_new();
    r->rules = rc_xmalloc(sizeof *r->rules);
    r->rules[0] = (struct rule){0, 1, 1, false, false};
    r->nrules = 1;
    r->pool = rc_xstrdup("/");
    return r;
}

rc_robots *rc_robots_unreachable(const char *why)
{
    rc_robots *r = rc_robots_disallow_all();
    const char *s = why && *why ? why : "unreachable";
    r->unreachable = rc_xstrndup(s, strcspn(s, "\r\n")); /* one line of the serialisation */
    return r;
}

const char *rc_robots_unreachable_why(const rc_robots *r)
{
    return r->unreachable;
}

void rc_robots_free(rc_robots *r)
{
    if (!r)
        return;
    free(r->unreachable);
    for (size_t i = 0; i < r->nsitemaps; i++)
        free(r->sitemaps[i]);
    free(r->sitemaps);
    free(r->rules);
    free(r->pool);
    free(r);
}

static int allowed_canon(const rc_robots *r, const char *p, size_t n)
{
    size_t plen = 0;
    while (plen < n && p[plen] != '?')
        plen++;
    if (plen == 11 && memcmp(p, "/robots.txt", 11) == 0)
        return 1; /* implicitly allowed (RFC 9309 2.2.2) */
    for (size_t i = 0; i < r->nrules; i++) {
        const struct rule *ru = &r->rules[i];
        if (pattern_match(r->pool + ru->off, ru->len, ru->anchored, p, n))
            return ru->allow;
    }
    return 1;
}

int rc_robots_allowed(const rc_robots *r, const char *path_and_query)
{
    const char *s = path_and_query && *path_and_query ? path_and_query : "/";
    size_t n = strlen(s);
    char stack[3 * STACK_PATH + 1];
    char *buf = n <= STACK_PATH ? stack : rc_xmalloc(3 * n + 1);
    size_t o = 0;

    if (s[0] != '/')
        buf[o++] = '/'; /* "?q" is the query of the empty path, which is "/" */
    o += canon(s, n, buf + o, false, NULL);
    int ok = allowed_canon(r, buf, o);
    if (buf != stack)
        free(buf);
    return ok;
}

int rc_robots_allowed_url(const rc_robots *r, const char *url)
{
    char *norm = NULL;
    if (!url || rc_url_normalize(url, &norm) != 0)
        return 0;
    const char *p = strstr(norm, "://");
    p = p ? strchr(p + 3, '/') : NULL;
    int ok = rc_robots_allowed(r, p ? p : "/");
    free(norm);
    return ok;
}

double rc_robots_crawl_delay(const rc_robots *r)
{
    return r->delay;
}

size_t rc_robots_sitemaps(const rc_robots *r, const char *const **ret)
{
    *ret = (const char *const *)r->sitemaps;
    return r->nsitemaps;
}

/* The shortest decimal that reads back as D. */
static void put_double(rc_buf *b, double d)
{
    char tmp[40];
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(tmp, sizeof tmp, "%.*g", prec, d);
        if (strtod(tmp, NULL) == d)
            break;
    }
    rc_buf_puts(b, tmp);
}

/* Format: "R1 <rules> <sitemaps>\n", then "c<delay>\n" if any, a rule per line as "a<pattern>\n"
 * or "d<pattern>\n" (pattern in robots.txt syntax: canonical, '*' wildcard, "%2A" "%24" literal
 * '*' '$', final '$' anchor), then "s<url>\n" per sitemap, then "u<why>\n" when robots.txt
 * was unreachable. Every line ends in '\n', so a cut copy is detected. */
char *rc_robots_serialize(const rc_robots *r)
{
    rc_buf b;
    rc_buf_init(&b);
    rc_buf_printf(&b, SERIAL_MAGIC " %zu %zu\n", r->nrules, r->nsitemaps);
    if (r->delay >= 0) {
        rc_buf_puts(&b, "c");
        put_double(&b, r->delay);
        rc_buf_puts(&b, "\n");
    }
    for (size_t i = 0; i < r->nrules; i++) {
        const struct rule *ru = &r->rules[i];
        const char *pat = r->pool + ru->off;
        rc_buf_append(&b, ru->allow ? "a" : "d", 1);
        size_t run = 0;
        for (size_t j = 0; j < ru->len; j++) {
            const char *esc = pat[j] == WILD ? "*" : pat[j] == '*' ? "%2A" : pat[j] == '$' ? "%24" : NULL;
            if (!esc)
                continue;
            rc_buf_append(&b, pat + run, j - run);
            rc_buf_puts(&b, esc);
            run = j + 1;
        }
        rc_buf_append(&b, pat + run, ru->len - run);
        rc_buf_puts(&b, ru->anchored ? "$\n" : "\n");
    }
    for (size_t i = 0; i < r->nsitemaps; i++) {
        rc_buf_puts(&b, "s");
        rc_buf_puts(&b, r->sitemaps[i]);
        rc_buf_puts(&b, "\n");
    }
    if (r->unreachable) {
        rc_buf_puts(&b, "u");
        rc_buf_puts(&b, r->unreachable);
        rc_buf_puts(&b, "\n");
    }
    return rc_buf_steal(&b);
}

rc_robots *rc_robots_deserialize(const char *s, size_t len)
{
    rc_robots *r = NULL;
    struct rulelist l;
    rulelist_init(&l);
    if (!s)
        goto fail;

    /* Header: magic and counts. */
    const char *end = s + len;
    const char *nl = memchr(s, '\n', len);
    char head[64];
    unsigned long long nrules, nsitemaps;
    char extra;
    if (!nl || (size_t)(nl - s) >= sizeof head)
        goto fail;
    memcpy(head, s, (size_t)(nl - s));
    head[nl - s] = '\0';
    if (sscanf(head, SERIAL_MAGIC " %llu %llu%c", &nrules, &nsitemaps, &extra) != 2 ||
        nsitemaps > RC_ROBOTS_MAX_SITEMAPS)
        goto fail;

    r = robots_new();
    for (const char *p = nl + 1; p < end; p = nl + 1) {
        nl = memchr(p, '\n', (size_t)(end - p));
        if (!nl || nl == p)
            goto fail;
        const char *v = p + 1;
        size_t vn = (size_t)(nl - v);
        switch (*p) {
        case 'c': {
            char num[64];
            if (l.delay >= 0 || l.n > 0 || r->nsitemaps > 0 || vn == 0 || vn >= sizeof num)
                goto fail;
            memcpy(num, v, vn);
            num[vn] = '\0';
            if (rc_parse_double(num, 0, MAX_DELAY, &l.delay) < 0)
                goto fail;
            break;
        }
        case 'a':
        case 'd':
            if (vn == 0 || r->nsitemaps > 0)
                goto fail;
            rulelist_add(&l, *p == 'a', v, vn);
            break;
        case 's': {
            size_t before = r->nsitemaps;
            add_sitemap(r, v, vn);
            if (r->nsitemaps != before + 1)
                goto fail;
            break;
        }
        case 'u':
            if (r->unreachable || vn == 0)
                goto fail;
            r->unreachable = rc_xstrndup(v, vn);
            break;
        default:
            goto fail;
        }
    }
    if (l.n != nrules || r->nsitemaps != nsitemaps)
        goto fail;
    take_rules(r, &l);
    rulelist_release(&l);
    return r;

fail:
    rulelist_release(&l);
    rc_robots_free(r);
    return NULL;
}
