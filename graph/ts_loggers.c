/*
 * TypeScript/JavaScript extraction: loggers. Which names hold a logger, a
 * logging library's export, a logger method under another name or a
 * debug-style function, from imports, requires, factory calls and
 * assignments.
 */
#include "ts_int.h"

#include <string.h>

/* The logger bound to key last; NULL if none. */
const ts_logger *graph__ts_find_logger(tx *x, const char *key)
{
    if (!key)
        return NULL;
    for (size_t i = x->loggers.n; i-- > 0;)
        if (strcmp(x->loggers.v[i].key, key) == 0)
            return &x->loggers.v[i];
    return NULL;
}

const ts_logger *graph__ts_logger_of(tx *x, const char *key)
{
    const ts_logger *lg = graph__ts_find_logger(x, key);
    return lg && lg->what != LG_NAMED ? lg : NULL;
}

/* Binds key to a logger of the kind what. */
void graph__ts_push_logger(tx *x, const char *key, lg_what what, const char *logger,
                           const char *method, graph_level level, bool console)
{
    ts_logger lg = {.key = key,
                    .logger = logger,
                    .method = method,
                    .level = level,
                    .what = (uint8_t)what,
                    .console = console};
    core_vec_push(&x->loggers, lg);
}

/* `console`, `globalThis.console`, `window.console`. */
bool graph__ts_is_console(const char *recv)
{
    size_t n = strlen(recv);
    return strcmp(recv, "console") == 0 || (n > 8 && strcmp(recv + n - 8, ".console") == 0);
}

/* A logging library whose export is a logger or makes loggers. */
bool graph__ts_logger_lib(const char *m)
{
    static const char *const libs[] = {
        "pino",     "winston", "bunyan",   "log4js",
        "loglevel", "npmlog",  "signale",  "consola",
        "tslog",    "roarr",   "proc-log", "@nestjs/common/services/logger.service"};
    for (size_t i = 0; i < sizeof libs / sizeof libs[0]; i++)
        if (strcmp(m, libs[i]) == 0)
            return true;
    return false;
}

/* Is a receiver path a logger? */
bool graph__ts_logger_recv(tx *x, const char *recv)
{
    if (!recv)
        return false;
    const ts_logger *lg = graph__ts_logger_of(x, recv);
    if (lg)
        return lg->what == LG_OBJECT || lg->what == LG_LIB;
    return graph__loggerish_path(recv);
}

/* The value of property `key` in an object literal, or a null node; the
 * name itself for a shorthand property (`{ query }`). */
NOINLINE TSNode graph__ts_object_key(tx *x, TSNode obj, const char *key, int depth)
{
    TSTreeCursor *c = ty(x, obj) == N_OBJECT ? kids(x, depth, obj) : NULL;
    if (!c)
        return gx_null();
    do {
        TSNode p = ts_tree_cursor_current_node(c);
        if (ty(x, p) == N_SHORTHAND_PROPERTY_IDENTIFIER && text_eq(x, p, key))
            return p;
        if (ty(x, p) != N_PAIR)
            continue;
        TSNode k = fld(x, p, F_KEY);
        if ((ty(x, k) == N_PROPERTY_IDENTIFIER && text_eq(x, k, key)) ||
            (ty(x, k) == N_STRING &&
             ts_node_end_byte(k) - ts_node_start_byte(k) == strlen(key) + 2 &&
             memcmp(x->src + ts_node_start_byte(k) + 1, key, strlen(key)) == 0))
            return fld(x, p, F_VALUE);
    } while (ts_tree_cursor_goto_next_sibling(c));
    return gx_null();
}

/* The logger name a factory call gives: a literal first argument, the
 * `name` of an options object, or `X.name` (the class name). */
static NOINLINE const char *logger_name_of(tx *x, TSNode call, int depth)
{
    TSNode args = fld(x, call, F_ARGUMENTS);
    if (ty(x, args) != N_ARGUMENTS)
        return NULL;
    TSNode a0 = unwrap(x, ts_node_named_child(args, 0));
    switch (ty(x, a0)) {
    case N_STRING:
        return graph__ts_string_value(x, a0);
    case N_MEMBER_EXPRESSION: {
        TSNode obj = fld(x, a0, F_OBJECT), prop = fld(x, a0, F_PROPERTY);
        if (ty(x, obj) == N_IDENTIFIER && !is_null(prop) && text_eq(x, prop, "name"))
            return name_text(x, obj);
        return NULL;
    }
    case N_OBJECT: {
        TSNode v = unwrap(x, graph__ts_object_key(x, a0, "name", depth));
        if (is_null(v))
            v = unwrap(x, graph__ts_object_key(x, a0, "label", depth));
        return ty(x, v) == N_STRING ? graph__ts_string_value(x, v) : NULL;
    }
    default:
        return NULL;
    }
}

/* pino(), winston.createLogger(), log4js.getLogger('x'), logger.child(),
 * require('pino')(), ...: a call that makes a logger. */
