/* sitemap.h - sitemaps (sitemaps.org 0.9): a <urlset> lists pages, a <sitemapindex> lists
 * further sitemaps; either may come gzip'd (the body itself, not a Content-Encoding). Parsed
 * with libxml2 without network access or entity expansion, the count capped. Pure. */
#ifndef RC_SITEMAP_H
#define RC_SITEMAP_H

#include <stddef.h>
#include <stdint.h>

#define RC_SITEMAP_MAX_BYTES (50u * 1024 * 1024) /* uncompressed, the protocol's own limit */
#define RC_SITEMAP_MAX_URLS 50000                /* per file, the protocol's own limit */

enum { RC_SITEMAP_URLSET = 1, RC_SITEMAP_INDEX = 2 };

/* Called per <loc> (trimmed; lastmod NULL when absent) with the file's kind; a non-zero return
 * stops the walk. */
typedef int (*rc_sitemap_cb)(void *ud, int kind, const char *loc, const char *lastmod);

/* Parses body (gunzipped first when it starts with the gzip magic) and calls cb for at most
 * max_urls entries. RC_SITEMAP_URLSET or RC_SITEMAP_INDEX (what the root element says), or
 * -EINVAL with a message in err (not a sitemap, corrupt gzip, over RC_SITEMAP_MAX_BYTES). */
int rc_sitemap_parse(const char *body, size_t len, size_t max_urls, rc_sitemap_cb cb, void *ud, char *err, size_t cap);

/* A <lastmod> (W3C datetime: YYYY, YYYY-MM, YYYY-MM-DD, optionally Thh:mm[:ss[.s]] and Z or
 * +hh:mm / -hh:mm) as unix milliseconds in *ret; -EINVAL when it is none of these. */
int rc_sitemap_lastmod_ms(const char *s, int64_t *ret);

#endif
