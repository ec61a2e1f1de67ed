/*
 * The control-flow builder the extractors' flow passes share (flow_int.h):
 * one function at a time as nodes and weighted edges, then folded down to
 * what its items see of it.
 */
#include "flow_int.h"

#include <stdlib.h>
#include <string.h>

/* Mass below this is not followed further when folding joins... */
#define FOLD_MIN 1e-6
/* ...an edge lighter than this is not kept... */
#define KEEP_MIN 1e-4f
/* ...and a fold stops after this many steps (a function of millions of
 * branches, or a loop of joins that mass goes round for long). */
#define FOLD_STEPS 200000u

static const gx_sym *by_end_sym(const gx_fb *b, uint32_t i)
{
    return &b->f->syms.v[b->by_end[i]];
}

/* A function's place in the index: by its last line, then its first,
 * then its number. */
typedef struct sym_key {
    uint32_t end, start, idx;
} sym_key;

static int cmp_sym_key(const void *pa, const void *pb)
{
    const sym_key *x = pa, *y = pb;
    if (x->end != y->end)
        return x->end < y->end ? -1 : 1;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

void graph__fb_init(gx_fb *b, gx_file *f)
{
    memset(b, 0, sizeof *b);
    b->f = f;
    size_t n = f->syms.n ? f->syms.n : 1;
    sym_key *keys = core_xmalloc(n * sizeof *keys);
    for (size_t i = 0; i < f->syms.n; i++) {
        const gx_sym *s = &f->syms.v[i];
        if (s->kind == GRAPH_SYM_FUNCTION || s->kind == GRAPH_SYM_METHOD)
            keys[b->nby_end++] = (sym_key){s->end_line, s->start_line, (uint32_t)i};
    }
    qsort(keys, b->nby_end, sizeof *keys, cmp_sym_key);
    b->by_end = core_xmalloc(n * sizeof *b->by_end);
    for (uint32_t i = 0; i < b->nby_end; i++)
        b->by_end[i] = keys[i].idx;
    free(keys);
}

void graph__fb_free(gx_fb *b)
{
    core_vec_free(&b->nodes);
    core_vec_free(&b->edges);
    core_vec_free(&b->hit);
    core_vec_free(&b->raisers);
    free(b->by_end);
    free(b->off);
    free(b->mass);
    free(b->stack);
    memset(b, 0, sizeof *b);
}

int32_t graph__fb_sym(const gx_fb *b, uint32_t line, uint32_t end, const char *name,
                      const uint8_t *claimed)
{
    uint32_t lo = 0, hi = b->nby_end;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (by_end_sym(b, mid)->end_line < end)
            lo = mid + 1;
        else
            hi = mid;
    }
    int32_t best = -1;
    for (uint32_t i = lo; i < b->nby_end && by_end_sym(b, i)->end_line == end; i++) {
        const gx_sym *s = by_end_sym(b, i);
        if (s->start_line > line || (name && strcmp(s->name, name) != 0) ||
            (claimed && claimed[b->by_end[i]]))
            continue;
        if (best < 0 || s->start_line > b->f->syms.v[best].start_line)
            best = (int32_t)b->by_end[i];
    }
    return best;
}

uint32_t graph__fb_begin(gx_fb *b, int32_t sym)
{
    b->sym = sym;
    b->item0 = (uint32_t)b->f->flow_items.n;
    b->nodes.n = 0;
    b->edges.n = 0;
    b->nloop = 0;
    b->ntry = 0;
    b->raisers.n = 0;
    b->ret = FB_EXIT;
    b->loop_base = 0;
    b->try_base = 0;
    for (int i = 0; i < 3; i++)
        core_vec_push(&b->nodes, ((fb_node){FB_NONE}));
    return FB_ENTRY;
}

uint32_t graph__fb_join(gx_fb *b)
{
    core_vec_push(&b->nodes, ((fb_node){FB_NONE}));
    return (uint32_t)b->nodes.n - 1;
}

void graph__fb_edge(gx_fb *b, uint32_t from, uint32_t to, float w)
{
    if (from == FB_NONE || to == FB_NONE || !(w > 0))
        return;
    core_vec_push(&b->edges, ((fb_edge){from, to, w}));
}

uint32_t graph__fb_after(gx_fb *b, uint32_t cur)
{
    if (cur == FB_NONE)
        return FB_NONE;
    uint32_t j = graph__fb_join(b);
    graph__fb_edge(b, cur, j, 1);
    return j;
}

static void add_raiser(gx_fb *b, uint32_t n);

uint32_t graph__fb_item(gx_fb *b, uint32_t cur, gx_flow_kind kind, const char *name, uint32_t line)
{
    if (cur == FB_NONE)
        return FB_NONE;
    gx_flow_item it = {
        .name = core_arena_strndup(&b->f->arena, name ? name : "", name ? strlen(name) : 0),
        .line = line,
        .kind = (uint8_t)kind,
    };
    core_vec_push(&b->f->flow_items, it);
    core_vec_push(&b->nodes, ((fb_node){(uint32_t)b->f->flow_items.n - 1 - b->item0}));
    uint32_t n = (uint32_t)b->nodes.n - 1;
    graph__fb_edge(b, cur, n, 1);
    if (kind == GX_FLOW_CALL)
        add_raiser(b, n);
    return n;
}

