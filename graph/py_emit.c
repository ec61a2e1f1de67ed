/*
 * Python extraction: emit sites. Which calls log (loggers, their methods
 * and aliases, print, warnings, spans and span events), which other calls
 * are candidate sites, what each one's message is; and the string
 * constants a message may be kept in.
 */
#include "py_int.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

static graph_level level_from_expr(px *x, TSNode e)
{
    e = unparen(e);
    if (is_null(e))
        return GRAPH_LEVEL_CUSTOM;
    if (ty(e) == N_ATTRIBUTE || ty(e) == N_IDENTIFIER) {
        size_t n;
        const char *s = graph__py_last_segment(x, e, &n);
        graph_level l = graph__level_of_word(s, n);
        if (l != GRAPH_LEVEL_NONE)
            return l;
    }
    if (ty(e) == N_INTEGER) {
        long v = strtol(x->src + ts_node_start_byte(e), NULL, 10);
        switch (v) {
        case 10:
            return GRAPH_LEVEL_DEBUG;
        case 20:
            return GRAPH_LEVEL_INFO;
        case 30:
            return GRAPH_LEVEL_WARNING;
        case 40:
            return GRAPH_LEVEL_ERROR;
        case 50:
            return GRAPH_LEVEL_CRITICAL;
        default:
            return GRAPH_LEVEL_CUSTOM;
        }
    }
    return GRAPH_LEVEL_CUSTOM;
}

/* Whether a `.log(...)` call's first argument may be a level, as
 * `Logger.log(level, msg)` takes: anything but a bare name that says
 * nothing of one. `self.access_logger.log(request, response, took)` is an
 * object of the code's own rendering what it is handed, not a logger. */
static bool level_name(px *x, TSNode e)
{
    e = unparen(e);
    if (is_null(e) || ty(e) != N_IDENTIFIER)
        return true;
    size_t n;
    const char *s = graph__py_last_segment(x, e, &n);
    if (graph__level_of_word(s, n) != GRAPH_LEVEL_NONE)
        return true;
    bool upper = true;
    for (size_t i = 0; i < n; i++)
        upper &= !islower((unsigned char)s[i]);
    if (upper)
        return true; /* a constant: TRACE, VERBOSE */
    char low[64];
    size_t m = n < sizeof low - 1 ? n : sizeof low - 1;
    for (size_t i = 0; i < m; i++)
        low[i] = (char)tolower((unsigned char)s[i]);
    low[m] = 0;
    if (strstr(low, "lev") || strstr(low, "lvl") || strstr(low, "sev") || strstr(low, "prio"))
        return true;
    return n <= 2; /* l, lv */
}

/* The logger name a getLogger-like call names: "__name__" or a literal. */
const char *graph__py_logger_name_of_call(px *x, TSNode call)
{
    TSNode args = fieldn(call, F_ARGUMENTS);
    if (is_null(args))
        return NULL;
    TSNode a0 = ts_node_named_child(args, 0);
    if (is_null(a0))
        return "";
    a0 = unparen(a0);
    if (ty(a0) == N_IDENTIFIER && text_eq(x, a0, "__name__"))
        return "__name__";
    if (ty(a0) == N_STRING)
        return graph__py_string_value(x, a0);
    return NULL;
}

/* Is this call a logger factory (getLogger(...) and friends)? */
bool graph__py_is_logger_factory(px *x, TSNode call, const py_scope *sc)
{
    if (ty(call) != N_CALL)
        return false;
    TSNode fn = fieldn(call, F_FUNCTION);
    if (is_null(fn))
        return false;
    const char *p = graph__py_canon(x, graph__py_path_of(x, fn, sc, 0));
    if (!p)
        return false;
    const char *last = gx_last_component(p);
    return strcmp(last, "getLogger") == 0 || strcmp(last, "get_logger") == 0 ||
           strcmp(last, "getChild") == 0 || strcmp(p, "logging.LoggerAdapter") == 0 ||
           strcmp(last, "LoggerAdapter") == 0;
}

/* Does a receiver path name a logger: one bound here, the logging
 * module (or structlog, loguru's logger), or a logger-like name? */
bool graph__py_loggerish_path(px *x, const char *recv)
{
    if (graph__py_find_logger(x, recv))
        return true;
    const char *c = graph__py_canon(x, recv);
    if (strcmp(c, "logging") == 0 || strcmp(c, "structlog") == 0 || strcmp(c, "loguru.logger") == 0)
        return true;
    return graph__loggerish_path(recv);
}

/* A logging call whose method is chosen at run time:
 * `getattr(log, level)(...)`, `(log.critical if urgent else log.info)(...)`.
 * Its level is the run's; the rest reads as the logger's methods do. */
static bool plan_chosen_method(px *x, TSNode fn, emit_plan *pl, const py_scope *sc)
{
    fn = unparen(fn);
    const char *recv = NULL;
    if (ty(fn) == N_CALL) {
        TSNode f = fieldn(fn, F_FUNCTION), args = fieldn(fn, F_ARGUMENTS);
        if (is_null(f) || ty(f) != N_IDENTIFIER || !text_eq(x, f, "getattr") || is_null(args) ||
            ts_node_named_child_count(args) < 2)
            return false;
        recv = graph__py_path_of(x, unparen(ts_node_named_child(args, 0)), sc, 0);
    } else if (ty(fn) == N_SUBSCRIPT) {
        /* `self._report[kind](...)` on a table of a logger's methods
         * (method_table in py_defs.c). */
        const char *t = graph__py_path_of(x, unparen(fieldn(fn, F_VALUE)), sc, 0);
        char key[512];
        if (!t || (size_t)snprintf(key, sizeof key, "%s[]", t) >= sizeof key)
            return false;
        const py_logger *tab = graph__py_find_logger(x, key);
        if (!tab || !tab->table_of)
            return false;
        recv = tab->table_of;
    } else if (ty(fn) == N_CONDITIONAL_EXPRESSION && ts_node_named_child_count(fn) == 3) {
        TSNode b[2] = {unparen(ts_node_named_child(fn, 0)), unparen(ts_node_named_child(fn, 2))};
        for (int i = 0; i < 2; i++) {
            TSNode attr = ty(b[i]) == N_ATTRIBUTE ? fieldn(b[i], F_ATTRIBUTE) : gx_null();
            if (is_null(attr))
                return false;
            const char *m = text(x, attr);
            const char *r = graph__py_path_of(x, fieldn(b[i], F_OBJECT), sc, 0);
            if (!r || (recv && strcmp(r, recv) != 0) ||
                graph_level_of_method(m, strlen(m)) == GRAPH_LEVEL_NONE)
                return false;
            recv = r;
        }
    }
    if (!recv || !graph__py_loggerish_path(x, recv))
        return false;
    const py_logger *lg = graph__py_find_logger(x, recv);
    pl->kind = GRAPH_EMIT_LOG;
    pl->level = GRAPH_LEVEL_CUSTOM;
    pl->receiver = recv;
    pl->method = "?";
    pl->logger = lg ? lg->logger : NULL;
    pl->msg_kw = "msg";
    return true;
}

