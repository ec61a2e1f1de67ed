/*
 * TypeScript/JavaScript extraction: messages held in local variables.
 *
 * A message built in a local before the call (`const msg = 'built ' + x;
 * debug(msg)`): the values the function binds the name to before the
 * call, nearest first, each a candidate message of its own as a logging
 * call written there would be (a ternary gives both arms). No flow
 * analysis: a value no run reaches gives a site that matches nothing.
 * Bounded per call (LOCAL_BUDGET nodes looked at, LOCAL_MAX_ALTS values).
 */
#include "ts_int.h"

#include <string.h>

#define LOCAL_BUDGET 4096

static bool function_node(unsigned t)
{
    return t == N_FUNCTION_DECLARATION || t == N_FUNCTION_EXPRESSION || t == N_ARROW_FUNCTION ||
           t == N_METHOD_DEFINITION || t == N_GENERATOR_FUNCTION ||
           t == N_GENERATOR_FUNCTION_DECLARATION;
}

static void local_add(tx *x, local_vals *lv, TSNode value, int depth)
{
    TSNode v = unwrap(x, value);
    if (is_null(v))
        return;
    /* a ? b : c ? d : e: a few levels; deeper ones stay one value. */
    if (ty(x, v) == N_TERNARY_EXPRESSION && depth < 4) {
        local_add(x, lv, fld(x, v, F_CONSEQUENCE), depth + 1);
        local_add(x, lv, fld(x, v, F_ALTERNATIVE), depth + 1);
        return;
    }
    lv->v[lv->n++ % (LOCAL_MAX_ALTS * 4)] = v;
}

/* The next node of the function body fn after c's, not in a function
 * nested in it (graph__walk_next). */
static bool body_next(tx *x, TSTreeCursor *c, TSNode fn)
{
    return graph__walk_next(c, fn, !function_node(ty(x, ts_tree_cursor_current_node(c))));
}

/* Records every binding of a plain name in the function body fn (not in
 * functions nested in it), once per body (LOCAL_BUDGET * 4 nodes); the
 * TS_LOCALS_KEPT bodies used last are kept. */
static NOINLINE const ts_locals *locals_of(tx *x, TSNode fn)
{
    uint32_t key = ts_node_start_byte(fn) + 1;
    ts_locals *lo = &x->locals[0];
    for (int i = 0; i < TS_LOCALS_KEPT; i++) {
        ts_locals *s = &x->locals[i];
        if (s->fn == key) {
            s->used = ++x->locals_clock;
            return s;
        }
        if (s->used < lo->used)
            lo = s;
    }
    lo->fn = key;
    lo->used = ++x->locals_clock;
    lo->v.n = 0;
    uint32_t budget = LOCAL_BUDGET * 4;
    TSTreeCursor c = ts_tree_cursor_new(fn);
    while (budget--) {
        TSNode n = ts_tree_cursor_current_node(&c);
        unsigned t = ty(x, n);
        TSNode name = gx_null(), value = gx_null();
        bool fixed = false, aug = false;
        if (t == N_VARIABLE_DECLARATOR) {
            name = fld(x, n, F_NAME);
            value = fld(x, n, F_VALUE);
            TSNode decl = ts_node_parent(n);
            fixed = !is_null(decl) && ty(x, decl) == N_LEXICAL_DECLARATION &&
                    strcmp(ts_node_type(ts_node_child(decl, 0)), "const") == 0;
        } else if (t == N_ASSIGNMENT_EXPRESSION) {
            name = unwrap(x, fld(x, n, F_LEFT));
            value = fld(x, n, F_RIGHT);
        } else if (t == N_AUGMENTED_ASSIGNMENT_EXPRESSION &&
                   ty(x, fld(x, n, F_OPERATOR)) == A_PLUS_EQ) {
            name = unwrap(x, fld(x, n, F_LEFT));
            value = fld(x, n, F_RIGHT);
            aug = true;
        }
        if (!is_null(name) && ty(x, name) == N_IDENTIFIER && !is_null(value)) {
            uint32_t a = ts_node_start_byte(name);
            core_vec_push(&lo->v, ((struct ts_local){a, ts_node_end_byte(name) - a,
                                                     ts_node_end_byte(n), value, fixed, aug}));
        }
        if (!body_next(x, &c, fn))
            break;
    }
    ts_tree_cursor_delete(&c);
    return lo;
}

