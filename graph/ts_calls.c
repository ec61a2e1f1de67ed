/*
 * TypeScript/JavaScript extraction: calls. What a call is to the graph
 * (graph__ts_call(): its callee, its emit site), and the calls that may
 * reach a logging wrapper.
 *
 * As in the Python extractor: whether a callee logs what it is passed is
 * known only after resolution, so calls record what each argument would
 * give a wrapper as its message or level (gx_call, gx_arg), and logging
 * calls whose message passes on a parameter of the enclosing function
 * record which parameter, and the text around it.
 */
#include "ts_int.h"

#include <string.h>

/* The level an argument names: 'warn', INFO, Level.INFO, LogLevel.Warn,
 * levels.DEBUG; NONE if none. */
static graph_level arg_level(tx *x, TSNode e)
{
    TSNode word = e;
    switch (ty(x, e)) {
    case N_STRING: {
        if (ts_node_end_byte(e) - ts_node_start_byte(e) > 18)
            return GRAPH_LEVEL_NONE;
        size_t n;
        const char *s = graph__ts_decode_string(x, e, &n);
        return s ? graph__level_of_word(s, n) : GRAPH_LEVEL_NONE;
    }
    case N_IDENTIFIER:
        if (!graph__ts_node_const_like(x, e))
            return GRAPH_LEVEL_NONE;
        break;
    case N_MEMBER_EXPRESSION: {
        /* An enum's or a table's member: Level.INFO, LogLevel.Warn. */
        TSNode obj = fld(x, e, F_OBJECT);
        word = fld(x, e, F_PROPERTY);
        if (ty(x, obj) != N_IDENTIFIER || empty_node(word))
            return GRAPH_LEVEL_NONE;
        char c0 = x->src[ts_node_start_byte(obj)];
        if (!(c0 >= 'A' && c0 <= 'Z') && !graph__ts_node_const_like(x, word))
            return GRAPH_LEVEL_NONE;
        break;
    }
    default:
        return GRAPH_LEVEL_NONE;
    }
    uint32_t a = ts_node_start_byte(word), b = ts_node_end_byte(word);
    return graph__level_of_word(x->src + a, b - a);
}

/* A message held in a constant (MSG, MESSAGES.notFound, Texts.OPENED):
 * its path; else NULL. */
static const char *const_ref(tx *x, TSNode e)
{
    TSNode last = e, first = e;
    if (ty(x, e) == N_MEMBER_EXPRESSION) {
        last = fld(x, e, F_PROPERTY);
        for (int i = 0; i < 16 && ty(x, first) == N_MEMBER_EXPRESSION; i++)
            first = fld(x, first, F_OBJECT);
    } else if (ty(x, e) != N_IDENTIFIER) {
        return NULL;
    }
    if (empty_node(last) || ty(x, first) != N_IDENTIFIER ||
        !(graph__ts_node_const_like(x, last) || graph__ts_node_const_like(x, first)))
        return NULL;
    return graph__ts_path_of(x, e, 0);
}

/* The template of a message argument (util.format's reading when
 * arguments follow it) into out; false if it has no literal text. */
static NOINLINE bool arg_template(tx *x, TSNode e, gx_arg *out, int depth)
{
    uint32_t avail = out->nafter;
    x->directives = 0;
    graph__tmpl_clear(&x->tmpl);
    msg_info mi = graph__ts_build_message(x, e, avail ? M_UTIL : M_LITERAL, &avail, depth + 1);
    if (mi.style == GRAPH_STYLE_PLAIN && x->directives)
        mi.style = GRAPH_STYLE_PERCENT;
    uint32_t flags = 0;
    const char *tm = graph__tmpl_take(&x->tmpl, x->f, &flags);
    switch (mi.style) {
    case GRAPH_STYLE_PLAIN:
    case GRAPH_STYLE_PERCENT:
    case GRAPH_STYLE_TEMPLATE:
    case GRAPH_STYLE_CONCAT:
        if (!tm)
            return false;
        out->tmpl = tm;
        out->style = (uint8_t)mi.style;
        out->flags |= flags;
        return true;
    default:
        return false;
    }
}

/* The pick's message as out's, and its slot if any (see gx_pick). */
static void set_fwd_pick(gx_arg *out, const gx_pick *k)
{
    const ts_param *p = k->p, *q = k->q;
    out->fwd = true;
    out->fwd_pos = p->pos;
    out->fwd_name = p->name;
    if (q) {
        out->slot = true;
        out->slot_pos = q->pos;
    }
}

