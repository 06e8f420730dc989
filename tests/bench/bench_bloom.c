/* bench_bloom.c - the URL dedup benchmark of issue 4 (thesis 4.2.3), against a real Redis.
 * Asserts nothing, prints tables; scripts/bench_dedup.sh starts a private Redis and runs it.
 *   bench_bloom --redis redis://127.0.0.1:PORT [options] main|counting|big|growth
 * main      N URLs (default 1,000,000) of which D (50,000) repeat an earlier one, from a
 *           deterministic generator of realistic URLs over a few thousand hosts. The exact answer
 *           comes from a C hash set. Then the multi-group bloom (h = 1..4 groups at EQUAL total
 *           memory, sized for N at --fp with h = 1) is run over the stream through Lua batches
 *           of one fixed filter (SETBIT of the client's positions, as the crawler did before its
 *           filter learned to grow): false
 *           positives, false negatives, Redis memory per filter, and the check-and-set
 *           throughput for several batch sizes and pipeline depths (plus the real submit.lua).
 * counting  the counting variant (shared/lua/cbloom.lua, 4-bit BITFIELD counters): add, remove
 *           a tenth, check that those test absent and the rest present, throughputs.
 * big       a filter sized with rc_bloom_params_for(1e8, 0.1 %): allocated in Redis by setting
 *           the last bit of each shard, memory compared with the computed size; a 1e6 sample
 *           inserted and 1e6 fresh URLs tested; then the bits filled at random to the density
 *           1e8 insertions leave and the fresh URLs tested again against the 0.1 % target.
 * growth    the crawler's growing filter (common.lua bloom_add, shared/sbloom.h) against the
 *           old fixed one for 1e6 URLs at 1e-6: Redis bytes for a 1-URL job and the whole
 *           stream, false positives against the exact set, throughput, Redis CPU per URL.
 * Options: --urls N --dups D --hosts H --seed S --fp P --groups 1,2,3,4 --batches 1,25,100,1000
 *          --pipeline 1,8 --tp-seconds S --lua-dir DIR --cn N --cremove N
 *          --big-n N --big-fp P --sample N --shard-mib M --local-seeds N
 * Keys live under "rcbench:" and are deleted (SCAN + UNLINK) before and after each part. */
#include "argv.h"
#include "bloom.h"
#include "frontier.h"
#include "redis.h"
#include "sbloom.h"
#include "util.h"

#include <errno.h>
#include <hiredis/hiredis.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef RC_LUA_DIR
#define RC_LUA_DIR "shared/lua"
#endif