/* The name a return value v gives whole or joined (`lines`,
 * `lines.join('\n')`), or null. */
static TSNode returned_name(tx *x, TSNode v)
{
    v = unwrap(x, v);
    if (is_null(v) || ty(x, v) == N_IDENTIFIER)
        return v;
    TSNode fn = ty(x, v) == N_CALL_EXPRESSION ? fld(x, v, F_FUNCTION) : gx_null();
    if (is_null(fn) || ty(x, fn) != N_MEMBER_EXPRESSION)
        return gx_null();
    TSNode obj = unwrap(x, fld(x, fn, F_OBJECT)), prop = fld(x, fn, F_PROPERTY);
    return !is_null(prop) && text_eq(x, prop, "join") && !is_null(obj) && ty(x, obj) == N_IDENTIFIER
               ? obj
               : gx_null();
}

bool graph__ts_returns_list(tx *x, TSNode id, const ts_scope *sc)
{
    TSNode fn = sc->body;
    if (is_null(fn))
        return false;
    uint32_t n0 = ts_node_start_byte(id), nl = ts_node_end_byte(id) - n0;
    const char *a = x->src + ts_node_start_byte(fn), *end = x->src + ts_node_end_byte(fn);
    if (!graph__word_beside(a, end, x->src + n0, nl, "return ", ".join("))
        return false;
    /* A function's pieces are met one after another: its returns are
     * read once. */
    uint32_t f0 = ts_node_start_byte(fn) + 1;
    if (graph__names_reset(&x->rl, f0)) {
        uint32_t budget = LOCAL_BUDGET * 4;
        TSTreeCursor c = ts_tree_cursor_new(fn);
        do {
            TSNode n = ts_tree_cursor_current_node(&c);
            TSNode r = ty(x, n) == N_RETURN_STATEMENT && ts_node_named_child_count(n) > 0
                           ? returned_name(x, ts_node_named_child(n, 0))
                           : gx_null();
            if (!is_null(r))
                graph__names_add(&x->rl, ts_node_start_byte(r),
                                 ts_node_end_byte(r) - ts_node_start_byte(r));
        } while (--budget && body_next(x, &c, fn));
        ts_tree_cursor_delete(&c);
    }
    return graph__names_has(&x->rl, x->src, n0, nl);
}

/* Whether local l binds the name at src[ia, ia + in). */
static bool binds(const tx *x, const struct ts_local *l, uint32_t ia, uint32_t in)
{
    return l->len == in && memcmp(x->src + l->name, x->src + ia, in) == 0;
}

/* The values bound to the identifier id in the function the walk is in
 * (sc), before call; how many, in lv (source order). */
NOINLINE uint32_t graph__ts_local_values(tx *x, TSNode id, TSNode call, const ts_scope *sc,
                                         local_vals *lv)
{
    lv->n = 0;
    TSNode fn = sc->body;
    if (is_null(fn) || ts_node_is_null(fn))
        return 0;
    const ts_locals *lo = locals_of(x, fn);
    uint32_t at = ts_node_start_byte(call);
    uint32_t ia = ts_node_start_byte(id), in = ts_node_end_byte(id) - ia;
    for (size_t i = 0; i < lo->v.n; i++) {
        const struct ts_local *l = &lo->v.v[i];
        if (l->end <= at && !l->aug && binds(x, l, ia, in))
            local_add(x, lv, l->value, 0);
    }
    return lv->n < LOCAL_MAX_ALTS * 4 ? lv->n : LOCAL_MAX_ALTS * 4;
}

uint32_t graph__ts_const_values(tx *x, TSNode id, TSNode call, const ts_scope *sc, local_vals *lv)
{
    uint32_t n = graph__ts_local_values(x, id, call, sc, lv);
    if (n == 0)
        return 0;
    const ts_locals *lo = locals_of(x, sc->body);
    uint32_t ia = ts_node_start_byte(id), in = ts_node_end_byte(id) - ia;
    /* Any binding of the name, before the call or after it (a loop comes
     * back), must be a const one. */
    for (size_t i = 0; i < lo->v.n && n; i++) {
        const struct ts_local *l = &lo->v.v[i];
        if (binds(x, l, ia, in) && !l->fixed)
            n = 0;
    }
    return n;
}

