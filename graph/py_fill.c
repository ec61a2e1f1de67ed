/*
 * Python extraction: literal arguments filled into a logging call's
 * template.
 *
 * Two sites often log one template and differ only in what they pass:
 * `log.trace("{action1}{session}", action1=color("Receive("), ...)` in one
 * method and `action1=color("Transmit(")` in the other, or
 * `log.debug("%s %s", kinds[t], line)` with `kinds = ("I", "<", ">")`
 * beside a `log.debug("%s %s", method, url)` elsewhere. The template alone
 * ties them; the literal a hole receives tells them apart. So a hole whose
 * argument is known here gets it:
 *   - a string literal, or a pick among literals (`("a", "b")[i]`, a local
 *     bound to such a tuple or list, `"a" if c else "b"`): the hole is
 *     replaced by each value, one emit site per combination, since the
 *     rendering is exactly that text;
 *   - a call whose first argument is a string literal (a colouring or
 *     quoting helper): the rendering most likely holds the literal, with
 *     whatever the helper adds around it, so the site gets a second
 *     template, the hole written on both sides of the literal, beside the
 *     one it has (the helper may also transform its argument).
 * Only holes that render their argument as it is (`%s`, `{name}`, `{0}`,
 * `{}`, `!s`) are filled, and only when the message is a literal at the
 * call, so that its holes are the call's own arguments. The matcher then
 * prefers the template with the most literal text, as it does everywhere.
 */
#include "py_int.h"

#include <string.h>

#define FILL_VALUES 8   /* values of one hole */
#define FILL_VARIANTS 8 /* templates per site */

typedef enum { FV_NONE, FV_EXACT, FV_HOLDS } fill_kind;

typedef struct {
    fill_kind kind;
    uint32_t n;
    const char *v[FILL_VALUES];
} fill_vals;

/* Adds a string literal's value to out; false if e is none. */
static bool add_literal(px *x, TSNode e, fill_vals *out)
{
    e = unparen(e);
    if (is_null(e) || ty(e) != N_STRING)
        return false;
    const char *v = graph__py_string_value(x, e);
    if (!v)
        return false;
    for (uint32_t i = 0; i < out->n; i++)
        if (strcmp(out->v[i], v) == 0)
            return true;
    if (out->n >= FILL_VALUES)
        return false;
    out->v[out->n++] = v;
    return true;
}

/* Every element of a tuple or list literal a string literal: their values. */
static bool add_sequence(px *x, TSNode e, fill_vals *out)
{
    e = unparen(e);
    if (is_null(e) || (ty(e) != N_TUPLE && ty(e) != N_LIST))
        return false;
    uint32_t n = ts_node_named_child_count(e);
    if (n == 0)
        return false;
    for (uint32_t i = 0; i < n; i++) {
        TSNode c = ts_node_named_child(e, i);
        if (ty(c) == N_COMMENT)
            continue;
        if (!add_literal(x, c, out))
            return false;
    }
    return true;
}

/* The exact values an expression may take, as far as the literals in it
 * and the locals bound before `at` say; false when any is unknown. */
static bool exact_values(px *x, TSNode e, TSNode at, const py_scope *sc, fill_vals *out)
{
    e = unparen(e);
    if (is_null(e))
        return false;
    switch (ty(e)) {
    case N_STRING:
        return add_literal(x, e, out);
    case N_CONDITIONAL_EXPRESSION: {
        /* a if cond else b: the first and third named children. */
        TSNode a = ts_node_named_child(e, 0), b = ts_node_named_child(e, 2);
        return add_literal(x, a, out) && add_literal(x, b, out);
    }
    case N_SUBSCRIPT: {
        TSNode seq = unparen(fieldn(e, F_VALUE));
        if (is_null(seq))
            return false;
        if (ty(seq) != N_IDENTIFIER)
            return add_sequence(x, seq, out);
        TSNode vals[LOCAL_MAX_ALTS];
        uint32_t nv = graph__py_local_values(x, seq, at, sc, vals, LOCAL_MAX_ALTS);
        if (nv == 0)
            return false;
        for (uint32_t i = 0; i < nv; i++)
            if (!add_sequence(x, vals[i], out))
                return false;
        return true;
    }
    default:
        return false;
    }
}

/* What argument e gives a hole that renders it as it is. */
static fill_vals arg_values(px *x, TSNode e, TSNode at, const py_scope *sc)
{
    fill_vals r = {FV_NONE, 0, {0}};
    e = unparen(e);
    if (is_null(e))
        return r;
    if (exact_values(x, e, at, sc, &r)) {
        r.kind = FV_EXACT;
        return r;
    }
    r.n = 0;
    if (ty(e) == N_CALL) {
        TSNode args = fieldn(e, F_ARGUMENTS);
        TSNode a0 = is_null(args) ? gx_null() : ts_node_named_child(args, 0);
        if (!is_null(a0) && add_literal(x, a0, &r) && r.v[0][0]) {
            r.kind = FV_HOLDS;
            return r;
        }
    }
    r.n = 0;
    return r;
}

