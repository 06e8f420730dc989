/* page.c - see page.h. */
#include "page.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "bloom.h"
#include "charset.h"
#include "extract.h"
#include "response.h"
#include "frontier.h"
#include "html.h"
#include "htmltok.h"
#include "job.h"
#include "log.h"
#include "maintext.h"
#include "record.h"
#include "rules.h"
#include "seen.h"
#include "sitemap.h"
#include "url.h"
#include "urlfilter.h"
#include "util.h"

#define MOD "page"

typedef struct link_ctx {
    const rc_page_ctx *ctx;
    rc_page_result *out;
    size_t n_found;    /* in-scope links on the page */
    size_t n_filtered; /* dropped by filters and trap guards */
    rc_buf key;
    const char *chain;      /* while a redirect target is considered: its chain (JSON), else NULL */
    int any_scope;          /* ... and whether it may leave the job's scope (a seed's chain) */
    const char *key_suffix; /* while a re-read sitemap's changed entry is considered: appended
                               to its dedup key, so it enters the frontier again, once */
    int pushed;             /* the last consider_at queued its URL */
} link_ctx;

static uint64_t seen_key(rc_buf *b, const char *crawlid, const char *url)
{
    rc_buf_reset(b);
    rc_buf_puts(b, crawlid);
    rc_buf_append(b, "\n", 1);
    rc_buf_puts(b, url);
    return rc_bloom_hash64(b->ptr, b->len);
}

/* Queues one link record. bloom_key differs from the URL for second pages (each list item's
 * detail request is its own frontier entry). */
/* The request's attrs travel with everything it produced (Scrapy Cluster's contract). */
static void add_attrs(const rc_job *job, json_t *o)
{
    json_t *a = job->attrs ? json_loads(job->attrs, 0, NULL) : NULL;
    if (a)
        json_object_set_new(o, "attrs", a);
}

static void push_link(link_ctx *c, const rc_record *lr, const char *bloom_key, uint64_t h)
{
    rc_page_result *out = c->out;
    out->hashes = rc_xrealloc(out->hashes, (out->n_hashes + 1) * sizeof(uint64_t));
    out->hashes[out->n_hashes++] = h;
    char *m = rc_record_encode(lr);
    rc_argv_add(&out->links, m);
    free(m);
    rc_frontier_bloom_args(&out->links, c->ctx->bp, bloom_key, strlen(bloom_key));
    out->n_links++;
}

/* What consider_at made of a link. */
enum { LINK_DROPPED, LINK_FILTERED, LINK_FOUND };

/* A link found on the page (already absolute and normalised): scope, filters, seen-cache.
 * Returns LINK_DROPPED (no host or out of scope: not counted), LINK_FILTERED or LINK_FOUND
 * (counted in "links", queued unless it is a duplicate). */
static int consider_at(link_ctx *c, char *abs, const char *cb, int nofollow, int depth, int redirects);

static int consider(link_ctx *c, char *abs, const char *cb, int nofollow)
{
    return consider_at(c, abs, cb, nofollow, c->ctx->rec->depth + 1, 0);
}

static int consider_at(link_ctx *c, char *abs, const char *cb, int nofollow, int depth, int redirects)
{
    const rc_page_ctx *ctx = c->ctx;
    char host[300];
    c->pushed = 0;
    if (rc_url_host(abs, host, sizeof host) < 0 || (!c->any_scope && !rc_job_in_scope(ctx->job, host)))
        return LINK_DROPPED;
    char *stripped = rc_urlfilter_strip_session(ctx->filter, abs);
    const char *url = stripped ? stripped : abs;
    const char *why = rc_urlfilter_check(ctx->filter, url);
    if (why) {
        c->n_filtered++;
        rc_debug(MOD, "link filtered url=%s reason=%s", url, why);
        free(stripped);
        return LINK_FILTERED;
    }
    c->n_found++;
    char *bkey = c->key_suffix ? rc_xasprintf("%s%s", url, c->key_suffix) : NULL;
    uint64_t h = seen_key(&c->key, ctx->rec->crawlid, bkey ? bkey : url);
    /* A link to the page itself is never new: the page came from its job's frontier, which a
     * URL enters only through the bloom. Sent, it cost Redis a bloom check (about 17 GETBITs
     * when the URL is in an older filter) for nothing: at one page per host it was the page's
     * only link, which the seen-cache, holding links this worker sent, never had. */
    int dup = (!bkey && strcmp(url, ctx->rec->url) == 0) || rc_seen_has(ctx->seen, h);
    for (size_t i = 0; !dup && i < c->out->n_hashes; i++)
        dup = c->out->hashes[i] == h;
    if (!dup) {
        rc_record lr = {.url = (char *)url,
                        .crawlid = ctx->rec->crawlid,
                        .depth = depth,
                        .priority = ctx->rec->priority,
                        .cb = (char *)cb,
                        .nofollow = nofollow,
                        .redirects = redirects,
                        .chain = (char *)c->chain};
        push_link(c, &lr, bkey ? bkey : url, h);
        c->pushed = 1;
    }
    free(bkey);
    free(stripped);
    return LINK_FOUND;
}

/* An href already judged on this page. */
typedef struct href_seen {
    uint64_t hash;   /* of the href, low bit set; 0: an empty slot */
    size_t off, len; /* the href in href_ctx.text */
    int outcome;     /* LINK_DROPPED or LINK_FOUND */
} href_seen;

/* A page's links, each distinct href resolved and judged once: menus repeat the same hrefs (the
 * bench web's pages: ~170 hrefs of which ~85 distinct on 1,000 x 20, ~185 and ~170 on 50 x 200),
 * and a repeat's outcome is known without the URL work (resolution, host, filters, hash):
 * dropped again, or found again and a duplicate of the first (queued by it, or a duplicate as
 * it was). Filtered hrefs are judged every time (rare; each is logged). */
