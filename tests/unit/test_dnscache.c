/* test_dnscache.c - the worker's DNS cache: lookups, expiry, permanent entries, replacement,
 * deletion, and the bound (oldest evicted first) over many more inserts than it holds. */
#include <stdio.h>

#include "dnscache.h"
#include "rc_test.h"

int main(void)
{
    RC_CHECK(rc_dnscache_new(0) == NULL);
    rc_dnscache *c = rc_dnscache_new(3);
    RC_CHECK(rc_dnscache_get(c, "a.test:80", 0) == NULL);
    rc_dnscache_put(c, "a.test:80", "192.0.2.1", 1000);
    RC_CHECK_STR_EQ(rc_dnscache_get(c, "a.test:80", 999), "192.0.2.1");
    RC_CHECK(rc_dnscache_get(c, "a.test:443", 999) == NULL); /* the port is part of the key */
    RC_CHECK(rc_dnscache_get(c, "a.test:80", 1000) == NULL); /* expired: gone */
    RC_CHECK_INT_EQ(rc_dnscache_count(c), 0);

    rc_dnscache_put(c, "p.test:80", "127.0.0.1", 0); /* never expires */
    RC_CHECK(rc_dnscache_permanent(c, "p.test:80"));
    RC_CHECK_STR_EQ(rc_dnscache_get(c, "p.test:80", UINT64_MAX - 1), "127.0.0.1");
    rc_dnscache_put(c, "b.test:80", "192.0.2.2", 5000);
    RC_CHECK(!rc_dnscache_permanent(c, "b.test:80"));
    rc_dnscache_put(c, "b.test:80", "192.0.2.3,2001:db8::1", 6000); /* replaced, not added */
    RC_CHECK_STR_EQ(rc_dnscache_get(c, "b.test:80", 5500), "192.0.2.3,2001:db8::1");
    RC_CHECK_INT_EQ(rc_dnscache_count(c), 2);
    rc_dnscache_del(c, "b.test:80");
    rc_dnscache_del(c, "nothing.test:80");
    RC_CHECK(rc_dnscache_get(c, "b.test:80", 0) == NULL);

    /* Full: the oldest goes. p (oldest), then c1, c2; c3 evicts p. */
    rc_dnscache_put(c, "c1.test:80", "192.0.2.11", 0);
    rc_dnscache_put(c, "c2.test:80", "192.0.2.12", 0);
    rc_dnscache_put(c, "c3.test:80", "192.0.2.13", 0);
    RC_CHECK_INT_EQ(rc_dnscache_count(c), 3);
    RC_CHECK(rc_dnscache_get(c, "p.test:80", 0) == NULL);
    RC_CHECK_INT_EQ(rc_dnscache_evictions(c), 1);
    rc_dnscache_free(c);

    /* 100,000 hosts through a cache of 1,000, with replacements and deletions mixed in: never
     * more than 1,000 entries, the newest always there. */
    c = rc_dnscache_new(1000);
    char key[64], addr[64];
    int ok = 1;
    for (int i = 0; i < 100000; i++) {
        snprintf(key, sizeof key, "h%d.test:80", i);
        snprintf(addr, sizeof addr, "10.%d.%d.%d", i >> 16 & 255, i >> 8 & 255, i & 255);
        rc_dnscache_put(c, key, addr, 0);
        if (i % 3 == 0)
            rc_dnscache_put(c, key, addr, 0);
        if (i % 7 == 0) {
            snprintf(key, sizeof key, "h%d.test:80", i - 5);
            rc_dnscache_del(c, key);
        }
        ok &= rc_dnscache_count(c) <= 1000;
    }
    RC_CHECK(ok);
    RC_CHECK_STR_EQ(rc_dnscache_get(c, "h99999.test:80", 0), "10.1.134.159");
    RC_CHECK(rc_dnscache_get(c, "h5.test:80", 0) == NULL);
    RC_CHECK(rc_dnscache_evictions(c) > 80000 && rc_dnscache_evictions(c) < 99000);
    rc_dnscache_free(c);
    rc_dnscache_free(NULL);
    return rc_test_done("test_dnscache");
}
