/* test_extract.c - rules and extraction: the realistic pages of tests/data/extract (cases.json),
 * the bad rules (bad_rules.json), and edge cases: degraded and deep pages, caps, limits, links.
 * Usage: test_extract DATA_DIR. */
#include "extract.h"
#include "html.h"
#include "rc_test.h"
#include "rules.h"
#include "util.h"

#include <errno.h>
#include <jansson.h>
#include <libxml/parser.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

static char *dir_path(const char *dir, const char *name)
{
    return rc_xasprintf("%s/extract/%s", dir, name);
}

static rc_html *load_page(const char *dir, const char *name)
{
    char *path = dir_path(dir, name);
    size_t len;
    char *data = rc_read_file(path, 0, &len);
    rc_html *doc = NULL;
    if (data)
        doc = rc_html_parse(data, len);
    else
        fprintf(stderr, "%s: cannot read\n", path);
    free(data);
    free(path);
    return doc;
}

static rc_rules *load_rules(const char *dir, const char *name)
{
    char *path = dir_path(dir, name);
    size_t len;
    char *data = rc_read_file(path, 0, &len);
    char err[512];
    rc_rules *r = data ? rc_rules_parse(data, len, err, sizeof(err)) : NULL;
    if (!r)
        fprintf(stderr, "%s: %s\n", path, data ? err : "cannot read");
    free(data);
    free(path);
    return r;
}

static rc_rules *rules_of(const char *json)
{
    char err[512];
    rc_rules *r = rc_rules_parse(json, strlen(json), err, sizeof(err));
    if (!r)
        fprintf(stderr, "rules_of: %s\n", err);
    return r;
}

/* EXPECT is inline JSON or a file name under extract/. New reference. */
static json_t *expected(const char *dir, json_t *expect)
{
    if (!json_is_string(expect))
        return json_incref(expect);
    char *path = dir_path(dir, json_string_value(expect));
    json_error_t jerr;
    json_t *v = json_load_file(path, 0, &jerr);
    if (!v)
        fprintf(stderr, "%s: %s\n", path, jerr.text);
    free(path);
    return v;
}

static void check_json(const char *what, const char *name, json_t *got, json_t *want)
{
    rc_test_checks++;
    if (got && want && json_equal(got, want))
        return;
    rc_test_failures++;
    char *g = got ? json_dumps(got, JSON_INDENT(2)) : NULL;
    char *w = want ? json_dumps(want, JSON_INDENT(2)) : NULL;
    fprintf(stderr, "%s: %s differ\n--- got:\n%s\n--- expected:\n%s\n", name, what, g ? g : "(null)", w ? w : "(null)");
    free(g);
    free(w);
}

static int collect_link(void *ud, const char *url, size_t rule, int follow, const char *callback)
{
    json_t *link = json_pack("{s:s, s:I, s:b, s:s?}", "url", url, "rule", (json_int_t)rule, "follow", follow,
                             "callback", callback);
    json_array_append_new(ud, link);
    return 0;
}

static size_t opt_size(json_t *c, const char *key)
{
    json_t *v = json_object_get(c, key);
    return v ? (size_t)json_integer_value(v) : 0;
}

static const char *opt_str(json_t *c, const char *key, const char *def)
{
    json_t *v = json_object_get(c, key);
    return v ? json_string_value(v) : def;
}

/* Second pages: each item whose _second_page_url is in PAGES gets the detail page's fields merged;
 * items the detail page drops are removed, as the crawler would. */
static void run_second_pages(const char *dir, const char *name, const rc_rules *r, json_t *items, json_t *c)
{
    json_t *pages = json_object_get(c, "second_pages");
    size_t dropped = 0;
    const char *drop_rule = "";
    char err[512];
    for (size_t i = 0; i < json_array_size(items);) {
        json_t *item = json_array_get(items, i);
        const char *u = json_string_value(json_object_get(item, "_second_page_url"));
        const char *file = u ? json_string_value(json_object_get(pages, u)) : NULL;
        if (!file) {
            i++;
            continue;
        }
        rc_html *doc = load_page(dir, file);
        rc_extract_stats st;
        int rc = doc ? rc_extract_second_page(r, doc, u, item, &st, err, sizeof(err)) : -EIO;
        rc_html_free(doc);
        RC_CHECK(rc >= 0);
        if (rc < 0)
            fprintf(stderr, "%s: second page %s: %d %s\n", name, u, rc, err);
        if (rc == RC_EXTRACT_DROPPED) {
            RC_CHECK_INT_EQ(st.dropped, 1);
            if (!dropped++)
                drop_rule = json_string_value(json_object_get(c, "second_dropped_rule"));
            RC_CHECK_STR_EQ(st.dropped_rule, drop_rule ? drop_rule : "");
            json_array_remove(items, i);
            continue;
        }
        i++;
    }
    RC_CHECK_INT_EQ(dropped, opt_size(c, "second_dropped"));
}

