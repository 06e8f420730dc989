/* sink.h - where page records and items go. The JSON Lines sink is the embedded default: one
 * file per job and kind, one JSON object per line, appended under flock() so several worker
 * processes share a file; a failed or short write is rolled back to the last complete record.
 * Writes are idempotent by the document's _id: a URL whose earlier attempt may have been
 * written (its lease was lost) is looked up in the _id index kept beside the file (FILE.ids)
 * before it is appended again. */
#ifndef RC_SINK_H
#define RC_SINK_H

#include <stddef.h>

#include "store.h"

struct ev_loop;

typedef struct rc_sink rc_sink;

/* When the data reaches the disk: none (the kernel decides; a machine crash may lose the last
 * seconds), batch (the store acknowledges a group once an fdatasync covers it: on a sync thread
 * shared by many turns once rc_sink_commit_start ran, else once per turn on the caller's
 * thread, rc_sink_flush), record (fdatasync after every write: rc_sink_write's record, the
 * store's page at its put). README "Storage" gives the measured cost. */
typedef enum rc_sink_fsync { RC_SINK_FSYNC_NONE, RC_SINK_FSYNC_BATCH, RC_SINK_FSYNC_RECORD } rc_sink_fsync;

/* out: a directory, where "{crawlid}" is replaced by the job's id. */
rc_sink *rc_sink_jsonl_new(const char *out, char *err, size_t cap);
void rc_sink_set_fsync(rc_sink *s, rc_sink_fsync policy);
/* "none", "batch", "record"; -EINVAL otherwise. */
int rc_sink_fsync_parse(const char *name, rc_sink_fsync *ret);
/* The per-batch policy's sync of every file written since the last flush. 0 or -errno. */
int rc_sink_flush(rc_sink *s, char *err, size_t cap);
void rc_sink_free(rc_sink *s);
/* The batch policy's group commit, for the store (nothing otherwise): its turn writes without
 * syncing, a thread syncs the files written at most every interval_s (every file a generation
 * touched, data and _id index, pages and items, in one go) and the groups' done runs on loop
 * (borrowed; outlives the sink) once a sync covers them. 0 or -errno (err says why). */
int rc_sink_commit_start(rc_sink *s, struct ev_loop *loop, double interval_s, char *err, size_t cap);
/* Another file (fd borrowed: a duplicate is taken) joins the generation being gathered: the
 * groups put from now on are acknowledged only once it is synced as well, and its failed sync
 * fails them. 0, or -errno (-ENOTSUP: no group commit): then sync it yourself. */
int rc_sink_commit_add(rc_sink *s, int fd);
/* For tests: the commit thread's sync of a descriptor (NULL: fdatasync), 0 or -errno; called
 * on the sync thread. */
void rc_sink_commit_set_sync(rc_sink *s, int (*fn)(int fd, void *ud), void *ud);
/* Appends doc (one JSON object, no newline) to the job's file for kind ("pages" or "items":
 * DIR/pages.jsonl, DIR/items.jsonl) and its _id to the index. With maybe_dup, first looks id
 * up and writes nothing when it is there. 0 or -errno (nothing of it stays); err says why. */
int rc_sink_write(rc_sink *s, const char *crawlid, const char *kind, const char *id, const char *doc, size_t len,
                  int maybe_dup, char *err, size_t cap);
/* The sink as an rc_store (owns s: the store's free frees it). Its put takes a group's lines;
 * its turn (the end of an event-loop turn) writes them, one write per file, and only then runs
 * the groups' done. */
rc_store rc_sink_jsonl_store(rc_sink *s);
/* The file of a job for kind (malloc'd). */
char *rc_sink_path(const rc_sink *s, const char *crawlid, const char *kind);

#endif
