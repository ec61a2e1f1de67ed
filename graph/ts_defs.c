/*
 * TypeScript/JavaScript extraction: definitions and bindings. Symbols
 * (their flags, doc comments, the functions and classes a scope
 * declares), parameters as a call passes them, what a declaration or an
 * assignment binds a name to, and the shapes a definition hides in
 * (object literals, wrapped functions, prototypes).
 */
#include "ts_int.h"

#include <string.h>

/* ---- symbols ---- */

int32_t graph__ts_push_sym(tx *x, graph_sym_kind kind, const char *name, int32_t parent,
                           const char *container, TSNode start, uint32_t end, uint32_t flags,
                           const char *doc)
{
    uint32_t sl = gx_line(start);
    gx_sym s = {.name = name,
                .container = container,
                .doc = doc,
                .parent = parent,
                .start_line = sl,
                .end_line = end < sl ? sl : end,
                .kind = (uint8_t)kind,
                .flags = flags};
    core_vec_push(&x->f->syms, s);
    int32_t idx = (int32_t)(x->f->syms.n - 1);
    if (kind == GRAPH_SYM_FUNCTION || kind == GRAPH_SYM_CLASS)
        core_smap_add(&x->fns, name, strlen(name), (uint32_t)idx);
    return idx;
}

/* The symbol of a declaration node n (class, interface, enum, type) that
 * spans from outer, with its JSDoc; flags from sc and extra. */
int32_t graph__ts_push_decl(tx *x, graph_sym_kind kind, const char *name, TSNode n, TSNode outer,
                            const ts_scope *sc, uint32_t extra)
{
    return graph__ts_push_sym(x, kind, name, sc->sym, sc->container, outer, graph__end_line(n),
                              decl_flags(sc) | extra, graph__ts_take_doc(x, outer));
}

/* A function or class named `name` declared at the level of sc. */
int32_t graph__ts_find_fn(tx *x, const char *name, const ts_scope *sc)
{
    size_t len = strlen(name);
    uint32_t it = 0;
    for (uint32_t v = core_smap_get(&x->fns, name, len, &it); v != UINT32_MAX;
         v = core_smap_next(&x->fns, name, len, &it)) {
        const gx_sym *s = &x->f->syms.v[v];
        bool same_container =
            (!s->container && !sc->container) ||
            (s->container && sc->container && !strcmp(s->container, sc->container));
        if (s->parent == sc->sym && same_container)
            return (int32_t)v;
    }
    return -1;
}

/* Flags a function node has of itself: generator, async. */
uint32_t graph__ts_fn_flags(tx *x, TSNode fn)
{
    uint32_t flags = 0;
    unsigned t = ty(x, fn);
    if (t == N_GENERATOR_FUNCTION || t == N_GENERATOR_FUNCTION_DECLARATION)
        flags |= GRAPH_SF_GENERATOR;
    /* `async` leads; a few children at most before it. */
    uint32_t nc = ts_node_child_count(fn);
    for (uint32_t i = 0; i < nc && i < 3; i++) {
        unsigned ct = ty(x, ts_node_child(fn, i));
        if (ct == A_ASYNC)
            flags |= GRAPH_SF_ASYNC;
        else if (ct == A_STAR)
            flags |= GRAPH_SF_GENERATOR;
    }
    return flags;
}

/* Modifiers before a member's name: static, get, set, async, *, private. */
NOINLINE uint32_t graph__ts_member_flags(tx *x, TSNode m, int depth)
{
    uint32_t flags = 0;
    TSTreeCursor *c = kids(x, depth, m);
    if (!c)
        return 0;
    do {
        if (ts_tree_cursor_current_field_id(c) == x->fid[F_NAME])
            break;
        TSNode ch = ts_tree_cursor_current_node(c);
        switch (ty(x, ch)) {
        case A_STATIC:
            flags |= GRAPH_SF_STATIC;
            break;
        case A_GET:
            flags |= GRAPH_SF_GETTER;
            break;
        case A_SET:
            flags |= GRAPH_SF_SETTER;
            break;
        case A_ASYNC:
            flags |= GRAPH_SF_ASYNC;
            break;
        case A_STAR:
            flags |= GRAPH_SF_GENERATOR;
            break;
        case N_ACCESSIBILITY_MODIFIER:
            if (text_eq(x, ch, "private"))
                flags |= GRAPH_SF_PRIVATE;
            break;
        default:
            break;
        }
    } while (ts_tree_cursor_goto_next_sibling(c));
    return flags;
}

/* `this` inside a plain function: the function itself when its name says
 * it is a constructor (Foo, not foo). */
int32_t graph__ts_ctor_cls(const char *name)
{
    return name && name[0] >= 'A' && name[0] <= 'Z' ? CLS_SELF : -1;
}

/* ---- parameters (for logging wrappers) ---- */

