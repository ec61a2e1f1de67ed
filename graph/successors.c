/*
 * The static successor model of the emit sites (graph_int.h,
 * graph__successors): for every emit site, the sites that can log next,
 * by control flow, with weights from the structure alone. The idea is
 * lprof's (OSDI 2014), which recovers from the code which log statement
 * can follow which.
 *
 * Each file's flows (gx_flow: per function, what can run after what) are
 * joined through the resolved calls. An item of a flow is a call: it may
 * be an emit site (the function's emits on its line, told apart by the
 * callee's name), a call of a function of the repository (the function's
 * call edges to a symbol of that name; for a callback handed on, its
 * access edges), both, or neither. Mass moving along a flow, on reaching
 * an item:
 *   - is taken by its sites: all of it at a logging call, SITE_MAYBE of it
 *     at a candidate call (a call with a message-like argument, which the
 *     log may or may not show to log; constructors of exceptions are not
 *     sites at all);
 *   - of what is left, CALL_ENTER enters the functions called (split by
 *     their edges' weights): it is taken by their first sites, as far as
 *     DEPTH calls down (each level another CALL_ENTER, so deeper callees
 *     weigh less; recursion is cut by the depth), and what passes through
 *     a function without logging comes back;
 *   - the rest goes on along the flow.
 * Mass reaching a function's end (or an exception out of it) goes on
 * after the calls of that function in its callers, each caller site
 * alike, up to RETURNS levels up; with no caller it is the end of the
 * case. A site's successors are where the mass leaving it is taken, the
 * SUCCESSORS heaviest above MIN_WEIGHT; their weights sum to at most 1
 * (what is lost: the end of a case, calls out of the repository,
 * thresholds).
 */
#include "graph_int.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define SITE_MAYBE 0.5
#define CALL_ENTER 0.7
#define DEPTH 3
#define RETURNS 2
#define SUCCESSORS 32
#define MIN_WEIGHT 0.002f
/* Mass below this is not followed further; a node is passed through at
 * most PUSH_VISITS times in a push (mass going round a loop that rarely
 * ends, or one the flow cannot see the end of, is let go then), and a
 * push stops after PUSH_STEPS steps. */
#define PUSH_MIN 1e-5
#define PUSH_VISITS 8u
#define PUSH_STEPS 200000u
/* A function's first sites: at most this many kept. */
#define FIRST_MAX 64

/* An emit or a symbol, and a weight. */
typedef struct sc_ent {
    uint32_t id;
    float w;
} sc_ent;

typedef core_vec(sc_ent) sc_ents;

typedef struct sc_fn {
    uint32_t sym;
    bool aside; /* in a file that is not the product's (a test, an example...) */
    const gx_file *x;
    const gx_flow *fl;
    uint32_t item0; /* its first item among all */
    uint32_t node0; /* its first node (to-end numbers: end, raise, items) */
    uint32_t *eoff; /* per from-end (entry, items): where its edges start; nitems + 2 */
} sc_fn;

typedef struct sc_item {
    uint32_t fn;
    uint32_t site0, nsite;     /* into sites */
    uint32_t callee0, ncallee; /* into callees */
    float absorb;
} sc_item;

/* A function's first sites at one depth, and what passes it by. */
typedef struct sc_first {
    uint32_t off, n; /* into the pool */
    float pass;
} sc_first;

typedef struct sc {
    const gb_index *idx;
    gb_graph *g;
    core_vec(sc_fn) fns;
    core_vec(sc_item) items;
    core_vec(uint32_t) sites;
    sc_ents callees; /* id: a function */
    uint32_t nnodes;
    uint32_t *fn_of_node;   /* per node: its function */
    uint32_t *fn_of_sym;    /* per symbol: its function, or UINT32_MAX */
    uint32_t *item_of_emit; /* per emit: its item, or UINT32_MAX */
    /* Callers of each function: items calling it (CSR). */
    uint32_t *caller_off, *callers;
    /* First sites per depth (DEPTH + 1 levels), per function. */
    sc_first *first[DEPTH + 1];
    sc_ents pool[DEPTH + 1];
    /* Push scratch: mass and passes per node and return level, mass per
     * emit; what was touched; the work queue (from head on). */
    double *mass, *acc;
    uint8_t *visits;
    core_vec(uint64_t) queue;
    size_t head;
    core_vec(uint32_t) touched_acc;
    core_vec(size_t) touched_visits;
} sc;

