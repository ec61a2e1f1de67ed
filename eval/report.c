/*
 * How the mapping did, and the tables of `pmrag eval` (eval.h).
 */
#include "eval.h"

#include <stdlib.h>
#include <string.h>

static double frac(uint64_t a, uint64_t n)
{
    return n ? (double)a / (double)n : 0;
}

/* Whether a template holds literal text outside its holes (white space
 * aside): "%s %s" does not, "%s: %s" and "connect %s" do. */
static bool literal_text(const char *t)
{
    size_t n = strlen(t);
    for (size_t i = 0; i < n;) {
        if (t[i] == '%') {
            size_t d = graph_directive(t + i, n - i);
            if (d == 2 && t[i + 1] == '%')
                return true; /* "%%": a literal '%' */
            i += d ? d : 1;
            if (d == 0)
                return true; /* a '%' that starts no hole */
            continue;
        }
        if (t[i] != ' ' && t[i] != '\t' && t[i] != '\n' && t[i] != '\r')
            return true;
        i++;
    }
    return false;
}

/* Whether emit site i of g is a logging call (not a constant) in a
 * symbol, at tfile:tline unless tfile is NULL; then *e is it, with the
 * constant a name refers to read in its place (its template is the
 * message), and *s its symbol. */
static bool log_site(const graph *g, uint32_t i, const char *tfile, uint32_t tline, graph_emit *e,
                     graph_symbol *s)
{
    graph_get_emit(g, i, e);
    if (e->symbol == GRAPH_NONE || e->kind == GRAPH_EMIT_CONST || (tfile && e->line != tline))
        return false;
    graph_get_symbol(g, e->symbol, s);
    if (tfile && !eval_path_match(s->file, tfile))
        return false;
    if (e->style == GRAPH_STYLE_REF && e->ref_const != GRAPH_NONE)
        graph_get_emit(g, e->ref_const, e);
    return true;
}

/* Whether the message of an event that truly comes from tfile:tline comes
 * from the indexed code (eval_mapping). */
static bool from_code(const graph *g, const char *tfile, uint32_t tline)
{
    for (uint32_t i = 0, n = graph_nemits(g); i < n; i++) {
        graph_emit e;
        graph_symbol s;
        if (!log_site(g, i, tfile, tline, &e, &s))
            continue;
        if (s.flags & (GRAPH_SF_TAKES_TEXT | GRAPH_SF_WRAPPER))
            return true;
        if (e.style != GRAPH_STYLE_DYNAMIC && literal_text(e.tmpl))
            return true;
    }
    return false;
}

/* Whether tfile:tline is a logging site of g whose template old has at no
 * logging site (eval_added_sites); old_tmpls holds old's templates. */
static bool added_site(const graph *g, const core_smap *old_tmpls, const char *tfile,
                       uint32_t tline)
{
    bool added = false;
    for (uint32_t i = 0, n = graph_nemits(g); i < n; i++) {
        graph_emit e;
        graph_symbol s;
        if (!log_site(g, i, tfile, tline, &e, &s))
            continue;
        uint32_t it;
        size_t len = strlen(e.tmpl);
        if (len == 0 || core_smap_get(old_tmpls, e.tmpl, len, &it) != UINT32_MAX)
            return false;
        added = true;
    }
    return added;
}

uint8_t *eval_added_sites(const graph *g, const graph *old, const model_log *l)
{
    core_smap old_tmpls = {0}; /* keys borrow old */
    for (uint32_t i = 0, n = graph_nemits(old); i < n; i++) {
        graph_emit e;
        graph_symbol s;
        if (log_site(old, i, NULL, 0, &e, &s) && e.tmpl[0])
            core_smap_add(&old_tmpls, e.tmpl, strlen(e.tmpl), i);
    }
    uint8_t *out = core_xcalloc(l->nevents ? l->nevents : 1, 1);
    core_map sites = {0}; /* (truth file, line) -> added + 1 */
    for (uint64_t i = 0; i < l->nevents; i++) {
        const model_log_event *e = &l->ev[i];
        if (!e->tfile || !e->tline)
            continue;
        bool ins;
        uint64_t *v =
            core_map_put(&sites, ((uint64_t)e->tfile << 32 | e->tline) & ~(1ull << 63), &ins);
        if (ins)
            *v = 1 + added_site(g, &old_tmpls, model_log_str(l, e->tfile), e->tline);
        out[i] = *v == 2;
    }
    core_map_free(&sites);
    core_smap_free(&old_tmpls);
    return out;
}

