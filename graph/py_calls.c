/*
 * Python extraction: calls that may reach a logging wrapper (see gx_arg
 * in graph_int.h), and what each of their arguments would pass on as a
 * message.
 */
#include "py_int.h"

#include <stdio.h>
#include <string.h>

/* The template of parts [a, b) of a concatenation: literal pieces in
 * order, part `slot` GX_SLOT, anything else a hole; NULL if empty. */
static const char *parts_template(px *x, const TSNode *parts, uint32_t a, uint32_t b, uint32_t slot,
                                  bool with_args, uint32_t *flags, const py_scope *sc, int depth)
{
    for (uint32_t i = a; i < b; i++) {
        if (i == slot)
            graph__tmpl_slot(&x->tmpl);
        else if (is_stringish(ty(parts[i])))
            graph__py_build_message(x, parts[i], with_args, sc, depth + 1);
        else
            graph__tmpl_hole(&x->tmpl);
    }
    return graph__tmpl_take(&x->tmpl, x->f, flags);
}

/* The bindings of a local message looked at (message_fwd). */
#define MSG_FWD_ALTS 2

/* ---- messages that pass on a parameter with text around it ----
 *
 * A logging call whose message is one parameter of the enclosing function
 * with text around it logs on behalf of the callers (see gx_arg): the
 * text before and after the parameter becomes their pre and post
 * templates. Besides `+` (any call), a logging call's message may put the
 * parameter in an f-string (`f"[{self.name}] {msg}"`), a %-format (`"[%s]
 * %s" % (self.name, msg)`) or a .format (`"{}: {}".format(p, msg)`), or
 * be a local bound once to one of these, or a str.join of a tuple or list
 * (`' '.join((self.time(), context, msg))`). Each must hold the
 * parameter once, used whole: `{msg!r}`, `%d` or `{0:>10}` changes what
 * the caller's text looks like, and a parameter that is only one argument
 * of a format written elsewhere is no message. And the parameter must be
 * named like a message (graph__message_like()). One more parameter, used
 * whole as well, may be in the text (`"%s: %s" % (topic, msg)`): the
 * slot, whose text each call gives (see gx_pick). When unsure, none: a
 * false wrapper drops its own template and adds wrong sites at its
 * callers.
 */

/*
 * Context managers that log a name they were made with: `with
 * Trace("connect_tcp", log):`, whose __enter__ and __exit__ log
 * f"{self.name}.started" and f"{self.name}.complete". The text is the
 * construction's, and so is the work it brackets: the `with` line is
 * where such a record comes from, as a wrapper's caller is. Only the
 * protocol's methods count: elsewhere an attribute the constructor keeps
 * is a value the object logs among its own words (`f"Connected to
 * {self.host}"`), the method its emitter.
 */
static bool in_cm_method(px *x, const py_scope *sc)
{
    if (!sc->in_function || !sc->self_name || sc->cls < 0 || sc->sym < 0)
        return false;
    const char *n = x->f->syms.v[sc->sym].name;
    return n && (strcmp(n, "__enter__") == 0 || strcmp(n, "__exit__") == 0 ||
                 strcmp(n, "__aenter__") == 0 || strcmp(n, "__aexit__") == 0);
}

/* The parameter of the constructor of the class around e that `self.X`
 * (e) holds: `self.X = param` among the statements of its __init__'s
 * body. NULL when e is no such attribute. */
static const py_param *ctor_param(px *x, const py_scope *sc, TSNode e)
{
    if (!graph__py_self_attr(x, e, sc))
        return NULL;
    TSNode attr = fieldn(e, F_ATTRIBUTE), cls = ts_node_parent(e);
    while (!is_null(cls) && ty(cls) != N_CLASS_DEFINITION)
        cls = ts_node_parent(cls);
    TSNode body = is_null(cls) ? cls : fieldn(cls, F_BODY);
    uint32_t nb = is_null(body) ? 0 : ts_node_named_child_count(body);
    for (uint32_t i = 0; i < nb; i++) {
        TSNode fn = ts_node_named_child(body, i);
        TSNode name = ty(fn) == N_FUNCTION_DEFINITION ? fieldn(fn, F_NAME) : gx_null();
        if (is_null(name) || !text_eq(x, name, "__init__"))
            continue;
        uint32_t np;
        const py_param *ps = graph__py_collect_params(x, fieldn(fn, F_PARAMETERS), true, &np);
        TSNode fb = fieldn(fn, F_BODY);
        uint32_t ns = np && ps[0].pos < 0 && !is_null(fb) ? ts_node_named_child_count(fb) : 0;
        for (uint32_t k = 0; k < ns; k++) {
            TSNode st = ts_node_named_child(fb, k);
            TSNode a = ty(st) == N_EXPRESSION_STATEMENT ? ts_node_named_child(st, 0) : gx_null();
            if (is_null(a) || ty(a) != N_ASSIGNMENT)
                continue;
            TSNode l = fieldn(a, F_LEFT), r = unparen(fieldn(a, F_RIGHT));
            if (is_null(l) || ty(l) != N_ATTRIBUTE || is_null(r) || ty(r) != N_IDENTIFIER)
                continue;
            TSNode lo = fieldn(l, F_OBJECT), la = fieldn(l, F_ATTRIBUTE);
            if (is_null(lo) || is_null(la) || !text_eq(x, lo, ps[0].name) ||
                strcmp(text(x, la), text(x, attr)) != 0)
                continue;
            for (uint32_t j = 1; j < np; j++)
                if (text_eq(x, r, ps[j].name) && !ps[j].varargs && (ps[j].pos >= 0 || ps[j].kw)) {
                    py_param *f = core_arena_alloc(&x->f->arena, sizeof *f);
                    *f = ps[j];
                    f->field = true;
                    return f;
                }
            return NULL;
        }
        return NULL;
    }
    return NULL;
}

/* ctor_param, in a context manager's protocol. */
static const py_param *ctor_field(px *x, const py_scope *sc, TSNode e)
{
    return in_cm_method(x, sc) ? ctor_param(x, sc, e) : NULL;
}

/* A parameter a call can pass a message in (not self, not *args); in a
 * context manager's protocol, also what its constructor took (above). */
static const py_param *fwd_param(px *x, const py_scope *sc, TSNode e)
{
    e = unparen(e);
    /* A local bound once before, to one of these (`text =
     * format.format(**kwargs) if format else ""`), read as its value. */
    TSNode v[2];
    uint32_t nv;
    if (!is_null(e) && ty(e) == N_IDENTIFIER && !graph__py_param_named(x, sc, e) &&
        (nv = graph__py_bound_values(x, e, e, sc, v, 2)) > 0) {
        /* (Of two, one the empty text: `... if format else ""`.) */
        e = unparen(v[0]);
        if (nv == 2)
            e = is_stringish(ty(unparen(v[1]))) ? e
                : is_stringish(ty(e))           ? unparen(v[1])
                                                : gx_null();
        if (is_null(e) || ty(e) == N_IDENTIFIER)
            return NULL;
    }
    /* `X if c else ""`: the text, when there is any, is X's. */
    if (!is_null(e) && ty(e) == N_CONDITIONAL_EXPRESSION && ts_node_named_child_count(e) == 3 &&
        is_stringish(ty(unparen(ts_node_named_child(e, 2)))))
        e = unparen(ts_node_named_child(e, 0));
    /* `format.format(**kwargs)`: the parameter is a format the function
     * fills with what it was handed; what it renders is the callers'
     * template, fields filled. */
    if (!is_null(e) && ty(e) == N_CALL) {
        TSNode fn = fieldn(e, F_FUNCTION);
        TSNode attr = !is_null(fn) && ty(fn) == N_ATTRIBUTE ? fieldn(fn, F_ATTRIBUTE) : gx_null();
        if (is_null(attr) || !(text_eq(x, attr, "format") || text_eq(x, attr, "format_map")))
            return NULL;
        e = unparen(fieldn(fn, F_OBJECT));
        if (is_null(e) || ty(e) != N_IDENTIFIER)
            return NULL;
    }
    const py_param *p = graph__py_param_named(x, sc, e);
    if (!p)
        return ctor_field(x, sc, unparen(e));
    return !p->varargs && (p->pos >= 0 || p->kw) ? p : NULL;
}

/* Whether the pick is one constructor's parameter (ctor_field), or the
 * parameter another path logs whole (message_fwd): its name says
 * nothing, the protocol or the other path does. */
