/* sink_none.c - the MongoDB and Kafka sinks of redcrawl-worker-lean: none. `redcrawl crawl`
 * runs that build when it stores to JSON Lines only, so that each of its workers maps neither
 * libmongoc (with libbson, libmongocrypt, snappy, ICU's tables) nor librdkafka: their pages and
 * relocations were ~1 MB of each worker's PSS at the peak of the bench's 1,000 x 20, for
 * libraries that process never called. --mongo and --firehose fail at start instead. */
#include <stdio.h>
#include <string.h>

#include "sink_kafka.h"
#include "sink_mongo.h"

#define LEAN_WHY "redcrawl-worker-lean has no MongoDB or Kafka sink (run redcrawl-worker)"

void rc_mongo_opts_init(rc_mongo_opts *o)
{
    memset(o, 0, sizeof *o);
}

rc_mongo_sink *rc_mongo_sink_new(struct ev_loop *loop, const rc_mongo_opts *o, char *err, size_t cap)
{
    snprintf(err, cap, "--mongo: %s", LEAN_WHY);
    return NULL;
}

rc_store rc_mongo_sink_store(rc_mongo_sink *s)
{
    return (rc_store){0};
}

rc_kafka_sink *rc_kafka_sink_new(struct ev_loop *loop, const char *brokers, const char *topic, char *err, size_t cap)
{
    snprintf(err, cap, "--firehose: %s", LEAN_WHY);
    return NULL;
}

rc_store rc_kafka_sink_store(rc_kafka_sink *s)
{
    return (rc_store){0};
}
