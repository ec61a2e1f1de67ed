/*
 * Ranking the next emitters (model.h): the seeds of a prefix, the walk,
 * the symbols it reaches; the streaming form with warm-started case
 * vectors and its memo of context pushes.
 */
#include "model_int.h"

#include <stdlib.h>

/* ---- ranking ---- */

int model_work_new(const model_joint *md, model_work **out)
{
    model_work *w = core_xcalloc(1, sizeof *w);
    w->md = md;
    int rc = ppr_work_new(md->net, &w->w);
    if (rc) {
        free(w);
        return rc;
    }
    w->cap = 2 * MODEL_MAX_ORDER + RECENCY_WINDOW;
    w->seeds = core_xmalloc(w->cap * sizeof *w->seeds);
    w->topcap = 64;
    w->top = core_xmalloc(w->topcap * sizeof *w->top);
    w->code_act = UINT32_MAX;
    *out = w;
    return 0;
}

void model_work_free(model_work *w)
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
    model__code_scratch_free(&w->code_cs);
    free(w);
}

uint32_t model_seeds(const model_work *w, const ppr_entry **seeds)
{
    *seeds = w->seeds;
    return w->nseeds;
}

/* What a part of the last ranking added after the walk (the code's, the
 * case's own: entries e[0..n) at scale at) gave symbol, and the weight of
 * its entry. */
static double part_given(const ppr_entry *e, uint32_t n, double at, uint32_t symbol, float *weight)
{
    for (uint32_t i = 0; i < n; i++)
        if (e[i].node == symbol) {
            *weight = e[i].score;
            return at * e[i].score;
        }
    return 0;
}

/* The node a one-step explanation starts from: the activity, or, for
 * one the model has no node for, the symbol that logged it. */
static uint32_t step_from(const model_joint *md, uint32_t act, uint32_t symbol)
{
    if (act < md->A)
        return md->S + act;
    map_activity pa;
    map_mapper_activity(md->m, act, &pa);
    return pa.nsyms ? pa.syms[0] : symbol;
}

int model_explain(const model_joint *md, model_work *w, uint32_t symbol, uint32_t max_visits,
                  ppr_path *out)
{
    int rc = w->nseeds
                 ? ppr_explain(w->w, w->seeds, w->nseeds, symbol, md->p.alpha, max_visits, out)
                 : CORE_ENOTFOUND;
    float cweight = 0, kweight = 0;
    double code = part_given(w->code_e, w->code_n, w->code_at, symbol, &cweight);
    double own = part_given(w->case_e, w->case_n, w->case_at, symbol, &kweight);
    double walk = rc == 0 ? out->contribution : 0;
    if (!(code > walk) && !(own > walk))
        return rc;
    /* One step: the code's (next-site) or the case's own (what followed
     * the last activity earlier in it), whichever gave more. */
    bool by_code = code >= own;
    uint32_t from = step_from(md, by_code ? w->code_act : w->case_act, symbol);
    memset(out, 0, sizeof *out);
    out->seed = from;
    out->len = 1;
    out->steps[0] = (ppr_step){from, symbol, by_code ? MODEL_EDGE_NEXT_SITE : MODEL_EDGE_IN_CASE,
                               by_code ? cweight : kweight};
    out->contribution = by_code ? code : own;
    double score = ppr_work_score(w->w, symbol);
    out->share = score > 0 ? out->contribution / score : 0;
    return 0;
}

/* The tokens of a prefix's longest context window at both levels (the
 * window of order o is the last o of them); returns its order. The
 * contexts' seeds depend on nothing else.
 *
 * A model re-mapped onto a new release has no node for what the release
 * added, and after such an event its contexts know nothing (a window is
 * usable only up to the first unknown token from the end). What comes
 * next is most likely what came next without it: the release put the
 * event into a path the model knows. So the window of such a model ends
 * before the unknown events that end the prefix (the recency and code
 * parts still see them). Only those that end it: an unknown event deeper
 * in the window still cuts it, since the known events after it may be
 * new steps of the same added path, which the longer context would take
 * for the old ones. */
