/* recpeek.h - the scheduler's read of a frontier record: its URL and depth only, without
 * building a JSON tree (a full parse was a third of the scheduler's time per URL); and one
 * integer or string of a page record (the crawl's summary reads every record's status and job). */
#ifndef RC_RECPEEK_H
#define RC_RECPEEK_H

#include <stddef.h>

/* Either form of record (record.h). Copies the record's "url" into url (NUL-terminated) and its "depth" into *depth.
 * -EAGAIN when the URL holds an escape other than \/ (rc_record_parse it then), -ENOSPC when it does not fit, -EINVAL
 * when json is not an object with a string url and an integer depth. */
int rc_record_peek(const char *json, size_t len, char *url, size_t cap, int *depth);

/* The integer value of a top-level member of the JSON object json (its key as written, no
 * escapes), without building a tree: 0, -ENOENT when the object has no such member, -EDOM when
 * its value is not an integer (null, a string...), -EINVAL when json is not one well-bracketed
 * object. Nested members of that name are not looked at. */
int rc_json_peek_int(const char *json, size_t len, const char *key, long long *ret);
/* The same for a string member: its value copied to out, NUL-terminated. -EDOM when it is not a
 * string, -EAGAIN when it holds an escape, -ENOSPC when it does not fit in cap; -ENOENT and
 * -EINVAL as above. */
int rc_json_peek_str(const char *json, size_t len, const char *key, char *out, size_t cap);
/* Whether the object has such a member, whatever its value: 1, 0, or -EINVAL as above. */
int rc_json_peek_has(const char *json, size_t len, const char *key);

#endif
