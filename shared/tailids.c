/* tailids.c - see tailids.h. */
#include "tailids.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "util.h"

/* The index's last bytes read for the mark: an index line is "start end _id", an _id 32 hex
 * digits, so this holds dozens of lines. */
#define TAIL_READ 4096

/* The "end" field of the last complete line of index text buf[0, n) (NUL-terminated); whole:
 * buf starts at a line's start. 0 when there is no such line. */
static int64_t last_end(char *buf, size_t n, int whole)
{
    while (n > 0 && buf[n - 1] != '\n')
        n--; /* a line still being written */
    if (n == 0)
        return 0;
    buf[n - 1] = '\0';
    size_t start = n - 1;
    while (start > 0 && buf[start - 1] != '\n')
        start--;
    long long a, b;
    if ((start == 0 && !whole) || sscanf(buf + start, "%lld %lld", &a, &b) != 2 || b < 0)
        return 0;
    return (int64_t)b;
}

int rc_tailids_mark(const char *idx_path, int64_t *ret)
{
    int fd = open(idx_path, O_RDONLY | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT) {
        *ret = 0;
        return 0;
    }
    if (fd < 0)
        return -errno;
    char buf[TAIL_READ + 1];
    off_t end = lseek(fd, 0, SEEK_END), from = end > TAIL_READ ? end - TAIL_READ : 0;
    ssize_t n = end < 0 ? -1 : pread(fd, buf, (size_t)(end - from), from);
    int rc = n < 0 ? -errno : 0;
    close(fd);
    if (rc < 0)
        return rc;
    buf[n] = '\0';
    *ret = last_end(buf, (size_t)n, from == 0);
    return 0;
}

const char *rc_tailids_record_id(const char *line, size_t *ret_len)
{
    const char *id = strstr(line, "\"_id\":\""), *q = id ? strchr(id + 7, '"') : NULL;
    if (!q)
        return NULL;
    *ret_len = (size_t)(q - id - 7);
    return id + 7;
}

/* The start of the line offset off of fd falls in (off itself when a line ends just before it). */
static off_t line_start(int fd, off_t off)
{
    char buf[TAIL_READ];
    while (off > 0) {
        size_t n = (size_t)RC_MIN((off_t)sizeof buf, off);
        if (pread(fd, buf, n, off - (off_t)n) != (ssize_t)n)
            return -EIO;
        for (size_t i = n; i > 0; i--)
            if (buf[i - 1] == '\n')
                return off - (off_t)n + (off_t)i;
        off -= (off_t)n;
    }
    return 0;
}

/* The _ids of f's complete lines from its position on, one a line, into ids; *ret_n how many. */
static int collect(FILE *f, rc_buf *ids, size_t *ret_n)
{
    char *line = NULL;
    size_t cap = 0, n = 0;
    ssize_t len;
    while ((len = getline(&line, &cap, f)) > 0 && line[len - 1] == '\n') { /* no '\n': a fragment */
        size_t idlen;
        const char *id = rc_tailids_record_id(line, &idlen);
        if (!id)
            continue;
        rc_buf_append(ids, id, idlen);
        rc_buf_putc(ids, '\n');
        n++;
    }
    int rc = ferror(f) ? -EIO : 0;
    free(line);
    if (rc == 0)
        *ret_n = n;
    return rc;
}

/* Appends text to path (created) and syncs it. 0 or -errno. */
static int append_synced(const char *path, const rc_buf *text)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0)
        return -errno;
    ssize_t w = write(fd, text->ptr, text->len);
    int rc = w < 0 ? -errno : (size_t)w != text->len ? -ENOSPC : fsync(fd) < 0 ? -errno : 0;
    close(fd);
    return rc;
}

int rc_tailids_append(const char *data_path, int64_t from, const char *list_path, size_t *ret_n, char *err, size_t cap)
{
    FILE *f = fopen(data_path, "re");
    if (!f && errno == ENOENT) {
        *ret_n = 0;
        return 0;
    }
    int rc = f ? 0 : -errno;
    rc_buf ids;
    rc_buf_init(&ids);
    size_t n = 0;
    off_t start = rc == 0 ? line_start(fileno(f), (off_t)from) : 0;
    if (rc == 0 && (start < 0 || fseeko(f, start, SEEK_SET) < 0 || collect(f, &ids, &n) < 0))
        rc = -EIO;
    if (rc < 0)
        snprintf(err, cap, "cannot read %s: %s", data_path, strerror(-rc));
    else if (n && (rc = append_synced(list_path, &ids)) < 0)
        snprintf(err, cap, "cannot write %s: %s", list_path, strerror(-rc));
    if (f)
        fclose(f);
    rc_buf_release(&ids);
    if (rc == 0)
        *ret_n = n;
    return rc;
}

int rc_tailids_load(const char *list_path, rc_strmap **ret, char *err, size_t cap)
{
    FILE *f = fopen(list_path, "re");
    if (!f) {
        int rc = -errno;
        snprintf(err, cap, "cannot open %s: %s", list_path, strerror(-rc));
        return rc;
    }
    rc_strmap *m = rc_strmap_new();
    char *line = NULL;
    size_t lcap = 0;
    ssize_t len;
    while ((len = getline(&line, &lcap, f)) > 0) {
        line[strcspn(line, "\n")] = '\0';
        if (line[0])
            rc_strmap_put(m, line, (void *)1);
    }
    int rc = ferror(f) ? -EIO : 0;
    free(line);
    fclose(f);
    if (rc < 0) {
        snprintf(err, cap, "cannot read %s: %s", list_path, strerror(-rc));
        rc_strmap_free(m, NULL);
        return rc;
    }
    *ret = m;
    return 0;
}