py_logger *graph__py_push_alias(px *x, const char *name, const char *recv, const char *method,
                                graph_level level)
{
    if (!graph__py_loggerish_path(x, recv))
        return NULL;
    const py_logger *base = graph__py_find_logger(x, recv);
    py_logger lg = {.key = name,
                    .logger = base ? base->logger : NULL,
                    .level = level,
                    .method = method,
                    .is_alias = true};
    core_vec_push(&x->loggers, lg);
    return &x->loggers.v[x->loggers.n - 1];
}

bool graph__py_partial_alias(px *x, const char *name, TSNode call, const py_scope *sc)
{
    TSNode fn = fieldn(call, F_FUNCTION), args = fieldn(call, F_ARGUMENTS);
    const char *p = is_null(fn) ? NULL : graph__py_path_of(x, fn, sc, 0);
    if (!p || is_null(args) || strcmp(graph__py_canon(x, p), "functools.partial") != 0)
        return false;
    TSNode a[4];
    uint32_t n = 0, k = ts_node_named_child_count(args), more = 0;
    for (uint32_t i = 0; i < k; i++) {
        TSNode c = ts_node_named_child(args, i);
        unsigned t = ty(c);
        if (t == N_COMMENT)
            continue;
        if (t == N_KEYWORD_ARGUMENT || t == N_LIST_SPLAT || t == N_DICTIONARY_SPLAT)
            return false;
        if (n < 4)
            a[n++] = c;
        else
            more++;
    }
    TSNode f = n >= 2 ? unparen(a[0]) : gx_null();
    const char *fp = !is_null(f) && ty(f) == N_ATTRIBUTE ? graph__py_path_of(x, f, sc, 0) : NULL;
    const char *dot = fp ? strrchr(fp, '.') : NULL;
    if (!dot)
        return false;
    bool is_log = strcmp(dot + 1, "log") == 0;
    graph_level lvl = graph_level_of_method(dot + 1, strlen(dot + 1));
    uint32_t m = is_log ? 2 : 1;
    if ((lvl == GRAPH_LEVEL_NONE && !is_log) || m >= n || (is_log && !level_name(x, a[1])) ||
        !is_stringish(ty(unparen(a[m]))))
        return false;
    char *recv = core_arena_strndup(&x->f->arena, fp, (size_t)(dot - fp));
    py_logger *lg =
        graph__py_push_alias(x, name, recv, dot + 1, is_log ? level_from_expr(x, a[1]) : lvl);
    if (!lg)
        return false;
    lg->has_fmt = true;
    lg->pre = (uint8_t)(n - m - 1 + more);
    lg->fmt = a[m];
    return true;
}

/* A call of an alias of a logger method (`log_fn = logger.debug`), or of
 * a partial of one with its message bound, as planned. */
static bool plan_alias(const py_logger *lg, const char *path, emit_plan *pl)
{
    if (!lg || !lg->is_alias)
        return false;
    pl->kind = GRAPH_EMIT_LOG;
    pl->level = lg->level;
    pl->receiver = path;
    pl->method = lg->method;
    pl->logger = lg->logger;
    pl->flags |= GRAPH_EF_ALIAS;
    pl->has_fmt = lg->has_fmt;
    pl->fmt = lg->fmt;
    pl->pre = lg->pre;
    return true;
}