static int run_case(const char *dir, json_t *c)
{
    const char *name = opt_str(c, "name", "?");
    const char *url = opt_str(c, "url", "http://localhost/");
    const char *field_set = opt_str(c, "field_set", NULL);
    rc_rules *r = load_rules(dir, opt_str(c, "rules", ""));
    rc_html *doc = load_page(dir, opt_str(c, "page", ""));
    RC_CHECK(r != NULL && doc != NULL);
    if (!r || !doc) {
        rc_rules_free(r);
        rc_html_free(doc);
        return 0;
    }
    rc_extract_doc *xd = rc_extract_doc_new(doc);
    json_t *items = NULL;
    rc_extract_stats st;
    char err[512];
    int rc = rc_extract_doc_items(r, xd, url, field_set, &items, &st, err, sizeof(err));
    RC_CHECK_INT_EQ(rc, 0);
    if (rc == 0) {
        RC_CHECK_INT_EQ(st.items, json_array_size(items));
        RC_CHECK_INT_EQ(st.dropped, opt_size(c, "dropped"));
        RC_CHECK_STR_EQ(st.dropped_rule, opt_str(c, "dropped_rule", ""));
        RC_CHECK_INT_EQ(st.dropped_index, opt_size(c, "dropped_index"));
        RC_CHECK_INT_EQ(st.degraded, 0);
        RC_CHECK_INT_EQ(st.truncated, 0);
        if (json_object_get(c, "second_pages"))
            run_second_pages(dir, name, r, items, c);
        json_t *want = expected(dir, json_object_get(c, "expect"));
        check_json("items", name, items, want);
        json_decref(want);
    } else {
        fprintf(stderr, "%s: %s\n", name, err);
    }
    json_decref(items);

    if (json_object_get(c, "links")) {
        json_t *links = json_array();
        int n = rc_extract_doc_links(r, xd, url, SIZE_MAX, collect_link, links, err, sizeof(err));
        RC_CHECK_INT_EQ(n, json_array_size(links));
        json_t *want = expected(dir, json_object_get(c, "links"));
        check_json("links", name, links, want);
        json_decref(want);
        json_decref(links);
    }
    rc_extract_doc_free(xd);
    rc_html_free(doc);
    rc_rules_free(r);
    return 1;
}

static int run_cases(const char *dir)
{
    char *path = dir_path(dir, "cases.json");
    json_error_t jerr;
    json_t *cases = json_load_file(path, 0, &jerr);
    RC_CHECK(json_is_array(cases));
    if (!cases)
        fprintf(stderr, "%s: %s\n", path, jerr.text);
    free(path);
    int n = 0;
    size_t i;
    json_t *c;
    json_array_foreach (cases, i, c)
        n += run_case(dir, c);
    json_decref(cases);
    return n;
}

static int run_bad_rules(const char *dir)
{
    char *path = dir_path(dir, "bad_rules.json");
    json_error_t jerr;
    json_t *cases = json_load_file(path, 0, &jerr);
    RC_CHECK(json_is_array(cases));
    if (!cases)
        fprintf(stderr, "%s: %s\n", path, jerr.text);
    free(path);
    int n = 0;
    size_t i;
    json_t *c;
    json_array_foreach (cases, i, c) {
        const char *want = opt_str(c, "error", "");
        char *text = json_is_string(json_object_get(c, "text"))
                         ? rc_xstrdup(opt_str(c, "text", ""))
                         : json_dumps(json_object_get(c, "rules"), JSON_ENCODE_ANY);
        char err[512] = "";
        rc_rules *r = rc_rules_parse(text, strlen(text), err, sizeof(err));
        rc_test_checks++;
        if (r || !strstr(err, want) || !*want) {
            rc_test_failures++;
            fprintf(stderr, "bad rule \"%s\": %s\n  rules: %s\n  error: %s\n  wanted: %s\n", opt_str(c, "name", "?"),
                    r ? "accepted" : "wrong error", text, err, want);
        }
        rc_rules_free(r);
        free(text);
        n++;
    }
    json_decref(cases);
    return n;
}

