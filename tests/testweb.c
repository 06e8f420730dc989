/* testweb.c - a deterministic test web server for redcrawl's integration tests, benchmarks and
 * demo. Standalone (no shared/), loopback only (or inside a test's own network namespace), one
 * libev loop, non-blocking sockets.
 *
 *   gcc -std=c11 -D_GNU_SOURCE -O2 -o testweb tests/testweb.c -lev
 *   ./testweb --port 0 --log req.tsv &      # first stdout line: "PORT <n>"
 *   curl --connect-to ::127.0.0.1:<n> http://s1.site.test/p/3
 *
 * Hosts: s0.site.test .. s{N-1}.site.test and other.test (routed by Host, port ignored,
 * case-insensitive); anything else is 404. Paths on a site:
 *   /                 page 0          /p/<id>        page id (1..pages-1)
 *   /p/<id>.txt       text page       /private/<id>  page behind robots.txt's Disallow
 *   /redirect/<id>    301 -> /p/<id>  /slow/<ms>/<id> page after <ms> more (<= 60000)
 *   /status/<code>    that status     /robots.txt    with --robots, else 404
 * other.test serves /o/0 .. /o/4 (and /status/, /robots.txt).
 *
 * With --traps every site's page 0 also links to four crawler traps (small HTML pages, each with
 * a title, each linking back to /):
 *   /cal/<Y>/<M>          an infinite calendar starting at this month (UTC): links to the
 *                         previous and next month (years 1..9999) and to the day pages
 *                         /cal/<Y>/<M>/1 and /cal/<Y>/<M>/15 (which link back to their month)
 *   /sess/<N>?sid=<rand>  session ids: /sess/N links to itself and to /sess/N+1 (N < 8), always
 *                         with a fresh random sid, sometimes also ";jsessionid=<rand>" in the path,
 *                         so every visit's links look new; the query is ignored when routing
 *   /deep/a/b/a/b/...     repeating segments: each page links to itself plus one more segment
 *                         (up to 100 segments)
 *   /q?p1=1&p2=2&...      query explosion: each page links to the URL with one more parameter
 *                         (up to 30); any other query on /q is 404
 * Trap pages are not in --print-graph (which refuses --traps): the trap graph is infinite and
 * partly random.
 *
 * The link graph depends only on --sites, --pages and --seed. Every resource's links are made
 * once by res_links() as hrefs written in assorted (denormalised) forms; each href is resolved
 * against the page URL and normalised right there. The HTML renders the written form, --print-graph
 * prints the normalised one, so the two can never disagree. --print-graph prints one line per URL:
 *   URL \t kind \t target-or-dash \t space-separated normalised links
 * with kind html|text|redirect|status; for a redirect the target is also listed as its only link.
 *
 * Request log (--log): one line per response, tab-separated, flushed:
 *   start_us end_us host path status bytes conn_id cond
 * cond: the conditional headers the request carried: inm (If-None-Match), ims
 * (If-Modified-Since), inm+ims, or "-".
 * start_us: request head parsed; end_us: last response byte handed to the kernel; both
 * CLOCK_REALTIME microseconds. bytes: response bytes including the head. host is lower-case
 * without port ("-" if none), path is the request-target as received. */

#include <arpa/inet.h>
#include <errno.h>
#include <ev.h>
#include <inttypes.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define TW_MAX_HEAD (16 * 1024)  /* request head cap; larger -> 431 and close */
#define TW_IN_CAP (32 * 1024)    /* read buffer per connection */
#define TW_OUT_HIGH (256 * 1024) /* stop answering pipelined requests above this backlog */
#define TW_MAX_INFLIGHT 64       /* responses queued but not yet written, per connection */
#define TW_MAX_LINKS 32
#define TW_HREF_MAX 256
#define TW_URL_MAX 512
#define TW_HOST_MAX 256
#define TW_MAX_SEGS 1024
#define TW_IDLE_S 120.0 /* idle keep-alive connections are closed after this */
#define TW_LINGER_S 2.0 /* after shutdown(SHUT_WR), drain input at most this long */
#define TW_SLOW_MAX_MS 60000
#define TW_OTHER_PAGES 5
#define TW_MAX_URLS_TOTAL 50000000L
#define TW_SESS_PAGES 8  /* --traps: /sess/1 .. /sess/8 */
#define TW_DEEP_MAX 100  /* --traps: segments of /deep/a/b/... */
#define TW_QUERY_MAX 30  /* --traps: parameters of /q?p1=1&... */
#define TW_YEAR_MAX 9999 /* --traps: the calendar runs over years 1..9999 */

/* ---------------------------------------------------------------------------------------------
 * Configuration: a table of {name, type, offset, default, min, max}. */

struct cfg {
    long port;
    const char *bind;
    const char *log_path;
    long sites;
    long pages;
    long page_size;
    long latency_ms;
    long seed;
    const char *pid_file;
    long print_graph;
    long max_seconds;
    long fail_every;
    long robots;
    long traps;
    long validators;
};

enum opt_type { OPT_INT, OPT_STR, OPT_FLAG };

struct opt {
    const char *name;
    enum opt_type type;
    size_t off;
    long def, min, max;
    const char *sdef;
    const char *help;
};

static const struct opt opts[] = {
    {"port", OPT_INT, offsetof(struct cfg, port), 0, 0, 65535, NULL,
     "TCP port; 0 picks a free one. First stdout line is 'PORT <n>'"},
    {"bind", OPT_STR, offsetof(struct cfg, bind), 0, 0, 0, "127.0.0.1",
     "address to bind: 127.x.y.z or ::1; any address only where there is no default route "
     "(a test's own network namespace)"},
    {"log", OPT_STR, offsetof(struct cfg, log_path), 0, 0, 0, NULL,
     "request log (truncated): start_us end_us host path status bytes conn_id"},
    {"sites", OPT_INT, offsetof(struct cfg, sites), 5, 1, 100000, NULL, "number of sites s0..s{N-1}.site.test"},
    {"pages", OPT_INT, offsetof(struct cfg, pages), 50, 1, 10000000, NULL, "pages per site"},
    {"page-size", OPT_INT, offsetof(struct cfg, page_size), 2000, 0, 8 * 1024 * 1024, NULL,
     "pad pages with filler up to about this many bytes"},
    {"latency-ms", OPT_INT, offsetof(struct cfg, latency_ms), 0, 0, 600000, NULL,
     "delay every response by this many ms"},
    {"seed", OPT_INT, offsetof(struct cfg, seed), 0, 0, INT_MAX, NULL, "varies the link graph deterministically"},
    {"pid-file", OPT_STR, offsetof(struct cfg, pid_file), 0, 0, 0, NULL, "write the pid here; removed on exit"},
    {"print-graph", OPT_FLAG, offsetof(struct cfg, print_graph), 0, 0, 1, NULL,
     "print the link graph (URL kind target links) and exit"},
    {"max-seconds", OPT_INT, offsetof(struct cfg, max_seconds), 600, 1, 7 * 86400, NULL,
     "exit by itself after this many seconds"},
    {"fail-every", OPT_INT, offsetof(struct cfg, fail_every), 0, 0, INT_MAX, NULL,
     "every Nth /p/ request gets 503 + Retry-After: 1 (its retry succeeds); 0 = off"},
    {"robots", OPT_FLAG, offsetof(struct cfg, robots), 0, 0, 1, NULL,
     "serve /robots.txt disallowing /private/ (else 404)"},
    {"traps", OPT_FLAG, offsetof(struct cfg, traps), 0, 0, 1, NULL,
     "page 0 of every site links to crawler traps: /cal/ /sess/ /deep/ /q"},
    {"validators", OPT_FLAG, offsetof(struct cfg, validators), 0, 0, 1, NULL,
     "200 answers carry ETag and Last-Modified; If-None-Match / If-Modified-Since that match get 304"},
};

#define N_OPTS (sizeof opts / sizeof opts[0])

static void usage(FILE *f)
{
    fprintf(f, "usage: testweb [options]\n");
    for (size_t i = 0; i < N_OPTS; i++) {
        const struct opt *o = &opts[i];
        if (o->type == OPT_FLAG)
            fprintf(f, "  --%-14s %s\n", o->name, o->help);
        else if (o->type == OPT_STR)
            fprintf(f, "  --%-14s %s (default %s)\n", o->name, o->help, o->sdef ? o->sdef : "none");
        else
            fprintf(f, "  --%-14s %s (default %ld)\n", o->name, o->help, o->def);
    }
}

static long *opt_long(struct cfg *c, const struct opt *o)
{
    return (long *)(void *)((char *)c + o->off);
}

static const char **opt_str(struct cfg *c, const struct opt *o)
{
    return (const char **)(void *)((char *)c + o->off);
}

static const struct opt *opt_find(const char *name, size_t n)
{
    for (size_t i = 0; i < N_OPTS; i++)
        if (strlen(opts[i].name) == n && !memcmp(opts[i].name, name, n))
            return &opts[i];
    return NULL;
}

static int parse_long(const char *s, long min, long max, long *ret)
{
    char *end = NULL;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end || v < min || v > max)
        return -EINVAL;
    *ret = (long)v;
    return 0;
}

static int opt_set(struct cfg *c, const struct opt *o, const char *val)
{
    if (o->type == OPT_STR) {
        *opt_str(c, o) = val;
        return 0;
    }
    if (parse_long(val, o->min, o->max, opt_long(c, o)) < 0) {
        fprintf(stderr, "testweb: --%s: '%s' is not an integer in [%ld, %ld]\n", o->name, val, o->min, o->max);
        return -EINVAL;
    }
    return 0;
}

static void cfg_defaults(struct cfg *c)
{
    memset(c, 0, sizeof *c);
    for (size_t i = 0; i < N_OPTS; i++) {
        if (opts[i].type == OPT_STR)
            *opt_str(c, &opts[i]) = opts[i].sdef;
        else
            *opt_long(c, &opts[i]) = opts[i].def;
    }
}