/* Decides whether a call is an emit site, and how to read it. */
bool graph__py_plan_emit(px *x, TSNode call, TSNode fn, const char *path, emit_plan *pl,
                         const py_scope *sc)
{
    memset(pl, 0, sizeof *pl);
    pl->msg_index = 0;
    if (!path && plan_chosen_method(x, fn, pl, sc))
        return true;
    if (path) {
        const char *c = graph__py_canon(x, path);
        if (strcmp(path, "print") == 0) {
            pl->kind = GRAPH_EMIT_PRINT;
            pl->method = "print";
            pl->receiver = "";
            pl->msg_index = -1;
            return true;
        }
        if (strcmp(c, "warnings.warn") == 0 || strcmp(c, "warnings.warn_explicit") == 0) {
            pl->kind = GRAPH_EMIT_WARN;
            pl->level = GRAPH_LEVEL_WARNING;
            pl->receiver = "warnings";
            pl->method = "warn";
            pl->msg_kw = "message";
            return true;
        }
    }
    const char *method = NULL, *recv = NULL;
    TSNode recv_node; /* set by the one branch that does not return */
    if (ty(fn) == N_ATTRIBUTE) {
        TSNode attr = fieldn(fn, F_ATTRIBUTE);
        if (is_null(attr))
            return false;
        method = text(x, attr);
        recv_node = fieldn(fn, F_OBJECT);
        /* self.note = partial(log.info, "[%s] %s", name) */
        const py_logger *lg = path && path[0] == '@' ? graph__py_find_logger(x, path) : NULL;
        if (lg && lg->has_fmt && plan_alias(lg, path, pl))
            return true;
        recv =
            path ? core_arena_strndup(&x->f->arena, path, strlen(path) - strlen(method) - 1) : NULL;
    } else if (path && !strchr(path, '.')) {
        /* A bare name: an alias of a logger method (log_fn = logger.debug). */
        return plan_alias(graph__py_find_logger(x, path), path, pl);
    } else {
        return false;
    }
    if (strcmp(method, "start_as_current_span") == 0 || strcmp(method, "start_span") == 0) {
        pl->kind = GRAPH_EMIT_SPAN;
        pl->receiver = recv ? recv : "?";
        pl->method = method;
        pl->msg_kw = "name";
        return true;
    }
    if (strcmp(method, "add_event") == 0) {
        pl->kind = GRAPH_EMIT_EVENT;
        pl->receiver = recv ? recv : "?";
        pl->method = method;
        pl->msg_kw = "name";
        return true;
    }
    /* A write to a standard stream, the process's (`sys.stderr`) or one
     * an object keeps for its output (`self.stdout`, as command-line
     * classes do): printed, as print's text is (a logging function of the
     * package's own may write there). */
    if (strcmp(method, "write") == 0 && !is_null(recv_node)) {
        TSNode r = unparen(recv_node);
        TSNode last = !is_null(r) && ty(r) == N_ATTRIBUTE ? fieldn(r, F_ATTRIBUTE) : r;
        if (!is_null(last) && (text_eq(x, last, "stdout") || text_eq(x, last, "stderr"))) {
            pl->kind = GRAPH_EMIT_PRINT;
            pl->method = method;
            pl->receiver = recv ? recv : text(x, r);
            return true;
        }
    }
    graph_level lvl = graph_level_of_method(method, strlen(method));
    bool is_log_method = strcmp(method, "log") == 0;
    if (lvl == GRAPH_LEVEL_NONE && !is_log_method)
        return false;
    bool logger = false;
    const char *lname = NULL;
    if (recv) {
        logger = graph__py_loggerish_path(x, recv);
        const py_logger *lg = graph__py_find_logger(x, recv);
        if (lg)
            lname = lg->logger;
        if (!lg && recv[0] == '@') {
            /* self.logger set in another method or a base class: the
             * class-level binding has the same name without @self. */
            const py_logger *cl = graph__py_find_logger(x, gx_last_component(recv));
            if (cl)
                lname = cl->logger;
        }
    } else if (!is_null(recv_node) && graph__py_is_logger_factory(x, unparen(recv_node), sc)) {
        /* logging.getLogger(__name__).info(...) */
        logger = true;
        lname = graph__py_logger_name_of_call(x, unparen(recv_node));
        recv = text(x, recv_node);
    }
    if (!logger)
        return false;
    pl->kind = GRAPH_EMIT_LOG;
    pl->receiver = recv;
    pl->method = method;
    /* logging.info(...) goes to the root logger. */
    pl->logger =
        !lname && recv && strcmp(graph__py_canon(x, recv), "logging") == 0 ? "root" : lname;
    /* Logger.warning(self, "..."): a method called on its class, the
     * instance passed first (a base class's, from a subclass's method):
     * its arguments come after it. */
    TSNode args = fieldn(call, F_ARGUMENTS);
    uint32_t shift = 0;
    if (sc && sc->self_name && !is_null(args) && !is_null(recv_node) &&
        ty(unparen(recv_node)) == N_IDENTIFIER && !text_eq(x, unparen(recv_node), sc->self_name)) {
        TSNode a0 = ts_node_named_child(args, 0);
        shift = !is_null(a0) && ty(a0) == N_IDENTIFIER && text_eq(x, a0, sc->self_name);
    }
    pl->msg_index = (int32_t)shift;
    if (is_log_method) {
        TSNode lv = is_null(args) ? args : ts_node_named_child(args, shift);
        if (!level_name(x, lv))
            return false;
        pl->level = level_from_expr(x, lv);
        pl->msg_index = (int32_t)shift + 1;
    } else {
        pl->level = lvl;
    }
    if (strcmp(method, "exception") == 0)
        pl->flags |= GRAPH_EF_EXC_INFO;
    pl->msg_kw = "msg";
    return true;
}

/* Whether an argument reads as a message: a string, a %-format, a
 * concatenation with literal parts, "...".format(...), or a choice of
 * them: `a if c else b` when both do, `a or b` when a does (a message
 * with text is never empty: b is never taken). */
static bool message_arg(px *x, TSNode a, int depth)
{
    a = unparen(a);
    if (is_null(a) || depth > 8)
        return false;
    unsigned t = ty(a);
    if (is_stringish(t))
        return true;
    if (t == N_BINARY_OPERATOR) {
        unsigned op = binop(a);
        TSNode l = fieldn(a, F_LEFT), r = fieldn(a, F_RIGHT);
        if (op == A_PERCENT)
            return !is_null(l) && is_stringish(ty(unparen(l)));
        if (op == A_PLUS)
            return message_arg(x, l, depth + 1) || message_arg(x, r, depth + 1);
        return false;
    }
    if (t == N_CONDITIONAL_EXPRESSION)
        return message_arg(x, ts_node_named_child(a, 0), depth + 1) &&
               message_arg(x, ts_node_named_child(a, 2), depth + 1);
    if (t == N_BOOLEAN_OPERATOR && binop(a) == A_OR)
        return message_arg(x, fieldn(a, F_LEFT), depth + 1);
    if (t == N_CALL && !is_null(graph__py_recoded(x, a)))
        return message_arg(x, graph__py_recoded(x, a), depth + 1);
    if (t == N_CALL) {
        /* A styled literal inside a concatenation (`style("On ") + name`);
         * alone, the styling call is a candidate of its own. */
        if (depth > 0 && !is_null(graph__py_styled(x, a)))
            return true;
        TSNode fn = fieldn(a, F_FUNCTION);
        if (!is_null(fn) && ty(fn) == N_ATTRIBUTE) {
            TSNode attr = fieldn(fn, F_ATTRIBUTE), obj = fieldn(fn, F_OBJECT);
            return !is_null(attr) && text_eq(x, attr, "format") && !is_null(obj) &&
                   is_stringish(ty(unparen(obj)));
        }
    }
    return false;
}

/* What becomes of the object constructor call n makes, as far as the
 * expression it is made in shows: GRAPH_EF_THROWN (`raise X(...)`),
 * GRAPH_EF_HANDED (an argument of another call), or 0. Parentheses,
 * await, `or` and the branches of `a if c else b` pass it on. */
static uint32_t made_for(TSNode n)
{
    TSNode c = n;
    for (int up = 0; up < 16; up++) {
        TSNode p = ts_node_parent(c);
        if (is_null(p))
            return 0;
        unsigned t = ty(p);
        if (t == N_RAISE_STATEMENT)
            return GRAPH_EF_THROWN;
        if (t == N_ARGUMENT_LIST) {
            TSNode call = ts_node_parent(p);
            return !is_null(call) && ty(call) == N_CALL ? GRAPH_EF_HANDED : 0;
        }
        bool passes = t == N_PARENTHESIZED_EXPRESSION || t == N_AWAIT ||
                      (t == N_BOOLEAN_OPERATOR && binop(p) == A_OR);
        if (t == N_CONDITIONAL_EXPRESSION) /* (a if c else b): c is the second */
            passes = !ts_node_eq(c, ts_node_named_child(p, 1));
        if (!passes)
            return 0;
        c = p;
    }
    return 0;
}

