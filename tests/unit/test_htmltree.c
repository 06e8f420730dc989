/* test_htmltree.c - the light tree (htmltree.c) against gumbo's: what the crawler reads from a
 * page without XPath rules must not change. Over every HTML page under tests/data (decoded to
 * UTF-8 as the worker does) and malformed markup (the cases below, and test_htmltok's kinds):
 * title, <base>, robots, refresh, links and the metadata object equal; the main text (article
 * method, as the crawler stores it, and the density method) byte-identical on at least 95 % of
 * the pages and, where not, a token F1 of at least 0.99 against gumbo's. Each page whose text
 * differs is listed. Also the tree's shape on a few cases, and hostile nesting in linear time. */
#include <gumbo.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "charset.h"
#include "html.h"
#include "maintext.h"
#include "rc_test.h"
#include "rc_test_malformed.h"
#include "rc_test_pages.h"
#include "util.h"

static const char *data_dir = "tests/data";
static size_t pages, text_same, text_pages, shape_same;
static double worst_f1 = 1.0;

static void same_str(const char *what, const char *field, const char *a, const char *b)
{
    rc_test_checks++;
    if (!rc_test_opt_eq(a, b)) {
        rc_test_failures++;
        fprintf(stderr, "%s: %s: gumbo \"%s\" != light \"%s\"\n", what, field, a ? a : "(null)", b ? b : "(null)");
    }
}

static char *links_of(rc_html *doc, int skip)
{
    rc_buf b;
    rc_buf_init(&b);
    rc_html_links(doc, skip, SIZE_MAX, rc_test_collect_link, &b);
    rc_buf_putc(&b, '\0');
    return rc_buf_steal(&b);
}

