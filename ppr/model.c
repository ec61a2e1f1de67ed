/*
 * The model (ppr.h): directly-follows contexts mined from cases, the
 * joint graph, ranking of the next emitters, calibration, the model file.
 */
#include "ppr_int.h"

#include <errno.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LEVEL_VAR 0
#define LEVEL_ACT 1
#define RECENCY_WINDOW 32
#define TOK_UNKNOWN UINT32_MAX

typedef struct ctx_rec {
    uint32_t tok_off; /* into toks */
    uint8_t level, order;
    uint32_t n, u; /* events after it, distinct next activities */
} ctx_rec;

struct ppr_model {
    ppr_mapper *m;
    const graph *g;
    ppr_model_params p;
    uint32_t S, A, V, C; /* symbols, activities, variants, contexts */
    uint8_t *keep;       /* A: variants kept */
    core_map ctx_index;  /* hash -> context */
    core_vec(ctx_rec) ctx;
    core_vec(uint32_t) toks;
    /* follows, CSR over contexts */
    uint32_t *f_off;
    uint32_t *f_act;
    uint32_t *f_cnt;
    ppr_net *net;
    uint8_t *rankable; /* S */
    /* symbol -> activities emitting it (CSR), with confidences */
    uint32_t *sa_off, *sa_act;
    float *sa_conf;
    uint64_t train_events, train_cases;
    uint32_t variants_kept;
    /* Streaming: every activity's PageRank vector, truncated to state_M
     * entries (ppr_model_stream_prepare). */
    ppr_basis *act_basis;
    uint32_t state_M;
};

typedef struct memo_slot memo_slot;

struct ppr_model_work {
    const ppr_model *md;
    ppr_work *w;
    ppr_entry *seeds;
    uint32_t nseeds, cap;
    ppr_entry *top;
    uint32_t topcap;
    /* ppr_model_rank_warm's memo of context pushes (allocated on first
     * use): the index and the arena of entries (8-byte words). */
    memo_slot *memo;
    uint64_t *arena;
    uint64_t ring;       /* words written to the arena, a ring, since it began */
    uint64_t warm_calls; /* the memo starts after MEMO_AFTER of them */
    /* fill_ranks' scratch and the neighbourhoods made so far (allocated
     * on first use, for the model fill_md): a weight per symbol (-1: a
     * ranked one), the mass a node got in the current hop, the ranked
     * symbol that gave a candidate the most, where a symbol's
     * neighbourhood starts in fill_nbs (UINT32_MAX: not made yet) and its
     * length; the symbols a spread reached. */
    const ppr_model *fill_md;
    float *fill_acc, *fill_hopm;
    uint32_t *fill_from, *fill_nb_off;
    uint8_t *fill_nb_n;
    core_vec(ppr_entry) fill_nbs;
    core_vec(uint32_t) fill_set;
    core_vec(ppr_entry) fill_hop[2]; /* this hop's nodes, the next hop's */
};

ppr_model_params ppr_model_params_default(void)
{
    ppr_model_params p = {
        .order = 6,
        .variant_ratio = 0.2,
        .variant_min = 8,
        .alpha = 0.3,
        .code_scale = 0.1,
        .decay = 0.5,
        .escape = 1.0,
        .calibrate_folds = 3,
        .calibrate_threads = 0,
    };
    ppr_weights_profile("default", &p.weights);
    return p;
}

/* ---- tokens and contexts ---- */

static uint32_t token_of(const ppr_model *md, uint32_t act, uint32_t var)
{
    if (act >= md->A)
        return TOK_UNKNOWN;
    if (md->keep[act])
        return md->A + var; /* a variant unseen in training matches nothing */
    return act;
}

static uint64_t ctx_key(uint8_t level, const uint32_t *t, uint32_t o)
{
    uint64_t h = core_hash64(t, (size_t)o * sizeof *t, 0x637478ull + level * 131u + o);
    return h == UINT64_MAX ? 0 : h;
}

/* Writes the tokens of the last `o` events before position k at a level. */
static bool window(const ppr_model *md, uint8_t level, const uint32_t *act, const uint32_t *var,
                   uint32_t k, uint32_t o, uint32_t *out)
{
    for (uint32_t i = 0; i < o; i++) {
        uint32_t j = k - o + i;
        uint32_t t = level == LEVEL_VAR ? token_of(md, act[j], var[j])
                                        : (act[j] < md->A ? act[j] : TOK_UNKNOWN);
        if (t == TOK_UNKNOWN)
            return false;
        out[i] = t;
    }
    return true;
}

/* The activity-level window equals the variant-level one when no token
 * in it is a variant. */
static bool same_as_var(const ppr_model *md, const uint32_t *tv, uint32_t o)
{
    for (uint32_t i = 0; i < o; i++)
        if (tv[i] >= md->A)
            return false;
    return true;
}

/* Whether context c has these tokens (a 64-bit hash collision would join
 * two contexts). */
static bool ctx_is(const ppr_model *md, uint32_t c, uint8_t level, const uint32_t *t, uint32_t o)
{
    const ctx_rec *r = &md->ctx.v[c];
    return r->level == level && r->order == o &&
           memcmp(md->toks.v + r->tok_off, t, o * sizeof *t) == 0;
}

static uint32_t ctx_add(ppr_model *md, uint8_t level, const uint32_t *t, uint32_t o)
{
    uint64_t key = ctx_key(level, t, o);
    bool ins;
    uint64_t *v = core_map_put(&md->ctx_index, key, &ins);
    if (!ins)
        return (uint32_t)*v;
    ctx_rec r = {.tok_off = (uint32_t)md->toks.n, .level = level, .order = (uint8_t)o};
    for (uint32_t i = 0; i < o; i++)
        core_vec_push(&md->toks, t[i]);
    core_vec_push(&md->ctx, r);
    *v = md->ctx.n - 1;
    return (uint32_t)(md->ctx.n - 1);
}

typedef struct pair_rec {
    uint32_t ctx, act, count;
} pair_rec;

static int cmp_pair(const void *a, const void *b)
{
    const pair_rec *x = a, *y = b;
    if (x->ctx != y->ctx)
        return x->ctx < y->ctx ? -1 : 1;
    return (x->act > y->act) - (x->act < y->act);
}

/* The follows CSR over the contexts from (context, activity, count)
 * pairs sorted by context, and each context's n and u. */
static void set_follows(ppr_model *md, const pair_rec *pairs, size_t n)
{
    md->C = (uint32_t)md->ctx.n;
    md->f_off = core_xcalloc((size_t)md->C + 1, sizeof *md->f_off);
    md->f_act = core_xmalloc((n ? n : 1) * sizeof *md->f_act);
    md->f_cnt = core_xmalloc((n ? n : 1) * sizeof *md->f_cnt);
    for (size_t i = 0; i < n; i++) {
        md->f_off[pairs[i].ctx + 1]++;
        md->f_act[i] = pairs[i].act;
        md->f_cnt[i] = pairs[i].count;
        md->ctx.v[pairs[i].ctx].n += pairs[i].count;
        md->ctx.v[pairs[i].ctx].u++;
    }
    for (uint32_t c = 0; c < md->C; c++)
        md->f_off[c + 1] += md->f_off[c];
}

/* Pair counts (context, next activity) while mining. */
typedef struct pair_acc {
    core_map idx;
    core_vec(pair_rec) v;
} pair_acc;

static void pair_add(pair_acc *pa, uint32_t cx, uint32_t next, uint32_t count)
{
    uint64_t key = core_hash_u64(((uint64_t)cx << 32) | next);
    if (key == UINT64_MAX)
        key = 0;
    bool ins;
    uint64_t *v = core_map_put(&pa->idx, key, &ins);
    if (ins) {
        core_vec_push(&pa->v, ((pair_rec){cx, next, 0}));
        *v = pa->v.n - 1;
    }
    uint64_t c = (uint64_t)pa->v.v[*v].count + count;
    pa->v.v[*v].count = c > UINT32_MAX ? UINT32_MAX : (uint32_t)c;
}

/* Counts the contexts of the o events before position k (o = 1..omax)
 * followed by act[k], at both levels, count times. */
static void mine_at(ppr_model *md, pair_acc *pa, const uint32_t *act, const uint32_t *var,
                    uint32_t k, uint32_t omax, uint32_t count)
{
    uint32_t tv[PPR_MODEL_MAX_ORDER], ta[PPR_MODEL_MAX_ORDER];
    uint32_t next = act[k];
    if (next >= md->A)
        return;
    for (uint32_t o = 1; o <= omax; o++) {
        for (uint8_t level = LEVEL_VAR; level <= LEVEL_ACT; level++) {
            uint32_t *t = level == LEVEL_VAR ? tv : ta;
            if (!window(md, level, act, var, k, o, t))
                continue;
            if (level == LEVEL_ACT && window(md, LEVEL_VAR, act, var, k, o, tv) &&
                same_as_var(md, tv, o))
                continue;
            pair_add(pa, ctx_add(md, level, t, o), next, count);
        }
    }
}

static void mine_finish(ppr_model *md, pair_acc *pa)
{
    core_map_free(&pa->idx);
    if (pa->v.n) /* (no pairs: no array) */
        qsort(pa->v.v, pa->v.n, sizeof *pa->v.v, cmp_pair);
    set_follows(md, pa->v.v, pa->v.n);
    core_vec_free(&pa->v);
}

/* Counts contexts -> next activity over the training cases. */
static void mine(ppr_model *md, const ppr_seqs *tr)
{
    pair_acc pa = {0};
    for (uint32_t c = 0; c < tr->ncases; c++) {
        const uint32_t *act = tr->act + tr->off[c], *var = tr->var + tr->off[c];
        uint32_t len = tr->off[c + 1] - tr->off[c];
        md->train_events += len;
        for (uint32_t k = 1; k < len; k++)
            mine_at(md, &pa, act, var, k, k < md->p.order ? k : md->p.order, 1);
    }
    md->train_cases = tr->ncases;
    mine_finish(md, &pa);
}

