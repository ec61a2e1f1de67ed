/*
 * Python extraction: messages. String literals (prefixes, escapes,
 * f-strings) and the expressions a message is written as (%-formats,
 * str.format, concatenations, gettext wrappers, names of constants),
 * turned into templates.
 */
#include "py_int.h"

#include <stdlib.h>
#include <string.h>

/* What a string literal's prefix says (f, r; ok: it has one to read). */
str_prefix graph__py_string_prefix(px *x, TSNode str)
{
    str_prefix p = {false, false, false};
    TSNode start = ts_node_child(str, 0);
    if (is_null(start) || ty(start) != N_STRING_START)
        return p;
    p.ok = true;
    uint32_t a = ts_node_start_byte(start), b = ts_node_end_byte(start);
    for (uint32_t i = a; i < b; i++) {
        char c = x->src[i];
        if (c == 'f' || c == 'F')
            p.f = true;
        else if (c == 'r' || c == 'R')
            p.raw = true;
    }
    return p;
}

/* Appends the text of a string_content node to out: as written in a raw
 * string, else with its escapes decoded. */
void graph__py_put_content(px *x, core_buf *out, TSNode content, bool raw)
{
    uint32_t a = ts_node_start_byte(content), b = ts_node_end_byte(content);
    if (raw)
        core_buf_append(out, x->src + a, b - a);
    else
        graph__decode_escapes(out, x->src + a, b - a, true);
}

/*
 * Appends one string literal to the template. Literal text goes in by
 * `mode`; in an f-string, `{{`/`}}` are single braces and every
 * interpolation is a hole. Returns true if the literal was an f-string.
 * When before is given, the interpolation `at` is no hole: the template
 * up to it is taken into *before (its flags into *flags) instead; and
 * `slot` (if not null) is GX_SLOT.
 */
bool graph__py_tmpl_string_at(px *x, TSNode str, string_mode mode, TSNode at, TSNode slot,
                              const char **before, uint32_t *flags)
{
    str_prefix pre = graph__py_string_prefix(x, str);
    /* An f-string or a str.format pattern with the logging call's
     * arguments is formatted twice: its %-directives are holes too. */
    bool percent = mode == SM_FORMAT || mode == SM_BRACE_FORMAT;
    core_buf piece = {0};
    /* Strings have few children; indexing them needs no cursor, so this
     * is safe to call from anywhere in a walk. */
    uint32_t nc = ts_node_child_count(str);
    for (uint32_t i = 0; i < nc; i++) {
        TSNode ch = ts_node_child(str, i);
        unsigned t = ty(ch);
        if (t == N_STRING_CONTENT) {
            graph__py_put_content(x, &piece, ch, pre.raw);
        } else if (t == N_INTERPOLATION) {
            if (piece.len) {
                graph__tmpl_brace(&x->tmpl, piece.data, piece.len, percent);
                core_buf_reset(&piece);
            }
            if (before && ts_node_eq(ch, at))
                *before = graph__tmpl_take(&x->tmpl, x->f, flags);
            else if (before && ts_node_eq(ch, slot))
                graph__tmpl_slot(&x->tmpl);
            else
                graph__tmpl_hole(&x->tmpl);
        }
    }
    if (piece.len) {
        if (pre.f)
            /* Only {{ and }} are left in f-string text: brace mode turns
             * them into single braces (and doubles '%'). */
            graph__tmpl_brace(&x->tmpl, piece.data, piece.len, percent);
        else if (mode == SM_FORMAT)
            graph__tmpl_format(&x->tmpl, piece.data, piece.len);
        else if (mode == SM_BRACE || mode == SM_BRACE_FORMAT)
            graph__tmpl_brace(&x->tmpl, piece.data, piece.len, percent);
        else
            graph__tmpl_literal(&x->tmpl, piece.data, piece.len);
    }
    core_buf_free(&piece);
    return pre.f;
}

static bool tmpl_string(px *x, TSNode str, string_mode mode)
{
    return graph__py_tmpl_string_at(x, str, mode, gx_null(), gx_null(), NULL, NULL);
}

