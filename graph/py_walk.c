/*
 * Python extraction: the walk over tree-sitter-python's syntax tree, and
 * the handlers of what holds more code to walk (definitions, calls,
 * assignments, decorators, parameters' defaults). They recurse into one
 * another, so they stay together; what they record is the business of
 * the other py_*.c files.
 */
#include "flow_int.h"
#include "py_int.h"

#include <stdlib.h>
#include <string.h>

static void walk(px *x, TSNode n, const py_scope *sc, int depth);

/* A value passed to a call or assigned: a name or attribute path is a
 * READ reference (callbacks, constants); anything else is walked. */
static void value_ref(px *x, TSNode v, const py_scope *sc, int depth)
{
    if (is_null(v))
        return;
    unsigned t = ty(v);
    if (t == N_IDENTIFIER) {
        add_ref(x, GX_REF_READ, graph__py_path_of(x, v, sc, 0), sc->sym, v);
        return;
    }
    walk(x, v, sc, depth);
}

/*
 * The callee a wrapper is looked for by, for a call that is no logging
 * call: `log.audit(...)` on a logger of logging's, by a method none of
 * logging's, is a method that a logger class of ours adds (one that
 * logging.setLoggerClass makes every logger an instance of). It is
 * looked for among the wrapper methods of that name, as a call on a
 * receiver of unknown type is ("?.audit").
 */
static const char *wrapper_callee(px *x, TSNode fn, const char *callee)
{
    /* (The receiver is the callee's path up to its method: no second
     * walk of the expression, and no logger looked for when the file
     * binds none.) */
    const char *m = callee && x->loggers.n ? strrchr(callee, '.') : NULL;
    char recv[256];
    size_t n = m ? (size_t)(m - callee) : 0;
    if (!m || n == 0 || n >= sizeof recv ||
        graph_level_of_method(m + 1, strlen(m + 1)) != GRAPH_LEVEL_NONE)
        return callee;
    memcpy(recv, callee, n);
    recv[n] = '\0';
    return graph__py_find_logger(x, recv) ? graph__py_unknown_member(x, fn) : callee;
}

static void do_call(px *x, TSNode n, const py_scope *sc, int depth)
{
    TSNode fn = fieldn(n, F_FUNCTION), args = fieldn(n, F_ARGUMENTS);
    if (is_null(fn))
        return;
    const char *path = graph__py_path_of(x, fn, sc, 0);
    const char *callee = path;
    if (!callee && ty(fn) == N_ATTRIBUTE)
        callee = graph__py_unknown_member(x, fn);
    if (callee && strcmp(callee, "@super") != 0)
        add_ref(x, GX_REF_CALL, callee, sc->sym, n);
    if (path)
        graph__py_record_passes(x, args, path, sc);
    graph__note_effect(x->f, sc->sym, x->src, n, fn);
    /* (Not `cls(...)`, nor a parameter a class's constructor took.) */
    const py_param *hp =
        sc->sym >= 0 && ty(fn) == N_IDENTIFIER ? graph__py_param_named(x, sc, fn) : NULL;
    if (hp && hp->pos >= 0 && !hp->field)
        x->f->syms.v[sc->sym].flags |= GRAPH_SF_RUNS_HANDED;

    emit_plan pl;
    if (graph__py_plan_emit(x, n, fn, path, &pl, sc)) {
        graph__py_make_emit(x, n, &pl, sc, depth);
        /* A method chosen at run time (`getattr(log, level)(msg)`) has no
         * path; the receiver's, for a wrapper's logging call. */
        if (!callee && pl.receiver && strcmp(pl.method, "?") == 0)
            callee = graph__path_join(x->f, pl.receiver, "?", 1);
        graph__py_record_call(x, n, callee, &pl, (int32_t)x->f->emits.n - 1, sc, depth);
        if (pl.kind == GRAPH_EMIT_SPAN && strcmp(pl.method, "start_as_current_span") == 0)
            graph__py_exception_event(x, n, &pl, sc);
    } else if (!graph__py_list_piece(x, n, fn, callee, sc, depth)) {
        if (graph__py_plan_candidate(x, n, callee, &pl, sc))
            graph__py_make_emit(x, n, &pl, sc, depth);
        else if (!is_null(args) && ts_node_named_child_count(args) > 0)
            graph__cand_pending(&x->cands, x->f, callee, sc->sym, gx_line(n));
        graph__py_record_call(x, n, wrapper_callee(x, fn, callee), NULL, -1, sc, depth);
    }

    /* isinstance(x, Cls) / isinstance(x, (A, B)) */
    if (path && (strcmp(path, "isinstance") == 0 || strcmp(path, "issubclass") == 0) &&
        !is_null(args)) {
        TSNode cls = unparen(ts_node_named_child(args, 1));
        if (!is_null(cls)) {
            if (ty(cls) == N_TUPLE) {
                uint32_t k = ts_node_named_child_count(cls);
                for (uint32_t i = 0; i < k; i++)
                    add_ref(x, GX_REF_TYPE,
                            graph__py_path_of(x, ts_node_named_child(cls, i), sc, 0), sc->sym, cls);
            } else {
                add_ref(x, GX_REF_TYPE, graph__py_path_of(x, cls, sc, 0), sc->sym, cls);
            }
        }
    }

    /* The receiver, when it is more than a name chain: f(x).g() walks f(x). */
    if (!path) {
        if (ty(fn) == N_ATTRIBUTE) {
            TSNode obj = fieldn(fn, F_OBJECT);
            if (!is_null(obj))
                walk(x, obj, sc, depth + 1);
        } else {
            walk(x, fn, sc, depth + 1);
        }
    }
    if (is_null(args))
        return;
    TSTreeCursor *c = gx_cursor(&x->cur, depth, args);
    if (ts_tree_cursor_goto_first_child(c)) {
        do {
            TSNode a = ts_tree_cursor_current_node(c);
            if (!ts_node_is_named(a))
                continue;
            if (ty(a) == N_KEYWORD_ARGUMENT)
                value_ref(x, fieldn(a, F_VALUE), sc, depth + 1);
            else
                value_ref(x, a, sc, depth + 1);
        } while (ts_tree_cursor_goto_next_sibling(c));
    }
}

