/* htmltree.c - see htmltree.h. Rule names follow the WHATWG "Tree construction" section. */
#include "htmltree.h"

#include "html.h"
#include "htmltok.h"
#include "util.h"

#include <gumbo.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define MAX_DEPTH 400 /* open elements; deeper ones are closed at once */
#define NAME_CAP 24   /* htmltok's bound on a tag name, with its NUL */

enum mode { M_INITIAL, M_IN_HEAD, M_AFTER_HEAD, M_IN_BODY };

typedef struct open_el {
    GumboNode *node;
    char name[NAME_CAP]; /* lower-cased, to match end tags of unknown and foreign elements */
} open_el;

typedef struct builder {
    const char *s;
    size_t n;
    const rc_htmltree_mem *mem;
    int skip_script_text;
    GumboOutput *out;
    GumboNode *document, *html, *head, *body;
    open_el stack[MAX_DEPTH];
    size_t depth;
    unsigned count[GUMBO_TAG_LAST + 1]; /* open HTML elements by tag: most scope checks end here */
    enum mode mode;
    int skip_lf;   /* drop an LF starting the next text (after <pre>, <listing>, <textarea>) */
    int skip_text; /* the open <script>/<style>'s text is not kept */
    int stopped;
    /* text is gathered until the next tag or comment, then becomes one node */
    rc_buf text;
    GumboNode *text_parent;
    size_t text_from, text_to;
    int text_cdata;
} builder;

/* ---- nodes ---- */

static void *zalloc(builder *b, size_t n)
{
    void *p = b->mem->alloc(b->mem->ud, n);
    memset(p, 0, n);
    return p;
}

