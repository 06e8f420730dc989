/* test_sink_mongo.c - the MongoDB sink against a live server (REDCRAWL_MONGO, e.g. FerretDB from
 * scripts/services.sh): shapes read back by _id, redelivery without duplicates, -EAGAIN on a
 * full queue, permanent rejections, cancellation on free, throughput; and an "outage" mode the
 * integration test drives while it stops and restarts the server.
 *
 *   test_sink_mongo [--db NAME] [--bench GROUPS [--batch-max N]]
 *   test_sink_mongo --outage GROUPS [--db NAME] [--crawlid ID] [--rate-ms MS]
 *
 * Exit 77 (skip) without REDCRAWL_MONGO. */
#include "sink_mongo.h"

#include <errno.h>
#include <ev.h>
#include <mongoc/mongoc.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "log.h"
#include "rc_test.h"
#include "record.h"
#include "util.h"

typedef struct result {
    int fired;
    int status;
    char err[600];
    double put_at, done_at;
} result;

static const char *g_uri;
static const char *g_db;
static mongoc_client_t *g_client;

static double now_s(void)
{
    return (double)rc_mono_ms() / 1000.0;
}

static void on_done(void *ud, int status, const char *err)
{
    result *r = ud;
    r->fired++;
    r->status = status;
    r->done_at = now_s();
    snprintf(r->err, sizeof r->err, "%s", err ? err : "");
}

static void on_tick(struct ev_loop *loop, ev_timer *w, int revents)
{
    (void)loop;
    (void)w;
    (void)revents;
}

/* Runs the loop for about sec seconds (callbacks get delivered meanwhile). */
static void run_for(struct ev_loop *loop, double sec)
{
    double end = now_s() + sec;
    while (now_s() < end) {
        ev_timer t;
        ev_timer_init(&t, on_tick, 0.02, 0);
        ev_timer_start(loop, &t);
        ev_run(loop, EVRUN_ONCE);
        ev_timer_stop(loop, &t);
    }
}

static int all_fired(const result *rs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!rs[i].fired)
            return 0;
    return 1;
}

static int wait_all(struct ev_loop *loop, result *rs, size_t n, double timeout)
{
    double end = now_s() + timeout;
    while (!all_fired(rs, n) && now_s() < end)
        run_for(loop, 0.02);
    return all_fired(rs, n);
}

static void item_id(const char *crawlid, const char *url, int pos, char out[33])
{
    char key[600];
    snprintf(key, sizeof key, "%s#%d", url, pos);
    rc_record_doc_id(crawlid, key, out);
}

/* One page's write-group: its record plus nitems list items (a single item has position -1,
 * the id of the page itself, as a detail page's item does). */
typedef struct pgroup {
    rc_mongo_doc docs[16];
    char *json[16];
    size_t n;
} pgroup;

static void pgroup_make(pgroup *pg, const char *crawlid, int i, int nitems, const char *spider, int attempt)
{
    char url[200], id[33];
    snprintf(url, sizeof url, "http://s%d.site.test/list/%d?q=%%C3%%A9", i % 3, i);
    rc_record_doc_id(crawlid, url, id);
    pg->n = 0;
    pg->json[pg->n] = rc_xasprintf("{\"_id\":\"%s\",\"crawlid\":\"%s\",\"url\":\"%s\",\"status_code\":200,"
                                   "\"title\":\"Liste %d \\u00e9t\\u00e9 \\u4e2d\\u6587\",\"depth\":1,\"fetch_ms\":"
                                   "12.5,\"meta\":{\"lang\":\"fr\",\"og\":{\"type\":\"article\"}},\"links\":%d,"
                                   "\"attempt\":%d}",
                                   id, crawlid, url, i, i * 2, attempt);
    pg->docs[pg->n] = (rc_mongo_doc){.kind = RC_MONGO_PAGE, .json = pg->json[pg->n]};
    pg->n++;
    for (int p = 0; p < nitems && pg->n < 16; p++) {
        char iid[33];
        if (nitems == 1)
            memcpy(iid, id, sizeof iid);
        else
            item_id(crawlid, url, p, iid);
        pg->json[pg->n] = rc_xasprintf("{\"_id\":\"%s\",\"crawlid\":\"%s\",\"url\":\"%s\",\"position\":%d,"
                                       "\"name\":\"item %d of %d\",\"tags\":[\"a\",\"b\"],\"price\":%.2f,"
                                       "\"attempt\":%d}",
                                       iid, crawlid, url, p, p, i, p * 1.5, attempt);
        pg->docs[pg->n] = (rc_mongo_doc){.kind = RC_MONGO_ITEM, .spiderid = spider, .json = pg->json[pg->n]};
        pg->n++;
    }
}

