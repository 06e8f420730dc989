/* maintext.c - see maintext.h. */
#include "maintext.h"

#include "article.h"

#include "url.h"
#include "html.h"
#include "util.h"

#include <errno.h>
#include <gumbo.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define DEFAULT_BLOCK_LINES 3
#define DEFAULT_THRESHOLD 86 /* cx-extractor's default for K = 3 */
#define MIN_LINE_CHARS 5     /* the published method drops shorter lines from a region */
#define MAX_BLOCK_LINES 64
#define JSONLD_MAX (256 * 1024) /* bytes of one JSON-LD script we are willing to parse */

/* ---- rendering the tree to lines ----------------------------------------------------------- */

typedef struct line {
    size_t off, len;     /* bytes in render.text */
    unsigned chars;      /* non-whitespace code points */
    unsigned link_chars; /* of which inside <a> */
    size_t blk;          /* innermost block element (index into render.blks) */
} line;

/* A block element: the lines [first, end) are inside it. */
typedef struct blk {
    size_t parent;
    size_t first, end;
} blk;

typedef struct render {
    rc_buf text;
    line *lines;
    size_t nlines, lines_cap;
    blk *blks;
    size_t nblks, blks_cap;
    size_t cur_blk;
    size_t line_off; /* where the line being built starts in text */
    unsigned chars, link_chars;
    int space; /* a space is pending before the next visible character */
    unsigned in_link, in_pre;
} render;

enum action { A_INLINE, A_BLOCK, A_DROP, A_DROP_BLOCK, A_BREAK };

static enum action action_of(GumboTag tag)
{
    switch (tag) {
    case GUMBO_TAG_SCRIPT:
    case GUMBO_TAG_STYLE:
    case GUMBO_TAG_HEAD:
    case GUMBO_TAG_BUTTON:
    case GUMBO_TAG_SELECT:
    case GUMBO_TAG_TEXTAREA:
    case GUMBO_TAG_INPUT:
    case GUMBO_TAG_IFRAME:
    case GUMBO_TAG_OBJECT:
    case GUMBO_TAG_EMBED:
    case GUMBO_TAG_CANVAS:
    case GUMBO_TAG_AUDIO:
    case GUMBO_TAG_VIDEO:
    case GUMBO_TAG_SVG:
    case GUMBO_TAG_MATH:
    case GUMBO_TAG_MAP:
        return A_DROP;
    case GUMBO_TAG_NOSCRIPT:
    case GUMBO_TAG_TEMPLATE:
    case GUMBO_TAG_NAV:
    case GUMBO_TAG_FOOTER:
    case GUMBO_TAG_ASIDE:
    case GUMBO_TAG_FORM:
        return A_DROP_BLOCK;
    case GUMBO_TAG_BR:
    case GUMBO_TAG_HR:
        return A_BREAK;
    case GUMBO_TAG_ADDRESS:
    case GUMBO_TAG_ARTICLE:
    case GUMBO_TAG_BLOCKQUOTE:
    case GUMBO_TAG_BODY:
    case GUMBO_TAG_CAPTION:
    case GUMBO_TAG_CENTER:
    case GUMBO_TAG_DD:
    case GUMBO_TAG_DETAILS:
    case GUMBO_TAG_DIR:
    case GUMBO_TAG_DIV:
    case GUMBO_TAG_DL:
    case GUMBO_TAG_DT:
    case GUMBO_TAG_FIELDSET:
    case GUMBO_TAG_FIGCAPTION:
    case GUMBO_TAG_FIGURE:
    case GUMBO_TAG_H1:
    case GUMBO_TAG_H2:
    case GUMBO_TAG_H3:
    case GUMBO_TAG_H4:
    case GUMBO_TAG_H5:
    case GUMBO_TAG_H6:
    case GUMBO_TAG_HEADER:
    case GUMBO_TAG_HGROUP:
    case GUMBO_TAG_HTML:
    case GUMBO_TAG_LEGEND:
    case GUMBO_TAG_LI:
    case GUMBO_TAG_MAIN:
    case GUMBO_TAG_MENU:
    case GUMBO_TAG_OL:
    case GUMBO_TAG_P:
    case GUMBO_TAG_PRE:
    case GUMBO_TAG_SECTION:
    case GUMBO_TAG_SUMMARY:
    case GUMBO_TAG_TABLE:
    case GUMBO_TAG_TBODY:
    case GUMBO_TAG_TD:
    case GUMBO_TAG_TFOOT:
    case GUMBO_TAG_TH:
    case GUMBO_TAG_THEAD:
    case GUMBO_TAG_TR:
    case GUMBO_TAG_UL:
    case GUMBO_TAG_LISTING:
    case GUMBO_TAG_PLAINTEXT:
    case GUMBO_TAG_XMP:
        return A_BLOCK;
    default:
        return A_INLINE;
    }
}