static uint32_t window_tokens(const model_joint *md, const uint32_t *act, const uint32_t *var,
                              uint32_t len, uint32_t *tv, uint32_t *ta)
{
    if (md->remapped)
        while (len > 1 && act[len - 1] >= md->A)
            len--;
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
static double context_seeds(const model_joint *md, model_work *w, const uint32_t *tv,
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
    } q[2 * MODEL_MAX_ORDER];
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
    uint32_t cs[2 * MODEL_MAX_ORDER];
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
        if (c == UINT32_MAX || !model__ctx_is(md, c, q[i].level, q[i].t, q[i].o) ||
            md->ctx.v[c].n == 0)
            continue;
        const ctx_rec *r = &md->ctx.v[c];
        double lam = r->n / (r->n + md->p.escape * r->u);
        w->seeds[w->nseeds++] = (ppr_entry){md->S + md->A + c, (float)(rem * lam)};
        rem *= 1 - lam;
    }
    return rem;
}

/* The code's successors of a site account for part of where the flow
 * leaving it goes; the rest is what the graph cannot follow (the end of
 * the case, calls out of the repository, callbacks a library runs). When
 * they account for at least this much, they are taken as where the case
 * goes next, and take their whole share; below it, in proportion, so that
 * a site whose flow the code follows only into an error path or two is
 * not sent there. */
#define CODE_SURE 0.25

/*
 * The code's part of a ranking after a prefix whose last activity is
 * last, given the weight rem the contexts left: a share code_prior of it
 * (less where the code knows little: CODE_SURE) goes to the symbols the
 * code says can log next, in the proportions the code gives them (added
 * after the walk at the scale of a seed on an activity: one step, as the
 * next emitters of a context are reached). With no traces this decides
 * between the current emitter again (recency) and where the code goes:
 * taken at face value, the code's probabilities, which sum to less than
 * 1, left recency the larger part nearly everywhere, and a change of
 * function was almost never ranked first. Returns what is left to
 * recency.
 */
static double code_split(const model_joint *md, model_work *w, uint32_t last, double rem)
{
    w->code_act = UINT32_MAX;
    w->code_at = 0;
    w->code_n = 0;
    if (!(rem > 0) || !(md->p.code_prior > 0))
        return rem;
    const ppr_entry *e;
    uint32_t n = model__code_of(md, w, last, &e);
    double a = md->p.alpha, known = 0;
    for (uint32_t i = 0; i < n; i++)
        known += e[i].score;
    if (!(known > 0))
        return rem;
    double sure = known < CODE_SURE ? known / CODE_SURE : 1;
    w->code_act = last;
    w->code_e = e;
    w->code_n = n;
    w->code_at = rem * md->p.code_prior * a * (1 - a) * sure / known;
    return rem * (1 - md->p.code_prior * sure);
}

/*
 * The case's own part of a ranking: what followed the last event's
 * activity the times it came earlier in the case (within the last
 * MODEL_CASE_WINDOW events, all a daemon keeps of a case), as a cache
 * language model keeps a document's own words beside the corpus's. A
 * long-running case (a connection, a worker, a session) goes round the
 * same steps, and the first time round teaches the next, with or without
 * a single trained trace. It takes, of the weight the contexts left, a
 * Witten-Bell share (n / (n + escape u): n earlier times, u different
 * activities after them) times case_prior, added after the walk as the
 * code's part is; returns what is left.
 */
