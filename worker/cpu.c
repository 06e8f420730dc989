/* cpu.c - see cpu.h. */
#include "cpu.h"

#include <math.h>
#include <stdlib.h>
#include <sys/resource.h>

#include "util.h"

struct rc_cpu {
    double cores;
    int cap;                            /* cores given: --cpu-cores is also a cap */
    uint64_t last_wall_us, last_cpu_us; /* the previous headroom reading */
    double avg;                         /* the headroom's moving average (AVG_TAU_S) */
    uint64_t win_wall_us, win_cpu_us;   /* the start of the cap's window */
};

static uint64_t cpu_us(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0)
        return 0;
    return (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000u +
           (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

static double usable_cores(int threads)
{
    int n = rc_cpus();
    if (threads > 0 && n > threads)
        n = threads;
    return n > 0 ? n : 1;
}

rc_cpu *rc_cpu_new(double cores, int threads)
{
    rc_cpu *c = rc_xcalloc(1, sizeof *c);
    c->cap = cores > 0;
    c->cores = cores > 0 ? cores : usable_cores(threads);
    c->avg = -1; /* no reading yet */
    c->win_wall_us = rc_mono_us();
    c->win_cpu_us = cpu_us();
    return c;
}

void rc_cpu_free(rc_cpu *c)
{
    free(c);
}

double rc_cpu_cores(const rc_cpu *c)
{
    return c->cores;
}

#define AVG_TAU_S 3.0

/* Averaged over a few seconds: a worker held back by its CPU cap idles between windows, and
 * one heartbeat's reading would then say it has room again (the weights flapped with it). */
double rc_cpu_headroom(rc_cpu *c)
{
    uint64_t wall = rc_mono_us(), cpu = cpu_us();
    if (c->last_wall_us && wall > c->last_wall_us) {
        double dt = (double)(wall - c->last_wall_us) / 1e6;
        double used = (double)(cpu - c->last_cpu_us) / (dt * 1e6 * c->cores);
        double sample = used >= 1.0 ? 0.0 : 1.0 - used;
        c->avg = c->avg < 0 ? sample : c->avg + (1.0 - exp(-dt / AVG_TAU_S)) * (sample - c->avg);
    }
    c->last_wall_us = wall;
    c->last_cpu_us = cpu;
    return c->avg < 0 ? 1.0 : c->avg;
}

#define WINDOW_US 1000000

int rc_cpu_over(rc_cpu *c, double *retry_s)
{
    if (!c->cap)
        return 0;
    uint64_t wall = rc_mono_us(), cpu = cpu_us();
    uint64_t span = wall - c->win_wall_us;
    if (span >= WINDOW_US) { /* a new window */
        c->win_wall_us = wall;
        c->win_cpu_us = cpu;
        return 0;
    }
    if ((double)(cpu - c->win_cpu_us) <= c->cores * (double)WINDOW_US)
        return 0;
    *retry_s = (double)(WINDOW_US - span) / 1e6;
    return 1;
}