static bool pick_field(const px *x, const gx_pick *k)
{
    return k->p && !k->q &&
           (((const py_param *)k->p)->field ||
            (x->fwd_named && strcmp(k->pname, x->fwd_named) == 0));
}

static void set_fwd(gx_arg *out, const py_param *p)
{
    out->fwd = true;
    out->field = p->field;
    out->fwd_pos = p->pos;
    out->fwd_kw = p->kw ? p->name : NULL;
    out->fwd_name = p->name;
}

/* set_fwd for the pick's message (py_params), and its slot if any. */
static void set_fwd_pick(gx_arg *out, const gx_pick *k)
{
    set_fwd(out, (const py_param *)k->p);
    if (k->q) {
        const py_param *q = k->q;
        out->slot = true;
        out->slot_pos = q->pos;
        out->slot_kw = q->kw ? q->name : NULL;
    }
}

/* set_fwd_pick with the text around the message: pre, and what the
 * template being built holds after it (taken as post). */
static void set_fwd_around(px *x, gx_arg *out, const gx_pick *k, const char *pre, uint32_t flags)
{
    set_fwd_pick(out, k);
    out->pre = pre;
    out->post = graph__tmpl_take(&x->tmpl, x->f, &flags);
    out->flags |= flags;
}

static const py_param *joined_value(px *x, TSNode e, const py_scope *sc, const char **sep);

/* "[chan " + name + "] " + msg. */
static bool plus_fwd(px *x, TSNode e, bool with_args, gx_arg *out, const py_scope *sc, int depth)
{
    if (ty(e) != N_BINARY_OPERATOR || binop(e) != A_PLUS || !sc->nparams)
        return false;
    TSNode parts[32];
    uint32_t np = graph__py_plus_parts(e, parts, 32, 0, 0);
    gx_pick k = {0};
    const py_param *joined = NULL;
    const char *sep = NULL;
    uint32_t joined_at = 0;
    for (uint32_t i = 0; i < np; i++) {
        const py_param *q = fwd_param(x, sc, parts[i]);
        if (q && !graph__pick_add(&k, q, q->name, i))
            return false;
        const char *js = NULL;
        const py_param *jp =
            q || is_stringish(ty(parts[i])) ? NULL : joined_value(x, parts[i], sc, &js);
        if (jp && joined)
            return false;
        if (jp) {
            joined = jp;
            joined_at = i;
            sep = js;
        }
    }
    /* The callers' arguments joined, with text around them (`"
     * ".join(map(str, args)) + "\n"`), and no other parameter. */
    if (joined && !k.p) {
        set_fwd(out, joined);
        out->joined = sep;
        out->pre =
            parts_template(x, parts, 0, joined_at, UINT32_MAX, with_args, &out->flags, sc, depth);
        out->post = parts_template(x, parts, joined_at + 1, np, UINT32_MAX, with_args, &out->flags,
                                   sc, depth);
        return true;
    }
    /* One parameter is the message whatever its name, unless the function
     * keeps it (graph__pick_plain); of two, the one named like it. */
    if (joined || !graph__pick_done(&k, k.q != NULL) ||
        (graph__pick_plain(&k) && graph__py_param_stored(x, e, k.pname)))
        return false;
    set_fwd_pick(out, &k);
    out->pre = parts_template(x, parts, 0, k.at, k.slot_at, with_args, &out->flags, sc, depth);
    out->post =
        parts_template(x, parts, k.at + 1, np, k.slot_at, with_args, &out->flags, sc, depth);
    return true;
}

/* The string literals of s (one, or the parts of an implicit
 * concatenation); 0 if there are too many. */
static uint32_t string_parts(TSNode s, TSNode *out, uint32_t cap)
{
    if (ty(s) == N_STRING) {
        out[0] = s;
        return 1;
    }
    uint32_t n = 0, nc = ts_node_named_child_count(s);
    for (uint32_t i = 0; i < nc; i++) {
        TSNode part = ts_node_named_child(s, i);
        if (ty(part) != N_STRING)
            continue;
        if (n >= cap)
            return 0;
        out[n++] = part;
    }
    return n;
}

/* f"[{self.name}] {msg}": the parameter a replacement field of its own,
 * without conversion, format spec or `=`. */
static bool fstring_fwd(px *x, TSNode e, bool with_args, gx_arg *out, const py_scope *sc)
{
    TSNode strs[32], at[GX_PICK_MAX];
    uint32_t ns = string_parts(e, strs, 32), nat = 0;
    gx_pick pk = {0};
    bool any_f = false;
    for (uint32_t k = 0; k < ns; k++) {
        any_f |= graph__py_string_prefix(x, strs[k]).f;
        uint32_t nc = ts_node_child_count(strs[k]);
        for (uint32_t i = 0; i < nc; i++) {
            TSNode ch = ts_node_child(strs[k], i);
            if (ty(ch) != N_INTERPOLATION)
                continue;
            const py_param *q = fwd_param(x, sc, ts_node_named_child(ch, 0));
            if (!q)
                continue;
            /* `{`, the name, `}`: anything more changes the caller's text. */
            if (!graph__pick_add(&pk, q, q->name, nat) || ts_node_child_count(ch) != 3)
                return false;
            at[nat++] = ch;
        }
    }
    if (!any_f || !graph__pick_done(&pk, !pick_field(x, &pk)))
        return false;
    TSNode slot = pk.q ? at[pk.slot_at] : gx_null();
    const char *pre = NULL;
    uint32_t flags = 0;
    for (uint32_t k = 0; k < ns; k++)
        graph__py_tmpl_string_at(x, strs[k], with_args ? SM_FORMAT : SM_LITERAL, at[pk.at], slot,
                                 &pre, &flags);
    set_fwd_around(x, out, &pk, pre, flags);
    return true;
}

/* The decoded text of the plain (no f-string) literal s into b; false if
 * it is not one. */
static bool plain_text(px *x, TSNode s, core_buf *b)
{
    TSNode strs[32];
    uint32_t ns = string_parts(s, strs, 32);
    for (uint32_t k = 0; k < ns; k++) {
        str_prefix pre = graph__py_string_prefix(x, strs[k]);
        if (!pre.ok || pre.f)
            return false;
        uint32_t nc = ts_node_child_count(strs[k]);
        for (uint32_t i = 0; i < nc; i++) {
            TSNode ch = ts_node_child(strs[k], i);
            if (ty(ch) == N_STRING_CONTENT)
                graph__py_put_content(x, b, ch, pre.raw);
        }
    }
    return ns > 0;
}

/* Length of the %-directive at s[0] == '%' ("%%" is 2); 0 if it is none
 * or takes more than one value (`*` widths) or a mapping key. */
static size_t percent_directive(const char *s, size_t n)
{
    size_t d = graph_directive(s, n);
    if (d < 2 || s[1] == '(' || memchr(s, '*', d))
        return 0;
    return d;
}

/*
 * Goes over a %-format of nvals values whose value k is the message (and
 * value slot, if not UINT32_MAX, the slot): their directives must be bare
 * %s. With build, the text before the message is taken into *pre and the
 * rest left in x->tmpl (literal text, the slot GX_SLOT, the other
 * directives holes). False if the format is not of that shape.
 */
static bool percent_scan(px *x, const char *s, size_t n, uint32_t nvals, uint32_t k, uint32_t slot,
                         bool build, const char **pre, uint32_t *flags)
{
    uint32_t d = 0;
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] != '%')
            continue;
        size_t len = percent_directive(s + i, n - i);
        if (!len)
            return false;
        if (build)
            graph__tmpl_literal(&x->tmpl, s + run, i - run + (len == 2 && s[i + 1] == '%'));
        run = i + len;
        if (len == 2 && s[i + 1] == '%') {
            i++;
            continue;
        }
        if ((d == k || d == slot) && !(len == 2 && s[i + 1] == 's'))
            return false;
        if (build) {
            if (d == k)
                *pre = graph__tmpl_take(&x->tmpl, x->f, flags);
            else if (d == slot)
                graph__tmpl_slot(&x->tmpl);
            else
                graph__tmpl_hole(&x->tmpl);
        }
        d++;
        i += len - 1;
    }
    if (build)
        graph__tmpl_literal(&x->tmpl, s + run, n - run);
    return d == nvals;
}

/* The items of a tuple or list literal (comments left out) into out;
 * UINT32_MAX past cap or with a *splat. */