#define PREFIX "rcbench:"
#define MIB (1024.0 * 1024.0)
#define MAX_LIST 16

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("bench_bloom: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- options ---- */

typedef struct opts {
    const char *redis;
    const char *lua_dir;
    uint64_t urls, dups, hosts, seed;
    double fp;
    uint32_t groups[MAX_LIST];
    int ngroups;
    uint32_t batches[MAX_LIST];
    int nbatches;
    uint32_t depths[MAX_LIST];
    int ndepths;
    double tp_seconds;
    uint64_t cn, cremove;
    uint64_t big_n, sample;
    double big_fp;
    uint64_t shard_mib;
    uint64_t local_seeds;
} opts;

static uint64_t parse_u64(const char *name, const char *s)
{
    char *end;
    errno = 0;
    double d = strtod(s, &end); /* accepts 1e8 */
    if (errno || *end || !(d >= 0) || d > 1e15 || d != floor(d))
        die("%s: not a whole number: %s", name, s);
    return (uint64_t)d;
}

static int parse_list(const char *name, const char *s, uint32_t *out)
{
    int n = 0;
    const char *p = s;
    while (*p) {
        char num[32];
        size_t len = strcspn(p, ",");
        if (len == 0 || len >= sizeof num || n == MAX_LIST)
            die("%s: bad list %s", name, s);
        memcpy(num, p, len);
        num[len] = '\0';
        uint64_t v = parse_u64(name, num);
        if (v == 0 || v > 100000)
            die("%s: %s out of range", name, num);
        out[n++] = (uint32_t)v;
        p += len;
        if (*p == ',')
            p++;
    }
    if (n == 0)
        die("%s: empty list", name);
    return n;
}

/* ---- deterministic random numbers (splitmix64) ---- */

typedef struct rng {
    uint64_t s;
} rng;

static uint64_t rng_next(rng *r)
{
    uint64_t z = (r->s += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

static uint32_t rng_below(rng *r, uint32_t n)
{
    return (uint32_t)(((rng_next(r) >> 32) * (uint64_t)n) >> 32);
}

static double rng_unit(rng *r)
{
    return (double)(rng_next(r) >> 11) / 9007199254740992.0;
}

/* ---- an arena of NUL-terminated strings and a list of URLs in it ---- */

typedef struct arena {
    char *p;
    size_t len, cap;
} arena;

static uint64_t arena_add(arena *a, const char *s, size_t n)
{
    if (a->len + n + 1 > a->cap) {
        size_t cap = a->cap ? a->cap : 1 << 20;
        while (a->len + n + 1 > cap)
            cap *= 2;
        a->p = rc_xrealloc(a->p, cap);
        a->cap = cap;
    }
    uint64_t off = a->len;
    memcpy(a->p + off, s, n);
    a->p[off + n] = '\0';
    a->len += n + 1;
    return off;
}

typedef struct urllist {
    arena a;
    uint64_t *off;
    uint32_t *len;
    size_t n, cap;
} urllist;

static void list_add(urllist *l, const char *s, size_t n)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 1024;
        l->off = rc_xrealloc(l->off, l->cap * sizeof *l->off);
        l->len = rc_xrealloc(l->len, l->cap * sizeof *l->len);
    }
    l->off[l->n] = arena_add(&l->a, s, n);
    l->len[l->n] = (uint32_t)n;
    l->n++;
}

static const char *list_get(const urllist *l, size_t i)
{
    return l->a.p + l->off[i];
}

static void list_free(urllist *l)
{
    free(l->a.p);
    free(l->off);
    free(l->len);
    memset(l, 0, sizeof *l);
}

/* ---- the exact set: open addressing over (hash, offset+1) into its own copy of the strings ---- */

typedef struct exset {
    uint64_t *hash;
    uint64_t *off; /* offset + 1 into a; 0 = empty */
    size_t cap, n;
    arena a;
} exset;

static void exset_init(exset *s, size_t expect)
{
    memset(s, 0, sizeof *s);
    s->cap = 1024;
    while (s->cap < expect * 2)
        s->cap *= 2;
    s->hash = rc_xcalloc(s->cap, sizeof *s->hash);
    s->off = rc_xcalloc(s->cap, sizeof *s->off);
}

static void exset_free(exset *s)
{
    free(s->hash);
    free(s->off);
    free(s->a.p);
    memset(s, 0, sizeof *s);
}

static size_t exset_memory(const exset *s)
{
    return s->cap * (sizeof *s->hash + sizeof *s->off) + s->a.len;
}

static void exset_grow(exset *s)
{
    size_t cap = s->cap * 2;
    uint64_t *hash = rc_xcalloc(cap, sizeof *hash);
    uint64_t *off = rc_xcalloc(cap, sizeof *off);
    for (size_t i = 0; i < s->cap; i++) {
        if (!s->off[i])
            continue;
        size_t j = s->hash[i] & (cap - 1);
        while (off[j])
            j = (j + 1) & (cap - 1);
        hash[j] = s->hash[i];
        off[j] = s->off[i];
    }
    free(s->hash);
    free(s->off);
    s->hash = hash;
    s->off = off;
    s->cap = cap;
}

/* Adds key; 1 when it was new, 0 when already there. */
static int exset_add(exset *s, const char *key, size_t len)
{
    uint64_t h = rc_bloom_hash64(key, len);
    size_t j = h & (s->cap - 1);
    while (s->off[j]) {
        if (s->hash[j] == h) {
            const char *k = s->a.p + s->off[j] - 1;
            if (strlen(k) == len && memcmp(k, key, len) == 0)
                return 0;
        }
        j = (j + 1) & (s->cap - 1);
    }
    s->hash[j] = h;
    s->off[j] = arena_add(&s->a, key, len) + 1;
    if (++s->n * 2 > s->cap)
        exset_grow(s);
    return 1;
}

/* ---- realistic URLs: hosts of a few kinds (news, shop, forum, blog, wiki, generic) ---- */

static const char *const WORDS[] = {
    "news",     "world",   "market", "city",   "sport",   "travel",  "health", "tech",     "science",  "music",
    "film",     "book",    "garden", "house",  "energy",  "climate", "school", "police",   "budget",   "election",
    "football", "tennis",  "recipe", "pasta",  "coffee",  "bike",    "train",  "airport",  "river",    "mountain",
    "summer",   "winter",  "spring", "autumn", "review",  "guide",   "best",   "cheap",    "new",      "old",
    "red",      "blue",    "green",  "black",  "white",   "small",   "large",  "shoes",    "jacket",   "phone",
    "laptop",   "camera",  "watch",  "table",  "chair",   "lamp",    "sofa",   "kitchen",  "bath",     "tools",
    "parts",    "car",     "engine", "tyre",   "battery", "solar",   "wind",   "water",    "forest",   "ocean",
    "island",   "beach",   "hotel",  "museum", "art",     "history", "war",    "peace",    "king",     "queen",
    "bank",     "money",   "tax",    "law",    "court",   "judge",   "doctor", "nurse",    "hospital", "virus",
    "vaccine",  "study",   "report", "data",   "cloud",   "server",  "linux",  "python",   "rust",     "game",
    "player",   "team",    "coach",  "season", "league",  "cup",     "final",  "match",    "score",    "record",
    "photo",    "video",   "live",   "update", "opinion", "letter",  "column", "weather",  "storm",    "flood",
    "fire",     "farm",    "food",   "wine",   "beer",    "bread",   "cheese", "festival", "concert",  "theatre",
    "dance",    "fashion", "beauty", "family", "baby",    "dog",     "cat",    "horse",
};
#define NWORDS (sizeof WORDS / sizeof WORDS[0])

static const char *const TLDS[] = {"com", "com",  "com", "com", "de", "org", "net",    "co.uk", "fr",
                                   "io",  "info", "nl",  "it",  "es", "pl",  "com.au", "jp",    "ca"};
#define NTLDS (sizeof TLDS / sizeof TLDS[0])

static const char *const SUBS[] = {"www.", "www.", "www.", "www.", "", "", "blog.", "shop.", "news.", "m.", "forum."};
#define NSUBS (sizeof SUBS / sizeof SUBS[0])

enum { K_NEWS, K_SHOP, K_FORUM, K_BLOG, K_WIKI, K_GENERIC, K_COUNT };

typedef struct host {
    char name[64];
    int kind;
    int https;
} host;

typedef struct urlgen {
    rng r;
    host *hosts;
    uint32_t nhosts;
} urlgen;

static const char *word(rng *r)
{
    return WORDS[rng_below(r, NWORDS)];
}

static void gen_init(urlgen *g, uint64_t seed, uint32_t nhosts)
{
    g->r.s = seed;
    g->nhosts = nhosts;
    g->hosts = rc_xcalloc(nhosts, sizeof *g->hosts);
    exset names;
    exset_init(&names, nhosts);
    for (uint32_t i = 0; i < nhosts;) {
        host *h = &g->hosts[i];
        int n;
        if (rng_below(&g->r, 3) == 0)
            n = snprintf(h->name, sizeof h->name, "%s%s%u.%s", SUBS[rng_below(&g->r, NSUBS)], word(&g->r),
                         rng_below(&g->r, 1000), TLDS[rng_below(&g->r, NTLDS)]);
        else
            n = snprintf(h->name, sizeof h->name, "%s%s%s.%s", SUBS[rng_below(&g->r, NSUBS)], word(&g->r), word(&g->r),
                         TLDS[rng_below(&g->r, NTLDS)]);
        if (!exset_add(&names, h->name, (size_t)n))
            continue;
        h->kind = (int)rng_below(&g->r, K_COUNT);
        h->https = rng_below(&g->r, 10) < 8;
        i++;
    }
    exset_free(&names);
}

static void gen_free(urlgen *g)
{
    free(g->hosts);
}

/* 2..6 words joined by '-'. */
static int slug(rng *r, char *buf, size_t cap)
{
    int words = 2 + (int)rng_below(r, 5), n = 0;
    for (int i = 0; i < words && (size_t)n < cap; i++)
        n += snprintf(buf + n, cap - (size_t)n, "%s%s", i ? "-" : "", word(r));
    return n;
}

/* One URL into buf (at most 511 characters); its length. Hosts are Zipf-like: a few big ones. */
static int gen_url(urlgen *g, char *buf, size_t cap)
{
    rng *r = &g->r;
    double u = rng_unit(r);
    const host *h = &g->hosts[(uint32_t)(g->nhosts * u * u * u)];
    char s[160];
    int n = snprintf(buf, cap, "%s://%s", h->https ? "https" : "http", h->name);
    size_t c = cap - (size_t)n;
    char *p = buf + n;
    switch (h->kind) {
    case K_NEWS:
        switch (rng_below(r, 4)) {
        case 0:
        case 1:
            slug(r, s, sizeof s);
            n += snprintf(p, c, "/%s/%04u/%02u/%02u/%s-%u.html", word(r), 2012 + rng_below(r, 13), 1 + rng_below(r, 12),
                          1 + rng_below(r, 28), s, rng_below(r, 10000000));
            break;
        case 2:
            n += snprintf(p, c, "/%s/%s/", word(r), word(r));
            break;
        default:
            n += snprintf(p, c, "/%s?page=%u", word(r), 1 + rng_below(r, 500));
        }
        break;
    case K_SHOP:
        switch (rng_below(r, 4)) {
        case 0:
            slug(r, s, sizeof s);
            n += snprintf(p, c, "/product/%s-%u?color=%s&size=%u", s, rng_below(r, 1000000), word(r),
                          34 + rng_below(r, 14));
            break;
        case 1:
            n += snprintf(p, c, "/category/%s/%s?page=%u&sort=%s", word(r), word(r), 1 + rng_below(r, 200),
                          rng_below(r, 2) ? "price" : "new");
            break;
        case 2:
            n += snprintf(p, c, "/p/%u", rng_below(r, 100000000));
            break;
        default:
            n += snprintf(p, c, "/search?q=%s+%s&page=%u", word(r), word(r), 1 + rng_below(r, 20));
        }
        break;
    case K_FORUM:
        switch (rng_below(r, 3)) {
        case 0:
            n += snprintf(p, c, "/viewtopic.php?t=%u&start=%u", rng_below(r, 5000000), 25 * rng_below(r, 40));
            break;
        case 1:
            slug(r, s, sizeof s);
            n += snprintf(p, c, "/thread/%u/%s", rng_below(r, 5000000), s);
            break;
        default:
            n += snprintf(p, c, "/members/%s%s.%u/", word(r), word(r), rng_below(r, 1000000));
        }
        break;
    case K_BLOG:
        switch (rng_below(r, 3)) {
        case 0:
            slug(r, s, sizeof s);
            n += snprintf(p, c, "/%04u/%02u/%s/", 2005 + rng_below(r, 20), 1 + rng_below(r, 12), s);
            break;
        case 1:
            n += snprintf(p, c, "/tag/%s/page/%u/", word(r), 1 + rng_below(r, 50));
            break;
        default:
            slug(r, s, sizeof s);
            n += snprintf(p, c, "/%s/", s);
        }
        break;
    case K_WIKI:
        if (rng_below(r, 4))
            n += snprintf(p, c, "/wiki/%s_%s_(%s)", word(r), word(r), word(r));
        else
            n += snprintf(p, c, "/w/index.php?title=%s_%s&oldid=%u", word(r), word(r), rng_below(r, 100000000));
        break;
    default:
        switch (rng_below(r, 3)) {
        case 0:
            n += snprintf(p, c, "/%s/%s/%u.php?id=%u&ref=%s", word(r), word(r), rng_below(r, 10000),
                          rng_below(r, 100000), word(r));
            break;
        case 1:
            n += snprintf(p, c, "/index.php?option=com_content&view=article&id=%u&Itemid=%u", rng_below(r, 1000000),
                          rng_below(r, 1000));
            break;
        default:
            n += snprintf(p, c, "/%s/%s.html", word(r), word(r));
        }
    }
    if ((size_t)n >= cap)
        n = (int)cap - 1;
    return n;
}

/* `count` distinct URLs appended to l (distinct from each other and from everything in seen). */
static void gen_distinct(urlgen *g, exset *seen, urllist *l, size_t count)
{
    char buf[512];
    for (size_t i = 0; i < count;) {
        int n = gen_url(g, buf, sizeof buf);
        if (!exset_add(seen, buf, (size_t)n))
            continue; /* an accidental repeat: the duplicates are placed on purpose only */
        list_add(l, buf, (size_t)n);
        i++;
    }
}

/* ---- Redis ---- */

typedef struct bench {
    redisContext *c;
    const opts *o;
    char sha_add[41], sha_check[41], sha_cbloom[41], sha_grow[41];
} bench;

static redisReply *cmd(bench *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    redisReply *rep = redisvCommand(b->c, fmt, ap);
    va_end(ap);
    if (!rep)
        die("redis: %s", b->c->errstr);
    if (rep->type == REDIS_REPLY_ERROR)
        die("redis: %s", rep->str);
    return rep;
}

static int64_t cmd_int(bench *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    redisReply *rep = redisvCommand(b->c, fmt, ap);
    va_end(ap);
    if (!rep)
        die("redis: %s", b->c->errstr);
    if (rep->type != REDIS_REPLY_INTEGER)
        die("redis: expected an integer, got %s", rep->type == REDIS_REPLY_ERROR ? rep->str : "something else");
    int64_t v = rep->integer;
    freeReplyObject(rep);
    return v;
}

/* A field of INFO memory, in bytes. */
static int64_t info_mem(bench *b, const char *field)
{
    redisReply *rep = cmd(b, "INFO memory");
    char pat[64];
    int64_t v = -1;
    snprintf(pat, sizeof pat, "\n%s:", field);
    const char *p = strstr(rep->str, pat);
    if (p)
        v = strtoll(p + strlen(pat), NULL, 10);
    freeReplyObject(rep);
    return v;
}

static void del_prefix(bench *b)
{
    char cursor[32] = "0";
    do {
        redisReply *rep = cmd(b, "SCAN %s MATCH %s* COUNT 1000", cursor, PREFIX);
        snprintf(cursor, sizeof cursor, "%s", rep->element[0]->str);
        redisReply *keys = rep->element[1];
        for (size_t i = 0; i < keys->elements; i++)
            freeReplyObject(cmd(b, "UNLINK %b", keys->element[i]->str, (size_t)keys->element[i]->len));
        freeReplyObject(rep);
    } while (strcmp(cursor, "0") != 0);
}

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        die("%s: %s", path, strerror(errno));
    rc_buf b;
    rc_buf_init(&b);
    char chunk[8192];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        rc_buf_append(&b, chunk, n);
    fclose(f);
    return rc_buf_steal(&b);
}

