/* sink_mongo.h - the MongoDB sink: page records and items upserted by their _id with
 * mongo-c-driver, which blocks, so the sink owns one writer thread fed by a bounded queue and
 * reports back to the loop thread with an ev_async (CONVENTIONS.md item 8).
 *
 * The unit of work is a write-group: all documents of one page (its page record plus the items
 * extracted from it). A group's callback runs on the loop thread once every document of it is
 * stored, never before, so the worker acks the page to the frontier only then. Transient store
 * errors (server down, network, timeouts, "not primary", auth) are retried forever with
 * exponential back-off while the group stays queued: an outage loses nothing, and the URL stays
 * leased in Redis because it was not acked. When the queue is full, put() says -EAGAIN and the
 * caller stops taking work.
 *
 * Documents are JSON objects with a deterministic string "_id" (rc_record_doc_id of (crawlid,
 * url) for a page record and a page's single item, of (crawlid, url, position) for list
 * items), so a redelivered page overwrites its earlier copy instead of duplicating it. The end
 * state is that of an unordered bulk replace-one-by-_id with upsert, written as an unordered
 * bulk insert first and, for the documents whose _id is there already (duplicate key: a
 * redelivered page), replace-one-by-_id with upsert in put order, so the later copy wins.
 * Inserting first is for FerretDB 1.x, whose updates scan the collection (an upsert costs
 * milliseconds per document and grows with the collection; an insert does not). Nothing else
 * is unique: the sink creates one plain index per collection (crawlid ascending), once, off the
 * hot path.
 *
 * Callers sanitise field names: no '.' anywhere and no leading '$', at any depth (MongoDB
 * reserves them and FerretDB rejects them). A group with such a key, a document that is not a
 * JSON object, lacks a string "_id" or is too large is rejected as a whole before anything of
 * it is written: done(ud, -EINVAL, why), never retried. A document the server itself rejects
 * for its content (e.g. FerretDB: nested arrays) also fails its group with -EINVAL; the other
 * documents of that group are stored.
 *
 * FerretDB 1.x, which the tests run against, aborts a whole update command at its first failing
 * document whatever "ordered" says, and reports the failure at a wrong index (its unordered
 * inserts do go on, with right indexes). So the sink uses write-error indexes only from inserts,
 * and only when they add up (inserted + errors = documents); otherwise, and after a refused
 * replace, it writes those documents one at a time to find the culprits (idempotent). */
#ifndef RC_SINK_MONGO_H
#define RC_SINK_MONGO_H

#include <stddef.h>

#include "store.h"

struct ev_loop;

typedef struct rc_mongo_sink rc_mongo_sink;

typedef struct rc_mongo_opts {
    const char *uri;              /* mongodb://... (copied). connectTimeoutMS=3000,
                                   * serverSelectionTimeoutMS=3000 and socketTimeoutMS=30000 are
                                   * set unless the URI says otherwise */
    const char *database;         /* default: the URI's database, else "redcrawl" */
    const char *pages_collection; /* default "pages" */
    const char *items_collection; /* template, "{spiderid}" replaced; default "items_{spiderid}" */
    size_t batch_max;             /* docs per bulk write, default 500 */
    double batch_ms;              /* a queued doc waits at most this long for a batch, default 200 ms */
    size_t queue_max;             /* docs queued or being written (bounded), default 20000 */
    double retry_max_s;           /* back-off cap for transient errors, default 30 s */
    double stop_timeout_s;        /* rc_mongo_sink_free waits this long to flush, default 10 s */
} rc_mongo_opts;

enum rc_mongo_kind {
    RC_MONGO_PAGE = 0, /* -> pages_collection */
    RC_MONGO_ITEM = 1, /* -> items_collection with the doc's spiderid */
};

typedef struct rc_mongo_doc {
    int kind;             /* enum rc_mongo_kind */
    const char *spiderid; /* RC_MONGO_ITEM: names the collection (printable, no '$', <= 64 bytes) */
    const char *json;     /* one JSON object with a string "_id" (copied by put) */
    size_t len;           /* bytes of json; 0 means strlen(json) */
} rc_mongo_doc;

void rc_mongo_opts_init(rc_mongo_opts *o);

/* Starts the writer thread; connects lazily (a server that is down is not an error here).
 * NULL and err only for a bad URI or bad options. loop is borrowed and must outlive the sink;
 * put(), pending() and free() are called on the thread that runs it. */
rc_mongo_sink *rc_mongo_sink_new(struct ev_loop *loop, const rc_mongo_opts *o, char *err, size_t cap);

/* Queues one write-group of n >= 1 documents (all copied). On 0, done(ud, status, err) runs
 * exactly once, on the loop thread, from an ev_async callback (or from rc_mongo_sink_free):
 *   0           every document is stored;
 *   -EINVAL     a document was rejected for good (err says which and why); do not retry;
 *   -ECANCELED  the sink was freed before the group was stored (do not ack the page).
 * err is borrowed for the call. On failure done is never called:
 *   -EAGAIN     the queue is full (more than queue_max documents would wait); the group is not
 *               queued: stop taking work and try again after some callbacks have run. A group
 *               larger than queue_max is accepted when the queue is empty;
 *   -EINVAL     n == 0, a NULL json or done;
 *   -ESHUTDOWN  called while the sink is being freed (e.g. from a callback run by free). */
int rc_mongo_sink_put(rc_mongo_sink *s, const rc_mongo_doc *docs, size_t n,
                      void (*done)(void *ud, int status, const char *err), void *ud);

/* Documents queued or being written (their groups' callbacks are still to come). */
size_t rc_mongo_sink_pending(const rc_mongo_sink *s);

/* Flushes what is queued (waiting at most stop_timeout_s), stops the thread and frees the sink.
 * Callbacks of stored groups that were not delivered yet run here with their status; groups not
 * stored by then get -ECANCELED. If a driver call is blocked in I/O when the time is up, this
 * waits for it to time out (socketTimeoutMS). Accepts NULL. Free the sink before exit():
 * mongoc_cleanup() runs at exit (mongoc_init runs once, with the first sink). Not from inside
 * a done callback (defer it). */
void rc_mongo_sink_free(rc_mongo_sink *s);
/* The sink as an rc_store (owns s); the worker stops taking pages past 10,000 pending. */
rc_store rc_mongo_sink_store(rc_mongo_sink *s);

#endif