void eval_mapping_count(const map_mapper *m, const model_log *l, uint32_t c0, uint32_t c1,
                        eval_mapping *t)
{
    memset(t, 0, sizeof *t);
    const graph *g = map_mapper_graph(m);
    uint32_t A = map_mapper_nactivities(m);
    uint8_t *seen = core_xcalloc(A ? A : 1, 1);
    core_map sites = {0}; /* (truth file, line) -> from_code + 1 */
    for (uint32_t i = l->off[c0]; i < l->off[c1]; i++) {
        const model_log_event *e = &l->ev[i];
        map_activity pa;
        map_mapper_activity(m, e->act, &pa);
        map_strategy st = pa.nsyms ? pa.strategy : MAP_BY_NONE;
        t->events[st]++;
        t->total++;
        t->amb[pa.amb]++;
        if (!seen[e->act]) {
            seen[e->act] = 1;
            t->acts[st]++;
        }
        if (l->has_truth) {
            t->truth_total++;
            const char *tfile = model_log_str(l, e->tfile);
            bool right = pa.nsyms && eval_truth_rank(g, pa.syms, pa.nsyms > 10 ? 10 : pa.nsyms,
                                                     tfile, e->tline) == 1;
            t->correct[st] += right;
            t->amb_correct[pa.amb] += right;
            bool ins;
            uint64_t *v =
                core_map_put(&sites, ((uint64_t)e->tfile << 32 | e->tline) & ~(1ull << 63), &ins);
            if (ins)
                *v = 1 + from_code(g, tfile, e->tline);
            if (*v == 2) {
                t->code_total++;
                t->code_correct += right;
            }
        }
    }
    core_map_free(&sites);
    free(seen);
}

void eval_mapping_json(const eval_mapping *t, bool truth, core_buf *b)
{
    core_buf_printf(b, "{\"events\":%llu,\"mapped\":", (unsigned long long)t->total);
    core_buf_json_double(b, frac(t->total - t->events[MAP_BY_NONE], t->total));
    core_buf_puts(b, ",\"by_strategy\":{");
    for (int st = 0; st < MAP_BY__COUNT; st++) {
        core_buf_printf(b, "%s\"%s\":", st ? "," : "", map_strategy_name(st));
        core_buf_json_double(b, frac(t->events[st], t->total));
    }
    core_buf_putc(b, '}');
    uint64_t amb = t->total - t->amb[MAP_AMB_NONE];
    core_buf_printf(b, ",\"ambiguous\":{\"events\":");
    core_buf_json_double(b, frac(amb, t->total));
    for (int a = MAP_AMB_NONE + 1; a < MAP_AMB__COUNT; a++) {
        core_buf_printf(b, ",\"%s\":", map_ambiguity_name(a));
        core_buf_json_double(b, frac(t->amb[a], t->total));
    }
    core_buf_putc(b, '}');
    if (truth) {
        core_buf_puts(b, ",\"ambiguous_correct\":{");
        for (int a = MAP_AMB_NONE + 1; a < MAP_AMB__COUNT; a++) {
            core_buf_printf(b, "%s\"%s\":", a > 1 ? "," : "", map_ambiguity_name(a));
            core_buf_json_double(b, frac(t->amb_correct[a], t->amb[a]));
        }
        core_buf_putc(b, '}');
        core_buf_puts(b, ",\"first_symbol_correct\":");
        uint64_t c = 0;
        for (int st = 0; st < MAP_BY__COUNT; st++)
            c += t->correct[st];
        core_buf_json_double(b, frac(c, t->truth_total));
        core_buf_puts(b, ",\"correct_by_strategy\":{");
        for (int st = 1, k = 0; st < MAP_BY__COUNT; st++) {
            if (!t->events[st])
                continue;
            core_buf_printf(b, "%s\"%s\":", k++ ? "," : "", map_strategy_name(st));
            core_buf_json_double(b, frac(t->correct[st], t->events[st]));
        }
        core_buf_printf(b, "},\"from_code_events\":%llu,\"from_code_correct\":",
                        (unsigned long long)t->code_total);
        core_buf_json_double(b, frac(t->code_correct, t->code_total));
    }
    core_buf_putc(b, '}');
}

