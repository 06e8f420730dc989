/* rc_test_redis.c - see rc_test_redis.h. */
#include "rc_test_redis.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <hiredis/hiredis.h>

#include "redis.h"

static void exec_server(const rc_test_redis *t, const char *sock)
{
    char log[560];
    snprintf(log, sizeof log, "%s/redis.log", t->dir);
    execlp("redis-server", "redis-server", "--port", "0", "--unixsocket", sock, "--save", "", "--appendonly", "no",
           "--dir", t->dir, "--logfile", log, (char *)NULL);
    _exit(127);
}

int rc_test_redis_start(rc_test_redis *t, const char *name)
{
    char sock[512];
    t->pid = 0;
    t->url[0] = '\0';
    snprintf(t->dir, sizeof t->dir, "/tmp/rc-test-%s-XXXXXX", name);
    if (!mkdtemp(t->dir)) {
        t->dir[0] = '\0';
        return -1;
    }
    snprintf(sock, sizeof sock, "%s/redis.sock", t->dir);
    snprintf(t->url, sizeof t->url, "unix://%s", sock);
    t->pid = fork();
    if (t->pid < 0) {
        t->pid = 0;
        return -1;
    }
    if (t->pid == 0)
        exec_server(t, sock);
    for (int i = 0; i < 200; i++) {
        char err[256];
        rc_redis *r = rc_redis_new(t->url, "rc:", err, sizeof err);
        if (r) {
            rc_redis_free(r);
            return 0;
        }
        struct timespec ts = {0, 25 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    rc_test_redis_stop(t);
    return -1;
}

void rc_test_redis_stop(rc_test_redis *t)
{
    if (t->pid > 0) {
        kill(t->pid, SIGTERM);
        waitpid(t->pid, NULL, 0);
        t->pid = 0;
    }
}

void rc_test_redis_cleanup(rc_test_redis *t)
{
    rc_test_redis_stop(t);
    if (!t->dir[0])
        return;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf %s", t->dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", t->dir);
}

rc_redis *rc_test_redis_open(rc_test_redis *t, const char *name)
{
    char err[256];
    if (rc_test_redis_start(t, name) < 0) {
        fprintf(stderr, "test_%s: cannot start redis-server\n", name);
        rc_test_redis_cleanup(t);
        return NULL;
    }
    rc_redis *r = rc_redis_new(t->url, "rc:", err, sizeof err);
    if (!r) {
        fprintf(stderr, "test_%s: cannot connect to the test redis-server: %s\n", name, err);
        rc_test_redis_cleanup(t);
    }
    return r;
}

int rc_test_redis_ok(redisReply *rep)
{
    int ok = rep && rep->type != REDIS_REPLY_ERROR;
    if (rep)
        freeReplyObject(rep);
    return ok;
}

long long rc_test_redis_int(redisReply *rep)
{
    long long v = rc_reply_int(rep, -1);
    if (rep)
        freeReplyObject(rep);
    return v;
}
