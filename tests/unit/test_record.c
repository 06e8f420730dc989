/* test_record.c - frontier records: what a refresh, a redirect chain and a sitemap carry
 * survives encode and parse. */
#include <stdlib.h>
#include <string.h>

#include "rc_test.h"
#include "record.h"

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
    return rc_test_done("test_record");
}
