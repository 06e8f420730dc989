/* sink_warc.c - see sink_warc.h. */
#include "sink_warc.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fetch.h"
#include "job.h"
#include "strmap.h"
#include "util.h"
#include "warc.h"

typedef struct wfile {
    int fd;
    char name[256]; /* the file's final name */
    char *path;     /* where it is written: DIR/NAME.open until it is closed */
    uint64_t size;
} wfile;

struct rc_warc_sink {
    char *dir;
    uint64_t max_bytes;
    int level; /* gzip */
    int fsync;
    int (*sync_fn)(int fd, void *ud); /* instead of fdatasync, or NULL */
    void *sync_ud;
    unsigned serial; /* files opened by this process */
    char host[64];
    rc_strmap *files; /* crawlid -> wfile */
};

static void wfile_free(void *p)
{
    wfile *f = p;
    if (!f)
        return;
    fsync(f->fd);
    close(f->fd);
    if (f->path) {
        /* Complete: it takes its final name (archives' convention: ".open" is being written). */
        size_t n = strlen(f->path) - 5;
        char *final = rc_xstrndup(f->path, n);
        if (rename(f->path, final) < 0)
            fprintf(stderr, "redcrawl: sink_warc: cannot rename %s: %s\n", f->path, strerror(errno));
        free(final);
        free(f->path);
    }
    free(f);
}

rc_warc_sink *rc_warc_sink_new(const char *dir, uint64_t max_bytes, int level, char *err, size_t cap)
{
    if (!dir || !*dir || max_bytes < 1024 || level < 1 || level > 9) {
        snprintf(err, cap,
                 "WARC sink: an output directory, a file size of at least 1 KB and a gzip level 1-9 are needed");
        return NULL;
    }
    rc_warc_sink *s = rc_xcalloc(1, sizeof *s);
    s->dir = rc_xstrdup(dir);
    s->max_bytes = max_bytes;
    s->level = level;
    s->files = rc_strmap_new();
    if (gethostname(s->host, sizeof s->host) < 0 || !s->host[0])
        snprintf(s->host, sizeof s->host, "localhost");
    s->host[sizeof s->host - 1] = '\0';
    for (char *p = s->host; *p; p++) /* the name is a file name component */
        if (*p == '/' || *p == '-' || *p == ' ')
            *p = '_';
    return s;
}

void rc_warc_sink_set_fsync(rc_warc_sink *s, int on)
{
    s->fsync = on;
}

void rc_warc_sink_set_sync(rc_warc_sink *s, int (*fn)(int fd, void *ud), void *ud)
{
    s->sync_fn = fn;
    s->sync_ud = ud;
}

void rc_warc_sink_free(rc_warc_sink *s)
{
    if (!s)
        return;
    rc_strmap_free(s->files, wfile_free);
    free(s->dir);
    free(s);
}

char *rc_warc_sink_dir(const rc_warc_sink *s, const char *crawlid)
{
    return rc_crawlid_subst(s->dir, crawlid);
}

static void warc_date(uint64_t ms, char *buf, size_t cap)
{
    time_t t = (time_t)(ms / 1000);
    struct tm tm;
    gmtime_r(&t, &tm);
    snprintf(buf, cap, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
             tm.tm_min, tm.tm_sec, (int)(ms % 1000));
}

/* Opens the next file of a job and writes its warcinfo record. */
static wfile *open_next(rc_warc_sink *s, const char *crawlid, uint64_t now_ms, char *err, size_t cap, int *rc)
{
    char *dir = rc_warc_sink_dir(s, crawlid);
    wfile *f = NULL;
    *rc = rc_mkdirs(dir);
    if (*rc < 0) {
        snprintf(err, cap, "cannot create WARC directory %s: %s", dir, strerror(-*rc));
        goto out;
    }
    time_t t = (time_t)(now_ms / 1000);
    struct tm tm;
    gmtime_r(&t, &tm);
    f = rc_xcalloc(1, sizeof *f);
    snprintf(f->name, sizeof f->name, "REDCRAWL-%04d%02d%02d%02d%02d%02d-%05u-%s-%ld.warc.gz", tm.tm_year + 1900,
             tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, s->serial++ % 100000, s->host,
             (long)getpid());
    char *path = rc_xasprintf("%s/%s.open", dir, f->name);
    f->fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644);
    if (f->fd < 0) {
        *rc = -errno;
        snprintf(err, cap, "cannot create %s: %s", path, strerror(errno));
        free(path);
        free(f);
        f = NULL;
        goto out;
    }
    f->path = path;
    char id[RC_WARC_ID_LEN], date[64];
    rc_warc_new_id(id);
    warc_date(now_ms, date, sizeof date);
    char *info =
        rc_xasprintf("software: redcrawl/0.1\r\nformat: WARC File Format 1.1\r\n"
                     "conformsTo: https://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/\r\n"
                     "hostname: %s\r\nisPartOf: %s\r\n",
                     s->host, crawlid);
    rc_warc_rec r = {.type = "warcinfo",
                     .id = id,
                     .date = date,
                     .filename = f->name,
                     .content_type = "application/warc-fields",
                     .block = info,
                     .block_len = strlen(info)};
    rc_buf b;
    rc_buf_init(&b);
    *rc = rc_warc_append(&b, &r, s->level);
    free(info);
    if (*rc == 0 && write(f->fd, b.ptr, b.len) != (ssize_t)b.len)
        *rc = -EIO;
    rc_buf_release(&b);
    if (*rc < 0) {
        snprintf(err, cap, "cannot write the warcinfo record of %s", f->name);
        wfile_free(f);
        f = NULL;
        goto out;
    }
    f->size = (uint64_t)lseek(f->fd, 0, SEEK_END);
