/*
 * The personalized-PageRank engine measured on synthetic code-like graphs
 * (bench.h): build, cold queries against power iteration, bases, and
 * simulated cases one event at a time.
 */
#include "bench.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BENCH_TOPK 10
#define BENCH_DECAY 0.8
#define BENCH_BETA 1.0
#define BENCH_POWER_TOL 1e-10
#define BENCH_POWER_MAX_ITER 20000
/* From this size on, the power-iteration checks use fewer seeds/cases. */
#define BENCH_BIG 500000u
/* The push path (no bases) runs this many events, or for this long. */
#define BENCH_PUSH_EVENTS 1000u
#define BENCH_PUSH_NS 5000000000ull

/* Quantile q of n sorted values, in microseconds (nearest rank). */
static double quantile_us(const uint64_t *sorted, size_t n, double q)
{
    if (n == 0)
        return 0;
    size_t rank = (size_t)ceil(q * (double)n);
    if (rank < 1)
        rank = 1;
    if (rank > n)
        rank = n;
    return (double)sorted[rank - 1] / 1e3;
}

static double median_d(double *v, size_t n)
{
    if (n == 0)
        return 0;
    for (size_t i = 1; i < n; i++) /* insertion sort: n is small */
        for (size_t j = i; j > 0 && v[j - 1] > v[j]; j--) {
            double t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static double ms_since(uint64_t t0)
{
    return (double)(core_now_ns() - t0) / 1e6;
}

static bool has_out(const ppr_net *net, uint32_t u)
{
    const uint32_t *dst;
    const float *prob;
    const uint8_t *type;
    return ppr_net_out(net, u, &dst, &prob, &type) > 0;
}

static uint32_t random_live_node(const ppr_net *net, bench_rng *r)
{
    uint32_t n = ppr_net_nodes(net);
    for (;;) {
        uint32_t u = bench_rng_below(r, n);
        if (has_out(net, u))
            return u;
    }
}

/*
 * Top-k recall of approx (k entries at most, best first) against the exact
 * vector x: the share of the exact top k (by score, `exclude` left out)
 * that approx found, ties at the k-th score counting as found. When fewer
 * than k nodes have a nonzero exact score, only those count.
 */
static double recall_at_k(const double *x, uint32_t n, uint32_t exclude, const ppr_entry *approx,
                          uint32_t napprox, uint32_t k)
{
    double top[BENCH_TOPK];
    uint32_t nt = 0;
    for (uint32_t u = 0; u < n; u++) {
        double s = x[u];
        if (u == exclude || s <= 0 || (nt == k && s <= top[nt - 1]))
            continue;
        uint32_t i = nt < k ? nt++ : k - 1;
        while (i > 0 && top[i - 1] < s) {
            top[i] = top[i - 1];
            i--;
        }
        top[i] = s;
    }
    if (nt == 0)
        return 1;
    double kth = top[nt - 1] * (1 - 1e-9);
    uint32_t hits = 0;
    for (uint32_t i = 0; i < napprox && i < nt; i++)
        if (approx[i].node != exclude && x[approx[i].node] >= kth)
            hits++;
    return (double)hits / nt;
}

/* ------------------------------------------------------------------ */
/* Activities and cases                                                */
/* ------------------------------------------------------------------ */

/*
 * The activities: nodes that emit events (log lines, spans), mostly
 * functions and methods (85%), else classes, modules and variables, all
 * with out-edges. Sorted by node, so that neighbours in the array are in
 * the same or nearby modules.
 */
static uint32_t choose_activities(const bench_graph *g, const ppr_net *net, uint32_t want,
                                  bench_rng *r, uint32_t **out)
{
    uint32_t live = 0;
    for (uint32_t u = 0; u < g->n; u++)
        live += has_out(net, u);
    if (want > live / 2)
        want = live / 2;
    uint8_t *taken = core_xcalloc(g->n, 1);
    uint32_t *a = core_xmalloc(((size_t)want + 1) * sizeof *a);
    uint32_t count = 0;
    while (count < want) {
        bool want_callable = bench_rng_unit(r) < 0.85;
        for (int tries = 0; tries < 1000; tries++) {
            uint32_t u = bench_rng_below(r, g->n);
            bool callable = g->kind[u] == BENCH_FUNCTION || g->kind[u] == BENCH_METHOD;
            if (callable == want_callable && !taken[u] && has_out(net, u)) {
                taken[u] = 1;
                a[count++] = u;
                break;
            }
        }
    }
    free(taken);
    /* Sort (counting: the marks are gone, so re-mark). */
    uint8_t *mark = core_xcalloc(g->n, 1);
    for (uint32_t i = 0; i < count; i++)
        mark[a[i]] = 1;
    uint32_t k = 0;
    for (uint32_t u = 0; u < g->n && k < count; u++)
        if (mark[u])
            a[k++] = u;
    free(mark);
    *out = a;
    return count;
}

/*
 * The cases' process: a Markov chain over the activities. Each activity
 * has three successors, mostly among the next few activities (the code it
 * goes on to run is nearby), sometimes anywhere. From the current
 * activity: the same one again 8% (a loop), a random one 10%, else a
 * successor (50/30/20).
 */
typedef struct chain {
    uint32_t count;
    uint32_t (*succ)[3];
} chain;

static void chain_build(chain *c, uint32_t count, bench_rng *r)
{
    c->count = count;
    c->succ = core_xmalloc((size_t)count * sizeof *c->succ);
    for (uint32_t i = 0; i < count; i++)
        for (int j = 0; j < 3; j++)
            c->succ[i][j] = bench_rng_unit(r) < 0.7 ? (i + 1 + bench_rng_below(r, 6)) % count
                                                    : bench_rng_below(r, count);
}

static uint32_t chain_next(const chain *c, uint32_t cur, bench_rng *r)
{
    double x = bench_rng_unit(r);
    if (x < 0.08)
        return cur;
    if (x < 0.18)
        return bench_rng_below(r, c->count);
    double y = bench_rng_unit(r);
    return c->succ[cur][y < 0.5 ? 0 : y < 0.8 ? 1 : 2];
}

/* ------------------------------------------------------------------ */
/* One size                                                            */
/* ------------------------------------------------------------------ */

/*
 * One size is measured in steps, in this order: the graph and its net, the
 * hub vectors, cold queries, their check against power iteration, the
 * activities' bases, the warm cases, the push path, the warm states' check.
 * Each step reads what the earlier ones left here and adds its own figures
 * (to row, or to the fields under its name); every draw comes from rng in
 * step order. size_free releases everything, whichever step failed.
 */
typedef struct size_run {
    const bench_cfg *cfg;
    uint32_t n;
    bench_row *row;
    char *why;
    size_t whylen;
    bench_rng rng;
    /* The graph and its net. */
    bench_graph g; /* without its edges: the net has them */
    bench_synth_stats gs;
    size_t generated; /* edges generated */
    double synth_ms;
    ppr_net *net;
    ppr_work *w;
    /* The hub vectors; o is the caller's options, stopping at them. */
    ppr_basis *hubs;
    ppr_opts o;
    /* Cold queries. */
    unsigned nq;
    uint32_t *seeds; /* nq */
    double edges_relaxed, touched, err_sum, err_max;
    uint32_t budget_hits;
    /* Cold queries against power iteration; x is an exact vector. */
    double *x; /* n */
    uint32_t nexact_done, iters_max;
    double recall_min, l1_max, power_med;
    bool bound_holds;
    /* The activities' bases. */
    uint32_t *acts, nacts;
    unsigned threads;
    ppr_basis *basis;
    double basis_ms;
    /* Warm cases (the first ncheck kept for their check), then the push
     * path, on the same chain. */
    chain ch;
    unsigned ncases, ncheck;
    uint32_t *len;      /* events per case */
    uint64_t *ev_ns;    /* time per event: the warm cases', then the push path's */
    ppr_entry *storage; /* the state of the case in progress (M entries) */
    uint32_t **check_events;
    ppr_entry *check_state;
    ppr_vec *check_vec;
    size_t ev, push_ev;
    double used_mean, err_end_sum;
    /* The warm states against power iteration. */
    double wrec_min, wl1_sum, wl1_max, werr_sum;
    bool wbound;
} size_run;

static void progress(const size_run *sr, const char *fmt, ...) CORE_PRINTF(2, 3);
static void progress(const size_run *sr, const char *fmt, ...)
{
    if (!sr->cfg->progress)
        return;
    char line[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    sr->cfg->progress(sr->cfg->progress_ud, line);
}

static void progress_clear(const size_run *sr)
{
    if (sr->cfg->progress)
        sr->cfg->progress(sr->cfg->progress_ud, NULL);
}

static int fail(const size_run *sr, const char *what, int rc)
{
    progress_clear(sr);
    snprintf(sr->why, sr->whylen, "%s: %s", what, core_strerror(rc));
    return rc;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The graph of n nodes, its net (typed, default profile) and a workspace. */
static int size_graph(size_run *sr)
{
    uint32_t n = sr->n;
    progress(sr, "%u nodes: generating", n);
    uint64_t t0 = core_now_ns();
    int rc = bench_synth(n, sr->cfg->seed, &sr->g);
    if (rc)
        return fail(sr, "generating the graph", rc);
    sr->synth_ms = ms_since(t0);
    bench_synth_stats_of(&sr->g, &sr->gs);
    ppr_weights wt;
    ppr_weights_profile("default", &wt);
    progress(sr, "%u nodes: building the net", n);
    t0 = core_now_ns();
    rc = ppr_net_from_edges(n, sr->g.edges, sr->g.m, &wt, &sr->net);
    sr->row->build_ms = ms_since(t0);
    sr->generated = sr->g.m;
    free(sr->g.edges); /* the net has what it needs */
    sr->g.edges = NULL;
    sr->g.m = 0;
    if (rc)
        return fail(sr, "building the net", rc);
    rc = ppr_work_new(sr->net, &sr->w);
    if (rc)
        return fail(sr, "allocating the workspace", rc);
    sr->row->nodes = n;
    sr->row->net_edges = ppr_net_edges(sr->net);
    sr->row->net_bytes = ppr_net_bytes(sr->net);
    return 0;
}

/* Hub vectors: the highest-degree nodes, built without hubs; then every
 * push of this size (cold queries, activity bases, the push path of
 * cases) stops at them. */
static int size_hubs(size_run *sr)
{
    const bench_cfg *cfg = sr->cfg;
    double hubs_ms = 0;
    uint32_t nhubs = 0;
    if (cfg->hubs) {
        uint32_t *hn = core_xcalloc(cfg->hubs, sizeof *hn);
        nhubs = ppr_net_hubs(sr->net, cfg->hubs, cfg->hub_degree, hn);
        progress(sr, "%u nodes: %u hub vectors", sr->n, nhubs);
        ppr_opts hb = sr->o;
        hb.eps = cfg->hub_eps;
        hb.hubs = NULL;
        uint64_t th = core_now_ns();
        int rc = ppr_basis_build(sr->net, hn, nhubs, cfg->hub_M, &hb, cfg->threads, &sr->hubs);
        hubs_ms = ms_since(th);
        free(hn);
        if (rc)
            return fail(sr, "building the hub vectors", rc);
        sr->o.hubs = sr->hubs;
    }
    sr->row->nhubs = nhubs;
    sr->row->hubs_s = hubs_ms / 1e3;
    sr->row->hub_bytes = sr->hubs ? ppr_basis_bytes(sr->hubs) : 0;
    return 0;
}

/* Cold queries: a push from one seed on the reused workspace. */
static int cold_queries(size_run *sr)
{
    bench_row *row = sr->row;
    unsigned nq = sr->nq = sr->cfg->queries;
    sr->seeds = core_xmalloc(((size_t)nq + 1) * sizeof *sr->seeds);
    for (unsigned i = 0; i < nq; i++)
        sr->seeds[i] = random_live_node(sr->net, &sr->rng);
    progress(sr, "%u nodes: %u cold queries", sr->n, nq);
    int rc = 0;
    for (unsigned i = 0; i < 3 && i < nq && rc == 0; i++) { /* warm the caches, not the engine */
        ppr_entry s = {sr->seeds[i], 1.0f};
        rc = ppr_push(sr->w, &s, 1, &sr->o, NULL);
    }
    uint64_t *ns = core_xmalloc(((size_t)nq + 1) * sizeof *ns);
    double pushes = 0;
    for (unsigned i = 0; i < nq && rc == 0; i++) {
        ppr_entry s = {sr->seeds[i], 1.0f};
        ppr_stats st;
        uint64_t q0 = core_now_ns();
        rc = ppr_push(sr->w, &s, 1, &sr->o, &st);
        ns[i] = core_now_ns() - q0;
        if (rc)
            break;
        pushes += (double)st.pushes;
        sr->edges_relaxed += (double)st.edges;
        sr->touched += st.touched;
        sr->err_sum += st.error_bound;
        if (st.error_bound > sr->err_max)
            sr->err_max = st.error_bound;
        sr->budget_hits += st.budget_hit;
    }
    if (rc) {
        free(ns);
        return fail(sr, "query", rc);
    }
    qsort(ns, nq, sizeof *ns, cmp_u64);
    row->cold_med_us = quantile_us(ns, nq, 0.5);
    row->cold_p99_us = quantile_us(ns, nq, 0.99);
    row->pushes = nq ? pushes / nq : 0;
    free(ns);
    return 0;
}

/* The first cold queries again, against power iteration: top-10 recall
 * and L1 error, and whether the error stays within the push's bound. */
static int cold_exact(size_run *sr)
{
    const bench_cfg *cfg = sr->cfg;
    uint32_t n = sr->n;
    unsigned nexact = cfg->exact != UINT32_MAX ? cfg->exact : n >= BENCH_BIG ? 3 : 20;
    if (nexact > sr->nq)
        nexact = sr->nq;
    sr->x = malloc((size_t)n * sizeof *sr->x);
    if (!sr->x)
        return fail(sr, "query", -ENOMEM);
    double recall_sum = 0, l1_sum = 0, power_ms[64];
    unsigned done = 0;
    sr->recall_min = 1;
    sr->bound_holds = true;
    for (unsigned i = 0; i < nexact; i++) {
        progress(sr, "%u nodes: exact check %u/%u", n, i + 1, nexact);
        ppr_entry s = {sr->seeds[i], 1.0f};
        ppr_stats st;
        int rc = ppr_push(sr->w, &s, 1, &sr->o, &st);
        if (rc)
            return fail(sr, "query", rc);
        float zero = 0;
        ppr_adjust adj = {&sr->seeds[i], &zero, 1};
        ppr_entry top[BENCH_TOPK];
        uint32_t nt = ppr_work_topk(sr->w, BENCH_TOPK, &adj, top);
        uint32_t iters = 0;
        uint64_t p0 = core_now_ns();
        rc = ppr_power(sr->net, &s, 1, cfg->alpha, BENCH_POWER_TOL, BENCH_POWER_MAX_ITER, sr->x,
                       &iters);
        if (i < sizeof power_ms / sizeof power_ms[0])
            power_ms[i] = ms_since(p0);
        if (rc)
            return fail(sr, "query", rc);
        double l1 = 0;
        for (uint32_t u = 0; u < n; u++)
            l1 += fabs(sr->x[u] - ppr_work_score(sr->w, u));
        double rec = recall_at_k(sr->x, n, sr->seeds[i], top, nt, BENCH_TOPK);
        recall_sum += rec;
        if (rec < sr->recall_min)
            sr->recall_min = rec;
        l1_sum += l1;
        if (l1 > sr->l1_max)
            sr->l1_max = l1;
        if (l1 > st.error_bound + 10 * BENCH_POWER_TOL)
            sr->bound_holds = false;
        if (iters > sr->iters_max)
            sr->iters_max = iters;
        done++;
    }
    sr->nexact_done = done;
    sr->power_med = median_d(power_ms, done < 64 ? done : 64);
    sr->row->cold_recall = done ? recall_sum / done : NAN;
    sr->row->cold_l1 = done ? l1_sum / done : NAN;
    return 0;
}

/* The activities and their bases. */
static int activity_bases(size_run *sr)
{
    const bench_cfg *cfg = sr->cfg;
    sr->nacts = choose_activities(&sr->g, sr->net, cfg->activities, &sr->rng, &sr->acts);
    sr->threads = cfg->threads ? cfg->threads : core_ncpus();
    progress(sr, "%u nodes: %u bases on %u threads", sr->n, sr->nacts, sr->threads);
    uint64_t t0 = core_now_ns();
    int rc = ppr_basis_build(sr->net, sr->acts, sr->nacts, cfg->M, &sr->o, sr->threads, &sr->basis);
    sr->basis_ms = ms_since(t0);
    if (rc)
        return fail(sr, "building the bases", rc);
    sr->row->basis_s = sr->basis_ms / 1e3;
    sr->row->basis_bytes = ppr_basis_bytes(sr->basis);
    return 0;
}

/* The cases' chain and lengths, and the room their events, states and
 * times take. */
static void cases_draw(size_run *sr)
{
    const bench_cfg *cfg = sr->cfg;
    chain_build(&sr->ch, sr->nacts, &sr->rng);
    unsigned ncases = sr->ncases = cfg->cases;
    sr->ncheck = sr->n >= BENCH_BIG ? 2 : 5;
    if (sr->ncheck > ncases)
        sr->ncheck = ncases;
    sr->len = core_xmalloc(((size_t)ncases + 1) * sizeof *sr->len);
    size_t total = 0;
    for (unsigned c = 0; c < ncases; c++) {
        sr->len[c] =
            cfg->events_min + bench_rng_below(&sr->rng, cfg->events_max - cfg->events_min + 1);
        total += sr->len[c];
    }
    /* Event times; reused by the push path. */
    sr->ev_ns = core_xmalloc(((total > BENCH_PUSH_EVENTS ? total : BENCH_PUSH_EVENTS) + 1) *
                             sizeof *sr->ev_ns);
    sr->storage = core_xmalloc((size_t)cfg->M * sizeof *sr->storage);
    /* The checked cases: their events and final states. */
    sr->check_events = core_xcalloc(sr->ncheck + 1, sizeof *sr->check_events);
    sr->check_state = core_xmalloc(((size_t)sr->ncheck * cfg->M + 1) * sizeof *sr->check_state);
    sr->check_vec = core_xcalloc(sr->ncheck + 1, sizeof *sr->check_vec);
    progress(sr, "%u nodes: %u warm cases (%zu events)", sr->n, ncases, total);
}

/* Warm cases: one event = ppr_state_advance from the bases + top-10. */
static int warm_cases(size_run *sr)
{
    cases_draw(sr);
    uint32_t M = sr->cfg->M;
    double used_sum = 0;
    int rc = 0;
    for (unsigned c = 0; c < sr->ncases && rc == 0; c++) {
        ppr_vec v;
        ppr_vec_init(&v, sr->storage, M);
        uint32_t cur = bench_rng_below(&sr->rng, sr->nacts);
        if (c < sr->ncheck)
            sr->check_events[c] = core_xmalloc(sr->len[c] * sizeof **sr->check_events);
        for (uint32_t k = 0; k < sr->len[c]; k++) {
            uint32_t u = sr->acts[cur];
            ppr_entry top[BENCH_TOPK];
            uint64_t e0 = core_now_ns();
            rc = ppr_state_advance(&v, u, BENCH_DECAY, BENCH_BETA, sr->basis, sr->w, &sr->o);
            ppr_vec_topk(&v, BENCH_TOPK, NULL, top);
            sr->ev_ns[sr->ev++] = core_now_ns() - e0;
            if (rc)
                break;
            used_sum += v.n;
            if (c < sr->ncheck)
                sr->check_events[c][k] = u;
            cur = chain_next(&sr->ch, cur, &sr->rng);
        }
        sr->err_end_sum += v.err;
        if (c < sr->ncheck) {
            ppr_entry *keep = sr->check_state + (size_t)c * M;
            memcpy(keep, v.e, v.n * sizeof *v.e);
            sr->check_vec[c] = (ppr_vec){keep, v.n, M, v.err};
        }
    }
    if (rc)
        return fail(sr, "advancing a case", rc);
    bench_row *row = sr->row;
    qsort(sr->ev_ns, sr->ev, sizeof *sr->ev_ns, cmp_u64);
    row->warm_med_us = quantile_us(sr->ev_ns, sr->ev, 0.5);
    row->warm_p99_us = quantile_us(sr->ev_ns, sr->ev, 0.99);
    row->state_bytes = sizeof(ppr_vec) + (size_t)M * sizeof(ppr_entry);
    sr->used_mean = sr->ev ? used_sum / (double)sr->ev : 0;
    row->state_used_bytes = sizeof(ppr_vec) + sr->used_mean * sizeof(ppr_entry);
    return 0;
}

/* The push path: the same process without bases, on fewer events. */
static int push_path(size_run *sr)
{
    const bench_cfg *cfg = sr->cfg;
    uint64_t push_t0 = core_now_ns();
    int rc = 0;
    progress(sr, "%u nodes: push path (%u events)", sr->n, BENCH_PUSH_EVENTS);
    while (sr->push_ev < BENCH_PUSH_EVENTS && rc == 0 &&
           (sr->push_ev < 20 || core_now_ns() - push_t0 < BENCH_PUSH_NS)) {
        ppr_vec v;
        ppr_vec_init(&v, sr->storage, cfg->M);
        uint32_t cur = bench_rng_below(&sr->rng, sr->nacts);
        uint32_t l =
            cfg->events_min + bench_rng_below(&sr->rng, cfg->events_max - cfg->events_min + 1);
        for (uint32_t k = 0; k < l && sr->push_ev < BENCH_PUSH_EVENTS; k++) {
            ppr_entry top[BENCH_TOPK];
            uint64_t e0 = core_now_ns();
            rc = ppr_state_advance(&v, sr->acts[cur], BENCH_DECAY, BENCH_BETA, NULL, sr->w, &sr->o);
            ppr_vec_topk(&v, BENCH_TOPK, NULL, top);
            sr->ev_ns[sr->push_ev++] = core_now_ns() - e0;
            if (rc)
                break;
            cur = chain_next(&sr->ch, cur, &sr->rng);
        }
    }
    if (rc)
        return fail(sr, "advancing a case without bases", rc);
    qsort(sr->ev_ns, sr->push_ev, sizeof *sr->ev_ns, cmp_u64);
    sr->row->push_med_us = quantile_us(sr->ev_ns, sr->push_ev, 0.5);
    sr->row->push_p99_us = quantile_us(sr->ev_ns, sr->push_ev, 0.99);
    return 0;
}

/* One checked case's seed, sum_j c^(k-j) beta e(x_j): one entry per node,
 * in seeds; dense is all zeros before and after. */
static uint32_t case_seeds(const uint32_t *events, uint32_t k, double *dense, ppr_entry *seeds)
{
    uint32_t ns = 0;
    for (uint32_t j = 0; j < k; j++)
        dense[events[j]] += BENCH_BETA * pow(BENCH_DECAY, (double)(k - 1 - j));
    for (uint32_t j = 0; j < k; j++) {
        uint32_t u = events[j];
        if (dense[u] != 0) {
            seeds[ns++] = (ppr_entry){u, (float)dense[u]};
            dense[u] = 0;
        }
    }
    return ns;
}

/* Warm states against a cold exact computation of the decayed seed. */
static int warm_exact(size_run *sr)
{
    uint32_t n = sr->n;
    double wrec_sum = 0;
    sr->wrec_min = 1;
    sr->wbound = true;
    double *dense = core_xcalloc(n, sizeof *dense);
    ppr_entry *cseeds = core_xmalloc(((size_t)sr->cfg->events_max + 1) * sizeof *cseeds);
    int rc = 0;
    for (unsigned c = 0; c < sr->ncheck; c++) {
        progress(sr, "%u nodes: warm check %u/%u", n, c + 1, sr->ncheck);
        uint32_t ncs = case_seeds(sr->check_events[c], sr->len[c], dense, cseeds);
        rc = ppr_power(sr->net, cseeds, ncs, sr->cfg->alpha, BENCH_POWER_TOL, BENCH_POWER_MAX_ITER,
                       sr->x, NULL);
        if (rc) {
            fail(sr, "power iteration", rc);
            break;
        }
        const ppr_vec *v = &sr->check_vec[c];
        ppr_entry top[BENCH_TOPK];
        uint32_t nt = ppr_vec_topk(v, BENCH_TOPK, NULL, top);
        double rec = recall_at_k(sr->x, n, UINT32_MAX, top, nt, BENCH_TOPK);
        for (uint32_t i = 0; i < v->n; i++)
            dense[v->e[i].node] = v->e[i].score;
        double l1 = 0;
        for (uint32_t u = 0; u < n; u++)
            l1 += fabs(sr->x[u] - dense[u]);
        for (uint32_t i = 0; i < v->n; i++)
            dense[v->e[i].node] = 0;
        wrec_sum += rec;
        if (rec < sr->wrec_min)
            sr->wrec_min = rec;
        sr->wl1_sum += l1;
        if (l1 > sr->wl1_max)
            sr->wl1_max = l1;
        sr->werr_sum += v->err;
        /* Seeds were rounded to float for ppr_power: allow for it. */
        if (l1 > v->err * (1 + 1e-6) + 1e-6 * l1 + 10 * BENCH_POWER_TOL)
            sr->wbound = false;
    }
    free(cseeds);
    free(dense);
    if (rc)
        return rc;
    sr->row->warm_recall = sr->ncheck ? wrec_sum / sr->ncheck : NAN;
    return 0;
}

static void report_json(const size_run *sr, core_buf *b)
{
    const bench_cfg *cfg = sr->cfg;
    const bench_row *row = sr->row;
    const bench_synth_stats *gs = &sr->gs;
    unsigned nq = sr->nq, ncheck = sr->ncheck;
    core_buf_printf(b,
                    "{\"bench\":\"ppr\",\"nodes\":%u,\"seed\":%u,\"alpha\":%g,\"eps\":%g,"
                    "\"M\":%u,\"cpus\":%u,\"hubs\":{\"count\":%u,\"min_degree\":%u,"
                    "\"M\":%u,\"eps\":%g,\"build_ms\":%.1f,\"bytes\":%zu},",
                    sr->n, cfg->seed, cfg->alpha, cfg->eps, cfg->M, core_ncpus(), row->nhubs,
                    cfg->hub_degree, cfg->hub_M, cfg->hub_eps, row->hubs_s * 1e3, row->hub_bytes);
    core_buf_printf(b,
                    "\"graph\":{\"generated_edges\":%zu,\"net_edges\":%zu,\"net_bytes\":%zu,"
                    "\"synth_ms\":%.1f,\"build_ms\":%.1f,\"modules\":%u,"
                    "\"mean_out_degree\":%.2f,\"p50_out\":%u,\"p99_out\":%u,\"max_out\":%u,"
                    "\"p50_in\":%u,\"p99_in\":%u,\"max_in\":%u,\"hubs_in_ge_1000\":%u,"
                    "\"out_tail_exponent\":%.2f,\"in_tail_exponent\":%.2f,"
                    "\"same_module\":%.3f,\"near_module\":%.3f,\"far_module\":%.3f,"
                    "\"dangling\":%u,\"types\":{",
                    sr->generated, row->net_edges, row->net_bytes, sr->synth_ms, row->build_ms,
                    sr->g.nmodules, gs->mean_out, gs->p50_out, gs->p99_out, gs->max_out, gs->p50_in,
                    gs->p99_in, gs->max_in, gs->hubs_1000, gs->out_exponent, gs->in_exponent,
                    gs->same_module, gs->near_module, gs->far_module, gs->isolated);
    for (int t = 0; t < GRAPH_EDGE__COUNT; t++)
        core_buf_printf(b, "%s\"%s\":%.3f", t ? "," : "", graph_edge_type_name((graph_edge_type)t),
                        sr->generated ? (double)gs->by_type[t] / (double)sr->generated : 0);
    core_buf_printf(b,
                    "}},\"cold\":{\"queries\":%u,\"median_us\":%.1f,\"p99_us\":%.1f,"
                    "\"mean_pushes\":%.0f,\"mean_edges\":%.0f,\"mean_touched\":%.0f,"
                    "\"mean_error_bound\":%.3g,\"max_error_bound\":%.3g,\"budget_hits\":%u},",
                    nq, row->cold_med_us, row->cold_p99_us, row->pushes,
                    nq ? sr->edges_relaxed / nq : 0, nq ? sr->touched / nq : 0,
                    nq ? sr->err_sum / nq : 0, sr->err_max, sr->budget_hits);
    if (sr->nexact_done)
        core_buf_printf(b,
                        "\"cold_exact\":{\"seeds\":%u,\"top10_recall\":%.4f,"
                        "\"min_top10_recall\":%.2f,\"mean_l1\":%.3g,\"max_l1\":%.3g,"
                        "\"l1_within_bound\":%s,\"power_median_ms\":%.1f,\"power_iters\":%u},",
                        sr->nexact_done, row->cold_recall, sr->recall_min, row->cold_l1, sr->l1_max,
                        sr->bound_holds ? "true" : "false", sr->power_med, sr->iters_max);
    else
        core_buf_printf(b, "\"cold_exact\":null,");
    core_buf_printf(b,
                    "\"basis\":{\"activities\":%u,\"threads\":%u,\"build_ms\":%.1f,"
                    "\"bytes\":%zu,\"bytes_per_activity\":%.0f},",
                    sr->nacts, sr->threads, sr->basis_ms, row->basis_bytes,
                    sr->nacts ? (double)row->basis_bytes / sr->nacts : 0);
    core_buf_printf(b,
                    "\"warm\":{\"cases\":%u,\"events\":%zu,\"decay\":%g,\"median_us\":%.2f,"
                    "\"p99_us\":%.2f,\"push_path_events\":%zu,\"push_path_median_us\":%.1f,"
                    "\"push_path_p99_us\":%.1f,\"state_bytes_bound\":%zu,"
                    "\"state_entries_mean\":%.1f,\"state_bytes_mean\":%.0f,"
                    "\"mean_error_bound_at_end\":%.3g},",
                    sr->ncases, sr->ev, BENCH_DECAY, row->warm_med_us, row->warm_p99_us,
                    sr->push_ev, row->push_med_us, row->push_p99_us, row->state_bytes,
                    sr->used_mean, row->state_used_bytes,
                    sr->ncases ? sr->err_end_sum / sr->ncases : 0);
    if (ncheck)
        core_buf_printf(b,
                        "\"warm_exact\":{\"cases\":%u,\"top10_recall\":%.4f,"
                        "\"min_top10_recall\":%.2f,\"mean_l1\":%.3g,\"max_l1\":%.3g,"
                        "\"mean_error_bound\":%.3g,\"l1_within_bound\":%s}}\n",
                        ncheck, row->warm_recall, sr->wrec_min, sr->wl1_sum / ncheck, sr->wl1_max,
                        sr->werr_sum / ncheck, sr->wbound ? "true" : "false");
    else
        core_buf_printf(b, "\"warm_exact\":null}\n");
}

static void report_text(const size_run *sr, core_buf *b)
{
    const bench_row *row = sr->row;
    unsigned nq = sr->nq, ncheck = sr->ncheck;
    core_buf_printf(b,
                    "%u nodes (%u modules), %zu generated edges (mean out-degree %.2f, max "
                    "in-degree %u), net %zu edges, %.1f MiB, built in %.0f ms\n",
                    sr->n, sr->g.nmodules, sr->generated, sr->gs.mean_out, sr->gs.max_in,
                    row->net_edges, (double)row->net_bytes / (1 << 20), row->build_ms);
    core_buf_printf(b,
                    "  cold push   median %.0f us, p99 %.0f us; %.0f pushes a query; error "
                    "bound %.2g (max %.2g)\n",
                    row->cold_med_us, row->cold_p99_us, row->pushes, nq ? sr->err_sum / nq : 0,
                    sr->err_max);
    if (sr->nexact_done)
        core_buf_printf(b,
                        "  vs exact    top-10 recall %.4f (min %.2f, %u seeds), L1 %.2g (max "
                        "%.2g, %s bound); power iteration %.0f ms\n",
                        row->cold_recall, sr->recall_min, sr->nexact_done, row->cold_l1, sr->l1_max,
                        sr->bound_holds ? "within" : "OVER", sr->power_med);
    core_buf_printf(b, "  bases       %u activities in %.2f s on %u threads, %.1f MiB\n", sr->nacts,
                    sr->basis_ms / 1e3, sr->threads, (double)row->basis_bytes / (1 << 20));
    core_buf_printf(b,
                    "  warm event  median %.2f us, p99 %.2f us (%zu events, %u cases); "
                    "without bases median %.0f us, p99 %.0f us (%zu events)\n",
                    row->warm_med_us, row->warm_p99_us, sr->ev, sr->ncases, row->push_med_us,
                    row->push_p99_us, sr->push_ev);
    core_buf_printf(b, "  case state  %zu bytes at most, %.0f used on average\n", row->state_bytes,
                    row->state_used_bytes);
    if (ncheck)
        core_buf_printf(b,
                        "  vs exact    top-10 recall %.4f (min %.2f, %u cases), L1 %.2g (max "
                        "%.2g, %s bound %.2g)\n",
                        row->warm_recall, sr->wrec_min, ncheck, sr->wl1_sum / ncheck, sr->wl1_max,
                        sr->wbound ? "within" : "OVER", sr->werr_sum / ncheck);
}

static void size_free(size_run *sr)
{
    for (unsigned c = 0; c < sr->ncheck; c++)
        free(sr->check_events[c]);
    free(sr->check_events);
    free(sr->check_state);
    free(sr->check_vec);
    free(sr->storage);
    free(sr->ev_ns);
    free(sr->len);
    free(sr->ch.succ);
    free(sr->acts);
    ppr_basis_free(sr->basis);
    free(sr->x);
    free(sr->seeds);
    ppr_work_free(sr->w);
    ppr_basis_free(sr->hubs);
    ppr_net_free(sr->net);
    bench_graph_free(&sr->g);
}

int bench_ppr_size(const bench_cfg *cfg, const ppr_opts *o, uint32_t n, core_buf *b, bench_row *row,
                   char *why, size_t whylen)
{
    static int (*const steps[])(size_run *) = {
        size_graph,     size_hubs,  cold_queries, cold_exact,
        activity_bases, warm_cases, push_path,    warm_exact,
    };
    size_run sr = {.cfg = cfg, .n = n, .row = row, .why = why, .whylen = whylen, .o = *o};
    bench_rng_seed(&sr.rng, (uint64_t)cfg->seed * 0x9e3779b97f4a7c15ull ^ n ^ 0xbe7c4ull);
    int rc = 0;
    for (size_t i = 0; i < sizeof steps / sizeof steps[0] && rc == 0; i++)
        rc = steps[i](&sr);
    if (rc == 0) {
        progress_clear(&sr);
        if (cfg->json)
            report_json(&sr, b);
        else
            report_text(&sr, b);
    }
    size_free(&sr);
    return rc;
}
