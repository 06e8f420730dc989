/* sink_mongo.c - the MongoDB sink, see sink_mongo.h.
 *
 * Threads: the loop thread calls put/pending/free and runs the callbacks; one writer thread
 * owns the mongoc_client_t and does all I/O. They share, under s->mu, the queue of groups not
 * yet taken by the writer, the list of finished groups waiting for delivery, the document
 * counters and the stop flags. A group belongs to the writer from the moment it takes it off
 * the queue until it hands it to the done list (or, when the sink gives up, back to the queue).
 *
 * The writer takes whole groups, up to batch_max documents (at least one group), once batch_max
 * documents wait or the oldest has waited batch_ms. A batch is sorted by collection (then put
 * order) and written per collection as one unordered bulk insert; documents that hit a
 * duplicate _id are then replaced (replace-one with upsert, in chunks). A transient failure
 * sleeps (exponential back-off with jitter, capped at retry_max_s) and rewrites what is not
 * stored, forever; any other failure writes the documents concerned one at a time to find the
 * ones the server refuses (see classify()). */
#include "sink_mongo.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ev.h>
#include <mongoc/mongoc.h>
#include <zlib.h>

#include "log.h"
#include "strmap.h"
#include "util.h"

#define MOD "mongo"
/* A BSON document is at most 16 MiB; leave room for the update statement around it. */
#define DOC_MAX (16 * 1024 * 1024 - 16 * 1024)
#define NAME_MAX_BYTES 120
#define SPIDERID_MAX 64
#define AMBIGUOUS_TRIES 3
/* Replacements per update command. FerretDB 1.x on SQLite scans the whole collection for each
 * update statement (about 0.2 s per statement at 100k documents), so a long command could
 * outlast socketTimeoutMS and be retried forever; MongoDB does not care either way. */
#define REPLACE_CHUNK 10

enum doc_state { DOC_WAITING = 0, DOC_STORED, DOC_REJECTED };

struct group;

typedef struct mdoc {
    struct group *g;
    size_t index; /* position in its group */
    int kind;
    char *json; /* copied by put; freed once converted */
    size_t len;
    char *spiderid; /* items only */
    bson_t *bson;   /* writer thread */
    const char *id; /* points into bson */
    char *coll;
    uint64_t seq; /* batch order: a later copy of an _id is written last */
    int state;
} mdoc;

typedef struct group {
    struct group *next;
    mdoc *docs;
    size_t n;
    void (*done)(void *ud, int status, const char *err);
    void *ud;
    double queued_at; /* monotonic seconds */
    int converted;
    int status;
    char *err;
} group;

struct rc_mongo_sink {
    struct ev_loop *loop;
    ev_async async;
    size_t outstanding; /* loop thread: groups accepted and not delivered */
    int freeing;

    /* Fixed at new(). */
    char *database, *pages, *items_tmpl, *where;
    size_t batch_max, queue_max;
    double batch_s, retry_max_s, stop_timeout_s;
    mongoc_uri_t *uri;
    mongoc_client_t *client; /* used by the writer thread only */
    bson_t *bulk_opts, *insert_opts, *replace_opts, *upsert_opts;

    pthread_t thread;
    int sync_ready, async_started, thread_started;
    pthread_mutex_t mu;
    pthread_cond_t wake; /* writer: new work, stop, give up */
    pthread_cond_t idle; /* free(): everything written */
    /* Under mu. */
    group *head, *tail;  /* queued, not taken */
    size_t queued_docs;  /* in head..tail */
    size_t pending_docs; /* queued or being written */
    group *done_head, *done_tail;
    int stopping, give_up;

    /* Writer thread only. */
    rc_strmap *indexed; /* collections whose crawlid index exists (or cannot be made) */
    uint64_t seq;
    uint64_t rnd;
};

/* ------------------------------------------------------------ process-wide init ---- */

static pthread_once_t mongoc_once = PTHREAD_ONCE_INIT;

static void log_handler(mongoc_log_level_t level, const char *domain, const char *message, void *ud)
{
    (void)ud;
    /* FerretDB 1.x has no endSessions: the driver says so once per client it destroys. */
    if (strstr(message, "endSessions"))
        level = MONGOC_LOG_LEVEL_DEBUG;
    int l = level <= MONGOC_LOG_LEVEL_CRITICAL  ? RC_LOG_ERROR
            : level == MONGOC_LOG_LEVEL_WARNING ? RC_LOG_WARN
            : level <= MONGOC_LOG_LEVEL_INFO    ? RC_LOG_INFO
                                                : RC_LOG_DEBUG;
    rc_log(l, "mongoc", "%s domain=%s", message, domain);
}

static void mongoc_once_init(void)
{
    mongoc_log_set_handler(log_handler, NULL);
    mongoc_init();
    /* mongoc_init and mongoc_cleanup may each run once per process. */
    atexit(mongoc_cleanup);
}

/* --------------------------------------------------------------------- helpers ---- */

static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void wait_until(pthread_cond_t *c, pthread_mutex_t *m, double t)
{
    struct timespec ts;
    if (t < 0)
        t = 0;
    ts.tv_sec = (time_t)t;
    ts.tv_nsec = (long)((t - (double)ts.tv_sec) * 1e9);
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    pthread_cond_timedwait(c, m, &ts);
}

static int db_name_ok(const char *n)
{
    size_t len = strlen(n);
    if (len == 0 || len >= 64)
        return 0;
    for (const unsigned char *p = (const unsigned char *)n; *p; p++)
        if (*p < 0x20 || *p == 0x7f || strchr("/\\. \"$*<>:|?", *p))
            return 0;
    return 1;
}

