/* Helpers shared by the Python and TypeScript extractors. */
#define _GNU_SOURCE /* memmem */
#include "graph_int.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const TSLanguage *tree_sitter_python(void);
const TSLanguage *tree_sitter_typescript(void);
const TSLanguage *tree_sitter_tsx(void);

const TSLanguage *graph__language(graph_lang lang)
{
    switch (lang) {
    case GRAPH_LANG_PYTHON:
        return tree_sitter_python();
    case GRAPH_LANG_TYPESCRIPT:
        return tree_sitter_typescript();
    case GRAPH_LANG_TSX:
    case GRAPH_LANG_JAVASCRIPT:
    default:
        /* JavaScript is parsed with the TSX grammar: a superset that also
         * takes JSX. */
        return tree_sitter_tsx();
    }
}

TSTree *graph__parse(graph_lang lang, const char *src, size_t n, const TSRange *ranges,
                     uint32_t nranges, TSParser **parser)
{
    graph__tsalloc_install();
    TSParser *p = ts_parser_new();
    ts_parser_set_language(p, graph__language(lang));
    if (nranges)
        ts_parser_set_included_ranges(p, ranges, nranges);
    TSTree *t = ts_parser_parse_string(p, NULL, src, (uint32_t)n);
    *parser = p;
    return t;
}

TSRange *graph__included_ranges(const char *src, size_t n, const uint32_t *starts,
                                const uint32_t *ends, uint32_t nex)
{
    TSRange *r = core_xcalloc((size_t)nex + 1, sizeof *r);
    /* Offsets in order: 0, starts[0], ends[0], starts[1], ... n. Points
     * are counted as the parser counts them: rows by '\n', columns in
     * bytes. */
    uint32_t row = 0;
    size_t line_start = 0, pos = 0;
    for (uint32_t k = 0; k <= 2 * nex + 1; k++) {
        size_t target = k == 0             ? 0
                        : k == 2 * nex + 1 ? n
                        : (k & 1)          ? starts[k / 2]
                                           : ends[k / 2 - 1];
        while (pos < target) {
            const char *nl = memchr(src + pos, '\n', target - pos);
            if (!nl) {
                pos = target;
                break;
            }
            row++;
            pos = (size_t)(nl - src) + 1;
            line_start = pos;
        }
        TSPoint p = {row, (uint32_t)(target - line_start)};
        if (k & 1) {
            r[k / 2].end_byte = (uint32_t)target;
            r[k / 2].end_point = p;
        } else {
            r[k / 2].start_byte = (uint32_t)target;
            r[k / 2].start_point = p;
        }
    }
    return r;
}

void graph__parse_free(TSParser *parser, TSTree *tree)
{
    /* In a parse arena everything goes at once when the arena is dropped. */
    if (graph__tsalloc_active())
        return;
    if (tree)
        ts_tree_delete(tree);
    if (parser)
        ts_parser_delete(parser);
}

void graph__cursors_free(gx_cursors *cs)
{
    if (graph__tsalloc_active())
        return;
    for (size_t i = 0; i < sizeof cs->c / sizeof cs->c[0]; i++)
        if (cs->init[i])
            ts_tree_cursor_delete(&cs->c[i]);
}

void graph__count_errors(TSNode root, gx_file *f)
{
    if (!ts_node_has_error(root))
        return;
    /* Iterative pre-order walk that only enters subtrees with errors. */
    TSTreeCursor c = ts_tree_cursor_new(root);
    uint32_t count = 0;
    for (;;) {
        TSNode n = ts_tree_cursor_current_node(&c);
        bool err = ts_node_is_missing(n) || ts_node_symbol(n) == (TSSymbol)-1 ||
                   strcmp(ts_node_type(n), "ERROR") == 0;
        if (err) {
            if (count == 0)
                f->first_error_line = gx_line(n);
            count++;
        }
        if (!err && ts_node_has_error(n) && count < 100000 && ts_tree_cursor_goto_first_child(&c))
            continue;
        for (;;) {
            if (ts_tree_cursor_goto_next_sibling(&c))
                break;
            if (!ts_tree_cursor_goto_parent(&c))
                goto done;
        }
    }
done:
    if (!graph__tsalloc_active())
        ts_tree_cursor_delete(&c);
    f->errors = count ? count : 1;
}

void graph__file_init(gx_file *f)
{
    memset(f, 0, sizeof *f);
    core_arena_init(&f->arena, 32 * 1024);
}

void graph__push_alt_calls(gx_file *f, const gx_call *rc, const gx_arg *alts, uint32_t nalts,
                           int32_t alt_at)
{
    for (uint32_t k = 1; k < nalts; k++) {
        gx_call alt = *rc;
        alt.arg0 = (uint32_t)f->args.n;
        for (uint32_t i = 0; i < rc->nargs; i++) {
            gx_arg a = (int32_t)i == alt_at ? alts[k] : f->args.v[rc->arg0 + i];
            core_vec_push(&f->args, a);
        }
        core_vec_push(&f->calls, alt);
    }
}

void graph__file_free(gx_file *f)
{
    core_vec_free(&f->syms);
    core_vec_free(&f->refs);
    core_vec_free(&f->binds);
    core_vec_free(&f->imports);
    core_vec_free(&f->exports);
    core_vec_free(&f->emits);
    core_vec_free(&f->calls);
    core_vec_free(&f->args);
    core_vec_free(&f->passes);
    core_vec_free(&f->flows);
    core_vec_free(&f->flow_items);
    core_vec_free(&f->flow_edges);
    core_vec_free(&f->lits);
    core_arena_free(&f->arena);
}

bool graph_value_byte(unsigned char c)
{
    return c == '_' || c == '-' || (c >= '0' && c <= '9') ||
           ((c | 0x20) >= 'a' && (c | 0x20) <= 'z');
}

