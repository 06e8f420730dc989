/* util.h - allocation that aborts on OOM, growable buffers, clocks. */
#ifndef RC_UTIL_H
#define RC_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdarg.h>

#define RC_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define RC_MIN(a, b) ((a) < (b) ? (a) : (b))
#define RC_MAX(a, b) ((a) > (b) ? (a) : (b))

/* Allocation never returns NULL: out of memory aborts with the size (redis zmalloc). */
void *rc_xmalloc(size_t n);
void *rc_xcalloc(size_t n, size_t size);
void *rc_xrealloc(void *p, size_t n);
char *rc_xstrdup(const char *s);
char *rc_xstrndup(const char *s, size_t n);
char *rc_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A growable byte buffer, always NUL-terminated once anything was appended. Embedded: init/release. */
typedef struct rc_buf {
    char *ptr;
    size_t len;
    size_t cap;
} rc_buf;

void rc_buf_init(rc_buf *b);
void rc_buf_release(rc_buf *b);
void rc_buf_reset(rc_buf *b);
void rc_buf_append(rc_buf *b, const void *data, size_t n);
/* Room for n more bytes (and the NUL) at once: appends up to that size never move the bytes. */
void rc_buf_reserve(rc_buf *b, size_t n);
void rc_buf_puts(rc_buf *b, const char *s);
/* One byte; inline because text is often built a byte at a time. */
static inline void rc_buf_putc(rc_buf *b, char c)
{
    if (b->len + 2 > b->cap) {
        rc_buf_append(b, &c, 1);
        return;
    }
    b->ptr[b->len++] = c;
    b->ptr[b->len] = '\0';
}
void rc_buf_printf(rc_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Hands the bytes to the caller (free() them) and leaves b empty. */
char *rc_buf_steal(rc_buf *b);

/* Wall clock in ms / µs since the epoch, and a monotonic clock in ms. */
uint64_t rc_now_ms(void);
uint64_t rc_now_us(void);
/* The CPUs this process may run on: its affinity mask (taskset, a container's cpuset), else
 * sysconf's online count; at least 1. */
int rc_cpus(void);
/* This process's default id, HOST-PID-hhhh (hhhh: 4 hex digits from the clock, so a restarted process with a
 * recycled pid gets another): workers, schedulers and monitors name themselves with it. */
void rc_process_id(char *buf, size_t cap);
/* The head of the default id of process pid on this host, "HOST-PID-" (a parent naming what its
 * children registered as). */
void rc_process_id_head(char *buf, size_t cap, int pid);
/* A NULL-terminated copy of n strings (NULL when n is 0); rc_strv_free frees it (NULL is fine). */
char **rc_strv_dup(const char *const *v, size_t n);
void rc_strv_free(char **v);
/* TMPL with every "{crawlid}" replaced by CRAWLID (malloc'd): the sinks' directory templates. */
char *rc_crawlid_subst(const char *tmpl, const char *crawlid);
/* The whole file PATH ("-" = standard input), NUL-terminated, its length in *RET_LEN; at most
 * MAX bytes (0 = no limit). NULL with errno set (EFBIG: over MAX) when it cannot be read. */
char *rc_read_file(const char *path, size_t max, size_t *ret_len);
/* mkdir -p PATH (0755); 0 or -errno. */
int rc_mkdirs(const char *path);
uint64_t rc_mono_ms(void);
uint64_t rc_mono_us(void);

/* Strict number parsing: the whole string must be a number in [min, max]. 0 or -EINVAL/-ERANGE. */
int rc_parse_i64(const char *s, int64_t min, int64_t max, int64_t *ret);
/* Copies url into buf with the password of "scheme://user:password@host..." replaced by "***",
 * for logs and messages: secrets are never printed. */
void rc_url_redact(const char *url, char *buf, size_t cap);
/* A secret from the environment: the first line of the file named by NAME_FILE if set, else
 * NAME's value; NULL when neither is set (malloc'd). */
char *rc_secret_env(const char *name);
/* Ids that become file names, Redis keys and topic names (crawlid, spiderid, appid): 1 to max
 * characters of [A-Za-z0-9._-], not starting with '.', so an id is always one harmless path
 * component ("..", "a/b" and "" never are). 0, or -EINVAL with the reason in why. */
int rc_id_check(const char *s, size_t max, char *why, size_t cap);
int rc_parse_double(const char *s, double min, double max, double *ret);

/* The value of a hex digit, -1 when c is not one. */
static inline int rc_hexval(unsigned char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Lower-case ASCII in place. */
void rc_ascii_lower(char *s, size_t n);

/* Marks fd close-on-exec: a library's socket (hiredis opens its own without the flag) must not
 * pass to the processes the caller starts. fd < 0 is ignored. */
void rc_fd_cloexec(int fd);

#endif
