/*
 * Scoring rankings against the truth (eval.h).
 */
#include "eval.h"

#include <string.h>

const unsigned eval_ks[EVAL_NK] = {1, 3, 5, 10};

bool eval_path_match(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    while (la > 2 && a[0] == '.' && a[1] == '/')
        a += 2, la -= 2;
    while (lb > 2 && b[0] == '.' && b[1] == '/')
        b += 2, lb -= 2;
    if (la == 0 || lb == 0)
        return false;
    const char *lo = la <= lb ? a : b, *hi = la <= lb ? b : a;
    size_t n = la <= lb ? la : lb, m = la <= lb ? lb : la;
    if (strcmp(hi + m - n, lo) != 0)
        return false;
    return n == m || hi[m - n - 1] == '/';
}

int eval_truth_rank(const graph *g, const uint32_t *syms, uint32_t n, const char *tfile,
                    uint32_t tline)
{
    for (uint32_t i = 0; i < n && i < 10; i++) {
        graph_symbol s;
        graph_get_symbol(g, syms[i], &s);
        if (s.start_line <= tline && tline <= s.end_line && eval_path_match(s.file, tfile))
            return (int)i + 1;
    }
    return 0;
}

void eval_ranks_add(eval_ranks *r, int rank)
{
    r->n++;
    if (rank <= 0)
        return;
    for (int i = 0; i < EVAL_NK; i++)
        if ((unsigned)rank <= eval_ks[i])
            r->hit[i]++;
    r->rr += 1.0 / rank;
}

double eval_ranks_top(const eval_ranks *r, int i)
{
    return r->n ? (double)r->hit[i] / (double)r->n : 0;
}

double eval_ranks_mrr(const eval_ranks *r)
{
    return r->n ? r->rr / (double)r->n : 0;
}

/* Whether event i's emitting function differs from event i-1's. */
static bool is_change(const model_log *l, uint32_t i)
{
    const model_log_event *p = &l->ev[i - 1], *e = &l->ev[i];
    return p->tfile != e->tfile || p->tfunc != e->tfunc;
}

/* The key of a transition: an activity, then a true emitter (its file
 * and function, strings of the log). */
static uint64_t transition_key(uint32_t act, const model_log_event *next)
{
    uint64_t h = core_hash_u64(((uint64_t)act << 32) | next->tfile);
    h = core_hash_u64(h ^ next->tfunc);
    return h == UINT64_MAX ? 0 : h;
}

/* The transitions the training cases show. */
static void seen_transitions(const model_log *l, core_map *seen)
{
    for (uint32_t c = 0; c < l->ntrain; c++)
        for (uint32_t i = l->off[c] + 1; i < l->off[c + 1]; i++)
            core_map_put(seen, transition_key(l->act[i - 1], &l->ev[i]), NULL);
}

int eval_run(const map_mapper *m, const model_log *l, const model_joint *md, eval_baselines *b,
             const uint8_t *added, eval_result *r)
{
    memset(r, 0, sizeof *r);
    const graph *g = map_mapper_graph(m);
    model_work *w;
    int rc = model_work_new(md, &w);
    if (rc)
        return rc;
    core_map seen = {0};
    seen_transitions(l, &seen);
    model_pred pred[10];
    uint32_t syms[10];
    for (uint32_t c = l->ntrain; c < l->ncases; c++) {
        uint32_t o = l->off[c], len = l->off[c + 1] - o;
        for (uint32_t k = 1; k < len; k++) {
            const model_log_event *t = &l->ev[o + k];
            const char *tfile = model_log_str(l, t->tfile);
            bool ch = is_change(l, o + k);
            bool unseen = !core_map_get(&seen, transition_key(l->act[o + k - 1], t));
            uint32_t np = model_rank(md, w, l->act + o, l->var + o, k, 10, pred);
            for (uint32_t i = 0; i < np; i++)
                syms[i] = pred[i].symbol;
            if (np == 0)
                r->unpredictable++;
            int rank = eval_truth_rank(g, syms, np, tfile, t->tline);
            eval_ranks_add(&r->all, rank);
            if (ch)
                eval_ranks_add(&r->change, rank);
            if (unseen)
                eval_ranks_add(&r->unseen, rank);
            if (added && added[o + k])
                eval_ranks_add(&r->added, rank);
            if (!b)
                continue;
            for (int bl = 0; bl < EVAL_BL__COUNT; bl++) {
                uint32_t n = eval_baseline_rank(b, (eval_baseline)bl, l->act + o, k, syms);
                rank = eval_truth_rank(g, syms, n, tfile, t->tline);
                eval_ranks_add(&r->bl_all[bl], rank);
                if (ch)
                    eval_ranks_add(&r->bl_change[bl], rank);
                if (unseen)
                    eval_ranks_add(&r->bl_unseen[bl], rank);
            }
        }
    }
    core_map_free(&seen);
    model_work_free(w);
    return 0;
}

/* df2 trained on the first k training cases of l (mapped by m), scored on
 * its test cases. */
static int df2_at(const map_mapper *m, const model_log *l, uint32_t k, eval_ranks *all,
                  eval_ranks *change)
{
    const graph *g = map_mapper_graph(m);
    model_seqs tr = {l->act, l->var, l->off, k};
    eval_baselines *b;
    int rc = eval_baselines_new(g, m, &tr, &b);
    if (rc)
        return rc;
    uint32_t syms[10];
    for (uint32_t c = l->ntrain; c < l->ncases; c++) {
        uint32_t o = l->off[c], len = l->off[c + 1] - o;
        for (uint32_t i = 1; i < len; i++) {
            const model_log_event *t = &l->ev[o + i];
            uint32_t n = eval_baseline_rank(b, EVAL_BL_DF2, l->act + o, i, syms);
            int rank = eval_truth_rank(g, syms, n, model_log_str(l, t->tfile), t->tline);
            eval_ranks_add(all, rank);
            if (is_change(l, o + i))
                eval_ranks_add(change, rank);
        }
    }
    eval_baselines_free(b);
    return 0;
}

int eval_learning_curve(map_mapper *m, const model_log *l, const model_train_opts *to,
                        const map_mapper *mt, const model_log *lt, const uint32_t *n,
                        uint32_t count, eval_curve_point *out)
{
    /* The true emitters' log must be the same cases in the same order. */
    bool with_true =
        mt && lt && lt->ncases == l->ncases && lt->ntrain == l->ntrain && lt->nevents == l->nevents;
    int rc = 0;
    for (uint32_t i = 0; i < count && !rc; i++) {
        eval_curve_point *pt = &out[i];
        /* The first n[i] training cases: the earliest. */
        uint32_t k = n[i] > l->ntrain ? l->ntrain : n[i];
        if (i > 0 && out[i - 1].cases == k) {
            *pt = out[i - 1]; /* fewer training cases than asked: the same point */
            continue;
        }
        memset(pt, 0, sizeof *pt);
        model_seqs tr = {l->act, l->var, l->off, k};
        model_params p = to->params;
        if (to->calibrate)
            rc = model_calibrate(m, &tr, to->calibrate_min_cases, &p, NULL);
        model_joint *md;
        if (!rc)
            rc = model_train(m, &tr, &p, &md);
        if (rc)
            break;
        eval_result r;
        rc = eval_run(m, l, md, NULL, NULL, &r);
        model_free(md);
        pt->cases = k;
        pt->all = r.all;
        pt->change = r.change;
        if (!rc)
            rc = df2_at(m, l, k, &pt->df2_all, &pt->df2_change);
        if (!rc && with_true)
            rc = df2_at(mt, lt, k, &pt->true_all, &pt->true_change);
    }
    return rc;
}