static uint32_t seq_items(TSNode seq, TSNode *out, uint32_t cap)
{
    uint32_t n = 0, nc = ts_node_named_child_count(seq);
    for (uint32_t i = 0; i < nc; i++) {
        TSNode v = ts_node_named_child(seq, i);
        if (ty(v) == N_COMMENT)
            continue;
        if (ty(v) == N_LIST_SPLAT || n >= cap)
            return UINT32_MAX;
        out[n++] = v;
    }
    return n;
}

/* The parameters among items[0..n) into k (see gx_pick); false past two. */
static bool pick_items(px *x, const py_scope *sc, const TSNode *items, uint32_t n, gx_pick *k)
{
    for (uint32_t i = 0; i < n; i++) {
        const py_param *q = fwd_param(x, sc, items[i]);
        if (q && !graph__pick_add(k, q, q->name, i))
            return false;
    }
    return true;
}

/* The %-format literal l of nv values, pk's message and slot among them,
 * as the text around the callers' message (set_fwd_around); false if the
 * format is not of that shape. */
static bool percent_around(px *x, TSNode l, uint32_t nv, const gx_pick *pk, bool with_args,
                           gx_arg *out)
{
    core_buf b = {0};
    bool ok = plain_text(x, l, &b);
    const char *s = b.data ? b.data : "";
    /* Logging's own arguments would %-format the result again: a "%%"
     * there is no longer literal text. */
    for (size_t i = 0; ok && with_args && i + 1 < b.len; i++)
        ok = !(s[i] == '%' && s[i + 1] == '%');
    /* A value the slot's directive converts (`%d` of a count) is no
     * text the callers hand: a hole. */
    gx_pick k = *pk;
    bool fits = ok && percent_scan(x, s, b.len, nv, k.at, k.slot_at, false, NULL, NULL);
    if (ok && !fits && k.q) {
        k.q = NULL;
        k.slot_at = UINT32_MAX;
        fits = percent_scan(x, s, b.len, nv, k.at, k.slot_at, false, NULL, NULL);
    }
    ok = fits;
    if (ok) {
        const char *pre = NULL;
        uint32_t flags = 0;
        percent_scan(x, s, b.len, nv, k.at, k.slot_at, true, &pre, &flags);
        set_fwd_around(x, out, &k, pre, flags);
    }
    core_buf_free(&b);
    return ok;
}

/* "[%s] %s" % (self.name, msg), or "[x] %s" % msg. */
static bool percent_fwd(px *x, TSNode e, bool with_args, gx_arg *out, const py_scope *sc)
{
    if (ty(e) != N_BINARY_OPERATOR || binop(e) != A_PERCENT)
        return false;
    TSNode l = unparen(fieldn(e, F_LEFT)), r = unparen(fieldn(e, F_RIGHT));
    if (is_null(l) || is_null(r) || !is_stringish(ty(l)))
        return false;
    TSNode vals[32];
    uint32_t nv = 1;
    if (ty(r) == N_TUPLE)
        nv = seq_items(r, vals, 32);
    else
        vals[0] = r;
    gx_pick pk = {0};
    if (nv == UINT32_MAX || !pick_items(x, sc, vals, nv, &pk) || !graph__pick_done(&pk, true))
        return false;
    return percent_around(x, l, nv, &pk, with_args, out);
}

/* Statements at most in a function that does nothing but log what it is
 * handed (args_fwd): a guard, a line of text, the call. */
#define LOG_ONLY_STATEMENTS 3

/* Whether the function around node at is that small (its docstring
 * aside) and returns no value: `_connect(options, ..., msg)`, which logs
 * msg among the work it does, and `_truncate(text, max_length)`, which
 * logs that it cuts the text it returns, are no functions that only log. */
static bool log_only(TSNode at)
{
    TSNode fn = at;
    while (!is_null(fn) && ty(fn) != N_FUNCTION_DEFINITION)
        fn = ts_node_parent(fn);
    TSNode body = is_null(fn) ? fn : fieldn(fn, F_BODY);
    if (is_null(body))
        return false;
    uint32_t n = 0, nc = ts_node_named_child_count(body);
    for (uint32_t i = 0; i < nc; i++) {
        TSNode st = ts_node_named_child(body, i);
        unsigned t = ty(st);
        bool doc = i == 0 && t == N_EXPRESSION_STATEMENT && ts_node_named_child_count(st) == 1 &&
                   is_stringish(ty(ts_node_named_child(st, 0)));
        n += t != N_COMMENT && !doc;
    }
    if (n > LOG_ONLY_STATEMENTS)
        return false;
    TSTreeCursor c = ts_tree_cursor_new(body);
    bool value = false;
    do {
        TSNode m = ts_tree_cursor_current_node(&c);
        value = ty(m) == N_RETURN_STATEMENT && ts_node_named_child_count(m) > 0;
    } while (!value && graph__walk_next(&c, body, true));
    ts_tree_cursor_delete(&c);
    return !value;
}

/*
 * A literal format whose arguments pass on its function's parameters, as
 * "..." % (...) does (percent_fwd): `log.info("step %d: %s", n, text)` in
 * a function that only logs (log_only), the one named like a message the
 * callers' text, the others values (see gx_pick). A logging call told to report its caller's line
 * (`stacklevel=2` and more: `_audit.info("audit %s order=%s", action,
 * order_id, stacklevel=2)`) logs on behalf of its callers whatever the
 * names (`any`): the first parameter among the arguments (a bare %s) is
 * the text the callers pass, the others holes. Either way each call is a
 * site of the caller, with what it passes there filled in.
 */
static bool args_fwd(px *x, TSNode msg, const TSNode *nodes, const gx_arg *meta, uint32_t n,
                     uint32_t msg_pos, bool any, gx_arg *out, const py_scope *sc)
{
    TSNode vals[32];
    uint32_t nv = 0;
    for (uint32_t i = 0; i < n && nv < 32; i++) {
        if (meta[i].kw || meta[i].pos == UINT32_MAX || meta[i].pos <= msg_pos)
            continue;
        if (meta[i].splat)
            return false;
        vals[nv++] = nodes[i];
    }
    gx_pick pk = {0};
    if (any) {
        for (uint32_t i = 0; i < nv && !pk.p; i++) {
            const py_param *q = fwd_param(x, sc, vals[i]);
            if (q)
                graph__pick_add(&pk, q, q->name, i);
        }
    } else if (!pick_items(x, sc, vals, nv, &pk) || !graph__pick_done(&pk, true)) {
        return false;
    }
    /* (The walk of the function last: most logging calls pass no
     * parameter named like a message.) */
    if (!pk.p || !is_stringish(ty(unparen(msg))) || (!any && !log_only(msg)))
        return false;
    return percent_around(x, unparen(msg), nv, &pk, false, out);
}

/* The stacklevel a call passes as a literal integer, or 0. */
static long stacklevel_of(px *x, const TSNode *nodes, const gx_arg *meta, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (meta[i].kw && strcmp(meta[i].kw, "stacklevel") == 0 && ty(nodes[i]) == N_INTEGER)
            return strtol(text(x, nodes[i]), NULL, 10);
    return 0;
}

/* An argument of a str.format call: by position, or by keyword (kw). */
typedef struct {
    uint32_t pos; /* UINT32_MAX: none */
    const char *kw;
} fmt_ref;

/* Does the field named f[0..n) (numbered: idx, its number or place) name
 * argument r? */
static bool fmt_names(fmt_ref r, const char *f, size_t n, bool numbered, uint32_t idx)
{
    if (numbered)
        return !r.kw && r.pos == idx;
    return r.kw && strlen(r.kw) == n && memcmp(r.kw, f, n) == 0;
}

/*
 * Goes over a str.format template whose argument m is the message (and s,
 * if any, the slot): each must be named by exactly one field, with no
 * attribute, index, conversion or spec. With build, as percent_scan().
 */