/* Returns 0 to run, 1 if --help was printed, negative on a bad command line. */
static int cfg_parse(struct cfg *c, int argc, char **argv)
{
    cfg_defaults(c);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 1;
        }
        if (strncmp(a, "--", 2) != 0) {
            fprintf(stderr, "testweb: unexpected argument '%s'\n", a);
            return -EINVAL;
        }
        const char *name = a + 2;
        const char *eq = strchr(name, '=');
        const struct opt *o = opt_find(name, eq ? (size_t)(eq - name) : strlen(name));
        if (!o) {
            fprintf(stderr, "testweb: unknown option '%s' (try --help)\n", a);
            return -EINVAL;
        }
        if (o->type == OPT_FLAG) {
            if (eq) {
                fprintf(stderr, "testweb: --%s takes no value\n", o->name);
                return -EINVAL;
            }
            *opt_long(c, o) = 1;
            continue;
        }
        const char *val = eq ? eq + 1 : NULL;
        if (!val && i + 1 < argc)
            val = argv[++i];
        if (!val) {
            fprintf(stderr, "testweb: --%s needs a value\n", o->name);
            return -EINVAL;
        }
        if (opt_set(c, o, val) < 0)
            return -EINVAL;
    }
    if (c->print_graph && c->traps) {
        fprintf(stderr, "testweb: --print-graph cannot be combined with --traps (the trap graph is "
                        "infinite)\n");
        return -EINVAL;
    }
    if (c->sites * c->pages > TW_MAX_URLS_TOTAL) {
        fprintf(stderr, "testweb: --sites x --pages must be <= %ld\n", TW_MAX_URLS_TOTAL);
        return -EINVAL;
    }
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Small helpers: memory, growable buffer, time, PRNG. */

static void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q) {
        fprintf(stderr, "testweb: out of memory (%zu bytes)\n", n);
        abort();
    }
    return q;
}

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p) {
        fprintf(stderr, "testweb: out of memory (%zu x %zu bytes)\n", n, size);
        abort();
    }
    return p;
}

