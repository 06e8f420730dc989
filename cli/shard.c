/* shard.c - `redcrawl shard HOST|URL...`: which shard of a sharded keyspace holds a host, and
 * that shard's key prefix (shared/shard.h), one line each: "SHARD PREFIX HOST|URL". Reads the
 * arguments, or standard input's lines without any. No Redis: the answer depends only on the
 * host, --shards and --prefix. For operators (which master serves a site) and benchmarks. */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "config.h"
#include "redis.h"
#include "shard.h"

typedef struct shard_conf {
    char *prefix;
    int64_t shards;
} shard_conf;

static const rc_conf_row rows[] = {
    {"prefix", RC_CONF_STR, offsetof(shard_conf, prefix), RC_DEFAULT_PREFIX, 0, 0, "REDCRAWL_PREFIX", "key prefix"},
    {"shards", RC_CONF_INT, offsetof(shard_conf, shards), "1", 1, RC_SHARDS_MAX, "REDCRAWL_SHARDS",
     "shards of the keyspace"},
};
#define NROWS (sizeof rows / sizeof rows[0])

/* One line for a host or URL (one with "://" is read as a URL). 0, or -1 when unreadable. */
static int say(const shard_conf *c, const char *arg)
{
    char prefix[256];
    int s = strstr(arg, "://") ? rc_shard_of_url(arg, (int)c->shards) : rc_shard_of_host(arg, (int)c->shards);
    if (s < 0 || rc_shard_prefix(c->prefix, s, (int)c->shards, prefix, sizeof prefix) < 0) {
        fprintf(stderr,
                "redcrawl shard: cannot place '%s' (a normalised URL or a host; a --prefix without a "
                "hash tag)\n",
                arg);
        return -1;
    }
    printf("%d %s %s\n", s, prefix, arg);
    return 0;
}

int rc_cli_shard(int argc, char **argv)
{
    shard_conf c;
    int optind = 0, rc = 2;
    memset(&c, 0, sizeof c);
    if (rc_conf_cmdline(rows, NROWS, &c, argc, argv, "redcrawl shard",
                        "usage: redcrawl shard [options] [HOST|URL...]\n\nThe shard holding each host (or URL's "
                        "host) and its key prefix, one line each:\n\"SHARD PREFIX HOST\"; standard input's lines "
                        "when no argument is given.\n\n",
                        &optind, &rc))
        goto out;
    rc = 0;
    for (int i = optind; i < argc; i++)
        rc |= say(&c, argv[i]) < 0;
    if (optind == argc) {
        char line[4096];
        while (fgets(line, sizeof line, stdin)) {
            line[strcspn(line, "\r\n")] = '\0';
            if (*line)
                rc |= say(&c, line) < 0;
        }
    }
out:
    rc_conf_release(rows, NROWS, &c);
    return rc;
}