/* ---- edge cases ------------------------------------------------------------------------------ */

static json_t *items_of(const char *rules, const char *html, const char *url, rc_extract_stats *st)
{
    rc_rules *r = rules_of(rules);
    rc_html *doc = rc_html_parse(html, strlen(html));
    json_t *items = NULL;
    char err[512];
    int rc = r ? rc_extract_page(r, doc, url, NULL, &items, st, err, sizeof(err)) : -EINVAL;
    if (rc < 0 && r)
        fprintf(stderr, "items_of: %s\n", err);
    rc_html_free(doc);
    rc_rules_free(r);
    return items;
}

static void check_items(const char *name, const char *rules, const char *html, const char *want_json)
{
    rc_extract_stats st;
    json_t *got = items_of(rules, html, "http://example.com/dir/page.html", &st);
    json_t *want = json_loads(want_json, 0, NULL);
    RC_CHECK(want != NULL);
    check_json("items", name, got, want);
    json_decref(got);
    json_decref(want);
}

static void test_small_cases(void)
{
    /* tbody, html/head/body inserted as browsers do; comments and template contents left out */
    check_items("inserted elements",
                "{\"fields\": {\"c\": \"/html/body/table/tbody/tr[2]/td\", "
                "\"n\": \"count(//*)\", \"t\": \"count(//template/node())\"}}",
                "<table><tr><td>a<tr><td>b</table><!-- x --><template><p>t</p></template>",
                "[{\"url\": \"http://example.com/dir/page.html\", \"c\": \"b\", \"n\": \"10\", \"t\": \"0\"}]");
    /* second_page_url: <base href> applies; javascript: links give no URL */
    check_items(
        "second_page_url base", "{\"list_from\": \"//li\", \"second_page_url\": \"a/@href\"}",
        "<base href=\"/other/\"><ul><li><a href=\"x.html?b=1#frag\">x</a><li><a href=\"javascript:go()\">j</a>"
        "<li><a href=\" //cdn.example.org/Y \">y</a></ul>",
        "[{\"url\": \"http://example.com/dir/page.html\", \"_second_page_url\": "
        "\"http://example.com/other/x.html?b=1\"},"
        " {\"url\": \"http://example.com/dir/page.html\"},"
        " {\"url\": \"http://example.com/dir/page.html\", \"_second_page_url\": \"http://cdn.example.org/Y\"}]");
    /* first value skips empty and non-matching nodes; defaults of any JSON type; a list field
     * ("all") that matches nothing is an empty list, not left out */
    check_items(
        "first value",
        "{\"fields\": {\"a\": \"//p/text()\", \"b\": {\"xpath\": \"//p\", \"re\": \"(\\\\d+)\"},"
        " \"c\": {\"xpath\": \"//nope\", \"default\": {\"k\": [1, 2]}}, \"d\": {\"xpath\": \"//nope\", \"all\": "
        "true}}}",
        "<p> <b>x</b> second </p><p>no digits</p><p>n=42</p>",
        "[{\"url\": \"http://example.com/dir/page.html\", \"a\": \"second\", \"b\": \"42\", \"c\": {\"k\": [1, 2]},"
        " \"d\": []}]");
    /* a regex with a group that did not take part: the first group that did */
    check_items("groups", "{\"fields\": {\"a\": {\"xpath\": \"//p\", \"re\": \"(x)|(\\\\d)\", \"all\": true}}}",
                "<p>1x2</p>", "[{\"url\": \"http://example.com/dir/page.html\", \"a\": [\"1\", \"x\", \"2\"]}]");
}

