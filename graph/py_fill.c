/*
 * Python extraction: which literal a logging call's argument gives a hole
 * of its template (graph_int.h says why and what is done with it).
 *
 * Exact values: a string literal, or a pick among literals (a tuple or
 * list literal indexed, a local bound to one, `"a" if c else "b"`), or a
 * local or `self.name` bound to literals before the call on every path
 * to it (`self.last_error = "connection is read-only"` then `log("%s for
 * <%s>", self.last_error, self)`). A value that holds a literal: a
 * function's call whose first argument is a string (a colouring or
 * quoting helper). Only holes that render their argument as it is are
 * filled (`%s`, `{name}`, `{0}`, `{}`, `!s`), and only when the
 * message is a literal at the call, so that its holes are the call's own
 * arguments: positional ones after the message in order, keyword ones by
 * the field's name.
 */
#include "py_int.h"

#include <string.h>

/* Adds a string literal's value to out; false if e is none. */
static bool add_literal(px *x, TSNode e, gx_fill_vals *out)
{
    e = unparen(e);
    if (is_null(e) || ty(e) != N_STRING)
        return false;
    const char *v = graph__py_string_value(x, e);
    return v && graph__fill_add(out, v);
}

/* Every element of a tuple or list literal a string literal: their values. */
static bool add_sequence(px *x, TSNode e, gx_fill_vals *out)
{
    e = unparen(e);
    if (is_null(e) || (ty(e) != N_TUPLE && ty(e) != N_LIST))
        return false;
    uint32_t n = ts_node_named_child_count(e), k = 0;
    for (uint32_t i = 0; i < n; i++) {
        TSNode c = ts_node_named_child(e, i);
        if (ty(c) == N_COMMENT)
            continue;
        if (!add_literal(x, c, out))
            return false;
        k++;
    }
    return k > 0;
}

/* The tuples or lists of literals local e certainly holds one of at
 * `at`: their values; false when any is unknown. */
static bool add_bound_sequences(px *x, TSNode e, TSNode at, const py_scope *sc, gx_fill_vals *out)
{
    TSNode vals[LOCAL_MAX_ALTS];
    uint32_t nv = graph__py_bound_values(x, e, at, sc, vals, LOCAL_MAX_ALTS);
    for (uint32_t i = 0; i < nv; i++)
        if (!add_sequence(x, vals[i], out))
            return false;
    return nv > 0;
}

/* The exact values an expression may take, as far as the literals in it
 * and the locals bound before `at` say; false when any is unknown. */
static bool exact_values(px *x, TSNode e, TSNode at, const py_scope *sc, gx_fill_vals *out)
{
    switch (ty(e)) {
    case N_STRING:
        return add_literal(x, e, out);
    case N_CONDITIONAL_EXPRESSION: /* a if cond else b */
        return add_literal(x, ts_node_named_child(e, 0), out) &&
               add_literal(x, ts_node_named_child(e, 2), out);
    case N_SUBSCRIPT: {
        TSNode seq = unparen(fieldn(e, F_VALUE));
        if (is_null(seq))
            return false;
        if (ty(seq) != N_IDENTIFIER)
            return add_sequence(x, seq, out);
        return add_bound_sequences(x, seq, at, sc, out);
    }
    default:
        return false;
    }
}

/* A message formatted from a literal (`"key '%s' not present" % key`,
 * `"{} left".format(n)`): its template, into out. */
static bool add_format(px *x, TSNode e, const py_scope *sc, gx_fill_vals *out)
{
    e = unparen(e);
    bool fmt =
        !is_null(e) && ((ty(e) == N_BINARY_OPERATOR && binop(e) == A_PERCENT) || ty(e) == N_CALL);
    if (!fmt || x->tmpl.buf.len || x->tmpl.holes)
        return false;
    msg_info mi = graph__py_build_message(x, e, false, sc, 0);
    uint32_t flags = 0;
    const char *t = graph__tmpl_take(&x->tmpl, x->f, &flags);
    bool ok = (mi.style == GRAPH_STYLE_PERCENT || mi.style == GRAPH_STYLE_BRACE) && t && *t &&
              !(flags & GRAPH_EF_TRUNCATED);
    return ok && graph__fill_add(out, t);
}

/* What argument e gives a hole that renders it as it is. */
static gx_fill_vals arg_values(px *x, TSNode e, TSNode at, const py_scope *sc)
{
    gx_fill_vals r = {GX_FILL_NONE, 0, {0}};
    e = unparen(e);
    if (is_null(e))
        return r;
    if (ty(e) == N_IDENTIFIER || ty(e) == N_ATTRIBUTE) {
        /* A name bound before the call on every path to it: to literals
         * (`self.last_error = "..."`), or a local to messages formatted
         * from one (`msg = "key '%s' not present" % k`). */
        TSNode v[LOCAL_MAX_ALTS];
        uint32_t nv = graph__py_bound_values(x, e, at, sc, v, LOCAL_MAX_ALTS), k = 0;
        while (k < nv && add_literal(x, v[k], &r))
            k++;
        if (nv && k == nv) {
            r.kind = GX_FILL_EXACT;
            return r;
        }
        r.n = 0;
        k = 0;
        while (ty(e) == N_IDENTIFIER && k < nv && add_format(x, v[k], sc, &r))
            k++;
        if (nv && k == nv)
            r.kind = GX_FILL_FORMAT;
        else
            r.n = 0;
        return r;
    }
    if (exact_values(x, e, at, sc, &r)) {
        r.kind = GX_FILL_EXACT;
        return r;
    }
    r.n = 0;
    if (ty(e) == N_CALL && graph__py_works_on_args(x, fieldn(e, F_FUNCTION))) {
        TSNode args = fieldn(e, F_ARGUMENTS);
        if (!is_null(args) && add_literal(x, ts_node_named_child(args, 0), &r))
            r.kind = GX_FILL_HOLDS;
    }
    return r;
}