static double case_split(const model_joint *md, model_work *w, const uint32_t *act, uint32_t len,
                         double rem)
{
    w->case_n = 0;
    w->case_at = 0;
    if (!(rem > 0) || !(md->p.case_prior > 0) || len < 2 || act[len - 1] == UINT32_MAX)
        return rem;
    uint32_t last = act[len - 1], nact = map_mapper_nactivities(md->m);
    w->case_act = last;
    uint32_t lo = len > MODEL_CASE_WINDOW ? len - MODEL_CASE_WINDOW : 0;
    uint32_t seen[MODEL_CASE_WINDOW], u = 0, n = 0;
    for (uint32_t j = lo; j + 1 < len; j++) {
        uint32_t b = act[j + 1];
        if (act[j] != last || b >= nact)
            continue;
        map_activity pa;
        map_mapper_activity(md->m, b, &pa);
        double sum = 0;
        for (uint32_t i = 0; i < pa.nsyms; i++)
            sum += pa.syms[i] < md->S && pa.conf[i] > 0 ? pa.conf[i] : 0;
        if (!(sum > 0))
            continue;
        n++;
        uint32_t k = 0;
        while (k < u && seen[k] != b)
            k++;
        if (k == u)
            seen[u++] = b;
        for (uint32_t i = 0; i < pa.nsyms; i++) {
            if (pa.syms[i] >= md->S || !(pa.conf[i] > 0))
                continue;
            uint32_t e = 0;
            while (e < w->case_n && w->case_e[e].node != pa.syms[i])
                e++;
            if (e == w->case_n) {
                if (w->case_n == CASE_MAX)
                    continue;
                w->case_e[w->case_n++] = (ppr_entry){pa.syms[i], 0};
            }
            w->case_e[e].score += (float)(pa.conf[i] / sum);
        }
    }
    if (!n || !w->case_n)
        return rem;
    for (uint32_t e = 0; e < w->case_n; e++)
        w->case_e[e].score /= (float)n;
    double lam = md->p.case_prior * n / (n + md->p.escape * u), a = md->p.alpha;
    w->case_at = rem * lam * a * (1 - a);
    return rem * (1 - lam);
}

/* Adds the parts added after the walk (the code's, the case's own) to
 * its estimate. */
static void parts_add(model_work *w)
{
    if (w->code_n)
        ppr_work_add(w->w, w->code_e, w->code_n, w->code_at);
    if (w->case_n)
        ppr_work_add(w->w, w->case_e, w->case_n, w->case_at);
}

/*
 * The seeds of a prefix: contexts (Witten-Bell weights), then, with
 * recency, the case's own part and the code's (case_split, code_split:
 * the work keeps them, for model__collect to add) and the prefix's own
 * activities. Returns the weight left to the recency part (what the
 * contexts, the case and the code did not take).
 */
double model__make_seeds(const model_joint *md, model_work *w, const uint32_t *act,
                         const uint32_t *var, uint32_t len, bool recency)
{
    uint32_t tv[MODEL_MAX_ORDER], ta[MODEL_MAX_ORDER];
    uint32_t omax = window_tokens(md, act, var, len, tv, ta);
    double rem = context_seeds(md, w, tv, ta, omax);
    w->code_act = UINT32_MAX;
    w->code_n = 0;
    w->case_n = 0;
    if (recency && len > 0) {
        rem = case_split(md, w, act, len, rem);
        rem = code_split(md, w, act[len - 1], rem);
    }
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
uint32_t model__collect(const model_joint *md, model_work *w, uint32_t k, model_pred *out)
{
    parts_add(w);
    if (k > w->topcap) {
        w->topcap = k;
        w->top = core_xrealloc(w->top, k * sizeof *w->top);
    }
    const uint32_t *touched;
    const double *p;
    uint32_t nt = ppr_work_touched(w->w, &touched, &p);
    uint32_t h = 0;
    if (k <= 64) {
        /* Few: kept sorted, best first, by insertion (most candidates do
         * not beat the last). The k best in this order are the same
         * whatever the way to them. */
        ppr_entry *top = w->top;
        for (uint32_t i = 0; i < nt; i++) {
            uint32_t u = touched[i];
            if (u >= md->S || !md->rankable[u] || !(p[u] > 0))
                continue;
            ppr_entry c = {u, (float)p[u]};
            if (h == k && !score_before(&c, &top[h - 1]))
                continue;
            uint32_t j = h < k ? h++ : h - 1;
            for (; j > 0 && score_before(&c, &top[j - 1]); j--)
                top[j] = top[j - 1];
            top[j] = c;
        }
    } else {
        for (uint32_t i = 0; i < nt; i++) {
            uint32_t u = touched[i];
            if (u >= md->S || !md->rankable[u] || !(p[u] > 0))
                continue;
            ppr_heap_offer(w->top, &h, k, (ppr_entry){u, (float)p[u]});
        }
        ppr_sort_by_score(w->top, h);
    }
    for (uint32_t i = 0; i < h; i++) {
        uint32_t s = w->top[i].node;
        double best = 0;
        uint32_t arg = UINT32_MAX;
        for (uint32_t j = md->sa_off[s]; j < md->sa_off[s + 1]; j++) {
            double x = p[md->S + md->sa_act[j]] * md->sa_conf[j];
            if (x > best) {
                best = x;
                arg = md->sa_act[j];
            }
        }
        out[i] = (model_pred){s, w->top[i].score, arg, UINT32_MAX};
    }
    return h < k ? model__fill_ranks(md, w, h, k, out) : h;
}

ppr_opts model__push_opts(const model_joint *md)
{
    ppr_opts o = ppr_opts_default();
    o.alpha = md->p.alpha;
    o.eps = 1e-7;
    return o;
}

uint32_t model_rank(const model_joint *md, model_work *w, const uint32_t *act, const uint32_t *var,
                    uint32_t len, uint32_t k, model_pred *out)
{
    if (len == 0 || k == 0)
        return 0;
    model__make_seeds(md, w, act, var, len, true);
    if (w->nseeds == 0 && w->code_act == UINT32_MAX && !w->case_n)
        return 0;
    ppr_opts o = model__push_opts(md);
    if (ppr_push(w->w, w->seeds, w->nseeds, &o, NULL) != 0)
        return 0;
    return model__collect(md, w, k, out);
}

/* ---- streaming: warm-started case vectors ---- */

int model_stream_prepare(model_joint *md, uint32_t M, unsigned threads)
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
    ppr_opts o = model__push_opts(md);
    int rc = ppr_basis_build(md->net, nodes, md->A, M, &o, threads ? threads : 1, &md->act_basis);
    free(nodes);
    if (rc)
        return rc;
    md->state_M = M;
    return 0;
}

