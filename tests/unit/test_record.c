/* test_record.c - frontier records: what a refresh, a redirect chain and a sitemap carry
 * survives encode and parse; the scheduler's peek at url and depth reads what the parse reads. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "rc_test.h"
#include "record.h"
#include "recpeek.h"

int main(void)
{
    char url[] = "http://a.test/x", cid[] = "c", etag[] = "\"v1\"", lm[] = "Thu, 01 Jan 2026 00:00:00 GMT",
         dg[] = "00ff", chain[] = "[[\"http://s.test/\",301]]", url2[] = "http://a.test/y";
    rc_record r = {.url = url,
                   .crawlid = cid,
                   .depth = 0,
                   .priority = 5,
                   .refresh = 1,
                   .etag = etag,
                   .lastmod = lm,
                   .digest = dg,
                   .chain = chain,
                   .sitemap = 2};
    char *s = rc_record_encode(&r);
    rc_record p;
    memset(&p, 0, sizeof p);
    RC_CHECK_INT_EQ(rc_record_parse(s, strlen(s), &p), 0);
    RC_CHECK_INT_EQ(p.refresh, 1);
    RC_CHECK_STR_EQ(p.etag, "\"v1\"");
    RC_CHECK_STR_EQ(p.lastmod, "Thu, 01 Jan 2026 00:00:00 GMT");
    RC_CHECK_STR_EQ(p.digest, "00ff");
    RC_CHECK_STR_EQ(p.chain, "[[\"http://s.test/\",301]]");
    RC_CHECK_INT_EQ(p.sitemap, 2);
    rc_record_release(&p);
    free(s);

    /* A plain link carries none of it (the records in Redis stay small). */
    rc_record l = {.url = url2, .crawlid = cid, .depth = 1};
    s = rc_record_encode(&l);
    RC_CHECK(strstr(s, "refresh") == NULL && strstr(s, "chain") == NULL && strstr(s, "sitemap") == NULL);
    RC_CHECK_INT_EQ(rc_record_parse(s, strlen(s), &p), 0);
    RC_CHECK(p.etag == NULL && p.lastmod == NULL && p.digest == NULL && p.chain == NULL && !p.refresh && !p.sitemap);
    rc_record_release(&p);
    free(s);
    /* A plain record is the compact line; it parses back, and so does the same record as JSON. */
    rc_record c = {.url = url2, .crawlid = cid, .depth = 3, .priority = 7, .attempt = 1};
    s = rc_record_encode(&c);
    RC_CHECK_STR_EQ(s, "c 3 7 1 http://a.test/y");
    RC_CHECK_INT_EQ(rc_record_parse(s, strlen(s), &p), 0);
    RC_CHECK_STR_EQ(p.crawlid, "c");
    RC_CHECK_STR_EQ(p.url, "http://a.test/y");
    RC_CHECK(p.depth == 3 && p.priority == 7 && p.attempt == 1 && !p.redeliver && p.cb == NULL);
    rc_record_release(&p);
    free(s);
    const char *js = "{\"url\":\"http://a.test/y\",\"crawlid\":\"c\",\"depth\":3,\"priority\":7,\"attempt\":1}";
    RC_CHECK_INT_EQ(rc_record_parse(js, strlen(js), &p), 0);
    RC_CHECK(p.depth == 3 && p.priority == 7 && p.attempt == 1 && strcmp(p.url, "http://a.test/y") == 0);
    rc_record_release(&p);
    c.redeliver = 1; /* anything more: JSON */
    s = rc_record_encode(&c);
    RC_CHECK(s[0] == '{' && strstr(s, "\"redeliver\":true") != NULL);
    free(s);
    const char *badc[] = {"c 1 2 http://a.test/", "c x 2 0 http://a.test/", "c 1 2 0 ", " 1 2 0 http://a.test/"};
    for (size_t i = 0; i < sizeof badc / sizeof badc[0]; i++)
        RC_CHECK_INT_EQ(rc_record_parse(badc[i], strlen(badc[i]), &p), -EINVAL);
    /* In its job's frontier the crawlid is left out and given back by the reader; a long
     * record there still reads as itself (a numeric crawlid included). */
    const char *sh = "3 7 1 http://a.test/y";
    RC_CHECK_INT_EQ(rc_record_parse(sh, strlen(sh), &p), -EINVAL);
    RC_CHECK_INT_EQ(rc_record_parse_in(sh, strlen(sh), "c", &p), 0);
    RC_CHECK_STR_EQ(p.crawlid, "c");
    RC_CHECK_STR_EQ(p.url, "http://a.test/y");
    RC_CHECK(p.depth == 3 && p.priority == 7 && p.attempt == 1);
    rc_record_release(&p);
    sh = "3 7 1 http://a.test/a b";
    RC_CHECK_INT_EQ(rc_record_parse_in(sh, strlen(sh), "c", &p), 0);
    RC_CHECK_STR_EQ(p.url, "http://a.test/a b");
    RC_CHECK(p.depth == 3 && p.priority == 7 && p.attempt == 1);
    rc_record_release(&p);
    sh = "42 3 7 1 http://a.test/y";
    RC_CHECK_INT_EQ(rc_record_parse_in(sh, strlen(sh), "c", &p), 0);
    RC_CHECK_STR_EQ(p.crawlid, "42");
    RC_CHECK(p.depth == 3 && p.priority == 7 && p.attempt == 1);
    rc_record_release(&p);
    const char *jsn = "{\"url\":\"http://a.test/y\",\"depth\":3,\"cb\":\"x\"}";
    RC_CHECK_INT_EQ(rc_record_parse(jsn, strlen(jsn), &p), -EINVAL);
    RC_CHECK_INT_EQ(rc_record_parse_in(jsn, strlen(jsn), "c", &p), 0);
    RC_CHECK_STR_EQ(p.crawlid, "c");
    rc_record_release(&p);
    const char *bads[] = {"3 7 http://a.test/", "x 7 1 http://a.test/", "3 7 1 ", "3 7 1"};
    for (size_t i = 0; i < sizeof bads / sizeof bads[0]; i++)
        RC_CHECK_INT_EQ(rc_record_parse_in(bads[i], strlen(bads[i]), "c", &p), -EINVAL);

    /* The peek: url and depth, nested values skipped, Lua's \/ unescaped, else refused. */
    char u[64];
    int d = -1;
    const char *rec = "{\"url\":\"http://h1.test/p/1\",\"crawlid\":\"big\",\"depth\":0,\"priority\":1,\"attempt\":0}";
    RC_CHECK_INT_EQ(rc_record_peek(rec, strlen(rec), u, sizeof u, &d), 0);
    RC_CHECK_STR_EQ(u, "http://h1.test/p/1");
    RC_CHECK_INT_EQ(d, 0);
    rec = "{\"item\":{\"a\":[1,{\"url\":\"x\"}],\"b\":\"}\"},\"depth\":12, \"url\" : \"http:\\/\\/a.test\\/\","
          "\"chain\":[{\"url\":\"http://s.test/\",\"status\":301}],\"lost\":1,\"redeliver\":true}";
    RC_CHECK_INT_EQ(rc_record_peek(rec, strlen(rec), u, sizeof u, &d), 0);
    RC_CHECK_STR_EQ(u, "http://a.test/");
    RC_CHECK_INT_EQ(d, 12);
    rec = "big 4 1 0 http://h1.test/p/2";
    RC_CHECK_INT_EQ(rc_record_peek(rec, strlen(rec), u, sizeof u, &d), 0);
    RC_CHECK_STR_EQ(u, "http://h1.test/p/2");
    RC_CHECK_INT_EQ(d, 4);
    rec = "5 1 0 http://h1.test/p/3";
    RC_CHECK_INT_EQ(rc_record_peek(rec, strlen(rec), u, sizeof u, &d), 0);
    RC_CHECK_STR_EQ(u, "http://h1.test/p/3");
    RC_CHECK_INT_EQ(d, 5);
    rec = "6 1 0 http://h1.test/a b";
    RC_CHECK_INT_EQ(rc_record_peek(rec, strlen(rec), u, sizeof u, &d), 0);
    RC_CHECK_STR_EQ(u, "http://h1.test/a b");
    RC_CHECK_INT_EQ(d, 6);
    rec = "7 4 1 0 http://h1.test/p/4";
    RC_CHECK_INT_EQ(rc_record_peek(rec, strlen(rec), u, sizeof u, &d), 0);
    RC_CHECK_STR_EQ(u, "http://h1.test/p/4");
    RC_CHECK_INT_EQ(d, 4);
    rec = "{\"url\":\"http://a.test/\\u00e9\",\"depth\":1}";
    RC_CHECK_INT_EQ(rc_record_peek(rec, strlen(rec), u, sizeof u, &d), -EAGAIN);
    rec = "{\"url\":\"http://a.test/a-very-long-path-that-does-not-fit-in-the-buffer-given/x\",\"depth\":1}";
    RC_CHECK_INT_EQ(rc_record_peek(rec, strlen(rec), u, 16, &d), -ENOSPC);
    const char *bad[] = {"",
                         "[]",
                         "{}",
                         "{\"url\":\"http://a.test/\"}",
                         "{\"depth\":1}",
                         "{\"url\":1,\"depth\":1}",
                         "{\"url\":\"http://a.test/\",\"depth\":\"1\"}",
                         "{\"url\":\"http://a.test/\",\"depth\":1} x",
                         "{\"url\":\"http://a.test/",
                         "not json",
                         "{\"url\":\"http://a.test/\",\"depth\":1,\"item\":{\"a\":1}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        RC_CHECK_INT_EQ(rc_record_peek(bad[i], strlen(bad[i]), u, sizeof u, &d), -EINVAL);

    /* One integer of a page record (the crawl's summary): top-level members only. */
    static const struct {
        const char *json;
        int rc;
        long long v;
    } ints[] = {
        {"{\"_id\":\"a\",\"url\":\"http://a.test/\",\"status_code\":200,\"links\":5}\n", 0, 200},
        {"{\"attrs\":{\"status_code\":500},\"status_code\":404}", 0, 404},
        {"{\"title\":\"\\\"status_code\\\":301\",\"status_code\":-1}", 0, -1},
        {"{\"chain\":[{\"status_code\":301},[1,\"]\"]], \"status_code\" : 0 }", 0, 0},
        {"{\"status_code\":null,\"url\":\"x\"}", -EDOM, 0},
        {"{\"status_code\":\"200\"}", -EDOM, 0},
        {"{\"status_code\":2.5}", -EDOM, 0},
        {"{\"url\":\"x\"}", -ENOENT, 0},
        {"{ }", -ENOENT, 0},
        {"{\"status_code\":200", -EINVAL, 0},
        {"{\"status_code\":200,}", -EINVAL, 0},
        {"{\"a\":{\"b\":1},\"status_code\":200} x", -EINVAL, 0},
        {"[200]", -EINVAL, 0},
        {"", -EINVAL, 0},
    };
    for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
        long long v = 0;
        RC_CHECK_INT_EQ(rc_json_peek_int(ints[i].json, strlen(ints[i].json), "status_code", &v), ints[i].rc);
        RC_CHECK(ints[i].rc != 0 || v == ints[i].v);
    }
    /* One string of a page record: the crawl's summary counts its own job's records. */
    static const struct {
        const char *json;
        int rc;
        const char *v;
    } strs[] = {
        {"{\"_id\":\"a\",\"crawlid\":\"job-1\",\"status_code\":200}\n", 0, "job-1"},
        {"{\"item\":{\"crawlid\":\"x\"},\"crawlid\":\"y\"}", 0, "y"},
        {"{\"crawlid\":\"\"}", 0, ""},
        {"{\"crawlid\":\"a\\\"b\"}", -EAGAIN, NULL},
        {"{\"crawlid\":\"0123456789\"}", -ENOSPC, NULL},
        {"{\"crawlid\":7}", -EDOM, NULL},
        {"{\"crawlid\":null}", -EDOM, NULL},
        {"{\"url\":\"x\"}", -ENOENT, NULL},
        {"{\"crawlid\":\"a\"", -EINVAL, NULL},
    };
    for (size_t i = 0; i < sizeof strs / sizeof strs[0]; i++) {
        char v[8] = "";
        RC_CHECK_INT_EQ(rc_json_peek_str(strs[i].json, strlen(strs[i].json), "crawlid", v, sizeof v), strs[i].rc);
        RC_CHECK(strs[i].rc != 0 || strcmp(v, strs[i].v) == 0);
    }
    /* Whether a member is there, whatever its value: a seed's record stored again has final_url. */
    RC_CHECK_INT_EQ(rc_json_peek_has("{\"url\":\"a\",\"final_url\":\"b\"}", 27, "final_url"), 1);
    RC_CHECK_INT_EQ(rc_json_peek_has("{\"final_url\":null}", 18, "final_url"), 1);
    RC_CHECK_INT_EQ(rc_json_peek_has("{\"item\":{\"final_url\":1}}", 24, "final_url"), 0);
    RC_CHECK_INT_EQ(rc_json_peek_has("{\"final_url\":", 13, "final_url"), -EINVAL);
    return rc_test_done("test_record");
}