typedef struct href_ctx {
    link_ctx *lc;
    rc_url_base *base; /* parsed once for the page's links */
    href_seen *seen;   /* open addressing, cap a power of two, at most half full */
    size_t cap, n;
    rc_buf text; /* the hrefs remembered, end to end */
} href_ctx;

/* HREF's slot in hc->seen: its entry, or the empty slot where it goes. */
static href_seen *href_slot(const href_ctx *hc, uint64_t h, const char *href, size_t len)
{
    for (size_t i = (size_t)h & (hc->cap - 1);; i = (i + 1) & (hc->cap - 1)) {
        href_seen *e = &hc->seen[i];
        if (!e->hash || (e->hash == h && e->len == len && (!len || memcmp(hc->text.ptr + e->off, href, len) == 0)))
            return e;
    }
}

static void href_grow(href_ctx *hc)
{
    href_seen *old = hc->seen;
    size_t old_cap = hc->cap;
    hc->cap = old_cap ? 2 * old_cap : 256; /* a page's links rarely pass 128 distinct */
    hc->seen = rc_xcalloc(hc->cap, sizeof *hc->seen);
    for (size_t i = 0; i < old_cap; i++) {
        if (!old[i].hash)
            continue;
        size_t j = (size_t)old[i].hash & (hc->cap - 1);
        while (hc->seen[j].hash)
            j = (j + 1) & (hc->cap - 1);
        hc->seen[j] = old[i];
    }
    free(old);
}

static void href_ctx_release(href_ctx *hc)
{
    free(hc->seen);
    rc_buf_release(&hc->text);
    rc_url_base_free(hc->base);
}

static int on_href(void *ud, const char *href, size_t len)
{
    href_ctx *hc = ud;
    if (2 * (hc->n + 1) > hc->cap)
        href_grow(hc);
    uint64_t h = XXH3_64bits(href, len) | 1;
    href_seen *e = href_slot(hc, h, href, len);
    if (e->hash) {
        hc->lc->n_found += e->outcome == LINK_FOUND;
        return 0;
    }
    char *abs = NULL;
    int outcome = LINK_DROPPED;
    if (rc_url_resolve_at(hc->base, href, len, &abs) == 0)
        outcome = consider(hc->lc, abs, NULL, 0);
    free(abs);
    if (outcome != LINK_FILTERED) { /* E is still the free slot: consider does not touch the table */
        *e = (href_seen){.hash = h, .off = hc->text.len, .len = len, .outcome = outcome};
        rc_buf_append(&hc->text, href, len);
        hc->n++;
    }
    return 0;
}

static int on_rule_link(void *ud, const char *url, size_t rule, int follow, const char *callback)
{
    link_ctx *lc = ud;
    char *copy = rc_xstrdup(url);
    consider(lc, copy, callback, !follow);
    free(copy);
    return 0;
}

static int is_html(const rc_fetch_result *res)
{
    if (!res->content_type)
        return res->body_len > 0 && memchr(res->body, '<', RC_MIN(res->body_len, 512)) != NULL;
    return strstr(res->content_type, "html") != NULL || strstr(res->content_type, "xhtml") != NULL;
}

/* The caller's options (redcrawl extract --text-method), else the job's text_method (checked
 * when the job was parsed), else the default: the article method. */
static const rc_maintext_opts *text_opts(const rc_page_ctx *ctx, rc_maintext_opts *job_opts)
{
    if (ctx->text_opts || !ctx->job->text_method ||
        rc_maintext_method_parse(ctx->job->text_method, &job_opts->method) < 0)
        return ctx->text_opts;
    return job_opts;
}

static void iso_time(uint64_t ms, char *buf, size_t cap)
{
    time_t s = (time_t)(ms / 1000);
    struct tm tm;
    gmtime_r(&s, &tm);
    snprintf(buf, cap, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
             tm.tm_min, tm.tm_sec, (int)(ms % 1000));
}

void rc_page_item_id(const char *crawlid, const char *url, long pos, char out[33])
{
    if (pos < 0) {
        rc_record_doc_id(crawlid, url, out);
        return;
    }
    char *key = rc_xasprintf("%s\n%ld", url, pos);
    rc_record_doc_id(crawlid, key, out);
    free(key);
}

/* Content digest: words of the main text, lower-cased ASCII, single spaces; so markup,
 * boilerplate and whitespace changes do not make a page look new. */
/* text_digest's word copy, 16 bytes at a time while 16 are left before END: lowercased into
 * W + *LEN (never past the end of the text's own length: LEN trails P), up to the first stop
 * byte. Returns where it stopped (the word's end, or fewer than 16 bytes before END). */
static const unsigned char *word_lower(const unsigned char *p, const unsigned char *end, char *w, size_t *len)
{
#if defined(__SSE2__)
    const __m128i sp = _mm_set1_epi8(' '), lf = _mm_set1_epi8('\n'), tab = _mm_set1_epi8('\t');
    const __m128i cr = _mm_set1_epi8('\r'), a = _mm_set1_epi8('A' - 1), z = _mm_set1_epi8('Z' + 1);
    const __m128i case_bit = _mm_set1_epi8(32);
    while (end - p >= 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
        __m128i upper = _mm_and_si128(_mm_cmpgt_epi8(v, a), _mm_cmplt_epi8(v, z)); /* signed: >= 0x80 is not */
        _mm_storeu_si128((__m128i *)(void *)(w + *len), _mm_add_epi8(v, _mm_and_si128(upper, case_bit)));
        __m128i st = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, sp), _mm_cmpeq_epi8(v, lf)),
                                  _mm_or_si128(_mm_cmpeq_epi8(v, tab), _mm_cmpeq_epi8(v, cr)));
        unsigned m = (unsigned)_mm_movemask_epi8(st);
        if (m) { /* the bytes stored after the word's end are written over by what follows */
            unsigned k = (unsigned)__builtin_ctz(m);
            *len += k;
            return p + k;
        }
        *len += 16;
        p += 16;
    }