void eval_mapping_text(const eval_mapping *t, bool truth, core_buf *b)
{
    core_buf_printf(b, "%-10s %10s %8s %10s%s\n", "strategy", "events", "share", "activities",
                    truth ? "  first symbol correct" : "");
    for (int st = 1; st <= MAP_BY__COUNT; st++) {
        int k = st % MAP_BY__COUNT; /* none last */
        if (!t->events[k] && k != MAP_BY_NONE)
            continue;
        core_buf_printf(b, "%-10s %10llu %7.1f%% %10llu", k ? map_strategy_name(k) : "unmapped",
                        (unsigned long long)t->events[k], 100 * frac(t->events[k], t->total),
                        (unsigned long long)t->acts[k]);
        if (truth && k)
            core_buf_printf(b, "  %6.1f%%", 100 * frac(t->correct[k], t->events[k]));
        core_buf_putc(b, '\n');
    }
    if (truth)
        core_buf_printf(b,
                        "message from the code: %llu events (%.1f%%), first symbol correct "
                        "%.1f%%\n",
                        (unsigned long long)t->code_total, 100 * frac(t->code_total, t->total),
                        100 * frac(t->code_correct, t->code_total));
    uint64_t amb = t->total - t->amb[MAP_AMB_NONE];
    if (!amb)
        return;
    core_buf_printf(b, "several sites log the template: %llu events (%.1f%%)",
                    (unsigned long long)amb, 100 * frac(amb, t->total));
    static const char *how[MAP_AMB__COUNT] = {"",
                                              "one chosen by the case",
                                              "one named by the message",
                                              "one in its logger's file",
                                              "weighted by the traces",
                                              "kept tied",
                                              "weighted by the variant the log runs"};
    for (int a = MAP_AMB_NONE + 1; a < MAP_AMB__COUNT; a++) {
        if (!t->amb[a])
            continue;
        core_buf_printf(b, "; %s %.1f%%", how[a], 100 * frac(t->amb[a], amb));
        if (truth)
            core_buf_printf(b, " (right %.1f%%)", 100 * frac(t->amb_correct[a], t->amb[a]));
    }
    core_buf_putc(b, '\n');
}

static void ranks_json(core_buf *b, const eval_ranks *r)
{
    core_buf_printf(b, "{\"n\":%llu,\"top_k\":{", (unsigned long long)r->n);
    for (int i = 0; i < EVAL_NK; i++) {
        core_buf_printf(b, "%s\"%u\":", i ? "," : "", eval_ks[i]);
        core_buf_json_double(b, eval_ranks_top(r, i));
    }
    core_buf_puts(b, "},\"mrr\":");
    core_buf_json_double(b, eval_ranks_mrr(r));
    core_buf_putc(b, '}');
}

