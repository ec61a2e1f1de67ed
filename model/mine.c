/*
 * Building a model (model.h): the directly-follows contexts mined from
 * cases, the activities that keep their variants, and the joint graph.
 */
#include "model_int.h"

#include <stdlib.h>

model_params model_params_default(void)
{
    model_params p = {
        .order = 6,
        .variant_ratio = 0.2,
        .variant_min = 8,
        .alpha = 0.3,
        .code_scale = 0.1,
        .decay = 0.5,
        .escape = 1.0,
        .code_prior = 0.75,
        .case_prior = 1,
        .calibrate_folds = 3,
        .calibrate_threads = 0,
    };
    ppr_weights_profile("default", &p.weights);
    return p;
}

/* Writes the tokens of the last `o` events before position k at a level. */
static bool window(const model_joint *md, uint8_t level, const uint32_t *act, const uint32_t *var,
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
static bool same_as_var(const model_joint *md, const uint32_t *tv, uint32_t o)
{
    for (uint32_t i = 0; i < o; i++)
        if (tv[i] >= md->A)
            return false;
    return true;
}

/* Whether context c has these tokens (a 64-bit hash collision would join
 * two contexts). */
bool model__ctx_is(const model_joint *md, uint32_t c, uint8_t level, const uint32_t *t, uint32_t o)
{
    const ctx_rec *r = &md->ctx.v[c];
    return r->level == level && r->order == o &&
           memcmp(md->toks.v + r->tok_off, t, o * sizeof *t) == 0;
}

uint32_t model__ctx_add(model_joint *md, uint8_t level, const uint32_t *t, uint32_t o)
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

static int cmp_pair(const void *a, const void *b)
{
    const pair_rec *x = a, *y = b;
    if (x->ctx != y->ctx)
        return x->ctx < y->ctx ? -1 : 1;
    return (x->act > y->act) - (x->act < y->act);
}

/* The follows CSR over the contexts from (context, activity, count)
 * pairs sorted by context, and each context's n and u. */
void model__set_follows(model_joint *md, const pair_rec *pairs, size_t n)
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
static void mine_at(model_joint *md, pair_acc *pa, const uint32_t *act, const uint32_t *var,
                    uint32_t k, uint32_t omax, uint32_t count)
{
    uint32_t tv[MODEL_MAX_ORDER], ta[MODEL_MAX_ORDER];
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
            pair_add(pa, model__ctx_add(md, level, t, o), next, count);
        }
    }
}

static void mine_finish(model_joint *md, pair_acc *pa)
{
    core_map_free(&pa->idx);
    if (pa->v.n) /* (no pairs: no array) */
        qsort(pa->v.v, pa->v.n, sizeof *pa->v.v, cmp_pair);
    model__set_follows(md, pa->v.v, pa->v.n);
    core_vec_free(&pa->v);
}

/* Counts contexts -> next activity over the training cases. */
static void mine(model_joint *md, const model_seqs *tr)
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
static void choose_variants(model_joint *md, const model_seqs *tr)
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

/* The weights of a symbol's code edges both ways, summed. */
double model__code_total(const model_joint *md, const graph_edge *out, uint32_t no,
                         const graph_edge *in, uint32_t ni)
{
    double total = 0;
    for (uint32_t i = 0; i < no; i++)
        total += code_weight(md, &out[i], false);
    for (uint32_t i = 0; i < ni; i++)
        total += code_weight(md, &in[i], true);
    return total;
}

