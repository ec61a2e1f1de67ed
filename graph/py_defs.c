/*
 * Python extraction: definitions and bindings. The symbols of functions,
 * methods and classes (flags, docstrings, parameters), what an assignment
 * binds a name to, and the loggers bound before the walk reaches their
 * uses.
 */
#include "py_int.h"

#include <stdio.h>
#include <string.h>

/* ---- definitions ---- */

/* The docstring a body opens with (normalised), or NULL. */
const char *graph__py_body_docstring(px *x, TSNode body, int depth)
{
    if (is_null(body))
        return NULL;
    TSNode first = gx_null();
    TSTreeCursor *c = gx_cursor(&x->cur, depth, body);
    if (ts_tree_cursor_goto_first_child(c)) {
        do {
            TSNode ch = ts_tree_cursor_current_node(c);
            if (ts_node_is_named(ch) && ty(ch) != N_COMMENT) {
                first = ch;
                break;
            }
        } while (ts_tree_cursor_goto_next_sibling(c));
    }
    if (is_null(first) || ty(first) != N_EXPRESSION_STATEMENT)
        return NULL;
    TSNode s = ts_node_named_child(first, 0);
    if (is_null(s) || ty(s) != N_STRING)
        return NULL;
    const char *v = graph__py_string_value(x, s);
    return v ? graph__doc(x->f, v, strlen(v)) : NULL;
}

/* Adds a symbol; returns its index in the file's syms. */
int32_t graph__py_push_sym(px *x, graph_sym_kind kind, const char *name, int32_t parent,
                           uint32_t start, uint32_t end, uint32_t flags)
{
    gx_sym s = {.name = name,
                .parent = parent,
                .start_line = start,
                .end_line = end,
                .kind = (uint8_t)kind,
                .flags = flags};
    core_vec_push(&x->f->syms, s);
    return (int32_t)(x->f->syms.n - 1);
}

/* Decorator names that say what kind of method this is. */
uint32_t graph__py_decorator_flags(px *x, TSNode dec)
{
    TSNode e = ts_node_named_child(dec, 0);
    if (is_null(e))
        return 0;
    if (ty(e) == N_CALL)
        e = fieldn(e, F_FUNCTION);
    if (is_null(e))
        return 0;
    size_t ln;
    const char *last = graph__py_last_segment(x, e, &ln);
#define IS(lit) (ln == sizeof(lit) - 1 && memcmp(last, lit, ln) == 0)
    if (IS("staticmethod"))
        return GRAPH_SF_STATIC;
    if (IS("classmethod"))
        return GRAPH_SF_CLASSMETHOD;
    if (IS("property") || IS("cached_property") || IS("getter"))
        return GRAPH_SF_GETTER;
    if (IS("setter") || IS("deleter"))
        return GRAPH_SF_SETTER;
    if (IS("abstractmethod"))
        return GRAPH_SF_ABSTRACT;
#undef IS
    return 0;
}

/* Decorators whose names are not worth a call edge. */
bool graph__py_plain_decorator(uint32_t flags)
{
    return flags != 0;
}

/* The first parameter's name (self / cls), if it is a plain one. */
const char *graph__py_first_param(px *x, TSNode params)
{
    if (is_null(params))
        return NULL;
    TSNode p = ts_node_named_child(params, 0);
    if (is_null(p))
        return NULL;
    if (ty(p) == N_TYPED_PARAMETER)
        p = ts_node_named_child(p, 0);
    else if (ty(p) == N_DEFAULT_PARAMETER || ty(p) == N_TYPED_DEFAULT_PARAMETER)
        p = fieldn(p, F_NAME);
    if (is_null(p) || ty(p) != N_IDENTIFIER)
        return NULL;
    return text(x, p);
}

/* ---- bindings ---- */

/* What a right-hand side makes of the name it is bound to. */
bool graph__py_method_alias(px *x, const char *name, TSNode value, const py_scope *sc, bool level)
{
    if (is_null(value) || ty(value) != N_ATTRIBUTE)
        return false;
    const char *p = graph__py_path_of(x, value, sc, 0);
    const char *dot = p ? strrchr(p, '.') : NULL;
    if (!dot)
        return false;
    graph_level lvl = graph_level_of_method(dot + 1, strlen(dot + 1));
    if (lvl == GRAPH_LEVEL_NONE)
        return false;
    char *recv = core_arena_strndup(&x->f->arena, p, (size_t)(dot - p));
    return graph__py_push_alias(x, name, recv, level ? dot + 1 : "log",
                                level ? lvl : GRAPH_LEVEL_NONE) != NULL;
}

