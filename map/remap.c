/*
 * A dictionary carried onto another graph (map.h, map_dict_remap). Saved
 * records name symbols by their ids in the graph they were saved for;
 * here every activity finds its sites on the new graph by its template's
 * text instead: the same text anywhere (it moved, or stayed), a similar
 * text no other activity claims (it was reworded), or nothing (gone).
 */
#include "map_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Sites and symbols kept per activity, as the mapper keeps a match's. */
#define MAX_SITES 64
/* Templates are compared on at most this many bytes (holes as one). */
#define SIM_MAX 256
#define HOLE_BYTE '\x01'

const char *map_remap_kind_name(map_remap_kind k)
{
    static const char *const names[] = {"kept", "moved", "found", "changed", "gone", "again"};
    return k < MAP_REMAP__COUNT ? names[k] : "?";
}

/* One saved activity being carried over. */
typedef struct old_act {
    map__dict_rec d;
    char *text;        /* the saved text, NUL-terminated */
    size_t base;       /* bytes of it that are the template ... */
    const char *names; /* ... then " @" and the functions it was narrowed to, or NULL */
    const char *told;  /* ... or " (" and the word its messages' values named, or NULL */
    bool tmpl;         /* made by a template (or a constant holding one) */
    /* Out: the new graph's sites, the text taken when reworded (owned). */
    uint32_t sites[MAX_SITES];
    uint32_t nsites;
    char *new_text;
    float sim;
} old_act;

/* The new graph's templates by text: emit sites that show literal text,
 * those that log (per text, a list) and the constants apart. */
typedef struct tmpl_index {
    core_smap logs, consts; /* keys borrow the graph */
    /* Distinct texts that log, with at least 3 literal bytes (10 for a
     * candidate call, as the matcher asks of one): what a rewording can be
     * matched to, a site each. */
    core_vec(uint32_t) texts;
    core_vec(uint32_t) const_texts;
} tmpl_index;

static uint32_t literal_bytes(const char *t, size_t n)
{
    uint32_t lit = 0;
    for (size_t i = 0; i < n;) {
        graph_tmpl_piece p;
        i += graph_tmpl_step(t, n, i, &p);
        lit += !p.hole;
    }
    return lit;
}

static void index_build(const graph *g, tmpl_index *ix)
{
    for (uint32_t e = 0; e < graph_nemits(g); e++) {
        graph_emit em;
        graph_get_emit(g, e, &em);
        if (em.symbol == GRAPH_NONE)
            continue;
        const char *t = map__template_text(g, e);
        size_t n = strlen(t);
        if (n == 0)
            continue;
        /* Calls of a function of the codebase's own that logs (ldap3's
         * log(BASIC, "...")) are sites as the matcher takes them. */
        bool is_const = map__emit_is_const(&em);
        core_smap *sm = is_const ? &ix->consts : &ix->logs;
        uint32_t it;
        bool seen = core_smap_get(sm, t, n, &it) != UINT32_MAX;
        core_smap_add(sm, t, n, e);
        if (!seen && literal_bytes(t, n) >= (em.kind == GRAPH_EMIT_CALL ? 10 : 3)) {
            if (is_const)
                core_vec_push(&ix->const_texts, e);
            else
                core_vec_push(&ix->texts, e);
        }
    }
}