/* A lone parameter the function keeps: a value (graph__pick_plain). */
static bool kept_value(tx *x, const ts_scope *sc, const gx_pick *k)
{
    return graph__pick_plain(k) && graph__ts_param_kept(x, sc, k->pname);
}

/* `... ${msg} ...` with one parameter among the substitutions (or two,
 * one named like a message: see gx_pick): passed on with the text around
 * it. */
static NOINLINE bool split_template(tx *x, TSNode t, const ts_scope *sc, gx_arg *out, int depth)
{
    gx_pick pk = {0};
    TSNode at[GX_PICK_MAX];
    uint32_t nat = 0;
    TSTreeCursor *c = kids(x, depth, t);
    if (!c)
        return false;
    do {
        TSNode ch = ts_tree_cursor_current_node(c);
        if (ty(x, ch) != N_TEMPLATE_SUBSTITUTION)
            continue;
        const ts_param *q = graph__ts_param_named(x, sc, unwrap(x, ts_node_named_child(ch, 0)));
        if (!q || q->rest)
            continue;
        if (!graph__pick_add(&pk, q, q->name, nat))
            return false;
        at[nat++] = ch;
    } while (ts_tree_cursor_goto_next_sibling(c));
    if (!graph__pick_done(&pk, false) || kept_value(x, sc, &pk))
        return false;
    uint32_t a, b;
    graph__ts_string_raw(x, t, &a, &b);
    uint32_t pos = a;
    graph__tmpl_clear(&x->tmpl);
    c = kids(x, depth, t);
    do {
        TSNode ch = ts_tree_cursor_current_node(c);
        if (ty(x, ch) != N_TEMPLATE_SUBSTITUTION)
            continue;
        uint32_t cs = ts_node_start_byte(ch), ce = ts_node_end_byte(ch);
        if (cs > pos)
            graph__ts_put_raw(x, pos, cs < b ? cs : b, M_LITERAL, NULL);
        if (ts_node_eq(ch, at[pk.at]))
            out->pre = graph__tmpl_take(&x->tmpl, x->f, &out->flags);
        else if (pk.q && ts_node_eq(ch, at[pk.slot_at]))
            graph__tmpl_slot(&x->tmpl);
        else
            graph__tmpl_hole(&x->tmpl);
        if (ce > pos)
            pos = ce;
    } while (ts_tree_cursor_goto_next_sibling(c));
    if (b > pos)
        graph__ts_put_raw(x, pos, b, M_LITERAL, NULL);
    out->post = graph__tmpl_take(&x->tmpl, x->f, &out->flags);
    set_fwd_pick(out, &pk);
    return true;
}

/* `"[app] " + msg + ...` with one parameter among the operands (or two,
 * as split_template()). */
static NOINLINE bool split_concat(tx *x, TSNode e, const ts_scope *sc, gx_arg *out, int depth)
{
    TSNode ops[PLUS_MAX];
    uint32_t k = graph__ts_plus_operands(x, e, ops, PLUS_MAX);
    gx_pick pk = {0};
    uint32_t json_at = UINT32_MAX;
    for (uint32_t i = 0; i < k; i++) {
        const ts_param *q = graph__ts_param_named(x, sc, ops[i]);
        if (!q && (q = graph__ts_json_param(x, ops[i], sc, depth + 1)) != NULL)
            json_at = i;
        if (q && !q->rest && !graph__pick_add(&pk, q, q->name, i))
            return false;
    }
    /* JSON text is a message, never the slot beside one; the parameter
     * JSON.stringify is handed is passed on, not kept (kept_value). */
    if (!graph__pick_done(&pk, false) ||
        (json_at == UINT32_MAX ? kept_value(x, sc, &pk) : json_at != pk.at))
        return false;
    out->json = json_at != UINT32_MAX;
    graph__tmpl_clear(&x->tmpl);
    for (uint32_t i = 0; i < k; i++) {
        unsigned t = ty(x, ops[i]);
        if (i == pk.at)
            out->pre = graph__tmpl_take(&x->tmpl, x->f, &out->flags);
        else if (i == pk.slot_at)
            graph__tmpl_slot(&x->tmpl);
        else if (t == N_STRING)
            graph__ts_put_string(x, ops[i], M_LITERAL, NULL);
        else if (t == N_TEMPLATE_STRING)
            graph__ts_put_template(x, ops[i], M_LITERAL, NULL, depth + 1);
        else if (is_plus(x, ops[i]) && graph__ts_stringish(x, ops[i], 1))
            graph__ts_put_concat(x, ops[i], M_LITERAL, NULL, 1, depth + 1);
        else
            graph__tmpl_hole(&x->tmpl);
    }
    out->post = graph__tmpl_take(&x->tmpl, x->f, &out->flags);
    set_fwd_pick(out, &pk);
    return true;
}

