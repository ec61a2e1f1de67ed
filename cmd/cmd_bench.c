/* pmrag bench: benchmarks built into the binary (bench ppr). */
#include "bench_synth.h"
#include "cli.h"
#include "commands.h"
#include "ppr.h"

#include <errno.h>
#include <math.h>
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

static const char *const type_names[GRAPH_EDGE__COUNT] = {
    "calls", "imports", "inherits", "uses", "accesses", "member_of",
};

typedef struct bench_cfg {
    bool json;
    uint32_t *sizes;
    size_t nsizes;
    unsigned seed, cases, events_min, events_max, activities, M, queries, exact, threads;
    unsigned hubs, hub_degree, hub_M, walks;
    double alpha, eps, hub_eps;
} bench_cfg;

/* Figures of one size, for the summary table. */
typedef struct bench_row {
    uint32_t nodes;
    size_t net_edges, net_bytes, basis_bytes, state_bytes;
    double build_ms, cold_med_us, cold_p99_us, pushes, cold_recall, cold_l1;
    double basis_s, warm_med_us, warm_p99_us, push_med_us, push_p99_us, warm_recall;
    double state_used_bytes;
    uint32_t nhubs;
    double hubs_s;
    size_t hub_bytes;
} bench_row;

/* ------------------------------------------------------------------ */
/* Small helpers                                                       */
/* ------------------------------------------------------------------ */

/* The cold-query settings the benchmark defaults to: a coarser push whose
 * residual is carried by random walks, with the largest hubs precomputed
 * (pmrag ppr --help). */
#define BENCH_EPS 3e-6

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

static bool parse_double(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (!*s || *end || errno || !isfinite(v))
        return false;
    *out = v;
    return true;
}

/* "10000,100k,1M" */
static bool parse_sizes(const char *s, uint32_t **out, size_t *count)
{
    size_t cap = 8, n = 0;
    uint32_t *v = core_xmalloc(cap * sizeof *v);
    const char *p = s;
    while (*p) {
        char *end;
        errno = 0;
        unsigned long long x = strtoull(p, &end, 10);
        if (end == p || errno || *p == '-')
            goto bad;
        if (*end == 'k' || *end == 'K')
            x *= 1000, end++;
        else if (*end == 'm' || *end == 'M')
            x *= 1000000, end++;
        if (x < BENCH_SYNTH_MIN_NODES || x > 20000000)
            goto bad;
        if (n == cap)
            v = core_xrealloc(v, (cap *= 2) * sizeof *v);
        v[n++] = (uint32_t)x;
        if (*end == ',' && end[1])
            end++;
        else if (*end)
            goto bad;
        p = end;
    }
    if (n == 0)
        goto bad;
    *out = v;
    *count = n;
    return true;
bad:
    free(v);
    return false;
}

static void progress(const char *fmt, ...) CORE_PRINTF(1, 2);
static void progress(const char *fmt, ...)
{
    if (!cli_stderr_is_tty())
        return;
    va_list ap;
    va_start(ap, fmt);
    fputs("\r\033[Kpmrag bench ppr: ", stderr);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fflush(stderr);
}

static void progress_clear(void)
{
    if (cli_stderr_is_tty())
        fputs("\r\033[K", stderr);
}

/* Nodes with an out-edge in the net (a seed that goes somewhere). */
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
    ppr_opts opts;
    uint32_t n;
    core_buf *out; /* JSON or human text */
    bench_row *row;
} size_ctx;

static int fail(const char *what, int rc)
{
    progress_clear();
    return cli_error("bench ppr", "%s: %s", what, core_strerror(rc));
}

