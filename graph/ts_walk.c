/*
 * TypeScript/JavaScript extraction: the walk over the syntax tree, and the
 * handlers of what holds more code to walk (functions, classes, object
 * literals, declarations, exports, assignments, calls, JSX, types). They
 * recurse into one another, so they stay together; what they record is
 * the business of the other ts_*.c files.
 */
#include "flow_int.h"
#include "ts_int.h"

#include <stdlib.h>
#include <string.h>

static void walk(tx *x, TSNode n, const ts_scope *sc, int depth);
static void walk_children(tx *x, TSNode n, const ts_scope *sc, int depth);
static void value_ref(tx *x, TSNode v, const ts_scope *sc, int depth);
static void value_later(tx *x, TSNode v, const ts_scope *sc, int depth);
static void walk_values(tx *x, TSNode n, const ts_scope *sc, int depth);
static NOINLINE int32_t do_class(tx *x, TSNode n, TSNode outer, const char *name,
                                 const ts_scope *sc, int depth);
static NOINLINE void do_object(tx *x, TSNode obj, const ts_scope *sc, const char *container,
                               const char *cprefix, int32_t owner, int32_t cls, uint32_t oflags,
                               int depth);
static NOINLINE void walk_declaration(tx *x, TSNode decl, TSNode outer, const char *name,
                                      const ts_scope *sc, int depth);

/* ---- functions ---- */

static NOINLINE void walk_decorator(tx *x, TSNode dec, const ts_scope *sc, int depth)
{
    uint32_t saved = x->emit_flags;
    x->emit_flags |= GRAPH_EF_DECORATOR;
    TSNode e = ts_node_named_child(dec, 0);
    unsigned t = ty(x, e);
    if (t == N_IDENTIFIER || t == N_MEMBER_EXPRESSION)
        /* @decorator wraps what it decorates: a call. */
        add_ref(x, GX_REF_CALL, graph__ts_path_of(x, e, 0), sc->sym, e);
    else if (!is_null(e))
        walk(x, e, sc, depth + 1);
    x->emit_flags = saved;
}

static void walk_decorators(tx *x, const TSNode *decs, uint32_t nd, const ts_scope *sc, int depth)
{
    for (uint32_t i = 0; i < nd; i++)
        walk_decorator(x, decs[i], sc, depth + 1);
}

static NOINLINE void do_params(tx *x, TSNode params, const ts_scope *sc, bool bind, int depth)
{
    TSTreeCursor *c = kids(x, depth, params);
    if (!c)
        return;
    uint32_t pos = 0; /* as a call passes it: TypeScript's `this:` is not passed */
    do {
        TSNode p = ts_tree_cursor_current_node(c);
        unsigned t = ty(x, p);
        if (t == N_COMMENT)
            continue;
        if (bind && sc->sym >= 0 && ts_node_is_named(p) && t != N_THIS) {
            TSNode named =
                t == N_REQUIRED_PARAMETER || t == N_OPTIONAL_PARAMETER ? fld(x, p, F_PATTERN) : p;
            if (is_null(named) || ty(x, named) != N_THIS)
                x->f->syms.v[sc->sym].takes_args = true;
        }
        if (t != N_REQUIRED_PARAMETER && t != N_OPTIONAL_PARAMETER) {
            if (ts_node_is_named(p))
                walk(x, p, sc, depth + 1);
            continue;
        }
        TSNode pat = fld(x, p, F_PATTERN);
        if (is_null(pat))
            pat = fld(x, p, F_NAME);
        TSNode type = fld(x, p, F_TYPE), value = fld(x, p, F_VALUE);
        /* Decorators and `private readonly` (a parameter property). */
        bool prop = false;
        uint32_t nc = ts_node_child_count(p);
        for (uint32_t i = 0; i < nc && i < 16; i++) {
            TSNode ch = ts_node_child(p, i);
            unsigned ct = ty(x, ch);
            if (ct == N_DECORATOR)
                walk_decorator(x, ch, sc, depth + 1);
            else if (ct == N_ACCESSIBILITY_MODIFIER || ct == A_READONLY || ct == A_OVERRIDE)
                prop = true;
            else if (ct == N_IDENTIFIER || ct == N_THIS || ct == N_REST_PATTERN ||
                     ct == N_OBJECT_PATTERN || ct == N_ARRAY_PATTERN)
                break;
        }
        if (!is_null(type))
            walk(x, type, sc, depth + 1);
        const char *cls = is_null(type) ? NULL : graph__ts_annotation_class(x, type, 0);
        if (ty(x, pat) == N_IDENTIFIER) {
            const char *nm = name_text(x, pat);
            if (bind && cls)
                add_bind(x, GX_BIND_TYPE, nm, cls, sc->sym, pat);
            else if (bind)
                add_param(x, nm, pos, sc->sym, pat);
            if (prop && nm && cls && sc->cls >= 0)
                add_bind(x, GX_BIND_TYPE, graph__path_join(x->f, "@self", nm, strlen(nm)), cls,
                         sc->cls, pat);
        } else if (bind && !is_null(pat) && ty(x, pat) != N_THIS) {
            graph__ts_bind_pattern(x, pat, sc->sym, depth + 1);
        }
        if (!is_null(value))
            value_ref(x, value, sc, depth + 1);
        if (ty(x, pat) != N_THIS)
            pos++;
    } while (ts_tree_cursor_goto_next_sibling(c));
}

/* A function that returns what a call gives (`return createLogger(ns)`):
 * the callee's path, its first such return's, for the resolver to type
 * what calling the function gives. */
static void returned_call(tx *x, TSNode v, int32_t sym)
{
    v = unwrap(x, v);
    if (sym < 0 || ty(x, v) != N_CALL_EXPRESSION || x->f->syms.v[sym].ret_call)
        return;
    x->f->syms.v[sym].ret_call = graph__ts_path_of(x, fld(x, v, F_FUNCTION), 0);
}

/* Parameters, return type and body of a function, in scope `inner`;
 * `bind` binds the parameters as locals of inner.sym. */
static NOINLINE void walk_function(tx *x, TSNode fn, const ts_scope *inner, bool bind, int depth)
{
    if (depth > GX_MAX_DEPTH) {
        x->f->too_deep++;
        return;
    }
    TSNode tp = fld(x, fn, F_TYPE_PARAMETERS), params = fld(x, fn, F_PARAMETERS),
           p1 = fld(x, fn, F_PARAMETER), ret = fld(x, fn, F_RETURN_TYPE), body = fld(x, fn, F_BODY);
    size_t saved = x->tparams.n;
    /* What a logging call in the body may pass on (see gx_call): a named
     * function's own parameters; a callback's are not the symbol's. */
    ts_scope in = *inner;
    in.body = body;
    if (bind)
        in.params = graph__ts_collect_params(x, fn, &in.nparams, depth + 1);
    else if (in.nparams && graph__ts_shadows_params(x, fn, &in, depth + 1))
        in.nparams = 0;
    inner = &in;
    if (!is_null(tp)) {
        graph__ts_push_tparams(x, tp, depth + 1);
        walk(x, tp, inner, depth + 1);
    }
    if (!is_null(params))
        do_params(x, params, inner, bind, depth + 1);
    if (bind && ty(x, p1) == N_IDENTIFIER)
        add_param(x, name_text(x, p1), 0, inner->sym, p1);
    if (!is_null(ret))
        walk(x, ret, inner, depth + 1);
    if (!is_null(body)) {
        if (ty(x, body) == N_STATEMENT_BLOCK) {
            walk(x, body, inner, depth + 1);
        } else {
            /* `(id, carrier) => `order ${id} shipped via ${carrier}``:
             * what it returns, as a return statement's. */
            if (bind && inner->in_function && inner->sym >= 0) {
                graph__ts_add_returned(x, body, body, inner, depth + 1);
                returned_call(x, body, inner->sym);
            }
            value_later(x, body, inner, depth + 1);
        }
    }
    x->tparams.n = saved;
}

/* An unnamed function (a callback): walked as part of the enclosing
 * symbol, its parameters not bound. */
static NOINLINE void walk_callback(tx *x, TSNode fn, const ts_scope *sc, int depth)
{
    ts_scope in = *sc;
    in.in_function = true;
    in.exported = false;
    in.container = NULL;
    if (ty(x, fn) != N_ARROW_FUNCTION && ty(x, fn) != N_METHOD_DEFINITION)
        in.cls = -1;
    walk_function(x, fn, &in, false, depth);
}

/*
 * A FUNCTION or METHOD symbol for function node fn, spanning from outer's
 * first line to fn's end, then the walk of fn inside it. cls: the class
 * `this` belongs to inside, or CLS_SELF.
 */
static NOINLINE int32_t make_fn(tx *x, TSNode fn, TSNode outer, graph_sym_kind kind,
                                const char *name, const char *container, int32_t parent,
                                uint32_t flags, int32_t cls, int depth)
{
    flags |= graph__ts_fn_flags(x, fn);
    const char *doc = graph__ts_take_doc(x, outer);
    int32_t idx = graph__ts_push_sym(x, kind, name, parent, container, outer, graph__end_line(fn),
                                     flags, doc);
    ts_scope inner = {.sym = idx, .cls = cls == CLS_SELF ? idx : cls, .in_function = true};
    walk_function(x, fn, &inner, true, depth + 1);
    return idx;
}

