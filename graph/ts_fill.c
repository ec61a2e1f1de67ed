/*
 * TypeScript/JavaScript extraction: which literal a logging call's
 * argument gives a hole of its template (graph_int.h says why and what is
 * done with it).
 *
 * Exact values: a string literal, or a pick among literals (an array
 * literal indexed, a local bound to one, `c ? "a" : "b"`), or a local
 * whose bindings are literals: const declarations before the call, or,
 * for a let or var the function declares, every binding of it anywhere
 * in the function (one after the call may come back round a loop). A
 * value that
 * holds a literal: a call whose first argument is a string (a colouring or
 * quoting helper). Only when the format is a string literal, so that the
 * template's holes are util.format's: its %-directives take the arguments
 * after it in order (only `%s` shows a string as it is), and the arguments
 * left over are appended, a hole each but the literals, which the
 * template already shows; or when the message is a template literal
 * alone, whose ${...} are its holes.
 */
#include "ts_int.h"

#include <string.h>

/* Adds a string literal's value to out; false if e is none. */
static bool add_literal(tx *x, TSNode e, gx_fill_vals *out)
{
    e = unwrap(x, e);
    if (is_null(e) || ty(x, e) != N_STRING)
        return false;
    const char *v = graph__ts_string_value(x, e);
    return v && graph__fill_add(out, v);
}

/* Every element of an array literal a string literal: their values. */
static bool add_array(tx *x, TSNode e, gx_fill_vals *out)
{
    e = unwrap(x, e);
    if (is_null(e) || ty(x, e) != N_ARRAY)
        return false;
    uint32_t n = ts_node_named_child_count(e), k = 0;
    for (uint32_t i = 0; i < n; i++) {
        TSNode c = ts_node_named_child(e, i);
        if (ty(x, c) == N_COMMENT)
            continue;
        if (!add_literal(x, c, out))
            return false;
        k++;
    }
    return k > 0;
}

typedef struct {
    tx *x;
    TSNode call;
    const ts_scope *sc;
    const TSNode *rest; /* the arguments after the format */
    uint32_t nrest, ndir;
    uint32_t hole; /* holes seen so far */
} ts_fill;

/* The values the local e is bound to before the call (only const ones
 * when fixed), each added by add (a literal, or an array of them); false
 * when any is unknown. */
static bool add_bound(const ts_fill *tf, TSNode e, bool fixed, gx_fill_vals *out,
                      bool (*add)(tx *x, TSNode e, gx_fill_vals *out))
{
    local_vals lv;
    uint32_t nv = fixed ? graph__ts_const_values(tf->x, e, tf->call, tf->sc, &lv)
                        : graph__ts_local_values(tf->x, e, tf->call, tf->sc, &lv);
    if (nv == 0 || nv > LOCAL_MAX_ALTS)
        return false;
    for (uint32_t k = 0; k < nv; k++)
        if (!add(tf->x, graph__ts_local_nearest(&lv, k), out))
            return false;
    return true;
}

/* The exact values an expression may take, as far as the literals in it
 * and the locals bound before the call say; false when any is unknown. */
static bool exact_values(const ts_fill *tf, TSNode e, gx_fill_vals *out)
{
    tx *x = tf->x;
    switch (ty(x, e)) {
    case N_STRING:
        return add_literal(x, e, out);
    case N_IDENTIFIER: { /* const msg = "..." before the call */
        if (!graph__ts_local_name(x, e, tf->sc))
            return false;
        uint32_t n0 = out->n;
        if (add_bound(tf, e, true, out, add_literal))
            return true;
        out->n = n0;
        /* A let or var that only ever holds literals. */
        TSNode lit[GX_FILL_VALUES];
        uint32_t nl = graph__ts_literal_local(x, e, tf->sc, lit, GX_FILL_VALUES);
        for (uint32_t k = 0; k < nl; k++)
            if (!add_literal(x, lit[k], out))
                return false;
        return nl > 0;
    }
    case N_TERNARY_EXPRESSION:
        return add_literal(x, fld(x, e, F_CONSEQUENCE), out) &&
               add_literal(x, fld(x, e, F_ALTERNATIVE), out);
    case N_SUBSCRIPT_EXPRESSION: {
        TSNode seq = unwrap(x, fld(x, e, F_OBJECT));
        if (is_null(seq))
            return false;
        if (!graph__ts_local_name(x, seq, tf->sc))
            return add_array(x, seq, out);
        return add_bound(tf, seq, false, out, add_array);
    }
    default:
        return false;
    }
}

/* Whether a call of callee works on the arguments it is given (a function,
 * or a module's: chalk.red), not on a value it is a method of (graph_int.h
 * says why that matters). */
