/* extract.c - `redcrawl extract`: apply a rule document to a saved page offline and print what the
 * crawler would store (items as JSON Lines) and, with --links, the links its link rules would
 * follow, so rules can be developed the way people use `scrapy shell`; with --text, the page's
 * main text as the crawler stores it (decoded and parsed the way worker/page.c does). */
#include <errno.h>
#include <jansson.h>
#include <libxml/parser.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "charset.h"
#include "cli.h"
#include "config.h"
#include "extract.h"
#include "html.h"
#include "maintext.h"
#include "rules.h"
#include "url.h"
#include "util.h"

#define MAX_PAGE ((size_t)64 * 1024 * 1024)

typedef struct extract_conf {
    char *rules;
    char *url;
    char *field_set;
    int links;
    int second_page;
    int text;
    char *text_method;
} extract_conf;

static const rc_conf_row rows[] = {
    {"rules", RC_CONF_STR, offsetof(extract_conf, rules), NULL, 0, 0, NULL,
     "rule document (JSON), required unless --text"},
    {"text", RC_CONF_BOOL, offsetof(extract_conf, text), "0", 0, 1, NULL,
     "print the page's main text as the crawler stores it (before any items)"},
    {"text-method", RC_CONF_STR, offsetof(extract_conf, text_method), "article", 0, 0, NULL,
     "main-text method for --text: article (the crawler's), density or lineblock"},
    {"url", RC_CONF_STR, offsetof(extract_conf, url), NULL, 0, 0, NULL,
     "the page's URL: stored in items, base for links (default http://localhost/PAGE)"},
    {"field-set", RC_CONF_STR, offsetof(extract_conf, field_set), NULL, 0, 0, NULL,
     "use this entry of field_sets instead of the top-level fields"},
    {"links", RC_CONF_BOOL, offsetof(extract_conf, links), "0", 0, 1, NULL,
     "also print the links the link rules select: {\"url\", \"rule\", \"follow\", \"callback\"}"},
    {"second-page", RC_CONF_BOOL, offsetof(extract_conf, second_page), "0", 0, 1, NULL,
     "PAGE is a detail page: print the second_page fields it yields"},
};
#define NROWS (sizeof rows / sizeof rows[0])

static const char usage_line[] = "usage: redcrawl extract --rules FILE [--url URL] [--links] [--field-set NAME] "
                                 "[--second-page] PAGE.html|-\n"
                                 "       redcrawl extract --text [--text-method NAME] [--rules FILE ...] PAGE.html|-\n";

/* Reads all of PATH ("-" = stdin), at most MAX bytes. NULL with errno set on failure. */
static char *read_all(const char *path, size_t max, size_t *ret_len)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (!f)
        return NULL;
    rc_buf b;
    rc_buf_init(&b);
    rc_buf_append(&b, "", 0);
    char chunk[65536];
    size_t n;
    int toobig = 0;
    while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0) {
        if (b.len + n > max) {
            toobig = 1;
            break;
        }
        rc_buf_append(&b, chunk, n);
    }
    int failed = ferror(f);
    if (f != stdin)
        fclose(f);
    if (toobig || failed) {
        rc_buf_release(&b);
        errno = toobig ? EFBIG : EIO;
        return NULL;
    }
    *ret_len = b.len;
    return rc_buf_steal(&b);
}

static void print_json_line(json_t *v)
{
    char *s = json_dumps(v, JSON_COMPACT);
    if (s) {
        fputs(s, stdout);
        fputc('\n', stdout);
    }
    free(s);
}

static int print_link(void *ud, const char *url, size_t rule, int follow, const char *callback)
{
    json_t *line = json_pack("{s:s, s:I, s:b, s:s?}", "url", url, "rule", (json_int_t)rule, "follow", follow,
                             "callback", callback);
    print_json_line(line);
    json_decref(line);
    return 0;
}

/* The summary on stderr: what was dropped and why, so the rule can be fixed. */
static void report(const char *page, const rc_extract_stats *st)
{
    fprintf(stderr, "redcrawl extract: %s: %zu item%s", page, st->items, st->items == 1 ? "" : "s");
    if (st->dropped)
        fprintf(stderr, ", %zu dropped for a missing required field (first: %s, list position %zu)", st->dropped,
                st->dropped_rule, st->dropped_index);
    fputc('\n', stderr);
    if (st->degraded)
        fprintf(stderr, "redcrawl extract: %s: the page exceeded the parser's budget and was parsed degraded: only "
                        "a/area/base/meta/title and text are left\n", page);
    if (st->truncated)
        fprintf(stderr, "redcrawl extract: %s: a limit cut nodes, items or values\n", page);
}

/* --text: the page decoded to UTF-8 (BOM, <meta>, sniffing: no header offline) and parsed once,
 * as worker/page.c does, then its main text. Returns the exit status. */
static int print_text(const char *page_path, const char *page, size_t len, rc_maintext_method method)
{
    size_t ulen;
    char charset[RC_CHARSET_NAME_MAX];
    rc_charset_detect(page, len, NULL, charset, sizeof charset);
    char *utf8 = rc_charset_to_utf8(page, len, charset, &ulen);
    rc_html *doc = rc_html_parse(utf8, ulen);
    rc_maintext_opts o = {.method = method};
    rc_maintext_method used;
    char *text = rc_maintext_text(doc, &o, &used);
    if (*text)
        printf("%s\n", text);
    fprintf(stderr, "redcrawl extract: %s: %s, main text by %s: %zu bytes\n", page_path, charset,
            rc_maintext_method_name(used), strlen(text));
    free(text);
    rc_html_free(doc);
    free(utf8);
    return fflush(stdout) == 0 ? 0 : 1;
}

