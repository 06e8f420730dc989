/* extract.c - see extract.h. */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "extract.h"

#include "url.h"
#include "util.h"
#include "xmlinit.h"

#include <errno.h>
#include <gumbo.h>
#include <jansson.h>
#include <libxml/tree.h>
#include <libxml/xpath.h>
#include <libxml/xpathInternals.h>
#include <pcre2.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_TAG_NAME 256

/* libxml2 returns NULL when out of memory; like rc_xmalloc we abort. */
static void *need(void *p)
{
    if (!p) {
        fprintf(stderr, "redcrawl: out of memory in libxml2\n");
        abort();
    }
    return p;
}

static void seterr(char *err, size_t cap, const char *path, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void seterr(char *err, size_t cap, const char *path, const char *fmt, ...)
{
    if (!err || cap == 0)
        return;
    int n = snprintf(err, cap, "%s: ", path && *path ? path : "extract");
    if (n < 0 || (size_t)n >= cap)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err + n, cap - (size_t)n, fmt, ap);
    va_end(ap);
}

/* ---- gumbo -> libxml2 ------------------------------------------------------------------------ */

struct rc_extract_doc {
    xmlDocPtr xml;
    char *base_href; /* the page's <base href>, raw; NULL when none */
    int degraded, truncated;
    size_t nelems;     /* element k (1-based, document order) carries k in _private */
    xmlNodePtr *links; /* <a href>/<area href> elements in document order, tree-builder clones left out */
    size_t nlinks, links_cap;
};

#define CLONED (GUMBO_INSERTION_RECONSTRUCTED_FORMATTING_ELEMENT | GUMBO_INSERTION_ADOPTION_AGENCY_CLONED)

static size_t ordinal(const xmlNode *n)
{
    return (size_t)(uintptr_t)n->_private;
}

/* The element's DOM local name: lower case, SVG's camelCase names restored. */
static const char *element_name(const GumboElement *el, char *buf)
{
    const char *name;
    size_t len;
    if (el->tag != GUMBO_TAG_UNKNOWN) {
        name = gumbo_normalized_tagname(el->tag);
        len = strlen(name);
    } else {
        GumboStringPiece p = el->original_tag;
        gumbo_tag_from_original_text(&p);
        name = p.data;
        len = p.length;
    }
    if (len == 0)
        return "unknown";
    len = RC_MIN(len, (size_t)MAX_TAG_NAME - 1);
    memcpy(buf, name, len);
    buf[len] = '\0';
    rc_ascii_lower(buf, len);
    if (el->tag_namespace == GUMBO_NAMESPACE_SVG) {
        GumboStringPiece p = {buf, len};
        const char *svg = gumbo_normalize_svg_tagname(&p);
        if (svg)
            return svg;
    }
    return buf;
}

struct conv_frame {
    const GumboVector *kids;
    unsigned next;
    xmlNodePtr parent;
};

static void add_link(rc_extract_doc *xd, xmlNodePtr node)
{
    if (xd->nlinks == xd->links_cap) {
        xd->links_cap = xd->links_cap ? xd->links_cap * 2 : 64;
        xd->links = rc_xrealloc(xd->links, xd->links_cap * sizeof(*xd->links));
    }
    xd->links[xd->nlinks++] = node;
}