static int run_size(size_ctx *sc)
{
    const bench_cfg *cfg = sc->cfg;
    const ppr_opts *o = &sc->opts;
    uint32_t n = sc->n;
    bench_row *row = sc->row;
    core_buf *b = sc->out;
    int rc = 0;
    bench_rng rng;
    bench_rng_seed(&rng, (uint64_t)cfg->seed * 0x9e3779b97f4a7c15ull ^ n ^ 0xbe7c4ull);

    /* Graph and net. */
    progress("%u nodes: generating", n);
    uint64_t t0 = core_now_ns();
    bench_graph g;
    rc = bench_synth(n, cfg->seed, &g);
    if (rc)
        return fail("generating the graph", rc);
    double synth_ms = ms_since(t0);
    bench_synth_stats gs;
    bench_synth_stats_of(&g, &gs);
    ppr_weights wt;
    ppr_weights_profile("default", &wt);
    progress("%u nodes: building the net", n);
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
        return fail("building the net", rc);
    }
    ppr_work *w = NULL;
    rc = ppr_work_new(net, &w);
    if (rc) {
        ppr_net_free(net);
        bench_graph_free(&g);
        return fail("allocating the workspace", rc);
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
        progress("%u nodes: %u hub vectors", n, nhubs);
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
            return fail("building the hub vectors", rc);
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
    progress("%u nodes: %u cold queries", n, nq);
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
    qsort(ns, nq, sizeof *ns, cli_cmp_u64);
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
        progress("%u nodes: exact check %u/%u", n, i + 1, nexact);
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
    progress("%u nodes: %u bases on %u threads", n, nacts, threads);
    ppr_basis *basis = NULL;
    t0 = core_now_ns();
    rc = ppr_basis_build(net, acts, nacts, cfg->M, o, threads, &basis);
    double basis_ms = ms_since(t0);
    if (rc) {
        free(acts);
        fail("building the bases", rc);
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
    progress("%u nodes: %u warm cases (%zu events)", n, ncases, total);
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
        fail("advancing a case", rc);
        rc = 1;
        goto out_cases;
    }
    qsort(ev_ns, ev, sizeof *ev_ns, cli_cmp_u64);
    row->warm_med_us = quantile_us(ev_ns, ev, 0.5);
    row->warm_p99_us = quantile_us(ev_ns, ev, 0.99);
    row->state_bytes = sizeof(ppr_vec) + (size_t)M * sizeof(ppr_entry);
    double used_mean = ev ? used_sum / (double)ev : 0;
    row->state_used_bytes = sizeof(ppr_vec) + used_mean * sizeof(ppr_entry);

    /* The push path: the same process without bases, on fewer events. */
    size_t push_ev = 0;
    uint64_t push_t0 = core_now_ns();
    progress("%u nodes: push path (%u events)", n, BENCH_PUSH_EVENTS);
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
        fail("advancing a case without bases", rc);
        rc = 1;
        goto out_cases;
    }
    qsort(ev_ns, push_ev, sizeof *ev_ns, cli_cmp_u64);
    row->push_med_us = quantile_us(ev_ns, push_ev, 0.5);
    row->push_p99_us = quantile_us(ev_ns, push_ev, 0.99);

    /* Warm states against a cold exact computation of the decayed seed. */
    double wrec_sum = 0, wrec_min = 1, wl1_sum = 0, wl1_max = 0, werr_sum = 0;
    bool wbound = true;
    double *dense = core_xcalloc(n, sizeof *dense);
    ppr_entry *cseeds = core_xmalloc(((size_t)cfg->events_max + 1) * sizeof *cseeds);
    for (unsigned c = 0; c < ncheck; c++) {
        progress("%u nodes: warm check %u/%u", n, c + 1, ncheck);
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
            fail("power iteration", rc);
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
    progress_clear();

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
            core_buf_printf(b, "%s\"%s\":%.3f", t ? "," : "", type_names[t],
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
        rc = fail("query", rc);
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

static int write_edges(const char *path, uint32_t n, unsigned seed, bool typed)
{
    bench_graph g;
    int rc = bench_synth(n, seed, &g);
    if (rc)
        return cli_error("bench ppr", "generating the graph: %s", core_strerror(rc));
    ppr_net *net = NULL;
    ppr_weights wt;
    ppr_weights_profile("default", &wt);
    if (!typed) {
        rc = ppr_net_from_edges(n, g.edges, g.m, &wt, &net);
        if (rc) {
            bench_graph_free(&g);
            return cli_error("bench ppr", "building the net: %s", core_strerror(rc));
        }
    }
    bool to_stdout = strcmp(path, "-") == 0;
    FILE *f = to_stdout ? stdout : fopen(path, "w");
    if (!f) {
        int e = errno;
        ppr_net_free(net);
        bench_graph_free(&g);
        cli_error("bench ppr", "cannot open %s: %s", path, strerror(e));
        return CLI_EXIT_USAGE;
    }
    size_t written = 0;
    if (typed) {
        fprintf(f,
                "# pmrag bench ppr: synthetic code graph, %u nodes, seed %u: the generated typed\n"
                "# edges (src dst type weight). Loaded as an edge list (raw mode) this is NOT the\n"
                "# walk of the typed net: no reverse edges, no type weights.\n",
                n, seed);
        for (size_t i = 0; i < g.m && !ferror(f); i++) {
            const ppr_edge_in *e = &g.edges[i];
            fprintf(f, "%u %u %s %.9g\n", e->src, e->dst, type_names[e->type], (double)e->weight);
        }
        written = g.m;
    } else {
        fprintf(f,
                "# pmrag bench ppr: synthetic code graph, %u nodes, seed %u: the effective edges\n"
                "# of its typed net (default profile, reverse edges included), one per line as\n"
                "# `u v calls P(u,v)`, so that raw mode walks exactly the same chain.\n",
                n, seed);
        for (uint32_t u = 0; u < n && !ferror(f); u++) {
            const uint32_t *dst;
            const float *prob;
            const uint8_t *type;
            uint32_t k = ppr_net_out(net, u, &dst, &prob, &type);
            for (uint32_t i = 0; i < k; i++)
                fprintf(f, "%u %u calls %.9g\n", u, dst[i], (double)prob[i]);
            written += k;
        }
    }
    int bad = ferror(f), e = bad ? errno : 0; /* the failed write's errno */
    errno = 0;
    if ((to_stdout ? fflush(f) : fclose(f)) != 0) {
        bad = 1;
        if (!e)
            e = errno;
    }
    ppr_net_free(net);
    bench_graph_free(&g);
    if (bad && to_stdout && e == EPIPE)
        return 0; /* a closed pipe (| head) is not an error */
    if (bad)
        return cli_error("bench ppr", "writing %s: %s", path, e ? strerror(e) : "write error");
    fprintf(stderr, "pmrag bench ppr: wrote %zu %s edges over %u nodes to %s\n", written,
            typed ? "typed" : "effective", n, to_stdout ? "stdout" : path);
    return 0;
}

/* ------------------------------------------------------------------ */
/* The command                                                         */
/* ------------------------------------------------------------------ */

static void summary_table(FILE *f, const bench_row *rows, size_t n)
{
    fprintf(f, "\n%9s %9s %8s | %9s %9s %8s %7s %8s | %7s %7s | %8s %8s %9s %9s | %6s %6s\n",
            "nodes", "net edges", "build ms", "cold med", "cold p99", "pushes", "recall", "L1",
            "basis s", "MiB", "warm med", "warm p99", "push med", "push p99", "state", "recall");
    fprintf(f, "%9s %9s %8s | %9s %9s %8s %7s %8s | %7s %7s | %8s %8s %9s %9s | %6s %6s\n", "", "",
            "", "us", "us", "/query", "top-10", "vs exact", "", "", "us", "us", "us", "us", "bytes",
            "warm");
    for (size_t i = 0; i < n; i++) {
        const bench_row *r = &rows[i];
        char recall[16] = "-", l1[16] = "-", wrecall[16] = "-";
        if (!isnan(r->cold_recall)) {
            snprintf(recall, sizeof recall, "%.4f", r->cold_recall);
            snprintf(l1, sizeof l1, "%.2g", r->cold_l1);
        }
        if (!isnan(r->warm_recall))
            snprintf(wrecall, sizeof wrecall, "%.3f", r->warm_recall);
        fprintf(f,
                "%9u %9zu %8.0f | %9.0f %9.0f %8.0f %7s %8s | %7.2f %7.1f | %8.2f %8.2f %9.0f "
                "%9.0f | %6.0f %6s\n",
                r->nodes, r->net_edges, r->build_ms, r->cold_med_us, r->cold_p99_us, r->pushes,
                recall, l1, r->basis_s, (double)r->basis_bytes / (1 << 20), r->warm_med_us,
                r->warm_p99_us, r->push_med_us, r->push_p99_us, r->state_used_bytes, wrecall);
    }
}

static int bench_ppr(int argc, char **argv)
{
    bench_cfg cfg = {
        .seed = 1,
        .cases = 2000,
        .events_min = 20,
        .events_max = 200,
        .activities = 1000,
        .M = PPR_DEFAULT_M,
        .hubs = 100,
        .hub_degree = 32,
        .hub_M = 1024,
        .walks = 2000,
        .queries = 200,
        .exact = UINT32_MAX, /* not given */
    };
    const char *sizes = NULL, *alpha = NULL, *eps = NULL, *edges_out = NULL, *hub_eps = NULL;
    unsigned size = 0;
    bool typed = false;
    const cli_opt opts[] = {
        {"json", 0, CLI_FLAG, &cfg.json, NULL,
         "one JSON object per size on stdout, the summary table on stderr", 0, 0},
        {"sizes", 0, CLI_STR, &sizes, "LIST",
         "graph sizes in nodes, e.g. 10000,100k,1M (default: 10000,100000,1000000)", 0, 0},
        {"seed", 0, CLI_UINT, &cfg.seed, "S", "seed of the generator and of the draws (default 1)",
         0, UINT32_MAX},
        {"queries", 0, CLI_UINT, &cfg.queries, "N", "cold queries per size (default 200)", 1,
         1000000},
        {"exact", 0, CLI_UINT, &cfg.exact, "N",
         "of those, checked against power iteration (default 20; 3 from 500k nodes)", 0, 64},
        {"cases", 0, CLI_UINT, &cfg.cases, "N", "simulated cases (default 2000)", 1, 1000000},
        {"events-min", 0, CLI_UINT, &cfg.events_min, "N", "fewest events in a case (default 20)", 1,
         100000},
        {"events-max", 0, CLI_UINT, &cfg.events_max, "N", "most events in a case (default 200)", 1,
         100000},
        {"activities", 0, CLI_UINT, &cfg.activities, "A",
         "activity nodes with a precomputed basis (default 1000)", 1, 10000000},
        {"M", 0, CLI_UINT, &cfg.M, "M", "entries kept per case state and basis (default 256)", 1,
         PPR_MAX_M},
        {"alpha", 0, CLI_STR, &alpha, "A", "restart probability (default 0.15)", 0, 0},
        {"eps", 0, CLI_STR, &eps, "E", "push threshold (default 3e-6)", 0, 0},
        {"threads", 'j', CLI_UINT, &cfg.threads, "N",
         "threads building the bases (default: one per CPU)", 1, 256},
        {"hubs", 0, CLI_UINT, &cfg.hubs, "N",
         "precompute vectors of the N highest-degree nodes; pushes stop at them (default 100)", 0,
         10000000},
        {"hub-degree", 0, CLI_UINT, &cfg.hub_degree, "D", "hubs have at least D edges (default 32)",
         1, 100000000},
        {"hub-M", 0, CLI_UINT, &cfg.hub_M, "M", "entries kept per hub vector (default 1024)", 1,
         PPR_MAX_M},
        {"hub-eps", 0, CLI_STR, &hub_eps, "E", "push threshold of the hub vectors (default 1e-7)",
         0, 0},
        {"walks", 0, CLI_UINT, &cfg.walks, "W",
         "random walks carrying each cold query's residual (default 2000; 0: none)", 0, 100000000},
        {"write-edges", 0, CLI_STR, &edges_out, "FILE",
         "write the graph of --size N as an edge list instead ('-': stdout)", 0, 0},
        {"size", 0, CLI_UINT, &size, "N", "nodes of the graph --write-edges writes", 0, 20000000},
        {"typed", 0, CLI_FLAG, &typed, NULL,
         "with --write-edges: the generated typed edges, not the net's effective ones", 0, 0},
    };
    const cli_cmd cmd = {
        "bench ppr",
        "[options]",
        "Measure the personalized-PageRank engine on synthetic code-like graphs: for\n"
        "each size, the net's build time and size; cold queries (a forward push from one\n"
        "seed: median and p99 time, pushes, error bound, and top-10 recall and L1 error\n"
        "against power iteration); the bases of the activity nodes (time, memory); and\n"
        "simulated cases, one event at a time (ppr_state_advance with decay 0.8 and the\n"
        "top 10): time per event with bases and without, state memory, and the warm\n"
        "states' recall and L1 error against an exact computation of the same decayed\n"
        "seed.",
        "The graphs: modules of 10-60 nodes (module, classes, variables, methods,\n"
        "functions, member_of their parent), power-law out-degrees of mean ~6, targets\n"
        "mostly in the same or nearby modules and else by preferential attachment (hubs\n"
        "with thousands of in-edges), edge types in the proportions of real code graphs;\n"
        "the same --seed and size give the same graph. The net is built in typed mode\n"
        "(default profile: type weights and reverse edges).\n"
        "Cases walk a Markov chain over the activities (mostly functions; each has\n"
        "three likely successors nearby). Recall counts ties at the 10th score as found;\n"
        "cold top-10s leave the seed out.\n"
        "--write-edges FILE --size N writes the EFFECTIVE edges of the typed net, one\n"
        "line `u v calls P(u,v)` per out-edge with its transition probability, so that\n"
        "`pmrag ppr --edges FILE` (raw mode) and other tools walk exactly the same\n"
        "chain (this is what tests/bench/ppr_igraph.sh compares). With --typed it writes\n"
        "the generated `src dst type weight` edges instead, which raw mode would walk\n"
        "without reverse edges or type weights.",
        opts,
        sizeof opts / sizeof opts[0],
        0,
        0,
    };
    cli_list args = {0};
    int rc;
    if (!cli_parse(&cmd, argc, argv, &args, &rc))
        return rc;
    free(args.v);
    cfg.alpha = PPR_DEFAULT_ALPHA;
    cfg.eps = BENCH_EPS;
    if (alpha && (!parse_double(alpha, &cfg.alpha) || !(cfg.alpha > 0 && cfg.alpha < 1)))
        return cli_usage_error(&cmd, "--alpha takes a number between 0 and 1, not '%s'", alpha);
    if (eps && (!parse_double(eps, &cfg.eps) || !(cfg.eps > 0 && cfg.eps < 1)))
        return cli_usage_error(&cmd, "--eps takes a number between 0 and 1, not '%s'", eps);
    cfg.hub_eps = 1e-7;
    if (hub_eps && (!parse_double(hub_eps, &cfg.hub_eps) || !(cfg.hub_eps > 0 && cfg.hub_eps < 1)))
        return cli_usage_error(&cmd, "--hub-eps takes a number between 0 and 1, not '%s'", hub_eps);
    if (cfg.events_min > cfg.events_max)
        return cli_usage_error(&cmd, "--events-min %u is above --events-max %u", cfg.events_min,
                               cfg.events_max);
    if (edges_out) {
        if (size < BENCH_SYNTH_MIN_NODES)
            return cli_usage_error(&cmd, "--write-edges needs --size N (at least %u nodes)",
                                   BENCH_SYNTH_MIN_NODES);
        return write_edges(edges_out, size, cfg.seed, typed);
    }
    if (size || typed)
        return cli_usage_error(&cmd, "--size and --typed go with --write-edges");
    if (!parse_sizes(sizes ? sizes : "10000,100000,1000000", &cfg.sizes, &cfg.nsizes))
        return cli_usage_error(&cmd,
                               "--sizes takes node counts from %u to 20M separated by commas, "
                               "not '%s'",
                               BENCH_SYNTH_MIN_NODES, sizes);

    bench_row *rows = core_xcalloc(cfg.nsizes, sizeof *rows);
    ppr_opts o = ppr_opts_default();
    o.alpha = cfg.alpha;
    o.eps = cfg.eps;
    o.walks = cfg.walks;
    rc = 0;
    size_t done = 0;
    for (size_t i = 0; i < cfg.nsizes && rc == 0; i++) {
        core_buf b = {0};
        size_ctx sc = {&cfg, o, cfg.sizes[i], &b, &rows[i]};
        rc = run_size(&sc);
        if (rc == 0) {
            rc = cli_write_stdout("bench ppr", b.data, b.len);
            done++;
        }
        core_buf_free(&b);
    }
    if (done)
        summary_table(cfg.json ? stderr : stdout, rows, done);
    free(rows);
    free(cfg.sizes);
    return rc;
}

static void list_benchmarks(FILE *f)
{
    fprintf(f, "usage: pmrag bench NAME [options]\n\n"
               "Benchmarks built into pmrag (their figures are printed, nothing is asserted).\n\n"
               "benchmarks:\n"
               "  ppr        personalized PageRank on synthetic code-like graphs: build, cold\n"
               "             queries, bases, per-event case updates, accuracy\n"
               "\n'pmrag bench NAME --help' describes one.\n");
}

int cmd_bench(int argc, char **argv)
{
    if (argc < 1 || strcmp(argv[0], "--help") == 0 || strcmp(argv[0], "-h") == 0) {
        list_benchmarks(stdout);
        return 0;
    }
    if (strcmp(argv[0], "ppr") == 0)
        return bench_ppr(argc - 1, argv + 1);
    fprintf(stderr, "pmrag bench: unknown benchmark '%s' (see 'pmrag bench --help')\n", argv[0]);
    return CLI_EXIT_USAGE;
}