/* Which activities keep their variants, from the training events. */
static void choose_variants(ppr_model *md, const ppr_seqs *tr)
{
    uint32_t *count = core_xcalloc(md->A ? md->A : 1, sizeof *count);
    uint32_t *distinct = core_xcalloc(md->A ? md->A : 1, sizeof *distinct);
    uint8_t *seen = core_xcalloc(md->V ? md->V : 1, 1);
    uint32_t total = tr->off[tr->ncases];
    for (uint32_t i = 0; i < total; i++) {
        uint32_t a = tr->act[i], v = tr->var[i];
        if (a >= md->A)
            continue;
        count[a]++;
        if (v < md->V && !seen[v]) {
            seen[v] = 1;
            distinct[a]++;
        }
    }
    for (uint32_t a = 0; a < md->A; a++) {
        double lim = md->p.variant_ratio * count[a];
        if (lim < md->p.variant_min)
            lim = md->p.variant_min;
        md->keep[a] = count[a] > 0 && distinct[a] > 1 && distinct[a] <= lim;
        md->variants_kept += md->keep[a];
    }
    free(count);
    free(distinct);
    free(seen);
}

/* ---- the joint net ---- */

struct ppr_mapper_snap {
    uint32_t A, V;
    uint32_t *off; /* A + 1: each activity's symbols in syms/conf */
    uint32_t *syms;
    float *conf;
};

ppr_mapper_snap *ppr_mapper_snapshot(const ppr_mapper *m)
{
    ppr_mapper_snap *sn = core_xcalloc(1, sizeof *sn);
    sn->A = ppr_mapper_nactivities(m);
    sn->V = ppr_mapper_nvariants(m);
    sn->off = core_xcalloc((size_t)sn->A + 1, sizeof *sn->off);
    for (uint32_t a = 0; a < sn->A; a++) {
        ppr_activity pa;
        ppr_mapper_activity(m, a, &pa);
        sn->off[a + 1] = sn->off[a] + pa.nsyms;
    }
    size_t n = sn->off[sn->A];
    sn->syms = core_xmalloc((n ? n : 1) * sizeof *sn->syms);
    sn->conf = core_xmalloc((n ? n : 1) * sizeof *sn->conf);
    for (uint32_t a = 0; a < sn->A; a++) {
        ppr_activity pa;
        ppr_mapper_activity(m, a, &pa);
        if (!pa.nsyms)
            continue; /* (syms and conf are NULL then) */
        memcpy(sn->syms + sn->off[a], pa.syms, pa.nsyms * sizeof *pa.syms);
        memcpy(sn->conf + sn->off[a], pa.conf, pa.nsyms * sizeof *pa.conf);
    }
    return sn;
}

void ppr_mapper_snap_free(ppr_mapper_snap *sn)
{
    if (!sn)
        return;
    free(sn->off);
    free(sn->syms);
    free(sn->conf);
    free(sn);
}

/* An activity's symbols and confidences: from the snapshot being built
 * from, or the mapper. */
static void act_syms(const ppr_model *md, const ppr_mapper_snap *sn, uint32_t a, ppr_activity *pa)
{
    if (!sn) {
        ppr_mapper_activity(md->m, a, pa);
        return;
    }
    memset(pa, 0, sizeof *pa);
    pa->nsyms = sn->off[a + 1] - sn->off[a];
    pa->syms = sn->syms + sn->off[a];
    pa->conf = sn->conf + sn->off[a];
}

/* A code edge's weight in the joint graph before code_scale: its count
 * times its type's weight, times reverse when it is followed backwards. */
static inline double code_weight(const ppr_model *md, const graph_edge *e, bool backwards)
{
    return backwards ? e->weight * md->p.weights.type[e->type] * md->p.weights.reverse
                     : e->weight * md->p.weights.type[e->type];
}

/* The weights of a symbol's code edges both ways, summed. */
static double code_total(const ppr_model *md, const graph_edge *out, uint32_t no,
                         const graph_edge *in, uint32_t ni)
{
    double total = 0;
    for (uint32_t i = 0; i < no; i++)
        total += code_weight(md, &out[i], false);
    for (uint32_t i = 0; i < ni; i++)
        total += code_weight(md, &in[i], true);
    return total;
}

static int build_net(ppr_model *md, const ppr_mapper_snap *sn)
{
    const graph *g = md->g;
    uint32_t S = md->S, A = md->A, C = md->C;
    uint32_t sink = S + A + C;
    core_vec(ppr_edge_in) e = {0};
    /* follows */
    for (uint32_t c = 0; c < C; c++) {
        double n = md->ctx.v[c].n;
        for (uint32_t i = md->f_off[c]; i < md->f_off[c + 1]; i++)
            core_vec_push(&e, ((ppr_edge_in){S + A + c, S + md->f_act[i], PPR_EDGE_FOLLOWS,
                                             (float)(md->f_cnt[i] / n)}));
    }
    /* emits, and which symbols rank */
    md->rankable = core_xcalloc(S ? S : 1, 1);
    for (uint32_t s = 0; s < S; s++) {
        graph_symbol sy;
        graph_get_symbol(g, s, &sy);
        md->rankable[s] = sy.kind == GRAPH_SYM_FUNCTION || sy.kind == GRAPH_SYM_METHOD;
    }
    md->sa_off = core_xcalloc((size_t)S + 1, sizeof *md->sa_off);
    size_t nsa = 0;
    for (uint32_t a = 0; a < A; a++) {
        ppr_activity pa;
        act_syms(md, sn, a, &pa);
        for (uint32_t i = 0; i < pa.nsyms; i++) {
            if (pa.syms[i] >= S || !(pa.conf[i] > 0))
                continue;
            core_vec_push(&e, ((ppr_edge_in){S + a, pa.syms[i], PPR_EDGE_EMITS, pa.conf[i]}));
            md->rankable[pa.syms[i]] = 1;
            md->sa_off[pa.syms[i] + 1]++;
            nsa++;
        }
    }
    for (uint32_t s = 0; s < S; s++)
        md->sa_off[s + 1] += md->sa_off[s];
    md->sa_act = core_xmalloc((nsa ? nsa : 1) * sizeof *md->sa_act);
    md->sa_conf = core_xmalloc((nsa ? nsa : 1) * sizeof *md->sa_conf);
    uint32_t *fill = core_xmalloc(((size_t)S + 1) * sizeof *fill);
    memcpy(fill, md->sa_off, ((size_t)S + 1) * sizeof *fill);
    for (uint32_t a = 0; a < A; a++) {
        ppr_activity pa;
        act_syms(md, sn, a, &pa);
        for (uint32_t i = 0; i < pa.nsyms; i++) {
            if (pa.syms[i] >= S || !(pa.conf[i] > 0))
                continue;
            uint32_t k = fill[pa.syms[i]]++;
            md->sa_act[k] = a;
            md->sa_conf[k] = pa.conf[i];
        }
    }
    free(fill);
    /* code edges, both ways, normalised per symbol and scaled against the
     * sink */
    if (md->p.code_scale > 0) {
        for (uint32_t s = 0; s < S; s++) {
            uint32_t no, ni;
            const graph_edge *out = graph_out_edges(g, s, &no);
            const graph_edge *in = graph_in_edges(g, s, &ni);
            double total = code_total(md, out, no, in, ni);
            if (!(total > 0))
                continue;
            double f = md->p.code_scale / total;
            for (uint32_t i = 0; i < no; i++) {
                double w = code_weight(md, &out[i], false) * f;
                if (w > 0)
                    core_vec_push(&e, ((ppr_edge_in){s, out[i].node, out[i].type, (float)w}));
            }
            for (uint32_t i = 0; i < ni; i++) {
                double w = code_weight(md, &in[i], true) * f;
                if (w > 0)
                    core_vec_push(&e,
                                  ((ppr_edge_in){s, in[i].node, (uint8_t)(in[i].type | PPR_REVERSE),
                                                 (float)w}));
            }
            core_vec_push(&e, ((ppr_edge_in){s, sink, PPR_EDGE_SINK, 1.0f}));
        }
    }
    int rc = ppr_net_from_edges(sink + 1, e.v, e.n, NULL, &md->net);
    core_vec_free(&e);
    return rc;
}

static ppr_model *model_new(ppr_mapper *m, const ppr_mapper_snap *sn, const ppr_model_params *p)
{
    ppr_model *md = core_xcalloc(1, sizeof *md);
    md->m = m;
    md->g = ppr_mapper_graph(m);
    md->p = p ? *p : ppr_model_params_default();
    if (md->p.order < 1)
        md->p.order = 1;
    if (md->p.order > PPR_MODEL_MAX_ORDER)
        md->p.order = PPR_MODEL_MAX_ORDER;
    md->S = graph_nsymbols(md->g);
    md->A = sn ? sn->A : ppr_mapper_nactivities(m);
    md->V = sn ? sn->V : ppr_mapper_nvariants(m);
    md->keep = core_xcalloc(md->A ? md->A : 1, 1);
    return md;
}

int ppr_model_train(ppr_mapper *m, const ppr_seqs *train, const ppr_model_params *p,
                    ppr_model **out)
{
    if (p && (!(p->alpha > 0 && p->alpha < 1) || p->code_scale < 0 || p->decay < 0 ||
              p->decay > 1 || p->escape <= 0))
        return CORE_EUSAGE;
    ppr_model *md = model_new(m, NULL, p);
    choose_variants(md, train);
    mine(md, train);
    int rc = build_net(md, NULL);
    if (rc) {
        ppr_model_free(md);
        return rc;
    }
    *out = md;
    return 0;
}

