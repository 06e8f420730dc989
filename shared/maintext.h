/* maintext.h - the main text of an article page, and its metadata.
 *
 * Three methods, all on the one gumbo tree (figures: scripts/bench_maintext.sh, README "Main
 * text"):
 *  RC_MAINTEXT_ARTICLE    the default: the article found by the page's structure (article.h);
 *                         when it finds nothing, the density method's text.
 *  RC_MAINTEXT_DENSITY    line-block distribution (Chen Xin et al., as used in the thesis) with
 *                         link text not counted: the page is rendered to lines (every block
 *                         element's start and end breaks a line; script/style/noscript/template/
 *                         nav/footer/aside/form/select/button/iframe/svg content dropped), each
 *                         block of K lines gets its length, regions run from a block above the
 *                         threshold until the blocks fall to zero; the region with the most text
 *                         is the article, the smallest element containing it is found in the
 *                         tree, and only regions inside that element are kept; lines under 5
 *                         characters or with more than half their text in links are dropped.
 *                         Weak spots: a reply longer than the question is taken, an article cut
 *                         into sections yields one section, the sidebar's legal text can win.
 *  RC_MAINTEXT_LINEBLOCK  the published method: every region above the threshold, lines under 5
 *                         characters dropped, regions mentioning "Copyright"/"版权所有" skipped. */
#ifndef RC_MAINTEXT_H
#define RC_MAINTEXT_H

#include "html.h"

struct json_t;

typedef enum rc_maintext_method {
    RC_MAINTEXT_DENSITY = 0,
    RC_MAINTEXT_LINEBLOCK = 1,
    RC_MAINTEXT_ARTICLE = 2, /* the default */
} rc_maintext_method;

typedef struct rc_maintext_opts {
    rc_maintext_method method;
    unsigned block_lines; /* K, lines per block; 0 = 3 */
    unsigned threshold;   /* block length that starts a region; 0 = 86 (cx-extractor's default) */
} rc_maintext_opts;

/* The main text of DOC (borrowed) as malloc'd UTF-8, no trailing newline; "" when nothing was
 * found. Never NULL; aborts on OOM. The article method separates paragraphs by a blank line
 * ("\n\n", a <br> is "\n"); the line-block methods put one paragraph per line. OPTS NULL =
 * the article method; block_lines/threshold 0 = their defaults (line-block methods only).
 * *RET_USED (may be NULL) is the method that produced the text: RC_MAINTEXT_DENSITY when the
 * article method found nothing. rc_maintext_extract(doc) = rc_maintext_text(doc, NULL, NULL). */
char *rc_maintext_text(rc_html *doc, const rc_maintext_opts *opts, rc_maintext_method *ret_used);
char *rc_maintext_extract(rc_html *doc);
char *rc_maintext_extract_opts(rc_html *doc, const rc_maintext_opts *opts);

/* "article", "density", "lineblock"; parse returns -EINVAL for another name. */
const char *rc_maintext_method_name(rc_maintext_method m);
int rc_maintext_method_parse(const char *name, rc_maintext_method *ret);

/* Fills the JSON object OUT (borrowed; existing keys are replaced) with what DOC states about
 * itself, each key only when present and non-empty (whitespace collapsed and trimmed):
 *   "title"        <title>, else og:title, else the first <h1>
 *   "description"  <meta name=description>, else og:description
 *   "canonical"    <link rel=canonical href>, resolved against <base href> and URL, normalised
 *                  (rc_url_resolve); left out when it does not resolve to an http(s) URL
 *   "language"     <html lang>, else <meta http-equiv=content-language> (first of a list)
 *   "og"           object of every og:* property (property= or name=), key without "og:", first
 *                  occurrence wins, values as found
 *   "published"    as found (ISO 8601 in practice), first of: article:published_time, JSON-LD
 *                  datePublished (top level, arrays and @graph), itemprop=datePublished
 *                  (content or datetime), the first <meta name> among date, pubdate,
 *                  publishdate, publish_date, publish-date, publication_date, dcterms.issued,
 *                  dc.date.issued, dc.date, dcterms.date, parsely-pub-date, sailthru.date,
 *                  article.published (ASCII case-insensitive), <time datetime> inside the
 *                  first <article>
 * URL is the page's address (borrowed; may be NULL, then a relative canonical is left out).
 * Returns 0, or -EINVAL when OUT is not an object. */
int rc_maintext_meta(rc_html *doc, const char *url, struct json_t *out);

/* The facts rc_maintext_meta() gathers, so a walk that has no gumbo tree (htmltok.c) applies the
 * same rules: feed it what it finds, then write the same keys. String fields are borrowed from
 * the caller's document (they must outlive the facts' use); published_jsonld, h1 and og are
 * owned. */
typedef struct rc_maintext_facts {
    const char *lang, *content_language; /* <html lang>, meta content-language */
    const char *description, *og_description, *og_title;
    const char *canonical, *base_href; /* raw hrefs: first link rel=canonical, base */
    const char *published_article, *published_itemprop, *published_name, *published_time;
    char *published_jsonld;
    char *h1; /* the first <h1>'s text, collapsed */
    struct json_t *og;
} rc_maintext_facts;

/* Reads attribute NAME of element EL (NULL when absent). */
typedef const char *(*rc_maintext_attr_fn)(const void *el, const char *name);

void rc_maintext_facts_init(rc_maintext_facts *f);
void rc_maintext_facts_release(rc_maintext_facts *f);
/* One HTML <meta> element: og:*, description, content-language and the published dates. */
void rc_maintext_facts_meta_tag(rc_maintext_facts *f, rc_maintext_attr_fn attr, const void *el);
/* The text of one <script type=application/ld+json>: its datePublished. */
void rc_maintext_facts_jsonld(rc_maintext_facts *f, const char *text, size_t len);
/* Writes the keys of rc_maintext_meta() into OUT; TITLE is the page's <title> (or NULL). */
int rc_maintext_facts_write(const rc_maintext_facts *f, const char *title, const char *url, struct json_t *out);

#endif
