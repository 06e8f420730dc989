/* metrics.c - see metrics.h. */
#include "metrics.h"

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

typedef enum kind { COUNTER, GAUGE, HISTOGRAM } kind;

typedef struct child {
    char *values; /* comma-joined label values, "" for none */
    double v;
    unsigned gen; /* the family's generation when last updated (rc_metric_sweep) */
} child;

struct rc_metric {
    rc_metrics *reg;
    kind kind;
    char *name, *help;
    char **labels; /* label names */
    size_t n_labels;
    child *children;
    size_t n_children;
    double *bounds;    /* histogram */
    uint64_t *buckets; /* per bucket (not cumulative), n_bounds + 1 (the last is +Inf) */
    size_t n_bounds;
    double sum;
    uint64_t count;
    unsigned gen;
    rc_metric *next;
};

struct rc_metrics {
    pthread_mutex_t mu;     /* guards every value and children list (see metrics.h) */
    rc_metric *head, *tail; /* declaration order, which is rendering order */
};

rc_metrics *rc_metrics_new(void)
{
    rc_metrics *m = rc_xcalloc(1, sizeof *m);
    pthread_mutex_init(&m->mu, NULL);
    return m;
}

static void metric_free(rc_metric *x)
{
    free(x->name);
    free(x->help);
    for (size_t i = 0; i < x->n_labels; i++)
        free(x->labels[i]);
    free(x->labels);
    for (size_t i = 0; i < x->n_children; i++)
        free(x->children[i].values);
    free(x->children);
    free(x->bounds);
    free(x->buckets);
    free(x);
}

void rc_metrics_free(rc_metrics *m)
{
    if (!m)
        return;
    for (rc_metric *x = m->head, *next; x; x = next) {
        next = x->next;
        metric_free(x);
    }
    pthread_mutex_destroy(&m->mu);
    free(m);
}

static int valid_name(const char *s, size_t n)
{
    if (n == 0)
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        int ok =
            (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':' || (i > 0 && c >= '0' && c <= '9');
        if (!ok)
            return 0;
    }
    return 1;
}

static rc_metric *declare(rc_metrics *m, kind k, const char *name, const char *help, const char *labels)
{
    if (!valid_name(name, strlen(name)))
        return NULL;
    for (rc_metric *x = m->head; x; x = x->next)
        if (strcmp(x->name, name) == 0)
            return NULL;
    rc_metric *x = rc_xcalloc(1, sizeof *x);
    x->reg = m;
    x->kind = k;
    x->name = rc_xstrdup(name);
    x->help = rc_xstrdup(help ? help : "");
    for (const char *p = labels; p && *p;) {
        const char *comma = strchr(p, ',');
        size_t n = comma ? (size_t)(comma - p) : strlen(p);
        x->labels = rc_xrealloc(x->labels, (x->n_labels + 1) * sizeof(char *));
        x->labels[x->n_labels++] = rc_xstrndup(p, n);
        if (!valid_name(p, n)) {
            metric_free(x);
            return NULL;
        }
        p = comma ? comma + 1 : p + n;
    }
    pthread_mutex_lock(&m->mu);
    if (m->tail)
        m->tail->next = x;
    else
        m->head = x;
    m->tail = x;
    pthread_mutex_unlock(&m->mu);
    return x;
}

rc_metric *rc_metrics_counter(rc_metrics *m, const char *name, const char *help, const char *labels)
{
    return declare(m, COUNTER, name, help, labels);
}

rc_metric *rc_metrics_gauge(rc_metrics *m, const char *name, const char *help, const char *labels)
{
    return declare(m, GAUGE, name, help, labels);
}

rc_metric *rc_metrics_histogram(rc_metrics *m, const char *name, const char *help, const double *bounds, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(bounds[i]) || (i > 0 && bounds[i] <= bounds[i - 1]))
            return NULL;
    rc_metric *x = declare(m, HISTOGRAM, name, help, NULL);
    if (!x)
        return NULL;
    x->bounds = rc_xcalloc(n ? n : 1, sizeof(double));
    if (n)
        memcpy(x->bounds, bounds, n * sizeof(double));
    x->n_bounds = n;
    x->buckets = rc_xcalloc(n + 1, sizeof(uint64_t));
    return x;
}

/* The child for these label values, made on first use. Under the lock. */
static child *find_child(rc_metric *x, const char *values)
{
    if (!values)
        values = "";
    for (size_t i = 0; i < x->n_children; i++)
        if (strcmp(x->children[i].values, values) == 0)
            return &x->children[i];
    if (x->n_children == RC_METRICS_MAX_CHILDREN)
        return &x->children[x->n_children - 1];
    x->children = rc_xrealloc(x->children, (x->n_children + 1) * sizeof(child));
    child *c = &x->children[x->n_children++];
    c->values = rc_xstrdup(values);
    c->v = 0;
    c->gen = x->gen;
    return c;
}

void rc_metric_add(rc_metric *x, const char *values, double v)
{
    if (!x || x->kind == HISTOGRAM || (x->kind == COUNTER && !(v >= 0)))
        return;
    pthread_mutex_lock(&x->reg->mu);
    child *c = find_child(x, values);
    c->v += v;
    c->gen = x->gen;
    pthread_mutex_unlock(&x->reg->mu);
}

