/* bench_html.c - what a link-only page costs: gumbo's parse + link walk + metadata against the
 * streaming tokenizer's scan + links + metadata, on a realistic ~30 KB page (or a file given as
 * argv[1]). Prints, asserts nothing (test_htmltok proves the answers equal).
 *   build/tests/bench/bench_html [FILE] */
#include "html.h"
#include "htmltok.h"
#include "maintext.h"
#include "benchfile.h"
#include "util.h"

#include <jansson.h>

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A news/shop-like page: head with metas, stylesheet links, an inline script and style; a nav,
 * articles with inline links, a product table, a footer. */
static void build_page(rc_buf *b, size_t target)
{
    rc_buf_puts(b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
                   "<title>Example News &mdash; Today's headlines and more</title>\n"
                   "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
                   "<meta name=\"description\" content=\"Breaking news, analysis and opinion.\">\n"
                   "<meta name=\"robots\" content=\"index, follow, max-image-preview:large\">\n"
                   "<link rel=\"stylesheet\" href=\"/static/css/main.4f2a9c.css\">\n"
                   "<link rel=\"canonical\" href=\"https://news.example.com/\">\n"
                   "<base href=\"https://news.example.com/\">\n"
                   "<script>window.dataLayer=window.dataLayer||[];function gtag(){dataLayer.push("
                   "arguments);}gtag('js',new Date());gtag('config','G-XXXX');var s=document."
                   "createElement('script');s.src='/static/js/app.js';s.async=true;document.head."
                   "appendChild(s);if(a<b&&c>d){console.log('<a href=\"/nope\">');}</script>\n"
                   "<style>body{font:16px/1.5 system-ui,sans-serif;margin:0}.nav a{padding:0 8px}"
                   ".card{border:1px solid #ddd;border-radius:4px;margin:8px}.price{color:#b00}"
                   "</style></head>\n<body class=\"home\"><header><a class=\"logo\" href=\"/\">"
                   "<img src=\"/logo.svg\" alt=\"Example\"></a><nav class=\"nav\"><ul>\n");
    static const char *const sections[] = {"world",  "politics", "business", "tech",   "science",
                                           "health", "sports",   "culture",  "travel", "opinion"};
    for (size_t i = 0; i < RC_ARRAY_LEN(sections); i++)
        rc_buf_printf(b, "<li><a href=\"/%s/\" data-track=\"nav-%zu\">%s</a></li>\n", sections[i], i, sections[i]);
    rc_buf_puts(b, "</ul></nav><form action=\"/search\"><input name=q placeholder=\"Search\">"
                   "<button>Go</button></form></header>\n<main>\n");
    for (int n = 0; b->len + 2500 < target; n++) {
        rc_buf_printf(b,
                      "<article class=\"card\" id=\"story-%d\"><h2><a href=\"/%s/2024/05/%02d/"
                      "story-number-%d-with-a-long-slug\">Headline number %d about something "
                      "important</a></h2>\n<p class=\"byline\">By <a href=\"/authors/jane-doe-%d\">"
                      "Jane Doe</a> &middot; <time datetime=\"2024-05-%02dT10:00:00Z\">May %d</time>"
                      "</p>\n<p>Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do "
                      "eiusmod tempor <a href=\"https://other.example.org/ref/%d?utm_source=news&amp;"
                      "utm_medium=link\" rel=\"noopener nofollow\">incididunt</a> ut labore et dolore "
                      "magna aliqua. Ut enim ad minim veniam, quis nostrud exercitation ullamco "
                      "<em>laboris</em> nisi ut aliquip ex ea commodo consequat.</p>\n<ul class=\"tags\">"
                      "<li><a href=\"/tag/a%d\">tag a</a><li><a href=\"/tag/b%d\">tag b</a></ul>\n",
                      n, sections[n % 10], n % 28 + 1, n, n, n % 7, n % 28 + 1, n % 28 + 1, n, n, n);
        rc_buf_puts(b, "<table class=\"prices\"><tr><th>Item<th>Price<th>Stock\n");
        for (int r = 0; r < 4; r++)
            rc_buf_printf(b,
                          "<tr><td><a href=\"/shop/item-%d-%d\">Item %d</a><td class=price>"
                          "$%d.99<td>%s\n",
                          n, r, r, 10 + r * 7, r % 2 ? "yes" : "no");
        rc_buf_puts(b, "</table><div class=\"share\"><a href=\"https://social.example/share?u=x\">"
                       "Share</a> <a href=\"#comments\">Comments</a></div></article>\n");
    }
    rc_buf_puts(b, "</main><footer><p>&copy; 2024 Example News</p><ul>");
    for (int i = 0; i < 20; i++)
        rc_buf_printf(b, "<li><a href=\"/about/page-%d\">Footer link %d</a></li>", i, i);
    rc_buf_puts(b, "</ul><!-- analytics <a href=/hidden> --></footer></body></html>\n");
}