void eval_report_json(const eval_report *r, core_buf *o)
{
    const eval_result *x = r->result;
    const model_log *l = r->log;
    core_buf_printf(o, "{\"task\":\"next-event-localization\",\"n\":%llu,\"top_k\":{",
                    (unsigned long long)x->all.n);
    for (int i = 0; i < EVAL_NK; i++) {
        core_buf_printf(o, "%s\"%u\":", i ? "," : "", eval_ks[i]);
        core_buf_json_double(o, eval_ranks_top(&x->all, i));
    }
    core_buf_puts(o, "},\"mrr\":");
    core_buf_json_double(o, eval_ranks_mrr(&x->all));
    core_buf_puts(o, ",\"coverage\":");
    eval_mapping_json(r->mapping, true, o);
    core_buf_puts(o, ",\"mapping_misses\":");
    eval_misses_json(r->mapper, l, r->misses, r->nmisses, o);
    core_buf_puts(o, ",\"change\":");
    ranks_json(o, &x->change);
    core_buf_puts(o, ",\"unseen\":");
    ranks_json(o, &x->unseen);
    if (r->added_since) {
        core_buf_puts(o, ",\"added\":");
        ranks_json(o, &x->added);
    }
    core_buf_printf(o, ",\"unpredictable\":%llu,\"baselines\":{",
                    (unsigned long long)x->unpredictable);
    for (int bl = 0; r->baselines && bl < EVAL_BL__COUNT; bl++) {
        core_buf_printf(o, "%s\"%s\":{\"all\":", bl ? "," : "",
                        eval_baseline_name((eval_baseline)bl));
        ranks_json(o, &x->bl_all[bl]);
        core_buf_puts(o, ",\"change\":");
        ranks_json(o, &x->bl_change[bl]);
        core_buf_puts(o, ",\"unseen\":");
        ranks_json(o, &x->bl_unseen[bl]);
        core_buf_putc(o, '}');
    }
    core_buf_printf(o,
                    "},\"cases\":{\"train\":%u,\"test\":%u},\"events\":%llu,\"params\":", l->ntrain,
                    l->ncases - l->ntrain, (unsigned long long)l->nevents);
    model_params_format(r->params, true, o);
    core_buf_printf(o, ",\"model\":{\"activities\":%u,\"contexts\":%u,\"variants_kept\":%u}",
                    r->model.activities, r->model.contexts, r->model.variants_kept);
    if (r->ncurve) {
        core_buf_puts(o, ",\"learning_curve\":[");
        for (uint32_t i = 0; i < r->ncurve; i++) {
            const eval_curve_point *pt = &r->curve[i];
            core_buf_printf(o, "%s{\"train_cases\":%u,\"pmrag\":{\"all\":", i ? "," : "",
                            pt->cases);
            ranks_json(o, &pt->all);
            core_buf_puts(o, ",\"change\":");
            ranks_json(o, &pt->change);
            core_buf_puts(o, "},\"df2\":{\"all\":");
            ranks_json(o, &pt->df2_all);
            core_buf_puts(o, ",\"change\":");
            ranks_json(o, &pt->df2_change);
            core_buf_puts(o, "},\"df2_true\":");
            if (pt->true_all.n) {
                core_buf_puts(o, "{\"all\":");
                ranks_json(o, &pt->true_all);
                core_buf_puts(o, ",\"change\":");
                ranks_json(o, &pt->true_change);
                core_buf_putc(o, '}');
            } else {
                core_buf_puts(o, "null");
            }
            core_buf_putc(o, '}');
        }
        core_buf_putc(o, ']');
    }
    core_buf_puts(o, ",\"seconds\":{\"train\":");
    core_buf_json_double(o, r->train_seconds);
    core_buf_puts(o, ",\"eval\":");
    core_buf_json_double(o, r->eval_seconds);
    core_buf_puts(o, "}}\n");
}

