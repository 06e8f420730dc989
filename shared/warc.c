/* warc.c - see warc.h. */
#include "warc.h"

#include <errno.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <zlib.h>

void rc_warc_new_id(char out[RC_WARC_ID_LEN])
{
    unsigned char b[16];
    if (getrandom(b, sizeof b, 0) != (ssize_t)sizeof b)
        abort(); /* the kernel's random source does not fail after boot */
    b[6] = (unsigned char)((b[6] & 0x0f) | 0x40);
    b[8] = (unsigned char)((b[8] & 0x3f) | 0x80);
    snprintf(out, RC_WARC_ID_LEN, "<urn:uuid:%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x>",
             b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
}

void rc_warc_sha1(const void *data, size_t len, char out[40])
{
    static const char alpha[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int n = 0;
    if (EVP_Digest(data, len, md, &n, EVP_sha1(), NULL) != 1 || n != 20)
        abort(); /* SHA-1 of a buffer cannot fail but for memory */
    memcpy(out, "sha1:", 5);
    /* 160 bits = 32 base32 digits of 5 bits, no padding. */
    for (int i = 0; i < 32; i++) {
        int bit = i * 5, byte = bit / 8, shift = bit % 8;
        unsigned v = (unsigned)md[byte] << 8 | (byte + 1 < 20 ? md[byte + 1] : 0);
        out[5 + i] = alpha[(v >> (11 - shift)) & 31];
    }
    out[37] = '\0';
}

static void field(rc_buf *b, const char *name, const char *value)
{
    if (!value)
        return;
    rc_buf_puts(b, name);
    rc_buf_puts(b, ": ");
    rc_buf_puts(b, value);
    rc_buf_puts(b, "\r\n");
}

void rc_warc_format(rc_buf *b, const rc_warc_rec *r)
{
    char digest[40], pdigest[40];
    rc_buf_puts(b, "WARC/1.1\r\n");
    field(b, "WARC-Type", r->type);
    field(b, "WARC-Record-ID", r->id);
    field(b, "WARC-Date", r->date);
    field(b, "WARC-Target-URI", r->target_uri);
    field(b, "WARC-Concurrent-To", r->concurrent_to);
    field(b, "WARC-Refers-To-Target-URI", r->refers_to);
    field(b, "WARC-Profile", r->profile);
    field(b, "WARC-IP-Address", r->ip);
    field(b, "WARC-Filename", r->filename);
    field(b, "WARC-Truncated", r->truncated);
    rc_warc_sha1(r->block, r->block_len, digest);
    field(b, "WARC-Block-Digest", digest);
    if (r->payload_off > 0 && r->payload_off <= r->block_len) {
        rc_warc_sha1(r->block + r->payload_off, r->block_len - r->payload_off, pdigest);
        field(b, "WARC-Payload-Digest", pdigest);
    }
    field(b, "Content-Type", r->content_type);
    rc_buf_printf(b, "Content-Length: %zu\r\n\r\n", r->block_len);
    rc_buf_append(b, r->block, r->block_len);
    rc_buf_puts(b, "\r\n\r\n");
}

int rc_warc_append(rc_buf *out, const rc_warc_rec *r, int level)
{
    rc_buf plain;
    rc_buf_init(&plain);
    rc_warc_format(&plain, r);
    z_stream z;
    memset(&z, 0, sizeof z);
    /* windowBits 15 + 16: a gzip wrapper; one member per record. */
    if (deflateInit2(&z, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
        rc_buf_release(&plain);
        return -EIO;
    }
    uLong bound = deflateBound(&z, (uLong)plain.len);
    char *dst = rc_xmalloc(bound);
    z.next_in = (Bytef *)plain.ptr;
    z.avail_in = (uInt)plain.len;
    z.next_out = (Bytef *)dst;
    z.avail_out = (uInt)bound;
    int zr = deflate(&z, Z_FINISH);
    if (zr == Z_STREAM_END)
        rc_buf_append(out, dst, z.total_out);
    deflateEnd(&z);
    free(dst);
    rc_buf_release(&plain);
    return zr == Z_STREAM_END ? 0 : -EIO;
}

void rc_warc_http_head(rc_buf *out, const char *head, size_t len)
{
    const char *p = head, *end = head + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *next = nl ? nl + 1 : end;
        const char *eol = next;
        while (eol > p && (eol[-1] == '\n' || eol[-1] == '\r'))
            eol--;
        if (eol == p)
            break; /* the empty line: written below, once */
        if ((size_t)(eol - p) > 18 && strncasecmp(p, "transfer-encoding:", 18) == 0)
            rc_buf_puts(out, "X-Crawler-");
        rc_buf_append(out, p, (size_t)(eol - p));
        rc_buf_puts(out, "\r\n");
        p = next;
    }
    rc_buf_puts(out, "\r\n");
}
