/* test_page.c - from a fetch result to the page record, items and link records, without
 * servers: decoding, redirects, scope and filters, the seen-cache, nofollow, rule items with
 * detail pages, detail pages that are not HTML. */
#include <jansson.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "bloom.h"
#include "frontier.h"
#include "response.h"
#include "job.h"
#include "page.h"
#include "rc_test.h"
#include "record.h"
#include "rules.h"
#include "seen.h"
#include "urlfilter.h"
#include "util.h"

typedef struct env {
    rc_page_job pj;
    rc_seen *seen;
    size_t max_links; /* 100 */
} env;

/* The job as the worker builds it: rc_page_job_init over the spec, the rules inside it. */
static void env_init(env *e, const char *job_json, const char *rules_json)
{
    char err[256];
    json_t *spec = json_loads(job_json, 0, NULL);
    if (rules_json)
        json_object_set_new(spec, "rules", json_loads(rules_json, 0, NULL));
    char *text = json_dumps(spec, JSON_COMPACT);
    json_decref(spec);
    if (rc_page_job_init(&e->pj, text, strlen(text), NULL, err, sizeof err) < 0) {
        fprintf(stderr, "job: %s\n", err);
        abort();
    }
    free(text);
    e->seen = rc_seen_new(1024);
    e->max_links = 100;
}

static void env_release(env *e)
{
    rc_page_job_release(&e->pj);
    rc_seen_free(e->seen);
}

static void run_with(env *e, const rc_rules *rules, rc_record *rec, rc_fetch_result *res, rc_page_result *out)
{
    rc_page_ctx ctx = {.job = &e->pj.job,
                       .rules = rules,
                       .filter = e->pj.filter,
                       .bp = &e->pj.bp,
                       .seen = e->seen,
                       .rec = rec,
                       .worker_id = "w1",
                       .max_links = e->max_links,
                       .now_ms = 1700000000000ull};
    if (!res->url)
        res->url = rec->url;
    if (!res->effective_url)
        res->effective_url = rec->url;
    if (!res->body)
        res->body = "";
    rc_page_process(&ctx, res, out);
}

static void run(env *e, rc_record *rec, rc_fetch_result *res, rc_page_result *out)
{
    run_with(e, e->pj.rules, rec, res, out);
}

/* The link records pushed, as "url depth" strings joined by spaces. */
static char *links_of(const rc_page_result *r)
{
    rc_buf b;
    rc_buf_init(&b);
    int stride = 1 + RC_FRONTIER_BLOOM_K;
    for (int i = 0; i < r->links.n; i += stride) {
        rc_record rec;
        if (rc_record_parse(r->links.v[i], r->links.len[i], &rec) == 0) {
            rc_buf_printf(&b, "%s%s@%d", b.len ? " " : "", rec.url, rec.depth);
            rc_record_release(&rec);
        }
    }
    return rc_buf_steal(&b);
}

static void test_links_scope_filters_seen(void)
{
    env e;
    env_init(&e, "{\"crawlid\":\"c\",\"url\":\"http://a.site.test/\",\"maxdepth\":5}", NULL);
    rc_record rec = {.url = (char[]){"http://a.site.test/dir/"}, .crawlid = (char[]){"c"}, .depth = 1, .priority = 50};
    const char *html = "<html><head><title> T  one </title></head><body>"
                       "<a href='x'>1</a><a href='/y#frag'>2</a><a href='http://b.site.test/'>3</a>"
                       "<a href='http://other.test/'>out</a><a href='logo.png'>img</a><a href='x'>dup</a>"
                       "<a href='/s;jsessionid=ABC'>sess</a><a rel=nofollow href='/nf'>nf</a></body></html>";
    rc_fetch_result res = {.ok = 1, .status = 200, .content_type = "text/html", .body = html, .body_len = strlen(html)};
    rc_seen_add(e.seen, rc_bloom_hash64("c\nhttp://b.site.test/", strlen("c\nhttp://b.site.test/")));
    rc_page_result out;
    run(&e, &rec, &res, &out);
    char *links = links_of(&out);
    RC_CHECK_STR_EQ(links, "http://a.site.test/dir/x@2 http://a.site.test/y@2 http://a.site.test/s@2");
    free(links);
    RC_CHECK_STR_EQ(json_string_value(json_object_get(out.doc, "title")), "T one");
    RC_CHECK_INT_EQ(json_integer_value(json_object_get(out.doc, "links_filtered")), 1); /* logo.png */
    RC_CHECK_INT_EQ(out.n_hashes, out.n_links);
    rc_page_result_release(&out);

    /* maxdepth reached: a record, no links. */
    rec.depth = 5;
    run(&e, &rec, &res, &out);
    RC_CHECK_INT_EQ(out.n_links, 0);
    rc_page_result_release(&out);
    env_release(&e);
}