static bool brace_scan(px *x, const char *s, size_t n, fmt_ref m, fmt_ref sl, bool build,
                       const char **pre, uint32_t *flags)
{
    uint32_t next = 0, found = 0, found_slot = 0;
    bool autonum = false, manual = false;
    size_t i = 0, run = 0;
    while (i < n) {
        char c = s[i];
        if ((c == '{' || c == '}') && i + 1 < n && s[i + 1] == c) {
            if (build)
                graph__tmpl_literal(&x->tmpl, s + run, i + 1 - run);
            i += 2;
            run = i;
            continue;
        }
        if (c == '}')
            return false; /* a lone '}' */
        if (c != '{') {
            i++;
            continue;
        }
        size_t j = i + 1;
        for (int depth = 1; j < n; j++) {
            if (s[j] == '{')
                depth++;
            else if (s[j] == '}' && --depth == 0)
                break;
        }
        if (j >= n)
            return false;
        const char *f = s + i + 1;
        size_t flen = j - i - 1, nlen = strcspn(f, ".[!:}");
        bool digits = nlen > 0;
        uint32_t idx = 0;
        for (size_t q = 0; q < nlen && digits; q++) {
            digits = f[q] >= '0' && f[q] <= '9' && idx < 100000;
            idx = idx * 10 + (uint32_t)(f[q] - '0');
        }
        if (nlen == 0) {
            autonum = true;
            idx = next++;
        } else if (digits) {
            manual = true;
        }
        bool is_msg = fmt_names(m, f, nlen, digits || nlen == 0, idx),
             is_slot = fmt_names(sl, f, nlen, digits || nlen == 0, idx);
        if (autonum && manual)
            return false;
        if (is_msg && (flen != nlen || found++))
            return false;
        if (is_slot && (flen != nlen || found_slot++))
            return false;
        if (build) {
            graph__tmpl_literal(&x->tmpl, s + run, i - run);
            if (is_msg)
                *pre = graph__tmpl_take(&x->tmpl, x->f, flags);
            else if (is_slot)
                graph__tmpl_slot(&x->tmpl);
            else
                graph__tmpl_hole(&x->tmpl);
        }
        i = j + 1;
        run = i;
    }
    if (build)
        graph__tmpl_literal(&x->tmpl, s + run, n - run);
    return found == 1 && found_slot == (sl.pos != UINT32_MAX || sl.kw);
}

/* "{}: {}".format(self.prefix, msg), "{0}".format(msg), "{m}".format(m=msg). */
static bool brace_fwd(px *x, TSNode e, gx_arg *out, const py_scope *sc)
{
    if (ty(e) != N_CALL)
        return false;
    TSNode fn = fieldn(e, F_FUNCTION), args = fieldn(e, F_ARGUMENTS);
    if (is_null(fn) || is_null(args) || ty(fn) != N_ATTRIBUTE || ty(args) != N_ARGUMENT_LIST)
        return false;
    TSNode obj = unparen(fieldn(fn, F_OBJECT)), attr = fieldn(fn, F_ATTRIBUTE);
    if (is_null(obj) || is_null(attr) || !text_eq(x, attr, "format") || !is_stringish(ty(obj)))
        return false;
    gx_pick pk = {0};
    fmt_ref refs[GX_PICK_MAX];
    uint32_t pos = 0, nref = 0, nc = ts_node_named_child_count(args);
    if (nc > 64)
        return false;
    for (uint32_t i = 0; i < nc; i++) {
        TSNode a = ts_node_named_child(args, i);
        unsigned t = ty(a);
        if (t == N_COMMENT)
            continue;
        if (t == N_LIST_SPLAT || t == N_DICTIONARY_SPLAT)
            return false;
        TSNode v = t == N_KEYWORD_ARGUMENT ? fieldn(a, F_VALUE) : a;
        TSNode name = t == N_KEYWORD_ARGUMENT ? fieldn(a, F_NAME) : gx_null();
        if (t == N_KEYWORD_ARGUMENT && (is_null(v) || is_null(name)))
            return false;
        const py_param *q = fwd_param(x, sc, v);
        if (q) {
            if (!graph__pick_add(&pk, q, q->name, nref))
                return false;
            bool by_kw = t == N_KEYWORD_ARGUMENT;
            refs[nref++] = (fmt_ref){by_kw ? UINT32_MAX : pos, by_kw ? text(x, name) : NULL};
        }
        if (t != N_KEYWORD_ARGUMENT)
            pos++;
    }
    if (!graph__pick_done(&pk, true))
        return false;
    fmt_ref m = refs[pk.at], sl = pk.q ? refs[pk.slot_at] : (fmt_ref){UINT32_MAX, NULL};
    core_buf b = {0};
    bool ok = plain_text(x, obj, &b);
    const char *s = b.data ? b.data : "";
    ok = ok && brace_scan(x, s, b.len, m, sl, false, NULL, NULL);
    if (ok) {
        const char *pre = NULL;
        uint32_t flags = 0;
        brace_scan(x, s, b.len, m, sl, true, &pre, &flags);
        set_fwd_around(x, out, &pk, pre, flags);
    }
    core_buf_free(&b);
    return ok;
}

/* The text of a plain literal into the template: as a %-format when
 * logging's own arguments will format it again, else as literal text. */
static void put_plain(px *x, const char *s, size_t n, bool with_args)
{
    if (with_args)
        graph__tmpl_format(&x->tmpl, s, n);
    else
        graph__tmpl_literal(&x->tmpl, s, n);
}

/* Items shown one after the other with sep between them, one of them the
 * callers' message (pick_items): plain literals as text, the other items
 * holes, the picked slot a slot. */
static bool items_fwd(px *x, const TSNode *items, uint32_t ni, const char *sep, size_t seplen,
                      bool with_args, gx_arg *out, const py_scope *sc)
{
    gx_pick pk = {0};
    if (!pick_items(x, sc, items, ni, &pk) || !graph__pick_done(&pk, true))
        return false;
    core_buf lit = {0};
    const char *pre = NULL;
    uint32_t flags = 0;
    for (uint32_t i = 0; i < ni; i++) {
        if (i)
            put_plain(x, sep, seplen, with_args);
        core_buf_reset(&lit);
        if (i == pk.at)
            pre = graph__tmpl_take(&x->tmpl, x->f, &flags);
        else if (i == pk.slot_at)
            graph__tmpl_slot(&x->tmpl);
        else if (is_stringish(ty(unparen(items[i]))) && plain_text(x, unparen(items[i]), &lit))
            put_plain(x, lit.data ? lit.data : "", lit.len, with_args);
        else
            graph__tmpl_hole(&x->tmpl);
    }
    set_fwd_around(x, out, &pk, pre, flags);
    core_buf_free(&lit);
    return true;
}

/* " ".join((self.time(), context, msg)), or over a list: the separator
 * between the items, plain literals as text, other items holes. */
static bool join_fwd(px *x, TSNode e, bool with_args, gx_arg *out, const py_scope *sc)
{
    TSNode fn = fieldn(e, F_FUNCTION), args = fieldn(e, F_ARGUMENTS);
    if (is_null(fn) || is_null(args) || ty(fn) != N_ATTRIBUTE || ty(args) != N_ARGUMENT_LIST ||
        ts_node_named_child_count(args) != 1)
        return false;
    TSNode obj = unparen(fieldn(fn, F_OBJECT)), attr = fieldn(fn, F_ATTRIBUTE);
    if (is_null(obj) || is_null(attr) || !text_eq(x, attr, "join") || !is_stringish(ty(obj)))
        return false;
    TSNode seq = unparen(ts_node_named_child(args, 0)), items[32];
    if (is_null(seq) || (ty(seq) != N_TUPLE && ty(seq) != N_LIST))
        return false;
    uint32_t ni = seq_items(seq, items, 32);
    core_buf sep = {0};
    bool ok = ni != UINT32_MAX && plain_text(x, obj, &sep) &&
              items_fwd(x, items, ni, sep.data ? sep.data : "", sep.len, with_args, out, sc);
    if (!ok)
        graph__tmpl_clear(&x->tmpl);
    core_buf_free(&sep);
    return ok;
}

/* The formatted shapes above, for the expression e itself. */
static bool format_fwd(px *x, TSNode e, bool with_args, gx_arg *out, const py_scope *sc)
{
    switch (ty(e)) {
    case N_STRING:
    case N_CONCATENATED_STRING:
        return fstring_fwd(x, e, with_args, out, sc);
    case N_BINARY_OPERATOR:
        return percent_fwd(x, e, with_args, out, sc);
    case N_CALL:
        return brace_fwd(x, e, out, sc) || join_fwd(x, e, with_args, out, sc);
    default:
        return false;
    }
}

