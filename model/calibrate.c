/*
 * Calibration (model.h, model_calibrate): a coordinate search over the
 * model's parameters scored by k-fold cross-validation inside train.
 */
#include "model_int.h"

#include <errno.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

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
    uint32_t code_act; /* the code's part: its activity and scale */
    double code_at;
    uint32_t ncase; /* the case's part: its entries (after the seeds) and scale */
    double case_at;
    model_pred pred[CMEMO_K];
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

/* model_rank with k = CMEMO_K, through the memo. */
static uint32_t cmemo_rank(const model_joint *md, model_work *w, calib_memo *mm,
                           const uint32_t *act, const uint32_t *var, uint32_t len, model_pred *out)
{
    model__make_seeds(md, w, act, var, len, true);
    if (w->nseeds == 0 && w->code_act == UINT32_MAX && !w->case_n)
        return 0;
    size_t bytes = w->nseeds * sizeof *w->seeds, cbytes = w->case_n * sizeof *w->case_e;
    uint64_t key = core_hash64(w->seeds, bytes, 0x6d656d6full);
    key = core_hash64(w->case_e, cbytes, key);
    key = core_hash64(&w->code_act, sizeof w->code_act, key);
    key = core_hash64(&w->code_at, sizeof w->code_at, key);
    key = core_hash64(&w->case_at, sizeof w->case_at, key);
    key = key == UINT64_MAX ? 0 : key;
    const uint64_t *v = core_map_get(&mm->index, key);
    if (v) {
        if (*v >= mm->ents.n) /* index and ents grow together */
            core_panic("calibration memo: entry %llu of %zu", (unsigned long long)*v, mm->ents.n);
        const cmemo_ent *e = &mm->ents.v[*v];
        const ppr_entry *kept = mm->seeds.v + e->seed_off;
        if (e->nseeds == w->nseeds && e->code_act == w->code_act && e->code_at == w->code_at &&
            e->ncase == w->case_n && e->case_at == w->case_at &&
            memcmp(kept, w->seeds, bytes) == 0 &&
            memcmp(kept + e->nseeds, w->case_e, cbytes) == 0) {
            memcpy(out, e->pred, e->np * sizeof *out);
            return e->np;
        }
    }
    ppr_opts o = model__push_opts(md);
    if (ppr_push(w->w, w->seeds, w->nseeds, &o, NULL) != 0)
        return 0;
    uint32_t np = model__collect(md, w, CMEMO_K, out);
    uint32_t nkept = w->nseeds + w->case_n;
    if (!v && mm->seeds.n + nkept <= CMEMO_MAX_SEEDS) {
        cmemo_ent e = {
            (uint32_t)mm->seeds.n, w->nseeds, np, w->code_act, w->code_at, w->case_n, w->case_at,
            {{0, 0, 0, 0}}};
        memcpy(e.pred, out, np * sizeof *out);
        core_vec_reserve(&mm->seeds, mm->seeds.n + nkept);
        memcpy(mm->seeds.v + mm->seeds.n, w->seeds, bytes);
        memcpy(mm->seeds.v + mm->seeds.n + w->nseeds, w->case_e, cbytes);
        mm->seeds.n += nkept;
        *core_map_put(&mm->index, key, NULL) = mm->ents.n;
        core_vec_push(&mm->ents, e);
    }
    return np;
}

/* Scores every prefix of val against the mapped symbols of its next
 * event (sums: pooled over folds by the caller). */
