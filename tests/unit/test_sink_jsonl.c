/* test_sink_jsonl.c - the JSON Lines sink's honesty: a fragment left by a killed writer is cut
 * off, redeliveries are found through the _id index (also for records whose index line is
 * missing), and a write that does not fit (RLIMIT_FSIZE: the kernel's short write, as on a full
 * disk) is rolled back whole. As a store, nothing is written (nor acknowledged) before the loop
 * turn's end, which writes the turn's lines at once and then runs the groups' done. With the
 * group commit (--fsync batch), done waits for the sync thread's sync of every file the groups
 * touched: a sync held back holds the acknowledgements, a failed one fails its groups. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <ev.h>

#include "rc_test.h"
#include "sink.h"
#include "util.h"

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return rc_xstrdup("");
    rc_buf b;
    rc_buf_init(&b);
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        rc_buf_append(&b, buf, n);
    fclose(f);
    rc_buf_putc(&b, '\0');
    return rc_buf_steal(&b);
}

static void append_raw(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_APPEND);
    RC_CHECK(fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text));
    close(fd);
}

static int put(rc_sink *s, const char *id, int maybe_dup)
{
    char doc[128], err[256];
    snprintf(doc, sizeof doc, "{\"_id\":\"%s\",\"url\":\"http://x.test/%s\"}", id, id);
    return rc_sink_write(s, "job", "pages", id, doc, strlen(doc), maybe_dup, err, sizeof err);
}

typedef struct heard {
    int n, status[32];
} heard;

static void on_done(void *ud, int status, const char *err)
{
    heard *h = ud;
    if (h->n < 32)
        h->status[h->n] = status;
    h->n++;
}

static void store_put(rc_store *st, const char *id, const char *item, int maybe_dup, heard *h)
{
    char doc[128], idoc[128], err[256];
    snprintf(doc, sizeof doc, "{\"_id\":\"%s\"}", id);
    rc_store_doc docs[2] = {{.id = id, .json = doc, .len = strlen(doc)}};
    if (item) {
        snprintf(idoc, sizeof idoc, "{\"_id\":\"%s\"}", item);
        docs[1] = (rc_store_doc){.id = item, .json = idoc, .len = strlen(idoc)};
    }
    rc_write_group g = {.crawlid = "job", .docs = docs, .n = item ? 2 : 1, .n_pages = 1, .maybe_dup = maybe_dup};
    RC_CHECK_INT_EQ(st->ops->put(st->impl, &g, on_done, h, err, sizeof err), 0);
}

/* The store's turn: puts are held until it, written together, acknowledged after. */
static void store_turns(const char *dir)
{
    char err[256], path[800];
    rc_sink *s = rc_sink_jsonl_new(dir, err, sizeof err);
    rc_store st = rc_sink_jsonl_store(s);
    heard h = {0};
    store_put(&st, "p1", "i1", 0, &h);
    store_put(&st, "p2", NULL, 0, &h);
    store_put(&st, "p1", NULL, 1, &h); /* a redelivery of p1 in the same turn: written once */
    RC_CHECK_INT_EQ(st.ops->pending(st.impl), 3);
    snprintf(path, sizeof path, "%s/pages.jsonl", dir);
    char *text = slurp(path);
    RC_CHECK_STR_EQ(text, ""); /* nothing written, nothing acknowledged before the turn ends */
    free(text);
    RC_CHECK_INT_EQ(h.n, 0);
    st.ops->turn(st.impl);
    RC_CHECK_INT_EQ(h.n, 3);
    RC_CHECK(h.status[0] == 0 && h.status[1] == 0 && h.status[2] == 0);
    RC_CHECK_INT_EQ(st.ops->pending(st.impl), 0);
    text = slurp(path);
    RC_CHECK_STR_EQ(text, "{\"_id\":\"p1\"}\n{\"_id\":\"p2\"}\n");
    free(text);
    snprintf(path, sizeof path, "%s/pages.jsonl.ids", dir);
    text = slurp(path);
    RC_CHECK_STR_EQ(text, "0 13 p1\n13 26 p2\n");
    free(text);
    snprintf(path, sizeof path, "%s/items.jsonl", dir);
    text = slurp(path);
    RC_CHECK_STR_EQ(text, "{\"_id\":\"i1\"}\n");
    free(text);
    /* A turn whose write fails: every group of it hears the failure, nothing of it stays. */
    struct rlimit rl = {30, 30}, old;
    getrlimit(RLIMIT_FSIZE, &old);
    rl.rlim_max = old.rlim_max;
    RC_CHECK_INT_EQ(setrlimit(RLIMIT_FSIZE, &rl), 0);
    store_put(&st, "p3", NULL, 0, &h);
    store_put(&st, "p4", NULL, 0, &h);
    st.ops->turn(st.impl);
    setrlimit(RLIMIT_FSIZE, &old);
    RC_CHECK_INT_EQ(h.n, 5);
    RC_CHECK(h.status[3] < 0 && h.status[4] < 0);
    snprintf(path, sizeof path, "%s/pages.jsonl", dir);
    text = slurp(path);
    RC_CHECK_STR_EQ(text, "{\"_id\":\"p1\"}\n{\"_id\":\"p2\"}\n");
    free(text);
    /* Lines taken when the worker stops are written, and their groups told they were not
     * acknowledged (a redelivery finds them). */
    store_put(&st, "p3", NULL, 1, &h);
    st.ops->free(st.impl);
    RC_CHECK_INT_EQ(h.n, 6);
    RC_CHECK_INT_EQ(h.status[5], -ECANCELED);
    text = slurp(path);
    RC_CHECK_STR_EQ(text, "{\"_id\":\"p1\"}\n{\"_id\":\"p2\"}\n{\"_id\":\"p3\"}\n");
    free(text);
}