/* Ends the line being built; an empty one is kept too: runs of empty lines are what separate
 * regions, as the tag-only lines of a formatted source do in the published method. */
static void end_line(render *r)
{
    if (r->nlines == r->lines_cap) {
        r->lines_cap = r->lines_cap ? r->lines_cap * 2 : 256;
        r->lines = rc_xrealloc(r->lines, r->lines_cap * sizeof(*r->lines));
    }
    r->lines[r->nlines++] = (line){
        .off = r->line_off,
        .len = r->text.len - r->line_off,
        .chars = r->chars,
        .link_chars = r->link_chars,
        .blk = r->cur_blk,
    };
    r->line_off = r->text.len;
    r->chars = r->link_chars = 0;
    r->space = 0;
}

static void open_blk(render *r)
{
    end_line(r);
    if (r->nblks == r->blks_cap) {
        r->blks_cap = r->blks_cap ? r->blks_cap * 2 : 128;
        r->blks = rc_xrealloc(r->blks, r->blks_cap * sizeof(*r->blks));
    }
    r->blks[r->nblks] = (blk){.parent = r->cur_blk, .first = r->nlines, .end = SIZE_MAX};
    r->cur_blk = r->nblks++;
}

static void close_blk(render *r)
{
    end_line(r);
    r->blks[r->cur_blk].end = r->nlines;
    r->cur_blk = r->blks[r->cur_blk].parent;
}

