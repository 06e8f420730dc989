/* test_strmap.c - the hash map against a brute-force model, with deletions, and the mass
 * deletion the scheduler does when it forgets a reaped worker's hosts. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "rc_test.h"
#include "strmap.h"

#define HOSTS 20000
#define OWNERS 4

/* Keys are host<i>.test with value i % OWNERS + 1: drops the hosts of owner ctx. */
static int owned_by(const char *key, void *value, const void *ctx)
{
    (void)key;
    return (intptr_t)value == *(const intptr_t *)ctx;
}

static int freed;
static void count_free(void *value)
{
    (void)value;
    freed++;
}

/* After rc_strmap_del_if every survivor is found with its value, no dropped key is, and the map
 * still takes puts and deletes (its probe chains are intact). */
static void test_del_if(void)
{
    rc_strmap *m = rc_strmap_new();
    char key[32];
    for (int i = 0; i < HOSTS; i++) {
        snprintf(key, sizeof key, "host%d.test", i);
        rc_strmap_put(m, key, (void *)(intptr_t)(i % OWNERS + 1));
    }
    intptr_t owner = 1, nobody = 99; /* owner 1: hosts 0, 4, 8, ... */
    RC_CHECK_INT_EQ(rc_strmap_del_if(m, owned_by, &nobody, count_free), 0);
    RC_CHECK_INT_EQ(rc_strmap_del_if(m, owned_by, &owner, count_free), HOSTS / OWNERS);
    RC_CHECK_INT_EQ(freed, HOSTS / OWNERS);
    RC_CHECK_INT_EQ(rc_strmap_count(m), HOSTS - HOSTS / OWNERS);
    int right = 0;
    for (int i = 0; i < HOSTS; i++) {
        snprintf(key, sizeof key, "host%d.test", i);
        intptr_t want = i % OWNERS + 1 == owner ? 0 : i % OWNERS + 1;
        right += (intptr_t)rc_strmap_get(m, key) == want;
    }
    RC_CHECK_INT_EQ(right, HOSTS);
    size_t it = 0, seen = 0;
    void *v;
    while (rc_strmap_next(m, &it, NULL, &v))
        seen += (intptr_t)v != owner;
    RC_CHECK_INT_EQ(seen, HOSTS - HOSTS / OWNERS);
    /* Half the survivors deleted one by one, the dropped ones put back. */
    right = 0;
    for (int i = 0; i < HOSTS; i += 2) {
        snprintf(key, sizeof key, "host%d.test", i);
        if (i % OWNERS + 1 == owner)
            right += rc_strmap_put(m, key, (void *)owner) == NULL;
        else
            right += (intptr_t)rc_strmap_del(m, key) == i % OWNERS + 1;
    }
    RC_CHECK_INT_EQ(right, HOSTS / 2);
    right = 0;
    for (int i = 0; i < HOSTS; i++) {
        snprintf(key, sizeof key, "host%d.test", i);
        intptr_t want =
            i % 2 == 0 ? (i % OWNERS + 1 == owner ? owner : 0) : (i % OWNERS + 1 == owner ? 0 : i % OWNERS + 1);
        right += (intptr_t)rc_strmap_get(m, key) == want;
    }
    RC_CHECK_INT_EQ(right, HOSTS);
    RC_CHECK_INT_EQ(rc_strmap_del_if(m, owned_by, &owner, NULL), HOSTS / OWNERS);
    rc_strmap_free(m, NULL);
}

int main(void)
{
    test_del_if();
    rc_strmap *m = rc_strmap_new();
    static intptr_t model[5000];
    char key[32];
    uint32_t x = 12345;
    for (int step = 0; step < 100000; step++) {
        x = x * 1103515245u + 12345u;
        int k = (int)((x >> 8) % 5000), op = (int)((x >> 4) % 3);
        snprintf(key, sizeof key, "host%d.test", k);
        if (op == 0) {
            rc_strmap_put(m, key, (void *)(intptr_t)(k + 1));
            model[k] = k + 1;
        } else if (op == 1) {
            void *v = rc_strmap_del(m, key);
            RC_CHECK((intptr_t)v == model[k]);
            model[k] = 0;
        } else {
            RC_CHECK((intptr_t)rc_strmap_get(m, key) == model[k]);
        }
    }
    size_t n = 0, it = 0;
    for (int k = 0; k < 5000; k++)
        n += model[k] != 0;
    RC_CHECK_INT_EQ(rc_strmap_count(m), n);
    const char *kk;
    void *vv;
    size_t seen = 0;
    while (rc_strmap_next(m, &it, &kk, &vv))
        seen++;
    RC_CHECK_INT_EQ(seen, n);
    RC_CHECK(rc_strmap_put(m, "a", (void *)1) == NULL);
    RC_CHECK(rc_strmap_put(m, "a", (void *)2) == (void *)1);
    rc_strmap_free(m, NULL);
    return rc_test_done("test_strmap");
}
