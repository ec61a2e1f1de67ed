/* Synthetic code-like graphs for the benchmarks (bench.h). */
#include "bench.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* PRNG                                                                */
/* ------------------------------------------------------------------ */

void bench_rng_seed(bench_rng *r, uint64_t seed)
{
    uint64_t x = seed;
    for (int i = 0; i < 4; i++)
        r->s[i] = core_splitmix64(&x);
}

static inline uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

uint64_t bench_rng_next(bench_rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

double bench_rng_unit(bench_rng *r)
{
    return core_unit_double(bench_rng_next(r));
}

uint32_t bench_rng_below(bench_rng *r, uint32_t n)
{
    /* Lemire's multiply-shift; the bias (< n / 2^32) does not matter here
     * but is removed anyway so that the draws are exactly uniform. */
    uint64_t m = (uint64_t)(uint32_t)bench_rng_next(r) * n;
    uint32_t lo = (uint32_t)m;
    if (lo < n) {
        uint32_t t = (uint32_t)-n % n;
        while (lo < t) {
            m = (uint64_t)(uint32_t)bench_rng_next(r) * n;
            lo = (uint32_t)m;
        }
    }
    return (uint32_t)(m >> 32);
}

/* Discrete power law: floor(xmin * U^(-1/(gamma-1))), at most cap. */
static uint32_t power_law(bench_rng *r, double xmin, double gamma, uint32_t cap)
{
    double u = 1.0 - bench_rng_unit(r); /* (0, 1] */
    double x = xmin * pow(u, -1.0 / (gamma - 1.0));
    return x >= (double)cap ? cap : (uint32_t)x;
}

/* ------------------------------------------------------------------ */
/* Layout                                                              */
/* ------------------------------------------------------------------ */

typedef struct module_rec {
    uint32_t first; /* the module node; its members follow */
    uint32_t ncls, nvar, nmeth, nfunc;
} module_rec;

typedef enum { CAT_CALLABLE, CAT_CLASS, CAT_VARIABLE, CAT_IMPORTABLE, CAT__COUNT } target_cat;

typedef struct u32vec {
    uint32_t *v;
    size_t n, cap;
} u32vec;

typedef struct synth {
    bench_rng rng;
    bench_graph *g;
    module_rec *mods;
    size_t edge_cap;
    u32vec attach[CAT__COUNT]; /* Simon's model: far targets so far */
    bool oom;
} synth;

static void u32vec_push(synth *s, u32vec *a, uint32_t x)
{
    if (a->n == a->cap) {
        size_t cap = a->cap ? a->cap * 2 : 1024;
        uint32_t *v = realloc(a->v, cap * sizeof *v);
        if (!v) {
            s->oom = true;
            return;
        }
        a->v = v;
        a->cap = cap;
    }
    a->v[a->n++] = x;
}

static void add_edge(synth *s, uint32_t src, uint32_t dst, graph_edge_type t, float w)
{
    bench_graph *g = s->g;
    if (g->m == s->edge_cap) {
        size_t cap = s->edge_cap ? s->edge_cap + s->edge_cap / 2 : 1024;
        ppr_edge_in *e = realloc(g->edges, cap * sizeof *e);
        if (!e) {
            s->oom = true;
            return;
        }
        g->edges = e;
        s->edge_cap = cap;
    }
    g->edges[g->m++] = (ppr_edge_in){.src = src, .dst = dst, .type = (uint8_t)t, .weight = w};
}

static void layout(synth *s)
{
    bench_graph *g = s->g;
    bench_rng *r = &s->rng;
    uint32_t next = 0;
    while (next < g->n) {
        uint32_t left = g->n - next;
        uint32_t size;
        if (bench_rng_unit(r) < 0.05)
            size = 1;
        else
            size = 10 + (uint32_t)(50.0 * pow(bench_rng_unit(r), 1.3));
        if (size > left || left - size < 10)
            size = left; /* the last module takes the rest */
        uint32_t mi = g->nmodules++;
        module_rec *m = &s->mods[mi];
        memset(m, 0, sizeof *m);
        m->first = next;
        if (size == 1) {
            g->kind[next] = BENCH_EMPTY_MODULE;
            g->module[next] = mi;
            next++;
            continue;
        }
        uint32_t rest = size - 1;
        m->ncls = (uint32_t)(rest * 0.11 * (0.5 + bench_rng_unit(r)) + 0.5);
        m->nvar = (uint32_t)(rest * 0.15 * (0.5 + bench_rng_unit(r)) + 0.5);
        if (m->ncls + m->nvar > rest)
            m->nvar = rest - m->ncls;
        uint32_t ncall = rest - m->ncls - m->nvar;
        m->nmeth = m->ncls ? (uint32_t)(ncall * (0.3 + 0.5 * bench_rng_unit(r))) : 0;
        m->nfunc = ncall - m->nmeth;
        uint32_t u = next;
        g->kind[u++] = BENCH_MODULE;
        for (uint32_t i = 0; i < m->ncls; i++)
            g->kind[u++] = BENCH_CLASS;
        for (uint32_t i = 0; i < m->nvar; i++)
            g->kind[u++] = BENCH_VARIABLE;
        for (uint32_t i = 0; i < m->nmeth; i++)
            g->kind[u++] = BENCH_METHOD;
        for (uint32_t i = 0; i < m->nfunc; i++)
            g->kind[u++] = BENCH_FUNCTION;
        for (uint32_t i = next; i < u; i++)
            g->module[i] = mi;
        next = u;
    }
}

/* ------------------------------------------------------------------ */
/* Targets                                                             */
/* ------------------------------------------------------------------ */

static bool kind_fits(uint8_t k, target_cat c)
{
    switch (c) {
    case CAT_CALLABLE:
        return k == BENCH_METHOD || k == BENCH_FUNCTION;
    case CAT_CLASS:
        return k == BENCH_CLASS;
    case CAT_VARIABLE:
        return k == BENCH_VARIABLE;
    case CAT_IMPORTABLE:
        return k == BENCH_MODULE || k == BENCH_CLASS || k == BENCH_FUNCTION;
    case CAT__COUNT:
        break;
    }
    return false;
}

/* A node of category c in module mi, uniformly, or UINT32_MAX. */
static uint32_t pick_in_module(synth *s, uint32_t mi, target_cat c)
{
    const module_rec *m = &s->mods[mi];
    bench_rng *r = &s->rng;
    if (s->g->kind[m->first] == BENCH_EMPTY_MODULE)
        return UINT32_MAX;
    uint32_t cls = m->first + 1, var = cls + m->ncls, meth = var + m->nvar, func = meth + m->nmeth;
    switch (c) {
    case CAT_CALLABLE:
        return m->nmeth + m->nfunc ? meth + bench_rng_below(r, m->nmeth + m->nfunc) : UINT32_MAX;
    case CAT_CLASS:
        return m->ncls ? cls + bench_rng_below(r, m->ncls) : UINT32_MAX;
    case CAT_VARIABLE:
        return m->nvar ? var + bench_rng_below(r, m->nvar) : UINT32_MAX;
    case CAT_IMPORTABLE: {
        /* `import mod` or `from mod import name`. */
        if (bench_rng_unit(r) < 0.4 || m->ncls + m->nfunc == 0)
            return m->first;
        uint32_t i = bench_rng_below(r, m->ncls + m->nfunc);
        return i < m->ncls ? cls + i : func + (i - m->ncls);
    }
    case CAT__COUNT:
        break;
    }
    return UINT32_MAX;
}

/* A far target: with probability 0.8 one already chosen from afar (so in
 * proportion to the far in-edges it has), else a uniform node of the
 * category. */
static uint32_t pick_far(synth *s, target_cat c)
{
    bench_rng *r = &s->rng;
    u32vec *a = &s->attach[c];
    uint32_t v = UINT32_MAX;
    if (a->n && bench_rng_unit(r) < 0.8) {
        v = a->v[bench_rng_below(r, (uint32_t)a->n)];
    } else {
        for (int tries = 0; tries < 200; tries++) {
            uint32_t x = bench_rng_below(r, s->g->n);
            if (kind_fits(s->g->kind[x], c)) {
                v = x;
                break;
            }
        }
    }
    if (v != UINT32_MAX)
        u32vec_push(s, a, v);
    return v;
}

static uint32_t pick_near(synth *s, uint32_t mi, target_cat c)
{
    bench_rng *r = &s->rng;
    for (int tries = 0; tries < 4; tries++) {
        uint32_t off = 1 + bench_rng_below(r, 4);
        int64_t mj = bench_rng_unit(r) < 0.5 ? (int64_t)mi - off : (int64_t)mi + off;
        if (mj < 0 || mj >= (int64_t)s->g->nmodules)
            continue;
        uint32_t v = pick_in_module(s, (uint32_t)mj, c);
        if (v != UINT32_MAX)
            return v;
    }
    return UINT32_MAX;
}

static target_cat category_of(synth *s, graph_edge_type t)
{
    switch (t) {
    case GRAPH_EDGE_CALLS:
        return CAT_CALLABLE;
    case GRAPH_EDGE_INHERITS:
        return CAT_CLASS;
    case GRAPH_EDGE_IMPORTS:
        return CAT_IMPORTABLE;
    case GRAPH_EDGE_ACCESSES:
        return CAT_VARIABLE;
    case GRAPH_EDGE_USES:
        return bench_rng_unit(&s->rng) < 0.6 ? CAT_CLASS : CAT_VARIABLE;
    case GRAPH_EDGE_MEMBER_OF:
    case GRAPH_EDGE__COUNT:
        break;
    }
    return CAT_CALLABLE;
}

static float stored_weight(synth *s, graph_edge_type t)
{
    bench_rng *r = &s->rng;
    double u = bench_rng_unit(r);
    switch (t) {
    case GRAPH_EDGE_CALLS: {
        /* Call sites, halved for an ambiguous resolution. */
        float n = u < 0.70 ? 1.0f : u < 0.88 ? 2.0f : (float)(3 + bench_rng_below(r, 4));
        return bench_rng_unit(r) < 0.1 ? n * 0.5f : n;
    }
    case GRAPH_EDGE_USES:
    case GRAPH_EDGE_ACCESSES:
        return u < 0.8 ? 1.0f : 2.0f;
    default:
        return 1.0f;
    }
}

/* One reference of type t from u (in module mi). */
static void reference(synth *s, uint32_t u, uint32_t mi, graph_edge_type t)
{
    bench_rng *r = &s->rng;
    target_cat c = category_of(s, t);
    double p_same, p_near;
    switch (t) {
    case GRAPH_EDGE_IMPORTS:
        p_same = 0, p_near = 0.55;
        break;
    case GRAPH_EDGE_INHERITS:
        p_same = 0.35, p_near = 0.25;
        break;
    default:
        p_same = 0.57, p_near = 0.20;
        break;
    }
    uint32_t v = UINT32_MAX;
    double x = bench_rng_unit(r);
    if (x < p_same)
        v = pick_in_module(s, mi, c);
    else if (x < p_same + p_near)
        v = pick_near(s, mi, c);
    if (v == u) /* calling itself: take another one in the module */
        v = pick_in_module(s, mi, c);
    if (v == UINT32_MAX || v == u)
        v = pick_far(s, c);
    if (v == UINT32_MAX || v == u)
        return;
    add_edge(s, u, v, t, stored_weight(s, t));
}

static void parent_edge(synth *s, uint32_t u, const module_rec *m)
{
    bench_rng *r = &s->rng;
    uint8_t k = s->g->kind[u];
    uint32_t parent = m->first;
    if (k == BENCH_METHOD || (k == BENCH_VARIABLE && m->ncls && bench_rng_unit(r) < 0.3))
        parent = m->first + 1 + bench_rng_below(r, m->ncls);
    add_edge(s, u, parent, GRAPH_EDGE_MEMBER_OF, 1.0f);
}

static void references(synth *s)
{
    bench_graph *g = s->g;
    bench_rng *r = &s->rng;
    for (uint32_t u = 0; u < g->n && !s->oom; u++) {
        uint32_t mi = g->module[u];
        const module_rec *m = &s->mods[mi];
        switch ((bench_kind)g->kind[u]) {
        case BENCH_EMPTY_MODULE:
            break;
        case BENCH_MODULE: {
            uint32_t d = power_law(r, 7.0, 2.6, 400);
            for (uint32_t i = 0; i < d; i++)
                reference(s, u, mi,
                          bench_rng_unit(r) < 0.85 ? GRAPH_EDGE_IMPORTS : GRAPH_EDGE_CALLS);
            break;
        }
        case BENCH_CLASS: {
            parent_edge(s, u, m);
            double x = bench_rng_unit(r);
            uint32_t bases = x < 0.1 ? 0 : x < 0.75 ? 1 : 2;
            for (uint32_t i = 0; i < bases; i++)
                reference(s, u, mi, GRAPH_EDGE_INHERITS);
            uint32_t d = bench_rng_unit(r) < 0.5 ? 0 : power_law(r, 1.0, 2.5, 100);
            for (uint32_t i = 0; i < d; i++)
                reference(s, u, mi, bench_rng_unit(r) < 0.6 ? GRAPH_EDGE_USES : GRAPH_EDGE_CALLS);
            break;
        }
        case BENCH_VARIABLE: {
            parent_edge(s, u, m);
            double x = bench_rng_unit(r);
            uint32_t d = x < 0.7 ? 0 : x < 0.94 ? 1 : 2;
            for (uint32_t i = 0; i < d; i++)
                reference(s, u, mi, bench_rng_unit(r) < 0.5 ? GRAPH_EDGE_USES : GRAPH_EDGE_CALLS);
            break;
        }
        case BENCH_METHOD:
        case BENCH_FUNCTION: {
            parent_edge(s, u, m);
            if (bench_rng_unit(r) < 0.12)
                break; /* a leaf */
            uint32_t d = power_law(r, 2.5, 2.5, 600);
            for (uint32_t i = 0; i < d; i++) {
                double x = bench_rng_unit(r);
                graph_edge_type t = x < 0.80   ? GRAPH_EDGE_CALLS
                                    : x < 0.90 ? GRAPH_EDGE_USES
                                               : GRAPH_EDGE_ACCESSES;
                reference(s, u, mi, t);
            }
            break;
        }
        case BENCH_KIND__COUNT:
            break;
        }
    }
}

int bench_synth(uint32_t n, uint64_t seed, bench_graph *out)
{
    if (n < BENCH_SYNTH_MIN_NODES)
        return CORE_EUSAGE;
    bench_graph g = {.n = n};
    synth s = {.g = &g};
    bench_rng_seed(&s.rng, seed ^ ((uint64_t)n * 0x2545f4914f6cdd1dull));
    g.kind = malloc(n);
    g.module = malloc((size_t)n * sizeof *g.module);
    s.mods = malloc((size_t)n * sizeof *s.mods);
    s.edge_cap = (size_t)n * 6 + 1024;
    g.edges = malloc(s.edge_cap * sizeof *g.edges);
    int rc = 0;
    if (!g.kind || !g.module || !s.mods || !g.edges) {
        rc = -ENOMEM;
        goto done;
    }
    layout(&s);
    references(&s);
    if (s.oom)
        rc = -ENOMEM;
done:
    free(s.mods);
    for (int c = 0; c < CAT__COUNT; c++)
        free(s.attach[c].v);
    if (rc) {
        bench_graph_free(&g);
        return rc;
    }
    *out = g;
    return 0;
}

void bench_graph_free(bench_graph *g)
{
    free(g->edges);
    free(g->kind);
    free(g->module);
    memset(g, 0, sizeof *g);
}

/* ------------------------------------------------------------------ */
/* Statistics                                                          */
/* ------------------------------------------------------------------ */

/* Value at quantile q of counts (n values), by counting. */
static uint32_t quantile_u32(const uint32_t *v, uint32_t n, double q, uint32_t max)
{
    uint64_t *hist = core_xcalloc((size_t)max + 1, sizeof *hist);
    for (uint32_t i = 0; i < n; i++)
        hist[v[i]]++;
    uint64_t want = (uint64_t)ceil(q * n), seen = 0;
    if (want == 0)
        want = 1;
    uint32_t d = 0;
    for (; d <= max; d++) {
        seen += hist[d];
        if (seen >= want)
            break;
    }
    free(hist);
    return d > max ? max : d;
}

/* Discrete Hill estimator (Clauset, Shalizi, Newman eq. 3.7). */
static double tail_exponent(const uint32_t *v, uint32_t n, uint32_t dmin)
{
    double sum = 0;
    uint64_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (v[i] >= dmin) {
            sum += log((double)v[i] / ((double)dmin - 0.5));
            k++;
        }
    }
    return k && sum > 0 ? 1.0 + (double)k / sum : 0;
}