/* The decoded text of a plain string literal (no f-string), or NULL. */
const char *graph__py_string_value(px *x, TSNode str)
{
    if (ty(str) != N_STRING)
        return NULL;
    str_prefix pre = graph__py_string_prefix(x, str);
    if (!pre.ok || pre.f)
        return NULL;
    core_buf piece = {0};
    uint32_t nc = ts_node_child_count(str);
    for (uint32_t i = 0; i < nc; i++) {
        TSNode ch = ts_node_child(str, i);
        if (ty(ch) == N_STRING_CONTENT)
            graph__py_put_content(x, &piece, ch, pre.raw);
    }
    const char *r = core_arena_strndup(&x->f->arena, piece.data ? piece.data : "", piece.len);
    core_buf_free(&piece);
    return r;
}

/* Appends a string literal, or each part of an implicit concatenation,
 * in one mode; true if any part was an f-string. */
bool graph__py_tmpl_strings(px *x, TSNode s, string_mode mode)
{
    if (ty(s) == N_STRING)
        return tmpl_string(x, s, mode);
    bool any_f = false;
    uint32_t nc = ts_node_named_child_count(s);
    for (uint32_t i = 0; i < nc; i++) {
        TSNode part = ts_node_named_child(s, i);
        if (ty(part) == N_STRING)
            any_f |= tmpl_string(x, part, mode);
    }
    return any_f;
}

/* A message given by name: the template is wherever the name points. */
static msg_info ref_message(const char *path)
{
    msg_info mi = {GRAPH_STYLE_DYNAMIC, NULL};
    if (path) {
        mi.style = GRAPH_STYLE_REF;
        mi.ref = path;
    }
    return mi;
}

/* What a call does to a literal's white space only, and nothing else
 * (`textwrap.dedent(\"\"\"...\"\"\")`, `inspect.cleandoc(...)`,
 * `"...".strip()`), with the literal, or such a call on it, it does it to
 * in *subject; -1 for any other expression. */
static int whitespace_call(px *x, TSNode e, TSNode *subject)
{
    if (ty(e) != N_CALL)
        return -1;
    TSNode fn = fieldn(e, F_FUNCTION), args = fieldn(e, F_ARGUMENTS), sub;
    if (is_null(fn) || is_null(args) || ty(args) != N_ARGUMENT_LIST)
        return -1;
    uint32_t na = ts_node_named_child_count(args);
    TSNode name = ty(fn) == N_ATTRIBUTE ? fieldn(fn, F_ATTRIBUTE) : fn;
    if (is_null(name))
        return -1;
    int op = -1;
    if (na == 0 && ty(fn) == N_ATTRIBUTE) {
        op = text_eq(x, name, "strip")    ? GX_WS_STRIP
             : text_eq(x, name, "lstrip") ? GX_WS_LSTRIP
             : text_eq(x, name, "rstrip") ? GX_WS_RSTRIP
                                          : -1;
        sub = unparen(fieldn(fn, F_OBJECT));
    } else if (na == 1) {
        op = text_eq(x, name, "dedent")     ? GX_WS_DEDENT
             : text_eq(x, name, "cleandoc") ? GX_WS_CLEANDOC
                                            : -1;
        sub = unparen(ts_node_named_child(args, 0));
    }
    TSNode inner;
    if (op < 0 || is_null(sub) || !(is_stringish(ty(sub)) || whitespace_call(x, sub, &inner) >= 0))
        return -1;
    *subject = sub;
    return op;
}

/* The literal of `Template("...")` or `string.Template("...")` (Python's
 * $-syntax templates), decoded; NULL when e is no such call. */
