/* sink_warc.h - the WARC sink: every final response of a job with "warc": true is kept as it
 * came from the wire, in WARC/1.1 files (shared/warc.c) that archive tools read.
 *
 * Per job a directory (DIR, "{crawlid}" replaced); in it each worker process writes its own
 * files, so processes sharing the directory never share a file and need no lock:
 *   REDCRAWL-YYYYMMDDhhmmss-SERIAL-HOST-PID.warc.gz
 * (creation time UTC, a five-digit serial counting this process's files, its host name and pid),
 * each opening with a warcinfo record and closed for the next one once it passes max_bytes.
 * A file being written is named NAME.open and renamed NAME when closed (rotation, exit); one left
 * .open was cut short by a crash (its complete records are readable).
 * A fetch is three records, each its own gzip member: response (status line and headers as
 * received, the body as received, content coding kept, chunking removed), request (the head
 * curl sent) and metadata (warc-fields). The page record names the response record's file and
 * offset. Single-threaded: called from the worker's loop (writes are appends of a few KB). */
#ifndef RC_SINK_WARC_H
#define RC_SINK_WARC_H

#include <stddef.h>
#include <stdint.h>

struct rc_fetch_result;

typedef struct rc_warc_sink rc_warc_sink;

#define RC_WARC_DEFAULT_MAX_BYTES (1000ull * 1000 * 1000) /* 1 GB, as Heritrix */

/* Where a response record went. */
typedef struct rc_warc_where {
    char file[256];  /* file name (no directory) */
    uint64_t offset; /* of the response record's gzip member */
    uint64_t length; /* of that member */
} rc_warc_where;

/* dir is copied; max_bytes: a file is closed for the next one once this size is passed; level:
 * gzip level 1-9 (1 costs about 0.6 ms of CPU per 30 KB page here, 6 about 1.6 ms for 14% less). */
rc_warc_sink *rc_warc_sink_new(const char *dir, uint64_t max_bytes, int level, char *err, size_t cap);
/* fdatasync after every fetch's records (the JSON Lines --fsync batch and record policies). */
void rc_warc_sink_set_fsync(rc_warc_sink *s, int on);
/* Instead (fn not NULL): fn(fd, ud) after every fetch's records, 0 or -errno (a failure fails
 * the write as a failed fdatasync does). The worker hands the file to the JSON Lines group
 * commit this way (--fsync batch), whose sync covers it before the page is acknowledged. */
void rc_warc_sink_set_sync(rc_warc_sink *s, int (*fn)(int fd, void *ud), void *ud);
void rc_warc_sink_free(rc_warc_sink *s);
/* Appends the records of one response (res->ok with an HTTP status). metadata: warc-fields
 * lines ("name: value\r\n"...), may be NULL. 0 with *ret filled, or -errno with nothing of it
 * left in the file. */
int rc_warc_sink_write(rc_warc_sink *s, const char *crawlid, const struct rc_fetch_result *res, const char *metadata,
                       uint64_t now_ms, rc_warc_where *ret, char *err, size_t cap);
/* The job's WARC directory (malloc'd). */
char *rc_warc_sink_dir(const rc_warc_sink *s, const char *crawlid);

#endif