/* Whether the literal a message expression starts from (`"..." % x`,
 * `"...".format(x)`, an f-string) has a blank in its text. */
static bool spaced_literal(px *x, TSNode m)
{
    for (int d = 0; d < 8 && !is_null(m); d++) {
        m = unparen(m);
        if (ty(m) == N_BINARY_OPERATOR) {
            m = fieldn(m, F_LEFT);
        } else if (ty(m) == N_CALL && ty(fieldn(m, F_FUNCTION)) == N_ATTRIBUTE) {
            m = fieldn(fieldn(m, F_FUNCTION), F_OBJECT);
        } else if (is_stringish(ty(m))) {
            uint32_t a = ts_node_start_byte(m), b = ts_node_end_byte(m);
            const char *q = memchr(x->src + a, '"', b - a), *q2 = memchr(x->src + a, '\'', b - a);
            if (!q || (q2 && q2 < q))
                q = q2;
            return q && memchr(q, ' ', (size_t)(x->src + b - q));
        } else {
            return false;
        }
    }
    return false;
}

/* Is a call from a constructor to its base's (`super().__init__(msg)`,
 * `Base.__init__(self, msg)`)? Its text is the object's, kept to be
 * rendered elsewhere (an exception's message, logged by what catches
 * it): made here as a constructor call's is. */
static bool base_init(px *x, const char *callee, const py_scope *sc)
{
    size_t n = strlen(callee);
    if (sc->sym < 0 || sc->cls < 0 || n < 9 || strcmp(callee + n - 9, ".__init__") != 0 ||
        strcmp(x->f->syms.v[sc->sym].name, "__init__") != 0)
        return false;
    return strncmp(callee, "@super", 6) == 0 ||
           graph__capwords(gx_last_component(core_arena_strndup(&x->f->arena, callee, n - 9)));
}

/* The format a message fills where it is made (`fmt % args`, and with
 * *brace `fmt.format(...)`), or a null node. */
static TSNode filled_format(px *x, TSNode v, bool *brace)
{
    *brace = false;
    if (ty(v) == N_BINARY_OPERATOR && binop(v) == A_PERCENT)
        return unparen(fieldn(v, F_LEFT));
    TSNode fn = ty(v) == N_CALL ? fieldn(v, F_FUNCTION) : gx_null();
    if (is_null(fn) || ty(fn) != N_ATTRIBUTE || !text_eq(x, fieldn(fn, F_ATTRIBUTE), "format"))
        return gx_null();
    *brace = true;
    return unparen(fieldn(fn, F_OBJECT));
}

/* The literal a message argument takes from a local of the function,
 * or a null node: the local itself (`msg = "Saw --help, exiting"` ...
 * `f(msg)`), or a format the argument fills (`m.format(p)`, `fmt % p`),
 * as a literal in its place would be read. A sentence only: a bare word
 * bound to a local is a name or a key more often than a message. */
static TSNode local_message_arg(px *x, TSNode a, TSNode call, const py_scope *sc)
{
    a = unparen(a);
    bool brace;
    TSNode fmt = ty(a) == N_IDENTIFIER ? a : filled_format(x, a, &brace);
    TSNode lit = graph__py_bound_format(x, fmt, call, sc);
    return !is_null(lit) && spaced_literal(x, lit) ? lit : gx_null();
}

/*
 * A call no listed shape recognises: a candidate emit site (GRAPH_EMIT_CALL)
 * when a positional argument reads as a message, the first such one being
 * the message and the arguments after it its format arguments. Whether the
 * callee logs is for the log to say.
 */
bool graph__py_plan_candidate(px *x, TSNode call, const char *callee, emit_plan *pl,
                              const py_scope *sc)
{
    memset(pl, 0, sizeof *pl);
    TSNode args = fieldn(call, F_ARGUMENTS);
    if (!callee || is_null(args) || ty(args) != N_ARGUMENT_LIST)
        return false;
    /* (`text.encode("ascii")` names a codec, not a message.) */
    const char *last = gx_last_component(callee);
    if ((strcmp(last, "encode") == 0 || strcmp(last, "decode") == 0) &&
        !is_null(graph__py_recoded(x, call)))
        return false;
    /* The first argument that reads as a message; else the first that
     * names a constant (CAPS_WITH_UNDERSCORES, as constants are named): a
     * format kept in a constant, logged here (resolved to its text). */
    int32_t idx = -1, ref = -1, pos = 0;
    TSNode msg = gx_null();
    uint32_t k = ts_node_named_child_count(args);
    for (uint32_t i = 0; i < k && i < 64 && idx < 0; i++) {
        TSNode a = ts_node_named_child(args, i);
        unsigned t = ty(a);
        if (t == N_KEYWORD_ARGUMENT || t == N_COMMENT)
            continue;
        if (t == N_LIST_SPLAT || t == N_DICTIONARY_SPLAT)
            break; /* positions unknown from here on */
        if (message_arg(x, a, 0) || !is_null(local_message_arg(x, a, call, sc))) {
            idx = pos;
            msg = a;
        } else if (ref < 0 && (t == N_IDENTIFIER || t == N_ATTRIBUTE)) {
            const char *p = graph__py_path_of(x, a, sc, 0);
            const char *l = p ? gx_last_component(p) : NULL;
            if (l && graph__const_like(l, strlen(l)))
                ref = pos;
        }
        pos++;
    }
    if (idx < 0)
        idx = ref;
    if (idx < 0)
        return false;
    pl->kind = GRAPH_EMIT_CALL;
    graph__callee_split(x->f, callee, &pl->receiver, &pl->method);
    /* Text encoded for an object made of it (`io.BytesIO(f"{r}: {e}".encode())`)
     * is its data, not a message the object keeps. */
    if (graph__capwords(pl->method) && !is_null(msg) && !is_null(graph__py_recoded(x, msg)))
        return false;
    pl->msg_index = idx;
    graph__cand_site(&x->cands, callee);
    if (graph__capwords(pl->method))
        pl->flags |= GRAPH_EF_CTOR | made_for(call);
    else if (base_init(x, callee, sc) && spaced_literal(x, msg))
        pl->flags |= GRAPH_EF_CTOR; /* a sentence, not a name (`super().__init__("w", 2)`) */
    return true;
}

