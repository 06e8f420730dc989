/* test_sbloom.c - the growing bloom filter's arithmetic: filter sizes double, error rates halve,
 * capacities grow and the sum stays under the bound; positions in range; params round trip;
 * and an in-process run of the same algorithm as common.lua's bloom_add (newest filter set,
 * older ones read) over 100,000 URLs: no false negative, filters as counted, and a measured
 * false-positive rate under the bound. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rc_test.h"
#include "sbloom.h"

#define MAX_FILTERS 40

/* The filter as common.lua keeps it, in process memory. */
typedef struct sim {
    rc_sbloom_params p;
    unsigned char *bits[MAX_FILTERS];
    uint32_t n;
    uint64_t count;
} sim;

static int sim_has(sim *s, uint32_t fi, const uint32_t *h)
{
    rc_sbloom_filter f;
    uint64_t pos[RC_SBLOOM_MAX_K];
    rc_sbloom_filter_at(&s->p, fi, &f);
    rc_sbloom_positions(&s->p, &f, h, pos);
    for (uint32_t j = 0; j < f.k * s->p.groups; j++)
        if (!(s->bits[fi][pos[j] / 8] & (1u << (pos[j] % 8))))
            return 0;
    return 1;
}

/* 1 when new. */
static int sim_add(sim *s, const char *key)
{
    uint32_t h[RC_SBLOOM_MAX_K];
    rc_sbloom_hashes(&s->p, key, strlen(key), h);
    for (uint32_t fi = 0; fi < s->n; fi++)
        if (s->bits[fi] && sim_has(s, fi, h))
            return 0;
    uint32_t last = s->n - 1;
    rc_sbloom_filter f;
    uint64_t pos[RC_SBLOOM_MAX_K];
    rc_sbloom_filter_at(&s->p, last, &f);
    if (!s->bits[last])
        s->bits[last] = calloc(f.mg * s->p.groups / 8 + 1, 1);
    rc_sbloom_positions(&s->p, &f, h, pos);
    for (uint32_t j = 0; j < f.k * s->p.groups; j++)
        s->bits[last][pos[j] / 8] |= (unsigned char)(1u << (pos[j] % 8));
    if (++s->count >= f.cap) {
        s->n++;
        s->count = 0;
        rc_sbloom_filter_at(&s->p, s->n - 1, &f);
        s->bits[s->n - 1] = calloc(f.mg * s->p.groups / 8 + 1, 1);
    }
    return 1;
}

static int sim_check(sim *s, const char *key)
{
    uint32_t h[RC_SBLOOM_MAX_K];
    rc_sbloom_hashes(&s->p, key, strlen(key), h);
    for (uint32_t fi = 0; fi < s->n; fi++)
        if (s->bits[fi] && sim_has(s, fi, h))
            return 1;
    return 0;
}

static void growth(uint32_t groups, double fp, uint64_t nurls)
{
    sim s;
    memset(&s, 0, sizeof s);
    RC_CHECK_INT_EQ(rc_sbloom_params_for(0, fp, groups, &s.p), 0);
    s.n = 1;
    char key[64];
    uint64_t added = 0;
    for (uint64_t i = 0; i < nurls; i++) {
        snprintf(key, sizeof key, "http://h%llu.test/p/%llu", (unsigned long long)(i % 997), (unsigned long long)i);
        added += (uint64_t)sim_add(&s, key);
    }
    /* Added twice: never new again (no false negatives). */
    uint64_t again = 0;
    for (uint64_t i = 0; i < nurls; i++) {
        snprintf(key, sizeof key, "http://h%llu.test/p/%llu", (unsigned long long)(i % 997), (unsigned long long)i);
        again += (uint64_t)sim_add(&s, key);
    }
    RC_CHECK_INT_EQ(again, 0);
    RC_CHECK(s.n >= 3); /* it grew past the jump */
    RC_CHECK_INT_EQ(rc_sbloom_count(&s.p, s.n, s.count), added);
    /* URLs never added: the false-positive rate stays under the bound (and near the model). */
    uint64_t fps = 0, probes = 200000;
    for (uint64_t i = 0; i < probes; i++) {
        snprintf(key, sizeof key, "https://fresh%llu.test/x", (unsigned long long)i);
        fps += (uint64_t)sim_check(&s, key);
    }
    double measured = (double)fps / (double)probes, model = rc_sbloom_expected_fp(&s.p, s.n, s.count);
    printf("  groups %u, fp %g: %llu URLs (%llu new) in %u filters, measured fp %.2e, model %.2e\n", groups, fp,
           (unsigned long long)nurls, (unsigned long long)added, s.n, measured, model);
    RC_CHECK(model < fp);
    /* The classic formula a filter is sized by runs a little low for small filters (Bose et al.
     * 2008), and 200,000 probes have Poisson noise (at 1e-6 a single hit is 5e-6): a margin
     * for both, not a different bound. */
    double want = fp * (double)probes;
    RC_CHECK((double)fps <= want * 1.1 + 4 * sqrt(want) + 2);
    RC_CHECK(added >= nurls - (uint64_t)(fp * (double)nurls * 4) - 2); /* false positives at insertion: few */
    for (uint32_t i = 0; i < s.n; i++)
        free(s.bits[i]);
}