static bool works_on_args(tx *x, TSNode callee)
{
    callee = unwrap(x, callee);
    while (!is_null(callee) && ty(x, callee) == N_MEMBER_EXPRESSION) {
        TSNode o = unwrap(x, fld(x, callee, F_OBJECT));
        if (!is_null(o) && ty(x, o) == N_IDENTIFIER) {
            uint32_t a = ts_node_start_byte(o), b = ts_node_end_byte(o);
            return graph__imported(x->f, x->src + a, b - a);
        }
        callee = o;
    }
    return !is_null(callee) && ty(x, callee) == N_IDENTIFIER;
}

static gx_fill_vals arg_values(const ts_fill *tf, TSNode e)
{
    tx *x = tf->x;
    gx_fill_vals r = {GX_FILL_NONE, 0, {0}};
    e = unwrap(x, e);
    if (is_null(e))
        return r;
    if (exact_values(tf, e, &r)) {
        r.kind = GX_FILL_EXACT;
        return r;
    }
    r.n = 0;
    if (ty(x, e) == N_CALL_EXPRESSION && works_on_args(x, fld(x, e, F_FUNCTION))) {
        TSNode args = fld(x, e, F_ARGUMENTS);
        if (!is_null(args) && add_literal(x, ts_node_named_child(args, 0), &r))
            r.kind = GX_FILL_HOLDS;
    }
    return r;
}

static gx_fill_vals ts_hole(void *ud, const char *t, size_t i, size_t d)
{
    ts_fill *tf = ud;
    uint32_t k = tf->hole++;
    TSNode a = gx_null();
    if (k < tf->ndir) {
        /* A directive: only %s shows a string as it is. */
        if (d == 2 && t[i + 1] == 's')
            a = tf->rest[k];
    } else {
        /* The k - ndir-th argument left over that is not a literal. */
        uint32_t want = k - tf->ndir;
        for (uint32_t j = tf->ndir; j < tf->nrest; j++) {
            if (ty(tf->x, unwrap(tf->x, tf->rest[j])) == N_STRING)
                continue;
            if (want-- == 0) {
                a = tf->rest[j];
                break;
            }
        }
    }
    return is_null(a) ? (gx_fill_vals){GX_FILL_NONE, 0, {0}} : arg_values(tf, a);
}

/* A template literal's hole k: its k-th ${...}. */
static gx_fill_vals ts_sub_hole(void *ud, const char *t, size_t i, size_t d)
{
    (void)t, (void)i, (void)d;
    ts_fill *tf = ud;
    uint32_t k = tf->hole++;
    return k < tf->nrest ? arg_values(tf, tf->rest[k]) : (gx_fill_vals){GX_FILL_NONE, 0, {0}};
}

#define SUBS_MAX 16

/* The ${...} of a template literal that stay holes, in order
 * (graph__ts_template_walk). */
typedef struct {
    TSNode *subs;
    uint32_t n;
} holes_of;

static bool add_hole(tx *x, TSNode sub, void *ud)
{
    holes_of *h = ud;
    if (h->n == SUBS_MAX)
        return false;
    h->subs[h->n++] = first_named(x, sub);
    return true;
}

/* A message that is a template literal alone: its ${...} are its holes,
 * one each, in order (graph__ts_put_template). */
static bool push_template_filled(tx *x, const gx_emit *em, TSNode call, const ts_scope *sc,
                                 TSNode tmpl)
{
    static const ts_template_visit v = {NULL, NULL, add_hole};
    TSNode subs[SUBS_MAX];
    holes_of h = {subs, 0};
    if (!graph__ts_template_walk(x, tmpl, &v, &h, 0) || h.n == 0)
        return false;
    ts_fill tf = {.x = x, .call = call, .sc = sc, .rest = subs, .nrest = h.n};
    graph__fill_push(x->f, em, ts_sub_hole, &tf);
    return true;
}

void graph__ts_push_filled(tx *x, const gx_emit *em, TSNode call, const ts_scope *sc,
                           const TSNode *fmt, uint32_t nfmt, uint32_t ndir)
{
    if (nfmt == 1 && !is_null(fmt[0]) && ty(x, unwrap(x, fmt[0])) == N_TEMPLATE_STRING &&
        em->style == GRAPH_STYLE_TEMPLATE && ndir == 0 &&
        push_template_filled(x, em, call, sc, unwrap(x, fmt[0])))
        return;
    bool fills = nfmt > 1 && !is_null(fmt[0]) && ty(x, unwrap(x, fmt[0])) == N_STRING &&
                 (em->style == GRAPH_STYLE_PERCENT || em->style == GRAPH_STYLE_CONCAT ||
                  em->style == GRAPH_STYLE_PLAIN);
    if (!fills) {
        core_vec_push(&x->f->emits, *em);
        return;
    }
    ts_fill tf = {.x = x,
                  .call = call,
                  .sc = sc,
                  .rest = fmt + 1,
                  .nrest = nfmt - 1,
                  .ndir = ndir < nfmt - 1 ? ndir : nfmt - 1};
    graph__fill_push(x->f, em, ts_hole, &tf);
}
