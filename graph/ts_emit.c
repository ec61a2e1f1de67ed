/*
 * TypeScript/JavaScript extraction: emit sites. Which calls log (logger
 * methods and aliases, console, debug-style functions, spans and span
 * events), which other calls are candidate sites, what each one's
 * message is; and the string constants a message may be kept in.
 */
#include "ts_int.h"

#include <string.h>

/* The level a winston-style first argument names ('info', Level.WARN). */
static graph_level level_arg(tx *x, TSNode a)
{
    a = unwrap(x, a);
    const char *s = NULL;
    size_t n = 0;
    if (ty(x, a) == N_STRING) {
        s = graph__ts_decode_string(x, a, &n);
    } else if (ty(x, a) == N_MEMBER_EXPRESSION) {
        TSNode prop = fld(x, a, F_PROPERTY);
        if (is_null(prop))
            return GRAPH_LEVEL_NONE;
        s = x->src + ts_node_start_byte(prop);
        n = ts_node_end_byte(prop) - ts_node_start_byte(prop);
    }
    return s ? graph__level_of_word(s, n) : GRAPH_LEVEL_NONE;
}

/* A logging call whose method is chosen at run time: `console[level](...)`,
 * `log[lvl](...)` on a logger, `(failed ? console.error : console.log)(...)`.
 * Its level is the run's; the rest reads as the receiver's methods do. */
static bool plan_chosen_method(tx *x, TSNode fn, emit_plan *pl)
{
    unsigned ft = ty(x, fn);
    const char *recv = NULL;
    if (ft == N_SUBSCRIPT_EXPRESSION) {
        recv = graph__ts_path_of(x, fld(x, fn, F_OBJECT), 0);
    } else if (ft == N_PARENTHESIZED_EXPRESSION) {
        TSNode t = unwrap(x, fn);
        if (ty(x, t) != N_TERNARY_EXPRESSION)
            return false;
        TSNode b[2] = {unwrap(x, fld(x, t, F_CONSEQUENCE)), unwrap(x, fld(x, t, F_ALTERNATIVE))};
        for (int i = 0; i < 2; i++) {
            if (ty(x, b[i]) != N_MEMBER_EXPRESSION)
                return false;
            const char *r = graph__ts_path_of(x, fld(x, b[i], F_OBJECT), 0);
            TSNode prop = fld(x, b[i], F_PROPERTY);
            if (!r || empty_node(prop) || (recv && strcmp(r, recv) != 0))
                return false;
            const char *m = x->src + ts_node_start_byte(prop);
            size_t ml = ts_node_end_byte(prop) - ts_node_start_byte(prop);
            if (graph_level_of_method(m, ml) == GRAPH_LEVEL_NONE &&
                !(ml == 3 && !memcmp(m, "log", 3)))
                return false;
            recv = r;
        }
    }
    if (!recv)
        return false;
    bool console = graph__ts_is_console(recv);
    if (!console && !graph__ts_logger_recv(x, recv))
        return false;
    const ts_logger *lg = console ? NULL : graph__ts_logger_of(x, recv);
    pl->kind = GRAPH_EMIT_LOG;
    pl->level = GRAPH_LEVEL_CUSTOM;
    pl->receiver = recv;
    pl->method = "?";
    pl->logger = lg ? lg->logger : NULL;
    pl->how = console ? H_UTIL : H_LOGGER;
    return true;
}

/* A logging call of recv's method at a level, read as how says. */
static bool plan_log(emit_plan *pl, graph_level level, const char *recv, const char *method,
                     int how)
{
    pl->kind = GRAPH_EMIT_LOG;
    pl->level = level;
    pl->receiver = recv;
    pl->method = method;
    pl->how = how;
    return true;
}

/* A logger's method per kind of message handed one object of fields
 * (`logger.logQuery({ level, took, query })`): the message is the field
 * the method names (`query`), else its `message`. */
static void plan_kind_object(tx *x, TSNode call, const char *method, emit_plan *pl, int depth)
{
    TSNode av[2];
    if (graph__ts_collect_args(x, fld(x, call, F_ARGUMENTS), av, 2, depth) != 1)
        return;
    TSNode o = unwrap(x, av[0]);
    if (ty(x, o) != N_OBJECT)
        return;
    char *kind = core_arena_strndup(&x->f->arena, method + 3, strlen(method + 3));
    kind[0] = (char)(kind[0] - 'A' + 'a');
    const char *keys[] = {kind, "message"};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++)
        if (!is_null(graph__ts_object_key(x, o, keys[i], depth + 1))) {
            pl->how = H_OBJECT;
            pl->key = keys[i];
            return;
        }
}