static int coll_name_ok(const char *n)
{
    size_t len = strlen(n);
    if (len == 0 || len > NAME_MAX_BYTES || n[0] == '.' || n[len - 1] == '.' || strstr(n, "..") ||
        strncmp(n, "system.", 7) == 0)
        return 0;
    for (const unsigned char *p = (const unsigned char *)n; *p; p++)
        if (*p < 0x20 || *p == 0x7f || *p == '$')
            return 0;
    return 1;
}

static char *items_coll(const char *tmpl, const char *spiderid)
{
    rc_buf b;
    rc_buf_init(&b);
    const char *p = tmpl, *mark;
    while ((mark = strstr(p, "{spiderid}"))) {
        rc_buf_append(&b, p, (size_t)(mark - p));
        rc_buf_puts(&b, spiderid);
        p = mark + 10;
    }
    rc_buf_puts(&b, p);
    return rc_buf_steal(&b);
}

static void group_free(group *g)
{
    if (!g)
        return;
    for (size_t i = 0; i < g->n; i++) {
        mdoc *d = &g->docs[i];
        free(d->json);
        free(d->spiderid);
        free(d->coll);
        if (d->bson)
            bson_destroy(d->bson);
    }
    free(g->docs);
    free(g->err);
    free(g);
}

/* ----------------------------------------------------------- loop-thread side ---- */

static void outstanding_sub(rc_mongo_sink *s)
{
    if (--s->outstanding == 0)
        ev_unref(s->loop); /* nothing to wait for: the async watcher must not keep the loop alive */
}

static void deliver(rc_mongo_sink *s)
{
    pthread_mutex_lock(&s->mu);
    group *g = s->done_head;
    s->done_head = s->done_tail = NULL;
    pthread_mutex_unlock(&s->mu);
    while (g) {
        group *next = g->next;
        outstanding_sub(s);
        g->done(g->ud, g->status, g->status ? g->err : NULL);
        group_free(g);
        g = next;
    }
}

static void on_async(struct ev_loop *loop, ev_async *w, int revents)
{
    (void)loop;
    (void)revents;
    deliver(w->data);
}

/* ----------------------------------------------------------------- writer side ---- */

enum err_class { ERR_TRANSIENT = 1, ERR_DOC, ERR_AMBIGUOUS }; /* 0 is success */

/* What a failed write means. Transient: the store, not the document, is the problem (no
 * server, network, timeouts, failover, shutdown, auth, write concern): retried forever.
 * Doc: the server (or the driver) refuses this document's content: rejected at once.
 * Ambiguous: any other server error, e.g. FerretDB's "internal error" for a unique-index
 * violation on update, or a duplicate key when two upserts of one _id race: retried a few times
 * one document at a time, then rejected. */
static int classify(const bson_error_t *e)
{
    switch (e->domain) {
    case MONGOC_ERROR_BSON:
        return ERR_DOC;
    case MONGOC_ERROR_COMMAND:
        if (e->code == MONGOC_ERROR_COMMAND_INVALID_ARG)
            return ERR_DOC;
        break;
    case MONGOC_ERROR_SERVER:
    case MONGOC_ERROR_QUERY:
        switch (e->code) {
        case 2:     /* BadValue (FerretDB: bad key, nested arrays) */
        case 14:    /* TypeMismatch */
        case 22:    /* InvalidBSON */
        case 52:    /* DollarPrefixedFieldName */
        case 55:    /* InvalidDBRef */
        case 56:    /* EmptyFieldName */
        case 57:    /* DottedFieldName */
        case 66:    /* ImmutableField */
        case 121:   /* DocumentValidationFailure */
        case 10334: /* BSONObjectTooLarge */
        case 17419: /* document too large */
        case 17420:
            return ERR_DOC;
        case 6:     /* HostUnreachable */
        case 7:     /* HostNotFound */
        case 11:    /* UserNotFound */
        case 13:    /* Unauthorized */
        case 18:    /* AuthenticationFailed */
        case 24:    /* LockTimeout */
        case 46:    /* LockBusy */
        case 50:    /* MaxTimeMSExpired */
        case 64:    /* WriteConcernFailed */
        case 89:    /* NetworkTimeout */
        case 91:    /* ShutdownInProgress */
        case 112:   /* WriteConflict */
        case 117:   /* ConflictingOperationInProgress */
        case 133:   /* FailedToSatisfyReadPreference */
        case 189:   /* PrimarySteppedDown */
        case 262:   /* ExceededTimeLimit */
        case 9001:  /* SocketException */
        case 10107: /* NotWritablePrimary */
        case 11600: /* InterruptedAtShutdown */
        case 11602: /* InterruptedDueToReplStateChange */
        case 13435: /* NotPrimaryNoSecondaryOk */
        case 13436: /* NotPrimaryOrSecondary */
        case 10058: /* LegacyNotPrimary */
        case 16500: /* request rate too large (Cosmos DB) */
            return ERR_TRANSIENT;
        default:
            return ERR_AMBIGUOUS;
        }
    default:
        break;
    }
    /* Stream, server selection, protocol, client, SASL, write concern ... */
    return ERR_TRANSIENT;
}

static double backoff_s(rc_mongo_sink *s, unsigned attempt)
{
    double d = 0.1;
    for (unsigned i = 1; i < attempt && d < s->retry_max_s; i++)
        d *= 2;
    if (d > s->retry_max_s)
        d = s->retry_max_s;
    /* +-20% jitter (xorshift64) so that many workers do not hammer a recovering server at once. */
    s->rnd ^= s->rnd << 13;
    s->rnd ^= s->rnd >> 7;
    s->rnd ^= s->rnd << 17;
    return d * (0.8 + 0.4 * (double)(s->rnd % 1000) / 1000.0);
}

