/* decode.c - see decode.h. Each codec decodes into a fixed chunk and appends what fits; the
 * library is never asked for more output than the cap leaves room for, so memory stays bounded
 * by the cap plus one chunk. */
#include "decode.h"

#include <brotli/decode.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <zlib.h>
#include <zstd.h>

#define CHUNK 16384

enum codec { C_IDENTITY, C_ZLIB, C_BROTLI, C_ZSTD };

struct rc_decoder {
    enum codec codec;
    size_t max_out;
    int ended;     /* the compressed stream said it was complete */
    int raw_tried; /* "deflate" already restarted as raw deflate */
    z_stream z;
    BrotliDecoderState *br;
    ZSTD_DStream *zs;
};

static int pick(const char *enc, enum codec *c, int *zbits)
{
    if (!enc || !*enc || strcasecmp(enc, "identity") == 0)
        *c = C_IDENTITY;
    else if (strcasecmp(enc, "gzip") == 0 || strcasecmp(enc, "x-gzip") == 0)
        *c = C_ZLIB, *zbits = 15 + 32; /* +32: gzip or zlib header, detected */
    else if (strcasecmp(enc, "deflate") == 0)
        *c = C_ZLIB, *zbits = 15 + 32; /* RFC 9110 means zlib; raw deflate is retried below */
    else if (strcasecmp(enc, "br") == 0)
        *c = C_BROTLI;
    else if (strcasecmp(enc, "zstd") == 0)
        *c = C_ZSTD;
    else
        return -EINVAL;
    return 0;
}

int rc_decoder_identity(const rc_decoder *d)
{
    return d && d->codec == C_IDENTITY;
}

rc_decoder *rc_decoder_new(const char *encoding, size_t max_out, char *err, size_t cap)
{
    enum codec c;
    int zbits = 0;
    if (pick(encoding, &c, &zbits) < 0) {
        snprintf(err, cap, "unsupported content-encoding '%.60s'", encoding);
        return NULL;
    }
    rc_decoder *d = rc_xcalloc(1, sizeof *d);
    d->codec = c;
    d->max_out = max_out;
    if (c == C_ZLIB && inflateInit2(&d->z, zbits) != Z_OK)
        goto fail;
    if (c == C_BROTLI && !(d->br = BrotliDecoderCreateInstance(NULL, NULL, NULL)))
        goto fail;
    if (c == C_ZSTD && !(d->zs = ZSTD_createDStream()))
        goto fail;
    return d;
fail:
    snprintf(err, cap, "cannot set up the %s decoder", encoding);
    rc_decoder_free(d);
    return NULL;
}

void rc_decoder_free(rc_decoder *d)
{
    if (!d)
        return;
    if (d->codec == C_ZLIB)
        inflateEnd(&d->z);
    if (d->br)
        BrotliDecoderDestroyInstance(d->br);
    if (d->zs)
        ZSTD_freeDStream(d->zs);
    free(d);
}

/* Appends what the cap allows; RC_DECODE_FULL once bytes had to be dropped (a body of exactly
 * the cap is whole). */
static int put(rc_decoder *d, rc_buf *out, const void *p, size_t n)
{
    size_t room = d->max_out - RC_MIN(out->len, d->max_out);
    rc_buf_append(out, p, RC_MIN(n, room));
    return n > room ? RC_DECODE_FULL : RC_DECODE_MORE;
}

static int bad(char *err, size_t cap, const char *what)
{
    snprintf(err, cap, "content decoding failed: %s", what);
    return -EINVAL;
}

static int feed_zlib(rc_decoder *d, const void *in, size_t n, rc_buf *out, char *err, size_t cap)
{
    unsigned char chunk[CHUNK];
    d->z.next_in = (Bytef *)(uintptr_t)in;
    d->z.avail_in = (uInt)n;
    while (d->z.avail_in > 0 && !d->ended) {
        d->z.next_out = chunk;
        d->z.avail_out = sizeof chunk;
        int zr = inflate(&d->z, Z_NO_FLUSH);
        if (zr == Z_DATA_ERROR && d->z.total_out == 0 && !d->raw_tried) {
            /* "deflate" sent as raw deflate without the zlib header: start over that way. */
            inflateEnd(&d->z);
            d->raw_tried = 1;
            if (inflateInit2(&d->z, -15) != Z_OK)
                return bad(err, cap, "cannot restart as raw deflate");
            d->z.next_in = (Bytef *)(uintptr_t)in;
            d->z.avail_in = (uInt)n;
            continue;
        }
        if (zr != Z_OK && zr != Z_STREAM_END && zr != Z_BUF_ERROR)
            return bad(err, cap, d->z.msg ? d->z.msg : "corrupt data");
        if (put(d, out, chunk, sizeof chunk - d->z.avail_out) == RC_DECODE_FULL)
            return RC_DECODE_FULL;
        if (zr == Z_STREAM_END)
            d->ended = 1; /* trailing bytes after the member are ignored, as browsers do */
        else if (zr == Z_BUF_ERROR)
            break;
    }
    return RC_DECODE_MORE;
}

static int feed_brotli(rc_decoder *d, const void *in, size_t n, rc_buf *out, char *err, size_t cap)
{
    const uint8_t *next_in = in;
    size_t avail_in = n;
    for (;;) {
        uint8_t chunk[CHUNK], *next_out = chunk;
        size_t avail_out = sizeof chunk;
        BrotliDecoderResult r = BrotliDecoderDecompressStream(d->br, &avail_in, &next_in, &avail_out, &next_out, NULL);
        if (r == BROTLI_DECODER_RESULT_ERROR)
            return bad(err, cap, BrotliDecoderErrorString(BrotliDecoderGetErrorCode(d->br)));
        if (put(d, out, chunk, sizeof chunk - avail_out) == RC_DECODE_FULL)
            return RC_DECODE_FULL;
        if (r == BROTLI_DECODER_RESULT_SUCCESS)
            d->ended = 1;
        if (r != BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT)
            return RC_DECODE_MORE;
    }
}

static int feed_zstd(rc_decoder *d, const void *in, size_t n, rc_buf *out, char *err, size_t cap)
{
    ZSTD_inBuffer ib = {in, n, 0};
    for (;;) {
        unsigned char chunk[CHUNK];
        ZSTD_outBuffer ob = {chunk, sizeof chunk, 0};
        size_t r = ZSTD_decompressStream(d->zs, &ob, &ib);
        if (ZSTD_isError(r))
            return bad(err, cap, ZSTD_getErrorName(r));
        if (put(d, out, chunk, ob.pos) == RC_DECODE_FULL)
            return RC_DECODE_FULL;
        d->ended = r == 0;
        /* More output may be waiting while the chunk came back full. */
        if (ib.pos == ib.size && ob.pos < ob.size)
            return RC_DECODE_MORE;
    }
}

int rc_decoder_feed(rc_decoder *d, const void *in, size_t n, rc_buf *out, char *err, size_t cap)
{
    switch (d->codec) {
    case C_IDENTITY:
        return put(d, out, in, n);
    case C_ZLIB:
        return feed_zlib(d, in, n, out, err, cap);
    case C_BROTLI:
        return feed_brotli(d, in, n, out, err, cap);
    case C_ZSTD:
        return feed_zstd(d, in, n, out, err, cap);
    }
    return bad(err, cap, "unknown codec");
}

int rc_decoder_finish(rc_decoder *d, char *err, size_t cap)
{
    if (d->codec == C_IDENTITY || d->ended)
        return 0;
    return bad(err, cap, "the compressed body ended early");
}
