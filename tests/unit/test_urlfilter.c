/* test_urlfilter.c - trap guards, extensions, regexes and session-id stripping. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rc_test.h"
#include "urlfilter.h"

static void expect(const rc_urlfilter *f, const char *url, const char *reason)
{
    const char *got = rc_urlfilter_check(f, url);
    rc_test_checks++;
    if ((got == NULL) != (reason == NULL) || (got && strcmp(got, reason) != 0)) {
        rc_test_failures++;
        fprintf(stderr, "%s: want %s, got %s\n", url, reason ? reason : "allowed", got ? got : "allowed");
    }
}

static void strip(const rc_urlfilter *f, const char *url, const char *want)
{
    char *got = rc_urlfilter_strip_session(f, url);
    rc_test_checks++;
    if ((got == NULL) != (want == NULL) || (got && strcmp(got, want) != 0)) {
        rc_test_failures++;
        fprintf(stderr, "strip %s: want %s, got %s\n", url, want ? want : "(unchanged)", got ? got : "(unchanged)");
    }
    free(got);
}

/* A crawl request's regex that backtracks without end, against links a site chose: every check
 * stops at a bounded cost, as the extraction rules' regexes do (rules.c MATCH_LIMIT), so a page of
 * --max-links such links cannot hold a parse thread for long. 200 checks of a 40-letter link take
 * 11 s of CPU under PCRE2's default limit (10,000,000 steps): CPU time is measured, so a busy
 * machine does not make it flaky. */
