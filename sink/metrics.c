/*
 * A small Prometheus registry: counters, gauges and histograms with fixed
 * label sets, rendered in the text exposition format 0.0.4.
 *
 * Updates are lock-free: counters and histogram buckets are atomic
 * integers, gauges and histogram sums are doubles kept as their bit
 * patterns in atomic 64-bit words (changed with compare-and-swap). The
 * registry's list is guarded by a mutex, taken by registration and
 * rendering only. A histogram keeps per-bucket counts and cumulates them
 * when rendered; its _count is the sum of the buckets read, so a scrape
 * is always self-consistent even while observations go on (the _sum may
 * lag or lead by the observations in between).
 */
#include "sink.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

typedef enum { M_COUNTER, M_GAUGE, M_HISTOGRAM } metric_type;

static const char *const type_names[] = {"counter", "gauge", "histogram"};

/* One series: a name and a label set. Handles point at the union member;
 * each handle type is the series itself. */
typedef struct series {
    struct series *next;
    metric_type type;
    const char *name, *help; /* borrowed */
    char *labels;            /* owned; "" when none */
    _Atomic uint64_t value;  /* counter: the count; gauge: the double's bits */
    /* histogram */
    double *bounds;
    size_t nbounds;
    _Atomic uint64_t *buckets; /* nbounds + 1: the last is (bounds[n-1], +Inf) */
    _Atomic uint64_t sum;      /* double bits */
} series;

struct sink_counter {
    series s;
};
struct sink_gauge {
    series s;
};
struct sink_histogram {
    series s;
};

struct sink_metrics {
    pthread_mutex_t mu;
    series *head, *tail; /* in registration order */
};

static uint64_t dbits(double v)
{
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    return u;
}

static double bitsd(uint64_t u)
{
    double v;
    memcpy(&v, &u, sizeof v);
    return v;
}

static void atomic_add_double(_Atomic uint64_t *a, double d)
{
    uint64_t old = atomic_load_explicit(a, memory_order_relaxed);
    while (!atomic_compare_exchange_weak_explicit(a, &old, dbits(bitsd(old) + d),
                                                  memory_order_relaxed, memory_order_relaxed)) {
    }
}

sink_metrics *sink_metrics_new(void)
{
    sink_metrics *m = core_xcalloc(1, sizeof *m);
    pthread_mutex_init(&m->mu, NULL);
    return m;
}

void sink_metrics_free(sink_metrics *m)
{
    if (!m)
        return;
    for (series *s = m->head, *next; s; s = next) {
        next = s->next;
        free(s->labels);
        free(s->bounds);
        free(s->buckets);
        free(s);
    }
    pthread_mutex_destroy(&m->mu);
    free(m);
}

static bool valid_name(const char *n)
{
    if (!n || !*n || (*n >= '0' && *n <= '9'))
        return false;
    for (; *n; n++)
        if (!((*n >= 'a' && *n <= 'z') || (*n >= 'A' && *n <= 'Z') || (*n >= '0' && *n <= '9') ||
              *n == '_' || *n == ':'))
            return false;
    return true;
}

/*
 * Finds or adds the series (name, labels). Names are string literals of
 * the program, so misuse (a bad name, one name with two types) is a bug
 * and aborts rather than returning an error nobody checks.
 */
static series *reg(sink_metrics *m, metric_type type, const char *name, const char *help,
                   const char *labels, const double *bounds, size_t nbounds)
{
    if (!valid_name(name))
        core_panic("metrics: invalid metric name '%s'", name ? name : "(null)");
    if (!labels)
        labels = "";
    pthread_mutex_lock(&m->mu);
    for (series *s = m->head; s; s = s->next) {
        if (strcmp(s->name, name) != 0)
            continue;
        if (s->type != type)
            core_panic("metrics: '%s' registered as a %s and as a %s", name, type_names[s->type],
                       type_names[type]);
        if (strcmp(s->labels, labels) == 0) {
            pthread_mutex_unlock(&m->mu);
            return s;
        }
    }
    /* Every handle type has the series as its only member, so one
     * allocation serves all three. */
    series *s = core_xcalloc(1, sizeof(struct sink_histogram));
    s->type = type;
    s->name = name;
    s->help = help ? help : "";
    s->labels = core_xstrdup(labels);
    if (type == M_HISTOGRAM) {
        for (size_t i = 0; i < nbounds; i++)
            if (!isfinite(bounds[i]) || (i && !(bounds[i] > bounds[i - 1])))
                core_panic("metrics: '%s': bucket bounds must be finite and increasing", name);
        s->nbounds = nbounds;
        s->bounds = core_xcalloc(nbounds ? nbounds : 1, sizeof *s->bounds);
        if (nbounds)
            memcpy(s->bounds, bounds, nbounds * sizeof *bounds);
        s->buckets = core_xcalloc(nbounds + 1, sizeof *s->buckets);
        atomic_init(&s->sum, dbits(0.0));
    }
    atomic_init(&s->value, type == M_GAUGE ? dbits(0.0) : 0);
    if (m->tail)
        m->tail->next = s;
    else
        m->head = s;
    m->tail = s;
    pthread_mutex_unlock(&m->mu);
    return s;
}

sink_counter *sink_metrics_counter(sink_metrics *m, const char *name, const char *help,
                                   const char *labels)
{
    return (sink_counter *)reg(m, M_COUNTER, name, help, labels, NULL, 0);
}

