/* sink_jsonl.c - the JSON Lines sink, see sink.h.
 *
 * Each job's file (DIR/pages.jsonl, DIR/items.jsonl) has an _id index beside it (FILE.ids, one
 * line "start end _id" per record). Every write holds flock() on the data file, so the worker
 * processes sharing the file serialise: the tail is repaired (a writer killed mid-record left a
 * partial line: truncated to the last complete record), the record appended, its index line
 * appended; a short or failed write of either is rolled back by ftruncate before the lock is
 * released, so the file never keeps a fragment and the URL goes back untouched.
 * A redelivered page (maybe_dup) is looked up in an in-memory set of the file's _ids, loaded
 * from the index on the first redelivery and caught up incrementally after that: a gap between
 * index lines or after the last one (a writer killed between the record and its index line) is
 * filled by reading those records' _ids from the data file.
 * As a store (rc_sink_jsonl_store), put only takes a group's lines; the worker calls turn after a
 * batch of parses and before its loop waits, which writes each file's lines with one write() per
 * file (and one index write, one fsync per the policy) under one lock, then runs the groups'
 * done: a page is acknowledged only once its lines are in the file, as before, for a write(2) a
 * batch instead of one per record. A worker killed in between loses lines it never acknowledged:
 * their URLs come back when their leases expire. The "record" policy writes (and syncs) at every
 * put.
 *
 * The group commit (the "batch" policy once rc_sink_commit_start gave the sink a loop): turn
 * writes as above but does not sync; it adds the files it touched (data and index, pages and
 * items) to the generation being gathered and moves the turn's groups to a wait list under that
 * generation. A sync thread takes the generation (at most one every interval: what is written
 * meanwhile joins the next), fdatasyncs its files and wakes the loop (ev_async), which runs the
 * done of every group whose generation is synced, in put order: a page is acknowledged only once
 * its lines are written and on disk, and the loop never waits for the disk. A failed sync fails
 * the groups of its generation as a failed write does (-EIO: the URLs go back as redeliveries,
 * which find their lines and wait for a later sync). A redelivery whose lines were all found
 * waits for a sync too (another process may have written them and died before its sync). The
 * limit, as before this thread: Linux reports a writeback error once and may drop the pages it
 * could not write, so a redelivery that finds its lines in the cache after a failed sync can be
 * acknowledged over lines the disk lost (the failure is logged with the pages it sent back). A
 * stopping sink lets the thread finish; groups not delivered by then hear -ECANCELED.
 *
 * Threads: the loop thread owns everything but the commit's shared part; the sync thread reads
 * only that part (under commit.mu: the descriptors of the generation being gathered, which it
 * takes and closes, the generation numbers, the failures and the stop flag) and calls
 * sync_fn. The descriptors it syncs are dup()s, so it never touches a jfile; another sink's file
 * joins a generation the same way (rc_sink_commit_add: the WARC files). */
#include "sink.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <ev.h>

#include "log.h"
#include "strmap.h"
#include "tailids.h"
#include "job.h"
#include "util.h"

#define MOD "sink"

/* A record taken and not yet written: its line (with its '\n') is [at, at + len) of its file's
 * pending buffer; group indexes the sink's groups (SIZE_MAX: none, rc_sink_write's). */
typedef struct pend_rec {
    size_t at, len;
    char *id;
    int maybe_dup;
    int noted; /* its _id was put into ids by this write (taken out again if it fails) */
    size_t group;
} pend_rec;

typedef struct jfile {
    int fd, ifd;         /* data file and its _id index, both O_APPEND */
    char *label;         /* "KIND of job CRAWLID", for errors */
    rc_strmap *ids;      /* _ids in the file, NULL until the first redelivery */
    off_t idx_read;      /* index bytes taken into ids */
    off_t covered;       /* data bytes whose _ids are in ids */
    int dirty;           /* written since the last fsync (per-batch policy) */
    uint64_t commit_gen; /* the commit generation its descriptors were last added to */
    off_t end_ok[2];     /* fd's and ifd's size after this sink's last write, which ended a line
                            (-1: unknown): found again, the end needs no repair */
    rc_buf pend;         /* lines taken, not yet written */
    pend_rec *recs;
    size_t n_recs, cap_recs;
} jfile;

/* A write-group put took: its done runs once all its lines are written (or one failed), and
 * with the group commit once the generation gen is synced. */