/* Decides whether a call is an emit site, and how to read it. */
NOINLINE bool graph__ts_plan_emit(tx *x, TSNode call, TSNode fn, const char *path, emit_plan *pl,
                                  const ts_scope *sc, int depth)
{
    memset(pl, 0, sizeof *pl);
    unsigned ft = ty(x, fn);
    if (!path && (ft == N_SUBSCRIPT_EXPRESSION || ft == N_PARENTHESIZED_EXPRESSION))
        return plan_chosen_method(x, fn, pl);
    /* A name, or an attribute (`this.log = opts.log || createDebug('ns')`),
     * bound to a debug logger or a logger's method. */
    const ts_logger *bl = path && (ft == N_IDENTIFIER || ft == N_MEMBER_EXPRESSION)
                              ? graph__ts_find_logger(x, path)
                              : NULL;
    bool bound = bl && (bl->what == LG_ALIAS || bl->what == LG_FUNC);
    if (ft == N_IDENTIFIER && !bound)
        return false;
    if (bound) {
        pl->kind = GRAPH_EMIT_LOG;
        pl->level = bl->level;
        pl->receiver = path;
        pl->method = bl->method;
        pl->logger = bl->logger;
        if (bl->what == LG_ALIAS) {
            pl->flags = GRAPH_EF_ALIAS;
            pl->how = bl->console ? H_UTIL : H_LOGGER;
        } else {
            pl->how = H_UTIL;
        }
        return true;
    }
    if (ft != N_MEMBER_EXPRESSION)
        return false;
    TSNode prop = fld(x, fn, F_PROPERTY);
    if (empty_node(prop))
        return false;
    const char *method = text(x, prop);
    size_t ml = strlen(method);
    const char *recv = path && strlen(path) > ml
                           ? core_arena_strndup(&x->f->arena, path, strlen(path) - ml - 1)
                           : NULL;
    if (strcmp(method, "startActiveSpan") == 0 || strcmp(method, "startSpan") == 0 ||
        strcmp(method, "addEvent") == 0) {
        pl->kind = method[0] == 'a' ? GRAPH_EMIT_EVENT : GRAPH_EMIT_SPAN;
        pl->receiver = recv ? recv : "?";
        pl->method = method;
        pl->how = H_NAME;
        return true;
    }
    /* console.count(label) writes "label: 3", console.timeEnd(label)
     * and timeLog(label) "label: 1.234ms": the label is the message. A
     * logger with timers of its own renders them alike ("label: 84.58
     * ms"), a sum of several (timeAggregateEnd) too. */
    bool timer = !strcmp(method, "timeEnd") || !strcmp(method, "timeLog") ||
                 !strcmp(method, "timeAggregateEnd");
    bool console = recv && graph__ts_is_console(recv);
    if ((console && (timer || !strcmp(method, "count"))) ||
        (timer && !console && graph__ts_logger_recv(x, recv))) {
        pl->suffix = method[0] == 'c' ? ": %d" : ": %s";
        const ts_logger *lg = console ? NULL : graph__ts_logger_of(x, recv);
        pl->logger = lg ? lg->logger : NULL;
        return plan_log(pl, GRAPH_LEVEL_INFO, recv, method, H_NAME);
    }
    /* process.emitWarning(text, type, code): Node prints the text after
     * `(node:PID) [code] type: `; the type and the code are no part of
     * the message. */
    if (recv && !strcmp(recv, "process") && !strcmp(method, "emitWarning"))
        return plan_log(pl, GRAPH_LEVEL_WARNING, recv, method, H_NAME);
    /* process.stdout.write(text): a line printed as console.log prints
     * one, without its formatting (the text is all there is). */
    bool out = recv && !strcmp(recv, "process.stdout");
    if (!strcmp(method, "write") && (out || (recv && !strcmp(recv, "process.stderr"))))
        return plan_log(pl, out ? GRAPH_LEVEL_INFO : GRAPH_LEVEL_ERROR, recv, method, H_UTIL);
    bool is_log = strcmp(method, "log") == 0;
    graph_level lvl = graph_level_of_method(method, ml);
    /* A logger's method per kind of message (`logger.logQuery(sql)`,
     * `logger.logMigration(msg)`): a level of its own making. */
    bool log_kind = lvl == GRAPH_LEVEL_NONE && ml > 3 && memcmp(method, "log", 3) == 0 &&
                    method[3] >= 'A' && method[3] <= 'Z';
    if (lvl == GRAPH_LEVEL_NONE && !is_log && !log_kind)
        return false;
    if (recv && graph__ts_is_console(recv)) {
        if (log_kind ||
            !(is_log || !strcmp(method, "info") || !strcmp(method, "warn") ||
              !strcmp(method, "error") || !strcmp(method, "debug") || !strcmp(method, "trace")))
            return false;
        return plan_log(pl, is_log ? GRAPH_LEVEL_INFO : lvl, recv, method, H_UTIL);
    }
    const char *lname = NULL;
    if (recv) {
        if (!graph__ts_logger_recv(x, recv))
            return false;
        const ts_logger *lg = graph__ts_logger_of(x, recv);
        if (lg)
            lname = lg->logger;
    } else {
        /* log4js.getLogger('x').info(...), logger.child({...}).warn(...) */
        TSNode obj = unwrap(x, fld(x, fn, F_OBJECT));
        if (!graph__ts_logger_factory(x, obj, &lname, depth))
            return false;
        const char *fp = graph__ts_path_of(x, fld(x, obj, F_FUNCTION), 0);
        recv = "?";
        if (fp) {
            size_t l = strlen(fp);
            char *r = core_arena_alloc(&x->f->arena, l + 3);
            snprintf(r, l + 3, "%s()", fp);
            recv = r;
        }
    }
    pl->kind = GRAPH_EMIT_LOG;
    pl->receiver = recv;
    pl->method = method;
    pl->logger = lname;
    pl->how = H_LOGGER;
    pl->level = log_kind ? GRAPH_LEVEL_CUSTOM : lvl;
    if (log_kind)
        plan_kind_object(x, call, method, pl, depth);
    if (is_log) {
        /* winston: logger.log('info', 'msg'); otherwise log() is info. */
        TSNode args = fld(x, call, F_ARGUMENTS);
        graph_level la = GRAPH_LEVEL_NONE;
        TSNode a0 =
            ty(x, args) == N_ARGUMENTS ? unwrap(x, ts_node_named_child(args, 0)) : gx_null();
        if (ty(x, a0) == N_OBJECT) {
            /* logger.log({ level: 'info', message: '...' }) */
            TSNode lv = graph__ts_object_key(x, a0, "level", depth);
            if (!is_null(lv)) {
                la = level_arg(x, lv);
                pl->level = la != GRAPH_LEVEL_NONE ? la : GRAPH_LEVEL_CUSTOM;
                pl->how = H_OBJECT;
                return true;
            }
        }
        if (ty(x, args) == N_ARGUMENTS && ts_node_named_child_count(args) >= 2) {
            la = level_arg(x, a0);
            /* log(level, msg) in a wrapper: the level is the caller's. */
            const ts_param *lp = graph__ts_param_named(x, sc, a0);
            if (la == GRAPH_LEVEL_NONE && lp && lp->levelish && !lp->rest)
                la = GRAPH_LEVEL_CUSTOM;
        }
        if (la != GRAPH_LEVEL_NONE) {
            pl->level = la;
            pl->msg_index = 1;
        } else {
            pl->level = GRAPH_LEVEL_INFO;
        }
    }
    return true;
}

