/*
 * TypeScript/JavaScript extraction: messages. String and template
 * literals, `+` chains and util.format calls, turned into templates as a
 * logging call reads them.
 */
#include "ts_int.h"

#include <string.h>

/* Does a decoded string hold a util.format directive? */
bool graph__ts_has_util_directive(const char *s, size_t n)
{
    for (size_t i = 0; i + 1 < n; i++)
        if (s[i] == '%' && s[i + 1] && strchr("sdifjoOc", s[i + 1]))
            return true;
    return false;
}

/* util.format's reading of a format string: %s %d %i %f %j %o %O %c take
 * an argument each (while there are some left: *avail) and are holes;
 * %% is a '%'; everything else is literal. */
static void put_util(tx *x, const char *s, size_t n, uint32_t *avail)
{
    size_t run = 0;
    for (size_t i = 0; i + 1 < n; i++) {
        if (s[i] != '%')
            continue;
        char c = s[i + 1];
        if (c == '%') {
            graph__tmpl_literal(&x->tmpl, s + run, i + 1 - run);
            run = i + 2;
            i++;
        } else if (c && strchr("sdifjoOc", c) && *avail > 0) {
            graph__tmpl_literal(&x->tmpl, s + run, i - run);
            graph__tmpl_format(&x->tmpl, s + i, 2);
            (*avail)--;
            x->directives++;
            run = i + 2;
            i++;
        }
    }
    graph__tmpl_literal(&x->tmpl, s + run, n - run);
}

static void put_text(tx *x, const char *s, size_t n, int mode, uint32_t *avail)
{
    if (mode == M_UTIL)
        put_util(x, s, n, avail);
    else if (mode == M_CONST)
        graph__tmpl_format(&x->tmpl, s, n);
    else
        graph__tmpl_literal(&x->tmpl, s, n);
}

/* Raw source text [a, b) of a string or template piece: decoded, then put. */
void graph__ts_put_raw(tx *x, uint32_t a, uint32_t b, int mode, uint32_t *avail)
{
    core_buf_reset(&x->scratch);
    graph__decode_escapes(&x->scratch, x->src + a, b - a, false);
    if (x->scratch.len)
        put_text(x, x->scratch.data, x->scratch.len, mode, avail);
}

/* A string literal into the template, read as mode says. */
void graph__ts_put_string(tx *x, TSNode s, int mode, uint32_t *avail)
{
    uint32_t a, b;
    graph__ts_string_raw(x, s, &a, &b);
    graph__ts_put_raw(x, a, b, mode, avail);
}

TSNode graph__ts_const_text(tx *x, TSNode sub)
{
    if (!x->msg_sc || ts_node_named_child_count(sub) != 1)
        return gx_null();
    TSNode id = unwrap(x, ts_node_named_child(sub, 0));
    local_vals lv;
    if (ty(x, id) != N_IDENTIFIER || !graph__ts_local_name(x, id, x->msg_sc))
        return gx_null();
    uint32_t n = graph__ts_const_values(x, id, x->msg_call, x->msg_sc, &lv);
    if (n == 0)
        n = graph__ts_closure_const_values(x, id, x->msg_sc, &lv);
    if (n != 1)
        return gx_null();
    TSNode v = unwrap(x, graph__ts_local_nearest(&lv, 0));
    return ty(x, v) == N_STRING || ty(x, v) == N_TEMPLATE_STRING ? v : gx_null();
}

bool graph__ts_template_walk(tx *x, TSNode t, const ts_template_visit *v, void *ud, int depth)
{
    uint32_t a, b;
    graph__ts_string_raw(x, t, &a, &b);
    uint32_t pos = a;
    /* Named children by index, not the walk's cursors: graph__ts_push_filled
     * calls this while the walk's cursors are in use. */
    uint32_t nc = ts_node_named_child_count(t);
    for (uint32_t i = 0; i < nc; i++) {
        TSNode ch = ts_node_named_child(t, i);
        if (ty(x, ch) != N_TEMPLATE_SUBSTITUTION)
            continue;
        uint32_t cs = ts_node_start_byte(ch), ce = ts_node_end_byte(ch);
        if (cs > pos && v->text)
            v->text(x, pos, cs < b ? cs : b, ud);
        TSNode val = depth < GX_MAX_DEPTH ? graph__ts_const_text(x, ch) : gx_null();
        if (is_null(val)) {
            if (!v->hole(x, ch, ud))
                return false;
        } else if (ty(x, val) == N_STRING) {
            if (v->string)
                v->string(x, val, ud);
        } else if (!graph__ts_template_walk(x, val, v, ud, depth + 1)) {
            return false;
        }
        if (ce > pos)
            pos = ce;
    }
    if (b > pos && v->text)
        v->text(x, pos, b, ud);
    return true;
}

