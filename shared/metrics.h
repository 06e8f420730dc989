/* metrics.h - Prometheus metrics: counters, gauges and histograms in a registry, rendered in
 * the text exposition format (version 0.0.4). shared/metrics_http.h serves a registry.
 *
 * Labels: a family has zero or more label names ("kind" or "kind,result"); an update names its
 * child by its label values joined the same way ("crawl,accepted"), so label values may not
 * contain commas. Children are made on first use, at most RC_METRICS_MAX_CHILDREN per family
 * (a further value is counted under the last child made, never dropped silently: label
 * values here come from small fixed sets: statuses, kinds, worker ids). Histograms take no
 * labels.
 *
 * Threads: families are declared by the owner before the registry is shared (before
 * rc_metrics_http_start); after that any thread may update and render. Every value and the list
 * of children live under the registry's one mutex: an update is lock, add, unlock (tens of
 * nanoseconds uncontended, against milliseconds of work per page), and a scrape renders one
 * consistent snapshot (a histogram's buckets, sum and count agree). */
#ifndef RC_METRICS_H
#define RC_METRICS_H

#include <stddef.h>

#define RC_METRICS_MAX_CHILDREN 256

typedef struct rc_metrics rc_metrics;
typedef struct rc_metric rc_metric; /* a family; owned by its registry */

rc_metrics *rc_metrics_new(void);
void rc_metrics_free(rc_metrics *m); /* accepts NULL; frees every family */

/* Declares a family. name and help are copied; labels is NULL (none) or comma-separated label
 * names. The returned pointer lives as long as the registry. NULL (and nothing declared) for
 * a name or label name outside [a-zA-Z_:][a-zA-Z0-9_:]* or a name declared twice. */
rc_metric *rc_metrics_counter(rc_metrics *m, const char *name, const char *help, const char *labels);
rc_metric *rc_metrics_gauge(rc_metrics *m, const char *name, const char *help, const char *labels);
/* bounds: n strictly increasing upper bounds (copied); +Inf is implicit. */
rc_metric *rc_metrics_histogram(rc_metrics *m, const char *name, const char *help, const double *bounds, size_t n);

/* values: NULL for a family without labels, else the label values comma-joined. Counters take
 * only v >= 0. x may be NULL (metrics off): then nothing happens. */
void rc_metric_add(rc_metric *x, const char *values, double v);
void rc_metric_set(rc_metric *x, const char *values, double v); /* gauges */
void rc_metric_observe(rc_metric *x, double v);                 /* histograms */
/* Gauges: forgets the children not set since the previous sweep (per-worker gauges whose
 * workers left). Set the live ones, then sweep: a scrape in between never misses a live one. */
void rc_metric_sweep(rc_metric *x);

/* The whole registry in the text format; a malloc'd string (the caller frees), its length in
 * *ret_len when not NULL. */
char *rc_metrics_render(rc_metrics *m, size_t *ret_len);

#endif
