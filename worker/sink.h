/* sink.h - where page records (and, later, items) go. The JSON Lines sink is the embedded
 * default: one file per job, one JSON object per line, written with a single write() on an
 * O_APPEND descriptor so several worker processes can share a file without tearing lines.
 * Writes are idempotent by the document's _id: a URL whose earlier attempt may have been
 * written (its lease was lost) is looked up before it is appended again. */
#ifndef RC_SINK_H
#define RC_SINK_H

#include <stddef.h>

typedef struct rc_sink rc_sink;

/* out: a directory, where "{crawlid}" is replaced by the job's id. */
rc_sink *rc_sink_jsonl_new(const char *out, char *err, size_t cap);
void rc_sink_free(rc_sink *s);
/* Appends doc (one JSON object, no newline) to the job's file for kind ("pages" or "items":
 * DIR/pages.jsonl, DIR/items.jsonl). With maybe_dup, first scans the file for id and writes
 * nothing when it is there. 0 or -errno; err says why. */
int rc_sink_write(rc_sink *s, const char *crawlid, const char *kind, const char *id, const char *doc, size_t len,
                  int maybe_dup, char *err, size_t cap);
/* The file of a job for kind (malloc'd). */
char *rc_sink_path(const rc_sink *s, const char *crawlid, const char *kind);

#endif
