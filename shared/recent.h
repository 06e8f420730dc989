/* recent.h - "fetched recently", fleet-wide (SpiderDuck's decider): one Redis string read as
 * RC_RECENT_SLOTS unsigned 16-bit slots (BITFIELD u16). A fetch of URL writes the current hour
 * (hours since 1970, mod 65536, never 0) into its RC_RECENT_K slots; since hours only grow, each
 * slot holds at least the hour of the URL's last fetch, so the smallest of its slots bounds it
 * from above: "fetched within X hours" has no false negatives and, like a bloom filter, a few
 * false positives (other URLs sharing all k slots since). Entries expire by themselves: an old
 * hour is simply too old. 16 MiB for the whole fleet. Pure: computes slots and ages only. */
#ifndef RC_RECENT_H
#define RC_RECENT_H

#include <stdint.h>

#define RC_RECENT_SLOTS (1u << 23)
#define RC_RECENT_K 3
#define RC_RECENT_MAX_HOURS 8760 /* a year: far below the 16-bit hour's wrap (7.5 years) */

/* The slots of url (slot numbers, for BITFIELD's u16 #N offsets). */
void rc_recent_slots(const char *url, uint32_t out[RC_RECENT_K]);
/* The hour stamp of now_ms (unix ms). */
uint16_t rc_recent_hour(uint64_t now_ms);
/* 1 when the slots' values say the URL was fetched within `hours` of now (hours <= the max). */
int rc_recent_within(const uint16_t vals[RC_RECENT_K], uint16_t now_hour, unsigned hours);

#endif
