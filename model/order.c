/*
 * The order of a case's events (model.h): event time, with the causal
 * fix-ups that clocks which disagree need. The daemon and the offline
 * commands both order through here, so that what is mined and evaluated
 * is ordered as what is served.
 *
 * A span is placed inside its parent the way trace viewers correct clock
 * skew (Jaeger's adjuster): a child that fits in its parent's interval on
 * its parent's clock (the parent's shift applied: most children run in the
 * same process) or on its own clock keeps it; one that fits in neither is
 * centred in its parent when both durations are known, else moved to its
 * parent's start when it would begin before it. Whatever a span was moved
 * by, its log records and span events move by too (they were stamped by
 * the same clock), and none of them is placed before its span's start.
 */
#include "model.h"

#include <stdlib.h>
#include <string.h>

#define NONE SIZE_MAX
/* Up to this many events, a span is found by a scan: cheaper than a hash
 * table for the daemon's few events per case. */
#define SCAN_MAX 64

static int64_t sat_add(int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_add_overflow(a, b, &r))
        return b > 0 ? INT64_MAX : INT64_MIN;
    return r;
}

static int64_t sat_sub(int64_t a, int64_t b)
{
    int64_t r;
    if (__builtin_sub_overflow(a, b, &r))
        return b < 0 ? INT64_MAX : INT64_MIN;
    return r;
}

uint64_t model_order_span_id(const char *trace, const char *span)
{
    if (!span || !*span)
        return 0;
    uint64_t seed = trace ? core_hash64(trace, strlen(trace), 0x7370616eull) : 0x7370616eull;
    uint64_t h = core_hash64(span, strlen(span), seed);
    return h ? h : 1;
}

void model_order_event(const ingest_event *ev, uint64_t tie, model_order_ev *out)
{
    const char *trace = NULL, *span = NULL, *parent = NULL;
    for (uint32_t i = 0; i < ev->nattrs; i++) {
        const char *k = ev->attrs[i].key;
        if (k[0] != 't' && k[0] != 's' && k[0] != 'p')
            continue;
        if (!trace && strcmp(k, "trace_id") == 0)
            trace = ev->attrs[i].val;
        else if (!span && strcmp(k, "span_id") == 0)
            span = ev->attrs[i].val;
        else if (!parent && strcmp(k, "parent_span_id") == 0)
            parent = ev->attrs[i].val;
    }
    *out = (model_order_ev){.time = ev->time_ns, .dur = -1, .tie = tie};
    out->is_span = ev->kind == INGEST_SPAN;
    out->span = model_order_span_id(trace, span);
    if (out->is_span) {
        out->parent = model_order_span_id(trace, parent);
        if (ev->end_ns > 0 && ev->time_ns != INGEST_NO_TIME && ev->end_ns >= ev->time_ns)
            out->dur = ev->end_ns - ev->time_ns;
    }
}

typedef struct ord {
    model_order_ev *ev;
    size_t n;
    core_map spans; /* span id -> index (more than SCAN_MAX events) */
} ord;

/* The span with this id, other than self; NONE when the case has none. */
static size_t find_span(const ord *o, uint64_t id, size_t self)
{
    if (!id)
        return NONE;
    if (o->n <= SCAN_MAX) {
        for (size_t i = 0; i < o->n; i++)
            if (o->ev[i].is_span && o->ev[i].span == id && i != self)
                return i;
        return NONE;
    }
    const uint64_t *v = core_map_get(&o->spans, id == UINT64_MAX ? UINT64_MAX - 1 : id);
    return v && *v != self ? (size_t)*v : NONE;
}

/* What an event is placed by: a span's parent, the span of another. */
static size_t anchor_of(const ord *o, size_t i)
{
    const model_order_ev *e = &o->ev[i];
    return find_span(o, e->is_span ? e->parent : e->span, i);
}

/* Key, shift and depth of e, placed by p (NULL: by its own time). */
static void place(model_order_ev *e, const model_order_ev *p)
{
    if (!p) {
        e->key = e->time;
        e->shift = 0;
        e->depth = 0;
        return;
    }
    e->depth = p->depth < UINT32_MAX ? p->depth + 1 : p->depth;
    if (e->time == INGEST_NO_TIME) {
        /* Right after what it belongs to (the depth breaks the tie). */
        e->key = p->key;
        e->shift = p->shift;
        return;
    }
    if (!e->is_span) {
        e->shift = p->shift;
        e->key = sat_add(e->time, p->shift);
        if (e->key < p->key)
            e->key = p->key;
        return;
    }
    int64_t ps = p->key, pe = p->dur >= 0 ? sat_add(ps, p->dur) : INT64_MAX;
    int64_t on_parent = sat_add(e->time, p->shift);
#define FITS(st) ((st) >= ps && (st) <= pe && (e->dur < 0 || sat_add((st), e->dur) <= pe))
    if (FITS(on_parent))
        e->shift = p->shift;
    else if (FITS(e->time))
        e->shift = 0;
    else if (p->dur >= 0 && e->dur >= 0 && e->dur <= p->dur)
        e->shift = sat_sub(sat_add(ps, (p->dur - e->dur) / 2), e->time);
    else if (on_parent < ps)
        e->shift = sat_sub(ps, e->time);
    else
        e->shift = p->shift;
#undef FITS
    e->key = sat_add(e->time, e->shift);
}

void model_order_keys(model_order_ev *ev, size_t n)
{
    ord o = {ev, n, {0}};
    if (n > SCAN_MAX)
        for (size_t i = 0; i < n; i++) {
            if (!ev[i].is_span || !ev[i].span)
                continue;
            bool fresh;
            /* (UINT64_MAX is the map's: that one id shares a slot.) */
            uint64_t *v = core_map_put(
                &o.spans, ev[i].span == UINT64_MAX ? UINT64_MAX - 1 : ev[i].span, &fresh);
            if (fresh)
                *v = i; /* the first of a span given twice */
        }
    /* 0: to place, 1: waiting for what it is placed by, 2: placed. An
     * explicit stack: a chain of spans may be as long as the case. */
    uint8_t *state = core_xcalloc(n ? n : 1, 1);
    size_t *stack = core_xmalloc((n ? n : 1) * sizeof *stack);
    for (size_t i = 0; i < n; i++)
        if (ev[i].fixed)
            state[i] = 2;
    for (size_t i = 0; i < n; i++) {
        if (state[i] == 2)
            continue;
        size_t sp = 0;
        stack[sp++] = i;
        while (sp) {
            size_t j = stack[sp - 1];
            size_t a = anchor_of(&o, j);
            if (a != NONE && state[a] == 0) {
                state[j] = 1;
                stack[sp++] = a;
                continue;
            }
            /* An anchor still waiting is a cycle of parents: broken here. */
            place(&ev[j], a != NONE && state[a] == 2 ? &ev[a] : NULL);
            state[j] = 2;
            sp--;
        }
    }
    free(stack);
    free(state);
    core_map_free(&o.spans);
}

int model_order_cmp(const model_order_ev *a, const model_order_ev *b)
{
    if (a->key != b->key)
        return a->key < b->key ? -1 : 1;
    if (a->depth != b->depth)
        return a->depth < b->depth ? -1 : 1;
    return (a->tie > b->tie) - (a->tie < b->tie);
}
