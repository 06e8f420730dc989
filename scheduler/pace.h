/* pace.h - the scheduler's own progress: the stretches in which it did not run (its thread
 * starved of CPU, the whole machine paused, its Redis calls held), so that a worker's silence is
 * judged only over time the scheduler was there to hear it. A pause of the machine stops the
 * workers' heartbeats as well as the scheduler; taken for the workers' deaths, it threw away
 * pages they had fetched in full, and those were fetched again (ARCHITECTURE.md, "Exactly
 * once"). */
#ifndef RC_PACE_H
#define RC_PACE_H

#include <stdint.h>

/* A gap longer than expected by more than this is a stall: below it is a busy tick. */
#define RC_PACE_STALL_MS 1000
/* Stalls remembered: a worker silent across more of them is judged by wall time for the rest
 * (it is reaped sooner, never later). */
#define RC_PACE_KEEP 16

typedef struct rc_pace rc_pace;

rc_pace *rc_pace_new(void);
void rc_pace_free(rc_pace *p);

/* The scheduler runs at now_ms; it meant to be away expect_ms since its last mark (its timer's
 * delay, or 0 between two steps of one tick). A gap longer than that by over RC_PACE_STALL_MS
 * is kept as a stall. Returns the stall's length in ms, 0 when there was none. */
uint64_t rc_pace_mark(rc_pace *p, uint64_t now_ms, uint64_t expect_ms);

/* The ms of [since_ms, now_ms] in which the scheduler stalled. */
uint64_t rc_pace_stalled(const rc_pace *p, uint64_t since_ms, uint64_t now_ms);

#endif
