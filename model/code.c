/*
 * The code's successor prior (model_int.h): what the code says can log
 * after an activity, from the static successor model of its emit sites
 * (graph_next_sites), as a distribution over the symbols that would log
 * it. The walk backs off to it where the contexts know little (rank.c).
 *
 * An activity's sites are, in each of its symbols, the emit sites whose
 * template is the activity's text (or logs a constant that is), else all
 * of the symbol's sites the model has successors for; each symbol weighs
 * its mapping confidence, split evenly over its sites. Each site passes
 * its weight to its successors' symbols by their weights. Only rankable
 * symbols count, at most CODE_MAX. The weights are probabilities: their
 * sum is what the code knows of what comes next (at most 1; the rest is
 * the end of the case, or what the code cannot see), and what it does not
 * know stays with recency. Nothing here looks at a trace: the prior is the same whatever
 * the model was trained on, and an activity the model has no node for
 * (one the daemon's mapper met since) gets it from the mapper directly.
 */
#include "model_int.h"

#include <stdlib.h>

/* Whether site e of the graph logs text: its template, or that of the
 * constant it logs, is the activity's text, or the start of it before a
 * " @" (an activity of a template several functions log, told apart). */
static bool site_logs(const graph *g, const graph_emit *e, const char *text)
{
    const char *t = e->tmpl;
    if (e->ref_const != GRAPH_NONE && !t[0]) {
        graph_emit c;
        graph_get_emit(g, e->ref_const, &c);
        t = c.tmpl;
    }
    if (!t[0])
        return false;
    size_t n = strlen(t);
    return strncmp(text, t, n) == 0 && (text[n] == 0 || (text[n] == ' ' && text[n + 1] == '@'));
}

/* The sites of an activity in symbol s, each appended with weight w /
 * their number: those that log its text, else every site of s with
 * successors. */
static void symbol_sites(const graph *g, uint32_t s, const char *text, double w, model_entries *out)
{
    uint32_t first, n = graph_symbol_emits(g, s, &first);
    size_t at = out->n;
    for (int pass = 0; pass < 2 && out->n == at; pass++) {
        for (uint32_t e = first; e < first + n; e++) {
            uint32_t nn;
            graph_next_sites(g, e, &nn);
            if (!nn)
                continue;
            graph_emit em;
            graph_get_emit(g, e, &em);
            if (pass == 0 && !site_logs(g, &em, text))
                continue;
            core_vec_push(out, ((ppr_entry){e, 0}));
        }
    }
    for (size_t i = at; i < out->n; i++)
        out->v[i].score = (float)(w / (double)(out->n - at));
}

void model__code_sites(const model_joint *md, const char *text, const uint32_t *syms,
                       const float *conf, uint32_t nsyms, code_scratch *cs)
{
    cs->sites.n = 0;
    for (uint32_t i = 0; i < nsyms; i++)
        if (syms[i] < md->S && conf[i] > 0)
            symbol_sites(md->g, syms[i], text ? text : "", conf[i], &cs->sites);
}

static int cmp_entry(const void *a, const void *b)
{
    const ppr_entry *x = a, *y = b;
    return score_before(x, y) ? -1 : score_before(y, x) ? 1 : 0;
}

uint32_t model__code_dist(const model_joint *md, const char *text, const uint32_t *syms,
                          const float *conf, uint32_t nsyms, code_scratch *cs, ppr_entry *out)
{
    model__code_sites(md, text, syms, conf, nsyms, cs);
    if (!cs->acc)
        cs->acc = core_xcalloc(md->S ? md->S : 1, sizeof *cs->acc);
    cs->touched.n = 0;
    double total = 0;
    for (size_t i = 0; i < cs->sites.n; i++) {
        uint32_t n;
        const graph_next *nx = graph_next_sites(md->g, cs->sites.v[i].node, &n);
        for (uint32_t j = 0; j < n; j++) {
            graph_emit e;
            graph_get_emit(md->g, nx[j].emit, &e);
            if (e.symbol >= md->S || !md->rankable[e.symbol])
                continue;
            double x = (double)cs->sites.v[i].score * nx[j].weight;
            if (cs->acc[e.symbol] == 0)
                core_vec_push(&cs->touched, ((ppr_entry){e.symbol, 0}));
            cs->acc[e.symbol] += x;
            total += x;
        }
    }
    for (size_t i = 0; i < cs->touched.n; i++) {
        uint32_t s = cs->touched.v[i].node;
        cs->touched.v[i].score = (float)cs->acc[s];
        cs->acc[s] = 0;
    }
    if (!(total > 0))
        return 0;
    qsort(cs->touched.v, cs->touched.n, sizeof *cs->touched.v, cmp_entry);
    uint32_t n = cs->touched.n < CODE_MAX ? (uint32_t)cs->touched.n : CODE_MAX;
    memcpy(out, cs->touched.v, n * sizeof *out);
    return n;
}

