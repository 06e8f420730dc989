/* proc.c - see proc.h. */
#include "proc.h"

#include <errno.h>
#include <fcntl.h>
#include <hiredis/hiredis.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "progress.h"
#include "util.h"

static int executable(const char *path)
{
    return access(path, X_OK) == 0;
}

char *rc_proc_find(const char *name)
{
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) {
        self[n] = '\0';
        char *dir = dirname(self);
        /* Installed side by side, or the build tree: build/cli/redcrawl and build/worker/... */
        const char *subdirs[] = {"", "/../worker", "/../scheduler", "/../web"};
        for (size_t i = 0; i < RC_ARRAY_LEN(subdirs); i++) {
            char *p = rc_xasprintf("%s%s/%s", dir, subdirs[i], name);
            if (executable(p))
                return p;
            free(p);
        }
    }
    const char *path = getenv("PATH");
    if (!path)
        return NULL;
    char *copy = rc_xstrdup(path), *save = NULL;
    for (char *d = strtok_r(copy, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
        char *p = rc_xasprintf("%s/%s", d, name);
        if (executable(p)) {
            free(copy);
            return p;
        }
        free(p);
    }
    free(copy);
    return NULL;
}

/* In the child, before exec: sets each NAME=VALUE of env that the environment lacks. */
static void add_env(const char *const env[])
{
    for (size_t i = 0; env && env[i]; i++) {
        const char *eq = strchr(env[i], '=');
        if (!eq)
            continue;
        char name[128];
        snprintf(name, sizeof name, "%.*s", (int)(eq - env[i]), env[i]);
        setenv(name, eq + 1, 0);
    }
}

pid_t rc_proc_spawn(const char *const argv[], const char *log_path)
{
    return rc_proc_spawn_env(argv, NULL, log_path);
}

pid_t rc_proc_spawn_env(const char *const argv[], const char *const env[], const char *log_path)
{
    int fd = open(log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0)
        return -errno;
    pid_t parent = getpid(), pid = fork();
    if (pid < 0) {
        int e = errno;
        close(fd);
        return -e;
    }
    if (pid == 0) {
        /* Child: a process group of its own so a terminal's Ctrl-C reaches only us, the parent,
         * which then stops the children in order. */
        setpgid(0, 0);
        /* ... and they go when we go, even if we are SIGKILLed (a parent gone before prctl: it
         * would never come, so they go now). */
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (getppid() != parent)
            _exit(127);
        dup2(fd, STDOUT_FILENO);
        dup2(fd, STDERR_FILENO);
        int nul = open("/dev/null", O_RDONLY);
        if (nul >= 0)
            dup2(nul, STDIN_FILENO);
        signal(SIGPIPE, SIG_DFL);
        /* setenv after fork: no other thread of this process calls setenv (the scheduler thread of
         * `redcrawl crawl` does not), so no other thread held its lock */
        add_env(env);
        execv(argv[0], (char *const *)argv); /* execv's prototype predates const */
        fprintf(stderr, "cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    close(fd);
    return pid;
}

int rc_proc_stop(pid_t pid, int sig, int timeout_ms)
{
    int status;
    if (pid <= 0)
        return -1;
    kill(pid, sig);
    for (int waited = 0; waited < timeout_ms; waited += 5) {
        pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid)
            return status;
        if (r < 0)
            return -1;
        struct timespec ts = {0, 5 * 1000000};
        nanosleep(&ts, NULL);
    }
    kill(pid, SIGKILL);
    return waitpid(pid, &status, 0) == pid ? status : -1;
}

/* 1 when the server answers PING, -1 while it loads its data (LOADING), else 0. */
static int ping(const char *sock)
{
    struct timeval tv = {1, 0};
    redisContext *c = redisConnectUnixWithTimeout(sock, tv);
    int ok = 0;
    if (c && !c->err) {
        redisReply *rep = redisCommand(c, "PING");
        ok = rep && rep->type == REDIS_REPLY_STATUS                                          ? 1
             : rep && rep->type == REDIS_REPLY_ERROR && strncmp(rep->str, "LOADING", 7) == 0 ? -1
                                                                                             : 0;
        if (rep)
            freeReplyObject(rep);
    }
    if (c)
        redisFree(c);
    return ok;
}

/* The socket's temporary directory (a unix socket's path is short: not under the data
 * directory) and the data directory. 0, or -errno with err. */
static int make_dirs(rc_private_redis *r, const char *data_dir, char *err, size_t cap)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(r->dir, sizeof r->dir, "%s/redcrawl-redis-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(r->dir)) {
        int e = errno;
        snprintf(err, cap, "cannot create a temporary directory in %s: %s", tmp ? tmp : "/tmp", strerror(e));
        r->dir[0] = '\0';
        return -e;
    }
    int mk = data_dir ? rc_mkdirs(data_dir) : 0;
    if (mk < 0) {
        snprintf(err, cap, "cannot create %s: %s", data_dir, strerror(-mk));
        rmdir(r->dir);
        r->dir[0] = '\0';
    }
    return mk;
}