/* graph__ts_put_template's visit: the text written in mode, a hole
 * counted per substitution. */
typedef struct {
    int mode;
    uint32_t *avail;
    uint32_t holes;
} put_visit;

static void visit_text(tx *x, uint32_t a, uint32_t b, void *ud)
{
    put_visit *p = ud;
    graph__ts_put_raw(x, a, b, p->mode, p->avail);
}

static void visit_string(tx *x, TSNode s, void *ud)
{
    put_visit *p = ud;
    graph__ts_put_string(x, s, p->mode, p->avail);
}

static bool visit_hole(tx *x, TSNode sub, void *ud)
{
    (void)sub;
    graph__tmpl_hole(&x->tmpl);
    ((put_visit *)ud)->holes++;
    return true;
}

NOINLINE uint32_t graph__ts_put_template(tx *x, TSNode t, int mode, uint32_t *avail, int depth)
{
    static const ts_template_visit v = {visit_text, visit_string, visit_hole};
    put_visit p = {mode, avail, 0};
    graph__ts_template_walk(x, t, &v, &p, depth);
    return p.holes;
}

/* The deepest object literal read as JSON text, and the most members. */
#define JSON_NEST 4
#define JSON_MEMBERS 32

/* A member's value as JSON.stringify writes it: a string literal quoted
 * (a hole when it needs escapes), a plain integer, true, false, null, an
 * object literal by put_json; anything else a hole (its text, quotes and
 * all, is the run's). */
static bool put_json(tx *x, TSNode obj, int nest, int depth);

static void put_json_value(tx *x, TSNode v, int nest, int depth)
{
    v = unwrap(x, v);
    unsigned t = ty(x, v);
    if (t == N_STRING) {
        size_t n;
        const char *s = graph__ts_decode_string(x, v, &n);
        bool plain = s != NULL;
        for (size_t i = 0; plain && i < n; i++)
            plain = s[i] != '"' && s[i] != '\\' && (unsigned char)s[i] >= 0x20;
        if (plain) {
            graph__tmpl_literal(&x->tmpl, "\"", 1);
            graph__tmpl_literal(&x->tmpl, s, n);
            graph__tmpl_literal(&x->tmpl, "\"", 1);
            return;
        }
    } else if (t == N_NUMBER || t == N_TRUE || t == N_FALSE || t == N_NULL) {
        const char *s = text(x, v);
        bool plain = true;
        for (const char *c = s; plain && t == N_NUMBER && *c; c++)
            plain = *c >= '0' && *c <= '9';
        if (plain && (t != N_NUMBER || s[0] != '0' || !s[1])) {
            graph__tmpl_literal(&x->tmpl, s, strlen(s));
            return;
        }
    } else if (t == N_OBJECT && nest < JSON_NEST) {
        gx_tmpl_mark mark = graph__tmpl_mark(&x->tmpl);
        if (put_json(x, v, nest + 1, depth + 1))
            return;
        graph__tmpl_rewind(&x->tmpl, mark);
    }
    graph__tmpl_hole(&x->tmpl);
}

/* An object literal as JSON.stringify writes it, without blanks, members
 * in their order; false when a member is more than a key and a value (a
 * spread, a method, a computed key). */
