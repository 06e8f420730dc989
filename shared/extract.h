/* extract.h - compiled rules (rules.h) applied to a parsed page (html.h): items as JSON objects and
 * the links the link rules select.
 *
 * The gumbo tree is converted once per page into a libxml2 document (rc_extract_doc) that libxml2's
 * XPath engine runs on: HTML elements with lower-case names in no namespace, SVG and MathML
 * elements as plain elements under their DOM local names (foreignObject), attributes, text
 * (whitespace-only text too, as in the browser DOM); comments, the doctype and <template>
 * contents are left out. Because gumbo builds the tree the way browsers do (html/head/body,
 * tbody, misnested markup), an XPath copied from a browser's developer tools matches. A degraded
 * page (rc_html_degraded()) converts the same way: its tree only holds a/area/base/meta/title and
 * text, so structural rules find nothing while //a, //title and //meta still work.
 *
 * Field values. An XPath that selects nodes yields the string value of each node (an element's
 * text content, an attribute's or a text node's value); a number, boolean or string result yields
 * its XPath string form ("3", "true"). Every string is whitespace-normalised: runs of whitespace
 * (ASCII, no-break space U+00A0, U+2000-U+200A, U+2028/9, U+202F, U+205F, ideographic space
 * U+3000, U+FEFF) become one space and the ends are trimmed. `re` then applies to the normalised
 * string: the first capture group that took part in the match (the whole match if the regex has
 * no group), trimmed again. An empty string is no value. A single field takes the first value in
 * document order, skipping nodes that give none (a whitespace-only text node, a node the regex
 * does not match); `all: true` gives the list of every value, and with `re` every match of the
 * regex in every node (Scrapy's .re()). A field with no value takes its `default` when it has one
 * and is otherwise left out of the item; an item missing a `required` field is dropped and
 * counted.
 *
 * Items are {"url": URL, FIELD: ...} in the rule's field order. Without list_from a page is one
 * item; with list_from each selected node is one item whose fields are evaluated relative to it
 * (so use "./td[2]" or "td[2]"; "//td" still searches the whole page). `second_page_url` is
 * evaluated per item, resolved against the page's <base href> and URL, normalised and stored as
 * "_second_page_url"; rc_extract_second_page() later merges the detail page's fields into the item.
 *
 * XPath work per call is capped (libxml2's operation limit), as are the nodes converted, the items
 * per page and the values per field; stats say when a cap cut something.
 *
 * Threads: libxml2 2.9 initialises its globals lazily and racily; rc_rules_parse() and
 * rc_extract_doc_new() set them up once first (xmlinit.h), on whichever thread comes first. */
#ifndef RC_EXTRACT_H
#define RC_EXTRACT_H

#include <stddef.h>

#include "html.h"
#include "rules.h"

struct json_t;

#define RC_EXTRACT_MAX_NODES ((size_t)1 << 21) /* nodes converted per page; the rest is cut */
#define RC_EXTRACT_MAX_ITEMS 10000             /* items per page (list_from matches beyond) */
#define RC_EXTRACT_MAX_VALUES 10000            /* values of one `all` field */
#define RC_EXTRACT_MAX_XPATH_OPS 20000000ul    /* libxml2 XPath operations per call (~125 ms) */

enum { RC_EXTRACT_DROPPED = 1 }; /* rc_extract_second_page(): the item lost a required field */

typedef struct rc_extract_stats {
    size_t items;           /* items returned */
    size_t dropped;         /* items dropped for a missing required field */
    size_t dropped_index;   /* the first dropped item's position among list_from's nodes (0 without) */
    char dropped_rule[320]; /* its missing field's rule path, "fields.title"; "" when none dropped */
    int degraded;           /* the page was parsed degraded (html.h): expect little */
    int truncated;          /* a cap above cut nodes, items or values */
} rc_extract_stats;

/* A page converted for XPath. Opaque; read-only once built, but not to be shared by threads. */
typedef struct rc_extract_doc rc_extract_doc;

/* Converts HTML's gumbo tree (borrowed for the call only; XD does not refer to it afterwards).
 * Iterative, linear in the node count, capped at RC_EXTRACT_MAX_NODES. Never NULL. */
rc_extract_doc *rc_extract_doc_new(rc_html *html);
/* Accepts NULL. */
void rc_extract_doc_free(rc_extract_doc *xd);
/* Elements converted (for tests and logs). */
size_t rc_extract_doc_elements(const rc_extract_doc *xd);

/* Evaluates the field set FIELD_SET (NULL = the top-level list_from/fields/second_page_url) on XD
 * and sets *ret_items to a new JSON array of item objects (the caller owns the reference). URL is
 * the page's absolute URL: stored in each item and the base for second_page_url. Stats (may be
 * NULL) are written on success. Returns 0; -ENOENT when there is no such field set; -EINVAL when an
 * XPath fails at run time (operation limit) or a regex hits its match limit, with "PATH: reason"
 * in err. A set without fields (links-only rules) yields no items. */
int rc_extract_doc_items(const rc_rules *rules, rc_extract_doc *xd, const char *url, const char *field_set,
                         struct json_t **ret_items, rc_extract_stats *ret_stats, char *err, size_t cap);

/* Evaluates second_page's fields on the detail page XD (URL is only for messages) and merges them
 * into ITEM (borrowed, modified in place; fields without a value and no default are not added).
 * Returns 0 when merged, RC_EXTRACT_DROPPED when a required second-page field has no value (ITEM
 * untouched, stats say which), -EINVAL when the rules have no second_page or on the errors above. */
int rc_extract_doc_second_page(const rc_rules *rules, rc_extract_doc *xd, const char *url, struct json_t *item,
                               rc_extract_stats *ret_stats, char *err, size_t cap);

/* Called once per distinct link the link rules select, in document order: URL is absolute and
 * normalised (url.h), RULE the index of the first rule in `links` that accepts it, FOLLOW and
 * CALLBACK (a field set name or NULL) that rule's. All borrowed for the call. Non-zero stops. */
typedef int (*rc_extract_link_cb)(void *ud, const char *url, size_t rule, int follow, const char *callback);

/* The page's <a href> and <area href> (tree-builder clones and <template> contents excluded,
 * rel=nofollow not looked at: that is the crawler's policy), resolved against its <base href> and
 * BASE_URL; links that do not resolve to http(s) are skipped. A rule accepts a link when it lies
 * under (or is) a node one of its restrict_xpaths selects (if it has any), its URL matches one of
 * `allow` (if any) and none of `deny`, and its host equals or is a subdomain of one of
 * `allow_domains` (if any) and of none of `deny_domains`. Everything is decided before the first
 * call. Returns the number of calls made (at most MAX) or a negative errno-style code (callback
 * never called) with err set. */
int rc_extract_doc_links(const rc_rules *rules, rc_extract_doc *xd, const char *base_url, size_t max,
                         rc_extract_link_cb cb, void *ud, char *err, size_t cap);

/* The same three on an rc_html, converting it for the one call. Use the _doc_ forms to run
 * several on one page. */
int rc_extract_page(const rc_rules *rules, rc_html *doc, const char *url, const char *field_set,
                    struct json_t **ret_items, rc_extract_stats *ret_stats, char *err, size_t cap);
int rc_extract_second_page(const rc_rules *rules, rc_html *doc, const char *url, struct json_t *item,
                           rc_extract_stats *ret_stats, char *err, size_t cap);
int rc_extract_links(const rc_rules *rules, rc_html *doc, const char *base_url, size_t max, rc_extract_link_cb cb,
                     void *ud, char *err, size_t cap);

#endif
