/* replay.c - runs a fuzz target over every file of a corpus directory without libFuzzer, in the
 * normal test build (sanitizers on): the committed corpus is a regression suite.
 * usage: replay_TARGET CORPUS_DIR */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "util.h"

static int replay_file(const char *path)
{
    size_t len;
    char *data = rc_read_file(path, 0, &len);
    if (!data)
        return -1;
    LLVMFuzzerTestOneInput((const uint8_t *)data, len);
    free(data);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s CORPUS_DIR\n", argv[0]);
        return 2;
    }
    DIR *d = opendir(argv[1]);
    if (!d) {
        fprintf(stderr, "%s: cannot open corpus %s\n", argv[0], argv[1]);
        return 1;
    }
    int files = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char *path = rc_xasprintf("%s/%s", argv[1], e->d_name);
        if (replay_file(path) == 0)
            files++;
        free(path);
    }
    closedir(d);
    /* An empty corpus would make this test pass having checked nothing. */
    printf("%s: %d corpus inputs replayed\n", argv[0], files);
    return files > 0 ? 0 : 1;
}