static void index_free(tmpl_index *ix)
{
    core_smap_free(&ix->logs);
    core_smap_free(&ix->consts);
    core_vec_free(&ix->texts);
    core_vec_free(&ix->const_texts);
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/*
 * The sites of text t (n bytes) among the logging sites or the constants,
 * in id order; those in files set aside only when no other has it (as the
 * matcher takes them); narrowed to the functions named in names ("a|b")
 * when some of them are. Returns how many (at most MAX_SITES).
 */
static uint32_t sites_of(const map_mapper *m, const tmpl_index *ix, bool is_const, const char *t,
                         size_t n, const char *names, uint32_t *out)
{
    const graph *g = map_mapper_graph(m);
    uint32_t all[MAX_SITES], na = 0, it;
    const core_smap *sm = is_const ? &ix->consts : &ix->logs;
    for (uint32_t e = core_smap_get(sm, t, n, &it); e != UINT32_MAX && na < MAX_SITES;
         e = core_smap_next(sm, t, n, &it))
        all[na++] = e;
    qsort(all, na, sizeof *all, cmp_u32);
    bool product = false;
    for (uint32_t i = 0; i < na && !product; i++) {
        graph_emit em;
        graph_get_emit(g, all[i], &em);
        product = !map__symbol_aside(m, em.symbol);
    }
    uint32_t k = 0, named = 0;
    for (uint32_t i = 0; i < na; i++) {
        graph_emit em;
        graph_get_emit(g, all[i], &em);
        if (product && map__symbol_aside(m, em.symbol))
            continue;
        out[k++] = all[i];
    }
    if (!names)
        return k;
    /* A narrowed activity: its sites in the functions it names. */
    for (uint32_t i = 0; i < k; i++) {
        uint32_t sym;
        map__emit_symbols(g, &out[i], 1, &sym);
        graph_symbol s;
        graph_get_symbol(g, sym, &s);
        size_t ql = strlen(s.qualname);
        for (const char *p = names; *p;) {
            const char *bar = strchr(p, '|');
            size_t l = bar ? (size_t)(bar - p) : strlen(p);
            if (l == ql && memcmp(p, s.qualname, l) == 0) {
                out[named++] = out[i];
                break;
            }
            p += l + (bar != NULL);
        }
    }
    return named;
}

/* Splits a saved text into its template and the functions it was
 * narrowed to: "TEMPLATE @a.f|b.g" (map_mapper_map's form for a template
 * several sites log) when the part after the last " @" has no space. */
static void split_names(old_act *a)
{
    a->base = strlen(a->text);
    a->names = NULL;
    /* A member of a group narrowed by the logger has two:
     * "TEMPLATE @A|B @B". The template is before the first, the names
     * are the last's. */
    for (;;) {
        const char *at = NULL;
        for (const char *p = strstr(a->text, " @"); p && p < a->text + a->base;
             p = strstr(p + 1, " @"))
            at = p;
        const char *names = at ? at + 2 : NULL, *end = a->text + a->base;
        if (!names || names >= end || memchr(names, ' ', (size_t)(end - names)))
            break;
        a->base = (size_t)(at - a->text);
        if (!a->names)
            a->names = names;
    }
    /* A template's messages that named a variant by a value:
     * "TEMPLATE (word)" (map_mapper_map's form; see map__value_told). A
     * template ending so itself is found by untell(). */
    a->told = NULL;
    const char *open = a->names ? NULL : strrchr(a->text, '(');
    size_t rest = open ? strlen(open + 1) : 0, wl = rest ? rest - 1 : 0;
    if (open && open > a->text && open[-1] == ' ' && wl > 0 && open[wl + 1] == ')' &&
        graph_value_literal(open + 1, wl)) {
        a->told = open - 1;
        a->base = (size_t)(a->told - a->text);
    }
}

/* The saved text whole as the template, for a template that ends with a
 * word in brackets itself. */
static void untell(old_act *a)
{
    a->told = NULL;
    a->base = strlen(a->text);
}

/* ---- similarity of templates ---- */

/* A template as compared: literal bytes, every hole one HOLE_BYTE, cut at
 * SIM_MAX bytes. Returns the length. */
static size_t sim_form(const char *t, size_t n, char *out)
{
    size_t k = 0;
    for (size_t i = 0; i < n && k < SIM_MAX;) {
        graph_tmpl_piece p;
        i += graph_tmpl_step(t, n, i, &p);
        out[k++] = p.hole ? HOLE_BYTE : p.lit;
    }
    return k;
}

/* One minus the edit distance of a and b over the longer length; 0 when
 * it cannot reach floor (checked on the lengths first, which bound it). */
static double similarity(const char *a, size_t la, const char *b, size_t lb, double floor,
                         uint16_t *row)
{
    size_t lmax = la > lb ? la : lb, lmin = la < lb ? la : lb;
    if (lmax == 0 || (double)lmin / (double)lmax < floor)
        return 0;
    for (size_t j = 0; j <= lb; j++)
        row[j] = (uint16_t)j;
    for (size_t i = 1; i <= la; i++) {
        uint16_t diag = row[0];
        row[0] = (uint16_t)i;
        for (size_t j = 1; j <= lb; j++) {
            uint16_t up = row[j];
            uint16_t best = (uint16_t)(diag + (a[i - 1] != b[j - 1]));
            if (up + 1 < best)
                best = (uint16_t)(up + 1);
            if (row[j - 1] + 1 < best)
                best = (uint16_t)(row[j - 1] + 1);
            row[j] = best;
            diag = up;
        }
    }
    return 1.0 - (double)row[lb] / (double)lmax;
}

typedef struct sim_pair {
    uint32_t act, emit; /* emit: the candidate text's first site */
    double sim;
} sim_pair;

static int cmp_pair(const void *x, const void *y)
{
    const sim_pair *a = x, *b = y;
    if (a->sim != b->sim)
        return a->sim > b->sim ? -1 : 1;
    if (a->act != b->act)
        return a->act < b->act ? -1 : 1;
    return a->emit < b->emit ? -1 : a->emit > b->emit;
}

/*
 * The reworded: each template activity without a site takes the most
 * similar text no activity has (at least min), best pairs first, a text
 * to one activity at most.
 */
static void match_changed(const map_mapper *m, const tmpl_index *ix, old_act *acts, uint32_t n,
                          const core_smap *claimed, double min)
{
    const graph *g = map_mapper_graph(m);
    core_vec(sim_pair) pairs = {0};
    char fa[SIM_MAX], fb[SIM_MAX];
    uint16_t row[SIM_MAX + 1];
    for (uint32_t i = 0; i < n; i++) {
        old_act *a = &acts[i];
        if (!a->tmpl || a->nsites)
            continue;
        size_t la = sim_form(a->text, a->base, fa);
        const uint32_t *cand = a->d.has_const ? ix->const_texts.v : ix->texts.v;
        size_t nc = a->d.has_const ? ix->const_texts.n : ix->texts.n;
        for (size_t c = 0; c < nc; c++) {
            const char *t = map__template_text(g, cand[c]);
            size_t tn = strlen(t);
            uint32_t it;
            if (core_smap_get(claimed, t, tn, &it) != UINT32_MAX)
                continue;
            size_t lb = sim_form(t, tn, fb);
            double s = similarity(fa, la, fb, lb, min, row);
            if (s >= min)
                core_vec_push(&pairs, ((sim_pair){i, cand[c], s}));
        }
    }
    if (pairs.n)
        qsort(pairs.v, pairs.n, sizeof *pairs.v, cmp_pair);
    core_map taken = {0};
    for (size_t p = 0; p < pairs.n; p++) {
        old_act *a = &acts[pairs.v[p].act];
        bool ins;
        if (a->nsites || (core_map_get(&taken, pairs.v[p].emit) != NULL))
            continue;
        core_map_put(&taken, pairs.v[p].emit, &ins);
        const char *t = map__template_text(g, pairs.v[p].emit);
        a->nsites = sites_of(m, ix, a->d.has_const, t, strlen(t), NULL, a->sites);
        if (!a->nsites)
            continue;
        a->sim = (float)pairs.v[p].sim;
        core_buf nt = {0};
        core_buf_puts(&nt, t);
        if (a->names)
            core_buf_printf(&nt, " @%s", a->names);
        if (a->told)
            core_buf_puts(&nt, a->told);
        a->new_text = core_xstrndup(nt.data, nt.len);
        core_buf_free(&nt);
    }
    core_map_free(&taken);
    core_vec_free(&pairs);
}

/* ---- where sites are, for the report ---- */

static void site_text(const graph *g, uint32_t emit, core_buf *b)
{
    graph_emit em;
    graph_get_emit(g, emit, &em);
    uint32_t sym;
    map__emit_symbols(g, &emit, 1, &sym);
    graph_symbol s;
    graph_get_symbol(g, sym, &s);
    core_buf_printf(b, "%s:%u (%s)", s.file, em.line, s.qualname);
}

/* Whether two sites are the same place: file, line and function. */
static bool same_place(const graph *ga, uint32_t ea, const graph *gb, uint32_t eb)
{
    graph_emit x, y;
    graph_get_emit(ga, ea, &x);
    graph_get_emit(gb, eb, &y);
    uint32_t sa, sb;
    map__emit_symbols(ga, &ea, 1, &sa);
    map__emit_symbols(gb, &eb, 1, &sb);
    graph_symbol s, t;
    graph_get_symbol(ga, sa, &s);
    graph_get_symbol(gb, sb, &t);
    return x.line == y.line && strcmp(s.file, t.file) == 0 && strcmp(s.qualname, t.qualname) == 0;
}

/* Whether site e of the old graph logs a template activity's text (as
 * the kind of site it was: a constant or not); its symbol into *sym. */
static bool old_site_logs(const graph *old, const old_act *a, uint32_t e, uint32_t *sym)
{
    graph_emit em;
    graph_get_emit(old, e, &em);
    if (em.symbol == GRAPH_NONE || (em.kind == GRAPH_EMIT_CONST) != a->d.has_const)
        return false;
    const char *t = map__template_text(old, e);
    if (strlen(t) != a->base || memcmp(t, a->text, a->base) != 0)
        return false;
    map__emit_symbols(old, &e, 1, sym);
    return true;
}

/* The old graph's sites of a template activity: its text's sites whose
 * symbol is one of the saved ones. */
static uint32_t old_sites(const graph *old, const old_act *a, uint32_t *out)
{
    const uint32_t *own = a->d.has_const ? a->d.cands : a->d.syms;
    uint32_t nown = a->d.has_const ? a->d.ncand : a->d.nsyms;
    uint32_t k = 0;
    for (uint32_t e = 0; e < graph_nemits(old) && k < MAX_SITES; e++) {
        uint32_t sym;
        if (!old_site_logs(old, a, e, &sym))
            continue;
        for (uint32_t i = 0; i < nown; i++)
            if (own[i] == sym) {
                out[k++] = e;
                break;
            }
    }
    return k;
}

/* The new graph's symbol of an old one: the one of the same qualified
 * name, or GRAPH_NONE. */
static uint32_t same_symbol(const graph *old, const graph *g, uint32_t sym)
{
    graph_symbol s;
    graph_get_symbol(old, sym, &s);
    uint32_t ids[4];
    uint32_t n = graph_find(g, s.qualname, ids, 4);
    for (uint32_t i = 0; i < n && i < 4; i++) {
        graph_symbol t;
        graph_get_symbol(g, ids[i], &t);
        if (strcmp(t.qualname, s.qualname) == 0)
            return ids[i];
    }
    return GRAPH_NONE;
}

/* Whether the old graph logs a's text in a symbol named as symbol sym of
 * g. */
static bool old_logs_in(const graph *old, const graph *g, const old_act *a, uint32_t sym)
{
    graph_symbol s;
    graph_get_symbol(g, sym, &s);
    for (uint32_t e = 0; e < graph_nemits(old); e++) {
        uint32_t os;
        if (!old_site_logs(old, a, e, &os))
            continue;
        graph_symbol x;
        graph_get_symbol(old, os, &x);
        if (strcmp(x.qualname, s.qualname) == 0)
            return true;
    }
    return false;
}

/*
 * A text several sites log, of which the activity had only some (the
 * matcher narrowed it by logger or level): the sites in functions of the
 * names it had, and those in functions that did not log the text in the
 * old release (the new release logs it there too: the message gained a
 * site, which no narrowing chose against); else all of them. Returns how
 * many are left in sites.
 */
static uint32_t keep_named(const graph *old, const graph *g, const old_act *a, uint32_t *sites,
                           uint32_t n)
{
    const uint32_t *own = a->d.has_const ? a->d.cands : a->d.syms;
    uint32_t nown = a->d.has_const ? a->d.ncand : a->d.nsyms;
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t sym;
        map__emit_symbols(g, &sites[i], 1, &sym);
        bool keep = false;
        for (uint32_t j = 0; j < nown && !keep; j++)
            keep = same_symbol(old, g, own[j]) == sym;
        if (keep || !old_logs_in(old, g, a, sym))
            sites[k++] = sites[i];
    }
    return k ? k : n;
}

