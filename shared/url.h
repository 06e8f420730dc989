/* url.h - URL resolution and normalisation: one canonical string per crawlable http(s) URL, so
 * the frontier can deduplicate by byte comparison. Browser-compatible where browsers are lax
 * (whitespace, backslashes, raw UTF-8, IDN hosts), strict about what cannot be fetched. */
#ifndef RC_URL_H
#define RC_URL_H

#include <stddef.h>

#define RC_URL_MAX 4096 /* longest URL accepted, in bytes, after normalisation */

enum {
    RC_URL_OK = 0,
    RC_URL_EINVAL = -1,   /* does not parse */
    RC_URL_ESCHEME = -2,  /* not http/https */
    RC_URL_ETOOLONG = -3, /* result (or an output buffer) too long */
    RC_URL_EHOST = -4,    /* empty or bad host */
};

/* Normalise an absolute http(s) URL. On success *ret_url is malloc'd (caller frees) and 0 is
 * returned; on error *ret_url is untouched. URL is borrowed. */
int rc_url_normalize(const char *url, char **ret_url);

/* Resolve reference REF (ref_len bytes, need not be NUL-terminated) against the absolute BASE and
 * normalise the result into a malloc'd *ret_url. An absolute REF does not look at BASE. */
int rc_url_resolve(const char *base, const char *ref, size_t ref_len, char **ret_url);

/* A base URL for resolving many references (a page's links): prepared and parsed once, when a
 * relative reference first needs it. BASE is copied. Free with rc_url_base_free (NULL ok). One
 * thread at a time. */
typedef struct rc_url_base rc_url_base;
rc_url_base *rc_url_base_new(const char *base);
void rc_url_base_free(rc_url_base *b);

/* rc_url_resolve against B's base: the same result and errors. */
int rc_url_resolve_at(rc_url_base *b, const char *ref, size_t ref_len, char **ret_url);

/* The politeness key of a normalised URL: lower-case host (IPv6 in brackets), plus ":port" when the
 * port is not the scheme's default. Written NUL-terminated into buf; RC_URL_ETOOLONG if it does not
 * fit in cap bytes, another RC_URL_E* if it does not parse. */
int rc_url_host_key(const char *url, char *buf, size_t cap);

/* The bare host of a normalised URL (no port), lower-case, IPv6 without brackets. Same errors. */
int rc_url_host(const char *url, char *buf, size_t cap);

/* True when url's authority carries credentials (user:pass@host). Normalisation drops them, so
 * a seed with them is refused rather than fetched as something else. */
int rc_url_has_userinfo(const char *url);

/* A static message for an RC_URL_E* code. */
const char *rc_url_strerror(int err);

#endif