static NOINLINE void do_function_decl(tx *x, TSNode n, TSNode outer, const char *name,
                                      const ts_scope *sc, int depth)
{
    const char *nm = name ? name : name_text(x, fld(x, n, F_NAME));
    if (!nm) {
        walk_callback(x, n, sc, depth);
        return;
    }
    make_fn(x, n, outer, GRAPH_SYM_FUNCTION, nm, sc->container, sc->sym, decl_flags(sc),
            graph__ts_ctor_cls(nm), depth);
}

/* A method_definition: a METHOD of `parent` (-1: the module) with
 * `container`, or (!make) walked as a callback. */
static NOINLINE void do_method(tx *x, TSNode m, const TSNode *decs, uint32_t nd, bool make,
                               int32_t parent, const char *container, uint32_t extra, int32_t cls,
                               const ts_scope *sc, int depth)
{
    TSNode name = fld(x, m, F_NAME);
    const char *nm = graph__ts_member_name(x, name);
    if (!make || !nm) {
        walk_decorators(x, decs, nd, sc, depth);
        walk_callback(x, m, sc, depth + 1);
        return;
    }
    uint32_t flags = graph__ts_member_flags(x, m, depth) | extra;
    if (ty(x, name) == N_PRIVATE_PROPERTY_IDENTIFIER)
        flags |= GRAPH_SF_PRIVATE;
    if (strcmp(nm, "constructor") == 0 && cls == parent)
        flags |= GRAPH_SF_CTOR;
    TSNode outer = nd ? decs[0] : m;
    const char *doc = graph__ts_take_doc(x, outer);
    int32_t idx = graph__ts_push_sym(x, GRAPH_SYM_METHOD, nm, parent, container, outer,
                                     graph__end_line(m), flags, doc);
    ts_scope inner = {.sym = idx, .cls = cls, .in_function = true};
    walk_decorators(x, decs, nd, &inner, depth);
    walk_function(x, m, &inner, true, depth + 1);
}

/* ---- classes ---- */

static NOINLINE void do_heritage(tx *x, TSNode h, int32_t cls, const ts_scope *sc, int depth)
{
    TSTreeCursor *c = kids(x, depth, h);
    if (!c)
        return;
    do {
        TSNode cl = ts_tree_cursor_current_node(c);
        unsigned t = ty(x, cl);
        if (t != N_EXTENDS_CLAUSE && t != N_IMPLEMENTS_CLAUSE)
            continue;
        TSTreeCursor *c2 = kids(x, depth + 1, cl);
        if (!c2)
            continue;
        do {
            TSNode b = ts_tree_cursor_current_node(c2);
            if (!ts_node_is_named(b) || ty(x, b) == N_COMMENT)
                continue;
            unsigned bt = ty(x, b);
            const char *p = NULL;
            if (t == N_EXTENDS_CLAUSE) {
                if (ts_tree_cursor_current_field_id(c2) != x->fid[F_VALUE]) {
                    walk(x, b, sc, depth + 2); /* type arguments */
                    continue;
                }
                p = graph__ts_path_of(x, b, 0);
            } else {
                p = graph__ts_type_path(x, b, 0);
                if (bt == N_GENERIC_TYPE)
                    walk(x, fld(x, b, F_TYPE_ARGUMENTS), sc, depth + 2);
            }
            if (p && cls >= 0)
                add_ref(x, GX_REF_BASE, p, cls, b);
            else if (t == N_EXTENDS_CLAUSE)
                value_ref(x, b, sc, depth + 2);
            else
                walk(x, b, sc, depth + 2);
        } while (ts_tree_cursor_goto_next_sibling(c2));
    } while (ts_tree_cursor_goto_next_sibling(c));
}

static NOINLINE void do_field(tx *x, TSNode fd, const TSNode *decs, uint32_t nd, const ts_scope *sc,
                              int32_t cls, int depth)
{
    TSNode name = fld(x, fd, F_NAME), value = fld(x, fd, F_VALUE), type = fld(x, fd, F_TYPE);
    const char *nm = graph__ts_member_name(x, name);
    uint32_t mf = graph__ts_member_flags(x, fd, depth);
    bool is_static = mf & GRAPH_SF_STATIC;
    TSNode v = unwrap(x, value);
    unsigned vt = ty(x, v);
    if (is_fn(vt) && nm && cls >= 0) {
        /* handler = (e) => {...}: a method bound to the instance */
        uint32_t flags = GRAPH_SF_BOUND | (mf & (GRAPH_SF_STATIC | GRAPH_SF_PRIVATE));
        if (ty(x, name) == N_PRIVATE_PROPERTY_IDENTIFIER)
            flags |= GRAPH_SF_PRIVATE;
        TSNode outer = nd ? decs[0] : fd;
        flags |= graph__ts_fn_flags(x, v);
        const char *doc = graph__ts_take_doc(x, outer);
        int32_t idx = graph__ts_push_sym(x, GRAPH_SYM_METHOD, nm, cls, NULL, outer,
                                         graph__end_line(v), flags, doc);
        ts_scope inner = {.sym = idx, .cls = cls, .in_function = true};
        walk_decorators(x, decs, nd, &inner, depth);
        if (!is_null(type))
            walk(x, type, &inner, depth + 1);
        walk_function(x, v, &inner, true, depth + 1);
        return;
    }
    walk_decorators(x, decs, nd, sc, depth);
    if (!is_null(type)) {
        walk(x, type, sc, depth + 1);
        const char *ac = graph__ts_annotation_class(x, type, 0);
        if (nm && ac && cls >= 0 && !is_static)
            add_bind(x, GX_BIND_TYPE, graph__path_join(x->f, "@self", nm, strlen(nm)), ac, cls,
                     name);
    }
    if (is_null(value))
        return;
    if (nm && cls >= 0) {
        const char *self = graph__path_join(x->f, "@self", nm, strlen(nm));
        if (is_static && graph__ts_stringish(x, v, 0))
            graph__ts_add_const(x, nm, v, cls, depth + 1);
        if (!is_static) {
            if (vt == N_NEW_EXPRESSION || vt == N_CALL_EXPRESSION || vt == N_MEMBER_EXPRESSION ||
                vt == N_IDENTIFIER)
                graph__ts_bind_value(x, self, value, cls, name);
            graph__ts_note_logger(x, self, value, depth + 1);
        }
        if (vt == N_OBJECT) {
            do_object(x, v, sc, nm, NULL, cls, -1, 0, depth + 1);
            return;
        }
    }
    value_ref(x, value, sc, depth + 1);
}

enum { DECS_MAX = 16 };

static NOINLINE void do_class_body(tx *x, TSNode body, const ts_scope *sc, int32_t cls, int depth)
{
    TSNode decs[DECS_MAX];
    uint32_t nd = 0;
    TSTreeCursor *c = kids(x, depth, body);
    if (!c)
        return;
    do {
        TSNode ch = ts_tree_cursor_current_node(c);
        unsigned t = ty(x, ch);
        if (t == N_COMMENT) {
            graph__ts_note_comment(x, ch);
            continue;
        }
        if (t == N_DECORATOR) {
            if (nd < DECS_MAX)
                decs[nd++] = ch;
            else
                walk_decorator(x, ch, sc, depth + 1);
            continue;
        }
        if (!ts_node_is_named(ch))
            continue;
        switch (t) {
        case N_METHOD_DEFINITION:
            do_method(x, ch, decs, nd, cls >= 0, cls, NULL, 0, cls, sc, depth + 1);
            break;
        case N_PUBLIC_FIELD_DEFINITION:
            do_field(x, ch, decs, nd, sc, cls, depth + 1);
            break;
        case N_CLASS_STATIC_BLOCK:
            walk_decorators(x, decs, nd, sc, depth);
            walk(x, fld(x, ch, F_BODY), sc, depth + 1);
            break;
        default:
            /* signatures, index signatures: their types */
            walk_decorators(x, decs, nd, sc, depth);
            walk(x, ch, sc, depth + 1);
            break;
        }
        nd = 0;
    } while (ts_tree_cursor_goto_next_sibling(c));
    walk_decorators(x, decs, nd, sc, depth);
}

/*
 * A class declaration or expression. name: the name to give it (a
 * variable's), else its own; without either it gets no symbol and its
 * members are walked as part of the enclosing symbol.
 */