bool graph_value_literal(const char *s, size_t n)
{
    if (n < 3 || n > 40)
        return false;
    bool letter = false;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (!graph_value_byte(c))
            return false;
        letter |= (c | 0x20) >= 'a' && (c | 0x20) <= 'z';
    }
    return letter;
}

void graph__types_init(gx_types *t, const TSLanguage *lang, const char *const *names, size_t nnames,
                       const char *const *anon, size_t nanon)
{
    uint32_t count = ts_language_symbol_count(lang);
    t->map = core_xcalloc(count, sizeof *t->map);
    t->count = count;
    /* A node type can have several symbol ids (aliases), so every id is
     * matched by name rather than asking for one id per name. */
    for (uint32_t s = 0; s < count; s++) {
        const char *nm = ts_language_symbol_name(lang, (TSSymbol)s);
        if (!nm)
            continue;
        TSSymbolType stype = ts_language_symbol_type(lang, (TSSymbol)s);
        if (stype == TSSymbolTypeRegular) {
            for (size_t i = 0; i < nnames; i++) {
                if (names[i] && strcmp(nm, names[i]) == 0) {
                    t->map[s] = (uint16_t)i;
                    break;
                }
            }
        } else if (stype == TSSymbolTypeAnonymous) {
            for (size_t i = 0; i < nanon; i++) {
                if (anon[i] && strcmp(nm, anon[i]) == 0) {
                    t->map[s] = (uint16_t)(nnames + i);
                    break;
                }
            }
        }
    }
}

uint32_t graph__end_line(TSNode n)
{
    uint32_t start_row = ts_node_start_point(n).row;
    TSNode cur = n;
    for (int depth = 0; depth < GX_MAX_DEPTH; depth++) {
        if (ts_node_child_count(cur) == 0)
            break;
        /* The last child that is code: not a comment (an extra), not a
         * zero-width token the parser made up. */
        TSTreeCursor c = ts_tree_cursor_new(cur);
        TSNode last = gx_null();
        bool found = false;
        if (ts_tree_cursor_goto_first_child(&c)) {
            do {
                TSNode ch = ts_tree_cursor_current_node(&c);
                if (ts_node_is_extra(ch) || ts_node_start_byte(ch) == ts_node_end_byte(ch))
                    continue;
                last = ch;
                found = true;
            } while (ts_tree_cursor_goto_next_sibling(&c));
        }
        ts_tree_cursor_delete(&c);
        if (!found)
            break;
        cur = last;
    }
    TSPoint e = ts_node_end_point(cur);
    uint32_t row = e.row;
    if (e.column == 0 && row > start_row)
        row--;
    return row + 1;
}

char *graph__text(gx_file *f, const char *src, TSNode n)
{
    uint32_t a = ts_node_start_byte(n), b = ts_node_end_byte(n);
    return core_arena_strndup(&f->arena, src + a, b > a ? b - a : 0);
}

char *graph__text_squeeze(gx_file *f, const char *src, TSNode n, const char *drop)
{
    char *t = graph__text(f, src, n);
    size_t k = 0;
    for (char *p = t; *p; p++)
        if (!strchr(drop, *p))
            t[k++] = *p;
    t[k] = 0;
    return t;
}

const char *graph__doc(gx_file *f, const char *s, size_t n)
{
    enum { DOC_MAX = 300 };
    char tmp[DOC_MAX + 8];
    size_t k = 0;
    bool space = false;
    for (size_t i = 0; i < n && k < DOC_MAX; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            space = k > 0;
            continue;
        }
        if (space) {
            tmp[k++] = ' ';
            space = false;
            if (k >= DOC_MAX)
                break;
        }
        tmp[k++] = (char)c;
    }
    /* Do not end inside a UTF-8 sequence. */
    k = core_utf8_valid_prefix(tmp, k);
    if (k == 0)
        return NULL;
    return core_arena_strndup(&f->arena, tmp, k);
}

/* ---- string escapes ---- */