/*
 * The message a logging call (at) passes, when it passes on a parameter
 * in one of the shapes above, or a local whose only binding that reaches
 * the call is one of them or a `+` chain (`text = "[x] " + msg`). The `+`
 * chain written at the call is classify_arg()'s.
 */
/*
 * A local bound two ways, the parameter whole on one path and put in a
 * format on the other (`message = name`, or `message = f"{name}
 * {args}"` when there is more to say): both pass the callers' text on,
 * into out and alt, whatever the parameter's name, since one path logs
 * it whole.
 */
static bool two_fwd(px *x, const local_path *paths, bool with_args, gx_arg *out, gx_arg *alt,
                    const py_scope *sc, int depth)
{
    TSNode v[2];
    for (int i = 0; i < 2; i++) {
        v[i] = unparen(x->locals.v[paths[i].base].value);
        if (paths[i].naug || is_null(v[i]))
            return false;
    }
    int whole = fwd_param(x, sc, v[0]) ? 0 : fwd_param(x, sc, v[1]) ? 1 : -1;
    if (whole < 0)
        return false;
    const py_param *p = fwd_param(x, sc, v[whole]);
    gx_arg *o[2] = {whole == 0 ? out : alt, whole == 0 ? alt : out};
    *alt = *out;
    set_fwd(o[0], p);
    x->fwd_named = p->name;
    bool ok = plus_fwd(x, v[1 - whole], with_args, o[1], sc, depth) ||
              format_fwd(x, v[1 - whole], with_args, o[1], sc);
    x->fwd_named = NULL;
    return ok && o[1]->fwd_pos == p->pos && !o[1]->slot;
}

/*
 * One way pa a local reaches the call, its binding one of the shapes
 * above: the callers' text passed on. For a parameter the function binds
 * again with text around what it held (`s = "[debug] " + s`, then maybe
 * `if inst: s += " (%r)" % inst`), the text of the `+=` after the binding
 * goes after the rest.
 */
static bool path_fwd(px *x, const local_path *pa, bool with_args, gx_arg *out, const py_scope *sc,
                     int depth)
{
    TSNode v = unparen(x->locals.v[pa->base].value);
    if (is_null(v) ||
        !(plus_fwd(x, v, with_args, out, sc, depth) || format_fwd(x, v, with_args, out, sc)))
        return false;
    if (!pa->naug)
        return true;
    graph__tmpl_clear(&x->tmpl);
    if (out->post)
        graph__tmpl_format(&x->tmpl, out->post, strlen(out->post));
    for (uint32_t k = pa->naug; k-- > 0;) {
        TSNode a = unparen(x->locals.v[pa->aug[k]].value);
        if (is_null(a) || fwd_param(x, sc, a) || x->locals.v[pa->aug[k]].self_plus) {
            graph__tmpl_clear(&x->tmpl);
            return false;
        }
        if (is_stringish(ty(a)) || ty(a) == N_BINARY_OPERATOR)
            graph__py_build_message(x, a, with_args, sc, depth + 1);
        else
            graph__tmpl_hole(&x->tmpl);
    }
    out->post = graph__tmpl_take(&x->tmpl, x->f, &out->flags);
    return true;
}

static bool message_fwd(px *x, TSNode a, TSNode at, bool with_args, gx_arg *out, gx_arg *alt,
                        const py_scope *sc, int depth)
{
    TSNode e = unparen(a);
    if (is_null(e) || !sc->nparams || depth > GX_MAX_DEPTH)
        return false;
    if (ty(e) != N_IDENTIFIER)
        return format_fwd(x, e, with_args, out, sc);
    const py_param *param = graph__py_param_named(x, sc, e);
    if ((!param && !graph__py_local_name(x, e, sc)) || x->locals.n <= sc->locals_base)
        return false;
    local_path paths[MSG_FWD_ALTS];
    uint32_t n0 = ts_node_start_byte(e);
    local_scan s = {.v = x->locals.v,
                    .name = x->src + n0,
                    .len = ts_node_end_byte(e) - n0,
                    .lo = sc->locals_base,
                    .out = paths,
                    .cap = MSG_FWD_ALTS,
                    .budget = LOCAL_BUDGET};
    py_branches br = graph__py_cur_branches(x);
    graph__py_local_paths(&s, (uint32_t)x->locals.n, ts_node_start_byte(at), &br, NULL, 0);
    if (param) {
        /* Bound again on every way to the call, each keeping the
         * parameter's text: two ways, a call each. */
        if (!s.budget || s.n == 0 || (s.n == 2 && !alt) || s.n > 2)
            return false;
        gx_arg keep = *out;
        if (!path_fwd(x, &paths[0], with_args, out, sc, depth)) {
            *out = keep;
            return false;
        }
        if (s.n == 1)
            return true;
        *alt = keep;
        if (path_fwd(x, &paths[1], with_args, alt, sc, depth) && alt->fwd_pos == out->fwd_pos)
            return true;
        *out = keep;
        *alt = (gx_arg){0};
        return false;
    }
    /* One binding, no `+=` after it, and every other one looked at. */
    if (s.n == 2 && alt)
        return two_fwd(x, paths, with_args, out, alt, sc, depth);
    if (s.n != 1 || paths[0].naug || !s.budget)
        return false;
    return path_fwd(x, &paths[0], with_args, out, sc, depth);
}

/* An f-string a context manager's protocol hands a wrapper, with what
 * its constructor took in the text (ctor_field): passed on too, the
 * template kept for a site of its own, which constructions that pass no
 * text leave to it. */
static void field_fwd(px *x, TSNode e, bool with_args, gx_arg *out, const py_scope *sc)
{
    if (!in_cm_method(x, sc))
        return;
    gx_arg f = *out;
    f.pre = f.post = NULL;
    if (fstring_fwd(x, e, with_args, &f, sc) && f.field)
        *out = f;
}

/* A logging call's message that is the entry of a table a parameter
 * keys (`log.warning(ERRORS[code], *args)`): each caller's key names the
 * message (a wrapper over error codes). */
static bool table_fwd(px *x, TSNode a, gx_arg *out, const py_scope *sc)
{
    TSNode e = unparen(a);
    if (is_null(e) || ty(e) != N_SUBSCRIPT)
        return false;
    TSNode v = fieldn(e, F_VALUE), k = unparen(ts_node_named_child(e, 1));
    const py_param *p =
        !is_null(k) && ty(k) == N_IDENTIFIER ? graph__py_param_named(x, sc, k) : NULL;
    const char *path = p && !p->varargs && (p->pos >= 0 || p->kw) && !is_null(v)
                           ? graph__py_path_of(x, v, sc, 0)
                           : NULL;
    if (!path)
        return false;
    set_fwd(out, p);
    out->table = path;
    return true;
}

/* The *args parameter a name is, or NULL. */
static const py_param *varargs_named(px *x, const py_scope *sc, TSNode e)
{
    e = unparen(e);
    const py_param *p =
        !is_null(e) && ty(e) == N_IDENTIFIER ? graph__py_param_named(x, sc, e) : NULL;
    return p && p->varargs && p->pos >= 0 ? p : NULL;
}

/* The *args parameter a join of it makes the text of, with its separator
 * in *sep (`" ".join(args)`, `" ".join(map(str, args))`, `"
 * ".join(str(a) for a in args)`), or NULL. */
static const py_param *joined_param(px *x, TSNode e, const py_scope *sc, const char **sep)
{
    if (is_null(e) || ty(e) != N_CALL)
        return NULL;
    TSNode fn = fieldn(e, F_FUNCTION), args = fieldn(e, F_ARGUMENTS);
    if (is_null(fn) || ty(fn) != N_ATTRIBUTE || !text_eq(x, fieldn(fn, F_ATTRIBUTE), "join") ||
        is_null(args))
        return NULL;
    *sep = graph__py_string_value(x, unparen(fieldn(fn, F_OBJECT)));
    TSNode it = ty(args) == N_GENERATOR_EXPRESSION
                    ? args
                    : (ts_node_named_child_count(args) == 1 ? unparen(ts_node_named_child(args, 0))
                                                            : gx_null());
    if (!*sep || is_null(it))
        return NULL;
    const py_param *p = NULL;
    if (ty(it) == N_GENERATOR_EXPRESSION) {
        for (uint32_t i = 0; i < ts_node_named_child_count(it) && !p; i++) {
            TSNode c = ts_node_named_child(it, i);
            if (ty(c) == N_FOR_IN_CLAUSE)
                p = varargs_named(x, sc, fieldn(c, F_RIGHT));
        }
    } else if (ty(it) == N_CALL) {
        /* map(str, args) */
        TSNode mf = fieldn(it, F_FUNCTION), ma = fieldn(it, F_ARGUMENTS);
        if (!is_null(mf) && ty(mf) == N_IDENTIFIER && text_eq(x, mf, "map") && !is_null(ma) &&
            ts_node_named_child_count(ma) == 2)
            p = varargs_named(x, sc, ts_node_named_child(ma, 1));
    } else {
        p = varargs_named(x, sc, it);
    }
    return p;
}

