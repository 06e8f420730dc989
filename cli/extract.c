/* extract.c - `redcrawl extract`: a saved page through the crawler's own page pipeline
 * (shared/page.c: decode, parse, metadata, main text, items, links), offline, printing what a
 * crawl would store (items as JSON Lines; with --record the page record first) and, with
 * --links, the links it would follow, so rules can be developed the way people use
 * `scrapy shell`. */
#include <errno.h>
#include <jansson.h>
#include <libxml/parser.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "config.h"
#include "frontier.h"
#include "maintext.h"
#include "page.h"
#include "record.h"
#include "response.h"
#include "html.h"
#include "rules.h"
#include "seen.h"
#include "url.h"
#include "util.h"

#define MAX_PAGE ((size_t)64 * 1024 * 1024)

typedef struct extract_conf {
    char *rules;
    char *url;
    char *field_set;
    char *content_type;
    int links;
    int second_page;
    int record;
    int text;
    char *text_method;
    char *tree;
    int64_t maxdepth;
} extract_conf;

static const rc_conf_row rows[] = {
    {"rules", RC_CONF_STR, offsetof(extract_conf, rules), NULL, 0, 0, NULL,
     "rule document (JSON); without it only the record, text and links are shown"},
    {"url", RC_CONF_STR, offsetof(extract_conf, url), NULL, 0, 0, NULL,
     "the page's URL: stored in items, base and scope for links (default http://localhost/PAGE)"},
    {"content-type", RC_CONF_STR, offsetof(extract_conf, content_type), NULL, 0, 0, NULL,
     "the Content-Type the server sent, used as a crawl would (default, or -: none, the page is sniffed)"},
    {"field-set", RC_CONF_STR, offsetof(extract_conf, field_set), NULL, 0, 0, NULL,
     "use this entry of field_sets instead of the top-level fields (a link rule's callback)"},
    {"links", RC_CONF_BOOL, offsetof(extract_conf, links), "0", 0, 1, NULL,
     "also print the links a crawl would follow: {\"links\": {\"url\", \"depth\", \"callback\", \"item\"}}"},
    {"second-page", RC_CONF_BOOL, offsetof(extract_conf, second_page), "0", 0, 1, NULL,
     "PAGE is a detail page: print the item its second_page fields complete"},
    {"maxdepth", RC_CONF_INT, offsetof(extract_conf, maxdepth), "-1", -1, 1000, NULL,
     "the crawl's maxdepth (the page is at depth 0): 0 follows no link"},
    {"record", RC_CONF_BOOL, offsetof(extract_conf, record), "0", 0, 1, NULL,
     "print the page record first, as a crawl stores it"},
    {"text", RC_CONF_BOOL, offsetof(extract_conf, text), "0", 0, 1, NULL,
     "print the page's main text (as `crawl --text` stores it) instead of items"},
    {"text-method", RC_CONF_STR, offsetof(extract_conf, text_method), "article", 0, 0, NULL,
     "main-text method: article (the crawler's), density or lineblock"},
    {"tree", RC_CONF_STR, offsetof(extract_conf, tree), "light", 0, 0, "REDCRAWL_TREE",
     "tree of a page without --rules, as the worker's --tree: light or gumbo"},
};
#define NROWS (sizeof rows / sizeof rows[0])

static const char usage_line[] = "usage: redcrawl extract [--rules FILE] [--url URL] [--record] [--text] [--links] "
                                 "[--field-set NAME] [--second-page] [--content-type TYPE] [--maxdepth N] "
                                 "[--text-method NAME] [--tree light|gumbo] PAGE.html|-\n";

static void print_json_line(json_t *v)
{
    char *s = json_dumps(v, JSON_COMPACT | JSON_PRESERVE_ORDER);
    if (s) {
        fputs(s, stdout);
        fputc('\n', stdout);
    }
    free(s);
}