/* Hrefs repeated on a page (menus): each occurrence counts as the first did, in "links" or
 * "links_filtered" or not at all, and the URL is queued once; on the tokenizer's path and on the
 * tree's (--text). Each distinct href is resolved and judged once (page.c's href_ctx). */
static void test_repeated_hrefs(void)
{
    const char *html = "<html><body><a href='x'>1</a><a href='http://other.test/'>o</a><a href='logo.png'>i</a>"
                       "<a href='mailto:a@b.test'>m</a><a href='/p/1'>seen</a><a href='/dir/'>self</a>"
                       "<a href='x'>2</a><a href='http://other.test/'>o</a><a href='logo.png'>i</a>"
                       "<a href='mailto:a@b.test'>m</a><a href='/p/1'>seen</a><a href='/dir/'>self</a>"
                       "<a href='x#a'>3</a><a href='./x'>4</a><a href=' x '>5</a><a href='y'>y</a></body></html>";
    const char *jobs[2] = {"{\"crawlid\":\"c\",\"url\":\"http://a.site.test/\",\"maxdepth\":5}",
                           "{\"crawlid\":\"c\",\"url\":\"http://a.site.test/\",\"maxdepth\":5,\"text\":true}"};
    for (int k = 0; k < 2; k++) {
        env e;
        env_init(&e, jobs[k], NULL);
        rc_seen_add(e.seen, rc_bloom_hash64("c\nhttp://a.site.test/p/1", strlen("c\nhttp://a.site.test/p/1")));
        rc_record rec = {
            .url = (char[]){"http://a.site.test/dir/"}, .crawlid = (char[]){"c"}, .depth = 1, .priority = 50};
        rc_fetch_result res = {
            .ok = 1, .status = 200, .content_type = "text/html", .body = html, .body_len = strlen(html)};
        rc_page_result out;
        run(&e, &rec, &res, &out);
        char *links = links_of(&out);
        RC_CHECK_STR_EQ(links, "http://a.site.test/dir/x@2 http://a.site.test/dir/y@2");
        free(links);
        /* x x x#a ./x " x " (5), /p/1 twice, /dir/ twice, y */
        RC_CHECK_INT_EQ(json_integer_value(json_object_get(out.doc, "links")), 10);
        RC_CHECK_INT_EQ(json_integer_value(json_object_get(out.doc, "links_filtered")), 2);
        RC_CHECK_INT_EQ(out.n_hashes, out.n_links);
        rc_page_result_release(&out);

        /* the cap counts occurrences: 100 of 'x', then 'y' is past it */
        rc_buf b;
        rc_buf_init(&b);
        for (int i = 0; i < 100; i++)
            rc_buf_puts(&b, "<a href=x>x</a>");
        rc_buf_puts(&b, "<a href=y>y</a>");
        res.body = b.ptr;
        res.body_len = b.len;
        run(&e, &rec, &res, &out);
        links = links_of(&out);
        RC_CHECK_STR_EQ(links, "http://a.site.test/dir/x@2");
        free(links);
        RC_CHECK_INT_EQ(json_integer_value(json_object_get(out.doc, "links")), 100);
        rc_page_result_release(&out);

        /* 700 distinct hrefs, each twice (the memo grows past its first 256 slots), and
         * out-of-scope ones twice: 1,400 found, 700 queued */
        rc_buf_reset(&b);
        for (int i = 0; i < 1400; i++)
            rc_buf_printf(&b, "<a href=/n/%d>n</a><a href=http://o%d.test/>o</a>", i % 700, i % 700);
        res.body = b.ptr;
        res.body_len = b.len;
        e.max_links = 3000;
        run(&e, &rec, &res, &out);
        RC_CHECK_INT_EQ(json_integer_value(json_object_get(out.doc, "links")), 1400);
        RC_CHECK_INT_EQ(out.n_links, 700);
        links = links_of(&out);
        RC_CHECK(strstr(links, "http://a.site.test/n/0@2 http://a.site.test/n/1@2 ") == links);
        RC_CHECK(strstr(links, " http://a.site.test/n/699@2") != NULL);
        free(links);
        rc_page_result_release(&out);
        rc_buf_release(&b);
        env_release(&e);
    }
}