/* Loads common.lua + body (as embed.py builds the crawler's scripts); the SHA into sha. */
static void load_script(bench *b, const char *common, const char *name, const char *body, char *sha)
{
    char *src = rc_xasprintf("%s\n-- %s\n%s", common, name, body);
    redisReply *rep = cmd(b, "SCRIPT LOAD %s", src);
    snprintf(sha, 41, "%s", rep->str);
    freeReplyObject(rep);
    free(src);
}

/* The batch check-and-set of one fixed-size (multi-group) filter, with the client's (shard, bit)
 * positions: SETBIT returns the old bit. '1' = new. (The crawler's own filter grows: common.lua
 * bloom_add, measured by the `growth` part and the real submit.lua below.) */
static const char LUA_ADD[] = "local function fixed_add(crawlid, i, k)\n"
                              "  local new = false\n"
                              "  for j = 0, k - 1 do\n"
                              "    local key = K('bloom', crawlid, ARGV[i + 2 * j])\n"
                              "    if redis.call('SETBIT', key, ARGV[i + 2 * j + 1], 1) == 0 then new = true end\n"
                              "  end\n"
                              "  return new\n"
                              "end\n"
                              "local crawlid, k, n = ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5])\n"
                              "local out, i = {}, 6\n"
                              "for u = 1, n do\n"
                              "  out[u] = fixed_add(crawlid, i, k) and '1' or '0'\n"
                              "  i = i + 2 * k\n"
                              "end\n"
                              "return table.concat(out)\n";
/* Read only: '1' = all bits set (seen). */
static const char LUA_CHECK[] = "local crawlid, k, n = ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5])\n"
                                "local out, i = {}, 6\n"
                                "for u = 1, n do\n"
                                "  local seen = '1'\n"
                                "  for j = 0, k - 1 do\n"
                                "    local key = K('bloom', crawlid, ARGV[i + 2 * j])\n"
                                "    if redis.call('GETBIT', key, ARGV[i + 2 * j + 1]) == 0 then\n"
                                "      seen = '0'\n"
                                "      break\n"
                                "    end\n"
                                "  end\n"
                                "  out[u] = seen\n"
                                "  i = i + 2 * k\n"
                                "end\n"
                                "return table.concat(out)\n";

/* The crawler's growing filter: common.lua's bloom_add per URL (k hash values each), then
 * bloom_close, as submit.lua and complete.lua call them. '1' = new. */
static const char LUA_GROW[] = "local crawlid, k, n = ARGV[3], tonumber(ARGV[4]), tonumber(ARGV[5])\n"
                               "local out, i = {}, 6\n"
                               "for u = 1, n do\n"
                               "  out[u] = bloom_add(crawlid, i, k) and '1' or '0'\n"
                               "  i = i + k\n"
                               "end\n"
                               "bloom_close()\n"
                               "return table.concat(out)\n";

static void bench_connect(bench *b, const opts *o)
{
    rc_redis_addr addr;
    char err[256];
    if (rc_redis_parse_url(o->redis, &addr, err, sizeof err) < 0)
        die("%s", err);
    b->o = o;
    b->c = addr.path[0] ? redisConnectUnix(addr.path) : redisConnect(addr.host, addr.port);
    if (!b->c || b->c->err)
        die("redis %s: %s", o->redis, b->c ? b->c->errstr : "out of memory");
    char path[1024];
    snprintf(path, sizeof path, "%s/common.lua", o->lua_dir);
    char *common = read_file(path);
    snprintf(path, sizeof path, "%s/cbloom.lua", o->lua_dir);
    char *cbloom = read_file(path);
    load_script(b, common, "bench_add", LUA_ADD, b->sha_add);
    load_script(b, common, "bench_check", LUA_CHECK, b->sha_check);
    load_script(b, common, "cbloom", cbloom, b->sha_cbloom);
    load_script(b, common, "bench_grow", LUA_GROW, b->sha_grow);
    free(common);
    free(cbloom);
    del_prefix(b);
}

/* ---- batched, pipelined script calls ---- */

/* One EVALSHA: sha 0 prefix now crawlid [op] npos n, then per URL npos x (shard, position). */
typedef struct call {
    int argc, cap;
    const char **argv;
    size_t *argvlen;
    char *num;
    size_t numlen, numcap;
} call;

static void call_reserve(call *c, int args)
{
    if (args > c->cap) {
        c->cap = args;
        c->argv = rc_xrealloc(c->argv, (size_t)args * sizeof *c->argv);
        c->argvlen = rc_xrealloc(c->argvlen, (size_t)args * sizeof *c->argvlen);
        free(c->num);
        c->numcap = (size_t)args * 24;
        c->num = rc_xmalloc(c->numcap);
    }
    c->argc = 0;
    c->numlen = 0;
}

static void call_add(call *c, const char *s)
{
    c->argv[c->argc] = s;
    c->argvlen[c->argc++] = strlen(s);
}

static void call_addu(call *c, uint64_t v)
{
    char *p = c->num + c->numlen;
    int n = snprintf(p, c->numcap - c->numlen, "%" PRIu64, v);
    c->argv[c->argc] = p;
    c->argvlen[c->argc++] = (size_t)n;
    c->numlen += (size_t)n + 1;
}

static void call_free(call *c)
{
    free(c->argv);
    free(c->argvlen);
    free(c->num);
}

typedef struct pass {
    const char *sha;
    const char *crawlid;
    const char *op; /* cbloom's op, or NULL */
    const rc_bloom_params *p;
    const urllist *l;
    const uint32_t *ids; /* URLs l[ids[i]], i < n; ids NULL = l[i] */
    size_t n;
    uint32_t batch;
    uint32_t depth;
    double budget; /* seconds; stop starting batches after it (<= 0: no limit) */
    char *out;     /* n reply characters, or NULL */
} pass;

typedef struct pass_res {
    size_t done, ones;
    double secs;
} pass_res;

static pass_res run_pass(bench *b, const pass *ps)
{
    uint32_t npos = rc_bloom_npos(ps->p);
    call *calls = rc_xcalloc(ps->depth, sizeof *calls);
    size_t *starts = rc_xcalloc(ps->depth, sizeof *starts);
    size_t *lens = rc_xcalloc(ps->depth, sizeof *lens);
    uint32_t shard[RC_BLOOM_MAX_K];
    uint64_t bit[RC_BLOOM_MAX_K];
    pass_res res = {0, 0, 0};
    double t0 = now_s();
    size_t next = 0;
    while (next < ps->n && (ps->budget <= 0 || now_s() - t0 < ps->budget)) {
        uint32_t inflight = 0;
        for (; inflight < ps->depth && next < ps->n; inflight++) {
            size_t cnt = ps->n - next < ps->batch ? ps->n - next : ps->batch;
            call *c = &calls[inflight];
            call_reserve(c, 16 + (int)(ps->batch * npos * 2));
            call_add(c, "EVALSHA");
            call_add(c, ps->sha);
            call_add(c, "0");
            call_add(c, PREFIX);
            call_addu(c, rc_now_ms());
            call_add(c, ps->crawlid);
            if (ps->op)
                call_add(c, ps->op);
            call_addu(c, npos);
            call_addu(c, cnt);
            for (size_t i = next; i < next + cnt; i++) {
                size_t id = ps->ids ? ps->ids[i] : i;
                rc_bloom_positions(ps->p, list_get(ps->l, id), ps->l->len[id], shard, bit);
                for (uint32_t j = 0; j < npos; j++) {
                    call_addu(c, shard[j]);
                    call_addu(c, bit[j]);
                }
            }
            if (redisAppendCommandArgv(b->c, c->argc, c->argv, c->argvlen) != REDIS_OK)
                die("redis: %s", b->c->errstr);
            starts[inflight] = next;
            lens[inflight] = cnt;
            next += cnt;
        }
        for (uint32_t q = 0; q < inflight; q++) {
            redisReply *rep;
            if (redisGetReply(b->c, (void **)&rep) != REDIS_OK)
                die("redis: %s", b->c->errstr);
            if (rep->type != REDIS_REPLY_STRING || rep->len != lens[q])
                die("script: %s", rep->type == REDIS_REPLY_ERROR ? rep->str : "unexpected reply");
            for (size_t i = 0; i < lens[q]; i++)
                res.ones += rep->str[i] == '1';
            if (ps->out)
                memcpy(ps->out + starts[q], rep->str, lens[q]);
            res.done += lens[q];
            freeReplyObject(rep);
        }
    }
    res.secs = now_s() - t0;
    for (uint32_t i = 0; i < ps->depth; i++)
        call_free(&calls[i]);
    free(calls);
    free(starts);
    free(lens);
    return res;
}

/* The bitmap keys of a filter: bytes Redis accounts (MEMORY USAGE) summed over the shards. */
static int64_t filter_usage(bench *b, const char *kind, const char *crawlid, uint32_t shards)
{
    int64_t sum = 0;
    for (uint32_t s = 0; s < shards; s++) {
        redisReply *rep = cmd(b, "MEMORY USAGE " PREFIX "%s:%s:%u SAMPLES 0", kind, crawlid, s);
        if (rep->type == REDIS_REPLY_INTEGER)
            sum += rep->integer;
        freeReplyObject(rep);
    }
    return sum;
}