/* joined_param of e, or of the one value a local e is bound to on every
 * path to it (`text = " ".join(map(str, args))`, then `write(text +
 * "\n")`). */
static const py_param *joined_value(px *x, TSNode e, const py_scope *sc, const char **sep)
{
    e = unparen(e);
    TSNode v[1];
    if (!is_null(e) && ty(e) == N_IDENTIFIER && !graph__py_param_named(x, sc, e) &&
        graph__py_bound_values(x, e, e, sc, v, 1) == 1)
        e = unparen(v[0]);
    return joined_param(x, e, sc, sep);
}

/* A logging call's message that joins the function's *args, itself or
 * through a local: each caller's arguments make the message. */
static bool joined_fwd(px *x, TSNode a, gx_arg *out, const py_scope *sc)
{
    const char *sep = NULL;
    const py_param *p = joined_value(x, a, sc, &sep);
    if (!p)
        return false;
    set_fwd(out, p);
    out->joined = sep;
    return true;
}

/* The most things one print shows that are read as a wrapper's. */
#define PRINT_ITEMS_MAX 16

/*
 * A print in a function with parameters, as a wrapper's:
 * - `print(*args, file=sys.stderr)` in a function whose *args it is: the
 *   callers' message, their arguments joined by print's separator (`sep=`,
 *   else a blank);
 * - `print("[app]", msg, sep=" | ")`: the callers' message among words of
 *   the print's own, shown with sep between (read as a join).
 * Either is recorded as a logging call whose message passes the parameter
 * on (graph__py_record_call). A print to a file other than sys.stdout or
 * sys.stderr writes data (the lines of generated code), no message.
 * Returns true, recording nothing, where the print shows one thing to the
 * process's output: a message as a logging call's is, for the caller to
 * read so.
 */
static bool record_print_fwd(px *x, TSNode call, const char *callee, int32_t emit,
                             const py_scope *sc)
{
    TSNode args = fieldn(call, F_ARGUMENTS);
    if (is_null(args) || ty(args) != N_ARGUMENT_LIST)
        return false;
    const py_param *p = NULL;
    const char *sep = " ";
    bool sep_known = true, std = true;
    TSNode items[PRINT_ITEMS_MAX];
    uint32_t ni = 0;
    uint32_t n = ts_node_named_child_count(args);
    for (uint32_t i = 0; i < n; i++) {
        TSNode a = ts_node_named_child(args, i);
        if (ty(a) == N_KEYWORD_ARGUMENT) {
            TSNode k = fieldn(a, F_NAME), v = unparen(fieldn(a, F_VALUE));
            if (is_null(k)) {
                continue;
            } else if (text_eq(x, k, "sep")) {
                const char *sv = graph__py_string_value(x, v);
                sep_known = sv != NULL;
                sep = sv ? sv : sep;
            } else if (text_eq(x, k, "file")) {
                std = !is_null(v) && (text_eq(x, v, "sys.stderr") || text_eq(x, v, "sys.stdout"));
            }
        } else if (ty(a) == N_LIST_SPLAT && !p) {
            p = varargs_named(x, sc, ts_node_named_child(a, 0));
            if (!p)
                return false;
        } else if (ty(a) == N_DICTIONARY_SPLAT) {
            std = false; /* (a `file=` of the caller's, maybe) */
        } else if (ty(a) != N_COMMENT) {
            if (ni == PRINT_ITEMS_MAX)
                return false;
            items[ni++] = a;
        }
    }
    if (!p && ni == 1)
        return std;
    gx_arg m = {0};
    if (!sep_known) {
        return false;
    } else if (p && !ni) {
        set_fwd(&m, p);
        m.splat = true;
        m.joined = sep;
    } else if (p || ni < 2 || !std || !items_fwd(x, items, ni, sep, strlen(sep), false, &m, sc)) {
        /* Words of its own, no message of its callers': print's own
         * site. */
        graph__tmpl_clear(&x->tmpl);
        return false;
    }
    gx_call rc = {.callee = callee,
                  .from = sc->sym,
                  .emit = emit,
                  .msg_arg = 0,
                  .level_arg = -1,
                  .line = gx_line(call),
                  .arg0 = (uint32_t)x->f->args.n,
                  .nargs = 1};
    core_vec_push(&x->f->args, m);
    core_vec_push(&x->f->calls, rc);
    return false;
}

/*
 * What one argument of a call would give a wrapper as its message (or
 * level). out->pos, kw, nafter and splat are set by the caller. Returns
 * false when the argument is of no interest.
 */
/* The longest string literal that may name a level ('critical', with
 * its quotes and a prefix). */
#define LEVEL_LITERAL_MAX 12

/* `msg.rstrip()` of a parameter: the parameter (its trailing line end
 * dropped, as whatever collects lines drops it); null otherwise. */
static TSNode rstripped_param(px *x, TSNode e, const py_scope *sc)
{
    TSNode fn = fieldn(e, F_FUNCTION), args = fieldn(e, F_ARGUMENTS);
    if (is_null(fn) || ty(fn) != N_ATTRIBUTE || is_null(args) ||
        ts_node_named_child_count(args) != 0)
        return gx_null();
    TSNode name = fieldn(fn, F_ATTRIBUTE), obj = unparen(fieldn(fn, F_OBJECT));
    if (is_null(name) || !text_eq(x, name, "rstrip") || is_null(obj) || ty(obj) != N_IDENTIFIER ||
        !graph__py_param_named(x, sc, obj))
        return gx_null();
    return obj;
}