static void test_errors(void)
{
    char err[512];
    rc_rules *r = rules_of("{\"fields\": {\"a\": \"//a\"}, \"second_page_url\": \"//a/@href\"}");
    rc_html *doc = rc_html_parse("<a href=x>x</a>", 15);
    json_t *items = (json_t *)1;
    RC_CHECK_INT_EQ(rc_extract_page(r, doc, "http://e.com/", "nope", &items, NULL, err, sizeof(err)), -ENOENT);
    RC_CHECK(items == (json_t *)1); /* untouched on error */
    RC_CHECK(strstr(err, "no field set named \"nope\"") != NULL);
    json_t *item = json_object();
    RC_CHECK_INT_EQ(rc_extract_second_page(r, doc, "http://e.com/", item, NULL, err, sizeof(err)), -EINVAL);
    RC_CHECK(strstr(err, "no second_page") != NULL);
    json_decref(item);
    RC_CHECK(rc_rules_set_get(r, NULL) == &r->page);
    RC_CHECK(rc_rules_set_get(r, "x") == NULL);
    rc_rules_free(r);

    /* a catastrophic regex hits PCRE2's match limit instead of hanging */
    r = rules_of("{\"fields\": {\"a\": {\"xpath\": \"//p\", \"re\": \"^(a+)+$\"}}}");
    rc_html *aa = rc_html_parse("<p>aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab</p>", 47);
    RC_CHECK_INT_EQ(rc_extract_page(r, aa, "http://e.com/", NULL, &items, NULL, err, sizeof(err)), -EINVAL);
    RC_CHECK(strstr(err, "fields.a: regex failed: match limit exceeded") != NULL);
    rc_html_free(aa);
    rc_rules_free(r);

    /* a cubic XPath on a few thousand elements stops at libxml2's operation limit */
    rc_buf b;
    rc_buf_init(&b);
    for (int i = 0; i < 3000; i++)
        rc_buf_puts(&b, "<i>x</i>");
    r = rules_of("{\"fields\": {\"a\": \"count(//i[count(//i[count(//i) > 0]) > 0])\"}}");
    rc_html *big = rc_html_parse(b.ptr, b.len);
    uint64_t t0 = rc_mono_ms();
    RC_CHECK_INT_EQ(rc_extract_page(r, big, "http://e.com/", NULL, &items, NULL, err, sizeof(err)), -EINVAL);
    RC_CHECK(strstr(err, "fields.a: XPath failed: operation limit exceeded") != NULL);
    fprintf(stderr, "op-limited XPath stopped after %llu ms\n", (unsigned long long)(rc_mono_ms() - t0));
    rc_html_free(big);
    rc_rules_free(r);
    rc_buf_release(&b);

    /* oversized rule documents */
    size_t n = RC_RULES_MAX_LEN + 1;
    char *huge = rc_xmalloc(n);
    memset(huge, ' ', n);
    RC_CHECK(rc_rules_parse(huge, n, err, sizeof(err)) == NULL);
    RC_CHECK(strstr(err, "more than the limit") != NULL);
    free(huge);
    RC_CHECK(rc_rules_parse(NULL, 0, err, sizeof(err)) == NULL);
    RC_CHECK(rc_rules_parse("{}", 2, NULL, 0) == NULL); /* err may be NULL */

    /* a field whose value is a caller string that is not UTF-8 */
    r = rules_of("{\"fields\": {\"a\": \"//a\"}}");
    RC_CHECK_INT_EQ(rc_extract_page(r, doc, "http://e.com/\xff", NULL, &items, NULL, err, sizeof(err)), 0);
    RC_CHECK_STR_EQ(json_string_value(json_object_get(json_array_get(items, 0), "url")), "http://e.com/\xEF\xBF\xBD");
    json_decref(items);
    rc_rules_free(r);
    rc_html_free(doc);

    rc_rules_free(NULL);
    rc_extract_doc_free(NULL);
}

