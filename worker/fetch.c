/* fetch.c - see fetch.h. The libev glue follows curl's evhiperfifo.c: curl tells us which sockets
 * to watch (CURLMOPT_SOCKETFUNCTION, an ev_io each, found again through curl_multi_assign) and
 * when to call it back (CURLMOPT_TIMERFUNCTION, one ev_timer); libev events go back in through
 * curl_multi_socket_action. Neither curl callback calls into curl or into user code: finished
 * transfers are collected with curl_multi_info_read after socket_action returned, removed from
 * the multi handle, and only then handed to the user callbacks. */
#include "fetch.h"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <errno.h>
#include <ev.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "decode.h"
#include "dnscache.h"
#include "netguard.h"
#include "util.h"

/* A socket curl asked us to watch. */
typedef struct fetch_sock {
    ev_io io;
    rc_fetcher *f;
    struct fetch_sock *prev, *next;
} fetch_sock;

/* IDLE (in f->idle) -> RUNNING (in f->running, added to the multi) -> DONE (removed from the
 * multi, waiting for / inside its callback) -> IDLE. */
enum xfer_state { XFER_IDLE = 0, XFER_RUNNING, XFER_DONE };

/* One transfer; the easy handle is recycled through the idle list. */
typedef struct fetch_xfer {
    rc_fetcher *f;
    CURL *easy;
    enum xfer_state state;
    struct fetch_xfer *prev, *next;
    char *url;
    int follow;                 /* let curl follow redirects */
    int next_same_host;         /* rc_fetch_req's: keep the connection */
    int last_on_host;           /* rc_fetch_req's: close the connection */
    struct curl_slist *headers; /* the Cookie header, if any */
    rc_fetch_cb cb;
    void *ud;
    rc_buf body;     /* decoded (empty without a coding: raw is the body then) */
    rc_buf raw;      /* as received */
    rc_decoder *dec; /* made at the first body byte, from content_encoding */
    int truncated;
    int decode_failed; /* errbuf says why */
    size_t header_bytes, header_lines;
    int header_overflow;
    char *content_type; /* of the last response seen so far */
    char *content_encoding;
    char *retry_after;
    char *etag, *last_modified;
    rc_buf resp_head; /* the last response's head as received */
    rc_buf req_head;  /* the last request's head as sent (keep_request) */
    CURLcode code;
    char errbuf[CURL_ERROR_SIZE];
    char blocked[160];          /* why the guard refused a connection, "" if it did not */
    CURLSH *share;              /* the transfer's own DNS cache (with the fetcher's cache) */
    struct curl_slist *resolve; /* what it was given from the fetcher's cache */
    char *dns_key;              /* "host:port" to learn the address of, NULL = nothing to learn */
    int dns_given;              /* the address came from the fetcher's cache */
    struct curl_slist ct_own;   /* this host's own --connect-to rule, before the fetcher's */
} fetch_xfer;

struct rc_fetcher {
    struct ev_loop *loop; /* borrowed */
    CURLM *multi;
    ev_timer timer;
    rc_fetch_opts opts; /* useragent points to the copy below, connect_to is NULL */
    char *useragent;
    char *cainfo;
    struct curl_slist *connect_to;
    rc_dnscache *dns;           /* NULL = curl's shared DNS cache */
    struct curl_slist *resolve; /* opts.resolve for curl when dns is NULL, given once */
    int own_rules;              /* each host gets its own --connect-to rule (own_connect_to) */
    int keep;                   /* connections kept open for reuse, at most */
    int n_socks;                /* sockets open (connections in curl's cache or being made) */
    fetch_xfer *running;        /* doubly linked */
    fetch_xfer *idle;           /* singly linked through next */
    int n_running;
    int n_idle;
    fetch_sock *socks; /* doubly linked, so leftovers can be freed after multi cleanup */
    int in_callback;   /* depth of user callbacks on the stack */
    int free_pending;  /* rc_fetcher_free was called from a callback */
    int curl_inited;
};

static int rules_ownable(const struct curl_slist *rules, size_t n_resolve);

void rc_fetch_opts_init(rc_fetch_opts *o)
{
    memset(o, 0, sizeof(*o));
    o->max_transfers = 64;
    o->connect_timeout_ms = 10000;
    o->timeout_ms = 30000;
    o->max_body = 10u * 1024 * 1024;
    o->max_redirects = 5;
    o->low_speed_bytes = 100;
    o->low_speed_s = 15;
    o->useragent = RC_FETCH_DEFAULT_UA;
    o->connect_to = NULL;
    o->n_connect_to = 0;
    o->verbose = 0;
    o->dns_cache = 100000;
    o->dns_ttl_s = 300;
}

/* ---- transfer state ---------------------------------------------------------------------- */

/* The single state setter; it only checks the transition (log.c is not linked into this module). */
static void xfer_set_state(fetch_xfer *x, enum xfer_state to)
{
    static const unsigned char allowed[3][3] = {
        /* from IDLE */ {0, 1, 0},
        /* from RUNNING */ {0, 0, 1},
        /* from DONE */ {1, 0, 0},
    };
    if (!allowed[x->state][to]) {
        fprintf(stderr, "redcrawl: fetch: bad transfer transition %d -> %d\n", (int)x->state, (int)to);
        abort();
    }
    x->state = to;
}

static void running_link(rc_fetcher *f, fetch_xfer *x)
{
    x->prev = NULL;
    x->next = f->running;
    if (f->running)
        f->running->prev = x;
    f->running = x;
    f->n_running++;
}

static void running_unlink(rc_fetcher *f, fetch_xfer *x)
{
    if (x->prev)
        x->prev->next = x->next;
    else
        f->running = x->next;
    if (x->next)
        x->next->prev = x->prev;
    x->prev = x->next = NULL;
    f->n_running--;
}

/* Drops everything a request owns; the easy handle forgets its options (keeps nothing pointing
 * into freed memory) but keeps nothing else either: connections live in the multi handle. */
