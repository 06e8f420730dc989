/* test_config.c - the configuration table: defaults, environment, argv, errors naming keys. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "rc_test.h"

typedef struct conf {
    int64_t workers;
    double delay;
    char *redis;
    rc_strlist connect_to;
    int verbose;
} conf;

static const rc_conf_row rows[] = {
    {"workers", RC_CONF_INT, offsetof(conf, workers), "2", 1, 64, NULL, "worker processes"},
    {"delay", RC_CONF_DOUBLE, offsetof(conf, delay), "1.0", 0, 3600, "TEST_RC_DELAY", "seconds"},
    {"redis", RC_CONF_STR, offsetof(conf, redis), NULL, 0, 0, "TEST_RC_REDIS", "url"},
    {"connect-to", RC_CONF_LIST, offsetof(conf, connect_to), NULL, 0, 0, NULL, "mapping"},
    {"verbose", RC_CONF_BOOL, offsetof(conf, verbose), "0", 0, 1, NULL, "chatty"},
};
#define NROWS (sizeof rows / sizeof rows[0])

/* -Wwrite-strings makes literals const; argv wants mutable strings, as main's are. */
static char *pool[64];
static int pooled;

static char **mkargv(const char *const *in, int n)
{
    char **out = calloc((size_t)n + 1, sizeof(char *));
    for (int i = 0; i < n; i++)
        out[i] = strdup(in[i]);
    pool[pooled++] = (char *)out;
    return out;
}

static void free_pool(void)
{
    for (int i = 0; i < pooled; i++) {
        char **v = (char **)pool[i];
        for (int j = 0; v[j]; j++)
            free(v[j]);
        free(v);
    }
}

/* rc_conf_cmdline: --help anywhere wins (exit 0) and leaves the struct alone; else options are
 * parsed, and a bad one ends the program with status 2. */
static void test_cmdline(void)
{
    conf c;
    int optind = -1, status = -1;
    memset(&c, 0, sizeof c);
    const char *help_[] = {"prog", "--workers", "0", "URL", "-h"};
    RC_CHECK_INT_EQ(rc_conf_cmdline(rows, NROWS, &c, 5, mkargv(help_, 5), "prog", "usage: prog\n\n", &optind, &status),
                    1);
    RC_CHECK_INT_EQ(status, 0);
    RC_CHECK(c.workers == 0 && c.delay == 0 && optind == -1);
    status = -1;
    const char *ok_[] = {"prog", "--workers", "3", "URL"};
    RC_CHECK_INT_EQ(rc_conf_cmdline(rows, NROWS, &c, 4, mkargv(ok_, 4), "prog", "usage: prog\n\n", &optind, &status),
                    0);
    RC_CHECK_INT_EQ(status, -1);
    RC_CHECK_INT_EQ(c.workers, 3);
    RC_CHECK(c.delay == 1.0);
    RC_CHECK_INT_EQ(optind, 3);
    rc_conf_release(rows, NROWS, &c);
    memset(&c, 0, sizeof c);
    /* what was read before the bad option is released (the program exits without a release) */
    const char *bad_[] = {"prog", "--redis", "redis://x", "--connect-to", "a:1:b:2", "--workers", "0"};
    RC_CHECK_INT_EQ(rc_conf_cmdline(rows, NROWS, &c, 7, mkargv(bad_, 7), "prog", "usage: prog\n\n", &optind, &status),
                    1);
    RC_CHECK_INT_EQ(status, 2);
    RC_CHECK(c.redis == NULL && c.connect_to.n == 0 && c.connect_to.v == NULL);
}

/* A number without a default (the worker's --robots-delay: unset means "the host's delay") keeps
 * the caller's out-of-range sentinel until given; given, it must be in range and numeric. */
static void test_no_default(void)
{
    typedef struct {
        double robots_delay;
    } rconf;
    static const rc_conf_row rrows[] = {
        {"robots-delay", RC_CONF_DOUBLE, offsetof(rconf, robots_delay), NULL, 0, 3600, NULL, "seconds"},
    };
    rconf r = {-1};
    char err[256];
    int optind = 0;
    RC_CHECK_INT_EQ(rc_conf_init(rrows, 1, &r, err, sizeof err), 0);
    RC_CHECK(r.robots_delay == -1);
    const char *zero_[] = {"prog", "--robots-delay", "0"};
    RC_CHECK_INT_EQ(rc_conf_argv(rrows, 1, &r, 3, mkargv(zero_, 3), &optind, err, sizeof err), 0);
    RC_CHECK(r.robots_delay == 0);
    const char *bad[] = {"-0.05", "-1", "soon", "0.05s", "", "nan"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *args_[] = {"prog", "--robots-delay", bad[i]};
        err[0] = '\0';
        RC_CHECK_INT_EQ(rc_conf_argv(rrows, 1, &r, 3, mkargv(args_, 3), &optind, err, sizeof err), -22);
        RC_CHECK(strstr(err, "--robots-delay") != NULL && strstr(err, "is not a number") != NULL);
        RC_CHECK(r.robots_delay == 0); /* a refused value changes nothing */
    }
}

/* Options after the arguments (GNU getopt's order): argv is reordered, options first, the
 * arguments after them in their order; "--" still ends the options. */