static void test_degraded(void)
{
    /* Formatting-element reconstruction (1,000 unclosed <b>s re-cloned into every paragraph)
     * blows the memory budget: the page is re-parsed with only a/area/base/meta/title kept.
     * //a, //title and text still work; structural XPaths find nothing. */
    rc_buf b;
    rc_buf_init(&b);
    rc_buf_puts(&b, "<title>Hostile</title><div class=list><p>");
    for (int i = 0; i < 1000; i++)
        rc_buf_printf(&b, "<b id=%d>", i); /* distinct, or the Noah's Ark clause keeps 3 */
    rc_buf_puts(&b, "</p>");
    for (int i = 0; i < 500; i++)
        rc_buf_puts(&b, "<p>x</p>");
    rc_buf_puts(&b, "<a href=\"/next\">next page</a> tail</div>");
    rc_html *doc = rc_html_parse(b.ptr, b.len);
    RC_CHECK(rc_html_degraded(doc));
    rc_rules *r = rules_of("{\"fields\": {\"title\": \"//title\", \"next\": \"//a/@href\", \"cls\": "
                           "{\"xpath\": \"//div[@class='list']\", \"default\": \"no structure\"}},"
                           " \"links\": [{\"allow\": \"next\"}]}");
    json_t *items = NULL;
    rc_extract_stats st;
    char err[256];
    RC_CHECK_INT_EQ(rc_extract_page(r, doc, "http://e.com/", NULL, &items, &st, err, sizeof(err)), 0);
    RC_CHECK_INT_EQ(st.degraded, 1);
    json_t *want = json_loads("[{\"url\": \"http://e.com/\", \"title\": \"Hostile\", \"next\": \"/next\", "
                              "\"cls\": \"no structure\"}]",
                              0, NULL);
    check_json("items", "degraded", items, want);
    json_decref(want);
    json_decref(items);
    json_t *links = json_array();
    RC_CHECK_INT_EQ(rc_extract_links(r, doc, "http://e.com/", 10, collect_link, links, err, sizeof(err)), 1);
    RC_CHECK_STR_EQ(json_string_value(json_object_get(json_array_get(links, 0), "url")), "http://e.com/next");
    json_decref(links);
    rc_rules_free(r);
    rc_html_free(doc);
    rc_buf_release(&b);
}

static void test_deep(void)
{
    /* Deep nesting: the conversion and libxml2 walk without recursion. */
    enum { DEPTH = 5000 };
    rc_buf b;
    rc_buf_init(&b);
    for (int i = 0; i < DEPTH; i++)
        rc_buf_puts(&b, "<div>");
    rc_buf_puts(&b, "<a href=/deep>bottom</a>");
    rc_html_limits lim = {.max_mem = 0, .max_cpu_ms = 60000};
    rc_html *doc = rc_html_parse_limited(b.ptr, b.len, &lim);
    RC_CHECK(!rc_html_degraded(doc));
    rc_extract_doc *xd = rc_extract_doc_new(doc);
    RC_CHECK_INT_EQ(rc_extract_doc_elements(xd), DEPTH + 4); /* html head body a */
    rc_rules *r = rules_of("{\"fields\": {\"n\": \"count(//div)\", \"s\": \"string(/html/body/div)\", "
                           "\"d\": \"count(//a/ancestor::*)\"}, \"links\": [{\"restrict_xpaths\": \"//div\"}]}");
    json_t *items = NULL;
    char err[256];
    RC_CHECK_INT_EQ(rc_extract_doc_items(r, xd, "http://e.com/", NULL, &items, NULL, err, sizeof(err)), 0);
    json_t *want = json_pack("[{s:s, s:s, s:s, s:s}]", "url", "http://e.com/", "n", "5000", "s", "bottom", "d", "5002");
    check_json("items", "deep", items, want);
    json_decref(want);
    json_decref(items);
    json_t *links = json_array();
    RC_CHECK_INT_EQ(rc_extract_doc_links(r, xd, "http://e.com/", 10, collect_link, links, err, sizeof(err)), 1);
    json_decref(links);
    rc_rules_free(r);
    rc_extract_doc_free(xd);
    rc_html_free(doc);
    rc_buf_release(&b);
}

static int stop_after_one(void *ud, const char *url, size_t rule, int follow, const char *callback)
{
    (*(int *)ud)++;
    return 1;
}