/* The link records the pipeline would push (each followed by its bloom hash values). */
static size_t print_links(const rc_page_result *out, size_t *waiting)
{
    int stride = 1 + RC_FRONTIER_BLOOM_K;
    size_t n = 0;
    for (int i = 0; i < out->links.n; i += stride) {
        rc_record rec;
        if (rc_record_parse(out->links.v[i], out->links.len[i], &rec) < 0)
            continue;
        json_t *item = rec.item ? json_loads(rec.item, 0, NULL) : NULL;
        *waiting += item != NULL;
        json_t *line = json_pack("{s:{s:s, s:i, s:s?, s:o?}}", "links", "url", rec.url, "depth", rec.depth, "callback",
                                 rec.cb, "item", item);
        print_json_line(line);
        json_decref(line);
        rc_record_release(&rec);
        n++;
    }
    return n;
}

/* The job a crawl of URL with these rules would run (its scope: URL's domain). */
static char *job_spec(const extract_conf *c, const char *url, const char *rules_text, char *err, size_t cap)
{
    json_t *spec = json_pack("{s:s, s:s, s:s, s:s, s:I, s:b}", "crawlid", "extract", "appid", "extract", "spiderid",
                             "extract", "url", url, "maxdepth", (json_int_t)c->maxdepth, "text", c->text);
    if (rules_text) {
        json_error_t je;
        json_t *r = json_loads(rules_text, 0, &je);
        if (!r) {
            snprintf(err, cap, "not JSON: %s (line %d)", je.text, je.line);
            json_decref(spec);
            return NULL;
        }
        json_object_set_new(spec, "rules", r);
    }
    char *s = json_dumps(spec, JSON_COMPACT);
    json_decref(spec);
    return s;
}

static char *page_url(const extract_conf *c, const char *page_path)
{
    char *url = NULL;
    if (c->url) {
        int r = rc_url_normalize(c->url, &url);
        if (r != 0)
            fprintf(stderr, "redcrawl extract: --url %s: %s\n", c->url, rc_url_strerror(r));
        return url;
    }
    const char *base = strrchr(page_path, '/');
    base = base ? base + 1 : page_path;
    char *guess = rc_xasprintf("http://localhost/%s", strcmp(page_path, "-") == 0 ? "" : base);
    if (rc_url_normalize(guess, &url) != 0)
        url = rc_xstrdup("http://localhost/");
    free(guess);
    fprintf(stderr, "redcrawl extract: no --url; using %s\n", url);
    return url;
}

/* Checks the options against the rules; 0 or an exit status. */
static int check_rules(const extract_conf *c, const rc_rules *rules)
{
    if (c->second_page && (!rules || !rules->has_second_page)) {
        fprintf(stderr, "redcrawl extract: --second-page: the rules have no second_page\n");
        return 1;
    }
    if (c->field_set && (!rules || !rc_rules_set_get(rules, c->field_set))) {
        fprintf(stderr, "redcrawl extract: no field set named \"%s\" in the rules\n", c->field_set);
        return 1;
    }
    return 0;
}