static char *meta_of(rc_html *doc)
{
    json_t *m = json_object();
    rc_maintext_meta(doc, "http://example.test/dir/page.html", m);
    char *s = json_dumps(m, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(m);
    return s;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Whitespace-separated tokens of S, sorted, for a multiset F1. */
static size_t tokens(const char *s, char ***ret)
{
    size_t n = 0, cap = 64;
    char **v = rc_xmalloc(cap * sizeof(*v));
    for (const char *p = s; *p;) {
        while (*p == ' ' || *p == '\n' || *p == '\t')
            p++;
        if (!*p)
            break;
        const char *t = p;
        while (*p && *p != ' ' && *p != '\n' && *p != '\t')
            p++;
        if (n == cap)
            v = rc_xrealloc(v, (cap *= 2) * sizeof(*v));
        v[n++] = rc_xstrndup(t, (size_t)(p - t));
    }
    qsort(v, n, sizeof(*v), cmp_str);
    *ret = v;
    return n;
}

static double token_f1(const char *a, const char *b)
{
    char **ta, **tb;
    size_t na = tokens(a, &ta), nb = tokens(b, &tb), i = 0, j = 0, common = 0;
    while (i < na && j < nb) {
        int c = strcmp(ta[i], tb[j]);
        common += c == 0;
        i += c <= 0;
        j += c >= 0;
    }
    for (size_t k = 0; k < na; k++)
        free(ta[k]);
    for (size_t k = 0; k < nb; k++)
        free(tb[k]);
    free(ta);
    free(tb);
    if (na == 0 && nb == 0)
        return 1.0;
    return na + nb ? 2.0 * (double)common / (double)(na + nb) : 1.0;
}

/* Elements and text bytes of a tree, in document order, as one string: two trees with the same
 * string have the same shape (the count of pages where gumbo's and the light tree's match is
 * printed, not asserted: the approximations in htmltree.h change shapes, not texts). */
static void shape_of(const GumboNode *n, rc_buf *out, int depth)
{
    if (depth > 300)
        return;
    if (n->type == GUMBO_NODE_ELEMENT || n->type == GUMBO_NODE_TEMPLATE) {
        rc_buf_printf(out, "<%d:%d", (int)n->v.element.tag, (int)n->v.element.children.length);
        for (unsigned i = 0; i < n->v.element.children.length; i++)
            shape_of(n->v.element.children.data[i], out, depth + 1);
        rc_buf_putc(out, '>');
    } else if (n->type == GUMBO_NODE_TEXT) {
        rc_buf_printf(out, "%zu", strlen(n->v.text.text));
    }
}

static int same_shape(rc_html *g, rc_html *l)
{
    rc_buf a, b;
    rc_buf_init(&a);
    rc_buf_init(&b);
    shape_of(((const GumboOutput *)rc_html_gumbo(g))->root, &a, 0);
    shape_of(((const GumboOutput *)rc_html_gumbo(l))->root, &b, 0);
    int same = a.len == b.len && memcmp(a.ptr, b.ptr, a.len) == 0;
    rc_buf_release(&a);
    rc_buf_release(&b);
    return same;
}

/* The main text by METHOD from both trees: counted, and listed when it differs. */
static void compare_text(const char *what, rc_html *g, rc_html *l, rc_maintext_method method)
{
    rc_maintext_opts o = {.method = method};
    char *a = rc_maintext_text(g, &o, NULL), *b = rc_maintext_text(l, &o, NULL);
    text_pages++;
    if (strcmp(a, b) == 0) {
        text_same++;
    } else {
        double f1 = token_f1(a, b);
        if (f1 < worst_f1)
            worst_f1 = f1;
        fprintf(stderr, "%s: %s text differs: %zu vs %zu bytes, token F1 %.4f\n", what, rc_maintext_method_name(method),
                strlen(a), strlen(b), f1);
        if (getenv("HTMLTREE_VERBOSE"))
            fprintf(stderr, "--- gumbo\n%s\n--- light\n%s\n", a, b);
    }
    free(a);
    free(b);
}

static void compare(const char *what, const char *html, size_t len, int texts)
{
    /* Pages are parsed as the crawler parses them (script and style text skipped); the malformed
     * cases whole: html.c's skipping scans a <style> in svg as raw text, the light tree does not. */
    rc_html_limits gl = {.skip_script_text = texts}, ll = {.skip_script_text = texts, .tree = RC_HTML_TREE_LIGHT};
    rc_html *g = rc_html_parse_limited(html, len, &gl), *l = rc_html_parse_limited(html, len, &ll);
    RC_CHECK(!rc_html_degraded(l));
    if (rc_html_degraded(g)) {
        fprintf(stderr, "%s: gumbo degraded, not compared\n", what);
        goto done;
    }
    pages++;
    same_str(what, "title", rc_html_title(g), rc_html_title(l));
    same_str(what, "base", rc_html_base_href(g), rc_html_base_href(l));
    same_str(what, "refresh", rc_html_meta_refresh(g), rc_html_meta_refresh(l));
    RC_CHECK_INT_EQ(rc_html_robots_flags(g), rc_html_robots_flags(l));
    for (int skip = 0; skip <= 1; skip++) {
        char *a = links_of(g, skip), *b = links_of(l, skip);
        same_str(what, skip ? "links (skip nofollow)" : "links", a, b);
        free(a);
        free(b);
    }
    char *ma = meta_of(g), *mb = meta_of(l);
    same_str(what, "meta", ma, mb);
    free(ma);
    free(mb);
    shape_same += same_shape(g, l);
    if (texts) {
        compare_text(what, g, l, RC_MAINTEXT_ARTICLE);
        compare_text(what, g, l, RC_MAINTEXT_DENSITY);
    }
done:
    rc_html_free(g);
    rc_html_free(l);
}

static void compare_case(const char *what, const char *html, size_t len)
{
    compare(what, html, len, 0);
}

static void compare_page(const char *path, const char *utf8, size_t len)
{
    compare(path, utf8, len, 1);
}

/* Beyond test_htmltok's corpus: what the tree builder itself decides (implied end tags, tables,
 * misnested formatting, the LF after <pre>, text before the body, a second <body>). */
static const char *const cases[] = {
    "<p>one<p>two<ul><li>a<li>b</ul><dl><dt>t<dd>d<dt>u</dl><h2>x<h3>y</h3>",
    "<table><tr><td>1<td>2<tr><td><a href=cell>3</a></table><p>after",
    "<p>para<table><tr><td>in table</td></tr></table>",
    "</p><p>x</b>y</i></div></span>",
    "<pre>\nfirst line\n</pre><textarea>\nta</textarea>",
    "head text<title>late</title>",
    "<html><head></head>\n<body class=x><body id=y>text</body></html>\n<!-- trailing -->",
};

/* The light tree's own shape: html > head + body, implied tbody, namespaces, template. */
static const GumboNode *child(const GumboNode *n, unsigned i)
{
    const GumboVector *v = n->type == GUMBO_NODE_DOCUMENT ? &n->v.document.children : &n->v.element.children;
    return i < v->length ? v->data[i] : NULL;
}

static void test_shape(void)
{
    const char *html = "<!doctype html><title>t</title><table><tr><td>x</table><svg><title>s</title></svg>"
                       "<template><p>in</template>\n";
    rc_html_limits ll = {.tree = RC_HTML_TREE_LIGHT};
    rc_html *doc = rc_html_parse_limited(html, strlen(html), &ll);
    const GumboOutput *out = (const GumboOutput *)rc_html_gumbo(doc);
    RC_CHECK(out->document->v.document.has_doctype);
    const GumboNode *root = out->root;
    RC_CHECK(root->v.element.tag == GUMBO_TAG_HTML && root->parent == out->document);
    const GumboNode *head = child(root, 0), *body = child(root, 1);
    RC_CHECK(head && head->v.element.tag == GUMBO_TAG_HEAD);
    RC_CHECK(body && body->v.element.tag == GUMBO_TAG_BODY && body->index_within_parent == 1);
    const GumboNode *table = body ? child(body, 0) : NULL, *tbody = table ? child(table, 0) : NULL;
    RC_CHECK(tbody && tbody->v.element.tag == GUMBO_TAG_TBODY && tbody->parent == table);
    const GumboNode *svg = body ? child(body, 1) : NULL, *stitle = svg ? child(svg, 0) : NULL;
    RC_CHECK(stitle && stitle->v.element.tag_namespace == GUMBO_NAMESPACE_SVG);
    const GumboNode *tmpl = body ? child(body, 2) : NULL;
    RC_CHECK(tmpl && tmpl->type == GUMBO_NODE_TEMPLATE);
    const GumboNode *ws = body ? child(body, 3) : NULL;
    RC_CHECK(ws && ws->type == GUMBO_NODE_WHITESPACE);
    RC_CHECK_STR_EQ(rc_html_title(doc), "t");
    rc_html_free(doc);
}

/* 200,000 nested divs and as many stray end tags: linear, and the tree is built, not degraded. */
static void test_hostile(void)
{
    rc_buf b;
    rc_buf_init(&b);
    for (int i = 0; i < 200000; i++)
        rc_buf_puts(&b, "<div><b>");
    for (int i = 0; i < 200000; i++)
        rc_buf_puts(&b, "</i></span>");
    rc_buf_puts(&b, "<a href=end>x</a>");
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    rc_html_limits ll = {.tree = RC_HTML_TREE_LIGHT, .max_mem = (size_t)1 << 30, .max_cpu_ms = 60000};
    rc_html *doc = rc_html_parse_limited(b.ptr, b.len, &ll);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double s = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    fprintf(stderr, "htmltree: %zu bytes of nesting in %.3f s\n", b.len, s);
    RC_CHECK(!rc_html_degraded(doc));
    char *links = links_of(doc, 0);
    RC_CHECK_STR_EQ(links, "end\n");
    free(links);
    rc_html_free(doc);
    rc_buf_release(&b);
}

/* Gumbo's amplification case (test_html.c): 1,000 unclosed <b>s then 3,000 paragraphs. Gumbo
 * re-clones the <b>s into every paragraph (~1 GB) and degrades; the light tree reconstructs
 * nothing, so the page stays whole under the default budget. */
static void test_amplification(void)
{
    rc_buf b;
    rc_buf_init(&b);
    rc_buf_puts(&b, "<title>Amp</title><p>");
    for (int i = 0; i < 1000; i++)
        rc_buf_printf(&b, "<b id=%d>", i);
    rc_buf_puts(&b, "</p>");
    for (int i = 0; i < 3000; i++)
        rc_buf_printf(&b, "<p><a href=/p%d>x</a></p>", i);
    rc_html_limits ll = {.tree = RC_HTML_TREE_LIGHT};
    rc_html *doc = rc_html_parse_limited(b.ptr, b.len, &ll);
    RC_CHECK_INT_EQ(rc_html_degraded(doc), 0);
    RC_CHECK_STR_EQ(rc_html_title(doc), "Amp");
    rc_buf links;
    rc_buf_init(&links);
    RC_CHECK_INT_EQ(rc_html_links(doc, 0, SIZE_MAX, rc_test_collect_link, &links), 3000);
    rc_buf_release(&links);
    rc_html_free(doc);
    rc_buf_release(&b);
}

/* The light tree under a budget it cannot meet stops at its next tag (no longjmp: its scratch
 * memory is freed), then the degraded re-parse and the empty document follow as with gumbo. */
static void test_budget(void)
{
    const char *html = "<title>t</title><p>a<p>b<a href=/x>x</a>";
    rc_html_limits tiny = {.tree = RC_HTML_TREE_LIGHT, .max_mem = 1};
    rc_html *doc = rc_html_parse_limited(html, strlen(html), &tiny);
    RC_CHECK_INT_EQ(rc_html_degraded(doc), 1);
    RC_CHECK(rc_html_title(doc) == NULL);
    RC_CHECK(rc_html_gumbo(doc) != NULL);
    rc_html_free(doc);
    rc_html_limits ok = {.tree = RC_HTML_TREE_LIGHT, .max_mem = (size_t)1 << 20};
    doc = rc_html_parse_limited(html, strlen(html), &ok);
    RC_CHECK_INT_EQ(rc_html_degraded(doc), 0);
    RC_CHECK_STR_EQ(rc_html_title(doc), "t");
    rc_html_free(doc);
}

int main(int argc, char **argv)
{
    if (argc > 1)
        data_dir = argv[1];
    rc_test_each_malformed(compare_case);
    for (size_t i = 0; i < RC_ARRAY_LEN(cases); i++)
        compare_case(cases[i], cases[i], strlen(cases[i]));
    size_t ncases = pages;
    rc_test_each_page(data_dir, compare_page);
    fprintf(stderr,
            "htmltree: %zu cases, %zu pages (%zu trees shaped as gumbo's); main text identical on %zu of %zu, worst "
            "token F1 %.4f\n",
            ncases, pages - ncases, shape_same, text_same, text_pages, worst_f1);
    RC_CHECK(pages - ncases > 50);
    RC_CHECK(text_same * 100 >= text_pages * 95);
    RC_CHECK(worst_f1 >= 0.99);
    test_shape();
    test_hostile();
    test_amplification();
    test_budget();
    return rc_test_done("test_htmltree");
}
