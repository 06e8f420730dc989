/* redcrawl: the command line. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const struct {
    const char *name;
    int (*run)(int, char **);
    const char *help;
} commands[] = {
    {"crawl", rc_cli_crawl, "crawl from URLs on this machine (private Redis, JSON Lines output)"},
    {"submit", rc_cli_submit, "submit a crawl job to a running fleet"},
    {"info", rc_cli_info, "show a job's state and counters"},
    {"stop", rc_cli_stop, "stop a job: purge its queued URLs"},
    {"stats", rc_cli_stats, "show counters, queues and live processes"},
    {"status", rc_cli_status, "live view of workers, jobs, hosts, bloom filters, Redis memory (--json once)"},
    {"shard", rc_cli_shard, "which shard of a sharded keyspace holds a host (--shards), and its key prefix"},
    {"drain", rc_cli_drain, "drain a worker: no new URLs, its hosts go to other workers (--undo)"},
    {"domain", rc_cli_domain, "set a domain's rate limit, or (un)blacklist it"},
    {"extract", rc_cli_extract, "run extraction rules on a saved page (develop rules offline)"},
    {"robots", rc_cli_robots, "check URLs against a robots.txt file, as the workers do"},
};

static void usage(FILE *f)
{
    fprintf(f, "usage: redcrawl COMMAND [options] [args]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].help);
    fprintf(f, "\n`redcrawl COMMAND --help` lists a command's options.\n");
}

int main(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "version") == 0) {
        printf("redcrawl " REDCRAWL_VERSION "\n");
        return 0;
    }
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        if (strcmp(argv[1], commands[i].name) == 0)
            return commands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "redcrawl: unknown command '%s'\n\n", argv[1]);
    usage(stderr);
    return 2;
}