int ppr_model_train_more(const ppr_model *base, const ppr_mapper_snap *sn,
                         const ppr_follow_obs *obs, size_t nobs, uint64_t events, uint64_t cases,
                         ppr_model **out)
{
    ppr_model *md = model_new(base->m, sn, &base->p);
    if (md->A < base->A || md->V < base->V) {
        ppr_model_free(md);
        return CORE_EUSAGE; /* not the base's mapper */
    }
    /* Variant choices stay the base's; activities new since keep none. */
    memcpy(md->keep, base->keep, base->A);
    md->variants_kept = base->variants_kept;
    /* The base's contexts, in their order (so their numbers stay), with
     * variant tokens moved past the new activities. */
    pair_acc pa = {0};
    uint32_t t[PPR_MODEL_MAX_ORDER];
    for (uint32_t c = 0; c < base->C; c++) {
        const ctx_rec *r = &base->ctx.v[c];
        for (uint32_t i = 0; i < r->order; i++) {
            uint32_t x = base->toks.v[r->tok_off + i];
            t[i] = x >= base->A ? x - base->A + md->A : x;
        }
        uint32_t cx = ctx_add(md, r->level, t, r->order);
        for (uint32_t i = base->f_off[c]; i < base->f_off[c + 1]; i++)
            pair_add(&pa, cx, base->f_act[i], base->f_cnt[i]);
    }
    for (size_t i = 0; i < nobs; i++) {
        const ppr_follow_obs *ob = &obs[i];
        uint32_t o = ob->order < md->p.order ? ob->order : md->p.order;
        uint32_t act[PPR_MODEL_MAX_ORDER + 1], var[PPR_MODEL_MAX_ORDER + 1];
        /* The last o events of the window, then the next one. */
        memcpy(act, ob->act + (ob->order - o), o * sizeof *act);
        memcpy(var, ob->var + (ob->order - o), o * sizeof *var);
        act[o] = ob->next;
        var[o] = 0;
        if (o)
            mine_at(md, &pa, act, var, o, o,
                    ob->count > UINT32_MAX ? UINT32_MAX : (uint32_t)ob->count);
    }
    mine_finish(md, &pa);
    md->train_events = base->train_events + events;
    md->train_cases = base->train_cases + cases;
    int rc = build_net(md, sn);
    if (rc) {
        ppr_model_free(md);
        return rc;
    }
    *out = md;
    return 0;
}

void ppr_model_free(ppr_model *md)
{
    if (!md)
        return;
    free(md->keep);
    core_map_free(&md->ctx_index);
    core_vec_free(&md->ctx);
    core_vec_free(&md->toks);
    free(md->f_off);
    free(md->f_act);
    free(md->f_cnt);
    ppr_net_free(md->net);
    free(md->rankable);
    free(md->sa_off);
    free(md->sa_act);
    free(md->sa_conf);
    ppr_basis_free(md->act_basis);
    free(md);
}

const ppr_model_params *ppr_model_get_params(const ppr_model *md)
{
    return &md->p;
}

void ppr_model_get_stats(const ppr_model *md, ppr_model_stats *out)
{
    memset(out, 0, sizeof *out);
    out->symbols = md->S;
    out->activities = md->A;
    out->contexts = md->C;
    out->variants_kept = md->variants_kept;
    out->edges = ppr_net_edges(md->net);
    out->follows = md->C ? md->f_off[md->C] : 0;
    out->bytes =
        ppr_net_bytes(md->net) + md->toks.n * 4 + md->ctx.n * sizeof(ctx_rec) + out->follows * 8;
    out->train_events = md->train_events;
    out->train_cases = md->train_cases;
}

const ppr_net *ppr_model_net(const ppr_model *md)
{
    return md->net;
}

ppr_node_kind ppr_model_node(const ppr_model *md, uint32_t node, uint32_t *id)
{
    if (node < md->S) {
        *id = node;
        return PPR_NODE_SYMBOL;
    }
    if (node < md->S + md->A) {
        *id = node - md->S;
        return PPR_NODE_ACTIVITY;
    }
    if (node < md->S + md->A + md->C) {
        *id = node - md->S - md->A;
        return PPR_NODE_CONTEXT;
    }
    *id = 0;
    return PPR_NODE_SINK;
}

void ppr_model_context_text(const ppr_model *md, uint32_t c, core_buf *out)
{
    const ctx_rec *r = &md->ctx.v[c];
    for (uint32_t i = 0; i < r->order; i++) {
        uint32_t t = md->toks.v[r->tok_off + i];
        if (i)
            core_buf_puts(out, " > ");
        if (t >= md->A) {
            const char *text;
            ppr_mapper_variant(md->m, t - md->A, &text);
            core_buf_printf(out, "\"%s\"", text);
        } else {
            ppr_activity pa;
            ppr_mapper_activity(md->m, t, &pa);
            core_buf_printf(out, "[%s]", pa.text);
        }
    }
}

/* ---- ranking ---- */

int ppr_model_work_new(const ppr_model *md, ppr_model_work **out)
{
    ppr_model_work *w = core_xcalloc(1, sizeof *w);
    w->md = md;
    int rc = ppr_work_new(md->net, &w->w);
    if (rc) {
        free(w);
        return rc;
    }
    w->cap = 2 * PPR_MODEL_MAX_ORDER + RECENCY_WINDOW;
    w->seeds = core_xmalloc(w->cap * sizeof *w->seeds);
    w->topcap = 64;
    w->top = core_xmalloc(w->topcap * sizeof *w->top);
    *out = w;
    return 0;
}

void ppr_model_work_free(ppr_model_work *w)
{
    if (!w)
        return;
    ppr_work_free(w->w);
    free(w->seeds);
    free(w->top);
    free(w->memo);
    free(w->arena);
    free(w->fill_acc);
    free(w->fill_from);
    free(w->fill_hopm);
    free(w->fill_nb_off);
    free(w->fill_nb_n);
    core_vec_free(&w->fill_nbs);
    core_vec_free(&w->fill_set);
    core_vec_free(&w->fill_hop[0]);
    core_vec_free(&w->fill_hop[1]);
    free(w);
}

uint32_t ppr_model_seeds(const ppr_model_work *w, const ppr_entry **seeds)
{
    *seeds = w->seeds;
    return w->nseeds;
}

ppr_work *ppr_model_ppr_work(ppr_model_work *w)
{
    return w->w;
}

/* The tokens of a prefix's longest context window at both levels (the
 * window of order o is the last o of them); returns its order. The
 * contexts' seeds depend on nothing else. */
static uint32_t window_tokens(const ppr_model *md, const uint32_t *act, const uint32_t *var,
                              uint32_t len, uint32_t *tv, uint32_t *ta)
{
    uint32_t omax = len < md->p.order ? len : md->p.order;
    for (uint32_t o = 1; o <= omax; o++) {
        uint32_t j = len - o, i = omax - o;
        tv[i] = token_of(md, act[j], var[j]);
        ta[i] = act[j] < md->A ? act[j] : TOK_UNKNOWN;
    }
    return omax;
}

/* The contexts' seeds from window_tokens(); returns the weight they leave
 * (to the recency part). */
static double context_seeds(const ppr_model *md, ppr_model_work *w, const uint32_t *tv,
                            const uint32_t *ta, uint32_t omax)
{
    w->nseeds = 0;
    double rem = 1.0;
    /* A window is usable up to the first unknown token from the end; the
     * activity-level one of order o is skipped when the variant-level one
     * is usable and holds no variant (the same tokens, so the same context:
     * see window, same_as_var). */
    uint32_t vmax = 0, amax = 0, novar = 0;
    bool vok = true, aok = true, nv = true;
    for (uint32_t o = 1; o <= omax; o++) {
        uint32_t i = omax - o;
        vok = vok && tv[i] != TOK_UNKNOWN;
        aok = aok && ta[i] != TOK_UNKNOWN;
        nv = nv && tv[i] < md->A;
        vmax += vok;
        amax += aok;
        novar += nv;
    }
    /* The contexts to look up, longest first per level. Their hash slots
     * are fetched together before the lookups: each is a cache miss in a
     * large table, and overlapped they cost about one. */
    struct {
        uint64_t key;
        const uint32_t *t;
        uint8_t level, o;
    } q[2 * PPR_MODEL_MAX_ORDER];
    uint32_t nq = 0;
    for (uint8_t level = LEVEL_VAR; level <= LEVEL_ACT; level++) {
        const uint32_t *t = level == LEVEL_VAR ? tv : ta;
        for (uint32_t o = level == LEVEL_VAR ? vmax : amax; o >= 1; o--) {
            if (level == LEVEL_ACT && o <= vmax && o <= novar)
                continue;
            q[nq].t = t + (omax - o);
            q[nq].level = level;
            q[nq].o = (uint8_t)o;
            q[nq].key = ctx_key(level, q[nq].t, o);
            core_map_prefetch(&md->ctx_index, q[nq].key);
            nq++;
        }
    }
    /* The same for their records, then for their tokens, then the
     * lookups proper. */
    uint32_t cs[2 * PPR_MODEL_MAX_ORDER];
    for (uint32_t i = 0; i < nq; i++) {
        const uint64_t *v = core_map_get(&md->ctx_index, q[i].key);
        cs[i] = v ? (uint32_t)*v : UINT32_MAX;
        if (v)
            __builtin_prefetch(&md->ctx.v[cs[i]]);
    }
    for (uint32_t i = 0; i < nq; i++)
        if (cs[i] != UINT32_MAX)
            __builtin_prefetch(md->toks.v + md->ctx.v[cs[i]].tok_off);
    for (uint32_t i = 0; i < nq; i++) {
        uint32_t c = cs[i];
        if (c == UINT32_MAX || !ctx_is(md, c, q[i].level, q[i].t, q[i].o) || md->ctx.v[c].n == 0)
            continue;
        const ctx_rec *r = &md->ctx.v[c];
        double lam = r->n / (r->n + md->p.escape * r->u);
        w->seeds[w->nseeds++] = (ppr_entry){md->S + md->A + c, (float)(rem * lam)};
        rem *= 1 - lam;
    }
    return rem;
}

