/* Workspaces, forward push, power iteration, top-k (ppr.h). */
#include "ppr_int.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

ppr_opts ppr_opts_default(void)
{
    ppr_opts o = {PPR_DEFAULT_ALPHA, PPR_DEFAULT_EPS, 0, NULL, 0, 0};
    return o;
}

int ppr_work_new(const ppr_net *net, ppr_work **out)
{
    size_t n = net->n ? net->n : 1;
    ppr_work *w = calloc(1, sizeof *w);
    if (!w)
        return -ENOMEM;
    w->net = net;
    w->p = calloc(n, sizeof *w->p);
    w->node = calloc(n, sizeof *w->node);
    w->queue = malloc(n * sizeof *w->queue);
    w->touched = malloc(n * sizeof *w->touched);
    w->scratch = malloc(3 * (size_t)PPR_MAX_M * sizeof *w->scratch);
    if (!w->p || !w->node || !w->queue || !w->touched || !w->scratch) {
        ppr_work_free(w);
        return -ENOMEM;
    }
    for (uint32_t u = 0; u < net->n; u++) {
        uint32_t deg = net->off[u + 1] - net->off[u];
        w->node[u].deg = deg ? deg : 1;
    }
    *out = w;
    return 0;
}

void ppr_work_free(ppr_work *w)
{
    if (!w)
        return;
    free(w->p);
    free(w->node);
    free(w->queue);
    free(w->touched);
    free(w->scratch);
    free(w->dist);
    free(w->pred);
    free(w->pred_edge);
    free(w->heap);
    free(w->pos);
    free(w);
}

size_t ppr_work_bytes(const ppr_work *w)
{
    if (!w)
        return 0;
    size_t n = w->net->n ? w->net->n : 1;
    size_t b = sizeof *w +
               n * (sizeof *w->p + sizeof *w->node + sizeof *w->queue + sizeof *w->touched) +
               3 * (size_t)PPR_MAX_M * sizeof *w->scratch;
    if (w->dist) /* dist, pred, pred_edge, heap, pos */
        b += n * (sizeof *w->dist + 4 * sizeof(uint32_t));
    return b;
}

/* Clears what the last query touched. */
static void reset(ppr_work *w)
{
    for (uint32_t i = 0; i < w->ntouched; i++) {
        uint32_t u = w->touched[i];
        w->p[u] = 0;
        w->node[u].r = 0;
        w->node[u].mark = 0;
    }
    w->ntouched = 0;
    w->has_push = false;
    w->error_bound = 0;
}

/* Marks the hubs of b in the node records (and unmarks the previous
 * ones): O(hubs), done when a push brings other hubs than the last. */
static void use_hubs(ppr_work *w, const ppr_basis *b)
{
    const ppr_net *net = w->net;
    if (w->hubs) {
        const uint32_t *old = w->hubs->nodes;
        for (uint32_t i = 0; i < w->hubs->count; i++) {
            uint32_t u = old[i], deg = net->off[u + 1] - net->off[u];
            w->node[u].deg = deg ? deg : 1;
        }
    }
    w->hubs = b;
    if (b) {
        for (uint32_t i = 0; i < b->count; i++)
            w->node[b->nodes[i]].deg = UINT32_MAX;
    }
}

static inline void touch(ppr_work *w, ppr_node *nd, uint32_t u)
{
    if (!nd->mark) {
        nd->mark = 1;
        w->touched[w->ntouched++] = u;
    }
}

void ppr_work_add(ppr_work *w, const ppr_entry *e, uint32_t n, double scale)
{
    for (uint32_t i = 0; i < n; i++) {
        uint32_t u = e[i].node;
        touch(w, &w->node[u], u);
        w->p[u] += scale * e[i].score;
    }
}