static void do_assign(px *x, TSNode n, const py_scope *sc, int depth)
{
    TSNode left = fieldn(n, F_LEFT), right = fieldn(n, F_RIGHT), type = fieldn(n, F_TYPE);
    if (is_null(left))
        return;
    unsigned lt = ty(left);
    bool top = sc->sym < 0 || sc->in_class_body;
    if (!is_null(type))
        graph__py_type_refs(x, type, sc, depth + 1);
    if (lt == N_IDENTIFIER) {
        const char *name = text(x, left);
        if (!is_null(type)) {
            const char *cls = graph__py_annotation_class(x, type, sc, 0);
            if (sc->in_class_body && cls)
                add_bind(x, GX_BIND_TYPE, graph__path_join(x->f, "@self", name, strlen(name)), cls,
                         sc->sym, left);
            else if (cls)
                add_bind(x, GX_BIND_TYPE, name, cls, sc->sym, left);
        }
        if (!is_null(right)) {
            graph__py_bind_target(x, name, right, sc, sc->sym, left);
            if (sc->in_class_body) {
                /* Class attributes are reached as self.x / cls.x too. */
                const py_logger *lg = graph__py_find_logger(x, name);
                if (lg && !lg->is_alias) {
                    py_logger copy = *lg;
                    copy.key = graph__path_join(x->f, "@self", name, strlen(name));
                    core_vec_push(&x->loggers, copy);
                }
            }
            TSNode r = unparen(right);
            if (top && !graph__py_is_dunder(name)) {
                unsigned rt = ty(r);
                if (rt == N_STRING || rt == N_CONCATENATED_STRING ||
                    (rt == N_BINARY_OPERATOR && binop(r) == A_PLUS) ||
                    graph__py_dollar_template(x, r, sc))
                    graph__py_add_const(x, name, right, sc, depth);
                else if (rt == N_DICTIONARY) {
                    /* MESSAGES = {"key": "template", ...} */
                    uint32_t nc = ts_node_named_child_count(r);
                    for (uint32_t i = 0; i < nc && i < 4096; i++) {
                        TSNode pr = ts_node_named_child(r, i);
                        if (ty(pr) != N_PAIR)
                            continue;
                        TSNode k = fieldn(pr, F_KEY), v = unparen(fieldn(pr, F_VALUE));
                        const char *kv = is_null(k) ? NULL : graph__py_string_value(x, k);
                        if (!kv || is_null(v) || !is_stringish(ty(v)))
                            continue;
                        graph__py_add_const(x, graph__py_subscript_name(x, name, kv), v, sc, depth);
                    }
                }
            }
        }
    } else if (lt == N_ATTRIBUTE) {
        const char *p = graph__py_path_of(x, left, sc, 0);
        if (p) {
            add_ref(x, GX_REF_WRITE, p, sc->sym, left);
            /* Instance attributes: bound in this method's scope (its
             * parameters give the types); the resolver files them under
             * the class. */
            if (strncmp(p, "@self.", 6) == 0 && !strchr(p + 6, '.') && sc->cls >= 0) {
                if (!is_null(type)) {
                    const char *cls = graph__py_annotation_class(x, type, sc, 0);
                    if (cls)
                        add_bind(x, GX_BIND_TYPE, p, cls, sc->sym, left);
                }
                if (!is_null(right))
                    graph__py_bind_target(x, p, right, sc, sc->sym, left);
            }
        } else {
            walk(x, left, sc, depth + 1);
        }
    } else if (lt == N_PATTERN_LIST || lt == N_TUPLE_PATTERN || lt == N_LIST_PATTERN) {
        uint32_t nc = ts_node_named_child_count(left);
        for (uint32_t i = 0; i < nc; i++) {
            TSNode t = ts_node_named_child(left, i);
            if (ty(t) == N_IDENTIFIER)
                add_bind(x, GX_BIND_LOCAL, text(x, t), NULL, sc->sym, t);
            else if (ty(t) == N_ATTRIBUTE)
                add_ref(x, GX_REF_WRITE, graph__py_path_of(x, t, sc, 0), sc->sym, t);
        }
    } else {
        walk(x, left, sc, depth + 1);
    }
    if (!is_null(right)) {
        TSNode r = unparen(right);
        if (ty(r) == N_ASSIGNMENT)
            do_assign(x, r, sc, depth + 1);
        else if (ty(r) == N_IDENTIFIER || ty(r) == N_ATTRIBUTE)
            value_ref(x, r, sc, depth + 1);
        else
            walk(x, right, sc, depth + 1);
    }
    /* After the right side, which still sees the old value. */
    if (sc->in_function && !is_null(right)) {
        /* a = b = value: the value of the last one. */
        TSNode v = unparen(right);
        for (int i = 0; i < 64 && ty(v) == N_ASSIGNMENT && !is_null(fieldn(v, F_RIGHT)); i++)
            v = unparen(fieldn(v, F_RIGHT));
        if (lt == N_IDENTIFIER || graph__py_self_attr(x, left, sc))
            graph__py_local_assign(x, left, v, n);
        else if (lt == N_PATTERN_LIST || lt == N_TUPLE_PATTERN || lt == N_LIST_PATTERN)
            for (uint32_t i = 0, nc = ts_node_named_child_count(left); i < nc && i < 64; i++) {
                TSNode t = ts_node_named_child(left, i);
                if (ty(t) == N_IDENTIFIER || graph__py_self_attr(x, t, sc))
                    graph__py_add_local(x, t, LOC_OTHER, gx_null(), ts_node_start_byte(n),
                                        gx_null());
            }
    }
}