void model__code_scratch_free(code_scratch *cs)
{
    free(cs->acc);
    core_vec_free(&cs->sites);
    core_vec_free(&cs->touched);
    memset(cs, 0, sizeof *cs);
}

void model__code_build(model_joint *md, const model_mapper_snap *sn)
{
    md->code_off = core_xcalloc((size_t)md->A + 1, sizeof *md->code_off);
    model_entries all = {0};
    code_scratch cs = {0};
    ppr_entry tmp[CODE_MAX];
    for (uint32_t a = 0; a < md->A; a++) {
        map_activity pa;
        model__act_syms(md, sn, a, &pa);
        const char *text = model__act_text(md, sn, a);
        uint32_t n =
            pa.nsyms ? model__code_dist(md, text, pa.syms, pa.conf, pa.nsyms, &cs, tmp) : 0;
        for (uint32_t i = 0; i < n; i++)
            core_vec_push(&all, tmp[i]);
        md->code_off[a + 1] = (uint32_t)all.n;
    }
    md->code = all.v;
    model__code_scratch_free(&cs);
}

/* "FILE:LINE (SYMBOL)" of an emit site. */
static void site_text(const graph *g, uint32_t emit, core_buf *out)
{
    graph_emit e;
    graph_get_emit(g, emit, &e);
    graph_symbol s;
    graph_get_symbol(g, e.symbol, &s);
    core_buf_printf(out, "%s:%u (%s)", s.file, e.line, s.qualname);
}

bool model_explain_code(const model_joint *md, model_work *w, uint32_t symbol, core_buf *out)
{
    bool given = false;
    for (uint32_t i = 0; i < w->code_n && !given; i++)
        given = w->code_e[i].node == symbol;
    if (!given || w->code_act >= map_mapper_nactivities(md->m))
        return false;
    map_activity pa;
    map_mapper_activity(md->m, w->code_act, &pa);
    model__code_sites(md, pa.text, pa.syms, pa.conf, pa.nsyms, &w->code_cs);
    double best = 0;
    uint32_t from = UINT32_MAX, to = UINT32_MAX;
    for (size_t i = 0; i < w->code_cs.sites.n; i++) {
        uint32_t n;
        const graph_next *nx = graph_next_sites(md->g, w->code_cs.sites.v[i].node, &n);
        for (uint32_t j = 0; j < n; j++) {
            graph_emit e;
            graph_get_emit(md->g, nx[j].emit, &e);
            double x = (double)w->code_cs.sites.v[i].score * nx[j].weight;
            if (e.symbol == symbol && x > best) {
                best = x;
                from = w->code_cs.sites.v[i].node;
                to = nx[j].emit;
            }
        }
    }
    if (from == UINT32_MAX)
        return false;
    core_buf_puts(out, "from the code: ");
    site_text(md->g, from, out);
    core_buf_puts(out, " -> ");
    site_text(md->g, to, out);
    return true;
}

uint32_t model__code_of(const model_joint *md, model_work *w, uint32_t act, const ppr_entry **out)
{
    if (act < md->A) {
        *out = md->code + md->code_off[act];
        return md->code_off[act + 1] - md->code_off[act];
    }
    /* An activity newer than the model: the mapper says what it is. */
    if (act == UINT32_MAX || act >= map_mapper_nactivities(md->m))
        return 0;
    map_activity pa;
    map_mapper_activity(md->m, act, &pa);
    if (!pa.nsyms)
        return 0;
    uint32_t n =
        model__code_dist(md, pa.text, pa.syms, pa.conf, pa.nsyms, &w->code_cs, w->code_new);
    *out = w->code_new;
    return n;
}