void ppr_work_load(ppr_work *w, const uint32_t *nodes, const double *p, uint32_t n, double err)
{
    reset(w);
    if (w->hubs)
        use_hubs(w, NULL);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t u = nodes[i];
        w->node[u].mark = 1;
        w->touched[i] = u;
        w->p[u] = p[i];
    }
    w->ntouched = n;
    w->error_bound = err;
    w->has_push = true;
}

/* splitmix64 is enough for choosing walk steps. */
static inline double rng_unit(uint64_t *s)
{
    return core_unit_double(core_splitmix64(s));
}

/*
 * Replaces the residual of every non-hub node by random walks (see
 * ppr_opts.walks); returns the L1 mass walked. Hubs keep theirs: it is
 * absorbed mass, spread through their vectors afterwards.
 */
static double walk_residual(ppr_work *w, const ppr_entry *seeds, uint32_t nseeds, const ppr_opts *o)
{
    const ppr_net *net = w->net;
    ppr_node *nodes = w->node;
    uint32_t nt = w->ntouched;
    double total = 0;
    for (uint32_t i = 0; i < nt; i++) {
        ppr_node *nd = &nodes[w->touched[i]];
        if (nd->deg != UINT32_MAX)
            total += fabs(nd->r);
    }
    if (!(total > 0))
        return 0;
    uint64_t rng = o->walk_seed ^ 0x5eedc0ffee1234ull;
    for (uint32_t i = 0; i < nseeds; i++)
        rng ^= core_hash_u64(seeds[i].node + 0x9e37ull * i);
    double unit = total / o->walks;
    double alpha = o->alpha;
    for (uint32_t i = 0; i < nt; i++) {
        uint32_t u = w->touched[i];
        ppr_node *nu = &nodes[u];
        if (nu->deg == UINT32_MAX || nu->r == 0)
            continue;
        /* |r_u| / unit walks, rounded at random so the mass is right on
         * average; each carries unit with r_u's sign. */
        double want = fabs(nu->r) / unit;
        uint32_t k = (uint32_t)want;
        if (rng_unit(&rng) < want - k)
            k++;
        double mass = nu->r < 0 ? -unit : unit;
        nu->r = 0;
        for (uint32_t j = 0; j < k; j++) {
            uint32_t v = u;
            for (;;) {
                ppr_node *nv = &nodes[v];
                if (nv->deg == UINT32_MAX) {
                    touch(w, nv, v);
                    nv->r += mass;
                    break;
                }
                if (rng_unit(&rng) < alpha) {
                    touch(w, nv, v);
                    w->p[v] += mass;
                    break;
                }
                uint32_t a = net->off[v], b = net->off[v + 1];
                if (a == b)
                    break; /* dangling: x drops it */
                /* The first edge whose running sum passes a uniform draw
                 * (scaled by the row's sum, 1 up to rounding). */
                float pick = (float)(rng_unit(&rng) * net->cum[b - 1]);
                uint32_t lo = a, hi = b - 1;
                while (lo < hi) {
                    uint32_t mid = lo + (hi - lo) / 2;
                    if (net->cum[mid] <= pick)
                        lo = mid + 1;
                    else
                        hi = mid;
                }
                v = net->dst[lo];
            }
        }
    }
    return total;
}