#else
    (void)end;
    (void)w;
    (void)len;
#endif
    return p;
}

static void text_digest(const char *text, char out[33])
{
    /* The words never outgrow the text: one allocation, written unchecked, a word at a time
     * (this reads every byte of the main text: a branch per byte was a tenth of a crawl). */
    static const unsigned char stop[256] = {[0] = 1, [' '] = 1, ['\n'] = 1, ['\t'] = 1, ['\r'] = 1};
    size_t n = strlen(text);
    char *w = rc_xmalloc(n + 1);
    size_t len = 0;
    const unsigned char *p = (const unsigned char *)text, *end = p + n;
    for (;;) {
        while (*p && stop[*p])
            p++;
        if (!*p)
            break;
        if (len)
            w[len++] = ' ';
        p = word_lower(p, end, w, &len);
        for (; !stop[*p]; p++)
            w[len++] = (char)(*p + ((unsigned)(*p - 'A') < 26u) * 32);
    }
    out[0] = '\0';
    if (len >= 20) { /* a handful of characters is not an article */
        XXH128_hash_t h = XXH3_128bits(w, len);
        snprintf(out, 33, "%016llx%016llx", (unsigned long long)h.high64, (unsigned long long)h.low64);
    }
    free(w);
}

/* Items from the rules: a second page merges into the list item it carries; otherwise the
 * page's field set (the link rule's callback, or the top level) gives one item or a list. */
static void extract_items(const rc_page_ctx *ctx, rc_extract_doc *xd, const char *url, link_ctx *lc,
                          rc_page_result *out)
{
    const rc_record *rec = ctx->rec;
    char err[400];
    rc_extract_stats st;
    memset(&st, 0, sizeof st);
    if (rec->item && ctx->rules->has_second_page) {
        json_t *item = json_loads(rec->item, 0, NULL);
        if (!item)
            return;
        int r = rc_extract_doc_second_page(ctx->rules, xd, url, item, &st, err, sizeof err);
        if (r == 0) {
            json_object_set_new(item, "detail_url", json_string(url));
            json_array_append(out->items, item);
        } else if (r == RC_EXTRACT_DROPPED) {
            out->items_dropped++;
            snprintf(out->dropped_rule, sizeof out->dropped_rule, "%s", st.dropped_rule);
        } else {
            rc_warn(MOD, "second page extraction failed url=%s error=%s", url, err);
        }
        json_decref(item);
        return;
    }
    json_t *items = NULL;
    if (rc_extract_doc_items(ctx->rules, xd, url, rec->cb, &items, &st, err, sizeof err) < 0) {
        rc_warn(MOD, "extraction failed url=%s field_set=%s error=%s", url, rec->cb ? rec->cb : "-", err);
        return;
    }
    out->items_dropped += st.dropped;
    if (st.dropped)
        snprintf(out->dropped_rule, sizeof out->dropped_rule, "%s", st.dropped_rule);
    const rc_rules_set *set = rc_rules_set_get(ctx->rules, rec->cb);
    int listed = set && set->list_from != NULL;
    size_t i;
    json_t *item;
    json_array_foreach (items, i, item) {
        char id[33];
        rc_page_item_id(rec->crawlid, rec->url, listed ? (long)i : -1, id);
        json_object_set_new(item, "_id", json_string(id));
        json_object_set_new(item, "crawlid", json_string(rec->crawlid));
        add_attrs(ctx->job, item);
        const char *detail = json_string_value(json_object_get(item, "_second_page_url"));
        if (detail && ctx->rules->has_second_page) {
            /* The detail page completes the item: it travels with the request. */
            char *durl = rc_xstrdup(detail);
            json_object_del(item, "_second_page_url");
            char *itxt = json_dumps(item, JSON_COMPACT | JSON_PRESERVE_ORDER);
            char host[300];
            if (itxt && rc_url_host(durl, host, sizeof host) == 0) {
                rc_record lr = {.url = durl,
                                .crawlid = rec->crawlid,
                                .depth = rec->depth + 1,
                                .priority = rec->priority,
                                .item = itxt};
                char *bkey = rc_xasprintf("%s\n#item %s", durl, id);
                push_link(lc, &lr, bkey, rc_bloom_hash64(bkey, strlen(bkey)));
                free(bkey);
            }
            free(itxt);
            free(durl);
            continue; /* stored once, complete, when its detail page arrives */
        }
        json_object_del(item, "_second_page_url");
        json_array_append(out->items, item);
    }
    json_decref(items);
}

/* A chain that may leave the scope and whose first record gets the final URL: a seed's (what
 * the user posted) or one that began at a jump link (a search engine's result link). */
static int free_chain(const rc_page_ctx *ctx)
{
    const rc_record *rec = ctx->rec;
    if (rec->depth == 0)
        return 1;
    json_t *chain = rec->chain ? json_loads(rec->chain, 0, NULL) : NULL;
    const char *first = chain ? json_string_value(json_object_get(json_array_get(chain, 0), "url")) : rec->url;
    int jump = first && rc_urlfilter_is_jump(ctx->filter, first);
    json_decref(chain);
    return jump;
}