/* `util.format(...)` / `format(...)`, by the callee's last name only. */
static bool format_call(tx *x, TSNode call)
{
    TSNode fn = fld(x, call, F_FUNCTION);
    if (ty(x, fn) == N_MEMBER_EXPRESSION)
        fn = fld(x, fn, F_PROPERTY);
    return !empty_node(fn) && text_eq(x, fn, "format");
}

/*
 * What one argument of a call would give a wrapper as its message (or
 * level). out->pos, nafter and splat are set by the caller. Returns false
 * when the argument is of no interest.
 */
static NOINLINE bool classify_arg(tx *x, TSNode a, gx_arg *out, const ts_scope *sc, int depth)
{
    out->fwd_pos = -1;
    if (out->splat) {
        /* ...args passed on: the enclosing function's own ...args. */
        const ts_param *p = graph__ts_param_named(x, sc, unwrap(x, ts_node_named_child(a, 0)));
        if (!p || !p->rest)
            return false;
        out->fwd = true;
        out->fwd_pos = p->pos;
        return true;
    }
    TSNode e = unwrap(x, a);
    switch (ty(x, e)) {
    case N_SHORTHAND_PROPERTY_IDENTIFIER: /* `{ query }` */
    case N_IDENTIFIER: {
        const ts_param *p = graph__ts_param_named(x, sc, e);
        if (p) {
            if (p->rest)
                return false;
            out->fwd = true;
            out->fwd_pos = p->pos;
            out->fwd_name = p->name;
            return true;
        }
    }
        /* fall through */
    case N_MEMBER_EXPRESSION:
        out->level = (uint8_t)arg_level(x, e);
        if (out->level != GRAPH_LEVEL_NONE)
            return true;
        out->ref = const_ref(x, e);
        out->style = GRAPH_STYLE_REF;
        return out->ref != NULL;
    case N_STRING:
        out->level = (uint8_t)arg_level(x, e);
        return arg_template(x, e, out, depth) || out->level != GRAPH_LEVEL_NONE;
    /*
     * `user ${id} signed in` in signIn(id) is a message of its own, and
     * passes id on too: both are kept (a site at this call, and signIn a
     * wrapper for the callers that pass a string).
     */
    case N_TEMPLATE_STRING: {
        bool fwd = split_template(x, e, sc, out, depth + 1);
        return arg_template(x, e, out, depth) || fwd;
    }
    case N_BINARY_EXPRESSION: {
        if (!is_plus(x, e))
            return false;
        bool fwd = split_concat(x, e, sc, out, depth + 1);
        return (graph__ts_stringish(x, e, 0) && arg_template(x, e, out, depth)) || fwd;
    }
    case N_CALL_EXPRESSION: {
        const ts_param *p = graph__ts_json_param(x, e, sc, depth + 1);
        if (p) {
            out->fwd = out->json = true;
            out->fwd_pos = p->pos;
            out->fwd_name = p->name;
            return true;
        }
        return format_call(x, e) && arg_template(x, e, out, depth);
    }
    case N_OBJECT:
        graph__tmpl_clear(&x->tmpl);
        if (!graph__ts_put_json_object(x, e, depth + 1))
            return false;
        out->json_tmpl = graph__tmpl_take(&x->tmpl, x->f, &out->flags);
        return out->json_tmpl != NULL;
    default:
        return false;
    }
}

/* The texts a local e holds where call passes it, at most max, each as
 * the argument m would be (the first into m, the others into alts[1..]);
 * how many. */
static uint32_t local_texts(tx *x, TSNode e, TSNode call, const ts_scope *sc, int depth, gx_arg *m,
                            gx_arg *alts, uint32_t max)
{
    TSNode v[LOCAL_MAX_ALTS];
    uint32_t nv = graph__ts_local_texts(x, e, call, sc, v, LOCAL_MAX_ALTS), nl = 0;
    gx_arg plain = *m;
    for (uint32_t k = 0; k < nv && nl < max; k++) {
        gx_arg o = plain;
        if (!classify_arg(x, v[k], &o, sc, depth + 1) || !o.tmpl)
            continue;
        *(nl ? &alts[nl] : m) = o;
        nl++;
    }
    return nl;
}