static bool put_json(tx *x, TSNode obj, int nest, int depth)
{
    TSNode m[JSON_MEMBERS];
    uint32_t n = 0;
    TSTreeCursor *c = kids(x, depth, obj);
    bool more = c != NULL;
    for (; more; more = ts_tree_cursor_goto_next_sibling(c)) {
        TSNode a = ts_tree_cursor_current_node(c);
        if (!ts_node_is_named(a) || ty(x, a) == N_COMMENT)
            continue;
        if (n == JSON_MEMBERS)
            return false;
        m[n++] = a;
    }
    graph__tmpl_literal(&x->tmpl, "{", 1);
    for (uint32_t i = 0; i < n; i++) {
        unsigned t = ty(x, m[i]);
        const char *key;
        size_t kl;
        TSNode k = t == N_PAIR ? fld(x, m[i], F_KEY) : m[i];
        unsigned kt = ty(x, k);
        if (kt == N_STRING) {
            key = graph__ts_decode_string(x, k, &kl);
        } else if (kt == N_PROPERTY_IDENTIFIER || kt == N_SHORTHAND_PROPERTY_IDENTIFIER) {
            key = text(x, k);
            kl = key ? strlen(key) : 0;
        } else {
            return false;
        }
        if (!key || (t != N_PAIR && t != N_SHORTHAND_PROPERTY_IDENTIFIER) || memchr(key, '"', kl) ||
            memchr(key, '\\', kl))
            return false;
        if (i)
            graph__tmpl_literal(&x->tmpl, ",", 1);
        graph__tmpl_literal(&x->tmpl, "\"", 1);
        graph__tmpl_literal(&x->tmpl, key, kl);
        graph__tmpl_literal(&x->tmpl, "\":", 2);
        if (t == N_PAIR)
            put_json_value(x, fld(x, m[i], F_VALUE), nest, depth);
        else
            graph__tmpl_hole(&x->tmpl);
    }
    graph__tmpl_literal(&x->tmpl, "}", 1);
    return true;
}

/* The one argument of `JSON.stringify(v)` into *v (a replacer or an
 * indent lays the text out otherwise); false if e is no such call. */
static bool json_call_arg(tx *x, TSNode e, int depth, TSNode *v)
{
    if (ty(x, e) != N_CALL_EXPRESSION)
        return false;
    const char *p = graph__ts_path_of(x, fld(x, e, F_FUNCTION), 0);
    if (!p || strcmp(p, "JSON.stringify") != 0 ||
        graph__ts_collect_args(x, fld(x, e, F_ARGUMENTS), v, 1, depth + 1) != 1)
        return false;
    *v = unwrap(x, *v);
    return true;
}

/* An object literal's JSON text into the template, keys and literal
 * values as written, a hole per other value. False, the template as it
 * was, when obj is no object literal or one JSON text cannot show. */
bool graph__ts_put_json_object(tx *x, TSNode obj, int depth)
{
    if (ty(x, obj) != N_OBJECT)
        return false;
    gx_tmpl_mark mark = graph__tmpl_mark(&x->tmpl);
    if (put_json(x, obj, 0, depth))
        return true;
    graph__tmpl_rewind(&x->tmpl, mark);
    return false;
}

/* `JSON.stringify({ event: 'paid', id })`, an object literal and nothing
 * else: its JSON text (graph__ts_put_json_object). */
bool graph__ts_put_json_call(tx *x, TSNode e, int depth)
{
    TSNode v;
    return json_call_arg(x, e, depth, &v) && graph__ts_put_json_object(x, v, depth + 1);
}

/* `JSON.stringify(fields)` of a parameter: a function that logs it logs
 * the JSON text of what its callers pass (an object literal's, when they
 * write one). */
const ts_param *graph__ts_json_param(tx *x, TSNode e, const ts_scope *sc, int depth)
{
    TSNode v;
    if (!json_call_arg(x, unwrap(x, e), depth, &v) || ty(x, v) != N_IDENTIFIER)
        return NULL;
    const ts_param *p = graph__ts_param_named(x, sc, v);
    return p && !p->rest ? p : NULL;
}

/* `'a' + x + 'b'`: literal pieces and holes, left to right. */
NOINLINE void graph__ts_put_concat(tx *x, TSNode e, int mode, uint32_t *avail, int nest, int depth)
{
    TSNode ops[PLUS_MAX];
    uint32_t k = graph__ts_plus_operands(x, e, ops, PLUS_MAX);
    for (uint32_t i = 0; i < k; i++) {
        unsigned t = ty(x, ops[i]);
        if (t == N_STRING)
            graph__ts_put_string(x, ops[i], mode, avail);
        else if (t == N_TEMPLATE_STRING)
            graph__ts_put_template(x, ops[i], mode, avail, depth + 1);
        else if (is_plus(x, ops[i]) && nest < PLUS_NEST && graph__ts_stringish(x, ops[i], nest + 1))
            graph__ts_put_concat(x, ops[i], mode, avail, nest + 1, depth + 1);
        else if (!graph__ts_put_json_call(x, ops[i], depth + 1))
            graph__tmpl_hole(&x->tmpl);
    }
}