/* A detail page whose fields cannot be had: the list item it carries is stored as it is. */
static void keep_list_item(const rc_record *rec, const char *url, long status, rc_page_result *out)
{
    json_t *item = json_loads(rec->item, 0, NULL);
    if (!item)
        return;
    json_object_set_new(item, "detail_url", json_string(url));
    json_object_set_new(item, "detail_status", json_integer(status));
    json_array_append_new(out->items, item);
}

/* Bytes of j as compact JSON. */
static size_t json_dumps_len(const json_t *j)
{
    char *s = json_dumps(j, JSON_COMPACT);
    size_t n = s ? strlen(s) : (size_t)-1;
    free(s);
    return n;
}

/* A redirect (a 3xx's Location, or a quick meta refresh) is not followed inside the fetch: its
 * target enters the frontier like a link (same depth, the same page's callback and item), so it
 * waits for the host's delay, is checked against robots.txt, and is fetched once. It carries the
 * chain so far; a seed's chain (depth 0) may leave the job's scope, for that chain only (the
 * target's own links stay in scope). 1 when the target was queued. */
static int follow_redirect(link_ctx *lc, const char *target, long status, const char *id)
{
    const rc_record *rec = lc->ctx->rec;
    if (rec->redirects >= RC_RECORD_MAX_REDIRECTS)
        return 0;
    json_t *chain = rec->chain ? json_loads(rec->chain, 0, NULL) : NULL;
    if (!json_is_array(chain)) {
        json_decref(chain);
        chain = json_array();
    }
    json_array_append_new(chain, json_pack("{s:s,s:I}", "url", rec->url, "status", (json_int_t)status));
    /* A frontier record stays under RC_RECORD_MAX: a chain of long URLs loses its middle hops
     * (the first, which final_url needs, stays), and is dropped when even that is too long. */
    while (json_array_size(chain) > 1 && json_dumps_len(chain) > RC_RECORD_MAX / 2)
        json_array_remove(chain, 1);
    char *cj = json_dumps_len(chain) <= RC_RECORD_MAX / 2 ? json_dumps(chain, JSON_COMPACT) : NULL;
    json_decref(chain);
    int pushed = 0;
    if (rec->item) {
        char host[300];
        if (rc_url_host(target, host, sizeof host) == 0) {
            rc_record lr = *rec;
            lr.url = (char *)target;
            lr.attempt = 0;
            lr.redirects = rec->redirects + 1;
            lr.refresh = 0; /* a new URL: none of the source's refresh state */
            lr.etag = lr.lastmod = lr.digest = NULL;
            lr.chain = cj;
            char *bkey = rc_xasprintf("%s\n#item %s", target, id);
            push_link(lc, &lr, bkey, rc_bloom_hash64(bkey, strlen(bkey)));
            free(bkey);
            pushed = 1;
        }
    } else {
        char *copy = rc_xstrdup(target);
        lc->chain = cj;
        lc->any_scope = free_chain(lc->ctx);
        consider_at(lc, copy, rec->cb, rec->nofollow, rec->depth, rec->redirects + 1);
        pushed = lc->pushed;
        lc->chain = NULL;
        lc->any_scope = 0;
        free(copy);
    }
    free(cj);
    return pushed;
}

/* X-Robots-Tag: noindex (or none) among the response's headers. */
static int has_noindex_header(const char *head)
{
    const char *p = head;
    while (p && *p) {
        const char *eol = strchr(p, '\n');
        size_t n = eol ? (size_t)(eol - p) : strlen(p);
        if (n > 13 && strncasecmp(p, "x-robots-tag:", 13) == 0) {
            char line[512];
            size_t k = 0;
            for (size_t i = 13; i < n && k + 1 < sizeof line; i++)
                line[k++] = (char)(p[i] >= 'A' && p[i] <= 'Z' ? p[i] + 32 : p[i]);
            line[k] = '\0';
            if (strstr(line, "noindex") || strstr(line, "none"))
                return 1;
        }
        p = eol ? eol + 1 : NULL;
    }
    return 0;
}

/* The last hop of a redirect chain: this record names where the chain began, and, for a seed's
 * chain that began with a 3xx, the chain's first URL gets its record again (same _id, so it supersedes the one stored
 * when it answered its 3xx, which held nothing else) with final_url and the whole chain. */
static void end_of_chain(const rc_page_ctx *ctx, const rc_fetch_result *res, json_t *o, const char *redirect_to,
                         rc_page_result *out)
{
    const rc_record *rec = ctx->rec;
    json_t *chain = json_loads(rec->chain, 0, NULL);
    json_t *first = json_array_get(chain, 0);
    const char *first_url = json_string_value(json_object_get(first, "url"));
    if (!first_url) {
        json_decref(chain);
        return;
    }
    json_array_append_new(chain, json_pack("{s:s,s:I}", "url", rec->url, "status", (json_int_t)res->status));
    const char *final = redirect_to ? redirect_to : rec->url; /* a redirect not followed ends it */
    json_object_set_new(o, "redirected_from", json_string(first_url));
    json_object_set(o, "redirect_chain", chain);
    json_int_t first_status = json_integer_value(json_object_get(first, "status"));
    if (!free_chain(ctx) || first_status < 300 || first_status > 399) {
        /* Only a seed's or a jump link's chain gets its first record again; a meta refresh
         * that began a chain left a record with content of its own, kept as it is. */
        json_decref(chain);
        return;
    }
    char id[33], ts[64];
    rc_record_doc_id(rec->crawlid, first_url, id);
    iso_time(ctx->now_ms, ts, sizeof ts);
    json_t *f = json_object();
    json_object_set_new(f, "_id", json_string(id));
    json_object_set_new(f, "crawlid", json_string(rec->crawlid));
    json_object_set_new(f, "appid", json_string(ctx->job->appid));
    json_object_set_new(f, "spiderid", json_string(ctx->job->spiderid));
    add_attrs(ctx->job, f);
    json_object_set_new(f, "url", json_string(first_url));
    json_object_set(f, "status_code", json_object_get(first, "status"));
    json_object_set_new(f, "redirect_to", json_copy(json_object_get(json_array_get(chain, 1), "url")));
    json_object_set_new(f, "depth", json_integer(rec->depth));
    json_object_set_new(f, "final_url", json_string(final));
    json_object_set_new(f, "final_status", redirect_to ? json_null() : json_integer(res->status));
    json_object_set(f, "redirect_chain", chain);
    json_object_set_new(f, "timestamp", json_string(ts));
    json_object_set_new(f, "worker", json_string(ctx->worker_id));
    out->first_doc = f;
    json_decref(chain);
}