/* Starts redis-server on sock, its data in data_dir (append-only) or nowhere, its log in logf. */
static pid_t spawn_server(const char *bin, const char *sock, const char *data_dir, const char *tmp_dir,
                          const char *logf)
{
    const char *argv[] = {bin,
                          "--port",
                          "0",
                          "--unixsocket",
                          sock,
                          "--unixsocketperm",
                          "700",
                          "--save",
                          "",
                          "--appendonly",
                          data_dir ? "yes" : "no",
                          "--appendfsync",
                          RC_PRIVATE_REDIS_FSYNC,
                          "--dir",
                          data_dir ? data_dir : tmp_dir,
                          "--daemonize",
                          "no",
                          "--zset-max-listpack-value",
                          RC_PRIVATE_REDIS_ZSET_LISTPACK_VALUE,
                          NULL};
    const char *env[] = {"MALLOC_CONF=" RC_PRIVATE_REDIS_MALLOC_CONF, NULL};
    return rc_proc_spawn_env(argv, env, logf);
}

/* Until the server answers: 10 s to start, as long as it takes to load its data (it answers
 * LOADING meanwhile) while it runs. 0, or -errno with err. */
static int wait_answer(rc_private_redis *r, const char *sock, const char *logf, char *err, size_t cap)
{
    rc_progress p;
    rc_progress_init(&p, "redcrawl", 10);
    int loading = 0;
    for (int i = 0; i < 500 || loading; i++) { /* 20 ms apart: 10 s, or for as long as it loads */
        int up = ping(sock);
        loading = up < 0;
        rc_progress_show(&p, loading ? "the private redis-server is loading its data (the crawl's state)"
                                     : "waiting for the private redis-server to answer");
        if (up > 0) {
            rc_progress_end(&p);
            snprintf(r->url, sizeof r->url, "unix://%s", sock);
            return 0;
        }
        int status;
        if (waitpid(r->pid, &status, WNOHANG) == r->pid) {
            rc_progress_end(&p);
            snprintf(err, cap, "redis-server exited at start: see %s", logf);
            r->pid = 0;
            return -EIO;
        }
        struct timespec ts = {0, 20 * 1000000};
        nanosleep(&ts, NULL);
    }
    rc_progress_end(&p);
    snprintf(err, cap, "redis-server did not answer within 10 s: see %s", logf);
    return -ETIMEDOUT;
}

int rc_private_redis_start(rc_private_redis *r, const char *data_dir, char *err, size_t cap)
{
    memset(r, 0, sizeof *r);
    char *bin = rc_proc_find("redis-server");
    if (!bin) {
        snprintf(err, cap,
                 "redis-server not found: install it (apt-get install redis-server, or scripts/setup.sh) "
                 "or pass --redis URL");
        return -ENOENT;
    }
    int rc = make_dirs(r, data_dir, err, cap);
    if (rc < 0) {
        free(bin);
        return rc;
    }
    char sock[300], logf[600];
    snprintf(sock, sizeof sock, "%s/redis.sock", r->dir);
    snprintf(logf, sizeof logf, "%s/redis.log", data_dir ? data_dir : r->dir);
    r->pid = spawn_server(bin, sock, data_dir, r->dir, logf);
    free(bin);
    if (r->pid < 0) {
        rc = (int)r->pid;
        snprintf(err, cap, "cannot start redis-server: %s", strerror(-rc));
        r->pid = 0;
        rc_private_redis_stop(r);
        return rc;
    }
    rc = wait_answer(r, sock, logf, err, cap);
    if (rc < 0)
        rc_private_redis_stop(r);
    return rc;
}

void rc_private_redis_stop(rc_private_redis *r)
{
    if (r->pid > 0)
        rc_proc_stop(r->pid, SIGTERM, 10000);
    r->pid = 0;
    if (r->dir[0]) {
        char p[400];
        const char *files[] = {"redis.sock", "redis.log", "dump.rdb"};
        for (size_t i = 0; i < RC_ARRAY_LEN(files); i++) {
            snprintf(p, sizeof p, "%s/%s", r->dir, files[i]);
            unlink(p);
        }
        rmdir(r->dir);
        r->dir[0] = '\0';
    }
}