static NOINLINE int32_t do_class(tx *x, TSNode n, TSNode outer, const char *name,
                                 const ts_scope *sc, int depth)
{
    if (depth > GX_MAX_DEPTH) {
        x->f->too_deep++;
        return -1;
    }
    const char *nm = name ? name : name_text(x, fld(x, n, F_NAME));
    int32_t idx = -1;
    ts_scope inner = unexported(sc);
    inner.params = NULL;
    inner.nparams = 0;
    if (nm) {
        idx = graph__ts_push_decl(x, GRAPH_SYM_CLASS, nm, n, outer, sc,
                                  ty(x, n) == N_ABSTRACT_CLASS_DECLARATION ? GRAPH_SF_ABSTRACT : 0);
        inner.sym = idx;
        inner.cls = idx;
        inner.container = NULL;
        inner.in_function = false;
    } else {
        inner.cls = -1;
        inner.in_function = true;
    }
    ts_scope outer_sc = unexported(sc);
    /* @dec export class X: the decorators sit on the export statement. */
    if (!ts_node_eq(outer, n) && ty(x, outer) == N_EXPORT_STATEMENT) {
        TSTreeCursor *c = kids(x, depth, outer);
        if (c) {
            do {
                TSNode ch = ts_tree_cursor_current_node(c);
                if (ty(x, ch) == N_DECORATOR)
                    walk_decorator(x, ch, &inner, depth + 1);
            } while (ts_tree_cursor_goto_next_sibling(c));
        }
    }
    TSNode body = gx_null();
    size_t saved = x->tparams.n;
    TSTreeCursor *c = kids(x, depth, n);
    if (c) {
        do {
            TSNode ch = ts_tree_cursor_current_node(c);
            switch (ty(x, ch)) {
            case N_DECORATOR:
                walk_decorator(x, ch, &inner, depth + 1);
                break;
            case N_CLASS_HERITAGE:
                do_heritage(x, ch, idx, idx >= 0 ? &inner : &outer_sc, depth + 1);
                break;
            case N_TYPE_PARAMETERS:
                graph__ts_push_tparams(x, ch, depth + 1);
                walk(x, ch, &inner, depth + 1);
                break;
            case N_CLASS_BODY:
                body = ch;
                break;
            default:
                break;
            }
        } while (ts_tree_cursor_goto_next_sibling(c));
    }
    if (!is_null(body))
        do_class_body(x, body, &inner, idx, depth + 1);
    x->tparams.n = saved;
    return idx;
}

/* ---- object literals ---- */

enum {
    O_EXPORTS = 1, /* module.exports = {...}: every member is exported */
    /* texts only as constants when they read as messages (a blank, or a
     * hole): below module.exports, whose words are as often names */
    O_SENTENCES = 2,
};

/* A registry's entry, a word keying a class (`{ sync: SyncWorker }`,
 * `{ 'tcp': transports.Tcp }`): the word, with the name the resolver
 * finds the class by (gx_lit.target). A configuration or a message that
 * gives the word then says which class runs. */
static void registry_word(tx *x, const char *key, TSNode value, int32_t sym)
{
    const char *path = graph__ts_path_of(x, value, 0);
    if (path && graph_value_literal(key, strlen(key)))
        core_vec_push(&x->f->lits, ((gx_lit){key, sym, path}));
}

/* Whether a string-ish value reads as a message: a literal with a blank
 * or a %-directive, or a template or concatenation (text around values). */
static bool reads_as_sentence(tx *x, TSNode v)
{
    if (ty(x, v) != N_STRING)
        return true;
    size_t n;
    const char *t = graph__ts_decode_string(x, v, &n);
    return t && (memchr(t, ' ', n) || graph__ts_has_util_directive(t, n));
}

/*
 * Members of an object literal: methods and function-valued properties
 * become METHOD symbols of `owner` with `container`; string-valued
 * properties become constants "cprefix.key" (when cprefix is set); nested
 * objects extend both. cls: what `this` is inside the methods.
 */
static NOINLINE void do_object(tx *x, TSNode obj, const ts_scope *sc, const char *container,
                               const char *cprefix, int32_t owner, int32_t cls, uint32_t oflags,
                               int depth)
{
    TSTreeCursor *c = kids(x, depth, obj);
    if (!c)
        return;
    uint32_t extra =
        (sc->in_function ? GRAPH_SF_NESTED : 0) | (oflags & O_EXPORTS ? GRAPH_SF_EXPORTED : 0);
    bool exports = oflags & O_EXPORTS;
    do {
        TSNode m = ts_tree_cursor_current_node(c);
        unsigned t = ty(x, m);
        switch (t) {
        case N_COMMENT:
            graph__ts_note_comment(x, m);
            break;
        case N_METHOD_DEFINITION: {
            const char *nm = graph__ts_member_name(x, fld(x, m, F_NAME));
            do_method(x, m, NULL, 0, true, owner, container, extra, cls, sc, depth + 1);
            if (exports && nm)
                graph__ts_add_export(x, GX_EXP_NAME, nm, nm, NULL, m);
            break;
        }
        case N_PAIR: {
            TSNode key = fld(x, m, F_KEY), value = fld(x, m, F_VALUE);
            const char *kn = graph__ts_member_name(x, key);
            /* What module.exports holds is the module's own names: its
             * texts are constants by their keys (`MESSAGES.notFound`). */
            const char *ckey = exports ? kn : NULL;
            TSNode v = unwrap(x, value), ov = graph__ts_object_value(x, v);
            unsigned vt = ty(x, v);
            if (kn && is_fn(vt)) {
                make_fn(x, v, m, GRAPH_SYM_METHOD, kn, container, owner, extra | GRAPH_SF_BOUND,
                        cls, depth + 1);
                if (exports)
                    graph__ts_add_export(x, GX_EXP_NAME, kn, kn, NULL, m);
            } else if (kn && vt == N_CLASS) {
                ts_scope in = *sc;
                in.container = container;
                in.exported = exports;
                do_class(x, v, m, kn, &in, depth + 1);
                if (exports)
                    graph__ts_add_export(x, GX_EXP_NAME, kn, kn, NULL, m);
            } else if (kn && !is_null(ov)) {
                do_object(x, ov, sc, join(x, container, kn), cprefix ? join(x, cprefix, kn) : ckey,
                          owner, -1, ckey || (oflags & O_SENTENCES) ? O_SENTENCES : 0, depth + 1);
                if (exports)
                    graph__ts_add_export(x, GX_EXP_NAME, kn, NULL, NULL, m);
            } else {
                if (kn && (cprefix || ckey) && graph__ts_stringish(x, v, 0) &&
                    (!(ckey || (oflags & O_SENTENCES)) || reads_as_sentence(x, v)))
                    graph__ts_add_const(x, cprefix ? join(x, cprefix, kn) : kn, v, sc->sym,
                                        depth + 1);
                if (exports && kn)
                    graph__ts_add_export(x, GX_EXP_NAME, kn, graph__ts_path_of(x, v, 0), NULL, m);
                if (kn && (vt == N_IDENTIFIER || vt == N_MEMBER_EXPRESSION))
                    registry_word(x, kn, v, sc->sym);
                if (ty(x, key) == N_COMPUTED_PROPERTY_NAME)
                    walk(x, key, sc, depth + 1);
                value_ref(x, value, sc, depth + 1);
            }
            break;
        }
        case N_SHORTHAND_PROPERTY_IDENTIFIER: {
            const char *nm = name_text(x, m);
            add_ref(x, GX_REF_READ, nm, sc->sym, m);
            if (exports && nm)
                graph__ts_add_export(x, GX_EXP_NAME, nm, nm, NULL, m);
            break;
        }
        default:
            if (ts_node_is_named(m))
                walk(x, m, sc, depth + 1);
            break;
        }
    } while (ts_tree_cursor_goto_next_sibling(c));
}

/* ---- declarations ---- */

static NOINLINE void do_declarator(tx *x, TSNode d, TSNode outer, const ts_scope *sc, int depth)
{
    TSNode name = fld(x, d, F_NAME), type = fld(x, d, F_TYPE), value = fld(x, d, F_VALUE);
    ts_scope plain = unexported(sc);
    TSNode v = unwrap(x, value);
    unsigned vt = ty(x, v);
    TSNode wrapper = gx_null();
    if (vt == N_CALL_EXPRESSION) {
        /* const onClick = useCallback(() => {...}, [deps]), memo(), forwardRef() */
        TSNode inner = graph__ts_wrapped_fn(x, v);
        if (!is_null(inner)) {
            wrapper = v;
            v = inner;
            vt = ty(x, v);
        }
    }
    if (!is_null(type) && !(is_fn(vt) && ty(x, name) == N_IDENTIFIER))
        walk(x, type, &plain, depth + 1);
    if (ty(x, name) != N_IDENTIFIER) {
        if (!graph__ts_require_decl(x, name, value, &plain, depth + 1)) {
            graph__ts_bind_pattern(x, name, sc->sym, depth + 1);
            value_ref(x, value, &plain, depth + 1);
        }
        return;
    }
    const char *nm = name_text(x, name);
    if (!nm)
        return;
    if (is_fn(vt)) {
        uint32_t flags = GRAPH_SF_BOUND | decl_flags(sc);
        int32_t cls = vt == N_ARROW_FUNCTION ? sc->cls : graph__ts_ctor_cls(nm);
        if (!is_null(wrapper))
            add_ref(x, GX_REF_CALL, graph__ts_path_of(x, fld(x, wrapper, F_FUNCTION), 0), sc->sym,
                    wrapper);
        int32_t idx =
            make_fn(x, v, outer, GRAPH_SYM_FUNCTION, nm, sc->container, sc->sym, flags, cls, depth);
        if (!is_null(type)) {
            /* const f: Handler = () => ...: the type is the function's */
            ts_scope in = {.sym = idx, .cls = -1, .in_function = true};
            walk(x, type, &in, depth + 1);
        }
        if (!is_null(wrapper)) {
            /* the wrapper's other arguments: dependency lists, options */
            TSTreeCursor *c = kids(x, depth, fld(x, wrapper, F_ARGUMENTS));
            if (c) {
                do {
                    TSNode a = ts_tree_cursor_current_node(c);
                    if (ts_node_is_named(a) && !ts_node_eq(unwrap(x, a), v))
                        value_ref(x, a, &plain, depth + 1);
                } while (ts_tree_cursor_goto_next_sibling(c));
            }
        }
        return;
    }
    if (vt == N_CLASS) {
        do_class(x, v, outer, nm, sc, depth + 1);
        return;
    }
    bool required = graph__ts_require_decl(x, name, value, &plain, depth + 1);
    graph__ts_note_logger(x, nm, value, depth + 1);
    if (required)
        return;
    TSNode ov = graph__ts_object_value(x, v);
    if (!is_null(ov)) {
        do_object(x, ov, &plain, join(x, sc->container, nm), module_level(sc) ? nm : NULL, sc->sym,
                  -1, 0, depth + 1);
        return;
    }
    const char *ac = is_null(type) ? NULL : graph__ts_annotation_class(x, type, 0);
    if (ac)
        add_bind(x, GX_BIND_TYPE, nm, ac, sc->sym, name);
    else if (!is_null(value))
        graph__ts_bind_value(x, nm, value, sc->sym, name);
    else
        add_bind(x, GX_BIND_LOCAL, nm, NULL, sc->sym, name);
    if (module_level(sc) && graph__ts_stringish(x, v, 0))
        graph__ts_add_const(x, nm, v, -1, depth + 1);
    value_ref(x, value, &plain, depth + 1);
}