/* Pre-order with an explicit stack: hostile pages nest deeper than the C stack allows. */
static void convert(rc_extract_doc *xd, const GumboNode *root)
{
    char name[MAX_TAG_NAME];
    size_t depth = 0, cap = 64, nodes = 0;
    struct conv_frame *stack = rc_xmalloc(cap * sizeof(*stack));
    stack[depth++] = (struct conv_frame){&root->v.document.children, 0, (xmlNodePtr)xd->xml};
    while (depth) {
        struct conv_frame *f = &stack[depth - 1];
        if (f->next >= f->kids->length) {
            depth--;
            continue;
        }
        const GumboNode *g = f->kids->data[f->next++];
        xmlNodePtr parent = f->parent, node;
        if (nodes >= RC_EXTRACT_MAX_NODES) {
            xd->truncated = 1;
            break;
        }
        switch (g->type) {
        case GUMBO_NODE_TEXT:
        case GUMBO_NODE_WHITESPACE:
        case GUMBO_NODE_CDATA:
            node = need(xmlNewDocText(xd->xml, BAD_CAST g->v.text.text));
            xmlAddChild(parent, node);
            nodes++;
            continue;
        case GUMBO_NODE_ELEMENT:
        case GUMBO_NODE_TEMPLATE:
            break;
        default: /* comments; the document node has no parent */
            continue;
        }
        const GumboElement *el = &g->v.element;
        node = need(xmlNewDocNode(xd->xml, NULL, BAD_CAST element_name(el, name), NULL));
        node->_private = (void *)(uintptr_t)++xd->nelems;
        xmlAddChild(parent, node);
        nodes++;
        for (unsigned i = 0; i < el->attributes.length; i++) {
            const GumboAttribute *a = el->attributes.data[i];
            need(xmlNewNsProp(node, NULL, BAD_CAST a->name, BAD_CAST a->value)); /* no entity parsing */
        }
        if (el->tag_namespace == GUMBO_NAMESPACE_HTML && (el->tag == GUMBO_TAG_A || el->tag == GUMBO_TAG_AREA) &&
            !(g->parse_flags & CLONED) && gumbo_get_attribute(&el->attributes, "href"))
            add_link(xd, node);
        if (g->type == GUMBO_NODE_TEMPLATE || el->children.length == 0)
            continue; /* template contents are inert */
        if (depth == cap) {
            cap *= 2;
            stack = rc_xrealloc(stack, cap * sizeof(*stack));
        }
        stack[depth++] = (struct conv_frame){&el->children, 0, node};
    }
    free(stack);
}

rc_extract_doc *rc_extract_doc_new(rc_html *html)
{
    rc_extract_doc *xd = rc_xcalloc(1, sizeof(*xd));
    rc_xml_init();
    xd->xml = need(xmlNewDoc(BAD_CAST "1.0"));
    xd->xml->dict = need(xmlDictCreate()); /* element and attribute names interned */
    xd->degraded = rc_html_degraded(html);
    const char *base = rc_html_base_href(html);
    if (base)
        xd->base_href = rc_xstrdup(base);
    const GumboOutput *out = (const GumboOutput *)rc_html_gumbo(html);
    if (out && out->document)
        convert(xd, out->document);
    xmlXPathOrderDocElems(xd->xml); /* makes document-order sorting of node sets cheap */
    return xd;
}

void rc_extract_doc_free(rc_extract_doc *xd)
{
    if (!xd)
        return;
    xmlFreeDoc(xd->xml);
    free(xd->base_href);
    free(xd->links);
    free(xd);
}

size_t rc_extract_doc_elements(const rc_extract_doc *xd)
{
    return xd->nelems;
}

/* ---- strings --------------------------------------------------------------------------------- */

/* Length of the whitespace character at S (N bytes available), 0 if none. */
static size_t ws_len(const unsigned char *s, size_t n)
{
    unsigned char c = s[0];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v')
        return 1;
    if (c == 0xC2 && n >= 2 && s[1] == 0xA0)
        return 2; /* U+00A0 */
    if (n < 3)
        return 0;
    if (c == 0xE2 && s[1] == 0x80 && ((s[2] >= 0x80 && s[2] <= 0x8A) || s[2] == 0xA8 || s[2] == 0xA9 || s[2] == 0xAF))
        return 3; /* U+2000-U+200A, U+2028, U+2029, U+202F */
    if (c == 0xE2 && s[1] == 0x81 && s[2] == 0x9F)
        return 3; /* U+205F */
    if (c == 0xE3 && s[1] == 0x80 && s[2] == 0x80)
        return 3; /* U+3000 */
    if (c == 0xEF && s[1] == 0xBB && s[2] == 0xBF)
        return 3; /* U+FEFF */
    return 0;
}

