/* test_decode.c - content decoding: round trips for every coding, and bombs (a few KB that
 * expand to 64 MiB) stopped at the cap after reading only a little of the body. */
#include <brotli/encode.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include "decode.h"
#include "rc_test.h"

#define BOMB (64u << 20)

/* gzip (wbits 31), zlib (15) or raw deflate (-15) of in. */
static size_t z_compress(const void *in, size_t n, unsigned char *out, size_t cap, int wbits)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (deflateInit2(&z, 9, Z_DEFLATED, wbits, 9, Z_DEFAULT_STRATEGY) != Z_OK)
        return 0;
    z.next_in = (Bytef *)(uintptr_t)in;
    z.avail_in = (uInt)n;
    z.next_out = out;
    z.avail_out = (uInt)cap;
    int r = deflate(&z, Z_FINISH);
    size_t len = r == Z_STREAM_END ? z.total_out : 0;
    deflateEnd(&z);
    return len;
}

static size_t compress_as(const char *enc, const void *in, size_t n, unsigned char *out, size_t cap)
{
    if (strcmp(enc, "gzip") == 0)
        return z_compress(in, n, out, cap, 31);
    if (strcmp(enc, "deflate") == 0)
        return z_compress(in, n, out, cap, 15);
    if (strcmp(enc, "raw-deflate") == 0)
        return z_compress(in, n, out, cap, -15);
    if (strcmp(enc, "br") == 0) {
        size_t len = cap;
        return BrotliEncoderCompress(9, 22, BROTLI_MODE_GENERIC, n, in, &len, out) ? len : 0;
    }
    if (strcmp(enc, "zstd") == 0) {
        size_t len = ZSTD_compress(out, cap, in, n, 19);
        return ZSTD_isError(len) ? 0 : len;
    }
    return 0;
}

/* Feeds in pieces of step bytes; returns the last feed's result, raw bytes read in *used. */
static int feed_all(rc_decoder *d, const unsigned char *in, size_t n, size_t step, rc_buf *out, size_t *used)
{
    char err[200];
    int r = RC_DECODE_MORE;
    size_t off = 0;
    while (off < n && r == RC_DECODE_MORE) {
        size_t k = n - off < step ? n - off : step;
        r = rc_decoder_feed(d, in + off, k, out, err, sizeof err);
        off += k;
    }
    *used = off;
    return r;
}

static void round_trips(void)
{
    static const char *const encs[] = {"gzip", "deflate", "raw-deflate", "br", "zstd"};
    char text[20000];
    for (size_t i = 0; i < sizeof text; i++)
        text[i] = (char)("<p>redcrawl 中文 text</p>\n"[i % 28]);
    static unsigned char packed[40000];
    for (size_t e = 0; e < sizeof encs / sizeof encs[0]; e++) {
        size_t n = compress_as(encs[e], text, sizeof text, packed, sizeof packed);
        RC_CHECK(n > 0);
        char err[200];
        const char *name = strcmp(encs[e], "raw-deflate") == 0 ? "deflate" : encs[e];
        rc_decoder *d = rc_decoder_new(name, 1 << 20, err, sizeof err);
        RC_CHECK(d != NULL);
        rc_buf out;
        rc_buf_init(&out);
        size_t used;
        RC_CHECK_INT_EQ(feed_all(d, packed, n, 7, &out, &used), RC_DECODE_MORE); /* odd pieces */
        RC_CHECK_INT_EQ(rc_decoder_finish(d, err, sizeof err), 0);
        RC_CHECK_INT_EQ((int)out.len, (int)sizeof text);
        RC_CHECK(out.len == sizeof text && memcmp(out.ptr, text, sizeof text) == 0);
        rc_decoder_free(d);
        /* Cut in half: finish says so. */
        d = rc_decoder_new(name, 1 << 20, err, sizeof err);
        rc_buf_reset(&out);
        feed_all(d, packed, n / 2, 4096, &out, &used);
        RC_CHECK_INT_EQ(rc_decoder_finish(d, err, sizeof err), -EINVAL);
        rc_decoder_free(d);
        rc_buf_release(&out);
    }
}

static void bombs(void)
{
    static const char *const encs[] = {"gzip", "br", "zstd"};
    char *zeros = calloc(1, BOMB);
    unsigned char *packed = malloc(1 << 20);
    RC_CHECK(zeros && packed);
    for (size_t e = 0; e < sizeof encs / sizeof encs[0]; e++) {
        size_t n = compress_as(encs[e], zeros, BOMB, packed, 1 << 20);
        RC_CHECK(n > 0 && n < (1 << 20));
        char err[200];
        rc_decoder *d = rc_decoder_new(encs[e], 1 << 20, err, sizeof err); /* 1 MiB cap */
        rc_buf out;
        rc_buf_init(&out);
        size_t used;
        RC_CHECK_INT_EQ(feed_all(d, packed, n, 4096, &out, &used), RC_DECODE_FULL);
        RC_CHECK_INT_EQ((int)out.len, 1 << 20);
        RC_CHECK(out.cap <= (2u << 20)); /* memory: the cap, not 64 MiB */
        printf("%s bomb: %zu bytes -> 64 MiB; stopped at 1 MiB after reading %zu bytes\n", encs[e], n, used);
        rc_decoder_free(d);
        rc_buf_release(&out);
    }
    free(zeros);
    free(packed);
}

int main(void)
{
    char err[200];
    round_trips();
    bombs();
    RC_CHECK(rc_decoder_new("compress", 10, err, sizeof err) == NULL);
    RC_CHECK(strstr(err, "compress") != NULL);
    RC_CHECK(rc_decoder_new("gzip, br", 10, err, sizeof err) == NULL);
    rc_decoder *d = rc_decoder_new("gzip", 100, err, sizeof err);
    rc_buf out;
    rc_buf_init(&out);
    RC_CHECK_INT_EQ(rc_decoder_feed(d, "this is not gzip at all", 23, &out, err, sizeof err), -EINVAL);
    RC_CHECK(strstr(err, "content decoding failed") != NULL);
    rc_decoder_free(d);
    d = rc_decoder_new(NULL, 5, err, sizeof err); /* identity still caps */
    RC_CHECK_INT_EQ(rc_decoder_feed(d, "0123456789", 10, &out, err, sizeof err), RC_DECODE_FULL);
    RC_CHECK_INT_EQ((int)out.len, 5);
    rc_decoder_free(d);
    rc_buf_reset(&out);
    d = rc_decoder_new("identity", 5, err, sizeof err); /* exactly the cap is whole */
    RC_CHECK_INT_EQ(rc_decoder_feed(d, "01234", 5, &out, err, sizeof err), RC_DECODE_MORE);
    RC_CHECK_INT_EQ(rc_decoder_feed(d, "5", 1, &out, err, sizeof err), RC_DECODE_FULL);
    RC_CHECK_INT_EQ((int)out.len, 5);
    rc_decoder_free(d);
    rc_buf_release(&out);
    return rc_test_done("test_decode");
}
