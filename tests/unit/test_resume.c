/* test_resume.c - cli/resume.c: a crawl's settings saved to OUT/crawl.json and read back into
 * an option table; options given again replace them (lists too); credentials are not saved;
 * the state is marked; a missing or broken file is an error that names it. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rc_test.h"
#include "resume.h"
#include "util.h"

typedef struct conf {
    int64_t workers;
    double delay;
    char *redis;
    char *seeds;
    rc_strlist connect_to;
    int text;
    char *out;
} conf;

static const rc_conf_row rows[] = {
    {"workers", RC_CONF_INT, offsetof(conf, workers), "1", 1, 256, NULL, ""},
    {"delay", RC_CONF_DOUBLE, offsetof(conf, delay), "1.0", 0, 3600, NULL, ""},
    {"redis", RC_CONF_STR, offsetof(conf, redis), NULL, 0, 0, NULL, ""},
    {"seeds", RC_CONF_STR, offsetof(conf, seeds), NULL, 0, 0, NULL, ""},
    {"connect-to", RC_CONF_LIST, offsetof(conf, connect_to), NULL, 0, 0, NULL, ""},
    {"text", RC_CONF_BOOL, offsetof(conf, text), "0", 0, 1, NULL, ""},
    {"out", RC_CONF_STR, offsetof(conf, out), NULL, 0, 0, NULL, ""},
};
#define NROWS (sizeof rows / sizeof rows[0])

/* -Wwrite-strings makes literals const; argv wants mutable strings, as main's are. */
static char **dupv(const char *const *in, int n)
{
    char **out = rc_xcalloc((size_t)n + 1, sizeof(char *));
    for (int i = 0; i < n; i++)
        out[i] = rc_xstrdup(in[i]);
    return out;
}

static void freev(char **v)
{
    for (size_t i = 0; v[i]; i++)
        free(v[i]);
    free(v);
}

static void parse(conf *c, int argc, const char *const *in)
{
    char **argv = dupv(in, argc);
    char err[256];
    int optind = 0;
    memset(c, 0, sizeof *c);
    RC_CHECK_INT_EQ(rc_conf_init(rows, NROWS, c, err, sizeof err), 0);
    RC_CHECK_INT_EQ(rc_conf_argv(rows, NROWS, c, argc, argv, &optind, err, sizeof err), 0);
    freev(argv);
}

static void test_roundtrip(const char *dir)
{
    char err[512];
    const char *argv[] = {"crawl",
                          "--workers",
                          "3",
                          "--delay",
                          "0.05",
                          "--text",
                          "--connect-to",
                          "::127.0.0.1:1",
                          "--connect-to",
                          "::127.0.0.1:2",
                          "--redis",
                          "redis://:secret@h:6379/0",
                          "--out",
                          "x"};
    conf c;
    parse(&c, RC_ARRAY_LEN(argv), argv);
    char *urls[] = {rc_xstrdup("http://a.test/"), rc_xstrdup("http://b.test/")};
    rc_resume st;
    rc_resume_capture(&st, rows, NROWS, &c, "job-1", urls, 2);
    free(urls[0]);
    free(urls[1]);
    RC_CHECK_STR_EQ(st.not_saved, "redis");
    RC_CHECK_INT_EQ(rc_resume_save(dir, &st, err, sizeof err), 0);
    rc_resume_release(&st);

    char *path = rc_resume_file(dir);
    size_t len = 0;
    char *text = rc_read_file(path, 1 << 20, &len);
    RC_CHECK(text && !strstr(text, "secret") && !strstr(text, "\"out\""));
    free(text);
    free(path);

    rc_resume back;
    RC_CHECK_INT_EQ(rc_resume_load(dir, &back, err, sizeof err), 0);
    RC_CHECK_STR_EQ(back.crawlid, "job-1");
    RC_CHECK_STR_EQ(back.state, RC_RESUME_RUNNING);
    RC_CHECK_INT_EQ(back.seeds_sent, 0);
    RC_CHECK_INT_EQ(back.n_urls, 2);
    RC_CHECK_STR_EQ(back.urls[1], "http://b.test/");

    /* Defaults, then the saved values; the options given now over them, a list replaced. */
    conf r;
    parse(&r, 1, argv);
    RC_CHECK_INT_EQ(rc_resume_apply(&back, rows, NROWS, &r, err, sizeof err), 0);
    RC_CHECK_INT_EQ(r.workers, 3);
    RC_CHECK(r.delay == 0.05 && r.text == 1 && r.redis == NULL);
    RC_CHECK_INT_EQ(r.connect_to.n, 2);
    const char *again_[] = {"crawl", "--connect-to", "::127.0.0.1:9", "--workers=5", "--text"};
    conf g;
    parse(&g, RC_ARRAY_LEN(again_), again_);
    char **again = dupv(again_, RC_ARRAY_LEN(again_));
    RC_CHECK(rc_resume_given(rows, NROWS, RC_ARRAY_LEN(again_), again, "connect-to"));
    RC_CHECK(rc_resume_given(rows, NROWS, RC_ARRAY_LEN(again_), again, "workers"));
    RC_CHECK(!rc_resume_given(rows, NROWS, RC_ARRAY_LEN(again_), again, "delay"));
    freev(again);
    rc_resume_copy_option(rows, NROWS, "connect-to", &g, &r);
    RC_CHECK_INT_EQ(r.connect_to.n, 1);
    RC_CHECK_STR_EQ(r.connect_to.v[0], "::127.0.0.1:9");
    RC_CHECK(!rc_resume_same(&back, rows, NROWS, "workers", &g));
    RC_CHECK(rc_resume_same(&back, rows, NROWS, "text", &g));
    RC_CHECK(rc_resume_same(&back, rows, NROWS, "seeds", &g)); /* unset in both */
    rc_resume_release(&back);

    RC_CHECK_INT_EQ(rc_resume_mark(dir, RC_RESUME_PAUSED, 1, err, sizeof err), 0);
    RC_CHECK_INT_EQ(rc_resume_load(dir, &back, err, sizeof err), 0);
    RC_CHECK_STR_EQ(back.state, RC_RESUME_PAUSED);
    RC_CHECK_INT_EQ(back.seeds_sent, 1);
    rc_resume_release(&back);
    rc_conf_release(rows, NROWS, &c);
    rc_conf_release(rows, NROWS, &r);
    rc_conf_release(rows, NROWS, &g);
}