uint32_t graph__ts_closure_const_values(tx *x, TSNode id, const ts_scope *sc, local_vals *lv)
{
    lv->n = 0;
    TSNode body = sc->body;
    if (is_null(body) || ts_node_is_null(body))
        return 0;
    uint32_t ia = ts_node_start_byte(id), in = ts_node_end_byte(id) - ia;
    /* The function itself binds the name nowhere... */
    const ts_locals *lo = locals_of(x, body);
    for (size_t i = 0; i < lo->v.n; i++)
        if (binds(x, &lo->v.v[i], ia, in))
            return 0;
    /* ...so it reads the nearest enclosing function's (a few levels up). */
    TSNode fn = ts_node_parent(body);
    for (int level = 0; level < 4 && !ts_node_is_null(fn); level++) {
        TSNode outer = ts_node_parent(fn);
        while (!ts_node_is_null(outer) && !function_node(ty(x, outer)))
            outer = ts_node_parent(outer);
        if (ts_node_is_null(outer))
            return 0;
        ts_scope osc = *sc;
        osc.body = fld(x, outer, F_BODY);
        if (is_null(osc.body) || ts_node_is_null(osc.body))
            return 0;
        const ts_locals *olo = locals_of(x, osc.body);
        bool bound = false;
        for (size_t i = 0; i < olo->v.n && !bound; i++)
            bound = binds(x, &olo->v.v[i], ia, in);
        if (bound)
            return graph__ts_const_values(x, id, fn, &osc, lv);
        fn = outer;
    }
    return 0;
}

/* The block statement s is in (its parent, past an expression statement). */
static TSNode block_of(tx *x, TSNode s)
{
    TSNode p = ts_node_parent(s);
    while (!is_null(p) &&
           (ty(x, p) == N_EXPRESSION_STATEMENT || ty(x, p) == N_VARIABLE_DECLARATOR ||
            ty(x, p) == N_LEXICAL_DECLARATION || ty(x, p) == N_VARIABLE_DECLARATION))
        p = ts_node_parent(p);
    return p;
}

/* Whether local binding l is of a call handed the local itself (`sql =
 * transform(sql)`), the name at ia (in bytes long). */
static bool passes_itself(tx *x, const struct ts_local *l, uint32_t ia, uint32_t in)
{
    TSNode v = unwrap(x, l->value);
    if (ty(x, v) != N_CALL_EXPRESSION)
        return false;
    TSNode args = fld(x, v, F_ARGUMENTS);
    for (uint32_t i = 0, n = ty(x, args) == N_ARGUMENTS ? ts_node_named_child_count(args) : 0;
         i < n; i++) {
        TSNode a = unwrap(x, ts_node_named_child(args, i));
        uint32_t b = ts_node_start_byte(a);
        if (ty(x, a) == N_IDENTIFIER && ts_node_end_byte(a) - b == in &&
            memcmp(x->src + b, x->src + ia, in) == 0)
            return true;
    }
    return false;
}

uint32_t graph__ts_local_tails(tx *x, TSNode e, TSNode call, const ts_scope *sc, ts_tail *out,
                               uint32_t max)
{
    if (!graph__ts_local_name(x, e, sc) || is_null(sc->body) || ts_node_is_null(sc->body))
        return 0;
    const ts_locals *lo = locals_of(x, sc->body);
    uint32_t at = ts_node_start_byte(call);
    uint32_t ia = ts_node_start_byte(e), in = ts_node_end_byte(e) - ia;
    /* The nearest plain binding before the call, then the pieces after
     * it. (One of what a call makes of the local's own text, `sql =
     * transform(sql)` on one branch, says nothing of the text: the
     * pieces before it count.) */
    size_t base = SIZE_MAX;
    for (size_t i = 0; i < lo->v.n; i++) {
        const struct ts_local *l = &lo->v.v[i];
        if (l->end <= at && !l->aug && binds(x, l, ia, in) && !passes_itself(x, l, ia, in))
            base = i;
    }
    if (base == SIZE_MAX)
        return 0;
    /* A buffer filled from nothing (`let field = ''; field += ch`) holds
     * data, not a message. */
    TSNode bv = unwrap(x, lo->v.v[base].value);
    const char *bs = ty(x, bv) == N_STRING ? graph__ts_string_value(x, bv) : NULL;
    if (bs && !bs[0])
        return 0;
    TSNode home = block_of(x, ts_node_parent(lo->v.v[base].value));
    uint32_t n = 0;
    for (size_t i = base + 1; i < lo->v.n && n < max; i++) {
        const struct ts_local *l = &lo->v.v[i];
        if (!l->aug || l->end > at || !binds(x, l, ia, in))
            continue;
        ts_tail *t = &out[n++];
        t->n = 0;
        TSNode v = unwrap(x, l->value);
        if (ty(x, v) == N_TERNARY_EXPRESSION) {
            t->alt[t->n++] = unwrap(x, fld(x, v, F_CONSEQUENCE));
            t->alt[t->n++] = unwrap(x, fld(x, v, F_ALTERNATIVE));
        } else {
            t->alt[t->n++] = v;
        }
        t->optional = !ts_node_eq(block_of(x, ts_node_parent(l->value)), home);
    }
    return n;
}

