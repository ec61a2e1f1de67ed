/*
 * ppr/: personalized PageRank. Forward push against power iteration on
 * random and adversarial graphs, independent references for the walk,
 * the error bounds (push, budget, truncation, warm start per case),
 * top-k with adjustments, no allocation on the per-event path, weights
 * and networks, the edge-list loader, explanations and impact.
 *
 * Tolerances. Error bounds are checked as `distance <= bound + slack`
 * where slack only covers floating point: fp_slack() (1e-9 + 2e-7 of the
 * vector's mass: the net's transition probabilities are floats, so rows
 * sum to 1 only within rounding) for double estimates, and 1e-6 of the
 * mass where scores are stored as float (ppr_entry.score). References are
 * power iterations run to 1e-13; the independent references written here
 * use double transition probabilities while the net stores float ones, so
 * they are compared at 1e-5 relative.
 *
 * Assumed where ppr.h leaves it open (each noted at its check): top-k
 * ties are broken by lower node id; top-k reports adjusted scores; a
 * target equal to a seed is explained by an empty path.
 */
#include "graph.h"
#include "ppr.h"
#include "unit_graph.h"

#include <errno.h>
#include <float.h>
#include <math.h>

/* ------------------------------------------------------------------ */
/* Counting allocator (CMake links with --wrap=malloc,... and defines   */
/* PMRAG_COUNT_ALLOC when not under sanitizers)                         */
/* ------------------------------------------------------------------ */

#ifdef PMRAG_COUNT_ALLOC
#include <stdatomic.h>
static atomic_ulong allocs, frees;
void *__real_malloc(size_t n);
void *__real_calloc(size_t c, size_t n);
void *__real_realloc(void *p, size_t n);
void __real_free(void *p);
void *__wrap_malloc(size_t n);
void *__wrap_calloc(size_t c, size_t n);
void *__wrap_realloc(void *p, size_t n);
void __wrap_free(void *p);
void *__wrap_malloc(size_t n)
{
    atomic_fetch_add_explicit(&allocs, 1, memory_order_relaxed);
    return __real_malloc(n);
}
void *__wrap_calloc(size_t c, size_t n)
{
    atomic_fetch_add_explicit(&allocs, 1, memory_order_relaxed);
    return __real_calloc(c, n);
}
void *__wrap_realloc(void *p, size_t n)
{
    atomic_fetch_add_explicit(&allocs, 1, memory_order_relaxed);
    return __real_realloc(p, n);
}
void __wrap_free(void *p)
{
    if (p)
        atomic_fetch_add_explicit(&frees, 1, memory_order_relaxed);
    __real_free(p);
}
static unsigned long alloc_events(void)
{
    return atomic_load(&allocs) + atomic_load(&frees);
}
#endif

/* ------------------------------------------------------------------ */
/* Helpers                                                             */
/* ------------------------------------------------------------------ */

/* splitmix64: seeded, the same on every platform. */
typedef struct rng {
    uint64_t s;
} rng;

