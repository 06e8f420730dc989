/* record.c - see record.h. */
#include "record.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#define XXH_INLINE_ALL
#include <xxhash.h>

/* Whether s..e is a decimal integer (an optional minus, then digits). */
static int is_int(const char *s, const char *e)
{
    if (s < e && *s == '-')
        s++;
    if (s >= e || e - s > 10)
        return 0;
    for (; s < e; s++)
        if (*s < '0' || *s > '9')
            return 0;
    return 1;
}

/* A plain record in the compact form: "crawlid depth priority attempt url", or, stored under its
 * job's own key, "depth priority attempt url" (crawlid given by the caller). The two differ by
 * their fourth field: an integer (attempt) or the URL, which starts with its scheme. */
static int parse_compact(const char *s, size_t len, const char *crawlid, rc_record *ret)
{
    const char *e = s + len, *p = s;
    const char *f[4];
    size_t flen[4];
    int nf = 0;
    while (nf < 4) {
        const char *sp = memchr(p, ' ', (size_t)(e - p));
        if (!sp || sp == p)
            break;
        f[nf] = p;
        flen[nf++] = (size_t)(sp - p);
        p = sp + 1;
    }
    if (nf < 3)
        return -EINVAL;
    const char *const *num = f + 1;
    const size_t *nlen = flen + 1;
    if (nf < 4 || !is_int(f[3], f[3] + flen[3])) { /* no crawlid: the URL starts at the 4th field */
        if (!crawlid || !*crawlid)
            return -EINVAL;
        num = f;
        nlen = flen;
        if (nf == 4)
            p = f[3];
    }
    long v[3];
    for (int i = 0; i < 3; i++) {
        char buf[16], *end;
        if (nlen[i] >= sizeof buf || !is_int(num[i], num[i] + nlen[i]))
            return -EINVAL;
        memcpy(buf, num[i], nlen[i]);
        buf[nlen[i]] = '\0';
        v[i] = strtol(buf, &end, 10);
    }
    if (p >= e || memchr(p, '\0', (size_t)(e - p)))
        return -EINVAL;
    memset(ret, 0, sizeof *ret);
    ret->crawlid = num == f ? rc_xstrdup(crawlid) : rc_xstrndup(f[0], flen[0]);
    ret->depth = (int)v[0];
    ret->priority = (int)v[1];
    ret->attempt = (int)v[2];
    ret->url = rc_xstrndup(p, (size_t)(e - p));
    return 0;
}

int rc_record_parse(const char *json, size_t len, rc_record *ret)
{
    return rc_record_parse_in(json, len, NULL, ret);
}