out:
    free(dir);
    return f;
}

/* The job's current file, a new one when it is full (or none is open). */
static wfile *file_for(rc_warc_sink *s, const char *crawlid, uint64_t now_ms, char *err, size_t cap, int *rc)
{
    char why[160];
    /* {crawlid} becomes a path component: it must stay one. */
    if (rc_id_check(crawlid, RC_JOB_ID_MAX, why, sizeof why) < 0) {
        snprintf(err, cap, "crawlid '%.60s' cannot name a directory: %s", crawlid, why);
        *rc = -EINVAL;
        return NULL;
    }
    wfile *f = rc_strmap_get(s->files, crawlid);
    if (f && f->size < s->max_bytes)
        return f;
    wfile *next = open_next(s, crawlid, now_ms, err, cap, rc);
    if (!next)
        return NULL;
    if (f)
        wfile_free(rc_strmap_del(s->files, crawlid));
    rc_strmap_put(s->files, crawlid, next);
    return next;
}

/* The three records of a fetch, appended to b; the response member's length in *resp_len. */
static int build(rc_buf *b, const rc_fetch_result *res, const char *metadata, uint64_t now_ms, int level,
                 size_t *resp_len)
{
    char rid[RC_WARC_ID_LEN], qid[RC_WARC_ID_LEN], mid[RC_WARC_ID_LEN], date[64];
    rc_warc_new_id(rid);
    rc_warc_new_id(qid);
    rc_warc_new_id(mid);
    warc_date(now_ms, date, sizeof date);
    const char *uri = res->url;
    rc_buf block;
    rc_buf_init(&block);
    rc_warc_http_head(&block, res->response_head, res->response_head_len);
    size_t payload_off = block.len;
    rc_buf_append(&block, res->raw_body, res->raw_len);
    rc_warc_rec resp = {.type = "response",
                        .id = rid,
                        .date = date,
                        .target_uri = uri,
                        .ip = res->remote_ip,
                        .content_type = "application/http; msgtype=response",
                        .truncated = res->truncated ? "length" : NULL,
                        .block = block.ptr,
                        .block_len = block.len,
                        .payload_off = payload_off};
    if (res->status == 304) {
        /* Not modified: a revisit of the copy an earlier response record holds (WARC 1.1 6.7.3). */
        resp.type = "revisit";
        resp.profile = "http://netpreserve.org/warc/1.1/revisit/server-not-modified";
        resp.refers_to = uri;
        resp.payload_off = 0;
    }
    int r = rc_warc_append(b, &resp, level);
    *resp_len = b->len;
    if (r == 0 && res->request_head_len > 0) {
        rc_warc_rec req = {.type = "request",
                           .id = qid,
                           .date = date,
                           .target_uri = uri,
                           .concurrent_to = rid,
                           .content_type = "application/http; msgtype=request",
                           .block = res->request_head,
                           .block_len = res->request_head_len};
        r = rc_warc_append(b, &req, level);
    }
    if (r == 0 && metadata) {
        rc_warc_rec meta = {.type = "metadata",
                            .id = mid,
                            .date = date,
                            .target_uri = uri,
                            .concurrent_to = rid,
                            .content_type = "application/warc-fields",
                            .block = metadata,
                            .block_len = strlen(metadata)};
        r = rc_warc_append(b, &meta, level);
    }
    rc_buf_release(&block);
    return r;
}

int rc_warc_sink_write(rc_warc_sink *s, const char *crawlid, const rc_fetch_result *res, const char *metadata,
                       uint64_t now_ms, rc_warc_where *ret, char *err, size_t cap)
{
    int r = 0;
    wfile *f = file_for(s, crawlid, now_ms, err, cap, &r);
    if (!f)
        return r;
    rc_buf b;
    rc_buf_init(&b);
    size_t resp_len = 0;
    if ((r = build(&b, res, metadata, now_ms, s->level, &resp_len)) < 0) {
        snprintf(err, cap, "WARC records could not be compressed");
        rc_buf_release(&b);
        return r;
    }
    ssize_t w = write(f->fd, b.ptr, b.len);
    if (w == (ssize_t)b.len && s->sync_fn) {
        int sr = s->sync_fn(f->fd, s->sync_ud);
        if (sr < 0) {
            errno = -sr;
            w = -1;
        }
    } else if (w == (ssize_t)b.len && s->fsync && fdatasync(f->fd) < 0) {
        w = -1;
    }
    if (w != (ssize_t)b.len) {
        r = w < 0 ? -errno : -ENOSPC;
        /* Nothing of a half-written fetch stays: the next record starts on a member boundary. */
        int t = ftruncate(f->fd, (off_t)f->size);
        snprintf(err, cap, "writing %s failed: %s (rolled back%s)", f->name, strerror(-r),
                 t < 0 ? ", truncate FAILED" : "");
        rc_buf_release(&b);
        return r;
    }
    snprintf(ret->file, sizeof ret->file, "%s", f->name);
    ret->offset = f->size;
    ret->length = resp_len;
    f->size += b.len;
    rc_buf_release(&b);
    return 0;
}