enum { CALL_ARGS_MAX = 32 };

/* The function whose result argument a is (`this.platform.commitSQL()`),
 * as a path: the format it returns is the message (resolve_wrappers.c);
 * NULL when a is no call, or a call handed a message its function passes
 * on (`decorate(msg)`), whose result is the caller's text. */
static const char *returned_by(tx *x, TSNode a, TSNode call, const ts_scope *sc, int depth)
{
    a = unwrap(x, a);
    if (ty(x, a) == N_IDENTIFIER && !graph__ts_param_named(x, sc, a)) {
        /* Each of what a call returns: `for (const q of this.beginSQL())
         * this.log(q)`. */
        for (TSNode p = ts_node_parent(call); !is_null(p) && !is_fn(ty(x, p));
             p = ts_node_parent(p)) {
            if (ty(x, p) != N_FOR_IN_STATEMENT)
                continue;
            TSNode l = fld(x, p, F_LEFT);
            if (ty(x, l) == N_IDENTIFIER && text_eq(x, l, text(x, a))) {
                a = unwrap(x, fld(x, p, F_RIGHT));
                break;
            }
        }
    }
    if (ty(x, a) != N_CALL_EXPRESSION)
        return NULL;
    TSNode av[ARGS_MAX];
    uint32_t na = graph__ts_collect_args(x, fld(x, a, F_ARGUMENTS), av, ARGS_MAX, depth);
    for (uint32_t i = 0; i < na && i < ARGS_MAX; i++) {
        const ts_param *p = graph__ts_param_named(x, sc, unwrap(x, av[i]));
        if (p && graph__message_like(p->name))
            return NULL;
    }
    return graph__ts_path_of(x, fld(x, a, F_FUNCTION), 0);
}

/* Records a call that may reach a logging wrapper, with the arguments of
 * interest (see gx_call); nothing if none is. */
NOINLINE void graph__ts_record_call(tx *x, TSNode call, const char *callee, const ts_scope *sc,
                                    int depth)
{
    TSNode args = fld(x, call, F_ARGUMENTS);
    /* JSON.stringify is no wrapper of ours, and what a function hands it
     * is what it logs, not data it works on (wrap_acting). */
    if (ty(x, args) != N_ARGUMENTS || !ts_node_named_child_count(args) ||
        strcmp(callee, "@super.constructor") == 0 || strcmp(callee, "JSON.stringify") == 0)
        return;
    TSNode nodes[CALL_ARGS_MAX];
    gx_arg meta[CALL_ARGS_MAX];
    uint32_t n = 0, npositional = 0;
    bool after_splat = false;
    TSTreeCursor *c = kids(x, depth, args);
    bool more = c != NULL;
    for (; more && n < CALL_ARGS_MAX; more = ts_tree_cursor_goto_next_sibling(c)) {
        TSNode a = ts_tree_cursor_current_node(c);
        if (!ts_node_is_named(a) || ty(x, a) == N_COMMENT)
            continue;
        gx_arg m;
        memset(&m, 0, sizeof m);
        m.splat = ty(x, a) == N_SPREAD_ELEMENT;
        m.pos = after_splat ? UINT32_MAX : npositional;
        after_splat |= m.splat;
        /* nafter is filled in below, once the count is known. */
        m.nafter = ++npositional;
        nodes[n] = a;
        meta[n++] = m;
    }
    size_t first = x->f->args.n;
    bool useful = false;
    /* A local bound to message text before the call (`const sql =
     * \`SELECT ... '${name}'\`; this.query(sql)`): each text it may hold,
     * the call recorded once per text as for the Python extractor. Only
     * the first such argument varies; later ones take their nearest
     * binding's text. */
    gx_arg alts[LOCAL_MAX_ALTS];
    uint32_t nalts = 0;
    int32_t alt_at = -1;
    for (uint32_t i = 0; i < n; i++) {
        gx_arg *m = &meta[i];
        m->nafter = npositional - m->nafter;
        uint32_t nl = m->splat ? 0
                               : local_texts(x, unwrap(x, nodes[i]), call, sc, depth, m, alts,
                                             alt_at < 0 ? LOCAL_MAX_ALTS : 1);
        if (nl > 1) {
            alt_at = (int32_t)(x->f->args.n - first);
            nalts = nl;
        }
        if (!nl && !classify_arg(x, nodes[i], m, sc, depth + 1) &&
            !(m->ret = returned_by(x, nodes[i], call, sc, depth + 1)))
            continue;
        if (m->ret)
            m->style = GRAPH_STYLE_DYNAMIC;
        useful |= m->tmpl || m->ref || m->fwd || m->json_tmpl || m->ret;
        core_vec_push(&x->f->args, *m);
    }
    if (!useful) {
        x->f->args.n = first;
        return;
    }
    gx_call rc = {.callee = callee,
                  .from = sc->sym,
                  .emit = -1,
                  .msg_arg = -1,
                  .level_arg = -1,
                  .line = gx_line(call),
                  .arg0 = (uint32_t)first,
                  .nargs = (uint32_t)(x->f->args.n - first)};
    core_vec_push(&x->f->calls, rc);
    graph__push_alt_calls(x->f, &rc, alts, nalts, alt_at);
}

