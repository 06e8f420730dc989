/* sink_kafka.h - the crawled firehose: every stored page record and item also goes to the Kafka
 * topic <prefix>.crawled_firehose (key = the document's _id), for consumers who want a stream
 * rather than MongoDB. Same contract as the MongoDB sink: a write-group's callback runs on the
 * loop thread once the broker acknowledged every message of it (acks=all, idempotent producer,
 * no message timeout: librdkafka retries through a broker outage), and only then does the worker
 * ack the page to the frontier. */
#ifndef RC_SINK_KAFKA_H
#define RC_SINK_KAFKA_H

#include <stddef.h>

#include "store.h"

struct ev_loop;

typedef struct rc_kafka_sink rc_kafka_sink;

typedef struct rc_kafka_doc {
    const char *key;  /* the document's _id */
    const char *json; /* one JSON object (copied) */
    size_t len;
} rc_kafka_doc;

/* brokers: "host:port,..."; topic: the full topic name. NULL with err on bad settings. */
rc_kafka_sink *rc_kafka_sink_new(struct ev_loop *loop, const char *brokers, const char *topic, char *err, size_t cap);
/* Produces n documents; done(ud, status, err) runs once on the loop thread: 0 when all were
 * acknowledged, negative when one failed for good (not acknowledged: do not ack the page).
 * -EAGAIN (done not called) when the producer's queue is full: try later. */
int rc_kafka_sink_put(rc_kafka_sink *s, const rc_kafka_doc *docs, size_t n,
                      void (*done)(void *ud, int status, const char *err), void *ud);
size_t rc_kafka_sink_pending(const rc_kafka_sink *s);
/* Flushes (bounded: 10 s), then calls the callbacks of undelivered groups with -ECANCELED. */
void rc_kafka_sink_free(rc_kafka_sink *s);
/* The sink as an rc_store (owns s); the worker stops taking pages past 50,000 pending. */
rc_store rc_kafka_sink_store(rc_kafka_sink *s);

#endif
