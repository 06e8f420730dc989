/* rc_test.h - a tiny assert header for unit tests: failures print both operands and go on,
 * the program's exit status says whether any check failed (h2o/libuv style). */
#ifndef RC_TEST_H
#define RC_TEST_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static int rc_test_failures;
static int rc_test_checks;

#define RC_CHECK(cond)                                                                                                 \
    do {                                                                                                               \
        rc_test_checks++;                                                                                              \
        if (!(cond)) {                                                                                                 \
            rc_test_failures++;                                                                                        \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);                                   \
        }                                                                                                              \
    } while (0)

#define RC_CHECK_INT_EQ(a, b)                                                                                          \
    do {                                                                                                               \
        long long rc_a_ = (long long)(a), rc_b_ = (long long)(b);                                                      \
        rc_test_checks++;                                                                                              \
        if (rc_a_ != rc_b_) {                                                                                          \
            rc_test_failures++;                                                                                        \
            fprintf(stderr, "%s:%d: %s == %s failed: %lld != %lld\n", __FILE__, __LINE__, #a, #b, rc_a_, rc_b_);       \
        }                                                                                                              \
    } while (0)

#define RC_CHECK_STR_EQ(a, b)                                                                                          \
    do {                                                                                                               \
        const char *rc_a_ = (a), *rc_b_ = (b);                                                                         \
        rc_test_checks++;                                                                                              \
        if (!rc_a_ || !rc_b_ || strcmp(rc_a_, rc_b_) != 0) {                                                           \
            rc_test_failures++;                                                                                        \
            fprintf(stderr, "%s:%d: %s == %s failed: \"%s\" != \"%s\"\n", __FILE__, __LINE__, #a, #b,                  \
                    rc_a_ ? rc_a_ : "(null)", rc_b_ ? rc_b_ : "(null)");                                               \
        }                                                                                                              \
    } while (0)

/* Call at the end of main(): prints a summary and returns the exit status. A program that made
 * no check (a table that read no case, say) fails: it showed nothing. */
static inline int rc_test_done(const char *name)
{
    fprintf(stderr, "%s: %d checks, %d failed\n", name, rc_test_checks, rc_test_failures);
    if (rc_test_checks == 0)
        fprintf(stderr, "%s: no check ran\n", name);
    return rc_test_failures || rc_test_checks == 0 ? 1 : 0;
}

#endif