static void xfer_clear(fetch_xfer *x)
{
    free(x->url);
    x->url = NULL;
    curl_slist_free_all(x->headers);
    x->headers = NULL;
    free(x->content_type);
    x->content_type = NULL;
    free(x->retry_after);
    x->retry_after = NULL;
    free(x->content_encoding);
    x->content_encoding = NULL;
    free(x->etag);
    x->etag = NULL;
    free(x->last_modified);
    x->last_modified = NULL;
    rc_buf_release(&x->resp_head);
    rc_buf_release(&x->req_head);
    rc_buf_release(&x->body);
    rc_buf_release(&x->raw);
    rc_decoder_free(x->dec);
    x->dec = NULL;
    x->decode_failed = 0;
    x->cb = NULL;
    x->ud = NULL;
    x->truncated = 0;
    x->header_bytes = x->header_lines = 0;
    x->header_overflow = 0;
    x->code = CURLE_OK;
    x->errbuf[0] = '\0';
    x->blocked[0] = '\0';
    if (x->share) {
        curl_easy_setopt(x->easy, CURLOPT_SHARE, NULL); /* a share in use cannot be freed */
        curl_share_cleanup(x->share);
        x->share = NULL;
    }
    if (x->easy)
        curl_easy_reset(x->easy);
    curl_slist_free_all(x->resolve); /* after the reset: curl keeps a pointer until then */
    x->resolve = NULL;
    free(x->ct_own.data);
    x->ct_own.data = NULL;
    free(x->dns_key);
    x->dns_key = NULL;
    x->dns_given = 0;
}

static void xfer_destroy(fetch_xfer *x)
{
    if (!x)
        return;
    xfer_clear(x);
    if (x->easy)
        curl_easy_cleanup(x->easy);
    free(x);
}

/* Back to the idle list, or gone when enough handles are idle already. */
static void xfer_recycle(rc_fetcher *f, fetch_xfer *x)
{
    if (f->n_idle >= f->opts.max_transfers) {
        xfer_destroy(x);
        return;
    }
    xfer_clear(x);
    xfer_set_state(x, XFER_IDLE);
    x->prev = NULL;
    x->next = f->idle;
    f->idle = x;
    f->n_idle++;
}

/* ---- curl data callbacks ----------------------------------------------------------------- */

/* A body whose length is announced gets its buffer at once, not by doubling from 64 bytes (nine
 * moves of a 30 KB page); capped, as the length is the server's word. */
#define RC_FETCH_RESERVE_MAX (1u << 20)
static void reserve_for_length(fetch_xfer *x, size_t max)
{
    curl_off_t cl = -1;
    if (curl_easy_getinfo(x->easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &cl) == CURLE_OK && cl > 0)
        rc_buf_reserve(&x->raw, RC_MIN((size_t)cl, RC_MIN(max, (size_t)RC_FETCH_RESERVE_MAX)));
}

/* Raw bytes are kept as they came (both copies capped at max_body) and decoded as they arrive,
 * so a compressed body that would expand past max_body stops the transfer at the cap. Returning
 * anything but n makes curl fail with CURLE_WRITE_ERROR, which the completion turns into ok +
 * truncated (cap) or an error (corrupt encoding). */
static size_t on_curl_write(char *ptr, size_t size, size_t nmemb, void *userdata)
{
    fetch_xfer *x = userdata;
    size_t n = size * nmemb, max = x->f->opts.max_body;
    size_t room = x->raw.len < max ? max - x->raw.len : 0;

    if (!x->dec && !(x->dec = rc_decoder_new(x->content_encoding, max, x->errbuf, sizeof x->errbuf)))
        x->dec = rc_decoder_new(NULL, max, x->errbuf, sizeof x->errbuf); /* unknown coding: as is */
    if (x->body.len == 0 && x->raw.len == 0) {
        x->errbuf[0] = '\0'; /* the note about an unknown coding is not an error */
        reserve_for_length(x, max);
    }
    rc_buf_append(&x->raw, ptr, RC_MIN(n, room));
    /* Without a coding the raw bytes are the body: no second copy of every page. */
    int r = rc_decoder_identity(x->dec)
                ? RC_DECODE_MORE
                : rc_decoder_feed(x->dec, ptr, RC_MIN(n, room), &x->body, x->errbuf, sizeof x->errbuf);
    if (r < 0) {
        x->decode_failed = 1;
        return 0;
    }
    if (r == RC_DECODE_FULL || n > room) {
        x->truncated = 1;
        return 0;
    }
    return n;
}

/* If the header line [p, p+n) is "name: value", returns a copy of the trimmed value. */
static char *header_value(const char *p, size_t n, const char *name)
{
    size_t nl = strlen(name);
    if (n <= nl || p[nl] != ':' || strncasecmp(p, name, nl) != 0)
        return NULL;
    const char *v = p + nl + 1, *end = p + n;
    while (v < end && (*v == ' ' || *v == '\t'))
        v++;
    while (end > v && (end[-1] == '\r' || end[-1] == '\n' || end[-1] == ' ' || end[-1] == '\t'))
        end--;
    return rc_xstrndup(v, (size_t)(end - v));
}

/* The response headers a transfer keeps (the last response's: a redirect's or a 1xx's are
 * forgotten), by their field in fetch_xfer. */
static const struct {
    const char *name;
    size_t off;
} kept_headers[] = {
    {"etag", offsetof(fetch_xfer, etag)},
    {"last-modified", offsetof(fetch_xfer, last_modified)},
    {"content-encoding", offsetof(fetch_xfer, content_encoding)},
    {"content-type", offsetof(fetch_xfer, content_type)},
    {"retry-after", offsetof(fetch_xfer, retry_after)},
};

static char **kept_header(fetch_xfer *x, size_t i)
{
    return (char **)((char *)x + kept_headers[i].off);
}

static size_t on_curl_header(char *ptr, size_t size, size_t nitems, void *userdata)
{
    fetch_xfer *x = userdata;
    size_t n = size * nitems;

    x->header_bytes += n;
    if (x->header_bytes > RC_FETCH_MAX_HEADER_BYTES || ++x->header_lines > RC_FETCH_MAX_HEADER_LINES) {
        x->header_overflow = 1;
        return 0; /* curl fails the transfer with CURLE_WRITE_ERROR */
    }
    int fresh = n >= 5 && memcmp(ptr, "HTTP/", 5) == 0; /* a new response: forget the previous one's */
    for (size_t i = 0; i < sizeof kept_headers / sizeof kept_headers[0]; i++) {
        char **field = kept_header(x, i), *v = fresh ? NULL : header_value(ptr, n, kept_headers[i].name);
        if (fresh || v) {
            free(*field);
            *field = v;
            if (v)
                break;
        }
    }
    if (fresh)
        rc_buf_reset(&x->resp_head);
    rc_buf_append(&x->resp_head, ptr, n);
    return n;
}