/* Length of the whitespace character at S (ASCII whitespace, NBSP, U+3000), or 0. */
static size_t ws_len(const unsigned char *s)
{
    if (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r' || *s == '\f')
        return 1;
    if (s[0] == 0xC2 && s[1] == 0xA0)
        return 2;
    if (s[0] == 0xE3 && s[1] == 0x80 && s[2] == 0x80)
        return 3;
    return 0;
}

static void add_text(render *r, const char *text)
{
    const unsigned char *s = (const unsigned char *)text;
    while (*s) {
        size_t w = ws_len(s);
        if (w) {
            if (*s == '\n' && r->in_pre)
                end_line(r);
            else if (r->text.len > r->line_off)
                r->space = 1;
            s += w;
            continue;
        }
        if (r->space)
            rc_buf_append(&r->text, " ", 1);
        r->space = 0;
        size_t n = 1;
        while (s[n] && (s[n] & 0xC0) == 0x80) /* gumbo hands us valid UTF-8 */
            n++;
        rc_buf_append(&r->text, s, n);
        r->chars++;
        if (r->in_link)
            r->link_chars++;
        s += n;
    }
}

struct frame {
    const GumboNode *node;
    unsigned next;
    enum action act;
    int link, pre;
};

static void render_tree(render *r, const GumboNode *root)
{
    size_t depth = 0, cap = 64;
    struct frame *stack = rc_xmalloc(cap * sizeof(*stack));
    rc_buf_init(&r->text);
    r->blks = rc_xmalloc(sizeof(*r->blks));
    r->blks[0] = (blk){.parent = 0, .first = 0, .end = SIZE_MAX};
    r->nblks = r->blks_cap = 1;
    stack[depth++] = (struct frame){root, 0, A_INLINE, 0, 0};
    while (depth) {
        struct frame *f = &stack[depth - 1];
        const GumboVector *kids =
            f->node->type == GUMBO_NODE_DOCUMENT ? &f->node->v.document.children : &f->node->v.element.children;
        if (f->next >= kids->length) {
            if (f->act == A_BLOCK)
                close_blk(r);
            r->in_link -= (unsigned)f->link;
            r->in_pre -= (unsigned)f->pre;
            depth--;
            continue;
        }
        const GumboNode *node = kids->data[f->next++];
        if (node->type == GUMBO_NODE_TEXT || node->type == GUMBO_NODE_CDATA || node->type == GUMBO_NODE_WHITESPACE) {
            add_text(r, node->v.text.text);
            continue;
        }
        if (node->type != GUMBO_NODE_ELEMENT && node->type != GUMBO_NODE_TEMPLATE)
            continue;
        const GumboElement *el = &node->v.element;
        enum action act = el->tag_namespace == GUMBO_NAMESPACE_HTML ? action_of(el->tag) : A_DROP;
        if (node->type == GUMBO_NODE_TEMPLATE || rc_html_attr(node, "hidden") || rc_article_overlay(node))
            act = A_DROP_BLOCK;
        if (act == A_DROP)
            continue;
        if (act == A_DROP_BLOCK || act == A_BREAK) {
            end_line(r);
            continue;
        }
        if (act == A_BLOCK)
            open_blk(r);
        if (depth == cap) {
            cap *= 2;
            stack = rc_xrealloc(stack, cap * sizeof(*stack));
        }
        int link = el->tag == GUMBO_TAG_A, pre = el->tag == GUMBO_TAG_PRE;
        r->in_link += (unsigned)link;
        r->in_pre += (unsigned)pre;
        stack[depth++] = (struct frame){node, 0, act, link, pre};
    }
    end_line(r);
    r->blks[0].end = r->nlines;
    free(stack);
}

static void render_release(render *r)
{
    rc_buf_release(&r->text);
    free(r->lines);
    free(r->blks);
}

/* ---- line-block distribution --------------------------------------------------------------- */

typedef struct region {
    size_t start, end; /* lines [start, end] */
    unsigned long score;
} region;

static unsigned line_len(const line *l, rc_maintext_method m)
{
    return m == RC_MAINTEXT_DENSITY ? l->chars - l->link_chars : l->chars;
}

/* Finds the regions: a region starts at block i when block i is longer than the threshold and
 * one of the next three blocks is not empty, and ends at the first block i where block i or
 * block i+1 is empty (cx-extractor's rules), taking lines start..i. A region still open at the
 * last block is closed there (the published code drops it). Returns the count, regions in *RET. */
static size_t find_regions(const render *r, rc_maintext_method m, unsigned k, unsigned threshold, region **ret)
{
    size_t n = r->nlines, nb = n >= k ? n - k + 1 : (n ? 1 : 0);
    unsigned long *b = rc_xcalloc(nb + 4, sizeof(*b));
    for (size_t i = 0; i < nb; i++)
        for (size_t j = i; j < i + k && j < n; j++)
            b[i] += line_len(&r->lines[j], m);
    region *regs = NULL;
    size_t nregs = 0, cap = 0, start = 0;
    int open = 0;
    for (size_t i = 0; i < nb; i++) {
        if (!open) {
            if (b[i] > threshold && (b[i + 1] || b[i + 2] || b[i + 3])) {
                open = 1;
                start = i;
            }
            continue;
        }
        if (b[i] != 0 && b[i + 1] != 0) /* b[nb] is 0: the last block closes a region */
            continue;
        if (nregs == cap) {
            cap = cap ? cap * 2 : 8;
            regs = rc_xrealloc(regs, cap * sizeof(*regs));
        }
        size_t end = i;
        unsigned long score = 0;
        for (size_t j = start; j <= end; j++)
            score += line_len(&r->lines[j], m);
        regs[nregs++] = (region){start, end, score};
        open = 0;
    }
    free(b);
    *ret = regs;
    return nregs;
}

static int contains(const char *s, size_t len, const char *needle)
{
    return memmem(s, len, needle, strlen(needle)) != NULL;
}

static void emit_line(rc_buf *out, const render *r, const line *l)
{
    if (out->len)
        rc_buf_append(out, "\n", 1);
    rc_buf_append(out, r->text.ptr + l->off, l->len);
}

static void extract_lineblock(rc_buf *out, const render *r, const region *regs, size_t nregs)
{
    for (size_t g = 0; g < nregs; g++) {
        const line *first = &r->lines[regs[g].start], *last = &r->lines[regs[g].end];
        size_t from = first->off, to = last->off + last->len;
        if (contains(r->text.ptr + from, to - from, "Copyright") || contains(r->text.ptr + from, to - from, "版权所有"))
            continue;
        for (size_t i = regs[g].start; i <= regs[g].end; i++)
            if (r->lines[i].chars >= MIN_LINE_CHARS)
                emit_line(out, r, &r->lines[i]);
    }
}

/* The innermost block element holding lines [a, b]. */
static size_t common_block(const render *r, size_t a, size_t b)
{
    size_t id = r->lines[a].blk;
    while (id != 0 && !(r->blks[id].first <= a && r->blks[id].end > b))
        id = r->blks[id].parent;
    return id;
}

static void extract_density(rc_buf *out, const render *r, const region *regs, size_t nregs)
{
    size_t best = 0;
    for (size_t g = 1; g < nregs; g++)
        if (regs[g].score > regs[best].score)
            best = g;
    size_t c = common_block(r, regs[best].start, regs[best].end);
    for (size_t g = 0; g < nregs; g++) {
        if (regs[g].start < r->blks[c].first || regs[g].end >= r->blks[c].end)
            continue;
        for (size_t i = regs[g].start; i <= regs[g].end; i++) {
            const line *l = &r->lines[i];
            if (l->chars >= MIN_LINE_CHARS && l->link_chars * 2 <= l->chars)
                emit_line(out, r, l);
        }
    }
}

char *rc_maintext_text(rc_html *doc, const rc_maintext_opts *opts, rc_maintext_method *ret_used)
{
    rc_maintext_method m = opts ? opts->method : RC_MAINTEXT_ARTICLE;
    unsigned k = opts && opts->block_lines ? opts->block_lines : DEFAULT_BLOCK_LINES;
    unsigned threshold = opts && opts->threshold ? opts->threshold : DEFAULT_THRESHOLD;
    if (k > MAX_BLOCK_LINES)
        k = MAX_BLOCK_LINES;
    const GumboOutput *g = rc_html_gumbo(doc);
    if (m == RC_MAINTEXT_ARTICLE) {
        char *t = rc_article_text(g->document);
        if (*t) {
            if (ret_used)
                *ret_used = m;
            return t;
        }
        free(t); /* nothing article-like: the density method's best region */
        m = RC_MAINTEXT_DENSITY;
    }
    render r = {0};
    render_tree(&r, g->document);
    region *regs = NULL;
    size_t nregs = find_regions(&r, m, k, threshold, &regs);
    rc_buf out;
    rc_buf_init(&out);
    if (nregs && m == RC_MAINTEXT_LINEBLOCK)
        extract_lineblock(&out, &r, regs, nregs);
    else if (nregs)
        extract_density(&out, &r, regs, nregs);
    free(regs);
    render_release(&r);
    if (ret_used)
        *ret_used = m;
    return rc_buf_steal(&out);
}

char *rc_maintext_extract_opts(rc_html *doc, const rc_maintext_opts *opts)
{
    return rc_maintext_text(doc, opts, NULL);
}

char *rc_maintext_extract(rc_html *doc)
{
    return rc_maintext_text(doc, NULL, NULL);
}

static const char *const method_names[] = {"density", "lineblock", "article"};

const char *rc_maintext_method_name(rc_maintext_method m)
{
    return (unsigned)m < sizeof method_names / sizeof method_names[0] ? method_names[m] : "?";
}

int rc_maintext_method_parse(const char *name, rc_maintext_method *ret)
{
    for (size_t i = 0; i < sizeof method_names / sizeof method_names[0]; i++)
        if (strcmp(name, method_names[i]) == 0) {
            *ret = (rc_maintext_method)i;
            return 0;
        }
    return -EINVAL;
}

/* ---- metadata ------------------------------------------------------------------------------ */

typedef struct meta_state {
    rc_maintext_facts f;
    const GumboNode *first_article;
} meta_state;

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f';
}

