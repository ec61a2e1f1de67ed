/* Explanations (best walk paths) and impact (blast radius) (ppr.h). */
#include "ppr_int.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/*
 * An indexed binary min-heap of nodes keyed by key[]: pos[u] is u's place
 * in heap[] (UINT32_MAX when not in it), so a key can decrease in place.
 */
typedef struct {
    uint32_t *heap, *pos;
    const double *key;
    uint32_t n;
} iheap;

static void ih_swap(iheap *h, uint32_t i, uint32_t j)
{
    uint32_t a = h->heap[i], b = h->heap[j];
    h->heap[i] = b;
    h->heap[j] = a;
    h->pos[b] = i;
    h->pos[a] = j;
}

static void ih_up(iheap *h, uint32_t i)
{
    while (i > 0) {
        uint32_t p = (i - 1) / 2;
        if (h->key[h->heap[p]] <= h->key[h->heap[i]])
            break;
        ih_swap(h, i, p);
        i = p;
    }
}

static void ih_down(iheap *h, uint32_t i)
{
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= h->n)
            return;
        if (c + 1 < h->n && h->key[h->heap[c + 1]] < h->key[h->heap[c]])
            c++;
        if (h->key[h->heap[i]] <= h->key[h->heap[c]])
            return;
        ih_swap(h, i, c);
        i = c;
    }
}

/* Inserts u or lowers its key (already set in key[]). */
static void ih_push(iheap *h, uint32_t u)
{
    if (h->pos[u] == UINT32_MAX) {
        h->heap[h->n] = u;
        h->pos[u] = h->n++;
    }
    ih_up(h, h->pos[u]);
}

static uint32_t ih_pop(iheap *h)
{
    uint32_t u = h->heap[0];
    h->pos[u] = UINT32_MAX;
    if (--h->n) {
        h->heap[0] = h->heap[h->n];
        h->pos[h->heap[0]] = 0;
        ih_down(h, 0);
    }
    return u;
}

/* ---- explanations ---- */

static int explain_arrays(ppr_work *w)
{
    if (w->dist)
        return 0;
    size_t n = w->net->n ? w->net->n : 1;
    w->dist = malloc(n * sizeof *w->dist);
    w->pred = malloc(n * sizeof *w->pred);
    w->pred_edge = malloc(n * sizeof *w->pred_edge);
    w->heap = malloc(n * sizeof *w->heap);
    w->pos = malloc(n * sizeof *w->pos);
    if (!w->dist || !w->pred || !w->pred_edge || !w->heap || !w->pos) {
        free(w->dist);
        free(w->pred);
        free(w->pred_edge);
        free(w->heap);
        free(w->pos);
        w->dist = NULL;
        return -ENOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        w->dist[i] = INFINITY;
        w->pos[i] = UINT32_MAX;
    }
    return 0;
}

int ppr_explain(ppr_work *w, const ppr_entry *seeds, uint32_t nseeds, uint32_t target, double alpha,
                uint32_t max_visits, ppr_path *out)
{
    const ppr_net *net = w->net;
    if (!(alpha > 0 && alpha < 1) || target >= net->n)
        return CORE_EUSAGE;
    for (uint32_t i = 0; i < nseeds; i++)
        if (seeds[i].node >= net->n)
            return CORE_EUSAGE;
    int rc = explain_arrays(w);
    if (rc)
        return rc;
    /*
     * A path's contribution is s(seed) * alpha * prod((1 - alpha) P):
     * best-first on its negative log, which only grows along a path, so
     * the first time target leaves the heap its best path is known.
     */
    iheap h = {w->heap, w->pos, w->dist, 0};
    /* Nodes whose dist was set, to reset them after: the workspace's
     * queue (free outside a push) holds them. */
    uint32_t *seen = w->queue, nseen = 0;
    double lk = log(1 - alpha);
    for (uint32_t i = 0; i < nseeds; i++) {
        uint32_t s = seeds[i].node;
        if (!(seeds[i].score > 0))
            continue;
        double d = -log(seeds[i].score * alpha);
        if (d < w->dist[s]) {
            if (w->dist[s] == INFINITY)
                seen[nseen++] = s;
            w->dist[s] = d;
            w->pred[s] = UINT32_MAX;
            w->pred_edge[s] = UINT32_MAX;
            ih_push(&h, s);
        }
    }
    uint32_t visits = 0;
    bool found = false;
    while (h.n) {
        uint32_t u = ih_pop(&h);
        if (u == target) {
            found = true;
            break;
        }
        if (max_visits && ++visits > max_visits)
            break;
        for (uint32_t e = net->off[u]; e < net->off[u + 1]; e++) {
            uint32_t v = net->dst[e];
            double p = net->prob[e];
            if (!(p > 0))
                continue;
            double d = w->dist[u] - lk - log(p);
            if (d < w->dist[v]) {
                if (w->dist[v] == INFINITY)
                    seen[nseen++] = v;
                w->dist[v] = d;
                w->pred[v] = u;
                w->pred_edge[v] = e;
                ih_push(&h, v);
            }
        }
    }
    rc = found ? 0 : CORE_ENOTFOUND;
    if (found) {
        /* Walk back from target to the seed. */
        uint32_t len = 0;
        for (uint32_t v = target; w->pred[v] != UINT32_MAX; v = w->pred[v])
            len++;
        if (len > PPR_MAX_PATH) {
            rc = CORE_ELIMIT;
        } else {
            out->len = len;
            uint32_t k = len, v = target;
            while (w->pred[v] != UINT32_MAX) {
                uint32_t e = w->pred_edge[v];
                out->steps[--k] = (ppr_step){w->pred[v], v, net->type[e], net->prob[e]};
                v = w->pred[v];
            }
            out->seed = v;
            out->contribution = exp(-w->dist[target]);
            double score = w->has_push ? w->p[target] : 0;
            out->share = score > 0 ? out->contribution / score : 0;
        }
    }
    /* Leave the arrays clean for the next explanation. */
    for (uint32_t i = 0; i < nseen; i++) {
        w->dist[seen[i]] = INFINITY;
        w->pos[seen[i]] = UINT32_MAX;
    }
    return rc;
}