NOINLINE bool graph__ts_logger_factory(tx *x, TSNode call, const char **lname, int depth)
{
    if (ty(x, call) != N_CALL_EXPRESSION || depth > GX_MAX_DEPTH)
        return false;
    TSNode fn = fld(x, call, F_FUNCTION);
    if (is_null(fn))
        return false;
    bool yes = false;
    const char *inherit = NULL; /* a child logger keeps its parent's name */
    const char *m = graph__ts_require_of(x, fn);
    if (m) {
        yes = graph__ts_logger_lib(m);
    } else if (ty(x, fn) == N_MEMBER_EXPRESSION && !graph__ts_path_of(x, fn, 0)) {
        /* pino().child({...}) */
        TSNode prop = fld(x, fn, F_PROPERTY);
        if (!is_null(prop) && (text_eq(x, prop, "child") || text_eq(x, prop, "scope")))
            yes = graph__ts_logger_factory(x, unwrap(x, fld(x, fn, F_OBJECT)), &inherit, depth + 1);
    } else {
        const char *p = graph__ts_path_of(x, fn, 0);
        if (!p)
            return false;
        const ts_logger *lg = graph__ts_find_logger(x, p);
        const char *last = gx_last_component(p);
        if (lg && lg->what == LG_LIB) {
            yes = true;
        } else if (!strcmp(last, "pino") || !strcmp(last, "createLogger") ||
                   !strcmp(last, "getLogger") || !strcmp(last, "getChildLogger") ||
                   !strcmp(last, "createConsola") || !strcmp(last, "bunyan")) {
            yes = true;
        } else if (!strcmp(last, "child") || !strcmp(last, "scope") || !strcmp(last, "withTag")) {
            /* logger.child({...}) */
            if (last != p) {
                char *recv = core_arena_strndup(&x->f->arena, p, (size_t)(last - p - 1));
                yes = graph__ts_logger_recv(x, recv);
                const ts_logger *base = graph__ts_logger_of(x, recv);
                if (base)
                    inherit = base->logger;
            }
        }
    }
    if (yes && lname) {
        *lname = logger_name_of(x, call, depth);
        if (!*lname)
            *lname = inherit;
    }
    return yes;
}

/* A path naming a logger method ("logger.warn", "console.error"): its level
 * and method; NONE if it is not one. */
static graph_level logger_method(tx *x, const char *p, const char **method, bool *console,
                                 const char **lname)
{
    const char *dot = strrchr(p, '.');
    if (!dot)
        return GRAPH_LEVEL_NONE;
    const char *m = dot + 1;
    graph_level lvl =
        strcmp(m, "log") == 0 ? GRAPH_LEVEL_INFO : graph_level_of_method(m, strlen(m));
    if (lvl == GRAPH_LEVEL_NONE)
        return lvl;
    char *recv = core_arena_strndup(&x->f->arena, p, (size_t)(dot - p));
    *console = graph__ts_is_console(recv);
    if (!*console && !graph__ts_logger_recv(x, recv))
        return GRAPH_LEVEL_NONE;
    const ts_logger *base = graph__ts_logger_of(x, recv);
    *lname = base ? base->logger : NULL;
    *method = m;
    return lvl;
}

/* A call's first argument when it is a string literal: its value; else NULL. */
static const char *string_arg0(tx *x, TSNode call)
{
    TSNode args = fld(x, call, F_ARGUMENTS);
    TSNode a0 = ty(x, args) == N_ARGUMENTS ? ts_node_named_child(args, 0) : gx_null();
    return ty(x, a0) == N_STRING ? graph__ts_string_value(x, a0) : NULL;
}

/* A call's one argument when it is a string literal that reads as a
 * namespace (`sql:mysql`, `app.db`, `pool/worker`: a name, no blanks or
 * placeholders); else NULL. */
static const char *namespace_arg(tx *x, TSNode call)
{
    TSNode args = fld(x, call, F_ARGUMENTS);
    if (ty(x, args) != N_ARGUMENTS || ts_node_named_child_count(args) != 1)
        return NULL;
    const char *s = string_arg0(x, call);
    if (!s || !s[0])
        return NULL;
    for (const char *p = s; *p; p++) {
        char c = *p;
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == ':' || c == '.' || c == '-' || c == '_' || c == '/'))
            return NULL;
    }
    return s;
}

/*
 * Notes what `key = value` makes of key for the emit detector: a logger
 * (pino(), new Logger()), a logger method alias (logger.warn,
 * console.log.bind(console)), the debug factory (require('debug')) or a
 * debug logger (require('debug')('ns'), createDebug('ns')).
 */