void graph__put_utf8(core_buf *out, unsigned long cp)
{
    char u[4];
    size_t ul;
    if (cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        cp = 0xfffd;
    if (cp == 0)
        return; /* a NUL would cut the string */
    if (cp < 0x80) {
        u[0] = (char)cp;
        ul = 1;
    } else if (cp < 0x800) {
        u[0] = (char)(0xc0 | (cp >> 6));
        u[1] = (char)(0x80 | (cp & 0x3f));
        ul = 2;
    } else if (cp < 0x10000) {
        u[0] = (char)(0xe0 | (cp >> 12));
        u[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        u[2] = (char)(0x80 | (cp & 0x3f));
        ul = 3;
    } else {
        u[0] = (char)(0xf0 | (cp >> 18));
        u[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
        u[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
        u[3] = (char)(0x80 | (cp & 0x3f));
        ul = 4;
    }
    core_buf_append(out, u, ul);
}

/* Reads up to `max` hex digits at s[*i]; advances *i. */
unsigned long graph__read_hex(const char *s, size_t n, size_t *i, size_t max)
{
    unsigned long v = 0;
    for (size_t k = 0; k < max && *i < n; k++) {
        int h = core_hex_digit(s[*i]);
        if (h < 0)
            break;
        v = v * 16 + (unsigned long)h;
        if (v > 0x10ffff)
            v = 0x110000;
        (*i)++;
    }
    return v;
}

/*
 * The escapes of Python and JavaScript string literals. Shared: \n \t \r
 * \\ \' \" \xHH \uHHHH, octal, and a backslash-newline continuing the
 * line. Python adds \UHHHHHHHH and keeps unknown escapes as written
 * (backslash included); JavaScript adds \b \f \v \u{H...}, surrogate
 * pairs written as two \u escapes, and drops the backslash of unknown ones.
 */
void graph__decode_escapes(core_buf *out, const char *s, size_t n, bool python)
{
    size_t i = 0;
    while (i < n) {
        if (s[i] != '\\' || i + 1 >= n) {
            size_t j = i + 1;
            while (j < n && s[j] != '\\')
                j++;
            core_buf_append(out, s + i, j - i);
            i = j;
            continue;
        }
        char e = s[i + 1];
        i += 2;
        switch (e) {
        case 'n':
            core_buf_putc(out, '\n');
            continue;
        case 't':
            core_buf_putc(out, '\t');
            continue;
        case 'r':
            core_buf_putc(out, '\r');
            continue;
        case '\n':
            continue; /* line continuation */
        case '\r':
            if (i < n && s[i] == '\n')
                i++;
            continue;
        case 'x': {
            size_t k = i;
            unsigned long cp = graph__read_hex(s, n, &k, 2);
            if (k == i + 2) {
                graph__put_utf8(out, cp);
                i = k;
                continue;
            }
            break;
        }
        case 'u':
        case 'U': {
            if (e == 'U' && !python)
                break;
            if (e == 'u' && !python && i < n && s[i] == '{') {
                size_t k = i + 1;
                unsigned long cp = graph__read_hex(s, n, &k, 8);
                if (k < n && s[k] == '}')
                    k++;
                i = k;
                graph__put_utf8(out, cp);
                continue;
            }
            size_t len = e == 'u' ? 4 : 8, k = i;
            unsigned long cp = graph__read_hex(s, n, &k, len);
            if (k != i + len)
                break;
            i = k;
            /* A surrogate pair written as two escapes (JavaScript). */
            if (cp >= 0xd800 && cp <= 0xdbff && i + 6 <= n && s[i] == '\\' && s[i + 1] == 'u') {
                size_t k2 = i + 2;
                unsigned long lo = graph__read_hex(s, n, &k2, 4);
                if (k2 == i + 6 && lo >= 0xdc00 && lo <= 0xdfff) {
                    cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                    i = k2;
                }
            }
            graph__put_utf8(out, cp);
            continue;
        }
        case 'b':
        case 'f':
        case 'v':
            if (python)
                break;
            core_buf_putc(out, e == 'b' ? '\b' : e == 'f' ? '\f' : '\v');
            continue;
        default:
            if (e >= '0' && e <= '7') {
                unsigned v = (unsigned)(e - '0');
                for (int k = 0; k < 2 && i < n && s[i] >= '0' && s[i] <= '7'; k++)
                    v = v * 8 + (unsigned)(s[i++] - '0');
                graph__put_utf8(out, v & 0xff);
                continue;
            }
            break;
        }
        /* \\ \' \" (and \` \$ in JavaScript), or an escape the language
         * does not know. */
        bool known = e == '\\' || e == '\'' || e == '"';
        if (python && !known)
            core_buf_putc(out, '\\');
        core_buf_putc(out, e);
    }
}

/* ---- templates ---- */

static void tmpl_put(gx_tmpl *t, const char *s, size_t n)
{
    if (t->truncated)
        return;
    if (t->buf.len + n > GRAPH_TEMPLATE_MAX) {
        n = GRAPH_TEMPLATE_MAX - t->buf.len;
        t->truncated = true;
    }
    core_buf_append(&t->buf, s, n);
}

static bool ident_start(char c)
{
    return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

void graph__tmpl_dollar(gx_tmpl *t, const char *s, size_t n)
{
    size_t run = 0;
    for (size_t i = 0; i + 1 < n; i++) {
        if (s[i] != '$')
            continue;
        size_t j = i + 1;
        bool brace = s[j] == '{';
        if (s[j] == '$') {
            j++;
        } else {
            j += brace;
            if (j >= n || !ident_start(s[j]))
                continue;
            while (j < n && (ident_start(s[j]) || (s[j] >= '0' && s[j] <= '9')))
                j++;
            if (brace && (j >= n || s[j++] != '}'))
                continue;
        }
        graph__tmpl_literal(t, s + run, i + (s[i + 1] == '$') - run);
        if (s[i + 1] != '$')
            graph__tmpl_hole(t);
        run = j;
        i = j - 1;
    }
    graph__tmpl_literal(t, s + run, n - run);
}

void graph__tmpl_literal(gx_tmpl *t, const char *s, size_t n)
{
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '%') {
            tmpl_put(t, s + run, i + 1 - run);
            tmpl_put(t, "%", 1);
            run = i + 1;
        }
    }
    tmpl_put(t, s + run, n - run);
}

/* The length of the %-directive at s[0] == '%' (0: a literal '%'),
 * counted as a hole unless it is "%%". */
static size_t directive_hole(gx_tmpl *t, const char *s, size_t n)
{
    size_t k = graph_directive(s, n);
    if (k && !(k == 2 && s[1] == '%'))
        t->holes++;
    return k;
}

void graph__tmpl_format(gx_tmpl *t, const char *s, size_t n)
{
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] != '%')
            continue;
        size_t k = directive_hole(t, s + i, n - i);
        if (k) {
            i += k - 1;
            continue;
        }
        /* A lone '%' is literal text: double it. */
        tmpl_put(t, s + run, i + 1 - run);
        tmpl_put(t, "%", 1);
        run = i + 1;
    }
    tmpl_put(t, s + run, n - run);
}

/* percent: the text is formatted again with the logging call's arguments
 * (`"{} took %s".format(op), ms`: str.format leaves the %-directives for
 * logging to fill), so its %-directives are holes as well. */
void graph__tmpl_brace(gx_tmpl *t, const char *s, size_t n, bool percent)
{
    size_t i = 0;
    while (i < n) {
        char c = s[i];
        if ((c == '{' || c == '}') && i + 1 < n && s[i + 1] == c) {
            tmpl_put(t, &c, 1);
            i += 2;
        } else if (c == '{') {
            /* A replacement field, possibly with nested {} in its spec. */
            int depth = 0;
            size_t j = i;
            for (; j < n; j++) {
                if (s[j] == '{')
                    depth++;
                else if (s[j] == '}' && --depth == 0)
                    break;
            }
            graph__tmpl_hole(t);
            i = j < n ? j + 1 : n;
        } else if (c == '%') {
            size_t k = percent ? directive_hole(t, s + i, n - i) : 0;
            if (k) {
                tmpl_put(t, s + i, k);
                i += k;
            } else {
                tmpl_put(t, "%%", 2);
                i++;
            }
        } else {
            size_t j = i;
            while (j < n && s[j] != '{' && s[j] != '}' && s[j] != '%')
                j++;
            if (j == i)
                j++; /* a lone '}' */
            tmpl_put(t, s + i, j - i);
            i = j;
        }
    }
}