/* A malloc'd copy of S[0..len) with ASCII whitespace runs collapsed and trimmed. */
static char *collapse(const char *s, size_t len)
{
    rc_buf b;
    rc_buf_init(&b);
    int space = 0;
    for (size_t i = 0; i < len; i++) {
        if (is_space(s[i])) {
            space = b.len > 0;
            continue;
        }
        if (space)
            rc_buf_append(&b, " ", 1);
        space = 0;
        rc_buf_putc(&b, s[i]);
    }
    return rc_buf_steal(&b);
}

/* Sets KEY to the collapsed S when it is non-empty and valid for jansson; 1 if set. */
static int set_str(json_t *obj, const char *key, const char *s)
{
    if (!s)
        return 0;
    char *v = collapse(s, strlen(s));
    json_t *j = *v ? json_string(v) : NULL;
    free(v);
    if (!j)
        return 0;
    json_object_set_new(obj, key, j);
    return 1;
}

/* The text of NODE and its descendants (scripts and styles excluded), malloc'd. */
static char *node_text(const GumboNode *node)
{
    rc_buf b;
    rc_buf_init(&b);
    size_t depth = 0, cap = 16;
    struct frame *stack = rc_xmalloc(cap * sizeof(*stack));
    stack[depth++] = (struct frame){node, 0, A_INLINE, 0, 0};
    while (depth) {
        struct frame *f = &stack[depth - 1];
        const GumboVector *kids = &f->node->v.element.children;
        if (f->next >= kids->length) {
            depth--;
            continue;
        }
        const GumboNode *k = kids->data[f->next++];
        if (k->type == GUMBO_NODE_TEXT || k->type == GUMBO_NODE_WHITESPACE || k->type == GUMBO_NODE_CDATA) {
            rc_buf_puts(&b, k->v.text.text);
        } else if (k->type == GUMBO_NODE_ELEMENT && k->v.element.tag != GUMBO_TAG_SCRIPT &&
                   k->v.element.tag != GUMBO_TAG_STYLE) {
            if (depth == cap) {
                cap *= 2;
                stack = rc_xrealloc(stack, cap * sizeof(*stack));
            }
            stack[depth++] = (struct frame){k, 0, A_INLINE, 0, 0};
        }
    }
    free(stack);
    char *s = collapse(b.ptr ? b.ptr : "", b.len);
    rc_buf_release(&b);
    return s;
}