static void walk_decorators(px *x, const TSNode *decs, uint32_t ndecs, const py_scope *inner,
                            int depth)
{
    int saved = x->emit_flags;
    x->emit_flags |= GRAPH_EF_DECORATOR;
    for (uint32_t i = 0; i < ndecs; i++) {
        TSNode e = ts_node_named_child(decs[i], 0);
        if (is_null(e))
            continue;
        if (ty(e) == N_IDENTIFIER || ty(e) == N_ATTRIBUTE) {
            /* @decorator wraps the function: calling it runs the wrapper. */
            if (!graph__py_plain_decorator(graph__py_decorator_flags(x, decs[i])))
                add_ref(x, GX_REF_CALL, graph__py_path_of(x, e, inner, 0), inner->sym, e);
        } else {
            walk(x, e, inner, depth + 1);
        }
    }
    x->emit_flags = saved;
}

/* Parameters whose default is a logger's method (`logfun=logger.info`): a
 * logging function the caller may replace, so calls to them log, at the
 * level the caller chooses (graph__py_method_alias). Returns how many. */
static uint32_t logging_params(px *x, TSNode params, const py_scope *sc)
{
    uint32_t n = 0, nc = ts_node_named_child_count(params);
    for (uint32_t i = 0; i < nc && i < 256; i++) {
        TSNode p = ts_node_named_child(params, i);
        unsigned t = ty(p);
        if (t != N_DEFAULT_PARAMETER && t != N_TYPED_DEFAULT_PARAMETER)
            continue;
        TSNode name = fieldn(p, F_NAME);
        if (!is_null(name) && ty(name) == N_IDENTIFIER &&
            graph__py_method_alias(x, text(x, name), unparen(fieldn(p, F_VALUE)), sc, false))
            n++;
    }
    return n;
}