/* The message of print(a, b, ...): its pieces joined by spaces, each
 * argument that is not a string a hole. */
/* Whether template text s (n bytes) has a letter outside its holes. */
static bool has_letter(const char *s, size_t n)
{
    graph_tmpl_piece pc;
    for (size_t i = 0; i < n;) {
        i += graph_tmpl_step(s, n, i, &pc);
        if (!pc.hole && isalpha((unsigned char)pc.lit))
            return true;
    }
    return false;
}

static msg_info print_message(px *x, const TSNode *pos, uint32_t npos, const py_scope *sc,
                              int depth)
{
    msg_info mi = {GRAPH_STYLE_NONE, NULL};
    bool literal = false;
    for (uint32_t i = 0; i < npos; i++) {
        if (i)
            graph__tmpl_literal(&x->tmpl, " ", 1);
        TSNode a = unparen(pos[i]);
        if (is_stringish(ty(a))) {
            msg_info sub = graph__py_build_message(x, a, false, sc, depth + 1);
            literal = true;
            if (sub.style == GRAPH_STYLE_FSTRING)
                mi.style = GRAPH_STYLE_FSTRING;
            continue;
        }
        /* A format filled in place (`"found %d files" % n`,
         * `"{} done".format(x)`, `"x: " + y`): its text and holes. */
        size_t at = x->tmpl.buf.len;
        uint32_t holes = x->tmpl.holes;
        msg_info sub = ty(a) == N_BINARY_OPERATOR || ty(a) == N_CALL
                           ? graph__py_build_message(x, a, false, sc, depth + 1)
                           : (msg_info){GRAPH_STYLE_DYNAMIC, NULL};
        /* (Words, not `"%s:%s: %s" % (file, line, text)`, which any
         * message with two colons would fit.) */
        if ((sub.style == GRAPH_STYLE_PERCENT || sub.style == GRAPH_STYLE_BRACE ||
             sub.style == GRAPH_STYLE_CONCAT) &&
            has_letter(x->tmpl.buf.data + at, x->tmpl.buf.len - at)) {
            literal = true;
            continue;
        }
        x->tmpl.buf.len = at;
        x->tmpl.holes = holes;
        graph__tmpl_hole(&x->tmpl);
    }
    if (mi.style == GRAPH_STYLE_NONE)
        mi.style = !literal    ? (npos ? GRAPH_STYLE_DYNAMIC : GRAPH_STYLE_NONE)
                   : npos == 1 ? GRAPH_STYLE_PLAIN
                               : GRAPH_STYLE_CONCAT;
    if (!literal)
        core_buf_reset(&x->tmpl.buf);
    return mi;
}

/*
 * `PATTERN % (...)` or `PATTERN.format(...)` where PATTERN is a local bound
 * to a literal on every path to `at` (a format kept in a local before it
 * is filled): its template into x->tmpl, as the literal's would be.
 */
static msg_info local_format(px *x, TSNode v, TSNode at, const py_scope *sc, int depth)
{
    msg_info mi = {GRAPH_STYLE_DYNAMIC, NULL};
    bool brace;
    TSNode lit = graph__py_bound_format(x, filled_format(x, v, &brace), at, sc);
    if (is_null(lit))
        return mi;
    graph__tmpl_clear(&x->tmpl);
    if (brace) {
        graph__py_tmpl_strings(x, lit, SM_BRACE);
        mi.style = GRAPH_STYLE_BRACE;
    } else {
        graph__py_build_message(x, lit, true, sc, depth + 1);
        mi.style = GRAPH_STYLE_PERCENT;
    }
    return mi;
}

/* Records the emit site(s) of a call read by plan pl: one, or one per
 * message a local passed as the message may hold. */