/* The k-th value of lv, nearest the call first. */
TSNode graph__ts_local_nearest(const local_vals *lv, uint32_t k)
{
    return lv->v[(lv->n - 1 - k) % (LOCAL_MAX_ALTS * 4)];
}

/* A plain local of a function: not a parameter (a wrapper passes those
 * on) and not a CONSTANT (looked up as such). */
bool graph__ts_local_name(tx *x, TSNode e, const ts_scope *sc)
{
    return sc->in_function && !is_null(e) && ty(x, e) == N_IDENTIFIER &&
           !graph__ts_param_named(x, sc, e) && !graph__ts_node_const_like(x, e);
}

uint32_t graph__ts_local_texts(tx *x, TSNode e, TSNode call, const ts_scope *sc, TSNode *out,
                               uint32_t max)
{
    if (!graph__ts_local_name(x, e, sc))
        return 0;
    local_vals lv;
    uint32_t n = graph__ts_local_values(x, e, call, sc, &lv), k = 0;
    for (uint32_t i = 0; i < n && k < max; i++) {
        TSNode v = graph__ts_local_nearest(&lv, i);
        if (graph__ts_stringish(x, v, 0))
            out[k++] = v;
    }
    return k;
}

bool graph__ts_local_message(tx *x, TSNode e, TSNode call, const ts_scope *sc)
{
    TSNode v;
    return graph__ts_local_texts(x, e, call, sc, &v, 1) > 0;
}

/* Whether a call's arguments hold the name itself (`unlink(key)`). */
static bool passes_name(tx *x, TSNode args, const char *name)
{
    uint32_t n = ts_node_named_child_count(args);
    for (uint32_t i = 0; i < n; i++) {
        TSNode a = unwrap(x, ts_node_named_child(args, i));
        if (!is_null(a) && ty(x, a) == N_IDENTIFIER && text_eq(x, a, name))
            return true;
    }
    return false;
}

NOINLINE bool graph__ts_param_kept(tx *x, const ts_scope *sc, const char *name)
{
    TSNode fn = sc->body;
    if (is_null(fn) || ts_node_is_null(fn))
        return false;
    bool found = false;
    uint32_t budget = LOCAL_BUDGET * 4;
    TSTreeCursor c = ts_tree_cursor_new(fn);
    do {
        TSNode n = ts_tree_cursor_current_node(&c);
        if (ty(x, n) == N_ARGUMENTS && passes_name(x, n, name)) {
            found = true;
            break;
        }
        if (ty(x, n) != N_ASSIGNMENT_EXPRESSION)
            continue;
        unsigned l = ty(x, unwrap(x, fld(x, n, F_LEFT)));
        TSNode r = unwrap(x, fld(x, n, F_RIGHT));
        if ((l == N_MEMBER_EXPRESSION || l == N_SUBSCRIPT_EXPRESSION) && ty(x, r) == N_IDENTIFIER &&
            text_eq(x, r, name)) {
            found = true;
            break;
        }
    } while (--budget && body_next(x, &c, fn));
    ts_tree_cursor_delete(&c);
    return found;
}

/* Adds the string literals value is (one, or both arms of `c ? 'a' :
 * 'b'`) to out; false when it is anything else or out is full. */