static void pgroup_release(pgroup *pg)
{
    for (size_t i = 0; i < pg->n; i++)
        free(pg->json[i]);
    pg->n = 0;
}

/* ------------------------------------------------------------ reading back ---- */

static bson_t *find_by_id(const char *coll, const char *id)
{
    mongoc_collection_t *c = mongoc_client_get_collection(g_client, g_db, coll);
    bson_t *filter = BCON_NEW("_id", BCON_UTF8(id));
    mongoc_cursor_t *cur = mongoc_collection_find_with_opts(c, filter, NULL, NULL);
    const bson_t *doc;
    bson_t *ret = NULL;
    if (mongoc_cursor_next(cur, &doc))
        ret = bson_copy(doc);
    bson_error_t e;
    if (mongoc_cursor_error(cur, &e))
        fprintf(stderr, "find %s in %s: %s\n", id, coll, e.message);
    mongoc_cursor_destroy(cur);
    bson_destroy(filter);
    mongoc_collection_destroy(c);
    return ret;
}

static long long count_crawl(const char *coll, const char *crawlid)
{
    mongoc_collection_t *c = mongoc_client_get_collection(g_client, g_db, coll);
    bson_t *filter = BCON_NEW("crawlid", BCON_UTF8(crawlid));
    bson_error_t e;
    int64_t n = mongoc_collection_count_documents(c, filter, NULL, NULL, NULL, &e);
    if (n < 0)
        fprintf(stderr, "count in %s: %s\n", coll, e.message);
    bson_destroy(filter);
    mongoc_collection_destroy(c);
    return n;
}

static const char *get_str(const bson_t *b, const char *path)
{
    bson_iter_t it, d;
    if (b && bson_iter_init(&it, b) && bson_iter_find_descendant(&it, path, &d) && BSON_ITER_HOLDS_UTF8(&d))
        return bson_iter_utf8(&d, NULL);
    return NULL;
}

static long long get_int(const bson_t *b, const char *path)
{
    bson_iter_t it, d;
    if (b && bson_iter_init(&it, b) && bson_iter_find_descendant(&it, path, &d) && BSON_ITER_HOLDS_NUMBER(&d))
        return bson_iter_as_int64(&d);
    return -999;
}

static double get_double(const bson_t *b, const char *path)
{
    bson_iter_t it, d;
    if (b && bson_iter_init(&it, b) && bson_iter_find_descendant(&it, path, &d) && BSON_ITER_HOLDS_DOUBLE(&d))
        return bson_iter_double(&d);
    return -999;
}

static int has_index(const char *coll, const char *name)
{
    mongoc_collection_t *c = mongoc_client_get_collection(g_client, g_db, coll);
    mongoc_cursor_t *cur = mongoc_collection_find_indexes_with_opts(c, NULL);
    const bson_t *doc;
    int found = 0;
    while (mongoc_cursor_next(cur, &doc)) {
        const char *n = get_str(doc, "name");
        if (n && strcmp(n, name) == 0)
            found = 1;
    }
    mongoc_cursor_destroy(cur);
    mongoc_collection_destroy(c);
    return found;
}

static rc_mongo_sink *sink_new(struct ev_loop *loop, rc_mongo_opts *o)
{
    char err[512] = "";
    rc_mongo_sink *s = rc_mongo_sink_new(loop, o, err, sizeof err);
    if (!s)
        fprintf(stderr, "rc_mongo_sink_new: %s\n", err);
    RC_CHECK(s != NULL);
    return s;
}

/* -------------------------------------------------------------------- tests ---- */