NOINLINE void graph__ts_note_logger(tx *x, const char *key, TSNode value, int depth)
{
    TSNode v = unwrap(x, value);
    unsigned t = ty(x, v);
    if (!key || is_null(v) || depth > GX_MAX_DEPTH)
        return;
    /* `opts.log || createDebug('ns')`, `logger ?? pino()`: a default the
     * caller may replace by a logger of its own, which logs alike. (A
     * choice, `warn ? console.error : console.log`, is left a call: the
     * sink of a formatter, whose lines its callers' words explain.) */
    unsigned op = t == N_BINARY_EXPRESSION ? ty(x, fld(x, v, F_OPERATOR)) : 0;
    if (op == A_OR || op == A_NULLISH) {
        size_t n0 = x->loggers.n;
        graph__ts_note_logger(x, key, fld(x, v, F_RIGHT), depth + 1);
        if (x->loggers.n == n0)
            graph__ts_note_logger(x, key, fld(x, v, F_LEFT), depth + 1);
        return;
    }
    /* `compilation && compilation.getLogger('ns')`: the logger, where
     * there is one to ask. */
    if (op == A_AND) {
        graph__ts_note_logger(x, key, fld(x, v, F_RIGHT), depth + 1);
        return;
    }
    if (t == N_CALL_EXPRESSION) {
        const char *m = graph__ts_require_of(x, v);
        if (m) {
            if (strcmp(m, "debug") == 0)
                graph__ts_push_logger(x, key, LG_DEBUG, NULL, NULL, GRAPH_LEVEL_NONE, false);
            else if (graph__ts_logger_lib(m))
                graph__ts_push_logger(x, key, LG_LIB, NULL, NULL, GRAPH_LEVEL_NONE, false);
            return;
        }
        TSNode fn = unwrap(x, fld(x, v, F_FUNCTION));
        const char *fm = graph__ts_require_of(x, fn);
        const char *fp = fm ? NULL : graph__ts_path_of(x, fn, 0);
        const ts_logger *flg = fp ? graph__ts_find_logger(x, fp) : NULL;
        if ((fm && strcmp(fm, "debug") == 0) || (flg && flg->what == LG_DEBUG)) {
            graph__ts_push_logger(x, key, LG_FUNC, string_arg0(x, v), "debug", GRAPH_LEVEL_DEBUG,
                                  false);
            return;
        }
        if (fp) {
            const char *last = gx_last_component(fp);
            if (last != fp && strcmp(last, "extend") == 0) {
                /* debug.extend('sub'): namespace "parent:sub" */
                char *head = core_arena_strndup(&x->f->arena, fp, (size_t)(last - fp - 1));
                const ts_logger *base = graph__ts_find_logger(x, head);
                if (base && base->what == LG_FUNC) {
                    const char *sub = string_arg0(x, v);
                    const char *ns = NULL;
                    if (base->logger && sub) {
                        size_t l1 = strlen(base->logger), l2 = strlen(sub);
                        char *s = core_arena_alloc(&x->f->arena, l1 + l2 + 2);
                        memcpy(s, base->logger, l1);
                        s[l1] = ':';
                        memcpy(s + l1 + 1, sub, l2 + 1);
                        ns = s;
                    }
                    graph__ts_push_logger(x, key, LG_FUNC, ns, "debug", GRAPH_LEVEL_DEBUG, false);
                    return;
                }
            }
            if (last != fp && strcmp(last, "bind") == 0) {
                /* logger.warn.bind(logger) */
                const char *inner = core_arena_strndup(&x->f->arena, fp, (size_t)(last - fp - 1));
                const char *method = NULL, *lname = NULL;
                bool console = false;
                graph_level lvl = logger_method(x, inner, &method, &console, &lname);
                if (lvl != GRAPH_LEVEL_NONE)
                    graph__ts_push_logger(x, key, LG_ALIAS, lname, method, lvl, console);
                return;
            }
        }
        const char *lname = NULL;
        if (graph__ts_logger_factory(x, v, &lname, depth))
            graph__ts_push_logger(x, key, LG_OBJECT, lname, NULL, GRAPH_LEVEL_NONE, false);
        else if (fp && (lname = namespace_arg(x, v)) != NULL)
            graph__ts_push_logger(x, key, LG_NAMED, lname, NULL, GRAPH_LEVEL_NONE, false);
        return;
    }
    if (t == N_NEW_EXPRESSION) {
        const char *p = graph__ts_path_of(x, fld(x, v, F_CONSTRUCTOR), 0);
        if (!p)
            return;
        const char *last = gx_last_component(p);
        if (strcmp(last, "Logger") == 0 || strcmp(last, "Signale") == 0 ||
            strcmp(last, "Consola") == 0 || graph__loggerish(last, strlen(last)))
            graph__ts_push_logger(x, key, LG_OBJECT, logger_name_of(x, v, depth), NULL,
                                  GRAPH_LEVEL_NONE, false);
        return;
    }
    if (t == N_IDENTIFIER || t == N_MEMBER_EXPRESSION) {
        const char *p = graph__ts_path_of(x, v, 0);
        if (!p)
            return;
        const char *method = NULL, *lname = NULL;
        bool console = false;
        graph_level lvl = logger_method(x, p, &method, &console, &lname);
        if (lvl != GRAPH_LEVEL_NONE) {
            graph__ts_push_logger(x, key, LG_ALIAS, lname, method, lvl, console);
            return;
        }
        /* const log = this.logger: still a logger under its new name. */
        const ts_logger *lg = graph__ts_find_logger(x, p);
        if (lg) {
            ts_logger copy = *lg;
            copy.key = key;
            core_vec_push(&x->loggers, copy);
        }
    }
}