static void do_params(px *x, TSNode params, const py_scope *inner, int depth)
{
    TSTreeCursor *c = gx_cursor(&x->cur, depth, params);
    if (!ts_tree_cursor_goto_first_child(c))
        return;
    /* Collect first: walking default values reuses deeper cursors only,
     * but binding needs the outer scope's view of names. */
    uint32_t pos = 0; /* as a call passes it: after self/cls, before any * */
    do {
        TSNode p = ts_tree_cursor_current_node(c);
        unsigned t = ty(p);
        TSNode name, type = gx_null(), value = gx_null(); /* name: set unless we continue */
        if (t == N_LIST_SPLAT_PATTERN || t == N_KEYWORD_SEPARATOR ||
            t == N_DICTIONARY_SPLAT_PATTERN)
            pos = PASS_POS_MAX;
        if (t == N_IDENTIFIER) {
            name = p;
        } else if (t == N_TYPED_PARAMETER) {
            name = ts_node_named_child(p, 0);
            type = fieldn(p, F_TYPE);
        } else if (t == N_TYPED_DEFAULT_PARAMETER) {
            name = fieldn(p, F_NAME);
            type = fieldn(p, F_TYPE);
            value = fieldn(p, F_VALUE);
        } else if (t == N_DEFAULT_PARAMETER) {
            name = fieldn(p, F_NAME);
            value = fieldn(p, F_VALUE);
        } else {
            continue;
        }
        if (!is_null(name) &&
            (ty(name) == N_LIST_SPLAT_PATTERN || ty(name) == N_DICTIONARY_SPLAT_PATTERN))
            name = ts_node_named_child(name, 0);
        const char *nm = !is_null(name) && ty(name) == N_IDENTIFIER ? text(x, name) : NULL;
        bool is_self = nm && ((inner->self_name && strcmp(nm, inner->self_name) == 0) ||
                              (inner->cls_name && strcmp(nm, inner->cls_name) == 0));
        if (nm && !is_self && inner->sym >= 0)
            x->f->syms.v[inner->sym].takes_args = true;
        if (!is_null(type)) {
            graph__py_type_refs(x, type, inner, depth + 1);
            const char *cls = graph__py_annotation_class(x, type, inner, 0);
            if (nm && cls)
                add_bind(x, GX_BIND_TYPE, nm, cls, inner->sym, name);
            else if (nm)
                add_bind(x, GX_BIND_LOCAL, nm, NULL, inner->sym, name);
            if (nm && !cls && !is_self && pos < PASS_POS_MAX)
                x->f->binds.v[x->f->binds.n - 1].param = (uint16_t)(pos + 1);
        } else if (nm && !is_self) {
            add_bind(x, GX_BIND_LOCAL, nm, NULL, inner->sym, name);
            if (pos < PASS_POS_MAX)
                x->f->binds.v[x->f->binds.n - 1].param = (uint16_t)(pos + 1);
        }
        if (pos < PASS_POS_MAX && !is_self)
            pos++;
        if (!is_null(value))
            value_ref(x, value, inner, depth + 1);
    } while (ts_tree_cursor_goto_next_sibling(c));
}

static void do_def(px *x, TSNode n, TSNode outer, const TSNode *decs, uint32_t ndecs,
                   const py_scope *sc, int depth)
{
    TSNode name = fieldn(n, F_NAME), params = fieldn(n, F_PARAMETERS), body = fieldn(n, F_BODY);
    if (is_null(name))
        return;
    const char *nm = text(x, name);
    uint32_t flags = 0;
    for (uint32_t i = 0; i < ndecs; i++)
        flags |= graph__py_decorator_flags(x, decs[i]);
    TSNode first = ts_node_child(n, 0);
    if (!is_null(first) && ty(first) == A_ASYNC)
        flags |= GRAPH_SF_ASYNC;
    if (sc->in_function)
        flags |= GRAPH_SF_NESTED;
    bool method = sc->in_class_body;
    if (method && strcmp(nm, "__init__") == 0)
        flags |= GRAPH_SF_CTOR;
    if (nm[0] == '_' && !graph__py_is_dunder(nm))
        flags |= GRAPH_SF_PRIVATE;
    int32_t idx = graph__py_push_sym(x, method ? GRAPH_SYM_METHOD : GRAPH_SYM_FUNCTION, nm, sc->sym,
                                     gx_line(outer), graph__end_line(n), flags);
    x->f->syms.v[idx].doc = graph__py_body_docstring(x, body, depth + 1);

    py_scope inner = *sc;
    inner.sym = idx;
    inner.in_class_body = false;
    inner.in_function = true;
    inner.fn = n;
    if (method) {
        inner.cls = sc->sym;
        inner.self_name = NULL;
        inner.cls_name = NULL;
        const char *p0 = graph__py_first_param(x, params);
        if (p0 && !(flags & GRAPH_SF_STATIC)) {
            if (flags & GRAPH_SF_CLASSMETHOD)
                inner.cls_name = p0;
            else
                inner.self_name = p0;
        }
    }
    inner.params =
        graph__py_collect_params(x, params, method && !(flags & GRAPH_SF_STATIC), &inner.nparams);
    /* Its locals start empty and end with it: an outer function's are not
     * looked at, and its own do not leak out. */
    inner.locals_base = (uint32_t)x->locals.n;
    walk_decorators(x, decs, ndecs, &inner, depth);
    size_t handed = x->loggers.n;
    uint32_t nhanded = 0;
    if (!is_null(params)) {
        do_params(x, params, &inner, depth + 1);
        nhanded = logging_params(x, params, sc);
    }
    /* A logger class's method logs through its own instance: `self.info`,
     * `self.log(level, ...)` are logging calls. */
    if (method && sc->logger_cls && inner.self_name) {
        py_logger lg = {.key = "@self"};
        core_vec_push(&x->loggers, lg);
        nhanded++;
    }
    inner.logger_cls = method && sc->logger_cls;
    TSNode ret = fieldn(n, F_RETURN_TYPE);
    if (!is_null(ret)) {
        graph__py_type_refs(x, ret, &inner, depth + 1);
        x->f->syms.v[idx].ret = graph__py_annotation_class(x, ret, &inner, 0);
    }
    if (!is_null(body))
        walk(x, body, &inner, depth + 1);
    x->locals.n = inner.locals_base;
    /* The parameters' loggers are the function's alone; what its body
     * bound (a `self.logger` other methods log to) stays. */
    if (nhanded) {
        memmove(x->loggers.v + handed, x->loggers.v + handed + nhanded,
                (x->loggers.n - handed - nhanded) * sizeof *x->loggers.v);
        x->loggers.n -= nhanded;
    }
}