void graph__py_make_emit(px *x, TSNode call, const emit_plan *pl, const py_scope *sc, int depth)
{
    TSNode args = fieldn(call, F_ARGUMENTS);
    gx_emit em = {0};
    em.kind = (uint8_t)pl->kind;
    em.level = (uint8_t)pl->level;
    em.receiver = pl->receiver;
    em.method = pl->method;
    em.logger = pl->logger;
    em.sym = sc->sym;
    em.line = gx_line(call);
    em.flags = pl->flags | (uint32_t)x->emit_flags;
    /* Positional arguments and the keywords that matter. */
    TSNode pos[64];
    uint32_t npos = 0;
    TSNode kwmsg = gx_null();
    fill_args fa = {.at = call};
    /* By cursor: indexing children one by one is quadratic, and calls
     * with thousands of arguments exist. The cursor at this depth is free:
     * the caller iterates only after this returns. */
    uint32_t npos_all = 0;
    if (!is_null(args)) {
        TSTreeCursor *c = gx_cursor(&x->cur, depth, args);
        bool more = ts_tree_cursor_goto_first_child(c);
        for (; more; more = ts_tree_cursor_goto_next_sibling(c)) {
            TSNode a = ts_tree_cursor_current_node(c);
            if (!ts_node_is_named(a))
                continue;
            unsigned t = ty(a);
            if (t == N_KEYWORD_ARGUMENT) {
                TSNode k = fieldn(a, F_NAME);
                if (is_null(k))
                    continue;
                if (pl->msg_kw && text_eq(x, k, pl->msg_kw))
                    kwmsg = fieldn(a, F_VALUE);
                if (text_eq(x, k, "exc_info"))
                    em.flags |= GRAPH_EF_EXC_INFO;
                if (fa.nkw < FILL_KEYWORDS) {
                    fa.kw_name[fa.nkw] = k;
                    fa.kw_value[fa.nkw++] = fieldn(a, F_VALUE);
                }
                continue;
            }
            if (t == N_COMMENT)
                continue;
            npos_all++;
            if (npos < sizeof pos / sizeof pos[0])
                pos[npos++] = a;
        }
    }
    msg_info mi = {GRAPH_STYLE_NONE, NULL};
    if (pl->msg_index < 0) {
        mi = print_message(x, pos, npos, sc, depth);
        fa.nkw = 0;
        em.nargs = npos_all;
        if (npos_all > npos)
            em.flags |= GRAPH_EF_TRUNCATED;
    } else if (pl->has_fmt) {
        /* A partial's bound message: the call's arguments follow the
         * ones bound with it, which fill its first holes. */
        em.nargs = npos_all + pl->pre;
        mi = graph__py_build_message(x, pl->fmt, em.nargs > 0, sc, depth + 1);
        fa.nkw = 0;
        if (pl->pre == 0) {
            fa.pos = pos;
            fa.npos = npos;
        }
    } else {
        TSNode msg = (uint32_t)pl->msg_index < npos ? pos[pl->msg_index] : kwmsg;
        /* log.log(*adapter(entry)): the level and message come unpacked
         * from a value made at run time. */
        bool unpacked = false;
        for (uint32_t i = 0; i < npos && i <= (uint32_t)pl->msg_index && !unpacked; i++)
            unpacked = ty(pos[i]) == N_LIST_SPLAT;
        if (unpacked) {
            em.style = GRAPH_STYLE_DYNAMIC;
            em.nargs = 0;
            core_vec_push(&x->f->emits, em);
            if (pl->kind == GRAPH_EMIT_LOG)
                graph__mark_logs(x->f, sc->sym, GRAPH_STYLE_DYNAMIC);
            return;
        }
        uint32_t after =
            (uint32_t)pl->msg_index < npos ? npos_all - (uint32_t)pl->msg_index - 1 : 0;
        em.nargs = after;
        bool fmt = (pl->kind == GRAPH_EMIT_LOG || pl->kind == GRAPH_EMIT_CALL) && after > 0;
        /* A message built in a local before the call: one site per
         * message it may hold, all on this line (the matcher takes any).
         * If none is known, the name is kept as a reference, as before. */
        local_msg lm[LOCAL_MAX_ALTS];
        uint32_t nl = is_null(msg) ? 0
                                   : graph__py_local_messages(x, unparen(msg), call, fmt, sc,
                                                              depth + 1, lm, LOCAL_MAX_ALTS);
        for (uint32_t i = 0; i < nl; i++) {
            gx_emit alt = em;
            alt.style = lm[i].style;
            alt.tmpl = lm[i].tmpl;
            alt.flags |= lm[i].flags;
            core_vec_push(&x->f->emits, alt);
            if (pl->kind == GRAPH_EMIT_LOG)
                graph__mark_logs(x->f, sc->sym, (graph_style)alt.style);
        }
        if (nl)
            return;
        if (!is_null(msg))
            mi = graph__py_build_message(x, msg, fmt, sc, depth + 1);
        /* `msg = "... {ip}: {error}"; log.debug(msg.format(...))`: the
         * format kept in a local, filled in the call. */
        if (!is_null(msg) && (mi.style == GRAPH_STYLE_REF || mi.style == GRAPH_STYLE_DYNAMIC)) {
            msg_info lf = local_format(x, unparen(msg), call, sc, depth);
            if (lf.style != GRAPH_STYLE_DYNAMIC)
                mi = lf;
        }
        /* The holes of a literal message are this call's arguments. */
        bool literal_msg = !is_null(msg) && is_stringish(ty(unparen(msg)));
        if (literal_msg && (uint32_t)pl->msg_index < npos) {
            fa.pos = pos + pl->msg_index + 1;
            fa.npos = npos - (uint32_t)pl->msg_index - 1;
        } else if (!literal_msg) {
            fa.nkw = 0;
        }
    }
    em.style = (uint8_t)mi.style;
    em.ref = mi.ref;
    em.tmpl = graph__tmpl_take(&x->tmpl, x->f, &em.flags);
    /* What a function of ours returns, called here or bound to a local
     * before (`text = self.line.render(...)`; a local reads as a name). */
    if (pl->kind == GRAPH_EMIT_LOG &&
        (mi.style == GRAPH_STYLE_DYNAMIC || mi.style == GRAPH_STYLE_REF) && pl->msg_index >= 0 &&
        (uint32_t)pl->msg_index < npos)
        em.ret = graph__py_result_of(x, pos[pl->msg_index], call, sc);
    graph__py_push_filled(x, &em, &fa, sc);
    if (pl->kind == GRAPH_EMIT_LOG)
        graph__mark_logs(x->f, sc->sym, mi.style);
}

/* A span started as the current one (`with tracer.start_as_current_span(...)`,
 * or as a decorator) records an exception that leaves its block as a span
 * event named "exception": the SDK's default, with no literal in the code
 * for it, unless the call says record_exception=False. A site of its own,
 * on the span's line. */
void graph__py_exception_event(px *x, TSNode call, const emit_plan *pl, const py_scope *sc)
{
    TSNode args = fieldn(call, F_ARGUMENTS);
    uint32_t k = is_null(args) ? 0 : ts_node_named_child_count(args);
    for (uint32_t i = 0; i < k; i++) {
        TSNode a = ts_node_named_child(args, i);
        if (ty(a) != N_KEYWORD_ARGUMENT)
            continue;
        TSNode name = fieldn(a, F_NAME), v = fieldn(a, F_VALUE);
        if (!is_null(name) && !is_null(v) && text_eq(x, name, "record_exception") &&
            text_eq(x, v, "False"))
            return;
    }
    gx_emit em = {0};
    em.kind = GRAPH_EMIT_EVENT;
    em.style = GRAPH_STYLE_PLAIN;
    em.tmpl = "exception";
    em.receiver = pl->receiver;
    em.method = "record_exception";
    em.sym = sc->sym;
    em.line = gx_line(call);
    em.flags = (uint32_t)x->emit_flags;
    core_vec_push(&x->f->emits, em);
}

/* ---- assignments ---- */

/* A constant this file defined before at path: a module's (`NAME`), one
 * of the enclosing class's body, or a module-level class's
 * (`Class.NAME`); NULL if none. */