void graph__tmpl_hole(gx_tmpl *t)
{
    t->holes++;
    tmpl_put(t, "%s", 2);
}

/* The length of an access-log directive at s (the stored form: its '%'
 * doubled), "%%" [<>] ["{" name "}"] letter, or 0; *param tells whether
 * it has the braced name. */
#define LOG_PARAM_MAX 64

static size_t log_directive(const char *s, size_t n, bool *param)
{
    if (n < 3 || s[0] != '%' || s[1] != '%')
        return 0;
    size_t i = 2;
    if (s[i] == '<' || s[i] == '>')
        i++;
    *param = i < n && s[i] == '{';
    if (*param) {
        size_t j = i + 1;
        while (j < n && j - i <= LOG_PARAM_MAX && s[j] != '}' && s[j] != '%' &&
               !isspace((unsigned char)s[j]))
            j++;
        if (j >= n || s[j] != '}' || j == i + 1)
            return 0;
        i = j + 1;
    }
    return i < n && isalpha((unsigned char)s[i]) ? i + 1 : 0;
}

void graph__tmpl_log_format(gx_tmpl *t)
{
    const char *s = t->buf.data;
    size_t n = t->buf.len;
    /* (A field in braces is "%{" in any of its forms: most constants have
     * none, and cost no copy.) */
    if (t->truncated || !s || !memmem(s, n, "%{", 2))
        return;
    core_buf out = {0};
    uint32_t holes = 0;
    bool param = false;
    for (size_t i = 0; i < n;) {
        bool braced;
        size_t k = log_directive(s + i, n - i, &braced);
        if (k) {
            core_buf_append(&out, "%s", 2);
            holes++;
            param = param || braced;
        } else {
            graph_tmpl_piece pc;
            k = graph_tmpl_step(s, n, i, &pc);
            core_buf_append(&out, s + i, k);
        }
        i += k;
    }
    if (param) {
        core_buf_free(&t->buf);
        t->buf = out;
        t->holes += holes;
    } else {
        core_buf_free(&out);
    }
}

void graph__tmpl_slot(gx_tmpl *t)
{
    char c = GX_SLOT;
    tmpl_put(t, &c, 1);
}