int ppr_push(ppr_work *w, const ppr_entry *seeds, uint32_t nseeds, const ppr_opts *o, ppr_stats *st)
{
    const ppr_net *net = w->net;
    double alpha = o->alpha, eps = o->eps;
    if (!(alpha > 0 && alpha < 1) || !(eps > 0) || !isfinite(eps))
        return CORE_EUSAGE;
    for (uint32_t i = 0; i < nseeds; i++)
        if (seeds[i].node >= net->n || !isfinite(seeds[i].score))
            return CORE_EUSAGE;
    if (o->hubs && o->hubs->n != net->n)
        return CORE_EUSAGE;
    reset(w);
    if (o->hubs != w->hubs)
        use_hubs(w, o->hubs);
    uint32_t n = net->n;
    ppr_node *nodes = w->node;
    /* The queue is a ring of n slots; a node is in it at most once. */
    uint32_t head = 0, count = 0;
    for (uint32_t i = 0; i < nseeds; i++) {
        uint32_t u = seeds[i].node;
        touch(w, &nodes[u], u);
        nodes[u].r += seeds[i].score;
    }
    for (uint32_t i = 0; i < w->ntouched; i++) {
        uint32_t u = w->touched[i];
        ppr_node *nd = &nodes[u];
        if (fabs(nd->r) > eps * nd->deg && !nd->inq) {
            nd->inq = 1;
            w->queue[(head + count++) % n] = u;
        }
    }
    uint64_t pushes = 0, relaxed = 0;
    bool budget_hit = false;
    double keep = 1 - alpha;
    const uint32_t *off = net->off, *dst = net->dst;
    const float *prob = net->prob;
    while (count) {
        if (o->max_pushes && pushes >= o->max_pushes) {
            budget_hit = true;
            break;
        }
        uint32_t u = w->queue[head];
        head = head + 1 == n ? 0 : head + 1;
        count--;
        ppr_node *nu = &nodes[u];
        nu->inq = 0;
        double ru = nu->r;
        if (!(fabs(ru) > eps * nu->deg))
            continue;
        w->p[u] += alpha * ru;
        nu->r = 0;
        pushes++;
        uint32_t a = off[u], b = off[u + 1];
        /* A dangling node's share goes nowhere: x drops it (see ppr.h). */
        double m = keep * ru;
        relaxed += b - a;
        for (uint32_t e = a; e < b; e++) {
            uint32_t v = dst[e];
            ppr_node *nv = &nodes[v];
            touch(w, nv, v);
            nv->r += m * prob[e];
            if (!nv->inq && fabs(nv->r) > eps * nv->deg) {
                nv->inq = 1;
                uint32_t slot = head + count;
                w->queue[slot >= n ? slot - n : slot] = v;
                count++;
            }
        }
    }
    /* A budget stop leaves nodes queued: clear their flags. */
    for (; count; count--) {
        nodes[w->queue[head]].inq = 0;
        head = head + 1 == n ? 0 : head + 1;
    }
    /* Walks carry what the push left in its residual. */
    double walked = 0;
    if (o->walks && !budget_hit)
        walked = walk_residual(w, seeds, nseeds, o);
    /* Hubs: what reached each one, spread through its vector. */
    double hub_err = 0;
    if (o->hubs) {
        uint32_t before = w->ntouched;
        for (uint32_t i = 0; i < before; i++) {
            uint32_t h = w->touched[i];
            ppr_node *nh = &nodes[h];
            if (nh->deg != UINT32_MAX || nh->r == 0)
                continue;
            const ppr_vec *x = ppr__basis_vec(o->hubs, h);
            double a = nh->r;
            nh->r = 0;
            for (uint32_t k = 0; k < x->n; k++) {
                uint32_t v = x->e[k].node;
                touch(w, &nodes[v], v);
                w->p[v] += a * x->e[k].score;
            }
            hub_err += fabs(a) * x->err;
        }
    }
    /* |x(r)|_1 <= alpha * sum_k ((1 - alpha) rho)^k |r|_1, rho the
     * largest row sum of the stored probabilities (1 up to float
     * rounding), so the bound stays a bound. */
    double res = 0;
    for (uint32_t i = 0; i < w->ntouched; i++)
        res += fabs(nodes[w->touched[i]].r);
    res += 2 * walked;
    res *= alpha / (1 - keep * net->rho);
    res += hub_err;
    w->error_bound = res;
    w->has_push = true;
    if (st) {
        st->pushes = pushes;
        st->edges = relaxed;
        st->touched = w->ntouched;
        st->error_bound = res;
        st->budget_hit = budget_hit;
    }
    return 0;
}

