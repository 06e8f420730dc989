/* bench_owners.c - the scheduler's host -> owner map when a worker is reaped: H hosts spread
 * round-robin over W workers (the scheduler's weighted rotation does about that), then the hosts
 * of one worker are forgotten with rc_strmap_del_if, as reap() does. Prints the time per size;
 * asserts nothing (speed targets live in benchmarks, not in unit tests).
 *   build/tests/bench/bench_owners [WORKERS [HOSTS...]]   (default 5 workers; 1000 10000 100000 hosts) */
#include "strmap.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int owned_by(const char *host, void *owner, const void *wid)
{
    (void)host;
    return strcmp(owner, wid) == 0;
}

/* One reap of worker "w0" from a map of hosts hosts over workers workers. */
static void run(long workers, long hosts)
{
    rc_strmap *owners = rc_strmap_new();
    char host[64], wid[32];
    for (long i = 0; i < hosts; i++) {
        snprintf(host, sizeof host, "host%ld.example.test", i);
        snprintf(wid, sizeof wid, "w%ld", i % workers);
        free(rc_strmap_put(owners, host, rc_xstrdup(wid)));
    }
    double t0 = now_s();
    size_t gone = rc_strmap_del_if(owners, owned_by, "w0", free);
    double dt = now_s() - t0;
    printf("%8ld hosts %3ld workers: reap forgot %7zu hosts in %9.4f s, %zu left\n", hosts, workers, gone, dt,
           rc_strmap_count(owners));
    rc_strmap_free(owners, free);
}

int main(int argc, char **argv)
{
    long workers = argc > 1 ? strtol(argv[1], NULL, 10) : 5;
    if (workers < 1)
        workers = 1;
    if (argc > 2) {
        for (int i = 2; i < argc; i++)
            run(workers, strtol(argv[i], NULL, 10));
        return 0;
    }
    static const long sizes[] = {1000, 10000, 100000};
    for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++)
        run(workers, sizes[i]);
    return 0;
}