/* A page's link to itself is not sent: the page came from its job's frontier, so its URL is in
 * the bloom already (a one-page host's only link cost Redis a bloom check for nothing). It still
 * counts as a link found on the page. */
static void test_link_to_itself_not_sent(void)
{
    env e;
    env_init(&e, "{\"crawlid\":\"c\",\"url\":\"http://a.site.test/\",\"maxdepth\":-1}", NULL);
    rc_record rec = {.url = (char[]){"http://a.site.test/p/1"}, .crawlid = (char[]){"c"}, .depth = 0, .priority = 50};
    const char *html = "<html><body><a href='/p/1'>me</a><a href='http://a.site.test/p/1#top'>me again</a>"
                       "<a href='/p/2'>next</a></body></html>";
    rc_fetch_result res = {.ok = 1, .status = 200, .content_type = "text/html", .body = html, .body_len = strlen(html)};
    rc_page_result out;
    run(&e, &rec, &res, &out);
    char *links = links_of(&out);
    RC_CHECK_STR_EQ(links, "http://a.site.test/p/2@1");
    free(links);
    RC_CHECK_INT_EQ(out.n_hashes, out.n_links);
    RC_CHECK_INT_EQ(json_integer_value(json_object_get(out.doc, "links")), 3);
    rc_page_result_release(&out);
    env_release(&e);
}

/* A seed's redirect leaves the scope; a deeper page's does not. The chain's end records it. */
static void test_chain_scope_and_end(void)
{
    env e;
    env_init(&e, "{\"crawlid\":\"c\",\"url\":\"http://a.site.test/\",\"maxdepth\":2,\"text\":true}", NULL);
    rc_record rec = {.url = (char[]){"http://a.site.test/x"}, .crawlid = (char[]){"c"}, .depth = 0, .priority = 50};
    rc_fetch_result res = {.ok = 1, .status = 301, .redirect_url = "http://other.test/y"};
    rc_page_result out;
    run(&e, &rec, &res, &out);
    char *links = links_of(&out);
    RC_CHECK_STR_EQ(links, "http://other.test/y@0");
    free(links);
    rc_record hop;
    RC_CHECK_INT_EQ(rc_record_parse(out.links.v[0], out.links.len[0], &hop), 0);
    RC_CHECK_STR_EQ(hop.chain, "[{\"url\":\"http://a.site.test/x\",\"status\":301}]");
    rc_page_result_release(&out);
    rec.depth = 1;
    run(&e, &rec, &res, &out);
    RC_CHECK_INT_EQ(out.n_links, 0); /* not a seed's chain: the scope holds */
    rc_page_result_release(&out);

    const char *html = "<html><head><title>y</title></head><body><p>the final page text, long enough to count</p>"
                       "<a href=\"http://other.test/z\">z</a></body></html>";
    rc_fetch_result fin = {.ok = 1, .status = 200, .content_type = "text/html", .body = html, .body_len = strlen(html)};
    run(&e, &hop, &fin, &out);
    RC_CHECK_INT_EQ(out.n_links, 0); /* the chain's host joined the scope for the chain only */
    RC_CHECK_STR_EQ(json_string_value(json_object_get(out.doc, "redirected_from")), "http://a.site.test/x");
    RC_CHECK(out.first_doc != NULL);
    char id[33];
    rc_record_doc_id("c", "http://a.site.test/x", id);
    RC_CHECK_STR_EQ(json_string_value(json_object_get(out.first_doc, "_id")), id);
    RC_CHECK_STR_EQ(json_string_value(json_object_get(out.first_doc, "final_url")), "http://other.test/y");
    RC_CHECK_INT_EQ(json_integer_value(json_object_get(out.first_doc, "final_status")), 200);
    rc_page_result_release(&out);
    rc_record_release(&hop);

    /* Long URLs: the chain is cut so that the frontier record still parses. */
    rc_buf u;
    rc_buf_init(&u);
    rc_buf_puts(&u, "http://a.site.test/");
    for (int i = 0; i < 2500; i++)
        rc_buf_putc(&u, 'x');
    char *chain = rc_xasprintf("[{\"url\":\"%s1\",\"status\":301},{\"url\":\"%s2\",\"status\":301}]", u.ptr, u.ptr);
    rc_buf_puts(&u, "3");
    rc_record deep = {.url = u.ptr, .crawlid = (char[]){"c"}, .depth = 0, .redirects = 2, .chain = chain};
    run(&e, &deep, &res, &out);
    RC_CHECK_INT_EQ(out.n_links, 1);
    RC_CHECK(out.links.len[0] <= RC_RECORD_MAX);
    RC_CHECK_INT_EQ(rc_record_parse(out.links.v[0], out.links.len[0], &hop), 0);
    RC_CHECK(hop.chain && strstr(hop.chain, "x1\"") && !strstr(hop.chain, "x2\""));
    rc_record_release(&hop);
    rc_page_result_release(&out);
    free(chain);
    rc_buf_release(&u);
    env_release(&e);
}

