/* test_sitemap.c - urlsets, indexes, gzip'd sitemaps, the count cap, hostile XML. */
#include <errno.h>
#include <string.h>
#include <zlib.h>

#include "rc_test.h"
#include "sitemap.h"
#include "util.h"

typedef struct seen {
    rc_buf locs; /* "loc|lastmod\n" per entry */
    int n;
    int kind; /* as the callback was told */
} seen;

static int on_loc(void *ud, int kind, const char *loc, const char *lastmod)
{
    seen *s = ud;
    s->kind = kind;
    rc_buf_printf(&s->locs, "%s|%s\n", loc, lastmod ? lastmod : "-");
    s->n++;
    return 0;
}

static int parse(const char *xml, size_t len, size_t max, seen *s)
{
    char err[200];
    rc_buf_reset(&s->locs);
    s->n = 0;
    return rc_sitemap_parse(xml, len, max, on_loc, s, err, sizeof err);
}

static size_t gz(const char *in, char *out, size_t cap)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
    z.next_in = (Bytef *)in;
    z.avail_in = (uInt)strlen(in);
    z.next_out = (Bytef *)out;
    z.avail_out = (uInt)cap;
    deflate(&z, Z_FINISH);
    size_t n = z.total_out;
    deflateEnd(&z);
    return n;
}

int main(void)
{
    seen s;
    rc_buf_init(&s.locs);
    const char *urlset = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                         "<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n"
                         "<url><loc> http://a.test/1 </loc><lastmod>2026-01-02</lastmod></url>\n"
                         "<url><loc>http://a.test/2?x=1&amp;y=2</loc></url>\n"
                         "<url><lastmod>2026-01-02</lastmod></url>\n" /* no loc: skipped */
                         "<url><loc>http://a.test/3</loc></url></urlset>";
    RC_CHECK_INT_EQ(parse(urlset, strlen(urlset), 100, &s), RC_SITEMAP_URLSET);
    RC_CHECK_STR_EQ(s.locs.ptr, "http://a.test/1|2026-01-02\nhttp://a.test/2?x=1&y=2|-\nhttp://a.test/3|-\n");
    RC_CHECK_INT_EQ(parse(urlset, strlen(urlset), 2, &s), RC_SITEMAP_URLSET); /* capped */
    RC_CHECK_INT_EQ(s.n, 2);

    char z[2048];
    size_t zn = gz(urlset, z, sizeof z);
    RC_CHECK_INT_EQ(parse(z, zn, 100, &s), RC_SITEMAP_URLSET);
    RC_CHECK_INT_EQ(s.n, 3);
    RC_CHECK_INT_EQ(parse(z, zn / 2, 100, &s), -EINVAL); /* a cut gzip */

    const char *index = "<sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">"
                        "<sitemap><loc>http://a.test/s1.xml.gz</loc></sitemap>"
                        "<sitemap><loc>http://a.test/s2.xml</loc><lastmod>2026-02-03T04:05:06Z</lastmod></sitemap>"
                        "</sitemapindex>";
    RC_CHECK_INT_EQ(parse(index, strlen(index), 100, &s), RC_SITEMAP_INDEX);
    RC_CHECK_STR_EQ(s.locs.ptr, "http://a.test/s1.xml.gz|-\nhttp://a.test/s2.xml|2026-02-03T04:05:06Z\n");
    RC_CHECK_INT_EQ(s.kind, RC_SITEMAP_INDEX);

    RC_CHECK_INT_EQ(parse("<html><body>no</body></html>", 28, 100, &s), -EINVAL);
    RC_CHECK_INT_EQ(parse("not xml at all", 14, 100, &s), -EINVAL);
    /* An external entity is neither fetched nor read: the loc stays empty and is skipped. */
    const char *xxe = "<?xml version=\"1.0\"?><!DOCTYPE u [<!ENTITY e SYSTEM \"file:///etc/hostname\">]>"
                      "<urlset><url><loc>&e;</loc></url><url><loc>http://a.test/ok</loc></url></urlset>";
    RC_CHECK_INT_EQ(parse(xxe, strlen(xxe), 100, &s), RC_SITEMAP_URLSET);
    RC_CHECK_STR_EQ(s.locs.ptr, "http://a.test/ok|-\n");
    int64_t ms;
    RC_CHECK_INT_EQ(rc_sitemap_lastmod_ms("1970-01-02", &ms), 0);
    RC_CHECK(ms == 86400000);
    RC_CHECK_INT_EQ(rc_sitemap_lastmod_ms("2026-11-25T03:30:26Z", &ms), 0);
    RC_CHECK(ms == 1795577426000ll);
    RC_CHECK_INT_EQ(rc_sitemap_lastmod_ms("2026-11-25T05:30:26.5+02:00", &ms), 0);
    RC_CHECK(ms == 1795577426500ll);
    RC_CHECK_INT_EQ(rc_sitemap_lastmod_ms("2026-11-25T03:30:26.1239Z", &ms), 0);
    RC_CHECK(ms == 1795577426123ll);
    RC_CHECK_INT_EQ(rc_sitemap_lastmod_ms("2026-11-25T03:30-01:00", &ms), 0);
    RC_CHECK(ms == 1795577400000ll + 3600000);
    RC_CHECK_INT_EQ(rc_sitemap_lastmod_ms("2026", &ms), 0);
    RC_CHECK(ms == 1767225600000ll);
    RC_CHECK_INT_EQ(rc_sitemap_lastmod_ms("2026-13-01", &ms), -EINVAL);
    RC_CHECK_INT_EQ(rc_sitemap_lastmod_ms("yesterday", &ms), -EINVAL);
    RC_CHECK_INT_EQ(rc_sitemap_lastmod_ms("2026-01-01T10:00", &ms), -EINVAL); /* a time needs its zone */
    rc_buf_release(&s.locs);
    return rc_test_done("test_sitemap");
}