/* A dictionary whose values are one logger's logging methods (`{"up":
 * log.info, "flapping": log.warning}`): a call of one of its entries logs
 * at the level the key chooses (plan_chosen_method), recorded as the
 * name's table ("NAME[]"). */
static void method_table(px *x, const char *name, TSNode dict, const py_scope *sc)
{
    uint32_t n = ts_node_named_child_count(dict), k = 0;
    const char *recv = NULL;
    for (uint32_t i = 0; i < n; i++) {
        TSNode pr = ts_node_named_child(dict, i);
        if (ty(pr) == N_COMMENT)
            continue;
        TSNode v = ty(pr) == N_PAIR ? unparen(fieldn(pr, F_VALUE)) : gx_null();
        const char *p = !is_null(v) && ty(v) == N_ATTRIBUTE ? graph__py_path_of(x, v, sc, 0) : NULL;
        const char *dot = p ? strrchr(p, '.') : NULL;
        if (!dot || graph_level_of_method(dot + 1, strlen(dot + 1)) == GRAPH_LEVEL_NONE ||
            (recv && (strncmp(recv, p, (size_t)(dot - p)) != 0 || recv[dot - p])))
            return;
        recv = recv ? recv : core_arena_strndup(&x->f->arena, p, (size_t)(dot - p));
        k++;
    }
    if (!k || !graph__py_loggerish_path(x, recv))
        return;
    const py_logger *base = graph__py_find_logger(x, recv);
    size_t nl = strlen(name) + 3;
    char *key = core_arena_alloc(&x->f->arena, nl);
    snprintf(key, nl, "%s[]", name);
    py_logger lg = {.key = key, .logger = base ? base->logger : NULL, .table_of = recv};
    core_vec_push(&x->loggers, lg);
}

void graph__py_bind_target(px *x, const char *name, TSNode right, const py_scope *sc, int32_t scope,
                           TSNode at)
{
    TSNode r = unparen(right);
    unsigned rt = is_null(r) ? 0 : ty(r);
    if (rt == N_DICTIONARY)
        method_table(x, name, r, sc);
    /* `A() if c else B()`: bound to either, as by an if and an else. */
    if (rt == N_CONDITIONAL_EXPRESSION && ts_node_named_child_count(r) == 3) {
        TSNode a = unparen(ts_node_named_child(r, 0)), b = unparen(ts_node_named_child(r, 2));
        if (!is_null(a) && !is_null(b) && ty(a) == N_CALL && ty(b) == N_CALL) {
            graph__py_bind_target(x, name, a, sc, scope, at);
            graph__py_bind_target(x, name, b, sc, scope, at);
            return;
        }
    }
    if (rt == N_CALL) {
        TSNode fn = fieldn(r, F_FUNCTION);
        const char *p = is_null(fn) ? NULL : graph__py_path_of(x, fn, sc, 0);
        const char *logger = NULL;
        if (graph__py_partial_alias(x, name, r, sc)) {
            add_bind(x, GX_BIND_LOCAL, name, NULL, scope, at);
            return;
        }
        if (graph__py_is_logger_factory(x, r, sc)) {
            logger = graph__py_logger_name_of_call(x, r);
            py_logger lg = {.key = name, .logger = logger};
            core_vec_push(&x->loggers, lg);
        }
        add_bind(x, p ? GX_BIND_CALL : GX_BIND_LOCAL, name, p, scope, at);
        /* Kept for the modules that import the name (resolve_edges.c). */
        x->f->binds.v[x->f->binds.n - 1].logger = logger;
        return;
    }
    if (rt == N_IDENTIFIER || rt == N_ATTRIBUTE) {
        const char *p = graph__py_path_of(x, r, sc, 0);
        /* log_fn = logger.debug: calls to log_fn log. */
        graph__py_method_alias(x, name, r, sc, true);
        /* x = self.logger keeps being a logger under its new name. */
        if (p) {
            const py_logger *lg = graph__py_find_logger(x, p);
            if (lg) {
                py_logger copy = *lg;
                copy.key = name;
                core_vec_push(&x->loggers, copy);
            }
        }
        add_bind(x, p ? GX_BIND_ALIAS : GX_BIND_LOCAL, name, p, scope, at);
        return;
    }
    add_bind(x, GX_BIND_LOCAL, name, NULL, scope, at);
}

