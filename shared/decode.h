/* decode.h - HTTP content decoding (Content-Encoding gzip, x-gzip, deflate, br, zstd), streamed,
 * with the cap applied to the decoded bytes: a body that expands a thousandfold ("gzip bomb")
 * costs at most the cap, however large it would become. libcurl's own decoding is turned off in
 * the fetcher so that the raw bytes stay available (WARC) and this cap holds. */
#ifndef RC_DECODE_H
#define RC_DECODE_H

#include <stddef.h>

#include "util.h"

typedef struct rc_decoder rc_decoder;

/* encoding: the Content-Encoding value; NULL, "" and "identity" copy the bytes through.
 * max_out: decoded bytes kept at most. NULL with a message in err for an encoding this build
 * does not decode (a list of several codings included). */
rc_decoder *rc_decoder_new(const char *encoding, size_t max_out, char *err, size_t cap);
void rc_decoder_free(rc_decoder *d);

enum { RC_DECODE_MORE = 0, RC_DECODE_FULL = 1 };
/* Decodes the next n raw bytes, appending to out (borrowed, kept across calls) without letting
 * out grow past max_out. RC_DECODE_MORE, RC_DECODE_FULL once the cap is reached (the rest is not
 * worth reading), or -EINVAL with a message in err on corrupt data. */
int rc_decoder_feed(rc_decoder *d, const void *in, size_t n, rc_buf *out, char *err, size_t cap);
/* 1 when d copies the bytes through unchanged (no coding, "identity"): a caller that keeps
 * the raw bytes anyway can use them as the decoded ones instead of a second copy. */
int rc_decoder_identity(const rc_decoder *d);
/* After the last byte: 0, or -EINVAL when the stream ended early (a cut gzip member). */
int rc_decoder_finish(rc_decoder *d, char *err, size_t cap);

#endif
