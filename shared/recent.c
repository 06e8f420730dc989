/* recent.c - see recent.h. */
#include "recent.h"

#include <string.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

void rc_recent_slots(const char *url, uint32_t out[RC_RECENT_K])
{
    XXH128_hash_t h = XXH3_128bits(url, strlen(url));
    /* Double hashing (Kirsch-Mitzenmacher): k slots from two 64-bit halves. */
    for (uint64_t i = 0; i < RC_RECENT_K; i++)
        out[i] = (uint32_t)((h.low64 + i * (h.high64 | 1)) % RC_RECENT_SLOTS);
}

uint16_t rc_recent_hour(uint64_t now_ms)
{
    uint16_t h = (uint16_t)((now_ms / 3600000u) & 0xffff);
    return h ? h : 1; /* 0 means "never written" */
}

int rc_recent_within(const uint16_t vals[RC_RECENT_K], uint16_t now_hour, unsigned hours)
{
    unsigned oldest = 0;
    for (int i = 0; i < RC_RECENT_K; i++) {
        if (vals[i] == 0)
            return 0; /* a slot never written: this URL was never fetched */
        unsigned age = (uint16_t)(now_hour - vals[i]);
        if (age > oldest)
            oldest = age; /* the URL's own stamp is at most the smallest, so at least this old */
    }
    return oldest <= hours;
}