static uint64_t rng_next(rng *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static double rng_unit(rng *r)
{
    return (double)(rng_next(r) >> 11) * 0x1.0p-53;
}

static uint32_t rng_below(rng *r, uint32_t n)
{
    uint32_t v = (uint32_t)(rng_unit(r) * n);
    return v < n ? v : n - 1;
}

typedef struct edges {
    uint32_t n;
    ppr_edge_in *e;
    size_t m, cap;
} edges;

static void add_edge(edges *g, uint32_t s, uint32_t d, uint8_t t, float w)
{
    if (g->m == g->cap) {
        g->cap = g->cap ? 2 * g->cap : 64;
        g->e = realloc(g->e, g->cap * sizeof *g->e);
        CHECK(g->e != NULL);
    }
    g->e[g->m++] = (ppr_edge_in){s, d, t, w};
}

/*
 * A random sparse weighted directed graph: out-degrees 0..2*avg (so some
 * dangling nodes), half the targets uniform and half drawn towards low
 * ids (hubs), or with `local` mostly near the source (concentrated
 * vectors, as in code graphs). Types are below 6 when typed, else below
 * 64.
 */
static edges random_graph(uint32_t n, uint32_t avg, uint64_t seed, bool typed, bool local)
{
    rng r = {seed};
    edges g = {n, NULL, 0, 0};
    for (uint32_t u = 0; u < n; u++) {
        uint32_t deg = rng_below(&r, 2 * avg + 1);
        for (uint32_t k = 0; k < deg; k++) {
            uint32_t v;
            double a = rng_unit(&r);
            if (local && a < 0.85) {
                uint32_t off = 1 + rng_below(&r, 6);
                v = (uint32_t)(((uint64_t)u + (rng_unit(&r) < 0.5 ? off : n - off)) % n);
            } else if (a < 0.5) {
                v = rng_below(&r, n);
            } else {
                double b = rng_unit(&r);
                v = (uint32_t)(b * b * b * n);
                if (v >= n)
                    v = n - 1;
            }
            uint8_t t = (uint8_t)rng_below(&r, typed ? GRAPH_EDGE__COUNT : 64);
            add_edge(&g, u, v, t, (float)(0.1 + 1.9 * rng_unit(&r)));
        }
    }
    return g;
}

static ppr_net *make_net(const edges *g, const ppr_weights *w)
{
    ppr_net *net = NULL;
    CHECK_OK(ppr_net_from_edges(g->n, g->e, g->m, w, &net));
    CHECK(net != NULL);
    CHECK_INT(ppr_net_nodes(net), g->n);
    return net;
}

/* make_net() with the default weights profile when typed, raw otherwise. */
static ppr_net *make_default_net(const edges *g, bool typed)
{
    ppr_weights pw;
    CHECK_OK(ppr_weights_profile("default", &pw));
    return make_net(g, typed ? &pw : NULL);
}

static ppr_work *make_work(const ppr_net *net)
{
    ppr_work *w = NULL;
    CHECK_OK(ppr_work_new(net, &w));
    CHECK(w != NULL);
    return w;
}

static ppr_opts opts(double alpha, double eps)
{
    ppr_opts o = ppr_opts_default();
    o.alpha = alpha;
    o.eps = eps;
    return o;
}

/*
 * Floating-point slack for `distance <= bound`: the net stores transition
 * probabilities as float, so rows sum to 1 only within float rounding and
 * |x(r)|_1 may exceed |r|_1 by a few 1e-8 relative (observed 1.4e-8 with
 * a bound that is otherwise tight).
 */
static double fp_slack(double mass)
{
    return 1e-9 + 2e-7 * mass;
}

/* The exact x(s) by ppr_power, to 1e-13. */
static double *exact(const ppr_net *net, const ppr_entry *s, uint32_t ns, double alpha)
{
    uint32_t n = ppr_net_nodes(net);
    double *x = calloc(n ? n : 1, sizeof *x);
    CHECK(x != NULL);
    uint32_t it = 0;
    CHECK_OK(ppr_power(net, s, ns, alpha, 1e-13, 100000, x, &it));
    CHECK(it > 0);
    return x;
}

static double l1(const double *x, uint32_t n)
{
    double s = 0;
    for (uint32_t i = 0; i < n; i++)
        s += fabs(x[i]);
    return s;
}

/* Scores divided by their sum: the walk's probabilities (see ppr.h). */
static void normalize(ppr_entry *e, uint32_t n)
{
    double sum = 0;
    for (uint32_t i = 0; i < n; i++)
        sum += e[i].score;
    for (uint32_t i = 0; i < n; i++)
        e[i].score = (float)(e[i].score / sum);
}

static double *work_scores(const ppr_work *w, uint32_t n)
{
    double *p = malloc((n ? n : 1) * sizeof *p);
    CHECK(p != NULL);
    for (uint32_t i = 0; i < n; i++)
        p[i] = ppr_work_score(w, i);
    return p;
}

static double dist(const double *a, const double *b, uint32_t n)
{
    double s = 0;
    for (uint32_t i = 0; i < n; i++)
        s += fabs(a[i] - b[i]);
    return s;
}

/* L1 distance between the workspace's scores and x. */
static double work_dist(const ppr_work *w, const double *x, uint32_t n)
{
    double *p = work_scores(w, n);
    double d = dist(p, x, n);
    free(p);
    return d;
}

/* L1 distance between a sparse vector (zero elsewhere) and x. */
static double vec_dist(const ppr_vec *v, const double *x, uint32_t n)
{
    double s = l1(x, n);
    for (uint32_t i = 0; i < v->n; i++) {
        uint32_t u = v->e[i].node;
        CHECK(u < n);
        s += fabs((double)v->e[i].score - x[u]) - fabs(x[u]);
    }
    return s < 0 ? 0 : s;
}

static void check_vec_sorted(const ppr_vec *v)
{
    CHECK(v->n <= v->cap);
    for (uint32_t i = 1; i < v->n; i++)
        CHECK(v->e[i - 1].node < v->e[i].node);
}

/*
 * Top-k recall of `got` against the exact vector: a reported node is a
 * hit when its exact score is at least the k-th exact score (the same as
 * set intersection when there are no ties). Only nodes with positive
 * exact score count; fewer than k of them shrink k.
 */
static double recall(const ppr_entry *got, uint32_t ngot, const double *x, uint32_t n, uint32_t k)
{
    double top[64];
    uint32_t nt = 0;
    CHECK(k <= 64);
    for (uint32_t i = 0; i < n; i++) {
        if (x[i] <= 0)
            continue;
        if (nt < k) {
            top[nt++] = x[i];
        } else {
            uint32_t lo = 0;
            for (uint32_t j = 1; j < nt; j++)
                if (top[j] < top[lo])
                    lo = j;
            if (x[i] > top[lo])
                top[lo] = x[i];
        }
    }
    if (nt == 0)
        return 1.0;
    double kth = top[0];
    for (uint32_t j = 1; j < nt; j++)
        if (top[j] < kth)
            kth = top[j];
    uint32_t hits = 0;
    for (uint32_t i = 0; i < ngot && i < nt; i++)
        if (got[i].node < n && x[got[i].node] > 0 && x[got[i].node] >= kth - 1e-15)
            hits++;
    return (double)hits / nt;
}

/* A seed node with out-edges. */
static uint32_t pick_seed(rng *r, const ppr_net *net)
{
    uint32_t n = ppr_net_nodes(net);
    for (int tries = 0; tries < 1000; tries++) {
        uint32_t u = rng_below(r, n);
        if (ppr_net_weight(net, u) > 0)
            return u;
    }
    return 0;
}

/*
 * Independent references on small graphs, from the edge list itself (raw
 * mode: P(u, v) = w / W(u), parallel edges add up).
 *   ref_x: x = alpha s + (1 - alpha) P^T x, the dropped-mass vector.
 *   ref_walk: the walk's stationary distribution, dangling nodes jumping
 *   back to s / |s|.
 */
static void ref_solve(const edges *g, const double *s, double alpha, bool walk, double *out)
{
    uint32_t n = g->n;
    double *W = calloc(n, sizeof *W), *nx = calloc(n, sizeof *nx);
    double *sn = calloc(n, sizeof *sn);
    CHECK(W && nx && sn);
    for (size_t i = 0; i < g->m; i++)
        W[g->e[i].src] += g->e[i].weight;
    double ssum = 0;
    for (uint32_t i = 0; i < n; i++)
        ssum += s[i];
    for (uint32_t i = 0; i < n; i++)
        sn[i] = walk ? s[i] / ssum : s[i];
    memcpy(out, sn, n * sizeof *out);
    for (int it = 0; it < 20000; it++) {
        double dangling = 0;
        for (uint32_t i = 0; i < n; i++) {
            nx[i] = alpha * sn[i];
            if (W[i] == 0)
                dangling += out[i];
        }
        for (size_t i = 0; i < g->m; i++) {
            const ppr_edge_in *e = &g->e[i];
            if (W[e->src] > 0)
                nx[e->dst] += (1 - alpha) * out[e->src] * e->weight / W[e->src];
        }
        if (walk)
            for (uint32_t i = 0; i < n; i++)
                nx[i] += (1 - alpha) * dangling * sn[i];
        double ch = dist(nx, out, n);
        memcpy(out, nx, n * sizeof *out);
        if (ch < 1e-16)
            break;
    }
    free(W);
    free(nx);
    free(sn);
}

static void seeds_dense(const ppr_entry *s, uint32_t ns, uint32_t n, double *out)
{
    memset(out, 0, n * sizeof *out);
    for (uint32_t i = 0; i < ns; i++)
        out[s[i].node] += s[i].score;
}

static graph *open_shop(void)
{
    graph_index_opts o = {0};
    o.threads = 1;
    return unit_index_and_open(unit_fixture("repos/shop"), unit_tmp_path("shop.graph"), &o, NULL);
}

/* True when the net has an edge from -> to of this type (and, when prob is
 * not NULL, of probability *prob). */
static bool net_has_edge(const ppr_net *net, uint32_t from, uint32_t to, uint8_t type,
                         const float *prob)
{
    const uint32_t *dst;
    const float *p;
    const uint8_t *t;
    uint32_t k = ppr_net_out(net, from, &dst, &p, &t);
    for (uint32_t i = 0; i < k; i++)
        if (dst[i] == to && t[i] == type && (!prob || p[i] == *prob))
            return true;
    return false;
}

/* The chain 0 -> 1 -> ... -> n-1, every weight 1. */
static edges chain(uint32_t n)
{
    edges g = {n, NULL, 0, 0};
    for (uint32_t i = 0; i + 1 < n; i++)
        add_edge(&g, i, i + 1, 0, 1);
    return g;
}

/* ------------------------------------------------------------------ */
/* 1. Push against power iteration on random graphs                    */
/* ------------------------------------------------------------------ */

typedef struct agg {
    double max_l1, max_bound, max_ratio, sum_recall;
    int trials;
} agg;

/*
 * One trial: a fresh random graph, 1-3 seeds with positive weights, a
 * push and the exact vector. Checks the bound, the touched count and the
 * top-k; accumulates the recall.
 */
static void trial(uint32_t n, double alpha, double eps, bool typed, bool local, uint64_t seed,
                  agg *a)
{
    edges g = random_graph(n, 3, seed, typed, local);
    ppr_net *net = make_default_net(&g, typed);
    ppr_work *w = make_work(net);
    rng r = {seed ^ 0x5eed};
    ppr_entry s[3];
    uint32_t ns = 1 + rng_below(&r, 3);
    for (uint32_t i = 0; i < ns; i++)
        s[i] = (ppr_entry){pick_seed(&r, net), (float)(0.2 + rng_unit(&r))};
    ppr_opts o = opts(alpha, eps);
    ppr_stats st;
    memset(&st, 0xff, sizeof st);
    CHECK_OK(ppr_push(w, s, ns, &o, &st));
    CHECK(!st.budget_hit);
    CHECK(st.pushes > 0 && st.edges > 0);
    CHECK(st.error_bound >= 0 && isfinite(st.error_bound));
    double *x = exact(net, s, ns, alpha);
    double *p = work_scores(w, n);
    double d = dist(p, x, n);
    double slack = fp_slack(l1(x, n));
    /* The stopping rule bounds the residual: |r(u)| <= eps max(outdeg(u), 1)
     * at every node, so |r|_1 <= eps (edges + nodes). */
    double cap = eps * (double)(ppr_net_edges(net) + n);
    if (!(st.error_bound <= cap * (1 + 1e-9)))
        unit_fail(__FILE__, __LINE__, "n=%u alpha=%g: bound %.3g above eps (m + n) = %.3g", n,
                  alpha, st.error_bound, cap);
    if (!(d <= st.error_bound + slack))
        unit_fail(__FILE__, __LINE__, "n=%u alpha=%g typed=%d seed=%llu: L1 %.3g > bound %.3g", n,
                  alpha, typed, (unsigned long long)seed, d, st.error_bound);
    /* Every node with a nonzero estimate was touched. */
    uint32_t nonzero = 0;
    for (uint32_t i = 0; i < n; i++)
        nonzero += p[i] != 0;
    CHECK(st.touched >= nonzero);
    CHECK(st.touched <= n);
    ppr_entry top[10];
    uint32_t k = ppr_work_topk(w, 10, NULL, top);
    CHECK(k <= 10);
    CHECK(k == 10 || k == nonzero);
    for (uint32_t i = 0; i < k; i++) {
        CHECK(fabs(top[i].score - p[top[i].node]) <= 1e-6 * fabs(p[top[i].node]) + 1e-30);
        if (i)
            CHECK(top[i - 1].score >= top[i].score);
    }
    a->sum_recall += recall(top, k, x, n, 10);
    a->max_l1 = fmax(a->max_l1, d);
    a->max_bound = fmax(a->max_bound, st.error_bound);
    if (st.error_bound > 0)
        a->max_ratio = fmax(a->max_ratio, d / st.error_bound);
    a->trials++;
    free(p);
    free(x);
    ppr_work_free(w);
    ppr_net_free(net);
    free(g.e);
}

static void push_vs_power(bool typed)
{
    static const uint32_t sizes[] = {50, 200, 1000, 5000, 20000};
    static const int trials[] = {40, 25, 12, 4, 1};
    static const double alphas[] = {0.05, 0.15, 0.5};
    double total_recall = 0;
    int total = 0;
    for (size_t a = 0; a < 3; a++) {
        for (size_t si = 0; si < 5; si++) {
            agg ag = {0};
            /* eps 1e-7 (the default), coarser on the largest graphs. */
            double eps = sizes[si] >= 5000 ? 1e-6 : 1e-7;
            /* Every third graph local (concentrated vectors), the rest
             * with hubs. */
            for (int t = 0; t < trials[si]; t++)
                trial(sizes[si], alphas[a], eps, typed, t % 3 == 2,
                      1000003ull * sizes[si] + 7919ull * (uint64_t)t + (uint64_t)(a * 17), &ag);
            printf("  %s n=%-5u alpha=%.2f eps=%.0e trials=%-2d max L1 %.2e  max bound %.2e  "
                   "max L1/bound %.2f  recall@10 %.4f\n",
                   typed ? "typed" : "raw  ", sizes[si], alphas[a], eps, ag.trials, ag.max_l1,
                   ag.max_bound, ag.max_ratio, ag.sum_recall / ag.trials);
            /* Small in absolute terms for small eps (see also the cap in
             * trial() and push_eps_controls_error). */
            CHECK(ag.max_l1 < (sizes[si] >= 5000 ? 0.2 : 2e-3));
            total_recall += ag.sum_recall;
            total += ag.trials;
        }
    }
    printf("  mean recall@10 over %d trials: %.4f\n", total, total_recall / total);
    CHECK(total_recall / total >= 0.99);
}

TEST(push_vs_power_random_raw)
{
    push_vs_power(false);
}

TEST(push_vs_power_random_typed)
{
    push_vs_power(true);
}

/* A smaller eps gives a smaller bound and a smaller error; with eps 1e-10
 * on 1000 nodes the push is accurate to 1e-5. */
TEST(push_eps_controls_error)
{
    edges g = random_graph(1000, 3, 99, false, false);
    ppr_net *net = make_net(&g, NULL);
    ppr_work *w = make_work(net);
    rng r = {4};
    ppr_entry s = {pick_seed(&r, net), 1};
    double *x = exact(net, &s, 1, 0.15);
    double prev_bound = INFINITY, prev_d = INFINITY;
    static const double epss[] = {1e-4, 1e-6, 1e-8, 1e-10};
    for (int i = 0; i < 4; i++) {
        ppr_opts o = opts(0.15, epss[i]);
        ppr_stats st;
        CHECK_OK(ppr_push(w, &s, 1, &o, &st));
        double d = work_dist(w, x, 1000);
        printf("  eps %.0e: pushes %llu L1 %.3e bound %.3e\n", epss[i],
               (unsigned long long)st.pushes, d, st.error_bound);
        CHECK(d <= st.error_bound + fp_slack(l1(x, 1000)));
        CHECK(st.error_bound < prev_bound);
        CHECK(d < prev_d);
        prev_bound = st.error_bound;
        prev_d = d;
    }
    CHECK(prev_d < 1e-5);
    CHECK(prev_bound < 1e-5);
    free(x);
    ppr_work_free(w);
    ppr_net_free(net);
    free(g.e);
}

/* The typed mode is the raw mode over forward edges at n * type[t] and
 * reverse edges at n * type[t] * reverse. */
TEST(typed_net_equals_expanded_raw_net)
{
    ppr_weights pw;
    CHECK_OK(ppr_weights_profile("default", &pw));
    CHECK_OK(ppr_weights_parse("reverse=0.25,uses=0.6", &pw));
    edges g = random_graph(300, 3, 7, true, false);
    edges x = {g.n, NULL, 0, 0};
    for (size_t i = 0; i < g.m; i++) {
        const ppr_edge_in *e = &g.e[i];
        add_edge(&x, e->src, e->dst, 0, e->weight * pw.type[e->type]);
        add_edge(&x, e->dst, e->src, 0, e->weight * pw.type[e->type] * pw.reverse);
    }
    ppr_net *typed = make_net(&g, &pw), *raw = make_net(&x, NULL);
    for (uint32_t u = 0; u < g.n; u++)
        CHECK(fabs(ppr_net_weight(typed, u) - ppr_net_weight(raw, u)) <=
              1e-5 * ppr_net_weight(raw, u));
    rng r = {3};
    for (int t = 0; t < 5; t++) {
        ppr_entry s = {pick_seed(&r, raw), 1};
        double *a = exact(typed, &s, 1, 0.15), *b = exact(raw, &s, 1, 0.15);
        CHECK(dist(a, b, g.n) <= 1e-5);
        free(a);
        free(b);
    }
    ppr_net_free(typed);
    ppr_net_free(raw);
    free(g.e);
    free(x.e);
}

/* ------------------------------------------------------------------ */
/* 2. Adversarial graphs                                               */
/* ------------------------------------------------------------------ */

TEST(dangling_nodes_match_walk_reference)
{
    double lost_max = 0;
    for (uint64_t t = 0; t < 30; t++) {
        rng r = {t * 31 + 1};
        edges g = {40, NULL, 0, 0};
        for (uint32_t u = 0; u < g.n; u++) {
            if (rng_unit(&r) < 0.4)
                continue; /* dangling */
            uint32_t deg = 1 + rng_below(&r, 4);
            for (uint32_t k = 0; k < deg; k++)
                add_edge(&g, u, rng_below(&r, g.n), (uint8_t)k, (float)(0.1 + rng_unit(&r)));
        }
        ppr_net *net = make_net(&g, NULL);
        ppr_entry s[3];
        uint32_t ns = 1 + rng_below(&r, 3);
        for (uint32_t i = 0; i < ns; i++)
            s[i] = (ppr_entry){rng_below(&r, g.n), (float)(0.5 + rng_unit(&r))};
        double alpha = t % 3 == 0 ? 0.05 : t % 3 == 1 ? 0.15 : 0.5;
        double sd[40], rx[40], rw[40];
        seeds_dense(s, ns, g.n, sd);
        ref_solve(&g, sd, alpha, false, rx);
        ref_solve(&g, sd, alpha, true, rw);
        double *x = exact(net, s, ns, alpha);
        double mass = l1(x, g.n);
        /* ppr_power is the dropped-mass vector... */
        CHECK(dist(x, rx, g.n) <= 1e-5 * mass);
        /* ...and normalized it is the walk that restarts from dangling nodes. */
        double d = 0;
        for (uint32_t i = 0; i < g.n; i++)
            d += fabs(x[i] / mass - rw[i]);
        if (!(d <= 1e-5))
            unit_fail(__FILE__, __LINE__, "trial %llu: |x/|x| - walk|_1 = %g",
                      (unsigned long long)t, d);
        lost_max = fmax(lost_max, l1(sd, g.n) - mass);
        /* The push agrees with the reference too. */
        ppr_work *w = make_work(net);
        ppr_opts o = opts(alpha, 1e-9);
        ppr_stats st;
        CHECK_OK(ppr_push(w, s, ns, &o, &st));
        double *p = work_scores(w, g.n);
        CHECK(dist(p, rx, g.n) <= st.error_bound + 1e-5 * mass);
        /* The top entries normalized are the walk's probabilities (all
         * nodes fit in k = n). */
        ppr_entry all[40];
        uint32_t k = ppr_work_topk(w, g.n, NULL, all);
        normalize(all, k);
        double sum = 0;
        for (uint32_t i = 0; i < k; i++) {
            sum += all[i].score;
            CHECK(fabs(all[i].score - rw[all[i].node]) <= 1e-4);
        }
        CHECK(fabs(sum - 1) <= 1e-5);
        free(p);
        ppr_work_free(w);
        free(x);
        ppr_net_free(net);
        free(g.e);
    }
    /* Some trials really dropped mass at dangling nodes. */
    CHECK(lost_max > 0.1);
}

TEST(self_loops)
{
    /* 0 -> 0 (2), 0 -> 1 (1), 1 -> 1 only, 2 -> 0. */
    edges g = {3, NULL, 0, 0};
    add_edge(&g, 0, 0, 0, 2);
    add_edge(&g, 0, 1, 0, 1);
    add_edge(&g, 1, 1, 0, 1);
    add_edge(&g, 2, 0, 0, 1);
    ppr_net *net = make_net(&g, NULL);
    const uint32_t *dst;
    const float *prob;
    const uint8_t *type;
    uint32_t k = ppr_net_out(net, 0, &dst, &prob, &type);
    CHECK_INT(k, 2);
    for (uint32_t i = 0; i < k; i++)
        CHECK(fabs(prob[i] - (dst[i] == 0 ? 2.0 / 3 : 1.0 / 3)) < 1e-6);
    double a = 0.15;
    double x0 = a / (1 - (1 - a) * 2.0 / 3);
    double want[3] = {x0, 1 - x0, 0}; /* nothing dangling: all mass stays */
    ppr_entry s = {0, 1};
    double *x = exact(net, &s, 1, a);
    CHECK(dist(x, want, 3) <= 1e-6);
    ppr_work *w = make_work(net);
    ppr_opts o = opts(a, 1e-9);
    ppr_stats st;
    CHECK_OK(ppr_push(w, &s, 1, &o, &st));
    double *p = work_scores(w, 3);
    CHECK(dist(p, want, 3) <= st.error_bound + 1e-6);
    CHECK(st.error_bound < 1e-7);
    CHECK(p[2] == 0);
    free(p);
    /* A node whose only edge is a self-loop keeps all of its mass. */
    s.node = 1;
    CHECK_OK(ppr_push(w, &s, 1, &o, &st));
    CHECK(fabs(ppr_work_score(w, 1) - 1) <= st.error_bound + 1e-9);
    CHECK(ppr_work_score(w, 0) == 0);
    free(x);
    ppr_work_free(w);
    ppr_net_free(net);
    free(g.e);
}

TEST(zero_weight_edges_are_dropped)
{
    edges g = {4, NULL, 0, 0};
    add_edge(&g, 0, 1, 0, 0);
    add_edge(&g, 0, 2, 0, 1);
    add_edge(&g, 1, 2, 0, 0);
    add_edge(&g, 2, 0, 0, 0.5f);
    add_edge(&g, 2, 3, 0, 0);
    ppr_net *net = make_net(&g, NULL);
    CHECK_INT(ppr_net_edges(net), 2);
    const uint32_t *dst;
    const float *prob;
    const uint8_t *type;
    CHECK_INT(ppr_net_out(net, 0, &dst, &prob, &type), 1);
    CHECK_INT(dst[0], 2);
    CHECK(prob[0] == 1.0f);
    CHECK_INT(ppr_net_out(net, 1, &dst, &prob, &type), 0); /* dangling now */
    CHECK(ppr_net_weight(net, 1) == 0);
    CHECK(ppr_net_weight(net, 2) == 0.5);
    ppr_work *w = make_work(net);
    ppr_entry s = {0, 1};
    ppr_opts o = opts(0.15, 1e-9);
    ppr_stats st;
    CHECK_OK(ppr_push(w, &s, 1, &o, &st));
    CHECK(ppr_work_score(w, 1) == 0);
    CHECK(ppr_work_score(w, 3) == 0);
    ppr_work_free(w);
    ppr_net_free(net);

    /* Typed: a type weighted 0 drops its edges both ways. */
    ppr_weights pw;
    CHECK_OK(ppr_weights_profile("default", &pw));
    CHECK_OK(ppr_weights_parse("calls=0", &pw));
    edges t = {3, NULL, 0, 0};
    add_edge(&t, 0, 1, GRAPH_EDGE_CALLS, 1);
    add_edge(&t, 1, 2, GRAPH_EDGE_USES, 1);
    net = make_net(&t, &pw);
    CHECK_INT(ppr_net_edges(net), 2); /* 1 -> 2 and its reverse */
    CHECK_INT(ppr_net_out(net, 0, &dst, &prob, &type), 0);
    CHECK_INT(ppr_net_out(net, 1, &dst, &prob, &type), 1);
    CHECK_INT(dst[0], 2);
    ppr_net_free(net);
    free(g.e);
    free(t.e);
}

/* Found by fuzz_graph: parallel edges whose weights are finite floats but
 * whose sum is not were summed into a float (undefined, and +inf on x86:
 * probabilities of inf). Merged weights stay double until divided. */
TEST(huge_parallel_weights_give_probabilities)
{
    edges g = {3, NULL, 0, 0};
    add_edge(&g, 0, 1, 0, FLT_MAX);
    add_edge(&g, 0, 1, 0, FLT_MAX);
    add_edge(&g, 0, 2, 0, FLT_MAX);
    add_edge(&g, 0, 2, 0, FLT_MAX);
    add_edge(&g, 1, 2, 0, FLT_MAX);
    add_edge(&g, 1, 2, 0, FLT_MAX);
    ppr_net *net = make_net(&g, NULL);
    const uint32_t *dst;
    const float *prob;
    const uint8_t *type;
    CHECK_INT(ppr_net_out(net, 0, &dst, &prob, &type), 2);
    CHECK(prob[0] == 0.5f && prob[1] == 0.5f);
    CHECK_INT(ppr_net_out(net, 1, &dst, &prob, &type), 1);
    CHECK(prob[0] == 1.0f);
    CHECK(isfinite(ppr_net_weight(net, 0)) && ppr_net_weight(net, 0) == 4.0 * FLT_MAX);
    ppr_net_free(net);
    /* Typed: a large type weight times a large edge weight. */
    ppr_weights pw;
    CHECK_OK(ppr_weights_profile("default", &pw));
    CHECK_OK(ppr_weights_parse("calls=1000", &pw));
    edges t = {2, NULL, 0, 0};
    add_edge(&t, 0, 1, GRAPH_EDGE_CALLS, FLT_MAX);
    net = make_net(&t, &pw);
    CHECK_INT(ppr_net_out(net, 0, &dst, &prob, &type), 1);
    CHECK(prob[0] == 1.0f);
    ppr_net_free(net);
    free(g.e);
    free(t.e);
}

TEST(disconnected_parts_do_not_leak)
{
    /* A = 0..499, B = 500..999, plus edges from B into A (B reaches A,
     * A never reaches B). */
    edges a = random_graph(500, 3, 11, false, false);
    edges b = random_graph(500, 3, 12, false, false);
    edges g = {1000, NULL, 0, 0};
    for (size_t i = 0; i < a.m; i++)
        add_edge(&g, a.e[i].src, a.e[i].dst, a.e[i].type, a.e[i].weight);
    for (size_t i = 0; i < b.m; i++)
        add_edge(&g, b.e[i].src + 500, b.e[i].dst + 500, b.e[i].type, b.e[i].weight);
    for (uint32_t i = 0; i < 50; i++)
        add_edge(&g, 500 + i * 7, i * 3, 1, 1);
    ppr_net *net = make_net(&g, NULL);
    ppr_work *w = make_work(net);
    ppr_entry s[3] = {{0, 1}, {17, 0.5f}, {499, 0.25f}};
    static const double alphas[] = {0.05, 0.15, 0.5};
    for (int ai = 0; ai < 3; ai++) {
        ppr_opts o = opts(alphas[ai], 1e-9);
        ppr_stats st;
        CHECK_OK(ppr_push(w, s, 3, &o, &st));
        CHECK(st.touched <= 500);
        double *x = exact(net, s, 3, alphas[ai]);
        for (uint32_t u = 500; u < 1000; u++) {
            CHECK(ppr_work_score(w, u) == 0);
            CHECK(x[u] == 0);
        }
        CHECK(l1(x, 500) > 0.1);
        ppr_entry top[1000];
        uint32_t k = ppr_work_topk(w, 1000, NULL, top);
        CHECK(k > 10 && k <= 500);
        for (uint32_t i = 0; i < k; i++)
            CHECK(top[i].node < 500);
        free(x);
    }
    /* And the other way: from B, mass does reach A. */
    ppr_entry sb = {500, 1};
    ppr_opts o = opts(0.15, 1e-9);
    CHECK_OK(ppr_push(w, &sb, 1, &o, NULL));
    double inA = 0;
    for (uint32_t u = 0; u < 500; u++)
        inA += ppr_work_score(w, u);
    CHECK(inA > 0);
    ppr_work_free(w);
    ppr_net_free(net);
    free(a.e);
    free(b.e);
    free(g.e);
}

#define STAR 100000u

/* 100k leaves -> hub -> sink, and a leaf seeded uniformly. */
TEST(hub_with_100k_in_edges)
{
    edges g = {STAR + 2, NULL, 0, 0};
    for (uint32_t i = 0; i < STAR; i++)
        add_edge(&g, i, STAR, 0, 1 + (float)(i % 3));
    add_edge(&g, STAR, STAR + 1, 0, 1);
    ppr_net *net = make_net(&g, NULL);
    ppr_work *w = make_work(net);
    ppr_entry *s = malloc(STAR * sizeof *s);
    CHECK(s != NULL);
    for (uint32_t i = 0; i < STAR; i++)
        s[i] = (ppr_entry){i, 1.0f / STAR};
    double a = 0.15;
    ppr_opts o = opts(a, 1e-7);
    ppr_stats st;
    uint64_t t0 = core_now_ns();
    CHECK_OK(ppr_push(w, s, STAR, &o, &st));
    double secs = (double)(core_now_ns() - t0) / 1e9;
    double sm = 0;
    for (uint32_t i = 0; i < STAR; i++)
        sm += s[i].score; /* the float seed weights */
    double hub = ppr_work_score(w, STAR), sink = ppr_work_score(w, STAR + 1);
    double leaves = 0, err = 0;
    for (uint32_t i = 0; i < STAR; i++) {
        leaves += ppr_work_score(w, i);
        err += fabs(ppr_work_score(w, i) - a * s[i].score);
    }
    err += fabs(hub - a * (1 - a) * sm) + fabs(sink - a * (1 - a) * (1 - a) * sm);
    printf("  push %.3f s, %llu pushes, L1 to closed form %.2e, bound %.2e\n", secs,
           (unsigned long long)st.pushes, err, st.error_bound);
    CHECK(err <= st.error_bound + 1e-9);
    CHECK(fabs(leaves - a * sm) < 1e-6);
    ppr_entry top[3];
    CHECK_INT(ppr_work_topk(w, 3, NULL, top), 3);
    CHECK_INT(top[0].node, STAR);
    CHECK_INT(top[1].node, STAR + 1);
    /* One leaf as the seed. */
    ppr_entry one = {12345, 1};
    CHECK_OK(ppr_push(w, &one, 1, &o, &st));
    CHECK(fabs(ppr_work_score(w, STAR) - a * (1 - a)) <= st.error_bound + 1e-12);
    CHECK(ppr_work_score(w, 12346) == 0);
    CHECK(st.touched <= 3);
    double *x = exact(net, &one, 1, a);
    CHECK(fabs(x[STAR] - a * (1 - a)) < 1e-9);
    free(x);
    free(s);
    ppr_work_free(w);
    ppr_net_free(net);
    free(g.e);
}

/* hub -> 100k leaves with varied weights, every leaf -> hub: the hub has
 * 100k out-edges and 100k in-edges. */
TEST(hub_with_100k_out_edges)
{
    edges g = {STAR + 1, NULL, 0, 0};
    double W = 0;
    for (uint32_t i = 1; i <= STAR; i++) {
        float wt = (float)(1 + i % 5);
        add_edge(&g, 0, i, 0, wt);
        W += wt;
    }
    ppr_net *net = make_net(&g, NULL);
    CHECK_INT(ppr_net_out(net, 0, &(const uint32_t *){NULL}, &(const float *){NULL},
                          &(const uint8_t *){NULL}),
              STAR);
    CHECK(fabs(ppr_net_weight(net, 0) - W) <= 1e-9 * W);
    ppr_work *w = make_work(net);
    double a = 0.15;
    ppr_entry s = {0, 1};
    ppr_opts o = opts(a, 1e-7);
    ppr_stats st;
    CHECK_OK(ppr_push(w, &s, 1, &o, &st));
    /* Leaves are dangling: x(hub) = a, x(leaf) = a (1-a) w / W. */
    double err = fabs(ppr_work_score(w, 0) - a);
    for (uint32_t i = 1; i <= STAR; i++)
        err += fabs(ppr_work_score(w, i) - a * (1 - a) * (1 + i % 5) / W);
    printf("  star out: L1 to closed form %.2e, bound %.2e, %llu edges relaxed\n", err,
           st.error_bound, (unsigned long long)st.edges);
    CHECK(err <= st.error_bound + 1e-6);
    CHECK(st.edges >= STAR);
    ppr_entry top[2];
    CHECK_INT(ppr_work_topk(w, 2, NULL, top), 2);
    CHECK_INT(top[0].node, 0);
    CHECK_INT(top[1].node % 5, 4); /* a leaf of the largest weight */
    ppr_work_free(w);
    ppr_net_free(net);

    /* Both ways: leaves -> hub as well (bipartite cycle). x(hub) =
     * a / (1 - (1-a)^2), the leaves together (1-a) x(hub). */
    for (uint32_t i = 1; i <= STAR; i++)
        add_edge(&g, i, 0, 0, 1);
    net = make_net(&g, NULL);
    w = make_work(net);
    CHECK_OK(ppr_push(w, &s, 1, &o, &st));
    double xh = a / (1 - (1 - a) * (1 - a));
    err = fabs(ppr_work_score(w, 0) - xh);
    for (uint32_t i = 1; i <= STAR; i++)
        err += fabs(ppr_work_score(w, i) - (1 - a) * xh * (1 + i % 5) / W);
    printf("  bipartite: L1 to closed form %.2e, bound %.2e, %llu pushes\n", err, st.error_bound,
           (unsigned long long)st.pushes);
    CHECK(err <= st.error_bound + 1e-6);
    ppr_work_free(w);
    ppr_net_free(net);
    free(g.e);
}

TEST(long_chain)
{
    /* 0 -> 1 -> ... -> L-1: x(k) = a (1-a)^k. */
    const uint32_t L = 3000;
    edges g = chain(L);
    ppr_net *net = make_net(&g, NULL);
    ppr_work *w = make_work(net);
    static const double alphas[] = {0.01, 0.15, 0.5};
    for (int ai = 0; ai < 3; ai++) {
        double a = alphas[ai];
        ppr_entry s = {0, 1};
        ppr_opts o = opts(a, 1e-12);
        ppr_stats st;
        CHECK_OK(ppr_push(w, &s, 1, &o, &st));
        double *want = malloc(L * sizeof *want);
        CHECK(want != NULL);
        for (uint32_t k = 0; k < L; k++)
            want[k] = a * pow(1 - a, k);
        double *p = work_scores(w, L);
        CHECK(dist(p, want, L) <= st.error_bound + 1e-9);
        double *x = exact(net, &s, 1, a);
        CHECK(dist(x, want, L) <= 1e-9);
        /* The walk goes the distance: with alpha 0.01 and eps 1e-12 the
         * estimate reaches beyond node 2000. */
        if (a == 0.01)
            CHECK(p[2000] > 0 && fabs(p[2000] - want[2000]) <= 1e-3 * want[2000]);
        free(x);
        free(p);
        free(want);
    }
    ppr_work_free(w);
    ppr_net_free(net);
    free(g.e);
}

TEST(weighted_multiple_seeds)
{
    edges g = random_graph(2000, 3, 21, true, false);
    ppr_net *net = make_default_net(&g, true);
    ppr_work *w = make_work(net);
    ppr_entry s[3] = {{5, 3.0f}, {70, 2.0f}, {1500, 0.5f}};
    ppr_opts o = opts(0.15, 1e-8);
    ppr_stats st;
    CHECK_OK(ppr_push(w, s, 3, &o, &st));
    double *p = work_scores(w, g.n), *x = exact(net, s, 3, 0.15);
    CHECK(dist(p, x, g.n) <= st.error_bound + fp_slack(l1(x, g.n)));
    /* Linearity in the seed weights: of the exact vector, and of the push
     * within the bounds. */
    double bsum = 0;
    double *lin = calloc(g.n, sizeof *lin), *plin = calloc(g.n, sizeof *plin);
    CHECK(lin && plin);
    for (int i = 0; i < 3; i++) {
        ppr_entry one = {s[i].node, 1};
        double *xi = exact(net, &one, 1, 0.15);
        for (uint32_t u = 0; u < g.n; u++)
            lin[u] += s[i].score * xi[u];
        free(xi);
        ppr_stats sti;
        CHECK_OK(ppr_push(w, &one, 1, &o, &sti));
        for (uint32_t u = 0; u < g.n; u++)
            plin[u] += s[i].score * ppr_work_score(w, u);
        bsum += s[i].score * sti.error_bound;
    }
    CHECK(dist(lin, x, g.n) <= 1e-9 * l1(x, g.n));
    CHECK(dist(plin, p, g.n) <= st.error_bound + bsum + fp_slack(l1(x, g.n)));
    /* Mass scales with the seed total (5.5) */
    CHECK(l1(x, g.n) > 1 && l1(x, g.n) <= 5.5 * (1 + 1e-6));
    free(lin);
    free(plin);
    free(p);
    free(x);
    ppr_work_free(w);
    ppr_net_free(net);
    free(g.e);
}

TEST(negative_seed_weights)
{
    edges g = random_graph(3000, 3, 33, false, false);
    ppr_net *net = make_net(&g, NULL);
    ppr_work *w = make_work(net);
    rng r = {8};
    uint32_t a = pick_seed(&r, net), b = pick_seed(&r, net), c = pick_seed(&r, net);
    while (c == a || c == b || a == b) {
        b = pick_seed(&r, net);
        c = pick_seed(&r, net);
    }
    ppr_entry s1[2] = {{a, 1}, {b, 0.5f}}, s2[2] = {{c, 0.8f}, {a, 0.25f}};
    ppr_entry d[3] = {{a, 0.75f}, {b, 0.5f}, {c, -0.8f}};
    ppr_opts o = opts(0.15, 1e-8);
    ppr_stats st1, st2, std;
    CHECK_OK(ppr_push(w, s1, 2, &o, &st1));
    double *p1 = work_scores(w, g.n);
    CHECK_OK(ppr_push(w, s2, 2, &o, &st2));
    double *p2 = work_scores(w, g.n);
    CHECK_OK(ppr_push(w, d, 3, &o, &std));
    double *pd = work_scores(w, g.n);
    double *xd = exact(net, d, 3, 0.15);
    double lin = 0, neg = 0;
    for (uint32_t u = 0; u < g.n; u++) {
        lin += fabs(pd[u] - (p1[u] - p2[u]));
        neg = fmin(neg, pd[u]);
    }
    double dd = dist(pd, xd, g.n);
    printf("  signed: L1 to exact %.2e (bound %.2e); linearity gap %.2e (bounds %.2e)\n", dd,
           std.error_bound, lin, std.error_bound + st1.error_bound + st2.error_bound);
    double sl = fp_slack(l1(xd, g.n) + l1(p1, g.n) + l1(p2, g.n));
    CHECK(dd <= std.error_bound + sl);
    CHECK(lin <= std.error_bound + st1.error_bound + st2.error_bound + sl);
    CHECK(pd[c] < 0 && neg < 0);
    CHECK(fabs(pd[c] - xd[c]) <= std.error_bound + sl);
    /* A seed and its negation cancel exactly. */
    ppr_entry z[2] = {{a, 1}, {a, -1}};
    ppr_stats stz;
    CHECK_OK(ppr_push(w, z, 2, &o, &stz));
    for (uint32_t u = 0; u < g.n; u++)
        CHECK(fabs(ppr_work_score(w, u)) <= stz.error_bound);
    free(p1);
    free(p2);
    free(pd);
    free(xd);
    ppr_work_free(w);
    ppr_net_free(net);
    free(g.e);
}

TEST(bad_arguments)
{
    edges g = {3, NULL, 0, 0};
    add_edge(&g, 0, 1, 0, 1);
    add_edge(&g, 1, 2, 0, 1);
    ppr_net *net = make_net(&g, NULL);
    ppr_work *w = make_work(net);
    ppr_entry s = {3, 1};
    ppr_opts o = ppr_opts_default();
    CHECK(o.alpha == PPR_DEFAULT_ALPHA && o.eps == PPR_DEFAULT_EPS && o.max_pushes == 0);
    CHECK_INT(ppr_push(w, &s, 1, &o, NULL), CORE_EUSAGE);
    s.node = 0;
    o.alpha = 0;
    CHECK_INT(ppr_push(w, &s, 1, &o, NULL), CORE_EUSAGE);
    o.alpha = 1;
    CHECK_INT(ppr_push(w, &s, 1, &o, NULL), CORE_EUSAGE);
    o.alpha = 0.15;
    o.eps = -1;
    CHECK_INT(ppr_push(w, &s, 1, &o, NULL), CORE_EUSAGE);
    o.eps = 1e-7;
    CHECK_OK(ppr_push(w, &s, 1, &o, NULL));
    ppr_entry buf[4];
    ppr_vec v;
    ppr_vec_init(&v, buf, 4);
    CHECK_INT(v.n, 0);
    CHECK(v.err == 0);
    CHECK_INT(ppr_state_advance(&v, 3, 0.8, 1, NULL, w, &o), CORE_EUSAGE);
    ppr_entry *big = malloc((PPR_MAX_M + 1) * sizeof *big);
    ppr_vec vb;
    ppr_vec_init(&vb, big, PPR_MAX_M + 1);
    CHECK_INT(ppr_state_advance(&vb, 0, 0.8, 1, NULL, w, &o), CORE_EUSAGE);
    free(big);

    ppr_net *bad = NULL;
    ppr_edge_in e[1] = {{0, 3, 0, 1}};
    CHECK_INT(ppr_net_from_edges(3, e, 1, NULL, &bad), CORE_EUSAGE);
    e[0] = (ppr_edge_in){0, 1, 0, -1};
    CHECK_INT(ppr_net_from_edges(3, e, 1, NULL, &bad), CORE_EUSAGE);
    e[0].weight = NAN;
    CHECK_INT(ppr_net_from_edges(3, e, 1, NULL, &bad), CORE_EUSAGE);
    e[0].weight = INFINITY;
    CHECK_INT(ppr_net_from_edges(3, e, 1, NULL, &bad), CORE_EUSAGE);
    CHECK(bad == NULL);

    /* ppr_power stops at max_iter with CORE_ELIMIT. */
    double x[3];
    uint32_t it = 0;
    CHECK_INT(ppr_power(net, &s, 1, 0.15, 1e-300, 2, x, &it), CORE_ELIMIT);
    CHECK_INT(it, 2);
    ppr_work_free(w);
    ppr_net_free(net);
    free(g.e);
}

/* Degenerate nets: no nodes, one node, no edges. */
TEST(empty_and_edgeless_nets)
{
    ppr_net *net = NULL;
    CHECK_OK(ppr_net_from_edges(0, NULL, 0, NULL, &net));
    CHECK_INT(ppr_net_nodes(net), 0);
    CHECK_INT(ppr_net_edges(net), 0);
    ppr_work *w = make_work(net);
    ppr_opts o = ppr_opts_default();
    ppr_stats st;
    CHECK_OK(ppr_push(w, NULL, 0, &o, &st));
    CHECK(st.error_bound == 0 && st.pushes == 0);
    ppr_entry out[4];
    CHECK_INT(ppr_work_topk(w, 4, NULL, out), 0);
    ppr_work_free(w);
    ppr_net_free(net);

    /* Five nodes, no edges: every seed is dangling, x(s) = alpha s. */
    CHECK_OK(ppr_net_from_edges(5, NULL, 0, NULL, &net));
    w = make_work(net);
    ppr_entry s[2] = {{1, 2}, {4, 1}};
    CHECK_OK(ppr_push(w, s, 2, &o, &st));
    CHECK(fabs(ppr_work_score(w, 1) - 2 * o.alpha) < 1e-12);
    CHECK(fabs(ppr_work_score(w, 4) - o.alpha) < 1e-12);
    CHECK(ppr_work_score(w, 0) == 0);
    CHECK(st.error_bound == 0);
    CHECK_INT(ppr_work_topk(w, 4, NULL, out), 2);
    CHECK_INT(out[0].node, 1);
    normalize(out, 2);
    CHECK(fabs(out[0].score - 2.0 / 3) < 1e-6 && fabs(out[1].score - 1.0 / 3) < 1e-6);
    ppr_work_free(w);
    ppr_net_free(net);
}

/*
 * A net and a basis are read by any number of threads: pushes on two
 * threads (a workspace each) give bit-identical results to the same
 * pushes on one, and a basis built on 2 threads equals one built on 1.
 */
typedef struct conc_job {
    const ppr_net *net;
    const uint32_t *seeds;
    uint32_t nseeds;
    double *sums; /* per seed: sum of i * score(i), a fingerprint */
    int rc;
} conc_job;

static void conc_worker(void *arg, unsigned t)
{
    conc_job *job = arg;
    ppr_work *w = NULL;
    if (ppr_work_new(job->net, &w)) {
        job->rc = -1;
        return;
    }
    ppr_opts o = opts(0.15, 1e-7);
    uint32_t n = ppr_net_nodes(job->net);
    for (uint32_t i = t; i < job->nseeds; i += 2) {
        ppr_entry s = {job->seeds[i], 1};
        if (ppr_push(w, &s, 1, &o, NULL)) {
            job->rc = -1;
            break;
        }
        double f = 0;
        for (uint32_t u = 0; u < n; u++)
            f += (double)(u + 1) * ppr_work_score(w, u);
        job->sums[i] = f;
    }
    ppr_work_free(w);
}

TEST(concurrent_queries_share_a_net)
{
    edges g = random_graph(4000, 3, 123, true, false);
    ppr_net *net = make_default_net(&g, true);
    uint32_t seeds[32];
    rng r = {17};
    for (int i = 0; i < 32; i++)
        seeds[i] = pick_seed(&r, net);
    double par[32], seq[32];
    conc_job job = {net, seeds, 32, par, 0};
    CHECK_OK(core_parallel(2, conc_worker, &job));
    CHECK_INT(job.rc, 0);
    conc_job one = {net, seeds, 32, seq, 0};
    conc_worker(&one, 0);
    conc_worker(&one, 1);
    CHECK_INT(one.rc, 0);
    for (int i = 0; i < 32; i++)
        CHECK(par[i] == seq[i]);

    ppr_opts o = opts(0.15, 1e-7);
    ppr_basis *b1 = NULL, *b2 = NULL;
    CHECK_OK(ppr_basis_build(net, seeds, 32, 128, &o, 1, &b1));
    CHECK_OK(ppr_basis_build(net, seeds, 32, 128, &o, 2, &b2));
    CHECK_INT(ppr_basis_count(b1), ppr_basis_count(b2));
    for (int i = 0; i < 32; i++) {
        const ppr_vec *a = ppr_basis_get(b1, seeds[i]), *b = ppr_basis_get(b2, seeds[i]);
        CHECK(a && b);
        CHECK_INT(a->n, b->n);
        CHECK(a->err == b->err);
        CHECK(memcmp(a->e, b->e, a->n * sizeof *a->e) == 0);
    }
    ppr_basis_free(b1);
    ppr_basis_free(b2);
    ppr_net_free(net);
    free(g.e);
}

/* ------------------------------------------------------------------ */
/* 3. The budget                                                       */
/* ------------------------------------------------------------------ */

TEST(budget_keeps_the_bound)
{
    for (int typed = 0; typed < 2; typed++) {
        edges g = random_graph(2000, 3, 44 + (uint64_t)typed, typed, false);
        ppr_net *net = make_default_net(&g, typed);
        ppr_work *w = make_work(net);
        rng r = {5};
        ppr_entry s[2] = {{pick_seed(&r, net), 1}, {pick_seed(&r, net), 0.5f}};
        double *x = exact(net, s, 2, 0.15);
        static const uint64_t budgets[] = {1, 5, 50, 500};
        double prev = INFINITY;
        for (int i = 0; i < 4; i++) {
            ppr_opts o = opts(0.15, 1e-9);
            o.max_pushes = budgets[i];
            ppr_stats st;
            CHECK_OK(ppr_push(w, s, 2, &o, &st));
            double d = work_dist(w, x, g.n);
            printf("  typed=%d budget %4llu: pushes %llu hit %d L1 %.3e bound %.3e\n", typed,
                   (unsigned long long)budgets[i], (unsigned long long)st.pushes, st.budget_hit, d,
                   st.error_bound);
            CHECK(st.budget_hit);
            CHECK(st.pushes <= budgets[i]);
            CHECK(d <= st.error_bound + fp_slack(l1(x, g.n)));
            CHECK(st.error_bound <= prev + 1e-12);
            prev = st.error_bound;
        }
        /* A budget that is not reached changes nothing. */
        ppr_opts o = opts(0.15, 1e-6);
        ppr_stats st0, st1;
        CHECK_OK(ppr_push(w, s, 2, &o, &st0));
        double *p0 = work_scores(w, g.n);
        o.max_pushes = st0.pushes + 1;
        CHECK_OK(ppr_push(w, s, 2, &o, &st1));
        CHECK(!st1.budget_hit);
        CHECK_INT(st1.pushes, st0.pushes);
        double *p1 = work_scores(w, g.n);
        CHECK(dist(p0, p1, g.n) == 0);
        free(p0);
        free(p1);
        free(x);
        ppr_work_free(w);
        ppr_net_free(net);
        free(g.e);
    }
}

/* ------------------------------------------------------------------ */
/* 4. Linearity and warm start                                         */
/* ------------------------------------------------------------------ */

typedef enum { WS_BASIS, WS_PUSH, WS_MIXED } ws_mode;

static void warm_start(ws_mode mode, bool typed)
{
    const uint32_t n = 3000, NB = 24, K = 200, M = 256;
    const double c = 0.8, beta = 1, alpha = 0.15;
    edges g = random_graph(n, 3, 55 + (uint64_t)mode, typed, true);
    ppr_net *net = make_default_net(&g, typed);
    ppr_work *w = make_work(net);
    rng r = {77 + (uint64_t)mode};
    uint32_t acts[24];
    for (uint32_t i = 0; i < NB; i++) {
        acts[i] = pick_seed(&r, net);
        for (uint32_t j = 0; j < i; j++)
            if (acts[j] == acts[i]) {
                i--;
                break;
            }
    }
    ppr_opts o = opts(alpha, 1e-7);
    ppr_basis *b = NULL;
    if (mode != WS_PUSH) {
        uint32_t nb = mode == WS_MIXED ? NB / 2 : NB;
        CHECK_OK(ppr_basis_build(net, acts, nb, M, &o, 2, &b));
        CHECK_INT(ppr_basis_count(b), nb);
        CHECK(ppr_basis_bytes(b) >= nb * sizeof(ppr_entry));
        for (uint32_t i = 0; i < NB; i++) {
            const ppr_vec *bv = ppr_basis_get(b, acts[i]);
            CHECK((bv != NULL) == (i < nb));
            if (!bv)
                continue;
            CHECK(bv->n <= M);
            check_vec_sorted(bv);
            if (i < 3) {
                /* The basis vector is honest about its distance to x(e_u). */
                ppr_entry one = {acts[i], 1};
                double *xe = exact(net, &one, 1, alpha);
                double d = vec_dist(bv, xe, n);
                CHECK(d <= bv->err + 1e-6);
                free(xe);
            }
        }
        /* A node that is no activity has no basis. */
        for (uint32_t u = 0; u < n; u++) {
            bool act = false;
            for (uint32_t i = 0; i < nb; i++)
                act |= acts[i] == u;
            if (!act) {
                CHECK(ppr_basis_get(b, u) == NULL);
                break;
            }
        }
    }
    ppr_entry *store = calloc(M, sizeof *store);
    CHECK(store != NULL);
    ppr_vec v;
    ppr_vec_init(&v, store, M);
    double *seed = calloc(n, sizeof *seed);
    CHECK(seed != NULL);
    for (uint32_t k = 0; k < K; k++) {
        uint32_t u = acts[rng_below(&r, NB)];
        for (uint32_t i = 0; i < n; i++)
            seed[i] *= c;
        seed[u] += beta;
        CHECK_OK(ppr_state_advance(&v, u, c, beta, b, w, &o));
        CHECK(v.n <= M);
        check_vec_sorted(&v);
    }
    ppr_entry *s = malloc(n * sizeof *s);
    CHECK(s != NULL);
    uint32_t ns = 0;
    for (uint32_t i = 0; i < n; i++)
        if (seed[i] != 0)
            s[ns++] = (ppr_entry){i, (float)seed[i]};
    double *x = exact(net, s, ns, alpha);
    double mass = l1(x, n);
    double d = vec_dist(&v, x, n);
    ppr_entry top[10];
    uint32_t k = ppr_vec_topk(&v, 10, NULL, top);
    CHECK_INT(k, 10);
    double rc = recall(top, k, x, n, 10);
    static const char *const mode_names[] = {"basis", "push", "mixed"};
    const char *mode_name = mode_names[mode];
    printf("  %s %s: state n=%u, L1 to exact %.3e, err %.3e, |x| %.3f, recall@10 %.2f\n",
           typed ? "typed" : "raw", mode_name, v.n, d, v.err, mass, rc);
    /* The seed weights were rounded to float for ppr_power: 6e-8
     * relative, inside the slack. */
    CHECK(d <= v.err + 1e-6 * mass);
    CHECK(rc >= 0.9);
    free(x);
    free(s);
    free(seed);
    free(store);
    ppr_basis_free(b);
    ppr_work_free(w);
    ppr_net_free(net);
    free(g.e);
}

TEST(warm_start_basis)
{
    warm_start(WS_BASIS, false);
    warm_start(WS_BASIS, true);
}

TEST(warm_start_push_path)
{
    warm_start(WS_PUSH, false);
}

TEST(warm_start_mixed)
{
    warm_start(WS_MIXED, true);
}

/* One event from an empty state with c = 0 is x(e_u) itself; a second
 * event adds by linearity. Checked on a graph small enough for nothing to
 * be truncated. */
TEST(state_advance_linearity_small)
{
    edges g = random_graph(60, 2, 66, false, false);
    ppr_net *net = make_net(&g, NULL);
    ppr_work *w = make_work(net);
    rng r = {1};
    uint32_t u1 = pick_seed(&r, net), u2 = pick_seed(&r, net);
    ppr_opts o = opts(0.15, 1e-10);
    ppr_entry st[64];
    ppr_vec v;
    ppr_vec_init(&v, st, 64);
    CHECK_OK(ppr_state_advance(&v, u1, 0.5, 2.0, NULL, w, &o));
    CHECK_OK(ppr_state_advance(&v, u2, 0.5, 1.0, NULL, w, &o));
    ppr_entry s[2] = {{u1, 1.0f}, {u2, 1.0f}}; /* 0.5 * 2 e(u1) + e(u2) */
    if (u1 == u2) {
        s[0].score = 2.0f;
        s[1].score = 0;
    }
    double *x = exact(net, s, 2, 0.15);
    CHECK(vec_dist(&v, x, 60) <= v.err + 1e-6 * l1(x, 60));
    CHECK(v.err < 1e-6);
    CHECK(vec_dist(&v, x, 60) < 1e-6);
    free(x);
    ppr_work_free(w);
    ppr_net_free(net);
    free(g.e);
}

/* ------------------------------------------------------------------ */
/* 5. Truncation honesty                                               */
/* ------------------------------------------------------------------ */

TEST(export_truncation_is_honest)
{
    edges g = random_graph(2000, 3, 88, false, false);
    ppr_net *net = make_net(&g, NULL);
    ppr_work *w = make_work(net);
    rng r = {9};
    ppr_entry s[2] = {{pick_seed(&r, net), 1}, {pick_seed(&r, net), 0.3f}};
    ppr_opts o = opts(0.15, 1e-7);
    ppr_stats st;
    CHECK_OK(ppr_push(w, s, 2, &o, &st));
    double *x = exact(net, s, 2, 0.15), *p = work_scores(w, g.n);
    uint32_t nonzero = 0;
    for (uint32_t u = 0; u < g.n; u++)
        nonzero += p[u] != 0;
    static const uint32_t Ms[] = {1, 5, 20, 100, 1000, 4000};
    ppr_entry *buf = malloc(4000 * sizeof *buf);
    uint8_t *in = malloc(g.n);
    CHECK(buf && in);
    for (int i = 0; i < 6; i++) {
        ppr_vec v;
        ppr_vec_init(&v, buf, Ms[i]);
        ppr_work_export(w, Ms[i], &v);
        CHECK_INT(v.n, Ms[i] < nonzero ? Ms[i] : nonzero);
        check_vec_sorted(&v);
        double d = vec_dist(&v, x, g.n);
        memset(in, 0, g.n);
        double kept_min = INFINITY, dropped_max = 0, dropped = 0;
        for (uint32_t j = 0; j < v.n; j++) {
            in[v.e[j].node] = 1;
            CHECK(fabs(v.e[j].score - p[v.e[j].node]) <= 1e-7 * fabs(p[v.e[j].node]));
            kept_min = fmin(kept_min, fabs(p[v.e[j].node]));
        }
        for (uint32_t u = 0; u < g.n; u++)
            if (!in[u]) {
                dropped_max = fmax(dropped_max, fabs(p[u]));
                dropped += fabs(p[u]);
            }
        printf("  M=%-4u kept %u, L1 to exact %.3e, err %.3e (bound %.3e + dropped %.3e)\n", Ms[i],
               v.n, d, v.err, st.error_bound, dropped);
        CHECK(d <= v.err + 1e-6 * l1(x, g.n));
        CHECK(v.err >= st.error_bound);
        /* err is the bound plus the dropped mass (plus at most an
         * allowance for rounding the kept entries to float)... */
        double kept = l1(p, g.n) - dropped;
        CHECK(v.err >= st.error_bound + dropped - 1e-12);
        CHECK(v.err <= st.error_bound + dropped + 1e-6 * kept);
        /* ...and what was kept are the largest entries. */
        CHECK(kept_min >= dropped_max);
    }
    free(buf);
    free(in);
    free(x);
    free(p);
    ppr_work_free(w);
    ppr_net_free(net);
    free(g.e);
}

/* ------------------------------------------------------------------ */
/* 6. Top-k with adjustments                                           */
/* ------------------------------------------------------------------ */

/*
 * Assumed (ppr.h says "best first"): ties go to the lower node id, and the
 * scores written are the adjusted ones.
 */
TEST(work_topk_adjustments_and_ties)
{
    /* 0 -> 3, 0 -> 1, 0 -> 2 (weight 1 each), 0 -> 4 (weight 2); leaves
     * dangling: x1 = x2 = x3 = a(1-a)/5, x4 = 2 x1, x0 = a. */
    edges g = {6, NULL, 0, 0};
    add_edge(&g, 0, 3, 0, 1);
    add_edge(&g, 0, 2, 0, 1);
    add_edge(&g, 0, 4, 0, 2);
    add_edge(&g, 0, 1, 0, 1);
    ppr_net *net = make_net(&g, NULL);
    ppr_work *w = make_work(net);
    ppr_entry s = {0, 1};
    ppr_opts o = opts(0.15, 1e-9);
    CHECK_OK(ppr_push(w, &s, 1, &o, NULL));
    CHECK(ppr_work_score(w, 1) == ppr_work_score(w, 3));
    ppr_entry out[8];
    uint32_t k = ppr_work_topk(w, 8, NULL, out);
    CHECK_INT(k, 5); /* node 5 was never touched */
    static const uint32_t want0[] = {0, 4, 1, 2, 3};
    for (uint32_t i = 0; i < 5; i++)
        CHECK_INT(out[i].node, want0[i]);
    /* k inside a tie group. */
    CHECK_INT(ppr_work_topk(w, 3, NULL, out), 3);
    CHECK_INT(out[2].node, 1);
    CHECK_INT(ppr_work_topk(w, 0, NULL, out), 0);

    /* Exclude the seed and node 2; down-weight 4 below the others. */
    uint32_t an[3] = {0, 2, 4};
    float af[3] = {0, 0, 0.25f};
    ppr_adjust adj = {an, af, 3};
    k = ppr_work_topk(w, 8, &adj, out);
    CHECK_INT(k, 3);
    static const uint32_t want1[] = {1, 3, 4};
    for (uint32_t i = 0; i < 3; i++)
        CHECK_INT(out[i].node, want1[i]);
    CHECK(fabs(out[2].score - 0.25 * ppr_work_score(w, 4)) <= 1e-7 * out[2].score);
    /* Excluded nodes never appear, whatever k. */
    for (uint32_t kk = 1; kk <= 8; kk++) {
        k = ppr_work_topk(w, kk, &adj, out);
        for (uint32_t i = 0; i < k; i++)
            CHECK(out[i].node != 0 && out[i].node != 2);
    }
    /* Boost 3 by 2: it ties with 4 (2 x1 exactly) and wins on its id. */
    uint32_t bn[2] = {0, 3};
    float bf[2] = {0, 2};
    ppr_adjust boost = {bn, bf, 2};
    k = ppr_work_topk(w, 3, &boost, out);
    CHECK_INT(k, 3);
    CHECK_INT(out[0].node, 3);
    CHECK_INT(out[1].node, 4);
    CHECK_INT(out[2].node, 1);
    CHECK(out[0].score == out[1].score);
    ppr_work_free(w);
    ppr_net_free(net);
    free(g.e);
}

TEST(vec_topk_adjustments_and_ties)
{
    ppr_entry e[6] = {{2, 0.5f}, {5, 0.9f}, {7, 0.5f}, {9, 0.1f}, {11, 0.9f}, {20, 0.3f}};
    ppr_vec v = {e, 6, 6, 0};
    ppr_entry out[10];
    CHECK_INT(ppr_vec_topk(&v, 10, NULL, out), 6);
    static const uint32_t want0[] = {5, 11, 2, 7, 20, 9};
    for (int i = 0; i < 6; i++)
        CHECK_INT(out[i].node, want0[i]);
    CHECK_INT(ppr_vec_topk(&v, 3, NULL, out), 3);
    CHECK_INT(out[0].node, 5);
    CHECK_INT(out[1].node, 11);
    CHECK_INT(out[2].node, 2);
    uint32_t an[4] = {5, 2, 11, 99};
    float af[4] = {0, 0, 0.5f, 3};
    ppr_adjust adj = {an, af, 4};
    CHECK_INT(ppr_vec_topk(&v, 10, &adj, out), 4); /* 99 is not in v: nothing added */
    static const uint32_t want1[] = {7, 11, 20, 9};
    for (int i = 0; i < 4; i++)
        CHECK_INT(out[i].node, want1[i]);
    CHECK(fabs(out[1].score - 0.45f) < 1e-6);
    for (uint32_t kk = 1; kk <= 6; kk++) {
        uint32_t k = ppr_vec_topk(&v, kk, &adj, out);
        CHECK(k <= kk);
        for (uint32_t i = 0; i < k; i++)
            CHECK(out[i].node != 5 && out[i].node != 2);
    }
    ppr_vec empty = {e, 0, 6, 0};
    CHECK_INT(ppr_vec_topk(&empty, 5, NULL, out), 0);
}

/* ------------------------------------------------------------------ */
/* 7. No allocation on the per-event path                              */
/* ------------------------------------------------------------------ */

TEST(no_allocation_per_event)
{
#ifndef PMRAG_COUNT_ALLOC
    printf("  skipped: built without PMRAG_COUNT_ALLOC (--wrap=malloc,...), e.g. under "
           "sanitizers\n");
#else
    edges g = random_graph(2000, 3, 101, true, true);
    ppr_net *net = make_default_net(&g, true);
    rng r = {2};
    uint32_t acts[16];
    for (int i = 0; i < 16; i++)
        acts[i] = pick_seed(&r, net);
    ppr_opts o = opts(0.15, 1e-5);
    ppr_basis *b = NULL;
    CHECK_OK(ppr_basis_build(net, acts, 12, PPR_DEFAULT_M, &o, 2, &b)); /* 12..15: push path */
    ppr_entry *store = calloc(PPR_DEFAULT_M, sizeof *store);
    ppr_entry *exp = calloc(64, sizeof *exp);
    CHECK(store && exp);
    ppr_vec v, ve;
    ppr_vec_init(&v, store, PPR_DEFAULT_M);
    unsigned long before_new = alloc_events();
    ppr_work *w = make_work(net);
    /* The counter is live: making a workspace allocates. */
    CHECK(alloc_events() > before_new);
    uint32_t an[2] = {acts[0], acts[1]};
    float af[2] = {0, 0.5f};
    ppr_adjust adj = {an, af, 2};
    ppr_entry top[10];
    ppr_path path;
    /* Warm-up: one of each. */
    CHECK_OK(ppr_state_advance(&v, acts[0], 0.8, 1, b, w, &o));
    CHECK_OK(ppr_state_advance(&v, acts[13], 0.8, 1, b, w, &o));
    ppr_vec_topk(&v, 10, &adj, top);
    ppr_entry s = {acts[3], 1};
    CHECK_OK(ppr_push(w, &s, 1, &o, NULL));
    ppr_work_topk(w, 10, &adj, top);
    (void)ppr_explain(w, &s, 1, acts[4], 0.15, 0, &path);
    unsigned long before = alloc_events();
    uint64_t pushes = 0;
    for (uint32_t i = 0; i < 10000; i++) {
        uint32_t u = acts[i % 16]; /* 3 of 4 from the basis, 1 of 4 pushed */
        CHECK_OK(ppr_state_advance(&v, u, 0.8, 1, b, w, &o));
        CHECK(ppr_vec_topk(&v, 10, &adj, top) == 10);
        if (i % 10 == 0) {
            ppr_stats st;
            s.node = acts[(i / 10) % 16];
            CHECK_OK(ppr_push(w, &s, 1, &o, &st));
            pushes += st.pushes;
            ppr_work_topk(w, 10, &adj, top);
            ppr_vec_init(&ve, exp, 64);
            ppr_work_export(w, 64, &ve);
        }
        if (i % 100 == 0)
            (void)ppr_explain(w, &s, 1, acts[(i / 100) % 16], 0.15, 0, &path);
    }
    unsigned long after = alloc_events();
    printf("  10000 events (%llu nodes pushed by the queries): %lu allocations or frees\n",
           (unsigned long long)pushes, after - before);
    CHECK_INT(after - before, 0);
    free(store);
    free(exp);
    ppr_basis_free(b);
    ppr_work_free(w);
    ppr_net_free(net);
    free(g.e);
#endif
}

/* ------------------------------------------------------------------ */
/* 8. Weights and networks from graphs                                 */
/* ------------------------------------------------------------------ */

static void check_weights(const ppr_weights *w, double calls, double imports, double inherits,
                          double uses, double accesses, double member_of, double reverse)
{
    double want[GRAPH_EDGE__COUNT];
    want[GRAPH_EDGE_CALLS] = calls;
    want[GRAPH_EDGE_IMPORTS] = imports;
    want[GRAPH_EDGE_INHERITS] = inherits;
    want[GRAPH_EDGE_USES] = uses;
    want[GRAPH_EDGE_ACCESSES] = accesses;
    want[GRAPH_EDGE_MEMBER_OF] = member_of;
    for (int t = 0; t < GRAPH_EDGE__COUNT; t++)
        if (fabs(w->type[t] - want[t]) > 1e-6)
            unit_fail(__FILE__, __LINE__, "%s: %g, want %g", graph_edge_type_name(t), w->type[t],
                      want[t]);
    CHECK(fabs(w->reverse - reverse) <= 1e-6);
}

TEST(weights_profiles)
{
    ppr_weights w;
    CHECK_OK(ppr_weights_profile("default", &w));
    check_weights(&w, 1.0, 0.7, 0.9, 0.5, 0.4, 0.2, 0.3);
    CHECK_OK(ppr_weights_profile("debug", &w));
    check_weights(&w, 1.5, 0.7, 0.9, 0.5, 0.4, 0.2, 0.3);
    CHECK_OK(ppr_weights_profile("refactor", &w));
    check_weights(&w, 1.0, 0.7, 1.35, 0.75, 0.4, 0.2, 0.3);
    memset(&w, 0x5a, sizeof w);
    ppr_weights before = w;
    CHECK_INT(ppr_weights_profile("nope", &w), CORE_ENOTFOUND);
    CHECK(memcmp(&w, &before, sizeof w) == 0);
}

TEST(weights_parse_and_format)
{
    ppr_weights w;
    CHECK_OK(ppr_weights_profile("default", &w));
    CHECK_OK(ppr_weights_parse("calls=1.2,reverse=0.2", &w));
    check_weights(&w, 1.2, 0.7, 0.9, 0.5, 0.4, 0.2, 0.2);
    CHECK_OK(ppr_weights_parse("member_of=0,accesses=2.5", &w));
    check_weights(&w, 1.2, 0.7, 0.9, 0.5, 2.5, 0, 0.2);
    static const char *bad[] = {"bogus=1", "calls=abc",  "calls=-1", "calls",
                                "calls=",  "calls=1.2x", "=1",       "calls=1,nope=2"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ppr_weights t = w;
        int rc = ppr_weights_parse(bad[i], &t);
        if (rc != CORE_EUSAGE)
            unit_fail(__FILE__, __LINE__, "'%s' gave %d", bad[i], rc);
    }
    /* Format and parse back. */
    char buf[256];
    CHECK_OK(ppr_weights_profile("default", &w));
    ppr_weights_format(&w, buf, sizeof buf);
    printf("  default: %s\n", buf);
    CHECK(strstr(buf, "calls=1,") != NULL);
    CHECK(strstr(buf, "inherits=0.9") != NULL);
    CHECK(strstr(buf, "imports=0.7") != NULL);
    CHECK(strstr(buf, "member_of=0.2") != NULL);
    CHECK(strstr(buf, "reverse=0.3") != NULL);
    ppr_weights back;
    memset(&back, 0, sizeof back);
    CHECK_OK(ppr_weights_parse(buf, &back));
    check_weights(&back, 1.0, 0.7, 0.9, 0.5, 0.4, 0.2, 0.3);
    CHECK_OK(ppr_weights_profile("refactor", &w));
    ppr_weights_format(&w, buf, sizeof buf);
    CHECK_OK(ppr_weights_parse(buf, &back));
    check_weights(&back, 1.0, 0.7, 1.35, 0.75, 0.4, 0.2, 0.3);
    /* A short buffer is cut, terminated. */
    memset(buf, 'x', sizeof buf);
    ppr_weights_format(&w, buf, 8);
    CHECK(memchr(buf, 0, 8) != NULL);
    CHECK(buf[8] == 'x');
}

/* core.h: out-parameters are written only on success. */
TEST(weights_parse_failure_leaves_weights)
{
    ppr_weights w, before;
    CHECK_OK(ppr_weights_profile("default", &w));
    before = w;
    CHECK_INT(ppr_weights_parse("calls=2,bogus=1", &w), CORE_EUSAGE);
    CHECK(memcmp(&w, &before, sizeof w) == 0);
}

TEST(net_from_graph_shop)
{
    graph *g = open_shop();
    ppr_weights pw;
    CHECK_OK(ppr_weights_profile("default", &pw));
    ppr_net *net = NULL;
    CHECK_OK(ppr_net_from_graph(g, &pw, &net));
    uint32_t n = graph_nsymbols(g);
    CHECK_INT(ppr_net_nodes(net), n);
    double *want = calloc(n, sizeof *want), *got = calloc(n, sizeof *got);
    uint8_t *fwd = calloc(n, 1), *rev = calloc(n, 1), *gotrev = calloc(n, 1),
            *gotfwd = calloc(n, 1);
    CHECK(want && got && fwd && rev && gotrev && gotfwd);
    size_t edges_total = 0;
    uint32_t dangling = 0, reverse_seen = 0;
    for (uint32_t u = 0; u < n; u++) {
        /* Expected effective weights of u's out-edges, by target. */
        memset(want, 0, n * sizeof *want);
        memset(fwd, 0, n);
        memset(rev, 0, n);
        uint32_t c;
        const graph_edge *e = graph_out_edges(g, u, &c);
        for (uint32_t i = 0; i < c; i++) {
            want[e[i].node] += e[i].weight * pw.type[e[i].type];
            fwd[e[i].node] = 1;
        }
        e = graph_in_edges(g, u, &c);
        for (uint32_t i = 0; i < c; i++) {
            want[e[i].node] += e[i].weight * pw.type[e[i].type] * pw.reverse;
            rev[e[i].node] = 1;
        }
        double W = l1(want, n);
        CHECK(fabs(ppr_net_weight(net, u) - W) <= 1e-5 * W);
        const uint32_t *dst;
        const float *prob;
        const uint8_t *type;
        uint32_t k = ppr_net_out(net, u, &dst, &prob, &type);
        edges_total += k;
        if (W == 0) {
            CHECK_INT(k, 0);
            dangling++;
            continue;
        }
        memset(got, 0, n * sizeof *got);
        memset(gotrev, 0, n);
        memset(gotfwd, 0, n);
        double sum = 0;
        for (uint32_t i = 0; i < k; i++) {
            CHECK(dst[i] < n);
            CHECK(prob[i] > 0);
            CHECK((type[i] & ~PPR_REVERSE) < GRAPH_EDGE__COUNT);
            got[dst[i]] += prob[i];
            sum += prob[i];
            if (type[i] & PPR_REVERSE) {
                gotrev[dst[i]] = 1;
                reverse_seen++;
            } else {
                gotfwd[dst[i]] = 1;
            }
        }
        if (fabs(sum - 1) > 1e-5)
            unit_fail(__FILE__, __LINE__, "node %u: probabilities sum to %.9f", u, sum);
        for (uint32_t v = 0; v < n; v++) {
            CHECK(fabs(got[v] - want[v] / W) <= 1e-5);
            /* Reverse edges are marked, forward ones are not (where a
             * pair is only one of the two). */
            if (rev[v] && !fwd[v])
                CHECK(gotrev[v] && !gotfwd[v]);
            if (fwd[v] && !rev[v])
                CHECK(gotfwd[v] && !gotrev[v]);
        }
    }
    CHECK_INT(ppr_net_edges(net), edges_total);
    CHECK(reverse_seen > 0);
    CHECK(ppr_net_bytes(net) > edges_total * 4);
    printf("  shop: %u nodes, %zu walk edges, %u dangling\n", n, edges_total, dangling);
    /* The place -> reserve call and its reverse. */
    uint32_t place = unit_sym(g, "shop.orders.OrderService.place"),
             reserve = unit_sym(g, "shop.inventory.Inventory.reserve");
    CHECK(net_has_edge(net, reserve, place, GRAPH_EDGE_CALLS | PPR_REVERSE, NULL));
    CHECK(net_has_edge(net, place, reserve, GRAPH_EDGE_CALLS, NULL));
    free(want);
    free(got);
    free(fwd);
    free(rev);
    free(gotrev);
    free(gotfwd);
    ppr_net_free(net);
    graph_close(g);
}

/* ------------------------------------------------------------------ */
/* 9. The edge-list loader                                             */
/* ------------------------------------------------------------------ */

TEST(load_edges_good_file)
{
    const char *path = unit_write_str("good.edges", "# src dst type weight\n"
                                                    "0 1 calls 2\n"
                                                    "\n"
                                                    "1 2 3 0.5\n"
                                                    "2 0 imports 1.5   # a comment after an edge\n"
                                                    "2 1 inherits 0.5\n"
                                                    "5 2 member_of 1\n"
                                                    "0 1 calls 1\n");
    ppr_net *net = NULL;
    char why[256] = "";
    int rc = ppr_net_load_edges(path, &net, why, sizeof why);
    if (rc)
        unit_fail(__FILE__, __LINE__, "load: %d: %s", rc, why);
    CHECK_INT(ppr_net_nodes(net), 6);
    CHECK_INT(ppr_net_edges(net), 5); /* the two 0 -> 1 calls add up */
    const uint32_t *dst;
    const float *prob;
    const uint8_t *type;
    CHECK_INT(ppr_net_out(net, 0, &dst, &prob, &type), 1);
    CHECK(dst[0] == 1 && prob[0] == 1.0f && type[0] == GRAPH_EDGE_CALLS);
    CHECK(ppr_net_weight(net, 0) == 3);
    CHECK_INT(ppr_net_out(net, 1, &dst, &prob, &type), 1); /* raw: no reverse edges */
    CHECK(dst[0] == 2 && type[0] == 3);
    CHECK(ppr_net_weight(net, 1) == 0.5);
    uint32_t k = ppr_net_out(net, 2, &dst, &prob, &type);
    CHECK_INT(k, 2);
    for (uint32_t i = 0; i < k; i++) {
        if (dst[i] == 0)
            CHECK(fabs(prob[i] - 0.75) < 1e-6 && type[i] == GRAPH_EDGE_IMPORTS);
        else
            CHECK(dst[i] == 1 && fabs(prob[i] - 0.25) < 1e-6 && type[i] == GRAPH_EDGE_INHERITS);
    }
    CHECK_INT(ppr_net_out(net, 3, &dst, &prob, &type), 0);
    CHECK_INT(ppr_net_out(net, 5, &dst, &prob, &type), 1);
    CHECK(type[0] == GRAPH_EDGE_MEMBER_OF);
    ppr_net_free(net);
}

/* True when `why` holds the number `line` not as part of a longer one. */
static bool names_line(const char *why, int line)
{
    char num[16];
    snprintf(num, sizeof num, "%d", line);
    size_t len = strlen(num);
    for (const char *p = strstr(why, num); p; p = strstr(p + 1, num)) {
        bool before = p > why && p[-1] >= '0' && p[-1] <= '9';
        bool after = p[len] >= '0' && p[len] <= '9';
        if (!before && !after)
            return true;
    }
    return false;
}

TEST(load_edges_errors_name_the_line)
{
    static const struct {
        const char *line;
        const char *field; /* a word the reason must contain, or NULL */
    } cases[] = {
        {"x 1 calls 1", NULL},  /* bad source id */
        {"0 y calls 1", NULL},  /* bad destination id */
        {"-1 2 calls 1", NULL}, /* negative id */
        {"0 1 calls abc", "weight"},
        {"0 1 calls -2", "weight"},
        {"0 1 calls 1.5z", "weight"},
        {"0 1 calls 1e39", "weight"}, /* finite, but not as a float */
        {"0 1 teleports 1", "type"},
        {"0 1 64 1", "type"},
        {"0 1 calls", NULL}, /* missing field */
        {"0 1", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char text[512];
        /* The bad line is line 12. */
        snprintf(text, sizeof text,
                 "# header\n0 1 calls 1\n1 2 calls 1\n\n# c\n2 3 uses 1\n3 4 4 2\n4 0 calls 1\n"
                 "\n\n0 2 imports 0.5\n%s\n5 6 calls 1\n",
                 cases[i].line);
        const char *path = unit_write_str("bad.edges", text);
        ppr_net *net = NULL;
        char why[256] = "";
        int rc = ppr_net_load_edges(path, &net, why, sizeof why);
        if (rc >= 0)
            unit_fail(__FILE__, __LINE__, "'%s' was accepted", cases[i].line);
        if (!names_line(why, 12))
            unit_fail(__FILE__, __LINE__, "'%s': reason does not name line 12: %s", cases[i].line,
                      why);
        if (cases[i].field && !strstr(why, cases[i].field))
            unit_fail(__FILE__, __LINE__, "'%s': reason does not name the %s: %s", cases[i].line,
                      cases[i].field, why);
        if (!cases[i].field && !strstr(why, "src") && !strstr(why, "dst") && !strstr(why, "id") &&
            !strstr(why, "field") && !strstr(why, "missing") && !strstr(why, "weight") &&
            !strstr(why, "type"))
            unit_fail(__FILE__, __LINE__, "'%s': reason names no field: %s", cases[i].line, why);
    }
    char why[256] = "";
    ppr_net *net = NULL;
    CHECK_INT(ppr_net_load_edges(unit_tmp_path("no-such.edges"), &net, why, sizeof why), -ENOENT);
}

/* The net has a slot per id: ids far beyond what the edges use are refused
 * (one such line asked for tens of gigabytes; found by fuzz_edges). */
TEST(load_edges_ids_in_proportion)
{
    const char *path =
        unit_write_str("huge.edges", "0 1 calls 1\n4294967293 0 calls 1\n2 1 uses 1\n");
    ppr_net *net = NULL;
    char why[256] = "";
    CHECK_INT(ppr_net_load_edges(path, &net, why, sizeof why), CORE_EFORMAT);
    CHECK(net == NULL);
    CHECK(strstr(why, "huge.edges:2: node id 4294967293 is too large for 3 edges") != NULL);
    /* 2 ids per edge and 2^20 unused ones are fine. */
    path = unit_write_str("sparse.edges", "0 1 calls 1\n1048579 0 calls 1\n");
    CHECK_OK(ppr_net_load_edges(path, &net, why, sizeof why));
    CHECK_INT(ppr_net_nodes(net), 1048580);
    ppr_net_free(net);
    path = unit_write_str("sparse.edges", "0 1 calls 1\n1048580 0 calls 1\n");
    CHECK_INT(ppr_net_load_edges(path, &net, why, sizeof why), CORE_EFORMAT);
}

/* ------------------------------------------------------------------ */
/* 10. Explanations                                                    */
/* ------------------------------------------------------------------ */

/* The best path by an independent search: max over seeds of
 * s * alpha * prod((1 - alpha) P) along a path (Bellman-Ford style on a
 * small net). */
static double ref_best_path(const ppr_net *net, const ppr_entry *s, uint32_t ns, uint32_t target,
                            double alpha)
{
    uint32_t n = ppr_net_nodes(net);
    double *best = calloc(n, sizeof *best);
    CHECK(best != NULL);
    for (uint32_t i = 0; i < ns; i++)
        best[s[i].node] = fmax(best[s[i].node], s[i].score * alpha);
    for (uint32_t round = 0; round < n; round++) {
        bool changed = false;
        for (uint32_t u = 0; u < n; u++) {
            if (best[u] == 0)
                continue;
            const uint32_t *dst;
            const float *prob;
            const uint8_t *type;
            uint32_t k = ppr_net_out(net, u, &dst, &prob, &type);
            for (uint32_t i = 0; i < k; i++) {
                double c = best[u] * (1 - alpha) * prob[i];
                if (c > best[dst[i]] * (1 + 1e-12)) {
                    best[dst[i]] = c;
                    changed = true;
                }
            }
        }
        if (!changed)
            break;
    }
    double r = best[target];
    free(best);
    return r;
}

/* The path is a walk from its seed to target over edges of the net, and
 * its contribution is the product along it. */
static void check_path(const ppr_net *net, const ppr_path *p, const ppr_entry *s, uint32_t ns,
                       uint32_t target, double alpha)
{
    double seedw = 0;
    for (uint32_t i = 0; i < ns; i++)
        if (s[i].node == p->seed)
            seedw = s[i].score;
    CHECK(seedw > 0);
    CHECK(p->len <= PPR_MAX_PATH);
    double c = seedw * alpha;
    uint32_t at = p->seed;
    for (uint32_t i = 0; i < p->len; i++) {
        const ppr_step *st = &p->steps[i];
        CHECK_INT(st->from, at);
        CHECK(net_has_edge(net, st->from, st->to, st->type, &st->prob));
        c *= (1 - alpha) * st->prob;
        at = st->to;
    }
    CHECK_INT(at, target);
    CHECK(fabs(p->contribution - c) <= 1e-9 * c);
}

TEST(explain_best_path)
{
    /* 0 -> 1 (1), 0 -> 2 (3), 1 -> 3, 2 -> 3, 2 -> 4, 5 -> 3; 6 alone. */
    edges g = {7, NULL, 0, 0};
    add_edge(&g, 0, 1, 1, 1);
    add_edge(&g, 0, 2, 2, 3);
    add_edge(&g, 1, 3, 1, 1);
    add_edge(&g, 2, 3, 5, 1);
    add_edge(&g, 2, 4, 0, 1);
    add_edge(&g, 5, 3, 7, 1);
    ppr_net *net = make_net(&g, NULL);
    ppr_work *w = make_work(net);
    double a = 0.15;
    ppr_entry s = {0, 1};
    ppr_path p;
    CHECK_OK(ppr_explain(w, &s, 1, 3, a, 0, &p));
    CHECK(p.share == 0); /* no push yet */
    CHECK_INT(p.seed, 0);
    CHECK_INT(p.len, 2);
    CHECK_INT(p.steps[0].from, 0);
    CHECK_INT(p.steps[0].to, 2);
    CHECK_INT(p.steps[0].type, 2);
    CHECK(fabs(p.steps[0].prob - 0.75) < 1e-7);
    CHECK_INT(p.steps[1].from, 2);
    CHECK_INT(p.steps[1].to, 3);
    CHECK_INT(p.steps[1].type, 5);
    CHECK(fabs(p.steps[1].prob - 0.5) < 1e-7);
    double want = 1 * a * ((1 - a) * 0.75) * ((1 - a) * 0.5);
    CHECK(fabs(p.contribution - want) <= 1e-9 * want);
    check_path(net, &p, &s, 1, 3, a);
    /* A second, heavier seed with a shorter path wins: 0.5 a (1-a) >
     * a (1-a)^2 0.375. */
    ppr_entry two[2] = {{0, 1}, {5, 0.5f}};
    CHECK_OK(ppr_explain(w, two, 2, 3, a, 0, &p));
    CHECK_INT(p.seed, 5);
    CHECK_INT(p.len, 1);
    CHECK_INT(p.steps[0].type, 7);
    CHECK(fabs(p.contribution - 0.5 * a * (1 - a)) <= 1e-9);
    /* ...but not when it weighs less. */
    two[1].score = 0.2f;
    CHECK_OK(ppr_explain(w, two, 2, 3, a, 0, &p));
    CHECK_INT(p.seed, 0);
    CHECK_INT(p.len, 2);
    /* Unreachable: isolated 6, and 5 from 0. */
    CHECK_INT(ppr_explain(w, &s, 1, 6, a, 0, &p), CORE_ENOTFOUND);
    CHECK_INT(ppr_explain(w, &s, 1, 5, a, 0, &p), CORE_ENOTFOUND);
    /* Assumed: the seed itself is explained by the empty path,
     * contribution s * alpha. */
    CHECK_OK(ppr_explain(w, &s, 1, 0, a, 0, &p));
    CHECK_INT(p.len, 0);
    CHECK_INT(p.seed, 0);
    CHECK(fabs(p.contribution - a) <= 1e-12);
    /* After a push from the same seed: the path is the same, and share
     * is its contribution over the target's score. 3 is reached by two
     * paths (share below 1), 4 by one only (share 1). */
    ppr_opts o = opts(a, 1e-12);
    CHECK_OK(ppr_push(w, &s, 1, &o, NULL));
    CHECK_OK(ppr_explain(w, &s, 1, 3, a, 0, &p));
    CHECK_INT(p.len, 2);
    CHECK(fabs(p.share - p.contribution / ppr_work_score(w, 3)) <= 1e-9);
    CHECK(fabs(p.share - 0.375 / (0.375 + 0.25)) <= 1e-6);
    CHECK_OK(ppr_explain(w, &s, 1, 4, a, 0, &p));
    CHECK_INT(p.len, 2);
    CHECK_INT(p.steps[1].to, 4);
    CHECK(fabs(p.share - 1) <= 1e-6);
    /* The explanation leaves the push's estimate alone. */
    ppr_entry top[8];
    CHECK_INT(ppr_work_topk(w, 8, NULL, top), 5);
    CHECK(fabs(ppr_work_score(w, 0) - a) <= 1e-9);
    ppr_work_free(w);
    ppr_net_free(net);
    free(g.e);

    /* A chain with a search limit: it gives up instead of answering. */
    edges c = chain(12);
    net = make_net(&c, NULL);
    w = make_work(net);
    CHECK_OK(ppr_explain(w, &s, 1, 10, a, 0, &p));
    CHECK_INT(p.len, 10);
    CHECK(ppr_explain(w, &s, 1, 10, a, 3, &p) != 0);
    ppr_work_free(w);
    ppr_net_free(net);
    free(c.e);

    /* Longer than PPR_MAX_PATH steps: CORE_ELIMIT; exactly that many: ok. */
    c = chain(30);
    net = make_net(&c, NULL);
    w = make_work(net);
    CHECK_OK(ppr_explain(w, &s, 1, PPR_MAX_PATH, a, 0, &p));
    CHECK_INT(p.len, PPR_MAX_PATH);
    CHECK_INT(p.steps[PPR_MAX_PATH - 1].to, PPR_MAX_PATH);
    CHECK_INT(ppr_explain(w, &s, 1, PPR_MAX_PATH + 1, a, 0, &p), CORE_ELIMIT);
    CHECK_INT(ppr_explain(w, &s, 1, 29, a, 0, &p), CORE_ELIMIT);
    /* ...and the workspace still explains afterwards. */
    CHECK_OK(ppr_explain(w, &s, 1, 3, a, 0, &p));
    CHECK_INT(p.len, 3);
    ppr_work_free(w);
    ppr_net_free(net);
    free(c.e);
}

/* Against the independent search on random graphs and on the shop graph
 * (typed, with reverse steps). */
TEST(explain_matches_reference_search)
{
    for (uint64_t t = 0; t < 10; t++) {
        edges g = random_graph(150, 2, 300 + t, false, false);
        ppr_net *net = make_net(&g, NULL);
        ppr_work *w = make_work(net);
        rng r = {t};
        ppr_entry s[2] = {{pick_seed(&r, net), 1}, {pick_seed(&r, net), 0.4f}};
        if (s[1].node == s[0].node)
            s[1].node = (s[0].node + 1) % 150;
        for (int q = 0; q < 10; q++) {
            uint32_t target = rng_below(&r, 150);
            double want = ref_best_path(net, s, 2, target, 0.15);
            ppr_path p;
            int rc = ppr_explain(w, s, 2, target, 0.15, 0, &p);
            if (want == 0) {
                CHECK_INT(rc, CORE_ENOTFOUND);
                continue;
            }
            CHECK_OK(rc);
            check_path(net, &p, s, 2, target, 0.15);
            if (!(fabs(p.contribution - want) <= 1e-6 * want))
                unit_fail(__FILE__, __LINE__, "graph %llu target %u: contribution %g, best %g",
                          (unsigned long long)t, target, p.contribution, want);
        }
        ppr_work_free(w);
        ppr_net_free(net);
        free(g.e);
    }
    graph *g = open_shop();
    ppr_weights pw;
    CHECK_OK(ppr_weights_profile("default", &pw));
    ppr_net *net = NULL;
    CHECK_OK(ppr_net_from_graph(g, &pw, &net));
    ppr_work *w = make_work(net);
    ppr_entry s = {unit_sym(g, "shop.inventory.Inventory.reserve"), 1};
    uint32_t main_ = unit_sym(g, "run.main");
    ppr_path p;
    CHECK_OK(ppr_explain(w, &s, 1, main_, 0.15, 0, &p));
    check_path(net, &p, &s, 1, main_, 0.15);
    CHECK(fabs(p.contribution - ref_best_path(net, &s, 1, main_, 0.15)) <= 1e-6 * p.contribution);
    bool reversed = false;
    for (uint32_t i = 0; i < p.len; i++)
        reversed |= (p.steps[i].type & PPR_REVERSE) != 0;
    CHECK(reversed); /* main calls towards reserve: reached backwards */
    ppr_work_free(w);
    ppr_net_free(net);
    graph_close(g);
}

/* ------------------------------------------------------------------ */
/* 11. Impact                                                          */
/* ------------------------------------------------------------------ */

static bool impact_type(uint8_t t)
{
    return t == GRAPH_EDGE_CALLS || t == GRAPH_EDGE_INHERITS || t == GRAPH_EDGE_USES ||
           t == GRAPH_EDGE_IMPORTS;
}

/* Best chain products towards `symbol`, by an independent relaxation over
 * the in-edges. */
static double *ref_impact(const graph *g, uint32_t symbol, const ppr_impact_opts *o)
{
    uint32_t n = graph_nsymbols(g);
    double *best = calloc(n, sizeof *best);
    CHECK(best != NULL);
    best[symbol] = 1;
    for (uint32_t round = 0; round < n; round++) {
        bool changed = false;
        for (uint32_t v = 0; v < n; v++) {
            if (best[v] < o->threshold)
                continue;
            uint32_t c;
            const graph_edge *e = graph_in_edges(g, v, &c);
            for (uint32_t i = 0; i < c; i++) {
                if (!impact_type(e[i].type))
                    continue;
                double conf =
                    fmin(1.0, o->weights.type[e[i].type]) * fmin(1.0, e[i].weight) * o->decay;
                double sc = best[v] * conf;
                if (e[i].node != symbol && sc > best[e[i].node] * (1 + 1e-12)) {
                    best[e[i].node] = sc;
                    changed = true;
                }
            }
        }
        if (!changed)
            break;
    }
    best[symbol] = 0;
    return best;
}

static float edge_weight(const graph *g, uint32_t from, uint32_t to, graph_edge_type t)
{
    uint32_t c;
    const graph_edge *e = graph_out_edges(g, from, &c);
    for (uint32_t i = 0; i < c; i++)
        if (e[i].node == to && e[i].type == t)
            return e[i].weight;
    unit_fail(__FILE__, __LINE__, "no edge %u -> %u", from, to);
}

TEST(impact_on_shop)
{
    graph *g = open_shop();
    uint32_t reserve = unit_sym(g, "shop.inventory.Inventory.reserve"),
             place = unit_sym(g, "shop.orders.OrderService.place"), main_ = unit_sym(g, "run.main");
    ppr_impact_opts o = ppr_impact_opts_default();
    CHECK(fabs(o.decay - 0.8) < 1e-12 && fabs(o.threshold - 0.05) < 1e-12);
    check_weights(&o.weights, 1.0, 0.7, 0.9, 0.5, 0.4, 0.2, 0.3);
    ppr_impact *out = NULL;
    uint32_t count = 0;
    CHECK_OK(ppr_impact_of(g, reserve, &o, &out, &count));
    double *ref = ref_impact(g, reserve, &o);
    uint32_t nref = 0;
    for (uint32_t u = 0; u < graph_nsymbols(g); u++)
        nref += ref[u] >= o.threshold;
    for (uint32_t i = 0; i < count; i++) {
        graph_symbol s;
        graph_get_symbol(g, out[i].node, &s);
        printf("  %-40s %.4f depth %u via %u type %u\n", s.qualname, out[i].score, out[i].depth,
               out[i].via, out[i].type);
    }
    CHECK_INT(count, nref);
    int ip = -1, im = -1;
    for (uint32_t i = 0; i < count; i++) {
        CHECK(out[i].node != reserve);
        CHECK(fabs(out[i].score - ref[out[i].node]) <= 1e-5);
        CHECK(out[i].score >= o.threshold);
        if (i)
            CHECK(out[i - 1].score >= out[i].score);
        if (out[i].node == place)
            ip = (int)i;
        if (out[i].node == main_)
            im = (int)i;
    }
    CHECK(ip >= 0 && im >= 0 && ip < im);
    double cp = fmin(1.0, edge_weight(g, place, reserve, GRAPH_EDGE_CALLS)) * 0.8;
    double cm = fmin(1.0, edge_weight(g, main_, place, GRAPH_EDGE_CALLS)) * 0.8;
    CHECK(fabs(out[ip].score - cp) <= 1e-5);
    CHECK(fabs(out[im].score - cp * cm) <= 1e-5);
    CHECK(out[ip].score > out[im].score);
    CHECK_INT(out[ip].via, reserve);
    CHECK_INT(out[ip].type, GRAPH_EDGE_CALLS);
    CHECK_INT(out[ip].depth, 1);
    CHECK_INT(out[im].via, place);
    CHECK_INT(out[im].type, GRAPH_EDGE_CALLS);
    CHECK_INT(out[im].depth, 2);
    free(out);
    free(ref);

    /* Threshold between the two: main is pruned. */
    o.threshold = (cp + cp * cm) / 2;
    CHECK_OK(ppr_impact_of(g, reserve, &o, &out, &count));
    CHECK_INT(count, 1);
    CHECK_INT(out[0].node, place);
    free(out);
    /* A type weighted above 1 (the debug profile's calls, 1.5) counts as
     * 1: the decay still applies per hop. */
    o = ppr_impact_opts_default();
    CHECK_OK(ppr_weights_profile("debug", &o.weights));
    CHECK_OK(ppr_impact_of(g, reserve, &o, &out, &count));
    CHECK_INT(count, 2);
    CHECK(fabs(out[0].score - cp) <= 1e-5 && fabs(out[1].score - cp * cm) <= 1e-5);
    free(out);
    /* max_results. */
    o = ppr_impact_opts_default();
    o.max_results = 1;
    CHECK_OK(ppr_impact_of(g, reserve, &o, &out, &count));
    CHECK_INT(count, 1);
    CHECK_INT(out[0].node, place);
    free(out);

    /* A subclass depends on its base. */
    o = ppr_impact_opts_default();
    uint32_t gw = unit_sym(g, "shop.payments.gateway.Gateway"),
             card = unit_sym(g, "shop.payments.gateway.CardGateway");
    CHECK_OK(ppr_impact_of(g, gw, &o, &out, &count));
    ref = ref_impact(g, gw, &o);
    bool sub = false;
    for (uint32_t i = 0; i < count; i++) {
        CHECK(fabs(out[i].score - ref[out[i].node]) <= 1e-5);
        if (out[i].node == card) {
            sub = out[i].via == gw && out[i].type == GRAPH_EDGE_INHERITS && out[i].depth == 1;
        }
    }
    CHECK(sub);
    free(out);
    free(ref);

    /* Nothing depends on main. */
    out = NULL;
    CHECK_OK(ppr_impact_of(g, main_, &o, &out, &count));
    CHECK_INT(count, 0);
    free(out);
    graph_close(g);
}

/* ------------------------------------------------------------------ */
/* Hub vectors and random walks                                        */
/* ------------------------------------------------------------------ */

/* The hub vectors of a net: its `count` highest-degree nodes (at least
 * min_degree edges), each x(e_h) to M entries, built without hubs. */
static ppr_basis *make_hubs(const ppr_net *net, uint32_t count, uint32_t min_degree, uint32_t M,
                            double alpha)
{
    uint32_t *h = calloc(count, sizeof *h);
    CHECK(h != NULL);
    uint32_t nh = ppr_net_hubs(net, count, min_degree, h);
    CHECK(nh > 0);
    ppr_opts o = opts(alpha, 1e-9);
    ppr_basis *b = NULL;
    CHECK_OK(ppr_basis_build(net, h, nh, M, &o, 2, &b));
    free(h);
    return b;
}

TEST(hub_list_by_degree)
{
    edges g = random_graph(3000, 4, 7, true, false);
    ppr_net *net = make_default_net(&g, true);
    uint32_t h[50];
    uint32_t n = ppr_net_hubs(net, 50, 20, h);
    CHECK(n > 0 && n <= 50);
    uint32_t prev = UINT32_MAX;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t d = ppr_net_out(net, h[i], NULL, NULL, NULL);
        CHECK(d >= 20 && d <= prev);
        prev = d;
    }
    /* Nothing of at least the last degree was left out (beyond the cap). */
    uint32_t more = 0;
    for (uint32_t u = 0; u < ppr_net_nodes(net); u++)
        more += ppr_net_out(net, u, NULL, NULL, NULL) > prev;
    CHECK(more <= n);
    CHECK_INT(ppr_net_hubs(net, 50, 1000000, h), 0);
    ppr_net_free(net);
    free(g.e);
}

TEST(hubs_keep_the_push_within_its_bound)
{
    /* Non-local random graphs have hubs at low ids. */
    double recall_sum = 0;
    int trials = 0;
    for (uint64_t seed = 1; seed <= 6; seed++) {
        edges g = random_graph(4000, 5, 900 + seed, true, false);
        ppr_net *net = make_default_net(&g, true);
        ppr_basis *hubs = make_hubs(net, 40, 16, 2048, 0.15);
        ppr_work *w = make_work(net);
        rng r = {seed};
        for (int q = 0; q < 5; q++) {
            /* Some queries start at a hub itself. */
            uint32_t s = q == 0 ? ppr_basis_nodes(hubs)[0] : pick_seed(&r, net);
            ppr_entry seed_e = {s, 1.0f};
            ppr_opts o = opts(0.15, 1e-6);
            ppr_stats plain, with;
            CHECK_OK(ppr_push(w, &seed_e, 1, &o, &plain));
            o.hubs = hubs;
            CHECK_OK(ppr_push(w, &seed_e, 1, &o, &with));
            double *x = exact(net, &seed_e, 1, 0.15);
            uint32_t n = ppr_net_nodes(net);
            double d = work_dist(w, x, n);
            CHECK(d <= with.error_bound + fp_slack(l1(x, n)));
            /* A hub is never pushed, and that is what saves work. */
            CHECK(with.pushes <= plain.pushes);
            ppr_entry top[10];
            float zero = 0;
            ppr_adjust adj = {&s, &zero, 1};
            uint32_t nt = ppr_work_topk(w, 10, &adj, top);
            x[s] = 0;
            recall_sum += recall(top, nt, x, n, 10);
            trials++;
            free(x);
        }
        ppr_work_free(w);
        ppr_basis_free(hubs);
        ppr_net_free(net);
        free(g.e);
    }
    printf("  hubs: mean top-10 recall %.4f over %d queries\n", recall_sum / trials, trials);
    CHECK(recall_sum / trials >= 0.99);
}

TEST(hubs_of_another_net_are_refused)
{
    edges g1 = random_graph(500, 3, 1, true, false), g2 = random_graph(600, 3, 2, true, false);
    ppr_net *n1 = make_default_net(&g1, true), *n2 = make_default_net(&g2, true);
    ppr_basis *hubs = make_hubs(n1, 5, 1, 64, 0.15);
    ppr_work *w = make_work(n2);
    ppr_opts o = opts(0.15, 1e-6);
    o.hubs = hubs;
    ppr_entry s = {3, 1.0f};
    CHECK_INT(ppr_push(w, &s, 1, &o, NULL), CORE_EUSAGE);
    ppr_work_free(w);
    ppr_basis_free(hubs);
    ppr_net_free(n1);
    ppr_net_free(n2);
    free(g1.e);
    free(g2.e);
}

TEST(walks_are_repeatable_and_bounded)
{
    edges g = random_graph(5000, 4, 31, true, false);
    ppr_net *net = make_default_net(&g, true);
    ppr_work *w = make_work(net);
    uint32_t n = ppr_net_nodes(net);
    /* A signed seed too: walks carry the residual's sign. */
    ppr_entry seeds[2] = {{17, 1.0f}, {4001, -0.25f}};
    double *x = exact(net, seeds, 2, 0.15);
    ppr_opts o = opts(0.15, 1e-4);
    ppr_stats push_only, walked;
    CHECK_OK(ppr_push(w, seeds, 2, &o, &push_only));
    double *p0 = work_scores(w, n);
    o.walks = 3000;
    o.walk_seed = 42;
    CHECK_OK(ppr_push(w, seeds, 2, &o, &walked));
    double *a = work_scores(w, n);
    CHECK_OK(ppr_push(w, seeds, 2, &o, NULL));
    double *b = work_scores(w, n);
    /* The same query, the same walks. */
    CHECK(memcmp(a, b, n * sizeof *a) == 0);
    /* The bound covers the walks' worst case. */
    CHECK(dist(a, x, n) <= walked.error_bound + fp_slack(l1(x, n)));
    CHECK(walked.error_bound >= 2 * push_only.error_bound * 0.99);
    /* Another walk seed, other walks. */
    o.walk_seed = 43;
    CHECK_OK(ppr_push(w, seeds, 2, &o, NULL));
    double *c = work_scores(w, n);
    CHECK(memcmp(a, c, n * sizeof *a) != 0);
    /* Unbiased: the mean of many walk seeds is closer to x than the push
     * alone, which leaves the residual out. */
    double *mean = calloc(n, sizeof *mean);
    CHECK(mean != NULL);
    const int runs = 40;
    for (int k = 0; k < runs; k++) {
        o.walk_seed = 1000 + (uint64_t)k;
        CHECK_OK(ppr_push(w, seeds, 2, &o, NULL));
        for (uint32_t u = 0; u < n; u++)
            mean[u] += ppr_work_score(w, u) / runs;
    }
    double d_push = dist(p0, x, n), d_mean = dist(mean, x, n);
    printf("  push alone L1 %.4g, one walk run %.4g, mean of %d runs %.4g\n", d_push, dist(a, x, n),
           runs, d_mean);
    CHECK(d_mean < 0.5 * d_push);
    free(mean);
    free(x);
    free(p0);
    free(a);
    free(b);
    free(c);
    ppr_work_free(w);
    ppr_net_free(net);
    free(g.e);
}

TEST(walks_and_hubs_find_a_super_hub)
{
    /* Local structure plus one node everyone calls: its score arrives
     * from all over the graph in amounts each below the push threshold,
     * the case that forward push alone gets wrong. */
    const uint32_t n = 20000;
    edges g = {n, NULL, 0, 0};
    rng r = {77};
    for (uint32_t u = 1; u < n; u++) {
        for (int k = 0; k < 4; k++)
            add_edge(&g, u, 1 + (u + 1 + rng_below(&r, 8)) % (n - 1), GRAPH_EDGE_CALLS, 1.0f);
        if (rng_unit(&r) < 0.5)
            add_edge(&g, u, 0, GRAPH_EDGE_CALLS, 1.0f);
    }
    ppr_net *net = make_default_net(&g, true);
    ppr_basis *hubs = make_hubs(net, 1, 100, 4096, 0.15);
    CHECK_INT(ppr_basis_nodes(hubs)[0], 0);
    ppr_work *w = make_work(net);
    double err_push = 0, err_both = 0;
    for (uint32_t q = 0; q < 8; q++) {
        ppr_entry s = {1 + q * 2311, 1.0f};
        double *x = exact(net, &s, 1, 0.15);
        ppr_opts o = opts(0.15, 1e-5);
        CHECK_OK(ppr_push(w, &s, 1, &o, NULL));
        err_push += fabs(ppr_work_score(w, 0) - x[0]) / x[0];
        o.hubs = hubs;
        o.walks = 4000;
        ppr_stats st;
        CHECK_OK(ppr_push(w, &s, 1, &o, &st));
        err_both += fabs(ppr_work_score(w, 0) - x[0]) / x[0];
        CHECK(work_dist(w, x, n) <= st.error_bound + fp_slack(l1(x, n)));
        free(x);
    }
    printf("  super hub: mean relative error, push alone %.3f, with hub vector and walks %.3f\n",
           err_push / 8, err_both / 8);
    CHECK(err_push / 8 > 0.05);
    CHECK(err_both / 8 < 0.02);
    ppr_work_free(w);
    ppr_basis_free(hubs);
    ppr_net_free(net);
    free(g.e);
}

TEST(no_allocation_with_hubs_and_walks)
{
#ifndef PMRAG_COUNT_ALLOC
    printf("  skipped: built without PMRAG_COUNT_ALLOC (--wrap=malloc,...), e.g. under "
           "sanitizers\n");
#else
    edges g = random_graph(3000, 4, 55, true, false);
    ppr_net *net = make_default_net(&g, true);
    ppr_basis *hubs = make_hubs(net, 20, 8, 512, 0.15);
    ppr_work *w = make_work(net);
    ppr_opts o = opts(0.15, 1e-5);
    o.hubs = hubs;
    o.walks = 1000;
    ppr_entry s = {5, 1.0f};
    ppr_entry top[10];
    CHECK_OK(ppr_push(w, &s, 1, &o, NULL)); /* first use marks the hubs */
    unsigned long before = alloc_events();
    rng r = {9};
    for (int i = 0; i < 500; i++) {
        s.node = pick_seed(&r, net);
        o.walk_seed = (uint64_t)i;
        CHECK_OK(ppr_push(w, &s, 1, &o, NULL));
        ppr_work_topk(w, 10, NULL, top);
    }
    CHECK_INT(alloc_events() - before, 0);
    ppr_work_free(w);
    ppr_basis_free(hubs);
    ppr_net_free(net);
    free(g.e);
#endif
}