/* CURLOPT_DEBUGFUNCTION (with keep_request): the request head exactly as curl sent it; the last
 * one wins (curl may resend on a connection found dead). With --verbose the rest still goes
 * to stderr, as curl would print it. */
static int on_curl_debug(CURL *easy, curl_infotype type, char *data, size_t size, void *userp)
{
    fetch_xfer *x = userp;
    (void)easy;
    if (type == CURLINFO_HEADER_OUT) {
        rc_buf_reset(&x->req_head);
        rc_buf_append(&x->req_head, data, RC_MIN(size, (size_t)RC_FETCH_MAX_HEADER_BYTES));
    }
    if (x->f->opts.verbose && (type == CURLINFO_TEXT || type == CURLINFO_HEADER_IN || type == CURLINFO_HEADER_OUT))
        fwrite(data, 1, size, stderr);
    return 0;
}

/* Every connection curl opens comes through here with the address it is about to connect to:
 * the one place where the SSRF guard cannot be bypassed by DNS, redirects or --connect-to. */
static curl_socket_t on_curl_opensocket(void *clientp, curlsocktype purpose, struct curl_sockaddr *a)
{
    fetch_xfer *x = clientp;
    const rc_netguard *g = x->f->opts.guard;
    if (g && rc_netguard_check_sockaddr(g, &a->addr, x->blocked, sizeof x->blocked) < 0)
        return CURL_SOCKET_BAD; /* curl tries the next address, then fails: CURLE_COULDNT_CONNECT */
    curl_socket_t fd = socket(a->family, a->socktype, a->protocol);
    if (fd != CURL_SOCKET_BAD)
        x->f->n_socks++;
    return fd;
}

/* CURLOPT_CLOSESOCKETFUNCTION, with the fetcher (a connection outlives its transfer). */
static int on_curl_closesocket(void *clientp, curl_socket_t fd)
{
    rc_fetcher *f = clientp;
    f->n_socks--;
    return close(fd);
}

/* ---- completion -------------------------------------------------------------------------- */

static char *dup_or_null(const char *s)
{
    return s ? rc_xstrdup(s) : NULL;
}

static char *dup_bytes(const char *p, size_t n)
{
    char *d = rc_xmalloc(n + 1);
    if (n) /* a result made by the worker itself (a refused URL) may have no body at all */
        memcpy(d, p, n);
    d[n] = '\0';
    return d;
}

/* Everything of r but the bodies, owned. */
static rc_fetch_result *dup_head(const rc_fetch_result *r)
{
    rc_fetch_result *d = rc_xmalloc(sizeof *d);
    *d = *r;
    d->xfer = NULL;
    d->url = dup_or_null(r->url);
    d->effective_url = dup_or_null(r->effective_url);
    d->content_type = dup_or_null(r->content_type);
    d->retry_after = dup_or_null(r->retry_after);
    d->content_encoding = dup_or_null(r->content_encoding);
    d->error = dup_or_null(r->error);
    d->remote_ip = dup_or_null(r->remote_ip);
    d->blocked = dup_or_null(r->blocked);
    d->redirect_url = dup_or_null(r->redirect_url);
    d->response_head = dup_bytes(r->response_head, r->response_head_len);
    d->request_head = dup_bytes(r->request_head, r->request_head_len);
    d->http_version = dup_or_null(r->http_version);
    d->etag = dup_or_null(r->etag);
    d->last_modified = dup_or_null(r->last_modified);
    return d;
}

/* Without a Content-Encoding both bodies are the same bytes: kept shared. Left out, raw_body is
 * the body's first 0 bytes (never NULL, freed with the body). */
static void keep_raw_or_not(rc_fetch_result *d, const rc_fetch_result *r, int keep_raw, char *raw)
{
    d->raw_body = raw ? raw : d->body;
    if (r->raw_body != r->body && !keep_raw)
        d->raw_len = 0;
}

rc_fetch_result *rc_fetch_result_dup(const rc_fetch_result *r, int keep_raw)
{
    rc_fetch_result *d = dup_head(r);
    d->body = dup_bytes(r->body, r->body_len);
    keep_raw_or_not(d, r, keep_raw, r->raw_body != r->body && keep_raw ? dup_bytes(r->raw_body, r->raw_len) : NULL);
    return d;
}

rc_fetch_result *rc_fetch_result_move(const rc_fetch_result *r, int keep_raw)
{
    fetch_xfer *x = r->xfer;
    int coded = r->raw_body != r->body;
    rc_buf *body = x ? (coded ? &x->body : &x->raw) : NULL;
    if (!body || !body->ptr || body->ptr != r->body)
        return rc_fetch_result_dup(r, keep_raw);
    rc_fetch_result *d = dup_head(r);
    d->body = rc_buf_steal(body);
    char *raw = NULL;
    if (coded && keep_raw)
        raw = x->raw.ptr ? rc_buf_steal(&x->raw) : dup_bytes(r->raw_body, r->raw_len);
    keep_raw_or_not(d, r, keep_raw, raw);
    return d;
}

void rc_fetch_result_free(rc_fetch_result *r)
{
    if (!r)
        return;
    if (r->raw_body != r->body)
        free((char *)r->raw_body);
    char *owned[] = {(char *)r->url,          (char *)r->effective_url, (char *)r->content_type,
                     (char *)r->retry_after,  (char *)r->body,          (char *)r->content_encoding,
                     (char *)r->error,        (char *)r->remote_ip,     (char *)r->blocked,
                     (char *)r->redirect_url, (char *)r->response_head, (char *)r->request_head,
                     (char *)r->http_version, (char *)r->etag,          (char *)r->last_modified};
    for (size_t i = 0; i < sizeof owned / sizeof owned[0]; i++)
        free(owned[i]);
    free(r);
}

static double us_to_ms(curl_off_t us)
{
    return (double)us / 1000.0;
}