/*
 * The seeds of a prefix: contexts (Witten-Bell weights), then, with
 * recency, the prefix's own activities. Returns the weight left to the
 * recency part (what the contexts did not take).
 */
static double make_seeds(const ppr_model *md, ppr_model_work *w, const uint32_t *act,
                         const uint32_t *var, uint32_t len, bool recency)
{
    uint32_t tv[PPR_MODEL_MAX_ORDER], ta[PPR_MODEL_MAX_ORDER];
    uint32_t omax = window_tokens(md, act, var, len, tv, ta);
    double rem = context_seeds(md, w, tv, ta, omax);
    /* Recency: the prefix's own activities, the latest first. An activity
     * the model has no node for still ages the ones before it. */
    if (recency && rem > 0) {
        double wsum = 0, d = 1;
        uint32_t first = w->nseeds;
        for (uint32_t i = 0; i < len && i < RECENCY_WINDOW; i++, d *= md->p.decay) {
            uint32_t a = act[len - 1 - i];
            if (a >= md->A)
                continue;
            w->seeds[w->nseeds++] = (ppr_entry){md->S + a, (float)d};
            wsum += d;
            if (md->p.decay == 0)
                break;
        }
        if (wsum > 0) {
            for (uint32_t i = first; i < w->nseeds; i++)
                w->seeds[i].score = (float)(w->seeds[i].score / wsum * rem);
        } else {
            w->nseeds = first; /* decay 0 and the latest unknown: no recency */
        }
    }
    return rem;
}

/* a before b best first: score descending, then node ascending (the
 * order of ppr__sort_by_score). */
static inline bool score_before(const ppr_entry *a, const ppr_entry *b)
{
    return a->score != b->score ? a->score > b->score : a->node < b->node;
}

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
static bool fill_spread(const ppr_model *md, ppr_model_work *w, uint32_t x, double r,
                        uint32_t *budget)
{
    const graph *g = md->g;
    uint32_t no, ni;
    const graph_edge *out = graph_out_edges(g, x, &no);
    const graph_edge *in = graph_in_edges(g, x, &ni);
    if (no + ni > *budget)
        return false;
    *budget -= no + ni;
    double total = code_total(md, out, no, in, ni);
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
static const ppr_entry *fill_nb(const ppr_model *md, ppr_model_work *w, uint32_t x, uint32_t *n)
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

static uint32_t fill_ranks(const ppr_model *md, ppr_model_work *w, uint32_t h, uint32_t k,
                           ppr_pred *out)
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
        out[h + i] = (ppr_pred){top[i].node, last * 0.5f * (top[i].score / amax), UINT32_MAX,
                                w->fill_from[top[i].node]};
    return h + n;
}

/* The k best rankable symbols of the work's estimate, each with the
 * predicted activity that contributes most to it; then fill_ranks. */
static uint32_t collect(const ppr_model *md, ppr_model_work *w, uint32_t k, ppr_pred *out)
{
    if (k > w->topcap) {
        w->topcap = k;
        w->top = core_xrealloc(w->top, k * sizeof *w->top);
    }
    const ppr_work *pw = w->w;
    uint32_t h = 0;
    if (k <= 64) {
        /* Few: kept sorted, best first, by insertion (most candidates do
         * not beat the last). The k best in this order are the same
         * whatever the way to them. */
        ppr_entry *top = w->top;
        for (uint32_t i = 0; i < pw->ntouched; i++) {
            uint32_t u = pw->touched[i];
            if (u >= md->S || !md->rankable[u] || !(pw->p[u] > 0))
                continue;
            ppr_entry c = {u, (float)pw->p[u]};
            if (h == k && !score_before(&c, &top[h - 1]))
                continue;
            uint32_t j = h < k ? h++ : h - 1;
            for (; j > 0 && score_before(&c, &top[j - 1]); j--)
                top[j] = top[j - 1];
            top[j] = c;
        }
    } else {
        for (uint32_t i = 0; i < pw->ntouched; i++) {
            uint32_t u = pw->touched[i];
            if (u >= md->S || !md->rankable[u] || !(pw->p[u] > 0))
                continue;
            ppr__offer(w->top, &h, k, (ppr_entry){u, (float)pw->p[u]});
        }
        ppr__sort_by_score(w->top, h);
    }
    for (uint32_t i = 0; i < h; i++) {
        uint32_t s = w->top[i].node;
        double best = 0;
        uint32_t arg = UINT32_MAX;
        for (uint32_t j = md->sa_off[s]; j < md->sa_off[s + 1]; j++) {
            double x = pw->p[md->S + md->sa_act[j]] * md->sa_conf[j];
            if (x > best) {
                best = x;
                arg = md->sa_act[j];
            }
        }
        out[i] = (ppr_pred){s, w->top[i].score, arg, UINT32_MAX};
    }
    return h < k ? fill_ranks(md, w, h, k, out) : h;
}

static ppr_opts model_push_opts(const ppr_model *md)
{
    ppr_opts o = ppr_opts_default();
    o.alpha = md->p.alpha;
    o.eps = 1e-7;
    return o;
}

uint32_t ppr_model_rank(const ppr_model *md, ppr_model_work *w, const uint32_t *act,
                        const uint32_t *var, uint32_t len, uint32_t k, ppr_pred *out)
{
    if (len == 0 || k == 0)
        return 0;
    make_seeds(md, w, act, var, len, true);
    if (w->nseeds == 0)
        return 0;
    ppr_opts o = model_push_opts(md);
    if (ppr_push(w->w, w->seeds, w->nseeds, &o, NULL) != 0)
        return 0;
    return collect(md, w, k, out);
}

/* ---- streaming: warm-started case vectors ---- */

int ppr_model_stream_prepare(ppr_model *md, uint32_t M, unsigned threads)
{
    if (M == 0 || M > PPR_MAX_M)
        return CORE_EUSAGE;
    if (md->act_basis && md->state_M == M)
        return 0;
    ppr_basis_free(md->act_basis);
    md->act_basis = NULL;
    uint32_t *nodes = core_xmalloc((md->A ? md->A : 1) * sizeof *nodes);
    for (uint32_t a = 0; a < md->A; a++)
        nodes[a] = md->S + a;
    ppr_opts o = model_push_opts(md);
    int rc = ppr_basis_build(md->net, nodes, md->A, M, &o, threads ? threads : 1, &md->act_basis);
    free(nodes);
    if (rc)
        return rc;
    md->state_M = M;
    return 0;
}

size_t ppr_model_stream_bytes(const ppr_model *md)
{
    return md->act_basis ? ppr_basis_bytes(md->act_basis) : 0;
}

int ppr_model_advance(const ppr_model *md, ppr_model_work *w, ppr_vec *rec, double *wsum,
                      uint32_t act)
{
    double c = md->p.decay;
    if (act >= md->A) {
        /* No node: the activities before it age all the same. */
        for (uint32_t i = 0; i < rec->n; i++)
            rec->e[i].score = (float)(rec->e[i].score * c);
        rec->err *= c;
        *wsum *= c;
        if (c == 0)
            rec->n = 0;
        return 0;
    }
    ppr_opts o = model_push_opts(md);
    int rc = ppr_state_advance(rec, md->S + act, c, 1.0, md->act_basis, w->w, &o);
    if (rc)
        return rc;
    *wsum = c * *wsum + 1.0;
    return 0;
}

/*
 * The contexts' part of a warm ranking, memoized. Cases that follow the
 * same paths come to the same context windows, and a window (its tokens
 * at both levels) fixes the contexts' seeds and so their push: the work
 * keeps recent ones (the seeds, and the push's estimate over the nodes it
 * touched, in touch order) and replays them instead of looking the
 * contexts up and pushing again. The replay leaves the work as the push
 * did (seeds, estimates, touched nodes, error bound; only the residuals
 * below the thresholds are not kept: nothing after a warm ranking reads
 * them), so the ranking is bit for bit the same.
 *
 * The index is direct-mapped by the window's hash; entries are written
 * round a ring (the oldest go first), and an index slot whose entry was
 * written over since is empty. About 600 bytes an entry on the demo's
 * model: some 50k windows.
 */
#define MEMO_SLOTS 65536u
#define MEMO_WORDS (((size_t)32 << 20) / 8)
#define MEMO_MAX_TOUCHED 4096u /* (an entry's words fit in 16 bits) */
/* A work that ranks now and then (the daemon's query API) keeps none. */
#define MEMO_AFTER 4096u

struct memo_slot {
    uint64_t hash;
    /* Low 48 bits: where its entry starts (words written to the ring
     * before it); high 16: the entry's length in words. */
    uint64_t at;
};

/* An entry, followed by uint32_t tv[omax], ta[omax] (the key: first, so
 * that checking it reads the entry in order), double p[ntouched],
 * ppr_entry seeds[nseeds], uint32_t nodes[ntouched]. */
typedef struct memo_entry {
    double rem, err;
    uint32_t omax, nseeds, ntouched, pad;
} memo_entry;

#define MEMO_AT(x) ((x) & ((1ull << 48) - 1))