typedef struct {
    px *x;
    const fill_args *fa;
    const py_scope *sc;
    uint32_t next_pos; /* positional arguments taken by %-directives and "{}" */
} py_fill;

/* The index a numbered field names ("{12}", "{0.attr}"): its leading
 * digits of s, n bytes at most. */
static uint32_t field_number(const char *s, size_t n)
{
    uint32_t k = 0;
    for (size_t j = 0; j < n && s[j] >= '0' && s[j] <= '9' && k < 1000; j++)
        k = k * 10 + (uint32_t)(s[j] - '0');
    return k;
}

/* The argument the hole t[i, i + d) renders as it is, if any (gx_null()
 * when none, or when it formats it). */
static TSNode hole_arg(py_fill *pf, const char *t, size_t i, size_t d)
{
    const fill_args *fa = pf->fa;
    if (t[i] == '%') {
        /* Only "%s": a mapping key, flags, a width or another conversion
         * change the text. */
        uint32_t k = pf->next_pos++;
        if (d != 2 || t[i + 1] != 's')
            return gx_null();
        return k < fa->npos ? fa->pos[k] : gx_null();
    }
    /* "{" arg_name ["!s"] "}": a field with an attribute, an index, a
     * conversion other than !s or a format spec is not filled. */
    size_t e = i + 1, end = i + d - 1;
    while (e < end && t[e] != '!' && t[e] != ':' && t[e] != '.' && t[e] != '[')
        e++;
    bool plain = e == end || (t[e] == '!' && e + 2 == end && t[e + 1] == 's');
    const char *name = t + i + 1;
    size_t nlen = e - (i + 1);
    if (nlen == 0) {
        uint32_t k = pf->next_pos++;
        return plain && k < fa->npos ? fa->pos[k] : gx_null();
    }
    if (!plain)
        return gx_null();
    if (name[0] >= '0' && name[0] <= '9') {
        uint32_t k = field_number(name, nlen);
        return k < fa->npos ? fa->pos[k] : gx_null();
    }
    for (uint32_t k = 0; k < fa->nkw; k++) {
        TSNode kn = fa->kw_name[k];
        uint32_t a = ts_node_start_byte(kn), b = ts_node_end_byte(kn);
        if (b - a == nlen && memcmp(pf->x->src + a, name, nlen) == 0)
            return fa->kw_value[k];
    }
    return gx_null();
}

static gx_fill_vals py_hole(void *ud, const char *t, size_t i, size_t d)
{
    py_fill *pf = ud;
    TSNode a = hole_arg(pf, t, i, d);
    return is_null(a) ? (gx_fill_vals){GX_FILL_NONE, 0, {0}}
                      : arg_values(pf->x, a, pf->fa->at, pf->sc);
}

/* Whether the call passes more positional arguments than template t
 * takes (its "%s"-style directives and "{}" fields one each, "{N}" up to
 * N + 1): they are then not the format's one for one. A logging function
 * of the code's own may read some as markers of how to show the one
 * before them, and drop them (`Log.debug("recv: {} old: {}", data, ":hex",
 * old, ":hex")`); the standard library would refuse such a call for "%s"
 * and ignore the rest for "{}". Which literal fills which hole is then
 * unknown. A mapping's "%(key)s" takes its one argument whole. */
static bool surplus_args(const char *t, uint32_t npos)
{
    uint32_t used = 0;
    size_t n = strlen(t);
    for (size_t i = 0; i < n;) {
        graph_tmpl_piece pc;
        size_t d = graph_tmpl_step(t, n, i, &pc);
        if (pc.hole && t[i] == '%') {
            if (d > 1 && t[i + 1] == '(')
                return false;
            used++;
        } else if (pc.hole && t[i] == '{') {
            if (t[i + 1] >= '0' && t[i + 1] <= '9') {
                uint32_t k = field_number(t + i + 1, d - 1);
                if (k + 1 > used)
                    used = k + 1;
            } else if (t[i + 1] == '}' || t[i + 1] == '!' || t[i + 1] == ':') {
                used++;
            }
        }
        i += d;
    }
    return npos > used;
}

void graph__py_push_filled(px *x, const gx_emit *em, const fill_args *fa, const py_scope *sc)
{
    /* (A literal with fields and keyword arguments is read as plain text
     * when nothing follows the message; its fields are holes all the same.) */
    bool fills = em->style == GRAPH_STYLE_PERCENT || em->style == GRAPH_STYLE_BRACE ||
                 em->style == GRAPH_STYLE_PLAIN;
    if (!fills || (fa->npos == 0 && fa->nkw == 0) ||
        (em->tmpl && surplus_args(em->tmpl, fa->npos))) {
        core_vec_push(&x->f->emits, *em);
        return;
    }
    py_fill pf = {.x = x, .fa = fa, .sc = sc};
    graph__fill_push(x->f, em, py_hole, &pf);
}