double ppr_work_score(const ppr_work *w, uint32_t u)
{
    return u < w->net->n ? w->p[u] : 0.0;
}

/* ---- sorting and selection (no allocation) ---- */

/* a before b in "best first" order. */
static inline bool better(const ppr_entry *a, const ppr_entry *b)
{
    return a->score != b->score ? a->score > b->score : a->node < b->node;
}

static void sift_node(ppr_entry *a, uint32_t i, uint32_t n)
{
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= n)
            return;
        if (c + 1 < n && a[c + 1].node > a[c].node)
            c++;
        if (a[i].node >= a[c].node)
            return;
        ppr_entry t = a[i];
        a[i] = a[c];
        a[c] = t;
        i = c;
    }
}

void ppr__sort_by_node(ppr_entry *e, uint32_t n)
{
    if (n < 2)
        return;
    for (uint32_t i = n / 2; i-- > 0;)
        sift_node(e, i, n);
    for (uint32_t end = n; end-- > 1;) {
        ppr_entry t = e[0];
        e[0] = e[end];
        e[end] = t;
        sift_node(e, 0, end);
    }
}

/* Heap whose root is the worst entry (min-heap in "best first" order). */
static void sift_worst(ppr_entry *a, uint32_t i, uint32_t n)
{
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= n)
            return;
        if (c + 1 < n && better(&a[c], &a[c + 1]))
            c++;
        if (!better(&a[i], &a[c]))
            return;
        ppr_entry t = a[i];
        a[i] = a[c];
        a[c] = t;
        i = c;
    }
}

void ppr_sort_by_score(ppr_entry *e, uint32_t n)
{
    /* Heapsort with the worst at the root leaves the array best first. */
    if (n < 2)
        return;
    for (uint32_t i = n / 2; i-- > 0;)
        sift_worst(e, i, n);
    for (uint32_t end = n; end-- > 1;) {
        ppr_entry t = e[0];
        e[0] = e[end];
        e[end] = t;
        sift_worst(e, 0, end);
    }
}

/*
 * Offers c to a heap of the best k in h[0..*n) (worst at the root);
 * returns the entry that fell out (score 0 and node UINT32_MAX if none).
 */
ppr_entry ppr_heap_offer(ppr_entry *h, uint32_t *n, uint32_t k, ppr_entry c)
{
    ppr_entry out = {UINT32_MAX, 0};
    if (*n < k) {
        uint32_t j = (*n)++;
        h[j] = c;
        while (j > 0) {
            uint32_t parent = (j - 1) / 2;
            if (!better(&h[parent], &h[j]))
                break;
            ppr_entry t = h[parent];
            h[parent] = h[j];
            h[j] = t;
            j = parent;
        }
    } else if (k && better(&c, &h[0])) {
        out = h[0];
        h[0] = c;
        sift_worst(h, 0, *n);
    } else {
        out = c;
    }
    return out;
}

/* The adjusted score, or NAN when the node is excluded (factor 0). */
static float adjusted(const ppr_adjust *adj, uint32_t node, float score)
{
    if (adj)
        for (uint32_t i = 0; i < adj->n; i++)
            if (adj->nodes[i] == node)
                return adj->factor[i] == 0 ? NAN : score * adj->factor[i];
    return score;
}

uint32_t ppr__topk(const ppr_entry *in, uint32_t n, uint32_t k, const ppr_adjust *adj,
                   ppr_entry *out)
{
    uint32_t h = 0;
    for (uint32_t i = 0; i < n; i++) {
        float s = adjusted(adj, in[i].node, in[i].score);
        if (!isnan(s))
            ppr_heap_offer(out, &h, k, (ppr_entry){in[i].node, s});
    }
    ppr_sort_by_score(out, h);
    return h;
}