/* The commit thread's sync, held back until the test opens the gate; it notes which files
 * (inodes) it synced and fails when told to. */
typedef struct gate {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int open, fail, calls;
    ino_t inos[64];
} gate;

static int gated_sync(int fd, void *ud)
{
    gate *g = ud;
    pthread_mutex_lock(&g->mu);
    while (!g->open)
        pthread_cond_wait(&g->cv, &g->mu);
    struct stat st;
    if (fstat(fd, &st) == 0 && g->calls < 64)
        g->inos[g->calls] = st.st_ino;
    g->calls++;
    int r = g->fail ? -EIO : fdatasync(fd) < 0 ? -errno : 0;
    pthread_mutex_unlock(&g->mu);
    return r;
}

static void gate_set(gate *g, int open, int fail)
{
    pthread_mutex_lock(&g->mu);
    g->open = open;
    g->fail = fail;
    pthread_cond_broadcast(&g->cv);
    pthread_mutex_unlock(&g->mu);
}

static int gate_calls(gate *g)
{
    pthread_mutex_lock(&g->mu);
    int n = g->calls;
    pthread_mutex_unlock(&g->mu);
    return n;
}

static int synced_file(gate *g, int upto, const char *path)
{
    struct stat st;
    if (stat(path, &st) < 0)
        return 0;
    pthread_mutex_lock(&g->mu);
    int found = 0;
    for (int i = 0; i < upto && i < 64; i++)
        found |= g->inos[i] == st.st_ino;
    pthread_mutex_unlock(&g->mu);
    return found;
}

