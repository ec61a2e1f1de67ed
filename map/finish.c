/*
 * The mapper's deferred strategies (map.h, map_mapper_finish): what the
 * messages no template matched resolve to once every event was seen. In
 * order, code attributes, constants, functions that format what their
 * callers log, positions among the case's neighbours, loggers, and the
 * external command; then the weights of duplicate groups.
 */
#include "mapper_int.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_nb(const void *a, const void *b)
{
    const nb_rec *x = a, *y = b;
    if (x->act != y->act)
        return x->act < y->act ? -1 : 1;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    return (x->nb > y->nb) - (x->nb < y->nb);
}

static void apply_code_votes(map_mapper *m)
{
    if (m->votes.n == 0)
        return;
    nb_rec *v = core_xmalloc(m->votes.n * sizeof *v);
    memcpy(v, m->votes.v, m->votes.n * sizeof *v);
    qsort(v, m->votes.n, sizeof *v, cmp_nb);
    for (size_t i = 0; i < m->votes.n;) {
        size_t j = i;
        uint64_t total = 0;
        while (j < m->votes.n && v[j].act == v[i].act)
            total += v[j++].count;
        uint32_t s[MAX_CAND];
        float c[MAX_CAND];
        uint32_t n = 0;
        for (size_t k = i; k < j && n < MAX_CAND; k++) {
            s[n] = v[k].nb;
            c[n++] = (float)((double)v[k].count / (double)total);
        }
        map__activity_set_syms(m, v[i].act, MAP_BY_CODE, s, c, n);
        m->acts.v[v[i].act].tried = true;
        i = j;
    }
    free(v);
}

/*
 * How likely u is to be what logs a message held in a constant, as a
 * function of what it logs: 2 when it logs a message whose text the code
 * does not hold, of its own making (`logger.log(policy.level,
 * policy.format, ctx)`, a name no constant resolves) and takes no text
 * from its callers; 1 when it calls a function that logs what its callers
 * pass (a wrapper logging on its behalf: the log record names the
 * caller's call site); 0 otherwise. A function called with message text
 * that logs something built from it logs its callers' messages, not its
 * own, even when how it builds them is not known.
 */
/* Whether template t is holes and blanks only ("%s", "{}"): a message it
 * logs is whatever it was handed. */
static bool holes_only(const char *t)
{
    size_t n = strlen(t), holes = 0;
    for (size_t i = 0; i < n;) {
        graph_tmpl_piece pc;
        i += graph_tmpl_step(t, n, i, &pc);
        if (pc.hole)
            holes++;
        else if (!isspace((unsigned char)pc.lit))
            return false;
    }
    return holes > 0;
}

static int const_logger_rank(const map_mapper *m, uint32_t u)
{
    const uint32_t passes = GRAPH_SF_WRAPPER | GRAPH_SF_TAKES_TEXT;
    graph_symbol s;
    graph_get_symbol(m->g, u, &s);
    if ((s.kind != GRAPH_SYM_FUNCTION && s.kind != GRAPH_SYM_METHOD) || map__symbol_aside(m, u))
        return 0;
    if ((s.flags & (GRAPH_SF_LOGS_DYNAMIC | GRAPH_SF_LOGS)) && !(s.flags & passes)) {
        uint32_t first, ne = graph_symbol_emits(m->g, u, &first);
        for (uint32_t i = 0; i < ne; i++) {
            graph_emit e;
            graph_get_emit(m->g, first + i, &e);
            bool logs =
                e.kind == GRAPH_EMIT_LOG || e.kind == GRAPH_EMIT_PRINT || e.kind == GRAPH_EMIT_WARN;
            /* (`logger.error("%s", err)` says no more than `logger.error(err)`.) */
            if (logs && (e.style == GRAPH_STYLE_DYNAMIC ||
                         (e.style == GRAPH_STYLE_REF && e.ref_const == GRAPH_NONE) ||
                         (e.style != GRAPH_STYLE_REF && holes_only(e.tmpl))))
                return 2;
        }
    }
    uint32_t n;
    const graph_edge *out = graph_out_edges(m->g, u, &n);
    for (uint32_t i = 0; i < n; i++) {
        if (out[i].type != GRAPH_EDGE_CALLS || out[i].node == u)
            continue;
        graph_symbol c;
        graph_get_symbol(m->g, out[i].node, &c);
        if ((c.flags & GRAPH_SF_LOGS_DYNAMIC) && (c.flags & passes))
            return 1;
    }
    return 0;
}

/* Personalized PageRank over the code from an activity's own candidates
 * (own, nown) and, at half the weight, its neighbours' emitters: what is
 * near both. The scores are in m->cw. False if it could not run. */
static bool proximity(map_mapper *m, const uint32_t *own, uint32_t nown, const nb_rec *nb,
                      size_t nnb)
{
    map__ensure_code_net(m);
    core_vec(ppr_entry) seeds = {0};
    for (uint32_t i = 0; i < nown; i++)
        core_vec_push(&seeds, ((ppr_entry){own[i], 1.0f / (float)nown}));
    uint64_t total = 0;
    for (size_t i = 0; i < nnb; i++)
        total += nb[i].count;
    for (size_t i = 0; i < nnb; i++) {
        const act_rec *p = &m->acts.v[nb[i].nb];
        for (uint32_t k = 0; k < p->nsyms; k++)
            core_vec_push(&seeds, ((ppr_entry){m->syms.v[p->sym_off + k],
                                               (float)(0.5 * (double)nb[i].count / (double)total *
                                                       m->conf.v[p->sym_off + k])}));
    }
    ppr_opts o = ppr_opts_default();
    o.eps = 1e-7;
    int rc = seeds.n ? ppr_push(m->cw, seeds.v, (uint32_t)seeds.n, &o, NULL) : -1;
    core_vec_free(&seeds);
    return rc == 0;
}

/* Keeps the cap best of what it is given in top and sc, best first (*n of
 * them): u with score p goes to its place, or nowhere when cap better ones,
 * or u itself, are kept. Ties go after those kept already, or by_id, by
 * lower id. */
static void keep_best(uint32_t *top, double *sc, uint32_t *n, uint32_t cap, uint32_t u, double p,
                      bool by_id)
{
    for (uint32_t i = 0; i < *n; i++)
        if (top[i] == u)
            return;
    uint32_t j = *n < cap ? (*n)++ : cap;
    while (j > 0 && (p > sc[j - 1] || (by_id && p == sc[j - 1] && u < top[j - 1]))) {
        if (j < cap) {
            top[j] = top[j - 1];
            sc[j] = sc[j - 1];
        }
        j--;
    }
    if (j < cap) {
        top[j] = u;
        sc[j] = p;
    }
}

/* The function a function defined inside others (a callback, an
 * arrow) is part of: what calls that one is what an error it throws, or
 * a promise it rejects, comes back to. */
static uint32_t outermost_function(const graph *g, uint32_t f)
{
    for (int up = 0; up < 8; up++) {
        graph_symbol s, ps;
        graph_get_symbol(g, f, &s);
        if (!(s.flags & GRAPH_SF_NESTED) || s.parent == GRAPH_NONE)
            return f;
        graph_get_symbol(g, s.parent, &ps);
        if (ps.kind != GRAPH_SYM_FUNCTION && ps.kind != GRAPH_SYM_METHOD)
            return f;
        f = s.parent;
    }
    return f;
}

/* The functions that call activity act's candidates, up to 4 outside
 * the files set aside, nearest first (the proximity run's scores), placed
 * alike: the code says they call them, not which of them ran. With
 * catching, the callers of the functions the candidates are defined in
 * that handle what their calls throw: where a thrown error is caught.
 * False when a candidate is no function or no such caller is. */
static bool place_at_callers(map_mapper *m, uint32_t act, const nb_rec *nb, size_t nnb,
                             bool catching)
{
    enum { KEEP = 4 };
    const act_rec *a = &m->acts.v[act];
    if (!a->has_const || !proximity(m, m->cands.v + a->cand_off, a->ncand, nb, nnb))
        return false;
    uint32_t top[KEEP], nk = 0;
    double sc[KEEP];
    for (uint32_t i = 0; i < a->ncand; i++) {
        uint32_t f = m->cands.v[a->cand_off + i];
        graph_symbol s;
        graph_get_symbol(m->g, f, &s);
        if (s.kind != GRAPH_SYM_FUNCTION && s.kind != GRAPH_SYM_METHOD)
            return false;
        if (catching)
            f = outermost_function(m->g, f);
        uint32_t n;
        const graph_edge *in = graph_in_edges(m->g, f, &n);
        for (uint32_t k = 0; k < n; k++) {
            uint32_t u = in[k].node;
            if (in[k].type != GRAPH_EDGE_CALLS || u == f || map__symbol_aside(m, u))
                continue;
            if (catching) {
                graph_symbol us;
                graph_get_symbol(m->g, u, &us);
                if (!(us.flags & GRAPH_SF_CATCHES))
                    continue;
            }
            keep_best(top, sc, &nk, KEEP, u, ppr_work_score(m->cw, u), true);
        }
    }
    if (nk == 0)
        return false;
    map__activity_set_even(m, act, MAP_BY_CONST, top, nk);
    return true;
}

/*
 * A format a function returns (an access-log line built from a request's
 * fields) that no function near logs: the functions that call the
 * formatter are what makes the message, whatever they hand it to (a file,
 * a stream, a logger behind a name the code does not show), as a logging
 * wrapper's caller stands for it. Tried after where the case was and the
 * logger's sites: a message a site there renders with less text (`"%s
 * %s"` for "GET http://127.0.0.1:8888/") is that site's, not the
 * formatter's whose few literal bytes it happens to hold.
 */
static bool map_by_formatters(map_mapper *m, uint32_t act, const nb_rec *nb, size_t nnb)
{
    return place_at_callers(m, act, nb, nnb, false);
}

/* Sorts syms[0..n) best first by their weights (insertion sort: n is
 * small; ties keep their order). */
static void sort_weighted(uint32_t *syms, double *w, uint32_t n)
{
    for (uint32_t i = 1; i < n; i++)
        for (uint32_t j = i; j > 0 && w[j] > w[j - 1]; j--) {
            double t = w[j];
            w[j] = w[j - 1];
            w[j - 1] = t;
            uint32_t u = syms[j];
            syms[j] = syms[j - 1];
            syms[j - 1] = u;
        }
}

