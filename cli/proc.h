/* proc.h - child processes of the command line: spawning the daemons with their output in a
 * log file, finding them next to this executable, and a private redis-server. */
#ifndef RC_PROC_H
#define RC_PROC_H

#include <stddef.h>
#include <sys/types.h>

/* Path of a sibling executable (redcrawl-worker, redcrawl-scheduler, redcrawl-web): looked up next to this
 * program, in the build tree layout, then on PATH. malloc'd, or NULL when not found. */
char *rc_proc_find(const char *name);

/* Starts argv (NULL-terminated) with stdout and stderr appended to log_path. Returns the pid
 * or a negative errno. */
pid_t rc_proc_spawn(const char *const argv[], const char *log_path);
/* The same with env (NULL-terminated "NAME=VALUE" strings, or NULL) set in the child's
 * environment, each only where this process' environment does not set NAME already. */
pid_t rc_proc_spawn_env(const char *const argv[], const char *const env[], const char *log_path);

/* Sends sig, then waits up to timeout_ms for the child; SIGKILLs it after that. Returns its
 * wait status, or -1. */
int rc_proc_stop(pid_t pid, int sig, int timeout_ms);

/* A private redis-server on a unix socket in a fresh temporary directory, its allocator told
 * to give freed memory back at once (RC_PRIVATE_REDIS_MALLOC_CONF). With a data directory it
 * keeps its data there in an append-only file (RC_PRIVATE_REDIS_FSYNC), loaded again by the
 * next start on that directory (a resumed crawl); without, it keeps nothing. */
typedef struct rc_private_redis {
    pid_t pid;
    char dir[256]; /* the socket's temporary directory */
    char url[320];
} rc_private_redis;

/* How often the private Redis' append-only file reaches the disk: each write goes to the file
 * (the kernel) before Redis answers it, so a crash of the processes loses nothing acknowledged;
 * the fsync once a second in a thread of its own bounds what a crash of the machine loses to
 * that second. "always" would fsync before every answer (each page's complete). */
#define RC_PRIVATE_REDIS_FSYNC "everysec"

/* jemalloc's options (redis-server's allocator; MALLOC_CONF in its environment, unless ours
 * sets one): pages freed go back to the system at once (dirty_decay_ms 0) instead of after
 * jemalloc's 10 s (its muzzy_decay_ms is 0 already). A crawl's Redis frees about as much as it
 * takes (host queues filled and emptied, Lua's garbage): with 10 s, at the peak of the bench's
 * 1,000 x 20, jemalloc held 17.4 MB resident for 9.9 MB allocated; with 1 s its anonymous
 * pages were 11.6-12.1 MB at the crawl's peak, with 0 8.7-9.0 MB, for the same Redis CPU. */
#define RC_PRIVATE_REDIS_MALLOC_CONF "dirty_decay_ms:0"

/* The longest member (bytes) of a zset that Redis still keeps as a listpack, for the private
 * Redis (Redis' default is 64). A host queue's member is a record, "crawlid depth priority
 * attempt url": with the crawl's id (crawl-YYYYMMDD-HHMMSS) nearly every URL makes it longer
 * than 64 bytes, and each such queue became a skiplist, ~1,400 bytes for a queue of 2 against
 * ~200. Queues stay listpacks up to zset-max-listpack-entries (128) members. */
#define RC_PRIVATE_REDIS_ZSET_LISTPACK_VALUE "512"

/* data_dir: where it keeps its data and log (made if missing; borrowed), or NULL: nothing kept.
 * 0, or a negative errno with a message in err (e.g. redis-server is not installed). */
int rc_private_redis_start(rc_private_redis *r, const char *data_dir, char *err, size_t cap);
void rc_private_redis_stop(rc_private_redis *r);

#endif
