/* test_robots.c - table-driven conformance tests for shared/robots.c, plus a few direct checks
 * (pathological patterns, serialisation, allow_all/disallow_all, garbage). Usage:
 * test_robots DATA_DIR, where DATA_DIR/robots/ holds *.tsv case files and files/ with robots.txt
 * bodies.
 *
 * A case line has four tab-separated fields: ROBOTS, AGENT, QUERY, EXPECTED. '#' starts a comment
 * line. ROBOTS is "@name" for DATA_DIR/robots/files/name, or the body inline. QUERY is a path
 * (plus "?query", checked with rc_robots_allowed), "url:" and an absolute URL (checked with
 * rc_robots_allowed_url), "crawl-delay" or "sitemaps". EXPECTED is "allowed" / "disallowed", a
 * number or "none" for crawl-delay, the space-separated sitemaps or "none". Escapes in fields:
 * \t \n \r \\ \xHH, and \{N}c for the character c repeated N times. Every case is also checked
 * against rc_robots_deserialize(rc_robots_serialize(r)). */
#include "rc_test.h"
#include "rc_tsv.h"
#include "robots.h"
#include "util.h"

#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NFIELDS 4

/* Reads a whole file into B. -1 when it cannot be read. */
static int read_file(const char *path, rc_buf *b)
{
    FILE *f = fopen(path, "rb");
    char chunk[65536];
    size_t n;
    rc_buf_reset(b);
    rc_buf_append(b, "", 0);
    if (!f)
        return -1;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        rc_buf_append(b, chunk, n);
    int err = ferror(f) ? -1 : 0;
    fclose(f);
    return err;
}

/* The answer to QUERY, as EXPECTED would spell it, into OUT. */
static void answer(const rc_robots *r, const char *query, rc_buf *out)
{
    rc_buf_reset(out);
    rc_buf_append(out, "", 0);
    if (strcmp(query, "crawl-delay") == 0) {
        double d = rc_robots_crawl_delay(r);
        if (d < 0)
            rc_buf_puts(out, "none");
        else
            rc_buf_printf(out, "%g", d);
    } else if (strcmp(query, "sitemaps") == 0) {
        const char *const *maps;
        size_t n = rc_robots_sitemaps(r, &maps);
        if (n == 0)
            rc_buf_puts(out, "none");
        for (size_t i = 0; i < n; i++)
            rc_buf_printf(out, "%s%s", i ? " " : "", maps[i]);
    } else if (strncmp(query, "url:", 4) == 0) {
        rc_buf_puts(out, rc_robots_allowed_url(r, query + 4) ? "allowed" : "disallowed");
    } else {
        rc_buf_puts(out, rc_robots_allowed(r, query) ? "allowed" : "disallowed");
    }
}

static bool expect_matches(const char *expected, const char *got, const char *query)
{
    if (strcmp(query, "crawl-delay") == 0 && strcmp(expected, "none") != 0 && strcmp(got, "none") != 0)
        return strtod(expected, NULL) == strtod(got, NULL);
    return strcmp(expected, got) == 0;
}

/* Shortens a field for messages: files are named, long inline bodies and paths are cut. */
static void describe(const char *s, char *out, size_t cap)
{
    size_t n = strlen(s);
    size_t k = 0;
    for (size_t i = 0; i < n && k + 8 < cap; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '\n') {
            out[k++] = '\\';
            out[k++] = 'n';
        } else if (c < 0x20 || c == 0x7f) {
            k += (size_t)snprintf(out + k, cap - k, "\\x%02X", c);
        } else {
            out[k++] = (char)c;
        }
        if (i + 1 < n && k + 8 >= cap) {
            memcpy(out + k, "...", 3);
            k += 3;
            break;
        }
    }
    out[k] = '\0';
}

/* The parse being reused by consecutive cases with the same ROBOTS and AGENT. */
struct parsed {
    char *spec, *agent;
    rc_robots *r, *copy; /* copy: the serialised and deserialised r */
};

static void parsed_clear(struct parsed *p)
{
    free(p->spec);
    free(p->agent);
    rc_robots_free(p->r);
    rc_robots_free(p->copy);
    memset(p, 0, sizeof *p);
}

