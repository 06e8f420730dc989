/* store.h - the one interface every sink implements: JSON Lines (sink_jsonl.c), MongoDB
 * (sink_mongo.c), the Kafka crawled firehose (sink_kafka.c); a new sink (WARC, files, S3) is
 * one file that fills an rc_store_ops.
 *
 * A page is a write-group: its record, then its items, each with a deterministic _id and
 * serialised once. The worker hands the group to every store and acks the page to the frontier
 * only when all of them have it, so storing a page has no per-backend branch. Stores are used
 * from the loop thread only. */
#ifndef RC_STORE_H
#define RC_STORE_H

#include <stddef.h>

typedef struct rc_store_doc {
    const char *id;   /* the document's _id */
    const char *json; /* one JSON object, no newline */
    size_t len;
    int supersedes; /* a newer version of a record stored before (a redirect chain's first
                       URL): written even when maybe_dup finds its _id (JSON Lines appends,
                       MongoDB replaces) */
} rc_store_doc;

typedef struct rc_write_group {
    const char *crawlid;
    const char *spiderid;
    const rc_store_doc *docs; /* docs[0 .. n_pages) are page records, the rest items */
    size_t n;                 /* >= 1 */
    size_t n_pages;           /* >= 1 */
    int maybe_dup;            /* an earlier attempt may have stored it: stores that cannot
                                 overwrite by _id look it up first */
} rc_write_group;

/* status 0: every document is stored; -EINVAL: rejected for good (do not retry); other
 * negative: not stored (try again later). err is borrowed for the call. */
typedef void (*rc_store_done)(void *ud, int status, const char *err);

typedef struct rc_store_ops {
    const char *name;
    /* Takes the group (documents copied or written before returning). 0: done(ud, ...) runs
     * exactly once, later on the loop or before put returns. Negative: done is never called and
     * err says why: -EAGAIN the store is full, nothing was taken (try later); another code, the
     * group failed (a part may have been written: it is a redelivery next time). */
    int (*put)(void *impl, const rc_write_group *g, rc_store_done done, void *ud, char *err, size_t cap);
    /* Documents taken whose done has not run yet. */
    size_t (*pending)(const void *impl);
    /* Flushes what it can, then frees; done callbacks still owed run with -ECANCELED. */
    void (*free)(void *impl);
    /* Optional (NULL: none): the end of an event-loop turn, before the loop waits. A store
     * that buffers what put took writes it here and runs those groups' done callbacks. */
    void (*turn)(void *impl);
} rc_store_ops;

typedef struct rc_store {
    const rc_store_ops *ops;
    void *impl;
    size_t busy_at; /* pending() at which the worker stops taking new pages (0 = never) */
} rc_store;

#endif