/* Node n may raise into the innermost try with handlers (of this
 * function, not one a callback is written in), if any. */
static void add_raiser(gx_fb *b, uint32_t n)
{
    uint32_t top = b->ntry < FB_MAX_NEST ? b->ntry : FB_MAX_NEST;
    for (uint32_t i = top; i-- > b->try_base;)
        if (b->handler[i] != FB_NONE) {
            core_vec_push(&b->raisers, (uint64_t)i << 32 | n);
            return;
        }
}

void graph__fb_loop_push(gx_fb *b, uint32_t brk, uint32_t cont)
{
    if (b->nloop < FB_MAX_NEST) {
        b->brk[b->nloop] = brk;
        b->cont[b->nloop] = cont;
    }
    b->nloop++;
}

void graph__fb_loop_pop(gx_fb *b)
{
    if (b->nloop)
        b->nloop--;
}

uint32_t graph__fb_break(const gx_fb *b)
{
    return b->nloop > b->loop_base && b->nloop <= FB_MAX_NEST ? b->brk[b->nloop - 1] : FB_NONE;
}

uint32_t graph__fb_continue(const gx_fb *b)
{
    return b->nloop > b->loop_base && b->nloop <= FB_MAX_NEST ? b->cont[b->nloop - 1] : FB_NONE;
}

uint32_t graph__fb_leave(gx_fb *b, uint32_t cur, bool is_break)
{
    uint32_t to = is_break ? graph__fb_break(b) : graph__fb_continue(b);
    if (to == FB_NONE)
        return cur;
    graph__fb_edge(b, cur, to, 1);
    return FB_NONE;
}

void graph__fb_try_push(gx_fb *b, uint32_t handler, uint32_t from)
{
    if (b->ntry < FB_MAX_NEST)
        b->handler[b->ntry] = handler;
    b->ntry++;
    if (from != FB_NONE && handler != FB_NONE)
        add_raiser(b, from);
}

void graph__fb_try_pop(gx_fb *b)
{
    if (!b->ntry)
        return;
    uint32_t level = --b->ntry;
    /* The places this try catches from are the last ones listed (the
     * tries inside it took theirs when they ended). */
    size_t first = b->raisers.n;
    while (first > 0 && (uint32_t)(b->raisers.v[first - 1] >> 32) >= level)
        first--;
    size_t n = b->raisers.n - first;
    if (level < FB_MAX_NEST && n) {
        float w = FB_RAISE_SHARE / (float)n;
        for (size_t i = first; i < b->raisers.n; i++)
            graph__fb_edge(b, (uint32_t)b->raisers.v[i], b->handler[level], w);
    }
    b->raisers.n = first;
}

uint32_t graph__fb_raise_target(const gx_fb *b)
{
    /* The innermost try with handlers; one without passes it on. */
    for (uint32_t i = b->ntry < FB_MAX_NEST ? b->ntry : FB_MAX_NEST; i-- > b->try_base;)
        if (b->handler[i] != FB_NONE)
            return b->handler[i];
    /* Out of a callback, an exception goes nowhere this flow can see. */
    return b->ret != FB_EXIT ? b->ret : FB_RAISE;
}

uint32_t graph__fb_return_target(const gx_fb *b)
{
    return b->ret;
}

uint32_t graph__fb_exit(gx_fb *b, uint32_t from, bool is_raise)
{
    graph__fb_edge(b, from, is_raise ? graph__fb_raise_target(b) : graph__fb_return_target(b), 1);
    return FB_NONE;
}

fb_saved graph__fb_inline_begin(gx_fb *b, uint32_t ret)
{
    fb_saved s = {b->ret, b->loop_base, b->try_base};
    b->ret = ret;
    b->loop_base = b->nloop;
    b->try_base = b->ntry;
    return s;
}

void graph__fb_inline_end(gx_fb *b, fb_saved s)
{
    b->ret = s.ret;
    b->loop_base = s.loop_base;
    b->try_base = s.try_base;
}

/* ---- folding the joins away ---- */

static int cmp_edge(const void *pa, const void *pb)
{
    const fb_edge *x = pa, *y = pb;
    if (x->from != y->from)
        return x->from < y->from ? -1 : 1;
    if (x->to != y->to)
        return x->to < y->to ? -1 : 1;
    return (x->w > y->w) - (x->w < y->w);
}

/* The edges as a CSR by their source, duplicates merged and each node's
 * weights scaled to sum to 1. */
