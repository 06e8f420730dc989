/* robots.h - robots.txt per RFC 9309: parse once for one user agent, then match paths fast.
 *
 * Parsing follows RFC 9309 and, where the RFC leaves room, Google's open-source parser:
 * keys are case-insensitive (common misspellings accepted), "key value" without a colon is read
 * as "key: value" when the line has exactly two words, a UTF-8 BOM is skipped, CR, LF and CRLF
 * end lines, lines are cut at RC_ROBOTS_MAX_LINE bytes and the file at RC_ROBOTS_MAX_BYTES
 * (the incomplete last line is dropped). Consecutive user-agent lines form one group; allow,
 * disallow and crawl-delay end the list of agents, sitemap and unknown lines do not.
 *
 * Matching: longest pattern wins, allow wins ties, '*' is any sequence, a final '$' anchors.
 * Patterns and paths are compared in one canonical form, the one rc_url_normalize gives a path:
 * percent-encoded unreserved characters decoded, other escapes in upper-case hex, non-ASCII and
 * other characters a URL cannot carry raw percent-encoded. "%2A" and "%24" in a pattern match a
 * literal '*' and '$' (RFC 9309 2.2.3). The time taken is linear in the path per pattern. */
#ifndef RC_ROBOTS_H
#define RC_ROBOTS_H

#include <stddef.h>

#define RC_ROBOTS_MAX_BYTES (500 * 1024) /* larger files are truncated (RFC 9309 2.5) */
#define RC_ROBOTS_MAX_LINE (2083 * 8)    /* bytes of a line looked at (as Google's parser) */
#define RC_ROBOTS_MAX_SITEMAPS 1024      /* further Sitemap: lines are ignored */

/* Parsed rules for ONE user agent (the group chosen at parse time). Immutable once built, so
 * it may be shared between threads for reading. */
typedef struct rc_robots rc_robots;

/* Parses body (len bytes, any garbage tolerated, need not be NUL-terminated; borrowed) choosing
 * the group for agent: its product token (the leading [A-Za-z_-] characters, so "redcrawl/0.1"
 * is "redcrawl") matched case-insensitively against each user-agent line's token. Every group
 * naming the agent is merged; when none does, every "*" group is merged instead. A NULL or
 * empty agent only ever gets "*" groups. Never NULL (aborts on OOM). */
rc_robots *rc_robots_parse(const char *body, size_t len, const char *agent);

/* Everything allowed: 4xx / missing robots.txt (RFC 9309 2.3.1.3). */
rc_robots *rc_robots_allow_all(void);
/* Everything but /robots.txt disallowed: 5xx / unreachable (RFC 9309 2.3.1.4). */
rc_robots *rc_robots_disallow_all(void);
/* The same, remembering why (e.g. "robots.txt answered 503", copied; a newline ends it), so a
 * URL it denies can be reported as "robots.txt could not be read" rather than "disallowed". */
rc_robots *rc_robots_unreachable(const char *why);
/* That reason, or NULL for rules read from a robots.txt (or allow/disallow all). Borrowed. */
const char *rc_robots_unreachable_why(const rc_robots *r);
/* Accepts NULL. */
void rc_robots_free(rc_robots *r);

/* path_and_query: the URL's path plus "?query" as in a normalised URL ("/" when NULL or empty;
 * it is canonicalised again, so a raw path works too). 1 allowed, 0 disallowed. "/robots.txt"
 * is always allowed. */
int rc_robots_allowed(const rc_robots *r, const char *path_and_query);

/* Convenience: takes a full absolute http(s) URL, normalised with rc_url_normalize first.
 * A URL that does not normalise is disallowed (0). */
int rc_robots_allowed_url(const rc_robots *r, const char *url);

/* Crawl-delay of the chosen groups in seconds (the largest when merged groups disagree), -1 when
 * none. Not capped: the caller caps it. */
double rc_robots_crawl_delay(const rc_robots *r);

/* Sitemap: lines of the whole file (all groups, in file order, duplicates dropped), values as
 * written (possibly relative). *ret is borrowed from r and lives as long as r; returns the count. */
size_t rc_robots_sitemaps(const rc_robots *r, const char *const **ret);

/* Serialises the chosen rules, crawl-delay, sitemaps and unreachable reason compactly (a few bytes per rule; text,
 * one item per line) into a malloc'd NUL-terminated string for caching (e.g. in Redis). */
char *rc_robots_serialize(const rc_robots *r);

/* Loads what rc_robots_serialize wrote (s is len bytes, borrowed). NULL when s is not a valid
 * serialisation (garbage, truncated, another format version): fetch robots.txt again. */
rc_robots *rc_robots_deserialize(const char *s, size_t len);

#endif
