/* test_html.c - rc_html: title, base, robots, refresh, links, hostile pages. */
#include "html.h"
#include "rc_test.h"
#include "util.h"

#include <gumbo.h>
#include <stdint.h>
#include <stdlib.h>

/* Links joined with '|' (empty hrefs show as nothing between separators). */
struct collect {
    rc_buf buf;
    size_t calls;
    size_t stop_at; /* cb returns 1 on this call number; 0 = never */
};

static int collect_cb(void *ud, const char *href, size_t len)
{
    struct collect *c = ud;
    if (c->calls++)
        rc_buf_append(&c->buf, "|", 1);
    rc_buf_append(&c->buf, href, len);
    if (strlen(href) != len) /* href must be NUL-terminated at len */
        rc_buf_puts(&c->buf, "<BADLEN>");
    return c->stop_at && c->calls == c->stop_at;
}

/* Parses HTML and returns its links, skip_nofollow and max as given; caller frees. */
static char *links_of(const char *html, int skip_nofollow, size_t max, size_t *ret_calls)
{
    struct collect c = {.calls = 0, .stop_at = 0};
    rc_buf_init(&c.buf);
    rc_html *doc = rc_html_parse(html, strlen(html));
    size_t n = rc_html_links(doc, skip_nofollow, max, collect_cb, &c);
    if (ret_calls)
        *ret_calls = n;
    RC_CHECK_INT_EQ(n, c.calls);
    rc_html_free(doc);
    return rc_buf_steal(&c.buf);
}

static char *doc_links(rc_html *doc)
{
    struct collect c = {.calls = 0, .stop_at = 0};
    rc_buf_init(&c.buf);
    rc_html_links(doc, 0, SIZE_MAX, collect_cb, &c);
    return rc_buf_steal(&c.buf);
}

#define CHECK_LINKS(html, skip, expect)                                                                                \
    do {                                                                                                               \
        char *got_ = links_of((html), (skip), SIZE_MAX, NULL);                                                         \
        RC_CHECK_STR_EQ(got_, (expect));                                                                               \
        free(got_);                                                                                                    \
    } while (0)

static const char *title_of(rc_html *doc)
{
    const char *t = rc_html_title(doc);
    return t ? t : "(null)";
}

static void test_title_whitespace(void)
{
    const char *html = "<html><head><title>\n  Hello, \t\r\n  World \f </title></head></html>";
    rc_html *doc = rc_html_parse(html, strlen(html));
    RC_CHECK_STR_EQ(rc_html_title(doc), "Hello, World");
    rc_html_free(doc);

    html = "<title>A &amp; B&nbsp;C</title>"; /* entities decoded; NBSP is not ASCII whitespace */
    doc = rc_html_parse(html, strlen(html));
    RC_CHECK_STR_EQ(rc_html_title(doc), "A & B\xc2\xa0"
                                        "C");
    rc_html_free(doc);

    html = "<title> \n </title>"; /* present but empty */
    doc = rc_html_parse(html, strlen(html));
    RC_CHECK_STR_EQ(rc_html_title(doc), "");
    rc_html_free(doc);

    html = "<title><b>not</b> markup</title><title>second</title>"; /* RCDATA, first wins */
    doc = rc_html_parse(html, strlen(html));
    RC_CHECK_STR_EQ(rc_html_title(doc), "<b>not</b> markup");
    rc_html_free(doc);
}

static void test_title_missing(void)
{
    const char *html = "<html><head><meta charset=utf-8></head><body><h1>No title</h1></body></html>";
    rc_html *doc = rc_html_parse(html, strlen(html));
    RC_CHECK(rc_html_title(doc) == NULL);
    RC_CHECK(rc_html_base_href(doc) == NULL);
    RC_CHECK(rc_html_meta_refresh(doc) == NULL);
    RC_CHECK_INT_EQ(rc_html_robots_flags(doc), 0);
    rc_html_free(doc);
}

static void test_title_in_body_and_svg(void)
{
    const char *html = "<body><p>text</p><title> Late   title </title></body>";
    rc_html *doc = rc_html_parse(html, strlen(html));
    RC_CHECK_STR_EQ(title_of(doc), "Late title");
    rc_html_free(doc);

    /* An SVG <title> is a tooltip, not the page title. */
    html = "<body><svg><title>icon</title></svg><p>x</p></body>";
    doc = rc_html_parse(html, strlen(html));
    RC_CHECK_STR_EQ(title_of(doc), "(null)");
    rc_html_free(doc);

    html = "<body><svg><title>icon</title></svg><title>Real</title></body>";
    doc = rc_html_parse(html, strlen(html));
    RC_CHECK_STR_EQ(title_of(doc), "Real");
    rc_html_free(doc);
}