/* What the objects (errors) made with activity act's text at its
 * candidates' constructor sites become where they are made, when all of
 * them agree: GRAPH_EF_THROWN or GRAPH_EF_HANDED; else 0. */
static uint32_t errors_made_for(const map_mapper *m, const act_rec *a)
{
    const char *text = core_strtab_str(&m->strs, a->text);
    uint32_t how = UINT32_MAX;
    for (uint32_t i = 0; i < a->ncand; i++) {
        uint32_t first, ne = graph_symbol_emits(m->g, m->cands.v[a->cand_off + i], &first);
        for (uint32_t k = 0; k < ne; k++) {
            graph_emit e;
            graph_get_emit(m->g, first + k, &e);
            if (!(e.flags & GRAPH_EF_CTOR) ||
                strcmp(map__template_text(m->g, first + k), text) != 0)
                continue;
            uint32_t f = e.flags & (GRAPH_EF_THROWN | GRAPH_EF_HANDED);
            if (how != UINT32_MAX && how != f)
                return 0;
            how = f;
        }
    }
    return how == UINT32_MAX ? 0 : how;
}

/*
 * An error logged whole (its text read out of its rendering: the logger
 * was handed the error itself) that only constructors' text explains,
 * where every such site says what becomes of the error. One thrown is
 * logged by what catches it, a caller with a handler (place_at_callers;
 * where the code shows none, as when a framework catches what a handler
 * it dispatches to by name throws, the other strategies place it). One
 * handed to a call as it is made (`handler(new Error(...))`) is the
 * maker's event, whatever the call hands it on to, as a logging
 * wrapper's caller stands for the message it passes.
 */
static bool map_by_errors(map_mapper *m, uint32_t act, const nb_rec *nb, size_t nnb)
{
    act_rec *a = &m->acts.v[act];
    if (!a->has_const || !a->error_text || a->ncand == 0)
        return false;
    uint32_t how = errors_made_for(m, a);
    if (how == GRAPH_EF_THROWN)
        return place_at_callers(m, act, nb, nnb, true);
    if (how != GRAPH_EF_HANDED)
        return false;
    /* Several makers (a class copied into two packages): the one clearly
     * nearest (twice the next) the emitters of the events around the
     * message, else all, weighted by that nearness. */
    uint32_t n = a->ncand, syms[MAX_CAND];
    double w[MAX_CAND], sum = 0;
    memcpy(syms, m->cands.v + a->cand_off, n * sizeof *syms);
    bool near = n > 1 && proximity(m, NULL, 0, nb, nnb);
    for (uint32_t i = 0; i < n; i++)
        w[i] = near ? ppr_work_score(m->cw, syms[i]) : 1;
    sort_weighted(syms, w, n);
    if (n > 1 && w[0] > 0 && w[0] >= 2 * w[1])
        n = 1;
    for (uint32_t i = 0; i < n; i++)
        sum += w[i];
    float c[MAX_CAND];
    for (uint32_t i = 0; i < n; i++)
        c[i] = (float)(sum > 0 ? w[i] / sum : 1.0 / n);
    map__activity_set_syms(m, act, MAP_BY_CONST, syms, c, n);
    return true;
}

/* The files a's records' logger had its other messages from
 * (map__logger_files), or with a few loggers those all of them had, into
 * files (at most LOGGER_FILES); how many (0: no logger, or too many to
 * say). */
#define LOGGER_FILES 10
static uint32_t logger_files_of(const map_mapper *m, const act_rec *a, uint32_t *files)
{
    bool several = a->logger == LOGGER_MIXED;
    if (a->logger == 0 || (several && (a->loggers_lost || a->nloggers < 2)))
        return 0;
    uint32_t nf =
        map__logger_files(m, core_strtab_str(&m->strs, (several ? a->loggers[0] : a->logger) - 1),
                          files, LOGGER_FILES);
    for (uint8_t i = 1; several && i < a->nloggers && nf; i++) {
        uint32_t other[LOGGER_FILES],
            no = map__logger_files(m, core_strtab_str(&m->strs, a->loggers[i] - 1), other,
                                   LOGGER_FILES);
        uint32_t k = 0;
        for (uint32_t f = 0; f < nf; f++)
            for (uint32_t j = 0; j < no; j++)
                if (other[j] == files[f]) {
                    files[k++] = files[f];
                    break;
                }
        nf = k;
    }
    return nf;
}

/* Whether one of syms[0..n) is in one of files[0..nf). */
static bool in_files(const graph *g, const uint32_t *syms, uint32_t n, const uint32_t *files,
                     uint32_t nf)
{
    for (uint32_t i = 0; i < n; i++) {
        graph_symbol s;
        graph_get_symbol(g, syms[i], &s);
        for (uint32_t k = 0; k < nf; k++)
            if (s.file_id == files[k])
                return true;
    }
    return false;
}

/* Constants and neighbourhood: the best function that logs a non-literal
 * message, by PPR from the constants' owners and the neighbours' emitters. */
static bool map_by_constants(map_mapper *m, uint32_t act, const nb_rec *nb, size_t nnb)
{
    act_rec *a = &m->acts.v[act];
    if (!a->has_const || !proximity(m, m->cands.v + a->cand_off, a->ncand, nb, nnb))
        return false;
    /* The nearest few of the likeliest kind, best first (ties by id):
     * one that logs its own unknown message before one that calls a
     * wrapper (which logs the texts it is given, mostly known ones). */
    enum { KEEP = 4, VARIANTS = 16 };
    uint32_t top[VARIANTS];
    double sc[VARIANTS];
    uint32_t nk = 0;
    int best_rank = 1;
    const uint32_t *touched;
    const double *p;
    uint32_t nt = ppr_work_touched(m->cw, &touched, &p);
    for (uint32_t i = 0; i < nt; i++) {
        uint32_t u = touched[i];
        if (u >= graph_nsymbols(m->g) || p[u] <= 0)
            continue;
        int rank = const_logger_rank(m, u);
        if (rank < best_rank)
            continue;
        if (rank > best_rank) {
            best_rank = rank;
            nk = 0;
        }
        keep_best(top, sc, &nk, KEEP, u, p[u], true);
    }
    if (nk == 0)
        return false;
    /* One clearly nearest (twice the next, as clear_candidate asks) is
     * the answer; otherwise those that cannot be told apart from it are
     * all kept, weighted by nearness: a guess between them would be
     * wrong as often as not. */
    uint32_t n = 1;
    while (n < nk && sc[n] * 2.0 > sc[0])
        n++;
    /* Its records' logger brings messages from other files only (a
     * statement a builder holds, logged by the runner that runs it, far
     * from a function that logs an error of its own): the strategies of
     * a message no template took place it, by that logger. */
    uint32_t files[LOGGER_FILES], nf = logger_files_of(m, a, files);
    if (nf && !in_files(m->g, top, n, files, nf))
        return false;
    n = map__add_sibling_variants(m->g, top, sc, n, VARIANTS);
    double sum = 0;
    for (uint32_t i = 0; i < n; i++)
        sum += sc[i];
    float c[VARIANTS];
    for (uint32_t i = 0; i < n; i++)
        c[i] = (float)(sc[i] / sum);
    map__activity_set_syms(m, act, MAP_BY_CONST, top, c, n);
    /* Several: each event goes to the one its case is at
     * (placed_at_sites). Its candidates were the constants' owners, which
     * nothing reads once it is placed. */
    if (n > 1)
        map__activity_set_cands(m, act, top, n);
    return true;
}

static int cmp_take(const void *a, const void *b)
{
    const nb_rec *x = a, *y = b;
    if (x->act != y->act)
        return x->act < y->act ? -1 : 1;
    return (x->nb > y->nb) - (x->nb < y->nb);
}

static void build_takes(map_mapper *m)
{
    m->takes_built = true;
    for (uint32_t e = 0; e < graph_nemits(m->g); e++) {
        graph_emit em;
        graph_get_emit(m->g, e, &em);
        if (em.kind != GRAPH_EMIT_CALL || !em.tmpl[0])
            continue;
        uint32_t t = graph_emit_callee(m->g, e);
        if (t == GRAPH_NONE)
            continue;
        graph_symbol s;
        graph_get_symbol(m->g, t, &s);
        if (s.flags & GRAPH_SF_TAKES_TEXT)
            core_vec_push(&m->takes, ((nb_rec){t, e, 0, 0}));
    }
    if (m->takes.n)
        qsort(m->takes.v, m->takes.n, sizeof *m->takes.v, cmp_take);
}

/*
 * Among syms, the functions that log what their callers pass in a way the
 * code does not show (`logger.debug(_pre(self, msg), *args)`): the callers
 * whose literal at a call of one renders text (decorated or not) stand
 * for it, unless it does more than log (site_emitter). The most specific
 * renderings (most literal bytes) win, as in template matching; more
 * than MAX_CAND callers tie is too many to tell apart. Writes them to out
 * (distinct); returns how many. A literal whose rendering is seen says
 * more than where the logger is.
 */
static uint32_t rendering_callers(map_mapper *m, const uint32_t *syms, uint32_t ns,
                                  const char *text, uint32_t *out)
{
    if (!m->takes_built)
        build_takes(m);
    uint32_t n = 0, best = 0;
    bool over = false;
    size_t len = strlen(text);
    for (uint32_t i = 0; i < ns; i++) {
        graph_symbol s;
        graph_get_symbol(m->g, syms[i], &s);
        if (!(s.flags & GRAPH_SF_TAKES_TEXT))
            continue;
        for (size_t k = map__first_of(m->takes.v, m->takes.n, syms[i]);
             k < m->takes.n && m->takes.v[k].act == syms[i]; k++) {
            uint32_t e = m->takes.v[k].nb;
            uint32_t lit = map_matcher_renders(m->matcher, m->mw, e, text, len);
            if (lit == 0 || lit < best)
                continue;
            graph_emit em;
            graph_get_emit(m->g, e, &em);
            uint32_t who = map__site_emitter(m->g, e, &em);
            if (map__symbol_aside(m, who))
                continue;
            if (lit > best) {
                best = lit;
                n = 0;
                over = false;
            }
            bool dup = false;
            for (uint32_t j = 0; j < n && !dup; j++)
                dup = out[j] == who;
            if (dup)
                continue;
            if (n < MAX_CAND)
                out[n++] = who;
            else
                over = true;
        }
    }
    return over ? 0 : n;
}

/* Adds x to function who's weight among syms[0..*n), as a new one while
 * there is room for it. */