/* Parses SPEC for AGENT unless P already holds it. Returns -1 if a file is missing. */
static int parsed_get(struct parsed *p, const char *dir, const char *where, const char *spec, const char *agent)
{
    if (p->r && strcmp(p->spec, spec) == 0 && strcmp(p->agent, agent) == 0)
        return 0;
    parsed_clear(p);

    rc_buf body;
    rc_buf_init(&body);
    if (spec[0] == '@') {
        char *path = rc_xasprintf("%s/robots/files/%s", dir, spec + 1);
        int err = read_file(path, &body);
        if (err < 0) {
            rc_test_failures++;
            fprintf(stderr, "%s: cannot read %s\n", where, path);
        }
        free(path);
        if (err < 0) {
            rc_buf_release(&body);
            return -1;
        }
    } else {
        rc_buf_puts(&body, spec);
    }
    /* An exact-size copy without NUL, so ASan catches reads past len. */
    char *exact = rc_xmalloc(body.len ? body.len : 1);
    memcpy(exact, body.ptr, body.len);
    p->r = rc_robots_parse(exact, body.len, agent);
    free(exact);
    rc_buf_release(&body);

    char *ser = rc_robots_serialize(p->r);
    p->copy = rc_robots_deserialize(ser, strlen(ser));
    rc_test_checks++;
    if (!p->copy) {
        rc_test_failures++;
        fprintf(stderr, "%s: serialisation does not load back: %s\n", where, ser);
        p->copy = rc_robots_allow_all();
    } else {
        char *again = rc_robots_serialize(p->copy);
        rc_test_checks++;
        if (strcmp(ser, again) != 0) {
            rc_test_failures++;
            fprintf(stderr, "%s: serialisation not stable:\n    %s\n    %s\n", where, ser, again);
        }
        free(again);
    }
    free(ser);
    p->spec = rc_xstrdup(spec);
    p->agent = rc_xstrdup(agent);
    return 0;
}

/* Runs every case of one file. Returns the number of cases. */
static int run_file(const char *dir, const char *name)
{
    char *path = rc_xasprintf("%s/robots/%s", dir, name);
    FILE *f = fopen(path, "r");
    rc_buf fields[NFIELDS], got, got_copy;
    struct parsed parsed;
    char *line = NULL;
    size_t line_cap = 0;
    int cases = 0, lineno = 0;

    rc_test_checks++;
    if (!f) {
        rc_test_failures++;
        fprintf(stderr, "%s: cannot open\n", path);
        free(path);
        return 0;
    }
    memset(&parsed, 0, sizeof parsed);
    for (int i = 0; i < NFIELDS; i++)
        rc_buf_init(&fields[i]);
    rc_buf_init(&got);
    rc_buf_init(&got_copy);
    int k;
    while ((k = rc_tsv_read(f, &line, &line_cap, &lineno, fields, NFIELDS)) != -1) {
        rc_test_checks++;
        if (k != NFIELDS) {
            rc_test_failures++;
            fprintf(stderr, "%s:%d: malformed line (%d fields; -2: a bad escape)\n", path, lineno, k);
            continue;
        }
        cases++;

        char where[512];
        snprintf(where, sizeof where, "%s:%d", path, lineno);
        const char *spec = fields[0].ptr, *agent = fields[1].ptr, *query = fields[2].ptr;
        const char *expected = fields[3].ptr;
        if (parsed_get(&parsed, dir, where, spec, agent) < 0)
            continue;

        answer(parsed.r, query, &got);
        answer(parsed.copy, query, &got_copy);
        rc_test_checks += 2;
        char file_d[80], query_d[120];
        if (!expect_matches(expected, got.ptr, query) || !expect_matches(expected, got_copy.ptr, query)) {
            rc_test_failures++;
            describe(spec[0] == '@' ? spec + 1 : spec, file_d, sizeof file_d);
            describe(query, query_d, sizeof query_d);
            fprintf(stderr,
                    "%s: FAIL\n    file:     %s\n    agent:    \"%s\"\n    query:    %s\n"
                    "    expected: %s\n    got:      %s\n",
                    where, file_d, agent, query_d, expected, got.ptr);
            if (strcmp(got.ptr, got_copy.ptr) != 0)
                fprintf(stderr, "    after serialize/deserialize: %s\n", got_copy.ptr);
        }
    }
    parsed_clear(&parsed);
    free(line);
    fclose(f);
    for (int i = 0; i < NFIELDS; i++)
        rc_buf_release(&fields[i]);
    rc_buf_release(&got);
    rc_buf_release(&got_copy);
    free(path);
    return cases;
}

