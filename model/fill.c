/*
 * Filling a ranked list the walk left short (model.h, model_rank).
 */
#include "model_int.h"

#include <stdlib.h>

/*
 * Fills a ranked list the walk left short. A model sure of the next
 * activity puts (nearly) all its mass on that activity's emitters, and
 * with diffusion turned down (code_scale 0, which calibration picks when
 * code edges do not change the top ranks) nothing else gets any: a top-10
 * of one or two symbols. The free places go to the rankable symbols
 * nearest the ranked ones in the code graph (callers, callees, methods of
 * the same class).
 *
 * A symbol's neighbourhood comes from a short spread from it: it starts
 * with 1, and each of FILL_HOPS hops passes half of what a node got to its
 * neighbours in proportion to the type-weighted code edges (as the joint
 * graph weighs them); its FILL_NB best rankable symbols are kept, made
 * once per work and symbol (the first ranking that needs them), so that a
 * fill costs a merge: each ranked symbol's neighbours weighed by 1/rank,
 * the ranked ones left out. Filled symbols rank after every walked one,
 * with scores below the last walked score, no activity and the ranked
 * symbol that gave them the most (near): they are near the prediction,
 * not predicted. The walk's own ranks never change, so top-1 and every
 * hit the walk makes stay the same; only misses can become hits further
 * down.
 */
#define FILL_HOPS 3
#define FILL_NB 16u
#define FILL_MAX_VISITED 4096u
#define FILL_MAX_EDGES 16384u /* edges looked at per spread */

/* Spreads x's share r of this hop to its neighbours (their mass for the
 * next hop, once each in its list); false once the edge budget is spent. */
static bool fill_spread(const model_joint *md, model_work *w, uint32_t x, double r,
                        uint32_t *budget)
{
    const graph *g = md->g;
    uint32_t no, ni;
    const graph_edge *out = graph_out_edges(g, x, &no);
    const graph_edge *in = graph_in_edges(g, x, &ni);
    if (no + ni > *budget)
        return false;
    *budget -= no + ni;
    double total = model__code_total(md, out, no, in, ni);
    if (!(total > 0))
        return true;
    double f = 0.5 * r / total;
    for (uint32_t i = 0; i < no + ni; i++) {
        const graph_edge *e = i < no ? &out[i] : &in[i - no];
        double wt = code_weight(md, e, i >= no);
        uint32_t u = e->node;
        if (!(wt > 0) || u >= md->S || w->fill_acc[u] < 0)
            continue;
        if (w->fill_acc[u] == 0) {
            if (w->fill_set.n >= FILL_MAX_VISITED)
                continue;
            core_vec_push(&w->fill_set, u);
        }
        w->fill_acc[u] += (float)(wt * f);
        if (w->fill_hopm[u] == 0)
            core_vec_push(&w->fill_hop[1], ((ppr_entry){u, 0}));
        w->fill_hopm[u] += (float)(wt * f);
    }
    return true;
}

/* Inserts c into the sorted top[0..*n) of at most cap entries. */
static void top_offer(ppr_entry *top, uint32_t *n, uint32_t cap, ppr_entry c)
{
    if (*n == cap && !score_before(&c, &top[*n - 1]))
        return;
    uint32_t j = *n < cap ? (*n)++ : *n - 1;
    for (; j > 0 && score_before(&c, &top[j - 1]); j--)
        top[j] = top[j - 1];
    top[j] = c;
}

/* x's neighbourhood (FILL_NB entries at most, best first): made by a
 * spread from x the first time. */