static void test_links(void)
{
    const char *html = "<a href=/a>a</a><a href=/b>b</a><a href=/a#x>a again</a><a href=/c>c</a>"
                       "<a href='http://x.sub.example.org/'>sub</a><a href='http://notexample.org/'>no</a>"
                       "<a href='mailto:x@example.com'>m</a><a>no href</a>";
    rc_rules *r = rules_of("{\"links\": [{\"allow_domains\": [\"*.EXAMPLE.org\"]}, {\"deny\": \"/c$\"}]}");
    rc_html *doc = rc_html_parse(html, strlen(html));
    char err[256];
    json_t *links = json_array();
    RC_CHECK_INT_EQ(rc_extract_links(r, doc, "http://e.com/p", SIZE_MAX, collect_link, links, err, sizeof(err)), 4);
    json_t *want =
        json_loads("[{\"url\": \"http://e.com/a\", \"rule\": 1, \"follow\": true, \"callback\": null},"
                   " {\"url\": \"http://e.com/b\", \"rule\": 1, \"follow\": true, \"callback\": null},"
                   " {\"url\": \"http://x.sub.example.org/\", \"rule\": 0, \"follow\": true, \"callback\": null},"
                   " {\"url\": \"http://notexample.org/\", \"rule\": 1, \"follow\": true, \"callback\": null}]",
                   0, NULL);
    check_json("links", "domains, dedupe, deny", links, want);
    json_decref(want);
    json_decref(links);
    links = json_array();
    RC_CHECK_INT_EQ(rc_extract_links(r, doc, "http://e.com/p", 2, collect_link, links, err, sizeof(err)), 2);
    RC_CHECK_INT_EQ(json_array_size(links), 2);
    json_decref(links);
    int calls = 0;
    RC_CHECK_INT_EQ(rc_extract_links(r, doc, "http://e.com/p", SIZE_MAX, stop_after_one, &calls, err, sizeof(err)), 1);
    RC_CHECK_INT_EQ(calls, 1);
    rc_rules_free(r);

    /* follow defaults to false with a callback (Scrapy); regex errors never call back */
    r = rules_of("{\"links\": [{\"allow\": \"^(a+)+$\", \"callback\": \"s\"}, {\"callback\": \"s\", \"follow\": true}],"
                 " \"field_sets\": {\"s\": {\"fields\": {\"t\": \"//title\"}}}}");
    RC_CHECK_INT_EQ(r->links[0].follow, 0);
    RC_CHECK_INT_EQ(r->links[1].follow, 1);
    rc_rules_free(r);
    rc_html_free(doc);
    rc_buf b;
    rc_buf_init(&b);
    rc_buf_puts(&b, "<a href='/");
    for (int i = 0; i < 40; i++)
        rc_buf_puts(&b, "a");
    rc_buf_puts(&b, "!'>x</a>");
    r = rules_of("{\"links\": [{\"allow\": \"/(a+)+$\"}]}");
    doc = rc_html_parse(b.ptr, b.len);
    calls = 0;
    RC_CHECK_INT_EQ(rc_extract_links(r, doc, "http://e.com/", SIZE_MAX, stop_after_one, &calls, err, sizeof(err)),
                    -EINVAL);
    RC_CHECK_INT_EQ(calls, 0);
    RC_CHECK(strstr(err, "links[0].allow[0]: regex failed") != NULL);
    rc_rules_free(r);
    rc_html_free(doc);
    rc_buf_release(&b);
}

static void test_caps(void)
{
    rc_buf b;
    rc_buf_init(&b);
    rc_buf_puts(&b, "<ul>");
    for (int i = 0; i < RC_EXTRACT_MAX_ITEMS + 5; i++)
        rc_buf_printf(&b, "<li>%d</li>", i);
    rc_buf_puts(&b, "</ul>");
    rc_rules *r = rules_of("{\"list_from\": \"//li\", \"fields\": {\"n\": \".\"}}");
    rc_html *doc = rc_html_parse(b.ptr, b.len);
    json_t *items = NULL;
    rc_extract_stats st;
    char err[256];
    RC_CHECK_INT_EQ(rc_extract_page(r, doc, "http://e.com/", NULL, &items, &st, err, sizeof(err)), 0);
    RC_CHECK_INT_EQ(json_array_size(items), RC_EXTRACT_MAX_ITEMS);
    RC_CHECK_INT_EQ(st.truncated, 1);
    json_decref(items);
    rc_rules_free(r);
    r = rules_of("{\"fields\": {\"n\": {\"xpath\": \"//li\", \"all\": true}}}");
    RC_CHECK_INT_EQ(rc_extract_page(r, doc, "http://e.com/", NULL, &items, &st, err, sizeof(err)), 0);
    RC_CHECK_INT_EQ(json_array_size(json_object_get(json_array_get(items, 0), "n")), RC_EXTRACT_MAX_VALUES);
    RC_CHECK_INT_EQ(st.truncated, 1);
    json_decref(items);
    rc_rules_free(r);
    rc_html_free(doc);
    rc_buf_release(&b);
}