/*
 * Records a logging call whose message passes on a parameter of the
 * enclosing function, which makes that function a wrapper (`emit` is the
 * emit the call made, pl its plan). The message is the first argument
 * from the plan's on (after pino's merging object), or, after a title
 * (`log.silly('db', msg)`, `console.log('[db]', ...parts)`), the last.
 * A parameter among a format's arguments (`log.warn('%s is deprecated',
 * key)`) is data, as in Python: the function is not a wrapper.
 */
NOINLINE void graph__ts_record_emit_call(tx *x, TSNode call, const char *callee,
                                         const emit_plan *pl, int32_t emit, const ts_scope *sc,
                                         int depth)
{
    if (!sc->nparams || pl->kind != GRAPH_EMIT_LOG || pl->how == H_NAME)
        return;
    TSNode av[ARGS_MAX];
    uint32_t na = graph__ts_collect_args(x, fld(x, call, F_ARGUMENTS), av, ARGS_MAX, depth);
    if (na > ARGS_MAX)
        return;
    uint32_t s = pl->msg_index;
    if (s >= na)
        return;
    if (pl->how == H_OBJECT) {
        /* The message is a field of the object: `log({ level, message })`. */
        av[s] = graph__ts_object_key(x, unwrap(x, av[s]), pl->key ? pl->key : "message", depth + 1);
        if (is_null(av[s]))
            return;
        na = s + 1;
    }
    /* pino: (mergingObject, 'message %s', ...), read as make_emit does. */
    if (pl->how == H_LOGGER && na - s >= 2 &&
        (ty(x, unwrap(x, av[s])) == N_OBJECT ||
         (!graph__ts_stringish(x, av[s], 0) && ty(x, av[s]) != N_SPREAD_ELEMENT &&
          graph__ts_stringish(x, av[s + 1], 0))))
        s++;
    gx_arg m;
    memset(&m, 0, sizeof m);
    m.splat = ty(x, av[s]) == N_SPREAD_ELEMENT;
    m.nafter = na - s - 1;
    bool titled = false;
    if (!classify_arg(x, av[s], &m, sc, depth + 1) || !m.fwd) {
        /* A title, then the parameter: "title msg". */
        TSNode t = unwrap(x, av[s]);
        if (na - s != 2 || ty(x, t) != N_STRING)
            return;
        size_t tl;
        const char *title = graph__ts_decode_string(x, t, &tl);
        /* A title is one word ('db', '[db]'); a sentence is the
         * message, and the parameter after it data util.format appends
         * ('items to be sent', batch). */
        if (!title || graph__ts_has_util_directive(title, tl) || memchr(title, ' ', tl))
            return;
        memset(&m, 0, sizeof m);
        m.splat = ty(x, av[s + 1]) == N_SPREAD_ELEMENT;
        TSNode v = m.splat ? av[s + 1] : unwrap(x, av[s + 1]);
        if (!(m.splat || ty(x, v) == N_IDENTIFIER) || !classify_arg(x, v, &m, sc, depth + 1) ||
            !m.fwd)
            return;
        graph__tmpl_clear(&x->tmpl);
        if (tl) {
            graph__ts_put_string(x, t, M_LITERAL, NULL);
            graph__tmpl_literal(&x->tmpl, " ", 1);
        }
        m.pre = graph__tmpl_take(&x->tmpl, x->f, &m.flags);
        titled = true;
    }
    /* console.log(...args), console.log('[app]', ...args): all the
     * callers' arguments, as util.format shows them (not the first
     * alone); the first a format only where it is console's first. */
    if (m.splat && m.fwd && pl->how == H_UTIL) {
        m.joined = " ";
        m.joined_fmt = !titled;
    }
    size_t first = x->f->args.n;
    gx_call rc = {.callee = callee ? callee : "?",
                  .from = sc->sym,
                  .emit = emit,
                  .msg_arg = 0,
                  .level_arg = -1,
                  .line = gx_line(call),
                  .arg0 = (uint32_t)first};
    core_vec_push(&x->f->args, m);
    if (pl->msg_index == 1) {
        /* logger.log(level, msg) */
        gx_arg l;
        memset(&l, 0, sizeof l);
        l.splat = ty(x, av[0]) == N_SPREAD_ELEMENT;
        l.nafter = na - 1;
        if (!l.splat && classify_arg(x, av[0], &l, sc, depth + 1)) {
            rc.level_arg = 1;
            core_vec_push(&x->f->args, l);
        }
    }
    rc.nargs = (uint32_t)(x->f->args.n - first);
    core_vec_push(&x->f->calls, rc);
    if (m.pre && m.pre[0] && titled && pl->how == H_LOGGER) {
        /* A logger (not console.log, which prints it) may render the
         * title apart, or not at all: the callers' text alone too, a
         * fallback (as make_emit's). */
        gx_arg bare = m;
        bare.pre = NULL;
        bare.flags |= GRAPH_EF_FALLBACK;
        rc.arg0 = (uint32_t)x->f->args.n;
        rc.nargs = 1;
        rc.level_arg = -1;
        core_vec_push(&x->f->args, bare);
        core_vec_push(&x->f->calls, rc);
    }
}