const char *graph__py_dollar_template(px *x, TSNode e, const py_scope *sc)
{
    e = unparen(e);
    if (ty(e) != N_CALL)
        return NULL;
    TSNode fn = fieldn(e, F_FUNCTION), args = fieldn(e, F_ARGUMENTS);
    const char *p = is_null(fn) ? NULL : graph__py_canon(x, graph__py_path_of(x, fn, sc, 0));
    if (!p || is_null(args) || ts_node_named_child_count(args) != 1 ||
        (strcmp(p, "string.Template") != 0 && strcmp(p, "Template") != 0))
        return NULL;
    return graph__py_string_value(x, unparen(ts_node_named_child(args, 0)));
}

bool graph__py_works_on_args(px *x, TSNode callee)
{
    callee = unparen(callee);
    while (!is_null(callee) && ty(callee) == N_ATTRIBUTE) {
        TSNode o = unparen(fieldn(callee, F_OBJECT));
        if (!is_null(o) && ty(o) == N_IDENTIFIER) {
            uint32_t a = ts_node_start_byte(o), b = ts_node_end_byte(o);
            return graph__imported(x->f, x->src + a, b - a);
        }
        callee = o;
    }
    return !is_null(callee) && ty(callee) == N_IDENTIFIER;
}

TSNode graph__py_styled(px *x, TSNode e)
{
    TSNode fn = ty(e) == N_CALL ? unparen(fieldn(e, F_FUNCTION)) : gx_null();
    TSNode args = ty(e) == N_CALL ? fieldn(e, F_ARGUMENTS) : gx_null();
    /* An imported function or a module's (a local one may say more,
     * and is read as the helper it is). */
    bool ok =
        !is_null(fn) && !is_null(args) &&
        (ty(fn) == N_IDENTIFIER ? graph__imported(x->f, x->src + ts_node_start_byte(fn),
                                                  ts_node_end_byte(fn) - ts_node_start_byte(fn))
                                : graph__py_works_on_args(x, fn));
    /* A class made of the text (`String('AsyncSSH')`, an encoder) is no
     * styling of it. */
    TSNode last = !ok ? fn : ty(fn) == N_ATTRIBUTE ? fieldn(fn, F_ATTRIBUTE) : fn;
    if (!ok || is_null(last) || graph__capwords(text(x, last)))
        return gx_null();
    /* The text alone by position, the styles by keyword: a second
     * positional argument (`os.path.join("data", name)`) is more text. */
    uint32_t n = ts_node_named_child_count(args), npos = 0;
    for (uint32_t i = 0; i < n; i++) {
        unsigned t = ty(ts_node_named_child(args, i));
        npos += t != N_KEYWORD_ARGUMENT && t != N_COMMENT;
    }
    TSNode a0 = ts_node_named_child(args, 0);
    return npos == 1 && !is_null(a0) && ty(a0) == N_STRING ? a0 : gx_null();
}

/* The literal a gettext wrapper translates, when e is a call of one:
 * `_("...")`, `gettext("...")`, `N_("...")`; of `ngettext(singular,
 * plural, n)`, the plural, which any count but one renders. Null
 * otherwise. */
static TSNode translated(px *x, TSNode e)
{
    e = unparen(e);
    TSNode fn = ty(e) == N_CALL ? fieldn(e, F_FUNCTION) : gx_null();
    TSNode args = ty(e) == N_CALL ? fieldn(e, F_ARGUMENTS) : gx_null();
    if (is_null(fn) || is_null(args) || ty(fn) != N_IDENTIFIER)
        return gx_null();
    if (text_eq(x, fn, "_") || text_eq(x, fn, "gettext") || text_eq(x, fn, "N_") ||
        text_eq(x, fn, "gettext_lazy") || text_eq(x, fn, "ugettext"))
        return ts_node_named_child(args, 0);
    if ((text_eq(x, fn, "ngettext") || text_eq(x, fn, "ungettext")) &&
        ts_node_named_child_count(args) >= 2)
        return ts_node_named_child(args, 1);
    return gx_null();
}

/*
 * Builds the template of a message expression into x->tmpl.
 * `with_args`: the logging call passes arguments, so %-directives in a
 * literal are holes (without them logging prints the text as is).
 */