static char *xstrndup(const char *s, size_t n)
{
    char *p = xrealloc(NULL, n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

struct buf {
    char *p;
    size_t len, cap;
};

static void buf_reserve(struct buf *b, size_t extra)
{
    if (b->cap - b->len > extra)
        return;
    size_t cap = b->cap ? b->cap : 256;
    while (cap - b->len <= extra)
        cap *= 2;
    b->p = xrealloc(b->p, cap);
    b->cap = cap;
}

static void buf_add(struct buf *b, const void *d, size_t n)
{
    buf_reserve(b, n);
    memcpy(b->p + b->len, d, n);
    b->len += n;
    b->p[b->len] = '\0';
}

static void buf_adds(struct buf *b, const char *s)
{
    buf_add(b, s, strlen(s));
}

__attribute__((format(printf, 2, 3))) static void buf_printf(struct buf *b, const char *fmt, ...)
{
    va_list ap;
    buf_reserve(b, 64);
    va_start(ap, fmt);
    int n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n >= b->cap - b->len) {
        buf_reserve(b, (size_t)n);
        va_start(ap, fmt);
        vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
        va_end(ap);
    }
    b->len += (size_t)n;
}

static void buf_consume(struct buf *b, size_t n)
{
    if (n >= b->len) {
        b->len = 0;
        return;
    }
    memmove(b->p, b->p + n, b->len - n);
    b->len -= n;
}

static void buf_release(struct buf *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}

static int64_t now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static uint64_t splitmix64(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static bool ieq(const char *a, size_t an, const char *b)
{
    return strlen(b) == an && !strncasecmp(a, b, an);
}

/* Digits only, no sign, no leading zero (except "0"), value <= max. */
static int parse_id(const char *p, size_t n, long max, long *ret)
{
    if (n == 0 || n > 10 || (n > 1 && p[0] == '0'))
        return -EINVAL;
    long v = 0;
    for (size_t i = 0; i < n; i++) {
        if (p[i] < '0' || p[i] > '9')
            return -EINVAL;
        v = v * 10 + (p[i] - '0');
    }
    if (v > max)
        return -EINVAL;
    *ret = v;
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * URL resolution and normalisation (RFC 3986 section 5.2), enough for the hrefs we write:
 * lower-case scheme and host, no default port, no fragment, no empty query, no dot segments,
 * empty path -> "/". Percent-encoding is left alone. */

struct slice {
    const char *p;
    size_t n;
};

struct uparts {
    struct slice scheme, auth, path, query;
    bool has_scheme, has_auth, has_query;
};

static bool scheme_ok(const char *s, size_t n)
{
    if (n == 0 || !((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z')))
        return false;
    for (size_t i = 1; i < n; i++) {
        char ch = s[i];
        bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '+' ||
                  ch == '-' || ch == '.';
        if (!ok)
            return false;
    }
    return true;
}

static void url_split(const char *s, struct uparts *u)
{
    size_t n = strlen(s), i = 0, k = 0;
    memset(u, 0, sizeof *u);
    while (k < n && s[k] != ':' && s[k] != '/' && s[k] != '?' && s[k] != '#')
        k++;
    if (k < n && s[k] == ':' && scheme_ok(s, k)) {
        u->has_scheme = true;
        u->scheme = (struct slice){s, k};
        i = k + 1;
    }
    if (n - i >= 2 && s[i] == '/' && s[i + 1] == '/') {
        size_t st = i + 2;
        i = st;
        while (i < n && s[i] != '/' && s[i] != '?' && s[i] != '#')
            i++;
        u->has_auth = true;
        u->auth = (struct slice){s + st, i - st};
    }
    size_t st = i;
    while (i < n && s[i] != '?' && s[i] != '#')
        i++;
    u->path = (struct slice){s + st, i - st};
    if (i < n && s[i] == '?') {
        st = ++i;
        while (i < n && s[i] != '#')
            i++;
        u->has_query = true;
        u->query = (struct slice){s + st, i - st};
    }
}

static bool seg_is(struct slice sg, const char *lit)
{
    return sg.n == strlen(lit) && !memcmp(sg.p, lit, sg.n);
}

/* Appends `in` with "." and ".." segments removed; `in` is absolute (or empty). */
static int path_remove_dots(struct slice in, struct buf *out)
{
    struct slice segs[TW_MAX_SEGS];
    size_t nseg = 0, i = (in.n && in.p[0] == '/') ? 1 : 0;
    if (in.n == 0)
        return 0;
    for (;;) {
        size_t st = i;
        while (i < in.n && in.p[i] != '/')
            i++;
        struct slice sg = {in.p + st, i - st};
        bool last = i >= in.n;
        if (nseg == TW_MAX_SEGS)
            return -E2BIG;
        if (seg_is(sg, ".") || seg_is(sg, "..")) {
            if (seg_is(sg, "..") && nseg > 0)
                nseg--;
            if (last)
                segs[nseg++] = (struct slice){in.p + i, 0};
        } else {
            segs[nseg++] = sg;
        }
        if (last)
            break;
        i++;
    }
    for (size_t k = 0; k < nseg; k++) {
        buf_add(out, "/", 1);
        buf_add(out, segs[k].p, segs[k].n);
    }
    return 0;
}

/* RFC 3986 5.2.3 merge of a relative path onto the base path. */
static void path_merge(const struct uparts *b, struct slice rel, struct buf *out)
{
    if (b->has_auth && b->path.n == 0) {
        buf_add(out, "/", 1);
    } else {
        size_t k = b->path.n;
        while (k > 0 && b->path.p[k - 1] != '/')
            k--;
        buf_add(out, b->path.p, k);
    }
    buf_add(out, rel.p, rel.n);
}

static int auth_normalise(struct slice auth, bool https, char *out, size_t cap)
{
    size_t hn = auth.n, i;
    const char *colon = NULL;
    for (i = auth.n; i > 0; i--) {
        if (auth.p[i - 1] == ':') {
            colon = auth.p + i - 1;
            break;
        }
        if (auth.p[i - 1] < '0' || auth.p[i - 1] > '9')
            break;
    }
    if (colon) {
        struct slice port = {colon + 1, (size_t)(auth.p + auth.n - colon - 1)};
        if (port.n == 0 || seg_is(port, https ? "443" : "80"))
            hn = (size_t)(colon - auth.p);
    }
    if (hn == 0 || hn >= cap)
        return -EINVAL;
    for (i = 0; i < hn; i++) {
        char ch = auth.p[i];
        out[i] = (ch >= 'A' && ch <= 'Z') ? (char)(ch - 'A' + 'a') : ch;
    }
    out[hn] = '\0';
    return 0;
}

/* Resolves `href` against the absolute http URL `base` and normalises the result into canon.
 * Returns 0, -EPROTONOSUPPORT if the result is not http(s), -EINVAL if malformed or too long. */
static int url_resolve(const char *base, const char *href, char *canon, size_t cap)
{
    struct uparts b, r;
    struct buf path = {0}, merged = {0};
    struct slice scheme, auth, query = {NULL, 0};
    bool has_query = false;
    char host[TW_HOST_MAX];
    int rc = 0;

    url_split(base, &b);
    url_split(href, &r);
    scheme = b.scheme;
    auth = b.auth;
    if (r.has_scheme) {
        scheme = r.scheme;
        if (!ieq(scheme.p, scheme.n, "http") && !ieq(scheme.p, scheme.n, "https")) {
            rc = -EPROTONOSUPPORT;
            goto fail;
        }
        if (!r.has_auth) {
            rc = -EINVAL;
            goto fail;
        }
    }
    if (r.has_scheme || r.has_auth) {
        auth = r.auth;
        rc = path_remove_dots(r.path, &path);
        query = r.query;
        has_query = r.has_query;
    } else if (r.path.n == 0) {
        buf_add(&path, b.path.p, b.path.n);
        query = r.has_query ? r.query : b.query;
        has_query = r.has_query || b.has_query;
    } else {
        if (r.path.p[0] == '/') {
            rc = path_remove_dots(r.path, &path);
        } else {
            path_merge(&b, r.path, &merged);
            rc = path_remove_dots((struct slice){merged.p, merged.len}, &path);
        }
        query = r.query;
        has_query = r.has_query;
    }
    if (rc < 0)
        goto fail;
    bool https = ieq(scheme.p, scheme.n, "https");
    rc = auth_normalise(auth, https, host, sizeof host);
    if (rc < 0)
        goto fail;
    has_query = has_query && query.n > 0;
    int n = snprintf(canon, cap, "%s://%s%.*s%s%.*s", https ? "https" : "http", host, (int)(path.len ? path.len : 1),
                     path.len ? path.p : "/", has_query ? "?" : "", (int)(has_query ? query.n : 0),
                     has_query ? query.p : "");
    if (n < 0 || (size_t)n >= cap)
        rc = -EINVAL;
fail:
    buf_release(&path);
    buf_release(&merged);
    return rc;
}

/* ---------------------------------------------------------------------------------------------
 * Resources and the link graph. route() maps (host, path) to a resource; res_links() makes its
 * links. Both the HTTP server and --print-graph go through these two functions. */

enum res_kind {
    RES_PAGE,     /* / and /p/<id> */
    RES_TEXT,     /* /p/<id>.txt */
    RES_PRIVATE,  /* /private/<id> */
    RES_OTHER,    /* other.test/o/<k> */
    RES_SLOW,     /* /slow/<ms>/<id> */
    RES_REDIRECT, /* /redirect/<id> */
    RES_STATUS,   /* /status/<code> and every 404 */
    RES_ROBOTS,   /* /robots.txt with --robots */
    RES_TRAP,     /* --traps: /cal/, /sess/, /deep/, /q */
};

enum trap_kind {
    TRAP_MONTH, /* /cal/<y>/<m>: id = y * 12 + m - 1 */
    TRAP_DAY,   /* /cal/<y>/<m>/<d>: id as for the month, day in r->day */
    TRAP_SESS,  /* /sess/<id> */
    TRAP_DEEP,  /* /deep/a/b/...: id segments */
    TRAP_QUERY, /* /q?p1=1&...: id parameters */
};

#define SITE_OTHER (-1L)
#define SITE_UNKNOWN (-2L)

struct res {
    enum res_kind kind;
    int status;
    long site; /* >= 0, SITE_OTHER or SITE_UNKNOWN */
    long id;
    long delay_ms;              /* extra delay (/slow/) */
    bool fail_able;             /* under /p/: subject to --fail-every */
    enum trap_kind trap;        /* RES_TRAP: which trap */
    long day;                   /* TRAP_DAY: the day of the month */
    char base[TW_URL_MAX];      /* canonical URL of this resource, base for relative hrefs */
    char location[TW_HREF_MAX]; /* RES_REDIRECT: Location header, as sent */
};

struct link {
    const char *label;      /* static string */
    char href[TW_HREF_MAX]; /* as written in the HTML */
    char canon[TW_URL_MAX]; /* resolved and normalised; "" when not http(s) */
};

struct links {
    const char *base; /* borrowed */
    int n;
    struct link v[TW_MAX_LINKS];
};

/* Rule "(id + seed) % mod == rem": the seed shifts which pages get which extra links. */
static bool rule(const struct cfg *c, long id, unsigned mod, unsigned rem)
{
    return ((uint64_t)id + (uint64_t)c->seed) % mod == rem;
}

static unsigned variant(const struct cfg *c, long site, long id)
{
    return (unsigned)(((uint64_t)id + (uint64_t)c->seed + (uint64_t)site) % 4);
}

__attribute__((format(printf, 3, 4))) static void links_add(struct links *ls, const char *label, const char *fmt, ...)
{
    va_list ap;
    if (ls->n == TW_MAX_LINKS) {
        fprintf(stderr, "testweb: bug: more than %d links on %s\n", TW_MAX_LINKS, ls->base);
        abort();
    }
    struct link *l = &ls->v[ls->n++];
    l->label = label;
    va_start(ap, fmt);
    int n = vsnprintf(l->href, sizeof l->href, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof l->href) {
        fprintf(stderr, "testweb: bug: href too long on %s\n", ls->base);
        abort();
    }
    int rc = url_resolve(ls->base, l->href, l->canon, sizeof l->canon);
    if (rc == -EPROTONOSUPPORT) {
        l->canon[0] = '\0';
    } else if (rc < 0) {
        fprintf(stderr, "testweb: bug: cannot resolve '%s' on %s\n", l->href, ls->base);
        abort();
    }
}

/* --traps: random tokens, different on every visit (the point of a session-id trap). */
static uint64_t trap_random(void)
{
    static uint64_t state;
    if (!state)
        state = (uint64_t)now_us() ^ ((uint64_t)getpid() << 32) ^ 1;
    return splitmix64(&state);
}

static void trap_token(char *out, size_t cap)
{
    for (size_t k = 0; k + 1 < cap; k++)
        out[k] = (char)('a' + trap_random() % 26);
    out[cap - 1] = '\0';
}

/* A link to /sess/<n> with a fresh sid, and a third of the time a jsessionid path parameter. */
static void sess_link(struct links *ls, const char *label, long n)
{
    char sid[13], jsid[17];
    trap_token(sid, sizeof sid);
    if (trap_random() % 3 == 0) {
        trap_token(jsid, sizeof jsid);
        links_add(ls, label, "/sess/%ld;jsessionid=%s?sid=%s", n, jsid, sid);
    } else {
        links_add(ls, label, "/sess/%ld?sid=%s", n, sid);
    }
}

static void trap_entry_links(struct links *ls)
{
    time_t t = time(NULL);
    struct tm tm;
    gmtime_r(&t, &tm);
    links_add(ls, "calendar", "/cal/%d/%d", tm.tm_year + 1900, tm.tm_mon + 1);
    sess_link(ls, "session", 1);
    links_add(ls, "deep", "/deep/a");
    links_add(ls, "query", "/q?p1=1");
}

/* "/deep/a/b/a..." with k segments. */
static void deep_path(long k, struct buf *b)
{
    buf_adds(b, "/deep");
    for (long j = 0; j < k; j++)
        buf_adds(b, j % 2 ? "/b" : "/a");
}

/* "p1=1&p2=2&..." with k parameters. */
static void query_string(long k, struct buf *b)
{
    for (long j = 1; j <= k; j++)
        buf_printf(b, "%sp%ld=%ld", j > 1 ? "&" : "", j, j);
}

static void trap_links(const struct res *r, struct links *ls)
{
    struct buf b = {0};
    long y = r->id / 12, m = r->id % 12 + 1;

    links_add(ls, "home", "/");
    switch (r->trap) {
    case TRAP_MONTH:
        if ((r->id - 1) / 12 >= 1)
            links_add(ls, "previous month", "/cal/%ld/%ld", (r->id - 1) / 12, (r->id - 1) % 12 + 1);
        if ((r->id + 1) / 12 <= TW_YEAR_MAX)
            links_add(ls, "next month", "/cal/%ld/%ld", (r->id + 1) / 12, (r->id + 1) % 12 + 1);
        links_add(ls, "day 1", "/cal/%ld/%ld/1", y, m);
        links_add(ls, "day 15", "/cal/%ld/%ld/15", y, m);
        break;
    case TRAP_DAY:
        links_add(ls, "month", "/cal/%ld/%ld", y, m);
        break;
    case TRAP_SESS:
        sess_link(ls, "this page", r->id);
        if (r->id < TW_SESS_PAGES)
            sess_link(ls, "next", r->id + 1);
        break;
    case TRAP_DEEP:
        deep_path(r->id, &b);
        links_add(ls, "this page", "%s", b.p);
        if (r->id < TW_DEEP_MAX)
            links_add(ls, "deeper", "%s%s", b.p, r->id % 2 ? "/b" : "/a");
        break;
    case TRAP_QUERY:
        if (r->id < TW_QUERY_MAX) {
            query_string(r->id + 1, &b);
            links_add(ls, "more", "/q?%s", b.p);
        }
        break;
    }
    buf_release(&b);
}

static void page_links(const struct cfg *c, long s, long i, struct links *ls)
{
    unsigned v = variant(c, s, i);
    long c1 = 2 * i + 1, c2 = 2 * i + 2, next = (s + 1) % c->sites;

    switch (v) { /* home */
    case 0:
        links_add(ls, "home", "/");
        break;
    case 1:
        links_add(ls, "home", "http://s%ld.site.test/", s);
        break;
    case 2:
        links_add(ls, "home", "/./");
        break;
    default:
        links_add(ls, "home", "/#main");
        break;
    }
    if (c1 < c->pages && rule(c, i, 17, 9)) {
        links_add(ls, "first child", "/redirect/%ld", c1);
    } else if (c1 < c->pages) {
        switch (v) {
        case 0:
            if (i > 0)
                links_add(ls, "first child", "%ld", c1);
            else
                links_add(ls, "first child", "p/%ld", c1);
            break;
        case 1:
            links_add(ls, "first child", "/p/%ld", c1);
            break;
        case 2:
            links_add(ls, "first child", "http://s%ld.site.test/p/%ld", s, c1);
            break;
        default:
            links_add(ls, "first child", "//s%ld.site.test/p/%ld", s, c1);
            break;
        }
        if (i > 0)
            links_add(ls, "first child again", "./%ld?", c1);
        else
            links_add(ls, "first child again", "./p/%ld?", c1);
    }
    if (c2 < c->pages) {
        if (v % 2 == 0)
            links_add(ls, "second child", "/p/%ld", c2);
        else
            links_add(ls, "second child", "/p/../p/%ld#section-2", c2);
    }
    if (i > 0) {
        long p = (i - 1) / 2;
        if (p > 0) {
            links_add(ls, "up", "../p/%ld", p);
            links_add(ls, "parent", "/p/%ld#top", p);
        } else {
            links_add(ls, "up", "../");
            links_add(ls, "parent", "/#top");
        }
        links_add(ls, "this page", "HTTP://S%ld.SITE.TEST:80/p/%ld", s, i);
    } else {
        links_add(ls, "this page", "HTTP://S%ld.SITE.TEST:80/", s);
    }
    if (rule(c, i, 7, 3)) {
        if (i == 0)
            links_add(ls, "next site", "http://s%ld.site.test/", next);
        else if (v % 2)
            links_add(ls, "next site", "http://S%ld.Site.Test/p/%ld", next, i);
        else
            links_add(ls, "next site", "http://s%ld.site.test/p/%ld", next, i);
    }
    if (rule(c, i, 11, 5)) {
        if (v % 2)
            links_add(ls, "elsewhere", "http://OTHER.test:80/o/%ld#x", i % TW_OTHER_PAGES);
        else
            links_add(ls, "elsewhere", "http://other.test/o/%ld", i % TW_OTHER_PAGES);
    }
    if (rule(c, i, 13, 6)) {
        if (i > 0)
            links_add(ls, "plain text", "%ld.txt", i);
        else
            links_add(ls, "plain text", "p/0.txt");
    }
    if (rule(c, i, 19, 4))
        links_add(ls, "private", "/private/%ld", i);
    if (rule(c, i, 23, 8))
        links_add(ls, "broken", "/status/%d", (((uint64_t)i + (uint64_t)c->seed) / 23) % 2 ? 410 : 404);
    links_add(ls, "mail", "mailto:webmaster@s%ld.site.test", s);
    if (v == 1)
        links_add(ls, "script", "javascript:void(0)");
    else if (v == 2)
        links_add(ls, "top", "#main");
    else if (v == 3)
        links_add(ls, "files", "ftp://files.site.test/pub/");
    if (i == 0 && c->traps)
        trap_entry_links(ls);
}

static void other_links(long k, struct links *ls)
{
    links_add(ls, "home", "http://s0.site.test/");
    for (long j = 0; j < TW_OTHER_PAGES; j++) {
        if (j == k)
            continue;
        if (j % 2)
            links_add(ls, "sibling", "/o/%ld", j);
        else
            links_add(ls, "sibling", "%ld", j);
    }
}

static void res_links(const struct cfg *c, const struct res *r, struct links *ls)
{
    ls->base = r->base;
    ls->n = 0;
    switch (r->kind) {
    case RES_PAGE:
        page_links(c, r->site, r->id, ls);
        break;
    case RES_OTHER:
        other_links(r->id, ls);
        break;
    case RES_PRIVATE:
        links_add(ls, "home", "/");
        break;
    case RES_SLOW:
        links_add(ls, "home", "/");
        if (r->id > 0)
            links_add(ls, "the page", "/p/%ld", r->id);
        break;
    case RES_REDIRECT:
        links_add(ls, "target", "%s", r->location);
        break;
    case RES_TRAP:
        trap_links(r, ls);
        break;
    case RES_TEXT:
    case RES_STATUS:
    case RES_ROBOTS:
        break;
    }
}

/* Lower-case host without port and trailing dot -> site index, SITE_OTHER or SITE_UNKNOWN. */
static long host_site(const struct cfg *c, const char *host)
{
    static const char suffix[] = ".site.test";
    size_t n = strlen(host), sn = sizeof suffix - 1;
    long s;
    if (!strcmp(host, "other.test"))
        return SITE_OTHER;
    if (n <= sn + 1 || host[0] != 's' || strcmp(host + n - sn, suffix) != 0)
        return SITE_UNKNOWN;
    if (parse_id(host + 1, n - sn - 1, c->sites - 1, &s) < 0)
        return SITE_UNKNOWN;
    return s;
}

static bool path_prefix(const char *p, size_t n, const char *pre, struct slice *rest)
{
    size_t pn = strlen(pre);
    if (n < pn || memcmp(p, pre, pn) != 0)
        return false;
    *rest = (struct slice){p + pn, n - pn};
    return true;
}

static void res_set(struct res *r, enum res_kind kind, int status, long id)
{
    r->kind = kind;
    r->status = status;
    r->id = id;
}

static void res_trap(struct res *r, enum trap_kind trap, long id)
{
    res_set(r, RES_TRAP, 200, id);
    r->trap = trap;
}

/* --traps routes. p[n] is '?' when a query follows (it runs to '#' or the end). */
static void route_trap(const char *p, size_t n, struct res *r)
{
    struct slice rest;
    long y, m, d, id;
    const char *s1, *s2;

    if (path_prefix(p, n, "/cal/", &rest) && (s1 = memchr(rest.p, '/', rest.n)) != NULL) {
        size_t yn = (size_t)(s1 - rest.p), mn;
        const char *mp = s1 + 1, *end = rest.p + rest.n;
        s2 = memchr(mp, '/', (size_t)(end - mp));
        mn = s2 ? (size_t)(s2 - mp) : (size_t)(end - mp);
        if (parse_id(rest.p, yn, TW_YEAR_MAX, &y) < 0 || y < 1 || parse_id(mp, mn, 12, &m) < 0 || m < 1)
            return;
        if (!s2) {
            res_trap(r, TRAP_MONTH, y * 12 + m - 1);
        } else if (parse_id(s2 + 1, (size_t)(end - s2 - 1), 31, &d) == 0 && d >= 1) {
            res_trap(r, TRAP_DAY, y * 12 + m - 1);
            r->day = d;
        }
    } else if (path_prefix(p, n, "/sess/", &rest)) {
        const char *semi = memchr(rest.p, ';', rest.n);
        size_t idn = semi ? (size_t)(semi - rest.p) : rest.n;
        if (semi && (rest.p + rest.n - semi < 12 || memcmp(semi, ";jsessionid=", 12) != 0 ||
                     memchr(semi, '/', (size_t)(rest.p + rest.n - semi))))
            return;
        if (parse_id(rest.p, idn, TW_SESS_PAGES, &id) == 0 && id >= 1)
            res_trap(r, TRAP_SESS, id);
    } else if (path_prefix(p, n, "/deep", &rest) && rest.n >= 2 && rest.n % 2 == 0 && rest.n / 2 <= TW_DEEP_MAX) {
        for (size_t j = 0; j < rest.n; j += 2)
            if (rest.p[j] != '/' || rest.p[j + 1] != ((j / 2) % 2 ? 'b' : 'a'))
                return;
        res_trap(r, TRAP_DEEP, (long)(rest.n / 2));
    } else if (n == 2 && !memcmp(p, "/q", 2) && p[n] == '?') {
        const char *q = p + n + 1;
        size_t qn = strcspn(q, "#");
        struct buf b = {0};
        for (long k = 1; k <= TW_QUERY_MAX && b.len < qn; k++) {
            query_string(k, &b);
            if (b.len == qn && !memcmp(b.p, q, qn))
                res_trap(r, TRAP_QUERY, k);
            b.len = 0;
        }
        buf_release(&b);
    }
}

static void route_site(const struct cfg *c, const char *p, size_t n, struct res *r)
{
    struct slice rest;
    long id, ms;
    const char *slash;

    if (n == 1 && p[0] == '/') {
        res_set(r, RES_PAGE, 200, 0);
    } else if (path_prefix(p, n, "/p/", &rest)) {
        r->fail_able = true;
        if (rest.n > 4 && !memcmp(rest.p + rest.n - 4, ".txt", 4)) {
            if (parse_id(rest.p, rest.n - 4, c->pages - 1, &id) == 0 && rule(c, id, 13, 6))
                res_set(r, RES_TEXT, 200, id);
        } else if (parse_id(rest.p, rest.n, c->pages - 1, &id) == 0 && id > 0) {
            res_set(r, RES_PAGE, 200, id);
        }
        if (r->status == 404)
            r->fail_able = false;
    } else if (path_prefix(p, n, "/private/", &rest)) {
        if (parse_id(rest.p, rest.n, c->pages - 1, &id) == 0 && rule(c, id, 19, 4))
            res_set(r, RES_PRIVATE, 200, id);
    } else if (path_prefix(p, n, "/redirect/", &rest)) {
        if (parse_id(rest.p, rest.n, c->pages - 1, &id) == 0) {
            res_set(r, RES_REDIRECT, 301, id);
            if (id > 0)
                snprintf(r->location, sizeof r->location, "/p/%ld", id);
            else
                snprintf(r->location, sizeof r->location, "/");
        }
    } else if (path_prefix(p, n, "/slow/", &rest) && (slash = memchr(rest.p, '/', rest.n)) != NULL) {
        size_t msn = (size_t)(slash - rest.p);
        if (parse_id(rest.p, msn, TW_SLOW_MAX_MS, &ms) == 0 &&
            parse_id(slash + 1, rest.n - msn - 1, c->pages - 1, &id) == 0) {
            res_set(r, RES_SLOW, 200, id);
            r->delay_ms = ms;
        }
    } else if (c->traps) {
        route_trap(p, n, r);
    }
}

/* Routes a request. host: lower-case, no port ("" if none); path: without query. */
static void route(const struct cfg *c, const char *host, const char *path, size_t n, struct res *r)
{
    struct slice rest;
    long code, k;

    memset(r, 0, sizeof *r);
    res_set(r, RES_STATUS, 404, 0);
    r->site = host_site(c, host);
    if (r->site == SITE_UNKNOWN)
        return;
    int len = snprintf(r->base, sizeof r->base, "http://%s%.*s", host, (int)n, path);
    if (len < 0 || (size_t)len >= sizeof r->base || n == 0 || path[0] != '/') {
        snprintf(r->base, sizeof r->base, "http://%s/", host);
        return;
    }
    if (n == 11 && !memcmp(path, "/robots.txt", 11)) {
        if (c->robots)
            res_set(r, RES_ROBOTS, 200, 0);
    } else if (path_prefix(path, n, "/status/", &rest)) {
        if (parse_id(rest.p, rest.n, 599, &code) == 0 && code >= 200)
            res_set(r, RES_STATUS, (int)code, 0);
    } else if (r->site == SITE_OTHER) {
        if (path_prefix(path, n, "/o/", &rest) && parse_id(rest.p, rest.n, TW_OTHER_PAGES - 1, &k) == 0)
            res_set(r, RES_OTHER, 200, k);
    } else {
        route_site(c, path, n, r);
    }
}

static const char *res_kind_name(const struct res *r)
{
    switch (r->kind) {
    case RES_PAGE:
    case RES_PRIVATE:
    case RES_OTHER:
    case RES_SLOW:
    case RES_TRAP:
        return "html";
    case RES_TEXT:
    case RES_ROBOTS:
        return "text";
    case RES_REDIRECT:
        return "redirect";
    case RES_STATUS:
        break;
    }
    return "status";
}

/* ---------------------------------------------------------------------------------------------
 * Rendering. */

static const char *const words[] = {
    "lorem",     "ipsum",   "dolor",    "sit",      "amet",    "crawler",   "frontier", "politeness",
    "queue",     "anchor",  "parse",    "fetch",    "render",  "latency",   "socket",   "kernel",
    "buffer",    "segment", "redirect", "robots",   "sitemap", "canonical", "fragment", "depth",
    "breadth",   "graph",   "vertex",   "edge",     "shard",   "bloom",     "filter",   "hash",
    "scheduler", "worker",  "throttle", "deadline", "retry",   "backoff",   "window",   "stream",
    "the",       "a",       "of",       "and",      "to",      "in",
};

#define N_WORDS (sizeof words / sizeof words[0])

static uint64_t page_rng(const struct cfg *c, const struct res *r)
{
    uint64_t s = (uint64_t)c->seed;
    splitmix64(&s);
    s ^= (uint64_t)(r->site + 3) * 0x100000001b3ULL;
    splitmix64(&s);
    s ^= (uint64_t)r->id * 31 + (uint64_t)r->kind;
    return s;
}

/* Appends exactly n characters of filler words. */
static void add_filler(struct buf *b, uint64_t *rng, size_t n)
{
    size_t start = b->len;
    while (b->len - start < n) {
        if (b->len > start)
            buf_add(b, " ", 1);
        buf_adds(b, words[splitmix64(rng) % N_WORDS]);
    }
    b->len = start + n;
    b->p[b->len] = '\0';
}

static void html_escape(struct buf *b, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '&':
            buf_adds(b, "&amp;");
            break;
        case '<':
            buf_adds(b, "&lt;");
            break;
        case '>':
            buf_adds(b, "&gt;");
            break;
        case '"':
            buf_adds(b, "&quot;");
            break;
        case '\'':
            buf_adds(b, "&#39;");
            break;
        default:
            buf_add(b, s, 1);
            break;
        }
    }
}

static bool unquotable(const char *s)
{
    return s[0] && !strpbrk(s, " \t\n\"'=<>`&");
}

static void render_anchor(struct buf *b, const struct link *l, unsigned style, int idx)
{
    if (style == 4 && !unquotable(l->href))
        style = 0;
    switch (style) {
    case 0:
        buf_adds(b, "<a href=\"");
        break;
    case 1:
        buf_adds(b, "<A HREF=\"");
        break;
    case 2:
        buf_adds(b, "<a class=\"nav-link\"  href='");
        break;
    case 3:
        buf_printf(b, "<a\n      data-idx=\"%d\"\n      href = \"", idx);
        break;
    default:
        buf_adds(b, "<a href=");
        break;
    }
    html_escape(b, l->href);
    switch (style) {
    case 0:
        buf_adds(b, "\">");
        break;
    case 1:
        buf_adds(b, "\" TITLE=\"link\">");
        break;
    case 2:
        buf_printf(b, "'   title=\"link %d\">", idx);
        break;
    case 3:
        buf_adds(b, "\"\n    >");
        break;
    default:
        buf_adds(b, " rel=\"bookmark\">");
        break;
    }
    html_escape(b, l->label);
    buf_adds(b, style == 1 ? "</A>" : "</a>");
}

static void html_title(const struct res *r, char *t, size_t cap)
{
    if (r->kind == RES_OTHER)
        snprintf(t, cap, "other page %ld", r->id);
    else if (r->kind == RES_PRIVATE)
        snprintf(t, cap, "s%ld private %ld", r->site, r->id);
    else
        snprintf(t, cap, "s%ld page %ld", r->site, r->id);
}

static void render_html(const struct cfg *c, const struct res *r, struct buf *b)
{
    static const char footer[] = "</main>\n</body>\n</html>\n";
    struct links ls;
    char title[128];
    uint64_t rng = page_rng(c, r);
    unsigned v = variant(c, r->site, r->id);

    res_links(c, r, &ls);
    html_title(r, title, sizeof title);
    buf_printf(b,
               "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
               "<title>%s</title>\n</head>\n<body>\n<h1>%s</h1>\n<nav>\n<ul>\n",
               title, title);
    for (int k = 0; k < ls.n; k++) {
        buf_adds(b, (k + v) % 3 ? "<li>" : "  <LI> ");
        render_anchor(b, &ls.v[k], (unsigned)(k + (int)v) % 5, k);
        buf_adds(b, "</li>\n");
    }
    buf_adds(b, "</ul>\n</nav>\n<!-- <a href=\"/p/999999999\">not a link</a> -->\n"
                "<main id=\"main\">\n");
    for (int k = 0; k < 3; k++) {
        buf_adds(b, "<p>");
        add_filler(b, &rng, 60 + splitmix64(&rng) % 120);
        buf_adds(b, "</p>\n");
    }
    size_t want = (size_t)c->page_size, tail = sizeof footer - 1 + 8;
    while (b->len + tail < want) {
        size_t room = want - b->len - tail;                                /* text bytes that still fit, >= 1 */
        size_t chunk = room <= 400 ? room : room > 408 ? 400 : room - 100; /* hit want exactly */
        buf_adds(b, "<p>");
        add_filler(b, &rng, chunk);
        buf_adds(b, "</p>\n");
    }
    buf_adds(b, footer);
}

/* A trap page: small, with a title and a line of text of its own. */
static void render_trap(const struct cfg *c, const struct res *r, struct buf *b)
{
    struct links ls;
    char title[192];
    long y = r->id / 12, m = r->id % 12 + 1;

    res_links(c, r, &ls);
    switch (r->trap) {
    case TRAP_MONTH:
        snprintf(title, sizeof title, "s%ld calendar %ld-%02ld", r->site, y, m);
        break;
    case TRAP_DAY:
        snprintf(title, sizeof title, "s%ld calendar %ld-%02ld-%02ld", r->site, y, m, r->day);
        break;
    case TRAP_SESS:
        snprintf(title, sizeof title, "s%ld session page %ld", r->site, r->id);
        break;
    case TRAP_DEEP:
        snprintf(title, sizeof title, "s%ld deep page %ld", r->site, r->id);
        break;
    case TRAP_QUERY:
        snprintf(title, sizeof title, "s%ld query page %ld", r->site, r->id);
        break;
    }
    buf_printf(b,
               "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
               "<title>%s</title>\n</head>\n<body>\n<h1>%s</h1>\n<ul>\n",
               title, title);
    for (int k = 0; k < ls.n; k++) {
        buf_adds(b, "<li>");
        render_anchor(b, &ls.v[k], 0, k);
        buf_adds(b, "</li>\n");
    }
    buf_printf(b,
               "</ul>\n<main id=\"main\">\n<p>This is %s, a crawler trap of testweb.</p>\n"
               "</main>\n</body>\n</html>\n",
               title);
}

static void render_text(const struct cfg *c, const struct res *r, struct buf *b)
{
    uint64_t rng = page_rng(c, r);
    buf_printf(b, "s%ld page %ld text\n", r->site, r->id);
    while (b->len + 1 < (size_t)c->page_size) {
        size_t room = (size_t)c->page_size - b->len - 1;
        add_filler(b, &rng, room > 71 ? 71 : room);
        buf_add(b, "\n", 1);
    }
}

static const char *reason(int status)
{
    switch (status) {
    case 200:
        return "OK";
    case 301:
        return "Moved Permanently";
    case 302:
        return "Found";
    case 400:
        return "Bad Request";
    case 403:
        return "Forbidden";
    case 404:
        return "Not Found";
    case 405:
        return "Method Not Allowed";
    case 410:
        return "Gone";
    case 429:
        return "Too Many Requests";
    case 431:
        return "Request Header Fields Too Large";
    case 500:
        return "Internal Server Error";
    case 503:
        return "Service Unavailable";
    case 505:
        return "HTTP Version Not Supported";
    default:
        break;
    }
    if (status < 400)
        return status < 300 ? "OK" : "Redirect";
    return status < 500 ? "Client Error" : "Server Error";
}

static void render_status(int status, struct buf *b)
{
    buf_printf(b,
               "<!DOCTYPE html>\n<html><head><title>%d %s</title></head>\n"
               "<body><h1>%d %s</h1><p>testweb</p></body></html>\n",
               status, reason(status), status, reason(status));
}

static bool status_has_body(int status)
{
    return status != 204 && status != 304;
}

/* The body for a resource answered normally. ret_ctype: a static string. */
static void render_body(const struct cfg *c, const struct res *r, struct buf *b, const char **ret_ctype)
{
    *ret_ctype = "text/html; charset=utf-8";
    switch (r->kind) {
    case RES_PAGE:
    case RES_PRIVATE:
    case RES_OTHER:
    case RES_SLOW:
        render_html(c, r, b);
        break;
    case RES_TRAP:
        render_trap(c, r, b);
        break;
    case RES_TEXT:
        *ret_ctype = "text/plain; charset=utf-8";
        render_text(c, r, b);
        break;
    case RES_ROBOTS:
        *ret_ctype = "text/plain; charset=utf-8";
        buf_adds(b, "User-agent: *\nDisallow: /private/\n");
        break;
    case RES_REDIRECT:
        buf_adds(b, "<!DOCTYPE html>\n<html><head><title>301 Moved Permanently</title></head>\n"
                    "<body><h1>Moved</h1><p><a href=\"");
        html_escape(b, r->location);
        buf_adds(b, "\">moved here</a></p></body></html>\n");
        break;
    case RES_STATUS:
        if (status_has_body(r->status))
            render_status(r->status, b);
        break;
    }
}

/* ---------------------------------------------------------------------------------------------
 * --print-graph: BFS from every page of every site and every other.test page. */

struct strset {
    char **slot;
    size_t cap, n;
};

static uint64_t hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

static void strset_grow(struct strset *set)
{
    size_t cap = set->cap ? set->cap * 2 : 1024;
    char **slot = xcalloc(cap, sizeof *slot);
    for (size_t i = 0; i < set->cap; i++) {
        if (!set->slot[i])
            continue;
        size_t k = hash_str(set->slot[i]) & (cap - 1);
        while (slot[k])
            k = (k + 1) & (cap - 1);
        slot[k] = set->slot[i];
    }
    free(set->slot);
    set->slot = slot;
    set->cap = cap;
}

/* Adds a copy of s; returns the stored copy if new, NULL if already present. */
static char *strset_add(struct strset *set, const char *s)
{
    if ((set->n + 1) * 2 > set->cap)
        strset_grow(set);
    size_t k = hash_str(s) & (set->cap - 1);
    for (; set->slot[k]; k = (k + 1) & (set->cap - 1))
        if (!strcmp(set->slot[k], s))
            return NULL;
    set->slot[k] = xstrndup(s, strlen(s));
    set->n++;
    return set->slot[k];
}

static void strset_release(struct strset *set)
{
    for (size_t i = 0; i < set->cap; i++)
        free(set->slot[i]);
    free(set->slot);
    memset(set, 0, sizeof *set);
}

struct urlq {
    const char **v; /* borrowed from the strset */
    size_t n, cap;
};

static void urlq_push(struct urlq *q, struct strset *seen, const char *url)
{
    const char *s = strset_add(seen, url);
    if (!s)
        return;
    if (q->n == q->cap) {
        q->cap = q->cap ? q->cap * 2 : 1024;
        q->v = xrealloc(q->v, q->cap * sizeof *q->v);
    }
    q->v[q->n++] = s;
}

static void graph_line(const struct cfg *c, const char *url, FILE *out, struct urlq *q, struct strset *seen)
{
    const char *hp = url + strlen("http://");
    const char *slash = strchr(hp, '/');
    char host[TW_HOST_MAX];
    struct res r;
    struct links ls;
    int printed = 0;

    snprintf(host, sizeof host, "%.*s", (int)(slash - hp), hp);
    route(c, host, slash, strcspn(slash, "?"), &r);
    res_links(c, &r, &ls);
    fprintf(out, "%s\t%s\t", url, res_kind_name(&r));
    if (r.kind == RES_REDIRECT)
        fputs(ls.v[0].canon, out);
    else
        fputc('-', out);
    fputc('\t', out);
    for (int k = 0; k < ls.n; k++) {
        const char *u = ls.v[k].canon;
        bool dup = !u[0];
        for (int j = 0; j < k && !dup; j++)
            dup = !strcmp(ls.v[j].canon, u);
        if (dup)
            continue;
        fprintf(out, "%s%s", printed++ ? " " : "", u);
        urlq_push(q, seen, u);
    }
    fputc('\n', out);
}

static int print_graph(const struct cfg *c, FILE *out)
{
    struct strset seen = {0};
    struct urlq q = {0};
    char url[TW_URL_MAX];

    for (long s = 0; s < c->sites; s++) {
        for (long i = 0; i < c->pages; i++) {
            if (i == 0)
                snprintf(url, sizeof url, "http://s%ld.site.test/", s);
            else
                snprintf(url, sizeof url, "http://s%ld.site.test/p/%ld", s, i);
            urlq_push(&q, &seen, url);
        }
    }
    for (long k = 0; k < TW_OTHER_PAGES; k++) {
        snprintf(url, sizeof url, "http://other.test/o/%ld", k);
        urlq_push(&q, &seen, url);
    }
    for (size_t i = 0; i < q.n; i++)
        graph_line(c, q.v[i], out, &q, &seen);
    free(q.v);
    strset_release(&seen);
    return fflush(out) == 0 && !ferror(out) ? 0 : -EIO;
}

/* ---------------------------------------------------------------------------------------------
 * HTTP request parsing. */

struct req {
    bool head;
    bool keep;
    int minor;
    int64_t start_us;
    char host[TW_HOST_MAX]; /* lower-case, no port; "" if none */
    char *target;           /* owned: origin-form request-target (path and query) */
    char inm[128];          /* If-None-Match as received, "" if none */
    char ims[64];           /* If-Modified-Since as received, "" if none */
};

static void req_release(struct req *rq)
{
    free(rq->target);
    rq->target = NULL;
}

/* Offset just past the blank line ending the head, 0 if not there yet. */
static size_t head_end(const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (p[i] != '\n')
            continue;
        if (i + 1 < n && p[i + 1] == '\n')
            return i + 2;
        if (i + 2 < n && p[i + 1] == '\r' && p[i + 2] == '\n')
            return i + 3;
    }
    return 0;
}

static struct slice trim(const char *p, size_t n)
{
    while (n && (*p == ' ' || *p == '\t'))
        p++, n--;
    while (n && (p[n - 1] == ' ' || p[n - 1] == '\t' || p[n - 1] == '\r'))
        n--;
    return (struct slice){p, n};
}

static int host_normalise(struct slice v, char *out, size_t cap)
{
    size_t n = v.n;
    if (n && v.p[0] == '[') {
        const char *rb = memchr(v.p, ']', n);
        if (!rb)
            return -EINVAL;
        n = (size_t)(rb - v.p) + 1;
    } else {
        const char *colon = memchr(v.p, ':', n);
        if (colon)
            n = (size_t)(colon - v.p);
    }
    if (n && v.p[n - 1] == '.')
        n--;
    if (n >= cap)
        return -EINVAL;
    for (size_t i = 0; i < n; i++) {
        char ch = v.p[i];
        if (ch <= ' ' || ch == '/' || ch == '\x7f')
            return -EINVAL;
        out[i] = (ch >= 'A' && ch <= 'Z') ? (char)(ch - 'A' + 'a') : ch;
    }
    out[n] = '\0';
    return 0;
}

static void connection_tokens(struct slice v, bool *want_close, bool *want_keep)
{
    size_t i = 0;
    while (i < v.n) {
        size_t st = i;
        while (i < v.n && v.p[i] != ',')
            i++;
        struct slice t = trim(v.p + st, i - st);
        if (ieq(t.p, t.n, "close"))
            *want_close = true;
        else if (ieq(t.p, t.n, "keep-alive"))
            *want_keep = true;
        i++;
    }
}

static int parse_request_line(struct slice line, struct req *rq, struct slice *target)
{
    const char *sp1 = memchr(line.p, ' ', line.n);
    if (!sp1)
        return 400;
    const char *t = sp1 + 1, *end = line.p + line.n;
    const char *sp2 = memchr(t, ' ', (size_t)(end - t));
    if (!sp2 || sp2 == t)
        return 400;
    struct slice method = {line.p, (size_t)(sp1 - line.p)};
    struct slice ver = {sp2 + 1, (size_t)(end - sp2 - 1)};
    *target = (struct slice){t, (size_t)(sp2 - t)};
    if (ver.n == 8 && !memcmp(ver.p, "HTTP/1.", 7) && ver.p[7] >= '0' && ver.p[7] <= '9')
        rq->minor = ver.p[7] == '0' ? 0 : 1;
    else if (ver.n >= 5 && !memcmp(ver.p, "HTTP/", 5))
        return 505;
    else
        return 400;
    if (seg_is(method, "HEAD"))
        rq->head = true;
    else if (!seg_is(method, "GET"))
        return 405;
    return 0;
}

/* Target to origin-form; an absolute-form target also sets the host. */
static int parse_target(struct slice t, struct req *rq)
{
    if (t.n > 7 && !strncasecmp(t.p, "http://", 7)) {
        const char *a = t.p + 7, *end = t.p + t.n, *p = a;
        while (p < end && *p != '/' && *p != '?')
            p++;
        if (host_normalise((struct slice){a, (size_t)(p - a)}, rq->host, sizeof rq->host) < 0)
            return 400;
        rq->target = p < end && *p == '/' ? xstrndup(p, (size_t)(end - p)) : xstrndup("/", 1);
        return 0;
    }
    if (t.n == 0 || t.p[0] != '/')
        return 400;
    rq->target = xstrndup(t.p, t.n);
    return 0;
}

/* Parses one request head at p. Returns -1 if incomplete, 0 if fine, else the HTTP error
 * status to answer (and close). *used: bytes of the head. */
static int req_parse(const char *p, size_t n, struct req *rq, size_t *used)
{
    size_t end = head_end(p, n < TW_MAX_HEAD + 3 ? n : TW_MAX_HEAD + 3);
    bool want_close = false, want_keep = false, absolute, seen_host = false;
    struct slice target;
    int st;

    memset(rq, 0, sizeof *rq);
    if (!end || end > TW_MAX_HEAD) {
        *used = n;
        return n >= TW_MAX_HEAD ? 431 : -1;
    }
    *used = end;
    const char *nl = memchr(p, '\n', end);
    st = parse_request_line(trim(p, (size_t)(nl - p)), rq, &target);
    if (st)
        return st;
    absolute = target.n > 7 && !strncasecmp(target.p, "http://", 7);
    for (const char *l = nl + 1; l < p + end;) {
        const char *e = memchr(l, '\n', (size_t)(p + end - l));
        struct slice line = {l, (size_t)(e - l)};
        l = e + 1;
        if (line.n && line.p[line.n - 1] == '\r')
            line.n--;
        if (line.n == 0)
            break;
        const char *colon = memchr(line.p, ':', line.n);
        if (line.p[0] == ' ' || line.p[0] == '\t' || !colon || colon == line.p ||
            memchr(line.p, ' ', (size_t)(colon - line.p)))
            return 400;
        size_t nn = (size_t)(colon - line.p);
        struct slice val = trim(colon + 1, (size_t)(line.p + line.n - colon - 1));
        if (ieq(line.p, nn, "host")) {
            if (seen_host)
                return 400;
            seen_host = true;
            if (!absolute && host_normalise(val, rq->host, sizeof rq->host) < 0)
                return 400;
        } else if (ieq(line.p, nn, "if-none-match")) {
            snprintf(rq->inm, sizeof rq->inm, "%.*s", (int)val.n, val.p);
        } else if (ieq(line.p, nn, "if-modified-since")) {
            snprintf(rq->ims, sizeof rq->ims, "%.*s", (int)val.n, val.p);
        } else if (ieq(line.p, nn, "connection")) {
            connection_tokens(val, &want_close, &want_keep);
        } else if (ieq(line.p, nn, "content-length")) {
            if (!seg_is(val, "0"))
                return 400;
        } else if (ieq(line.p, nn, "transfer-encoding")) {
            return 400;
        }
    }
    if (rq->minor == 1 && !seen_host && !absolute)
        return 400;
    st = parse_target(target, rq);
    if (st)
        return st;
    rq->keep = rq->minor == 1 ? !want_close : want_keep && !want_close;
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * Server and connections. */

enum conn_state {
    CS_READING, /* parsing and answering requests */
    CS_DELAYED, /* the current request waits on its latency timer */
    CS_CLOSING, /* no more requests: flush the output, then linger */
    CS_LINGER,  /* write side shut down: drain input until EOF or timeout */
    CS_DEAD,    /* closed; freed by the reaper */
};

struct pending {
    uint64_t end; /* absolute output offset just past this response */
    int64_t start_us;
    int status;
    uint64_t bytes;
    char *hostpath; /* owned: "host\tpath" */
    char cond[8];   /* conditional headers received: "inm", "ims", "inm+ims" or "-" */
};

struct server;

struct conn {
    ev_io rio, wio;
    ev_timer delay, idle;
    struct server *sv;
    struct conn *prev, *next; /* live list, or dead list via next */
    int fd;
    uint64_t id;
    enum conn_state state;
    bool eof;
    struct buf in, out;
    size_t out_sent;   /* bytes of out already sent */
    uint64_t out_base; /* absolute stream offset of out.p[0] */
    struct pending pend[TW_MAX_INFLIGHT];
    int pend_head, pend_n;
    struct req cur;     /* CS_DELAYED: the waiting request */
    struct res cur_res; /* ... and its resource */
};

struct server {
    const struct cfg *cfg;
    struct ev_loop *loop;
    int lfd;
    ev_io accept_w;
    ev_timer accept_retry, deadline;
    ev_signal sigterm, sigint;
    ev_check reaper;
    FILE *log;
    uint64_t next_conn_id;
    uint64_t p_requests; /* counter for --fail-every */
    uint8_t *failed;     /* bit per /p/ resource: last answer was an injected 503 */
    struct conn *live, *dead;
    char date[64];
    time_t date_t;
};

static void conn_process(struct conn *cn);

static void conn_set_state(struct conn *cn, enum conn_state st)
{
    cn->state = st;
}

static const char *http_date(struct server *sv)
{
    time_t t = time(NULL);
    if (t != sv->date_t || !sv->date[0]) {
        struct tm tm;
        gmtime_r(&t, &tm);
        strftime(sv->date, sizeof sv->date, "%a, %d %b %Y %H:%M:%S GMT", &tm);
        sv->date_t = t;
    }
    return sv->date;
}

static void conn_close(struct conn *cn)
{
    struct server *sv = cn->sv;
    if (cn->state == CS_DEAD)
        return;
    ev_io_stop(sv->loop, &cn->rio);
    ev_io_stop(sv->loop, &cn->wio);
    ev_timer_stop(sv->loop, &cn->delay);
    ev_timer_stop(sv->loop, &cn->idle);
    close(cn->fd);
    cn->fd = -1;
    for (; cn->pend_n > 0; cn->pend_n--) {
        free(cn->pend[cn->pend_head].hostpath);
        cn->pend_head = (cn->pend_head + 1) % TW_MAX_INFLIGHT;
    }
    req_release(&cn->cur);
    if (cn->prev)
        cn->prev->next = cn->next;
    else
        sv->live = cn->next;
    if (cn->next)
        cn->next->prev = cn->prev;
    cn->prev = NULL;
    cn->next = sv->dead;
    sv->dead = cn;
    conn_set_state(cn, CS_DEAD);
}

static void reap(struct server *sv)
{
    while (sv->dead) {
        struct conn *cn = sv->dead;
        sv->dead = cn->next;
        buf_release(&cn->in);
        buf_release(&cn->out);
        free(cn);
    }
}

static void on_reap(struct ev_loop *loop, ev_check *w, int revents)
{
    reap(w->data);
}

static void sanitize_into(struct buf *b, const char *s)
{
    size_t n = strlen(s);
    if (n > 4096)
        n = 4096;
    for (size_t i = 0; i < n; i++) {
        char ch = s[i];
        buf_add(b, (unsigned char)ch <= ' ' || ch == '\x7f' ? "?" : &ch, 1);
    }
}

static void conn_push_pending(struct conn *cn, const struct req *rq, int status, uint64_t bytes)
{
    struct buf hp = {0};
    buf_adds(&hp, rq->host[0] ? rq->host : "-");
    buf_add(&hp, "\t", 1);
    sanitize_into(&hp, rq->target ? rq->target : "-");
    struct pending *p = &cn->pend[(cn->pend_head + cn->pend_n) % TW_MAX_INFLIGHT];
    p->end = cn->out_base + cn->out.len;
    p->start_us = rq->start_us;
    p->status = status;
    p->bytes = bytes;
    p->hostpath = hp.p;
    snprintf(p->cond, sizeof p->cond, "%s%s%s", rq->inm[0] ? "inm" : "", rq->inm[0] && rq->ims[0] ? "+" : "",
             rq->ims[0] ? "ims" : (rq->inm[0] ? "" : "-"));
    cn->pend_n++;
}

/* t: when the send that finished these responses began. Taken before the send, not after it, so
 * a server thread descheduled after handing the bytes over (a loaded machine) does not log an
 * end later than the client had the response: that made gaps look shorter than they were. */
static void conn_log_done(struct conn *cn, int64_t t)
{
    struct server *sv = cn->sv;
    uint64_t done = cn->out_base + cn->out_sent;
    while (cn->pend_n > 0) {
        struct pending *p = &cn->pend[cn->pend_head];
        if (p->end > done)
            break;
        if (sv->log) {
            fprintf(sv->log, "%" PRId64 "\t%" PRId64 "\t%s\t%d\t%" PRIu64 "\t%" PRIu64 "\t%s\n", p->start_us, t,
                    p->hostpath, p->status, p->bytes, cn->id, p->cond);
            fflush(sv->log);
        }
        free(p->hostpath);
        cn->pend_head = (cn->pend_head + 1) % TW_MAX_INFLIGHT;
        cn->pend_n--;
    }
}

/* Queues one response. location: Location header or NULL. */
static void conn_emit(struct conn *cn, const struct req *rq, int status, const char *ctype, const struct buf *body,
                      const char *location, const char *extra)
{
    struct buf *o = &cn->out;
    size_t start = o->len;
    buf_printf(o, "HTTP/1.1 %d %s\r\nDate: %s\r\nServer: testweb\r\n", status, reason(status), http_date(cn->sv));
    if (status_has_body(status))
        buf_printf(o, "Content-Type: %s\r\nContent-Length: %zu\r\n", ctype, body->len);
    if (location)
        buf_printf(o, "Location: %s\r\n", location);
    if (extra)
        buf_adds(o, extra);
    if (status == 503)
        buf_adds(o, "Retry-After: 1\r\n");
    if (status == 405)
        buf_adds(o, "Allow: GET, HEAD\r\n");
    if (!rq->keep)
        buf_adds(o, "Connection: close\r\n");
    else if (rq->minor == 0)
        buf_adds(o, "Connection: keep-alive\r\n");
    buf_adds(o, "\r\n");
    if (!rq->head && status_has_body(status) && body->len)
        buf_add(o, body->p, body->len);
    conn_push_pending(cn, rq, status, o->len - start);
}

static void conn_error(struct conn *cn, struct req *rq, int status)
{
    struct buf body = {0};
    rq->keep = false;
    render_status(status, &body);
    conn_emit(cn, rq, status, "text/html; charset=utf-8", &body, NULL, NULL);
    buf_release(&body);
    conn_set_state(cn, CS_CLOSING);
}

/* --fail-every: true if this request gets an injected 503. */
static bool fail_inject(struct server *sv, const struct res *r)
{
    const struct cfg *c = sv->cfg;
    if (!c->fail_every || !r->fail_able)
        return false;
    uint64_t bit = ((uint64_t)r->site * (uint64_t)c->pages + (uint64_t)r->id) * 2 + (r->kind == RES_TEXT);
    uint8_t mask = (uint8_t)(1u << (bit % 8));
    if (sv->failed[bit / 8] & mask) {
        sv->failed[bit / 8] &= (uint8_t)~mask;
        return false;
    }
    if (++sv->p_requests % (uint64_t)c->fail_every)
        return false;
    sv->failed[bit / 8] |= mask;
    return true;
}

/* --validators: a body's ETag is its FNV-1a hash, so it changes exactly when the body does;
 * Last-Modified is one fixed date. Writes both header lines into extra; true when the request's
 * If-None-Match (or, without one, If-Modified-Since) says the client has this body. */
#define TW_LAST_MODIFIED "Thu, 01 Jan 2026 00:00:00 GMT"
static bool validate(const struct req *rq, const struct buf *body, char *extra, size_t cap)
{
    uint64_t h = 14695981039346656037ull;
    for (size_t i = 0; i < body->len; i++)
        h = (h ^ (unsigned char)body->p[i]) * 1099511628211ull;
    char etag[24];
    snprintf(etag, sizeof etag, "\"%016" PRIx64 "\"", h);
    snprintf(extra, cap, "ETag: %s\r\nLast-Modified: %s\r\n", etag, TW_LAST_MODIFIED);
    if (rq->inm[0])
        return strstr(rq->inm, etag) != NULL || !strcmp(rq->inm, "*");
    return rq->ims[0] && !strcmp(rq->ims, TW_LAST_MODIFIED);
}

/* Answers cn->cur (routed into cn->cur_res). */
static void conn_answer(struct conn *cn)
{
    struct req *rq = &cn->cur;
    const struct res *r = &cn->cur_res;
    struct buf body = {0};
    const char *ctype = "text/html; charset=utf-8";
    int status = r->status;

    if (fail_inject(cn->sv, r)) {
        status = 503;
        render_status(status, &body);
    } else {
        render_body(cn->sv->cfg, r, &body, &ctype);
    }
    char extra[160] = "";
    if (cn->sv->cfg->validators && status == 200 && validate(rq, &body, extra, sizeof extra)) {
        status = 304; /* the client's copy is current */
        body.len = 0;
    }
    conn_emit(cn, rq, status, ctype, &body, status == 301 ? r->location : NULL, extra[0] ? extra : NULL);
    buf_release(&body);
    if (!rq->keep)
        conn_set_state(cn, CS_CLOSING);
    req_release(rq);
}

/* Takes ownership of rq. */
static void conn_start_request(struct conn *cn, struct req *rq)
{
    const struct cfg *c = cn->sv->cfg;
    cn->cur = *rq;
    route(c, rq->host, rq->target, strcspn(rq->target, "?#"), &cn->cur_res);
    long delay = c->latency_ms + cn->cur_res.delay_ms;
    if (delay > 0) {
        conn_set_state(cn, CS_DELAYED);
        ev_timer_set(&cn->delay, (double)delay / 1000.0, 0.0);
        ev_timer_start(cn->sv->loop, &cn->delay);
        return;
    }
    conn_answer(cn);
}

static void conn_linger(struct conn *cn)
{
    shutdown(cn->fd, SHUT_WR);
    conn_set_state(cn, CS_LINGER);
    if (cn->eof) {
        conn_close(cn);
        return;
    }
    cn->idle.repeat = TW_LINGER_S;
    ev_timer_again(cn->sv->loop, &cn->idle);
    ev_io_start(cn->sv->loop, &cn->rio);
}

/* Writes what it can; may close the connection (state CS_DEAD). */
static void conn_flush(struct conn *cn)
{
    struct server *sv = cn->sv;
    size_t before = cn->out_sent;
    int64_t t_send = now_us();
    while (cn->out_sent < cn->out.len) {
        t_send = now_us();
        ssize_t w = send(cn->fd, cn->out.p + cn->out_sent, cn->out.len - cn->out_sent, MSG_NOSIGNAL);
        if (w > 0) {
            cn->out_sent += (size_t)w;
            continue;
        }
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            break;
        conn_close(cn);
        return;
    }
    if (cn->out_sent != before)
        ev_timer_again(sv->loop, &cn->idle);
    conn_log_done(cn, t_send);
    if (cn->out_sent < cn->out.len) {
        if (cn->out_sent > 64 * 1024) {
            buf_consume(&cn->out, cn->out_sent);
            cn->out_base += cn->out_sent;
            cn->out_sent = 0;
        }
        ev_io_start(sv->loop, &cn->wio);
        return;
    }
    cn->out_base += cn->out.len;
    cn->out.len = 0;
    cn->out_sent = 0;
    ev_io_stop(sv->loop, &cn->wio);
    if (cn->state == CS_CLOSING)
        conn_linger(cn);
}

static void conn_update_read(struct conn *cn)
{
    bool serving = cn->state == CS_READING || cn->state == CS_DELAYED;
    bool want = !cn->eof && (cn->state == CS_LINGER || (serving && cn->in.len < TW_IN_CAP));
    if (want)
        ev_io_start(cn->sv->loop, &cn->rio);
    else
        ev_io_stop(cn->sv->loop, &cn->rio);
}

static bool conn_backlogged(const struct conn *cn)
{
    return cn->pend_n >= TW_MAX_INFLIGHT || cn->out.len - cn->out_sent >= TW_OUT_HIGH;
}

/* Answers complete buffered requests until one is delayed, input runs out or the backlog is
 * full. Returns true only in the last case. */
static bool conn_answer_buffered(struct conn *cn)
{
    while (cn->state == CS_READING) {
        size_t skip = 0, used = 0;
        struct req rq;
        if (conn_backlogged(cn))
            return true;
        while (skip < cn->in.len && (cn->in.p[skip] == '\r' || cn->in.p[skip] == '\n'))
            skip++;
        buf_consume(&cn->in, skip);
        int st = cn->in.len ? req_parse(cn->in.p, cn->in.len, &rq, &used) : -1;
        if (st < 0) {
            if (cn->eof)
                conn_set_state(cn, CS_CLOSING);
            return false;
        }
        rq.start_us = now_us();
        buf_consume(&cn->in, used);
        if (st > 0) {
            conn_error(cn, &rq, st);
            req_release(&rq);
            return false;
        }
        conn_start_request(cn, &rq);
    }
    return false;
}

/* Answers and flushes until nothing more can be done now. A flush that drains the backlog at
 * once raises no write event, so loop here rather than wait for one. */
static void conn_process(struct conn *cn)
{
    for (;;) {
        bool backlogged = conn_answer_buffered(cn);
        conn_flush(cn);
        if (cn->state == CS_DEAD)
            return;
        if (!backlogged || cn->state != CS_READING || conn_backlogged(cn))
            break;
    }
    conn_update_read(cn);
}

static void conn_drain_linger(struct conn *cn)
{
    char tmp[4096];
    for (;;) {
        ssize_t r = recv(cn->fd, tmp, sizeof tmp, 0);
        if (r > 0)
            continue;
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        conn_close(cn);
        return;
    }
}

static void on_read(struct ev_loop *loop, ev_io *w, int revents)
{
    struct conn *cn = w->data;
    if (cn->state == CS_LINGER) {
        conn_drain_linger(cn);
        return;
    }
    buf_reserve(&cn->in, TW_IN_CAP);
    while (cn->in.len < TW_IN_CAP) {
        ssize_t r = recv(cn->fd, cn->in.p + cn->in.len, TW_IN_CAP - cn->in.len, 0);
        if (r > 0) {
            cn->in.len += (size_t)r;
            continue;
        }
        if (r == 0) {
            cn->eof = true;
            break;
        }
        if (errno == EINTR)
            continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK)
            break;
        conn_close(cn);
        return;
    }
    ev_timer_again(loop, &cn->idle);
    conn_process(cn);
}

static void on_write(struct ev_loop *loop, ev_io *w, int revents)
{
    struct conn *cn = w->data;
    conn_flush(cn);
    if (cn->state == CS_READING)
        conn_process(cn);
}

static void on_delay(struct ev_loop *loop, ev_timer *w, int revents)
{
    struct conn *cn = w->data;
    conn_set_state(cn, CS_READING);
    conn_answer(cn);
    conn_process(cn);
}

static void on_idle(struct ev_loop *loop, ev_timer *w, int revents)
{
    struct conn *cn = w->data;
    if (cn->state == CS_DELAYED) { /* waiting on our own timer, not on the peer */
        ev_timer_again(loop, w);
        return;
    }
    conn_close(cn);
}

static void conn_new(struct server *sv, int fd)
{
    struct conn *cn = xcalloc(1, sizeof *cn);
    cn->sv = sv;
    cn->fd = fd;
    cn->id = ++sv->next_conn_id;
    ev_io_init(&cn->rio, on_read, fd, EV_READ);
    ev_io_init(&cn->wio, on_write, fd, EV_WRITE);
    ev_init(&cn->delay, on_delay);
    ev_init(&cn->idle, on_idle);
    cn->rio.data = cn->wio.data = cn->delay.data = cn->idle.data = cn;
    cn->idle.repeat = TW_IDLE_S;
    cn->next = sv->live;
    if (sv->live)
        sv->live->prev = cn;
    sv->live = cn;
    conn_set_state(cn, CS_READING);
    ev_io_start(sv->loop, &cn->rio);
    ev_timer_again(sv->loop, &cn->idle);
}

static void on_accept(struct ev_loop *loop, ev_io *w, int revents)
{
    struct server *sv = w->data;
    for (;;) {
        int fd = accept4(sv->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                return;
            fprintf(stderr, "testweb: accept: %s (pausing 100 ms)\n", strerror(errno));
            ev_io_stop(loop, &sv->accept_w);
            ev_timer_set(&sv->accept_retry, 0.1, 0.0);
            ev_timer_start(loop, &sv->accept_retry);
            return;
        }
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        conn_new(sv, fd);
    }
}

static void on_accept_retry(struct ev_loop *loop, ev_timer *w, int revents)
{
    struct server *sv = w->data;
    ev_io_start(loop, &sv->accept_w);
}

static void on_stop(struct ev_loop *loop, ev_signal *w, int revents)
{
    ev_break(loop, EVBREAK_ALL);
}

static void on_deadline(struct ev_loop *loop, ev_timer *w, int revents)
{
    fprintf(stderr, "testweb: --max-seconds reached, exiting\n");
    ev_break(loop, EVBREAK_ALL);
}

/* ---------------------------------------------------------------------------------------------
 * Startup. */

/* 1 when this process's network has no default route, IPv4 or IPv6 (/proc/net is per network
 * namespace): a test's own namespace (tests/integration/netns.py), from which nothing is
 * routed beyond the subnets the test made. Anything unreadable counts as a route. */
static int no_default_route(void)
{
    char line[512];
    int found = 0;
    FILE *f = fopen("/proc/net/route", "r");
    if (!f)
        return 0;
    while (fgets(line, sizeof line, f)) { /* Iface Destination Gateway ...: default = 00000000 */
        char dest[16];
        if (sscanf(line, "%*s %15s", dest) == 1 && strcmp(dest, "00000000") == 0)
            found = 1;
    }
    fclose(f);
    if ((f = fopen("/proc/net/ipv6_route", "r"))) { /* dest plen src plen nexthop metric ... dev */
        while (fgets(line, sizeof line, f)) {
            char dest[40], plen[4], dev[32];
            if (sscanf(line, "%39s %3s %*s %*s %*s %*s %*s %*s %*s %31s", dest, plen, dev) == 3 &&
                strcmp(dest, "00000000000000000000000000000000") == 0 && strcmp(plen, "00") == 0 &&
                strcmp(dev, "lo") != 0) /* the kernel's unreachable default on lo leads nowhere */
                found = 1;
        }
        fclose(f);
    }
    return !found;
}

/* Parses a loopback literal ("127.x.y.z", "::1" or "[::1]"), or any literal where no default
 * route leads out (a test's own network namespace). */
static int bind_addr(const char *s, struct sockaddr_storage *ss, socklen_t *len, long port)
{
    char tmp[64];
    size_t n = strlen(s);
    memset(ss, 0, sizeof *ss);
    if (n >= 2 && s[0] == '[' && s[n - 1] == ']') {
        snprintf(tmp, sizeof tmp, "%.*s", (int)(n - 2), s + 1);
        s = tmp;
    }
    struct sockaddr_in *v4 = (struct sockaddr_in *)ss;
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)ss;
    if (inet_pton(AF_INET, s, &v4->sin_addr) == 1) {
        if ((ntohl(v4->sin_addr.s_addr) >> 24) != 127 && !no_default_route())
            return -EPERM;
        v4->sin_family = AF_INET;
        v4->sin_port = htons((uint16_t)port);
        *len = sizeof *v4;
        return 0;
    }
    if (inet_pton(AF_INET6, s, &v6->sin6_addr) == 1) {
        if (!IN6_IS_ADDR_LOOPBACK(&v6->sin6_addr) && !no_default_route())
            return -EPERM;
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons((uint16_t)port);
        *len = sizeof *v6;
        return 0;
    }
    return -EINVAL;
}

/* Returns the listening fd and the bound port, or a negative errno. */
static int listen_on(const struct cfg *c, int *ret_port)
{
    struct sockaddr_storage ss;
    socklen_t len = 0;
    int fd = -1, one = 1, rc = bind_addr(c->bind, &ss, &len, c->port);

    if (rc < 0) {
        fprintf(stderr, "testweb: --bind %s: %s\n", c->bind,
                rc == -EPERM ? "not a loopback address and a default route leads out, refusing" : "not an IP literal");
        return rc;
    }
    fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        goto fail;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (ss.ss_family == AF_INET6)
        setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one);
    if (bind(fd, (struct sockaddr *)&ss, len) < 0 || listen(fd, 4096) < 0)
        goto fail;
    len = sizeof ss;
    if (getsockname(fd, (struct sockaddr *)&ss, &len) < 0)
        goto fail;
    *ret_port = ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
                                               : ((struct sockaddr_in *)&ss)->sin_port);
    return fd;
fail:
    rc = -errno;
    fprintf(stderr, "testweb: listen on %s port %ld: %s\n", c->bind, c->port, strerror(errno));
    if (fd >= 0)
        close(fd);
    return rc;
}

