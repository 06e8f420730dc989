/* test_url.c - table-driven tests for shared/url.c. Usage: test_url DATA_DIR, where DATA_DIR holds
 * url_normalize.tsv (input, expected) and url_resolve.tsv (base, ref, expected).
 *
 * Fields are tab-separated; '#' starts a comment line. Expected is a URL, "ERR" (any error) or
 * "ERR:<code>" (EINVAL, ESCHEME, ETOOLONG, EHOST). Escapes in fields: \t \n \r \\ \xHH, and
 * \{N}c for the character c repeated N times (over-long URLs). */
#include "rc_test.h"
#include "rc_tsv.h"
#include "url.h"
#include "util.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FIELDS 3

static const char *err_name(int err)
{
    switch (err) {
    case RC_URL_EINVAL:
        return "ERR:EINVAL";
    case RC_URL_ESCHEME:
        return "ERR:ESCHEME";
    case RC_URL_ETOOLONG:
        return "ERR:ETOOLONG";
    case RC_URL_EHOST:
        return "ERR:EHOST";
    default:
        return "ERR:?";
    }
}

static bool expect_matches(const char *expected, int err, const char *got)
{
    if (err)
        return strcmp(expected, "ERR") == 0 || strcmp(expected, err_name(err)) == 0;
    return strcmp(expected, got) == 0;
}

/* The second application of normalisation must change nothing. */
static void check_idempotent(const char *where, const char *url)
{
    char *again = NULL;
    int err = rc_url_normalize(url, &again);
    rc_test_checks++;
    if (err || strcmp(again, url) != 0) {
        rc_test_failures++;
        fprintf(stderr, "%s: not idempotent: \"%s\" -> \"%s\"\n", where, url, err ? err_name(err) : again);
    }
    free(again);
}

/* Runs every case of one file; NF is 2 (normalize) or 3 (resolve). Returns the number of cases. */
static int run_file(const char *dir, const char *name, int nf)
{
    char *path = rc_xasprintf("%s/%s", dir, name);
    FILE *f = fopen(path, "r");
    rc_buf fields[MAX_FIELDS];
    char *line = NULL;
    size_t line_cap = 0;
    int cases = 0, lineno = 0;
    rc_url_base *kept = NULL; /* the last base, parsed once for the cases that share it */
    char *kept_text = NULL;

    rc_test_checks++;
    if (!f) {
        rc_test_failures++;
        fprintf(stderr, "%s: cannot open\n", path);
        free(path);
        return 0;
    }
    for (int i = 0; i < MAX_FIELDS; i++)
        rc_buf_init(&fields[i]);
    int k;
    while ((k = rc_tsv_read(f, &line, &line_cap, &lineno, fields, MAX_FIELDS)) != -1) {
        rc_test_checks++;
        if (k != nf) {
            rc_test_failures++;
            fprintf(stderr, "%s:%d: malformed line (%d fields; -2: a bad escape)\n", path, lineno, k);
            continue;
        }
        cases++;

        const char *expected = fields[nf - 1].ptr;
        char *got = NULL;
        int err;
        if (nf == 2) {
            err = rc_url_normalize(fields[0].ptr, &got);
        } else {
            /* An exact-size copy without NUL, so ASan catches reads past ref_len. */
            size_t rn = fields[1].len;
            char *ref = rc_xmalloc(rn);
            memcpy(ref, fields[1].ptr, rn);
            err = rc_url_resolve(fields[0].ptr, ref, rn, &got);
            /* the same through an rc_url_base kept over the file's cases with this base */
            if (!kept_text || strcmp(kept_text, fields[0].ptr) != 0) {
                rc_url_base_free(kept);
                free(kept_text);
                kept_text = rc_xstrdup(fields[0].ptr);
                kept = rc_url_base_new(kept_text);
            }
            char *at = NULL;
            int err_at = rc_url_resolve_at(kept, ref, rn, &at);
            rc_test_checks++;
            if (err_at != err || (at == NULL) != (got == NULL) || (at && strcmp(at, got) != 0)) {
                rc_test_failures++;
                fprintf(stderr, "%s:%d: resolve_at(\"%s\", \"%s\") gave %s, resolve %s\n", path, lineno, fields[0].ptr,
                        fields[1].ptr, err_at ? err_name(err_at) : at, err ? err_name(err) : got);
            }
            free(at);
            free(ref);
        }
        rc_test_checks++;
        if (!expect_matches(expected, err, got)) {
            rc_test_failures++;
            if (nf == 2)
                fprintf(stderr, "%s:%d: normalize(\"%s\")\n    got:      %s\n    expected: %s\n", path, lineno,
                        fields[0].ptr, err ? err_name(err) : got, expected);
            else
                fprintf(stderr, "%s:%d: resolve(\"%s\", \"%s\")\n    got:      %s\n    expected: %s\n", path, lineno,
                        fields[0].ptr, fields[1].ptr, err ? err_name(err) : got, expected);
        }
        rc_test_checks++;
        if (err && got) {
            rc_test_failures++;
            fprintf(stderr, "%s:%d: output written on error\n", path, lineno);
        }
        if (!err) {
            char where[64];
            snprintf(where, sizeof where, "%s:%d", name, lineno);
            check_idempotent(where, got);
        }
        free(got);
    }
    rc_url_base_free(kept);
    free(kept_text);
    free(line);
    fclose(f);
    for (int i = 0; i < MAX_FIELDS; i++)
        rc_buf_release(&fields[i]);
    free(path);
    return cases;
}

