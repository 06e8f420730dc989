/* kafka_conf.h - settings every Kafka client of redcrawl takes from its environment, so that
 * SASL and TLS need no code: REDCRAWL_KAFKA_CONFIG names a librdkafka properties file
 * (key=value lines, # comments: security.protocol, sasl.mechanisms, sasl.username,
 * ssl.ca.location, ...), and REDCRAWL_KAFKA_PASSWORD_FILE (its first line) or
 * REDCRAWL_KAFKA_PASSWORD gives sasl.password, kept out of files that are shared or logged.
 * Errors name the file, line and key, never a value. */
#ifndef RC_KAFKA_CONF_H
#define RC_KAFKA_CONF_H

#include <stddef.h>

struct rd_kafka_conf_s;

/* Applies the settings above to kc (borrowed). 0, or -EINVAL with a message in err. */
int rc_kafka_conf_from_env(struct rd_kafka_conf_s *kc, char *err, size_t cap);

#endif