/* The deepest dictionary read as JSON text, and the most pairs. */
#define JSON_NEST 4
#define JSON_PAIRS 32

/* How json.dumps lays its text out: the separators between items and
 * after a key, sort_keys, ensure_ascii. */
typedef struct {
    const char *item, *key;
    bool sort, ascii;
} json_fmt;

/* Does json.dumps write s as it is between quotes? Not with a quote, a
 * backslash or a control character, nor, with ensure_ascii, a byte
 * beyond ASCII (each is an escape). */
static bool json_plain(const char *s, const json_fmt *jf)
{
    for (const unsigned char *c = (const unsigned char *)s; s && *c; c++)
        if (*c == '"' || *c == '\\' || *c < 0x20 || (*c >= 0x80 && jf->ascii))
            return false;
    return s != NULL;
}

static bool put_json_dict(px *x, TSNode d, const json_fmt *jf, int nest);

/* A value as json.dumps writes it: a string literal quoted, an integer
 * in decimal digits, True, False and None as true, false and null, a
 * dictionary by put_json_dict; anything else (and a string it would
 * escape) a hole. */
static void put_json_value(px *x, TSNode v, const json_fmt *jf, int nest)
{
    v = unparen(v);
    const char *s = NULL;
    switch (ty(v)) {
    case N_STRING:
        s = graph__py_string_value(x, v);
        if (json_plain(s, jf)) {
            graph__tmpl_literal(&x->tmpl, "\"", 1);
            graph__tmpl_literal(&x->tmpl, s, strlen(s));
            graph__tmpl_literal(&x->tmpl, "\"", 1);
            return;
        }
        break;
    case N_INTEGER: {
        s = text(x, v);
        size_t n = s ? strlen(s) : 0;
        bool digits = n > 0 && (s[0] != '0' || n == 1);
        for (size_t i = 0; digits && i < n; i++)
            digits = s[i] >= '0' && s[i] <= '9';
        if (digits) {
            graph__tmpl_literal(&x->tmpl, s, n);
            return;
        }
        break;
    }
    case N_TRUE:
        graph__tmpl_literal(&x->tmpl, "true", 4);
        return;
    case N_FALSE:
        graph__tmpl_literal(&x->tmpl, "false", 5);
        return;
    case N_NONE:
        graph__tmpl_literal(&x->tmpl, "null", 4);
        return;
    case N_DICTIONARY:
        if (nest < JSON_NEST) {
            gx_tmpl_mark mark = graph__tmpl_mark(&x->tmpl);
            if (put_json_dict(x, v, jf, nest + 1))
                return;
            graph__tmpl_rewind(&x->tmpl, mark);
        }
        break;
    default:
        break;
    }
    graph__tmpl_hole(&x->tmpl);
}

typedef struct {
    const char *key;
    TSNode value;
} json_pair;

static int json_pair_cmp(const void *a, const void *b)
{
    return strcmp(((const json_pair *)a)->key, ((const json_pair *)b)->key);
}

/* A dictionary display as json.dumps writes it: its pairs in their
 * order (by key with sort_keys); false when a key is not a plain string
 * literal or the display holds more than pairs (`**other`). */
static bool put_json_dict(px *x, TSNode d, const json_fmt *jf, int nest)
{
    json_pair pv[JSON_PAIRS];
    uint32_t n = 0, nc = ts_node_named_child_count(d);
    for (uint32_t i = 0; i < nc; i++) {
        TSNode p = ts_node_named_child(d, i);
        if (ty(p) == N_COMMENT)
            continue;
        if (ty(p) != N_PAIR || n == JSON_PAIRS)
            return false;
        TSNode k = unparen(fieldn(p, F_KEY));
        const char *key = is_null(k) ? NULL : graph__py_string_value(x, k);
        if (!json_plain(key, jf) || is_null(fieldn(p, F_VALUE)))
            return false;
        pv[n++] = (json_pair){key, fieldn(p, F_VALUE)};
    }
    if (jf->sort && n > 1)
        qsort(pv, n, sizeof *pv, json_pair_cmp);
    graph__tmpl_literal(&x->tmpl, "{", 1);
    for (uint32_t i = 0; i < n; i++) {
        if (i)
            graph__tmpl_literal(&x->tmpl, jf->item, strlen(jf->item));
        graph__tmpl_literal(&x->tmpl, "\"", 1);
        graph__tmpl_literal(&x->tmpl, pv[i].key, strlen(pv[i].key));
        graph__tmpl_literal(&x->tmpl, "\"", 1);
        graph__tmpl_literal(&x->tmpl, jf->key, strlen(jf->key));
        put_json_value(x, pv[i].value, jf, nest);
    }
    graph__tmpl_literal(&x->tmpl, "}", 1);
    return true;
}