static void test_opts(struct ev_loop *loop)
{
    rc_mongo_opts o;
    rc_mongo_opts_init(&o);
    RC_CHECK_INT_EQ(o.batch_max, 500);
    RC_CHECK_INT_EQ(o.queue_max, 20000);
    RC_CHECK(o.batch_ms == 200 && o.retry_max_s == 30 && o.stop_timeout_s == 10);
    RC_CHECK_STR_EQ(o.pages_collection, "pages");
    RC_CHECK_STR_EQ(o.items_collection, "items_{spiderid}");

    char err[256] = "";
    o.uri = "http://127.0.0.1/";
    RC_CHECK(rc_mongo_sink_new(loop, &o, err, sizeof err) == NULL);
    RC_CHECK(strstr(err, "bad URI") != NULL);
    o.uri = g_uri;
    o.database = "bad.name";
    err[0] = '\0';
    RC_CHECK(rc_mongo_sink_new(loop, &o, err, sizeof err) == NULL);
    RC_CHECK(strstr(err, "database") != NULL);
    o.database = g_db;
    o.items_collection = "items_${spiderid}";
    err[0] = '\0';
    RC_CHECK(rc_mongo_sink_new(loop, &o, err, sizeof err) == NULL);
    RC_CHECK(strstr(err, "collection") != NULL);
    o.items_collection = NULL;
    o.batch_max = 0;
    RC_CHECK(rc_mongo_sink_new(loop, &o, err, sizeof err) == NULL);
}

#define NG 7

static void put_groups(rc_mongo_sink *s, const char *crawlid, int attempt, result *rs)
{
    for (int i = 0; i < NG; i++) {
        pgroup pg;
        /* 0-4: list pages with 3 items; 5: a detail page with its single item; 6: no items */
        pgroup_make(&pg, crawlid, i, i < 5 ? 3 : i == 5 ? 1 : 0, i == 5 ? "shop" : "news", attempt);
        memset(&rs[i], 0, sizeof rs[i]);
        RC_CHECK_INT_EQ(rc_mongo_sink_put(s, pg.docs, pg.n, on_done, &rs[i]), 0);
        pgroup_release(&pg);
    }
}

static void test_roundtrip_and_redelivery(struct ev_loop *loop)
{
    char crawlid[64];
    snprintf(crawlid, sizeof crawlid, "rt-%d", (int)getpid());
    rc_mongo_opts o;
    rc_mongo_opts_init(&o);
    o.uri = g_uri;
    o.database = g_db;
    o.batch_ms = 50;
    rc_mongo_sink *s = sink_new(loop, &o);
    if (!s)
        return;
    result rs[NG];
    put_groups(s, crawlid, 1, rs);
    RC_CHECK_INT_EQ(rc_mongo_sink_pending(s), 5 * 4 + 2 + 1);
    RC_CHECK(wait_all(loop, rs, NG, 30));
    for (int i = 0; i < NG; i++) {
        RC_CHECK_INT_EQ(rs[i].fired, 1);
        RC_CHECK_INT_EQ(rs[i].status, 0);
    }
    RC_CHECK_INT_EQ(rc_mongo_sink_pending(s), 0);
    RC_CHECK_INT_EQ(count_crawl("pages", crawlid), NG);
    RC_CHECK_INT_EQ(count_crawl("items_news", crawlid), 15);
    RC_CHECK_INT_EQ(count_crawl("items_shop", crawlid), 1);

    /* Shapes, read back by _id. */
    char url[200], id[33], iid[33];
    snprintf(url, sizeof url, "http://s%d.site.test/list/%d?q=%%C3%%A9", 1, 1);
    rc_record_doc_id(crawlid, url, id);
    bson_t *page = find_by_id("pages", id);
    RC_CHECK(page != NULL);
    RC_CHECK_STR_EQ(get_str(page, "crawlid"), crawlid);
    RC_CHECK_STR_EQ(get_str(page, "url"), url);
    RC_CHECK_STR_EQ(get_str(page, "title"), "Liste 1 \xc3\xa9t\xc3\xa9 \xe4\xb8\xad\xe6\x96\x87");
    RC_CHECK_STR_EQ(get_str(page, "meta.og.type"), "article");
    RC_CHECK_INT_EQ(get_int(page, "status_code"), 200);
    RC_CHECK_INT_EQ(get_int(page, "links"), 2);
    RC_CHECK(get_double(page, "fetch_ms") == 12.5);
    if (page)
        bson_destroy(page);
    item_id(crawlid, url, 2, iid);
    bson_t *item = find_by_id("items_news", iid);
    RC_CHECK(item != NULL);
    RC_CHECK_INT_EQ(get_int(item, "position"), 2);
    RC_CHECK_STR_EQ(get_str(item, "name"), "item 2 of 1");
    RC_CHECK_STR_EQ(get_str(item, "tags.1"), "b");
    RC_CHECK(get_double(item, "price") == 3.0);
    RC_CHECK(find_by_id("items_news", id) == NULL); /* list items do not take the page's id */
    if (item)
        bson_destroy(item);
    snprintf(url, sizeof url, "http://s%d.site.test/list/%d?q=%%C3%%A9", 2, 5);
    rc_record_doc_id(crawlid, url, id);
    item = find_by_id("items_shop", id); /* the single item of a detail page has the page's id */
    RC_CHECK(item != NULL);
    RC_CHECK_STR_EQ(get_str(item, "url"), url);
    if (item)
        bson_destroy(item);
    RC_CHECK(has_index("items_news", "crawlid_1"));
    RC_CHECK(has_index("pages", "crawlid_1"));

    /* Redelivery (a lost ack): the same ids upsert, nothing doubles, the new copy wins. */
    put_groups(s, crawlid, 2, rs);
    RC_CHECK(wait_all(loop, rs, NG, 30));
    for (int i = 0; i < NG; i++)
        RC_CHECK_INT_EQ(rs[i].status, 0);
    /* And twice at once, so both copies share a batch. */
    result twice[NG];
    put_groups(s, crawlid, 3, rs);
    put_groups(s, crawlid, 4, twice);
    RC_CHECK(wait_all(loop, rs, NG, 30) && wait_all(loop, twice, NG, 30));
    for (int i = 0; i < NG; i++)
        RC_CHECK(rs[i].status == 0 && twice[i].status == 0);
    RC_CHECK_INT_EQ(count_crawl("pages", crawlid), NG);
    RC_CHECK_INT_EQ(count_crawl("items_news", crawlid), 15);
    RC_CHECK_INT_EQ(count_crawl("items_shop", crawlid), 1);
    snprintf(url, sizeof url, "http://s%d.site.test/list/%d?q=%%C3%%A9", 0, 0);
    rc_record_doc_id(crawlid, url, id);
    page = find_by_id("pages", id);
    RC_CHECK_INT_EQ(get_int(page, "attempt"), 4);
    if (page)
        bson_destroy(page);
    rc_mongo_sink_free(s);
}