/* After a transfer: the address it connected to becomes its host's, for dns_ttl_s; an address
 * from the cache that no longer answers is forgotten. Only a transfer that stayed on its host
 * (a followed redirect connects elsewhere) and never for entries the operator gave. */
static void dns_learn(fetch_xfer *x, const char *ip, long redirects)
{
    rc_dnscache *c = x->f->dns;
    if (!c || !x->dns_key || redirects > 0 || rc_dnscache_permanent(c, x->dns_key))
        return;
    if (ip && *ip && x->code != CURLE_COULDNT_CONNECT) {
        /* CURLOPT_RESOLVE takes an IPv6 address in brackets. */
        char addr[64];
        snprintf(addr, sizeof addr, strchr(ip, ':') ? "[%s]" : "%s", ip);
        rc_dnscache_put(c, x->dns_key, addr, rc_now_ms() + (uint64_t)x->f->opts.dns_ttl_s * 1000);
    } else if (x->dns_given && (x->code == CURLE_COULDNT_CONNECT || x->code == CURLE_OPERATION_TIMEDOUT))
        rc_dnscache_del(c, x->dns_key);
}

/* curl's "Couldn't connect to server" does not say why: the socket's error does ("Connection
 * refused" is a site that is down or a wrong port, a timeout a filtered one). */
static void add_os_error(CURL *e, char *buf, size_t cap)
{
    long err = 0;
    size_t n = strlen(buf);
    if (curl_easy_getinfo(e, CURLINFO_OS_ERRNO, &err) != CURLE_OK || err <= 0)
        return;
    if (n == 0)
        n = (size_t)snprintf(buf, cap, "%s", curl_easy_strerror(CURLE_COULDNT_CONNECT));
    if (n + 4 < cap)
        snprintf(buf + n, cap - n, " (%s)", strerror((int)err));
}

static void xfer_deliver(fetch_xfer *x)
{
    rc_fetch_result r;
    CURL *e = x->easy;
    long status = 0, redirects = 0;
    char *eff = NULL, *ip = NULL, *redir = NULL;
    curl_off_t total = 0, connect = 0, ttfb = 0;

    curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &status);
    curl_easy_getinfo(e, CURLINFO_EFFECTIVE_URL, &eff);
    curl_easy_getinfo(e, CURLINFO_PRIMARY_IP, &ip);
    curl_easy_getinfo(e, CURLINFO_TOTAL_TIME_T, &total);
    curl_easy_getinfo(e, CURLINFO_CONNECT_TIME_T, &connect);
    curl_easy_getinfo(e, CURLINFO_STARTTRANSFER_TIME_T, &ttfb);
    curl_easy_getinfo(e, CURLINFO_REDIRECT_COUNT, &redirects);
    long httpv = 0;
    curl_easy_getinfo(e, CURLINFO_HTTP_VERSION, &httpv);
    if (!x->follow)
        curl_easy_getinfo(e, CURLINFO_REDIRECT_URL, &redir);

    memset(&r, 0, sizeof(r));
    r.url = x->url;
    r.effective_url = eff ? eff : x->url;
    r.status = status;
    r.content_type = x->content_type;
    r.retry_after = x->retry_after;
    const rc_buf *decoded = rc_decoder_identity(x->dec) ? &x->raw : &x->body;
    r.body = decoded->ptr ? decoded->ptr : "";
    r.body_len = decoded->len;
    r.raw_body = x->raw.ptr ? x->raw.ptr : "";
    r.raw_len = x->raw.len;
    r.content_encoding = x->content_encoding;
    r.truncated = x->truncated;
    if (x->code == CURLE_OK && x->dec && rc_decoder_finish(x->dec, x->errbuf, sizeof x->errbuf) < 0)
        r.truncated = 1; /* a compressed body cut short: what arrived is kept */
    r.curl_code = (int)x->code;
    r.total_ms = us_to_ms(total);
    r.connect_ms = us_to_ms(connect);
    r.ttfb_ms = us_to_ms(ttfb);
    r.redirects = redirects;
    r.remote_ip = ip && *ip ? ip : NULL;
    r.blocked = x->blocked[0] && x->code != CURLE_OK ? x->blocked : NULL;
    r.redirect_url = redir && *redir && status >= 300 && status < 400 ? redir : NULL;
    r.response_head = x->resp_head.ptr ? x->resp_head.ptr : "";
    r.response_head_len = x->resp_head.len;
    r.request_head = x->req_head.ptr ? x->req_head.ptr : "";
    r.request_head_len = x->req_head.len;
    r.http_version = httpv == CURL_HTTP_VERSION_1_0   ? "HTTP/1.0"
                     : httpv == CURL_HTTP_VERSION_1_1 ? "HTTP/1.1"
                     : httpv == CURL_HTTP_VERSION_2_0 ? "HTTP/2"
                     : httpv == CURL_HTTP_VERSION_3   ? "HTTP/3"
                                                      : NULL;
    r.etag = x->etag;
    r.last_modified = x->last_modified;
    r.xfer = x;
    dns_learn(x, ip, redirects);

    if (x->code == CURLE_OK ||
        (x->code == CURLE_WRITE_ERROR && x->truncated && !x->header_overflow && !x->decode_failed)) {
        r.ok = 1;
    } else {
        r.ok = 0;
        /* A certificate that does not verify will not verify on the next attempt either. */
        r.final = x->header_overflow || x->decode_failed || x->code == CURLE_OUT_OF_MEMORY ||
                  x->code == CURLE_PEER_FAILED_VERIFICATION;
        if (x->header_overflow)
            snprintf(x->errbuf, sizeof(x->errbuf), "response headers exceed %d bytes or %d lines",
                     RC_FETCH_MAX_HEADER_BYTES, RC_FETCH_MAX_HEADER_LINES);
        else if (x->code == CURLE_OUT_OF_MEMORY)
            /* libcurl's word for a header line over its 100 KB limit: say what happened. */
            snprintf(x->errbuf, sizeof(x->errbuf), "a response header line exceeds 100 KB");
        else if (r.blocked)
            snprintf(x->errbuf, sizeof(x->errbuf), "blocked: %s", r.blocked);
        else if (x->code == CURLE_COULDNT_CONNECT)
            add_os_error(e, x->errbuf, sizeof x->errbuf);
        r.error = x->errbuf[0] ? x->errbuf : curl_easy_strerror(x->code);
    }
    x->cb(x->ud, &r);
}