int main(void)
{
    rc_sbloom_params p;
    RC_CHECK_INT_EQ(rc_sbloom_params_for(0, 0.0, 1, &p), -22);
    RC_CHECK_INT_EQ(rc_sbloom_params_for(0, 1.0, 1, &p), -22);
    RC_CHECK_INT_EQ(rc_sbloom_params_for(0, 1e-6, 0, &p), -22);
    RC_CHECK_INT_EQ(rc_sbloom_params_for(0, 1e-6, 5, &p), -22);

    /* A job that gives no size starts at 1,024 bits: 128 bytes. */
    RC_CHECK_INT_EQ(rc_sbloom_params_for(0, 1e-6, 1, &p), 0);
    RC_CHECK_INT_EQ(p.mg0, RC_SBLOOM_MIN_BITS);
    rc_sbloom_filter f, g;
    rc_sbloom_filter_at(&p, 0, &f);
    RC_CHECK(f.cap >= 20 && f.cap <= 40);
    RC_CHECK(fabs(f.fp - 5e-7) < 1e-18);
    RC_CHECK_INT_EQ(f.k, RC_SBLOOM_MAX_K); /* ceil(log2(1 / 5e-7)) = 21, capped */
    RC_CHECK_INT_EQ(rc_sbloom_nhash(&p), RC_SBLOOM_MAX_K);
    /* Filter 1 jumps to RC_SBLOOM_JUMP_BITS; each later one: twice the bits, half the error
     * rate, as many hashes (at the cap), more URLs, up to filter 17 (2^16 << 16 = 2^32 bits). */
    RC_CHECK_INT_EQ(p.mg1, RC_SBLOOM_JUMP_BITS);
    double sum = 0;
    for (uint32_t i = 0; i < 17; i++) {
        rc_sbloom_filter_at(&p, i, &f);
        rc_sbloom_filter_at(&p, i + 1, &g);
        RC_CHECK(g.mg == (i == 0 ? RC_SBLOOM_JUMP_BITS : 2 * f.mg));
        RC_CHECK(fabs(g.fp * 2 - f.fp) < f.fp * 1e-12);
        RC_CHECK(g.k == (f.k < RC_SBLOOM_MAX_K ? f.k + 1 : f.k));
        RC_CHECK(g.cap > f.cap);
        sum += f.fp;
    }
    RC_CHECK(sum < 1e-6);
    /* No filter passes one Redis string: past 2^32 bits they stop doubling. */
    rc_sbloom_filter_at(&p, 40, &f);
    RC_CHECK(f.mg == RC_SBLOOM_MAX_BITS);
    RC_CHECK(f.k == RC_SBLOOM_MAX_K && f.cap > 1);
    rc_sbloom_params p4;
    RC_CHECK_INT_EQ(rc_sbloom_params_for(0, 1e-6, 4, &p4), 0);
    rc_sbloom_filter_at(&p4, 40, &f);
    RC_CHECK(f.mg * 4 <= RC_SBLOOM_MAX_BITS);
    RC_CHECK_INT_EQ(f.k, RC_SBLOOM_MAX_K / 4);

    /* expected_urls sizes filter 0 to hold them: the smallest power of two that does. */
    RC_CHECK_INT_EQ(rc_sbloom_params_for(1000000, 1e-6, 1, &p), 0);
    rc_sbloom_filter_at(&p, 0, &f);
    RC_CHECK(f.cap >= 1000000);
    RC_CHECK(p.mg1 == 2 * p.mg0); /* past the jump already: plain doubling */
    rc_sbloom_params half = p;
    half.mg0 /= 2;
    rc_sbloom_filter_at(&half, 0, &g);
    RC_CHECK(g.cap < 1000000);

    /* Counting: full filters plus the newest's count. */
    RC_CHECK_INT_EQ(rc_sbloom_params_for(0, 1e-6, 1, &p), 0);
    rc_sbloom_filter_at(&p, 0, &f);
    rc_sbloom_filter_at(&p, 1, &g);
    RC_CHECK_INT_EQ(rc_sbloom_count(&p, 1, 7), 7);
    RC_CHECK_INT_EQ(rc_sbloom_count(&p, 3, 7), f.cap + g.cap + 7);
    RC_CHECK(rc_sbloom_expected_fp(&p, 1, 0) == 0);
    RC_CHECK(rc_sbloom_expected_fp(&p, 3, 5) < 1e-6);

    /* Positions: in their group's range; the odd step never repeats one within a group. */
    uint32_t h[RC_SBLOOM_MAX_K];
    uint64_t pos[RC_SBLOOM_MAX_K];
    RC_CHECK_INT_EQ(rc_sbloom_params_for(0, 1e-6, 2, &p), 0);
    RC_CHECK_INT_EQ(rc_sbloom_nhash(&p), RC_SBLOOM_MAX_K);
    rc_sbloom_hashes(&p, "http://a.test/", 14, h);
    RC_CHECK(h[0] != h[RC_SBLOOM_MAX_K / 2]); /* groups hash with their own seeds */
    rc_sbloom_filter_at(&p, 3, &f);
    rc_sbloom_positions(&p, &f, h, pos);
    int ok = 1;
    for (uint32_t g2 = 0; g2 < 2; g2++)
        for (uint32_t j = 0; j < f.k; j++) {
            uint64_t x = pos[g2 * f.k + j];
            ok &= x >= g2 * f.mg && x < (g2 + 1) * f.mg && x == g2 * f.mg + h[g2 * RC_SBLOOM_MAX_K / 2 + j] % f.mg;
        }
    RC_CHECK(ok);

    /* The hash values' text (what the scripts decode): 8 hex digits each, high first. */
    char hex[RC_SBLOOM_HEX_MAX];
    uint32_t hv[RC_SBLOOM_MAX_K] = {0xdeadbeefu, 1u, 0xffffffffu, 0x0a0b0c0du};
    rc_sbloom_params hp;
    RC_CHECK_INT_EQ(rc_sbloom_params_for(0, 1e-6, 4, &hp), 0);
    rc_sbloom_hex(&hp, hv, hex);
    RC_CHECK_INT_EQ(strlen(hex), 8 * rc_sbloom_nhash(&hp));
    RC_CHECK(strncmp(hex, "deadbeef00000001ffffffff0a0b0c0d00000000", 40) == 0);
    for (uint32_t j = 0; j < rc_sbloom_nhash(&hp); j++) {
        char one[9];
        memcpy(one, hex + 8 * j, 8);
        one[8] = '\0';
        RC_CHECK(strtoul(one, NULL, 16) == hv[j]);
    }

    /* Text form. */
    char txt[64];
    rc_sbloom_params q;
    rc_sbloom_params_encode(&p, txt, sizeof txt);
    RC_CHECK_INT_EQ(rc_sbloom_params_parse(txt, &q), 0);
    RC_CHECK(q.mg0 == p.mg0 && q.mg1 == p.mg1 && q.fp == p.fp && q.groups == p.groups);
    /* A job made before mg1 existed keeps doubling from mg0, so its filters keep their sizes. */
    RC_CHECK_INT_EQ(rc_sbloom_params_parse("sbf:1024:1e-06:1", &q), 0);
    RC_CHECK_INT_EQ(q.mg1, 2048);
    rc_sbloom_filter_at(&q, 3, &f);
    RC_CHECK_INT_EQ(f.mg, 8192);
    RC_CHECK_INT_EQ(rc_sbloom_params_parse("sbf:1024:1e-06:1:65536", &q), 0);
    rc_sbloom_filter_at(&q, 3, &f);
    RC_CHECK_INT_EQ(f.mg, 262144);
    RC_CHECK_INT_EQ(rc_sbloom_params_parse("sbf:1024:1e-06:1:512", &q), -22);   /* smaller than filter 0 */
    RC_CHECK_INT_EQ(rc_sbloom_params_parse("sbf:1024:1e-06:1:65535", &q), -22); /* not a power of two */
    RC_CHECK_INT_EQ(rc_sbloom_params_parse("sbf:1024:1e-06:1:", &q), -22);
    RC_CHECK_INT_EQ(rc_sbloom_params_parse("sbf:1000:1e-6:1", &q), -22); /* not a power of two */
    RC_CHECK_INT_EQ(rc_sbloom_params_parse("sbf:1024:0:1", &q), -22);
    RC_CHECK_INT_EQ(rc_sbloom_params_parse("sbf:1024:1e-6:5", &q), -22);
    RC_CHECK_INT_EQ(rc_sbloom_params_parse("sbf:1024:1e-6:1x", &q), -22);
    RC_CHECK_INT_EQ(rc_sbloom_params_parse("28755176:20:1:28755176:1", &q), -22); /* the old fixed form */

    growth(1, 1e-3, 100000);
    growth(2, 1e-3, 50000);
    growth(1, 1e-6, 50000);
    return rc_test_done("test_sbloom");
}