static int name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Runs every *.tsv in DIR/robots in name order. Returns the number of cases. */
static int run_all(const char *dir)
{
    char *path = rc_xasprintf("%s/robots", dir);
    DIR *d = opendir(path);
    char **names = NULL;
    size_t n = 0;
    int cases = 0;
    struct dirent *e;

    rc_test_checks++;
    if (!d) {
        rc_test_failures++;
        fprintf(stderr, "%s: cannot open directory\n", path);
        free(path);
        return 0;
    }
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len > 4 && strcmp(e->d_name + len - 4, ".tsv") == 0) {
            names = rc_xrealloc(names, (n + 1) * sizeof *names);
            names[n++] = rc_xstrdup(e->d_name);
        }
    }
    closedir(d);
    qsort(names, n, sizeof *names, name_cmp);
    for (size_t i = 0; i < n; i++) {
        int c = run_file(dir, names[i]);
        fprintf(stderr, "test_robots: %s: %d cases\n", names[i], c);
        cases += c;
        free(names[i]);
    }
    free(names);
    free(path);
    RC_CHECK(n > 0);
    return cases;
}

/* '*' must not backtrack exponentially: a pattern of many stars against a long path that
 * almost matches everywhere. */
static void test_pathological(void)
{
    rc_buf body, path;
    rc_buf_init(&body);
    rc_buf_init(&path);
    rc_buf_puts(&body, "User-agent: *\nDisallow: /a*a*a*a*a*a*a*a*b\n");
    rc_buf_puts(&body, "Disallow: /*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*c$\n");
    rc_buf_puts(&body, "Disallow: /");
    for (int i = 0; i < 200; i++)
        rc_buf_puts(&body, "*a");
    rc_buf_puts(&body, "*x\n");
    rc_robots *r = rc_robots_parse(body.ptr, body.len, "redcrawl");

    rc_buf_puts(&path, "/");
    for (int i = 0; i < 100000; i++)
        rc_buf_append(&path, "a", 1);
    uint64_t t0 = rc_mono_ms();
    for (int i = 0; i < 20; i++)
        RC_CHECK_INT_EQ(rc_robots_allowed(r, path.ptr), 1);
    rc_buf_append(&path, "b", 1);
    RC_CHECK_INT_EQ(rc_robots_allowed(r, path.ptr), 0);
    path.ptr[path.len - 1] = 'c';
    RC_CHECK_INT_EQ(rc_robots_allowed(r, path.ptr), 0);
    path.ptr[path.len - 1] = 'x';
    RC_CHECK_INT_EQ(rc_robots_allowed(r, path.ptr), 0);
    uint64_t ms = rc_mono_ms() - t0;
    if (ms > 2000) { /* generous for sanitizer builds; exponential would take forever */
        rc_test_failures++;
        fprintf(stderr, "pathological patterns took %llu ms\n", (unsigned long long)ms);
    }
    rc_test_checks++;
    rc_robots_free(r);
    rc_buf_release(&body);
    rc_buf_release(&path);
}

