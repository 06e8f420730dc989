/* test_job.c - job spec validation: errors name the field, defaults, scope from seeds. */
#include <stdlib.h>
#include <string.h>

#include "job.h"
#include "rc_test.h"

static void bad(const char *json, const char *field)
{
    rc_job j;
    char err[256] = "";
    int r = rc_job_parse(json, strlen(json), &j, err, sizeof err);
    RC_CHECK_INT_EQ(r, -22);
    if (strncmp(err, field, strlen(field)) != 0) {
        rc_test_failures++;
        fprintf(stderr, "for %s: error \"%s\" does not name %s\n", json, err, field);
    }
}

int main(void)
{
    rc_job j;
    char err[256];
    const char *ok = "{\"crawlid\":\"c1\",\"url\":\"HTTP://S1.Site.Test:80/a/../b#x\",\"maxdepth\":3}";
    RC_CHECK_INT_EQ(rc_job_parse(ok, strlen(ok), &j, err, sizeof err), 0);
    RC_CHECK_STR_EQ(j.crawlid, "c1");
    RC_CHECK_INT_EQ(j.n_seeds, 1);
    RC_CHECK_STR_EQ(j.seeds[0], "http://s1.site.test/b");
    RC_CHECK_INT_EQ(j.n_scope, 1);
    RC_CHECK_STR_EQ(j.scope[0], "site.test");
    RC_CHECK_INT_EQ(j.maxdepth, 3);
    RC_CHECK_INT_EQ(j.priority, 1); /* reqfield.c: Scrapy Cluster's default, everywhere */
    RC_CHECK_STR_EQ(j.spiderid, "link");
    RC_CHECK(rc_job_in_scope(&j, "s9.site.test"));
    RC_CHECK(rc_job_in_scope(&j, "site.test"));
    RC_CHECK(!rc_job_in_scope(&j, "other.test"));
    RC_CHECK(!rc_job_in_scope(&j, "evilsite.test"));

    /* The canonical spec parses back to the same job. */
    char *spec = rc_job_encode(&j);
    rc_job k;
    RC_CHECK_INT_EQ(rc_job_parse(spec, strlen(spec), &k, err, sizeof err), 0);
    RC_CHECK_STR_EQ(k.seeds[0], j.seeds[0]);
    RC_CHECK_STR_EQ(k.scope[0], "site.test");
    RC_CHECK_INT_EQ(k.maxdepth, 3);
    free(spec);
    rc_job_release(&k);
    rc_job_release(&j);

    /* Storage and web-convention options: defaults, bounds, and the round trip. */
    RC_CHECK_INT_EQ(rc_job_parse(ok, strlen(ok), &k, err, sizeof err), 0);
    RC_CHECK(!k.warc && !k.body && !k.sitemaps && k.body_max == 1024 * 1024 && k.meta_refresh_max == 5);
    rc_job_release(&k);
    const char *opts = "{\"crawlid\":\"o\",\"url\":\"http://a.test/\",\"warc\":true,\"body\":true,\"body_max\":4096,"
                       "\"sitemaps\":true,\"meta_refresh_max\":-1}";
    RC_CHECK_INT_EQ(rc_job_parse(opts, strlen(opts), &k, err, sizeof err), 0);
    spec = rc_job_encode(&k);
    rc_job_release(&k);
    RC_CHECK_INT_EQ(rc_job_parse(spec, strlen(spec), &k, err, sizeof err), 0);
    RC_CHECK(k.warc && k.body && k.sitemaps && k.body_max == 4096 && k.meta_refresh_max == -1);
    free(spec);
    rc_job_release(&k);
    bad("{\"crawlid\":\"o\",\"url\":\"http://a.test/\",\"warc\":1}", "warc");
    bad("{\"crawlid\":\"o\",\"url\":\"http://a.test/\",\"body_max\":0}", "body_max");
    bad("{\"crawlid\":\"o\",\"url\":\"http://a.test/\",\"meta_refresh_max\":-2}", "meta_refresh_max");
    bad("{\"crawlid\":\"o\",\"url\":\"http://a.test/\",\"sitemaps\":\"yes\"}", "sitemaps");

    /* The main-text method: absent = the default, a known name round-trips, others are refused. */
    RC_CHECK_INT_EQ(rc_job_parse(ok, strlen(ok), &k, err, sizeof err), 0);
    RC_CHECK(k.text_method == NULL);
    rc_job_release(&k);
    const char *tm = "{\"crawlid\":\"o\",\"url\":\"http://a.test/\",\"text\":true,\"text_method\":\"lineblock\"}";
    RC_CHECK_INT_EQ(rc_job_parse(tm, strlen(tm), &k, err, sizeof err), 0);
    spec = rc_job_encode(&k);
    rc_job_release(&k);
    RC_CHECK_INT_EQ(rc_job_parse(spec, strlen(spec), &k, err, sizeof err), 0);
    RC_CHECK_STR_EQ(k.text_method, "lineblock");
    free(spec);
    rc_job_release(&k);
    bad("{\"crawlid\":\"o\",\"url\":\"http://a.test/\",\"text_method\":\"Article\"}", "text_method");
    bad("{\"crawlid\":\"o\",\"url\":\"http://a.test/\",\"text_method\":1}", "text_method");

    /* Several seeds span all their registrable domains; allowed_domains overrides. */
    const char *multi = "{\"crawlid\":\"m\",\"urls\":[\"http://a.example.com/\",\"http://b.example.org/x\","
                        "\"http://a.example.com/\"]}";
    RC_CHECK_INT_EQ(rc_job_parse(multi, strlen(multi), &j, err, sizeof err), 0);
    RC_CHECK_INT_EQ(j.n_seeds, 2);
    RC_CHECK_INT_EQ(j.n_scope, 2);
    RC_CHECK(rc_job_in_scope(&j, "www.example.org"));
    rc_job_release(&j);
    const char *allow = "{\"crawlid\":\"m\",\"url\":\"http://a.example.com/\",\"allowed_domains\":[\"B.Example.com\"]}";
    RC_CHECK_INT_EQ(rc_job_parse(allow, strlen(allow), &j, err, sizeof err), 0);
    RC_CHECK(rc_job_in_scope(&j, "x.b.example.com"));
    RC_CHECK(!rc_job_in_scope(&j, "a.example.com"));
    rc_job_release(&j);

    bad("", "not valid JSON");
    bad("[1]", "request");
    bad("{\"url\":\"http://a.test/\"}", "crawlid");
    bad("{\"crawlid\":\"\",\"url\":\"http://a.test/\"}", "crawlid");
    bad("{\"crawlid\":\"has space\",\"url\":\"http://a.test/\"}", "crawlid");
    bad("{\"crawlid\":\"01234567890123456789012345678901234567890\",\"url\":\"http://a.test/\"}", "crawlid");
    bad("{\"crawlid\":\"c\"}", "url");
    bad("{\"crawlid\":\"c\",\"url\":5}", "url");
    bad("{\"crawlid\":\"c\",\"url\":\"ftp://a.test/\"}", "url");
    bad("{\"crawlid\":\"c\",\"url\":\"http://a.test/\",\"maxdepth\":\"3\"}", "maxdepth");
    bad("{\"crawlid\":\"c\",\"url\":\"http://a.test/\",\"maxdepth\":-5}", "maxdepth");
    bad("{\"crawlid\":\"c\",\"url\":\"http://a.test/\",\"priority\":5000}", "priority");
    bad("{\"crawlid\":\"c\",\"url\":\"http://a.test/\",\"allowed_domains\":\"a.test\"}", "allowed_domains");
    bad("{\"crawlid\":\"c\",\"url\":\"http://a.test/\",\"allowed_domains\":[\"a b\"]}", "allowed_domains");
    bad("{\"crawlid\":\"c\",\"url\":\"http://a.test/\",\"urls\":[1]}", "urls");
    bad("{\"crawlid\":\"c\",\"url\":\"http://a.test/\",\"useragent\":7}", "useragent");
    bad("{\"crawlid\":\"c\",\"crawlid\":\"d\",\"url\":\"http://a.test/\"}", "not valid JSON");
    return rc_test_done("test_job");
}