/* The longest bare word read as a name before a message, and the most
 * such words before it. */
#define WORD_MAX 32
#define WORDS_MAX 2

/* Whether a is a string literal holding one bare word (`'debug'`,
 * `'fetch:start'`): a name, not a sentence. */
static bool bare_word(tx *x, TSNode a)
{
    if (ty(x, a) != N_STRING)
        return false;
    const char *v = graph__ts_string_value(x, a);
    size_t n = v ? strlen(v) : 0;
    if (n == 0 || n > WORD_MAX)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = v[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-' || c == '.' || c == ':'))
            return false;
    }
    return true;
}

/* Whether a reads as a sentence: a template or a concatenation with
 * literal parts, or a string literal with a space in it (a bare word has
 * none). */
static bool sentence(tx *x, TSNode a)
{
    if (ty(x, a) == N_STRING) {
        const char *v = graph__ts_string_value(x, a);
        return v && strchr(v, ' ');
    }
    return graph__ts_stringish(x, a, 0);
}

/*
 * A call no listed shape recognises: a candidate emit site (GRAPH_EMIT_CALL)
 * when an argument reads as a message (a string, a template literal, a
 * concatenation with literal parts), the first such one starting the
 * message as util.format reads it (its directives take the arguments
 * after it, the rest are appended). Else the first argument that names a
 * constant (CAPS_WITH_UNDERSCORES), a format kept elsewhere. Whether the
 * callee logs is for the log to say.
 */