static uint64_t filter_strlen(bench *b, const char *kind, const char *crawlid, uint32_t shards)
{
    uint64_t sum = 0;
    for (uint32_t s = 0; s < shards; s++)
        sum += (uint64_t)cmd_int(b, "STRLEN " PREFIX "%s:%s:%u", kind, crawlid, s);
    return sum;
}

/* Redis' main-thread CPU seconds (user + system). */
static double redis_cpu(bench *b)
{
    redisReply *rep = cmd(b, "INFO cpu");
    double sum = 0;
    const char *fields[] = {"\nused_cpu_sys_main_thread:", "\nused_cpu_user_main_thread:"};
    for (int i = 0; i < 2; i++) {
        const char *p = strstr(rep->str, fields[i]);
        if (p)
            sum += strtod(p + strlen(fields[i]), NULL);
    }
    freeReplyObject(rep);
    return sum;
}

static double median3(const double *v)
{
    double a = v[0], b = v[1], c = v[2];
    if (a > b) {
        double t = a;
        a = b;
        b = t;
    }
    return c < a ? a : c > b ? b : c;
}

/* ---- main: the thesis experiment ---- */

/* k per group for h groups over m bits that minimises the false-positive rate at n. */
static uint32_t best_k(uint64_t m, uint32_t h, uint64_t n)
{
    uint32_t best = 1;
    double bestfp = 2;
    for (uint32_t k = 1; k * h <= RC_BLOOM_MAX_K; k++) {
        rc_bloom_params p;
        if (rc_bloom_params_groups(m, h, k, 0, &p) < 0)
            break;
        double fp = rc_bloom_expected_fp(&p, n);
        if (fp < bestfp) {
            bestfp = fp;
            best = k;
        }
    }
    return best;
}

static const char *human(double bytes, char *buf, size_t cap)
{
    if (bytes >= MIB)
        snprintf(buf, cap, "%.2f MiB", bytes / MIB);
    else
        snprintf(buf, cap, "%.1f KiB", bytes / 1024.0);
    return buf;
}

/* The stream for seed: N URLs, of which D (never the first) repeat a uniformly chosen earlier one; the
 * distinct URLs go to l in order of first appearance, the stream is their indexes. */
static uint32_t *build_stream(const opts *o, uint64_t seed, urllist *l)
{
    size_t N = o->urls, D = o->dups;
    urlgen g;
    gen_init(&g, seed, (uint32_t)o->hosts);
    rng pick = {seed ^ UINT64_C(0x5bd1e995)};
    char *isdup = rc_xcalloc(N, 1);
    uint32_t *perm = rc_xmalloc((N - 1) * sizeof *perm);
    for (size_t i = 0; i < N - 1; i++)
        perm[i] = (uint32_t)(i + 1);
    for (size_t i = 0; i < D; i++) { /* partial Fisher-Yates */
        size_t j = i + rng_below(&pick, (uint32_t)(N - 1 - i));
        uint32_t t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
        isdup[perm[i]] = 1;
    }
    free(perm);
    exset genseen;
    exset_init(&genseen, N - D);
    uint32_t *stream = rc_xmalloc(N * sizeof *stream);
    size_t nd = 0;
    for (size_t i = 0; i < N; i++) {
        if (isdup[i]) {
            stream[i] = rng_below(&pick, (uint32_t)nd);
        } else {
            gen_distinct(&g, &genseen, l, 1);
            stream[i] = (uint32_t)nd++;
        }
    }
    exset_free(&genseen);
    free(isdup);
    gen_free(&g);
    return stream;
}

/* The same check-and-set in process memory, with the same positions: FP and FN counts against truth. */
static void local_pass(const rc_bloom_params *p, const urllist *l, const uint32_t *stream, size_t n, const char *truth,
                       size_t *fp, size_t *fn, double *efp)
{
    uint64_t *bits = rc_xcalloc((size_t)(p->m + 63) / 64, sizeof *bits);
    uint32_t shard[RC_BLOOM_MAX_K];
    uint64_t bit[RC_BLOOM_MAX_K];
    uint32_t npos = rc_bloom_npos(p);
    size_t fill = 0;
    *fp = *fn = 0;
    *efp = 0;
    for (size_t i = 0; i < n; i++) {
        rc_bloom_positions(p, list_get(l, stream[i]), l->len[stream[i]], shard, bit);
        int isnew = 0;
        for (uint32_t j = 0; j < npos; j++) {
            uint64_t pos = (uint64_t)shard[j] * p->shard_bits + bit[j];
            uint64_t mask = UINT64_C(1) << (pos & 63);
            if (!(bits[pos >> 6] & mask)) {
                isnew = 1;
                bits[pos >> 6] |= mask;
            }
        }
        if (truth[i] == '1') {
            *efp += rc_bloom_expected_fp(p, fill++);
            *fp += !isnew;
        } else {
            *fn += isnew;
        }
    }
    free(bits);
}

static void exact_truth(const urllist *l, const uint32_t *stream, size_t n, char *truth, exset *ex)
{
    for (size_t i = 0; i < n; i++)
        truth[i] = (char)('0' + exset_add(ex, list_get(l, stream[i]), l->len[stream[i]]));
}