static bool ws_byte(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* The end of the line of s[0, n) that starts at i (its '\n', or n), and
 * where its indent ends in *w. */
static size_t line_end(const char *s, size_t n, size_t i, size_t *w)
{
    size_t e = i;
    while (e < n && s[e] != '\n')
        e++;
    for (*w = i; *w < e && (s[*w] == ' ' || s[*w] == '\t');)
        ++*w;
    return e;
}

/* The indent lines [a, n) of s share, among those with more than white
 * space; lines after the first only when skip_first. Its length. */
static size_t shared_indent(const char *s, size_t a, size_t n, bool skip_first, const char **ind)
{
    size_t best = SIZE_MAX;
    *ind = NULL;
    for (size_t i = a, line = 0; i < n; line++) {
        size_t w, e = line_end(s, n, i, &w);
        if (w < e && !(skip_first && line == 0)) {
            if (!*ind) {
                *ind = s + i;
                best = w - i;
            } else {
                size_t k = 0;
                while (k < best && k < w - i && s[i + k] == (*ind)[k])
                    k++;
                best = k;
            }
        }
        i = e + 1;
    }
    return best == SIZE_MAX ? 0 : best;
}

void graph__tmpl_whitespace(gx_tmpl *t, size_t from, gx_ws_op op)
{
    core_buf *b = &t->buf;
    if (!b->data || from > b->len)
        return;
    char *s = b->data;
    size_t n = b->len;
    if (op == GX_WS_DEDENT || op == GX_WS_CLEANDOC) {
        const char *ind;
        size_t k = shared_indent(s, from, n, op == GX_WS_CLEANDOC, &ind), o = from;
        for (size_t i = from, line = 0; i < n; line++) {
            size_t w, e = line_end(s, n, i, &w);
            size_t cut = w == e ? e - i : op == GX_WS_CLEANDOC && line == 0 ? w - i : k;
            memmove(s + o, s + i + cut, e - i - cut);
            o += e - i - cut;
            if (e < n)
                s[o++] = '\n';
            i = e + 1;
        }
        b->len = o;
        s[o] = '\0';
        if (op == GX_WS_DEDENT)
            return;
        /* cleandoc: the blank lines at either end go too. */
        size_t a = from;
        while (a < b->len && s[a] == '\n')
            a++;
        memmove(s + from, s + a, b->len - a);
        b->len -= a - from;
        while (b->len > from && ws_byte(s[b->len - 1]))
            b->len--;
        s[b->len] = '\0';
        return;
    }
    if (op != GX_WS_LSTRIP)
        while (b->len > from && ws_byte(s[b->len - 1]))
            b->len--;
    if (op != GX_WS_RSTRIP) {
        size_t a = from;
        while (a < b->len && ws_byte(s[a]))
            a++;
        memmove(s + from, s + a, b->len - a);
        b->len -= a - from;
    }
    s[b->len] = '\0';
}

gx_tmpl_mark graph__tmpl_mark(const gx_tmpl *t)
{
    return (gx_tmpl_mark){t->buf.len, t->holes, t->truncated};
}

void graph__tmpl_rewind(gx_tmpl *t, gx_tmpl_mark m)
{
    t->buf.len = m.len;
    t->holes = m.holes;
    t->truncated = m.truncated;
}

void graph__tmpl_clear(gx_tmpl *t)
{
    core_buf_reset(&t->buf);
    t->holes = 0;
    /* The mark goes with the text: a stale one would flag the next
     * template as cut, and tmpl_put() would drop all its text. */
    t->truncated = false;
}

const char *graph__tmpl_take(gx_tmpl *t, gx_file *f, uint32_t *flags)
{
    const char *r = NULL;
    if (t->truncated)
        *flags |= GRAPH_EF_TRUNCATED;
    t->truncated = false;
    if (t->buf.len) {
        /* A cut may have split a UTF-8 sequence or a "%%". */
        size_t n = core_utf8_valid_prefix(t->buf.data, t->buf.len);
        r = core_arena_strndup(&f->arena, t->buf.data, n);
    }
    graph__tmpl_clear(t);
    return r;
}

uint32_t graph__tmpl_holes(const char *t)
{
    size_t n = strlen(t);
    uint32_t h = 0;
    for (size_t i = 0; i < n;) {
        graph_tmpl_piece pc;
        i += graph_tmpl_step(t, n, i, &pc);
        h += pc.hole;
    }
    return h;
}

bool graph__tmpl_has_hole(const char *t)
{
    return graph__tmpl_holes(t) > 0;
}

void graph__tmpl_free(gx_tmpl *t)
{
    core_buf_free(&t->buf);
}

/* ---- names ---- */

static bool ieq(const char *a, size_t n, const char *b)
{
    size_t m = strlen(b);
    if (n != m)
        return false;
    for (size_t i = 0; i < n; i++)
        if (tolower((unsigned char)a[i]) != b[i])
            return false;
    return true;
}

static bool iends(const char *a, size_t n, const char *suffix)
{
    size_t m = strlen(suffix);
    return n >= m && ieq(a + n - m, m, suffix);
}

bool graph__loggerish(const char *name, size_t n)
{
    while (n > 0 && *name == '_') {
        name++;
        n--;
    }
    if (n == 0)
        return false;
    static const char *const exact[] = {"log",    "logger",  "logging", "lgr",    "winston",
                                        "npmlog", "proclog", "signale", "consola"};
    for (size_t i = 0; i < sizeof exact / sizeof exact[0]; i++)
        if (ieq(name, n, exact[i]))
            return true;
    /* fooLogger, foo_logger, LOGGER2 */
    for (size_t i = 0; i + 6 <= n; i++)
        if (ieq(name + i, 6, "logger"))
            return true;
    /* audit_log, auditLog, log_fn; but not catalog, dialog, backlog */
    if (n > 4 && iends(name, n, "_log"))
        return true;
    if (n > 3 && name[n - 3] == 'L' && name[n - 2] == 'o' && name[n - 1] == 'g' &&
        islower((unsigned char)name[n - 4]))
        return true;
    if (n > 4 && (ieq(name, 4, "log_")))
        return true;
    return false;
}

/* The first import of f that binds name[0, n), of kind `kind` unless it
 * is -1 (any); NULL when none does. */
static const gx_import *import_binding(const gx_file *f, const char *name, size_t n, int kind)
{
    for (size_t i = 0; i < f->imports.n; i++) {
        const gx_import *im = &f->imports.v[i];
        if ((kind < 0 || im->kind == kind) && im->alias && strlen(im->alias) == n &&
            memcmp(im->alias, name, n) == 0)
            return im;
    }
    return NULL;
}

/* Whether an import is of a module of ours (a relative specifier). */
static bool ours(const gx_import *im)
{
    return im && im->module && im->module[0] == '.';
}

/* Is path a member of a module the file imports from its own repository
 * (`log.info` after `import * as log from "./log"` or `require("../log")`)? */
bool graph__local_module_member(const gx_file *f, const char *path)
{
    const char *dot = strchr(path, '.');
    return dot && ours(import_binding(f, path, (size_t)(dot - path), GX_IMP_MODULE));
}

static bool bound_to_own_call(const gx_file *f, const char *name, size_t n, int depth);

/* Whether name[0, n) is a name of this file's own: imported from a
 * module of ours, a top-level function here, or what one makes. */
static bool own_name(const gx_file *f, const char *name, size_t n, int depth)
{
    const gx_import *im = import_binding(f, name, n, -1);
    if (im)
        return ours(im);
    for (size_t i = 0; i < f->syms.n; i++) {
        const gx_sym *s = &f->syms.v[i];
        if (s->parent < 0 && s->kind == GRAPH_SYM_FUNCTION && strlen(s->name) == n &&
            memcmp(s->name, name, n) == 0)
            return true;
    }
    return depth < 4 && bound_to_own_call(f, name, n, depth + 1);
}

/* Whether name[0, n) is bound to a call of a name of this file's own
 * (`logger.child('restock')` on a logger createLogger made). */
static bool bound_to_own_call(const gx_file *f, const char *name, size_t n, int depth)
{
    for (size_t i = 0; i < f->binds.n; i++) {
        const gx_bind *b = &f->binds.v[i];
        if ((b->kind == GX_BIND_CALL || b->kind == GX_BIND_NEW) && b->value &&
            strlen(b->name) == n && memcmp(b->name, name, n) == 0)
            return own_name(f, b->value, strcspn(b->value, "."), depth);
    }
    return false;
}

bool graph__own_call_member(const gx_file *f, const char *path)
{
    size_t n = strcspn(path, ".");
    return path[n] && bound_to_own_call(f, path, n, 0);
}

bool graph__loggerish_path(const char *path)
{
    const char *last = gx_last_component(path);
    return last[0] != '@' && graph__loggerish(last, strlen(last));
}

graph_level graph_level_of_method(const char *name, size_t n)
{
    static const struct {
        const char *name;
        graph_level level;
    } levels[] = {
        {"debug", GRAPH_LEVEL_DEBUG},       {"info", GRAPH_LEVEL_INFO},
        {"warning", GRAPH_LEVEL_WARNING},   {"warn", GRAPH_LEVEL_WARNING},
        {"error", GRAPH_LEVEL_ERROR},       {"exception", GRAPH_LEVEL_ERROR},
        {"critical", GRAPH_LEVEL_CRITICAL}, {"fatal", GRAPH_LEVEL_CRITICAL},
        {"trace", GRAPH_LEVEL_TRACE},       {"silly", GRAPH_LEVEL_TRACE},
        {"verbose", GRAPH_LEVEL_DEBUG},     {"notice", GRAPH_LEVEL_NOTICE},
        {"http", GRAPH_LEVEL_NOTICE},       {"timing", GRAPH_LEVEL_NOTICE},
        {"success", GRAPH_LEVEL_INFO},      {"emerg", GRAPH_LEVEL_CRITICAL},
        {"alert", GRAPH_LEVEL_CRITICAL},    {"crit", GRAPH_LEVEL_CRITICAL},
        {"err", GRAPH_LEVEL_ERROR},
    };
    for (size_t i = 0; i < sizeof levels / sizeof levels[0]; i++)
        if (strlen(levels[i].name) == n && memcmp(levels[i].name, name, n) == 0)
            return levels[i].level;
    return GRAPH_LEVEL_NONE;
}

bool graph__const_like(const char *s, size_t n)
{
    bool letter = false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c >= 'A' && c <= 'Z')
            letter = true;
        else if (!(c == '_' || (c >= '0' && c <= '9')))
            return false;
    }
    return letter && n >= 2;
}