static void test_base_href(void)
{
    const char *html = "<head><base target=_blank><base href=\" /dir/a&amp;b/ \"><base href=/other/>"
                       "</head>";
    rc_html *doc = rc_html_parse(html, strlen(html));
    RC_CHECK_STR_EQ(rc_html_base_href(doc), " /dir/a&b/ "); /* raw: not trimmed, not resolved */
    rc_html_free(doc);

    html = "<BASE HREF=''>";
    doc = rc_html_parse(html, strlen(html));
    RC_CHECK_STR_EQ(rc_html_base_href(doc), "");
    rc_html_free(doc);
}

static void test_links_order_and_raw(void)
{
    CHECK_LINKS("<a href=/1>1</a><p><a href='/2?a=1&amp;b=2'>2</a><map><area href=\"/3\"></map>"
                "<a href=\"  spaced  \">s</a><a name=anchor>no href</a><a href=#frag>f</a>",
                0, "/1|/2?a=1&b=2|/3|  spaced  |#frag");
    /* Links in SVG are not HTML <a>; template contents are inert. */
    CHECK_LINKS("<svg><a href=/svg>x</a></svg><template><a href=/tpl>t</a></template><a href=/ok>", 0, "/ok");
    /* <noscript> contents are markup to a crawler (scripting off). */
    CHECK_LINKS("<body><noscript><a href=/ns>ns</a></noscript></body>", 0, "/ns");
}

static void test_nofollow_tokens(void)
{
    const char *html = "<a href=/a rel=\"noopener NoFollow ugc\">a</a>"
                       "<a href=/b rel=nofollowing>b</a>"
                       "<a href=/c rel=\"external,nofollow\">c</a>"
                       "<a href=/d rel=\"\n\tnofollow\n\">d</a>"
                       "<a href=/e rel=\"sponsored\">e</a>"
                       "<area href=/f rel=nofollow>"
                       "<a href=/g>g</a>";
    CHECK_LINKS(html, 1, "/b|/e|/g");
    CHECK_LINKS(html, 0, "/a|/b|/c|/d|/e|/f|/g");
}

static void test_uppercase(void)
{
    const char *html = "<HTML><HEAD><TITLE>Upper</TITLE><BASE HREF=\"/B/\">"
                       "<META NAME=\"ROBOTS\" CONTENT=\"NOINDEX\"></HEAD>"
                       "<BODY><A HREF=\"/Up\" REL=\"NOFOLLOW\">x</A><AREA HREF=/Ar>"
                       "<a HrEf=/mixed>m</a></BODY></HTML>";
    rc_html *doc = rc_html_parse(html, strlen(html));
    RC_CHECK_STR_EQ(title_of(doc), "Upper");
    RC_CHECK_STR_EQ(rc_html_base_href(doc), "/B/");
    RC_CHECK_INT_EQ(rc_html_robots_flags(doc), RC_HTML_NOINDEX);
    char *got = doc_links(doc);
    RC_CHECK_STR_EQ(got, "/Up|/Ar|/mixed");
    free(got);
    struct collect c = {.calls = 0, .stop_at = 0};
    rc_buf_init(&c.buf);
    RC_CHECK_INT_EQ(rc_html_links(doc, 1, SIZE_MAX, collect_cb, &c), 2);
    RC_CHECK_STR_EQ(c.buf.ptr, "/Ar|/mixed");
    rc_buf_release(&c.buf);
    rc_html_free(doc);
}

static void test_area_links(void)
{
    CHECK_LINKS("<img usemap=#m><map name=m><area shape=rect coords=0,0,1,1 href=/r1>"
                "<area nohref><area shape=circle href='/r2'></map>",
                0, "/r1|/r2");
}

