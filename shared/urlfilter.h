/* urlfilter.h - which discovered URLs a job follows: allow/deny regexes (PCRE2), unwanted
 * extensions, and crawler-trap guards (URL length, path depth, repeated path segments,
 * query-parameter explosion, calendars running into the far past or future), plus removal of
 * session-id parameters, which would otherwise make every visit's links new. Threads: a filter is
 * read-only once built, so any number of threads may check URLs with it at once (each match
 * has its own PCRE2 match data). */
#ifndef RC_URLFILTER_H
#define RC_URLFILTER_H

#include <stddef.h>

typedef struct rc_urlfilter_conf {
    size_t max_url_len;          /* bytes; default 2048 */
    int max_path_depth;          /* path segments; default 16 */
    int max_segment_repeats;     /* the same segment at most this often in a path; default 2 */
    int max_query_params;        /* default 16 */
    int max_years_away;          /* a year in the path/query this far from now is a calendar trap; 0 = off; default 3 */
    int strip_session_ids;       /* default 1 */
    const char *const *deny_ext; /* NULL = the default list (images, media, archives, binaries) */
    size_t n_deny_ext;
    const char *const *allow_re; /* a URL must match one of these when any are given */
    size_t n_allow_re;
    const char *const *deny_re; /* a URL matching one of these is dropped */
    size_t n_deny_re;
    const char *const *data_re; /* data (article) pages: fetched once; the rest are navigation pages */
    size_t n_data_re;
    const char *const *jump_re; /* jump links (a search engine's redirecting result links) */
    size_t n_jump_re;
} rc_urlfilter_conf;

typedef struct rc_urlfilter rc_urlfilter;

struct pcre2_real_match_context_8;
/* A PCRE2 match context with the step and depth limits every regex on network input runs under
 * (these filters' and the extraction rules'): a runaway pattern gives up after about 2 ms of CPU
 * per subject; a match that gives up counts as no match. Aborts when out of memory. */
struct pcre2_real_match_context_8 *rc_urlfilter_match_limits(void);

void rc_urlfilter_conf_init(rc_urlfilter_conf *c);
/* NULL with a message naming the bad regex in err. Strings are copied. */
rc_urlfilter *rc_urlfilter_new(const rc_urlfilter_conf *c, char *err, size_t cap);
void rc_urlfilter_free(rc_urlfilter *f);
/* NULL when url (normalised, absolute) may be followed, else a short static reason:
 * "too-long", "path-depth", "repeated-segments", "query-params", "calendar", "extension",
 * "not-allowed", "denied". */
const char *rc_urlfilter_check(const rc_urlfilter *f, const char *url);
/* True when url is a data page (matches one of data_re). */
int rc_urlfilter_is_data(const rc_urlfilter *f, const char *url);
/* True when url is a jump link (matches one of jump_re): its redirects may leave the scope. */
int rc_urlfilter_is_jump(const rc_urlfilter *f, const char *url);
/* url without session-id parameters (jsessionid, phpsessid, sid, sessionid, ...), malloc'd, or
 * NULL when there is nothing to strip (or stripping is off). */
char *rc_urlfilter_strip_session(const rc_urlfilter *f, const char *url);

#endif