/* Runs the loop (without blocking) for up to ms, or until h has heard n. */
static void run_loop(struct ev_loop *loop, heard *h, int n, int ms)
{
    for (int i = 0; i < ms && h->n < n; i++) {
        ev_run(loop, EVRUN_NOWAIT);
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    ev_run(loop, EVRUN_NOWAIT);
}

static void group_commit(const char *dir)
{
    char err[256], path[800];
    struct ev_loop *loop = ev_loop_new(EVFLAG_AUTO);
    rc_sink *s = rc_sink_jsonl_new(dir, err, sizeof err);
    rc_sink_set_fsync(s, RC_SINK_FSYNC_BATCH);
    RC_CHECK_INT_EQ(rc_sink_commit_start(s, loop, 0.2, err, sizeof err), 0);
    gate g = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};
    rc_sink_commit_set_sync(s, gated_sync, &g);
    rc_store st = rc_sink_jsonl_store(s);
    heard h = {0};
    /* Written at the turn's end, acknowledged only after the sync: held back, nothing is. */
    store_put(&st, "p1", "i1", 0, &h);
    store_put(&st, "p2", NULL, 0, &h);
    st.ops->turn(st.impl);
    snprintf(path, sizeof path, "%s/pages.jsonl", dir);
    char *text = slurp(path);
    RC_CHECK_STR_EQ(text, "{\"_id\":\"p1\"}\n{\"_id\":\"p2\"}\n");
    free(text);
    run_loop(loop, &h, 1, 300);
    RC_CHECK_INT_EQ(h.n, 0);
    RC_CHECK_INT_EQ(st.ops->pending(st.impl), 2);
    gate_set(&g, 1, 0);
    run_loop(loop, &h, 2, 3000);
    RC_CHECK_INT_EQ(h.n, 2);
    RC_CHECK(h.status[0] == 0 && h.status[1] == 0);
    RC_CHECK_INT_EQ(st.ops->pending(st.impl), 0);
    /* One commit synced the data files and their indexes, pages and items. */
    int calls = gate_calls(&g);
    RC_CHECK_INT_EQ(calls, 4);
    const char *names[] = {"pages.jsonl", "pages.jsonl.ids", "items.jsonl", "items.jsonl.ids"};
    for (int i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        RC_CHECK(synced_file(&g, calls, path));
    }
    /* Turns in quick succession share syncs: five turns, at most two generations (the first
     * may start at once, the rest wait for the interval together). */
    for (int i = 0; i < 5; i++) {
        char id[16];
        snprintf(id, sizeof id, "q%d", i);
        store_put(&st, id, NULL, 0, &h);
        st.ops->turn(st.impl);
    }
    run_loop(loop, &h, 7, 3000);
    RC_CHECK_INT_EQ(h.n, 7);
    for (int i = 2; i < 7; i++)
        RC_CHECK_INT_EQ(h.status[i], 0);
    RC_CHECK(gate_calls(&g) - calls <= 4); /* pages.jsonl and its index per generation */
    /* A failed sync fails its groups (the lines stay: the redelivery finds them, writes
     * nothing, and is acknowledged only after a sync of its own). */
    gate_set(&g, 1, 1);
    store_put(&st, "p3", NULL, 0, &h);
    st.ops->turn(st.impl);
    run_loop(loop, &h, 8, 3000);
    RC_CHECK_INT_EQ(h.n, 8);
    RC_CHECK_INT_EQ(h.status[7], -EIO);
    gate_set(&g, 0, 0);
    store_put(&st, "p3", NULL, 1, &h);
    st.ops->turn(st.impl);
    run_loop(loop, &h, 9, 300);
    RC_CHECK_INT_EQ(h.n, 8); /* nothing written, but the sync is owed all the same */
    calls = gate_calls(&g);
    gate_set(&g, 1, 0);
    run_loop(loop, &h, 9, 3000);
    RC_CHECK_INT_EQ(h.n, 9);
    RC_CHECK_INT_EQ(h.status[8], 0);
    RC_CHECK(gate_calls(&g) > calls);
    snprintf(path, sizeof path, "%s/pages.jsonl", dir);
    text = slurp(path);
    RC_CHECK_STR_EQ(text, "{\"_id\":\"p1\"}\n{\"_id\":\"p2\"}\n{\"_id\":\"q0\"}\n{\"_id\":\"q1\"}\n{\"_id\":\"q2\"}\n"
                          "{\"_id\":\"q3\"}\n{\"_id\":\"q4\"}\n{\"_id\":\"p3\"}\n");
    free(text);
    /* Another sink's file (a WARC file) joins the generation being gathered, once however often
     * it is added: the groups put after it wait for its sync too. */
    snprintf(path, sizeof path, "%s/other.warc", dir);
    int ofd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
    RC_CHECK(ofd >= 0 && write(ofd, "warc", 4) == 4);
    gate_set(&g, 0, 0);
    calls = gate_calls(&g);
    RC_CHECK_INT_EQ(rc_sink_commit_add(s, ofd), 0);
    RC_CHECK_INT_EQ(rc_sink_commit_add(s, ofd), 0);
    close(ofd); /* the commit holds a duplicate */
    /* A file rotated: the next one may get the same descriptor number, and is added all the same. */
    char path2[800];
    snprintf(path2, sizeof path2, "%s/other2.warc", dir);
    int ofd2 = open(path2, O_WRONLY | O_CREAT | O_APPEND, 0644);
    RC_CHECK(ofd2 >= 0 && write(ofd2, "warc", 4) == 4);
    RC_CHECK_INT_EQ(rc_sink_commit_add(s, ofd2), 0);
    close(ofd2);
    store_put(&st, "p5", NULL, 0, &h);
    st.ops->turn(st.impl);
    gate_set(&g, 1, 0);
    run_loop(loop, &h, 10, 3000);
    RC_CHECK_INT_EQ(h.n, 10);
    RC_CHECK_INT_EQ(h.status[9], 0);
    RC_CHECK_INT_EQ(gate_calls(&g) - calls, 4); /* pages.jsonl, its index, the two other files */
    RC_CHECK(synced_file(&g, gate_calls(&g), path) && synced_file(&g, gate_calls(&g), path2));
    /* Stopping with a group written but not delivered: not acknowledged. */
    gate_set(&g, 0, 0);
    store_put(&st, "p4", NULL, 0, &h);
    st.ops->turn(st.impl);
    gate_set(&g, 1, 0);
    st.ops->free(st.impl);
    RC_CHECK_INT_EQ(h.n, 11);
    RC_CHECK_INT_EQ(h.status[10], -ECANCELED);
    ev_loop_destroy(loop);
}