typedef struct pend_group {
    rc_store_done done;
    void *ud;
    int status;
    uint64_t gen;
    char *err; /* why it failed (status < 0, waiting for its generation), or NULL */
} pend_group;

typedef struct commit_fail {
    uint64_t gen;
    int status;
} commit_fail;

/* The group commit: see the header comment. */
typedef struct commit {
    struct ev_loop *loop;
    ev_async async;
    pthread_t thread;
    double interval_s;
    int (*sync_fn)(int fd, void *ud);
    void *sync_ud;
    pthread_mutex_t mu;
    pthread_cond_t wake;
    /* under mu */
    int *fds; /* dup'd descriptors of the generation being gathered (the sync thread closes them) */
    size_t n_fds, cap_fds;
    uint64_t gathering; /* the generation files are added to (from 1) */
    int wanted;         /* gathering has groups waiting for it */
    uint64_t synced;    /* every generation up to it is finished */
    commit_fail *fails; /* finished generations whose sync failed, not yet delivered */
    size_t n_fails, cap_fails;
    char fail_err[256];
    int stopping;
    /* loop thread */
    pend_group *wait; /* written, waiting for their generation, in put order */
    size_t n_wait, cap_wait;
    uint64_t other_gen;  /* the generation others[] were added to */
    struct stat *others; /* other files added to it (rc_sink_commit_add), by device and inode:
                            a descriptor's number may name another file later (a WARC rotated) */
    size_t n_others, cap_others;
} commit;

struct rc_sink {
    char *out;
    rc_sink_fsync fsync;
    rc_strmap *files; /* "crawlid/kind" -> jfile */
    jfile **touched;  /* files with lines pending */
    size_t n_touched, cap_touched;
    pend_group *groups;
    size_t n_groups, cap_groups;
    char group_err[512]; /* why the first group of this turn failed */
    commit *commit;      /* the batch policy's group commit, or NULL (synced on the loop) */
};

static void jfile_free(void *p)
{
    jfile *f = p;
    if (!f)
        return;
    fsync(f->fd);
    fsync(f->ifd);
    close(f->fd);
    close(f->ifd);
    rc_strmap_free(f->ids, NULL);
    for (size_t i = 0; i < f->n_recs; i++)
        free(f->recs[i].id);
    free(f->recs);
    rc_buf_release(&f->pend);
    free(f->label);
    free(f);
}

rc_sink *rc_sink_jsonl_new(const char *out, char *err, size_t cap)
{
    if (!out || !*out) {
        snprintf(err, cap, "--out: empty output directory");
        return NULL;
    }
    rc_sink *s = rc_xcalloc(1, sizeof *s);
    s->out = rc_xstrdup(out);
    s->fsync = RC_SINK_FSYNC_NONE;
    s->files = rc_strmap_new();
    return s;
}

void rc_sink_set_fsync(rc_sink *s, rc_sink_fsync policy)
{
    s->fsync = policy;
}

int rc_sink_fsync_parse(const char *name, rc_sink_fsync *ret)
{
    static const char *const names[] = {"none", "batch", "record"};
    for (int i = 0; i < 3; i++)
        if (strcmp(name, names[i]) == 0) {
            *ret = (rc_sink_fsync)i;
            return 0;
        }
    return -EINVAL;
}

static void commit_stop(rc_sink *s);

void rc_sink_free(rc_sink *s)
{
    if (!s)
        return;
    commit_stop(s);
    rc_strmap_free(s->files, jfile_free);
    free(s->touched);
    free(s->groups);
    free(s->out);
    free(s);
}
static char *dir_for(const rc_sink *s, const char *crawlid)
{
    return rc_crawlid_subst(s->out, crawlid);
}

char *rc_sink_path(const rc_sink *s, const char *crawlid, const char *kind)
{
    char *dir = dir_for(s, crawlid);
    char *path = rc_xasprintf("%s/%s.jsonl", dir, kind);
    free(dir);
    return path;
}

static int open_append(const char *path, char *err, size_t cap)
{
    int fd = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0)
        snprintf(err, cap, "cannot open %s: %s", path, strerror(errno));
    return fd < 0 ? -errno : fd;
}