sink_gauge *sink_metrics_gauge(sink_metrics *m, const char *name, const char *help,
                               const char *labels)
{
    return (sink_gauge *)reg(m, M_GAUGE, name, help, labels, NULL, 0);
}

sink_histogram *sink_metrics_histogram(sink_metrics *m, const char *name, const char *help,
                                       const char *labels, const double *bounds, size_t nbounds)
{
    return (sink_histogram *)reg(m, M_HISTOGRAM, name, help, labels, bounds, nbounds);
}

void sink_counter_add(sink_counter *c, uint64_t n)
{
    atomic_fetch_add_explicit(&c->s.value, n, memory_order_relaxed);
}

uint64_t sink_counter_get(const sink_counter *c)
{
    return atomic_load_explicit(&((sink_counter *)c)->s.value, memory_order_relaxed);
}

void sink_gauge_set(sink_gauge *g, double v)
{
    atomic_store_explicit(&g->s.value, dbits(v), memory_order_relaxed);
}

void sink_gauge_add(sink_gauge *g, double d)
{
    atomic_add_double(&g->s.value, d);
}

void sink_histogram_observe(sink_histogram *h, double v)
{
    series *s = &h->s;
    /* The first bound >= v (le is inclusive); NaN falls through to +Inf. */
    size_t lo = 0, hi = s->nbounds;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v <= s->bounds[mid])
            hi = mid;
        else
            lo = mid + 1;
    }
    atomic_fetch_add_explicit(&s->buckets[lo], 1, memory_order_relaxed);
    atomic_add_double(&s->sum, v);
}

/* ------------------------------------------------------------------ */
/* Rendering                                                           */
/* ------------------------------------------------------------------ */

/* Go's ParseFloat reads these, and Prometheus writes them so. */
static void put_double(core_buf *out, double v)
{
    if (isnan(v))
        core_buf_puts(out, "NaN");
    else if (isinf(v))
        core_buf_puts(out, v > 0 ? "+Inf" : "-Inf");
    else
        core_buf_json_double(out, v);
}

/* HELP text escapes only backslash and newline. */
static void put_help(core_buf *out, const char *s)
{
    for (; *s; s++) {
        if (*s == '\\')
            core_buf_puts(out, "\\\\");
        else if (*s == '\n')
            core_buf_puts(out, "\\n");
        else
            core_buf_putc(out, *s);
    }
}

static void put_labels(core_buf *out, const char *labels, const char *le)
{
    if (!*labels && !le)
        return;
    core_buf_putc(out, '{');
    core_buf_puts(out, labels);
    if (le) {
        if (*labels)
            core_buf_putc(out, ',');
        core_buf_puts(out, "le=\"");
        core_buf_puts(out, le);
        core_buf_putc(out, '"');
    }
    core_buf_putc(out, '}');
}

static void render_series(const series *cs, core_buf *out)
{
    series *s = (series *)cs; /* atomics are read, never written */
    switch (s->type) {
    case M_COUNTER:
        core_buf_puts(out, s->name);
        put_labels(out, s->labels, NULL);
        core_buf_printf(out, " %llu\n",
                        (unsigned long long)atomic_load_explicit(&s->value, memory_order_relaxed));
        break;
    case M_GAUGE:
        core_buf_puts(out, s->name);
        put_labels(out, s->labels, NULL);
        core_buf_putc(out, ' ');
        put_double(out, bitsd(atomic_load_explicit(&s->value, memory_order_relaxed)));
        core_buf_putc(out, '\n');
        break;
    case M_HISTOGRAM: {
        uint64_t cum = 0;
        core_buf le = {0};
        for (size_t i = 0; i <= s->nbounds; i++) {
            cum += atomic_load_explicit(&s->buckets[i], memory_order_relaxed);
            core_buf_reset(&le);
            if (i < s->nbounds)
                put_double(&le, s->bounds[i]);
            else
                core_buf_puts(&le, "+Inf");
            core_buf_printf(out, "%s_bucket", s->name);
            put_labels(out, s->labels, le.data);
            core_buf_printf(out, " %llu\n", (unsigned long long)cum);
        }
        core_buf_free(&le);
        core_buf_printf(out, "%s_sum", s->name);
        put_labels(out, s->labels, NULL);
        core_buf_putc(out, ' ');
        put_double(out, bitsd(atomic_load_explicit(&s->sum, memory_order_relaxed)));
        core_buf_printf(out, "\n%s_count", s->name);
        put_labels(out, s->labels, NULL);
        core_buf_printf(out, " %llu\n", (unsigned long long)cum);
        break;
    }
    }
}

void sink_metrics_render(sink_metrics *m, core_buf *out)
{
    pthread_mutex_lock(&m->mu);
    /* Families in order of their first registration, each family's series
     * in registration order. Registries hold tens of series, so the
     * quadratic grouping costs nothing. */
    for (series *f = m->head; f; f = f->next) {
        bool first = true;
        for (series *p = m->head; p != f; p = p->next)
            if (strcmp(p->name, f->name) == 0) {
                first = false;
                break;
            }
        if (!first)
            continue;
        core_buf_printf(out, "# HELP %s ", f->name);
        put_help(out, f->help);
        core_buf_printf(out, "\n# TYPE %s %s\n", f->name, type_names[f->type]);
        for (series *s = f; s; s = s->next)
            if (strcmp(s->name, f->name) == 0)
                render_series(s, out);
    }
    pthread_mutex_unlock(&m->mu);
}