NOINLINE bool graph__ts_plan_candidate(tx *x, TSNode call, const char *callee, emit_plan *pl,
                                       const ts_scope *sc, int depth)
{
    memset(pl, 0, sizeof *pl);
    TSNode av[ARGS_MAX];
    uint32_t total = graph__ts_collect_args(x, fld(x, call, F_ARGUMENTS), av, ARGS_MAX, depth);
    uint32_t na = total > ARGS_MAX ? ARGS_MAX : total;
    int32_t idx = -1, ref = -1;
    /* util.format's first argument is its format, whatever it is: a
     * table's entry (`MESSAGES.notFound`) before a literal argument (a
     * parameter is a wrapper's, placed by its callers). */
    if (na && graph__ts_util_format_path(callee)) {
        TSNode a = unwrap(x, av[0]);
        unsigned t = ty(x, a);
        if ((t == N_IDENTIFIER || t == N_MEMBER_EXPRESSION || t == N_SUBSCRIPT_EXPRESSION) &&
            graph__ts_path_of(x, a, 0) && !graph__ts_param_named(x, sc, a))
            idx = 0;
    }
    for (uint32_t i = 0; i < na && idx < 0; i++) {
        TSNode a = unwrap(x, av[i]);
        unsigned t = ty(x, a);
        if (t == N_SPREAD_ELEMENT)
            break;
        if (graph__ts_stringish(x, a, 0)) {
            idx = (int32_t)i;
        } else if (ref < 0 && (t == N_IDENTIFIER || t == N_MEMBER_EXPRESSION)) {
            const char *p = graph__ts_path_of(x, a, 0);
            const char *l = p ? gx_last_component(p) : NULL;
            if (l && graph__const_like(l, strlen(l)))
                ref = (int32_t)i;
        }
    }
    if (idx < 0)
        idx = ref;
    /* A bare word is a name handed beside a message (`this.execute(sql,
     * params, 'run')`): a message built in a local before it is the
     * message, alone. */
    bool alone = false;
    if (idx >= 0 && bare_word(x, unwrap(x, av[idx])))
        for (int32_t i = 0; i < idx && !alone; i++)
            if (ty(x, unwrap(x, av[i])) != N_SPREAD_ELEMENT &&
                graph__ts_local_message(x, unwrap(x, av[i]), call, sc)) {
                idx = i;
                alone = true;
            }
    /* Else a message built in a local before the call (see
     * graph__ts_local_values()). */
    for (uint32_t i = 0; i < na && idx < 0; i++) {
        TSNode a = unwrap(x, av[i]);
        if (ty(x, a) == N_SPREAD_ELEMENT)
            break;
        if (graph__ts_local_message(x, a, call, sc))
            idx = (int32_t)i;
    }
    /* Else an object whose `message` reads as a sentence: the callee may
     * make a record of it, as a logger's log({ level, message }) or its
     * profiler's done({ message }) do. */
    bool object = false;
    for (uint32_t i = 0; i < na && idx < 0; i++) {
        TSNode a = unwrap(x, av[i]);
        if (ty(x, a) == N_SPREAD_ELEMENT)
            break;
        TSNode v = graph__ts_object_key(x, a, "message", depth + 1);
        if (!is_null(v) && sentence(x, unwrap(x, v))) {
            idx = (int32_t)i;
            object = true;
        }
    }
    if (idx < 0)
        return false;
    /* `emit('debug', `handshake with ${host}`)`, `emit('log', 'warn',
     * msg)`: the words are an event's name or a level, or a prefix the
     * callee keeps apart from the message, as often as a part of it; the
     * sentence after them may be the message alone. */
    uint32_t w = (uint32_t)idx;
    while (w < na && w < (uint32_t)idx + WORDS_MAX && bare_word(x, unwrap(x, av[w])))
        w++;
    if (w > (uint32_t)idx && w < na && sentence(x, unwrap(x, av[w])))
        pl->after_word = w + 1;
    pl->kind = GRAPH_EMIT_CALL;
    graph__callee_split(x->f, callee, &pl->receiver, &pl->method);
    const ts_logger *named = graph__ts_find_logger(x, callee);
    if (named && named->what == LG_NAMED)
        pl->logger = named->logger;
    pl->msg_index = (uint32_t)idx;
    pl->alone = alone;
    pl->how = object ? H_OBJECT : H_UTIL;
    graph__cand_site(&x->cands, callee);
    if (graph__capwords(pl->method))
        pl->flags |= GRAPH_EF_CTOR;
    if (strcmp(callee, "@super.constructor") == 0) {
        /* `super(...)` in a constructor: a sentence it hands on is text
         * the object keeps, to be rendered elsewhere (an error's message,
         * logged by what catches it), made here as a constructor call's
         * is; the argument alone (`super(msg, { cause })`). A name
         * (`super('@scope/plugin', VERSION)`) is no message. */
        if (!sentence(x, unwrap(x, av[idx])))
            return false;
        pl->flags |= GRAPH_EF_CTOR;
        pl->how = H_NAME;
        pl->after_word = 0;
    }
    return true;
}

/* Whether a logger may keep the last of the k arguments of a logging call
 * out of its text, as metadata (winston's `logger.info('queued', {
 * subject })`, a logger's `info('Consumer has joined the group',
 * payload)`): an object literal, or a name or member, not a parameter,
 * that no directive of the message before it takes (util.format would
 * append it; a logger of fields would not). A candidate call's object
 * literal may be such fields too (`this.logDebug('Connecting', { ssl
 * })`). */