static jfile *open_for(rc_sink *s, const char *crawlid, const char *kind, int *rc, char *err, size_t cap)
{
    char mapkey[160], why[160];
    /* {crawlid} becomes a path component: it must stay one (no "..", no '/'), whoever sent it. */
    if (rc_id_check(crawlid, RC_JOB_ID_MAX, why, sizeof why) < 0) {
        snprintf(err, cap, "crawlid '%.60s' cannot name a directory: %s", crawlid, why);
        *rc = -EINVAL;
        return NULL;
    }
    snprintf(mapkey, sizeof mapkey, "%s/%s", crawlid, kind);
    jfile *f = rc_strmap_get(s->files, mapkey);
    if (f)
        return f;
    char *dir = dir_for(s, crawlid);
    *rc = rc_mkdirs(dir);
    if (*rc < 0) {
        snprintf(err, cap, "cannot create output directory %s: %s", dir, strerror(-*rc));
        free(dir);
        return NULL;
    }
    char *path = rc_xasprintf("%s/%s.jsonl", dir, kind);
    char *ipath = rc_xasprintf("%s.ids", path);
    free(dir);
    int fd = open_append(path, err, cap), ifd = fd < 0 ? -1 : open_append(ipath, err, cap);
    free(path);
    free(ipath);
    if (fd < 0 || ifd < 0) {
        *rc = fd < 0 ? fd : ifd;
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    f = rc_xcalloc(1, sizeof *f);
    f->fd = fd;
    f->ifd = ifd;
    f->end_ok[0] = f->end_ok[1] = -1;
    f->label = rc_xasprintf("%s of job %s", kind, crawlid);
    rc_buf_init(&f->pend);
    rc_strmap_put(s->files, mapkey, f);
    return f;
}

/* A file must end with a complete line; a writer killed mid-line left a fragment: cut it off.
 * Returns the (new) size, or -errno. */
static off_t repair_tail(int fd, off_t end_ok)
{
    off_t end = lseek(fd, 0, SEEK_END);
    if (end <= 0)
        return end < 0 ? -errno : 0;
    if (end == end_ok)
        return end; /* as this sink left it, a line's end: nobody wrote since (a read per write saved) */
    char buf[4096];
    off_t pos = end;
    while (pos > 0) {
        size_t n = (size_t)RC_MIN((off_t)sizeof buf, pos);
        if (pread(fd, buf, n, pos - (off_t)n) != (ssize_t)n)
            return -EIO;
        for (size_t i = n; i > 0; i--) {
            if (buf[i - 1] != '\n')
                continue;
            off_t keep = pos - (off_t)n + (off_t)i;
            if (keep != end) {
                rc_warn(MOD, "a partial record at the end of an output file (a writer died mid-line): cut %lld bytes",
                        (long long)(end - keep));
                if (ftruncate(fd, keep) < 0)
                    return -errno;
            }
            return keep;
        }
        pos -= (off_t)n;
    }
    return ftruncate(fd, 0) < 0 ? -errno : 0;
}

/* Reads [from, to) of fd (malloc'd, NUL-terminated), NULL on error. */
static char *read_range(int fd, off_t from, off_t to)
{
    size_t n = (size_t)(to - from);
    char *buf = rc_xmalloc(n + 1);
    if (pread(fd, buf, n, from) != (ssize_t)n) {
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    return buf;
}

/* The _ids of the records in [from, to) of the data file (records not in the index). */
static void scan_records(jfile *f, off_t from, off_t to)
{
    char *buf = from < to ? read_range(f->fd, from, to) : NULL;
    for (char *line = buf; line && *line;) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        size_t idlen;
        const char *id = rc_tailids_record_id(line, &idlen);
        if (id) {
            line[id - line + idlen] = '\0';
            rc_strmap_put(f->ids, id, (void *)1);
        }
        line = nl ? nl + 1 : NULL;
    }
    free(buf);
}

/* Brings the in-memory _id set up to the data file's end (held under the lock). */
static void catch_up(jfile *f, off_t data_end)
{
    if (!f->ids)
        f->ids = rc_strmap_new();
    off_t iend = lseek(f->ifd, 0, SEEK_END);
    char *buf = iend > f->idx_read ? read_range(f->ifd, f->idx_read, iend) : NULL;
    for (char *line = buf; line;) {
        char *nl = strchr(line, '\n');
        if (!nl)
            break;
        *nl = '\0';
        long long a, b;
        int used = 0;
        if (sscanf(line, "%lld %lld %n", &a, &b, &used) == 2 && used > 0 && b <= data_end) {
            scan_records(f, f->covered, (off_t)a); /* a gap: records with no index line */
            rc_strmap_put(f->ids, line + used, (void *)1);
            f->covered = RC_MAX(f->covered, (off_t)b);
        }
        f->idx_read += nl + 1 - line;
        line = nl + 1;
    }
    free(buf);
    scan_records(f, f->covered, data_end);
    f->covered = RC_MAX(f->covered, data_end);
}

static int write_all(int fd, const char *p, size_t n)
{
    ssize_t w = write(fd, p, n);
    if (w < 0)
        return -errno;
    return (size_t)w == n ? 0 : -ENOSPC; /* a short write on a regular file: the disk is full */
}

static int sync_file(const jfile *f)
{
    return fdatasync(f->fd) < 0 || fdatasync(f->ifd) < 0 ? -errno : 0;
}

/* Takes a record for the file's next write. */
static void take(rc_sink *s, jfile *f, const char *id, const char *doc, size_t len, int maybe_dup, size_t group)
{
    if (f->n_recs == 0) {
        if (s->n_touched == s->cap_touched) {
            s->cap_touched = s->cap_touched ? s->cap_touched * 2 : 8;
            s->touched = rc_xrealloc(s->touched, s->cap_touched * sizeof *s->touched);
        }
        s->touched[s->n_touched++] = f;
    }
    if (f->n_recs == f->cap_recs) {
        f->cap_recs = f->cap_recs ? f->cap_recs * 2 : 16;
        f->recs = rc_xrealloc(f->recs, f->cap_recs * sizeof *f->recs);
    }
    f->recs[f->n_recs++] =
        (pend_rec){.at = f->pend.len, .len = len + 1, .id = rc_xstrdup(id), .maybe_dup = maybe_dup, .group = group};
    rc_buf_reserve(&f->pend, len + 1);
    rc_buf_append(&f->pend, doc, len);
    rc_buf_putc(&f->pend, '\n');
}

/* Under the lock, from the (repaired) end: the pending lines that are not redeliveries of a
 * stored _id, moved together at the front of pend, and their index lines into idx. Returns the
 * bytes to write. */
static size_t gather(jfile *f, off_t end, rc_buf *idx)
{
    size_t keep = 0;
    /* A redelivery among them: the _ids on disk first, then each line kept here is noted, so a
     * redelivery of a line before it in this very write is found too. */
    for (size_t i = 0; i < f->n_recs; i++)
        if (f->recs[i].maybe_dup) {
            catch_up(f, end);
            break;
        }
    for (size_t i = 0; i < f->n_recs; i++) {
        pend_rec *r = &f->recs[i];
        if (r->maybe_dup && rc_strmap_get(f->ids, r->id))
            continue; /* stored already (also by a line before it in this write) */
        if (keep != r->at)
            memmove(f->pend.ptr + keep, f->pend.ptr + r->at, r->len);
        rc_buf_printf(idx, "%lld %lld %s\n", (long long)(end + (off_t)keep), (long long)(end + (off_t)(keep + r->len)),
                      r->id);
        if (f->ids && !rc_strmap_get(f->ids, r->id)) {
            rc_strmap_put(f->ids, r->id, (void *)1);
            r->noted = 1;
        }
        keep += r->len;
    }
    return keep;
}

/* Under the lock: repair, look up (redeliveries), append the lines and their index lines, or
 * roll back. */
static int locked_write(rc_sink *s, jfile *f, char *err, size_t cap)
{
    off_t end = repair_tail(f->fd, f->end_ok[0]), iend = repair_tail(f->ifd, f->end_ok[1]);
    if (end < 0 || iend < 0) {
        snprintf(err, cap, "cannot repair the end of the file: %s", strerror((int)-(end < 0 ? end : iend)));
        return -EIO;
    }
    rc_buf idx;
    rc_buf_init(&idx);
    size_t n = gather(f, end, &idx);
    int r = n ? write_all(f->fd, f->pend.ptr, n) : 0;
    if (r == 0 && idx.len)
        r = write_all(f->ifd, idx.ptr, idx.len);
    f->end_ok[0] = r == 0 ? end + (off_t)n : -1;
    f->end_ok[1] = r == 0 ? iend + (off_t)idx.len : -1;
    rc_buf_release(&idx);
    if (r == 0 && n && s->fsync == RC_SINK_FSYNC_RECORD)
        r = sync_file(f);
    if (r < 0) {
        /* Roll back to the last complete record: no fragment stays for the next line to glue to. */
        int t1 = ftruncate(f->fd, end), t2 = ftruncate(f->ifd, iend);
        snprintf(err, cap, "%s (rolled back%s)", strerror(-r), t1 < 0 || t2 < 0 ? ", truncate FAILED" : "");
        for (size_t i = 0; i < f->n_recs; i++)
            if (f->recs[i].noted)
                rc_strmap_del(f->ids, f->recs[i].id);
        return r;
    }
    f->dirty |= n > 0;
    return 0;
}

/* The lock is held for microseconds; a writer stopped (SIGSTOP) while holding it must not stall
 * this worker's loop past its heartbeat: give up after 200 ms (the URL goes back, retried). */
static int lock_briefly(int fd)
{
    for (int i = 0; i < 200; i++) {
        if (flock(fd, LOCK_EX | LOCK_NB) == 0)
            return 0;
        if (errno != EWOULDBLOCK && errno != EINTR)
            return -errno;
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    return -EAGAIN;
}

/* Writes the file's pending lines (all or none) and forgets them; a failure marks their groups. */
static int write_pending(rc_sink *s, jfile *f, char *err, size_t cap)
{
    char why[300] = "";
    int r = lock_briefly(f->fd);
    if (r < 0) {
        snprintf(err, cap, "cannot lock the %s file: %s", f->label, strerror(-r));
    } else {
        r = locked_write(s, f, why, sizeof why);
        flock(f->fd, LOCK_UN);
        if (r < 0)
            snprintf(err, cap, "writing %s failed: %s", f->label, why);
    }
    for (size_t i = 0; i < f->n_recs; i++) {
        size_t g = f->recs[i].group;
        if (r < 0 && g < s->n_groups && s->groups[g].status == 0)
            s->groups[g].status = r;
        free(f->recs[i].id);
    }
    f->n_recs = 0;
    rc_buf_reset(&f->pend);
    return r;
}

/* Writes every file's pending lines. Returns how many files it touched (s->touched[0 .. n) stay
 * valid until the next take). */
static size_t write_touched(rc_sink *s)
{
    char err[512];
    size_t n = s->n_touched;
    for (size_t i = 0; i < n; i++)
        if (write_pending(s, s->touched[i], err, sizeof err) < 0 && !s->group_err[0])
            snprintf(s->group_err, sizeof s->group_err, "%s", err);
    s->n_touched = 0;
    return n;
}

int rc_sink_write(rc_sink *s, const char *crawlid, const char *kind, const char *id, const char *doc, size_t len,
                  int maybe_dup, char *err, size_t cap)
{
    int r = 0;
    jfile *f = open_for(s, crawlid, kind, &r, err, cap);
    if (!f)
        return r;
    write_touched(s); /* lines a store took go first, in order */
    take(s, f, id, doc, len, maybe_dup, SIZE_MAX);
    s->n_touched = 0;
    return write_pending(s, f, err, cap);
}

int rc_sink_flush(rc_sink *s, char *err, size_t cap)
{
    if (s->fsync != RC_SINK_FSYNC_BATCH)
        return 0;
    size_t it = 0;
    void *v;
    while (rc_strmap_next(s->files, &it, NULL, &v)) {
        jfile *f = v;
        if (!f->dirty)
            continue;
        int r = sync_file(f);
        if (r < 0) {
            snprintf(err, cap, "fsync of an output file failed: %s", strerror(-r));
            return r;
        }
        f->dirty = 0;
    }
    return 0;
}

/* ---- the group commit: the batch policy's syncs on a thread ------------------------------ */

static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int sync_fd(int fd, void *ud)
{
    (void)ud;
    return fdatasync(fd) < 0 ? -errno : 0;
}

/* Sync thread: takes the generation being gathered once it has waiters (and the interval since
 * the last sync began is over, or the sink stops), syncs its descriptors, reports. */
static void *commit_main(void *arg)
{
    commit *c = arg;
    double last = -1e9;
    pthread_mutex_lock(&c->mu);
    for (;;) {
        while (!c->wanted && !c->stopping)
            pthread_cond_wait(&c->wake, &c->mu);
        if (!c->wanted)
            break; /* stopping, nothing owed */
        double due = last + c->interval_s;
        while (!c->stopping && mono_s() < due) {
            struct timespec ts;
            clock_gettime(CLOCK_MONOTONIC, &ts);
            double left = due - mono_s();
            long long ns = (long long)ts.tv_nsec + (long long)(RC_MAX(left, 0.0) * 1e9);
            ts.tv_sec += (time_t)(ns / 1000000000);
            ts.tv_nsec = (long)(ns % 1000000000);
            pthread_cond_timedwait(&c->wake, &c->mu, &ts);
        }
        int *fds = c->fds;
        size_t n = c->n_fds;
        uint64_t gen = c->gathering++;
        c->fds = NULL;
        c->n_fds = c->cap_fds = 0;
        c->wanted = 0;
        pthread_mutex_unlock(&c->mu);
        last = mono_s();
        int st = 0;
        for (size_t i = 0; i < n; i++) {
            int r = c->sync_fn(fds[i], c->sync_ud);
            if (r < 0 && st == 0)
                st = r;
            close(fds[i]);
        }
        free(fds);
        pthread_mutex_lock(&c->mu);
        c->synced = gen;
        if (st < 0) {
            if (c->n_fails == c->cap_fails) {
                c->cap_fails = c->cap_fails ? c->cap_fails * 2 : 4;
                c->fails = rc_xrealloc(c->fails, c->cap_fails * sizeof *c->fails);
            }
            c->fails[c->n_fails++] = (commit_fail){gen, st};
            snprintf(c->fail_err, sizeof c->fail_err, "fsync of an output file failed: %s", strerror(-st));
        }
        pthread_mutex_unlock(&c->mu);
        ev_async_send(c->loop, &c->async);
        pthread_mutex_lock(&c->mu);
    }
    pthread_mutex_unlock(&c->mu);
    return NULL;
}

/* Loop thread: the done of every waiting group whose generation is synced, in put order. */
static void commit_deliver(rc_sink *s, int cancel)
{
    commit *c = s->commit;
    pthread_mutex_lock(&c->mu);
    uint64_t synced = c->synced;
    commit_fail *fails = c->fails;
    size_t n_fails = c->n_fails;
    char fail_err[sizeof c->fail_err];
    memcpy(fail_err, c->fail_err, sizeof fail_err);
    c->fails = NULL;
    c->n_fails = c->cap_fails = 0;
    pthread_mutex_unlock(&c->mu);
    size_t k = 0;
    while (k < c->n_wait && (cancel || c->wait[k].gen <= synced))
        k++;
    /* The callbacks may put more (into the turn's list, not this one): take them out first. */
    pend_group *ready = NULL;
    if (k) {
        ready = rc_xmalloc(k * sizeof *ready);
        memcpy(ready, c->wait, k * sizeof *ready);
        memmove(c->wait, c->wait + k, (c->n_wait - k) * sizeof *c->wait);
        c->n_wait -= k;
        if (c->n_wait == 0)
            ev_unref(c->loop); /* nothing owed: the watcher must not keep the loop alive */
    }
    for (size_t i = 0; i < k; i++) {
        pend_group *g = &ready[i];
        int st = g->status;
        const char *err = g->err;
        for (size_t j = 0; st == 0 && j < n_fails; j++)
            if (fails[j].gen == g->gen) {
                st = fails[j].status;
                err = fail_err;
            }
        if (cancel) {
            st = -ECANCELED;
            err = "the worker is stopping";
        }
        /* not known to be on disk: it goes back, a redelivery */
        g->done(g->ud, st == -ECANCELED ? st : st < 0 ? -EIO : 0, st < 0 ? err : NULL);
        free(g->err);
    }
    free(ready);
    free(fails);
}

static void on_commit_async(struct ev_loop *loop, ev_async *w, int revents)
{
    (void)loop;
    (void)revents;
    commit_deliver(w->data, 0);
}

/* Loop thread, under mu: a duplicate of fd joins the generation being gathered. 0 or -errno. */
static int commit_add_locked(commit *c, int fd)
{
    int d = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    if (d < 0)
        return -errno;
    if (c->n_fds == c->cap_fds) {
        c->cap_fds = c->cap_fds ? c->cap_fds * 2 : 8;
        c->fds = rc_xrealloc(c->fds, c->cap_fds * sizeof *c->fds);
    }
    c->fds[c->n_fds++] = d;
    return 0;
}

/* Loop thread, after a turn's writes: the files it touched join the generation being gathered
 * (everything written to them so far is covered by its sync), the turn's groups wait for it. */
static void commit_enqueue(rc_sink *s, size_t n_touched)
{
    commit *c = s->commit;
    pthread_mutex_lock(&c->mu);
    uint64_t gen = c->gathering;
    for (size_t i = 0; i < n_touched; i++) {
        jfile *f = s->touched[i];
        if (f->commit_gen == gen)
            continue;
        f->commit_gen = gen;
        int fds[2] = {f->fd, f->ifd};
        for (int j = 0; j < 2; j++) {
            if (commit_add_locked(c, fds[j]) < 0) {
                /* out of descriptors: sync it here rather than not at all (a failure fails the
                 * generation like the thread's) */
                int r = c->sync_fn(fds[j], c->sync_ud);
                if (r < 0) {
                    for (size_t g = 0; g < s->n_groups; g++)
                        if (s->groups[g].status == 0)
                            s->groups[g].status = r;
                    if (!s->group_err[0])
                        snprintf(s->group_err, sizeof s->group_err, "fsync of an output file failed: %s", strerror(-r));
                }
            }
        }
    }
    c->wanted = 1;
    pthread_cond_signal(&c->wake);
    pthread_mutex_unlock(&c->mu);
    if (c->n_wait == 0 && s->n_groups)
        ev_ref(c->loop);
    for (size_t i = 0; i < s->n_groups; i++) {
        if (c->n_wait == c->cap_wait) {
            c->cap_wait = c->cap_wait ? c->cap_wait * 2 : 64;
            c->wait = rc_xrealloc(c->wait, c->cap_wait * sizeof *c->wait);
        }
        pend_group g = s->groups[i];
        g.gen = gen;
        g.err = g.status < 0 ? rc_xstrdup(s->group_err) : NULL;
        c->wait[c->n_wait++] = g;
    }
    s->n_groups = 0;
    s->group_err[0] = '\0';
}

int rc_sink_commit_start(rc_sink *s, struct ev_loop *loop, double interval_s, char *err, size_t cap)
{
    if (s->fsync != RC_SINK_FSYNC_BATCH || s->commit)
        return 0;
    commit *c = rc_xcalloc(1, sizeof *c);
    c->loop = loop;
    c->interval_s = interval_s;
    c->sync_fn = sync_fd;
    c->gathering = 1;
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_mutex_init(&c->mu, NULL);
    pthread_cond_init(&c->wake, &ca);
    pthread_condattr_destroy(&ca);
    ev_async_init(&c->async, on_commit_async);
    c->async.data = s;
    ev_async_start(loop, &c->async);
    ev_unref(loop); /* only waiting groups keep the loop alive */
    int r = pthread_create(&c->thread, NULL, commit_main, c);
    if (r != 0) {
        snprintf(err, cap, "cannot start the JSON Lines sync thread: %s", strerror(r));
        ev_ref(loop);
        ev_async_stop(loop, &c->async);
        pthread_cond_destroy(&c->wake);
        pthread_mutex_destroy(&c->mu);
        free(c);
        return -r;
    }
    pthread_setname_np(c->thread, "rc-jsonl-sync");
    s->commit = c;
    return 0;
}

int rc_sink_commit_add(rc_sink *s, int fd)
{
    commit *c = s->commit;
    if (!c)
        return -ENOTSUP;
    struct stat st;
    if (fstat(fd, &st) < 0)
        return -errno;
    int r = 0;
    pthread_mutex_lock(&c->mu);
    if (c->other_gen != c->gathering) {
        c->other_gen = c->gathering;
        c->n_others = 0;
    }
    size_t i = 0;
    while (i < c->n_others && (c->others[i].st_dev != st.st_dev || c->others[i].st_ino != st.st_ino))
        i++;
    if (i == c->n_others && (r = commit_add_locked(c, fd)) == 0) {
        if (c->n_others == c->cap_others) {
            c->cap_others = c->cap_others ? c->cap_others * 2 : 4;
            c->others = rc_xrealloc(c->others, c->cap_others * sizeof *c->others);
        }
        c->others[c->n_others++] = st;
    }
    pthread_mutex_unlock(&c->mu);
    return r;
}

void rc_sink_commit_set_sync(rc_sink *s, int (*fn)(int fd, void *ud), void *ud)
{
    if (!s->commit)
        return;
    pthread_mutex_lock(&s->commit->mu);
    s->commit->sync_fn = fn ? fn : sync_fd;
    s->commit->sync_ud = ud;
    pthread_mutex_unlock(&s->commit->mu);
}

/* The thread syncs what is owed and ends; the groups still waiting hear -ECANCELED, synced or
 * not (as the lines of a turn that never ended: not acknowledged, a redelivery finds them). */
static void commit_stop(rc_sink *s)
{
    commit *c = s->commit;
    if (!c)
        return;
    pthread_mutex_lock(&c->mu);
    c->stopping = 1;
    pthread_cond_signal(&c->wake);
    pthread_mutex_unlock(&c->mu);
    pthread_join(c->thread, NULL);
    if (c->n_wait)
        commit_deliver(s, 1);
    for (size_t i = 0; i < c->n_fds; i++)
        close(c->fds[i]);
    ev_ref(c->loop);
    ev_async_stop(c->loop, &c->async);
    pthread_cond_destroy(&c->wake);
    pthread_mutex_destroy(&c->mu);
    free(c->fds);
    free(c->fails);
    free(c->wait);
    free(c->others);
    free(c);
    s->commit = NULL;
}

/* ---- as an rc_store: put takes the group, turn writes it ------------------------------ */

/* Writes what the turn took, then tells each group (in order) how it went. */
static void jsonl_turn(void *impl)
{
    rc_sink *s = impl;
    if (!s->n_groups && !s->n_touched)
        return;
    size_t n_touched = write_touched(s);
    if (s->commit) {
        commit_enqueue(s, n_touched); /* acknowledged once a sync covers them */
        return;
    }
    char err[512] = "";
    int synced = rc_sink_flush(s, err, sizeof err); /* batch: one fdatasync for the turn's lines */
    /* The callbacks may store more (a page whose store failed is completed, not stored again,
     * but keep the list stable anyway): take the list first. */
    pend_group *groups = s->groups;
    size_t n = s->n_groups;
    char group_err[sizeof s->group_err];
    memcpy(group_err, s->group_err, sizeof group_err);
    s->groups = NULL;
    s->n_groups = s->cap_groups = 0;
    s->group_err[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        int st = groups[i].status < 0 ? groups[i].status : synced < 0 ? synced : 0;
        /* not known to be on disk: it goes back, a redelivery */
        groups[i].done(groups[i].ud, st < 0 ? -EIO : 0, groups[i].status < 0 ? group_err : err);
    }
    free(groups);
}

static int jsonl_put(void *impl, const rc_write_group *g, rc_store_done done, void *ud, char *err, size_t cap)
{
    rc_sink *s = impl;
    int r = 0;
    jfile *pages = open_for(s, g->crawlid, "pages", &r, err, cap);
    jfile *items = pages && g->n > g->n_pages ? open_for(s, g->crawlid, "items", &r, err, cap) : NULL;
    if (!pages || (g->n > g->n_pages && !items))
        return -EIO;
    if (s->n_groups == s->cap_groups) {
        s->cap_groups = s->cap_groups ? s->cap_groups * 2 : 16;
        s->groups = rc_xrealloc(s->groups, s->cap_groups * sizeof *s->groups);
    }
    s->groups[s->n_groups] = (pend_group){.done = done, .ud = ud};
    for (size_t i = 0; i < g->n; i++)
        take(s, i >= g->n_pages ? items : pages, g->docs[i].id, g->docs[i].json, g->docs[i].len,
             g->maybe_dup && !g->docs[i].supersedes, s->n_groups);
    s->n_groups++;
    if (s->fsync == RC_SINK_FSYNC_RECORD)
        jsonl_turn(s); /* each record on disk before anything else happens */
    return 0;
}

static size_t jsonl_pending(const void *impl)
{
    const rc_sink *s = impl;
    return s->n_groups + (s->commit ? s->commit->n_wait : 0);
}

/* What the last turn took is written; the groups hear -ECANCELED (their pages were not
 * acknowledged: a redelivery finds the lines by their _ids). */
static void jsonl_free(void *impl)
{
    rc_sink *s = impl;
    write_touched(s);
    commit_stop(s); /* the groups written before hear how their sync went */
    for (size_t i = 0; i < s->n_groups; i++)
        s->groups[i].done(s->groups[i].ud, -ECANCELED, "the worker is stopping");
    s->n_groups = 0;
    rc_sink_free(s);
}

static const rc_store_ops jsonl_ops = {"jsonl", jsonl_put, jsonl_pending, jsonl_free, jsonl_turn};

rc_store rc_sink_jsonl_store(rc_sink *s)
{
    return (rc_store){.ops = &jsonl_ops, .impl = s};
}
