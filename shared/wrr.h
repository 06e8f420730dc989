/* wrr.h - smooth weighted round-robin (nginx's algorithm): picks peers in proportion to their
 * weights, interleaved rather than in bursts. Used by the scheduler to give new domains to
 * workers by their measured throughput. */
#ifndef RC_WRR_H
#define RC_WRR_H

#include <stddef.h>
#include <stdint.h>

typedef struct rc_wrr rc_wrr;

rc_wrr *rc_wrr_new(void);
void rc_wrr_free(rc_wrr *w);
/* Adds the peer or updates its weight (weight >= 1; smaller values are raised to 1). id is copied. */
void rc_wrr_set(rc_wrr *w, const char *id, int64_t weight);
/* Removes a peer; 0, or -ENOENT when absent. */
int rc_wrr_remove(rc_wrr *w, const char *id);
/* The next peer, or NULL when there is none. Borrowed: valid until the peer is removed. */
const char *rc_wrr_next(rc_wrr *w);
size_t rc_wrr_count(const rc_wrr *w);
/* Peer i (0 <= i < count) and its weight; for listings. */
const char *rc_wrr_peer(const rc_wrr *w, size_t i, int64_t *ret_weight);

#endif