static void make_csr(gx_fb *b)
{
    size_t n = b->nodes.n;
    if (b->edges.n > 1)
        qsort(b->edges.v, b->edges.n, sizeof *b->edges.v, cmp_edge);
    size_t k = 0;
    for (size_t i = 0; i < b->edges.n; i++) {
        if (k && b->edges.v[k - 1].from == b->edges.v[i].from &&
            b->edges.v[k - 1].to == b->edges.v[i].to)
            b->edges.v[k - 1].w += b->edges.v[i].w;
        else
            b->edges.v[k++] = b->edges.v[i];
    }
    b->edges.n = k;
    if (b->cap < n + 1) {
        b->cap = (n + 1) * 2;
        b->off = core_xrealloc(b->off, b->cap * sizeof *b->off);
        b->mass = core_xrealloc(b->mass, b->cap * sizeof *b->mass);
        b->stack = core_xrealloc(b->stack, b->cap * sizeof *b->stack);
    }
    memset(b->off, 0, (n + 1) * sizeof *b->off);
    for (size_t i = 0; i < k; i++)
        b->off[b->edges.v[i].from + 1]++;
    for (size_t u = 0; u < n; u++)
        b->off[u + 1] += b->off[u];
    for (size_t u = 0; u < n; u++) {
        double sum = 0;
        for (uint32_t i = b->off[u]; i < b->off[u + 1]; i++)
            sum += b->edges.v[i].w;
        for (uint32_t i = b->off[u]; i < b->off[u + 1]; i++)
            b->edges.v[i].w = (float)(b->edges.v[i].w / sum);
    }
    memset(b->mass, 0, n * sizeof *b->mass);
}

static bool absorbs(const gx_fb *b, uint32_t u)
{
    return u == FB_EXIT || u == FB_RAISE || b->nodes.v[u].item != FB_NONE;
}

/* The end of an edge as gx_flow_edge numbers it. */
static uint32_t to_number(const gx_fb *b, uint32_t u)
{
    return u == FB_EXIT    ? GX_FLOW_EXIT
           : u == FB_RAISE ? GX_FLOW_RAISE
                           : GX_FLOW_TO_ITEM + b->nodes.v[u].item;
}

/* Where mass leaving node src ends up first: items, the end or an
 * exception; appended to f->flow_edges as from (src's number). */
static void fold_from(gx_fb *b, uint32_t src, uint32_t from)
{
    uint32_t nstack = 0, steps = 0;
    b->hit.n = 0;
    /* The source's own edges, then the joins' in turn. Absorbing nodes
     * keep what reaches them in mass[]; joins pass it on. */
    for (uint32_t i = b->off[src]; i < b->off[src + 1]; i++) {
        uint32_t t = b->edges.v[i].to;
        if (b->mass[t] == 0) {
            if (absorbs(b, t))
                core_vec_push(&b->hit, t);
            else
                b->stack[nstack++] = t;
        }
        b->mass[t] += b->edges.v[i].w;
    }
    while (nstack && steps++ < FOLD_STEPS) {
        uint32_t u = b->stack[--nstack];
        double m = b->mass[u];
        b->mass[u] = 0;
        if (m < FOLD_MIN)
            continue;
        for (uint32_t i = b->off[u]; i < b->off[u + 1]; i++) {
            uint32_t t = b->edges.v[i].to;
            double add = m * b->edges.v[i].w;
            if (b->mass[t] == 0) {
                if (absorbs(b, t))
                    core_vec_push(&b->hit, t);
                else if (nstack < b->cap)
                    b->stack[nstack++] = t;
                else
                    continue;
            }
            b->mass[t] += add;
        }
    }
    /* What a cut-off fold left on joins is dropped. */
    for (uint32_t i = 0; i < nstack; i++)
        b->mass[b->stack[i]] = 0;
    /* Absorbed mass, in the order of the numbers it gets. */
    for (size_t i = 1; i < b->hit.n; i++) {
        uint32_t v = b->hit.v[i];
        size_t j = i;
        for (; j > 0 && to_number(b, b->hit.v[j - 1]) > to_number(b, v); j--)
            b->hit.v[j] = b->hit.v[j - 1];
        b->hit.v[j] = v;
    }
    for (size_t i = 0; i < b->hit.n; i++) {
        uint32_t t = b->hit.v[i];
        float w = (float)b->mass[t];
        b->mass[t] = 0;
        if (w >= KEEP_MIN)
            core_vec_push(&b->f->flow_edges, ((gx_flow_edge){from, to_number(b, t), w}));
    }
}

void graph__fb_end(gx_fb *b, uint32_t cur)
{
    graph__fb_edge(b, cur, FB_EXIT, 1);
    gx_file *f = b->f;
    uint32_t nitems = (uint32_t)f->flow_items.n - b->item0;
    if (nitems == 0)
        return; /* nothing runs in it that can be told */
    make_csr(b);
    gx_flow fl = {
        .sym = b->sym, .item0 = b->item0, .nitems = nitems, .edge0 = (uint32_t)f->flow_edges.n};
    fold_from(b, FB_ENTRY, 0);
    for (uint32_t u = 3; u < b->nodes.n; u++)
        if (b->nodes.v[u].item != FB_NONE)
            fold_from(b, u, 1 + b->nodes.v[u].item);
    fl.nedges = (uint32_t)f->flow_edges.n - fl.edge0;
    core_vec_push(&f->flows, fl);
}
