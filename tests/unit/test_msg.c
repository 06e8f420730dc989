/* test_msg.c - control request validation: the tables in tests/data/msg/ (valid.jsonl with defaults
 * and normalised values, invalid.tsv with the field and reason each refusal names), limits that are
 * too big for a table, error answers, conversion to job specs, and a mutation sweep that must never
 * crash or answer with invalid JSON. Usage: test_msg DATA_DIR */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job.h"
#include "msg.h"
#include "rc_test.h"
#include "reqfield.h"
#include "util.h"

static int n_valid, n_invalid;

/* Decodes the TSV escapes \t \n \r \\ \xHH in place; returns the length. */
static size_t unescape(char *s)
{
    size_t o = 0;
    for (size_t i = 0; s[i]; i++) {
        if (s[i] != '\\' || !s[i + 1]) {
            s[o++] = s[i];
            continue;
        }
        char c = s[++i];
        if (c == 't')
            s[o++] = '\t';
        else if (c == 'n')
            s[o++] = '\n';
        else if (c == 'r')
            s[o++] = '\r';
        else if (c == 'x' && s[i + 1] && s[i + 2]) {
            char hex[3] = {s[i + 1], s[i + 2], 0};
            s[o++] = (char)strtol(hex, NULL, 16);
            i += 2;
        } else
            s[o++] = c;
    }
    s[o] = '\0';
    return o;
}

/* The error answer must be JSON carrying the same field, reason, uuid and appid. */
static void check_answer(const rc_msg_error *err)
{
    char *ans = rc_msg_error_answer(err);
    json_error_t jerr;
    json_t *a = json_loads(ans, 0, &jerr);
    RC_CHECK(a != NULL);
    if (!a) {
        fprintf(stderr, "answer is not JSON: %s (%s)\n", ans, jerr.text);
        free(ans);
        return;
    }
    RC_CHECK_STR_EQ(json_string_value(json_object_get(a, "field")), err->field);
    RC_CHECK_STR_EQ(json_string_value(json_object_get(a, "reason")), err->reason);
    RC_CHECK(json_is_string(json_object_get(a, "error")));
    RC_CHECK(json_integer_value(json_object_get(a, "server_time")) > 1600000000);
    json_t *u = json_object_get(a, "uuid");
    RC_CHECK(err->uuid[0] ? json_is_string(u) && strcmp(json_string_value(u), err->uuid) == 0 : json_is_null(u));
    json_t *ap = json_object_get(a, "appid");
    RC_CHECK(err->appid[0] ? json_is_string(ap) && strcmp(json_string_value(ap), err->appid) == 0 : json_is_null(ap));
    RC_CHECK(err->field[0] != '\0' && err->reason[0] != '\0');
    json_decref(a);
    free(ans);
}

/* Parses data; expects a refusal naming field with a reason containing `reason` (NULL: any). */
static void expect_bad(const char *data, size_t len, const char *field, const char *reason, const char *where)
{
    rc_msg m;
    rc_msg_error err;
    memset(&m, 0x5a, sizeof m);
    int r = rc_msg_parse(data, len, &m, &err);
    n_invalid++;
    RC_CHECK_INT_EQ(r, -EINVAL);
    if (r == 0) {
        fprintf(stderr, "%s: accepted but should fail on %s\n", where, field);
        rc_msg_release(&m);
        return;
    }
    RC_CHECK(((unsigned char *)&m)[0] == 0x5a); /* *ret untouched */
    if (strcmp(err.field, field) != 0 || (reason && !strstr(err.reason, reason))) {
        rc_test_failures++;
        fprintf(stderr, "%s: got field \"%s\" reason \"%s\"; want field \"%s\" reason containing \"%s\"\n", where,
                err.field, err.reason, field, reason ? reason : "");
    }
    check_answer(&err);
}

