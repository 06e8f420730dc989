/* test_insched.c - the scheduler on a thread (cli/insched.c) against a real redis-server
 * (started here on a unix socket in a temp dir, stopped by pid): a thread's log lines go to its
 * own file and no other thread's; the scheduler takes the leader lock, logs to its file and
 * hands the lock back when stopped; options, a bad level and an unreachable Redis are refused
 * with a message. */
#include <dirent.h>
#include <fcntl.h>
#include <hiredis/hiredis.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "insched.h"
#include "log.h"
#include "rc_test.h"
#include "rc_test_redis.h"
#include "redis.h"
#include "util.h"

static rc_test_redis redis;

/* The whole of a file, malloc'd ("" when it cannot be read). */
static char *slurp(const char *path)
{
    char *s = rc_xcalloc(1, 65536);
    FILE *f = fopen(path, "r");
    if (f) {
        size_t n = fread(s, 1, 65535, f);
        s[n] = '\0';
        fclose(f);
    }
    return s;
}

static void *log_from_thread(void *arg)
{
    rc_log_to_fd(*(int *)arg);
    rc_info("test", "from the thread");
    return NULL;
}

static void test_log_per_thread(const char *dir)
{
    char a[600], b[600];
    snprintf(a, sizeof a, "%s/thread.log", dir);
    snprintf(b, sizeof b, "%s/main.log", dir);
    int fa = open(a, O_WRONLY | O_CREAT | O_TRUNC, 0644), fb = open(b, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    RC_CHECK(fa >= 0 && fb >= 0);
    rc_log_to_fd(fb);
    pthread_t t;
    RC_CHECK_INT_EQ(pthread_create(&t, NULL, log_from_thread, &fa), 0);
    pthread_join(t, NULL);
    rc_info("test", "from main");
    rc_log_to_fd(-1);
    close(fa);
    close(fb);
    char *ta = slurp(a), *tb = slurp(b);
    RC_CHECK(strstr(ta, "INFO") && strstr(ta, " test from the thread\n") && !strstr(ta, "from main"));
    RC_CHECK(strstr(tb, " test from main\n") && !strstr(tb, "from the thread"));
    free(ta);
    free(tb);
}

/* Whether rc:lock:scheduler exists now (1), or not (0), waiting up to 3 s for WANT. */
static int lock_held(rc_redis *r, int want)
{
    int held = -1;
    for (int i = 0; i < 300 && held != want; i++) {
        redisReply *rep = rc_redis_cmd(r, "EXISTS rc:lock:scheduler");
        held = (int)rc_reply_int(rep, -1);
        if (rep)
            freeReplyObject(rep);
        if (held != want) {
            struct timespec ts = {0, 10 * 1000000};
            nanosleep(&ts, NULL);
        }
    }
    return held;
}

/* Sockets of this process that a child it starts would inherit (no FD_CLOEXEC). */
static int inheritable_sockets(void)
{
    int n = 0;
    DIR *d = opendir("/proc/self/fd");
    for (struct dirent *e; d && (e = readdir(d));) {
        char path[300], target[64] = "";
        snprintf(path, sizeof path, "/proc/self/fd/%s", e->d_name);
        ssize_t len = readlink(path, target, sizeof target - 1);
        int fd = e->d_name[0] >= '0' && e->d_name[0] <= '9' ? (int)strtol(e->d_name, NULL, 10) : -1;
        if (len > 0 && fd != dirfd(d) && strncmp(target, "socket:", 7) == 0 && !(fcntl(fd, F_GETFD) & FD_CLOEXEC))
            n++;
    }
    if (d)
        closedir(d);
    return n;
}

static void test_start_stop(rc_redis *r, const char *dir)
{
    char log[600], err[512] = "";
    snprintf(log, sizeof log, "%s/scheduler.log", dir);
    const char *opts[] = {"redis", redis.url, "worker-timeout", "3", NULL};
    rc_insched *in = rc_insched_start(opts, log, err, sizeof err);
    RC_CHECK(in != NULL);
    RC_CHECK_STR_EQ(err, "");
    RC_CHECK_INT_EQ(lock_held(r, 1), 1);
    /* The workers redcrawl crawl starts inherit none of its Redis connections, the scheduler
     * thread's (sync and nudge) and its own. */
    RC_CHECK_INT_EQ(inheritable_sockets(), 0);
    rc_insched_stop(in);
    RC_CHECK_INT_EQ(lock_held(r, 0), 0); /* handed over at once, not left to its lease */
    char *text = slurp(log);
    char pid[32];
    snprintf(pid, sizeof pid, " %d scheduler started ", (int)getpid());
    RC_CHECK(strstr(text, pid) != NULL);
    RC_CHECK(strstr(text, "scheduler leading: this scheduler dispatches") != NULL);
    RC_CHECK(strstr(text, "scheduler stopped dispatched=0 dropped=0\n") != NULL);
    free(text);
}

static const struct {
    const char *name, *value, *says;
} refusals[] = {
    {"redis", "redis://127.0.0.1:1", "cannot connect to Redis"},
    {"log-level", "loud", "--log-level: 'loud'"},
    {"no-such-option", "1", "no-such-option"},
    {"tick-ms", "0", "tick-ms"},
};

static void test_refused(const char *dir)
{
    char log[600];
    snprintf(log, sizeof log, "%s/refused.log", dir);
    size_t n = 0;
    for (size_t i = 0; i < sizeof refusals / sizeof refusals[0]; i++, n++) {
        char err[512] = "";
        const char *opts[] = {"redis", redis.url, refusals[i].name, refusals[i].value, NULL};
        rc_insched *in = rc_insched_start(opts, log, err, sizeof err);
        RC_CHECK(in == NULL);
        rc_insched_stop(in);
        if (!strstr(err, refusals[i].says))
            fprintf(stderr, "refusal %zu: '%s' does not say '%s'\n", i, err, refusals[i].says);
        RC_CHECK(strstr(err, refusals[i].says) != NULL);
    }
    RC_CHECK_INT_EQ(n, 4); /* the table was read */
    char err[512] = "";
    const char *opts[] = {"redis", redis.url, NULL};
    RC_CHECK(rc_insched_start(opts, "/nonexistent/dir/scheduler.log", err, sizeof err) == NULL);
    RC_CHECK(strstr(err, "cannot open /nonexistent/dir/scheduler.log") != NULL);
}

int main(void)
{
    rc_redis *r = rc_test_redis_open(&redis, "insched");
    if (!r)
        return 1;
    test_log_per_thread(redis.dir);
    test_start_stop(r, redis.dir);
    test_refused(redis.dir);
    rc_redis_free(r);
    rc_test_redis_cleanup(&redis);
    return rc_test_done("test_insched");
}