void eval_report_text(const eval_report *r, core_buf *o)
{
    const eval_result *x = r->result;
    const model_log *l = r->log;
    core_buf_printf(o, "%llu events, %u cases: %u train, %u test; %llu targets (%llu change)\n",
                    (unsigned long long)l->nevents, l->ncases, l->ntrain, l->ncases - l->ntrain,
                    (unsigned long long)x->all.n, (unsigned long long)x->change.n);
    core_buf_puts(o, "model: ");
    model_params_format(r->params, false, o);
    core_buf_printf(o,
                    "\n       %u activities, %u contexts, %u with variants; trained in "
                    "%.2f s, scored in %.2f s\n\n",
                    r->model.activities, r->model.contexts, r->model.variants_kept,
                    r->train_seconds, r->eval_seconds);
    core_buf_printf(o, "%-18s %7s %7s %7s %7s %7s   %7s %7s %7s\n", "", "top-1", "top-3", "top-5",
                    "top-10", "MRR", "chg@1", "chg@3", "chg MRR");
    for (int row = -1; row < (r->baselines ? EVAL_BL__COUNT : 0); row++) {
        const eval_ranks *a = row < 0 ? &x->all : &x->bl_all[row];
        const eval_ranks *c = row < 0 ? &x->change : &x->bl_change[row];
        core_buf_printf(o, "%-18s %7.3f %7.3f %7.3f %7.3f %7.3f   %7.3f %7.3f %7.3f\n",
                        row < 0 ? "pmrag" : eval_baseline_name((eval_baseline)row),
                        eval_ranks_top(a, 0), eval_ranks_top(a, 1), eval_ranks_top(a, 2),
                        eval_ranks_top(a, 3), eval_ranks_mrr(a), eval_ranks_top(c, 0),
                        eval_ranks_top(c, 1), eval_ranks_mrr(c));
    }
    core_buf_printf(o, "unseen transitions: %llu targets (%.1f%%), pmrag top-1 %.3f top-3 %.3f",
                    (unsigned long long)x->unseen.n, 100 * frac(x->unseen.n, x->all.n),
                    eval_ranks_top(&x->unseen, 0), eval_ranks_top(&x->unseen, 1));
    if (r->baselines)
        core_buf_printf(o, ", df2 top-1 %.3f top-3 %.3f",
                        eval_ranks_top(&x->bl_unseen[EVAL_BL_DF2], 0),
                        eval_ranks_top(&x->bl_unseen[EVAL_BL_DF2], 1));
    if (r->added_since)
        core_buf_printf(o,
                        "\npaths added since %s: %llu targets (%.1f%%), pmrag top-1 %.3f "
                        "top-3 %.3f",
                        r->added_since, (unsigned long long)x->added.n,
                        100 * frac(x->added.n, x->all.n), eval_ranks_top(&x->added, 0),
                        eval_ranks_top(&x->added, 1));
    core_buf_puts(o, "\n\nmapping of the test events:\n");
    eval_mapping_text(r->mapping, true, o);
    if (r->nmisses) {
        core_buf_puts(o, "\nlargest misses of the mapping (missed/events, strategy, activity):\n");
        eval_misses_text(r->mapper, l, r->misses, r->nmisses, o);
    }
    if (r->ncurve) {
        core_buf_puts(o, "\nlearning curve (the same test split; the first K training cases "
                         "train; df2* is df2 over the true emitters):\n");
        core_buf_printf(o, "%8s   %7s %7s   %7s %7s   %7s %7s\n", "K", "top-1", "chg@1", "df2",
                        "chg@1", "df2*", "chg@1");
        for (uint32_t i = 0; i < r->ncurve; i++) {
            const eval_curve_point *pt = &r->curve[i];
            if (i > 0 && pt->cases == r->curve[i - 1].cases)
                continue; /* a split with fewer training cases than asked */
            core_buf_printf(o, "%8u   %7.3f %7.3f   %7.3f %7.3f", pt->cases,
                            eval_ranks_top(&pt->all, 0), eval_ranks_top(&pt->change, 0),
                            eval_ranks_top(&pt->df2_all, 0), eval_ranks_top(&pt->df2_change, 0));
            if (pt->true_all.n)
                core_buf_printf(o, "   %7.3f %7.3f", eval_ranks_top(&pt->true_all, 0),
                                eval_ranks_top(&pt->true_change, 0));
            core_buf_putc(o, '\n');
        }
    }
}

static int cmp_miss(const void *a, const void *b)
{
    const eval_miss *x = a, *y = b;
    if (x->missed != y->missed)
        return x->missed > y->missed ? -1 : 1;
    return (x->activity > y->activity) - (x->activity < y->activity);
}