/* Names a loop, a with or an except binds: local variables. */
void graph__py_bind_targets(px *x, TSNode t, const py_scope *sc, int rec)
{
    if (is_null(t) || rec > 16)
        return;
    unsigned k = ty(t);
    if (k == N_IDENTIFIER) {
        add_bind(x, GX_BIND_LOCAL, text(x, t), NULL, sc->sym, t);
    } else if (k == N_PATTERN_LIST || k == N_TUPLE_PATTERN || k == N_LIST_PATTERN ||
               k == N_AS_PATTERN_TARGET || k == N_LIST_SPLAT_PATTERN) {
        uint32_t nc = ts_node_named_child_count(t);
        for (uint32_t i = 0; i < nc && i < 64; i++)
            graph__py_bind_targets(x, ts_node_named_child(t, i), sc, rec + 1);
    }
}

/* Prescan of `name = <logger factory call>` and `name = a.b`: the
 * loggers and logger-method aliases it makes (not the binding itself). */
static void prescan_assignment(px *x, TSNode a, const py_scope *sc)
{
    TSNode left = fieldn(a, F_LEFT), right = fieldn(a, F_RIGHT);
    if (is_null(left) || is_null(right) || ty(left) != N_IDENTIFIER)
        return;
    TSNode r = unparen(right);
    bool factory = graph__py_is_logger_factory(x, r, sc);
    bool alias = ty(r) == N_ATTRIBUTE;
    if (!factory && !alias)
        return;
    size_t nb = x->f->binds.n;
    const char *name = text(x, left);
    graph__py_bind_target(x, name, right, sc, sc->sym, left);
    x->f->binds.n = nb;
    if (sc->in_class_body && factory) {
        py_logger lg = {.key = graph__path_join(x->f, "@self", name, strlen(name)),
                        .logger = graph__py_logger_name_of_call(x, r)};
        core_vec_push(&x->loggers, lg);
    }
}

/*
 * Before the walk: module-level and class-level bindings of loggers and
 * logger-method aliases, and import aliases, so a function defined above
 * `logger = logging.getLogger(__name__)` still sees it (Python runs the
 * module body before any function is called).
 */
void graph__py_prescan_bindings(px *x, TSNode body, const py_scope *sc, int depth)
{
    if (depth > 8)
        return;
    /* Big modules: children by cursor, not by index (that is quadratic). */
    TSTreeCursor c = ts_tree_cursor_new(body);
    if (ts_tree_cursor_goto_first_child(&c)) {
        do {
            TSNode st = ts_tree_cursor_current_node(&c);
            unsigned t = ty(st);
            if (t == N_IMPORT_STATEMENT || t == N_IMPORT_FROM_STATEMENT) {
                size_t before = x->f->imports.n;
                graph__py_do_import(x, st, sc, depth + 1);
                /* Only the aliases are wanted now; the walk records the
                 * imports themselves. */
                x->f->imports.n = before;
            } else if (t == N_EXPRESSION_STATEMENT) {
                TSNode a = ts_node_named_child(st, 0);
                if (!is_null(a) && ty(a) == N_ASSIGNMENT)
                    prescan_assignment(x, a, sc);
            } else if (t == N_CLASS_DEFINITION || t == N_DECORATED_DEFINITION) {
                TSNode cls = t == N_CLASS_DEFINITION ? st : fieldn(st, F_DEFINITION);
                if (!is_null(cls) && ty(cls) == N_CLASS_DEFINITION) {
                    TSNode b = fieldn(cls, F_BODY);
                    py_scope in = *sc;
                    in.in_class_body = true;
                    if (!is_null(b))
                        graph__py_prescan_bindings(x, b, &in, depth + 1);
                }
            }
        } while (ts_tree_cursor_goto_next_sibling(&c));
    }
    if (!graph__tsalloc_active())
        ts_tree_cursor_delete(&c);
}