static void test_options_anywhere(void)
{
    conf c;
    char err[256];
    int optind = 0;
    memset(&c, 0, sizeof c);
    RC_CHECK_INT_EQ(rc_conf_init(rows, NROWS, &c, err, sizeof err), 0);
    const char *in_[] = {"prog", "u1", "--workers", "3", "u2", "--verbose", "--", "--delay", "u3"};
    char **argv = mkargv(in_, 9);
    RC_CHECK_INT_EQ(rc_conf_argv(rows, NROWS, &c, 9, argv, &optind, err, sizeof err), 0);
    RC_CHECK_INT_EQ(optind, 5);
    RC_CHECK_INT_EQ(c.workers, 3);
    RC_CHECK_INT_EQ(c.verbose, 1);
    RC_CHECK(c.delay == 1.0); /* after "--": an argument */
    const char *want[] = {"prog", "--workers", "3", "--verbose", "--", "u1", "u2", "--delay", "u3"};
    for (int i = 0; i < 9; i++)
        RC_CHECK_STR_EQ(argv[i], want[i]);

    const char *plain_[] = {"prog", "a", "-", "b"};
    argv = mkargv(plain_, 4);
    RC_CHECK_INT_EQ(rc_conf_argv(rows, NROWS, &c, 4, argv, &optind, err, sizeof err), 0);
    RC_CHECK_INT_EQ(optind, 1);
    RC_CHECK_STR_EQ(argv[1], "a");
    RC_CHECK_STR_EQ(argv[2], "-");
    RC_CHECK_STR_EQ(argv[3], "b");
    const char *late_[] = {"prog", "u1", "--delay"};
    argv = mkargv(late_, 3);
    RC_CHECK_INT_EQ(rc_conf_argv(rows, NROWS, &c, 3, argv, &optind, err, sizeof err), -22);
    RC_CHECK(strstr(err, "needs a value") != NULL);
    const char *unknown_[] = {"prog", "u1", "--nope=1"};
    argv = mkargv(unknown_, 3);
    RC_CHECK_INT_EQ(rc_conf_argv(rows, NROWS, &c, 3, argv, &optind, err, sizeof err), -2);
    RC_CHECK(strstr(err, "--nope") != NULL);
    RC_CHECK_INT_EQ(rc_conf_argv(rows, NROWS, &c, 0, argv, &optind, err, sizeof err), 0); /* execve's {NULL} */
    RC_CHECK_INT_EQ(optind, 1);
    rc_conf_release(rows, NROWS, &c);
}

int main(void)
{
    conf c;
    char err[256];
    test_cmdline();
    test_no_default();
    test_options_anywhere();
    memset(&c, 0, sizeof c);
    setenv("TEST_RC_DELAY", "0.25", 1);
    setenv("TEST_RC_REDIS", "redis://127.0.0.1:1/", 1);
    RC_CHECK_INT_EQ(rc_conf_init(rows, NROWS, &c, err, sizeof err), 0);
    RC_CHECK_INT_EQ(c.workers, 2);
    RC_CHECK(c.delay == 0.25);
    RC_CHECK_STR_EQ(c.redis, "redis://127.0.0.1:1/");

    const char *args[] = {"prog",      "--workers",          "4",         "--delay=0.5",   "--connect-to",
                          "a:80:b:81", "--connect-to=::c:1", "--verbose", "http://x.test/"};
    char **argv = mkargv(args, 9);
    int optind = 0;
    RC_CHECK_INT_EQ(rc_conf_argv(rows, NROWS, &c, 9, argv, &optind, err, sizeof err), 0);
    RC_CHECK_INT_EQ(optind, 8);
    RC_CHECK_INT_EQ(c.workers, 4);
    RC_CHECK(c.delay == 0.5);
    RC_CHECK_INT_EQ(c.connect_to.n, 2);
    RC_CHECK_STR_EQ(c.connect_to.v[1], "::c:1");
    RC_CHECK_INT_EQ(c.verbose, 1);

    const char *bad1_[] = {"prog", "--workers", "0"};
    char **bad1 = mkargv(bad1_, 3);
    RC_CHECK_INT_EQ(rc_conf_argv(rows, NROWS, &c, 3, bad1, &optind, err, sizeof err), -22);
    RC_CHECK(strstr(err, "--workers") != NULL);
    const char *bad2_[] = {"prog", "--nope"};
    char **bad2 = mkargv(bad2_, 2);
    RC_CHECK_INT_EQ(rc_conf_argv(rows, NROWS, &c, 2, bad2, &optind, err, sizeof err), -2);
    RC_CHECK(strstr(err, "--nope") != NULL);
    const char *bad3_[] = {"prog", "--delay"};
    char **bad3 = mkargv(bad3_, 2);
    RC_CHECK_INT_EQ(rc_conf_argv(rows, NROWS, &c, 2, bad3, &optind, err, sizeof err), -22);
    RC_CHECK(strstr(err, "needs a value") != NULL);
    const char *bad4_[] = {"prog", "--delay", "fast"};
    char **bad4 = mkargv(bad4_, 3);
    RC_CHECK_INT_EQ(rc_conf_argv(rows, NROWS, &c, 3, bad4, &optind, err, sizeof err), -22);
    setenv("TEST_RC_DELAY", "soon", 1);
    conf d;
    memset(&d, 0, sizeof d);
    RC_CHECK_INT_EQ(rc_conf_init(rows, NROWS, &d, err, sizeof err), -22);
    RC_CHECK(strstr(err, "TEST_RC_DELAY") != NULL);
    rc_conf_release(rows, NROWS, &d);
    rc_conf_release(rows, NROWS, &c);
    RC_CHECK(c.redis == NULL && c.connect_to.n == 0);
    free_pool();
    return rc_test_done("test_config");
}
