/* warc.h - WARC/1.1 records (ISO 28500:2017), each serialised as one gzip member so that a
 * reader can seek to any record's offset and decompress it alone (what CDX indexes and
 * `warcio index` rely on). Pure: builds bytes, writes no file (worker/sink_warc.c does). */
#ifndef RC_WARC_H
#define RC_WARC_H

#include <stddef.h>

#include "util.h"

/* "<urn:uuid:" + a version-4 UUID (36 characters) + ">" and its NUL. */
#define RC_WARC_ID_LEN 48

typedef struct rc_warc_rec {   /* all borrowed */
    const char *type;          /* "warcinfo", "request", "response", "metadata", "revisit" */
    const char *id;            /* WARC-Record-ID (rc_warc_new_id) */
    const char *date;          /* WARC-Date, e.g. "2026-11-25T03:30:26.123Z" */
    const char *target_uri;    /* NULL for warcinfo */
    const char *concurrent_to; /* NULL or the id of the record this one goes with */
    const char *refers_to;     /* revisit: NULL or the earlier record's target URI */
    const char *ip;            /* WARC-IP-Address, NULL = none */
    const char *filename;      /* warcinfo: WARC-Filename */
    const char *content_type;  /* of the block */
    const char *truncated;     /* WARC-Truncated reason ("length"), NULL = whole */
    const char *profile;       /* revisit: WARC-Profile */
    const char *block;
    size_t block_len;
    size_t payload_off; /* > 0: the block carries an HTTP message whose payload starts
                           here; its SHA-1 goes in WARC-Payload-Digest */
} rc_warc_rec;

/* A random (version 4) record id from the kernel's random source. */
void rc_warc_new_id(char out[RC_WARC_ID_LEN]);
/* "sha1:" and the base32 (RFC 4648) SHA-1 of data: 5 + 32 characters and a NUL. */
void rc_warc_sha1(const void *data, size_t len, char out[40]);
/* Appends the record as one gzip member (zlib level 1-9) to out. 0, or -EIO when zlib fails. */
int rc_warc_append(rc_buf *out, const rc_warc_rec *r, int level);
/* The same uncompressed (for tests and readers of plain .warc). */
void rc_warc_format(rc_buf *out, const rc_warc_rec *r);
/* An HTTP response head as received, made fit to precede a body that is stored de-chunked:
 * Transfer-Encoding is renamed X-Crawler-Transfer-Encoding (the payload is the entity as
 * decoded from chunks, not the chunks), and the head ends with one empty line. Appended to out. */
void rc_warc_http_head(rc_buf *out, const char *head, size_t len);

#endif