/* Reads a json.dumps keyword argument into jf; false for one that lays
 * the text out in a way not read here (an indent). */
static bool json_option(px *x, TSNode name, TSNode v, json_fmt *jf)
{
    v = unparen(v);
    bool yes = ty(v) == N_TRUE, no = ty(v) == N_FALSE;
    if (text_eq(x, name, "sort_keys") || text_eq(x, name, "ensure_ascii")) {
        if (!yes && !no)
            return false;
        *(text_eq(x, name, "sort_keys") ? &jf->sort : &jf->ascii) = yes;
        return true;
    }
    if (text_eq(x, name, "indent"))
        return ty(v) == N_NONE;
    if (text_eq(x, name, "separators")) {
        if (ty(v) != N_TUPLE || ts_node_named_child_count(v) != 2)
            return false;
        const char *a = graph__py_string_value(x, unparen(ts_node_named_child(v, 0)));
        const char *b = graph__py_string_value(x, unparen(ts_node_named_child(v, 1)));
        if (!a || !b)
            return false;
        jf->item = a;
        jf->key = b;
    }
    return true; /* (default=, cls=, skipkeys=... change no literal's text) */
}

/*
 * `json.dumps({"event": "paid", "id": order.id})`: a dictionary display
 * and the options that lay its text out (sort_keys, separators,
 * ensure_ascii): its JSON text into the template, keys and literal
 * values as written, a hole per other value. False, the template as it
 * was, when e is no such call.
 */
static bool json_dumps(px *x, TSNode e, const py_scope *sc)
{
    TSNode fn = fieldn(e, F_FUNCTION), args = fieldn(e, F_ARGUMENTS), d = gx_null();
    const char *p = is_null(fn) ? NULL : graph__py_path_of(x, fn, sc, 0);
    if (p)
        p = graph__py_canon(x, p); /* (`from json import dumps`) */
    if (!p || strcmp(p, "json.dumps") != 0 || is_null(args))
        return false;
    json_fmt jf = {", ", ": ", false, true};
    uint32_t na = ts_node_named_child_count(args), npos = 0;
    for (uint32_t i = 0; i < na; i++) {
        TSNode a = ts_node_named_child(args, i);
        if (ty(a) == N_COMMENT)
            continue;
        if (ty(a) == N_KEYWORD_ARGUMENT) {
            TSNode name = fieldn(a, F_NAME), v = fieldn(a, F_VALUE);
            if (is_null(name) || is_null(v) || !json_option(x, name, v, &jf))
                return false;
        } else if (npos++ == 0) {
            d = unparen(a);
        } else {
            return false;
        }
    }
    if (is_null(d) || ty(d) != N_DICTIONARY)
        return false;
    gx_tmpl_mark mark = graph__tmpl_mark(&x->tmpl);
    if (put_json_dict(x, d, &jf, 0))
        return true;
    graph__tmpl_rewind(&x->tmpl, mark);
    return false;
}