/* ---- restoring ---- */

/* The saved symbols (and confidences) of a record on the new graph, by
 * name: into syms and conf (room for d->nsyms); returns how many were
 * found. *moved: one was not, or is at another line or in another file. */
static uint32_t syms_by_name(const graph *old, const graph *g, const map__dict_rec *d,
                             uint32_t *syms, float *conf, bool *moved)
{
    uint32_t ns = 0;
    for (uint32_t i = 0; i < d->nsyms; i++) {
        uint32_t s = same_symbol(old, g, d->syms[i]);
        if (s == GRAPH_NONE) {
            *moved = true;
            continue;
        }
        graph_symbol x, y;
        graph_get_symbol(old, d->syms[i], &x);
        graph_get_symbol(g, s, &y);
        *moved |= x.start_line != y.start_line || strcmp(x.file, y.file) != 0;
        syms[ns] = s;
        conf[ns++] = d->conf[i];
    }
    return ns;
}

/* An activity no template made, carried by its symbols' names (old graph
 * known) or left to be mapped again. */
static uint32_t restore_by_names(map_mapper *m, const map_remap_opts *o, old_act *a, uint64_t count,
                                 map_remap_act *ra)
{
    const graph *g = map_mapper_graph(m);
    map_activity pa = {.text = a->text, .strategy = a->d.strategy, .count = count};
    map__restore_how how = {.untried = true, .alias = o->first > 0, .error_text = a->d.error_text};
    if (!o->old || a->d.nsyms == 0) {
        ra->kind = MAP_REMAP_AGAIN;
        pa.strategy = MAP_BY_NONE;
        return map__restore(m, &pa, NULL, 0, false, &how);
    }
    uint32_t *syms = core_xmalloc(a->d.nsyms * sizeof *syms);
    float *conf = core_xmalloc(a->d.nsyms * sizeof *conf);
    uint32_t *cands = core_xmalloc((a->d.ncand ? a->d.ncand : 1) * sizeof *cands);
    uint32_t nc = 0;
    bool moved = false;
    uint32_t ns = syms_by_name(o->old, g, &a->d, syms, conf, &moved);
    for (uint32_t i = 0; i < a->d.ncand; i++) {
        uint32_t s = same_symbol(o->old, g, a->d.cands[i]);
        if (s != GRAPH_NONE)
            cands[nc++] = s;
    }
    ra->kind = ns == 0 ? MAP_REMAP_GONE : moved ? MAP_REMAP_MOVED : MAP_REMAP_KEPT;
    pa.syms = syms;
    pa.conf = conf;
    pa.nsyms = ns;
    how.untried = false;
    uint32_t id = map__restore(m, &pa, cands, nc, a->d.has_const, &how);
    free(syms);
    free(conf);
    free(cands);
    return id;
}