static bool kept_apart(tx *x, TSNode last, uint32_t k, const ts_scope *sc)
{
    unsigned t = ty(x, last);
    /* (A parameter is a wrapper's text, its callers' to say.) */
    return t == N_OBJECT || ((t == N_IDENTIFIER || t == N_MEMBER_EXPRESSION) &&
                             x->directives < k - 1 && !graph__ts_param_named(x, sc, last));
}

/* The template without the arguments util.format appended to it, or NULL
 * when it appended none. Of the loggers called with an object of fields
 * before the format, one renders util.format's way (bunyan), another
 * renders its directives by itself and drops what no directive takes
 * (pino): a fallback, as what the message shows decides between the
 * two. */
static const char *format_alone(tx *x)
{
    size_t at = x->appended_at;
    if (at == SIZE_MAX || at == 0 || at >= x->tmpl.buf.len)
        return NULL;
    return core_arena_strndup(&x->f->arena, x->tmpl.buf.data, at);
}

static void emit_from_args(tx *x, TSNode call, const emit_plan *pl, const ts_scope *sc,
                           const TSNode *av, uint32_t na, uint32_t total, int depth)
{
    gx_emit em = {0};
    em.kind = (uint8_t)pl->kind;
    em.level = (uint8_t)pl->level;
    em.receiver = pl->receiver;
    em.method = pl->method;
    em.logger = pl->logger;
    em.sym = sc->sym;
    em.line = gx_line(call);
    em.flags = pl->flags | x->emit_flags;
    msg_info mi = {GRAPH_STYLE_NONE, NULL};
    x->directives = 0;
    x->appended_at = SIZE_MAX;
    graph__tmpl_clear(&x->tmpl);
    /* The arguments util.format read, the format first: for filling the
     * template's holes with the literals among them. */
    const TSNode *fmt = NULL;
    uint32_t nfmt = 0;
    bool fields = false; /* an object of fields before the format */
    size_t titled = 0;   /* where the text after a title begins (npmlog) */
    if (pl->msg_index < na) {
        const TSNode *a = av + pl->msg_index;
        uint32_t k = na - pl->msg_index;
        if (pl->how == H_OBJECT || pl->how == H_NAME) {
            /* The message is a[0] itself, or its `message` property. */
            TSNode msg = pl->how == H_NAME
                             ? a[0]
                             : graph__ts_object_key(x, unwrap(x, a[0]),
                                                    pl->key ? pl->key : "message", depth + 1);
            if (!is_null(msg))
                mi = graph__ts_build_message(x, msg, M_LITERAL, NULL, depth + 1);
            if (mi.style == GRAPH_STYLE_DYNAMIC || mi.style == GRAPH_STYLE_REF)
                core_buf_reset(&x->tmpl.buf);
            em.nargs = k - 1;
        } else if (pl->how == H_LOGGER && k >= 2 && !graph__ts_stringish(x, a[0], 0) &&
                   graph__ts_stringish(x, a[1], 0)) {
            /* pino: (mergingObject, 'message %s', ...) */
            mi = graph__ts_util_format(x, a + 1, k - 1, depth + 1);
            fields = true;
            fmt = a + 1;
            nfmt = k - 1;
            em.nargs = k - 2;
        } else if (pl->how == H_LOGGER && k >= 2 && ty(x, unwrap(x, a[0])) == N_STRING &&
                   graph__ts_stringish(x, a[1], 0)) {
            /* npmlog / proc-log: (title, 'message %s', ...), unless the
             * first is itself a format. */
            size_t tl;
            const char *title = graph__ts_decode_string(x, unwrap(x, a[0]), &tl);
            if (title && !graph__ts_has_util_directive(title, tl)) {
                if (tl) {
                    graph__ts_put_string(x, unwrap(x, a[0]), M_LITERAL, NULL);
                    graph__tmpl_literal(&x->tmpl, " ", 1);
                    titled = x->tmpl.buf.len;
                }
                mi = graph__ts_util_format(x, a + 1, k - 1, depth + 1);
                fmt = a + 1;
                nfmt = k - 1;
                em.nargs = k - 2;
            } else {
                mi = graph__ts_util_format(x, a, k, depth + 1);
                fmt = a;
                nfmt = k;
                em.nargs = k - 1;
            }
        } else {
            uint32_t kf = pl->alone ? 1 : k;
            mi = graph__ts_util_format(x, a, kf, depth + 1);
            fmt = a;
            nfmt = kf;
            em.nargs = k - 1;
            /* A logger handed an object after the message (winston's
             * `logger.info('queued for %s', to, { subject })`) may keep it
             * as metadata, out of the text, as pino does its first. */
            fields = k >= 2 && (pl->how == H_LOGGER ? kept_apart(x, unwrap(x, a[k - 1]), k, sc)
                                                    : pl->kind == GRAPH_EMIT_CALL &&
                                                          ty(x, unwrap(x, a[k - 1])) == N_OBJECT);
        }
    }
    if (pl->suffix && (mi.style == GRAPH_STYLE_PLAIN || mi.style == GRAPH_STYLE_TEMPLATE ||
                       mi.style == GRAPH_STYLE_CONCAT)) {
        graph__tmpl_format(&x->tmpl, pl->suffix, strlen(pl->suffix));
        if (mi.style == GRAPH_STYLE_PLAIN)
            mi.style = GRAPH_STYLE_CONCAT;
    }
    em.nargs += total - na; /* arguments past ARGS_MAX */
    em.style = (uint8_t)mi.style;
    em.ref = mi.ref;
    /* A message a function of ours formats and returns
     * (`console.log(TEXT.shipped(id, carrier))`, or a const local bound to
     * that call before: `const text = summary(b); console.log(text)`): its
     * path, for the format it returns (resolve_wrappers.c). */
    if (pl->kind == GRAPH_EMIT_LOG &&
        (mi.style == GRAPH_STYLE_DYNAMIC || mi.style == GRAPH_STYLE_REF) && pl->msg_index < na &&
        (pl->how == H_UTIL || pl->how == H_LOGGER)) {
        TSNode a = unwrap(x, av[pl->msg_index]);
        local_vals lv;
        if (ty(x, a) == N_IDENTIFIER && graph__ts_const_values(x, a, call, sc, &lv) == 1)
            a = unwrap(x, lv.v[0]);
        if (ty(x, a) == N_CALL_EXPRESSION)
            em.ret = graph__ts_path_of(x, fld(x, a, F_FUNCTION), 0);
    }
    /* A logger may render the title apart, or not at all (a category
     * its writer keeps out of the line): the text after it, a fallback
     * as format_alone()'s is. */
    const char *bare =
        fields ? format_alone(x)
        : titled && titled < x->tmpl.buf.len
            ? core_arena_strndup(&x->f->arena, x->tmpl.buf.data + titled, x->tmpl.buf.len - titled)
            : NULL;
    em.tmpl = graph__tmpl_take(&x->tmpl, x->f, &em.flags);
    graph__ts_push_filled(x, &em, call, sc, fmt, nfmt, x->directives);
    if (bare) {
        gx_emit tw = em;
        tw.tmpl = bare;
        tw.flags |= GRAPH_EF_FALLBACK;
        if (fields) /* (what the title leaves is of the message's style) */
            tw.style = (uint8_t)(em.style == GRAPH_STYLE_PERCENT ? GRAPH_STYLE_PERCENT
                                 : graph__tmpl_has_hole(bare)    ? GRAPH_STYLE_CONCAT
                                                                 : GRAPH_STYLE_PLAIN);
        graph__ts_push_filled(x, &tw, call, sc, fmt, nfmt, x->directives);
    }
    if (pl->kind == GRAPH_EMIT_LOG)
        graph__mark_logs(x->f, sc->sym, mi.style);
}