/* ---- timing ---------------------------------------------------------------------------------- */

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static void timing(void)
{
    rc_buf b;
    rc_buf_init(&b);
    rc_buf_puts(&b,
                "<!doctype html><html><head><title>Shop</title></head><body><div id=app><ul class=\"products grid\">");
    for (int i = 0; b.len < 30 * 1024; i++)
        rc_buf_printf(&b,
                      "\n<li class=\"product\" data-sku=\"SKU-%d\">\n  <a class=thumb href=\"/p/%d\"><img "
                      "src=\"/img/%d.jpg\" alt=\"\"></a>\n"
                      "  <h2 class=name><a href=\"/p/%d\">Product number %d with a longer name</a></h2>\n"
                      "  <div class=price><span class=now>&euro;%d,99</span></div>\n"
                      "  <div class=rating data-rating=\"4.%d\"><a href=\"/p/%d#reviews\">(%d reviews)</a></div>\n"
                      "  %s<p class=\"stock in\">In stock</p>\n</li>",
                      i, i, i, i, i, 10 + i, i % 10, i, i * 7, i % 3 ? "" : "<span class=badge>Sale</span>");
    rc_buf_puts(&b, "</ul></div></body></html>");
    rc_rules *r = rules_of(
        "{\"list_from\": \"//ul[contains(@class, 'products')]/li[@class='product']\", \"fields\": {"
        "\"sku\": {\"xpath\": \"@data-sku\", \"required\": true},"
        "\"name\": \".//h2[@class='name']/a\","
        "\"price\": {\"xpath\": \".//span[@class='now']\", \"re\": \"([\\\\d.,]+)\"},"
        "\"rating\": \"./div[@class='rating']/@data-rating\","
        "\"reviews\": {\"xpath\": \".//div[@class='rating']/a\", \"re\": \"(\\\\d+) reviews\", \"default\": 0},"
        "\"badge\": {\"xpath\": \".//span[@class='badge']\", \"default\": \"none\"}}}");
    enum { RUNS = 31 };
    uint64_t parse[RUNS], conv[RUNS], ext[RUNS];
    size_t nitems = 0, nelems = 0;
    for (int k = 0; k < RUNS; k++) {
        uint64_t t0 = rc_now_us();
        rc_html *doc = rc_html_parse(b.ptr, b.len);
        uint64_t t1 = rc_now_us();
        rc_extract_doc *xd = rc_extract_doc_new(doc);
        uint64_t t2 = rc_now_us();
        json_t *items = NULL;
        char err[256];
        RC_CHECK_INT_EQ(rc_extract_doc_items(r, xd, "http://e.com/", NULL, &items, NULL, err, sizeof(err)), 0);
        uint64_t t3 = rc_now_us();
        parse[k] = t1 - t0;
        conv[k] = t2 - t1;
        ext[k] = t3 - t2;
        nitems = json_array_size(items);
        nelems = rc_extract_doc_elements(xd);
        json_decref(items);
        rc_extract_doc_free(xd);
        rc_html_free(doc);
    }
    qsort(parse, RUNS, sizeof(uint64_t), cmp_u64);
    qsort(conv, RUNS, sizeof(uint64_t), cmp_u64);
    qsort(ext, RUNS, sizeof(uint64_t), cmp_u64);
    fprintf(stderr,
            "timing (median of %d, this build's flags): %zu-byte page, %zu elements, %zu items x 6 fields: "
            "gumbo parse %llu us, gumbo->libxml2 %llu us, extraction %llu us\n",
            RUNS, b.len, nelems, nitems, (unsigned long long)parse[RUNS / 2], (unsigned long long)conv[RUNS / 2],
            (unsigned long long)ext[RUNS / 2]);
    rc_rules_free(r);
    rc_buf_release(&b);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s DATA_DIR\n", argv[0]);
        return 2;
    }
    int pages = run_cases(argv[1]);
    int bad = run_bad_rules(argv[1]);
    fprintf(stderr, "%d page cases, %d bad-rule cases\n", pages, bad);
    RC_CHECK(pages >= 8);
    RC_CHECK(bad >= 15);
    test_small_cases();
    test_errors();
    test_degraded();
    test_deep();
    test_links();
    test_caps();
    timing();
    xmlCleanupParser();
    return rc_test_done("test_extract");
}
