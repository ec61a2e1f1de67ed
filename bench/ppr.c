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

typedef struct size_ctx {
    const bench_cfg *cfg;
    char *why;
    size_t whylen;
} size_ctx;

static void progress(const size_ctx *sc, const char *fmt, ...) CORE_PRINTF(2, 3);
static void progress(const size_ctx *sc, const char *fmt, ...)
{
    if (!sc->cfg->progress)
        return;
    char line[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    sc->cfg->progress(sc->cfg->progress_ud, line);
}

static void progress_clear(const size_ctx *sc)
{
    if (sc->cfg->progress)
        sc->cfg->progress(sc->cfg->progress_ud, NULL);
}

static int fail(const size_ctx *sc, const char *what, int rc)
{
    progress_clear(sc);
    snprintf(sc->why, sc->whylen, "%s: %s", what, core_strerror(rc));
    return rc;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

int bench_ppr_size(const bench_cfg *cfg, const ppr_opts *o, uint32_t n, core_buf *b, bench_row *row,
                   char *why, size_t whylen)
{
    size_ctx ctx = {cfg, why, whylen}, *sc = &ctx;
    int rc = 0;
    bench_rng rng;
    bench_rng_seed(&rng, (uint64_t)cfg->seed * 0x9e3779b97f4a7c15ull ^ n ^ 0xbe7c4ull);

    /* Graph and net. */
    progress(sc, "%u nodes: generating", n);
    uint64_t t0 = core_now_ns();
    bench_graph g;
    rc = bench_synth(n, cfg->seed, &g);
    if (rc)
        return fail(sc, "generating the graph", rc);
    double synth_ms = ms_since(t0);
    bench_synth_stats gs;
    bench_synth_stats_of(&g, &gs);
    ppr_weights wt;
    ppr_weights_profile("default", &wt);
    progress(sc, "%u nodes: building the net", n);
    t0 = core_now_ns();
    ppr_net *net = NULL;
    rc = ppr_net_from_edges(n, g.edges, g.m, &wt, &net);
    double build_ms = ms_since(t0);
    size_t generated = g.m;
    free(g.edges); /* the net has what it needs */
    g.edges = NULL;
    g.m = 0;
    if (rc) {
        bench_graph_free(&g);
        return fail(sc, "building the net", rc);
    }
    ppr_work *w = NULL;
    rc = ppr_work_new(net, &w);
    if (rc) {
        ppr_net_free(net);
        bench_graph_free(&g);
        return fail(sc, "allocating the workspace", rc);
    }
    /* Hub vectors: the highest-degree nodes, built without hubs; then
     * every push of this size (cold queries, activity bases, the push
     * path of cases) stops at them. */
    ppr_opts oh = *o;
    ppr_basis *hubs = NULL;
    double hubs_ms = 0;
    uint32_t nhubs = 0;
    if (cfg->hubs) {
        uint32_t *hn = core_xcalloc(cfg->hubs, sizeof *hn);
        nhubs = ppr_net_hubs(net, cfg->hubs, cfg->hub_degree, hn);
        progress(sc, "%u nodes: %u hub vectors", n, nhubs);
        ppr_opts hb = *o;
        hb.eps = cfg->hub_eps;
        hb.hubs = NULL;
        uint64_t th = core_now_ns();
        rc = ppr_basis_build(net, hn, nhubs, cfg->hub_M, &hb, cfg->threads, &hubs);
        hubs_ms = ms_since(th);
        free(hn);
        if (rc) {
            ppr_work_free(w);
            ppr_net_free(net);
            bench_graph_free(&g);
            return fail(sc, "building the hub vectors", rc);
        }
        oh.hubs = hubs;
        o = &oh;
    }
    row->nhubs = nhubs;
    row->hubs_s = hubs_ms / 1e3;
    row->hub_bytes = hubs ? ppr_basis_bytes(hubs) : 0;
    row->nodes = n;
    row->net_edges = ppr_net_edges(net);
    row->net_bytes = ppr_net_bytes(net);
    row->build_ms = build_ms;

    /* Cold queries: a push from one seed on the reused workspace. */
    unsigned nq = cfg->queries;
    uint32_t *seeds = core_xmalloc(((size_t)nq + 1) * sizeof *seeds);
    uint64_t *ns = core_xmalloc(((size_t)nq + 1) * sizeof *ns);
    for (unsigned i = 0; i < nq; i++)
        seeds[i] = random_live_node(net, &rng);
    double pushes = 0, edges_relaxed = 0, touched = 0, err_sum = 0, err_max = 0;
    uint32_t budget_hits = 0;
    progress(sc, "%u nodes: %u cold queries", n, nq);
    for (unsigned i = 0; i < 3 && i < nq; i++) { /* warm the caches, not the engine */
        ppr_entry s = {seeds[i], 1.0f};
        if ((rc = ppr_push(w, &s, 1, o, NULL)) != 0)
            goto out;
    }
    for (unsigned i = 0; i < nq; i++) {
        ppr_entry s = {seeds[i], 1.0f};
        ppr_stats st;
        uint64_t q0 = core_now_ns();
        rc = ppr_push(w, &s, 1, o, &st);
        ns[i] = core_now_ns() - q0;
        if (rc)
            goto out;
        pushes += (double)st.pushes;
        edges_relaxed += (double)st.edges;
        touched += st.touched;
        err_sum += st.error_bound;
        if (st.error_bound > err_max)
            err_max = st.error_bound;
        budget_hits += st.budget_hit;
    }
    qsort(ns, nq, sizeof *ns, cmp_u64);
    row->cold_med_us = quantile_us(ns, nq, 0.5);
    row->cold_p99_us = quantile_us(ns, nq, 0.99);
    row->pushes = nq ? pushes / nq : 0;

    /* Cold queries against power iteration. */
    unsigned nexact = cfg->exact != UINT32_MAX ? cfg->exact : n >= BENCH_BIG ? 3 : 20;
    if (nexact > nq)
        nexact = nq;
    double *x = malloc((size_t)n * sizeof *x);
    if (!x) {
        rc = -ENOMEM;
        goto out;
    }
    double recall_sum = 0, recall_min = 1, l1_sum = 0, l1_max = 0, power_ms[64];
    uint32_t iters_max = 0, nexact_done = 0;
    bool bound_holds = true;
    for (unsigned i = 0; i < nexact; i++) {
        progress(sc, "%u nodes: exact check %u/%u", n, i + 1, nexact);
        ppr_entry s = {seeds[i], 1.0f};
        ppr_stats st;
        if ((rc = ppr_push(w, &s, 1, o, &st)) != 0)
            goto out_x;
        float zero = 0;
        ppr_adjust adj = {&seeds[i], &zero, 1};
        ppr_entry top[BENCH_TOPK];
        uint32_t nt = ppr_work_topk(w, BENCH_TOPK, &adj, top);
        uint32_t iters = 0;
        uint64_t p0 = core_now_ns();
        rc = ppr_power(net, &s, 1, cfg->alpha, BENCH_POWER_TOL, BENCH_POWER_MAX_ITER, x, &iters);
        if (i < sizeof power_ms / sizeof power_ms[0])
            power_ms[i] = ms_since(p0);
        if (rc)
            goto out_x;
        double l1 = 0;
        for (uint32_t u = 0; u < n; u++)
            l1 += fabs(x[u] - ppr_work_score(w, u));
        double rec = recall_at_k(x, n, seeds[i], top, nt, BENCH_TOPK);
        recall_sum += rec;
        if (rec < recall_min)
            recall_min = rec;
        l1_sum += l1;
        if (l1 > l1_max)
            l1_max = l1;
        if (l1 > st.error_bound + 10 * BENCH_POWER_TOL)
            bound_holds = false;
        if (iters > iters_max)
            iters_max = iters;
        nexact_done++;
    }
    unsigned npower = nexact_done < 64 ? nexact_done : 64;
    double power_med = median_d(power_ms, npower);
    row->cold_recall = nexact_done ? recall_sum / nexact_done : NAN;
    row->cold_l1 = nexact_done ? l1_sum / nexact_done : NAN;

    /* Bases for the activities. */
    uint32_t *acts = NULL;
    uint32_t nacts = choose_activities(&g, net, cfg->activities, &rng, &acts);
    unsigned threads = cfg->threads ? cfg->threads : core_ncpus();
    progress(sc, "%u nodes: %u bases on %u threads", n, nacts, threads);
    ppr_basis *basis = NULL;
    t0 = core_now_ns();
    rc = ppr_basis_build(net, acts, nacts, cfg->M, o, threads, &basis);
    double basis_ms = ms_since(t0);
    if (rc) {
        free(acts);
        fail(sc, "building the bases", rc);
        rc = 1;
        goto out_x;
    }
    row->basis_s = basis_ms / 1e3;
    row->basis_bytes = ppr_basis_bytes(basis);

    /* Warm cases: one event = ppr_state_advance + top-10. */
    chain ch;
    chain_build(&ch, nacts, &rng);
    unsigned ncases = cfg->cases;
    unsigned ncheck = n >= BENCH_BIG ? 2 : 5;
    if (ncheck > ncases)
        ncheck = ncases;
    uint32_t *len = core_xmalloc(((size_t)ncases + 1) * sizeof *len);
    size_t total = 0;
    for (unsigned c = 0; c < ncases; c++) {
        len[c] = cfg->events_min + bench_rng_below(&rng, cfg->events_max - cfg->events_min + 1);
        total += len[c];
    }
    /* Event times; reused by the push path. */
    uint64_t *ev_ns =
        core_xmalloc(((total > BENCH_PUSH_EVENTS ? total : BENCH_PUSH_EVENTS) + 1) * sizeof *ev_ns);
    uint32_t M = cfg->M;
    ppr_entry *storage = core_xmalloc((size_t)M * sizeof *storage);
    /* The checked cases: their events and final states. */
    uint32_t **check_events = core_xcalloc(ncheck + 1, sizeof *check_events);
    ppr_entry *check_state = core_xmalloc(((size_t)ncheck * M + 1) * sizeof *check_state);
    ppr_vec *check_vec = core_xcalloc(ncheck + 1, sizeof *check_vec);
    double used_sum = 0, err_end_sum = 0;
    size_t ev = 0;
    progress(sc, "%u nodes: %u warm cases (%zu events)", n, ncases, total);
    for (unsigned c = 0; c < ncases && rc == 0; c++) {
        ppr_vec v;
        ppr_vec_init(&v, storage, M);
        uint32_t cur = bench_rng_below(&rng, nacts);
        if (c < ncheck)
            check_events[c] = core_xmalloc(len[c] * sizeof **check_events);
        for (uint32_t k = 0; k < len[c]; k++) {
            uint32_t u = acts[cur];
            ppr_entry top[BENCH_TOPK];
            uint64_t e0 = core_now_ns();
            rc = ppr_state_advance(&v, u, BENCH_DECAY, BENCH_BETA, basis, w, o);
            uint32_t nt = ppr_vec_topk(&v, BENCH_TOPK, NULL, top);
            ev_ns[ev++] = core_now_ns() - e0;
            if (rc)
                break;
            (void)nt;
            used_sum += v.n;
            if (c < ncheck)
                check_events[c][k] = u;
            cur = chain_next(&ch, cur, &rng);
        }
        err_end_sum += v.err;
        if (c < ncheck) {
            memcpy(check_state + (size_t)c * M, v.e, v.n * sizeof *v.e);
            check_vec[c] = (ppr_vec){check_state + (size_t)c * M, v.n, M, v.err};
        }
    }
    if (rc) {
        fail(sc, "advancing a case", rc);
        rc = 1;
        goto out_cases;
    }
    qsort(ev_ns, ev, sizeof *ev_ns, cmp_u64);
    row->warm_med_us = quantile_us(ev_ns, ev, 0.5);
    row->warm_p99_us = quantile_us(ev_ns, ev, 0.99);
    row->state_bytes = sizeof(ppr_vec) + (size_t)M * sizeof(ppr_entry);
    double used_mean = ev ? used_sum / (double)ev : 0;
    row->state_used_bytes = sizeof(ppr_vec) + used_mean * sizeof(ppr_entry);

    /* The push path: the same process without bases, on fewer events. */
    size_t push_ev = 0;
    uint64_t push_t0 = core_now_ns();
    progress(sc, "%u nodes: push path (%u events)", n, BENCH_PUSH_EVENTS);
    while (push_ev < BENCH_PUSH_EVENTS && rc == 0 &&
           (push_ev < 20 || core_now_ns() - push_t0 < BENCH_PUSH_NS)) {
        ppr_vec v;
        ppr_vec_init(&v, storage, M);
        uint32_t cur = bench_rng_below(&rng, nacts);
        uint32_t l = cfg->events_min + bench_rng_below(&rng, cfg->events_max - cfg->events_min + 1);
        for (uint32_t k = 0; k < l && push_ev < BENCH_PUSH_EVENTS; k++) {
            ppr_entry top[BENCH_TOPK];
            uint64_t e0 = core_now_ns();
            rc = ppr_state_advance(&v, acts[cur], BENCH_DECAY, BENCH_BETA, NULL, w, o);
            ppr_vec_topk(&v, BENCH_TOPK, NULL, top);
            ev_ns[push_ev++] = core_now_ns() - e0;
            if (rc)
                break;
            cur = chain_next(&ch, cur, &rng);
        }
    }
    if (rc) {
        fail(sc, "advancing a case without bases", rc);
        rc = 1;
        goto out_cases;
    }
    qsort(ev_ns, push_ev, sizeof *ev_ns, cmp_u64);
    row->push_med_us = quantile_us(ev_ns, push_ev, 0.5);
    row->push_p99_us = quantile_us(ev_ns, push_ev, 0.99);

    /* Warm states against a cold exact computation of the decayed seed. */
    double wrec_sum = 0, wrec_min = 1, wl1_sum = 0, wl1_max = 0, werr_sum = 0;
    bool wbound = true;
    double *dense = core_xcalloc(n, sizeof *dense);
    ppr_entry *cseeds = core_xmalloc(((size_t)cfg->events_max + 1) * sizeof *cseeds);
    for (unsigned c = 0; c < ncheck; c++) {
        progress(sc, "%u nodes: warm check %u/%u", n, c + 1, ncheck);
        /* seed = sum_j c^(k-j) beta e(x_j), one entry per node. */
        uint32_t k = len[c], ncs = 0;
        for (uint32_t j = 0; j < k; j++)
            dense[check_events[c][j]] += BENCH_BETA * pow(BENCH_DECAY, (double)(k - 1 - j));
        for (uint32_t j = 0; j < k; j++) {
            uint32_t u = check_events[c][j];
            if (dense[u] != 0) {
                cseeds[ncs++] = (ppr_entry){u, (float)dense[u]};
                dense[u] = 0;
            }
        }
        if ((rc = ppr_power(net, cseeds, ncs, cfg->alpha, BENCH_POWER_TOL, BENCH_POWER_MAX_ITER, x,
                            NULL)) != 0) {
            fail(sc, "power iteration", rc);
            rc = 1;
            break;
        }
        const ppr_vec *v = &check_vec[c];
        ppr_entry top[BENCH_TOPK];
        uint32_t nt = ppr_vec_topk(v, BENCH_TOPK, NULL, top);
        double rec = recall_at_k(x, n, UINT32_MAX, top, nt, BENCH_TOPK);
        for (uint32_t i = 0; i < v->n; i++)
            dense[v->e[i].node] = v->e[i].score;
        double l1 = 0;
        for (uint32_t u = 0; u < n; u++)
            l1 += fabs(x[u] - dense[u]);
        for (uint32_t i = 0; i < v->n; i++)
            dense[v->e[i].node] = 0;
        wrec_sum += rec;
        if (rec < wrec_min)
            wrec_min = rec;
        wl1_sum += l1;
        if (l1 > wl1_max)
            wl1_max = l1;
        werr_sum += v->err;
        /* Seeds were rounded to float for ppr_power: allow for it. */
        if (l1 > v->err * (1 + 1e-6) + 1e-6 * l1 + 10 * BENCH_POWER_TOL)
            wbound = false;
    }
    free(cseeds);
    free(dense);
    if (rc)
        goto out_cases;
    row->warm_recall = ncheck ? wrec_sum / ncheck : NAN;
    progress_clear(sc);

    /* Report. */
    if (cfg->json) {
        core_buf_printf(b,
                        "{\"bench\":\"ppr\",\"nodes\":%u,\"seed\":%u,\"alpha\":%g,\"eps\":%g,"
                        "\"M\":%u,\"cpus\":%u,\"hubs\":{\"count\":%u,\"min_degree\":%u,"
                        "\"M\":%u,\"eps\":%g,\"build_ms\":%.1f,\"bytes\":%zu},",
                        n, cfg->seed, cfg->alpha, cfg->eps, M, core_ncpus(), row->nhubs,
                        cfg->hub_degree, cfg->hub_M, cfg->hub_eps, row->hubs_s * 1e3,
                        row->hub_bytes);
        core_buf_printf(b,
                        "\"graph\":{\"generated_edges\":%zu,\"net_edges\":%zu,\"net_bytes\":%zu,"
                        "\"synth_ms\":%.1f,\"build_ms\":%.1f,\"modules\":%u,"
                        "\"mean_out_degree\":%.2f,\"p50_out\":%u,\"p99_out\":%u,\"max_out\":%u,"
                        "\"p50_in\":%u,\"p99_in\":%u,\"max_in\":%u,\"hubs_in_ge_1000\":%u,"
                        "\"out_tail_exponent\":%.2f,\"in_tail_exponent\":%.2f,"
                        "\"same_module\":%.3f,\"near_module\":%.3f,\"far_module\":%.3f,"
                        "\"dangling\":%u,\"types\":{",
                        generated, row->net_edges, row->net_bytes, synth_ms, build_ms, g.nmodules,
                        gs.mean_out, gs.p50_out, gs.p99_out, gs.max_out, gs.p50_in, gs.p99_in,
                        gs.max_in, gs.hubs_1000, gs.out_exponent, gs.in_exponent, gs.same_module,
                        gs.near_module, gs.far_module, gs.isolated);
        for (int t = 0; t < GRAPH_EDGE__COUNT; t++)
            core_buf_printf(b, "%s\"%s\":%.3f", t ? "," : "",
                            graph_edge_type_name((graph_edge_type)t),
                            generated ? (double)gs.by_type[t] / (double)generated : 0);
        core_buf_printf(b,
                        "}},\"cold\":{\"queries\":%u,\"median_us\":%.1f,\"p99_us\":%.1f,"
                        "\"mean_pushes\":%.0f,\"mean_edges\":%.0f,\"mean_touched\":%.0f,"
                        "\"mean_error_bound\":%.3g,\"max_error_bound\":%.3g,\"budget_hits\":%u},",
                        nq, row->cold_med_us, row->cold_p99_us, row->pushes,
                        nq ? edges_relaxed / nq : 0, nq ? touched / nq : 0, nq ? err_sum / nq : 0,
                        err_max, budget_hits);
        if (nexact_done)
            core_buf_printf(b,
                            "\"cold_exact\":{\"seeds\":%u,\"top10_recall\":%.4f,"
                            "\"min_top10_recall\":%.2f,\"mean_l1\":%.3g,\"max_l1\":%.3g,"
                            "\"l1_within_bound\":%s,\"power_median_ms\":%.1f,\"power_iters\":%u},",
                            nexact_done, row->cold_recall, recall_min, row->cold_l1, l1_max,
                            bound_holds ? "true" : "false", power_med, iters_max);
        else
            core_buf_printf(b, "\"cold_exact\":null,");
        core_buf_printf(b,
                        "\"basis\":{\"activities\":%u,\"threads\":%u,\"build_ms\":%.1f,"
                        "\"bytes\":%zu,\"bytes_per_activity\":%.0f},",
                        nacts, threads, basis_ms, row->basis_bytes,
                        nacts ? (double)row->basis_bytes / nacts : 0);
        core_buf_printf(b,
                        "\"warm\":{\"cases\":%u,\"events\":%zu,\"decay\":%g,\"median_us\":%.2f,"
                        "\"p99_us\":%.2f,\"push_path_events\":%zu,\"push_path_median_us\":%.1f,"
                        "\"push_path_p99_us\":%.1f,\"state_bytes_bound\":%zu,"
                        "\"state_entries_mean\":%.1f,\"state_bytes_mean\":%.0f,"
                        "\"mean_error_bound_at_end\":%.3g},",
                        ncases, ev, BENCH_DECAY, row->warm_med_us, row->warm_p99_us, push_ev,
                        row->push_med_us, row->push_p99_us, row->state_bytes, used_mean,
                        row->state_used_bytes, ncases ? err_end_sum / ncases : 0);
        if (ncheck)
            core_buf_printf(b,
                            "\"warm_exact\":{\"cases\":%u,\"top10_recall\":%.4f,"
                            "\"min_top10_recall\":%.2f,\"mean_l1\":%.3g,\"max_l1\":%.3g,"
                            "\"mean_error_bound\":%.3g,\"l1_within_bound\":%s}}\n",
                            ncheck, row->warm_recall, wrec_min, wl1_sum / ncheck, wl1_max,
                            werr_sum / ncheck, wbound ? "true" : "false");
        else
            core_buf_printf(b, "\"warm_exact\":null}\n");
    } else {
        core_buf_printf(
            b,
            "%u nodes (%u modules), %zu generated edges (mean out-degree %.2f, max in-degree "
            "%u), net %zu edges, %.1f MiB, built in %.0f ms\n",
            n, g.nmodules, generated, gs.mean_out, gs.max_in, row->net_edges,
            (double)row->net_bytes / (1 << 20), build_ms);
        core_buf_printf(b,
                        "  cold push   median %.0f us, p99 %.0f us; %.0f pushes a query; error "
                        "bound %.2g (max %.2g)\n",
                        row->cold_med_us, row->cold_p99_us, row->pushes, nq ? err_sum / nq : 0,
                        err_max);
        if (nexact_done)
            core_buf_printf(b,
                            "  vs exact    top-10 recall %.4f (min %.2f, %u seeds), L1 %.2g (max "
                            "%.2g, %s bound); power iteration %.0f ms\n",
                            row->cold_recall, recall_min, nexact_done, row->cold_l1, l1_max,
                            bound_holds ? "within" : "OVER", power_med);
        core_buf_printf(b, "  bases       %u activities in %.2f s on %u threads, %.1f MiB\n", nacts,
                        basis_ms / 1e3, threads, (double)row->basis_bytes / (1 << 20));
        core_buf_printf(b,
                        "  warm event  median %.2f us, p99 %.2f us (%zu events, %u cases); "
                        "without bases median %.0f us, p99 %.0f us (%zu events)\n",
                        row->warm_med_us, row->warm_p99_us, ev, ncases, row->push_med_us,
                        row->push_p99_us, push_ev);
        core_buf_printf(b, "  case state  %zu bytes at most, %.0f used on average\n",
                        row->state_bytes, row->state_used_bytes);
        if (ncheck)
            core_buf_printf(b,
                            "  vs exact    top-10 recall %.4f (min %.2f, %u cases), L1 %.2g (max "
                            "%.2g, %s bound %.2g)\n",
                            row->warm_recall, wrec_min, ncheck, wl1_sum / ncheck, wl1_max,
                            wbound ? "within" : "OVER", werr_sum / ncheck);
    }

out_cases:
    for (unsigned c = 0; c < ncheck; c++)
        free(check_events[c]);
    free(check_events);
    free(check_state);
    free(check_vec);
    free(storage);
    free(ev_ns);
    free(len);
    free(ch.succ);
    free(acts);
    ppr_basis_free(basis);
out_x:
    free(x);
out:
    if (rc < 0)
        rc = fail(sc, "query", rc);
    free(seeds);
    free(ns);
    ppr_work_free(w);
    ppr_basis_free(hubs);
    ppr_net_free(net);
    bench_graph_free(&g);
    return rc;
}

/* ------------------------------------------------------------------ */
/* Edge lists                                                          */
/* ------------------------------------------------------------------ */
