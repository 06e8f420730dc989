/* rc_test_pages.h - every HTML page under a directory, decoded to UTF-8 as the worker decodes a
 * response, for the tests that compare two parsers page by page (test_htmltok, test_htmltree).
 * Include after rc_test.h. */
#ifndef RC_TEST_PAGES_H
#define RC_TEST_PAGES_H

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "charset.h"
#include "util.h"

/* A link callback (rc_html_links, rc_htmltok_links) appending HREF and a newline to the rc_buf UD. */
static inline int rc_test_collect_link(void *ud, const char *href, size_t len)
{
    rc_buf *b = ud;
    rc_buf_append(b, href, len);
    rc_buf_append(b, "\n", 1);
    return 0;
}

/* Both NULL or both the same string. */
static inline int rc_test_opt_eq(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

typedef void (*rc_test_page_fn)(const char *path, const char *utf8, size_t len);

static inline int rc_test_is_html_name(const char *name)
{
    size_t n = strlen(name);
    return (n > 5 && strcmp(name + n - 5, ".html") == 0) || (n > 4 && strcmp(name + n - 4, ".htm") == 0);
}

/* Calls FN for every .html/.htm file under DIR (recursively). */
static inline void rc_test_each_page(const char *dir, rc_test_page_fn fn)
{
    DIR *d = opendir(dir);
    RC_CHECK(d != NULL);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char *path = rc_xasprintf("%s/%s", dir, e->d_name);
        struct stat st;
        if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
            rc_test_each_page(path, fn);
        } else if (rc_test_is_html_name(e->d_name)) {
            size_t len = 0, ulen = 0;
            char *raw = rc_read_file(path, 0, &len);
            RC_CHECK(raw != NULL);
            char cs[RC_CHARSET_NAME_MAX] = "";
            rc_charset_detect(raw, len, "text/html", cs, sizeof cs);
            char *utf8 = rc_charset_to_utf8(raw, len, cs, &ulen);
            fn(path, utf8, ulen);
            free(utf8);
            free(raw);
        }
        free(path);
    }
    closedir(d);
}

#endif