/* tmpl with "@ID@" and "@C@" replaced (malloc'd). */
static char *fill(const char *tmpl, const char *id, const char *crawlid)
{
    rc_buf b;
    rc_buf_init(&b);
    for (const char *p = tmpl; *p;) {
        if (strncmp(p, "@ID@", 4) == 0) {
            rc_buf_puts(&b, id);
            p += 4;
        } else if (strncmp(p, "@C@", 3) == 0) {
            rc_buf_puts(&b, crawlid);
            p += 3;
        } else {
            rc_buf_append(&b, p++, 1);
        }
    }
    return rc_buf_steal(&b);
}

static void test_rejections(struct ev_loop *loop)
{
    char crawlid[64];
    snprintf(crawlid, sizeof crawlid, "bad-%d", (int)getpid());
    rc_mongo_opts o;
    rc_mongo_opts_init(&o);
    o.uri = g_uri;
    o.database = g_db;
    o.batch_ms = 100;
    rc_mongo_sink *s = sink_new(loop, &o);
    if (!s)
        return;
    enum { DOLLAR, DOT, NOTJSON, NOID, NUMID, SPIDER, ARRAY, NESTED, GOOD, N };
    static const char *const items[N] = {
        [DOLLAR] = "{\"_id\":\"@ID@-i\",\"crawlid\":\"@C@\",\"$where\":\"1\"}",
        [DOT] = "{\"_id\":\"@ID@-i\",\"crawlid\":\"@C@\",\"meta\":{\"og.title\":\"x\"}}",
        [NOTJSON] = "{\"_id\":\"@ID@-i\",\"crawlid\":\"@C@\",",
        [NOID] = "{\"id\":\"@ID@-i\",\"crawlid\":\"@C@\"}",
        [NUMID] = "{\"_id\":12,\"x\":\"@ID@\",\"crawlid\":\"@C@\"}",
        [SPIDER] = "{\"_id\":\"@ID@-i\",\"crawlid\":\"@C@\"}",
        [ARRAY] = "[\"@ID@\",\"@C@\"]",
        [NESTED] = "{\"_id\":\"@ID@-i\",\"crawlid\":\"@C@\",\"grid\":[[1,2],[3,4]]}",
        [GOOD] = "{\"_id\":\"@ID@-i\",\"crawlid\":\"@C@\",\"ok\":true}",
    };
    result rs[N];
    memset(rs, 0, sizeof rs);
    char pids[N][100];
    for (int k = 0; k < N; k++) {
        snprintf(pids[k], sizeof pids[k], "%s-%d", crawlid, k);
        char *page = rc_xasprintf("{\"_id\":\"%s\",\"crawlid\":\"%s\",\"k\":%d}", pids[k], crawlid, k);
        char *item = fill(items[k], pids[k], crawlid);
        rc_mongo_doc d[2] = {{.kind = RC_MONGO_PAGE, .json = page},
                             {.kind = RC_MONGO_ITEM, .spiderid = k == SPIDER ? "bad$spider" : "rej", .json = item}};
        RC_CHECK_INT_EQ(rc_mongo_sink_put(s, d, 2, on_done, &rs[k]), 0);
        free(page);
        free(item);
    }
    RC_CHECK(wait_all(loop, rs, N, 60));
    for (int k = 0; k < N; k++)
        fprintf(stderr, "rejection case %d: status=%d err=%s\n", k, rs[k].status, rs[k].err);
    RC_CHECK_INT_EQ(rs[GOOD].status, 0);
    for (int k = 0; k < NESTED; k++) {
        RC_CHECK_INT_EQ(rs[k].status, -EINVAL);
        RC_CHECK(strstr(rs[k].err, "document 2 of 2") != NULL);
        /* Rejected before anything of the group was written: not even its page. */
        bson_t *b = find_by_id("pages", pids[k]);
        RC_CHECK(b == NULL);
        if (b)
            bson_destroy(b);
    }
    RC_CHECK(strstr(rs[DOLLAR].err, "$where") != NULL);
    RC_CHECK(strstr(rs[DOLLAR].err, "sanitise") != NULL);
    RC_CHECK(strstr(rs[DOT].err, "og.title") != NULL);
    RC_CHECK(strstr(rs[NOID].err, "_id") != NULL);
    RC_CHECK(strstr(rs[NUMID].err, "_id") != NULL);
    RC_CHECK(strstr(rs[SPIDER].err, "bad$spider") != NULL);
    RC_CHECK(strstr(rs[ARRAY].err, "not a JSON object") != NULL);
    /* Nested arrays: fine for MongoDB, refused by FerretDB 1.x. Refused means the bulk failed
     * and the sink found the culprit one document at a time: the group fails, its page is
     * stored, and the good group of the same batch is unharmed. */
    if (rs[NESTED].status) {
        RC_CHECK_INT_EQ(rs[NESTED].status, -EINVAL);
        RC_CHECK(strstr(rs[NESTED].err, "refused") != NULL);
    }
    bson_t *b = find_by_id("pages", pids[NESTED]);
    RC_CHECK(b != NULL);
    if (b)
        bson_destroy(b);
    char gid[120];
    snprintf(gid, sizeof gid, "%s-i", pids[GOOD]);
    b = find_by_id("items_rej", gid);
    RC_CHECK(b != NULL);
    if (b)
        bson_destroy(b);
    rc_mongo_sink_free(s);
}