static const gx_emit *earlier_const(px *x, const char *path, const py_scope *sc)
{
    const char *dot = strchr(path, '.');
    if (dot && strchr(dot + 1, '.'))
        return NULL;
    const char *name = dot ? dot + 1 : path;
    for (size_t i = x->f->emits.n; i-- > 0;) {
        const gx_emit *e = &x->f->emits.v[i];
        if (e->kind != GRAPH_EMIT_CONST || !e->name || !e->tmpl || strcmp(e->name, name) != 0)
            continue;
        if (!dot && (e->sym == -1 || e->sym == sc->sym))
            return e;
        if (dot && e->sym >= 0) {
            const gx_sym *c = &x->f->syms.v[e->sym];
            if (c->kind == GRAPH_SYM_CLASS && c->parent == -1 &&
                strlen(c->name) == (size_t)(dot - path) &&
                memcmp(c->name, path, (size_t)(dot - path)) == 0)
                return e;
        }
    }
    return NULL;
}

/* `VERBOSE = CallLine.FORMAT + " req={req_bytes}B"`: a format extended
 * by concatenation with constants this file defined before it
 * (earlier_const), their templates as they are and the literal pieces
 * read in their style (str.format fields when one is a brace format).
 * False, the template empty, when a piece is anything else. */
static bool extended_const(px *x, TSNode v, const py_scope *sc, int depth, gx_emit *em)
{
    TSNode parts[16];
    const gx_emit *refs[16] = {0};
    uint32_t np = graph__py_plus_parts(v, parts, 16, 0, 0);
    bool any = false, brace = false;
    for (uint32_t i = 0; i < np; i++) {
        TSNode p = unparen(parts[i]);
        if (ty(p) == N_STRING || ty(p) == N_CONCATENATED_STRING)
            continue;
        const char *path =
            ty(p) == N_IDENTIFIER || ty(p) == N_ATTRIBUTE ? graph__py_path_of(x, p, sc, 0) : NULL;
        if (!path || !(refs[i] = earlier_const(x, path, sc)))
            return false;
        any = true;
        brace |= refs[i]->style == GRAPH_STYLE_BRACE;
    }
    if (np < 2 || !any)
        return false;
    graph__tmpl_clear(&x->tmpl);
    for (uint32_t i = 0; i < np; i++) {
        if (refs[i]) {
            graph__tmpl_format(&x->tmpl, refs[i]->tmpl, strlen(refs[i]->tmpl));
        } else if (brace) {
            graph__py_tmpl_strings(x, unparen(parts[i]), SM_BRACE);
        } else {
            graph__py_build_message(x, unparen(parts[i]), true, sc, depth + 1);
        }
    }
    em->style = !x->tmpl.holes ? GRAPH_STYLE_PLAIN
                : brace        ? GRAPH_STYLE_BRACE
                               : GRAPH_STYLE_PERCENT;
    return true;
}

void graph__py_add_const(px *x, const char *name, TSNode value, const py_scope *sc, int depth)
{
    /* A constant's use is not known here; most are formats for logging
     * or str.format. %-directives are kept as holes, and a string with
     * {fields} and no directive is read as a str.format template. */
    TSNode v = unparen(value);
    gx_emit em = {0};
    em.kind = GRAPH_EMIT_CONST;
    em.name = name;
    em.sym = sc->sym;
    em.line = gx_line(value);
    em.receiver = "";
    em.method = "";
    const char *dollar = graph__py_dollar_template(x, v, sc);
    if (dollar) {
        /* WELCOME = Template("Welcome $user"): its $-fields are holes. */
        graph__tmpl_clear(&x->tmpl);
        graph__tmpl_dollar(&x->tmpl, dollar, strlen(dollar));
        em.style = x->tmpl.holes ? GRAPH_STYLE_BRACE : GRAPH_STYLE_PLAIN;
    } else if (ty(v) == N_STRING || ty(v) == N_CONCATENATED_STRING) {
        graph__py_build_message(x, v, true, sc, depth + 1);
        const char *t = x->tmpl.buf.data ? x->tmpl.buf.data : "";
        if (x->tmpl.holes == 0 && strchr(t, '{') && strchr(t, '}')) {
            graph__tmpl_clear(&x->tmpl);
            graph__py_tmpl_strings(x, v, SM_BRACE);
            em.style = x->tmpl.holes ? GRAPH_STYLE_BRACE : GRAPH_STYLE_PLAIN;
        } else {
            graph__tmpl_log_format(&x->tmpl);
            em.style = x->tmpl.holes ? GRAPH_STYLE_PERCENT : GRAPH_STYLE_PLAIN;
        }
    } else if (ty(v) == N_BINARY_OPERATOR && binop(v) == A_PLUS &&
               extended_const(x, v, sc, depth, &em)) {
        /* (extended_const built the template) */
    } else {
        /* `"Scraped from %(src)s" + "\n" + "%(item)s"`: one format in
         * pieces, whose directives are holes as in one literal. */
        bool joined = ty(v) == N_BINARY_OPERATOR && binop(v) == A_PLUS;
        msg_info mi = graph__py_build_message(x, v, joined, sc, depth + 1);
        if (joined && mi.style == GRAPH_STYLE_CONCAT)
            graph__tmpl_log_format(&x->tmpl);
        em.style = (uint8_t)mi.style;
        if (mi.style == GRAPH_STYLE_DYNAMIC || mi.style == GRAPH_STYLE_REF) {
            graph__tmpl_clear(&x->tmpl);
            return;
        }
    }
    em.tmpl = graph__tmpl_take(&x->tmpl, x->f, &em.flags);
    if (em.tmpl)
        core_vec_push(&x->f->emits, em);
}

/* A returned format's site (an unnamed constant of the function). */
static void push_returned(px *x, uint8_t style, const char *ref, TSNode at, uint32_t flags,
                          const py_scope *sc)
{
    gx_emit em = {0};
    em.kind = GRAPH_EMIT_CONST;
    em.style = style;
    em.name = "";
    em.sym = sc->sym;
    em.line = gx_line(at);
    em.receiver = "";
    em.method = "";
    em.ref = ref;
    em.flags = flags;
    if (!ref) {
        em.tmpl = graph__tmpl_take(&x->tmpl, x->f, &em.flags);
        if (!em.tmpl)
            return;
    }
    core_vec_push(&x->f->emits, em);
}

/*
 * A structure returned with a format in it (`return {"msg": DROPPED,
 * "args": {...}}`, `return "%s: %s", (k, v)`): the function makes a
 * message that its callers hand to logging with the rest, as one that
 * returns the format alone. A literal with holes is such a format; a
 * name is one when it names a constant with holes (resolve_edges.c).
 */