uint32_t ppr_work_topk(const ppr_work *w, uint32_t k, const ppr_adjust *adj, ppr_entry *out)
{
    uint32_t h = 0;
    for (uint32_t i = 0; i < w->ntouched; i++) {
        uint32_t u = w->touched[i];
        if (w->p[u] == 0)
            continue;
        float s = adjusted(adj, u, (float)w->p[u]);
        if (!isnan(s))
            ppr_heap_offer(out, &h, k, (ppr_entry){u, s});
    }
    ppr_sort_by_score(out, h);
    return h;
}

uint32_t ppr_vec_topk(const ppr_vec *v, uint32_t k, const ppr_adjust *adj, ppr_entry *out)
{
    return ppr__topk(v->e, v->n, k, adj, out);
}

void ppr_vec_init(ppr_vec *v, ppr_entry *storage, uint32_t cap)
{
    v->e = storage;
    v->n = 0;
    v->cap = cap;
    v->err = 0;
}

void ppr_work_export(const ppr_work *w, uint32_t M, ppr_vec *v)
{
    if (M > v->cap)
        M = v->cap;
    /* The M largest |estimates| (a heap over v->e by absolute value); the
     * rest is dropped mass. */
    double dropped = 0;
    uint32_t h = 0;
    for (uint32_t i = 0; i < w->ntouched; i++) {
        uint32_t u = w->touched[i];
        if (w->p[u] == 0)
            continue;
        ppr_entry out = ppr_heap_offer(v->e, &h, M, (ppr_entry){u, (float)fabs(w->p[u])});
        dropped += out.score;
    }
    /* Back to signed values, sorted by node. Storing them as floats
     * rounds each by at most FLT_EPSILON / 2 of itself. */
    double kept = 0;
    for (uint32_t i = 0; i < h; i++) {
        kept += v->e[i].score;
        v->e[i].score = (float)w->p[v->e[i].node];
    }
    ppr__sort_by_node(v->e, h);
    v->n = h;
    v->err = w->error_bound + dropped + kept * FLT_EPSILON;
}

/* ---- power iteration ---- */

int ppr_power(const ppr_net *net, const ppr_entry *seeds, uint32_t nseeds, double alpha, double tol,
              uint32_t max_iter, double *x, uint32_t *iters)
{
    if (!(alpha > 0 && alpha < 1) || !(tol > 0))
        return CORE_EUSAGE;
    uint32_t n = net->n;
    for (uint32_t i = 0; i < nseeds; i++)
        if (seeds[i].node >= n)
            return CORE_EUSAGE;
    double *next = malloc((n ? n : 1) * sizeof *next);
    if (!next)
        return -ENOMEM;
    memset(x, 0, n * sizeof *x);
    for (uint32_t i = 0; i < nseeds; i++)
        x[seeds[i].node] += alpha * seeds[i].score;
    double keep = 1 - alpha;
    uint32_t it = 0;
    int rc = CORE_ELIMIT;
    while (it < max_iter) {
        memset(next, 0, n * sizeof *next);
        for (uint32_t i = 0; i < nseeds; i++)
            next[seeds[i].node] += alpha * seeds[i].score;
        for (uint32_t u = 0; u < n; u++) {
            double m = keep * x[u];
            if (m == 0)
                continue;
            for (uint32_t e = net->off[u]; e < net->off[u + 1]; e++)
                next[net->dst[e]] += m * net->prob[e];
        }
        double diff = 0;
        for (uint32_t u = 0; u < n; u++)
            diff += fabs(next[u] - x[u]);
        memcpy(x, next, n * sizeof *x);
        it++;
        /* The map is a (1 - alpha)-contraction in L1: the distance to the
         * fixed point is at most diff * (1 - alpha) / alpha. */
        if (diff * keep / alpha < tol) {
            rc = 0;
            break;
        }
    }
    free(next);
    if (iters)
        *iters = it;
    return rc;
}

uint32_t ppr_work_touched(const ppr_work *w, const uint32_t **nodes, const double **estimate)
{
    *nodes = w->touched;
    *estimate = w->p;
    return w->ntouched;
}