static uint64_t memo_hash(const uint32_t *tv, const uint32_t *ta, uint32_t omax)
{
    uint64_t h = core_hash64(tv, omax * sizeof *tv, 0x6d656d6full + omax);
    return core_hash64(ta, omax * sizeof *ta, h);
}

static size_t memo_words(uint32_t omax, uint32_t nseeds, uint32_t ntouched)
{
    size_t bytes = sizeof(memo_entry) + 2 * (size_t)omax * sizeof(uint32_t) +
                   (size_t)ntouched * (sizeof(double) + sizeof(uint32_t)) +
                   (size_t)nseeds * sizeof(ppr_entry);
    return (bytes + 7) / 8;
}

/* The entry of this window, or NULL. */
static const memo_entry *memo_find(const ppr_model_work *w, uint64_t h, const uint32_t *tv,
                                   const uint32_t *ta, uint32_t omax)
{
    if (!w->memo)
        return NULL;
    const memo_slot *sl = &w->memo[h & (MEMO_SLOTS - 1)];
    /* Written over once the ring came round to its start again. (A slot
     * never written has at 0, and the ring starts past MEMO_WORDS.) */
    uint64_t at = MEMO_AT(sl->at);
    if (sl->hash != h || w->ring - at > MEMO_WORDS)
        return NULL;
    const memo_entry *e = (const memo_entry *)(w->arena + at % MEMO_WORDS);
    /* All of it is read on a hit: its cache lines at once. */
    const char *x = (const char *)e, *end = x + (sl->at >> 48) * 8;
    for (x += 64; x < end; x += 64)
        __builtin_prefetch(x);
    if (e->omax != omax)
        return NULL;
    const uint32_t *t = (const uint32_t *)(e + 1);
    if (memcmp(t, tv, omax * sizeof *tv) != 0 || memcmp(t + omax, ta, omax * sizeof *ta) != 0)
        return NULL;
    return e;
}

/* Back to what the push of e's window left. */
static void memo_replay(ppr_model_work *w, const memo_entry *e)
{
    const double *p = (const double *)((const uint32_t *)(e + 1) + 2 * e->omax);
    const ppr_entry *seeds = (const ppr_entry *)(p + e->ntouched);
    const uint32_t *nodes = (const uint32_t *)(seeds + e->nseeds);
    memcpy(w->seeds, seeds, e->nseeds * sizeof *seeds);
    w->nseeds = e->nseeds;
    ppr__work_load(w->w, nodes, p, e->ntouched, e->err);
}

/* Keeps the push just made from the work's seeds for this window. */
static void memo_store(ppr_model_work *w, uint64_t h, const uint32_t *tv, const uint32_t *ta,
                       uint32_t omax, double rem)
{
    const ppr_work *pw = w->w;
    uint32_t nt = pw->ntouched;
    if (nt > MEMO_MAX_TOUCHED)
        return;
    size_t words = memo_words(omax, w->nseeds, nt);
    if (!w->memo) {
        w->memo = core_xcalloc(MEMO_SLOTS, sizeof *w->memo);
        w->arena = core_xmalloc(MEMO_WORDS * sizeof *w->arena);
        w->ring = 2 * MEMO_WORDS;
    }
    /* An entry is never split at the ring's end: what is left there stays
     * unused this round. */
    size_t off = w->ring % MEMO_WORDS;
    if (off + words > MEMO_WORDS) {
        w->ring += MEMO_WORDS - off;
        off = 0;
    }
    memo_entry *e = (memo_entry *)(w->arena + off);
    *e = (memo_entry){rem, pw->error_bound, omax, w->nseeds, nt, 0};
    uint32_t *t = (uint32_t *)(e + 1);
    memcpy(t, tv, omax * sizeof *tv);
    memcpy(t + omax, ta, omax * sizeof *ta);
    double *p = (double *)(t + 2 * omax);
    ppr_entry *seeds = (ppr_entry *)(p + nt);
    uint32_t *nodes = (uint32_t *)(seeds + w->nseeds);
    for (uint32_t i = 0; i < nt; i++)
        p[i] = pw->p[pw->touched[i]];
    memcpy(seeds, w->seeds, w->nseeds * sizeof *seeds);
    memcpy(nodes, pw->touched, nt * sizeof *nodes);
    w->memo[h & (MEMO_SLOTS - 1)] = (memo_slot){h, w->ring | (uint64_t)words << 48};
    w->ring += words;
}

uint32_t ppr_model_rank_warm(const ppr_model *md, ppr_model_work *w, const uint32_t *act,
                             const uint32_t *var, uint32_t len, const ppr_vec *rec, double wsum,
                             uint32_t k, ppr_pred *out)
{
    if (len == 0 || k == 0)
        return 0;
    /* The contexts' part by a push (no seeds: an empty estimate), then the
     * recency part from the case's vector, by linearity. */
    uint32_t tv[PPR_MODEL_MAX_ORDER], ta[PPR_MODEL_MAX_ORDER];
    uint32_t omax = window_tokens(md, act, var, len, tv, ta);
    /* (A work made for another model keeps nothing.) */
    bool memo = w->md == md && ++w->warm_calls > MEMO_AFTER;
    uint64_t h = memo ? memo_hash(tv, ta, omax) : 0;
    const memo_entry *e = memo ? memo_find(w, h, tv, ta, omax) : NULL;
    double rem;
    if (e) {
        rem = e->rem;
        memo_replay(w, e);
    } else {
        rem = context_seeds(md, w, tv, ta, omax);
        ppr_opts o = model_push_opts(md);
        if (ppr_push(w->w, w->seeds, w->nseeds, &o, NULL) != 0)
            return 0;
        if (memo)
            memo_store(w, h, tv, ta, omax, rem);
    }
    if (rem > 0 && wsum > 0 && rec && rec->n)
        ppr__add_sparse(w->w, rec->e, rec->n, rem / wsum);
    return collect(md, w, k, out);
}

/* ---- calibration ---- */

typedef struct val_score {
    double top1, mrr; /* sums over the scored prefixes */
    uint64_t n;       /* prefixes scored */
} val_score;

/*
 * Rankings by seed set: validation prefixes repeat (the same recent
 * events give the same seeds, hence the same ranking), so each distinct
 * seed set is pushed once per model. Exact: a hash hit is checked against
 * the stored seeds, and a different set with the same hash is pushed.
 */
#define CMEMO_K 10
#define CMEMO_MAX_SEEDS (1u << 22) /* stored seed entries (32 MiB): past it, no new ones */

typedef struct cmemo_ent {
    uint32_t seed_off, nseeds, np;
    ppr_pred pred[CMEMO_K];
} cmemo_ent;

typedef struct calib_memo {
    core_map index; /* hash of the seeds -> entry */
    core_vec(ppr_entry) seeds;
    core_vec(cmemo_ent) ents;
} calib_memo;

static void cmemo_free(calib_memo *mm)
{
    core_map_free(&mm->index);
    core_vec_free(&mm->seeds);
    core_vec_free(&mm->ents);
}

/* ppr_model_rank with k = CMEMO_K, through the memo. */
static uint32_t cmemo_rank(const ppr_model *md, ppr_model_work *w, calib_memo *mm,
                           const uint32_t *act, const uint32_t *var, uint32_t len, ppr_pred *out)
{
    make_seeds(md, w, act, var, len, true);
    if (w->nseeds == 0)
        return 0;
    size_t bytes = w->nseeds * sizeof *w->seeds;
    uint64_t key = core_hash64(w->seeds, bytes, 0x6d656d6full);
    key = key == UINT64_MAX ? 0 : key;
    const uint64_t *v = core_map_get(&mm->index, key);
    if (v) {
        const cmemo_ent *e = &mm->ents.v[*v];
        if (e->nseeds == w->nseeds && memcmp(mm->seeds.v + e->seed_off, w->seeds, bytes) == 0) {
            memcpy(out, e->pred, e->np * sizeof *out);
            return e->np;
        }
    }
    ppr_opts o = model_push_opts(md);
    if (ppr_push(w->w, w->seeds, w->nseeds, &o, NULL) != 0)
        return 0;
    uint32_t np = collect(md, w, CMEMO_K, out);
    if (!v && mm->seeds.n + w->nseeds <= CMEMO_MAX_SEEDS) {
        cmemo_ent e = {(uint32_t)mm->seeds.n, w->nseeds, np, {{0, 0, 0, 0}}};
        memcpy(e.pred, out, np * sizeof *out);
        core_vec_reserve(&mm->seeds, mm->seeds.n + w->nseeds);
        memcpy(mm->seeds.v + mm->seeds.n, w->seeds, bytes);
        mm->seeds.n += w->nseeds;
        *core_map_put(&mm->index, key, NULL) = mm->ents.n;
        core_vec_push(&mm->ents, e);
    }
    return np;
}

/* Scores every prefix of val against the mapped symbols of its next
 * event (sums: pooled over folds by the caller). */
static int score_model(ppr_mapper *m, const ppr_model *md, const ppr_seqs *val, val_score *out)
{
    memset(out, 0, sizeof *out);
    ppr_model_work *w;
    int rc = ppr_model_work_new(md, &w);
    if (rc)
        return rc;
    calib_memo mm = {0};
    ppr_pred pred[CMEMO_K];
    for (uint32_t c = 0; c < val->ncases; c++) {
        const uint32_t *act = val->act + val->off[c], *var = val->var + val->off[c];
        uint32_t len = val->off[c + 1] - val->off[c];
        for (uint32_t k = 1; k < len; k++) {
            out->n++;
            ppr_activity pa;
            if (act[k] >= md->A)
                continue;
            ppr_mapper_activity(m, act[k], &pa);
            if (pa.nsyms == 0)
                continue;
            uint32_t np = cmemo_rank(md, w, &mm, act, var, k, pred);
            for (uint32_t r = 0; r < np; r++) {
                double hit = 0;
                for (uint32_t j = 0; j < pa.nsyms; j++)
                    if (pa.syms[j] == pred[r].symbol)
                        hit = pa.conf[j];
                if (hit > 0) {
                    if (r == 0)
                        out->top1 += hit;
                    out->mrr += hit / (r + 1);
                    break;
                }
            }
        }
    }
    cmemo_free(&mm);
    ppr_model_work_free(w);
    return 0;
}