/* Records the emit site(s) of a call read by plan pl: one, or one per
 * message a local passed as the message may hold. */
static void make_emit(tx *x, TSNode call, const emit_plan *pl, const ts_scope *sc, int depth);

NOINLINE void graph__ts_make_emit(tx *x, TSNode call, const emit_plan *pl, const ts_scope *sc,
                                  int depth)
{
    TSNode call0 = x->msg_call;
    const ts_scope *sc0 = x->msg_sc;
    x->msg_call = call;
    x->msg_sc = sc;
    make_emit(x, call, pl, sc, depth);
    x->msg_call = call0;
    x->msg_sc = sc0;
}

static void make_emit(tx *x, TSNode call, const emit_plan *pl, const ts_scope *sc, int depth)
{
    TSNode av[ARGS_MAX];
    uint32_t total = graph__ts_collect_args(x, fld(x, call, F_ARGUMENTS), av, ARGS_MAX, depth);
    uint32_t na = total > ARGS_MAX ? ARGS_MAX : total;
    /* The message slot: pino's (object, 'message') puts it second. */
    uint32_t slot = pl->msg_index;
    if (pl->how == H_LOGGER && slot + 1 < na && ty(x, unwrap(x, av[slot])) == N_OBJECT)
        slot++;
    TSNode m = slot < na ? unwrap(x, av[slot]) : gx_null();
    /* Candidate messages for the slot, each a site of its own. */
    TSNode cand[LOCAL_MAX_ALTS];
    uint32_t nc = 0;
    if ((pl->how == H_UTIL || pl->how == H_LOGGER) && graph__ts_local_name(x, m, sc)) {
        nc = graph__ts_local_texts(x, m, call, sc, cand, LOCAL_MAX_ALTS);
    } else if ((pl->how == H_UTIL || pl->how == H_LOGGER) && !is_null(m) && ty(x, m) == N_OBJECT &&
               slot + 1 >= na) {
        /* logger.info({ msg: 'listening on ' + port }): the record's
         * message is one of its text properties; which one, the log says. */
        uint32_t np = ts_node_named_child_count(m);
        for (uint32_t i = 0; i < np && nc < LOCAL_MAX_ALTS; i++) {
            TSNode pr = ts_node_named_child(m, i);
            TSNode v = ty(x, pr) == N_PAIR ? unwrap(x, fld(x, pr, F_VALUE)) : gx_null();
            if (!is_null(v) && graph__ts_stringish(x, v, 0))
                cand[nc++] = v;
        }
    }
    if (nc) {
        TSNode alt[ARGS_MAX];
        memcpy(alt, av, na * sizeof *av);
        ts_tail tails[TAILS_MAX];
        uint32_t nt = graph__ts_local_name(x, m, sc)
                          ? graph__ts_local_tails(x, m, call, sc, tails, TAILS_MAX)
                          : 0;
        /* What `msg += ...` appends: every way the pieces may go (an arm
         * of each, or none of one that may not run), up to
         * LOCAL_MAX_ALTS ways per value. */
        uint32_t ways = 1;
        for (uint32_t t = 0; t < nt; t++) {
            uint32_t w = tails[t].n + tails[t].optional;
            if (ways * w > LOCAL_MAX_ALTS)
                nt = t;
            else
                ways *= w;
        }
        for (uint32_t i = 0; i < nc; i++) {
            alt[slot] = cand[i];
            for (uint32_t k = 0; k < ways; k++) {
                uint32_t rest = k;
                x->ntails = 0;
                x->tail_of = cand[i];
                for (uint32_t t = 0; t < nt; t++) {
                    uint32_t w = tails[t].n + tails[t].optional, pick = rest % w;
                    rest /= w;
                    if (pick < tails[t].n)
                        x->tails[x->ntails++] = tails[t].alt[pick];
                }
                emit_from_args(x, call, pl, sc, alt, na, total, depth);
            }
        }
        x->ntails = 0;
        return;
    }
    emit_from_args(x, call, pl, sc, av, na, total, depth);
}