/* A template activity with its sites found (or none: gone). */
static uint32_t restore_sited(map_mapper *m, const map_remap_opts *o, old_act *a, uint64_t count,
                              map_remap *r, map_remap_act *ra)
{
    const graph *g = map_mapper_graph(m);
    uint32_t syms[MAX_SITES];
    float conf[MAX_SITES];
    uint32_t ns = map__emit_symbols(g, a->sites, a->nsites, syms);
    map_activity pa = {.text = a->new_text ? a->new_text : a->text,
                       .strategy = a->d.strategy,
                       .count = count,
                       .syms = syms,
                       .conf = conf,
                       .nsyms = ns};
    float share = (a->new_text ? a->sim : 1.0f) / (float)(ns ? ns : 1);
    for (uint32_t i = 0; i < ns; i++)
        conf[i] = share;
    /* A template's activity (not one narrowed to some of its sites) is
     * what a message matching these sites' template is: the matcher's
     * site leads to it whatever its text. */
    map__restore_how how = {.emits = a->names || a->d.has_const ? NULL : a->sites,
                            .nemits = a->names || a->d.has_const ? 0 : a->nsites,
                            .alias = o->first > 0,
                            .error_text = a->d.error_text};
    /* A constant's sites are its owners (the candidates); the functions
     * that log it are what the constants strategy found: the same ones
     * by name, when the old graph tells their names, else found again. */
    uint32_t csyms[MAX_SITES];
    float cconf[MAX_SITES];
    if (a->d.has_const) {
        bool moved = false;
        pa.syms = csyms;
        pa.conf = cconf;
        pa.nsyms = o->old && a->d.nsyms <= MAX_SITES
                       ? syms_by_name(o->old, g, &a->d, csyms, cconf, &moved)
                       : 0;
        how.untried = pa.nsyms == 0 && a->nsites;
    }
    uint32_t id =
        map__restore(m, &pa, a->d.ncand ? syms : NULL, a->d.ncand ? ns : 0, a->d.has_const, &how);
    ra->similarity = 1;
    core_buf w = {0};
    if (a->nsites == 0) {
        ra->kind = MAP_REMAP_GONE;
    } else if (a->new_text) {
        ra->kind = MAP_REMAP_CHANGED;
        ra->similarity = a->sim;
        ra->from = core_strtab_intern(&r->texts, a->text, strlen(a->text));
        site_text(g, a->sites[0], &w);
    } else if (!o->old) {
        ra->kind = MAP_REMAP_FOUND;
        site_text(g, a->sites[0], &w);
    } else {
        uint32_t was[MAX_SITES];
        uint32_t nw = old_sites(o->old, a, was);
        bool same = nw == a->nsites;
        for (uint32_t i = 0; same && i < nw; i++)
            same = same_place(o->old, was[i], g, a->sites[i]);
        ra->kind = same ? MAP_REMAP_KEPT : MAP_REMAP_MOVED;
        if (!same && nw) {
            site_text(o->old, was[0], &w);
            core_buf_puts(&w, " -> ");
        }
        site_text(g, a->sites[0], &w);
    }
    if (w.len)
        ra->where = core_strtab_intern(&r->texts, w.data, w.len);
    core_buf_free(&w);
    return id;
}

