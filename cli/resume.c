/* resume.c - see resume.h. */
#include "resume.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "util.h"

#define STATE_FILE "crawl.json"
#define STATE_VERSION 1

char *rc_resume_file(const char *out)
{
    return rc_xasprintf("%s/" STATE_FILE, out);
}

char *rc_resume_redis_dir(const char *out)
{
    return rc_xasprintf("%s/redis", out);
}

static const rc_conf_row *row_named(const rc_conf_row *rows, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(rows[i].name, name) == 0)
            return &rows[i];
    return NULL;
}

json_t *rc_resume_row_json(const rc_conf_row *row, const void *conf)
{
    const char *p = (const char *)conf + row->offset;
    switch (row->type) {
    case RC_CONF_INT:
        return json_integer(*(const int64_t *)p);
    case RC_CONF_BOOL:
        return json_boolean(*(const int *)p);
    case RC_CONF_DOUBLE: {
        double d;
        memcpy(&d, p, sizeof d);
        return json_real(d);
    }
    case RC_CONF_STR:
        return *(char *const *)p ? json_string(*(char *const *)p) : NULL;
    case RC_CONF_LIST: {
        const rc_strlist *l = (const rc_strlist *)p;
        json_t *a = json_array();
        for (size_t i = 0; i < l->n; i++)
            json_array_append_new(a, json_string(l->v[i]));
        return a;
    }
    }
    return NULL;
}

/* A URL with credentials ("scheme://user:pass@host/...") is not written to disk. */
static int has_credentials(const char *s)
{
    const char *scheme = strstr(s, "://");
    if (!scheme)
        return 0;
    const char *host = scheme + 3;
    return memchr(host, '@', strcspn(host, "/?#")) != NULL;
}

void rc_resume_capture(rc_resume *st, const rc_conf_row *rows, size_t n, const void *conf, const char *crawlid,
                       char *const *urls, size_t n_urls)
{
    memset(st, 0, sizeof *st);
    st->crawlid = rc_xstrdup(crawlid);
    st->state = rc_xstrdup(RC_RESUME_RUNNING);
    st->options = json_object();
    rc_buf skipped;
    rc_buf_init(&skipped);
    for (size_t i = 0; i < n; i++) {
        if (strcmp(rows[i].name, "out") == 0 || strcmp(rows[i].name, "resume") == 0)
            continue;
        json_t *v = rc_resume_row_json(&rows[i], conf);
        if (v && json_is_string(v) && has_credentials(json_string_value(v))) {
            rc_buf_printf(&skipped, "%s%s", skipped.len ? "," : "", rows[i].name);
            json_decref(v);
            continue;
        }
        if (v)
            json_object_set_new(st->options, rows[i].name, v);
    }
    st->not_saved = skipped.len ? rc_xstrdup(skipped.ptr) : NULL;
    rc_buf_release(&skipped);
    st->urls = rc_xcalloc(n_urls + 1, sizeof *st->urls);
    for (size_t i = 0; i < n_urls; i++)
        st->urls[i] = rc_xstrdup(urls[i]);
    st->n_urls = n_urls;
}

void rc_resume_release(rc_resume *st)
{
    free(st->crawlid);
    free(st->state);
    for (size_t i = 0; i < st->n_urls; i++)
        free(st->urls[i]);
    free(st->urls);
    json_decref(st->options);
    free(st->not_saved);
    memset(st, 0, sizeof *st);
}

static json_t *to_json(const rc_resume *st)
{
    json_t *urls = json_array();
    for (size_t i = 0; i < st->n_urls; i++)
        json_array_append_new(urls, json_string(st->urls[i]));
    json_t *doc = json_pack("{s:i, s:s, s:s, s:b, s:o, s:O}", "version", STATE_VERSION, "crawlid", st->crawlid, "state",
                            st->state, "seeds_sent", st->seeds_sent, "urls", urls, "options", st->options);
    if (doc && st->not_saved)
        json_object_set_new(doc, "not_saved", json_string(st->not_saved));
    return doc;
}

int rc_resume_save(const char *out, const rc_resume *st, char *err, size_t cap)
{
    char *path = rc_resume_file(out), *tmp = rc_xasprintf("%s.tmp", path);
    json_t *doc = to_json(st);
    int rc = doc && json_dump_file(doc, tmp, JSON_INDENT(1) | JSON_SORT_KEYS) == 0 ? 0 : -EIO;
    if (rc == 0 && rename(tmp, path) < 0)
        rc = -errno;
    if (rc < 0) {
        snprintf(err, cap, "cannot write %s: %s", path, strerror(-rc));
        unlink(tmp);
    }
    json_decref(doc);
    free(tmp);
    free(path);
    return rc;
}

