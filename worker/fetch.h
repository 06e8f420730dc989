/* fetch.h - asynchronous HTTP fetcher: libcurl's multi socket API driven by one libev loop.
 *
 * One rc_fetcher owns one CURLM attached to the caller's loop (an ev_timer for curl's timeout,
 * one ev_io per socket, as curl's evhiperfifo.c example does). Connections are kept alive in the
 * multi handle's connection cache (max_conns of them) and easy handles are recycled.
 * Single-threaded: every call must come from the thread running the loop. */
#ifndef RC_FETCH_H
#define RC_FETCH_H

#include <stddef.h>

#include "response.h"

struct ev_loop;
struct rc_netguard;

typedef struct rc_fetcher rc_fetcher;

typedef struct rc_fetch_opts {
    int max_transfers;             /* at once, default 64 */
    int max_conns;                 /* connections kept open for reuse (CURLMOPT_MAXCONNECTS), at
                                      least max_transfers (the default, 0); only max_transfers
                                      under connect_to rules curl files every host under one
                                      target for (a host name target, or with resolve) */
    long connect_timeout_ms;       /* default 10000 */
    long timeout_ms;               /* whole transfer, default 30000 */
    size_t max_body;               /* decoded bytes kept; larger bodies are cut, marked truncated
                                      and the transfer stopped (default 10 MiB) */
    long max_redirects;            /* default 5 (followed by curl) */
    long low_speed_bytes;          /* a transfer slower than this many bytes/s for ... */
    long low_speed_s;              /* ... this many seconds fails (trickling servers, no answer);
                                      defaults 100 B/s over 15 s; 0 = off */
    const char *useragent;         /* copied; default RC_FETCH_DEFAULT_UA */
    const char *const *connect_to; /* curl CONNECT_TO strings "HOST:PORT:ADDR:PORT", copied; the
                                      first n_connect_to, or up to a NULL when n_connect_to is 0 */
    size_t n_connect_to;
    int verbose;                     /* CURLOPT_VERBOSE on stderr */
    const char *cainfo;              /* CA bundle (PEM file) that verifies servers, copied; NULL =
                                        the system's. Verification is never turned off. */
    const struct rc_netguard *guard; /* borrowed, outlives the fetcher; NULL = connect anywhere.
                                      Checked on every address a connection is opened to (after
                                      DNS and --connect-to, each redirect hop, each retry). */
    size_t dns_cache;                /* hosts in the fetcher's own DNS cache (default 100,000):
                                        each transfer gets a DNS cache of its own (so curl never
                                        scans one of every host), given the address the fetcher
                                        learnt for its host (CURLOPT_RESOLVE); 0 = libcurl's
                                        shared cache, scanned on every transfer. Off with
                                        connect_to (curl then resolves the rule's target). */
    long dns_ttl_s;                  /* an address learnt is used this long (default 300) */
    const char *const *resolve;      /* "HOST:PORT:ADDR[,ADDR...]" as curl's --resolve, copied:
                                        the first n_resolve; permanent entries of the fetcher's
                                        cache (or curl's, with dns_cache 0) */
    size_t n_resolve;
} rc_fetch_opts;

#define RC_FETCH_DEFAULT_UA "redcrawl/0.1 (+https://example.invalid/redcrawl)"
/* Total bytes and lines of response headers (all redirect hops together) before a transfer is
 * failed. A single line over 100 KB is refused by libcurl itself (reported as such). */
#define RC_FETCH_MAX_HEADER_BYTES (64 * 1024)
#define RC_FETCH_MAX_HEADER_LINES 300
/* What the fetcher asks for; it decodes each itself (shared/decode.c) with max_body applied to
 * the decoded bytes, and keeps the bytes as received in raw_body. */
#define RC_FETCH_ACCEPT_ENCODING "gzip, deflate, br, zstd"

/* Fills defaults. */
void rc_fetch_opts_init(rc_fetch_opts *o);

/* rc_fetch_result (shared/response.h): everything in it is borrowed, valid only during the
 * callback. */

typedef void (*rc_fetch_cb)(void *ud, const rc_fetch_result *res);

