/* util.c - see util.h. */
#include "util.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <time.h>

static void oom(size_t n)
{
    fprintf(stderr, "redcrawl: out of memory allocating %zu bytes\n", n);
    abort();
}

void *rc_xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        oom(n);
    return p;
}

void *rc_xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        oom(n * size);
    return p;
}

void *rc_xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        oom(n);
    return q;
}

char *rc_xstrdup(const char *s)
{
    return rc_xstrndup(s, strlen(s));
}

char *rc_xstrndup(const char *s, size_t n)
{
    char *p = rc_xmalloc(n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *rc_xasprintf(const char *fmt, ...)
{
    char *p = NULL;
    va_list ap;
    va_start(ap, fmt);
    int n = vasprintf(&p, fmt, ap); /* glibc's: measures and allocates in one go */
    va_end(ap);
    if (n < 0)
        oom(strlen(fmt));
    return p;
}

void rc_buf_init(rc_buf *b)
{
    b->ptr = NULL;
    b->len = 0;
    b->cap = 0;
}

void rc_buf_release(rc_buf *b)
{
    free(b->ptr);
    rc_buf_init(b);
}

void rc_buf_reset(rc_buf *b)
{
    b->len = 0;
    if (b->ptr)
        b->ptr[0] = '\0';
}

static void buf_reserve(rc_buf *b, size_t extra)
{
    if (b->len + extra + 1 <= b->cap)
        return;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < b->len + extra + 1)
        cap *= 2;
    b->ptr = rc_xrealloc(b->ptr, cap);
    b->cap = cap;
}

void rc_buf_reserve(rc_buf *b, size_t n)
{
    buf_reserve(b, n);
}

void rc_buf_append(rc_buf *b, const void *data, size_t n)
{
    buf_reserve(b, n);
    if (n)
        memcpy(b->ptr + b->len, data, n);
    b->len += n;
    b->ptr[b->len] = '\0';
}

void rc_buf_puts(rc_buf *b, const char *s)
{
    rc_buf_append(b, s, strlen(s));
}

void rc_buf_printf(rc_buf *b, const char *fmt, ...)
{
    va_list ap;
    char probe[1];
    va_start(ap, fmt);
    int n = vsnprintf(probe, sizeof probe, fmt, ap);
    va_end(ap);
    if (n <= 0)
        return;
    buf_reserve(b, (size_t)n);
    va_start(ap, fmt);
    vsnprintf(b->ptr + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

char *rc_buf_steal(rc_buf *b)
{
    char *p = b->ptr ? b->ptr : rc_xstrdup("");
    rc_buf_init(b);
    return p;
}

uint64_t rc_now_ms(void)
{
    return rc_now_us() / 1000;
}

uint64_t rc_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

uint64_t rc_mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

uint64_t rc_mono_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

int rc_parse_i64(const char *s, int64_t min, int64_t max, int64_t *ret)
{
    char *end;
    if (!s || !*s)
        return -EINVAL;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno == ERANGE)
        return -ERANGE;
    if (*end != '\0')
        return -EINVAL;
    if (v < min || v > max)
        return -ERANGE;
    *ret = v;
    return 0;
}

int rc_parse_double(const char *s, double min, double max, double *ret)
{
    char *end;
    if (!s || !*s)
        return -EINVAL;
    errno = 0;
    double v = strtod(s, &end);
    if (errno == ERANGE)
        return -ERANGE;
    if (*end != '\0' || v != v)
        return -EINVAL;
    if (v < min || v > max)
        return -ERANGE;
    *ret = v;
    return 0;
}

void rc_ascii_lower(char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        s[i] = (char)tolower((unsigned char)s[i]);
}

int rc_id_check(const char *s, size_t max, char *why, size_t cap)
{
    size_t n = strlen(s);
    if (n < 1 || n > max) {
        snprintf(why, cap, "must be 1 to %zu characters long, not %zu", max, n);
        return -EINVAL;
    }
    if (s[0] == '.') {
        snprintf(why, cap, "must not start with '.'");
        return -EINVAL;
    }
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
            c == '-')
            continue;
        if (c > 0x20 && c < 0x7f)
            snprintf(why, cap, "may hold only letters, digits, '.', '_' and '-' (found '%c' at offset %zu)", c, i);
        else
            snprintf(why, cap, "may hold only letters, digits, '.', '_' and '-' (found byte 0x%02X at offset %zu)", c,
                     i);
        return -EINVAL;
    }
    return 0;
}