int rc_cli_extract(int argc, char **argv)
{
    extract_conf c;
    char err[1024];
    int optind = 0, status = 1;
    char *rules_text = NULL, *page = NULL, *url = NULL;
    rc_rules *rules = NULL;
    rc_html *html = NULL;
    rc_extract_doc *xd = NULL;
    json_t *items = NULL;
    const char *page_path = NULL;
    rc_extract_stats st;
    size_t len;

    memset(&c, 0, sizeof(c));
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            printf("%s\n", usage_line);
            rc_conf_usage(stdout, rows, NROWS);
            printf("\nItems are printed one JSON object a line; the summary and warnings go to stderr.\n");
            return 0;
        }
    if (rc_conf_init(rows, NROWS, &c, err, sizeof(err)) < 0 ||
        rc_conf_argv(rows, NROWS, &c, argc, argv, &optind, err, sizeof(err)) < 0) {
        fprintf(stderr, "redcrawl extract: %s\n%s", err, usage_line);
        status = 2;
        goto fail;
    }
    rc_maintext_method method;
    if ((!c.rules && !c.text) || optind != argc - 1 || rc_maintext_method_parse(c.text_method, &method) < 0) {
        fprintf(stderr, "redcrawl extract: %s\n%s",
                !c.rules && !c.text ? "--rules FILE or --text is required"
                : optind != argc - 1 ? "give exactly one PAGE"
                                     : "--text-method: article, density or lineblock",
                usage_line);
        status = 2;
        goto fail;
    }
    page_path = argv[optind];
    if (!c.rules) {
        if (!(page = read_all(page_path, MAX_PAGE, &len))) {
            fprintf(stderr, "redcrawl extract: %s: %s\n", page_path,
                    errno == EFBIG ? "larger than 64 MiB" : strerror(errno));
            goto fail;
        }
        status = print_text(page_path, page, len, method);
        goto fail;
    }

    if (!(rules_text = read_all(c.rules, RC_RULES_MAX_LEN, &len))) {
        fprintf(stderr, "redcrawl extract: %s: %s\n", c.rules,
                errno == EFBIG ? "larger than the rule document limit" : strerror(errno));
        goto fail;
    }
    if (!(rules = rc_rules_parse(rules_text, len, err, sizeof(err)))) {
        fprintf(stderr, "redcrawl extract: %s: %s\n", c.rules, err);
        goto fail;
    }
    if (c.second_page && !rules->has_second_page) {
        fprintf(stderr, "redcrawl extract: %s: --second-page: the rules have no second_page\n", c.rules);
        goto fail;
    }
    if (c.field_set && !rc_rules_set_get(rules, c.field_set)) {
        fprintf(stderr, "redcrawl extract: %s: no field set named \"%s\"\n", c.rules, c.field_set);
        goto fail;
    }

    if (c.url) {
        int r = rc_url_normalize(c.url, &url);
        if (r != 0) {
            fprintf(stderr, "redcrawl extract: --url %s: %s\n", c.url, rc_url_strerror(r));
            goto fail;
        }
    } else {
        const char *base = strrchr(page_path, '/');
        base = base ? base + 1 : page_path;
        char *guess = rc_xasprintf("http://localhost/%s", strcmp(page_path, "-") == 0 ? "" : base);
        if (rc_url_normalize(guess, &url) != 0)
            url = rc_xstrdup("http://localhost/");
        free(guess);
        fprintf(stderr, "redcrawl extract: no --url; using %s\n", url);
    }

    if (!(page = read_all(page_path, MAX_PAGE, &len))) {
        fprintf(stderr, "redcrawl extract: %s: %s\n", page_path,
                errno == EFBIG ? "larger than 64 MiB" : strerror(errno));
        goto fail;
    }
    if (c.text && (status = print_text(page_path, page, len, method)) != 0)
        goto fail;
    status = 1;
    html = rc_html_parse(page, len);
    xd = rc_extract_doc_new(html);

    if (c.second_page) {
        items = json_pack("{s:s}", "url", url);
        int r = rc_extract_doc_second_page(rules, xd, url, items, &st, err, sizeof(err));
        if (r < 0) {
            fprintf(stderr, "redcrawl extract: %s: %s\n", page_path, err);
            goto fail;
        }
        if (r == 0)
            print_json_line(items);
    } else {
        if (rc_extract_doc_items(rules, xd, url, c.field_set, &items, &st, err, sizeof(err)) < 0) {
            fprintf(stderr, "redcrawl extract: %s: %s\n", page_path, err);
            goto fail;
        }
        size_t i;
        json_t *item;
        json_array_foreach(items, i, item)
            print_json_line(item);
    }
    report(page_path, &st);

    if (c.links) {
        int n = rc_extract_doc_links(rules, xd, url, SIZE_MAX, print_link, NULL, err, sizeof(err));
        if (n < 0) {
            fprintf(stderr, "redcrawl extract: %s: links: %s\n", page_path, err);
            goto fail;
        }
        fprintf(stderr, "redcrawl extract: %s: %d link%s selected by %zu link rule%s\n", page_path, n, n == 1 ? "" : "s",
                rules->nlinks, rules->nlinks == 1 ? "" : "s");
    }
    status = fflush(stdout) == 0 ? 0 : 1;

fail:
    json_decref(items);
    rc_extract_doc_free(xd);
    rc_html_free(html);
    rc_rules_free(rules);
    free(page);
    free(url);
    free(rules_text);
    rc_conf_release(rows, NROWS, &c);
    xmlCleanupParser(); /* the subcommand ends the process */
    return status;
}
