/* test_resume.c - cli/resume.c: a crawl's settings saved to OUT/crawl.json and read back into
 * an option table; options given again replace them (lists too); credentials are not saved;
 * the state is marked; a missing or broken file is an error that names it. OUT's lock: a live
 * holder refuses at once (-EBUSY), a killed one's processes still holding it are waited for
 * (-EAGAIN), told apart by OUT/crawl.pid (pid reuse and another pid namespace included). */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
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

/* OUT/crawl.pid's three numbers (pid, start, pid namespace), or 0s. */
static void read_holder(const char *out, long *pid, unsigned long long *start, unsigned long long *ns)
{
    char *path = rc_xasprintf("%s/crawl.pid", out);
    FILE *f = fopen(path, "r");
    *pid = 0;
    *start = *ns = 0;
    if (f) {
        RC_CHECK_INT_EQ(fscanf(f, "%ld %llu %llu", pid, start, ns), 3);
        fclose(f);
    }
    free(path);
}

static void write_holder(const char *out, long pid, unsigned long long start, unsigned long long ns)
{
    char *path = rc_xasprintf("%s/crawl.pid", out);
    FILE *f = fopen(path, "w");
    fprintf(f, "%ld %llu %llu\n", pid, start, ns);
    fclose(f);
    free(path);
}

/* A crawl: a child that takes OUT's lock and starts a process of its own that inherits it (a
 * Redis, a worker) and keeps it until *release is written to; the child waits to be killed.
 * The child's pid once it holds the lock. */
static pid_t start_crawl(const char *out, int release[2])
{
    int ready[2];
    if (pipe(ready) < 0 || pipe(release) < 0)
        return -1;
    pid_t pid = fork();
    if (pid == 0) {
        char err[300], c;
        int fd = rc_resume_lock(out, err, sizeof err);
        if (fd >= 0 && fork() == 0) {
            close(release[1]);
            while (read(release[0], &c, 1) > 0)
                ;
            _exit(0);
        }
        if (write(ready[1], fd >= 0 ? "y" : "n", 1) < 0)
            _exit(1);
        for (;;)
            pause();
    }
    close(ready[1]);
    close(release[0]);
    char c = 'n';
    RC_CHECK_INT_EQ(read(ready[0], &c, 1), 1);
    RC_CHECK_INT_EQ(c, 'y');
    close(ready[0]);
    return pid;
}

static void test_lock(const char *dir)
{
    char err[600];
    char *out = rc_xasprintf("%s/locked", dir);
    long pid;
    unsigned long long start, ns, my_start, my_ns;

    /* Held by a live crawl (this process): refused, the holder named. */
    int fd = rc_resume_lock(out, err, sizeof err);
    RC_CHECK(fd >= 0);
    read_holder(out, &pid, &my_start, &my_ns);
    RC_CHECK_INT_EQ(pid, getpid());
    RC_CHECK(my_start > 0 && my_ns > 0);
    RC_CHECK_INT_EQ(rc_resume_lock(out, err, sizeof err), -EBUSY);
    RC_CHECK(strstr(err, "in use by another redcrawl crawl") != NULL);
    rc_resume_unlock(out, fd);
    char *holder = rc_xasprintf("%s/crawl.pid", out);
    RC_CHECK(access(holder, F_OK) < 0);

    /* A crawl alive with its child: refused. Killed, its child still holding OUT: a zombie not
     * yet waited for, then gone, it is waited for (-EAGAIN); once the child goes, OUT is free. */
    int release[2];
    pid_t crawl = start_crawl(out, release);
    RC_CHECK_INT_EQ(rc_resume_lock(out, err, sizeof err), -EBUSY);
    read_holder(out, &pid, &start, &ns);
    RC_CHECK_INT_EQ(pid, crawl);
    kill(crawl, SIGKILL);
    siginfo_t info;
    RC_CHECK_INT_EQ(waitid(P_PID, (id_t)crawl, &info, WEXITED | WNOWAIT), 0);
    RC_CHECK_INT_EQ(rc_resume_lock(out, err, sizeof err), -EAGAIN); /* a zombie */
    RC_CHECK(strstr(err, "killed crawl") != NULL);
    RC_CHECK_INT_EQ(waitpid(crawl, NULL, 0), crawl);
    RC_CHECK_INT_EQ(rc_resume_lock(out, err, sizeof err), -EAGAIN); /* gone */

    /* What crawl.pid names decides: this live process refuses; its pid with another start (a
     * pid reused), or no such pid, is gone; another pid namespace, or no file, cannot be told. */
    write_holder(out, getpid(), my_start, my_ns);
    RC_CHECK_INT_EQ(rc_resume_lock(out, err, sizeof err), -EBUSY);
    write_holder(out, getpid(), my_start + 1, my_ns);
    RC_CHECK_INT_EQ(rc_resume_lock(out, err, sizeof err), -EAGAIN);
    write_holder(out, getpid(), my_start, my_ns + 1);
    RC_CHECK_INT_EQ(rc_resume_lock(out, err, sizeof err), -EBUSY);
    RC_CHECK(strstr(err, "still ending") != NULL);
    unlink(holder);
    RC_CHECK_INT_EQ(rc_resume_lock(out, err, sizeof err), -EBUSY);
    write_holder(out, crawl, start, ns);

    close(release[1]); /* the child ends */
    fd = -EAGAIN;
    for (int i = 0; i < 500 && fd == -EAGAIN; i++) {
        struct timespec ts = {0, 10 * 1000000};
        nanosleep(&ts, NULL);
        fd = rc_resume_lock(out, err, sizeof err);
    }
    RC_CHECK(fd >= 0);
    if (fd >= 0)
        rc_resume_unlock(out, fd);
    rmdir(out);
    free(holder);
    free(out);
}

int main(void)
{
    char dir[] = "/tmp/rc-test-resume-XXXXXX";
    if (!mkdtemp(dir))
        return 1;
    test_roundtrip(dir);
    test_errors(dir);
    test_lock(dir);
    char *path = rc_resume_file(dir);
    unlink(path);
    free(path);
    rmdir(dir);
    return rc_test_done("resume");
}
