/* bench_sink.c - the cost of the JSON Lines sink's fsync policies: N records of SIZE bytes
 * written with none, batch (a flush after every GROUP records, as a page with its items) and
 * record; prints records/s and the ratio to none, all from the same run.
 * Usage: bench_sink [DIR] [N] [SIZE] [GROUP]   (DIR on the disk to measure; default /tmp) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sink.h"
#include "util.h"

static double run(const char *base, rc_sink_fsync policy, int n, int size, int group)
{
    static const char *const names[] = {"none", "batch", "record"};
    char dir[512], err[256];
    snprintf(dir, sizeof dir, "%s/rc-bench-sink-%s-%d", base, names[policy], (int)(rc_now_us() % 100000));
    rc_sink *s = rc_sink_jsonl_new(dir, err, sizeof err);
    rc_sink_set_fsync(s, policy);
    char *doc = rc_xmalloc((size_t)size + 128);
    uint64_t t0 = rc_now_us();
    for (int i = 0; i < n; i++) {
        char id[40];
        snprintf(id, sizeof id, "%032d", i);
        int len = snprintf(doc, 64, "{\"_id\":\"%s\",\"text\":\"", id);
        memset(doc + len, 'x', (size_t)(size - len - 2));
        memcpy(doc + size - 2, "\"}", 3);
        len = size;
        if (rc_sink_write(s, "bench", "pages", id, doc, (size_t)len, 0, err, sizeof err) < 0 ||
            ((i + 1) % group == 0 && rc_sink_flush(s, err, sizeof err) < 0)) {
            fprintf(stderr, "bench_sink: %s\n", err);
            exit(1);
        }
    }
    double secs = (double)(rc_now_us() - t0) / 1e6;
    rc_sink_free(s);
    free(doc);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "bench_sink: could not remove %s\n", dir);
    printf("fsync=%-6s %6d records of %d bytes: %8.0f records/s (%.1f us each)\n", names[policy], n, size, n / secs,
           secs * 1e6 / n);
    return n / secs;
}

int main(int argc, char **argv)
{
    const char *dir = argc > 1 ? argv[1] : "/tmp";
    int64_t v[3] = {3000, 2000, 3};
    int bad = 0;
    for (int i = 0; i < 3 && i + 2 < argc; i++)
        bad |= rc_parse_i64(argv[i + 2], 1, 100000000, &v[i]) < 0;
    int n = (int)v[0], size = (int)v[1], group = (int)v[2];
    if (bad || size < 64) {
        fprintf(stderr, "usage: bench_sink [DIR] [N] [SIZE>=64] [GROUP]\n");
        return 2;
    }
    double none = run(dir, RC_SINK_FSYNC_NONE, n, size, group);
    double batch = run(dir, RC_SINK_FSYNC_BATCH, n, size, group);
    double rec = run(dir, RC_SINK_FSYNC_RECORD, n, size, group);
    printf("ratio to none: batch (every %d records) %.2fx slower, record %.2fx slower\n", group, none / batch,
           none / rec);
    return 0;
}