static const char *const shown_kinds[] = {"Function", "AsyncFunction", "GeneratorFunction",
                                          "AsyncGeneratorFunction"};

size_t graph__function_shown(char *buf, size_t cap, bool async, bool generator, const char *name)
{
    const char *kind = shown_kinds[(async ? 1 : 0) + (generator ? 2 : 0)];
    int n = name && name[0] ? snprintf(buf, cap, "[%s: %s]", kind, name)
                            : snprintf(buf, cap, "[%s (anonymous)]", kind);
    return n < 0 ? 0 : (size_t)n < cap ? (size_t)n : cap - 1;
}

size_t graph__function_shown_len(const char *s, size_t n)
{
    if (n == 0 || s[0] != '[')
        return 0;
    for (size_t k = 0; k < sizeof shown_kinds / sizeof *shown_kinds; k++) {
        size_t l = strlen(shown_kinds[k]);
        if (n < 1 + l + 2 || memcmp(s + 1, shown_kinds[k], l) != 0)
            continue;
        size_t i = 1 + l;
        if (n - i >= 13 && memcmp(s + i, " (anonymous)]", 13) == 0)
            return i + 13;
        if (s[i] != ':' || s[i + 1] != ' ')
            continue;
        for (i += 2; i < n && s[i] != ']' && s[i] != ' '; i++)
            ;
        if (i < n && s[i] == ']')
            return i + 1;
    }
    return 0;
}

bool graph__capwords(const char *s)
{
    if (!(s[0] >= 'A' && s[0] <= 'Z'))
        return false;
    for (const char *p = s + 1; *p; p++)
        if (*p >= 'a' && *p <= 'z')
            return true;
    return false;
}

graph_level graph__level_of_word(const char *s, size_t n)
{
    char low[16];
    if (n >= sizeof low)
        return GRAPH_LEVEL_NONE;
    for (size_t i = 0; i < n; i++)
        low[i] = (char)(s[i] >= 'A' && s[i] <= 'Z' ? s[i] + 32 : s[i]);
    return graph_level_of_method(low, n);
}

void graph__mark_logs(gx_file *f, int32_t sym, graph_style style)
{
    if (sym < 0)
        return;
    f->syms.v[sym].flags |= GRAPH_SF_LOGS;
    if (style == GRAPH_STYLE_REF || style == GRAPH_STYLE_DYNAMIC)
        f->syms.v[sym].flags |= GRAPH_SF_LOGS_DYNAMIC;
}

/* Parentheses and await keep a call in the position it is in. */
static bool effect_position(TSNode n)
{
    for (TSNode p = ts_node_parent(n); !ts_node_is_null(p); p = ts_node_parent(p)) {
        const char *t = ts_node_type(p);
        if (strcmp(t, "expression_statement") == 0 || strcmp(t, "return_statement") == 0)
            return true;
        if (strcmp(t, "parenthesized_expression") != 0 && strcmp(t, "await") != 0 &&
            strcmp(t, "await_expression") != 0)
            return false;
    }
    return false;
}

/* Whether call n is inside an exception handler of its own function
 * (`except`, `catch`). */
static bool in_handler(TSNode n)
{
    for (TSNode p = ts_node_parent(n); !ts_node_is_null(p); p = ts_node_parent(p)) {
        const char *t = ts_node_type(p);
        if (strcmp(t, "except_clause") == 0 || strcmp(t, "catch_clause") == 0)
            return true;
        if (strstr(t, "function") || strcmp(t, "lambda") == 0 ||
            strcmp(t, "method_definition") == 0 || strstr(t, "class"))
            return false;
    }
    return false;
}

void graph__note_effect(gx_file *f, int32_t sym, const char *src, TSNode n, TSNode fn)
{
    if (sym < 0 || !effect_position(n))
        return;
    uint32_t a = ts_node_start_byte(fn), b = ts_node_end_byte(fn);
    uint64_t h = core_hash64(src + a, b - a, 0x65666665ull);
    h += h == 0;
    gx_sym *s = &f->syms.v[sym];
    if (s->effect == 0)
        s->effect = h;
    else if (s->effect != h)
        s->flags |= GRAPH_SF_EFFECTS;
    /* (A handler sets GRAPH_SF_CATCHES before its calls are walked.) */
    if ((s->flags & GRAPH_SF_CATCHES) && in_handler(n))
        return;
    if (s->body_effect == 0)
        s->body_effect = h;
    else if (s->body_effect != h)
        s->body_effects = true;
}