static void part_main(bench *b)
{
    const opts *o = b->o;
    size_t N = o->urls, D = o->dups;
    if (D >= N)
        die("--dups must be below --urls");
    size_t U = N - D;
    printf("== dedup: %zu URLs = %zu distinct + %zu duplicates, %" PRIu64 " hosts, seed %" PRIu64 "\n", N, U, D,
           o->hosts, o->seed);

    double t0 = now_s();
    urllist l = {0};
    uint32_t *stream = build_stream(o, o->seed, &l);
    double urlbytes = 0;
    for (size_t i = 0; i < N; i++)
        urlbytes += l.len[stream[i]];
    printf("generated in %.2f s; mean URL length %.1f bytes; e.g.\n", now_s() - t0, urlbytes / (double)N);
    for (size_t i = 0; i < 4; i++)
        printf("  %s\n", list_get(&l, stream[i * 997]));

    /* The truth: the exact set over the stream. */
    char *truth = rc_xmalloc(N);
    exset ex;
    exset_init(&ex, 1024);
    t0 = now_s();
    size_t exnew = 0;
    exact_truth(&l, stream, N, truth, &ex);
    for (size_t i = 0; i < N; i++)
        exnew += truth[i] == '1';
    double exsecs = now_s() - t0;
    char h1[32], h2[32], h3[32];
    printf("exact set (C hash set, the truth): %zu new, %zu duplicates, 0 errors by definition; %.2f M URLs/s;\n"
           "  memory %s = table %s + strings %s (%.1f bytes/URL)\n",
           exnew, N - exnew, (double)N / exsecs / 1e6, human((double)exset_memory(&ex), h1, sizeof h1),
           human((double)(ex.cap * 16), h2, sizeof h2), human((double)ex.a.len, h3, sizeof h3),
           (double)exset_memory(&ex) / (double)exnew);

    /* Equal memory for every h: sized for N URLs at --fp with one group. */
    rc_bloom_params base;
    if (rc_bloom_params_for(N, o->fp, 0, &base) < 0)
        die("bad --fp");
    printf("bloom memory: m = %" PRIu64 " bits = %s, sized by rc_bloom_params_for(%zu, %g) (k = %u with h = 1);\n"
           "  the same m for every h, k per group chosen to minimise the expected FP rate at %zu URLs\n"
           "  (a partitioned filter with h groups of k is a filter of h*k hashes: optimum h*k ~ m/n ln 2 = %.1f)\n",
           base.m, human((double)base.m / 8, h1, sizeof h1), N, o->fp, base.k, N,
           (double)base.m / (double)N * 0.6931471805599453);

    uint32_t maxdepth = 1;
    for (int i = 0; i < o->ndepths; i++)
        if (o->depths[i] > maxdepth)
            maxdepth = o->depths[i];
    char *out = rc_xmalloc(N);
    rc_bloom_params ps[MAX_LIST];
    printf("\n%2s %5s %5s %11s | %10s %10s %8s | %7s %9s %4s | %10s %10s %6s | %9s %6s\n", "h", "k/grp", "h*k",
           "bits/group", "E[FP rate]", "E[FP]", "+-sd", "FP", "FP rate", "FN", "m/8 bytes", "Redis", "ratio", "URLs/s",
           "us/URL");
    for (int gi = 0; gi < o->ngroups; gi++) {
        uint32_t h = o->groups[gi];
        uint32_t k = best_k(base.m, h, N);
        rc_bloom_params *p = &ps[gi];
        if (rc_bloom_params_groups(base.m, h, k, 0, p) < 0)
            die("h = %u does not fit (h*k <= %d)", h, RC_BLOOM_MAX_K);
        char crawlid[32];
        snprintf(crawlid, sizeof crawlid, "fp-h%u", h);
        pass run = {b->sha_add, crawlid, NULL, p, &l, stream, N, 1000, maxdepth, 0, out};
        double c0 = redis_cpu(b);
        pass_res r = run_pass(b, &run);
        double cpu = redis_cpu(b) - c0;
        size_t fp = 0, fn = 0;
        double efp = 0;
        size_t fill = 0;
        for (size_t i = 0; i < N; i++) {
            if (truth[i] == '1') {
                efp += rc_bloom_expected_fp(p, fill++);
                fp += out[i] == '0';
            } else {
                fn += out[i] == '1';
            }
        }
        int64_t usage = filter_usage(b, "bloom", crawlid, p->shards);
        printf("%2u %5u %5u %11" PRIu64 " | %10.3e %10.1f %8.1f | %7zu %8.4f%% %4zu | %10" PRIu64 " %10" PRId64
               " %6.3f | %9.0f %6.2f\n",
               h, k, h * k, p->m / h, rc_bloom_expected_fp(p, exnew), efp, sqrt(efp), fp,
               100.0 * (double)fp / (double)exnew, fn, (p->m + 7) / 8, usage, (double)usage / (double)((p->m + 7) / 8),
               (double)r.done / r.secs, cpu * 1e6 / (double)r.done);
    }
    printf("E[FP rate] = rate at the end (%zu URLs in); E[FP] = expected count over the run (sum of the rate at each\n"
           "new URL); FP = new URLs the filter called seen; FN = repeats it called new (must be 0); Redis = MEMORY\n"
           "USAGE of the bitmap keys (STRLEN %" PRIu64 "); URLs/s = the whole pass, batch 1000, pipeline depth %u;\n"
           "us/URL = Redis CPU time per URL (main thread).\n",
           exnew, filter_strlen(b, "bloom", "fp-h1", ps[0].shards), maxdepth);
    free(out);
    del_prefix(b);

    /* Throughput: fresh filters; each cell is the median of 3 runs of --tp-seconds / 3. The machine may be
     * shared, so Redis' own CPU time per URL (INFO cpu, main thread) is shown too: it does not count the
     * time Redis waited for a CPU. */
    printf("\ncheck-and-set throughput, URLs/s (one EVALSHA per batch of URLs, `depth` EVALSHAs in flight;\n"
           "median of 3 runs of %.2f s or %zu URLs, each on a fresh filter)\n",
           o->tp_seconds / 3, N);
    int ncells = o->ngroups * o->ndepths * o->nbatches;
    double *cpu_us = rc_xcalloc((size_t)ncells, sizeof *cpu_us);
    printf("%2s %6s", "h", "depth");
    for (int bi = 0; bi < o->nbatches; bi++) {
        char col[32];
        snprintf(col, sizeof col, "batch %u", o->batches[bi]);
        printf(" %12s", col);
    }
    printf("\n");
    int cell = 0;
    for (int gi = 0; gi < o->ngroups; gi++) {
        for (int di = 0; di < o->ndepths; di++) {
            printf("%2u %6u", o->groups[gi], o->depths[di]);
            for (int bi = 0; bi < o->nbatches; bi++, cell++) {
                char crawlid[48];
                snprintf(crawlid, sizeof crawlid, "tp-h%u-d%u-b%u", o->groups[gi], o->depths[di], o->batches[bi]);
                pass run = {b->sha_add, crawlid,        NULL,          &ps[gi],           &l,  stream,
                            N,          o->batches[bi], o->depths[di], o->tp_seconds / 3, NULL};
                double rate[3], cpu = 0;
                size_t urls = 0;
                for (int rep = 0; rep < 3; rep++) {
                    double c0 = redis_cpu(b);
                    pass_res r = run_pass(b, &run);
                    cpu += redis_cpu(b) - c0;
                    urls += r.done;
                    rate[rep] = (double)r.done / r.secs;
                    del_prefix(b);
                }
                cpu_us[cell] = cpu * 1e6 / (double)urls;
                printf(" %12.0f", median3(rate));
            }
            printf("\n");
        }
    }
    printf("Redis CPU per URL, microseconds (main thread, INFO cpu; 1e6 / this = URLs/s with a core to itself)\n");
    printf("%2s %6s", "h", "depth");
    for (int bi = 0; bi < o->nbatches; bi++) {
        char col[32];
        snprintf(col, sizeof col, "batch %u", o->batches[bi]);
        printf(" %12s", col);
    }
    printf("\n");
    cell = 0;
    for (int gi = 0; gi < o->ngroups; gi++) {
        for (int di = 0; di < o->ndepths; di++) {
            printf("%2u %6u", o->groups[gi], o->depths[di]);
            for (int bi = 0; bi < o->nbatches; bi++, cell++)
                printf(" %12.2f", cpu_us[cell]);
            printf("\n");
        }
    }
    free(cpu_us);

    /* The real path: submit.lua (the growing filter's bloom_add + frontier ZADD + job counters), h = 1,
     * filter 0 sized for the whole stream (expected_urls = N) so that it compares with the table above. */
    char err[256];
    rc_redis *rr = rc_redis_new(o->redis, PREFIX, err, sizeof err);
    if (!rr)
        die("%s", err);
    char bloom[96];
    rc_sbloom_params sp;
    if (rc_sbloom_params_for(N, o->fp, 1, &sp) < 0)
        die("cannot size a growing filter for %zu URLs at %g", N, o->fp);
    rc_sbloom_params_encode(&sp, bloom, sizeof bloom);
    uint32_t rb = 100;
    size_t done = 0, added = 0;
    rc_argv a;
    rc_argv_init(&a);
    double c0 = redis_cpu(b);
    t0 = now_s();
    while (done < N && now_s() - t0 < o->tp_seconds) {
        size_t cnt = N - done < rb ? N - done : rb;
        rc_argv_reset(&a);
        rc_argv_set(&a, RC_SUBMIT_CRAWLID, "real");
        rc_argv_set(&a, RC_SUBMIT_SPEC, "{\"spiderid\":\"link\"}");
        rc_argv_set(&a, RC_SUBMIT_MAX_PAGES, "0");
        rc_argv_set(&a, RC_SUBMIT_BLOOM, bloom);
        rc_argv_setu(&a, RC_SUBMIT_K, RC_FRONTIER_BLOOM_K);
        rc_argv_setu(&a, RC_SUBMIT_N, cnt);
        for (size_t i = done; i < done + cnt; i++) {
            char *rec = rc_xasprintf("{\"url\":\"%s\",\"crawlid\":\"real\",\"priority\":0,\"depth\":0}",
                                     list_get(&l, stream[i]));
            rc_argv_add(&a, rec);
            free(rec);
            rc_frontier_bloom_args(&a, &sp, list_get(&l, stream[i]), l.len[stream[i]]);
        }
        redisReply *rep = rc_redis_eval(rr, RC_LUA_SUBMIT, rc_now_ms(), &a);
        if (!rep || rep->type != REDIS_REPLY_ARRAY || rep->elements < 1)
            die("submit.lua: %s", rep && rep->type == REDIS_REPLY_ERROR ? rep->str : "unexpected reply");
        added += (size_t)rep->element[0]->integer;
        freeReplyObject(rep);
        done += cnt;
    }
    double rsecs = now_s() - t0;
    double rcpu = redis_cpu(b) - c0;
    size_t want = 0;
    for (size_t i = 0; i < done; i++)
        want += truth[i] == '1';
    printf("the real submit.lua (bloom_add + frontier ZADD per new URL), h = 1, batch %u, depth 1: %.0f URLs/s,\n"
           "  Redis CPU %.2f us/URL (%zu added, exact %zu)\n",
           rb, (double)done / rsecs, rcpu * 1e6 / (double)done, added, want);
    rc_argv_release(&a);
    rc_redis_free(rr);
    del_prefix(b);

    printf("\nbloom %s per filter vs exact set %s: %.1fx smaller\n", human((double)base.m / 8, h1, sizeof h1),
           human((double)exset_memory(&ex), h2, sizeof h2), (double)exset_memory(&ex) / ((double)base.m / 8));
    exset_free(&ex);

    /* More seeds, in process memory (same positions as in Redis: the first seed repeats the table above),
     * with control rows: one group of h*k hashes for each h*k above, to tell groups from hash count. */
    if (o->local_seeds > 0) {
        rc_bloom_params lps[2 * MAX_LIST];
        int nl = 0;
        for (int gi = 0; gi < o->ngroups; gi++)
            lps[nl++] = ps[gi];
        for (int gi = 0; gi < o->ngroups; gi++) {
            uint32_t kt = ps[gi].groups * ps[gi].k;
            int have = 0;
            for (int j = 0; j < nl; j++)
                have |= lps[j].groups == 1 && lps[j].k == kt;
            if (!have && rc_bloom_params_groups(base.m, 1, kt, 0, &lps[nl]) == 0)
                nl++;
        }
        printf("\nthe same in process memory (a C bitmap, the same positions) over %" PRIu64 " seeds (%" PRIu64
               "..%" PRIu64 "), for tighter figures;\nrows marked * are controls: one group with the same h*k\n",
               o->local_seeds, o->seed, o->seed + o->local_seeds - 1);
        size_t sfp[2 * MAX_LIST] = {0}, sfn[2 * MAX_LIST] = {0}, snew = 0;
        double sefp[2 * MAX_LIST] = {0};
        size_t first_fp[2 * MAX_LIST] = {0};
        for (uint64_t si = 0; si < o->local_seeds; si++) {
            urllist ls = {0};
            uint32_t *st = si == 0 ? stream : build_stream(o, o->seed + si, &ls);
            const urllist *lp = si == 0 ? &l : &ls;
            if (si > 0) {
                exset e2;
                exset_init(&e2, N);
                exact_truth(lp, st, N, truth, &e2);
                exset_free(&e2);
            }
            for (size_t i = 0; i < N; i++)
                snew += truth[i] == '1';
            for (int j = 0; j < nl; j++) {
                size_t fp, fn;
                double efp;
                local_pass(&lps[j], lp, st, N, truth, &fp, &fn, &efp);
                sfp[j] += fp;
                sfn[j] += fn;
                sefp[j] += efp;
                if (si == 0)
                    first_fp[j] = fp;
            }
            if (si > 0) {
                free(st);
                list_free(&ls);
            }
        }
        printf("%3s %5s %5s | %10s | %10s %8s | %8s %9s %7s %4s\n", "h", "k/grp", "h*k", "seed 1 FP", "E[FP]", "+-sd",
               "FP", "FP rate", "FP/E", "FN");
        for (int j = 0; j < nl; j++)
            printf("%2u%c %5u %5u | %10zu | %10.1f %8.1f | %8zu %8.5f%% %7.3f %4zu\n", lps[j].groups,
                   j < o->ngroups ? ' ' : '*', lps[j].k, lps[j].groups * lps[j].k, first_fp[j], sefp[j], sqrt(sefp[j]),
                   sfp[j], 100.0 * (double)sfp[j] / (double)snew, (double)sfp[j] / sefp[j], sfn[j]);
        printf("seed 1 FP = the first seed alone (the same stream and positions as in Redis: equal to the FP there);\n"
               "the other columns sum all seeds (%zu new URLs).\n",
               snew);
    }
    free(truth);
    free(stream);
    list_free(&l);
}