static NOINLINE void do_declaration(tx *x, TSNode decl, TSNode outer, const ts_scope *sc, int depth)
{
    /* The span of `const f = () => {}` starts at the statement when it
     * declares one name, else at the declarator. */
    uint32_t count = 0;
    TSTreeCursor *c = kids(x, depth, decl);
    if (!c)
        return;
    do {
        if (ty(x, ts_tree_cursor_current_node(c)) == N_VARIABLE_DECLARATOR)
            count++;
    } while (ts_tree_cursor_goto_next_sibling(c));
    c = kids(x, depth, decl);
    do {
        TSNode d = ts_tree_cursor_current_node(c);
        unsigned t = ty(x, d);
        if (t == N_VARIABLE_DECLARATOR)
            do_declarator(x, d, count == 1 ? outer : d, sc, depth + 1);
        else if (t == N_COMMENT)
            graph__ts_note_comment(x, d);
    } while (ts_tree_cursor_goto_next_sibling(c));
}

static NOINLINE void do_interface(tx *x, TSNode n, TSNode outer, const ts_scope *sc, int depth)
{
    const char *nm = name_text(x, fld(x, n, F_NAME));
    if (!nm) {
        walk_children(x, n, sc, depth);
        return;
    }
    int32_t idx = graph__ts_push_decl(x, GRAPH_SYM_INTERFACE, nm, n, outer, sc, 0);
    ts_scope inner = {.sym = idx, .cls = -1};
    size_t saved = x->tparams.n;
    TSTreeCursor *c = kids(x, depth, n);
    if (!c)
        return;
    do {
        TSNode ch = ts_tree_cursor_current_node(c);
        unsigned t = ty(x, ch);
        if (t == N_TYPE_PARAMETERS)
            graph__ts_push_tparams(x, ch, depth + 1);
        if (t == N_EXTENDS_TYPE_CLAUSE) {
            TSTreeCursor *c2 = kids(x, depth + 1, ch);
            if (!c2)
                continue;
            do {
                TSNode b = ts_tree_cursor_current_node(c2);
                if (!ts_node_is_named(b) || ty(x, b) == N_COMMENT)
                    continue;
                const char *p = graph__ts_type_path(x, b, 0);
                if (p)
                    add_ref(x, GX_REF_BASE, p, idx, b);
                if (ty(x, b) == N_GENERIC_TYPE)
                    walk(x, fld(x, b, F_TYPE_ARGUMENTS), &inner, depth + 2);
                else if (!p)
                    walk(x, b, &inner, depth + 2);
            } while (ts_tree_cursor_goto_next_sibling(c2));
        } else if (t == N_TYPE_PARAMETERS || ts_tree_cursor_current_field_id(c) == x->fid[F_BODY]) {
            walk(x, ch, &inner, depth + 1);
        }
    } while (ts_tree_cursor_goto_next_sibling(c));
    x->tparams.n = saved;
}

static NOINLINE void do_enum(tx *x, TSNode n, TSNode outer, const ts_scope *sc, int depth)
{
    const char *nm = name_text(x, fld(x, n, F_NAME));
    if (!nm)
        return;
    int32_t idx = graph__ts_push_decl(x, GRAPH_SYM_ENUM, nm, n, outer, sc, 0);
    ts_scope inner = {.sym = idx, .cls = -1};
    TSTreeCursor *c = kids(x, depth, fld(x, n, F_BODY));
    if (!c)
        return;
    do {
        TSNode m = ts_tree_cursor_current_node(c);
        if (ty(x, m) == N_COMMENT) {
            graph__ts_note_comment(x, m);
            continue;
        }
        if (ty(x, m) != N_ENUM_ASSIGNMENT)
            continue;
        const char *mn = graph__ts_member_name(x, fld(x, m, F_NAME));
        TSNode v = fld(x, m, F_VALUE);
        if (mn && graph__ts_stringish(x, v, 0))
            graph__ts_add_const(x, join(x, nm, mn), v, idx, depth + 1);
        else
            value_ref(x, v, &inner, depth + 1);
    } while (ts_tree_cursor_goto_next_sibling(c));
}

static NOINLINE void do_type_alias(tx *x, TSNode n, TSNode outer, const ts_scope *sc, int depth)
{
    const char *nm = name_text(x, fld(x, n, F_NAME));
    if (!nm)
        return;
    int32_t idx = graph__ts_push_decl(x, GRAPH_SYM_TYPE, nm, n, outer, sc, 0);
    ts_scope inner = {.sym = idx, .cls = -1};
    TSNode tp = fld(x, n, F_TYPE_PARAMETERS), v = fld(x, n, F_VALUE);
    size_t saved = graph__ts_push_tparams(x, tp, depth + 1);
    if (!is_null(tp))
        walk(x, tp, &inner, depth + 1);
    if (!is_null(v))
        walk(x, v, &inner, depth + 1);
    x->tparams.n = saved;
}

/* namespace A.B { ... }: no symbol; what is inside gets container "A.B". */
static NOINLINE void do_namespace(tx *x, TSNode n, const ts_scope *sc, int depth)
{
    TSNode name = fld(x, n, F_NAME), body = fld(x, n, F_BODY);
    ts_scope in = unexported(sc);
    if (ty(x, name) != N_STRING) {
        const char *nm = graph__ts_type_path(x, name, 0);
        if (nm)
            in.container = join(x, sc->container, nm);
    }
    if (!is_null(body))
        walk(x, body, &in, depth + 1);
}

/* Declarations (also under `export` and `declare`). name: a name to give
 * an anonymous function or class (`export default`). */
static NOINLINE void walk_declaration(tx *x, TSNode decl, TSNode outer, const char *name,
                                      const ts_scope *sc, int depth)
{
    if (depth > GX_MAX_DEPTH) {
        x->f->too_deep++;
        return;
    }
    switch (ty(x, decl)) {
    case N_FUNCTION_DECLARATION:
    case N_GENERATOR_FUNCTION_DECLARATION:
        do_function_decl(x, decl, outer, name, sc, depth);
        return;
    case N_CLASS_DECLARATION:
    case N_ABSTRACT_CLASS_DECLARATION:
        do_class(x, decl, outer, name, sc, depth);
        return;
    case N_INTERFACE_DECLARATION:
        do_interface(x, decl, outer, sc, depth);
        return;
    case N_ENUM_DECLARATION:
        do_enum(x, decl, outer, sc, depth);
        return;
    case N_TYPE_ALIAS_DECLARATION:
        do_type_alias(x, decl, outer, sc, depth);
        return;
    case N_LEXICAL_DECLARATION:
    case N_VARIABLE_DECLARATION:
        do_declaration(x, decl, outer, sc, depth);
        return;
    case N_INTERNAL_MODULE:
    case N_MODULE:
        do_namespace(x, decl, sc, depth);
        return;
    case N_AMBIENT_DECLARATION: {
        TSTreeCursor *c = kids(x, depth, decl);
        if (!c)
            return;
        do {
            TSNode ch = ts_tree_cursor_current_node(c);
            if (ts_node_is_named(ch))
                walk_declaration(x, ch, ts_node_eq(outer, decl) ? ch : outer, name, sc, depth + 1);
        } while (ts_tree_cursor_goto_next_sibling(c));
        return;
    }
    default: {
        ts_scope plain = unexported(sc);
        walk(x, decl, &plain, depth + 1);
        return;
    }
    }
}

/* ---- exports ---- */

/* export default <expression> (also TypeScript's `export = x`). */
static NOINLINE void export_default(tx *x, TSNode value, TSNode outer, const ts_scope *sc,
                                    bool record, int depth)
{
    TSNode v = unwrap(x, value);
    unsigned t = ty(x, v);
    const char *local = NULL;
    if (is_fn(t)) {
        const char *nm = graph__ts_own_name(x, v);
        uint32_t flags = GRAPH_SF_EXPORTED | (sc->in_function ? GRAPH_SF_NESTED : 0);
        make_fn(x, v, outer, GRAPH_SYM_FUNCTION, nm, sc->container, sc->sym, flags,
                t == N_ARROW_FUNCTION ? sc->cls : graph__ts_ctor_cls(nm), depth);
        local = nm;
    } else if (t == N_CLASS) {
        const char *nm = graph__ts_own_name(x, v);
        do_class(x, v, outer, nm, sc, depth + 1);
        local = nm;
    } else if (ty(x, v) == N_OBJECT) {
        ts_scope plain = unexported(sc);
        do_object(x, v, &plain, "default", NULL, sc->sym, -1, 0, depth + 1);
    } else {
        ts_scope plain = unexported(sc);
        local = graph__ts_path_of(x, v, 0);
        value_ref(x, value, &plain, depth + 1);
    }
    if (record)
        graph__ts_add_export(x, GX_EXP_NAME, "default", local, NULL, outer);
}

