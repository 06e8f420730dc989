/* fuzz_decode.c - content decoding: the first byte picks the coding, the rest is the body, fed
 * in pieces; the output never passes the cap. */
#include <stdlib.h>

#include "decode.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const codings[] = {"gzip", "deflate", "br", "zstd", "identity"};
    if (size < 1)
        return 0;
    char err[200];
    const size_t cap = 1 << 16;
    rc_decoder *d = rc_decoder_new(codings[data[0] % 5], cap, err, sizeof err);
    rc_buf out;
    rc_buf_init(&out);
    for (size_t off = 1; d && off < size;) {
        size_t k = size - off < 7 ? size - off : (size_t)(7 + data[off] % 64);
        k = k > size - off ? size - off : k;
        if (rc_decoder_feed(d, data + off, k, &out, err, sizeof err) != RC_DECODE_MORE)
            break;
        off += k;
    }
    if (out.len > cap)
        abort();
    if (d)
        rc_decoder_finish(d, err, sizeof err);
    rc_decoder_free(d);
    rc_buf_release(&out);
    return 0;
}
