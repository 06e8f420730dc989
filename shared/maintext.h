/* maintext.h - the main text of an article page, and its metadata.
 *
 * Main text follows the line-block distribution method (Chen Xin et al., as used in the thesis):
 * the page is rendered to text lines, each block of K consecutive lines gets its length (non-
 * whitespace characters), and the main text is where block lengths jump above a threshold and
 * run on until the blocks fall to zero. The original method works on source lines with the tags
 * stripped; here the lines come from the gumbo tree (every block element's start and end breaks
 * a line, as a formatted source would), with script/style/noscript/template/nav/footer/aside/
 * form/select/button/iframe/svg content dropped.
 *
 * Two variants, measured on the 17 hand-labelled pages of tests/data/maintext (token F1, see
 * tests/bench/maintext_eval.c): published 0.82, density 0.94.
 *  RC_MAINTEXT_LINEBLOCK  the published method: every region above the threshold, lines under 5
 *                         characters dropped, regions mentioning "Copyright"/"版权所有" skipped.
 *  RC_MAINTEXT_DENSITY    the default. Link text does not count towards a line's length (nav,
 *                         related-link lists and tag clouds become gaps), the region with the most
 *                         text is taken as the article, the smallest element containing it is
 *                         found in the tree, and only regions inside that element are kept (so
 *                         comments, sidebars and teasers elsewhere are dropped, while an article
 *                         split by an advert or a figure is joined again); lines under 5
 *                         characters or with more than half their text in links are dropped.
 *                         Weak spots: a headline, byline or caption next to the body is kept; a
 *                         reply longer than the question (Q&A, forums) is taken as the article. */
#ifndef RC_MAINTEXT_H
#define RC_MAINTEXT_H

#include "html.h"

struct json_t;

typedef enum rc_maintext_method {
    RC_MAINTEXT_DENSITY = 0,
    RC_MAINTEXT_LINEBLOCK = 1,
    RC_MAINTEXT_ARTICLE = 2,
} rc_maintext_method;

typedef struct rc_maintext_opts {
    rc_maintext_method method;
    unsigned block_lines; /* K, lines per block; 0 = 3 */
    unsigned threshold;   /* block length that starts a region; 0 = 86 (cx-extractor's default) */
} rc_maintext_opts;

/* The main text of DOC (borrowed) as malloc'd UTF-8, one paragraph per line, lines separated by
 * "\n" (no trailing newline); "" when no region was found. Never NULL; aborts on OOM. OPTS may be
 * NULL for the defaults. */
char *rc_maintext_extract(rc_html *doc);
char *rc_maintext_extract_opts(rc_html *doc, const rc_maintext_opts *opts);

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

#endif
