/* bloom.c - see bloom.h. */
#include "bloom.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

int rc_bloom_params_for(uint64_t n, double fp, uint64_t max_shard_bits, rc_bloom_params *ret)
{
    if (n == 0 || !(fp > 0.0 && fp < 1.0))
        return -EINVAL;
    if (max_shard_bits == 0 || max_shard_bits > RC_BLOOM_MAX_SHARD_BITS)
        max_shard_bits = RC_BLOOM_MAX_SHARD_BITS;
    const double ln2 = 0.69314718055994530942;
    double m = ceil(-(double)n * log(fp) / (ln2 * ln2));
    if (m < 64)
        m = 64;
    if (m > 1e15) /* ~112 TiB: certainly a mistake */
        return -EINVAL;
    double k = round(m / (double)n * ln2);
    if (k < 1)
        k = 1;
    if (k > RC_BLOOM_MAX_K)
        k = RC_BLOOM_MAX_K;
    rc_bloom_params p;
    p.m = (uint64_t)m;
    p.k = (uint32_t)k;
    p.shards = (uint32_t)((p.m + max_shard_bits - 1) / max_shard_bits);
    p.shard_bits = (p.m + p.shards - 1) / p.shards;
    p.groups = 1;
    *ret = p;
    return 0;
}

int rc_bloom_params_groups(uint64_t m, uint32_t groups, uint32_t k, uint64_t max_shard_bits, rc_bloom_params *ret)
{
    if (groups < 1 || k < 1 || (uint64_t)groups * k > RC_BLOOM_MAX_K || m < 64 * (uint64_t)groups)
        return -EINVAL;
    if (max_shard_bits == 0 || max_shard_bits > RC_BLOOM_MAX_SHARD_BITS)
        max_shard_bits = RC_BLOOM_MAX_SHARD_BITS;
    rc_bloom_params p;
    p.groups = groups;
    p.k = k;
    p.m = m / groups * groups; /* equal groups */
    p.shards = (uint32_t)((p.m + max_shard_bits - 1) / max_shard_bits);
    p.shard_bits = (p.m + p.shards - 1) / p.shards;
    *ret = p;
    return 0;
}

uint32_t rc_bloom_npos(const rc_bloom_params *p)
{
    return p->groups * p->k;
}

double rc_bloom_expected_fp(const rc_bloom_params *p, uint64_t n)
{
    /* Each group is a filter of m/h bits with k hashes; all groups must agree. */
    double mg = (double)p->m / (double)p->groups;
    double one = pow(1.0 - exp(-(double)p->k * (double)n / mg), (double)p->k);
    return pow(one, (double)p->groups);
}

void rc_bloom_positions(const rc_bloom_params *p, const void *key, size_t len, uint32_t *shard, uint64_t *bit)
{
    uint64_t mg = p->m / p->groups;
    uint32_t i = 0;
    for (uint32_t g = 0; g < p->groups; g++) {
        XXH128_hash_t h = g == 0 ? XXH3_128bits(key, len) : XXH3_128bits_withSeed(key, len, g);
        uint64_t h1 = h.low64, h2 = h.high64 | 1; /* odd step: never degenerates to one position */
        for (uint32_t j = 0; j < p->k; j++, i++) {
            uint64_t pos = g * mg + (h1 + (uint64_t)j * h2) % mg;
            shard[i] = (uint32_t)(pos / p->shard_bits);
            bit[i] = pos % p->shard_bits;
        }
    }
}

uint64_t rc_bloom_hash64(const void *key, size_t len)
{
    return XXH3_64bits(key, len);
}

int rc_bloom_params_parse(const char *s, rc_bloom_params *ret)
{
    rc_bloom_params p;
    p.groups = 1;
    int n = sscanf(s, "%" SCNu64 ":%" SCNu32 ":%" SCNu32 ":%" SCNu64 ":%" SCNu32, &p.m, &p.k, &p.shards, &p.shard_bits,
                   &p.groups);
    if (n != 4 && n != 5)
        return -EINVAL;
    if (p.m == 0 || p.k == 0 || p.groups == 0 || (uint64_t)p.k * p.groups > RC_BLOOM_MAX_K || p.m < p.groups ||
        p.shards == 0 || p.shard_bits == 0 || p.shard_bits > RC_BLOOM_MAX_SHARD_BITS ||
        (uint64_t)p.shards * p.shard_bits < p.m)
        return -EINVAL;
    *ret = p;
    return 0;
}

void rc_bloom_params_encode(const rc_bloom_params *p, char *buf, size_t cap)
{
    snprintf(buf, cap, "%" PRIu64 ":%" PRIu32 ":%" PRIu32 ":%" PRIu64 ":%" PRIu32, p->m, p->k, p->shards, p->shard_bits,
             p->groups);
}