/* Appends S with whitespace runs collapsed to one space and the ends trimmed to OUT (reset). */
static void normalize(rc_buf *out, const char *s, size_t n)
{
    rc_buf_reset(out);
    rc_buf_append(out, "", 0);
    const unsigned char *p = (const unsigned char *)s;
    int pending = 0;
    size_t i = 0;
    while (i < n) {
        size_t w = ws_len(p + i, n - i);
        if (w) {
            pending = out->len > 0;
            i += w;
            continue;
        }
        size_t j = i + 1;
        while (j < n && p[j] != ' ' && p[j] != '\n' && p[j] != '\t' && p[j] != '\r' && p[j] != '\f' && p[j] != '\v' &&
               p[j] < 0xC2)
            j++; /* copy ASCII runs in one go */
        if (pending)
            rc_buf_append(out, " ", 1);
        pending = 0;
        rc_buf_append(out, s + i, j - i);
        i = j;
    }
}

/* A JSON string of S; invalid UTF-8 (only possible in caller-supplied strings) becomes U+FFFD. */
static json_t *jstr(const char *s, size_t n)
{
    json_t *v = json_stringn(s, n);
    if (v)
        return v;
    rc_buf b;
    rc_buf_init(&b);
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;
    while (i < n) {
        unsigned char c = p[i];
        size_t len = c < 0x80                 ? 1
                     : c >= 0xC2 && c <= 0xDF ? 2
                     : c >= 0xE0 && c <= 0xEF ? 3
                     : c >= 0xF0 && c <= 0xF4 ? 4
                                              : 0;
        int ok = len && i + len <= n && c != 0;
        for (size_t k = 1; ok && k < len; k++)
            ok = (p[i + k] & 0xC0) == 0x80;
        if (ok && len == 3)
            ok = !(c == 0xE0 && p[i + 1] < 0xA0) && !(c == 0xED && p[i + 1] >= 0xA0);
        if (ok && len == 4)
            ok = !(c == 0xF0 && p[i + 1] < 0x90) && !(c == 0xF4 && p[i + 1] >= 0x90);
        if (ok) {
            rc_buf_append(&b, s + i, len);
            i += len;
        } else {
            rc_buf_puts(&b, "\xEF\xBF\xBD");
            i++;
        }
    }
    v = json_stringn(b.ptr ? b.ptr : "", b.len);
    rc_buf_release(&b);
    return need(v);
}

/* ---- evaluation ------------------------------------------------------------------------------ */

typedef struct ev {
    const rc_rules *rules;
    rc_extract_doc *xd;
    xmlXPathContextPtr ctx;
    int xcode; /* first libxml2 XPath error of the current evaluation */
    rc_buf norm, tmp;
    int truncated;
    char *err;
    size_t cap;
} ev;

static void ev_xerr(void *ud, xmlErrorPtr e)
{
    ev *x = ud;
    if (!x->xcode)
        x->xcode = e->code - XML_XPATH_EXPRESSION_OK;
}

static void ev_init(ev *e, const rc_rules *rules, rc_extract_doc *xd, char *err, size_t cap)
{
    memset(e, 0, sizeof(*e));
    e->rules = rules;
    e->xd = xd;
    e->err = err;
    e->cap = cap;
    e->ctx = need(xmlXPathNewContext(xd->xml));
    e->ctx->error = ev_xerr;
    e->ctx->userData = e;
    e->ctx->opLimit = RC_EXTRACT_MAX_XPATH_OPS;
    rc_buf_init(&e->norm);
    rc_buf_init(&e->tmp);
}

static void ev_release(ev *e)
{
    xmlXPathFreeContext(e->ctx);
    rc_buf_release(&e->norm);
    rc_buf_release(&e->tmp);
}

static xmlXPathObjectPtr eval(ev *e, xmlXPathCompExprPtr comp, xmlNodePtr node, const char *path)
{
    e->xcode = 0;
    e->ctx->node = node;
    xmlXPathObjectPtr res = xmlXPathCompiledEval(comp, e->ctx);
    if (!res || e->xcode) {
        int code = e->xcode;
        seterr(e->err, e->cap, path, "XPath failed: %s",
               code == XPATH_OP_LIMIT_EXCEEDED          ? "operation limit exceeded (too much work on this page)"
               : code == XPATH_RECURSION_LIMIT_EXCEEDED ? "recursion limit exceeded"
               : code == XPATH_MEMORY_ERROR             ? "out of memory"
                                                        : "evaluation error");
        xmlXPathFreeObject(res);
        return NULL;
    }
    return res;
}

