/* test_bloom.c - bloom sizing, positions and the false-positive rate at a given size, measured
 * on a local bit array with the same positions the Redis filter uses. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bloom.h"
#include "rc_test.h"
#include "util.h"

static double measured_fp_params(const rc_bloom_params *pp, uint64_t n);

static double measured_fp(uint64_t n, double fp, uint64_t shard_bits)
{
    rc_bloom_params p;
    if (rc_bloom_params_for(n, fp, shard_bits, &p) < 0)
        return -1;
    return measured_fp_params(&p, n);
}

static double measured_fp_params(const rc_bloom_params *pp, uint64_t n)
{
    rc_bloom_params p = *pp;
    uint8_t *bits = rc_xcalloc(p.shards * p.shard_bits / 8 + 1, 1);
    uint32_t shard[RC_BLOOM_MAX_K];
    uint64_t bit[RC_BLOOM_MAX_K];
    char key[64];
    for (uint64_t i = 0; i < n; i++) {
        int len = snprintf(key, sizeof key, "http://s%llu.site.test/p/%llu", (unsigned long long)(i % 97),
                           (unsigned long long)i);
        rc_bloom_positions(&p, key, (size_t)len, shard, bit);
        for (uint32_t j = 0; j < rc_bloom_npos(&p); j++) {
            uint64_t pos = shard[j] * p.shard_bits + bit[j];
            bits[pos / 8] |= (uint8_t)(1u << (pos % 8));
        }
    }
    uint64_t fps = 0, probes = 200000;
    for (uint64_t i = 0; i < probes; i++) {
        int len =
            snprintf(key, sizeof key, "http://other%llu.test/q?%llu", (unsigned long long)i, (unsigned long long)i * 7);
        rc_bloom_positions(&p, key, (size_t)len, shard, bit);
        int all = 1;
        for (uint32_t j = 0; j < rc_bloom_npos(&p) && all; j++) {
            uint64_t pos = shard[j] * p.shard_bits + bit[j];
            all = (bits[pos / 8] >> (pos % 8)) & 1;
        }
        fps += (uint64_t)all;
    }
    free(bits);
    return (double)fps / (double)probes;
}

int main(void)
{
    rc_bloom_params p;
    RC_CHECK_INT_EQ(rc_bloom_params_for(0, 0.01, 0, &p), -22);
    RC_CHECK_INT_EQ(rc_bloom_params_for(100, 0.0, 0, &p), -22);
    RC_CHECK_INT_EQ(rc_bloom_params_for(100, 1.0, 0, &p), -22);

    /* Textbook sizing: n = 1e6, p = 1% -> m ~ 9.59 Mbit, k = 7. */
    RC_CHECK_INT_EQ(rc_bloom_params_for(1000000, 0.01, 0, &p), 0);
    RC_CHECK(p.m > 9585000 && p.m < 9586000);
    RC_CHECK_INT_EQ(p.k, 7);
    RC_CHECK_INT_EQ(p.shards, 1);

    /* 1e9 URLs at 0.1% need ~14.4 Gbit: more than one 512 MiB Redis string. */
    RC_CHECK_INT_EQ(rc_bloom_params_for(1000000000ULL, 0.001, 0, &p), 0);
    RC_CHECK(p.shards >= 4);
    RC_CHECK(p.shard_bits <= RC_BLOOM_MAX_SHARD_BITS);
    RC_CHECK((uint64_t)p.shards * p.shard_bits >= p.m);

    /* Positions stay inside their shard and are deterministic. */
    RC_CHECK_INT_EQ(rc_bloom_params_for(1000, 0.01, 1024, &p), 0);
    RC_CHECK(p.shards > 1);
    uint32_t s1[RC_BLOOM_MAX_K], s2[RC_BLOOM_MAX_K];
    uint64_t b1[RC_BLOOM_MAX_K], b2[RC_BLOOM_MAX_K];
    rc_bloom_positions(&p, "http://a.test/", 14, s1, b1);
    rc_bloom_positions(&p, "http://a.test/", 14, s2, b2);
    int inside = 1, same = 1;
    for (uint32_t i = 0; i < p.k; i++) {
        inside &= s1[i] < p.shards && b1[i] < p.shard_bits;
        same &= s1[i] == s2[i] && b1[i] == b2[i];
    }
    RC_CHECK(inside);
    RC_CHECK(same);

    /* Encode/parse round trip and rejects. */
    char txt[96];
    rc_bloom_params q;
    rc_bloom_params_encode(&p, txt, sizeof txt);
    RC_CHECK_INT_EQ(rc_bloom_params_parse(txt, &q), 0);
    RC_CHECK(q.m == p.m && q.k == p.k && q.shards == p.shards && q.shard_bits == p.shard_bits);
    RC_CHECK_INT_EQ(rc_bloom_params_parse("10:0:1:10", &q), -22);
    RC_CHECK_INT_EQ(rc_bloom_params_parse("100:3:1:10", &q), -22);
    RC_CHECK_INT_EQ(rc_bloom_params_parse("garbage", &q), -22);

    /* The measured false-positive rate at the designed size stays near the target, also when
     * the filter is split into many shards. */
    double fp1 = measured_fp(100000, 0.01, 0);
    double fp2 = measured_fp(100000, 0.01, 1 << 16);
    double fp3 = measured_fp(100000, 0.001, 0);
    fprintf(stderr, "measured fp: %.4f (target 0.01), sharded %.4f, %.5f (target 0.001)\n", fp1, fp2, fp3);
    RC_CHECK(fp1 > 0.005 && fp1 < 0.015);
    RC_CHECK(fp2 > 0.005 && fp2 < 0.015);
    RC_CHECK(fp3 > 0.0003 && fp3 < 0.002);
    RC_CHECK(fabs(rc_bloom_expected_fp(&p, 1000) - 0.01) < 0.003);

    /* Multi-group: h groups of k hashes over the same memory; each group's positions stay in
     * its own m/h range; measured false positives follow the formula. */
    rc_bloom_params g;
    RC_CHECK_INT_EQ(rc_bloom_params_groups(1 << 20, 3, 2, 1 << 16, &g), 0);
    RC_CHECK_INT_EQ(rc_bloom_npos(&g), 6);
    RC_CHECK_INT_EQ(rc_bloom_params_groups(1 << 20, 0, 2, 0, &g), -22);
    RC_CHECK_INT_EQ(rc_bloom_params_groups(1 << 20, 9, 2, 0, &g), -22);
    RC_CHECK_INT_EQ(rc_bloom_params_groups(1 << 20, 3, 2, 1 << 16, &g), 0);
    int confined = 1;
    for (int i = 0; i < 1000; i++) {
        char key[32];
        int len = snprintf(key, sizeof key, "http://g.test/%d", i);
        rc_bloom_positions(&g, key, (size_t)len, s1, b1);
        for (uint32_t j = 0; j < rc_bloom_npos(&g); j++) {
            uint64_t pos = s1[j] * g.shard_bits + b1[j];
            confined &= pos / (g.m / g.groups) == j / g.k;
        }
    }
    RC_CHECK(confined);
    for (uint32_t h = 1; h <= 4; h++) {
        rc_bloom_params q4;
        RC_CHECK_INT_EQ(rc_bloom_params_groups(958506, h, 8 / h, 0, &q4), 0);
        double want = rc_bloom_expected_fp(&q4, 100000), got = measured_fp_params(&q4, 100000);
        fprintf(stderr, "h=%u k=%u: expected fp %.4f measured %.4f\n", h, q4.k, want, got);
        RC_CHECK(got > want * 0.7 && got < want * 1.3);
    }
    rc_bloom_params_encode(&g, txt, sizeof txt);
    RC_CHECK_INT_EQ(rc_bloom_params_parse(txt, &q), 0);
    RC_CHECK(q.groups == 3 && q.k == 2 && q.m == g.m);
    RC_CHECK_INT_EQ(rc_bloom_params_parse("1000:3:1:1000", &q), 0); /* the 4-field form: one group */
    RC_CHECK_INT_EQ(q.groups, 1);
    return rc_test_done("test_bloom");
}