static bool classify_arg(px *x, TSNode a, gx_arg *out, const py_scope *sc, int depth)
{
    TSNode e = unparen(a);
    if (is_null(e))
        return false;
    if (ty(e) == N_CALL && !out->splat) {
        TSNode p = rstripped_param(x, e, sc);
        if (!is_null(p))
            e = p;
    }
    unsigned t = ty(e);
    out->fwd_pos = -1;
    if (out->splat) {
        /* *args passed on: the enclosing function's own *args. */
        const py_param *p = graph__py_param_named(x, sc, unparen(ts_node_named_child(e, 0)));
        if (!p || !p->varargs || p->pos < 0)
            return false;
        out->fwd = true;
        out->fwd_pos = p->pos;
        return true;
    }
    if (t == N_IDENTIFIER || t == N_ATTRIBUTE) {
        size_t n;
        const char *s = graph__py_last_segment(x, e, &n);
        if (graph__const_like(s, n)) {
            graph_level lvl = graph__level_of_word(s, n);
            if (lvl != GRAPH_LEVEL_NONE) {
                out->level = (uint8_t)lvl;
                return true;
            }
        }
        const py_param *p = t == N_IDENTIFIER ? graph__py_param_named(x, sc, e) : NULL;
        if (p) {
            if (p->varargs || (p->pos < 0 && !p->kw))
                return false;
            set_fwd(out, p);
            return true;
        }
        if (graph__const_like(s, n)) {
            out->ref = graph__py_path_of(x, e, sc, 0);
            out->style = GRAPH_STYLE_REF;
            return out->ref != NULL;
        }
        /* A local or an attribute: text known only at run time. A
         * logger handed on is kept by name (a class's calls log to it:
         * gx_call.logger_at). */
        const py_logger *lg = t == N_IDENTIFIER ? graph__py_find_logger(x, text(x, e)) : NULL;
        if (lg && !lg->is_alias)
            out->logger = lg->logger;
        out->style = GRAPH_STYLE_DYNAMIC;
        return true;
    }
    /* 'warning', as getattr(log, level) takes it: a level, and text.
     * (No level's name, quotes and all, is longer than LEVEL_LITERAL_MAX:
     * longer literals are not decoded for it.) */
    if (t == N_STRING && ts_node_end_byte(e) - ts_node_start_byte(e) <= LEVEL_LITERAL_MAX) {
        const char *v = graph__py_string_value(x, e);
        if (v)
            out->level = (uint8_t)graph__level_of_word(v, strlen(v));
    }
    bool with_args = out->nafter > 0;
    /* "[chan " + name + "] " + msg: a parameter passed on with text
     * around it. */
    if (plus_fwd(x, e, with_args, out, sc, depth))
        return true;
    /* The same written f"[chan {name}] {msg}", the parameter named like a
     * message (a value's field, f"Connected to {host}", is the
     * function's own text; an attribute the constructor keeps is read in
     * a context manager's methods alone: field_fwd). */
    if (is_stringish(t) && sc->nparams) {
        gx_arg f = *out;
        f.pre = f.post = NULL;
        graph__tmpl_clear(&x->tmpl);
        if (fstring_fwd(x, e, with_args, &f, sc) && !f.field) {
            *out = f;
            return true;
        }
        graph__tmpl_clear(&x->tmpl);
    }
    if (!(is_stringish(t) || t == N_BINARY_OPERATOR || t == N_CALL || t == N_SUBSCRIPT))
        return false;
    msg_info mi = graph__py_build_message(x, e, with_args, sc, depth + 1);
    uint32_t flags = 0;
    const char *tm = graph__tmpl_take(&x->tmpl, x->f, &flags);
    /* '' is text too: a wrapper may log it with words of its own around
     * it (`log('', 'HTTP', traceback=True)`). */
    if (!tm && mi.style == GRAPH_STYLE_PLAIN && is_stringish(t))
        tm = "";
    switch (mi.style) {
    case GRAPH_STYLE_PLAIN:
    case GRAPH_STYLE_PERCENT:
    case GRAPH_STYLE_BRACE:
    case GRAPH_STYLE_FSTRING:
    case GRAPH_STYLE_CONCAT:
        if (!tm)
            return false;
        out->tmpl = tm;
        out->style = (uint8_t)mi.style;
        out->flags |= flags;
        if (mi.style == GRAPH_STYLE_FSTRING)
            field_fwd(x, e, with_args, out, sc);
        return true;
    case GRAPH_STYLE_REF:
        /* "..." % NAME or MESSAGES["key"]: the constant holds it. */
        if (!mi.ref ||
            !graph__const_like(gx_last_component(mi.ref), strcspn(gx_last_component(mi.ref), "[")))
            return false;
        out->ref = mi.ref;
        out->style = GRAPH_STYLE_REF;
        return true;
    case GRAPH_STYLE_DYNAMIC:
        /* A call's result or a subscript: text known only at run time. */
        out->style = GRAPH_STYLE_DYNAMIC;
        return t == N_CALL || t == N_SUBSCRIPT;
    default:
        return false;
    }
}

#define MAX_CALL_ARGS 32

/*
 * The arguments of a call (up to MAX_CALL_ARGS): the value of each (a
 * keyword argument's value) into nodes, what is known of it before it is
 * classified (keyword, position, splat, the positional arguments after
 * it) into meta. Returns how many.
 */
static uint32_t call_args(px *x, TSNode args, TSNode *nodes, gx_arg *meta, int depth)
{
    uint32_t n = 0, pos = 0, npositional = 0;
    bool after_splat = false;
    TSTreeCursor *c = gx_cursor(&x->cur, depth, args);
    bool more = ts_tree_cursor_goto_first_child(c);
    for (; more && n < MAX_CALL_ARGS; more = ts_tree_cursor_goto_next_sibling(c)) {
        TSNode a = ts_tree_cursor_current_node(c);
        if (!ts_node_is_named(a) || ty(a) == N_COMMENT || ty(a) == N_DICTIONARY_SPLAT)
            continue;
        gx_arg m;
        memset(&m, 0, sizeof m);
        if (ty(a) == N_KEYWORD_ARGUMENT) {
            TSNode k = fieldn(a, F_NAME), v = fieldn(a, F_VALUE);
            if (is_null(k) || is_null(v))
                continue;
            m.kw = text(x, k);
            m.pos = UINT32_MAX;
            a = v;
        } else {
            m.splat = ty(a) == N_LIST_SPLAT;
            m.pos = after_splat ? UINT32_MAX : pos;
            pos++;
            npositional++;
            after_splat |= m.splat;
            /* nafter is filled in below, once the count is known. */
            m.nafter = npositional;
        }
        nodes[n] = a;
        meta[n++] = m;
    }
    for (uint32_t i = 0; i < n; i++)
        if (!meta[i].kw)
            meta[i].nafter = npositional - meta[i].nafter;
    return n;
}

/* `for q in self.platform.begin_sql(): self.log_query(q)`: the call
 * whose items the variable id at at goes through (the innermost loop of
 * that name around at, in its function); null otherwise. */
static TSNode loop_call(px *x, TSNode id, TSNode at)
{
    for (TSNode p = ts_node_parent(at); !is_null(p); p = ts_node_parent(p)) {
        unsigned t = ty(p);
        if (t == N_FUNCTION_DEFINITION || t == N_LAMBDA || t == N_CLASS_DEFINITION)
            break;
        TSNode l = t == N_FOR_STATEMENT ? fieldn(p, F_LEFT) : gx_null();
        if (is_null(l) || ty(l) != N_IDENTIFIER || !same_text(x, l, id))
            continue;
        TSNode r = unparen(fieldn(p, F_RIGHT));
        return !is_null(r) && ty(r) == N_CALL ? r : gx_null();
    }
    return gx_null();
}

/* The call e is, the call a loop's variable e goes through, or the call
 * a local e is bound to on every path to `at`; null otherwise. */
static TSNode call_of(px *x, TSNode e, TSNode at, const py_scope *sc)
{
    e = unparen(e);
    TSNode v;
    if (!is_null(e) && ty(e) == N_IDENTIFIER) {
        TSNode c = loop_call(x, e, at);
        e = !is_null(c)                                        ? c
            : graph__py_bound_values(x, e, at, sc, &v, 1) == 1 ? unparen(v)
                                                               : gx_null();
    }
    return !is_null(e) && ty(e) == N_CALL ? e : gx_null();
}

const char *graph__py_result_of(px *x, TSNode e, TSNode at, const py_scope *sc)
{
    TSNode c = call_of(x, e, at, sc);
    TSNode fn = is_null(c) ? c : fieldn(c, F_FUNCTION);
    if (is_null(fn) || (ty(fn) != N_IDENTIFIER && ty(fn) != N_ATTRIBUTE))
        return NULL;
    TSNode args = fieldn(c, F_ARGUMENTS);
    /* Handed a message its caller passed on (`_pre(self, msg)`), it
     * decorates that message: what it returns is the caller's text, and
     * the enclosing function a wrapper. */
    for (uint32_t i = 0, n = is_null(args) ? 0 : ts_node_named_child_count(args); i < n; i++) {
        const py_param *p = fwd_param(x, sc, ts_node_named_child(args, i));
        if (p && graph__message_like(p->name))
            return NULL;
    }
    if (ty(fn) == N_IDENTIFIER && text_eq(x, fn, "str") && !is_null(args) &&
        ts_node_named_child_count(args) == 1) {
        TSNode made = call_of(x, ts_node_named_child(args, 0), at, sc);
        TSNode cls = is_null(made) ? made : fieldn(made, F_FUNCTION);
        const char *p = is_null(cls) ? NULL : graph__py_path_of(x, cls, sc, 0);
        if (!p || !graph__capwords(gx_last_component(p)))
            return NULL;
        char buf[1024];
        int n = snprintf(buf, sizeof buf, "%s.__str__", p);
        return n > 0 && (size_t)n < sizeof buf ? core_arena_strndup(&x->f->arena, buf, (size_t)n)
                                               : NULL;
    }
    return graph__py_path_of(x, fn, sc, 0);
}

/* The name chains a call passes by position, for the parameters they
 * type (gx_pass); positions after a splat are unknown. */
void graph__py_record_passes(px *x, TSNode args, const char *callee, const py_scope *sc)
{
    if (!callee || is_null(args) || ty(args) != N_ARGUMENT_LIST)
        return;
    uint32_t k = ts_node_named_child_count(args), pos = 0;
    for (uint32_t i = 0; i < k && pos < PASS_POS_MAX; i++) {
        TSNode a = ts_node_named_child(args, i);
        unsigned t = ty(a);
        if (t == N_LIST_SPLAT || t == N_DICTIONARY_SPLAT)
            return;
        if (t == N_KEYWORD_ARGUMENT || t == N_COMMENT)
            continue;
        const char *v =
            t == N_IDENTIFIER || t == N_ATTRIBUTE ? graph__py_path_of(x, a, sc, 0) : NULL;
        if (v) {
            gx_pass p = {.callee = callee, .value = v, .from = sc->sym, .pos = pos};
            core_vec_push(&x->f->passes, p);
        }
        pos++;
    }
}