void rc_maintext_facts_jsonld(rc_maintext_facts *f, const char *text, size_t len)
{
    if (f->published_jsonld || len > JSONLD_MAX)
        return;
    json_t *root = json_loadb(text, len, JSON_DECODE_ANY, NULL);
    const char *s = root ? rc_article_jsonld_string(root, "datePublished", 0) : NULL;
    if (s)
        f->published_jsonld = rc_xstrdup(s);
    json_decref(root);
}

static void visit_jsonld(meta_state *st, const GumboNode *node)
{
    if (st->f.published_jsonld || node->v.element.children.length != 1)
        return;
    const GumboNode *t = node->v.element.children.data[0];
    if (t->type != GUMBO_NODE_TEXT && t->type != GUMBO_NODE_WHITESPACE)
        return;
    rc_maintext_facts_jsonld(&st->f, t->v.text.text, strlen(t->v.text.text));
}

static const char *const date_names[] = {
    "date",
    "pubdate",
    "publishdate",
    "publish_date",
    "publish-date",
    "publication_date",
    "dcterms.issued",
    "dc.date.issued",
    "dc.date",
    "dcterms.date",
    "parsely-pub-date",
    "sailthru.date",
    "article.published",
    NULL,
};

void rc_maintext_facts_meta_tag(rc_maintext_facts *st, rc_maintext_attr_fn get, const void *node)
{
    const char *content = get(node, "content");
    if (!content)
        return;
    const char *name = get(node, "name"), *prop = get(node, "property");
    const char *key = prop ? prop : name;
    if (key && strncasecmp(key, "og:", 3) == 0 && key[3]) {
        if (!json_object_get(st->og, key + 3))
            set_str(st->og, key + 3, content);
        if (!st->og_title && rc_html_value_is(key, "og:title"))
            st->og_title = content;
        if (!st->og_description && rc_html_value_is(key, "og:description"))
            st->og_description = content;
    }
    if (!st->published_article &&
        (rc_html_value_is(prop, "article:published_time") || rc_html_value_is(name, "article:published_time")))
        st->published_article = content;
    if (!st->published_itemprop && rc_html_value_is(get(node, "itemprop"), "datePublished"))
        st->published_itemprop = content;
    if (!st->description && rc_html_value_is(name, "description"))
        st->description = content;
    for (const char *const *d = date_names; !st->published_name && name && *d; d++)
        if (rc_html_value_is(name, *d))
            st->published_name = content;
    if (!st->content_language && rc_html_value_is(get(node, "http-equiv"), "content-language"))
        st->content_language = content;
}

