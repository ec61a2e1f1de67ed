/*
 * The baselines (eval.h): what a ranking of the next emitters must beat,
 * computed over the same mapping as the model.
 */
#include "eval.h"

#include <stdlib.h>
#include <string.h>

/* Dense symbol scores with a touched list, for the baselines. */
typedef struct acc {
    double *v;
    uint32_t *touched;
    uint32_t nt, n;
    const uint8_t *rankable;
} acc;

static void acc_add(acc *a, uint32_t s, double x)
{
    if (s >= a->n || !(x > 0))
        return;
    if (a->v[s] == 0)
        a->touched[a->nt++] = s;
    a->v[s] += x;
}

/* Top 10 by score (ties: lower id), then cleared. */
static uint32_t acc_top(acc *a, uint32_t *out)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < a->nt; i++) {
        uint32_t s = a->touched[i];
        if (a->rankable && !a->rankable[s])
            continue;
        uint32_t j = k < 10 ? k++ : 10;
        if (j == 10 && (a->v[s] < a->v[out[9]] || (a->v[s] == a->v[out[9]] && s > out[9])))
            continue;
        if (j == 10)
            j = 9;
        while (j > 0 &&
               (a->v[out[j - 1]] < a->v[s] || (a->v[out[j - 1]] == a->v[s] && out[j - 1] > s))) {
            out[j] = out[j - 1];
            j--;
        }
        out[j] = s;
    }
    for (uint32_t i = 0; i < a->nt; i++)
        a->v[a->touched[i]] = 0;
    a->nt = 0;
    return k;
}

/* Spreads an activity's symbols (confidence-weighted) into the scores. */
static void acc_activity(acc *a, const map_mapper *m, uint32_t act, double w)
{
    if (act >= map_mapper_nactivities(m))
        return;
    map_activity pa;
    map_mapper_activity(m, act, &pa);
    for (uint32_t i = 0; i < pa.nsyms; i++)
        acc_add(a, pa.syms[i], w * pa.conf[i]);
}

/* Directly-follows counts of order 1 and 2 over the mapped activities. */
typedef struct df_model {
    core_map index; /* key -> entry in e */
    struct dfe {
        uint64_t ctx;
        uint32_t act, count;
    } * e;
    size_t n, cap;
    uint64_t *uni; /* activity counts as next */
    uint32_t A;
} df_model;

static uint64_t df_ctx(uint32_t order, uint32_t a, uint32_t b)
{
    return core_hash_u64(((uint64_t)order << 62) ^ ((uint64_t)a << 31) ^ b) | 1;
}

static void df_count(df_model *d, uint64_t ctx, uint32_t act)
{
    uint64_t key = core_hash_u64(ctx ^ ((uint64_t)act * 0x9e3779b97f4a7c15ull));
    if (key == UINT64_MAX)
        key = 0;
    bool ins;
    uint64_t *v = core_map_put(&d->index, key, &ins);
    if (ins) {
        if (d->n == d->cap) {
            d->cap = d->cap ? 2 * d->cap : 1024;
            d->e = core_xrealloc(d->e, d->cap * sizeof *d->e);
        }
        d->e[d->n] = (struct dfe){ctx, act, 0};
        *v = d->n++;
    }
    d->e[*v].count++;
}

static int cmp_dfe(const void *a, const void *b)
{
    const struct dfe *x = a, *y = b;
    if (x->ctx != y->ctx)
        return x->ctx < y->ctx ? -1 : 1;
    return (x->count < y->count) - (x->count > y->count);
}

static void df_train(df_model *d, const model_seqs *tr, uint32_t A)
{
    memset(d, 0, sizeof *d);
    d->A = A;
    d->uni = core_xcalloc(A ? A : 1, sizeof *d->uni);
    for (uint32_t c = 0; c < tr->ncases; c++) {
        const uint32_t *act = tr->act + tr->off[c];
        uint32_t len = tr->off[c + 1] - tr->off[c];
        for (uint32_t k = 1; k < len; k++) {
            if (act[k] < A)
                d->uni[act[k]]++;
            df_count(d, df_ctx(1, act[k - 1], 0), act[k]);
            if (k >= 2)
                df_count(d, df_ctx(2, act[k - 2], act[k - 1]), act[k]);
        }
    }
    if (d->n) /* (no training cases, as at K = 0: no array) */
        qsort(d->e, d->n, sizeof *d->e, cmp_dfe);
    core_map_free(&d->index);
    /* Re-index: ctx -> first entry. */
    for (size_t i = 0; i < d->n; i++) {
        if (i > 0 && d->e[i - 1].ctx == d->e[i].ctx)
            continue;
        bool ins;
        uint64_t *v = core_map_put(&d->index, d->e[i].ctx == UINT64_MAX ? 0 : d->e[i].ctx, &ins);
        *v = i;
    }
}

static void df_free(df_model *d)
{
    core_map_free(&d->index);
    free(d->e);
    free(d->uni);
}

/* Next-activity distribution of a context into the scores; false if the
 * context was never seen. */
static bool df_predict(const df_model *d, const map_mapper *m, uint64_t ctx, acc *a)
{
    uint64_t *v = core_map_get(&d->index, ctx == UINT64_MAX ? 0 : ctx);
    if (!v)
        return false;
    uint64_t total = 0;
    for (size_t i = *v; i < d->n && d->e[i].ctx == ctx; i++)
        total += d->e[i].count;
    for (size_t i = *v; i < d->n && d->e[i].ctx == ctx; i++)
        acc_activity(a, m, d->e[i].act, (double)d->e[i].count / (double)total);
    return true;
}