/* ---- counting: cbloom.lua ---- */

static void part_counting(bench *b)
{
    const opts *o = b->o;
    size_t n = o->cn, nrem = o->cremove;
    if (nrem > n)
        die("--cremove above --cn");
    urlgen g;
    gen_init(&g, o->seed + 1, (uint32_t)o->hosts);
    exset seen;
    exset_init(&seen, 2 * n);
    urllist l = {0};
    gen_distinct(&g, &seen, &l, 2 * n); /* [0, n) inserted, [n, 2n) fresh */
    exset_free(&seen);
    rc_bloom_params p;
    /* positions are counters: at most 2^30 4-bit counters (512 MiB) per key */
    if (rc_bloom_params_for(n, o->fp, UINT64_C(1) << 30, &p) < 0)
        die("bad --fp");
    printf("\n== counting bloom (shared/lua/cbloom.lua, BITFIELD u4 counters): %zu URLs, remove %zu\n", n, nrem);
    char h1[32];
    printf("counters = %" PRIu64 " x 4 bits = %s, k = %u (sized for %zu at %g; the plain filter would be %s)\n", p.m,
           human((double)p.m / 2, h1, sizeof h1), p.k, n, o->fp, human((double)p.m / 8, (char[32]){0}, 32));

    uint32_t *ids = rc_xmalloc(2 * n * sizeof *ids);
    char *out = rc_xmalloc(2 * n);
    const char *cid = "cb";
    uint32_t batch = 100, depth = 1;
    printf("%-46s %10s %12s\n", "step (batch 100, depth 1)", "result", "URLs/s");

    pass run = {b->sha_cbloom, cid, "add", &p, &l, NULL, n, batch, depth, 0, out};
    pass_res r = run_pass(b, &run);
    printf("%-46s %10zu %12.0f\n", "add N URLs: new (want N - false positives)", r.ones, (double)r.done / r.secs);
    /* Only a URL that add admitted ('1') was counted, so only those may be removed: a crawler removes a
     * navigation page it fetched, and it fetched it because add said new. */
    char *admitted = rc_xmalloc(n);
    memcpy(admitted, out, n);
    size_t nadm = r.ones;

    run.out = NULL;
    r = run_pass(b, &run);
    printf("%-46s %10zu %12.0f\n", "add them again: new (want 0)", r.ones, (double)r.done / r.secs);

    /* remove R admitted URLs spread over the list */
    char *removed = rc_xcalloc(n, 1);
    size_t nr = 0, step = nrem ? n / nrem : n + 1;
    for (size_t pass_i = 0; pass_i < 2 && nr < nrem; pass_i++)
        for (size_t i = 0; i < n && nr < nrem; i++)
            if (admitted[i] == '1' && !removed[i] && (pass_i == 1 || i % step == 0)) {
                removed[i] = 1;
                ids[nr++] = (uint32_t)i;
            }
    pass rem = {b->sha_cbloom, cid, "remove", &p, &l, ids, nr, batch, depth, 0, NULL};
    r = run_pass(b, &rem);
    printf("%-46s %10zu %12.0f\n", "remove R admitted ones: removed (want R)", r.ones, (double)r.done / r.secs);
    size_t removed_ok = r.ones;

    pass chk = {b->sha_cbloom, cid, "check", &p, &l, ids, nr, batch, depth, 0, NULL};
    r = run_pass(b, &chk);
    printf("%-46s %10zu %12.0f\n", "check the removed: present (want ~FP x R)", r.ones, (double)r.done / r.secs);
    size_t removed_present = r.ones;

    size_t nk = 0;
    for (size_t i = 0; i < n; i++)
        if (admitted[i] == '1' && !removed[i])
            ids[nk++] = (uint32_t)i;
    chk.n = nk;
    r = run_pass(b, &chk);
    printf("%-46s %10zu %12.0f\n", "check the kept: present (want all)", r.ones, (double)r.done / r.secs);
    size_t kept_present = r.ones;

    size_t nfp = 0;
    for (size_t i = 0; i < n; i++)
        if (admitted[i] != '1')
            ids[nfp++] = (uint32_t)i;
    if (nfp) {
        chk.n = nfp;
        r = run_pass(b, &chk);
        printf("%-46s %10zu %12.0f\n", "check the never admitted (FP at add): present", r.ones,
               (double)r.done / r.secs);
    }

    for (size_t i = 0; i < n; i++)
        ids[i] = (uint32_t)(n + i);
    chk.n = n;
    r = run_pass(b, &chk);
    printf("%-46s %10zu %12.0f  (rate %.4f%%, expected %.4f%%)\n", "check N fresh URLs: present (FP)", r.ones,
           (double)r.done / r.secs, 100.0 * (double)r.ones / (double)n, 100.0 * rc_bloom_expected_fp(&p, nadm - nr));

    nr = 0;
    for (size_t i = 0; i < n; i++)
        if (removed[i])
            ids[nr++] = (uint32_t)i;
    run.ids = ids;
    run.n = nr;
    r = run_pass(b, &run);
    printf("%-46s %10zu %12.0f\n", "add the removed again: new (want ~R)", r.ones, (double)r.done / r.secs);
    int works = removed_ok == nr && kept_present == nk && removed_present * 100 <= nr;
    free(admitted);
    free(removed);

    /* counter histogram */
    uint64_t hist[16] = {0};
    for (uint32_t s = 0; s < p.shards; s++) {
        redisReply *rep = cmd(b, "GET " PREFIX "cbloom:%s:%u", cid, s);
        if (rep->type == REDIS_REPLY_STRING)
            for (size_t i = 0; i < rep->len; i++) {
                unsigned char c = (unsigned char)rep->str[i];
                hist[c >> 4]++;
                hist[c & 15]++;
            }
        freeReplyObject(rep);
    }
    printf("counter values:");
    for (int v = 0; v < 16; v++)
        if (hist[v])
            printf(" %d:%" PRIu64, v, hist[v]);
    printf("  (15 = saturated)\n");
    printf("Redis MEMORY USAGE %" PRId64 " bytes for %" PRIu64 " bytes of counters\n",
           filter_usage(b, "cbloom", cid, p.shards), (p.m + 1) / 2);
    printf("removal %s: all %zu removed, %zu of them still test present, all %zu kept present: %s\n",
           works ? "works" : "BROKEN", nr, removed_present, nk, kept_present == nk ? "yes" : "NO");
    del_prefix(b);
    free(ids);
    free(out);
    list_free(&l);
    gen_free(&g);
}

/* ---- big: 1e8 URL-equivalents ---- */