/* Where the values of one field go. */
typedef struct sink {
    json_t *list; /* all: the array; else NULL */
    json_t *one;  /* the first value */
} sink;

static int sink_full(const sink *k)
{
    return k->list ? json_array_size(k->list) >= RC_EXTRACT_MAX_VALUES : k->one != NULL;
}

/* Adds the normalised string S (N bytes) unless empty. */
static void sink_add(ev *e, sink *k, const char *s, size_t n)
{
    normalize(&e->tmp, s, n);
    if (e->tmp.len == 0)
        return;
    if (sink_full(k)) {
        e->truncated |= k->list != NULL;
        return;
    }
    json_t *v = jstr(e->tmp.ptr, e->tmp.len);
    if (k->list)
        json_array_append_new(k->list, v);
    else
        k->one = v;
}

static size_t utf8_next(const char *s, size_t n, size_t i)
{
    i++;
    while (i < n && ((unsigned char)s[i] & 0xC0) == 0x80)
        i++;
    return i;
}

/* Runs the field's regex over the normalised string S: the first match, or every match with all. */
static int apply_re(ev *e, const rc_rules_field *f, const char *s, size_t n, sink *k, const char *path)
{
    pcre2_match_data *md = need(pcre2_match_data_create_from_pattern(f->re, NULL));
    uint32_t groups = 0;
    pcre2_pattern_info(f->re, PCRE2_INFO_CAPTURECOUNT, &groups);
    PCRE2_SIZE off = 0;
    uint32_t opts = 0;
    int r = 0;
    while (off <= n && !sink_full(k)) {
        int rc = pcre2_match(f->re, (PCRE2_SPTR)s, n, off, opts, md, e->rules->mctx);
        if (rc == PCRE2_ERROR_NOMATCH) {
            if (!opts)
                break;
            off = utf8_next(s, n, off); /* an empty match was here: move on one character */
            opts = 0;
            continue;
        }
        if (rc < 0) {
            PCRE2_UCHAR msg[128];
            pcre2_get_error_message(rc, msg, sizeof(msg));
            seterr(e->err, e->cap, path, "regex failed: %s", (const char *)msg);
            r = -EINVAL;
            break;
        }
        PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
        if (ov[0] > ov[1])
            break; /* \K in a lookahead; nothing sensible to take */
        if (groups == 0) {
            sink_add(e, k, s + ov[0], ov[1] - ov[0]);
        } else {
            for (int g = 1; g < rc; g++)
                if (ov[2 * g] != PCRE2_UNSET) {
                    sink_add(e, k, s + ov[2 * g], ov[2 * g + 1] - ov[2 * g]);
                    break;
                }
        }
        if (!f->all)
            break;
        opts = ov[0] == ov[1] ? PCRE2_NOTEMPTY_ATSTART | PCRE2_ANCHORED : 0;
        off = ov[1];
    }
    pcre2_match_data_free(md);
    return r;
}

/* One string of the XPath result, before normalisation. */
static int take_string(ev *e, const rc_rules_field *f, const char *s, sink *k, const char *path)
{
    if (!f->re) {
        sink_add(e, k, s, strlen(s));
        return 0;
    }
    normalize(&e->norm, s, strlen(s));
    return apply_re(e, f, e->norm.ptr, e->norm.len, k, path);
}