void bench_synth_stats_of(const bench_graph *g, bench_synth_stats *st)
{
    memset(st, 0, sizeof *st);
    uint32_t *out = core_xcalloc(g->n, sizeof *out);
    uint32_t *in = core_xcalloc(g->n, sizeof *in);
    uint64_t refs = 0, same = 0, near = 0;
    for (size_t i = 0; i < g->m; i++) {
        const ppr_edge_in *e = &g->edges[i];
        out[e->src]++;
        in[e->dst]++;
        st->by_type[e->type]++;
        if (e->type == GRAPH_EDGE_MEMBER_OF)
            continue;
        refs++;
        uint32_t a = g->module[e->src], b = g->module[e->dst];
        uint32_t dist = a > b ? a - b : b - a;
        if (dist == 0)
            same++;
        else if (dist <= 4)
            near++;
    }
    for (uint32_t u = 0; u < g->n; u++) {
        if (out[u] > st->max_out)
            st->max_out = out[u];
        if (in[u] > st->max_in)
            st->max_in = in[u];
        if (in[u] >= 1000)
            st->hubs_1000++;
        if (out[u] == 0 && in[u] == 0)
            st->isolated++;
    }
    st->mean_out = g->n ? (double)g->m / g->n : 0;
    st->p50_out = quantile_u32(out, g->n, 0.5, st->max_out);
    st->p99_out = quantile_u32(out, g->n, 0.99, st->max_out);
    st->p50_in = quantile_u32(in, g->n, 0.5, st->max_in);
    st->p99_in = quantile_u32(in, g->n, 0.99, st->max_in);
    st->out_exponent = tail_exponent(out, g->n, 5);
    st->in_exponent = tail_exponent(in, g->n, 10);
    if (refs) {
        st->same_module = (double)same / (double)refs;
        st->near_module = (double)near / (double)refs;
        st->far_module = (double)(refs - same - near) / (double)refs;
    }
    free(out);
    free(in);
}