static void test_malformed(void)
{
    /* Unclosed tags, a stray '<' in text, a tag swallowing the next one as attributes,
     * an unterminated final tag (dropped at EOF). */
    CHECK_LINKS("<div><p><a href=/1>one<div <a href=/2>two</div> 1 < 3 <a href='/3'>three"
                "<span><a href=/4>four<a href=\"/5",
                0, "/1|/3|/4");
    /* Unquoted '>' inside a quoted value, duplicate attributes (first wins), misnesting. */
    CHECK_LINKS("<b><a href=\"/x>y\" href=/dup>q</b></a><i><a href=/z></i>", 0, "/x>y|/z");
    /* Junk: NUL bytes, a lone '<', a bogus comment, an unterminated comment. */
    const char junk[] = "<a href=/n\0ul>a</a><<?php echo 1 ?><a href=/after>b</a><!-- <a href=/c>";
    rc_html *doc = rc_html_parse(junk, sizeof(junk) - 1);
    char *got = doc_links(doc);
    RC_CHECK_STR_EQ(got, "/n\xef\xbf\xbdul|/after");
    free(got);
    rc_html_free(doc);
}

static void test_tables(void)
{
    const char *html = "<table><tr><td><a href=/t1>1</a><td><a href=/t2>2</a>"
                       "<tr><td><table><tr><td><a href=/t3>3</table></table>"
                       "<table><a href=/foster>f</a><tr><td>y</table>";
    CHECK_LINKS(html, 0, "/t1|/t2|/t3|/foster");

    /* gumbo inserts <tbody>: the tree extractors see is the spec's. */
    html = "<table><tr><td><a href=/t>x</a></td></tr></table>";
    rc_html *doc = rc_html_parse(html, strlen(html));
    const GumboOutput *out = rc_html_gumbo(doc);
    RC_CHECK(out != NULL && out->root != NULL);
    const GumboNode *body = out->root->v.element.children.data[1];
    RC_CHECK_INT_EQ(body->v.element.tag, GUMBO_TAG_BODY);
    const GumboNode *table = body->v.element.children.data[0];
    RC_CHECK_INT_EQ(table->v.element.tag, GUMBO_TAG_TABLE);
    const GumboNode *tbody = table->v.element.children.data[0];
    RC_CHECK_INT_EQ(tbody->v.element.tag, GUMBO_TAG_TBODY);
    RC_CHECK_INT_EQ(rc_html_degraded(doc), 0);
    rc_html_free(doc);
}

static void test_empty_href(void)
{
    size_t calls = 0;
    char *got = links_of("<a href=\"\">self</a><a href>bare</a><a>none</a><a href=/x>x</a>", 0, SIZE_MAX, &calls);
    RC_CHECK_STR_EQ(got, "||/x"); /* two empty hrefs, then /x */
    RC_CHECK_INT_EQ(calls, 3);
    free(got);
}

static void test_meta_robots(void)
{
    static const struct {
        const char *html;
        int flags;
    } cases[] = {
        {"<meta name=robots content=\"NOINDEX, nofollow\">", RC_HTML_NOINDEX | RC_HTML_NOFOLLOW},
        {"<meta name=robots content=none>", RC_HTML_NOINDEX | RC_HTML_NOFOLLOW},
        {"<meta name=robots content=\"None\">", RC_HTML_NOINDEX | RC_HTML_NOFOLLOW},
        {"<meta name=robots content=noindex>", RC_HTML_NOINDEX},
        {"<meta name=robots content=\"index,follow\">", 0},
        {"<meta name=robots content=\"noindex,nofollow\">", RC_HTML_NOINDEX | RC_HTML_NOFOLLOW},
        {"<meta name=robots content=\"max-snippet:-1 nofollow\">", RC_HTML_NOFOLLOW},
        {"<meta name=robots content=\"noindexx, nofollowed\">", 0},
        {"<meta name=\" Robots \" content=\"noindex\">", RC_HTML_NOINDEX},
        {"<meta name=redcrawl content=nofollow>", RC_HTML_NOFOLLOW},
        {"<meta name=REDCRAWL content=NOINDEX>", RC_HTML_NOINDEX},
        {"<meta name=googlebot content=noindex>", 0},
        {"<meta name=description content=noindex>", 0},
        {"<meta name=robots>", 0},
        {"<meta content=noindex>", 0},
        {"<meta name=robots content=noindex><meta name=redcrawl content=nofollow>", RC_HTML_NOINDEX | RC_HTML_NOFOLLOW},
        {"<body><p>x</p><meta name=robots content=nofollow></body>", RC_HTML_NOFOLLOW},
    };
    for (size_t i = 0; i < RC_ARRAY_LEN(cases); i++) {
        rc_html *doc = rc_html_parse(cases[i].html, strlen(cases[i].html));
        int got = rc_html_robots_flags(doc);
        if (got != cases[i].flags)
            fprintf(stderr, "robots case %zu: %s\n", i, cases[i].html);
        RC_CHECK_INT_EQ(got, cases[i].flags);
        rc_html_free(doc);
    }
}