/* Evaluates F at NODE: *ret_value is the string, the list, or NULL for no value. */
static int eval_field(ev *e, const rc_rules_field *f, xmlNodePtr node, json_t **ret_value)
{
    xmlXPathObjectPtr res = eval(e, f->xpath, node, f->path);
    if (!res)
        return -EINVAL;
    sink k = {f->all ? need(json_array()) : NULL, NULL};
    int r = 0;
    if (res->type == XPATH_NODESET) {
        int n = res->nodesetval ? res->nodesetval->nodeNr : 0;
        int i = 0;
        for (; i < n && r == 0 && !sink_full(&k); i++) {
            xmlChar *s = need(xmlXPathCastNodeToString(res->nodesetval->nodeTab[i]));
            r = take_string(e, f, (const char *)s, &k, f->path);
            xmlFree(s);
        }
        e->truncated |= k.list && i < n && r == 0;
    } else {
        xmlChar *s = need(xmlXPathCastToString(res));
        r = take_string(e, f, (const char *)s, &k, f->path);
        xmlFree(s);
    }
    xmlXPathFreeObject(res);
    if (r < 0) {
        json_decref(k.list);
        json_decref(k.one);
        return r;
    }
    if (k.list && json_array_size(k.list) == 0) {
        json_decref(k.list);
        k.list = NULL;
    }
    *ret_value = k.list ? k.list : k.one;
    return 0;
}

/* Adds SET's fields at NODE to ITEM. Returns 0, 1 when a required field has no value (its path in
 * *ret_missing), or a negative error. */
static int eval_fields(ev *e, const rc_rules_set *set, xmlNodePtr node, json_t *item, const char **ret_missing)
{
    for (size_t i = 0; i < set->nfields; i++) {
        const rc_rules_field *f = &set->fields[i];
        json_t *v = NULL;
        int r = eval_field(e, f, node, &v);
        if (r < 0)
            return r;
        if (!v && f->required) {
            *ret_missing = f->path;
            return 1;
        }
        if (!v && f->def)
            v = need(json_deep_copy(f->def));
        if (!v && f->all)
            v = need(json_array()); /* a list field that matched nothing is an empty list */
        if (v)
            json_object_set_new(item, f->name, v);
    }
    return 0;
}

/* The base links resolve against: <base href> resolved against URL, else URL. Caller frees. */
static char *effective_base(const rc_extract_doc *xd, const char *url)
{
    char *base = NULL;
    if (xd->base_href && rc_url_resolve(url, xd->base_href, strlen(xd->base_href), &base) == 0)
        return base;
    return rc_xstrdup(url);
}

static void stats_drop(rc_extract_stats *st, size_t index, const char *rule)
{
    if (st->dropped++ == 0) {
        st->dropped_index = index;
        snprintf(st->dropped_rule, sizeof(st->dropped_rule), "%s", rule);
    }
}

int rc_extract_doc_items(const rc_rules *rules, rc_extract_doc *xd, const char *url, const char *field_set,
                         json_t **ret_items, rc_extract_stats *ret_stats, char *err, size_t cap)
{
    const rc_rules_set *set = rc_rules_set_get(rules, field_set);
    if (!set) {
        seterr(err, cap, "extract", "no field set named \"%.100s\"", field_set);
        return -ENOENT;
    }
    const rc_rules_field *spu = set == &rules->page ? rules->second_page_url : NULL;
    rc_extract_stats st = {.degraded = xd->degraded, .truncated = xd->truncated};
    json_t *items = need(json_array());
    xmlXPathObjectPtr list = NULL;
    xmlNodePtr page = (xmlNodePtr)xd->xml, *nodes = &page;
    size_t n = set->nfields || spu ? 1 : 0; /* a set without fields makes no items */
    char *base = effective_base(xd, url);
    int r = 0;
    ev e;
    ev_init(&e, rules, xd, err, cap);
    if (n && set->list_from) {
        char *path = rc_xasprintf("%slist_from", set->path);
        list = eval(&e, set->list_from, page, path);
        free(path);
        if (!list) {
            r = -EINVAL;
            goto out;
        }
        n = list->type == XPATH_NODESET && list->nodesetval ? (size_t)list->nodesetval->nodeNr : 0;
        nodes = n ? list->nodesetval->nodeTab : NULL;
        if (n > RC_EXTRACT_MAX_ITEMS) {
            n = RC_EXTRACT_MAX_ITEMS;
            st.truncated = 1;
        }
    }
    for (size_t i = 0; i < n; i++) {
        json_t *item = need(json_object());
        json_object_set_new(item, "url", jstr(url, strlen(url)));
        const char *missing = NULL;
        r = eval_fields(&e, set, nodes[i], item, &missing);
        json_t *link = NULL;
        if (r == 0 && spu)
            r = eval_field(&e, spu, nodes[i], &link);
        if (r < 0) {
            json_decref(item);
            goto out;
        }
        if (r == 1) {
            stats_drop(&st, i, missing);
            json_decref(item);
            r = 0;
            continue;
        }
        if (link) {
            char *abs = NULL;
            const char *ref = json_string_value(link);
            if (rc_url_resolve(base, ref, strlen(ref), &abs) == 0)
                json_object_set_new(item, "_second_page_url", jstr(abs, strlen(abs)));
            free(abs);
            json_decref(link);
        }
        json_array_append_new(items, item);
    }
out:
    xmlXPathFreeObject(list);
    free(base);
    st.truncated |= e.truncated;
    ev_release(&e);
    if (r < 0) {
        json_decref(items);
        return r;
    }
    st.items = json_array_size(items);
    if (ret_stats)
        *ret_stats = st;
    *ret_items = items;
    return 0;
}