/* A sitemap URL (or one an index lists) enters the frontier like a link at the same depth,
 * marked with its level; in scope only. */
static void push_sitemap(link_ctx *lc, const char *url, int level)
{
    char *norm = NULL, host[300];
    const rc_page_ctx *ctx = lc->ctx;
    if (rc_url_normalize(url, &norm) < 0 || rc_url_host(norm, host, sizeof host) < 0 ||
        !rc_job_in_scope(ctx->job, host)) {
        free(norm);
        return;
    }
    uint64_t h = seen_key(&lc->key, ctx->rec->crawlid, norm);
    if (!rc_seen_has(ctx->seen, h)) {
        rc_record sr = {.url = norm,
                        .crawlid = ctx->rec->crawlid,
                        .depth = ctx->rec->depth,
                        .priority = ctx->rec->priority,
                        .sitemap = level};
        push_link(lc, &sr, norm, h);
    }
    free(norm);
}

/* A seed of a job with "sitemaps": its origin's /sitemap.xml and robots.txt Sitemap: lines. */
static void seed_sitemaps(link_ctx *lc, const char *url)
{
    const rc_page_ctx *ctx = lc->ctx;
    char host[300];
    if (rc_url_host(url, host, sizeof host) < 0)
        return;
    const char *p = strstr(url, "://");
    const char *slash = p ? strchr(p + 3, '/') : NULL;
    char *origin = slash ? rc_xstrndup(url, (size_t)(slash - url)) : rc_xstrdup(url);
    char *sm = rc_xasprintf("%s/sitemap.xml", origin);
    push_sitemap(lc, sm, 1);
    for (size_t i = 0; i < ctx->n_sitemaps; i++)
        push_sitemap(lc, ctx->sitemaps[i], 1);
    free(sm);
    free(origin);
}

typedef struct sitemap_walk {
    link_ctx *lc;
    int follow; /* its page URLs may be followed (maxdepth) */
    size_t n;
} sitemap_walk;

static int on_sitemap_loc(void *ud, int kind, const char *loc, const char *lastmod)
{
    sitemap_walk *sw = ud;
    const rc_record *rec = sw->lc->ctx->rec;
    sw->n++;
    if (kind == RC_SITEMAP_INDEX) {
        if (rec->sitemap < 2) /* an index lists sitemaps, never indexes (sitemaps.org) */
            push_sitemap(sw->lc, loc, rec->sitemap + 1);
        return 0;
    }
    char *norm = NULL, *suffix = NULL;
    int64_t lm;
    if (rec->refresh && rec->visited_ms > 0 && lastmod && rc_sitemap_lastmod_ms(lastmod, &lm) == 0 &&
        lm > rec->visited_ms)
        /* Changed since this sitemap was last read: fetched again (once per <lastmod>), even a
         * data page, which is otherwise fetched once. */
        suffix = rc_xasprintf("\n#lastmod %lld", (long long)lm);
    sw->lc->key_suffix = suffix;
    if (sw->follow && rc_url_normalize(loc, &norm) == 0)
        consider(sw->lc, norm, NULL, 0);
    sw->lc->key_suffix = NULL;
    free(suffix);
    free(norm);
    return 0;
}

/* A fetched sitemap: its entries become frontier records; the record says what it held. */
static void read_sitemap(const rc_page_ctx *ctx, const rc_fetch_result *res, link_ctx *lc, json_t *o)
{
    if (!res->ok || res->status < 200 || res->status > 299)
        return;
    char err[200] = "";
    sitemap_walk sw = {.lc = lc, .follow = ctx->job->maxdepth < 0 || ctx->rec->depth + 1 <= ctx->job->maxdepth};
    int kind = rc_sitemap_parse(res->body, res->body_len, RC_SITEMAP_MAX_URLS, on_sitemap_loc, &sw, err, sizeof err);
    if (kind < 0) {
        json_object_set_new(o, "sitemap_error", json_string(err));
        return;
    }
    json_object_set_new(o, "sitemap", json_string(kind == RC_SITEMAP_INDEX ? "sitemapindex" : "urlset"));
    json_object_set_new(o, "sitemap_urls", json_integer((json_int_t)sw.n));
}

/* One page's processing: what its steps found, for the record built at the end. */
typedef struct page_state {
    const rc_page_ctx *ctx;
    const rc_fetch_result *res;
    rc_page_result *out;
    link_ctx lc;
    char id[33];
    const char *url; /* the effective URL */
    char charset[RC_CHARSET_NAME_MAX];
    char *utf8; /* the decoded body */
    size_t ulen;
    rc_html *doc;    /* the tree, when rules or the main text need one */
    rc_htmltok *tok; /* instead of DOC when nothing needs a tree */
    json_t *meta;
    const char *title;
    char *redirect_to;
    const char *redirect_kind;
    int redirect_pushed;
    int noindex;
    const char *noindex_why;
    char *canonical_of; /* dedup_canonical: the URL this page is a duplicate of */
    char *text;
    rc_maintext_method text_method;
} page_state;