static void test_meta_refresh(void)
{
    static const struct {
        const char *content;
        const char *url; /* NULL: no link */
    } cases[] = {
        {"0; url=http://a.example/", "http://a.example/"},
        {"5;URL='http://b.example/x y'", "http://b.example/x y"},
        {"0;url=\"/c\" trailing junk", "/c"},
        {"0; URL = /d  ", "/d"},
        {"0 , url=/e", "/e"},
        {"0; /f", "/f"},
        {"  3.5; url=/g", "/g"},
        {".5;url=/h", "/h"},
        {"0;url='/unterminated", "/unterminated"},
        {"0;urlx", "urlx"},
        {"3", NULL},
        {"0;", NULL},
        {"0; url=", NULL},
        {"0; url=''", NULL},
        {"abc; url=/i", NULL},
        {"0url=/j", NULL},
        {"", NULL},
    };
    for (size_t i = 0; i < RC_ARRAY_LEN(cases); i++) {
        char *html = rc_xasprintf("<meta http-equiv=\"Refresh\" content=\"%s\">", cases[i].content);
        /* content may hold a double quote: the tests avoid them except as the value delimiter */
        if (strchr(cases[i].content, '"')) {
            free(html);
            html = rc_xasprintf("<meta http-equiv=refresh content='%s'>", cases[i].content);
        }
        rc_html *doc = rc_html_parse(html, strlen(html));
        const char *got = rc_html_meta_refresh(doc);
        if (cases[i].url) {
            RC_CHECK_STR_EQ(got, cases[i].url);
        } else {
            if (got)
                fprintf(stderr, "refresh case %zu: \"%s\" -> \"%s\"\n", i, cases[i].content, got);
            RC_CHECK(got == NULL);
        }
        rc_html_free(doc);
        free(html);
    }

    /* Only the first parsable refresh counts; http-equiv matched case-insensitively. */
    const char *html = "<meta http-equiv=refresh content=nonsense>"
                       "<META HTTP-EQUIV=REFRESH CONTENT=\"1;url=/first\">"
                       "<meta http-equiv=refresh content=\"0;url=/second\">"
                       "<meta name=refresh content=\"0;url=/not-http-equiv\">";
    rc_html *doc = rc_html_parse(html, strlen(html));
    RC_CHECK_STR_EQ(rc_html_meta_refresh(doc), "/first");
    RC_CHECK(rc_html_meta_refresh_delay(doc) == 1.0); /* the first parsable one's delay */
    rc_html_free(doc);

    html = "<meta http-equiv=refresh content=\"30.9; url='/slow'\">"; /* the integer part, as browsers */
    doc = rc_html_parse(html, strlen(html));
    RC_CHECK_STR_EQ(rc_html_meta_refresh(doc), "/slow");
    RC_CHECK(rc_html_meta_refresh_delay(doc) == 30.0);
    rc_html_free(doc);

    html = "<meta http-equiv=refresh content=5><meta http-equiv=refresh content=\"0;url=/later\">";
    doc = rc_html_parse(html, strlen(html));
    RC_CHECK(rc_html_meta_refresh(doc) == NULL); /* the first one refreshes the page itself */
    rc_html_free(doc);
}

static void test_invalid_utf8(void)
{
    const char html[] = "<title>a\xff\xfe"
                        "b\xc3</title><a href=\"/\xc3(x\">x</a><a href=/\xed\xa0\x80>s</a>"
                        "<p>\x80\x80\x80</p><a href=/ok>ok</a>";
    rc_html *doc = rc_html_parse(html, sizeof(html) - 1);
    RC_CHECK_STR_EQ(rc_html_title(doc), "a\xef\xbf\xbd\xef\xbf\xbd"
                                        "b\xef\xbf\xbd");
    char *got = doc_links(doc);
    RC_CHECK_STR_EQ(got, "/\xef\xbf\xbd(x|/\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd|/ok");
    free(got);
    rc_html_free(doc);
}