int rc_extract_doc_second_page(const rc_rules *rules, rc_extract_doc *xd, const char *url, json_t *item,
                               rc_extract_stats *ret_stats, char *err, size_t cap)
{
    if (!rules->has_second_page) {
        seterr(err, cap, "second_page", "the rules have no second_page");
        return -EINVAL;
    }
    if (!json_is_object(item)) {
        seterr(err, cap, "second_page", "the item is not a JSON object");
        return -EINVAL;
    }
    rc_extract_stats st = {.degraded = xd->degraded, .truncated = xd->truncated};
    json_t *fields = need(json_object());
    const char *missing = NULL;
    ev e;
    ev_init(&e, rules, xd, err, cap);
    int r = eval_fields(&e, &rules->second_page, (xmlNodePtr)xd->xml, fields, &missing);
    st.truncated |= e.truncated;
    ev_release(&e);
    if (r < 0) {
        json_decref(fields);
        return r;
    }
    if (r == 1) {
        stats_drop(&st, 0, missing);
        r = RC_EXTRACT_DROPPED;
    } else {
        json_object_update(item, fields);
        st.items = 1;
    }
    json_decref(fields);
    if (ret_stats)
        *ret_stats = st;
    return r;
}

/* ---- links ----------------------------------------------------------------------------------- */

/* Marks ROOT's element subtree in MARKS (indexed by ordinal). A marked element's whole subtree is
 * marked already, so nested matches cost nothing more: linear per rule. */
static void mark_subtree(unsigned char *marks, xmlNodePtr root)
{
    if (marks[ordinal(root)])
        return;
    marks[ordinal(root)] = 1;
    xmlNodePtr cur = root->children;
    while (cur) {
        int descend = 0;
        if (cur->type == XML_ELEMENT_NODE && !marks[ordinal(cur)]) {
            marks[ordinal(cur)] = 1;
            descend = cur->children != NULL;
        }
        if (descend) {
            cur = cur->children;
            continue;
        }
        while (cur != root && !cur->next)
            cur = cur->parent;
        if (cur == root)
            break;
        cur = cur->next;
    }
}

static int host_in(const char *host, char *const *domains, size_t n)
{
    size_t hl = strlen(host);
    for (size_t i = 0; i < n; i++) {
        size_t dl = strlen(domains[i]);
        if (hl == dl ? strcmp(host, domains[i]) == 0
                     : hl > dl && host[hl - dl - 1] == '.' && strcmp(host + hl - dl, domains[i]) == 0)
            return 1;
    }
    return 0;
}