/* The name chains a call passes by position, for the parameters they
 * type (gx_pass); positions after a spread are unknown. */
NOINLINE void graph__ts_record_passes(tx *x, TSNode args, const char *callee, const ts_scope *sc,
                                      int depth)
{
    if (!callee || ty(x, args) != N_ARGUMENTS)
        return;
    TSTreeCursor *c = kids(x, depth, args);
    uint32_t pos = 0;
    for (bool more = c != NULL; more && pos < PASS_POS_MAX;
         more = ts_tree_cursor_goto_next_sibling(c)) {
        TSNode a = ts_tree_cursor_current_node(c);
        unsigned t = ty(x, a);
        if (!ts_node_is_named(a) || t == N_COMMENT)
            continue;
        if (t == N_SPREAD_ELEMENT)
            return;
        const char *v = t == N_THIS || t == N_IDENTIFIER || t == N_MEMBER_EXPRESSION
                            ? graph__ts_path_of(x, a, 0)
                            : NULL;
        if (v) {
            gx_pass p = {.callee = callee, .value = v, .from = sc->sym, .pos = pos};
            core_vec_push(&x->f->passes, p);
        }
        pos++;
    }
}

enum { CHOSEN_MAX = 4 };

/*
 * A method of a module of ours, or of what one of its functions made,
 * chosen at run time by a key whose values the code shows: `log[lvl](m)`
 * with `const lvl = ok ? 'info' : 'warn'`, `log['warn'](m)`. It is a call
 * of each such method, recorded as one (a reference and a call for the
 * wrappers), not a logging call of its own: the module's functions say
 * what they log and what they put around it. False, and nothing
 * recorded, when the receiver is not ours or the key's values are not
 * known (plan_chosen_method reads such a call).
 */
static bool own_members_called(tx *x, TSNode n, TSNode fn, const ts_scope *sc, int depth)
{
    const char *recv = graph__ts_path_of(x, fld(x, fn, F_OBJECT), 0);
    TSNode key = unwrap(x, fld(x, fn, F_INDEX));
    if (!recv || is_null(key))
        return false;
    TSNode v[CHOSEN_MAX];
    uint32_t nv = 0;
    if (ty(x, key) == N_STRING)
        v[nv++] = key;
    else if (ty(x, key) == N_IDENTIFIER)
        nv = graph__ts_literal_local(x, key, sc, v, CHOSEN_MAX);
    const char *callee[CHOSEN_MAX];
    for (uint32_t i = 0; i < nv; i++) {
        size_t l;
        const char *s = graph__ts_decode_string(x, v[i], &l);
        if (!s || !l || memchr(s, '.', l))
            return false;
        callee[i] = graph__path_join(x->f, recv, s, l);
        if (!graph__local_module_member(x->f, callee[i]) &&
            !graph__own_call_member(x->f, callee[i]))
            return false;
    }
    for (uint32_t i = 0; i < nv; i++) {
        add_ref(x, GX_REF_CALL, callee[i], sc->sym, n);
        graph__ts_record_call(x, n, callee[i], sc, depth + 1);
    }
    return nv > 0;
}