static NOINLINE void do_export(tx *x, TSNode n, const ts_scope *sc, int depth)
{
    TSNode decl = fld(x, n, F_DECLARATION), value = fld(x, n, F_VALUE);
    bool record = module_level(sc) && !sc->container;
    ts_export_stmt st;
    graph__ts_export_stmt(x, n, &st, depth);
    ts_scope es = *sc;
    es.exported = true;
    if (!is_null(decl)) {
        walk_declaration(x, decl, n, NULL, &es, depth + 1);
        if (record)
            graph__ts_export_names(x, decl, st.dflt, n, depth + 1);
        return;
    }
    if (!is_null(value) || !is_null(st.eqexpr)) {
        export_default(x, !is_null(value) ? value : st.eqexpr, n, &es, record, depth + 1);
        return;
    }
    graph__ts_export_list(x, n, &st, depth + 1);
}

/* ---- assignments ---- */

/* The right side of an assignment, as assign_symbol() reads it. */
typedef struct {
    TSNode right; /* as written */
    TSNode r;     /* unwrapped */
    unsigned rt;  /* r's type */
    bool fn, cl;  /* r is a function, a class */
    TSNode obj;   /* the object literal r is, or null */
} assigned;

/* The `this` of a function assigned under name: the enclosing one's for
 * an arrow function, else the function itself if it looks like a
 * constructor. */
static int32_t assigned_cls(const assigned *v, const char *name, const ts_scope *sc)
{
    return v->rt == N_ARROW_FUNCTION ? sc->cls : graph__ts_ctor_cls(name);
}

/* `module.exports = <function, class, object, require(...), name>`. */
static bool assign_module_exports(tx *x, TSNode asg, const assigned *v, const ts_scope *sc,
                                  int depth)
{
    ts_scope plain = unexported(sc);
    uint32_t nested = sc->in_function ? GRAPH_SF_NESTED : 0;
    if (v->fn || v->cl) {
        const char *nm = graph__ts_own_name(x, v->r);
        if (v->fn) {
            x->cjs_default = make_fn(x, v->r, asg, GRAPH_SYM_FUNCTION, nm, NULL, sc->sym,
                                     GRAPH_SF_EXPORTED | nested, assigned_cls(v, nm, sc), depth);
        } else {
            ts_scope es = plain;
            es.exported = true;
            es.container = NULL;
            x->cjs_default = do_class(x, v->r, asg, nm, &es, depth + 1);
        }
        graph__ts_add_export(x, GX_EXP_NAME, "default", nm, NULL, asg);
        return true;
    }
    if (!is_null(v->obj)) {
        do_object(x, v->obj, &plain, NULL, NULL, sc->sym, -1, O_EXPORTS, depth + 1);
        return true;
    }
    const char *m = graph__ts_require_of(x, v->r);
    if (m) {
        graph__ts_add_export(x, GX_EXP_STAR, "*", NULL, m, asg);
        value_ref(x, v->right, &plain, depth + 1);
        return true;
    }
    const char *lp = graph__ts_path_of(x, v->r, 0);
    if (lp) {
        graph__ts_add_export(x, GX_EXP_NAME, "default", lp, NULL, asg);
        value_ref(x, v->right, &plain, depth + 1);
        return true;
    }
    return false;
}

/* `exports.name = ...`, `module.exports.name = ...`. */
static bool assign_export(tx *x, TSNode asg, const char *ename, const assigned *v,
                          const ts_scope *sc, int depth)
{
    ts_scope plain = unexported(sc);
    uint32_t nested = sc->in_function ? GRAPH_SF_NESTED : 0;
    if (v->fn) {
        make_fn(x, v->r, asg, GRAPH_SYM_FUNCTION, ename, NULL, sc->sym,
                GRAPH_SF_EXPORTED | GRAPH_SF_BOUND | nested, assigned_cls(v, ename, sc), depth);
        graph__ts_add_export(x, GX_EXP_NAME, ename, ename, NULL, asg);
        return true;
    }
    if (v->cl) {
        ts_scope es = plain;
        es.exported = true;
        es.container = NULL;
        do_class(x, v->r, asg, ename, &es, depth + 1);
        graph__ts_add_export(x, GX_EXP_NAME, ename, ename, NULL, asg);
        return true;
    }
    const char *m = graph__ts_require_of(x, v->r);
    if (m) {
        graph__ts_add_export(x, GX_EXP_NS, ename, NULL, m, asg);
    } else if (v->rt == N_MEMBER_EXPRESSION &&
               (m = graph__ts_require_of(x, unwrap(x, fld(x, v->r, F_OBJECT))))) {
        graph__ts_add_export(x, GX_EXP_FROM, ename, name_text(x, fld(x, v->r, F_PROPERTY)), m, asg);
    } else if (!is_null(v->obj)) {
        do_object(x, v->obj, &plain, ename, module_level(sc) ? ename : NULL, sc->sym, -1,
                  O_SENTENCES, depth + 1);
        graph__ts_add_export(x, GX_EXP_NAME, ename, NULL, NULL, asg);
        return true;
    } else {
        graph__ts_add_export(x, GX_EXP_NAME, ename, graph__ts_path_of(x, v->r, 0), NULL, asg);
    }
    value_ref(x, v->right, &plain, depth + 1);
    return true;
}

/* `this.m = function`: p is "@self.m". */
static bool assign_this(tx *x, TSNode asg, const char *p, const assigned *v, const ts_scope *sc,
                        int depth)
{
    if (!v->fn)
        return false;
    if (strchr(p + 6, '.') || sc->cls < 0) {
        /* this.data.set = () => {} (patching an object): a function of
         * the enclosing symbol, with "data" as its container. */
        const char *last = gx_last_component(p);
        const char *cont =
            last > p + 7 ? core_arena_strndup(&x->f->arena, p + 6, (size_t)(last - p - 7)) : NULL;
        uint32_t nested = sc->in_function ? GRAPH_SF_NESTED : 0;
        make_fn(x, v->r, asg, GRAPH_SYM_FUNCTION, last, cont, sc->sym, GRAPH_SF_BOUND | nested,
                v->rt == N_ARROW_FUNCTION ? sc->cls : -1, depth);
        return true;
    }
    /* this.m = function () {} in a constructor: a method of the class */
    make_fn(x, v->r, asg, GRAPH_SYM_METHOD, p + 6, NULL, sc->cls, GRAPH_SF_BOUND, sc->cls, depth);
    return true;
}

/* `X.prototype = {...}`, `X.prototype.m = function`, `X.m = function`,
 * `a.b.C = class`. */
static bool assign_member(tx *x, TSNode asg, const char *p, const assigned *v, const ts_scope *sc,
                          int depth)
{
    ts_scope plain = unexported(sc);
    uint32_t nested = sc->in_function ? GRAPH_SF_NESTED : 0;
    /* X.prototype = {...} */
    size_t pl = strlen(p);
    if (pl > 10 && strcmp(p + pl - 10, ".prototype") == 0 && !is_null(v->obj)) {
        char *head = core_arena_strndup(&x->f->arena, p, pl - 10);
        int32_t owner = graph__ts_proto_owner(x, head, sc);
        if (owner >= 0)
            do_object(x, v->obj, &plain, NULL, NULL, owner, owner, 0, depth + 1);
        else
            do_object(x, v->obj, &plain, head, NULL, sc->sym, -1, 0, depth + 1);
        return true;
    }
    if (!v->fn && !v->cl)
        return false;
    const char *last = gx_last_component(p);
    if (last == p)
        return false;
    char *head = core_arena_strndup(&x->f->arena, p, (size_t)(last - p - 1));
    size_t hl = strlen(head);
    if (v->fn && hl > 10 && strcmp(head + hl - 10, ".prototype") == 0) {
        /* X.prototype.m = function () {} */
        char *cname = core_arena_strndup(&x->f->arena, head, hl - 10);
        int32_t owner = graph__ts_proto_owner(x, cname, sc);
        if (owner >= 0)
            make_fn(x, v->r, asg, GRAPH_SYM_METHOD, last, NULL, owner, GRAPH_SF_BOUND, owner,
                    depth);
        else
            make_fn(x, v->r, asg, GRAPH_SYM_METHOD, last, cname, sc->sym, GRAPH_SF_BOUND | nested,
                    -1, depth);
        return true;
    }
    int32_t owner = strchr(head, '.') ? -1 : graph__ts_find_fn(x, head, sc);
    if (v->fn) {
        if (owner >= 0)
            make_fn(x, v->r, asg, GRAPH_SYM_METHOD, last, NULL, owner,
                    GRAPH_SF_STATIC | GRAPH_SF_BOUND, -1, depth);
        else
            make_fn(x, v->r, asg, GRAPH_SYM_FUNCTION, last, head, sc->sym, GRAPH_SF_BOUND | nested,
                    assigned_cls(v, last, sc), depth);
        return true;
    }
    ts_scope in = plain;
    in.container = head;
    do_class(x, v->r, asg, last, &in, depth + 1);
    return true;
}