static void add_returned_members(px *x, TSNode v, const py_scope *sc, int depth)
{
    uint32_t nc = ts_node_named_child_count(v);
    for (uint32_t i = 0; i < nc && i < 16; i++) {
        TSNode m = ts_node_named_child(v, i);
        if (ty(m) == N_PAIR)
            m = fieldn(m, F_VALUE);
        m = unparen(m);
        unsigned t = ty(m);
        if (t == N_STRING || t == N_CONCATENATED_STRING) {
            msg_info mi = graph__py_build_message(x, m, true, sc, depth + 1);
            if (mi.style == GRAPH_STYLE_PERCENT && x->tmpl.holes)
                push_returned(x, GRAPH_STYLE_PERCENT, NULL, m, GRAPH_EF_MEMBER, sc);
            graph__tmpl_clear(&x->tmpl);
        } else if (t == N_IDENTIFIER || t == N_ATTRIBUTE) {
            const char *path = graph__py_path_of(x, m, sc, 0);
            if (path)
                push_returned(x, GRAPH_STYLE_REF, path, m, GRAPH_EF_MEMBER, sc);
        }
    }
}

/* Whether a value of node type t may be a format a function returns. */
static bool may_format(unsigned t)
{
    return t == N_BINARY_OPERATOR || t == N_CALL || t == N_STRING || t == N_CONCATENATED_STRING;
}

void graph__py_add_returned(px *x, TSNode value, const py_scope *sc, int depth)
{
    TSNode v = unparen(value);
    unsigned t = ty(v);
    if (t == N_DICTIONARY || t == N_TUPLE || t == N_LIST || t == N_EXPRESSION_LIST) {
        add_returned_members(x, v, sc, depth);
        /* `return [sql, "begin"]`, the statements a caller goes through
         * one by one: a local among them is each format bound to it. */
        uint32_t nc = t == N_LIST ? ts_node_named_child_count(v) : 0;
        for (uint32_t i = 0; i < nc && i < 16; i++) {
            TSNode m = unparen(ts_node_named_child(v, i)), b[LOCAL_MAX_ALTS];
            uint32_t nb = ty(m) == N_IDENTIFIER
                              ? graph__py_bound_values(x, m, value, sc, b, LOCAL_MAX_ALTS)
                              : 0;
            for (uint32_t k = 0; k < nb; k++)
                if (may_format(ty(unparen(b[k]))))
                    graph__py_add_returned(x, b[k], sc, depth + 1);
        }
        return;
    }
    if (!may_format(t))
        return;
    msg_info mi = graph__py_build_message(x, v, false, sc, depth + 1);
    const char *ref = mi.style == GRAPH_STYLE_REF ? mi.ref : NULL;
    if (mi.style == GRAPH_STYLE_REF || mi.style == GRAPH_STYLE_DYNAMIC)
        mi = local_format(x, v, value, sc, depth);
    /* `return FORMAT.format(**fields)`, `return self.FORMAT % atoms`: the
     * format a constant holds, when it has holes (returned_members in
     * resolve_edges.c); a local's is read above. */
    if (ref && (mi.style == GRAPH_STYLE_REF || mi.style == GRAPH_STYLE_DYNAMIC) && t != N_STRING &&
        t != N_CONCATENATED_STRING) {
        graph__tmpl_clear(&x->tmpl);
        push_returned(x, GRAPH_STYLE_REF, ref, value, 0, sc);
        return;
    }
    bool formats = mi.style == GRAPH_STYLE_PERCENT || mi.style == GRAPH_STYLE_BRACE ||
                   mi.style == GRAPH_STYLE_FSTRING || mi.style == GRAPH_STYLE_CONCAT;
    if (!formats || x->tmpl.holes == 0) {
        graph__tmpl_clear(&x->tmpl);
        return;
    }
    push_returned(x, (uint8_t)mi.style, NULL, value, 0, sc);
}

/* Whether value v is a new list (`[]`, `[...]`, `list()`). */
static bool new_list(px *x, TSNode v)
{
    v = unparen(v);
    if (is_null(v))
        return false;
    if (ty(v) == N_LIST)
        return true;
    TSNode fn = ty(v) == N_CALL ? fieldn(v, F_FUNCTION) : gx_null();
    return !is_null(fn) && ty(fn) == N_IDENTIFIER && text_eq(x, fn, "list");
}

/*
 * `lines.append("Looking in links: {}".format(...))`, where lines is a
 * list the function made and returns, whole or joined (`return
 * "\n".join(lines)`): the message is built in pieces for the function's
 * callers to log (`logger.info(scope.formatted())`), and the list's
 * method logs nothing. Each piece is a format the function returns.
 */
bool graph__py_list_piece(px *x, TSNode call, TSNode fn, const char *callee, const py_scope *sc,
                          int depth)
{
    const char *last = callee ? gx_last_component(callee) : NULL;
    if (!sc->in_function || !last || (strcmp(last, "append") != 0 && strcmp(last, "insert") != 0) ||
        is_null(fn) || ty(fn) != N_ATTRIBUTE)
        return false;
    /* (The callee's last name is the attribute's: where the piece goes.) */
    uint32_t pos = strcmp(last, "append") == 0 ? 0 : 1;
    TSNode obj = fieldn(fn, F_OBJECT), args = fieldn(call, F_ARGUMENTS);
    if (is_null(obj) || ty(obj) != N_IDENTIFIER || is_null(args) || ty(args) != N_ARGUMENT_LIST ||
        ts_node_named_child_count(args) != pos + 1)
        return false;
    TSNode b[LOCAL_MAX_ALTS];
    uint32_t nb = graph__py_bound_values(x, obj, call, sc, b, LOCAL_MAX_ALTS);
    if (nb == 0)
        return false;
    for (uint32_t k = 0; k < nb; k++)
        if (!new_list(x, b[k]))
            return false;
    if (!graph__py_returns_list(x, sc->fn, obj))
        return false;
    TSNode a = ts_node_named_child(args, pos);
    if (!message_arg(x, a, 0))
        return true;
    msg_info mi = graph__py_build_message(x, a, false, sc, depth + 1);
    if (mi.style == GRAPH_STYLE_DYNAMIC || mi.style == GRAPH_STYLE_REF) {
        graph__tmpl_clear(&x->tmpl);
        return true;
    }
    push_returned(x, (uint8_t)mi.style, NULL, a, 0, sc);
    return true;
}