/* noindex: no text, no digest, the reason; a quick meta refresh is followed, a slow one not. */
static void test_noindex_and_meta_refresh(void)
{
    env e;
    env_init(&e, "{\"crawlid\":\"c\",\"url\":\"http://a.site.test/\",\"text\":true}", NULL);
    rc_record rec = {.url = (char[]){"http://a.site.test/p"}, .crawlid = (char[]){"c"}, .depth = 1, .priority = 50};
    const char *html =
        "<html><head><meta name=robots content=noindex><meta http-equiv=refresh content=\"3;url=/q\">"
        "</head><body><p>words that would be the main text of this page if it were indexed</p></body></html>";
    rc_fetch_result res = {.ok = 1, .status = 200, .content_type = "text/html", .body = html, .body_len = strlen(html)};
    rc_page_result out;
    run(&e, &rec, &res, &out);
    RC_CHECK_STR_EQ(json_string_value(json_object_get(out.doc, "noindex")), "meta robots noindex");
    RC_CHECK(json_object_get(out.doc, "text") == NULL && out.digest[0] == '\0');
    RC_CHECK_STR_EQ(json_string_value(json_object_get(out.doc, "redirect_kind")), "meta refresh");
    char *links = links_of(&out);
    RC_CHECK_STR_EQ(links, "http://a.site.test/q@1"); /* like a redirect: the same depth */
    free(links);
    rc_page_result_release(&out);
    e.pj.job.meta_refresh_max = 2; /* a 3 s refresh is now too slow to be a redirect */
    run(&e, &rec, &res, &out);
    RC_CHECK_INT_EQ(out.n_links, 0);
    rc_page_result_release(&out);
    env_release(&e);
}

/* The job's text_method picks the method; the record says which one produced the text. */
static void test_text_method(void)
{
    const char *html = "<html><body><div><p>The first paragraph of the story, long enough to be a part of its "
                       "main text, with commas, clauses, and more.</p><p>The second paragraph carries on with the "
                       "story for a while, too.</p></div></body></html>";
    const char *jobs[][2] = {{"{\"crawlid\":\"c\",\"url\":\"http://a.site.test/\",\"text\":true}", "article"},
                             {"{\"crawlid\":\"c\",\"url\":\"http://a.site.test/\",\"text\":true,"
                              "\"text_method\":\"lineblock\"}",
                              "lineblock"},
                             {"{\"crawlid\":\"c\",\"url\":\"http://a.site.test/\",\"text\":true,"
                              "\"text_method\":\"density\"}",
                              "density"}};
    for (size_t i = 0; i < RC_ARRAY_LEN(jobs); i++) {
        env e;
        env_init(&e, jobs[i][0], NULL);
        rc_record rec = {.url = (char[]){"http://a.site.test/p"}, .crawlid = (char[]){"c"}, .depth = 0};
        rc_fetch_result res = {
            .ok = 1, .status = 200, .content_type = "text/html", .body = html, .body_len = strlen(html)};
        rc_page_result out;
        run(&e, &rec, &res, &out);
        RC_CHECK_STR_EQ(json_string_value(json_object_get(out.doc, "text_method")), jobs[i][1]);
        const char *text = json_string_value(json_object_get(out.doc, "text"));
        RC_CHECK(text && strstr(text, "The second paragraph"));
        rc_page_result_release(&out);
        env_release(&e);
    }
}