/* Trains on fit and scores val. */
static int validate(ppr_mapper *m, const ppr_seqs *fit, const ppr_seqs *val,
                    const ppr_model_params *p, val_score *out)
{
    memset(out, 0, sizeof *out);
    ppr_model *md;
    int rc = ppr_model_train(m, fit, p, &md);
    if (rc)
        return rc;
    rc = score_model(m, md, val, out);
    ppr_model_free(md);
    return rc;
}

uint32_t ppr_model_folds(uint32_t ncases, uint32_t folds, uint32_t *bounds)
{
    uint32_t k = folds < 2 ? 2 : folds > PPR_MODEL_MAX_FOLDS ? PPR_MODEL_MAX_FOLDS : folds;
    if (k > ncases)
        k = ncases;
    for (uint32_t f = 0; f <= k; f++)
        bounds[f] = k ? (uint32_t)((uint64_t)ncases * f / k) : 0;
    return k;
}

/* One fold: val is its cases (a view of train), fit all the others (a
 * view when the fold is first or last, else a copy). */
typedef struct calib_fold {
    ppr_seqs fit, val;
    uint32_t *act, *var, *off; /* the copy, or NULL */
} calib_fold;

static void fold_make(const ppr_seqs *tr, uint32_t lo, uint32_t hi, calib_fold *f)
{
    memset(f, 0, sizeof *f);
    f->val = (ppr_seqs){tr->act, tr->var, tr->off + lo, hi - lo};
    if (lo == 0) {
        f->fit = (ppr_seqs){tr->act, tr->var, tr->off + hi, tr->ncases - hi};
        return;
    }
    if (hi == tr->ncases) {
        f->fit = (ppr_seqs){tr->act, tr->var, tr->off, lo};
        return;
    }
    /* Cases 0..lo-1, then hi..ncases-1, their events rebased from 0. */
    uint32_t b0 = tr->off[0], e0 = tr->off[lo], b1 = tr->off[hi], e1 = tr->off[tr->ncases];
    size_t n0 = e0 - b0, n1 = e1 - b1, nc = (size_t)lo + (tr->ncases - hi);
    f->act = core_xmalloc((n0 + n1 ? n0 + n1 : 1) * sizeof *f->act);
    f->var = core_xmalloc((n0 + n1 ? n0 + n1 : 1) * sizeof *f->var);
    f->off = core_xmalloc((nc + 1) * sizeof *f->off);
    memcpy(f->act, tr->act + b0, n0 * sizeof *f->act);
    memcpy(f->act + n0, tr->act + b1, n1 * sizeof *f->act);
    memcpy(f->var, tr->var + b0, n0 * sizeof *f->var);
    memcpy(f->var + n0, tr->var + b1, n1 * sizeof *f->var);
    size_t c = 0;
    for (uint32_t i = 0; i < lo; i++)
        f->off[c++] = tr->off[i] - b0;
    for (uint32_t i = hi; i <= tr->ncases; i++)
        f->off[c++] = (uint32_t)(tr->off[i] - b1 + n0);
    f->fit = (ppr_seqs){f->act, f->var, f->off, (uint32_t)nc};
}

static void fold_free(calib_fold *f)
{
    free(f->act);
    free(f->var);
    free(f->off);
}

/*
 * A batch of candidates, each scored on every fold: tasks (candidate,
 * fold) taken from a shared counter by the threads. Candidates that differ
 * only in what ranking reads (alpha, decay, escape: not what is mined or
 * built) share one model per fold, trained first (tasks: folds, into
 * train_out), and are scored on a copy of its handle with their
 * parameters.
 */
typedef struct calib_job {
    ppr_mapper *m;
    const calib_fold *folds;
    uint32_t K;
    const ppr_model_params *cand;
    uint32_t ntasks;
    val_score *res;           /* ncand x K */
    ppr_model **train_out;    /* K: train the folds' models for cand[0] */
    ppr_model *const *models; /* K: score on these, or NULL: train each */
    atomic_uint next;
    atomic_int err;
} calib_job;

static void calib_worker(void *arg, unsigned th)
{
    (void)th;
    calib_job *j = arg;
    for (;;) {
        if (atomic_load(&j->err))
            return;
        unsigned t = atomic_fetch_add(&j->next, 1u);
        if (t >= j->ntasks)
            return;
        const calib_fold *f = &j->folds[t % j->K];
        int rc;
        if (j->train_out) {
            rc = ppr_model_train(j->m, &f->fit, j->cand, &j->train_out[t]);
        } else if (j->models) {
            ppr_model view = *j->models[t % j->K];
            view.p = j->cand[t / j->K];
            rc = score_model(j->m, &view, &f->val, &j->res[t]);
        } else {
            rc = validate(j->m, &f->fit, &f->val, &j->cand[t / j->K], &j->res[t]);
        }
        if (rc) {
            int zero = 0;
            atomic_compare_exchange_strong(&j->err, &zero, rc);
            return;
        }
    }
}

typedef struct calib_ctx {
    ppr_mapper *m;
    calib_fold folds[PPR_MODEL_MAX_FOLDS];
    uint32_t K;
    unsigned threads;
    uint32_t scored; /* candidates scored */
} calib_ctx;

static int run_job(calib_ctx *cx, calib_job *job)
{
    atomic_init(&job->next, 0u);
    atomic_init(&job->err, 0);
    unsigned th = cx->threads < job->ntasks ? cx->threads : job->ntasks;
    /* Threads that could not start leave their share to the others. */
    (void)core_parallel(th ? th : 1, calib_worker, job);
    return atomic_load(&job->err);
}

/* Scores ncand candidates on every fold: res[c * K + f]. rank_only: they
 * differ from each other only in alpha, decay and escape. */
static int score_batch(calib_ctx *cx, const ppr_model_params *cand, uint32_t ncand, bool rank_only,
                       val_score *res)
{
    ppr_model *models[PPR_MODEL_MAX_FOLDS] = {0};
    calib_job job = {.m = cx->m, .folds = cx->folds, .K = cx->K, .cand = cand, .res = res};
    int rc = 0;
    if (rank_only && ncand > 1) {
        job.ntasks = cx->K;
        job.train_out = models;
        rc = run_job(cx, &job);
        job.train_out = NULL;
        job.models = models;
    }
    if (!rc) {
        job.ntasks = ncand * cx->K;
        rc = run_job(cx, &job);
    }
    for (uint32_t f = 0; f < cx->K; f++)
        ppr_model_free(models[f]);
    cx->scored += ncand;
    return rc;
}

/* A candidate's folds pooled: every prefix weighs the same. */
static val_score pooled(const val_score *r, uint32_t K)
{
    val_score s = {0, 0, 0};
    for (uint32_t f = 0; f < K; f++) {
        s.top1 += r[f].top1;
        s.mrr += r[f].mrr;
        s.n += r[f].n;
    }
    return s;
}

static double frac_of(double x, uint64_t n)
{
    return n ? x / (double)n : 0;
}

static double objective(const val_score *s)
{
    return frac_of(s->top1 + 0.25 * s->mrr, s->n);
}

/* "0.9512 0.9603 0.9577": each fold's top-1. */
static void fold_text(const val_score *r, uint32_t K, char *buf, size_t cap)
{
    size_t at = 0;
    buf[0] = 0;
    for (uint32_t f = 0; f < K && at < cap; f++) {
        int n = snprintf(buf + at, cap - at, "%s%.4f", f ? " " : "", frac_of(r[f].top1, r[f].n));
        if (n < 0)
            break;
        at += (size_t)n;
    }
}

static bool same_params(const ppr_model_params *a, const ppr_model_params *b)
{
    return a->order == b->order && a->variant_ratio == b->variant_ratio &&
           a->variant_min == b->variant_min && a->alpha == b->alpha &&
           a->code_scale == b->code_scale && a->decay == b->decay && a->escape == b->escape;
}