static void fetcher_destroy(rc_fetcher *f);

/* Runs after every curl_multi_socket_action: collect finished transfers first, then call back.
 * May free f (a deferred rc_fetcher_free); callers must not touch f afterwards. */
static void fetcher_process(rc_fetcher *f)
{
    fetch_xfer *done = NULL, **tail = &done;
    CURLMsg *msg;
    int left;

    while ((msg = curl_multi_info_read(f->multi, &left))) {
        if (msg->msg != CURLMSG_DONE)
            continue;
        CURL *easy = msg->easy_handle;
        CURLcode code = msg->data.result; /* msg dies with remove_handle */
        char *priv = NULL;
        curl_easy_getinfo(easy, CURLINFO_PRIVATE, &priv);
        fetch_xfer *x = (fetch_xfer *)(void *)priv;
        curl_multi_remove_handle(f->multi, easy);
        x->code = code;
        running_unlink(f, x);
        xfer_set_state(x, XFER_DONE);
        *tail = x;
        tail = &x->next;
    }

    f->in_callback++;
    while (done) {
        fetch_xfer *x = done;
        done = x->next;
        x->next = NULL;
        if (!f->free_pending)
            xfer_deliver(x);
        xfer_recycle(f, x);
    }
    f->in_callback--;

    if (f->free_pending && f->in_callback == 0)
        fetcher_destroy(f);
}

/* ---- libev <-> curl ---------------------------------------------------------------------- */

static void sock_free(rc_fetcher *f, fetch_sock *s)
{
    ev_io_stop(f->loop, &s->io);
    if (s->prev)
        s->prev->next = s->next;
    else
        f->socks = s->next;
    if (s->next)
        s->next->prev = s->prev;
    free(s);
}

static void on_ev_io(struct ev_loop *loop, ev_io *w, int revents)
{
    fetch_sock *s = w->data;
    rc_fetcher *f = s->f;
    int fd = w->fd; /* curl may free s (CURL_POLL_REMOVE) inside socket_action */
    int action = ((revents & EV_READ) ? CURL_CSELECT_IN : 0) | ((revents & EV_WRITE) ? CURL_CSELECT_OUT : 0);
    int running;

    if (revents & EV_ERROR)
        action |= CURL_CSELECT_ERR;
    curl_multi_socket_action(f->multi, fd, action, &running);
    fetcher_process(f);
}

static void on_ev_timer(struct ev_loop *loop, ev_timer *w, int revents)
{
    rc_fetcher *f = w->data;
    int running;

    curl_multi_socket_action(f->multi, CURL_SOCKET_TIMEOUT, 0, &running);
    fetcher_process(f);
}

/* CURLMOPT_SOCKETFUNCTION: only (re)configures watchers, never calls back into curl's actions. */
static int on_curl_socket(CURL *easy, curl_socket_t fd, int what, void *userp, void *socketp)
{
    rc_fetcher *f = userp;
    fetch_sock *s = socketp;

    if (what == CURL_POLL_REMOVE) {
        if (s)
            sock_free(f, s);
        return 0;
    }
    int events = ((what & CURL_POLL_IN) ? EV_READ : 0) | ((what & CURL_POLL_OUT) ? EV_WRITE : 0);
    if (!s) {
        s = rc_xcalloc(1, sizeof(*s));
        s->f = f;
        ev_io_init(&s->io, on_ev_io, fd, events);
        s->io.data = s;
        s->next = f->socks;
        if (f->socks)
            f->socks->prev = s;
        f->socks = s;
        if (curl_multi_assign(f->multi, fd, s) != CURLM_OK) {
            sock_free(f, s);
            return -1;
        }
    } else {
        ev_io_stop(f->loop, &s->io);
        ev_io_set(&s->io, fd, events);
    }
    ev_io_start(f->loop, &s->io);
    return 0;
}

/* CURLMOPT_TIMERFUNCTION: curl must not be called from here (it may be inside add_handle), so a
 * timeout of 0 becomes a timer firing on the next loop iteration. */
static int on_curl_timer(CURLM *multi, long timeout_ms, void *userp)
{
    rc_fetcher *f = userp;

    ev_timer_stop(f->loop, &f->timer);
    if (timeout_ms >= 0) {
        ev_timer_set(&f->timer, (double)timeout_ms / 1000.0, 0.);
        ev_timer_start(f->loop, &f->timer);
    }
    return 0;
}

/* ---- lifecycle --------------------------------------------------------------------------- */

static void fetcher_destroy(rc_fetcher *f)
{
    while (f->running) {
        fetch_xfer *x = f->running;
        curl_multi_remove_handle(f->multi, x->easy);
        running_unlink(f, x);
        xfer_destroy(x);
    }
    while (f->idle) {
        fetch_xfer *x = f->idle;
        f->idle = x->next;
        xfer_destroy(x);
    }
    if (f->multi)
        curl_multi_cleanup(f->multi); /* may still report sockets removed */
    while (f->socks)
        sock_free(f, f->socks);
    ev_timer_stop(f->loop, &f->timer);
    curl_slist_free_all(f->connect_to);
    curl_slist_free_all(f->resolve);
    rc_dnscache_free(f->dns);
    free(f->useragent);
    free(f->cainfo);
    if (f->curl_inited)
        curl_global_cleanup();
    free(f);
}

