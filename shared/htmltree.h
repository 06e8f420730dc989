/* htmltree.h - a light HTML tree: gumbo's node structs built from htmltok's tokenizer.
 *
 * A job without XPath rules reads the tree only through html.c's walk, article.c and
 * maintext.c, which need the document's elements, text and attributes, not the HTML5 tree
 * builder's every move. rc_htmltree_build() drives rc_htmltok_tokenize() and builds GumboOutput /
 * GumboNode / GumboVector / GumboAttribute structs (tags from gumbo_tagn_enum) in the caller's
 * allocator, about five times faster than gumbo and linear in the input. What it does as the
 * HTML5 algorithm does:
 *   - document > html > head + body always, head elements before the body's first content in
 *     head, other start tags and non-whitespace text open the body; later <html>/<body> tags
 *     add their missing attributes;
 *   - void elements; RCDATA/RAWTEXT/script/PLAINTEXT as the tokenizer states give them; the LF
 *     after <pre>, <listing>, <textarea> dropped; NUL in body text dropped, CR/CRLF as LF;
 *   - implied end tags: p closed by block starts (table too) and </p> (an empty p when none is
 *     open), li/dd/dt/option/optgroup, headings closing a heading, td/th/tr/tbody/thead/tfoot
 *     closing their open siblings with implied tbody and tr; table tags outside a table dropped;
 *   - end tags close the matching element when it is in scope (default, list item, button or
 *     table scope as the spec says), pass no "special" element otherwise, and are ignored when
 *     nothing matches; <select> drops tags other than option/optgroup/script/template;
 *   - svg/math in their namespaces, with breakout tags and integration points; CDATA there;
 *   - <template> is a GUMBO_NODE_TEMPLATE holding its contents (walkers skip it, as gumbo's);
 *   - text nodes with references decoded, whitespace-only ones GUMBO_NODE_WHITESPACE; comments.
 *   - the adoption agency for formatting end tags and for <a>/<nobr> while one is open: a block
 *     inside the formatting element moves out to its parent and a clone of it (flagged
 *     GUMBO_INSERTION_ADOPTION_AGENCY_CLONED, as gumbo's) takes the block's content.
 * What it approximates: the adoption agency works on the stack of open elements, not the list
 * of active formatting elements, and does not clone formatting elements between the formatting
 * element and the block (<a><b><div> loses the b around the div's content); no reconstruction
 * of active formatting elements (text after </p> is not wrapped in copies of open <b>/<i>); no
 * foster parenting (text and elements misplaced in a table stay where they are instead of
 * moving before it); no quirks mode (a table always closes a p); <frameset> and the "in head
 * noscript" mode are ordinary. Open elements are capped at 400 deep: deeper ones are still added
 * but closed at once, so hostile nesting stays linear. Source positions: offsets only;
 * original_end_tag is empty.
 *
 * tests/unit/test_htmltree.c compares it with gumbo on tests/data and malformed markup (title,
 * base, robots, refresh, links, metadata and main text: all equal there). On the main-text sets
 * of scripts/bench_maintext.sh the article text differs from gumbo's tree on 4 of 3,173 pages
 * (an unclosed <a> that gumbo's reconstruction wraps around the rest of the page, nested links
 * in cards); on random tag soup (tests/bench/htmltok_soup N SEED light) about 0.1 % of documents
 * differ in links, title, robots or metadata. */
#ifndef RC_HTMLTREE_H
#define RC_HTMLTREE_H

#include <stddef.h>

struct GumboInternalOutput;

/* Where the tree's memory comes from: ALLOC(UD, N) returns N bytes aligned for any struct (never
 * NULL); EXHAUSTED(UD), asked after every tag, says when a budget ran out (NULL = never). */
typedef struct rc_htmltree_mem {
    void *(*alloc)(void *ud, size_t n);
    int (*exhausted)(void *ud);
    void *ud;
} rc_htmltree_mem;

/* The tree of LEN bytes of UTF-8 DATA, which must outlive it (original_tag and original_text
 * point into it). SKIP_SCRIPT_TEXT: the text of <script> (but JSON-LD) and <style> is left out.
 * NULL when MEM said exhausted (what was allocated is the caller's to release). */
struct GumboInternalOutput *rc_htmltree_build(const char *data, size_t len, int skip_script_text,
                                              const rc_htmltree_mem *mem);

#endif