void graph__callee_split(gx_file *f, const char *callee, const char **receiver, const char **method)
{
    const char *last = gx_last_component(callee);
    *method = last;
    *receiver =
        last > callee ? core_arena_strndup(&f->arena, callee, (size_t)(last - callee) - 1) : "";
}

bool graph__names_reset(gx_names *l, uint32_t fn)
{
    if (l->fn == fn)
        return false;
    l->fn = fn;
    l->n = 0;
    return true;
}

void graph__names_add(gx_names *l, uint32_t at, uint32_t len)
{
    if (l->n < GX_NAMES_MAX) {
        l->at[l->n] = at;
        l->len[l->n++] = len;
    }
}

bool graph__names_has(const gx_names *l, const char *src, uint32_t at, uint32_t len)
{
    for (uint32_t i = 0; i < l->n; i++)
        if (l->len[i] == len && memcmp(src + l->at[i], src + at, len) == 0)
            return true;
    return false;
}

/* An identifier's byte: what a name cannot border (`this.lines`, `$lines`
 * are other names). */
static bool ident_byte(char c)
{
    return isalnum((unsigned char)c) || c == '_' || c == '$' || c == '.';
}

bool graph__word_beside(const char *a, const char *end, const char *name, size_t nl,
                        const char *lead, const char *trail)
{
    size_t ll = lead ? strlen(lead) : 0, tl = trail ? strlen(trail) : 0;
    for (const char *p = a; p < end;) {
        const char *q = memmem(p, (size_t)(end - p), name, nl);
        if (!q)
            break;
        const char *e = q + nl;
        if ((q == a || !ident_byte(q[-1])) && (e == end || !ident_byte(*e) || *e == '.') &&
            ((lead && (size_t)(q - a) >= ll && memcmp(q - ll, lead, ll) == 0) ||
             (trail && (size_t)(end - e) >= tl && memcmp(e, trail, tl) == 0)))
            return true;
        p = e;
    }
    return false;
}

void graph__cand_site(gx_cands *c, const char *callee)
{
    core_smap_add(&c->callees, callee, strlen(callee), 1);
    const char *method = gx_last_component(callee);
    if (method > callee)
        core_smap_add(&c->receivers, callee, (size_t)(method - callee) - 1, 1);
}

void graph__cand_pending(gx_cands *c, gx_file *f, const char *callee, int32_t sym, uint32_t line)
{
    if (!callee || callee[0] == '@')
        return;
    gx_emit em = {0};
    em.kind = GRAPH_EMIT_CALL;
    em.style = GRAPH_STYLE_DYNAMIC;
    graph__callee_split(f, callee, &em.receiver, &em.method);
    em.ref = callee; /* (the key until graph__cand_finish) */
    em.sym = sym;
    em.line = line;
    core_vec_push(&c->pending, em);
}

/* Whether a pending call becomes a site (gx_cands): its callee got one,
 * or it is a level-named method of a receiver that did. */
static bool pending_kept(const gx_cands *c, const gx_emit *em)
{
    uint32_t it = 0;
    if (core_smap_get(&c->callees, em->ref, strlen(em->ref), &it) != UINT32_MAX)
        return true;
    return graph_level_of_method(em->method, strlen(em->method)) != GRAPH_LEVEL_NONE &&
           core_smap_get(&c->receivers, em->receiver, strlen(em->receiver), &it) != UINT32_MAX;
}

void graph__cand_finish(gx_cands *c, gx_file *f)
{
    for (size_t i = 0; i < c->pending.n; i++) {
        gx_emit em = c->pending.v[i];
        if (!pending_kept(c, &em))
            continue;
        em.ref = NULL;
        core_vec_push(&f->emits, em);
    }
    core_smap_free(&c->callees);
    core_smap_free(&c->receivers);
    core_vec_free(&c->pending);
}

const char *graph__path_join(gx_file *f, const char *a, const char *b, size_t blen)
{
    size_t alen = strlen(a);
    char *p = core_arena_alloc(&f->arena, alen + 1 + blen + 1);
    memcpy(p, a, alen);
    p[alen] = '.';
    memcpy(p + alen + 1, b, blen);
    p[alen + 1 + blen] = 0;
    return p;
}

const char *graph__path_join_node(gx_file *f, const char *a, const char *src, TSNode n)
{
    uint32_t s = ts_node_start_byte(n), e = ts_node_end_byte(n);
    return graph__path_join(f, a, src + s, e - s);
}

/* ---- literal arguments filled into templates ---- */

bool graph__imported(const gx_file *f, const char *name, size_t n)
{
    for (size_t i = 0; i < f->imports.n; i++) {
        const gx_import *im = &f->imports.v[i];
        const char *b = im->alias;
        size_t bn;
        if (b) {
            bn = strlen(b);
        } else if (im->module) {
            /* Python's `import a.b` binds a. */
            b = im->module;
            bn = strcspn(b, ".");
        } else {
            continue;
        }
        if (bn == n && memcmp(b, name, n) == 0)
            return true;
    }
    return false;
}

bool graph__fill_add(gx_fill_vals *out, const char *v)
{
    for (uint32_t i = 0; i < out->n; i++)
        if (strcmp(out->v[i], v) == 0)
            return true;
    if (out->n >= GX_FILL_VALUES)
        return false;
    out->v[out->n++] = v;
    return true;
}

