/* control_shards.c - see control_shards.h. */
#include "control_shards.h"

#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "control.h"
#include "msg.h"
#include "redis.h"
#include "shard.h"
#include "util.h"

int rc_control_shard_of(const char *data, size_t len, int k, int *one_job)
{
    rc_msg m;
    rc_msg_error e;
    *one_job = 0;
    if (rc_msg_parse(data, len, &m, &e) < 0)
        return 0;
    int crawl = m.kind == RC_MSG_CRAWL, s = crawl && m.url ? rc_shard_of_url(m.url, k) : -1;
    *one_job = m.kind == RC_MSG_ACTION && m.crawlid[0];
    rc_msg_release(&m);
    return crawl && s < 0 ? 0 : s;
}

/* A state's weight when the shards' answers meet: a job runs if it runs in any shard. */
static int state_rank(const json_t *st)
{
    const char *s = json_string_value(st);
    return !s ? 0 : strcmp(s, "done") == 0 ? 1 : strcmp(s, "running") == 0 ? 3 : 2;
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
    int one_job = 0, only = k > 1 ? rc_control_shard_of(data, len, k, &one_job) : 0;
    char *result = NULL;
    for (int s = 0; s < RC_MAX(k, 1); s++) {
        if (only >= 0 && s != only)
            continue;
        char *answer = NULL;
        rc_redis *r = conn(ud, s, err, cap);
        int rc = r ? rc_control_handle(r, data, len, &answer, err, cap) : -EIO;
        if (rc < 0) {
            free(result);
            return rc;
        }
        if (one_job && answer) {
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