static int64_t int_of(const rc_msg *m, const char *key, int *found)
{
    *found = 1;
    if (!strcmp(key, "priority"))
        return m->priority;
    if (!strcmp(key, "maxdepth"))
        return m->maxdepth;
    if (!strcmp(key, "expires"))
        return m->expires;
    if (!strcmp(key, "max_pages"))
        return m->max_pages;
    if (!strcmp(key, "domain_max_pages"))
        return m->domain_max_pages;
    if (!strcmp(key, "hits"))
        return m->hits;
    if (!strcmp(key, "window"))
        return m->window;
    *found = 0;
    return 0;
}

static const char *str_of(const rc_msg *m, const char *key)
{
    if (!strcmp(key, "uuid"))
        return m->uuid;
    if (!strcmp(key, "appid"))
        return m->appid;
    if (!strcmp(key, "crawlid"))
        return m->crawlid;
    if (!strcmp(key, "spiderid"))
        return m->spiderid;
    if (!strcmp(key, "url"))
        return m->url;
    if (!strcmp(key, "domain"))
        return m->domain;
    if (!strcmp(key, "action"))
        return rc_msg_action_name(m->action);
    if (!strcmp(key, "stats"))
        return rc_msg_stats_name(m->stats);
    if (!strcmp(key, "domain_action"))
        return rc_msg_domain_action_name(m->domain_action);
    return NULL;
}

/* The job spec made from a crawl request must be accepted by rc_job_parse and say the same. */
static void check_job(const rc_msg *m, const json_t *want_scope, const char *name)
{
    char *spec = rc_msg_crawl_to_job_json(m);
    RC_CHECK(spec != NULL);
    if (!spec)
        return;
    rc_job job;
    char jerr[256] = "";
    int r = rc_job_parse(spec, strlen(spec), &job, jerr, sizeof jerr);
    RC_CHECK_INT_EQ(r, 0);
    if (r < 0) {
        fprintf(stderr, "%s: job spec %s refused: %s\n", name, spec, jerr);
        free(spec);
        return;
    }
    RC_CHECK_STR_EQ(job.crawlid, m->crawlid);
    RC_CHECK_STR_EQ(job.appid, m->appid);
    RC_CHECK_STR_EQ(job.spiderid, m->spiderid);
    RC_CHECK_INT_EQ(job.n_seeds, 1);
    RC_CHECK_STR_EQ(job.seeds[0], m->url);
    RC_CHECK_INT_EQ(job.priority, m->priority);
    RC_CHECK_INT_EQ(job.maxdepth, m->maxdepth);
    RC_CHECK_INT_EQ(job.max_pages, m->max_pages);
    RC_CHECK_INT_EQ(job.expires, m->expires);
    if (want_scope) {
        RC_CHECK_INT_EQ(job.n_scope, json_array_size(want_scope));
        for (size_t i = 0; i < job.n_scope && i < json_array_size(want_scope); i++)
            RC_CHECK_STR_EQ(job.scope[i], json_string_value(json_array_get(want_scope, i)));
    }
    /* Fields job.c does not model yet travel along for the modules that do. */
    json_t *s = json_loads(spec, 0, NULL);
    const char *carried[] = {"attrs",      "rules", "allow_regex", "deny_regex", "deny_extensions", "domain_max_pages",
                             "text_method"};
    for (size_t i = 0; i < RC_ARRAY_LEN(carried); i++) {
        json_t *v = json_object_get(m->doc, carried[i]);
        if (v && !json_is_null(v))
            RC_CHECK(json_equal(v, json_object_get(s, carried[i])));
    }
    json_decref(s);
    rc_job_release(&job);
    free(spec);
}