/* ---- gathering the flows ---- */

static const char *str_of(const gb_graph *g, uint32_t off)
{
    return g->strs.data + off;
}

/* An emit's place in the order its sites are looked up in: by (symbol,
 * line, id). */
typedef struct emit_key {
    uint32_t symbol, line, id;
} emit_key;

static int cmp_emit_key(const void *pa, const void *pb)
{
    const emit_key *x = pa, *y = pb;
    if (x->symbol != y->symbol)
        return x->symbol < y->symbol ? -1 : 1;
    if (x->line != y->line)
        return x->line < y->line ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* The first of the sorted emits at (sym, line), or n. */
static uint32_t emit_lower(const emit_key *ord, uint32_t n, uint32_t sym, uint32_t line)
{
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (ord[mid].symbol < sym || (ord[mid].symbol == sym && ord[mid].line < line))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Whether a candidate's text reads as a message: two words at least in
 * its literal text, or one and a hole written in it (a name, a key or an
 * event, getattr(x, "sock"), on('close', cb), does not, nor does the name
 * util.format shows for a callback, on('close', () => ...); "instantiated
 * <%s>" does). A message held in a constant: the constant's text. */
static bool reads_as_message(const gb_graph *g, const gb_emit *e)
{
    if (e->style == GRAPH_STYLE_DYNAMIC)
        return false;
    const gb_emit *t = e->ref_const < g->emits.n ? &g->emits.v[e->ref_const] : e;
    const char *s = str_of(g, t->tmpl);
    size_t n = strlen(s);
    int words = 0, holes = 0;
    bool in_word = false;
    for (size_t i = 0; i < n && words < 2;) {
        size_t fn = graph__function_shown_len(s + i, n - i);
        if (fn) { /* a callback handed over, as util.format shows it */
            i += fn;
            in_word = false;
            continue;
        }
        graph_tmpl_piece pc;
        i += graph_tmpl_step(s, n, i, &pc);
        bool w = !pc.hole && (isalnum((unsigned char)pc.lit) || (unsigned char)pc.lit >= 0x80);
        holes += pc.hole;
        words += w && !in_word;
        in_word = w;
    }
    /* Holes the text was written with, not those standing for the
     * arguments after it (print("a", x), on("close", cb)). */
    bool written = t->style == GRAPH_STYLE_PERCENT || t->style == GRAPH_STYLE_BRACE ||
                   t->style == GRAPH_STYLE_FSTRING || t->style == GRAPH_STYLE_TEMPLATE;
    return words >= 2 || (words == 1 && holes > 0 && written);
}

/* How much of the mass reaching an emit it takes: all at a logging call;
 * at a candidate call (a call with a message-like argument), all when it
 * looks like logging (a level for a method, a logger-like name), some
 * when its text reads as a message (words), none otherwise (a key, a
 * name: getattr(x, "sock")); none at a constant or an exception made. */
static double site_absorb(const gb_graph *g, const gb_emit *e)
{
    if (e->kind == GRAPH_EMIT_CONST)
        return 0;
    if (e->kind != GRAPH_EMIT_CALL)
        return 1;
    if (e->flags & GRAPH_EF_CTOR)
        return 0;
    const char *m = str_of(g, e->method);
    if (e->level != GRAPH_LEVEL_NONE || graph_level_of_method(m, strlen(m)) != GRAPH_LEVEL_NONE ||
        graph__loggerish(m, strlen(m)) || graph__loggerish_path(str_of(g, e->receiver)))
        return 1;
    return reads_as_message(g, e) ? SITE_MAYBE : 0;
}

static void gather_flows(sc *c)
{
    const gb_index *idx = c->idx;
    c->fn_of_sym = core_xmalloc((c->g->syms.n + 1) * sizeof *c->fn_of_sym);
    memset(c->fn_of_sym, 0xff, (c->g->syms.n + 1) * sizeof *c->fn_of_sym);
    for (size_t fi = 0; fi < idx->files.n; fi++) {
        const gb_file *f = &idx->files.v[fi];
        if (!f->x)
            continue;
        for (size_t k = 0; k < f->x->flows.n; k++) {
            const gx_flow *fl = &f->x->flows.v[k];
            uint32_t sym = f->module_sym + (fl->sym < 0 ? 0 : 1 + (uint32_t)fl->sym);
            if (c->fn_of_sym[sym] != UINT32_MAX)
                continue; /* (one flow per symbol) */
            sc_fn fn = {.sym = sym,
                        .aside = f->role != GRAPH_ROLE_PRODUCT,
                        .x = f->x,
                        .fl = fl,
                        .node0 = c->nnodes};
            fn.item0 = (uint32_t)c->items.n;
            fn.eoff = core_xcalloc((size_t)fl->nitems + 2, sizeof *fn.eoff);
            const gx_flow_edge *ed = f->x->flow_edges.v + fl->edge0;
            for (uint32_t i = 0; i < fl->nedges; i++)
                fn.eoff[ed[i].from + 1]++;
            for (uint32_t i = 0; i < fl->nitems + 1; i++)
                fn.eoff[i + 1] += fn.eoff[i];
            c->fn_of_sym[sym] = (uint32_t)c->fns.n;
            for (uint32_t i = 0; i < fl->nitems; i++)
                core_vec_push(&c->items, ((sc_item){.fn = (uint32_t)c->fns.n}));
            c->nnodes += GX_FLOW_TO_ITEM + fl->nitems;
            core_vec_push(&c->fns, fn);
        }
    }
}

/* The sites of each item: the function's emits on the item's line, given
 * to the item whose callee has the emit's method name, else to the
 * line's last call. */
static void match_sites(sc *c)
{
    gb_graph *g = c->g;
    uint32_t ne = (uint32_t)g->emits.n;
    emit_key *ord = core_xmalloc((ne ? ne : 1) * sizeof *ord);
    for (uint32_t i = 0; i < ne; i++)
        ord[i] = (emit_key){g->emits.v[i].symbol, g->emits.v[i].line, i};
    qsort(ord, ne, sizeof *ord, cmp_emit_key);
    c->item_of_emit = core_xmalloc((ne ? ne : 1) * sizeof *c->item_of_emit);
    memset(c->item_of_emit, 0xff, (ne ? ne : 1) * sizeof *c->item_of_emit);
    for (size_t k = 0; k < c->fns.n; k++) {
        const sc_fn *fn = &c->fns.v[k];
        const gx_flow_item *it = fn->x->flow_items.v + fn->fl->item0;
        for (uint32_t i = 0; i < fn->fl->nitems; i++) {
            if (it[i].kind != GX_FLOW_CALL)
                continue;
            uint32_t at = emit_lower(ord, ne, fn->sym, it[i].line);
            for (uint32_t j = at; j < ne && ord[j].symbol == fn->sym && ord[j].line == it[i].line;
                 j++) {
                const gb_emit *e = &g->emits.v[ord[j].id];
                if (c->item_of_emit[ord[j].id] != UINT32_MAX || site_absorb(g, e) == 0)
                    continue;
                /* This item takes the emit when the names agree, or when
                 * no call on the line has its name and this is the line's
                 * last call. */
                bool take = strcmp(str_of(g, e->method), it[i].name) == 0;
                if (!take) {
                    bool named = false, later = false;
                    for (uint32_t q = 0; q < fn->fl->nitems; q++) {
                        if (it[q].line != it[i].line || it[q].kind != GX_FLOW_CALL)
                            continue;
                        named |= strcmp(str_of(g, e->method), it[q].name) == 0;
                        later |= q > i;
                    }
                    take = !named && !later;
                }
                if (take)
                    c->item_of_emit[ord[j].id] = fn->item0 + i;
            }
        }
    }
    /* Each item's sites, in emit order. */
    uint32_t *count = core_xcalloc(c->items.n + 1, sizeof *count);
    for (uint32_t e = 0; e < ne; e++)
        if (c->item_of_emit[e] != UINT32_MAX)
            count[c->item_of_emit[e]]++;
    uint32_t at = 0;
    for (size_t i = 0; i < c->items.n; i++) {
        c->items.v[i].site0 = at;
        at += count[i];
    }
    core_vec_reserve(&c->sites, at + 1);
    c->sites.n = at;
    memset(count, 0, (c->items.n + 1) * sizeof *count);
    for (uint32_t e = 0; e < ne; e++) {
        uint32_t i = c->item_of_emit[e];
        if (i == UINT32_MAX)
            continue;
        sc_item *item = &c->items.v[i];
        c->sites.v[item->site0 + item->nsite++] = e;
        double a = site_absorb(g, &g->emits.v[e]);
        if (a > item->absorb)
            item->absorb = (float)a;
    }
    free(count);
    free(ord);
}

/* Whether flow from function `from` into function `to` leaves the
 * product for a file the mapping sets aside (map.h, MAP_ASIDE_DEFAULT: a
 * test, an example, a benchmark, generated or vendored code). The product
 * runs without them: its sites never have their sites for successors, by
 * a call or by a return into a test that called it. Flow the other way
 * (a test calling the product) is followed. */
static bool crosses_aside(const sc *c, uint32_t from, uint32_t to)
{
    return !c->fns.v[from].aside && c->fns.v[to].aside;
}

/* The functions each item calls (or hands on): the function's call edges
 * (access edges for a callback) to a symbol of the item's name (a
 * constructor for a class's name), by the edges' weights. */
static void match_callees(sc *c)
{
    gb_graph *g = c->g;
    size_t ns = g->syms.n;
    /* Edges by source. */
    uint32_t *off = core_xcalloc(ns + 2, sizeof *off);
    for (size_t i = 0; i < g->edges.n; i++)
        off[g->edges.v[i].src + 1]++;
    for (size_t s = 0; s < ns; s++)
        off[s + 1] += off[s];
    uint32_t *by_src = core_xmalloc((g->edges.n + 1) * sizeof *by_src);
    uint32_t *fill = core_xmalloc((ns + 1) * sizeof *fill);
    memcpy(fill, off, (ns + 1) * sizeof *fill);
    for (size_t i = 0; i < g->edges.n; i++)
        by_src[fill[g->edges.v[i].src]++] = (uint32_t)i;
    free(fill);
    uint32_t *ncall = core_xcalloc(c->fns.n + 1, sizeof *ncall);
    for (size_t k = 0; k < c->fns.n; k++) {
        const sc_fn *fn = &c->fns.v[k];
        const gx_flow_item *it = fn->x->flow_items.v + fn->fl->item0;
        for (uint32_t i = 0; i < fn->fl->nitems; i++) {
            sc_item *item = &c->items.v[fn->item0 + i];
            item->callee0 = (uint32_t)c->callees.n;
            if (!it[i].name[0])
                continue;
            for (uint32_t j = off[fn->sym]; j < off[fn->sym + 1]; j++) {
                const gb_edge *e = &g->edges.v[by_src[j]];
                bool ok = it[i].kind == GX_FLOW_CALL
                              ? e->type == GRAPH_EDGE_CALLS
                              : e->type == GRAPH_EDGE_ACCESSES || e->type == GRAPH_EDGE_CALLS;
                if (!ok || e->dst >= ns || c->fn_of_sym[e->dst] == UINT32_MAX ||
                    crosses_aside(c, (uint32_t)k, c->fn_of_sym[e->dst]))
                    continue;
                const gb_sym *d = &g->syms.v[e->dst];
                const char *dn = str_of(g, d->name);
                bool named = strcmp(dn, it[i].name) == 0;
                if (!named && (d->flags & GRAPH_SF_CTOR) && d->parent != GRAPH_NONE)
                    named = strcmp(str_of(g, g->syms.v[d->parent].name), it[i].name) == 0;
                if (!named)
                    continue;
                /* The same callee twice (several edges): their weights add. */
                uint32_t fid = c->fn_of_sym[e->dst];
                bool dup = false;
                for (uint32_t q = item->callee0; q < c->callees.n; q++)
                    if (c->callees.v[q].id == fid) {
                        c->callees.v[q].w += e->weight;
                        dup = true;
                    }
                if (!dup)
                    core_vec_push(&c->callees, ((sc_ent){fid, e->weight}));
            }
            item->ncallee = (uint32_t)c->callees.n - item->callee0;
            double sum = 0;
            for (uint32_t q = 0; q < item->ncallee; q++)
                sum += c->callees.v[item->callee0 + q].w;
            for (uint32_t q = 0; q < item->ncallee; q++)
                c->callees.v[item->callee0 + q].w =
                    (float)(c->callees.v[item->callee0 + q].w / sum);
        }
    }
    /* A candidate site whose call goes into the repository with no
     * message for an argument is a call (`self._log_agreement("Kex", a,
     * b)`: the callee's sites are what log), unless the callee is a
     * logging wrapper (which logs its callers' text: their sites stand for
     * it). */
    for (size_t i = 0; i < c->items.n; i++) {
        sc_item *item = &c->items.v[i];
        if (!item->nsite || !item->ncallee)
            continue;
        bool logs = false;
        for (uint32_t s = 0; s < item->nsite && !logs; s++) {
            const gb_emit *e = &g->emits.v[c->sites.v[item->site0 + s]];
            logs = e->kind != GRAPH_EMIT_CALL || reads_as_message(g, e);
        }
        for (uint32_t q = 0; q < item->ncallee && !logs; q++)
            logs = g->syms.v[c->fns.v[c->callees.v[item->callee0 + q].id].sym].flags &
                   GRAPH_SF_WRAPPER;
        if (logs)
            continue;
        for (uint32_t s = 0; s < item->nsite; s++)
            c->item_of_emit[c->sites.v[item->site0 + s]] = UINT32_MAX;
        item->nsite = 0;
        item->absorb = 0;
    }
    /* Who calls each function; a logging call is no caller (the wrapper
     * it calls logs for it, and returns to no one the log sees). */
    for (int pass = 0; pass < 2; pass++) {
        if (pass == 1) {
            c->caller_off = core_xcalloc(c->fns.n + 2, sizeof *c->caller_off);
            for (size_t k = 0; k < c->fns.n; k++)
                c->caller_off[k + 1] = c->caller_off[k] + ncall[k];
            c->callers = core_xmalloc((c->caller_off[c->fns.n] + 1) * sizeof *c->callers);
            memset(ncall, 0, (c->fns.n + 1) * sizeof *ncall);
        }
        for (size_t i = 0; i < c->items.n; i++) {
            const sc_item *item = &c->items.v[i];
            if (item->nsite && item->absorb >= 1)
                continue;
            for (uint32_t q = 0; q < item->ncallee; q++) {
                uint32_t fid = c->callees.v[item->callee0 + q].id;
                if (crosses_aside(c, fid, item->fn))
                    continue;
                if (pass == 1)
                    c->callers[c->caller_off[fid] + ncall[fid]] = (uint32_t)i;
                ncall[fid]++;
            }
        }
    }
    free(ncall);
    free(by_src);
    free(off);
}

/* ---- pushing mass along the flows ---- */

/* A push's state: a node (to-end numbers, global) and how many returns
 * to a caller led there. */
#define STATE(node, ret) ((uint64_t)(ret) << 32 | (node))

static size_t mass_at(const sc *c, uint32_t node, uint32_t ret)
{
    return (size_t)ret * c->nnodes + node;
}

static void add_state(sc *c, uint32_t node, uint32_t ret, double m)
{
    double *x = &c->mass[mass_at(c, node, ret)];
    if (*x == 0)
        core_vec_push(&c->queue, STATE(node, ret));
    *x += m;
}

static void add_site(sc *c, uint32_t emit, double m)
{
    if (c->acc[emit] == 0)
        core_vec_push(&c->touched_acc, emit);
    c->acc[emit] += m;
}

/* Mass m leaving from-end `from` (0 the entry, 1 + i item i) of function
 * fn: along its edges. */
static void flow_out(sc *c, uint32_t fn, uint32_t from, uint32_t ret, double m)
{
    const sc_fn *f = &c->fns.v[fn];
    const gx_flow_edge *ed = f->x->flow_edges.v + f->fl->edge0;
    for (uint32_t i = f->eoff[from]; i < f->eoff[from + 1]; i++)
        add_state(c, f->node0 + ed[i].to, ret, m * ed[i].weight);
}

/* Mass m at item gi: its sites take their share; what enters its callees
 * is taken by their first sites at level - 1 (none at level 0), what
 * passes them by goes on. */
static void at_item(sc *c, uint32_t gi, uint32_t ret, double m, int level)
{
    const sc_item *it = &c->items.v[gi];
    if (it->nsite) {
        double each = m * it->absorb / it->nsite;
        for (uint32_t s = 0; s < it->nsite; s++)
            add_site(c, c->sites.v[it->site0 + s], each);
        m *= 1 - it->absorb;
    }
    if (it->ncallee && level > 0 && m > 0) {
        double in = m * CALL_ENTER, back = m - in;
        for (uint32_t q = 0; q < it->ncallee; q++) {
            const sc_ent *ce = &c->callees.v[it->callee0 + q];
            const sc_first *fs = &c->first[level - 1][ce->id];
            double x = in * ce->w;
            for (uint32_t k = 0; k < fs->n; k++) {
                const sc_ent *e = &c->pool[level - 1].v[fs->off + k];
                add_site(c, e->id, x * e->w);
            }
            back += x * fs->pass;
        }
        m = back;
    }
    const sc_fn *f = &c->fns.v[it->fn];
    flow_out(c, it->fn, 1 + (gi - f->item0), ret, m);
}

/* Runs the push from what is queued. With returns, mass at a function's
 * end goes on after its callers' calls (up to RETURNS levels); without,
 * it is counted in *passed. */
static void push(sc *c, int level, bool returns, double *passed)
{
    uint32_t steps = 0;
    while (c->head < c->queue.n) {
        uint64_t st = c->queue.v[c->head++];
        uint32_t node = (uint32_t)st, ret = (uint32_t)(st >> 32);
        size_t at = mass_at(c, node, ret);
        double m = c->mass[at];
        c->mass[at] = 0;
        if (m < PUSH_MIN || steps++ > PUSH_STEPS || c->visits[at] >= PUSH_VISITS)
            continue;
        if (c->visits[at]++ == 0)
            core_vec_push(&c->touched_visits, at);
        uint32_t lo = c->fn_of_node[node];
        const sc_fn *f = &c->fns.v[lo];
        uint32_t local = node - f->node0;
        if (local >= GX_FLOW_TO_ITEM) {
            at_item(c, f->item0 + local - GX_FLOW_TO_ITEM, ret, m, level);
            continue;
        }
        if (!returns) {
            *passed += m;
            continue;
        }
        if (ret >= RETURNS)
            continue;
        uint32_t n = c->caller_off[lo + 1] - c->caller_off[lo];
        for (uint32_t k = 0; k < n; k++) {
            uint32_t gi = c->callers[c->caller_off[lo] + k];
            const sc_item *it = &c->items.v[gi];
            flow_out(c, it->fn, 1 + (gi - c->fns.v[it->fn].item0), ret + 1, m / n);
        }
    }
    /* What a cut-off push left queued is dropped. */
    for (size_t i = c->head; i < c->queue.n; i++) {
        uint64_t st = c->queue.v[i];
        c->mass[mass_at(c, (uint32_t)st, (uint32_t)(st >> 32))] = 0;
    }
    for (size_t i = 0; i < c->touched_visits.n; i++)
        c->visits[c->touched_visits.v[i]] = 0;
    c->touched_visits.n = 0;
    c->queue.n = 0;
    c->head = 0;
}

static int cmp_ent(const void *pa, const void *pb)
{
    const sc_ent *x = pa, *y = pb;
    if (x->w != y->w)
        return x->w > y->w ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* The sites the last push reached, heaviest first, at most max of at
 * least min, into out (appended); clears the accumulator. Returns how
 * many. */
static uint32_t take_sites(sc *c, uint32_t max, float min, sc_ents *out)
{
    size_t at = out->n;
    for (size_t i = 0; i < c->touched_acc.n; i++) {
        uint32_t e = c->touched_acc.v[i];
        /* Weights rounded to floats along the flows can add up to a hair
         * above 1 where every path comes back together, and a weight over
         * 1 is one the graph file's reader refuses. */
        float w = c->acc[e] > 1 ? 1.0f : (float)c->acc[e];
        c->acc[e] = 0;
        if (w >= min)
            core_vec_push(out, ((sc_ent){e, w}));
    }
    c->touched_acc.n = 0;
    size_t n = out->n - at;
    if (n > 1) /* (out->v may be NULL when nothing was reached) */
        qsort(out->v + at, n, sizeof *out->v, cmp_ent);
    if (n > max)
        out->n = at + max;
    return (uint32_t)(out->n - at);
}

/* Each function's first sites, depth by depth: of the functions an item
 * calls or hands on (at_item reads no other's). */
static void first_sites(sc *c)
{
    uint8_t *called = core_xcalloc(c->fns.n + 1, 1);
    for (size_t i = 0; i < c->callees.n; i++)
        called[c->callees.v[i].id] = 1;
    for (int level = 0; level <= DEPTH; level++) {
        c->first[level] = core_xcalloc(c->fns.n + 1, sizeof *c->first[level]);
        for (size_t k = 0; k < c->fns.n; k++) {
            if (!called[k])
                continue;
            double passed = 0;
            flow_out(c, (uint32_t)k, 0, 0, 1.0);
            push(c, level, false, &passed);
            sc_first *fs = &c->first[level][k];
            fs->off = (uint32_t)c->pool[level].n;
            fs->n = take_sites(c, FIRST_MAX, (float)PUSH_MIN, &c->pool[level]);
            fs->pass = (float)(passed > 1 ? 1 : passed);
        }
    }
    free(called);
}

static void sc_free(sc *c)
{
    for (size_t k = 0; k < c->fns.n; k++)
        free(c->fns.v[k].eoff);
    core_vec_free(&c->fns);
    core_vec_free(&c->items);
    core_vec_free(&c->sites);
    core_vec_free(&c->callees);
    free(c->fn_of_sym);
    free(c->fn_of_node);
    free(c->item_of_emit);
    free(c->caller_off);
    free(c->callers);
    for (int l = 0; l <= DEPTH; l++) {
        free(c->first[l]);
        core_vec_free(&c->pool[l]);
    }
    free(c->mass);
    free(c->acc);
    free(c->visits);
    core_vec_free(&c->queue);
    core_vec_free(&c->touched_acc);
    core_vec_free(&c->touched_visits);
}

void graph__successors(const gb_index *idx, gb_graph *g)
{
    sc c;
    memset(&c, 0, sizeof c);
    c.idx = idx;
    c.g = g;
    gather_flows(&c);
    match_sites(&c);
    match_callees(&c);
    c.fn_of_node = core_xmalloc(((size_t)c.nnodes + 1) * sizeof *c.fn_of_node);
    for (uint32_t k = 0; k < c.fns.n; k++) {
        uint32_t end = k + 1 < c.fns.n ? c.fns.v[k + 1].node0 : c.nnodes;
        for (uint32_t u = c.fns.v[k].node0; u < end; u++)
            c.fn_of_node[u] = k;
    }
    c.mass = core_xcalloc((size_t)(RETURNS + 1) * c.nnodes + 1, sizeof *c.mass);
    c.visits = core_xcalloc((size_t)(RETURNS + 1) * c.nnodes + 1, 1);
    c.acc = core_xcalloc(g->emits.n + 1, sizeof *c.acc);
    first_sites(&c);
    sc_ents out = {0};
    for (uint32_t e = 0; e < g->emits.n; e++) {
        uint32_t gi = c.item_of_emit[e];
        if (gi == UINT32_MAX)
            continue;
        const sc_item *it = &c.items.v[gi];
        flow_out(&c, it->fn, 1 + (gi - c.fns.v[it->fn].item0), 0, 1.0);
        double passed = 0;
        push(&c, DEPTH, true, &passed);
        out.n = 0;
        uint32_t n = take_sites(&c, SUCCESSORS, MIN_WEIGHT, &out);
        /* By destination, as the file keeps them. */
        for (uint32_t i = 1; i < n; i++) {
            sc_ent v = out.v[i];
            uint32_t j = i;
            for (; j > 0 && out.v[j - 1].id > v.id; j--)
                out.v[j] = out.v[j - 1];
            out.v[j] = v;
        }
        for (uint32_t i = 0; i < n; i++)
            core_vec_push(&g->next, ((gb_next){e, out.v[i].id, out.v[i].w}));
    }
    core_vec_free(&out);
    sc_free(&c);
}