TSNode graph__py_recoded(px *x, TSNode e)
{
    e = unparen(e);
    TSNode fn = !is_null(e) && ty(e) == N_CALL ? fieldn(e, F_FUNCTION) : gx_null();
    TSNode args = is_null(fn) ? gx_null() : fieldn(e, F_ARGUMENTS);
    if (is_null(fn) || ty(fn) != N_ATTRIBUTE || is_null(args) ||
        ts_node_named_child_count(args) > 2)
        return gx_null();
    TSNode attr = fieldn(fn, F_ATTRIBUTE);
    if (is_null(attr) || !(text_eq(x, attr, "encode") || text_eq(x, attr, "decode")))
        return gx_null();
    return unparen(fieldn(fn, F_OBJECT));
}

/* The most characters a repeated literal (`"-" * 50`) is written out to. */
#define REPEAT_MAX 256

/* `"-" * 50`, `50 * "="`: a string literal repeated a literal number of
 * times, written into the template (a rule under a heading); false, with
 * nothing written, for any other node. */
static bool repeated_literal(px *x, TSNode e)
{
    if (ty(e) != N_BINARY_OPERATOR || binop(e) != A_STAR)
        return false;
    TSNode l = unparen(fieldn(e, F_LEFT)), r = unparen(fieldn(e, F_RIGHT));
    if (is_null(l) || is_null(r))
        return false;
    if (ty(l) == N_INTEGER) {
        TSNode t = l;
        l = r;
        r = t;
    }
    if (ty(l) != N_STRING || ty(r) != N_INTEGER)
        return false;
    const char *s = graph__py_string_value(x, l);
    const char *num = text(x, r);
    char *end;
    long n = num ? strtol(num, &end, 10) : 0;
    size_t len = s ? strlen(s) : 0;
    if (!s || !len || n <= 0 || *end || (size_t)n * len > REPEAT_MAX || memchr(s, '%', len))
        return false;
    for (long i = 0; i < n; i++)
        graph__tmpl_literal(&x->tmpl, s, len);
    return true;
}

