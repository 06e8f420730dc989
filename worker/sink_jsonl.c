/* sink_jsonl.c - the JSON Lines sink, see sink.h. */
#include "sink.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "strmap.h"
#include "job.h"
#include "util.h"

struct rc_sink {
    char *out;
    rc_strmap *fds; /* crawlid -> (fd + 1) */
};

rc_sink *rc_sink_jsonl_new(const char *out, char *err, size_t cap)
{
    if (!out || !*out) {
        snprintf(err, cap, "--out: empty output directory");
        return NULL;
    }
    rc_sink *s = rc_xcalloc(1, sizeof *s);
    s->out = rc_xstrdup(out);
    s->fds = rc_strmap_new();
    return s;
}

void rc_sink_free(rc_sink *s)
{
    if (!s)
        return;
    size_t it = 0;
    void *v;
    while (rc_strmap_next(s->fds, &it, NULL, &v)) {
        int fd = (int)(intptr_t)v - 1;
        fsync(fd);
        close(fd);
    }
    rc_strmap_free(s->fds, NULL);
    free(s->out);
    free(s);
}

static char *dir_for(const rc_sink *s, const char *crawlid)
{
    rc_buf b;
    rc_buf_init(&b);
    const char *p = s->out, *mark;
    while ((mark = strstr(p, "{crawlid}"))) {
        rc_buf_append(&b, p, (size_t)(mark - p));
        rc_buf_puts(&b, crawlid);
        p = mark + 9;
    }
    rc_buf_puts(&b, p);
    return rc_buf_steal(&b);
}

char *rc_sink_path(const rc_sink *s, const char *crawlid, const char *kind)
{
    char *dir = dir_for(s, crawlid);
    char *path = rc_xasprintf("%s/%s.jsonl", dir, kind);
    free(dir);
    return path;
}

static int mkdirs(char *path)
{
    for (char *p = path + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        int r = mkdir(path, 0755);
        *p = '/';
        if (r < 0 && errno != EEXIST)
            return -errno;
    }
    if (mkdir(path, 0755) < 0 && errno != EEXIST)
        return -errno;
    return 0;
}

static int open_for(rc_sink *s, const char *crawlid, const char *kind, char *err, size_t cap)
{
    char mapkey[128], why[160];
    /* {crawlid} becomes a path component: it must stay one (no "..", no '/'), whoever sent it. */
    if (rc_id_check(crawlid, RC_JOB_ID_MAX, why, sizeof why) < 0) {
        snprintf(err, cap, "crawlid '%.60s' cannot name a directory: %s", crawlid, why);
        return -EINVAL;
    }
    snprintf(mapkey, sizeof mapkey, "%s/%s", crawlid, kind);
    void *v = rc_strmap_get(s->fds, mapkey);
    if (v)
        return (int)(intptr_t)v - 1;
    char *dir = dir_for(s, crawlid);
    int r = mkdirs(dir);
    if (r < 0) {
        snprintf(err, cap, "cannot create output directory %s: %s", dir, strerror(-r));
        free(dir);
        return r;
    }
    char *path = rc_xasprintf("%s/%s.jsonl", dir, kind);
    free(dir);
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) {
        r = -errno;
        snprintf(err, cap, "cannot open %s: %s", path, strerror(errno));
        free(path);
        return r;
    }
    free(path);
    rc_strmap_put(s->fds, mapkey, (void *)(intptr_t)(fd + 1));
    return fd;
}

/* Rare path (only after a lost lease): a linear scan of the job's file for the _id. */
static int file_has_id(const char *path, const char *id)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    char needle[160];
    snprintf(needle, sizeof needle, "\"_id\":\"%s\"", id);
    char *line = NULL;
    size_t cap = 0;
    int found = 0;
    while (!found && getline(&line, &cap, f) > 0)
        found = strstr(line, needle) != NULL;
    free(line);
    fclose(f);
    return found;
}

int rc_sink_write(rc_sink *s, const char *crawlid, const char *kind, const char *id, const char *doc, size_t len,
                  int maybe_dup, char *err, size_t cap)
{
    int fd = open_for(s, crawlid, kind, err, cap);
    if (fd < 0)
        return fd;
    if (maybe_dup) {
        char *path = rc_sink_path(s, crawlid, kind);
        int dup = file_has_id(path, id);
        free(path);
        if (dup)
            return 0;
    }
    char *line = rc_xmalloc(len + 1);
    memcpy(line, doc, len);
    line[len] = '\n';
    ssize_t w = write(fd, line, len + 1);
    int r = 0;
    if (w < 0 || (size_t)w != len + 1) {
        r = w < 0 ? -errno : -EIO;
        snprintf(err, cap, "writing %s of job %s failed: %s", kind, crawlid, w < 0 ? strerror(errno) : "short write");
    }
    free(line);
    return r;
}
