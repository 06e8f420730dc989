/* recheck.c - see recheck.h. */
#include "recheck.h"

#include <errno.h>
#include <hiredis/hiredis.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "tailids.h"
#include "util.h"

#define MARK_FIELD "stored_mark"

int rc_recheck_note(rc_redis *r, const char *crawlid, const char *pages_path, int64_t *last)
{
    char key[300], *idx = rc_xasprintf("%s.ids", pages_path);
    int64_t mark = 0;
    /* Read before the write is sent: every record before it was written before Redis had it. */
    int rc = rc_tailids_mark(idx, &mark);
    free(idx);
    if (rc < 0 || mark <= *last)
        return rc;
    redisReply *rep = rc_redis_cmd(r, "HSET %s %s %lld", rc_redis_key(r, key, sizeof key, "job:%s", crawlid),
                                   MARK_FIELD, (long long)mark);
    rc = rep && rep->type == REDIS_REPLY_INTEGER ? 0 : -EIO;
    if (rep)
        freeReplyObject(rep);
    if (rc == 0)
        *last = mark;
    return rc;
}

/* How many bytes of the records before MARK pages_path no longer holds (a crash of the machine
 * lost what the kernel had not written yet: --fsync none), 0 when none. */
static int64_t lost_before(const char *pages_path, int64_t mark)
{
    struct stat st;
    int64_t size = stat(pages_path, &st) == 0 ? (int64_t)st.st_size : 0;
    return size < mark ? mark - size : 0;
}

int rc_recheck_collect(rc_redis *r, const char *crawlid, const char *pages_path, int unclean, const char *list_path,
                       size_t *ret_n, int64_t *ret_lost, char *err, size_t cap)
{
    char key[300];
    redisReply *rep = rc_redis_cmd(r, "HGET %s %s", rc_redis_key(r, key, sizeof key, "job:%s", crawlid), MARK_FIELD);
    if (!rep || (rep->type != REDIS_REPLY_STRING && rep->type != REDIS_REPLY_NIL)) {
        snprintf(err, cap, "cannot read job %s's %s: %s", crawlid, MARK_FIELD,
                 rep && rep->type == REDIS_REPLY_ERROR ? rep->str : rc_redis_url(r));
        if (rep)
            freeReplyObject(rep);
        return -EIO;
    }
    int has_mark = rep->type == REDIS_REPLY_STRING;
    int64_t mark = rc_reply_int(rep, 0);
    freeReplyObject(rep);
    *ret_lost = has_mark ? lost_before(pages_path, mark) : 0;
    if ((!has_mark && !unclean) || *ret_lost > 0) { /* nothing past the mark: none to recheck */
        *ret_n = 0;
        return 0;
    }
    return rc_tailids_append(pages_path, mark, list_path, ret_n, err, cap);
}