/* 1 when one of RES matches URL, 0 when none, negative on a match error. */
static int any_match(pcre2_code *const *res, size_t n, const char *url, pcre2_match_data *md, const rc_rules *rules,
                     const char *what, size_t rule, char *err, size_t cap)
{
    for (size_t i = 0; i < n; i++) {
        int rc = pcre2_match(res[i], (PCRE2_SPTR)url, strlen(url), 0, 0, md, rules->mctx);
        if (rc >= 0)
            return 1;
        if (rc != PCRE2_ERROR_NOMATCH) {
            PCRE2_UCHAR msg[128];
            pcre2_get_error_message(rc, msg, sizeof(msg));
            char path[96];
            snprintf(path, sizeof(path), "links[%zu].%s[%zu]", rule, what, i);
            seterr(err, cap, path, "regex failed: %s", (const char *)msg);
            return -EINVAL;
        }
    }
    return 0;
}

typedef struct found {
    char *url;
    size_t rule, pos;
} found;

static int by_url_then_pos(const void *a, const void *b)
{
    const found *x = *(found *const *)a, *y = *(found *const *)b;
    int c = strcmp(x->url, y->url);
    return c ? c : (x->pos > y->pos) - (x->pos < y->pos);
}

/* marks[i]: the elements inside link rule i's restrict_xpaths (NULL when it has none). */
static int mark_restricted(ev *e, const rc_rules *rules, rc_extract_doc *xd, unsigned char **marks)
{
    for (size_t i = 0; i < rules->nlinks; i++) {
        const rc_rules_link *l = &rules->links[i];
        if (!l->nrestrict)
            continue;
        marks[i] = rc_xcalloc(xd->nelems + 1, 1);
        for (size_t k = 0; k < l->nrestrict; k++) {
            char path[96];
            snprintf(path, sizeof(path), "links[%zu].restrict_xpaths[%zu]", i, k);
            xmlXPathObjectPtr res = eval(e, l->restrict_xpaths[k], (xmlNodePtr)xd->xml, path);
            if (!res)
                return -EINVAL;
            int n = res->type == XPATH_NODESET && res->nodesetval ? res->nodesetval->nodeNr : 0;
            for (int j = 0; j < n; j++)
                if (res->nodesetval->nodeTab[j]->type == XML_ELEMENT_NODE)
                    mark_subtree(marks[i], res->nodesetval->nodeTab[j]);
            xmlXPathFreeObject(res);
        }
    }
    return 0;
}

/* The first link rule that takes link A (absolute URL ABS on HOST) into *ret_rule, SIZE_MAX when
 * none does: 0, or negative on a regex error (in err). */
static int first_rule(const rc_rules *rules, unsigned char *const *marks, xmlNodePtr a, const char *abs,
                      const char *host, pcre2_match_data *md, size_t *ret_rule, char *err, size_t cap)
{
    *ret_rule = SIZE_MAX;
    for (size_t i = 0; i < rules->nlinks; i++) {
        const rc_rules_link *l = &rules->links[i];
        if (marks[i] && !marks[i][ordinal(a)])
            continue;
        if (l->nallow_domains && !host_in(host, l->allow_domains, l->nallow_domains))
            continue;
        if (host_in(host, l->deny_domains, l->ndeny_domains))
            continue;
        int m = l->nallow ? any_match(l->allow, l->nallow, abs, md, rules, "allow", i, err, cap) : 1;
        if (m == 0)
            continue;
        if (m == 1)
            m = any_match(l->deny, l->ndeny, abs, md, rules, "deny", i, err, cap);
        if (m < 0)
            return m;
        if (m == 0) {
            *ret_rule = i;
            return 0;
        }
    }
    return 0;
}

/* Link A's href resolved against BASE, and its host; NULL when it is no usable URL. */
static char *link_url(xmlNodePtr a, const char *base, char *host, size_t cap)
{
    xmlAttrPtr attr = xmlHasNsProp(a, BAD_CAST "href", NULL);
    const char *href = attr && attr->children && attr->children->content ? (const char *)attr->children->content : "";
    char *abs = NULL;
    if (rc_url_resolve(base, href, strlen(href), &abs) != 0)
        return NULL;
    if (rc_url_host(abs, host, cap) != 0) {
        free(abs);
        return NULL;
    }
    return abs;
}