static int count_cb(void *ud, const char *href, size_t len)
{
    *(size_t *)ud += len;
    return 0;
}

static size_t sink;

static void run_gumbo(const rc_buf *page)
{
    rc_html *doc = rc_html_parse(page->ptr, page->len);
    rc_html_links(doc, 1, SIZE_MAX, count_cb, &sink);
    json_t *meta = json_object();
    rc_maintext_meta(doc, "https://news.example.com/", meta);
    sink += json_object_size(meta);
    json_decref(meta);
    rc_html_free(doc);
}

static void run_tok(const rc_buf *page)
{
    rc_htmltok *t = rc_htmltok_scan(page->ptr, page->len);
    rc_htmltok_links(t, 1, SIZE_MAX, count_cb, &sink);
    json_t *meta = json_object();
    rc_htmltok_meta(t, "https://news.example.com/", meta);
    sink += json_object_size(meta);
    json_decref(meta);
    rc_htmltok_free(t);
}

/* Warms up, then times enough iterations for ~1 s; returns seconds per page. */
static double time_it(const char *name, void (*fn)(const rc_buf *), const rc_buf *page)
{
    int iters = 20;
    double t0 = now_s();
    for (int i = 0; i < iters; i++)
        fn(page);
    double one = (now_s() - t0) / iters;
    iters = one > 0 ? (int)(1.0 / one) + 1 : 1000;
    t0 = now_s();
    for (int i = 0; i < iters; i++)
        fn(page);
    double per = (now_s() - t0) / iters;
    printf("%-34s %8.1f us/page over %6d iterations (%6.1f MB/s, %6.0f pages/s/core)\n", name, per * 1e6, iters,
           (double)page->len / per / 1e6, 1.0 / per);
    return per;
}

int main(int argc, char **argv)
{
    rc_buf page;
    rc_buf_init(&page);
    int given = bench_page_arg(&page, argc, argv);
    if (given < 0)
        return 1;
    if (!given)
        build_page(&page, 30 * 1024);

    size_t bytes = 0, links = 0;
    rc_html *doc = rc_html_parse(page.ptr, page.len);
    links = rc_html_links(doc, 0, SIZE_MAX, count_cb, &bytes);
    printf("page: %zu bytes, %zu links (%zu followable), title \"%s\", degraded=%d\n", page.len, links,
           rc_html_links(doc, 1, SIZE_MAX, count_cb, &bytes), rc_html_title(doc) ? rc_html_title(doc) : "(none)",
           rc_html_degraded(doc));
    rc_html_free(doc);

    double g = time_it("gumbo: parse+links+meta+free", run_gumbo, &page);
    double t = time_it("htmltok: scan+links+meta+free", run_tok, &page);
    printf("htmltok takes %.1f%% of gumbo's time (%.1fx faster)\n", 100.0 * t / g, g / t);
    rc_buf_release(&page);
    return bytes + sink == 0; /* keeps the work observable */
}