/* Collects the arguments of an `arguments` node (up to max; returns how
 * many there are in all). */
NOINLINE uint32_t graph__ts_collect_args(tx *x, TSNode args, TSNode *out, uint32_t max, int depth)
{
    uint32_t k = 0;
    if (ty(x, args) != N_ARGUMENTS)
        return 0;
    TSTreeCursor *c = kids(x, depth, args);
    if (!c)
        return 0;
    do {
        TSNode a = ts_tree_cursor_current_node(c);
        if (!ts_node_is_named(a) || ty(x, a) == N_COMMENT)
            continue;
        if (k < max)
            out[k] = a;
        k++;
    } while (ts_tree_cursor_goto_next_sibling(c));
    return k;
}

/*
 * Builds the template of a message expression into x->tmpl: literal text
 * by `mode` (M_UTIL: util.format directives are holes while *avail
 * arguments last), ${...} and non-literal operands as holes.
 */
NOINLINE msg_info graph__ts_build_message(tx *x, TSNode e, int mode, uint32_t *avail, int depth)
{
    msg_info mi = {GRAPH_STYLE_DYNAMIC, NULL};
    if (depth > GX_MAX_DEPTH)
        return mi;
    e = unwrap(x, e);
    switch (ty(x, e)) {
    case N_STRING:
        graph__ts_put_string(x, e, mode, avail);
        mi.style = GRAPH_STYLE_PLAIN;
        return mi;
    case N_TEMPLATE_STRING:
        mi.style = graph__ts_put_template(x, e, mode, avail, depth + 1) ? GRAPH_STYLE_TEMPLATE
                                                                        : GRAPH_STYLE_PLAIN;
        return mi;
    case N_BINARY_EXPRESSION:
        if (is_plus(x, e) && graph__ts_stringish(x, e, 0)) {
            graph__ts_put_concat(x, e, mode, avail, 0, depth + 1);
            mi.style = GRAPH_STYLE_CONCAT;
        }
        return mi;
    case N_IDENTIFIER:
    case N_MEMBER_EXPRESSION:
    case N_SUBSCRIPT_EXPRESSION: {
        const char *p = graph__ts_path_of(x, e, 0);
        if (p) {
            mi.style = GRAPH_STYLE_REF;
            mi.ref = p;
        }
        return mi;
    }
    case N_CALL_EXPRESSION: {
        if (graph__ts_tagged(x, e)) {
            mi.style = graph__ts_put_template(x, fld(x, e, F_ARGUMENTS), mode, avail, depth + 1)
                           ? GRAPH_STYLE_TEMPLATE
                           : GRAPH_STYLE_PLAIN;
            return mi;
        }
        if (graph__ts_put_json_call(x, e, depth + 1)) {
            mi.style = GRAPH_STYLE_TEMPLATE;
            return mi;
        }
        /* util.format('...', ...) / format('...', ...) */
        const char *p = graph__ts_path_of(x, fld(x, e, F_FUNCTION), 0);
        if (p && graph__ts_util_format_path(p)) {
            TSNode av[ARGS_MAX];
            uint32_t na =
                graph__ts_collect_args(x, fld(x, e, F_ARGUMENTS), av, ARGS_MAX, depth + 1);
            if (na > ARGS_MAX)
                na = ARGS_MAX;
            if (na && graph__ts_stringish(x, av[0], 0))
                return graph__ts_util_format(x, av, na, depth + 1);
        }
        return mi;
    }
    default:
        return mi;
    }
}

bool graph__ts_util_format_path(const char *p)
{
    return strcmp(p, "util.format") == 0 || strcmp(p, "format") == 0;
}

/* How util.format shows a function it is handed: util.inspect's name for
 * it, never free text. A name and a callback handed together
 * (`connection.on('available', () => ...)`) read as 'available [Function
 * (anonymous)]', not as 'available' and a hole any text can fill. */