static void run_valid(const char *dir)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/msg/valid.jsonl", dir);
    FILE *f = fopen(path, "r");
    RC_CHECK(f != NULL);
    if (!f)
        return;
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    int lineno = 0;
    while ((n = getline(&line, &cap, f)) > 0) {
        lineno++;
        if (line[0] == '#' || line[0] == '\n')
            continue;
        json_error_t jerr;
        json_t *c = json_loadb(line, (size_t)n, 0, &jerr);
        RC_CHECK(c != NULL);
        if (!c) {
            fprintf(stderr, "%s:%d: %s\n", path, lineno, jerr.text);
            continue;
        }
        const char *name = json_string_value(json_object_get(c, "name"));
        char *owned = NULL;
        const char *raw = json_string_value(json_object_get(c, "raw"));
        if (!raw)
            raw = owned = json_dumps(json_object_get(c, "request"), JSON_COMPACT | JSON_PRESERVE_ORDER);
        rc_msg m;
        rc_msg_error err;
        int r = rc_msg_parse(raw, strlen(raw), &m, &err);
        n_valid++;
        RC_CHECK_INT_EQ(r, 0);
        if (r < 0) {
            fprintf(stderr, "%s:%d (%s): refused: %s: %s\n", path, lineno, name, err.field, err.reason);
            free(owned);
            json_decref(c);
            continue;
        }
        RC_CHECK_STR_EQ(rc_msg_kind_name(m.kind), json_string_value(json_object_get(c, "kind")));
        const char *key;
        json_t *want;
        json_object_foreach (json_object_get(c, "doc"), key, want) {
            json_t *got = json_object_get(m.doc, key);
            if (!got || !json_equal(got, want)) {
                char *g = got ? json_dumps(got, JSON_ENCODE_ANY) : NULL, *w = json_dumps(want, JSON_ENCODE_ANY);
                rc_test_failures++;
                fprintf(stderr, "%s:%d (%s): doc.%s is %s, want %s\n", path, lineno, name, key, g ? g : "absent", w);
                free(g);
                free(w);
            }
        }
        json_object_foreach (json_object_get(c, "m"), key, want) {
            int found;
            int64_t iv = int_of(&m, key, &found);
            if (found) {
                RC_CHECK_INT_EQ(iv, json_integer_value(want));
            } else if (!strcmp(key, "scale")) {
                RC_CHECK(m.scale == json_number_value(want));
            } else {
                const char *sv = str_of(&m, key);
                RC_CHECK(sv != NULL);
                if (!sv || strcmp(sv, json_string_value(want)) != 0) {
                    rc_test_failures++;
                    fprintf(stderr, "%s:%d (%s): m.%s is \"%s\", want \"%s\"\n", path, lineno, name, key,
                            sv ? sv : "(null)", json_string_value(want));
                }
            }
        }
        if (m.kind == RC_MSG_CRAWL && !json_is_true(json_object_get(c, "skip_job")))
            check_job(&m, json_object_get(c, "job_scope"), name);
        if (m.kind != RC_MSG_CRAWL)
            RC_CHECK(rc_msg_crawl_to_job_json(&m) == NULL);
        rc_msg_release(&m);
        free(owned);
        json_decref(c);
    }
    free(line);
    fclose(f);
}

static void run_invalid(const char *dir)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/msg/invalid.tsv", dir);
    FILE *f = fopen(path, "r");
    RC_CHECK(f != NULL);
    if (!f)
        return;
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    int lineno = 0;
    while ((n = getline(&line, &cap, f)) > 0) {
        lineno++;
        if (line[n - 1] == '\n')
            line[--n] = '\0';
        if (line[0] == '#' || n == 0)
            continue;
        char *t1 = strchr(line, '\t');
        char *t2 = t1 ? strchr(t1 + 1, '\t') : NULL;
        RC_CHECK(t2 != NULL);
        if (!t2) {
            fprintf(stderr, "%s:%d: needs three tab-separated columns\n", path, lineno);
            continue;
        }
        *t1 = *t2 = '\0';
        size_t len = unescape(line);
        char where[1200];
        snprintf(where, sizeof where, "%s:%d", path, lineno);
        expect_bad(line, len, t1 + 1, t2 + 1, where);
    }
    free(line);
    fclose(f);
}

/* Limits too large for the tables, and what the error carries. */
/* An unknown field is answered with the list of every field the request may carry, whole: a typo
 * of the last ones (meta_refresh_max) must find its name there, not a list cut mid-word. */
