/* kafka_conf.c - see kafka_conf.h. */
#include "kafka_conf.h"

#include <errno.h>
#include <librdkafka/rdkafka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static char *trim(char *s)
{
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r' || s[n - 1] == '\n'))
        s[--n] = '\0';
    return s;
}

static int apply_file(rd_kafka_conf_t *kc, const char *path, char *err, size_t cap)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, cap, "REDCRAWL_KAFKA_CONFIG %s: %s", path, strerror(errno));
        return -EINVAL;
    }
    char line[2048], kerr[256];
    int lineno = 0, r = 0;
    while (r == 0 && fgets(line, sizeof line, f)) {
        lineno++;
        char *l = trim(line), *eq = strchr(l, '=');
        if (!*l || *l == '#')
            continue;
        if (!eq) {
            snprintf(err, cap, "REDCRAWL_KAFKA_CONFIG %s:%d: want key=value", path, lineno);
            r = -EINVAL;
            break;
        }
        *eq = '\0';
        char *key = trim(l), *val = trim(eq + 1);
        if (rd_kafka_conf_set(kc, key, val, kerr, sizeof kerr) != RD_KAFKA_CONF_OK) {
            snprintf(err, cap, "REDCRAWL_KAFKA_CONFIG %s:%d: %s: %s", path, lineno, key, kerr);
            r = -EINVAL;
        }
    }
    fclose(f);
    return r;
}

int rc_kafka_conf_from_env(rd_kafka_conf_t *kc, char *err, size_t cap)
{
    const char *path = getenv("REDCRAWL_KAFKA_CONFIG");
    if (path && *path && apply_file(kc, path, err, cap) < 0)
        return -EINVAL;
    char *pw = rc_secret_env("REDCRAWL_KAFKA_PASSWORD"), kerr[256];
    int r = 0;
    if (pw && rd_kafka_conf_set(kc, "sasl.password", pw, kerr, sizeof kerr) != RD_KAFKA_CONF_OK) {
        snprintf(err, cap, "REDCRAWL_KAFKA_PASSWORD: %s", kerr);
        r = -EINVAL;
    }
    free(pw);
    return r;
}
