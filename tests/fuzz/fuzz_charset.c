/* fuzz_charset.c - encoding detection and conversion: the first line is the Content-Type, the
 * rest the body; whatever is detected, the conversion gives valid UTF-8. */
#include <stdlib.h>
#include <string.h>

#include "charset.h"
#include "fuzz.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *s = (const char *)data, *nl = memchr(s, '\n', size);
    char *ct = nl ? rc_xstrndup(s, (size_t)(nl - s)) : NULL;
    const char *body = nl ? nl + 1 : s;
    size_t len = nl ? size - (size_t)(nl + 1 - s) : size;
    char name[RC_CHARSET_NAME_MAX];
    if (rc_charset_detect(body, len, ct, name, sizeof name) >= 0) {
        size_t out_len = 0;
        char *out = rc_charset_to_utf8(body, len, name, &out_len);
        if (out && rc_charset_utf8_valid_prefix(out, out_len) != out_len)
            abort();
        free(out);
    }
    free(ct);
    return 0;
}