static void add_weight(uint32_t *syms, double *w, uint32_t *n, uint32_t who, double x)
{
    uint32_t j = 0;
    while (j < *n && syms[j] != who)
        j++;
    if (j == *n) {
        if (*n == MAX_CAND)
            return;
        syms[j] = who;
        w[(*n)++] = 0;
    }
    w[j] += x;
}

/* The share of a group's weight a candidate no training case pointed at
 * keeps: it may still be what logs, so it is not ruled out. */
#define AMB_FLOOR 0.01

/* ---- the variant the log runs ---- */

/* The least events that say the log runs a class; and how many times
 * any other variant's the first must have to say the log runs that one
 * (a variant told apart in some cases runs in the others too). */
#define RUNS_MIN 8
#define RUNS_CLEAR 100.0

/* Whether s is a class's constructor, which the index makes the target
 * of the calls that create its objects. */
static bool is_constructor(const graph_symbol *s)
{
    return s->kind == GRAPH_SYM_METHOD && s->parent != GRAPH_NONE && (s->flags & GRAPH_SF_CTOR);
}

/* The most classes one container's code is counted as creating. */
#define CREATED_MAX 64

/*
 * Per class, the events that say it runs. Which of several variants runs
 * (each database's driver, a platform's reactor) is mostly the
 * deployment's choice, not the case's, so a case whose own events tell
 * nothing is most likely of the variant the rest of the log runs.
 * m->runs: the events placed at its methods alone (a template one site
 * logs, a constant's, a variant the case told apart). Those alone are
 * biased: a variant with texts of its own is told apart far more often
 * than one without, however often each runs. m->runs_seen: the events of
 * texts only the class logs, or only the code that creates its objects
 * (a driver's own message, for the query runner the driver makes).
 */
static void count_runs(map_mapper *m)
{
    core_map_free(&m->runs);
    core_map_free(&m->runs_seen);
    core_map own = {0}; /* container -> events of texts only it logs */
    core_vec(uint32_t) containers = {0};
    for (uint32_t a = 0; a < m->acts.n; a++) {
        const act_rec *r = &m->acts.v[a];
        if (r->nsyms != 1 || r->count == 0 ||
            (r->strategy != MAP_BY_TEMPLATE && r->strategy != MAP_BY_CONST))
            continue;
        uint32_t cls = map__class_of(m->g, m->syms.v[r->sym_off]);
        if (cls != GRAPH_NONE)
            *core_map_put(&m->runs, map__key64(cls), NULL) += r->count;
        /* A group's member is a case's telling, not a text only that
         * class logs (a restored dictionary says MAP_AMB_NONE of it). */
        if (r->amb != MAP_AMB_NONE || map__member_group(m, a) != UINT32_MAX)
            continue;
        uint32_t c = map__container_of(m->g, m->syms.v[r->sym_off]);
        bool ins;
        *core_map_put(&own, map__key64(c), &ins) += r->count;
        if (ins)
            core_vec_push(&containers, c);
    }
    for (size_t i = 0; i < containers.n; i++) {
        uint32_t x = containers.v[i], made[CREATED_MAX], nmade = 0;
        const uint64_t *ev = core_map_get(&own, map__key64(x));
        uint64_t events = ev ? *ev : 0;
        *core_map_put(&m->runs_seen, map__key64(x), NULL) += events;
        uint32_t nm;
        const graph_edge *mem = graph_in_edges(m->g, x, &nm);
        for (uint32_t k = 0; k < nm; k++) {
            if (mem[k].type != GRAPH_EDGE_MEMBER_OF)
                continue;
            uint32_t ne;
            const graph_edge *e = graph_out_edges(m->g, mem[k].node, &ne);
            for (uint32_t j = 0; j < ne && nmade < CREATED_MAX; j++) {
                graph_symbol t;
                if (e[j].type != GRAPH_EDGE_CALLS)
                    continue;
                graph_get_symbol(m->g, e[j].node, &t);
                if (!is_constructor(&t) || t.parent == x)
                    continue;
                uint32_t q = 0;
                while (q < nmade && made[q] != t.parent)
                    q++;
                if (q < nmade)
                    continue;
                made[nmade++] = t.parent;
                *core_map_put(&m->runs_seen, map__key64(t.parent), NULL) += events;
            }
        }
    }
    core_vec_free(&containers);
    core_map_free(&own);
}

/*
 * The events placed at each of syms[0..n)'s classes alone, into w;
 * whether they say the log runs one: syms are variants (with `nested`:
 * methods, or functions nested in methods, of classes of one hierarchy),
 * the first, alone in its class among them, has at least RUNS_MIN events
 * and RUNS_CLEAR times any other class's, and texts only it (or its
 * creators) logs were seen (runs_seen): where the others were never told
 * apart the count alone would say only that they have no texts of their
 * own.
 */
static bool runs_weights(const map_mapper *m, const uint32_t *syms, uint32_t n, bool nested,
                         double *w)
{
    if (n < 2 || (!nested && !map__variant_syms(m, syms, n)))
        return false;
    uint32_t cls[MAX_CAND], best = 0;
    for (uint32_t i = 0; i < n; i++) {
        cls[i] = nested ? map__enclosing_class(m->g, syms[i]) : map__class_of(m->g, syms[i]);
        if (cls[i] == GRAPH_NONE)
            return false;
        const uint64_t *v = core_map_get(&m->runs, map__key64(cls[i]));
        w[i] = v ? (double)*v : 0;
        if (w[i] > w[best])
            best = i;
    }
    /* The class says which function only when it is the one of its
     * class among them. */
    double second = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (i == best)
            continue;
        if (cls[i] == cls[best] || (nested && !map__one_hierarchy(m->g, cls[i], cls[best])))
            return false;
        second = w[i] > second ? w[i] : second;
    }
    const uint64_t *seen = core_map_get(&m->runs_seen, map__key64(cls[best]));
    return w[best] >= RUNS_MIN && w[best] >= RUNS_CLEAR * second && seen && *seen >= RUNS_MIN;
}

/*
 * in[0..n) by weight w, best first (ties keep their order), into out
 * with confidences conf: the share even spread evenly, the rest by
 * weight, each with a floor (AMB_FLOOR of the total) so that none is
 * ruled out. in and out may be the same. Returns whether the first
 * weighs (with its floor) twice the second.
 */
static bool order_by_weight(const uint32_t *in, const double *w, uint32_t n, double even,
                            uint32_t *out, float *conf)
{
    uint32_t idx[MAX_CAND], keep[MAX_CAND];
    double total = 0;
    for (uint32_t i = 0; i < n; i++) {
        idx[i] = i;
        keep[i] = in[i];
        total += w[i];
    }
    for (uint32_t i = 1; i < n; i++)
        for (uint32_t j = i; j > 0 && w[idx[j]] > w[idx[j - 1]]; j--) {
            uint32_t t = idx[j];
            idx[j] = idx[j - 1];
            idx[j - 1] = t;
        }
    double sum = total * (1 + AMB_FLOOR * n);
    for (uint32_t i = 0; i < n; i++) {
        out[i] = keep[idx[i]];
        double x = sum > 0 ? (w[idx[i]] + AMB_FLOOR * total) / sum : 1.0 / n;
        conf[i] = (float)(even / n + (1 - even) * x);
    }
    return n < 2 || w[idx[0]] + AMB_FLOOR * total >= 2 * (w[idx[1]] + AMB_FLOOR * total);
}

/* Places act where the case was (MAP_BY_LOGGER), at the functions
 * syms[0..n) (n > 0, best first) in the measure of their weights w.
 * Sites in several functions that the neighbours do not tell apart (the
 * sending and the receiving side each log "  %s: %s" after their header,
 * as often): each event goes to the one its case is at, as a template's
 * several sites do. Where the neighbours say which (twice as often next
 * to one), that one stands. */
static void place_weighted(map_mapper *m, uint32_t act, const uint32_t *syms, const double *w,
                           uint32_t n)
{
    float c[MAX_CAND] = {0};
    double runs[MAX_CAND];
    if (runs_weights(m, syms, n, true, runs)) {
        /* Variants of one part, each as near to the neighbours: the one
         * the log runs first; a case's own events may still tell. */
        uint32_t by_runs[MAX_CAND];
        order_by_weight(syms, runs, n, 0, by_runs, c);
        map__activity_set_syms(m, act, MAP_BY_LOGGER, by_runs, c, n);
        map__activity_set_cands(m, act, by_runs, n);
        return;
    }
    double sum = 0;
    for (uint32_t i = 0; i < n; i++)
        sum += w[i];
    for (uint32_t i = 0; i < n; i++)
        c[i] = (float)(sum > 0 ? w[i] / sum : 1.0 / n);
    map__activity_set_syms(m, act, MAP_BY_LOGGER, syms, c, n);
    if (n > 1 && w[0] < 2 * w[1])
        map__activity_set_cands(m, act, syms, n);
}

/* Sites a logger's message may come from, at most: past it the logger
 * says too little to look further. */
#define UNSEEN_MAX 4096

/* Whether a site of logger (at level) without text is in a function that
 * logs what it makes itself (a library's debug callback logging "%s"),
 * not only what its callers hand it (a logging class's own). */
static bool logger_logs_own_text(const map_mapper *m, const char *logger, const char *level)
{
    uint32_t *all = core_xmalloc(UNSEEN_MAX * sizeof *all);
    uint32_t nl = map_matcher_unseen(m->matcher, logger, NULL, 0, level, all, UNSEEN_MAX);
    bool own = nl > UNSEEN_MAX;
    for (uint32_t i = 0; i < nl && !own; i++) {
        graph_emit em;
        graph_get_emit(m->g, all[i], &em);
        graph_symbol sy;
        if (em.symbol != GRAPH_NONE) {
            graph_get_symbol(m->g, em.symbol, &sy);
            own = !(sy.flags & GRAPH_SF_TAKES_TEXT);
        }
    }
    free(all);
    return own;
}

/* Adds weight x to the functions of f's log sites without text to match
 * that take text[0..len) at logger and level, with what little literal
 * text they show (map_matcher_unseen_takes, shown). */
static void add_unseen_takers(map_mapper *m, uint32_t f, const char *text, size_t len,
                              const char *logger, const char *level, double x, uint32_t *syms,
                              double *w, uint32_t *n)
{
    if (map__symbol_aside(m, f))
        return;
    uint32_t first, ne = graph_symbol_emits(m->g, f, &first);
    for (uint32_t e = first; e < first + ne; e++) {
        graph_emit em;
        graph_get_emit(m->g, e, &em);
        if (em.kind == GRAPH_EMIT_LOG &&
            map_matcher_unseen_takes(m->matcher, m->mw, e, text, len, logger, level, true))
            add_weight(syms, w, n, map__site_emitter(m->g, e, &em), x);
    }
}