static void part_big(bench *b)
{
    const opts *o = b->o;
    rc_bloom_params p;
    uint64_t maxbits = o->shard_mib ? o->shard_mib * 8 * 1024 * 1024 : 0;
    if (rc_bloom_params_for(o->big_n, o->big_fp, maxbits, &p) < 0)
        die("bad --big-n / --big-fp");
    char h1[32], h2[32];
    printf("\n== %" PRIu64 " URL-equivalents at %g: rc_bloom_params_for -> m = %" PRIu64
           " bits = %s (%.1f MB), k = %u,\n"
           "   %u shard(s) of %" PRIu64 " bits = %s (shards limited to %s; Redis' limit is 512 MiB)\n",
           o->big_n, o->big_fp, p.m, human((double)p.m / 8, h1, sizeof h1), (double)p.m / 8e6, p.k, p.shards,
           p.shard_bits, human((double)p.shard_bits / 8, h2, sizeof h2),
           o->shard_mib ? human((double)maxbits / 8, (char[32]){0}, 32) : "512 MiB");
    const char *cid = "big";
    freeReplyObject(cmd(b, "MEMORY PURGE"));
    struct timespec pause = {0, 300 * 1000 * 1000}; /* INFO's rss is sampled by serverCron */
    nanosleep(&pause, NULL);
    int64_t used0 = info_mem(b, "used_memory"), rss0 = info_mem(b, "used_memory_rss");

    double t0 = now_s();
    for (uint32_t s = 0; s < p.shards; s++) {
        uint64_t bits = s + 1 < p.shards ? p.shard_bits : p.m - (uint64_t)s * p.shard_bits;
        freeReplyObject(cmd(b, "SETBIT " PREFIX "bloom:%s:%u %" PRIu64 " 0", cid, s, bits - 1));
    }
    double alloc_s = now_s() - t0;
    nanosleep(&pause, NULL);
    int64_t used1 = info_mem(b, "used_memory"), rss1 = info_mem(b, "used_memory_rss");
    int64_t usage = filter_usage(b, "bloom", cid, p.shards);
    uint64_t slen = filter_strlen(b, "bloom", cid, p.shards);
    double want = (double)p.m / 8;
    printf("allocated by SETBIT of the last bit of each shard in %.2f s\n", alloc_s);
    printf("%-46s %14s %8s\n", "", "bytes", "/ m/8");
    printf("%-46s %14.0f %8.4f\n", "computed m/8", want, 1.0);
    printf("%-46s %14" PRIu64 " %8.4f\n", "STRLEN, summed", slen, (double)slen / want);
    printf("%-46s %14" PRId64 " %8.4f\n", "MEMORY USAGE, summed", usage, (double)usage / want);
    printf("%-46s %14" PRId64 " %8.4f\n", "INFO used_memory, increase", used1 - used0, (double)(used1 - used0) / want);
    printf("%-46s %14" PRId64 " %8.4f  (pages not yet written)\n", "INFO used_memory_rss, increase", rss1 - rss0,
           (double)(rss1 - rss0) / want);

    /* 2 * sample distinct URLs: [0, S) inserted, [S, 2S) fresh. */
    size_t S = o->sample;
    urlgen g;
    gen_init(&g, o->seed + 2, (uint32_t)o->hosts);
    exset seen;
    exset_init(&seen, 2 * S);
    urllist l = {0};
    gen_distinct(&g, &seen, &l, 2 * S);
    exset_free(&seen);
    uint32_t *fresh = rc_xmalloc(S * sizeof *fresh);
    for (size_t i = 0; i < S; i++)
        fresh[i] = (uint32_t)(S + i);
    uint32_t depth = 8;

    pass ins = {b->sha_add, cid, NULL, &p, &l, NULL, S, 1000, depth, 0, NULL};
    pass_res r = run_pass(b, &ins);
    printf("\ninsert %zu sample URLs (check-and-set, batch 1000, depth %u): %zu new (want %zu), %.0f URLs/s\n", S,
           depth, r.ones, S, (double)r.done / r.secs);
    pass chk = {b->sha_check, cid, NULL, &p, &l, fresh, S, 1000, depth, 0, NULL};
    r = run_pass(b, &chk);
    printf("test %zu fresh URLs (read only): %zu false positives = %.2e, theory at %zu in: %.2e; %.0f URLs/s\n", S,
           r.ones, (double)r.ones / (double)S, S, rc_bloom_expected_fp(&p, S), (double)r.done / r.secs);
    pass back = {b->sha_check, cid, NULL, &p, &l, NULL, S, 1000, depth, 0, NULL};
    r = run_pass(b, &back);
    printf("test the %zu sample URLs: %zu present (want all)\n", S, r.ones);

    /* The density 1e8 insertions leave: each bit set with probability 1 - exp(-k n / m). */
    double dens = 1.0 - exp(-(double)p.k * (double)o->big_n / (double)p.m);
    uint64_t thr = (uint64_t)llround(dens * 65536.0);
    rng fr = {o->seed ^ UINT64_C(0xa0761d6478bd642f)};
    size_t chunk = 4u << 20;
    unsigned char *buf = rc_xmalloc(chunk);
    t0 = now_s();
    for (uint32_t s = 0; s < p.shards; s++) {
        uint64_t bits = s + 1 < p.shards ? p.shard_bits : p.m - (uint64_t)s * p.shard_bits;
        uint64_t bytes = (bits + 7) / 8;
        for (uint64_t off = 0; off < bytes; off += chunk) {
            size_t len = bytes - off < chunk ? (size_t)(bytes - off) : chunk;
            for (size_t i = 0; i < len; i += 2) {
                unsigned v0 = 0, v1 = 0;
                uint64_t x = rng_next(&fr), y = rng_next(&fr);
                for (int j = 0; j < 4; j++) {
                    v0 = v0 << 1 | ((x >> (16 * j) & 0xffff) < thr);
                    v0 = v0 << 1 | ((y >> (16 * j) & 0xffff) < thr);
                }
                x = rng_next(&fr);
                y = rng_next(&fr);
                for (int j = 0; j < 4; j++) {
                    v1 = v1 << 1 | ((x >> (16 * j) & 0xffff) < thr);
                    v1 = v1 << 1 | ((y >> (16 * j) & 0xffff) < thr);
                }
                buf[i] = (unsigned char)v0;
                if (i + 1 < len)
                    buf[i + 1] = (unsigned char)v1;
            }
            freeReplyObject(cmd(b, "SETRANGE " PREFIX "bloom:%s:%u %" PRIu64 " %b", cid, s, off, buf, len));
        }
    }
    free(buf);
    double fill_s = now_s() - t0;
    uint64_t ones = 0;
    for (uint32_t s = 0; s < p.shards; s++)
        ones += (uint64_t)cmd_int(b, "BITCOUNT " PREFIX "bloom:%s:%u", cid, s);
    double got = (double)ones / (double)p.m;
    printf("\nfilled to the density of %" PRIu64 " insertions (1 - e^(-kn/m) = %.4f) with random bytes in %.1f s:"
           " BITCOUNT %.4f\n",
           o->big_n, dens, fill_s, got);
    r = run_pass(b, &chk);
    double theory = rc_bloom_expected_fp(&p, o->big_n);
    double sd = sqrt(theory * (double)S);
    printf("test %zu fresh URLs: %zu false positives = %.4f%%; theory at %" PRIu64
           " in: %.4f%% (expected %.0f +- %.0f),\n"
           "  at the measured density (density^k): %.4f%%; %.0f URLs/s\n",
           S, r.ones, 100.0 * (double)r.ones / (double)S, o->big_n, 100 * theory, theory * (double)S, sd,
           100 * pow(got, p.k), (double)r.done / r.secs);
    ins.out = NULL;
    r = run_pass(b, &ins);
    printf("check-and-set of the sample on the full filter: %.0f URLs/s\n", (double)r.done / r.secs);
    nanosleep(&pause, NULL);
    nanosleep(&pause, NULL);
    int64_t used2 = info_mem(b, "used_memory"), rss2 = info_mem(b, "used_memory_rss");
    int64_t usage2 = filter_usage(b, "bloom", cid, p.shards);
    printf("after filling: MEMORY USAGE %" PRId64 " (%.4f of m/8), used_memory +%" PRId64
           " (%.4f), used_memory_rss +%" PRId64 " (%.4f)\n",
           usage2, (double)usage2 / want, used2 - used0, (double)(used2 - used0) / want, rss2 - rss0,
           (double)(rss2 - rss0) / want);

    /* The allocator's rounding: what m would fill the same allocations. */
    uint64_t fit_bits = 0;
    for (uint32_t s = 0; s < p.shards; s++) {
        int64_t u = filter_usage(b, "bloom", cid, 1 + s) - filter_usage(b, "bloom", cid, s);
        uint64_t bits = s + 1 < p.shards ? p.shard_bits : p.m - (uint64_t)s * p.shard_bits;
        uint64_t bytes = (bits + 7) / 8;
        /* usage = object overhead + sds header + size class(bytes + 1 MiB greedy growth + 1) */
        uint64_t slack = (uint64_t)u > bytes + (1u << 20) + 64 ? (uint64_t)u - bytes - (1u << 20) - 64 : 0;
        fit_bits += (bytes + slack) * 8;
    }
    rc_bloom_params fit;
    rc_bloom_params_groups(fit_bits, 1, p.k, maxbits, &fit);
    printf("the allocator rounds each key up to a jemalloc size class (after the 1 MiB sds growth margin): a filter\n"
           "using that memory would have m = %" PRIu64 " bits (%.3fx), FP at %" PRIu64 " = %.4f%% instead of %.4f%%\n",
           fit.m, (double)fit.m / (double)p.m, o->big_n, 100 * rc_bloom_expected_fp(&fit, o->big_n), 100 * theory);
    del_prefix(b);
    free(fresh);
    list_free(&l);
    gen_free(&g);
}

/* ---- growth: a job's filter, fixed (the old default) against growing ---- */

typedef struct grow_res {
    size_t added, fp, fn;
    double secs, cpu;
    int64_t bytes;
    uint32_t filters;
    uint64_t last; /* URLs in the newest filter */
} grow_res;

/* The stream[0..n) through one filter of job cid, batches of 1,000, one EVALSHA at a time. With
 * fixed set: the old fixed filter (SETBIT of the client's positions); else the growing one. */