static void test_queue_full(struct ev_loop *loop)
{
    char crawlid[64];
    snprintf(crawlid, sizeof crawlid, "full-%d", (int)getpid());
    rc_mongo_opts o;
    rc_mongo_opts_init(&o);
    o.uri = g_uri;
    o.database = g_db;
    o.queue_max = 10;
    o.batch_ms = 1000; /* nothing is written before the third put */
    rc_mongo_sink *s = sink_new(loop, &o);
    if (!s)
        return;
    result rs[4];
    memset(rs, 0, sizeof rs);
    pgroup pg[4];
    for (int i = 0; i < 3; i++)
        pgroup_make(&pg[i], crawlid, i, 3, "full", 1);
    RC_CHECK_INT_EQ(rc_mongo_sink_put(s, pg[0].docs, pg[0].n, on_done, &rs[0]), 0);
    RC_CHECK_INT_EQ(rc_mongo_sink_put(s, pg[1].docs, pg[1].n, on_done, &rs[1]), 0);
    RC_CHECK_INT_EQ(rc_mongo_sink_put(s, pg[2].docs, pg[2].n, on_done, &rs[2]), -EAGAIN);
    RC_CHECK_INT_EQ(rc_mongo_sink_pending(s), 8);
    RC_CHECK_INT_EQ(rc_mongo_sink_put(s, pg[2].docs, 0, on_done, &rs[2]), -EINVAL);
    RC_CHECK(wait_all(loop, rs, 2, 30));
    run_for(loop, 0.2);
    RC_CHECK(rs[0].status == 0 && rs[1].status == 0);
    RC_CHECK_INT_EQ(rs[2].fired, 0); /* not queued, never called */
    RC_CHECK_INT_EQ(rc_mongo_sink_pending(s), 0);
    RC_CHECK_INT_EQ(rc_mongo_sink_put(s, pg[2].docs, pg[2].n, on_done, &rs[2]), 0);
    RC_CHECK(wait_all(loop, rs, 3, 30));
    RC_CHECK_INT_EQ(rs[2].status, 0);
    for (int i = 0; i < 3; i++)
        pgroup_release(&pg[i]);
    RC_CHECK_INT_EQ(count_crawl("items_full", crawlid), 9);

    /* A group larger than the whole queue still goes in when the queue is empty. */
    rc_mongo_doc big[25];
    char *json[25];
    for (int i = 0; i < 25; i++) {
        json[i] = rc_xasprintf("{\"_id\":\"%s-big-%d\",\"crawlid\":\"%s\",\"position\":%d}", crawlid, i, crawlid, i);
        big[i] = (rc_mongo_doc){.kind = RC_MONGO_ITEM, .spiderid = "full", .json = json[i]};
    }
    RC_CHECK_INT_EQ(rc_mongo_sink_put(s, big, 25, on_done, &rs[3]), 0);
    RC_CHECK(wait_all(loop, rs, 4, 30));
    RC_CHECK_INT_EQ(rs[3].status, 0);
    for (int i = 0; i < 25; i++)
        free(json[i]);
    RC_CHECK_INT_EQ(count_crawl("items_full", crawlid), 34);
    rc_mongo_sink_free(s);
}