/*
 * Sites of the new graph whose template no activity has, one per text.
 * A candidate call counts when its callee is one the old log showed to
 * log: called at enough of the sites the activities found (a codebase's
 * own logging wrapper, as the mapper lists one); other candidate calls
 * are sites only once a message proves their callee, not new paths yet.
 */
static void find_new_sites(const map_mapper *m, const old_act *acts, uint32_t n, map_remap *r)
{
    const graph *g = map_mapper_graph(m);
    core_vec(uint32_t) found = {0}, out = {0};
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = 0; j < acts[i].nsites; j++)
            core_vec_push(&found, acts[i].sites[j]);
    uint32_t ne = graph_nemits(g);
    uint8_t *listed = core_xmalloc(ne ? ne : 1);
    map__listed_by(m, found.v, (uint32_t)found.n, listed);
    core_smap seen = {0};
    for (uint32_t e = 0; e < ne; e++) {
        graph_emit em;
        graph_get_emit(g, e, &em);
        if (em.symbol == GRAPH_NONE || map__emit_is_const(&em) ||
            (em.kind == GRAPH_EMIT_CALL && !listed[e]) || map__symbol_aside(m, em.symbol))
            continue;
        const char *t = map__template_text(g, e);
        size_t tn = strlen(t);
        uint32_t it;
        if (literal_bytes(t, tn) < 3 || core_smap_get(&seen, t, tn, &it) != UINT32_MAX)
            continue;
        core_smap_add(&seen, t, tn, e);
        if (map_mapper_find(m, t) == UINT32_MAX)
            core_vec_push(&out, e);
    }
    core_smap_free(&seen);
    free(listed);
    core_vec_free(&found);
    r->new_sites = out.v;
    r->nnew = (uint32_t)out.n;
}

