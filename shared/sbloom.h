/* sbloom.h - the job's URL filter: a scalable bloom filter (Almeida, Baquero, Preguica and
 * Hutchison, "Scalable Bloom Filters", 2007). It starts small and, each time its newest filter
 * holds as many URLs as its error budget allows, adds one with half the error rate: the second
 * at least RC_SBLOOM_JUMP_BITS, each later one twice as large as the one before; a URL is
 * present when all its bits are set in any filter. So a one-URL job costs
 * RC_SBLOOM_MIN_BITS / 8 bytes, not the size of a million-URL filter, and the false-positive
 * rate of the whole stays below fp (fp/2 + fp/4 + ... < fp) however far it grows.
 *
 * The bits live in Redis (filter i is the bitmap "bloom:{crawlid}:{i}") and the check-and-set
 * is Lua (common.lua bloom_add): the client sends each URL's hash values (rc_sbloom_hashes, one
 * per hash function a filter may use) and the script takes each value modulo the filter's size
 * (a power of two), so a client needs to know nothing of how far the filter has grown.
 * Independent values, not double hashing's h1 + j*h2: in a filter of 1,024 bits the 2^19
 * (h1, h2) pairs and their overlapping progressions put a floor near 1e-4 under the rate. This module holds the
 * arithmetic both sides share: the filter sizes, hash counts and capacities (mirrored in common.lua, exactly), and the
 * positions (for tests and benchmarks). */
#ifndef RC_SBLOOM_H
#define RC_SBLOOM_H

#include <stddef.h>
#include <stdint.h>

/* Hash functions per filter at most (all groups together), and hash values sent per URL, as
 * the fixed filter had: past it a filter needs more bits per URL than the optimum (a third more
 * at 1e-11, filter 15 or so), which costs less than more Redis calls and arguments per link. */
#define RC_SBLOOM_MAX_K 16
/* Bits in each group of the first filter when the job gives no expected size: 128 bytes. */
#define RC_SBLOOM_MIN_BITS 1024
/* Bits in each group of the second filter at least: 8 KiB. A job past its first few dozen URLs
 * is going to grow, and each filter a new URL must be read in costs Redis calls (about two
 * GETBITs, each ~3 us inside a Lua script): doubling from 1,024 bits a job of 12,000 URLs had
 * 10 filters, from here 4 (a million URLs: 16 -> 11). */
#define RC_SBLOOM_JUMP_BITS 65536
/* No filter passes one Redis string (512 MiB = 2^32 bits); past that they stop doubling. */
#define RC_SBLOOM_MAX_BITS (UINT64_C(1) << 32)

typedef struct rc_sbloom_params {
    uint64_t mg0;    /* bits per group in filter 0 (a power of two) */
    uint64_t mg1;    /* bits per group in filter 1 (a power of two >= mg0); filter i > 1 doubles it */
    double fp;       /* bound on the false-positive rate of all filters together */
    uint32_t groups; /* h >= 1: each filter is h groups of k hashes (thesis 4.2.3); 1 = classic */
} rc_sbloom_params;

/* Filter i of a job's filter. */
typedef struct rc_sbloom_filter {
    uint64_t mg;  /* bits per group; the filter has groups x mg bits */
    uint32_t k;   /* hash functions per group */
    uint64_t cap; /* URLs it takes before the next filter starts (>= 1) */
    double fp;    /* its false-positive rate when it holds cap URLs: fp / 2^(i+1) */
} rc_sbloom_filter;

/* Parameters for a job: expected = 0 starts at RC_SBLOOM_MIN_BITS per group; expected > 0 sizes
 * filter 0 to hold that many URLs (the filter still grows past them). 0 < fp < 1, 1 <= groups
 * <= 4. 0 or -EINVAL. */
int rc_sbloom_params_for(uint64_t expected, double fp, uint32_t groups, rc_sbloom_params *ret);

/* Filter i's size, hash count and capacity. */
void rc_sbloom_filter_at(const rc_sbloom_params *p, uint32_t i, rc_sbloom_filter *ret);

/* Hash values per URL that the scripts take: RC_SBLOOM_MAX_K / groups per group. */
uint32_t rc_sbloom_nhash(const rc_sbloom_params *p);
/* The URL's hash values, h[0..rc_sbloom_nhash) (at most RC_SBLOOM_MAX_K), 32 bits each: group
 * g's XXH3-128 (seeded by g) expanded by splitmix64 into one value per hash function. */
void rc_sbloom_hashes(const rc_sbloom_params *p, const void *key, size_t len, uint32_t *h);
/* Characters of rc_sbloom_hex's text at most, its NUL included. */
#define RC_SBLOOM_HEX_MAX (8 * RC_SBLOOM_MAX_K + 1)
/* The hash values h[0..rc_sbloom_nhash) as one text the scripts decode cheaply (common.lua
 * bloom_hashes): each as 8 lowercase hex digits, most significant first, back to back, then a
 * NUL. Sixteen decimal arguments cost Redis an argument object and a strtod each (a fifth of a
 * new link's bloom time in Lua); one text of fixed-width fields costs one. */
void rc_sbloom_hex(const rc_sbloom_params *p, const uint32_t *h, char *out);
/* The bit offsets of a URL in filter f: pos[0..groups x f->k), group g's in [g*mg, (g+1)*mg):
 * g*mg + h[g*nhash/groups + j] mod mg. What common.lua computes. */
void rc_sbloom_positions(const rc_sbloom_params *p, const rc_sbloom_filter *f, const uint32_t *h, uint64_t *pos);

/* Expected false-positive rate with nfilters filters, the last holding last_count URLs (the
 * earlier ones full): the sum over filters. */
double rc_sbloom_expected_fp(const rc_sbloom_params *p, uint32_t nfilters, uint64_t last_count);
/* URLs held: the capacities of the full filters plus last_count. */
uint64_t rc_sbloom_count(const rc_sbloom_params *p, uint32_t nfilters, uint64_t last_count);

/* Params as text "sbf:mg0:fp:groups:mg1", kept in the job hash (field bloom) so that every
 * process of a job uses the same filter. Parse also reads the form without mg1 that jobs made
 * by an older version carry (mg1 = 2 x mg0: their filters keep their sizes). Encode writes at
 * most 96 bytes. */
int rc_sbloom_params_parse(const char *s, rc_sbloom_params *ret);
void rc_sbloom_params_encode(const rc_sbloom_params *p, char *buf, size_t cap);

#endif