static const ppr_entry *fill_nb(const model_joint *md, model_work *w, uint32_t x, uint32_t *n)
{
    if (w->fill_nb_off[x] == UINT32_MAX) {
        w->fill_set.n = 0;
        w->fill_hop[0].n = 0;
        w->fill_acc[x] = -1;
        core_vec_push(&w->fill_hop[0], ((ppr_entry){x, 1.0f}));
        uint32_t budget = FILL_MAX_EDGES;
        for (int hop = 0; hop < FILL_HOPS && w->fill_hop[0].n; hop++) {
            w->fill_hop[1].n = 0;
            for (size_t i = 0; i < w->fill_hop[0].n; i++)
                if (!fill_spread(md, w, w->fill_hop[0].v[i].node, w->fill_hop[0].v[i].score,
                                 &budget))
                    break;
            for (size_t i = 0; i < w->fill_hop[1].n; i++) {
                ppr_entry *e = &w->fill_hop[1].v[i];
                e->score = w->fill_hopm[e->node];
                w->fill_hopm[e->node] = 0;
            }
            /* the next hop becomes this one (the arrays swap owners) */
            ppr_entry *v = w->fill_hop[0].v;
            size_t cap = w->fill_hop[0].cap;
            w->fill_hop[0] = w->fill_hop[1];
            w->fill_hop[1].v = v;
            w->fill_hop[1].cap = cap;
            w->fill_hop[1].n = 0;
        }
        ppr_entry top[FILL_NB];
        uint32_t nt = 0;
        for (size_t i = 0; i < w->fill_set.n; i++) {
            uint32_t u = w->fill_set.v[i];
            if (w->fill_acc[u] > 0 && md->rankable[u])
                top_offer(top, &nt, FILL_NB, (ppr_entry){u, w->fill_acc[u]});
            w->fill_acc[u] = 0;
        }
        w->fill_acc[x] = 0;
        w->fill_nb_off[x] = (uint32_t)w->fill_nbs.n;
        w->fill_nb_n[x] = (uint8_t)nt;
        for (uint32_t i = 0; i < nt; i++)
            core_vec_push(&w->fill_nbs, top[i]);
    }
    *n = w->fill_nb_n[x];
    return *n ? w->fill_nbs.v + w->fill_nb_off[x] : NULL;
}

uint32_t model__fill_ranks(const model_joint *md, model_work *w, uint32_t h, uint32_t k,
                           model_pred *out)
{
    if (h == 0 || !(out[0].score > 0))
        return h;
    if (w->fill_acc && (w->fill_md != md)) {
        /* made for another model: its neighbourhoods may differ */
        free(w->fill_acc);
        free(w->fill_hopm);
        free(w->fill_from);
        free(w->fill_nb_off);
        free(w->fill_nb_n);
        w->fill_nbs.n = 0;
        w->fill_acc = NULL;
    }
    if (!w->fill_acc) {
        size_t S = md->S ? md->S : 1;
        w->fill_md = md;
        w->fill_acc = core_xcalloc(S, sizeof *w->fill_acc);
        w->fill_hopm = core_xcalloc(S, sizeof *w->fill_hopm);
        w->fill_from = core_xmalloc(S * sizeof *w->fill_from);
        w->fill_nb_off = core_xmalloc(S * sizeof *w->fill_nb_off);
        memset(w->fill_nb_off, 0xff, S * sizeof *w->fill_nb_off);
        w->fill_nb_n = core_xcalloc(S, sizeof *w->fill_nb_n);
    }
    /* The neighbourhoods first (making one uses the scratch the merge
     * uses, and may move fill_nbs). */
    uint32_t nn;
    for (uint32_t i = 0; i < h; i++)
        (void)fill_nb(md, w, out[i].symbol, &nn);
    /* The merge: acc and from of the candidates, the ranked ones -1. */
    w->fill_set.n = 0;
    for (uint32_t i = 0; i < h; i++)
        w->fill_acc[out[i].symbol] = -1;
    float *best = w->fill_hopm; /* (zero outside a spread) the largest share so far */
    for (uint32_t i = 0; i < h; i++) {
        const ppr_entry *nb = fill_nb(md, w, out[i].symbol, &nn);
        for (uint32_t j = 0; j < nn; j++) {
            uint32_t u = nb[j].node;
            if (w->fill_acc[u] < 0)
                continue;
            float x = nb[j].score / (float)(i + 1);
            if (w->fill_acc[u] == 0)
                core_vec_push(&w->fill_set, u);
            w->fill_acc[u] += x;
            if (x > best[u]) {
                best[u] = x;
                w->fill_from[u] = out[i].symbol;
            }
        }
    }
    uint32_t n = 0;
    ppr_entry *top = w->top + h;
    for (size_t i = 0; i < w->fill_set.n; i++) {
        uint32_t u = w->fill_set.v[i];
        top_offer(top, &n, k - h, (ppr_entry){u, w->fill_acc[u]});
        w->fill_acc[u] = 0;
        best[u] = 0;
    }
    for (uint32_t i = 0; i < h; i++)
        w->fill_acc[out[i].symbol] = 0;
    float last = out[h - 1].score, amax = n ? top[0].score : 1;
    for (uint32_t i = 0; i < n; i++)
        out[h + i] = (model_pred){top[i].node, last * 0.5f * (top[i].score / amax), UINT32_MAX,
                                  w->fill_from[top[i].node]};
    return h + n;
}

/* The k best rankable symbols of the work's estimate, each with the
 * predicted activity that contributes most to it; then fill_ranks. */