/* Whether a class body defines one of the methods a logging call goes
 * through (`log`, `info`, `_log`, an adapter's `process`...): such a
 * class has a logging path of its own, which its methods' calls of them
 * reach as calls of ours (resolve_wrappers.c), not logging's. */
static bool overrides_logging(px *x, TSNode body)
{
    static const char *const own[] = {"debug",     "info",       "warning", "warn", "error",
                                      "exception", "critical",   "fatal",   "log",  "_log",
                                      "process",   "makeRecord", "handle"};
    uint32_t nc = ts_node_named_child_count(body);
    for (uint32_t i = 0; i < nc; i++) {
        TSNode d = ts_node_named_child(body, i);
        if (ty(d) == N_DECORATED_DEFINITION)
            d = fieldn(d, F_DEFINITION);
        if (is_null(d) || ty(d) != N_FUNCTION_DEFINITION)
            continue;
        TSNode name = fieldn(d, F_NAME);
        for (size_t k = 0; !is_null(name) && k < sizeof own / sizeof own[0]; k++)
            if (text_eq(x, name, own[k]))
                return true;
    }
    return false;
}

static void do_class(px *x, TSNode n, TSNode outer, const TSNode *decs, uint32_t ndecs,
                     const py_scope *sc, int depth)
{
    TSNode name = fieldn(n, F_NAME), bases = fieldn(n, F_SUPERCLASSES), body = fieldn(n, F_BODY);
    if (is_null(name))
        return;
    const char *nm = text(x, name);
    uint32_t flags = sc->in_function ? GRAPH_SF_NESTED : 0;
    if (nm[0] == '_' && !graph__py_is_dunder(nm))
        flags |= GRAPH_SF_PRIVATE;
    int32_t idx = graph__py_push_sym(x, GRAPH_SYM_CLASS, nm, sc->sym, gx_line(outer),
                                     graph__end_line(n), flags);
    x->f->syms.v[idx].doc = graph__py_body_docstring(x, body, depth + 1);
    py_scope inner = *sc;
    inner.sym = idx;
    inner.cls = idx;
    inner.in_class_body = true;
    inner.in_function = false;
    inner.self_name = NULL;
    inner.cls_name = NULL;
    inner.params = NULL;
    inner.nparams = 0;
    inner.logger_cls = false;
    if (!is_null(bases)) {
        TSTreeCursor *c = gx_cursor(&x->cur, depth, bases);
        if (ts_tree_cursor_goto_first_child(c)) {
            do {
                TSNode b = ts_tree_cursor_current_node(c);
                if (!ts_node_is_named(b) || ty(b) == N_KEYWORD_ARGUMENT || ty(b) == N_COMMENT)
                    continue;
                TSNode bb = ty(b) == N_SUBSCRIPT ? fieldn(b, F_VALUE) : b;
                const char *p = is_null(bb) ? NULL : graph__py_path_of(x, bb, sc, 0);
                const char *cp = p ? graph__py_canon(x, p) : NULL;
                if (cp &&
                    (strcmp(cp, "logging.Logger") == 0 || strcmp(cp, "logging.LoggerAdapter") == 0))
                    inner.logger_cls = true;
                if (p)
                    add_ref(x, GX_REF_BASE, p, idx, b);
                else
                    walk(x, b, sc, depth + 1);
            } while (ts_tree_cursor_goto_next_sibling(c));
        }
    }
    if (inner.logger_cls && !is_null(body) && overrides_logging(x, body))
        inner.logger_cls = false;
    /* Class decorators run at definition; they belong to the class. */
    walk_decorators(x, decs, ndecs, &inner, depth);
    if (!is_null(body))
        walk(x, body, &inner, depth + 1);
}