/* What the page's head says about its links and refresh. */
typedef struct page_head {
    const char *base_href;
    const char *refresh; /* a <meta http-equiv=refresh> URL, NULL = none */
    double refresh_delay;
    int robots; /* RC_HTML_NOINDEX | RC_HTML_NOFOLLOW */
} page_head;

/* Decodes the body to UTF-8 once (header, BOM, <meta>, then sniffing) and parses it once: a tree
 * when rules or the main text need one, else the streaming tokenizer (same facts, no DOM). */
static void parse_page(page_state *ps, page_head *h)
{
    const rc_page_ctx *ctx = ps->ctx;
    const rc_fetch_result *res = ps->res;
    rc_charset_decode(res->body, res->body_len, res->content_type, ps->charset, sizeof ps->charset, &ps->utf8,
                      &ps->ulen);
    ps->meta = json_object();
    if (ctx->rules || ctx->job->text || ctx->job->dedup_content) {
        /* Without XPath rules nothing reads script or style text (JSON-LD is kept). */
        rc_html_limits lim = {.skip_script_text = !ctx->rules, .tree = ctx->rules ? RC_HTML_TREE_GUMBO : ctx->tree};
        ps->doc = rc_html_parse_limited(ps->utf8, ps->ulen, &lim);
        ps->title = rc_html_title(ps->doc);
        rc_maintext_meta(ps->doc, ps->url, ps->meta);
        h->base_href = rc_html_base_href(ps->doc);
        h->robots = rc_html_robots_flags(ps->doc);
        h->refresh = rc_html_meta_refresh(ps->doc);
        h->refresh_delay = rc_html_meta_refresh_delay(ps->doc);
    } else {
        ps->tok = rc_htmltok_scan(ps->utf8, ps->ulen);
        ps->title = rc_htmltok_title(ps->tok);
        rc_htmltok_meta(ps->tok, ps->url, ps->meta);
        h->base_href = rc_htmltok_base_href(ps->tok);
        h->robots = rc_htmltok_robots_flags(ps->tok);
        h->refresh = rc_htmltok_meta_refresh(ps->tok);
        h->refresh_delay = rc_htmltok_meta_refresh_delay(ps->tok);
    }
    if (!ps->noindex && (h->robots & RC_HTML_NOINDEX)) {
        ps->noindex = 1;
        ps->noindex_why = "meta robots noindex";
    }
}

/* dedup_canonical: when another URL is this page's canonical one, the page is recorded as its
 * duplicate, its text left to that URL, which is queued (at this depth) in case no link leads
 * there. */
static void check_canonical(page_state *ps)
{
    const rc_record *rec = ps->ctx->rec;
    const char *canon = json_string_value(json_object_get(ps->meta, "canonical"));
    if (!ps->ctx->job->dedup_canonical || !canon || strcmp(canon, rec->url) == 0)
        return;
    ps->canonical_of = rc_xstrdup(canon);
    char *copy = rc_xstrdup(canon);
    consider_at(&ps->lc, copy, rec->cb, rec->nofollow, rec->depth, rec->redirects);
    free(copy);
}

/* The main text and its digest. noindex: the page is recorded (it was fetched, its links may be
 * followed) but what a search index would keep, its text and items, is not. */
static void main_text(page_state *ps)
{
    const rc_job *job = ps->ctx->job;
    rc_maintext_opts job_opts = {0};
    if (ps->doc && !ps->noindex && !ps->canonical_of && (job->text || job->dedup_content))
        ps->text = rc_maintext_text(ps->doc, text_opts(ps->ctx, &job_opts), &ps->text_method);
    if (ps->text && job->dedup_content)
        text_digest(ps->text, ps->out->digest);
}

/* Whether the page's links are followed: depth, nofollow (the link's and the page's). A list
 * page's links (pagination) are followed only with "continue": true; its detail pages always are. */
static int follows_links(const page_state *ps, int robots)
{
    const rc_page_ctx *ctx = ps->ctx;
    const rc_record *rec = ctx->rec;
    int follow = !rec->nofollow && (ctx->job->maxdepth < 0 || rec->depth + 1 <= ctx->job->maxdepth) &&
                 !(robots & RC_HTML_NOFOLLOW);
    if (ctx->rules && !rec->item) {
        const rc_rules_set *set = rc_rules_set_get(ctx->rules, rec->cb);
        if (set && set->list_from && !ctx->rules->cont)
            follow = 0;
    }
    return follow;
}

/* A quick meta refresh is how some sites redirect: followed like a 3xx. */
static void meta_refresh(page_state *ps, const char *base, const page_head *h)
{
    const rc_job *job = ps->ctx->job;
    if (h->refresh && !ps->redirect_to && job->meta_refresh_max >= 0 &&
        h->refresh_delay <= (double)job->meta_refresh_max &&
        rc_url_resolve(base, h->refresh, strlen(h->refresh), &ps->redirect_to) == 0) {
        ps->redirect_kind = "meta refresh";
        ps->redirect_pushed = follow_redirect(&ps->lc, ps->redirect_to, ps->res->status, ps->id);
    }
}