/* `module.exports = ...`, `exports.x = ...`, `X.prototype.m = function`,
 * `X.m = function`, `this.m = function`: symbols and exports. True when
 * the assignment was handled (right side walked). */
static NOINLINE bool assign_symbol(tx *x, TSNode asg, const char *p, TSNode right,
                                   const ts_scope *sc, int depth)
{
    assigned v = {.right = right, .r = unwrap(x, right)};
    v.rt = ty(x, v.r);
    v.fn = is_fn(v.rt);
    v.cl = v.rt == N_CLASS;
    v.obj = graph__ts_object_value(x, v.r);
    if (strcmp(p, "module.exports") == 0)
        return assign_module_exports(x, asg, &v, sc, depth);
    const char *ename = graph__ts_exports_name(p);
    if (ename)
        return assign_export(x, asg, ename, &v, sc, depth);
    if (strncmp(p, "@self.", 6) == 0)
        return assign_this(x, asg, p, &v, sc, depth);
    if (p[0] == '@')
        return false;
    return assign_member(x, asg, p, &v, sc, depth);
}

/* The right side of an assignment: an object literal's methods get the
 * assigned name as their container. */
static void assign_value(tx *x, TSNode right, const char *container, const ts_scope *sc, int depth)
{
    TSNode obj = graph__ts_object_value(x, right);
    if (!is_null(obj) && container)
        do_object(x, obj, sc, join(x, sc->container, container), NULL, sc->sym, -1, 0, depth);
    else
        value_ref(x, right, sc, depth);
}

static NOINLINE void do_assign(tx *x, TSNode n, const ts_scope *sc, int depth)
{
    TSNode left = fld(x, n, F_LEFT), right = fld(x, n, F_RIGHT);
    TSNode l = unwrap(x, left);
    unsigned lt = ty(x, l);
    if (lt == N_IDENTIFIER) {
        const char *nm = name_text(x, l);
        if (nm && !graph__ts_require_decl(x, l, right, sc, depth + 1)) {
            graph__ts_note_logger(x, nm, right, depth + 1);
            graph__ts_bind_value(x, nm, right, sc->sym, l);
            assign_value(x, right, nm, sc, depth + 1);
        }
        return;
    }
    if (lt == N_MEMBER_EXPRESSION) {
        const char *p = graph__ts_path_of(x, l, 0);
        if (p) {
            add_ref(x, GX_REF_WRITE, p, sc->sym, l);
            if (!is_null(right) && assign_symbol(x, n, p, right, sc, depth))
                return;
            /* Foo.MESSAGE = '...' at the top of a module: how compilers
             * write a class's static field (and how older code keeps
             * formats); a constant, as `static MESSAGE = '...'` is. */
            if (module_level(sc) && p[0] != '@' && !is_null(right) &&
                graph__ts_stringish(x, unwrap(x, right), 0))
                graph__ts_add_const(x, p, right, -1, depth + 1);
            if (strncmp(p, "@self.", 6) == 0 && !strchr(p + 6, '.') && sc->cls >= 0 &&
                !is_null(right)) {
                graph__ts_note_logger(x, p, right, depth + 1);
                /* (Its value is read where it is written: a method's
                 * parameter, `this.conn = new connection(config)`.) */
                graph__ts_bind_value(x, p, right, sc->sym >= 0 ? sc->sym : sc->cls, l);
            }
        } else {
            walk(x, l, sc, depth + 1);
        }
        /* this.handlers = {...}: "handlers"; a.b = {...}: "a.b" */
        assign_value(x, right, p && p[0] == '@' ? gx_last_component(p) : p, sc, depth + 1);
        return;
    }
    if (lt != N_OBJECT_PATTERN && lt != N_ARRAY_PATTERN)
        walk(x, left, sc, depth + 1);
    value_ref(x, right, sc, depth + 1);
}

/* ---- calls ---- */

static NOINLINE void do_call(tx *x, TSNode n, const ts_scope *sc, int depth)
{
    TSNode fn = fld(x, n, F_FUNCTION), args = fld(x, n, F_ARGUMENTS);
    if (is_null(fn)) {
        walk_children(x, n, sc, depth);
        return;
    }
    const char *m = graph__ts_require_of(x, n);
    if (m) {
        graph__ts_add_import(x, GX_IMP_MODULE, m, NULL, NULL, sc, n);
        return;
    }
    unsigned ft = ty(x, fn);
    const char *path = graph__ts_call(x, n, fn, sc, depth);
    if (!sc->in_function)
        graph__ts_cjs_reexport(x, n, path, depth + 1);
    /* p.catch(...): the promise's failure is handled here. */
    if (ft == N_MEMBER_EXPRESSION && sc->sym >= 0 && text_eq(x, fld(x, fn, F_PROPERTY), "catch"))
        x->f->syms.v[sc->sym].flags |= GRAPH_SF_CATCHES;
    if (ft == N_IDENTIFIER && sc->sym >= 0 && graph__ts_param_named(x, sc, fn))
        x->f->syms.v[sc->sym].flags |= GRAPH_SF_RUNS_HANDED;

    /* The receiver, when it is more than a name chain. */
    if (!path && ft != N_SUPER && ft != N_IMPORT) {
        if (ft == N_MEMBER_EXPRESSION)
            walk(x, fld(x, fn, F_OBJECT), sc, depth + 1);
        else
            walk(x, fn, sc, depth + 1);
    }
    TSNode targs = fld(x, n, F_TYPE_ARGUMENTS);
    if (!is_null(targs))
        walk(x, targs, sc, depth + 1);
    if (is_null(args))
        return;
    if (ty(x, args) != N_ARGUMENTS) {
        walk(x, args, sc, depth + 1); /* tagged template */
        return;
    }
    walk_values(x, args, sc, depth);
}

/* Whether nodes a and b have the same text. */
static bool same_text(tx *x, TSNode a, TSNode b)
{
    uint32_t a0 = ts_node_start_byte(a), a1 = ts_node_end_byte(a);
    uint32_t b0 = ts_node_start_byte(b), b1 = ts_node_end_byte(b);
    return a1 - a0 == b1 - b0 && memcmp(x->src + a0, x->src + b0, a1 - a0) == 0;
}

/* Whether call (callee fn) rejects a promise: `Promise.reject(...)`, or
 * a call of the second parameter of the executor function handed to
 * `new Promise(...)` (the one in scope by that name): the language's
 * throw for a promise, which whoever awaits it catches. */
static bool rejects(tx *x, TSNode call, TSNode fn)
{
    if (ty(x, fn) == N_MEMBER_EXPRESSION)
        return text_eq(x, fn, "Promise.reject");
    if (ty(x, fn) != N_IDENTIFIER)
        return false;
    for (TSNode f = ts_node_parent(call); !is_null(f); f = ts_node_parent(f)) {
        unsigned t = ty(x, f);
        if (!is_fn(t) && t != N_FUNCTION_DECLARATION && t != N_METHOD_DEFINITION)
            continue;
        TSNode ps = fld(x, f, F_PARAMETERS);
        uint32_t np = is_null(ps) ? 0 : ts_node_named_child_count(ps), at = np;
        for (uint32_t i = 0; i < np && at == np; i++) {
            TSNode q = ts_node_named_child(ps, i), id = fld(x, q, F_PATTERN);
            if (same_text(x, is_null(id) ? q : id, fn))
                at = i;
        }
        if (at == np)
            continue; /* not a parameter here: an outer function's */
        TSNode args = ts_node_parent(f), made = ts_node_parent(args);
        return at == 1 && !is_null(made) && ty(x, args) == N_ARGUMENTS &&
               ts_node_eq(ts_node_named_child(args, 0), f) && ty(x, made) == N_NEW_EXPRESSION &&
               text_eq(x, fld(x, made, F_CONSTRUCTOR), "Promise");
    }
    return false;
}

/* What becomes of the object new-expression n makes, as far as the
 * expression it is made in shows: GRAPH_EF_THROWN (a promise rejected
 * with it too), GRAPH_EF_HANDED (an argument of another call), or 0.
 * Parentheses, await, casts, `??`, `||` and the branches of `?:` pass it
 * on (`handler(result.error ?? new Error(...))`). */
static uint32_t made_for(tx *x, TSNode n)
{
    TSNode c = n;
    for (int up = 0; up < 16; up++) {
        TSNode p = ts_node_parent(c);
        if (is_null(p))
            return 0;
        unsigned t = ty(x, p);
        if (t == N_THROW_STATEMENT)
            return GRAPH_EF_THROWN;
        if (t == N_ARGUMENTS) {
            TSNode call = ts_node_parent(p);
            if (is_null(call) || ty(x, call) != N_CALL_EXPRESSION)
                return 0;
            TSNode fn = fld(x, call, F_FUNCTION);
            return !is_null(fn) && rejects(x, call, fn) ? GRAPH_EF_THROWN : GRAPH_EF_HANDED;
        }
        bool passes = t == N_PARENTHESIZED_EXPRESSION || t == N_AWAIT_EXPRESSION ||
                      t == N_AS_EXPRESSION || t == N_NON_NULL_EXPRESSION;
        if (t == N_TERNARY_EXPRESSION)
            passes =
                ts_node_eq(c, fld(x, p, F_CONSEQUENCE)) || ts_node_eq(c, fld(x, p, F_ALTERNATIVE));
        if (t == N_BINARY_EXPRESSION) {
            unsigned op = ty(x, fld(x, p, F_OPERATOR));
            passes = op == A_NULLISH || op == A_OR;
        }
        if (!passes)
            return 0;
        c = p;
    }
    return 0;
}