static void test_fixed(void)
{
    rc_robots *a = rc_robots_allow_all(), *d = rc_robots_disallow_all();
    const char *const *maps;
    RC_CHECK_INT_EQ(rc_robots_allowed(a, "/"), 1);
    RC_CHECK_INT_EQ(rc_robots_allowed(a, "/private?x=1"), 1);
    RC_CHECK_INT_EQ(rc_robots_allowed(d, "/"), 0);
    RC_CHECK_INT_EQ(rc_robots_allowed(d, "/x"), 0);
    RC_CHECK_INT_EQ(rc_robots_allowed(d, ""), 0);
    RC_CHECK_INT_EQ(rc_robots_allowed(d, NULL), 0);
    RC_CHECK_INT_EQ(rc_robots_allowed(d, "/robots.txt"), 1);
    RC_CHECK_INT_EQ(rc_robots_allowed_url(d, "https://example.com/robots.txt"), 1);
    RC_CHECK_INT_EQ(rc_robots_allowed_url(d, "https://example.com"), 0);
    RC_CHECK_INT_EQ(rc_robots_allowed_url(a, "https://example.com/a"), 1);
    RC_CHECK_INT_EQ(rc_robots_allowed_url(a, "not a url"), 0);
    RC_CHECK_INT_EQ(rc_robots_allowed_url(a, NULL), 0);
    RC_CHECK(rc_robots_crawl_delay(a) < 0 && rc_robots_crawl_delay(d) < 0);
    RC_CHECK_INT_EQ(rc_robots_sitemaps(d, &maps), 0);

    char *sa = rc_robots_serialize(a), *sd = rc_robots_serialize(d);
    RC_CHECK_STR_EQ(sa, "R1 0 0\n");
    RC_CHECK_STR_EQ(sd, "R1 1 0\nd/\n");
    rc_robots *d2 = rc_robots_deserialize(sd, strlen(sd));
    RC_CHECK(d2 != NULL);
    if (d2)
        RC_CHECK_INT_EQ(rc_robots_allowed(d2, "/x"), 0);
    rc_robots_free(d2);
    free(sa);
    free(sd);
    RC_CHECK(rc_robots_unreachable_why(a) == NULL && rc_robots_unreachable_why(d) == NULL);
    rc_robots_free(a);
    rc_robots_free(d);
    rc_robots_free(NULL);

    /* Unreachable: disallow all plus the reason, kept through Redis, one line only. */
    rc_robots *u = rc_robots_unreachable("robots.txt unreachable: Connection refused\nX");
    RC_CHECK_STR_EQ(rc_robots_unreachable_why(u), "robots.txt unreachable: Connection refused");
    RC_CHECK_INT_EQ(rc_robots_allowed(u, "/x"), 0);
    RC_CHECK_INT_EQ(rc_robots_allowed(u, "/robots.txt"), 1);
    char *su = rc_robots_serialize(u);
    RC_CHECK_STR_EQ(su, "R1 1 0\nd/\nurobots.txt unreachable: Connection refused\n");
    rc_robots *u2 = rc_robots_deserialize(su, strlen(su));
    RC_CHECK(u2 != NULL);
    if (u2) {
        RC_CHECK_STR_EQ(rc_robots_unreachable_why(u2), "robots.txt unreachable: Connection refused");
        RC_CHECK_INT_EQ(rc_robots_allowed(u2, "/x"), 0);
    }
    RC_CHECK(rc_robots_deserialize("R1 1 0\nd/\nua\nub\n", 16) == NULL); /* twice: garbage */
    rc_robots_free(u2);
    free(su);
    rc_robots_free(u);

    /* NULL body and agent are fine. */
    rc_robots *n = rc_robots_parse(NULL, 0, NULL);
    RC_CHECK_INT_EQ(rc_robots_allowed(n, "/x"), 1);
    rc_robots_free(n);
    const char body[] = "User-agent: *\nDisallow: /x\n";
    n = rc_robots_parse(body, sizeof body - 1, NULL);
    RC_CHECK_INT_EQ(rc_robots_allowed(n, "/x"), 0);
    rc_robots_free(n);
}

static void test_serialize(void)
{
    const char body[] = "User-agent: redcrawl\nCrawl-delay: 0.1\nAllow: /a/*/b$\nDisallow: /a\n"
                        "Disallow: /x%2Ay%24\nDisallow: /caf\xc3\xa9\nDisallow: *\nAllow: /$\n"
                        "Sitemap: https://example.com/s1.xml\nSitemap: https://example.com/s2.xml\n";
    rc_robots *r = rc_robots_parse(body, sizeof body - 1, "redcrawl/1.0");
    char *s = rc_robots_serialize(r);
    size_t len = strlen(s);
    RC_CHECK(len < sizeof body); /* compact: never larger than the rules it came from */

    rc_robots *c = rc_robots_deserialize(s, len);
    RC_CHECK(c != NULL);
    if (c) {
        static const char *const paths[] = {"/",      "/a",   "/a/q/b",     "/a/q/b/", "/x*y$",
                                            "/x*y$z", "/xay", "/caf%C3%A9", "/other",  "/robots.txt"};
        for (size_t i = 0; i < RC_ARRAY_LEN(paths); i++)
            RC_CHECK_INT_EQ(rc_robots_allowed(c, paths[i]), rc_robots_allowed(r, paths[i]));
        RC_CHECK(rc_robots_crawl_delay(c) == 0.1);
        const char *const *maps;
        RC_CHECK_INT_EQ(rc_robots_sitemaps(c, &maps), 2);
        RC_CHECK_STR_EQ(maps[1], "https://example.com/s2.xml");
    }
    rc_robots_free(c);

    /* Every proper prefix is rejected, and so is garbage. */
    int accepted = 0;
    for (size_t i = 0; i < len; i++) {
        char *cut = rc_xmalloc(i ? i : 1);
        memcpy(cut, s, i);
        rc_robots *t = rc_robots_deserialize(cut, i);
        accepted += t != NULL;
        rc_robots_free(t);
        free(cut);
    }
    RC_CHECK_INT_EQ(accepted, 0);
    static const char *const bad[] = {"",
                                      "R1",
                                      "R1 0 0",
                                      "R2 0 0\n",
                                      "R1 1 0\n",
                                      "R1 0 0\nx/\n",
                                      "R1 1 0\nd\n",
                                      "R1 0 0\ncfast\n",
                                      "R1 0 0\nc-1\n",
                                      "R1 0 0 0\n",
                                      "R1 1 0\nd/\n\n",
                                      "R1 0 1\ns\n",
                                      "R1 0 0\nc1\nc2\n",
                                      "R1 1 1\nshttp://a/\nd/\n",
                                      "\x01\x02\x03"};
    for (size_t i = 0; i < RC_ARRAY_LEN(bad); i++) {
        rc_robots *t = rc_robots_deserialize(bad[i], strlen(bad[i]));
        if (t) {
            rc_test_failures++;
            fprintf(stderr, "deserialize accepted bad input #%zu\n", i);
        }
        rc_test_checks++;
        rc_robots_free(t);
    }
    RC_CHECK(rc_robots_deserialize(NULL, 0) == NULL);
    free(s);
    rc_robots_free(r);
}

