/* maintext_eval.c - measures rc_maintext_extract on the hand-labelled article pages in
 * tests/data/maintext (pages.tsv; NAME.html and the expected main text NAME.txt): token
 * precision, recall and F1 per page for both methods, and overall (micro: pooled token counts;
 * macro: mean of the per-page F1). Asserts nothing; test_maintext.c holds the floor. Build:
 *   gcc -std=c11 -D_GNU_SOURCE -O2 -Ishared -o /tmp/maintext_eval tests/bench/maintext_eval.c \
 *       shared/maintext.c shared/html.c shared/url.c shared/util.c \
 *       $(pkg-config --cflags --libs gumbo jansson liburiparser libidn2)
 * Run:  /tmp/maintext_eval [-k LINES] [-t THRESHOLD] [--sweep] [--dump NAME] [tests/data]
 *   --sweep  overall F1 of both methods for K = 1..6 and thresholds 40..200
 *   --dump   print NAME's extracted text for both methods */
#include "html.h"
#include "maintext.h"
#include "maintext_score.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PAGES 64

typedef struct page {
    char *name, *url, *html, *expect;
} page;

static size_t load_pages(const char *dir, page *pages)
{
    char *path = rc_xasprintf("%s/pages.tsv", dir);
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "cannot open %s\n", path);
        exit(2);
    }
    free(path);
    char line[2048];
    size_t n = 0;
    while (n < MAX_PAGES && fgets(line, sizeof line, f)) {
        const char *name, *url;
        if (mt_parse_page(line, &name, &url) != 0)
            continue;
        page *p = &pages[n];
        p->name = rc_xstrdup(name);
        p->url = rc_xstrdup(url);
        char *file = rc_xasprintf("%s.html", name);
        p->html = mt_read(dir, file);
        free(file);
        file = rc_xasprintf("%s.txt", name);
        p->expect = mt_read(dir, file);
        free(file);
        if (!p->html || !p->expect) {
            fprintf(stderr, "%s: missing .html or .txt\n", name);
            exit(2);
        }
        n++;
    }
    fclose(f);
    return n;
}

/* Scores every page with OPTS; per-page results in SCORES (may be NULL); returns the micro F1,
 * the macro F1 in *RET_MACRO. */
static double run(page *pages, size_t n, const rc_maintext_opts *opts, mt_score *scores, double *ret_macro,
                  mt_score *ret_total)
{
    mt_score total = {0, 0, 0};
    double macro = 0;
    for (size_t i = 0; i < n; i++) {
        rc_html *doc = rc_html_parse(pages[i].html, strlen(pages[i].html));
        char *got = rc_maintext_extract_opts(doc, opts);
        mt_score s;
        mt_score_texts(got, pages[i].expect, &s);
        if (scores)
            scores[i] = s;
        total.got += s.got;
        total.expect += s.expect;
        total.match += s.match;
        macro += mt_f1(&s);
        free(got);
        rc_html_free(doc);
    }
    if (ret_macro)
        *ret_macro = n ? macro / (double)n : 0;
    if (ret_total)
        *ret_total = total;
    return mt_f1(&total);
}

static void dump(page *pages, size_t n, const char *name, const rc_maintext_opts *base)
{
    for (size_t i = 0; i < n; i++) {
        if (strcmp(pages[i].name, name) != 0)
            continue;
        rc_html *doc = rc_html_parse(pages[i].html, strlen(pages[i].html));
        for (int m = 0; m < 2; m++) {
            rc_maintext_opts o = *base;
            o.method = m ? RC_MAINTEXT_LINEBLOCK : RC_MAINTEXT_DENSITY;
            char *got = rc_maintext_extract_opts(doc, &o);
            printf("==== %s, %s ====\n%s\n", name, m ? "lineblock" : "density", got);
            free(got);
        }
        rc_html_free(doc);
        return;
    }
    fprintf(stderr, "no page %s\n", name);
}

int main(int argc, char **argv)
{
    const char *data = "tests/data", *dump_name = NULL;
    rc_maintext_opts opts = {RC_MAINTEXT_DENSITY, 0, 0};
    int sweep = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-k") == 0 && i + 1 < argc)
            opts.block_lines = (unsigned)strtoul(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "-t") == 0 && i + 1 < argc)
            opts.threshold = (unsigned)strtoul(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--sweep") == 0)
            sweep = 1;
        else if (strcmp(argv[i], "--dump") == 0 && i + 1 < argc)
            dump_name = argv[++i];
        else
            data = argv[i];
    }
    char *dir = rc_xasprintf("%s/maintext", data);
    static page pages[MAX_PAGES];
    size_t n = load_pages(dir, pages);
    free(dir);

    if (dump_name) {
        dump(pages, n, dump_name, &opts);
        return 0;
    }
    if (sweep) {
        printf("%3s %5s  %-22s %-22s\n", "K", "T", "lineblock micro/macro", "density micro/macro");
        for (unsigned k = 1; k <= 6; k++) {
            for (unsigned t = 40; t <= 200; t += 20) {
                double mic[2], mac[2];
                for (int m = 0; m < 2; m++) {
                    rc_maintext_opts o = {m ? RC_MAINTEXT_DENSITY : RC_MAINTEXT_LINEBLOCK, k, t};
                    mic[m] = run(pages, n, &o, NULL, &mac[m], NULL);
                }
                printf("%3u %5u  %.3f / %.3f          %.3f / %.3f\n", k, t, mic[0], mac[0], mic[1], mac[1]);
            }
        }
        return 0;
    }

    mt_score lb[MAX_PAGES], dn[MAX_PAGES], lbt, dnt;
    double lb_macro, dn_macro;
    rc_maintext_opts o = opts;
    o.method = RC_MAINTEXT_LINEBLOCK;
    double lb_micro = run(pages, n, &o, lb, &lb_macro, &lbt);
    o.method = RC_MAINTEXT_DENSITY;
    double dn_micro = run(pages, n, &o, dn, &dn_macro, &dnt);

    printf("Main text extraction, K = %u, threshold = %u, %zu pages (tokens: words; CJK: chars)\n",
           opts.block_lines ? opts.block_lines : 3, opts.threshold ? opts.threshold : 86, n);
    printf("%-22s %6s | %-23s | %-23s\n", "", "", "line-block (published)", "line-block + density");
    printf("%-22s %6s | %7s %7s %7s | %7s %7s %7s\n", "page", "tokens", "P", "R", "F1", "P", "R", "F1");
    for (size_t i = 0; i < n; i++)
        printf("%-22s %6zu | %7.3f %7.3f %7.3f | %7.3f %7.3f %7.3f\n", pages[i].name, lb[i].expect,
               mt_precision(&lb[i]), mt_recall(&lb[i]), mt_f1(&lb[i]), mt_precision(&dn[i]), mt_recall(&dn[i]),
               mt_f1(&dn[i]));
    printf("%-22s %6zu | %7.3f %7.3f %7.3f | %7.3f %7.3f %7.3f\n", "overall (micro)", lbt.expect, mt_precision(&lbt),
           mt_recall(&lbt), lb_micro, mt_precision(&dnt), mt_recall(&dnt), dn_micro);
    printf("%-22s %6s | %7s %7s %7.3f | %7s %7s %7.3f\n", "mean of pages (macro)", "", "", "", lb_macro, "", "",
           dn_macro);
    for (size_t i = 0; i < n; i++) {
        free(pages[i].name);
        free(pages[i].url);
        free(pages[i].html);
        free(pages[i].expect);
    }
    return 0;
}
