/* test_seen.c - the bounded seen-cache: membership, the zero hash, reset when full. */
#include "rc_test.h"
#include "seen.h"

int main(void)
{
    rc_seen *s = rc_seen_new(1000);
    for (uint64_t i = 0; i < 700; i++)
        rc_seen_add(s, i * 0x9e3779b97f4a7c15ULL);
    int all = 1;
    for (uint64_t i = 0; i < 700; i++)
        all &= rc_seen_has(s, i * 0x9e3779b97f4a7c15ULL);
    RC_CHECK(all);
    RC_CHECK(rc_seen_has(s, 0)); /* i = 0 hashed to 0 */
    RC_CHECK(!rc_seen_has(s, 12345));
    RC_CHECK_INT_EQ(rc_seen_count(s), 700);
    rc_seen_add(s, 5 * 0x9e3779b97f4a7c15ULL); /* already there: no growth */
    RC_CHECK_INT_EQ(rc_seen_count(s), 700);
    for (uint64_t i = 1000; i < 3000; i++)
        rc_seen_add(s, i);
    RC_CHECK(rc_seen_resets(s) >= 1);
    RC_CHECK(rc_seen_count(s) <= 1536); /* 1000 rounds up to 2048 slots, 3/4 usable */
    RC_CHECK(rc_seen_has(s, 2999));
    rc_seen_free(s);
    return rc_test_done("test_seen");
}