int ppr_model_calibrate(ppr_mapper *m, const ppr_seqs *train, uint32_t min_cases,
                        ppr_model_params *p, const core_logger *log)
{
    if (train->ncases < min_cases || train->ncases < 4) {
        core_logf(log, CORE_LOG_INFO,
                  "calibration skipped: %u training cases (below %u), defaults kept", train->ncases,
                  min_cases);
        return 0;
    }
    uint64_t t0 = core_now_ns();
    calib_ctx cx = {.m = m};
    uint32_t bounds[PPR_MODEL_MAX_FOLDS + 1];
    cx.K = ppr_model_folds(train->ncases, p->calibrate_folds, bounds);
    for (uint32_t f = 0; f < cx.K; f++)
        fold_make(train, bounds[f], bounds[f + 1], &cx.folds[f]);
    cx.threads = p->calibrate_threads ? p->calibrate_threads : core_ncpus();
    static const double orders[] = {1, 2, 3, 4, 6, 8, 12};
    static const double ratios[] = {0, 0.05, 0.2, 0.5, 1};
    static const double alphas[] = {0.1, 0.3, 0.5, 0.8};
    static const double scales[] = {0, 0.03, 0.1, 0.3, 1};
    static const double decays[] = {0, 0.3, 0.6};
    static const double escapes[] = {0.5, 1, 2};
    const struct {
        const char *name;
        const double *v;
        size_t n;
        bool rank_only; /* read by ranking only: one model per fold serves all values */
    } grid[] = {
        {"order", orders, sizeof orders / sizeof *orders, false},
        {"variant_ratio", ratios, sizeof ratios / sizeof *ratios, false},
        {"alpha", alphas, sizeof alphas / sizeof *alphas, true},
        {"code_scale", scales, sizeof scales / sizeof *scales, false},
        {"decay", decays, sizeof decays / sizeof *decays, true},
        {"escape", escapes, sizeof escapes / sizeof *escapes, true},
    };
    enum { MAX_VALUES = 8 };
    ppr_model_params best = *p, cand[MAX_VALUES];
    double cand_v[MAX_VALUES];
    val_score best_r[PPR_MODEL_MAX_FOLDS], res[MAX_VALUES * PPR_MODEL_MAX_FOLDS];
    char folds_txt[PPR_MODEL_MAX_FOLDS * 8 + 1];
    int rc = score_batch(&cx, &best, 1, false, best_r);
    if (rc)
        goto done;
    val_score s = pooled(best_r, cx.K);
    double best_obj = objective(&s);
    fold_text(best_r, cx.K, folds_txt, sizeof folds_txt);
    core_logf(log, CORE_LOG_INFO,
              "calibration: %u-fold cross-validation over %u cases (%llu prefixes), %u threads: "
              "start top-1 %.4f mrr %.4f (folds %s)",
              cx.K, train->ncases, (unsigned long long)s.n, cx.threads, frac_of(s.top1, s.n),
              frac_of(s.mrr, s.n), folds_txt);
    /* A parameter scanned since best last changed is not scanned again:
     * the same candidates would score the same, and none beat best. */
    uint32_t step = 0, last_change = 0, last_scan[sizeof grid / sizeof *grid];
    memset(last_scan, 0, sizeof last_scan);
    for (int round = 0; round < 2; round++) {
        bool changed = false;
        for (size_t gi = 0; gi < sizeof grid / sizeof *grid; gi++) {
            step++;
            if (round > 0 && last_scan[gi] >= last_change)
                continue;
            last_scan[gi] = step;
            /* The values of one parameter are scored together (in
             * parallel); choosing among them in order afterwards gives what
             * scoring them one after the other would: each differs from the
             * best only in this parameter. */
            uint32_t nc = 0;
            for (size_t vi = 0; vi < grid[gi].n && nc < MAX_VALUES; vi++) {
                ppr_model_params q = best;
                double v = grid[gi].v[vi];
                switch (gi) {
                case 0:
                    q.order = (uint32_t)v;
                    break;
                case 1:
                    q.variant_ratio = v;
                    q.variant_min = v > 0 ? 8 : 0;
                    break;
                case 2:
                    q.alpha = v;
                    break;
                case 3:
                    q.code_scale = v;
                    break;
                case 4:
                    q.decay = v;
                    break;
                default:
                    q.escape = v;
                    break;
                }
                if (same_params(&q, &best))
                    continue;
                cand_v[nc] = v;
                cand[nc++] = q;
            }
            if (!nc)
                continue;
            rc = score_batch(&cx, cand, nc, grid[gi].rank_only, res);
            if (rc)
                goto done;
            for (uint32_t ci = 0; ci < nc; ci++) {
                s = pooled(res + (size_t)ci * cx.K, cx.K);
                double obj = objective(&s);
                /* Strictly better by a margin: ties keep the simpler,
                 * earlier value. */
                if (obj > best_obj + 1e-4) {
                    best_obj = obj;
                    best = cand[ci];
                    memcpy(best_r, res + (size_t)ci * cx.K, cx.K * sizeof *best_r);
                    changed = true;
                    last_change = step;
                    fold_text(best_r, cx.K, folds_txt, sizeof folds_txt);
                    core_logf(log, CORE_LOG_INFO,
                              "calibration: %s=%g -> top-1 %.4f mrr %.4f (folds %s)", grid[gi].name,
                              cand_v[ci], frac_of(s.top1, s.n), frac_of(s.mrr, s.n), folds_txt);
                }
            }
        }
        if (!changed)
            break;
    }
    /* The spread of the chosen parameters' score over the folds. */
    s = pooled(best_r, cx.K);
    double lo = 1, hi = 0, mean = 0, sd = 0;
    for (uint32_t f = 0; f < cx.K; f++) {
        double x = frac_of(best_r[f].top1, best_r[f].n);
        lo = x < lo ? x : lo;
        hi = x > hi ? x : hi;
        mean += x / cx.K;
    }
    for (uint32_t f = 0; f < cx.K; f++) {
        double d = frac_of(best_r[f].top1, best_r[f].n) - mean;
        sd += d * d / cx.K;
    }
    fold_text(best_r, cx.K, folds_txt, sizeof folds_txt);
    core_logf(log, CORE_LOG_INFO,
              "calibration: chose order %u, variant_ratio %g, alpha %g, code_scale %g, decay %g, "
              "escape %g: top-1 %.4f mrr %.4f; per fold top-1 %s (min %.4f, max %.4f, sd %.4f); "
              "%u candidates x %u folds in %.2f s",
              best.order, best.variant_ratio, best.alpha, best.code_scale, best.decay, best.escape,
              frac_of(s.top1, s.n), frac_of(s.mrr, s.n), folds_txt, lo, hi, sqrt(sd), cx.scored,
              cx.K, (double)(core_now_ns() - t0) / 1e9);
    *p = best;
done:
    for (uint32_t f = 0; f < cx.K; f++)
        fold_free(&cx.folds[f]);
    return rc;
}

/* ---- the model file ---- */

#define MODEL_MAGIC "PMRAGMOD"
#define MODEL_VERSION 1u

static uint64_t graph_identity(const graph *g)
{
    uint64_t h = 0x9e3779b97f4a7c15ull;
    for (uint32_t s = 0; s < graph_nsymbols(g); s++) {
        graph_symbol sy;
        graph_get_symbol(g, s, &sy);
        h = core_hash64(sy.qualname, strlen(sy.qualname), h);
        h = core_hash64(&sy.start_line, sizeof sy.start_line, h);
    }
    h ^= graph_nemits(g);
    return h;
}

static void put_u8(core_buf *b, uint8_t v)
{
    core_buf_append(b, &v, 1);
}
static void put_u32(core_buf *b, uint32_t v)
{
    core_buf_append(b, &v, 4);
}
static void put_u64(core_buf *b, uint64_t v)
{
    core_buf_append(b, &v, 8);
}
static void put_f64(core_buf *b, double v)
{
    core_buf_append(b, &v, 8);
}
static void put_str(core_buf *b, const char *s)
{
    uint32_t n = (uint32_t)strlen(s);
    put_u32(b, n);
    core_buf_append(b, s, n);
}

static void put_params(core_buf *b, const ppr_model_params *p)
{
    put_u32(b, p->order);
    put_f64(b, p->variant_ratio);
    put_u32(b, p->variant_min);
    put_f64(b, p->alpha);
    put_f64(b, p->code_scale);
    put_f64(b, p->decay);
    put_f64(b, p->escape);
    for (int t = 0; t < GRAPH_EDGE__COUNT; t++)
        put_f64(b, p->weights.type[t]);
    put_f64(b, p->weights.reverse);
}

int ppr_model_save(const ppr_model *md, const char *path)
{
    core_buf b = {0};
    core_buf_append(&b, MODEL_MAGIC, 8);
    put_u32(&b, MODEL_VERSION);
    put_u32(&b, 0x01020304u);
    put_u32(&b, graph_nsymbols(md->g));
    put_u64(&b, graph_identity(md->g));
    put_params(&b, &md->p);
    put_u64(&b, md->train_events);
    put_u64(&b, md->train_cases);
    put_u32(&b, md->A);
    for (uint32_t a = 0; a < md->A; a++) {
        ppr_activity pa;
        ppr_mapper_activity(md->m, a, &pa);
        const uint32_t *cands;
        bool has_const;
        uint32_t nc = ppr_mapper_candidates(md->m, a, &cands, &has_const);
        put_u8(&b, (uint8_t)pa.strategy);
        put_u8(&b, has_const);
        put_u8(&b, md->keep[a]);
        put_u64(&b, pa.count);
        put_str(&b, pa.text);
        put_u32(&b, pa.nsyms);
        for (uint32_t i = 0; i < pa.nsyms; i++) {
            put_u32(&b, pa.syms[i]);
            core_buf_append(&b, &pa.conf[i], 4);
        }
        put_u32(&b, nc);
        for (uint32_t i = 0; i < nc; i++)
            put_u32(&b, cands[i]);
    }
    put_u32(&b, md->V);
    for (uint32_t v = 0; v < md->V; v++) {
        const char *text;
        uint32_t a = ppr_mapper_variant(md->m, v, &text);
        put_u32(&b, a);
        put_str(&b, text);
    }
    put_u32(&b, md->C);
    for (uint32_t c = 0; c < md->C; c++) {
        const ctx_rec *r = &md->ctx.v[c];
        put_u8(&b, r->level);
        put_u8(&b, r->order);
        for (uint32_t i = 0; i < r->order; i++)
            put_u32(&b, md->toks.v[r->tok_off + i]);
        put_u32(&b, md->f_off[c + 1] - md->f_off[c]);
        for (uint32_t i = md->f_off[c]; i < md->f_off[c + 1]; i++) {
            put_u32(&b, md->f_act[i]);
            put_u32(&b, md->f_cnt[i]);
        }
    }
    put_u32(&b, core_crc32(0, b.data, b.len));
    int rc = core_write_file_atomic(path, b.data, b.len);
    core_buf_free(&b);
    return rc;
}