/* Adds to syms[0..*n) (weights w; *n is 0) the functions whose sites
 * without text to match, with what little literal text they show
 * (`"%s %s"`), render act's message (text[0..len)) at its logger and
 * level, a value without whitespace in each hole: in the functions of its
 * neighbours nb[0..nnb) and those they call, weighed by how often each
 * neighbour was next to it (a callee by its call edge's weight). None
 * when a site of its logger logs text of its own making: that may be
 * where the message comes from, and the shape alone does not outweigh
 * it. Sites in functions that log their callers' text stand for callers
 * the code may not show: the case says which. */
static void position_unseen(map_mapper *m, uint32_t act, const char *text, size_t len,
                            const nb_rec *nb, size_t nnb, uint32_t *syms, double *w, uint32_t *n)
{
    const act_rec *a = &m->acts.v[act];
    const char *logger =
        a->logger && a->logger != LOGGER_MIXED ? core_strtab_str(&m->strs, a->logger - 1) : NULL;
    const char *level =
        a->level && a->level != LOGGER_MIXED ? core_strtab_str(&m->strs, a->level - 1) : NULL;
    for (size_t i = 0; i < nnb; i++) {
        const act_rec *p = &m->acts.v[nb[i].nb];
        for (uint32_t k = 0; k < p->nsyms; k++) {
            uint32_t sym = m->syms.v[p->sym_off + k], ncall;
            double x = nb[i].count * (double)m->conf.v[p->sym_off + k];
            const graph_edge *out = graph_out_edges(m->g, sym, &ncall);
            for (uint32_t c = 0; c < ncall; c++)
                if (out[c].type == GRAPH_EDGE_CALLS && out[c].node != sym)
                    add_unseen_takers(m, out[c].node, text, len, logger, level, x * out[c].weight,
                                      syms, w, n);
            add_unseen_takers(m, sym, text, len, logger, level, x, syms, w, n);
        }
    }
    if (*n && logger && logger_logs_own_text(m, logger, level))
        *n = 0;
}

/*
 * A message no template took, placed by where the case was: a site in the
 * function of one of its neighbouring events (the events just before and
 * after it in the cases seen) whose template renders it, after any
 * decoration, however little literal text it shows (`'  %s: %s'`, logged
 * in a loop after `'Sending extension info'`): where the case was says
 * more than a template that shows too little to be matched anywhere. The
 * sites rendering the most literal bytes win, weighed by how often each
 * neighbour was next to it. With none, a site whose template shows next
 * to nothing (`"%s %s"`, a hook's default logging a request's method and
 * path) in those functions or one they call, that renders it whole at its
 * logger and level: there, too, where the case was says what its text
 * cannot.
 */
static bool map_by_position(map_mapper *m, uint32_t act, const nb_rec *nb, size_t nnb)
{
    uint32_t sample = m->acts.v[act].sample;
    if (!sample)
        return false;
    const char *text = core_strtab_str(&m->strs, sample - 1);
    size_t len = strlen(text);
    uint32_t best_lit = 0, n = 0;
    uint32_t syms[MAX_CAND];
    double w[MAX_CAND];
    for (size_t i = 0; i < nnb; i++) {
        const act_rec *p = &m->acts.v[nb[i].nb];
        for (uint32_t k = 0; k < p->nsyms; k++) {
            uint32_t sym = m->syms.v[p->sym_off + k], first;
            if (map__symbol_aside(m, sym))
                continue;
            uint32_t ne = graph_symbol_emits(m->g, sym, &first);
            for (uint32_t e = first; e < first + ne; e++) {
                uint32_t lit = map_matcher_renders(m->matcher, m->mw, e, text, len);
                if (lit == 0 || lit < best_lit)
                    continue;
                if (lit > best_lit) {
                    best_lit = lit;
                    n = 0;
                }
                graph_emit em;
                graph_get_emit(m->g, e, &em);
                add_weight(syms, w, &n, map__site_emitter(m->g, e, &em),
                           nb[i].count * (double)m->conf.v[p->sym_off + k]);
            }
        }
    }
    if (n == 0)
        position_unseen(m, act, text, len, nb, nnb, syms, w, &n);
    if (n == 0)
        return false;
    sort_weighted(syms, w, n);
    place_weighted(m, act, syms, w, n);
    return true;
}

/* How many calls deep a function that caught an exception may hand it
 * on before it is logged (a method, the module's logging function, the
 * log manager's). */
#define CATCH_DEPTH 3

/* Whether function sym prints: a print() of its own (which, unlike a
 * logging call's, marks no GRAPH_SF_LOGS), where `traceback.print_exc()`
 * beside it writes to the same stream. */
static bool prints(const graph *g, uint32_t sym)
{
    uint32_t first, n = graph_symbol_emits(g, sym, &first);
    for (uint32_t i = 0; i < n; i++) {
        graph_emit e;
        graph_get_emit(g, first + i, &e);
        if (e.kind == GRAPH_EMIT_PRINT)
            return true;
    }
    return false;
}

/* Whether function sym logs, itself or through the functions it calls,
 * at most depth calls deep. */
static bool reaches_logging(const graph *g, uint32_t sym, int depth)
{
    graph_symbol s;
    graph_get_symbol(g, sym, &s);
    if ((s.flags & (GRAPH_SF_LOGS | GRAPH_SF_WRAPPER | GRAPH_SF_TAKES_TEXT)) || prints(g, sym))
        return true;
    if (depth == 0)
        return false;
    uint32_t n;
    const graph_edge *e = graph_out_edges(g, sym, &n);
    for (uint32_t i = 0; i < n; i++)
        if (e[i].type == GRAPH_EDGE_CALLS && e[i].node != sym &&
            reaches_logging(g, e[i].node, depth - 1))
            return true;
    return false;
}

/* The frames of a JavaScript stack a message carries that may be read
 * (`at NAME (FILE:LINE:COL)`, `at FILE:LINE:COL`), at most. */
#define JS_FRAMES_MAX 32

/* Whether template t's literal text before its first hole opens
 * line[0, n): a site that renders the line from its start, not only some
 * text inside it after a decoration. */
static bool opens_line(const char *t, const char *line, size_t n)
{
    size_t tn = strlen(t), k = 0;
    for (size_t i = 0; i < tn;) {
        graph_tmpl_piece pc;
        i += graph_tmpl_step(t, tn, i, &pc);
        if (pc.hole)
            return true;
        if (k >= n || line[k] != pc.lit)
            return false;
        k++;
    }
    return true;
}

/* Whether function sym logs a message whose first line is text's: a
 * site of its own that renders that line from its start, or, when the line is the
 * stack's head (`TypeError: ...`), one that logs what it is handed whole
 * (`console.error(err)`). A function the stack passes through that catches
 * and logs other things is not what logged an error a promise's handler
 * elsewhere caught (the stack says where the error was made, not where it
 * went). */
static bool logs_error_line(const map_mapper *m, uint32_t sym, const char *text, size_t n)
{
    size_t line = map__first_line(text, n);
    bool whole = map__stack_head(text, n);
    uint32_t first, ne = graph_symbol_emits(m->g, sym, &first);
    for (uint32_t e = first; e < first + ne; e++) {
        graph_emit em;
        graph_get_emit(m->g, e, &em);
        if (em.kind != GRAPH_EMIT_LOG && em.kind != GRAPH_EMIT_PRINT)
            continue;
        if ((whole && (em.style == GRAPH_STYLE_DYNAMIC || em.style == GRAPH_STYLE_REF)) ||
            (opens_line(map__template_text(m->g, e), text, line) &&
             map_matcher_renders(m->matcher, m->mw, e, text, line) > 0))
            return true;
    }
    return false;
}

/*
 * A message that carries a JavaScript stack (`console.error(err)`,
 * `log.error(err.stack)`), whose text no code of ours holds (what the
 * runtime or a library threw): the stack runs from where the error was
 * made outwards, and what logs it is the first function of ours on it
 * that catches what its calls throw and logs it.
 * Each frame is read only where it is in a file of the graph, not set
 * aside, in a function whose name the frame gives (the same code);
 * frames without a name (callbacks) are passed over. The function must
 * log the message's first line itself (logs_error_line). Returns that
 * function, or GRAPH_NONE.
 */
static uint32_t js_stack_catcher(const map_mapper *m, const char *text)
{
    size_t n = strlen(text), at = 0;
    map_frame f;
    for (int k = 0; k < JS_FRAMES_MAX && map__stack_frame(text, n, &at, &f); k++) {
        if (!f.name[0])
            continue;
        uint32_t sym = map__symbol_at(m, f.path, f.line, NULL);
        if (sym == GRAPH_NONE)
            continue;
        graph_symbol s;
        graph_get_symbol(m->g, sym, &s);
        if ((s.kind != GRAPH_SYM_FUNCTION && s.kind != GRAPH_SYM_METHOD) ||
            strcmp(s.name, f.name) != 0 || map__symbol_aside(m, sym))
            continue;
        if ((s.flags & GRAPH_SF_CATCHES) && logs_error_line(m, sym, text, n))
            return sym;
    }
    return GRAPH_NONE;
}

/* A Python traceback's header, and how each of its frames begins. */
static const char TB_HEAD[] = "Traceback (most recent call last):";
static const char TB_FILE[] = "File \"";

/*
 * A message that carries a Python traceback (a framework that formats the
 * exception it caught into its message, a formatter that appends it): a
 * traceback begins at the frame whose `try` caught the exception (not its
 * callers) and runs to where it was raised, and that frame's handler is
 * what logs it. So its first frame names the function, when the frame is
 * in a file of the graph, not set aside, its name is the function's at
 * that line (the same code), and the function logs, itself or a few
 * calls on: a traceback caught elsewhere (an event loop's, a future's
 * callback's) and logged later says nothing of who logs it. A message
 * with a JavaScript stack instead goes to the function of ours that
 * catches it (js_stack_catcher).
 */