/* Keeps the first occurrence of each URL: the later ones get rule SIZE_MAX. */
static void drop_repeats(found *hits, size_t n)
{
    found **order = rc_xcalloc(n ? n : 1, sizeof(*order));
    for (size_t i = 0; i < n; i++)
        order[i] = &hits[i];
    qsort(order, n, sizeof(*order), by_url_then_pos);
    for (size_t i = 1; i < n; i++)
        if (strcmp(order[i]->url, order[i - 1]->url) == 0)
            order[i]->rule = SIZE_MAX;
    free(order);
}

/* The callback for each kept link, in document order, at most MAX; the number of calls. */
static size_t deliver(const rc_rules *rules, const found *hits, size_t n, size_t max, rc_extract_link_cb cb, void *ud)
{
    size_t calls = 0;
    for (size_t i = 0; i < n && calls < max; i++) {
        if (hits[i].rule == SIZE_MAX)
            continue;
        const rc_rules_link *l = &rules->links[hits[i].rule];
        calls++;
        if (cb(ud, hits[i].url, hits[i].rule, l->follow, l->callback) != 0)
            break;
    }
    return calls;
}

int rc_extract_doc_links(const rc_rules *rules, rc_extract_doc *xd, const char *base_url, size_t max,
                         rc_extract_link_cb cb, void *ud, char *err, size_t cap)
{
    size_t nfound = 0, calls = 0;
    found *hits = rc_xcalloc(xd->nlinks ? xd->nlinks : 1, sizeof(*hits));
    unsigned char **marks = rc_xcalloc(rules->nlinks + 1, sizeof(*marks));
    pcre2_match_data *md = need(pcre2_match_data_create(1, NULL));
    char *base = effective_base(xd, base_url);
    ev e;
    ev_init(&e, rules, xd, err, cap);

    int r = mark_restricted(&e, rules, xd, marks);
    for (size_t li = 0; r == 0 && li < xd->nlinks; li++) {
        char host[300];
        size_t rule;
        char *abs = link_url(xd->links[li], base, host, sizeof(host));
        if (abs && (r = first_rule(rules, marks, xd->links[li], abs, host, md, &rule, err, cap)) == 0 &&
            rule != SIZE_MAX)
            hits[nfound++] = (found){abs, rule, li};
        else
            free(abs);
    }
    ev_release(&e);
    if (r == 0) {
        drop_repeats(hits, nfound);
        calls = deliver(rules, hits, nfound, max, cb, ud);
    }
    for (size_t i = 0; i < nfound; i++)
        free(hits[i].url);
    free(hits);
    for (size_t i = 0; i < rules->nlinks; i++)
        free(marks[i]);
    free(marks);
    pcre2_match_data_free(md);
    free(base);
    return r < 0 ? r : (int)RC_MIN(calls, (size_t)INT32_MAX);
}

/* ---- on an rc_html ---------------------------------------------------------------------------- */

int rc_extract_page(const rc_rules *rules, rc_html *doc, const char *url, const char *field_set, json_t **ret_items,
                    rc_extract_stats *ret_stats, char *err, size_t cap)
{
    rc_extract_doc *xd = rc_extract_doc_new(doc);
    int r = rc_extract_doc_items(rules, xd, url, field_set, ret_items, ret_stats, err, cap);
    rc_extract_doc_free(xd);
    return r;
}

int rc_extract_second_page(const rc_rules *rules, rc_html *doc, const char *url, json_t *item,
                           rc_extract_stats *ret_stats, char *err, size_t cap)
{
    rc_extract_doc *xd = rc_extract_doc_new(doc);
    int r = rc_extract_doc_second_page(rules, xd, url, item, ret_stats, err, cap);
    rc_extract_doc_free(xd);
    return r;
}

int rc_extract_links(const rc_rules *rules, rc_html *doc, const char *base_url, size_t max, rc_extract_link_cb cb,
                     void *ud, char *err, size_t cap)
{
    rc_extract_doc *xd = rc_extract_doc_new(doc);
    int r = rc_extract_doc_links(rules, xd, base_url, max, cb, ud, err, cap);
    rc_extract_doc_free(xd);
    return r;
}