rc_fetcher *rc_fetcher_new(struct ev_loop *loop, const rc_fetch_opts *opts)
{
    rc_fetch_opts defaults;
    rc_fetcher *f = NULL;

    if (!opts) {
        rc_fetch_opts_init(&defaults);
        opts = &defaults;
    }
    if (!loop || opts->max_transfers < 1 || opts->max_transfers > 100000 || opts->connect_timeout_ms <= 0 ||
        opts->timeout_ms <= 0 || opts->max_redirects < 0 || opts->max_redirects > 100)
        return NULL;

    f = rc_xcalloc(1, sizeof(*f));
    f->loop = loop;
    ev_timer_init(&f->timer, on_ev_timer, 0., 0.);
    f->timer.data = f;
    f->opts = *opts;
    f->useragent = rc_xstrdup(opts->useragent && *opts->useragent ? opts->useragent : RC_FETCH_DEFAULT_UA);
    f->opts.useragent = f->useragent;
    f->cainfo = opts->cainfo && *opts->cainfo ? rc_xstrdup(opts->cainfo) : NULL;
    f->opts.cainfo = f->cainfo;
    f->opts.connect_to = NULL;
    f->opts.n_connect_to = 0;

    for (size_t i = 0; opts->connect_to; i++) {
        const char *ct = opts->connect_to[i];
        if (opts->n_connect_to ? i == opts->n_connect_to : ct == NULL)
            break;
        if (!ct)
            goto fail;
        struct curl_slist *l = curl_slist_append(f->connect_to, ct);
        if (!l)
            goto fail;
        f->connect_to = l;
    }

    f->own_rules = rules_ownable(f->connect_to, opts->n_resolve);
    /* Rules that file every host's connections under one target: curl scans them all on each
     * transfer, so no more are kept than transfers run. */
    f->keep = RC_MAX(f->connect_to && !f->own_rules ? 0 : opts->max_conns, opts->max_transfers);
    for (size_t i = 0; i < opts->n_resolve; i++)
        if (!opts->resolve[i] || !(f->resolve = curl_slist_append(f->resolve, opts->resolve[i])))
            goto fail;
    if (opts->dns_cache > 0 && !f->connect_to) {
        f->dns = rc_dnscache_new(opts->dns_cache);
        /* The operator's entries never expire; HOST:PORT:ADDRS, ADDRS after the second colon. */
        for (struct curl_slist *l = f->resolve; l; l = l->next) {
            const char *c1 = strchr(l->data, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
            if (!c2 || l->data[0] == '-' || l->data[0] == '+')
                goto fail;
            char *key = rc_xstrndup(l->data, (size_t)(c2 - l->data));
            rc_dnscache_put(f->dns, key, c2 + 1, 0);
            free(key);
        }
        curl_slist_free_all(f->resolve);
        f->resolve = NULL;
    }
    f->opts.resolve = NULL;
    f->opts.n_resolve = 0;

    /* Reference counted and thread-safe since curl 7.84. */
    if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
        goto fail;
    f->curl_inited = 1;

    f->multi = curl_multi_init();
    if (!f->multi)
        goto fail;
    if (curl_multi_setopt(f->multi, CURLMOPT_SOCKETFUNCTION, on_curl_socket) != CURLM_OK ||
        curl_multi_setopt(f->multi, CURLMOPT_SOCKETDATA, f) != CURLM_OK ||
        curl_multi_setopt(f->multi, CURLMOPT_TIMERFUNCTION, on_curl_timer) != CURLM_OK ||
        curl_multi_setopt(f->multi, CURLMOPT_TIMERDATA, f) != CURLM_OK ||
        curl_multi_setopt(f->multi, CURLMOPT_MAXCONNECTS, (long)f->keep + 2L * opts->max_transfers) != CURLM_OK)
        goto fail;
    return f;

fail:
    fetcher_destroy(f);
    return NULL;
}

void rc_fetcher_free(rc_fetcher *f)
{
    if (!f)
        return;
    if (f->in_callback) {
        f->free_pending = 1; /* fetcher_process finishes the job once the callback returned */
        return;
    }
    fetcher_destroy(f);
}

/* ---- starting ---------------------------------------------------------------------------- */

static int has_crlf(const char *s)
{
    return s && strpbrk(s, "\r\n") != NULL;
}

/* Every option, every time: handles come back from curl_easy_reset. */
static CURLcode xfer_setup(rc_fetcher *f, fetch_xfer *x, const char *useragent, int keep_request)
{
    CURL *e = x->easy;
    const rc_fetch_opts *o = &f->opts;
    CURLcode c;

#define SET(opt, val)                                                                                                  \
    if ((c = curl_easy_setopt(e, opt, val)) != CURLE_OK)                                                               \
        return c;
    SET(CURLOPT_URL, x->url)
    SET(CURLOPT_PRIVATE, (void *)x)
    SET(CURLOPT_ERRORBUFFER, x->errbuf)
    SET(CURLOPT_NOSIGNAL, 1L)
    SET(CURLOPT_VERBOSE, o->verbose ? 1L : 0L)
    SET(CURLOPT_PROTOCOLS_STR, "http,https")
    SET(CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
    SET(CURLOPT_FOLLOWLOCATION, x->follow ? 1L : 0L)
    SET(CURLOPT_MAXREDIRS, o->max_redirects)
    SET(CURLOPT_CONNECTTIMEOUT_MS, o->connect_timeout_ms)
    SET(CURLOPT_TIMEOUT_MS, o->timeout_ms)
    SET(CURLOPT_ACCEPT_ENCODING, RC_FETCH_ACCEPT_ENCODING)
    SET(CURLOPT_HTTP_CONTENT_DECODING, 0L) /* decoded here, capped: on_curl_write */
    SET(CURLOPT_LOW_SPEED_LIMIT, o->low_speed_bytes)
    SET(CURLOPT_LOW_SPEED_TIME, o->low_speed_s)
    SET(CURLOPT_TCP_NODELAY, 1L)
    SET(CURLOPT_USERAGENT, useragent && *useragent ? useragent : f->useragent)
    SET(CURLOPT_WRITEFUNCTION, on_curl_write)
    SET(CURLOPT_WRITEDATA, (void *)x)
    SET(CURLOPT_HEADERFUNCTION, on_curl_header)
    SET(CURLOPT_HEADERDATA, (void *)x)
    SET(CURLOPT_OPENSOCKETFUNCTION, on_curl_opensocket)
    SET(CURLOPT_OPENSOCKETDATA, (void *)x)
    SET(CURLOPT_CLOSESOCKETFUNCTION, on_curl_closesocket)
    SET(CURLOPT_CLOSESOCKETDATA, (void *)f)
    /* With f->keep connections idle (open sockets less the transfers running), this
     * transfer's connection is closed when it is done rather than kept, and the idle ones stay
     * until curl finds them dead or too old (CURLOPT_MAXAGE_CONN): curl's cache never fills, so
     * curl never evicts its oldest connection, which in libcurl before 8.10 scans every host's
     * entry and leaves the evicted host's entry behind (empty, scanned again at every later
     * eviction): a cost per transfer that grew with every host the worker had fetched. A
     * connection the host's next request follows on at once is kept all the same: it is idle
     * only until then (curl's cache has room for 2 x max_transfers more). One that no request
     * will follow (the host's last queued URL) is closed whatever the room: kept, it would
     * never be used, and would fill the cache with hosts done (a crawl of one page per host
     * kept the first hosts' max_conns connections, walked by curl at every transfer that kept
     * its connection: curl_multi_remove_handle marks "connect only" ones by a walk of all). */
    SET(CURLOPT_FORBID_REUSE, !x->next_same_host && (x->last_on_host || f->n_socks - f->n_running >= f->keep) ? 1L : 0L)
    if (f->connect_to)
        SET(CURLOPT_CONNECT_TO, f->connect_to)
    if (f->cainfo)
        SET(CURLOPT_CAINFO, f->cainfo)
    /* HTTP/2 over TLS when the server offers it (ALPN), HTTP/1.1 otherwise. */
    SET(CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_2TLS)
    if (x->headers)
        SET(CURLOPT_HTTPHEADER, x->headers)
    if (keep_request) {
        SET(CURLOPT_DEBUGFUNCTION, on_curl_debug)
        SET(CURLOPT_DEBUGDATA, (void *)x)
        SET(CURLOPT_VERBOSE, 1L)
    }
#undef SET
    return CURLE_OK;
}

int rc_fetch_start(rc_fetcher *f, const char *url, const char *cookie, const char *useragent, rc_fetch_cb cb, void *ud)
{
    return rc_fetch_start_ex(f, url, cookie, useragent, 1, cb, ud);
}

int rc_fetch_start_ex(rc_fetcher *f, const char *url, const char *cookie, const char *useragent, int follow,
                      rc_fetch_cb cb, void *ud)
{
    rc_fetch_req req = {.url = url, .cookie = cookie, .useragent = useragent, .follow = follow};
    return rc_fetch_start_req(f, &req, cb, ud);
}

/* Appends "name: value" to the request's extra headers; 0 or -ENOMEM. */
static int add_header(fetch_xfer *x, const char *name, const char *value)
{
    char *h = rc_xasprintf("%s: %s", name, value);
    struct curl_slist *l = curl_slist_append(x->headers, h);
    free(h);
    if (!l)
        return -ENOMEM;
    x->headers = l;
    return 0;
}

/* The next field of a --connect-to rule "HOST:PORT:ADDR:PORT" into out (an IPv6 address with its
 * brackets); what follows its colon, or NULL when there is none or the field does not fit. */
static const char *rule_field(const char *s, char *out, size_t cap)
{
    const char *end = s;
    if (*end == '[' && !(end = strchr(s, ']')))
        return NULL;
    end += strcspn(end, ":");
    size_t n = (size_t)(end - s);
    if (*end != ':' || n >= cap)
        return NULL;
    memcpy(out, s, n);
    out[n] = '\0';
    return end + 1;
}

/* An address literal as CURLOPT_RESOLVE takes it: IPv4, or IPv6 in brackets. */
static int is_addr(const char *s)
{
    unsigned char a[16];
    char in[64];
    size_t n = strlen(s);
    if (s[0] != '[')
        return inet_pton(AF_INET, s, a) == 1;
    if (n < 3 || n - 2 >= sizeof in || s[n - 1] != ']')
        return 0;
    memcpy(in, s + 1, n - 2);
    in[n - 2] = '\0';
    return inet_pton(AF_INET6, in, a) == 1;
}

/* Whether two port numbers are the same one ("080" is 80); an unreadable one matches nothing. */
static int same_port(const char *a, const char *b)
{
    int64_t x, y;
    return rc_parse_i64(a, 0, 65535, &x) == 0 && rc_parse_i64(b, 0, 65535, &y) == 0 && x == y;
}

/* Whether own_connect_to can give every host its own rule: each rule sends hosts to an address
 * or keeps their name, and no operator's --resolve entries need curl's shared DNS cache. */
static int rules_ownable(const struct curl_slist *rules, size_t n_resolve)
{
    char h[256], p[16], a[256];
    for (const struct curl_slist *l = rules; l; l = l->next) {
        const char *s = rule_field(l->data, h, sizeof h);
        s = s ? rule_field(s, p, sizeof p) : NULL;
        s = s ? rule_field(s, a, sizeof a) : NULL;
        if (!s || (a[0] && !is_addr(a)))
            return 0;
    }
    return rules && n_resolve == 0;
}

/* A transfer to host:port under the fetcher's --connect-to rules. curl files a connection under
 * the rule's target, so with one rule for every host (the tests' and benchmarks' "::ADDR:PORT")
 * all connections would share one bundle, which curl scans, polling each idle connection, on
 * every transfer: the cost grows with the hosts. When the rule that applies sends the host to an
 * address, the host gets a rule of its own with itself as target ("host:port:host:PORT") and
 * that address from a DNS cache of the transfer's own: its connections are filed under its name,
 * as without --connect-to. The fetcher's rules follow, for redirects to other hosts. */
static int own_connect_to(rc_fetcher *f, fetch_xfer *x, const char *host, const char *port)
{
    char rh[256], rp[16], ra[256];
    const char *cport = NULL;
    for (struct curl_slist *l = f->connect_to; l && !cport; l = l->next) {
        const char *s = rule_field(l->data, rh, sizeof rh);
        s = s ? rule_field(s, rp, sizeof rp) : NULL;
        s = s ? rule_field(s, ra, sizeof ra) : NULL;
        if (s && (!rh[0] || !strcasecmp(rh, host)) && (!rp[0] || same_port(rp, port)))
            cport = *s ? s : port;
        else if (!s)
            return 0; /* a rule this cannot read: curl's own matching, unchanged */
    }
    if (!cport || !is_addr(ra))
        return 0;
    x->share = curl_share_init();
    char *entry = rc_xasprintf("%s:%s:%s", host, cport, ra);
    x->resolve = curl_slist_append(NULL, entry);
    free(entry);
    x->ct_own.data = rc_xasprintf("%s:%s:%s:%s", host, port, host, cport);
    x->ct_own.next = f->connect_to;
    if (!x->share || !x->resolve || curl_share_setopt(x->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS) != CURLSHE_OK ||
        curl_easy_setopt(x->easy, CURLOPT_SHARE, x->share) != CURLE_OK ||
        curl_easy_setopt(x->easy, CURLOPT_RESOLVE, x->resolve) != CURLE_OK ||
        curl_easy_setopt(x->easy, CURLOPT_CONNECT_TO, &x->ct_own) != CURLE_OK)
        return -1;
    return 0;
}

/* The address the fetcher's cache holds for host:port, given to the transfer; the host is
 * remembered to learn its address afterwards. */
static int cached_address(rc_fetcher *f, fetch_xfer *x, const char *host, const char *port)
{
    x->dns_key = rc_xasprintf("%s:%s", host, port);
    const char *addrs = rc_dnscache_get(f->dns, x->dns_key, rc_now_ms());
    if (!addrs)
        return 0;
    char *entry = rc_xasprintf("%s:%s", x->dns_key, addrs);
    x->resolve = curl_slist_append(NULL, entry);
    free(entry);
    x->dns_given = 1;
    return x->resolve && curl_easy_setopt(x->easy, CURLOPT_RESOLVE, x->resolve) == CURLE_OK ? 0 : -1;
}

/* The transfer's DNS: with the fetcher's cache, a cache of its own (a share holding DNS only,
 * so libcurl's per-transfer prune scans this transfer's one or two entries, not every host
 * seen), given the cached address of its host when there is one; the host is remembered to
 * learn its address afterwards. Names only: an address literal needs no DNS. With connect_to
 * (no fetcher's cache), the host's own rule (own_connect_to). Otherwise, the operator's entries
 * go to curl's shared cache with the first transfer. */
static int dns_setup(rc_fetcher *f, fetch_xfer *x)
{
    if (!f->dns && !f->own_rules) {
        if (f->resolve && curl_easy_setopt(x->easy, CURLOPT_RESOLVE, f->resolve) != CURLE_OK)
            return -1;
        x->resolve = f->resolve; /* curl loads it into its cache at this start; freed with this transfer */
        f->resolve = NULL;
        return 0;
    }
    if (f->dns) {
        x->share = curl_share_init();
        if (!x->share || curl_share_setopt(x->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS) != CURLSHE_OK ||
            curl_easy_setopt(x->easy, CURLOPT_SHARE, x->share) != CURLE_OK)
            return -1;
    }
    CURLU *u = curl_url();
    char *host = NULL, *port = NULL;
    int r = 0;
    struct in_addr a4;
    if (u && curl_url_set(u, CURLUPART_URL, x->url, 0) == CURLUE_OK &&
        curl_url_get(u, CURLUPART_HOST, &host, 0) == CURLUE_OK &&
        curl_url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT) == CURLUE_OK && host[0] != '[' &&
        inet_pton(AF_INET, host, &a4) != 1)
        r = f->dns ? cached_address(f, x, host, port) : own_connect_to(f, x, host, port);
    curl_free(host);
    curl_free(port);
    curl_url_cleanup(u);
    return r;
}

int rc_fetch_start_req(rc_fetcher *f, const rc_fetch_req *req, rc_fetch_cb cb, void *ud)
{
    fetch_xfer *x = NULL;
    int r;

    if (!f || !req || !req->url || !cb || has_crlf(req->cookie) || has_crlf(req->useragent) ||
        has_crlf(req->if_none_match) || has_crlf(req->if_modified_since))
        return -EINVAL;
    if (f->free_pending)
        return -ECANCELED;
    if (f->n_running >= f->opts.max_transfers)
        return -EBUSY;

    if (f->idle) {
        x = f->idle;
        f->idle = x->next;
        x->next = NULL;
        f->n_idle--;
    } else {
        x = rc_xcalloc(1, sizeof(*x));
        x->f = f;
        rc_buf_init(&x->body);
        rc_buf_init(&x->raw);
        rc_buf_init(&x->resp_head);
        rc_buf_init(&x->req_head);
        x->easy = curl_easy_init();
        if (!x->easy) {
            r = -ENOMEM;
            goto fail;
        }
    }
    x->url = rc_xstrdup(req->url);
    x->follow = req->follow;
    x->next_same_host = req->next_same_host;
    x->last_on_host = req->last_on_host;
    x->cb = cb;
    x->ud = ud;
    /* A custom Cookie header rather than CURLOPT_COOKIE: curl does not pass it on to another
     * host or port when following a redirect. */
    if ((req->cookie && *req->cookie && (r = add_header(x, "Cookie", req->cookie)) < 0) ||
        (req->if_none_match && *req->if_none_match && (r = add_header(x, "If-None-Match", req->if_none_match)) < 0) ||
        (req->if_modified_since && *req->if_modified_since &&
         (r = add_header(x, "If-Modified-Since", req->if_modified_since)) < 0))
        goto fail;
    if (xfer_setup(f, x, req->useragent, req->keep_request) != CURLE_OK || dns_setup(f, x) < 0 ||
        curl_multi_add_handle(f->multi, x->easy) != CURLM_OK) {
        r = -EIO;
        goto fail;
    }
    xfer_set_state(x, XFER_RUNNING);
    running_link(f, x);
    return 0;

fail:
    xfer_destroy(x);
    return r;
}

int rc_fetch_check_url(const rc_fetcher *f, const char *url, char *why, size_t cap)
{
    if (!f->opts.guard)
        return 0;
    CURLU *u = curl_url();
    char *host = NULL, *port = NULL;
    int64_t p;
    int r = 0;
    if (u && curl_url_set(u, CURLUPART_URL, url, 0) == CURLUE_OK &&
        curl_url_get(u, CURLUPART_HOST, &host, 0) == CURLUE_OK &&
        curl_url_get(u, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT) == CURLUE_OK &&
        rc_parse_i64(port, 0, 65535, &p) == 0)
        r = rc_netguard_check_host(f->opts.guard, host, (int)p, why, cap);
    curl_free(host);
    curl_free(port);
    curl_url_cleanup(u);
    return r;
}

int rc_fetch_active(const rc_fetcher *f)
{
    return f ? f->n_running : 0;
}

size_t rc_fetch_dns_cached(const rc_fetcher *f)
{
    return f && f->dns ? rc_dnscache_count(f->dns) : 0;
}