static char *copy(builder *b, const char *s, size_t n)
{
    char *p = b->mem->alloc(b->mem->ud, n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

static void vector_push(builder *b, GumboVector *v, void *item)
{
    if (v->length == v->capacity) {
        unsigned cap = v->capacity ? v->capacity * 2 : 4;
        void **data = b->mem->alloc(b->mem->ud, cap * sizeof(void *));
        if (v->length)
            memcpy(data, v->data, v->length * sizeof(void *));
        v->data = data;
        v->capacity = cap;
    }
    v->data[v->length++] = item;
}

static GumboVector *children_of(GumboNode *n)
{
    return n->type == GUMBO_NODE_DOCUMENT ? &n->v.document.children : &n->v.element.children;
}

static void append(builder *b, GumboNode *parent, GumboNode *child)
{
    GumboVector *kids = children_of(parent);
    child->parent = parent;
    child->index_within_parent = kids->length;
    vector_push(b, kids, child);
}

static int is_ws(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r';
}

/* Adds the tag's attributes NODE lacks (duplicates: the first wins), names lower-cased and
 * values decoded. */
static void add_attrs(builder *b, GumboNode *node, const rc_htmltok_tag *t)
{
    GumboVector *v = &node->v.element.attributes;
    for (size_t i = 0; i < t->nattrs; i++) {
        const rc_htmltok_attr *a = &t->attrs[i];
        rc_buf_reset(&b->text);
        for (size_t k = a->name_from; k < a->name_to; k++) {
            char c = b->s[k];
            rc_buf_putc(&b->text, c >= 'A' && c <= 'Z' ? (char)(c + 32) : c);
        }
        rc_buf_putc(&b->text, '\0');
        if (gumbo_get_attribute(v, b->text.ptr))
            continue;
        GumboAttribute *at = zalloc(b, sizeof(*at));
        at->attr_namespace = GUMBO_ATTR_NAMESPACE_NONE;
        at->name = copy(b, b->text.ptr, b->text.len - 1);
        at->original_name = (GumboStringPiece){b->s + a->name_from, a->name_to - a->name_from};
        rc_buf_reset(&b->text);
        rc_htmltok_decode(b->s, a->value_from, a->value_to, RC_HTMLTOK_DATA, 1, &b->text);
        at->value = copy(b, b->text.ptr ? b->text.ptr : "", b->text.len);
        at->original_value = (GumboStringPiece){b->s + a->value_from, a->value_to - a->value_from};
        at->name_start.offset = (unsigned)a->name_from;
        at->value_start.offset = (unsigned)a->value_from;
        vector_push(b, v, at);
    }
    rc_buf_reset(&b->text);
}

static GumboNode *element_new(builder *b, GumboTag tag, GumboNamespaceEnum ns, const rc_htmltok_tag *t)
{
    GumboNode *node = zalloc(b, sizeof(*node));
    node->type = tag == GUMBO_TAG_TEMPLATE && ns == GUMBO_NAMESPACE_HTML ? GUMBO_NODE_TEMPLATE : GUMBO_NODE_ELEMENT;
    GumboElement *el = &node->v.element;
    el->tag = tag;
    el->tag_namespace = ns;
    if (t) {
        el->original_tag = (GumboStringPiece){b->s + t->from, t->to - t->from};
        el->start_pos.offset = (unsigned)t->from;
        add_attrs(b, node, t);
    } else {
        node->parse_flags = GUMBO_INSERTION_BY_PARSER | GUMBO_INSERTION_IMPLIED;
    }
    return node;
}

/* ---- the stack of open elements ---- */

static GumboNode *current(const builder *b)
{
    return b->depth ? b->stack[b->depth - 1].node : b->document;
}

static int is_html(const GumboNode *n, GumboTag tag)
{
    return n->type != GUMBO_NODE_DOCUMENT && n->v.element.tag == tag &&
           n->v.element.tag_namespace == GUMBO_NAMESPACE_HTML;
}

static int cur_is(const builder *b, GumboTag tag)
{
    return b->depth && is_html(current(b), tag);
}

/* Pushes NODE (already appended); 0 when the stack is full and NODE stays closed. */
static int push(builder *b, GumboNode *node, const char *name)
{
    if (b->depth == MAX_DEPTH)
        return 0;
    open_el *o = &b->stack[b->depth++];
    o->node = node;
    memset(o->name, 0, NAME_CAP);
    memcpy(o->name, name, strnlen(name, NAME_CAP - 1));
    if (node->v.element.tag_namespace == GUMBO_NAMESPACE_HTML)
        b->count[node->v.element.tag]++;
    return 1;
}

static void pop(builder *b)
{
    GumboNode *node = b->stack[--b->depth].node;
    if (node->v.element.tag_namespace == GUMBO_NAMESPACE_HTML)
        b->count[node->v.element.tag]--;
}

/* Pops up to and including the element at index K. */
static void pop_to_index(builder *b, size_t k)
{
    while (b->depth > k)
        pop(b);
}

/* Pops until an HTML element TAG has been popped (it must be open). */
static void pop_to(builder *b, GumboTag tag)
{
    while (b->depth) {
        int found = cur_is(b, tag);
        pop(b);
        if (found)
            return;
    }
}

static int is_heading(GumboTag t)
{
    return t >= GUMBO_TAG_H1 && t <= GUMBO_TAG_H6;
}

/* "Generate implied end tags", except for EXCEPT. */
static void implied_end_tags(builder *b, GumboTag except)
{
    static const GumboTag implied[] = {GUMBO_TAG_DD, GUMBO_TAG_DT, GUMBO_TAG_LI, GUMBO_TAG_OPTGROUP, GUMBO_TAG_OPTION,
                                       GUMBO_TAG_P,  GUMBO_TAG_RB, GUMBO_TAG_RP, GUMBO_TAG_RT,       GUMBO_TAG_RTC};
    for (;;) {
        int more = 0;
        for (size_t i = 0; i < RC_ARRAY_LEN(implied) && !more; i++)
            more = implied[i] != except && cur_is(b, implied[i]);
        if (!more)
            return;
        pop(b);
    }
}

/* ---- scopes ---- */

enum scope { S_DEFAULT, S_LIST, S_BUTTON, S_TABLE };

static int in_tag_set(GumboTag t, const GumboTag *set, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (set[i] == t)
            return 1;
    return 0;
}

/* Whether N ends a scope of kind SC ("has an element in the specific scope"). */
static int scope_marker(const GumboNode *n, enum scope sc)
{
    static const GumboTag html_markers[] = {GUMBO_TAG_APPLET,  GUMBO_TAG_CAPTION, GUMBO_TAG_HTML,
                                            GUMBO_TAG_TABLE,   GUMBO_TAG_TD,      GUMBO_TAG_TH,
                                            GUMBO_TAG_MARQUEE, GUMBO_TAG_OBJECT,  GUMBO_TAG_TEMPLATE};
    const GumboElement *el = &n->v.element;
    GumboTag t = el->tag;
    if (el->tag_namespace == GUMBO_NAMESPACE_MATHML)
        return t == GUMBO_TAG_MI || t == GUMBO_TAG_MO || t == GUMBO_TAG_MN || t == GUMBO_TAG_MS ||
               t == GUMBO_TAG_MTEXT || t == GUMBO_TAG_ANNOTATION_XML;
    if (el->tag_namespace == GUMBO_NAMESPACE_SVG)
        return t == GUMBO_TAG_FOREIGNOBJECT || t == GUMBO_TAG_DESC || t == GUMBO_TAG_TITLE;
    if (sc == S_TABLE)
        return t == GUMBO_TAG_HTML || t == GUMBO_TAG_TABLE || t == GUMBO_TAG_TEMPLATE;
    if (sc == S_LIST && (t == GUMBO_TAG_OL || t == GUMBO_TAG_UL))
        return 1;
    if (sc == S_BUTTON && t == GUMBO_TAG_BUTTON)
        return 1;
    return in_tag_set(t, html_markers, RC_ARRAY_LEN(html_markers));
}

/* The stack index of the nearest open HTML element whose tag is in SET and that is in scope SC,
 * or -1. */
static long find_in_scope(const builder *b, const GumboTag *set, size_t nset, enum scope sc)
{
    unsigned open = 0;
    for (size_t i = 0; i < nset; i++)
        open += b->count[set[i]];
    if (!open)
        return -1;
    for (size_t k = b->depth; k > 0; k--) {
        const GumboNode *n = b->stack[k - 1].node;
        if (n->v.element.tag_namespace == GUMBO_NAMESPACE_HTML && in_tag_set(n->v.element.tag, set, nset))
            return (long)k - 1;
        if (scope_marker(n, sc))
            return -1;
    }
    return -1;
}

static long tag_in_scope(const builder *b, GumboTag tag, enum scope sc)
{
    return find_in_scope(b, &tag, 1, sc);
}

/* "Close a p element" when one is in button scope. */
static void close_p(builder *b)
{
    if (tag_in_scope(b, GUMBO_TAG_P, S_BUTTON) < 0)
        return;
    implied_end_tags(b, GUMBO_TAG_P);
    pop_to(b, GUMBO_TAG_P);
}

/* ---- html, head, body ---- */

static void ensure_html(builder *b)
{
    if (b->html)
        return;
    b->html = element_new(b, GUMBO_TAG_HTML, GUMBO_NAMESPACE_HTML, NULL);
    append(b, b->document, b->html);
    push(b, b->html, "html");
}

/* Head or body (T, or implied when NULL): a child of html, the only element open in it. */
static GumboNode *open_in_html(builder *b, GumboTag tag, const char *name, const rc_htmltok_tag *t)
{
    GumboNode *node = element_new(b, tag, GUMBO_NAMESPACE_HTML, t);
    append(b, b->html, node);
    pop_to_index(b, 1);
    push(b, node, name);
    return node;
}

static void ensure_head(builder *b)
{
    ensure_html(b);
    if (b->head)
        return;
    b->head = open_in_html(b, GUMBO_TAG_HEAD, "head", NULL);
    b->mode = M_IN_HEAD;
}

static void close_head(builder *b)
{
    if (b->mode == M_IN_HEAD && b->count[GUMBO_TAG_HEAD])
        pop_to(b, GUMBO_TAG_HEAD);
    b->mode = M_AFTER_HEAD;
}

/* Opens the body (the <body> tag T, or implied when NULL), closing the head. */
static void open_body(builder *b, const rc_htmltok_tag *t)
{
    ensure_head(b);
    close_head(b);
    b->body = open_in_html(b, GUMBO_TAG_BODY, "body", t);
    b->mode = M_IN_BODY;
}

/* ---- text ---- */

static void flush_text(builder *b)
{
    if (!b->text_parent)
        return;
    if (b->text.len > 0) {
        GumboNode *node = zalloc(b, sizeof(*node));
        int ws = 1;
        for (size_t i = 0; i < b->text.len && ws; i++)
            ws = is_ws(b->text.ptr[i]);
        node->type = b->text_cdata ? GUMBO_NODE_CDATA : ws ? GUMBO_NODE_WHITESPACE : GUMBO_NODE_TEXT;
        node->v.text.text = copy(b, b->text.ptr, b->text.len);
        node->v.text.original_text = (GumboStringPiece){b->s + b->text_from, b->text_to - b->text_from};
        node->v.text.start_pos.offset = (unsigned)b->text_from;
        append(b, b->text_parent, node);
    }
    rc_buf_reset(&b->text);
    b->text_parent = NULL;
}

/* Decoded text of S[FROM..TO) read in STATE, appended to PARENT's pending text node. */
static void add_text(builder *b, GumboNode *parent, size_t from, size_t to, int state)
{
    int cdata = state == RC_HTMLTOK_CDATA_TEXT;
    if (b->text_parent != parent || b->text_cdata != cdata)
        flush_text(b);
    if (!b->text_parent) {
        b->text_parent = parent;
        b->text_from = from;
        b->text_cdata = cdata;
    }
    b->text_to = to;
    size_t before = b->text.len;
    if (state == RC_HTMLTOK_DATA) { /* NUL in data is dropped by the "in body" rules */
        for (size_t i = from; i < to;) {
            const char *z = memchr(b->s + i, '\0', to - i);
            size_t e = z ? (size_t)(z - b->s) : to;
            rc_htmltok_decode(b->s, i, e, state, 0, &b->text);
            i = e + 1;
        }
    } else {
        rc_htmltok_decode(b->s, from, to, state == RC_HTMLTOK_CDATA_TEXT ? RC_HTMLTOK_RAWTEXT : state, 0, &b->text);
    }
    if (b->skip_lf && before == 0 && b->text.len > 0 && b->text.ptr[0] == '\n') {
        memmove(b->text.ptr, b->text.ptr + 1, b->text.len - 1);
        b->text.len--;
    }
    b->skip_lf = 0;
}

static void on_text(void *ud, size_t from, size_t to, int state)
{
    builder *b = ud;
    if (b->skip_text && (state == RC_HTMLTOK_SCRIPT || state == RC_HTMLTOK_RAWTEXT))
        return;
    GumboNode *cur = current(b);
    if (!b->body && state == RC_HTMLTOK_DATA && (!b->html || cur == b->html || cur == b->head)) {
        size_t k = from; /* leading whitespace stays in head (or html after it); the rest opens body */
        while (k < to && is_ws(b->s[k]))
            k++;
        if (k > from && b->html)
            add_text(b, cur, from, k, state);
        if (k == to)
            return;
        open_body(b, NULL);
        from = k;
    }
    add_text(b, current(b), from, to, state);
}

/* ---- comments, doctype ---- */

static void on_markup(void *ud, int kind, size_t from, size_t to)
{
    builder *b = ud;
    flush_text(b);
    if (kind == RC_HTMLTOK_DOCTYPE) {
        if (!b->html)
            b->document->v.document.has_doctype = true;
        return;
    }
    GumboNode *node = zalloc(b, sizeof(*node));
    node->type = GUMBO_NODE_COMMENT;
    rc_buf_reset(&b->text);
    rc_htmltok_decode(b->s, from, to, RC_HTMLTOK_RAWTEXT, 0, &b->text);
    node->v.text.text = copy(b, b->text.ptr ? b->text.ptr : "", b->text.len);
    node->v.text.original_text = (GumboStringPiece){b->s + from, to - from};
    node->v.text.start_pos.offset = (unsigned)from;
    rc_buf_reset(&b->text);
    append(b, current(b), node);
}

static int on_foreign(void *ud)
{
    const builder *b = ud;
    return b->depth && current(b)->v.element.tag_namespace != GUMBO_NAMESPACE_HTML;
}

/* ---- tags ---- */

enum {
    F_SPECIAL = 1,    /* "special" elements: an unmatched end tag does not pass them */
    F_VOID = 2,       /* never open */
    F_CLOSES_P = 4,   /* a start tag that closes an open p in button scope */
    F_HEAD = 8,       /* goes in head before the body */
    F_END_SCOPE = 16, /* its end tag closes it when it is in (default) scope */
    F_END_TABLE = 32, /* ... in table scope */
    F_BREAKOUT = 64,  /* leaves svg/math */
};

#define SP F_SPECIAL
static const unsigned char tag_flags[GUMBO_TAG_LAST + 1] = {
    [GUMBO_TAG_ADDRESS] = SP | F_CLOSES_P | F_END_SCOPE,
    [GUMBO_TAG_APPLET] = SP | F_END_SCOPE,
    [GUMBO_TAG_AREA] = SP | F_VOID,
    [GUMBO_TAG_ARTICLE] = SP | F_CLOSES_P | F_END_SCOPE,
    [GUMBO_TAG_ASIDE] = SP | F_CLOSES_P | F_END_SCOPE,
    [GUMBO_TAG_B] = F_BREAKOUT,
    [GUMBO_TAG_BASE] = SP | F_VOID | F_HEAD,
    [GUMBO_TAG_BASEFONT] = SP | F_VOID | F_HEAD,
    [GUMBO_TAG_BGSOUND] = SP | F_VOID | F_HEAD,
    [GUMBO_TAG_BIG] = F_BREAKOUT,
    [GUMBO_TAG_BLOCKQUOTE] = SP | F_CLOSES_P | F_END_SCOPE | F_BREAKOUT,
    [GUMBO_TAG_BODY] = SP | F_BREAKOUT,
    [GUMBO_TAG_BR] = SP | F_VOID | F_BREAKOUT,
    [GUMBO_TAG_BUTTON] = SP | F_END_SCOPE,
    [GUMBO_TAG_CAPTION] = SP | F_END_TABLE,
    [GUMBO_TAG_CENTER] = SP | F_CLOSES_P | F_END_SCOPE | F_BREAKOUT,
    [GUMBO_TAG_CODE] = F_BREAKOUT,
    [GUMBO_TAG_COL] = SP | F_VOID,
    [GUMBO_TAG_COLGROUP] = SP | F_END_TABLE,
    [GUMBO_TAG_DD] = SP | F_END_SCOPE | F_BREAKOUT,
    [GUMBO_TAG_DETAILS] = SP | F_CLOSES_P | F_END_SCOPE,
    [GUMBO_TAG_DIR] = SP | F_CLOSES_P | F_END_SCOPE,
    [GUMBO_TAG_DIV] = SP | F_CLOSES_P | F_END_SCOPE | F_BREAKOUT,
    [GUMBO_TAG_DL] = SP | F_CLOSES_P | F_END_SCOPE | F_BREAKOUT,
    [GUMBO_TAG_DT] = SP | F_END_SCOPE | F_BREAKOUT,
    [GUMBO_TAG_EM] = F_BREAKOUT,
    [GUMBO_TAG_EMBED] = SP | F_VOID | F_BREAKOUT,
    [GUMBO_TAG_FIELDSET] = SP | F_CLOSES_P | F_END_SCOPE,
    [GUMBO_TAG_FIGCAPTION] = SP | F_CLOSES_P | F_END_SCOPE,
    [GUMBO_TAG_FIGURE] = SP | F_CLOSES_P | F_END_SCOPE,
    [GUMBO_TAG_FOOTER] = SP | F_CLOSES_P | F_END_SCOPE,
    [GUMBO_TAG_FORM] = SP | F_CLOSES_P | F_END_SCOPE,
    [GUMBO_TAG_FRAME] = SP | F_VOID,
    [GUMBO_TAG_FRAMESET] = SP,
    [GUMBO_TAG_H1] = SP | F_CLOSES_P | F_BREAKOUT,
    [GUMBO_TAG_H2] = SP | F_CLOSES_P | F_BREAKOUT,
    [GUMBO_TAG_H3] = SP | F_CLOSES_P | F_BREAKOUT,
    [GUMBO_TAG_H4] = SP | F_CLOSES_P | F_BREAKOUT,
    [GUMBO_TAG_H5] = SP | F_CLOSES_P | F_BREAKOUT,
    [GUMBO_TAG_H6] = SP | F_CLOSES_P | F_BREAKOUT,
    [GUMBO_TAG_HEAD] = SP | F_BREAKOUT,
    [GUMBO_TAG_HEADER] = SP | F_CLOSES_P | F_END_SCOPE,
    [GUMBO_TAG_HGROUP] = SP | F_CLOSES_P | F_END_SCOPE,
    [GUMBO_TAG_HR] = SP | F_VOID | F_CLOSES_P | F_BREAKOUT,
    [GUMBO_TAG_HTML] = SP,
    [GUMBO_TAG_I] = F_BREAKOUT,
    [GUMBO_TAG_IFRAME] = SP,
    [GUMBO_TAG_IMG] = SP | F_VOID | F_BREAKOUT,
    [GUMBO_TAG_IMAGE] = SP | F_VOID,
    [GUMBO_TAG_INPUT] = SP | F_VOID,
    [GUMBO_TAG_KEYGEN] = SP | F_VOID,
    [GUMBO_TAG_LI] = SP | F_BREAKOUT,
    [GUMBO_TAG_LINK] = SP | F_VOID | F_HEAD,
    [GUMBO_TAG_LISTING] = SP | F_CLOSES_P | F_END_SCOPE | F_BREAKOUT,
    [GUMBO_TAG_MAIN] = SP | F_CLOSES_P | F_END_SCOPE,
    [GUMBO_TAG_MARQUEE] = SP | F_END_SCOPE,
    [GUMBO_TAG_MENU] = SP | F_CLOSES_P | F_END_SCOPE | F_BREAKOUT,
    [GUMBO_TAG_META] = SP | F_VOID | F_HEAD | F_BREAKOUT,
    [GUMBO_TAG_NAV] = SP | F_CLOSES_P | F_END_SCOPE,
    [GUMBO_TAG_NOBR] = F_BREAKOUT,
    [GUMBO_TAG_NOEMBED] = SP,
    [GUMBO_TAG_NOFRAMES] = SP | F_HEAD,
    [GUMBO_TAG_NOSCRIPT] = SP | F_HEAD,
    [GUMBO_TAG_OBJECT] = SP | F_END_SCOPE,
    [GUMBO_TAG_OL] = SP | F_CLOSES_P | F_END_SCOPE | F_BREAKOUT,
    [GUMBO_TAG_P] = SP | F_CLOSES_P | F_BREAKOUT,
    [GUMBO_TAG_PARAM] = SP | F_VOID,
    [GUMBO_TAG_PLAINTEXT] = SP | F_CLOSES_P,
    [GUMBO_TAG_PRE] = SP | F_CLOSES_P | F_END_SCOPE | F_BREAKOUT,
    [GUMBO_TAG_RUBY] = F_BREAKOUT,
    [GUMBO_TAG_S] = F_BREAKOUT,
    [GUMBO_TAG_SCRIPT] = SP | F_HEAD,
    [GUMBO_TAG_SECTION] = SP | F_CLOSES_P | F_END_SCOPE,
    [GUMBO_TAG_SELECT] = SP,
    [GUMBO_TAG_SMALL] = F_BREAKOUT,
    [GUMBO_TAG_SOURCE] = SP | F_VOID,
    [GUMBO_TAG_SPAN] = F_BREAKOUT,
    [GUMBO_TAG_STRIKE] = F_BREAKOUT,
    [GUMBO_TAG_STRONG] = F_BREAKOUT,
    [GUMBO_TAG_STYLE] = SP | F_HEAD,
    [GUMBO_TAG_SUB] = F_BREAKOUT,
    [GUMBO_TAG_SUMMARY] = SP | F_CLOSES_P | F_END_SCOPE,
    [GUMBO_TAG_SUP] = F_BREAKOUT,
    [GUMBO_TAG_TABLE] = SP | F_CLOSES_P | F_END_TABLE | F_BREAKOUT,
    [GUMBO_TAG_TBODY] = SP | F_END_TABLE,
    [GUMBO_TAG_TD] = SP | F_END_TABLE,
    [GUMBO_TAG_TEMPLATE] = SP | F_HEAD,
    [GUMBO_TAG_TEXTAREA] = SP,
    [GUMBO_TAG_TFOOT] = SP | F_END_TABLE,
    [GUMBO_TAG_TH] = SP | F_END_TABLE,
    [GUMBO_TAG_THEAD] = SP | F_END_TABLE,
    [GUMBO_TAG_TITLE] = SP | F_HEAD,
    [GUMBO_TAG_TR] = SP | F_END_TABLE,
    [GUMBO_TAG_TRACK] = SP | F_VOID,
    [GUMBO_TAG_TT] = F_BREAKOUT,
    [GUMBO_TAG_U] = F_BREAKOUT,
    [GUMBO_TAG_UL] = SP | F_CLOSES_P | F_END_SCOPE | F_BREAKOUT,
    [GUMBO_TAG_VAR] = F_BREAKOUT,
    [GUMBO_TAG_WBR] = SP | F_VOID,
    [GUMBO_TAG_XMP] = SP | F_CLOSES_P,
};
#undef SP

static int has(GumboTag tag, int flag)
{
    return (tag_flags[tag] & flag) != 0;
}

static int is_special(const GumboNode *n)
{
    const GumboElement *el = &n->v.element;
    if (el->tag_namespace == GUMBO_NAMESPACE_HTML)
        return has(el->tag, F_SPECIAL);
    return scope_marker(n, S_DEFAULT); /* the foreign special elements are the scope markers */
}

static int text_state(GumboTag tag)
{
    switch (tag) {
    case GUMBO_TAG_TITLE:
    case GUMBO_TAG_TEXTAREA:
        return RC_HTMLTOK_RCDATA;
    case GUMBO_TAG_STYLE:
    case GUMBO_TAG_XMP:
    case GUMBO_TAG_IFRAME:
    case GUMBO_TAG_NOEMBED:
    case GUMBO_TAG_NOFRAMES:
        return RC_HTMLTOK_RAWTEXT;
    case GUMBO_TAG_SCRIPT:
        return RC_HTMLTOK_SCRIPT;
    case GUMBO_TAG_PLAINTEXT:
        return RC_HTMLTOK_PLAINTEXT;
    default:
        return RC_HTMLTOK_DATA;
    }
}

/* "Any other end tag": closes the nearest open HTML element named NAME unless a special element
 * comes first. Also how an <a> or <nobr> closes an open one (the adoption agency, simplified). */
static void any_other_end(builder *b, const char *name, GumboTag tag)
{
    if (tag != GUMBO_TAG_UNKNOWN && !b->count[tag])
        return;
    for (size_t k = b->depth; k > 1; k--) {
        const open_el *o = &b->stack[k - 1];
        if (o->node->v.element.tag_namespace == GUMBO_NAMESPACE_HTML && strcmp(o->name, name) == 0) {
            implied_end_tags(b, tag);
            pop_to_index(b, k - 1);
            return;
        }
        if (is_special(o->node))
            return;
    }
}

static int is_formatting(GumboTag t)
{
    switch (t) {
    case GUMBO_TAG_A:
    case GUMBO_TAG_B:
    case GUMBO_TAG_BIG:
    case GUMBO_TAG_CODE:
    case GUMBO_TAG_EM:
    case GUMBO_TAG_FONT:
    case GUMBO_TAG_I:
    case GUMBO_TAG_NOBR:
    case GUMBO_TAG_S:
    case GUMBO_TAG_SMALL:
    case GUMBO_TAG_STRIKE:
    case GUMBO_TAG_STRONG:
    case GUMBO_TAG_TT:
    case GUMBO_TAG_U:
        return 1;
    default:
        return 0;
    }
}

/* Takes NODE (an open element: its parent's last child in practice) out of its parent. */
static void detach(GumboNode *node)
{
    GumboVector *kids = children_of(node->parent);
    for (size_t i = node->index_within_parent + 1; i < kids->length; i++) {
        GumboNode *k = kids->data[i];
        kids->data[i - 1] = k;
        k->index_within_parent = i - 1;
    }
    kids->length--;
    node->parent = NULL;
}

/* One round of the adoption agency: the formatting element at F, the furthest block at FB. The
 * block moves to the formatting element's parent, a clone of the formatting element (flagged as
 * gumbo flags its clones, so its href is not a second link) takes the block's children, and
 * stands for the formatting element on the stack, inside the block. Elements between the two
 * leave the stack (the spec clones the formatting ones among them; here they are not). */
static void adopt(builder *b, size_t f, size_t fb)
{
    GumboNode *fe = b->stack[f].node, *block = b->stack[fb].node;
    detach(block);
    append(b, b->stack[f - 1].node, block);
    GumboNode *clone = zalloc(b, sizeof(*clone));
    *clone = *fe;
    clone->parse_flags |= GUMBO_INSERTION_ADOPTION_AGENCY_CLONED;
    clone->v.element.children = block->v.element.children;
    for (unsigned i = 0; i < clone->v.element.children.length; i++)
        ((GumboNode *)clone->v.element.children.data[i])->parent = clone;
    memset(&block->v.element.children, 0, sizeof(block->v.element.children));
    append(b, block, clone);
    open_el fe_open = b->stack[f];
    for (size_t k = f; k < fb; k++)
        if (b->stack[k].node->v.element.tag_namespace == GUMBO_NAMESPACE_HTML)
            b->count[b->stack[k].node->v.element.tag]--;
    memmove(&b->stack[f], &b->stack[fb], (b->depth - fb) * sizeof(open_el));
    b->depth -= fb - f; /* the block is at F now */
    memmove(&b->stack[f + 2], &b->stack[f + 1], (b->depth - f - 1) * sizeof(open_el));
    fe_open.node = clone;
    b->stack[f + 1] = fe_open;
    b->depth++;
    b->count[fe->v.element.tag]++;
}

/* The adoption agency algorithm for an end tag of a formatting element (and a start tag <a> or
 * <nobr> while one is open), on the stack of open elements instead of the list of active
 * formatting elements: at most 8 rounds, as the spec's outer loop. */
static void adoption_agency(builder *b, GumboTag tag)
{
    for (int round = 0; round < 8; round++) {
        long f = tag_in_scope(b, tag, S_DEFAULT);
        if (f < 1)
            return; /* not open in scope: ignored */
        size_t fb = (size_t)f + 1;
        while (fb < b->depth && !is_special(b->stack[fb].node))
            fb++;
        if (fb == b->depth) { /* no block inside it: closed as usual */
            pop_to_index(b, (size_t)f);
            return;
        }
        if (b->depth == MAX_DEPTH)
            return; /* no room for the clone */
        adopt(b, (size_t)f, fb);
    }
}

/* An li (or dd/dt) start tag closes the open one unless a special element other than address,
 * div and p is in between. */
static void close_list_item(builder *b, GumboTag t1, GumboTag t2)
{
    if (!b->count[t1] && !b->count[t2])
        return;
    for (size_t k = b->depth; k > 1; k--) {
        const GumboNode *n = b->stack[k - 1].node;
        if (is_html(n, t1) || is_html(n, t2)) {
            implied_end_tags(b, n->v.element.tag);
            pop_to_index(b, k - 1);
            return;
        }
        if (is_special(n) && !is_html(n, GUMBO_TAG_ADDRESS) && !is_html(n, GUMBO_TAG_DIV) && !is_html(n, GUMBO_TAG_P))
            return;
    }
}

/* Pops until the current node is an HTML element in STOP (html and template always stop). */
static void clear_to(builder *b, const GumboTag *stop, size_t n)
{
    while (b->depth > 1) {
        const GumboNode *cur = current(b);
        if (cur->v.element.tag_namespace == GUMBO_NAMESPACE_HTML &&
            (in_tag_set(cur->v.element.tag, stop, n) || cur->v.element.tag == GUMBO_TAG_TEMPLATE))
            return;
        pop(b);
    }
}

static void insert_implied(builder *b, GumboTag tag, const char *name)
{
    GumboNode *node = element_new(b, tag, GUMBO_NAMESPACE_HTML, NULL);
    append(b, current(b), node);
    push(b, node, name);
}

/* Table structure before a table part's start tag: closes what it ends, adds implied tbody and
 * tr. 0 when the tag is dropped (no table open). */
static int table_start(builder *b, GumboTag tag)
{
    static const GumboTag table_ctx[] = {GUMBO_TAG_TABLE};
    static const GumboTag body_ctx[] = {GUMBO_TAG_TABLE, GUMBO_TAG_TBODY, GUMBO_TAG_THEAD, GUMBO_TAG_TFOOT};
    static const GumboTag row_ctx[] = {GUMBO_TAG_TABLE, GUMBO_TAG_TBODY, GUMBO_TAG_THEAD, GUMBO_TAG_TFOOT,
                                       GUMBO_TAG_TR};
    static const GumboTag cells[] = {GUMBO_TAG_TD, GUMBO_TAG_TH};
    if (!b->count[GUMBO_TAG_TABLE])
        return 0;
    if (tag == GUMBO_TAG_TD || tag == GUMBO_TAG_TH || tag == GUMBO_TAG_TR) {
        long k = find_in_scope(b, cells, RC_ARRAY_LEN(cells), S_TABLE);
        if (k >= 0)
            pop_to_index(b, (size_t)k);
    }
    if (tag == GUMBO_TAG_TD || tag == GUMBO_TAG_TH) {
        clear_to(b, row_ctx, RC_ARRAY_LEN(row_ctx));
        if (cur_is(b, GUMBO_TAG_TABLE))
            insert_implied(b, GUMBO_TAG_TBODY, "tbody");
        if (!cur_is(b, GUMBO_TAG_TR))
            insert_implied(b, GUMBO_TAG_TR, "tr");
    } else if (tag == GUMBO_TAG_TR) {
        clear_to(b, body_ctx, RC_ARRAY_LEN(body_ctx));
        if (cur_is(b, GUMBO_TAG_TABLE))
            insert_implied(b, GUMBO_TAG_TBODY, "tbody");
    } else if (tag != GUMBO_TAG_COL || !cur_is(b, GUMBO_TAG_COLGROUP)) {
        clear_to(b, table_ctx, RC_ARRAY_LEN(table_ctx));
    }
    return 1;
}

static int is_table_part(GumboTag tag)
{
    return tag == GUMBO_TAG_CAPTION || tag == GUMBO_TAG_COL || tag == GUMBO_TAG_COLGROUP || tag == GUMBO_TAG_TBODY ||
           tag == GUMBO_TAG_THEAD || tag == GUMBO_TAG_TFOOT || tag == GUMBO_TAG_TR || tag == GUMBO_TAG_TD ||
           tag == GUMBO_TAG_TH;
}

/* In a select only option, optgroup, script, template and html start tags count; select closes
 * it, input/keygen/textarea (and table parts in a table) close it first. 1: TAG is dropped. */
static int select_drops(builder *b, GumboTag tag)
{
    switch (tag) {
    case GUMBO_TAG_OPTION:
    case GUMBO_TAG_OPTGROUP:
    case GUMBO_TAG_SCRIPT:
    case GUMBO_TAG_TEMPLATE:
    case GUMBO_TAG_HTML:
        return 0;
    case GUMBO_TAG_SELECT:
        pop_to(b, GUMBO_TAG_SELECT);
        return 1;
    case GUMBO_TAG_INPUT:
    case GUMBO_TAG_KEYGEN:
    case GUMBO_TAG_TEXTAREA:
        pop_to(b, GUMBO_TAG_SELECT);
        return 0;
    default:
        if ((is_table_part(tag) || tag == GUMBO_TAG_TABLE) && b->count[GUMBO_TAG_TABLE]) {
            pop_to(b, GUMBO_TAG_SELECT);
            return 0;
        }
        return 1;
    }
}

/* What a start tag closes before it is inserted (implied end tags). 0: the tag is dropped. */
static int close_before(builder *b, const rc_htmltok_tag *t, GumboTag tag)
{
    if (has(tag, F_CLOSES_P))
        close_p(b);
    switch (tag) {
    case GUMBO_TAG_LI:
        close_list_item(b, GUMBO_TAG_LI, GUMBO_TAG_LI);
        break;
    case GUMBO_TAG_DD:
    case GUMBO_TAG_DT:
        close_list_item(b, GUMBO_TAG_DD, GUMBO_TAG_DT);
        break;
    case GUMBO_TAG_OPTGROUP:
    case GUMBO_TAG_OPTION:
        if (cur_is(b, GUMBO_TAG_OPTION))
            pop(b);
        if (tag == GUMBO_TAG_OPTGROUP && cur_is(b, GUMBO_TAG_OPTGROUP))
            pop(b);
        break;
    case GUMBO_TAG_A:
    case GUMBO_TAG_NOBR:
        adoption_agency(b, tag);
        break;
    case GUMBO_TAG_BUTTON: {
        long k = tag_in_scope(b, GUMBO_TAG_BUTTON, S_DEFAULT);
        if (k >= 0)
            pop_to_index(b, (size_t)k);
        break;
    }
    case GUMBO_TAG_FORM:
        return !b->count[GUMBO_TAG_FORM] || b->count[GUMBO_TAG_TEMPLATE];
    case GUMBO_TAG_TABLE:
        if (b->count[GUMBO_TAG_TABLE] &&
            (cur_is(b, GUMBO_TAG_TABLE) || cur_is(b, GUMBO_TAG_TBODY) || cur_is(b, GUMBO_TAG_THEAD) ||
             cur_is(b, GUMBO_TAG_TFOOT) || cur_is(b, GUMBO_TAG_TR)))
            pop_to(b, GUMBO_TAG_TABLE); /* a table where only table parts go closes the open one */
        break;
    default:
        if (is_heading(tag) && b->depth && is_heading(current(b)->v.element.tag) &&
            current(b)->v.element.tag_namespace == GUMBO_NAMESPACE_HTML)
            pop(b);
        else if (is_table_part(tag))
            return table_start(b, tag);
        break;
    }
    return 1;
}

static int is_jsonld(const GumboNode *node)
{
    const GumboAttribute *a = gumbo_get_attribute(&node->v.element.attributes, "type");
    return a && rc_html_value_is(a->value, "application/ld+json");
}

/* Inserts an element TAG in namespace NS at the current node; returns the tokenizer's next
 * state. */
static int insert(builder *b, const rc_htmltok_tag *t, GumboTag tag, GumboNamespaceEnum ns)
{
    GumboNode *parent = current(b);
    if (parent == b->html && b->head && !b->body)
        parent = b->head; /* a head element after </head> still goes in head */
    GumboNode *node = element_new(b, tag, ns, t);
    append(b, parent, node);
    if (ns != GUMBO_NAMESPACE_HTML) {
        if (!t->self_closing)
            push(b, node, t->name);
        return RC_HTMLTOK_DATA;
    }
    if (has(tag, F_VOID))
        return RC_HTMLTOK_DATA;
    push(b, node, t->name);
    b->skip_lf = tag == GUMBO_TAG_PRE || tag == GUMBO_TAG_LISTING || tag == GUMBO_TAG_TEXTAREA;
    b->skip_text = b->skip_script_text && (tag == GUMBO_TAG_STYLE || (tag == GUMBO_TAG_SCRIPT && !is_jsonld(node)));
    return text_state(tag);
}

/* The html, head and body start tags, and whether another start tag belongs in head or opens
 * the body. 1: handled. */
static int before_body(builder *b, const rc_htmltok_tag *t, GumboTag tag)
{
    if ((tag == GUMBO_TAG_HTML || tag == GUMBO_TAG_BODY) && b->count[GUMBO_TAG_TEMPLATE])
        return 1; /* ignored inside a template */
    if (tag == GUMBO_TAG_HTML) {
        ensure_html(b);
        add_attrs(b, b->html, t);
        return 1;
    }
    if (tag == GUMBO_TAG_BODY) {
        if (b->body)
            add_attrs(b, b->body, t);
        else
            open_body(b, t);
        return 1;
    }
    if (tag == GUMBO_TAG_HEAD) { /* only the first, before the body */
        if (!b->body && !b->count[GUMBO_TAG_TEMPLATE])
            ensure_head(b);
        return 1;
    }
    if (b->body || b->count[GUMBO_TAG_TEMPLATE])
        return 0;
    if (has(tag, F_HEAD))
        ensure_head(b);
    else
        open_body(b, NULL);
    return 0;
}

static int html_start(builder *b, const rc_htmltok_tag *t, GumboTag tag)
{
    if (tag == GUMBO_TAG_IMAGE)
        tag = GUMBO_TAG_IMG;
    if (before_body(b, t, tag))
        return RC_HTMLTOK_DATA;
    if (b->count[GUMBO_TAG_SELECT] && select_drops(b, tag))
        return RC_HTMLTOK_DATA;
    if (!close_before(b, t, tag))
        return RC_HTMLTOK_DATA;
    if (tag == GUMBO_TAG_SVG || tag == GUMBO_TAG_MATH)
        return insert(b, t, tag, tag == GUMBO_TAG_SVG ? GUMBO_NAMESPACE_SVG : GUMBO_NAMESPACE_MATHML);
    return insert(b, t, tag, GUMBO_NAMESPACE_HTML);
}

/* ---- foreign content ---- */

static int html_integration_point(const GumboNode *n)
{
    const GumboElement *el = &n->v.element;
    if (el->tag_namespace == GUMBO_NAMESPACE_SVG)
        return el->tag == GUMBO_TAG_FOREIGNOBJECT || el->tag == GUMBO_TAG_DESC || el->tag == GUMBO_TAG_TITLE;
    if (el->tag_namespace != GUMBO_NAMESPACE_MATHML || el->tag != GUMBO_TAG_ANNOTATION_XML)
        return 0;
    const GumboAttribute *enc = gumbo_get_attribute(&el->attributes, "encoding");
    return enc && (rc_html_value_is(enc->value, "text/html") || rc_html_value_is(enc->value, "application/xhtml+xml"));
}

static int text_integration_point(const GumboNode *n)
{
    GumboTag t = n->v.element.tag;
    return n->v.element.tag_namespace == GUMBO_NAMESPACE_MATHML &&
           (t == GUMBO_TAG_MI || t == GUMBO_TAG_MO || t == GUMBO_TAG_MN || t == GUMBO_TAG_MS || t == GUMBO_TAG_MTEXT);
}

static int breaks_out(const builder *b, const rc_htmltok_tag *t, GumboTag tag)
{
    if (tag != GUMBO_TAG_FONT)
        return has(tag, F_BREAKOUT);
    for (size_t i = 0; i < t->nattrs; i++) { /* a font with color, face or size */
        const char *nm = b->s + t->attrs[i].name_from;
        size_t len = t->attrs[i].name_to - t->attrs[i].name_from;
        if ((len == 5 && strncasecmp(nm, "color", 5) == 0) || (len == 4 && strncasecmp(nm, "face", 4) == 0) ||
            (len == 4 && strncasecmp(nm, "size", 4) == 0))
            return 1;
    }
    return 0;
}

/* Whether a start tag with the current node foreign goes by the HTML rules (popping out of
 * svg/math for a breakout tag) rather than being a foreign element. */
static int html_rules_apply(builder *b, const rc_htmltok_tag *t, GumboTag tag)
{
    const GumboNode *cur = current(b);
    if (html_integration_point(cur))
        return 1;
    if (text_integration_point(cur) && tag != GUMBO_TAG_MGLYPH && tag != GUMBO_TAG_MALIGNMARK)
        return 1;
    if (!breaks_out(b, t, tag))
        return 0;
    while (b->depth > 1 && current(b)->v.element.tag_namespace != GUMBO_NAMESPACE_HTML &&
           !html_integration_point(current(b)) && !text_integration_point(current(b)))
        pop(b);
    return 1;
}

static int on_start(builder *b, const rc_htmltok_tag *t)
{
    GumboTag tag = gumbo_tagn_enum(t->name, (unsigned)strlen(t->name));
    if (on_foreign(b) && !html_rules_apply(b, t, tag)) {
        GumboNamespaceEnum ns = current(b)->v.element.tag_namespace;
        if (tag == GUMBO_TAG_SVG || tag == GUMBO_TAG_MATH)
            ns = tag == GUMBO_TAG_SVG ? GUMBO_NAMESPACE_SVG : GUMBO_NAMESPACE_MATHML;
        return insert(b, t, tag, ns);
    }
    return html_start(b, t, tag);
}

/* ---- end tags ---- */

/* Foreign rules: the nearest open element of that name while they are foreign. 1: handled. */
static int foreign_end(builder *b, const rc_htmltok_tag *t)
{
    for (size_t k = b->depth; k > 1; k--) {
        const open_el *o = &b->stack[k - 1];
        if (o->node->v.element.tag_namespace == GUMBO_NAMESPACE_HTML)
            return 0;
        if (strcmp(o->name, t->name) == 0) {
            pop_to_index(b, k - 1);
            return 1;
        }
    }
    return 0;
}

/* </p> with no p in button scope makes an empty one. */
static void end_p(builder *b, const rc_htmltok_tag *t)
{
    if (tag_in_scope(b, GUMBO_TAG_P, S_BUTTON) < 0) {
        html_start(b, t, GUMBO_TAG_P);
        if (cur_is(b, GUMBO_TAG_P))
            pop(b);
        return;
    }
    close_p(b);
}

/* An end tag of an element that closes when in SCOPE: closes it, or nothing. */
static void end_in_scope(builder *b, GumboTag tag, enum scope sc)
{
    static const GumboTag headings[] = {GUMBO_TAG_H1, GUMBO_TAG_H2, GUMBO_TAG_H3,
                                        GUMBO_TAG_H4, GUMBO_TAG_H5, GUMBO_TAG_H6};
    long k = is_heading(tag) ? find_in_scope(b, headings, RC_ARRAY_LEN(headings), sc) : tag_in_scope(b, tag, sc);
    if (k < 0)
        return;
    implied_end_tags(b, tag);
    pop_to_index(b, (size_t)k);
}

/* In a select only option, optgroup, select and template end tags count (and table parts, which
 * close a select in a table first). 1: TAG is ignored. */
static int select_ignores_end(builder *b, GumboTag tag)
{
    if (tag == GUMBO_TAG_OPTION || tag == GUMBO_TAG_OPTGROUP || tag == GUMBO_TAG_SELECT || tag == GUMBO_TAG_TEMPLATE)
        return 0;
    if ((is_table_part(tag) || tag == GUMBO_TAG_TABLE) && b->count[GUMBO_TAG_TABLE] && b->count[tag]) {
        pop_to(b, GUMBO_TAG_SELECT);
        return 0;
    }
    return 1;
}

static void on_end(builder *b, const rc_htmltok_tag *t)
{
    GumboTag tag = gumbo_tagn_enum(t->name, (unsigned)strlen(t->name));
    if (on_foreign(b) && foreign_end(b, t))
        return;
    if (b->count[GUMBO_TAG_SELECT] && !on_foreign(b) && select_ignores_end(b, tag))
        return;
    if (tag == GUMBO_TAG_HTML || tag == GUMBO_TAG_BODY)
        return; /* "after body" goes on in the body */
    if (tag == GUMBO_TAG_HEAD) {
        if (!b->body)
            close_head(b);
        return;
    }
    if (tag == GUMBO_TAG_BR) {
        html_start(b, t, GUMBO_TAG_BR);
        return;
    }
    if (!b->body && !b->count[GUMBO_TAG_TEMPLATE]) { /* in head: only what is open closes */
        if (b->depth > 1 && strcmp(b->stack[b->depth - 1].name, t->name) == 0)
            pop(b);
        return;
    }
    if (tag == GUMBO_TAG_P)
        end_p(b, t);
    else if (tag == GUMBO_TAG_LI)
        end_in_scope(b, tag, S_LIST);
    else if (is_heading(tag) || has(tag, F_END_SCOPE))
        end_in_scope(b, tag, S_DEFAULT);
    else if (has(tag, F_END_TABLE))
        end_in_scope(b, tag, S_TABLE);
    else if ((tag == GUMBO_TAG_SELECT || tag == GUMBO_TAG_TEMPLATE) && b->count[tag])
        pop_to(b, tag);
    else if (is_formatting(tag))
        adoption_agency(b, tag);
    else
        any_other_end(b, t->name, tag);
}

static int on_tag(void *ud, const rc_htmltok_tag *t)
{
    builder *b = ud;
    flush_text(b);
    b->skip_lf = b->skip_text = 0;
    int state = RC_HTMLTOK_DATA;
    if (t->end_tag)
        on_end(b, t);
    else
        state = on_start(b, t);
    if (b->mem->exhausted && b->mem->exhausted(b->mem->ud)) {
        b->stopped = 1;
        return RC_HTMLTOK_STOP;
    }
    return state;
}

/* ---- the build ---- */

static void finish(builder *b)
{
    flush_text(b);
    if (!b->body)
        open_body(b, NULL);
    b->out = zalloc(b, sizeof(*b->out));
    b->out->document = b->document;
    b->out->root = b->html;
}

struct GumboInternalOutput *rc_htmltree_build(const char *data, size_t len, int skip_script_text,
                                              const rc_htmltree_mem *mem)
{
    builder *b = rc_xcalloc(1, sizeof(*b));
    b->s = data ? data : "";
    b->n = data ? len : 0;
    b->mem = mem;
    b->skip_script_text = skip_script_text;
    rc_buf_init(&b->text);
    b->document = zalloc(b, sizeof(*b->document));
    b->document->type = GUMBO_NODE_DOCUMENT;
    b->document->v.document.name = b->document->v.document.public_identifier = "";
    b->document->v.document.system_identifier = "";
    static const rc_htmltok_sink sink = {on_text, on_tag, on_markup, on_foreign};
    rc_htmltok_tokenize(b->s, b->n, &sink, b);
    GumboOutput *out = NULL;
    if (!b->stopped) {
        finish(b);
        out = b->out;
    }
    rc_buf_release(&b->text);
    free(b);
    return out;
}