static void run_unknown_field_lists_all(void)
{
    const char *s = "{\"uuid\":\"u1\",\"appid\":\"testapp\",\"crawlid\":\"c1\",\"url\":\"http://example.com/\","
                    "\"meta_refresh\":1}";
    rc_msg m;
    rc_msg_error err;
    RC_CHECK_INT_EQ(rc_msg_parse(s, strlen(s), &m, &err), -EINVAL);
    RC_CHECK_STR_EQ(err.field, "meta_refresh");
    size_t len = strlen(err.reason);
    RC_CHECK(len > 0 && err.reason[len - 1] == ')');
    for (size_t i = 0; i < rc_reqfield_crawl_len; i++) {
        const rc_reqfield *f = &rc_reqfield_crawl[i];
        if (f->flags & RC_REQFIELD_SPEC_ONLY)
            continue;
        char want[64];
        snprintf(want, sizeof want, " %s%s", f->name, i + 1 == rc_reqfield_crawl_len ? ")" : "");
        if (!strstr(err.reason, want)) {
            rc_test_failures++;
            fprintf(stderr, "unknown field: the list of known fields lacks %s: %s\n", f->name, err.reason);
        }
    }
    check_answer(&err);
}

static void run_limits(void)
{
    const char *base = "{\"appid\":\"testapp\",\"crawlid\":\"c1\",\"url\":\"http://example.com/\"";
    rc_buf b;
    rc_msg m;
    rc_msg_error err;

    /* Size: exactly the limit is fine (padding is whitespace), one byte more is not, 2 MiB is not. */
    rc_buf_init(&b);
    rc_buf_puts(&b, base);
    rc_buf_puts(&b, "}");
    while (b.len < RC_MSG_MAX_BYTES)
        rc_buf_append(&b, " ", 1);
    RC_CHECK_INT_EQ(rc_msg_parse(b.ptr, b.len, &m, &err), 0);
    rc_msg_release(&m);
    rc_buf_append(&b, " ", 1);
    expect_bad(b.ptr, b.len, "(root)", "larger than the limit of 1048576 bytes", "1 MiB + 1");
    while (b.len < 2 * 1024 * 1024)
        rc_buf_append(&b, " ", 1);
    expect_bad(b.ptr, b.len, "(root)", "the message is 2097152 bytes", "2 MiB");
    rc_buf_release(&b);

    /* Nesting: attrs is level 2; level 32 is the deepest allowed. */
    for (int depth = 31; depth <= 33; depth++) {
        rc_buf_init(&b);
        rc_buf_puts(&b, base);
        rc_buf_puts(&b, ",\"attrs\":");
        for (int i = 2; i <= depth; i++)
            rc_buf_puts(&b, i % 2 ? "[" : "{\"k\":");
        rc_buf_puts(&b, "1");
        for (int i = depth; i >= 2; i--)
            rc_buf_puts(&b, i % 2 ? "]" : "}");
        rc_buf_puts(&b, "}");
        if (depth <= RC_MSG_MAX_DEPTH - 1) {
            int r = rc_msg_parse(b.ptr, b.len, &m, &err);
            RC_CHECK_INT_EQ(r, 0);
            if (r == 0)
                rc_msg_release(&m);
            else
                fprintf(stderr, "depth %d: %s: %s\n", depth, err.field, err.reason);
        } else {
            expect_bad(b.ptr, b.len, "attrs", "nested too deeply", "attrs depth");
        }
        rc_buf_release(&b);
    }
    /* Deeper than jansson's own parser limit: refused as not JSON, without recursion trouble. */
    rc_buf_init(&b);
    rc_buf_puts(&b, base);
    rc_buf_puts(&b, ",\"attrs\":");
    for (int i = 0; i < 5000; i++)
        rc_buf_puts(&b, "[");
    for (int i = 0; i < 5000; i++)
        rc_buf_puts(&b, "]");
    rc_buf_puts(&b, "}");
    expect_bad(b.ptr, b.len, "(root)", "maximum parsing depth", "5000 levels");
    rc_buf_release(&b);

    /* List sizes: 1000 allowed_domains are fine, 1001 are not; 101 regexes are not. */
    for (int count = 1000; count <= 1001; count++) {
        rc_buf_init(&b);
        rc_buf_puts(&b, base);
        rc_buf_puts(&b, ",\"allowed_domains\":[");
        for (int i = 0; i < count; i++)
            rc_buf_printf(&b, "%s\"d%d.example.com\"", i ? "," : "", i);
        rc_buf_puts(&b, "]}");
        if (count == 1000) {
            RC_CHECK_INT_EQ(rc_msg_parse(b.ptr, b.len, &m, &err), 0);
            char *spec = rc_msg_crawl_to_job_json(&m);
            rc_job job;
            char jerr[256];
            RC_CHECK_INT_EQ(rc_job_parse(spec, strlen(spec), &job, jerr, sizeof jerr), 0);
            RC_CHECK_INT_EQ(job.n_scope, 1000);
            rc_job_release(&job);
            free(spec);
            rc_msg_release(&m);
        } else {
            expect_bad(b.ptr, b.len, "allowed_domains", "has 1001 items; at most 1000", "1001 domains");
        }
        rc_buf_release(&b);
    }
    rc_buf_init(&b);
    rc_buf_puts(&b, base);
    rc_buf_puts(&b, ",\"allow_regex\":[");
    for (int i = 0; i < 101; i++)
        rc_buf_printf(&b, "%s\"^/p%d/\"", i ? "," : "", i);
    rc_buf_puts(&b, "]}");
    expect_bad(b.ptr, b.len, "allow_regex", "at most 100", "101 regexes");
    rc_buf_reset(&b);
    rc_buf_puts(&b, base);
    rc_buf_puts(&b, ",\"deny_regex\":[\"");
    for (int i = 0; i < 1025; i++)
        rc_buf_puts(&b, "a");
    rc_buf_puts(&b, "\"]}");
    expect_bad(b.ptr, b.len, "deny_regex[0]", "is 1025 bytes long", "long regex");
    rc_buf_release(&b);

    /* The error keeps uuid and appid (even an invalid appid) and the kind, for the answer. */
    const char *s = "{\"uuid\":\"u-77\",\"appid\":\"ab\",\"stats\":\"all\"}";
    RC_CHECK_INT_EQ(rc_msg_parse(s, strlen(s), &m, &err), -EINVAL);
    RC_CHECK_STR_EQ(err.field, "appid");
    RC_CHECK_STR_EQ(err.uuid, "u-77");
    RC_CHECK_STR_EQ(err.appid, "ab");
    RC_CHECK(err.kind_known && err.kind == RC_MSG_STATS);
    char *ans = rc_msg_error_answer(&err);
    json_t *a = json_loads(ans, 0, NULL);
    RC_CHECK_STR_EQ(json_string_value(json_object_get(a, "uuid")), "u-77");
    RC_CHECK_STR_EQ(json_string_value(json_object_get(a, "kind")), "stats");
    RC_CHECK_STR_EQ(json_string_value(json_object_get(a, "error")),
                    "invalid stats request: appid must be 3 to 40 characters long, not 2");
    json_decref(a);
    free(ans);
    s = "{\"uuid\":\"u-78\",\"appid\":\"testapp\",\"crawlid\":\"c9\",\"spiderid\":\"link\",\"action\":\"halt\"}";
    RC_CHECK_INT_EQ(rc_msg_parse(s, strlen(s), &m, &err), -EINVAL);
    RC_CHECK(err.kind_known && err.kind == RC_MSG_ACTION);
    RC_CHECK_STR_EQ(err.crawlid, "c9");
    s = "[\"uuid\"]";
    RC_CHECK_INT_EQ(rc_msg_parse(s, strlen(s), &m, &err), -EINVAL);
    RC_CHECK(!err.kind_known);
    RC_CHECK_STR_EQ(err.uuid, "");
    ans = rc_msg_error_answer(&err);
    a = json_loads(ans, 0, NULL);
    RC_CHECK(json_is_null(json_object_get(a, "uuid")) && json_is_null(json_object_get(a, "appid")));
    RC_CHECK(json_object_get(a, "kind") == NULL);
    json_decref(a);
    free(ans);
    /* A NULL err is allowed; a non-string uuid is not copied. */
    RC_CHECK_INT_EQ(rc_msg_parse("{}", 2, &m, NULL), -EINVAL);
    s = "{\"uuid\":7,\"appid\":\"testapp\",\"stats\":\"all\"}";
    RC_CHECK_INT_EQ(rc_msg_parse(s, strlen(s), &m, &err), -EINVAL);
    RC_CHECK_STR_EQ(err.field, "uuid");
    RC_CHECK_STR_EQ(err.uuid, "");
    RC_CHECK_STR_EQ(err.appid, "testapp");
    /* Data need not be NUL-terminated: only len bytes are read. */
    char exact[] = {'{', '}', 'x'};
    expect_bad(exact, 2, "(root)", "unknown request kind", "unterminated");
    rc_msg_release(NULL);
}

