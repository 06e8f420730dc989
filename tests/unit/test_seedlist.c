/* test_seedlist.c - seed lists from a file: normalised URLs in order, blank and comment lines
 * ignored, bad lines reported with their numbers and skipped, domains collected once each,
 * and a long list (100,000 lines). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "rc_test.h"
#include "seedlist.h"

typedef struct bad_log {
    size_t lines[16];
    size_t n;
} bad_log;

static void on_bad(void *ud, size_t line, const char *text, const char *why)
{
    bad_log *b = ud;
    (void)text;
    (void)why;
    if (b->n < 16)
        b->lines[b->n] = line;
    b->n++;
}

static FILE *file_of(const char *text)
{
    FILE *f = tmpfile();
    fputs(text, f);
    rewind(f);
    return f;
}

int main(void)
{
    rc_seedlist *s = rc_seedlist_new();
    bad_log b = {{0}, 0};
    FILE *f = file_of("http://S1.site.test/a\n"
                      "\n"
                      "# a comment\n"
                      "   https://other.test/x?y=1  \r\n"
                      "not a url\n"
                      "ftp://s1.site.test/\n"
                      "http://user:pw@s2.site.test/\n"
                      "http://s3.site.test/b"); /* no newline at the end */
    RC_CHECK_INT_EQ(rc_seedlist_read(s, f, on_bad, &b), 0);
    fclose(f);
    RC_CHECK_INT_EQ(rc_seedlist_count(s), 3);
    const char *const *u = rc_seedlist_urls(s);
    RC_CHECK_STR_EQ(u[0], "http://s1.site.test/a");
    RC_CHECK_STR_EQ(u[1], "https://other.test/x?y=1");
    RC_CHECK_STR_EQ(u[2], "http://s3.site.test/b");
    RC_CHECK_INT_EQ(b.n, 3);
    RC_CHECK_INT_EQ(b.lines[0], 5);
    RC_CHECK_INT_EQ(b.lines[1], 6);
    RC_CHECK_INT_EQ(b.lines[2], 7);
    RC_CHECK_INT_EQ(rc_seedlist_ndomains(s), 2);
    RC_CHECK_STR_EQ(rc_seedlist_domain(s, 0), "site.test");
    RC_CHECK_STR_EQ(rc_seedlist_domain(s, 1), "other.test");
    RC_CHECK(rc_seedlist_domain(s, 2) == NULL);
    char err[160];
    RC_CHECK_INT_EQ(rc_seedlist_add(s, "javascript:alert(1)", err, sizeof err), -22);
    RC_CHECK(err[0] != '\0');
    rc_seedlist_free(s);

    /* A NUL inside a line is a bad line, not a truncated URL. */
    s = rc_seedlist_new();
    b.n = 0;
    f = tmpfile();
    fwrite("http://a.test/\0x\nhttp://b.test/\n", 1, 32, f);
    rewind(f);
    RC_CHECK_INT_EQ(rc_seedlist_read(s, f, on_bad, &b), 0);
    fclose(f);
    RC_CHECK_INT_EQ(rc_seedlist_count(s), 1);
    RC_CHECK_INT_EQ(b.n, 1);
    RC_CHECK_INT_EQ(b.lines[0], 1);
    rc_seedlist_free(s);

    /* 100,000 lines over 1,000 hosts of one domain: every URL kept, in order, one domain. */
    s = rc_seedlist_new();
    f = tmpfile();
    for (int i = 0; i < 100000; i++)
        fprintf(f, "http://s%d.site.test/p/%d\n", i % 1000, i / 1000);
    rewind(f);
    b.n = 0;
    RC_CHECK_INT_EQ(rc_seedlist_read(s, f, on_bad, &b), 0);
    fclose(f);
    RC_CHECK_INT_EQ(b.n, 0);
    RC_CHECK_INT_EQ(rc_seedlist_count(s), 100000);
    u = rc_seedlist_urls(s);
    RC_CHECK_STR_EQ(u[99999], "http://s999.site.test/p/99");
    RC_CHECK_STR_EQ(u[1001], "http://s1.site.test/p/1");
    RC_CHECK_INT_EQ(rc_seedlist_ndomains(s), 1);
    rc_seedlist_free(s);
    rc_seedlist_free(NULL);

    /* A UTF-8 byte order mark opening the file (Notepad, a spreadsheet's "CSV UTF-8") is not part
     * of the first URL, which was reported as not parsing; one further on is. */
    s = rc_seedlist_new();
    b.n = 0;
    f = file_of("\xef\xbb\xbfhttp://a.test/1\n\xef\xbb\xbfhttp://a.test/2\n");
    RC_CHECK_INT_EQ(rc_seedlist_read(s, f, on_bad, &b), 0);
    fclose(f);
    RC_CHECK_INT_EQ(rc_seedlist_count(s), 1);
    RC_CHECK_STR_EQ(rc_seedlist_urls(s)[0], "http://a.test/1");
    RC_CHECK_INT_EQ(b.n, 1);
    RC_CHECK_INT_EQ(b.lines[0], 2);
    rc_seedlist_free(s);

    /* A file that cannot be read says why (`--seeds DIR` said "Input/output error"). */
    s = rc_seedlist_new();
    f = fopen(".", "r");
    RC_CHECK(f != NULL);
    if (f) {
        RC_CHECK_INT_EQ(rc_seedlist_read(s, f, on_bad, &b), -EISDIR);
        fclose(f);
    }
    rc_seedlist_free(s);
    return rc_test_done("test_seedlist");
}