/* Runs the pipeline on the page and prints what the options ask for. Returns the exit status. */
static int show(const extract_conf *c, const rc_page_job *pj, const rc_maintext_opts *text_opts, const char *page_path,
                const char *url, const char *page, size_t len)
{
    char empty_item[] = "{}"; /* a detail page completes the list item it came with */
    rc_record rec = {
        .url = (char *)url, .crawlid = pj->job.crawlid, .cb = c->field_set, .item = c->second_page ? empty_item : NULL};
    const char *ctype = c->content_type && strcmp(c->content_type, "-") != 0 ? c->content_type : NULL;
    rc_fetch_result res = {.ok = 1,
                           .status = 200,
                           .url = url,
                           .effective_url = url,
                           .content_type = ctype,
                           .body = page,
                           .body_len = len,
                           .raw_body = page,
                           .raw_len = len};
    rc_seen *seen = rc_seen_new(1024);
    rc_page_ctx ctx = {.job = &pj->job,
                       .rules = pj->rules,
                       .filter = pj->filter,
                       .bp = &pj->bp,
                       .seen = seen,
                       .rec = &rec,
                       .worker_id = "extract",
                       .max_links = SIZE_MAX,
                       .now_ms = rc_now_ms(),
                       .tree = rc_html_tree_parse(c->tree),
                       .text_opts = text_opts};
    rc_page_result out;
    rc_page_process(&ctx, &res, &out);
    if (c->record)
        print_json_line(out.doc);
    if (c->text) {
        const char *t = json_string_value(json_object_get(out.doc, "text"));
        if (t)
            printf("%s\n", t);
    }
    size_t i, waiting = 0, nlinks = 0;
    json_t *item;
    if (!c->text)
        json_array_foreach (out.items, i, item)
            print_json_line(item);
    if (c->links)
        nlinks = print_links(&out, &waiting);
    fprintf(stderr, "redcrawl extract: %s: %s, %zu item%s", page_path,
            json_string_value(json_object_get(out.doc, "charset"))
                ? json_string_value(json_object_get(out.doc, "charset"))
                : "no charset",
            json_array_size(out.items), json_array_size(out.items) == 1 ? "" : "s");
    if (out.items_dropped)
        fprintf(stderr, ", %zu dropped for a missing required field (%s)", out.items_dropped, out.dropped_rule);
    if (c->links)
        fprintf(stderr, ", %zu link%s to follow (%zu carry an item to complete)", nlinks, nlinks == 1 ? "" : "s",
                waiting);
    const char *used = json_string_value(json_object_get(out.doc, "text_method"));
    if (used)
        fprintf(stderr, ", main text by %s", used);
    fputc('\n', stderr);
    rc_page_result_release(&out);
    rc_seen_free(seen);
    return fflush(stdout) == 0 ? 0 : 1;
}

int rc_cli_extract(int argc, char **argv)
{
    extract_conf c;
    char err[1024];
    int optind = 0, status = 1, have_job = 0;
    char *rules_text = NULL, *page = NULL, *url = NULL, *spec = NULL;
    const char *page_path = NULL;
    rc_page_job pj;
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
    rc_maintext_opts text_opts = {0};
    if (optind != argc - 1 || rc_maintext_method_parse(c.text_method, &text_opts.method) < 0 ||
        rc_html_tree_parse(c.tree) < 0) {
        fprintf(stderr, "redcrawl extract: %s\n%s",
                optind != argc - 1 ? "give exactly one PAGE"
                : rc_maintext_method_parse(c.text_method, &text_opts.method) < 0
                    ? "--text-method: article, density or lineblock"
                    : "--tree: light or gumbo",
                usage_line);
        status = 2;
        goto fail;
    }
    page_path = argv[optind];
    if (c.rules && !(rules_text = rc_read_file(c.rules, RC_RULES_MAX_LEN, &len))) {
        fprintf(stderr, "redcrawl extract: %s: %s\n", c.rules,
                errno == EFBIG ? "larger than the rule document limit" : strerror(errno));
        goto fail;
    }
    if (!(url = page_url(&c, page_path)))
        goto fail;
    if (!(spec = job_spec(&c, url, rules_text, err, sizeof err)) ||
        rc_page_job_init(&pj, spec, strlen(spec), NULL, err, sizeof err) < 0) {
        fprintf(stderr, "redcrawl extract: %s: %s\n", c.rules ? c.rules : "job", err);
        goto fail;
    }
    have_job = 1;
    if ((status = check_rules(&c, pj.rules)) != 0)
        goto fail;
    if (!(page = rc_read_file(page_path, MAX_PAGE, &len))) {
        fprintf(stderr, "redcrawl extract: %s: %s\n", page_path,
                errno == EFBIG ? "larger than 64 MiB" : strerror(errno));
        status = 1;
        goto fail;
    }
    status = show(&c, &pj, &text_opts, page_path, url, page, len);

fail:
    if (have_job)
        rc_page_job_release(&pj);
    free(spec);
    free(page);
    free(url);
    free(rules_text);
    rc_conf_release(rows, NROWS, &c);
    xmlCleanupParser(); /* the subcommand ends the process */
    return status;
}