/* The page's links, by the link rules when there are some, else every <a href>. */
static void page_links(page_state *ps, rc_extract_doc *xd, const char *base)
{
    const rc_page_ctx *ctx = ps->ctx;
    char err[256];
    href_ctx hc = {.lc = &ps->lc, .base = rc_url_base_new(base)};
    rc_buf_init(&hc.text);
    if (xd && ctx->rules->nlinks > 0) {
        if (rc_extract_doc_links(ctx->rules, xd, base, ctx->max_links, on_rule_link, &ps->lc, err, sizeof err) < 0)
            rc_warn(MOD, "link rules failed url=%s error=%s", ps->url, err);
    } else if (ps->doc) {
        rc_html_links(ps->doc, 1, ctx->max_links, on_href, &hc);
    } else {
        rc_htmltok_links(ps->tok, 1, ctx->max_links, on_href, &hc);
    }
    href_ctx_release(&hc);
}

/* An HTML page: parsed, its canonical, text, meta refresh, items and links. */
static void process_html(page_state *ps)
{
    const rc_page_ctx *ctx = ps->ctx;
    const rc_record *rec = ctx->rec;
    page_head h;
    memset(&h, 0, sizeof h);
    parse_page(ps, &h);
    check_canonical(ps);
    main_text(ps);
    char *base_resolved = NULL;
    const char *base = ps->url;
    if (h.base_href && rc_url_resolve(ps->url, h.base_href, strlen(h.base_href), &base_resolved) == 0)
        base = base_resolved;
    int follow = follows_links(ps, h.robots);
    meta_refresh(ps, base, &h);
    rc_extract_doc *xd = ctx->rules && ps->doc && !ps->noindex ? rc_extract_doc_new(ps->doc) : NULL;
    if (xd)
        extract_items(ctx, xd, ps->url, &ps->lc, ps->out);
    if (follow)
        page_links(ps, xd, base);
    rc_extract_doc_free(xd);
    free(base_resolved);
    if (ps->noindex && ctx->rules && rec->item)
        keep_list_item(rec, ps->url, ps->res->status, ps->out); /* the list page's item, not the detail's */
}

/* The record's fields about the fetch: ids, URLs, status, redirect, noindex, duplicate, depth. */
static void record_fetch(const page_state *ps, json_t *o)
{
    const rc_page_ctx *ctx = ps->ctx;
    const rc_record *rec = ctx->rec;
    const rc_fetch_result *res = ps->res;
    json_object_set_new(o, "_id", json_string(ps->id));
    json_object_set_new(o, "crawlid", json_string(rec->crawlid));
    json_object_set_new(o, "appid", json_string(ctx->job->appid));
    json_object_set_new(o, "spiderid", json_string(ctx->job->spiderid));
    add_attrs(ctx->job, o);
    json_object_set_new(o, "url", json_string(rec->url));
    json_object_set_new(o, "response_url", res->effective_url ? json_string(res->effective_url) : json_null());
    json_object_set_new(o, "status_code", json_integer(res->status));
    if (res->http_version)
        json_object_set_new(o, "http_version", json_string(res->http_version));
    if (ps->redirect_to)
        json_object_set_new(o, "redirect_to", json_string(ps->redirect_to));
    if (ps->redirect_kind)
        json_object_set_new(o, "redirect_kind", json_string(ps->redirect_kind));
    if (ps->noindex)
        json_object_set_new(o, "noindex", json_string(ps->noindex_why));
    if (ps->canonical_of) {
        json_object_set_new(o, "duplicate_of", json_string(ps->canonical_of));
        json_object_set_new(o, "duplicate_reason", json_string("canonical"));
    }
    json_object_set_new(o, "depth", json_integer(rec->depth));
}

/* The record's fields about the content: title, type, size, links, items, meta, text, body. */
static void record_content(const page_state *ps, json_t *o)
{
    const rc_page_ctx *ctx = ps->ctx;
    const rc_fetch_result *res = ps->res;
    json_object_set_new(o, "title", ps->title ? json_string(ps->title) : json_null());
    json_object_set_new(o, "content_type", res->content_type ? json_string(res->content_type) : json_null());
    if (ps->charset[0])
        json_object_set_new(o, "charset", json_string(ps->charset));
    json_object_set_new(o, "length", json_integer((json_int_t)res->body_len));
    json_object_set_new(o, "truncated", json_boolean(res->truncated));
    json_object_set_new(o, "links", json_integer((json_int_t)ps->lc.n_found));
    if (ps->lc.n_filtered)
        json_object_set_new(o, "links_filtered", json_integer((json_int_t)ps->lc.n_filtered));
    if (ctx->rules)
        json_object_set_new(o, "items", json_integer((json_int_t)json_array_size(ps->out->items)));
    if (ps->meta && json_object_size(ps->meta))
        json_object_set(o, "meta", ps->meta);
    if (ps->out->digest[0])
        json_object_set_new(o, "text_digest", json_string(ps->out->digest));
    if (ps->text && ctx->job->text) {
        json_object_set_new(o, "text", json_string(ps->text));
        json_object_set_new(o, "text_method", json_string(rc_maintext_method_name(ps->text_method)));
    }
    if (ps->utf8 && ctx->job->body) {
        /* The decoded page; a large one only in WARC, so a record stays a record. */
        if (ps->ulen <= (size_t)ctx->job->body_max)
            json_object_set_new(o, "body", json_stringn(ps->utf8, ps->ulen));
        else
            json_object_set_new(o, "body_omitted", json_sprintf("%zu bytes, over body_max", ps->ulen));
    }
}

/* The record's fields about this attempt: when, how long, which, by whom, what went wrong. */
static void record_attempt(const page_state *ps, json_t *o)
{
    const rc_page_ctx *ctx = ps->ctx;
    const rc_fetch_result *res = ps->res;
    char ts[64];
    iso_time(ctx->now_ms, ts, sizeof ts);
    json_object_set_new(o, "timestamp", json_string(ts));
    json_object_set_new(o, "fetch_ms", json_real(res->total_ms));
    json_object_set_new(o, "attempt", json_integer(ctx->rec->attempt + 1));
    json_object_set_new(o, "worker", json_string(ctx->worker_id));
    if (!res->ok)
        json_object_set_new(o, "error", json_string(res->error ? res->error : "fetch failed"));
}