size_t model_stream_bytes(const model_joint *md)
{
    return md->act_basis ? ppr_basis_bytes(md->act_basis) : 0;
}

size_t model_bytes(const model_joint *md)
{
    if (!md)
        return 0;
    size_t b = sizeof *md + md->A + md->S; /* keep, rankable */
    b += core_map_bytes(&md->ctx_index) + core_vec_bytes(md->ctx) + core_vec_bytes(md->toks);
    if (md->f_off)
        b += ((size_t)md->C + 1 + 2 * (size_t)md->f_off[md->C]) * sizeof(uint32_t);
    if (md->sa_off)
        b += ((size_t)md->S + 1 + (size_t)md->sa_off[md->S]) * sizeof(uint32_t) +
             (size_t)md->sa_off[md->S] * sizeof(float);
    if (md->code_off)
        b += ((size_t)md->A + 1) * sizeof(uint32_t) + md->code_off[md->A] * sizeof(ppr_entry);
    if (md->net)
        b += ppr_net_bytes(md->net);
    return b + model_stream_bytes(md);
}

int model_advance(const model_joint *md, model_work *w, ppr_vec *rec, double *wsum, uint32_t act)
{
    double c = md->p.decay;
    ppr_opts o = model__push_opts(md);
    map_activity pa = {0};
    if (act >= md->A && act != UINT32_MAX && act < map_mapper_nactivities(md->m))
        map_mapper_activity(md->m, act, &pa);
    double sum = 0;
    for (uint32_t i = 0; i < pa.nsyms; i++)
        sum += pa.syms[i] < md->S && pa.conf[i] > 0 ? pa.conf[i] : 0;
    if (act >= md->A && sum > 0) {
        /* No node, but the mapper knows its symbols: the seed it would
         * be, one step on (the emits edges, by confidence), from each
         * symbol. */
        double c1 = c;
        for (uint32_t i = 0; i < pa.nsyms; i++) {
            if (pa.syms[i] >= md->S || !(pa.conf[i] > 0))
                continue;
            double beta = (1 - md->p.alpha) * pa.conf[i] / sum;
            int rc = ppr_state_advance(rec, pa.syms[i], c1, beta, md->act_basis, w->w, &o);
            if (rc)
                return rc;
            c1 = 1;
        }
        *wsum = c * *wsum + 1.0;
        return 0;
    }
    if (act >= md->A) {
        /* Nothing known of it: the activities before it age all the same. */
        for (uint32_t i = 0; i < rec->n; i++)
            rec->e[i].score = (float)(rec->e[i].score * c);
        rec->err *= c;
        *wsum *= c;
        if (c == 0)
            rec->n = 0;
        return 0;
    }
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

size_t model_work_bytes(const model_work *w)
{
    if (!w)
        return 0;
    size_t b =
        sizeof *w + ppr_work_bytes(w->w) + w->cap * sizeof *w->seeds + w->topcap * sizeof *w->top;
    if (w->memo)
        b += MEMO_SLOTS * sizeof *w->memo + MEMO_WORDS * sizeof *w->arena;
    if (w->fill_acc)
        b += (size_t)w->fill_md->S *
             (sizeof *w->fill_acc + sizeof *w->fill_hopm + sizeof *w->fill_from +
              sizeof *w->fill_nb_off + sizeof *w->fill_nb_n);
    b += core_vec_bytes(w->fill_nbs) + core_vec_bytes(w->fill_set) +
         core_vec_bytes(w->fill_hop[0]) + core_vec_bytes(w->fill_hop[1]);
    if (w->code_cs.acc)
        b += (size_t)w->md->S * sizeof *w->code_cs.acc;
    return b + core_vec_bytes(w->code_cs.sites) + core_vec_bytes(w->code_cs.touched);
}

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
static const memo_entry *memo_find(const model_work *w, uint64_t h, const uint32_t *tv,
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
static void memo_replay(model_work *w, const memo_entry *e)
{
    const double *p = (const double *)((const uint32_t *)(e + 1) + 2 * e->omax);
    const ppr_entry *seeds = (const ppr_entry *)(p + e->ntouched);
    const uint32_t *nodes = (const uint32_t *)(seeds + e->nseeds);
    memcpy(w->seeds, seeds, e->nseeds * sizeof *seeds);
    w->nseeds = e->nseeds;
    ppr_work_load(w->w, nodes, p, e->ntouched, e->err);
}

/* Keeps the push just made from the work's seeds for this window. */
static void memo_store(model_work *w, uint64_t h, const uint32_t *tv, const uint32_t *ta,
                       uint32_t omax, double rem, double err)
{
    const uint32_t *touched;
    const double *est;
    uint32_t nt = ppr_work_touched(w->w, &touched, &est);
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
    *e = (memo_entry){rem, err, omax, w->nseeds, nt, 0};
    uint32_t *t = (uint32_t *)(e + 1);
    memcpy(t, tv, omax * sizeof *tv);
    memcpy(t + omax, ta, omax * sizeof *ta);
    double *p = (double *)(t + 2 * omax);
    ppr_entry *seeds = (ppr_entry *)(p + nt);
    uint32_t *nodes = (uint32_t *)(seeds + w->nseeds);
    for (uint32_t i = 0; i < nt; i++)
        p[i] = est[touched[i]];
    memcpy(seeds, w->seeds, w->nseeds * sizeof *seeds);
    memcpy(nodes, touched, nt * sizeof *nodes);
    w->memo[h & (MEMO_SLOTS - 1)] = (memo_slot){h, w->ring | (uint64_t)words << 48};
    w->ring += words;
}

uint32_t model_rank_warm(const model_joint *md, model_work *w, const uint32_t *act,
                         const uint32_t *var, uint32_t len, const ppr_vec *rec, double wsum,
                         uint32_t k, model_pred *out)
{
    if (len == 0 || k == 0)
        return 0;
    /* The contexts' part by a push (no seeds: an empty estimate), then the
     * recency part from the case's vector, by linearity. */
    uint32_t tv[MODEL_MAX_ORDER], ta[MODEL_MAX_ORDER];
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
        ppr_opts o = model__push_opts(md);
        ppr_stats st;
        if (ppr_push(w->w, w->seeds, w->nseeds, &o, &st) != 0)
            return 0;
        if (memo)
            memo_store(w, h, tv, ta, omax, rem, st.error_bound);
    }
    rem = case_split(md, w, act, len, rem);
    rem = code_split(md, w, act[len - 1], rem);
    if (rem > 0 && wsum > 0 && rec && rec->n)
        ppr_work_add(w->w, rec->e, rec->n, rem / wsum);
    return model__collect(md, w, k, out);
}