static void test_runaway_regex(void)
{
    rc_urlfilter_conf c;
    char err[256], url[128];
    rc_urlfilter_conf_init(&c);
    const char *deny[] = {"(a+)+$"}, *allow[] = {"^http://h\\.test/(a|aa)+$"};
    c.deny_re = deny;
    c.n_deny_re = 1;
    c.allow_re = allow;
    c.n_allow_re = 1;
    rc_urlfilter *f = rc_urlfilter_new(&c, err, sizeof err);
    RC_CHECK(f != NULL);
    if (!f)
        return;
    snprintf(url, sizeof url, "http://h.test/%s!", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa");
    clock_t t0 = clock();
    for (int i = 0; i < 200; i++)
        RC_CHECK(rc_urlfilter_check(f, url) != NULL); /* matches no allow_regex */
    double cpu = (double)(clock() - t0) / CLOCKS_PER_SEC;
    fprintf(stderr, "test_urlfilter: 200 checks of a runaway regex: %.2f s of CPU\n", cpu);
    RC_CHECK(cpu < 4.0);                       /* 1.1 s with the limits: 2 regexes give up at 1,000,000 steps each */
    expect(f, "http://h.test/aaaa", "denied"); /* the same regexes still decide ordinary links */
    expect(f, "http://h.test/aaab", "not-allowed");
    rc_urlfilter_free(f);
}

int main(void)
{
    rc_urlfilter_conf c;
    char err[256];
    rc_urlfilter_conf_init(&c);
    rc_urlfilter *f = rc_urlfilter_new(&c, err, sizeof err);
    RC_CHECK(f != NULL);
    expect(f, "http://a.test/", NULL);
    expect(f, "http://a.test/p/1?x=1&y=2", NULL);
    expect(f, "http://a.test/img/logo.PNG", "extension");
    expect(f, "http://a.test/a.tar.gz", "extension");
    expect(f, "http://a.test/doc.pdf?download=1", "extension");
    expect(f, "http://a.test/png", NULL);
    expect(f, "http://a.test/x.html", NULL);
    /* the extension after a dot inside the last segment, any case, before ?query or #fragment */
    expect(f, "http://a.test/a.tar.GZ", "extension");
    expect(f, "http://a.test/a.PnG#top", "extension");
    expect(f, "http://a.test/a.b.zip", "extension");
    expect(f, "http://a.test/a..png", "extension");
    expect(f, "http://a.test/a.woff2", "extension");
    expect(f, "http://a.test/a.woff3", NULL);
    expect(f, "http://a.test/x.targz", NULL);
    expect(f, "http://a.test/.png", NULL); /* the dot starts the segment: a name, no extension */
    expect(f, "http://a.test/x.png/", NULL);
    expect(f, "http://a.test/dir.png/page", NULL);
    expect(f, "http://a.test/a.png.html", NULL);
    expect(f, "http://a.test/a.pngx", NULL);
    expect(f, "http://a.test/a.", NULL);
    expect(f, "http://a.test/1/2/3/4/5/6/7/8/9/10/11/12/13/14/15/16/17", "path-depth");
    expect(f, "http://a.test/1/2/3/4/5/6/7/8/9/10/11/12/13/14/15/16", NULL);
    expect(f, "http://a.test/a/b/a/b/a/b", "repeated-segments");
    expect(f, "http://a.test/a/b/a/b", NULL);
    expect(f, "http://a.test/a/x/a/y/a", "repeated-segments"); /* three apart */
    expect(f, "http://a.test/a//a///a", "repeated-segments");  /* empty segments do not count */
    expect(f, "http://a.test/aa/a/aa/a/ab", NULL);
    expect(f, "http://a.test/x/a/b/a/b?/a", NULL); /* the query is not the path */
    expect(f, "http://a.test/?a=1&b=2&c=3&d=4&e=5&f=6&g=7&h=8&i=9&j=10&k=11&l=12&m=13&n=14&o=15&p=16&q=17",
           "query-params");
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    int year = tm.tm_year + 1900;
    char url[128];
    snprintf(url, sizeof url, "http://a.test/calendar/%d/01", year + 1);
    expect(f, url, NULL);
    snprintf(url, sizeof url, "http://a.test/calendar/%d/01", year + 4);
    expect(f, url, "calendar");
    snprintf(url, sizeof url, "http://a.test/cal?month=%d-03", year - 5);
    expect(f, url, "calendar");
    expect(f, "http://a.test/item/20991", NULL); /* five digits: not a year */
    expect(f, "http://a.test/item/1234", NULL);  /* not 19xx/20xx */
    char longurl[2100];
    memset(longurl, 'a', sizeof longurl - 1);
    memcpy(longurl, "http://a.test/", 14);
    longurl[sizeof longurl - 1] = '\0';
    expect(f, longurl, "too-long");

    strip(f, "http://a.test/p;jsessionid=ABC123?x=1", "http://a.test/p?x=1");
    strip(f, "http://a.test/p;JSESSIONID=ABC/next", "http://a.test/p/next");
    strip(f, "http://a.test/p?PHPSESSID=abc&x=1", "http://a.test/p?x=1");
    strip(f, "http://a.test/p?x=1&sid=9&y=2", "http://a.test/p?x=1&y=2");
    strip(f, "http://a.test/p?sid=9", "http://a.test/p");
    strip(f, "http://a.test/p?ASPSESSIONIDQQGGQGPP=x&a=b", "http://a.test/p?a=b");
    strip(f, "http://a.test/p?x=1", NULL);
    strip(f, "http://a.test/p?s=search", NULL);
    strip(f, "http://a.test/p", NULL);
    rc_urlfilter_free(f);

    /* Job regexes and extension lists. */
    const char *allow[] = {"/news/", "/p/\\d+$"};
    const char *deny[] = {"\\?print=1"};
    const char *ext[] = {".html", "HTM", ".", "a-very-long-extension-of-more-than-sixty-four-letters-for-a-check-x"};
    c.allow_re = allow;
    c.n_allow_re = 2;
    c.deny_re = deny;
    c.n_deny_re = 1;
    c.deny_ext = ext;
    c.n_deny_ext = 4;
    f = rc_urlfilter_new(&c, err, sizeof err);
    RC_CHECK(f != NULL);
    expect(f, "http://a.test/news/today", NULL);
    expect(f, "http://a.test/p/12", NULL);
    expect(f, "http://a.test/p/12x", "not-allowed");
    expect(f, "http://a.test/news/today?print=1", "denied");
    expect(f, "http://a.test/news/x.html", "extension");
    expect(f, "http://a.test/news/x.png", NULL); /* the job's list replaces the default */
    expect(f, "http://a.test/news/x.HtM", "extension");
    expect(f, "http://a.test/news/x.", "extension"); /* "." is the empty extension */
    expect(f, "http://a.test/news/.", NULL);
    expect(f, "http://a.test/news/x.a-very-long-extension-of-more-than-sixty-four-letters-for-a-check-X", "extension");
    expect(f, "http://a.test/news/x.very-long-extension-of-more-than-sixty-four-letters-for-a-check-x", NULL);
    rc_urlfilter_free(f);

    const char *bad[] = {"(unclosed"};
    c.deny_re = bad;
    f = rc_urlfilter_new(&c, err, sizeof err);
    RC_CHECK(f == NULL);
    RC_CHECK(strstr(err, "deny_regex[0]") != NULL);
    test_runaway_regex();
    return rc_test_done("test_urlfilter");
}
