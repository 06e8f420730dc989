/* cpu.h - the worker's CPU headroom: how much of its cores it did not use lately, from
 * getrusage against wall time. Reported in the heartbeat (cpu_free), where the scheduler's
 * weights use it: a worker whose CPU is the bottleneck (parsing, extraction, a busy machine
 * share) gets fewer new hosts whatever its free transfer slots. With --cpu-cores it is also a
 * cap: the worker takes no new URLs while it used more than that over the last second. */
#ifndef RC_CPU_H
#define RC_CPU_H

typedef struct rc_cpu rc_cpu;

/* cores: the cores the worker counts as its own, 0 = the CPUs it may run on (its affinity),
 * at most threads (its loop and parse threads: a single-threaded process cannot use two). */
rc_cpu *rc_cpu_new(double cores, int threads);
void rc_cpu_free(rc_cpu *c);
/* The cores it counts as its own. */
double rc_cpu_cores(const rc_cpu *c);
/* Fraction of its cores unused (0..1), averaged over the last few seconds (an exponential
 * average with a 3 s time constant over the readings of each call); 1 on the first call. */
double rc_cpu_headroom(rc_cpu *c);
/* 1 while the process used more than its cores over the current one-second window (a cap set
 * with cores > 0), with the seconds until the window ends in *retry_s; else 0. */
int rc_cpu_over(rc_cpu *c, double *retry_s);

#endif
