/* rc_test_redis.h - a private redis-server for unit tests: on a unix socket in a fresh temp dir
 * (no TCP port), started by the test and stopped by its pid. */
#ifndef RC_TEST_REDIS_H
#define RC_TEST_REDIS_H

#include <sys/types.h>

typedef struct rc_test_redis {
    char dir[64];  /* the temp dir: socket, log */
    char url[600]; /* unix://DIR/redis.sock */
    pid_t pid;     /* 0 once stopped */
} rc_test_redis;

/* Makes /tmp/rc-test-NAME-XXXXXX, starts redis-server there and waits (up to 5 s) until it
 * answers. 0, or -1 with the server stopped (the dir is left for rc_test_redis_cleanup). */
int rc_test_redis_start(rc_test_redis *t, const char *name);

struct rc_redis;

/* rc_test_redis_start, then a client of it with prefix "rc:": NULL, after saying why on stderr
 * and cleaning up, when either fails (the test then exits 1). */
struct rc_redis *rc_test_redis_open(rc_test_redis *t, const char *name);

struct redisReply;

/* 1 when rep is a reply and no error (freed here). */
int rc_test_redis_ok(struct redisReply *rep);
/* rep's integer (or number in a string), -1 when none; rep freed here. */
long long rc_test_redis_int(struct redisReply *rep);

/* A command that must succeed (a failed check names the caller's line; needs rc_test.h), and a
 * command's integer answer. */
#define RC_REDIS_OK(r, ...) RC_CHECK(rc_test_redis_ok(rc_redis_cmd((r), __VA_ARGS__)))
#define RC_REDIS_INT(r, ...) rc_test_redis_int(rc_redis_cmd((r), __VA_ARGS__))

/* Stops the server by its pid and waits for it; again is a no-op. A test may call it early to
 * see what an outage does. */
void rc_test_redis_stop(rc_test_redis *t);

/* Stops the server and removes the temp dir; says so on stderr when it cannot. */
void rc_test_redis_cleanup(rc_test_redis *t);

#endif
