/* test_htmltok.c - the streaming tokenizer finds exactly what gumbo's tree gives (rc_html_* and
 * rc_maintext_meta): links with and without rel=nofollow, <base>, title, meta robots, meta
 * refresh, canonical and the whole metadata object. Over every HTML page under tests/data
 * (decoded to UTF-8 as the worker does) and the cases below: malformed markup, <template>,
 * comments, CDATA, foreign content, entities in hrefs, unclosed quotes, raw text elements. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "charset.h"
#include "html.h"
#include "htmltok.h"
#include "maintext.h"
#include "rc_test.h"
#include "rc_test_malformed.h"
#include "rc_test_pages.h"
#include "util.h"

static const char *data_dir = "tests/data";
static size_t pages_compared, links_compared;

/* Compares both parsers on one page; WHAT names it in failures. */
static void compare(const char *what, const char *html, size_t len)
{
    rc_html *doc = rc_html_parse(html, len);
    rc_htmltok *tok = rc_htmltok_scan(html, len);
    if (rc_html_degraded(doc)) { /* over gumbo's budget: its tree is not the reference */
        fprintf(stderr, "%s: gumbo degraded, not compared\n", what);
        goto done;
    }
    pages_compared++;
#define SAME_STR(field, a, b)                                                                                          \
    do {                                                                                                               \
        rc_test_checks++;                                                                                              \
        if (!rc_test_opt_eq(a, b)) {                                                                                   \
            rc_test_failures++;                                                                                        \
            fprintf(stderr, "%s: %s: gumbo \"%s\" != htmltok \"%s\"\n", what, field, a ? a : "(null)",                 \
                    b ? b : "(null)");                                                                                 \
        }                                                                                                              \
    } while (0)
    SAME_STR("title", rc_html_title(doc), rc_htmltok_title(tok));
    SAME_STR("base", rc_html_base_href(doc), rc_htmltok_base_href(tok));
    SAME_STR("refresh", rc_html_meta_refresh(doc), rc_htmltok_meta_refresh(tok));
    RC_CHECK_INT_EQ(rc_html_robots_flags(doc), rc_htmltok_robots_flags(tok));
    for (int skip = 0; skip <= 1; skip++) {
        rc_buf a, b;
        rc_buf_init(&a);
        rc_buf_init(&b);
        size_t na = rc_html_links(doc, skip, SIZE_MAX, rc_test_collect_link, &a);
        size_t nb = rc_htmltok_links(tok, skip, SIZE_MAX, rc_test_collect_link, &b);
        RC_CHECK_INT_EQ(na, nb);
        rc_buf_putc(&a, '\0');
        rc_buf_putc(&b, '\0');
        char field[32];
        snprintf(field, sizeof field, "links (skip_nofollow=%d)", skip);
        SAME_STR(field, a.ptr, b.ptr);
        links_compared += na;
        rc_buf_release(&a);
        rc_buf_release(&b);
    }
    json_t *ma = json_object(), *mb = json_object();
    rc_maintext_meta(doc, "http://example.test/dir/page.html", ma);
    rc_htmltok_meta(tok, "http://example.test/dir/page.html", mb);
    char *ja = json_dumps(ma, JSON_COMPACT | JSON_SORT_KEYS), *jb = json_dumps(mb, JSON_COMPACT | JSON_SORT_KEYS);
    SAME_STR("meta", ja, jb);
    free(ja);
    free(jb);
    json_decref(ma);
    json_decref(mb);
done:
    rc_htmltok_free(tok);
    rc_html_free(doc);
}

int main(int argc, char **argv)
{
    if (argc > 1)
        data_dir = argv[1];
    rc_test_each_malformed(compare);
    rc_test_each_page(data_dir, compare);
    fprintf(stderr, "htmltok: %zu pages and cases compared, %zu links equal to gumbo's\n", pages_compared,
            links_compared);
    RC_CHECK(pages_compared > 100);
    return rc_test_done("test_htmltok");
}