typedef struct rd {
    const uint8_t *p, *end;
    bool bad;
} rd;

static bool rd_take(rd *r, void *out, size_t n)
{
    if (r->bad || (size_t)(r->end - r->p) < n) {
        r->bad = true;
        memset(out, 0, n);
        return false;
    }
    memcpy(out, r->p, n);
    r->p += n;
    return true;
}
static uint8_t rd_u8(rd *r)
{
    uint8_t v;
    rd_take(r, &v, 1);
    return v;
}
static uint32_t rd_u32(rd *r)
{
    uint32_t v;
    rd_take(r, &v, 4);
    return v;
}
static uint64_t rd_u64(rd *r)
{
    uint64_t v;
    rd_take(r, &v, 8);
    return v;
}
static double rd_f64(rd *r)
{
    double v;
    rd_take(r, &v, 8);
    return v;
}
static float rd_f32(rd *r)
{
    float v;
    rd_take(r, &v, 4);
    return v;
}
/* A string, copied into buf (NUL-terminated). */
static const char *rd_str(rd *r, core_buf *buf)
{
    uint32_t n = rd_u32(r);
    core_buf_reset(buf);
    if (r->bad || (size_t)(r->end - r->p) < n) {
        r->bad = true;
        core_buf_puts(buf, "");
        return buf->data;
    }
    core_buf_append(buf, r->p, n);
    core_buf_puts(buf, "");
    r->p += n;
    return buf->data;
}

static void get_params(rd *r, ppr_model_params *p)
{
    p->order = rd_u32(r);
    p->variant_ratio = rd_f64(r);
    p->variant_min = rd_u32(r);
    p->alpha = rd_f64(r);
    p->code_scale = rd_f64(r);
    p->decay = rd_f64(r);
    p->escape = rd_f64(r);
    for (int t = 0; t < GRAPH_EDGE__COUNT; t++)
        p->weights.type[t] = (float)rd_f64(r);
    p->weights.reverse = (float)rd_f64(r);
}

/*
 * Whether parameters read from a model file are ones pmrag could have
 * written: the ranges of the model.* and ppr.weights.* configuration keys
 * (cmd/config.c), which calibration stays within. Ranking trusts them: a
 * decay above 1 or a negative escape gave seed weights that are not finite
 * (found by tests/fuzz/fuzz_model).
 */
static bool params_ok(const ppr_model_params *p)
{
    if (p->order < 1 || p->order > PPR_MODEL_MAX_ORDER || p->variant_min > 1000000 ||
        !(p->variant_ratio >= 0 && p->variant_ratio <= 1) ||
        !(p->alpha >= 0.001 && p->alpha <= 0.999) ||
        !(p->code_scale >= 0 && p->code_scale <= 100) || !(p->decay >= 0 && p->decay <= 1) ||
        !(p->escape >= 0.01 && p->escape <= 100))
        return false;
    for (int t = 0; t < GRAPH_EDGE__COUNT; t++)
        if (!(p->weights.type[t] >= 0 && p->weights.type[t] <= 1000))
            return false;
    return p->weights.reverse >= 0 && p->weights.reverse <= 1000;
}

int ppr_model_load(const char *path, const graph *g, const ppr_mapper_opts *opts,
                   ppr_mapper **mapper, ppr_model **out, char *why, size_t whylen)
{
    char *data;
    size_t len;
    int rc = core_read_file(path, (size_t)1 << 34, &data, &len);
    if (rc) {
        snprintf(why, whylen, "%s: %s", path, core_strerror(rc));
        return rc;
    }
    ppr_mapper *m = NULL;
    ppr_model *md = NULL;
    core_buf s = {0};
    const char *what = NULL;
    rc = CORE_ECORRUPT;
    if (len < 8 + 4 || memcmp(data, MODEL_MAGIC, 8) != 0) {
        rc = CORE_EFORMAT;
        what = "not a pmrag model file";
        goto fail;
    }
    uint32_t crc;
    memcpy(&crc, data + len - 4, 4);
    rd r = {(const uint8_t *)data + 8, (const uint8_t *)data + len - 4, false};
    uint32_t version = rd_u32(&r), endian = rd_u32(&r);
    if (version != MODEL_VERSION) {
        rc = CORE_EVERSION;
        what = "model file version not supported (train it again with pmrag mine)";
        goto fail;
    }
    if (endian != 0x01020304u) {
        rc = CORE_EENDIAN;
        what = "model file written on a machine of the other byte order";
        goto fail;
    }
    if (core_crc32(0, data, len - 4) != crc) {
        what = "checksum mismatch: the file is damaged";
        goto fail;
    }
    uint32_t nsym = rd_u32(&r);
    uint64_t ident = rd_u64(&r);
    if (nsym != graph_nsymbols(g) || ident != graph_identity(g)) {
        rc = CORE_EUSAGE;
        what = "the model was trained on another graph file (index and mine again)";
        goto fail;
    }
    ppr_model_params p = ppr_model_params_default();
    get_params(&r, &p);
    if (!params_ok(&p)) {
        what = "parameters out of range";
        goto fail;
    }
    uint64_t tev = rd_u64(&r), tcases = rd_u64(&r);
    rc = ppr_mapper_new(g, opts, &m);
    if (rc) {
        what = "cannot build the template matcher";
        goto fail;
    }
    rc = CORE_ECORRUPT;
    uint32_t A = rd_u32(&r);
    core_vec(uint8_t) keep = {0};
    core_vec(uint32_t) syms = {0}, cands = {0};
    core_vec(float) conf = {0};
    for (uint32_t a = 0; a < A && !r.bad; a++) {
        ppr_activity pa = {0};
        pa.strategy = (ppr_map_strategy)rd_u8(&r);
        bool has_const = rd_u8(&r) != 0;
        core_vec_push(&keep, rd_u8(&r));
        pa.count = rd_u64(&r);
        pa.text = rd_str(&r, &s);
        pa.nsyms = rd_u32(&r);
        if (pa.nsyms > nsym || pa.strategy >= PPR_MAP__COUNT) {
            r.bad = true;
            break;
        }
        syms.n = conf.n = cands.n = 0;
        for (uint32_t i = 0; i < pa.nsyms; i++) {
            uint32_t sy = rd_u32(&r);
            float cf = rd_f32(&r);
            if (sy >= nsym || !(cf >= 0 && cf <= 1))
                r.bad = true;
            core_vec_push(&syms, sy);
            core_vec_push(&conf, cf);
        }
        uint32_t nc = rd_u32(&r);
        if (nc > nsym)
            r.bad = true;
        for (uint32_t i = 0; i < nc && !r.bad; i++) {
            uint32_t sy = rd_u32(&r);
            if (sy >= nsym)
                r.bad = true;
            core_vec_push(&cands, sy);
        }
        if (r.bad)
            break;
        pa.syms = syms.v;
        pa.conf = conf.v;
        if (ppr_mapper_restore(m, &pa, cands.v, nc, has_const) != a)
            r.bad = true;
    }
    core_vec_free(&syms);
    core_vec_free(&conf);
    core_vec_free(&cands);
    uint32_t V = rd_u32(&r);
    for (uint32_t v = 0; v < V && !r.bad; v++) {
        uint32_t a = rd_u32(&r);
        const char *text = rd_str(&r, &s);
        if (a >= A || ppr_mapper_restore_variant(m, a, text) != v)
            r.bad = true;
    }
    if (r.bad) {
        core_vec_free(&keep);
        what = "truncated or inconsistent dictionary";
        goto fail;
    }
    md = model_new(m, NULL, &p);
    /* A file of no activities leaves keep.v NULL: memcpy must not see it
     * even for 0 bytes (found by tests/fuzz/fuzz_model). */
    if (A)
        memcpy(md->keep, keep.v, A);
    core_vec_free(&keep);
    for (uint32_t a = 0; a < A; a++)
        md->variants_kept += md->keep[a];
    md->train_events = tev;
    md->train_cases = tcases;
    uint32_t C = rd_u32(&r);
    core_vec(pair_rec) pairs = {0};
    uint32_t t[PPR_MODEL_MAX_ORDER];
    for (uint32_t c = 0; c < C && !r.bad; c++) {
        uint8_t level = rd_u8(&r), order = rd_u8(&r);
        if (level > LEVEL_ACT || order < 1 || order > PPR_MODEL_MAX_ORDER) {
            r.bad = true;
            break;
        }
        for (uint32_t i = 0; i < order; i++) {
            t[i] = rd_u32(&r);
            if (t[i] >= A + V)
                r.bad = true;
        }
        if (r.bad || ctx_add(md, level, t, order) != c) {
            r.bad = true;
            break;
        }
        uint32_t nf = rd_u32(&r);
        if (nf > A) {
            r.bad = true;
            break;
        }
        for (uint32_t i = 0; i < nf; i++) {
            uint32_t a = rd_u32(&r), cnt = rd_u32(&r);
            if (a >= A)
                r.bad = true;
            core_vec_push(&pairs, ((pair_rec){c, a, cnt}));
        }
    }
    if (r.bad || r.p != r.end) {
        core_vec_free(&pairs);
        what = "truncated or inconsistent contexts";
        goto fail;
    }
    set_follows(md, pairs.v, pairs.n);
    core_vec_free(&pairs);
    rc = build_net(md, NULL);
    if (rc) {
        what = "cannot build the joint graph";
        goto fail;
    }
    free(data);
    core_buf_free(&s);
    *mapper = m;
    *out = md;
    return 0;
fail:
    snprintf(why, whylen, "%s: %s", path, what ? what : core_strerror(rc));
    ppr_model_free(md);
    ppr_mapper_free(m);
    free(data);
    core_buf_free(&s);
    return rc;
}