static int closed_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    int port = 1;
    if (fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof a) == 0 && getsockname(fd, (struct sockaddr *)&a, &len) == 0)
        port = ntohs(a.sin_port);
    if (fd >= 0)
        close(fd);
    return port;
}

static void test_cancel_when_down(struct ev_loop *loop)
{
    char uri[80];
    snprintf(uri, sizeof uri, "mongodb://127.0.0.1:%d/", closed_port());
    rc_mongo_opts o;
    rc_mongo_opts_init(&o);
    o.uri = uri;
    o.database = g_db;
    o.batch_ms = 10;
    o.retry_max_s = 0.3;
    o.stop_timeout_s = 1;
    rc_mongo_sink *s = sink_new(loop, &o);
    if (!s)
        return;
    result rs[2];
    memset(rs, 0, sizeof rs);
    pgroup pg;
    for (int i = 0; i < 2; i++) {
        pgroup_make(&pg, "down", i, 2, "down", 1);
        RC_CHECK_INT_EQ(rc_mongo_sink_put(s, pg.docs, pg.n, on_done, &rs[i]), 0);
        pgroup_release(&pg);
    }
    run_for(loop, 1.5); /* several failed attempts: nothing may be reported as stored */
    RC_CHECK(rs[0].fired == 0 && rs[1].fired == 0);
    RC_CHECK_INT_EQ(rc_mongo_sink_pending(s), 6);
    double t0 = now_s();
    rc_mongo_sink_free(s);
    double took = now_s() - t0;
    fprintf(stderr, "free with the server down took %.2f s\n", took);
    RC_CHECK(took < 8);
    for (int i = 0; i < 2; i++) {
        RC_CHECK_INT_EQ(rs[i].fired, 1);
        RC_CHECK_INT_EQ(rs[i].status, -ECANCELED);
    }
}

