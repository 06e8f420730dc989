/* test_argv.c - the argument vector keeps its copies in blocks of its own: every argument
 * stays where it was put, NUL-terminated and with its length, across block boundaries, past
 * the largest block, after a replacement and after a reset. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "argv.h"
#include "rc_test.h"

/* Argument i of the many: its length varies (0 to 99 bytes) so blocks end mid-way. */
static size_t nth(int i, char *buf, size_t cap)
{
    size_t n = (size_t)(i * 37 % 100);
    if (n > cap - 1)
        n = cap - 1;
    for (size_t k = 0; k < n; k++)
        buf[k] = (char)('a' + (i + (int)k) % 26);
    buf[n] = '\0';
    return n;
}

static void check_many(rc_argv *a, int count)
{
    char want[128];
    int bad = 0;
    for (int i = 0; i < count; i++) {
        size_t n = nth(i, want, sizeof want);
        if (a->len[i] != n || memcmp(a->v[i], want, n + 1) != 0)
            bad++;
    }
    RC_CHECK_INT_EQ(bad, 0);
}

static void test_many_arguments(void)
{
    rc_argv a;
    rc_argv_init(&a);
    char buf[128];
    for (int round = 0; round < 2; round++) { /* the second after a reset: the vector is reused */
        for (int i = 0; i < 100000; i++) {
            size_t n = nth(i, buf, sizeof buf);
            rc_argv_addn(&a, buf, n);
        }
        RC_CHECK_INT_EQ(a.n, 100000);
        check_many(&a, 100000);
        rc_argv_reset(&a);
        RC_CHECK_INT_EQ(a.n, 0);
    }
    rc_argv_release(&a);
}

static void test_long_argument(void)
{
    rc_argv a;
    rc_argv_init(&a);
    size_t big = 300000; /* past the largest block */
    char *s = malloc(big);
    memset(s, 'x', big);
    rc_argv_add(&a, "EVALSHA");
    rc_argv_addn(&a, s, big);
    rc_argv_add(&a, "after");
    RC_CHECK_INT_EQ(a.len[1], big);
    RC_CHECK(memcmp(a.v[1], s, big) == 0 && a.v[1][big] == '\0');
    RC_CHECK_STR_EQ(a.v[0], "EVALSHA");
    RC_CHECK_STR_EQ(a.v[2], "after");
    free(s);
    rc_argv_release(&a);
}

/* A replaced argument (a NOSCRIPT resend swaps EVALSHA and the digest for EVAL and the source)
 * leaves the others where they were. */
static void test_replace(void)
{
    rc_argv a;
    rc_argv_init(&a);
    rc_argv_add(&a, "EVALSHA");
    rc_argv_add(&a, "0123456789abcdef");
    rc_argv_add(&a, "");
    rc_argv_addi(&a, -42);
    const char *third = a.v[2];
    rc_argv_set(&a, 0, "EVAL");
    rc_argv_set(&a, 1, "return redis.call('PING')");
    RC_CHECK_STR_EQ(a.v[0], "EVAL");
    RC_CHECK_INT_EQ(a.len[0], 4);
    RC_CHECK_STR_EQ(a.v[1], "return redis.call('PING')");
    RC_CHECK_INT_EQ(a.len[1], strlen("return redis.call('PING')"));
    RC_CHECK(a.v[2] == third && a.len[2] == 0 && a.v[2][0] == '\0');
    RC_CHECK_STR_EQ(a.v[3], "-42");
    rc_argv_setu(&a, 6, 7); /* past the end: empty arguments up to it */
    RC_CHECK_INT_EQ(a.n, 7);
    RC_CHECK_STR_EQ(a.v[5], "");
    RC_CHECK_STR_EQ(a.v[6], "7");
    rc_argv_release(&a);
    RC_CHECK(a.v == NULL && a.n == 0);
}

/* Numbers come out as printf's %lld / %llu would write them, at both ends of their range. */
static void test_numbers(void)
{
    const int64_t si[] = {0, 7, -1, 10, -42, 1795780894389LL, INT64_MAX, INT64_MIN};
    const uint64_t su[] = {0, 9, 10, 4294967295ULL, UINT64_MAX};
    rc_argv a;
    rc_argv_init(&a);
    char want[32];
    for (size_t i = 0; i < sizeof si / sizeof si[0]; i++) {
        rc_argv_addi(&a, si[i]);
        rc_argv_seti(&a, 0, si[i]);
        snprintf(want, sizeof want, "%" PRId64, si[i]);
        RC_CHECK_STR_EQ(a.v[a.n - 1], want);
        RC_CHECK_INT_EQ(a.len[a.n - 1], strlen(want));
        RC_CHECK_STR_EQ(a.v[0], want);
    }
    for (size_t i = 0; i < sizeof su / sizeof su[0]; i++) {
        rc_argv_addu(&a, su[i]);
        rc_argv_setu(&a, 0, su[i]);
        snprintf(want, sizeof want, "%" PRIu64, su[i]);
        RC_CHECK_STR_EQ(a.v[a.n - 1], want);
        RC_CHECK_INT_EQ(a.len[0], strlen(want));
    }
    rc_argv_release(&a);
}

/* The wire format from an argument on: lengths in decimal, empty and binary arguments as they are. */
static void test_resp(void)
{
    rc_argv a;
    rc_argv_init(&a);
    rc_argv_add(&a, "skipped");
    rc_argv_add(&a, "");
    rc_argv_addn(&a, "a\0b", 3);
    rc_argv_add(&a, "0123456789ab");
    static const char want[] = "$0\r\n\r\n$3\r\na\0b\r\n$12\r\n0123456789ab\r\n";
    size_t n = rc_argv_resp_len(&a, 1);
    RC_CHECK_INT_EQ(n, sizeof want - 1);
    char buf[sizeof want + 8];
    char *end = rc_argv_resp_put(&a, 1, buf);
    RC_CHECK_INT_EQ((size_t)(end - buf), n);
    RC_CHECK(memcmp(buf, want, sizeof want - 1) == 0);
    RC_CHECK_INT_EQ(rc_argv_resp_len(&a, a.n), 0);
    rc_argv_packed p;
    rc_argv_pack(&a, &p);
    RC_CHECK_INT_EQ(p.n, 4);
    RC_CHECK_INT_EQ(p.len, n + strlen("$7\r\nskipped\r\n"));
    RC_CHECK_INT_EQ(p.first, strlen("$7\r\nskipped\r\n"));
    RC_CHECK(memcmp(p.data + p.first, want, sizeof want - 1) == 0);
    rc_argv b;
    rc_argv_init(&b);
    rc_argv_unpack(&p, 1, &b);
    RC_CHECK_INT_EQ(b.n, 3);
    for (int i = 0; i < b.n && i < 3; i++) {
        RC_CHECK_INT_EQ(b.len[i], a.len[i + 1]);
        RC_CHECK(memcmp(b.v[i], a.v[i + 1], a.len[i + 1]) == 0);
    }
    rc_argv_packed_release(&p);
    rc_argv_release(&b);
    rc_argv_release(&a);
}

int main(void)
{
    test_resp();
    test_numbers();
    test_many_arguments();
    test_long_argument();
    test_replace();
    return rc_test_done("test_argv");
}