/* st's members from a parsed crawl.json. 0, or -EINVAL with err. */
static int from_json(json_t *doc, rc_resume *st, char *err, size_t cap)
{
    json_t *urls = NULL, *options = NULL;
    const char *crawlid = NULL, *state = NULL, *not_saved = NULL;
    int version = 0, sent = 0;
    json_error_t jerr;
    if (json_unpack_ex(doc, &jerr, 0, "{s:i, s:s, s:s, s:b, s:o, s:o, s?s}", "version", &version, "crawlid", &crawlid,
                       "state", &state, "seeds_sent", &sent, "urls", &urls, "options", &options, "not_saved",
                       &not_saved) < 0 ||
        !json_is_array(urls) || !json_is_object(options)) {
        snprintf(err, cap, "%s", jerr.text[0] ? jerr.text : "urls must be an array, options an object");
        return -EINVAL;
    }
    if (version != STATE_VERSION) {
        snprintf(err, cap, "version %d, this redcrawl reads version %d", version, STATE_VERSION);
        return -EINVAL;
    }
    st->crawlid = rc_xstrdup(crawlid);
    st->state = rc_xstrdup(state);
    st->seeds_sent = sent;
    st->not_saved = not_saved ? rc_xstrdup(not_saved) : NULL;
    st->options = json_incref(options);
    st->urls = rc_xcalloc(json_array_size(urls) + 1, sizeof *st->urls);
    for (size_t i = 0; i < json_array_size(urls); i++)
        if (json_is_string(json_array_get(urls, i)))
            st->urls[st->n_urls++] = rc_xstrdup(json_string_value(json_array_get(urls, i)));
    return 0;
}

int rc_resume_load(const char *out, rc_resume *st, char *err, size_t cap)
{
    memset(st, 0, sizeof *st);
    char *path = rc_resume_file(out);
    json_error_t jerr;
    json_t *doc = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr);
    int rc = 0;
    if (!doc) {
        rc = access(path, F_OK) < 0 ? -errno : -EINVAL;
        snprintf(err, cap, "%s: %s", path, rc == -EINVAL ? jerr.text : strerror(-rc));
    } else {
        char why[300];
        rc = from_json(doc, st, why, sizeof why);
        if (rc < 0)
            snprintf(err, cap, "%s: %s", path, why);
    }
    json_decref(doc);
    free(path);
    if (rc < 0)
        rc_resume_release(st);
    return rc;
}

int rc_resume_mark(const char *out, const char *state, int seeds_sent, char *err, size_t cap)
{
    rc_resume st;
    int rc = rc_resume_load(out, &st, err, cap);
    if (rc < 0)
        return rc;
    free(st.state);
    st.state = rc_xstrdup(state);
    if (seeds_sent >= 0)
        st.seeds_sent = seeds_sent;
    rc = rc_resume_save(out, &st, err, cap);
    rc_resume_release(&st);
    return rc;
}

static void clear_list(const rc_conf_row *row, void *conf)
{
    rc_strlist *l = (rc_strlist *)((char *)conf + row->offset);
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
    l->v = NULL;
    l->n = 0;
}

/* Sets a row of conf from its JSON value (a list replaced). 0, or -EINVAL with err. */
static int set_json(const rc_conf_row *row, void *conf, const json_t *v, char *err, size_t cap)
{
    char text[64];
    if (row->type == RC_CONF_LIST) {
        clear_list(row, conf);
        int rc = json_is_array(v) ? 0 : -EINVAL;
        for (size_t i = 0; rc == 0 && i < json_array_size(v); i++) {
            const json_t *e = json_array_get(v, i);
            rc = json_is_string(e) ? rc_conf_set(row, 1, conf, row->name, json_string_value(e), err, cap) : -EINVAL;
        }
        if (rc < 0 && json_is_array(v))
            snprintf(err, cap, "--%s: a list of strings expected", row->name);
        return rc;
    }
    if (json_is_string(v))
        return rc_conf_set(row, 1, conf, row->name, json_string_value(v), err, cap);
    if (json_is_integer(v))
        snprintf(text, sizeof text, "%lld", (long long)json_integer_value(v));
    else if (json_is_real(v))
        snprintf(text, sizeof text, "%.17g", json_real_value(v));
    else if (json_is_boolean(v))
        snprintf(text, sizeof text, "%d", json_is_true(v));
    else {
        snprintf(err, cap, "--%s: a value of the wrong type", row->name);
        return -EINVAL;
    }
    return rc_conf_set(row, 1, conf, row->name, text, err, cap);
}

