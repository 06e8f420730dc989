/* recheck.h - `redcrawl crawl` and the pages a crash may have stored without its Redis knowing.
 *
 * Redis' append-only file is synced once a second (appendfsync everysec): a crash of the machine
 * loses its last writes, while pages.jsonl keeps what the workers wrote. A page whose take and
 * complete were both in the lost writes comes back as a first attempt, which the JSON Lines sink
 * does not look up: stored twice. So while a crawl runs its CLI notes in the job's hash (field
 * "stored_mark", every poll) where pages.jsonl's _id index said every record before was complete
 * (tailids.h). Redis' file keeps its writes in order: every page before the mark that survived
 * was taken before that write, so Redis knows it as done or as leased (a lease of the dead run is
 * handed back as a redelivery, looked up). Only the pages past it may have been taken in the lost
 * writes: a resume of a run that did not end cleanly appends their _ids to the job's list
 * (OUT/recheck-CRAWLID.ids), whose pages the workers look up before storing them (--recheck).
 * The list stays for the job's life: such a page may still wait in its queue after a pause or
 * another crash. Every _id in it is in pages.jsonl, so a look-up never drops a page. */
#ifndef RC_CLI_RECHECK_H
#define RC_CLI_RECHECK_H

#include <stddef.h>
#include <stdint.h>

#include "redis.h"

/* Notes pages_path's mark in the job's hash when it moved past *last (then updated). 0, or
 * -errno: the index unreadable, or -EIO (Redis). */
int rc_recheck_note(rc_redis *r, const char *crawlid, const char *pages_path, int64_t *last);

/* At a resume: appends to list_path the _ids of the pages stored past the job's mark (none after
 * a clean end, which notes its last mark). A job without a mark (it never had one noted)
 * rechecks every page if unclean (crawl.json says the run was still running), none else. *ret_n
 * how many; *ret_lost how many bytes before the mark pages_path lost (a crash of the machine
 * with --fsync none: pages Redis counts as stored and that are gone; said, not fetched again).
 * 0, or -errno with err. */
int rc_recheck_collect(rc_redis *r, const char *crawlid, const char *pages_path, int unclean, const char *list_path,
                       size_t *ret_n, int64_t *ret_lost, char *err, size_t cap);

#endif
