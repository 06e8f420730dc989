/* metrics_http_none.c - redcrawl-worker-lean serves no metrics endpoint: it does not map
 * libmicrohttpd (`redcrawl crawl` never gives its workers a metrics port). --metrics-port fails
 * at start. */
#include <stdio.h>

#include "metrics_http.h"

rc_metrics_http *rc_metrics_http_start(struct rc_metrics *m, const char *addr, int port, char *err, size_t cap)
{
    snprintf(err, cap, "--metrics-port: redcrawl-worker-lean serves no metrics (run redcrawl-worker)");
    return NULL;
}

int rc_metrics_http_port(const rc_metrics_http *h)
{
    return -1;
}

void rc_metrics_http_stop(rc_metrics_http *h)
{
}