/* A hole of the stored template t at t[i], d bytes: the argument it
 * renders as it is, if any (gx_null() when none or when it formats it). */
static TSNode hole_arg(px *x, const char *t, size_t i, size_t d, const fill_args *fa,
                       uint32_t *next_pos)
{
    if (t[i] == '%') {
        /* Only "%s": a mapping key, flags, a width or another conversion
         * change the text. */
        uint32_t k = (*next_pos)++;
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
        uint32_t k = (*next_pos)++;
        return plain && k < fa->npos ? fa->pos[k] : gx_null();
    }
    if (!plain)
        return gx_null();
    if (name[0] >= '0' && name[0] <= '9') {
        uint32_t k = 0;
        for (size_t j = 0; j < nlen; j++)
            k = k * 10 + (uint32_t)(name[j] - '0');
        return k < fa->npos ? fa->pos[k] : gx_null();
    }
    for (uint32_t k = 0; k < fa->nkw; k++) {
        TSNode kn = fa->kw_name[k];
        uint32_t a = ts_node_start_byte(kn), b = ts_node_end_byte(kn);
        if (b - a == nlen && memcmp(x->src + a, name, nlen) == 0)
            return fa->kw_value[k];
    }
    return gx_null();
}

/* Appends value v to a stored template: '%' doubled, since the grammar
 * reads a lone one as the start of a directive. */
static void put_value(core_buf *b, const char *v)
{
    for (; *v; v++) {
        if (*v == '%')
            core_buf_putc(b, '%');
        core_buf_putc(b, *v);
    }
}

void graph__py_push_filled(px *x, const gx_emit *em, const fill_args *fa, const py_scope *sc)
{
    const char *t = em->tmpl;
    /* (A literal with fields and keyword arguments is read as plain text
     * when nothing follows the message; its fields are holes all the same.) */
    if (!t ||
        (em->style != GRAPH_STYLE_PERCENT && em->style != GRAPH_STYLE_BRACE &&
         em->style != GRAPH_STYLE_PLAIN) ||
        (fa->npos == 0 && fa->nkw == 0)) {
        core_vec_push(&x->f->emits, *em);
        return;
    }
    core_buf out[FILL_VARIANTS];
    memset(out, 0, sizeof out);
    uint32_t nv = 1, next_pos = 0;
    bool filled = false, holds = false;
    size_t n = strlen(t);
    for (size_t i = 0; i < n;) {
        graph_tmpl_piece pc;
        size_t d = graph_tmpl_step(t, n, i, &pc);
        if (!pc.hole) {
            for (uint32_t k = 0; k < nv; k++)
                core_buf_append(&out[k], t + i, d);
            i += d;
            continue;
        }
        TSNode a = hole_arg(x, t, i, d, fa, &next_pos);
        fill_vals fv = is_null(a) ? (fill_vals){FV_NONE, 0, {0}} : arg_values(x, a, fa->at, sc);
        if (fv.kind == FV_EXACT && nv * fv.n <= FILL_VARIANTS) {
            /* Each variant so far, once per value. */
            for (uint32_t k = nv; k-- > 0;)
                for (uint32_t j = fv.n; j-- > 0;) {
                    uint32_t to = k * fv.n + j;
                    if (to != k) {
                        core_buf_reset(&out[to]);
                        core_buf_append(&out[to], out[k].data, out[k].len);
                    }
                }
            for (uint32_t k = 0; k < nv * fv.n; k++)
                put_value(&out[k], fv.v[k % fv.n]);
            nv *= fv.n;
            filled = true;
        } else if (fv.kind == FV_HOLDS) {
            for (uint32_t k = 0; k < nv; k++) {
                core_buf_append(&out[k], t + i, d);
                put_value(&out[k], fv.v[0]);
                core_buf_append(&out[k], t + i, d);
            }
            filled = holds = true;
        } else {
            for (uint32_t k = 0; k < nv; k++)
                core_buf_append(&out[k], t + i, d);
        }
        i += d;
    }
    /* A helper may transform what it is given: the template as written
     * stays a candidate beside the filled ones. */
    if (!filled || holds)
        core_vec_push(&x->f->emits, *em);
    if (filled)
        for (uint32_t k = 0; k < nv; k++) {
            gx_emit v = *em;
            v.tmpl = core_arena_strndup(&x->f->arena, out[k].data ? out[k].data : "", out[k].len);
            core_vec_push(&x->f->emits, v);
        }
    for (uint32_t k = 0; k < FILL_VARIANTS; k++)
        core_buf_free(&out[k]);
}