static const char *gumbo_attr(const void *node, const char *name)
{
    return rc_html_attr(node, name);
}

static int inside(const GumboNode *node, const GumboNode *ancestor)
{
    for (; node; node = node->parent)
        if (node == ancestor)
            return 1;
    return 0;
}

static void visit_element(meta_state *st, const GumboNode *node)
{
    const GumboElement *el = &node->v.element;
    if (el->tag_namespace != GUMBO_NAMESPACE_HTML)
        return;
    switch (el->tag) {
    case GUMBO_TAG_HTML:
        if (!st->f.lang)
            st->f.lang = rc_html_attr(node, "lang");
        break;
    case GUMBO_TAG_META:
        rc_maintext_facts_meta_tag(&st->f, gumbo_attr, node);
        break;
    case GUMBO_TAG_LINK: {
        const char *rel = rc_html_attr(node, "rel");
        if (!st->f.canonical && rel && rc_html_token_in(rel, "canonical"))
            st->f.canonical = rc_html_attr(node, "href");
        break;
    }
    case GUMBO_TAG_BASE:
        if (!st->f.base_href)
            st->f.base_href = rc_html_attr(node, "href");
        break;
    case GUMBO_TAG_SCRIPT:
        if (rc_html_value_is(rc_html_attr(node, "type"), "application/ld+json"))
            visit_jsonld(st, node);
        break;
    case GUMBO_TAG_ARTICLE:
        if (!st->first_article)
            st->first_article = node;
        break;
    case GUMBO_TAG_TIME: {
        const char *dt = rc_html_attr(node, "datetime");
        if (!dt)
            break;
        if (!st->f.published_itemprop && rc_html_value_is(rc_html_attr(node, "itemprop"), "datePublished"))
            st->f.published_itemprop = dt;
        if (!st->f.published_time && st->first_article && inside(node, st->first_article))
            st->f.published_time = dt;
        break;
    }
    case GUMBO_TAG_H1:
        if (!st->f.h1)
            st->f.h1 = node_text(node);
        break;
    default:
        break;
    }
}