static void do_decorated(px *x, TSNode n, const py_scope *sc, int depth)
{
    TSNode decs[32];
    uint32_t nd = 0;
    TSNode def = fieldn(n, F_DEFINITION);
    TSTreeCursor *c = gx_cursor(&x->cur, depth, n);
    if (ts_tree_cursor_goto_first_child(c)) {
        do {
            TSNode ch = ts_tree_cursor_current_node(c);
            if (ty(ch) == N_DECORATOR && nd < 32)
                decs[nd++] = ch;
        } while (ts_tree_cursor_goto_next_sibling(c));
    }
    if (is_null(def))
        return;
    if (ty(def) == N_FUNCTION_DEFINITION)
        do_def(x, def, n, decs, nd, sc, depth + 1);
    else if (ty(def) == N_CLASS_DEFINITION)
        do_class(x, def, n, decs, nd, sc, depth + 1);
}

/* ---- the walk ---- */

static void walk_children(px *x, TSNode n, const py_scope *sc, int depth)
{
    TSTreeCursor *c = gx_cursor(&x->cur, depth, n);
    if (!ts_tree_cursor_goto_first_child(c))
        return;
    do {
        TSNode ch = ts_tree_cursor_current_node(c);
        /* Leaves (names, numbers, punctuation) hold nothing to extract. */
        if (ts_node_child_count(ch) == 0)
            continue;
        walk(x, ch, sc, depth + 1);
    } while (ts_tree_cursor_goto_next_sibling(c));
}

/* `a.x += v`, `msg += "..."`. */
static void walk_augmented(px *x, TSNode n, const py_scope *sc, int depth)
{
    TSNode left = fieldn(n, F_LEFT), right = fieldn(n, F_RIGHT);
    if (!is_null(left) && ty(left) == N_ATTRIBUTE)
        add_ref(x, GX_REF_WRITE, graph__py_path_of(x, left, sc, 0), sc->sym, left);
    if (!is_null(right))
        walk(x, right, sc, depth + 1);
    if (sc->in_function && !is_null(left) &&
        (ty(left) == N_IDENTIFIER || graph__py_self_attr(x, left, sc))) {
        /* msg += "...": appended to what msg held; other operators
         * make something unknown. */
        TSNode op = fieldn(n, F_OPERATOR);
        bool plus = !is_null(op) && ty(op) == A_PLUS_EQ && !is_null(right);
        graph__py_add_local(x, left, plus ? LOC_AUG : LOC_OTHER, plus ? unparen(right) : gx_null(),
                            ts_node_start_byte(n), gx_null());
    }
}

/* Bindings note the arm of an if statement they are made in (see
 * graph__py_local_paths()); an elif's condition counts as in its arm. */
static void walk_if(px *x, TSNode n, const py_scope *sc, int depth)
{
    TSTreeCursor *c = gx_cursor(&x->cur, depth, n);
    if (!ts_tree_cursor_goto_first_child(c))
        return;
    uint32_t at = ts_node_start_byte(n), arm = 0;
    do {
        TSNode ch = ts_tree_cursor_current_node(c);
        if (ts_node_child_count(ch) == 0)
            continue;
        unsigned t = ty(ch);
        bool in_arm = t == N_BLOCK || t == N_ELIF_CLAUSE || t == N_ELSE_CLAUSE;
        if (in_arm) {
            if (x->nbr < LOCAL_MAX_NEST) {
                x->br_stmt[x->nbr] = at;
                x->br_arm[x->nbr] = (uint8_t)(arm < 255 ? arm : 255);
            }
            x->nbr++;
            arm++;
        }
        walk(x, ch, sc, depth + 1);
        if (in_arm)
            x->nbr--;
    } while (ts_tree_cursor_goto_next_sibling(c));
}

/* Bindings note the block they are made in (see graph__py_local_paths()). */
static void walk_block(px *x, TSNode n, const py_scope *sc, int depth)
{
    uint32_t bs = x->blk_start, be = x->blk_end;
    x->blk_start = ts_node_start_byte(n);
    x->blk_end = ts_node_end_byte(n);
    walk_children(x, n, sc, depth);
    x->blk_start = bs;
    x->blk_end = be;
}

static void walk_attribute(px *x, TSNode n, const py_scope *sc, int depth)
{
    const char *p = graph__py_path_of(x, n, sc, 0);
    if (p) {
        add_ref(x, GX_REF_READ, p, sc->sym, n);
        return;
    }
    TSNode obj = fieldn(n, F_OBJECT);
    if (!is_null(obj))
        walk(x, obj, sc, depth + 1);
}