static void raise_nofile(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
}

static int write_pid_file(const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "testweb: --pid-file %s: %s\n", path, strerror(errno));
        return -errno;
    }
    fprintf(f, "%ld\n", (long)getpid());
    return fclose(f) == 0 ? 0 : -EIO;
}

static void server_watchers(struct server *sv)
{
    struct ev_loop *loop = sv->loop;
    ev_io_init(&sv->accept_w, on_accept, sv->lfd, EV_READ);
    ev_init(&sv->accept_retry, on_accept_retry);
    ev_timer_init(&sv->deadline, on_deadline, (double)sv->cfg->max_seconds, 0.0);
    ev_signal_init(&sv->sigterm, on_stop, SIGTERM);
    ev_signal_init(&sv->sigint, on_stop, SIGINT);
    ev_check_init(&sv->reaper, on_reap);
    sv->accept_w.data = sv->accept_retry.data = sv->reaper.data = sv;
    ev_io_start(loop, &sv->accept_w);
    ev_timer_start(loop, &sv->deadline);
    ev_signal_start(loop, &sv->sigterm);
    ev_signal_start(loop, &sv->sigint);
    ev_check_start(loop, &sv->reaper);
}

static int serve(const struct cfg *c)
{
    struct server sv;
    bool pid_written = false;
    int port = 0, rc = 0;

    memset(&sv, 0, sizeof sv);
    sv.cfg = c;
    sv.lfd = -1;
    signal(SIGPIPE, SIG_IGN);
    raise_nofile();
    if (c->fail_every)
        sv.failed = xcalloc((size_t)(c->sites * c->pages * 2 + 7) / 8, 1);
    if (c->log_path && !(sv.log = fopen(c->log_path, "w"))) {
        fprintf(stderr, "testweb: --log %s: %s\n", c->log_path, strerror(errno));
        rc = -errno;
        goto fail;
    }
    sv.lfd = listen_on(c, &port);
    if (sv.lfd < 0) {
        rc = sv.lfd;
        goto fail;
    }
    if (c->pid_file) {
        rc = write_pid_file(c->pid_file);
        if (rc < 0)
            goto fail;
        pid_written = true;
    }
    sv.loop = ev_default_loop(EVFLAG_AUTO);
    if (!sv.loop) {
        fprintf(stderr, "testweb: cannot initialise libev\n");
        rc = -ENOMEM;
        goto fail;
    }
    server_watchers(&sv);
    printf("PORT %d\n", port);
    fflush(stdout);
    ev_run(sv.loop, 0);
fail:
    while (sv.live)
        conn_close(sv.live);
    reap(&sv);
    if (sv.loop)
        ev_loop_destroy(sv.loop);
    if (sv.lfd >= 0)
        close(sv.lfd);
    if (sv.log)
        fclose(sv.log);
    if (pid_written)
        unlink(c->pid_file);
    free(sv.failed);
    return rc;
}

int main(int argc, char **argv)
{
    struct cfg c;
    int rc = cfg_parse(&c, argc, argv);
    if (rc != 0)
        return rc > 0 ? 0 : 2;
    if (c.print_graph)
        return print_graph(&c, stdout) < 0 ? 1 : 0;
    return serve(&c) < 0 ? 1 : 0;
}
