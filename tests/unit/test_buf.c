/* test_buf.c - the growable buffer (shared/util.c): NUL-terminated after every append, a
 * reserve makes room once so appends up to it never move the bytes, steal hands them over. */
#include <stdlib.h>
#include <string.h>

#include "rc_test.h"
#include "util.h"

static void test_reserve(void)
{
    rc_buf b;
    rc_buf_init(&b);
    rc_buf_reserve(&b, 30000);
    const char *at = b.ptr;
    RC_CHECK(at != NULL && b.cap >= 30001);
    char chunk[1000];
    memset(chunk, 'a', sizeof chunk);
    for (int i = 0; i < 30; i++)
        rc_buf_append(&b, chunk, sizeof chunk);
    RC_CHECK(b.ptr == at); /* 30 appends, no move */
    RC_CHECK_INT_EQ(b.len, 30000);
    RC_CHECK(b.ptr[b.len] == '\0');
    rc_buf_append(&b, "b", 1); /* past the reserve it grows as before */
    RC_CHECK_INT_EQ(b.len, 30001);
    RC_CHECK(b.ptr[30000] == 'b' && b.ptr[30001] == '\0');
    char *p = rc_buf_steal(&b);
    RC_CHECK(p != NULL && strlen(p) == 30001);
    RC_CHECK(b.ptr == NULL && b.len == 0 && b.cap == 0);
    free(p);
    rc_buf_reserve(&b, 0); /* room for the NUL alone */
    RC_CHECK(b.ptr != NULL && b.cap >= 1);
    rc_buf_release(&b);
}

int main(void)
{
    test_reserve();
    return rc_test_done("test_buf");
}
