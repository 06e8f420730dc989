/* html.h - parse a page once and hand the tree to every consumer: title, <base href>, meta
 * robots, meta refresh and links are recorded in one iterative walk at parse time; the tree
 * itself stays available for extractors (XPath later converts it).
 *
 * Two builders make the same structs (gumbo.h's GumboOutput, GumboNode ...): gumbo, the HTML5
 * algorithm exactly (the default; what XPath rules need), and the light tree (htmltree.h,
 * rc_html_limits.tree = RC_HTML_TREE_LIGHT), a tree builder on htmltok's tokenizer about 7x
 * faster, that approximates the rules texts do not depend on (tests/unit/test_htmltree.c: same
 * links, title, metadata and main text on tests/data). Both allocate in the document's arena
 * under the same budget; the light tree is linear, so only the memory budget bites in practice.
 *
 * Hostile pages: gumbo 0.10.1 is quadratic in nesting depth (100,000 nested <div>s take ~30 s)
 * and formatting-element reconstruction can turn 34 KB into 1 GB of nodes. So every parse runs
 * under a memory and CPU-time budget (gumbo allocates from a per-document arena; the allocator
 * checks both and abandons the parse). A page that blows the budget is re-parsed "degraded": only
 * its a/area/base/meta/title tags and text are kept, which gumbo parses in linear time, so links,
 * title and robots flags survive but the element structure does not (rc_html_degraded() says so).
 * If even that fails the document is empty. */
#ifndef RC_HTML_H
#define RC_HTML_H

#include <stddef.h>

struct GumboInternalOutput;
struct GumboInternalNode;

typedef struct rc_html rc_html;

/* Budget for one parse attempt (the degraded re-parse gets a fresh one). 0 = default. */
typedef struct rc_html_limits {
    size_t max_mem;       /* bytes the tree may take; default 8 MiB + 32 x len (gumbo: 7-14 x) */
    unsigned max_cpu_ms;  /* thread CPU time; default 100 ms + 100 ms per MiB (gumbo: ~30 MiB/s) */
    int skip_script_text; /* 1: the bodies of <script> (but JSON-LD) and <style> elements are
                             left out before parsing, the elements kept empty. Gumbo spends about
                             half its time on them (40 % of a page's bytes, one token per
                             character); for callers that never read them (no XPath rules). */
    int tree;             /* RC_HTML_TREE_GUMBO (0) or RC_HTML_TREE_LIGHT (htmltree.h) */
} rc_html_limits;
enum { RC_HTML_TREE_GUMBO, RC_HTML_TREE_LIGHT };
/* "gumbo" or "light" to RC_HTML_TREE_*; -1 for anything else. */
int rc_html_tree_parse(const char *name);

/* Parses LEN bytes of UTF-8 HTML (caller guarantees UTF-8; invalid bytes become U+FFFD in gumbo).
 * DATA is copied, so it need not outlive the document. Never NULL (aborts on out of memory). */
rc_html *rc_html_parse(const char *data, size_t len);
/* Same with explicit limits (NULL = defaults). */
rc_html *rc_html_parse_limited(const char *data, size_t len, const rc_html_limits *lim);
/* Accepts NULL. Invalidates every pointer borrowed from DOC and the gumbo tree. */
void rc_html_free(rc_html *doc);

/* 1 when the page exceeded its parse budget and the tree only holds a/area/base/meta/title. */
int rc_html_degraded(const rc_html *doc);

/* The first HTML <title>'s text (head or body, not SVG's), ASCII whitespace collapsed and trimmed;
 * "" when the element is empty, NULL when there is none. Borrowed: lives as long as DOC. */
const char *rc_html_title(rc_html *doc);

/* The first <base> element's href value, raw (entities decoded, not resolved); NULL when absent.
 * Borrowed. */
const char *rc_html_base_href(rc_html *doc);

/* OR of the content tokens of every <meta name="robots"> and <meta name="redcrawl"> (names and
 * tokens ASCII case-insensitive, tokens separated by commas or whitespace): "noindex", "nofollow",
 * "none" (= both). */
#define RC_HTML_AGENT "redcrawl"
enum { RC_HTML_NOINDEX = 1, RC_HTML_NOFOLLOW = 2 };
int rc_html_robots_flags(rc_html *doc);

/* Calls cb(ud, href, len) for each HTML <a href> and <area href> in document order (contents of
 * <template> excluded), skipping links whose rel has a "nofollow" token when SKIP_NOFOLLOW, and
 * stopping after MAX calls (0 = none, SIZE_MAX = all) or as soon as cb returns non-zero.
 * One call per source tag: the copies of an open <a> that the tree builder clones into later
 * elements (misnested markup) are skipped. Returns the number of calls made. HREF is the raw
 * attribute value (entities decoded, not resolved, not trimmed, possibly empty), NUL-terminated
 * and borrowed for the call only. */
typedef int (*rc_html_link_cb)(void *ud, const char *href, size_t len);
size_t rc_html_links(rc_html *doc, int skip_nofollow, size_t max, rc_html_link_cb cb, void *ud);

/* The URL of the first <meta http-equiv="refresh"> (content "5; url='...'" per the HTML spec's
 * declarative refresh parsing, quotes stripped, trailing whitespace trimmed, not resolved); NULL
 * when absent, unparsable or a refresh of the page itself. Borrowed. */
const char *rc_html_meta_refresh(rc_html *doc);
/* Its delay in whole seconds (0 when there is none). */
double rc_html_meta_refresh_delay(rc_html *doc);

/* The rules above, for other walkers of the same markup (htmltok.c): the RC_HTML_NOINDEX/
 * NOFOLLOW flags of a robots meta content; whether a rel value holds "nofollow"; the URL span
 * of a meta refresh content (0, *RET_LEN 0 = the page itself; its delay in seconds in
 * *RET_DELAY) or -1 when unparsable. */
int rc_html_robots_tokens(const char *content);
/* What a <meta> says to a crawler, gathered over a document's meta tags (start zeroed): robots
 * flags, and the first parsable refresh (its URL span borrowed from the content, len 0 = the
 * page itself). */
typedef struct rc_html_meta_seen {
    int robots;
    int refresh_seen;
    const char *refresh_url;
    size_t refresh_len;
    double refresh_delay;
} rc_html_meta_seen;
void rc_html_meta_note(rc_html_meta_seen *m, const char *name, const char *http_equiv, const char *content);
/* An attribute value, trimmed of ASCII whitespace, equals LIT ignoring ASCII case (NULL: no). */
int rc_html_value_is(const char *v, const char *lit);
/* TOKEN is one of the ASCII-whitespace-separated tokens of LIST, ignoring ASCII case. */
int rc_html_token_in(const char *list, const char *token);
int rc_html_rel_nofollow(const char *rel);
int rc_html_parse_refresh(const char *content, const char **ret_url, size_t *ret_len, double *ret_delay);

/* The value of NODE's attribute NAME (an element), NULL when it has none. NAME is lower-case:
 * both trees lower-case attribute names as HTML's tokenizer does (gumbo's; htmltree.c's), so a
 * name's first byte rules out most attributes before the case-blind compare, which gumbo's own
 * lookup makes for each one: the extractors ask for a dozen names of every element. */
const char *rc_html_attr(const struct GumboInternalNode *node, const char *name);

/* The gumbo tree, borrowed for the life of DOC, for extractors. Do not gumbo_destroy_output() it:
 * it lives in the document's arena. */
const struct GumboInternalOutput *rc_html_gumbo(const rc_html *doc);

#endif
