/* test_wake.c - the wake subscriber's reconnects while Redis is away: once a second, as
 * wake.h says. A one-shot libev timer started again after it fired keeps no interval (libev
 * leaves it the time that remained, ~0), so a retry that did not set it again spun: thousands
 * of connects a second, a core burnt for as long as Redis was down.
 * The "Redis" here is a unix socket that accepts and closes at once, so each attempt connects
 * and is dropped: the test counts the attempts over 2.5 s of the loop. */
#include <ev.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "rc_test.h"
#include "redis.h"
#include "wake.h"

static int accepted;

static void on_accept(struct ev_loop *loop, ev_io *io, int revents)
{
    (void)loop, (void)revents;
    int c = accept(io->fd, NULL, NULL);
    if (c >= 0) {
        accepted++;
        close(c);
    }
}

static void on_stop(struct ev_loop *loop, ev_timer *t, int revents)
{
    (void)t, (void)revents;
    ev_break(loop, EVBREAK_ALL);
}

static void on_nudge(void *ud)
{
    (void)ud;
}

/* A listening unix socket at path; -1 when it cannot be made. */
static int listen_unix(const char *path)
{
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof sa.sun_path)
        return -1;
    memcpy(sa.sun_path, path, strlen(path) + 1);
    if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof sa) < 0 || listen(fd, 64) < 0) {
        perror("test_wake: listen");
        return -1;
    }
    return fd;
}

int main(void)
{
    char dir[] = "/tmp/rc-test-wake-XXXXXX";
    if (!mkdtemp(dir))
        return 1;
    char path[128], url[160], err[256];
    snprintf(path, sizeof path, "%s/redis.sock", dir);
    snprintf(url, sizeof url, "unix://%s", path);
    int fd = listen_unix(path);
    RC_CHECK(fd >= 0);
    rc_redis_addr addr;
    RC_CHECK_INT_EQ(rc_redis_parse_url(url, &addr, err, sizeof err), 0);

    struct ev_loop *loop = ev_loop_new(EVFLAG_AUTO);
    ev_io io;
    ev_io_init(&io, on_accept, fd, EV_READ);
    ev_io_start(loop, &io);
    ev_timer stop;
    ev_timer_init(&stop, on_stop, 2.5, 0);
    ev_timer_start(loop, &stop);
    rc_wake *wk = rc_wake_new(loop, &addr, "rc:wake:test", on_nudge, NULL, err, sizeof err);
    RC_CHECK(wk != NULL);
    ev_run(loop, 0);
    /* the first attempt at once, then one a second: 3 in 2.5 s (at most 4 with a late tick) */
    fprintf(stderr, "test_wake: %d connections in 2.5 s\n", accepted);
    RC_CHECK(accepted >= 1);
    RC_CHECK(accepted <= 4);

    rc_wake_free(wk);
    ev_io_stop(loop, &io);
    ev_loop_destroy(loop);
    close(fd);
    unlink(path);
    rmdir(dir);
    return rc_test_done("test_wake");
}