static grow_res grow_run(bench *b, const char *cid, const rc_bloom_params *fixed, const rc_sbloom_params *sp,
                         const urllist *l, const uint32_t *stream, size_t n, const char *truth)
{
    grow_res r;
    memset(&r, 0, sizeof r);
    char params[96];
    if (!fixed) {
        rc_sbloom_params_encode(sp, params, sizeof params);
        freeReplyObject(cmd(b, "HSET " PREFIX "job:%s bloom %s", cid, params));
    }
    uint32_t per = fixed ? 2 * rc_bloom_npos(fixed) : RC_FRONTIER_BLOOM_K;
    rc_argv a;
    rc_argv_init(&a);
    double c0 = redis_cpu(b), t0 = now_s();
    for (size_t done = 0; done < n;) {
        size_t cnt = n - done < 1000 ? n - done : 1000;
        rc_argv_reset(&a);
        rc_argv_add(&a, "EVALSHA");
        rc_argv_add(&a, fixed ? b->sha_add : b->sha_grow);
        rc_argv_add(&a, "0");
        rc_argv_add(&a, PREFIX);
        rc_argv_addu(&a, 0);
        rc_argv_add(&a, cid);
        rc_argv_addu(&a, fixed ? rc_bloom_npos(fixed) : per);
        rc_argv_addu(&a, cnt);
        for (size_t i = done; i < done + cnt; i++) {
            const char *u = list_get(l, stream[i]);
            if (fixed) {
                uint32_t shard[RC_BLOOM_MAX_K];
                uint64_t bit[RC_BLOOM_MAX_K];
                rc_bloom_positions(fixed, u, l->len[stream[i]], shard, bit);
                for (uint32_t j = 0; j < rc_bloom_npos(fixed); j++) {
                    rc_argv_addu(&a, shard[j]);
                    rc_argv_addu(&a, bit[j]);
                }
            } else {
                rc_frontier_bloom_args(&a, sp, u, l->len[stream[i]]);
            }
        }
        redisReply *rep = redisCommandArgv(b->c, a.n, (const char **)a.v, a.len);
        if (!rep || rep->type != REDIS_REPLY_STRING || rep->len != cnt)
            die("growth: %s", rep && rep->type == REDIS_REPLY_ERROR ? rep->str : "unexpected reply");
        for (size_t i = 0; i < cnt; i++) {
            int isnew = rep->str[i] == '1';
            r.added += (size_t)isnew;
            if (truth[done + i] == '1')
                r.fp += (size_t)!isnew;
            else
                r.fn += (size_t)isnew;
        }
        freeReplyObject(rep);
        done += cnt;
    }
    r.secs = now_s() - t0;
    r.cpu = redis_cpu(b) - c0;
    rc_argv_release(&a);
    if (fixed) {
        r.filters = fixed->shards;
    } else {
        redisReply *rep = cmd(b, "HGET " PREFIX "job:%s bloom_filters", cid);
        r.filters = rep->type == REDIS_REPLY_STRING ? (uint32_t)strtoul(rep->str, NULL, 10) : 1;
        freeReplyObject(rep);
        rep = cmd(b, "HGET " PREFIX "job:%s bloom_count", cid);
        r.last = rep->type == REDIS_REPLY_STRING ? strtoull(rep->str, NULL, 10) : 0;
        freeReplyObject(rep);
        /* The Lua's capacities are sbloom.c's: what it counted is what was new. */
        if (rc_sbloom_count(sp, r.filters, r.last) != r.added)
            die("growth: the Lua counted %" PRIu64 " URLs into its filters, %zu were new",
                rc_sbloom_count(sp, r.filters, r.last), r.added);
    }
    r.bytes = filter_usage(b, "bloom", cid, r.filters);
    return r;
}

static void grow_row(const char *label, size_t n, const grow_res *r, double model)
{
    char h[32];
    printf("%-34s %9zu %8u %11s %8.1f %9zu %7zu %9.2e %9.0f %8.2f\n", label, n, r->filters,
           human((double)r->bytes, h, sizeof h), n ? 8.0 * (double)r->bytes / (double)n : 0, r->added, r->fp, model,
           (double)n / r->secs, r->cpu * 1e6 / (double)n);
}

static void part_growth(bench *b)
{
    const opts *o = b->o;
    size_t N = o->urls, D = o->dups;
    if (D >= N)
        die("--dups must be below --urls");
    urllist l;
    memset(&l, 0, sizeof l);
    uint32_t *stream = build_stream(o, o->seed, &l);
    char *truth = rc_xmalloc(N);
    exset ex;
    exset_init(&ex, N - D);
    exact_truth(&l, stream, N, truth, &ex);
    exset_free(&ex);
    double fp = 1e-6; /* the default of a job */
    rc_bloom_params fixed;
    if (rc_bloom_params_for(1000000, fp, 0, &fixed) < 0)
        die("cannot size the fixed filter");
    rc_sbloom_params sp;
    if (rc_sbloom_params_for(0, fp, 1, &sp) < 0)
        die("cannot size the growing filter");
    printf("\n== growth: a job's bloom at the default false-positive rate %g: before, one filter sized for\n"
           "   1,000,000 URLs whatever the job (m = %" PRIu64 " bits, k = %u); now, a filter that starts at\n"
           "   %" PRIu64 " bits and adds one twice as large at half the error rate whenever the newest is full.\n"
           "   Batches of 1,000 URLs per EVALSHA; bytes = MEMORY USAGE of the job's bloom keys.\n",
           fp, fixed.m, fixed.k, sp.mg0);
    printf("%-34s %9s %8s %11s %8s %9s %7s %9s %9s %8s\n", "filter", "URLs", "filters", "Redis", "bits/URL", "new",
           "FP", "model fp", "URLs/s", "CPU us/URL");
    size_t sizes[2] = {1, N};
    for (int si = 0; si < 2; si++) {
        size_t n = sizes[si];
        grow_res r = grow_run(b, "fixed", &fixed, NULL, &l, stream, n, truth);
        grow_row("before: fixed, 1M at 1e-6", n, &r, rc_bloom_expected_fp(&fixed, r.added));
        del_prefix(b);
        r = grow_run(b, "grow", NULL, &sp, &l, stream, n, truth);
        grow_row("now: growing, from 1,024 bits", n, &r, rc_sbloom_expected_fp(&sp, r.filters, r.last));
        del_prefix(b);
    }
    printf("(FP: new URLs the filter called seen, against the exact set; model fp: the expected rate for the\n"
           " next new URL once the stream is in; for the growing filter the sum over its filters, below %g\n"
           " however many it adds)\n",
           fp);
    free(truth);
    free(stream);
    list_free(&l);
}

static void usage_exit(void)
{
    fputs("usage: bench_bloom --redis URL [--urls N] [--dups D] [--hosts H] [--seed S] [--fp P]\n"
          "         [--groups 1,2,3,4] [--batches 1,25,100,1000] [--pipeline 1,8] [--tp-seconds S]\n"
          "         [--lua-dir DIR] [--cn N] [--cremove N] [--big-n N] [--big-fp P] [--sample N]\n"
          "         [--shard-mib M] [--local-seeds N] main|counting|big|growth...\n",
          stderr);
    exit(2);
}

int main(int argc, char **argv)
{
    opts o = {.lua_dir = RC_LUA_DIR,
              .urls = 1000000,
              .dups = 50000,
              .hosts = 3000,
              .seed = 42,
              .fp = 0.001,
              .tp_seconds = 1.5,
              .cn = 100000,
              .cremove = 10000,
              .big_n = 100000000,
              .big_fp = 0.001,
              .sample = 1000000,
              .shard_mib = 64,
              .local_seeds = 10};
    o.ngroups = parse_list("groups", "1,2,3,4", o.groups);
    o.nbatches = parse_list("batches", "1,25,100,1000", o.batches);
    o.ndepths = parse_list("pipeline", "1,8", o.depths);
    int i = 1;
    for (; i < argc && strncmp(argv[i], "--", 2) == 0; i += 2) {
        const char *k = argv[i] + 2, *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v)
            usage_exit();
        if (!strcmp(k, "redis"))
            o.redis = v;
        else if (!strcmp(k, "lua-dir"))
            o.lua_dir = v;
        else if (!strcmp(k, "urls"))
            o.urls = parse_u64(k, v);
        else if (!strcmp(k, "dups"))
            o.dups = parse_u64(k, v);
        else if (!strcmp(k, "hosts"))
            o.hosts = parse_u64(k, v);
        else if (!strcmp(k, "seed"))
            o.seed = parse_u64(k, v);
        else if (!strcmp(k, "fp") || !strcmp(k, "big-fp") || !strcmp(k, "tp-seconds")) {
            double d;
            if (rc_parse_double(v, 0, 1e6, &d) < 0 || d <= 0)
                die("--%s: bad number %s", k, v);
            if (!strcmp(k, "fp"))
                o.fp = d;
            else if (!strcmp(k, "big-fp"))
                o.big_fp = d;
            else
                o.tp_seconds = d;
        } else if (!strcmp(k, "groups"))
            o.ngroups = parse_list(k, v, o.groups);
        else if (!strcmp(k, "batches"))
            o.nbatches = parse_list(k, v, o.batches);
        else if (!strcmp(k, "pipeline"))
            o.ndepths = parse_list(k, v, o.depths);
        else if (!strcmp(k, "cn"))
            o.cn = parse_u64(k, v);
        else if (!strcmp(k, "cremove"))
            o.cremove = parse_u64(k, v);
        else if (!strcmp(k, "big-n"))
            o.big_n = parse_u64(k, v);
        else if (!strcmp(k, "sample"))
            o.sample = parse_u64(k, v);
        else if (!strcmp(k, "shard-mib"))
            o.shard_mib = parse_u64(k, v);
        else if (!strcmp(k, "local-seeds"))
            o.local_seeds = parse_u64(k, v);
        else
            usage_exit();
    }
    if (!o.redis || i == argc)
        usage_exit();
    if (o.urls < 2 || o.urls > 100000000 || o.hosts < 1 || o.hosts > 1000000 || o.cn < 1 || o.sample < 1 ||
        o.sample > 50000000 || o.shard_mib > 512 || o.big_n < 1)
        die("an option is out of range");
    bench b;
    memset(&b, 0, sizeof b);
    bench_connect(&b, &o);
    setvbuf(stdout, NULL, _IOLBF, 0);
    for (; i < argc; i++) {
        if (!strcmp(argv[i], "main"))
            part_main(&b);
        else if (!strcmp(argv[i], "counting"))
            part_counting(&b);
        else if (!strcmp(argv[i], "big"))
            part_big(&b);
        else if (!strcmp(argv[i], "growth"))
            part_growth(&b);
        else
            usage_exit();
    }
    del_prefix(&b);
    redisFree(b.c);
    return 0;
}
