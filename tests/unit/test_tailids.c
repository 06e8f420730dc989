/* test_tailids.c - the mark read from the JSON Lines sink's _id index (the end of its last
 * complete line, also past a line being written and with an index longer than the bytes read),
 * the _ids of the records past a mark appended to a list (a fragment left out, a mark inside a
 * line taken from that line's start, a missing file holding none), and the list loaded as a set. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rc_test.h"
#include "sink.h"
#include "tailids.h"
#include "util.h"

static void put(rc_sink *s, const char *id)
{
    char doc[128], err[256];
    snprintf(doc, sizeof doc, "{\"_id\":\"%s\",\"url\":\"http://x.test/%s\"}", id, id);
    RC_CHECK_INT_EQ(rc_sink_write(s, "job", "pages", id, doc, strlen(doc), 0, err, sizeof err), 0);
}

static void append_raw(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_APPEND);
    RC_CHECK(fd >= 0 && write(fd, text, strlen(text)) == (ssize_t)strlen(text));
    close(fd);
}

static off_t size_of(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? st.st_size : -1;
}

/* The list file's text, "" when there is none. */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    rc_buf b;
    rc_buf_init(&b);
    char buf[4096];
    size_t n;
    while (f && (n = fread(buf, 1, sizeof buf, f)) > 0)
        rc_buf_append(&b, buf, n);
    if (f)
        fclose(f);
    rc_buf_putc(&b, '\0');
    return rc_buf_steal(&b);
}

static void check_list(const char *path, const char *want)
{
    char *text = slurp(path);
    RC_CHECK_STR_EQ(text, want);
    free(text);
}

static void marks_and_tails(const char *dir)
{
    char err[256];
    int64_t mark = -1;
    size_t n = 99;
    char *data = rc_xasprintf("%s/pages.jsonl", dir), *idx = rc_xasprintf("%s.ids", data),
         *list = rc_xasprintf("%s/recheck.ids", dir);
    RC_CHECK_INT_EQ(rc_tailids_mark(idx, &mark), 0); /* nothing stored yet */
    RC_CHECK_INT_EQ(mark, 0);
    RC_CHECK_INT_EQ(rc_tailids_append(data, 0, list, &n, err, sizeof err), 0);
    RC_CHECK_INT_EQ(n, 0);
    RC_CHECK(access(list, F_OK) < 0); /* none: no list made */
    rc_sink *s = rc_sink_jsonl_new(dir, err, sizeof err);
    put(s, "a");
    put(s, "b");
    put(s, "c");
    RC_CHECK_INT_EQ(rc_tailids_mark(idx, &mark), 0);
    RC_CHECK_INT_EQ(mark, size_of(data));
    append_raw(idx, "999 10"); /* an index line being written does not count */
    int64_t again = -1;
    RC_CHECK_INT_EQ(rc_tailids_mark(idx, &again), 0);
    RC_CHECK_INT_EQ(again, mark);
    put(s, "d"); /* the sink cuts the index's fragment first */
    put(s, "e");
    append_raw(data, "{\"_id\":\"f\",\"u"); /* a writer killed mid-record: no record */
    RC_CHECK_INT_EQ(rc_tailids_append(data, mark, list, &n, err, sizeof err), 0);
    RC_CHECK_INT_EQ(n, 2);
    check_list(list, "d\ne\n");
    /* A mark inside a line (a rollback below it): from that line's start. Appended to the list. */
    RC_CHECK_INT_EQ(rc_tailids_append(data, mark - 3, list, &n, err, sizeof err), 0);
    RC_CHECK_INT_EQ(n, 3);
    check_list(list, "d\ne\nc\nd\ne\n");
    rc_strmap *set = NULL;
    RC_CHECK_INT_EQ(rc_tailids_load(list, &set, err, sizeof err), 0);
    RC_CHECK_INT_EQ(rc_strmap_count(set), 3);
    RC_CHECK(rc_strmap_get(set, "d") && rc_strmap_get(set, "c") && !rc_strmap_get(set, "a"));
    rc_strmap_free(set, NULL);
    /* An index longer than the bytes the mark reads: its last line still found whole. */
    for (int i = 0; i < 300; i++) {
        char id[16];
        snprintf(id, sizeof id, "p%d", i);
        put(s, id);
    }
    RC_CHECK(size_of(idx) > 4096);
    RC_CHECK_INT_EQ(rc_tailids_mark(idx, &mark), 0);
    RC_CHECK_INT_EQ(mark, size_of(data));
    rc_sink_free(s);
    free(data);
    free(idx);
    free(list);
}

int main(void)
{
    char dir[] = "/tmp/rc-tailids-XXXXXX", err[256];
    RC_CHECK(mkdtemp(dir) != NULL);
    char *sub = rc_xasprintf("%s/job", dir);
    marks_and_tails(sub);
    rc_strmap *set = NULL;
    char *none = rc_xasprintf("%s/none.ids", dir);
    RC_CHECK_INT_EQ(rc_tailids_load(none, &set, err, sizeof err), -ENOENT);
    RC_CHECK(set == NULL && strstr(err, "none.ids") != NULL);
    free(none);
    free(sub);
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    RC_CHECK_INT_EQ(system(cmd), 0);
    return rc_test_done("test_tailids");
}