static void test_throughput(struct ev_loop *loop, int ngroups, size_t batch_max)
{
    char crawlid[64];
    snprintf(crawlid, sizeof crawlid, "bench-%d", (int)getpid());
    rc_mongo_opts o;
    rc_mongo_opts_init(&o);
    o.uri = g_uri;
    o.database = g_db;
    if (batch_max)
        o.batch_max = batch_max;
    rc_mongo_sink *s = sink_new(loop, &o);
    if (!s)
        return;
    result *rs = rc_xcalloc((size_t)ngroups, sizeof *rs);
    size_t eagain = 0;
    double t0 = now_s();
    for (int i = 0; i < ngroups; i++) {
        pgroup pg;
        pgroup_make(&pg, crawlid, i, 4, "bench", 1);
        int r;
        while ((r = rc_mongo_sink_put(s, pg.docs, pg.n, on_done, &rs[i])) == -EAGAIN) {
            eagain++;
            ev_run(loop, EVRUN_ONCE);
        }
        RC_CHECK_INT_EQ(r, 0);
        pgroup_release(&pg);
    }
    RC_CHECK(wait_all(loop, rs, (size_t)ngroups, 300));
    double took = now_s() - t0;
    int bad = 0;
    for (int i = 0; i < ngroups; i++)
        bad += rs[i].status != 0;
    RC_CHECK_INT_EQ(bad, 0);
    long long docs = (long long)ngroups * 5;
    fprintf(stderr,
            "throughput: %lld docs (%d groups of 1 page + 4 items) in %.2f s = %.0f docs/s, batch_max=%zu "
            "eagain=%zu\n",
            docs, ngroups, took, (double)docs / took, o.batch_max, eagain);
    printf("throughput_docs_per_s %.0f\n", (double)docs / took);
    RC_CHECK_INT_EQ(count_crawl("pages", crawlid), ngroups);
    RC_CHECK_INT_EQ(count_crawl("items_bench", crawlid), ngroups * 4LL);
    free(rs);
    rc_mongo_sink_free(s);
}

/* ------------------------------------------------------------- outage mode ---- */

typedef struct outage {
    rc_mongo_sink *s;
    const char *crawlid;
    int n, next, acked;
    size_t eagain;
    result *rs;
    ev_timer timer;
} outage;

static void outage_tick(struct ev_loop *loop, ev_timer *w, int revents)
{
    (void)revents;
    outage *st = w->data;
    int acked = 0;
    for (int i = 0; i < st->next; i++)
        acked += st->rs[i].fired;
    if (acked > st->acked)
        printf("acked %d\n", acked); /* line-buffered: the integration test follows the log */
    st->acked = acked;
    if (st->next < st->n) {
        pgroup pg;
        pgroup_make(&pg, st->crawlid, st->next, 2, "outage", 1);
        st->rs[st->next].put_at = now_s();
        int r = rc_mongo_sink_put(st->s, pg.docs, pg.n, on_done, &st->rs[st->next]);
        pgroup_release(&pg);
        if (r == 0)
            st->next++;
        else if (r == -EAGAIN)
            st->eagain++;
        else
            RC_CHECK_INT_EQ(r, 0);
    } else if (acked == st->n) {
        ev_timer_stop(loop, w);
    }
}

