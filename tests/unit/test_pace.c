/* test_pace.c - the scheduler's own stalls, and how much of a worker's silence they cover. */
#include "pace.h"
#include "rc_test.h"

int main(void)
{
    rc_pace *p = rc_pace_new();
    RC_CHECK_INT_EQ(rc_pace_mark(p, 10000, 0), 0);    /* the first mark has nothing to compare with */
    RC_CHECK_INT_EQ(rc_pace_mark(p, 10050, 50), 0);   /* on time */
    RC_CHECK_INT_EQ(rc_pace_mark(p, 11900, 1000), 0); /* 850 ms late: a busy tick, no stall */
    RC_CHECK_INT_EQ(rc_pace_stalled(p, 0, 20000), 0);

    /* A pause of 4.5 s while the timer was set for 50 ms: [11950, 16400) is a stall. */
    RC_CHECK_INT_EQ(rc_pace_mark(p, 16400, 50), 4450);
    RC_CHECK_INT_EQ(rc_pace_stalled(p, 11500, 17000), 4450); /* a heartbeat before it: all of it */
    RC_CHECK_INT_EQ(rc_pace_stalled(p, 14000, 17000), 2400); /* one during it: the rest */
    RC_CHECK_INT_EQ(rc_pace_stalled(p, 16400, 17000), 0);    /* one after it: none */
    RC_CHECK_INT_EQ(rc_pace_stalled(p, 11500, 13000), 1050); /* judged before it ended */

    /* Stuck 2 s inside one tick (a Redis call held), then another pause: both count. */
    RC_CHECK_INT_EQ(rc_pace_mark(p, 18500, 0), 2100);
    RC_CHECK_INT_EQ(rc_pace_stalled(p, 11500, 19000), 4450 + 2100);

    /* A clock that went back does not move the mark back (no stall made up from it). */
    RC_CHECK_INT_EQ(rc_pace_mark(p, 18000, 0), 0);
    RC_CHECK_INT_EQ(rc_pace_mark(p, 18550, 50), 0);

    /* Only the last RC_PACE_KEEP stalls are kept: older ones count no more (reaped sooner). */
    uint64_t t = 18550;
    for (int i = 0; i < RC_PACE_KEEP; i++) {
        t += 3000;
        RC_CHECK_INT_EQ(rc_pace_mark(p, t, 0), 3000);
    }
    RC_CHECK_INT_EQ(rc_pace_stalled(p, 0, t), RC_PACE_KEEP * 3000);
    rc_pace_free(p);
    rc_pace_free(NULL);
    return rc_test_done("test_pace");
}