/* Does s[0, n) hold "level", "lvl" or "severity", in any case? */
static bool levelish(const char *s, size_t n)
{
    static const char *const words[] = {"level", "lvl", "severity"};
    for (size_t w = 0; w < sizeof words / sizeof words[0]; w++) {
        size_t k = strlen(words[w]);
        for (size_t i = 0; i + k <= n; i++) {
            size_t j = 0;
            while (j < k && (s[i + j] | 0x20) == words[w][j])
                j++;
            if (j == k)
                return true;
        }
    }
    return false;
}

/*
 * The name node of a parameter (a required_parameter or
 * optional_parameter): an identifier, or a null node for a destructured
 * one. *rest: it is `...name`; *skip: it takes no position (`this: T`).
 */
static TSNode param_name(tx *x, TSNode p, bool *rest, bool *skip)
{
    *rest = *skip = false;
    TSNode pat = fld(x, p, F_PATTERN);
    if (is_null(pat))
        pat = fld(x, p, F_NAME);
    if (ty(x, pat) == N_THIS) {
        *skip = true;
        return gx_null();
    }
    if (ty(x, pat) == N_REST_PATTERN) {
        *rest = true;
        pat = ts_node_named_child(pat, 0);
    }
    return ty(x, pat) == N_IDENTIFIER ? pat : gx_null();
}

enum { PARAMS_MAX = 64 };

/* The parameters of function node fn, as a call passes them; NULL if none. */
NOINLINE const ts_param *graph__ts_collect_params(tx *x, TSNode fn, uint32_t *np, int depth)
{
    *np = 0;
    TSNode one = fld(x, fn, F_PARAMETER), params = fld(x, fn, F_PARAMETERS);
    if (ty(x, one) == N_IDENTIFIER) {
        /* x => ... */
        const char *nm = name_text(x, one);
        if (!nm)
            return NULL;
        ts_param *p = core_arena_alloc(&x->f->arena, sizeof *p);
        *p = (ts_param){nm, 0, false, levelish(nm, strlen(nm))};
        *np = 1;
        return p;
    }
    uint32_t nc = ts_node_named_child_count(params);
    TSTreeCursor *c = nc ? kids(x, depth, params) : NULL;
    if (!c)
        return NULL;
    ts_param *out =
        core_arena_alloc(&x->f->arena, (nc < PARAMS_MAX ? nc : PARAMS_MAX) * sizeof *out);
    uint32_t n = 0;
    int32_t next = 0;
    do {
        TSNode p = ts_tree_cursor_current_node(c);
        unsigned t = ty(x, p);
        if (t != N_REQUIRED_PARAMETER && t != N_OPTIONAL_PARAMETER)
            continue;
        bool rest, skip;
        TSNode name = param_name(x, p, &rest, &skip);
        if (skip)
            continue;
        int32_t pos = next++;
        const char *nm = name_text(x, name);
        if (!nm || n >= PARAMS_MAX)
            continue;
        bool lv = levelish(nm, strlen(nm));
        TSNode type = fld(x, p, F_TYPE);
        if (!lv && !is_null(type)) {
            uint32_t a = ts_node_start_byte(type), b = ts_node_end_byte(type);
            lv = b - a < 64 && levelish(x->src + a, b - a);
        }
        out[n++] = (ts_param){nm, pos, rest, lv};
    } while (ts_tree_cursor_goto_next_sibling(c));
    *np = n;
    return n ? out : NULL;
}

/*
 * A callback sees the parameters of the function it is part of, unless it
 * declares one of the same name (then, simply, none).
 */
NOINLINE bool graph__ts_shadows_params(tx *x, TSNode fn, const ts_scope *sc, int depth)
{
    TSNode one = fld(x, fn, F_PARAMETER);
    if (ty(x, one) == N_IDENTIFIER) {
        for (uint32_t i = 0; i < sc->nparams; i++)
            if (text_eq(x, one, sc->params[i].name))
                return true;
        return false;
    }
    TSTreeCursor *c = kids(x, depth, fld(x, fn, F_PARAMETERS));
    if (!c)
        return false;
    do {
        TSNode p = ts_tree_cursor_current_node(c);
        unsigned t = ty(x, p);
        if (t != N_REQUIRED_PARAMETER && t != N_OPTIONAL_PARAMETER)
            continue;
        bool rest, skip;
        TSNode name = param_name(x, p, &rest, &skip);
        if (is_null(name))
            continue;
        for (uint32_t i = 0; i < sc->nparams; i++)
            if (text_eq(x, name, sc->params[i].name))
                return true;
    } while (ts_tree_cursor_goto_next_sibling(c));
    return false;
}

/* The parameter of the enclosing function an identifier names, if any. */
const ts_param *graph__ts_param_named(tx *x, const ts_scope *sc, TSNode id)
{
    if (!sc->nparams || (ty(x, id) != N_IDENTIFIER && ty(x, id) != N_SHORTHAND_PROPERTY_IDENTIFIER))
        return NULL;
    for (uint32_t i = 0; i < sc->nparams; i++)
        if (text_eq(x, id, sc->params[i].name))
            return &sc->params[i];
    return NULL;
}

/* ---- bindings ---- */