int main(void)
{
    char dir[] = "/tmp/rc-sink-XXXXXX";
    RC_CHECK(mkdtemp(dir) != NULL);
    char err[256];
    rc_sink *s = rc_sink_jsonl_new(dir, err, sizeof err);
    char *path = rc_sink_path(s, "job", "pages");
    RC_CHECK_INT_EQ(put(s, "a", 0), 0);
    RC_CHECK_INT_EQ(put(s, "b", 0), 0);
    /* A redelivery of a stored _id writes nothing. */
    RC_CHECK_INT_EQ(put(s, "a", 1), 0);
    /* Another writer: one record with its index line, one whose index line it never wrote
     * (killed in between), then a fragment (killed mid-record). */
    append_raw(path, "{\"_id\":\"c\",\"url\":\"http://x.test/c\"}\n{\"_id\":\"d\",\"url\":\"http://x.test/d\"}\n");
    char ids[600];
    snprintf(ids, sizeof ids, "%s.ids", path);
    char *text = slurp(path);
    char line[64];
    size_t len = strlen(text);
    snprintf(line, sizeof line, "%zu %zu c\n", len - 72, len - 36);
    free(text);
    append_raw(ids, line);
    append_raw(path, "{\"_id\":\"e\",\"ur");
    RC_CHECK_INT_EQ(put(s, "c", 1), 0);
    RC_CHECK_INT_EQ(put(s, "d", 1), 0);
    RC_CHECK_INT_EQ(put(s, "e", 1), 0); /* the fragment was cut off: e is written whole */
    text = slurp(path);
    RC_CHECK_STR_EQ(text, "{\"_id\":\"a\",\"url\":\"http://x.test/a\"}\n{\"_id\":\"b\",\"url\":\"http://x.test/b\"}\n"
                          "{\"_id\":\"c\",\"url\":\"http://x.test/c\"}\n{\"_id\":\"d\",\"url\":\"http://x.test/d\"}\n"
                          "{\"_id\":\"e\",\"url\":\"http://x.test/e\"}\n");
    /* A write that does not fit is rolled back: the file keeps only complete records. */
    size_t before = strlen(text);
    free(text);
    signal(SIGXFSZ, SIG_IGN);
    struct rlimit rl = {(rlim_t)before + 10, (rlim_t)before + 10}, old;
    getrlimit(RLIMIT_FSIZE, &old);
    rl.rlim_max = old.rlim_max;
    RC_CHECK_INT_EQ(setrlimit(RLIMIT_FSIZE, &rl), 0);
    RC_CHECK(put(s, "f", 0) < 0);
    setrlimit(RLIMIT_FSIZE, &old);
    text = slurp(path);
    RC_CHECK_INT_EQ(strlen(text), before);
    free(text);
    RC_CHECK_INT_EQ(put(s, "f", 1), 0);
    text = slurp(path);
    RC_CHECK(strstr(text, "\"_id\":\"f\"") != NULL && text[strlen(text) - 1] == '\n');
    free(text);
    rc_sink_free(s);
    char sdir[700];
    snprintf(sdir, sizeof sdir, "%s/store", dir);
    store_turns(sdir);
    snprintf(sdir, sizeof sdir, "%s/commit", dir);
    group_commit(sdir);
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    RC_CHECK_INT_EQ(system(cmd), 0);
    free(path);
    return rc_test_done("test_sink_jsonl");
}