uint32_t eval_mapping_misses(const map_mapper *m, const model_log *l, uint32_t c0, uint32_t c1,
                             eval_miss *out, uint32_t max)
{
    const graph *g = map_mapper_graph(m);
    uint32_t A = map_mapper_nactivities(m);
    eval_miss *all = core_xcalloc(A ? A : 1, sizeof *all);
    for (uint32_t i = l->off[c0]; i < l->off[c1]; i++) {
        const model_log_event *e = &l->ev[i];
        if (e->act >= A)
            continue;
        eval_miss *x = &all[e->act];
        map_activity pa;
        map_mapper_activity(m, e->act, &pa);
        x->activity = e->act;
        x->strategy = pa.nsyms ? pa.strategy : MAP_BY_NONE;
        x->events++;
        bool missed = !pa.nsyms;
        if (!missed && l->has_truth)
            missed = eval_truth_rank(g, pa.syms, 1, model_log_str(l, e->tfile), e->tline) != 1;
        if (missed) {
            if (!x->missed) {
                x->tfile = e->tfile;
                x->tline = e->tline;
            }
            x->missed++;
        }
    }
    qsort(all, A, sizeof *all, cmp_miss);
    uint32_t n = 0;
    while (n < max && n < A && all[n].missed)
        n++;
    memcpy(out, all, n * sizeof *out);
    free(all);
    return n;
}

static const char *sample_of(const model_log *l, uint32_t act)
{
    return act < l->nsample && l->sample[act] ? model_log_str(l, l->sample[act]) : "";
}

void eval_misses_json(const map_mapper *m, const model_log *l, const eval_miss *x, uint32_t n,
                      core_buf *b)
{
    const graph *g = map_mapper_graph(m);
    core_buf_putc(b, '[');
    for (uint32_t i = 0; i < n; i++) {
        map_activity pa;
        map_mapper_activity(m, x[i].activity, &pa);
        const char *sample = sample_of(l, x[i].activity);
        core_buf_puts(b, i ? ",{\"activity\":" : "{\"activity\":");
        core_buf_json_str(b, pa.text, strlen(pa.text));
        core_buf_printf(b, ",\"strategy\":\"%s\",\"events\":%llu,\"missed\":%llu,\"sample\":",
                        map_strategy_name(x[i].strategy), (unsigned long long)x[i].events,
                        (unsigned long long)x[i].missed);
        core_buf_json_str(b, sample, strlen(sample));
        if (x[i].tline) {
            core_buf t = {0};
            core_buf_printf(&t, "%s:%u", model_log_str(l, x[i].tfile), x[i].tline);
            core_buf_puts(b, ",\"truth\":");
            core_buf_json_str(b, t.data, t.len);
            core_buf_free(&t);
        }
        if (pa.nsyms) {
            graph_symbol s;
            graph_get_symbol(g, pa.syms[0], &s);
            core_buf_puts(b, ",\"mapped_to\":");
            core_buf_json_str(b, s.qualname, strlen(s.qualname));
        }
        core_buf_putc(b, '}');
    }
    core_buf_putc(b, ']');
}

void eval_misses_text(const map_mapper *m, const model_log *l, const eval_miss *x, uint32_t n,
                      core_buf *b)
{
    const graph *g = map_mapper_graph(m);
    for (uint32_t i = 0; i < n; i++) {
        map_activity pa;
        map_mapper_activity(m, x[i].activity, &pa);
        core_buf_printf(b, "%8llu/%-8llu %-8s ", (unsigned long long)x[i].missed,
                        (unsigned long long)x[i].events,
                        x[i].strategy ? map_strategy_name(x[i].strategy) : "unmapped");
        core_buf_oneline(b, pa.text, 90);
        core_buf_puts(b, "\n                    sample: ");
        core_buf_oneline(b, sample_of(l, x[i].activity), 100);
        if (x[i].tline)
            core_buf_printf(b, "\n                    truth:  %s:%u", model_log_str(l, x[i].tfile),
                            x[i].tline);
        if (pa.nsyms) {
            graph_symbol s;
            graph_get_symbol(g, pa.syms[0], &s);
            core_buf_printf(b, "\n                    mapped: %s (%s:%u-%u)", s.qualname, s.file,
                            s.start_line, s.end_line);
        }
        core_buf_putc(b, '\n');
    }
}