/* Only f-string interpolations hold code. */
static void walk_string(px *x, TSNode n, const py_scope *sc, int depth)
{
    TSTreeCursor *c = gx_cursor(&x->cur, depth, n);
    if (ts_tree_cursor_goto_first_child(c)) {
        do {
            TSNode ch = ts_tree_cursor_current_node(c);
            if (ty(ch) == N_INTERPOLATION)
                walk_children(x, ch, sc, depth + 1);
        } while (ts_tree_cursor_goto_next_sibling(c));
    }
}

/* A plain string literal's content (no interpolation, no escapes) as
 * source bytes [*a, *b); false for any other string. */
static bool plain_content(TSNode str, uint32_t *a, uint32_t *b)
{
    uint32_t parts = ts_node_child_count(str);
    TSNode content = parts == 3 ? ts_node_child(str, 1) : gx_null();
    if (is_null(content) || ty(content) != N_STRING_CONTENT || ts_node_child_count(content) != 0)
        return false;
    *a = ts_node_start_byte(content);
    *b = ts_node_end_byte(content);
    return true;
}

/* A plain string literal's word (see gx_lit), held by function sym. */
static void value_word(px *x, TSNode str, int32_t sym)
{
    uint32_t a, b;
    if (plain_content(str, &a, &b) && graph_value_literal(x->src + a, b - a))
        core_vec_push(&x->f->lits,
                      ((gx_lit){core_arena_strndup(&x->f->arena, x->src + a, b - a), sym, NULL}));
}

/* A registry's entry, a word keying a class (`"sync":
 * "pkg.workers.sync.SyncWorker"`, `"sync": SyncWorker`): the word, with
 * what names the class for the resolver to find (gx_lit.target). A
 * configuration or a message that gives the word then says which class
 * runs. */
static void registry_word(px *x, TSNode pair, int32_t sym)
{
    TSNode key = fieldn(pair, F_KEY), val = fieldn(pair, F_VALUE);
    uint32_t a, b, va, vb;
    if (is_null(key) || is_null(val) || ty(key) != N_STRING || !plain_content(key, &a, &b) ||
        !graph_value_literal(x->src + a, b - a))
        return;
    char *target;
    if (ty(val) == N_STRING) {
        if (!plain_content(val, &va, &vb) || !graph__dotted_path(x->src + va, vb - va))
            return;
        target = core_arena_strndup(&x->f->arena, x->src + va, vb - va);
        for (char *p = target; *p; p++)
            if (*p == ':')
                *p = '.';
    } else if (ty(val) == N_IDENTIFIER || ty(val) == N_ATTRIBUTE) {
        va = ts_node_start_byte(val);
        vb = ts_node_end_byte(val);
        /* An attribute chain of names only: `workers.SyncWorker`, not `f().x`. */
        if (ty(val) == N_ATTRIBUTE && !graph__dotted_path(x->src + va, vb - va))
            return;
        target = core_arena_strndup(&x->f->arena, x->src + va, vb - va);
    } else {
        return;
    }
    core_vec_push(&x->f->lits,
                  ((gx_lit){core_arena_strndup(&x->f->arena, x->src + a, b - a), sym, target}));
}

/* The words a function returns as literals: `return 'epoll'`, `return
 * ['eventlet', 'threading']` (a mode's or a backend's names). */
static void returned_words(px *x, TSNode v, int32_t sym)
{
    unsigned t = ty(v);
    if (t == N_STRING) {
        value_word(x, v, sym);
        return;
    }
    if (t != N_LIST && t != N_TUPLE && t != N_EXPRESSION_LIST)
        return;
    uint32_t k = ts_node_named_child_count(v);
    for (uint32_t i = 0; i < k; i++) {
        TSNode e = ts_node_named_child(v, i);
        if (ty(e) == N_STRING)
            value_word(x, e, sym);
    }
}

/* with EXPR as NAME: NAME is what EXPR gives. */
static void walk_as(px *x, TSNode n, const py_scope *sc, int depth)
{
    TSNode value = ts_node_named_child(n, 0), target = fieldn(n, F_ALIAS);
    if (!is_null(target)) {
        TSNode id = ty(target) == N_AS_PATTERN_TARGET ? ts_node_named_child(target, 0) : target;
        if (!is_null(id) && ty(id) == N_IDENTIFIER && !is_null(value))
            graph__py_bind_target(x, text(x, id), value, sc, sc->sym, id);
        else
            graph__py_bind_targets(x, target, sc, 0);
    }
    if (!is_null(value))
        walk(x, value, sc, depth + 1);
}

