/* article.h - the article of a parsed page, found on the gumbo tree by its structure (the default
 * main-text method, RC_MAINTEXT_ARTICLE; the line-block methods are in maintext.c).
 *
 * 1. Every element gets its text length, link-text length and commas (script, style, form
 *    controls, embedded media and hidden elements do not count). Elements whose class or id says
 *    boilerplate (comment, sidebar, related, share, footer, menu, cookie ...) and <nav> are left
 *    out of scoring; <aside>, <form> and <footer> are scored like any other element.
 * 2. The container: an itemprop=articleBody element with enough text; otherwise each paragraph
 *    (p, pre, td, a div with no block child ...) of 25+ characters scores 1 + commas + one per
 *    100 characters (at most 3) for its parent, half for its grandparent, less further up; each
 *    candidate starts from its tag (div, article, main up; lists, headings down) and its class/id
 *    (article, content, post, story ... up; boilerplate down) and ends multiplied by its share
 *    of text outside links. The best candidate wins (readability's scoring, plus the structural
 *    cues <article>, <main>, itemprop and the <h1> nearby).
 * 3. Widening: siblings of the winner scoring at least a fifth of it, or paragraphs of low link
 *    density, are taken too (an article split into sections or around a figure).
 * 4. The text: block elements are paragraphs separated by a blank line, <br> a line break;
 *    headings, lists, tables and quotes inside are kept; boilerplate-classed elements, <nav>,
 *    and blocks with more than half their text in links are dropped.
 * 5. JSON-LD articleBody replaces the text when it is clearly longer (text the DOM does not
 *    show, or shows cut). */
#ifndef RC_ARTICLE_H
#define RC_ARTICLE_H

#include <gumbo.h>

/* The article text of the document ROOT (borrowed) as malloc'd UTF-8, paragraphs separated by
 * "\n\n", no trailing newline; "" when nothing was found. Never NULL; aborts on OOM. */
char *rc_article_text(const GumboNode *root);

#endif