static void test_redirect_and_errors(void)
{
    env e;
    env_init(&e, "{\"crawlid\":\"c\",\"url\":\"http://a.site.test/\",\"maxdepth\":2}", NULL);
    rc_record rec = {.url = (char[]){"http://a.site.test/old"}, .crawlid = (char[]){"c"}, .depth = 2, .priority = 50};
    rc_fetch_result res = {.ok = 1, .status = 301, .redirect_url = "http://A.site.test:80/new#x"};
    rc_page_result out;
    run(&e, &rec, &res, &out);
    char *links = links_of(&out);
    RC_CHECK_STR_EQ(links, "http://a.site.test/new@2"); /* same depth, even at maxdepth */
    free(links);
    RC_CHECK_STR_EQ(json_string_value(json_object_get(out.doc, "redirect_to")), "http://a.site.test/new");
    rc_page_result_release(&out);

    rec.redirects = RC_RECORD_MAX_REDIRECTS;
    run(&e, &rec, &res, &out);
    RC_CHECK_INT_EQ(out.n_links, 0); /* the chain stops */
    rc_page_result_release(&out);

    rc_fetch_result fail = {.ok = 0, .status = 0, .error = "Connection refused"};
    rec.redirects = 0;
    run(&e, &rec, &fail, &out);
    RC_CHECK_STR_EQ(json_string_value(json_object_get(out.doc, "error")), "Connection refused");
    RC_CHECK(json_is_null(json_object_get(out.doc, "title")));
    rc_page_result_release(&out);
    env_release(&e);
}

static void test_decoding(void)
{
    env e;
    env_init(&e, "{\"crawlid\":\"c\",\"url\":\"http://a.site.test/\",\"text\":true}", NULL);
    rc_record rec = {.url = (char[]){"http://a.site.test/gbk"}, .crawlid = (char[]){"c"}, .depth = 0, .priority = 50};
    /* "<title>中文</title>" in GBK, declared only in the header. */
    const char html[] = "<html><head><title>\xd6\xd0\xce\xc4</title></head><body><p>x</p></body></html>";
    rc_fetch_result res = {
        .ok = 1, .status = 200, .content_type = "text/html; charset=gbk", .body = html, .body_len = sizeof html - 1};
    rc_page_result out;
    run(&e, &rec, &res, &out);
    RC_CHECK_STR_EQ(json_string_value(json_object_get(out.doc, "title")), "\xe4\xb8\xad\xe6\x96\x87");
    RC_CHECK_STR_EQ(json_string_value(json_object_get(out.doc, "charset")), "GB18030");
    rc_page_result_release(&out);
    env_release(&e);
}