uint32_t map_dict_stale(const graph *g, const map_remap_rec *recs, uint32_t n)
{
    tmpl_index ix = {0};
    index_build(g, &ix);
    uint32_t stale = 0;
    for (uint32_t i = 0; i < n; i++) {
        old_act a = {0};
        if (map__dict_decode(recs[i].rec, recs[i].len, graph_nsymbols(g), &a.d) != 0) {
            stale++;
            continue;
        }
        a.text = core_xstrndup(a.d.text, a.d.tl);
        split_names(&a);
        uint32_t it;
        const core_smap *sm = a.d.has_const ? &ix.consts : &ix.logs;
        if (a.told && core_smap_get(sm, a.text, a.base, &it) == UINT32_MAX &&
            core_smap_get(sm, a.text, strlen(a.text), &it) != UINT32_MAX)
            untell(&a);
        if ((a.d.strategy == MAP_BY_TEMPLATE || a.d.has_const) &&
            core_smap_get(sm, a.text, a.base, &it) == UINT32_MAX)
            stale++;
        free(a.text);
        map__dict_rec_free(&a.d);
    }
    index_free(&ix);
    return stale;
}

int map_dict_remap(map_mapper *m, const map_remap_rec *recs, uint32_t n, const map_remap_opts *o,
                   map_remap *out, char *why, size_t whylen)
{
    memset(out, 0, sizeof *out);
    core_strtab_init(&out->texts);
    out->remapped = true;
    out->old_known = o->old != NULL;
    out->first = o->first;
    out->nacts = n;
    out->acts = core_xcalloc(n ? n : 1, sizeof *out->acts);
    old_act *acts = core_xcalloc(n ? n : 1, sizeof *acts);
    tmpl_index ix = {0};
    core_smap claimed = {0};
    int rc = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (map__dict_decode(recs[i].rec, recs[i].len, o->old_nsymbols, &acts[i].d) != 0) {
            snprintf(why, whylen, "activity %u: truncated or inconsistent record", i);
            rc = CORE_ECORRUPT;
            goto done;
        }
        acts[i].text = core_xstrndup(acts[i].d.text, acts[i].d.tl);
        acts[i].d.text = acts[i].text;
        split_names(&acts[i]);
        acts[i].tmpl = acts[i].d.strategy == MAP_BY_TEMPLATE || acts[i].d.has_const;
    }
    index_build(map_mapper_graph(m), &ix);
    /* The texts of m's activities before first are claimed too: a
     * rewording taking one would make two activities of one text. */
    for (uint32_t a = 0; a < out->first; a++) {
        old_act had = {0};
        map_activity pa;
        map_mapper_activity(m, a, &pa);
        had.text = (char *)pa.text;
        split_names(&had);
        core_smap_add(&claimed, had.text, had.base, a);
        core_smap_add(&claimed, had.text, strlen(had.text), a);
    }
    /* The same text first: what it claims (and every saved text) no
     * rewording may take. */
    for (uint32_t i = 0; i < n; i++) {
        old_act *a = &acts[i];
        if (a->tmpl)
            a->nsites = sites_of(m, &ix, a->d.has_const, a->text, a->base, a->names, a->sites);
        if (a->tmpl && !a->nsites && a->told &&
            sites_of(m, &ix, a->d.has_const, a->text, strlen(a->text), a->names, a->sites)) {
            untell(a);
            a->nsites = sites_of(m, &ix, a->d.has_const, a->text, a->base, a->names, a->sites);
        }
        core_smap_add(&claimed, a->text, a->base, i);
        core_smap_add(&claimed, a->text, strlen(a->text), i);
        if (o->old && a->nsites > 1)
            a->nsites = keep_named(o->old, map_mapper_graph(m), a, a->sites, a->nsites);
    }
    match_changed(m, &ix, acts, n, &claimed, o->min_similarity > 0 ? o->min_similarity : 0.6);
    for (uint32_t i = 0; i < n; i++) {
        old_act *a = &acts[i];
        uint32_t id = a->tmpl ? restore_sited(m, o, a, recs[i].count, out, &out->acts[i])
                              : restore_by_names(m, o, a, recs[i].count, &out->acts[i]);
        if (id != out->first + i) {
            /* Saved texts are distinct and a rewording takes a text no
             * saved one has (one m has is taken as an alias): only a
             * damaged dictionary gets here. */
            snprintf(why, whylen, "activity %u: its text repeats activity %u's", out->first + i,
                     id);
            rc = CORE_ECORRUPT;
            goto done;
        }
        /* The fold-over activity every mapper has is nobody's site. */
        if (strcmp(a->text, MAP__OTHER_TEXT) != 0)
            out->count[out->acts[i].kind]++;
    }
    find_new_sites(m, acts, n, out);
    char w[256];
    if (map_mapper_finish(m, w, sizeof w) != 0)
        snprintf(why, whylen, "%s", w);