static bool map_by_traceback(map_mapper *m, uint32_t act)
{
    uint32_t sample = m->acts.v[act].sample;
    if (!sample)
        return false;
    const char *text = core_strtab_str(&m->strs, sample - 1);
    const char *p = strstr(text, TB_HEAD);
    if (!p) {
        uint32_t sym = js_stack_catcher(m, text);
        if (sym == GRAPH_NONE)
            return false;
        float c = 1;
        map__activity_set_syms(m, act, MAP_BY_STACK, &sym, &c, 1);
        return true;
    }
    if (!(p = strstr(p, TB_FILE)))
        return false;
    p += sizeof TB_FILE - 1;
    const char *q = strchr(p, '"');
    char path[1024], name[256];
    if (!q || (size_t)(q - p) >= sizeof path)
        return false;
    memcpy(path, p, (size_t)(q - p));
    path[q - p] = '\0';
    unsigned long line = 0;
    int used = 0;
    if (sscanf(q, "\", line %lu, in %n", &line, &used) != 1 || used == 0 || line == 0 ||
        line > UINT32_MAX)
        return false;
    q += used;
    size_t nl = 0; /* the name ends the line, escaped or not */
    while (q[nl] && q[nl] != '\n' && q[nl] != '\r' && q[nl] != ' ' && q[nl] != '\\' &&
           nl + 1 < sizeof name)
        nl++;
    memcpy(name, q, nl);
    name[nl] = '\0';
    uint32_t sym = map__symbol_at(m, path, (uint32_t)line, NULL);
    if (sym == GRAPH_NONE)
        return false;
    graph_symbol s;
    graph_get_symbol(m->g, sym, &s);
    if ((s.kind != GRAPH_SYM_FUNCTION && s.kind != GRAPH_SYM_METHOD) || strcmp(s.name, name) != 0 ||
        map__symbol_aside(m, sym) || !reaches_logging(m->g, sym, CATCH_DEPTH))
        return false;
    float c = 1;
    map__activity_set_syms(m, act, MAP_BY_STACK, &sym, &c, 1);
    return true;
}

/*
 * The functions of n sites without text a message may come from: all of
 * them when they are few (MAX_CAND); when more (a logger every class of
 * the package shares), the ones nearest over the code graph to the
 * activity's neighbours' emitters, which is where in the code the case
 * was (a message a function logs between two others of its own goes to
 * it), as many as MAX_CAND with some nearness. Writes them to syms;
 * returns how many (0: too many and nothing near).
 */
static uint32_t nearest_unseen(map_mapper *m, const uint32_t *emits, uint32_t n, const nb_rec *nb,
                               size_t nnb, uint32_t *syms)
{
    if (n <= MAX_CAND)
        return map__emit_symbols(m->g, emits, n, syms);
    if (nnb == 0 || !proximity(m, NULL, 0, nb, nnb))
        return 0;
    uint32_t k = 0;
    double sc[MAX_CAND];
    for (uint32_t i = 0; i < n; i++) {
        graph_emit e;
        graph_get_emit(m->g, emits[i], &e);
        if (e.symbol == GRAPH_NONE)
            continue;
        uint32_t sym = map__site_emitter(m->g, emits[i], &e);
        double x = ppr_work_score(m->cw, sym);
        if (x <= 0)
            continue;
        /* keep the MAX_CAND nearest, best first (ties: the earlier site) */
        keep_best(syms, sc, &k, MAX_CAND, sym, x, false);
    }
    return k;
}

/* What agreeing with the order of the cases is worth at the least: a
 * site the order contradicts stays a candidate, far behind. */
#define ORDER_FLOOR 0.02
/* The least weight of a successor the order is held to: the static model
 * splits its weight evenly over branches and over the variants a call
 * may reach (a server's and a client's subclass, both in one process),
 * so only a site it expects more often than not (the next statement's
 * log on every path) is a prediction the cases can refute. */
#define ORDER_SURE 0.5

/*
 * How well the cases' order agrees with a message no template matched
 * coming from function sym, through one of its sites among emits[0..n)
 * (without text). The static successor model says which sites log right
 * after such a site. One it is sure of (ORDER_SURE), with literal text
 * (its records are mapped by their template), in a function the log
 * shows, that the cases show right after the message less often than
 * the model says, takes the difference off, in the measure that the
 * records seen would have shown it (a message seen once proves little).
 * The site that agrees best counts: 1 when nothing contradicts it,
 * ORDER_FLOOR at the least. A site that logs the data left over just
 * before logging "Connection closed" in the same function is not where a
 * reply that is never followed by "Connection closed" comes from, however
 * near its function is to the commands around the reply.
 */
static double order_agreement(const map_mapper *m, uint32_t act, uint32_t sym,
                              const uint32_t *emits, uint32_t n, const nb_rec *nb, size_t nnb)
{
    uint32_t followed = m->acts.v[act].followed;
    double best = -1;
    for (uint32_t i = 0; i < n && followed; i++) {
        graph_emit em;
        graph_get_emit(m->g, emits[i], &em);
        if (em.symbol == GRAPH_NONE || map__site_emitter(m->g, emits[i], &em) != sym)
            continue;
        uint32_t nn;
        const graph_next *nx = graph_next_sites(m->g, emits[i], &nn);
        double off = 0;
        for (uint32_t j = 0; j < nn; j++) {
            graph_emit s;
            graph_get_emit(m->g, nx[j].emit, &s);
            if (nx[j].weight < ORDER_SURE || s.kind != GRAPH_EMIT_LOG || !s.tmpl[0] ||
                s.symbol == GRAPH_NONE || !core_map_get(&m->live, map__key64(s.symbol)))
                continue;
            uint64_t after = 0;
            for (size_t k = 0; k < nnb; k++) {
                const act_rec *p = &m->acts.v[nb[k].nb];
                for (uint32_t q = 0; q < p->nsyms; q++)
                    if (m->syms.v[p->sym_off + q] == s.symbol) {
                        after += nb[k].after;
                        break;
                    }
            }
            double seen = (double)after / followed;
            if (nx[j].weight > seen)
                off += (nx[j].weight - seen) * (1 - pow(1 - nx[j].weight, followed));
        }
        if (1 - off > best)
            best = 1 - off;
    }
    return best < 0 ? 1 : best < ORDER_FLOOR ? ORDER_FLOOR : best;
}

/* Whether function sym logs its callers' text and the code shows what
 * some of its calls pass (m->takes built). */
static bool shows_callers_text(const map_mapper *m, uint32_t sym)
{
    graph_symbol s;
    graph_get_symbol(m->g, sym, &s);
    if (!(s.flags & GRAPH_SF_TAKES_TEXT))
        return false;
    size_t k = map__first_of(m->takes.v, m->takes.n, sym);
    return k < m->takes.n && m->takes.v[k].act == sym;
}

typedef struct through_ctx {
    const map_mapper *m;
    const char *logger;
} through_ctx;

static bool logger_through(void *ud, const char *receiver)
{
    const through_ctx *t = ud;
    return map__logger_through(t->m, t->logger, receiver);
}

/*
 * A message no template matched, whose records all name one logger: the
 * sites of that logger that have no text a template could show (a message
 * built at run time, holes only) are where it can come from; with none
 * naming it, those in the files its other messages came from (with a few
 * loggers, the files all of theirs came from). Or, with
 * `through` (weaker: tried after the other strategies), the calls without
 * such text through the objects its other messages went through. One is
 * the answer; several are all kept, ordered and weighted by how near they
 * are to the activity's neighbours in the code.
 */
/* Goes behind with the function it overrides, or that overrides it: one
 * method of a hierarchy, one role. A driver's override that logs the
 * statement as its base does (and that nothing calls by name, its calls
 * going to the base) is no nearer to being where a statement comes from
 * than the base whose known calls hand it other text. *front counts
 * those not behind. */
static void same_role_behind(const map_mapper *m, const uint32_t *syms, uint32_t n, bool *behind,
                             uint32_t *front)
{
    for (uint32_t i = 0; i < n; i++) {
        if (!behind[i])
            continue;
        graph_symbol a;
        graph_get_symbol(m->g, syms[i], &a);
        uint32_t ca = map__class_of(m->g, syms[i]);
        for (uint32_t j = 0; j < n && ca != GRAPH_NONE; j++) {
            if (behind[j])
                continue;
            graph_symbol b;
            graph_get_symbol(m->g, syms[j], &b);
            uint32_t cb = map__class_of(m->g, syms[j]);
            if (cb != GRAPH_NONE && cb != ca && strcmp(a.name, b.name) == 0 &&
                map__one_hierarchy(m->g, ca, cb)) {
                behind[j] = true;
                (*front)--;
            }
        }
    }
}

/*
 * The sites without text made at calls of the wrappers of ours that
 * logger's other messages went through (map__logger_wrappers): a
 * statement built at run time and handed to the wrapper that logged the
 * `commit` a function's literal said. Into out (up to max); how many
 * (more than max: too many to say).
 */
static uint32_t through_wrappers(map_mapper *m, const char *logger, const char *level,
                                 uint32_t *out, uint32_t max)
{
    uint32_t wr[LOGGER_FILES], nw = map__logger_wrappers(m, logger, wr, LOGGER_FILES);
    uint32_t files[LOGGER_FILES], nf = 0;
    core_vec(uint32_t) callers = {0};
    for (uint32_t i = 0; i < nw; i++) {
        uint32_t ne;
        const graph_edge *in = graph_in_edges(m->g, wr[i], &ne);
        for (uint32_t k = 0; k < ne; k++) {
            if (in[k].type != GRAPH_EDGE_CALLS)
                continue;
            graph_symbol c;
            graph_get_symbol(m->g, in[k].node, &c);
            core_vec_push(&callers, in[k].node);
            bool dup = false;
            for (uint32_t j = 0; j < nf && !dup; j++)
                dup = files[j] == c.file_id;
            if (!dup && nf < LOGGER_FILES)
                files[nf++] = c.file_id;
        }
    }
    uint32_t n = nf ? map_matcher_unseen(m->matcher, NULL, files, nf, level, out, max) : 0, k = 0;
    for (uint32_t i = 0; i < n && n <= max; i++) {
        graph_emit e;
        graph_get_emit(m->g, out[i], &e);
        bool calls = false;
        for (size_t j = 0; j < callers.n && !calls; j++)
            calls = callers.v[j] == e.symbol;
        if (calls)
            out[k++] = out[i];
    }
    core_vec_free(&callers);
    return n > max ? n : k;
}