/* An owned deep copy of a result, for work that outlives the callback (parsing on another
 * thread); free it with rc_fetch_result_free. Without keep_raw a compressed body's bytes as
 * received are left out (raw_len 0): only a WARC record needs them, and a page
 * waiting for a parse thread would hold both. */
rc_fetch_result *rc_fetch_result_dup(const rc_fetch_result *r, int keep_raw);
/* The same, but in a fetch callback the bodies are moved out of the transfer, not copied (a
 * page's bytes are copied once less): r's body and raw_body must not be read after it. A
 * result from elsewhere is copied. */
rc_fetch_result *rc_fetch_result_move(const rc_fetch_result *r, int keep_raw);
void rc_fetch_result_free(rc_fetch_result *r);

/* loop is borrowed and must outlive the fetcher; opts (NULL = defaults) is copied.
 * NULL on invalid options or when curl cannot be set up. */
rc_fetcher *rc_fetcher_new(struct ev_loop *loop, const rc_fetch_opts *opts);

/* Aborts running transfers without calling their callbacks; accepts NULL. Called from inside a
 * fetch callback, the free is deferred until the callback returns and no further callback runs. */
void rc_fetcher_free(rc_fetcher *f);

/* Starts fetching url (copied). cookie: optional Cookie header value, sent to the first host only
 * (curl drops it on a redirect to another host or port); useragent: optional override of the
 * default; both copied, NULL or "" = none/default.
 * Returns 0, -EINVAL (NULL url/cb, CR or LF in cookie/useragent), -EBUSY when max_transfers are
 * running, -ECANCELED after rc_fetcher_free was called from a callback, -EIO when curl refuses.
 * On 0 cb is called exactly once, later, from the loop, never from inside rc_fetch_start; on
 * error it is never called. A callback may call rc_fetch_start (its own transfer no longer counts
 * as active) and rc_fetcher_free. */
int rc_fetch_start(rc_fetcher *f, const char *url, const char *cookie, const char *useragent, rc_fetch_cb cb, void *ud);

/* The same with a choice: follow = 0 returns a 3xx as it is (with redirect_url), so that the
 * crawler can put the target through its frontier (politeness, robots.txt, dedup); follow = 1
 * lets curl follow up to max_redirects (robots.txt, as RFC 9309 asks). */
int rc_fetch_start_ex(rc_fetcher *f, const char *url, const char *cookie, const char *useragent, int follow,
                      rc_fetch_cb cb, void *ud);

/* One request's choices; every pointer borrowed for the call (copied). */
typedef struct rc_fetch_req {
    const char *url;
    const char *cookie; /* see rc_fetch_start */
    const char *useragent;
    int follow;                    /* see rc_fetch_start_ex */
    int keep_request;              /* capture the request head as sent (WARC request records) */
    const char *if_none_match;     /* conditional GET: a stored ETag, NULL = none */
    const char *if_modified_since; /* conditional GET: a stored Last-Modified, NULL = none */
    int next_same_host;            /* the next request to the host follows at once (robots.txt,
                                      then its first page): its connection is kept even when
                                      max_conns are idle */
    int last_on_host;              /* no request to the host is expected (its last queued URL):
                                      its connection is closed when done, not kept idle, where
                                      it would only lengthen curl's walks of its cache (at each
                                      transfer that keeps one) until it grows too old */
} rc_fetch_req;

/* rc_fetch_start_ex with every choice; the same returns (-EINVAL also for CR or LF in the
 * conditional headers). */
int rc_fetch_start_req(rc_fetcher *f, const rc_fetch_req *req, rc_fetch_cb cb, void *ud);

/* The guard's verdict on url before any DNS: its host when that is an address in any spelling or
 * localhost (names are judged on the address connected to). 0 when allowed, there is no guard
 * or the URL does not parse (the fetch itself will say why); -EACCES with the reason in why. */
int rc_fetch_check_url(const rc_fetcher *f, const char *url, char *why, size_t cap);

/* Transfers running in curl; a finished one stops counting just before its callback runs. */
int rc_fetch_active(const rc_fetcher *f);
/* Hosts in the fetcher's DNS cache (0 when it has none). */
size_t rc_fetch_dns_cached(const rc_fetcher *f);

#endif
