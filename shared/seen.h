/* seen.h - the worker-local seen-cache in front of the Redis bloom: a bounded set of 64-bit
 * URL hashes. A hit means this worker already sent the URL through the bloom, so the link
 * costs no Redis work. When full it starts over (a miss only costs a bloom check).
 * One thread adds; rc_seen_has may run on other threads meanwhile (the worker's parse thread). */
#ifndef RC_SEEN_H
#define RC_SEEN_H

#include <stddef.h>
#include <stdint.h>

typedef struct rc_seen rc_seen;

/* max_entries is rounded up to a power of two; the table holds at most 3/4 of its slots. It
 * starts at 4,096 slots (32 KiB) and doubles as it fills, up to that size. */
rc_seen *rc_seen_new(size_t max_entries);
void rc_seen_free(rc_seen *s);
int rc_seen_has(const rc_seen *s, uint64_t h);
void rc_seen_add(rc_seen *s, uint64_t h);
size_t rc_seen_count(const rc_seen *s);
uint64_t rc_seen_resets(const rc_seen *s);
/* Memory held: the current table and the smaller ones kept for readers (rc_seen_drop_older). */
size_t rc_seen_bytes(const rc_seen *s);
/* How many times the table grew. A lookup that begins after the n-th grow reads the n-th table
 * or a later one; one that began before may still be on an older table. */
uint64_t rc_seen_grows(const rc_seen *s);
/* Frees the tables the current one replaced (adding thread). The caller makes sure that every
 * lookup that began before the last grow has returned (the worker: every page that was on a
 * parse thread then came back); until this, they are kept (at most the current one's size). */
void rc_seen_drop_older(rc_seen *s);

#endif