int rc_resume_apply(const rc_resume *st, const rc_conf_row *rows, size_t n, void *conf, char *err, size_t cap)
{
    const char *name;
    json_t *v;
    json_object_foreach (st->options, name, v) {
        const rc_conf_row *row = row_named(rows, n, name);
        if (!row) {
            snprintf(err, cap, "an option this redcrawl does not know: --%s", name);
            return -EINVAL;
        }
        int rc = set_json(row, conf, v, err, cap);
        if (rc < 0)
            return rc;
    }
    return 0;
}

void rc_resume_copy_option(const rc_conf_row *rows, size_t n, const char *name, const void *from, void *to)
{
    char err[256];
    const rc_conf_row *row = row_named(rows, n, name);
    json_t *v = row ? rc_resume_row_json(row, from) : NULL;
    if (v)
        set_json(row, to, v, err, sizeof err); /* a value conf held already: it sets again */
    json_decref(v);
}

int rc_resume_same(const rc_resume *st, const rc_conf_row *rows, size_t n, const char *name, const void *conf)
{
    const rc_conf_row *row = row_named(rows, n, name);
    json_t *v = row ? rc_resume_row_json(row, conf) : NULL, *saved = json_object_get(st->options, name);
    int same = (!v && !saved) || (v && saved && json_equal(v, saved));
    if (v && saved && !same && json_is_number(v) && json_is_number(saved))
        same = json_number_value(v) == json_number_value(saved); /* 5 and 5.0 */
    json_decref(v);
    return same;
}

int rc_resume_given(const rc_conf_row *rows, size_t n, int optind, char **argv, const char *name)
{
    for (int i = 1; i < optind; i++) {
        const char *a = argv[i];
        if (strncmp(a, "--", 2) != 0)
            continue;
        size_t len = strcspn(a + 2, "=");
        const rc_conf_row *row = NULL;
        for (size_t k = 0; k < n && !row; k++)
            if (strlen(rows[k].name) == len && strncmp(rows[k].name, a + 2, len) == 0)
                row = &rows[k];
        if (row && strcmp(row->name, name) == 0)
            return 1;
        if (row && row->type != RC_CONF_BOOL && !a[2 + len])
            i++; /* its value */
    }
    return 0;
}

/* OUT's lock and who holds it. The lock is flock on OUT, inherited by every child of the crawl
 * (resume.h): Redis with its file open, a worker appending pages, each holds it until its last
 * thread is gone. After a kill they may still be ending: a Redis SIGKILLed with the crawl
 * lingers, its main thread a zombie, while its fsync thread finishes an fsync (state D, a
 * second or more on a busy disk); after a kill of the crawl's process alone, its children end on
 * their parent-death SIGTERM (proc.c), Redis writing its file first. A crawl started then was
 * refused. Waiting for the lock would make a second crawl wait for a live one too, so the
 * crawl's main process notes itself in OUT/crawl.pid (pid, start time, pid namespace) once it
 * holds the lock, and a crawl that finds OUT locked looks at that process: gone, a zombie or
 * being killed, its crawl is over and what holds the lock is ending (its children die with
 * it): worth waiting for (lock_out in crawl.c, bounded, the file read again at each try, so a
 * crawl that has just taken the lock is seen); alive, or not known, a running crawl: refused at
 * once. The main process alone decides: the children of a crawl killed alone are alive and
 * running (Redis shutting down), so a list of every holder would not tell that crawl from a
 * live one. A lock of the main process alone (O_CLOEXEC) would free OUT while the killed
 * crawl's Redis and workers still write there: each would then be waited for by pid. */
#define HOLDER_FILE "crawl.pid"

/* The identity a process keeps for its life: its pid, its start (clock ticks after boot,
 * /proc/PID/stat field 22) against the pid's reuse, and its pid namespace (another's pids mean
 * nothing here). */
typedef struct holder {
    long pid;
    unsigned long long start, ns;
} holder;

/* Process pid's state letter and start time from /proc/PID/stat. 0, or -errno (-ENOENT: gone). */
static int read_stat(long pid, char *state, unsigned long long *start)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -errno;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *paren = strrchr(buf, ')'); /* the command name may hold anything */
    if (!paren || sscanf(paren + 1, " %c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %llu",
                         state, start) != 2)
        return -EINVAL;
    return 0;
}

