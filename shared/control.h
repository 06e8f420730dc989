/* control.h - the control plane's effects: applies one validated request (msg.h) to Redis through
 * the synchronous client and builds its answer. The Kafka monitor (scheduler/monitor.c) and the
 * command line's embedded mode (cli/control.c) both call this, so their answers are identical.
 *
 * Answers are compact JSON objects with Scrapy Cluster's field names; every one carries the
 * request's "uuid" and "appid" and "server_time" (unix seconds). Request kinds:
 * - crawl: the job is created or extended through submit.lua (idempotent: the job's bloom makes a
 *   redelivered request add nothing). Scrapy Cluster never answers crawls; redcrawl answers a crawl
 *   that carries a uuid: {"action":"crawl","crawlid","spiderid","url","added":N,"status":"accepted"}
 *   ("status":"refused" with "error" when the job was stopped or has expired; rules that do not
 *   compile get the validator's answer, rc_msg_error_answer with field "rules"). A job whose spec
 *   has "expires" is listed in expires (zset crawlid -> unix seconds) for rc_control_expire_due.
 * - action info: Scrapy Cluster's info answer (total_pending = queued URLs, total_domains, per
 *   domain {"total","high_priority","low_priority"}), where high/low are COUNTS of queued URLs
 *   whose priority is >= / < the job's own priority (Scrapy Cluster put the max/min priority
 *   there); plus the job's state, pending (queued + in flight), fetched, items, errors, failed,
 *   dropped, retries, purged. Without a crawlid: every job of that appid and spiderid under
 *   "crawlids". Crawlids are global in redcrawl: an info naming a crawlid answers for it whatever
 *   app submitted it.
 * - action stop: stop.lua (state "stopped"); {"action":"stop","crawlid","total_purged"}.
 * - stats: rolling counters over 900, 3600, 21600, 43200, 86400 and 604800 s plus "lifetime",
 *   read from the stats:{name} hashes; see README "Control plane" for the name mapping.
 * - domain: domain-update/-remove write domainconf (hash domain -> {"hits","window","scale"}),
 *   blacklist-update/-remove the blacklist set; each then publishes a JSON event on the channel
 *   events.
 * Each applied request adds 1 to the counter requests:{kind}:accepted, each refused one to
 * requests:{kind}:rejected (kind "unknown" when it could not be told), through stat.lua. */
#ifndef RC_CONTROL_H
#define RC_CONTROL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rc_redis;
struct rc_msg;
struct rc_msg_error;

/* Kafka topics are "<prefix>.<suffix>". */
#define RC_TOPIC_PREFIX_DEFAULT "redcrawl"
#define RC_TOPIC_INCOMING "incoming"          /* requests */
#define RC_TOPIC_FIREHOSE "outbound_firehose" /* every answer and notification */
#define RC_TOPIC_APP "outbound_"              /* + appid: the answers of one app (copies) */
/* Every stored page record and item, as in pages.jsonl and items.jsonl, key = its _id: produced
 * by workers run with --firehose (worker/sink_kafka.c). */
#define RC_TOPIC_CRAWLED "crawled_firehose"

/* Applies a validated request to Redis. On success *ret_answer is the malloc'd answer, or NULL
 * when the request gets none (a crawl without a uuid), and 0 is returned. On failure err says why
 * and *ret_answer is untouched: -EIO when the connection to Redis failed (an outage: retry),
 * -EPROTO when Redis refused a command (a script error: retrying will not help). Part of the
 * effect may be in Redis; applying the request again is safe (every effect is idempotent, only
 * the counters count twice). M borrowed. */
int rc_control_apply(struct rc_redis *r, const struct rc_msg *m, char **ret_answer, char *err, size_t cap);

/* Counts a refused request and returns its answer (rc_msg_error_answer) in *ret_answer. -EIO or
 * -EPROTO (as above) when the counter could not be written (*ret_answer untouched). */
int rc_control_reject(struct rc_redis *r, const struct rc_msg_error *e, char **ret_answer, char *err, size_t cap);

/* rc_msg_parse, then rc_control_apply or rc_control_reject: one raw message (DATA, LEN bytes,
 * borrowed, any content). Same results as those two. */
int rc_control_handle(struct rc_redis *r, const char *data, size_t len, char **ret_answer, char *err, size_t cap);

/* rc_control_handle on shard S of a keyspace of K shards (RS[0] .. RS[K-1], borrowed;
 * control_shards.c routes the requests): applied to RS[S], but a stats request is answered for
 * every shard (counters, workers, queues and dropped URLs summed; the scheduler and monitors
 * as shard 0 knows them), and the request is counted in requests:{kind}:* only when COUNT (one
 * sent to several shards is counted once, so the shards' counters add up). K = 1, S = 0 and
 * COUNT true is rc_control_handle. */
int rc_control_handle_shard(struct rc_redis *const *rs, int k, int s, bool count, const char *data, size_t len,
                            char **ret_answer, char *err, size_t cap);

/* The answer for a request given up on after -EPROTO: the request's uuid and appid (when it has
 * them) and "error": "internal error: the request could not be applied: WHY". malloc'd. */
char *rc_control_failure_answer(const char *data, size_t len, const char *why);

/* Called once per expired job with the notification (compact JSON, borrowed for the call) and
 * the job's appid ("" when unknown). */
typedef void (*rc_control_notify_fn)(const char *appid, const char *json, void *ud);

/* Expires the running jobs whose "expires" (unix seconds) is <= now_s: stop.lua with state
 * "expired" (purges their queues) and one notification each, Scrapy Cluster's
 * {"action":"expired","appid","spiderid","crawlid","total_expired","server_time"}. Looks at most
 * at 100 jobs per call. Returns the number of jobs expired, or -EIO / -EPROTO. */
int rc_control_expire_due(struct rc_redis *r, int64_t now_s, rc_control_notify_fn notify, void *ud, char *err,
                          size_t cap);

#endif