static void df_unigram(const df_model *d, const map_mapper *m, acc *a)
{
    uint64_t total = 0;
    for (uint32_t i = 0; i < d->A; i++)
        total += d->uni[i];
    for (uint32_t i = 0; i < d->A; i++)
        if (d->uni[i])
            acc_activity(a, m, i, (double)d->uni[i] / (double)total);
}

static const char *const BL_NAMES[EVAL_BL__COUNT] = {
    "bm25", "tokens", "df1", "df2", "same_function", "global_pagerank", "ppr_no_follows",
};

const char *eval_baseline_name(eval_baseline b)
{
    return b < EVAL_BL__COUNT ? BL_NAMES[b] : "?";
}

struct eval_baselines {
    const graph *g;
    const map_mapper *m;
    map_text *text;
    df_model df;
    acc a;
    ppr_net *code;
    ppr_work *cw;
    uint32_t global[10], nglobal;
};

static bool rankable_symbol(const graph *g, uint32_t s)
{
    graph_symbol sy;
    graph_get_symbol(g, s, &sy);
    return sy.kind == GRAPH_SYM_FUNCTION || sy.kind == GRAPH_SYM_METHOD;
}

int eval_baselines_new(const graph *g, const map_mapper *m, const model_seqs *train,
                       eval_baselines **out)
{
    eval_baselines *b = core_xcalloc(1, sizeof *b);
    b->g = g;
    b->m = m;
    int rc = map_text_build(g, NULL, &b->text);
    if (rc) {
        free(b);
        return rc;
    }
    uint32_t S = graph_nsymbols(g);
    df_train(&b->df, train, map_mapper_nactivities(m));
    b->a.v = core_xcalloc(S ? S : 1, sizeof *b->a.v);
    b->a.touched = core_xmalloc((S ? S : 1) * sizeof *b->a.touched);
    b->a.n = S;
    uint8_t *rk = core_xcalloc(S ? S : 1, 1);
    for (uint32_t i = 0; i < S; i++)
        rk[i] = rankable_symbol(g, i);
    b->a.rankable = rk;
    ppr_weights w;
    ppr_weights_profile("default", &w);
    rc = ppr_net_from_graph(g, &w, &b->code);
    if (!rc)
        rc = ppr_work_new(b->code, &b->cw);
    if (rc) {
        eval_baselines_free(b);
        return rc;
    }
    /* Global PageRank: a uniform seed; the same ranking for every prefix. */
    ppr_entry *seeds = core_xmalloc((S ? S : 1) * sizeof *seeds);
    for (uint32_t i = 0; i < S; i++)
        seeds[i] = (ppr_entry){i, 1.0f / (float)S};
    ppr_opts o = ppr_opts_default();
    o.eps = 1e-9;
    rc = ppr_push(b->cw, seeds, S, &o, NULL);
    free(seeds);
    if (rc) {
        eval_baselines_free(b);
        return rc;
    }
    for (uint32_t i = 0; i < S; i++)
        acc_add(&b->a, i, ppr_work_score(b->cw, i));
    b->nglobal = acc_top(&b->a, b->global);
    *out = b;
    return 0;
}

void eval_baselines_free(eval_baselines *b)
{
    if (!b)
        return;
    map_text_free(b->text);
    df_free(&b->df);
    free(b->a.v);
    free(b->a.touched);
    free((void *)b->a.rankable);
    ppr_work_free(b->cw);
    ppr_net_free(b->code);
    free(b);
}

uint32_t eval_baseline_rank(eval_baselines *b, eval_baseline which, const uint32_t *act, uint32_t k,
                            uint32_t *out)
{
    const map_mapper *m = b->m;
    uint32_t cur = act[k - 1];
    map_activity pa;
    map_mapper_activity(m, cur, &pa);
    switch (which) {
    case EVAL_BL_BM25:
    case EVAL_BL_TOKENS: {
        map_text_hit hits[10];
        uint32_t n = which == EVAL_BL_BM25
                         ? map_text_bm25(b->text, pa.text, strlen(pa.text), 10, hits)
                         : map_text_tfidf(b->text, pa.text, strlen(pa.text), 10, hits);
        for (uint32_t i = 0; i < n; i++)
            out[i] = hits[i].symbol;
        return n;
    }
    case EVAL_BL_DF1:
    case EVAL_BL_DF2:
        if (!(which == EVAL_BL_DF2 && k >= 2 &&
              df_predict(&b->df, m, df_ctx(2, act[k - 2], act[k - 1]), &b->a)) &&
            !df_predict(&b->df, m, df_ctx(1, act[k - 1], 0), &b->a))
            df_unigram(&b->df, m, &b->a);
        return acc_top(&b->a, out);
    case EVAL_BL_SAME:
        acc_activity(&b->a, m, cur, 1.0);
        return acc_top(&b->a, out);
    case EVAL_BL_PAGERANK:
        memcpy(out, b->global, b->nglobal * sizeof *out);
        return b->nglobal;
    default: {
        /* Plain PPR over the code graph from the current emitters. */
        ppr_entry seeds[64];
        uint32_t ns = 0;
        for (uint32_t i = 0; i < pa.nsyms && ns < 64; i++)
            seeds[ns++] = (ppr_entry){pa.syms[i], pa.conf[i]};
        if (ns == 0)
            return 0;
        ppr_opts o = ppr_opts_default();
        o.eps = 1e-5; /* a ranking of the top 10 needs no more */
        if (ppr_push(b->cw, seeds, ns, &o, NULL) != 0)
            return 0;
        ppr_entry top[40];
        uint32_t n = ppr_work_topk(b->cw, 40, NULL, top);
        for (uint32_t i = 0; i < n; i++)
            acc_add(&b->a, top[i].node, top[i].score);
        return acc_top(&b->a, out);
    }
    }
}
