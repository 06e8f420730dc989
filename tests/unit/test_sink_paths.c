/* test_sink_paths.c - the JSON Lines sink keeps every file inside its directory: a crawlid
 * that would climb out of --out DIR/{crawlid} (sent by a client that skipped validation, or
 * written into Redis by hand) is refused and creates nothing anywhere. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rc_test.h"
#include "sink.h"
#include "util.h"

static int exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0;
}

int main(void)
{
    char tmpl[] = "/tmp/rc-sink-XXXXXX";
    char *base = mkdtemp(tmpl);
    RC_CHECK(base != NULL);
    if (!base)
        return rc_test_done("test_sink_paths");
    char err[300];
    char *out = rc_xasprintf("%s/a/b/{crawlid}", base);
    rc_sink *s = rc_sink_jsonl_new(out, err, sizeof err);
    RC_CHECK(s != NULL);
    const char doc[] = "{\"_id\":\"1\"}";
    RC_CHECK_INT_EQ(rc_sink_write(s, "good-id_1.0", "pages", "1", doc, sizeof doc - 1, 0, err, sizeof err), 0);
    char *good = rc_xasprintf("%s/a/b/good-id_1.0/pages.jsonl", base);
    RC_CHECK(exists(good));
    static const char *const evil[] = {"../../../escaped", "..", ".", "x/../../../escaped", "/abs", ".hidden", ""};
    int refused = 0;
    for (size_t i = 0; i < sizeof evil / sizeof evil[0]; i++) {
        err[0] = '\0';
        int r = rc_sink_write(s, evil[i], "pages", "1", doc, sizeof doc - 1, 0, err, sizeof err);
        RC_CHECK_INT_EQ(r, -EINVAL);
        RC_CHECK(strstr(err, "cannot name a directory") != NULL);
        refused += r == -EINVAL;
    }
    RC_CHECK_INT_EQ(refused, (int)(sizeof evil / sizeof evil[0]));
    char *esc = rc_xasprintf("%s/escaped", base), *esc2 = rc_xasprintf("%s/a/escaped", base);
    RC_CHECK(!exists(esc) && !exists(esc2) && !exists("/abs"));
    rc_sink_free(s);
    char *cmd = rc_xasprintf("rm -rf '%s'", base);
    RC_CHECK_INT_EQ(system(cmd), 0);
    free(cmd);
    free(esc);
    free(esc2);
    free(good);
    free(out);
    return rc_test_done("test_sink_paths");
}