void rc_url_redact(const char *url, char *buf, size_t cap)
{
    if (!url) {
        snprintf(buf, cap, "(none)");
        return;
    }
    const char *auth = strstr(url, "://");
    auth = auth ? auth + 3 : url;
    size_t alen = strcspn(auth, "/?#");
    const char *at = NULL;
    for (const char *p = auth; p < auth + alen; p++)
        if (*p == '@')
            at = p; /* the last '@' ends the credentials */
    if (!at) {
        snprintf(buf, cap, "%s", url);
        return;
    }
    /* USER:PASSWORD@ keeps the user; a lone USERINFO@ may be a password (redis://PASSWORD@host
     * is accepted as one), so all of it is hidden. */
    const char *colon = memchr(auth, ':', (size_t)(at - auth));
    const char *keep = colon ? colon + 1 : auth;
    snprintf(buf, cap, "%.*s***%s", (int)(keep - url), url, at);
}

char *rc_secret_env(const char *name)
{
    char var[128];
    snprintf(var, sizeof var, "%s_FILE", name);
    const char *path = getenv(var);
    if (path && *path) {
        FILE *f = fopen(path, "r");
        if (!f)
            return NULL;
        char line[1024] = "";
        char *got = fgets(line, sizeof line, f);
        fclose(f);
        if (!got)
            return NULL;
        line[strcspn(line, "\r\n")] = '\0';
        return rc_xstrdup(line);
    }
    const char *v = getenv(name);
    return v ? rc_xstrdup(v) : NULL;
}

int rc_cpus(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return CPU_COUNT(&set);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

void rc_process_id_head(char *buf, size_t cap, int pid)
{
    char host[64] = "localhost";
    gethostname(host, sizeof host - 1);
    host[sizeof host - 1] = '\0';
    snprintf(buf, cap, "%s-%d-", host, pid);
}

void rc_process_id(char *buf, size_t cap)
{
    char head[96];
    rc_process_id_head(head, sizeof head, (int)getpid());
    snprintf(buf, cap, "%s%04llx", head, (unsigned long long)(rc_now_us() & 0xffff));
}

char **rc_strv_dup(const char *const *v, size_t n)
{
    if (!n)
        return NULL;
    char **d = rc_xcalloc(n + 1, sizeof *d);
    for (size_t i = 0; i < n; i++)
        d[i] = rc_xstrdup(v[i]);
    return d;
}

void rc_strv_free(char **v)
{
    for (size_t i = 0; v && v[i]; i++)
        free(v[i]);
    free(v);
}

char *rc_crawlid_subst(const char *tmpl, const char *crawlid)
{
    rc_buf b;
    rc_buf_init(&b);
    const char *p = tmpl, *mark;
    while ((mark = strstr(p, "{crawlid}"))) {
        rc_buf_append(&b, p, (size_t)(mark - p));
        rc_buf_puts(&b, crawlid);
        p = mark + 9;
    }
    rc_buf_puts(&b, p);
    return rc_buf_steal(&b);
}

int rc_mkdirs(const char *path)
{
    char *d = rc_xstrdup(path);
    int r = 0;
    for (char *p = d + 1; *p && r == 0; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        if (mkdir(d, 0755) < 0 && errno != EEXIST)
            r = -errno;
        *p = '/';
    }
    if (r == 0 && mkdir(d, 0755) < 0 && errno != EEXIST)
        r = -errno;
    free(d);
    return r;
}

char *rc_read_file(const char *path, size_t max, size_t *ret_len)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (!f)
        return NULL;
    rc_buf b;
    rc_buf_init(&b);
    rc_buf_append(&b, "", 0);
    char chunk[65536];
    size_t n;
    int toobig = 0;
    errno = 0;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (max && b.len + n > max) {
            toobig = 1;
            break;
        }
        rc_buf_append(&b, chunk, n);
    }
    int failed = ferror(f) ? (errno ? errno : EIO) : 0; /* e.g. EISDIR: fopen() opens a directory */
    if (f != stdin)
        fclose(f);
    if (toobig || failed) {
        rc_buf_release(&b);
        errno = toobig ? EFBIG : failed;
        return NULL;
    }
    *ret_len = b.len;
    return rc_buf_steal(&b);
}

void rc_fd_cloexec(int fd)
{
    int flags = fd >= 0 ? fcntl(fd, F_GETFD) : -1;
    if (flags >= 0 && !(flags & FD_CLOEXEC))
        (void)fcntl(fd, F_SETFD, flags | FD_CLOEXEC);
}
