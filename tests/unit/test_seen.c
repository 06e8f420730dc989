/* test_seen.c - the bounded seen-cache: membership, the zero hash, growth on demand (and the
 * replaced tables freed when asked), reset when full, lookups from another thread while it grows. */
#include <pthread.h>

#include "rc_test.h"
#include "seen.h"

/* A small cache costs kilobytes; it doubles as it fills, keeping every hash, up to its cap. */
static void test_grows(void)
{
    rc_seen *s = rc_seen_new(1000000);
    RC_CHECK(rc_seen_bytes(s) < 40 * 1024);
    for (uint64_t i = 1; i <= 100000; i++)
        rc_seen_add(s, i * 0x9e3779b97f4a7c15ULL);
    int all = 1;
    for (uint64_t i = 1; i <= 100000; i++)
        all &= rc_seen_has(s, i * 0x9e3779b97f4a7c15ULL);
    RC_CHECK(all);
    RC_CHECK_INT_EQ(rc_seen_count(s), 100000);
    RC_CHECK_INT_EQ(rc_seen_resets(s), 0);
    /* 100,000 hashes fit 262,144 slots (2 MiB); the smaller tables kept add less than that */
    RC_CHECK(rc_seen_bytes(s) < 4 * 1024 * 1024 + 4096);
    RC_CHECK(rc_seen_bytes(s) >= 2 * 1024 * 1024 + 32 * 1024);
    RC_CHECK_INT_EQ(rc_seen_grows(s), 6); /* 4,096 slots to 262,144 */
    /* Once no reader can be on them, the smaller tables go; every hash is still there. */
    rc_seen_drop_older(s);
    RC_CHECK(rc_seen_bytes(s) < 2 * 1024 * 1024 + 4096);
    all = 1;
    for (uint64_t i = 1; i <= 100000; i++)
        all &= rc_seen_has(s, i * 0x9e3779b97f4a7c15ULL);
    RC_CHECK(all);
    rc_seen_drop_older(s); /* nothing older: a no-op */
    rc_seen_add(s, 7);
    RC_CHECK(rc_seen_has(s, 7));
    rc_seen_free(s);
}

struct reader {
    rc_seen *s;
    int stop, missed;
    long rounds;
};

/* Hashes 1..1000 are in before the reader starts: it must find them whatever table is current. */
static void *read_loop(void *arg)
{
    struct reader *r = arg;
    while (!__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE)) {
        for (uint64_t i = 1; i <= 1000; i++)
            r->missed += !rc_seen_has(r->s, i * 0x9e3779b97f4a7c15ULL);
        r->rounds++;
    }
    return NULL;
}

static void test_reader_while_growing(void)
{
    struct reader r = {.s = rc_seen_new(4000000)};
    for (uint64_t i = 1; i <= 1000; i++)
        rc_seen_add(r.s, i * 0x9e3779b97f4a7c15ULL);
    pthread_t th;
    RC_CHECK_INT_EQ(pthread_create(&th, NULL, read_loop, &r), 0);
    for (uint64_t i = 1001; i <= 2000000; i++) /* ten doublings under the reader */
        rc_seen_add(r.s, i * 0x9e3779b97f4a7c15ULL);
    __atomic_store_n(&r.stop, 1, __ATOMIC_RELEASE);
    pthread_join(th, NULL);
    RC_CHECK_INT_EQ(r.missed, 0);
    RC_CHECK(r.rounds > 0);
    RC_CHECK_INT_EQ(rc_seen_resets(r.s), 0);
    rc_seen_free(r.s);
}

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
    test_grows();
    test_reader_while_growing();
    return rc_test_done("test_seen");
}
