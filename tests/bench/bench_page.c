/* bench_page.c - what rc_page_process costs on a link-only page (no rules, no text, no content
 * dedup: `redcrawl-links` of scripts/bench.sh), from the fetched bytes to the page record and its
 * link records: decoding, the tokenizer, every link resolved, filtered and hashed. Runs a file
 * (argv[1], e.g. a page tests/bench/peers/benchweb.py wrote) or a built-in page with the bench
 * web's shape, ITERS times (argv[2], default 3000) after a first pass whose links go into the
 * seen-cache (a crawl's steady state: most links were sent before). Prints us per page; asserts
 * nothing (test_page does). BENCH_PAGE_FULL=1: the full pipeline instead (`redcrawl-full`: the light
 * tree, metadata, main text and its digest).
 *   [BENCH_PAGE_FULL=1] build/tests/bench/bench_page [FILE [ITERS]] */
#include "page.h"
#include "html.h"
#include "job.h"
#include "record.h"
#include "response.h"
#include "seen.h"
#include "benchfile.h"
#include "util.h"

#include <jansson.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Nested menus repeating a few dozen hrefs (absolute paths, relative, fragments, other hosts),
 * a paragraph of Chinese and English text every few items: ~30 KB, ~180 links. */
static void build_page(rc_buf *b)
{
    rc_buf_puts(b, "<!DOCTYPE html>\n<html lang=\"zh-CN\"><head><meta charset=\"utf-8\"><title>页面 3</title>"
                   "<script>var x = '<a href=\"/no\">';</script></head><body>\n");
    static const char *const hrefs[] = {"/",
                                        "/p/1.html",
                                        "2.html",
                                        "../p/4.html",
                                        "/p/2.html#section-5",
                                        "/p/3.html",
                                        "http://a1.bench.test:1/p/4.html",
                                        "#top",
                                        "/private/3",
                                        "/p/4.html",
                                        "/",
                                        "1.html",
                                        "/p/1.html",
                                        "mailto:info@example.test"};
    for (int i = 0; i < 180; i++) {
        rc_buf_printf(b, "<li class=\"menu-item\"><a href=\"%s\">Section %d</a></li>\n",
                      hrefs[(size_t)i % RC_ARRAY_LEN(hrefs)], i);
        if (i % 6 == 0)
            rc_buf_puts(b, "<p>分布式爬虫把页面取回、解析并找出新的链接，然后交给调度器。"
                           "The crawler fetches pages, parses them and finds new links.</p>\n");
    }
    rc_buf_puts(b, "</body></html>\n");
}

int main(int argc, char **argv)
{
    rc_buf page;
    rc_buf_init(&page);
    int given = bench_page_arg(&page, argc, argv);
    if (given < 0)
        return 1;
    if (!given)
        build_page(&page);
    int iters = argc > 2 ? (int)strtol(argv[2], NULL, 10) : 3000;
    /* BENCH_PAGE_FULL=1: the full pipeline of `redcrawl crawl` (light tree, metadata, main text,
     * content digest) instead of the link-only path. */
    const char *full = getenv("BENCH_PAGE_FULL");
    const char *spec = full && *full && strcmp(full, "0") != 0
                           ? "{\"crawlid\":\"c\",\"url\":\"http://a0.bench.test:1/\",\"maxdepth\":-1}"
                           : "{\"crawlid\":\"c\",\"url\":\"http://a0.bench.test:1/\",\"maxdepth\":-1,"
                             "\"dedup_content\":false}";
    rc_page_job pj;
    char err[256];
    if (rc_page_job_init(&pj, spec, strlen(spec), NULL, err, sizeof err) < 0) {
        fprintf(stderr, "bench_page: %s\n", err);
        return 1;
    }
    rc_seen *seen = rc_seen_new(1024);
    rc_record rec = {
        .url = (char[]){"http://a0.bench.test:1/p/3.html"}, .crawlid = (char[]){"c"}, .depth = 1, .priority = 50};
    rc_fetch_result res = {.ok = 1,
                           .status = 200,
                           .url = rec.url,
                           .effective_url = rec.url,
                           .content_type = "text/html",
                           .body = page.ptr,
                           .body_len = page.len};
    rc_page_ctx ctx = {.job = &pj.job,
                       .rules = pj.rules,
                       .filter = pj.filter,
                       .bp = &pj.bp,
                       .seen = seen,
                       .rec = &rec,
                       .worker_id = "w1",
                       .max_links = 1000,
                       .tree = RC_HTML_TREE_LIGHT,
                       .now_ms = 1700000000000ull};
    /* The steady state of a crawl: the page's links were sent before (by this page, here). */
    rc_page_result first;
    rc_page_process(&ctx, &res, &first);
    size_t fresh = first.n_links;
    for (size_t i = 0; i < first.n_hashes; i++)
        rc_seen_add(seen, first.hashes[i]);
    rc_page_result_release(&first);
    size_t links = 0, found = 0;
    double t0 = now_s();
    for (int i = 0; i < iters; i++) {
        rc_page_result out;
        rc_page_process(&ctx, &res, &out);
        links += out.n_links;
        found += (size_t)json_integer_value(json_object_get(out.doc, "links"));
        rc_page_result_release(&out);
    }
    double dt = now_s() - t0;
    printf("%zu bytes, %zu links found, %zu new on the first pass, %zu after: %.1f us/page\n", page.len,
           found / (size_t)iters, fresh, links / (size_t)iters, dt / iters * 1e6);
    rc_seen_free(seen);
    rc_page_job_release(&pj);
    rc_buf_release(&page);
    return 0;
}