msg_info graph__py_build_message(px *x, TSNode e, bool with_args, const py_scope *sc, int depth)
{
    msg_info mi = {GRAPH_STYLE_DYNAMIC, NULL};
    if (depth > GX_MAX_DEPTH)
        return mi;
    e = unparen(e);
    if (is_null(e))
        return mi;
    switch (ty(e)) {
    case N_STRING:
    case N_CONCATENATED_STRING: {
        bool f = graph__py_tmpl_strings(x, e, with_args ? SM_FORMAT : SM_LITERAL);
        /* An f-string without holes is plain text. */
        mi.style = f && x->tmpl.holes           ? GRAPH_STYLE_FSTRING
                   : with_args && x->tmpl.holes ? GRAPH_STYLE_PERCENT
                                                : GRAPH_STYLE_PLAIN;
        return mi;
    }
    case N_BINARY_OPERATOR: {
        TSNode l = unparen(fieldn(e, F_LEFT)), r = fieldn(e, F_RIGHT);
        unsigned op = binop(e);
        if (op == A_PERCENT && !is_null(l)) {
            /* "fmt" % args: the directives are the holes. */
            TSNode sub;
            if (is_stringish(ty(l)) || whitespace_call(x, l, &sub) >= 0) {
                graph__py_build_message(x, l, true, sc, depth + 1);
                mi.style = GRAPH_STYLE_PERCENT;
                return mi;
            }
            /* _("fmt") % args: the translation's source is the format. */
            TSNode tr = translated(x, l);
            if (!is_null(tr)) {
                graph__py_build_message(x, tr, true, sc, depth + 1);
                mi.style = GRAPH_STYLE_PERCENT;
                return mi;
            }
            return ref_message(graph__py_path_of(x, l, sc, 0));
        }
        if (op == A_PLUS && !is_null(l) && !is_null(r)) {
            /* "a" + x + "b": literal pieces and holes, left to right.
             * With the logging call's arguments the joined text is a
             * format (`"%d %s: " + err.log_message, *args`): its
             * literal pieces' directives are holes too. */
            TSNode parts[2] = {l, unparen(r)}, styled;
            bool literal = false;
            for (int i = 0; i < 2; i++) {
                unsigned t = ty(parts[i]);
                if (repeated_literal(x, parts[i])) {
                    literal = true;
                } else if (is_stringish(t)) {
                    graph__py_build_message(x, parts[i], with_args, sc, depth + 1);
                    literal = true;
                } else if (t == N_BINARY_OPERATOR && binop(parts[i]) == A_PLUS) {
                    msg_info sub = graph__py_build_message(x, parts[i], with_args, sc, depth + 1);
                    literal |= sub.style == GRAPH_STYLE_CONCAT || sub.style == GRAPH_STYLE_PLAIN;
                } else if (!is_null(styled = graph__py_styled(x, parts[i]))) {
                    graph__py_build_message(x, styled, with_args, sc, depth + 1);
                    literal = true;
                } else {
                    graph__tmpl_hole(&x->tmpl);
                }
            }
            mi.style = literal ? GRAPH_STYLE_CONCAT : GRAPH_STYLE_DYNAMIC;
            return mi;
        }
        return mi;
    }
    case N_CALL: {
        TSNode fn = fieldn(e, F_FUNCTION), args = fieldn(e, F_ARGUMENTS), sub;
        if (is_null(fn) || is_null(args))
            return mi;
        /* `("copying pack entries: %d/%d\r" % (i, n)).encode("ascii")`: the
         * same text as bytes. */
        TSNode rec = graph__py_recoded(x, e);
        if (!is_null(rec))
            return graph__py_build_message(x, rec, with_args, sc, depth + 1);
        int op = whitespace_call(x, e, &sub);
        if (op >= 0) {
            size_t at = x->tmpl.buf.len;
            mi = graph__py_build_message(x, sub, with_args, sc, depth + 1);
            graph__tmpl_whitespace(&x->tmpl, at, (gx_ws_op)op);
            return mi;
        }
        if (ty(fn) == N_ATTRIBUTE) {
            TSNode obj = unparen(fieldn(fn, F_OBJECT)), attr = fieldn(fn, F_ATTRIBUTE);
            /* TEMPLATE.substitute(...): Python's $-syntax. */
            if (!is_null(attr) && !is_null(obj) &&
                (text_eq(x, attr, "substitute") || text_eq(x, attr, "safe_substitute"))) {
                const char *d = graph__py_dollar_template(x, obj, sc);
                if (d) {
                    graph__tmpl_dollar(&x->tmpl, d, strlen(d));
                    mi.style = GRAPH_STYLE_BRACE;
                    return mi;
                }
                return ref_message(graph__py_path_of(x, obj, sc, 0));
            }
            if (!is_null(attr) && (text_eq(x, attr, "format") || text_eq(x, attr, "format_map")) &&
                !is_null(obj)) {
                if (is_stringish(ty(obj))) {
                    graph__py_tmpl_strings(x, obj, with_args ? SM_BRACE_FORMAT : SM_BRACE);
                    mi.style = GRAPH_STYLE_BRACE;
                    return mi;
                }
                return ref_message(graph__py_path_of(x, obj, sc, 0));
            }
            /* MESSAGES.get("key"): the entry, as MESSAGES["key"] is. */
            TSNode k = ts_node_named_child(args, 0);
            if (!is_null(attr) && text_eq(x, attr, "get") && !is_null(obj) && !is_null(k) &&
                ty(k) == N_STRING) {
                const char *p = graph__py_path_of(x, obj, sc, 0);
                const char *key = graph__py_string_value(x, k);
                if (p && key)
                    return ref_message(graph__py_subscript_name(x, p, key));
            }
        }
        if (json_dumps(x, e, sc)) {
            mi.style = GRAPH_STYLE_CONCAT;
            return mi;
        }
        TSNode tr = translated(x, e);
        if (is_null(tr))
            tr = graph__py_styled(x, e);
        if (!is_null(tr))
            return graph__py_build_message(x, tr, with_args, sc, depth + 1);
        return mi;
    }
    case N_IDENTIFIER:
    case N_ATTRIBUTE:
        return ref_message(graph__py_path_of(x, e, sc, 0));
    case N_SUBSCRIPT: {
        /* MESSAGES["key"]: the constant recorded as MESSAGES[key]. */
        TSNode v = fieldn(e, F_VALUE), k = ts_node_named_child(e, 1);
        const char *p = is_null(v) ? NULL : graph__py_path_of(x, v, sc, 0);
        const char *key = is_null(k) ? NULL : graph__py_string_value(x, k);
        return ref_message(p && key ? graph__py_subscript_name(x, p, key) : NULL);
    }
    default:
        return mi;
    }
}

