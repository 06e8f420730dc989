/* pace.c - see pace.h. */
#include "pace.h"

#include <stdlib.h>

#include "util.h"

struct rc_pace {
    uint64_t mark_ms;            /* when the scheduler last ran; 0 = not yet */
    uint64_t from[RC_PACE_KEEP]; /* the last stalls, a ring: [from, to) */
    uint64_t to[RC_PACE_KEEP];
    int next; /* the ring's slot for the next stall */
};

rc_pace *rc_pace_new(void)
{
    return rc_xcalloc(1, sizeof(rc_pace));
}

void rc_pace_free(rc_pace *p)
{
    free(p);
}

uint64_t rc_pace_mark(rc_pace *p, uint64_t now_ms, uint64_t expect_ms)
{
    uint64_t due = p->mark_ms + expect_ms, stall = 0;
    if (p->mark_ms && now_ms > due + RC_PACE_STALL_MS) {
        stall = now_ms - due;
        p->from[p->next] = due;
        p->to[p->next] = now_ms;
        p->next = (p->next + 1) % RC_PACE_KEEP;
    }
    if (now_ms > p->mark_ms)
        p->mark_ms = now_ms;
    return stall;
}

uint64_t rc_pace_stalled(const rc_pace *p, uint64_t since_ms, uint64_t now_ms)
{
    uint64_t sum = 0;
    for (int i = 0; i < RC_PACE_KEEP; i++) {
        uint64_t from = RC_MAX(p->from[i], since_ms), to = RC_MIN(p->to[i], now_ms);
        if (to > from)
            sum += to - from;
    }
    return sum;
}