static bool map_by_logger(map_mapper *m, uint32_t act, const nb_rec *nb, size_t nnb, bool through)
{
    const act_rec *a = &m->acts.v[act];
    bool several = a->logger == LOGGER_MIXED && !a->loggers_lost && a->nloggers > 1;
    if (a->logger == 0 || (a->logger == LOGGER_MIXED && (!several || through)))
        return false;
    const char *level =
        a->level && a->level != LOGGER_MIXED ? core_strtab_str(&m->strs, a->level - 1) : NULL;
    const char *logger = core_strtab_str(&m->strs, (several ? a->loggers[0] : a->logger) - 1);
    uint32_t *all = core_xmalloc(UNSEEN_MAX * sizeof *all), n;
    if (through) {
        /* `diag.verbose(text)` where `diag.debug('...')` was seen. */
        through_ctx t = {m, logger};
        const char *sample = a->sample ? core_strtab_str(&m->strs, a->sample - 1) : "";
        n = map_matcher_unseen_calls(m->matcher, m->mw, sample, strlen(sample), logger_through, &t,
                                     level, all, UNSEEN_MAX);
    } else {
        /* Several loggers route it (an application's choice of logger
         * per run, each formatting the same call's message): no site
         * names them all. */
        n = several ? 0 : map_matcher_unseen(m->matcher, logger, NULL, 0, level, all, UNSEEN_MAX);
        if (n == 0 && !several)
            n = through_wrappers(m, logger, level, all, UNSEEN_MAX);
        if (n == 0) {
            /* No site names the logger: the files its other messages came
             * from (every one of the few's). */
            uint32_t files[LOGGER_FILES], nf = logger_files_of(m, a, files);
            n = map_matcher_unseen(m->matcher, NULL, files, nf, level, all, UNSEEN_MAX);
        }
    }
    uint32_t syms[MAX_CAND];
    uint32_t ns = n > UNSEEN_MAX ? 0 : nearest_unseen(m, all, n, nb, nnb, syms);
    if (ns == 0) {
        free(all);
        return false;
    }
    float c[MAX_CAND];
    uint32_t callers[MAX_CAND];
    uint32_t nc = rendering_callers(m, syms, ns, core_strtab_str(&m->strs, a->text), callers);
    double score[MAX_CAND], sum = 0;
    uint32_t front = 0; /* candidates not behind */
    /* Functions that log their callers' text, none of whose calls the code
     * shows passing this message (their known calls are where their
     * records come from: the commands a client sends, around the replies
     * it logs elsewhere): after the others, however near they are. */
    bool behind[MAX_CAND] = {0};
    if (nc > 0) {
        memcpy(syms, callers, nc * sizeof *syms);
        ns = nc;
    }
    bool near = ns > 1 && proximity(m, NULL, 0, nb, nnb);
    for (uint32_t i = 0; i < ns; i++) {
        score[i] = near ? ppr_work_score(m->cw, syms[i]) : 1;
        if (nc == 0) {
            score[i] *= order_agreement(m, act, syms[i], all, n, nb, nnb);
            behind[i] = shows_callers_text(m, syms[i]);
        }
        front += !behind[i];
    }
    free(all);
    same_role_behind(m, syms, ns, behind, &front);
    /* Best first (insertion sort: ns is small); ties keep id order. */
    for (uint32_t i = 1; i < ns; i++)
        for (uint32_t j = i; j > 0 && (behind[j] < behind[j - 1] ||
                                       (behind[j] == behind[j - 1] && score[j] > score[j - 1]));
             j--) {
            double t = score[j];
            score[j] = score[j - 1];
            score[j - 1] = t;
            bool b = behind[j];
            behind[j] = behind[j - 1];
            behind[j - 1] = b;
            uint32_t u = syms[j];
            syms[j] = syms[j - 1];
            syms[j - 1] = u;
        }
    /* Half spread evenly: nearness orders them, it does not rule the
     * others out. The other half goes to those in front (to all when none
     * is). */
    if (front == 0)
        front = ns;
    for (uint32_t i = 0; i < front; i++)
        sum += score[i];
    for (uint32_t i = 0; i < ns; i++)
        c[i] = (float)(0.5 / ns + (i >= front ? 0 : sum > 0 ? 0.5 * score[i] / sum : 0.5 / front));
    /* Variants of one part: the one the log runs orders them, as it
     * does a template's sites (apply_runs_weights); nearness to the
     * neighbours tells less, as every variant is as near. */
    double runs[MAX_CAND];
    bool by_runs = runs_weights(m, syms, ns, true, runs);
    if (by_runs)
        order_by_weight(syms, runs, ns, 0.5, syms, c);
    map__activity_set_syms(m, act, MAP_BY_LOGGER, syms, c, ns);
    m->acts.v[act].near_only = ns > 1 && !by_runs;
    /* Sites of variants among them (one step of two kinds of worker):
     * each event goes to the one its case is at (placed_at_sites), as a
     * constant's functions do, and the kind the case named tells them
     * apart (class_pick). */
    if (map__has_sibling_variants(m->g, syms, ns))
        map__activity_set_cands(m, act, syms, ns);
    return true;
}

/* The least share of the records before a message that the code's
 * successor model must say a site logs next after, for the message to be
 * placed at that site. */
#define NEXT_MIN 0.25

/*
 * A message no template took and no logger placed, after neighbours
 * that the code says are followed by a site with next to no text to
 * show (`self.log.debug("\n{attrs}", attrs=pformat(...))` in the
 * function the previous event's function calls right after logging):
 * where the code goes next is where it comes from. The static successor
 * model of each neighbour's own site (its template's; all of its
 * function's sites when none has it) weighs the sites without text that
 * can render the message and agree with its logger and level, by how
 * often each neighbour came just before it; one the model expects after
 * at least NEXT_MIN of those records is taken, several that the weights
 * do not tell apart are kept as a template's several sites are.
 */
static bool map_by_successors(map_mapper *m, uint32_t act, const nb_rec *nb, size_t nnb)
{
    const act_rec *a = &m->acts.v[act];
    if (!a->sample)
        return false;
    const char *text = core_strtab_str(&m->strs, a->sample - 1);
    size_t len = strlen(text);
    const char *logger =
        a->logger && a->logger != LOGGER_MIXED ? core_strtab_str(&m->strs, a->logger - 1) : NULL;
    const char *level =
        a->level && a->level != LOGGER_MIXED ? core_strtab_str(&m->strs, a->level - 1) : NULL;
    uint32_t syms[MAX_CAND], n = 0;
    double w[MAX_CAND], before_all = 0;
    for (size_t i = 0; i < nnb; i++) {
        uint32_t before = nb[i].count - nb[i].after;
        before_all += before;
        const act_rec *p = &m->acts.v[nb[i].nb];
        if (before == 0 || p->nsyms == 0)
            continue;
        const char *pt = core_strtab_str(&m->strs, p->text);
        size_t ptl = map__text_base_len(pt);
        for (uint32_t k = 0; k < p->nsyms; k++) {
            uint32_t sym = m->syms.v[p->sym_off + k], first;
            uint32_t ne = graph_symbol_emits(m->g, sym, &first), own = 0;
            for (uint32_t e = first; e < first + ne; e++)
                own += map__site_has_text(m->g, e, pt, ptl);
            for (uint32_t e = first; e < first + ne; e++) {
                if (own && !map__site_has_text(m->g, e, pt, ptl))
                    continue;
                double share = before * (double)m->conf.v[p->sym_off + k] / (own ? own : ne);
                uint32_t nn;
                const graph_next *nx = graph_next_sites(m->g, e, &nn);
                for (uint32_t j = 0; j < nn; j++) {
                    graph_emit t;
                    graph_get_emit(m->g, nx[j].emit, &t);
                    if (t.kind != GRAPH_EMIT_LOG ||
                        !map_matcher_unseen_takes(m->matcher, m->mw, nx[j].emit, text, len, logger,
                                                  level, false))
                        continue;
                    uint32_t who = map__site_emitter(m->g, nx[j].emit, &t);
                    if (!map__symbol_aside(m, who))
                        add_weight(syms, w, &n, who, share * nx[j].weight);
                }
            }
        }
    }
    /* best first; those below the bar go */
    sort_weighted(syms, w, n);
    while (n > 0 && w[n - 1] < NEXT_MIN * before_all)
        n--;
    if (n == 0)
        return false;
    place_weighted(m, act, syms, w, n);
    return true;
}

typedef struct llm_ctx {
    map_mapper *m;
    const uint32_t *acts;
    core_vec(nb_rec) props; /* act, symbol, conf (bits) */
} llm_ctx;

static void llm_take(void *ud, size_t item, uint32_t symbol, float conf)
{
    llm_ctx *c = ud;
    uint32_t bits;
    memcpy(&bits, &conf, sizeof bits);
    core_vec_push(&c->props, ((nb_rec){c->acts[item], symbol, bits, 0}));
}

/*
 * Whether a group's candidates are in more than one file: variants (a
 * platform's, a backend's, the synchronous and the asynchronous side)
 * that the rest of a case's code tells apart. Sites all in one file share
 * their neighbourhood, and the walk would only say which of them is the
 * more central there.
 */
static bool apart_in_files(const map_mapper *m, const act_rec *g)
{
    graph_symbol a;
    graph_get_symbol(m->g, m->cands.v[g->cand_off], &a);
    for (uint32_t i = 1; i < g->ncand; i++) {
        graph_symbol b;
        graph_get_symbol(m->g, m->cands.v[g->cand_off + i], &b);
        if (a.file_id != b.file_id)
            return true;
    }
    return false;
}

/*
 * The groups of candidates the training cases' contexts scored: each
 * candidate weighs what the contexts gave it (and a floor), best first.
 * Written in place (a group keeps its candidates), so that finish() run
 * after every batch does not grow the mapper. A group whose best weighs
 * twice the next is decided by the traces.
 */
static void apply_group_weights(map_mapper *m)
{
    for (size_t gi = 0; gi < m->acc_groups.n; gi++) {
        uint32_t group = m->acc_groups.v[gi];
        act_rec *g = &m->acts.v[group];
        if (g->strategy != MAP_BY_TEMPLATE || g->nsyms != g->ncand || g->nsyms < 2)
            continue; /* the code's votes decided it, or it was restored otherwise */
        if (!apart_in_files(m, g))
            continue;
        const double *acc = m->amb_acc.v + *core_map_get(&m->acc_index, map__key64(group));
        uint32_t nc = map__group_size(m, group);
        double total = 0;
        for (uint32_t i = 0; i < nc; i++)
            total += acc[i];
        if (total <= 0 || nc < 2)
            continue;
        bool clear = order_by_weight(m->cands.v + g->cand_off, acc, nc, 0, m->syms.v + g->sym_off,
                                     m->conf.v + g->sym_off);
        g->amb = clear ? MAP_AMB_TRACES : MAP_AMB_TIED;
    }
}

