/* bench_charset.c - what decoding a page costs: rc_charset_decode (detect + convert) on a page
 * labelled UTF-8 by its header, on a page with non-ASCII only in <meta> (sniffed), and on pure
 * ASCII; a file given as argv[1] replaces the built-in mixed page (tests/bench/peers/benchweb.py
 * writes the bench web's). Prints ns per page and MB/s, asserts nothing (test_charset does).
 *   build/tests/bench/bench_charset [FILE] */
#include "charset.h"
#include "benchfile.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ~31 KB of markup with a Chinese and English paragraph every few lines, as the bench web's. */
static void build_page(rc_buf *b)
{
    rc_buf_puts(
        b, "<!DOCTYPE html>\n<html lang=\"zh-CN\"><head><meta charset=\"utf-8\"><title>页面</title></head><body>\n");
    for (int i = 0; b->len < 31000; i++) {
        rc_buf_printf(b, "<li class=\"menu-item\"><a href=\"/p/%d.html\">Section %d</a></li>\n", i, i);
        if (i % 6 == 0)
            rc_buf_puts(b, "<p>分布式爬虫把页面取回、解析并找出新的链接，然后交给调度器。"
                           "The crawler fetches pages, parses them and finds new links.</p>\n");
    }
    rc_buf_puts(b, "</body></html>\n");
}

static void run(const char *what, const char *body, size_t len, const char *ct)
{
    char name[RC_CHARSET_NAME_MAX];
    int iters = (int)(400000000 / (len + 1000));
    double t0 = now_s();
    size_t sum = 0;
    int src = 0;
    for (int i = 0; i < iters; i++) {
        char *out;
        size_t n;
        src = rc_charset_decode(body, len, ct, name, sizeof name, &out, &n);
        sum += n;
        free(out);
    }
    double dt = now_s() - t0;
    printf("%-28s %6zu bytes  %s (%s)  %8.0f ns/page  %6.0f MB/s  (%zu)\n", what, len, name,
           rc_charset_source_name(src), dt / iters * 1e9, (double)len * iters / dt / 1e6, sum / (size_t)iters);
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
    run("mixed, header utf-8", page.ptr, page.len, "text/html; charset=utf-8");
    run("mixed, <meta> utf-8", page.ptr, page.len, "text/html");
    rc_buf ascii;
    rc_buf_init(&ascii);
    for (size_t i = 0; i < page.len; i++)
        if ((unsigned char)page.ptr[i] < 0x80)
            rc_buf_append(&ascii, page.ptr + i, 1);
    run("ASCII, header utf-8", ascii.ptr, ascii.len, "text/html; charset=utf-8");
    rc_buf_release(&ascii);
    rc_buf_release(&page);
    return 0;
}