/* A candidate call's site(s) (graph__ts_make_emit), and those of the
 * message after its first word when plan_candidate saw one. */
NOINLINE void graph__ts_make_candidates(tx *x, TSNode call, const emit_plan *pl, const ts_scope *sc,
                                        int depth)
{
    graph__ts_make_emit(x, call, pl, sc, depth);
    if (!pl->after_word)
        return;
    emit_plan rest = *pl;
    rest.msg_index = pl->after_word - 1;
    rest.after_word = 0;
    graph__ts_make_emit(x, call, &rest, sc, depth);
}

/* A string constant: `const X = '...'`, `static X = '...'`, enum members,
 * object properties. %-directives stay holes. */
NOINLINE void graph__ts_add_const(tx *x, const char *name, TSNode value, int32_t sym, int depth)
{
    TSNode v = unwrap(x, value);
    if (!name || is_null(v))
        return;
    gx_emit em = {0};
    em.kind = GRAPH_EMIT_CONST;
    em.name = name;
    em.sym = sym;
    em.line = gx_line(v);
    em.receiver = "";
    em.method = "";
    graph__tmpl_clear(&x->tmpl);
    unsigned t = ty(x, v);
    if (t == N_STRING) {
        graph__ts_put_string(x, v, M_CONST, NULL);
        graph__tmpl_log_format(&x->tmpl);
        em.style = x->tmpl.holes ? GRAPH_STYLE_PERCENT : GRAPH_STYLE_PLAIN;
    } else if (t == N_TEMPLATE_STRING) {
        uint32_t subs = graph__ts_put_template(x, v, M_CONST, NULL, depth + 1);
        em.style = subs            ? GRAPH_STYLE_TEMPLATE
                   : x->tmpl.holes ? GRAPH_STYLE_PERCENT
                                   : GRAPH_STYLE_PLAIN;
    } else if (is_plus(x, v) && graph__ts_stringish(x, v, 0)) {
        graph__ts_put_concat(x, v, M_CONST, NULL, 0, depth + 1);
        em.style = GRAPH_STYLE_CONCAT;
    } else {
        return;
    }
    em.tmpl = graph__tmpl_take(&x->tmpl, x->f, &em.flags);
    if (em.tmpl)
        core_vec_push(&x->f->emits, em);
}