/*
 * The groups of variants that nothing else told apart for a case: the
 * one the log runs (runs_weights) first, when it says clearly; in place,
 * from the candidates, as the traces' weights are. It outweighs what the
 * training cases' untold contexts said: their nearness to variants of
 * one part tells little.
 */
static void apply_runs_weights(map_mapper *m)
{
    for (uint32_t a = 0; a < m->acts.n; a++) {
        act_rec *g = &m->acts.v[a];
        if (g->strategy != MAP_BY_TEMPLATE || g->nsyms != g->ncand || g->nsyms < 2 ||
            g->has_const ||
            (g->amb != MAP_AMB_TIED && g->amb != MAP_AMB_TRACES && g->amb != MAP_AMB_RUNS))
            continue;
        uint32_t nc = g->ncand;
        double w[MAX_CAND];
        if (nc > MAX_CAND || !runs_weights(m, m->cands.v + g->cand_off, nc, false, w))
            continue;
        order_by_weight(m->cands.v + g->cand_off, w, nc, 0, m->syms.v + g->sym_off,
                        m->conf.v + g->sym_off);
        g->amb = MAP_AMB_RUNS;
    }
}

/* Whether functions a and b are in one file, or in classes of one
 * hierarchy. */
static bool near_kin(const graph *g, uint32_t a, uint32_t b)
{
    graph_symbol sa, sb;
    graph_get_symbol(g, a, &sa);
    graph_get_symbol(g, b, &sb);
    if (sa.file_id == sb.file_id)
        return true;
    uint32_t ca = map__enclosing_class(g, a), cb = map__enclosing_class(g, b);
    return ca != GRAPH_NONE && cb != GRAPH_NONE && map__one_hierarchy(g, ca, cb);
}

/* Whether function sym logs other texts than text[0..len), and none
 * that only it logs: whether it runs, no message can show. */
static bool cannot_show(map_mapper *m, uint32_t sym, const char *text, size_t len)
{
    map__ensure_tellers(m);
    if (m->sym_tells[sym])
        return false;
    uint32_t first, n = graph_symbol_emits(m->g, sym, &first);
    for (uint32_t e = first; e < first + n; e++) {
        graph_emit x;
        graph_get_emit(m->g, e, &x);
        if (x.tmpl[0] && !map__site_has_text(m->g, e, text, len))
            return true;
    }
    return false;
}

/*
 * The groups still tied, in place as the weights above: a candidate the
 * log refutes (map__refuted: the code says it would have logged next a
 * message the log never shows) goes last; and of the others, one whose
 * function alone the log shows running, by RUNS_MIN events or more of
 * texts only that function logs, goes first (two routes into one request
 * log the same line, and the other route's function logs nothing else:
 * nothing shows it runs), unless they are variants, or one of the others
 * is in its file or class hierarchy.
 */
static void apply_refutations(map_mapper *m)
{
    core_map own = {0}; /* function -> events of texts only it logs */
    for (uint32_t a = 0; a < m->acts.n; a++) {
        const act_rec *r = &m->acts.v[a];
        if (r->nsyms == 1 && r->count > 0 && r->strategy == MAP_BY_TEMPLATE &&
            r->amb == MAP_AMB_NONE && map__member_group(m, a) == UINT32_MAX)
            *core_map_put(&own, map__key64(m->syms.v[r->sym_off]), NULL) += r->count;
    }
    for (uint32_t a = 0; a < m->acts.n; a++) {
        act_rec *g = &m->acts.v[a];
        if (g->strategy != MAP_BY_TEMPLATE || g->nsyms != g->ncand || g->nsyms < 2 ||
            g->nsyms > MAX_CAND || g->has_const || g->amb != MAP_AMB_TIED)
            continue;
        uint32_t n = g->nsyms, nout = 0, lead = UINT32_MAX, shown = 0;
        bool out[MAX_CAND];
        uint64_t runs[MAX_CAND];
        for (uint32_t i = 0; i < n; i++) {
            uint32_t sym = m->syms.v[g->sym_off + i];
            out[i] = map__refuted(m, a, sym);
            nout += out[i];
            const uint64_t *v = core_map_get(&own, map__key64(sym));
            runs[i] = out[i] || !v ? 0 : *v;
            if (runs[i] > 0) {
                shown++;
                lead = i;
            }
        }
        if (nout == n)
            continue;
        /* (Variants run by the deployment's choice: a variant's texts of
         * its own say it runs, not that it runs more than the others;
         * apply_runs_weights weighs them.) */
        if (shown != 1 || runs[lead] < RUNS_MIN || map__variant_syms(m, m->syms.v + g->sym_off, n))
            lead = UINT32_MAX;
        /* Another candidate in the lead's file or class hierarchy may well
         * run too (its caller is there: a helper of the method that
         * logs, in its base class); and one that logs other texts, all
         * of which another function logs too, was not shown running for
         * want of a way to show it. */
        const char *text = core_strtab_str(&m->strs, g->text);
        size_t len = map__text_base_len(text);
        for (uint32_t i = 0; i < n && lead != UINT32_MAX; i++) {
            uint32_t sym = m->syms.v[g->sym_off + i];
            if (i != lead && (near_kin(m->g, sym, m->syms.v[g->sym_off + lead]) ||
                              cannot_show(m, sym, text, len)))
                lead = UINT32_MAX;
        }
        /* Already last and below the others (an earlier finish() put them
         * there, and nothing weighed the group since): weighing them again
         * would only move the others' weights by another normalisation. */
        bool last = true;
        float low_in = 1, high_out = 0;
        for (uint32_t i = 0; i < n; i++) {
            float c = m->conf.v[g->sym_off + i];
            last &= i + nout < n ? !out[i] : out[i];
            if (out[i])
                high_out = c > high_out ? c : high_out;
            else
                low_in = c < low_in ? c : low_in;
        }
        last &= high_out < low_in;
        if (lead == UINT32_MAX && (nout == 0 || last))
            continue;
        /* (The ones neither shown nor refuted in between.) */
        double w[MAX_CAND];
        for (uint32_t i = 0; i < n; i++)
            w[i] = out[i]               ? 0
                   : lead == UINT32_MAX ? m->conf.v[g->sym_off + i]
                   : i == lead          ? 1
                                        : 1e-3;
        order_by_weight(m->syms.v + g->sym_off, w, n, 0, m->syms.v + g->sym_off,
                        m->conf.v + g->sym_off);
        if (lead != UINT32_MAX)
            g->amb = MAP_AMB_RUNS;
    }
    core_map_free(&own);
}

typedef core_vec(uint32_t) act_list;

/* A copy of v sorted by activity, then by count (cmp_nb); NULL when
 * empty. */
static nb_rec *sorted_copy(const nb_vec *v)
{
    if (!v->n)
        return NULL;
    nb_rec *c = core_xmalloc(v->n * sizeof *c);
    memcpy(c, v->v, v->n * sizeof *c);
    qsort(c, v->n, sizeof *c, cmp_nb);
    return c;
}

/* Nearness over the code graph to a message's neighbours below which a
 * symbol is not reached at all (twice the walk's threshold, as the
 * mapper's choice between a template's sites has it). */
#define TOKENS_NEAR 2e-4

/* Whether function sym logs a message made at run time (what no
 * template of it shows), itself or by calling one that does: where
 * token similarity may place a message, since the code says it can log
 * one that way. */
static bool logs_made_text(const map_mapper *m, uint32_t sym)
{
    graph_symbol s;
    graph_get_symbol(m->g, sym, &s);
    if (s.flags & GRAPH_SF_LOGS_DYNAMIC)
        return true;
    uint32_t n;
    const graph_edge *e = graph_out_edges(m->g, sym, &n);
    for (uint32_t i = 0; i < n; i++) {
        if (e[i].type != GRAPH_EDGE_CALLS)
            continue;
        graph_symbol c;
        graph_get_symbol(m->g, e[i].node, &c);
        if (c.flags & GRAPH_SF_LOGS_DYNAMIC)
            return true;
    }
    return false;
}

/*
 * The strategies after position, in order (logger, the traceback it
 * carries, formatters, the code's successors, the calls its logger goes
 * through, the sites set aside, token similarity), for activity a with
 * neighbours
 * nb[0..nnb); what none places goes to *left (for the LLM).
 */
static void place_rest(map_mapper *m, uint32_t a, const nb_rec *nb, size_t nnb, act_list *left)
{
    act_rec *r = &m->acts.v[a];
    if (!m->o.no_logger && map_by_logger(m, a, nb, nnb, false))
        return;
    if (map_by_traceback(m, a))
        return;
    if (!m->o.no_const && map_by_formatters(m, a, nb, nnb))
        return;
    if (!m->o.no_logger && (map_by_successors(m, a, nb, nnb) || map_by_logger(m, a, nb, nnb, true)))
        return;
    if (r->aside && r->ncand) {
        /* The sites set aside that rendered it: nothing else found it. */
        map__activity_set_even(m, a, MAP_BY_TEMPLATE, m->cands.v + r->cand_off, r->ncand);
        return;
    }
    if (!m->o.no_const && r->has_const && r->ncand && errors_made_for(m, r) == GRAPH_EF_THROWN) {
        /* An error's text thrown where nothing of ours that is near
         * catches it (`raise SystemExit("...")`, what a framework or the
         * runtime reports): the functions that raise it, as the last
         * frame of its traceback says. */
        map__activity_set_even(m, a, MAP_BY_CONST, m->cands.v + r->cand_off, r->ncand);
        return;
    }
    const char *text = core_strtab_str(&m->strs, r->text);
    if (!m->o.no_tokens) {
        if (!m->text && map_text_build(m->g, &(map_text_opts){.aside = m->aside}, &m->text) != 0)
            m->text = NULL;
        map_text_hit hit;
        if (m->text && map_text_tfidf(m->text, text, strlen(text), 1, &hit) == 1 &&
            hit.score >= m->o.tokens_min && logs_made_text(m, hit.symbol) &&
            proximity(m, NULL, 0, nb, nnb) && ppr_work_score(m->cw, hit.symbol) >= TOKENS_NEAR) {
            float c = hit.score;
            map__activity_set_syms(m, a, MAP_BY_TOKENS, &hit.symbol, &c, 1);
            return;
        }
    }
    core_vec_push(left, a);
}

