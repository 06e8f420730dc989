/* test_warc.c - WARC record bytes: digests, fields, one gzip member per record, HTTP heads. */
#include <string.h>
#include <zlib.h>

#include "rc_test.h"
#include "util.h"
#include "warc.h"

/* Inflates exactly one gzip member from p; its compressed length in *used. */
static void gunzip_one(const char *p, size_t n, rc_buf *out, size_t *used)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    RC_CHECK(inflateInit2(&z, 15 + 16) == Z_OK);
    char buf[4096];
    z.next_in = (Bytef *)p;
    z.avail_in = (uInt)n;
    int r;
    do {
        z.next_out = (Bytef *)buf;
        z.avail_out = sizeof buf;
        r = inflate(&z, Z_NO_FLUSH);
        rc_buf_append(out, buf, sizeof buf - z.avail_out);
    } while (r == Z_OK);
    RC_CHECK_INT_EQ(r, Z_STREAM_END);
    *used = n - z.avail_in;
    inflateEnd(&z);
}

int main(void)
{
    char d[40];
    rc_warc_sha1("abc", 3, d); /* FIPS 180 vector, base32 as WARC writers print it */
    RC_CHECK_STR_EQ(d, "sha1:VGMT4NSHA2AWVOR6EVYXQUGCNSONBWE5");
    rc_warc_sha1("", 0, d);
    RC_CHECK_STR_EQ(d, "sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ");

    char id1[RC_WARC_ID_LEN], id2[RC_WARC_ID_LEN];
    rc_warc_new_id(id1);
    rc_warc_new_id(id2);
    RC_CHECK_INT_EQ((int)strlen(id1), 47);
    RC_CHECK(strncmp(id1, "<urn:uuid:", 10) == 0 && id1[24] == '4');
    RC_CHECK(strcmp(id1, id2) != 0);

    /* Chunking is not kept, so its header is renamed; the head ends with one empty line. */
    const char head[] = "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nTransfer-Encoding: chunked\r\n\r\n";
    rc_buf h;
    rc_buf_init(&h);
    rc_warc_http_head(&h, head, sizeof head - 1);
    RC_CHECK_STR_EQ(h.ptr,
                    "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nX-Crawler-Transfer-Encoding: chunked\r\n\r\n");
    size_t payload_off = h.len;
    rc_buf_puts(&h, "abc");

    rc_warc_rec r = {.type = "response",
                     .id = id1,
                     .date = "2026-01-02T03:04:05.006Z",
                     .target_uri = "http://a.test/x",
                     .ip = "127.0.0.1",
                     .content_type = "application/http; msgtype=response",
                     .block = h.ptr,
                     .block_len = h.len,
                     .payload_off = payload_off};
    rc_buf two, plain;
    rc_buf_init(&two);
    rc_buf_init(&plain);
    RC_CHECK_INT_EQ(rc_warc_append(&two, &r, 6), 0);
    size_t first = two.len;
    rc_warc_rec q = {.type = "request",
                     .id = id2,
                     .date = r.date,
                     .target_uri = r.target_uri,
                     .concurrent_to = id1,
                     .content_type = "application/http; msgtype=request",
                     .block = "GET /x HTTP/1.1\r\n\r\n",
                     .block_len = 19};
    RC_CHECK_INT_EQ(rc_warc_append(&two, &q, 1), 0);

    /* Each record is a gzip member of its own: the second opens at the first's end. */
    size_t used = 0;
    gunzip_one(two.ptr, two.len, &plain, &used);
    RC_CHECK_INT_EQ((int)used, (int)first);
    RC_CHECK(strncmp(plain.ptr, "WARC/1.1\r\nWARC-Type: response\r\n", 31) == 0);
    RC_CHECK(strstr(plain.ptr, "WARC-Payload-Digest: sha1:VGMT4NSHA2AWVOR6EVYXQUGCNSONBWE5\r\n") != NULL);
    RC_CHECK(strstr(plain.ptr, "WARC-IP-Address: 127.0.0.1\r\n") != NULL);
    char want_len[64];
    snprintf(want_len, sizeof want_len, "Content-Length: %zu\r\n\r\nHTTP/1.1 200 OK", h.len);
    RC_CHECK(strstr(plain.ptr, want_len) != NULL);
    RC_CHECK(plain.len > 4 && memcmp(plain.ptr + plain.len - 7, "abc\r\n\r\n", 7) == 0);
    rc_buf_reset(&plain);
    gunzip_one(two.ptr + first, two.len - first, &plain, &used);
    RC_CHECK_INT_EQ((int)(first + used), (int)two.len);
    RC_CHECK(strstr(plain.ptr, "WARC-Type: request\r\n") != NULL);
    RC_CHECK(strstr(plain.ptr, "WARC-Concurrent-To: ") != NULL);
    RC_CHECK(strstr(plain.ptr, "WARC-Payload-Digest") == NULL); /* no payload_off: no payload digest */

    rc_buf_release(&h);
    rc_buf_release(&two);
    rc_buf_release(&plain);
    return rc_test_done("test_warc");
}
