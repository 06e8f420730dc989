/* htmltok.h - what a link-only crawl needs from a page, in one streaming pass with no tree.
 *
 * Building gumbo's DOM is most of a worker's CPU, yet a job without extraction rules and
 * without main text only needs the links, <base href>, <link rel=canonical>, meta robots, meta
 * refresh, the title and the record's metadata. rc_htmltok_scan() follows the WHATWG tokenizer
 * (data, RCDATA, RAWTEXT, script data with its escaped states, PLAINTEXT, comments, DOCTYPE,
 * bogus comments, CDATA in foreign content, tag and attribute states, character references
 * with the named table and the attribute-value rules, duplicate attributes: first wins) and
 * keeps only the few facts of the tree builder that change what gumbo reports:
 *   - <template> contents are inert (not walked by rc_html_*);
 *   - inside <select> every tag but option/optgroup/script/template/html is dropped (input,
 *     keygen, textarea and, inside a table, table tags close it);
 *   - <svg>/<math> subtrees are foreign (their <a>, <title>, <script> are not HTML, and CDATA
 *     sections are recognised) until their end tag, a breakout tag (<p>, <div>, <b>, ...) or an
 *     end tag that closes an element around them; integration points (foreignObject, desc, title, mi, mo, mn, ms,
 * mtext, annotation-xml with an HTML encoding) hold HTML again, as a stack up to 256 deep;
 *   - <noscript> is markup (gumbo parses with scripting off);
 *   - HTML elements open around svg/math are counted by name, so an end tag inside them that
 *     closes an outer element leaves the foreign subtree; a stray one does not.
 * Like gumbo's input stream, NUL, C0/C1 controls and noncharacters in what is kept become U+FFFD
 * and CR/CRLF become LF.
 *
 * tests/unit/test_htmltok.c proves the results equal rc_html_*'s and rc_maintext_meta's (gumbo
 * 0.10.1) on every page of tests/data and a corpus of malformed markup; on random tag soup
 * (tests/bench/htmltok_soup.c) about 0.2 % of documents still differ. Known differences, all on
 * markup no site writes on purpose: tree-builder moves that reorder elements (foster parenting,
 * <frameset> discarding the body), where the first <h1> ends when it holds misnested elements
 * (it is the title only when there is no <title> and no og:title), svg/math nesting deeper than
 * 256, invalid UTF-8 (kept as is; gumbo writes U+FFFD; the worker hands over valid UTF-8).
 *
 * Linear in the input, allocation only for what it keeps. Results are borrowed from the scan. */
#ifndef RC_HTMLTOK_H
#define RC_HTMLTOK_H

#include <stddef.h>

struct json_t;

typedef struct rc_htmltok rc_htmltok;

/* Scans LEN bytes of UTF-8 HTML (not copied; only needed during the call). Never NULL (aborts
 * on out of memory). */
rc_htmltok *rc_htmltok_scan(const char *data, size_t len);
/* Accepts NULL. */
void rc_htmltok_free(rc_htmltok *t);

/* Same contracts as rc_html_title / _base_href / _robots_flags / _meta_refresh / _links in
 * html.h (the first HTML <title>, collapsed; the first <base>'s raw href; OR of meta robots
 * tokens; the first parsable meta refresh URL; <a href>/<area href> in document order). */
/* Script data of S (N bytes) from I, after a <script> start tag, with its escaped and
 * double-escaped states as the HTML tokenizer has them: the index of the "</script" that ends
 * it, or N. */
size_t rc_htmltok_script_end(const char *s, size_t n, size_t i);

const char *rc_htmltok_title(const rc_htmltok *t);
const char *rc_htmltok_base_href(const rc_htmltok *t);
int rc_htmltok_robots_flags(const rc_htmltok *t);
const char *rc_htmltok_meta_refresh(const rc_htmltok *t);
double rc_htmltok_meta_refresh_delay(const rc_htmltok *t);
typedef int (*rc_htmltok_link_cb)(void *ud, const char *href, size_t len);
size_t rc_htmltok_links(const rc_htmltok *t, int skip_nofollow, size_t max, rc_htmltok_link_cb cb, void *ud);

/* The raw href of the first <link rel=canonical> (rel is a whitespace-separated token list);
 * NULL when absent. */
const char *rc_htmltok_canonical(const rc_htmltok *t);

/* The page's metadata exactly as rc_maintext_meta() would write it (same keys, same rules). */
int rc_htmltok_meta(const rc_htmltok *t, const char *url, struct json_t *out);

/* ---- the tokenizer alone, for a tree builder (htmltree.c) ----
 * rc_htmltok_tokenize() runs the same tokenizer over DATA and hands every token to a sink; the
 * sink, as a tree builder does, says which state follows a start tag (title and textarea are
 * RCDATA, style RAWTEXT, ...) and whether CDATA sections are recognised (foreign content). Text
 * comes as spans of DATA to decode with rc_htmltok_decode(); one run of text may come in several
 * spans. Offsets are into DATA. */
enum {
    RC_HTMLTOK_DATA, /* text states; DATA and RCDATA decode character references */
    RC_HTMLTOK_RCDATA,
    RC_HTMLTOK_RAWTEXT,
    RC_HTMLTOK_SCRIPT,
    RC_HTMLTOK_PLAINTEXT,
    RC_HTMLTOK_CDATA_TEXT, /* a CDATA section's content (foreign content only) */
    RC_HTMLTOK_STOP        /* returned by a sink's tag(): tokenizing ends */
};
enum { RC_HTMLTOK_COMMENT, RC_HTMLTOK_DOCTYPE, RC_HTMLTOK_CDATA };
#define RC_HTMLTOK_MAX_ATTRS 256 /* attributes a sink gets of one tag; the rest are dropped */

typedef struct rc_htmltok_attr {
    size_t name_from, name_to;   /* the name as written */
    size_t value_from, value_to; /* the value inside its quotes, references not decoded */
    int has_value;
} rc_htmltok_attr;

typedef struct rc_htmltok_tag {
    const char *name; /* lower-cased; a name of 23 bytes or more ends in 0x01 (matches nothing) */
    size_t from, to;  /* the whole tag, "<" to ">" */
    size_t name_from, name_to;
    int end_tag, self_closing;
    const rc_htmltok_attr *attrs; /* in source order, duplicates included */
    size_t nattrs;
} rc_htmltok_tag;

typedef struct rc_htmltok_sink {
    void (*text)(void *ud, size_t from, size_t to, int state);
    /* A start or end tag (borrowed for the call). For a start tag, returns the state that
     * follows (RC_HTMLTOK_DATA ... _PLAINTEXT) or RC_HTMLTOK_STOP; ignored for an end tag but
     * STOP. */
    int (*tag)(void *ud, const rc_htmltok_tag *tag);
    /* A comment (bogus ones included) or DOCTYPE: the span of its text. */
    void (*markup)(void *ud, int kind, size_t from, size_t to);
    int (*foreign)(void *ud); /* 1: "<![CDATA[" starts a CDATA section */
} rc_htmltok_sink;

void rc_htmltok_tokenize(const char *data, size_t len, const rc_htmltok_sink *sink, void *ud);

/* Appends S[FROM..TO) as the tree holds text read in STATE (references decoded in DATA and
 * RCDATA; IN_ATTR: the attribute-value rule) with the input stream's preprocessing (CR/CRLF to
 * LF, NUL and controls to U+FFFD). */
struct rc_buf;
void rc_htmltok_decode(const char *s, size_t from, size_t to, int state, int in_attr, struct rc_buf *out);

#endif