static void page_state_release(page_state *ps)
{
    json_decref(ps->meta);
    free(ps->text);
    rc_html_free(ps->doc);
    rc_htmltok_free(ps->tok);
    free(ps->utf8);
    free(ps->redirect_to);
    free(ps->canonical_of);
    rc_buf_release(&ps->lc.key);
}

void rc_page_process(const rc_page_ctx *ctx, const rc_fetch_result *res, rc_page_result *out)
{
    const rc_record *rec = ctx->rec;
    page_state ps;
    memset(&ps, 0, sizeof ps);
    memset(out, 0, sizeof *out);
    rc_argv_init(&out->links);
    out->items = json_array();
    ps.ctx = ctx;
    ps.res = res;
    ps.out = out;
    ps.lc.ctx = ctx;
    ps.lc.out = out;
    rc_buf_init(&ps.lc.key);
    ps.text_method = RC_MAINTEXT_ARTICLE;
    out->is_data = rc_urlfilter_is_data(ctx->filter, rec->url);
    rc_record_doc_id(rec->crawlid, rec->url, ps.id);
    ps.url = res->effective_url ? res->effective_url : rec->url;

    int html = res->ok && res->status >= 200 && res->status < 300 && is_html(res) && !rec->sitemap;
    if (res->ok && res->redirect_url && rc_url_normalize(res->redirect_url, &ps.redirect_to) == 0)
        ps.redirect_pushed = follow_redirect(&ps.lc, ps.redirect_to, res->status, ps.id);
    if (html && res->response_head && has_noindex_header(res->response_head)) {
        ps.noindex = 1;
        ps.noindex_why = "X-Robots-Tag noindex";
    }
    if (!html && !ps.redirect_to && ctx->rules && rec->item)
        keep_list_item(rec, ps.url, res->status, out); /* a detail page that is not HTML (a PDF, a 404) */
    if (html)
        process_html(&ps);

    json_t *o = json_object();
    record_fetch(&ps, o);
    record_content(&ps, o);
    record_attempt(&ps, o);
    if (rec->chain && !ps.redirect_pushed)
        end_of_chain(ctx, res, o, ps.redirect_to, out);
    if (rec->sitemap)
        read_sitemap(ctx, res, &ps.lc, o);
    else if (ctx->job->sitemaps && rec->depth == 0 && !rec->refresh && res->ok)
        seed_sitemaps(&ps.lc, rec->url);
    out->doc = o;
    page_state_release(&ps);
}

int rc_page_job_init(rc_page_job *pj, const char *spec, size_t len, const char *bloom, char *err, size_t cap)
{
    memset(pj, 0, sizeof *pj);
    if (rc_job_parse(spec, len, &pj->job, err, cap) < 0)
        return -EINVAL;
    rc_urlfilter_conf fc;
    rc_urlfilter_conf_init(&fc);
    fc.allow_re = (const char *const *)pj->job.allow_regex;
    fc.n_allow_re = pj->job.n_allow_regex;
    fc.deny_re = (const char *const *)pj->job.deny_regex;
    fc.n_deny_re = pj->job.n_deny_regex;
    fc.data_re = (const char *const *)pj->job.data_pages;
    fc.n_data_re = pj->job.n_data_pages;
    fc.jump_re = (const char *const *)pj->job.jump_links;
    fc.n_jump_re = pj->job.n_jump_links;
    if (pj->job.has_deny_extensions) {
        fc.deny_ext = (const char *const *)pj->job.deny_extensions;
        fc.n_deny_ext = pj->job.n_deny_extensions;
    }
    if (!(pj->filter = rc_urlfilter_new(&fc, err, cap)))
        goto fail;
    if (pj->job.rules && !(pj->rules = rc_rules_parse(pj->job.rules, strlen(pj->job.rules), err, cap)))
        goto fail;
    if (bloom ? rc_sbloom_params_parse(bloom, &pj->bp) < 0 : rc_sbloom_params_for(0, 0.01, 1, &pj->bp) < 0) {
        snprintf(err, cap, "bad bloom parameters");
        goto fail;
    }
    return 0;
fail:
    rc_page_job_release(pj);
    return -EINVAL;
}

const rc_rules *rc_page_job_rules(rc_page_job *pj, int thread)
{
    if (!pj->rules || thread <= 0 || thread >= RC_PAGE_THREADS_MAX)
        return pj->rules;
    if (!pj->thread_rules[thread]) {
        char err[400];
        pj->thread_rules[thread] = rc_rules_parse(pj->job.rules, strlen(pj->job.rules), err, sizeof err);
        if (!pj->thread_rules[thread])
            rc_error(MOD, "the rules of job %s do not compile again: %s", pj->job.crawlid, err);
    }
    return pj->thread_rules[thread];
}

void rc_page_job_release(rc_page_job *pj)
{
    rc_job_release(&pj->job);
    rc_urlfilter_free(pj->filter);
    rc_rules_free(pj->rules);
    for (int i = 0; i < RC_PAGE_THREADS_MAX; i++)
        rc_rules_free(pj->thread_rules[i]);
    memset(pj, 0, sizeof *pj);
}

void rc_page_result_release(rc_page_result *r)
{
    json_decref(r->doc);
    json_decref(r->first_doc);
    json_decref(r->items);
    rc_argv_release(&r->links);
    free(r->hashes);
    memset(r, 0, sizeof *r);
}