static int score_model(map_mapper *m, const model_joint *md, const model_seqs *val, val_score *out)
{
    memset(out, 0, sizeof *out);
    model_work *w;
    int rc = model_work_new(md, &w);
    if (rc)
        return rc;
    calib_memo mm = {0};
    model_pred pred[CMEMO_K];
    for (uint32_t c = 0; c < val->ncases; c++) {
        const uint32_t *act = val->act + val->off[c], *var = val->var + val->off[c];
        uint32_t len = val->off[c + 1] - val->off[c];
        for (uint32_t k = 1; k < len; k++) {
            out->n++;
            map_activity pa;
            if (act[k] >= md->A)
                continue;
            map_mapper_activity(m, act[k], &pa);
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
    model_work_free(w);
    return 0;
}

/* Trains on fit and scores val. */
static int validate(map_mapper *m, const model_seqs *fit, const model_seqs *val,
                    const model_params *p, val_score *out)
{
    memset(out, 0, sizeof *out);
    model_joint *md;
    int rc = model_train(m, fit, p, &md);
    if (rc)
        return rc;
    rc = score_model(m, md, val, out);
    model_free(md);
    return rc;
}

uint32_t model_folds(uint32_t ncases, uint32_t folds, uint32_t *bounds)
{
    uint32_t k = folds < 2 ? 2 : folds > MODEL_MAX_FOLDS ? MODEL_MAX_FOLDS : folds;
    if (k > ncases)
        k = ncases;
    for (uint32_t f = 0; f <= k; f++)
        bounds[f] = k ? (uint32_t)((uint64_t)ncases * f / k) : 0;
    return k;
}

/* One fold: val is its cases (a view of train), fit all the others (a
 * view when the fold is first or last, else a copy). */
typedef struct calib_fold {
    model_seqs fit, val;
    uint32_t *act, *var, *off; /* the copy, or NULL */
} calib_fold;

static void fold_make(const model_seqs *tr, uint32_t lo, uint32_t hi, calib_fold *f)
{
    memset(f, 0, sizeof *f);
    f->val = (model_seqs){tr->act, tr->var, tr->off + lo, hi - lo};
    if (lo == 0) {
        f->fit = (model_seqs){tr->act, tr->var, tr->off + hi, tr->ncases - hi};
        return;
    }
    if (hi == tr->ncases) {
        f->fit = (model_seqs){tr->act, tr->var, tr->off, lo};
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
    f->fit = (model_seqs){f->act, f->var, f->off, (uint32_t)nc};
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
    map_mapper *m;
    const calib_fold *folds;
    uint32_t K;
    const model_params *cand;
    uint32_t ntasks;
    val_score *res;             /* ncand x K */
    model_joint **train_out;    /* K: train the folds' models for cand[0] */
    model_joint *const *models; /* K: score on these, or NULL: train each */
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
            rc = model_train(j->m, &f->fit, j->cand, &j->train_out[t]);
        } else if (j->models) {
            model_joint view = *j->models[t % j->K];
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
    map_mapper *m;
    calib_fold folds[MODEL_MAX_FOLDS];
    uint32_t K;
    unsigned threads;
    uint32_t scored; /* candidates scored */
    const core_logger *log;
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
static int score_batch(calib_ctx *cx, const model_params *cand, uint32_t ncand, bool rank_only,
                       val_score *res)
{
    model_joint *models[MODEL_MAX_FOLDS] = {0};
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
        model_free(models[f]);
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

static bool same_params(const model_params *a, const model_params *b)
{
    return a->order == b->order && a->variant_ratio == b->variant_ratio &&
           a->variant_min == b->variant_min && a->alpha == b->alpha &&
           a->code_scale == b->code_scale && a->decay == b->decay && a->escape == b->escape &&
           a->code_prior == b->code_prior && a->case_prior == b->case_prior;
}

/* The parameters calibration scans, in this order, and the values each
 * may take. rank_only: read by ranking only (not by what is mined or
 * built), so one model per fold serves all its values. */
typedef enum {
    AXIS_CODE_PRIOR,
    AXIS_ORDER,
    AXIS_VARIANT_RATIO,
    AXIS_ALPHA,
    AXIS_CODE_SCALE,
    AXIS_DECAY,
    AXIS_ESCAPE,
    AXIS_CASE_PRIOR,
    AXIS__COUNT
} calib_axis;

static const double orders[] = {1, 2, 3, 4, 6, 8, 12};
static const double ratios[] = {0, 0.05, 0.2, 0.5, 1};
static const double alphas[] = {0.1, 0.3, 0.5, 0.8};
static const double scales[] = {0, 0.03, 0.1, 0.3, 1};
static const double decays[] = {0, 0.3, 0.6};
static const double escapes[] = {0.5, 1, 2};
static const double priors[] = {0, 0.25, 0.5, 0.75, 0.9};
static const double case_priors[] = {0, 0.5, 1};

static const struct {
    const char *name;
    const double *v;
    size_t n;
    bool rank_only;
} grid[AXIS__COUNT] = {
    [AXIS_CODE_PRIOR] = {"code_prior", priors, sizeof priors / sizeof *priors, true},
    [AXIS_ORDER] = {"order", orders, sizeof orders / sizeof *orders, false},
    [AXIS_VARIANT_RATIO] = {"variant_ratio", ratios, sizeof ratios / sizeof *ratios, false},
    [AXIS_ALPHA] = {"alpha", alphas, sizeof alphas / sizeof *alphas, true},
    [AXIS_CODE_SCALE] = {"code_scale", scales, sizeof scales / sizeof *scales, false},
    [AXIS_DECAY] = {"decay", decays, sizeof decays / sizeof *decays, true},
    [AXIS_ESCAPE] = {"escape", escapes, sizeof escapes / sizeof *escapes, true},
    [AXIS_CASE_PRIOR] = {"case_prior", case_priors, sizeof case_priors / sizeof *case_priors, true},
};

/* The most values a parameter has in grid. */
#define MAX_VALUES 8

/* p with one parameter set to v. */
static model_params with_value(const model_params *p, calib_axis axis, double v)
{
    model_params q = *p;
    switch (axis) {
    case AXIS_ORDER:
        q.order = (uint32_t)v;
        break;
    case AXIS_VARIANT_RATIO:
        q.variant_ratio = v;
        q.variant_min = v > 0 ? 8 : 0;
        break;
    case AXIS_ALPHA:
        q.alpha = v;
        break;
    case AXIS_CODE_SCALE:
        q.code_scale = v;
        break;
    case AXIS_DECAY:
        q.decay = v;
        break;
    case AXIS_CODE_PRIOR:
        q.code_prior = v;
        break;
    case AXIS_CASE_PRIOR:
        q.case_prior = v;
        break;
    default:
        q.escape = v;
        break;
    }
    return q;
}

/* The best parameters so far, their objective and their folds' scores. */
typedef struct calib_best {
    model_params p;
    double obj;
    val_score r[MODEL_MAX_FOLDS];
} calib_best;

/* Scores the starting parameters, best->p, and logs them. */
static int score_start(calib_ctx *cx, uint32_t ncases, calib_best *best)
{
    int rc = score_batch(cx, &best->p, 1, false, best->r);
    if (rc)
        return rc;
    val_score s = pooled(best->r, cx->K);
    best->obj = objective(&s);
    char folds_txt[MODEL_MAX_FOLDS * 8 + 1];
    fold_text(best->r, cx->K, folds_txt, sizeof folds_txt);
    core_logf(cx->log, CORE_LOG_INFO,
              "calibration: %u-fold cross-validation over %u cases (%llu prefixes), %u threads: "
              "start top-1 %.4f mrr %.4f (folds %s)",
              cx->K, ncases, (unsigned long long)s.n, cx->threads, frac_of(s.top1, s.n),
              frac_of(s.mrr, s.n), folds_txt);
    return 0;
}

/*
 * Every value of one parameter against best: *improved when one beats it
 * (best is then the last that did). The values are scored together (in
 * parallel); choosing among them in order afterwards gives what scoring
 * them one after the other would: each differs from the best only in this
 * parameter.
 */
static int scan_axis(calib_ctx *cx, calib_axis axis, calib_best *best, bool *improved)
{
    model_params cand[MAX_VALUES];
    double cand_v[MAX_VALUES];
    val_score res[MAX_VALUES * MODEL_MAX_FOLDS];
    uint32_t nc = 0;
    for (size_t vi = 0; vi < grid[axis].n && nc < MAX_VALUES; vi++) {
        model_params q = with_value(&best->p, axis, grid[axis].v[vi]);
        if (same_params(&q, &best->p))
            continue;
        cand_v[nc] = grid[axis].v[vi];
        cand[nc++] = q;
    }
    *improved = false;
    if (!nc)
        return 0;
    int rc = score_batch(cx, cand, nc, grid[axis].rank_only, res);
    if (rc)
        return rc;
    for (uint32_t ci = 0; ci < nc; ci++) {
        val_score s = pooled(res + (size_t)ci * cx->K, cx->K);
        double obj = objective(&s);
        /* Strictly better by a margin: ties keep the simpler, earlier
         * value. */
        if (obj <= best->obj + 1e-4)
            continue;
        best->obj = obj;
        best->p = cand[ci];
        memcpy(best->r, res + (size_t)ci * cx->K, cx->K * sizeof *best->r);
        *improved = true;
        char folds_txt[MODEL_MAX_FOLDS * 8 + 1];
        fold_text(best->r, cx->K, folds_txt, sizeof folds_txt);
        core_logf(cx->log, CORE_LOG_INFO, "calibration: %s=%g -> top-1 %.4f mrr %.4f (folds %s)",
                  grid[axis].name, cand_v[ci], frac_of(s.top1, s.n), frac_of(s.mrr, s.n),
                  folds_txt);
    }
    return 0;
}

/* A coordinate search: each parameter in turn, for two rounds at most. A
 * parameter scanned since best last changed is not scanned again: the
 * same candidates would score the same, and none beat best. */
static int search(calib_ctx *cx, calib_best *best)
{
    uint32_t step = 0, last_change = 0, last_scan[AXIS__COUNT] = {0};
    for (int round = 0; round < 2; round++) {
        bool changed = false;
        for (int axis = 0; axis < AXIS__COUNT; axis++) {
            step++;
            if (round > 0 && last_scan[axis] >= last_change)
                continue;
            last_scan[axis] = step;
            bool improved;
            int rc = scan_axis(cx, (calib_axis)axis, best, &improved);
            if (rc)
                return rc;
            if (improved) {
                changed = true;
                last_change = step;
            }
        }
        if (!changed)
            break;
    }
    return 0;
}

/* The chosen parameters, their score and its spread over the folds. */
static void log_choice(const calib_ctx *cx, const calib_best *best, uint64_t t0)
{
    val_score s = pooled(best->r, cx->K);
    double lo = 1, hi = 0, mean = 0, sd = 0;
    for (uint32_t f = 0; f < cx->K; f++) {
        double x = frac_of(best->r[f].top1, best->r[f].n);
        lo = x < lo ? x : lo;
        hi = x > hi ? x : hi;
        mean += x / cx->K;
    }
    for (uint32_t f = 0; f < cx->K; f++) {
        double d = frac_of(best->r[f].top1, best->r[f].n) - mean;
        sd += d * d / cx->K;
    }
    char folds_txt[MODEL_MAX_FOLDS * 8 + 1];
    fold_text(best->r, cx->K, folds_txt, sizeof folds_txt);
    const model_params *p = &best->p;
    core_logf(cx->log, CORE_LOG_INFO,
              "calibration: chose order %u, variant_ratio %g, alpha %g, code_scale %g, decay %g, "
              "escape %g, code_prior %g, case_prior %g: top-1 %.4f mrr %.4f; per fold top-1 %s "
              "(min %.4f, max "
              "%.4f, sd %.4f); %u candidates x %u folds in %.2f s",
              p->order, p->variant_ratio, p->alpha, p->code_scale, p->decay, p->escape,
              p->code_prior, p->case_prior, frac_of(s.top1, s.n), frac_of(s.mrr, s.n), folds_txt,
              lo, hi, sqrt(sd), cx->scored, cx->K, (double)(core_now_ns() - t0) / 1e9);
}

int model_calibrate(map_mapper *m, const model_seqs *train, uint32_t min_cases, model_params *p,
                    const core_logger *log)
{
    if (train->ncases < min_cases || train->ncases < 4) {
        core_logf(log, CORE_LOG_INFO,
                  "calibration skipped: %u training cases (below %u), defaults kept", train->ncases,
                  min_cases);
        return 0;
    }
    uint64_t t0 = core_now_ns();
    calib_ctx cx = {.m = m, .log = log};
    uint32_t bounds[MODEL_MAX_FOLDS + 1];
    uint32_t K = model_folds(train->ncases, p->calibrate_folds, bounds);
    for (uint32_t f = 0; f < K; f++)
        fold_make(train, bounds[f], bounds[f + 1], &cx.folds[f]);
    cx.K = K;
    cx.threads = p->calibrate_threads ? p->calibrate_threads : core_ncpus();
    /* The search starts without the code's share and scans it first: the
     * code must earn it on these traces by a margin, and where it does
     * not, every other parameter is chosen as it was without it. (The
     * configured share is for too few traces to calibrate on.) */
    calib_best best = {.p = *p};
    best.p.code_prior = 0;
    int rc = score_start(&cx, train->ncases, &best);
    if (rc == 0)
        rc = search(&cx, &best);
    if (rc == 0) {
        log_choice(&cx, &best, t0);
        *p = best.p;
    }
    for (uint32_t f = 0; f < cx.K; f++)
        fold_free(&cx.folds[f]);
    return rc;
}
