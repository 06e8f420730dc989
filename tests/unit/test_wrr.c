/* test_wrr.c - smooth weighted round-robin: proportions and interleaving. */
#include <string.h>

#include "rc_test.h"
#include "wrr.h"

static int count_of(const char *const *picks, int n, const char *id)
{
    int c = 0;
    for (int i = 0; i < n; i++)
        c += strcmp(picks[i], id) == 0;
    return c;
}

int main(void)
{
    rc_wrr *w = rc_wrr_new();
    RC_CHECK(rc_wrr_next(w) == NULL);

    /* nginx's example: weights 5,1,1 give a a b a c a a - smooth, not aaaaabc. */
    rc_wrr_set(w, "a", 5);
    rc_wrr_set(w, "b", 1);
    rc_wrr_set(w, "c", 1);
    const char *seq[7];
    for (int i = 0; i < 7; i++)
        seq[i] = rc_wrr_next(w);
    const char *want[7] = {"a", "a", "b", "a", "c", "a", "a"};
    for (int i = 0; i < 7; i++)
        RC_CHECK_STR_EQ(seq[i], want[i]);

    /* Proportions over many rounds follow the weights exactly per cycle. */
    rc_wrr_set(w, "a", 30);
    rc_wrr_set(w, "b", 20);
    rc_wrr_set(w, "c", 10);
    static const char *picks[6000];
    for (int i = 0; i < 6000; i++)
        picks[i] = rc_wrr_next(w);
    int ca = count_of(picks, 6000, "a"), cb = count_of(picks, 6000, "b"), cc = count_of(picks, 6000, "c");
    RC_CHECK(ca >= 2990 && ca <= 3010);
    RC_CHECK(cb >= 1990 && cb <= 2010);
    RC_CHECK(cc >= 990 && cc <= 1010);
    /* No peer is picked more than twice in a row at 3:2:1. */
    int run = 1, maxrun = 1;
    for (int i = 1; i < 6000; i++) {
        run = strcmp(picks[i], picks[i - 1]) == 0 ? run + 1 : 1;
        if (run > maxrun)
            maxrun = run;
    }
    RC_CHECK(maxrun <= 2);

    /* Zero or negative weights count as 1; removal works; count and listing. */
    rc_wrr_set(w, "d", 0);
    RC_CHECK_INT_EQ(rc_wrr_count(w), 4);
    int64_t wt = 0;
    for (size_t i = 0; i < rc_wrr_count(w); i++)
        if (strcmp(rc_wrr_peer(w, i, &wt), "d") == 0)
            RC_CHECK_INT_EQ(wt, 1);
    RC_CHECK_INT_EQ(rc_wrr_remove(w, "a"), 0);
    RC_CHECK_INT_EQ(rc_wrr_remove(w, "a"), -2);
    for (int i = 0; i < 100; i++)
        RC_CHECK(strcmp(rc_wrr_next(w), "a") != 0);
    rc_wrr_remove(w, "b");
    rc_wrr_remove(w, "c");
    rc_wrr_remove(w, "d");
    RC_CHECK(rc_wrr_next(w) == NULL);
    rc_wrr_free(w);
    rc_wrr_free(NULL);
    return rc_test_done("test_wrr");
}