/* ---- impact ---- */

ppr_impact_opts ppr_impact_opts_default(void)
{
    ppr_impact_opts o;
    memset(&o, 0, sizeof o);
    ppr_weights_profile("default", &o.weights);
    o.decay = 0.8;
    o.threshold = 0.05;
    o.max_results = 0;
    return o;
}

int ppr_impact_of(const graph *g, uint32_t symbol, const ppr_impact_opts *o, ppr_impact **out,
                  uint32_t *count)
{
    uint32_t n = graph_nsymbols(g);
    if (symbol >= n || !(o->decay > 0 && o->decay <= 1) || !(o->threshold > 0))
        return CORE_EUSAGE;
    /* Scores as negative logs, so the min-heap serves: a chain's score
     * only falls as it grows, and the first pop of a node is its best. */
    double *cost = malloc(n * sizeof *cost);
    uint32_t *via = malloc(n * sizeof *via);
    uint8_t *type = malloc(n);
    uint16_t *depth = malloc(n * sizeof *depth);
    uint32_t *heap = malloc(n * sizeof *heap);
    uint32_t *pos = malloc(n * sizeof *pos);
    ppr_impact *res = malloc(n * sizeof *res);
    int rc = 0;
    if (!cost || !via || !type || !depth || !heap || !pos || !res) {
        rc = -ENOMEM;
        goto done;
    }
    for (uint32_t i = 0; i < n; i++) {
        cost[i] = INFINITY;
        pos[i] = UINT32_MAX;
    }
    double limit = -log(o->threshold);
    iheap h = {heap, pos, cost, 0};
    cost[symbol] = 0;
    depth[symbol] = 0;
    via[symbol] = UINT32_MAX;
    ih_push(&h, symbol);
    uint32_t nres = 0;
    while (h.n) {
        uint32_t v = ih_pop(&h);
        if (v != symbol) {
            res[nres++] = (ppr_impact){v, (float)exp(-cost[v]), via[v], type[v], depth[v]};
            if (o->max_results && nres >= o->max_results)
                break;
        }
        /* Who depends on v: the sources of its in-edges of these types. */
        uint32_t ne;
        const graph_edge *e = graph_in_edges(g, v, &ne);
        for (uint32_t i = 0; i < ne; i++) {
            uint8_t t = e[i].type;
            if (t != GRAPH_EDGE_CALLS && t != GRAPH_EDGE_INHERITS && t != GRAPH_EDGE_USES &&
                t != GRAPH_EDGE_IMPORTS)
                continue;
            /* A confidence is at most 1 (a profile may weight a type above
             * 1 for PPR), so the decay always applies. */
            double conf = fmin(1.0, o->weights.type[t]) * fmin(1.0, e[i].weight) * o->decay;
            if (!(conf > 0))
                continue;
            uint32_t s = e[i].node;
            double c = cost[v] - log(conf);
            if (c > limit || c >= cost[s])
                continue;
            cost[s] = c;
            via[s] = v;
            type[s] = t;
            depth[s] = depth[v] < UINT16_MAX ? (uint16_t)(depth[v] + 1) : UINT16_MAX;
            ih_push(&h, s);
        }
    }
    /* Pops came best first already. */
    *out = res;
    *count = nres;
    res = NULL;
done:
    free(cost);
    free(via);
    free(type);
    free(depth);
    free(heap);
    free(pos);
    free(res);
    return rc;
}
