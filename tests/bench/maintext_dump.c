/* maintext_dump.c - the main text of many saved pages, for scripts/maintext_bench.py: reads page
 * paths (one a line) on stdin, writes OUTDIR/NAME.txt (NAME = the file name less ".html") and
 * prints the total milliseconds over all pages of charset decoding + parse + extraction, then of
 * each of the three (file reading and writing excluded). The page is parsed as the crawler parses
 * it for a job without XPath rules (script and style bodies skipped), by gumbo or the light tree
 * (-T, default gumbo). Asserts nothing.
 *   maintext_dump [-m article|density|lineblock] [-T gumbo|light] OUTDIR < LIST */
#include "charset.h"
#include "html.h"
#include "maintext.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
    rc_maintext_method m = RC_MAINTEXT_ARTICLE;
    int a = 1, tree = RC_HTML_TREE_GUMBO;
    for (; a + 1 < argc && argv[a][0] == '-'; a += 2) {
        if (strcmp(argv[a], "-m") == 0 && rc_maintext_method_parse(argv[a + 1], &m) == 0)
            continue;
        if (strcmp(argv[a], "-T") == 0 && (tree = rc_html_tree_parse(argv[a + 1])) >= 0)
            continue;
        fprintf(stderr, "maintext_dump: bad option %s %s\n", argv[a], argv[a + 1]);
        return 2;
    }
    if (a != argc - 1) {
        fprintf(stderr, "usage: maintext_dump [-m article|density|lineblock] [-T gumbo|light] OUTDIR < LIST\n");
        return 2;
    }
    const char *outdir = argv[a];
    char path[4096];
    double total = 0, t_decode = 0, t_parse = 0, t_text = 0;
    while (fgets(path, sizeof path, stdin)) {
        path[strcspn(path, "\n")] = 0;
        if (!path[0])
            continue;
        size_t len;
        char *body = rc_read_file(path, 0, &len);
        if (!body) {
            fprintf(stderr, "maintext_dump: %s: cannot read\n", path);
            return 1;
        }
        double t0 = now_ms();
        char cs[RC_CHARSET_NAME_MAX];
        size_t ulen;
        rc_charset_detect(body, len, NULL, cs, sizeof cs);
        char *utf8 = rc_charset_to_utf8(body, len, cs, &ulen);
        double t1 = now_ms();
        rc_html_limits lim = {.skip_script_text = 1, .tree = tree};
        rc_html *doc = rc_html_parse_limited(utf8, ulen, &lim);
        double t2 = now_ms();
        rc_maintext_opts o = {.method = m};
        char *text = rc_maintext_extract_opts(doc, &o);
        double t3 = now_ms();
        rc_html_free(doc);
        double t4 = now_ms();
        total += t4 - t0;
        t_decode += t1 - t0;
        t_parse += (t2 - t1) + (t4 - t3); /* freeing the tree is part of the parse's cost */
        t_text += t3 - t2;
        const char *base = strrchr(path, '/');
        base = base ? base + 1 : path;
        size_t bl = strlen(base);
        if (bl > 5 && strcmp(base + bl - 5, ".html") == 0)
            bl -= 5;
        char *out = rc_xasprintf("%s/%.*s.txt", outdir, (int)bl, base);
        FILE *f = fopen(out, "wb");
        if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
            fprintf(stderr, "maintext_dump: %s: cannot write\n", out);
            return 1;
        }
        free(out);
        free(text);
        free(utf8);
        free(body);
    }
    printf("%.3f %.3f %.3f %.3f\n", total, t_decode, t_parse, t_text);
    return 0;
}