static bool literal_nodes(tx *x, TSNode value, TSNode *out, uint32_t *n, uint32_t max)
{
    TSNode v = unwrap(x, value);
    if (!is_null(v) && ty(x, v) == N_TERNARY_EXPRESSION)
        return literal_nodes(x, fld(x, v, F_CONSEQUENCE), out, n, max) &&
               literal_nodes(x, fld(x, v, F_ALTERNATIVE), out, n, max);
    if (is_null(v) || ty(x, v) != N_STRING || *n >= max)
        return false;
    out[(*n)++] = v;
    return true;
}

/* Whether node n is in the body fn itself, not in a function nested in
 * it. */
static bool directly_in(tx *x, TSNode n, TSNode fn)
{
    for (TSNode p = ts_node_parent(n); !is_null(p); p = ts_node_parent(p)) {
        if (ts_node_eq(p, fn))
            return true;
        if (function_node(ty(x, p)))
            return false;
    }
    return false;
}

NOINLINE uint32_t graph__ts_literal_local(tx *x, TSNode id, const ts_scope *sc, TSNode *out,
                                          uint32_t max)
{
    TSNode fn = sc->body;
    if (is_null(fn) || ts_node_is_null(fn) || ty(x, id) != N_IDENTIFIER)
        return 0;
    uint32_t ia = ts_node_start_byte(id), in = ts_node_end_byte(id) - ia;
    /* The function's own bindings first (kept per body): most locals are
     * bound to something else than a literal, and need no walk. */
    const ts_locals *lo = locals_of(x, fn);
    bool any = false;
    for (size_t i = 0; i < lo->v.n; i++) {
        const struct ts_local *l = &lo->v.v[i];
        if (!binds(x, l, ia, in))
            continue;
        TSNode v = unwrap(x, l->value);
        if (is_null(v) || (ty(x, v) != N_STRING && ty(x, v) != N_TERNARY_EXPRESSION))
            return 0;
        any = true;
    }
    if (!any)
        return 0;
    uint32_t n = 0, budget = LOCAL_BUDGET * 4;
    bool declared = false, ok = true;
    TSTreeCursor c = ts_tree_cursor_new(fn);
    while (ok) {
        TSNode e = ts_tree_cursor_current_node(&c);
        unsigned t = ty(x, e);
        if ((t == N_IDENTIFIER || t == N_SHORTHAND_PROPERTY_IDENTIFIER_PATTERN) &&
            ts_node_end_byte(e) - ts_node_start_byte(e) == in &&
            memcmp(x->src + ts_node_start_byte(e), x->src + ia, in) == 0) {
            TSNode p = ts_node_parent(e);
            unsigned pt = ty(x, p);
            if (t == N_SHORTHAND_PROPERTY_IDENTIFIER_PATTERN) {
                ok = false; /* const {name} = ... */
            } else if (pt == N_VARIABLE_DECLARATOR && ts_node_eq(fld(x, p, F_NAME), e)) {
                TSNode v = fld(x, p, F_VALUE);
                ok = is_null(v) || literal_nodes(x, v, out, &n, max);
                declared |= directly_in(x, p, fn);
            } else if (pt == N_ASSIGNMENT_EXPRESSION && ts_node_eq(fld(x, p, F_LEFT), e)) {
                ok = literal_nodes(x, fld(x, p, F_RIGHT), out, &n, max);
            } else if (pt == N_AUGMENTED_ASSIGNMENT_EXPRESSION || pt == N_ARRAY_PATTERN ||
                       pt == N_OBJECT_PATTERN || pt == N_PAIR_PATTERN ||
                       pt == N_ASSIGNMENT_PATTERN || pt == N_OBJECT_ASSIGNMENT_PATTERN ||
                       pt == N_REST_PATTERN ||
                       (pt == N_FOR_IN_STATEMENT && ts_node_eq(fld(x, p, F_LEFT), e)) ||
                       strcmp(ts_node_type(p), "update_expression") == 0) {
                ok = false; /* `+=`, `++`, a destructuring, a for-of */
            }
        }
        if (!--budget) {
            ok = false;
            break;
        }
        if (!graph__walk_next(&c, fn, true))
            break;
    }
    ts_tree_cursor_delete(&c);
    return ok && declared ? n : 0;
}