/* One value returned: a template literal or a concatenation. */
static void add_returned_one(tx *x, TSNode v, int32_t sym, int depth)
{
    unsigned t = ty(x, v);
    if (t != N_TEMPLATE_STRING && !(is_plus(x, v) && graph__ts_stringish(x, v, 0)))
        return;
    graph__tmpl_clear(&x->tmpl);
    gx_emit em = {0};
    em.kind = GRAPH_EMIT_CONST;
    em.name = "";
    em.sym = sym;
    em.line = gx_line(v);
    em.receiver = "";
    em.method = "";
    if (t == N_TEMPLATE_STRING) {
        uint32_t subs = graph__ts_put_template(x, v, M_CONST, NULL, depth + 1);
        em.style = GRAPH_STYLE_TEMPLATE;
        if (!subs) {
            graph__tmpl_clear(&x->tmpl);
            return;
        }
    } else {
        graph__ts_put_concat(x, v, M_CONST, NULL, 0, depth + 1);
        em.style = GRAPH_STYLE_CONCAT;
    }
    if (x->tmpl.holes == 0) {
        graph__tmpl_clear(&x->tmpl);
        return;
    }
    em.tmpl = graph__tmpl_take(&x->tmpl, x->f, &em.flags);
    if (em.tmpl)
        core_vec_push(&x->f->emits, em);
}

/* The items a function returns in an array literal (`return [sql,
 * 'begin']`: the statements a transaction starts with) are each a value
 * it returns; a local among them (or returned alone) stands for the
 * texts bound to it before the return. */
#define RETURNED_ITEMS 8

void graph__ts_add_returned(tx *x, TSNode value, TSNode at, const ts_scope *sc, int depth)
{
    TSNode v = unwrap(x, value);
    if (is_null(v))
        return;
    TSNode items[RETURNED_ITEMS];
    uint32_t n = 0;
    if (ty(x, v) == N_ARRAY) {
        uint32_t k = ts_node_named_child_count(v);
        for (uint32_t i = 0; i < k && n < RETURNED_ITEMS; i++) {
            TSNode e = unwrap(x, ts_node_named_child(v, i));
            if (!is_null(e))
                items[n++] = e;
        }
    } else {
        items[n++] = v;
    }
    for (uint32_t i = 0; i < n; i++) {
        TSNode texts[LOCAL_MAX_ALTS];
        uint32_t nt = ty(x, items[i]) == N_IDENTIFIER
                          ? graph__ts_local_texts(x, items[i], at, sc, texts, LOCAL_MAX_ALTS)
                          : 0;
        for (uint32_t j = 0; j < nt; j++)
            add_returned_one(x, unwrap(x, texts[j]), sc->sym, depth);
        if (ty(x, items[i]) != N_IDENTIFIER)
            add_returned_one(x, items[i], sc->sym, depth);
    }
}

/*
 * `lines.push(`Looking in links: ${links}`)`, where lines is an array the
 * function made (`const lines = []`) and returns, whole or joined
 * (`return lines.join('\n')`): the message is built in pieces for the
 * function's callers to log, and the array's method logs nothing. Each
 * piece that reads as text is a text the function returns.
 */
bool graph__ts_list_piece(tx *x, TSNode call, TSNode fn, const ts_scope *sc, int depth)
{
    fn = unwrap(x, fn);
    if (!sc->in_function || is_null(fn) || ty(x, fn) != N_MEMBER_EXPRESSION)
        return false;
    TSNode obj = unwrap(x, fld(x, fn, F_OBJECT)), prop = fld(x, fn, F_PROPERTY);
    if (is_null(obj) || ty(x, obj) != N_IDENTIFIER || is_null(prop) ||
        !(text_eq(x, prop, "push") || text_eq(x, prop, "unshift")))
        return false;
    TSNode a[2];
    if (graph__ts_collect_args(x, fld(x, call, F_ARGUMENTS), a, 2, depth + 1) != 1)
        return false;
    if (!graph__ts_returns_list(x, obj, sc))
        return false;
    local_vals lv;
    uint32_t nv = graph__ts_local_values(x, obj, call, sc, &lv);
    if (nv == 0)
        return false;
    for (uint32_t k = 0; k < nv; k++)
        if (ty(x, unwrap(x, lv.v[k])) != N_ARRAY)
            return false;
    TSNode v = unwrap(x, a[0]);
    unsigned t = ty(x, v);
    if (t != N_STRING && t != N_TEMPLATE_STRING && !(is_plus(x, v) && graph__ts_stringish(x, v, 0)))
        return true;
    graph__tmpl_clear(&x->tmpl);
    gx_emit em = {0};
    em.kind = GRAPH_EMIT_CONST;
    em.name = "";
    em.sym = sc->sym;
    em.line = gx_line(v);
    em.receiver = "";
    em.method = "";
    em.style = (uint8_t)graph__ts_build_message(x, v, M_CONST, NULL, depth + 1).style;
    em.tmpl = graph__tmpl_take(&x->tmpl, x->f, &em.flags);
    if (em.tmpl)
        core_vec_push(&x->f->emits, em);
    return true;
}
