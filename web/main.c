/* redcrawl-web: the REST API and the dashboard over one Redis (see rest.h). A process of its
 * own rather than part of redcrawl-monitor: it needs no Kafka (a fleet run without Kafka gets
 * it too), it can be restarted or exposed without touching the control plane's consumer, and
 * `redcrawl crawl` starts it beside its scheduler. The main thread waits for a signal. */
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "log.h"
#include "redis.h"
#include "rest.h"
#include "shard.h"

static const rc_conf_row rows[] = {
    {"redis", RC_CONF_STR, offsetof(rc_web_conf, redis), NULL, 0, 0, "REDCRAWL_REDIS",
     "Redis URL (redis://HOST:PORT, rediss://HOST:PORT for TLS, or unix:///PATH)"},
    {"prefix", RC_CONF_STR, offsetof(rc_web_conf, prefix), RC_DEFAULT_PREFIX, 0, 0, "REDCRAWL_PREFIX",
     "Redis key prefix"},
    {"shards", RC_CONF_INT, offsetof(rc_web_conf, shards), "1", 1, RC_SHARDS_MAX, "REDCRAWL_SHARDS",
     "shards of the keyspace: requests routed and the status merged over every one"},
    {"addr", RC_CONF_STR, offsetof(rc_web_conf, addr), "127.0.0.1", 0, 0, "REDCRAWL_WEB_ADDR",
     "address to listen on (not loopback: --token-file is required)"},
    {"port", RC_CONF_INT, offsetof(rc_web_conf, port), "8710", 0, 65535, "REDCRAWL_WEB_PORT",
     "port (0 = a free one, printed)"},
    {"token-file", RC_CONF_STR, offsetof(rc_web_conf, token_file), NULL, 0, 0, "REDCRAWL_WEB_TOKEN_FILE",
     "file whose first line is the bearer token every /api call must send"},
    {"log-level", RC_CONF_STR, offsetof(rc_web_conf, log_level), "info", 0, 0, "REDCRAWL_LOG_LEVEL",
     "debug|info|warn|error"},
};
#define NROWS (sizeof rows / sizeof rows[0])

int main(int argc, char **argv)
{
    rc_web_conf conf;
    char err[512];
    int optind = 0, rc = 2;
    rc_web *w = NULL;
    memset(&conf, 0, sizeof conf);
    if (rc_conf_cmdline(rows, NROWS, &conf, argc, argv, "redcrawl-web",
                        "usage: redcrawl-web [options]\n\nThe REST API (the control requests of Kafka over HTTP, "
                        "deploy/openapi.yaml) and the dashboard.\n\n",
                        &optind, &rc))
        goto out;
    if (optind < argc) {
        fprintf(stderr, "redcrawl-web: unexpected argument '%s' (see --help)\n", argv[optind]);
        goto out;
    }
    if (!conf.redis) {
        fprintf(stderr, "redcrawl-web: no Redis: pass --redis URL or set REDCRAWL_REDIS\n");
        goto out;
    }
    if (rc_log_set_level(conf.log_level) < 0) {
        fprintf(stderr, "redcrawl-web: --log-level: '%s' is not debug, info, warn or error\n", conf.log_level);
        goto out;
    }
    /* Block the signals before microhttpd's thread starts, so that only sigwait takes them. */
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    signal(SIGPIPE, SIG_IGN);
    if (!(w = rc_web_start(&conf, err, sizeof err))) {
        fprintf(stderr, "redcrawl-web: %s\n", err);
        rc = 1;
        goto out;
    }
    const char *host = conf.addr;
    int v6 = strchr(host, ':') != NULL;
    printf("redcrawl-web: http://%s%s%s:%d/\n", v6 ? "[" : "", host, v6 ? "]" : "", rc_web_port(w));
    fflush(stdout);
    int sig;
    sigwait(&set, &sig);
    rc_info("web", "signal %d: stopping", sig);
    rc = 0;
out:
    rc_web_stop(w);
    rc_conf_release(rows, NROWS, &conf);
    return rc;
}