static void test_host_functions(void)
{
    static const struct {
        const char *url, *key, *host;
    } cases[] = {
        {"http://example.com/", "example.com", "example.com"},
        {"https://Example.COM/a?b", "example.com", "example.com"},
        {"http://example.com:8080/x", "example.com:8080", "example.com"},
        {"http://example.com:80/x", "example.com", "example.com"},
        {"https://example.com:443", "example.com", "example.com"},
        {"https://example.com:80/", "example.com:80", "example.com"},
        {"http://u:p@example.com:81/", "example.com:81", "example.com"},
        {"http://[2001:db8::1]/", "[2001:db8::1]", "2001:db8::1"},
        {"http://[2001:DB8::1]:8000/", "[2001:db8::1]:8000", "2001:db8::1"},
        {"http://10.0.0.1:8080?q", "10.0.0.1:8080", "10.0.0.1"},
        {"http://example.com#f", "example.com", "example.com"},
    };
    char buf[300];
    for (size_t i = 0; i < RC_ARRAY_LEN(cases); i++) {
        RC_CHECK_INT_EQ(rc_url_host_key(cases[i].url, buf, sizeof buf), 0);
        RC_CHECK_STR_EQ(buf, cases[i].key);
        RC_CHECK_INT_EQ(rc_url_host(cases[i].url, buf, sizeof buf), 0);
        RC_CHECK_STR_EQ(buf, cases[i].host);
    }

    static const struct {
        const char *url;
        int err;
    } bad[] = {
        {"ftp://example.com/", RC_URL_ESCHEME}, {"example.com/", RC_URL_EINVAL},
        {"http:example.com", RC_URL_EINVAL},    {"http:///x", RC_URL_EHOST},
        {"http://:80/", RC_URL_EHOST},          {"http://a:99999/", RC_URL_EINVAL},
        {"http://a:8x/", RC_URL_EINVAL},        {"http://[::1/", RC_URL_EINVAL},
    };
    for (size_t i = 0; i < RC_ARRAY_LEN(bad); i++) {
        snprintf(buf, sizeof buf, "untouched");
        RC_CHECK_INT_EQ(rc_url_host_key(bad[i].url, buf, sizeof buf), bad[i].err);
        RC_CHECK_INT_EQ(rc_url_host(bad[i].url, buf, sizeof buf), bad[i].err);
        RC_CHECK_STR_EQ(buf, "untouched");
    }

    /* Exactly fitting, one byte short, and a zero-sized buffer. */
    char small[17];
    RC_CHECK_INT_EQ(rc_url_host_key("http://example.com:81/", small, 17), 0);
    RC_CHECK_STR_EQ(small, "example.com:81");
    RC_CHECK_INT_EQ(rc_url_host_key("http://example.com:81/", small, 12), RC_URL_ETOOLONG);
    RC_CHECK_INT_EQ(rc_url_host("http://example.com/", small, 11), RC_URL_ETOOLONG);
    RC_CHECK_INT_EQ(rc_url_host("http://example.com/", small, 0), RC_URL_ETOOLONG);
}

