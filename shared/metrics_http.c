/* metrics_http.c - see metrics_http.h. */
#include "metrics_http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "metrics.h"
#include "util.h"

struct rc_metrics_http {
    struct MHD_Daemon *d;
    struct rc_metrics *m;
    int port;
};

static enum MHD_Result reply(struct MHD_Connection *c, unsigned code, char *body, size_t len, const char *type)
{
    struct MHD_Response *r = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
    if (!r) {
        free(body);
        return MHD_NO;
    }
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
    enum MHD_Result ret = MHD_queue_response(c, code, r);
    MHD_destroy_response(r);
    return ret;
}

/* Runs on microhttpd's thread. */
static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                                  const char *version, const char *upload_data, size_t *upload_data_size,
                                  void **con_cls)
{
    rc_metrics_http *h = cls;
    if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
        return reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, rc_xstrdup("only GET\n"), 9, "text/plain");
    if (strcmp(url, "/metrics") != 0)
        return reply(c, MHD_HTTP_NOT_FOUND, rc_xstrdup("see /metrics\n"), 13, "text/plain");
    size_t len = 0;
    char *body = rc_metrics_render(h->m, &len);
    return reply(c, MHD_HTTP_OK, body, len, "text/plain; version=0.0.4; charset=utf-8");
}

rc_metrics_http *rc_metrics_http_start(struct rc_metrics *m, const char *addr, int port, char *err, size_t cap)
{
    struct sockaddr_storage ss;
    memset(&ss, 0, sizeof ss);
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD;
    struct sockaddr_in *v4 = (struct sockaddr_in *)&ss;
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&ss;
    if (port < 0 || port > 65535) {
        snprintf(err, cap, "metrics port %d is not from 0 to 65535", port);
        return NULL;
    }
    if (inet_pton(AF_INET, addr, &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons((uint16_t)port);
    } else if (inet_pton(AF_INET6, addr, &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons((uint16_t)port);
        flags |= MHD_USE_IPv6;
    } else {
        snprintf(err, cap, "metrics address '%s' is not an IPv4 or IPv6 address", addr);
        return NULL;
    }
    rc_metrics_http *h = rc_xcalloc(1, sizeof *h);
    h->m = m;
    h->d = MHD_start_daemon(flags, (uint16_t)port, NULL, NULL, on_request, h, MHD_OPTION_SOCK_ADDR,
                            (struct sockaddr *)&ss, MHD_OPTION_CONNECTION_LIMIT, (unsigned)16,
                            MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)10, MHD_OPTION_END);
    if (!h->d) {
        snprintf(err, cap, "cannot serve metrics on %s port %d: %s", addr, port,
                 errno ? strerror(errno) : "libmicrohttpd failed");
        free(h);
        return NULL;
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(h->d, MHD_DAEMON_INFO_BIND_PORT);
    h->port = info ? (int)info->port : port;
    return h;
}

int rc_metrics_http_port(const rc_metrics_http *h)
{
    return h->port;
}

void rc_metrics_http_stop(rc_metrics_http *h)
{
    if (!h)
        return;
    MHD_stop_daemon(h->d);
    free(h);
}
