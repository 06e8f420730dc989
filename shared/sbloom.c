/* sbloom.c - see sbloom.h. Every formula here is also in common.lua (bloom_filter): change
 * both, and test_sbloom's Redis-free checks with them. */
#include "sbloom.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

/* The largest group size a filter may have: groups x mg bits within one Redis string. */
static uint64_t mg_max(uint32_t groups)
{
    uint64_t m = RC_SBLOOM_MAX_BITS;
    while (m * groups > RC_SBLOOM_MAX_BITS)
        m >>= 1;
    return m;
}

void rc_sbloom_filter_at(const rc_sbloom_params *p, uint32_t i, rc_sbloom_filter *ret)
{
    rc_sbloom_filter f;
    uint64_t max = mg_max(p->groups);
    f.mg = i == 0 ? p->mg0 : p->mg1;
    for (uint32_t j = 1; j < i && f.mg < max; j++)
        f.mg <<= 1;
    if (f.mg > max)
        f.mg = max;
    /* Tightening ratio 1/2: filter i gets fp / 2^(i+1), so all of them together stay under fp. */
    f.fp = p->fp / pow(2.0, (double)i + 1.0);
    double kt = ceil(log(1.0 / f.fp) / log(2.0)); /* the optimum count for that rate */
    if (kt > RC_SBLOOM_MAX_K)
        kt = RC_SBLOOM_MAX_K;
    f.k = (uint32_t)floor(kt / (double)p->groups);
    if (f.k < 1)
        f.k = 1;
    if (f.k > RC_SBLOOM_MAX_K / p->groups)
        f.k = RC_SBLOOM_MAX_K / p->groups;
    /* fp = (1 - e^(-k n / mg))^(k h) solved for n. */
    double cap = floor(-(double)f.mg / (double)f.k * log(1.0 - pow(f.fp, 1.0 / ((double)f.k * (double)p->groups))));
    f.cap = cap < 1 ? 1 : (uint64_t)cap;
    *ret = f;
}

/* Filter 1's bits per group: twice filter 0's, at least jump, within one Redis string. */
static uint64_t second_bits(uint64_t mg0, uint64_t jump, uint32_t groups)
{
    uint64_t m = mg0 < mg_max(groups) ? mg0 << 1 : mg0;
    while (m < jump && m < mg_max(groups))
        m <<= 1;
    return m;
}

int rc_sbloom_params_for(uint64_t expected, double fp, uint32_t groups, rc_sbloom_params *ret)
{
    if (!(fp > 0.0 && fp < 1.0) || groups < 1 || groups > 4)
        return -EINVAL;
    rc_sbloom_params p = {RC_SBLOOM_MIN_BITS, 0, fp, groups};
    rc_sbloom_filter f;
    for (;;) {
        rc_sbloom_filter_at(&p, 0, &f);
        if (f.cap >= expected || p.mg0 >= mg_max(groups))
            break;
        p.mg0 <<= 1;
    }
    p.mg1 = second_bits(p.mg0, RC_SBLOOM_JUMP_BITS, groups);
    *ret = p;
    return 0;
}

uint32_t rc_sbloom_nhash(const rc_sbloom_params *p)
{
    return RC_SBLOOM_MAX_K / p->groups * p->groups;
}

/* splitmix64's finaliser: every input bit reaches every output bit. */
static uint64_t mix64(uint64_t z)
{
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

void rc_sbloom_hashes(const rc_sbloom_params *p, const void *key, size_t len, uint32_t *h)
{
    uint32_t per = RC_SBLOOM_MAX_K / p->groups;
    for (uint32_t g = 0; g < p->groups; g++) {
        XXH128_hash_t x = g == 0 ? XXH3_128bits(key, len) : XXH3_128bits_withSeed(key, len, g);
        for (uint32_t j = 0; j < per; j++)
            h[g * per + j] = (uint32_t)(mix64(x.low64 + j * (x.high64 | 1)) >> 32);
    }
}

void rc_sbloom_hex(const rc_sbloom_params *p, const uint32_t *h, char *out)
{
    static const char digits[] = "0123456789abcdef";
    uint32_t n = rc_sbloom_nhash(p);
    for (uint32_t i = 0; i < n; i++)
        for (int d = 0; d < 8; d++)
            *out++ = digits[(h[i] >> (28 - 4 * d)) & 0xf];
    *out = '\0';
}

void rc_sbloom_positions(const rc_sbloom_params *p, const rc_sbloom_filter *f, const uint32_t *h, uint64_t *pos)
{
    uint32_t n = 0, per = RC_SBLOOM_MAX_K / p->groups;
    for (uint32_t g = 0; g < p->groups; g++)
        for (uint32_t j = 0; j < f->k; j++)
            pos[n++] = g * f->mg + h[g * per + j] % f->mg;
}

double rc_sbloom_expected_fp(const rc_sbloom_params *p, uint32_t nfilters, uint64_t last_count)
{
    double sum = 0;
    for (uint32_t i = 0; i < nfilters; i++) {
        rc_sbloom_filter f;
        rc_sbloom_filter_at(p, i, &f);
        double n = i + 1 < nfilters ? (double)f.cap : (double)last_count;
        double one = pow(1.0 - exp(-(double)f.k * n / (double)f.mg), (double)f.k);
        sum += pow(one, (double)p->groups);
    }
    return sum;
}

uint64_t rc_sbloom_count(const rc_sbloom_params *p, uint32_t nfilters, uint64_t last_count)
{
    uint64_t n = last_count;
    for (uint32_t i = 0; i + 1 < nfilters; i++) {
        rc_sbloom_filter f;
        rc_sbloom_filter_at(p, i, &f);
        n += f.cap;
    }
    return n;
}

int rc_sbloom_params_parse(const char *s, rc_sbloom_params *ret)
{
    rc_sbloom_params p = {0};
    int used = 0;
    if (sscanf(s, "sbf:%" SCNu64 ":%lg:%" SCNu32 "%n", &p.mg0, &p.fp, &p.groups, &used) != 3)
        return -EINVAL;
    if (s[used] == ':') {
        int more = 0;
        if (sscanf(s + used, ":%" SCNu64 "%n", &p.mg1, &more) != 1)
            return -EINVAL;
        used += more;
    }
    if (s[used] != '\0' || p.mg0 < 64 || (p.mg0 & (p.mg0 - 1)) != 0 || p.groups < 1 || p.groups > 4 ||
        p.mg0 > mg_max(p.groups) || !(p.fp > 0.0 && p.fp < 1.0))
        return -EINVAL;
    if (p.mg1 == 0) /* an older job's: plain doubling */
        p.mg1 = second_bits(p.mg0, 0, p.groups);
    if (p.mg1 < p.mg0 || (p.mg1 & (p.mg1 - 1)) != 0 || p.mg1 > mg_max(p.groups))
        return -EINVAL;
    *ret = p;
    return 0;
}

void rc_sbloom_params_encode(const rc_sbloom_params *p, char *buf, size_t cap)
{
    snprintf(buf, cap, "sbf:%" PRIu64 ":%.17g:%" PRIu32 ":%" PRIu64, p->mg0, p->fp, p->groups, p->mg1);
}