static void test_max_and_stop(void)
{
    rc_buf html;
    rc_buf_init(&html);
    for (int i = 0; i < 10; i++)
        rc_buf_printf(&html, "<a href=/%d>%d</a>", i, i);
    size_t calls = 0;
    char *got = links_of(html.ptr, 0, 3, &calls);
    RC_CHECK_STR_EQ(got, "/0|/1|/2");
    RC_CHECK_INT_EQ(calls, 3);
    free(got);

    got = links_of(html.ptr, 0, 0, &calls);
    RC_CHECK_STR_EQ(got, "");
    RC_CHECK_INT_EQ(calls, 0);
    free(got);

    got = links_of(html.ptr, 0, 10, &calls);
    RC_CHECK_INT_EQ(calls, 10);
    free(got);

    /* The callback stops the walk; the stopping call is counted. Links are re-walkable. */
    rc_html *doc = rc_html_parse(html.ptr, html.len);
    struct collect c = {.calls = 0, .stop_at = 2};
    rc_buf_init(&c.buf);
    RC_CHECK_INT_EQ(rc_html_links(doc, 0, SIZE_MAX, collect_cb, &c), 2);
    RC_CHECK_STR_EQ(c.buf.ptr, "/0|/1");
    rc_buf_release(&c.buf);
    c = (struct collect){.calls = 0, .stop_at = 0};
    rc_buf_init(&c.buf);
    RC_CHECK_INT_EQ(rc_html_links(doc, 1, SIZE_MAX, collect_cb, &c), 10);
    rc_buf_release(&c.buf);
    rc_html_free(doc);
    rc_buf_release(&html);
}

/* Deep, but within budget: the walk's explicit stack must grow without recursion. */
static void test_deep_within_budget(void)
{
    rc_buf html;
    rc_buf_init(&html);
    rc_buf_puts(&html, "<title>deep</title>");
    for (int i = 0; i < 3000; i++)
        rc_buf_puts(&html, "<div>");
    rc_buf_puts(&html, "<a href=/bottom>b</a>");
    rc_html *doc = rc_html_parse(html.ptr, html.len);
    RC_CHECK_INT_EQ(rc_html_degraded(doc), 0);
    RC_CHECK_STR_EQ(title_of(doc), "deep");
    char *got = doc_links(doc);
    RC_CHECK_STR_EQ(got, "/bottom");
    free(got);
    rc_html_free(doc);
    rc_buf_release(&html);
}

/* 100,000 nested divs: gumbo is quadratic here (~30 s unbounded); the CPU budget cuts it and the
 * degraded re-parse still finds the title, robots flags and links. */
static void test_deep_hostile(void)
{
    rc_buf html;
    rc_buf_init(&html);
    rc_buf_puts(&html, "<title>deep</title><meta name=robots content=nofollow><a href=/top>t</a>");
    for (int i = 0; i < 100000; i++)
        rc_buf_puts(&html, "<div>");
    rc_buf_puts(&html, "<a href=/bottom>b</a>");
    for (int i = 0; i < 100000; i++)
        rc_buf_puts(&html, "</div>");
    uint64_t t0 = rc_mono_ms();
    rc_html *doc = rc_html_parse(html.ptr, html.len);
    uint64_t ms = rc_mono_ms() - t0;
    fprintf(stderr, "test_html: 100,000 nested divs (%zu bytes) parsed in %llu ms, degraded=%d\n", html.len,
            (unsigned long long)ms, rc_html_degraded(doc));
    RC_CHECK_INT_EQ(rc_html_degraded(doc), 1);
    RC_CHECK_STR_EQ(title_of(doc), "deep");
    RC_CHECK_INT_EQ(rc_html_robots_flags(doc), RC_HTML_NOFOLLOW);
    char *got = doc_links(doc);
    RC_CHECK_STR_EQ(got, "/top|/bottom");
    free(got);
    RC_CHECK(ms < 5000);
    rc_html_free(doc);
    rc_buf_release(&html);
}

/* Formatting-element reconstruction: 1,000 unclosed <b>s re-cloned for every paragraph turn
 * ~35 KB into ~1 GB of nodes. The memory budget cuts it; the degraded parse keeps what matters
 * and drops script bodies, comments and other tags the way gumbo would have. */