/* Sleeps sec seconds unless the sink gives up meanwhile: -ECANCELED then. */
static int nap(rc_mongo_sink *s, double sec)
{
    double until = mono_s() + sec;
    int r = 0;
    pthread_mutex_lock(&s->mu);
    while (!s->give_up && mono_s() < until)
        wait_until(&s->wake, &s->mu, until);
    if (s->give_up)
        r = -ECANCELED;
    pthread_mutex_unlock(&s->mu);
    return r;
}

static void reject_group(group *g, size_t i, const char *id, const char *why)
{
    g->status = -EINVAL;
    if (!g->err)
        g->err = rc_xasprintf("document %zu of %zu (_id=%s) rejected: %s", i + 1, g->n, id ? id : "?", why);
    rc_warn(MOD, "document rejected id=%s doc=%zu docs=%zu error=\"%s\"", id ? id : "?", i + 1, g->n, why);
}

/* A page's decoded HTML ("body", job option "body") is stored zlib-compressed as the binary
 * "body_z" with "body_coding": "zlib": HTML shrinks to about a fifth, and a BSON document stops
 * at 16 MB. NULL when doc has no string "body" (or zlib fails: then it is stored as it is). */
static bson_t *compress_body(const bson_t *doc)
{
    bson_iter_t it;
    uint32_t n = 0;
    if (!bson_iter_init_find(&it, doc, "body") || !BSON_ITER_HOLDS_UTF8(&it))
        return NULL;
    const char *body = bson_iter_utf8(&it, &n);
    uLongf zn = compressBound(n);
    uint8_t *z = rc_xmalloc(zn);
    bson_t *out = NULL;
    if (compress2(z, &zn, (const Bytef *)body, n, 6) == Z_OK) {
        out = bson_new();
        bson_copy_to_excluding_noinit(doc, out, "body", NULL);
        BSON_APPEND_BINARY(out, "body_z", BSON_SUBTYPE_BINARY, z, (uint32_t)zn);
        BSON_APPEND_UTF8(out, "body_coding", "zlib");
    }
    free(z);
    return out;
}

/* Converts d from JSON to BSON and checks it; on failure says why in why[]. */
static void convert_doc(rc_mongo_sink *s, mdoc *d, char *why, size_t cap)
{
    const uint32_t flags =
        BSON_VALIDATE_UTF8 | BSON_VALIDATE_DOLLAR_KEYS | BSON_VALIDATE_DOT_KEYS | BSON_VALIDATE_EMPTY_KEYS;
    bson_error_t be;
    const char *p = d->json, *end = d->json + d->len;
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r'))
        p++;
    why[0] = '\0';
    if (d->len > DOC_MAX) {
        snprintf(why, cap, "document is %zu bytes, more than the %d a BSON document can hold", d->len, DOC_MAX);
        return;
    }
    if (p == end || *p != '{') {
        snprintf(why, cap, "not a JSON object");
        return;
    }
    if (!(d->bson = bson_new_from_json((const uint8_t *)d->json, (ssize_t)d->len, &be))) {
        snprintf(why, cap, "cannot convert JSON to BSON: %s%s", be.message,
                 strchr(be.message, '$') ? " (callers must sanitise field names: no leading '$')" : "");
        return;
    }
    bson_t *compact = d->kind == RC_MONGO_PAGE ? compress_body(d->bson) : NULL;
    if (compact) {
        bson_destroy(d->bson);
        d->bson = compact;
    }
    bson_iter_t it;
    if (bson_iter_init_find(&it, d->bson, "_id") && BSON_ITER_HOLDS_UTF8(&it))
        d->id = bson_iter_utf8(&it, NULL); /* for messages, even when the rest is wrong */
    if (!bson_validate_with_error(d->bson, flags, &be)) {
        snprintf(why, cap, "bad field name: %s (callers must sanitise field names: no '.', no leading '$', not empty)",
                 be.message);
    } else if (d->bson->len > DOC_MAX) {
        snprintf(why, cap, "BSON document is %u bytes, more than %d", d->bson->len, DOC_MAX);
    } else if (!d->id) {
        snprintf(why, cap, "no string \"_id\"");
    } else if (d->kind == RC_MONGO_PAGE) {
        d->coll = rc_xstrdup(s->pages);
    } else if (d->kind != RC_MONGO_ITEM) {
        snprintf(why, cap, "unknown document kind %d", d->kind);
    } else if (!d->spiderid || !*d->spiderid || strlen(d->spiderid) > SPIDERID_MAX) {
        snprintf(why, cap, "an item needs a spiderid of 1-%d bytes", SPIDERID_MAX);
    } else {
        d->coll = items_coll(s->items_tmpl, d->spiderid);
        if (!coll_name_ok(d->coll))
            snprintf(why, cap, "spiderid \"%s\" makes a bad collection name \"%s\"", d->spiderid, d->coll);
    }
}

/* Converts every document of g; on the first bad one the whole group is rejected (nothing of
 * it is written). The JSON copies are freed as they are converted. */
static void convert_group(rc_mongo_sink *s, group *g)
{
    char why[600];
    g->converted = 1;
    for (size_t i = 0; i < g->n; i++) {
        mdoc *d = &g->docs[i];
        convert_doc(s, d, why, sizeof why);
        free(d->json);
        d->json = NULL;
        if (why[0]) {
            reject_group(g, i, d->id, why);
            break;
        }
        d->seq = s->seq++;
    }
    if (g->status) {
        for (size_t i = 0; i < g->n; i++) {
            mdoc *d = &g->docs[i];
            if (d->bson)
                bson_destroy(d->bson);
            d->bson = NULL;
            d->id = NULL;
            free(d->json);
            d->json = NULL;
            d->state = DOC_REJECTED;
        }
    }
}