/* This process' pid namespace (its inode), or 0 when /proc does not say. */
static unsigned long long pid_ns(void)
{
    char link[64];
    ssize_t n = readlink("/proc/self/ns/pid", link, sizeof link - 1);
    unsigned long long ns = 0;
    if (n > 0) {
        link[n] = '\0';
        sscanf(link, "pid:[%llu]", &ns);
    }
    return ns;
}

/* Notes this process as OUT's holder (a file renamed in: a reader sees a whole record). A
 * failure is not said: the next crawl finding OUT locked then refuses, as for a live crawl. */
static void note_holder(const char *out)
{
    holder h = {(long)getpid(), 0, pid_ns()};
    char state;
    if (read_stat(h.pid, &state, &h.start) < 0)
        return;
    char *path = rc_xasprintf("%s/" HOLDER_FILE, out), *tmp = rc_xasprintf("%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    int ok = f && fprintf(f, "%ld %llu %llu\n", h.pid, h.start, h.ns) > 0;
    if (f && fclose(f) != 0)
        ok = 0;
    if (!ok || rename(tmp, path) < 0)
        unlink(tmp);
    free(tmp);
    free(path);
}

/* Whether process pid's SIGKILL is pending (sent, not yet acted on: a thread still in the
 * kernel), from /proc/PID/status. */
static int kill_pending(long pid)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%ld/status", pid);
    FILE *f = fopen(path, "r");
    unsigned long long mask;
    int pending = 0;
    while (f && !pending && fgets(line, sizeof line, f))
        if ((sscanf(line, "SigPnd: %llx", &mask) == 1 || sscanf(line, "ShdPnd: %llx", &mask) == 1) &&
            (mask & (1ULL << (SIGKILL - 1))))
            pending = 1;
    if (f)
        fclose(f);
    return pending;
}

/* What OUT/crawl.pid says of OUT's holder, its pid in *ret_pid: 1 gone, a zombie (a SIGKILLed
 * process is one while another of its threads ends) or being killed; 0 alive; -1 not known (no
 * file, another pid namespace). */
static int holder_gone(const char *out, long *ret_pid)
{
    char *path = rc_xasprintf("%s/" HOLDER_FILE, out);
    FILE *f = fopen(path, "r");
    free(path);
    holder h = {0, 0, 0};
    int n = f ? fscanf(f, "%ld %llu %llu", &h.pid, &h.start, &h.ns) : 0;
    if (f)
        fclose(f);
    if (n != 3 || h.pid <= 0 || !h.ns || h.ns != pid_ns())
        return -1;
    *ret_pid = h.pid;
    char state;
    unsigned long long start;
    int rc = read_stat(h.pid, &state, &start);
    if (rc == -ENOENT || (rc == 0 && start != h.start))
        return 1; /* gone (the pid another's, or no one's) */
    if (rc < 0)
        return -1;
    return state == 'Z' || state == 'X' || kill_pending(h.pid);
}

int rc_resume_lock(const char *out, char *err, size_t cap)
{
    int rc = rc_mkdirs(out);
    /* no O_CLOEXEC: the children hold the lock too (resume.h) */
    int fd = rc < 0 ? rc : open(out, O_RDONLY | O_DIRECTORY);
    if (fd < 0) {
        rc = rc < 0 ? rc : -errno;
        snprintf(err, cap, "cannot open %s: %s", out, strerror(-rc));
        return rc;
    }
    if (flock(fd, LOCK_EX | LOCK_NB) == 0) {
        note_holder(out);
        return fd;
    }
    rc = errno == EWOULDBLOCK ? -EBUSY : -errno;
    long pid = 0;
    int gone = rc == -EBUSY ? holder_gone(out, &pid) : -1;
    if (gone == 1) {
        rc = -EAGAIN;
        snprintf(err, cap, "%s is still held by the processes of a killed crawl (pid %ld)", out, pid);
    } else if (gone == 0)
        snprintf(err, cap, "%s is in use by another redcrawl crawl (pid %ld)", out, pid);
    else if (rc == -EBUSY)
        snprintf(err, cap, "%s is in use by another redcrawl crawl (or its processes are still ending)", out);
    else
        snprintf(err, cap, "cannot lock %s: %s", out, strerror(-rc));
    close(fd);
    return rc;
}

void rc_resume_unlock(const char *out, int fd)
{
    char *path = rc_xasprintf("%s/" HOLDER_FILE, out);
    unlink(path);
    free(path);
    close(fd);
}

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path) < 0 ? -errno : 0;
}

int rc_resume_drop_redis(const char *out)
{
    char *dir = rc_resume_redis_dir(out);
    int rc = access(dir, F_OK) < 0 ? 0 : nftw(dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    free(dir);
    return rc;
}