static void test_amplification_degraded(void)
{
    rc_buf html;
    rc_buf_init(&html);
    rc_buf_puts(&html, "<head><title>Amp &amp; co</title><base href=/base/>"
                       "<meta name=robots content=noindex>"
                       "<meta http-equiv=refresh content='0;url=/moved'>"
                       "<script>document.write('<a href=/script>');</script>"
                       "<style>a[href=\"/style\"]{}</style></head><body>"
                       "<!-- <a href=/comment> --><a href=\"/q>uoted\" title='x>y'>q</a>"
                       "<textarea><a href=/textarea></textarea><a href=/nf rel=nofollow>n</a>"
                       "<p>");
    for (int i = 0; i < 1000; i++)
        rc_buf_printf(&html, "<b id=%d>", i);
    rc_buf_puts(&html, "</p>");
    for (int i = 0; i < 3000; i++)
        rc_buf_printf(&html, "<p><a href=/p%d>x</a></p>", i);
    rc_html *doc = rc_html_parse(html.ptr, html.len);
    RC_CHECK_INT_EQ(rc_html_degraded(doc), 1);
    RC_CHECK_STR_EQ(title_of(doc), "Amp & co");
    RC_CHECK_STR_EQ(rc_html_base_href(doc), "/base/");
    RC_CHECK_INT_EQ(rc_html_robots_flags(doc), RC_HTML_NOINDEX);
    RC_CHECK_STR_EQ(rc_html_meta_refresh(doc), "/moved");
    struct collect c = {.calls = 0, .stop_at = 0};
    rc_buf_init(&c.buf);
    RC_CHECK_INT_EQ(rc_html_links(doc, 1, 3, collect_cb, &c), 3);
    RC_CHECK_STR_EQ(c.buf.ptr, "/q>uoted|/p0|/p1");
    rc_buf_release(&c.buf);
    RC_CHECK_INT_EQ(rc_html_links(doc, 0, SIZE_MAX, collect_cb, &c), 3002);
    rc_buf_release(&c.buf);
    rc_html_free(doc);
    rc_buf_release(&html);
}

static void test_limits_and_empty(void)
{
    /* A budget nothing fits in: degraded, then empty, but still a valid document. */
    rc_html_limits lim = {.max_mem = 1, .max_cpu_ms = 0};
    const char *html = "<title>t</title><a href=/x>x</a>";
    rc_html *doc = rc_html_parse_limited(html, strlen(html), &lim);
    RC_CHECK_INT_EQ(rc_html_degraded(doc), 1);
    RC_CHECK(rc_html_title(doc) == NULL);
    char *got = doc_links(doc);
    RC_CHECK_STR_EQ(got, "");
    free(got);
    RC_CHECK(rc_html_gumbo(doc) != NULL && rc_html_gumbo(doc)->root != NULL);
    rc_html_free(doc);

    doc = rc_html_parse("", 0);
    RC_CHECK(rc_html_title(doc) == NULL);
    RC_CHECK_INT_EQ(rc_html_links(doc, 0, SIZE_MAX, collect_cb, NULL), 0);
    RC_CHECK(rc_html_gumbo(doc)->root != NULL);
    RC_CHECK_INT_EQ(rc_html_degraded(doc), 0);
    rc_html_free(doc);

    doc = rc_html_parse(NULL, 0);
    RC_CHECK(rc_html_title(doc) == NULL);
    rc_html_free(doc);
    rc_html_free(NULL);

    /* DATA is copied: the caller may overwrite it right away. */
    char buf[] = "<title>copied</title><a href=/c>c</a>";
    doc = rc_html_parse(buf, strlen(buf));
    memset(buf, 'x', strlen(buf));
    RC_CHECK_STR_EQ(title_of(doc), "copied");
    const GumboNode *head = rc_html_gumbo(doc)->root->v.element.children.data[0];
    const GumboNode *title = head->v.element.children.data[0];
    RC_CHECK(title->v.element.original_tag.data[0] == '<');
    rc_html_free(doc);
}

/* The tree as text: "<tag>" for elements, their text children as they are; with OMIT, the text
 * of <script> (but JSON-LD) and <style> elements is left out. */
