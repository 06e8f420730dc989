/* test_reqfield.c - one validator for a crawl request: the same bad value gets the same field and
 * reason through every entry point.
 *
 * Each case of tests/data/reqfield/bad.tsv goes
 * - as a Kafka message (rc_msg_parse: redcrawl-monitor, redcrawl-web's REST API and `redcrawl
 *   submit` all call it), whose answer (rc_msg_error_answer) says "invalid crawl request: FIELD
 *   REASON", and
 * - as a job spec (rc_job_parse: `redcrawl crawl` and every spec read back from Redis),
 * and both must name the same field with the same reason, containing the case's text. Fields only a
 * job spec has (urls) must be refused as unknown on the wire. Every field of the table must have a
 * case, and every default must pass its own row's check. */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job.h"
#include "msg.h"
#include "rc_test.h"
#include "rc_tsv.h"
#include "reqfield.h"

static int n_cases;
static int covered[64];

/* BASE with FIELD set to VALUE (JSON text), compact. */
static char *with_field(const char *base, const char *field, const char *value)
{
    json_t *o = json_loads(base, 0, NULL);
    json_t *v = json_loads(value, JSON_DECODE_ANY, NULL);
    if (!o || !v)
        abort();
    json_object_set_new(o, field, v);
    char *s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(o);
    return s;
}

/* The sentence of a job spec's refusal, or "" when it was accepted. */
static void job_sentence(const char *spec, char *out, size_t cap)
{
    rc_job j;
    out[0] = '\0';
    if (rc_job_parse(spec, strlen(spec), &j, out, cap) == 0) {
        out[0] = '\0';
        rc_job_release(&j);
    }
}

static void one_case(const char *where, const char *field, const char *value, const char *want)
{
    const rc_reqfield *f = rc_reqfield_find(rc_reqfield_crawl, rc_reqfield_crawl_len, field);
    RC_CHECK(f != NULL);
    if (!f) {
        fprintf(stderr, "%s: %s is not a field of the crawl table\n", where, field);
        return;
    }
    covered[f - rc_reqfield_crawl]++;
    n_cases++;

    char *msg = with_field("{\"uuid\":\"u1\",\"appid\":\"testapp\",\"crawlid\":\"c1\",\"url\":\"http://example.com/\"}",
                           field, value);
    char *spec = with_field("{\"crawlid\":\"c1\",\"url\":\"http://example.com/\"}", field, value);
    rc_msg m;
    rc_msg_error e;
    char job[RC_REQFIELD_REASON_BUF + RC_REQFIELD_PATH_BUF], wire[RC_REQFIELD_REASON_BUF + RC_REQFIELD_PATH_BUF];
    RC_CHECK_INT_EQ(rc_msg_parse(msg, strlen(msg), &m, &e), -EINVAL);
    job_sentence(spec, job, sizeof job);
    snprintf(wire, sizeof wire, "%s %s", e.field, e.reason);

    if (f->flags & RC_REQFIELD_SPEC_ONLY) {
        RC_CHECK_STR_EQ(e.field, field);
        RC_CHECK(strstr(e.reason, "is an unknown field in a crawl request") != NULL);
    } else {
        /* The same sentence both ways, and the answer built from it. */
        RC_CHECK_STR_EQ(job, wire);
        char *ans = rc_msg_error_answer(&e);
        json_t *a = json_loads(ans, 0, NULL);
        char want_error[RC_REQFIELD_REASON_BUF + RC_REQFIELD_PATH_BUF + 32];
        snprintf(want_error, sizeof want_error, "invalid crawl request: %s", wire);
        RC_CHECK_STR_EQ(json_string_value(json_object_get(a, "error")), want_error);
        json_decref(a);
        free(ans);
    }
    if (strncmp(job, field, strlen(field)) != 0 || !strstr(job, want)) {
        rc_test_failures++;
        fprintf(stderr, "%s: job spec refused with \"%s\"; want field %s and \"%s\"\n", where, job, field, want);
    }
    free(msg);
    free(spec);
}

static void read_cases(const char *dir)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/reqfield/bad.tsv", dir);
    FILE *fp = fopen(path, "r");
    RC_CHECK(fp != NULL);
    if (!fp) {
        fprintf(stderr, "cannot open %s\n", path);
        return;
    }
    char *line = NULL;
    size_t cap = 0;
    int lineno = 0, k;
    rc_buf f[3]; /* field, value, the sentence wanted */
    for (int i = 0; i < 3; i++)
        rc_buf_init(&f[i]);
    while ((k = rc_tsv_read(fp, &line, &cap, &lineno, f, 3)) != -1) {
        RC_CHECK_INT_EQ(k, 3);
        if (k != 3)
            continue;
        char where[1100];
        snprintf(where, sizeof where, "%s:%d", path, lineno);
        one_case(where, f[0].ptr, f[1].ptr, f[2].ptr);
    }
    free(line);
    for (int i = 0; i < 3; i++)
        rc_buf_release(&f[i]);
    fclose(fp);
}