/* What a right-hand side makes of the name it is bound to. */
NOINLINE void graph__ts_bind_value(tx *x, const char *name, TSNode value, int32_t scope, TSNode at)
{
    TSNode v = unwrap(x, value);
    if (ty(x, v) == N_AWAIT_EXPRESSION)
        v = unwrap(x, ts_node_named_child(v, 0));
    switch (ty(x, v)) {
    case N_NEW_EXPRESSION: {
        const char *p = graph__ts_path_of(x, fld(x, v, F_CONSTRUCTOR), 0);
        add_bind(x, p ? GX_BIND_NEW : GX_BIND_LOCAL, name, p, scope, at);
        return;
    }
    case N_CALL_EXPRESSION: {
        const char *p = graph__ts_path_of(x, fld(x, v, F_FUNCTION), 0);
        if (p) {
            const char *last = gx_last_component(p);
            if (last != p && strcmp(last, "bind") == 0) {
                /* this.handle.bind(this): the same function */
                add_bind(x, GX_BIND_ALIAS, name,
                         core_arena_strndup(&x->f->arena, p, (size_t)(last - p - 1)), scope, at);
                return;
            }
        }
        add_bind(x, p ? GX_BIND_CALL : GX_BIND_LOCAL, name, p, scope, at);
        return;
    }
    case N_IDENTIFIER:
    case N_MEMBER_EXPRESSION:
    case N_THIS: {
        const char *p = graph__ts_path_of(x, v, 0);
        add_bind(x, p ? GX_BIND_ALIAS : GX_BIND_LOCAL, name, p, scope, at);
        return;
    }
    default:
        add_bind(x, GX_BIND_LOCAL, name, NULL, scope, at);
    }
}

/* Every name a destructuring pattern binds: LOCAL. */
NOINLINE void graph__ts_bind_pattern(tx *x, TSNode p, int32_t scope, int depth)
{
    switch (ty(x, p)) {
    case N_IDENTIFIER:
    case N_SHORTHAND_PROPERTY_IDENTIFIER_PATTERN:
        add_bind(x, GX_BIND_LOCAL, name_text(x, p), NULL, scope, p);
        return;
    case N_PAIR_PATTERN:
        graph__ts_bind_pattern(x, fld(x, p, F_VALUE), scope, depth + 1);
        return;
    case N_OBJECT_ASSIGNMENT_PATTERN:
    case N_ASSIGNMENT_PATTERN:
        graph__ts_bind_pattern(x, fld(x, p, F_LEFT), scope, depth + 1);
        return;
    case N_REST_PATTERN:
    case N_OBJECT_PATTERN:
    case N_ARRAY_PATTERN: {
        TSTreeCursor *c = kids(x, depth, p);
        if (!c)
            return;
        do {
            TSNode ch = ts_tree_cursor_current_node(c);
            if (ts_node_is_named(ch))
                graph__ts_bind_pattern(x, ch, scope, depth + 1);
        } while (ts_tree_cursor_goto_next_sibling(c));
        return;
    }
    default:
        return;
    }
}

/* ---- where definitions hide ---- */

/* An object literal's value, through `Object.freeze({...})` and `as const`. */
TSNode graph__ts_object_value(tx *x, TSNode v)
{
    v = unwrap(x, v);
    if (ty(x, v) == N_OBJECT)
        return v;
    if (ty(x, v) == N_CALL_EXPRESSION) {
        TSNode fn = fld(x, v, F_FUNCTION), args = fld(x, v, F_ARGUMENTS);
        if (ty(x, fn) == N_MEMBER_EXPRESSION && text_eq(x, fn, "Object.freeze") &&
            ty(x, args) == N_ARGUMENTS && ts_node_named_child_count(args) == 1) {
            TSNode o = unwrap(x, ts_node_named_child(args, 0));
            if (ty(x, o) == N_OBJECT)
                return o;
        }
    }
    return gx_null();
}

/* useCallback(fn, deps), memo(fn), forwardRef(fn), observer(fn): fn. */
TSNode graph__ts_wrapped_fn(tx *x, TSNode call)
{
    const char *p = graph__ts_path_of(x, fld(x, call, F_FUNCTION), 0);
    if (!p)
        return gx_null();
    const char *last = gx_last_component(p);
    if (strcmp(last, "useCallback") != 0 && strcmp(last, "memo") != 0 &&
        strcmp(last, "forwardRef") != 0 && strcmp(last, "observer") != 0)
        return gx_null();
    TSNode args = fld(x, call, F_ARGUMENTS);
    if (ty(x, args) != N_ARGUMENTS)
        return gx_null();
    TSNode a0 = unwrap(x, ts_node_named_child(args, 0));
    return is_fn(ty(x, a0)) ? a0 : gx_null();
}

/* The function or class whose prototype `name.prototype` is: a symbol of
 * this file at the level of sc, or what `module.exports` was set to. */
int32_t graph__ts_proto_owner(tx *x, const char *name, const ts_scope *sc)
{
    if (strcmp(name, "module.exports") == 0)
        return x->cjs_default;
    return strchr(name, '.') ? -1 : graph__ts_find_fn(x, name, sc);
}