void graph__fill_push(gx_file *f, const gx_emit *em, gx_fill_fn fn, void *ud)
{
    const char *t = em->tmpl;
    if (!t) {
        core_vec_push(&f->emits, *em);
        return;
    }
    gx_tmpl out[GX_FILL_VARIANTS];
    memset(out, 0, sizeof out);
    uint32_t nv = 1;
    bool filled = false, holds = false;
    size_t n = strlen(t);
    for (size_t i = 0; i < n;) {
        graph_tmpl_piece pc;
        size_t d = graph_tmpl_step(t, n, i, &pc);
        gx_fill_vals fv = {GX_FILL_NONE, 0, {0}};
        if (pc.hole)
            fv = fn(ud, t, i, d);
        bool exact = fv.kind == GX_FILL_EXACT || fv.kind == GX_FILL_FORMAT;
        if (exact && fv.n && nv * fv.n <= GX_FILL_VARIANTS) {
            /* Each variant so far once per value: variant k becomes
             * k * n + j (from the last, so none is overwritten before it
             * is copied), and gets value j. */
            for (uint32_t k = nv; k-- > 0;)
                for (uint32_t j = fv.n; j-- > 0;)
                    if (k * fv.n + j != k) {
                        gx_tmpl *to = &out[k * fv.n + j];
                        graph__tmpl_clear(to);
                        core_buf_append(&to->buf, out[k].buf.data, out[k].buf.len);
                        to->truncated = out[k].truncated;
                    }
            nv *= fv.n;
            for (uint32_t k = 0; k < nv; k++) {
                const char *v = fv.v[k % fv.n];
                if (fv.kind == GX_FILL_FORMAT)
                    tmpl_put(&out[k], v, strlen(v));
                else
                    graph__tmpl_literal(&out[k], v, strlen(v));
            }
            filled = true;
        } else if (fv.kind == GX_FILL_HOLDS && fv.n && fv.v[0][0]) {
            for (uint32_t k = 0; k < nv; k++) {
                tmpl_put(&out[k], t + i, d);
                graph__tmpl_literal(&out[k], fv.v[0], strlen(fv.v[0]));
                tmpl_put(&out[k], t + i, d);
            }
            filled = holds = true;
        } else {
            for (uint32_t k = 0; k < nv; k++)
                tmpl_put(&out[k], t + i, d);
        }
        i += d;
    }
    if (!filled || holds) {
        gx_emit w = *em;
        if (holds)
            w.flags |= GRAPH_EF_FALLBACK;
        core_vec_push(&f->emits, w);
    }
    for (uint32_t k = 0; filled && k < nv; k++) {
        gx_emit v = *em;
        const char *tm = graph__tmpl_take(&out[k], f, &v.flags);
        v.tmpl = tm ? tm : "";
        core_vec_push(&f->emits, v);
    }
    for (uint32_t k = 0; k < GX_FILL_VARIANTS; k++)
        graph__tmpl_free(&out[k]);
}

/* Without the name test, all the new wrappers found in the Debian Python
 * packages were of that kind: botocore's event aliaser alone gave every
 * caller of emit() a site. */
bool graph__message_like(const char *name)
{
    char w[64];
    size_t n = strlen(name);
    if (n >= sizeof w)
        return false;
    for (size_t i = 0; i <= n; i++)
        w[i] = (char)(name[i] >= 'A' && name[i] <= 'Z' ? name[i] + 32 : name[i]);
    if (strstr(w, "msg") || strstr(w, "message"))
        return true;
    static const char *const words[] = {"text", "fmt", "format"};
    for (size_t k = 0; k < sizeof words / sizeof words[0]; k++) {
        size_t wl = strlen(words[k]);
        for (const char *at = strstr(w, words[k]); at; at = strstr(at + 1, words[k]))
            if ((at == w || at[-1] == '_') && (at[wl] == 0 || at[wl] == '_'))
                return true;
    }
    return false;
}

bool graph__pick_add(gx_pick *k, const void *param, const char *name, uint32_t i)
{
    for (uint32_t j = 0; j < k->n; j++)
        if (k->all[j] == param)
            return false;
    if (k->n == GX_PICK_MAX)
        return false;
    k->all[k->n] = param;
    k->names[k->n] = name;
    k->ats[k->n++] = i;
    if (k->n == 1) {
        k->p = param;
        k->pname = name;
        k->at = i;
        k->slot_at = UINT32_MAX;
    } else if (k->n == 2) {
        k->q = param;
        k->qname = name;
        k->slot_at = i;
    }
    return true;
}

bool graph__walk_next(TSTreeCursor *c, TSNode root, bool descend)
{
    if (descend && ts_tree_cursor_goto_first_child(c))
        return true;
    if (ts_tree_cursor_goto_next_sibling(c))
        return true;
    /* Up until a parent has a next sibling; never above root. */
    while (ts_tree_cursor_goto_parent(c)) {
        if (ts_node_eq(ts_tree_cursor_current_node(c), root))
            return false;
        if (ts_tree_cursor_goto_next_sibling(c))
            return true;
    }
    return false;
}

bool graph__pick_plain(const gx_pick *k)
{
    return k->p && !k->q && !graph__message_like(k->pname);
}

bool graph__pick_done(gx_pick *k, bool named)
{
    if (!k->p)
        return false;
    if (!k->q)
        return !named || graph__message_like(k->pname);
    if (k->n > 2) {
        /* The one named like a message, the others holes. */
        uint32_t found = 0, m = 0;
        for (uint32_t j = 0; j < k->n; j++)
            if (graph__message_like(k->names[j]) && found++ == 0)
                m = j;
        if (found != 1)
            return false;
        k->p = k->all[m];
        k->pname = k->names[m];
        k->at = k->ats[m];
        k->q = NULL;
        k->qname = NULL;
        k->slot_at = UINT32_MAX;
        return true;
    }
    bool mp = graph__message_like(k->pname), mq = graph__message_like(k->qname);
    if (mp == mq)
        return false;
    if (mq) {
        gx_pick t = *k;
        k->p = t.q;
        k->pname = t.qname;
        k->at = t.slot_at;
        k->q = t.p;
        k->qname = t.pname;
        k->slot_at = t.at;
    }
    return true;
}

bool graph__dotted_path(const char *s, size_t n)
{
    bool joined = false, start = true;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '.' || c == ':') {
            if (start)
                return false;
            joined = start = true;
        } else if (isalpha(c) || c == '_' || (!start && isdigit(c))) {
            start = false;
        } else {
            return false;
        }
    }
    return joined && !start;
}