void rc_metric_set(rc_metric *x, const char *values, double v)
{
    if (!x || x->kind != GAUGE)
        return;
    pthread_mutex_lock(&x->reg->mu);
    child *c = find_child(x, values);
    c->v = v;
    c->gen = x->gen;
    pthread_mutex_unlock(&x->reg->mu);
}

void rc_metric_observe(rc_metric *x, double v)
{
    if (!x || x->kind != HISTOGRAM || isnan(v))
        return;
    size_t i = 0;
    while (i < x->n_bounds && v > x->bounds[i])
        i++;
    pthread_mutex_lock(&x->reg->mu);
    x->buckets[i]++;
    x->sum += v;
    x->count++;
    pthread_mutex_unlock(&x->reg->mu);
}

void rc_metric_sweep(rc_metric *x)
{
    if (!x || x->kind != GAUGE)
        return;
    pthread_mutex_lock(&x->reg->mu);
    size_t kept = 0;
    for (size_t i = 0; i < x->n_children; i++) {
        if (x->children[i].gen == x->gen)
            x->children[kept++] = x->children[i];
        else
            free(x->children[i].values);
    }
    x->n_children = kept;
    x->gen++;
    pthread_mutex_unlock(&x->reg->mu);
}

/* ---------- rendering ---------- */

/* The shortest %g that reads back as v (0.1, not 0.10000000000000001). */
static void fmt_double(char *buf, size_t cap, double v)
{
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(buf, cap, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            return;
    }
}

static void put_number(rc_buf *b, double v)
{
    if (isinf(v))
        rc_buf_puts(b, v > 0 ? "+Inf" : "-Inf");
    else if (isnan(v))
        rc_buf_puts(b, "NaN");
    else if (v == (double)(int64_t)v && fabs(v) < 1e15)
        rc_buf_printf(b, "%lld", (long long)v);
    else {
        char num[40];
        fmt_double(num, sizeof num, v);
        rc_buf_puts(b, num);
    }
}

/* HELP escapes backslash and newline; label values also the double quote. */
static void put_escaped(rc_buf *b, const char *s, size_t n, int quotes)
{
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == '\\')
            rc_buf_puts(b, "\\\\");
        else if (c == '\n')
            rc_buf_puts(b, "\\n");
        else if (c == '"' && quotes)
            rc_buf_puts(b, "\\\"");
        else
            rc_buf_putc(b, c);
    }
}

/* {a="x",b="y"} from the comma-joined values; a missing value is "". extra (le) goes last. */
static void put_labels(rc_buf *b, const rc_metric *x, const char *values, const char *extra_name,
                       const char *extra_value)
{
    if (x->n_labels == 0 && !extra_name)
        return;
    rc_buf_putc(b, '{');
    const char *p = values ? values : "";
    for (size_t i = 0; i < x->n_labels; i++) {
        const char *comma = strchr(p, ',');
        size_t n = comma && i + 1 < x->n_labels ? (size_t)(comma - p) : strlen(p);
        rc_buf_printf(b, "%s%s=\"", i ? "," : "", x->labels[i]);
        put_escaped(b, p, n, 1);
        rc_buf_putc(b, '"');
        p += n;
        if (*p == ',')
            p++;
    }
    if (extra_name)
        rc_buf_printf(b, "%s%s=\"%s\"", x->n_labels ? "," : "", extra_name, extra_value);
    rc_buf_putc(b, '}');
}

static void render_histogram(rc_buf *b, const rc_metric *x)
{
    uint64_t cum = 0;
    for (size_t i = 0; i <= x->n_bounds; i++) {
        char le[48];
        cum += x->buckets[i];
        if (i < x->n_bounds)
            fmt_double(le, sizeof le, x->bounds[i]);
        else
            snprintf(le, sizeof le, "+Inf");
        rc_buf_printf(b, "%s_bucket", x->name);
        put_labels(b, x, NULL, "le", le);
        rc_buf_printf(b, " %llu\n", (unsigned long long)cum);
    }
    rc_buf_printf(b, "%s_sum ", x->name);
    put_number(b, x->sum);
    rc_buf_printf(b, "\n%s_count %llu\n", x->name, (unsigned long long)x->count);
}

char *rc_metrics_render(rc_metrics *m, size_t *ret_len)
{
    static const char *const type_names[] = {"counter", "gauge", "histogram"};
    rc_buf b;
    rc_buf_init(&b);
    pthread_mutex_lock(&m->mu);
    for (const rc_metric *x = m->head; x; x = x->next) {
        rc_buf_printf(&b, "# HELP %s ", x->name);
        put_escaped(&b, x->help, strlen(x->help), 0);
        rc_buf_printf(&b, "\n# TYPE %s %s\n", x->name, type_names[x->kind]);
        if (x->kind == HISTOGRAM) {
            render_histogram(&b, x);
            continue;
        }
        /* A family without labels always shows its one sample, even before the first update. */
        if (x->n_labels == 0 && x->n_children == 0) {
            rc_buf_printf(&b, "%s 0\n", x->name);
            continue;
        }
        for (size_t i = 0; i < x->n_children; i++) {
            rc_buf_puts(&b, x->name);
            put_labels(&b, x, x->children[i].values, NULL, NULL);
            rc_buf_putc(&b, ' ');
            put_number(&b, x->children[i].v);
            rc_buf_putc(&b, '\n');
        }
    }
    pthread_mutex_unlock(&m->mu);
    if (ret_len)
        *ret_len = b.len;
    return rc_buf_steal(&b);
}
