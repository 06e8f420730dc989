/* test_metrics.c - the registry renders the text exposition format exactly (labels, escaping,
 * cumulative histogram buckets), refuses bad names, and the HTTP endpoint serves it. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "metrics.h"
#include "metrics_http.h"
#include "rc_test.h"

static void test_render(void)
{
    rc_metrics *m = rc_metrics_new();
    rc_metric *pages = rc_metrics_counter(m, "t_pages_total", "Pages.", "status");
    rc_metric *req = rc_metrics_counter(m, "t_requests_total", "Requests by kind\\result.", "kind,result");
    rc_metric *up = rc_metrics_gauge(m, "t_up", "Up.\nTwo lines.", NULL);
    rc_metric *idle = rc_metrics_counter(m, "t_idle_total", "Never touched.", NULL);
    const double bounds[] = {0.1, 0.5, 1};
    rc_metric *lat = rc_metrics_histogram(m, "t_seconds", "Latency.", bounds, 3);
    RC_CHECK(pages && req && up && idle && lat);
    rc_metric_add(pages, "200", 2);
    rc_metric_add(pages, "404", 1);
    rc_metric_add(pages, "200", 1);
    rc_metric_add(pages, "200", -5); /* counters never go down */
    rc_metric_add(req, "crawl,accepted", 1);
    rc_metric_add(req, "x\"y,bad\\", 1);
    rc_metric_set(up, NULL, 1.5);
    rc_metric_observe(lat, 0.05);
    rc_metric_observe(lat, 0.1); /* le is inclusive */
    rc_metric_observe(lat, 0.7);
    rc_metric_observe(lat, 3);
    rc_metric_add(NULL, NULL, 1); /* metrics off: nothing */
    size_t len = 0;
    char *text = rc_metrics_render(m, &len);
    const char *want = "# HELP t_pages_total Pages.\n"
                       "# TYPE t_pages_total counter\n"
                       "t_pages_total{status=\"200\"} 3\n"
                       "t_pages_total{status=\"404\"} 1\n"
                       "# HELP t_requests_total Requests by kind\\\\result.\n"
                       "# TYPE t_requests_total counter\n"
                       "t_requests_total{kind=\"crawl\",result=\"accepted\"} 1\n"
                       "t_requests_total{kind=\"x\\\"y\",result=\"bad\\\\\"} 1\n"
                       "# HELP t_up Up.\\nTwo lines.\n"
                       "# TYPE t_up gauge\n"
                       "t_up 1.5\n"
                       "# HELP t_idle_total Never touched.\n"
                       "# TYPE t_idle_total counter\n"
                       "t_idle_total 0\n"
                       "# HELP t_seconds Latency.\n"
                       "# TYPE t_seconds histogram\n"
                       "t_seconds_bucket{le=\"0.1\"} 2\n"
                       "t_seconds_bucket{le=\"0.5\"} 2\n"
                       "t_seconds_bucket{le=\"1\"} 3\n"
                       "t_seconds_bucket{le=\"+Inf\"} 4\n"
                       "t_seconds_sum 3.85\n"
                       "t_seconds_count 4\n";
    RC_CHECK_STR_EQ(text, want);
    RC_CHECK_INT_EQ(len, strlen(want));
    free(text);

    rc_metrics_free(m);
}

static void test_sweep(void)
{
    rc_metrics *m = rc_metrics_new();
    rc_metric *q = rc_metrics_gauge(m, "q", "Queued.", "worker");
    rc_metric_set(q, "a", 1);
    rc_metric_set(q, "b", 2);
    rc_metric_sweep(q); /* both set in this generation: kept */
    rc_metric_set(q, "b", 3);
    rc_metric_set(q, "c", 4);
    rc_metric_sweep(q); /* a was not set again: gone */
    char *text = rc_metrics_render(m, NULL);
    RC_CHECK_STR_EQ(text, "# HELP q Queued.\n# TYPE q gauge\nq{worker=\"b\"} 3\nq{worker=\"c\"} 4\n");
    free(text);
    rc_metric_sweep(q);
    text = rc_metrics_render(m, NULL);
    RC_CHECK_STR_EQ(text, "# HELP q Queued.\n# TYPE q gauge\n");
    free(text);
    rc_metrics_free(m);
}

