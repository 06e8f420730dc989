/* tailids.h - the _ids stored at the end of a JSON Lines output file, for a resume after a crash
 * that lost Redis' last writes (ARCHITECTURE.md "Pausing and resuming a crawl"). The file is the
 * JSON Lines sink's (worker/sink_jsonl.c): one record a line, its _id index beside it (FILE.ids,
 * lines "start end _id"). While a crawl runs, a mark (rc_tailids_mark: an offset before which
 * every record was complete) goes into Redis; after such a crash the _ids of the records past
 * the surviving mark go to a list file (rc_tailids_append), which the workers load as a set
 * (rc_tailids_load) and look up before they store one of those pages again. */
#ifndef RC_TAILIDS_H
#define RC_TAILIDS_H

#include <stddef.h>
#include <stdint.h>

#include "strmap.h"

/* The _id of the JSON Lines record LINE ("_id":"..." in it, as the sink writes every record): its
 * first byte, its length in *ret_len; NULL when the line holds none. */
const char *rc_tailids_record_id(const char *line, size_t *ret_len);

/* The end of the last complete line of the _id index idx_path, in *ret: every record of its data
 * file before that offset was complete when it was read (a record's index line follows it). 0
 * when there is no index (nothing stored) or no complete line in its last bytes. 0 or -errno. */
int rc_tailids_mark(const char *idx_path, int64_t *ret);

/* Appends to the list file list_path (created, synced) the _id of each complete record of
 * data_path from offset from (a line's start; the start of the line it falls in otherwise) to
 * its end, one a line; *ret_n how many. A missing data file holds none. 0, or -errno with err. */
int rc_tailids_append(const char *data_path, int64_t from, const char *list_path, size_t *ret_n, char *err, size_t cap);

/* The list file list_path as a set: its lines are the keys, values (void *)1, in *ret (the
 * caller's, rc_strmap_free(m, NULL)). 0, or -errno with err (-ENOENT: no such file). */
int rc_tailids_load(const char *list_path, rc_strmap **ret, char *err, size_t cap);

#endif