/* A missing required field: the same sentence both ways too. */
static void missing_crawlid(void)
{
    const char *msg = "{\"uuid\":\"u1\",\"appid\":\"testapp\",\"url\":\"http://example.com/\"}";
    const char *spec = "{\"url\":\"http://example.com/\"}";
    rc_msg m;
    rc_msg_error e;
    char job[RC_REQFIELD_REASON_BUF + RC_REQFIELD_PATH_BUF], wire[RC_REQFIELD_REASON_BUF + RC_REQFIELD_PATH_BUF];
    RC_CHECK_INT_EQ(rc_msg_parse(msg, strlen(msg), &m, &e), -EINVAL);
    job_sentence(spec, job, sizeof job);
    snprintf(wire, sizeof wire, "%s %s", e.field, e.reason);
    RC_CHECK_STR_EQ(job, wire);
    RC_CHECK_STR_EQ(job, "crawlid is required in a crawl request");
}

/* Defaults are valid values of their own rows, and the spec made from a message keeps them. */
static void defaults(void)
{
    for (size_t i = 0; i < rc_reqfield_crawl_len; i++) {
        const rc_reqfield *f = &rc_reqfield_crawl[i];
        json_t *d = rc_reqfield_default(f);
        rc_reqfield_error e;
        if (d && !json_is_null(d) && rc_reqfield_check(f, d, &e) < 0) {
            rc_test_failures++;
            fprintf(stderr, "default of %s refused: %s %s\n", f->name, e.field, e.reason);
        }
        rc_test_checks++;
        json_decref(d);
    }
    const char *msg = "{\"uuid\":\"u1\",\"appid\":\"testapp\",\"crawlid\":\"c1\",\"url\":\"http://example.com/\"}";
    const char *spec = "{\"crawlid\":\"c1\",\"appid\":\"testapp\",\"url\":\"http://example.com/\"}";
    rc_msg m;
    rc_job a, b;
    char err[512];
    RC_CHECK_INT_EQ(rc_msg_parse(msg, strlen(msg), &m, NULL), 0);
    char *from_msg = rc_msg_crawl_to_job_json(&m);
    RC_CHECK_INT_EQ(rc_job_parse(from_msg, strlen(from_msg), &a, err, sizeof err), 0);
    RC_CHECK_INT_EQ(rc_job_parse(spec, strlen(spec), &b, err, sizeof err), 0);
    char *ea = rc_job_encode(&a), *eb = rc_job_encode(&b);
    RC_CHECK_STR_EQ(ea, eb); /* the same job whichever way it came */
    RC_CHECK_INT_EQ(a.priority, m.priority);
    RC_CHECK_INT_EQ(a.maxdepth, m.maxdepth);
    free(ea);
    free(eb);
    free(from_msg);
    rc_job_release(&a);
    rc_job_release(&b);
    rc_msg_release(&m);
}

/* An IPv6 seed's scope reads back: the host as the URL parser writes it ("::1") is valid, and
 * the bracketed form gives the same host. */
static void check_ipv6_hosts(void)
{
    const char *ok[] = {"::1", "[::1]", "[2001:db8::1]", "2001:DB8::1"};
    char first[64] = "", out[64];
    for (size_t i = 0; i < 2; i++) {
        rc_reqfield_error e;
        json_t *v = json_string(ok[i]);
        RC_CHECK_INT_EQ(rc_reqfield_host(&e, "allowed_domains[0]", v, out, sizeof out), 0);
        if (i == 0)
            snprintf(first, sizeof first, "%s", out);
        RC_CHECK_STR_EQ(out, first);
        json_decref(v);
    }
    for (size_t i = 2; i < 4; i++) {
        rc_reqfield_error e;
        json_t *v = json_string(ok[i]);
        RC_CHECK_INT_EQ(rc_reqfield_host(&e, "allowed_domains[0]", v, out, sizeof out), 0);
        json_t *back = json_string(out); /* what a spec stores parses again to itself */
        char again[64];
        RC_CHECK_INT_EQ(rc_reqfield_host(&e, "allowed_domains[0]", back, again, sizeof again), 0);
        RC_CHECK_STR_EQ(again, out);
        json_decref(back);
        json_decref(v);
    }
    const char *bad[] = {"[::1", "a:b", "[example.com]", "::1]"};
    for (size_t i = 0; i < 4; i++) {
        rc_reqfield_error e;
        json_t *v = json_string(bad[i]);
        RC_CHECK(rc_reqfield_host(&e, "allowed_domains[0]", v, out, sizeof out) < 0);
        json_decref(v);
    }
}

int main(int argc, char **argv)
{
    check_ipv6_hosts();
    RC_CHECK(rc_reqfield_crawl_len <= sizeof covered / sizeof covered[0]);
    read_cases(argc > 1 ? argv[1] : "tests/data");
    RC_CHECK(n_cases >= 40); /* the file was read */
    for (size_t i = 0; i < rc_reqfield_crawl_len; i++) {
        if (covered[i] || (rc_reqfield_crawl[i].flags & RC_REQFIELD_WIRE_ONLY))
            continue;
        rc_test_failures++;
        fprintf(stderr, "field %s has no case in reqfield/bad.tsv\n", rc_reqfield_crawl[i].name);
    }
    missing_crawlid();
    defaults();
    printf("test_reqfield: %d bad values, each through rc_msg_parse and rc_job_parse\n", n_cases);
    return rc_test_done("test_reqfield");
}