static NOINLINE void do_new(tx *x, TSNode n, const ts_scope *sc, int depth)
{
    TSNode ctor = fld(x, n, F_CONSTRUCTOR), args = fld(x, n, F_ARGUMENTS),
           targs = fld(x, n, F_TYPE_ARGUMENTS);
    const char *p = graph__ts_path_of(x, ctor, 0);
    if (p) {
        add_ref(x, GX_REF_NEW, p, sc->sym, n);
        graph__ts_record_passes(x, args, p, sc, depth + 1);
        emit_plan pl;
        if (!is_null(args) && ty(x, args) == N_ARGUMENTS &&
            graph__ts_plan_candidate(x, n, p, &pl, sc, depth + 1)) {
            pl.flags |= GRAPH_EF_CTOR | made_for(x, n);
            graph__ts_make_emit(x, n, &pl, sc, depth + 1);
        }
    } else if (!is_null(ctor))
        walk(x, ctor, sc, depth + 1);
    if (!is_null(targs))
        walk(x, targs, sc, depth + 1);
    walk_values(x, args, sc, depth);
}

/* ---- JSX ---- */

static NOINLINE void jsx_tag(tx *x, TSNode tag, const ts_scope *sc, int depth)
{
    TSNode name = fld(x, tag, F_NAME);
    if (ty(x, name) == N_IDENTIFIER) {
        uint32_t a = ts_node_start_byte(name);
        if (!empty_node(name) && x->src[a] >= 'A' && x->src[a] <= 'Z')
            add_ref(x, GX_REF_JSX, text(x, name), sc->sym, name);
    } else if (ty(x, name) == N_MEMBER_EXPRESSION) {
        add_ref(x, GX_REF_JSX, graph__ts_path_of(x, name, 0), sc->sym, name);
    }
    TSTreeCursor *c = kids(x, depth, tag);
    if (!c)
        return;
    do {
        TSNode ch = ts_tree_cursor_current_node(c);
        unsigned t = ty(x, ch);
        if (t == N_JSX_ATTRIBUTE) {
            TSTreeCursor *c2 = kids(x, depth + 1, ch);
            if (!c2)
                continue;
            do {
                TSNode v = ts_tree_cursor_current_node(c2);
                unsigned vt = ty(x, v);
                if (vt == N_JSX_EXPRESSION || vt == N_JSX_ELEMENT ||
                    vt == N_JSX_SELF_CLOSING_ELEMENT)
                    walk(x, v, sc, depth + 2);
            } while (ts_tree_cursor_goto_next_sibling(c2));
        } else if (t == N_JSX_EXPRESSION || t == N_TYPE_ARGUMENTS) {
            walk(x, ch, sc, depth + 1);
        }
    } while (ts_tree_cursor_goto_next_sibling(c));
}

/* ---- the walk ---- */

static void value_ref(tx *x, TSNode v, const ts_scope *sc, int depth)
{
    if (is_null(v))
        return;
    if (ty(x, v) == N_IDENTIFIER) {
        add_ref(x, GX_REF_READ, name_text(x, v), sc->sym, v);
        return;
    }
    walk(x, v, sc, depth);
}

/* Whether the statements of a function's body (not those of the
 * functions inside it) return a value. */
static bool returns_value(tx *x, TSNode n, int depth)
{
    if (depth > 32)
        return false;
    uint32_t k = ts_node_named_child_count(n);
    for (uint32_t i = 0; i < k; i++) {
        TSNode c = ts_node_named_child(n, i);
        unsigned t = ty(x, c);
        if (t == N_RETURN_STATEMENT && ts_node_named_child_count(c) > 0)
            return true;
        if (!is_fn(t) && t != N_CLASS && t != N_CLASS_DECLARATION && t != N_METHOD_DEFINITION &&
            t != N_FUNCTION_DECLARATION && t != N_GENERATOR_FUNCTION_DECLARATION &&
            returns_value(x, c, depth + 1))
            return true;
    }
    return false;
}

/* What a function returns. A function it returns runs after it has
 * returned, when its own caller calls it. One that only logs is a logger
 * made to order (`makeLog('db')` gives `msg => console.log(`[db] ...`)`):
 * its text is the maker's callers' too. One that does work and returns
 * what it made (a decorator's wrapper) logs for itself: the parameters
 * it reads are no longer passed on by a call of the function at hand,
 * so a logging call in it does not make that function a wrapper whose
 * callers' arguments are the message (`deprecated(note)` warns `${name}
 * is deprecated: ${note}` each time the method it decorates is called,
 * not where it decorates it). */
static void value_later(tx *x, TSNode v, const ts_scope *sc, int depth)
{
    TSNode f = is_null(v) ? v : unwrap(x, v);
    TSNode body = is_null(f) || !is_fn(ty(x, f)) ? (TSNode){0} : fld(x, f, F_BODY);
    if (sc->nparams && ty(x, body) == N_STATEMENT_BLOCK && returns_value(x, body, 0)) {
        ts_scope later = *sc;
        later.params = NULL;
        later.nparams = 0;
        value_ref(x, v, &later, depth);
        return;
    }
    value_ref(x, v, sc, depth);
}

static void walk_children(tx *x, TSNode n, const ts_scope *sc, int depth)
{
    TSTreeCursor *c = kids(x, depth, n);
    if (!c)
        return;
    do {
        TSNode ch = ts_tree_cursor_current_node(c);
        if (ts_node_is_named(ch))
            walk(x, ch, sc, depth + 1);
    } while (ts_tree_cursor_goto_next_sibling(c));
}

/* Children as values: identifiers among them are READ references. */
static void walk_values(tx *x, TSNode n, const ts_scope *sc, int depth)
{
    TSTreeCursor *c = kids(x, depth, n);
    if (!c)
        return;
    do {
        TSNode ch = ts_tree_cursor_current_node(c);
        if (ts_node_is_named(ch))
            value_ref(x, ch, sc, depth + 1);
    } while (ts_tree_cursor_goto_next_sibling(c));
}

/* `a.b += 1` */
static NOINLINE void walk_augmented(tx *x, TSNode n, const ts_scope *sc, int depth)
{
    TSNode left = unwrap(x, fld(x, n, F_LEFT));
    if (ty(x, left) == N_MEMBER_EXPRESSION) {
        const char *p = graph__ts_path_of(x, left, 0);
        if (p)
            add_ref(x, GX_REF_WRITE, p, sc->sym, left);
        else
            walk(x, left, sc, depth + 1);
    } else if (ty(x, left) != N_IDENTIFIER) {
        walk(x, left, sc, depth + 1);
    }
    value_ref(x, fld(x, n, F_RIGHT), sc, depth + 1);
}

/* A member chain as a value: READ; otherwise its object is walked. */
static NOINLINE void walk_member(tx *x, TSNode n, const ts_scope *sc, int depth)
{
    const char *p = graph__ts_path_of(x, n, 0);
    if (p) {
        add_ref(x, GX_REF_READ, p, sc->sym, n);
        return;
    }
    TSNode obj = fld(x, n, F_OBJECT);
    if (!is_null(obj))
        walk(x, obj, sc, depth + 1);
}

static NOINLINE void walk_jsx_element(tx *x, TSNode n, const ts_scope *sc, int depth)
{
    TSTreeCursor *c = kids(x, depth, n);
    if (!c)
        return;
    do {
        TSNode ch = ts_tree_cursor_current_node(c);
        unsigned t = ty(x, ch);
        if (t == N_JSX_OPENING_ELEMENT)
            jsx_tag(x, ch, sc, depth + 1);
        else if (t == N_JSX_ELEMENT || t == N_JSX_SELF_CLOSING_ELEMENT || t == N_JSX_EXPRESSION)
            walk(x, ch, sc, depth + 1);
    } while (ts_tree_cursor_goto_next_sibling(c));
}

/* Type nodes that declare names: <T extends Base = Default>, { [K in keyof
 * T]: ... }, and signatures with type parameters. */
