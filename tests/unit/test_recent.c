/* test_recent.c - the "fetched recently" slots: stable, in range, ages with the 16-bit wrap,
 * and the bound taken from the oldest slot. */
#include "rc_test.h"
#include "recent.h"

int main(void)
{
    uint32_t a[RC_RECENT_K], b[RC_RECENT_K], c[RC_RECENT_K];
    rc_recent_slots("http://a.test/x", a);
    rc_recent_slots("http://a.test/x", b);
    rc_recent_slots("http://a.test/y", c);
    int same = 1, differ = 0;
    for (int i = 0; i < RC_RECENT_K; i++) {
        RC_CHECK(a[i] < RC_RECENT_SLOTS);
        same &= a[i] == b[i];
        differ |= a[i] != c[i];
    }
    RC_CHECK(same && differ);
    RC_CHECK(a[0] != a[1] && a[1] != a[2]);

    RC_CHECK_INT_EQ(rc_recent_hour(0), 1); /* 0 is "never" */
    RC_CHECK_INT_EQ(rc_recent_hour(3600000ull * 10 + 5), 10);
    RC_CHECK_INT_EQ(rc_recent_hour(3600000ull * 65537), 1);

    uint16_t now = 1000;
    uint16_t never[RC_RECENT_K] = {1000, 0, 1000};
    RC_CHECK(!rc_recent_within(never, now, 24)); /* a slot never written: never fetched */
    uint16_t fresh[RC_RECENT_K] = {1000, 1000, 999};
    RC_CHECK(rc_recent_within(fresh, now, 1));
    RC_CHECK(!rc_recent_within(fresh, now, 0));
    uint16_t mixed[RC_RECENT_K] = {995, 1000, 1000}; /* the URL itself is at least 5 hours old */
    RC_CHECK(!rc_recent_within(mixed, now, 4));
    RC_CHECK(rc_recent_within(mixed, now, 5));
    uint16_t wrapped[RC_RECENT_K] = {65535, 1, 2}; /* across the wrap: 3 hours before hour 2 */
    RC_CHECK(rc_recent_within(wrapped, 2, 3));
    RC_CHECK(!rc_recent_within(wrapped, 2, 2));
    return rc_test_done("test_recent");
}