static void walk_meta(meta_state *st, const GumboNode *root)
{
    size_t depth = 0, cap = 64;
    struct frame *stack = rc_xmalloc(cap * sizeof(*stack));
    stack[depth++] = (struct frame){root, 0, A_INLINE, 0, 0};
    while (depth) {
        struct frame *f = &stack[depth - 1];
        const GumboVector *kids =
            f->node->type == GUMBO_NODE_DOCUMENT ? &f->node->v.document.children : &f->node->v.element.children;
        if (f->next >= kids->length) {
            depth--;
            continue;
        }
        const GumboNode *node = kids->data[f->next++];
        if (node->type != GUMBO_NODE_ELEMENT)
            continue; /* template contents are inert */
        visit_element(st, node);
        if (node->v.element.children.length == 0)
            continue;
        if (depth == cap) {
            cap *= 2;
            stack = rc_xrealloc(stack, cap * sizeof(*stack));
        }
        stack[depth++] = (struct frame){node, 0, A_INLINE, 0, 0};
    }
    free(stack);
}

/* The canonical URL resolved against <base href> (itself resolved against URL), or NULL. */
static char *resolve_canonical(const char *url, const char *base_href, const char *href)
{
    char *base = NULL, *abs = NULL;
    size_t len = strlen(href);
    while (len && is_space(href[len - 1]))
        len--;
    while (len && is_space(*href)) {
        href++;
        len--;
    }
    if (len == 0)
        return NULL;
    if (base_href &&
        (url ? rc_url_resolve(url, base_href, strlen(base_href), &base) : rc_url_normalize(base_href, &base)) != 0)
        base = NULL;
    const char *b = base ? base : url;
    if (b) {
        if (rc_url_resolve(b, href, len, &abs) != 0)
            abs = NULL;
    } else {
        char *h = rc_xstrndup(href, len);
        if (rc_url_normalize(h, &abs) != 0)
            abs = NULL;
        free(h);
    }
    free(base);
    return abs;
}

void rc_maintext_facts_init(rc_maintext_facts *f)
{
    memset(f, 0, sizeof *f);
    f->og = json_object();
}

void rc_maintext_facts_release(rc_maintext_facts *f)
{
    json_decref(f->og);
    free(f->published_jsonld);
    free(f->h1);
    memset(f, 0, sizeof *f);
}

int rc_maintext_facts_write(const rc_maintext_facts *st, const char *title, const char *url, json_t *out)
{
    if (!json_is_object(out))
        return -EINVAL;
    if (!set_str(out, "title", title) && !set_str(out, "title", st->og_title))
        set_str(out, "title", st->h1);
    if (!set_str(out, "description", st->description))
        set_str(out, "description", st->og_description);
    if (st->canonical) {
        char *c = resolve_canonical(url, st->base_href, st->canonical);
        set_str(out, "canonical", c);
        free(c);
    }
    if (!set_str(out, "language", st->lang) && st->content_language) {
        const char *comma = strchr(st->content_language, ',');
        size_t n = comma ? (size_t)(comma - st->content_language) : strlen(st->content_language);
        char *first = rc_xstrndup(st->content_language, n);
        set_str(out, "language", first);
        free(first);
    }
    if (json_object_size(st->og))
        json_object_set(out, "og", st->og);
    const char *pub[] = {st->published_article, st->published_jsonld, st->published_itemprop, st->published_name,
                         st->published_time};
    for (size_t i = 0; i < RC_ARRAY_LEN(pub); i++)
        if (set_str(out, "published", pub[i]))
            break;
    return 0;
}

int rc_maintext_meta(rc_html *doc, const char *url, json_t *out)
{
    if (!json_is_object(out))
        return -EINVAL;
    meta_state st = {0};
    rc_maintext_facts_init(&st.f);
    walk_meta(&st, rc_html_gumbo(doc)->document);
    rc_maintext_facts_write(&st.f, rc_html_title(doc), url, out);
    rc_maintext_facts_release(&st.f);
    return 0;
}