static int by_coll_seq(const void *a, const void *b)
{
    const mdoc *x = *(const mdoc *const *)a, *y = *(const mdoc *const *)b;
    int c = strcmp(x->coll, y->coll);
    if (c)
        return c;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void ensure_index(rc_mongo_sink *s, const char *coll)
{
    if (rc_strmap_get(s->indexed, coll))
        return;
    bson_t *cmd = BCON_NEW("createIndexes", BCON_UTF8(coll), "indexes", "[", "{", "key", "{", "crawlid", BCON_INT32(1),
                           "}", "name", BCON_UTF8("crawlid_1"), "}", "]");
    mongoc_database_t *db = mongoc_client_get_database(s->client, s->database);
    bson_t reply;
    bson_error_t e;
    if (mongoc_database_write_command_with_opts(db, cmd, NULL, &reply, &e)) {
        rc_info(MOD, "index ready database=%s collection=%s key=crawlid", s->database, coll);
        rc_strmap_put(s->indexed, coll, (void *)1);
    } else if (classify(&e) != ERR_TRANSIENT) {
        /* Not worth blocking writes for: queries by crawlid just get slower. */
        rc_warn(MOD, "cannot create index, going on without it collection=%s error=\"%s\" code=%u", coll, e.message,
                e.code);
        rc_strmap_put(s->indexed, coll, (void *)1);
    }
    bson_destroy(&reply);
    bson_destroy(cmd);
    mongoc_database_destroy(db);
}

static int64_t iter_int(const bson_iter_t *it)
{
    return BSON_ITER_HOLDS_NUMBER(it) ? bson_iter_as_int64(it) : -1;
}

/* One unordered bulk insert of run[0..k). 0 when the reply accounts for every document: the
 * inserted ones are marked stored, those whose _id exists already (a redelivered page) go to
 * dups[], those refused for another reason to bad[]. Otherwise the error's class: transient,
 * or ambiguous when the reply cannot be matched to the documents. */
static int insert_bulk(rc_mongo_sink *s, mongoc_collection_t *c, mdoc **run, size_t k, mdoc **dups, size_t *ndups,
                       mdoc **bad, size_t *nbad, bson_error_t *e)
{
    mongoc_bulk_operation_t *b = mongoc_collection_create_bulk_operation_with_opts(c, s->bulk_opts);
    for (size_t i = 0; i < k; i++) {
        if (!mongoc_bulk_operation_insert_with_opts(b, run[i]->bson, s->insert_opts, e)) {
            mongoc_bulk_operation_destroy(b);
            return ERR_AMBIGUOUS;
        }
    }
    bson_t reply;
    uint32_t ok = mongoc_bulk_operation_execute(b, &reply, e);
    mongoc_bulk_operation_destroy(b);
    if (ok) {
        bson_destroy(&reply);
        for (size_t i = 0; i < k; i++)
            run[i]->state = DOC_STORED;
        return 0;
    }
    int cls = classify(e);
    bson_iter_t it, arr, el;
    if (cls == ERR_TRANSIENT || (bson_iter_init_find(&it, &reply, "writeConcernErrors") && BSON_ITER_HOLDS_ARRAY(&it) &&
                                 bson_iter_recurse(&it, &arr) && bson_iter_next(&arr))) {
        bson_destroy(&reply);
        return ERR_TRANSIENT;
    }
    int64_t inserted = -1;
    if (bson_iter_init_find(&it, &reply, "nInserted"))
        inserted = iter_int(&it);
    unsigned char *flag = rc_xcalloc(k, 1); /* 1 duplicate, 2 other error */
    size_t nerr = 0;
    int sane = inserted >= 0 && bson_iter_init_find(&it, &reply, "writeErrors") && BSON_ITER_HOLDS_ARRAY(&it) &&
               bson_iter_recurse(&it, &arr);
    while (sane && bson_iter_next(&arr)) {
        int64_t idx = -1, code = -1;
        if (BSON_ITER_HOLDS_DOCUMENT(&arr) && bson_iter_recurse(&arr, &el)) {
            while (bson_iter_next(&el)) {
                if (strcmp(bson_iter_key(&el), "index") == 0)
                    idx = iter_int(&el);
                else if (strcmp(bson_iter_key(&el), "code") == 0)
                    code = iter_int(&el);
            }
        }
        if (idx < 0 || (size_t)idx >= k || flag[idx]) {
            sane = 0;
            break;
        }
        flag[idx] = code == 11000 ? 1 : 2;
        nerr++;
    }
    bson_destroy(&reply);
    if (!sane || (size_t)inserted + nerr != k) {
        free(flag);
        return ERR_AMBIGUOUS;
    }
    for (size_t i = 0; i < k; i++) {
        if (flag[i] == 1)
            dups[(*ndups)++] = run[i];
        else if (flag[i] == 2)
            bad[(*nbad)++] = run[i];
        else
            run[i]->state = DOC_STORED;
    }
    free(flag);
    return 0;
}

/* One unordered bulk of upserts; 0 when all are stored, else the error's class in *e. */
static int write_bulk(rc_mongo_sink *s, mongoc_collection_t *c, mdoc **run, size_t k, bson_error_t *e)
{
    mongoc_bulk_operation_t *b = mongoc_collection_create_bulk_operation_with_opts(c, s->bulk_opts);
    for (size_t i = 0; i < k; i++) {
        bson_t sel = BSON_INITIALIZER;
        BSON_APPEND_UTF8(&sel, "_id", run[i]->id);
        bool ok = mongoc_bulk_operation_replace_one_with_opts(b, &sel, run[i]->bson, s->replace_opts, e);
        bson_destroy(&sel);
        if (!ok) {
            mongoc_bulk_operation_destroy(b);
            return ERR_DOC;
        }
    }
    bson_t reply;
    uint32_t ok = mongoc_bulk_operation_execute(b, &reply, e);
    bson_destroy(&reply);
    mongoc_bulk_operation_destroy(b);
    if (!ok)
        return classify(e);
    for (size_t i = 0; i < k; i++)
        run[i]->state = DOC_STORED;
    return 0;
}

/* Writes one document on its own until it is stored or rejected; -ECANCELED on give-up. */
static int write_one(rc_mongo_sink *s, mongoc_collection_t *c, mdoc *d)
{
    unsigned transient = 0, ambiguous = 0;
    for (;;) {
        bson_t sel = BSON_INITIALIZER;
        bson_error_t e;
        BSON_APPEND_UTF8(&sel, "_id", d->id);
        bool ok = mongoc_collection_replace_one(c, &sel, d->bson, s->upsert_opts, NULL, &e);
        bson_destroy(&sel);
        if (ok) {
            d->state = DOC_STORED;
            return 0;
        }
        int k = classify(&e);
        if (k == ERR_DOC || (k == ERR_AMBIGUOUS && ++ambiguous >= AMBIGUOUS_TRIES)) {
            char why[700];
            snprintf(why, sizeof why, "the server refused it: %s (code %u, collection %s)", e.message, e.code, d->coll);
            reject_group(d->g, d->index, d->id, why);
            d->state = DOC_REJECTED;
            return 0;
        }
        double wait = k == ERR_TRANSIENT ? backoff_s(s, ++transient) : 0.2 * ambiguous;
        rc_warn(MOD, "write failed, retrying id=%s collection=%s attempt=%u backoff_ms=%.0f error=\"%s\" code=%u",
                d->id, d->coll, transient + ambiguous, wait * 1000, e.message, e.code);
        if (nap(s, wait) < 0)
            return -ECANCELED;
    }
}

/* Writes run[0..k) of one collection, all not stored yet: an unordered insert first (the common
 * case: a page seen for the first time), then the documents whose _id was there already are
 * replaced (a redelivered page: the later copy wins, in put order), and whatever the server
 * refused is written alone to find out why. Sets *transient (and *last) when the store is
 * unavailable: what is not stored then stays to do. 0 or -ECANCELED. */
static int write_run(rc_mongo_sink *s, mdoc **run, size_t k, int *transient, bson_error_t *last)
{
    mongoc_collection_t *c = mongoc_client_get_collection(s->client, s->database, run[0]->coll);
    mdoc **dups = rc_xcalloc(k, sizeof *dups), **bad = rc_xcalloc(k, sizeof *bad);
    size_t ndups = 0, nbad = 0;
    bson_error_t e;
    int r = 0;
    int cls = insert_bulk(s, c, run, k, dups, &ndups, bad, &nbad, &e);
    if (cls == ERR_TRANSIENT) {
        *transient = 1;
        *last = e;
    } else if (cls) {
        rc_info(MOD, "insert reply unclear, writing one by one collection=%s docs=%zu error=\"%s\" code=%u",
                run[0]->coll, k, e.message, e.code);
        for (size_t i = 0; i < k && r == 0; i++)
            r = write_one(s, c, run[i]);
    } else {
        ensure_index(s, run[0]->coll);
        if (ndups)
            rc_debug(MOD, "replacing redelivered documents collection=%s docs=%zu", run[0]->coll, ndups);
        for (size_t i = 0; i < ndups && r == 0 && !*transient; i += REPLACE_CHUNK) {
            size_t n = RC_MIN(REPLACE_CHUNK, ndups - i);
            cls = write_bulk(s, c, dups + i, n, &e);
            if (cls == ERR_TRANSIENT) {
                *transient = 1;
                *last = e;
            } else if (cls) {
                rc_info(MOD, "replace refused, writing one by one collection=%s docs=%zu error=\"%s\" code=%u",
                        run[0]->coll, n, e.message, e.code);
                for (size_t x = i; x < i + n && r == 0; x++)
                    r = write_one(s, c, dups[x]);
            }
        }
        for (size_t i = 0; i < nbad && r == 0; i++)
            r = write_one(s, c, bad[i]);
    }
    free(dups);
    free(bad);
    mongoc_collection_destroy(c);
    return r;
}

/* Writes every document of the batch that is not rejected; returns 0 once each one is stored
 * or rejected, -ECANCELED when the sink gives up first. */
static int write_batch(rc_mongo_sink *s, group *batch, size_t nd)
{
    mdoc **waiting_docs = rc_xcalloc(nd ? nd : 1, sizeof *waiting_docs);
    size_t nt = 0;
    for (group *g = batch; g; g = g->next) {
        if (!g->converted)
            convert_group(s, g);
        for (size_t i = 0; i < g->n; i++)
            if (g->docs[i].state == DOC_WAITING)
                waiting_docs[nt++] = &g->docs[i];
    }
    qsort(waiting_docs, nt, sizeof *waiting_docs, by_coll_seq);
    unsigned attempt = 0;
    double t0 = mono_s(), failing_since = 0;
    int r = 0;
    while (nt > 0) {
        int transient = 0;
        bson_error_t last = {0};
        for (size_t i = 0; i < nt && r == 0;) {
            size_t j = i + 1;
            while (j < nt && strcmp(waiting_docs[j]->coll, waiting_docs[i]->coll) == 0)
                j++;
            r = write_run(s, waiting_docs + i, j - i, &transient, &last);
            i = j;
        }
        size_t keep = 0;
        for (size_t i = 0; i < nt; i++)
            if (waiting_docs[i]->state == DOC_WAITING)
                waiting_docs[keep++] = waiting_docs[i];
        nt = keep;
        if (r < 0 || nt == 0)
            break;
        if (transient) {
            if (!attempt)
                failing_since = mono_s();
            double wait = backoff_s(s, ++attempt);
            rc_warn(MOD, "write failed, retrying docs=%zu attempt=%u backoff_ms=%.0f error=\"%s\" domain=%u code=%u",
                    nt, attempt, wait * 1000, last.message, last.domain, last.code);
            if ((r = nap(s, wait)) < 0)
                break;
        }
    }
    if (r == 0 && attempt)
        rc_info(MOD, "write recovered docs=%zu attempts=%u failing_s=%.1f", nd, attempt + 1, mono_s() - failing_since);
    else if (r == 0)
        rc_debug(MOD, "batch written docs=%zu ms=%.1f", nd, (mono_s() - t0) * 1000);
    free(waiting_docs);
    return r;
}

static void *writer_main(void *arg)
{
    rc_mongo_sink *s = arg;
    pthread_mutex_lock(&s->mu);
    for (;;) {
        if (s->give_up)
            break;
        if (!s->head) {
            if (s->stopping)
                break;
            pthread_cond_wait(&s->wake, &s->mu);
            continue;
        }
        if (!s->stopping && s->queued_docs < s->batch_max) {
            double due = s->head->queued_at + s->batch_s;
            if (mono_s() < due) {
                wait_until(&s->wake, &s->mu, due);
                continue;
            }
        }
        group *batch = s->head, *last = s->head;
        size_t nd = batch->n;
        while (last->next && nd + last->next->n <= s->batch_max) {
            last = last->next;
            nd += last->n;
        }
        s->head = last->next;
        if (!s->head)
            s->tail = NULL;
        last->next = NULL;
        s->queued_docs -= nd;
        pthread_mutex_unlock(&s->mu);

        int r = write_batch(s, batch, nd);

        pthread_mutex_lock(&s->mu);
        if (r < 0) {
            /* Given up: back to the head of the queue, where free() cancels them. */
            last->next = s->head;
            if (!s->head)
                s->tail = last;
            s->head = batch;
            s->queued_docs += nd;
            break;
        }
        if (s->done_tail)
            s->done_tail->next = batch;
        else
            s->done_head = batch;
        s->done_tail = last;
        s->pending_docs -= nd;
        ev_async_send(s->loop, &s->async);
        if (s->pending_docs == 0)
            pthread_cond_broadcast(&s->idle);
    }
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

/* ------------------------------------------------------------------------- API ---- */

void rc_mongo_opts_init(rc_mongo_opts *o)
{
    memset(o, 0, sizeof *o);
    o->database = NULL;
    o->pages_collection = "pages";
    o->items_collection = "items_{spiderid}";
    o->batch_max = 500;
    o->batch_ms = 200;
    o->queue_max = 20000;
    o->retry_max_s = 30;
    o->stop_timeout_s = 10;
}

static void uri_default_ms(mongoc_uri_t *uri, const char *key, int32_t ms)
{
    if (!mongoc_uri_has_option(uri, key))
        mongoc_uri_set_option_as_int32(uri, key, ms);
}

/* What the options say without the URI parsed: 0, or -EINVAL with a message. */
static int check_opts(struct ev_loop *loop, const rc_mongo_opts *o, char *err, size_t cap)
{
    if (!loop || !o || !o->uri || !*o->uri) {
        snprintf(err, cap, "mongo: no URI");
        return -EINVAL;
    }
    if (!o->batch_max || !o->queue_max || !(o->batch_ms >= 0) || !(o->retry_max_s > 0) || !(o->stop_timeout_s >= 0)) {
        snprintf(err, cap, "mongo: batch_max, queue_max and retry_max_s must be > 0, batch_ms and stop_timeout_s >= 0");
        return -EINVAL;
    }
    return 0;
}

/* Where the sink writes: the options, else the URI, else the defaults. The strings belong to
 * o, to the URI or are literals. */
typedef struct {
    const char *database, *pages, *items;
} sink_names;

static int resolve_names(const rc_mongo_opts *o, const mongoc_uri_t *uri, sink_names *n, char *err, size_t cap)
{
    n->database = o->database ? o->database : mongoc_uri_get_database(uri) ? mongoc_uri_get_database(uri) : "redcrawl";
    n->pages = o->pages_collection ? o->pages_collection : "pages";
    n->items = o->items_collection ? o->items_collection : "items_{spiderid}";
    char *sample = items_coll(n->items, "x");
    int items_ok = coll_name_ok(sample);
    free(sample);
    if (!db_name_ok(n->database)) {
        snprintf(err, cap, "mongo: bad database name \"%s\"", n->database);
        return -EINVAL;
    }
    if (!coll_name_ok(n->pages) || !items_ok) {
        snprintf(err, cap, "mongo: bad collection name \"%s\"", !items_ok ? n->items : n->pages);
        return -EINVAL;
    }
    return 0;
}

/* The parsed URI with our timeouts and app name where it sets none, or NULL with a message. */
static mongoc_uri_t *parse_uri(const rc_mongo_opts *o, sink_names *n, char *err, size_t cap)
{
    bson_error_t be;
    mongoc_uri_t *uri = mongoc_uri_new_with_error(o->uri, &be);
    if (!uri) {
        snprintf(err, cap, "mongo: bad URI: %s", be.message);
        return NULL;
    }
    if (resolve_names(o, uri, n, err, cap) < 0) {
        mongoc_uri_destroy(uri);
        return NULL;
    }
    uri_default_ms(uri, MONGOC_URI_CONNECTTIMEOUTMS, 3000);
    uri_default_ms(uri, MONGOC_URI_SERVERSELECTIONTIMEOUTMS, 3000);
    uri_default_ms(uri, MONGOC_URI_SOCKETTIMEOUTMS, 30000);
    if (!mongoc_uri_get_appname(uri))
        mongoc_uri_set_appname(uri, "redcrawl");
    return uri;
}

/* "host:port,host:port" for the logs (caller frees). */
static char *hosts_of(const mongoc_uri_t *uri)
{
    rc_buf hosts;
    rc_buf_init(&hosts);
    for (const mongoc_host_list_t *h = mongoc_uri_get_hosts(uri); h; h = h->next)
        rc_buf_printf(&hosts, "%s%s", hosts.len ? "," : "", h->host_and_port);
    char *where = hosts.len ? rc_buf_steal(&hosts) : rc_xstrdup("?");
    rc_buf_release(&hosts);
    return where;
}

/* The sink with what is fixed at new(); it takes uri. */
static rc_mongo_sink *sink_alloc(struct ev_loop *loop, const rc_mongo_opts *o, mongoc_uri_t *uri, const sink_names *n)
{
    rc_mongo_sink *s = rc_xcalloc(1, sizeof *s);
    s->loop = loop;
    s->uri = uri;
    s->database = rc_xstrdup(n->database);
    s->pages = rc_xstrdup(n->pages);
    s->items_tmpl = rc_xstrdup(n->items);
    s->batch_max = o->batch_max;
    s->queue_max = o->queue_max;
    s->batch_s = o->batch_ms / 1000.0;
    s->retry_max_s = o->retry_max_s;
    s->stop_timeout_s = o->stop_timeout_s;
    s->indexed = rc_strmap_new();
    s->rnd = rc_now_us() | 1;
    s->where = hosts_of(s->uri);
    return s;
}

/* The client the writer thread will use, and the write options it passes. */
static int client_setup(rc_mongo_sink *s, char *err, size_t cap)
{
    bson_error_t be;
    if (!(s->client = mongoc_client_new_from_uri_with_error(s->uri, &be))) {
        snprintf(err, cap, "mongo: cannot make a client: %s", be.message);
        return -EIO;
    }
    mongoc_client_set_error_api(s->client, MONGOC_ERROR_API_VERSION_2);
    s->bulk_opts = BCON_NEW("ordered", BCON_BOOL(false));
    /* Documents are validated when converted; do not make the driver walk them again. */
    s->insert_opts = BCON_NEW("validate", BCON_BOOL(false));
    s->replace_opts = BCON_NEW("upsert", BCON_BOOL(true), "validate", BCON_BOOL(false));
    s->upsert_opts = BCON_NEW("upsert", BCON_BOOL(true));
    return 0;
}

/* The mutex and the conditions between the loop thread and the writer; waits are timed on
 * the monotonic clock. */
static void sync_setup(rc_mongo_sink *s)
{
    pthread_mutex_init(&s->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&s->wake, &ca);
    pthread_cond_init(&s->idle, &ca);
    pthread_condattr_destroy(&ca);
    s->sync_ready = 1;
}

/* The loop-thread watcher the writer wakes to deliver results. */
static void async_setup(rc_mongo_sink *s)
{
    ev_async_init(&s->async, on_async);
    s->async.data = s;
    ev_async_start(s->loop, &s->async);
    ev_unref(s->loop); /* only outstanding groups keep the loop alive */
    s->async_started = 1;
}

static int writer_start(rc_mongo_sink *s, char *err, size_t cap)
{
    /* Signals are for the loop thread: the writer starts with all of them blocked. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int pr = pthread_create(&s->thread, NULL, writer_main, s);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (pr != 0) {
        snprintf(err, cap, "mongo: cannot start the writer thread: %s", strerror(pr));
        return -pr;
    }
    pthread_setname_np(s->thread, "rc-mongo-writer");
    s->thread_started = 1;
    return 0;
}

rc_mongo_sink *rc_mongo_sink_new(struct ev_loop *loop, const rc_mongo_opts *o, char *err, size_t cap)
{
    if (check_opts(loop, o, err, cap) < 0)
        return NULL;
    pthread_once(&mongoc_once, mongoc_once_init);
    sink_names n;
    mongoc_uri_t *uri = parse_uri(o, &n, err, cap);
    if (!uri)
        return NULL;
    rc_mongo_sink *s = sink_alloc(loop, o, uri, &n);
    if (client_setup(s, err, cap) < 0)
        goto fail;
    sync_setup(s);
    async_setup(s);
    if (writer_start(s, err, cap) < 0)
        goto fail;
    rc_info(MOD, "sink started hosts=%s database=%s pages=%s items=%s batch_max=%zu batch_ms=%g queue_max=%zu",
            s->where, s->database, s->pages, s->items_tmpl, s->batch_max, o->batch_ms, s->queue_max);
    return s;

fail:
    rc_mongo_sink_free(s);
    return NULL;
}

int rc_mongo_sink_put(rc_mongo_sink *s, const rc_mongo_doc *docs, size_t n,
                      void (*done)(void *ud, int status, const char *err), void *ud)
{
    if (!s || !docs || !n || !done)
        return -EINVAL;
    for (size_t i = 0; i < n; i++)
        if (!docs[i].json)
            return -EINVAL;
    if (s->freeing)
        return -ESHUTDOWN;
    pthread_mutex_lock(&s->mu);
    int full = s->pending_docs > 0 && s->pending_docs + n > s->queue_max;
    pthread_mutex_unlock(&s->mu);
    if (full)
        return -EAGAIN; /* only the writer changes pending_docs meanwhile, and only down */

    group *g = rc_xcalloc(1, sizeof *g);
    g->docs = rc_xcalloc(n, sizeof *g->docs);
    g->n = n;
    g->done = done;
    g->ud = ud;
    for (size_t i = 0; i < n; i++) {
        mdoc *d = &g->docs[i];
        d->g = g;
        d->index = i;
        d->kind = docs[i].kind;
        d->len = docs[i].len ? docs[i].len : strlen(docs[i].json);
        d->json = rc_xmalloc(d->len + 1);
        memcpy(d->json, docs[i].json, d->len);
        d->json[d->len] = '\0';
        d->spiderid = docs[i].spiderid ? rc_xstrdup(docs[i].spiderid) : NULL;
    }
    g->queued_at = mono_s();

    pthread_mutex_lock(&s->mu);
    int was_empty = !s->head;
    if (s->tail)
        s->tail->next = g;
    else
        s->head = g;
    s->tail = g;
    s->queued_docs += n;
    s->pending_docs += n;
    /* The writer sleeps untimed on an empty queue, or until the head is due: wake it only
     * when that changes. */
    if (was_empty || s->queued_docs >= s->batch_max)
        pthread_cond_signal(&s->wake);
    pthread_mutex_unlock(&s->mu);
    if (s->outstanding++ == 0)
        ev_ref(s->loop);
    return 0;
}

size_t rc_mongo_sink_pending(const rc_mongo_sink *s)
{
    rc_mongo_sink *m = (rc_mongo_sink *)s; /* the mutex is not part of the value */
    pthread_mutex_lock(&m->mu);
    size_t n = m->pending_docs;
    pthread_mutex_unlock(&m->mu);
    return n;
}

void rc_mongo_sink_free(rc_mongo_sink *s)
{
    if (!s)
        return;
    s->freeing = 1;
    if (s->thread_started) {
        pthread_mutex_lock(&s->mu);
        s->stopping = 1;
        pthread_cond_signal(&s->wake);
        double deadline = mono_s() + s->stop_timeout_s;
        while (s->pending_docs > 0 && mono_s() < deadline)
            wait_until(&s->idle, &s->mu, deadline);
        size_t left = s->pending_docs;
        s->give_up = 1;
        pthread_cond_signal(&s->wake);
        pthread_mutex_unlock(&s->mu);
        if (left)
            rc_warn(MOD, "stopping with documents not written docs=%zu waited_s=%g hosts=%s", left, s->stop_timeout_s,
                    s->where);
        pthread_join(s->thread, NULL);
        deliver(s);
        group *g = s->head;
        s->head = s->tail = NULL;
        while (g) {
            group *next = g->next;
            outstanding_sub(s);
            g->done(g->ud, -ECANCELED, "mongo sink stopped before the documents were stored");
            group_free(g);
            g = next;
        }
        rc_info(MOD, "sink stopped hosts=%s", s->where);
    }
    if (s->async_started) {
        ev_ref(s->loop); /* balances the ev_unref after ev_async_start */
        ev_async_stop(s->loop, &s->async);
    }
    if (s->sync_ready) {
        pthread_cond_destroy(&s->wake);
        pthread_cond_destroy(&s->idle);
        pthread_mutex_destroy(&s->mu);
    }
    if (s->client)
        mongoc_client_destroy(s->client);
    if (s->uri)
        mongoc_uri_destroy(s->uri);
    if (s->bulk_opts)
        bson_destroy(s->bulk_opts);
    if (s->insert_opts)
        bson_destroy(s->insert_opts);
    if (s->replace_opts)
        bson_destroy(s->replace_opts);
    if (s->upsert_opts)
        bson_destroy(s->upsert_opts);
    rc_strmap_free(s->indexed, NULL);
    free(s->database);
    free(s->pages);
    free(s->items_tmpl);
    free(s->where);
    free(s);
}

/* ---- as an rc_store ------------------------------------------------------------------------ */

static int mongo_put(void *impl, const rc_write_group *g, rc_store_done done, void *ud, char *err, size_t cap)
{
    rc_mongo_doc *docs = rc_xcalloc(g->n, sizeof *docs);
    for (size_t i = 0; i < g->n; i++)
        docs[i] = (rc_mongo_doc){.kind = i >= g->n_pages ? RC_MONGO_ITEM : RC_MONGO_PAGE,
                                 .spiderid = g->spiderid,
                                 .json = g->docs[i].json,
                                 .len = g->docs[i].len};
    int r = rc_mongo_sink_put(impl, docs, g->n, done, ud);
    free(docs);
    if (r < 0)
        snprintf(err, cap, "mongodb sink %s (%s)", r == -EAGAIN ? "busy" : "refused the group", strerror(-r));
    return r;
}

static size_t mongo_pending(const void *impl)
{
    return rc_mongo_sink_pending(impl);
}

static void mongo_free(void *impl)
{
    rc_mongo_sink_free(impl);
}

static const rc_store_ops mongo_ops = {"mongo", mongo_put, mongo_pending, mongo_free, NULL};

rc_store rc_mongo_sink_store(rc_mongo_sink *s)
{
    return (rc_store){.ops = &mongo_ops, .impl = s, .busy_at = 10000};
}