static void test_errors(const char *dir)
{
    char err[512];
    rc_resume st;
    char *none = rc_xasprintf("%s/none", dir);
    RC_CHECK_INT_EQ(rc_resume_load(none, &st, err, sizeof err), -ENOENT);
    RC_CHECK(strstr(err, "none/crawl.json") && strstr(err, "No such file"));
    free(none);

    char *bad = rc_xasprintf("%s/bad", dir);
    RC_CHECK_INT_EQ(rc_mkdirs(bad), 0);
    char *path = rc_resume_file(bad);
    FILE *f = fopen(path, "w");
    fputs("{\"version\": 1, \"crawlid\": \"x\"}", f);
    fclose(f);
    RC_CHECK_INT_EQ(rc_resume_load(bad, &st, err, sizeof err), -EINVAL);
    RC_CHECK(strstr(err, "crawl.json") != NULL);
    f = fopen(path, "w");
    fputs("{\"version\": 1, \"crawlid\": \"x\", \"state\": \"paused\", \"seeds_sent\": true, \"urls\": [], "
          "\"options\": {\"no-such\": 1}}",
          f);
    fclose(f);
    RC_CHECK_INT_EQ(rc_resume_load(bad, &st, err, sizeof err), 0);
    conf c;
    parse(&c, 1, (const char *const[]){"crawl"});
    RC_CHECK_INT_EQ(rc_resume_apply(&st, rows, NROWS, &c, err, sizeof err), -EINVAL);
    RC_CHECK(strstr(err, "--no-such") != NULL);
    rc_resume_release(&st);
    rc_conf_release(rows, NROWS, &c);

    /* OUT/redis and what it holds go; a directory without it is fine. */
    char *sub = rc_xasprintf("%s/redis/appendonlydir", bad);
    RC_CHECK_INT_EQ(rc_mkdirs(sub), 0);
    char *file = rc_xasprintf("%s/a.aof", sub);
    f = fopen(file, "w");
    fclose(f);
    RC_CHECK_INT_EQ(rc_resume_drop_redis(bad), 0);
    char *redis_dir = rc_resume_redis_dir(bad);
    RC_CHECK(access(redis_dir, F_OK) < 0);
    RC_CHECK_INT_EQ(rc_resume_drop_redis(bad), 0);
    free(redis_dir);
    free(file);
    free(sub);
    unlink(path);
    rmdir(bad);
    free(path);
    free(bad);
}

int main(void)
{
    char dir[] = "/tmp/rc-test-resume-XXXXXX";
    if (!mkdtemp(dir))
        return 1;
    test_roundtrip(dir);
    test_errors(dir);
    char *path = rc_resume_file(dir);
    unlink(path);
    free(path);
    rmdir(dir);
    return rc_test_done("resume");
}
