/* response.h - one HTTP response as the page pipeline sees it: what the fetcher received
 * (worker/fetch.c fills it, borrowing its buffers) or what an offline tool read from a file
 * (`redcrawl extract`). */
#ifndef RC_RESPONSE_H
#define RC_RESPONSE_H

#include <stddef.h>

typedef struct rc_fetch_result {
    int ok;                    /* 1 when a complete HTTP response arrived (any status), including
                                  one whose body was cut at max_body */
    long status;               /* HTTP status of the last response, 0 if none (may be set when
                                  !ok, e.g. 301 after too many redirects) */
    const char *url;           /* requested URL */
    const char *effective_url; /* after redirects */
    const char *content_type;  /* last response's Content-Type, may be NULL */
    const char *retry_after;   /* last response's raw Retry-After value, may be NULL */
    const char *body;          /* decoded; never NULL, NUL-terminated (the body may hold NULs) */
    size_t body_len;
    const char *raw_body; /* as received (before content decoding), never NULL; the same
                             bytes as body when there was no Content-Encoding */
    size_t raw_len;
    const char *content_encoding; /* last response's Content-Encoding, may be NULL */
    int truncated;                /* body (decoded or raw) was cut at max_body, or a compressed
                                     body ended early */
    const char *error;            /* human-readable error when !ok (curl's error buffer), else NULL */
    int curl_code;                /* CURLcode (CURLE_WRITE_ERROR when truncated) */
    double total_ms, connect_ms, ttfb_ms;
    long redirects;
    const char *remote_ip;     /* may be NULL */
    const char *blocked;       /* the guard refused the address: why (then !ok), else NULL */
    int final;                 /* !ok for a reason a retry would meet again (a header limit,
                                  a corrupt encoding): not worth another attempt */
    const char *redirect_url;  /* a 3xx not followed (rc_fetch_start_ex follow 0): its absolute
                                  Location, else NULL */
    const char *response_head; /* the last response's status line and header lines as received
                                  (CRLF each, the empty line included), never NULL */
    size_t response_head_len;
    const char *request_head; /* with rc_fetch_req.keep_request: the last request's head as
                                 sent, else "" */
    size_t request_head_len;
    const char *http_version; /* "HTTP/1.0", "HTTP/1.1", "HTTP/2", "HTTP/3", or NULL */
    const char *etag;         /* the last response's ETag / Last-Modified, may be NULL */
    const char *last_modified;
    void *xfer; /* the fetcher's transfer delivering it (worker/fetch.c's rc_fetch_result_move), else NULL */
} rc_fetch_result;

#endif
