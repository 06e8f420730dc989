/* test_strmap.c - the hash map against a brute-force model, with deletions. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "rc_test.h"
#include "strmap.h"

int main(void)
{
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
