/* seeds.h - the frontier's size. The frontier is per job, a list per priority and depth
 * (rc:seeds:{crawlid}:{priority}:{depth}, the jobs listed in rc:frontier), so its total is a
 * sum, read in one call (frontier.lua). */
#ifndef RC_SEEDS_H
#define RC_SEEDS_H

#include <stdint.h>

struct rc_redis;

/* Records waiting in the frontier: of the job CRAWLID, or of every job when it is NULL. -1 when
 * Redis does not answer. */
int64_t rc_seeds_count(struct rc_redis *r, const char *crawlid);

#endif