static NOINLINE void walk_type_decl(tx *x, TSNode n, const ts_scope *sc, int depth)
{
    switch (ty(x, n)) {
    case N_TYPE_PARAMETER: {
        /* T itself is not a reference. */
        TSNode cons = fld(x, n, F_CONSTRAINT), dflt = fld(x, n, F_VALUE);
        if (!is_null(cons))
            walk(x, cons, sc, depth + 1);
        if (!is_null(dflt))
            walk(x, dflt, sc, depth + 1);
        return;
    }
    case N_MAPPED_TYPE_CLAUSE: {
        TSNode t = fld(x, n, F_TYPE), al = fld(x, n, F_ALIAS);
        if (!is_null(t))
            walk(x, t, sc, depth + 1);
        if (!is_null(al))
            walk(x, al, sc, depth + 1);
        return;
    }
    case N_TYPE_QUERY: {
        /* typeof x: a value */
        TSNode e = ts_node_named_child(n, 0);
        const char *p = graph__ts_path_of(x, e, 0);
        if (p)
            add_ref(x, GX_REF_READ, p, sc->sym, e);
        return;
    }
    case N_INDEX_SIGNATURE: {
        size_t saved = x->tparams.n;
        TSNode nm = gx_null();
        uint32_t nc = ts_node_named_child_count(n);
        for (uint32_t i = 0; i < nc && i < 4; i++) {
            TSNode ch = ts_node_named_child(n, i);
            if (ty(x, ch) == N_MAPPED_TYPE_CLAUSE)
                nm = fld(x, ch, F_NAME);
        }
        const char *s = name_text(x, nm);
        if (s)
            core_vec_push(&x->tparams, s);
        walk_children(x, n, sc, depth);
        x->tparams.n = saved;
        return;
    }
    default: {
        size_t saved = graph__ts_push_tparams(x, fld(x, n, F_TYPE_PARAMETERS), depth + 1);
        walk_children(x, n, sc, depth);
        x->tparams.n = saved;
        return;
    }
    }
}

/* for (const [k, v] of xs): the names are locals. */
static NOINLINE void walk_for_in(tx *x, TSNode n, const ts_scope *sc, int depth)
{
    TSNode left = fld(x, n, F_LEFT), right = fld(x, n, F_RIGHT), body = fld(x, n, F_BODY);
    unsigned lt = ty(x, left);
    if (lt == N_IDENTIFIER || lt == N_OBJECT_PATTERN || lt == N_ARRAY_PATTERN)
        graph__ts_bind_pattern(x, left, sc->sym, depth + 1);
    else if (!is_null(left))
        walk(x, left, sc, depth + 1);
    value_ref(x, right, sc, depth + 1);
    if (!is_null(body))
        walk(x, body, sc, depth + 1);
}

/* A string literal's word, quotes off (see gx_lit), held by function
 * sym. */
static void value_word(tx *x, TSNode str, int32_t sym)
{
    uint32_t a = ts_node_start_byte(str) + 1, b = ts_node_end_byte(str);
    if (b > a && graph_value_literal(x->src + a, b - 1 - a))
        core_vec_push(
            &x->f->lits,
            ((gx_lit){core_arena_strndup(&x->f->arena, x->src + a, b - 1 - a), sym, NULL}));
}

/* The words a function returns as literals: `return 'epoll'`, `return
 * ['http', 'ws']` (a mode's or a backend's names). */
static void returned_words(tx *x, TSNode v, int32_t sym)
{
    if (ty(x, v) == N_STRING) {
        value_word(x, v, sym);
        return;
    }
    if (ty(x, v) != N_ARRAY)
        return;
    uint32_t k = ts_node_named_child_count(v);
    for (uint32_t i = 0; i < k; i++) {
        TSNode e = ts_node_named_child(v, i);
        if (ty(x, e) == N_STRING)
            value_word(x, e, sym);
    }
}

static void walk(tx *x, TSNode n, const ts_scope *sc, int depth)
{
    if (depth > GX_MAX_DEPTH) {
        x->f->too_deep++;
        return;
    }
    switch (ty(x, n)) {
    case N_COMMENT:
        graph__ts_note_comment(x, n);
        return;
    case N_FUNCTION_DECLARATION:
    case N_GENERATOR_FUNCTION_DECLARATION:
    case N_CLASS_DECLARATION:
    case N_ABSTRACT_CLASS_DECLARATION:
    case N_INTERFACE_DECLARATION:
    case N_ENUM_DECLARATION:
    case N_TYPE_ALIAS_DECLARATION:
    case N_LEXICAL_DECLARATION:
    case N_VARIABLE_DECLARATION:
    case N_INTERNAL_MODULE:
    case N_MODULE:
    case N_AMBIENT_DECLARATION:
        walk_declaration(x, n, n, NULL, sc, depth);
        return;
    case N_CLASS:
        do_class(x, n, n, NULL, sc, depth);
        return;
    case N_EXPORT_STATEMENT:
        do_export(x, n, sc, depth);
        return;
    case N_IMPORT_STATEMENT:
        graph__ts_do_import(x, n, sc, depth);
        return;
    case N_CALL_EXPRESSION:
        do_call(x, n, sc, depth);
        return;
    case N_NEW_EXPRESSION:
        do_new(x, n, sc, depth);
        return;
    case N_CATCH_CLAUSE:
        if (sc->sym >= 0)
            x->f->syms.v[sc->sym].flags |= GRAPH_SF_CATCHES;
        walk_children(x, n, sc, depth);
        return;
    case N_ASSIGNMENT_EXPRESSION:
        do_assign(x, n, sc, depth);
        return;
    case N_AUGMENTED_ASSIGNMENT_EXPRESSION:
        walk_augmented(x, n, sc, depth);
        return;
    case N_MEMBER_EXPRESSION:
        walk_member(x, n, sc, depth);
        return;
    case N_ARROW_FUNCTION:
    case N_FUNCTION_EXPRESSION:
    case N_GENERATOR_FUNCTION:
        walk_callback(x, n, sc, depth);
        return;
    case N_OBJECT:
        do_object(x, n, sc, NULL, NULL, sc->sym, -1, 0, depth);
        return;
    case N_JSX_ELEMENT:
        walk_jsx_element(x, n, sc, depth);
        return;
    case N_JSX_SELF_CLOSING_ELEMENT:
        jsx_tag(x, n, sc, depth);
        return;
    case N_RETURN_STATEMENT:
        if (sc->in_function && sc->sym >= 0 && ts_node_named_child_count(n) == 1) {
            graph__ts_add_returned(x, ts_node_named_child(n, 0), n, sc, depth);
            returned_words(x, ts_node_named_child(n, 0), sc->sym);
            returned_call(x, ts_node_named_child(n, 0), sc->sym);
        }
        if (ts_node_named_child_count(n) == 1)
            value_later(x, ts_node_named_child(n, 0), sc, depth);
        else
            walk_values(x, n, sc, depth);
        return;
    case N_JSX_EXPRESSION:
    case N_TEMPLATE_SUBSTITUTION:
    case N_SPREAD_ELEMENT:
        walk_values(x, n, sc, depth);
        return;
    case N_TYPE_IDENTIFIER:
        if (!graph__ts_is_tparam(x, n))
            add_ref(x, GX_REF_TYPE, name_text(x, n), sc->sym, n);
        return;
    case N_NESTED_TYPE_IDENTIFIER:
        add_ref(x, GX_REF_TYPE, graph__ts_type_path(x, n, 0), sc->sym, n);
        return;
    case N_TYPE_PARAMETER:
    case N_MAPPED_TYPE_CLAUSE:
    case N_TYPE_QUERY:
    case N_INDEX_SIGNATURE:
    case N_METHOD_SIGNATURE:
    case N_ABSTRACT_METHOD_SIGNATURE:
    case N_FUNCTION_SIGNATURE:
    case N_CALL_SIGNATURE:
    case N_CONSTRUCT_SIGNATURE:
    case N_FUNCTION_TYPE:
    case N_CONSTRUCTOR_TYPE:
        walk_type_decl(x, n, sc, depth);
        return;
    case N_FOR_IN_STATEMENT:
        walk_for_in(x, n, sc, depth);
        return;
    case N_DECORATOR:
        walk_decorator(x, n, sc, depth);
        return;
    case N_INFER_TYPE:
    case N_PREDEFINED_TYPE:
    case N_LITERAL_TYPE:
    case N_THIS_TYPE:
    case N_IDENTIFIER:
    case N_PROPERTY_IDENTIFIER:
    case N_PRIVATE_PROPERTY_IDENTIFIER:
    case N_SHORTHAND_PROPERTY_IDENTIFIER_PATTERN:
    case N_THIS:
    case N_SUPER:
    case N_STRING:
    case N_NUMBER:
    case N_REGEX:
    case N_HASH_BANG_LINE:
    case N_JSX_TEXT:
    case N_TRUE:
    case N_FALSE:
    case N_NULL:
    case N_UNDEFINED:
        return;
    default:
        walk_children(x, n, sc, depth);
        return;
    }
}

/* ---- the file ---- */

void graph__extract_ts(graph_lang lang, const char *src, size_t n, gx_file *f)
{
    TSParser *parser;
    TSTree *tree = graph__parse(lang, src, n, NULL, 0, &parser);
    TSNode root = ts_tree_root_node(tree);
    tx *x = core_xcalloc(1, sizeof *x);
    x->f = f;
    x->src = src;
    graph__ts_init(x, lang);
    x->cjs_default = -1;
    ts_scope sc = {.sym = -1, .cls = -1};
    graph__count_errors(root, f);
    graph__ts_prescan(x, root, &sc);
    f->doc = graph__ts_module_doc(x, root);
    x->doc = gx_null();
    walk_children(x, root, &sc, 0);
    graph__cand_finish(&x->cands, x->f);
    graph__ts_mark_exported(x);
    graph__ts_flow(lang, f, src, root);
    graph__cursors_free(&x->cur);
    graph__tmpl_free(&x->tmpl);
    core_buf_free(&x->scratch);
    core_vec_free(&x->loggers);
    core_smap_free(&x->fns);
    core_vec_free(&x->tparams);
    for (int i = 0; i < TS_LOCALS_KEPT; i++)
        core_vec_free(&x->locals[i].v);
    free(x);
    graph__parse_free(parser, tree);
}
