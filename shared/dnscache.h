/* dnscache.h - the worker's own DNS cache: "host:port" -> addresses (curl's CURLOPT_RESOLVE
 * form, "ADDR[,ADDR...]") with an expiry, in a hash map bounded in entries. libcurl 7.88 scans
 * its whole DNS cache on every transfer (Curl_hostcache_prune), which costs more and more past
 * a few thousand hosts; the fetcher gives each transfer a DNS cache of its own instead and fills
 * it from this one. Lookups, inserts and evictions are O(1); when full, the oldest entry goes. */
#ifndef RC_DNSCACHE_H
#define RC_DNSCACHE_H

#include <stddef.h>
#include <stdint.h>

typedef struct rc_dnscache rc_dnscache;

/* max_entries >= 1. */
rc_dnscache *rc_dnscache_new(size_t max_entries);
void rc_dnscache_free(rc_dnscache *c);

/* The addresses of key ("host:port") when its entry has not expired at now_ms; borrowed until
 * the next put or del. An expired entry is removed and NULL returned. */
const char *rc_dnscache_get(rc_dnscache *c, const char *key, uint64_t now_ms);
/* Sets key's addresses (copied); expires_ms 0 = never (entries given by the operator). When the
 * cache is full, the oldest entry is evicted first. */
void rc_dnscache_put(rc_dnscache *c, const char *key, const char *addrs, uint64_t expires_ms);
/* Removes key (an address that stopped answering); no-op when absent. */
void rc_dnscache_del(rc_dnscache *c, const char *key);
/* 1 when key's entry never expires. */
int rc_dnscache_permanent(const rc_dnscache *c, const char *key);
size_t rc_dnscache_count(const rc_dnscache *c);
uint64_t rc_dnscache_evictions(const rc_dnscache *c);

#endif