static void test_misc(void)
{
    for (int e = RC_URL_EHOST; e <= RC_URL_OK; e++)
        RC_CHECK(rc_url_strerror(e) != NULL && strcmp(rc_url_strerror(e), rc_url_strerror(1)) != 0);

    /* ref_len is honoured: the bytes after it are not part of the reference. */
    char *got = NULL;
    RC_CHECK_INT_EQ(rc_url_resolve("http://a/b/c", "d#zz/../e", 1, &got), 0);
    RC_CHECK_STR_EQ(got, "http://a/b/d");
    free(got);
    got = NULL;
    RC_CHECK_INT_EQ(rc_url_resolve("http://a/b/c", "xyz", 0, &got), 0);
    RC_CHECK_STR_EQ(got, "http://a/b/c");
    free(got);

    /* A kept base that does not parse: a relative reference gets its error each time, an
     * absolute one does not look at it; a good one serves relative references again and again
     * (its nodes outlive each resolution), "http:g" is relative to an http base. */
    rc_url_base *kb = rc_url_base_new("javascript:void(0)");
    for (int i = 0; i < 2; i++) {
        got = NULL;
        RC_CHECK_INT_EQ(rc_url_resolve_at(kb, "x", 1, &got), RC_URL_ESCHEME);
        RC_CHECK(got == NULL);
        RC_CHECK_INT_EQ(rc_url_resolve_at(kb, "HTTP://A/b", 10, &got), 0);
        RC_CHECK_STR_EQ(got, "http://a/b");
        free(got);
    }
    rc_url_base_free(kb);
    kb = rc_url_base_new("http://h/a/b/c?q");
    static const char *const refs[][2] = {
        {"../../../x", "http://h/x"}, {"?r", "http://h/a/b/c?r"},    {"http:g", "http://h/a/b/g"},
        {"//o/p", "http://o/p"},      {"d/./e", "http://h/a/b/d/e"}, {"", "http://h/a/b/c?q"},
    };
    for (int round = 0; round < 3; round++)
        for (size_t i = 0; i < RC_ARRAY_LEN(refs); i++) {
            got = NULL;
            RC_CHECK_INT_EQ(rc_url_resolve_at(kb, refs[i][0], strlen(refs[i][0]), &got), 0);
            RC_CHECK_STR_EQ(got, refs[i][1]);
            free(got);
        }
    rc_url_base_free(kb);
    rc_url_base_free(NULL);

    /* A kept base's host is written once for its relative references: every kind of host, and
     * references that bring their own, give what rc_url_resolve gives, again and again. */
    static const char *const bases[] = {
        "http://[::1]:8080/a/b", "http://0x7f.1/a/b",    "http://fa\xC3\x9F.de/a/b", "HTTP://EXAMPLE.com./a/b",
        "http://a%zz.test/a/b",  "http://999.1.1.1/a/b", "https://h.test:443/a/b",   "http://user:pw@h.test/a/b"};
    static const char *const rel[] = {"c", "../d?q", "//other.test/x", "http://[::2]/y", "https://h.test/z", "", "#f"};
    for (size_t i = 0; i < RC_ARRAY_LEN(bases); i++) {
        kb = rc_url_base_new(bases[i]);
        for (int round = 0; round < 2; round++)
            for (size_t k = 0; k < RC_ARRAY_LEN(rel); k++) {
                char *one = NULL, *at = NULL;
                int e1 = rc_url_resolve(bases[i], rel[k], strlen(rel[k]), &one);
                int e2 = rc_url_resolve_at(kb, rel[k], strlen(rel[k]), &at);
                rc_test_checks++;
                if (e1 != e2 || (one == NULL) != (at == NULL) || (one && strcmp(one, at) != 0)) {
                    rc_test_failures++;
                    fprintf(stderr, "resolve_at(%s, %s): %d %s, resolve: %d %s\n", bases[i], rel[k], e2, at ? at : "-",
                            e1, one ? one : "-");
                }
                free(one);
                free(at);
            }
        rc_url_base_free(kb);
    }

    /* Exactly RC_URL_MAX bytes passes, one more does not. */
    rc_buf b;
    rc_buf_init(&b);
    rc_buf_puts(&b, "http://a/");
    while (b.len < RC_URL_MAX)
        rc_buf_append(&b, "x", 1);
    got = NULL;
    RC_CHECK_INT_EQ(rc_url_normalize(b.ptr, &got), 0);
    RC_CHECK(got && strlen(got) == RC_URL_MAX);
    free(got);
    rc_buf_append(&b, "x", 1);
    got = NULL;
    RC_CHECK_INT_EQ(rc_url_normalize(b.ptr, &got), RC_URL_ETOOLONG);
    RC_CHECK(got == NULL);
    rc_buf_release(&b);
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : "tests/data";
    int n = run_file(dir, "url_normalize.tsv", 2);
    int r = run_file(dir, "url_resolve.tsv", 3);
    fprintf(stderr, "test_url: %d normalize cases, %d resolve cases\n", n, r);
    RC_CHECK(n >= 150); /* the tables were read */
    RC_CHECK(r >= 100);
    test_host_functions();
    test_misc();
    return rc_test_done("test_url");
}
