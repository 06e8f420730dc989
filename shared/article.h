/* article.h - the article of a parsed page, found on the gumbo tree by its structure (the default
 * main-text method, RC_MAINTEXT_ARTICLE; the line-block methods are in maintext.c). Tuned on
 * trafilatura's evaluation set and tests/data/maintext, checked on the Scrapinghub benchmark
 * (scripts/bench_maintext.sh, README "Main text").
 *
 * 1. Every element gets its text length, link-text length and commas (script, style, form
 *    controls, embedded media, figcaptions and hidden elements do not count).
 * 2. Boilerplate: <nav>, role navigation/contentinfo/banner/menu, or a class/id saying comment,
 *    sidebar, related, share, footer, menu, cookie, author box ... (vetoed by article, content,
 *    main, body) - unless the element holds the <h1> or more than half of the page's text
 *    outside links (a "with-sidebar" class on the page wrapper). <aside>, <form> and <footer>
 *    are judged like any other element.
 * 3. The container: the largest element named as the article body (itemprop=articleBody; a
 *    class/id such as entry-content or article-body; role=article; else the first <article> or
 *    schema.org Article), not inside comments, with MIN_ARTICLE_BODY characters, and not beaten
 *    by an element with twice its text (itemprop always wins); otherwise readability's scoring:
 *    each paragraph (p, pre, td, a div with no block child ...) of 25+ characters scores
 *    1 + commas (none for a <pre>: code) + one per 100 characters (at most 3) for its parent, half for its grandparent,
 *    less further up; a candidate starts from its tag and class weights and ends multiplied by
 *    its share of text outside links; the winner is widened over siblings scoring a fifth of it
 *    (and paragraphs of low link density), and the blocks between them.
 *    A best block with little text (under RUN_WEAK characters outside links, a copyright line)
 *    gives way to a run of 4+ sibling entries of one tag and class holding 4x its text (a front
 *    page's or a job board's cards, a shop's grid): their parent is the container, and its
 *    entries stay however much of them is links (a headline in a link, a word under it).
 * 4. Threads: when the container is inside one of a run of sibling posts (same tag and first
 *    class, named post/reply/answer/message/comment), the thread is taken whole; a run named
 *    like comments under an article is cut. Inside a schema.org DiscussionForumPosting or
 *    Question, the nearest ancestor holding two Comment/Answer items is the thread. A
 *    poster's signature is cut however long.
 * 5. The lead: blocks between the headline (first <h1> outside <nav>, else itemprop=headline)
 *    and the container.
 * 6. The text: block elements are paragraphs separated by a blank line, <br> a line break;
 *    headings, lists, tables and quotes are kept; boilerplate, short byline/date/tag/share
 *    blocks, blocks with more than half their text in links, bare links between blocks and a
 *    heading over a cut block are left out; soft hyphens and zero-width spaces are dropped.
 * 7. JSON-LD articleBody replaces the text when it is 1.3x longer (text the page does not
 *    show, or shows cut), unless it is markup (tags, or tags escaped as "&lt;p&gt;"). */
#ifndef RC_ARTICLE_H
#define RC_ARTICLE_H

#include <gumbo.h>

/* The article text of the document ROOT (borrowed) as malloc'd UTF-8, paragraphs separated by
 * "\n\n", no trailing newline; "" when nothing was found. Never NULL; aborts on OOM. */
char *rc_article_text(const GumboNode *root);

/* Whether element N is shown over the page only on demand: a <dialog> without "open", an
 * aria-modal overlay (a consent notice, a sign-up form). The density method skips them too: its
 * fallback would else take such a dialog's text for the page's. */
int rc_article_overlay(const GumboNode *n);

struct json_t;
/* The first non-empty string KEY in a JSON-LD value: an object, an array of them, or an object
 * with "@graph", searched at most a few levels deep from DEPTH (0 at the top). Borrowed. */
const char *rc_article_jsonld_string(struct json_t *v, const char *key, int depth);

#endif