/* Every prefix and many single-byte mutations of the valid requests: refused or accepted, never a
 * crash, a leak or an answer that is not JSON. */
static void run_mutations(const char *dir)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/msg/valid.jsonl", dir);
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    long runs = 0, refused = 0;
    static const char subst[] = {0, '"', '\\', '{', '}', '[', ']', ',', ':', ' ', '0', 'x', (char)0x80, (char)0xff};
    while ((n = getline(&line, &cap, f)) > 0) {
        json_t *c = json_loadb(line, (size_t)n, 0, NULL);
        if (!c)
            continue;
        char *raw = json_dumps(json_object_get(c, "request"), JSON_COMPACT);
        if (!raw)
            raw = rc_xstrdup(json_string_value(json_object_get(c, "raw")));
        size_t len = strlen(raw);
        if (len > 600) { /* the long ones add time, not coverage */
            free(raw);
            json_decref(c);
            continue;
        }
        char *buf = rc_xmalloc(len + 1);
        for (size_t cut = 0; cut < len; cut++) {
            rc_msg m;
            rc_msg_error err;
            int r = rc_msg_parse(raw, cut, &m, &err);
            runs++;
            if (r == 0) {
                rc_msg_release(&m);
            } else {
                refused++;
                char *ans = rc_msg_error_answer(&err);
                json_t *a = json_loads(ans, 0, NULL);
                RC_CHECK(a != NULL);
                json_decref(a);
                free(ans);
            }
        }
        for (size_t pos = 0; pos < len; pos++) {
            for (size_t k = 0; k < sizeof subst; k++) {
                memcpy(buf, raw, len);
                buf[pos] = subst[k];
                rc_msg m;
                rc_msg_error err;
                int r = rc_msg_parse(buf, len, &m, &err);
                runs++;
                if (r == 0) {
                    char *spec = rc_msg_crawl_to_job_json(&m);
                    free(spec);
                    rc_msg_release(&m);
                } else {
                    refused++;
                    char *ans = rc_msg_error_answer(&err);
                    json_t *a = json_loads(ans, 0, NULL);
                    RC_CHECK(a != NULL);
                    if (!a)
                        fprintf(stderr, "bad answer: %s\n", ans);
                    json_decref(a);
                    free(ans);
                }
            }
        }
        free(buf);
        free(raw);
        json_decref(c);
    }
    free(line);
    fclose(f);
    fprintf(stderr, "test_msg: mutation sweep: %ld messages, %ld refused\n", runs, refused);
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : "tests/data";
    run_valid(dir);
    run_invalid(dir);
    run_limits();
    run_unknown_field_lists_all();
    run_mutations(dir);
    fprintf(stderr, "test_msg: %d valid and %d invalid requests checked\n", n_valid, n_invalid);
    RC_CHECK(n_valid >= 15);
    RC_CHECK(n_invalid >= 40);
    return rc_test_done("test_msg");
}