static void test_refusals(void)
{
    rc_metrics *m = rc_metrics_new();
    const double unsorted[] = {1, 0.5};
    RC_CHECK(rc_metrics_counter(m, "ok_total", "", NULL) != NULL);
    RC_CHECK(rc_metrics_counter(m, "ok_total", "", NULL) == NULL); /* twice */
    RC_CHECK(rc_metrics_counter(m, "9lives", "", NULL) == NULL);
    RC_CHECK(rc_metrics_counter(m, "has-dash", "", NULL) == NULL);
    RC_CHECK(rc_metrics_gauge(m, "g", "", "ok,bad-label") == NULL);
    RC_CHECK(rc_metrics_histogram(m, "h", "", unsorted, 2) == NULL);
    rc_metric *c = rc_metrics_counter(m, "many_total", "", "k");
    char v[16];
    for (int i = 0; i < RC_METRICS_MAX_CHILDREN + 10; i++) {
        snprintf(v, sizeof v, "%d", i);
        rc_metric_add(c, v, 1);
    }
    char *text = rc_metrics_render(m, NULL);
    /* The overflow is counted under the last child, not lost. */
    snprintf(v, sizeof v, "%d", RC_METRICS_MAX_CHILDREN - 1);
    char line[64];
    snprintf(line, sizeof line, "many_total{k=\"%s\"} 11\n", v);
    RC_CHECK(strstr(text, line) != NULL);
    free(text);
    rc_metrics_free(m);
}

static char *http_get(int port, const char *path)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
        close(fd);
        return NULL;
    }
    char req[128];
    int n = snprintf(req, sizeof req, "GET %s HTTP/1.0\r\nHost: x\r\n\r\n", path);
    if (write(fd, req, (size_t)n) != n) {
        close(fd);
        return NULL;
    }
    size_t cap = 1 << 16, len = 0;
    char *out = calloc(1, cap + 1);
    ssize_t r;
    while (len < cap && (r = read(fd, out + len, cap - len)) > 0)
        len += (size_t)r;
    close(fd);
    return out;
}

static void test_http(void)
{
    rc_metrics *m = rc_metrics_new();
    rc_metric *c = rc_metrics_counter(m, "served_total", "A counter.", NULL);
    rc_metric_add(c, NULL, 7);
    char err[256] = "";
    RC_CHECK(rc_metrics_http_start(m, "not-an-address", 0, err, sizeof err) == NULL);
    RC_CHECK(strstr(err, "not-an-address") != NULL);
    rc_metrics_http *h = rc_metrics_http_start(m, "127.0.0.1", 0, err, sizeof err);
    RC_CHECK(h != NULL);
    if (!h) {
        fprintf(stderr, "start: %s\n", err);
        rc_metrics_free(m);
        return;
    }
    RC_CHECK(rc_metrics_http_port(h) > 0);
    char *resp = http_get(rc_metrics_http_port(h), "/metrics");
    RC_CHECK(resp && strncmp(resp, "HTTP/1.", 7) == 0 && strstr(resp, " 200 ") != NULL);
    RC_CHECK(resp && strstr(resp, "text/plain; version=0.0.4") != NULL);
    RC_CHECK(resp &&
             strstr(resp, "\r\n\r\n# HELP served_total A counter.\n# TYPE served_total counter\nserved_total 7\n"));
    free(resp);
    resp = http_get(rc_metrics_http_port(h), "/other");
    RC_CHECK(resp && strstr(resp, " 404 ") != NULL);
    free(resp);
    rc_metrics_http_stop(h);
    rc_metrics_free(m);
}

int main(void)
{
    test_render();
    test_sweep();
    test_refusals();
    test_http();
    return rc_test_done("test_metrics");
}