static void serialize(const GumboNode *n, int omit, rc_buf *b)
{
    if (n->type == GUMBO_NODE_TEXT || n->type == GUMBO_NODE_WHITESPACE || n->type == GUMBO_NODE_CDATA ||
        n->type == GUMBO_NODE_COMMENT) {
        rc_buf_puts(b, n->v.text.text);
        return;
    }
    if (n->type != GUMBO_NODE_ELEMENT && n->type != GUMBO_NODE_DOCUMENT)
        return;
    const GumboVector *kids = n->type == GUMBO_NODE_DOCUMENT ? &n->v.document.children : &n->v.element.children;
    int skip = 0;
    if (n->type == GUMBO_NODE_ELEMENT) {
        rc_buf_printf(b, "<%s%s>", gumbo_normalized_tagname(n->v.element.tag),
                      n->v.element.tag_namespace == GUMBO_NAMESPACE_SVG ? ":svg" : "");
        const GumboAttribute *t = gumbo_get_attribute(&n->v.element.attributes, "type");
        skip = omit && (n->v.element.tag == GUMBO_TAG_STYLE ||
                        (n->v.element.tag == GUMBO_TAG_SCRIPT && n->v.element.tag_namespace == GUMBO_NAMESPACE_HTML &&
                         !(t && strstr(t->value, "ld+json"))));
    }
    for (unsigned i = 0; i < kids->length && !skip; i++)
        serialize(kids->data[i], omit, b);
    if (n->type == GUMBO_NODE_ELEMENT)
        rc_buf_puts(b, "</>");
}

static char *tree_of(const char *html, int skip_script_text, int omit)
{
    rc_html_limits lim = {.skip_script_text = skip_script_text};
    rc_html *doc = rc_html_parse_limited(html, strlen(html), &lim);
    rc_buf b;
    rc_buf_init(&b);
    serialize(rc_html_gumbo(doc)->document, omit, &b);
    rc_html_free(doc);
    return rc_buf_steal(&b);
}

/* skip_script_text: the tree is the full parse less the text of scripts and styles, wherever
 * "<script" appears in places that are not script data (comments, attributes, RCDATA, SVG). */
static void test_skip_script_text(void)
{
    static const char *const pages[] = {
        "<title>a <script> b</title><p>one</p><script>var s = '<p>not a paragraph</p>';</script><p>two</p>",
        "<style>p { color: red } </style ><p>text</p><STYLE type=text/css>a{}</STYLE><p>after</p>",
        "<script type=\"application/ld+json\">{\"articleBody\": \"kept\"}</script><p>x</p>",
        "<script><!-- <script> var x = '</script>'; </script> --></script><p>escaped</p>",
        "<!-- <script> --><p>after a comment</p><a title='<script>' href=/s>link</a><p>end</p>",
        "<textarea><script></textarea><p>after textarea</p><xmp><style></xmp><p>after xmp</p>",
        "<svg><script/><style/><text>svg text</text></svg><p>after svg</p>",
        "<p>unterminated<script>var a = 1; <p>never markup",
        "<script src=x></script><noscript><p>no script</p></noscript><iframe><script></iframe><p>z</p>",
        "<plaintext><script>all text</script>",
        "<p>a < b</p><script>x</script",
    };
    for (size_t i = 0; i < RC_ARRAY_LEN(pages); i++) {
        char *full = tree_of(pages[i], 0, 1), *skipped = tree_of(pages[i], 1, 0);
        RC_CHECK_STR_EQ(skipped, full);
        free(full);
        free(skipped);
    }
    char *t = tree_of(pages[0], 1, 0);
    RC_CHECK(!strstr(t, "not a paragraph") && strstr(t, "<script></>") && strstr(t, "a <script> b"));
    free(t);
    t = tree_of(pages[2], 1, 0);
    RC_CHECK(strstr(t, "\"articleBody\": \"kept\"") != NULL);
    free(t);
}

int main(void)
{
    test_title_whitespace();
    test_title_missing();
    test_title_in_body_and_svg();
    test_base_href();
    test_links_order_and_raw();
    test_nofollow_tokens();
    test_uppercase();
    test_area_links();
    test_malformed();
    test_tables();
    test_empty_href();
    test_meta_robots();
    test_meta_refresh();
    test_invalid_utf8();
    test_max_and_stop();
    test_deep_within_budget();
    test_deep_hostile();
    test_amplification_degraded();
    test_limits_and_empty();
    test_skip_script_text();
    return rc_test_done("test_html");
}