/* map_by_position with a's neighbours of both kinds: those mapped when
 * they were seen (nb[0..nnb), sorted), and those placed since (ch, the
 * sorted chain). */
static bool by_position_chained(map_mapper *m, uint32_t a, const nb_rec *nb, size_t nnb,
                                const nb_rec *ch)
{
    nb_vec all = {0};
    for (size_t k = map__first_of(nb, nnb, a); k < nnb && nb[k].act == a; k++)
        core_vec_push(&all, nb[k]);
    for (size_t k = map__first_of(ch, m->chain.n, a); k < m->chain.n && ch[k].act == a; k++)
        if (m->acts.v[ch[k].nb].nsyms > 0)
            core_vec_push(&all, ch[k]);
    bool placed = all.n > 0 && map_by_position(m, a, all.v, all.n);
    core_vec_free(&all);
    return placed;
}

/* How many distinct messages of one logger must share a lead before it
 * is taken for a site's framing: a few messages beginning alike prove
 * nothing ("Package" heading two commands' tables). */
#define LEAD_MIN 8

/* A message's lead: its first word when literal (no abstracted value),
 * followed by more, and marked by a sign that is not a letter or digit
 * ("S:", "[rx]", "->"), as framing is; a word of prose ("Traceback",
 * "Connection", in any script) begins the messages of many sites. Its
 * hash with the logger, or 0 when it has none. */
static uint64_t lead_key(const map_mapper *m, const act_rec *r)
{
    if (r->strategy != MAP_BY_LOGGER || r->nsyms == 0 || r->logger == 0 ||
        r->logger == LOGGER_MIXED)
        return 0;
    const char *t = core_strtab_str(&m->strs, r->text);
    size_t n = strcspn(t, " <");
    if (n < 2 || t[n] != ' ' || t[n + 1] == '\0')
        return 0;
    size_t w = 0;
    while (w < n && ((unsigned char)t[w] >= 0x80 || isalnum((unsigned char)t[w])))
        w++;
    if (w == n)
        return 0;
    uint64_t h = core_hash64(t, n, r->logger);
    return h ? h : 1;
}

typedef struct {
    uint64_t key;
    uint32_t act;
} lead_rec;

static int cmp_lead(const void *a, const void *b)
{
    const lead_rec *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return (x->act > y->act) - (x->act < y->act);
}

/*
 * Messages no template took that one logger's records begin alike ("S: 250
 * Accepted", "S: 354 End data", ... and "C: EHLO", "C: AUTH PLAIN ...")
 * carry the framing of the one site that logs them, however their values
 * differ. A message placed among the logger's sites by nearness alone is
 * a guess its neighbours can mislead (the reply before the data is sent
 * sits next to what the sending function logs): its lead's messages,
 * placed by whatever evidence each had, weighted by their records, order
 * its sites instead, when they put another first. Half its weight stays
 * spread evenly, as nearness left it. v[0..n): the messages' leads,
 * sorted.
 */
static void pool_leads(map_mapper *m, const lead_rec *v, size_t n)
{
    uint32_t us[MAX_CAND];
    double uw[MAX_CAND];
    for (size_t i = 0, j; i < n; i = j) {
        for (j = i; j < n && v[j].key == v[i].key; j++)
            ;
        if (j - i < LEAD_MIN)
            continue;
        uint32_t nu = 0; /* the functions the lead's messages went to */
        for (size_t k = i; k < j; k++) {
            const act_rec *r = &m->acts.v[v[k].act];
            for (uint32_t q = 0; q < r->nsyms; q++)
                add_weight(us, uw, &nu, m->syms.v[r->sym_off + q],
                           (double)r->count * m->conf.v[r->sym_off + q]);
        }
        for (size_t k = i; k < j; k++) {
            act_rec *r = &m->acts.v[v[k].act];
            if (!r->near_only)
                continue;
            uint32_t *s = m->syms.v + r->sym_off, ns = r->nsyms;
            double w[MAX_CAND], sum = 0;
            for (uint32_t q = 0; q < ns; q++) {
                uint32_t u = 0;
                while (u < nu && us[u] != s[q])
                    u++;
                w[q] = u < nu ? uw[u] : 0;
                sum += w[q];
            }
            uint32_t best = 0;
            for (uint32_t q = 1; q < ns; q++)
                if (w[q] > w[best])
                    best = q;
            /* Where they agree on the first (s is best first), its own
             * weights stand: they say how sure it is. */
            if (sum <= 0 || best == 0)
                continue;
            sort_weighted(s, w, ns);
            for (uint32_t q = 0; q < ns; q++)
                m->conf.v[r->sym_off + q] = (float)(0.5 / ns + 0.5 * w[q] / sum);
        }
    }
}

/* pool_leads over every message placed so far; then this finish's marks
 * of nearness go. */
static void weigh_by_lead(map_mapper *m)
{
    core_vec(lead_rec) v = {0};
    for (uint32_t a = 0; a < m->acts.n; a++) {
        uint64_t k = lead_key(m, &m->acts.v[a]);
        if (k)
            core_vec_push(&v, ((lead_rec){k, a}));
    }
    if (v.n >= LEAD_MIN) {
        qsort(v.v, v.n, sizeof *v.v, cmp_lead);
        pool_leads(m, v.v, v.n);
    }
    for (uint32_t a = 0; a < m->acts.n; a++)
        m->acts.v[a].near_only = false;
    core_vec_free(&v);
}

int map_mapper_finish(map_mapper *m, char *why, size_t whylen)
{
    apply_code_votes(m);
    count_runs(m);
    apply_group_weights(m);
    apply_runs_weights(m);
    apply_refutations(m);
    core_map_free(&m->live);
    for (uint32_t a = 0; a < m->acts.n; a++)
        if (m->acts.v[a].nsyms) {
            bool ins;
            *core_map_put(&m->live, map__key64(m->syms.v[m->acts.v[a].sym_off]), &ins) = 1;
        }
    /* Neighbours grouped by activity. */
    nb_rec *nb = sorted_copy(&m->nbs), *ch = sorted_copy(&m->chain);
    size_t ni = 0, nnb = m->nbs.n; /* nb's length */
    act_list left = {0}, later = {0};
    for (uint32_t a = 0; a < m->acts.n; a++) {
        while (ni < nnb && nb[ni].act < a)
            ni++;
        size_t nj = ni;
        while (nj < nnb && nb[nj].act == a)
            nj++;
        act_rec *r = &m->acts.v[a];
        if (r->tried || r->nsyms > 0 || a == m->other) {
            r->tried = true;
            continue;
        }
        r->tried = true;
        if (!m->o.no_const &&
            (map_by_errors(m, a, nb + ni, nj - ni) || map_by_constants(m, a, nb + ni, nj - ni)))
            continue;
        if (!m->o.no_logger && map_by_position(m, a, nb + ni, nj - ni))
            continue;
        /* Next to messages not placed yet: placed by position once they
         * are, before any weaker strategy. */
        size_t c0 = map__first_of(ch, m->chain.n, a);
        if (!m->o.no_logger && c0 < m->chain.n && ch[c0].act == a) {
            core_vec_push(&later, a);
            continue;
        }
        place_rest(m, a, nb + ni, nj - ni, &left);
    }
    /* Rounds, while one places something: a chain of such messages is
     * placed from its placed end. */
    for (bool more = later.n > 0; more;) {
        more = false;
        size_t keep = 0;
        for (size_t i = 0; i < later.n; i++) {
            uint32_t a = later.v[i];
            if (by_position_chained(m, a, nb, nnb, ch))
                more = true;
            else
                later.v[keep++] = a;
        }
        later.n = keep;
    }
    for (size_t i = 0; i < later.n; i++) {
        uint32_t a = later.v[i];
        size_t k = map__first_of(nb, nnb, a), e = k;
        while (e < nnb && nb[e].act == a)
            e++;
        place_rest(m, a, nb + k, e - k, &left);
    }
    core_vec_free(&later);
    free(ch);
    free(nb);
    weigh_by_lead(m);
    int rc = 0;
    if (m->o.llm_cmd && left.n > 0) {
        if (!m->text && map_text_build(m->g, &(map_text_opts){.aside = m->aside}, &m->text) != 0)
            m->text = NULL;
        map_llm_item *items = core_xcalloc(left.n, sizeof *items);
        uint32_t *cand = core_xcalloc(left.n * 5, sizeof *cand);
        for (size_t i = 0; i < left.n; i++) {
            const act_rec *r = &m->acts.v[left.v[i]];
            items[i].text = core_strtab_str(&m->strs, r->text);
            items[i].count = r->count;
            map_text_hit hits[5];
            uint32_t nh =
                m->text ? map_text_tfidf(m->text, items[i].text, strlen(items[i].text), 5, hits)
                        : 0;
            for (uint32_t k = 0; k < nh; k++)
                cand[i * 5 + k] = hits[k].symbol;
            items[i].candidates = cand + i * 5;
            items[i].ncandidates = nh;
        }
        map_llm_opts lo = {.cmd = m->o.llm_cmd,
                           .batch = m->o.llm_batch,
                           .timeout_ms = m->o.llm_timeout_ms,
                           .log = m->o.log};
        llm_ctx c = {.m = m, .acts = left.v};
        rc = map_llm_map(m->g, items, left.n, &lo, llm_take, &c, NULL, why, whylen);
        /* Group the proposals per activity (they come in item order). */
        for (size_t i = 0; i < c.props.n;) {
            size_t j = i;
            uint32_t s[MAX_CAND];
            float cf[MAX_CAND];
            uint32_t n = 0;
            double sum = 0;
            while (j < c.props.n && c.props.v[j].act == c.props.v[i].act) {
                float f;
                memcpy(&f, &c.props.v[j].count, sizeof f);
                if (n < MAX_CAND) {
                    s[n] = c.props.v[j].nb;
                    cf[n++] = f;
                    sum += f;
                }
                j++;
            }
            if (sum > 1)
                for (uint32_t k = 0; k < n; k++)
                    cf[k] = (float)(cf[k] / sum);
            map__activity_set_syms(m, c.props.v[i].act, MAP_BY_LLM, s, cf, n);
            i = j;
        }
        core_vec_free(&c.props);
        free(items);
        free(cand);
    }
    core_vec_free(&left);
    return rc;
}