static void test_items_and_detail_pages(void)
{
    env e;
    const char *rules = "{\"list_from\":\"//li\",\"fields\":{\"name\":{\"xpath\":\"./a\",\"required\":true}},"
                        "\"second_page_url\":\"./a/@href\",\"second_page\":{\"fields\":{\"body\":\"//p\"}}}";
    env_init(&e, "{\"crawlid\":\"c\",\"url\":\"http://a.site.test/\",\"maxdepth\":3}", rules);
    rc_record rec = {.url = (char[]){"http://a.site.test/list"}, .crawlid = (char[]){"c"}, .depth = 0, .priority = 50};
    const char *html = "<ul><li><a href='/d1'>one</a></li><li><a href='/d2'>two</a></li><li>no name</li></ul>";
    rc_fetch_result res = {.ok = 1, .status = 200, .content_type = "text/html", .body = html, .body_len = strlen(html)};
    rc_page_result out;
    run(&e, &rec, &res, &out);
    RC_CHECK_INT_EQ(json_array_size(out.items), 0); /* they wait for their detail pages */
    RC_CHECK_INT_EQ(out.items_dropped, 1);
    RC_CHECK_STR_EQ(out.dropped_rule, "fields.name");
    RC_CHECK_INT_EQ(out.n_links, 2); /* continue: false: only the detail pages */
    /* The detail request carries the item. */
    rc_record d1;
    RC_CHECK_INT_EQ(rc_record_parse(out.links.v[0], out.links.len[0], &d1), 0);
    RC_CHECK_STR_EQ(d1.url, "http://a.site.test/d1");
    RC_CHECK(d1.item != NULL && strstr(d1.item, "\"name\":\"one\"") != NULL);
    rc_page_result_release(&out);

    const char *detail = "<html><body><p>the body</p></body></html>";
    rc_fetch_result dres = {
        .ok = 1, .status = 200, .content_type = "text/html", .body = detail, .body_len = strlen(detail)};
    run(&e, &d1, &dres, &out);
    RC_CHECK_INT_EQ(json_array_size(out.items), 1);
    json_t *item = json_array_get(out.items, 0);
    RC_CHECK_STR_EQ(json_string_value(json_object_get(item, "name")), "one");
    RC_CHECK_STR_EQ(json_string_value(json_object_get(item, "body")), "the body");
    RC_CHECK_STR_EQ(json_string_value(json_object_get(item, "url")), "http://a.site.test/list");
    char want_id[33];
    rc_page_item_id("c", "http://a.site.test/list", 0, want_id);
    RC_CHECK_STR_EQ(json_string_value(json_object_get(item, "_id")), want_id);
    rc_page_result_release(&out);

    /* A detail page that is a 404: the list item is kept as it is. */
    rc_fetch_result gone = {.ok = 1, .status = 404, .content_type = "text/html", .body = "nope", .body_len = 4};
    run(&e, &d1, &gone, &out);
    RC_CHECK_INT_EQ(json_array_size(out.items), 1);
    RC_CHECK_INT_EQ(json_integer_value(json_object_get(json_array_get(out.items, 0), "detail_status")), 404);
    rc_page_result_release(&out);
    rc_record_release(&d1);
    env_release(&e);
}

/* A job with no rules, no text and no content dedup takes the streaming tokenizer; its record
 * and links equal those of the tree path (which adds only the text digest). */
static void test_fast_path_same_record(void)
{
    const char *html =
        "<!DOCTYPE html><html lang=en><head><title>Fast &amp; same</title><base href='/base/'>"
        "<link rel=canonical href='c?id=1&amp;x=2'><meta name=description content='About things'>"
        "<meta property=og:title content='OG'><meta name=robots content=noarchive>"
        "<script>document.write('<a href=\"/in-script\">')</script></head><body>"
        "<template><a href=/tpl>t</a></template><!-- <a href=/comment> -->"
        "<h1>Heading</h1><article><time datetime=2024-05-01>May</time><p>Text of the article.</p>"
        "<a href='rel?a=1&amp;b=2'>1</a><a href=/abs>2</a><a rel=nofollow href=/nf>3</a>"
        "<svg><a href=/svg-link>s</a></svg><area href=area.html><a href='x'>dup</a></article></body></html>";
    rc_record rec = {
        .url = (char[]){"http://a.site.test/dir/page"}, .crawlid = (char[]){"c"}, .depth = 0, .priority = 50};
    rc_fetch_result res = {
        .ok = 1, .status = 200, .content_type = "text/html; charset=utf-8", .body = html, .body_len = strlen(html)};
    char *docs[2], *links[2];
    const char *jobs[2] = {
        "{\"crawlid\":\"c\",\"url\":\"http://a.site.test/\",\"maxdepth\":2,\"dedup_content\":false}",
        "{\"crawlid\":\"c\",\"url\":\"http://a.site.test/\",\"maxdepth\":2,\"dedup_content\":true}",
    };
    for (int k = 0; k < 2; k++) {
        env e;
        env_init(&e, jobs[k], NULL);
        rc_page_result out;
        run(&e, &rec, &res, &out);
        json_object_del(out.doc, "text_digest");
        docs[k] = json_dumps(out.doc, JSON_COMPACT | JSON_SORT_KEYS);
        links[k] = links_of(&out);
        rc_page_result_release(&out);
        env_release(&e);
    }
    RC_CHECK_STR_EQ(links[0], "http://a.site.test/base/rel?a=1&b=2@1 http://a.site.test/abs@1 "
                              "http://a.site.test/base/area.html@1 http://a.site.test/base/x@1");
    RC_CHECK_STR_EQ(links[0], links[1]);
    RC_CHECK_STR_EQ(docs[0], docs[1]);
    RC_CHECK(strstr(docs[0], "\"canonical\":\"http://a.site.test/base/c?id=1&x=2\"") != NULL);
    for (int k = 0; k < 2; k++) {
        free(docs[k]);
        free(links[k]);
    }
}

