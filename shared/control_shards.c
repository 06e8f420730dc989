/* control_shards.c - see control_shards.h. */
#include "control_shards.h"

#include <errno.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "control.h"
#include "msg.h"
#include "redis.h"
#include "shard.h"
#include "util.h"

int rc_control_shard_of(const char *data, size_t len, int k, int *merge)
{
    rc_msg m;
    rc_msg_error e;
    *merge = 0;
    if (rc_msg_parse(data, len, &m, &e) < 0)
        return 0;
    int crawl = m.kind == RC_MSG_CRAWL, s = crawl && m.url ? rc_shard_of_url(m.url, k) : -1;
    *merge = m.kind == RC_MSG_ACTION ? RC_CONTROL_MERGE_ACTION : m.kind == RC_MSG_STATS ? RC_CONTROL_MERGE_STATS : 0;
    rc_msg_release(&m);
    return crawl && s < 0 ? 0 : s;
}

/* A state's weight when the shards' answers meet: a job runs if it runs in any shard. */
static int state_rank(const json_t *st)
{
    const char *s = json_string_value(st);
    return !s ? 0 : strcmp(s, "done") == 0 ? 1 : strcmp(s, "running") == 0 ? 3 : 2;
}

/* O's counts, domains and state folded into A (both one job's, or both answers). */
static void merge_job(json_t *a, json_t *o)
{
    const char *k;
    json_t *v;
    json_object_foreach (o, k, v) {
        json_t *have = json_object_get(a, k);
        if (json_is_integer(v) && json_is_integer(have) && strcmp(k, "server_time") != 0 && strcmp(k, "expires") != 0)
            json_object_set_new(a, k, json_integer(json_integer_value(have) + json_integer_value(v)));
        else if (strcmp(k, "domains") == 0 && json_is_object(have))
            json_object_update(have, v);
    }
    json_t *st = json_object_get(o, "state");
    if (state_rank(st) > state_rank(json_object_get(a, "state")))
        json_object_set(a, "state", st);
}

/* An info of every job: each job's entry merged as one job's answer, the jobs counted once. */
static void merge_crawlids(json_t *a, json_t *o)
{
    json_t *have = json_object_get(a, "crawlids"), *more = json_object_get(o, "crawlids");
    if (!json_is_object(have) || !json_is_object(more))
        return;
    const char *cid;
    json_t *e;
    json_object_foreach (more, cid, e) {
        json_t *mine = json_object_get(have, cid);
        if (mine)
            merge_job(mine, e);
        else
            json_object_set(have, cid, e);
    }
    if (json_is_true(json_object_get(o, "crawlids_truncated")))
        json_object_set_new(a, "crawlids_truncated", json_true());
    if (!json_is_true(json_object_get(a, "crawlids_truncated"))) /* else the shards' sum: an upper bound */
        json_object_set_new(a, "total_crawlids", json_integer((json_int_t)json_object_size(have)));
}

char *rc_control_merge_answer(char *acc, const char *answer)
{
    json_t *a = acc ? json_loads(acc, 0, NULL) : NULL, *o = json_loads(answer, 0, NULL);
    if (!a || !o) {
        json_decref(a);
        json_decref(o);
        free(acc);
        return rc_xstrdup(answer);
    }
    merge_job(a, o);
    merge_crawlids(a, o);
    if (json_string_value(json_object_get(a, "state")))
        json_object_del(a, "error");
    char *text = json_dumps(a, JSON_COMPACT | JSON_PRESERVE_ORDER);
    json_decref(a);
    json_decref(o);
    free(acc);
    return text ? text : rc_xstrdup(answer);
}

int rc_control_shards_handle(int k, rc_control_conn_fn conn, void *ud, const char *data, size_t len, char **ret_answer,
                             char *err, size_t cap)
{
    int merge = 0, only = k > 1 ? rc_control_shard_of(data, len, k, &merge) : 0;
    char *result = NULL;
    rc_redis *rs[RC_SHARDS_MAX];
    k = RC_MAX(k, 1);
    if (merge == RC_CONTROL_MERGE_STATS) {
        /* One answer read from every shard: all connections first. */
        for (int s = 0; s < k; s++)
            if (!(rs[s] = conn(ud, s, err, cap)))
                return -EIO;
        return rc_control_handle_shard(rs, k, 0, true, data, len, ret_answer, err, cap);
    }
    bool counted = false;
    for (int s = 0; s < k; s++) {
        if (only >= 0 && s != only)
            continue;
        char *answer = NULL;
        rc_redis *r = rs[s] = conn(ud, s, err, cap);
        int rc = r ? rc_control_handle_shard(&rs[s], 1, 0, !counted, data, len, &answer, err, cap) : -EIO;
        if (rc < 0) {
            free(result);
            return rc;
        }
        counted = true;
        if (merge && answer) {
            result = rc_control_merge_answer(result, answer);
            free(answer);
            continue;
        }
        free(result);
        result = answer;
    }
    *ret_answer = result;
    return 0;
}