/*
 * What a call n (fn: its function) is to the graph, its arguments and
 * receiver aside: a CALL reference to its callee ("?.m" when the receiver
 * is more than a name chain, "@super.constructor" for super()), its
 * effect on the enclosing symbol, and, when it logs or may, its emit site
 * and its record for wrapper resolution. Returns the callee's path, or
 * NULL when fn is more than a name chain.
 */
const char *graph__ts_call(tx *x, TSNode n, TSNode fn, const ts_scope *sc, int depth)
{
    TSNode args = fld(x, n, F_ARGUMENTS);
    unsigned ft = ty(x, fn);
    const char *path = NULL, *callee = NULL;
    if (ft == N_SUPER) {
        callee = "@super.constructor";
    } else {
        path = graph__ts_path_of(x, fn, 0);
        callee = path;
        if (!path && ft == N_MEMBER_EXPRESSION) {
            TSNode prop = fld(x, fn, F_PROPERTY);
            if (!empty_node(prop)) {
                uint32_t a = ts_node_start_byte(prop), b = ts_node_end_byte(prop);
                callee = graph__path_join(x->f, "?", x->src + a, b - a);
            }
        }
    }
    if (callee && ft != N_IMPORT)
        add_ref(x, GX_REF_CALL, callee, sc->sym, n);
    if (path || ft == N_SUPER) /* super(...): the base's constructor */
        graph__ts_record_passes(x, args, path ? path : callee, sc, depth + 1);
    graph__note_effect(x->f, sc->sym, x->src, n, fn);
    if (ft == N_SUBSCRIPT_EXPRESSION && own_members_called(x, n, fn, sc, depth))
        return NULL;

    emit_plan pl;
    if (graph__ts_plan_emit(x, n, fn, path, &pl, sc, depth + 1)) {
        graph__ts_make_emit(x, n, &pl, sc, depth + 1);
        graph__ts_record_emit_call(x, n, callee, &pl, (int32_t)x->f->emits.n - 1, sc, depth + 1);
        /* `log.trace(level, tag, text)` on a module of ours: its shape,
         * once resolved, may read the call better than the method's name
         * (resolve_wrappers.c). So may a receiver whose type the file
         * does not show (`this.log?.info(text)` on a logger handed to
         * the constructor): resolution looks for a wrapper of ours whose
         * class the receiver is named after. The console is no such
         * receiver (pl.receiver). */
        bool known =
            path && (graph__local_module_member(x->f, path) || graph__own_call_member(x->f, path));
        if (path && pl.kind == GRAPH_EMIT_LOG && strchr(path, '.') &&
            (known || !pl.receiver || !graph__ts_is_console(pl.receiver))) {
            size_t c0 = x->f->calls.n;
            graph__ts_record_call(x, n, callee, sc, depth + 1);
            for (size_t k = c0; k < x->f->calls.n; k++)
                x->f->calls.v[k].ours_only = !known;
        }
    } else if (ft == N_SUPER && sc->sym >= 0 &&
               strcmp(x->f->syms.v[sc->sym].name, "constructor") == 0) {
        if (graph__ts_plan_candidate(x, n, callee, &pl, sc, depth + 1))
            graph__ts_make_candidates(x, n, &pl, sc, depth + 1);
    } else if (callee && ft != N_SUPER && ft != N_IMPORT &&
               !graph__ts_list_piece(x, n, fn, sc, depth + 1)) {
        if (graph__ts_plan_candidate(x, n, callee, &pl, sc, depth + 1))
            graph__ts_make_candidates(x, n, &pl, sc, depth + 1);
        else if (ty(x, args) == N_ARGUMENTS && ts_node_named_child_count(args) > 0)
            graph__cand_pending(&x->cands, x->f, callee, sc->sym, gx_line(n));
        graph__ts_record_call(x, n, callee, sc, depth + 1);
    }
    return path;
}