static int run_outage(struct ev_loop *loop, int n, const char *crawlid, double rate_ms)
{
    rc_mongo_opts o;
    rc_mongo_opts_init(&o);
    o.uri = g_uri;
    o.database = g_db;
    o.batch_ms = 50;
    o.queue_max = 90; /* 30 groups: an outage fills it and put() says -EAGAIN */
    o.retry_max_s = 1;
    outage st = {.crawlid = crawlid, .n = n};
    st.s = sink_new(loop, &o);
    if (!st.s)
        return rc_test_done("test_sink_mongo --outage");
    st.rs = rc_xcalloc((size_t)n, sizeof *st.rs);
    ev_timer_init(&st.timer, outage_tick, 0, rate_ms / 1000.0);
    st.timer.data = &st;
    ev_timer_start(loop, &st.timer);
    double end = now_s() + 400;
    while (ev_is_active(&st.timer) && now_s() < end)
        ev_run(loop, EVRUN_ONCE);
    ev_timer_stop(loop, &st.timer);
    int ok = 0, failed = 0, fired = 0;
    double max_lat = 0;
    for (int i = 0; i < n; i++) {
        fired += st.rs[i].fired == 1;
        if (st.rs[i].fired && st.rs[i].status == 0)
            ok++;
        else if (st.rs[i].fired) {
            failed++;
            fprintf(stderr, "group %d failed: %d %s\n", i, st.rs[i].status, st.rs[i].err);
        }
        if (st.rs[i].fired && st.rs[i].done_at - st.rs[i].put_at > max_lat)
            max_lat = st.rs[i].done_at - st.rs[i].put_at;
    }
    rc_mongo_sink_free(st.s);
    long long pages = count_crawl("pages", crawlid), items = count_crawl("items_outage", crawlid);
    int missing = 0;
    for (int i = 0; i < n; i++) {
        char url[200], id[33];
        snprintf(url, sizeof url, "http://s%d.site.test/list/%d?q=%%C3%%A9", i % 3, i);
        rc_record_doc_id(crawlid, url, id);
        bson_t *b = find_by_id("pages", id);
        missing += b == NULL;
        if (b)
            bson_destroy(b);
        for (int p = 0; p < 2; p++) {
            item_id(crawlid, url, p, id);
            b = find_by_id("items_outage", id);
            missing += b == NULL;
            if (b)
                bson_destroy(b);
        }
    }
    printf("outage: groups=%d fired=%d ok=%d failed=%d eagain=%zu max_latency_ms=%.0f pages=%lld items=%lld "
           "missing=%d\n",
           n, fired, ok, failed, st.eagain, max_lat * 1000, pages, items, missing);
    fflush(stdout);
    RC_CHECK_INT_EQ(fired, n);
    RC_CHECK_INT_EQ(ok, n);
    RC_CHECK_INT_EQ(pages, n);
    RC_CHECK_INT_EQ(items, 2LL * n);
    RC_CHECK_INT_EQ(missing, 0);
    free(st.rs);
    return rc_test_done("test_sink_mongo --outage");
}

int main(int argc, char **argv)
{
    char dbbuf[64];
    snprintf(dbbuf, sizeof dbbuf, "rc_test_sink_%d", (int)getpid());
    g_db = dbbuf;
    const char *crawlid = "outage";
    int outage_n = 0, bench = 2000;
    size_t batch_max = 0;
    double rate_ms = 20;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--db") == 0 && i + 1 < argc)
            g_db = argv[++i];
        else if (strcmp(argv[i], "--outage") == 0 && i + 1 < argc)
            outage_n = (int)strtol(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--bench") == 0 && i + 1 < argc)
            bench = (int)strtol(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--batch-max") == 0 && i + 1 < argc)
            batch_max = (size_t)strtoul(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--crawlid") == 0 && i + 1 < argc)
            crawlid = argv[++i];
        else if (strcmp(argv[i], "--rate-ms") == 0 && i + 1 < argc)
            rate_ms = strtod(argv[++i], NULL);
        else {
            fprintf(stderr,
                    "usage: %s [--db NAME] [--bench GROUPS [--batch-max N]]\n"
                    "       %s --outage GROUPS [--db NAME] [--crawlid ID] [--rate-ms MS]\n",
                    argv[0], argv[0]);
            return 2;
        }
    }
    g_uri = getenv("REDCRAWL_MONGO");
    if (!g_uri || !*g_uri) {
        fprintf(stderr, "test_sink_mongo: REDCRAWL_MONGO not set, skipped\n");
        return 77;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    mongoc_init(); /* the sink's own mongoc_init is then a no-op; mongoc_cleanup runs at exit */
    g_client = mongoc_client_new(g_uri);
    if (!g_client) {
        fprintf(stderr, "test_sink_mongo: bad REDCRAWL_MONGO %s\n", g_uri);
        return 1;
    }
    mongoc_client_set_error_api(g_client, MONGOC_ERROR_API_VERSION_2);
    struct ev_loop *loop = ev_default_loop(0);
    int rc;
    if (outage_n > 0) {
        rc = run_outage(loop, outage_n, crawlid, rate_ms);
    } else {
        test_opts(loop);
        test_roundtrip_and_redelivery(loop);
        test_rejections(loop);
        test_queue_full(loop);
        test_cancel_when_down(loop);
        if (bench > 0)
            test_throughput(loop, bench, batch_max);
        mongoc_database_t *db = mongoc_client_get_database(g_client, g_db);
        bson_error_t e;
        if (!mongoc_database_drop(db, &e))
            fprintf(stderr, "drop %s: %s\n", g_db, e.message);
        mongoc_database_destroy(db);
        rc = rc_test_done("test_sink_mongo");
    }
    mongoc_client_destroy(g_client);
    ev_loop_destroy(loop);
    return rc;
}
