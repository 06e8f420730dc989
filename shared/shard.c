/* shard.c - see shard.h. */
#include "shard.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <xxhash.h>

#include "cluster.h"
#include "url.h"
#include "util.h"

int rc_shard_of_host(const char *host, int k)
{
    if (k <= 1 || !host || !*host)
        return 0;
    char key[300];
    size_t n = 0;
    /* Up to the port (after an IPv6 literal's brackets): one host, one shard, whatever port. */
    const char *end = host[0] == '[' ? strchr(host, ']') : NULL;
    const char *colon = strchr(end ? end : host, ':');
    for (const char *p = host; *p && p != colon && n + 1 < sizeof key; p++)
        key[n++] = (char)tolower((unsigned char)*p);
    return (int)(XXH3_64bits(key, n) % (unsigned long long)k);
}

int rc_shard_of_url(const char *url, int k)
{
    char host[300];
    if (rc_url_host_key(url, host, sizeof host) < 0)
        return -EINVAL;
    return rc_shard_of_host(host, k);
}

/* Slots kept clear of a range's edges: redis-cli's split rounds them a slot either way. */
#define EDGE 16

int rc_shard_prefix(const char *base, int i, int k, char *buf, size_t cap)
{
    if (k < 1 || k > RC_SHARDS_MAX || i < 0 || i >= k)
        return -EINVAL;
    if (k == 1) {
        int n = snprintf(buf, cap, "%s", base);
        return n < 0 || (size_t)n >= cap ? -ENAMETOOLONG : 0;
    }
    if (rc_cluster_has_tag(base, strlen(base)))
        return -EINVAL;
    unsigned lo = (unsigned)i * RC_CLUSTER_SLOTS / (unsigned)k + EDGE;
    unsigned hi = (unsigned)(i + 1) * RC_CLUSTER_SLOTS / (unsigned)k - EDGE;
    for (unsigned n = 0;; n++) {
        char tag[40];
        int len = snprintf(tag, sizeof tag, "{s%d.%u}", i, n);
        unsigned slot = rc_cluster_keyslot(tag, (size_t)len);
        if (slot < lo || slot >= hi)
            continue;
        int w = snprintf(buf, cap, "%s%s:", base, tag);
        return w < 0 || (size_t)w >= cap ? -ENAMETOOLONG : 0;
    }
}

int rc_shard_prefix_conf(const char *base, long long shard, long long shards, char *buf, size_t cap, char *err,
                         size_t errcap)
{
    int k = shards > 1 ? (int)RC_MIN(shards, RC_SHARDS_MAX + 1) : 1;
    int r = shard < 0 || shard >= k ? -EINVAL : rc_shard_prefix(base, (int)shard, k, buf, cap);
    if (r < 0)
        snprintf(err, errcap,
                 "--shard %lld of --shards %d with --prefix '%s': a shard from 0 to shards - 1, and a "
                 "prefix without a hash tag when sharded",
                 shard, k, base);
    return r;
}

int rc_shard_end_round(rc_shard_end *e, const long long *pending, const long long *arrived, int k)
{
    int zero = 1, same = e->rounds > 0;
    for (int i = 0; i < k && i < RC_SHARDS_MAX; i++) {
        zero &= pending[i] == 0;
        same &= arrived[i] == e->arrived[i];
        e->arrived[i] = arrived[i];
    }
    int over = zero && e->zero && same;
    e->zero = zero;
    e->rounds++;
    return over;
}
