/* test_sink_jsonl.c - the JSON Lines sink's honesty: a fragment left by a killed writer is cut
 * off, redeliveries are found through the _id index (also for records whose index line is
 * missing), and a write that does not fit (RLIMIT_FSIZE: the kernel's short write, as on a full
 * disk) is rolled back whole. */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

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
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    RC_CHECK_INT_EQ(system(cmd), 0);
    free(path);
    return rc_test_done("test_sink_jsonl");
}