done:
    for (uint32_t i = 0; i < n; i++) {
        map__dict_rec_free(&acts[i].d);
        free(acts[i].text);
        free(acts[i].new_text);
    }
    free(acts);
    core_smap_free(&claimed);
    index_free(&ix);
    return rc;
}

void map_remap_free(map_remap *r)
{
    free(r->acts);
    free(r->new_sites);
    core_strtab_free(&r->texts);
    memset(r, 0, sizeof *r);
}

static void json_text(core_buf *b, const char *s)
{
    core_buf_json_str(b, s, strlen(s));
}

void map_remap_format(const map_remap *r, const map_mapper *m, bool json, uint32_t max,
                      core_buf *out)
{
    const graph *g = map_mapper_graph(m);
    uint32_t shown = 0;
    if (json) {
        core_buf_printf(out, "{\"remapped\":%s,\"old_graph\":%s,\"activities\":%u",
                        r->remapped ? "true" : "false", r->old_known ? "true" : "false", r->nacts);
        for (int k = 0; k < MAP_REMAP__COUNT; k++)
            core_buf_printf(out, ",\"%s\":%u", map_remap_kind_name((map_remap_kind)k), r->count[k]);
        core_buf_printf(out, ",\"new_sites\":%u,\"items\":[", r->nnew);
    } else if (!r->remapped) {
        core_buf_puts(out, "not re-mapped: the model was trained on this graph\n");
        return;
    } else {
        core_buf_printf(out, "remapped %u activities:", r->nacts);
        for (int k = 0; k < MAP_REMAP__COUNT; k++)
            if (k != MAP_REMAP_FOUND || r->count[k])
                core_buf_printf(out, "%s %u %s", k ? "," : "", r->count[k],
                                map_remap_kind_name((map_remap_kind)k));
        core_buf_printf(out, "; %u new sites no activity knows\n", r->nnew);
    }
    for (uint32_t i = 0; i < r->nacts && (!max || shown < max); i++) {
        const map_remap_act *a = &r->acts[i];
        map_activity pa;
        map_mapper_activity(m, r->first + i, &pa);
        if (a->kind == MAP_REMAP_KEPT || a->kind == MAP_REMAP_FOUND ||
            strcmp(pa.text, MAP__OTHER_TEXT) == 0)
            continue;
        const char *from = a->from ? core_strtab_str(&r->texts, a->from) : NULL;
        const char *where = a->where ? core_strtab_str(&r->texts, a->where) : "";
        if (json) {
            core_buf_printf(out, "%s{\"kind\":\"%s\",\"activity\":", shown ? "," : "",
                            map_remap_kind_name(a->kind));
            json_text(out, pa.text);
            if (from) {
                core_buf_puts(out, ",\"from\":");
                json_text(out, from);
            }
            core_buf_printf(out, ",\"similarity\":%.3f,\"where\":", a->similarity);
            json_text(out, where);
            core_buf_putc(out, '}');
        } else if (from) {
            core_buf_printf(out, "  %-7s %.2f \"%s\" -> \"%s\"  %s\n", map_remap_kind_name(a->kind),
                            a->similarity, from, pa.text, where);
        } else {
            core_buf_printf(out, "  %-7s \"%s\"%s%s\n", map_remap_kind_name(a->kind), pa.text,
                            *where ? "  " : "", where);
        }
        shown++;
    }
    if (json)
        core_buf_puts(out, "],\"new\":[");
    core_buf w = {0};
    for (uint32_t i = 0; i < r->nnew && (!max || shown < max); i++, shown++) {
        core_buf_reset(&w);
        site_text(g, r->new_sites[i], &w);
        const char *t = map__template_text(g, r->new_sites[i]);
        if (json) {
            core_buf_puts(out, i ? ",{\"where\":" : "{\"where\":");
            core_buf_json_str(out, w.data, w.len);
            core_buf_puts(out, ",\"template\":");
            json_text(out, t);
            core_buf_putc(out, '}');
        } else {
            core_buf_printf(out, "  new     \"%s\"  %.*s\n", t, (int)w.len, w.data);
        }
    }
    core_buf_free(&w);
    if (json)
        core_buf_puts(out, "]}");
}