static void put_function_shown(tx *x, TSNode fn)
{
    uint32_t f = graph__ts_fn_flags(x, fn);
    TSNode nm = fld(x, fn, F_NAME);
    char buf[160];
    size_t n =
        graph__function_shown(buf, sizeof buf, (f & GRAPH_SF_ASYNC) != 0,
                              (f & GRAPH_SF_GENERATOR) != 0, is_null(nm) ? NULL : text(x, nm));
    graph__tmpl_literal(&x->tmpl, buf, n);
}

/* Whether the template so far holds a named field ("{name}", "@{user}",
 * "${a.b}"), not a %-directive's hole. */
static bool named_fields(const gx_tmpl *t)
{
    const char *b = t->buf.data;
    size_t n = t->buf.len;
    for (size_t i = 0; i < n;) {
        graph_tmpl_piece pc;
        size_t k = graph_tmpl_step(b, n, i, &pc);
        if (pc.hole && b[i] != '%')
            return true;
        i += k;
    }
    return false;
}

/* util.format(args[0], args[1..]): the format's directives take arguments;
 * the arguments left over are appended, space-separated. Unless the format
 * has named fields and no directive: then what follows it is the bag of
 * values the logger fills them from (`log.info('found @{total}', {
 * total })`), which a renderer of such fields does not append. */
NOINLINE msg_info graph__ts_util_format(tx *x, const TSNode *args, uint32_t nargs, int depth)
{
    msg_info mi = {GRAPH_STYLE_NONE, NULL};
    if (nargs == 0 || depth > GX_MAX_DEPTH)
        return mi;
    uint32_t avail = nargs - 1, dir0 = x->directives;
    int mode = nargs > 1 ? M_UTIL : M_LITERAL;
    mi = graph__ts_build_message(x, args[0], mode, &avail, depth + 1);
    bool holes = false;
    if (x->ntails && ts_node_eq(args[0], x->tail_of) && mi.style != GRAPH_STYLE_REF &&
        mi.style != GRAPH_STYLE_DYNAMIC) {
        uint32_t h0 = x->tmpl.holes;
        for (uint32_t i = 0; i < x->ntails; i++) {
            msg_info ti = graph__ts_build_message(x, x->tails[i], mode, &avail, depth + 1);
            if (ti.style == GRAPH_STYLE_REF || ti.style == GRAPH_STYLE_DYNAMIC)
                graph__tmpl_hole(&x->tmpl);
        }
        holes = x->tmpl.holes > h0;
    }
    bool format = mi.style != GRAPH_STYLE_REF && mi.style != GRAPH_STYLE_DYNAMIC;
    if (!format) {
        graph__tmpl_clear(&x->tmpl);
        x->appended_at = SIZE_MAX;
        /* A first argument that is not a string is a value util.format
         * shows (debug puts "%O" before it): debug(state, 'after sync')
         * renders the state, then the rest. A name followed by nothing
         * literal may hold the format: the constant's, or nothing known. */
        bool literal_after = false;
        for (uint32_t i = 1; i < nargs && !literal_after; i++)
            literal_after = ty(x, unwrap(x, args[i])) == N_STRING;
        if (!literal_after)
            return mi;
        graph__tmpl_hole(&x->tmpl);
        mi.style = GRAPH_STYLE_PLAIN;
        mi.ref = NULL;
        avail = nargs - 1;
        holes = true;
    }
    uint32_t used = (nargs - 1) - avail;
    if (used == 0 && x->directives == dir0 && named_fields(&x->tmpl))
        used = nargs - 1;
    x->appended_at = format && 1 + used < nargs ? x->tmpl.buf.len : SIZE_MAX;
    for (uint32_t i = 1 + used; i < nargs; i++) {
        graph__tmpl_literal(&x->tmpl, " ", 1);
        TSNode a = unwrap(x, args[i]);
        if (ty(x, a) == N_STRING) {
            graph__ts_put_string(x, a, M_LITERAL, NULL);
        } else if (is_fn(ty(x, a))) {
            put_function_shown(x, a);
        } else {
            graph__tmpl_hole(&x->tmpl);
            holes = true;
        }
    }
    if (mi.style == GRAPH_STYLE_PLAIN && x->directives > dir0)
        mi.style = GRAPH_STYLE_PERCENT;
    else if (mi.style == GRAPH_STYLE_PLAIN && holes)
        mi.style = GRAPH_STYLE_CONCAT;
    return mi;
}