/* Whether call is the expression of a `with` item (`with C(...) as c:`). */
static bool made_by_with(TSNode call)
{
    TSNode p = ts_node_parent(call);
    if (!is_null(p) && ty(p) == N_AS_PATTERN)
        p = ts_node_parent(p);
    return !is_null(p) && ty(p) == N_WITH_ITEM;
}

/*
 * Records a call that may reach a logging wrapper (see gx_call). `emit`
 * is the index of the emit the call made (pl its plan), or -1: a logging
 * call is recorded only when its message passes on a parameter, which is
 * what makes the enclosing function a wrapper.
 */
/* The level argument of a logging call whose method getattr chooses
 * (`getattr(log, level)(...)`); null for any other call. */
static TSNode chosen_level(TSNode call)
{
    TSNode fn = unparen(fieldn(call, F_FUNCTION));
    if (is_null(fn) || ty(fn) != N_CALL)
        return gx_null();
    TSNode args = fieldn(fn, F_ARGUMENTS);
    return is_null(args) || ts_node_named_child_count(args) < 2
               ? gx_null()
               : unparen(ts_node_named_child(args, 1));
}

void graph__py_record_call(px *x, TSNode call, const char *callee, const emit_plan *pl,
                           int32_t emit, const py_scope *sc, int depth)
{
    if (!callee || strcmp(callee, "@super") == 0)
        return;
    emit_plan one;
    if (emit >= 0 && pl->kind == GRAPH_EMIT_PRINT && sc->nparams) {
        /* print(f"[app] {msg}"), print(msg), sys.stderr.write(msg): one
         * thing printed is the message, as a logging call's is; a print
         * of several shows its callers' *args, or their message among
         * words of its own (record_print_fwd). */
        if (pl->msg_index < 0 && !record_print_fwd(x, call, callee, emit, sc))
            return;
        one = *pl;
        one.kind = GRAPH_EMIT_LOG;
        one.msg_index = 0;
        pl = &one;
    }
    if (emit >= 0 && (pl->kind != GRAPH_EMIT_LOG || pl->msg_index < 0 || !sc->nparams))
        return;
    /* A class made at a `with` may be a context manager that logs what
     * it is made with (ctor_field); other classes' calls are no sites. */
    if (emit < 0 && graph__capwords(gx_last_component(callee)) && !made_by_with(call))
        return;
    TSNode args = fieldn(call, F_ARGUMENTS);
    if (is_null(args) || ty(args) != N_ARGUMENT_LIST)
        return;
    TSNode nodes[MAX_CALL_ARGS];
    gx_arg meta[MAX_CALL_ARGS];
    uint32_t n = call_args(x, args, nodes, meta, depth);
    long stacklevel = emit >= 0 ? stacklevel_of(x, nodes, meta, n) : 0;

    size_t first = x->f->args.n;
    gx_call rc = {.callee = callee,
                  .from = sc->sym,
                  .emit = emit,
                  .msg_arg = -1,
                  .level_arg = -1,
                  .line = gx_line(call),
                  .arg0 = (uint32_t)first};
    bool useful = false, dynamic = false, level = false;
    /* A local that may hold several messages (see
     * graph__py_local_messages()): the call is recorded once per message,
     * with everything else the same. Only the first such argument varies;
     * later ones take their nearest binding's message. */
    gx_arg alts[LOCAL_MAX_ALTS];
    uint32_t nalts = 0;
    int32_t alt_at = -1;
    for (uint32_t i = 0; i < n; i++) {
        gx_arg *m = &meta[i];
        bool is_msg = false, is_level = false;
        if (emit >= 0) {
            /* Only the message and, for logger.log(level, msg), the level.
             * `*args` from the message on passes the callers' message. */
            is_msg = m->kw ? pl->msg_kw && strcmp(m->kw, pl->msg_kw) == 0
                           : m->pos == (uint32_t)pl->msg_index;
            is_level = pl->msg_index == 1 && !m->kw && m->pos == 0 && !m->splat;
            if (!is_msg && !is_level)
                continue;
        }
        local_msg lm[LOCAL_MAX_ALTS];
        gx_arg two = {0};
        uint32_t nl = emit < 0 && !m->splat
                          ? graph__py_local_messages(x, unparen(nodes[i]), call, m->nafter > 0, sc,
                                                     depth + 1, lm, alt_at < 0 ? LOCAL_MAX_ALTS : 1)
                          : 0;
        if (nl) {
            gx_arg plain = *m;
            for (uint32_t k = 0; k < nl; k++) {
                gx_arg *o = k ? &alts[k] : m;
                *o = plain;
                o->tmpl = lm[k].tmpl;
                o->style = lm[k].style;
                o->flags |= lm[k].flags;
            }
            if (nl > 1) {
                alt_at = (int32_t)(x->f->args.n - first);
                nalts = nl;
            }
        } else if (!(is_msg && (message_fwd(x, nodes[i], call, m->nafter > 0, m,
                                            alt_at < 0 ? &two : NULL, sc, depth + 1) ||
                                table_fwd(x, nodes[i], m, sc) || joined_fwd(x, nodes[i], m, sc))) &&
                   !classify_arg(x, nodes[i], m, sc, depth + 1)) {
            continue;
        } else if (two.fwd) {
            /* Two ways the local passes the text on: a call each. */
            alts[1] = two;
            nalts = 2;
            alt_at = (int32_t)(x->f->args.n - first);
        }
        if (emit >= 0) {
            if (is_msg && !m->fwd)
                args_fwd(x, nodes[i], nodes, meta, n, m->pos, stacklevel >= 2 || sc->logger_cls, m,
                         sc);
            if (is_msg && !m->fwd)
                continue;
            if (is_msg)
                rc.msg_arg = (int32_t)(x->f->args.n - first);
            else
                rc.level_arg = (int32_t)(x->f->args.n - first);
        }
        if (emit < 0 && m->style == GRAPH_STYLE_DYNAMIC && !m->fwd && !m->splat)
            m->ret = graph__py_result_of(x, nodes[i], call, sc);
        useful |= m->tmpl || m->ref || m->fwd || m->ret;
        dynamic |= m->style == GRAPH_STYLE_DYNAMIC;
        level |= m->level != GRAPH_LEVEL_NONE;
        core_vec_push(&x->f->args, *m);
    }
    /* A method chosen by a parameter (`getattr(log, level)(msg)`): that
     * parameter is the call's level. */
    TSNode chosen = emit >= 0 ? chosen_level(call) : gx_null();
    if (!is_null(chosen) && rc.msg_arg >= 0 && rc.level_arg < 0) {
        gx_arg l = {.pos = UINT32_MAX};
        if (classify_arg(x, chosen, &l, sc, depth + 1) && l.fwd) {
            rc.level_arg = (int32_t)(x->f->args.n - first);
            core_vec_push(&x->f->args, l);
        }
    }
    /* A message known only at run time passed with a level constant
     * (`self._log(ERROR, lines)`): a wrapper's site without text. Without
     * the level, such calls are most calls, and say nothing. */
    useful |= dynamic && level;
    if (emit >= 0)
        useful = rc.msg_arg >= 0;
    if (!useful) {
        x->f->args.n = first;
        return;
    }
    rc.nargs = (uint32_t)(x->f->args.n - first);
    if (emit >= 0) {
        /* self.logger.debug(...) with the constructor's logger. */
        TSNode fn = fieldn(call, F_FUNCTION);
        TSNode recv = !is_null(fn) && ty(fn) == N_ATTRIBUTE ? fieldn(fn, F_OBJECT) : gx_null();
        const py_param *lp = is_null(recv) ? NULL : ctor_param(x, sc, recv);
        if (lp && lp->pos >= 0)
            rc.logger_at = 1 + (uint32_t)lp->pos;
    }
    core_vec_push(&x->f->calls, rc);
    graph__push_alt_calls(x->f, &rc, alts, nalts, alt_at);
}