/* ---- several parse threads on one job (the worker's --parse-threads N) ---- */

#define CONC_THREADS 4
#define CONC_PAGES 1500

typedef struct conc {
    env *e;
    int thread;
    const char *want; /* the page's answer on one thread */
    int wrong;        /* pages whose answer differed */
} conc;

static const char conc_html[] = "<html><head><title>conc</title></head><body><p class=early>E</p>"
                                "<a href='/a'>a</a><a href='/private/b'>b</a><a href='/c?x=1'>c</a>"
                                "<div><p class=late>L1</p><p class=late>L2</p><p class=late>L3</p></div></body></html>";

/* What one page gave: its title, items and links, as one string. */
static char *conc_answer(env *e, const rc_rules *rules)
{
    rc_record rec = {.url = (char[]){"http://a.site.test/"}, .crawlid = (char[]){"c"}, .depth = 0, .priority = 50};
    rc_fetch_result res = {
        .ok = 1, .status = 200, .content_type = "text/html", .body = conc_html, .body_len = sizeof conc_html - 1};
    rc_page_result out;
    run_with(e, rules, &rec, &res, &out);
    char *items = json_dumps(out.items, JSON_COMPACT | JSON_SORT_KEYS);
    char *links = links_of(&out);
    char *s = rc_xasprintf("%s|%s|%s", json_string_value(json_object_get(out.doc, "title")), items, links);
    free(items);
    free(links);
    rc_page_result_release(&out);
    return s;
}

static void *conc_main(void *p)
{
    conc *c = p;
    for (int i = 0; i < CONC_PAGES; i++) {
        char *got = conc_answer(c->e, rc_page_job_rules(&c->e->pj, c->thread));
        c->wrong += strcmp(got, c->want) != 0;
        free(got);
    }
    return NULL;
}

/* The same job's pages on four threads at once give what they give on one: the rules (a union
 * under [1], whose branches libxml2 2.9 swaps in the compiled XPath as it evaluates: with one
 * copy for all threads, 2 to 20 pages of these 6,000 came out with "first": "L1"), the URL
 * filter's regexes, the seen-cache. Each thread evaluates its own copy of the rules. */
static void test_concurrent_pages(void)
{
    env e;
    env_init(&e, "{\"crawlid\":\"c\",\"url\":\"http://a.site.test/\",\"maxdepth\":3,\"deny_regex\":[\"/private/\"]}",
             "{\"fields\":{\"first\":\"(//p[@class='late'] | //p[@class='early'])[1]\","
             "\"n\":\"count(//p[@class='late'] | //a)\"}}");
    char *want = conc_answer(&e, e.pj.rules);
    RC_CHECK_STR_EQ(want,
                    "conc|[{\"_id\":\"6bf09c752be321cc9001a89804aa4d43\",\"crawlid\":\"c\",\"first\":\"E\","
                    "\"n\":\"6\",\"url\":\"http://a.site.test/\"}]|http://a.site.test/a@1 http://a.site.test/c?x=1@1");
    conc c[CONC_THREADS];
    pthread_t th[CONC_THREADS];
    for (int i = 0; i < CONC_THREADS; i++) {
        c[i] = (conc){.e = &e, .thread = i, .want = want};
        pthread_create(&th[i], NULL, conc_main, &c[i]);
    }
    int wrong = 0;
    for (int i = 0; i < CONC_THREADS; i++) {
        pthread_join(th[i], NULL);
        wrong += c[i].wrong;
    }
    RC_CHECK_INT_EQ(wrong, 0);
    free(want);
    env_release(&e);
}

int main(void)
{
    test_links_scope_filters_seen();
    test_link_to_itself_not_sent();
    test_repeated_hrefs();
    test_redirect_and_errors();
    test_chain_scope_and_end();
    test_noindex_and_meta_refresh();
    test_text_method();
    test_decoding();
    test_items_and_detail_pages();
    test_fast_path_same_record();
    test_concurrent_pages();
    return rc_test_done("test_page");
}