int model__build_net(model_joint *md, const model_mapper_snap *sn)
{
    const graph *g = md->g;
    uint32_t S = md->S, A = md->A, C = md->C;
    uint32_t sink = S + A + C;
    core_vec(ppr_edge_in) e = {0};
    /* follows */
    for (uint32_t c = 0; c < C; c++) {
        double n = md->ctx.v[c].n;
        for (uint32_t i = md->f_off[c]; i < md->f_off[c + 1]; i++)
            core_vec_push(&e, ((ppr_edge_in){S + A + c, S + md->f_act[i], MODEL_EDGE_FOLLOWS,
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
        map_activity pa;
        model__act_syms(md, sn, a, &pa);
        for (uint32_t i = 0; i < pa.nsyms; i++) {
            if (pa.syms[i] >= S || !(pa.conf[i] > 0))
                continue;
            core_vec_push(&e, ((ppr_edge_in){S + a, pa.syms[i], MODEL_EDGE_EMITS, pa.conf[i]}));
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
        map_activity pa;
        model__act_syms(md, sn, a, &pa);
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
            double total = model__code_total(md, out, no, in, ni);
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
            core_vec_push(&e, ((ppr_edge_in){s, sink, MODEL_EDGE_SINK, 1.0f}));
        }
    }
    int rc = ppr_net_from_edges(sink + 1, e.v, e.n, NULL, &md->net);
    core_vec_free(&e);
    if (!rc)
        model__code_build(md, sn);
    return rc;
}

model_joint *model__new(map_mapper *m, const model_mapper_snap *sn, const model_params *p)
{
    model_joint *md = core_xcalloc(1, sizeof *md);
    md->m = m;
    md->g = map_mapper_graph(m);
    md->p = p ? *p : model_params_default();
    if (md->p.order < 1)
        md->p.order = 1;
    if (md->p.order > MODEL_MAX_ORDER)
        md->p.order = MODEL_MAX_ORDER;
    md->S = graph_nsymbols(md->g);
    model__act_count(m, sn, &md->A, &md->V);
    md->keep = core_xcalloc(md->A ? md->A : 1, 1);
    return md;
}

int model_train(map_mapper *m, const model_seqs *train, const model_params *p, model_joint **out)
{
    if (p && (!(p->alpha > 0 && p->alpha < 1) || p->code_scale < 0 || p->decay < 0 ||
              p->decay > 1 || p->escape <= 0 || !(p->code_prior >= 0 && p->code_prior <= 1) ||
              !(p->case_prior >= 0 && p->case_prior <= 1)))
        return CORE_EUSAGE;
    model_joint *md = model__new(m, NULL, p);
    choose_variants(md, train);
    mine(md, train);
    int rc = model__build_net(md, NULL);
    if (rc) {
        model_free(md);
        return rc;
    }
    *out = md;
    return 0;
}

int model_train_more(const model_joint *base, const model_mapper_snap *sn,
                     const model_follow_obs *obs, size_t nobs, uint64_t events, uint64_t cases,
                     model_joint **out)
{
    model_joint *md = model__new(base->m, sn, &base->p);
    md->remapped = base->remapped;
    if (md->A < base->A || md->V < base->V) {
        model_free(md);
        return CORE_EUSAGE; /* not the base's mapper */
    }
    /* Variant choices stay the base's; activities new since keep none. */
    memcpy(md->keep, base->keep, base->A);
    md->variants_kept = base->variants_kept;
    /* The base's contexts, in their order (so their numbers stay), with
     * variant tokens moved past the new activities. */
    pair_acc pa = {0};
    uint32_t t[MODEL_MAX_ORDER];
    for (uint32_t c = 0; c < base->C; c++) {
        const ctx_rec *r = &base->ctx.v[c];
        for (uint32_t i = 0; i < r->order; i++) {
            uint32_t x = base->toks.v[r->tok_off + i];
            t[i] = x >= base->A ? x - base->A + md->A : x;
        }
        uint32_t cx = model__ctx_add(md, r->level, t, r->order);
        for (uint32_t i = base->f_off[c]; i < base->f_off[c + 1]; i++)
            pair_add(&pa, cx, base->f_act[i], base->f_cnt[i]);
    }
    for (size_t i = 0; i < nobs; i++) {
        const model_follow_obs *ob = &obs[i];
        uint32_t o = ob->order < md->p.order ? ob->order : md->p.order;
        uint32_t act[MODEL_MAX_ORDER + 1], var[MODEL_MAX_ORDER + 1];
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
    int rc = model__build_net(md, sn);
    if (rc) {
        model_free(md);
        return rc;
    }
    *out = md;
    return 0;
}

void model_free(model_joint *md)
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
    free(md->code_off);
    free(md->code);
    free(md);
}

const model_params *model_get_params(const model_joint *md)
{
    return &md->p;
}

void model_get_stats(const model_joint *md, model_stats *out)
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

model_node_kind model_node(const model_joint *md, uint32_t node, uint32_t *id)
{
    if (node < md->S) {
        *id = node;
        return MODEL_NODE_SYMBOL;
    }
    if (node < md->S + md->A) {
        *id = node - md->S;
        return MODEL_NODE_ACTIVITY;
    }
    if (node < md->S + md->A + md->C) {
        *id = node - md->S - md->A;
        return MODEL_NODE_CONTEXT;
    }
    *id = 0;
    return MODEL_NODE_SINK;
}

void model_context_text(const model_joint *md, uint32_t c, core_buf *out)
{
    const ctx_rec *r = &md->ctx.v[c];
    for (uint32_t i = 0; i < r->order; i++) {
        uint32_t t = md->toks.v[r->tok_off + i];
        if (i)
            core_buf_puts(out, " > ");
        if (t >= md->A) {
            const char *text;
            map_mapper_variant(md->m, t - md->A, &text);
            core_buf_printf(out, "\"%s\"", text);
        } else {
            map_activity pa;
            map_mapper_activity(md->m, t, &pa);
            core_buf_printf(out, "[%s]", pa.text);
        }
    }
}

const char *model_edge_name(uint8_t type)
{
    if (type == MODEL_EDGE_FOLLOWS)
        return "follows";
    if (type == MODEL_EDGE_EMITS)
        return "emits";
    if (type == MODEL_EDGE_NEXT_SITE)
        return "next-site";
    if (type == MODEL_EDGE_IN_CASE)
        return "earlier-in-case";
    uint8_t base = type & (uint8_t)~PPR_REVERSE;
    if (base < GRAPH_EDGE__COUNT)
        return graph_edge_type_name((graph_edge_type)base);
    return "edge";
}

void model_node_text(const model_joint *md, uint32_t node, core_buf *b)
{
    uint32_t id;
    switch (model_node(md, node, &id)) {
    case MODEL_NODE_SYMBOL: {
        graph_symbol s;
        graph_get_symbol(md->g, id, &s);
        core_buf_printf(b, "%s", s.qualname);
        break;
    }
    case MODEL_NODE_ACTIVITY: {
        map_activity pa;
        map_mapper_activity(md->m, id, &pa);
        core_buf_puts(b, "activity \"");
        core_buf_oneline(b, pa.text, 80);
        core_buf_putc(b, '"');
        break;
    }
    case MODEL_NODE_CONTEXT: {
        core_buf t = {0};
        model_context_text(md, id, &t);
        core_buf_puts(b, "context ");
        core_buf_oneline(b, t.data ? t.data : "", 240);
        core_buf_free(&t);
        break;
    }
    default:
        core_buf_puts(b, "(sink)");
    }
}