static void walk(px *x, TSNode n, const py_scope *sc, int depth)
{
    if (depth > GX_MAX_DEPTH) {
        x->f->too_deep++;
        return;
    }
    switch (ty(n)) {
    case N_FUNCTION_DEFINITION:
        do_def(x, n, n, NULL, 0, sc, depth);
        return;
    case N_CLASS_DEFINITION:
        do_class(x, n, n, NULL, 0, sc, depth);
        return;
    case N_DECORATED_DEFINITION:
        do_decorated(x, n, sc, depth);
        return;
    case N_CALL:
        do_call(x, n, sc, depth);
        return;
    case N_ASSIGNMENT:
        do_assign(x, n, sc, depth);
        return;
    case N_AUGMENTED_ASSIGNMENT:
        walk_augmented(x, n, sc, depth);
        return;
    case N_IF_STATEMENT:
        walk_if(x, n, sc, depth);
        return;
    case N_BLOCK:
        walk_block(x, n, sc, depth);
        return;
    case N_ATTRIBUTE:
        walk_attribute(x, n, sc, depth);
        return;
    case N_IMPORT_STATEMENT:
    case N_IMPORT_FROM_STATEMENT:
        graph__py_do_import(x, n, sc, depth);
        return;
    case N_FUTURE_IMPORT_STATEMENT:
    case N_COMMENT:
    case N_IDENTIFIER:
    case N_INTEGER:
        return;
    case N_STRING:
        walk_string(x, n, sc, depth);
        return;
    case N_FOR_STATEMENT:
        graph__py_bind_targets(x, fieldn(n, F_LEFT), sc, 0);
        if (sc->in_function)
            graph__py_local_loop(x, n);
        walk_children(x, n, sc, depth);
        return;
    case N_FOR_IN_CLAUSE:
        graph__py_bind_targets(x, fieldn(n, F_LEFT), sc, 0);
        walk_children(x, n, sc, depth);
        return;
    case N_EXCEPT_CLAUSE: {
        if (sc->sym >= 0)
            x->f->syms.v[sc->sym].flags |= GRAPH_SF_CATCHES;
        TSNode alias = fieldn(n, F_ALIAS);
        if (!is_null(alias) && ty(alias) == N_IDENTIFIER)
            add_bind(x, GX_BIND_LOCAL, text(x, alias), NULL, sc->sym, alias);
        walk_children(x, n, sc, depth);
        return;
    }
    case N_AS_PATTERN:
        walk_as(x, n, sc, depth);
        return;
    case N_PAIR:
        registry_word(x, n, sc->sym);
        walk_children(x, n, sc, depth);
        return;
    case N_RETURN_STATEMENT:
        if (sc->in_function && ts_node_named_child_count(n) == 1) {
            graph__py_add_returned(x, ts_node_named_child(n, 0), sc, depth);
            if (sc->sym >= 0)
                returned_words(x, ts_node_named_child(n, 0), sc->sym);
        }
        walk_children(x, n, sc, depth);
        return;
    case N_NAMED_EXPRESSION: {
        TSNode name = fieldn(n, F_NAME), value = fieldn(n, F_VALUE);
        if (!is_null(name) && !is_null(value))
            graph__py_bind_target(x, text(x, name), value, sc, sc->sym, name);
        if (!is_null(value))
            walk(x, value, sc, depth + 1);
        return;
    }
    default:
        walk_children(x, n, sc, depth);
        return;
    }
}

void graph__extract_python(const char *src, size_t n, gx_file *f)
{
    graph__py_init();
    TSParser *parser;
    TSTree *tree;
    /* Large literal tables are not shown to the parser (py_data.c);
     * if that parse has errors, the whole text is parsed after all, so a
     * scan mistake costs time only. */
    uint32_t *starts = NULL, *ends = NULL;
    uint32_t nex = graph__py_data_ranges(src, n, &starts, &ends);
    if (nex) {
        TSRange *ranges = graph__included_ranges(src, n, starts, ends, nex);
        tree = graph__parse(GRAPH_LANG_PYTHON, src, n, ranges, nex + 1, &parser);
        free(ranges);
        if (ts_node_has_error(ts_tree_root_node(tree))) {
            graph__parse_free(parser, tree);
            tree = graph__parse(GRAPH_LANG_PYTHON, src, n, NULL, 0, &parser);
        }
    } else {
        tree = graph__parse(GRAPH_LANG_PYTHON, src, n, NULL, 0, &parser);
    }
    free(starts);
    free(ends);
    TSNode root = ts_tree_root_node(tree);
    px *x = core_xcalloc(1, sizeof *x);
    x->f = f;
    x->src = src;
    x->blk_end = UINT32_MAX;
    py_scope sc = {.sym = -1, .cls = -1};
    graph__count_errors(root, f);
    graph__py_prescan_bindings(x, root, &sc, 0);
    f->doc = graph__py_body_docstring(x, root, 0);
    walk_children(x, root, &sc, 0);
    graph__cand_finish(&x->cands, x->f);
    graph__py_flow(f, src, root);
    graph__cursors_free(&x->cur);
    graph__tmpl_free(&x->tmpl);
    core_vec_free(&x->loggers);
    core_vec_free(&x->aliases);
    core_vec_free(&x->locals);
    free(x);
    graph__parse_free(parser, tree);
}