int rc_record_parse_in(const char *json, size_t len, const char *crawlid, rc_record *ret)
{
    if (len > RC_RECORD_MAX || len == 0)
        return -EINVAL;
    if (json[0] != '{')
        return parse_compact(json, len, crawlid, ret);
    json_t *root = json_loadb(json, len, 0, NULL);
    if (!root)
        return -EINVAL;
    int r = -EINVAL;
    const char *url = json_string_value(json_object_get(root, "url"));
    const char *cid = json_string_value(json_object_get(root, "crawlid"));
    if (!cid)
        cid = crawlid && *crawlid ? crawlid : NULL;
    json_t *depth = json_object_get(root, "depth");
    if (!url || !cid || !json_is_integer(depth))
        goto out;
    ret->url = rc_xstrdup(url);
    ret->crawlid = rc_xstrdup(cid);
    ret->depth = (int)json_integer_value(depth);
    ret->priority = (int)json_integer_value(json_object_get(root, "priority"));
    ret->attempt = (int)json_integer_value(json_object_get(root, "attempt"));
    const char *cb = json_string_value(json_object_get(root, "cb"));
    ret->cb = cb ? rc_xstrdup(cb) : NULL;
    json_t *item = json_object_get(root, "item");
    ret->item = json_is_object(item) ? json_dumps(item, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    ret->nofollow = json_is_true(json_object_get(root, "nofollow"));
    ret->redirects = (int)json_integer_value(json_object_get(root, "redirects"));
    ret->redeliver = json_is_true(json_object_get(root, "redeliver"));
    ret->refresh = json_is_true(json_object_get(root, "refresh"));
    const char *v = json_string_value(json_object_get(root, "etag"));
    ret->etag = v && *v ? rc_xstrdup(v) : NULL;
    v = json_string_value(json_object_get(root, "lm"));
    ret->lastmod = v && *v ? rc_xstrdup(v) : NULL;
    v = json_string_value(json_object_get(root, "digest"));
    ret->digest = v && *v ? rc_xstrdup(v) : NULL;
    ret->sitemap = (int)json_integer_value(json_object_get(root, "sitemap"));
    ret->visited_ms = (long long)json_integer_value(json_object_get(root, "at"));
    json_t *chain = json_object_get(root, "chain");
    ret->chain = json_is_array(chain) && json_array_size(chain) ? json_dumps(chain, JSON_COMPACT) : NULL;
    r = 0;
out:
    json_decref(root);
    return r;
}

/* Nothing but url, crawlid, depth, priority and attempt: the compact form holds it. */
static int plain(const rc_record *r)
{
    return !r->cb && !r->item && !r->nofollow && !r->redirects && !r->redeliver && !r->refresh && !r->etag &&
           !r->lastmod && !r->digest && !r->sitemap && !r->visited_ms && !r->chain && r->crawlid[0] &&
           r->crawlid[0] != '{' && !strchr(r->crawlid, ' ') && r->url[0];
}

char *rc_record_encode(const rc_record *r)
{
    if (plain(r)) {
        size_t n = strlen(r->crawlid) + strlen(r->url) + 3 * 12 + 8;
        char *s = rc_xmalloc(n);
        snprintf(s, n, "%s %d %d %d %s", r->crawlid, r->depth, r->priority, r->attempt, r->url);
        return s;
    }
    /* json_pack steals nothing here: "s" copies strings. */
    json_t *o = json_pack("{s:s, s:s, s:i, s:i, s:i}", "url", r->url, "crawlid", r->crawlid, "depth", r->depth,
                          "priority", r->priority, "attempt", r->attempt);
    if (r->cb)
        json_object_set_new(o, "cb", json_string(r->cb));
    if (r->item)
        json_object_set_new(o, "item", json_loads(r->item, 0, NULL));
    if (r->nofollow)
        json_object_set_new(o, "nofollow", json_true());
    if (r->redirects)
        json_object_set_new(o, "redirects", json_integer(r->redirects));
    if (r->redeliver)
        json_object_set_new(o, "redeliver", json_true());
    if (r->refresh)
        json_object_set_new(o, "refresh", json_true());
    if (r->etag)
        json_object_set_new(o, "etag", json_string(r->etag));
    if (r->lastmod)
        json_object_set_new(o, "lm", json_string(r->lastmod));
    if (r->digest)
        json_object_set_new(o, "digest", json_string(r->digest));
    if (r->sitemap)
        json_object_set_new(o, "sitemap", json_integer(r->sitemap));
    if (r->visited_ms)
        json_object_set_new(o, "at", json_integer(r->visited_ms));
    if (r->chain)
        json_object_set_new(o, "chain", json_loads(r->chain, 0, NULL));
    char *s = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(o);
    if (!s)
        abort(); /* only fails on OOM */
    return s;
}

void rc_record_release(rc_record *r)
{
    free(r->url);
    free(r->crawlid);
    free(r->cb);
    free(r->item);
    free(r->etag);
    free(r->lastmod);
    free(r->digest);
    free(r->chain);
    r->chain = NULL;
    r->url = r->crawlid = r->cb = r->item = NULL;
    r->etag = r->lastmod = r->digest = NULL;
}

void rc_record_doc_id(const char *crawlid, const char *url, char out[33])
{
    XXH3_state_t st;
    XXH3_128bits_reset(&st);
    XXH3_128bits_update(&st, crawlid, strlen(crawlid));
    XXH3_128bits_update(&st, "\n", 1);
    XXH3_128bits_update(&st, url, strlen(url));
    XXH128_hash_t h = XXH3_128bits_digest(&st);
    snprintf(out, 33, "%016llx%016llx", (unsigned long long)h.high64, (unsigned long long)h.low64);
}
