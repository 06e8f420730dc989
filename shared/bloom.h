/* bloom.h - URL dedup bloom filter parameters and bit positions.
 * The bits live in Redis bitmaps (key "bloom:{crawlid}:{shard}"); this module only computes
 * sizes and positions, so the check-and-set can be one Lua call for a whole page of links. */
#ifndef RC_BLOOM_H
#define RC_BLOOM_H

#include <stddef.h>
#include <stdint.h>

#define RC_BLOOM_MAX_K 16
/* Redis strings stop at 512 MiB = 2^32 bits: no shard is larger. */
#define RC_BLOOM_MAX_SHARD_BITS (UINT64_C(1) << 32)

/* The multi-group filter of the thesis (4.2.3): the m bits are split into h groups of m/h bits;
 * each group has its own k hash functions (its own seed) and a key is present only when all
 * h*k bits are set. h = 1 is the classic filter. */
typedef struct rc_bloom_params {
    uint64_t m;          /* total bits */
    uint32_t k;          /* hash functions per group */
    uint32_t shards;     /* number of Redis keys */
    uint64_t shard_bits; /* bits per key (the last may be used partly) */
    uint32_t groups;     /* h >= 1 */
} rc_bloom_params;

/* Sizes a filter for n items at false-positive rate fp (0 < fp < 1), sharded so that no key
 * exceeds max_shard_bits (0 = RC_BLOOM_MAX_SHARD_BITS). One group. 0 or -EINVAL. */
int rc_bloom_params_for(uint64_t n, double fp, uint64_t max_shard_bits, rc_bloom_params *ret);
/* The same memory split into h groups of k hash functions each (k >= 1, h * k <= RC_BLOOM_MAX_K). */
int rc_bloom_params_groups(uint64_t m, uint32_t groups, uint32_t k, uint64_t max_shard_bits, rc_bloom_params *ret);
/* Bit positions per key: groups * k. */
uint32_t rc_bloom_npos(const rc_bloom_params *p);

/* The expected false-positive rate of params after n insertions. */
double rc_bloom_expected_fp(const rc_bloom_params *p, uint64_t n);

/* Bit positions of key: shard[i] and bit[i] for i < rc_bloom_npos(p) (Kirsch-Mitzenmacher
 * double hashing over XXH3-128, one hash computation per group, seeded by the group). */
void rc_bloom_positions(const rc_bloom_params *p, const void *key, size_t len, uint32_t *shard, uint64_t *bit);

/* Params as text "m:k:shards:shard_bits:groups" (kept in the job hash so every process of a job uses
 * the same filter). Encode writes at most 96 bytes. */
int rc_bloom_params_parse(const char *s, rc_bloom_params *ret);
void rc_bloom_params_encode(const rc_bloom_params *p, char *buf, size_t cap);

/* A 64-bit hash of a URL key, for worker-local caches. */
uint64_t rc_bloom_hash64(const void *key, size_t len);

#endif