/* Paths longer than the on-stack buffer, and raw (not normalised) paths. */
static void test_paths(void)
{
    const char body[] = "User-agent: *\nDisallow: /*/deep$\nDisallow: /caf\xc3\xa9\nDisallow: /a%20b\n";
    rc_robots *r = rc_robots_parse(body, sizeof body - 1, "x");
    rc_buf p;
    rc_buf_init(&p);
    for (int i = 0; i < 3000; i++)
        rc_buf_puts(&p, "/\xc3\xa9");
    rc_buf_puts(&p, "/deep");
    RC_CHECK_INT_EQ(rc_robots_allowed(r, p.ptr), 0);
    rc_buf_puts(&p, "er");
    RC_CHECK_INT_EQ(rc_robots_allowed(r, p.ptr), 1);
    RC_CHECK_INT_EQ(rc_robots_allowed(r, "/caf\xc3\xa9"), 0);
    RC_CHECK_INT_EQ(rc_robots_allowed(r, "/caf%c3%a9"), 0);
    RC_CHECK_INT_EQ(rc_robots_allowed(r, "/a b"), 0);
    RC_CHECK_INT_EQ(rc_robots_allowed(r, "?a"), 1);
    rc_buf_release(&p);
    rc_robots_free(r);
}

/* Random bytes, and random mixes of robots.txt fragments: nothing may crash or leak, and the
 * serialisation must always load back. A fixed seed keeps the run reproducible. */
static void test_garbage(void)
{
    static const char *const frags[] = {
        "User-agent: ", "*",         "redcrawl",     "Disallow: ", "Allow: ", "/", "$",    "%",  "%2",
        "%2A",          "\n",        "\r",           "\r\n",       "#",       ":", " ",    "\t", "Crawl-delay: ",
        "1.5",          "Sitemap: ", "\xEF\xBB\xBF", "\xff",       "a",       "?", "\x01", "\0"};
    uint32_t seed = 12345;
    rc_buf b;
    rc_buf_init(&b);
    for (int round = 0; round < 400; round++) {
        rc_buf_reset(&b);
        int n = (int)(seed % 200);
        for (int i = 0; i < n; i++) {
            seed = seed * 1103515245u + 12345u;
            if (round % 2) {
                char c = (char)(seed >> 16);
                rc_buf_append(&b, &c, 1);
            } else {
                const char *f = frags[(seed >> 16) % RC_ARRAY_LEN(frags)];
                rc_buf_append(&b, f, *f ? strlen(f) : 1);
            }
        }
        char *exact = rc_xmalloc(b.len ? b.len : 1);
        memcpy(exact, b.ptr, b.len);
        rc_robots *r = rc_robots_parse(exact, b.len, "redcrawl");
        free(exact);
        char *s = rc_robots_serialize(r);
        rc_robots *c = rc_robots_deserialize(s, strlen(s));
        RC_CHECK(c != NULL);
        static const char *const paths[] = {"/", "/a", "/a$", "/%2A", "/*", "/a?b", "/robots.txt"};
        for (size_t i = 0; c && i < RC_ARRAY_LEN(paths); i++)
            RC_CHECK_INT_EQ(rc_robots_allowed(c, paths[i]), rc_robots_allowed(r, paths[i]));
        rc_robots_free(c);
        rc_robots_free(r);
        free(s);
    }
    rc_buf_release(&b);
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : "tests/data";
    int n = run_all(dir);
    fprintf(stderr, "test_robots: %d cases in total\n", n);
    RC_CHECK(n >= 120);
    test_pathological();
    test_fixed();
    test_serialize();
    test_paths();
    test_garbage();
    return rc_test_done("test_robots");
}