/* The parameter of the enclosing function an identifier names, if any. */
/*
 * The parameters of a function as a call passes them: `bound` methods get
 * self/cls from the receiver, so positions count from the next one. `**kw`
 * is left out (nothing is passed on through it here).
 */
const py_param *graph__py_collect_params(px *x, TSNode params, bool bound, uint32_t *np)
{
    *np = 0;
    if (is_null(params))
        return NULL;
    uint32_t nc = ts_node_named_child_count(params);
    if (nc > 256)
        nc = 256;
    if (nc == 0)
        return NULL;
    py_param *out = core_arena_alloc(&x->f->arena, nc * sizeof *out);
    uint32_t n = 0;
    int32_t next = 0;
    bool first = true, kwonly = false;
    for (uint32_t i = 0; i < nc; i++) {
        TSNode p = ts_node_named_child(params, i);
        unsigned t = ty(p);
        if (t == N_COMMENT || t == N_POSITIONAL_SEPARATOR)
            continue;
        if (t == N_KEYWORD_SEPARATOR) {
            kwonly = true;
            continue;
        }
        TSNode name = gx_null();
        if (t == N_IDENTIFIER || t == N_LIST_SPLAT_PATTERN || t == N_DICTIONARY_SPLAT_PATTERN)
            name = p;
        else if (t == N_TYPED_PARAMETER)
            name = ts_node_named_child(p, 0);
        else if (t == N_DEFAULT_PARAMETER || t == N_TYPED_DEFAULT_PARAMETER)
            name = fieldn(p, F_NAME);
        bool star = false;
        if (!is_null(name) && ty(name) == N_DICTIONARY_SPLAT_PATTERN)
            continue;
        if (!is_null(name) && ty(name) == N_LIST_SPLAT_PATTERN) {
            star = true;
            name = ts_node_named_child(name, 0);
        }
        bool self = first && bound;
        first = false;
        int32_t pos = -1;
        bool kw = false;
        if (star) {
            pos = kwonly ? -1 : next;
            kwonly = true;
        } else if (!self) {
            kw = true;
            if (!kwonly)
                pos = next++;
        }
        if (is_null(name) || ty(name) != N_IDENTIFIER)
            continue;
        out[n++] = (py_param){text(x, name), pos, kw, star, false};
    }
    *np = n;
    return out;
}

const py_param *graph__py_param_named(px *x, const py_scope *sc, TSNode id)
{
    if (is_null(id) || ty(id) != N_IDENTIFIER)
        return NULL;
    for (uint32_t i = 0; i < sc->nparams; i++)
        if (text_eq(x, id, sc->params[i].name))
            return &sc->params[i];
    return NULL;
}

/* The parts of a `+` chain, left to right; 0 if there are too many. */
uint32_t graph__py_plus_parts(TSNode e, TSNode *parts, uint32_t cap, uint32_t n, int depth)
{
    e = unparen(e);
    if (is_null(e))
        return 0;
    if (depth < 32 && ty(e) == N_BINARY_OPERATOR && binop(e) == A_PLUS) {
        TSNode l = fieldn(e, F_LEFT), r = fieldn(e, F_RIGHT);
        if (is_null(l) || is_null(r))
            return 0;
        n = graph__py_plus_parts(l, parts, cap, n, depth + 1);
        return n ? graph__py_plus_parts(r, parts, cap, n, depth + 1) : 0;
    }
    if (n >= cap)
        return 0;
    parts[n] = e;
    return n + 1;
}
